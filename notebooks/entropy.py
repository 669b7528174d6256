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
# # Weight entropy and the MNIST Sea
#
# The paper {cite}`silva2026greenelm` measures the "structural complexity" of the readout $W_2$ by
# its Shannon entropy {cite}`shannon1948mathematical`,
#
# $$S = -\sum_k p_k \log_2 p_k ,$$
#
# where, in the words of its remark, "the empirical weight distribution was estimated using a
# histogram with $K$ equally spaced bins over the observed weight range, and Shannon entropy was
# computed using base-2 logarithms after normalization of the bin counts". On that measure it rests
# a series of claims: the pseudoinverse "produces a dense weight distribution"; there is a
# "persistence of High Shannon Entropy across all Green-ELM regimes"; in Fig. "The MNIST Sea" the
# $W_2$ stars sit in "the high-entropy, high-symmetry regime ($H \approx 7.1, G \approx 0.98$)",
# apart from "the low-entropy 'islands' of individual digits (e.g., the orange cluster of 1s)"; and
# the solution "favors a distributed, high-dimensional representation over the sparse, low-entropy
# filters typically seen in SGD-trained models" — the contrast with the Information Bottleneck
# {cite}`tishby1999information` of its Discussion.
#
# The paper does not give $K$, the width $d$ or solver behind the figure, which SGD weights it
# compares with, nor what its "geometry" axis $G$ is (the figure itself is missing from the source).
# We therefore state our choices and show how the answer depends on them:
#
# - **Entropy** exactly as the paper defines it (`K` equal
#   bins over $[\min w, \max w]$, counts normalised, empty bins dropped, $\log_2$). Our headline
#   $K$ is 256 — one bin per grey level of an MNIST pixel — and every result is also shown against
#   $K$.
# - **Green-ELM readouts** on MNIST {cite}`lecun1998gradient`: $W \sim \mathcal N(0, 1)$ as in the
#   paper's code, the minimum-norm `pinv` solution and the ridge solution (Cholesky, λ = 1e-3),
#   over seeds and widths — the very models of the {doc}`random_features` and {doc}`rotation`
#   chapters (each is trained once and its weights kept).
# - **SGD weights**: the 784-64-10 MLP of Table I (its hidden layer $W_1$, 784 × 64, and its
#   readout $W_2$, 64 × 10) and the single-layer perceptron (784 × 10), trained
#   exactly as in the {doc}`SGD baselines <baselines>` chapter (10 epochs).
# - **Size.** A histogram entropy cannot exceed $\log_2 n$ for $n$ values and grows with $n$ even
#   for one and the same distribution, so matrices of different sizes are also compared on random
#   subsets of equal size, and each is set beside Gaussian samples of its own size (the reference
#   for a "dense, broadly distributed" vector).

# %% tags=["parameters"]
profile = "smoke"
seed = 0
subset = 2000  # first `subset` MNIST train and test images (None: all 60,000 / 10,000)
seeds = 5
widths = [500, 1000]  # Green-ELM widths d for the ridge readout
pinv_widths = [1000]  # widths also solved by the pseudoinverse
headline_width = 1000  # the d of the SGD comparison and of the Sea
bins = [8, 16, 32, 64, 128, 256, 512, 1024, 2048]  # the K of the entropy-against-K figure
headline_bins = 256
epochs = 10  # SGD epochs, as the baselines chapter (Table I: "10 Epochs")
n_match = 640  # size of the equal-size random subsets: the MLP readout has 640 weights
draws = 20  # random subsets per matrix

# %%
import os

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")  # idle torch threads sleep instead of spinning
import matplotlib.pyplot as plt
import numpy as np

from greenelm_book import paper
from greenelm_book.chapters import entropy as we
from greenelm_book.chapters.weight_statistics import histogram_entropy, quantile_symmetry
from greenelm_book.chapters.experiments import load_split
from greenelm_book.report import colour, glue, set_style, show_table
from greenelm_book.store.results import ChapterResults
from greenelm_book.chapters.trained import fallback_note

# %%
store = ChapterResults("entropy", profile)
set_style()
claim = paper.ENTROPY
seed_list = list(range(seed, seed + seeds))
assert headline_width in widths and headline_width in pinv_widths, "headline_width must be fitted by both solvers"
assert headline_bins in bins, "headline_bins must be one of bins"
split = load_split(claim["sea_dataset"], subset=subset)
dataset, alpha = claim["sea_dataset"], paper.HEADLINE["ridge_lambda"]

# %% [markdown]
# ## The weights
#
# One Green-ELM per (solver, width, seed) and one SGD model per seed. Their test accuracy is the
# configuration of the chapters that own them ({doc}`random_features`, {doc}`baselines`) and is
# read from there.

# %%
elm, sgd = we.train(dataset, seed_list, widths, pinv_widths, alpha, epochs, subset)
readouts = {k: r["readout"] for k, r in elm.items()}
n_train = len(split.y_train)
LABELS, SERIES_OF = we.labels(), we.series()
setting = dict(dataset=dataset, n_train=n_train, seeds=seed_list, width=headline_width, alpha=alpha, epochs=epochs)
accuracy = we.accuracy_table(store, elm, sgd, dataset=dataset, width=headline_width, seeds=seed_list,
                             n_train=n_train, epochs=epochs)
glue("accuracy_note", fallback_note(dict(zip(accuracy["key"], accuracy["why"]))))
show_table(accuracy.drop(columns=["key", "why"]), 2)

# %% [markdown]
# {glue:text}`accuracy_note`

# %%
stats = we.seed_statistics(readouts, sgd, seed_list, headline_width, bins, n_match, draws)
set_order = list(dict.fromkeys(stats["set"]))
rec = we.record_statistics(store, stats, bins=headline_bins, n_match=n_match, draws=draws, **setting)
show_table(we.entropy_table(rec, stats, headline_bins, n_match), 2,
           caption=f"Entropy at K = {headline_bins}, mean over {seeds} seeds")

# %%
show_table(we.shape_table(rec, set_order), 3, caption=f"Shape of the weight distributions, mean over {seeds} seeds")

# %% [markdown]
# "H per column" is the paper's measure applied to each output unit's weight vector (the Sea's
# stars), averaged; "H, 640 weights" to equal-size random subsets of the whole matrix, which removes
# the effect of the matrices' different sizes, beside Gaussian samples of the same size. Hoyer's
# sparsity $(\sqrt n - \lVert w\rVert_1/\lVert w\rVert_2)/(\sqrt n - 1)$ is 0 for a vector of equal
# magnitudes and 1 for a one-hot vector; a Gaussian gives $1 - \sqrt{2/\pi} \approx 0.20$, a Laplace
# $1 - 1/\sqrt2 \approx 0.29$. Excess kurtosis is 0 for a Gaussian and 3 for a Laplace: the larger, the
# more of the spread comes from a few large weights.
#
# ## Entropy against the number of bins K
#
# The paper gives no $K$, and the entropy of a smooth distribution grows by about one bit per
# doubling of $K$ until the bins outnumber the values: a single number like 7.1 means nothing
# without $K$. Mean over seeds with ± 2 sd error bars; the dotted line is the ceiling $\log_2 K$.

# %%
we.plot_entropy_against_bins(stats, bins, n_match, claim["sea_stars_entropy"])
plt.show()

# %% tags=["remove-cell"]
k_col = we.bins_for(stats, claim["sea_stars_entropy"], LABELS["pinv"], "column_entropy")
k_all = we.bins_for(stats, claim["sea_stars_entropy"], LABELS["pinv"], "entropy")
glue("k_for_paper_columns", f"{k_col:.0f}" if np.isfinite(k_col) else "no K in our range")
glue("k_for_paper_all", f"{k_all:.0f}" if np.isfinite(k_all) else "no K in our range")
glue("headline_bins", headline_bins)
glue("headline_width", headline_width)
glue("first_seed", seed_list[0])

# %% [markdown]
# The paper's 7.1 bits is what our Green-ELM $W_2$ ($d$ = {glue:text}`headline_width`, pinv) gives
# at $K \approx$ {glue:text}`k_for_paper_columns` per column and $K \approx$
# {glue:text}`k_for_paper_all` for the whole matrix; the claims below are judged at
# $K$ = {glue:text}`headline_bins`, and the figure shows whether their direction depends on $K$.
#
# ## What the distributions look like
#
# Each matrix's weights standardised (mean 0, sd 1), seed {glue:text}`first_seed`, against the
# standard normal density. Histogram entropy over $[\min, \max]$ is sensitive to the tails: a few
# large weights stretch the range and squeeze the bulk into few bins.

# %%
sets0 = we.weight_sets(readouts, sgd, seed_list[0], headline_width)
fig, ax = plt.subplots(figsize=(8, 4.5))
grid = np.linspace(-8, 8, 161)
for name, W in sets0.items():
    z = (W.ravel() - W.mean()) / W.std()
    ax.hist(z, bins=np.linspace(-12, 12, 121), density=True, histtype="step", lw=2.2 if "pinv" in name else 1.4,
            ls="--" if name == LABELS["cholesky"] else (":" if name == LABELS["mlp.0"] else "-"),
            color=colour(SERIES_OF[name]), label=name)
ax.plot(grid, np.exp(-grid ** 2 / 2) / np.sqrt(2 * np.pi), "k:", label="standard normal")
ax.set(yscale="log", ylim=(1e-5, 2), xlabel="standardised weight (w − mean) / sd", ylabel="density")
ax.legend(fontsize=9, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
plt.show()

# %% [markdown]
# ## Entropy across Green-ELM regimes
#
# The Entropy-Accuracy remark claims high entropy "across all Green-ELM regimes". Per-column
# entropy at $K$ = {glue:text}`headline_bins` against the width $d$, for both solvers, mean ± 2 sd
# over seeds; the dashed line is a Gaussian vector of $d$ values.

# %%
regimes = we.regime_statistics(readouts, headline_bins, draws)
deficit_rec = we.record_deficits(store, regimes, dataset=dataset, n_train=n_train, seeds=seed_list, alpha=alpha,
                                 bins=headline_bins)
we.plot_regimes(regimes, widths, headline_bins, claim["sea_stars_entropy"])
plt.show()
show_table(we.regime_table(regimes), 2)

# %% tags=["remove-cell"]
ridge_gap = we.ridge_gap(readouts, [d for d in pinv_widths if d in widths], seed_list)
glue("ridge_sentence", (f"the ridge readout differs from the pseudoinverse's by at most {ridge_gap:.1e} of its largest "
                        f"weight, so its statistics are the same") if ridge_gap < 1e-2 else
     (f"yet the ridge readout differs from the pseudoinverse's by up to {ridge_gap:.1e} of its largest weight "
      f"(the tables show both)"))

# %% [markdown]
# With $W \sim \mathcal N(0, 1)$ the hidden activations are large (tens), so λ = 1e-3 barely
# regularises: {glue:text}`ridge_sentence`.
#
# ## The MNIST Sea, reconstructed
#
# The paper's figure places "10,000 samples across the Geometry-Entropy manifold" with the $W_2$
# columns as stars, but never defines the geometry axis $G$, and the image is missing from the
# source. **This is a reconstruction, with our definition of $G$.** Every point is one vector $v$
# — a test image's 784 pixel values, or one output unit's weight vector — placed at
#
# - $H(v)$: the paper's histogram entropy of its values, $K$ = {glue:text}`headline_bins` (for an
#   image, one bin per grey level);
# - $G(v) = -\operatorname{corr}(s, \overleftarrow{s})$, with $s$ the values sorted and
#   $\overleftarrow{s}$ reversed: the **symmetry of the value distribution about its mean**. A
#   distribution symmetric about its mean has quantiles $q(p) - m = -(q(1-p) - m)$, hence $G = 1$;
#   skew lowers $G$ (an image that is 80 % background and 20 % full ink has $G = 0.25$). Like $H$,
#   $G$ ignores the order of the values and any affine rescaling, so images and weight vectors
#   are measured alike.
#
# We chose $G$ as the "symmetry" of the caption's "high-symmetry regime" that applies to both a
# 784-pixel image and a $d$-dimensional readout column. Any other choice moves the points
# vertically; the entropy axis is the paper's own. Samples are coloured by digit (tab10, so the 1s
# are orange as in the paper's text); stars are the Green-ELM pinv columns ($d$ =
# {glue:text}`headline_width`) per digit, mean ± 2 sd over seeds; the SGD perceptron's and the MLP
# readout's columns are shown the same way.

# %%
K = headline_bins
H_img = histogram_entropy(split.X_test, K, axis=1)
G_img = quantile_symmetry(split.X_test, axis=1)
stars = we.column_points([readouts["pinv", headline_width, s] for s in seed_list], K)
points = {"Green-ELM W2 columns (stars)": ("*", stars),
          "SGD perceptron columns": ("P", we.column_points([sgd["perceptron", s]["weights"][""] for s in seed_list], K)),
          "SGD MLP readout columns": ("D", we.column_points([sgd["mlp", s]["weights"]["2"] for s in seed_list], K))}
we.plot_sea(H_img, G_img, split.y_test, points, (claim["sea_stars_entropy"], claim["sea_stars_geometry"]), K,
            headline_width)
plt.show()

# %%
by_digit = we.digit_medians(split.y_test, H_img, G_img)
digit_rec = we.record_digit_medians(store, by_digit, dataset=dataset, n_test=len(split.y_test), bins=K)
show_table(by_digit.rename(columns={"n": "images", "median_H": "median H (bits)", "median_G": "median G"}), 2)

# %%
# NBVAL_CHECK_OUTPUT
print(by_digit.round(2).to_string(index=False))

# %% [markdown]
# ## The paper's claims
#
# The numeric claims of the Sea cannot be set against ours like for like ($K$ and $G$ are not
# given); each qualitative claim is decided by the test stated beside it in the scorecard, and every
# verdict below is the one recorded there. An inequality between two measured means counts only
# when it exceeds twice the combined sd over seeds ($2\sqrt{s_1^2 + s_2^2}$); "dense" is judged
# by Hoyer's sparsity against the Laplace distribution's (the classic sparsity prior: sparse when
# more peaked than a Laplace), "broadly distributed" by the excess kurtosis against the Laplace's 3;
# "high entropy" means within half a bit of a Gaussian vector of the same size. A mean is on one side of
# such a bar only where the 95 % interval of the mean over seeds lies wholly on that side; an interval
# across the bar decides nothing.

# %% tags=["remove-cell"]
facts = we.answer_claims(store, rec, stats, deficit_rec, digit_rec, claim=claim, bins=bins, headline_bins=K,
                         n_match=n_match, width=headline_width, stars=stars, H_img=H_img, by_digit=by_digit)
for name, value in we.prose_numbers(store, rec, stats, facts, headline_bins=K, width=headline_width,
                                    n_match=n_match, seeds=seeds, seed=seed).items():
    glue(name, value)

# %% [markdown]
# **Verdicts** ({glue:text}`n_claims` claims, $K$ = {glue:text}`headline_bins`, $d$ =
# {glue:text}`headline_width`, {glue:text}`n_seeds` seeds): {glue:text}`verdict_counts`.
#
# - *H ≈ 7.1* — **{glue:text}`v_mnist_sea_stars_entropy`**: the Green-ELM $W_2$ columns have
#   {glue:text}`star_H` at $K$ = {glue:text}`headline_bins`, but the number is mostly a property of
#   $K$ and of the column length (a Gaussian column of the same length has {glue:text}`gauss_col:.2f`
#   bits), and the paper's value is met at $K \approx$ {glue:text}`k_for_paper_columns`.
# - *G ≈ 0.98* — **{glue:text}`v_mnist_sea_stars_geometry`**: our $G$ gives {glue:text}`star_G`, but
#   any symmetric distribution is near 1 (a Gaussian vector: {glue:text}`gauss_G:.3f`), so the
#   position says only that readout weights are symmetric about their mean.
# - *Dense and broadly distributed* — **{glue:text}`v_weights_dense`**. Dense: the Hoyer sparsity
#   {glue:text}`elm_hoyer:.3f` is {glue:text}`dense_words` a Laplace's {glue:text}`laplace_hoyer:.3f`,
#   so by this test the weights are {glue:text}`dense_reading`. Broad: the excess kurtosis
#   {glue:text}`elm_kurtosis:.1f` is {glue:text}`broad_words` a Laplace's 3 — {glue:text}`broad_reading`;
#   {glue:text}`elm_near_zero:.1f` % of the weights are below 1 % of the largest,
#   {glue:text}`near_zero_words` the {glue:text}`gauss_near_zero:.1f` % of a Gaussian of the same size.
# - *Higher entropy than SGD-trained weights* — **{glue:text}`v_mnist_sea_distributed_over_sgd`**
#   ({glue:text}`n_match` random weights each: Green-ELM {glue:text}`elm_matched:.2f` bits; SGD
#   {glue:text}`sgd_matched`). Histogram entropy over $[\min, \max]$ penalises heavy tails — a few
#   large weights stretch the range and leave most bins nearly empty — and the Green-ELM readout
#   {glue:text}`tails_rank` (excess kurtosis {glue:text}`elm_kurtosis:.1f`; SGD {glue:text}`sgd_kurtosis`).
#   "High entropy, no feature pruning" — **{glue:text}`v_high_entropy_no_feature_pruning`**.
# - *SGD filters are sparse and low-entropy* — **{glue:text}`v_mnist_sea_sgd_filters_sparse`**.
# - *High entropy across all regimes* — **{glue:text}`v_high_entropy_all_regimes`**.
# - *The stars stand apart from the digits* — **{glue:text}`v_sea_stars_apart_from_digits`**, but
#   unavoidably: an image has at most 256 grey levels and is mostly background, while a readout
#   column is a continuous vector; the separation follows from what is measured, not from how $W_2$
#   was found.
# - *The 1s are a low-entropy island* — **{glue:text}`v_sea_ones_low_entropy_island`**.
# - *Heavier information storage* — **{glue:text}`v_heavier_information_storage`**: the readout alone
#   stores fewer numbers than the MLP, the readout with $W$ many more; regenerating $W$ from its
#   seed removes the difference.
# - *No compression phase* and *cross-correlations rather than templates* —
#   **{glue:text}`v_information_dense_no_compression`**: what the entropy measures here is the shape
#   of a histogram over the observed range — its tails above all — and it depends on $K$ and on the
#   number of weights; it does not measure information stored by the model, nor how the readout
#   uses the data.
