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
# # Random features and one-shot solvers
#
# This chapter re-measures the paper's core claim {cite}`silva2026greenelm`: a frozen random ReLU
# layer followed by a closed-form readout classifies MNIST {cite}`lecun1998gradient` and
# Fashion-MNIST {cite}`xiao2017fashion` as well as a small network trained by SGD, in a fraction
# of the time. It covers the paper's Methodology (Phase I, Phase II, Algorithm 1), Table I
# ("Consolidated Benchmarks"), Table IV ("Solver Performance") and appendix listing 1.
#
# **Phase I** draws $W \in \mathbb{R}^{D\times d}$ and $b \in \mathbb{R}^d$ once and computes
# $H = \max(0, XW + b)$. The paper is inconsistent about the scale of $W$: its text says
# $\mathcal{N}(0, 2/D)$ ("he" below), its Algorithm 1 and its code use $\mathcal{N}(0, 1)$ ("unit").
# We run both. **Phase II** solves $HW_2 = Y$ for one-hot $Y$: the Moore–Penrose solution
# $W_2 = H^{+}Y$ ("pinv", by SVD) or the ridge normal equations $(H^\top H + \lambda I)W_2 = H^\top Y$
# with $\lambda = 10^{-3}$, by LU or Cholesky {cite}`huang2006extreme`.
#
# greenelm never forms the $N \times d$ matrix $H$ except for pinv: it streams row blocks of $X$,
# accumulates $H^\top H$ with BLAS `syrk` and $H^\top Y$, and factorises the $d\times d$ system once.

# %% tags=["parameters"]
profile = "smoke"
seed = 0
datasets = ["mnist", "fashion-mnist"]
subset = 2000  # first `subset` training and test images (None: the full datasets)
widths = [500, 1000]
seeds = 2
sweep_solvers = ["pinv", "cholesky"]
solver_table_width = 500
listing1_n_hidden = 300
listing1_train_sizes = [1000]  # None: the whole training set, as listing 1 is printed

# %%
import numpy as np
import pandas as pd
import matplotlib.pyplot as plt
from myst_nb import glue

from greenelm import paper
from greenelm.experiments import load_split, solver_comparison, width_sweep
from greenelm.paper_code import listing1
from greenelm.data import load_dataset
from greenelm.report import VERDICT_RULE, compare, mean_sd, set_style, summarize, verdict

set_style()
seed_list = list(range(seed, seed + seeds))
splits = {name: load_split(name, subset=subset) for name in datasets}
print(f"profile={profile}: " + ", ".join(
    f"{name} {len(s.y_train)} train / {len(s.y_test)} test" for name, s in splits.items()))

# %% [markdown]
# ## Table I: accuracy against width, both weight scales, over seeds
#
# Every (dataset, weight scale, width, seed) gets one projection; the same projection is solved
# by pinv and by Cholesky on the λ = 1e-3 normal equations (LU solves the same system and gives
# the same readout to ~1e-10, see Table IV below). Fit time is the wall time of
# `ELMClassifier.fit` on two CPU cores: features, Gram and solve.

# %% tags=["hide-input"]
sweep = pd.concat([width_sweep(s, widths, ("unit", "he"), seed_list, sweep_solvers)
                   for s in splits.values()], ignore_index=True)
accuracy = summarize(sweep, ["dataset", "solver", "weight_scale", "n_hidden"])
timing = summarize(sweep, ["dataset", "solver", "weight_scale", "n_hidden"], "fit_seconds")
table = accuracy.merge(timing, on=["dataset", "solver", "weight_scale", "n_hidden"],
                       suffixes=("", "_seconds"))
table.assign(accuracy=[mean_sd(m, s) for m, s in zip(table["mean"], table["sd"])],
             fit_seconds=[mean_sd(m, s) for m, s in zip(table["mean_seconds"], table["sd_seconds"])]
             )[["dataset", "solver", "weight_scale", "n_hidden", "accuracy", "fit_seconds", "n"]]

# %% [markdown]
# Which weight scale did the paper use? The scale whose accuracies lie closer to the paper's plotted
# points (Fig. "Performance scaling") is the better match:

# %% tags=["hide-input"]
figure_points = paper.FIG_SCALING[paper.FIG_SCALING.dataset.isin(datasets)]
pinv_means = accuracy[accuracy.solver == sweep_solvers[0]]
gap = (pinv_means.merge(figure_points, on=["dataset", "n_hidden"], suffixes=("", "_paper"))
       .assign(gap=lambda t: t["mean"] - t["accuracy"])
       .groupby("weight_scale")["gap"].agg(mean_gap="mean", mean_abs_gap=lambda g: g.abs().mean()))
closest_scale = gap["mean_abs_gap"].idxmin()
glue("closest_scale", closest_scale, display=False)
gap.round(2)

# %% [markdown]
# The paper's Table I beside ours. Green-ELM rows are compared with our runs of the same solver
# (PInv → pinv; LUD → the λ = 1e-3 ridge readout) at the weight scale of the paper's code
# (`unit`) and at `he`. Verdict rule: {glue:text}`verdict_rule`.
# The SGD rows are re-measured in the baselines chapter.

# %% tags=["hide-input"]
glue("verdict_rule", VERDICT_RULE, display=False)
paper_rows = paper.TABLE_I[paper.TABLE_I.solver != "sgd"].copy()
paper_rows["ours_solver"] = paper_rows["solver"].map({"pinv": "pinv", "lu": "cholesky"})
ours = accuracy.rename(columns={"solver": "ours_solver"})
table_i = pd.concat([compare(paper_rows, ours[ours.weight_scale == scale],
                             ["dataset", "ours_solver", "n_hidden"]).assign(weight_scale=scale)
                     for scale in ("unit", "he")], ignore_index=True)
table_i = table_i.merge(timing.rename(columns={"solver": "ours_solver", "mean": "our_seconds"})
                        [["dataset", "ours_solver", "weight_scale", "n_hidden", "our_seconds"]],
                        on=["dataset", "ours_solver", "weight_scale", "n_hidden"], how="left")
table_i = table_i.rename(columns={"accuracy": "paper_accuracy", "train_seconds": "paper_seconds"})
table_i["ours"] = [mean_sd(m, s) if np.isfinite(m) else "—" for m, s in zip(table_i["mean"], table_i["sd"])]
(table_i.rename(columns={"n_hidden": "d", "weight_scale": "W", "paper_accuracy": "paper %",
                         "ours": "ours %", "paper_seconds": "paper s", "our_seconds": "ours s"})
 .set_index(["dataset", "model", "d", "W"])[["paper %", "ours %", "verdict", "paper s", "ours s"]]
 .round(2))

# %% [markdown]
# The headline numbers, rounded (these are the values the regression tests pin):

# %%
# NBVAL_CHECK_OUTPUT
for row in accuracy.itertuples():
    print(f"{row.dataset:14s} {row.solver:9s} {row.weight_scale:5s} d={row.n_hidden:5d} "
          f"accuracy {row.mean:6.1f} %")

# %% tags=["hide-input"]
headline = accuracy.set_index(["dataset", "solver", "weight_scale", "n_hidden"])["mean"]
largest = max(widths)
for name in datasets:
    key = name.replace("-", "_")
    glue(f"{key}_largest_unit", float(headline[(name, sweep_solvers[0], "unit", largest)]), display=False)
    glue(f"{key}_largest_he", float(headline[(name, sweep_solvers[0], "he", largest)]), display=False)
glue("largest_width", int(largest), display=False)
glue("paper_mnist_d4000", paper.HEADLINE["mnist_d4000_accuracy"], display=False)
glue("paper_mnist_d2000", paper.HEADLINE["mnist_d2000_accuracy"], display=False)
glue("paper_mnist_d2000_seconds", paper.HEADLINE["mnist_d2000_seconds"], display=False)

# %% [markdown]
# At the largest width we ran (d = {glue:text}`largest_width`), pinv on MNIST reaches
# {glue:text}`mnist_largest_unit:.2f` % with the paper's code scale and
# {glue:text}`mnist_largest_he:.2f` % with its text's scale; the paper reports
# {glue:text}`paper_mnist_d4000:.2f` % at d = 4000.
# The scale closest to the paper's figure is **{glue:text}`closest_scale`**.

# %% [markdown]
# ## Accuracy against width
#
# Our means with ± 2 sd error bars over seeds, beside the points of the paper's Fig. "Performance
# scaling" (black crosses).

# %% tags=["hide-input"]
fig, axes = plt.subplots(1, len(datasets), figsize=(6 * len(datasets), 4.2), squeeze=False)
for ax, name in zip(axes[0], datasets):
    for (solver, scale), group in accuracy[accuracy.dataset == name].groupby(["solver", "weight_scale"]):
        ax.errorbar(group["n_hidden"], group["mean"], yerr=2 * group["sd"].fillna(0), capsize=3,
                    marker="o", label=f"ours: {solver}, W {scale}")
    points = paper.FIG_SCALING[paper.FIG_SCALING.dataset == name]
    ax.plot(points["n_hidden"], points["accuracy"], "kx--", markersize=9, label="paper")
    ax.set(xscale="log", xlabel="hidden width d", ylabel="test accuracy (%)", title=name)
    ax.set_xticks(sorted(set(widths) | set(points["n_hidden"])))
    ax.xaxis.set_major_formatter(plt.ScalarFormatter())
    ax.xaxis.set_minor_formatter(plt.NullFormatter())
    ax.legend(fontsize=8)
fig.tight_layout()
plt.show()

# %% [markdown]
# ## Table IV: solvers on the same projection
#
# One projection (MNIST, W `unit`, seed as set), solved by greenelm's pinv (LAPACK `gelsd`, exact
# minimum norm), LU, Cholesky and eigh (λ = 1e-3). The paper notes that its pinv is unregularised
# while LU and Cholesky use λ = 1e-3, so their readouts differ by construction; at this λ the
# difference is far below what changes a prediction when $H^\top H$ is well conditioned, because
# λ = 1e-3 is tiny next to the eigenvalues of $H^\top H$ that carry the signal. The pairwise table
# shows how far apart the readouts really are. Times are whole fits (features + Gram + solve).

# %% tags=["hide-input"]
mnist = splits.get("mnist") or load_split("mnist", subset=subset)
solver_results, solver_pairs = solver_comparison(mnist, solver_table_width, seed=seed)
table_iv = solver_results.merge(
    paper.TABLE_IV[["solver", "seconds", "accuracy"]].rename(
        columns={"seconds": "paper_solve_seconds", "accuracy": "accuracy_paper"}),
    on="solver", how="left")
table_iv["verdict"] = [verdict(p, a) if np.isfinite(p) else "—"
                       for p, a in zip(table_iv["accuracy_paper"], table_iv["accuracy"])]
table_iv.set_index("solver").round(3)

# %%
fit_time = solver_results.set_index("solver")["fit_seconds"]
paper_time = paper.TABLE_IV.set_index("solver")["seconds"]
glue("pinv_over_cholesky", float(fit_time["pinv"] / fit_time["cholesky"]), display=False)
glue("paper_pinv_over_cholesky", float(paper_time["pinv"] / paper_time["cholesky"]), display=False)
solver_pairs

# %%
# NBVAL_CHECK_OUTPUT
for row in solver_results.itertuples():
    print(f"{row.solver:9s} accuracy {row.accuracy:6.1f} %")
print("max prediction disagreement between solvers:", f"{solver_pairs.prediction_disagreement.max():.3f}")

# %% [markdown]
# The paper's Table IV times (column `paper_solve_seconds`) were taken on other hardware and for
# the solve alone, so only ratios carry over: here pinv by SVD costs
# {glue:text}`pinv_over_cholesky:.1f`× a whole Cholesky fit (the paper:
# {glue:text}`paper_pinv_over_cholesky:.1f`× its Cholesky solve). LU and Cholesky take about the
# same time because both are dominated by forming $H^\top H$, not by the $O(d^3)$ factorisation.

# %% [markdown]
# ## Appendix listing 1, as published
#
# The paper's listing 1 runs here unchanged except for the data loading: `np.random.seed(42)`,
# $W, b \sim \mathcal{N}(0,1)$, `np.linalg.pinv(H) @ Y` on the whole training set, d = 2000.
# The public repository behind the paper slices the training set to its first 20,000 images
# (`slice_size = 20000`), so we run that too.

# %%
raw = load_dataset("mnist", subset=subset)
listing_runs = pd.DataFrame([listing1(raw.x_train, raw.y_train, raw.x_test, raw.y_test,
                                      n_hidden=listing1_n_hidden, n_train=n)
                             for n in listing1_train_sizes])
listing_runs.round(2)

# %%
# NBVAL_CHECK_OUTPUT
for row in listing_runs.itertuples():
    print(f"listing 1, n_train={row.n_train}, d={row.n_hidden}: accuracy {row.accuracy:.1f} %")

# %% tags=["hide-input"]
mnist_acc = accuracy[(accuracy.dataset == "mnist")] if "mnist" in datasets else accuracy.iloc[:0]
at_width = mnist_acc[mnist_acc.n_hidden == listing1_n_hidden]
best = at_width.loc[at_width["mean"].idxmax()] if len(at_width) else None
glue("listing1_accuracies", "; ".join(f"{a:.2f} % with N = {n}" for a, n in
                                      zip(listing_runs.accuracy, listing_runs.n_train)), display=False)
glue("best_sweep_at_listing_width",
     f"{best['mean']:.2f} ± {best['sd']:.2f} % ({best['solver']}, W {best['weight_scale']})"
     if best is not None else "not run at this width", display=False)
full_run = listing_runs.loc[listing_runs.n_train.idxmax()]
glue("listing1_solve_seconds", f"{full_run.solve_seconds:.1f} s (N = {full_run.n_train})", display=False)
glue("listing1_time_ratio", f"{full_run.fit_seconds / paper.HEADLINE['mnist_d2000_seconds']:.0f}×",
     display=False)
if len(listing_runs) > 1:
    by_size = listing_runs.sort_values("n_train")
    change = by_size.accuracy.iloc[0] - by_size.accuracy.iloc[-1]
    glue("slice_effect", f"{'lowers' if change < 0 else 'raises'} accuracy by {abs(change):.2f} points "
         f"(N = {by_size.n_train.iloc[0]} against N = {by_size.n_train.iloc[-1]})", display=False)
else:
    glue("slice_effect", "was not measured at this profile", display=False)

# %% [markdown]
# The paper's own code gives {glue:text}`listing1_accuracies` here, against the paper's
# {glue:text}`paper_mnist_d2000:.2f` % at d = 2000 in {glue:text}`paper_mnist_d2000_seconds:.1f` s. Plausible causes, each measured in this chapter:
#
# - **seed**: the best of our sweeps at the listing's width is {glue:text}`best_sweep_at_listing_width`
#   over seeds; the spread over seeds is the ± term, to be compared with the gap to the paper's value;
# - **weight scale**: both scales are in the sweep above; the one closest to the paper's points is
#   {glue:text}`closest_scale`;
# - **the 20,000-image slice** of the public code {glue:text}`slice_effect`;
# - **time**: listing 1's `pinv` alone takes {glue:text}`listing1_solve_seconds` on this machine's two
#   cores, and its whole fit takes {glue:text}`listing1_time_ratio` the paper's reported time.
