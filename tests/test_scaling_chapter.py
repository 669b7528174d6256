"""greenelm_book.chapters.scaling: the scaling chapter's records, answers and tables, on tiny hand-made
inputs (no Green-ELM is fitted here)."""

from __future__ import annotations

import functools
import math

import numpy as np
import pandas as pd
import pytest

from greenelm_book import paper
from greenelm_book.chapters import scaling as sc
from greenelm_book.judging import verdicts as V
from greenelm_book.judging.rejudge import scorecard_verdict
from greenelm_book.store.results import ChapterResults
from greenelm_book.chapters.scaling_law import calibrate_complexity, wide_ridge_paths

DATASETS = ["mnist", "fashion-mnist", "cifar10"]


def _dataset(key: str) -> str:
    return key.split("/", 1)[0]


def _plan(paper_widths=(500, 1000), held_out_widths=(1200, 1500), seeds=(0, 1), held_seeds=(0,), **changes):
    values = dict(profile="smoke", datasets=list(DATASETS), sizes={n: (100, 50) for n in DATASETS}, subset=100,
                  paper_widths=list(paper_widths), held_out_widths=list(held_out_widths), seeds=list(seeds),
                  held_seeds=list(held_seeds), alpha=1e-3, lambdas=[1e-3, 1.0, 1e3], local_above=1000,
                  loo_rows=50, condition_widths=[500, 1000])
    values.update(changes)
    return sc.ScalingPlan(**values)


@pytest.fixture
def store(tmp_path):
    return ChapterResults("scaling", "smoke", tmp_path)


def _two_seeds(mean: float) -> list:
    """Two runs with mean ``mean``: a point the seeds rule lets decide (one seed cannot decide alone)."""
    return [mean - 0.01, mean + 0.01]


def _acc(store, curves: dict) -> dict:
    """{(dataset, d): Result} from ``{(dataset, d): [accuracy per seed]}`` (recorded in ``store``)."""
    return {(n, d): store.record(sc.elm_key(n, d), values, "%", dataset=n) for (n, d), values in curves.items()}


# ------------------------------------------------------------------ the plan and Algorithm 2 on the paper
def test_plan_from_parameters_sorts_widths_and_expands_seeds():
    split = type("Split", (), {"y_train": np.zeros(7), "y_test": np.zeros(3)})()
    plan = sc.ScalingPlan.from_parameters(
        "smoke", {"mnist": split}, subset=7, paper_widths=[1000, 500], held_out_widths=[1500, 1200], seed=3,
        seeds=2, held_out_seeds=1, alpha=1e-3, lambdas=[1e-3, 1.0], lambda_local_above=1000, loo_rows=5,
        condition_widths=[500])
    assert plan.paper_widths == [500, 1000] and plan.all_widths == [500, 1000, 1200, 1500] and plan.d_max == 1500
    assert plan.seeds == [3, 4] and plan.held_seeds == [3]
    assert plan.data("mnist") == {"dataset": "mnist", "n_train": 7, "n_test": 3}
    assert plan.design_paper == "first d units of one width-1000 draw per seed"
    assert plan.design_wide == "first d units of one width-1500 draw per seed"
    glues = sc.width_glues(_plan(held_out_widths=[8000, 16000]))
    assert glues == {"paper_dmax": "1\u202f000", "d_max": "16\u202f000", "n_held_seeds": "1",
                     "held_widths_text": "8\u202f000 and 16\u202f000"}


def test_table3_from_the_paper_points_and_a_perturbed_one():
    widths, curves = sc.paper_figure_curves()
    assert widths == [500, 1000, 2000, 4000] and curves["mnist"].shape == (4,)
    table = sc.table3_reproduction(calibrate_complexity(widths, curves))
    assert list(table.columns) == ["parameter", "Table III", "Algorithm 2 on the figure's points"]
    assert list(table.parameter) == ["α", "β", "C (MNIST)", "C (Fashion-MNIST)", "C (CIFAR-10)"]
    assert sc.table3_matches(table)
    table.iloc[1, 2] += 0.001
    assert not sc.table3_matches(table)
    # the model misses the paper's non-anchor points; none when every curve is the anchor's exact line
    assert sc.worst_model_miss(calibrate_complexity(widths, curves), widths, curves) > 1.0
    same = {n: 0.6 + 0.04 * np.log(widths) for n in curves}
    assert sc.worst_model_miss(calibrate_complexity(widths, same), widths, same) == pytest.approx(0, abs=1e-9)


# ------------------------------------------------------------------ the curves
def test_wide_run_memoizes_under_the_chapters_name_and_params(monkeypatch):
    calls = []
    monkeypatch.setattr(sc, "memoize", lambda name, params, compute: calls.append((name, params, compute)) or
                        ({"hits": None}, {}))
    plan = _plan()
    assert sc.wide_run(plan, "mnist", 0, 1500, plan.all_widths, search=True) == {"hits": None}
    sc.wide_run(plan, "cifar10", 1, 1000, plan.paper_widths, search=False)
    (name, params, compute), (_, narrow, narrow_compute) = calls
    assert name == "scaling-wide"
    assert params == {"dataset": "mnist", "subset": 100, "d_max": 1500, "seed": 0, "widths": [500, 1000, 1200, 1500],
                      "alpha": 1e-3, "lambdas": [1e-3, 1.0, 1e3], "loo_rows": 50, "local_above": 1000,
                      "condition_widths": [500, 1000]}
    assert narrow["lambdas"] is None and narrow["condition_widths"] == [] and narrow["widths"] == [500, 1000]
    assert isinstance(compute, functools.partial) and compute.func is wide_ridge_paths
    assert compute.args == ("mnist", 100, 1500, 0, [500, 1000, 1200, 1500], 1e-3)
    assert compute.keywords == {"lambdas": [1e-3, 1.0, 1e3], "loo_rows": 50, "local_above": 1000,
                                "condition_widths": [500, 1000]}
    assert narrow_compute.keywords["lambdas"] is None


def _hits(*accuracies, n=4):
    """A run's (n_widths, n) hits with the given accuracies (fractions of n)."""
    return {"hits": np.array([[i < round(a * n) for i in range(n)] for a in accuracies])}


def test_record_curves_reads_random_features_and_records_cifar_and_held_out_widths(tmp_path):
    rf = ChapterResults("random_features", "smoke", tmp_path)
    for n in ("mnist", "fashion-mnist"):
        for d, v in ((500, [90.0, 91.0]), (1000, [92.0, 93.0])):
            rf.record(sc.elm_key(n, d), v, "%")
    store = ChapterResults("scaling", "smoke", tmp_path)
    plan = _plan()
    cifar_runs = [_hits(0.25, 0.5), _hits(0.5, 0.75)]
    widest = {n: [_hits(0.25, 0.5, 0.75, 1.0)] for n in DATASETS}
    acc = sc.record_curves(store, plan, cifar_runs, widest)
    assert acc["mnist", 1000].values == (92.0, 93.0) and "random_features:mnist/green-elm/unit/cholesky/d=1000/" \
        "accuracy" in store.reads
    nested = acc["cifar10", 500]
    assert nested.key == "cifar10/green-elm/unit/cholesky/nested-in-d=1000/d=500/accuracy"
    assert nested.values == (25.0, 50.0) and nested.setting["seeds"] == [0, 1]
    assert nested.setting["design"] == "first d units of one width-1000 draw per seed"
    held = acc["fashion-mnist", 1500]
    assert held.key == "fashion-mnist/green-elm/unit/cholesky/d=1500/accuracy" and held.values == (100.0,)
    assert held.setting["design"] == "first d units of one width-1500 draw per seed" and held.setting["seeds"] == [0]
    assert ("mnist", 1200) in acc and ("cifar10", 1000) in acc and len(acc) == 12
    curve = sc.curve_frame(acc)
    table = sc.curve_table(curve, DATASETS)
    assert list(table.columns) == ["d", "MNIST (%)", "Fashion (%)", "CIFAR-10 raw (%)", "seeds"]
    assert list(table.seeds) == ["2", "2", "1", "1"] and table.loc[0, "MNIST (%)"] == 90.5


def test_answer_figure_points_judges_measured_points_and_marks_the_rest(store):
    five = {("mnist", 500): [90.0, 90.1, 89.9, 90.0, 90.0], ("fashion-mnist", 500): [82.6, 82.7, 82.7, 82.65, 82.7],
            ("cifar10", 500): [40.0, 40.1, 39.9, 40.0, 40.0], ("mnist", 1000): [94.0, 94.1]}    # the rule needs 5 runs
    acc = _acc(store, five)
    rows = sc.answer_figure_points(store, acc, "smoke")
    assert list(rows.columns) == ["dataset", "d", "paper (%)", "ours (%)", "verdict"] and len(rows) == 4
    answers = store.answers
    assert answers["fig_scaling_mnist_d500_accuracy"].verdict.label == "differs, beyond margin"   # 89.2 outside
    assert answers["fig_scaling_fashion_d500_accuracy"].verdict.label == "reproduced"     # 82.67 inside
    assert answers["fig_scaling_mnist_d500_accuracy"].keys == (acc["mnist", 500].key,)
    assert answers["fig_scaling_cifar10_d500_accuracy"].verdict.label == "not comparable"
    assert answers["fig_scaling_mnist_d1000_accuracy"].verdict.label == "inconclusive"    # two runs only
    missing = answers["fig_scaling_mnist_d4000_accuracy"].verdict
    assert missing.label == "inconclusive" and missing.detail == "d = 4000 not measured in the smoke profile"


def test_answer_gains_records_the_per_seed_gain(store, tmp_path):
    acc = _acc(store, {("mnist", 500): [90.0] * 5, ("mnist", 2000): [97.9, 98.0, 98.1, 98.0, 98.0],
                       ("mnist", 4000): [98.0, 98.1, 98.2, 98.1, 98.1]})
    texts = sc.answer_gains(store, _plan(paper_widths=(500, 2000, 4000)), acc)
    gain = store.results["mnist/green-elm/unit/cholesky/gain-500-to-2000"]
    assert gain.values == pytest.approx((7.9, 8.0, 8.1, 8.0, 8.0)) and gain.setting["widths"] == [500, 2000]
    assert texts["gain_early"] == "+8.00 ± 0.07" and texts["gain_late"] == "+0.10 ± 0.00"
    assert store.answers["gain_d500_to_d2000"].verdict.label == "reproduced"
    assert store.answers["gain_d2000_to_d4000"].verdict.label.startswith("differs")
    other = ChapterResults("scaling", "smoke", tmp_path / "other")
    texts = sc.answer_gains(other, _plan(), _acc(other, {("mnist", 500): [90.0]}))
    assert texts["gain_late"] == "not measured (widths 2000, 4000 not in this profile)"
    assert other.answers["gain_d500_to_d2000"].verdict.label == "inconclusive"
    assert not any("gain" in key for key in other.results)


# ------------------------------------------------------------------ is it ln d?
WIDE = [500, 1000, 2000, 4000, 8000, 16000]


def _log_curve(d):
    return 80 + 2 * np.log(d)


def _saturating_curve(d):
    return 99 - 300 * np.power(d, -0.5)


@pytest.mark.parametrize("laws, label", [(("log", "log", "log"), "holds"), (("sat", "sat", "sat"), "does not hold"),
                                         (("log", "sat", "sat"), "partly holds")])
def test_held_out_test_records_and_answers(store, laws, label):
    plan = _plan(paper_widths=WIDE[:4], held_out_widths=WIDE[4:])
    law = {"log": _log_curve, "sat": _saturating_curve}
    acc = _acc(store, {(n, d): [float(law[k](d))] for n, k in zip(DATASETS, laws) for d in WIDE})
    tests = sc.record_held_out_tests(store, plan, acc)
    asymptote = store.results["mnist/green-elm/unit/cholesky/saturating-fit/asymptote"]
    assert asymptote.setting["fit_widths"] == WIDE[:4] and asymptote.setting["law"] == "a - b d^-c"
    summary = sc.held_out_summary(tests)
    assert summary["n_log"] == laws.count("log")
    assert summary["verdict_text"] == {3: "ln d predicts at least as well as the saturating law on every dataset",
                                       0: "the saturating law predicts better than ln d on every dataset",
                                       1: "the saturating law predicts better than ln d on 2 of 3 datasets"}[
                                           laws.count("log")]
    sc.answer_log_law(store, plan, summary)
    answer = store.answers["accuracy_near_logarithmic_in_d"]
    # one nested draw per dataset: by the seeds rule the held-out test cannot decide alone; what it
    # gives is kept for information
    assert answer.verdict.label == "inconclusive" and f"ln d no worse on {laws.count('log')} of 3" in answer.verdict.ours
    assert f"the test gives {label} (" in answer.verdict.detail and "(1 seed)" in answer.verdict.detail
    # the page's words follow that verdict: the count as what one draw per dataset gave, too few to decide
    # (finding 11 of issue 61's reading: "ln d predicts wider models worse … on 3 of 3" beside "inconclusive")
    words = sc.held_out_words(store, plan, summary)
    assert words == "neither law is judged the better predictor: one held-out draw per dataset is too few draws to decide"
    assert len(answer.keys) == 6
    table = sc.held_out_table(tests, plan)
    assert list(table.columns) == ["dataset", "d", "measured (%), one nested draw", "ln d predicts (%)",
                                   "saturating predicts (%)"]
    assert len(table) == 6
    if laws[0] == "log":
        assert table.loc[0, "ln d predicts (%)"] == pytest.approx(table.iloc[0, 2])
    assert "mean of 2 nested draws" in sc.held_out_table(tests, _plan(held_seeds=(0, 1))).columns[2]


@pytest.mark.parametrize("shapes, label", [(("sat", "sat", "sat"), "holds"), (("lin", "lin", "lin"), "does not hold"),
                                           (("sat", "lin", "lin"), "partly holds")])
def test_diminishing_returns(store, shapes, label):
    plan = _plan()
    curves = {"sat": [90.0, 92.0, 93.0, 93.5], "lin": [90.0, 91.0, 92.0, 93.0]}
    acc = _acc(store, {(n, d): _two_seeds(curves[s][i]) for n, s in zip(DATASETS, shapes)
                       for i, d in enumerate(plan.all_widths)})
    rows = sc.doubling_gains(sc.curve_frame(acc), DATASETS, plan.all_widths)
    assert rows["gain (points)"].tolist()[:3] == pytest.approx(np.diff(curves[shapes[0]]))
    sc.answer_diminishing_returns(store, plan, acc)
    answer = store.answers["diminishing_returns"]
    # the shape of the book's own curves: judged on every dataset measured, raw-pixel CIFAR-10 included
    # raw-pixel CIFAR-10 is not the paper's figure's curve: it cannot decide (not comparable, issue 61)
    expected = V.gains_shrink({n: [acc[n, d].values for d in plan.all_widths] for n in DATASETS})
    assert (answer.verdict.label, answer.verdict.ours) == ("not comparable", expected.ours)
    assert answer.verdict.ours.startswith(f"gains shrink throughout on {shapes.count('sat')} of 3")
    assert f"the test gives {label} (" in answer.verdict.detail and expected.label == label
    assert len(answer.keys) == 12
    table = sc.doubling_table(rows, DATASETS)
    assert list(table.columns) == ["from d", "to d", "MNIST (pts)", "Fashion (pts)", "CIFAR-10 raw (pts)"]
    assert list(table["from d"]) == [500, 1000, 1200]


def test_shared_answers_judge_the_curves_other_chapters_recorded(store, tmp_path):
    """The paper-width accuracies are random_features' results, not this chapter's: the shared test
    must see them (on straight curves, diminishing returns does not hold) and never answer with a
    placeholder; a result it cannot see is a KeyError."""
    from greenelm_book.judging.rejudge import shared_verdict

    plan = _plan()
    rf = ChapterResults("random_features", "smoke", tmp_path)
    line = [90.0, 91.0, 92.0, 93.0]
    acc = _acc(rf, {(n, d): _two_seeds(line[i]) for n in DATASETS for i, d in enumerate(plan.all_widths)})
    assert not set(r.key for r in acc.values()) & set(store.results)
    sc.answer_diminishing_returns(store, plan, acc)
    assert store.answers["diminishing_returns"].verdict.label == "not comparable"         # raw-pixel CIFAR-10
    assert "the test gives does not hold (" in store.answers["diminishing_returns"].verdict.detail
    with pytest.raises(KeyError, match="missing"):
        shared_verdict("diminishing_returns", [r.key for r in acc.values()], store.results)


# ------------------------------------------------------------------ Algorithm 2 and the hypothesis on our curves
def _seed_acc(store, slopes: dict, widths=(500, 1000, 2000, 4000), seeds=2):
    """Accuracies (%) A = 60 + slope·ln d (+ 0.1 per seed) per dataset at ``widths``."""
    return _acc(store, {(n, d): [60 + m * np.log(d) + 0.1 * s for s in range(seeds)]
                        for n, m in slopes.items() for d in widths})


def test_algorithm2_per_seed_records_answers_and_table(store):
    widths = [500, 1000, 2000, 4000]
    plan = _plan(paper_widths=widths, held_out_widths=[8000])
    acc = _seed_acc(store, {"mnist": 4.0, "fashion-mnist": 2.0, "cifar10": 1.0})
    curves = sc.seed_curves(acc, DATASETS, widths)
    assert curves["mnist"].shape == (2, 4) and curves["mnist"][1, 0] == pytest.approx((60.1 + 4 * np.log(500)) / 100)
    calib, slopes = sc.record_algorithm2(store, plan, curves)
    assert calib["alpha"].values == pytest.approx((0.04, 0.04)) and calib["alpha"].setting["seeds"] == 2
    assert calib["C_fashion-mnist"].values == pytest.approx((2.0, 2.0))
    assert slopes["cifar10"].key == "cifar10/green-elm/unit/cholesky/algorithm2/slope"
    assert slopes["cifar10"].values == pytest.approx((1.0, 1.0))
    sc.answer_table3(store, calib, reproduced=True)
    assert store.answers["algorithm2_gives_table3"].verdict.label == "holds"
    assert store.answers["table3_c_cifar10"].verdict.label == "not comparable"
    table = sc.table3_verdicts(store, calib)
    assert list(table.columns) == ["parameter", "Table III", "ours (mean)", "sd over seeds", "verdict"]
    assert list(table.parameter) == ["α", "β", "C (Fashion-MNIST)", "C (CIFAR-10)"]
    assert table.verdict.iloc[0] == store.answers["table3_alpha"].verdict.label
    sc.answer_table3(store, calib, reproduced=False)
    assert store.answers["algorithm2_gives_table3"].verdict.ours == "a parameter differs"
    assert sc.slopes_text(slopes).startswith("MNIST 4.00 ± 0.00; Fashion 2.00")
    assert sc.our_model_miss(curves, widths) == pytest.approx(0, abs=1e-9)      # one intercept: exact
    shifted = {**curves, "fashion-mnist": curves["fashion-mnist"] + 0.05}
    assert sc.our_model_miss(shifted, widths) == pytest.approx(5.0)


@pytest.mark.parametrize("slope_values, label", [((4.0, 2.0, 1.0), "holds"), ((1.0, 2.0, 3.0), "does not hold"),
                                                 ((2.0, 1.0, 3.0), "partly holds")])   # every dataset measured
def test_slope_claims(store, slope_values, label):
    """Both slope claims are judged on every dataset the chapter measured, CIFAR-10 raw included:
    the slopes against MNIST's, "C > 1" by each dataset's per-seed C."""
    widths = [500, 1000, 2000, 4000]
    plan = _plan(paper_widths=widths, held_out_widths=[8000])
    curves = sc.seed_curves(_seed_acc(store, dict(zip(DATASETS, slope_values))), DATASETS, widths)
    calib, slopes = sc.record_algorithm2(store, plan, curves)
    sc.answer_slope_claims(store, calib, slopes, DATASETS, our_miss=0.5, paper_miss=0.8)
    # raw-pixel CIFAR-10 cannot decide the paper's curves (issue 61): not comparable, the test kept for information
    slope = store.answers["slope_inverse_to_complexity"].verdict
    assert slope.label == "not comparable" and f"the test gives {label} (" in slope.detail
    assert store.answers["scaling_model_complexity_index"].verdict.label == "holds"
    dampened = store.answers["mnist_alpha_high_others_dampened"]
    assert dampened.keys == (calib["C_fashion-mnist"].key, calib["C_cifar10"].key)
    tested = V.mean_beyond_bound({"fashion-mnist": calib["C_fashion-mnist"].values,
                                  "cifar10": calib["C_cifar10"].values}, 1.0, what="C")
    # raw-pixel CIFAR-10's C cannot decide (not comparable, issue 61): the shared test kept for information
    assert dampened.verdict.label == "not comparable" and dampened.verdict.ours == tested.ours
    assert f"the test gives {tested.label} ({tested.detail})" in dampened.verdict.detail
    assert "CIFAR-10" in store.answers["slope_inverse_to_complexity"].verdict.ours
    diverge = store.answers["scaling_slopes_diverge"]          # the parallel claim: one test, every dataset it names
    tested = V.flatter_than_anchor({_dataset(k): store.results[k].values for k in diverge.keys}, "mnist")
    assert diverge.verdict.label == "not comparable" and f"the test gives {tested.label} (" in diverge.verdict.detail
    assert tested.label == ("holds" if slope_values[2] < slope_values[0] else "does not hold")
    sc.answer_slope_claims(store, calib, slopes, DATASETS, our_miss=0.5, paper_miss=3.0)
    assert store.answers["scaling_model_complexity_index"].verdict.label == "does not hold"


def test_hypothesis_gammas_answers_and_table(store):
    widths = [500, 1000, 2000, 4000]
    plan = _plan(paper_widths=widths, held_out_widths=[8000])
    curves = sc.seed_curves(_seed_acc(store, {"mnist": 4.0, "fashion-mnist": 2.0, "cifar10": 1.0}), DATASETS, widths)
    entropies = {"mnist": 2.0, "fashion-mnist": 4.0, "cifar10": 8.0}       # slope ∝ 1/H: γ = 1
    gammas = sc.fit_gammas(widths, curves, entropies)
    assert gammas == pytest.approx([1.0, 1.0])
    keys = sc.record_gammas(store, plan, gammas, entropies, 2)
    assert keys == ["all/green-elm/unit/cholesky/hypothesis/gamma"]
    assert store.results[keys[0]].setting["entropies"] == entropies
    assert sc.gamma_text(gammas) == "1.00, 1.00" and sc.gamma_text([]) == "not fitted (a slope ≤ 0)"
    ln_d = store.record("mnist/green-elm/unit/cholesky/ln-d-fit/held-out-error", [0.1, 0.1], "points")
    for n in DATASETS[1:]:            # two nested draws each: the seeds rule lets the test decide
        store.record(f"{n}/green-elm/unit/cholesky/ln-d-fit/held-out-error", [0.1, 0.1], "points")
    assert ln_d.key in store.results
    for outcome, expected in ((True, "holds"), ("partly", "partly holds"), (False, "does not hold")):
        sc.answer_hypothesis(store, plan, gammas, 2, outcome, keys)
        gamma = store.answers["scaling_hypothesis_gamma"].verdict      # the paper defines no H: nothing to judge
        assert gamma.label == "not measurable here" and "1.00, 1.00" in gamma.ours
        assert gamma.detail.endswith("with ours γ > 0 on each of the 2 seeds")
        abstract = store.answers["abstract_scaling_hypothesis"]        # judged on ln d's held-out test alone
        assert abstract.verdict.label == expected and abstract.keys == tuple(
            f"{n}/green-elm/unit/cholesky/ln-d-fit/held-out-error" for n in DATASETS)
    sc.answer_hypothesis(store, plan, [], 2, True, [])
    assert store.answers["scaling_hypothesis_gamma"].verdict.detail.endswith("γ was not fitted on any of 2 seeds (a slope ≤ 0)")
    assert sc.gamma_sign_words([0.5, -0.2, 0.1], 3) == "γ > 0 on 2 of 3 seeds, γ ≤ 0 on 1"
    assert sc.gamma_sign_words([-0.5, -0.2], 3) == "γ ≤ 0 on every fitted seed (2 of 3) and not fitted on 1"
    assert store.answers["scaling_hypothesis_gamma"].verdict.label == "not measurable here"
    assert store.answers["abstract_scaling_hypothesis"].verdict.label == "holds"
    slopes = {n: store.record(f"{n}/green-elm/unit/cholesky/algorithm2/slope", [m], "") for n, m in
              zip(DATASETS, (4.0, 2.0, 1.0))}
    table = sc.hypothesis_table(entropies, slopes, DATASETS)
    assert list(table.columns) == ["dataset", "entropy H (bits)", "slope m (pts per ln d)"]
    assert list(table["slope m (pts per ln d)"]) == [4.0, 2.0, 1.0]
    with_negative = {**curves, "cifar10": curves["cifar10"][:, ::-1]}
    assert sc.fit_gammas(widths, with_negative, entropies) == []


# ------------------------------------------------------------------ the kernel limit and the λ paths
def test_kernel_convergence_falls_with_width():
    X = np.random.default_rng(0).random((20, 5))
    table = sc.kernel_convergence(X, [20, 20000], seed=0)
    errors = table["max |HHᵀ/d − K| / max K"]
    assert list(table.d) == [20, 20000] and errors[1] < errors[0] / 5


def test_kernel_table_labels_the_draw_and_the_extrapolation(store):
    plan = _plan()
    kernel = {"cifar10": store.record("cifar10/arccos-kernel/accuracy", [45.0], "%", n_train=1000, jitter=1e-6)}
    acc = _acc(store, {("cifar10", 1500): [41.0]})
    tests = {"cifar10": type("T", (), {"saturating_params": (44.0, 10.0, 0.5)})()}
    table = sc.kernel_table(kernel, acc, tests, plan)
    assert list(table.columns) == ["dataset", "N train", "d = ∞ (%)", "d = 1500 (%), one nested draw",
                                   "saturating law's asymptote a (%), extrapolated from d ≤ 1000", "jitter"]
    assert table.iloc[0, 2:5].tolist() == [45.0, 41.0, 44.0] and table.jitter[0] == "1e-06"
    assert sc.draws_label(store.record("x/y", [1.0, 2.0], "%")) == "mean of 2 seeds"


def _widest_run(test_at_alpha: dict, best: dict, interior=True, conditions=()):
    """A width-d_max run: at each width λ = 1e-3 (not searched) and a searched path whose LOO minimum
    is at ``best[d]`` = (λ, test accuracy)."""
    rows = []
    for d, acc_alpha in test_at_alpha.items():
        rows.append({"n_hidden": d, "alpha": 1e-3, "test_accuracy": acc_alpha, "loo_mse": 1.0,
                     "train_accuracy": 90.0 + d / 1000, "searched": False})
        lam, acc_best = best[d]
        for a in (1e-3, lam, 1e6):
            rows.append({"n_hidden": d, "alpha": a, "test_accuracy": acc_best if a == lam else acc_alpha,
                         "loo_mse": 0.5 if a == lam else 1.0, "train_accuracy": 90.0, "searched": True})
    return {"paths": pd.DataFrame(rows), "interior": np.array([interior] * len(test_at_alpha)), "loo_rows": 50,
            "conditions": pd.DataFrame(list(conditions), columns=["n_hidden", "s_max", "s_min", "kappa_ridge"])}


def test_lambda_choices_are_labelled_one_nested_draw_beside_the_seed_means(store):
    plan = _plan()
    widths = plan.all_widths
    widest = {n: [_widest_run({d: 80.0 + i for i, d in enumerate(widths)},
                              {d: (10.0, 81.0 + i - (3 if d == 1500 else 0)) for i, d in enumerate(widths)},
                              interior=n != "cifar10")] for n in DATASETS}
    choices, all_interior = sc.record_lambda_choices(store, plan, widest)
    assert not all_interior and len(choices) == 12
    lam = store.results["mnist/green-elm/unit/ridge-loo/d=500/lambda"]
    assert lam.values == (10.0,) and lam.setting["lambdas_tried"] == [1e-3, 10.0, 1e6]
    assert lam.setting["seeds"] == [0] and lam.setting["loo_rows"] == 50
    assert store.results["mnist/green-elm/unit/ridge-loo/d=1000/accuracy"].values == (82.0,)
    acc = _acc(store, {**{(n, d): [79.0, 79.5] for n in DATASETS for d in (500, 1000)},
                       **{(n, d): [80.0] for n in DATASETS for d in (1200, 1500)}})
    table = sc.lambda_table(choices, acc)
    assert list(table.columns) == ["dataset", "d", "LOO's λ, one nested draw", "test at LOO's λ (%), one nested draw",
                                   "test at λ = 1e-3 (%), one nested draw", "gain (pts), one nested draw",
                                   "test at λ = 1e-3 (%), mean of 2 seeds"]
    assert table.iloc[0, 2] == "1e+01" and table.iloc[0, 4] == 80.0 and table.iloc[0, 6] == 79.25
    assert math.isnan(table.iloc[2, 6]) and math.isnan(table.iloc[3, 6])     # held-out widths: one draw only
    glues = sc.lambda_glues(choices, all_interior, plan)
    assert glues["all_interior"].startswith("no") and glues["lambda_gain"] == "-2.00 to +1.00"
    assert (glues["d_prev"], glues["cifar_prev"], glues["cifar_last"]) == ("1\u202f200", "82.00", "83.00")
    assert glues["drop_words"] == "gains at λ = 1e-3 too, so there is no drop to explain"
    dropping = choices.assign(test_at_alpha=np.where(choices.d == 1500, 70.0, choices.test_at_alpha))
    assert sc.lambda_glues(dropping, True, plan)["drop_words"].startswith("still loses at LOO's λ")
    assert sc.loo_glues(plan, widest) == {"lambda_grid": "{0.001, 1, 1000}", "loo_rows": "50"}


@pytest.mark.parametrize("s_min, label, text", [(1e-6, "holds", "1e+03×"), (0.0, "holds", "unbounded"),
                                                (1.0, "does not hold", "1×")])
def test_conditioning_records_and_answers(store, s_min, label, text):
    plan = _plan()
    conditions = [(d, 100.0, s_min, (100.0 + 1e-3) / (s_min + 1e-3)) for d in (500, 1000)]
    widest = {n: [_widest_run({500: 80.0}, {500: (1.0, 80.0)}, conditions=conditions)] for n in DATASETS}
    rows, factor = sc.record_conditioning(store, plan, widest)
    assert list(rows.columns) == ["dataset", "d", "smallest eigenvalue", "largest eigenvalue", "κ(G + λI)"]
    assert store.results["cifar10/green-elm/unit/gram/d=1000/smallest-eigenvalue"].values == (s_min,)
    sc.answer_conditioning(store, plan)
    answer = store.answers["tikhonov_improves_conditioning"]
    # one nested draw per width cannot decide (the seeds rule, issue 61): the test kept for information
    assert answer.verdict.label == "inconclusive" and f"the test gives {label} (" in answer.verdict.detail
    assert len(answer.keys) == 6
    assert sc.factor_text(factor) == text
    assert all(f"{name}: largest reduction" in answer.verdict.ours for name in ("MNIST", "Fashion-MNIST", "CIFAR-10"))
    assert (sc.cond_gain_text(factor) == "unbounded (G is numerically singular there)") == (s_min == 0.0)


def test_conditioning_judged_on_every_dataset(store):
    """A tenfold reduction on one dataset alone is "partly holds", the others named by their values."""
    plan = _plan()
    widest = {n: [_widest_run({500: 80.0}, {500: (1.0, 80.0)},
                              conditions=[(d, 100.0, s_min, (100.0 + 1e-3) / (s_min + 1e-3)) for d in (500, 1000)])]
              for n, s_min in zip(DATASETS, (1.0, 1.0, 0.0))}
    sc.record_conditioning(store, plan, widest)
    sc.answer_conditioning(store, plan)
    verdict = store.answers["tikhonov_improves_conditioning"].verdict
    assert verdict.label == "inconclusive" and "the test gives partly holds (" in verdict.detail    # one draw
    assert "unbounded" in verdict.ours


# ------------------------------------------------------------------ separability and parity
def test_train_accuracy_and_separability_answers(store):
    plan = _plan()
    widths = plan.all_widths
    widest = {n: [_widest_run({d: 80.0 for d in widths}, {d: (1.0, 80.0) for d in widths})] for n in DATASETS}
    widest["cifar10"][0]["paths"].loc[lambda p: (p.n_hidden == 1500) & ~p.searched, "train_accuracy"] = 50.0
    rows, rising_train = sc.record_train_accuracy(store, plan, widest)
    assert rising_train == {"mnist": True, "fashion-mnist": True, "cifar10": False}
    record = store.results["mnist/green-elm/unit/cholesky/d=1200/train-accuracy"]
    assert record.values == (91.2,) and record.setting["evaluated_on"] == "50 random training rows"
    table = sc.train_table(rows, DATASETS)
    assert list(table.columns) == ["d", "MNIST train (%)", "Fashion train (%)", "CIFAR-10 raw train (%)"]
    acc = _acc(store, {(n, d): _two_seeds(80.0 + (i if n == "mnist" else 0)) for n in DATASETS
                       for i, d in enumerate(widths)})
    sc.answer_separability(store, plan, acc, rising_train)
    cover = store.answers["cover_expansion_separability"].verdict          # one nested draw: the seeds rule
    assert cover.label == "inconclusive" and "the test gives partly holds (" in cover.detail
    correlates = store.answers["d_correlates_with_separability"].verdict
    assert correlates.label == "not comparable" and "rises throughout on 1 of 3: MNIST" in correlates.ours   # raw CIFAR-10
    assert "the test gives partly holds (" in correlates.detail
    sc.answer_separability(store, plan, acc, {n: True for n in DATASETS})
    assert store.answers["cover_expansion_separability"].verdict.label == "inconclusive"     # one draw: the seeds rule
    assert "the test gives holds (" in store.answers["cover_expansion_separability"].verdict.detail


def test_parity_rows_name_the_extrapolation_and_the_verdict_judges_measured_accuracy(store, tmp_path):
    plan = _plan()
    kernel = {"cifar10": store.record("cifar10/arccos-kernel/accuracy", [50.0], "%")}
    for n, ceiling in (("mnist", 96.0), ("fashion-mnist", 86.0), ("cifar10", 90.0)):   # the asymptotes the rows show
        store.record(f"{n}/green-elm/unit/cholesky/saturating-fit/asymptote", [ceiling], "%")
    tests = {"mnist": type("T", (), {"saturating_params": (96.0, 1.0, 0.5)})(),
             "fashion-mnist": type("T", (), {"saturating_params": (86.0, 1.0, 0.5)})()}
    rows, short_of = sc.parity_rows(kernel, tests, plan)
    assert list(rows.columns) == ["dataset", "ceiling (%)", "from", "paper's baseline (%)"]
    assert rows["from"][0] == "asymptote of the saturating law fitted on d ≤ 1000, an extrapolation"
    assert rows["from"][2] == "arc-cosine kernel (d = ∞)"
    assert short_of == ["CIFAR-10 raw"]                           # 50 < 72; 96 > 95.1; 86 > 84.41
    # the verdict rests on the measured accuracy at the widest paper width, never on a ceiling
    acc = _acc(store, {("mnist", 1000): [95.5, 95.7], ("fashion-mnist", 1000): [85.0, 85.2],
                       ("cifar10", 1000): [45.0, 45.2]})
    sc.answer_parity(store, plan, acc)         # the book's own baselines not stored: the figure's line judges,
    answer = store.answers["predictable_path_to_parity"]   # and CIFAR-10 raw (not comparable with it) is left out
    assert answer.verdict.label == "holds" and "no extrapolation" in answer.verdict.detail
    assert answer.verdict.ours == "MNIST: 95.60 vs 95.10, Fashion-MNIST: 85.10 vs 84.41", answer.verdict.ours
    assert "CIFAR-10 not comparable: the scaling figure's CIFAR-10 curve" in answer.verdict.detail
    assert answer.keys == tuple(sc.elm_key(n, 1000) for n in DATASETS)   # all three recorded: the scorecard names
    short = ChapterResults("scaling", "smoke", tmp_path / "short")        # the exclusion
    acc = _acc(short, {("mnist", 1000): [95.5, 95.7], ("fashion-mnist", 1000): [80.0, 80.2]})
    sc.answer_parity(short, _plan(datasets=["mnist", "fashion-mnist"]), acc)
    assert short.answers["predictable_path_to_parity"].verdict.label == "partly holds"
    sc.answer_parity(store, _plan(datasets=["cifar10"]), {("cifar10", 1000): store.results[sc.elm_key("cifar10", 1000)]})
    answer = store.answers["predictable_path_to_parity"]        # nothing comparable left to judge
    assert answer.verdict.label == "not comparable" and answer.keys == (sc.elm_key("cifar10", 1000),)


def test_parity_is_judged_against_the_books_own_baselines_on_every_dataset(tmp_path):
    """With the baselines chapter's runs stored, the path to parity is non-inferiority (±1 point)
    against the book's own SGD MLP (a CNN on CIFAR-10) on every dataset measured, CIFAR-10 included."""
    baselines = ChapterResults("baselines", "smoke", tmp_path / "results")
    for key, values in (("mnist/sgd-mlp/accuracy", [96.0, 96.1, 95.9]), ("fashion-mnist/sgd-mlp/accuracy", [85.0, 85.1, 84.9]),
                        ("cifar10/sgd-cnn/accuracy", [69.0, 69.2, 69.1])):
        baselines.record(key, values, "%", dataset=key.split("/")[0])

    store = ChapterResults("scaling", "smoke", tmp_path / "results")
    acc = _acc(store, {("mnist", 1000): [95.5, 95.7, 95.6], ("fashion-mnist", 1000): [85.0, 85.2, 85.1],
                       ("cifar10", 1000): [45.0, 45.2, 45.1]})
    sc.answer_parity(store, _plan(), acc)
    verdict = store.answers["predictable_path_to_parity"].verdict
    # MNIST and Fashion-MNIST reach; CIFAR-10 (raw pixels, its CNN not the paper's) far short: not comparable
    assert verdict.label == "not comparable" and "the test gives partly holds (" in verdict.detail
    assert "CIFAR-10: 45.10 vs 69.10" in verdict.ours and "book's own" in verdict.detail
    judged = scorecard_verdict("predictable_path_to_parity", verdict, store.answers["predictable_path_to_parity"].keys,
                               {**store.results, **baselines.results})
    assert (judged.label, judged.ours) == (verdict.label, verdict.ours)       # the page and the scorecard agree


def test_cifar10_curve_reads_the_cifar10_chapters_own_width_when_it_matches(tmp_path):
    """One configuration, one value: at a width the CIFAR-10 chapter measured with the same seeds, size
    and λ, the curve reads that record (and the store lists the read); otherwise None (nested draw)."""
    plan = _plan(paper_widths=(500, 1000))
    cifar = ChapterResults("cifar10", "smoke", tmp_path)
    cifar.record(sc.elm_key("cifar10", 1000), [45.0, 45.4], "%", dataset="cifar10", n_train=100, n_test=50,
                 alpha=1e-3, seeds=[0, 1])
    cifar.record(sc.elm_key("cifar10", 500), [40.0, 40.4], "%", dataset="cifar10", n_train=100, n_test=50,
                 alpha=1e-3, seeds=[0, 1, 2])                                         # other seeds: not the same
    store = ChapterResults("scaling", "smoke", tmp_path)
    own = sc.cifar10_chapter_result(store, plan, 1000)
    assert own.values == (45.0, 45.4) and f"cifar10:{sc.elm_key('cifar10', 1000)}" in store.reads
    assert sc.cifar10_chapter_result(store, plan, 500) is None
    assert sc.cifar10_chapter_result(store, _plan(alpha=1.0), 1000) is None
    acc = {("cifar10", 1000): own, ("cifar10", 500): store.record(
        "cifar10/green-elm/unit/cholesky/nested-in-d=1000/d=500/accuracy", [40.0], "%")}
    assert sc.cifar10_read_text(acc, plan) == "d = 1\u202f000"
    assert sc.cifar10_read_text({k: v for k, v in acc.items() if k[1] == 500}, plan) == "no width"


# ------------------------------------------------------------------ the figures
def test_the_figures_draw_every_dataset(store):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plan = _plan()
    acc = _acc(store, {(n, d): [80.0 + i, 81.0 + i] for n in DATASETS for i, d in enumerate(plan.all_widths)})
    fig = sc.plot_curves(sc.curve_frame(acc), plan)
    labels = fig.axes[0].get_legend_handles_labels()[1]
    assert "MNIST, ours" in labels and "CIFAR-10, paper's figure (not raw pixels)" in labels
    choices = pd.DataFrame([{"dataset": n, "d": d, "lambda": 10.0, "test_at_loo": 81.0, "test_at_alpha": 80.0,
                             "gain": 1.0} for n in DATASETS for d in plan.all_widths])
    fig2 = sc.plot_lambda_choices(choices, plan)
    assert len(fig2.axes) == 2 and len(fig2.axes[0].lines) == 3 + 1            # a line per dataset, and λ = 1e-3
    assert "one nested draw" in fig2.axes[0].get_ylabel()
    plt.close("all")


@pytest.mark.parametrize("rate", [0.5, 0.6, 1.0])
def test_the_convergence_rate_is_fitted_from_the_table_s_numbers(rate):
    """The page said "1/sqrt(d)" beside a table falling faster: the words now carry the fitted exponent."""
    table = pd.DataFrame({"d": [1000, 10000, 100000], "max |HHᵀ/d − K| / max K": [3.0 * d ** -rate
                                                                                   for d in (1000, 10000, 100000)]})
    text = sc.convergence_rate_sentence(table)
    assert f"the error falls like d^(−{rate:.2f}); d^(−{rate:.2f}) from 1\u202f000 to 10\u202f000" in text
    assert "over its 3 widths" in text and "-" not in text


def test_the_convergence_rate_of_the_book_s_table_is_not_said_to_be_one_half():
    table = pd.DataFrame({"d": [1000, 10000, 100000], "err": [0.1886, 0.0332, 0.0117]})
    slope = np.polyfit(np.log(table.d), np.log(table.err), 1)[0]
    text = sc.convergence_rate_sentence(table)
    assert f"falls like d^(−{-slope:.2f})" in text and "−0.60" in text and "−0.50" not in text
    with pytest.raises(ValueError, match="a rate needs two"):
        sc.convergence_rate_sentence(table.iloc[:1])


def test_log_law_words_state_a_direction_only_with_enough_draws():
    assert sc.log_law_words(3, 3, 5, min_draws=2) == "the saturating law predicts better than ln d on every dataset"
    assert sc.log_law_words(0, 3, 2, min_draws=2) == "ln d predicts at least as well as the saturating law on every dataset"
    # too few draws: no direction (neither law named better), whatever the count (issue 61: a direction
    # stated beside "inconclusive")
    for worse in (0, 1, 3):
        assert sc.log_law_words(worse, 3, 1, min_draws=2) == (
            "neither law is judged the better predictor: one held-out draw per dataset is too few draws to decide")
    assert sc.log_law_words(1, 3, 3, min_draws=5) == (
        "neither law is judged the better predictor: 3 held-out draws per dataset are too few draws to decide")


def test_a_reproduced_gain_between_levels_that_differ_says_so():
    """Issue 61: the one "reproduced" (MNIST's gain from d = 2000 to 4000) is a difference of two levels that
    each differ from the paper's figure: its note says only the difference matches."""
    from types import SimpleNamespace as NS

    from greenelm_book.report import Verdict

    def store(*labels):
        return NS(answers={f"fig_scaling_mnist_d{d}_accuracy": NS(verdict=Verdict(label, "", ""))
                           for d, label in zip((2000, 4000), labels)})

    gain = Verdict("reproduced", "", "")
    note = sc.levels_note(store("differs, beyond margin", "differs, beyond margin"), gain, 2000, 4000)
    assert note == ("the gain is reproduced, each level is not (d = 2000: differs, beyond margin; d = 4000: "
                    "differs, beyond margin): only the difference between the two widths matches the paper's")
    assert sc.levels_note(store("reproduced", "reproduced"), gain, 2000, 4000) == ""
    assert sc.levels_note(store("differs, beyond margin", "reproduced"), Verdict("differs, beyond margin", "", ""),
                          2000, 4000) == ""
