# ---
# jupyter:
#   jupytext:
#     text_representation:
#       extension: .py
#       format_name: percent
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Appendix: scale-out with Dask
#
# The paper's Hardware and Complexity Analysis splits the cost of a Green-ELM fit into
# $O(NDd)$ for the features $H = \max(0, XW + b)$, $O(Nd^2)$ for $H^\top H$ and about $O(d^3)$
# for the factorisation {cite}`silva2026greenelm`. Its Streaming section rests on the fact behind
# that split: the readout needs only $H^\top H$ ($d\times d$) and $H^\top Y$ ($d\times k$), and
# both are **sums over samples**. Cut the $N$ rows into blocks $X_1, \dots, X_B$:
#
# $$H^\top H = \sum_{b=1}^{B} H_b^\top H_b, \qquad H^\top Y = \sum_{b=1}^{B} H_b^\top Y_b .$$
#
# So a fit on more rows than one machine holds is a map-reduce. `greenelm.distributed.fit_dask`
# builds it on [Dask](https://www.dask.org): **map** — one task per row block rebuilds $W, b$
# from the seed on its worker (cached per process, never shipped), computes $H_b$ in sub-chunks and
# returns the block's $[H_b^\top H_b \mid H_b^\top Y_b]$; **reduce** — dask.array's tree sum adds
# the partials four at a time on the workers; **solve** — the client factorises the one
# $d\times d$ system with the same solver as `ELMClassifier.fit`. The $O(NDd)$ and $O(Nd^2)$
# terms spread over the workers; only the $O(d^3)$ solve stays on the client, and it does not
# grow with $N$.

# %% tags=["parameters"]
profile = "smoke"
seed = 0
subset = 2000  # MNIST training and test images for the equality check (None: all of them)
n_hidden = 500
block_rows = 450  # rows per Dask block
n_workers = 2
benchmark_report = "benchmarks/scaleout.json"

# %%
import json
import time
import warnings
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from dask.distributed import Client, LocalCluster

from greenelm import ELMClassifier
from greenelm.distributed import fit_dask
from greenelm.solvers import fit_flops
from greenelm_book.experiments import load_split
from greenelm_book.report import colour, glue, judge_qualitative, set_style, show_table
from greenelm_book.results import ROOT, ChapterResults
from greenelm_book.scaleout import shifted_mnist

warnings.filterwarnings("ignore", message=".*[Pp]ort .* is already in use.*")
set_style()
store = ChapterResults("scale_out", profile)

# %% [markdown]
# ## Where the work is
#
# The paper's three terms for MNIST (D = 784, k = 10) at d = 2000, counted by
# `greenelm.solvers.fit_flops` (a multiply–add is two FLOPs; the Gram by `syrk` is half a GEMM).
# The last column is the part that stays on the client.

# %%
work = pd.DataFrame([{"N": n, **vars(fit_flops(n, 784, 2000, 10))}
                     for n in (60_000, 500_000, 2_000_000, 20_000_000)])
work["client share (%)"] = 100 * work["solve"] / (work["features"] + work["gram"] + work["solve"])
work[["features", "gram", "solve"]] = work[["features", "gram", "solve"]] / 1e12
show_table(work.rename(columns={"features": "features (TFLOP)", "gram": "Gram (TFLOP)",
                                "solve": "solve (TFLOP)"}), digits=4, integers=["N"])

# %% tags=["remove-cell"]
glue("client_share_60k", f"{work['client share (%)'].iloc[0]:.2f} %", display=False)
glue("client_share_20m", f"{work['client share (%)'].iloc[-1]:.4f} %", display=False)

# %% [markdown]
# Already at MNIST's 60,000 images the client's solve is {glue:text}`client_share_60k` of the
# work; at 20 million rows it is {glue:text}`client_share_20m`. Everything else distributes.

# %% [markdown]
# ## The distributed fit is the single-machine fit
#
# Same seed, same data: `ELMClassifier.fit` in this process, then `fit_dask` on dask's threaded
# scheduler and on a `LocalCluster` of worker processes (one thread each), with the training set
# cut into blocks of `block_rows` rows (the last block ragged when it does not divide). As on a
# real cluster, the workers read their blocks themselves: `shifted_mnist(..., max_shift=0)`
# (`greenelm_book.scaleout`) is a dask array of MNIST's training images that each task loads from
# the dataset files, so no data travels in the task graph. The only difference allowed is the
# order of floating-point additions. (The LocalCluster's time includes its fresh worker processes
# importing greenelm and loading MNIST; the benchmark below warms its workers before timing. None
# of these seconds come from a quiet machine: they show the order of magnitude only.)

# %%
n_train = subset or 60_000
X_dask, y_dask = shifted_mnist(n_train, block_rows, max_shift=0)
X_train, y_train = X_dask.compute(), y_dask.compute()   # the same rows, in this process
test = load_split("mnist", subset=subset)


def model():
    return ELMClassifier(n_hidden=n_hidden, random_state=seed)


def timed(fit):
    """``(fitted model, wall seconds)`` of ``fit()``."""
    start = time.perf_counter()
    fitted = fit()
    return fitted, time.perf_counter() - start


fits = {"single": timed(lambda: model().fit(X_train, y_train)),
        "threads": timed(lambda: fit_dask(model(), X_dask, y_dask, scheduler="threads"))}
with LocalCluster(n_workers=n_workers, threads_per_worker=1, processes=True,
                  dashboard_address=None) as cluster, Client(cluster) as client:
    fits["localcluster"] = timed(lambda: fit_dask(model(), X_dask, y_dask, client=client))
LABELS = {"single": "single machine (ELMClassifier.fit)", "threads": "Dask, threaded scheduler",
          "localcluster": f"Dask, LocalCluster ({n_workers} processes × 1 thread)"}

reference = fits["single"][0]
scale = np.abs(reference.coef_).max()
reference_predictions = reference.predict(test.X_test)
setting = {"dataset": "mnist", "n_train": n_train, "n_test": len(test.y_test), "model": "Green-ELM",
           "n_hidden": n_hidden, "alpha": reference.alpha, "solver": reference.solver,
           "weight_scale": reference.weight_scale, "bias": reference.bias, "seed": seed,
           "block_rows": block_rows}
equality_keys = {}
for name, (fitted, seconds) in fits.items():
    fit_setting = {**setting, "fit": LABELS[name]}
    equality_keys[name, "accuracy"] = store.record(
        f"mnist/green-elm/fit-{name}/d={n_hidden}/n={n_train}/accuracy",
        [100 * fitted.score(test.X_test, test.y_test)], "%", **fit_setting)
    equality_keys[name, "seconds"] = store.record(
        f"mnist/green-elm/fit-{name}/d={n_hidden}/n={n_train}/fit-seconds", [seconds], "s",
        **fit_setting, timing="one run, not on a quiet machine")
    if name != "single":
        equality_keys[name, "difference"] = store.record(
            f"mnist/green-elm/fit-{name}/d={n_hidden}/n={n_train}/coef-difference",
            [np.abs(fitted.coef_ - reference.coef_).max() / scale], "", **fit_setting,
            quantity="max |coef − coef_single| / max |coef_single|")
        equality_keys[name, "agreement"] = store.record(
            f"mnist/green-elm/fit-{name}/d={n_hidden}/n={n_train}/same-predictions",
            [100 * np.mean(fitted.predict(test.X_test) == reference_predictions)], "%", **fit_setting,
            quantity="test predictions equal to the single-machine fit's")
show_table(pd.DataFrame([{
    "fit": LABELS[name], "seconds": equality_keys[name, "seconds"].mean,
    "max |Δ coef| / max |coef|": (f"{equality_keys[name, 'difference'].mean:.1e}" if name != "single" else "0"),
    "test accuracy (%)": equality_keys[name, "accuracy"].mean,
    "same predictions (%)": (equality_keys[name, "agreement"].mean if name != "single" else 100.0)}
    for name in fits]), digits=2)

# %%
# NBVAL_CHECK_OUTPUT
worst = max(equality_keys[name, "difference"].mean for name in ("threads", "localcluster"))
print("readouts agree to 1e-9 of their scale:", bool(worst < 1e-9))
print("same test predictions:", all(equality_keys[n, "agreement"].mean == 100 for n in ("threads", "localcluster")))

# %% tags=["remove-cell"]
glue("worst_coef_difference", f"{worst:.1e}", display=False)
glue("equality_accuracy", f"{equality_keys['single', 'accuracy'].mean:.2f} %", display=False)
glue("equality_agreement", f"{min(equality_keys[n, 'agreement'].mean for n in ('threads', 'localcluster')):.2f} %",
     display=False)

# %% [markdown]
# The three readouts differ by at most {glue:text}`worst_coef_difference` of their largest
# coefficient — rounding, from adding the blocks in another order — and agree on
# {glue:text}`equality_agreement` of the test predictions (accuracy {glue:text}`equality_accuracy`).
# `tests/test_distributed.py` checks the same for ragged, single and column-chunked block layouts,
# a worker killed mid-fit (Dask reschedules its task), and blocks with NaN, inf or the wrong width
# (the error names the block and its rows).

# %% [markdown]
# ## Scaling in N: time per million rows and memory per worker
#
# The benchmark fits MNIST's training images repeated to 2,000,000 rows with seeded random shifts
# of up to two pixels, generated block by block inside the tasks (no process ever holds the whole
# matrix), at d = 2000 on a fresh `LocalCluster` of two single-threaded worker processes for each
# size — the two cores of this machine. Each worker's peak resident memory (`VmHWM`) is read after
# the fit; for the sizes that fit in memory the same data are also fitted by `ELMClassifier.fit` in
# one process on both cores. Besides wall time the report counts CPU seconds (all processes and
# threads), which other load on the machine inflates much less; the load average says how busy the
# machine was. The report is the committed output of `python -m benchmarks.scaleout` (run under
# the shared heavy-run lock), not made by this chapter, which records its numbers.

# %%
report_path = Path(benchmark_report)
if not report_path.is_absolute():  # relative to the repository, wherever the kernel runs
    report_path = ROOT / report_path
report = json.loads(report_path.read_text())
bench = pd.DataFrame(report["rows"])
bench["worker peak MB (max)"] = bench["worker_peak_mb"].map(max)
config = report["config"]
bench_setting = {"dataset": "mnist, repeated with random shifts of up to 2 pixels", "model": "Green-ELM",
                 "n_hidden": config["n_hidden"], "block_rows": config["block_rows"],
                 "fit": f"Dask LocalCluster, {config['n_workers']} workers × 1 thread",
                 "source": f"{report_path.relative_to(ROOT) if report_path.is_relative_to(ROOT) else report_path} "
                           f"({report['command']}, {report['date']})"}
bench_keys = {}
for row in bench.itertuples():
    for quantity, value, unit in (("wall-seconds", row.dask_seconds, "s"),
                                  ("cpu-seconds-per-million", row.dask_cpu_seconds_per_million, "s"),
                                  ("worker-peak-mb", max(row.worker_peak_mb), "MB")):
        bench_keys[row.n_rows, quantity] = store.record(
            f"mnist-shifted/green-elm/dask/d={config['n_hidden']}/n={row.n_rows}/{quantity}", [value], unit,
            **bench_setting, n_train=int(row.n_rows))
show_table(pd.DataFrame([{
    "rows N": int(row.n_rows), "blocks": int(row.blocks), "wall (s)": bench_keys[row.n_rows, "wall-seconds"].mean,
    "wall s / million": row.dask_seconds_per_million,
    "CPU s / million": bench_keys[row.n_rows, "cpu-seconds-per-million"].mean,
    "worker peak (MB)": bench_keys[row.n_rows, "worker-peak-mb"].mean} for row in bench.itertuples()]),
    digits=1, integers=["rows N", "blocks"])

# %%
single = bench.dropna(subset=["single_seconds"]) if "single_seconds" in bench else bench.iloc[:0]
dask_colour, single_colour = colour("Dask workers"), colour("one process")
fig, (ax_time, ax_memory) = plt.subplots(1, 2, figsize=(11, 4))
ax_time.plot(bench.n_rows, bench.dask_seconds_per_million, "o-", color=dask_colour,
             label="Dask, 2 workers × 1 thread: wall s")
ax_time.plot(bench.n_rows, bench.dask_cpu_seconds_per_million, "o:", color=dask_colour,
             label="Dask: CPU s (all processes)")
ax_time.plot(single.n_rows, (single.single_seconds + single.single_generate_seconds)
             / single.n_rows * 1e6, "s-", color=single_colour, label="one process, 2 threads: wall s")
ax_time.plot(single.n_rows, single.single_cpu_seconds_per_million, "s:", color=single_colour,
             label="one process: CPU s")
ax_time.set(xscale="log", xlabel="rows N", ylabel="seconds per million rows", ylim=(0, None),
            title="time per million rows (generate + fit)")
for worker in range(len(bench.worker_peak_mb.iloc[0])):
    ax_memory.plot(bench.n_rows, bench.worker_peak_mb.map(lambda m: m[worker]), "o-", color=dask_colour,
                   alpha=1 - 0.4 * worker, label=f"Dask worker {worker + 1}")
ax_memory.plot(single.n_rows, single.single_peak_mb, "s-", color=single_colour, label="one process (holds X)")
ax_memory.set(xscale="log", xlabel="rows N", ylabel="peak resident memory (MB)", ylim=(0, None),
              title="peak memory per process")
handles = ax_time.get_legend_handles_labels()[0] + ax_memory.get_legend_handles_labels()[0][:-1]
labels = ax_time.get_legend_handles_labels()[1] + ax_memory.get_legend_handles_labels()[1][:-1]
fig.legend(handles, labels, loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=3, frameon=False)
fig.tight_layout()
plt.show()

# %% tags=["remove-cell"]
n_rows = bench.n_rows.to_numpy(dtype=float)
wall = np.array([bench_keys[n, "wall-seconds"].mean for n in bench.n_rows])
cpu = np.array([bench_keys[n, "cpu-seconds-per-million"].mean for n in bench.n_rows]) * n_rows / 1e6
peaks = np.array([bench_keys[n, "worker-peak-mb"].mean for n in bench.n_rows])
wall_exponent = np.polyfit(np.log(n_rows), np.log(wall), 1)[0]
cpu_exponent = np.polyfit(np.log(n_rows), np.log(cpu), 1)[0]
exponent_keys = {name: store.record(f"mnist-shifted/green-elm/dask/d={config['n_hidden']}/{name}-time-exponent",
                                    [value], "", **bench_setting, sizes=[int(n) for n in n_rows],
                                    quantity=f"p of {name} time ∝ N^p (least squares on log-log)")
                 for name, value in (("wall", wall_exponent), ("cpu", cpu_exponent))}
LINEAR = (0.9, 1.1)
linear = LINEAR[0] <= cpu_exponent <= LINEAR[1]
store.answer("total_cost_linear_in_n", judge_qualitative(
    bool(linear), test=f"least-squares exponent p of CPU time ∝ N^p for the Dask fit at d = {config['n_hidden']}, "
    f"N from {int(n_rows[0]):,} to {int(n_rows[-1]):,} (the committed benchmark): linear when "
    f"{LINEAR[0]} ≤ p ≤ {LINEAR[1]}",
    ours=f"p = {cpu_exponent:.2f} (CPU), {wall_exponent:.2f} (wall); worker memory "
         f"{peaks.min():.0f}–{peaks.max():.0f} MB"),
    keys=[k.key for k in exponent_keys.values()] + [bench_keys[n, "cpu-seconds-per-million"].key
                                                      for n in bench.n_rows])
largest = bench.iloc[-1]
glue("bench_largest_n", f"{int(largest.n_rows):,}", display=False)
glue("bench_largest_seconds", f"{wall[-1]:.0f} s", display=False)
glue("bench_per_million", f"{largest.dask_seconds_per_million:.0f} s", display=False)
glue("bench_cpu_per_million", f"{largest.dask_cpu_seconds_per_million:.0f} CPU s", display=False)
glue("bench_load", f"{largest.dask_load_average:.1f}", display=False)
glue("bench_gflops", f"{largest.dask_gflops:.0f} GFLOP/s", display=False)
glue("bench_exponents", f"{wall_exponent:.2f} for wall time and {cpu_exponent:.2f} for CPU time", display=False)
glue("bench_linear", "linear" if linear else "not linear", display=False)
glue("bench_peak_range", f"{peaks.min():.0f}–{peaks.max():.0f} MB", display=False)
glue("bench_peak_change", f"{100 * (peaks[-1] / peaks[0] - 1):+.0f} %", display=False)
glue("bench_n_range", f"{int(n_rows[0]):,} to {int(n_rows[-1]):,}", display=False)
glue("bench_n_factor", f"{n_rows[-1] / n_rows[0]:.0f}-fold", display=False)
if len(single):
    compared = single.iloc[-1]
    cpu_ratio = compared.dask_cpu_seconds_per_million / compared.single_cpu_seconds_per_million
    glue("bench_ratio", f"{compared.dask_over_single:.2f} times the wall time and {cpu_ratio:.2f} times "
         f"the CPU time of the single process at N = {int(compared.n_rows):,}", display=False)
    glue("bench_coef_difference", f"{compared.max_coef_difference_relative:.0e}", display=False)
    glue("bench_single_peak", f"{compared.single_peak_mb:,.0f} MB", display=False)
else:
    for key in ("bench_ratio", "bench_coef_difference", "bench_single_peak"):
        glue(key, "not measured in this report", display=False)

# %% [markdown]
# The largest fit, {glue:text}`bench_largest_n` rows, took {glue:text}`bench_largest_seconds` of
# wall time, {glue:text}`bench_per_million` and {glue:text}`bench_cpu_per_million` per million rows
# ({glue:text}`bench_gflops`; 1-minute load average {glue:text}`bench_load` on two cores). Fitting
# $\text{time} \propto N^{p}$ over the sizes gives $p$ = {glue:text}`bench_exponents`: by the test
# the scorecard states (CPU-time exponent between 0.9 and 1.1) the total cost is
# {glue:text}`bench_linear` in $N$, as the paper's $O(NDd + Nd^2)$ terms predict once the fixed
# costs are small. Each worker's peak memory stays within {glue:text}`bench_peak_range` for N from
# {glue:text}`bench_n_range` ({glue:text}`bench_peak_change` from the smallest to the largest N,
# while N grows {glue:text}`bench_n_factor`): a worker holds one block, its features, and the
# partial sums $[H_b^\top H_b \mid H_b^\top Y_b]$ waiting for their siblings in the reduction tree
# — at most three per level, $\log_4 B$ levels for $B$ blocks — so its memory grows with the
# logarithm of the number of blocks, not with the data. The single process needed
# {glue:text}`bench_single_peak` because it holds X. On the same two cores the Dask fit takes
# {glue:text}`bench_ratio`, and the two readouts agree to {glue:text}`bench_coef_difference` of
# their scale. The point is not speed on two cores but that the same code runs on as many cores
# and machines as there are, with memory per worker that does not grow with the data.

# %% [markdown]
# ## Pointing it at a cluster
#
# Start a scheduler and workers (`dask scheduler` on one host, `dask worker tcp://scheduler:8786
# --nthreads 1 --nworkers <cores>` on each of the others, every host with `pip install
# greenelm[dask]` and read access to the data), store the data chunked along rows (Zarr, Parquet,
# HDF5) and pass the client:
#
# ```python
# import dask.array as da
# from dask.distributed import Client
# from greenelm import ELMClassifier
# from greenelm.distributed import fit_dask
#
# client = Client("tcp://scheduler:8786")
# X = da.from_zarr("s3://bucket/X.zarr")          # (N, D), chunks of ~20,000 rows
# y = da.from_zarr("s3://bucket/y.zarr")          # (N,)
# model = fit_dask(ELMClassifier(n_hidden=2000, random_state=0), X, y, client=client)
# model.save("readout.npz")                       # an ordinary fitted ELMClassifier
# ```
#
# A dask dataframe works too (`fit_dask(model, df[features], df["label"], client=client)`; its
# rows are converted with `to_dask_array(lengths=True)`). A worker lost mid-fit is replaced by the
# scheduler and its blocks recomputed (`distributed.scheduler.allowed-failures`); `retries=`
# re-runs tasks that raised, e.g. on a flaky read.
