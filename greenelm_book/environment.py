"""The book's *Environment and execution* page, written from the executed chapters' provenance."""

from __future__ import annotations

from pathlib import Path

from .toc import ROOT, chapters

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
        "by the runner (after a run into `book/` and at each build) from the chapters' provenance "
        "(their notebook metadata) and from `constraints.txt`, the book's exact environment.", "",
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
