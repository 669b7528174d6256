"""A prose-only edit applied to an executed chapter without executing it again.

Re-executing a chapter re-measures what it times (the hardware and streaming chapters: tens of
minutes on a quiet machine); an edit that touched only a chapter's markdown changes no output.
:func:`refresh_prose` carries such an edit into the executed notebook: when the source's code cells
(jupytext's parse of ``notebooks/<name>.py``, in order) are exactly the executed notebook's code
cells (papermill's ``injected-parameters`` cell left out), the executed notebook takes the
source's markdown (and raw) cells in the source's order, every code cell keeping its outputs,
execution count and tags; every ``{glue:text}`name``` the new markdown references must be glued
by an output of the notebook; the *Re-run this chapter* box is rebuilt
(:func:`~greenelm_book.running.execute.present`), the provenance's ``source_sha256`` restamped
and ``prose_refreshed_at`` (UTC, ISO 8601) added, and the notebook replaced atomically. Anything
else (a changed, added, removed or moved code cell; a missing glue name) is refused with
:class:`ProseRefreshError`, the notebook left as it was.
"""

from __future__ import annotations

import copy
import datetime
import re
from pathlib import Path

from .toc import read_chapter, relative, source_path, source_sha256

__all__ = ["ProseRefreshError", "glue_references", "glued_names", "refresh_prose"]

#: a glue role or directive of MyST-NB in markdown: ``{glue:text}`name:.2f```, ``{glue}`name```,
#: ``{glue:figure} name``; the name is group 1 or group 2
_GLUE_REF = re.compile(r"\{glue(?::\w*)?\}`([^`:]+)(?::[^`]*)?`|^[`:~]{3,}\{glue(?::\w+)?\}[ \t]+(\S+)", re.M)


class ProseRefreshError(ValueError):
    """The executed chapter cannot take the source's prose without being executed again."""


def glue_references(markdown: str) -> list[str]:
    """The glue names a MyST markdown text references, in order of first appearance."""
    names: list[str] = []
    for match in _GLUE_REF.finditer(markdown):
        name = (match.group(1) or match.group(2)).strip()
        if name not in names:
            names.append(name)
    return names


def glued_names(nb) -> set[str]:
    """The names a notebook's outputs glue (``myst_nb.glue``: the output's ``scrapbook`` metadata)."""
    return {output.get("metadata", {}).get("scrapbook", {}).get("name")
            for cell in nb.cells if cell.cell_type == "code"
            for output in cell.get("outputs", [])} - {None}


def _code(nb) -> list:
    """The code cells of a notebook that came from its source (papermill's injected cell left out)."""
    return [c for c in nb.cells
            if c.cell_type == "code" and "injected-parameters" not in c.metadata.get("tags", [])]


def refresh_prose(name: str, out_dir: str | Path, notebooks_dir: str | Path | None = None,
                  now: datetime.datetime | None = None) -> Path:
    """Give the executed chapter ``out_dir/<name>.ipynb`` the markdown of ``notebooks/<name>.py``
    without executing it (see the module docstring); return its path. Raises
    :class:`ProseRefreshError` naming the first differing code cell, or the glue names the new
    markdown references and no output glues; FileNotFoundError when either file is missing."""
    import nbformat

    from .execute import RERUN_TAG, _atomic_write_nb, present

    path = Path(out_dir) / f"{name}.ipynb"
    src = source_path(name, notebooks_dir)
    if not path.is_file():
        raise FileNotFoundError(f"chapter {name}: no executed notebook {relative(path)} (run it first)")
    if not src.is_file():
        raise FileNotFoundError(f"chapter {name}: no source {relative(src)}")
    nb = nbformat.read(path, as_version=4)
    meta = nb.metadata.get("greenelm")
    if not meta or "source_sha256" not in meta:
        raise ProseRefreshError(f"{relative(path)} has no greenelm provenance: execute it with the runner")
    source = read_chapter(name, notebooks_dir)
    executed, wanted = _code(nb), _code(source)
    for i, (old, new) in enumerate(zip(executed, wanted), 1):
        if old.source != new.source:
            first = next((a for a, b in zip(old.source.splitlines() + [""], new.source.splitlines() + [""])
                          if a != b), "")
            raise ProseRefreshError(
                f"chapter {name}: code cell {i} of {relative(src)} differs from the executed one "
                f"(from the line {first.strip()!r}); code changed, so the chapter must be executed again "
                f"(python -m greenelm_book.running.runner run)")
    if len(executed) != len(wanted):
        raise ProseRefreshError(
            f"chapter {name}: {relative(src)} has {len(wanted)} code cells, the executed notebook "
            f"{len(executed)}; code changed, so the chapter must be executed again")

    prose = [c for c in source.cells if c.cell_type != "code"]
    missing = sorted({n for cell in prose for n in glue_references(cell.source)} - glued_names(nb))
    if missing:
        raise ProseRefreshError(f"chapter {name}: the new prose references glue name(s) no output of "
                                f"{relative(path)} glues: {', '.join(missing)}")

    cells, done = [], iter(executed)
    injected = [c for c in nb.cells if "injected-parameters" in c.metadata.get("tags", [])]
    # the k-th prose cell keeps the id and papermill record of the executed k-th one (a small diff)
    old_prose = [c for c in nb.cells if c.cell_type != "code" and RERUN_TAG not in c.metadata.get("tags", [])]
    for cell in source.cells:
        if cell.cell_type == "code":
            old = next(done)
            cells.append(old)
            if "parameters" in old.metadata.get("tags", []):
                cells.extend(injected)
            continue
        k = sum(c.cell_type != "code" for c in cells)
        new = copy.deepcopy(cell)
        new.pop("id", None)
        kept = old_prose[k].metadata if k < len(old_prose) else {}
        new.metadata = {**({"papermill": kept["papermill"]} if "papermill" in kept else {}),
                        **new.metadata, "tags": list(new.metadata.get("tags", []))}
        if k < len(old_prose) and "id" in old_prose[k]:
            new["id"] = old_prose[k]["id"]
        if nb.nbformat_minor >= 5 and "id" not in new:      # ids that a second refresh gives again
            new["id"] = f"prose-{k}"
        cells.append(new)
    nb.cells = [c for c in cells if RERUN_TAG not in c.metadata.get("tags", [])]
    meta["source_sha256"] = source_sha256(name, notebooks_dir)
    meta["prose_refreshed_at"] = (now or datetime.datetime.now(datetime.timezone.utc)).isoformat(timespec="seconds")
    present(nb, name)
    nbformat.validate(nb)
    _atomic_write_nb(nb, path)
    return path
