"""Execute the book's chapters and build the HTML book.

The chapters are jupytext py:percent files ``notebooks/<name>.py``; their order is the order of
``_toc.yml`` (root ``book/intro``, then ``book/<name>`` per chapter). Each chapter has one cell
tagged ``parameters`` (at least ``profile = "smoke"`` and ``seed = 0``). A profile
(``params/<profile>.yml``) maps chapter name -> parameters merged over those defaults; the runner
always injects ``profile`` itself, and ``-p KEY VALUE`` overrides (YAML values) come last.

Command line (run from anywhere; the kernel's working directory is the repository root)::

    python -m greenelm_book.runner run --profile {smoke,full} --out DIR [--chapter NAME ...] [-p KEY VALUE ...]
    python -m greenelm_book.runner html --source DIR        # DIR = book: in place -> _build/html
    python -m greenelm_book.runner check-fresh --source book

Every subcommand also takes ``--notebooks DIR``, ``--toc FILE`` and ``--params DIR`` to point it
at another project (the tests use a temporary one).

An executed chapter ``DIR/<name>.ipynb`` records its provenance in the notebook metadata::

    greenelm: {source_sha256, source, profile, parameters, overrides, greenelm_version, machine,
               own_results_sha256 (its results file, when it wrote one), results_sha256 (summaries)}

``parameters`` are the injected ones (profile entry, then overrides, then ``profile``);
``overrides`` are the ``-p`` values alone, so a book notebook can be checked to be a plain
profile run.

Results: the kernel runs with ``GREENELM_RESULTS_DIR=<out>/results``, where each chapter's
:class:`greenelm_book.results.ChapterResults` writes ``<chapter>.json``. The summary chapters
(:data:`SUMMARY_CHAPTERS`: the scorecard and the conclusion read every other chapter's results)
execute after all the others whatever their place in the toc, and record ``results_sha256`` (the
digest of the results they read): a changed result makes them stale.

Code folding: after execution every code cell gets the tag ``hide-input`` (the reader sees its
output and a toggle), except the parameters cells and cells tagged otherwise by the chapter; a
cell beginning ``# NBVAL_CHECK_OUTPUT`` (a regression-test printout) gets ``remove-cell``.
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Iterable, Mapping

import yaml

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
PARAMS = ROOT / "params"
TOC = ROOT / "_toc.yml"
CONFIG = ROOT / "_config.yml"
BOOK = ROOT / "book"
BUILD = ROOT / "_build"
KERNEL = "python3"
PROFILES = ("smoke", "full")
#: files of the book besides the chapters, copied when a book is staged
BOOK_FILES = ("book/intro.md", "book/references.bib", "_static/greenelm.css")
#: generated at each build from the results store of the chapters being rendered (included by the intro)
SCORECARD_SUMMARY = "book/scorecard_summary.md"
KERNELSPEC = {"name": KERNEL, "display_name": "Python 3 (ipykernel)", "language": "python"}
#: chapters that summarise the others' results: executed last, stale when those results change
SUMMARY_CHAPTERS = ("scorecard", "conclusion")
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


def results_sha256(out_dir: str | Path, exclude: Iterable[str] = ()) -> str:
    """Digest of the results files in ``out_dir/results`` (names and bytes), ``exclude`` chapters left out."""
    digest = hashlib.sha256()
    folder = Path(out_dir) / "results"
    for path in sorted(folder.glob("*.json")) if folder.is_dir() else []:
        if path.stem in set(exclude):
            continue
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


class ChapterError(RuntimeError):
    """A chapter failed to execute; ``str()`` is the one-line message for the user."""

    def __init__(self, message: str, name: str, cell: int | None = None,
                 failed_notebook: Path | None = None):
        super().__init__(message)
        self.name, self.cell, self.failed_notebook = name, cell, failed_notebook


class BuildError(RuntimeError):
    """``jupyter-book build`` failed (or the book could not be staged)."""


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


# --------------------------------------------------------------------------- chapters and profiles
def _toc_files(entries: Iterable[Mapping[str, Any]]) -> list[str]:
    files: list[str] = []
    for entry in entries or []:
        if "file" in entry:
            files.append(str(entry["file"]))
        for key in ("parts", "chapters", "sections"):
            if key in entry:
                files.extend(_toc_files(entry[key]))
    return files


def _toc_entries(toc: str | Path | None) -> list[str]:
    toc = Path(toc) if toc is not None else TOC
    data = yaml.safe_load(toc.read_text()) or {}
    return _toc_files([{k: v for k, v in data.items() if k != "root"}])


def pages(toc: str | Path | None = None) -> list[str]:
    """The static pages of the toc: entries written with their ``.md`` suffix (``book/api.md``),
    as paths relative to the repository root. They are rendered as they are, never executed."""
    return [entry for entry in _toc_entries(toc) if entry.endswith(".md")]


def chapters(toc: str | Path | None = None) -> list[str]:
    """The chapter names in book order: ``book/<name>`` entries of the toc (executed notebooks),
    root and static pages (:func:`pages`) excluded."""
    toc = Path(toc) if toc is not None else TOC
    names = []
    for entry in _toc_entries(toc):
        if entry.endswith(".md"):
            continue
        entry = re.sub(r"\.ipynb$", "", entry)
        if not entry.startswith("book/") or "/" in entry[len("book/"):]:
            raise ValueError(f"{toc}: toc entry {entry!r} is not of the form book/<name>")
        names.append(entry[len("book/"):])
    if len(set(names)) != len(names):
        raise ValueError(f"{toc}: a chapter is listed twice: {names}")
    return names


def load_profile(profile: str, params_dir: str | Path | None = None) -> dict[str, dict]:
    """``params/<profile>.yml`` as {chapter: {parameter: value}} (empty entries become ``{}``)."""
    path = Path(params_dir or PARAMS) / f"{profile}.yml"
    if not path.is_file():
        raise FileNotFoundError(f"no profile {profile!r}: {path} does not exist")
    data = yaml.safe_load(path.read_text()) or {}
    if not isinstance(data, dict):
        raise ValueError(f"{path}: expected a mapping chapter -> parameters")
    out = {}
    for name, params in data.items():
        if params is None:
            params = {}
        if not isinstance(params, dict):
            raise ValueError(f"{path}: entry {name!r} must be a mapping of parameters")
        out[str(name)] = dict(params)
    return out


def source_path(name: str, notebooks_dir: str | Path | None = None) -> Path:
    return Path(notebooks_dir or NOTEBOOKS) / f"{name}.py"


def source_sha256(name: str, notebooks_dir: str | Path | None = None) -> str:
    """sha256 of the chapter's .py text (its bytes as stored)."""
    return hashlib.sha256(source_path(name, notebooks_dir).read_bytes()).hexdigest()


def read_chapter(name: str, notebooks_dir: str | Path | None = None):
    """The chapter as a notebook (jupytext, py:percent)."""
    import jupytext

    return jupytext.read(source_path(name, notebooks_dir), fmt="py:percent")


def parameters_cells(nb) -> list[int]:
    """Indices of the cells tagged ``parameters``."""
    return [i for i, c in enumerate(nb.cells) if "parameters" in c.metadata.get("tags", [])]


def declared_parameters(nb) -> list[str]:
    """Names assigned at top level in the (single) ``parameters`` cell."""
    idx = parameters_cells(nb)
    if len(idx) != 1:
        raise ValueError(f"expected exactly one cell tagged 'parameters', found {len(idx)}")
    src = nb.cells[idx[0]].source
    try:
        tree = ast.parse(src)
    except SyntaxError:  # IPython syntax in the cell: fall back to a line scan
        return re.findall(r"^([A-Za-z_]\w*)\s*(?::[^=\n]+)?=(?!=)", src, flags=re.M)
    names = []
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else (
            [node.target] if isinstance(node, ast.AnnAssign) else [])
        for t in targets:
            for n in ast.walk(t):
                if isinstance(n, ast.Name) and n.id not in names:
                    names.append(n.id)
    return names


def parse_value(text: str) -> Any:
    """A ``-p`` value: YAML (``[1, 2]``, ``true``, ``0.5``, ``null``, ``pinv``); ``1e3`` -> 1000.0."""
    value = yaml.safe_load(text)
    if isinstance(value, str) and re.fullmatch(r"[-+]?(\d+\.?\d*|\.\d+)[eE][-+]?\d+", value.strip()):
        value = float(value)
    return value


def injected_parameters(name: str, profile: str, overrides: Mapping[str, Any] | None = None,
                        params_dir: str | Path | None = None,
                        profile_params: Mapping[str, Mapping] | None = None) -> dict[str, Any]:
    """What the runner injects into a chapter: profile entry, then overrides, then ``profile``."""
    table = profile_params if profile_params is not None else load_profile(profile, params_dir)
    return {**dict(table.get(name) or {}), **dict(overrides or {}), "profile": profile}


# --------------------------------------------------------------------------- execution
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


def _rel(path: Path) -> str:
    try:
        return str(Path(path).resolve().relative_to(ROOT))
    except ValueError:
        return str(path)


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
                detail = (f"  (In [{exc.exec_count}] of {_rel(failed)}; the cell begins: "
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
                "source": _rel(src),
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


ENVIRONMENT_PAGE = "book/environment.md"
#: packages whose exact versions the environment page lists (all of them are in constraints.txt)
KEY_PACKAGES = ("numpy", "scipy", "scikit-learn", "torch", "torchvision", "timm", "pandas",
                "matplotlib", "dask", "jupyter-book", "papermill", "myst-nb")


def environment_page(source_dir: str | Path, toc: str | Path | None = None) -> str:
    """The book's *Environment and execution* page (MyST text), from the executed chapters'
    provenance (profile, date, run time, machine, greenelm version) and ``constraints.txt``."""
    import nbformat

    source_dir = Path(source_dir)
    rows = []
    for name in chapters(toc):
        path = source_dir / f"{name}.ipynb"
        meta = nbformat.read(path, as_version=4).metadata if path.is_file() else {}
        ours, pm = meta.get("greenelm", {}), meta.get("papermill", {})
        host = ours.get("machine")
        where = f"{host['cpu']}, {host['cores']} cores, {host['memory_gib']:g} GiB" if host else "–"
        minutes = f"{pm['duration'] / 60:.1f}" if pm.get("duration") is not None else "–"
        rows.append(f"| {{doc}}`{name} <{name}>` | {ours.get('profile', '–')} "
                    f"| {str(pm.get('start_time', '–'))[:10]} | {minutes} | {where} |")
    pins = {}
    for line in (ROOT / "constraints.txt").read_text().splitlines():
        package, _, version = line.partition("==")
        if version and not line.startswith("#"):
            pins[package.strip().lower()] = version.strip()
    versions = ", ".join(f"{p} {pins[p]}" for p in KEY_PACKAGES if p in pins)
    return "\n".join([
        "# Environment and execution", "",
        "Every chapter is a notebook executed by `greenelm_book.runner` (papermill) at the profile "
        "shown; the book renders the stored outputs and re-executes nothing. This page is written "
        "by the runner at each build from the chapters' provenance (their notebook metadata) and "
        "from `constraints.txt`, the book's exact environment.", "",
        "| chapter | profile | executed | minutes | machine |", "| --- | --- | --- | ---: | --- |",
        *rows, "",
        "A machine shown as – was not recorded (the chapter was executed before the runner "
        "recorded machines). *Minutes* is the run time of that execution; a chapter whose heavy results were read from "
        "the results cache (keyed by parameters and code, see `greenelm_book.results_cache`) runs in "
        "less than it took to compute them.", "",
        f"Exact versions of the main packages ({len(pins)} pinned in all, in `constraints.txt`): "
        f"{versions}.", "",
        "Re-execute one chapter with `python -m greenelm_book.runner run --profile full "
        "--out book --chapter NAME`, every stale one with `make book`, all with `make book-full`.",
        ""])


def _stamp_papermill(nb, src: Path, output: Path) -> None:
    pm = nb.metadata.get("papermill")
    if pm is not None:
        pm["input_path"] = _rel(src)
        pm["output_path"] = _rel(output)


def _keep_failed(tmp: Path, failed: Path, src: Path) -> None:
    import nbformat

    try:
        nb = nbformat.read(tmp, as_version=4)
        _stamp_papermill(nb, src, failed)
        _atomic_write_nb(nb, failed)
    except Exception:
        os.replace(tmp, failed)


# --------------------------------------------------------------------------- freshness
def provenance(notebook: str | Path) -> dict | None:
    """The ``greenelm`` metadata of an executed chapter (``None`` when absent)."""
    import nbformat

    nb = nbformat.read(Path(notebook), as_version=4)
    return nb.metadata.get("greenelm")


def staleness(source_dir: str | Path, *, toc: str | Path | None = None,
              notebooks_dir: str | Path | None = None,
              params_dir: str | Path | None = None) -> dict[str, str]:
    """{chapter: reason} for every chapter of the toc whose ``source_dir/<name>.ipynb`` is missing,
    unstamped, from another version of ``notebooks/<name>.py``, or whose stored parameters are not
    what its stored profile (+ stored overrides) gives today."""
    source_dir = Path(source_dir)
    out: dict[str, str] = {}
    profiles: dict[str, dict] = {}
    for name in chapters(toc):
        path = source_dir / f"{name}.ipynb"
        if not path.is_file():
            out[name] = f"{_rel(path)} is missing"
            continue
        meta = provenance(path)
        if not meta or "source_sha256" not in meta:
            out[name] = f"{_rel(path)} has no greenelm provenance (not made by greenelm_book.runner)"
            continue
        if not source_path(name, notebooks_dir).is_file():
            out[name] = f"its source {_rel(source_path(name, notebooks_dir))} is missing"
            continue
        if meta["source_sha256"] != source_sha256(name, notebooks_dir):
            out[name] = f"{_rel(source_path(name, notebooks_dir))} changed since it was executed"
            continue
        prof = meta.get("profile")
        try:
            if prof not in profiles:
                profiles[prof] = load_profile(prof, params_dir)
            expected = injected_parameters(name, prof, meta.get("overrides"),
                                           profile_params=profiles[prof])
        except (FileNotFoundError, ValueError) as exc:
            out[name] = f"cannot check its parameters: {exc}"
            continue
        if expected != meta.get("parameters"):
            out[name] = (f"params/{prof}.yml changed since it was executed "
                         f"(stored {meta.get('parameters')}, now {expected})")
            continue
        if name in SUMMARY_CHAPTERS and meta.get("results_sha256") != results_sha256(
                source_dir, exclude=[name]):
            out[name] = f"the results it summarises ({_rel(source_dir / 'results')}) changed since it was executed"
    return out


def stale_chapters(source_dir: str | Path, **kwargs) -> list[str]:
    """Chapters (toc order) whose executed notebook in ``source_dir`` is missing or out of date;
    see :func:`staleness` for the reasons and the keyword arguments."""
    return list(staleness(source_dir, **kwargs))


# --------------------------------------------------------------------------- HTML
#: set (e.g. by the Pages workflow, from github.server_url/github.repository) to link the book to
#: its repository: the repository button and source links in the rendered pages
REPOSITORY_ENV = "GREENELM_REPOSITORY_URL"


def book_config(config: Path = CONFIG) -> str:
    """``_config.yml``'s text, with ``repository.url`` and the repository button set from
    ``$GREENELM_REPOSITORY_URL`` when that is set (else unchanged)."""
    text = config.read_text()
    url = os.environ.get(REPOSITORY_ENV, "").strip()
    if not url:
        return text
    if not re.fullmatch(r"https://[\w.-]+/[\w.-]+/[\w.-]+", url):
        raise ValueError(f"{REPOSITORY_ENV}={url!r}: expected https://host/owner/repository")
    data = yaml.safe_load(text)
    data.setdefault("repository", {})["url"] = url
    data.setdefault("html", {}).update(use_repository_button=True, use_issues_button=True)
    return yaml.safe_dump(data, sort_keys=False)


def _jupyter_book(args: list[str], cwd: Path, quiet: bool) -> None:
    cmd = [sys.executable, "-c", "from jupyter_book.cli.main import main; main()", "build", *args]
    kwargs = {"stdout": subprocess.PIPE, "stderr": subprocess.STDOUT, "text": True} if quiet else {}
    proc = subprocess.run(cmd, cwd=cwd, **kwargs)
    if proc.returncode != 0:
        tail = ("\n" + proc.stdout[-6000:]) if quiet and proc.stdout else ""
        raise BuildError(f"jupyter-book build failed (exit {proc.returncode}){tail}")


def _sync(src: Path, dst: Path) -> None:
    dst.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy2(src, dst)


def build_html(source_dir: str | Path, *, toc: str | Path | None = None,
               build_root: str | Path | None = None, quiet: bool = False) -> Path:
    """Render the book with ``jupyter-book build -W --keep-going --all``; return the html folder.

    ``source_dir`` = ``book`` (the repository's): build the repository root in place ->
    ``_build/html``. Any other folder of executed chapters: stage ``_config.yml``, the toc,
    ``book/intro.md``, ``book/references.bib`` and ``source_dir/<name>.ipynb`` as
    ``book/<name>.ipynb`` in ``<build_root>/stage-<dir name>/``, build it, and copy the result to
    ``<build_root>/<dir name>/html`` (``build_root`` defaults to ``_build``).
    Raises :class:`BuildError` when a chapter notebook is missing or the build fails (warnings
    are errors).
    """
    source_dir = Path(source_dir).resolve()
    toc_path = Path(toc).resolve() if toc is not None else TOC
    names = chapters(toc_path)
    missing = [n for n in names if not (source_dir / f"{n}.ipynb").is_file()]
    if missing:
        raise BuildError(f"{_rel(source_dir)} lacks executed chapters: "
                         + ", ".join(f"{n}.ipynb" for n in missing)
                         + " (run: python -m greenelm_book.runner run --profile ... --out "
                         + f"{_rel(source_dir)})")
    build_root = Path(build_root).resolve() if build_root is not None else BUILD
    opts = ["--warningiserror", "--keep-going", "--all"]
    with_environment = ENVIRONMENT_PAGE in pages(toc_path)
    from .scorecard import summary_markdown

    summary = summary_markdown(source_dir / "results")
    if source_dir == BOOK.resolve() and build_root == BUILD:
        if with_environment:
            (ROOT / ENVIRONMENT_PAGE).write_text(environment_page(source_dir, toc_path))
        (ROOT / SCORECARD_SUMMARY).write_text(summary)
        extra = [] if toc is None else ["--toc", str(toc_path)]
        if os.environ.get(REPOSITORY_ENV):
            BUILD.mkdir(parents=True, exist_ok=True)
            (BUILD / "_config.yml").write_text(book_config())
            extra += ["--config", str(BUILD / "_config.yml")]
        _jupyter_book([str(ROOT), *opts, *extra], ROOT, quiet)
        return BUILD / "html"

    stage = build_root / f"stage-{source_dir.name}"
    if stage.exists():
        shutil.rmtree(stage)
    stage.mkdir(parents=True)
    (stage / "_config.yml").write_text(book_config())
    _sync(toc_path, stage / "_toc.yml")
    for rel in (*BOOK_FILES, *pages(toc_path)):
        if rel == ENVIRONMENT_PAGE:
            (stage / rel).write_text(environment_page(source_dir, toc_path))
        else:
            _sync(ROOT / rel, stage / rel)
    (stage / SCORECARD_SUMMARY).write_text(summary)
    for n in names:
        _sync(source_dir / f"{n}.ipynb", stage / "book" / f"{n}.ipynb")
    _jupyter_book([str(stage), *opts], stage, quiet)
    html = build_root / source_dir.name / "html"
    if html.exists():
        shutil.rmtree(html)
    shutil.copytree(stage / "_build" / "html", html)
    return html


# --------------------------------------------------------------------------- command line
def _select(all_names: list[str], wanted: list[str] | None) -> list[str]:
    if not wanted:
        return all_names
    unknown = [w for w in wanted if w not in all_names]
    if unknown:
        raise SystemExit(f"error: unknown chapter(s) {unknown}; the toc lists {all_names}")
    return [n for n in all_names if n in wanted]  # toc order


def execution_order(names: list[str]) -> list[str]:
    """``names`` in toc order, the summary chapters (:data:`SUMMARY_CHAPTERS`) moved to the end."""
    return [n for n in names if n not in SUMMARY_CHAPTERS] + [n for n in names if n in SUMMARY_CHAPTERS]


def _cmd_run(args) -> int:
    names = execution_order(_select(chapters(args.toc), args.chapter))
    table = load_profile(args.profile, args.params)
    overrides = {k: parse_value(v) for k, v in (args.p or [])}
    # an override applies to each selected chapter that declares it; one no chapter declares is
    # a typo, and an error
    declared = {n: set(declared_parameters(read_chapter(n, args.notebooks))) for n in names}
    unused = [k for k in overrides if not any(k in d for d in declared.values())]
    if unused:
        raise SystemExit(f"error: no selected chapter has parameter(s) {unused}")
    for name in names:  # a typo in the profile stops the run before anything executes
        unknown = sorted(set(table.get(name) or {}) - declared[name])
        if unknown:
            raise SystemExit(f"error: params/{args.profile}.yml: chapter {name} has no "
                             f"parameter(s) {unknown}")
    out = Path(args.out)
    stale = staleness(out, toc=args.toc, notebooks_dir=args.notebooks,
                      params_dir=args.params) if args.stale_only else {}
    failures = []
    for i, name in enumerate(names, 1):
        ov = {k: v for k, v in overrides.items() if k in declared[name]}
        if args.stale_only and name in SUMMARY_CHAPTERS:    # the chapters above may have changed results
            stale = staleness(out, toc=args.toc, notebooks_dir=args.notebooks, params_dir=args.params)
        if args.stale_only and name not in stale:
            meta = provenance(out / f"{name}.ipynb") or {}
            if meta.get("profile") == args.profile and meta.get("overrides", {}) == ov:
                print(f"[{i}/{len(names)}] {name}: up to date, skipped", flush=True)
                continue
        shown = {**(table.get(name) or {}), **ov}
        print(f"[{i}/{len(names)}] {name} (profile {args.profile}"
              + (f", {shown}" if shown else "") + ")", flush=True)
        t0 = time.perf_counter()
        try:
            path = execute_chapter(name, args.profile, out, ov, notebooks_dir=args.notebooks,
                                   profile_params=table, progress=not args.no_progress)
        except ChapterError as exc:
            print(str(exc), file=sys.stderr, flush=True)
            failures.append(name)
            if not args.keep_going:
                break
            continue
        print(f"    -> {_rel(path)} ({time.perf_counter() - t0:.1f} s)", flush=True)
    if failures:
        print(f"error: failed chapter(s): {', '.join(failures)}", file=sys.stderr)
        return 1
    return 0


def _cmd_html(args) -> int:
    try:
        html = build_html(Path(args.source), toc=args.toc)
    except BuildError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(html)
    return 0


def _cmd_check_fresh(args) -> int:
    stale = staleness(Path(args.source), toc=args.toc, notebooks_dir=args.notebooks,
                      params_dir=args.params)
    if stale:
        print(f"{len(stale)} stale chapter(s) in {args.source}:", file=sys.stderr)
        for name, why in stale.items():
            print(f"  {name}: {why}", file=sys.stderr)
        return 1
    print(f"all {len(chapters(args.toc))} chapter(s) in {args.source} are fresh")
    return 0


def main(argv: list[str] | None = None) -> int:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--notebooks", type=Path, default=None,
                        help="folder of chapter sources (default: notebooks/)")
    common.add_argument("--toc", type=Path, default=None, help="toc file (default: _toc.yml)")
    common.add_argument("--params", type=Path, default=None,
                        help="folder of profiles <profile>.yml (default: params/)")
    parser = argparse.ArgumentParser(prog="python -m greenelm_book.runner", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)

    run = sub.add_parser("run", parents=[common], help="execute chapters with papermill")
    run.add_argument("--profile", required=True, help="smoke | full (params/<profile>.yml)")
    run.add_argument("--out", required=True, help="folder for the executed <name>.ipynb")
    run.add_argument("--chapter", action="append", metavar="NAME",
                     help="run only this chapter (repeatable; default: all, in toc order)")
    run.add_argument("-p", nargs=2, action="append", metavar=("KEY", "VALUE"),
                     help="override a parameter of the selected chapters (VALUE parsed as YAML)")
    run.add_argument("--keep-going", action="store_true",
                     help="run the remaining chapters after a failure (exit status still 1)")
    run.add_argument("--stale-only", action="store_true",
                     help="skip chapters whose notebook in --out is fresh for these settings")
    run.add_argument("--no-progress", action="store_true", help="no papermill progress bar")
    run.set_defaults(func=_cmd_run)

    html = sub.add_parser("html", parents=[common], help="build the HTML book (warnings = errors)")
    html.add_argument("--source", default="book", help="folder of executed chapters")
    html.set_defaults(func=_cmd_html)

    fresh = sub.add_parser("check-fresh", parents=[common],
                           help="exit 1 when an executed chapter is missing or out of date")
    fresh.add_argument("--source", default="book", help="folder of executed chapters")
    fresh.set_defaults(func=_cmd_check_fresh)

    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except (FileNotFoundError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
