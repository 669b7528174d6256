"""Time against N and d as the benchmarks take it, fitted exponents with intervals, and their verdicts.

The hardware chapter's complexity claims are operation counts: features O(NDd), the Gram O(Nd²),
the factorisation O(d³).  This module

* times them as ``benchmarks/`` does: every configuration in a **fresh process**
  (:func:`greenelm_book.bench.run_isolated`), after an untimed warm-up, ``repeats`` times, with the
  1-minute load average read before the process and before each repeat; the machine's GEMM rate
  in a fresh process of its own, best of several (:func:`measure_gemm`);
* fits each exponent by least squares of log(median time) on log(size) over every size, with a
  95 % confidence interval from the regression's standard error (:func:`loglog_fit`), and the
  FLOP model's exponent over the same sizes (:func:`greenelm.solvers.fit_flops`);
* judges each claim by :func:`exponent_verdict` (the count decides; wall time only qualifies it
  where its interval excludes the claim by more than a margin fixed in advance);
* reads the peer comparison of ``benchmarks/peers.json`` (:func:`peer_tables`), one-fit and
  repeated records alike, with every FLOP-floor ratio at the chapter's one GEMM rate.
"""

from __future__ import annotations

import math
import os
import statistics
from typing import Mapping, Sequence

import numpy as np
import pandas as pd

from greenelm.solvers import fit_flops

from .. import bench
from ..report import Verdict, judge_qualitative, judge_time

__all__ = ["EXPONENT_MARGIN", "COUNT_TOLERANCE", "measure_gemm", "phase_sweep", "factorization_sweep",
           "loglog_fit", "exponent_table", "exponent_verdict", "linear_n_words", "count_sentence", "exponent_display",
           "gram_share", "dominance_verdict", "no_gpu_verdict", "answer_no_gpu", "recipe_on_cpu", "peer_tables", "stream_rows_fitted", "stream_accuracy_sentence",
           "load_range",
           "record_timings", "record_exponents", "record_table_iv", "record_fit_ratios", "record_peers"]

#: practical margin on a wall-time exponent, fixed in advance: BLAS runs small matrices at a lower
#: rate than large ones, which bends time against size without changing the operation count
EXPONENT_MARGIN = 0.25
#: how close the FLOP model's exponent over the measured sizes must be to the claimed one
COUNT_TOLERANCE = 0.05
PHASES = bench.PHASES
LABELS = {"features": "features relu(XW + b)", "gram": "Gram HᵀH", "solve": "Cholesky solve",
          "factorization": "Cholesky factorisation"}


# -- what runs in the fresh processes -------------------------------------------------------------
def _kernels() -> list[str]:
    return sorted({f"{b['library'].split('-')[0]} ({b['architecture']}, {b['num_threads']} threads)"
                   for b in bench.blas_info() if b["architecture"]})


def gemm_run(order: int = 4096, repeats: int = 7, seed: int = 0) -> dict:
    """Child: float64 GEMM rate (GFLOP/s) of square products of ``order``, after one warm-up."""
    load = os.getloadavg()[0]
    rate = bench.gemm_peak("float64", n=order, repeats=repeats, seed=seed)
    return {**rate, "load_average": [load], "kernels": _kernels()}


def phase_run(n_train: int, n_hidden: int, repeats: int = 5, dataset: str = "mnist", seed: int = 0,
              alpha: float = 1e-3, chunk_rows: int = 4096) -> dict:
    """Child: ``repeats`` timings of each phase of a fit on the first ``n_train`` images (N, D)."""
    from greenelm.data import load_dataset

    data = load_dataset(dataset)
    X = bench.flat_rows(data, "train", n_train)
    Y = np.eye(int(data.y_train.max()) + 1)[data.y_train[:n_train]]
    warm = min(n_train, 2048)
    bench.phase_times(X[:warm], Y[:warm], min(n_hidden, 256), seed=seed, repeats=1)   # untimed
    times, loads, loads5 = {phase: [] for phase in PHASES}, [], []
    for _ in range(repeats):
        one_minute, five_minutes = os.getloadavg()[:2]
        loads.append(one_minute)
        loads5.append(five_minutes)
        one = bench.phase_times(X, Y, n_hidden, alpha=alpha, seed=seed, chunk_rows=chunk_rows,
                                repeats=1, all_times=True)
        for phase in PHASES:
            times[phase] += one[phase]
    return {"times": times, "load_average": loads, "load_average_5min": loads5, "n_inputs": int(X.shape[1]),
            "n_outputs": int(Y.shape[1])}


def spd_matrix(order: int, seed: int = 0) -> np.ndarray:
    """A symmetric positive definite (order, order) Fortran array in O(order²): M + Mᵀ + 5√order·I
    (the spectrum of M + Mᵀ lies within ±2√(2·order) for standard normal M)."""
    rng = np.random.default_rng(seed)
    M = rng.standard_normal((order, order))
    A = np.asfortranarray(M + M.T)
    A.flat[:: order + 1] += 5 * math.sqrt(order)
    return A


def factorization_run(order: int, repeats: int = 5, seed: int = 0) -> dict:
    """Child: ``repeats`` timings of LAPACK's Cholesky (``scipy.linalg.cho_factor``, potrf, as
    greenelm's solve calls it) of an SPD matrix of ``order``, the copy it overwrites made untimed."""
    import time

    import scipy.linalg

    scipy.linalg.cho_factor(spd_matrix(256, seed), check_finite=False)             # untimed
    A = spd_matrix(order, seed)
    times, loads, loads5 = [], [], []
    for _ in range(repeats):
        B = A.copy(order="F")
        one_minute, five_minutes = os.getloadavg()[:2]
        loads.append(one_minute)
        loads5.append(five_minutes)
        start = time.perf_counter()
        scipy.linalg.cho_factor(B, lower=False, overwrite_a=True, check_finite=False)
        times.append(time.perf_counter() - start)
    return {"times": times, "load_average": loads, "load_average_5min": loads5}


# -- the parent: one fresh process per configuration ----------------------------------------------
def isolated(target: str, kwargs: Mapping, timeout: float | None = None) -> dict:
    """``target(**kwargs)`` of this module in a fresh process; its result with the load average read
    before the process (``load_average_before``); a failed run is a ``RuntimeError`` naming it."""
    load = os.getloadavg()[0]
    run = bench.run_isolated(f"greenelm_book.chapters.complexity:{target}", dict(kwargs), timeout=timeout)
    if not run["ok"]:
        raise RuntimeError(f"{target}({dict(kwargs)}) failed in its process: {run['error']}")
    return {**run["result"], "load_average_before": load}


def measure_gemm(order: int = 4096, repeats: int = 7) -> dict:
    """The machine's float64 GEMM rate in a fresh process: ``{"best", "median", "repeats", "n",
    "load_average", "load_average_before", "kernels"}`` (GFLOP/s)."""
    return isolated("gemm_run", {"order": int(order), "repeats": int(repeats)})


def phase_sweep(sizes: Sequence[int], widths: Sequence[int], *, fixed_width: int, fixed_size: int,
                repeats: int = 5, dataset: str = "mnist", seed: int = 0, progress: bool = False) -> pd.DataFrame:
    """Phase times against N (at ``fixed_width``) and against d (at ``fixed_size``), one fresh
    process per (N, d): columns ``axis``, ``n_samples``, ``n_hidden``, ``phase``, ``seconds`` (median),
    ``times`` (every repeat), ``load`` (before each repeat), ``gflop`` (FLOP model). A point on
    both axes is timed once."""
    from tqdm import tqdm

    grid = [("N", int(n), int(fixed_width)) for n in sizes] + [("d", int(fixed_size), int(d)) for d in widths]
    points = list(dict.fromkeys((n, d) for _, n, d in grid))
    runs = {(n, d): isolated("phase_run", {"n_train": n, "n_hidden": d, "repeats": int(repeats),
                                           "dataset": dataset, "seed": int(seed)})
            for n, d in tqdm(points, desc="phase timings", disable=not progress)}
    rows = []
    for axis, n, d in grid:
        run = runs[n, d]
        flops = fit_flops(n, run["n_inputs"], d, run["n_outputs"])
        for phase in PHASES:
            rows.append({"axis": axis, "n_samples": n, "n_hidden": d, "phase": phase,
                         "seconds": statistics.median(run["times"][phase]), "times": run["times"][phase],
                         "load": run["load_average"], "load5": run.get("load_average_5min", []),
                         "gflop": getattr(flops, phase) / 1e9})
    return pd.DataFrame(rows)


def factorization_sweep(orders: Sequence[int], repeats: int = 5, seed: int = 0,
                        progress: bool = False) -> pd.DataFrame:
    """Cholesky factorisation times against its order, one fresh process per order: columns
    ``order``, ``seconds`` (median), ``times``, ``load``, ``gflop`` (order³/3)."""
    from tqdm import tqdm

    rows = []
    for order in tqdm([int(o) for o in orders], desc="factorisations", disable=not progress):
        run = isolated("factorization_run", {"order": order, "repeats": int(repeats), "seed": int(seed)})
        rows.append({"order": order, "seconds": statistics.median(run["times"]), "times": run["times"],
                     "load": run["load_average"], "load5": run.get("load_average_5min", []),
                     "gflop": order**3 / 3 / 1e9})
    return pd.DataFrame(rows)


def load_range(*frames: pd.DataFrame) -> tuple[float, float]:
    """Smallest and largest 1-minute load average read before any timed repeat of ``frames``."""
    loads = [v for frame in frames for values in frame["load"] for v in values]
    return float(min(loads)), float(max(loads))


# -- exponents ------------------------------------------------------------------------------------
def loglog_fit(x: Sequence[float], y: Sequence[float], level: float = 0.95) -> dict:
    """Least squares of log y on log x (the exponent p of y ∝ x^p) with its ``level`` confidence
    interval, slope ± t(n − 2) · standard error: ``{"slope", "half_width", "low", "high", "n"}``."""
    from scipy.stats import t

    x, y = np.log(np.asarray(x, float)), np.log(np.asarray(y, float))
    if len(x) != len(y) or len(np.unique(x)) < 3:
        raise ValueError(f"an exponent with an interval needs at least 3 distinct sizes, got {len(np.unique(x))}")
    dx = x - x.mean()
    slope = float(dx @ (y - y.mean()) / (dx @ dx))
    residuals = y - y.mean() - slope * dx
    stderr = math.sqrt(float(residuals @ residuals) / (len(x) - 2) / float(dx @ dx))
    half = float(t.ppf(0.5 + level / 2, len(x) - 2) * stderr)
    return {"slope": slope, "half_width": half, "low": slope - half, "high": slope + half, "n": int(len(x))}


def worst_load(frame: pd.DataFrame) -> list[float]:
    """``[largest 1-minute, largest 5-minute]`` load average read before any repeat of ``frame``'s rows
    (columns ``load`` and, where recorded, ``load5``; the 1-minute one alone when no 5-minute one was
    read): what the quiet rule judges an exponent's timings by (:func:`~greenelm_book.bench.largest_loads`)."""
    from ..bench import largest_loads

    one = [v for values in frame["load"] for v in values]
    five = [v for values in frame["load5"] for v in values] if "load5" in frame else [None] * len(one)
    return largest_loads([one_min] if five_min is None else [one_min, five_min] for one_min, five_min in zip(one, five))


def _row(phase: str, axis: str, sizes, seconds, gflop, claimed: float, gemm_gflops: float, fixed: str,
         load: list) -> dict:
    time_fit, count_fit = loglog_fit(sizes, seconds), loglog_fit(sizes, gflop)
    return {"phase": phase, "against": axis, "fixed": fixed, "sizes": [int(s) for s in sizes], "load": load,
            "paper": claimed, "count": count_fit["slope"], "time": time_fit["slope"],
            "ci low": time_fit["low"], "ci high": time_fit["high"], "half width": time_fit["half_width"],
            "GFLOP/s at smallest": gflop[0] / seconds[0], "GFLOP/s at largest": gflop[-1] / seconds[-1],
            "time / floor at largest": seconds[-1] / (gflop[-1] / gemm_gflops)}


def exponent_table(timings: pd.DataFrame, factorization: pd.DataFrame, claims: Mapping, gemm_gflops: float) -> pd.DataFrame:
    """One row per claimed exponent: features and Gram against N and d, the solve against N (phase
    sweeps) and the factorisation against d (its own sweep). Columns: ``phase``, ``against``,
    ``fixed``, ``sizes``, ``load`` (:func:`worst_load` of its timings), ``paper`` (claimed), ``count`` (FLOP
    model's exponent over the same sizes), ``time`` (wall time's), ``ci low``/``ci high``/``half width`` (95 %), ``GFLOP/s at largest`` and
    ``time / floor at largest`` (the FLOP floor at ``gemm_gflops``)."""
    rows = []
    for (axis, phase), group in timings.groupby(["axis", "phase"], sort=False):
        if axis == "d" and phase == "solve":
            continue                                   # the factorisation sweep answers the d³
        column, other = ("n_samples", "n_hidden") if axis == "N" else ("n_hidden", "n_samples")
        group = group.sort_values(column)
        fixed = f"{'d' if axis == 'N' else 'n'}={int(group[other].iloc[0])}"
        rows.append(_row(phase, axis, group[column].to_numpy(), group["seconds"].to_numpy(),
                         group["gflop"].to_numpy(), claims[phase][axis], gemm_gflops, fixed, worst_load(group)))
    f = factorization.sort_values("order")
    rows.append(_row("factorization", "d", f["order"].to_numpy(), f["seconds"].to_numpy(), f["gflop"].to_numpy(),
                     claims["solve"]["d"], gemm_gflops, "alone", worst_load(f)))
    return pd.DataFrame(rows)


def exponent_verdict(claimed: float, count: float, time: float, low: float, high: float,
                     margin: float = EXPONENT_MARGIN, tolerance: float = COUNT_TOLERANCE) -> Verdict:
    """An operation-count claim "cost ∝ x^claimed", judged by the count first.

    * the FLOP model's exponent ``count`` farther than ``tolerance`` from the claim: **does not hold**;
    * else the wall-time exponent's 95 % interval [``low``, ``high``] contains the claim, or lies
      within ``claimed ± margin``: **holds** (the time is consistent with the count);
    * else **partly holds**: the count has the exponent, the time on this machine does not (the
      rate of the BLAS kernels changes with size); wall time alone never gives "does not hold".
    """
    ours = f"{time:.2f} (95 % CI {low:.2f} to {high:.2f}); FLOP count {count:.2f}; paper {claimed:g}"
    test = (f"the FLOP model's exponent within {tolerance:g} of the paper's, and the wall-time exponent's "
            f"95 % CI containing it or within ±{margin:g} of it (else partly)")
    if abs(count - claimed) > tolerance:
        return judge_qualitative(False, test, ours)
    consistent = low <= claimed <= high or (claimed - margin <= low and high <= claimed + margin)
    return judge_qualitative(True if consistent else "partly", test, ours)


def linear_n_words(verdicts: Sequence) -> str:
    """How the prose joins the N exponents to "linear growth in N", from their verdicts (the scorecard's
    :class:`~greenelm_book.report.Verdict`, or their labels): "consistent with" when every one holds, "by the
    test above, not consistent with" when every one is decided and one is not "holds", else "undecided by
    the test above (busy timings) about", naming only the reasons the undecided verdicts give
    (:func:`~greenelm_book.judging.verdicts.no_direction_why`)."""
    from ..judging.verdicts import no_direction_why

    labels = [getattr(v, "label", v) for v in verdicts]
    if labels and all(label == "holds" for label in labels):
        return "consistent with"
    if labels and all(label in ("holds", "partly holds", "does not hold") for label in labels):
        return "by the test above, not consistent with"
    reasons = list(dict.fromkeys(no_direction_why(v, 0.0) for v, label in zip(verdicts, labels)
                                 if label not in ("holds", "partly holds", "does not hold")))
    return f"undecided by the test above ({'; '.join(reasons) or 'no exponent judged'}) about"


def count_sentence(exponents: pd.DataFrame, tolerance: float = COUNT_TOLERANCE) -> str:
    """One sentence: does the FLOP model have the paper's exponent on every row of :func:`exponent_table`?"""
    off = exponents[(exponents["count"] - exponents.paper).abs() > tolerance]
    if off.empty:
        return "The FLOP model has the paper's exponent on every row (within {:g}).".format(tolerance)
    names = ", ".join(f"{LABELS[r.phase]} against {r.against} ({r['count']:.2f})" for _, r in off.iterrows())
    return f"The FLOP model departs from the paper's exponent for {names}."


def below_count_sentence(exponents: pd.DataFrame) -> str:
    """Why a wall-time exponent lies below the FLOP count, as far as the rates say: for each row of
    :func:`exponent_table` whose 95 % interval lies wholly below its count, the rate (GFLOP/s) at its
    smallest and largest size. A rate that rises says the BLAS runs the larger matrices faster (not less
    arithmetic); a rate that does not rise is named, and no reason is given for it."""
    below = exponents[exponents["ci high"] < exponents["count"]]
    if below.empty:
        return "No wall-time exponent lies below its FLOP count (each 95 % interval reaches it)."

    def row_words(r):
        return (f"{LABELS[r.phase]} against {r.against}, {r['GFLOP/s at smallest']:.0f} to "
                f"{r['GFLOP/s at largest']:.0f} GFLOP/s")

    rising = below[below["GFLOP/s at largest"] > below["GFLOP/s at smallest"]]
    flat = below.drop(rising.index)
    said = []
    if not rising.empty:
        said.append("Where a wall-time exponent lies below its FLOP count, the rate rises from the smallest size "
                    f"to the largest ({'; '.join(row_words(r) for _, r in rising.iterrows())}): BLAS runs "
                    "the larger matrices at a higher rate, not less arithmetic.")
    if not flat.empty:
        said.append(f"For {'; '.join(row_words(r) for _, r in flat.iterrows())} the exponent lies below its count "
                    "while the rate does not rise; these timings do not say why.")
    return " ".join(said)


def exponent_display(exponents: pd.DataFrame, verdicts: Sequence[Verdict]) -> pd.DataFrame:
    """:func:`exponent_table` as the chapter shows it, one verdict per row."""
    return pd.DataFrame({
        "phase": exponents.phase.map(LABELS), "against": exponents.against,
        "sizes": [f"{s[0]:,}–{s[-1]:,} ({len(s)})" for s in exponents.sizes],
        "at": exponents.fixed.str.replace("=", " = ").replace("alone", "—"), "paper": exponents.paper,
        "FLOP count": exponents["count"], "wall time": exponents.time,
        "95 % CI": [f"{lo:.2f} to {hi:.2f}" for lo, hi in zip(exponents["ci low"], exponents["ci high"])],
        "GFLOP/s at largest": exponents["GFLOP/s at largest"],
        "time / floor at largest": exponents["time / floor at largest"],
        "verdict": [v.label for v in verdicts]})


def no_gpu_verdict(gemm_gflops: float, phase_rates, has_gpu: bool,
                   cnns: Sequence[tuple[str, int | None]] = ()) -> Verdict:
    """"Unlike deep convolutional networks, which need high-end GPUs for backpropagation, Green-ELM relies on
    standard linear algebra", a claim of two parts joined by :func:`~greenelm_book.judging.verdicts.conjunction`:
    the fit runs as BLAS/LAPACK on a CPU with no GPU, each phase's rate measured (``phase_rates``, GFLOP/s)
    beside the GEMM rate (refuted where a GPU is present: the claim was not tested without one); and the
    contrast, that deep CNNs need high-end GPUs, which this book leaves undecided: the claim names no depth
    that counts as deep and no time that counts as need, so the CNNs it trains by backpropagation on a CPU
    (``cnns``: each as (that training in words with its host, its convolutional layers or None), shallowest
    first) are named, the deepest as what a CPU alone trained here, as evidence of neither side."""
    from ..judging.verdicts import conjunction

    outcome = conjunction([not has_gpu, None])
    test = ("two parts: the whole fit runs on a machine with no GPU, as BLAS GEMM and SYRK and a LAPACK Cholesky, "
            "each phase's throughput measured; and the stated contrast, that deep CNNs need high-end GPUs for "
            "backpropagation, which names no depth and no training time that counts as need, so no CNN trained "
            "here decides it (undecided)")

    def layers(n: int | None) -> str:
        return f"{n if n is not None else 'an unrecorded number of'} convolutional layer{'' if n == 1 else 's'}"

    if len(cnns) == 1:
        (words, n), = cnns
        small = (f"; the one CNN trained here by backpropagation on a CPU, no GPU ({words}), has {layers(n)}: "
                 "not a deep network, so it tests no contrast")
    elif cnns:
        named = [f"{words}, with {layers(n)}" for words, n in cnns]
        small = (f"; the CNNs trained here by backpropagation on a CPU, no GPU, are {'; '.join(named[:-1])}; and "
                 f"{named[-1]}: a CNN of the last one's depth trains without a GPU, and none deeper is trained here")
    else:
        small = ""
    ours = (f"{gemm_gflops:.0f} GFLOP/s GEMM; phases at {min(phase_rates):.0f}–{max(phase_rates):.0f} "
            "GFLOP/s at their largest sizes"
            + (" (a GPU is present: the claim was not tested without one)" if has_gpu else "")
            + small)
    return judge_qualitative(outcome, test, ours)


def conv_layers(architecture: str | None) -> int | None:
    """The convolutional layers of a recorded architecture ("conv3x3-32, pool, conv3x3-64, pool, dense 128,
    10" has 2); None when none is recorded."""
    if not architecture:
        return None
    return sum(part.strip().startswith("conv") for part in architecture.split(","))


def recipe_on_cpu(store, dataset: str = "cifar10") -> tuple[tuple[str, int], list] | None:
    """The frontier's SGD recipe for ``dataset`` at its own schedule, as the no-GPU claim names it:
    ((its training in words, its convolutional layers, counted on the built network), [the accuracy and
    seconds Results]); None when the frontier has recorded none (a profile that has not executed it)."""
    from ..paper import DATASET_NAMES
    from ..report import duration_text
    from .fast_sgd import recipe_conv_layers
    from .frontier_budget import RECIPE_WORDS
    from .frontier_opponents import RECIPES, opponent_key

    recipe = RECIPES[dataset]
    try:
        acc, secs = (store.get("frontier", f"{opponent_key(dataset, recipe, 'published')}/{q}")
                     for q in ("accuracy", "train-seconds"))
    except KeyError:
        return None
    words = (f"{RECIPE_WORDS.get(recipe, recipe)} on {DATASET_NAMES.get(dataset, dataset)} (the frontier's recipe), "
             f"{acc.mean:.2f} % in {duration_text(secs.mean)} of training on {secs.setting.get('machine') or secs.machine} "
             f"({secs.n} seeds)")
    return (words, recipe_conv_layers(recipe)), [acc, secs]


def answer_no_gpu(store, gemm_gflops: float, phase_rates, has_gpu: bool, keys, note: str) -> Verdict:
    """Record the scorecard's judgement of ``standard_linear_algebra_no_gpu`` (:func:`no_gpu_verdict`), its
    contrast read against the CNNs the book trains on a CPU: the baselines chapter's CIFAR-10 SGD + Conv (its
    host named as its record gives it: not assumed to be this chapter's) and the frontier's CIFAR-10 recipe
    where recorded (:func:`recipe_on_cpu`); ``keys``, the chapter's own results it rests on; returns the
    verdict."""
    from ..judging.rejudge import answer_as_scorecard
    from ..store.results import host_text

    cnn_acc, cnn_s = (store.get("baselines", f"cifar10/sgd-cnn/{q}") for q in ("accuracy", "train-seconds"))
    trained = (f"CIFAR-10's SGD + Conv (the baselines chapter), {cnn_acc.mean:.2f} % in {cnn_s.mean:.0f} s of "
               f"training on {host_text(cnn_s.host) if cnn_s.host else cnn_s.machine}")
    cnns, results = [(trained, conv_layers(cnn_acc.setting.get("architecture")))], [cnn_acc, cnn_s]
    recipe = recipe_on_cpu(store)
    if recipe is not None:
        cnns.append(recipe[0])
        results += recipe[1]
    return answer_as_scorecard(store, "standard_linear_algebra_no_gpu",
                               no_gpu_verdict(gemm_gflops, phase_rates, has_gpu, cnns),
                               [*keys, *(r.key for r in results)], results, note=note)


def gram_share(timings: pd.DataFrame) -> pd.DataFrame:
    """Per width of the d sweep: the share (%) of the fit that the Gram and the solve take, one
    value per repeat (``shares``) and their ``median``."""
    rows = []
    for d, group in timings[timings.axis == "d"].groupby("n_hidden"):
        t = {phase: np.array(times) for phase, times in zip(group.phase, group.times)}
        shares = 100 * (t["gram"] + t["solve"]) / (t["features"] + t["gram"] + t["solve"])
        rows.append({"n_hidden": int(d), "shares": shares.tolist(), "median": float(np.median(shares))})
    return pd.DataFrame(rows)


def dominance_verdict(small: float, large: float, d_small: int, d_large: int) -> Verdict:
    """"HᵀH and the factorisation become dominant as d grows": more than half of the fit at the
    largest d, and a larger share there than at the smallest."""
    return judge_qualitative(bool(large > 50 and large > small),
                             "the Gram and the solve together take more than half of the fit at the "
                             "largest d, and a larger share than at the smallest d (medians of repeats)",
                             f"{small:.0f} % at d = {d_small}, {large:.0f} % at d = {d_large}")


# -- the peers (benchmarks/peers.json) ------------------------------------------------------------
def _values(row: Mapping, *names: str) -> list[float]:
    """The runs of the first field of ``names`` that ``row`` has: a number or a list of numbers."""
    for name in names:
        value = row.get(name)
        if value is None:
            continue
        values = value if isinstance(value, (list, tuple)) else [value]
        values = [float(v) for v in values if v is not None]
        if values:
            return values
    return []


def _median(row: Mapping, *names: str) -> float:
    values = _values(row, *names)
    return statistics.median(values) if values else float("nan")


#: the initial block ``benchmarks/peers.py`` fits before a stream's updates: its full run's, and with ``--rows``
#: (a small check) its own; read where a report's streaming row does not record ``"initial rows"``
PEERS_INITIAL_ROWS = {"full": 5000, "--rows": 1000}


def stream_rows_fitted(report: Mapping, row: Mapping) -> int:
    """The training rows a streaming row's model has seen when its accuracy is taken: its initial block
    (recorded as ``"initial rows"``, else the benchmark's for the report's command,
    :data:`PEERS_INITIAL_ROWS`) plus ``updates`` batches of ``B`` rows."""
    initial = row.get("initial rows")
    if initial is None:
        initial = PEERS_INITIAL_ROWS["--rows" if "--rows" in str(report.get("command", "")) else "full"]
    return int(initial) + int(row.get("updates", 0)) * int(row.get("B", 250))


def stream_accuracy_sentence(fits: pd.DataFrame, streaming: pd.DataFrame) -> str:
    """Why the streaming rows' accuracy differs from the fits': each is its model's after its stream (the
    ``rows fitted`` of :func:`peer_tables`), per library; "" when no streaming row."""
    if not len(streaming):
        return ""
    per_library = streaming.groupby("library", sort=False)["rows fitted"].agg(["min", "max"])
    seen = "; ".join(f"{library} {int(r['min']):,}" + ("" if r["min"] == r["max"] else f" to {int(r['max']):,}")
                     for library, r in per_library.iterrows())
    n = int(fits["N"].max()) if len(fits) else None
    said = (f"A streaming row's accuracy is its model's after its stream, an initial block and its updates "
            f"(the rows fitted column: {seen} rows")
    said += f", of the {n:,} the fits use)" if n else ")"
    if n and int(streaming["rows fitted"].max()) < n:
        said += ", so it is not comparable with the fits' accuracy"
    if per_library["max"].nunique() > 1 or per_library["min"].nunique() > 1:
        said += ", nor between libraries that saw different rows"
    return said + "."


def peer_tables(report: Mapping, gemm_gflops: float, n_inputs: int = 784, n_outputs: int = 10) -> tuple:
    """The fits and the streaming rows of ``benchmarks/peers.json`` as two DataFrames.

    Reads only fields that exist: a row's time is its list of runs (``"fit runs (s)"``, ``"runs
    (s)"``, ``"times"``) or its one ``"fit (s)"``; streaming ``"update runs (s)"`` or ``"update (s)"``;
    shown as the median with ``runs``.  Ratios are the report's own, measured in its run (``"ratio
    to greenelm float64"``, ``"ratio to floor"``: medians of each round's ratios at that round's GEMM
    rate); a report without them gets them recomputed: to greenelm float64's median time, and to
    the FLOP floor (:func:`greenelm.solvers.fit_flops`; streaming 3·d²·B) at ``gemm_gflops``
    (float64 rows only: a float32 floor needs a float32 rate).  N is the row's or the report's
    ``n_train``, else full MNIST's 60,000 (the benchmark's default run).
    """
    if not isinstance(report.get("fits"), list):
        raise ValueError("benchmarks/peers.json has no list 'fits': not what benchmarks/peers.py writes")
    rate = float(gemm_gflops) * 1e9
    fits = []
    for row in report["fits"]:
        times = _values(row, "fit runs (s)", "runs (s)", "times", "fit (s)")
        n, d = int(row.get("n_train") or report.get("n_train") or 60000), int(row["d"])
        float64 = "float32" not in str(row["library"])
        floor = fit_flops(n, n_inputs, d, n_outputs).total / rate
        fits.append({"library": row["library"], "N": n, "d": d, "runs": len(times),
                     "fit (s)": statistics.median(times) if times else float("nan"),
                     "accuracy (%)": _median(row, "accuracy (%)"),
                     "peak (GB)": max(_values(row, "peak (GB)"), default=float("nan")),
                     "floor (s)": floor if float64 else float("nan")})
    same_run = [(row.get("ratio to greenelm float64"), row.get("ratio to floor")) for row in report["fits"]]
    fits = pd.DataFrame(fits)
    reference = fits.loc[fits.library == "greenelm-float64", "fit (s)"]
    fits["× greenelm"] = fits["fit (s)"] / (reference.iloc[0] if len(reference) else float("nan"))
    fits["× floor"] = fits["fit (s)"] / fits["floor (s)"]
    for i, (to_greenelm, to_floor) in enumerate(same_run):     # the report's own, from its run
        if to_greenelm is not None:
            fits.loc[i, "× greenelm"] = float(to_greenelm)
        if to_floor is not None:
            fits.loc[i, "× floor"] = float(to_floor)
    streaming = []
    for row in report.get("streaming", []):
        times = _values(row, "update runs (s)", "runs (s)", "times", "update (s)")
        d, b = int(row["d"]), int(row.get("B", 250))
        streaming.append({"library": row["library"], "d": d, "B": b, "runs": len(times),
                          "rows fitted": stream_rows_fitted(report, row),
                          "update (s)": statistics.median(times) if times else float("nan"),
                          "accuracy (%)": _median(row, "accuracy (%)"),
                          "peak (GB)": max(_values(row, "peak (GB)"), default=float("nan")),
                          "× floor": (float(row["ratio to floor"]) if row.get("ratio to floor") is not None
                                      else statistics.median(times) / (3.0 * d * d * b / rate) if times
                                      else float("nan"))})
    streaming = pd.DataFrame(streaming)
    if len(streaming):
        own = streaming[streaming.library == "greenelm"].set_index("d")["update (s)"]
        streaming["× greenelm"] = [t / own.get(d, float("nan")) for t, d in zip(streaming["update (s)"], streaming.d)]
    return fits, streaming


# -- recording ------------------------------------------------------------------------------------
PROCESS = "one fresh process per configuration, an untimed warm-up, then the repeats"


def record_timings(store, timings: pd.DataFrame, factorization: pd.DataFrame, setting: Mapping,
                   dataset: str = "mnist") -> None:
    """Record every timed configuration (seconds, one value per repeat) with the load average read
    before each repeat; ``setting`` describes the Green-ELM fit (dataset, weights, λ, seed...)."""
    for (n, d, phase), group in timings.groupby(["n_samples", "n_hidden", "phase"], sort=False):
        row = group.iloc[0]
        store.record(f"{dataset}/green-elm/unit/cholesky/phase={phase}/n={n}/d={d}/seconds", row.times, "s",
                     **setting, phase=phase, n_train=int(n), n_hidden=int(d), repeats=len(row.times),
                     chunk_rows=4096, process=PROCESS, load_average_1min=list(row.load))
    for row in factorization.itertuples():
        store.record(f"machine/cholesky/float64/order={row.order}/seconds", row.times, "s",
                     quantity="scipy.linalg.cho_factor (LAPACK potrf) of an SPD matrix", order=int(row.order),
                     dtype="float64", repeats=len(row.times), process=PROCESS, load_average_1min=list(row.load))


def record_exponents(store, exponents: pd.DataFrame, setting: Mapping, dataset: str = "mnist") -> dict:
    """Record each exponent (wall time's, its 95 % CI half-width, the FLOP model's) and return
    ``{(phase, against): [keys]}``."""
    keys = {}
    for _, row in exponents.iterrows():
        span = f"{row.against.lower()}={row.sizes[0]}-{row.sizes[-1]}"
        if row.phase == "factorization":
            prefix, own = f"machine/cholesky/float64/order={row.sizes[0]}-{row.sizes[-1]}", {"dtype": "float64"}
        else:
            prefix, own = f"{dataset}/green-elm/unit/cholesky/phase={row.phase}/{row.fixed}/{span}", dict(setting)
        # the worst load read before its timings, for the quiet rule (1- and 5-minute, or the 1-minute alone)
        load = {"load_average": list(row["load"])} if len(row["load"]) == 2 else {"load_average_1min": list(row["load"])}
        common = dict(**own, phase=row.phase, against=row.against, sizes=row.sizes, fixed=row.fixed,
                      fit="least squares of log median time on log size, every size", **load)
        keys[row.phase, row.against] = [
            store.record(f"{prefix}/exponent", [row["time"]], "exponent", **common).key,
            store.record(f"{prefix}/exponent-ci95-half-width", [row["half width"]], "exponent", **common,
                         interval="95 % confidence, t with n - 2 degrees of freedom").key,
            store.record(f"{prefix}/flop-exponent", [row["count"]], "exponent", **common,
                         quantity="the same fit on the FLOP model (greenelm.solvers.fit_flops)").key]
    return keys


# -- the benchmark report (benchmarks/report.json): Table IV and whole-fit ratios ------------------
LISTING2 = {"pinv": "listing 2 'pinv'", "lu": "listing 2 'lud'", "cholesky": "listing 2 'cholesky'"}


def report_source(report: Mapping) -> dict:
    """Provenance of a number read from ``benchmarks/report.json``: file, command, date."""
    meta = report["meta"]
    return {"source": "benchmarks/report.json", "command": meta["command"], "measured": meta["date"]}


def record_table_iv(store, report: Mapping, paper_iv: pd.DataFrame, n_hidden: int = 2000,
                    alpha: float = 1e-3, dataset: str = "mnist") -> tuple:
    """Record the report's listing-2 solve times on one shared H (Table IV's setting) and the
    pinv / LU ratio; returns (table, {solver: Result}, ratio Result): at Table IV's setting the
    quiet paired ratio of the headline-ratio benchmark when it exists, else the report's one run."""
    same_h = pd.DataFrame([r for r in report["tables"]["same_h"] if r.get("solve_seconds") is not None])
    rows, results = [], {}
    for solver, variant in LISTING2.items():
        row = same_h[(same_h.variant == variant) & (same_h.n_hidden == n_hidden)].iloc[0]
        results[solver] = store.record(
            f"{dataset}/paper-listing2/{solver}/same-h/n=60000/d={n_hidden}/solve-seconds", [row.solve_seconds], "s",
            dataset=dataset, model="paper listing 2", solver=solver, n_train=60000, n_hidden=n_hidden,
            alpha=None if solver == "pinv" else alpha, features="listing 1's H (seed 42), shared by every solver",
            timed="solve alone", dtype="float64", **report_source(report))
        rows.append({"solver": solver, "paper (s)": float(paper_iv.loc[solver, "seconds"]),
                     "ours, solve alone (s)": results[solver].mean})
    ratio = store.record(
        f"{dataset}/paper-listing2/pinv-over-lu/same-h/n=60000/d={n_hidden}/solve-time-ratio",
        [results["pinv"].mean / results["lu"].mean], "×", dataset=dataset, model="paper listing 2", ratio="pinv / lu",
        n_train=60000, n_hidden=n_hidden, features="listing 1's H (seed 42), shared by every solver",
        timed="solve alone", **report_source(report))
    # Table IV's own setting (MNIST, d = 2000): the ratio from one quiet process's interleaved pairs
    # (benchmarks/headline_ratios), which the claim is judged on, when the benchmark has measured it
    quiet = (bench.record_quiet_ratio(store, "table4_pinv_over_lu_mnist_d2000")
             if dataset == "mnist" and n_hidden == 2000 else None)
    return pd.DataFrame(rows), results, quiet if quiet is not None and _is_quiet_pairs(quiet) else ratio


def _is_quiet_pairs(ratio) -> bool:
    return "quiet" in str(ratio.setting.get("timing", "")) and "run" in ratio.setting


def answer_table_iv(store, paper_iv: pd.DataFrame, solves: dict, ratio) -> Verdict:
    """Answer Table IV's seconds (never judged across machines); the pinv row also rests on the
    pinv / LU ratio, which the scorecard judges: the quiet interleaved pairs' ``ratio`` when it is
    one, else the LU solve timed in the same run (the report's one process on one shared H).
    Returns the pinv row's verdict (the ratio test's), for the sentence that quotes the ratio."""
    from ..judging.rejudge import answer_as_scorecard

    verdicts = {}
    for solver, res in solves.items():
        keys = [res.key]
        if solver == "pinv":
            keys.append(ratio.key if _is_quiet_pairs(ratio) else solves["lu"].key)
        verdicts[solver] = answer_as_scorecard(store, f"table4_{solver}_d2000_seconds",
                            judge_time(paper_iv.loc[solver, "seconds"], res.values), keys, [ratio],
                            note=f"{bench.timed_words('listing2', solver)}; on listing 1's H, full MNIST, one run "
                                 "(benchmark report)" + (("; the pinv / LU ratio from the quiet interleaved pairs"
                                               if _is_quiet_pairs(ratio) else "; the pinv / LU ratio of that run")
                                              if len(keys) == 2 else ""))
    return verdicts["pinv"]


def ratio_test_words(verdict: Verdict) -> str:
    """What the ratio test against a paper's ratio gave, for a sentence that sets our ratio beside the
    paper's without a comparative (the test judges direction and order of magnitude, never "larger than"):
    ``"inconclusive (too few runs)"``, ``"concordant (<detail>)"``."""
    from ..judging.verdicts import RATIO_LABELS, no_direction_why

    if verdict.label in RATIO_LABELS:
        return f"{verdict.label} ({verdict.detail})"
    return f"{verdict.label} ({no_direction_why(verdict, 2.0)})"


def paper_seconds_words(paper_iv: pd.DataFrame) -> dict:
    """The paper's solver seconds as the Table IV section quotes them (glue name → text), from
    ``paper_iv`` (:data:`greenelm_book.paper.TABLE_IV` indexed by solver) and Table I's MNIST pinv fit."""
    from .. import paper

    seconds = paper_iv["seconds"]
    table1 = paper.TABLE_I.set_index(["dataset", "solver"]).loc[("mnist", "pinv"), "train_seconds"]
    return {"paper_iv_seconds": f"pinv {seconds['pinv']:.1f} s, LU {seconds['lu']:.1f} s, "
                                f"Cholesky {seconds['cholesky']:.1f} s",
            "paper_ratio_terms": f"{seconds['pinv']:.1f} s / {seconds['lu']:.1f} s",
            "paper_table4_pinv_seconds": f"{seconds['pinv']:.1f} s",
            "paper_table1_pinv_seconds": f"{table1:.2f} s"}


def ratio_how(ratio) -> str:
    """How the pinv / LU ``ratio`` was timed, in words for the page."""
    if _is_quiet_pairs(ratio):
        return (f"timed pair by pair in one quiet process: {ratio.n} pairs, python -m "
                f"benchmarks.headline_ratios, {ratio.setting['started_at'][:10]}")
    return "from the report's one run of each"


def record_fit_ratios(store, report: Mapping, widths=(2000, 4000), n_inputs: int = 784, n_outputs: int = 10,
                      dataset: str = "mnist") -> pd.DataFrame:
    """Whole-fit time ratios of the paper's listing 1 (pinv; normal equations) to greenelm's Cholesky
    fit on full MNIST from the report, and the pinv / Cholesky FLOP ratio; one row per width."""
    fits = pd.DataFrame(report["tables"]["fit"])

    def seconds(method, d):
        hit = fits[fits.method.str.startswith(method) & (fits.n_hidden == d) & (fits.dtype == "float64")]
        return float(hit.seconds.iloc[0]) if len(hit) and pd.notna(hit.seconds.iloc[0]) else float("nan")

    rows = []
    for d in widths:
        row = {"width d": d}
        for label, method, short in (("listing 1 pinv / greenelm", "listing 1, np.linalg.pinv", "pinv"),
                                     ("listing 1 normal eq. / greenelm", "listing 1, np.linalg.solve", "normal")):
            ratio = seconds(method, d) / seconds("greenelm", d)
            if np.isfinite(ratio):
                row[label] = store.record(
                    f"{dataset}/paper-listing1-{short}-over-green-elm/n=60000/d={d}/fit-time-ratio", [ratio], "×",
                    dataset=dataset, ratio=f"paper listing 1 ({short}) / greenelm Cholesky", n_train=60000,
                    n_hidden=d, timed="whole fit (median of the report's runs)", dtype="float64",
                    **report_source(report)).mean
        row["pinv / greenelm, FLOPs"] = store.record(
            f"{dataset}/paper-listing1-pinv-over-green-elm/n=60000/d={d}/flop-ratio",
            [bench.pinv_flops(60000, n_inputs, d, n_outputs) / fit_flops(60000, n_inputs, d, n_outputs).total], "×",
            dataset=dataset, ratio="paper listing 1 (pinv) / greenelm Cholesky", n_train=60000, n_hidden=d,
            quantity="FLOPs counted (bench.pinv_flops, greenelm.solvers.fit_flops)").mean
        rows.append(row)
    return pd.DataFrame(rows)


def record_peers(store, fits: pd.DataFrame, streaming: pd.DataFrame, report: Mapping) -> None:
    """Record the peer table's times, accuracies and peak memory (read from ``benchmarks/peers.json``)."""
    source = {"source": "benchmarks/peers.json", "command": report.get("command", ""), "measured": report.get("date", "")}
    for raw, row in zip(report["fits"], fits.to_dict("records")):
        if not np.isfinite(row["fit (s)"]):
            continue
        prefix = f"mnist/peers/{row['library']}/n={row['N']}/d={row['d']}"
        setting = dict(dataset="mnist", library=row["library"], n_train=row["N"], n_hidden=row["d"], **source)
        store.record(f"{prefix}/fit-seconds", _values(raw, "fit runs (s)", "runs (s)", "times", "fit (s)"), "s",
                     **setting, timed="whole fit in a fresh process")
        store.record(f"{prefix}/accuracy", _values(raw, "accuracy (%)"), "%", **setting)
        store.record(f"{prefix}/peak-gb", _values(raw, "peak (GB)"), "GB", **setting, quantity="peak RSS of the process")
    for raw, row in zip(report.get("streaming", []), streaming.to_dict("records")):
        if not np.isfinite(row["update (s)"]):
            continue
        prefix = f"mnist/peers-streaming/{row['library']}/d={row['d']}/b={row['B']}"
        setting = dict(dataset="mnist", library=row["library"], n_hidden=row["d"], batch=row["B"], **source)
        store.record(f"{prefix}/update-seconds", _values(raw, "update runs (s)", "runs (s)", "times", "update (s)"),
                     "s", **setting, timed="median update after an initial block")
        store.record(f"{prefix}/accuracy", _values(raw, "accuracy (%)"), "%", **setting)
        store.record(f"{prefix}/peak-gb", _values(raw, "peak (GB)"), "GB", **setting, quantity="peak RSS of the process")
