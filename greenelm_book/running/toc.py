"""The book's chapters and profiles: the toc, the chapter sources, their parameters.

The chapters are jupytext py:percent files ``notebooks/<name>.py``; their order is the order of
``_toc.yml`` (root ``book/intro``, then ``book/<name>`` per chapter; an entry written with its
``.md`` suffix is a static page). Each chapter has one cell tagged ``parameters`` (at least
``profile = "smoke"`` and ``seed = 0``). A profile (``params/<profile>.yml``) maps chapter name ->
parameters merged over those defaults; the runner always injects ``profile`` itself, and ``-p KEY
VALUE`` overrides (YAML values) come last. The summary chapters (:data:`SUMMARY_CHAPTERS`) are
executed after all the others (:func:`execution_order`).
"""

from __future__ import annotations

import ast
import hashlib
import re
from pathlib import Path
from typing import Any, Iterable, Mapping

import yaml

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = ROOT / "notebooks"
PARAMS = ROOT / "params"
TOC = ROOT / "_toc.yml"
CONFIG = ROOT / "_config.yml"
BOOK = ROOT / "book"
BUILD = ROOT / "_build"
PROFILES = ("smoke", "full")
#: chapters that summarise the others' results: executed last, stale when those results change
SUMMARY_CHAPTERS = ("scorecard", "conclusion")
#: chapter -> the chapters whose results it reads (``ChapterResults.get``): executed after them
#: whatever their place in the toc (the scaling chapter, third in reading order, reads CIFAR-10's
#: raw-pixel record). ``tests/test_execute.py`` checks it against the reads the store records.
READS_FROM = {
    "baselines": ("random_features",),
    "scaling": ("random_features", "cifar10", "baselines"),
    "entropy": ("baselines", "random_features"),
    "rotation": ("baselines", "random_features"),
    "cifar10": ("baselines",),
    "frontier": ("baselines", "scaling"),
    "hardware": ("baselines", "frontier"),
}


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


def execution_order(names: list[str], reads_from: Mapping[str, Iterable[str]] | None = None) -> list[str]:
    """``names`` in toc order, except that a chapter runs after the chapters of ``names`` it reads
    (``reads_from``, default :data:`READS_FROM`), and the summary chapters (:data:`SUMMARY_CHAPTERS`)
    run last. ValueError on a cycle."""
    reads_from = READS_FROM if reads_from is None else reads_from
    body = [n for n in names if n not in SUMMARY_CHAPTERS]
    ordered: list[str] = []
    pending = list(body)
    while pending:
        ready = next((n for n in pending if all(r in ordered or r not in body for r in reads_from.get(n, ()))), None)
        if ready is None:
            raise ValueError(f"the chapters {pending} read each other's results in a cycle ({dict(reads_from)})")
        ordered.append(ready)
        pending.remove(ready)
    return ordered + [n for n in names if n in SUMMARY_CHAPTERS]


def relative(path: Path) -> str:
    try:
        return str(Path(path).resolve().relative_to(ROOT))
    except ValueError:
        return str(path)
