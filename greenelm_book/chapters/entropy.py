"""The entropy chapter's loops, records, figures and claim answers ("Weight entropy and the MNIST Sea").

The statistics themselves (the paper's histogram entropy, the symmetry G, Hoyer's sparsity, ...)
live in :mod:`greenelm_book.chapters.weight_statistics`, which :mod:`greenelm_book.chapters.trained` imports; the chapter's
machinery, which reads trained models, is therefore a module of its own.

The weight sets of one seed, named by :func:`labels`: the Green-ELM readouts ``W2`` (d, 10) of the
pinv and ridge solvers at the headline width, and the SGD layers as (n_in, n_out) matrices — the
MLP's hidden ``W1`` (784, 64) and readout ``W2`` (64, 10), the perceptron's ``W`` (784, 10).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .baselines import MLP_HIDDEN
from .weight_statistics import histogram_entropy, near_zero_fraction, quantile_symmetry, weight_statistics
from ..judging.rejudge import answer_as_scorecard
from ..report import colour, judge_qualitative, not_comparable, not_measurable
from .trained import elm_run, owned_result, sgd_run
from ..judging.verdicts import conjunction, mean_beyond_bound

#: Hoyer's sparsity of a large Laplace sample (1 − 1/√2): sparser than this is "sparse"
LAPLACE_HOYER = 1 - 1 / np.sqrt(2)
#: a Laplace distribution's excess kurtosis: heavier-tailed than this is not "broadly distributed"
LAPLACE_KURTOSIS = 3.0
#: bits: "high entropy" is within this much of a Gaussian sample of the same size
HIGH = 0.5
#: the statistics recorded per weight set: column of :func:`seed_statistics` → (key suffix, unit)
QUANTITIES = {"column_entropy": ("column-entropy", "bits"), "matched_entropy": ("matched-entropy", "bits"),
              "hoyer": ("hoyer-sparsity", ""), "near_zero": ("near-zero-fraction", ""),
              "kurtosis": ("excess-kurtosis", ""), "column_symmetry": ("column-symmetry", "")}


# ----------------------------------------------------------------------------- names and settings
def labels() -> dict[str, str]:
    """Short name → the label of a weight set in tables and figures ("pinv", "cholesky", "mlp.0",
    "mlp.2", "perceptron.": model kind, a dot, the torch layer name)."""
    return {"pinv": "Green-ELM W2, pinv", "cholesky": "Green-ELM W2, ridge",
            "mlp.0": f"SGD MLP hidden W1 (784×{MLP_HIDDEN})", "mlp.2": f"SGD MLP readout W2 ({MLP_HIDDEN}×10)",
            "perceptron.": "SGD perceptron W (784×10)"}


def result_keys(dataset: str, width: int) -> dict[str, str]:
    """Label → the results-store key prefix of that weight set (Green-ELM readouts at ``width``)."""
    keys = {"pinv": f"{dataset}/green-elm/unit/pinv/d={width}/readout",
            "cholesky": f"{dataset}/green-elm/unit/cholesky/d={width}/readout",
            "mlp.0": f"{dataset}/sgd-mlp/hidden-weights", "mlp.2": f"{dataset}/sgd-mlp/readout-weights",
            "perceptron.": f"{dataset}/sgd-perceptron/weights"}
    return {label: keys[short] for short, label in labels().items()}


def series() -> dict[str, str]:
    """Label → the book's colour series (:func:`greenelm_book.report.colour`) of that weight set."""
    names = labels()
    return {names["pinv"]: "Green-ELM (pinv)", names["cholesky"]: "Green-ELM (ridge)", names["mlp.0"]: "SGD MLP",
            names["mlp.2"]: "SGD MLP", names["perceptron."]: "SGD perceptron"}


def setting_of(label: str, *, dataset: str, n_train: int, seeds, width: int, alpha: float, epochs: int,
               **more) -> dict:
    """The full setting of a statistic of the weight set ``label`` (the model's configuration, plus ``more``)."""
    common = dict(dataset=dataset, n_train=n_train, seeds=list(seeds), **more)
    if label.startswith("Green-ELM"):
        solver = "pinv" if "pinv" in label else "cholesky"
        return dict(model="Green-ELM", weight_scale="unit", solver=solver, n_hidden=width,
                    alpha=0.0 if solver == "pinv" else alpha, matrix="readout W2", **common)
    return dict(model="SGD " + ("MLP" if "MLP" in label else "perceptron"), epochs=epochs,
                hidden=MLP_HIDDEN if "MLP" in label else 0, matrix=label.split(" (")[0].split(" ")[-1], **common)


# ----------------------------------------------------------------------------- the models and their weights
def train(dataset: str, seeds, widths, pinv_widths, alpha: float, epochs: int, subset: int | None):
    """``(elm, sgd)``: Green-ELM runs keyed (solver, d, seed) — pinv at ``pinv_widths``, ridge
    (Cholesky, ``alpha``) at ``widths``, W ~ N(0, 1) — and SGD runs keyed (kind, seed) for the
    MLP and the perceptron (:func:`greenelm_book.chapters.trained.elm_run` / ``sgd_run``, cached)."""
    elm = {(solver, d, s): elm_run(dataset, d, s, solver, alpha, "unit", subset)
           for solver, ws in (("pinv", pinv_widths), ("cholesky", widths)) for d in ws for s in seeds}
    sgd = {(kind, s): sgd_run(dataset, kind, s, epochs, subset) for kind in ("mlp", "perceptron") for s in seeds}
    return elm, sgd


def weight_sets(readouts: dict, sgd: dict, seed: int, width: int) -> dict[str, np.ndarray]:
    """The named weight matrices (n_in, n_out) of ``seed``: Green-ELM readouts at ``width``
    (``readouts[solver, width, seed]``), then every SGD layer (``sgd[kind, seed]["weights"]``)."""
    names = labels()
    sets = {names[solver]: readouts[solver, width, seed] for solver in ("pinv", "cholesky")}
    for kind in ("mlp", "perceptron"):
        for layer, W in sgd[kind, seed]["weights"].items():
            sets[names[f"{kind}.{layer}"]] = W
    return sets


def accuracy_table(store, elm: dict, sgd: dict, *, dataset: str, width: int, seeds, n_train: int,
                   epochs: int) -> pd.DataFrame:
    """Test accuracy (%) of the four models, from their owning chapters' results where those agree
    with ours (:func:`greenelm_book.chapters.trained.owned_result`), else ours (unrecorded).

    One row per model: model, test accuracy (%), sd (points), from chapter, why (the reason the
    owner's result was not used, "" when it was), key (the owner's result key).
    """
    rows = []
    for label, owner, key, own in (
            (f"Green-ELM pinv, d = {width}", "random_features", f"{dataset}/green-elm/unit/pinv/d={width}/accuracy",
             [elm["pinv", width, s] for s in seeds]),
            (f"Green-ELM ridge, d = {width}", "random_features",
             f"{dataset}/green-elm/unit/cholesky/d={width}/accuracy", [elm["cholesky", width, s] for s in seeds]),
            (f"SGD MLP 784-{MLP_HIDDEN}-10", "baselines", f"{dataset}/sgd-mlp/accuracy", [sgd["mlp", s] for s in seeds]),
            ("SGD perceptron", "baselines", f"{dataset}/sgd-perceptron/accuracy", [sgd["perceptron", s] for s in seeds])):
        ours = np.array([r["accuracy"][0] for r in own])
        expected = dict(n_train=n_train, seeds=list(seeds)) | ({"epochs": epochs} if owner == "baselines" else {})
        result, why = owned_result(store, owner, key, ours=ours, **expected)
        rows.append({"model": label, "test accuracy (%)": result.mean if result else ours.mean(),
                     "sd (points)": result.sd if result else ours.std(ddof=1),
                     "from chapter": owner.replace("_", " ") if result else "this chapter", "why": why, "key": key})
    return pd.DataFrame(rows)


# ----------------------------------------------------------------------------- statistics and records
def seed_statistics(readouts: dict, sgd: dict, seeds, width: int, bins, n_match: int, draws: int) -> pd.DataFrame:
    """:func:`greenelm_book.chapters.weight_statistics.weight_statistics` of every weight set of every seed (subsets
    drawn with the seed), plus ``seed`` and ``kurtosis`` (excess kurtosis of all the set's weights)."""
    import scipy.stats

    stats = pd.concat([weight_statistics(weight_sets(readouts, sgd, s, width), bins, n_match=n_match, draws=draws,
                                         seed=s).assign(seed=s) for s in seeds], ignore_index=True)
    stats["kurtosis"] = [scipy.stats.kurtosis(weight_sets(readouts, sgd, s, width)[name].ravel())
                         for name, s in zip(stats["set"], stats["seed"])]
    return stats


def record_statistics(store, stats: pd.DataFrame, *, bins: int, n_match: int, draws: int, **setting) -> dict:
    """Record each weight set's :data:`QUANTITIES` at ``bins`` (K), one value per seed; returns
    {(label, column): Result}. A set too small for ``n_match`` records no matched entropy.
    ``setting``: dataset, n_train, seeds, width, alpha, epochs (as :func:`setting_of`)."""
    keys = result_keys(setting["dataset"], setting["width"])
    head = stats[stats.bins == bins]
    rec = {}
    for name in dict.fromkeys(stats["set"]):
        rows = head[head.set == name].sort_values("seed")
        for col, (quantity, unit) in QUANTITIES.items():
            if col == "matched_entropy" and rows[col].isna().any():
                continue
            extra = {"bins": bins} if "entropy" in col else {}
            extra |= {"subset_size": n_match, "draws": draws} if col == "matched_entropy" else {}
            rec[name, col] = store.record(f"{keys[name]}/{quantity}", rows[col], unit,
                                          **setting_of(name, statistic=quantity, **extra, **setting))
    return rec


#: the Gaussian reference of one readout column (d values), named so that it is never read as the other one
GAUSSIAN_COLUMN_WORDS = "a Gaussian column of d values"


def gaussian_sample_words(n: int) -> str:
    """The Gaussian reference of a sample of ``n`` weights, as its tables and verdicts name it (a column's
    reference, :data:`GAUSSIAN_COLUMN_WORDS`, is another quantity): ``"a Gaussian sample of 640 weights"``."""
    return f"a Gaussian sample of {n} weights"


def entropy_table(rec: dict, stats: pd.DataFrame, bins: int, n_match: int) -> pd.DataFrame:
    """Per weight set at K = ``bins``: size, mean entropy per column, of ``n_match`` random weights,
    and of ``n_match`` Gaussian values (bits)."""
    head = stats[stats.bins == bins]
    return pd.DataFrame([{"weights": name, "size": int(head.loc[head.set == name, "size"].iloc[0]),
                          "H per column (bits)": rec[name, "column_entropy"].mean,
                          f"H, {n_match} weights (bits)": rec[name, "matched_entropy"].mean,
                          f"H, {gaussian_sample_words(n_match)} (bits)": head.loc[head.set == name, "gaussian_matched_entropy"].mean()}
                         for name in dict.fromkeys(stats["set"])])


def shape_table(rec: dict, names) -> pd.DataFrame:
    """Per weight set: mean Hoyer sparsity, % of weights below 1 % of the largest, excess kurtosis, G."""
    return pd.DataFrame([{"weights": name, "Hoyer sparsity": rec[name, "hoyer"].mean,
                          "share below 1 % of max |w| (%)": 100 * rec[name, "near_zero"].mean,
                          "excess kurtosis": rec[name, "kurtosis"].mean,
                          "G (symmetry)": rec[name, "column_symmetry"].mean} for name in names])


def bins_for(stats: pd.DataFrame, target: float, name: str, col: str) -> float:
    """The K (interpolated in log2 K) at which the mean over seeds of ``stats[col]`` for the weight
    set ``name`` crosses ``target``; NaN outside its range or when the curve is not increasing."""
    curve = stats[stats.set == name].groupby("bins")[col].mean()
    x, y = np.log2(curve.index.to_numpy(float)), curve.to_numpy()
    return float(2 ** np.interp(target, y, x)) if y.min() <= target <= y.max() and np.all(np.diff(y) > 0) else np.nan


def regime_statistics(readouts: dict, bins: int, draws: int) -> pd.DataFrame:
    """Per Green-ELM readout (solver, n_hidden, seed): mean column entropy at K = ``bins``, that of
    a Gaussian vector of d values, and their difference ``deficit`` (bits); sorted."""
    rows = []
    for (solver, width, s), W in readouts.items():
        row = weight_statistics({"W2": W}, [bins], draws=draws, seed=s).iloc[0]
        rows.append({"solver": solver, "n_hidden": width, "seed": s, "column_entropy": row.column_entropy,
                     "gaussian_column_entropy": row.gaussian_column_entropy})
    regimes = pd.DataFrame(rows).sort_values(["solver", "n_hidden", "seed"])
    regimes["deficit"] = regimes["gaussian_column_entropy"] - regimes["column_entropy"]
    return regimes


def record_deficits(store, regimes: pd.DataFrame, *, dataset: str, n_train: int, seeds, alpha: float,
                    bins: int) -> dict:
    """Record the column-entropy deficit of every (solver, width) regime; {(solver, width): Result}."""
    out = {}
    for (solver, width), r in regimes.groupby(["solver", "n_hidden"]):
        out[solver, width] = store.record(
            f"{dataset}/green-elm/unit/{solver}/d={width}/readout/column-entropy-deficit", r["deficit"], "bits",
            dataset=dataset, n_train=n_train, seeds=list(seeds), model="Green-ELM", weight_scale="unit",
            solver=solver, n_hidden=int(width), alpha=0.0 if solver == "pinv" else alpha, matrix="readout W2",
            bins=bins, statistic="Gaussian column entropy minus column entropy")
    return out


def regime_table(regimes: pd.DataFrame) -> pd.DataFrame:
    """Per (solver, width): mean column entropy, Gaussian reference, deficit (bits) and seeds."""
    return pd.DataFrame([{"solver": solver, "width d": int(width), "H per column (bits)": r.column_entropy.mean(),
                          f"H, {GAUSSIAN_COLUMN_WORDS} (bits)": r.gaussian_column_entropy.mean(),
                          "deficit (bits)": r.deficit.mean(), "seeds": len(r)}
                         for (solver, width), r in regimes.groupby(["solver", "n_hidden"], sort=False)])


def ridge_gap(readouts: dict, widths, seeds) -> float:
    """Largest |ridge − pinv| readout difference relative to the pinv readout's largest weight,
    over ``widths`` solved by both and ``seeds``."""
    return max(np.abs(readouts["cholesky", d, s] - readouts["pinv", d, s]).max() / np.abs(readouts["pinv", d, s]).max()
               for d in widths for s in seeds)


def column_points(matrices, bins: int):
    """Per column: mean and sd over seeds of (H, G), and the (seeds, 10) arrays H and G;
    ``matrices``: one (n_in, 10) matrix per seed."""
    H = np.stack([histogram_entropy(W, bins, axis=0) for W in matrices])
    G = np.stack([quantile_symmetry(W, axis=0) for W in matrices])
    return H.mean(0), G.mean(0), H.std(0, ddof=1), G.std(0, ddof=1), H, G


def digit_medians(y, H, G) -> pd.DataFrame:
    """Per digit: number of images, median H and median G of the images (y, H, G: (n,))."""
    return pd.DataFrame({"digit": y, "H": H, "G": G}).groupby("digit").agg(
        n=("H", "size"), median_H=("H", "median"), median_G=("G", "median")).reset_index()


def record_digit_medians(store, by_digit: pd.DataFrame, *, dataset: str, n_test: int, bins: int) -> dict:
    """Record each digit's median image entropy (bits); {digit: Result}."""
    return {int(r.digit): store.record(f"{dataset}/test-images/digit={int(r.digit)}/median-entropy", [r.median_H],
                                       "bits", dataset=dataset, n_test=n_test, digit=int(r.digit), bins=bins,
                                       statistic="median histogram entropy of the images' pixel values")
            for r in by_digit.itertuples()}


# ----------------------------------------------------------------------------- figures
def plot_entropy_against_bins(stats: pd.DataFrame, bins, n_match: int, paper_entropy: float):
    """The 2 × 2 figure of histogram entropy against K (all weights, per column, ``n_match``
    random weights; legend in the fourth panel); mean ± 2 sd over seeds. Returns the figure."""
    import matplotlib.pyplot as plt

    names, colours = labels(), series()
    set_order = list(dict.fromkeys(stats["set"]))
    fig, axes = plt.subplots(2, 2, figsize=(11, 8.5), sharey=True)
    panels = [("entropy", "all weights of the matrix"), ("column_entropy", "per column (output unit), averaged"),
              ("matched_entropy", f"{n_match} random weights of each matrix")]
    markers = dict(zip(set_order, "o s ^ v D".split()))
    for ax, (col, title) in zip(axes.flat, panels):
        for name in set_order:
            c = stats[stats.set == name].groupby("bins")[col].agg(["mean", "std"]).reset_index()
            ridge, hidden = name == names["cholesky"], name == names["mlp.0"]
            ax.errorbar(c["bins"], c["mean"], yerr=2 * c["std"].fillna(0), marker=markers[name],
                        ms=7 if ridge else 5, capsize=3, label=name, color=colour(colours[name]),
                        ls="--" if ridge else (":" if hidden else "-"), mfc="none" if ridge else None)
        if col == "matched_entropy":
            g = stats[stats.set == set_order[0]].groupby("bins")["gaussian_matched_entropy"].mean()
            ax.plot(g.index, g.values, "--", color="0.5", label=f"Gaussian, n = {n_match}")
        ax.plot(bins, np.log2(bins), ":", color="k", lw=1, label="log2 K (ceiling)")
        ax.axhline(paper_entropy, color="k", lw=0.8, ls="-.", label="paper: H ≈ 7.1 (K not given)")
        ax.set(xscale="log", xlabel="number of bins K", ylabel="histogram entropy (bits)", title=title)
        ax.minorticks_off()
        ax.set_xticks(bins, [str(k) for k in bins], fontsize=9)
    axes[1, 1].axis("off")
    axes[1, 1].legend(*axes[1, 0].get_legend_handles_labels(), loc="center", fontsize=10, frameon=False)
    fig.tight_layout()
    return fig


def plot_regimes(regimes: pd.DataFrame, widths, bins: int, paper_entropy: float):
    """Per-column entropy at K = ``bins`` against the width d for both solvers (mean ± 2 sd), with
    the Gaussian reference. Returns the figure."""
    import matplotlib.pyplot as plt

    names, colours = labels(), series()
    fig, ax = plt.subplots(figsize=(7.5, 4.3))
    for i, solver in enumerate(["pinv", "cholesky"]):
        c = regimes[regimes.solver == solver].groupby("n_hidden")["column_entropy"].agg(["mean", "std"])
        ax.errorbar(c.index * (1.03 if i else 1), c["mean"], yerr=2 * c["std"].fillna(0), marker="os"[i], capsize=3,
                    label=names[solver], color=colour(colours[names[solver]]), ls="-" if i == 0 else "--")
    g = regimes[regimes.solver == "cholesky"].groupby("n_hidden")["gaussian_column_entropy"].mean()
    ax.plot(g.index, g.values, "--", color="0.5", label="Gaussian vector of d values")
    ax.axhline(paper_entropy, color="k", lw=0.8, ls="-.", label="paper: H ≈ 7.1 (K not given)")
    ax.set(xscale="log", xlabel="width d", ylabel=f"per-column entropy, K = {bins} (bits)")
    ax.minorticks_off()
    ax.set_xticks(widths, [str(w) for w in widths])
    ax.legend(fontsize=9, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    return fig


def plot_sea(H_img, G_img, y_test, points: dict, paper_point: tuple[float, float], bins: int, width: int):
    """The reconstructed MNIST Sea: test images (H, G) coloured by digit, and per digit the columns
    of each ``points`` entry (name → (marker, :func:`column_points`)) with ± 2 sd bars; the paper's
    caption point as a cross. Returns the figure."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(10, 6.5))
    digit_colors = plt.cm.tab10(np.arange(10))
    for d in range(10):
        mask = y_test == d
        ax.scatter(H_img[mask], G_img[mask], s=4, alpha=0.35, color=digit_colors[d], lw=0, label=f"digit {d}")
    for name, (marker, pts) in points.items():
        h, g, hs, gs = pts[:4]
        for d in range(10):
            ax.errorbar(h[d], g[d], xerr=2 * hs[d], yerr=2 * gs[d], fmt=marker, ms=15 if marker == "*" else 7,
                        color=digit_colors[d], mec="k", mew=0.7, ecolor="k", elinewidth=0.8, capsize=2,
                        label=name if d == 0 else None)
    ax.plot([paper_point[0]], [paper_point[1]], "x", color="k", ms=12, mew=2,
            label="paper's caption (H ≈ 7.1, G ≈ 0.98)")
    ax.set(xlabel=f"entropy H of the values (bits, K = {bins})", ylabel="G: symmetry of the value distribution",
           title=f"The MNIST Sea (reconstruction): {len(y_test):,} test images, Green-ELM d = {width}")
    ax.legend(fontsize=9, ncol=1, loc="upper left", bbox_to_anchor=(1.01, 1.0), markerscale=1.5, frameon=False)
    return fig


# ----------------------------------------------------------------------------- the claims
def compare_means(a, b) -> str:
    """'higher' / 'lower' / 'indistinguishable': mean(a) − mean(b) (two Results) against
    2 √(sd_a² + sd_b²)."""
    band = 2 * np.hypot(a.sd, b.sd)
    return "higher" if a.mean - b.mean > band else "lower" if b.mean - a.mean > band else "indistinguishable"


def every_comparison(outcomes, want: str = "higher"):
    """Whether ``want`` holds against every matrix, from :func:`compare_means`' outcomes: True when every
    one is ``want``, False when one is decidedly the other side (it refutes "every" alone), else None
    (undecided: an indistinguishable pair decides nothing)."""
    outcomes = list(outcomes)
    other = {"higher": "lower", "lower": "higher"}[want]
    if all(o == want for o in outcomes):
        return True
    return False if other in outcomes else None


def comparison_counts(outcomes) -> str:
    """:func:`compare_means`' outcomes counted: "higher than 0, lower than 1, indistinguishable from 2"."""
    outcomes = list(outcomes)
    return ", ".join(f"{word} {outcomes.count(o)}" for o, word in
                     (("higher", "higher than"), ("lower", "lower than"), ("indistinguishable", "indistinguishable from")))


def short_name(label: str) -> str:
    """A weight set's label without its shape and the "SGD " prefix: "MLP hidden W1"."""
    return label.split(" (")[0].replace("SGD ", "")


#: where a mean lies against its bar, by the 95 % interval over seeds (True: below it, as "dense" and "broad" need)
SIDE_WORDS = {True: "below", False: "above", None: "on neither side, by its 95 % interval over seeds, of"}

#: a part's outcome (True, False, None: undecided) in the chapter's words
PART_WORDS = {"dense": {True: "dense", False: "sparse", None: "undecided: the interval crosses the bar"},
              "broad": {True: "broad", False: "heavy-tailed", None: "undecided: the interval crosses the bar"},
              "sparse": {True: "sparse", False: "dense", None: "undecided: the interval crosses the bar"}}


#: the near-zero share against a Gaussian's, by the 95 % interval over seeds (True: above it)
NEAR_ZERO_WORDS = {True: "more than, by its 95 % interval over seeds,", False: "fewer than, by its 95 % interval over seeds,",
                   None: "on neither side, by its 95 % interval over seeds, of"}


def near_zero_side(fractions, gaussian_percent: float) -> bool | None:
    """Whether the share of weights below 1 % of the largest (``fractions``: per seed, 0–1) lies above a
    Gaussian sample's (``gaussian_percent``, %) by the 95 % interval of its mean over seeds (True), below it
    (False), or neither (None): the chapter's one interval rule (:func:`~greenelm_book.judging.verdicts.
    mean_beyond_bound`), as for density and breadth."""
    verdict = mean_beyond_bound({"Green-ELM W2": [100 * f for f in fractions]}, gaussian_percent, "above",
                                what="share below 1 % of the largest (%)")
    return part_outcome(verdict)


def part_outcome(verdict) -> bool | str | None:
    """A threshold part's outcome from its :func:`~greenelm_book.judging.verdicts.mean_beyond_bound` verdict:
    True (holds), False (does not hold), "partly" (some datasets), None (an interval straddles the bar)."""
    return {"holds": True, "does not hold": False, "partly holds": "partly"}.get(verdict.label)


def answer_claims(store, rec: dict, stats: pd.DataFrame, deficits: dict, digit_rec: dict, *, claim: dict,
                  bins, headline_bins: int, n_match: int, width: int, stars, H_img, by_digit: pd.DataFrame) -> dict:
    """Answer the chapter's twelve claims in ``store`` (tests stated in each verdict) and return
    the facts the prose quotes (dense, broad, gauss_matched, n_higher).

    ``rec``: :func:`record_statistics`; ``deficits``: :func:`record_deficits`; ``digit_rec``:
    :func:`record_digit_medians`; ``stars``: :func:`column_points` of the pinv readouts; ``H_img``:
    the test images' entropies; ``claim``: :data:`greenelm_book.paper.ENTROPY`.
    """
    K, elm_name = headline_bins, labels()["pinv"]
    sgd_names = [n for n in dict.fromkeys(stats["set"]) if n.startswith("SGD")]
    short = {n: short_name(n) for n in sgd_names}
    col_H, col_G = rec[elm_name, "column_entropy"], rec[elm_name, "column_symmetry"]
    store.answer("mnist_sea_stars_entropy", not_comparable(
        f"the paper does not give K; ours at K = {K} (one bin per grey level), d = {width}, pinv",
        claim["sea_stars_entropy"], col_H.values, "bits"), keys=[col_H.key])
    store.answer("mnist_sea_stars_geometry", not_comparable(
        "the paper never defines G; ours is a reconstruction (quantile symmetry of the column's values)",
        claim["sea_stars_geometry"], col_G.values, "", digits=3), keys=[col_G.key])

    hoyer_elm, kurt_elm = rec[elm_name, "hoyer"], rec[elm_name, "kurtosis"]
    dense_v = mean_beyond_bound({"Green-ELM W2": hoyer_elm.values}, LAPLACE_HOYER, "below", what="Hoyer sparsity",
                                digits=3)
    broad_v = mean_beyond_bound({"Green-ELM W2": kurt_elm.values}, LAPLACE_KURTOSIS, "below", what="excess kurtosis")
    dense, broad = part_outcome(dense_v), part_outcome(broad_v)
    store.answer("weights_dense", judge_qualitative(
        conjunction([dense, broad]),
        test=f"dense: Hoyer sparsity below {LAPLACE_HOYER:.3f} (a Laplace's); broadly distributed: excess kurtosis "
             f"below {LAPLACE_KURTOSIS:g} (a Laplace's); each side of its bar decided by the 95 % interval of the "
             "mean over seeds (an interval across the bar decides nothing); both → holds, one refuted → partly, "
             "an undecided part and none refuted → inconclusive",
        ours=f"{dense_v.ours} ({PART_WORDS['dense'][dense]}); {broad_v.ours} ({PART_WORDS['broad'][broad]})"),
        keys=[hoyer_elm.key, kurt_elm.key], note=f"Green-ELM pinv W2, d = {width}, W ~ N(0, 1)")

    matched_elm = rec[elm_name, "matched_entropy"]
    matched_keys = [matched_elm.key] + [rec[n, "matched_entropy"].key for n in sgd_names]
    cmp = {n: compare_means(matched_elm, rec[n, "matched_entropy"]) for n in sgd_names}
    per_K = {n: sum(stats[(stats.bins == k) & (stats.set == elm_name)]["matched_entropy"].mean()
                    > stats[(stats.bins == k) & (stats.set == n)]["matched_entropy"].mean() for k in bins)
             for n in sgd_names}
    n_higher = sum(c == "higher" for c in cmp.values())
    every_higher = every_comparison(cmp.values())
    store.answer("mnist_sea_distributed_over_sgd", judge_qualitative(
        conjunction([every_higher]),
        test=f"entropy of {n_match} random weights at K = {K}: Green-ELM W2 higher than every SGD matrix by more "
             f"than 2 combined sd; one matrix lower by that much refutes it, an indistinguishable one decides nothing "
             f"(Green-ELM's W2 against the {len(cmp)}: {comparison_counts(cmp.values())})",
        ours="; ".join(f"vs {short[n]}: {matched_elm.mean - rec[n, 'matched_entropy'].mean:+.2f} bits ({cmp[n]}; "
                       f"higher at {per_K[n]}/{len(bins)} K)" for n in sgd_names)), keys=matched_keys)

    head = stats[stats.bins == K]
    gauss_matched = float(head.loc[head.set == elm_name, "gaussian_matched_entropy"].mean())
    high = part_outcome(mean_beyond_bound({"Green-ELM W2": [gauss_matched - v for v in matched_elm.values]}, HIGH,
                                          "below", what="entropy deficit"))
    store.answer("high_entropy_no_feature_pruning", judge_qualitative(
        conjunction([high, every_higher]),
        test=f"high: the entropy of {n_match} random W2 weights within {HIGH} bit of a Gaussian sample's (the 95 % "
             f"interval of the deficit's mean over seeds below {HIGH}; one across it decides nothing); and "
             f"higher than every SGD matrix's entropy on the same number of weights (one lower by 2 combined sd "
             f"refutes it, an indistinguishable one decides nothing); both → holds, one → partly",
        ours=f"{matched_elm.mean:.2f} bits against {gauss_matched:.2f} for {gaussian_sample_words(n_match)}; against the "
             f"{len(sgd_names)} SGD matrices: {comparison_counts(cmp.values())}"), keys=matched_keys)

    # both stated parts, each over every SGD matrix: sparse (Hoyer) and low-entropy (lower than Green-ELM's W2
    # by the entropy comparison above, on the same number of weights)
    sparse = {n: part_outcome(mean_beyond_bound({short[n]: rec[n, "hoyer"].values}, LAPLACE_HOYER, "above",
                                                what="Hoyer sparsity", digits=3)) for n in sgd_names}
    # cmp: Green-ELM's W2 against the SGD matrix; an indistinguishable pair decides nothing (None)
    low = [{"higher": True, "lower": False}.get(cmp[n]) for n in sgd_names]
    sgd_side = {"higher": "lower than", "lower": "higher than"}
    store.answer("mnist_sea_sgd_filters_sparse", judge_qualitative(
        conjunction([*sparse.values(), *low]),
        test=f"sparse: Hoyer sparsity above {LAPLACE_HOYER:.3f} (a Laplace's), by the 95 % interval of its mean over "
             f"seeds (one across the bar decides nothing); low-entropy: the entropy of {n_match} "
             f"random weights at K = {K} lower than Green-ELM W2's by more than 2 combined sd; each part over every "
             "SGD weight matrix (an entropy indistinguishable from W2's decides nothing); both parts on every matrix → "
             "holds, a part failing on one matrix and none passing → does not hold, some passing and some failing → "
             "partly (an undecided matrix moves neither side), none failing and one undecided → inconclusive",
        ours="; ".join(f"{short[n]}: Hoyer {rec[n, 'hoyer'].mean:.3f} ({PART_WORDS['sparse'][sparse[n]]}), entropy "
                       f"{sgd_side.get(cmp[n], 'indistinguishable from')} Green-ELM W2's"
                       for n in sgd_names)),
        keys=[rec[n, "hoyer"].key for n in sgd_names] + matched_keys)

    gaps = {k: r.mean for k, r in deficits.items()}
    within = [part_outcome(mean_beyond_bound({" ".join(map(str, k)) if isinstance(k, tuple) else str(k): r.values},
                                             HIGH, "below", what="deficit")) for k, r in deficits.items()]
    store.answer("high_entropy_all_regimes", judge_qualitative(
        conjunction(within),
        test=f"per-column entropy (K = {K}) within {HIGH} bit of a Gaussian vector of d values (the 95 % interval of "
             f"the deficit's mean over seeds below {HIGH}; one across it decides nothing), in every solver × width "
             "regime; an undecided regime moves neither side, and decides the claim (inconclusive) only where none failed",
        ours=f"{sum(w is True for w in within)} of {len(gaps)} regimes within, {sum(w is None for w in within)} "
             f"undecided; deficits {min(gaps.values()):.2f} to "
             f"{max(gaps.values()):.2f} bits"), keys=[r.key for r in deficits.values()])

    star_H_min, sample_H_max = float(stars[4].min()), float(np.max(H_img))
    answer_as_scorecard(store, "sea_stars_apart_from_digits", judge_qualitative(
        star_H_min > sample_H_max, test="every star's H above every test image's H",
        ours=f"lowest star {star_H_min:.2f} bits, highest image {sample_H_max:.2f} bits (an image has at most 256 "
             f"grey levels; the separation follows from what is measured)"), [col_H.key])
    lowest = int(by_digit.loc[by_digit["median_H"].idxmin(), "digit"])
    answer_as_scorecard(store, "sea_ones_low_entropy_island", judge_qualitative(
        lowest == 1, test="digit 1 has the lowest median image entropy",
        ours=f"lowest: digit {lowest} ({by_digit['median_H'].min():.2f} bits); the 1s {digit_rec[1].mean:.2f}"),
        [r.key for r in digit_rec.values()])
    answer_unmeasured(store, width)
    return {"dense": dense, "broad": broad, "gauss_matched": gauss_matched, "n_higher": n_higher}


def answer_unmeasured(store, width: int) -> None:
    """The claims about information storage: two not measurable here, and the count of stored
    numbers (Green-ELM readout of ``width`` units, with and without W, b, against the SGD MLP)."""
    store.answer("information_dense_no_compression", not_measurable(
        "the Information Bottleneck's compression phase is a trajectory of mutual information I(X; T) during "
        "iterative training; a one-shot solve has no trajectory, and a weight histogram's entropy is not a mutual "
        "information"))
    store.answer("cross_correlations_not_templates", not_measurable(
        "the paper gives no test: W2 = H⁺Y depends on every training row's features by construction, and no "
        "'template memorising' alternative is defined to measure against"))
    elm_params = width * 10 + 10
    w_params = 784 * width + width
    mlp_params = 784 * MLP_HIDDEN + MLP_HIDDEN + MLP_HIDDEN * 10 + 10
    store.answer("heavier_information_storage", judge_qualitative(
        "partly", test="stored numbers: Green-ELM readout (and W, b when stored) against the SGD MLP's parameters; "
                       "heavier with W stored, lighter when W is regenerated from its seed",
        ours=f"readout {elm_params:,}; with W and b {elm_params + w_params:,}; MLP {mlp_params:,}"
    ) if elm_params < mlp_params < elm_params + w_params else judge_qualitative(
        elm_params >= mlp_params, test="stored numbers: Green-ELM readout against the SGD MLP's parameters",
        ours=f"readout {elm_params:,}; MLP {mlp_params:,}"))


def prose_numbers(store, rec: dict, stats: pd.DataFrame, facts: dict, *, headline_bins: int, width: int,
                  n_match: int, seeds: int, seed: int) -> dict:
    """name → value of every number and phrase the verdicts paragraph quotes (for ``glue``);
    ``facts``: what :func:`answer_claims` returned; ``seed``: of the Gaussian references."""
    elm_name = labels()["pinv"]
    sgd_names = [n for n in dict.fromkeys(stats["set"]) if n.startswith("SGD")]
    short = {n: short_name(n) for n in sgd_names}
    head = stats[stats.bins == headline_bins]
    answers = store.answers
    dense, broad, kurt_elm = facts["dense"], facts["broad"], rec[elm_name, "kurtosis"]
    size = int(head.loc[head.set == elm_name, "size"].iloc[0])
    gauss_near = 100 * near_zero_fraction(np.random.default_rng(seed).standard_normal(size))
    counts = pd.Series([a.verdict.label for a in answers.values()]).value_counts()
    return {**{f"v_{cid}": a.verdict.label for cid, a in answers.items()},
            "star_H": rec[elm_name, "column_entropy"].text(2), "star_G": rec[elm_name, "column_symmetry"].text(3),
            "elm_matched": rec[elm_name, "matched_entropy"].mean,
            "sgd_matched": ", ".join(f"{short[n]} {rec[n, 'matched_entropy'].mean:.2f}" for n in sgd_names),
            "elm_hoyer": rec[elm_name, "hoyer"].mean, "laplace_hoyer": LAPLACE_HOYER, "elm_kurtosis": kurt_elm.mean,
            "sgd_kurtosis": ", ".join(f"{short[n]} {rec[n, 'kurtosis'].mean:.1f}" for n in sgd_names),
            "elm_near_zero": 100 * rec[elm_name, "near_zero"].mean, "gauss_near_zero": gauss_near,
            "dense_words": SIDE_WORDS[dense], "dense_reading": {True: "dense", False: "sparse",
                                                                 None: "neither shown dense nor sparse"}[dense],
            "broad_words": SIDE_WORDS[broad],
            "broad_reading": {True: "broadly distributed",
                              False: "a narrow bulk under a few very large weights, not a broad distribution",
                              None: "the seeds spread too widely to say whether the tails are heavier than a "
                                    "Laplace's"}[broad],
            "near_zero_words": NEAR_ZERO_WORDS[near_zero_side(rec[elm_name, "near_zero"].values, gauss_near)],
            # a ranking of means, no side judged (its seeds may spread over the others' values): said as such
            "tails_rank": ("has the largest mean excess kurtosis of the sets compared, a ranking of means with no "
                           "side judged"
                           if all(kurt_elm.mean > rec[n, "kurtosis"].mean for n in sgd_names) else
                           "does not have the largest mean excess kurtosis of the sets compared"),
            "gauss_col": float(head.loc[head.set == elm_name, "gaussian_column_entropy"].mean()),
            "gauss_G": float(np.mean([quantile_symmetry(r)
                                      for r in np.random.default_rng(seed).standard_normal((20, width))])),
            "n_match": n_match, "n_seeds": seeds,
            "verdict_counts": ", ".join(f"{v} {k}" for k, v in counts.items()), "n_claims": len(answers)}
