"""The paper's headline time ratios, each timed in one quiet, isolated process, both sides interleaved.

Each ratio runs in a fresh Python process of its own (``greenelm_book.bench.run_isolated``): the
data are loaded once, each side is called once untimed (warm-up), then the two sides alternate
A, B, A, B, ... for ``--pairs`` pairs on the same data and the same threads. Each pair's ratio
A / B is one measurement; the ratio is judged by the book's one rule for ratios measured on another
machine, :func:`greenelm_book.judging.verdicts.ratio_across_machines` (``quiet``: the 1- and 5-minute load
averages at the start were at most :data:`QUIET_LOAD`, :func:`greenelm_book.bench.judge_quiet`; ``same_run``: every pair came from that one process).
Each side reuses the book's own function (listed by ``--list``).

    python -m benchmarks.headline_ratios [--pairs 5] [--only NAME ...] [--small] [--list] [--rejudge]

Writes ``benchmarks/headline_ratios.json`` and ``.md`` (``--out-dir`` elsewhere); ``--rejudge`` judges
the recorded pairs again and rewrites both, timing nothing. ``--small`` runs
tiny sizes (a check of the machinery, not a measurement; written to a temporary folder by default).
Run it alone on the machine: it refuses when the load average says the machine is busy
(``--allow-busy`` runs anyway, judged not quiet). The Conv parity (~30 min at 5 pairs) is off by
default: ``--only conv_total_over_sgd_cnn``.
"""

from __future__ import annotations

import argparse
import datetime as dt
import glob
import json
import math
import os
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np

#: QUIET_LOAD: the load average above which the machine is not quiet (the run refuses to start); the 1- and
#: the 5-minute averages are both judged (judge_quiet)
from greenelm_book.bench import QUIET_LOAD, judge_quiet, run_quiet

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
#: the environment variables that set the thread pools, recorded with the run.
THREAD_ENV = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_CORETYPE",
              "OMP_WAIT_POLICY", "GREENELM_DATA")
#: Table I's SGD setting (params/full.yml, baselines): 10 epochs; the MLP is 784-64-10.
MNIST_EPOCHS = 10
#: Table VI's SGD MLP (params/full.yml, baselines): 3072-256-10, 10 epochs; the CNN: 8 epochs.
CIFAR_MLP_HIDDEN, CIFAR_MLP_EPOCHS, CIFAR_CNN_EPOCHS = 256, 10, 8
#: the random conv frontend of Table VI (params/full.yml, cifar10): 128 channels, seed 0.
CONV_CHANNELS, CONV_SEED = 128, 0
ALPHA = 1e-3


@dataclass(frozen=True)
class Ratio:
    """One headline ratio: its claim id, the paper's value, what each side times, and ``evidence``: the
    result key under which its chapter records the pairs (``bench.QUIET_RATIO_KEYS``), whose
    comparability with the paper's setting the scorecard applies (:func:`judge` applies it too)."""

    name: str
    claim: str
    paper_ratio: float
    paper_text: str
    numerator: str
    denominator: str
    data: str
    default: bool = True

    @property
    def evidence(self) -> str:
        from greenelm_book.bench import QUIET_RATIO_KEYS

        return QUIET_RATIO_KEYS[self.name]


RATIOS = {r.name: r for r in (
    Ratio("sgd_mlp_over_pinv_mnist", "speedup_vs_sgd_mnist_d2000", 11.6,
          "11.6× (SGD 17.45 s / Green-ELM 1.5 s)",
          f"greenelm_book.chapters.baselines.train('mlp', ...): the 784-64-10 MLP, SGDConfig(epochs={MNIST_EPOCHS}), "
          "CPU, its training loop's seconds (train_seconds)",
          "greenelm.ELMClassifier(n_hidden=2000, solver='pinv', weight_scale='unit').fit, wall seconds "
          "(as greenelm_book.judging.comparisons.elm_fit_times / solver_timing)",
          "MNIST, all 60,000 training images in memory (float32 for torch, float64 for the fit); seed i for pair i"),
    Ratio("pinv_over_cholesky_n50000_d4000", "pinv_over_cholesky_speedup_d4000", 119.04,
          "119.04× (1726.15 s / 14.50 s)",
          "greenelm_book.paper_code.solve_green_elm(H, Y, 'pinv'): listing 2's own timer",
          "greenelm_book.paper_code.solve_green_elm(H, Y, 'cholesky', lam=1e-3): listing 2's own timer",
          "one shared H (50,000 × 4,000, float64) = relu(X W + b), X = CIFAR-10's 50,000 training images' raw "
          "pixels / 255, W ~ N(0, 2/D), b ~ N(0, 1) (greenelm.features.draw_projection(3072, 4000, 0, 'he', "
          "'normal'), as greenelm_book.chapters.transfer.listing2_solvers); the solve's time depends only on H's shape"),
    Ratio("table4_pinv_over_lu_mnist_d2000", "table4_pinv_d2000_seconds", 74.1 / 5.8,
          "12.8× (Table IV: 74.1 s / 5.8 s)",
          "greenelm_book.paper_code.solve_green_elm(H, Y, 'pinv'): listing 2's own timer",
          "greenelm_book.paper_code.solve_green_elm(H, Y, 'lud', lam=1e-3): listing 2's own timer",
          "one shared H: listing 1's features of MNIST's 60,000 training images at d = 2000, seed 42 "
          "(benchmarks.workloads.listing_features, as benchmarks/run.py's same_h_solvers)"),
    Ratio("cifar10_sgd_mlp_over_raw_fit", "cifar10_raw_speedup_vs_sgd", 149.0 / 29.0,
          "5.1× (Table VI: 149.0 s / 29.0 s)",
          f"greenelm_book.chapters.baselines.train('mlp', ..., n_hidden={CIFAR_MLP_HIDDEN}): the 3072-{CIFAR_MLP_HIDDEN}-10 "
          f"MLP, SGDConfig(epochs={CIFAR_MLP_EPOCHS}), CPU, train_seconds",
          "greenelm.ELMClassifier(n_hidden=2000, solver='cholesky', alpha=1e-3, weight_scale='unit').fit, "
          "greenelm_book.chapters.experiments.timed_fit (as greenelm_book.chapters.cifar10.raw_pixel_runs)",
          "CIFAR-10, all 50,000 training images' raw pixels / 255 (float32, "
          "greenelm_book.chapters.experiments.load_split); seed i for pair i"),
    Ratio("conv_total_over_sgd_cnn", "elm_conv_total_time_parity", 183.2 / 181.0,
          "1.01× (Table VI: Green-ELM + Conv 183.2 s / SGD + Conv 181.0 s; the claim is parity)",
          f"greenelm_book.chapters.backbones.extract(random_conv frontend, {CONV_CHANNELS} channels, seed {CONV_SEED}) of "
          "the training images, then ELMClassifier(n_hidden=2000, solver='cholesky', alpha=1e-3, "
          "weight_scale='he').fit on the features (as greenelm_book.chapters.cifar10.random_conv_pipeline)",
          f"greenelm_book.chapters.baselines.train('cnn', ...): the small CNN, SGDConfig(epochs={CIFAR_CNN_EPOCHS}), CPU, "
          "train_seconds",
          "CIFAR-10, all 50,000 training images; seed i for pair i", default=False),
)}


# ---------------------------------------------------------------------------------- the core
def utc_now() -> str:
    """The current time, UTC, ISO 8601 to the second."""
    return dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")


def interleave(side_a: Callable[[int], float], side_b: Callable[[int], float], pairs: int,
               clock: Callable[[], str] = utc_now) -> dict:
    """Call ``side_a(-1)`` and ``side_b(-1)`` untimed (warm-up), then ``side_a(i)``, ``side_b(i)`` for
    i < ``pairs``; each side returns its seconds. Returns ``{"calls": [[pair, side], ...] in call
    order (pair -1: the warm-up), "pairs": [{"pair", "a_seconds", "b_seconds", "ratio",
    "computed_at", "pid"}]}``."""
    if pairs < 1:
        raise ValueError(f"pairs must be >= 1, got {pairs!r}")
    calls = []
    for side, fn in (("a", side_a), ("b", side_b)):
        fn(-1)
        calls.append([-1, side])
    rows = []
    for i in range(pairs):
        a = float(side_a(i))
        calls.append([i, "a"])
        b = float(side_b(i))
        calls.append([i, "b"])
        if not (a > 0 and b > 0 and math.isfinite(a) and math.isfinite(b)):
            raise ValueError(f"pair {i}: the timings must be finite and positive, got {a!r} and {b!r}")
        rows.append({"pair": i, "a_seconds": a, "b_seconds": b, "ratio": a / b, "computed_at": clock(),
                     "pid": os.getpid()})
    return {"calls": calls, "pairs": rows}


def _seed(i: int) -> int:
    return 0 if i < 0 else i        # the warm-up reuses seed 0's work


def _sgd_side(model: str, X, y, epochs: int, n_hidden: int | None, batch_size: int | None = None):
    from greenelm_book.chapters.baselines import SGDConfig, train

    config = SGDConfig(epochs=epochs) if batch_size is None else SGDConfig(epochs=epochs, batch_size=batch_size)
    return lambda i: train(model, X, y, _seed(i), config, n_hidden, device="cpu").train_seconds


def _elm_side(X, y, n_hidden: int, solver: str, weight_scale: str):
    from greenelm.estimator import ELMClassifier
    from greenelm_book.chapters.experiments import timed_fit

    return lambda i: timed_fit(ELMClassifier(n_hidden=n_hidden, solver=solver, alpha=ALPHA, weight_scale=weight_scale,
                                             random_state=_seed(i)), X, y)


def _listing2_sides(H, Y, numerator: str, denominator: str):
    from greenelm_book.paper_code import solve_green_elm

    return (lambda i: solve_green_elm(H, Y, variant=numerator, lam=ALPHA)[1],
            lambda i: solve_green_elm(H, Y, variant=denominator, lam=ALPHA)[1])


def build_sides(name: str, small: bool) -> tuple[Callable, Callable, dict]:
    """``(side_a, side_b, shape)`` of ratio ``name`` at full size or (``small``) tiny sizes."""
    from greenelm.data import load_dataset

    if name == "sgd_mlp_over_pinv_mnist":
        n, d, epochs = (1000, 100, 1) if small else (None, 2000, MNIST_EPOCHS)
        ds = load_dataset("mnist", subset=n)
        X32, X64, y = ds.flat("train", np.float32), ds.flat("train"), ds.y_train
        return (_sgd_side("mlp", X32, y, epochs, None), _elm_side(X64, y, d, "pinv", "unit"),
                {"n_train": int(len(y)), "n_hidden": d, "epochs": epochs})
    if name == "pinv_over_cholesky_n50000_d4000":
        from greenelm.features import draw_projection

        n, d = (1000, 200) if small else (None, 4000)
        ds = load_dataset("cifar10", subset=n)
        X = ds.flat("train")
        W, b = draw_projection(X.shape[1], d, 0, "he", "normal")
        H = np.maximum(X @ W + b, 0)
        del X
        Y = np.eye(int(ds.y_train.max()) + 1)[ds.y_train]
        a, b_side = _listing2_sides(H, Y, "pinv", "cholesky")
        return a, b_side, {"H": list(H.shape), "dtype": str(H.dtype)}
    if name == "table4_pinv_over_lu_mnist_d2000":
        from benchmarks.workloads import listing_features

        n, d = (1000, 100) if small else (None, 2000)
        ds = load_dataset("mnist", subset=n)
        _, _, _, H = listing_features(ds.x_train, d)
        Y = np.eye(10)[ds.y_train]
        a, b_side = _listing2_sides(H, Y, "pinv", "lud")
        return a, b_side, {"H": list(H.shape), "dtype": str(H.dtype)}
    if name == "cifar10_sgd_mlp_over_raw_fit":
        from greenelm_book.chapters.experiments import load_split

        n, d, epochs = (500, 100, 1) if small else (None, 2000, CIFAR_MLP_EPOCHS)
        pixels = load_split("cifar10", subset=n, dtype=np.float32)
        return (_sgd_side("mlp", pixels.X_train, pixels.y_train, epochs, CIFAR_MLP_HIDDEN),
                _elm_side(pixels.X_train, pixels.y_train, d, "cholesky", "unit"),
                {"n_train": int(len(pixels.y_train)), "n_hidden": d, "epochs": epochs})
    if name == "conv_total_over_sgd_cnn":
        from greenelm_book.chapters.backbones import extract, get_backbone

        n, d, epochs, channels = (200, 50, 1, 8) if small else (None, 2000, CIFAR_CNN_EPOCHS, CONV_CHANNELS)
        cifar = load_dataset("cifar10", subset=n)
        frontend = get_backbone("random_conv", seed=CONV_SEED, channels=channels)
        def pipeline(i):
            got = extract(frontend, cifar.x_train, "cifar10/train", cache=False, return_info=True, progress=False)
            fit = _elm_side(got.features, cifar.y_train, d, "cholesky", "he")(i)
            return got.seconds + fit

        X = cifar.flat("train", np.float32)
        return (pipeline, _sgd_side("cnn", X, cifar.y_train, epochs, None),
                {"n_train": int(len(cifar.y_train)), "n_hidden": d, "epochs": epochs, "channels": channels})
    raise ValueError(f"unknown ratio {name!r}; known: {', '.join(RATIOS)}")


def thread_settings() -> dict:
    """The thread-pool environment, the BLAS/OpenMP pools loaded and torch's threads (when loaded)."""
    from greenelm_book.bench import blas_info

    out = {"env": {k: os.environ.get(k) for k in THREAD_ENV}, "blas": blas_info()}
    if "torch" in sys.modules:
        out["torch_threads"] = int(sys.modules["torch"].get_num_threads())
    return out


def measure_ratio(name: str, pairs: int = 5, small: bool = False) -> dict:
    """Time ratio ``name`` in this process: both sides built on the same data, warmed up and interleaved
    (:func:`interleave`). Returns the pairs, the call order, the shapes, the threads and the times."""
    if name not in RATIOS:
        raise ValueError(f"unknown ratio {name!r}; known: {', '.join(RATIOS)}")
    started = utc_now()
    side_a, side_b, shape = build_sides(name, small)
    timed = interleave(side_a, side_b, pairs)
    return {"name": name, "started_at": started, "finished_at": utc_now(), "pid": os.getpid(), "shape": shape,
            "threads": thread_settings(), **timed}


def judge(name: str, measured: dict, quiet: bool) -> dict:
    """The verdict of ratio ``name`` on its recorded pairs by ``ratio_across_machines`` (``same_run``:
    every pair from one process), then, as the scorecard does, "not comparable" where the ratio's
    evidence is not measured in the paper's setting (``judging.comparability``; the rule's own label is
    kept in the detail); returns ``{"label", "ours", "detail", "same_run", "quiet"}``."""
    from greenelm_book.judging.comparability import comparability
    from greenelm_book.judging.verdicts import ratio_across_machines

    rows = measured["pairs"]
    same_run = len({r["pid"] for r in rows}) == 1
    verdict = ratio_across_machines(RATIOS[name].paper_ratio, [r["ratio"] for r in rows], quiet=quiet,
                                    same_run=same_run)
    label, detail = verdict.label, verdict.detail
    setting = comparability(RATIOS[name].evidence)
    if not setting.comparable:
        label, detail = "not comparable", f"{setting.reason}; the ratio rule alone gives {label}: {detail}"
    return {"label": label, "ours": verdict.ours, "detail": detail, "same_run": same_run, "quiet": quiet}


def rejudge(path: Path) -> dict:
    """Judge again every measured ratio of the report at ``path`` (its ``.json``) from its recorded pairs
    and quietness, with today's rule, and rewrite the ``.json`` and ``.md`` beside it; nothing is timed."""
    report = json.loads(path.read_text())
    for name, entry in report["ratios"].items():
        entry["quiet"] = run_quiet(report, name, entry)[0]      # today's rule on the run's recorded loads
        if entry.get("pairs"):
            entry["verdict"] = judge(name, entry, entry["quiet"])
    report["quiet"] = all(entry.get("quiet") for entry in report["ratios"].values())
    for run in report.get("runs", []):
        run["quiet"] = judge_quiet(run.get("load_before"), QUIET_LOAD)[0] if run.get("load_before") else run.get("quiet")
    path.write_text(json.dumps(report, indent=1, allow_nan=False) + "\n")
    path.with_suffix(".md").write_text(_markdown(report))
    return report


# ---------------------------------------------------------------------------------- estimates
def _store_seconds(pattern: str) -> float | None:
    """The mean of the first recorded result whose key matches ``pattern`` (fnmatch) in book/results."""
    import fnmatch

    for path in sorted(glob.glob(str(ROOT / "book" / "results" / "*.json"))):
        try:
            results = json.loads(Path(path).read_text()).get("results", {})
        except (OSError, ValueError):
            continue
        for key, result in results.items():
            if fnmatch.fnmatch(key, pattern) and result.get("values"):
                return float(np.mean(result["values"]))
    return None


#: the store's recorded seconds of each side (book/results/*.json), for the full-size estimate.
STORE_KEYS = {
    "sgd_mlp_over_pinv_mnist": (["mnist/sgd-mlp/train-seconds"], ["mnist/green-elm/unit/pinv/d=2000/fit-seconds"]),
    "pinv_over_cholesky_n50000_d4000": (["cifar10/green-elm/*/pinv/d=4000/solve-seconds"],
                                        ["cifar10/green-elm/*/cholesky/d=4000/solve-seconds"]),
    "table4_pinv_over_lu_mnist_d2000": (["mnist/paper-listing2/pinv/same-h/n=60000/d=2000/solve-seconds"],
                                        ["mnist/paper-listing2/lu/same-h/n=60000/d=2000/solve-seconds"]),
    "cifar10_sgd_mlp_over_raw_fit": (["cifar10/sgd-mlp/train-seconds"],
                                     ["cifar10/green-elm/unit/cholesky/d=2000/fit-seconds"]),
    "conv_total_over_sgd_cnn": (["cifar10/random-conv/train/extract-seconds",
                                 "cifar10/green-elm/random-conv/cholesky/d=2000/fit-seconds"],
                                ["cifar10/sgd-cnn/train-seconds"]),
}


def estimate_seconds(name: str, pairs: int) -> dict:
    """Full-size estimate of ratio ``name``: (pairs + 1 warm-up) × (side A + side B) from the store's
    recorded seconds; ``{"a", "b", "total"}`` (None where the store lacks a side)."""
    sides = []
    for patterns in STORE_KEYS[name]:
        values = [_store_seconds(p) for p in patterns]
        sides.append(None if any(v is None for v in values) else sum(values))
    a, b = sides
    total = None if a is None or b is None else (pairs + 1) * (a + b)
    return {"a": a, "b": b, "total": total}


def print_list(pairs: int) -> None:
    """Print each ratio, its sides and the full-size estimate."""
    grand = 0.0
    for r in RATIOS.values():
        est = estimate_seconds(r.name, pairs)
        fmt = lambda s: "?" if s is None else f"{s:,.1f} s"  # noqa: E731
        total = "?" if est["total"] is None else f"~{est['total'] / 60:,.1f} min"
        grand += est["total"] or 0.0
        print(f"{r.name}{'' if r.default else '  (off by default: --only ' + r.name + ')'}\n"
              f"  claim {r.claim}, paper {r.paper_text}\n  A: {r.numerator} [{fmt(est['a'])}]\n"
              f"  B: {r.denominator} [{fmt(est['b'])}]\n  data: {r.data}\n"
              f"  full size, {pairs} pairs + warm-up: {total} (sides from book/results/*.json, data loading "
              f"and H not counted)\n")
    print(f"all ratios: ~{grand / 60:,.0f} min")


# ---------------------------------------------------------------------------------- the run
def load_average() -> list[float]:
    """The 1-, 5- and 15-minute load averages."""
    return [round(x, 2) for x in os.getloadavg()]


def _markdown(report: dict) -> str:
    from greenelm_book.bench import markdown_table

    rows = []
    for name, r in report["ratios"].items():
        v = r.get("verdict") or {}
        dates = sorted(p["computed_at"] for p in r.get("pairs", []))
        rows.append({"ratio": name, "claim": r["claim"], "paper": r["paper_text"],
                     "ours (95 % CI)": v.get("ours", r.get("error", "—")), "verdict": v.get("label", "failed"),
                     "n pairs": len(r.get("pairs", [])),
                     "date (UTC)": f"{dates[0]} – {dates[-1]}" if dates else "—"})
    s = report["settings"]
    runs = report_runs(report)
    lines = ["# Headline ratios, each in one quiet, isolated process", ""]
    for r in runs:
        lines += [f"`{r['command']}` — {r['started_at']} to {r['finished_at']} (UTC); "
                  f"{s['machine']['cpu']}, {s['machine']['cores']} cores; load average {r['load_before']} before, "
                  f"{r['load_after']} after{' — NOT QUIET' if not r['quiet'] else ''}"
                  f"{'; --small: tiny sizes, a check of the machinery, not a measurement' if s['small'] else ''}"
                  + (f"; measured {', '.join(r['ratios'])}" if len(runs) > 1 else "") + ".", ""]
    lines += [
             "Each ratio ran in a fresh process of its own: one untimed call of each side, then the two sides "
             "alternately (A, B, A, B, ...) on the same data and threads; each pair's A / B is one measurement. "
             "Verdict: `greenelm_book.judging.verdicts.ratio_across_machines` (boundaries 1 and ×/÷ 3 of the paper's "
             "ratio, 95 % CI of the paired ratios), then \"not comparable\" where the book's scorecard finds the "
             "setting not the paper's (`greenelm_book.judging.comparability`), the rule's own label kept in the "
             "detail below.",
             "",
             markdown_table(rows),
             "## What each side times", ""]
    for name, r in report["ratios"].items():
        lines += [f"- **{name}**: A = {r['numerator']}; B = {r['denominator']}; data: {r['data']}; "
                  f"shape {json.dumps(r.get('shape'))}; {r.get('verdict', {}).get('detail', r.get('error', ''))}"]
    return "\n".join(lines) + "\n"


def report_runs(report: dict) -> list[dict]:
    """The runs a report's ratios came from: its ``runs``, or for a report of one run written before
    reports listed them, that run from the report's own fields."""
    return report.get("runs") or [{"command": report.get("command"), "started_at": report.get("started_at"),
                                   "finished_at": report.get("finished_at"), "quiet": bool(report.get("quiet")),
                                   "load_before": report["settings"].get("load_before"),
                                   "load_after": report["settings"].get("load_after"),
                                   "ratios": list(report["ratios"])}]


def merged_report(path: Path, new: dict) -> dict:
    """``new``'s ratios over the report at ``path``: the ratios ``new`` did not measure keep their entries
    (each with its own run's quietness), the runs are listed in order. ``new`` alone when there is no
    report at ``path`` or it is of the other size (``--small`` against full)."""
    if not path.is_file():
        return new
    old = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(old, dict) or not isinstance(old.get("ratios"), dict):
        raise ValueError(f"{path}: not a headline-ratio report (no mapping 'ratios' of name to entry)")
    if bool(old.get("settings", {}).get("small")) != bool(new["settings"]["small"]):
        return new
    runs = report_runs(old)
    kept = {name: {**entry, "quiet": bool(entry.get("quiet", old.get("quiet")))}
            for name, entry in old["ratios"].items() if name not in new["ratios"]}
    runs = [{**r, "ratios": [n for n in r["ratios"] if n in kept]} for r in runs]
    ratios = {**kept, **new["ratios"]}
    return {**new, "quiet": all(entry.get("quiet") for entry in ratios.values()),
            "runs": [r for r in runs if r["ratios"]] + new["runs"], "ratios": ratios}


def run(names, pairs: int, small: bool, out_dir: Path, allow_busy: bool = False, isolated: bool = True,
        command: str = "", merge: bool = False) -> dict:
    """Measure each ratio in ``names`` (a fresh process each unless ``isolated=False``), judge it, write
    ``headline_ratios.json`` and ``.md`` in ``out_dir``; returns the report. ``merge``: keep the ratios of
    the report already there that this run does not measure (:func:`merged_report`; ``--only``)."""
    from greenelm_book.bench import chapter_machine, run_isolated

    load_before = load_average()
    quiet, why = judge_quiet(load_before, QUIET_LOAD)
    if not quiet:
        message = f"{why}: the machine is not quiet, so the timings would not be judged"
        if not (allow_busy or small):
            raise SystemExit(f"refusing to run: {message}; wait for a quiet machine (or --allow-busy)")
        print(f"WARNING: {message}; the verdicts will say 'not recorded as quiet'", file=sys.stderr)
    report = {"command": command, "started_at": utc_now(), "quiet": quiet,
              "settings": {"pairs": pairs, "small": small, "quiet_load": QUIET_LOAD, "load_before": load_before,
                           "machine": chapter_machine(), "parent_threads": thread_settings(), "isolated": isolated},
              "ratios": {}}
    for name in names:
        r = RATIOS[name]
        entry = {"claim": r.claim, "paper_ratio": r.paper_ratio, "paper_text": r.paper_text,
                 "numerator": r.numerator, "denominator": r.denominator, "data": r.data}
        print(f"{name}: {pairs} pairs{' (small)' if small else ''} ...", file=sys.stderr, flush=True)
        if isolated:
            got = run_isolated("benchmarks.headline_ratios:measure_ratio",
                               {"name": name, "pairs": pairs, "small": small}, cwd=str(ROOT),
                               env={"OMP_WAIT_POLICY": os.environ.get("OMP_WAIT_POLICY", "PASSIVE")})  # as the chapters
            measured = got["result"] if got["ok"] else None
            entry["peak_rss_bytes"] = got["peak_rss_bytes"]
            if not got["ok"]:
                entry["error"] = got["error"]
        else:
            measured = measure_ratio(name, pairs, small)
        if measured is not None:
            entry.update(measured)
            entry["ratios"] = [p["ratio"] for p in measured["pairs"]]
            entry["verdict"] = judge(name, measured, quiet)
            print(f"  {entry['verdict']['label']}: {entry['verdict']['ours']}", file=sys.stderr, flush=True)
        report["ratios"][name] = entry
    report["settings"]["load_after"] = load_average()
    own = os.cpu_count() or 1                        # the measured process keeps every core busy itself
    if report["settings"]["load_after"][0] > own + QUIET_LOAD and quiet:
        print(f"WARNING: the 1-minute load average rose to {report['settings']['load_after'][0]} during the run, "
              f"above the {own} threads the measurement itself runs: something else ran; check before trusting "
              "the verdicts", file=sys.stderr)
    report["finished_at"] = utc_now()
    for entry in report["ratios"].values():
        entry["quiet"] = quiet                      # each ratio carries its own run's quietness
    report["runs"] = report_runs(report)            # this run, listed
    if merge:
        report = merged_report(out_dir / "headline_ratios.json", report)
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "headline_ratios.json").write_text(json.dumps(report, indent=1, allow_nan=False) + "\n")
    (out_dir / "headline_ratios.md").write_text(_markdown(report))
    return report


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.headline_ratios", description=__doc__.split("\n")[0])
    parser.add_argument("--pairs", type=int, default=5, help="timed pairs per ratio (>= 5 for a verdict)")
    parser.add_argument("--only", nargs="+", choices=list(RATIOS), metavar="NAME",
                        help=f"these ratios only (default: all but the Conv parity); one of {', '.join(RATIOS)}")
    parser.add_argument("--small", action="store_true", help="tiny sizes: a check of the machinery")
    parser.add_argument("--list", action="store_true", help="print the ratios and full-size estimates, and exit")
    parser.add_argument("--rejudge", action="store_true",
                        help="judge the recorded pairs of the report in --out-dir (default benchmarks/) again and "
                             "rewrite it; times nothing")
    parser.add_argument("--allow-busy", action="store_true", help="run on a busy machine (judged not quiet)")
    parser.add_argument("--out-dir", type=Path, default=None,
                        help="where the .json and .md go (default: benchmarks/; with --small a temporary folder, "
                             "so a check never replaces the measurement)")
    args = parser.parse_args(argv)
    if args.pairs < 1:
        parser.error("--pairs must be >= 1")
    if args.list:
        print_list(args.pairs)
        return 0
    if args.rejudge:
        rejudge((args.out_dir or HERE) / "headline_ratios.json")
        print(f"rewrote {(args.out_dir or HERE) / 'headline_ratios.json'} and .md", file=sys.stderr)
        return 0
    if args.pairs < 5:
        print(f"WARNING: {args.pairs} pairs: the rule needs >= 5, every verdict will be inconclusive", file=sys.stderr)
    names = args.only or [n for n, r in RATIOS.items() if r.default]
    out_dir = args.out_dir or (Path(tempfile.gettempdir()) / "greenelm-headline-ratios-small" if args.small else HERE)
    run(names, args.pairs, args.small, out_dir, args.allow_busy, merge=bool(args.only),
        command="python -m benchmarks.headline_ratios " + " ".join(argv if argv is not None else sys.argv[1:]))
    print(f"wrote {out_dir / 'headline_ratios.json'} and .md", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
