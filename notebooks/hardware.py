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
# The paper's section "Hardware and Complexity Analysis" {cite}`silva2026greenelm` makes three
# claims about cost. **Time**: a Green-ELM fit costs $O(NDd)$ for the features, $O(Nd^2)$ for
# $H^\top H$ and about $O(d^3)$ for the factorisation, and replacing the pseudoinverse (SVD) by the
# regularised normal equations (LU, Cholesky) makes it two orders of magnitude faster (Table IV,
# and 1726 s → 14.5 s for CIFAR-10 features at d = 4000). **Memory**: a closed-form readout needs no
# activations of a backward pass. **Energy**: one matrix computation instead of thousands of SGD
# passes "significantly reduces" energy — a claim the paper itself qualifies: "electrical energy
# and carbon emissions were not directly measured".
#
# This chapter measures each of these on the machine that builds the book: the exponents of each
# phase against $N$ and $d$, the solver trade-off (read from the benchmark report, which also
# measures the paper's own appendix code in the same run), peak memory against $d$ for greenelm's
# streamed fit and for the paper's code (which holds the $N \times d$ matrix $H$), and energy —
# measured only if the machine exposes energy counters.

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
report_path = "benchmarks/report.json"

# %%
import json
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from myst_nb import glue

import greenelm
from greenelm import bench, paper
from greenelm.experiments import load_split
from greenelm.report import VERDICT_RULE, set_style, verdict
from greenelm.solvers import fit_flops

set_style()
split = load_split(dataset, subset=max(sizes + [fixed_size, memory_size]))
Y = np.eye(10)[split.y_train]
machine = bench.machine_info()
kernels = sorted({f"{b['library']}: {b['architecture']}, {b['num_threads']} threads" for b in bench.blas_info() if b["architecture"]})
peak = {dtype: bench.gemm_peak(dtype, n=1024 if profile == "smoke" else 4096)["best"]
        for dtype in ("float64", "float32")}
print(f"profile={profile}: {dataset}, N up to {len(split.y_train)}")
print(f"{machine['cpu']}, {machine['cores']} cores; BLAS: " + "; ".join(kernels))

# %% [markdown]
# The machine's own yardstick is its measured GEMM throughput (the "peak" below: best of five
# square products, measured in this chapter). A fit that runs at a large fraction of it cannot get
# much faster on this hardware without doing less arithmetic.

# %%
glue("peak64", f"{peak['float64']:.0f}", display=False)
glue("peak32", f"{peak['float32']:.0f}", display=False)
pd.Series({f"GEMM peak {k} (GFLOP/s)": round(v, 1) for k, v in peak.items()})

# %% [markdown]
# ## Time against N and against d, phase by phase
#
# Each phase of a greenelm fit is timed on its own (medians over repeats): the features
# $\max(0, XW + b)$ over all row blocks, the accumulation of $H^\top H$ (BLAS `syrk`) and
# $H^\top Y$, and the float64 Cholesky solve of order $d$. A straight line on log–log axes has the
# slope of the exponent; the paper's complexities predict slopes of 1, 1, 0 against $N$ and
# 1, 2, 3 against $d$.

# %%
timings = bench.scaling_sweep(split.X_train, Y, sizes, widths, fixed_width=fixed_width,
                              fixed_size=fixed_size, repeats=repeats, seed=seed)
claims = paper.HARDWARE_CLAIMS["complexity"]
rows = []
for (axis, phase), group in timings.groupby(["axis", "phase"], sort=False):
    x = group["n_samples"] if axis == "N" else group["n_hidden"]
    rows.append({"phase": phase, "against": axis, "paper exponent": claims[phase][axis],
                 "measured exponent": bench.loglog_slope(x, group["seconds"]),
                 "GFLOP/s at the largest size": group["gflop"].iloc[-1] / group["seconds"].iloc[-1]})
exponents = pd.DataFrame(rows)
exponents.round(2)

# %%
fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
for ax, axis, column, label in ((axes[0], "N", "n_samples", f"N (d = {fixed_width})"),
                                (axes[1], "d", "n_hidden", f"d (N = {fixed_size})")):
    for phase, group in timings[timings.axis == axis].groupby("phase", sort=False):
        slope = exponents.query("phase == @phase and against == @axis")["measured exponent"].iloc[0]
        ax.plot(group[column], group["seconds"], "o-",
                label=f"{phase}: slope {slope:.2f} (paper {claims[phase][axis]})")
    ax.set(xscale="log", yscale="log", xlabel=label, ylabel="seconds", title=f"time against {axis}")
    ax.legend(fontsize=8)
fig.tight_layout()
plt.show()

# %% [markdown]
# The FLOP counts behind those lines (multiply–add = 2 FLOPs; the Gram by `syrk` is half a GEMM):

# %%
# NBVAL_CHECK_OUTPUT
for axis, n, d in [("N", n, fixed_width) for n in sizes] + [("d", fixed_size, d) for d in widths]:
    f = fit_flops(n, split.X_train.shape[1], d, 10)
    print(f"N={n:6d} d={d:5d}: features {f.features / 1e9:9.3f}  Gram {f.gram / 1e9:9.3f}  "
          f"solve {f.solve / 1e9:8.4f} GFLOP")

# %%
largest_d = exponents.query("against == 'd'").set_index("phase")["measured exponent"]
largest_n = exponents.query("against == 'N'").set_index("phase")["measured exponent"]
glue("exp_gram_d", f"{largest_d['gram']:.2f}", display=False)
glue("exp_solve_d", f"{largest_d['solve']:.2f}", display=False)
glue("exp_features_n", f"{largest_n['features']:.2f}", display=False)
glue("exp_gram_n", f"{largest_n['gram']:.2f}", display=False)
big = timings[(timings.axis == "N") & (timings.n_samples == max(sizes))].set_index("phase")["seconds"]
glue("share_gram", f"{100 * big['gram'] / big.sum():.0f} %", display=False)

# %% [markdown]
# Measured exponents: the Gram grows as $d^{\,p}$ with $p$ = {glue:text}`exp_gram_d` and the solve
# with $p$ = {glue:text}`exp_solve_d` (paper: 2 and 3); against $N$ the features and Gram grow with
# exponents {glue:text}`exp_features_n` and {glue:text}`exp_gram_n` (paper: 1). Exponents below the
# model at small sizes are BLAS warming up (small matrices run below peak), not cheaper arithmetic.
# At the largest $N$ the Gram takes {glue:text}`share_gram` of the fit: as the paper says, forming
# $H^\top H$, not the factorisation, dominates while $N \gg d$.

# %% [markdown]
# ## The solver trade-off (Table IV and the CIFAR-10 timing claim)
#
# These figures come from the committed benchmark report, produced by the command named below on
# this machine; it runs greenelm, the paper's listing 1 (pinv and the normal equations), listing 2's
# `solve_green_elm` variants and scikit-learn's `Ridge` on full MNIST in one run, each fit in its
# own process. Listing 2's variants are timed on one shared $H$ (listing 1's features), as the paper
# times its solvers; the solve time excludes the features.

# %%
report_file = Path(report_path)
if not report_file.is_absolute():
    report_file = Path(greenelm.__file__).resolve().parents[1] / report_file
report = json.loads(report_file.read_text()) if report_file.exists() else None
if report is None:
    print(f"no benchmark report at {report_file}: run `python -m benchmarks.run` first")
else:
    meta = report["meta"]
    glue("bench_command", meta["command"], display=False)
    glue("bench_date", meta["date"], display=False)
    print(f"{meta['command']} — {meta['date']}, {meta['duration_seconds'] / 60:.0f} min, "
          f"GEMM peak {report['peak']['used']['float64']:.0f} / {report['peak']['used']['float32']:.0f} GFLOP/s "
          f"(float64 / float32), BLAS setting: {meta['blas_mode_text']}")

# %% [markdown]
# The report's headline: greenelm against the floor set by this machine's GEMM peak and against the
# paper's code, at the report's target width (full MNIST, λ = 1e-3). "met" compares each measured
# ratio with the goal the project set itself.

# %%
targets = pd.DataFrame(report["targets"]) if report is not None else pd.DataFrame()
targets

# %%
solver_names = {"listing 2 'pinv'": "pinv", "listing 2 'lud'": "lu", "listing 2 'cholesky'": "cholesky"}
same_h = pd.DataFrame([r for r in (report or {}).get("tables", {}).get("same_h", []) if "solve_seconds" in r])
if len(same_h):
    d_table = 2000 if 2000 in set(same_h.n_hidden) else int(same_h.n_hidden.min())
    ours = same_h[same_h.n_hidden == d_table].assign(solver=lambda t: t.variant.map(solver_names))
    table_iv = ours.merge(paper.TABLE_IV[["solver", "seconds", "accuracy"]].rename(
        columns={"seconds": "paper_seconds", "accuracy": "paper_accuracy"}), on="solver", how="left")
    table_iv["accuracy verdict"] = [verdict(p, a) if np.isfinite(p) else "—"
                                    for p, a in zip(table_iv.paper_accuracy, table_iv.accuracy)]
    display_iv = table_iv[["variant", "solve_seconds", "ratio_to_greenelm", "gflops_per_s", "fraction_of_peak",
                           "accuracy", "paper_seconds", "paper_accuracy", "accuracy verdict"]].round(3)
else:
    display_iv = pd.DataFrame()
display_iv

# %% [markdown]
# Verdict rule: {glue:text}`verdict_rule` (single runs: only an exact match counts). The speed
# ratios, measured in one run, are what carries across machines:

# %%
glue("verdict_rule", VERDICT_RULE, display=False)
ratio_rows = []
timings_paper = paper.HARDWARE_TIMINGS.set_index(["source", "solver"])["seconds"]
if len(same_h):
    t = table_iv.set_index("solver")["solve_seconds"]
    if "pinv" in t:
        ratio_rows.append({"ratio": f"pinv / LU solve, MNIST d={d_table}", "ours": t["pinv"] / t["lu"],
                           "paper": timings_paper[("Table IV", "pinv")] / timings_paper[("Table IV", "lu")],
                           "paper source": "Table IV (MNIST, d=2000)"})
if report is not None and "fit" in report["tables"]:
    fits = pd.DataFrame(report["tables"]["fit"])
    def fit_seconds(method, d, dtype="float64"):
        hit = fits[(fits.method.str.startswith(method)) & (fits.n_hidden == d) & (fits.dtype == dtype)]
        return float(hit.seconds.iloc[0]) if len(hit) and pd.notna(hit.seconds.iloc[0]) else np.nan
    for d in (2000, 4000):
        ratio_rows.append({"ratio": f"listing 1 pinv / greenelm Cholesky (whole fit), MNIST d={d}",
                           "ours": fit_seconds("listing 1, np.linalg.pinv", d) / fit_seconds("greenelm", d),
                           "paper": (timings_paper[("CIFAR-10 ResNet-18 table", "pinv")]
                                     / timings_paper[("CIFAR-10 ResNet-18 table", "cholesky")]) if d == 4000 else np.nan,
                           "paper source": "CIFAR-10 ResNet-18 table (d=4000)" if d == 4000 else "—"})
        ratio_rows.append({"ratio": f"listing 1 normal equations / greenelm Cholesky, MNIST d={d}",
                           "ours": fit_seconds("listing 1, np.linalg.solve", d) / fit_seconds("greenelm", d),
                           "paper": np.nan, "paper source": "—"})
ratios = pd.DataFrame(ratio_rows)
normal_ratios = ratios[ratios.ratio.str.startswith("listing 1 normal")]["ours"] if len(ratios) else pd.Series(dtype=float)
glue("normal_ratio_range", f"{normal_ratios.min():.1f}× to {normal_ratios.max():.1f}×" if len(normal_ratios) else "—", display=False)
unmet = [t["target"] for t in (report or {}).get("targets", []) if not t["met"]]
glue("targets_unmet", f"{len(unmet)} of {len((report or {}).get('targets', []))}", display=False)
ratios.round(1)

# %% [markdown]
# **What these ratios say.** The project set itself targets before measuring (the "met" column
# above); {glue:text}`targets_unmet` are not met, and the reason is instructive. The paper's
# listing 1 with the normal equations forms $H^\top H$ as `H.T @ H`, which NumPy recognises and
# hands to the same BLAS `syrk` greenelm calls, and builds $H$ with one large GEMM: it does the same
# arithmetic as greenelm with the same kernels. Its time relative to greenelm's whole fit ranges
# over {glue:text}`normal_ratio_range` across the widths measured — on a shared two-core machine the
# spread is mostly noise — so no "3× faster than the listing" exists to be had: greenelm's advantage
# over the listing is **memory** (below: it never holds the $N \times d$ matrix $H$), not time.
# Against the pseudoinverse the gap is real but far from the paper's 119×: an SVD costs a small
# multiple of the normal equations' FLOPs ($6Nd^2 + 20d^3$ against $Nd^2 + d^3/3$), and LAPACK runs
# it at a good fraction of the machine's peak, so the measured ratio is about the FLOP ratio.

# %% [markdown]
# Where greenelm's own time goes at the target width (each step of the estimator timed alone; the
# two "alternative" rows form the same Gram matrix in other ways, outside the fit, to show what the
# BLAS `syrk` costs against GEMM on this machine):

# %%
profile_table = pd.DataFrame(report["tables"].get("profile", [])) if report is not None else pd.DataFrame()
if "seconds" in profile_table:
    profile_table = profile_table.reindex(columns=["dtype", "n_hidden", "phase", "seconds", "share_of_fit",
                                                   "gflops_per_s", "fraction_of_peak"]).round(3)
profile_table

# %% [markdown]
# The paper's own timings disagree with each other: Table I gives 1.50 s for its pinv fit at
# d = 2000 on MNIST, Table IV 74.1 s for the same solver, width and data. The ratios above are
# taken in one run on one machine, so they are free of that ambiguity.

# %% [markdown]
# ## Memory against d
#
# greenelm streams row blocks of $X$ and keeps only $W$ ($D\times d$), $H^\top H$ ($d\times d$),
# $H^\top Y$ and one block of $H$: its memory grows as $d^2$ and not with $N$. The paper's code holds
# all of $H$ ($N \times d$, float64) plus a temporary of the same size while forming it. Each fit
# below runs in a fresh process; the figure is the process's peak resident memory.

# %%
memory_rows = []
for method in ("greenelm", "listing"):
    for d in memory_widths:
        run = bench.run_isolated("greenelm.bench:fit_memory",
                                 {"n_hidden": d, "n_train": memory_size, "method": method, "dataset": dataset})
        r = run["result"] or {}
        memory_rows.append({"code": "greenelm (streamed)" if method == "greenelm" else "paper listing 1 (holds H)",
                            "n_hidden": d, "peak_rss_mib": run["peak_rss_bytes"] / 2**20,
                            "fit_added_mib": ((r.get("rss_after_fit_bytes", np.nan) - r.get("rss_before_fit_bytes", np.nan))
                                              / 2**20),
                            "H_mib": memory_size * d * 8 / 2**20, "gram_mib": d * d * 8 / 2**20,
                            "status": "ok" if run["ok"] else run["error"]})
memory = pd.DataFrame(memory_rows)
memory.round(1)

# %%
fig, ax = plt.subplots(figsize=(7, 4.2))
for code, group in memory.groupby("code"):
    ax.plot(group.n_hidden, group.fit_added_mib, "o-", label=f"{code}: added by the fit")
ax.plot(memory_widths, [memory_size * d * 8 / 2**20 for d in memory_widths], "k--", label="size of H (N×d float64)")
ax.plot(memory_widths, [d * d * 8 / 2**20 for d in memory_widths], "k:", label="size of HᵀH (d×d float64)")
ax.set(xscale="log", yscale="log", xlabel=f"d (N = {memory_size})", ylabel="MiB",
       title="peak memory added by the fit against d")
ax.legend(fontsize=8)
fig.tight_layout()
plt.show()

# %%
# NBVAL_CHECK_OUTPUT
for d in memory_widths:
    print(f"d={d:5d}: H is {memory_size * d * 8 / 2**20:8.1f} MiB, HᵀH is {d * d * 8 / 2**20:7.1f} MiB (float64)")

# %%
if report is not None and "memory" in report["tables"]:
    mem_n = pd.DataFrame(report["tables"]["memory"])
    glue("memory_slopes", "; ".join(f"{k}: {v:.0f} MiB per 10,000 samples"
                                    for k, v in report["memory_slopes"].items()), display=False)
    display_mem = mem_n[["method", "n_train", "n_hidden", "peak_rss_mib", "input_mib", "h_mib"]].round(0)
else:
    glue("memory_slopes", "not in the benchmark report", display=False)
    display_mem = pd.DataFrame()
display_mem

# %% [markdown]
# Against $N$ (from the benchmark report, full MNIST subsets at its target width), peak memory
# grows by {glue:text}`memory_slopes`: greenelm's growth is the input $X$ itself, the paper's
# code's is the input plus $H$ and its temporaries.

# %% [markdown]
# ## Energy
#
# The paper measured no energy. We measure it only where the hardware exposes energy counters
# (Intel/AMD RAPL under `/sys/class/powercap`); otherwise we report the arithmetic done, which is
# what the paper's argument actually rests on, and no joules.

# %%
flops_target = fit_flops(60000, 784, 4000, 10)
before = bench.rapl_energy_uj()
if before is not None:
    start = bench.time_call(lambda: bench.phase_times(split.X_train, Y, fixed_width, repeats=1), repeats=1)
    after = bench.rapl_energy_uj()
    joules = sum((after[k] - before[k]) for k in before) / 1e6
    energy_text = (f"RAPL counters readable: {joules:.1f} J for one fit at N = {len(Y)}, d = {fixed_width} "
                   f"({start[0]:.2f} s)")
else:
    energy_text = ("this machine exposes no readable RAPL energy counters (/sys/class/powercap/intel-rapl*), "
                   "so no energy is reported")
glue("energy_text", energy_text, display=False)
glue("target_tflop", f"{flops_target.total / 1e12:.2f}", display=False)
print(energy_text)
print(f"one full-MNIST fit at d=4000: {flops_target.total / 1e12:.2f} TFLOP "
      f"(features {flops_target.features / 1e12:.2f}, Gram {flops_target.gram / 1e12:.2f}, "
      f"solve {flops_target.solve / 1e12:.3f})")

# %% [markdown]
# Energy: {glue:text}`energy_text`. The arithmetic of one full-MNIST fit at d = 4000 is
# {glue:text}`target_tflop` TFLOP; the benchmark report gives the time it takes here and its
# fraction of the machine's GEMM peak. Joules per fit would follow from a power measurement this
# machine cannot make; we do not estimate them.
