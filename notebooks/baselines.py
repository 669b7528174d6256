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
# them once, on this machine, over several seeds; every other chapter that needs one of these
# networks reads it from here.
#
# The paper states the MLP's width (64) and its number of epochs (10), nothing else: not the
# optimiser's learning rate, momentum or batch size, and neither the architecture nor the schedule
# of its CIFAR-10 networks. Ours (`greenelm_book.baselines`): cross-entropy, SGD with momentum at a
# constant learning rate, mini-batches reshuffled every epoch by a generator seeded with the run's
# seed, weights initialised after `torch.manual_seed(seed)`, and the same inputs as Green-ELM
# (pixels scaled to [0, 1], no augmentation, no standardisation). Training time is the wall time
# of the training loop on tensors already in memory, as `ELMClassifier.fit` is timed; the test
# accuracy after each epoch is measured outside the timed region. Both run on this machine's CPU
# with torch's default threads and `OMP_WAIT_POLICY=PASSIVE`: on a shared machine whose cores are
# busy, OpenMP threads that spin while they wait make a 64-unit MLP 10–40× slower, and passive
# waiting costs nothing on an idle one.
#
# **Epochs.** Table I's 10 epochs is the only schedule the paper states, so every MNIST and
# Fashion-MNIST network here, and the CIFAR-10 MLP, trains for 10 epochs. For "SGD + Conv" the
# paper gives only a time, 181 s on an i7 CPU; our CNN's epoch takes about 20–25 s on this
# machine, so we train it for the number of epochs that takes about that long here (8 in the full
# profile), over fewer seeds than the rest to keep the chapter within the book's CPU budget.
# Accuracies are judged by the book's rule (see the introduction); timings come from another
# machine and are never judged, only ratios measured on this one.

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
comparable_margin = 1.0  # points: the equivalence margin of "comparable performance"
elm_timing_repeats = 3  # only if the random_features chapter's timing is absent

# %%
import os

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")  # before torch loads: see the note above
import dataclasses

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from greenelm_book import paper
from greenelm_book.baselines import CNN_CHANNELS, CNN_HIDDEN, MLP_HIDDEN, SGDConfig, sgd_seeds
from greenelm_book.bench import run_isolated
from greenelm_book.comparisons import accuracy_within, between_interval, equivalence, judge_between
from greenelm_book.report import (Verdict, by_sign, colour, glue, judge_qualitative, judge_time, judge_value,
                                  not_comparable, set_style, show_table)
from greenelm_book.results import ChapterResults
from greenelm_book.sweeps import fit_once

store = ChapterResults("baselines", profile)
set_style()
seed_list = list(range(seed, seed + seeds))
config = SGDConfig(epochs=epochs)
CLAIMS = {c.id: c for c in paper.CLAIMS}
NAMES = {"mnist": "MNIST", "fashion-mnist": "Fashion-MNIST", "cifar10": "CIFAR-10"}

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


# %% tags=["remove-cell"]
def record_runs(prefix, final, curves, runs, run_config, shown_curve=False, **setting):
    """Record the final accuracy and training time of a set of seeded runs (and, when the chapter
    shows the learning curve, the same after each earlier epoch: the first k epochs of a run are
    the run trained for k epochs, the learning rate being constant). Returns (accuracy, seconds)."""
    first = runs[0]
    common = dict(n_train=first["n_train"], n_test=first["n_test"], batch_size=run_config.batch_size,
                  lr=run_config.lr, momentum=run_config.momentum, weight_decay=run_config.weight_decay,
                  seeds=[int(s) for s in final.seed],
                  device=first["device"], threads=first["threads"], **setting)
    total = int(round(final.epochs.iloc[0]))
    accuracy = store.record(f"{prefix}/accuracy", final.accuracy, "%", epochs=total, **common)
    seconds = store.record(f"{prefix}/train-seconds", final.train_seconds, "s", epochs=total,
                           timed="training loop, data in memory", **common)
    if shown_curve:
        for k, at in curves[curves.epochs < total].groupby("epochs"):
            store.record(f"{prefix}/e={int(k)}/accuracy", at.accuracy, "%", epochs=int(k), **common)
            store.record(f"{prefix}/e={int(k)}/train-seconds", at.train_seconds, "s", epochs=int(k),
                         timed="training loop, data in memory", **common)
    return accuracy, seconds


def seed_curves(prefix, total):
    """Per seed, the test accuracy and cumulative training time after each epoch 1..total, from the store."""
    rows = []
    for k in range(1, total + 1):
        part = f"{prefix}/e={k}" if k < total else prefix
        acc, sec = store.get("baselines", f"{part}/accuracy"), store.get("baselines", f"{part}/train-seconds")
        rows += [{"seed": s, "epochs": k, "train_seconds": t, "accuracy": a}
                 for s, t, a in zip(acc.setting["seeds"], sec.values, acc.values)]
    return pd.DataFrame(rows)


def curve_of(prefix, total):
    """Mean and sd over seeds of accuracy, and mean cumulative training time, after each epoch."""
    grouped = seed_curves(prefix, total).groupby("epochs")
    return pd.DataFrame({"epochs": list(grouped.groups), "accuracy": grouped.accuracy.mean().to_numpy(),
                         "sd": grouped.accuracy.std().fillna(0).to_numpy(),
                         "seconds": grouped.train_seconds.mean().to_numpy()})


def spread_text(result):
    """``"97.15 ± 0.08"`` (the mean alone for one run)."""
    return f"{result.mean:.2f}" + (f" ± {result.sd:.2f}" if result.n > 1 else "")


def verdict_rows(rows):
    """A table of claims: (what, claim id) -> what, paper, ours, verdict (from this chapter's answers)."""
    out = []
    for what, claim in rows:
        answer, spec = store.answers[claim], CLAIMS[claim]
        unit = {"%": " %", "s": " s", "×": "×", "points": " pts"}.get(spec.unit, "")
        out.append({"what": what, "paper": f"{spec.value:g}{unit}", "ours": answer.verdict.ours,
                    "verdict": answer.verdict.label})
    return pd.DataFrame(out)


# %% [markdown]
# ## Table I: the 784-64-10 MLP, 10 epochs of SGD
#
# The MLP of Table I on MNIST and Fashion-MNIST, one run per seed, and beside it the single-layer
# perceptron (784 → 10, softmax) of the paper's rotation experiment, trained the same way.

# %%
table1 = {}
for name in ("mnist", "fashion-mnist"):
    for model, arch in (("mlp", f"784-{MLP_HIDDEN}-10"), ("perceptron", "784-10")):
        final, curves, runs = sgd_seeds(name, model, seed_list, config, subset=subset, progress=False)
        table1[name, model] = record_runs(f"{name}/sgd-{model}", final, curves, runs, config,
                                          shown_curve=model == "mlp",
                                          dataset=name, model=f"SGD {model}", architecture=arch)
n_train = {name: table1[name, "mlp"][0].setting["n_train"] for name in ("mnist", "fashion-mnist")}

for claim, name, source in (("table1_mnist_sgd_accuracy", "mnist", "Table I"),
                            ("table1_fashion_sgd_accuracy", "fashion-mnist", "Table I"),
                            ("fig_scaling_mnist_sgd_baseline_accuracy", "mnist", "figure"),
                            ("fig_scaling_fashion_sgd_baseline_accuracy", "fashion-mnist", "figure")):
    acc = table1[name, "mlp"][0]
    store.answer(claim, judge_value(CLAIMS[claim].value, acc.values, "%"), keys=[acc.key],
                 note=f"784-64-10 MLP, 10 epochs of SGD (our optimiser settings), {acc.n} seeds")
for claim, name in (("table1_mnist_sgd_seconds", "mnist"), ("table1_fashion_sgd_seconds", "fashion-mnist")):
    sec = table1[name, "mlp"][1]
    store.answer(claim, judge_time(CLAIMS[claim].value, sec.values), keys=[sec.key],
                 note="the training loop on data in memory, this machine")

show_table(verdict_rows([
    ("MNIST MLP, Table I", "table1_mnist_sgd_accuracy"),
    ("MNIST MLP, the figure's SGD line", "fig_scaling_mnist_sgd_baseline_accuracy"),
    ("Fashion-MNIST MLP, Table I", "table1_fashion_sgd_accuracy"),
    ("Fashion-MNIST MLP, the figure's SGD line", "fig_scaling_fashion_sgd_baseline_accuracy"),
    ("MNIST MLP, training time", "table1_mnist_sgd_seconds"),
    ("Fashion-MNIST MLP, training time", "table1_fashion_sgd_seconds"),
]), caption="The paper's SGD numbers beside ours (mean ± sd over seeds)")

# %%
show_table(pd.DataFrame([
    {"data": NAMES[name], "network": label, "accuracy (%)": spread_text(table1[name, model][0]),
     "train (s)": spread_text(table1[name, model][1]), "seeds": table1[name, model][0].n}
    for name in ("mnist", "fashion-mnist") for model, label in (("mlp", "784-64-10 MLP"), ("perceptron", "perceptron"))
]), caption=f"Our runs: mean ± sd over seeds, {epochs} epochs each")

# %%
# NBVAL_CHECK_OUTPUT
for (name, model), (acc, _) in table1.items():
    print(f"{name:14s} SGD {model:10s} {epochs} epochs: accuracy {acc.mean:5.1f} %")

# %% tags=["remove-cell"]
mnist_acc, mnist_sec = table1["mnist", "mlp"]
fashion_acc = table1["fashion-mnist", "mlp"][0]
for tag, name, claim in (("mnist", "mnist", "table1_mnist_sgd_accuracy"),
                         ("fashion", "fashion-mnist", "table1_fashion_sgd_accuracy")):
    diff = table1[name, "mlp"][0].mean - CLAIMS[claim].value
    glue(f"bl_{tag}_mlp_acc", table1[name, "mlp"][0].mean)
    glue(f"bl_{tag}_mlp_vs_paper", abs(diff))
    glue(f"bl_{tag}_mlp_above_below", by_sign(diff, "above", "below"))
    glue(f"bl_{tag}_mlp_s", table1[name, "mlp"][1].mean)
    glue(f"bl_{tag}_perc_acc", table1[name, "perceptron"][0].mean)
glue("bl_n_seeds", seeds)
glue("bl_mnist_verdict", store.answers["table1_mnist_sgd_accuracy"].verdict.label)
glue("bl_fashion_verdict", store.answers["table1_fashion_sgd_accuracy"].verdict.label)

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
# paper's code, pinv, seeds 0–4, all training images; its fit time is a quiet timing on the same
# machine as ours, so the ratio of the two is a same-machine ratio):
#
# * **speed-up**: our MLP's training time over Green-ELM's fit time, judged like any ratio measured
#   on one machine: the paper's 11.6× against our 95 % prediction interval for one training and one
#   fit (Welch's t on the log scale, over our seeds and timing repeats);
# * **+1.26 %**: Green-ELM at d = {glue:text}`bl_wide_width` minus the MLP, against the prediction interval for the
#   difference of one run of each (Welch's t over seeds);
# * **comparable**: an equivalence test. Green-ELM (d = {glue:text}`bl_speedup_width`) and the MLP are comparable when the
#   95 % confidence interval of the difference of their mean accuracies lies within ± the margin
#   {glue:text}`bl_margin:.1f` point; they are not when it lies wholly outside. The margin sits between
#   the paper's own words: it calls a 0.31-point gap "comparable" and a 1.26-point gap "outperforming".

# %%
def owned(dataset, solver, width, quantity):
    """random_features' result for this configuration, or None when it is absent, measured on other
    data (another profile) or, for a timing, on another machine than ours."""
    key = f"{dataset}/green-elm/unit/{solver}/d={width}/{quantity}"
    try:
        result = store.get("random_features", key)
    except KeyError:
        return None
    if (result.setting.get("n_train", n_train[dataset]) != n_train[dataset]
            or result.setting.get("subset", subset) != subset):
        return None
    if quantity == "fit-seconds" and result.machine != store.machine:
        return None
    return result


def elm_accuracy(dataset, width, solver="pinv"):
    """Green-ELM (unit, ``solver``) accuracy at ``width``: random_features' result, else the same cached
    fits (greenelm_book.sweeps), recorded here under a key of its own."""
    result = owned(dataset, solver, width, "accuracy")
    if result is not None:
        return result
    values = [fit_once(dataset, "unit", width, s, solver, subset=subset)["accuracy"] for s in range(5)]
    return store.record(f"{dataset}/green-elm/unit/{solver}/d={width}/read-by-baselines/accuracy", values, "%",
                        dataset=dataset, n_train=n_train[dataset], model="Green-ELM", weight_scale="unit",
                        solver=solver, n_hidden=width, alpha=None if solver == "pinv" else 1e-3,
                        seeds=list(range(5)),
                        measured_by="baselines, random_features' result being absent")


def elm_fit_seconds(dataset, width):
    """Green-ELM (unit, pinv) fit time at ``width``: random_features' quiet timing, else timed here."""
    result = owned(dataset, "pinv", width, "fit-seconds")
    if result is not None:
        return result
    # in a fresh process: BLAS beside the threads of the torch runs above is several times slower
    timed = run_isolated("greenelm_book.comparisons:elm_fit_times",
                         {"dataset": dataset, "n_hidden": width, "subset": subset, "repeats": elm_timing_repeats})
    if not timed["ok"]:
        raise RuntimeError(f"timing Green-ELM failed: {timed['error']}")
    return store.record(f"{dataset}/green-elm/unit/pinv/d={width}/timed-by-baselines/fit-seconds",
                        timed["result"]["seconds"], "s",
                        dataset=dataset, n_train=n_train[dataset], model="Green-ELM", weight_scale="unit",
                        solver="pinv", n_hidden=width, seed=0, repeats=elm_timing_repeats,
                        timed="ELMClassifier.fit, data in memory, a fresh process, after one untimed fit",
                        measured_by="baselines, random_features' timing being absent")


glue("bl_margin", comparable_margin)
glue("bl_speedup_width", speedup_width)
glue("bl_wide_width", wide_width)
elm_acc = elm_accuracy("mnist", speedup_width)
elm_wide = elm_accuracy("mnist", wide_width, "cholesky")   # pinv at d = 4000 is not run (minutes per fit)
elm_sec = elm_fit_seconds("mnist", speedup_width)
read_here = [r.key for r in (elm_acc, elm_wide, elm_sec) if r.chapter == "baselines"]

speedup = judge_between(CLAIMS["speedup_vs_sgd_mnist_d2000"].value, mnist_sec.values, elm_sec.values, "ratio",
                        unit="×", min_runs=(5, 3))
store.answer("speedup_vs_sgd_mnist_d2000", speedup, keys=[mnist_sec.key, elm_sec.key],
             note=f"our 784-64-10 MLP's 10-epoch training time over Green-ELM's fit time (pinv, d = "
                  f"{speedup_width}, W ~ N(0, 1)), both on this machine and on data in memory")
wide_gap = judge_between(CLAIMS["mnist_d4000_beats_sgd_by_1_26"].value, elm_wide.values, mnist_acc.values,
                         "difference", unit="points")
store.answer("mnist_d4000_beats_sgd_by_1_26", wide_gap, keys=[elm_wide.key, mnist_acc.key],
             note=f"Green-ELM (ridge λ = 1e-3 by Cholesky, d = {wide_width}; the paper's d = 4000 figure names "
                  f"no solver) minus our 784-64-10 MLP (10 epochs), MNIST, "
                  f"independent seeds")
outcome, low, high = equivalence(elm_acc.values, mnist_acc.values, comparable_margin)
gap = elm_acc.mean - mnist_acc.mean
test = (f"equivalence within ± {comparable_margin:g} point: the 95 % CI (Welch) of mean Green-ELM (pinv, "
        f"d = {speedup_width}) − mean SGD MLP must lie inside ± {comparable_margin:g}; wholly outside: not "
        f"comparable")
ours = f"{gap:+.2f} pts, 95 % CI {low:+.2f} to {high:+.2f}"
store.answer("abstract_comparable_to_sgd",
             Verdict("inconclusive", ours, test) if outcome is None else judge_qualitative(outcome, test, ours),
             keys=[elm_acc.key, mnist_acc.key], note="MNIST, all training images")

show_table(verdict_rows([
    (f"MLP time / Green-ELM d = {speedup_width} time", "speedup_vs_sgd_mnist_d2000"),
    (f"Green-ELM d = {wide_width} − MLP", "mnist_d4000_beats_sgd_by_1_26"),
]), caption="The paper's single-run ratio and difference beside ours")

# %%
show_table(pd.DataFrame([
    {"model": f"784-64-10 MLP, {epochs} epochs", "accuracy (%)": spread_text(mnist_acc), "runs": mnist_acc.n,
     "time (s)": spread_text(mnist_sec), "timings": mnist_sec.n},
    {"model": f"Green-ELM, pinv, d = {speedup_width}", "accuracy (%)": spread_text(elm_acc), "runs": elm_acc.n,
     "time (s)": spread_text(elm_sec), "timings": elm_sec.n},
    {"model": f"Green-ELM, ridge, d = {wide_width}", "accuracy (%)": spread_text(elm_wide), "runs": elm_wide.n,
     "time (s)": "—", "timings": None},
]), integers=["runs", "timings"], caption="MNIST: the numbers behind the ratio and the differences (time: the MLP's training, Green-ELM's fit)")

# %% tags=["remove-cell"]
ratio, ratio_low, ratio_high = between_interval(mnist_sec.values, elm_sec.values, "ratio")
glue("bl_ratio", ratio)
glue("bl_ratio_low", ratio_low)
glue("bl_ratio_high", ratio_high)
glue("bl_ratio_words", by_sign(ratio - 1, "longer than", "shorter than", "as long as"))
glue("bl_speedup_verdict", speedup.label)
glue("bl_elm_s", elm_sec.mean)
glue("bl_elm_acc", elm_acc.mean)
glue("bl_gap", abs(gap))
glue("bl_gap_words", by_sign(gap, "above", "below", "level with"))
glue("bl_ci", f"{low:+.2f} to {high:+.2f}")
glue("bl_comparable", {True: "comparable", False: "not comparable", None: "undecided"}[outcome])
glue("bl_comparable_verdict", store.answers["abstract_comparable_to_sgd"].verdict.label)
wide_diff = elm_wide.mean - mnist_acc.mean
glue("bl_wide_acc", elm_wide.mean)
glue("bl_wide_diff", abs(wide_diff))
glue("bl_wide_words", by_sign(wide_diff, "above", "below", "level with"))
glue("bl_wide_verdict", wide_gap.label)
glue("bl_source", "measured here, the random_features chapter's results being absent ("
     + ", ".join(read_here) + ")" if read_here else "read from the random_features chapter")
within = accuracy_within(seed_curves("mnist/sgd-mlp", epochs), elm_sec.mean)
glue("bl_budget_epochs", f"{within.epochs.mean():.1f}".removesuffix(".0"))
glue("bl_budget_all", "all of its" if (within.epochs == epochs).all() else "on average")
budget_gap = elm_acc.mean - within.accuracy.mean()
glue("bl_budget_acc", within.accuracy.mean())
glue("bl_budget_gap", abs(budget_gap))
glue("bl_budget_words", by_sign(budget_gap, "ahead of", "behind", "level with"))

# %% [markdown]
# On this machine our MLP's 10 epochs take {glue:text}`bl_ratio:.2f` times Green-ELM's fit (the ratio
# of the geometric means over runs; 95 % prediction interval for one training over one fit
# {glue:text}`bl_ratio_low:.2f`–{glue:text}`bl_ratio_high:.2f`): its training is
# {glue:text}`bl_ratio_words` Green-ELM's {glue:text}`bl_elm_s:.1f` s pinv fit, where the paper reports
# 11.6× (verdict: {glue:text}`bl_speedup_verdict`). At d = {glue:text}`bl_speedup_width` Green-ELM's {glue:text}`bl_elm_acc:.2f` % lies
# {glue:text}`bl_gap:.2f` points {glue:text}`bl_gap_words` the MLP (95 % CI of the difference
# {glue:text}`bl_ci` points), so by the equivalence test the two are {glue:text}`bl_comparable`
# (verdict: {glue:text}`bl_comparable_verdict`). At d = {glue:text}`bl_wide_width` Green-ELM's {glue:text}`bl_wide_acc:.2f` %
# lies {glue:text}`bl_wide_diff:.2f` points {glue:text}`bl_wide_words` the MLP, where the paper
# reports +1.26 (verdict: {glue:text}`bl_wide_verdict`). The Green-ELM numbers were
# {glue:text}`bl_source`.
#
# The ratio compares a finished MLP with a finished Green-ELM. The other fair question: what does
# SGD reach in the time Green-ELM needs? Within Green-ELM's {glue:text}`bl_elm_s:.1f` s the MLP
# finishes {glue:text}`bl_budget_all` {glue:text}`bl_budget_epochs` epochs and reaches
# {glue:text}`bl_budget_acc:.2f` %; Green-ELM is {glue:text}`bl_budget_gap:.2f` points
# {glue:text}`bl_budget_words` it. The learning curves show the whole trade-off: the MLP's test
# accuracy after each epoch against its cumulative training time (mean ± sd over seeds), and the
# Green-ELM fits of Table I's configurations that the {doc}`random_features` chapter timed.

# %%
fig, axes = plt.subplots(1, 2, figsize=(10, 4.2), sharey=False)
for ax, name in zip(axes, ("mnist", "fashion-mnist")):
    c = curve_of(f"{name}/sgd-mlp", epochs)
    ax.plot(c.seconds, c.accuracy, "o-", color=colour("SGD MLP"), label="SGD MLP 784-64-10, epochs 1–10")
    ax.fill_between(c.seconds, c.accuracy - c.sd, c.accuracy + c.sd, color=colour("SGD MLP"), alpha=0.25)
    widths = sorted(set(paper.TABLE_I.query("dataset == @name and solver == 'pinv'").n_hidden)
                    - {speedup_width if name == "mnist" else None})
    points = [(width, owned(name, "pinv", width, "accuracy"), owned(name, "pinv", width, "fit-seconds"))
              for width in widths] + ([(speedup_width, elm_acc, elm_sec)] if name == "mnist" else [])
    for width, acc, sec in points:
        if acc is None or sec is None:
            continue
        ax.errorbar([sec.mean], [acc.mean], xerr=[sec.sd if sec.n > 1 else 0], yerr=[acc.sd if acc.n > 1 else 0],
                    fmt="s", ms=8, mec="k", color=colour("Green-ELM (pinv)"), ecolor="k", capsize=3)
        ax.annotate(f"d = {width}", (sec.mean, acc.mean), textcoords="offset points", xytext=(8, -14), fontsize=9)
    paper_sgd = paper.TABLE_I.query("dataset == @name and solver == 'sgd'").accuracy.iloc[0]
    ax.axhline(paper_sgd, color="k", ls="--", lw=1)
    ax.set(xlabel="training time on this machine (s)", ylabel="test accuracy (%)", title=NAMES[name])
handles = [plt.Line2D([], [], color=colour("SGD MLP"), marker="o", label="SGD MLP 784-64-10, after each epoch"),
           plt.Line2D([], [], color=colour("Green-ELM (pinv)"), marker="s", ms=8, mec="k", ls="",
                      label="Green-ELM, pinv (its fit time)"),
           plt.Line2D([], [], color="k", ls="--", lw=1, label="paper, SGD (Table I)")]
fig.legend(handles=handles, loc="lower center", ncol=3, bbox_to_anchor=(0.5, -0.04), frameon=False)
fig.tight_layout(rect=(0, 0.07, 1, 1))
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
# information. The {doc}`cifar10` chapter reads these runs (and reuses the trained CNN's frontend
# for its "Green-ELM + Conv" row).

# %%
glue("bl_cifar_mlp_hidden", cifar_mlp_hidden)
glue("bl_cifar_mlp_epochs", cifar_mlp_epochs)
glue("bl_cifar_cnn_epochs", cifar_cnn_epochs)
cifar = {}
for model, n_seeds, n_epochs, hidden, arch in (
        ("mlp", cifar_mlp_seeds, cifar_mlp_epochs, cifar_mlp_hidden, f"3072-{cifar_mlp_hidden}-10"),
        ("cnn", cifar_cnn_seeds, cifar_cnn_epochs, None,
         f"conv3x3-{CNN_CHANNELS[0]}, pool, conv3x3-{CNN_CHANNELS[1]}, pool, dense {CNN_HIDDEN}, 10")):
    run_config = dataclasses.replace(config, epochs=n_epochs)
    final, curves, runs = sgd_seeds("cifar10", model, range(seed, seed + n_seeds), run_config,
                                    n_hidden=hidden, subset=cifar_subset, progress=False)
    cifar[model] = record_runs(f"cifar10/sgd-{model}", final, curves, runs, run_config, shown_curve=True,
                               dataset="cifar10", model=f"SGD {model}", architecture=arch, inputs="raw pixels")

why = {"mlp": "the paper gives neither the MLP's width nor its schedule; ours: 3072-{h}-10, {e} epochs".format(
           h=cifar_mlp_hidden, e=cifar_mlp_epochs),
       "cnn": f"the paper describes neither its CNN nor its schedule; ours: two conv blocks ({CNN_CHANNELS[0]}, "
              f"{CNN_CHANNELS[1]} channels), dense {CNN_HIDDEN}, {cifar_cnn_epochs} epochs"}
for claim, model in (("table6_sgd_mlp_accuracy", "mlp"), ("table6_sgd_conv_accuracy", "cnn"),
                     ("fig_scaling_cifar10_cnn_baseline_accuracy", "cnn")):
    acc = cifar[model][0]
    store.answer(claim, not_comparable(why[model], CLAIMS[claim].value, acc.values), keys=[acc.key],
                 note=f"raw pixels, {acc.n} seeds")
for claim, model in (("table6_sgd_mlp_train_seconds", "mlp"), ("table6_sgd_mlp_total_seconds", "mlp"),
                     ("table6_sgd_conv_train_seconds", "cnn"), ("table6_sgd_conv_total_seconds", "cnn")):
    sec = cifar[model][1]
    store.answer(claim, judge_time(CLAIMS[claim].value, sec.values), keys=[sec.key],
                 note="training loop on data in memory (an SGD row has no feature extraction: total = train)")

show_table(verdict_rows([
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
for model, claim in (("mlp", "table6_sgd_mlp_accuracy"), ("cnn", "table6_sgd_conv_accuracy")):
    acc, sec = cifar[model]
    diff = acc.mean - CLAIMS[claim].value
    glue(f"bl_c10_{model}_acc", acc.mean)
    glue(f"bl_c10_{model}_vs_paper", abs(diff))
    glue(f"bl_c10_{model}_words", by_sign(diff, "above", "below", "level with"))
    glue(f"bl_c10_{model}_s", sec.mean)
cnn_curve = curve_of("cifar10/sgd-cnn", cifar_cnn_epochs)
last_gain = float(cnn_curve.accuracy.iloc[-1] - cnn_curve.accuracy.iloc[-2]) if len(cnn_curve) > 1 else float("nan")
glue("bl_c10_cnn_last_gain", abs(last_gain))
glue("bl_c10_cnn_last_words", by_sign(last_gain, "gained", "lost", "changed by"))
glue("bl_c10_cnn_time_words", by_sign(cifar["cnn"][1].mean - 181.0, "longer than", "shorter than", "as long as"))

# %% [markdown]
# Our raw-pixel MLP reaches {glue:text}`bl_c10_mlp_acc:.2f` % in {glue:text}`bl_c10_mlp_s:.0f` s of
# training, {glue:text}`bl_c10_mlp_vs_paper:.2f` points {glue:text}`bl_c10_mlp_words` the paper's 52 %;
# our CNN reaches {glue:text}`bl_c10_cnn_acc:.2f` % in {glue:text}`bl_c10_cnn_s:.0f` s
# ({glue:text}`bl_c10_cnn_time_words` the paper's 181 s on its i7),
# {glue:text}`bl_c10_cnn_vs_paper:.2f` points {glue:text}`bl_c10_cnn_words` the paper's 70 %. In its
# last epoch the CNN {glue:text}`bl_c10_cnn_last_words` {glue:text}`bl_c10_cnn_last_gain:.2f` points of
# test accuracy (the curves below), so a longer schedule would move its accuracy by about that much per
# epoch at first: the paper's "SGD + Conv" number depends on a schedule and an architecture it does not
# give.

# %%
fig, ax = plt.subplots(figsize=(7.5, 4.2))
for model, label, n_epochs, claim in (("mlp", f"SGD MLP 3072-{cifar_mlp_hidden}-10", cifar_mlp_epochs,
                                       "table6_sgd_mlp_accuracy"),
                                      ("cnn", "SGD CNN", cifar_cnn_epochs, "table6_sgd_conv_accuracy")):
    series = "SGD MLP" if model == "mlp" else "SGD CNN"
    c = curve_of(f"cifar10/sgd-{model}", n_epochs)
    ax.plot(c.epochs, c.accuracy, "o-" if model == "mlp" else "s-", color=colour(series), label=f"{label} (ours)")
    ax.fill_between(c.epochs, c.accuracy - c.sd, c.accuracy + c.sd, color=colour(series), alpha=0.25)
    ax.axhline(CLAIMS[claim].value, color=colour(series), ls="--", lw=1,
               label=f"paper, {'SGD (MLP)' if model == 'mlp' else 'SGD + Conv'} (Table VI)")
ax.axhline(paper.FIG_SCALING_BASELINES["cifar10"], color=colour("SGD CNN"), ls=":", lw=1,
           label="paper, CNN line of the scaling figure")
ax.set(xlabel="epochs of SGD", ylabel="test accuracy (%)", title="CIFAR-10, raw pixels")
ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1), frameon=False, fontsize=9)
fig.tight_layout()
plt.show()

# %% [markdown]
# ## What this chapter settles
#
# The MNIST and Fashion-MNIST baselines are the paper's networks with our optimiser settings; the
# scorecard gives each verdict. The speed-up is a ratio of two timings on one machine, and the
# "comparable" claim is decided by a stated equivalence test, not by eye. The CIFAR-10 networks are
# ours, so their accuracies are shown beside the paper's for information; they are the baselines
# every other chapter of this book uses.
