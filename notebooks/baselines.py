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
# # The SGD baselines
#
# Every speed-up the paper claims {cite}`silva2026greenelm` is measured against a network trained
# by stochastic gradient descent: the "Standard (SGD), 10 Epochs, hidden 64" rows of Table I
# (MNIST {cite}`lecun1998gradient` 96.84 % in 17.45 s, Fashion-MNIST {cite}`xiao2017fashion`
# 84.41 % in 8.89 s), the dashed baselines of Fig. "Performance scaling" (SGD on MNIST 95.1 %, on
# Fashion-MNIST 84.41 %, a CNN on CIFAR-10 72.0 %) and the SGD rows of Table VI (an MLP on
# CIFAR-10's raw pixels, 52 % in 149 s; "SGD + Conv", 70 % in 181 s). This chapter trains each of
# them once, on two CPU cores (each result records its host), over several seeds; every other
# chapter that needs one of these networks reads it from here.
#
# The paper states the MLP's width (64) and its number of epochs (10), nothing else: not the
# optimiser's learning rate, momentum or batch size, and neither the architecture nor the schedule
# of its CIFAR-10 networks. Ours: cross-entropy, SGD with momentum at a
# constant learning rate, mini-batches reshuffled every epoch by a generator seeded with the run's
# seed, weights initialised after `torch.manual_seed(seed)`, and the same inputs as Green-ELM
# (pixels scaled to [0, 1], no augmentation, no standardisation). Training time is the wall time
# of the training loop on tensors already in memory, as `ELMClassifier.fit` is timed; the test
# accuracy after each epoch is measured outside the timed region. Both run on the CPU
# with torch's default threads and `OMP_WAIT_POLICY=PASSIVE`: on a shared machine whose cores are
# busy, OpenMP threads that spin while they wait take cores from the work itself, and passive
# waiting costs nothing on an idle one.
#
# **Epochs.** Table I's 10 epochs is the only schedule the paper states, so every MNIST and
# Fashion-MNIST network here, and the CIFAR-10 MLP, trains for 10 epochs. For "SGD + Conv" the
# paper gives only a time, 181 s on an i7 CPU, and no schedule; our CNN trains for a fixed number
# of epochs (8 in the full profile; its training time here is shown beside the paper's
# below), over fewer seeds than the rest to keep the chapter within the book's CPU budget.
# Accuracies are judged by the book's rule (see the introduction); timings come from another
# machine and are never judged, only ratios of timings measured on one host.

# %% tags=["parameters"]
profile = "smoke"
seed = 0
subset = 2000  # first `subset` MNIST / Fashion-MNIST train and test images (None: all)
seeds = 2
epochs = 10  # Table I: "10 Epochs"
cifar_subset = 1000  # CIFAR-10 train and test images (None: all 50,000 / 10,000)
cifar_mlp_seeds = 2
cifar_mlp_epochs = 2
cifar_mlp_hidden = 256
cifar_cnn_seeds = 2
cifar_cnn_epochs = 2
speedup_width = 2000  # Table I: Green-ELM (PInv) at this width against the MLP, the 11.6x speed-up
wide_width = 4000  # Green-ELM at this width against the MLP: the 1.26 % claim
elm_timing_repeats = 3  # only if the random_features chapter's timing is absent

# %%
import os

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")  # before torch loads: see the note above
import matplotlib.pyplot as plt
import pandas as pd

from greenelm_book.chapters import baselines as bl
from greenelm_book.chapters.baselines import CNN_CHANNELS, CNN_HIDDEN, SGDConfig
from greenelm_book.judging.verdicts import PARITY_MARGIN, PARITY_MARGIN_WHY
from greenelm_book.report import glue, set_style, show_table
from greenelm_book.store.results import ChapterResults

store = ChapterResults("baselines", profile)
set_style()
config = SGDConfig(epochs=epochs)


# %% [markdown]
# The settings of every SGD run in this chapter:

# %%
settings = pd.DataFrame([
    ("784-64-10 MLP", "MNIST, Fashion-MNIST", epochs, seeds),
    ("784-10 perceptron", "MNIST, Fashion-MNIST", epochs, seeds),
    (f"3072-{cifar_mlp_hidden}-10 MLP", "CIFAR-10 pixels", cifar_mlp_epochs, cifar_mlp_seeds),
    (f"CNN: conv {CNN_CHANNELS[0]}, conv {CNN_CHANNELS[1]}, dense {CNN_HIDDEN}", "CIFAR-10 pixels",
     cifar_cnn_epochs, cifar_cnn_seeds),
], columns=["network", "data", "epochs", "seeds"])
show_table(settings, caption=f"SGD: batch {config.batch_size}, learning rate {config.lr}, momentum "
                             f"{config.momentum}, weight decay {config.weight_decay}; 3 × 3 convolutions, "
                             f"each followed by ReLU and 2 × 2 max-pooling")


# %% [markdown]
# ## Table I: the 784-64-10 MLP, 10 epochs of SGD
#
# The MLP of Table I on MNIST and Fashion-MNIST, one run per seed, and beside it the single-layer
# perceptron (784 → 10, softmax) of the paper's rotation experiment, trained the same way.

# %%
table1 = bl.table1_runs(store, list(range(seed, seed + seeds)), config, subset)
n_train = {name: table1[name, "mlp"][0].setting["n_train"] for name in ("mnist", "fashion-mnist")}
bl.answer_table1(store, table1)
show_table(bl.verdict_rows(store, [
    ("MNIST MLP, Table I", "table1_mnist_sgd_accuracy"),
    ("MNIST MLP, the figure's SGD line", "fig_scaling_mnist_sgd_baseline_accuracy"),
    ("Fashion-MNIST MLP, Table I", "table1_fashion_sgd_accuracy"),
    ("Fashion-MNIST MLP, the figure's SGD line", "fig_scaling_fashion_sgd_baseline_accuracy"),
    ("MNIST MLP, training time", "table1_mnist_sgd_seconds"),
    ("Fashion-MNIST MLP, training time", "table1_fashion_sgd_seconds"),
]), caption="The paper's SGD numbers beside ours (mean ± sd over seeds)")


# %%
show_table(bl.table1_frame(table1), caption=f"Our runs: mean ± sd over seeds, {epochs} epochs each")


# %%
# NBVAL_CHECK_OUTPUT
for (name, model), (acc, _) in table1.items():
    print(f"{name:14s} SGD {model:10s} {epochs} epochs: accuracy {acc.mean:5.1f} %")

# %% tags=["remove-cell"]
for name, value in bl.table1_words(store, table1).items():
    glue(name, value)
glue("bl_n_seeds", seeds)


# %% [markdown]
# Over {glue:text}`bl_n_seeds` seeds our MLP reaches {glue:text}`bl_mnist_mlp_acc:.2f` % on MNIST,
# {glue:text}`bl_mnist_mlp_vs_paper:.2f` points {glue:text}`bl_mnist_mlp_above_below` Table I's
# 96.84 % (verdict: {glue:text}`bl_mnist_verdict`), and {glue:text}`bl_fashion_mlp_acc:.2f` % on
# Fashion-MNIST, {glue:text}`bl_fashion_mlp_vs_paper:.2f` points {glue:text}`bl_fashion_mlp_above_below`
# the paper's 84.41 % (verdict: {glue:text}`bl_fashion_verdict`). The paper prints two values for its
# MNIST SGD baseline, 96.84 % in Table I and 95.1 % as the figure's dashed line; both are set against
# the same runs. The optimiser settings the paper leaves out are the first suspect for any gap, and
# a stronger baseline narrows Green-ELM's margin, never widens it. The perceptron, used as the SGD
# baseline of the {doc}`rotation` chapter, reaches {glue:text}`bl_mnist_perc_acc:.2f` % on MNIST
# and {glue:text}`bl_fashion_perc_acc:.2f` % on Fashion-MNIST.
#
# ## Green-ELM beside the MLP: 11.6×, "comparable", +1.26 %
#
# The paper's headline divides Table I's SGD time (17.45 s) by its Green-ELM (PInv, d = 2000) time
# (1.50 s): "an 11.6× reduction in reported training time ... while maintaining comparable
# performance" (97.15 % against 96.84 %); and its d = 4000 model (98.1 %) "outperforms the standard
# iterative model by 1.26 %". Each of the three compares two single runs. We set our MLP beside the
# Green-ELM results of the {doc}`random_features` chapter, which owns them (W ~ N(0, 1) as in the
# paper's code, pinv, seeds 0–4, all training images). Each claim's test below is the one the scorecard
# judges it by, in the words of the book's rules:
#
# * **speed-up**: our MLP's training time over Green-ELM's fit time, the paper's 11.6×; the test:
#   {glue:text}`bl_speedup_test`;
# * **+1.26 %**: Green-ELM at d = {glue:text}`bl_wide_width` minus the MLP; the test: {glue:text}`bl_wide_test`;
# * **comparable**: an equivalence test. Green-ELM (d = {glue:text}`bl_speedup_width`) and the MLP are equivalent
#   (the paper's "comparable") when the 95 % confidence interval of the difference of their mean accuracies
#   lies within ± the margin {glue:text}`bl_margin:.1f` point, not equivalent when it lies wholly outside. The
#   margin is the book's one parity margin, read by every chapter: {glue:text}`bl_margin_why`.

# %%
glue("bl_margin", PARITY_MARGIN)
glue("bl_margin_why", PARITY_MARGIN_WHY)
glue("bl_speedup_width", speedup_width)
glue("bl_wide_width", wide_width)
mnist_acc, mnist_sec = table1["mnist", "mlp"]
elm_acc = bl.elm_accuracy(store, "mnist", speedup_width, n_train["mnist"], subset)
# MNIST's pinv is not run at the wide width: only at the narrower widths and Table I's pinv rows
elm_wide = bl.elm_accuracy(store, "mnist", wide_width, n_train["mnist"], subset, "cholesky")
elm_sec = bl.elm_fit_seconds(store, "mnist", speedup_width, n_train["mnist"], subset, elm_timing_repeats)
answers = bl.answer_vs_green_elm(store, mnist_acc, mnist_sec, elm_acc, elm_wide, elm_sec, speedup_width,
                                 wide_width, PARITY_MARGIN)
show_table(bl.verdict_rows(store, [
    (f"MLP time / Green-ELM d = {speedup_width} time", "speedup_vs_sgd_mnist_d2000"),
    (f"Green-ELM d = {wide_width} − MLP", "mnist_d4000_beats_sgd_by_1_26"),
]), caption="The paper's single-run ratio and difference beside ours")


# %%
show_table(bl.comparison_frame(mnist_acc, mnist_sec, elm_acc, elm_sec, elm_wide, epochs, speedup_width, wide_width),
           integers=["runs", "timings"],
           caption="MNIST: the accuracies behind the differences, and each model's seconds in its own runs (the MLP's "
                   "training, Green-ELM's fit; the ratio is read from the interleaved pairs below, not from these)")


# %% tags=["remove-cell"]
for name, value in bl.comparison_words(store, mnist_acc, mnist_sec, elm_acc, elm_sec, elm_wide, answers,
                                       epochs).items():
    glue(name, value)


# %% [markdown]
# Our MLP's 10 epochs take {glue:text}`bl_ratio:.2f`× Green-ELM's fit
# ({glue:text}`bl_ratio_how` {glue:text}`bl_ratio_low:.2f`–{glue:text}`bl_ratio_high:.2f`;
# {glue:text}`bl_ratio_sides`): its training against Green-ELM's pinv fit, by the verdict:
# {glue:text}`bl_ratio_words`, where the paper reports 11.6× (verdict: {glue:text}`bl_speedup_verdict`). At d = {glue:text}`bl_speedup_width` Green-ELM's {glue:text}`bl_elm_acc:.2f` % lies
# {glue:text}`bl_gap:.2f` points {glue:text}`bl_gap_words` the MLP (95 % CI of the difference
# {glue:text}`bl_ci` points), so by the equivalence test the two are {glue:text}`bl_comparable`
# (verdict: {glue:text}`bl_comparable_verdict`). At d = {glue:text}`bl_wide_width` Green-ELM's {glue:text}`bl_wide_acc:.2f` %
# lies {glue:text}`bl_wide_diff:.2f` points {glue:text}`bl_wide_words` the MLP, where the paper
# reports +1.26 (verdict: {glue:text}`bl_wide_verdict`). The Green-ELM numbers were
# {glue:text}`bl_source`.
#
# The ratio compares a finished MLP with a finished Green-ELM. The other fair question: what does
# SGD reach in the time Green-ELM needs? Read from separate runs, so an illustration the quiet rule does
# not judge: {glue:text}`bl_budget_sentence` The learning curves show the whole trade-off: the MLP's test
# accuracy after each epoch against its cumulative training time (mean ± sd over seeds), and the
# Green-ELM fits of Table I's configurations that the {doc}`random_features` chapter timed.

# %%
curves = {name: bl.curve_of(store, f"{name}/sgd-mlp", epochs) for name in ("mnist", "fashion-mnist")}
points = {name: bl.green_elm_points(store, name, speedup_width, elm_acc, elm_sec, n_train[name], subset)
          for name in ("mnist", "fashion-mnist")}
bl.learning_curves_figure(curves, points)
plt.show()


# %% [markdown]
# ## CIFAR-10: an MLP on raw pixels and a small CNN (Table VI)
#
# The paper describes neither network. Ours: an MLP 3072-{glue:text}`bl_cifar_mlp_hidden`-10 on the
# flattened pixels, trained {glue:text}`bl_cifar_mlp_epochs` epochs, and a small CNN whose
# convolutional frontend (two 3 × 3 conv–ReLU–2 × 2 max-pool blocks) feeds a dense head, trained
# {glue:text}`bl_cifar_cnn_epochs` epochs (see the note on epochs above), with the SGD settings of
# the MLPs. Since the paper's networks are unknown, our accuracies say what *these* networks reach,
# not whether the paper's did: the verdicts are "not comparable", with the difference shown for
# information. The {doc}`cifar10` chapter reads these runs; its "Green-ELM + Conv" row puts
# Green-ELM on a fixed random convolutional frontend, not on this trained one.

# %%
glue("bl_cifar_mlp_hidden", cifar_mlp_hidden)
glue("bl_cifar_mlp_epochs", cifar_mlp_epochs)
glue("bl_cifar_cnn_epochs", cifar_cnn_epochs)
cifar = bl.cifar_runs(store, config, seed, cifar_subset, cifar_mlp_seeds, cifar_mlp_epochs, cifar_mlp_hidden,
                      cifar_cnn_seeds, cifar_cnn_epochs)
bl.answer_cifar(store, cifar, cifar_mlp_hidden, cifar_mlp_epochs, cifar_cnn_epochs)
show_table(bl.verdict_rows(store, [
    ("SGD (MLP), Table VI", "table6_sgd_mlp_accuracy"),
    ("SGD + Conv, Table VI", "table6_sgd_conv_accuracy"),
    ("CNN, the figure's line", "fig_scaling_cifar10_cnn_baseline_accuracy"),
    ("SGD (MLP), training time", "table6_sgd_mlp_train_seconds"),
    ("SGD + Conv, training time", "table6_sgd_conv_train_seconds"),
]), caption="CIFAR-10: the paper's SGD rows beside ours (mean ± sd over seeds)")


# %%
# NBVAL_CHECK_OUTPUT
for model, (acc, _) in cifar.items():
    print(f"cifar10 SGD {model:4s}: accuracy {acc.mean:5.1f} %")

# %% tags=["remove-cell"]
for name, value in bl.cifar_words(store, cifar, cifar_cnn_epochs).items():
    glue(name, value)


# %% [markdown]
# Our raw-pixel MLP reaches {glue:text}`bl_c10_mlp_acc:.2f` % in {glue:text}`bl_c10_mlp_s:.0f` s of
# training, {glue:text}`bl_c10_mlp_vs_paper:.2f` points {glue:text}`bl_c10_mlp_words` the paper's 52 %;
# our CNN reaches {glue:text}`bl_c10_cnn_acc:.2f` % in {glue:text}`bl_c10_cnn_s:.0f` s
# (against the paper's 181 s on its i7, by the verdict: {glue:text}`bl_c10_cnn_time_words`),
# {glue:text}`bl_c10_cnn_vs_paper:.2f` points {glue:text}`bl_c10_cnn_words` the paper's 70 %. In its
# last epoch the CNN {glue:text}`bl_c10_cnn_last_words` {glue:text}`bl_c10_cnn_last_gain:.2f` points of
# test accuracy (the curves below), which the book did not train further: the paper's "SGD + Conv"
# number depends on a schedule and an architecture it does not give.

# %%
curves = {model: bl.curve_of(store, f"cifar10/sgd-{model}", n_epochs)
          for model, n_epochs in (("mlp", cifar_mlp_epochs), ("cnn", cifar_cnn_epochs))}
bl.cifar_curves_figure(curves, cifar_mlp_hidden)
plt.show()


# %% [markdown]
# ## What this chapter settles
#
# The MNIST and Fashion-MNIST baselines are the paper's networks with our optimiser settings; the
# scorecard gives each verdict. The speed-up is a ratio of two timings ({glue:text}`bl_ratio_how`
# {glue:text}`bl_ratio_low:.2f`–{glue:text}`bl_ratio_high:.2f`), and the
# "comparable" claim is decided by a stated equivalence test, not by eye. The CIFAR-10 networks are
# ours, so their accuracies are shown beside the paper's for information; they are the baselines
# every other chapter of this book uses.
