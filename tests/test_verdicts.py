"""The book's tests (greenelm_book.judging.verdicts) on real numbers, comparability as data, and the
scorecard's uniform judgement over the committed stores: every verdict from a named test, not
comparable evidence gives "not comparable", each measurement judged once per paper value."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from greenelm_book.judging import verdicts as V
from greenelm_book.judging.comparability import comparability, is_quiet_timing
from greenelm_book.paper import CLAIMS
from greenelm_book.judging.rejudge import CLAIM_TESTS, scorecard_verdict
from greenelm_book.report import Verdict, prediction_interval
from greenelm_book.store.results import Result, load_all
from greenelm_book.summaries.scorecard import counts, scorecard, verdict_totals

ROOT = Path(__file__).resolve().parent.parent
STORES = [p for p in (ROOT / "book" / "results", ROOT / "tests" / "notebooks" / "results") if p.is_dir()]
MNIST_D2000 = [95.8, 96.0, 95.9, 96.1, 95.95]          # mean 95.95, sd 0.1118


# ---------------------------------------------------------------- the statistics, against scipy
def test_prediction_interval_is_mean_plus_t_sd_sqrt_one_plus_one_over_n():
    low, high = prediction_interval(MNIST_D2000)
    half = stats.t.ppf(0.975, 4) * np.std(MNIST_D2000, ddof=1) * math.sqrt(1 + 1 / 5)
    assert (low, high) == pytest.approx((95.95 - half, 95.95 + half))
    assert round(low, 2) == 95.61 and round(high, 2) == 96.29          # ≈ ±3 sd at n = 5, not ±2 sd


@pytest.mark.parametrize("target, margin", [(97.15, 0.5), (96.0, 0.5), (95.95, 0.05), (84.52, 1.0)])
def test_tost_one_sample_matches_two_scipy_one_sided_t_tests(target, margin):
    x = np.array(MNIST_D2000)
    lower = stats.ttest_1samp(x, target - margin, alternative="greater").pvalue
    upper = stats.ttest_1samp(x, target + margin, alternative="less").pvalue
    assert V.tost_p(x, target, margin) == pytest.approx(max(lower, upper), rel=1e-9)


def test_tost_two_sample_matches_scipy_welch():
    rng = np.random.default_rng(0)
    a, b = 95.95 + rng.normal(0, 0.15, 5), 97.27 + rng.normal(0, 0.1, 5)
    lower = stats.ttest_ind(a + 1.0, b, equal_var=False, alternative="greater").pvalue
    upper = stats.ttest_ind(a - 1.0, b, equal_var=False, alternative="less").pvalue
    assert V.tost_p(a, 0.0, 1.0, b) == pytest.approx(max(lower, upper), rel=1e-9)
    beyond = stats.ttest_ind(a + 1.0, b, equal_var=False, alternative="less").pvalue   # a − b < −1
    assert V.beyond_margin_p(a, 0.0, 1.0, b) == pytest.approx(beyond, rel=1e-9)


def test_beyond_margin_is_one_sided_on_the_side_of_the_difference():
    x = np.array(MNIST_D2000)
    expected = stats.ttest_1samp(x, 97.15 - 0.5, alternative="less").pvalue
    assert V.beyond_margin_p(x, 97.15, 0.5) == pytest.approx(expected, rel=1e-9)
    assert V.beyond_margin_p(x, 94.0, 0.5) == pytest.approx(
        stats.ttest_1samp(x, 94.5, alternative="greater").pvalue, rel=1e-9)


# ---------------------------------------------------------------- value vs paper, with its margin
def test_value_vs_paper_labels_by_interval_and_margin():
    assert V.value_vs_paper(96.0, MNIST_D2000).label == "reproduced"            # inside the PI
    beyond = V.value_vs_paper(97.15, MNIST_D2000)                                 # −1.20 points
    assert beyond.label == "differs, beyond margin" and "differs by 1.20 pts" in beyond.detail
    within = V.value_vs_paper(95.5, [95.9, 95.92, 95.88, 95.91, 95.89])          # +0.40, sd 0.016
    assert within.label == "differs, within margin" and "TOST p" in within.detail
    undecided = V.value_vs_paper(96.84, [97.09, 97.36, 97.32, 97.33, 97.25])    # MNIST SGD: +0.43
    assert undecided.label == "differs, margin undecided"
    assert V.value_vs_paper(97.15, MNIST_D2000[:3]).label == "inconclusive"      # fewer than 5 runs
    # inside the interval but equivalence not shown (Fashion-MNIST d = 500: +0.32, TOST p ≈ 0.06)
    wide = V.value_vs_paper(96.0, [95.5, 96.9, 96.1, 97.2, 95.9])
    assert wide.label == "inconclusive" and "equivalence is not shown" in wide.detail


def test_the_ladder_reproduced_implies_what_differs_within_margin_implies():
    """Over many random samples: every "reproduced" has TOST within the margin, as every
    "differs, within margin" has; the ladder's labels are the ones the rule gives."""
    rng = np.random.default_rng(0)
    labels = {label for label, _ in V.LADDER}
    for _ in range(400):
        runs = rng.normal(96.0 + rng.normal(0, 0.6), rng.uniform(0.02, 0.6), size=5)
        verdict = V.value_vs_paper(96.0, runs)
        assert verdict.label in labels
        if verdict.label in ("reproduced", "differs, within margin"):
            assert V.tost_p(runs, 96.0, 0.5) < V.TEST_LEVEL


def test_value_vs_paper_margins_by_unit():
    assert V.practical_margin("%", 97.15) == (0.5, "±0.5-pt")
    assert V.practical_margin("", 0.0431)[0] == pytest.approx(0.00431)          # 10 % relative
    assert math.isnan(V.practical_margin("s", 74.1)[0])                         # seconds: never judged
    alpha = V.value_vs_paper(0.0431, [0.0237, 0.0240, 0.0230, 0.0245, 0.0235], "", 4)
    assert alpha.label == "differs, beyond margin"


def test_difference_vs_paper_reads_the_margin_on_the_difference():
    elm, sgd = [96.9, 96.95, 96.85, 96.92, 96.88], [97.27, 97.2, 97.35, 97.3, 97.23]
    verdict = V.difference_vs_paper(1.26, elm, sgd)                               # ours ≈ −0.37
    assert verdict.label == "differs, beyond margin"
    assert V.difference_vs_paper(-0.37, elm, sgd).label == "reproduced"


def test_a_difference_is_judged_within_a_quarter_of_itself_at_most():
    """A paper's 0.95-point gain is not "reproduced" by 0.66 points through a ±0.5-point margin (half
    the quantity): the margin is the smaller of the unit's and 25 % of the paper's difference."""
    hi = [97.96, 98.0, 98.04, 97.98, 98.02]
    lo = [97.3, 97.36, 97.32, 97.38, 97.34]                                        # gain 0.66
    verdict = V.difference_vs_paper(0.95, hi, lo)
    assert verdict.label == "differs, beyond margin" and "25% of the paper's difference" in verdict.detail
    assert "±0.24-pt" in verdict.detail
    # a large difference keeps the unit's ±0.5 points
    wide = V.difference_vs_paper(7.95, hi, [v - 7.29 for v in lo])                 # gain 7.95
    assert wide.label == "reproduced" and "±0.5-pt" in wide.detail


# ---------------------------------------------------------------- ratios
def test_ratio_interval_is_welch_on_the_logs():
    a, b = [23.5, 24.1, 22.9, 23.8, 23.2], [1.72, 1.75, 1.70, 1.74, 1.71]
    ratio, low, high = V.ratio_interval(a, b)
    assert ratio == pytest.approx(math.exp(np.mean(np.log(a)) - np.mean(np.log(b))))
    assert low < ratio < high and high / low < 1.1


def test_ratio_across_machines_direction_and_order_of_magnitude_only():
    pinv, lu = [23.5, 24.1, 22.9, 23.8, 23.2], [1.72, 1.75, 1.70, 1.74, 1.71]   # ≈ 13.7×
    assert V.ratio_across_machines(12.8, pinv, lu, quiet=True).label == "concordant"   # never "reproduced"
    assert V.ratio_across_machines(36.0, pinv, lu, quiet=True).label == "concordant"   # within ×/÷ 3
    far = V.ratio_across_machines(119.04, pinv, lu, quiet=True)                         # factor 8.7
    assert far.label == "discordant" and "beyond ×/÷ 3" in far.detail
    assert V.ratio_across_machines(0.5, pinv, lu, quiet=True).label == "discordant"       # other side of 1
    assert V.ratio_across_machines(12.8, pinv, lu, quiet=False).label == "inconclusive"
    assert V.ratio_across_machines(12.8, pinv[:1], lu[:1], quiet=True).label == "inconclusive"
    even = ([1.0, 0.8, 1.2, 0.9, 1.1], [1.0, 1.1, 0.9, 1.05, 0.95])          # CI across 1
    straddles = V.ratio_across_machines(2.0, *even, quiet=True)
    assert straddles.label == "inconclusive" and "straddles" in straddles.detail
    assert V.ratio_across_machines(11.6, *even, quiet=True).label == "discordant"   # wholly below 11.6 / 3
    # a CI across the ×/÷ 3 boundary is inconclusive; wholly beyond it differs, even far below 1
    wide = [13.0, 25.0, 40.0, 60.0, 90.0]
    assert V.ratio_across_machines(12.8, wide, quiet=True).label == "inconclusive"
    opposite = V.ratio_across_machines(11.6, [0.55, 0.57, 0.6, 0.56, 0.58], quiet=True)   # 0.57× against 11.6×
    assert opposite.label == "discordant" and "opposite direction" in opposite.detail


def test_ratio_across_machines_is_not_judged_across_runs():
    pinv, lu = [23.5, 24.1, 22.9, 23.8, 23.2], [1.72, 1.75, 1.70, 1.74, 1.71]
    verdict = V.ratio_across_machines(12.8, pinv, lu, quiet=True, same_run=False)
    assert verdict.label == "not comparable" and "different runs" in verdict.detail


def test_same_machine_ratio_needs_the_ci_on_the_claimed_side():
    slow, fast = [110, 106, 112, 108, 117], [17.0, 18.0, 17.5, 16.0, 17.8]
    assert V.same_machine_ratio(slow, fast, claimed="above").label == "holds"
    assert V.same_machine_ratio(slow, fast, claimed="below").label == "does not hold"
    assert V.same_machine_ratio([1.0, 1.2, 0.8, 1.1, 0.9], claimed="above").label == "inconclusive"
    assert V.same_machine_ratio(slow[:3], fast[:3]).label == "inconclusive"


# ---------------------------------------------------------------- one equivalence test for parity
def test_equivalent_accuracy_is_tost_at_one_point():
    elm, sgd = [95.9, 96.0, 95.95, 96.1, 95.8], [97.2, 97.3, 97.25, 97.4, 97.1]   # −1.30 points
    assert V.equivalent_accuracy(elm, sgd).label == "does not hold"
    assert V.equivalent_accuracy([46.5, 46.2, 46.8, 46.4, 46.6], [46.7, 46.5, 46.9, 46.6, 46.6]).label == "holds"
    assert V.equivalent_accuracy([46.5, 44.0, 49.0, 45.0, 48.0], [46.7, 46.5, 46.9, 46.6, 46.6]).label \
        == "inconclusive"


def test_parallel_claims_share_one_test():
    assert CLAIM_TESTS["abstract_comparable_to_sgd"] is CLAIM_TESTS["cifar10_raw_parity_with_sgd"]
    assert CLAIM_TESTS["above_95_single_step"] is CLAIM_TESTS["feature_learning_not_needed_mnist"]


# ---------------------------------------------------------------- the shared qualitative tests
def test_all_some_none():
    assert V.all_some_none([True, True]) is True
    assert V.all_some_none([True, False]) == "partly"
    assert V.all_some_none([False]) is False and V.all_some_none([]) is False


def test_qualitative_tests_on_curves():
    up = [[91.9, 92.0, 92.1, 91.8, 92.0], [94.3, 94.4, 94.5, 94.2, 94.4], [95.9, 96.0, 95.95, 96.1, 95.8]]
    flat = [[46.0, 46.2, 45.9, 46.1, 46.0], [46.1, 46.0, 46.2, 45.9, 46.1], [45.7, 45.8, 45.9, 45.6, 45.7]]
    assert V.above_threshold(up[2], 95.0).label == "holds"
    assert V.above_threshold(up[2], 96.0).label == "does not hold"
    assert V.rises_at_every_step({"mnist": up}).label == "holds"
    assert V.rises_at_every_step({"mnist": up, "cifar10": flat}).label == "partly holds"
    assert V.rises_throughout({"cifar10": flat}).label == "does not hold"
    assert V.gains_shrink({"mnist": up}).label == "holds"                      # gains 2.40 then 1.55
    # a gain equal to the one before (1.00 then 1.00, ln d's constant gain per doubling) is not a shrink,
    # and the verdict's test says so
    tie = [[80.0], [81.0], [82.0]]
    assert V.gains_shrink({"fashion-mnist": tie}).label == "does not hold"
    mixed = V.gains_shrink({"mnist": up, "fashion-mnist": tie})
    assert mixed.label == "partly holds" and mixed.ours.endswith("1 of 2: MNIST")
    assert "an equal gain is not smaller" in mixed.detail
    assert V.reaches_reference({"mnist": up[2]}, {"mnist": 95.1}).label == "holds"
    mnist, fashion = [2.45, 2.3, 2.35, 2.4, 2.35], [2.1, 2.2, 2.15, 2.05, 2.2]
    assert V.flatter_than_anchor({"mnist": mnist, "fashion": fashion}, "mnist").label == "holds"
    assert V.flatter_than_anchor({"mnist": mnist, "cifar10": [2.9, 2.8, 2.85, 2.95, 2.9]}, "mnist").label == "does not hold"
    # means 2.35 against 2.15, but two seeds each: the Welch interval (t with ~2 dof) straddles 0
    assert V.flatter_than_anchor({"mnist": [2.4, 2.3], "fashion": [2.1, 2.2]}, "mnist").label == "inconclusive"
    assert V.flatter_than_anchor({"mnist": mnist, "fashion": fashion, "cifar10": [2.9, 2.8, 2.85, 2.95, 2.9]},
                                 "mnist").label == "partly holds"
    # two claims share this test and its text: each verdict's reason names the datasets that made its label
    # (finding 28 of issue 61's reading: slope rows with one rule text and two labels)
    partly = V.flatter_than_anchor({"mnist": mnist, "fashion-mnist": fashion, "cifar10": [2.9, 2.8, 2.85, 2.95, 2.9]},
                                   "mnist")
    none = V.flatter_than_anchor({"mnist": mnist, "cifar10": [2.9, 2.8, 2.85, 2.95, 2.9]}, "mnist")
    assert partly.detail.endswith("; here Fashion-MNIST flatter, CIFAR-10 steeper")
    assert none.detail.endswith("; here CIFAR-10 steeper") and partly.detail != none.detail
    straddles = V.flatter_than_anchor({"mnist": [2.4, 2.3], "fashion": [2.1, 2.2]}, "mnist").detail
    assert "straddles 0 for fashion" in straddles and "; here" not in straddles


def test_reaching_the_books_own_sgd_is_non_inferiority_within_one_point():
    ours, sgd = [96.8, 96.9, 97.0, 96.95, 96.9], [97.3, 97.2, 97.25, 97.3, 97.25]     # 0.35 below
    assert V.reaches_within_margin({"mnist": (ours, sgd)}).label == "holds"
    far = [95.8, 95.9, 96.0, 95.95, 95.9]                                             # 1.35 below
    assert V.reaches_within_margin({"mnist": (far, sgd)}).label == "does not hold"
    assert V.reaches_within_margin({"mnist": (ours, sgd), "fashion-mnist": (far, sgd)}).label == "partly holds"
    wide = [96.0, 97.5, 96.3, 97.2, 96.1]                                             # 0.6 below, spread wide
    verdict = V.reaches_within_margin({"mnist": (wide, sgd)})
    assert verdict.label == "inconclusive" and "straddles −1" in verdict.detail
    assert "MNIST: 96.91 vs 97.26 (-0.35, 95 % CI" in V.reaches_within_margin({"mnist": (ours, sgd)}).ours


def test_what_sgd_reaches_is_judged_against_the_books_own_sgd_where_the_store_has_it():
    from greenelm_book.judging.rejudge import judge_claim
    from greenelm_book.store.results import Answer

    claim = next(c for c in CLAIMS if c.id == "ultra_wide_relu_sufficient")
    elm = {"mnist/green-elm/unit/cholesky/d=4000/accuracy": [96.8, 96.9, 97.0, 96.95, 96.9]}
    own = {"mnist/sgd-mlp/accuracy": [97.3, 97.2, 97.25, 97.3, 97.25]}
    results = {k: Result(k, tuple(v), "%", {}, "x", "m", "2026-11-28", "") for k, v in {**elm, **own}.items()}
    answer = Answer(claim.id, Verdict("holds", ""), tuple(elm))
    judged = judge_claim(claim, answer, results, {})
    assert judged.test == "reaches_within_margin" and judged.verdict.label == "holds"
    assert set(judged.keys) == set(elm) | set(own)
    alone = judge_claim(claim, answer, {k: v for k, v in results.items() if k in elm}, {})
    assert alone.test == "reaches_reference"                  # no SGD runs of ours: the paper's Table I


def test_difference_interval_is_welchs():
    """The slope test's interval equals scipy's Welch test turned into a 95 % CI."""
    from scipy import stats

    a, b = [2.45, 2.3, 2.35, 2.4, 2.35], [2.1, 2.2, 2.15, 2.05, 2.2]
    diff, low, high = V.difference_interval(a, b)
    ci = stats.ttest_ind(a, b, equal_var=False).confidence_interval(0.95)
    assert diff == pytest.approx(0.23) and (low, high) == pytest.approx((ci.low, ci.high))
    with pytest.raises(ValueError, match="at least 2 runs"):
        V.difference_interval([1.0], b)


# ---------------------------------------------------------------- comparability as data
@pytest.mark.parametrize("key, comparable", [
    ("mnist/green-elm/unit/pinv/d=2000/accuracy", True),
    ("mnist/sgd-mlp/accuracy", True),                               # unstated optimiser alone: comparable
    ("cifar10/green-elm/unit/cholesky/d=2000/accuracy", True),      # Table VI is raw pixels
    ("cifar10/sgd-mlp/accuracy", False),                            # width and schedule unstated
    ("cifar10/green-elm/unit/cholesky/d=2000/sgd-mlp-over-fit-time-ratio", False),
    ("cifar10/green-elm/unit/cholesky/nested-in-d=4000/d=2000/accuracy", False),   # the figure's curve
    ("cifar10/arccos-kernel/accuracy", False),
    ("cifar10/green-elm/efficientnet-lite0/cholesky/d=4000/accuracy", False),
    ("cifar10-efficientnet-lite0/green-elm/oracle/d=4000/accuracy", False),
    ("cifar10/green-elm/efficientnet-lite0/pinv-over-cholesky/d=4000/solve-time-ratio", True),
    ("cifar10/listing2/pinv-over-cholesky/n=50000/d=4000/paired-time-ratio", True),
    # an accuracy difference on the backbone's embeddings is not comparable, like every Table II accuracy
    ("cifar10/green-elm/efficientnet-lite0/pinv-minus-cholesky/d=4000/accuracy-difference", False),
    ("cifar10/green-elm/random-conv/cholesky/d=2000/accuracy", False),
    ("cifar10/sgd-cnn/accuracy", False),
])
def test_comparability_rules(key, comparable):
    result = comparability(key)
    assert result.comparable is comparable
    assert bool(result.reason) is not comparable


def test_one_raw_pixel_accuracy_is_comparable_with_table_vi_and_not_with_the_scaling_figure():
    """The CIFAR-10 chapter's raw-pixel Green-ELM is Table VI's setting; the scaling chapter reads the
    same record for the figure's CIFAR-10 curve, which is not raw pixels: not comparable there only,
    and the scorecard's judgement of a scaling claim says so."""
    key = "cifar10/green-elm/unit/cholesky/d=2000/accuracy"
    assert comparability(key, "cifar10").comparable and comparability(key).comparable
    figure = comparability(key, "scaling")
    assert not figure.comparable and "scaling figure's CIFAR-10 curve" in figure.reason
    assert comparability("mnist/green-elm/unit/cholesky/d=2000/accuracy", "scaling").comparable
    results = {key: Result(key, (46.2, 46.5, 46.9, 46.1, 46.8), "%", {}, "cifar10", "AMD EPYC, 2 cores",
                           "2026-11-28", "")}
    verdict = scorecard_verdict("fig_scaling_cifar10_d2000_accuracy", Verdict("differs, beyond margin", "46.50 %"), [key], results)
    assert verdict.label == "not comparable" and "scaling figure's CIFAR-10 curve" in verdict.detail


def test_an_unstated_optimiser_makes_nothing_not_comparable():
    """MNIST's and CIFAR-10's MLPs get the same treatment of the optimiser the paper never states."""
    from greenelm_book.judging.comparability import RULES

    assert not any("optimi" in reason or "learning rate" in reason for _, reason in RULES)


def test_quiet_timings_are_read_from_the_setting():
    assert is_quiet_timing({"timing": "quiet, whole fit, after a warm-up fit"})
    assert is_quiet_timing({"source": "benchmarks/report.json"})
    assert not is_quiet_timing({"timed": "training loop, data in memory"})


# ---------------------------------------------------------------- over the committed stores
def _results(folder):
    return {k: r for content in load_all(folder).values() for k, r in content["results"].items()}


def _answers(folder):
    return {c: a for content in load_all(folder).values() for c, a in content["answers"].items()}


@pytest.mark.parametrize("folder", STORES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_scorecard_verdict_comes_from_a_named_test(folder):
    card, results, claims = scorecard(folder), _results(folder), {c.id: c for c in CLAIMS}
    answered = card[card.verdict != "not yet answered"]
    assert set(answered.test) <= set(V.TESTS), set(answered.test) - set(V.TESTS)
    for row in answered.itertuples():
        claim = claims[row.claim]
        if row.test == "value_vs_paper":             # the function, called again on the stored runs
            key = _answers(folder)[row.claim].keys[0]
            unit = "" if claim.unit.startswith("fraction") else claim.unit
            again = V.value_vs_paper(claim.value, results[key].values, unit)
            assert again.label == row.verdict, row.claim
        elif row.test == "chapter_test":            # the chapter's own stated test, as recorded
            assert row.verdict == row.recorded, row.claim


@pytest.mark.parametrize("folder", STORES, ids=lambda p: str(p.relative_to(ROOT)))
def test_a_claim_on_not_comparable_evidence_is_not_comparable(folder):
    card, answers = scorecard(folder).set_index("claim"), _answers(folder)
    results = _results(folder)
    for claim, answer in answers.items():
        keys = [k for k in answer.keys if k in results]
        row = card.loc[claim]
        if keys and not any(comparability(k).comparable for k in keys):
            assert row.verdict in ("not comparable", "not measurable here"), (claim, row.verdict)
        if row.test in ("value_vs_paper", "difference_vs_paper", "ratio_across_machines", "equivalent_accuracy",
                        "same_machine_ratio"):
            assert all(comparability(k).comparable for k in keys[:2]), (claim, row.test)


def test_the_issues_cases_are_judged_on_comparable_evidence_only():
    folder = ROOT / "book" / "results"
    card = scorecard(folder).set_index("claim")
    for claim in ("cifar10_raw_speedup_vs_sgd", "elm_conv_total_time_parity", "elm_conv_viable_readout",
                  "cifar10_raw_parity_with_sgd"):
        assert card.loc[claim, "verdict"] == "not comparable", claim
    # claims that order the book's own measurements are judged on every dataset measured, CIFAR-10 included
    for claim in ("predictable_path_to_parity", "slope_inverse_to_complexity", "mnist_alpha_high_others_dampened"):
        assert "CIFAR-10" in card.loc[claim, "ours"] and "not comparable" not in card.loc[claim, "detail"], claim
    # the same-H solve times are judged (they depend on H's shape); the accuracy cost on EfficientNet
    # embeddings is not comparable, as every other Table II accuracy row
    assert card.loc["cholesky_accuracy_cost_0_01", "verdict"] == "not comparable"
    for claim in ("table2_pinv_d4000_accuracy", "table2_cholesky_d4000_accuracy"):
        assert card.loc[claim, "verdict"] == "not comparable", claim
    assert card.loc["pinv_over_cholesky_speedup_d4000", "test"] == "ratio_across_machines"
    assert card.loc["table4_pinv_d2000_seconds", "test"] == "ratio_across_machines"
    # SGD and the fit timed in separate runs: not judged (the quiet benchmark's pairs replace them)
    assert card.loc["speedup_vs_sgd_mnist_d2000", "verdict"] in ("not comparable", "concordant", "discordant",
                                                                "inconclusive")
    if card.loc["speedup_vs_sgd_mnist_d2000", "test"] != "ratio_across_machines" or "interleaved" not in str(
            card.loc["speedup_vs_sgd_mnist_d2000", "note"]):
        assert card.loc["speedup_vs_sgd_mnist_d2000", "verdict"] == "not comparable"
    assert card.loc["abstract_comparable_to_sgd", "test"] == "equivalent_accuracy"


@pytest.mark.parametrize("folder", STORES, ids=lambda p: str(p.relative_to(ROOT)))
def test_each_measurement_is_judged_once_per_paper_value(folder):
    card = scorecard(folder)
    answers, results = _answers(folder), _results(folder)
    claims = {c.id: c for c in CLAIMS}
    seen = {}
    for row in card[card.same_as == ""].itertuples():
        claim = claims[row.claim]
        if claim.value is None or row.claim not in answers or not answers[row.claim].keys:
            continue
        first = answers[row.claim].keys[0]
        if row.test in ("value_vs_paper", "timing_across_machines") and first in results:
            fingerprint = (row.test, claim.value, results[first].values)
            assert fingerprint not in seen, f"{row.claim} repeats {seen[fingerprint]}"
            seen[fingerprint] = row.claim
    order = list(card.claim)
    for row in card[card.same_as != ""].itertuples():
        original = card.set_index("claim").loc[row.same_as]
        assert order.index(row.same_as) < order.index(row.claim)
        assert (original.verdict, original.ours) == (row.verdict, row.ours)
    assert counts(card, unique=True).loc["all"].sum() == (card.same_as == "").sum()
    assert verdict_totals(card)["claims"].sum() == len(card)


def test_the_mnist_d2000_accuracy_is_one_judgement():
    card = scorecard(ROOT / "book" / "results").set_index("claim")
    assert card.loc["table1_mnist_pinv_d2000_accuracy", "same_as"] == ""
    for claim in ("abstract_mnist_d2000_accuracy", "fig_scaling_mnist_d2000_accuracy"):
        assert card.loc[claim, "same_as"] == "table1_mnist_pinv_d2000_accuracy"
    # against another paper value (Table IV's 96.92 %) the same runs are another judgement
    assert card.loc["table4_pinv_d2000_accuracy", "same_as"] == ""


def test_the_summary_api_counts_unique_judgements_and_merges_differs():
    from greenelm_book.summaries.scorecard import base_verdict, unique_judgements

    card = scorecard(ROOT / "book" / "results")
    merged = counts(card, unique=True, split_differs=False).loc["all"]
    unique = unique_judgements(card)
    assert merged["differs"] == unique.verdict.map(base_verdict).eq("differs").sum()
    assert merged["differs"] == sum(verdict_totals(card).loc[v, "unique"] for v in verdict_totals(card).index
                                    if v.startswith("differs"))
    assert len(unique) < len(card)


def test_qualitative_texts_name_the_datasets_as_the_book_does():
    """The verdict texts (shown on the pages and the scorecard) print "Fashion-MNIST 2.14", not the
    store's id "fashion-mnist 2.14"; a curve labelled otherwise keeps its own label."""
    flatter = V.flatter_than_anchor({"mnist": [2.4, 2.3, 2.35], "fashion-mnist": [2.1, 2.2, 2.15]}, "mnist")
    assert flatter.ours.startswith("MNIST 2.35, Fashion-MNIST 2.15 (mean slopes); MNIST − Fashion-MNIST +0.20 (95 % CI"), flatter.ours
    assert "below MNIST's" in flatter.detail, flatter.detail
    reached = V.reaches_reference({"cifar10": [71.0, 71.2], "raw pixels": [50.0]},
                                  {"cifar10": 70.0, "raw pixels": 60.0})
    assert reached.ours == "CIFAR-10: 71.10 vs 70.00, raw pixels: 50.00 vs 60.00", reached.ours


def test_the_pages_timing_ratios_read_as_on_the_scorecard():
    """A chapter judging a paper's ratio shows the scorecard's judgement (rejudge.scorecard_verdict):
    the 11.6× speed-up is a ratio across machines (direction and order of magnitude, quiet timings
    only), and CIFAR-10's 5.1× uses the book's own MLP, so it is not comparable; the pages once said
    "differs" from a prediction interval of this machine's noise."""
    import json

    folder = ROOT / "book" / "results"
    card = scorecard(folder).set_index("claim")
    for chapter, claim in (("cifar10", "cifar10_raw_speedup_vs_sgd"),):    # baselines: tests/test_one_voice.py
        stored = json.loads((folder / f"{chapter}.json").read_text())["answers"][claim]["verdict"]
        assert stored["label"] == card.loc[claim, "verdict"], (claim, stored, card.loc[claim, "verdict"])
    assert card.loc["cifar10_raw_speedup_vs_sgd", "verdict"] == "not comparable"


def test_ranks_in_order_regime_by_regime():
    """A ranking that holds in one regime of three is "partly holds", the regime named; a step whose
    paired interval straddles 1 is inconclusive; a chain of the wrong length is an error."""
    seeds = np.array([1.0, 1.1, 0.9, 1.05, 0.95])
    ordered = [8 * seeds, 25 * seeds * [1, 1.01, 0.99, 1, 1], 26 * seeds]
    reversed_ = [1e6 * seeds, 25 * seeds, 26 * seeds]
    verdict = V.ranks_in_order({"d-gt-n": ordered, "duplicated-units": reversed_, "collinear-inputs": reversed_},
                               ("pinv", "LU", "Cholesky"))
    assert verdict.label == "partly holds" and verdict.ours.startswith("in order in 1 of 3 regimes (d-gt-n)")
    assert V.ranks_in_order({"a": ordered}, ("pinv", "LU", "Cholesky")).label == "holds"
    assert V.ranks_in_order({"a": reversed_}, ("pinv", "LU", "Cholesky")).label == "does not hold"
    level = [8 * seeds, 8 * seeds * [1.02, 0.98, 1.01, 0.99, 1.0]]
    undecided = V.ranks_in_order({"a": [8 * seeds, 25 * seeds], "b": level}, ("pinv", "LU"))
    assert undecided.label == "inconclusive" and "straddles 1 for b" in undecided.detail
    with pytest.raises(ValueError, match="2 chains for 3 names"):
        V.ranks_in_order({"a": ordered[:2]}, ("pinv", "LU", "Cholesky"))
    with pytest.raises(ValueError, match="one value per seed"):
        V.ranks_in_order({"a": [seeds, seeds[:3]]}, ("pinv", "LU"))


def test_reaches_somewhere_judges_every_dataset():
    assert V.reaches_somewhere({"mnist": [1.0, 1.01], "cifar10": [1.0, math.inf]}, 10).label == "partly holds"
    assert V.reaches_somewhere({"mnist": [12.0, 1.0]}, 10).label == "holds"
    assert V.reaches_somewhere({"mnist": [9.99]}, 10).label == "does not hold"
    verdict = V.reaches_somewhere({"cifar10": [math.inf]}, 10, what="reduction")
    assert verdict.ours == "CIFAR-10: largest reduction unbounded"
    with pytest.raises(ValueError, match="mnist"):
        V.reaches_somewhere({"mnist": [float("nan")]}, 10)


def test_exponent_within_uses_the_interval_of_the_slope():
    """The slope and its t interval equal scipy's linregress; inside the band holds, wholly outside
    does not hold, straddling a bound is inconclusive; too few points is an error."""
    sizes = np.array([6e4, 5e5, 1e6, 2e6])
    rng = np.random.default_rng(0)
    for p, noise, label in ((1.0, 0.01, "holds"), (1.3, 0.01, "does not hold"), (1.08, 0.3, "inconclusive")):
        values = sizes ** p * np.exp(noise * rng.standard_normal(sizes.size))
        verdict = V.exponent_within(sizes, values, (0.9, 1.1))
        fit = stats.linregress(np.log(sizes), np.log(values))
        half = stats.t.ppf(0.975, sizes.size - 2) * fit.stderr
        assert verdict.label == label, (p, verdict)
        assert verdict.ours == (f"p = {fit.slope:.2f} (95 % CI {fit.slope - half:.2f} to {fit.slope + half:.2f}, "
                                f"4 points)")
    with pytest.raises(ValueError, match="at least 3 points"):
        V.exponent_within([1, 2], [1, 2], (0.9, 1.1))


def test_a_mean_difference_states_a_side_only_where_its_interval_decides_it():
    from greenelm_book.judging.verdicts import difference_interval, mean_difference_words

    assert mean_difference_words([89.8, 89.4, 89.5, 89.7, 89.5], [89.18]).startswith("above (its 95 % interval, +")  # vs a fixed value
    assert mean_difference_words([89.8, 89.4, 89.5, 89.7, 89.5], [89.18], with_interval=False) == "above"
    assert mean_difference_words([46.1, 47.5, 45.0, 47.9, 46.0], [47.5, 46.0, 48.9, 46.3, 46.9]) == (
        "below on the means (no direction judged: its 95 % interval, {:+.2f} to {:+.2f}, includes no "
        "difference)".format(*difference_interval([46.1, 47.5, 45.0, 47.9, 46.0], [47.5, 46.0, 48.9, 46.3, 46.9])[1:]))
    assert mean_difference_words([89.75, 89.31, 89.99, 89.81, 89.72], [89.83, 89.37, 89.46, 89.72, 89.46],
                                 ("below Green-ELM", "above Green-ELM")).startswith("above Green-ELM on the means")
    assert mean_difference_words([1.0], [2.0]) == "below on the means (no direction judged: one run per side)"
    assert mean_difference_words([36.4], [46.0, 46.5, 47.0], with_interval=False) == "below"   # the fixed side first
    assert mean_difference_words([2.0, 2.0], [2.0, 2.0]).startswith("level with")


def test_a_claim_of_parts_holds_only_when_every_part_does_and_fails_on_one_refuted_part():
    from greenelm_book.judging.verdicts import conjunction

    assert conjunction([True, True]) is True
    assert conjunction([True, False]) == "partly"
    assert conjunction([False, None]) is False          # a refuted part fails the claim whatever the other
    assert conjunction([True, None]) == "inconclusive"  # nothing refuted, one part undecided
    assert conjunction([None]) == "inconclusive" and conjunction([False]) is False
