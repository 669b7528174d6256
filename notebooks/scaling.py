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
# results, and CIFAR-10 raw pixels at {glue:text}`cifar10_read` the CIFAR-10 chapter's
# (independent draws, five seeds: one value per configuration). Everything else here uses **nested widths**: per seed
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

from greenelm_book.chapters import scaling as sc
from greenelm_book.chapters.experiments import load_split
from greenelm_book.report import glue, set_style, show_table
from greenelm_book.store.results import ChapterResults
from greenelm_book.chapters.scaling_law import calibrate_complexity

store = ChapterResults("scaling", profile)
set_style()
splits = {name: load_split(name, subset=subset) for name in datasets}
plan = sc.ScalingPlan.from_parameters(
    profile, splits, subset=subset, paper_widths=paper_widths, held_out_widths=held_out_widths, seed=seed,
    seeds=seeds, held_out_seeds=held_out_seeds, alpha=alpha, lambdas=lambdas,
    lambda_local_above=lambda_local_above, loo_rows=loo_rows, condition_widths=condition_widths)

# %% [markdown]
# ## Algorithm 2 on the paper's own points
#
# Algorithm 2 fits $A = \alpha \ln d + \beta$ to MNIST by ordinary least squares, then for each other
# dataset the OLS slope $m$ of $A - \beta$ against $\ln d$, and sets $\mathcal{C} = \alpha / m$.
# The book's calibration implements exactly that; on the twelve points of the
# paper's figure it returns Table III to the printed four decimals:

# %%
fig_widths, paper_curves = sc.paper_figure_curves()
paper_fit = calibrate_complexity(fig_widths, paper_curves)
table3 = sc.table3_reproduction(paper_fit)
table3_matches = sc.table3_matches(table3)
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
paper_model_worst = sc.worst_model_miss(paper_fit, fig_widths, paper_curves)
glue("paper_model_worst", f"{paper_model_worst:.1f}")

# %% [markdown]
# ## The curves over seeds, and beyond d = 4000
#
# At the paper's widths, MNIST and Fashion-MNIST come from the random-features chapter (one
# independent draw per width and seed); CIFAR-10 raw pixels are measured here, one width-
# {glue:text}`paper_dmax` model per seed whose leading blocks give every narrower width, except
# where the CIFAR-10 chapter measured the same configuration ({glue:text}`cifar10_read`), which is
# read. Beyond the
# paper's range, one width-{glue:text}`d_max` model per dataset ({glue:text}`n_held_seeds` seed(s):
# these widths are the held-out test, not judged against the paper) gives d =
# {glue:text}`held_widths_text`. Results are cached on disk keyed by the parameters and the code.

# %% tags=["remove-cell"]
for name, text in sc.width_glues(plan).items():
    glue(name, text)
# CIFAR-10 raw pixels at the paper's widths (one width-max(paper_widths) model per seed), and for every
# dataset the widest model (held-out widths, λ paths, conditioning)
cifar_runs, widest = sc.wide_runs(plan)
acc = sc.record_curves(store, plan, cifar_runs, widest)
glue("cifar10_read", sc.cifar10_read_text(acc, plan))
curve = sc.curve_frame(acc)

# %%
show_table(sc.curve_table(curve, datasets), digits=2, integers=["d"])

# %% [markdown]
# Mean test accuracy at λ = 10⁻³ (five seeds at the paper's widths in the full profile, the
# held-out seeds beyond; the last column counts them). The figure: our curves (filled), the paper's
# points (open squares, dashed), the paper's SGD/CNN baselines (dotted). The paper's "CIFAR-10"
# curve is not raw pixels (see above); it is drawn for reference only.

# %%
fig = sc.plot_curves(curve, plan)
plt.show()

# %% [markdown]
# ### The figure's points, judged
#
# MNIST and Fashion-MNIST are the paper's setting; CIFAR-10 is not (raw pixels against a curve
# that is not raw pixels), so its rows are information only.

# %% tags=["remove-cell"]
point_rows = sc.answer_figure_points(store, acc, profile)

# %%
show_table(point_rows, digits=2, integers=["d"])

# %% [markdown]
# ### The steepest gain and the modest one
#
# The paper's text: "the steepest accuracy gain occurs between d = 500 and d = 2000 (+7.95 %)" and
# doubling to 4000 adds "a more modest improvement of 0.95 %" (MNIST; its figure's points). Ours,
# seed by seed, are {glue:text}`gain_early` and {glue:text}`gain_late` points.

# %% tags=["remove-cell"]
for name, text in sc.answer_gains(store, plan, acc).items():
    glue(name, text)

# %% [markdown]
# ## Is it ln d? The held-out test
#
# Four points cannot tell ln d from any concave saturating curve (R² over them is no test). So we
# fit two laws on the paper's widths only — the line $A = m \ln d + k$ and the saturating
# $A = a - b\,d^{-c}$ (three parameters, $a$ its asymptote) — and predict the held-out wider
# widths. **Test**: ln d holds for a dataset when its mean absolute held-out error is no larger
# than the saturating law's.

# %% tags=["remove-cell"]
held_tests = sc.record_held_out_tests(store, plan, acc)
held = sc.held_out_summary(held_tests)
glue("held_errors", held["errors_text"])
glue("held_verdict_text", sc.held_out_words(store, plan, held))
sc.answer_log_law(store, plan, held)
glue("held_verdict", store.answers["accuracy_near_logarithmic_in_d"].verdict.label)
glue("held_verdict_detail", store.answers["accuracy_near_logarithmic_in_d"].verdict.detail)

# %%
show_table(sc.held_out_table(held_tests, plan), digits=2, integers=["d"])

# %% [markdown]
# Mean absolute held-out error (points), ln d against the saturating law:
# {glue:text}`held_errors`. In words: {glue:text}`held_verdict_text`. The scorecard's verdict:
# *{glue:text}`held_verdict`* ({glue:text}`held_verdict_detail`).
#
# ### Diminishing returns
#
# The paper also says the gain per doubling shrinks ("a law of diminishing returns"), which is the
# opposite of ln d (constant gain per doubling). Gain of each doubling of d (mean curves; the
# verdict, the scorecard's test of diminishing returns, judges every curve of the table, CIFAR-10 on
# raw pixels included, as the slope claims below are; a gain equal to the one before is not a shrink,
# since an equal gain per doubling is ln d's law, the alternative the claim is set against):

# %% tags=["remove-cell"]
doubling_rows = sc.doubling_gains(curve, datasets, plan.all_widths)
sc.answer_diminishing_returns(store, plan, acc)

# %%
show_table(sc.doubling_table(doubling_rows, datasets), digits=2, integers=["from d", "to d"])

# %% [markdown]
# ## Algorithm 2 on our curves, seed by seed
#
# The paper's Table III is Algorithm 2 applied to *one* run per dataset. Applied to each of our
# seeds (seed i of every dataset calibrated together), it gives one value per seed, so the
# book's rule judges α, β and $\mathcal{C}_f$ like any single-run number; $\mathcal{C}_{cifar}$ is
# not comparable (raw pixels against a curve that is not). Anchor MNIST, widths
# {glue:text}`paper_widths_text`. These rows and the Algorithm 2 row above judge different inputs: the
# Algorithm 2 row asks whether the published algorithm, given the figure's twelve points, returns
# Table III; these rows ask whether our curves give Table III's values. One can hold while the
# other does not.

# %% tags=["remove-cell"]
glue("paper_widths_text", ", ".join(str(d) for d in plan.paper_widths))
seed_curves = sc.seed_curves(acc, datasets, plan.paper_widths)
calib, slopes = sc.record_algorithm2(store, plan, seed_curves)
sc.answer_table3(store, calib, table3_matches)

# %%
show_table(sc.table3_verdicts(store, calib), digits=4)

# %% [markdown]
# The calibrated model on our curves misses the non-anchor datasets by up to
# {glue:text}`our_model_worst` points (the paper's own points: {glue:text}`paper_model_worst`).
# Per-seed slopes (points of accuracy per unit ln d): {glue:text}`slopes_text`. The paper's story
# needs MNIST's slope to be the steepest ("for MNIST α is high; for the others C > 1 dampens the
# curves"). Those two claims are tested on every dataset this chapter measured, CIFAR-10 on raw
# pixels included: the slopes by their differences from MNIST's, "C > 1" by each dataset's per-seed C
# (Algorithm 2, MNIST's C is 1 by construction). The claim that MNIST's and CIFAR-10's slopes diverge
# is tested the same way on the same slopes, MNIST's against CIFAR-10's on raw pixels. The paper's
# CIFAR-10 curve is not raw pixels, so a test that would decide on raw-pixel CIFAR-10 gives *not
# comparable* (the setting rule), its outcome shown for information.

# %% tags=["remove-cell"]
our_model_worst = sc.our_model_miss(seed_curves, plan.paper_widths)
glue("our_model_worst", f"{our_model_worst:.1f}")
glue("slopes_text", sc.slopes_text(slopes))
sc.answer_slope_claims(store, calib, slopes, datasets, our_model_worst, paper_model_worst)

# %% [markdown]
# ### The hypothesis with γ fitted
#
# The hypothesis needs an entropy $\mathcal{H}$ per dataset that the paper never defines. We take a
# stated, measurable choice: the **spectral entropy** (bits) of each training set's pixel covariance,
# $\mathcal{H} = -\sum_i p_i \log_2 p_i$ with $p_i$ the normalised eigenvalues. Per dataset
# $A = m \ln d + \epsilon$, across datasets $\ln m = \ln \Psi - \gamma \ln \mathcal{H}$, seed by seed.
# With our $\mathcal{H}$, γ per seed: {glue:text}`gamma_text` (γ > 0 would order the slopes by
# complexity; with three datasets, two parameters leave one degree of freedom). This is information,
# not a verdict: the paper never defines $\mathcal{H}$, and the sign of γ follows from whichever
# entropy one picks, so the scorecard records the γ claim as not measurable, and judges the abstract's
# hypothesis on the part that can be measured, whether ln d predicts the held-out wider widths (above).

# %% tags=["remove-cell"]
entropies = sc.dataset_entropies(splits)
n_common = len(seed_curves[datasets[0]])
gammas = sc.fit_gammas(plan.paper_widths, seed_curves, entropies)
hyp_keys = sc.record_gammas(store, plan, gammas, entropies, n_common)
glue("gamma_text", sc.gamma_text(gammas))
sc.answer_hypothesis(store, plan, gammas, n_common, held["outcome"], hyp_keys)

# %%
show_table(sc.hypothesis_table(entropies, slopes, datasets), digits=3)

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
# is kernel interpolation with $K$. The convergence on a few test images:

# %%
probe = splits[datasets[0]].X_test[:200]
convergence = sc.kernel_convergence(probe, kernel_check_widths, seed)
show_table(convergence, digits=4, integers=["d"])

# %% tags=["remove-cell"]
glue("convergence_rate", sc.convergence_rate_sentence(convergence))

# %% [markdown]
# {glue:text}`convergence_rate`

# %% [markdown]
# The limit's accuracy: kernel ridge with the arc-cosine kernel on the training set, solved by an
# in-place blocked Cholesky of the N × N kernel in float32 (`greenelm.kernels.kernel_ridge_predict`)
# with a small ridge μ = jitter × mean diag K standing in for λ/d → 0 (a failed float32
# factorisation is retried with ten times the jitter). Computed for
# {glue:text}`kernel_names` (its cost grows as N³: minutes per dataset at full size). Beside it, our
# widest model (its seed count in the heading) and the asymptote $a$ of the saturating law, which is
# an extrapolation from the paper's widths, not a value at d → ∞.

# %% tags=["remove-cell"]
glue("kernel_names", ", ".join(sc.NAMES[n] for n in kernel_datasets) or "no dataset")
kernel = sc.record_kernel_limits(store, splits, kernel_datasets, subset, kernel_subset, kernel_jitter)

# %%
show_table(sc.kernel_table(kernel, acc, held_tests, plan), digits=2, integers=["N train"])

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
#
# The λ paths come from the width-{glue:text}`d_max` model of each dataset's first held-out seed,
# at every width its leading block: **one nested draw**, a different draw from the seeds of the
# curves above. Its values are labelled so; where the curves hold a mean over several seeds of the
# same width at λ = 10⁻³, the last column shows it beside (labelled with its seed count).

# %% tags=["remove-cell"]
for name, text in sc.loo_glues(plan, widest).items():
    glue(name, text)
choices, all_interior = sc.record_lambda_choices(store, plan, widest)

# %%
show_table(sc.lambda_table(choices, acc), digits=2, integers=["d"])

# %%
fig = sc.plot_lambda_choices(choices, plan)
plt.show()

# %% [markdown]
# Did leave-one-out choose an interior λ (a grid value with a larger one and a smaller one tried
# on both sides) at every width of every dataset? {glue:text}`all_interior`. Choosing λ by LOO instead of fixing it at 10⁻³ changes test accuracy by
# {glue:text}`lambda_gain` points over these datasets and widths (one nested draw each). **The
# CIFAR-10 drop.** In that one nested draw, at λ = 10⁻³, CIFAR-10 raw pixels go from
# {glue:text}`cifar_prev` % at d = {glue:text}`d_prev` to {glue:text}`cifar_last` % at d =
# {glue:text}`d_max`; at LOO's λ, from {glue:text}`cifar_prev_loo` % to {glue:text}`cifar_last_loo` %:
# the widest model {glue:text}`drop_words`.

# %% tags=["remove-cell"]
for name, text in sc.lambda_glues(choices, all_interior, plan).items():
    glue(name, text)

# %% [markdown]
# ### Conditioning: what λ = 10⁻³ does to $G = H^\top H$
#
# The paper proposes, as future work, a Tikhonov term λI "to improve numerical conditioning"
# (Tables II and IV already use λ = 10⁻³). Smallest and largest eigenvalue of $G$ and the
# condition number of $G + 10^{-3} I$ (in the one nested draw):

# %% tags=["remove-cell"]
cond_rows, cond_factor = sc.record_conditioning(store, plan, widest)
glue("cond_gain", sc.cond_gain_text(cond_factor))
sc.answer_conditioning(store, plan)

# %%
show_table(cond_rows, integers=["d"])

# %% [markdown]
# The largest reduction of the condition number by λ = 10⁻³ is {glue:text}`cond_gain`. A smallest
# eigenvalue at or below zero means $G$ is numerically singular, and λ = 10⁻³ is then what makes the
# system solvable; how much regularisation the readout *needs* is a different question, which
# leave-one-out's λ (above) answers.
#
# ## Separability, Cover's theorem and the path to parity

# %% tags=["remove-cell"]
train_rows, rising_train = sc.record_train_accuracy(store, plan, widest)
sc.answer_separability(store, plan, acc, rising_train)
parity, short_of = sc.parity_rows(kernel, held_tests, plan)
sc.answer_parity(store, plan, acc)
glue("verdict_parity", store.answers["predictable_path_to_parity"].verdict.label)
glue("short_of", ", ".join(short_of) or "no dataset")

# %% [markdown]
# Cover's theorem is about training data: the share of *training* samples the readout separates
# (at λ = 10⁻³, on the LOO rows of the one nested draw) for each width:

# %%
show_table(sc.train_table(train_rows, datasets), digits=2, integers=["d"])

# %% [markdown]
# The paper's "predictable path to parity with gradient-based methods" is judged on what was
# measured, on every dataset this chapter measured: each dataset's accuracy at d = {glue:text}`paper_dmax`
# against the book's own gradient-trained baseline of the kind the paper's figure draws (the
# {doc}`baselines <baselines>` chapter's SGD MLP; on CIFAR-10 its CNN), by non-inferiority within
# 1 point, as the scorecard's row shows (*{glue:text}`verdict_parity`*). Whether a law predicts the curve beyond the measured widths is the
# held-out ln d test's question (above). For information, the ceiling of each dataset — the exact
# d → ∞ accuracy where the kernel was computed here, else the asymptote of the saturating law fitted
# on the paper's widths, an extrapolation, not a d → ∞ value — beside the figure's baseline (the
# row's method is named beside it). MNIST's exact d → ∞ accuracy (the arc-cosine kernel) is computed
# in {doc}`the frontier chapter <frontier>`.

# %%
show_table(parity, digits=2)

# %% [markdown]
# The ceiling lies below the paper's baseline on: {glue:text}`short_of`. The ceilings judge nothing:
# the verdict on the path to parity rests on the measured accuracies alone. The cost of widening
# grows as $Nd^2$ (the Gram) and $d^3$ (the solve).
