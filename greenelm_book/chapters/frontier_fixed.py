"""The frontier's declared fixed measurements of the paper's own map on the pixels (issue 49).

``params/frontier_protocol.yml`` declares, before any run, the configurations that are measured as
they are rather than chosen: the paper's map (``relu(XW + b)``, W, b ~ N(0, 1)) on the raw pixels at
a width past the scaling chapter's widest, and its d → ∞ limit (arc-cosine kernel ridge on every
training image, at the paper's vanishing ridge and with a ridge chosen on held-out training rows). None is
picked among test scores; each reads the test labels once per seed, through the
protocol's :class:`~greenelm_book.chapters.frontier_protocol.TestGate`, as a read of kind ``"fixed"``
in the same ledger as the protocol's picks.

* ``{"model": "paper-map", "input": "pixels", "n_hidden": d}``: one model of width d
  (:func:`~greenelm_book.chapters.frontier_features.ultra_wide`: float32 Gram, float64 Cholesky per λ,
  λ by exact leave-one-out on training rows, searched from the scaling chapter's choice at its widest
  width, ×10 either side, until interior). Widths the scaling chapter measures are read there, not here.
* ``{"model": "paper-map-limit", "input": "pixels"}``: ``greenelm.KernelLimitClassifier`` (unit
  weight scale, jitter 1e-6 of mean diag K, ×10 after a failed factorisation), all training images.
* ``{"model": "paper-map-limit", "input": "pixels", "ridge": "held-out"}``: the same limit with its ridge
  chosen on held-out training rows (:data:`HELD_OUT_JITTERS`: a fifth of the training rows, seeded, scores
  each jitter fitted on the rest; the chosen one refitted on all), the limit of tuned fits rather than of
  the paper's vanishing ridge. ``--device cuda`` computes it on a GPU (its accuracy, not its seconds, is
  what the page reads).

Run alone, under the run lock::

    flock /tmp/greenelm-run.lock python -m greenelm_book.chapters.frontier_fixed --dataset mnist

A record (``<dataset>-paper-map-d<d>-seed<seed>.json``, ``<dataset>-paper-map-limit-seed<seed>.json`` or
``<dataset>-paper-map-limit-heldout-seed<seed>.json`` beside the protocol's) is written atomically when its
run is done; a run whose record exists is skipped, and one whose read the ledger lists without a record is
not read again.
"""

from __future__ import annotations

import datetime
import json
import time
from pathlib import Path
from typing import Callable, Sequence

import numpy as np

from .frontier_protocol import (RUNS_DIR, TestGate, _write_json_atomically, configuration_key, load_protocol,
                                protocol_data)

#: the paper's-map configurations this module measures (the opponents are frontier_opponents')
MODELS = ("paper-map", "paper-map-limit")
#: the pixel limit's first jitter (μ / mean diag K): the vanishing ridge of the scaling chapter's limits
LIMIT_JITTER = 1e-6
#: the held-out ridge's jitter grid (μ / mean diag K), a decade apart: from the paper's vanishing ridge
#: (:data:`LIMIT_JITTER`) to past the μ = λ/d that the widest finite model's LOO λ stands for (≈ 0.07 of
#: mean diag K on MNIST's pixels)
HELD_OUT_JITTERS = (1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1.0)
#: the share of training rows that scores the held-out ridge's jitters
HELD_OUT_SHARE = 0.2
#: a limit's ridges: the paper's vanishing one (a configuration without "ridge") or chosen on held-out rows
RIDGES = ("vanishing", "held-out")
#: where the scaling chapter's results are (its λ at its widest width starts the search)
RESULTS_DIR = Path(__file__).resolve().parents[2] / "book" / "results"


def fixed_record_path(out_dir: str | Path, dataset: str, configuration: dict, seed: int) -> Path:
    """The file of one fixed measurement's record."""
    if configuration["model"] == "paper-map-limit":
        name = "paper-map-limit-heldout" if configuration.get("ridge") == "held-out" else "paper-map-limit"
    else:
        name = f"paper-map-d{int(configuration['n_hidden'])}"
    return Path(out_dir) / f"{dataset}-{name}-seed{int(seed)}.json"


#: the scaling chapter's key of the paper's map at width d, λ by exact LOO (``.format(dataset=, d=)``)
SCALING_KEY = "{dataset}/green-elm/unit/ridge-loo/d={d}"


def scaling_results(results_dir: str | Path = RESULTS_DIR) -> dict:
    """The scaling chapter's results ({key: {"values": ...}}; {} when it has not been executed)."""
    path = Path(results_dir) / "scaling.json"
    return json.loads(path.read_text(encoding="utf-8"))["results"] if path.is_file() else {}


def scaling_widths(results, dataset: str, quantity: str) -> list[int]:
    """The widths d, ascending, at which the scaling chapter's results (any mapping keyed by result
    key) hold ``quantity`` ("accuracy", "lambda") of the paper's map of ``dataset`` (:data:`SCALING_KEY`)."""
    prefix = SCALING_KEY.format(dataset=dataset, d="")
    return sorted(int(key[len(prefix):].split("/")[0]) for key in results
                  if key.startswith(prefix) and key.endswith(f"/{quantity}"))


def scaling_lambda(dataset: str, results_dir: str | Path = RESULTS_DIR) -> tuple[int, float]:
    """(d, λ): the scaling chapter's widest Green-ELM of ``dataset`` (unit scale, λ by exact LOO) and its
    λ, from its results; LookupError naming the file when it has none."""
    results = scaling_results(results_dir)
    widths = scaling_widths(results, dataset, "lambda")
    if not widths:
        raise LookupError(f"{Path(results_dir) / 'scaling.json'}: no {SCALING_KEY.format(dataset=dataset, d='')}<d>"
                          "/lambda result (execute the scaling chapter first)")
    widest = SCALING_KEY.format(dataset=dataset, d=widths[-1])
    return widths[-1], float(np.mean(results[f"{widest}/lambda"]["values"]))


def measure(dataset: str, configuration: dict, seed: int, X_train, y_train, X_test, gate: TestGate, *,
            subset: int | None = None, loo_rows: int = 3000, results_dir: str | Path = RESULTS_DIR,
            device=None) -> dict:
    """Fit one declared configuration (:data:`MODELS`) and score it through ``gate`` (kind ``"fixed"``;
    an undeclared configuration is refused before anything is fitted). Returns the record's fields.
    ``device`` (a torch device) computes a limit there (``KernelLimitClassifier(device=...)``)."""
    from greenelm import KernelLimitClassifier

    from ..bench import peak_rss_bytes, reset_peak_rss
    from .frontier_features import ultra_wide

    if configuration.get("model") not in MODELS or configuration.get("input") != "pixels":
        raise ValueError(f"{configuration} is not one of this module's measurements ({MODELS} on pixels)")
    if configuration.get("ridge", "vanishing") not in RIDGES:
        raise ValueError(f"{configuration}: ridge must be one of {RIDGES} (none given: vanishing), not "
                         f"{configuration['ridge']!r}")
    gate._check(dataset, int(seed), configuration, "fixed")
    reset_peak_rss()
    began = time.perf_counter()
    if configuration["model"] == "paper-map":
        widest, start = scaling_lambda(dataset, results_dir)
        lambdas = [start / 10, start, start * 10]
        run = ultra_wide(dataset, subset, int(configuration["n_hidden"]), int(seed), lambdas, loo_rows=loo_rows)
        predicted = run.pop("test_predicted")
        fields = {**run, "lambdas_from": {"scaling_width": widest, "lambda": start}}
    else:
        held_out = configuration.get("ridge") == "held-out"
        model = (KernelLimitClassifier(jitter=list(HELD_OUT_JITTERS), weight_scale="unit", validation_size=HELD_OUT_SHARE,
                                       random_state=int(seed), device=device) if held_out else
                 KernelLimitClassifier(jitter=LIMIT_JITTER, weight_scale="unit", attempts=3, device=device))
        model.fit(X_train, y_train)
        predicted = model.predict(X_test)
        fields = {"jitter": float(model.jitter_), "mu": float(model.mu_), "attempts": int(model.attempts_),
                  "fit_seconds": {k: float(v) for k, v in model.fit_seconds_.items()}}
        if held_out:
            fields["jitter_grid"] = list(HELD_OUT_JITTERS)
            fields["validation_share"] = HELD_OUT_SHARE
            fields["validation_scores"] = [float(v) for v in model.validation_scores_]   # held-out accuracy, 0–1
        if device is not None:
            from ..bench import chapter_machine

            fields["machine"] = chapter_machine(device)
    seconds = time.perf_counter() - began
    accuracy = gate.score(dataset, int(seed), configuration, np.asarray(predicted), kind="fixed")
    return {**fields, "test_accuracy": accuracy, "seconds": seconds, "n_train": int(len(y_train)),
            "peak_memory_gb": peak_rss_bytes() / 1e9}


def run_measurements(dataset: str, seed: int = 0, *, models: Sequence[str] = MODELS, out_dir: str | Path = RUNS_DIR,
                     params: str | Path | None = None, subset: int | None = None, loo_rows: int = 3000,
                     results_dir: str | Path = RESULTS_DIR, device=None, ridges: Sequence[str] = RIDGES,
                     log: Callable[[str], None] = print) -> list[Path]:
    """Every configuration of ``models`` that ``params`` declares for ``dataset`` as a fixed measurement
    on the pixels, each recorded (atomically) as it is done; a recorded one is skipped. Returns the
    records' paths."""
    entry = load_protocol(params)["datasets"].get(dataset)
    if entry is None:
        raise KeyError(f"{dataset!r} has no entry in the protocol's parameters")
    declared = [c for c in entry["fixed"] if c.get("model") in models and c.get("input") == "pixels"
                and (c["model"] != "paper-map-limit" or c.get("ridge", "vanishing") in ridges)]
    scaling = scaling_results(results_dir)
    elsewhere = [c for c in declared if _read_elsewhere(dataset, c, scaling)]
    for configuration in elsewhere:
        log(f"{dataset}, {configuration}: the scaling chapter measures this width; read there, not here")
    declared = [c for c in declared if c not in elsewhere]
    todo = [c for c in declared if not fixed_record_path(out_dir, dataset, c, seed).exists()]
    paths = [fixed_record_path(out_dir, dataset, c, seed) for c in declared]
    if not todo:
        log(f"{dataset}: every declared measurement of {list(models)} is recorded already")
        return paths
    X_train, y_train, X_test, y_test = protocol_data(dataset, subset)
    gate = TestGate({dataset: y_test}, fixed={dataset: entry["fixed"]}, ledger=Path(out_dir) / "test-reads.json")
    del y_test
    for configuration in todo:
        read = [r for r in gate.reads(dataset, int(seed)) if r["key"] == configuration_key(configuration)]
        if read:        # read before, its record lost: never read again (the ledger keeps the read)
            log(f"{dataset}, {configuration}, seed {seed}: the ledger lists a read at {read[0]['at']} but no record "
                "is here; not read again")
            continue
        started = datetime.datetime.now(datetime.timezone.utc)
        fields = measure(dataset, configuration, seed, X_train, y_train, X_test, gate, subset=subset,
                         loo_rows=loo_rows, results_dir=results_dir, device=device)
        record = {"dataset": dataset, "seed": int(seed), "configuration": configuration, "subset": subset,
                  "started_at": started.isoformat(timespec="seconds"), **fields,
                  "test_reads": [r for r in gate.reads(dataset, int(seed)) if r["configuration"] == configuration]}
        path = fixed_record_path(out_dir, dataset, configuration, seed)
        _write_json_atomically(path, record)
        log(f"{dataset}, {configuration}: test {record['test_accuracy']:.2f} %, {record['seconds']:.0f} s -> {path}")
    return [p for p in paths if p.exists()]


def _read_elsewhere(dataset: str, configuration: dict, scaling: dict) -> bool:
    """Whether the scaling chapter's results ``scaling`` hold the paper's map of ``dataset`` at this width
    (one value per configuration: it is read from there)."""
    return configuration.get("model") == "paper-map" and \
        SCALING_KEY.format(dataset=dataset, d=int(configuration["n_hidden"])) + "/accuracy" in scaling


def main(argv: Sequence[str] | None = None) -> None:
    """``python -m greenelm_book.chapters.frontier_fixed --dataset D [--seed S] [--model paper-map ...]
    [--ridge vanishing|held-out ...] [--subset N] [--out DIR] [--params FILE] [--device cuda]``."""
    import argparse

    parser = argparse.ArgumentParser(prog="python -m greenelm_book.chapters.frontier_fixed",
                                     description="the frontier's declared fixed measurements of the paper's map")
    parser.add_argument("--dataset", required=True)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--model", action="append", choices=MODELS, help="default: both")
    parser.add_argument("--subset", type=int, default=None, help="first N rows of each split (default: all)")
    parser.add_argument("--loo-rows", type=int, default=3000, help="rows whose exact LOO residuals choose λ")
    parser.add_argument("--out", default=str(RUNS_DIR), help=f"records and ledger (default {RUNS_DIR})")
    parser.add_argument("--params", default=None, help="the protocol's parameters (default params/frontier_protocol.yml)")
    parser.add_argument("--device", default=None, help="a torch device for the limits (e.g. cuda; default: NumPy)")
    parser.add_argument("--ridge", action="append", choices=RIDGES, help="the limits' ridges to measure (default: both)")
    args = parser.parse_args(argv)
    began = time.perf_counter()
    run_measurements(args.dataset, args.seed, models=args.model or MODELS, out_dir=args.out, params=args.params,
                     subset=args.subset, loo_rows=args.loo_rows, device=args.device, ridges=args.ridge or RIDGES,
                     log=lambda message: print(f"[{time.perf_counter() - began:7.0f} s] {message}", flush=True))


if __name__ == "__main__":
    main()


__all__ = ["HELD_OUT_JITTERS", "HELD_OUT_SHARE", "LIMIT_JITTER", "MODELS", "RIDGES", "SCALING_KEY", "fixed_record_path", "main", "measure", "run_measurements",
           "scaling_lambda", "scaling_results", "scaling_widths"]
