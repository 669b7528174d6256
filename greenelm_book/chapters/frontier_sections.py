"""The frontier page's sections of issue 62: the halving protocol's results beside the earlier
protocol's, the grid's sources, and the accuracy-seconds fronts.

Nothing here fits a model or reads a test label. It reads committed records and parameters:

* the halving protocol's per-seed records and its gate's ledger (``book/frontier_halving/``,
  :mod:`greenelm_book.chapters.frontier_halving`), each record checked against its own list of test
  reads and the ledger's (:func:`halving_records`: the test labels read once per seed, by its pick);
* its grid, the grid's sources and the limit of the whole protocol per seed
  (``params/frontier_halving.yml``: :func:`load_halving_params`, :func:`sources_table`);
* the accuracy-seconds points (``book/frontier_budget/``, declared in ``params/frontier_budget.yml``:
  :mod:`greenelm_book.chapters.frontier_budget`);

and records what the page shows in the chapter's results store (:func:`record_halving`,
:func:`record_fronts`). Result keys:

* ``<dataset>/frontier-halving/{test-accuracy,validation-accuracy,seconds,selection-seconds,
  refit-seconds,peak-memory}``: one value per seed recorded;
* ``<dataset>/budget/<point>/{accuracy,train-seconds}``: one point of a front, one value per seed
  recorded (``<point>``: :func:`~greenelm_book.chapters.frontier_budget.point_slug`).
"""

from __future__ import annotations

from collections import Counter

import json
import re
from pathlib import Path
from typing import Mapping, Sequence

import numpy as np
import pandas as pd

from ..paper import DATASET_NAMES
from ..report import and_list, duration_text, judge_qualitative, spread_text, thousands
from . import frontier_budget as fb
from .frontier import grid_history
from .frontier_budget import CROSSING_RULE, accuracy_cell, gain_with_sampling, repo_path
from .frontier_halving import HALVING_DIR, HALVING_PARAMS, load_halving
from .frontier_protocol import _read_ledger, configuration_key
from .frontier_records import VARIANT_WORDS, candidate_text

#: the datasets in the page's order
DATASETS = ("mnist", "fashion-mnist", "cifar10")
#: the ledger's file in a protocol's records folder
LEDGER = "test-reads.json"
#: a halving record's file name: ``<dataset>-seed<k>.json``
_SEED_RECORD = re.compile(r"(?P<dataset>[a-z0-9-]+?)-seed(?P<seed>\d+)\.json")
#: the grid's settings the sources table covers (every setting a grid varies, but the ridge, which each
#: fit chooses on its own training rows), and the datasets the grid is declared for
SOURCED = ("variant", "n_patches", "patch_size", "pool", "whiten_eps", "threshold", "views", "symmetric", "depth",
           "dataset")
#: a view in the sources table's words
VIEW_NAMES = {"flip": "mirror", "shift": "shifts"}


# ----------------------------------------------------------------------------- the halving records
def load_halving_params(params: str | Path | None = None) -> dict:
    """:func:`~greenelm_book.chapters.frontier_halving.load_halving` of ``params`` (relative: to the
    repository's root; None: ``params/frontier_halving.yml``), each dataset's ``budget_seconds`` (the
    limit of the whole protocol per seed) required: ValueError naming the datasets that lack one."""
    path = HALVING_PARAMS if params is None else repo_path(params)
    spec = load_halving(path)
    missing = [d for d, entry in spec["datasets"].items() if not entry["budget_seconds"]]
    if missing:
        raise ValueError(f"{path}: {missing} declare no budget_seconds, the limit of the whole protocol per seed "
                         "that the page reports each seed against")
    return spec


def check_test_reads(record: Mapping, ledger: Sequence[Mapping], name: str = "record") -> dict:
    """The one read of a halving record's test labels: its own ``test_reads`` and the ledger's reads of
    its (dataset, seed) must each be exactly one read, of kind ``"pick"``, by the record's pick, and the
    same read (its time). Returns the ledger's read; a ValueError naming ``name`` and every read found
    otherwise (a second read, a read by another configuration, a read the ledger does not list)."""
    dataset, seed = record["dataset"], int(record["seed"])
    key = configuration_key(record["pick"])
    own = [dict(r) for r in record.get("test_reads") or []]
    logged = [dict(r) for r in ledger if r["dataset"] == dataset and int(r["seed"]) == seed]
    for where, reads in (("its own list of test reads", own), (f"the ledger {LEDGER}", logged)):
        if len(reads) != 1 or reads[0]["kind"] != "pick" or reads[0]["key"] != key:
            found = "; ".join(f"{r['kind']} read by {r['key']} at {r['at']}" for r in reads) or "no read"
            raise ValueError(f"{name}: {DATASET_NAMES.get(dataset, dataset)}, seed {seed}: {where} holds "
                             f"{len(reads)} read(s) of the test labels ({found}); the protocol reads them once, "
                             f"by its pick {key}")
    if own[0]["at"] != logged[0]["at"]:
        raise ValueError(f"{name}: {dataset}, seed {seed}: its test read at {own[0]['at']} is not the ledger's, at "
                         f"{logged[0]['at']}")
    return logged[0]


def halving_records(records_dir: str | Path = HALVING_DIR) -> dict[str, dict[int, dict]]:
    """{dataset: {seed: record}} of the halving protocol's full runs in ``records_dir`` (relative: to the
    root; a subset's check run left out), each checked against the folder's ledger
    (:func:`check_test_reads`); {} when the folder holds none."""
    folder = repo_path(records_dir)
    ledger = _read_ledger(folder / LEDGER)
    out: dict[str, dict[int, dict]] = {}
    for path in sorted(folder.glob("*-seed*.json")):
        if not _SEED_RECORD.fullmatch(path.name):
            continue
        record = json.loads(path.read_text(encoding="utf-8"))
        if record.get("subset") is not None:
            continue
        check_test_reads(record, ledger, path.name)
        out.setdefault(record["dataset"], {})[int(record["seed"])] = record
    return out


def _read_at(run: Mapping) -> str:
    return next((r["at"] for r in run.get("test_reads", []) if r["kind"] == "pick"), "")


def record_halving(store, records: Mapping, spec: Mapping) -> dict:
    """Record each dataset's halving runs, one value per seed recorded; returns {dataset: part} for every
    dataset of ``spec`` (:func:`load_halving_params`), in the page's order: part = {"seeds", "planned",
    "limit" (s), "runs" (records by seed), "sizes" (the declared rungs), and, when a seed ran, "n_test"
    and the Results "accuracy", "validation", "seconds", "selection", "refit", "memory"}."""
    out = {}
    for dataset in [d for d in DATASETS if d in spec["datasets"]] + [d for d in spec["datasets"] if d not in DATASETS]:
        entry = spec["datasets"][dataset]
        found = records.get(dataset, {})
        runs = [found[s] for s in sorted(found)]
        part = {"seeds": [int(r["seed"]) for r in runs], "planned": list(spec["seeds"]),
                "limit": float(entry["budget_seconds"]), "runs": runs, "sizes": [list(s) for s in entry["sizes"]]}
        if runs:
            setting = dict(dataset=dataset, protocol="successive halving (params/frontier_halving.yml)",
                           seeds=part["seeds"], planned_seeds=part["planned"],
                           picks=[configuration_key(r["pick"]) for r in runs], sizes=runs[0]["sizes"],
                           eta=runs[0]["eta"], limit_seconds=part["limit"], n_train=runs[0]["n_train"],
                           n_test=int(runs[0]["n_test"]), machine="2 CPU cores",
                           computed_at=[_read_at(r) for r in runs],
                           # each seed's machine as its record names it (None: none), as the fronts' marker reads it
                           seed_hosts=[fb.record_host(r) for r in runs])
            hosts = [r.get("host") for r in runs]
            if all(hosts) and all(h == hosts[0] for h in hosts):
                setting["host"] = hosts[0]       # one host ran every seed (records before hosts were kept: cores only)
            prefix = f"{dataset}/{fb.HALVING}"

            def stored(name, values, unit, quantity):
                return store.record(f"{prefix}/{name}", values, unit, quantity=quantity, **setting)

            part.update(
                n_test=int(runs[0]["n_test"]),
                accuracy=stored("test-accuracy", [r["test_accuracy"] for r in runs], "%",
                                "test accuracy of each seed's pick, read once"),
                validation=stored("validation-accuracy", [r["validation_accuracy"] for r in runs], "%",
                                  "the pick's validation accuracy at the last rung it ran"),
                seconds=stored("seconds", [r["seconds"]["total"] for r in runs], "s",
                               "the whole protocol: every rung, the refit, the scoring"),
                selection=stored("selection-seconds", [r["seconds"]["selection"] for r in runs], "s",
                                 "every rung's fits"),
                refit=stored("refit-seconds", [r["seconds"]["refit"] for r in runs], "s",
                             "the refit on all training images at the pick"),
                memory=stored("peak-memory", [r["peak_memory_gb"] for r in runs], "GB",
                              "the process's peak resident memory"))
        out[dataset] = part
    return out


# ----------------------------------------------------------------------------- against the limit
def against_limit(seconds: float, limit: float) -> str:
    """One seed's whole protocol against the limit, in words: ``"under the 30.0 min limit"``,
    ``"over the 30.0 min limit by 2.5 min"``."""
    gap = float(seconds) - float(limit)
    if gap > 0:
        return f"over the {duration_text(limit)} limit by {duration_text(gap)}"
    return f"under the {duration_text(limit)} limit" if gap < 0 else f"at the {duration_text(limit)} limit"


def seeds_over_limit(seconds) -> list[int]:
    """The seeds whose whole protocol ran over the dataset's limit, from the stored seconds (a Result of
    :func:`record_halving`, one value per seed of its setting's ``"seeds"``, the limit its
    ``"limit_seconds"``): what the frontier's sentence and the headline both count."""
    limit = float(seconds.setting["limit_seconds"])
    return [int(s) for s, x in zip(seconds.setting["seeds"], seconds.values, strict=True) if x > limit]


def started_loads(part: Mapping) -> dict:
    """{"seed <s>": [1-min, 5-min] load averages read when that seed's run started} of a :func:`record_halving`
    part (None for a record that read none): what the quiet rule judges its seconds by."""
    out = {}
    for seed, run in zip(part["seeds"], part["runs"]):
        started = (run.get("load_average") or {}).get("started")
        out[f"seed {seed}"] = list(started[:2]) if started else None
    return out


def quiet_overruns(part: Mapping) -> list:
    """The seeds of a :func:`record_halving` part whose whole protocol ran over its limit after starting
    on a quiet machine (:func:`started_loads`, :func:`~greenelm_book.bench.judge_quiet`): each refutes
    "within the limit on every seed" alone."""
    from ..bench import judge_quiet

    loads = started_loads(part)
    return [s for s in seeds_over_limit(part["seconds"])
            if loads[f"seed {s}"] is not None and judge_quiet(loads[f"seed {s}"])[0]]


def overrun_hosts_words(part: Mapping) -> str:
    """What the records of the seeds that decide the limit (:func:`quiet_overruns`) say of their machines, as a
    clause: which name none (:func:`~greenelm_book.chapters.frontier_budget.record_host`: older than the records'
    ``"host"``), and the float64 GEMM rate the others read when they started beside the rates of the seeds that
    stayed within the limit ("; seeds 0 and 1 name no machine; seed 2 read a GEMM rate of 34.4 GFLOP/s, the seeds
    within the limit 88.4–98.8"): an absolute limit is a machine's, and the machines differ; "" when no deciding
    seed's record leaves that to say."""
    from ..report import and_list

    by_seed = dict(zip(part["seeds"], part["runs"]))
    deciding = quiet_overruns(part)
    unnamed = [s for s in deciding if fb.record_host(by_seed[s]) is None]
    rate = {s: (by_seed[s].get("host") or {}).get("gemm_gflops") for s in part["seeds"]}
    rated = [s for s in deciding if rate[s]]
    over = set(seeds_over_limit(part["seconds"]))
    within = sorted(float(rate[s]) for s in part["seeds"] if s not in over and rate[s])
    said = ""
    if unnamed:
        said += f"; {fb.seeds_text(unnamed)} name{'s' if len(unnamed) == 1 else ''} no machine"
    if rated and within:
        rates = and_list([f"{float(rate[s]):.1f}" for s in rated])
        span = f"{within[0]:.1f}" if f"{within[0]:.1f}" == f"{within[-1]:.1f}" else f"{within[0]:.1f}–{within[-1]:.1f}"
        said += (f"; {fb.seeds_text(rated)} read a float64 GEMM rate of {rates} GFLOP/s "
                 f"when {'they' if len(rated) > 1 else 'it'} started, the seeds within the limit {span}")
    return said


def limit_verdict(part: Mapping, dataset: str):
    """Whether the whole protocol stays within its limit on every seed recorded
    (:func:`~greenelm_book.report.judge_qualitative`), bounded by the book's rules
    (:func:`~greenelm_book.judging.verdicts.evidence_bound`): the quiet rule on the loads read when each seed
    started (:func:`started_loads`; a seed that read none is not quiet) and the seeds rule with the gain
    rule's seeds (3): fewer seeds, or a seed not started on a quiet machine, give no verdict. A seed that
    started on a quiet machine and ran over the limit decides alone: the claim is about every seed, and the
    seeds that did not start quiet cannot undo a quiet seed's overrun. What the deciding seeds' records say of
    their machines is said beside it (:func:`overrun_hosts_words`)."""
    from ..judging.verdicts import MIN_GAIN_RUNS, evidence_bound
    from ..report import Verdict

    seconds = part["seconds"].values
    verdict = judge_qualitative(
        all(s <= part["limit"] for s in seconds),
        f"holds if the whole protocol (every rung, the refit, the scoring) takes at most "
        f"{duration_text(part['limit'])} on every seed, on two CPU cores",
        ", ".join(f"seed {s}: {duration_text(x)}" for s, x in zip(part["seeds"], seconds)))
    loads = started_loads(part)
    quiet_over = [f"seed {s}" for s in quiet_overruns(part)]
    if quiet_over:
        return Verdict("does not hold", verdict.ours,
                       f"{verdict.detail}; decided by {', '.join(quiet_over)}, over the limit after starting on a "
                       f"quiet machine (the quiet rule satisfied){overrun_hosts_words(part)}")
    unread = [seed for seed, load in loads.items() if load is None]
    return evidence_bound(verdict, seeds={DATASET_NAMES.get(dataset, dataset): len(seconds)},
                          loads={seed: load for seed, load in loads.items() if load is not None},
                          quiet=False if unread else None,
                          reason=f"{', '.join(unread)}: no load average read when it started" if unread else "",
                          min_runs=MIN_GAIN_RUNS)


def _seeds_words(part: Mapping) -> str:
    return f"{len(part['seeds'])} of {len(part['planned'])} seed{'' if len(part['planned']) == 1 else 's'} run"


def halving_sentence(halving: Mapping, earlier: Mapping | None = None) -> str:
    """The halving protocol's outcome in words, per dataset (:func:`record_halving`): how many of the
    planned seeds have run, the picks' test accuracy with its test-set sampling error, the whole
    protocol's seconds against its limit (:func:`limit_verdict`, no verdict from fewer than 3 seeds) and,
    with ``earlier`` (the earlier protocol's :func:`~greenelm_book.chapters.frontier.record_protocol`),
    the book's gain rule with the sampling error on the two protocols' picks, paired by seed
    (:func:`protocols_gain`, what its bar is made of said at its first use only); the datasets with no seed are
    named together."""
    from ..judging.rejudge import rule_of
    from ..judging.verdicts import MIN_GAIN_RUNS

    parts, waiting, explained = [], [], False
    for dataset, part in halving.items():
        name = DATASET_NAMES.get(dataset, dataset)
        if not part["runs"]:
            waiting.append(name)
            continue
        over = seeds_over_limit(part["seconds"])
        text = (f"{name}: {_seeds_words(part)}, {fb.accuracy_text(part['accuracy'].values, part['n_test'])}, "
                f"the whole protocol {duration_text(part['seconds'].mean)} per seed (mean), ")
        limit = duration_text(part["limit"])
        if over:
            within = [s for s in part["seeds"] if s not in over]
            text += (f"over its {limit} limit on {fb.seeds_text(over)}"
                     + (f" (within it on {fb.seeds_text(within)})" if within else ""))
        else:
            text += f"under its {limit} limit" + (" on every seed" if len(part["seeds"]) > 1 else "")
        judged, deciding = limit_verdict(part, dataset), quiet_overruns(part)
        if deciding:            # one quiet seed over the limit refutes "every seed", however many have run
            text += (f"; within the limit on every seed: {judged.label} (decided by seed"
                     f"{'' if len(deciding) == 1 else 's'} {', '.join(map(str, deciding))}, over the limit after "
                     f"starting on a quiet machine{overrun_hosts_words(part)})")
        elif len(part["seeds"]) < MIN_GAIN_RUNS:
            text += f"; no verdict from fewer than {MIN_GAIN_RUNS} seeds (the seeds rule)"
        elif rule_of(judged) == "quiet_rule":
            from ..bench import judge_quiet

            busy = sum(not judge_quiet(load)[0] for load in started_loads(part).values())
            text += (f"; within the limit on every seed: {judged.label} (the quiet rule: {busy} of "
                     f"{len(part['seeds'])} seeds started on a machine it calls busy)")
        else:
            text += f"; within the limit on every seed: {judged.label}"
        # the picks' accuracies are compared whatever the seconds' verdict (the quiet rule bounds timings only)
        if len(part["seeds"]) >= MIN_GAIN_RUNS and earlier is not None and dataset in earlier:
            gain = protocols_gain(earlier[dataset], part, explain=not explained)     # the rule's bar explained once
            text += f"; against the earlier protocol's picks, {gain.ours} ({gain.detail})"
            explained = True
        parts.append(text + ".")
    if waiting:
        parts.append(f"{' and '.join(waiting)}: no seed run yet under the halving protocol.")
    return " ".join(parts)


def protocols_gain(earlier_part: Mapping, part: Mapping, explain: bool = True):
    """The book's gain rule with the test-set sampling error
    (:func:`~greenelm_book.chapters.frontier_budget.gain_with_sampling`) on "the halving protocol's pick
    gains over the earlier protocol's", paired by seed over the seeds both ran (a Verdict; ``explain`` False:
    its detail without what the rule's bar is made of)."""
    earlier = dict(zip(earlier_part["seeds"], earlier_part["accuracy"].values))
    ours = dict(zip(part["seeds"], part["accuracy"].values))
    common = [s for s in part["seeds"] if s in earlier]
    return gain_with_sampling([earlier[s] for s in common], [ours[s] for s in common], part["n_test"],
                              names=("the earlier protocol's pick", "the halving protocol's pick"), explain=explain)


# ----------------------------------------------------------------------------- the tables
def rungs_words(sizes: Sequence[Sequence[int]]) -> str:
    """The declared rungs in words: ``"4 rungs, 667 to 6,000 fit rows and 334 to 3,000 validation rows"``."""
    (f0, v0), (f1, v1) = sizes[0], sizes[-1]
    return (f"{len(sizes)} rungs, {thousands(f0, ',')} to {thousands(f1, ',')} fit rows and {thousands(v0, ',')} to "
            f"{thousands(v1, ',')} validation rows, a third kept at each")


def protocols_table(earlier: Mapping, halving: Mapping, dataset: str) -> pd.DataFrame:
    """One dataset's two protocols side by side, one row each: the earlier protocol's results as they were
    (its grid first explored on test scores: :func:`~greenelm_book.chapters.frontier.grid_history`) and the
    halving protocol's; seeds run, the picks' test accuracy with its test-set sampling error
    (:func:`~greenelm_book.chapters.frontier_budget.accuracy_cell`), the whole protocol's seconds per seed
    (mean) and its limit. ``earlier``: :func:`~greenelm_book.chapters.frontier.record_protocol`'s;
    ``halving``: :func:`record_halving`'s."""
    rows = []
    old = earlier.get(dataset)
    if old is not None:
        run = old["runs"][0]
        planned = old["accuracy"].setting["planned_seeds"]
        rows.append({"protocol": f"earlier: every candidate fitted on {thousands(run['n_fit'], ',')} rows and scored "
                                 f"on {thousands(run['n_validation'], ',')}; {grid_history()}",
                     "seeds": f"{len(old['seeds'])} of {len(planned)}",
                     "test accuracy (%)": accuracy_cell(old["accuracy"].values, old["n_test"]),
                     "whole protocol per seed": duration_text(old["seconds"].mean), "limit": "none set"})
    part = halving[dataset]
    row = {"protocol": f"successive halving: {rungs_words(part['sizes'])}; the grid declared in advance from published settings and the book's own additions",
           "seeds": f"{len(part['seeds'])} of {len(part['planned'])}", "test accuracy (%)": "no seed run yet",
           "whole protocol per seed": "—", "limit": duration_text(part["limit"])}
    if part["runs"]:
        row.update({"test accuracy (%)": accuracy_cell(part["accuracy"].values, part["n_test"]),
                    "whole protocol per seed": duration_text(part["seconds"].mean)})
    rows.append(row)
    return pd.DataFrame(rows)


def halving_seeds_table(halving: Mapping, dataset: str) -> pd.DataFrame:
    """One row per seed of the halving protocol on ``dataset``: its pick in words, the pick's validation
    accuracy, its test accuracy (the seed's one read), the whole protocol's seconds against the limit
    (:func:`against_limit`), read from the recorded results, the 1- and 5-minute load averages read when
    the seed started (the quiet rule's evidence: :func:`limit_verdict`) and the machine its record names
    ("not recorded" for a record older than its ``"host"``)."""
    part = halving[dataset]
    loads = started_loads(part)
    rows = []
    for seed, run, validation, test, seconds in zip(part["seeds"], part["runs"], part["validation"].values,
                                                    part["accuracy"].values, part["seconds"].values, strict=True):
        started = loads[f"seed {seed}"]
        rows.append({"seed": seed, "pick": candidate_text(run["pick"]), "validation (%)": f"{validation:.2f}",
                     "test (%)": f"{test:.2f}", "whole protocol": duration_text(seconds),
                     "against the limit": against_limit(seconds, part["limit"]),
                     "load at start (1, 5 min)": (f"{started[0]:.2f}, {started[1]:.2f}" if started else "not read"),
                     "measured on": fb.record_host({"host": run.get("host")}) or "not recorded"})
    return pd.DataFrame(rows)


def _same_or_each(values: Sequence) -> str:
    """One value when every seed has it, else each seed's, in seed order."""
    texts = [str(v) for v in values]
    return texts[0] if len(set(texts)) == 1 else " / ".join(texts)


def rungs_table(halving: Mapping, dataset: str) -> pd.DataFrame:
    """One row per rung of the halving protocol on ``dataset``, over the seeds recorded: its fit and
    validation rows, the candidates fitted (and how many failed), those kept (one value when every seed
    agrees, else each seed's), the best validation accuracy (mean ± sd over seeds) and the rung's seconds
    (mean). Validation accuracies only: no test score."""
    runs = halving[dataset]["runs"]
    rows = []
    for r in range(max(len(run["rungs"]) for run in runs)):
        rungs = [run["rungs"][r] for run in runs if len(run["rungs"]) > r]
        fitted = [[f["validation_accuracy"] for f in rung["fits"]] for rung in rungs]
        failed = [sum(v is None for v in scores) for scores in fitted]
        rows.append({"rung": r,
                     "fit / validation rows": _same_or_each(
                         [f"{thousands(g['n_fit'], ',')} / {thousands(g['n_validation'], ',')}" for g in rungs]),
                     "candidates": _same_or_each(len(s) for s in fitted) + (
                         f" ({_same_or_each(failed)} failed)" if any(failed) else ""),
                     "kept": _same_or_each(len(g["survivors"]) for g in rungs),
                     "best validation (%)": spread_text([max(v for v in s if v is not None) for s in fitted]),
                     "seconds (mean)": f"{np.mean([g['seconds'] for g in rungs]):,.0f}",
                     "seeds": len(rungs)})
    return pd.DataFrame(rows)


def _when(at: str) -> str:
    """A ledger time stamp as ``2026-12-02 07:15 UTC``."""
    return f"{at[:10]} {at[11:16]} UTC" if len(at) >= 16 else at


def ledger_sentence(records_dir: str | Path, halving: Mapping, dataset: str) -> str:
    """The test reads of ``dataset``'s halving runs, from the protocol's ledger (``<records_dir>/test-reads.json``):
    how many it lists and, for each, the seed, the kind and when; a read of a seed with no record is
    named as such (each recorded seed's one read was checked when its record was read:
    :func:`check_test_reads`)."""
    reads = [r for r in _read_ledger(repo_path(records_dir) / LEDGER) if r["dataset"] == dataset]
    name = DATASET_NAMES.get(dataset, dataset)
    if not reads:
        return f"The halving protocol's ledger lists no read of {name}'s test labels."
    recorded = set(halving[dataset]["seeds"])
    said = [f"seed {r['seed']} by its {'pick' if r['kind'] == 'pick' else 'declared configuration'} at "
            f"{_when(r['at'])}" + ("" if int(r["seed"]) in recorded else " (that seed has no record)")
            for r in sorted(reads, key=lambda r: (int(r["seed"]), r["at"]))]
    count = f"{len(reads)} read{'' if len(reads) == 1 else 's'}"
    return (f"The halving protocol's ledger ({Path(str(records_dir)).name}/{LEDGER}) lists {count} of {name}'s test "
            f"labels: {'; '.join(said)}.")


# ----------------------------------------------------------------------------- the grid's sources
def _as_value(setting: str, value):
    """A value of ``setting`` as the grid holds it (a list of views as a tuple)."""
    return tuple(value) if setting == "views" else value


def load_sources(params: str | Path | None = None) -> list[dict]:
    """The ``sources`` of the halving parameters, checked: [{"setting" (one of :data:`SOURCED`), "name",
    "cites" [{"key" (a BibTeX key), "values" [..], "range" (low, high) or None, "says"}], "own" (words)}]:
    per setting, what each source used (its values, or the range it varies the setting over) and says;
    ValueError naming the entry that is not so."""
    import yaml

    path = HALVING_PARAMS if params is None else repo_path(params)
    data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    sources = data.get("sources")
    if not isinstance(sources, list) or not sources:
        raise ValueError(f"{path}: no sources (a list of the grid's settings, each with its cited sources)")
    out = []
    for entry in sources:
        where = f"{path}: sources entry {entry!r}"
        if not isinstance(entry, Mapping) or set(entry) - {"setting", "name", "cites", "own"} \
                or not {"setting", "name"} <= set(entry):
            raise ValueError(f"{where}: an entry has a setting, a name, cites and optionally own")
        if entry["setting"] not in SOURCED:
            raise ValueError(f"{where}: setting must be one of {SOURCED}")
        cites = []
        for cite in entry.get("cites") or []:
            if not isinstance(cite, Mapping) or set(cite) - {"key", "values", "range", "says"} \
                    or not {"key", "says"} <= set(cite) or ("values" in cite) == ("range" in cite):
                raise ValueError(f"{where}: a cite has a key, says, and either values or a range: {cite!r}")
            low_high = cite.get("range")
            if low_high is not None and (len(low_high) != 2 or not low_high[0] <= low_high[1]):
                raise ValueError(f"{where}: a range is [low, high], got {low_high!r}")
            cites.append({"key": str(cite["key"]), "says": str(cite["says"]),
                          "values": [_as_value(entry["setting"], v) for v in cite.get("values") or []],
                          "range": None if low_high is None else (low_high[0], low_high[1])})
        out.append({"setting": entry["setting"], "name": str(entry["name"]), "cites": cites,
                    "own": str(entry.get("own") or "")})
    return out


def grid_values(spec: Mapping) -> dict[str, list]:
    """{setting of :data:`SOURCED`: its distinct values over every dataset's grid, sorted ("dataset":
    the datasets in declared order)}."""
    values: dict[str, list] = {"dataset": list(spec["datasets"])}
    for entry in spec["datasets"].values():
        for candidate in entry["grid"]:
            for setting in SOURCED[:-1]:
                value = getattr(candidate, setting)
                if value not in values.setdefault(setting, []):
                    values[setting].append(value)
    return {s: (v if s == "dataset" else sorted(v, key=lambda x: (len(x), x) if isinstance(x, tuple) else x))
            for s, v in values.items()}


def published(value, cites: Sequence[Mapping]) -> bool:
    """Whether a source gives ``value``: among a cite's values, or within its range."""
    for cite in cites:
        if value in cite["values"]:
            return True
        low_high = cite["range"]
        if low_high is not None and not isinstance(value, (bool, str, tuple)) and low_high[0] <= value <= low_high[1]:
            return True
    return False


def value_text(setting: str, value) -> str:
    """A grid value in the sources table's words."""
    if setting == "views":
        return " + ".join(VIEW_NAMES.get(v, v) for v in value) or "none"
    if setting == "variant":
        return VARIANT_WORDS.get(value, value)
    if setting == "dataset":
        return DATASET_NAMES.get(value, value)
    if isinstance(value, bool):
        return "yes" if value else "no"
    return thousands(value, ",")


def bib_keys(path: str | Path | None = None) -> set[str]:
    """The entry keys of a BibTeX file (default ``book/references.bib``)."""
    text = repo_path(path or "book/references.bib").read_text(encoding="utf-8")
    return set(re.findall(r"^@\w+\{([^,\s]+),", text, re.M))


def sources_rows(params: str | Path | None = None) -> list[dict]:
    """The sources table's rows: [{"setting" (its name), "grid" [values in words], "published" [(what the
    source says, its key)], "own" (the grid's values no source gives, in words, then the entry's own
    words)}], one per entry of :func:`load_sources`; ValueError when a setting of :data:`SOURCED` has no
    entry, or an entry's key is not in ``book/references.bib``."""
    spec = load_halving(HALVING_PARAMS if params is None else repo_path(params))
    sources, values = load_sources(params), grid_values(spec)
    missing = [s for s in SOURCED if s not in {e["setting"] for e in sources}]
    if missing:
        raise ValueError(f"the grid's setting(s) {missing} have no entry in the sources of the halving parameters")
    unknown = sorted({c["key"] for e in sources for c in e["cites"]} - bib_keys())
    if unknown:
        raise ValueError(f"the sources cite {unknown}, which book/references.bib does not hold")
    rows = []
    for entry in sources:
        setting, grid = entry["setting"], values.get(entry["setting"], [])
        own = ", ".join(value_text(setting, v) for v in grid if not published(v, entry["cites"]))
        if entry["own"]:
            own = f"{own}: {entry['own']}" if own else entry["own"]
        rows.append({"setting": entry["name"], "grid": [value_text(setting, v) for v in grid],
                     "published": [(c["says"], c["key"]) for c in entry["cites"]], "own": own or "—"})
    return rows


def grid_size_sentence(params: str | Path | None = None) -> str:
    """How the declared ranges become each dataset's grid, in words: the grid is not the product of every
    value the sources table lists but a union of blocks, each the product of its own lists
    (:func:`~greenelm_book.chapters.frontier_protocol.expand_grid`), so each dataset's count of
    candidates (what its rung 0 fits) is named with its number of blocks."""
    import yaml

    path = HALVING_PARAMS if params is None else repo_path(params)
    declared = (yaml.safe_load(Path(path).read_text(encoding="utf-8")) or {}).get("datasets") or {}
    spec = load_halving(path)
    counts = [f"{DATASET_NAMES.get(d, d)} {thousands(len(entry['grid']), ',')} candidates in "
              f"{len(declared[d]['grid'])} block{'' if len(declared[d]['grid']) == 1 else 's'}"
              for d, entry in spec["datasets"].items()]
    return ("The grid is not every combination of these values: each dataset declares blocks, each block the "
            "product of its own values (a configuration in two blocks counted once), and rung 0 fits every "
            f"candidate of its dataset's blocks: {'; '.join(counts)}.")


def sources_table(params: str | Path | None = None) -> str:
    """The grid's sources as a MyST table (glued with ``{glue:md}`` in MyST format, so that each source is
    a ``{cite}`` of its BibTeX key): the setting, its values in this grid, what each source used, and the
    values no source gives, named as this book's own (:func:`sources_rows`)."""
    def cell(text: str) -> str:
        return str(text).replace("|", "\\|").replace("\n", " ")

    lines = ["| setting | in this grid | published (source) | this book's own |", "|---|---|---|---|"]
    for row in sources_rows(params):
        said = "; ".join(f"{cell(says)} {{cite}}`{key}`" for says, key in row["published"]) or "no source"
        lines.append(f"| {cell(row['setting'])} | {cell(', '.join(row['grid']))} | {said} | {cell(row['own'])} |")
    return "\n".join(lines)


# ----------------------------------------------------------------------------- the fronts
def load_budget_params(params: str | Path | None = None) -> dict:
    """:func:`~greenelm_book.chapters.frontier_budget.load_budget` of ``params`` (relative: to the root)."""
    return fb.load_budget(None if params is None else repo_path(params))


def budget_fronts(dataset: str, budget_dir: str | Path, budget_params: str | Path, halving_dir: str | Path,
                  on_gpu: bool = False) -> dict:
    """:func:`~greenelm_book.chapters.frontier_budget.fronts` of ``dataset`` with its folders and parameters
    given relative to the root: what its figure and answer read (``on_gpu``: the GPU's fronts, their own
    records alone)."""
    return fb.fronts(dataset, out_dir=repo_path(budget_dir), params=repo_path(budget_params),
                     records_dir=repo_path(halving_dir), on_gpu=on_gpu)


def record_fronts(store, dataset: str, fronts_of: Mapping, budget_dir: str | Path) -> dict:
    """Record each point of ``dataset``'s two fronts (:func:`budget_fronts`), one value per seed:
    ``<dataset>/budget/<point>/accuracy`` and ``/train-seconds``, each seed's record named (its folder:
    ``book/frontier_budget``, or the opponent's published run or the protocol's refit it was read from).
    The GPU's fronts (``fronts_of["on_gpu"]``) go to ``<dataset>/budget-gpu/...``, measured on "one GPU".
    Returns {point slug: {"accuracy", "seconds"}}."""
    from ..bench import host_from_words
    from ..store.results import Provenance, measured_date

    here = {(configuration_key(r["point"]), int(r["seed"])) for r in fb.load_points(dataset, repo_path(budget_dir))}
    on_gpu = bool(fronts_of.get("on_gpu"))
    folder = f"book/{(fb.BUDGET_GPU_DIR if on_gpu else fb.BUDGET_DIR).name}"     # the committed folder's name
    out = {}
    for entry in fronts_of["one_shot"] + fronts_of["sgd"]:
        key, seeds = configuration_key(entry["point"]), entry["seeds"]
        hosts = [entry.get("hosts", {}).get(s) for s in seeds]
        measured = [entry.get("measured", {}).get(s, "") for s in seeds]
        setting = dict(dataset=dataset, point=entry["point"], label=entry["label"], seeds=seeds,
                       n_test=entry["n_test"], machine="one GPU" if on_gpu else "2 CPU cores", hosts=hosts,
                       measured=measured,
                       records=[folder if (key, s) in here else
                                "the opponent's published run (book/frontier_protocol)"
                                if entry["point"]["family"] == "sgd" else
                                "the protocol's own refit (book/frontier_halving)" for s in seeds])
        # measured by the points' own runs, not by this execution: their records' day and machine (the
        # one every seed names, else none: seeds on different machines are no one host)
        provenance = Provenance(measured_date(setting),
                                host_from_words(hosts[0]) if hosts and hosts[0] and len(set(hosts)) == 1 else None)
        prefix = f"{dataset}/{'budget-gpu' if on_gpu else 'budget'}/{fb.point_slug(entry['point'])}"
        out[fb.point_slug(entry["point"])] = {
            "accuracy": store.record(f"{prefix}/accuracy", [entry["accuracy"][s] for s in seeds], "%",
                                     quantity="test accuracy (declared fixed measurement)", provenance=provenance,
                                     **setting),
            "seconds": store.record(f"{prefix}/train-seconds", [entry["seconds"][s] for s in seeds], "s",
                                    quantity="training seconds on the GPU" if on_gpu else
                                    "training seconds on the machine's cores", provenance=provenance,
                                    **setting)}
    return out


def fronts_ready(fronts_of: Mapping) -> bool:
    """Whether a dataset's fronts can be answered: both families have a point, every declared point is
    measured (``fronts_of["declared"]``, where given), and at least the gain rule's seeds (3) have every
    point of both fronts measured on one machine their records name
    (:func:`~greenelm_book.chapters.frontier_budget.compared_seeds`): seconds are compared on one machine
    only, the seed's (seeds may run in different sessions, on different hosts); a seed whose points span
    machines is left out, not averaged in."""
    from ..judging.verdicts import MIN_GAIN_RUNS

    return (bool(fronts_of["one_shot"] and fronts_of["sgd"]) and every_declared_point_measured(fronts_of)
            and len(fb.compared_seeds(fronts_of)) >= MIN_GAIN_RUNS)


def every_declared_point_measured(fronts_of: Mapping) -> bool:
    """Whether each of the dataset's declared points (``fronts_of["declared"]``, where given) has a seed measured."""
    declared = fronts_of.get("declared")
    return declared is None or len(fronts_of["one_shot"] + fronts_of["sgd"]) >= declared


def fronts_status(dataset: str, fronts_of: Mapping, spec: Mapping) -> str:
    """Which of ``dataset``'s declared points (``spec``: :func:`load_budget_params`) are measured, with how
    many of the declared seeds each has, and the whole protocol's marker's seeds; the sentence under a
    figure that cannot be answered yet."""
    from ..judging.verdicts import MIN_GAIN_RUNS

    name, planned = DATASET_NAMES.get(dataset, dataset), len(spec["seeds"])
    measured = {configuration_key(p["point"]): len(p["seeds"]) for p in fronts_of["one_shot"] + fronts_of["sgd"]}
    parts = []
    for key, family in (("one_shot", "the one-shot front"), ("sgd", "the recipe's front")):
        declared = spec["datasets"][dataset][key]
        done = [(fb.point_label(p), measured[configuration_key(p)]) for p in declared if configuration_key(p) in measured]
        said = f"{family} {len(done)} of its {len(declared)} declared points"
        if done:
            said += " (" + "; ".join(f"{label}: {n} of {planned} seeds" for label, n in done) + ")"
        parts.append(said)
    marker = fronts_of.get("marker")
    seeds = len(marker["seconds"]) if marker else 0
    said = (f"{name} is not answered yet: measured so far are {parts[0]} and {parts[1]}"
            + ("" if fronts_of.get("on_gpu") else f"; the whole halving protocol's marker has {seeds} of {planned} seeds")
            + f". The answer waits for {MIN_GAIN_RUNS} seeds with every point of both fronts measured, each "
            "seed's points on one machine")
    points = fronts_of["one_shot"] + fronts_of["sgd"]
    complete = fb.complete_seeds(fronts_of) if every_declared_point_measured(fronts_of) else []
    progress = ""
    if complete:            # what stands in the way: the points, or the machines they name
        whole = fb.compared_seeds(fronts_of)
        if len(complete) == 1:
            where = "on one machine instance" if whole else "not on one machine instance"
        elif whole == complete:
            where = "each on one machine instance"
        elif whole:
            where = f"{fb.seeds_text(whole)}{' each' if len(whole) > 1 else ''} on one machine instance"
        else:
            where = "none of them on one machine instance"
        progress = (f"; so far {fb.seeds_text(complete)} {'have' if len(complete) > 1 else 'has'} every point "
                    f"measured, {where}")
    hosts = Counter(host for entry in points for host in entry.get("hosts", {}).values())
    if len(hosts) > 1 or None in hosts:
        said += (" (of the runs so far, " + "; ".join(
            f"{n} {'were' if n > 1 else 'was'} measured on {host}" if host else
            f"{n} {'have records' if n > 1 else 'has a record'} naming no machine" for host, n in hosts.items()) + ")")
    said += progress
    failed = fb.failed_clause(fronts_of)
    said += f"; {failed}" if failed else ""
    said += instance_clause(fronts_of)
    borrowed = any(entry.get("hosts", {}).get(seed) is None and seed in entry.get("read_from", {})
                   for entry in points for seed in entry["seeds"])
    if borrowed:
        said += ("; a point read from another run's record that names no machine (the recipe's own-schedule run of "
                 "§4, the protocol's own refit; neither read its labels through this section's ledger) is shown as "
                 "read, and is measured again on its seed's machine when the fronts' command runs that point: until "
                 "then that seed is not compared")
    named = fb.hosts_by_seed(points)
    mixed = sorted(seed for seed, hosts in named.items() if len(hosts - {None}) > 1)
    if mixed:
        said += (f"; the points of seed{'s' if len(mixed) > 1 else ''} {', '.join(map(str, mixed))} name two "
                 "machines, so that seed's points are measured again on one machine or the seed is left out")
    return said + "."


def instance_clause(fronts_of: Mapping) -> str:
    """Where some of a dataset's points name only a CPU (or a GPU and its host's CPU) model and cores (records older than the machine's
    instance, :func:`~greenelm_book.chapters.frontier_budget.names_one_machine`), why a seed's points must
    name one instance, with the evidence in these fronts: on the same declared points, how far the seconds
    of the machines named differ (per point, the slowest machine's mean over the fastest's; median and
    largest); "" when every point names its machine whole."""
    points = fronts_of["one_shot"] + fronts_of["sgd"]
    bare = sum(1 for p in points for host in p.get("hosts", {}).values() if host and not fb.names_one_machine(host))
    if not bare:
        return ""
    device = "GPU" if fronts_of.get("on_gpu") else "CPU"
    ratios = []
    for p in points:
        groups: dict = {}
        for seed in p["seeds"]:
            if p["hosts"].get(seed):            # a record that names no machine is no evidence of one's speed
                groups.setdefault(p["hosts"][seed], []).append(p["seconds"][seed])
        if len(groups) > 1:
            means = [float(np.mean(v)) for v in groups.values()]
            ratios.append((max(means) / min(means), p["label"]))
    values = [r for r, _ in ratios]
    if not ratios:
        evidence = ""
    elif f"{min(values):.1f}" == f"{max(values):.1f}":       # one ratio as printed: no median and range to give
        shared = (f"the one declared point they share ({ratios[0][1]})" if len(ratios) == 1 else
                  f"each of the {len(ratios)} declared points they share")
        evidence = f" (on {shared}, the machines named here differ {max(values):.1f}× in mean seconds)"
    else:
        widest = max(ratios)[1]
        evidence = (f" (on the {len(ratios)} declared points measured on more than one of the machines named here, "
                    f"their mean seconds differ by a median {np.median(values):.1f}×, up to {max(values):.1f}× at {widest})")
    named = ("a GPU and its host's CPU model and cores, which do not tell two machines apart" if device == "GPU" else
             f"a CPU model and cores, which virtual machines of different speeds share{evidence}")
    return (f"; a {device} point's record names its machine's instance (the boot's id) only since records kept it: "
            f"{bare} of this dataset's run{'s' if bare > 1 else ''}, recorded earlier, name{'' if bare > 1 else 's'} "
            f"only {named}, so a "
            "seed whose points do not all name one instance is not compared")


def fronts_progress(fronts_by_dataset: Mapping, spec: Mapping) -> str:
    """How much of the declared accuracy-seconds measurement exists (``fronts_by_dataset``: {dataset:
    :func:`budget_fronts`}, ``spec``: :func:`load_budget_params`): the seeded runs measured against those
    declared, over every dataset's two fronts, and which datasets can be answered (:func:`fronts_ready`);
    the sentence that opens the section, so it promises no figure or answer the records cannot give."""
    planned = len(spec["seeds"])
    declared = sum(len(spec["datasets"][d][key]) for d in fronts_by_dataset for key in ("one_shot", "sgd"))
    runs = sum(len(p["seeds"]) for f in fronts_by_dataset.values() for p in f["one_shot"] + f["sgd"])
    ready = [DATASET_NAMES.get(d, d) for d, f in fronts_by_dataset.items() if fronts_ready(f)]
    text = (f"Measured so far: {runs} of the {declared * planned} declared runs ({declared} points × {planned} "
            "seeds, both fronts of every dataset); ")
    if not ready:
        return text + "no dataset can be answered yet, so each figure shows only the points measured."
    if len(ready) == len(fronts_by_dataset):
        return text + "every dataset is answered under its figure."
    return text + f"answered: {' and '.join(ready)}; the other figures show only the points measured."


def fronts_text(dataset: str, fronts_of: Mapping, spec: Mapping) -> str:
    """The sentence under a dataset's figure: the answer by the book's gain rule
    (:func:`~greenelm_book.chapters.frontier_budget.answer`) once :func:`fronts_ready`, else
    :func:`fronts_status`."""
    if not fronts_ready(fronts_of):
        return fronts_status(dataset, fronts_of, spec)
    judged = fb.answer(fronts_of)
    cost = fb.choice_cost_sentence(fronts_of, judged)
    counted = fb.answer(fronts_of, counting_choice=True)
    if cost and counted is not None:         # the same comparison with the choice of the pick counted too
        second = counted["sentence_how_free"]
        cost += f" {CHOICE_COUNTED}, {second[:1].lower()}{second[1:]}"
    elif cost and (elsewhere := fb.choice_elsewhere(fronts_of)):
        cost += f" {choice_not_compared(fronts_of, elsewhere)}"
    loads = fb.start_loads_sentence(fronts_of)
    return f"{judged['sentence']} {cost + ' ' if cost else ''}{fb.machines_sentence(fronts_of)}" + (
        f" {loads}" if loads else "")


#: how the fronts' second answer counts the one-shot seconds (the page's and the summaries' words)
CHOICE_COUNTED = "Counting that choice too (each one-shot point's seconds plus its seed's rungs)"


def choice_not_compared(fronts_of: Mapping, elsewhere: Sequence[int]) -> str:
    """Why the fronts are not compared with the choice of the pick counted: ``elsewhere``
    (:func:`~greenelm_book.chapters.frontier_budget.choice_elsewhere`) timed their choice on no machine their record
    names, or another than their points', and too few seeds remain for the gain rule."""
    from ..judging.verdicts import MIN_GAIN_RUNS

    left = len(fb.choice_seeds(fronts_of))
    its = "its" if len(elsewhere) == 1 else "their"
    return (f"{CHOICE_COUNTED}, the fronts are not compared: {fb.seeds_text(elsewhere)}'s protocol record names no "
            f"machine, or another than {its} points', so {its} rungs' seconds are not added to {its} points', and "
            f"{left} seed{'' if left == 1 else 's'} remain{'s' if left == 1 else ''}, fewer than the "
            f"{MIN_GAIN_RUNS} the gain rule pairs.")


#: the file beside the GPU's point records that says which library path measured each one-shot record
KERNEL_PATHS = "kernel-paths.json"


def gpu_refit_agreement(fronts_by_dataset: Mapping, halving_dir: str | Path) -> str:
    """The GPU's refit of each seed's pick on every training row (the one-shot point "N = all, K = the pick's")
    against the halving protocol's refit of the same pick on the CPU (its record's test accuracy): the same model
    computed on other hardware, so the two should agree to rounding; "" where no seed has both."""
    gaps, per_dataset = [], Counter()
    for dataset, fronts_of in fronts_by_dataset.items():
        for entry in fronts_of["one_shot"]:
            for seed, accuracy in entry["accuracy"].items():
                refit = fb.pick_refit_point(dataset, entry["point"], seed, repo_path(halving_dir))
                if refit is not None:           # the point is the pick's own refit, and that seed's protocol ran
                    gaps.append(abs(accuracy - refit["test_accuracy"]))
                    per_dataset[DATASET_NAMES.get(dataset, dataset)] += 1
    if not gaps:
        return ""
    counted = and_list([f"{n} seed{'' if n == 1 else 's'} of {name}" for name, n in per_dataset.items()])
    return (f"The GPU's refit of each seed's pick on every training row scores within {max(gaps):.2f} points of the "
            f"halving protocol's refit of that pick on a CPU ({counted}): the same model, computed "
            "in another order on other hardware.")


def gpu_fronts_note(fronts_by_dataset: Mapping, gpu_dir: str | Path, planned: int = 3) -> str:
    """The sentence that opens the GPU's figures: how many of each dataset's declared runs (points × the
    ``planned`` seeds) were measured on the GPU (a dataset with none named as such), on which GPU, and, from
    :data:`KERNEL_PATHS` where it exists, how many one-shot records each revision of the library's GPU
    path measured (the last listed is the path the library ships)."""
    parts, none = [], []
    for dataset, fronts_of in fronts_by_dataset.items():
        name = DATASET_NAMES.get(dataset, dataset)
        runs = sum(len(p["seeds"]) for p in fronts_of["one_shot"] + fronts_of["sgd"])
        if runs:
            parts.append(f"{name} {runs} of {fronts_of['declared'] * planned} runs")
        else:
            none.append(name)
    hosts = sorted({h for f in fronts_by_dataset.values() for p in f["one_shot"] + f["sgd"]
                    for h in p.get("hosts", {}).values() if h})
    days = sorted({str(d)[:10] for f in fronts_by_dataset.values() for p in f["one_shot"] + f["sgd"]
                   for d in p.get("measured", {}).values() if d})
    if not parts:
        return "No point has been measured on a GPU yet."
    when = "" if not days else f" on {days[0]}" if len(days) == 1 else f" from {days[0]} to {days[-1]}"
    said = (f"Measured on {' and '.join(hosts) if hosts else 'a GPU its records do not name'}{when}: "
            + ", ".join(parts) + (f"; {' and '.join(none)} none yet." if none else "."))
    paths_file = repo_path(gpu_dir) / KERNEL_PATHS
    if paths_file.is_file():
        paths = json.loads(paths_file.read_text(encoding="utf-8"))["paths"]
        counts = [f"{len(records)} with {path}" for path, records in paths.items() if records]
        if len(counts) > 1:
            said += (f" The one-shot points were measured with {len(counts)} revisions of the library's GPU path, "
                     "which changed between invocations of the command "
                     "after 60,000-row kernels did not factorise on the GPU (those fits failed before any "
                     "test read, and ran again): " + "; ".join(counts[:-1]) + f"; and {counts[-1]}, the path the "
                     f"library ships; `{Path(gpu_dir).as_posix()}/{KERNEL_PATHS}` lists each record's.")
    return said


def fronts_figure(dataset: str, fronts_of: Mapping):
    """:func:`~greenelm_book.chapters.frontier_budget.plot_fronts` of whatever points exist, the SGD front
    named by its recipe; once answered (:func:`fronts_ready`), of the compared seeds only, the title naming
    any left out; None when neither front nor the protocol's marker has a point."""
    if not (fronts_of["one_shot"] or fronts_of["sgd"] or fronts_of.get("marker")):
        return None
    note, shown = "", fronts_of
    if fronts_ready(fronts_of):          # the answer's seeds only (fb.answer): a seed left out is not drawn either
        kept = fb.compared_seeds(fronts_of)
        left_out = sorted(set(fb.seed_hosts(fronts_of)) - set(kept))
        if left_out:
            note = (f"{fb.seeds_text(kept)} (the compared seeds); {fb.seeds_text(left_out)} not shown")
        shown = fb.restricted(fronts_of, kept)
    return fb.plot_fronts(dataset, shown["one_shot"], shown["sgd"], shown.get("marker"),
                          sgd_name=fb.RECIPE_WORDS.get(fronts_of["recipe"], fronts_of["recipe"]),
                          joined=shown is not fronts_of or None not in fb.seed_hosts(fronts_of).values(),
                          machine="one GPU" if fronts_of.get("on_gpu") else "two CPU cores", seeds_note=note)


__all__ = ["CROSSING_RULE", "DATASETS", "KERNEL_PATHS", "LEDGER", "every_declared_point_measured", "gpu_fronts_note", "gpu_refit_agreement", "SOURCED", "against_limit", "bib_keys", "budget_fronts", "check_test_reads",
           "fronts_figure", "fronts_progress", "fronts_ready", "fronts_status", "fronts_text", "grid_values", "halving_records",
           "halving_seeds_table", "halving_sentence", "started_loads", "ledger_sentence", "limit_verdict", "load_budget_params",
           "grid_size_sentence", "load_halving_params", "load_sources", "protocols_gain", "protocols_table", "published", "record_fronts",
           "record_halving", "rungs_table", "rungs_words", "seeds_over_limit", "sources_rows", "sources_table", "value_text"]
