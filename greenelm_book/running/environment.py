"""The book's *Environment and execution* page, written from the executed chapters' provenance, their
results' measurement dates and hosts, and the run records and benchmark reports the pages read."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from ..bench import machine_text
from ..report import duration_text
from ..store.results import NOT_RECORDED
from .toc import ROOT, SUMMARY_CHAPTERS, chapters

ENVIRONMENT_PAGE = "book/environment.md"
#: packages whose exact versions the environment page lists (all of them are in constraints.txt)
KEY_PACKAGES = ("numpy", "scipy", "scikit-learn", "torch", "torchvision", "timm", "pandas",
                "matplotlib", "dask", "jupyter-book", "papermill", "myst-nb")
#: folders of run records a chapter's page reads besides the results store (the frontier's earlier
#: protocol, fixed-measurement and opponent runs: :data:`greenelm_book.chapters.frontier_protocol.RUNS_DIR`;
#: the halving protocol's runs and the accuracy-seconds points)
RECORD_DIRS = {"frontier": ("book/frontier_protocol", "book/frontier_halving", "book/frontier_budget")}


def _stored_results(source_dir: Path, name: str) -> dict | None:
    """The results of ``source_dir/results/<name>.json`` as written (None when there is no such file)."""
    import json

    path = source_dir / "results" / f"{name}.json"
    return json.loads(path.read_text()).get("results", {}) if path.is_file() else None


def _measured(result: dict) -> str:
    """A stored result's measurement day; ``""`` where not recorded (a result written before results
    carried ``executed`` has only its execution's day, :mod:`greenelm_book.store.results`)."""
    return str(result.get("date") or "") if "executed" in result else ""


def _results_dates(source_dir: Path, name: str) -> str:
    """First and last measurement ``date`` of the chapter's results in ``source_dir/results/<name>.json``,
    with how many of them do not record theirs (``–``: no results)."""
    results = _stored_results(source_dir, name)
    if not results:
        return "–"
    dates = sorted({_measured(r) for r in results.values()} - {""})
    missing = sum(not _measured(r) for r in results.values())
    span = "" if not dates else dates[0] if dates[0] == dates[-1] else f"{dates[0]} to {dates[-1]}"
    if not missing:
        return span
    unknown = f"{NOT_RECORDED} for all {missing}" if missing == len(results) else f"{NOT_RECORDED} for {missing}"
    return f"{span}; {unknown}" if span else unknown


def record_seconds(record: dict) -> float | None:
    """The seconds a recorded run took, as the record says: a frontier protocol run's ``seconds["total"]``,
    an opponent's ``wall_seconds``, a fixed measurement's ``seconds``; a benchmark report's runs
    (``finished_at`` - ``started_at``, summed over its ``runs``), ``duration_seconds`` (top level or in its
    ``meta``) or ``seconds``.
    None when it records none."""
    import datetime as dt

    if isinstance(record.get("meta"), dict) and isinstance(record["meta"].get("duration_seconds"), (int, float)):
        return float(record["meta"]["duration_seconds"])          # benchmarks.run's report
    seconds = record.get("seconds")
    if isinstance(seconds, dict) and isinstance(seconds.get("total"), (int, float)):
        return float(seconds["total"])
    for field in ("wall_seconds", "duration_seconds"):
        if isinstance(record.get(field), (int, float)):
            return float(record[field])
    if isinstance(seconds, (int, float)) and not isinstance(seconds, bool):
        return float(seconds)
    runs = record.get("runs")
    if isinstance(runs, list) and runs and all(r.get("started_at") and r.get("finished_at") for r in runs):
        return sum((dt.datetime.fromisoformat(r["finished_at"]) - dt.datetime.fromisoformat(r["started_at"]))
                   .total_seconds() for r in runs)
    return None


def records_read(name: str, results: dict | None, root: Path = ROOT) -> list[Path]:
    """The record files chapter ``name``'s page reads: every benchmark report its results name as their
    ``source`` (``benchmarks/<report>.json``) and, for a chapter in :data:`RECORD_DIRS`, every run
    record in its folders (a subset's check run left out, as the page leaves it out)."""
    import json
    import re

    paths = set()
    for result in (results or {}).values():
        match = re.match(r"(benchmarks/[\w./-]+\.json)", str(result.get("setting", {}).get("source", "")))
        if match and (root / match.group(1)).is_file():
            paths.add(root / match.group(1))
    for folder in RECORD_DIRS.get(name, ()):
        for path in sorted((root / folder).glob("*.json")):
            record = json.loads(path.read_text(encoding="utf-8"))
            if isinstance(record, dict) and "subset" in record and record["subset"] is None:
                paths.add(path)
    return sorted(paths)


def records_seconds(paths) -> tuple[float, int]:
    """(the seconds the records at ``paths`` recorded, summed; how many record none)."""
    import json

    total, missing = 0.0, 0
    for path in paths:
        seconds = record_seconds(json.loads(Path(path).read_text(encoding="utf-8")))
        total, missing = (total + seconds, missing) if seconds is not None else (total, missing + 1)
    return total, missing


def shared_records_words(pages_reading: dict) -> str:
    """How the total of recorded runs counts records several pages read (``pages_reading``: {record path: how
    many pages read it}), so a reader can add the rows: "each counted once; 1 record of 41.8 min is read by 3
    pages, so the rows add to more"; "each counted once" when no record is shared."""
    shared = sorted(path for path, pages in pages_reading.items() if pages > 1)
    if not shared:
        return "each counted once"
    seconds, _ = records_seconds(shared)
    most = max(pages_reading[path] for path in shared)
    pages = f"{most} pages" if all(pages_reading[p] == most for p in shared) else f"up to {most} pages"
    one = len(shared) == 1
    return (f"each counted once; {len(shared)} record{'' if one else 's'}"
            + (f" of {duration_text(seconds)}" if seconds else "")
            + f" {'is' if one else 'are'} read by {pages}, so the rows add to more")


def _records_text(paths) -> str:
    if not paths:
        return "–"
    seconds, missing = records_seconds(paths)
    count = f"{len(paths)} record{'s' if len(paths) != 1 else ''}"
    text = f"{duration_text(seconds)} in {count}" if seconds else count
    return text + (f" ({missing} with no time recorded)" if missing else "")


def timing_hosts(source_dir: Path, toc=None) -> list[tuple[str, int, list[str]]]:
    """The hosts that measured the book's timing results (:func:`greenelm_book.store.results.is_timing`),
    as ``(host in words, how many results, the chapters)``, the most frequent first; timings whose host is
    not recorded are counted under ``host not recorded``."""
    from ..store.results import host_text, is_timing

    hosts: dict[str, tuple[int, set]] = {}
    for name in chapters(toc):
        for key, result in (_stored_results(source_dir, name) or {}).items():
            if not is_timing(key, str(result.get("unit", ""))):
                continue
            words = host_text(result.get("host"))
            count, names = hosts.get(words, (0, set()))
            hosts[words] = (count + 1, names | {name})
    return sorted(((h, n, sorted(c)) for h, (n, c) in hosts.items()), key=lambda item: (-item[1], item[0]))


def timing_host_records(source_dir: Path, toc=None) -> list[dict | None]:
    """The host recorded with each of the book's timing results (None where it is not recorded)."""
    from ..store.results import is_timing

    return [result.get("host") for name in chapters(toc)
            for key, result in (_stored_results(source_dir, name) or {}).items()
            if is_timing(key, str(result.get("unit", "")))]


#: the fields that identify a host (:func:`greenelm_book.store.results.same_host`), in words
HOST_FIELDS = {"cpu": ("processor models (a GPU's host named by its GPU, then the processor beside it, where the "
                       "result records its GPU)"), "cores": "core counts",
               "kernel": "kernels", "blas": "BLAS builds"}


def execution_sentence(machines: list[str], hosts: list[dict | None]) -> str:
    """Where the book ran, in words generated from what was recorded: ``machines``, each chapter's
    machine as its provenance describes it (CPU model, cores, memory; ``"–"`` not recorded), and
    ``hosts``, the host each timing result recorded (:func:`timing_host_records`). The timings are said
    to come from one host only when :func:`~greenelm_book.store.results.same_host` vouches for every
    pair; when a field recorded on both sides differs, the fields that differ are counted."""
    from types import SimpleNamespace

    from ..store.results import same_host

    described = sorted(set(machines) - {"–"})
    unrecorded = sum(m == "–" for m in machines)
    if len(described) == 1:
        executed = f"Every chapter's provenance describes one kind of machine, {described[0]}"
    elif described:
        executed = f"The chapters' provenance describes {len(described)} kinds of machine ({'; '.join(described)})"
    else:
        executed = "No chapter's provenance names its machine"
    if unrecorded and described:
        executed += f", {unrecorded} chapter{'s' if unrecorded != 1 else ''} without one"
    executed += " (CPU model, cores and memory only, which machines of different speeds may share)"
    recorded = [h for h in hosts if h]
    missing = len(hosts) - len(recorded)
    pairs = [(SimpleNamespace(host=a), SimpleNamespace(host=b))
             for i, a in enumerate(recorded) for b in recorded[i + 1:]]
    verdicts = [same_host(a, b) for a, b in pairs]
    rates = sorted({h["gemm_gflops"] for h in recorded if h.get("gemm_gflops")})
    # a host record's GEMM rate is the short probe it ran (or the report's peak) when the result was recorded,
    # not a chapter's own GEMM figure (the hardware chapter's is measured at its own order): say which
    probe = (" (each host record's own reading when its result was recorded: a short probe of order 1,024, "
             "or the benchmark report's peak; not the hardware chapter's GEMM figure, measured at its own order)")
    readings = ("" if not rates else f"; its float64 GEMM rate read {rates[0]:g} GFLOP/s{probe}" if len(rates) == 1 else
                f"; their float64 GEMM rate read {rates[0]:g} to {rates[-1]:g} GFLOP/s{probe}")
    if not recorded:
        timings = "no timing result records its host"
    elif False in verdicts:
        differ = [f"{len(values)} {words}" for field, words in HOST_FIELDS.items()
                  if len(values := {str(h[field]) for h in recorded if h.get(field) is not None}) > 1]
        timings = (f"the timings were not all measured on one host: they record {', '.join(differ)}{readings}, "
                   "so two timings are compared as one machine's only where both record the same host")
    elif all(verdicts) and same_host(SimpleNamespace(host=recorded[0]), SimpleNamespace(host=recorded[0])):
        timings = f"every timing that records its host was measured on one host{readings}"
    else:
        timings = (f"the timings' hosts are recorded too incompletely to show they are one machine{readings}, so "
                   "no two timings are compared as one machine's unless both record the same host")
    if missing and recorded:
        timings += f" ({missing} timing result{'s record' if missing != 1 else ' records'} no host)"
    return f"{executed}; {timings}."


def environment_page(source_dir: str | Path, toc: str | Path | None = None) -> str:
    """The book's *Environment and execution* page (MyST text): per chapter its profile, when its
    values were measured (first and last measurement ``date`` in the results store, those not recorded
    counted), their compute time (the provenance's ``compute``, or "not recorded"), the seconds of the
    run records and benchmark reports the page reads (:func:`records_read`), when the page was executed
    and on what machine; the total; the hosts that measured the timings (:func:`timing_hosts`); then the
    main packages' exact versions from ``constraints.txt``."""
    import nbformat

    source_dir = Path(source_dir)
    rows, machines, executed_seconds = [], [], 0.0
    pages_reading: Counter = Counter()                  # every record a page reads: how many pages read it
    for name in chapters(toc):
        path = source_dir / f"{name}.ipynb"
        meta = nbformat.read(path, as_version=4).metadata if path.is_file() else {}
        ours, pm = meta.get("greenelm", {}), meta.get("papermill", {})
        host = ours.get("machine")
        where = machine_text(host) if host else "–"
        compute = ours.get("compute")
        took = duration_text(float(compute["seconds"])) if compute else NOT_RECORDED
        executed_seconds += float(compute["seconds"]) if compute else 0.0
        recorded = _results_dates(source_dir, name)
        if recorded == "–" and name in SUMMARY_CHAPTERS:
            recorded = "reads the others'"
        records = records_read(name, _stored_results(source_dir, name))
        pages_reading.update(set(records))
        machines.append(where)
        rows.append([f"{{doc}}`{name} <{name}>`", ours.get("profile", "–"), recorded, took, _records_text(records),
                     str(pm.get("start_time", "–"))[:10], where])
    one = len(set(machines)) == 1 and machines[0] != "–"
    header = ["chapter", "profile", "values measured", "compute time", "recorded runs it reads", "page executed"] + \
        ([] if one else ["machine"])
    table = ["| " + " | ".join(header) + " |", "| --- | --- | --- | ---: | ---: | --- |" + ("" if one else " --- |"),
             *("| " + " | ".join(row[:len(header)]) + " |" for row in rows)]
    where = execution_sentence(machines, timing_host_records(source_dir, toc)) + \
        ("" if one else " A machine shown as – was not recorded.")
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
        "*Values measured* is the first and last day on which the chapter's own results (those in its "
        "store) were measured; a result a page reads from another chapter's store counts under that "
        "chapter, so a page may print days outside its own row. Each day is carried from the benchmark "
        "report, run record or cache entry the result comes from, or is the day of the execution that "
        "measured it; a result whose measurement day is not known (one read "
        "from a cache entry written before entries recorded it, or stored before results carried it) "
        "is counted as *not recorded*, never given the day its page was executed. *Compute time* is how "
        "long the chapter's results took to compute: the execution's wall time plus the recorded compute "
        "time of every result it read from the cache (*not recorded* for a chapter executed before its "
        "provenance had a `compute` entry). *Recorded runs it reads* is the time recorded by the run "
        "records and benchmark reports the page reads, which no execution of the page repeats (the "
        "frontier's protocol, fixed-measurement and opponent runs; the benchmark reports a result names "
        "as its source). *Page executed* is the day of the execution that wrote the page. "
        f"In all: {duration_text(executed_seconds)} of chapter computation and "
        f"{duration_text(records_seconds(sorted(pages_reading))[0])} of recorded runs ({shared_records_words(pages_reading)}). "
        f"{where}", "",
        *_hosts_section(source_dir, toc),
        f"Exact versions of the main packages ({len(pins)} pinned in all, in `constraints.txt`): "
        f"{versions}.", "",
        "Re-execute one chapter with `python -m greenelm_book.running.runner run --profile full "
        "--out book --chapter NAME` (each chapter's *Re-run this chapter* box gives the command "
        "and its parameters), every stale one with `make book`, all with `make book-full`.",
        ""])


def compares_timings(timings) -> bool:
    """Whether an answer resting on ``timings`` (its timing Results) compares timings: two or more of them,
    or one ratio of two timings (unit "×", both sides timed in one run)."""
    return len(timings) >= 2 or any(t.unit == "×" for t in timings)


def timing_comparisons(source_dir: Path, toc=None) -> list[tuple[str, str, str]]:
    """Every claim answer that compares timings (:func:`compares_timings`), as ``(the claim's
    statement and where the paper prints it, chapter, where and when they were measured)``
    (:func:`greenelm_book.store.results.measured_on_text`)."""
    from ..paper import CLAIMS
    from ..store.results import is_timing, load_all, measured_on_text

    claims = {c.id: f"{c.statement} ({c.where})" for c in CLAIMS}

    stored = load_all(Path(source_dir) / "results")
    owners = {key: result for content in stored.values() for key, result in content["results"].items()}
    names = set(chapters(toc))
    rows = []
    for chapter, content in stored.items():
        if chapter not in names:
            continue
        for claim, answer in sorted(content["answers"].items()):
            timings = [owners[k] for k in answer.keys if k in owners and is_timing(k, owners[k].unit)]
            if compares_timings(timings):
                rows.append((claims.get(claim, claim), chapter, measured_on_text(timings)))
    return rows


def _hosts_section(source_dir: Path, toc) -> list[str]:
    """The lines of the page's *Hosts that measured the timings* section (:func:`timing_hosts`)."""
    hosts = timing_hosts(source_dir, toc)
    if not hosts:
        return []
    return ["## Hosts that measured the timings", "",
            "A timing result records the host that measured it (CPU model, cores, kernel, BLAS and its "
            "GEMM rate at the time). Two timings count as measured on one machine only when both record "
            "the same CPU model, cores, kernel and BLAS (`greenelm_book.store.results.same_host`): two rows "
            "that differ in one of these fields, recorded on both, are two machines; two rows that differ only "
            "in the GEMM reading, or in what they leave unrecorded, are not shown to be two. Timings stored "
            "before results recorded a host, or read "
            "from a report or cache entry that did not record one, are counted as *host not recorded*, as is "
            "a result that pools runs from several machines (a frontier accuracy-seconds point, one value per "
            "seed), and a frontier protocol's or recipe's seconds, whose runs name different machines or "
            "none. The frontier's page names each run's machine where its record names one (down to its "
            "instance where the record has it) and compares seconds only within one machine instance. A row "
            "counts results, not runs.",
            "", "| host | timing results | chapters |", "| --- | ---: | --- |",
            *(f"| {host} | {count} | {', '.join(names)} |" for host, count, names in hosts), "",
            *_comparisons_lines(source_dir, toc)]


def _comparisons_lines(source_dir: Path, toc) -> list[str]:
    rows = timing_comparisons(source_dir, toc)
    if not rows:
        return []
    return ["Where an answer compares timings (two or more, or one ratio of two timed in one run), where and "
            "when each was measured:", "",
            "| claim | chapter | measured |", "| --- | --- | --- |",
            *(f"| {claim} | {{doc}}`{chapter} <{chapter}>` | {text} |" for claim, chapter, text in rows), "",
            "The table lists the scorecard's claims. The frontier's own timed answers, which are not claims of "
            "the paper (its accuracy-against-seconds fronts, its protocols' per-seed time limits), name the "
            "machine of each point or seed on its page, beside the answer.", ""]
