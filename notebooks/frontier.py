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
# # The frontier: how far does a one-shot readout go?
#
# The paper {cite}`silva2026greenelm` closes with an open question: "Investigating the limits of the
# $Accuracy \propto \log(d)$ relationship. If dimensionality is cheap, can we reach state-of-the-art
# performance by expanding into a million-dimensional hidden space?" This chapter answers it on
# two CPU cores, in two steps.
#
# 1. **The paper's own map, wider.** Green-ELM's features $\mathrm{relu}(XW + b)$ with
#    $W, b \sim \mathcal N(0, 1)$, one step past the {doc}`scaling-law <scaling>` chapter's widest model, with λ
#    chosen by exact leave-one-out (LOO) at every width, set against the map's $d \to \infty$ limit,
#    the arc-cosine kernel {cite}`cho2009kernel`: no width of this map can do better than its limit.
# 2. **A frozen map built for images.** The same closed-form readout (streamed normal equations, a
#    ridge solve, λ by exact LOO) on features made for images, in the spirit of the published
#    random-feature baselines {cite}`coates2011analysis,thiry2021unreasonable,mcdonnell2015enhanced`:
#    patches sampled from the training images, whitened, used as filters at every position, a ReLU
#    split and mean pooling (`greenelm.RandomPatchFeatures`). No backpropagation and no pretrained
#    weights anywhere: the only "training" is drawing patches with a seed and one linear solve.
#
# Then parity: the best one-shot readout against the book's SGD-trained networks, accuracy against
# the training time each took on this machine, and against the published anchors; and one cost
# curve, accuracy against seconds for every method in the book.

# %% tags=["parameters"]
profile = "smoke"
seed = 0
subset = 2000  # part 1: first `subset` train/test images (None: all)
patch_subset = 1000  # the same for part 2
ultra_dataset = "mnist"
ultra_widths = [3000]  # widths past the scaling chapter's
loo_rows = 500  # rows whose exact LOO residuals choose λ
kernel_jitter = 1e-6  # kernel ridge: jitter x mean diag K
patch_datasets = ["mnist", "fashion-mnist", "cifar10"]
patch_widths = [8, 32]  # K patch filters (features: 2·K·pool²)
judged_patches = 32  # the K fitted with `seeds` seeds
wide_patches = {"cifar10": [64]}  # dataset -> wider K fitted with one seed
seeds = 2
pool = [2, 3]  # mean pooling over a pool × pool grid; a list: the first for every fit, the others at `patch_widths`
dictionary = ["sampled", "kmeans"]  # patch filters: "sampled" for every fit; "kmeans" centroids at `patch_widths`
stacked_widths = [200]  # widths d of the paper's map stacked on the judged patch features ([]: none)
stacked_limit = True  # and its d → ∞ limit, arc-cosine kernel ridge on those features
stacked_limit_pools = {"mnist": [3], "cifar10": [3]}  # dataset -> other pooling grids whose features get the limit too
stacked_limit_patches = {"mnist": [[64, 3]]}  # dataset -> [K, pool] pairs: the limit on wider patch features
stacked_limit_ridge = {"mnist": [[32, 3]]}  # dataset -> [K, pool] pairs: the limit with μ chosen on held-out rows
stacked_limit_flip = {"cifar10": [[32, 3]]}  # the same, with each image's mirror image averaged into the kernel
stacked_limit_shift = {"mnist": [[32, 3]]}  # the vanishing-ridge limit with each image's four one-pixel shifts averaged in
stacked_limit_patch_size = {"mnist": [[32, 3, [5, 7]]]}  # [K, pool, [p, ...]]: the limit on the p x p patches held-out rows choose
stacked_limit_map = {"mnist": [[32, 3, [5, 7], [[0.25, 0.1], [0.75, 0.5]]]]}  # [K, pool, [p, ...], [[t, eps], ...]]: then threshold and whitening eps
limit_jitters = [1e-6, 1e-4, 1e-2]  # the μ / mean diag K tried there
limit_validation = [20000, 10000]  # training rows it fits on, and the others it scores on (a subset: 2/3, 1/3)
augment = {"mnist": ["shift"], "fashion-mnist": ["flip"], "cifar10": ["flip"]}
parity_epochs = {"mnist": {"mlp": 20}, "cifar10": {"cnn": 3}}  # SGD networks trained longer, to match the readouts' time
goals = {"mnist": 99.5, "fashion-mnist": 92.5, "cifar10": 85.0}  # targets (%)

# %%
import os

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")  # idle torch threads sleep instead of spinning
import matplotlib.pyplot as plt

from greenelm_book import frontier_chapter as fc
from greenelm_book.report import glue, set_style, show_table
from greenelm_book.results import ChapterResults

store = ChapterResults("frontier", profile)
set_style()
seed_list = list(range(seed, seed + seeds))
pools, dictionaries = fc.pool_list(pool), fc.dictionary_list(dictionary)
patch_loo_rows = min(loo_rows, patch_subset or loo_rows)
device = fc.feature_device()             # NumPy on a CPU, torch on a GPU when there is one

# %% [markdown]
# ## 1. The paper's map in the ultra-wide regime
#
# The {doc}`scaling-law <scaling>` chapter fitted one wide model per dataset and chose λ by exact LOO at every
# width up to its widest; its values are read from there. Here one wider model of
# {glue:text}`ultra_name` goes further, d = {glue:text}`ultra_text`: float32 features and a float32
# Gram (accumulated in one pass with the library's float32 remedy; 4·d² bytes), a float64 Cholesky
# solve per λ, λ searched from the scaling chapter's choice at its widest width, ×10 either side,
# until the exact-LOO choice is interior. Its $d \to \infty$ limit
# is kernel ridge with the degree-1 arc-cosine kernel on all training images (the
# {doc}`scaling-law <scaling>` chapter derives it), factorised in float32 with a vanishing ridge.

# %% tags=["remove-cell"]
ultra = fc.ultra_wide_part(store, ultra_dataset, ultra_widths, subset=subset, seed=seed, loo_rows=loo_rows,
                           kernel_jitter=kernel_jitter)
for name, value in fc.ultra_intro_glues(ultra).items():
    glue(name, value)

# %%
fig = fc.plot_ultra_wide(ultra)
plt.show()

# %% [markdown]
# At d = {glue:text}`d_ultra` the paper's map reaches {glue:text}`acc_ultra:.2f` % (λ = {glue:text}`lam_ultra`
# by LOO, interior: {glue:text}`ultra_interior`). The ln d line fitted on the paper's widths
# {glue:text}`ln_words` it by {glue:text}`ln_error_abs:.2f` points; the saturating law
# {glue:text}`sat_words` it by {glue:text}`sat_error_abs:.2f` points. Over all held-out widths the
# mean absolute error is {glue:text}`ln_mae:.2f` points for ln d and {glue:text}`sat_mae:.2f` for the
# saturating law. The limit itself, {glue:text}`kernel_acc:.2f` %, is {glue:text}`gap:.2f` points
# {glue:text}`gap_words` the widest model: {glue:text}`limit_sentence`

# %% tags=["remove-cell"]
for name, value in fc.ultra_glues(ultra, goals[ultra_dataset]).items():
    glue(name, value)

# %% tags=["remove-cell"]
fc.answer_ultra_wide(store, ultra, goals[ultra_dataset])

# %% [markdown]
# ## 2. A frozen feature map built for images
#
# `greenelm.RandomPatchFeatures` draws, with the seed, patches of p × p pixels (p = 5 on the 28 × 28
# digit and clothing images, 6 on CIFAR-10's 32 × 32 × 3) from the training images: 100,000 of them
# estimate a ZCA whitening of contrast-normalised patches, and K more, whitened and scaled to unit
# norm, are the filters. Every image is then mapped to its K responses at every position, split into
# $\max(0, z - t)$ and $\max(0, -z - t)$ (t = 0.25) and mean-pooled over a
# {glue:text}`pool_text` grid: $2 \cdot K \cdot$ {glue:text}`pool_cells` features, in blocks of 8
# images, each block one GEMM (computed by the map's NumPy path, which on these two cores outruns its
# torch CPU path, as `benchmarks/patches` measures; by torch when a GPU is present). The readout is the library's: float32
# feature blocks gathered into blocks of thousands of rows and summed into the normal equations, one eigendecomposition of $H^\top H$ (or one Cholesky factorisation per λ where the Gram is too large for it: see below the figure), λ by exact LOO on {glue:text}`loo_text`
# random training rows (`RidgePath.leave_one_out(..., sample=True)`), test accuracy at that λ.
# Augmented copies of the training images ({glue:text}`augment_text`) are folded into the same
# sums, at LOO's λ without augmentation (a left-out image's copies would stay in the sums and bias
# LOO towards too little regularisation).
#
# Fit time counts everything from the training images to the readout (patch sampling, whitening,
# features, sums, eigendecomposition, λ choice); peak memory is the process's resident high-water mark
# during the fit.

# %% tags=["remove-cell"]
for name, value in fc.patch_intro_glues(pools[0], patch_loo_rows, augment, patch_datasets).items():
    glue(name, value)
widths_of = fc.widths_of(patch_datasets, patch_widths, wide_patches)
configs = fc.patch_configs(patch_datasets, patch_widths, judged_patches, wide_patches, seed_list, seed, pools,
                           augment, dictionaries)
runs = fc.fit_patches(configs, subset=patch_subset, loo_rows=patch_loo_rows, device=device)
records = fc.record_patches(store, runs, patch_subset)
main = fc.main_records(records, pools[0])

# %%
show_table(fc.patch_table(main), digits=1, integers=["K", "features", "runs"])

# %%
fig = fc.plot_patches(records, patch_datasets, widths_of, judged_patches, augment, goals, pools, dictionaries)
plt.show()

# %% [markdown]
# Dashed: the goal set for this chapter (MNIST 99.5 %, Fashion-MNIST 92.5 %, CIFAR-10 85 %, each within an
# hour of fitting on this machine's two cores).
# {glue:text}`goal_sentence` {glue:text}`solver_sentence`

# %% tags=["remove-cell"]
best = fc.best_patch(records, patch_datasets)
glue("solver_sentence", fc.solver_sentence(runs))

# %% [markdown]
# ### The dictionary and the pooling grid
#
# The filters above are patches sampled from the training images. Coates and Ng {cite}`coates2011analysis`
# found the centroids of spherical k-means over whitened patches better at equal K:
# `RandomPatchFeatures(dictionary="kmeans")` computes them (scikit-learn's `MiniBatchKMeans` on
# 100,000 unit-norm whitened patches, seeded), still without labels or backpropagation. A coarser
# or finer pooling grid changes the number of features at equal K (2·K·pool²). Each variant below is
# fitted at the same K and seeds as the main sweep, with the same readout; its fit time includes
# the k-means.

# %%
fc.comparison_view(records, patch_datasets, patch_widths, pools, dictionaries)

# %% [markdown]
# {glue:text}`comparison_sentence`

# %% tags=["remove-cell"]
glue("comparison_sentence", fc.comparison_sentence(records, patch_datasets, patch_widths, pools, dictionaries))

# %% [markdown]
# ### The paper's map stacked on the patch features
#
# Green-ELM's random layer can take the patch features as its input instead of the pixels: each
# dataset's features at the judged K (sampled filters, the main pooling grid), standardised on the
# training images, go through $\mathrm{relu}(FW + b)$ with $W \sim \mathcal N(0, 2/F)$,
# $b \sim \mathcal N(0, 1)$, then the ridge readout with λ by exact GCV.
# {glue:text}`stacked_limit_text` Fit time counts the patch map and the standardisation with each
# fit.

# %% tags=["remove-cell"]
glue("stacked_limit_text", fc.stacked_limit_text(stacked_limit, stacked_widths, stacked_limit_pools,
                                                 stacked_limit_patches, stacked_limit_ridge, limit_validation,
                                                 stacked_limit_flip, stacked_limit_shift, stacked_limit_patch_size,
                                                 stacked_limit_map))
stacked = fc.fit_stacked(store, patch_datasets, judged_patches, stacked_widths, stacked_limit, seed=seed,
                         subset=patch_subset, pool=pools[0], jitter=kernel_jitter)
pooled = fc.fit_pooled_limits(store, stacked_limit_pools if stacked_limit else {}, judged_patches, seed=seed,
                              subset=patch_subset, jitter=kernel_jitter)
pooled |= fc.fit_wide_limits(store, stacked_limit_patches if stacked_limit else {}, seed=seed, subset=patch_subset,
                             jitter=kernel_jitter)

# %% tags=["remove-cell"]
held_out = dict(seed=seed, subset=patch_subset, jitters=limit_jitters, n_fit=limit_validation[0],
                n_validation=limit_validation[1])
pooled |= fc.fit_ridge_limits(store, stacked_limit_ridge if stacked_limit else {}, **held_out)
pooled |= fc.fit_ridge_limits(store, stacked_limit_flip if stacked_limit else {}, views=["flip"], **held_out)
pooled |= fc.fit_averaged_limits(store, stacked_limit_shift if stacked_limit else {}, seed=seed, subset=patch_subset,
                                 jitter=kernel_jitter, views=["shift"])
chosen = dict(seed=seed, subset=patch_subset, jitter=kernel_jitter, n_fit=limit_validation[0],
              n_validation=limit_validation[1])
pooled |= fc.fit_patch_size_limits(store, stacked_limit_patch_size if stacked_limit else {}, **chosen)
pooled |= fc.fit_map_limits(store, stacked_limit_map if stacked_limit else {}, **chosen)

# %%
fc.stacked_view(stacked, main, judged_patches, pooled, records)

# %%
fig = fc.plot_stacked(stacked, main, judged_patches, pooled)
plt.show()

# %% [markdown]
# {glue:text}`stacked_sentence`

# %% tags=["remove-cell"]
glue("stacked_sentence", fc.stacked_sentence(stacked, main, judged_patches, pooled))
glue("goal_sentence", fc.goal_sentence(best, goals, stacked, pooled))

# %% [markdown]
# ## 3. Parity: accuracy against training time, against SGD and the published anchors
#
# The book's SGD-trained networks (the {doc}`SGD baselines <baselines>` chapter: the 784-64-10 MLP of Table I on
# MNIST and Fashion-MNIST, the MLP and the small CNN on CIFAR-10) at equal seconds against each
# dataset's best patch readout and, where it is better, the chapter's best result (the stacked map's
# d → ∞ limit). The baselines chapter trained them for its own schedules, shorter than these fits;
# here the strongest network of each dataset is trained again, with the same settings, past the
# slowest of them: {glue:text}`long_text`, with its test accuracy after every
# epoch (one seed; SGD's learning rate is constant, so its first k epochs are the run trained for k
# epochs; the results keep every epoch up to the 100th, every tenth after it, and the last one
# within each fit time compared). Each row gives SGD's accuracy after the last epoch that finished
# within the one-shot result's fit time, and where its run ended.

# %% tags=["remove-cell"]
overall = fc.best_overall(best, stacked, pooled)[0]
long_curves = fc.long_sgd_runs(store, parity_epochs, seed=seed, subset=patch_subset,
                               compared=fc.compared_seconds(best, overall))
glue("long_text", fc.long_text(long_curves))
parity_rows = fc.parity_rows(store, best, long_curves, overall)

# %%
show_table(fc.parity_table(parity_rows), digits=2, integers=["SGD epochs in that time"])

# %% [markdown]
# {glue:text}`parity_sentence` {glue:text}`budget_sentence` The timings are this machine's, measured
# in separate runs (the readouts and the longer SGD runs in this chapter, the others in the
# baselines chapter), and this machine's speed varies from one run to the next, so these
# comparisons are indicative, not judged. The published anchors, quoted with their sources (their settings
# differ from ours: other pooling, encoders and classifiers, and most use far more features, so they
# are context, not a verdict), beside our best patch readout and the chapter's best result on each
# dataset (the stacked map's d → ∞ limit where that is higher):

# %% tags=["remove-cell"]
glue("parity_sentence", fc.parity_sentence(parity_rows))
glue("budget_sentence", fc.budget_sentence(store, records, patch_datasets))

# %%
show_table(fc.anchor_table(best, overall), digits=2)

# %% [markdown]
# Sources: {cite}`mcdonnell2015fast`, {cite}`mcdonnell2015enhanced`, {cite}`coates2011analysis`,
# {cite}`thiry2021unreasonable`, {cite}`recht2018cifar`.
#
# ## 4. The cost curve
#
# Every accuracy in the book's results store that comes with the seconds its training took, on this
# machine (each chapter's own measurement; the SGD networks after every epoch), with this chapter's
# readouts. Pretrained-backbone rows (EfficientNet-Lite0 features) are marked: they start from
# ImageNet training this chapter excludes.

# %%
curve = fc.chapter_cost_curve(store, patch_datasets)
fig = fc.plot_cost_curve(curve, patch_datasets)
plt.show()

# %% [markdown]
# ## What limited us
#
# Two cores and 24 GiB. The widest Green-ELM here keeps a float32 Gram (4·d² bytes: 4 GB at
# d = 32,000) and a float64 factor (8·d²: 8 GB); a million-dimensional hidden space would need an
# 8 TB float64 Gram, and {glue:text}`million_words` The patch readout's width is bounded the same
# way: 2·K·pool² features make a (2·K·pool²)² Gram and an eigendecomposition of that order for the
# LOO path, and its features cost one GEMM of (images × positions) × p²C × K per pass plus the
# elementwise split and pooling: {glue:text}`feature_seconds_text` The anchors that pass 85 % on
# CIFAR-10 use 64,000–256,000 features. {glue:text}`best_width_text` {glue:text}`limit_memory_text`

# %% tags=["remove-cell"]
for name, value in fc.limits_glues(ultra["kernel_accuracy"], goals[ultra_dataset], runs, patch_datasets,
                                   widths_of, seed, pools[0]).items():
    glue(name, value)
glue("limit_memory_text", fc.limit_memory_sentence(stacked, pooled))
glue("best_width_text", fc.best_width_sentence(overall))
