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
# # Robustness to rotation
#
# The paper's "Structural Resilience Comparison" {cite}`silva2026greenelm` trains Green-ELM and a
# single-layer perceptron (SLP) with SGD on upright MNIST digits {cite}`lecun1998gradient`, then
# rotates the test digits. It reports that both models "achieve comparable performance on the
# canonical test set", that SGD "exhibits a rapid decay in accuracy under rotation", and that "at
# the 15° benchmark, Green-ELM retains a ≈ 7 % accuracy advantage". The figure itself is missing
# from the paper's source, so the caption's numbers are all there is to check; the paper does not
# say which width d, weight scale or solver its Green-ELM used.
#
# We rotate the 10,000 MNIST test images about their centre by 0° to 45° (torchvision's `rotate`,
# bilinear, corners filled with black) and evaluate, over seeds, models trained once on the upright
# training images:
#
# - Green-ELM at several widths d, with both weight scales (W ~ N(0, 1), the paper's code, and
#   N(0, 2/D), its text), Cholesky on the λ = 1e-3 normal equations;
# - the SLP of the paper: softmax regression 784 → 10 trained with SGD;
# - the 784-64-10 MLP of Table I, trained with SGD: the baseline the paper's speed claims use.
#
# A careful reader will ask two more things, answered below: is the 15° advantage more than the
# clean-accuracy gap the models start with, and does it hold against the MLP too?

# %% tags=["parameters"]
profile = "smoke"
seed = 0
subset = 2000  # first `subset` MNIST train and test images (None: all)
seeds = 2
widths = [500, 1000]
weight_scales = ["unit", "he"]
sgd_models = ["perceptron", "mlp"]
epochs = 10
max_angle = 45
angle_step = 15
headline_width = 1000

# %%
import os

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")  # idle torch threads sleep instead of spinning
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from myst_nb import glue

from greenelm import paper
from greenelm.baselines import MLP_HIDDEN, SGDConfig
from greenelm.data import load_dataset
from greenelm.perturb import elm_learner, rotate, rotation_sweep, sgd_learner
from greenelm.report import VERDICT_RULE, mean_sd, set_style, summarize, verdict

set_style()
claim = paper.ROTATION_CLAIM
seed_list = list(range(seed, seed + seeds))
angles = list(range(0, max_angle + 1, angle_step))
mnist = load_dataset(claim["dataset"], subset=subset)
print(f"profile={profile}: {len(mnist.y_train)} train / {len(mnist.y_test)} test images, "
      f"angles {angles[0]}..{angles[-1]} step {angle_step}, seeds {seed_list}")

# %% [markdown]
# What the models see: a test digit at each angle.

# %%
fig, axes = plt.subplots(1, len(angles), figsize=(1.1 * len(angles), 1.5))
for ax, angle in zip(axes, angles):
    ax.imshow(rotate(mnist.x_test[:1], angle).reshape(28, 28), cmap="gray_r", vmin=0, vmax=1)
    ax.set_title(f"{angle}°", fontsize=9)
    ax.axis("off")
plt.show()

# %% [markdown]
# ## Accuracy against the rotation angle
#
# Every model is trained once per seed and evaluated at every angle.

# %%
SLP, MLP = "SGD perceptron", f"SGD MLP 784-{MLP_HIDDEN}-10"
config = SGDConfig(epochs=epochs)
learners, models = {}, []
for d in widths:
    for scale in weight_scales:
        name = f"Green-ELM d={d}, W {scale}"
        learners[name] = elm_learner(d, scale)
        models.append({"model": name, "family": "Green-ELM", "n_hidden": d, "weight_scale": scale})
for kind in sgd_models:
    name = {"perceptron": SLP, "mlp": MLP}[kind]
    learners[name] = sgd_learner(kind, config)
    models.append({"model": name, "family": "SGD", "n_hidden": MLP_HIDDEN if kind == "mlp" else 0,
                   "weight_scale": "—"})
models = pd.DataFrame(models)
runs = rotation_sweep(mnist, learners, angles, seed_list)
curves = summarize(runs, ["model", "angle"])
models.merge(summarize(runs[runs.angle == 0], ["model"]), on="model").merge(
    summarize(runs[runs.angle == 0], ["model"], "train_seconds"), on="model", suffixes=("", "_seconds")
).rename(columns={"mean": "clean accuracy", "mean_seconds": "train seconds"}).round(2)

# %% [markdown]
# Retention $\mathrm{acc}(\theta)/\mathrm{acc}(0°)$ takes the clean accuracy out: a model that is
# more robust to rotation keeps a larger fraction of what it had. Both panels show the mean over
# seeds with a ± 2 sd band.

# %%
clean = runs[runs.angle == 0].set_index(["model", "seed"])["accuracy"]
runs["retention"] = 100 * runs["accuracy"] / clean.loc[list(zip(runs.model, runs.seed))].to_numpy()
retention = summarize(runs, ["model", "angle"], "retention")
fig, axes = plt.subplots(1, 2, figsize=(13, 4.8))
palette = {"Green-ELM": plt.cm.viridis, "SGD": plt.cm.Greys}
for ax, table, label in ((axes[0], curves, "test accuracy (%)"),
                         (axes[1], retention, "retention: acc(θ) / acc(0°) (%)")):
    for i, m in enumerate(models.itertuples()):
        c = table[table.model == m.model]
        style = dict(ls="--", marker="s") if m.family == "SGD" else dict(ls="-", marker="o", ms=3)
        color = "C3" if m.model == SLP else ("0.35" if m.family == "SGD" else f"C{i % 3}")
        alpha = 1.0 if m.family == "SGD" or m.weight_scale == "unit" else 0.55
        line, = ax.plot(c["angle"], c["mean"], color=color, alpha=alpha, label=m.model, **style)
        if m.family == "Green-ELM" and m.weight_scale == "he":
            line.set_linestyle(":")
        band = 2 * c["sd"].fillna(0)
        ax.fill_between(c["angle"], c["mean"] - band, c["mean"] + band, color=line.get_color(), alpha=0.15)
    ax.axvline(claim["angle"], color="k", lw=0.8)
    ax.set(xlabel="rotation of the test images (degrees)", ylabel=label, xticks=angles)
axes[0].legend(fontsize=7, ncol=2)
fig.tight_layout()
plt.show()

# %% [markdown]
# ## The paper's claim at 15°
#
# The advantage is Green-ELM's accuracy minus the SGD perceptron's on the same rotated images, for
# the same seed index (independent runs, so the sd over seeds covers both models' spread). The
# paper's ≈ 7 is read as percentage points. Verdict rule: {glue:text}`verdict_rule`.

# %%
glue("verdict_rule", VERDICT_RULE, display=False)


def advantage(frame, against, value="accuracy"):
    """Per seed and angle: each Green-ELM model's `value` minus the `against` model's."""
    base = frame[frame.model == against].set_index(["seed", "angle"])[value]
    elms = frame[frame.model.str.startswith("Green-ELM")]
    return elms.assign(advantage=elms[value].to_numpy() - base.loc[list(zip(elms.seed, elms.angle))].to_numpy())


at = runs[runs.angle.isin([0, claim["angle"]])]
rows = []
for against in [m for m in (SLP, MLP) if m in learners]:
    points = summarize(advantage(at, against), ["model", "angle"], "advantage")
    ratio = summarize(advantage(at, against, "retention"), ["model", "angle"], "advantage")
    for m in models[models.family == "Green-ELM"].itertuples():
        clean_adv = points.query("model == @m.model and angle == 0").iloc[0]
        adv = points.query("model == @m.model and angle == @claim['angle']").iloc[0]
        ret = ratio.query("model == @m.model and angle == @claim['angle']").iloc[0]
        rows.append({"against": against, "model": m.model, "n_hidden": m.n_hidden,
                     "weight_scale": m.weight_scale,
                     "advantage at 0°": mean_sd(clean_adv["mean"], clean_adv["sd"]),
                     f"advantage at {claim['angle']}°": mean_sd(adv["mean"], adv["sd"]),
                     "beyond clean gap": adv["mean"] - clean_adv["mean"],
                     "retention advantage": mean_sd(ret["mean"], ret["sd"]),
                     "mean": adv["mean"], "sd": adv["sd"], "n": adv["n"],
                     "verdict (paper: 7)": verdict(claim["advantage_vs_sgd_perceptron"], adv["mean"], adv["sd"])
                     if against == SLP else "—"})
claim_table = pd.DataFrame(rows)
claim_table.drop(columns=["mean", "sd"]).round(2)

# %% [markdown]
# "beyond clean gap" is the 15° advantage minus the 0° advantage, i.e. how much more accuracy the
# competitor loses than Green-ELM between 0° and 15° (in points); "retention advantage" is the
# difference of the two models' retention acc(15°)/acc(0°) (in percent of their clean accuracy).
# Both are ≈ 0 when the advantage at 15° is only the clean-accuracy gap carried along.

# %%
# NBVAL_CHECK_OUTPUT
for m in curves[curves.angle.isin([0, claim["angle"], angles[-1]])].itertuples():
    print(f"{m.model:28s} {int(m.angle):2d}°  accuracy {m.mean:5.1f} %")

# %%
head = claim_table[(claim_table.n_hidden == headline_width) & (claim_table.weight_scale == "unit")]
head_slp = head[head.against == SLP].iloc[0] if SLP in learners else None
head_mlp = head[head.against == MLP].iloc[0] if MLP in learners else None
glue("headline_model", f"Green-ELM d={headline_width}, W unit", display=False)
if head_slp is not None:
    glue("adv_slp_15", head_slp[f"advantage at {claim['angle']}°"], display=False)
    glue("adv_slp_0", head_slp["advantage at 0°"], display=False)
    glue("beyond_slp", f"{head_slp['beyond clean gap']:+.2f}", display=False)
    glue("ret_slp", head_slp["retention advantage"], display=False)
    glue("claim_verdict", head_slp["verdict (paper: 7)"], display=False)
if head_mlp is not None:
    glue("adv_mlp_15", head_mlp[f"advantage at {claim['angle']}°"], display=False)
    glue("adv_mlp_0", head_mlp["advantage at 0°"], display=False)
    glue("beyond_mlp", f"{head_mlp['beyond clean gap']:+.2f}", display=False)
slp_rows = claim_table[claim_table.against == SLP]
glue("n_configs_reproduced", f"{int((slp_rows['verdict (paper: 7)'] == 'reproduced').sum())} of {len(slp_rows)}"
     if len(slp_rows) else "none", display=False)
glue("adv_range", f"{slp_rows['mean'].min():.1f} to {slp_rows['mean'].max():.1f}" if len(slp_rows) else "—",
     display=False)
slp_clean = curves.query("model == @SLP and angle == 0")["mean"]
glue("slp_clean", f"{slp_clean.iloc[0]:.2f}" if len(slp_clean) else "—", display=False)
elm_clean = curves.query("model == @head.model.iloc[0] and angle == 0")["mean"] if len(head) else []
glue("elm_clean", f"{elm_clean.iloc[0]:.2f}" if len(elm_clean) else "—", display=False)
clean_gap = float(elm_clean.iloc[0] - slp_clean.iloc[0]) if len(elm_clean) and len(slp_clean) else np.nan
glue("start_level", "start level, as the paper says" if abs(clean_gap) < 1
     else "do not start level, contrary to the paper's \"comparable performance on the canonical test set\"",
     display=False)
mlp_clean = curves.query("model == @MLP and angle == 0")["mean"]
glue("mlp_vs_slp", ("stronger" if mlp_clean.iloc[0] > slp_clean.iloc[0] else "weaker")
     if len(mlp_clean) and len(slp_clean) else "other", display=False)

# %% [markdown]
# **Verdict.** For {glue:text}`headline_model`, the advantage over the SGD perceptron at 15° is
# {glue:text}`adv_slp_15` points against the paper's ≈ 7: **{glue:text}`claim_verdict`**. Across
# all our Green-ELM configurations it ranges from {glue:text}`adv_range` points;
# {glue:text}`n_configs_reproduced` configurations reproduce the paper's ≈ 7 under the verdict rule.
#
# **Is it robustness or clean accuracy?** The two models {glue:text}`start_level`: on upright digits the perceptron scores
# {glue:text}`slp_clean` % and the Green-ELM {glue:text}`elm_clean` %, an advantage of
# {glue:text}`adv_slp_0` points before any rotation. Of the 15° advantage,
# {glue:text}`beyond_slp` points are left once that clean gap is subtracted, and the difference in
# retention is {glue:text}`ret_slp` % of the clean accuracy.
#
# **Against the MLP.** The 784-64-10 MLP trained with SGD (Table I's baseline) is the
# {glue:text}`mlp_vs_slp` gradient-trained model on upright digits: Green-ELM's advantage over it is {glue:text}`adv_mlp_0` points on upright
# digits and {glue:text}`adv_mlp_15` points at 15° ({glue:text}`beyond_mlp` beyond the clean gap).
# The paper's conclusion that the pseudoinverse solution is "more robust to the tested rotation
# perturbations" than iterative training should therefore be read with the table above: it depends
# on which SGD model is the comparison and on whether robustness is measured in points or relative
# to what each model had on upright digits.
