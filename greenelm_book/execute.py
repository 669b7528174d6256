"""Execute one chapter with papermill, stamping its provenance.

An executed chapter ``DIR/<name>.ipynb`` records its provenance in the notebook metadata::

    greenelm: {source_sha256, source, profile, parameters, overrides, greenelm_version, machine,
               own_results_sha256 (its results file, when it wrote one), results_sha256 (summaries)}

``parameters`` are the injected ones (profile entry, then overrides, then ``profile``);
``overrides`` are the ``-p`` values alone, so a book notebook can be checked to be a plain
profile run.

Results: the kernel runs with ``GREENELM_RESULTS_DIR=<out>/results``, where each chapter's
:class:`greenelm_book.results.ChapterResults` writes ``<chapter>.json``. The summary chapters
(:data:`greenelm_book.toc.SUMMARY_CHAPTERS`) record ``results_sha256`` (the digest of the results
they read): a changed result makes them stale.

Code folding: after execution every code cell gets the tag ``hide-input`` (the reader sees its
output and a toggle), except the parameters cells and cells tagged otherwise by the chapter; a
cell beginning ``# NBVAL_CHECK_OUTPUT`` (a regression-test printout) gets ``remove-cell``.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path
from typing import Any, Mapping

from .freshness import results_sha256
from .toc import (
    ROOT,
    SUMMARY_CHAPTERS,
    declared_parameters,
    injected_parameters,
    parameters_cells,
    read_chapter,
    relative,
    source_path,
)

KERNEL = "python3"
KERNELSPEC = {"name": KERNEL, "display_name": "Python 3 (ipykernel)", "language": "python"}
#: tags a chapter may set itself; a code cell without any of them is folded (``hide-input``)
_DISPLAY_TAGS = {"parameters", "injected-parameters", "hide-input", "hide-output", "hide-cell",
                 "remove-input", "remove-output", "remove-cell", "show-input"}


def fold_code(nb) -> None:
    """Fold every code cell's source (``hide-input``) unless it is a parameters cell or the chapter
    tagged it; remove regression-test printouts (``# NBVAL_CHECK_OUTPUT`` cells) from the page."""
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        tags = list(cell.metadata.get("tags", []))
        if cell.source.lstrip().startswith("# NBVAL_CHECK_OUTPUT"):
            if "remove-cell" not in tags:
                tags.append("remove-cell")
        elif not _DISPLAY_TAGS & set(tags):
            tags.append("hide-input")
        cell.metadata["tags"] = tags


class ChapterError(RuntimeError):
    """A chapter failed to execute; ``str()`` is the one-line message for the user."""

    def __init__(self, message: str, name: str, cell: int | None = None,
                 failed_notebook: Path | None = None):
        super().__init__(message)
        self.name, self.cell, self.failed_notebook = name, cell, failed_notebook


def _version() -> str:
    try:
        from greenelm import __version__
        return str(__version__)
    except Exception:  # pragma: no cover - a broken package still gets its notebooks stamped
        try:
            from importlib.metadata import version
            return version("greenelm")
        except Exception:
            return "unknown"


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _atomic_write_nb(nb, path: Path) -> None:
    import nbformat

    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.stem}.", suffix=".tmp.ipynb")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            nbformat.write(nb, fh)
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp makes 0600; a notebook is an ordinary file
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def execute_chapter(name: str, profile: str, out_dir: str | Path,
                    overrides: Mapping[str, Any] | None = None, *,
                    notebooks_dir: str | Path | None = None,
                    params_dir: str | Path | None = None,
                    profile_params: Mapping[str, Mapping] | None = None,
                    cwd: str | Path | None = None, progress: bool = True,
                    kernel: str = KERNEL, start_timeout: int = 120) -> Path:
    """Execute ``notebooks/<name>.py`` with papermill into ``out_dir/<name>.ipynb``; return that path.

    Parameters are the profile entry (``params/<profile>.yml``, or ``profile_params``) merged with
    ``overrides``, plus ``profile``; every key must be declared in the chapter's parameters cell.
    On a failing cell raise :class:`ChapterError` (message ``chapter <name> failed at cell <n>:
    <ename>: <evalue>``, ``n`` counting the cells of the .py from 1) and keep the partial notebook
    as ``out_dir/<name>.failed.ipynb``; ``out_dir/<name>.ipynb`` is only ever replaced atomically
    by a complete, successful run.
    """
    import nbformat
    import papermill
    from papermill.exceptions import PapermillExecutionError

    from .bench import chapter_machine

    src = source_path(name, notebooks_dir)
    if not src.is_file():
        raise FileNotFoundError(f"chapter {name}: no source {src}")
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    final, failed = out_dir / f"{name}.ipynb", out_dir / f"{name}.failed.ipynb"

    text = src.read_bytes()
    sha = hashlib.sha256(text).hexdigest()
    nb = read_chapter(name, notebooks_dir)
    declared = declared_parameters(nb)
    params = injected_parameters(name, profile, overrides, params_dir, profile_params)
    unknown = sorted(set(params) - set(declared))
    if unknown:
        raise ValueError(f"chapter {name}: unknown parameter(s) {unknown}; its parameters cell "
                         f"declares {declared}")
    nb.metadata["kernelspec"] = dict(KERNELSPEC)
    param_cell = parameters_cells(nb)[0]

    with tempfile.TemporaryDirectory(prefix=f"greenelm-{name}-") as tmpdir:
        inp = Path(tmpdir) / f"{name}.ipynb"
        nbformat.write(nb, inp)
        fd, tmp = tempfile.mkstemp(dir=out_dir, prefix=f".{name}.", suffix=".tmp.ipynb")
        os.close(fd)
        tmp = Path(tmp)
        results_env = os.environ.get("GREENELM_RESULTS_DIR")
        os.environ["GREENELM_RESULTS_DIR"] = str((out_dir / "results").resolve())
        try:
            try:
                papermill.execute_notebook(
                    str(inp), str(tmp), parameters=params, kernel_name=kernel, language="python",
                    cwd=str(cwd or ROOT), progress_bar=progress, log_output=False,
                    start_timeout=start_timeout)
            except PapermillExecutionError as exc:
                # papermill's cell_index counts its injected-parameters cell (right after ours);
                # report the position of the cell in the .py, counting from 1
                idx = exc.cell_index
                cell = None if idx == param_cell + 1 else (idx if idx <= param_cell else idx - 1) + 1
                where = "its injected parameters" if cell is None else f"cell {cell}"
                msg = f"chapter {name} failed at {where}: {exc.ename}: {exc.evalue}"
                _keep_failed(tmp, failed, src)
                first = (exc.source or "").strip().splitlines()
                detail = (f"  (In [{exc.exec_count}] of {relative(failed)}; the cell begins: "
                          f"{first[0] if first else ''})")
                raise ChapterError(msg + "\n" + detail, name, cell, failed) from None
            except Exception as exc:  # kernel died, timeout, ...
                if tmp.exists() and tmp.stat().st_size:
                    _keep_failed(tmp, failed, src)
                raise ChapterError(f"chapter {name} failed: {type(exc).__name__}: {exc}", name,
                                   failed_notebook=failed if failed.exists() else None) from exc

            out = nbformat.read(tmp, as_version=4)
            _stamp_papermill(out, src, final)
            fold_code(out)
            summary = {"results_sha256": results_sha256(out_dir, exclude=[name])} \
                if name in SUMMARY_CHAPTERS else {}
            own = out_dir / "results" / f"{name}.json"
            if own.is_file():    # the page and its results file come from this one execution
                summary["own_results_sha256"] = hashlib.sha256(own.read_bytes()).hexdigest()
            out.metadata["greenelm"] = {
                "source_sha256": sha,
                "source": relative(src),
                "profile": profile,
                "parameters": params,
                "overrides": dict(overrides or {}),
                "greenelm_version": _version(),
                "machine": chapter_machine(),
                **summary,
            }
            _atomic_write_nb(out, final)
            failed.unlink(missing_ok=True)
        finally:
            tmp.unlink(missing_ok=True)
            if results_env is None:
                os.environ.pop("GREENELM_RESULTS_DIR", None)
            else:
                os.environ["GREENELM_RESULTS_DIR"] = results_env
    return final


def _stamp_papermill(nb, src: Path, output: Path) -> None:
    pm = nb.metadata.get("papermill")
    if pm is not None:
        pm["input_path"] = relative(src)
        pm["output_path"] = relative(output)


def _keep_failed(tmp: Path, failed: Path, src: Path) -> None:
    import nbformat

    try:
        nb = nbformat.read(tmp, as_version=4)
        _stamp_papermill(nb, src, failed)
        _atomic_write_nb(nb, failed)
    except Exception:
        os.replace(tmp, failed)
