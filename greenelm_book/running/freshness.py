"""Freshness of executed chapters: is ``<dir>/<name>.ipynb`` what executing today's source at its
recorded profile would give?

An executed chapter records its provenance in the notebook metadata (``greenelm``: see
:mod:`greenelm_book.running.execute`); it is stale when it is missing or unstamped, when
``notebooks/<name>.py`` changed since, when its profile's parameters changed, or (a summary
chapter) when the results it summarises changed (:func:`results_sha256`).
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Iterable

from .toc import SUMMARY_CHAPTERS, chapters, injected_parameters, load_profile, relative, source_path, source_sha256


def results_sha256(out_dir: str | Path, exclude: Iterable[str] = ()) -> str:
    """Digest of the results files in ``out_dir/results`` (names and bytes), ``exclude`` chapters left out."""
    digest = hashlib.sha256()
    folder = Path(out_dir) / "results"
    for path in sorted(folder.glob("*.json")) if folder.is_dir() else []:
        if path.stem in set(exclude):
            continue
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


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
            out[name] = f"{relative(path)} is missing"
            continue
        meta = provenance(path)
        if not meta or "source_sha256" not in meta:
            out[name] = f"{relative(path)} has no greenelm provenance (not made by greenelm_book.running.runner)"
            continue
        if not source_path(name, notebooks_dir).is_file():
            out[name] = f"its source {relative(source_path(name, notebooks_dir))} is missing"
            continue
        if meta["source_sha256"] != source_sha256(name, notebooks_dir):
            out[name] = f"{relative(source_path(name, notebooks_dir))} changed since it was executed"
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
            out[name] = f"the results it summarises ({relative(source_dir / 'results')}) changed since it was executed"
    return out


def stale_chapters(source_dir: str | Path, **kwargs) -> list[str]:
    """Chapters (toc order) whose executed notebook in ``source_dir`` is missing or out of date;
    see :func:`staleness` for the reasons and the keyword arguments."""
    return list(staleness(source_dir, **kwargs))
