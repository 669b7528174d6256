"""Generated data for the scale-out chapter and benchmark: a dataset's training images repeated to
any number of rows with seeded random pixel shifts, as a lazy ``dask.array`` whose blocks are made
inside the tasks (no process ever holds the whole matrix)::

    from greenelm_book.chapters.scale_out import shifted_mnist
    X, y = shifted_mnist(2_000_000, block_rows=20_000, seed=0)     # (2e6, 784) float32, (2e6,)
    model = greenelm.distributed.fit_dask(ELMClassifier(n_hidden=2000), X, y, client=client)

and the scale-out chapter's steps: the FLOP split of a fit (:func:`flop_split`), the equality of the
single-machine and Dask fits (:func:`equality_fits`, :func:`record_equality`), and the committed
benchmark's records, figure and verdict (:func:`load_benchmark`, :func:`record_benchmark`,
:func:`plot_benchmark`, :func:`answer_linear_in_n`).
"""

from __future__ import annotations

import functools
import json
import time
from pathlib import Path

import numpy as np
import pandas as pd

from greenelm._validation import check_positive_int

__all__ = ["shifted_mnist", "flop_split", "equality_fits", "record_equality", "equality_table",
           "load_benchmark", "record_benchmark", "benchmark_table", "plot_benchmark", "answer_linear_in_n",
           "benchmark_glues"]


@functools.lru_cache(maxsize=2)
def _training_images(dataset: str):
    from greenelm.data import load_dataset

    ds = load_dataset(dataset)
    return ds.x_train, ds.y_train


def _shifted_block(index, *, dataset: str, seed: int, max_shift: int, dtype: str):
    """Rows ``index`` (n,) of the generated data: training image ``i mod N_train`` shifted by a
    random (dy, dx) ∈ [-max_shift, max_shift]² drawn from ``(seed, index[0])``; (n, D) in [0, 1]."""
    from numpy.lib.stride_tricks import sliding_window_view

    images, _ = _training_images(dataset)
    base = images[np.asarray(index) % len(images)]
    if len(base) == 0:
        return np.empty((0, int(np.prod(images.shape[1:]))), dtype=dtype)
    s = max_shift
    h, w = images.shape[1:3]
    rng = np.random.default_rng([seed, int(index[0])])
    dy, dx = rng.integers(0, 2 * s + 1, size=(2, len(base)))
    pad = [(0, 0), (s, s), (s, s)] + [(0, 0)] * (base.ndim - 3)
    windows = sliding_window_view(np.pad(base, pad), (h, w), axis=(1, 2))
    shifted = windows[np.arange(len(base)), dy, dx]      # (n, [C,] h, w)
    if base.ndim == 4:                                   # colour: back to (n, h, w, C)
        shifted = np.moveaxis(shifted, 1, -1)
    out = shifted.reshape(len(base), -1).astype(dtype)
    out /= 255
    return out


def _labels_block(index, *, dataset: str):
    _, labels = _training_images(dataset)
    return labels[np.asarray(index) % len(labels)]


def shifted_mnist(n_rows: int, block_rows: int = 20_000, seed: int = 0, max_shift: int = 2,
                  dataset: str = "mnist", dtype: str = "float32"):
    """Lazy ``(X (n_rows, D), y (n_rows,))``: a dataset's training images repeated to ``n_rows``
    rows with seeded random pixel shifts, generated block by block inside the tasks (never
    materialised whole). Row i is image ``i mod 60000`` shifted by up to ``max_shift`` pixels;
    the data depends only on ``(seed, block_rows)``. Workers load the images themselves (cached
    per process), so they need the dataset files (``GREENELM_DATA``)."""
    import dask.array as da

    n_rows = check_positive_int("n_rows", n_rows)
    block_rows = check_positive_int("block_rows", block_rows)
    if isinstance(max_shift, bool) or not isinstance(max_shift, (int, np.integer)) or max_shift < 0:
        raise ValueError(f"max_shift must be a non-negative whole number of pixels, got {max_shift!r}")
    images, _ = _training_images(dataset)
    n_inputs = int(np.prod(images.shape[1:]))
    rows = da.arange(n_rows, chunks=block_rows)
    # the generator's own ``dtype`` goes in a partial: map_blocks keeps ``dtype=`` for itself
    generate = functools.partial(_shifted_block, dataset=dataset, seed=seed, max_shift=max_shift,
                                 dtype=dtype)
    X = rows.map_blocks(generate, new_axis=1, chunks=(rows.chunks[0], (n_inputs,)), dtype=dtype,
                        meta=np.empty((0, 0), dtype=dtype))
    y = rows.map_blocks(functools.partial(_labels_block, dataset=dataset), dtype=np.int64,
                        meta=np.empty((0,), dtype=np.int64))
    return X, y


# ------------------------------------------------------------------ the scale-out chapter


def flop_split(sizes, n_inputs: int = 784, n_hidden: int = 2000, n_classes: int = 10) -> pd.DataFrame:
    """Per N in ``sizes``: the fit's features, Gram and solve FLOPs (TFLOP,
    :func:`greenelm.solvers.fit_flops`) and the solve's share of the total (%), the client's part."""
    from greenelm.solvers import fit_flops

    work = pd.DataFrame([{"N": n, **vars(fit_flops(n, n_inputs, n_hidden, n_classes))} for n in sizes])
    work["client share (%)"] = 100 * work["solve"] / (work["features"] + work["gram"] + work["solve"])
    work[["features", "gram", "solve"]] = work[["features", "gram", "solve"]] / 1e12
    return work


def _timed(fit):
    """``(fitted model, wall seconds)`` of ``fit()``."""
    start = time.perf_counter()
    fitted = fit()
    return fitted, time.perf_counter() - start


def fit_labels(n_workers: int) -> dict:
    """The fits' names as tables show them."""
    return {"single": "single machine (ELMClassifier.fit)", "threads": "Dask, threaded scheduler",
            "localcluster": f"Dask, LocalCluster ({n_workers} processes × 1 thread)"}


def equality_fits(X_dask, y_dask, X_train, y_train, *, n_hidden: int, seed: int, n_workers: int) -> dict:
    """The same ``ELMClassifier(n_hidden, random_state=seed)`` fitted on (X_train (N, D), y_train (N,))
    in this process, and by :func:`greenelm.distributed.fit_dask` on the same rows as dask arrays with
    the threaded scheduler and on a fresh ``LocalCluster`` of ``n_workers`` single-threaded processes.
    Returns ``{"single" | "threads" | "localcluster": (fitted model, wall seconds)}``."""
    from dask.distributed import Client, LocalCluster

    from greenelm import ELMClassifier
    from greenelm.distributed import fit_dask

    def model():
        return ELMClassifier(n_hidden=n_hidden, random_state=seed)

    fits = {"single": _timed(lambda: model().fit(X_train, y_train)),
            "threads": _timed(lambda: fit_dask(model(), X_dask, y_dask, scheduler="threads"))}
    with LocalCluster(n_workers=n_workers, threads_per_worker=1, processes=True,
                      dashboard_address=None) as cluster, Client(cluster) as client:
        fits["localcluster"] = _timed(lambda: fit_dask(model(), X_dask, y_dask, client=client))
    return fits


def record_equality(store, fits: dict, X_test, y_test, *, n_train: int, n_hidden: int, seed: int,
                    block_rows: int, labels: dict) -> dict:
    """Record each fit's test accuracy (%) and seconds, and for the Dask fits the largest coefficient
    difference from the single-machine fit (relative to its largest coefficient) and the share of
    test predictions equal to its (%). Returns ``{(fit name, quantity): Result}``, quantity one of
    accuracy, seconds, difference, agreement."""
    reference = fits["single"][0]
    scale = np.abs(reference.coef_).max()
    reference_predictions = reference.predict(X_test)
    setting = {"dataset": "mnist", "n_train": n_train, "n_test": len(y_test), "model": "Green-ELM",
               "n_hidden": n_hidden, "alpha": reference.alpha, "solver": reference.solver,
               "weight_scale": reference.weight_scale, "bias": reference.bias, "seed": seed,
               "block_rows": block_rows}
    keys = {}
    for name, (fitted, seconds) in fits.items():
        fit_setting = {**setting, "fit": labels[name]}
        base = f"mnist/green-elm/fit-{name}/d={n_hidden}/n={n_train}"
        keys[name, "accuracy"] = store.record(f"{base}/accuracy", [100 * fitted.score(X_test, y_test)], "%",
                                              **fit_setting)
        keys[name, "seconds"] = store.record(f"{base}/fit-seconds", [seconds], "s", **fit_setting,
                                             timing="one run, not on a quiet machine")
        if name != "single":
            keys[name, "difference"] = store.record(
                f"{base}/coef-difference", [np.abs(fitted.coef_ - reference.coef_).max() / scale], "",
                **fit_setting, quantity="max |coef − coef_single| / max |coef_single|")
            keys[name, "agreement"] = store.record(
                f"{base}/same-predictions", [100 * np.mean(fitted.predict(X_test) == reference_predictions)], "%",
                **fit_setting, quantity="test predictions equal to the single-machine fit's")
    return keys


def equality_table(keys: dict, labels: dict) -> pd.DataFrame:
    """One row per fit: seconds, coefficient difference, test accuracy (%), same predictions (%)."""
    return pd.DataFrame([{
        "fit": labels[name], "seconds": keys[name, "seconds"].mean,
        "max |Δ coef| / max |coef|": (f"{keys[name, 'difference'].mean:.1e}" if name != "single" else "0"),
        "test accuracy (%)": keys[name, "accuracy"].mean,
        "same predictions (%)": (keys[name, "agreement"].mean if name != "single" else 100.0)}
        for name in labels])


def load_benchmark(path, root: Path) -> tuple[dict, pd.DataFrame, dict]:
    """The committed ``benchmarks.scaleout`` report at ``path`` (relative to the repository ``root``
    unless absolute): ``(report, one row per N with its worker peaks' max as "worker peak MB (max)",
    the store setting of its results)``."""
    path = Path(path)
    if not path.is_absolute():
        path = root / path
    report = json.loads(path.read_text())
    bench = pd.DataFrame(report["rows"])
    bench["worker peak MB (max)"] = bench["worker_peak_mb"].map(max)
    config = report["config"]
    bench.attrs["config"] = dict(config)          # its precision and workers, for the FLOP rate's words
    setting = {"dataset": "mnist, repeated with random shifts of up to 2 pixels", "model": "Green-ELM",
               "n_hidden": config["n_hidden"], "block_rows": config["block_rows"],
               "fit": f"Dask LocalCluster, {config['n_workers']} workers × 1 thread",
               "source": f"{path.relative_to(root) if path.is_relative_to(root) else path} "
                         f"({report['command']}, {report['date']})"}
    return report, bench, setting


def record_benchmark(store, bench: pd.DataFrame, setting: dict) -> dict:
    """Record each N's wall seconds, CPU seconds per million rows and largest worker peak (MB), and, for
    the sizes the report also fitted with ``ELMClassifier.fit`` in one process, that process's wall seconds
    to generate and fit the rows, as the Dask fit's count both (``(N, "single-wall-seconds")``, under a key
    of its own); returns ``{(N, quantity): Result}``."""
    keys = {}
    for row in bench.itertuples():
        # the 1-minute load average the report read for this size (the quiet rule judges the timings by it)
        load = ({"load_average_1min": [float(row.dask_load_average)]} if hasattr(row, "dask_load_average") else {})
        for quantity, value, unit in (("wall-seconds", row.dask_seconds, "s"),
                                      ("cpu-seconds-per-million", row.dask_cpu_seconds_per_million, "s"),
                                      ("worker-peak-mb", max(row.worker_peak_mb), "MB")):
            keys[row.n_rows, quantity] = store.record(
                f"mnist-shifted/green-elm/dask/d={setting['n_hidden']}/n={row.n_rows}/{quantity}", [value], unit,
                **setting, n_train=int(row.n_rows), **load)
        single = getattr(row, "single_seconds", None)
        if single is not None and not pd.isna(single):
            single_load = ({"load_average_1min": [float(row.single_load_average)]}
                           if not pd.isna(getattr(row, "single_load_average", float("nan"))) else {})
            # generating the rows and fitting them, as the Dask fit's wall seconds count both (and as the
            # report's dask_over_single divides them)
            generate = float(getattr(row, "single_generate_seconds", 0.0) or 0.0)
            keys[row.n_rows, "single-wall-seconds"] = store.record(
                f"mnist-shifted/green-elm/single-process/d={setting['n_hidden']}/n={row.n_rows}/wall-seconds",
                [float(single) + generate], "s",
                **dict(setting, fit="generate the rows, then ELMClassifier.fit, one process on both cores"),
                n_train=int(row.n_rows), **single_load)
    return keys


def benchmark_table(bench: pd.DataFrame, keys: dict) -> pd.DataFrame:
    """One row per N: blocks, wall seconds (total and per million rows), CPU s per million, worker peak, and
    the one-process fit's wall seconds where the report has it (NaN, shown "—", for the sizes too large
    to hold in one process)."""
    return pd.DataFrame([{
        "rows N": int(row.n_rows), "blocks": int(row.blocks), "wall (s)": keys[row.n_rows, "wall-seconds"].mean,
        "wall s / million": row.dask_seconds_per_million,
        "CPU s / million": keys[row.n_rows, "cpu-seconds-per-million"].mean,
        "worker peak (MB)": keys[row.n_rows, "worker-peak-mb"].mean,
        "one process, wall (s)": (keys[row.n_rows, "single-wall-seconds"].mean
                                  if (row.n_rows, "single-wall-seconds") in keys else float("nan"))}
        for row in bench.itertuples()])


def single_rows(bench: pd.DataFrame) -> pd.DataFrame:
    """The benchmark's rows that also fitted in one process (none when the report has no such column)."""
    return bench.dropna(subset=["single_seconds"]) if "single_seconds" in bench else bench.iloc[:0]


def plot_benchmark(bench: pd.DataFrame):
    """Time per million rows (wall and CPU) and peak memory per process against N, Dask and one process
    (where the report has single-process rows)."""
    import matplotlib.pyplot as plt

    from ..report import colour

    single = single_rows(bench)
    dask_colour, single_colour = colour("Dask workers"), colour("one process")
    fig, (ax_time, ax_memory) = plt.subplots(1, 2, figsize=(11, 4))
    ax_time.plot(bench.n_rows, bench.dask_seconds_per_million, "o-", color=dask_colour,
                 label="Dask, 2 workers × 1 thread: wall s")
    ax_time.plot(bench.n_rows, bench.dask_cpu_seconds_per_million, "o:", color=dask_colour,
                 label="Dask: CPU s (all processes)")
    if len(single):
        ax_time.plot(single.n_rows, (single.single_seconds + single.single_generate_seconds)
                     / single.n_rows * 1e6, "s-", color=single_colour, label="one process, 2 threads: wall s")
        ax_time.plot(single.n_rows, single.single_cpu_seconds_per_million, "s:", color=single_colour,
                     label="one process: CPU s")
    ax_time.set(xscale="log", xlabel="rows N", ylabel="seconds per million rows", ylim=(0, None),
                title="time per million rows (generate + fit)")
    for worker in range(len(bench.worker_peak_mb.iloc[0])):
        ax_memory.plot(bench.n_rows, bench.worker_peak_mb.map(lambda m: m[worker]), "o-", color=dask_colour,
                       alpha=1 - 0.4 * worker, label=f"Dask worker {worker + 1}")
    if len(single):
        ax_memory.plot(single.n_rows, single.single_peak_mb, "s-", color=single_colour,
                       label="one process (holds X)")
    ax_memory.set(xscale="log", xlabel="rows N", ylabel="peak resident memory (MB)", ylim=(0, None),
                  title="peak memory per process")
    last = -1 if len(single) else None   # the single process's memory line repeats its time lines' colour
    handles = ax_time.get_legend_handles_labels()[0] + ax_memory.get_legend_handles_labels()[0][:last]
    labels = ax_time.get_legend_handles_labels()[1] + ax_memory.get_legend_handles_labels()[1][:last]
    fig.legend(handles, labels, loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=3, frameon=False)
    fig.tight_layout()
    return fig


def answer_linear_in_n(store, bench: pd.DataFrame, keys: dict, setting: dict) -> dict:
    """Fit time ∝ N^p to the recorded wall and CPU times (least squares on log–log), record both
    exponents and answer ``total_cost_linear_in_n`` (the 95 % CI of p(CPU) within
    :data:`greenelm_book.judging.rejudge.LINEAR_BAND`, by
    :func:`greenelm_book.judging.rejudge.linear_in_n_verdict`, the scorecard's test). Returns ``{"wall":
    p, "cpu": p, "linear": the verdict's label, "wall_seconds": (n,), "peaks": (n,) MB}``."""
    from ..report import Verdict

    n_rows = bench.n_rows.to_numpy(dtype=float)
    wall = np.array([keys[n, "wall-seconds"].mean for n in bench.n_rows])
    cpu = np.array([keys[n, "cpu-seconds-per-million"].mean for n in bench.n_rows]) * n_rows / 1e6
    peaks = np.array([keys[n, "worker-peak-mb"].mean for n in bench.n_rows])
    wall_exponent = np.polyfit(np.log(n_rows), np.log(wall), 1)[0]
    cpu_exponent = np.polyfit(np.log(n_rows), np.log(cpu), 1)[0]
    d = setting["n_hidden"]
    exponent_keys = {name: store.record(f"mnist-shifted/green-elm/dask/d={d}/{name}-time-exponent",
                                        [value], "", **setting, sizes=[int(n) for n in n_rows],
                                        quantity=f"p of {name} time ∝ N^p (least squares on log-log)")
                     for name, value in (("wall", wall_exponent), ("cpu", cpu_exponent))}
    from ..judging.rejudge import answer_as_scorecard, linear_in_n_verdict

    cpu_keys = [keys[n, "cpu-seconds-per-million"].key for n in bench.n_rows]
    judged = linear_in_n_verdict(cpu_keys, store.results)
    # the scorecard's judgement, recorded and shown: the quiet rule applies to the benchmark's timings
    linear = answer_as_scorecard(store, "total_cost_linear_in_n", Verdict(
        judged.label, f"{judged.ours} (CPU), wall {wall_exponent:.2f}; worker memory {peaks.min():.0f}–{peaks.max():.0f} MB",
        f"{judged.detail}, for the Dask fit at d = {d}, N from {int(n_rows[0]):,} to {int(n_rows[-1]):,} (the "
        f"committed benchmark)"),
        [k.key for k in exponent_keys.values()] + cpu_keys)
    return {"wall": wall_exponent, "cpu": cpu_exponent, "linear": linear, "tested": judged.label,
            "wall_seconds": wall, "peaks": peaks}


def gflops_text(gflops: float, config: dict | None) -> str:
    """A FLOP rate with what it is a rate of: ``"85 GFLOP/s, float64: the FLOP model's count over the wall
    time of 2 single-threaded worker processes"`` (``config``: the report's, with ``dtype``, ``n_workers``
    and ``threads_per_worker``; None, or no ``dtype``: the rate alone, its precision not recorded)."""
    if not config or not config.get("dtype"):
        return f"{gflops:.0f} GFLOP/s, precision not recorded"
    threads = int(config.get("threads_per_worker", 1))
    how = "single-threaded" if threads == 1 else f"{threads}-thread"
    text = (f"{gflops:.0f} GFLOP/s, {config['dtype']}: the FLOP model's count over the wall time of "
            f"{config['n_workers']} {how} worker processes")
    gemm = config.get("gemm_gflops")
    if gemm:
        return f"{text}, {gflops / gemm:.0%} of the {gemm:.0f} GFLOP/s GEMM rate the run measured"
    return (f"{text}; the run measured no GEMM rate of its own, so no other page's GEMM reading (another day, "
            "another process) is a ceiling for it")


def linear_words(verdict, tested: str | None = None) -> str:
    """The clause the benchmark's prose states for the scorecard's verdict on ``total_cost_linear_in_n``
    (a :class:`~greenelm_book.report.Verdict` or its label): linear, not linear, or why it is not judged
    (a verdict bounded by the quiet rule names the rule and ``tested``, the label the test itself gives on
    the busy timings)."""
    from ..judging.rejudge import rule_of

    label = getattr(verdict, "label", verdict)
    if label == "holds":
        return "the total cost is linear in N"
    if label == "does not hold":
        return "the total cost is not linear in N"
    if hasattr(verdict, "detail") and rule_of(verdict) == "quiet_rule":
        return ("whether the total cost is linear in N is not judged: the benchmark's timings are not recorded "
                "as quiet (the quiet rule)" + (f"; on them the test gives {tested}" if tested else ""))
    return "the total cost is not shown to be linear in N"


def benchmark_glues(bench: pd.DataFrame, fit: dict, config: dict | None = None) -> dict:
    """The texts the benchmark's prose quotes; ``fit`` is :func:`answer_linear_in_n`'s result, ``config``
    the report's (its precision and workers, :func:`gflops_text`; default: the one :func:`load_benchmark`
    keeps in ``bench.attrs``)."""
    from ..judging.rejudge import LINEAR_BAND

    config = bench.attrs.get("config") if config is None else config
    n_rows = bench.n_rows.to_numpy(dtype=float)
    wall, peaks, largest = fit["wall_seconds"], fit["peaks"], bench.iloc[-1]
    glues = {"bench_largest_n": f"{int(largest.n_rows):,}", "bench_largest_seconds": f"{wall[-1]:.0f} s",
             "bench_per_million": f"{largest.dask_seconds_per_million:.0f} s",
             "bench_cpu_per_million": f"{largest.dask_cpu_seconds_per_million:.0f} CPU s",
             "bench_load": f"{largest.dask_load_average:.1f}",
             "bench_gflops": gflops_text(largest.dask_gflops, config),
             "bench_exponents": f"{fit['wall']:.2f} for wall time and {fit['cpu']:.2f} for CPU time",
             "bench_linear": linear_words(fit["linear"], fit.get("tested")),
             "bench_linear_band": f"with its 95 % confidence interval within {LINEAR_BAND[0]:g}–{LINEAR_BAND[1]:g}",
             "bench_peak_range": f"{peaks.min():.0f}–{peaks.max():.0f} MB",
             "bench_peak_change": f"{100 * (peaks[-1] / peaks[0] - 1):+.0f} %",
             "bench_n_range": f"{int(n_rows[0]):,} to {int(n_rows[-1]):,}",
             "bench_n_factor": f"{n_rows[-1] / n_rows[0]:.0f}-fold"}
    single = single_rows(bench)
    if len(single):
        compared = single.iloc[-1]
        cpu_ratio = compared.dask_cpu_seconds_per_million / compared.single_cpu_seconds_per_million
        glues["bench_ratio"] = (f"{compared.dask_over_single:.2f} times the wall time and {cpu_ratio:.2f} times "
                                f"the CPU time of the single process at N = {int(compared.n_rows):,}")
        glues["bench_coef_difference"] = f"{compared.max_coef_difference_relative:.0e}"
        glues["bench_single_peak"] = f"{compared.single_peak_mb:,.0f} MB"
    else:
        for key in ("bench_ratio", "bench_coef_difference", "bench_single_peak"):
            glues[key] = "not measured in this report"
    return glues
