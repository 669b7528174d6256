"""Accuracy against seconds: the one-shot model and SGD on the same two cores, at every budget (issue 62,
items 5 and 6).

Two fronts per dataset, every point declared in ``params/frontier_budget.yml`` before any of them runs
(:func:`load_budget`) and each a fixed measurement read once per seed through the protocol's
:class:`~greenelm_book.chapters.frontier_protocol.TestGate` (kind ``"fixed"``):

* **one-shot**: the new protocol's pick (successive halving, its record per dataset and seed in
  ``book/frontier_halving/``), refit on the first ``n_train`` rows of a seeded permutation of the
  training images with ``n_patches`` filters (capped at the pick's own K); the point names the pick by
  reference, so it is fixed before the pick is known, and the pick it read is written into its record;
* **SGD**: the dataset's opponent recipe (:mod:`greenelm_book.chapters.fast_sgd`) on all training
  images with its schedule shortened to ``epochs`` (re-planned, not cut); at the recipe's own schedule
  the point is the opponent's published run, read from its record where it has one
  (:func:`opponent_point`), not measured twice.
  The one-shot point that fits the pick itself on every row is likewise the protocol's own refit, read
  from its record (:func:`pick_refit_point`). Either is read only where its record names the machine the
  point runs on (:func:`record_host`): the fronts compare seconds on one machine per seed
  (:func:`seed_hosts`): a seed's points may run in different sessions, so on different hosts across
  seeds, but a seed's two fronts are read against each other only where all of its points name one.

:func:`run_point` runs one point and seed and writes its record (training seconds on the machine's
cores, test accuracy, the test-set sampling error, load averages at start and end); the command line
(:func:`main`) runs it alone under the run lock. A point's test labels are read once: a record that
exists is skipped, and a point whose read is in the ledger without a record is refused.

The page's side: :func:`front` (a family's points, per seed), :func:`crossing` (the answer under each
figure, by the book's gain rule at each SGD point's seconds, :data:`CROSSING_RULE`), :func:`plot_fronts`
(the figure), and the opponents named for what they are (:func:`recipe_words`), each accuracy with its
test-set sampling error (:func:`sampling_error`, :func:`accuracy_text`) and the gain rule that accounts
for it (:func:`gain_with_sampling`).
"""

from __future__ import annotations

import datetime
import json
import math
import numbers
import time
from pathlib import Path
from typing import Callable, Mapping, Sequence

import numpy as np

from ..store.results import ROOT
from .frontier_opponents import RECIPES
from .frontier_protocol import (RUNS_DIR, Candidate, TestGate, TestSetAlreadyRead, _write_json_atomically,
                                build_model, configuration_key, protocol_data, seed_record_path)

#: the points of the fronts, declared before any run
BUDGET_PARAMS = Path(__file__).resolve().parents[2] / "params" / "frontier_budget.yml"
#: where the points' records and their gate's ledger are written
BUDGET_DIR = RUNS_DIR.parent / "frontier_budget"
#: the same points measured on a GPU (``--device cuda``), their records and their own gate's ledger
BUDGET_GPU_DIR = RUNS_DIR.parent / "frontier_budget_gpu"
#: the two families of points, and the settings each point declares
FAMILIES = {"one-shot": ("family", "pick_of", "n_train", "n_patches"), "sgd": ("family", "model", "epochs")}
#: the protocols a one-shot point may name as ``pick_of``: their records' folder under ``book/``
PICK_SOURCES = ("frontier_halving",)
#: each recipe's own schedule (:data:`~greenelm_book.chapters.fast_sgd.AIRBENCH94`'s ``train_epochs``,
#: :data:`~greenelm_book.chapters.fast_sgd.PYTORCH_MNIST_CNN`'s ``epochs``; a test holds them equal): an SGD
#: point at it is the opponent's ``"published"`` run (:mod:`~greenelm_book.chapters.frontier_opponents`),
#: measured once, there, and read from its record where it exists
OWN_EPOCHS = {"airbench94": 9.9, "pytorch-mnist-cnn": 14}
#: the least number of seeds a point is declared for (the gain rule needs 3)
MIN_SEEDS = 3
#: an outcome of the gain rule at one SGD point, in the crossing's words
OUTCOME_WORDS = {"gain": "the one-shot model is more accurate", "loss": "the recipe is more accurate",
                 "no gain shown": "neither is"}
#: how :func:`crossing` compares the fronts (the sentence under each figure)
CROSSING_RULE = ("at each gradient-trained point's training seconds, per seed, the one-shot front of the same seed, "
                 "measured on the same machine as that point (a seed whose points name two machines is left out), is read "
                 "by linear interpolation in log-seconds between its two neighbouring points (never extrapolated: "
                 "a gradient-trained point outside the one-shot front's seconds on any seed is not compared); the "
                 "one-shot accuracy there is paired with that point's by seed and judged by the book's gain rule "
                 "(a gain when the mean paired difference exceeds 2 sd of the paired differences, and, with the "
                 "test-set sampling error, 2 sampling errors of a difference; 3 seeds at least). With the "
                 "gradient-trained points in order of seconds, the one-shot model is said to be more accurate up to "
                 "the last gain of an unbroken run of gains from the first point, and the recipe from the first loss "
                 "of an unbroken run of losses to the last point; a second answer, on the CPU, reads each one-shot point's "
                 "seconds with its seed's choice of the pick (the protocol's rungs) added")


# ----------------------------------------------------------------------------- the declared points
def _positive_int_or_none(name: str, value, where: str):
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
        raise ValueError(f"{where}: {name} must be a positive integer or null, got {value!r}")
    return int(value)


def check_point(dataset: str, point: Mapping) -> dict:
    """One declared point checked: its family's settings exactly, a one-shot point's ``pick_of`` one of
    :data:`PICK_SOURCES` and sizes positive (or null: all rows, the pick's K), an SGD point's model the
    dataset's recipe (:data:`~greenelm_book.chapters.frontier_opponents.RECIPES`) and ``epochs`` > 0
    (whole epochs for the PyTorch examples' CNN). Returns it as a plain dict."""
    where = f"{dataset} point {dict(point)!r}"
    if not isinstance(point, Mapping) or point.get("family") not in FAMILIES:
        raise ValueError(f"{where}: family must be one of {sorted(FAMILIES)}")
    expected = set(FAMILIES[point["family"]])
    if set(point) != expected:
        raise ValueError(f"{where}: a {point['family']} point declares exactly {sorted(expected)}; "
                         f"missing {sorted(expected - set(point))}, unknown {sorted(set(point) - expected)}")
    point = dict(point)
    if point["family"] == "one-shot":
        if point["pick_of"] not in PICK_SOURCES:
            raise ValueError(f"{where}: pick_of must be one of {PICK_SOURCES}")
        for name in ("n_train", "n_patches"):
            point[name] = _positive_int_or_none(name, point[name], where)
    else:
        if dataset not in RECIPES or point["model"] != RECIPES[dataset]:
            raise ValueError(f"{where}: the SGD points of {dataset} train its opponent recipe "
                             f"{RECIPES.get(dataset)!r}, not {point['model']!r}")
        epochs = point["epochs"]
        if isinstance(epochs, bool) or not isinstance(epochs, numbers.Real) or not math.isfinite(epochs) or epochs <= 0:
            raise ValueError(f"{where}: epochs must be a finite number > 0, got {epochs!r}")
        if point["model"] == "pytorch-mnist-cnn" and float(epochs) != int(epochs):
            raise ValueError(f"{where}: the PyTorch examples' CNN trains whole epochs (its StepLR steps per "
                             f"epoch), got {epochs!r}")
    configuration_key(point)
    return point


def load_budget(path: str | Path | None = None) -> dict:
    """``params/frontier_budget.yml`` checked: {"seeds" [int] (>= :data:`MIN_SEEDS` distinct),
    "protocol_records" (Path), "datasets": {name: {"one_shot": [point], "sgd": [point]}}}; each point
    appears once per dataset and in the list of its family."""
    import yaml


    path = Path(path or BUDGET_PARAMS)
    data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    unknown = sorted(set(data) - {"seeds", "protocol_records", "datasets"})
    if unknown:
        raise ValueError(f"{path}: unknown key(s) {unknown}")
    seeds = data.get("seeds")
    if not isinstance(seeds, list) or len(set(seeds)) != len(seeds) or len(seeds) < MIN_SEEDS \
            or not all(isinstance(s, int) and not isinstance(s, bool) for s in seeds):
        raise ValueError(f"{path}: seeds must be a list of at least {MIN_SEEDS} distinct integers, got {seeds!r}")
    if not isinstance(data.get("protocol_records"), str):
        raise ValueError(f"{path}: protocol_records must name the new protocol's records folder")
    datasets = {}
    for name, spec in (data.get("datasets") or {}).items():
        if not isinstance(spec, Mapping) or set(spec) != {"one_shot", "sgd"}:
            raise ValueError(f"{path}: datasets.{name} must have exactly one_shot and sgd (lists of points)")
        lists = {}
        for key, family in (("one_shot", "one-shot"), ("sgd", "sgd")):
            points = [check_point(str(name), p) for p in (spec[key] or [])]
            if not points or any(p["family"] != family for p in points):
                raise ValueError(f"{path}: datasets.{name}.{key} must be a non-empty list of {family} points")
            lists[key] = points
        keys = [configuration_key(p) for p in lists["one_shot"] + lists["sgd"]]
        if len(set(keys)) != len(keys):
            raise ValueError(f"{path}: datasets.{name} declares a point twice")
        datasets[str(name)] = lists
    if not datasets:
        raise ValueError(f"{path}: no dataset declares a point")
    return {"seeds": seeds, "protocol_records": repo_path(data["protocol_records"]), "datasets": datasets}


def dataset_points(spec: Mapping, dataset: str) -> list[dict]:
    """The dataset's points in their declared order, one-shot first: the indices of ``--point``."""
    if dataset not in spec["datasets"]:
        raise KeyError(f"{dataset!r} declares no point (have {sorted(spec['datasets'])})")
    entry = spec["datasets"][dataset]
    return entry["one_shot"] + entry["sgd"]


def point_slug(point: Mapping) -> str:
    """A point's part of its record's file name: ``one-shot-n2500-k128``, ``one-shot-nall-kpick``,
    ``sgd-airbench94-e9.9``."""
    if point["family"] == "one-shot":
        n = "all" if point["n_train"] is None else int(point["n_train"])
        k = "pick" if point["n_patches"] is None else int(point["n_patches"])
        return f"one-shot-n{n}-k{k}"
    return f"sgd-{point['model']}-e{float(point['epochs']):g}"


def point_record_path(out_dir: str | Path, dataset: str, point: Mapping, seed: int) -> Path:
    return Path(out_dir) / f"{dataset}-{point_slug(point)}-seed{int(seed)}.json"


def point_label(point: Mapping) -> str:
    """A point in words for a figure or table: ``"N = 2,500, K ≤ 128"`` (K is capped at each seed's pick's
    own, :func:`one_shot_settings`, so a point's seeds may fit fewer filters than it declares),
    ``"N = all, K = the pick's"``, ``"4 epochs"``."""
    if point["family"] == "one-shot":
        n = "all" if point["n_train"] is None else f"{int(point['n_train']):,}"
        k = "= the pick's" if point["n_patches"] is None else f"≤ {int(point['n_patches']):,}"
        return f"N = {n}, K {k}"
    epochs = float(point["epochs"])
    return f"{epochs:g} epoch{'' if epochs == 1 else 's'}"


# ----------------------------------------------------------------------------- one point, one seed
def record_host(record: Mapping) -> str | None:
    """The machine a record says measured it, as one string ("Intel(R) Xeon(R) Processor, 2 cores"): a
    point's ``"machine"`` or a protocol's ``"host"`` (CPU model and usable cores); None when the record
    names neither (an opponent's run, a protocol record older than its ``"host"``). Two fronts are compared
    only where every point names the same one (:func:`one_host`)."""
    found = record.get("machine") or record.get("host")
    if not isinstance(found, Mapping) or not found.get("cpu") or not found.get("cores"):
        return None
    instance = f"{INSTANCE_MARK}{found['instance']}" if found.get("instance") else ""
    if found.get("gpu"):            # a GPU's point: the GPU first, then its host's CPU and cores
        return f"{found['gpu']} GPU on {found['cpu']}, {int(found['cores'])} cores{instance}"
    return f"{found['cpu']}, {int(found['cores'])} cores{instance}"


#: what a point's host names once its record carries the machine's instance (:func:`record_host`)
INSTANCE_MARK = ", instance "


def names_one_machine(host: str | None) -> bool:
    """Whether ``host`` (:func:`record_host`, the one host a seed's points share) identifies one machine: one
    with its instance (two virtual machines of one CPU model and core count ran the same points at different
    speeds, so a model and cores alone, or a GPU and its host's model, do not name one), or None (no point
    names any: test fronts, read as before)."""
    return host is None or INSTANCE_MARK in host


def shares_one_machine(hosts: set) -> bool:
    """Whether the hosts a seed's points name (:func:`hosts_by_seed`'s set) are one, and it names one machine
    (:func:`names_one_machine`)."""
    return len(hosts) == 1 and names_one_machine(next(iter(hosts)))


def one_host(fronts_of: Mapping) -> str | None:
    """The one machine every point of both fronts (every seed) was measured on, or None when they name
    more than one, or a point names none (each seed may still have its own: :func:`seed_hosts`)."""
    hosts = {host for entry in fronts_of["one_shot"] + fronts_of["sgd"] for host in entry.get("hosts", {None: None}).values()}
    return hosts.pop() if None not in hosts and shares_one_machine(hosts) else None


def hosts_by_seed(entries: Sequence[Mapping]) -> dict:
    """{seed: the set of machines the points ``entries`` (:func:`front_entry`) name for that seed}, None in a
    set for a point whose record names none; each seed with the points measured for it."""
    found: dict = {}
    for entry in entries:
        for seed in entry["seeds"]:
            found.setdefault(seed, set()).add(entry.get("hosts", {}).get(seed))
    return found


def seed_hosts(fronts_of: Mapping) -> dict:
    """{seed: the one machine every point of both fronts names for that seed}, None for a seed whose
    points name more than one machine, or where one names none: that seed's fronts are not read against
    each other (:func:`crossing` pairs a seed's SGD point with the same seed's one-shot front, so seconds
    are compared on one machine, the seed's)."""
    found = hosts_by_seed(fronts_of["one_shot"] + fronts_of["sgd"])
    return {seed: next(iter(hosts)) if shares_one_machine(hosts) else None for seed, hosts in sorted(found.items())}


def complete_seeds(fronts_of: Mapping) -> list[int]:
    """The seeds with every point of both fronts measured (wherever), sorted."""
    points = fronts_of["one_shot"] + fronts_of["sgd"]
    return sorted(seed for seed in hosts_by_seed(points) if all(seed in p["seconds"] for p in points))


def compared_seeds(fronts_of: Mapping) -> list[int]:
    """The seeds whose two fronts are read against each other: :func:`complete_seeds` whose points are all
    on one machine their records name (:func:`shares_one_machine`); sorted."""
    named = hosts_by_seed(fronts_of["one_shot"] + fronts_of["sgd"])
    # a seed whose points name no machine at all is not shown to be one machine's (its points may come from
    # records of different sessions): never compared, though synthetic fronts without hosts cross as one
    return [seed for seed in complete_seeds(fronts_of) if None not in named[seed] and shares_one_machine(named[seed])]


def restricted(fronts_of: Mapping, seeds: Sequence[int]) -> dict:
    """``fronts_of`` (:func:`fronts`) with each point's and the protocol marker's per-seed values kept for
    ``seeds`` only (a point with none of them is dropped), the fronts ordered again by mean seconds: what the
    answer and its figure read once some seeds are left out (:func:`compared_seeds`)."""
    keep = {int(s) for s in seeds}

    def cut(entry: Mapping) -> dict:
        out = {key: ({s: v for s, v in value.items() if s in keep} if key in SEED_KEYED else value)
               for key, value in entry.items()}
        if "seeds" in entry:
            out["seeds"] = sorted(s for s in entry["seeds"] if s in keep)
        return out

    fronts = {family: by_mean_seconds([e for e in map(cut, fronts_of[family]) if e["seeds"]])
              for family in ("one_shot", "sgd")}
    marker = fronts_of.get("marker")
    if marker is not None:
        marker = cut(marker)
        marker = marker if marker["seconds"] else None
    return {**fronts_of, **fronts, "marker": marker}


#: the halving protocol's results in the store: ``<dataset>/frontier-halving/<quantity>``
HALVING = "frontier-halving"

#: the keys of a front's point (:func:`front_entry`) and of the protocol's marker that map a seed to a value
SEED_KEYED = ("seconds", "selection", "accuracy", "hosts", "measured", "read_from", "loads")


def seeds_text(seeds: Sequence[int]) -> str:
    """``[0, 2, 3]`` as "seeds 0, 2 and 3" (one: "seed 0")."""
    from ..report import and_list

    return f"seed{'' if len(seeds) == 1 else 's'} {and_list(map(str, seeds))}"


def split_reason(hosts: set) -> str:
    """Why a seed whose points name the machines ``hosts`` (:func:`hosts_by_seed`'s set) is not compared, in
    words: "its points name two machines", "a point's record names no machine", "its records name a CPU's
    model and cores without the machine's instance" (those that apply, joined by "and"); "" when it shares one
    (:func:`shares_one_machine`)."""
    if None not in hosts and shares_one_machine(hosts):
        return ""
    named = hosts - {None}
    reasons = [] if named else ["no point's record names its machine"]
    if len(named) > 1:
        reasons.append(f"its points name {len(named)} machines")
    if None in hosts and named:
        reasons.append("a point's record names no machine")
    if any(not names_one_machine(host) for host in named):
        reasons.append("its records name a CPU's model and cores without the machine's instance")
    return ", and ".join(reasons)


def choice_cost_sentence(fronts_of: Mapping, judged: Mapping | None = None) -> str:
    """What the one-shot front's seconds leave out, from the compared seeds (:func:`compared_seeds`): choosing
    the pick (the protocol's rungs, mean over those seeds), set against the budgets the answer compares
    (``judged``: :func:`answer` of ``fronts_of``, computed when not given), beside the whole protocol's seconds
    (the star: the rungs, the refit and the scoring), and each of those seeds whose protocol record does not
    name the machine its points name; "" without a marker for those seeds (the GPU's fronts)."""
    compared = compared_seeds(fronts_of)
    marker = restricted(fronts_of, compared).get("marker")
    if not marker:
        return ""
    cost, whole = _mean(marker["selection"]), _mean(marker["seconds"])
    budgets = [c["seconds"] for c in (judged or answer(fronts_of))["comparisons"]]
    than = ("" if not budgets else
            ", longer than every budget compared" if cost > max(budgets) else
            ", shorter than every budget compared" if cost < min(budgets) else
            f", between the budgets compared ({min(budgets):,.0f} s to {max(budgets):,.0f} s)")
    protocol_host = marker.get("hosts") or {}
    elsewhere = [s for s in choice_elsewhere(fronts_of) if s in marker["seconds"]]
    unnamed = [s for s in elsewhere if not protocol_host.get(s)]
    caveat = ""
    if elsewhere:
        names = ("names no machine" if unnamed == elsewhere else
                 "names another machine than its points" if not unnamed else
                 "names no machine, or another than its points")
        caveat = (f" ({seeds_text(elsewhere).capitalize()}'s protocol record {names}: "
                  f"{'its' if len(elsewhere) == 1 else 'their'} seconds are in that mean as recorded.)")
    spread = list(marker["selection"].values())
    each = (f"; {min(spread):,.0f}–{max(spread):,.0f} s" if len(spread) > 1 and f"{min(spread):,.0f}" != f"{max(spread):,.0f}"
            else "")
    return (f"The one-shot seconds count each refit alone: choosing its pick (every rung of the halving protocol) "
            f"took a further {cost:,.0f} s per seed on the compared seeds (mean{each}){than}, and the whole protocol "
            f"(the star: the rungs, the refit on every training image and the scoring) {whole:,.0f} s (mean over "
            f"the same seeds); the recipe's "
            f"seconds likewise leave out how its published settings were found.{caveat}")


def failed_clause(fronts_of: Mapping) -> str:
    """The seeds with a point that failed after reading its test labels (``fronts_of["failed"]``:
    :func:`failed_points`), in words: "seed 4's point at 4 epochs read its test labels and its run ended before
    its record was written: a point's labels are read once, so seed 4 will not have every point measured";
    "" when none did."""
    from ..report import and_list

    failed = fronts_of.get("failed") or {}
    if not failed:
        return ""
    named = [f"seed {seed}'s point{'s' if len(labels) > 1 else ''} at {and_list(labels)}" for seed, labels in failed.items()]
    many = len(named) > 1 or any(len(labels) > 1 for labels in failed.values())
    return (f"{and_list(named)} read {'their' if many else 'its'} test labels and {'their runs' if many else 'its run'} "
            f"ended before {'their records were' if many else 'its record was'} written: a point's labels are read "
            f"once, so {seeds_text(list(failed))} will not have every point measured")


def machines_sentence(fronts_of: Mapping) -> str:
    """Where an answered dataset's points were measured, in words: the one machine, or each compared seed's
    (:func:`compared_seeds`); the seeds left out named with the reason."""
    hosts = seed_hosts(fronts_of)
    if not hosts:
        return ""
    kept = compared_seeds(fronts_of)
    if len(set(hosts.values())) == 1 and None not in hosts.values() and kept == sorted(hosts):
        return f"Every point was measured on one machine ({next(iter(hosts.values()))})."
    by_host: dict = {}
    for seed in kept:
        by_host.setdefault(hosts[seed], []).append(seed)
    parts = [f"{seeds_text(seeds)} on {host}" for host, seeds in by_host.items() if host is not None]
    if len(parts) > 1:
        said = (f"Each compared seed's points were measured on one machine, the seeds on {len(parts)} machines ("
                + "; ".join(parts) + "): seconds are compared within a seed, and the mean seconds shown average "
                "over machines.")
    elif parts:
        said = (f"{seeds_text(kept).capitalize()}, the compared seed{'' if len(kept) == 1 else 's'}, "
                f"{'was' if len(kept) == 1 else 'were'} measured whole on one machine ({next(iter(by_host))}).")
    else:
        said = ""
    failed = fronts_of.get("failed") or {}          # said once, as failed, whatever else keeps them out
    split = [s for s, host in hosts.items() if host is None and s not in failed]
    partial = [s for s, host in hosts.items() if host is not None and s not in kept and s not in failed]
    if split:
        named = hosts_by_seed(fronts_of["one_shot"] + fronts_of["sgd"])
        complete = set(complete_seeds(fronts_of))
        by_reason: dict[str, list] = {}           # seeds left out for one reason are named together
        for seed in split:
            missing = "" if seed in complete else ", and not every point is measured"
            by_reason.setdefault(split_reason(named[seed]) + missing, []).append(seed)
        reasons = ([("each: " if len(split) > 1 else "") + next(iter(by_reason))] if len(by_reason) == 1 else
                   [f"{seeds_text(seeds)}{', each' if len(seeds) > 1 else ''}: {reason}"
                    for reason, seeds in by_reason.items()])
        said += ((" " if said else "") + f"The points of {seeds_text(split)} do not name one machine ("
                 + "; ".join(reasons) + "): "
                 f"{'that seed is' if len(split) == 1 else 'those seeds are'} not compared"
                 + (", nor shown in the figure." if kept else "."))
    if partial:
        said += ((" " if said else "") + f"{seeds_text(partial).capitalize()} {'has' if len(partial) == 1 else 'have'} "
                 "not every point measured yet: not compared" + (", nor shown in the figure." if kept else "."))
    if failed:
        clause = failed_clause(fronts_of)
        said += (" " if said else "") + f"{clause[:1].upper()}{clause[1:]}, and {'is' if len(failed) == 1 else 'are'} " \
            "not compared" + (", nor shown in the figure." if kept else ".")
    return said


def protocol_pick(records_dir: str | Path, dataset: str, seed: int) -> dict:
    """The new protocol's record of ``dataset`` and ``seed``: {"pick" (its settings), "seconds" (the whole
    protocol's), "selection_seconds" (its rungs': choosing the pick, before the refit), "test_accuracy", "n_test",
    "host" (:func:`record_host`, None when the record names no machine)}; FileNotFoundError naming the record when
    that seed has not run."""
    path = seed_record_path(records_dir, dataset, seed)
    if not path.is_file():
        raise FileNotFoundError(f"{path}: the new protocol of {dataset}, seed {seed} has no record yet; a one-shot "
                                "point refits that seed's pick, so run the protocol first "
                                "(python -m greenelm_book.chapters.frontier_halving)")
    record = json.loads(path.read_text(encoding="utf-8"))
    return {"pick": dict(record["pick"]), "seconds": float(record["seconds"]["total"]),
            "selection_seconds": float(record["seconds"]["selection"]),
            "test_accuracy": float(record["test_accuracy"]), "n_test": int(record["n_test"]),
            "host": record_host(record), "started_load": (record.get("load_average") or {}).get("started")}


def one_shot_settings(point: Mapping, pick: Mapping) -> dict:
    """The candidate a one-shot point fits: the pick with ``n_patches`` set to the point's K, capped at the
    pick's own (null: the pick's)."""
    settings = dict(pick)
    if point["n_patches"] is not None:
        settings["n_patches"] = min(int(point["n_patches"]), int(pick["n_patches"]))
    return settings


def training_rows(n_rows: int, n_train: int | None, seed: int) -> np.ndarray:
    """The first ``n_train`` of seed ``seed``'s permutation of ``n_rows`` rows, sorted (all rows for None);
    ValueError when more are asked for than there are."""
    if n_train is None:
        return np.arange(n_rows)
    if n_train > n_rows:
        raise ValueError(f"the point asks for {n_train:,} training rows; the training set has {n_rows:,}")
    return np.sort(np.random.default_rng(int(seed)).permutation(n_rows)[:n_train])


def opponent_point(dataset: str, point: Mapping, seed: int, opponents_dir: str | Path | None = None) -> dict | None:
    """An SGD point at its recipe's own schedule (:data:`OWN_EPOCHS`) already measured as the opponent's
    ``"published"`` run of ``seed``: that record as a point's record ({"dataset", "seed", "point",
    "seconds", "test_accuracy", "n_test", "sampling_error", "measured_by" (its path)}); None for any
    other point, or when that run has no record. ``opponents_dir``: the opponents' records (default
    :data:`~greenelm_book.chapters.frontier_protocol.RUNS_DIR`)."""
    from .frontier_opponents import opponent_record_path

    if point["family"] != "sgd" or float(point["epochs"]) != OWN_EPOCHS[point["model"]]:
        return None
    path = opponent_record_path(opponents_dir or RUNS_DIR, dataset, "published", seed)
    if not path.is_file():
        return None
    record = json.loads(path.read_text(encoding="utf-8"))
    if record.get("subset") is not None or float(record["epochs"]) != float(point["epochs"]):
        raise ValueError(f"{path}: not the recipe's own schedule on all images (subset {record.get('subset')}, "
                         f"{record['epochs']} epochs); the point at {point['epochs']} epochs cannot read it")
    return {"dataset": dataset, "seed": int(seed), "point": dict(point), "seconds": float(record["seconds"]),
            "test_accuracy": float(record["accuracy"]), "n_test": int(record["n_test"]),
            "sampling_error": sampling_error(float(record["accuracy"]), int(record["n_test"])),
            "measured_by": str(path), "machine": record.get("machine") or record.get("host"),
            "started_at": record.get("started_at") or _read_day(record)}


def _read_day(record: Mapping) -> str:
    """The time stamp of a record's first test read (``test_reads[0]["at"]``), "" when it has none: when a
    record that names no start was measured (its one read follows its training)."""
    reads = record.get("test_reads") or []
    return str(reads[0].get("at", "")) if reads and isinstance(reads[0], Mapping) else ""


def pick_refit_point(dataset: str, point: Mapping, seed: int, records_dir: str | Path) -> dict | None:
    """A one-shot point that fits the pick itself on every training row (no ``n_train``, and a K that leaves
    the pick's own: :func:`one_shot_settings` equal to the pick) is the protocol's own refit of ``seed``,
    measured once, there (the same build, fit and scoring through the gate, timed alone within the
    protocol's run): that record's refit as a point's record ({"dataset", "seed", "point", "settings",
    "seconds" (the refit's), "scoring_seconds", "test_accuracy", "n_test", "sampling_error",
    "measured_by" (its path), "machine" (its host, for :func:`record_host`)}); None for any other point, or
    when that seed's protocol has no record."""
    if point["family"] != "one-shot" or point["n_train"] is not None:
        return None
    path = seed_record_path(records_dir, dataset, seed)
    if not path.is_file():
        return None
    record = json.loads(path.read_text(encoding="utf-8"))
    if one_shot_settings(point, record["pick"]) != dict(record["pick"]):
        return None
    if record.get("subset") is not None:
        raise ValueError(f"{path}: the protocol ran on a subset ({record['subset']} rows); the point on all "
                         "training rows cannot read its refit")
    seconds = record["seconds"]
    return {"dataset": dataset, "seed": int(seed), "point": dict(point), "settings": dict(record["pick"]),
            "seconds": float(seconds["refit"]), "scoring_seconds": float(seconds["scoring"]),
            "test_accuracy": float(record["test_accuracy"]), "n_test": int(record["n_test"]),
            "sampling_error": sampling_error(float(record["test_accuracy"]), int(record["n_test"])),
            "measured_by": str(path), "machine": record.get("machine") or record.get("host"),
            "started_at": _read_day(record)}


def measured_elsewhere(dataset: str, point: Mapping, seed: int, records_dir: str | Path,
                       opponents_dir: str | Path | None = None) -> dict | None:
    """A point already measured by another run, as a point's record: the SGD opponent's published run
    (:func:`opponent_point`) or the protocol's own refit (:func:`pick_refit_point`); None when neither."""
    return (opponent_point(dataset, point, seed, opponents_dir)
            or pick_refit_point(dataset, point, seed, records_dir))


def _recipe_trainer(model: str) -> Callable:
    from . import fast_sgd

    return {"airbench94": fast_sgd.train_airbench, "pytorch-mnist-cnn": fast_sgd.train_small_cnn}[model]


def _sync(device) -> None:
    """Wait for a CUDA device's queued work (its seconds end when the work does); nothing otherwise."""
    if device is not None and str(device).startswith("cuda"):
        import torch

        torch.cuda.synchronize(torch.device(device))


def warm_up(device) -> None:
    """Start a CUDA device's libraries before the first timed point (the context, cuBLAS, cuSOLVER, cuDNN:
    a second or more once per process, which would land in whichever point ran first): one small product,
    factorisation and convolution; nothing for the CPU."""
    if device is None or not str(device).startswith("cuda"):
        return
    import torch

    a = torch.randn(256, 256, device=device)
    torch.linalg.cholesky_ex(a @ a.T + 256 * torch.eye(256, device=device))
    torch.nn.functional.conv2d(torch.randn(8, 1, 28, 28, device=device), torch.randn(4, 1, 3, 3, device=device))
    _sync(device)


def _refuse_second_read(gate: TestGate, dataset: str, seed: int, point: Mapping, path: Path) -> None:
    key = configuration_key(point)
    earlier = [r for r in gate.reads(dataset, int(seed)) if r["key"] == key]
    if earlier:
        raise TestSetAlreadyRead(
            f"{dataset}, seed {seed}: the point {key} read the test labels already (at {earlier[0]['at']}) and "
            f"{path} holds no record of it: a point's test labels are read once, so a run that failed after "
            "its read is reported as failed, not run again")


def run_point(dataset: str, index: int, seed: int, *, out_dir: str | Path = BUDGET_DIR,
              params: str | Path | None = None, records_dir: str | Path | None = None, subset: int | None = None,
              build: Callable = build_model, train: Callable | None = None,
              opponents_dir: str | Path | None = None, device=None, log: Callable[[str], None] = print) -> Path:
    """Run the ``index``-th declared point of ``dataset`` (:func:`dataset_points`) for ``seed`` and write its
    record, ``out_dir/<dataset>-<slug>-seed<seed>.json``; returns its path (skipped when it exists). An
    point measured by another run on this machine (:func:`measured_elsewhere`: an SGD point at its recipe's
    own schedule whose opponent run is recorded in ``opponents_dir``, the pick's own refit recorded by the
    protocol; its record naming this machine, :func:`record_host`) is not measured again: that record's path
    is returned. One measured on another machine, or on one its record does not name, is measured here.

    One-shot: ``build(candidate, image_shape, seed)`` (the protocol's :func:`build_model`) fitted on the
    point's training rows (timed: the training seconds), then scored through the gate. SGD: the test
    labels released through the gate, then ``train(X_train, y_train, X_test, y_test, seed=, epochs=)``
    (default the recipe's trainer; its ``seconds`` are the training seconds). ``subset``: the first N rows
    of each split (a check, not a measurement). The record: dataset, seed, point (as declared), settings
    (what was fitted), n_train, n_test, seconds (training), scoring_seconds, test_accuracy (%),
    sampling_error (points), started_at, wall_seconds, load_average {"started", "finished"}, peak_memory_gb
    (the process's peak resident memory over the point), machine (:func:`~greenelm_book.bench.chapter_machine`:
    CPU, usable cores), test_reads,
    and per family the pick and the protocol's seconds, or the trainer's own record. ``device``: a torch
    device (``"cuda"``) both families run on (the one-shot model's kernel and feature map, the SGD
    recipe's training), recorded in ``machine`` (its ``"gpu"``); None: the CPU, as the recipes' defaults."""
    from ..bench import chapter_machine, load_average, machine_instance, peak_rss_bytes, reset_peak_rss
    from .frontier_features import IMAGE_SHAPES

    spec = load_budget(params)
    points = dataset_points(spec, dataset)
    if isinstance(index, bool) or not isinstance(index, numbers.Integral) or not 0 <= index < len(points):
        raise ValueError(f"{dataset} declares points 0..{len(points) - 1}, got --point {index!r}")
    if int(seed) not in spec["seeds"]:
        raise ValueError(f"seed {seed} is not one of the declared seeds {spec['seeds']}")
    point = points[index]
    path = point_record_path(out_dir, dataset, point, seed)
    if path.exists():
        log(f"{dataset}, {point_slug(point)}, seed {seed}: recorded already ({path}), skipped")
        return path
    measured = measured_elsewhere(dataset, point, seed, records_dir or spec["protocol_records"], opponents_dir)
    machine = {**chapter_machine(device), "instance": machine_instance()}      # this point's machine, whole
    here = record_host({"machine": machine})
    if measured is not None and record_host(measured) == here:
        log(f"{dataset}, {point_slug(point)}, seed {seed}: measured already on this machine "
            f"({measured['measured_by']}), read there, skipped")
        return Path(measured["measured_by"])
    if measured is not None:           # another machine's, or one its record does not name: measured here
        log(f"{dataset}, {point_slug(point)}, seed {seed}: {measured['measured_by']} was measured on "
            f"{record_host(measured) or 'a machine its record does not name'}, not this one ({here}): measured here")
    pick = None
    if point["family"] == "one-shot":        # before any data is loaded: refused without the pick's record
        pick = protocol_pick(records_dir or spec["protocol_records"], dataset, seed)
    X_train, y_train, X_test, y_test = protocol_data(dataset, subset)
    fixed = {dataset: points}
    gate = TestGate({dataset: y_test}, fixed=fixed, ledger=Path(out_dir) / "test-reads.json")
    del y_test
    gate._check(dataset, int(seed), point, "fixed")              # refused here unless declared
    _refuse_second_read(gate, dataset, seed, point, path)
    started = datetime.datetime.now(datetime.timezone.utc)
    reset_peak_rss()
    load_started = load_average()
    clock = time.perf_counter()
    record = {"dataset": dataset, "seed": int(seed), "point": point, "subset": subset}
    on_device = {} if device is None else {"device": device}      # builders and trainers without one keep working
    if pick is not None:
        settings = one_shot_settings(point, pick["pick"])
        rows = training_rows(len(y_train), point["n_train"], seed)
        began = time.perf_counter()
        model = build(Candidate.from_dict(settings), tuple(IMAGE_SHAPES[dataset][0]), int(seed), **on_device)
        _sync(device)
        model.fit(X_train[rows], y_train[rows])
        _sync(device)
        seconds = time.perf_counter() - began
        began = time.perf_counter()
        accuracy = gate.score(dataset, int(seed), point, np.asarray(model.predict(X_test)), kind="fixed")
        record.update(settings=settings, n_train=int(len(rows)), seconds=seconds,
                      scoring_seconds=time.perf_counter() - began, test_accuracy=accuracy,
                      protocol={"pick": pick["pick"], "seconds": pick["seconds"]})
    else:
        labels = gate.release(dataset, int(seed), point, kind="fixed")
        result = (train or _recipe_trainer(point["model"]))(X_train, y_train, X_test, labels, seed=int(seed),
                                                             epochs=point["epochs"], **on_device)
        result = {k: v for k, v in result.items() if k != "model"}
        record.update(settings={"model": point["model"], "epochs": point["epochs"]}, n_train=int(len(y_train)),
                      seconds=float(result["seconds"]), scoring_seconds=result.get("eval_seconds"),
                      test_accuracy=float(result["accuracy"]), trainer=result)
    n_test = len(X_test)
    record.update(n_test=n_test, sampling_error=sampling_error(record["test_accuracy"], n_test),
                  started_at=started.isoformat(timespec="seconds"), wall_seconds=time.perf_counter() - clock,
                  load_average={"started": load_started, "finished": load_average()},
                  peak_memory_gb=peak_rss_bytes() / 1e9, machine=machine, device=device,
                  test_reads=gate.reads(dataset, int(seed)))
    _write_json_atomically(path, json.loads(json.dumps(record, allow_nan=False)))
    log(f"{dataset}, {point_slug(point)}, seed {seed}: test {record['test_accuracy']:.2f} %, "
        f"{record['seconds']:.0f} s of training -> {path}")
    return path


# ----------------------------------------------------------------------------- the test-set sampling error
def sampling_error(accuracy: float, n_test: int) -> float:
    """The test-set sampling error of an accuracy (%), in points: 100·√(p(1 − p)/M), p = accuracy/100, M test
    images (the binomial standard error: what another test set of M images from the same distribution
    would move it by, one sd)."""
    if isinstance(n_test, bool) or not isinstance(n_test, numbers.Integral) or n_test < 1:
        raise ValueError(f"n_test must be a positive integer, got {n_test!r}")
    if not 0 <= float(accuracy) <= 100:
        raise ValueError(f"an accuracy is a percentage in [0, 100], got {accuracy!r}")
    p = float(accuracy) / 100
    return 100 * math.sqrt(p * (1 - p) / int(n_test))


def accuracy_text(values, n_test: int, digits: int = 2) -> str:
    """An accuracy as the page shows it, the spread over seeds beside the test-set sampling error:
    ``"99.56 % ± 0.01 over 3 seeds, ± 0.07 test-set sampling error (10,000 images)"``."""
    values = [float(v) for v in np.ravel(values)]
    if not values:
        raise ValueError("accuracy_text needs at least one value")
    mean = float(np.mean(values))
    spread = (f" ± {float(np.std(values, ddof=1)):.{digits}f} over {len(values)} seeds" if len(values) > 1
              else " (one seed)")
    return (f"{mean:.{digits}f} %{spread}, ± {sampling_error(mean, n_test):.{digits}f} test-set sampling error "
            f"({int(n_test):,} images)")


def accuracy_cell(values, n_test: int, digits: int = 2) -> str:
    """An accuracy as a table cell, the spread over runs and the test-set sampling error (:func:`sampling_error`)
    of their mean: ``"99.56 ± 0.01 (n = 3), ± 0.07 sampling"``."""
    from ..report import ours_text

    values = [float(v) for v in np.ravel(values)]
    if not values:
        raise ValueError("accuracy_cell needs at least one value")
    return f"{ours_text(values, '', digits)}, ± {sampling_error(float(np.mean(values)), n_test):.{digits}f} sampling"


def difference_sampling_error(a: float, b: float, n_test: int) -> float:
    """The sampling error of a difference of two accuracies (%) each measured on M test images, in points:
    √(se(a)² + se(b)²) (the two treated as independent: for two models scored on the same images the
    correlation of their errors makes it smaller, so this bar errs on the side of "no gain shown")."""
    return math.hypot(sampling_error(a, n_test), sampling_error(b, n_test))


def gain_with_sampling(a, b, n_test: int, names: tuple[str, str] = ("A", "B"), digits: int = 2, explain: bool = True):
    """The book's gain rule with the test-set sampling error (:func:`~greenelm_book.judging.verdicts.gain_over`):
    B gains over A when the mean paired difference (per seed, ``b − a``, n >= 3) exceeds the larger of
    2 sd of the paired differences and 2 sampling errors of a difference of the two mean accuracies on
    ``n_test`` images (:func:`difference_sampling_error`); a loss below minus that; else no gain shown.
    Returns the rule's :class:`~greenelm_book.report.Verdict` (its detail names the floor, unless ``explain`` is
    False: then only the bar's value)."""
    from ..judging.verdicts import gain_over

    a, b = [float(v) for v in np.ravel(a)], [float(v) for v in np.ravel(b)]
    floor = 2 * difference_sampling_error(float(np.mean(a)), float(np.mean(b)), n_test)
    return gain_over(a, b, names=names, floor=floor, digits=digits, explain=explain,
                     floor_words=f"2 sampling errors of a difference of two accuracies on {n_test:,} test images")


#: each opponent recipe in a few words (its whole description: :func:`recipe_words`)
RECIPE_WORDS = {"pytorch-mnist-cnn": "the PyTorch examples' MNIST CNN", "airbench94": "Jordan's airbench94"}


def repo_path(path: str | Path) -> Path:
    """``path`` as given when absolute, else under the repository's root (``store.results.ROOT``): a
    relative path of the chapter's parameters is read from there, whatever the kernel's working
    directory (the runner's is the root; nbval runs a smoke reference from its folder)."""
    path = Path(path)
    return path if path.is_absolute() else ROOT / path


# ----------------------------------------------------------------------------- the opponents in words
#: each opponent recipe's optimiser, in a few words (its whole description: :func:`recipe_words`)
OPTIMIZER_WORDS = {"airbench94": "SGD, Nesterov momentum", "pytorch-mnist-cnn": "Adadelta"}
#: the dataset each opponent recipe was published for; on any other it runs untuned (:func:`untuned_words`)
RECIPE_HOME = {"airbench94": "cifar10", "pytorch-mnist-cnn": "mnist"}


def untuned_words(model: str, dataset: str, *, as_published: bool = False) -> str:
    """"" when ``model``'s recipe was published for ``dataset``, else "the MNIST recipe, not tuned for
    Fashion-MNIST" ("the MNIST recipe as published, not tuned for …" with ``as_published``): what a
    sentence naming the opponent on that dataset must add."""
    from ..paper import DATASET_NAMES

    own = RECIPE_HOME[model]
    if dataset == own:
        return ""
    return (f"the {DATASET_NAMES.get(own, own)} recipe{' as published' if as_published else ''}, not tuned for "
            f"{DATASET_NAMES.get(dataset, dataset)}")


def recipe_words(model: str, dataset: str, recipe=None) -> str:
    """An opponent named for what it is, its optimiser and schedule read from its recipe
    (:mod:`greenelm_book.chapters.fast_sgd`'s :data:`~greenelm_book.chapters.fast_sgd.AIRBENCH94` or
    :data:`~greenelm_book.chapters.fast_sgd.PYTORCH_MNIST_CNN`, or ``recipe``); on a dataset other than
    the recipe's own it is said to be that recipe, not tuned for it."""
    from . import fast_sgd

    if model == "airbench94":
        r = recipe or fast_sgd.AIRBENCH94
        augmentation = [("alternating flips" if r.alternating_flip else "random flips") if r.flip else "",
                        f"{r.translate}-pixel translations" if r.translate else ""]
        augmentation = " and ".join(a for a in augmentation if a) or "no augmentation"
        words = (f"Jordan's airbench94: SGD with Nesterov momentum {r.momentum:g} on label-smoothed "
                 f"({r.label_smoothing:g}) cross-entropy, batches of {r.batch_size:,}, the learning rate rising "
                 f"linearly from {r.lr_start:g}× to its peak over the first {100 * r.lr_peak:g} % of the steps "
                 f"then falling linearly to {r.lr_end:g}×, lookahead weight averaging every {r.lookahead_every} "
                 f"steps, {r.train_epochs:g} epochs with {augmentation}")
    elif model == "pytorch-mnist-cnn":
        r = recipe or fast_sgd.PYTORCH_MNIST_CNN
        words = (f"the PyTorch examples' MNIST CNN, trained with Adadelta (learning rate {r.lr:g}; a gradient method "
                 f"with per-weight adaptive steps, not plain SGD), its learning rate multiplied by {r.gamma:g} after "
                 f"each epoch (step decay, StepLR), batches of {r.batch_size}, {r.epochs} epochs")
    else:
        raise ValueError(f"no recipe {model!r}: have airbench94, pytorch-mnist-cnn")
    untuned = untuned_words(model, dataset, as_published=True)
    if untuned:
        from ..paper import DATASET_NAMES

        words += f"; on {DATASET_NAMES.get(dataset, dataset)} it is {untuned} (no published recipe for it is used)"
    return words


# ----------------------------------------------------------------------------- the fronts
def load_points(dataset: str, out_dir: str | Path = BUDGET_DIR) -> list[dict]:
    """The committed point records of ``dataset`` (any order)."""
    out = []
    for path in sorted(Path(out_dir).glob("*-seed*.json")):
        record = json.loads(path.read_text(encoding="utf-8"))
        if isinstance(record, dict) and record.get("dataset") == dataset and "point" in record:
            out.append(record)
    return out


def front_entry(point: Mapping, label: str, n_test: int, seconds: Mapping | None = None,
                accuracy: Mapping | None = None, hosts: Mapping | None = None, measured: Mapping | None = None) -> dict:
    """One point of a front as :func:`front` and :func:`fronts_from_results` give it: {"point", "label",
    "seeds" (the seeds of ``seconds``, sorted), "seconds" {seed: s}, "accuracy" {seed: %}, "hosts" {seed:
    host}, "measured" {seed: when its record says it ran, "" where it does not}, "n_test"}."""
    seconds = {int(k): float(v) for k, v in (seconds or {}).items()}
    return {"point": dict(point), "label": label, "seeds": sorted(seconds), "seconds": seconds,
            "accuracy": {int(k): float(v) for k, v in (accuracy or {}).items()}, "hosts": dict(hosts or {}),
            "measured": {int(k): str(v) for k, v in (measured or {}).items()}, "n_test": int(n_test)}


def by_mean_seconds(entries: Sequence[Mapping]) -> list:
    """``entries`` (:func:`front_entry`) ordered by their mean training seconds over seeds."""
    return sorted(entries, key=lambda entry: _mean(entry["seconds"]))


def front(records: Sequence[Mapping], family: str) -> list[dict]:
    """A family's points from their records, ordered by mean training seconds: [{"point", "label",
    "seeds" [int], "seconds" {seed: s}, "accuracy" {seed: %}, "hosts" {seed: :func:`record_host`}, "n_test"}];
    a (point, seed) recorded twice is a ValueError."""
    if family not in FAMILIES:
        raise ValueError(f"family must be one of {sorted(FAMILIES)}, got {family!r}")
    points: dict[str, dict] = {}
    for record in records:
        if record["point"]["family"] != family:
            continue
        key = configuration_key(record["point"])
        entry = points.setdefault(key, front_entry(record["point"], point_label(record["point"]), record["n_test"]))
        seed = int(record["seed"])
        if seed in entry["seconds"]:
            raise ValueError(f"{key}: seed {seed} recorded twice")
        entry["seconds"][seed], entry["accuracy"][seed] = float(record["seconds"]), float(record["test_accuracy"])
        entry["hosts"][seed] = record_host(record)
        entry["measured"][seed] = str(record.get("started_at") or "")
        if record.get("measured_by"):       # read from another run's record (measured_elsewhere)
            entry.setdefault("read_from", {})[seed] = str(record["measured_by"])
        if (record.get("load_average") or {}).get("started"):       # the 1-, 5-, 15-minute loads at its start
            entry.setdefault("loads", {})[seed] = list(record["load_average"]["started"])
        entry["seeds"] = sorted(entry["seconds"])
    return by_mean_seconds(points.values())


def _mean(values: Mapping) -> float:
    return float(np.mean(list(values.values())))


def _seconds_text(seconds: float) -> str:
    return f"{seconds:,.0f} s" if seconds >= 10 else f"{seconds:.1f} s"


def _budgets_text(seconds: Sequence[float]) -> str:
    """Budgets in order, as a range: "from 190 s to 665 s" (one: "at 611 s")."""
    return (f"from {_seconds_text(seconds[0])} to {_seconds_text(seconds[-1])}" if len(seconds) > 1
            else f"at {_seconds_text(seconds[0])}")


def crossing(one_shot: Sequence[Mapping], sgd: Sequence[Mapping], n_test: int | None = None,
             names: tuple[str, str] = ("SGD", "the one-shot model"), choice_counted: bool = False) -> dict:
    """The answer under a figure, by :data:`CROSSING_RULE`: ``one_shot``, ``sgd``: :func:`front` of each
    family; ``n_test``: the test images, when the rule is to account for their sampling error
    (:func:`gain_with_sampling`; without it :func:`~greenelm_book.judging.verdicts.gain_over`). A seed is
    compared at an SGD point only where that point and every one-shot point name one machine for it (their
    ``"hosts"``, :func:`names_one_machine`; none recorded anywhere counts as one).

    Returns {"comparisons" [{"label", "seconds" (mean), "seeds", "outcome" ("gain": the one-shot model
    more accurate, "loss": SGD more accurate, "no gain shown"), "verdict"}], "outside" [labels of SGD
    points outside the one-shot front's seconds], "other_machine" [labels of SGD points no seed of which
    shares a machine with its one-shot front], "one_shot_up_to" (seconds or None), "sgd_from" (seconds or
    None), "sentence"}."""
    from ..judging.verdicts import GAIN_LABELS, gain_over

    words = {label: word for word, label in GAIN_LABELS.items()}
    comparisons, outside, elsewhere = [], [], []
    for point in sgd:
        paired = [s for s in point["seeds"] if all(s in p["seconds"] for p in one_shot)]
        named = hosts_by_seed([point, *one_shot])
        seeds = [s for s in paired if shares_one_machine(named[s])]
        if paired and not seeds:
            elsewhere.append(point)
            continue
        interpolated = []
        for seed in seeds:
            xs = np.log([p["seconds"][seed] for p in one_shot])
            ys = np.array([p["accuracy"][seed] for p in one_shot])
            order = np.argsort(xs)
            x = math.log(point["seconds"][seed])
            if len(xs) < 2 or not xs[order][0] <= x <= xs[order][-1]:
                break
            interpolated.append(float(np.interp(x, xs[order], ys[order])))
        if not seeds or len(interpolated) != len(seeds):
            outside.append(point)
            continue
        theirs = [point["accuracy"][s] for s in seeds]
        verdict = (gain_with_sampling(theirs, interpolated, n_test, names=names) if n_test is not None
                   else gain_over(theirs, interpolated, names=names))
        comparisons.append({"label": point["label"], "seconds": _mean(point["seconds"]), "seeds": seeds,
                            "outcome": words[verdict.label], "verdict": verdict})
    outcomes = [c["outcome"] for c in comparisons]
    lead = next((i for i, o in enumerate(outcomes) if o != "gain"), len(outcomes))
    trail = next((i for i, o in enumerate(reversed(outcomes)) if o != "loss"), len(outcomes))
    up_to = comparisons[lead - 1]["seconds"] if lead else None
    sgd_from = comparisons[len(outcomes) - trail]["seconds"] if trail else None
    between = comparisons[lead:len(outcomes) - trail]
    result = {"comparisons": comparisons, "outside": [p["label"] for p in outside],
              "other_machine": [p["label"] for p in elsewhere], "one_shot_up_to": up_to,
              "sgd_from": sgd_from, "rule": CROSSING_RULE, "sampling_error": n_test is not None,
              # the budgets between the two ranges, and whether they show no gain either way (the fronts then
              # divide into a one-shot range below a recipe range; otherwise they cross back and forth)
              "between": [c["seconds"] for c in between],
              "divides": all(c["outcome"] == "no gain shown" for c in between)}
    result["sentence"] = crossing_sentence(result, one_shot, outside)
    # the summaries' form: without the points left out, and without how the budgets are compared (COMPARED_AT),
    # which the summary says once before every dataset's answer
    result["brief"] = crossing_sentence(result, one_shot, (), how=False)
    if choice_counted:      # the page's second answer, after the first has said how: the points left out kept
        result["sentence_how_free"] = crossing_sentence(result, one_shot, outside, how=False, choice_counted=True)
    if elsewhere:
        from ..report import and_list
        result["sentence"] += (f" The recipe's {'point' if len(elsewhere) == 1 else 'points'} at "
                               f"{and_list([p['label'] for p in elsewhere])} {'is' if len(elsewhere) == 1 else 'are'} "
                               f"not compared: no seed measured {'that point' if len(elsewhere) == 1 else 'those points'} "
                               "and the one-shot front "
                               "on one machine.")
    return result


#: how the fronts are compared, in the words of every answer (:func:`crossing_sentence`) and of the summaries
#: that quote several answers after saying it once
COMPARED_AT = ("at the recipe's training seconds on each seed's machine (the one-shot front interpolated there; "
               "seconds are means over the compared seeds), by the book's gain rule")


def _span_text(seconds: Sequence[float]) -> str:
    """Budgets in order as a short range, for a clause in a list: "42–611 s" (one: "611 s")."""
    if len(seconds) == 1:
        return _seconds_text(seconds[0])
    return f"{_seconds_text(seconds[0]).removesuffix(' s')}–{_seconds_text(seconds[-1])}"


def uniform_outcome(result: Mapping) -> str | None:
    """The one outcome ("gain", "loss" or "no gain shown") of every comparison in :func:`crossing`'s
    ``result``; None where they differ or none was made."""
    outcomes = {c["outcome"] for c in result["comparisons"]}
    return outcomes.pop() if len(outcomes) == 1 else None


#: the words of a uniform answer (:func:`uniform_outcome`): before its budgets, and beside them inside their
#: parentheses
_UNIFORM_WORDS = {"gain": ("at every budget compared", ""),
                  "loss": ("at no budget compared", "; the recipe more accurate at each"),
                  "no gain shown": ("at no budget compared", "; no gain shown either way")}



def _group_words(outcome: str) -> str:
    """Where every answer is uniform, the words that name the datasets of one outcome together
    (:func:`budget_clauses`), from :data:`_UNIFORM_WORDS`: "at every budget compared on", "no gain shown either
    way on", "the recipe more accurate at each on"."""
    lead, beside = _UNIFORM_WORDS[outcome]
    return f"{beside.removeprefix('; ') or lead} on"


def budget_clause(name: str, result: Mapping) -> str:
    """Where, on dataset ``name``, the one-shot model is more accurate than the recipe by :func:`crossing`'s
    ``result``, as one clause of a list, everything past the one-shot model's range inside parentheses: "on MNIST
    at every budget compared (42–611 s)", "on Fashion-MNIST up to 92 s (no gain shown either way at 190–665 s)",
    "on CIFAR-10 at 303 s (the recipe at 584 s)" (a range of one compared budget said as that budget), "on
    CIFAR-10 at no budget compared (250 s; the recipe more accurate at each)"; "" when nothing was compared."""
    comparisons = result["comparisons"]
    if not comparisons:
        return ""
    span = _span_text([c["seconds"] for c in comparisons])
    uniform = uniform_outcome(result)
    if uniform is not None:
        lead, beside = _UNIFORM_WORDS[uniform]
        return f"on {name} {lead} ({span}{beside})"
    if not result["divides"]:
        return f"on {name} in no one range of the budgets compared ({span}): the fronts cross back and forth"
    up_to, sgd_from, between = result["one_shot_up_to"], result["sgd_from"], result["between"]
    first, last = comparisons[0]["seconds"], comparisons[-1]["seconds"]
    # a range of one compared budget is said as that budget ("at 303 s"), never as a range past it
    recipe = ([] if sgd_from is None else [f"the recipe at {_seconds_text(sgd_from)}"] if sgd_from == last else
              [f"the recipe from {_seconds_text(sgd_from)} on"])
    rest = ([f"no gain shown either way at {_span_text(between)}"] if between else []) + recipe
    lead = ("at no budget compared" if up_to is None else
            f"at {_seconds_text(up_to)}" if up_to == first else f"up to {_seconds_text(up_to)}")
    return f"on {name} {lead}" + (f" ({'; '.join(rest)})" if rest else "")


def budget_clauses(answers: Sequence[tuple[str, Mapping]]) -> str:
    """:func:`budget_clause` of each (dataset name, :func:`crossing`'s result) as one list; where every answer is
    uniform (one outcome at every budget), the datasets of one outcome are named together, each with its
    budgets: "at no budget compared: no gain shown either way on MNIST (611 s) and Fashion-MNIST (665 s), the
    recipe more accurate at each on CIFAR-10 (1,111 s)"; "" when none compared any."""
    from ..report import and_list            # lazily, as the module's other imports of the book's report

    compared = [(name, result) for name, result in answers if result["comparisons"]]
    outcomes = [uniform_outcome(result) for _, result in compared]
    if len(compared) < 2 or None in outcomes:
        return and_list([budget_clause(name, result) for name, result in compared]) if compared else ""
    groups: dict[str, list[str]] = {}
    for (name, result), outcome in zip(compared, outcomes):
        groups.setdefault(outcome, []).append(f"{name} ({_span_text([c['seconds'] for c in result['comparisons']])})")
    rest = [f"{_group_words(o)} {and_list(groups[o])}" for o in ("no gain shown", "loss") if o in groups]
    if "gain" not in groups:
        return "at no budget compared: " + ", ".join(rest)
    return f"{_group_words('gain')} {and_list(groups['gain'])}" + (
        f", and at no budget compared on the others: {', '.join(rest)}" if rest else "")


def crossing_sentence(result: Mapping, one_shot: Sequence[Mapping], outside: Sequence[Mapping], how: bool = True,
                      choice_counted: bool = False) -> str:
    """The words of :func:`crossing`'s answer (see there); ``how=False`` leaves out how the budgets are compared
    (:data:`COMPARED_AT`), for a passage that says it once before several answers; ``choice_counted``: the
    one-shot front's seconds include the choice of its pick, so the recipe's points it no longer reaches are
    said to be left out for that reason."""
    from ..report import and_list            # lazily, as the module's other imports of the book's report

    comparisons = result["comparisons"]
    ends = ""
    if outside:
        seeds = sorted({s for p in one_shot for s in p["seconds"]})
        lows = [min(p["seconds"][s] for p in one_shot if s in p["seconds"]) for s in seeds]
        highs = [max(p["seconds"][s] for p in one_shot if s in p["seconds"]) for s in seeds]
        ends = (f" {'With the choice counted, the' if choice_counted else 'The'} recipe's "
                f"{'point' if len(outside) == 1 else 'points'} at {and_list([p['label'] for p in outside])} "
                f"({', '.join(_seconds_text(_mean(p['seconds'])) for p in outside)}) "
                f"{'lies' if len(outside) == 1 else 'lie'} outside the one-shot front's seconds on at least one seed"
                + (f" (the seed whose front is narrowest at each end: from {_seconds_text(max(lows))} to "
                   f"{_seconds_text(min(highs))})" if seeds else "")
                + " and " + ("is" if len(outside) == 1 else "are") + " not compared.")
    if not one_shot:
        return "The one-shot front has no point yet: the fronts are not compared."
    if not comparisons:
        return ("No point of the recipe lies within the one-shot front's seconds: the fronts are not compared at equal "
                "seconds." + ends)
    outcomes = [c["outcome"] for c in comparisons]
    first, last = _seconds_text(comparisons[0]["seconds"]), _seconds_text(comparisons[-1]["seconds"])
    points = len(comparisons) + len(result.get("outside", [])) + len(result.get("other_machine", []))
    of = f"of the recipe's {points} point{'' if points == 1 else 's'}"
    span = f"{len(comparisons)} {of}, {first} to {last}" if len(comparisons) > 1 else f"1 {of}, at {first}"
    at = f", {COMPARED_AT}" if how else ""
    budgets = f"{_budgets_text([c['seconds'] for c in comparisons])} ({len(comparisons)} {of})"
    compared = f"Compared {COMPARED_AT} {budgets}" if how else budgets[:1].upper() + budgets[1:]
    # one compared budget is said as that one ("at the one compared budget"), never as "every"
    every, any_ = (("at every compared budget", "at any compared budget") if len(comparisons) > 1 else
                   ("at the one compared budget", "at the one compared budget"))
    if set(outcomes) == {"no gain shown"}:
        return (f"Neither the one-shot model nor the gradient-trained recipe is more accurate {any_} "
                f"({span}){at}: no gain shown either way." + ends)
    if set(outcomes) == {"gain"}:
        return (f"The one-shot model is more accurate than the gradient-trained recipe {every} "
                f"({span}){at}; the recipe is more accurate at none." + ends)
    if set(outcomes) == {"loss"}:
        return (f"The gradient-trained recipe is more accurate than the one-shot model {every} "
                f"({span}){at}; "
                f"the one-shot model is more accurate at none." + ends)
    if not result["divides"]:
        return (f"{compared}, the fronts do not divide into a range where the one-shot "
                f"model is more accurate below one where the recipe is: " +
                ", ".join(f"at {_seconds_text(c['seconds'])} {OUTCOME_WORDS[c['outcome']]}" for c in comparisons)
                + "." + ends)
    up_to, sgd_from = result["one_shot_up_to"], result["sgd_from"]
    # a range of one compared budget is said as that budget ("at 303 s"), never as a range past it
    parts = [(f"the one-shot model is more accurate than the gradient-trained recipe "
              f"{'at' if up_to == comparisons[0]['seconds'] else 'up to'} {_seconds_text(up_to)}")
             if up_to is not None else
             "the one-shot model is more accurate than the gradient-trained recipe at no compared budget",
             (f"the recipe is more accurate at {_seconds_text(sgd_from)}" if sgd_from == comparisons[-1]["seconds"] else
              f"the recipe is more accurate from {_seconds_text(sgd_from)} on") if sgd_from is not None
             else "the recipe is more accurate at no compared budget"]
    between = result["between"]
    tail = f"; {_budgets_text(between)} neither is (no gain shown either way)" if between else ""
    return f"{compared}, {parts[0]}, and {parts[1]}{tail}." + ends


def protocol_marker(dataset: str, records_dir: str | Path, seeds: Sequence[int]) -> dict | None:
    """The whole new protocol of ``dataset`` (every rung, the refit, the scoring) as the figure's own
    marker: {"seconds" {seed: s}, "selection" {seed: s, the rungs' alone}, "accuracy" {seed: %}, "hosts" {seed:
    its record's machine or None}, "n_test"} over the seeds recorded, None if none."""
    found = {}
    for seed in seeds:
        try:
            found[int(seed)] = protocol_pick(records_dir, dataset, seed)
        except FileNotFoundError:
            continue
    if not found:
        return None
    return {"seconds": {s: r["seconds"] for s, r in found.items()},
            "selection": {s: r["selection_seconds"] for s, r in found.items()},
            "accuracy": {s: r["test_accuracy"] for s, r in found.items()},
            "hosts": {s: r["host"] for s, r in found.items()},
            "loads": {s: r["started_load"] for s, r in found.items() if r["started_load"]},
            "n_test": next(iter(found.values()))["n_test"]}


def failed_points(dataset: str, out_dir: str | Path = BUDGET_DIR, params: str | Path | None = None) -> dict:
    """{seed: [point label]} of ``dataset``'s declared points whose test labels the ledger
    (``out_dir/test-reads.json``) shows read with no record written in ``out_dir``: runs that ended after
    their read (a machine shut down, a crash). A point's labels are read once (:func:`run_point` refuses a
    second read), so such a seed never has every point measured; {} when there is no ledger."""
    from .frontier_protocol import _read_ledger

    spec = load_budget(params)
    reads = [r for r in _read_ledger(Path(out_dir) / "test-reads.json") if r["dataset"] == dataset]
    failed: dict = {}
    for point in dataset_points(spec, dataset):
        key = configuration_key(point)
        for seed in sorted({int(r["seed"]) for r in reads if r["key"] == key}):
            if not point_record_path(out_dir, dataset, point, seed).exists():
                failed.setdefault(seed, []).append(point_label(point))
    return {seed: failed[seed] for seed in sorted(failed)}


def fronts(dataset: str, out_dir: str | Path = BUDGET_DIR, params: str | Path | None = None,
           records_dir: str | Path | None = None, opponents_dir: str | Path | None = None,
           on_gpu: bool = False) -> dict:
    """What a dataset's figure and answer read, from the committed records: {"one_shot", "sgd"
    (:func:`front` of each family), "marker" (:func:`protocol_marker` over the declared seeds), "n_test"
    (None before any point ran), "recipe" (the SGD points' model), "declared" (how many points the
    parameters declare for it)}, an SGD point at its recipe's own
    schedule read from the opponent's record, and the pick's own refit from the protocol's, where it has
    none here (:func:`measured_elsewhere`); a recorded
    point that is no longer declared is a ValueError (the records and the declaration must agree).
    ``on_gpu``: the GPU's fronts (``out_dir`` :data:`BUDGET_GPU_DIR`): their own records only (the opponent's and
    the protocol's runs were measured on CPUs), no protocol marker (the protocol did not run on the GPU), and
    ``"on_gpu": True``."""
    spec = load_budget(params)
    declared = {configuration_key(p) for p in dataset_points(spec, dataset)}
    records = load_points(dataset, out_dir)
    here = {(configuration_key(r["point"]), int(r["seed"])) for r in records}
    records += [measured for point in dataset_points(spec, dataset) for seed in spec["seeds"]
                if not on_gpu and (configuration_key(point), int(seed)) not in here
                and (measured := measured_elsewhere(dataset, point, seed, records_dir or spec["protocol_records"],
                                                    opponents_dir)) is not None]
    stray = sorted({configuration_key(r["point"]) for r in records} - declared)
    if stray:
        raise ValueError(f"{dataset}: recorded point(s) {stray} are not declared in the budget's parameters")
    one_shot, sgd = front(records, "one-shot"), front(records, "sgd")
    n_tests = {int(r["n_test"]) for r in records}
    if len(n_tests) > 1:
        raise ValueError(f"{dataset}: the points were scored on test sets of different sizes {sorted(n_tests)} "
                         "(a subset run among the full ones?)")
    return {"one_shot": one_shot, "sgd": sgd, "n_test": n_tests.pop() if n_tests else None,
            "marker": None if on_gpu else protocol_marker(dataset, records_dir or spec["protocol_records"], spec["seeds"]),
            "recipe": RECIPES[dataset], "declared": len(declared), "on_gpu": bool(on_gpu),
            "failed": failed_points(dataset, out_dir, params)}


def fronts_from_results(results: Sequence, dataset: str, declared: int | None = None) -> dict:
    """A dataset's two fronts rebuilt from the results store (``results``: the stored point results of
    ``dataset``, pairs (accuracy, train-seconds) as the frontier chapter records them, each setting naming its
    point, label, seeds and n_test): the same {"one_shot", "sgd", "n_test", "recipe", "declared"} as
    :func:`fronts` reads from the records, so a summary answers from what the chapter stored."""
    entries = {"one-shot": [], "sgd": []}
    n_tests = set()
    for accuracy, seconds in results:
        setting = accuracy.setting
        seeds = [int(s) for s in setting["seeds"]]
        entries[setting["point"]["family"]].append(front_entry(
            setting["point"], setting["label"], setting["n_test"], seconds=dict(zip(seeds, seconds.values)),
            accuracy=dict(zip(seeds, accuracy.values)),
            hosts=dict(zip(seeds, setting.get("hosts") or [None] * len(seeds))),
            measured=dict(zip(seeds, setting.get("measured") or [""] * len(seeds)))))
        n_tests.add(int(setting["n_test"]))
    if len(n_tests) > 1:
        raise ValueError(f"{dataset}: stored points scored on test sets of different sizes {sorted(n_tests)}")
    ordered = {family: by_mean_seconds(e) for family, e in entries.items()}
    return {"one_shot": ordered["one-shot"], "sgd": ordered["sgd"], "n_test": n_tests.pop() if n_tests else None,
            "recipe": RECIPES[dataset], "declared": declared}


def start_loads_sentence(fronts_of: Mapping) -> str:
    """How many of the runs an answer reads (each compared seed's points of both fronts, and its protocol run)
    started on a machine the quiet rule calls busy (:func:`~greenelm_book.bench.judge_quiet`: the 1- and 5-minute
    loads at most 0.5), from the loads their records hold: the rule is not applied to these seconds, so a reader
    is told how far they would pass it; "" where no compared run recorded its loads."""
    from ..bench import QUIET_LOAD, judge_quiet

    seeds = compared_seeds(fronts_of)
    kept = restricted(fronts_of, seeds)
    loads = [load for entry in kept["one_shot"] + kept["sgd"] for load in (entry.get("loads") or {}).values()]
    loads += list(((kept.get("marker") or {}).get("loads") or {}).values())
    if not loads:
        return ""
    busy = sum(not judge_quiet(load)[0] for load in loads)
    return (f"These seconds are not held to the quiet rule: of the {len(loads)} runs they read whose records hold "
            f"the loads at their start (points and protocols of the compared seeds), {busy} started with a 1- or "
            f"5-minute load average above the rule's {QUIET_LOAD:g}. Each ran alone under the run lock, the runs one "
            "after another, and a load average still counts the run before; their seconds are read as recorded.")


def choice_elsewhere(fronts_of: Mapping) -> list[int]:
    """The compared seeds (:func:`compared_seeds`) whose protocol record (the marker's ``"hosts"``) names no machine,
    or another than the one their points name (:func:`seed_hosts`): their choice's seconds were not timed on the
    machine of their fronts, so they are not added to them (:func:`with_choice`)."""
    marker = fronts_of.get("marker") or {}
    points_host, protocol_host = seed_hosts(fronts_of), marker.get("hosts") or {}
    return [s for s in compared_seeds(fronts_of) if protocol_host.get(s) != points_host.get(s)]


def choice_seeds(fronts_of: Mapping) -> list[int]:
    """The compared seeds (:func:`compared_seeds`) whose choice of the pick was timed on their points' machine
    (not :func:`choice_elsewhere`): the seeds :func:`with_choice` and :func:`choice_seconds` read."""
    elsewhere = set(choice_elsewhere(fronts_of))
    return [s for s in compared_seeds(fronts_of) if s not in elsewhere]


def with_choice(fronts_of: Mapping) -> dict | None:
    """``fronts_of`` over its compared seeds (:func:`compared_seeds`) whose choice of the pick was timed on their
    points' machine (not :func:`choice_elsewhere`), with each one-shot point's seconds plus its seed's choice of
    the pick (the protocol's rungs, the marker's ``"selection"``): the one-shot front as it costs when choosing
    the pick is counted too; None without a choice's seconds for every such seed (the GPU's fronts, whose picks
    were chosen on CPUs), or with fewer such seeds than the gain rule pairs (3)."""
    from ..judging.verdicts import MIN_GAIN_RUNS

    seeds = choice_seeds(fronts_of)
    kept = restricted(fronts_of, seeds)
    selection = (kept.get("marker") or {}).get("selection") or {}
    if len(seeds) < MIN_GAIN_RUNS or any(seed not in selection for seed in seeds):
        return None
    one_shot = [{**p, "seconds": {seed: v + selection[seed] for seed, v in p["seconds"].items()}}
                for p in kept["one_shot"]]
    return {**kept, "one_shot": by_mean_seconds(one_shot)}


def choice_seconds(fronts_of: Mapping) -> list[float]:
    """The seconds each compared seed (:func:`compared_seeds`) took to choose its pick (the protocol's rungs, the
    marker's ``"selection"``), on the seeds whose choice was timed on their points' machine (not
    :func:`choice_elsewhere`); [] where they are not known."""
    selection = (fronts_of.get("marker") or {}).get("selection") or {}
    return [float(selection[seed]) for seed in choice_seeds(fronts_of) if seed in selection]


def answer(fronts_of: Mapping, counting_choice: bool = False) -> dict | None:
    """The answer under a dataset's figure as the page gives it: :func:`crossing` of :func:`fronts`' two
    fronts over the compared seeds (:func:`compared_seeds`, :func:`restricted`), with the test-set sampling
    error in the gain rule (:func:`gain_with_sampling`), the SGD side named by its recipe. ``counting_choice``:
    the one-shot seconds with the choice of the pick added (:func:`with_choice`; None where it is not known)."""

    kept = with_choice(fronts_of) if counting_choice else restricted(fronts_of, compared_seeds(fronts_of))
    if kept is None:
        return None
    return crossing(kept["one_shot"], kept["sgd"], n_test=fronts_of["n_test"],
                    names=(RECIPE_WORDS.get(fronts_of["recipe"], fronts_of["recipe"]), "the one-shot model"),
                    choice_counted=counting_choice)


def _summary(entry: Mapping) -> tuple[float, float, float, float, float]:
    """(mean seconds, sd seconds, mean accuracy, sd accuracy, sampling error) of a point or marker."""
    seconds, accuracy = list(entry["seconds"].values()), list(entry["accuracy"].values())
    sd = (lambda v: float(np.std(v, ddof=1)) if len(v) > 1 else 0.0)
    return (float(np.mean(seconds)), sd(seconds), float(np.mean(accuracy)), sd(accuracy),
            sampling_error(float(np.mean(accuracy)), int(entry["n_test"])))


def plot_fronts(dataset: str, one_shot: Sequence[Mapping], sgd: Sequence[Mapping], marker: Mapping | None = None,
                sgd_name: str = "SGD", joined: bool = True, machine: str = "two CPU cores", seeds_note: str = ""):
    """The figure of one dataset: test accuracy (%) against training seconds (log x) for both fronts
    (:func:`front`), each point at its mean over seeds with two error bars: the sd over seeds (capped)
    and, behind it, the test-set sampling error (a wide pale bar); x error bars the sd of the seconds.
    ``marker``: the whole protocol (:func:`protocol_marker`), its own star. ``joined``: each front's points
    joined by a line (False where a seed's points were not all measured on one machine, :func:`seed_hosts`: points
    only, and the title says they are not compared). ``machine``: what the seconds ran on, in the x label.
    ``seeds_note``: which seeds the points average, a second line of the title (where some are left out).
    Returns the figure."""
    import matplotlib.pyplot as plt

    from ..paper import DATASET_NAMES
    from ..report import colour, log_ticks

    fig, ax = plt.subplots(figsize=(7.5, 4.5))
    series = [("the one-shot model (the protocol's pick refit at growing N and K)", one_shot, colour("Green-ELM"), "o"),
              (sgd_name, sgd, colour("SGD CNN"), "s")]
    ticks = []
    for name, points, tint, shape in series:
        if not points:
            continue
        rows = np.array([_summary(p) for p in points])
        ax.errorbar(rows[:, 0], rows[:, 2], yerr=rows[:, 4], fmt="none", ecolor=tint, alpha=0.3, elinewidth=7)
        ax.errorbar(rows[:, 0], rows[:, 2], xerr=rows[:, 1], yerr=rows[:, 3], fmt=f"{shape}-" if joined else shape,
                    color=tint, capsize=3, label=name)
        ticks += list(rows[:, 0])
    if marker is not None:
        s, s_sd, a, a_sd, se = _summary(marker)
        ax.errorbar([s], [a], yerr=[se], fmt="none", ecolor=colour("published anchor"), alpha=0.3, elinewidth=7)
        ax.errorbar([s], [a], xerr=[s_sd], yerr=[a_sd], fmt="*", markersize=13, color=colour("published anchor"),
                    capsize=3, label="the whole protocol (every rung, the refit, the scoring)")
        ticks.append(s)
    ax.set(xscale="log", ylabel="test accuracy (%)",
           xlabel=f"training seconds on {machine} (log scale)" + (": the star, the whole protocol's" if marker else ""),
           title=f"{DATASET_NAMES.get(dataset, dataset)}: accuracy against seconds "
                 "(bars: sd over seeds; pale: test-set sampling error)"
                 + ("" if joined else "\na seed's points from more than one machine, or one not recorded: not compared")
                 + (f"\n{seeds_note}" if seeds_note else ""))
    if ticks:
        log_ticks(ax, [round(t) for t in ticks if t >= 1] or None)
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.16), fontsize=9, frameon=False)   # below: never over a point
    fig.tight_layout()
    return fig


# ----------------------------------------------------------------------------- the command line
def remaining_points(dataset: str, out_dir: str | Path = BUDGET_DIR, params: str | Path | None = None) -> list:
    """(seed, point index) of every declared point of ``dataset`` with no record in ``out_dir`` yet, seed by
    seed in the declared order: what ``--remaining`` runs (a point another run measured on this machine is
    read there by :func:`run_point`, not run)."""
    spec = load_budget(params)
    points = dataset_points(spec, dataset)
    return [(int(seed), index) for seed in spec["seeds"] for index, point in enumerate(points)
            if not point_record_path(out_dir, dataset, point, seed).exists()]


def stop_time(text: str, now: datetime.datetime | None = None) -> datetime.datetime:
    """``--stop-by``'s time as an aware UTC datetime: ISO 8601 (``2026-12-04T18:30+00:00``; no offset:
    UTC), or ``HH:MM``, the next such UTC time after ``now``. ValueError naming the text otherwise."""
    now = now or datetime.datetime.now(datetime.timezone.utc)
    try:
        if len(text) <= 5 and ":" in text:
            hours, minutes = (int(part) for part in text.split(":"))
            found = now.replace(hour=hours, minute=minutes, second=0, microsecond=0)
            return found if found > now else found + datetime.timedelta(days=1)
        found = datetime.datetime.fromisoformat(text)
    except ValueError as error:
        raise ValueError(f"--stop-by {text!r}: give HH:MM (UTC) or an ISO 8601 time ({error})") from None
    return found if found.tzinfo else found.replace(tzinfo=datetime.timezone.utc)


def run_remaining(dataset: str, *, out_dir: str | Path = BUDGET_DIR, params: str | Path | None = None,
                  records_dir: str | Path | None = None, subset: int | None = None, wait_quiet: bool = False,
                  stop_by: datetime.datetime | None = None, device=None, log: Callable[[str], None] = print,
                  run: Callable | None = None, wait: Callable | None = None,
                  now: Callable[[], datetime.datetime] | None = None) -> list:
    """Run :func:`remaining_points` of ``dataset`` one after another (``run``: :func:`run_point`), with
    ``wait_quiet`` the first only once the machine is quiet by the book's rule
    (:func:`~greenelm_book.bench.wait_until_quiet`; the others follow it back to back, the machine busy with
    this run alone: waiting for its own load to fade would cost minutes per point), and none started after
    ``stop_by`` (a point runs to its end once started: leave it the point's minutes). Returns the (seed,
    point index) pairs run."""
    from ..bench import wait_until_quiet

    run, wait = run or run_point, wait or wait_until_quiet
    now = now or (lambda: datetime.datetime.now(datetime.timezone.utc))
    done = []
    warm_up(device)
    for seed, index in remaining_points(dataset, out_dir, params):
        if stop_by is not None and now() >= stop_by:
            log(f"stop: {stop_by:%Y-%m-%d %H:%M} UTC reached; {dataset} seed {seed} point {index} and after not started")
            break
        if wait_quiet and not done:
            try:
                load = wait(deadline=None if stop_by is None else stop_by.timestamp())
            except TimeoutError as error:
                log(f"stop: {error}; {dataset} seed {seed} point {index} and after not started")
                break
            log(f"quiet (load {load[0]:g}, {load[1]:g}): {dataset} seed {seed} point {index}")
        try:
            run(dataset, index, seed, out_dir=out_dir, params=params, records_dir=records_dir, subset=subset,
                log=log, **({} if device is None else {"device": device}))
        except (np.linalg.LinAlgError, MemoryError) as error:     # a fit that failed: no record, the rest runs
            log(f"{dataset} seed {seed} point {index}: failed, no record ({type(error).__name__}: {error})")
            continue
        done.append((seed, index))
    return done


def main(argv: Sequence[str] | None = None) -> None:
    """``python -m greenelm_book.chapters.frontier_budget --dataset D --point I --seed S [--subset N] [--out DIR]
    [--params FILE] [--records DIR]``, or ``--list``: the declared points with their index, or ``--dataset D
    --remaining [--wait-quiet] [--stop-by HH:MM]``: every point and seed of D not recorded yet
    (:func:`run_remaining`), the first once the machine is quiet, none started after the stop time. Run it alone on
    the machine, under the run lock, with ``OMP_WAIT_POLICY=PASSIVE``:
    ``flock /tmp/greenelm-run.lock python -m greenelm_book.chapters.frontier_budget ...``."""
    import argparse

    parser = argparse.ArgumentParser(prog="python -m greenelm_book.chapters.frontier_budget",
                                     description="one declared point of the accuracy-seconds fronts, one seed")
    parser.add_argument("--dataset")
    parser.add_argument("--point", type=int, help="the point's index (--list prints them)")
    parser.add_argument("--seed", type=int)
    parser.add_argument("--list", action="store_true", help="print the declared points and exit")
    parser.add_argument("--remaining", action="store_true",
                        help="run every declared point and seed of --dataset that has no record yet, seed by seed")
    parser.add_argument("--wait-quiet", action="store_true",
                        help="with --remaining: start the first point only once the 1- and 5-minute load averages "
                             "are quiet (the others follow it back to back)")
    parser.add_argument("--stop-by", default=None,
                        help="with --remaining: start no point after this time (HH:MM UTC, or ISO 8601)")
    parser.add_argument("--subset", type=int, default=None, help="first N rows of each split (a check; default all)")
    parser.add_argument("--out", default=str(BUDGET_DIR), help=f"records and ledger (default {BUDGET_DIR})")
    parser.add_argument("--params", default=None, help=f"the declared points (default {BUDGET_PARAMS})")
    parser.add_argument("--records", default=None, help="the new protocol's records (default: the parameters')")
    parser.add_argument("--device", default=None,
                        help=f"a torch device both families run on (cuda: the GPU fronts; records default to "
                             f"{BUDGET_GPU_DIR}); default the CPU")
    args = parser.parse_args(argv)
    if args.device is not None and str(args.device).startswith("cuda") and args.out == str(BUDGET_DIR):
        args.out = str(BUDGET_GPU_DIR)          # a device's points never land beside the CPU's
    spec = load_budget(args.params)
    if args.list:
        for dataset in (args.dataset,) if args.dataset else spec["datasets"]:
            for index, point in enumerate(dataset_points(spec, dataset)):
                print(f"{dataset} --point {index}: {configuration_key(point)}")
        return
    began = time.perf_counter()
    log = lambda message: print(f"[{time.perf_counter() - began:7.0f} s] {message}", flush=True)  # noqa: E731
    if args.remaining:
        if args.dataset is None or args.point is not None or args.seed is not None:
            parser.error("--remaining needs --dataset and neither --point nor --seed")
        run_remaining(args.dataset, out_dir=args.out, params=args.params, records_dir=args.records,
                      subset=args.subset, wait_quiet=args.wait_quiet,
                      stop_by=None if args.stop_by is None else stop_time(args.stop_by), device=args.device, log=log)
        return
    if args.wait_quiet or args.stop_by:
        parser.error("--wait-quiet and --stop-by go with --remaining")
    if args.dataset is None or args.point is None or args.seed is None:
        parser.error("--dataset, --point and --seed are required (or --list, or --remaining)")
    warm_up(args.device)
    run_point(args.dataset, args.point, args.seed, out_dir=args.out, params=args.params, records_dir=args.records,
              subset=args.subset, device=args.device, log=log)


if __name__ == "__main__":
    main()


__all__ = ["BUDGET_DIR", "BUDGET_GPU_DIR", "BUDGET_PARAMS", "CROSSING_RULE", "FAMILIES", "MIN_SEEDS", "by_mean_seconds", "front_entry", "OUTCOME_WORDS", "OWN_EPOCHS",
           "OPTIMIZER_WORDS", "PICK_SOURCES", "RECIPE_HOME", "accuracy_cell", "accuracy_text", "answer", "check_point", "crossing", "crossing_sentence", "dataset_points",
           "difference_sampling_error", "failed_clause", "failed_points", "front", "fronts", "fronts_from_results", "gain_with_sampling", "load_budget", "load_points", "main",
           "budget_clause", "budget_clauses", "uniform_outcome", "choice_cost_sentence", "choice_seconds", "choice_elsewhere", "choice_seeds", "start_loads_sentence", "HALVING", "with_choice", "COMPARED_AT", "complete_seeds", "compared_seeds", "seeds_text", "split_reason", "hosts_by_seed", "INSTANCE_MARK", "restricted", "SEED_KEYED", "names_one_machine", "shares_one_machine", "machines_sentence", "measured_elsewhere", "one_host", "run_remaining", "stop_time", "pick_refit_point", "record_host", "seed_hosts", "untuned_words",
           "one_shot_settings", "opponent_point", "plot_fronts", "point_label", "point_record_path", "point_slug", "remaining_points",
           "protocol_marker", "protocol_pick", "recipe_words", "run_point", "sampling_error", "training_rows"]
