"""The rotation chapter's models, records, figure and claim answers ("Robustness to rotation").

:func:`prepare` trains (once per seed, cached by :mod:`greenelm_book.chapters.trained`) the Green-ELMs and
the SGD models the chapter compares and returns a :class:`Setup`: the models, their runs and the
configuration every record's setting repeats. Accuracies are in %, differences in points, angles
in degrees; every array of runs is (seeds,).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .baselines import MLP_HIDDEN
from .perturb import paired_difference
from ..judging.rejudge import answer_as_scorecard
from ..report import Verdict, by_sign, colour, judge_qualitative
from .trained import at_angle, elm_run, owned_result, sgd_run
from ..judging.verdicts import all_some_none, equivalent_accuracy, value_vs_paper


def model_specs(width: int, widths) -> dict[str, tuple[str, dict]]:
    """Name → (colour series, spec) of every model: the pinv Green-ELM at ``width``, ridge at each
    of ``widths``, ridge with W ~ N(0, 2/D) at ``width``, the SGD perceptron and MLP."""
    return {
        f"Green-ELM pinv, d = {width}": ("Green-ELM (pinv)", dict(kind="elm", n_hidden=width, solver="pinv",
                                                                  weight_scale="unit")),
        **{f"Green-ELM ridge, d = {d}": ("Green-ELM (ridge)", dict(kind="elm", n_hidden=d, solver="cholesky",
                                                                    weight_scale="unit")) for d in widths},
        f"Green-ELM ridge, d = {width}, W ~ N(0, 2/D)": ("Green-ELM (ridge, He)", dict(
            kind="elm", n_hidden=width, solver="cholesky", weight_scale="he")),
        "SGD perceptron": ("SGD perceptron", dict(kind="sgd", model="perceptron")),
        f"SGD MLP 784-{MLP_HIDDEN}-10": ("SGD MLP", dict(kind="sgd", model="mlp")),
    }


@dataclass
class Setup:
    """The chapter's models and runs: ``models`` as :func:`model_specs`, ``runs`` name → one run
    per seed (:func:`greenelm_book.chapters.trained.elm_run` / ``sgd_run`` dicts)."""

    dataset: str
    width: int
    seeds: list
    alpha: float
    epochs: int
    models: dict
    runs: dict

    @property
    def elm(self) -> str:
        """The headline model: the pinv Green-ELM at ``width``."""
        return f"Green-ELM pinv, d = {self.width}"

    slp = "SGD perceptron"

    @property
    def mlp(self) -> str:
        return f"SGD MLP 784-{MLP_HIDDEN}-10"

    @property
    def n_train(self) -> int:
        return self.runs[self.elm][0]["n_train"]

    @property
    def n_test(self) -> int:
        return self.runs[self.elm][0]["n_test"]

    def acc(self, name: str, angle) -> np.ndarray:
        """Per-seed accuracy (%) of model ``name`` at ``angle``: (seeds,)."""
        return np.array([at_angle(r, angle) for r in self.runs[name]])

    def key(self, name: str) -> str:
        """The results-store key prefix of model ``name``."""
        spec = self.models[name][1]
        if spec["kind"] == "elm":
            return f"{self.dataset}/green-elm/{spec['weight_scale']}/{spec['solver']}/d={spec['n_hidden']}"
        return f"{self.dataset}/sgd-{spec['model']}"

    def setting(self, name: str, **more) -> dict:
        """The full setting of a result of model ``name`` (plus ``more``)."""
        spec = dict(self.models[name][1])
        kind = spec.pop("kind")
        base = dict(dataset=self.dataset, n_train=self.n_train, n_test=self.n_test, seeds=self.seeds, **spec)
        if kind == "elm":
            base.update(model="Green-ELM", alpha=0.0 if spec["solver"] == "pinv" else self.alpha)
        else:
            base.update(model=f"SGD {spec['model']}", epochs=self.epochs,
                        hidden=MLP_HIDDEN if spec["model"] == "mlp" else 0)
        return {**base, **more}


def prepare(dataset: str, seeds, widths, width: int, alpha: float, epochs: int, subset: int | None) -> Setup:
    """Train (or read from the cache) every model of :func:`model_specs` for each seed."""
    models = model_specs(width, widths)
    runs = {}
    for name, (_, spec) in models.items():
        if spec["kind"] == "elm":
            runs[name] = [elm_run(dataset, spec["n_hidden"], s, spec["solver"], alpha, spec["weight_scale"], subset)
                          for s in seeds]
        else:
            runs[name] = [sgd_run(dataset, spec["model"], s, epochs, subset) for s in seeds]
    return Setup(dataset, width, list(seeds), alpha, epochs, models, runs)


# ----------------------------------------------------------------------------- records and tables
def clean(store, setup: Setup, name: str):
    """``(result, source, why)``: model ``name``'s accuracy at 0° from its owning chapter when that
    agrees with our runs, else ``(None, "this chapter", reason)``."""
    kind = setup.models[name][1]["kind"]
    owner = "random_features" if kind == "elm" else "baselines"
    expected = dict(n_train=setup.n_train, seeds=setup.seeds) | ({"epochs": setup.epochs} if kind == "sgd" else {})
    result, why = owned_result(store, owner, f"{setup.key(name)}/accuracy", ours=setup.acc(name, 0), **expected)
    if result is not None:
        return result, owner.replace("_", " "), ""
    return None, "this chapter", why


def record_rotated(store, setup: Setup, angles) -> dict:
    """Record every model's accuracy at every angle > 0; {name: {angle: Result}}."""
    return {name: {a: store.record(f"{setup.key(name)}/rotated/angle={a}/accuracy", setup.acc(name, a), "%",
                                   **setup.setting(name, rotation_degrees=a))
                   for a in angles if a > 0} for name in setup.models}


def models_table(setup: Setup, cleans: dict, rotated: dict, theta: int) -> pd.DataFrame:
    """Per model: accuracy at 0° (owner's result, else ours) with its sd, at ``theta``, and its source."""
    return pd.DataFrame([{
        "model": name,
        "accuracy at 0° (%)": (res.mean if res is not None else setup.acc(name, 0).mean()),
        "sd (points)": (res.sd if res is not None else setup.acc(name, 0).std(ddof=1)),
        f"accuracy at {theta}° (%)": rotated[name][theta].mean,
        "0° from chapter": source} for name, (res, source, _) in cleans.items()])


def record_advantages(store, setup: Setup, theta: int):
    """Record each Green-ELM's advantage (points, paired by seed) over the perceptron and the MLP at
    0° and ``theta``. Returns (table, {(elm, sgd): (advantage at 0° (seeds,), Result at theta,
    paired_difference of the losses from 0° to theta (mean, low, high)})}."""
    rows, out = [], {}
    acc = setup.acc
    for against in (setup.slp, setup.mlp):
        for name in [n for n in setup.models if setup.models[n][1]["kind"] == "elm"]:
            adv0, adv = acc(name, 0) - acc(against, 0), acc(name, theta) - acc(against, theta)
            vs = setup.key(against).split("/")[-1]
            store.record(f"{setup.key(name)}/vs-{vs}/angle=0/advantage", adv0, "points",
                         **setup.setting(name, rotation_degrees=0, versus=against, versus_epochs=setup.epochs))
            rec = store.record(f"{setup.key(name)}/vs-{vs}/angle={theta}/advantage", adv, "points",
                               **setup.setting(name, rotation_degrees=theta, versus=against,
                                               versus_epochs=setup.epochs))
            beyond = paired_difference(acc(against, 0) - acc(against, theta), acc(name, 0) - acc(name, theta))
            out[name, against] = (adv0, rec, beyond)
            rows.append({"versus": against, "Green-ELM": name.replace("Green-ELM ", ""),
                         "at 0° (points)": adv0.mean(), f"at {theta}° (points)": rec.mean,
                         "beyond clean gap (points)": beyond[0], "seeds": len(adv)})
    return pd.DataFrame(rows), out


def decay(setup: Setup, angles):
    """Extra loss from 0° of each SGD model over the pinv Green-ELM at each angle > 0 (paired, points).
    Returns (table, {(sgd, angle): (mean, low, high)} with the 95 % CI)."""
    rows, ci = [], {}
    acc, elm = setup.acc, setup.elm
    for against in (setup.slp, setup.mlp):
        for a in [a for a in angles if a > 0]:
            mean, lo, hi = paired_difference(acc(against, 0) - acc(against, a), acc(elm, 0) - acc(elm, a))
            ci[against, a] = (mean, lo, hi)
            rows.append({"angle (°)": a, "versus": against, "extra loss of SGD (points)": mean,
                         "95 % CI low": lo, "95 % CI high": hi})
    return pd.DataFrame(rows), ci


def plot_accuracy_and_retention(setup: Setup, shown, angles, theta: int):
    """Accuracy (left) and retention acc(θ)/acc(0°) (right) against the angle for the models
    ``shown``, mean ± 2 sd over seeds; a vertical line at ``theta``. Returns the figure."""
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(11, 4.4))
    for ax, retain, label in ((axes[0], False, "test accuracy (%)"),
                              (axes[1], True, "retention acc(θ) / acc(0°) (%)")):
        for name in shown:
            values = np.array([100 * setup.acc(name, a) / setup.acc(name, 0) if retain else setup.acc(name, a)
                               for a in angles])        # (angles, seeds)
            mean, sd = values.mean(1), values.std(1, ddof=1)
            spec = setup.models[name][1]
            dashed = spec["kind"] == "sgd" or spec["solver"] == "cholesky"
            ax.plot(angles, mean, ls="--" if dashed else "-", marker="o", ms=4, color=colour(setup.models[name][0]),
                    label=name)
            ax.fill_between(angles, mean - 2 * sd, mean + 2 * sd, color=colour(setup.models[name][0]), alpha=0.15)
        ax.axvline(theta, color="k", lw=0.8)
        ax.set(xlabel="rotation of the test images (degrees)", ylabel=label, xticks=angles)
    fig.legend(*axes[0].get_legend_handles_labels(), loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=2,
               fontsize=10, frameon=False)
    fig.tight_layout()
    return fig


# ----------------------------------------------------------------------------- the claims
def comparable_clean(elm, slp):
    """The clean-accuracy test of "comparable performance on the canonical test set": the book's one
    test of "comparable" (:func:`~greenelm_book.judging.verdicts.equivalent_accuracy`, shared with every
    parallel claim) on the pinv Green-ELM's and the SGD perceptron's clean accuracies (runs (seeds,),
    %). Returns (verdict, comparable: equivalence shown, apart: the gap shown beyond the margin)."""
    verdict = equivalent_accuracy(elm, slp, names=("Green-ELM", "SGD perceptron"))
    return verdict, verdict.label == "holds", verdict.label == "does not hold"


def answer_claims(store, setup: Setup, *, claim: dict, angles, cleans: dict, rotated: dict, advantages: dict,
                  decay_ci: dict) -> dict:
    """Answer the chapter's six claims in ``store``; returns the facts the prose quotes (gap0,
    comparable, apart, n_ahead, n_fast, faster). ``claim``: :data:`greenelm_book.paper.ROTATION_CLAIM`;
    the rest as returned by :func:`clean`, :func:`record_rotated`, :func:`record_advantages`, :func:`decay`."""
    acc, ELM, SLP, MLP, H = setup.acc, setup.elm, setup.slp, setup.mlp, setup.width
    theta, max_angle = claim["angle"], angles[-1]
    test_angles = [a for a in angles if a > 0]
    clean_keys = [f"{setup.key(n)}/accuracy" for n in (ELM, SLP, MLP) if cleans[n][0] is not None]
    rot_keys = [rotated[n][a].key for n in (ELM, SLP, MLP) for a in test_angles]
    gap0 = paired_difference(acc(ELM, 0), acc(SLP, 0))
    verdict, comparable, apart = comparable_clean(acc(ELM, 0), acc(SLP, 0))
    store.answer("rotation_clean_comparable", verdict,
                 keys=clean_keys + [f"{setup.key(ELM)}/vs-sgd-perceptron/angle=0/advantage"],
                 note=f"MNIST, {setup.n_train} training images, Green-ELM W ~ N(0, 1), SGD {setup.epochs} epochs")
    faster = {(m, a): decay_ci[m, a][1] > 0 for m in (SLP, MLP) for a in test_angles}
    n_faster = {m: sum(faster[m, a] for a in test_angles) for m in (SLP, MLP)}
    n_fast = n_faster[SLP]
    # each SGD model decays faster at every tested angle: "rapid decay" and "more robust" rest on the same test
    robust = {m: n_faster[m] == len(test_angles) for m in (SLP, MLP)}
    store.answer("rotation_sgd_rapid_decay", judge_qualitative(
        all_some_none(robust.values()),
        test="at every tested angle each SGD model (the perceptron and Table I's MLP, tested part by part) loses "
             "more accuracy from 0° than the pinv Green-ELM (95 % CI of the paired difference above 0)",
        ours=f"the perceptron faster at {n_fast} of {len(test_angles)} angles ({decay_ci[SLP, theta][0]:+.2f} points "
             f"more at {theta}°, {decay_ci[SLP, max_angle][0]:+.2f} at {max_angle}°); the MLP at "
             f"{n_faster[MLP]} of {len(test_angles)}"),
        keys=rot_keys + clean_keys, note=f"Green-ELM pinv d = {H}, W ~ N(0, 1); angles {test_angles}")
    answer_as_scorecard(store, "rotation_benchmark_angle", judge_qualitative(
        True, test="a setting rather than a result: the chapter evaluates every model at the paper's 15°",
        ours=f"15° is among our angles {angles[0]}–{angles[-1]}°"), [rotated[ELM][theta].key])
    adv_slp = advantages[ELM, SLP][1]
    store.answer("rotation_advantage_15deg", value_vs_paper(claim["advantage_vs_sgd_perceptron"], adv_slp.values,
                                                         "points"),
                 keys=[adv_slp.key], note=f"pinv Green-ELM d = {H}, W ~ N(0, 1), against the SGD perceptron "
                                          f"({setup.epochs} epochs), paired by seed")
    ahead = {(m, a): paired_difference(acc(ELM, a), acc(m, a))[1] > 0 for m in (SLP, MLP) for a in angles}
    n_ahead = sum(ahead[SLP, a] for a in angles)
    store.answer("rotation_higher_across_range", judge_qualitative(
        all_some_none(all(ahead[m, a] for a in angles) for m in (SLP, MLP)),
        test=f"at every tested angle ({angles[0]}–{angles[-1]}°) the pinv Green-ELM is more accurate than each SGD "
             f"model (the perceptron and Table I's MLP, tested part by part; 95 % CI of the paired difference above 0)",
        ours=f"ahead at {n_ahead} of {len(angles)} angles; against the MLP at "
             f"{sum(ahead[MLP, a] for a in angles)} of {len(angles)}"),
        keys=rot_keys + clean_keys, note=f"Green-ELM pinv d = {H}")
    answer_as_scorecard(store, "more_robust_to_rotation", judge_qualitative(
        all_some_none(robust.values()),
        test="more robust = loses fewer points from 0° at every tested angle than each SGD model "
             "(perceptron and Table I's MLP; 95 % CI of the paired difference)",
        ours=f"than the perceptron: {'yes' if robust[SLP] else 'no'} ({n_fast}/{len(test_angles)} angles); than "
             f"the MLP: {'yes' if robust[MLP] else 'no'} ({n_faster[MLP]}/{len(test_angles)} angles)"),
        rot_keys + clean_keys, results=[cleans[n][0] for n in (ELM, SLP, MLP) if cleans[n][0] is not None],
        note=f"Green-ELM pinv d = {H}")
    return {"gap0": gap0, "comparable": comparable, "apart": apart, "n_ahead": n_ahead, "n_fast": n_fast,
            "faster": faster}


def prose_numbers(store, setup: Setup, facts: dict, *, theta: int, angles, advantages: dict) -> dict:
    """name → value of every number and phrase the closing paragraphs quote (for ``glue``);
    ``facts``: what :func:`answer_claims` returned."""
    acc, ELM, SLP, MLP, H = setup.acc, setup.elm, setup.slp, setup.mlp, setup.width
    adv0_slp, adv_slp, beyond_slp = advantages[ELM, SLP]
    adv0_mlp, adv_mlp, beyond_mlp = advantages[ELM, MLP]
    test_angles = [a for a in angles if a > 0]
    comparable, apart, faster = facts["comparable"], facts["apart"], facts["faster"]
    verdict = store.answers["rotation_advantage_15deg"].verdict
    pinv_ridge_gap = float(np.abs(acc(ELM, theta) - acc(f"Green-ELM ridge, d = {H}", theta)).max())
    return {
        "headline_width": H, "theta": theta, "adv_slp_15": adv_slp.mean, "adv_slp_0": float(adv0_slp.mean()),
        "beyond_slp": abs(beyond_slp[0]), "adv_mlp_15": abs(adv_mlp.mean), "adv_mlp_0": abs(float(adv0_mlp.mean())),
        "beyond_mlp": abs(beyond_mlp[0]), "adv_verdict": verdict.label, "adv_detail": verdict.detail,
        "clean_elm": float(acc(ELM, 0).mean()), "clean_slp": float(acc(SLP, 0).mean()),
        "clean_mlp": float(acc(MLP, 0).mean()), "gap0": facts["gap0"][0],
        "start_level": "start level, as the paper says" if comparable else
        "do not start level, contrary to the paper's \"comparable performance on the canonical test set\"" if apart
        else "may or may not start level (our seeds cannot tell within ± 1 point)",
        "ahead_slp": f"{facts['n_ahead']} of {len(angles)}", "fast_slp": f"{facts['n_fast']} of {len(test_angles)}",
        "fast_mlp": f"{sum(faster[MLP, a] for a in test_angles)} of {len(test_angles)}",
        "beyond_slp_words": by_sign(beyond_slp[0], "more", "less"),
        "beyond_mlp_words": by_sign(beyond_mlp[0], "more", "less"),
        "mlp_lead_words": by_sign(float(adv0_mlp.mean()), "ahead of", "behind"),
        "mlp_lead_15_words": by_sign(adv_mlp.mean, "ahead of", "behind"),
        "pinv_ridge": (f"Ridge and the pseudoinverse give practically the same models here (their 15° accuracies "
                       + (f"differ by at most {pinv_ridge_gap:.2f} points per seed" if pinv_ridge_gap >= 0.005 else
                          "are equal on every seed, to 0.01 points")
                       + "): with W ~ N(0, 1) the hidden activations are large and λ = 1e-3 barely regularises.")
        if pinv_ridge_gap <= 0.5 else
        (f"Ridge and the pseudoinverse differ here by up to {pinv_ridge_gap:.2f} points per seed at 15° (see the "
         f"tables below)."),
    }
