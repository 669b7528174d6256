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

from ..report import VERDICT_LABELS, Verdict

__all__ = ["FORMAT", "ChapterResults", "Result", "Answer", "ResultsFileError", "load_all",
           "results_dir"]

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


@dataclass(frozen=True)
class Result:
    """One measured configuration: its runs' values (one per seed or repeat) and its setting."""

    key: str
    values: tuple[float, ...]
    unit: str
    setting: dict
    chapter: str
    machine: str
    date: str
    command: str

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
    def record(self, key: str, values, unit: str, **setting) -> Result:
        """Record configuration ``key``: ``values`` (one per run), its ``unit`` and full ``setting``.

        A key recorded twice must get the same values and setting (else ``ValueError``): one
        configuration, one value.
        """
        if not isinstance(key, str) or not _KEY.match(key):
            raise ValueError(f"result key {key!r}: lower-case words separated by '/', e.g. "
                             f"'mnist/elm/unit/cholesky/d=2000/accuracy'")
        values = tuple(float(v) for v in (values if hasattr(values, "__iter__") else [values]))
        if not values or not all(math.isfinite(v) for v in values):
            raise ValueError(f"result {key}: values must be finite numbers, one per run; got {values}")
        result = Result(key, values, str(unit), _jsonable(setting, f"result {key} setting"),
                        self.chapter, self.machine, self.date, _command(self.chapter, self.profile))
        previous = self.results.get(key)
        if previous is not None and (previous.values, previous.setting) != (values, result.setting):
            raise ValueError(f"result {key} recorded twice with different values or settings: "
                             f"{previous.values} {previous.setting} then {values} {result.setting}")
        self.results[key] = result
        self._save()
        return result

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
    fields = {"values", "unit", "setting", "chapter", "machine", "date", "command"}
    for key, entry in data["results"].items():
        _check(isinstance(entry, dict) and set(entry) == fields, path,
               f"result {key!r} must have exactly the fields {sorted(fields)}")
        values = entry["values"]
        _check(isinstance(values, list) and values and all(
            isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) for v in values),
            path, f"result {key!r}: 'values' must be a non-empty list of finite numbers")
        _check(isinstance(entry["setting"], dict), path, f"result {key!r}: 'setting' must be an object")
        results[key] = Result(key, tuple(float(v) for v in values), str(entry["unit"]), entry["setting"],
                              str(entry["chapter"]), str(entry["machine"]), str(entry["date"]),
                              str(entry["command"]))
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

