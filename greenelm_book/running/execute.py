"""Execute one chapter with papermill, stamping its provenance.

An executed chapter ``DIR/<name>.ipynb`` records its provenance in the notebook metadata::

    greenelm: {source_sha256, source, profile, parameters, overrides, greenelm_version, machine,
               own_results_sha256 (its results file, when it wrote one), results_sha256 (summaries)}

``parameters`` are the injected ones (profile entry, then overrides, then ``profile``);
``overrides`` are the ``-p`` values alone, so a book notebook can be checked to be a plain
profile run.

Results: the kernel runs with ``GREENELM_RESULTS_DIR=<out>/results``, where each chapter's
:class:`greenelm_book.store.results.ChapterResults` writes ``<chapter>.json``. The summary chapters
(:data:`greenelm_book.running.toc.SUMMARY_CHAPTERS`) record ``results_sha256`` (the digest of the results
they read): a changed result makes them stale.

Code folding: after execution every code cell gets the tag ``hide-input`` (the reader sees its
output and a toggle), except the parameters cells and cells tagged otherwise by the chapter; a
cell beginning ``# NBVAL_CHECK_OUTPUT`` (a regression-test printout) gets ``remove-cell``.

The page (:func:`present`): the ``parameters`` cell (the smoke defaults) and papermill's
``injected-parameters`` cell get ``remove-cell``, and a folded *Re-run this chapter* box (a
markdown cell tagged :data:`RERUN_TAG`) takes their place: the runner's command, the papermill
equivalent with its ``-p`` values, and the profile and parameters that produced the page, all read
from the ``greenelm`` provenance. The runner applies it at execution; the build applies it to
already-executed notebooks (it changes no output and no provenance, and is idempotent).

Compute time: the kernel runs with ``GREENELM_COMPUTE_LOG`` naming a file where every
:func:`greenelm_book.store.results_cache.memoize` call appends its name, whether it was read from the
cache and the compute seconds of its stored result; the provenance's ``compute`` sums them
(:func:`compute_time`), so a run that reads hours of results from the cache still records how
long they took to compute.

The cache of record (:mod:`greenelm_book.store.results_cache`): with ``record=DIR`` (the runner passes
``book/cache`` for the full profile into ``book/``, nothing otherwise) the kernel runs with
``GREENELM_RECORD_DIR=DIR`` and ``GREENELM_RECORD_WRITE=1``, so every result it reads or computes
within the record's caps is put there; after a successful run the record's index lists the
entries the chapter used, and those it used before and no chapter uses now are removed. With
``recompute_since=T`` (the runner's ``--recompute``) entries written before ``T`` count as absent;
with ``stored_only`` (the runner's ``--stored-only``) a computation that no store holds fails the
chapter (``NotStored``) instead of running: a re-execution that costs minutes or nothing.
What the compute log says about each result goes to ``report`` (the runner: its stderr), not the
page: which part of a key changed as its computation starts, then, once the chapter ran, where its
results came from, entries that could not be trusted or were left out of the record.
"""

from __future__ import annotations

import ast
import hashlib
import json
import math
import os
import shlex
import shutil
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any, Callable, Mapping

from greenelm._cachefiles import atomic_write, remove_stale_temporaries

from .freshness import results_sha256
from ..store.results_cache import (
    COMPUTE_LOG_ENV,
    RECOMPUTE_ENV,
    RECORD_ENV,
    RECORD_WRITE_ENV,
    STORED_ONLY_ENV,
    update_record_index,
)
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


#: tag of the markdown cell :func:`present` inserts (the folded "Re-run this chapter" box)
RERUN_TAG = "greenelm-rerun"
#: where each profile's executed chapters live in the repository (the runner's ``--out``)
PROFILE_OUT = {"full": "book", "smoke": "tests/notebooks"}


def _literal(value: Any) -> str:
    """``value`` as Python source (what papermill injects)."""
    return repr(value)


def _yaml_flow(value: Any) -> str:
    """``value`` (JSON-like) as YAML flow text that PyYAML reads back as ``value``: JSON, with
    every float written with a decimal point (PyYAML reads ``1e-05`` as a string)."""
    if isinstance(value, dict):
        return "{" + ", ".join(f"{json.dumps(str(k))}: {_yaml_flow(v)}" for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_yaml_flow(v) for v in value) + "]"
    if isinstance(value, float) and math.isfinite(value):
        text = repr(value)
        mantissa, e, exponent = text.partition("e")
        return (mantissa if "." in mantissa else mantissa + ".0") + e + exponent
    return json.dumps(value)


def _papermill_args(params: Mapping[str, Any]) -> list[str]:
    """papermill's ``-p NAME VALUE`` for each scalar that its ``-p`` parses back to itself, else
    ``-y '{"NAME": VALUE}'`` (lists, mappings, strings that look like numbers); each checked to
    read back as the value with papermill's own parsers."""
    import yaml
    from papermill.cli import _resolve_type
    from papermill.iorw import NoDatesSafeLoader

    args = []
    for name, value in params.items():
        if value is None or isinstance(value, (bool, int, float, str)):
            text = str(value)    # None -> "None", True -> "True", as papermill's -p reads them
            back = _resolve_type(text)
            if back == value and type(back) is type(value):
                args.append(f"-p {name} {shlex.quote(text)}")
                continue
        text = "{" + f"{json.dumps(name)}: {_yaml_flow(value)}" + "}"
        if yaml.load(text, Loader=NoDatesSafeLoader) != {name: value}:
            raise ValueError(f"parameter {name} = {value!r} cannot be passed to papermill as {text}")
        args.append(f"-y {shlex.quote(text)}")
    return args


def _defaults(nb, injected: Mapping[str, Any]) -> list[str]:
    """Source lines of the parameters cell's assignments that were not injected (they ran as written)."""
    from .toc import parameters_cells

    idx = parameters_cells(nb)
    if not idx:
        return []
    src = nb.cells[idx[0]].source
    try:
        tree = ast.parse(src)
    except SyntaxError:
        return []
    out = []
    for node in tree.body:
        if isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names = [n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)]
            if names and not set(names) & set(injected):
                out.append(ast.get_source_segment(src, node))
    return out


def _wrap(words: list[str], width: int = 64) -> str:
    """Shell words packed into lines of at most ``width`` characters (a longer word gets its own
    line), continued with `` \\`` and indented by 4: a command that fits the page's code column."""
    lines: list[str] = []
    for word in words:
        if lines and len(lines[-1]) + 1 + len(word) <= width:
            lines[-1] += " " + word
        else:
            lines.append(word)
    return " \\\n    ".join(lines)


def _sorted_deep(value):
    """``value`` with every dict, at any depth, in key order (lists keep theirs)."""
    if isinstance(value, Mapping):
        return {k: _sorted_deep(v) for k, v in sorted(value.items())}
    if isinstance(value, list):
        return [_sorted_deep(v) for v in value]
    return value


def rerun_box(name: str, meta: Mapping[str, Any], nb=None) -> str:
    """The MyST text of the folded *Re-run this chapter* box for chapter ``name`` from its
    provenance ``meta`` (the notebook's ``greenelm`` metadata): the runner's command, the papermill
    equivalent and the parameters that produced the page (``nb``'s parameters cell gives the
    defaults that were not injected)."""
    profile = meta["profile"]
    # sorted: the provenance is read back from JSON in another order than the run wrote it, and
    # the box must be the same whether the runner or the build made it
    params = _sorted_deep(meta.get("parameters") or {})
    overrides = _sorted_deep(meta.get("overrides") or {})
    out = PROFILE_OUT.get(profile, "DIR")
    runner = _wrap(["python -m greenelm_book.running.runner run", f"--profile {profile}", f"--out {out}",
                    f"--chapter {name}",
                    *(f"-p {k} {shlex.quote(v if isinstance(v, str) else _yaml_flow(v))}"
                      for k, v in overrides.items())])
    lines = [_wrap([f"papermill /tmp/{name}.ipynb {out}/{name}.ipynb", "--cwd .", f"-k {KERNEL}",
                    *_papermill_args(params)])]
    injected = "\n".join(f"{k} = {_literal(v)}" for k, v in params.items())
    defaults = _defaults(nb, params) if nb is not None else []
    source = meta.get("source", f"notebooks/{name}.py")
    how = (f"the **{profile}** profile (`params/{profile}.yml`)"
           + (f" with the overrides {', '.join(f'`{k} = {_literal(v)}`' for k, v in overrides.items())}"
              if overrides else ""))
    return "\n".join([
        "````{admonition} Re-run this chapter",
        ":class: dropdown tip",
        "",
        f"This page is `{source}` executed at {how}. Re-run it with",
        "",
        "```bash",
        runner,
        "```",
        "",
        "(add `-p NAME VALUE` to change a parameter). Without the runner, with papermill itself "
        "(the runner also records the provenance and folds the code; the outputs are the same):",
        "",
        "```bash",
        _wrap([f"jupytext --to ipynb {source}", f"--output /tmp/{name}.ipynb"]),
        f"export GREENELM_RESULTS_DIR={out}/results",
        *lines,
        "```",
        "",
        "The parameters that produced this page:",
        "",
        "```python",
        f"# from params/{profile}.yml" + (" and the overrides" if overrides else ""),
        injected,
        *(["# the chapter's defaults", *defaults] if defaults else []),
        "```",
        "````",
    ])


def present(nb, name: str | None = None) -> bool:
    """Make an executed chapter's page: hide its ``parameters`` and ``injected-parameters`` cells
    (``remove-cell``) and put the *Re-run this chapter* box (:func:`rerun_box`, from the notebook's
    ``greenelm`` provenance) where they were. Changes no output and no metadata but cell tags;
    idempotent (an existing box is rewritten). ``name`` defaults to the provenance's source stem.
    Returns whether ``nb`` changed."""
    import nbformat

    before = nbformat.writes(nb)
    nb.cells = [c for c in nb.cells if RERUN_TAG not in c.metadata.get("tags", [])]
    first = None
    for i, cell in enumerate(nb.cells):
        tags = list(cell.metadata.get("tags", []))
        if {"parameters", "injected-parameters"} & set(tags):
            first = i if first is None else first
            if "remove-cell" not in tags:
                tags.append("remove-cell")
            tags = [t for t in tags if t not in ("hide-input", "hide-cell")]
            cell.metadata["tags"] = tags
    meta = nb.metadata.get("greenelm")
    if meta and "profile" in meta:
        name = name or Path(meta.get("source", "chapter.py")).stem
        box = nbformat.v4.new_markdown_cell(rerun_box(name, meta, nb), metadata={"tags": [RERUN_TAG]})
        box.pop("id", None)
        if nb.nbformat_minor >= 5:
            box["id"] = RERUN_TAG
        nb.cells.insert(first if first is not None else min(1, len(nb.cells)), box)
    return nbformat.writes(nb) != before


def present_file(path: str | Path) -> bool:
    """:func:`present` applied to the executed notebook at ``path``, rewritten (atomically) only
    when it changed; returns whether it did."""
    import nbformat

    path = Path(path)
    nb = nbformat.read(path, as_version=4)
    if not present(nb, path.stem):
        return False
    _atomic_write_nb(nb, path)
    return True


def _compute_calls(log: str | Path) -> list[dict]:
    """The memoize calls of a compute log (its event lines left out)."""
    path = Path(log)
    if not path.is_file():
        return []
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [line for line in lines if "event" not in line]


class _Follow:
    """Reports a compute log's ``computing`` events while the chapter runs (a thread polling it)."""

    def __init__(self, log: Path, report: Callable[[str], None] | None):
        self.log, self.report, self.offset = log, report, 0
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        if report is not None:
            self.thread.start()

    def _run(self) -> None:
        while not self.stop.wait(1.0):
            self.drain()

    def drain(self) -> None:
        try:
            with open(self.log, "rb") as fh:
                fh.seek(self.offset)
                data = fh.read()
        except OSError:
            return
        end = data.rfind(b"\n") + 1                  # whole lines only
        self.offset += end
        for line in data[:end].decode("utf-8", "replace").splitlines():
            try:
                event = json.loads(line)
            except ValueError:
                continue
            if event.get("event") == "computing" and event.get("changed"):
                self.report(f"    computing {event['changed']}")

    def close(self) -> None:
        if self.report is not None:
            self.stop.set()
            self.thread.join()
            self.drain()


def compute_report(calls: list[dict], removed: list[str] = ()) -> list[str]:
    """Lines saying where a chapter's results came from (``calls``: its compute log), what could
    not be trusted or recorded, and which record entries were removed (which part of a key
    changed is reported as the computation starts: :class:`_Follow`)."""
    lines = []
    for call in calls:
        for problem in call.get("warnings") or []:
            lines.append(f"    warning: {problem}")
        note = call.get("record_note")
        if note and note.startswith("not recorded"):
            lines.append(f"    {call.get('entry', call['name'])}: {note}")
    if calls:
        count = {s: sum(c.get("source") == s for c in calls) for s in ("record", "local", "computed")}
        written = sum(c.get("record_note") == "written" for c in calls)
        lines.append(f"    results: {count['record']} from the record, {count['local']} from the local cache, "
                     f"{count['computed']} computed" + (f"; {written} written to the record" if written else ""))
    if removed:
        lines.append(f"    record: removed {len(removed)} entr{'y' if len(removed) == 1 else 'ies'} no chapter "
                     f"uses now: {', '.join(removed)}")
    return lines


def _to_stderr(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def compute_time(log: str | Path, wall_seconds: float) -> dict[str, Any]:
    """The ``compute`` provenance of one execution from its compute log (JSON lines written by
    ``memoize``: name, cached, seconds): ``{"seconds": wall_seconds + the compute seconds of every
    result read from the cache, "wall_seconds", "memoized": calls, "cached": calls read from the
    cache, "cached_seconds"}``. ``seconds`` is how long the page's results took to compute, whether
    or not this run computed them."""
    calls = _compute_calls(log)
    cached = [float(c["seconds"]) for c in calls if c.get("cached")]
    return {"seconds": round(wall_seconds + sum(cached), 3), "wall_seconds": round(wall_seconds, 3),
            "memoized": len(calls), "cached": len(cached), "cached_seconds": round(sum(cached), 3)}


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


def _atomic_write_nb(nb, path: Path) -> None:
    """Write notebook ``nb`` to ``path`` atomically (:func:`greenelm._cachefiles.atomic_write`), as
    ``nbformat.write`` formats it (its text, ending in a newline)."""
    import nbformat

    text = nbformat.writes(nb)
    atomic_write(path, lambda fh: fh.write((text if text.endswith("\n") else text + "\n").encode("utf-8")))


def execute_chapter(name: str, profile: str, out_dir: str | Path,
                    overrides: Mapping[str, Any] | None = None, *,
                    notebooks_dir: str | Path | None = None,
                    params_dir: str | Path | None = None,
                    profile_params: Mapping[str, Mapping] | None = None,
                    cwd: str | Path | None = None, progress: bool = True,
                    kernel: str = KERNEL, start_timeout: int = 120,
                    record: str | Path | None = None, recompute_since: float | None = None,
                    stored_only: bool = False,
                    report: Callable[[str], None] | None = _to_stderr) -> Path:
    """Execute ``notebooks/<name>.py`` with papermill into ``out_dir/<name>.ipynb``; return that path.

    Parameters are the profile entry (``params/<profile>.yml``, or ``profile_params``) merged with
    ``overrides``, plus ``profile``; every key must be declared in the chapter's parameters cell.
    On a failing cell raise :class:`ChapterError` (message ``chapter <name> failed at cell <n>:
    <ename>: <evalue>``, ``n`` counting the cells of the .py from 1) and keep the partial notebook
    as ``out_dir/<name>.failed.ipynb``; ``out_dir/<name>.ipynb`` is only ever replaced atomically
    by a complete, successful run. ``record`` (the cache of record to write), ``recompute_since``,
    ``stored_only`` and ``report`` (a line at a time; default stderr): see the module docstring.
    """
    import nbformat
    import papermill
    from papermill.exceptions import PapermillExecutionError

    from ..bench import chapter_machine

    src = source_path(name, notebooks_dir)
    if not src.is_file():
        raise FileNotFoundError(f"chapter {name}: no source {src}")
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    remove_stale_temporaries(out_dir)     # left by runs that were killed mid-write
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
        tmp = Path(tmpdir) / f"{name}.out.ipynb"     # papermill's output while it runs
        variables = ("GREENELM_RESULTS_DIR", COMPUTE_LOG_ENV, RECORD_ENV, RECORD_WRITE_ENV, RECOMPUTE_ENV,
                     STORED_ONLY_ENV)
        saved = {var: os.environ.get(var) for var in variables}
        os.environ["GREENELM_RESULTS_DIR"] = str((out_dir / "results").resolve())
        log = Path(tmpdir) / "compute.jsonl"
        os.environ[COMPUTE_LOG_ENV] = str(log)
        os.environ.pop(RECORD_WRITE_ENV, None)
        os.environ.pop(RECOMPUTE_ENV, None)
        if record is not None:
            os.environ[RECORD_ENV] = str(Path(record).resolve())
            os.environ[RECORD_WRITE_ENV] = "1"
        if recompute_since is not None:
            os.environ[RECOMPUTE_ENV] = repr(float(recompute_since))
        if stored_only:
            os.environ[STORED_ONLY_ENV] = "1"
        else:
            os.environ.pop(STORED_ONLY_ENV, None)
        removed: list[str] = []
        follow = _Follow(log, report)
        own_results = out_dir / "results" / f"{name}.json"
        results_before = own_results.read_bytes() if own_results.is_file() else None
        succeeded = False
        start = time.perf_counter()
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

            wall = time.perf_counter() - start
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
                "compute": compute_time(log, wall),
                **summary,
            }
            present(out, name)
            _atomic_write_nb(out, final)
            succeeded = True
            failed.unlink(missing_ok=True)
            if record is not None:
                removed = update_record_index(name, {c["entry"] for c in _compute_calls(log)
                                                     if c.get("recorded") and c.get("entry")}, record)
        finally:
            follow.close()
            tmp.unlink(missing_ok=True)
            if not succeeded:         # the page is kept, so are the results it was made from
                restore_file(own_results, results_before)
            for var, old in saved.items():
                if old is None:
                    os.environ.pop(var, None)
                else:
                    os.environ[var] = old
            if report is not None:
                try:
                    lines = compute_report(_compute_calls(log), removed)
                except (OSError, ValueError) as exc:
                    lines = [f"    (the compute log {log} cannot be read: {exc})"]
                for line in lines:
                    report(line)
    return final


def restore_file(path: Path, content: bytes | None) -> None:
    """Put ``path`` back as it was before a failed run: ``content`` written atomically
    (:func:`greenelm._cachefiles.atomic_write`), or the file removed where there was none (``content`` None)."""
    if content is None:
        path.unlink(missing_ok=True)
    elif not (path.is_file() and path.read_bytes() == content):
        atomic_write(path, lambda handle: handle.write(content))


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
        shutil.move(tmp, failed)
