"""The book's *Environment and execution* page, written from the executed chapters' provenance."""

from __future__ import annotations

from pathlib import Path

from ..report import duration_text
from .toc import ROOT, SUMMARY_CHAPTERS, chapters

ENVIRONMENT_PAGE = "book/environment.md"
#: packages whose exact versions the environment page lists (all of them are in constraints.txt)
KEY_PACKAGES = ("numpy", "scipy", "scikit-learn", "torch", "torchvision", "timm", "pandas",
                "matplotlib", "dask", "jupyter-book", "papermill", "myst-nb")


def _results_dates(source_dir: Path, name: str) -> str:
    """First and last ``date`` of the chapter's results in ``source_dir/results/<name>.json``."""
    import json

    path = source_dir / "results" / f"{name}.json"
    if not path.is_file():
        return "–"
    dates = sorted({str(r.get("date")) for r in json.loads(path.read_text()).get("results", {}).values()
                    if r.get("date")})
    if not dates:
        return "–"
    return dates[0] if dates[0] == dates[-1] else f"{dates[0]} to {dates[-1]}"


def environment_page(source_dir: str | Path, toc: str | Path | None = None) -> str:
    """The book's *Environment and execution* page (MyST text): per chapter its profile, when its
    results were recorded (first and last ``date`` in the results store), their compute time (the
    provenance's ``compute``, or "not recorded"), when the page was executed and on what machine;
    then the main packages' exact versions from ``constraints.txt``."""
    import nbformat

    source_dir = Path(source_dir)
    rows, machines = [], []
    for name in chapters(toc):
        path = source_dir / f"{name}.ipynb"
        meta = nbformat.read(path, as_version=4).metadata if path.is_file() else {}
        ours, pm = meta.get("greenelm", {}), meta.get("papermill", {})
        host = ours.get("machine")
        where = f"{host['cpu']}, {host['cores']} cores, {host['memory_gib']:g} GiB" if host else "–"
        compute = ours.get("compute")
        took = duration_text(float(compute["seconds"])) if compute else "not recorded"
        recorded = _results_dates(source_dir, name)
        if recorded == "–" and name in SUMMARY_CHAPTERS:
            recorded = "reads the others'"
        machines.append(where)
        rows.append([f"{{doc}}`{name} <{name}>`", ours.get("profile", "–"), recorded, took,
                     str(pm.get("start_time", "–"))[:10], where])
    one = len(set(machines)) == 1 and machines[0] != "–"
    header = ["chapter", "profile", "results recorded", "compute time", "page executed"] + \
        ([] if one else ["machine"])
    table = ["| " + " | ".join(header) + " |", "| --- | --- | --- | ---: | --- |" + ("" if one else " --- |"),
             *("| " + " | ".join(row[:len(header)]) + " |" for row in rows)]
    where = (f"Every chapter was executed on the same machine: {machines[0]}." if one else
             "A machine shown as – was not recorded.")
    pins = {}
    for line in (ROOT / "constraints.txt").read_text().splitlines():
        package, _, version = line.partition("==")
        if version and not line.startswith("#"):
            pins[package.strip().lower()] = version.strip()
    versions = ", ".join(f"{p} {pins[p]}" for p in KEY_PACKAGES if p in pins)
    return "\n".join([
        "# Environment and execution", "",
        "Every chapter is a notebook executed by `greenelm_book.running.runner` (papermill) at the profile "
        "shown; the book renders the stored outputs and re-executes nothing. This page is written "
        "by the runner (after a run into `book/` and at each build) from the chapters' provenance "
        "(their notebook metadata), their results store (`book/results/<chapter>.json`) and "
        "`constraints.txt`, the book's exact environment.", "",
        *table, "",
        "*Results recorded* is the first and last `date` of the chapter's results in the store: the "
        "day of the execution that wrote them (a result read from the results cache was computed "
        "earlier, by the same code and parameters: the cache is keyed by both, see "
        "`greenelm_book.store.results_cache`). *Compute time* is how long the chapter's results took to "
        "compute: the execution's wall time plus the recorded compute time of every result it read "
        "from the cache. The runner records it since the chapters' provenance gained a `compute` "
        "entry; a chapter executed before shows *not recorded*. The run time of the execution that "
        "wrote a page is not a compute time (a run that reads its heavy results from the cache "
        "takes minutes for hours of computation), so it is not shown. *Page executed* is the day of "
        f"that execution. {where}", "",
        f"Exact versions of the main packages ({len(pins)} pinned in all, in `constraints.txt`): "
        f"{versions}.", "",
        "Re-execute one chapter with `python -m greenelm_book.running.runner run --profile full "
        "--out book --chapter NAME` (each chapter's *Re-run this chapter* box gives the command "
        "and its parameters), every stale one with `make book`, all with `make book-full`.",
        ""])
