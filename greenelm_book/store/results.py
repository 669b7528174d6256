"""The book's results store: every measured configuration once, as data, and every claim's answer.

A chapter records what it measures and how it answers the paper's claims; every page that shows a
configuration reads it back from here, so one configuration has one value in the whole book::

    store = ChapterResults("random_features", profile)
    acc = store.record("mnist/elm/unit/cholesky/d=2000/accuracy", accuracies, "%",
                       dataset="mnist", model="Green-ELM", weight_scale="unit", solver="cholesky",
                       n_hidden=2000, alpha=1e-3, seeds=[0, 1, 2, 3, 4])
    store.answer("table1_mnist_elm_accuracy", value_vs_paper(97.15, acc.values, "%"), keys=[acc.key])
    other = store.get("baselines", "mnist/sgd-mlp/e=10/accuracy")      # another chapter's result

The store is one JSON file per chapter, ``<results dir>/<chapter>.json``, written atomically
after every change. The results dir is ``$GREENELM_RESULTS_DIR`` (the runner sets it to
``<out>/results``: ``book/results`` for the full profile, ``tests/notebooks/results`` for the
smoke references), else ``<cache>/results-store/<profile>``. Nothing in it is ever unpickled: it
is plain JSON, checked when read (:class:`ResultsFileError` names the file and the field).

A **key** names a configuration (``dataset/model/.../quantity``); its **setting** describes it in
full (a JSON object). Within the results dir a key has exactly one value and one setting, and no
two keys share a setting and a quantity — ``tests/test_results_store.py`` checks both over the
committed store, and that what the chapters print agrees with it.

**Provenance.** A result's ``date`` is the day its values were *measured*, not the day the chapter
that records it was executed (``executed``): given as ``provenance=`` (a :class:`Provenance`: a
benchmark report's or a cache entry's date, :meth:`Provenance.from_cache`), else read from what the
setting says of the measurement (``measured``, ``computed_at``, ``finished_at``, ``started_at``, or a
time stamp in ``source``: :func:`measured_date`), else the day of this execution when the process has
read nothing from the results cache (so the values were measured now), else ``""``: not recorded. A
timing result (:func:`is_timing`) carries the ``host`` that measured it (:func:`greenelm_book.bench.host_info`'s
CPU model, cores, kernel, BLAS and GEMM rate; ``None``: not recorded), and :func:`same_host` says
whether two timings were measured on one machine. Results written before these fields existed read
back with ``executed`` = their old ``date`` and the measurement date and host not recorded
(``python -m greenelm_book.running.migrate_provenance`` recovered what the records allow).
"""

from __future__ import annotations

import datetime as _dt
import json
import math
import os
import re
import statistics
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from greenelm._cachefiles import atomic_write

from ..report import VERDICT_LABELS, Verdict, and_list

__all__ = ["FORMAT", "ChapterResults", "Result", "Answer", "Provenance", "ResultsFileError", "load_all",
           "results_dir", "measured_date", "measured_days", "result_days", "is_timing", "same_host", "host_text", "days_text", "measured_on_text", "pair_sides_text", "pair_side_against_table_text", "NOT_RECORDED"]

FORMAT = 1
ROOT = Path(__file__).resolve().parents[2]
_KEY = re.compile(r"^[a-z0-9][a-z0-9_.=+-]*(/[a-z0-9_.=+-]+)*$")


class ResultsFileError(ValueError):
    """A results file that is not what :class:`ChapterResults` writes (names file and field)."""


def results_dir(profile: str) -> Path:
    """Where this process reads and writes results (see the module docstring)."""
    env = os.environ.get("GREENELM_RESULTS_DIR")
    if env:
        return Path(env)
    from greenelm.data import cache_dir

    return cache_dir() / "results-store" / profile


#: what the book says of a provenance field a result does not carry
NOT_RECORDED = "not recorded"
#: the host fields a timing result records, in the order they are shown
HOST_FIELDS = ("cpu", "cores", "kernel", "blas", "gemm_gflops")
_ISO_DAY = re.compile(r"(?<!\d)(\d{4}-\d{2}-\d{2})(?:[T ]\d{2}:\d{2})?")
_TIMING_UNITS = {"s", "ms", "µs", "min", "h", "GFLOP/s"}
_TIMING_WORDS = re.compile(r"(seconds|time|latency|gflops|throughput|speedup)")


@dataclass(frozen=True)
class Provenance:
    """Where and when a result's values were measured: ``date`` (ISO day; ``""``: not recorded) and
    ``host`` (:data:`HOST_FIELDS`, a field None where not recorded; ``None``: no host recorded)."""

    date: str = ""
    host: dict | None = None

    @classmethod
    def from_cache(cls, info: dict) -> "Provenance":
        """The provenance of a value read or computed by :func:`~greenelm_book.store.results_cache.memoize`
        (its ``info``): the entry's ``computed_at`` day and ``host`` (not recorded by entries written
        before manifests carried them)."""
        return cls(str(info.get("computed_at") or "")[:10], info.get("host"))

    @classmethod
    def now(cls) -> "Provenance":
        """Measured by this process today, on this host (:func:`greenelm_book.bench.host_info`): for a value a
        chapter times itself after it has read something from the results cache."""
        from ..bench import host_info

        return cls(_dt.date.today().isoformat(), host_info())


def measured_days(setting: dict) -> list[str]:
    """Every day a setting says its values were measured (the ISO dates of its ``measured``, ``computed_at``,
    ``finished_at`` and ``started_at`` fields, lists included, else the time stamps in its ``source``), sorted,
    once each; [] when it says nothing. A value pooled over runs of several days has each run's."""
    days = []
    for field in ("measured", "computed_at", "finished_at", "started_at"):
        value = setting.get(field)
        for item in (value if isinstance(value, list) else [value]):
            match = _ISO_DAY.match(str(item)) if isinstance(item, str) else None
            if match:
                days.append(match.group(1))
    if not days and isinstance(setting.get("source"), str):
        days = [m.group(1) for m in _ISO_DAY.finditer(setting["source"]) if m.group(0) != m.group(1)]
    return sorted(set(days))


def measured_date(setting: dict) -> str:
    """The day a setting says its values were measured: the latest of :func:`measured_days`; ``""`` when it
    says nothing."""
    days = measured_days(setting)
    return days[-1] if days else ""


def result_days(results) -> list[str]:
    """Every measurement day of ``results`` (:func:`measured_days` of each one's setting, else its ``date``):
    what a sentence saying when pooled values were measured must span."""
    return sorted({day for r in results for day in (measured_days(r.setting) or ([r.date] if r.date else []))})


def is_timing(key: str, unit: str) -> bool:
    """Whether a result is a timing (its value depends on the machine): a unit of time or GFLOP/s, or a
    key naming seconds, times, latencies, throughputs or speedups (a time ratio is one)."""
    return unit in _TIMING_UNITS or bool(_TIMING_WORDS.search(key))


def _setting_host(setting: dict) -> dict | None:
    """The host that measured an imported value, as :data:`HOST_FIELDS` (:func:`_named_host`), named by its
    GPU where the value was timed on one (its ``device`` is its ``gpu``: ``"NVIDIA H200 GPU on Intel(R) Xeon(R)
    Processor"``, as the frontier's GPU records name theirs), so a GPU's timing and a CPU's on the same host
    are never counted as one machine's."""
    host = _named_host(setting)
    gpu = setting.get("gpu")
    if host and gpu and setting.get("device") == gpu and not str(host.get("cpu") or "").startswith(f"{gpu} GPU on "):
        host = {**host, "cpu": f"{gpu} GPU on {host['cpu'] or 'a CPU not recorded'}"}
    return host


def _named_host(setting: dict) -> dict | None:
    """The host its setting names (``host`` or ``machine``: a host dict, or words such as ``'Intel(R) Xeon(R)
    Processor, 16 cores'``), else the one recorded by the benchmark report it names as its ``source``
    (``benchmarks/<report>.json``, :func:`greenelm_book.bench.report_host`); None when neither says."""
    from ..bench import host_from_words, report_host

    for field in ("host", "machine"):
        value = setting.get(field)
        if isinstance(value, dict):
            return {f: value.get(f) for f in HOST_FIELDS}
        if isinstance(value, str) and value:
            return host_from_words(value)
    match = re.match(r"(benchmarks/[\w./-]+\.json)", str(setting.get("source", "")))
    path = ROOT / match.group(1) if match else None
    if path is not None and path.is_file():
        try:
            report = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        return report_host(report) if isinstance(report, dict) else None
    return None


def host_text(host: dict | None) -> str:
    """A host in words, the fields it records first and those it lacks named once after them, and how many
    BLAS builds it loaded when more than one:
    ``"AMD EPYC, 2 cores, kernel 6.18.44, openblas 0.3.30 (Haswell), 2 threads, GEMM 61.2 GFLOP/s"``;
    ``"AMD EPYC, 2 cores (kernel, BLAS and GEMM rate not recorded)"``."""
    if not host:
        return f"host {NOT_RECORDED}"
    blas = host.get("blas")
    builds = blas.split(", ")[0].count(" + ") + 1 if blas else 1   # "openblas 0.3.30 (Haswell) + openblas 0.3.31 …"
    if blas and builds > 1:
        blas = f"{builds} BLAS builds loaded in one process ({blas})"
    fields = (("CPU", host.get("cpu")), ("cores", host.get("cores") and f"{host['cores']} cores"),
              ("kernel", host.get("kernel") and f"kernel {host['kernel']}"), ("BLAS", blas),
              ("GEMM rate", host.get("gemm_gflops") and f"GEMM {host['gemm_gflops']:g} GFLOP/s"))
    present = [text for _, text in fields if text]
    missing = [name for name, text in fields if not text]
    if not present:
        return f"host {NOT_RECORDED}"
    if not missing:
        return ", ".join(present)
    return f"{', '.join(present)} ({and_list(missing)} {NOT_RECORDED})"


def brief_host_text(host: dict | None) -> str:
    """A host in the fewest words that still name it, for summaries: its CPU model and cores
    (``"AMD EPYC, 2 cores"``), the cores alone said so (``"2 cores (CPU model not recorded)"``), or
    ``"a host not recorded"``; :func:`host_text` gives the whole record."""
    if not host or not (host.get("cpu") or host.get("cores")):
        return f"a host {NOT_RECORDED}"
    cores = host.get("cores") and f"{host['cores']} cores"
    if not host.get("cpu"):
        return f"{cores} (CPU model {NOT_RECORDED})"
    return f"{host['cpu']}, {cores}" if cores else f"{host['cpu']} (cores {NOT_RECORDED})"


def same_host(a: "Result", b: "Result") -> bool | None:
    """Whether timings ``a`` and ``b`` were measured on one machine: True when both hosts are recorded
    and agree on CPU model, cores, kernel and BLAS (the GEMM rate is a reading, not an identity);
    False when a field recorded by both differs; None when it cannot be told (a host, or every
    identifying field, not recorded on one side). A same-machine ratio of two timings needs True."""
    if a.host is None or b.host is None:
        return None
    shared = [f for f in ("cpu", "cores", "kernel", "blas") if a.host.get(f) is not None and b.host.get(f) is not None]
    if any(a.host[f] != b.host[f] for f in shared):
        return False
    complete = all(a.host.get(f) is not None and b.host.get(f) is not None for f in ("cpu", "cores", "kernel", "blas"))
    return True if complete else None


def days_text(days) -> str:
    """Measurement days as words: "on 2026-12-04", "between 2026-11-29 and 2026-12-04" (the earliest and the
    latest of ``days``, ISO strings; "" when none)."""
    days = sorted(set(days))
    if not days:
        return ""
    return f"on {days[0]}" if len(days) == 1 else f"between {days[0]} and {days[-1]}"


def measured_on_text(results) -> str:
    """Where and when results (timings a page compares) were measured, in words: ``"measured on one host
    (...), on 2026-11-28"``, or, unless :func:`same_host` vouches for every pair, each host with the keys it
    measured and ``"not shown to be one machine"`` (so two hosts are never read as one); dates and hosts
    not recorded are said so."""
    results = list(results)
    if not results:
        raise ValueError("measured_on_text: no results")
    days = sorted({r.date for r in results if r.date})
    undated = sum(not r.date for r in results)
    when = [f"on {days[0]}" if len(days) == 1 else f"on {days[0]} to {days[-1]}"] if days else []
    if undated:
        when.append(f"measurement date {NOT_RECORDED}" + (f" for {undated}" if days else ""))
    when_text = "; ".join(when)
    if len(results) == 1:
        return f"measured on {host_text(results[0].host)}, {when_text}"
    if all(same_host(results[0], r) for r in results[1:]):
        return f"measured on one host ({host_text(results[0].host)}), {when_text}"
    hosts: dict[str, list[str]] = {}
    for r in results:
        hosts.setdefault(host_text(r.host), []).append(r.key)
    if len(hosts) == 1:
        return f"measured on {next(iter(hosts))}: too little of the host recorded to show it was one machine; {when_text}"
    return "measured on " + "; ".join(f"{h} ({', '.join(keys)})" for h, keys in hosts.items()) + \
        f" — not shown to be one machine; {when_text}"


@dataclass(frozen=True)
class Result:
    """One measured configuration: its runs' values (one per seed or repeat) and its setting; when
    (``date``, ISO day, ``""`` not recorded) and on what ``host`` they were measured, and the day the
    chapter that recorded them was ``executed`` (module docstring, *Provenance*)."""

    key: str
    values: tuple[float, ...]
    unit: str
    setting: dict
    chapter: str
    machine: str
    date: str
    command: str
    executed: str = ""
    host: dict | None = None

    @property
    def measured_text(self) -> str:
        """The measurement day, or ``not recorded``."""
        return self.date or NOT_RECORDED

    @property
    def n(self) -> int:
        return len(self.values)

    @property
    def mean(self) -> float:
        return float(statistics.fmean(self.values))

    @property
    def sd(self) -> float:
        """Sample standard deviation over runs (NaN for a single run)."""
        return float(statistics.stdev(self.values)) if self.n > 1 else float("nan")

    def text(self, digits: int = 2) -> str:
        """``"97.15 ± 0.08 % (n = 5)"`` — mean ± sd over runs (:func:`greenelm_book.report.ours_text`)."""
        from ..report import ours_text

        return ours_text(self.values, self.unit, digits)


@dataclass(frozen=True)
class Answer:
    """A chapter's answer to one claim of the paper (:data:`greenelm_book.paper.CLAIMS`)."""

    claim: str
    verdict: Verdict
    keys: tuple[str, ...] = ()     # the results it rests on
    note: str = ""                 # the setting or the test, in one sentence
    chapter: str = ""


def _jsonable(value: Any, where: str) -> Any:
    """``value`` as plain JSON (NumPy scalars and tuples converted); anything else is an error."""
    if hasattr(value, "item") and not isinstance(value, (list, tuple, dict)):
        value = value.item()
    if isinstance(value, (list, tuple)):
        return [_jsonable(v, where) for v in value]
    if isinstance(value, dict):
        return {str(k): _jsonable(v, where) for k, v in value.items()}
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"{where}: {value} is not a finite number")
        return value
    raise TypeError(f"{where}: {type(value).__name__} is not a JSON value")


def _command(chapter: str, profile: str) -> str:
    out = {"full": "book", "smoke": "tests/notebooks"}.get(profile, "DIR")
    return f"python -m greenelm_book.running.runner run --profile {profile} --out {out} --chapter {chapter}"


class ChapterResults:
    """The results and claim answers one chapter writes, and a reader of every chapter's."""

    def __init__(self, chapter: str, profile: str, directory: str | Path | None = None):
        from ..bench import chapter_machine

        self.chapter, self.profile = chapter, profile
        self.directory = Path(directory) if directory is not None else results_dir(profile)
        info = chapter_machine()
        self.machine = f"{info['cpu']}, {info['cores']} cores"
        self.date = _dt.date.today().isoformat()
        self.results: dict[str, Result] = {}
        self.answers: dict[str, Answer] = {}
        self.reads: dict[str, dict] = {}          # "chapter:key" -> the values this page used
        self.path.unlink(missing_ok=True)        # a re-execution starts from nothing

    @property
    def path(self) -> Path:
        return self.directory / f"{self.chapter}.json"

    # ------------------------------------------------------------------ writing
    def record(self, key: str, values, unit: str, *, provenance: Provenance | dict | None = None,
               **setting) -> Result:
        """Record configuration ``key``: ``values`` (one per run), its ``unit`` and full ``setting``.

        ``provenance``: when and on what host the values were measured, where they were not measured
        by this execution (a benchmark report's, :meth:`Provenance.from_cache` of a cache entry's);
        without it, the module docstring's *Provenance* rule applies. A key recorded twice must get
        the same values and setting (else ``ValueError``): one configuration, one value.
        """
        if not isinstance(key, str) or not _KEY.match(key):
            raise ValueError(f"result key {key!r}: lower-case words separated by '/', e.g. "
                             f"'mnist/elm/unit/cholesky/d=2000/accuracy'")
        values = tuple(float(v) for v in (values if hasattr(values, "__iter__") else [values]))
        if not values or not all(math.isfinite(v) for v in values):
            raise ValueError(f"result {key}: values must be finite numbers, one per run; got {values}")
        setting = _jsonable(setting, f"result {key} setting")
        if isinstance(provenance, dict) and set(provenance) <= {"date", "host"}:
            provenance = Provenance(**provenance)
        if provenance is not None and not isinstance(provenance, Provenance):
            raise TypeError(f"result {key}: provenance must be a results.Provenance or a dict of its fields "
                            f"('date', 'host'), not {provenance!r}")
        if provenance is not None and provenance.date and not re.fullmatch(r"\d{4}-\d{2}-\d{2}", provenance.date):
            raise ValueError(f"result {key}: provenance date must be an ISO day (YYYY-MM-DD) or '' (not recorded), "
                             f"not {provenance.date!r}")
        date, host = self._measured(setting, provenance, is_timing(key, str(unit)))
        result = Result(key, values, str(unit), setting, self.chapter, self.machine, date,
                        _command(self.chapter, self.profile), self.date, host)
        previous = self.results.get(key)
        if previous is not None and (previous.values, previous.setting) != (values, result.setting):
            raise ValueError(f"result {key} recorded twice with different values or settings: "
                             f"{previous.values} {previous.setting} then {values} {result.setting}")
        self.results[key] = result
        self._save()
        return result

    def _measured(self, setting: dict, provenance: Provenance | None, timing: bool) -> tuple[str, dict | None]:
        """(date, host) of a result being recorded (module docstring, *Provenance*); the host only for a timing."""
        if provenance is not None:
            date, host = provenance.date, provenance.host
        elif measured_date(setting):
            date, host = measured_date(setting), _setting_host(setting)
        elif _cache_reads() == 0:                 # nothing read from the cache: measured by this process
            from ..bench import host_info

            date, host = self.date, (host_info() if timing else None)
        else:
            date, host = "", None
        if host is not None:
            host = _jsonable({f: host.get(f) for f in HOST_FIELDS}, "host")
        return date, (host if timing else None)

    def answer(self, claim: str, verdict: Verdict, *, keys=(), note: str = "") -> Answer:
        """Record this chapter's answer to ``claim`` (an id of :data:`paper.CLAIMS`)."""
        from ..paper import CLAIMS

        if claim not in {c.id for c in CLAIMS}:
            raise ValueError(f"answer: {claim!r} is not a claim id of greenelm_book.paper.CLAIMS")
        if not isinstance(verdict, Verdict):
            raise TypeError(f"answer {claim}: verdict must be a report.Verdict, not {type(verdict).__name__}")
        keys = (keys,) if isinstance(keys, str) else tuple(keys)
        elsewhere = set()                       # every other chapter's keys, read once
        if any(k not in self.results for k in keys):
            elsewhere = {key for stored in load_all(self.directory).values() for key in stored["results"]}
        missing = [k for k in keys if k not in self.results and k not in elsewhere]
        if missing:
            raise KeyError(f"answer {claim}: no result {missing} in {self.directory}")
        self.answers[claim] = Answer(claim, verdict, keys, note, self.chapter)
        self._save()
        return self.answers[claim]

    def _save(self) -> None:
        payload = {"format": FORMAT, "chapter": self.chapter, "profile": self.profile,
                   "results": {k: {f: v for f, v in asdict(r).items() if f != "key"}
                               for k, r in sorted(self.results.items())},
                   "answers": {c: {"verdict": asdict(a.verdict), "keys": list(a.keys), "note": a.note}
                               for c, a in sorted(self.answers.items())},
                   "reads": dict(sorted(self.reads.items()))}
        text = json.dumps(payload, indent=1, ensure_ascii=False, sort_keys=False) + "\n"
        atomic_write(self.path, lambda handle: handle.write(text.encode()))

    # ------------------------------------------------------------------ reading
    def get(self, chapter: str, key: str) -> Result:
        """Result ``key`` recorded by ``chapter`` (this chapter's own, or read from its file)."""
        if chapter == self.chapter and key in self.results:
            return self.results[key]
        stored = load_all(self.directory).get(chapter)
        if stored is None:
            raise KeyError(f"no results of chapter {chapter} in {self.directory}: execute it first "
                           f"({_command(chapter, self.profile)})")
        if key not in stored["results"]:
            raise KeyError(f"chapter {chapter} recorded no result {key!r} in {self.directory}")
        result = stored["results"][key]
        self.reads[f"{chapter}:{key}"] = {"values": list(result.values)}
        self._save()
        return result


def _cache_reads() -> int:
    """How many results this process has read from the results cache (a value recorded after one may be
    older than this execution)."""
    from .results_cache import cache_reads

    return cache_reads()


def _check(condition: bool, path: Path, what: str) -> None:
    if not condition:
        raise ResultsFileError(f"{path}: {what}")


def _read(path: Path) -> dict:
    """One chapter's results file, validated field by field."""
    try:
        data = json.loads(path.read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ResultsFileError(f"{path}: not a readable JSON results file ({exc})") from None
    _check(isinstance(data, dict) and data.get("format") == FORMAT, path,
           f"'format' must be {FORMAT}")
    _check(data.get("chapter") == path.stem, path, f"'chapter' must be {path.stem!r}")
    results, answers = {}, {}
    _check(isinstance(data.get("results"), dict), path, "'results' must be an object")
    before = {"values", "unit", "setting", "chapter", "machine", "date", "command"}   # written before provenance
    fields = before | {"executed", "host"}
    for key, entry in data["results"].items():
        _check(isinstance(entry, dict) and set(entry) in (fields, before), path,
               f"result {key!r} must have exactly the fields {sorted(fields)}")
        if set(entry) == before:               # its 'date' was the execution's: the measurement's is not recorded
            entry = {**entry, "executed": entry["date"], "date": "", "host": None}
        _check(all(re.fullmatch(r"(\d{4}-\d{2}-\d{2})?", str(entry[f] or "")) for f in ("date", "executed")), path,
               f"result {key!r}: 'date' and 'executed' must be ISO days (YYYY-MM-DD), 'date' possibly '' (not recorded)")
        _check(entry["host"] is None or (isinstance(entry["host"], dict) and set(entry["host"]) <= set(HOST_FIELDS)),
               path, f"result {key!r}: 'host' must be null or an object of {list(HOST_FIELDS)}")
        values = entry["values"]
        _check(isinstance(values, list) and values and all(
            isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) for v in values),
            path, f"result {key!r}: 'values' must be a non-empty list of finite numbers")
        _check(isinstance(entry["setting"], dict), path, f"result {key!r}: 'setting' must be an object")
        results[key] = Result(key, tuple(float(v) for v in values), str(entry["unit"]), entry["setting"],
                              str(entry["chapter"]), str(entry["machine"]), str(entry["date"] or ""),
                              str(entry["command"]), str(entry["executed"]), entry["host"])
    _check(isinstance(data.get("answers"), dict), path, "'answers' must be an object")
    for claim, entry in data["answers"].items():
        verdict = entry.get("verdict") if isinstance(entry, dict) else None
        _check(isinstance(verdict, dict) and verdict.get("label") in VERDICT_LABELS, path,
               f"answer {claim!r}: verdict label must be one of {VERDICT_LABELS}")
        answers[claim] = Answer(claim, Verdict(**verdict), tuple(entry.get("keys", ())),
                                str(entry.get("note", "")), path.stem)
    reads = data.get("reads", {})
    _check(isinstance(reads, dict) and all(
        isinstance(v, dict) and isinstance(v.get("values"), list) and ":" in k for k, v in reads.items()),
        path, "'reads' must map 'chapter:key' to {'values': [...]}")
    return {"profile": data.get("profile"), "results": results, "answers": answers,
            "reads": {k: tuple(float(x) for x in v["values"]) for k, v in reads.items()}}


def load_all(directory: str | Path) -> dict[str, dict]:
    """``{chapter: {"profile", "results": {key: Result}, "answers": {claim: Answer}, "reads":
    {"chapter:key": values}}}`` of a results dir (``reads``: what the chapter's page showed of
    other chapters' results, so a page showing a value its owner has since changed is found)."""
    directory = Path(directory)
    if not directory.is_dir():
        return {}
    return {path.stem: _read(path) for path in sorted(directory.glob("*.json"))}


def _recorded_setting(text: str) -> dict:
    """The epochs and training rows a benchmark's words record (``"SGDConfig(epochs=10)"``, ``"all 50,000
    training images"``), as far as they do: ``{"epochs": 10, "n_train": 50000}``."""
    found = {}
    if m := re.search(r"epochs=(\d+)", text):
        found["epochs"] = int(m.group(1))
    if m := re.search(r"all ([\d,]+) training images", text):
        found["n_train"] = int(m.group(1).replace(",", ""))
    return found


def pair_side_against_table_text(ratio, side: str, table: "Result", what: str) -> str:
    """Why one side of interleaved pairs (``side``: "numerator" or "denominator" of ``ratio``) and a
    table's runs of the same model (``table``) show different seconds, as far as the records say: both
    means, the setting they share or where it differs (epochs, training rows), and where and when each
    was measured (:func:`measured_on_text`): "the pairs' MLP training (22.6 s) and the table's (61.3 s,
    2.71× as long) are separate runs, both 10 epochs on 50,000 images; the pairs measured …; the
    table's …; apart from where and when each was measured, the records hold no other difference"."""
    if side not in ("numerator", "denominator"):
        raise ValueError(f"side must be 'numerator' or 'denominator', got {side!r}")
    seconds = ratio.setting.get(f"{side}_seconds")
    if not seconds:
        return "the table's runs are the ratio's sides"
    pairs_mean = statistics.fmean(seconds)
    theirs = _recorded_setting(f"{ratio.setting.get(side, '')} {ratio.setting.get('data', '')}")
    ours = {k: table.setting.get(k) for k in ("epochs", "n_train")}
    theirs = {k: v for k, v in theirs.items() if ours.get(k) is not None}      # compared where both record it
    same = [k for k in theirs if theirs[k] == ours.get(k)]
    differ = [k for k in theirs if theirs[k] != ours.get(k)]
    words = {"epochs": lambda v: f"{v} epochs", "n_train": lambda v: f"{v:,} images"}
    parts = ([f"both {' on '.join(words[k](theirs[k]) for k in same)}"] if same else []) + \
        ([", ".join(f"differing in {k} (pairs {theirs[k]}, table {ours[k]})" for k in differ)] if differ else [])
    shared = "; ".join(parts) or "their settings not recorded alike"
    return (f"the pairs' {what} ({pairs_mean:.1f} s) and the table's ({table.mean:.1f} s, "
            f"{table.mean / pairs_mean:.2f}× the pairs') are separate runs, {shared}; the pairs "
            f"{measured_on_text([ratio])}; the table's {measured_on_text([table])}; apart from where and when "
            "each was measured, the records hold no other difference between them")


def pair_sides_text(ratio, numerator: str, denominator: str) -> str:
    """The seconds of each side of a ratio timed in interleaved pairs (``bench.record_quiet_ratio``), under
    the pairs' own name and with the host and day that measured them: "in those pairs the MLP's training
    took 22.6 s and Green-ELM's fit 9.9 s on average, measured on …". These are the pairs' own runs, not
    the seconds a table of the chapter shows. A ratio of the chapter's runs paired by seed has no sides
    of its own: "its sides are the seconds in the table, paired by seed"."""
    a, b = ratio.setting.get("numerator_seconds"), ratio.setting.get("denominator_seconds")
    if not a or not b:
        return "its sides are the seconds in the table, paired by seed"
    return (f"in those pairs {numerator} took {statistics.fmean(a):.1f} s and {denominator} {statistics.fmean(b):.1f} s on "
            f"average, {measured_on_text([ratio])}: the pairs' own runs, not the seconds in the table")
