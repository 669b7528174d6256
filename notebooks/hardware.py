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
# # Hardware, complexity and energy
#
# The paper's section "Hardware and Complexity Analysis" {cite}`silva2026greenelm` makes claims
# about four costs. **Time**: a Green-ELM fit costs $O(NDd)$ for the features, $O(Nd^2)$ for
# $H^\top H$ and about $O(d^3)$ for the factorisation, and the regularised normal equations (LU,
# Cholesky) are far faster than the pseudoinverse (Table IV). **Memory**: SGD must keep the
# activations of a backward pass. **Storage**: $W_1$ can be regenerated from a seed instead of
# stored. **Energy**: one matrix computation instead of thousands of SGD passes "significantly
# reduces" energy — which the paper itself qualifies: "electrical energy and carbon emissions were
# not directly measured".
#
# This chapter measures each on the machine that builds the book. Timings taken here are never
# compared with the paper's, which come from another machine; what is compared is what carries
# across machines: exponents, ratios measured in one run, bytes, FLOP counts. The verdicts follow
# the book's rule (see the introduction); each qualitative verdict states its test.

# %% tags=["parameters"]
profile = "smoke"
seed = 0
dataset = "mnist"
sizes = [1000, 2000, 4000]  # N for time against N
fixed_width = 200  # d while N varies
widths = [100, 200, 400]  # d for time against d
fixed_size = 2000  # N while d varies
repeats = 2
memory_widths = [100, 400]
memory_size = 2000
storage_widths = [100, 200]  # d of the model files
storage_size = 500  # training rows of the model files (a file's size does not depend on N)
footprint_size = 2000  # N of the Green-ELM / SGD comparison (Table I: 60,000)
footprint_width = 200  # Green-ELM's d in that comparison (Table I: 2000)
footprint_repeats = 1
peak_order = 1024  # order of the square GEMM that measures the machine's peak
report_path = "benchmarks/report.json"

# %% tags=["remove-cell"]
import json
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import torch

import greenelm
from greenelm.solvers import fit_flops
from greenelm_book import bench, footprint, paper
from greenelm_book.baselines import MLP_HIDDEN, SGDConfig
from greenelm_book.experiments import load_split
from greenelm_book.report import (by_sign, colour, glue, judge_qualitative, judge_time, not_measurable,
                                  set_style, show_table)
from greenelm_book.results import ChapterResults

store = ChapterResults("hardware", profile)
set_style()
split = load_split(dataset, subset=max(sizes + [fixed_size]))
Y = np.eye(10)[split.y_train]
D, K = split.X_train.shape[1], Y.shape[1]
ALPHA = 1e-3
ELM = dict(dataset=dataset, model="Green-ELM", weight_scale="unit", bias="normal", solver="cholesky",
           alpha=ALPHA, dtype="float64", seed=seed)
SGD = dict(dataset=dataset, model="SGD MLP", n_hidden=MLP_HIDDEN, epochs=SGDConfig().epochs,
           batch_size=SGDConfig().batch_size, lr=SGDConfig().lr, momentum=SGDConfig().momentum)

# %% [markdown]
# ## The machine
#
# One yardstick first: the machine's measured GEMM throughput (best of five square float64
# products, measured in this chapter). A phase that runs at a large fraction of it cannot get much
# faster here without doing less arithmetic.

# %% tags=["remove-cell"]
machine = bench.machine_info()
kernels = sorted({f"{b['library'].split('-')[0]} ({b['architecture']}, {b['num_threads']} threads)"
                  for b in bench.blas_info() if b["architecture"]})
gemm = bench.gemm_peak("float64", n=peak_order)
peak = store.record(f"machine/gemm/float64/n={peak_order}/gflop-per-second", [gemm["best"]], "GFLOP/s",
                    quantity="GEMM throughput", dtype="float64", order=peak_order,
                    statistic=f"best of {gemm['repeats']}")
has_gpu = torch.cuda.is_available()
glue("cpu", f"{machine['cpu']}, {machine['cores']} cores")
glue("blas", "; ".join(kernels))
glue("peak64", round(peak.mean))

# %% [markdown]
# The machine: {glue:text}`cpu`; BLAS: {glue:text}`blas`; GEMM peak {glue:text}`peak64` GFLOP/s
# (float64).

# %% [markdown]
# ## Time against N and against d, phase by phase
#
# Each phase of a greenelm fit is timed on its own: the features $\max(0, XW + b)$ over all row
# blocks, the accumulation of $H^\top H$ (BLAS `syrk`) and $H^\top Y$, and the float64 Cholesky
# solve of order $d$. A straight line on log–log axes has the slope of the exponent; the paper's
# complexities predict slopes of 1, 1, 0 against $N$ and 1, 2, 3 against $d$. Their FLOP counts have
# exactly these exponents by construction, so the test is whether the **time** follows them.
#
# **Test** (for each of the six exponents): the slope of log time between the two largest sizes
# (where BLAS runs near its full speed), one slope per repeat; the claim *holds* when the mean slope
# is within 0.3 of the paper's exponent, *partly holds* within 0.6, and *does not hold* otherwise.

# %% tags=["remove-cell"]
timings = bench.scaling_sweep(split.X_train, Y, sizes, widths, fixed_width=fixed_width,
                              fixed_size=fixed_size, repeats=repeats, seed=seed, progress=False)
PHASE_NAMES = {"features": "features relu(XW + b)", "gram": "Gram HᵀH", "solve": "Cholesky solve"}
for (n, d, phase), group in timings.groupby(["n_samples", "n_hidden", "phase"], sort=False):
    store.record(f"{dataset}/green-elm/unit/cholesky/phase={phase}/n={n}/d={d}/seconds",
                 group["times"].iloc[0], "s", **ELM, phase=phase, n_train=int(n), n_hidden=int(d),
                 repeats=repeats, chunk_rows=4096)

claims = paper.HARDWARE_CLAIMS["complexity"]
exponent_rows, exponent_keys = [], {}
for (axis, phase), group in timings.groupby(["axis", "phase"], sort=False):
    x = (group["n_samples"] if axis == "N" else group["n_hidden"]).to_numpy()
    times = np.array(group["times"].tolist())          # (sizes, repeats)
    local = [bench.loglog_slope(x[-2:], times[-2:, r]) for r in range(times.shape[1])]
    overall = [bench.loglog_slope(x, times[:, r]) for r in range(times.shape[1])]
    fixed = f"d={fixed_width}" if axis == "N" else f"n={fixed_size}"
    span = f"{axis.lower()}={x[-2]}-{x[-1]}"
    setting = dict(**ELM, phase=phase, against=axis, sizes=[int(v) for v in x], repeats=repeats,
                   fixed=fixed)
    res = store.record(f"{dataset}/green-elm/unit/cholesky/phase={phase}/{fixed}/{span}/exponent",
                       local, "exponent", **setting, fit="two largest sizes")
    if len(x) > 2:
        store.record(f"{dataset}/green-elm/unit/cholesky/phase={phase}/{fixed}/{axis.lower()}="
                     f"{x[0]}-{x[-1]}/exponent", overall, "exponent", **setting, fit="all sizes")
    exponent_keys[phase, axis] = res.key
    exponent_rows.append({"phase": phase, "against": axis, "paper": claims[phase][axis],
                          "ours (two largest)": res.mean, "ours (all sizes)": float(np.mean(overall)),
                          "GFLOP/s at largest": group["gflop"].iloc[-1] / group["seconds"].iloc[-1]})
exponents = pd.DataFrame(exponent_rows)


def exponent_verdict(ours: float, expected: float):
    gap = abs(ours - expected)
    outcome = True if gap <= 0.3 else ("partly" if gap <= 0.6 else False)
    return judge_qualitative(outcome, test="mean slope of log time between the two largest sizes "
                             "within 0.3 of the paper's exponent (holds) or 0.6 (partly)",
                             ours=f"{ours:.2f} (paper {expected})")


for (phase, axis), key in exponent_keys.items():
    store.answer(f"complexity_{phase}_exponent_{axis.lower()}",
                 exponent_verdict(store.get("hardware", key).mean, claims[phase][axis]), keys=[key],
                 note=f"greenelm's phase timed alone on {dataset}, "
                      + (f"N = {sizes[-2]} and {sizes[-1]} at d = {fixed_width}" if axis == "N"
                         else f"d = {widths[-2]} and {widths[-1]} at N = {fixed_size}"))

# %%
show_table(exponents.rename(columns={"against": "against", "paper": "paper exponent"}), digits=2,
           integers=["paper exponent"])

# %%
fig, axes = plt.subplots(1, 2, figsize=(10, 4.2), sharey=True)
for ax, axis, column, label in ((axes[0], "N", "n_samples", f"N (d = {fixed_width})"),
                                (axes[1], "d", "n_hidden", f"d (N = {fixed_size})")):
    for phase, group in timings[timings.axis == axis].groupby("phase", sort=False):
        ax.plot(group[column], group["seconds"], "o-", color=colour(PHASE_NAMES[phase]),
                label=PHASE_NAMES[phase])
    ax.set(xscale="log", yscale="log", xlabel=label, title=f"time against {axis}")
axes[0].set_ylabel("seconds (median of repeats)")
handles, labels = axes[0].get_legend_handles_labels()
fig.legend(handles, labels, loc="lower center", ncol=3, bbox_to_anchor=(0.5, -0.06), frameon=False)
fig.tight_layout()
plt.show()

# %%
# NBVAL_CHECK_OUTPUT
for axis, n, d in [("N", n, fixed_width) for n in sizes] + [("d", fixed_size, d) for d in widths]:
    f = fit_flops(n, D, d, K)
    print(f"N={n:6d} d={d:5d}: features {f.features / 1e9:9.3f}  Gram {f.gram / 1e9:9.3f}  "
          f"solve {f.solve / 1e9:8.4f} GFLOP")

# %% tags=["remove-cell"]
by_d = timings[timings.axis == "d"]
share = {}
for d, group in by_d.groupby("n_hidden"):
    times = {p: np.array(t) for p, t in zip(group.phase, group.times)}
    share[d] = 100 * (times["gram"] + times["solve"]) / (times["features"] + times["gram"] + times["solve"])
share_keys = {}
for d, values in share.items():
    share_keys[d] = store.record(f"{dataset}/green-elm/unit/cholesky/phase=gram+solve/n={fixed_size}/d={d}"
                                 f"/share-of-fit", values, "%", **ELM, phase="gram+solve", n_train=fixed_size,
                                 n_hidden=int(d), repeats=repeats).key
small_share, large_share = (store.get("hardware", share_keys[min(share)]).mean,
                            store.get("hardware", share_keys[max(share)]).mean)
dominates = bool(large_share > 50 and large_share > small_share)
store.answer("gram_and_factorization_dominate",
             judge_qualitative(dominates, test="the Gram and the solve together take more than half "
                               "of the fit at the largest d, and a larger share than at the smallest d",
                               ours=f"{small_share:.0f} % at d = {min(share)}, {large_share:.0f} % at "
                                    f"d = {max(share)}"),
             keys=[share_keys[min(share)], share_keys[max(share)]],
             note=f"greenelm's phases timed alone, N = {fixed_size}")
gap = {f"{p}_{a}": exponents.query("phase == @p and against == @a")["ours (two largest)"].iloc[0]
       - claims[p][a] for p in claims for a in ("N", "d")}
glue("exp_gram_d", exponents.query("phase == 'gram' and against == 'd'")["ours (two largest)"].iloc[0])
glue("exp_solve_d", exponents.query("phase == 'solve' and against == 'd'")["ours (two largest)"].iloc[0])
glue("exp_gram_d_all", exponents.query("phase == 'gram' and against == 'd'")["ours (all sizes)"].iloc[0])
glue("exp_solve_d_all", exponents.query("phase == 'solve' and against == 'd'")["ours (all sizes)"].iloc[0])
glue("solve_d_word", by_sign(gap["solve_d"], "above", "below", tolerance=0.05))
glue("gram_d_word", by_sign(gap["gram_d"], "above", "below", tolerance=0.05))
glue("share_small", f"{small_share:.0f} %")
glue("share_large", f"{large_share:.0f} %")
glue("d_small", int(min(share)))
glue("d_large", int(max(share)))
glue("share_word", by_sign(large_share - small_share, "grows", "shrinks", "stays"))

# %% [markdown]
# Between the two largest widths the Gram grows as $d^{\,p}$ with $p$ =
# {glue:text}`exp_gram_d:.2f` ({glue:text}`gram_d_word` the paper's 2) and the solve with
# $p$ = {glue:text}`exp_solve_d:.2f` ({glue:text}`solve_d_word` the paper's 3); fitted over all
# widths the slopes are {glue:text}`exp_gram_d_all:.2f` and {glue:text}`exp_solve_d_all:.2f`.
# Slopes below the model come from BLAS running faster on larger matrices (the GFLOP/s column),
# not from less arithmetic, which is why the test uses the largest sizes. The share of the fit
# taken by the Gram and the solve {glue:text}`share_word` from {glue:text}`share_small` at
# d = {glue:text}`d_small` to {glue:text}`share_large` at d = {glue:text}`d_large`.

# %% [markdown]
# ## The solver trade-off (Table IV)
#
# Table IV times three solvers on MNIST at d = 2000: pinv 74.1 s, LU 5.8 s, Cholesky 6.4 s. The
# figures below come from the committed benchmark report (`benchmarks/report.json`, made by the
# command named below on this machine): the paper's listing 2 solvers timed on one shared $H$ built
# by the paper's listing 1 (seed 42, all 60,000 images), so **the solve alone**, as the paper times
# its solvers. The paper's seconds come from another machine and are not judged; the ratio
# between two solvers, measured in one run, is the comparable figure.

# %% tags=["remove-cell"]
report_file = Path(report_path)
if not report_file.is_absolute():
    report_file = Path(greenelm.__file__).resolve().parents[1] / report_file
report = json.loads(report_file.read_text())
meta = report["meta"]
SOURCE = dict(source="benchmarks/report.json", command=meta["command"], measured=meta["date"])
same_h = pd.DataFrame([r for r in report["tables"]["same_h"] if r.get("solve_seconds") is not None])
table_d = 2000
LISTING2 = {"pinv": "listing 2 'pinv'", "lu": "listing 2 'lud'", "cholesky": "listing 2 'cholesky'"}
solve_keys, iv_rows = {}, []
paper_iv = paper.TABLE_IV.set_index("solver")
for solver, variant in LISTING2.items():
    row = same_h[(same_h.variant == variant) & (same_h.n_hidden == table_d)].iloc[0]
    res = store.record(f"{dataset}/paper-listing2/{solver}/same-h/n=60000/d={table_d}/solve-seconds",
                       [row.solve_seconds], "s", dataset=dataset, model="paper listing 2", solver=solver,
                       n_train=60000, n_hidden=table_d, alpha=None if solver == "pinv" else ALPHA,
                       features="listing 1's H (seed 42), shared by every solver", timed="solve alone",
                       dtype="float64", **SOURCE)
    solve_keys[solver] = res.key
    iv_rows.append({"solver": solver, "paper (s)": paper_iv.loc[solver, "seconds"], "ours (s)": res.mean,
                    "ours (GFLOP/s)": row.gflops_per_s})
    store.answer(f"table4_{solver}_d2000_seconds", judge_time(paper_iv.loc[solver, "seconds"], res.values),
                 keys=[res.key], note="paper listing 2 on listing 1's H, full MNIST, solve alone, "
                                      "one run (benchmark report)")
ratio_pinv_lu = store.record(
    f"{dataset}/paper-listing2/pinv-over-lu/same-h/n=60000/d={table_d}/solve-time-ratio",
    [store.get("hardware", solve_keys["pinv"]).mean / store.get("hardware", solve_keys["lu"]).mean], "×",
    dataset=dataset, model="paper listing 2", ratio="pinv / lu", n_train=60000, n_hidden=table_d,
    features="listing 1's H (seed 42), shared by every solver", timed="solve alone", **SOURCE)
paper_ratio = paper_iv.loc["pinv", "seconds"] / paper_iv.loc["lu", "seconds"]
iv = pd.DataFrame(iv_rows)
glue("bench_date", meta["date"][:10])
glue("ratio_pinv_lu", ratio_pinv_lu.mean)
glue("paper_ratio_pinv_lu", paper_ratio)
glue("ratio_word", by_sign(ratio_pinv_lu.mean - paper_ratio, "larger than", "smaller than",
                           tolerance=0.05 * paper_ratio, zero="close to"))

# %%
show_table(iv, digits=2)

# %% [markdown]
# Measured by `python -m benchmarks.run` on {glue:text}`bench_date`. On the same $H$ the
# pseudoinverse takes {glue:text}`ratio_pinv_lu:.1f`× the LU solve's time, {glue:text}`ratio_word`
# the paper's {glue:text}`paper_ratio_pinv_lu:.1f`× (74.1 s / 5.8 s). This is the solve alone at
# N = 60,000, d = 2000. A ratio of **whole fits** (features and Gram included, which every solver
# shares) is {glue:text}`whole_word` at the same width ({glue:text}`whole_ratio:.1f`×, the table
# below: the paper's listing 1 with `pinv` against greenelm's Cholesky fit), and it changes again
# when greenelm's minimum-norm solver (LAPACK `gelsd`: QR, then an SVD of the d × d factor) stands
# in for `np.linalg.pinv` (a full SVD of the N × d matrix), as in the {doc}`random_features`
# chapter, or when N and d differ: the setting — what is timed,
# which SVD, N and d — sets the ratio, so each is recorded under its own setting. The paper's own
# timings disagree with each other too: Table I gives 1.50 s for its pinv fit at d = 2000 on MNIST,
# Table IV 74.1 s for the same solver, width and data. The paper's pinv-to-Cholesky speed-up on
# CIFAR-10 backbone features (d = 4000) is judged in the {doc}`cifar10` chapter.
#
# The same report times whole fits on full MNIST in one run: the paper's listing 1 (which holds
# $H$) against greenelm's streamed Cholesky fit.

# %% tags=["remove-cell"]
fits = pd.DataFrame(report["tables"]["fit"])
fit_rows = []
for d in (2000, 4000):
    def fit_seconds(method, d=d):
        hit = fits[fits.method.str.startswith(method) & (fits.n_hidden == d) & (fits.dtype == "float64")]
        return float(hit.seconds.iloc[0]) if len(hit) and pd.notna(hit.seconds.iloc[0]) else float("nan")
    greenelm_s = fit_seconds("greenelm")
    row = {"width d": d}
    for label, method, short in (("listing 1 pinv / greenelm", "listing 1, np.linalg.pinv", "pinv"),
                                 ("listing 1 normal eq. / greenelm", "listing 1, np.linalg.solve", "normal")):
        ratio = fit_seconds(method) / greenelm_s
        if np.isfinite(ratio):
            row[label] = store.record(
                f"{dataset}/paper-listing1-{short}-over-green-elm/n=60000/d={d}/fit-time-ratio", [ratio], "×",
                dataset=dataset, ratio=f"paper listing 1 ({short}) / greenelm Cholesky", n_train=60000,
                n_hidden=d, timed="whole fit (median of the report's runs)", dtype="float64", **SOURCE).mean
    row["pinv / greenelm, FLOPs"] = store.record(
        f"{dataset}/paper-listing1-pinv-over-green-elm/n=60000/d={d}/flop-ratio",
        [bench.pinv_flops(60000, D, d, K) / fit_flops(60000, D, d, K).total], "×", dataset=dataset,
        ratio="paper listing 1 (pinv) / greenelm Cholesky", n_train=60000, n_hidden=d,
        quantity="FLOPs counted (bench.pinv_flops, greenelm.solvers.fit_flops)").mean
    fit_rows.append(row)
fit_ratios = pd.DataFrame(fit_rows)
normal_ratios = fit_ratios.get("listing 1 normal eq. / greenelm", pd.Series(dtype=float)).dropna()
glue("normal_lo", normal_ratios.min() if len(normal_ratios) else float("nan"))
glue("normal_hi", normal_ratios.max() if len(normal_ratios) else float("nan"))
whole_2000 = fit_ratios.set_index("width d").get("listing 1 pinv / greenelm", pd.Series(dtype=float)).get(table_d)
glue("whole_ratio", whole_2000 if whole_2000 is not None else float("nan"))
glue("whole_word", by_sign((whole_2000 or 0) - ratio_pinv_lu.mean, "larger", "smaller", "the same"))

# %%
show_table(fit_ratios.rename(columns={c: f"{c} (×)" for c in fit_ratios.columns if c != "width d"}),
           digits=1, integers=["width d"])

# %% [markdown]
# The paper's listing 1 with the normal equations forms $H^\top H$ as `H.T @ H`, which NumPy hands
# to the same BLAS `syrk` greenelm calls, so it does the same arithmetic with the same kernels: its
# whole fit takes {glue:text}`normal_lo:.1f`× to {glue:text}`normal_hi:.1f`× greenelm's, and the two
# differ mainly in **memory** (below). Against the pseudoinverse, compare the measured time ratio
# with the FLOP ratio of an SVD to the normal equations ($6Nd^2 + 20d^3$ against $Nd^2 + d^3/3$, last
# column): where the two are close, LAPACK runs both at a similar fraction of the machine's peak.

# %% [markdown]
# ## Memory: greenelm, the paper's listing, and SGD
#
# greenelm streams row blocks of $X$ and keeps only $W$ ($D\times d$), $H^\top H$ ($d\times d$),
# $H^\top Y$ and one block of $H$: its memory grows as $d^2$ and not with $N$. The paper's listing 1
# holds all of $H$ ($N \times d$, float64) plus a temporary of the same size while forming it. Each
# fit below runs in a fresh process; the figure is the memory the fit adds to the process (its peak
# resident memory minus the memory before the fit).

# %% tags=["remove-cell"]
memory_rows = []
for method, label, key_model in (("greenelm", "Green-ELM", "green-elm/unit/cholesky"),
                                 ("listing", "paper listing 1", "paper-listing1/normal")):
    for d in memory_widths:
        run = bench.run_isolated("greenelm_book.bench:fit_memory",
                                 {"n_hidden": d, "n_train": memory_size, "method": method, "dataset": dataset})
        if not run["ok"]:
            raise RuntimeError(f"memory run {method} d={d} failed: {run['error']}")
        r = run["result"]
        added = (r["rss_after_fit_bytes"] - r["rss_before_fit_bytes"]) / 2**20
        res = store.record(f"{dataset}/{key_model}/n={memory_size}/d={d}/fit-added-mib", [added], "MiB",
                           dataset=dataset, model=label, n_train=memory_size, n_hidden=d, dtype="float64",
                           quantity="peak RSS during the fit minus RSS before it",
                           **({"alpha": ALPHA, "seed": seed} if method == "greenelm" else
                              {"code": "listing 1, np.linalg.solve", "seed": 42}))
        memory_rows.append({"code": label, "d": d, "added by the fit (MiB)": res.mean,
                            "H (MiB)": memory_size * d * 8 / 2**20, "HᵀH (MiB)": d * d * 8 / 2**20})
memory = pd.DataFrame(memory_rows)

# %%
fig, ax = plt.subplots(figsize=(7, 4.2))
for code, group in memory.groupby("code"):
    ax.plot(group["d"], group["added by the fit (MiB)"], "o-", color=colour(code), label=f"{code}: added by the fit")
ax.plot(memory_widths, [memory_size * d * 8 / 2**20 for d in memory_widths], "k--", label="size of H (N×d)")
ax.plot(memory_widths, [d * d * 8 / 2**20 for d in memory_widths], "k:", label="size of HᵀH (d×d)")
ax.set(xscale="log", yscale="log", xlabel=f"d (N = {memory_size})", ylabel="MiB (float64)",
       title="memory added by the fit against d")
ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1), frameon=False)
fig.tight_layout()
plt.show()

# %%
# NBVAL_CHECK_OUTPUT
for d in memory_widths:
    print(f"d={d:5d}: H is {memory_size * d * 8 / 2**20:8.1f} MiB, HᵀH is {d * d * 8 / 2**20:7.1f} MiB (float64)")

# %% [markdown]
# The paper's memory claim is about SGD: it "requires substantial memory to store intermediate
# activations during the backward pass". We train the paper's Table I SGD MLP (hidden 64, 10
# epochs, batch 64) and fit Green-ELM at the Table I width, each once per repeat in a fresh
# process, and measure what the training call adds to the process's memory, and its CPU seconds
# (user + system, both threads).

# %% tags=["remove-cell"]
def package_rapl():
    """Readable RAPL package counters (µJ), or None."""
    counters = bench.rapl_energy_uj()
    return footprint.package_counters(counters) if counters else None


runs = {"green-elm": [], "sgd-mlp": []}
joules = {"green-elm": [], "sgd-mlp": []}
for repeat in range(footprint_repeats):
    for model, width in (("green-elm", footprint_width), ("sgd-mlp", MLP_HIDDEN)):
        before = package_rapl()
        run = bench.run_isolated("greenelm_book.footprint:training_footprint",
                                 {"model": model, "n_train": footprint_size, "n_hidden": width,
                                  "dataset": dataset, "seed": seed + repeat})
        after = package_rapl()
        if not run["ok"]:
            raise RuntimeError(f"{model} run failed: {run['error']}")
        runs[model].append(run["result"])
        if before is not None and after is not None:
            joules[model].append(footprint.counter_joules(before, after, footprint.counter_ranges(before)))

elm_set = dict(**{k: v for k, v in ELM.items() if k != "seed"}, n_train=footprint_size,
               n_hidden=footprint_width, seeds=[seed + r for r in range(footprint_repeats)])
sgd_set = dict(**SGD, n_train=footprint_size, seeds=[seed + r for r in range(footprint_repeats)])
elm_prefix = f"{dataset}/green-elm/unit/cholesky/n={footprint_size}/d={footprint_width}"
sgd_prefix = f"{dataset}/sgd-mlp/h={MLP_HIDDEN}/e={SGD['epochs']}/n={footprint_size}"
elm_cpu = store.record(f"{elm_prefix}/fit-cpu-seconds", [r["cpu_seconds"] for r in runs["green-elm"]], "s",
                       **elm_set, quantity="CPU seconds (user + system) of the fit call")
sgd_cpu = store.record(f"{sgd_prefix}/train-cpu-seconds", [r["cpu_seconds"] for r in runs["sgd-mlp"]], "s",
                       **sgd_set, quantity="CPU seconds (user + system) of the training call")
mib = lambda r: (r["peak_rss_bytes"] - r["rss_before_bytes"]) / 2**20  # noqa: E731
elm_mem = store.record(f"{elm_prefix}/fit-added-mib", [mib(r) for r in runs["green-elm"]], "MiB", **elm_set,
                       quantity="peak RSS during the fit minus RSS before it")
sgd_mem = store.record(f"{sgd_prefix}/train-added-mib", [mib(r) for r in runs["sgd-mlp"]], "MiB", **sgd_set,
                       quantity="peak RSS during the training minus RSS before it")
elm_flops = store.record(f"{elm_prefix}/fit-flops", [runs["green-elm"][0]["flops"]], "FLOP", **elm_set,
                         quantity="FLOPs counted (greenelm.solvers.fit_flops)")
sgd_count = footprint.sgd_mlp_flops(footprint_size, D, MLP_HIDDEN, K, SGD["epochs"], SGD["batch_size"])
sgd_flops = store.record(f"{sgd_prefix}/train-flops", [sgd_count["total"]], "FLOP", **sgd_set,
                         quantity="FLOPs counted (footprint.sgd_mlp_flops)")
activation_bytes = SGD["batch_size"] * (D + 2 * MLP_HIDDEN + K) * 4
activations = store.record(f"{dataset}/sgd-mlp/h={MLP_HIDDEN}/b={SGD['batch_size']}/activation-kib",
                           [activation_bytes / 1024], "KiB", **SGD,
                           quantity="float32 activations kept for one backward pass (input, pre- and "
                                    "post-ReLU hidden, logits), counted")
energy_keys = {}
for model, values in joules.items():
    if values:
        prefix = elm_prefix if model == "green-elm" else sgd_prefix
        energy_keys[model] = store.record(f"{prefix}/package-joules", values, "J",
                                          **(elm_set if model == "green-elm" else sgd_set),
                                          quantity="RAPL package energy during the run (whole machine)").key

footprint_table = pd.DataFrame([
    {"model": f"Green-ELM, d = {footprint_width}", "FLOPs (G)": elm_flops.mean / 1e9,
     "CPU (s)": elm_cpu.mean, "memory added (MiB)": elm_mem.mean},
    {"model": f"SGD MLP, hidden {MLP_HIDDEN}, {SGD['epochs']} epochs", "FLOPs (G)": sgd_flops.mean / 1e9,
     "CPU (s)": sgd_cpu.mean, "memory added (MiB)": sgd_mem.mean}])
flop_ratio = elm_flops.mean / sgd_flops.mean
cpu_ratio = elm_cpu.mean / sgd_cpu.mean
glue("flop_ratio", flop_ratio)
glue("cpu_ratio", cpu_ratio)
glue("flop_word", by_sign(flop_ratio - 1, "more", "less", "as much"))
glue("cpu_word", by_sign(cpu_ratio - 1, "more", "less", "as much"))
glue("elm_mem", elm_mem.mean)
glue("sgd_mem", sgd_mem.mean)
glue("mem_word", by_sign(sgd_mem.mean - elm_mem.mean, "more", "less", "as much"))
glue("activation_kib", activations.mean)
glue("flop_sentence", by_sign(flop_ratio - 1,
                             "so the fit does not save arithmetic against this small MLP (a one-hidden-layer "
                             "network of width 64 is cheap per pass); where it saves time, dense BLAS running "
                             "near the machine's peak does, not fewer operations",
                             "so at this size the fit saves arithmetic as well", "with the same arithmetic"))
gram_kib = footprint_width ** 2 * 8 / 1024
glue("gram_kib", gram_kib)
glue("gram_word", by_sign(gram_kib - activations.mean, "more than", "less than", "as much as"))
glue("footprint_n", footprint_size)
glue("footprint_d", footprint_width)

activations_exceed = bool(activations.mean / 1024 > elm_mem.mean)
store.answer("sgd_activation_memory",
             judge_qualitative(activations_exceed, test="the activations SGD keeps for one backward pass of the "
                               "paper's Table I MLP (counted) against the memory a Green-ELM fit at the Table I "
                               "width adds (measured in a fresh process)",
                               ours=f"activations {activations.mean:.0f} KiB per batch vs Green-ELM's "
                                    f"{elm_mem.mean:.0f} MiB; the whole SGD training adds {sgd_mem.mean:.0f} MiB, "
                                    "mostly the framework's buffers"),
             keys=[activations.key, elm_mem.key, sgd_mem.key],
             note=f"{dataset}, N = {footprint_size}; a deep network trained with large batches keeps far more "
                  "activations than the paper's one-hidden-layer MLP: not measured here")
store.answer("sgd_cost_n_e_d2",
             judge_qualitative("partly", test="FLOPs of an epoch of the paper's SGD MLP counted layer by "
                               "layer: linear in N and in E, but 4NDh + 6Nhk per epoch (D inputs, h hidden) — "
                               "d² only for a d × d hidden layer",
                               ours=f"{sgd_flops.mean / 1e9:.0f} GFLOP for Table I's MLP"),
             keys=[sgd_flops.key], note="a count, not a timing")

# %%
show_table(footprint_table, digits=1)

# %% [markdown]
# At N = {glue:text}`footprint_n` and d = {glue:text}`footprint_d`, Green-ELM's fit does
# {glue:text}`flop_ratio:.2f`× the arithmetic of SGD's ten epochs ({glue:text}`flop_word` than SGD)
# and uses {glue:text}`cpu_ratio:.2f`× its CPU time ({glue:text}`cpu_word`), {glue:text}`flop_sentence`.
# Memory: the SGD training adds {glue:text}`sgd_mem:.0f` MiB to its process
# ({glue:text}`mem_word` than Green-ELM's {glue:text}`elm_mem:.0f` MiB), of which the activations
# kept for one backward pass of a 64-image batch are {glue:text}`activation_kib:.0f` KiB; Green-ELM's
# $d \times d$ Gram matrix alone takes {glue:text}`gram_kib:.0f` KiB, {glue:text}`gram_word` those
# activations.

# %% [markdown]
# ## Storage: the projection from a seed
#
# greenelm's model file (`model.save`) holds the readout ($d \times k$), the labels and the seed;
# `load_model` redraws $W$ ($D \times d$) and $b$ from the seed and checks them against a SHA-256
# digest stored in the file. We compare it with a file that stores $W$ and $b$ too (`np.savez` of
# the same arrays), and check that the model loaded from the seed predicts exactly as the fitted one
# on the test images. A file's size does not depend on the number of training rows.

# %% tags=["remove-cell"]
store_split = load_split(dataset, subset=storage_size)
storage_rows, storage_keys = [], []
for d in storage_widths:
    s = footprint.storage_footprint(store_split.X_train, store_split.y_train, store_split.X_test, d, seed=seed,
                                    alpha=ALPHA)
    setting = dict(**ELM, n_hidden=d, n_inputs=s["n_inputs"], n_outputs=s["n_outputs"], n_train=storage_size,
                   n_test=len(store_split.y_test), format="greenelm .npz (np.savez, uncompressed)")
    prefix = f"{dataset}/green-elm/unit/cholesky/d={d}"
    seed_file = store.record(f"{prefix}/seed-file-bytes", [s["seed_file_bytes"]], "bytes", **setting,
                             stores="readout, labels, seed and digest")
    weights_file = store.record(f"{prefix}/weights-file-bytes", [s["weights_file_bytes"]], "bytes", **setting,
                                stores="readout, labels, W and b")
    identical = store.record(f"{prefix}/seed-reload-labels-identical", [float(s["labels_identical"])], "",
                             **setting, quantity="1 when the model loaded from the seed file predicts "
                                                 "every test label as the fitted model")
    difference = store.record(f"{prefix}/seed-reload-max-score-difference", [s["max_score_difference"]], "",
                              **setting, quantity="max |decision_function| difference, loaded vs fitted")
    storage_keys += [seed_file.key, weights_file.key, identical.key, difference.key]
    storage_rows.append({"width d": d, "with W (MB)": weights_file.mean / 1e6, "seed only (MB)": seed_file.mean / 1e6,
                         "smaller (×)": weights_file.mean / seed_file.mean,
                         "same predictions": "yes" if identical.mean == 1 else "no",
                         "max score diff.": difference.mean})
storage = pd.DataFrame(storage_rows)
largest = storage.iloc[-1]
smaller = bool((storage["smaller (×)"] > 1).all() and (storage["same predictions"] == "yes").all())
store.answer("w1_from_seed_storage",
             judge_qualitative(smaller, test="greenelm's seed-only model file against one that stores W and b, "
                               "and the seed-only model's test predictions against the fitted model's",
                               ours=f"{largest['seed only (MB)']:.2f} MB instead of {largest['with W (MB)']:.2f} MB "
                                    f"at d = {int(largest['width d'])} ({largest['smaller (×)']:.0f}× smaller), "
                                    "identical predictions"),
             keys=storage_keys, note=f"{dataset}-shaped models (D = {D}, k = {K}), float64")
glue("storage_d", int(largest["width d"]))
glue("storage_seed_mb", largest["seed only (MB)"])
glue("storage_w_mb", largest["with W (MB)"])
glue("storage_factor", largest["smaller (×)"])
glue("storage_same", "identical" if (storage["same predictions"] == "yes").all() else "not identical")

# %%
show_table(storage, digits=2, integers=["width d"])

# %% [markdown]
# At d = {glue:text}`storage_d` the seed-only file takes {glue:text}`storage_seed_mb:.2f` MB instead of
# {glue:text}`storage_w_mb:.2f` MB ({glue:text}`storage_factor:.0f`× smaller): the projection is
# $D/k$ times the readout, and the seed replaces it. The predictions of the model loaded from the
# seed are {glue:text}`storage_same` to the fitted model's. The saving is on disk and in transfer;
# once loaded, the model holds $W$ in memory like any other.

# %% [markdown]
# ## Energy
#
# The paper measured no energy. We measure it only where the machine exposes energy counters
# (Intel/AMD RAPL under `/sys/class/powercap`); otherwise the evidence is the FLOPs and CPU
# seconds above, which bound the work but are not joules.

# %% tags=["remove-cell"]
if energy_keys:
    elm_j = store.get("hardware", energy_keys["green-elm"]).mean
    sgd_j = store.get("hardware", energy_keys["sgd-mlp"]).mean
    energy_text = (f"the RAPL package counters read {elm_j:.0f} J for the Green-ELM fit and {sgd_j:.0f} J for "
                   f"the SGD training (whole machine, other processes included)")
    store.answer("energy_per_prediction_reduced",
                 judge_qualitative(bool(elm_j < sgd_j), test="RAPL package energy of the Green-ELM fit against "
                                   "the SGD MLP's training (Table I settings)", ours=f"{elm_j:.0f} J vs {sgd_j:.0f} J"),
                 keys=list(energy_keys.values()), note=f"{dataset}, N = {footprint_size}")
    store.answer("energy_not_measured",
                 judge_qualitative(True, test="does the paper report joules or emissions",
                                   ours="no; this machine's RAPL counters give the figures above"),
                 keys=list(energy_keys.values()))
else:
    energy_text = ("this machine exposes no readable RAPL energy counters (/sys/class/powercap/intel-rapl*), "
                   "so no joules are reported")
    store.answer("energy_per_prediction_reduced",
                 not_measurable(f"no energy counters are readable here; as information, Green-ELM's fit does "
                                f"{flop_ratio:.1f}× the FLOPs and uses {cpu_ratio:.2f}× the CPU seconds of SGD's "
                                f"training (N = {footprint_size}, d = {footprint_width}, hidden {MLP_HIDDEN}, "
                                f"{SGD['epochs']} epochs)"),
                 keys=[elm_flops.key, sgd_flops.key, elm_cpu.key, sgd_cpu.key])
    store.answer("energy_not_measured",
                 judge_qualitative(True, test="does the paper, or can this book, report joules or emissions",
                                   ours="neither: no RAPL counters are readable here; FLOPs and CPU seconds instead"),
                 keys=[elm_cpu.key, sgd_cpu.key])
glue("energy_text", energy_text)

store.answer("standard_linear_algebra_no_gpu",
             judge_qualitative(bool(not has_gpu), test="the whole fit runs on a machine with no GPU, as BLAS GEMM "
                               "and SYRK and a LAPACK Cholesky, and each phase's throughput is measured",
                               ours=f"{peak.mean:.0f} GFLOP/s GEMM peak; phases at "
                                    f"{exponents['GFLOP/s at largest'].min():.0f}–"
                                    f"{exponents['GFLOP/s at largest'].max():.0f} GFLOP/s"
                                    + (" (a GPU is present: the claim was not tested without one)" if has_gpu else "")),
             keys=[peak.key, elm_cpu.key], note=f"{machine['cpu']}, {machine['cores']} cores")
store.answer("edge_ai_viable",
             not_measurable(f"no edge device or power meter here; on this {machine['cores']}-core CPU without a GPU "
                            f"the fit at N = {footprint_size}, d = {footprint_width} takes {elm_cpu.mean:.1f} CPU s "
                            f"and adds {elm_mem.mean:.0f} MiB, evidence of feasibility on a small CPU, not of "
                            "viability on a battery-powered device"),
             keys=[elm_cpu.key, elm_mem.key])

# %% [markdown]
# Energy: {glue:text}`energy_text`. The paper's own caveat therefore stands for this book as well:
# the results here are evidence of computational efficiency — FLOPs, CPU seconds, bytes — and not
# of energy or carbon.
