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
# # The scaling law, the infinite-width limit and the choice of λ
#
# The paper's section "Dimensionality vs. Accuracy Scaling" {cite}`silva2026greenelm` reports that
# as the hidden width grows from d = 500 to 4000, accuracy "scales near-logarithmically",
# Accuracy ∝ ln d, on MNIST, Fashion-MNIST and CIFAR-10 (its Fig. "Performance scaling"), and
# proposes an *Empirical Scaling Model*
#
# $$\text{Acc}(d, \mathcal{C}) \approx \alpha\,\frac{\ln d}{\mathcal{C}} + \beta ,$$
#
# with a *Manifold Complexity Index* $\mathcal{C}$ per dataset (MNIST the anchor, $\mathcal{C} = 1$),
# calibrated by its Algorithm 2 from the figure's twelve points into Table III
# (α = 0.0431, β = 0.6337, $\mathcal{C}_f$ = 2.3032, $\mathcal{C}_{cifar}$ = 2.4710). A second remark,
# the *Empirical Scaling Hypothesis*, generalises it to $A = \Psi \ln d / \mathcal{H}^{\gamma} + \epsilon$
# with an "intrinsic manifold entropy" $\mathcal{H}$ the paper does not define. Its future-work
# section asks whether Accuracy ∝ log d continues into an "ultra-wide regime".
#
# This chapter (1) runs Algorithm 2 exactly as published on the paper's points and on ours,
# (2) measures the curves on the full datasets over seeds and beyond the paper's range, (3) computes
# the d → ∞ limit exactly — the arc-cosine kernel {cite}`cho2009kernel` — as the asymptote the
# curves approach, and (4) asks whether the paper's fixed λ = 10⁻³ is a good choice, using exact
# leave-one-out and generalised cross-validation {cite}`golub1979generalized` from one
# eigendecomposition.
#
# **Setting.** Green-ELM as in the paper's code: $W \sim \mathcal{N}(0, 1)$, $b \sim \mathcal{N}(0, 1)$,
# ReLU, ridge readout by Cholesky with λ = 10⁻³, pixels scaled to [0, 1], CIFAR-10 as raw pixels
# (3072-d). **Nested widths**: per seed we draw one projection of the largest width and accumulate its
# $H^\top H$ once; the model of width d uses the first d hidden units, i.e. the leading d × d block.
# The first d columns of a Gaussian W are themselves a width-d draw, so each width is an honest
# Green-ELM — and the curve of one seed is smooth in d rather than re-drawn at every point.

# %% tags=["parameters"]
profile = "smoke"
seed = 0
datasets = ["mnist", "fashion-mnist", "cifar10"]
subset = 2000  # first `subset` train and test samples of each dataset (None: all)
widths = [100, 200, 400, 800]
seeds = 2
alpha = 1e-3
n_boot = 200
paper_range = [100, 800]  # the widths treated as "the paper's range" (500–4000 at full scale)
kernel_datasets = ["mnist"]
kernel_subset = 1000  # training samples for the arc-cosine kernel limit (None: all)
kernel_jitter = {"mnist": 1.0e-6, "fashion-mnist": 1.0e-6, "cifar10": 1.0e-6}  # first try, per dataset
kernel_check_widths = [100, 1000, 10000]
lambda_widths = [200]
lambdas = [1e-4, 1e-2, 1, 100]

# %%
import os

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from greenelm import paper
from greenelm.experiments import accumulate_wide, load_split, memoize, nested_widths, ridge_path_table
from greenelm.features import RandomReLUFeatures
from greenelm.kernels import arccos_kernel, kernel_ridge_predict
from greenelm.report import VERDICT_RULE, glue, mean_sd, set_style, verdict
from greenelm.scaling import (bootstrap_calibration, calibrate_complexity, confidence_intervals,
                              fit_hypothesis, model_residuals, spectral_entropy)

set_style()
seed_list = list(range(seed, seed + seeds))
widths = sorted(widths)
in_range = [d for d in widths if paper_range[0] <= d <= paper_range[1]]
splits = {name: load_split(name, subset=subset) for name in datasets}
NAMES = {"mnist": "MNIST", "fashion-mnist": "Fashion-MNIST", "cifar10": "CIFAR-10 (raw pixels)"}
print(f"profile={profile}: " + "; ".join(f"{NAMES[n]} {len(s.y_train)} train / {len(s.y_test)} test"
                                         for n, s in splits.items()))
print(f"widths {widths} (paper's range {in_range}), seeds {seed_list}, λ = {alpha}")

# %% [markdown]
# ## Algorithm 2 on the paper's own points
#
# Algorithm 2 fits $A = \alpha \ln d + \beta$ to MNIST by ordinary least squares, then for each other
# dataset the OLS slope $m$ of $A - \beta$ against $\ln d$, and sets $\mathcal{C} = \alpha / m$.
# `greenelm.scaling.calibrate_complexity` implements exactly that; on the twelve points of the
# paper's figure it must return Table III (a unit test pins this to the printed four decimals).

# %%
# NBVAL_CHECK_OUTPUT
fig_points = paper.FIG_SCALING
paper_curves = {name: fig_points[fig_points.dataset == name].sort_values("n_hidden").accuracy.to_numpy() / 100
                for name in ("mnist", "fashion-mnist", "cifar10")}
paper_widths = sorted(fig_points.n_hidden.unique())
paper_fit = calibrate_complexity(paper_widths, paper_curves)
table3 = pd.DataFrame({"paper (Table III)": pd.Series(paper.TABLE_III),
                       "Algorithm 2 on the paper's points": paper_fit.as_series()})
table3["match to 4 decimals"] = [round(a, 4) == round(b, 4) for a, b in
                                 zip(table3.iloc[:, 0], table3.iloc[:, 1])]
table3.round(4)

# %% [markdown]
# It does. Two properties of the fit are worth stating, because they bound what Table III can mean:
#
# * **Subtracting β changes nothing.** The OLS slope of $A - \beta$ equals the slope of $A$, so
#   $\mathcal{C}$ is simply the ratio of MNIST's slope to the dataset's. β is MNIST's intercept and is
#   never fitted to the other datasets.
# * **The calibrated model does not describe the other curves.** With the global β the model
#   $\alpha \ln d / \mathcal{C} + \beta$ passes far below Fashion-MNIST's and CIFAR-10's points:

# %%
residuals = model_residuals(paper_fit, paper_widths, paper_curves)
residual_table = residuals.assign(accuracy=100 * residuals.accuracy, model=100 * residuals.model,
                                  residual=100 * residuals.residual)
worst = residual_table[residual_table.dataset != "mnist"].residual.abs().max()
glue("paper_model_worst", f"{worst:.1f}")
residual_table.pivot(index="n_hidden", columns="dataset", values="residual").round(2)

# %% [markdown]
# (percentage points, measured minus model). The model misses the non-anchor datasets by up to
# {glue:text}`paper_model_worst` points: $\mathcal{C}$ describes a ratio of slopes, not the curves.
# A lower slope is also not evidence of "manifold complexity": a dataset whose accuracy is already
# near its ceiling has a flat curve whatever its complexity.

# %% [markdown]
# ## Measured curves, over seeds and beyond d = 4000
#
# For every dataset and seed: one widest projection, its normal equations, and a Cholesky solve per
# width (`greenelm.experiments.accumulate_wide`, `nested_widths`). Results are cached on disk keyed
# by the parameters and the code that computes them (`greenelm.experiments.memoize`), so a
# re-execution with the same parameters reuses them; the printout says which were computed now.

# %%
curve_rows, correct = [], {}
for name, split in splits.items():
    per_seed = []
    for s in seed_list:
        def compute(split=split, s=s):
            wide = accumulate_wide(split, max(widths), seed=s, progress=False)
            table, hits = nested_widths(wide, widths, alpha=alpha)
            return {"table": table.assign(gram_seconds=wide.seconds), "correct": hits}
        result, info = memoize("scaling-curve", {"dataset": name, "subset": subset, "widths": widths, "seed": s,
                                                 "alpha": alpha},
                               compute, modules=("experiments", "features", "solvers", "model_selection"))
        print(f"{NAMES[name]:24s} seed {s}: {'cached' if info['cached'] else 'computed'} "
              f"({info['seconds']:.0f} s to compute)")
        curve_rows.append(result["table"].assign(dataset=name, seed=s))
        per_seed.append(result["correct"])
    correct[name] = np.stack(per_seed)           # (seeds, widths, test samples)
curves = pd.concat(curve_rows, ignore_index=True)
fallbacks = curves[curves.solver != "cholesky"]
for row in fallbacks.itertuples():
    print(f"{NAMES[row.dataset]} seed {row.seed} d={row.n_hidden}: Cholesky failed "
          f"(G + λI numerically indefinite in float64), solved by LU")
summary = curves.groupby(["dataset", "n_hidden"], sort=False).accuracy.agg(["mean", "std", "count"]).reset_index()
summary.pivot(index="n_hidden", columns="dataset", values="mean").round(2)

# %% [markdown]
# The same, with the paper's points (its figure) and each model's sd over seeds; the dashed lines are
# the figure's baselines as the paper drew them:

# %%
fig, ax = plt.subplots(figsize=(8, 4.8))
colors = dict(zip(datasets, plt.rcParams["axes.prop_cycle"].by_key()["color"]))
for name in datasets:
    part = summary[summary.dataset == name]
    ax.errorbar(part.n_hidden, part["mean"], yerr=part["std"].fillna(0), fmt="o-", color=colors[name],
                capsize=3, label=f"{NAMES[name]} (ours, mean ± sd over {seeds} seeds)")
    paper_part = fig_points[fig_points.dataset == name]
    ax.plot(paper_part.n_hidden, paper_part.accuracy, "s--", color=colors[name], alpha=0.45, mfc="none",
            label=f"{NAMES[name]} (paper)")
    ax.axhline(paper.FIG_SCALING_BASELINES[name], color=colors[name], ls=":", lw=1)
ax.set(xscale="log", xlabel="hidden width d", ylabel="test accuracy (%)",
       title="accuracy against width (dotted: the paper's SGD/CNN baselines)")
ax.legend(fontsize=7, ncol=2, loc="lower right")
fig.tight_layout()
plt.show()

# %% [markdown]
# ### Is it ln d? Gain per doubling of d
#
# If accuracy is linear in ln d, every doubling of d adds the same number of points. The table gives
# the measured gain of each doubling (mean over seeds) and, in the last column, what the OLS line
# fitted on the paper's range predicts for every doubling.

# %%
gain_rows = []
for name in datasets:
    part = summary[summary.dataset == name].set_index("n_hidden")["mean"]
    slope = np.polyfit(np.log(in_range), part.loc[in_range].to_numpy(), 1)[0]
    row = {"dataset": NAMES[name]}
    for a, b in zip(widths[:-1], widths[1:]):
        if b == 2 * a:
            row[f"{a}→{b}"] = part[b] - part[a]
    row["ln-d line (paper's range)"] = slope * np.log(2)
    gain_rows.append(row)
gains = pd.DataFrame(gain_rows).set_index("dataset")
gains.round(2)

# %%
last_pair = [c for c in gains.columns if "→" in c][-1]
first_pair = [c for c in gains.columns if "→" in c][0]
ratio_last = (gains[last_pair] / gains["ln-d line (paper's range)"])
glue("last_pair", last_pair)
glue("first_pair", first_pair)
glue("gain_ratio_text", "; ".join(f"{k} {v:.2f}×" for k, v in ratio_last.items()))

# %% [markdown]
# At the widest doubling ({glue:text}`last_pair`) the gain is, relative to what the ln d line predicts
# (1× = still logarithmic): {glue:text}`gain_ratio_text`. A ratio well below 1 means the curve bends
# below ln d — saturation toward the infinite-width limit computed further down.

# %% [markdown]
# ## Algorithm 2 on our curves, with bootstrap intervals
#
# The same calibration on our mean curves, on the paper's range of widths and on all our widths.
# The intervals come from {glue:text}`n_boot` bootstrap replicates: seeds and test samples are resampled
# (the same test samples for every width, so each curve stays paired), and the 2.5–97.5 %
# percentiles are reported. Verdict rule for Table III: {glue:text}`verdict_rule`, with the bootstrap
# sd in place of the sd over seeds.

# %%
glue("verdict_rule", VERDICT_RULE)
glue("n_boot", f"{n_boot}")
anchor = paper.SCALING["anchor"]
calibrations, intervals = {}, {}
for label, ws in (("paper's range", in_range), ("all widths", widths)):
    idx = [widths.index(d) for d in ws]
    means = {name: correct[name][:, idx].mean(axis=(0, 2)) for name in datasets}
    calibrations[label] = calibrate_complexity(ws, means, anchor=anchor)
    boot = bootstrap_calibration(ws, {n: correct[n][:, idx] for n in datasets}, anchor=anchor,
                                 n_boot=n_boot, seed=seed)
    intervals[label] = (confidence_intervals(boot), boot.std())
rows = []
for key, paper_value in paper.TABLE_III.items():
    if key == "C_mnist":
        continue
    row = {"parameter": key, "paper": paper_value}
    for label, fit in calibrations.items():
        value = fit.as_series().get(key, np.nan)
        ci, sd = intervals[label]
        row[f"ours, {label}"] = value
        row[f"95 % CI, {label}"] = (f"[{ci.loc[key, 'low']:.4f}, {ci.loc[key, 'high']:.4f}]"
                                    if key in ci.index else "—")
        row[f"verdict, {label}"] = verdict(paper_value, value, sd.get(key, np.nan), unit="") if np.isfinite(value) else "—"
    rows.append(row)
table3_ours = pd.DataFrame(rows).set_index("parameter")
table3_ours.round(4)

# %% [markdown]
# ### The hypothesis with γ fitted
#
# The hypothesis needs an entropy $\mathcal{H}$ per dataset that the paper never defines. We take a
# stated, measurable choice: the **spectral entropy** (bits) of each training set's pixel covariance,
# $\mathcal{H} = -\sum_i p_i \log_2 p_i$ with $p_i$ the normalised eigenvalues ($2^{\mathcal{H}}$ is
# an effective number of dimensions). Then per dataset $A = m \ln d + \epsilon$ by OLS, and across
# datasets $\ln m = \ln \Psi - \gamma \ln \mathcal{H}$. With three datasets this is two parameters
# from three slopes — one degree of freedom — so the interval on γ says more than its value.

# %%
entropies = {name: spectral_entropy(split.X_train) for name, split in splits.items()}
ws = in_range
idx = [widths.index(d) for d in ws]
mean_curves = {n: correct[n][:, idx].mean(axis=(0, 2)) for n in datasets}
rising = [n for n in datasets if np.polyfit(np.log(ws), mean_curves[n], 1)[0] > 0]
hyp_table = pd.DataFrame({"spectral entropy H (bits)": entropies,
                          "effective dimensions 2^H": {k: 2**v for k, v in entropies.items()},
                          "slope m (per unit ln d, %)": {n: 100 * np.polyfit(np.log(ws), mean_curves[n], 1)[0]
                                                         for n in datasets}}).rename(index=NAMES)
if len(rising) >= 2:
    hypothesis = fit_hypothesis(ws, {n: mean_curves[n] for n in rising}, {n: entropies[n] for n in rising})
    boot_h = bootstrap_calibration(ws, {n: correct[n][:, idx] for n in rising}, anchor=anchor, n_boot=n_boot,
                                   seed=seed, entropies={n: entropies[n] for n in rising})
    ci_h = confidence_intervals(boot_h.dropna())
    glue("psi", f"{hypothesis.psi:.4f} [{ci_h.loc['psi', 'low']:.4f}, {ci_h.loc['psi', 'high']:.4f}]")
    glue("gamma", f"{hypothesis.gamma:.2f} [{ci_h.loc['gamma', 'low']:.2f}, {ci_h.loc['gamma', 'high']:.2f}]")
else:
    glue("psi", "not fitted")
    glue("gamma", "not fitted")
dropped = [NAMES[n] for n in datasets if n not in rising]
glue("hyp_datasets", ", ".join(NAMES[n] for n in rising)
     + (f" ({', '.join(dropped)} left out: its accuracy does not rise with d here, so ln m is undefined)"
        if dropped else ""))
hyp_table.round(3)

# %% [markdown]
# Fitted on {glue:text}`hyp_datasets`: Ψ = {glue:text}`psi` and γ = {glue:text}`gamma` (95 % bootstrap
# intervals). If the interval
# on γ includes 0, the slopes are not explained by this entropy at all; the data cannot distinguish
# "complexity resistance" from any other per-dataset difference with three datasets.

# %% [markdown]
# ## The infinite-width limit: the arc-cosine kernel
#
# With Gaussian $W$ and $b$, the features' inner products converge as d → ∞:
# $H H^\top / d \to K$, where $K$ is the degree-1 arc-cosine kernel {cite}`cho2009kernel` on inputs
# augmented with the bias, $\tilde x = [x, 1]$:
#
# $$K(x, z) = \frac{\lVert\tilde x\rVert\,\lVert\tilde z\rVert}{2\pi}\bigl(\sin\theta + (\pi - \theta)\cos\theta\bigr),
# \qquad \cos\theta = \frac{\tilde x^\top \tilde z}{\lVert\tilde x\rVert\,\lVert\tilde z\rVert}.$$
#
# The width-d ridge readout predicts $H_t (H^\top H + \lambda I)^{-1} H^\top Y = \hat K_t(\hat K + \tfrac{\lambda}{d} I)^{-1} Y$
# with $\hat K = HH^\top/d$: at fixed λ the effective ridge λ/d vanishes, so an infinitely wide
# Green-ELM is **kernel interpolation** with $K$. First, the convergence itself on a few test images
# (a unit test checks it at d = 400,000):

# %%
probe = splits[datasets[0]].X_test[:200]
K_probe = arccos_kernel(probe)
check_rows = []
for d in kernel_check_widths:
    H = RandomReLUFeatures(probe.shape[1], d, seed=seed).transform(probe)
    check_rows.append({"d": d, "max |HHᵀ/d − K| / max K": float(np.abs(H @ H.T / d - K_probe).max() / K_probe.max())})
convergence = pd.DataFrame(check_rows)
convergence

# %% [markdown]
# The error falls like $1/\sqrt d$, as a Monte-Carlo average should. Now the limit's accuracy: kernel
# ridge with the arc-cosine kernel on the training set, solved by an in-place blocked Cholesky of the
# N × N kernel in float32 (`greenelm.kernels.kernel_ridge_predict`; N = 60,000 is 14.4 GB) with a
# small ridge μ = jitter × mean diag K standing in for λ/d → 0. The first jitter tried per dataset is
# {glue:text}`kernel_jitter`; a factorisation that fails (the kernel matrix is numerically singular
# in float32) is retried with ten times the jitter, and the table gives the jitter that succeeded.
# At N = 10,000 the accuracy did not change between jitters of 1e-7 and 1e-4.

# %%
glue("kernel_jitter", ", ".join(f"{NAMES[n]} {kernel_jitter[n]:g}" for n in kernel_datasets))
kernel_rows = []
for name in kernel_datasets:
    split = splits[name]
    n_train = len(split.y_train) if kernel_subset is None else min(kernel_subset, len(split.y_train))
    jitter = kernel_jitter[name]
    for attempt in range(3):      # a float32 factorisation that fails is retried with 10× the jitter
        def compute(split=split, n_train=n_train, jitter=jitter):
            try:
                scores, info = kernel_ridge_predict(split.X_train[:n_train], np.eye(10)[split.y_train[:n_train]],
                                                    split.X_test, jitter=jitter)
            except np.linalg.LinAlgError as error:
                return {"failed": str(error)}
            return {"accuracy": 100 * float(np.mean(scores.argmax(1) == split.y_test)), **info}
        result, info = memoize("arccos-kernel", {"dataset": name, "subset": subset, "n_train": n_train,
                                                 "jitter": jitter}, compute, modules=("kernels", "features"))
        if "failed" not in result:
            break
        print(f"{NAMES[name]}: jitter {jitter:g} failed ({result['failed']}); retrying with {10 * jitter:g}")
        jitter *= 10
    if "failed" in result:
        continue
    kernel_rows.append({"dataset": name, "n_train": n_train, "kernel accuracy (d = ∞)": result["accuracy"],
                        "jitter": f"{jitter:g}", "μ": f"{result['mu']:.2e}", "seconds": info["seconds"],
                        "status": "cached" if info["cached"] else "computed"})
kernel_table = pd.DataFrame(kernel_rows)
widest = summary[summary.n_hidden == max(widths)].set_index("dataset")
kernel_table[f"Green-ELM d = {max(widths)} (mean)"] = kernel_table.dataset.map(widest["mean"])
kernel_table["dataset"] = kernel_table.dataset.map(NAMES)
kernel_table.round(3)

# %%
fig, ax = plt.subplots(figsize=(8, 4.8))
for name in datasets:
    part = summary[summary.dataset == name]
    ax.errorbar(part.n_hidden, part["mean"], yerr=part["std"].fillna(0), fmt="o-", color=colors[name],
                capsize=3, label=f"{NAMES[name]}")
    hit = [r for r in kernel_rows if r["dataset"] == name]
    if hit:
        full = hit[0]["n_train"] == len(splits[name].y_train)
        ax.axhline(hit[0]["kernel accuracy (d = ∞)"], color=colors[name], ls="--",
                   label=f"{NAMES[name]}: d = ∞ (arc-cosine kernel{'' if full else ', N = %d' % hit[0]['n_train']})")
ax.set(xscale="log", xlabel="hidden width d", ylabel="test accuracy (%)", title="Green-ELM and its infinite-width limit")
ax.legend(fontsize=7, loc="lower right")
fig.tight_layout()
plt.show()

# %% [markdown]
# ## Choosing λ: leave-one-out and GCV in closed form
#
# The paper fixes λ = 10⁻³. From one eigendecomposition $H^\top H = V \operatorname{diag}(s) V^\top$
# every ridge readout is available, and so are generalised cross-validation (from the spectrum alone)
# and **exact** leave-one-out (one pass over the rows for each sample's leverage
# $h_j = \sum_i (HV)_{ji}^2/(s_i + \lambda)$; the left-out prediction is $y_j - e_j/(1-h_j)$;
# `greenelm.model_selection.RidgePath`, checked against N refits in a unit test). Below, per width:
# test accuracy, LOO accuracy and GCV across λ, the λ each criterion picks, and the test accuracy at
# that λ against the paper's.

# %%
path_rows = []
for name in datasets:
    for d in lambda_widths:
        def compute(split=splits[name], d=d):
            wide = accumulate_wide(split, d, seed=seed, progress=False)
            return ridge_path_table(wide, split, d, sorted(set(lambdas) | {alpha}))
        table, info = memoize("ridge-path", {"dataset": name, "subset": subset, "n_hidden": d, "seed": seed,
                                             "lambdas": sorted(set(lambdas) | {alpha})},
                              compute, modules=("experiments", "features", "solvers", "model_selection"))
        path_rows.append(table.assign(dataset=name))
paths = pd.concat(path_rows, ignore_index=True)

fig, axes = plt.subplots(1, len(datasets), figsize=(4.2 * len(datasets), 3.8), squeeze=False)
for ax, name in zip(axes[0], datasets):
    for d, part in paths[paths.dataset == name].groupby("n_hidden"):
        line, = ax.plot(part.alpha, part.test_accuracy, "o-", label=f"d={d}: test")
        ax.plot(part.alpha, part.loo_accuracy, "x--", color=line.get_color(), label=f"d={d}: exact LOO")
    ax.axvline(alpha, color="k", lw=0.8, ls=":")
    ax.set(xscale="log", xlabel="λ", ylabel="accuracy (%)", title=NAMES[name])
    ax.legend(fontsize=7)
fig.tight_layout()
plt.show()

# %%
choice_rows = []
for (name, d), part in paths.groupby(["dataset", "n_hidden"], sort=False):
    part = part.set_index("alpha")
    by_loo, by_gcv = part.loo_mse.idxmin(), part.gcv.idxmin()
    choice_rows.append({"dataset": NAMES[name], "d": d, "λ by exact LOO": by_loo, "λ by GCV": by_gcv,
                        "test at LOO's λ": part.loc[by_loo, "test_accuracy"],
                        "test at GCV's λ": part.loc[by_gcv, "test_accuracy"],
                        f"test at λ = {alpha:g} (paper)": part.loc[alpha, "test_accuracy"],
                        "best test over the grid": part.test_accuracy.max()})
choices = pd.DataFrame(choice_rows)
gain = (choices["test at LOO's λ"] - choices[f"test at λ = {alpha:g} (paper)"])
glue("lambda_gain", f"{gain.min():+.2f} to {gain.max():+.2f}")
choices.round(3)

# %% [markdown]
# Choosing λ by exact leave-one-out instead of fixing it changes test accuracy by
# {glue:text}`lambda_gain` points over these datasets and widths. (Both criteria use training data
# only; the test column is for judging them.)

# %% [markdown]
# ## The paper's claims in these sections, with verdicts
#
# Numeric claims use the book's verdict rule ({glue:text}`verdict_rule`). "Near-logarithmic" is judged
# by the share of variance a ln d line explains over the paper's range (R² ≥ 0.95 over the mean curve:
# holds); "keeps growing like ln d" by the widest doubling's gain against the line's prediction
# (≥ 0.75×: holds); the ordering claim by the sign of the computed quantity.

# %%
def r_squared(x, y):
    slope, intercept = np.polyfit(x, y, 1)
    residual = y - (slope * x + intercept)
    return 1 - residual.var() / y.var()


claims = []
for name in datasets:
    part = summary[summary.dataset == name].set_index("n_hidden")
    r2 = r_squared(np.log(in_range), part.loc[in_range, "mean"].to_numpy())
    claims.append({"claim": f"{NAMES[name]}: accuracy ∝ ln d over the paper's range",
                   "paper": "near-logarithmic", "ours": f"R² = {r2:.3f}", "verdict": "holds" if r2 >= 0.95 else "does not hold"})
for name in datasets:
    part = summary[summary.dataset == name].set_index("n_hidden")
    for d, acc in fig_points[fig_points.dataset == name][["n_hidden", "accuracy"]].itertuples(index=False):
        if int(d) in part.index:
            claims.append({"claim": f"{NAMES[name]} accuracy at d = {int(d)} (Fig. 'Performance scaling')",
                           "paper": f"{acc:.2f}", "ours": mean_sd(part.loc[int(d), "mean"], part.loc[int(d), "std"]),
                           "verdict": verdict(acc, part.loc[int(d), "mean"], part.loc[int(d), "std"])})
fit_all = calibrations["paper's range"]
for name in datasets:
    if name == anchor:
        continue
    c = fit_all.complexity[name]
    low = intervals["paper's range"][0].loc[f"C_{name}", "low"]
    claims.append({"claim": f"{NAMES[name]} is 'more complex' than MNIST (C > 1)", "paper": f"C = {paper.TABLE_III[f'C_{name}']}",
                   "ours": f"C = {c:.2f} (95 % CI low {low:.2f})", "verdict": "holds" if low > 1 else "does not hold"})
for name in datasets:
    ratio, line = ratio_last[NAMES[name]], gains.loc[NAMES[name], "ln-d line (paper's range)"]
    claims.append({"claim": f"{NAMES[name]}: gain keeps pace with ln d at {last_pair}",
                   "paper": "open question (future work)",
                   "ours": f"{ratio:.2f}× the ln-d line" if line > 0 else "no ln-d growth to keep pace with",
                   "verdict": ("holds" if ratio >= 0.75 else "does not hold (saturates)") if line > 0
                   else "does not hold (no growth)"})
claims_table = pd.DataFrame(claims)
claims_table

# %%
limit = {r["dataset"]: r["kernel accuracy (d = ∞)"] for r in kernel_rows}
widest_mean = summary[summary.n_hidden == max(widths)].set_index("dataset")["mean"]
glue("reading_limits", "; ".join(
    f"{NAMES[n]}: {widest_mean[n]:.2f} % at d = {max(widths)}, {limit[n]:.2f} % at d = ∞"
    + (f" (N = {r['n_train']})" if r["n_train"] != len(splits[n].y_train) else "")
    for n, r in ((r["dataset"], r) for r in kernel_rows)) or "not computed")
glue("reading_last_gain", "; ".join(f"{k} {v:+.2f}" for k, v in gains[last_pair].items()))
falling = [NAMES[n] for n in datasets
           if summary[(summary.dataset == n) & (summary.n_hidden == max(widths))]["mean"].iloc[0]
           < summary[summary.dataset == n]["mean"].max() - 1e-9]
glue("reading_falling", ", ".join(falling) if falling else "none")

# %% [markdown]
# **Reading the verdicts.** The law is a description of four points per dataset, not a mechanism:
# Table III is reproduced exactly from the paper's points, but the model it defines misses the
# non-anchor curves by several points, and subtracting β is a no-op. On the full datasets the gain
# per doubling shrinks as d grows (the widest doubling, {glue:text}`last_pair`, adds
# {glue:text}`reading_last_gain` points), and the exact d → ∞ model at the paper's λ sits where the
# curves are heading: {glue:text}`reading_limits`. Datasets whose widest model is *worse* than a
# narrower one: {glue:text}`reading_falling` — there the least-regularised fits of the sweep (λ = 10⁻³
# is negligible against $H^\top H$ as d approaches N) lose accuracy before the infinite-width limit
# recovers it, so the curve is not monotone in d and neither ln d nor a saturating law describes it.
# Widening buys a diminishing, bounded amount at a cost that grows as $Nd^2$, rather than "a
# predictable path to parity" with trained networks.
