"""The frontier's SGD opponents, run and recorded like the protocol's seeds (issue 49, item 6).

Per dataset and seed, the best published fast-training recipe that runs in torch on a CPU
(:mod:`greenelm_book.chapters.fast_sgd`: airbench94 for CIFAR-10, the PyTorch examples' CNN for
MNIST and Fashion-MNIST) is trained on all training images with its published hyper-parameters and
augmentation, on one of two schedules (:data:`SCHEDULES`):

* ``"published"``: to its own schedule (airbench94's 9.9 epochs, the CNN's 14);
* ``"protocol-seconds"``: for as many seconds as the whole readout protocol of the same dataset and
  seed took on this machine (read from that seed's record, :func:`protocol_seconds`): the recipe cut
  short at equal seconds (``time_budget`` of the trainers: its schedule is not re-planned).

Neither is a choice: both are fixed measurements declared in ``params/frontier_protocol.yml`` before
any run, so their test labels come from the protocol's :class:`~greenelm_book.chapters.frontier_protocol.TestGate`
as reads of kind ``"fixed"``, written to the same ledger as the protocol's picks.

Run alone, under the run lock, with ``OMP_WAIT_POLICY=PASSIVE`` (torch's spinning threads)::

    flock /tmp/greenelm-run.lock python -m greenelm_book.chapters.frontier_opponents --dataset cifar10 --seed 0

A record (``<dataset>-<recipe>-<schedule>-seed<seed>.json`` beside the protocol's) is written
atomically when its run is done; a run whose record exists is skipped.
"""

from __future__ import annotations

import datetime
import json
import time
from pathlib import Path
from typing import Callable, Sequence

from greenelm._validation import check_choice

from .frontier_protocol import (RUNS_DIR, TestGate, _write_json_atomically, load_protocol, protocol_data,
                                seed_record_path)

#: the recipe each dataset's opponent trains (:mod:`greenelm_book.chapters.fast_sgd`)
RECIPES = {"cifar10": "airbench94", "mnist": "pytorch-mnist-cnn", "fashion-mnist": "pytorch-mnist-cnn"}
def opponent_key(dataset: str, recipe: str, schedule: str) -> str:
    """The results-store key prefix of an SGD opponent: ``<dataset>/<recipe>/<schedule>``, followed by
    ``/accuracy`` and ``/train-seconds`` (the frontier chapter's ``record_protocol``; read by the book's
    summaries and the hardware chapter's no-GPU claim)."""
    return f"{dataset}/{recipe}/{schedule}"


#: how long an opponent trains: its own schedule, or the seconds of the same seed's whole protocol
SCHEDULES = ("published", "protocol-seconds")


def opponent_configuration(dataset: str, schedule: str) -> dict:
    """The opponent as the gate knows it: ``{"model": recipe, "schedule": schedule}``."""
    check_choice("dataset", dataset, tuple(RECIPES))
    check_choice("schedule", schedule, SCHEDULES)
    return {"model": RECIPES[dataset], "schedule": schedule}


def opponent_record_path(out_dir: str | Path, dataset: str, schedule: str, seed: int) -> Path:
    return Path(out_dir) / f"{dataset}-{RECIPES[dataset]}-{schedule}-seed{int(seed)}.json"


def protocol_seconds(out_dir: str | Path, dataset: str, seed: int) -> float:
    """The whole protocol's seconds (selection fits + refit + scoring) of ``dataset`` and ``seed``,
    from its record; FileNotFoundError naming the record when that seed has not run yet."""
    path = seed_record_path(out_dir, dataset, seed)
    if not path.is_file():
        raise FileNotFoundError(f"{path}: the protocol of {dataset}, seed {seed} has no record yet; the "
                                "'protocol-seconds' opponent trains for that record's seconds, so run the "
                                "protocol first (python -m greenelm_book.chapters.frontier_protocol)")
    record = json.loads(path.read_text(encoding="utf-8"))
    return float(record["seconds"]["total"])


def _trainer(dataset: str) -> Callable:
    from . import fast_sgd

    return fast_sgd.train_airbench if dataset == "cifar10" else fast_sgd.train_small_cnn


def run_opponent(dataset: str, seed: int, schedule: str, *, out_dir: str | Path = RUNS_DIR,
                 params: str | Path | None = None, subset: int | None = None, train: Callable | None = None,
                 log: Callable[[str], None] = print) -> Path:
    """Train and score one opponent (see the module); returns its record's path. ``train(X_train,
    y_train, X_test, y_test, seed=, time_budget=)`` defaults to the dataset's recipe; ``subset``: the
    first N rows of each split (a check, not a measurement)."""
    configuration = opponent_configuration(dataset, schedule)
    path = opponent_record_path(out_dir, dataset, schedule, seed)
    if path.exists():
        log(f"{dataset}, {configuration['model']}, {schedule}, seed {seed}: recorded already ({path}), skipped")
        return path
    entry = load_protocol(params)["datasets"].get(dataset)
    if entry is None:
        raise KeyError(f"{dataset!r} has no entry in the protocol's parameters")
    budget = protocol_seconds(out_dir, dataset, seed) if schedule == "protocol-seconds" else None
    X_train, y_train, X_test, y_test = protocol_data(dataset, subset)
    gate = TestGate({dataset: y_test}, fixed={dataset: entry["fixed"]}, ledger=Path(out_dir) / "test-reads.json")
    del y_test
    labels = gate.release(dataset, int(seed), configuration, kind="fixed")   # refused unless declared
    from ..bench import load_average

    started = datetime.datetime.now(datetime.timezone.utc)
    load_started = load_average()
    clock = time.perf_counter()
    result = (train or _trainer(dataset))(X_train, y_train, X_test, labels, seed=int(seed), time_budget=budget)
    result = {k: v for k, v in result.items() if k != "model"}
    record = {"dataset": dataset, "seed": int(seed), "schedule": schedule, "configuration": configuration,
              "time_budget": budget, "subset": subset, "started_at": started.isoformat(timespec="seconds"),
              "wall_seconds": time.perf_counter() - clock,
              "load_average": {"started": load_started, "finished": load_average()}, **result,
              "test_reads": gate.reads(dataset, int(seed))}
    _write_json_atomically(path, record)
    log(f"{dataset}, {configuration['model']}, {schedule}, seed {seed}: test {record['accuracy']:.2f} %, "
        f"{record['seconds']:.0f} s of training -> {path}")
    return path


def main(argv: Sequence[str] | None = None) -> None:
    """``python -m greenelm_book.chapters.frontier_opponents --dataset D --seed S [--seed ...]
    [--schedule published|protocol-seconds ...] [--subset N] [--out DIR] [--params FILE]``."""
    import argparse

    parser = argparse.ArgumentParser(prog="python -m greenelm_book.chapters.frontier_opponents",
                                     description="the frontier's SGD opponents, one record per (dataset, schedule, seed)")
    parser.add_argument("--dataset", required=True, choices=sorted(RECIPES))
    parser.add_argument("--seed", type=int, action="append", required=True, help="repeat for several seeds")
    parser.add_argument("--schedule", action="append", choices=SCHEDULES, help="default: both")
    parser.add_argument("--subset", type=int, default=None, help="first N rows of each split (default: all)")
    parser.add_argument("--out", default=str(RUNS_DIR), help=f"records and ledger (default {RUNS_DIR})")
    parser.add_argument("--params", default=None, help="the protocol's parameters (default params/frontier_protocol.yml)")
    args = parser.parse_args(argv)
    began = time.perf_counter()
    for seed in args.seed:
        for schedule in args.schedule or SCHEDULES:
            run_opponent(args.dataset, seed, schedule, out_dir=args.out, params=args.params, subset=args.subset,
                         log=lambda message: print(f"[{time.perf_counter() - began:7.0f} s] {message}", flush=True))


if __name__ == "__main__":
    main()


__all__ = ["RECIPES", "SCHEDULES", "main", "opponent_configuration", "opponent_key", "opponent_record_path", "protocol_seconds",
           "run_opponent"]
