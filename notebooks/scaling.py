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
# This chapter (1) runs Algorithm 2 exactly as published on the paper's points and, seed by seed,
# on ours; (2) tests ln d the only way four points allow — fit on the paper's widths, predict
# wider ones that were held out, against a saturating law; (3) computes the d → ∞ limit exactly
# (the arc-cosine kernel {cite}`cho2009kernel`); and (4) asks whether the paper's fixed λ = 10⁻³ is
# a good choice, choosing λ by exact leave-one-out at every width. Every verdict follows the book's
# rule (see the introduction); the scorecard chapter lists them.
#
# **Setting.** Green-ELM as in the paper's code: $W \sim \mathcal{N}(0, 1)$, $b \sim \mathcal{N}(0, 1)$,
# ReLU, ridge readout by Cholesky with λ = 10⁻³, pixels scaled to [0, 1], CIFAR-10 as raw pixels
# (3072-d). MNIST and Fashion-MNIST at the paper's widths are the random-features chapter's
# results (independent draws, five seeds). Everything else here uses **nested widths**: per seed
# one projection of the largest width, its $H^\top H$ accumulated once, and the model of width d
# uses the first d hidden units (the leading d × d block) — the first d columns of a Gaussian W
# are themselves a width-d draw, so each width is an honest Green-ELM.

# %% tags=["parameters"]
profile = "smoke"
seed = 0
datasets = ["mnist", "fashion-mnist", "cifar10"]
subset = 2000  # first `subset` train and test samples of each dataset (None: all)
paper_widths = [500, 1000]  # the paper's widths (MNIST, Fashion-MNIST: read from random_features)
held_out_widths = [1200, 1500]  # wider than the paper's: the held-out test of ln d
seeds = 2  # CIFAR-10 seeds at the paper's widths (random_features' count for the others)
held_out_seeds = 1  # seeds of the widest model (held-out widths and λ paths)
alpha = 1e-3
lambdas = [1e-3, 1e-1, 10, 1e3, 1e5]  # first λ grid (extended by 10× until LOO's choice is interior)
lambda_local_above = 1000  # wider: start from the previous width's choice × {0.1, 1, 10}
loo_rows = 500  # training rows on which the exact leave-one-out residuals are evaluated
condition_widths = [500, 1000]
kernel_datasets = ["cifar10"]
kernel_subset = 1000  # training samples for the arc-cosine kernel limit (None: all)
kernel_jitter = {"mnist": 1.0e-6, "fashion-mnist": 1.0e-6, "cifar10": 1.0e-6}  # first try, per dataset
kernel_check_widths = [100, 1000, 10000]

# %% tags=["remove-cell"]
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from greenelm.features import RandomReLUFeatures
from greenelm.kernels import arccos_kernel
from greenelm_book import paper
from greenelm_book.experiments import load_split
from greenelm_book.frontier import kernel_limit
from greenelm_book.report import (Verdict, by_sign, colour, glue, judge_qualitative, judge_value, not_comparable,
                                  set_style, show_table)
from greenelm_book.results import ChapterResults
from greenelm_book.results_cache import memoize
from greenelm_book.scaling import (calibrate_complexity, calibrate_per_seed, fit_hypothesis, held_out_test,
                                   model_residuals, spectral_entropy, wide_ridge_paths)

store = ChapterResults("scaling", profile)
set_style()
paper_widths, held_out_widths = sorted(paper_widths), sorted(held_out_widths)
all_widths = paper_widths + held_out_widths
d_max = max(all_widths)
seed_list = list(range(seed, seed + seeds))
held_seed_list = list(range(seed, seed + held_out_seeds))
splits = {name: load_split(name, subset=subset) for name in datasets}
NAMES = {"mnist": "MNIST", "fashion-mnist": "Fashion-MNIST", "cifar10": "CIFAR-10 (raw pixels)"}
SHORT = {"mnist": "MNIST", "fashion-mnist": "Fashion", "cifar10": "CIFAR-10 raw"}
MODULES = ("scaling", "greenelm.features", "greenelm.solvers", "greenelm.data")
BASE = dict(model="Green-ELM", weight_scale="unit", bias="normal")


def sizes(name):
    return dict(dataset=name, n_train=len(splits[name].y_train), n_test=len(splits[name].y_test))


def elm_key(name, d, quantity="accuracy", solver="cholesky"):
    return f"{name}/green-elm/unit/{solver}/d={d}/{quantity}"


def unmeasured(what):
    """The answer for a claim whose widths this profile does not run (the smoke profile)."""
    return Verdict("inconclusive", "", f"{what} not measured in the {profile} profile")


# %% [markdown]
# ## Algorithm 2 on the paper's own points
#
# Algorithm 2 fits $A = \alpha \ln d + \beta$ to MNIST by ordinary least squares, then for each other
# dataset the OLS slope $m$ of $A - \beta$ against $\ln d$, and sets $\mathcal{C} = \alpha / m$.
# `greenelm_book.scaling.calibrate_complexity` implements exactly that; on the twelve points of the
# paper's figure it returns Table III to the printed four decimals:

# %%
fig_points = paper.FIG_SCALING
paper_curves = {name: fig_points[fig_points.dataset == name].sort_values("n_hidden").accuracy.to_numpy() / 100
                for name in ("mnist", "fashion-mnist", "cifar10")}
fig_widths = sorted(int(w) for w in fig_points.n_hidden.unique())
paper_fit = calibrate_complexity(fig_widths, paper_curves)
PARAM_NAMES = {"alpha": "α", "beta": "β", "C_mnist": "C (MNIST)", "C_fashion-mnist": "C (Fashion-MNIST)",
               "C_cifar10": "C (CIFAR-10)"}
table3 = pd.DataFrame({"parameter": [PARAM_NAMES[k] for k in paper.TABLE_III],
                       "Table III": list(paper.TABLE_III.values()),
                       "Algorithm 2 on the figure's points": [paper_fit.as_series()[k] for k in paper.TABLE_III]})
table3_matches = bool(np.allclose(table3.iloc[:, 1].round(4), table3.iloc[:, 2].round(4)))
show_table(table3, digits=4)

# %%
# NBVAL_CHECK_OUTPUT
print("Table III reproduced from the figure's points:", table3_matches)

# %% [markdown]
# Two properties of the fit bound what Table III can mean. **Subtracting β changes nothing**: the
# OLS slope of $A - \beta$ equals the slope of $A$, so $\mathcal{C}$ is simply the ratio of MNIST's
# slope to the dataset's. **The calibrated model does not describe the other curves**: with the
# global β, $\alpha \ln d / \mathcal{C} + \beta$ misses Fashion-MNIST's and CIFAR-10's points by up
# to {glue:text}`paper_model_worst` points — $\mathcal{C}$ describes a ratio of slopes, not the
# curves. And the figure's "CIFAR-10" curve (64.9–68.3 %) cannot be Green-ELM on raw pixels: the
# paper's own Table VI gives 51 % at d = 2000, and Table II 87.5 % on ResNet-18 features. Its points
# and $\mathcal{C}_{cifar}$ are therefore compared with ours as *not comparable*; the backbone-feature
# curve is measured in the CIFAR-10 chapter.

# %% tags=["remove-cell"]
residuals = model_residuals(paper_fit, fig_widths, paper_curves)
paper_model_worst = 100 * residuals[residuals.dataset != "mnist"].residual.abs().max()
glue("paper_model_worst", f"{paper_model_worst:.1f}")

# %% [markdown]
# ## The curves over seeds, and beyond d = 4000
#
# At the paper's widths, MNIST and Fashion-MNIST come from the random-features chapter (one
# independent draw per width and seed); CIFAR-10 raw pixels are measured here, one width-
# {glue:text}`paper_dmax` model per seed whose leading blocks give every narrower width. Beyond the
# paper's range, one width-{glue:text}`d_max` model per dataset ({glue:text}`n_held_seeds` seed(s):
# these widths are the held-out test, not judged against the paper) gives d =
# {glue:text}`held_widths_text`. Results are cached on disk keyed by the parameters and the code.

# %% tags=["remove-cell"]
glue("paper_dmax", f"{max(paper_widths):,}".replace(",", "\u2009"))
glue("d_max", f"{d_max:,}".replace(",", "\u2009"))
glue("n_held_seeds", str(held_out_seeds))
glue("held_widths_text", " and ".join(f"{d:,}".replace(",", "\u2009") for d in held_out_widths))


def wide(name, s, dmax, widths, search):
    params = {"dataset": name, "subset": subset, "d_max": dmax, "seed": s, "widths": widths, "alpha": alpha,
              "lambdas": lambdas if search else None, "loo_rows": loo_rows,
              "local_above": lambda_local_above, "condition_widths": condition_widths if search else []}
    result, info = memoize("scaling-wide", params, lambda: wide_ridge_paths(
        name, subset, dmax, s, widths, alpha, lambdas=params["lambdas"], loo_rows=loo_rows,
        local_above=lambda_local_above, condition_widths=params["condition_widths"]), modules=MODULES)
    return result


# CIFAR-10 raw pixels at the paper's widths: one width-max(paper_widths) model per seed
cifar_runs = [wide("cifar10", s, max(paper_widths), paper_widths, search=False) for s in seed_list]
# every dataset: the widest model (held-out widths, λ paths, conditioning)
widest = {name: [wide(name, s, d_max, all_widths, search=True) for s in held_seed_list] for name in datasets}

design_paper = f"first d units of one width-{max(paper_widths)} draw per seed"
design_wide = f"first d units of one width-{d_max} draw per seed"
acc = {}     # (dataset, width) -> Result at λ = alpha
for name in ("mnist", "fashion-mnist"):
    for d in paper_widths:
        acc[name, d] = store.get("random_features", elm_key(name, d))
for i, d in enumerate(paper_widths):
    # nested in one width-max(paper_widths) draw per seed: not the CIFAR-10 chapter's own width-d models
    values = [100 * run["hits"][i].mean() for run in cifar_runs]
    nested_key = f"cifar10/green-elm/unit/cholesky/nested-in-d={max(paper_widths)}/d={d}/accuracy"
    acc["cifar10", d] = store.record(nested_key, values, "%", **sizes("cifar10"), **BASE,
                                     solver="cholesky", alpha=alpha, n_hidden=d, seeds=seed_list,
                                     design=design_paper)
for name in datasets:
    for i, d in enumerate(all_widths):
        if d in held_out_widths:
            values = [100 * run["hits"][i].mean() for run in widest[name]]
            acc[name, d] = store.record(elm_key(name, d), values, "%", **sizes(name), **BASE, solver="cholesky",
                                        alpha=alpha, n_hidden=d, seeds=held_seed_list, design=design_wide)
curve = pd.DataFrame([{"dataset": n, "d": d, "mean": r.mean, "sd": r.sd, "n": r.n} for (n, d), r in acc.items()])

# %%
table = curve.pivot(index="d", columns="dataset", values="mean").reindex(columns=datasets)
table = table.rename(columns={n: f"{SHORT[n]} (%)" for n in datasets}).reset_index()
show_table(table, digits=2, integers=["d"])

# %% [markdown]
# Mean test accuracy at λ = 10⁻³ (five seeds at the paper's widths in the full profile, the
# held-out seeds beyond). The figure: our curves (filled), the paper's points (open squares,
# dashed), the paper's SGD/CNN baselines (dotted). The paper's "CIFAR-10" curve is not raw pixels
# (see above); it is drawn for reference only.

# %%
fig, ax = plt.subplots(figsize=(7.5, 4.6))
for name in datasets:
    part = curve[curve.dataset == name].sort_values("d")
    c = colour(name)
    ax.errorbar(part.d, part["mean"], yerr=part["sd"].fillna(0), fmt="o-", color=c, capsize=3,
                label=f"{NAMES[name]}, ours")
    paper_part = fig_points[fig_points.dataset == name]
    ax.plot(paper_part.n_hidden, paper_part.accuracy, "s--", color=c, alpha=0.5, mfc="none",
            label=f"{NAMES[name].split(' (')[0]}, paper's figure" + (" (not raw pixels)" if name == "cifar10" else ""))
    ax.axhline(paper.FIG_SCALING_BASELINES[name], color=c, ls=":", lw=1)
ax.axvspan(max(paper_widths) * 1.15, d_max * 1.3, color="0.92", zorder=0, lw=0)
ax.text(max(paper_widths) * 1.25, 0.5, "held out", transform=ax.get_xaxis_transform(), color="0.4", fontsize=9)
ax.set(xscale="log", xlabel="hidden width d", ylabel="test accuracy (%)",
       title="accuracy against width (dotted: the paper's SGD/CNN baselines)")
ticks = sorted(set(all_widths) | set(fig_widths))
ax.set_xticks(ticks, [f"{d:,}".replace(",", "\u2009") for d in ticks], minor=False)
ax.set_xticks([], minor=True)
ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
plt.show()

# %% [markdown]
# ### The figure's points, judged
#
# MNIST and Fashion-MNIST are the paper's setting; CIFAR-10 is not (raw pixels against a curve
# that is not raw pixels), so its rows are information only.

# %% tags=["remove-cell"]
CLAIM_DS = {"mnist": "mnist", "fashion-mnist": "fashion", "cifar10": "cifar10"}
NOT_RAW = ("the figure's CIFAR-10 curve (64.9–68.3 %) cannot be raw pixels: the paper's Table VI gives 51 % "
           "at d = 2000; ours is Green-ELM on raw pixels")
point_rows = []
for row in fig_points.itertuples():
    d, name = int(row.n_hidden), row.dataset
    if (name, d) not in acc:
        store.answer(f"fig_scaling_{CLAIM_DS[name]}_d{d}_accuracy", unmeasured(f"d = {d}"))
        continue
    result = acc[name, d]
    verdict = (not_comparable(NOT_RAW, row.accuracy, result.values) if name == "cifar10"
               else judge_value(row.accuracy, result.values))
    store.answer(f"fig_scaling_{CLAIM_DS[name]}_d{d}_accuracy", verdict, keys=[result.key],
                 note="" if name == "cifar10" else "Green-ELM, W ~ N(0, 1), Cholesky, λ = 1e-3, full data")
    point_rows.append({"dataset": SHORT[name], "d": d, "paper (%)": row.accuracy, "ours (%)": result.mean,
                       "verdict": verdict.label})

# %%
show_table(pd.DataFrame(point_rows), digits=2, integers=["d"])

# %% [markdown]
# ### The steepest gain and the modest one
#
# The paper's text: "the steepest accuracy gain occurs between d = 500 and d = 2000 (+7.95 %)" and
# doubling to 4000 adds "a more modest improvement of 0.95 %" (MNIST; its figure's points). Ours,
# seed by seed, are {glue:text}`gain_early` and {glue:text}`gain_late` points.

# %% tags=["remove-cell"]
gain_claims = (("gain_d500_to_d2000", 500, 2000, 7.95, "gain_early"), ("gain_d2000_to_d4000", 2000, 4000, 0.95, "gain_late"))
for claim, a, b, paper_gain, label in gain_claims:
    if ("mnist", a) in acc and ("mnist", b) in acc:
        values = np.subtract(acc["mnist", b].values, acc["mnist", a].values)
        result = store.record(f"mnist/green-elm/unit/cholesky/gain-{a}-to-{b}", values, "points", **sizes("mnist"),
                              **BASE, solver="cholesky", alpha=alpha, widths=[a, b], quantity="accuracy gain",
                              seeds=len(values))
        store.answer(claim, judge_value(paper_gain, values, "points"), keys=[result.key, acc["mnist", a].key,
                                                                             acc["mnist", b].key])
        glue(label, f"{result.mean:+.2f} ± {result.sd:.2f}" if result.n > 1 else f"{result.mean:+.2f}")
    else:
        store.answer(claim, unmeasured(f"d = {a} and {b}"))
        glue(label, f"not measured (widths {a}, {b} not in this profile)")

# %% [markdown]
# ## Is it ln d? The held-out test
#
# Four points cannot tell ln d from any concave saturating curve (R² over them is no test). So we
# fit two laws on the paper's widths only — the line $A = m \ln d + k$ and the saturating
# $A = a - b\,d^{-c}$ (three parameters, $a$ its asymptote) — and predict the held-out wider
# widths. **Test**: ln d holds for a dataset when its mean absolute held-out error is no larger
# than the saturating law's.

# %% tags=["remove-cell"]
held_rows, held_tests = [], {}
for name in datasets:
    fit_acc = [acc[name, d].mean for d in paper_widths]
    test = held_out_test(paper_widths, fit_acc, held_out_widths, [acc[name, d].mean for d in held_out_widths])
    held_tests[name] = test
    setting = dict(**sizes(name), **BASE, solver="cholesky", alpha=alpha, fit_widths=paper_widths,
                   held_out_widths=held_out_widths)
    keys = [acc[name, d].key for d in all_widths]
    store.record(f"{name}/green-elm/unit/cholesky/ln-d-fit/held-out-error", [test.log_error], "points",
                 law="m ln d + k", **setting)
    store.record(f"{name}/green-elm/unit/cholesky/saturating-fit/held-out-error", [test.saturating_error], "points",
                 law="a - b d^-c", **setting)
    store.record(f"{name}/green-elm/unit/cholesky/saturating-fit/asymptote", [test.saturating_params[0]], "%",
                 law="a - b d^-c", **setting)
    for d, measured, lp, sp in zip(held_out_widths, test.measured, test.log_prediction, test.saturating_prediction):
        held_rows.append({"dataset": SHORT[name], "d": d, "measured (%)": measured, "ln d predicts (%)": lp,
                          "saturating predicts (%)": sp})
log_wins = {n: t.log_error <= t.saturating_error for n, t in held_tests.items()}
errors_text = "; ".join(f"{SHORT[n]} {t.log_error:.2f} against {t.saturating_error:.2f}" for n, t in held_tests.items())
glue("held_errors", errors_text)
n_log = sum(log_wins.values())
glue("held_verdict_text", by_sign(n_log - len(datasets) / 2, "ln d predicts at least as well as the saturating law on most datasets",
                                  "the saturating law predicts better than ln d on most datasets"))
outcome = True if n_log == len(datasets) else (False if n_log == 0 else "partly")
_ = store.answer("accuracy_near_logarithmic_in_d", judge_qualitative(
    outcome, test=f"fit ln d and a − b·d^(−c) on d = {paper_widths}, predict d = {held_out_widths}; ln d holds "
                  f"where its mean absolute held-out error is no larger",
    ours=f"ln d no worse on {n_log} of {len(datasets)} datasets (errors, points: {errors_text})"),
    keys=[f"{n}/green-elm/unit/cholesky/{law}-fit/held-out-error" for n in datasets for law in ("ln-d", "saturating")])

# %%
show_table(pd.DataFrame(held_rows), digits=2, integers=["d"])

# %% [markdown]
# Mean absolute held-out error (points), ln d against the saturating law:
# {glue:text}`held_errors`. In words: {glue:text}`held_verdict_text`.
#
# ### Diminishing returns
#
# The paper also says the gain per doubling shrinks ("a law of diminishing returns"), which is the
# opposite of ln d (constant gain per doubling). Gain of each doubling of d (mean curves):

# %% tags=["remove-cell"]
doubling_rows, shrinking = [], {}
for name in datasets:
    means = curve[curve.dataset == name].set_index("d")["mean"]
    pairs = [(a, b) for a, b in zip(all_widths[:-1], all_widths[1:])]
    gains = [means[b] - means[a] for a, b in pairs]
    shrinking[name] = all(g2 < g1 for g1, g2 in zip(gains[:-1], gains[1:]))
    for (a, b), g in zip(pairs, gains):
        doubling_rows.append({"dataset": SHORT[name], "from d": a, "to d": b, "gain (points)": g})
n_shrink = sum(shrinking.values())
_ = store.answer("diminishing_returns", judge_qualitative(
    True if n_shrink == len(datasets) else (False if n_shrink == 0 else "partly"),
    test=f"the gain of each successive widening over d = {all_widths} shrinks, on every dataset",
    ours=f"shrinks throughout on {n_shrink} of {len(datasets)} datasets"),
    keys=[acc[n, d].key for n in datasets for d in all_widths])

# %%
doublings = pd.DataFrame(doubling_rows).pivot(index=["from d", "to d"], columns="dataset",
                                              values="gain (points)").reset_index()
doublings = doublings[["from d", "to d"] + [SHORT[n] for n in datasets]]
show_table(doublings.rename(columns={SHORT[n]: f"{SHORT[n]} (pts)" for n in datasets}), digits=2,
           integers=["from d", "to d"])

# %% [markdown]
# ## Algorithm 2 on our curves, seed by seed
#
# The paper's Table III is Algorithm 2 applied to *one* run per dataset. Applied to each of our
# seeds (seed i of every dataset calibrated together), it gives one value per seed, so the
# book's rule judges α, β and $\mathcal{C}_f$ like any single-run number; $\mathcal{C}_{cifar}$ is
# not comparable (raw pixels against a curve that is not). Anchor MNIST, widths
# {glue:text}`paper_widths_text`.

# %% tags=["remove-cell"]
glue("paper_widths_text", ", ".join(str(d) for d in paper_widths))
n_common = min(acc[n, d].n for n in datasets for d in paper_widths)
seed_curves = {n: np.array([[acc[n, d].values[i] / 100 for d in paper_widths] for i in range(n_common)])
               for n in datasets}
per_seed = calibrate_per_seed(paper_widths, seed_curves, anchor=paper.SCALING["anchor"])
calib_setting = dict(model="Green-ELM", weight_scale="unit", solver="cholesky", alpha=alpha, widths=paper_widths,
                     seeds=n_common, procedure="Algorithm 2 per seed, anchor MNIST")
calib = {
    "alpha": store.record("mnist/green-elm/unit/cholesky/algorithm2/alpha", per_seed["alpha"], "fraction per ln d",
                          dataset="mnist", parameter="alpha", **calib_setting),
    "beta": store.record("mnist/green-elm/unit/cholesky/algorithm2/beta", per_seed["beta"], "fraction",
                         dataset="mnist", parameter="beta", **calib_setting),
    "C_fashion-mnist": store.record("fashion-mnist/green-elm/unit/cholesky/algorithm2/complexity",
                                    per_seed["C_fashion-mnist"], "", dataset="fashion-mnist", parameter="C",
                                    **calib_setting),
    "C_cifar10": store.record("cifar10/green-elm/unit/cholesky/algorithm2/complexity", per_seed["C_cifar10"], "",
                              dataset="cifar10", parameter="C", **calib_setting),
}
slopes = {n: store.record(f"{n}/green-elm/unit/cholesky/algorithm2/slope", 100 * per_seed[f"slope_{n}"],
                          "points per ln d", dataset=n, parameter="slope", **calib_setting) for n in datasets}
keys_all = [r.key for r in calib.values()]
_ = store.answer("table3_alpha", judge_value(paper.TABLE_III["alpha"], calib["alpha"].values, "", digits=4),
             keys=[calib["alpha"].key])
_ = store.answer("table3_beta", judge_value(paper.TABLE_III["beta"], calib["beta"].values, "", digits=4),
             keys=[calib["beta"].key])
_ = store.answer("table3_c_mnist", judge_qualitative(True, test="the anchor's C is 1 by Algorithm 2's definition",
                                                 ours="C (MNIST) = 1 by construction"), keys=[calib["alpha"].key])
_ = store.answer("table3_c_fashion", judge_value(paper.TABLE_III["C_fashion-mnist"], calib["C_fashion-mnist"].values,
                                             "", digits=4), keys=[calib["C_fashion-mnist"].key])
_ = store.answer("table3_c_cifar10", not_comparable(
    "the paper's C_cifar comes from its CIFAR-10 curve, which is not raw pixels; ours is raw pixels (the "
    "backbone-feature curve is in the CIFAR-10 chapter)", paper.TABLE_III["C_cifar10"], calib["C_cifar10"].values,
    "", digits=4), keys=[calib["C_cifar10"].key])
_ = store.answer("algorithm2_gives_table3", judge_qualitative(
    table3_matches, test="Algorithm 2 as published, run on the figure's twelve points, against Table III to 4 decimals",
    ours="all five parameters match" if table3_matches else "a parameter differs"))
table3_rows = []
for key, result in calib.items():
    verdict = store.answers[{"alpha": "table3_alpha", "beta": "table3_beta", "C_fashion-mnist": "table3_c_fashion",
                             "C_cifar10": "table3_c_cifar10"}[key]].verdict
    table3_rows.append({"parameter": PARAM_NAMES[key], "Table III": paper.TABLE_III[key], "ours (mean)": result.mean,
                        "sd over seeds": result.sd if result.n > 1 else np.nan, "verdict": verdict.label})

# %%
show_table(pd.DataFrame(table3_rows), digits=4)

# %% [markdown]
# The calibrated model on our curves misses the non-anchor datasets by up to
# {glue:text}`our_model_worst` points (the paper's own points: {glue:text}`paper_model_worst`).
# Per-seed slopes (points of accuracy per unit ln d): {glue:text}`slopes_text`. The paper's story
# needs MNIST's slope to be the steepest ("for MNIST α is high; for the others C > 1 dampens the
# curves").

# %% tags=["remove-cell"]
mean_curves = {n: seed_curves[n].mean(axis=0) for n in datasets}
our_fit = calibrate_complexity(paper_widths, mean_curves)
our_res = model_residuals(our_fit, paper_widths, mean_curves)
our_model_worst = 100 * our_res[our_res.dataset != "mnist"].residual.abs().max()
glue("our_model_worst", f"{our_model_worst:.1f}")
glue("slopes_text", "; ".join(f"{SHORT[n]} {r.mean:.2f} ± {r.sd:.2f}" if r.n > 1 else f"{SHORT[n]} {r.mean:.2f}"
                              for n, r in slopes.items()))
_ = store.answer("scaling_model_complexity_index", judge_qualitative(
    bool(max(our_model_worst, paper_model_worst) <= 1.0),
    test="the calibrated α ln d / C + β (global β) must pass within 1 point of every non-anchor point",
    ours=f"misses by up to {our_model_worst:.1f} points on our curves, {paper_model_worst:.1f} on the paper's"),
    keys=keys_all)
rising_slopes = all(r.mean > 0 for r in slopes.values())
steeper = [n for n in datasets if n != "mnist" and slopes["mnist"].mean > slopes[n].mean] if rising_slopes else []
_ = store.answer("mnist_alpha_high_others_dampened", judge_qualitative(
    True if len(steeper) == 2 else (False if not steeper else "partly"),
    test="every slope is positive and MNIST's mean per-seed slope exceeds each other dataset's (C > 1 means a "
         "flatter curve)",
    ours=f"C (Fashion-MNIST) = {calib['C_fashion-mnist'].mean:.2f}, C (CIFAR-10 raw) = {calib['C_cifar10'].mean:.2f}; "
         f"MNIST steeper than {len(steeper)} of 2"), keys=[s.key for s in slopes.values()])
_ = store.answer("slope_inverse_to_complexity", judge_qualitative(
    True if len(steeper) == 2 else (False if not steeper else "partly"),
    test="C is defined as α/m, so slope ∝ 1/C is an identity; the content is whether the datasets the paper calls "
         "complex (Fashion-MNIST, CIFAR-10) have flatter slopes than MNIST",
    ours=f"flatter than MNIST: {', '.join(SHORT[n] for n in steeper) or 'neither'}"),
    keys=[s.key for s in slopes.values()])
gap = slopes["mnist"].mean - slopes["cifar10"].mean
_ = store.answer("scaling_slopes_diverge", judge_qualitative(
    bool(rising_slopes and gap > 0),
    test="every slope is positive and MNIST's per-unit-ln-d slope exceeds CIFAR-10's (raw pixels; the backbone "
         "curve is in the CIFAR-10 chapter)",
    ours=f"MNIST − CIFAR-10 slope = {gap:+.2f} points per ln d"), keys=[slopes["mnist"].key, slopes["cifar10"].key])

# %% [markdown]
# ### The hypothesis with γ fitted
#
# The hypothesis needs an entropy $\mathcal{H}$ per dataset that the paper never defines. We take a
# stated, measurable choice: the **spectral entropy** (bits) of each training set's pixel covariance,
# $\mathcal{H} = -\sum_i p_i \log_2 p_i$ with $p_i$ the normalised eigenvalues. Per dataset
# $A = m \ln d + \epsilon$, across datasets $\ln m = \ln \Psi - \gamma \ln \mathcal{H}$, seed by seed.
# **Test**: the hypothesis orders the slopes by complexity when γ > 0 on every seed (with three
# datasets, two parameters leave one degree of freedom, so this is all four points per curve can
# say). γ per seed: {glue:text}`gamma_text`.

# %% tags=["remove-cell"]
entropies = {name: spectral_entropy(split.X_train) for name, split in splits.items()}
gammas, psis = [], []
for i in range(n_common):
    try:
        hyp = fit_hypothesis(paper_widths, {n: seed_curves[n][i] for n in datasets}, entropies)
        gammas.append(hyp.gamma)
        psis.append(hyp.psi)
    except ValueError:            # a slope <= 0 has no logarithm
        pass
hyp_ok = bool(gammas) and len(gammas) == n_common and all(g > 0 for g in gammas)
if gammas:
    gamma_result = store.record("all/green-elm/unit/cholesky/hypothesis/gamma", gammas, "exponent",
                                datasets=datasets, entropy="spectral entropy of the pixel covariance (bits)",
                                entropies={n: round(h, 6) for n, h in entropies.items()}, **calib_setting)
    glue("gamma_text", ", ".join(f"{g:.2f}" for g in gammas))
    hyp_keys = [gamma_result.key]
else:
    glue("gamma_text", "not fitted (a slope ≤ 0)")
    hyp_keys = []
_ = store.answer("scaling_hypothesis_gamma", judge_qualitative(
    hyp_ok, test="fit Ψ, γ per seed with H = spectral entropy of the pixels; holds if γ > 0 on every seed",
    ours=f"γ per seed: {', '.join(f'{g:.2f}' for g in gammas) or 'not fitted'}"), keys=hyp_keys)
_ = store.answer("abstract_scaling_hypothesis", judge_qualitative(
    True if (hyp_ok and outcome is True) else (False if (not hyp_ok and outcome is False) else "partly"),
    test="the hypothesis must both order the datasets' slopes by an entropy (γ > 0 on every seed) and predict "
         "the held-out wider widths as ln d (the held-out test above)",
    ours=f"γ > 0 on every seed: {'yes' if hyp_ok else 'no'}; ln d on held-out widths: "
         f"{ {True: 'holds', False: 'does not hold', 'partly': 'partly'}[outcome]}"),
    keys=hyp_keys + [f"{n}/green-elm/unit/cholesky/ln-d-fit/held-out-error" for n in datasets])
hyp_table = pd.DataFrame({"dataset": [SHORT[n] for n in datasets],
                          "entropy H (bits)": [entropies[n] for n in datasets],
                          "slope m (pts per ln d)": [slopes[n].mean for n in datasets]})

# %%
show_table(hyp_table, digits=3)

# %% [markdown]
# ## The infinite-width limit: the arc-cosine kernel
#
# With Gaussian $W$ and $b$, the features' inner products converge as d → ∞: $H H^\top / d \to K$,
# the degree-1 arc-cosine kernel {cite}`cho2009kernel` on inputs augmented with the bias,
# $\tilde x = [x, 1]$:
#
# $$K(x, z) = \frac{\lVert\tilde x\rVert\,\lVert\tilde z\rVert}{2\pi}\bigl(\sin\theta + (\pi - \theta)\cos\theta\bigr),
# \qquad \cos\theta = \frac{\tilde x^\top \tilde z}{\lVert\tilde x\rVert\,\lVert\tilde z\rVert}.$$
#
# The width-d ridge readout equals $\hat K_t(\hat K + \tfrac{\lambda}{d} I)^{-1} Y$ with
# $\hat K = HH^\top/d$: at fixed λ the effective ridge λ/d vanishes, so an infinitely wide Green-ELM
# is kernel interpolation with $K$. The convergence on a few test images (the error falls like
# $1/\sqrt d$):

# %%
probe = splits[datasets[0]].X_test[:200]
K_probe = arccos_kernel(probe)
check_rows = []
for d in kernel_check_widths:
    H = RandomReLUFeatures(probe.shape[1], d, seed=seed).transform(probe)
    check_rows.append({"d": d, "max |HHᵀ/d − K| / max K": float(np.abs(H @ H.T / d - K_probe).max() / K_probe.max())})
show_table(pd.DataFrame(check_rows), digits=4, integers=["d"])

# %% [markdown]
# The limit's accuracy: kernel ridge with the arc-cosine kernel on the training set, solved by an
# in-place blocked Cholesky of the N × N kernel in float32 (`greenelm.kernels.kernel_ridge_predict`)
# with a small ridge μ = jitter × mean diag K standing in for λ/d → 0 (a failed float32
# factorisation is retried with ten times the jitter). Computed for
# {glue:text}`kernel_names` (its cost grows as N³: minutes per dataset at full size).

# %% tags=["remove-cell"]
glue("kernel_names", ", ".join(NAMES[n] for n in kernel_datasets) or "no dataset")
kernel = {}
for name in kernel_datasets:
    split = splits[name]
    n_train = len(split.y_train) if kernel_subset is None else min(kernel_subset, len(split.y_train))
    try:
        limit = kernel_limit(name, subset, kernel_jitter[name], n_train=n_train)
    except np.linalg.LinAlgError:     # no factorisation up to 100x the first jitter: no limit shown
        continue
    kernel[name] = store.record(f"{name}/arccos-kernel/accuracy", [limit["accuracy"]], "%", dataset=name,
                                n_train=n_train, n_test=len(split.y_test), model="arc-cosine kernel ridge (d = ∞)",
                                jitter=limit["jitter"], mu=limit["mu"], dtype="float32")
kernel_rows = [{"dataset": SHORT[n], "N train": r.setting["n_train"], "d = ∞ (%)": r.mean,
                f"d = {d_max} (%)": acc[n, d_max].mean, "saturating law's a (%)": held_tests[n].saturating_params[0],
                "jitter": f"{r.setting['jitter']:g}"} for n, r in kernel.items()]

# %%
show_table(pd.DataFrame(kernel_rows), digits=2, integers=["N train"])

# %% [markdown]
# ## Choosing λ by exact leave-one-out, at every width
#
# The first edition's grid (10⁻⁴ … 10³) let leave-one-out and GCV pick its top value in every case:
# the grid, not the data, set λ. Here λ is searched until leave-one-out's choice is **interior**:
# a first grid {glue:text}`lambda_grid` (wider models: the previous width's choice × {0.1, 1, 10}),
# extended tenfold past whichever end holds the minimum. For each λ, $G + \lambda I$ is factorised by
# Cholesky, and the **exact** leave-one-out residual $e_j/(1-h_j)$, with leverage
# $h_j = h_j^\top (G + \lambda I)^{-1} h_j$, is evaluated on {glue:text}`loo_rows` training rows drawn
# at random (exact for each of them; the rows are a sample of the N, to keep d = {glue:text}`d_max`
# affordable). The criterion is the LOO mean squared error; test accuracy is only for judging it.

# %% tags=["remove-cell"]
glue("lambda_grid", "{" + ", ".join(f"{a:g}" for a in lambdas) + "}")
glue("loo_rows", f"{widest[datasets[0]][0]['loo_rows']:,}".replace(",", "\u2009"))
choice_rows, path_frames, all_interior = [], [], True
for name in datasets:
    run = widest[name][0]
    paths = run["paths"]
    all_interior &= bool(np.all(run["interior"]))
    path_frames.append(paths.assign(dataset=name))
    for d in all_widths:
        searched = paths[(paths.n_hidden == d) & paths.searched]
        paper_row = paths[(paths.n_hidden == d) & ~paths.searched].iloc[0]
        best = searched.loc[searched.loo_mse.idxmin()]
        setting = dict(**sizes(name), **BASE, solver="cholesky", n_hidden=d, seeds=held_seed_list, design=design_wide,
                       criterion="exact LOO MSE", loo_rows=int(run["loo_rows"]),
                       lambdas_tried=[float(a) for a in sorted(searched.alpha)])
        lam = store.record(f"{name}/green-elm/unit/ridge-loo/d={d}/lambda", [best.alpha], "", quantity="λ", **setting)
        at = store.record(f"{name}/green-elm/unit/ridge-loo/d={d}/accuracy", [best.test_accuracy], "%",
                          quantity="test accuracy at LOO's λ", **setting)
        choice_rows.append({"dataset": SHORT[name], "d": d, "LOO's λ": f"{best.alpha:.0e}",
                            "test at LOO's λ (%)": best.test_accuracy,
                            "test at λ = 1e-3 (%)": paper_row.test_accuracy,
                            "gain (pts)": best.test_accuracy - paper_row.test_accuracy})
choices = pd.DataFrame(choice_rows)
paths_all = pd.concat(path_frames, ignore_index=True)

# %%
show_table(choices, digits=2, integers=["d"])

# %%
fig, axes = plt.subplots(1, 2, figsize=(9.5, 3.8))
for name in datasets:
    part = choices[choices.dataset == SHORT[name]]
    axes[0].plot(part.d, [float(v) for v in part["LOO's λ"]], "o-", color=colour(name), label=SHORT[name])
    axes[1].plot(part.d, part["gain (pts)"], "o-", color=colour(name), label=SHORT[name])
axes[0].set(xscale="log", yscale="log", xlabel="hidden width d", ylabel="λ chosen by exact LOO")
axes[0].axhline(alpha, color="0.3", ls=":", lw=1)
axes[0].text(min(all_widths), alpha * 2, "paper's λ", fontsize=8, color="0.3")
axes[1].axhline(0, color="0.3", lw=0.8)
axes[1].set(xscale="log", xlabel="hidden width d", ylabel="test gain over λ = 1e-3 (points)")
for ax in axes:
    ax.set_xticks(all_widths, [f"{d:,}".replace(",", "\u2009") for d in all_widths], minor=False)
    ax.set_xticks([], minor=True)
axes[1].legend(fontsize=8, loc="upper left", frameon=False)
fig.tight_layout()
plt.show()

# %% [markdown]
# Did leave-one-out choose an interior λ (a grid value with a larger one and a smaller one tried
# on both sides) at every width of every dataset? {glue:text}`all_interior`. Choosing λ by LOO instead of fixing it at 10⁻³ changes test accuracy by
# {glue:text}`lambda_gain` points over these datasets and widths. **The CIFAR-10 drop.** At λ = 10⁻³,
# CIFAR-10 raw pixels go from {glue:text}`cifar_prev` % at d = {glue:text}`d_prev` to
# {glue:text}`cifar_last` % at d = {glue:text}`d_max`; at LOO's λ, from {glue:text}`cifar_prev_loo` %
# to {glue:text}`cifar_last_loo` %: the widest model {glue:text}`drop_words`.

# %% tags=["remove-cell"]
glue("all_interior", "yes" if all_interior else "no (the search hit its extension limit somewhere)")
glue("lambda_gain", f"{choices['gain (pts)'].min():+.2f} to {choices['gain (pts)'].max():+.2f}")
d_prev = all_widths[-2]
cifar = choices[choices.dataset == SHORT["cifar10"]].set_index("d")
glue("d_prev", f"{d_prev:,}".replace(",", "\u2009"))
glue("cifar_prev", f"{cifar.loc[d_prev, 'test at λ = 1e-3 (%)']:.2f}")
glue("cifar_last", f"{cifar.loc[d_max, 'test at λ = 1e-3 (%)']:.2f}")
LOO_COL = "test at LOO's λ (%)"
glue("cifar_prev_loo", f"{cifar.loc[d_prev, LOO_COL]:.2f}")
glue("cifar_last_loo", f"{cifar.loc[d_max, LOO_COL]:.2f}")
drop_paper = cifar.loc[d_max, "test at λ = 1e-3 (%)"] - cifar.loc[d_prev, "test at λ = 1e-3 (%)"]
drop_loo = cifar.loc[d_max, "test at LOO's λ (%)"] - cifar.loc[d_prev, "test at LOO's λ (%)"]
glue("drop_words", by_sign(drop_paper, "gains at λ = 1e-3 too, so there is no drop to explain",
                           by_sign(drop_loo, "recovers and gains once λ is chosen by LOO: the drop was too little "
                                   "regularisation", "still loses at LOO's λ: regularisation does not explain the drop",
                                   "matches the narrower one at LOO's λ")))

# %% [markdown]
# ### Conditioning: what λ = 10⁻³ does to $G = H^\top H$
#
# The paper proposes, as future work, a Tikhonov term λI "to improve numerical conditioning"
# (Tables II and IV already use λ = 10⁻³). Smallest and largest eigenvalue of $G$ and the
# condition number of $G + 10^{-3} I$:

# %% tags=["remove-cell"]
cond_rows, improved = [], []
for name in datasets:
    conditions = widest[name][0]["conditions"]
    for row in conditions.itertuples():
        kappa_gram = row.s_max / row.s_min if row.s_min > 0 else np.inf
        setting = dict(**sizes(name), **BASE, n_hidden=int(row.n_hidden), seeds=held_seed_list, design=design_wide)
        store.record(f"{name}/green-elm/unit/gram/d={int(row.n_hidden)}/smallest-eigenvalue", [row.s_min], "",
                     quantity="smallest eigenvalue of HᵀH", **setting)
        store.record(f"{name}/green-elm/unit/gram/d={int(row.n_hidden)}/ridge-condition-number", [row.kappa_ridge], "",
                     quantity="condition number of HᵀH + λI", alpha=alpha, **setting)
        improved.append(kappa_gram / row.kappa_ridge)
        cond_rows.append({"dataset": SHORT[name], "d": int(row.n_hidden), "smallest eigenvalue": f"{row.s_min:.2e}",
                          "largest eigenvalue": f"{row.s_max:.2e}", "κ(G + λI)": f"{row.kappa_ridge:.2e}"})
gain_factor = float(np.max(improved)) if improved else np.nan
glue("cond_gain", "unbounded (G is numerically singular there)" if not np.isfinite(gain_factor)
     else f"{gain_factor:.3g}×")
_ = store.answer("tikhonov_improves_conditioning", judge_qualitative(
    bool(gain_factor >= 10),
    test="κ(G) against κ(G + 10⁻³ I) from the spectrum of G at the paper's widths; holds if λ lowers κ at least "
         "tenfold somewhere",
    ours=f"largest reduction of κ by λ = 1e-3: {'unbounded' if not np.isfinite(gain_factor) else f'{gain_factor:.3g}×'}"),
    keys=[f"{n}/green-elm/unit/gram/d={d}/ridge-condition-number" for n in datasets for d in condition_widths])

# %%
show_table(pd.DataFrame(cond_rows), integers=["d"])

# %% [markdown]
# The largest reduction of the condition number by λ = 10⁻³ is {glue:text}`cond_gain`. A smallest
# eigenvalue at or below zero means $G$ is numerically singular, and λ = 10⁻³ is then what makes the
# system solvable; how much regularisation the readout *needs* is a different question, which
# leave-one-out's λ (above) answers.
#
# ## Separability, Cover's theorem and the path to parity

# %% tags=["remove-cell"]
train_rows, rising_train, rising_test = [], {}, {}
for name in datasets:
    run = widest[name][0]
    paper_rows = run["paths"][~run["paths"].searched].set_index("n_hidden")
    train = [paper_rows.loc[d, "train_accuracy"] for d in all_widths]
    for d, value in zip(all_widths, train):
        store.record(elm_key(name, d, "train-accuracy"), [value], "%", **sizes(name), **BASE, solver="cholesky",
                     alpha=alpha, n_hidden=d, seeds=held_seed_list, design=design_wide,
                     evaluated_on=f"{int(run['loo_rows'])} random training rows")
    rising_train[name] = bool(np.all(np.diff(train) >= 0))
    means = [acc[name, d].mean for d in all_widths]
    rising_test[name] = bool(np.all(np.diff(means) > 0))
    train_rows.extend({"d": d, "dataset": SHORT[name], "train": v} for d, v in zip(all_widths, train))
n_train_rise, n_test_rise = sum(rising_train.values()), sum(rising_test.values())
_ = store.answer("cover_expansion_separability", judge_qualitative(
    True if n_train_rise == len(datasets) else (False if n_train_rise == 0 else "partly"),
    test="training accuracy of the ridge readout (the share of training samples it separates) never falls as d "
         f"grows over {all_widths}",
    ours=f"never falls on {n_train_rise} of {len(datasets)} datasets"),
    keys=[elm_key(n, d, "train-accuracy") for n in datasets for d in all_widths])
_ = store.answer("d_correlates_with_separability", judge_qualitative(
    True if n_test_rise == len(datasets) else (False if n_test_rise == 0 else "partly"),
    test=f"test accuracy at λ = 1e-3 rises with every widening over {all_widths} (the 98.1 % peak is the figure "
         "point judged above)",
    ours=f"rises throughout on {n_test_rise} of {len(datasets)} datasets"),
    keys=[acc[n, d].key for n in datasets for d in all_widths])
parity_rows, short_of = [], []
for name in datasets:
    ceiling = kernel[name].mean if name in kernel else held_tests[name].saturating_params[0]
    source = "arc-cosine kernel (d = ∞)" if name in kernel else "saturating law's asymptote"
    base = paper.FIG_SCALING_BASELINES[name]
    parity_rows.append({"dataset": SHORT[name], "ceiling (%)": ceiling, "from": source, "paper's baseline (%)": base})
    if ceiling < base:
        short_of.append(SHORT[name])
_ = store.answer("predictable_path_to_parity", judge_qualitative(
    not short_of, test="the d → ∞ accuracy (arc-cosine kernel where computed, else the saturating law's asymptote "
                       "fitted on the paper's widths) must reach the figure's SGD/CNN baseline",
    ours=f"ceiling below the baseline on {', '.join(short_of) or 'no dataset'}"),
    keys=[f"{n}/arccos-kernel/accuracy" for n in kernel]
         + [f"{n}/green-elm/unit/cholesky/saturating-fit/asymptote" for n in datasets if n not in kernel])
glue("short_of", ", ".join(short_of) or "no dataset")

# %% [markdown]
# Cover's theorem is about training data: the share of *training* samples the readout separates
# (at λ = 10⁻³, on the LOO rows) for each width:

# %%
train_table = pd.DataFrame(train_rows).pivot(index="d", columns="dataset", values="train")
train_table = train_table[[SHORT[n] for n in datasets]].rename(columns=lambda c: f"{c} train (%)").reset_index()
show_table(train_table, digits=2, integers=["d"])

# %% [markdown]
# The paper's "predictable path to parity with gradient-based methods" needs the curve's ceiling to
# reach the trained baseline. The ceiling of each dataset — the exact d → ∞ accuracy where the
# kernel was computed, else the asymptote of the saturating law fitted on the paper's widths — against
# the figure's baseline:

# %%
show_table(pd.DataFrame(parity_rows), digits=2)

# %% [markdown]
# The ceiling lies below the paper's baseline on: {glue:text}`short_of`. The cost of widening
# grows as $Nd^2$ (the Gram) and $d^3$ (the solve).
