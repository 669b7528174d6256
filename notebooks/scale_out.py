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
import warnings

import matplotlib.pyplot as plt

from greenelm_book.chapters import scale_out as scaleout
from greenelm_book.chapters.experiments import load_split
from greenelm_book.report import glue, set_style, show_table
from greenelm_book.store.results import ROOT, ChapterResults, measured_on_text
from greenelm_book.chapters.scale_out import shifted_mnist

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
work = scaleout.flop_split((60_000, 500_000, 2_000_000, 20_000_000), 784, 2000, 10)
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
# is a dask array of MNIST's training images that each task loads from
# the dataset files, so no data travels in the task graph. The only difference allowed is the
# order of floating-point additions. (The LocalCluster's time includes its fresh worker processes
# importing greenelm and loading MNIST; the benchmark below warms its workers before timing. None
# of these seconds come from a quiet machine: they show the order of magnitude only.)

# %%
n_train = subset or 60_000
X_dask, y_dask = shifted_mnist(n_train, block_rows, max_shift=0)
X_train, y_train = X_dask.compute(), y_dask.compute()   # the same rows, in this process
test = load_split("mnist", subset=subset)
fits = scaleout.equality_fits(X_dask, y_dask, X_train, y_train, n_hidden=n_hidden, seed=seed, n_workers=n_workers)
LABELS = scaleout.fit_labels(n_workers)
equality_keys = scaleout.record_equality(store, fits, test.X_test, test.y_test, n_train=n_train,
                                         n_hidden=n_hidden, seed=seed, block_rows=block_rows, labels=LABELS)
show_table(scaleout.equality_table(equality_keys, LABELS), digits=2)

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
# The library's tests check the same for ragged, single and column-chunked block layouts,
# a worker killed mid-fit (Dask reschedules its task), and blocks with NaN, inf or the wrong width
# (the error names the block and its rows).

# %% [markdown]
# ## Scaling in N: time per million rows and memory per worker
#
# The benchmark fits MNIST's training images repeated to 2,000,000 rows with seeded random shifts
# of up to two pixels, generated block by block inside the tasks (no process ever holds the whole
# matrix), at d = 2000 on a fresh `LocalCluster` of two single-threaded worker processes for each
# size — two CPU cores (the host below the table). Each worker's peak resident memory (`VmHWM`) is read after
# the fit; for the sizes that fit in memory the same data are also fitted by `ELMClassifier.fit` in
# one process on both cores. Besides wall time the report counts CPU seconds (all processes and
# threads), which other load on the machine inflates much less; the load average says how busy the
# machine was. The report is the committed output of `python -m benchmarks.scaleout` (run under
# the shared heavy-run lock), not made by this chapter, which records its numbers.

# %%
report, bench, bench_setting = scaleout.load_benchmark(benchmark_report, ROOT)
bench_keys = scaleout.record_benchmark(store, bench, bench_setting)
glue("bench_where", measured_on_text([bench_keys[key] for key in bench_keys if key[1] == "wall-seconds"]), display=False)
show_table(scaleout.benchmark_table(bench, bench_keys), digits=1, integers=["rows N", "blocks"])

# %% [markdown]
# The timings above were {glue:text}`bench_where`.

# %%
fig = scaleout.plot_benchmark(bench)
plt.show()

# %% tags=["remove-cell"]
exponents = scaleout.answer_linear_in_n(store, bench, bench_keys, bench_setting)
for name, value in scaleout.benchmark_glues(bench, exponents).items():
    glue(name, value, display=False)

# %% [markdown]
# The largest fit, {glue:text}`bench_largest_n` rows, took {glue:text}`bench_largest_seconds` of
# wall time, {glue:text}`bench_per_million` and {glue:text}`bench_cpu_per_million` per million rows
# ({glue:text}`bench_gflops`; 1-minute load average {glue:text}`bench_load` on two cores). Fitting
# $\text{time} \propto N^{p}$ over the sizes gives $p$ = {glue:text}`bench_exponents`. The scorecard's
# test of linear growth (the CPU-time exponent {glue:text}`bench_linear_band`):
# {glue:text}`bench_linear`. The paper's $O(NDd + Nd^2)$ terms predict linear growth once the fixed
# costs are small. Each worker's peak memory stays within {glue:text}`bench_peak_range` for N from
# {glue:text}`bench_n_range` ({glue:text}`bench_peak_change` from the smallest to the largest N,
# while N grows {glue:text}`bench_n_factor`): a worker holds one block, its features, and the
# partial sums $[H_b^\top H_b \mid H_b^\top Y_b]$ waiting for their siblings in the reduction tree
# — at most three per level, $\log_4 B$ levels for $B$ blocks — so by construction its memory can
# grow at most with the logarithm of the number of blocks, not with the data; the measured peaks
# test only the second part (they change {glue:text}`bench_peak_change` while the data grow
# {glue:text}`bench_n_factor`), too few sizes to show a logarithm. The single process needed
# {glue:text}`bench_single_peak` because it holds X. In the same benchmark run (shown, not judged) the Dask
# fit took {glue:text}`bench_ratio`, and the
# two readouts agree to {glue:text}`bench_coef_difference` of their scale. The point is not speed on two
# cores but that the same code takes any Dask cluster (the next section points it at one); only this
# machine's two workers are measured here.

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
