"""The book's tests, one named function per kind of test, each rule stated once (:data:`RULES`).

Every verdict the scorecard shows comes from one of these functions applied to the runs stored in
the results store (:mod:`greenelm_book.store.results`); chapters call the same functions when they judge.

- :func:`value_vs_paper` — a number the paper prints once against our runs: the prediction-interval
  rule of :data:`greenelm_book.report.RULE` (n ≥ 5), and beside it a **practical margin** chosen in
  advance per unit (:data:`PRACTICAL_MARGINS`; accuracy ±0.5 points): a "differs" is *within the
  margin* when the two one-sided tests (TOST) put the mean within it, *beyond the margin* when a
  one-sided test puts it outside, else the margin is undecided.
- :func:`difference_vs_paper` — the same for a paper's difference of two single runs (Welch).
- :func:`same_machine_ratio` — two timings measured in one run here: the 95 % confidence interval
  of their ratio (log scale) must exclude 1 on the claimed side.
- :func:`ratio_across_machines` — a paper's ratio from another machine: judged only on direction
  and order of magnitude (our 95 % CI against the boundaries 1 and ×/÷ 3 of the paper's ratio),
  from ≥ 5 pairs timed in one quiet run; never by a prediction interval, and never "reproduced":
  its words are "concordant" and "discordant".

Every label any of these returns is on :data:`LADDER`, with the one condition that gives it;
:func:`ladder_label` picks it from the judgement's facts and fails when the conditions do not
give exactly one.
- :func:`timing_across_machines` — a paper's seconds: never judged (information only).
- :func:`equivalent_accuracy` — "comparable to", "parity": one equivalence test (TOST, Welch) on
  the accuracy difference at ±:data:`PARITY_MARGIN` points, shared by every such claim.
- qualitative tests shared by the chapters: :func:`above_threshold`, :func:`rises_at_every_step`,
  :func:`rises_throughout`, :func:`gains_shrink`,
  :func:`reaches_reference`, :func:`flatter_than_anchor`, and :func:`all_some_none` (the one
  "holds / partly / does not hold" rule for a test applied to several datasets or regimes).
"""

from __future__ import annotations

import math
import numpy as np

from ..paper import dataset_name
from ..report import MIN_RUNS, Verdict, _decimals, _signed, _unit_text, ours_text, prediction_interval

__all__ = ["no_direction_reason", "MIN_RUNS", "TEST_LEVEL", "PRACTICAL_MARGINS", "PARITY_MARGIN", "PARITY_MARGIN_WHY", "DIFFERENCE_SHARE", "difference_margin", "ORDER_OF_MAGNITUDE", "RULES",
           "TESTS", "conjunction", "practical_margin", "tost_p", "beyond_margin_p", "margin_outcome", "value_vs_paper",
           "difference_vs_paper", "ratio_interval", "same_machine_ratio", "ratio_across_machines",
           "timing_across_machines", "equivalent_accuracy", "all_some_none", "above_threshold",
           "rises_at_every_step", "rises_throughout", "gains_shrink", "reaches_reference",
           "difference_interval", "mean_difference_words", "gap_phrase", "labelled_direction", "reaches_within_margin", "flatter_than_anchor", "margin_label", "judge_between", "LADDER", "LADDER_CONDITIONS",
           "ladder_label", "mean_beyond_bound", "THRESHOLDS", "GAIN_LABELS", "MIN_GAIN_RUNS",
           "gain_label", "gain_over", "TEST_WORDS", "words_of_test", "ranks_in_order", "reaches_somewhere",
           "exponent_within", "evidence_bound", "quiet_bound", "direction_words", "DECIDED_LABELS", "DIRECTION_LABELS", "RATIO_LABELS"]

#: the level of every one-sided test here (TOST's two tests, the margin's, the ratio's direction)
TEST_LEVEL = 0.05
#: the practical margin per unit, chosen before looking at the results: (size, "absolute" or
#: "relative" to the paper's value). Accuracy: half a point — the rounding of a percentage to one
#: decimal plus the seed-to-seed spread the paper does not report; a difference of accuracies in
#: points: the same; an entropy in bits: a quarter bit (a 19 % change of a histogram's width); a
#: dimensionless fitted parameter (Table III's α, β, C; a symmetry score): 10 % of the paper's value.
PRACTICAL_MARGINS = {"%": (0.5, "absolute"), "points": (0.5, "absolute"), "bits": (0.25, "absolute"),
                     "": (0.10, "relative"), "fraction": (0.10, "relative"),
                     "fraction per ln d": (0.10, "relative")}
#: "comparable", "parity": the widest accuracy gap the paper itself calls parity (CIFAR-10 raw
#: pixels, 51 % against 52 %), in points
PARITY_MARGIN = 1.0
#: why the parity margin is what it is, in the words every page that uses it reads (one justification)
PARITY_MARGIN_WHY = "the widest gap the paper itself calls parity (CIFAR-10 raw pixels, 51 % against 52 %)"
#: a paper's difference is judged within at most this share of itself (a margin as wide as half the
#: quantity would call a gain "reproduced" that is half the paper's), else the unit's margin
DIFFERENCE_SHARE = 0.25
#: a cross-machine ratio agrees in order of magnitude when ours is within this factor of the paper's
#: (×/÷ 3: half an order of magnitude, rounded to the factor a reader can check in their head)
ORDER_OF_MAGNITUDE = 3.0

RULES = {
    "value_vs_paper": "reproduced when the paper's value lies inside our 95 % prediction interval for "
                      "one run (n ≥ 5 runs) and TOST puts our mean within the practical margin "
                      "(p < 0.05); differs, within margin when TOST does but the interval misses the "
                      "paper's value; inconclusive when the interval holds the paper's value but "
                      "equivalence is not shown; differs, beyond margin when a one-sided t-test puts "
                      "our mean outside the margin; differs, margin undecided otherwise; for a paper's "
                      "difference (a gain) the margin is the smaller of the unit's and 25 % of the difference",
    "difference_vs_paper": "as value_vs_paper (the same ladder), for a difference of two independently "
                           "measured quantities (Welch's prediction interval, TOST and margin test), with "
                           "the margin the smaller of the unit's and 25 % of the paper's difference",
    "same_machine_ratio": "two timings from one run here: holds when the 95 % CI of their ratio "
                          "(Welch, log scale, n ≥ 5 each) lies on the claimed side of 1, does not hold "
                          "when it lies on the other side, else inconclusive",
    "ratio_across_machines": "a paper's ratio from another machine, both sides timed in one quiet run "
                             "(≥ 5 pairs): concordant when our 95 % CI lies on the paper's side of 1 and within "
                             "×/÷ 3 of the paper's ratio; discordant when it lies wholly on the other side of 1 "
                             "or wholly beyond ×/÷ 3 (never \"reproduced\": seconds from two machines); "
                             "inconclusive only when it straddles one of "
                             "those boundaries (or with fewer runs, or timings not recorded as quiet); "
                             "not comparable when the two sides come from different runs",
    "timing_across_machines": "a paper's seconds are never judged: ours and the ratio, information only",
    "closer_paired": "which of two variants lies closer to the paper's values, paired over the same rows (the "
                     "paper's rows where both variants ran): holds when the 95 % t confidence interval of the "
                     "mean paired difference |B − paper| − |A − paper| (points) lies above 0, does not hold when "
                     "it lies below 0, inconclusive when it straddles 0 or fewer than 3 rows are paired",
    "seeds_rule": "a point measured on one seed cannot decide a verdict alone: a test whose outcome rests on "
                  "one-seed points is inconclusive (what the test gives on them is shown for information); a "
                  "curve is judged on its widths with at least 2 seeds, and a one-seed width leaves it undecided; one seed "
                  "that refutes a claim about every seed (a protocol over its limit after starting on a quiet machine) "
                  "decides that claim alone, as a counterexample; an identity checked at every step (the streaming "
                  "update's exactness, on every update) is no estimate, and the rule does not bound it",
    "quiet_rule": "a timing decides a verdict only when recorded as quiet: the 1- and 5-minute load averages both at "
                  "most 0.5 before it was taken, or a timing step of its own on a quiet machine; a claim whose timings "
                  "are not recorded as quiet is inconclusive (what the test gives on them is shown for information)",
    "equivalent_accuracy": "comparable / parity: holds when TOST (Welch) puts the mean accuracy "
                           "difference within ±1 point (p < 0.05), does not hold when a one-sided test "
                           "puts it beyond, else inconclusive",
    "above_threshold": "holds when the lower end of our 95 % prediction interval is above the threshold",
    "mean_beyond_bound": "holds when, on every dataset, the 95 % confidence interval (t, over seeds) of the "
                         "mean lies beyond the bound on the claimed side (partly: on some, the others on the "
                         "other side); inconclusive when an interval straddles the bound",
    "rises_at_every_step": "holds when the mean rises by more than 2 sd at every step, on every curve "
                           "(partly: on some curves)",
    "rises_throughout": "holds when the mean rises with every widening, on every curve (partly: on some)",
    "gains_shrink": "holds when each widening's mean gain is smaller than the previous one, on every "
                    "curve (partly: on some); an equal gain is not smaller (ln d's law)",
    "reaches_reference": "holds when our value reaches the reference on every dataset (partly: on some)",
    "reaches_within_margin": "non-inferiority against runs of the book's own: holds when, on every dataset, "
                             "the 95 % Welch confidence interval of our mean minus the reference's lies above "
                             "−1 point (partly: on some, the others below); inconclusive when an interval "
                             "straddles −1",
    "flatter_than_anchor": "holds when, for every other dataset, the 95 % Welch confidence interval of "
                           "the anchor's slope minus its slope (per-seed slopes) lies above 0 and its mean "
                           "slope is positive (partly: for some, the others steeper); inconclusive when an "
                           "interval straddles 0",
    "ranks_in_order": "a ranking first < second < … in every regime: a regime passes when each step's 95 % "
                      "confidence interval of the paired ratio (later / earlier, t over seeds on the logs) lies "
                      "above 1, fails when one lies below 1; holds in every regime, partly in some (the others "
                      "failing); inconclusive when a step's interval straddles 1",
    "reaches_somewhere": "a deterministic quantity (one draw) reaches a bound at some measured setting: holds on "
                         "every dataset, partly on some, does not hold on none",
    "exponent_within": "the 95 % confidence interval (t, n − 2 degrees of freedom) of a least-squares exponent "
                       "on log–log lies within the claim's band: holds; wholly outside: does not hold; "
                       "straddling a bound: inconclusive",
    "gain_over": "a gain of variant B over variant A, from n ≥ 3 seeds that each ran both (paired): "
                 "gain (holds) when the mean paired difference B − A exceeds twice the sd of the paired "
                 "differences (and the floor, e.g. one test image); loss (does not hold) when it lies "
                 "below minus that; otherwise no gain shown (inconclusive)",
}
#: the ladder: every label a verdict function of this module returns, each with the one condition
#: that gives it ((label, condition), shown on the intro page). For any judgement exactly one
#: condition holds (:func:`ladder_label` checks it at every verdict; tests/test_ladder.py checks the
#: conditions exclude each other and cover every case); no label implies another, and the two words
#: of a ratio from another machine are its own (seconds timed elsewhere are never "reproduced")
LADDER = (
    ("reproduced", "a number against the paper's (n ≥ 5 runs): the paper's value inside our 95 % prediction "
                   "interval for one run and TOST puts our mean within the practical margin (p < 0.05)"),
    ("differs, within margin", "a number against the paper's (n ≥ 5): TOST puts our mean within the practical "
                               "margin, but the prediction interval misses the paper's value"),
    ("differs, margin undecided", "a number against the paper's (n ≥ 5): the prediction interval misses the "
                                  "paper's value and neither within nor beyond the margin is shown"),
    ("differs, beyond margin", "a number against the paper's (n ≥ 5): a one-sided t-test puts our mean "
                               "outside the practical margin (p < 0.05)"),
    ("concordant", "a paper's ratio of two timings from another machine, both sides timed here in one quiet "
                   "run (≥ 5 pairs): our 95 % CI on the paper's side of 1 and within ×/÷ 3 of the paper's "
                   "ratio (same direction and order of magnitude; never \"reproduced\")"),
    ("discordant", "a paper's ratio of two timings from another machine, both sides timed here in one quiet "
                   "run (≥ 5 pairs): our 95 % CI wholly on the other side of 1, or wholly beyond ×/÷ 3 of the "
                   "paper's ratio"),
    ("holds", "a claim's stated test passes on every dataset, regime or stated part of the claim it is applied "
              "to (a claim of two parts — \"faster and less accurate\" — is tested part by part)"),
    ("partly holds", "the stated test passes on at least one of those datasets, regimes or parts and fails "
                     "on at least one (the row names which; a part left undecided is named and moves neither)"),
    ("does not hold", "the stated test fails on at least one dataset, regime or part and passes on none (a "
                      "part left undecided is named: one failure already refutes a claim about every part)"),
    ("inconclusive", "the evidence does not decide its test: fewer runs than the test needs, timings not "
                     "recorded as quiet, or an interval that straddles one of the test's boundaries (a number "
                     "against the paper's: its value inside our prediction interval, the margin undecided); "
                     "for a claim of parts, a part undecided and none failed"),
    ("not comparable", "the two sides were not measured alike: a setting other than the paper's, seconds "
                       "on another machine, or a ratio whose two sides come from different runs; the "
                       "difference is shown for information, never judged"),
    ("not measurable here", "no measurement here can decide it (the claim's row says why): the book's machine "
                            "cannot measure it, the claim is about a device the book does not have (an edge node, "
                            "an embedded or battery-powered device), or it states no outcome to measure (a "
                            "setting, a definition, or what the paper's code does)"),
)


def _value_conditions(enough: bool, inside: bool, margin: str) -> dict:
    return {"reproduced": enough and inside and margin == "within",
            "differs, within margin": enough and not inside and margin == "within",
            "differs, margin undecided": enough and not inside and margin == "undecided",
            "differs, beyond margin": enough and margin == "beyond",
            "inconclusive": not enough or (inside and margin == "undecided")}


def _ratio_conditions(same_run: bool, enough: bool, side: str, band: str) -> dict:
    agrees = side == "paper" and band == "inside"
    disagrees = side == "other" or band == "outside"
    return {"not comparable": not same_run,
            "concordant": same_run and enough and agrees,
            "discordant": same_run and enough and disagrees,
            "inconclusive": same_run and (not enough or not (agrees or disagrees))}


def _test_conditions(enough: bool, outcomes: tuple) -> dict:
    # as the ladder's words say: an undecided outcome moves neither side; a failure refutes "every"
    every = bool(outcomes) and all(o == "pass" for o in outcomes)
    passed, failed = "pass" in outcomes, "fail" in outcomes
    return {"holds": enough and every,
            "partly holds": enough and passed and failed,
            "does not hold": enough and failed and not passed,
            "inconclusive": not enough or (not every and not failed)}


#: the conditions of :data:`LADDER` by kind of judgement, as predicates of its facts:
#: ``value`` (enough runs, the paper's value inside our prediction interval, the margin's outcome
#: "within" / "beyond" / "undecided"), ``ratio`` (same_run, enough: runs and quiet, our CI's side of 1
#: "paper" / "other" / "straddles", its place against ×/÷ 3 "inside" / "outside" / "straddles") and
#: ``test`` (enough runs, one outcome "pass" / "fail" / "undecided" per dataset or regime)
LADDER_CONDITIONS = {"value": _value_conditions, "ratio": _ratio_conditions, "test": _test_conditions}


def ladder_label(kind: str, **facts) -> str:
    """The one label of :data:`LADDER` whose condition holds for ``facts`` of a judgement of ``kind``
    (one of :data:`LADDER_CONDITIONS`); an error if none or several hold (a ladder that does not hold
    together)."""
    if kind not in LADDER_CONDITIONS:
        raise ValueError(f"kind must be one of {sorted(LADDER_CONDITIONS)}, got {kind!r}")
    held = [label for label, holds in LADDER_CONDITIONS[kind](**facts).items() if holds]
    if len(held) != 1:
        raise RuntimeError(f"the ladder gives {held or 'no label'} for {kind} {facts}: its conditions must "
                           "exclude each other and cover every case")
    return held[0]


#: every threshold a chapter's own stated test uses ("chapter_test" on the scorecard), in one place:
#: (threshold, the claims it decides, why this value)
THRESHOLDS = (
    ("±1 point", "parity and \"comparable\" accuracies (every chapter); the scaling index within 1 point "
                 "of each point; a frozen head no more than 1 point below the SGD head",
     PARITY_MARGIN_WHY),
    ("±0.5 point, ±0.25 bit, ±10 % (relative)", "a number against the paper's (value and difference tests)",
     "the practical margins, fixed per unit before any result: a printed decimal plus the seed "
     "spread the paper does not report"),
    (f"{DIFFERENCE_SHARE:.0%} of the paper's difference".replace("%", " %"),
     "a difference (a gain) against the paper's: the margin is the smaller of the unit's and this share",
     "a margin as wide as half the quantity would call a gain \"reproduced\" that is half the paper's"),
    ("> 10 points", "a frozen backbone is effective (lift over raw pixels); catastrophic forgetting",
     "twenty times the practical margin of an accuracy (±0.5 point)"),
    ("2 (combined) standard deviations", "a mean rises at every step; Green-ELM's readout entropy above "
                                         "every SGD matrix's",
     "about a 95 % separation of two means, as the book's other tests"),
    ("2 paired standard errors", "pinv's accuracy above the factorisations' (paired by seed, rank-deficient "
                                 "regimes)",
     "the paired form of the same separation: the mean of the per-seed differences beyond twice its standard "
     "error"),
    ("0.5 bit of a Gaussian's entropy", "high entropy of the readout (per column, every regime)",
     "twice the practical margin of an entropy; about a 40 % change of a histogram's width"),
    ("Hoyer sparsity 0.293, excess kurtosis 3", "dense / broadly distributed / sparse weights",
     "the Laplace law's values: the usual boundary between dense (Gaussian-like) and sparse priors"),
    ("exponent within 0.05 (FLOP model) and ±0.25 (wall time)", "the complexity exponents in N and d",
     "0.05 is the FLOP model's rounding; a quarter power is the smallest change of exponent two-core "
     "timings over this range of sizes resolve"),
    ("0.9 ≤ p ≤ 1.1", "total cost linear in N (the Dask fit)", "the relative margin of a fitted parameter (10 %)"),
    ("more than half of the fit", "the Gram and the factorisation dominate", "what \"dominate\" means"),
    ("0.8–1.25×", "time parity of two pipelines on one machine",
     "the usual equivalence band for a ratio (symmetric on the log scale: ln 1.25 = −ln 0.8 ≈ 0.22)"),
    ("under a quarter of the pipeline", "a readout cheap enough to be viable", "the paper's own share "
                                                                               "(5.2 of 183.2 s) with room"),
    ("1e-8 relative; 100× farther", "exact RLS; float64 mitigates drift",
     "float64 round-off over thousands of updates stays orders below 1e-8; a hundredfold gap separates "
     "float32 drift from round-off"),
    ("1 s", "sub-second streaming updates", "the claim's own words"),
    ("tenfold", "Tikhonov improves the conditioning", "an order of magnitude, as numerical practice reads "
                                                      "\"improves conditioning\""),
    ("99.5 % on MNIST", "the ultra-wide map reaches the state of the art",
     "declared with the question, before any result, as the level of the state of the art on MNIST; it is "
     "not what a plain CNN reaches (the frontier's section 4 lists the book's own plain CNN's accuracy)"),
)
#: every test name the scorecard may cite (the functions above, and the two that only record)
TESTS = tuple(RULES) + ("not_comparable", "not_measurable", "chapter_test")
#: what each test of :data:`TESTS` decides, in words: :data:`RULES`' text for the verdict functions, and
#: the three that only record (the words a page uses to say how a claim was judged: :func:`words_of_test`)
TEST_WORDS = {**RULES,
              # said in full, not by reference to another rule's name
              "difference_vs_paper": "a difference of two independently measured quantities (Welch's prediction "
                                     "interval, TOST and margin test), on the ladder of a number against the "
                                     "paper's, the margin the smaller of the unit's and 25 % of the paper's "
                                     "difference: " + RULES["value_vs_paper"],
              "not_comparable": "not judged: the setting, or the machine, is not the paper's; the difference is "
                                "shown for information",
              "not_measurable": "not judged: no measurement here can decide it (the book's machine cannot measure "
                                "it, it is about a device the book does not have, or it states a setting, a "
                                "definition or what the paper's code does, not an outcome)",
              "chapter_test": "the chapter's own stated test, recorded with the verdict"}


def words_of_test(test: str) -> str:
    """What the test named ``test`` (one of :data:`TESTS`, the name a judgement cites) decides, in words:
    the one description a page prints of how a claim was judged, so it cannot drift from the test used.
    ValueError for a name that is not a test."""
    if test not in TEST_WORDS:
        raise ValueError(f"no test named {test!r}; the tests are {', '.join(TESTS)}")
    return TEST_WORDS[test]


def _runs(values) -> np.ndarray:
    values = np.asarray(values, dtype=float).ravel()
    if values.size == 0 or not np.isfinite(values).all():
        raise ValueError(f"runs must be a non-empty list of finite numbers, got {values!r}")
    return values


def practical_margin(unit: str, paper: float) -> tuple[float, str]:
    """``(margin, text)`` for a value in ``unit``: ``(0.5, "±0.5-pt")``, ``(0.0043, "±10% (relative)")``
    for a paper's 0.0431; ``(nan, "")`` for a unit with no margin (seconds, ratios)."""
    if unit not in PRACTICAL_MARGINS:
        return float("nan"), ""
    size, kind = PRACTICAL_MARGINS[unit]
    if kind == "relative":
        return abs(paper) * size, f"±{size:.0%} (relative)"
    name = {"%": "pt", "points": "pt", "bits": "bit"}.get(unit, unit)
    return size, f"±{size:g}-{name}"


def _welch(a: np.ndarray, b: np.ndarray | None) -> tuple[float, float, float]:
    """``(estimate, standard error, degrees of freedom)`` of mean(a) (``b`` None, one sample) or of
    mean(a) − mean(b) (Welch)."""
    if b is None:
        if a.size < 2:
            raise ValueError("a t-test needs at least 2 runs")
        return float(a.mean()), float(a.std(ddof=1) / math.sqrt(a.size)), float(a.size - 1)
    if a.size < 2 or b.size < 2:
        raise ValueError("a Welch test needs at least 2 runs on each side")
    va, vb = a.var(ddof=1) / a.size, b.var(ddof=1) / b.size
    se = math.sqrt(va + vb)
    dof = (va + vb) ** 2 / (va ** 2 / (a.size - 1) + vb ** 2 / (b.size - 1)) if se > 0 else float("inf")
    return float(a.mean() - b.mean()), se, float(dof)


def _p_greater(estimate: float, se: float, dof: float, bound: float) -> float:
    """p of the one-sided t-test H0: true value ≤ bound against > bound."""
    from scipy.stats import t

    if se == 0:
        return 0.0 if estimate > bound else 1.0
    return float(t.sf((estimate - bound) / se, dof))


def tost_p(a, target: float, margin: float, b=None) -> float:
    """TOST p-value that mean(a) (or mean(a) − mean(b), Welch) lies within target ± margin: the
    larger of the two one-sided t-tests' p (small: equivalent). Needs ≥ 2 runs per side."""
    estimate, se, dof = _welch(_runs(a), None if b is None else _runs(b))
    lower = _p_greater(estimate, se, dof, target - margin)
    upper = _p_greater(-estimate, se, dof, -(target + margin))
    return max(lower, upper)


def beyond_margin_p(a, target: float, margin: float, b=None) -> float:
    """p of the one-sided t-test that mean(a) (or mean(a) − mean(b)) lies beyond target ± margin on
    the side of the estimate (small: the difference exceeds the margin)."""
    estimate, se, dof = _welch(_runs(a), None if b is None else _runs(b))
    if estimate >= target:
        return _p_greater(estimate, se, dof, target + margin)
    return _p_greater(-estimate, se, dof, -(target - margin))


def margin_outcome(a, target: float, margin: float, b=None) -> tuple[str, float]:
    """``("within", TOST p)``, ``("beyond", p)`` or ``("undecided", TOST p)`` at :data:`TEST_LEVEL`."""
    p_within = tost_p(a, target, margin, b)
    if p_within < TEST_LEVEL:
        return "within", p_within
    p_beyond = beyond_margin_p(a, target, margin, b)
    if p_beyond < TEST_LEVEL:
        return "beyond", p_beyond
    return "undecided", p_within


def margin_label(outcome: str) -> str:
    """The scorecard label of a "differs" by its margin outcome."""
    return {"within": "differs, within margin", "beyond": "differs, beyond margin",
            "undecided": "differs, margin undecided"}[outcome]


def _margin_text(outcome: str, p: float, margin_text: str, diff_text: str) -> str:
    if outcome == "within":
        return f"within the {margin_text} margin (TOST p = {p:.2g})"
    if outcome == "beyond":
        return f"{diff_text}, beyond the {margin_text} margin (p = {p:.2g})"
    return f"the {margin_text} margin undecided (TOST p = {p:.2g})"


def difference_margin(unit: str, paper: float, digits: int = 2) -> tuple[float, str]:
    """:func:`practical_margin` for a paper's difference: the smaller of the unit's margin and
    :data:`DIFFERENCE_SHARE` of the difference itself, with its words."""
    margin, margin_text = practical_margin(unit, paper)
    if DIFFERENCE_SHARE * abs(paper) < margin:
        margin = DIFFERENCE_SHARE * abs(paper)
        margin_text = f"±{margin:.{digits}g}-pt ({DIFFERENCE_SHARE:.0%} of the paper's difference)"
    return margin, margin_text


def value_vs_paper(paper: float, values, unit: str = "%", digits: int = 2,
                   min_runs: int = MIN_RUNS, difference: bool = False) -> Verdict:
    """A number the paper prints once against our runs (:data:`RULES` ``["value_vs_paper"]``).

    ``values``: one value per run (n,). Labels: reproduced, "differs, within margin", "differs,
    beyond margin", "differs, margin undecided", inconclusive (n < ``min_runs``), by
    :func:`ladder_label`. A unit without a practical margin (seconds, a ratio) is an error: a timing
    from another machine goes to :func:`timing_across_machines`, a ratio to :func:`ratio_across_machines`.
    ``difference``: the paper's number is a difference (a gain), judged with :func:`difference_margin`.
    """
    if unit not in PRACTICAL_MARGINS:
        raise ValueError(f"no practical margin for unit {unit!r} (have {sorted(PRACTICAL_MARGINS)}): a paper's "
                         "seconds are judged by timing_across_machines, a paper's ratio by ratio_across_machines")
    values = _runs(values)
    ours = ours_text(values, unit, digits)
    diff = float(values.mean()) - paper
    signed = _signed(diff, unit, digits)
    if values.size < min_runs:
        return Verdict(ladder_label("value", enough=False, inside=False, margin="undecided"), ours,
                       f"{signed}; {values.size} run(s), the rule needs {min_runs}")
    lo, hi = prediction_interval(values)
    tolerance = 0.5 * 10 ** -_decimals(paper)
    interval = f"95 % PI {lo:.{digits}f}–{hi:.{digits}f}"
    inside = lo - tolerance <= paper <= hi + tolerance
    margin, margin_text = (difference_margin if difference else practical_margin)(unit, paper, *(
        (digits,) if difference else ()))
    outcome, p = margin_outcome(values, paper, margin)
    diff_text = f"differs by {abs(diff):.{digits}f}{_unit_text('points' if unit == '%' else unit)}"
    return _laddered(inside, outcome, p, ours, f"{signed}; {interval}", margin_text, diff_text)


def _laddered(inside: bool, outcome: str, p: float, ours: str, evidence: str, margin_text: str,
              diff_text: str) -> Verdict:
    """The ladder of :data:`LADDER` for a number with a practical margin: ``inside`` (the paper's
    value lies in our prediction interval) and the margin's ``outcome`` with its ``p``."""
    margin_words = _margin_text(outcome, p, margin_text, diff_text)
    label = ladder_label("value", enough=True, inside=inside, margin=outcome)
    if label == "inconclusive":
        return Verdict(label, ours, f"{evidence}; the paper's value lies inside our interval but "
                                    f"{margin_words}: equivalence is not shown")
    return Verdict(label, ours, f"{evidence}; {margin_words}")


def difference_vs_paper(paper: float, a, b, unit: str = "points", digits: int = 2,
                        min_runs: int = MIN_RUNS) -> Verdict:
    """A paper's difference of two single runs against mean(a) − mean(b) (independent runs, Welch):
    :func:`greenelm_book.judging.comparisons.prediction_check`'s prediction interval, then the margin
    (:func:`ladder_label`). ``min_runs``: runs per side, or (runs of a, runs of b)."""
    from .comparisons import prediction_check

    if unit not in PRACTICAL_MARGINS:
        raise ValueError(f"no practical margin for unit {unit!r} (have {sorted(PRACTICAL_MARGINS)})")
    sides = tuple(min_runs) if isinstance(min_runs, (tuple, list)) else (min_runs, min_runs)
    inside, ours, detail = prediction_check(paper, a, b, "difference", unit, digits, sides)
    if inside is None:
        return Verdict(ladder_label("value", enough=False, inside=False, margin="undecided"), ours, detail)
    margin, margin_text = difference_margin(unit, paper, digits)
    a, b = _runs(a), _runs(b)
    outcome, p = margin_outcome(a, paper, margin, b)
    diff = float(a.mean() - b.mean()) - paper
    return _laddered(inside, outcome, p, ours, detail, margin_text, f"differs by {abs(diff):.{digits}f} pts")


def ratio_interval(a, b=None, level: float = 0.95) -> tuple[float, float, float]:
    """``(ratio, low, high)``: the ratio of geometric means of ``a`` over ``b`` (independent runs,
    Welch on the logs), or, with ``b`` None, the geometric mean of paired per-run ratios ``a``
    (one-sample t on the logs), with its ``level`` confidence interval. Needs ≥ 2 runs per side."""
    from scipy.stats import t

    a = _runs(a)
    if (a <= 0).any() or (b is not None and (_runs(b) <= 0).any()):
        raise ValueError("a ratio needs positive values")
    estimate, se, dof = _welch(np.log(a), None if b is None else np.log(_runs(b)))
    half = float(t.ppf(0.5 + level / 2, dof)) * se if se > 0 else 0.0
    return math.exp(estimate), math.exp(estimate - half), math.exp(estimate + half)


def _ratio_runs(a, b) -> tuple[np.ndarray, np.ndarray | None, str]:
    a = _runs(a)
    if b is None:
        return a, None, f"n = {a.size} paired runs"
    b = _runs(b)
    return a, b, f"n = {a.size} and {b.size}"


def same_machine_ratio(a, b=None, *, claimed: str = "above", min_runs: int = MIN_RUNS,
                       what: str = "ratio") -> Verdict:
    """Two timings measured in one run here (:data:`RULES` ``["same_machine_ratio"]``).

    ``a``, ``b``: runs of each (n_a,), (n_b,), or ``a`` alone: paired per-run ratios. ``claimed``:
    "above" (the claim: a / b > 1) or "below".
    """
    if claimed not in ("above", "below"):
        raise ValueError(f"claimed must be 'above' or 'below', got {claimed!r}")
    a, b, runs = _ratio_runs(a, b)
    sizes = [a.size] + ([] if b is None else [b.size])
    if min(sizes) < max(min_runs, 2):
        estimate = float(np.exp(np.log(a).mean() - (0 if b is None else np.log(b).mean())))
        return Verdict("inconclusive", f"{what} {estimate:.2f}× ({runs})",
                       f"the test needs {min_runs} runs per side")
    ratio, low, high = ratio_interval(a, b)
    ours = f"{what} {ratio:.2f}× (95 % CI {low:.2f}–{high:.2f}, {runs})"
    side = "above" if low > 1 else ("below" if high < 1 else None)
    if side is None:
        return Verdict("inconclusive", ours, "the 95 % CI of the ratio contains 1")
    return Verdict("holds" if side == claimed else "does not hold", ours,
                   f"the 95 % CI of the ratio lies {side} 1 (claimed: {claimed})")


def ratio_across_machines(paper_ratio: float, a, b=None, *, quiet: bool, same_run: bool = True,
                          min_runs: int = MIN_RUNS) -> Verdict:
    """A paper's ratio measured on another machine (:data:`RULES` ``["ratio_across_machines"]``).

    ``a``, ``b``: runs of numerator and denominator here (or ``a`` alone: paired per-run ratios);
    ``quiet``: whether the store records these timings as quiet (a step of their own or the
    benchmark's fresh processes); ``same_run``: whether both sides were timed in one run (a ratio
    whose sides come from different runs or days is not judged). The boundaries are 1 (direction)
    and the paper's ratio ×/÷ :data:`ORDER_OF_MAGNITUDE`; our 95 % CI decides, and only a CI that
    straddles a boundary is inconclusive.
    """
    if not paper_ratio > 0:
        raise ValueError(f"paper_ratio must be positive, got {paper_ratio!r}")
    a, b, runs = _ratio_runs(a, b)
    sizes = [a.size] + ([] if b is None else [b.size])
    estimate = float(np.exp(np.log(a).mean() - (0 if b is None else np.log(b).mean())))
    factor = estimate / paper_ratio
    info = f"ours / paper's = {factor:.2g}"
    if not same_run:
        return Verdict(ladder_label("ratio", same_run=False, enough=False, side="straddles", band="straddles"),
                       f"{estimate:.2f}× ({runs})",
                       f"{info}; its two sides were timed in different runs, so the ratio is not judged")
    if min(sizes) < max(min_runs, 2) or not quiet:
        why = [] if quiet else ["the timings are not recorded as quiet"]
        if min(sizes) < min_runs:
            why.append(f"{runs}, the test needs {min_runs} per side")
        return Verdict(ladder_label("ratio", same_run=True, enough=False, side="straddles", band="straddles"),
                       f"{estimate:.2f}× ({runs})",
                       f"{info}; {'; '.join(why)} (another machine: direction and order of magnitude only)")
    ratio, low, high = ratio_interval(a, b)
    ours = f"{ratio:.2f}× (95 % CI {low:.2f}–{high:.2f}, {runs})"
    band = (paper_ratio / ORDER_OF_MAGNITUDE, paper_ratio * ORDER_OF_MAGNITUDE)
    above = paper_ratio > 1
    paper_words = "above" if above else "below"
    side = ("paper" if (low > 1 if above else high < 1) else
            "other" if (high < 1 if above else low > 1) else "straddles")
    place = ("inside" if band[0] <= low and high <= band[1] else
             "outside" if high < band[0] or low > band[1] else "straddles")
    label = ladder_label("ratio", same_run=True, enough=True, side=side, band=place)
    if side == "other":
        why = (f"opposite direction: our 95 % CI lies {'below' if above else 'above'} 1, the paper's ratio "
               f"{paper_words}")
    elif place == "outside":
        why = f"our 95 % CI lies beyond ×/÷ {ORDER_OF_MAGNITUDE:g} of the paper's"
    elif label == "inconclusive":
        why = f"our 95 % CI straddles a boundary (1, or ×/÷ {ORDER_OF_MAGNITUDE:g} of the paper's)"
    else:
        why = f"same direction, our 95 % CI within ×/÷ {ORDER_OF_MAGNITUDE:g} of the paper's"
    return Verdict(label, ours, f"{info}; {why}")


def judge_between(paper: float, a, b, op: str = "difference", unit: str = "points", digits: int = 2,
                  min_runs=(MIN_RUNS, MIN_RUNS)) -> Verdict:
    """The book's verdict for a paper's difference (or ratio) of two single runs, from independent
    runs ``a`` and ``b``: a difference by :func:`difference_vs_paper`
    (the prediction interval, then the practical margin); a ratio of timings from separate runs by
    :func:`ratio_across_machines`, which does not judge it ("not
    comparable": its sides were not timed in one run)."""
    if op == "difference":
        return difference_vs_paper(paper, a, b, unit, digits, min_runs)
    if op == "ratio":
        return ratio_across_machines(paper, a, b, quiet=False, same_run=False)
    raise ValueError(f"op must be 'difference' or 'ratio', got {op!r}")


def timing_across_machines(paper_seconds: float, values, digits: int = 2, median: bool = False) -> Verdict:
    """A paper's seconds: never judged across machines (:data:`RULES` ``["timing_across_machines"]``);
    ``median=True`` for a latency (ours shown as its median and IQR, :func:`~greenelm_book.report.judge_time`)."""
    from ..report import judge_time

    return judge_time(paper_seconds, _runs(values), digits, median=median)


def equivalent_accuracy(a, b, margin: float = PARITY_MARGIN, min_runs: int = MIN_RUNS,
                        names: tuple[str, str] = ("ours", "baseline")) -> Verdict:
    """"Comparable to", "parity" (:data:`RULES` ``["equivalent_accuracy"]``): the one equivalence test
    on the accuracy difference mean(a) − mean(b) (runs (n_a,), (n_b,), in %)."""
    a, b = _runs(a), _runs(b)
    diff = float(a.mean() - b.mean())
    ours = f"{names[0]} − {names[1]} = {diff:+.2f} pts (n = {a.size} and {b.size})"
    if min(a.size, b.size) < max(min_runs, 2):
        return Verdict("inconclusive", ours, f"the test needs {min_runs} runs per side")
    outcome, p = margin_outcome(a, 0.0, margin, b)
    if outcome == "within":
        return Verdict("holds", ours, f"equivalent within ±{margin:g} pt (TOST p = {p:.2g})")
    if outcome == "beyond":
        return Verdict("does not hold", ours, f"the gap exceeds ±{margin:g} pt (one-sided p = {p:.2g})")
    return Verdict("inconclusive", ours, f"neither within nor beyond ±{margin:g} pt (TOST p = {p:.2g})")


#: the fewest seeds at a point for it to decide a verdict (:data:`RULES` ``["seeds_rule"]``)
MIN_DECIDING_SEEDS = 2


def closer_paired(gaps_a, gaps_b, names: tuple[str, str] = ("A", "B"), level: float = 0.95,
                  min_rows: int = 3) -> Verdict:
    """Whether variant A lies closer to the paper than variant B, paired over the same rows:
    ``gaps_a``, ``gaps_b`` (n rows each, the same rows in the same order): ours − the paper's value per
    row for each variant. The per-row difference |B gap| − |A gap| has a ``level`` t confidence
    interval: above 0 holds, below 0 does not hold, straddling 0 (or fewer than ``min_rows`` rows)
    inconclusive (:data:`RULES` ``["closer_paired"]``)."""
    from scipy.stats import t

    a, b = np.abs(np.asarray(gaps_a, float)), np.abs(np.asarray(gaps_b, float))
    if a.shape != b.shape or a.ndim != 1:
        raise ValueError(f"closer_paired needs the same rows for both variants, got {a.shape} and {b.shape}")
    diffs = b - a
    n = len(diffs)
    test = (f"{names[0]} closer to the paper than {names[1]}, paired over the {n} rows where both ran: the "
            f"{level * 100:.0f} % t confidence interval of the mean of |{names[1]} − paper| − |{names[0]} − "
            f"paper| lies above 0")
    if n < min_rows:
        label = ladder_label("test", enough=False, outcomes=())
        return Verdict(label, f"{n} paired rows", f"{test}; fewer than {min_rows} rows are paired")
    mean, sd = float(diffs.mean()), float(diffs.std(ddof=1))
    half = float(t.ppf(0.5 + level / 2, n - 1)) * sd / math.sqrt(n)
    low, high = mean - half, mean + half
    outcome = "pass" if low > 0 else "fail" if high < 0 else "undecided"
    label = ladder_label("test", enough=True, outcomes=(outcome,))
    ours = (f"mean |{names[1]} − paper| − |{names[0]} − paper| {mean:+.2f} points ({level * 100:.0f} % CI "
            f"{low:+.2f} to {high:+.2f}, n = {n} rows)")
    return Verdict(label, ours, test + ("; the interval straddles 0" if outcome == "undecided" else ""))


def seeds_rule(verdict: Verdict, runs: dict, min_runs: int = MIN_DECIDING_SEEDS) -> Verdict:
    """``verdict`` unless a point it rests on has fewer than ``min_runs`` seeds (``runs``: ``{point:
    number of seeds}``); then "inconclusive", the test's outcome kept for information
    (:data:`RULES` ``["seeds_rule"]``)."""
    few = {point: n for point, n in runs.items() if n < min_runs}
    if not few or (verdict.label == "inconclusive" and "(the seeds rule)" in verdict.detail):
        return verdict                           # nothing to rule on, or ruled already (a recorded answer)
    label = ladder_label("test", enough=False, outcomes=())
    counts = ", ".join(f"{point} ({n} seed{'s' if n != 1 else ''})" for point, n in few.items())
    return Verdict(label, verdict.ours, f"a point measured on fewer than {min_runs} seeds cannot decide alone "
                   f"(the seeds rule): {counts}; for information, the test gives {verdict.label} "
                   f"({verdict.detail})")


def rises_throughout_seeded(curves: dict, min_runs: int = MIN_DECIDING_SEEDS) -> Verdict:
    """:func:`rises_throughout` under the seeds rule: each curve (``{name: [runs at each width]}``, width
    order) judged on its points with at least ``min_runs`` seeds; a curve that passes there but has
    one-seed points is undecided (inconclusive), one that fails there fails."""
    return _seeded(curves, rises_throughout, min_runs)


def gains_shrink_seeded(curves: dict, min_runs: int = MIN_DECIDING_SEEDS) -> Verdict:
    """:func:`gains_shrink` under the seeds rule (as :func:`rises_throughout_seeded`)."""
    return _seeded(curves, gains_shrink, min_runs)


def _seeded(curves: dict, test, min_runs: int) -> Verdict:
    kept = {n: [p for p in points if len(_runs(p)) >= min_runs] for n, points in curves.items()}
    few = {n: sum(len(_runs(p)) < min_runs for p in points) for n, points in curves.items()}
    full = test(curves)
    if not any(few.values()):
        return full
    judged = {n: points for n, points in kept.items() if len(points) >= (3 if test is gains_shrink else 2)}
    outcomes = []
    for name in curves:
        if name not in judged:
            outcomes.append("undecided")
            continue
        passed = test({name: judged[name]}).label == "holds"
        outcomes.append("fail" if not passed else "undecided" if few[name] else "pass")
    label = ladder_label("test", enough=True, outcomes=tuple(outcomes))
    where = ", ".join(f"{dataset_name(n)} ({k} width{'s' if k != 1 else ''})" for n, k in few.items() if k)
    on_seeds = test(judged).ours if judged else "no curve has two widths with enough seeds"
    return Verdict(label, f"on the widths with ≥ {min_runs} seeds: {on_seeds}",
                   f"{full.detail}; a width measured on one seed cannot decide alone (the seeds rule): one seed "
                   f"at {where}; with them, {full.ours}")


def all_some_none(flags) -> bool | str:
    """A test applied to several datasets or regimes, each flag its pass (truthy) or fail: True when every
    flag is true, "partly" when some are, False when none is (or there are none). The ladder's one rule
    for parts (:func:`conjunction`) on parts that each passed or failed."""
    flags = [bool(f) for f in flags]
    return conjunction(flags) if flags else False


#: a part's outcome as the ladder's test outcomes: a part that partly holds has passed and failed somewhere
_PART_OUTCOMES = {True: ("pass",), False: ("fail",), None: ("undecided",), "partly": ("pass", "fail"),
                  "inconclusive": ("undecided",)}
_QUALITATIVE_OUTCOME = {"holds": True, "does not hold": False, "partly holds": "partly", "inconclusive": "inconclusive"}


def conjunction(parts) -> bool | str:
    """The outcome of a claim made of parts (or of one test over several datasets, regimes or matrices),
    each True (holds), False (refuted), None (undecided), "partly" (passed on some, failed on others) or
    "inconclusive", for :func:`~greenelm_book.report.judge_qualitative`, by the ladder's test conditions:
    True when every part holds, "partly" when one passes and one fails, False when one fails and none
    passes (a refuted part fails the claim alone), "inconclusive" when none fails and one is undecided;
    an undecided part moves neither side."""
    outcomes = []
    for part in parts:
        key = bool(part) if isinstance(part, np.bool_) else part
        if key not in _PART_OUTCOMES:
            raise ValueError(f"a part's outcome must be True, False, None, 'partly' or 'inconclusive', got {part!r}")
        outcomes.extend(_PART_OUTCOMES[key])
    return _QUALITATIVE_OUTCOME[ladder_label("test", enough=True, outcomes=tuple(outcomes))]


def _qualitative(outcome, ours: str, test: str) -> Verdict:
    from ..report import judge_qualitative

    return judge_qualitative(outcome, test, ours)


def above_threshold(values, threshold: float, min_runs: int = MIN_RUNS, unit: str = "%") -> Verdict:
    """Holds when the lower end of our 95 % prediction interval (runs (n,)) is above ``threshold``."""
    values = _runs(values)
    if values.size < min_runs:
        return Verdict("inconclusive", ours_text(values, unit), f"the test needs {min_runs} runs")
    low = prediction_interval(values)[0]
    return _qualitative(bool(low > threshold), f"{ours_text(values, unit)}; PI from {low:.2f}",
                        f"the lower end of the 95 % prediction interval above {threshold:g}")


def rises_at_every_step(curves: dict, min_runs: int = MIN_RUNS) -> Verdict:
    """``curves``: ``{name: [runs at width 1, runs at width 2, ...]}`` in width order. A curve rises
    when each step's mean gain exceeds twice the larger sd of its two ends; all / some / none."""
    if not curves:
        raise ValueError("rises_at_every_step needs at least one curve")
    rising = {}
    for name, points in curves.items():
        points = [_runs(p) for p in points]
        if min(p.size for p in points) < min_runs:
            return Verdict("inconclusive", "", f"{dataset_name(name)}: the test needs {min_runs} runs per width")
        rising[name] = all(b.mean() - a.mean() > 2 * max(a.std(ddof=1), b.std(ddof=1))
                           for a, b in zip(points, points[1:]))
    return _qualitative(all_some_none(rising.values()),
                        ", ".join(f"{dataset_name(n)}: {'rises' if r else 'not at every step'}" for n, r in rising.items()),
                        "the mean rises by more than 2 sd at every step, on every curve")


def _means_by_curve(curves: dict) -> dict:
    if not curves or any(len(points) < 2 for points in curves.values()):
        raise ValueError("every curve needs at least two widths")
    return {name: np.array([_runs(p).mean() for p in points]) for name, points in curves.items()}


def rises_throughout(curves: dict) -> Verdict:
    """``curves``: ``{name: [runs at each width]}`` in width order; a curve rises throughout when its
    mean rises with every widening; all / some / none."""
    means = _means_by_curve(curves)
    rising = {n: bool(np.all(np.diff(m) > 0)) for n, m in means.items()}
    return _qualitative(all_some_none(rising.values()),
                        f"rises throughout on {sum(rising.values())} of {len(rising)}: "
                        + ", ".join(dataset_name(n) for n, r in rising.items() if r),
                        "the mean accuracy rises with every widening, on every curve")


def gains_shrink(curves: dict) -> Verdict:
    """``curves``: ``{name: [runs at each width]}`` in width order; diminishing returns when each
    widening's mean gain is smaller than the one before; all / some / none. A gain equal to the one
    before is not smaller: an equal gain per doubling of d is ln d's law, the claim's alternative."""
    means = _means_by_curve(curves)
    shrinking = {n: bool(np.all(np.diff(np.diff(m)) < 0)) for n, m in means.items()}
    return _qualitative(all_some_none(shrinking.values()),
                        f"gains shrink throughout on {sum(shrinking.values())} of {len(shrinking)}: "
                        + ", ".join(dataset_name(n) for n, r in shrinking.items() if r),
                        "each widening's mean gain is smaller than the one before, on every curve (an "
                        "equal gain is not smaller: an equal gain per doubling of d is ln d's law)")


def reaches_reference(values: dict, references: dict, what: str = "reference") -> Verdict:
    """``values``: ``{dataset: our value or runs}``, ``references``: ``{dataset: the value to reach}``;
    holds when the mean reaches the reference on every dataset, partly on some."""
    if not values or set(values) - set(references):
        raise ValueError(f"every dataset of {sorted(values)} needs a reference, have {sorted(references)}")
    means = {n: float(_runs(v).mean()) for n, v in values.items()}
    reached = {n: means[n] >= references[n] for n in means}
    return _qualitative(all_some_none(reached.values()),
                        ", ".join(f"{dataset_name(n)}: {means[n]:.2f} vs {references[n]:.2f}" for n in means),
                        f"our value reaches the {what} on every dataset")


def difference_interval(a, b, level: float = 0.95) -> tuple[float, float, float]:
    """``(mean(a) − mean(b), low, high)``: the difference of two sets of independent runs with its
    ``level`` Welch confidence interval. Needs ≥ 2 runs per side."""
    from scipy.stats import t

    estimate, se, dof = _welch(_runs(a), _runs(b))
    half = float(t.ppf(0.5 + level / 2, dof)) * se if se > 0 else 0.0
    return estimate, estimate - half, estimate + half


def mean_difference_words(a, b, words: tuple[str, str] = ("below", "above"), level: float = 0.95, *,
                          with_interval: bool = True) -> str:
    """The side of mean(a) − mean(b) a sentence may state: ``words[0]`` below 0, ``words[1]`` above it,
    with its interval, when its ``level`` interval (:func:`difference_interval`, Welch) lies wholly on that
    side ("above (its 95 % interval, +0.20 to +0.58 points)"; the word alone with ``with_interval`` False,
    for a sentence that prints the interval elsewhere or reads it as a preposition); else the
    means' side with why no direction is judged: "below on the means (no direction judged: its 95 %
    interval, -2.66 to +1.40 points, includes no difference)". A side of one run is taken as a fixed
    value (the other side's one-sample interval): give one run only for a value with no random draw."""
    a, b = _runs(a), _runs(b)
    if a.size < 2 and b.size < 2:
        estimate, low, high = float(a.mean() - b.mean()), None, None
    elif b.size < 2 or a.size < 2:
        many, fixed, sign = (a, float(b[0]), 1.0) if b.size < 2 else (b, float(a[0]), -1.0)
        from scipy.stats import t

        centre, se, dof = _welch(many, None)
        half = float(t.ppf(0.5 + level / 2, dof)) * se
        estimate = sign * (centre - fixed)
        low, high = sorted((sign * (centre - half - fixed), sign * (centre + half - fixed)))
    else:
        estimate, low, high = difference_interval(a, b, level)
    if estimate == 0:
        return "level with (no direction: the means are equal)"
    side = words[0] if estimate < 0 else words[1]
    if low is None:
        return f"{side} on the means (no direction judged: one run per side)"
    if high < 0 or low > 0:
        return f"{side} (its {100 * level:g} % interval, {low:+.2f} to {high:+.2f} points)" if with_interval else side
    return (f"{side} on the means (no direction judged: its {100 * level:g} % interval, {low:+.2f} to {high:+.2f}, "
            "includes no difference)")


def gap_phrase(a, b, reference: str, words: tuple[str, str] = ("below", "above")) -> str:
    """A distance between runs ``a`` and ``b`` (a fixed value: one run) in words whose side follows the
    evidence: "0.42 points above Table I" where the 95 % Welch interval of mean(a) − mean(b) lies on that
    side (:func:`mean_difference_words`), else no side: "0.42 points from Table I on the means (no direction
    judged: its 95 % interval, −0.10 to +0.94, includes no difference)". ``words``: the side below and above ``b``;
    ``reference``: what ``b`` is called in the sentence."""
    said = mean_difference_words(a, b, words, with_interval=False)
    if said.startswith("level with"):
        return f"level with {reference} {said[len('level with '):]}"
    side = next(w for w in words if said.startswith(w))
    distance = abs(_runs(a).mean() - _runs(b).mean())
    if "no direction judged" in said:           # no side word where none is judged: "0.84 points from it on the means"
        return f"{distance:.2f} points from {reference}{said[len(side):]}"
    return f"{distance:.2f} points {side} {reference}{said[len(side):]}"


def _interval_outcomes(outcomes: dict, good: str, ours: str, test: str, boundary: str) -> Verdict:
    """The verdict of per-dataset interval outcomes (``{dataset: good | another word | "undecided"}``) by the
    ladder's test conditions: holds when every outcome is ``good``, partly when one is and another is not,
    does not hold when one is decidedly not and none is, inconclusive when an interval straddles
    ``boundary`` and none decidedly fails (a straddling dataset, named, moves neither side)."""
    undecided = [dataset_name(n) for n, o in outcomes.items() if o == "undecided"]
    label = ladder_label("test", enough=True, outcomes=tuple("undecided" if o == "undecided" else
                                                             "pass" if o == good else "fail"
                                                             for o in outcomes.values()))
    if undecided:
        return Verdict(label, ours, f"{test}; the interval straddles {boundary} for {', '.join(undecided)}")
    return Verdict(label, ours, test)


def reaches_within_margin(pairs: dict, margin: float = PARITY_MARGIN, level: float = 0.95,
                          what: str = "reference") -> Verdict:
    """``pairs``: ``{dataset: (our runs, the reference's runs)}`` (≥ 2 runs each, independent). A
    dataset reaches the reference when the ``level`` Welch interval of (ours − reference) lies above
    −``margin`` (non-inferiority), falls short when it lies below, else undecided. Holds when every
    dataset reaches, partly when some do and none is undecided, does not hold when none does;
    inconclusive when an interval straddles −margin."""
    if not pairs:
        raise ValueError("reaches_within_margin needs at least one dataset")
    outcomes, texts = {}, []
    for name, (ours, reference) in pairs.items():
        diff, low, high = difference_interval(ours, reference, level)
        outcomes[name] = "reaches" if low > -margin else "short" if high < -margin else "undecided"
        texts.append(f"{dataset_name(name)}: {float(_runs(ours).mean()):.2f} vs {float(_runs(reference).mean()):.2f} "
                     f"({diff:+.2f}, {level * 100:.0f} % CI {low:+.2f} to {high:+.2f})")
    test = (f"our mean accuracy no more than {margin:g} point below the {what} on every dataset: the {level * 100:.0f} % "
            f"Welch confidence interval of the difference lies above −{margin:g}")
    return _interval_outcomes(outcomes, "reaches", "; ".join(texts), test, f"−{margin:g}")


def mean_interval(values, level: float = 0.95) -> tuple[float, float, float]:
    """(mean, low, high): the ``level`` t confidence interval of the mean of ``values`` (≥ 2 runs), the
    interval :func:`mean_beyond_bound` reads against its bound."""
    from scipy.stats import t

    mean, se, dof = _welch(_runs(values), None)
    half = float(t.ppf(0.5 + level / 2, dof)) * se if se > 0 else 0.0
    return mean, mean - half, mean + half


def mean_beyond_bound(values: dict, bound: float, claimed: str = "above", level: float = 0.95,
                      what: str = "value", digits: int = 2) -> Verdict:
    """``values``: ``{dataset: per-seed values}`` (≥ 2 each). A dataset passes when the ``level``
    t confidence interval of its mean lies beyond ``bound`` on the ``claimed`` side ("above" or
    "below"), fails when it lies wholly on the other side, else is undecided. Holds when every
    dataset passes, partly when some do and none is undecided, does not hold when none does;
    inconclusive when an interval straddles the bound (:data:`RULES` ``["mean_beyond_bound"]``). ``digits``:
    the decimals printed."""
    if claimed not in ("above", "below"):
        raise ValueError(f"claimed must be 'above' or 'below', got {claimed!r}")
    if not values:
        raise ValueError("mean_beyond_bound needs at least one dataset")
    outcomes, texts = {}, []
    for name, runs in values.items():
        mean, low, high = mean_interval(runs, level)
        above, below = low > bound, high < bound
        outcomes[name] = ("pass" if (above if claimed == "above" else below) else
                          "fail" if (below if claimed == "above" else above) else "undecided")
        texts.append(f"{dataset_name(name)}: {what} {mean:.{digits}f} ({level * 100:.0f} % CI {low:.{digits}f} to "
                     f"{high:.{digits}f})")
    test = (f"the {level * 100:.0f} % confidence interval of the mean {what} (over seeds) lies {claimed} "
            f"{bound:g} on every dataset")
    return _interval_outcomes(outcomes, "pass", "; ".join(texts), test, f"{bound:g}")


def flatter_than_anchor(slopes: dict, anchor: str, level: float = 0.95) -> Verdict:
    """``slopes``: ``{dataset: per-seed slopes}`` (≥ 2 seeds each). A dataset is flatter when the
    ``level`` Welch interval of (anchor's slope − its slope) lies above 0 and its mean slope is
    positive, steeper when the interval lies below 0 (or its slope is not positive); otherwise
    undecided. Holds when every other dataset is flatter, partly when some are and none is undecided,
    does not hold when none is; inconclusive when an interval straddles 0."""
    if anchor not in slopes or len(slopes) < 2:
        raise ValueError(f"flatter_than_anchor needs {anchor!r} and at least one other dataset")
    means = {n: float(_runs(v).mean()) for n, v in slopes.items()}
    others = [n for n in means if n != anchor]
    outcomes, intervals = {}, []
    for n in others:
        diff, low, high = difference_interval(slopes[anchor], slopes[n], level)
        outcomes[n] = ("flatter" if low > 0 and means[n] > 0 and means[anchor] > 0
                       else "steeper" if high < 0 or means[n] <= 0 else "undecided")
        intervals.append(f"{dataset_name(anchor)} − {dataset_name(n)} {diff:+.2f} ({level * 100:.0f} % CI {low:+.2f} to {high:+.2f})")
    ours = (", ".join(f"{dataset_name(n)} {means[n]:.2f}" for n in means) + " (mean slopes); "
            + "; ".join(intervals))
    test = (f"every dataset's mean slope positive and below {dataset_name(anchor)}'s, by the {level * 100:.0f} % "
            f"Welch confidence interval of the slope difference (lying above 0)")
    verdict = _interval_outcomes(outcomes, "flatter", ours, test, "0")
    if "undecided" in outcomes.values():
        return verdict                          # the detail names the straddling datasets
    # each row's reason says which datasets made its label (two claims share this test and its text)
    here = ", ".join(f"{dataset_name(n)} {outcome}" for n, outcome in outcomes.items())
    return Verdict(verdict.label, verdict.ours, f"{verdict.detail}; here {here}")


def ranks_in_order(chains: dict, names: tuple, level: float = 0.95, what: str = "value") -> Verdict:
    """A ranking "first < second < …" (smaller is the claim's better) in every regime.

    ``chains``: ``{regime: [per-seed values of the first, of the second, …]}`` in ``names`` order, the
    same seeds in the same order (paired; values > 0). A regime passes when, at every step, the
    ``level`` confidence interval of the geometric-mean ratio later / earlier (paired, t on the logs)
    lies above 1; fails when one step's interval lies below 1; else it is undecided. Holds in every
    regime, partly in some (the others failing), does not hold in none; inconclusive when a step is
    undecided (:data:`RULES` ``["ranks_in_order"]``)."""
    if not chains:
        raise ValueError("ranks_in_order needs at least one regime")
    outcomes, texts = {}, []
    for regime, chain in chains.items():
        if len(chain) != len(names) or len(chain) < 2:
            raise ValueError(f"regime {regime!r}: {len(chain)} chains for {len(names)} names (at least 2)")
        steps = []
        for (first, a), (second, b) in zip(zip(names, chain), list(zip(names, chain))[1:]):
            _paired(a, b)                                   # one value per seed on each side
            ratio, low, high = ratio_interval(_runs(b) / _runs(a), None, level)
            steps.append("pass" if low > 1 else "fail" if high < 1 else "undecided")
            texts.append(f"{regime}: {second} / {first} {ratio:.3g}× ({level * 100:.0f} % CI {low:.3g}–{high:.3g})")
        outcomes[regime] = ("fail" if "fail" in steps else "undecided" if "undecided" in steps else "pass")
    passed = [r for r, o in outcomes.items() if o == "pass"]
    order = " < ".join(names)
    test = (f"{order} in {what} in every regime: each step's {level * 100:.0f} % confidence interval of the "
            f"paired ratio (later / earlier, over seeds) lies above 1")
    ours = f"in order in {len(passed)} of {len(outcomes)} regimes ({', '.join(passed) or 'none'}); " + "; ".join(texts)
    return _interval_outcomes(outcomes, "pass", ours, test, "1")


def reaches_somewhere(values: dict, bound: float, what: str = "value") -> Verdict:
    """``values``: ``{dataset: values at each measured setting}`` (one deterministic value each, e.g.
    one draw's condition numbers by width; inf allowed). A dataset passes when its largest value is
    at least ``bound``; holds on every dataset, partly on some, does not hold on none
    (:data:`RULES` ``["reaches_somewhere"]``)."""
    if not values:
        raise ValueError("reaches_somewhere needs at least one dataset")
    largest = {}
    for name, v in values.items():
        v = np.asarray(v, dtype=float).ravel()
        if v.size == 0 or np.isnan(v).any():
            raise ValueError(f"{name}: values must be a non-empty list of numbers (inf allowed), got {v!r}")
        largest[name] = float(v.max())
    outcomes = {n: "pass" if m >= bound else "fail" for n, m in largest.items()}
    ours = "; ".join(f"{dataset_name(n)}: largest {what} {'unbounded' if math.isinf(m) else f'{m:.3g}'}"
                     for n, m in largest.items())
    return _interval_outcomes(outcomes, "pass", ours, f"the {what} reaches {bound:g} at some setting, on every "
                                                      f"dataset", str(bound))


def exponent_within(sizes, values, band: tuple[float, float], level: float = 0.95,
                    what: str = "exponent") -> Verdict:
    """The exponent p of ``values`` ∝ ``sizes``^p (least squares on log–log, every stored value a
    point; (n,) each, n ≥ 3) with its ``level`` t confidence interval (n − 2 degrees of freedom):
    holds when the interval lies inside ``band``, does not hold when it lies wholly outside,
    inconclusive when it straddles a bound (:data:`RULES` ``["exponent_within"]``)."""
    from scipy.stats import t

    x, y = np.log(_runs(sizes)), np.log(_runs(values))
    if x.shape != y.shape or x.size < 3 or np.ptp(x) == 0:
        raise ValueError(f"exponent_within needs at least 3 points at 2 or more sizes, got {x.size} and {y.size}")
    slope, intercept = np.polyfit(x, y, 1)
    residual = y - (slope * x + intercept)
    se = math.sqrt(float(residual @ residual) / (x.size - 2) / float(((x - x.mean()) ** 2).sum()))
    half = float(t.ppf(0.5 + level / 2, x.size - 2)) * se
    low, high = float(slope) - half, float(slope) + half
    inside, outside = band[0] <= low and high <= band[1], high < band[0] or low > band[1]
    outcome = "pass" if inside else "fail" if outside else "undecided"
    ours = f"p = {slope:.2f} ({level * 100:.0f} % CI {low:.2f} to {high:.2f}, {x.size} points)"
    test = (f"the {level * 100:.0f} % confidence interval of the least-squares {what} (t, n − 2 degrees of freedom) "
            f"lies within {band[0]:g}–{band[1]:g}")
    return _interval_outcomes({"": outcome}, "pass", ours, test, f"{band[0]:g} or {band[1]:g}")


#: the words of :func:`gain_over`'s outcome, and the verdict label each gives the claim "B gains over A"
GAIN_LABELS = {"gain": "holds", "no gain shown": "inconclusive", "loss": "does not hold"}
#: seeds :func:`gain_over` needs (each running both variants): an sd of the differences needs 2, and
#: with 2 a difference of sd 0 would pass on one coincidence
MIN_GAIN_RUNS = 3


def _paired(a, b) -> np.ndarray:
    a, b = _runs(a), _runs(b)
    if a.shape != b.shape:
        raise ValueError(f"a paired comparison needs one value per seed on each side, got {a.size} and {b.size}")
    return b - a


def gain_label(a, b, floor: float = 0.0, min_runs: int = MIN_GAIN_RUNS) -> str:
    """``"gain"``, ``"no gain shown"`` or ``"loss"`` of B over A (:data:`RULES` ``["gain_over"]``).

    ``a``, ``b``: per-seed values (n,) of the two variants, the same seeds in the same order. With
    d = b − a, a gain when mean(d) > max(2·sd(d), ``floor``) (sd with ddof 1), a loss when
    mean(d) < −max(2·sd(d), ``floor``), else no gain shown (also with fewer than ``min_runs`` seeds).

    Why this rule and not a paired t-test: a claimed gain must exceed the seeds' spread of the
    difference itself, not only be unlikely to be zero: the t-test's bar, t·sd/√n, falls with more
    seeds while the spread does not (at n = 3 and the book's :data:`TEST_LEVEL`, one-sided, it is
    1.69 sd; this rule asks 2 sd at every n, the book's "2 standard deviations" of a separated mean).
    Pairing by seed (the same split and dictionary draws for both variants) removes the part of the
    spread the variants share. ``floor`` keeps a difference the measurement cannot resolve (one test
    image: 100 / M points) from being a gain when the differences happen to agree exactly."""
    if isinstance(floor, bool) or not isinstance(floor, (int, float)) or not math.isfinite(floor) or floor < 0:
        raise ValueError(f"floor must be a finite number >= 0, got {floor!r}")
    d = _paired(a, b)
    if d.size < max(int(min_runs), 2):
        return "no gain shown"
    bar = max(2 * float(d.std(ddof=1)), float(floor))
    mean = float(d.mean())
    if mean > bar:
        return "gain"
    if mean < -bar:
        return "loss"
    return "no gain shown"


def gain_over(a, b, names: tuple[str, str] = ("A", "B"), floor: float = 0.0, unit: str = "points",
              digits: int = 2, min_runs: int = MIN_GAIN_RUNS, floor_words: str = "", explain: bool = True) -> Verdict:
    """The claim "B gains over A" judged by :func:`gain_label` on per-seed values ``a``, ``b`` (n,):
    holds (gain), does not hold (loss) or inconclusive (no gain shown, or fewer than ``min_runs``
    seeds); ``ours`` ends with the outcome in words ("a gain", "no gain shown", "a loss"), never as a label.
    ``floor_words``: what the floor is ("2 sampling errors of a difference ..."), said beside it; the
    floor is printed to ``digits`` decimals, as the bar. ``explain`` False leaves out what the bar is made of
    (for a passage that has already said it once)."""
    word = gain_label(a, b, floor, min_runs)
    d = _paired(a, b)
    spread = f" ± {float(d.std(ddof=1)):.{digits}f}" if d.size > 1 else ""
    ours = (f"{names[1]} − {names[0]} = {float(d.mean()):+.{digits}f}{spread}"
            f"{_unit_text(unit if unit != '%' else 'points')} (paired, n = {d.size}): "
            f"{ {'gain': 'a gain', 'loss': 'a loss'}.get(word, word)}")
    if d.size < max(int(min_runs), 2):
        return Verdict("inconclusive", ours, f"the rule needs {max(int(min_runs), 2)} seeds, each running both")
    bar = max(2 * float(d.std(ddof=1)), float(floor))
    where = "within" if word == "no gain shown" else "beyond"
    floor_text = (f", at least the floor {floor:.{digits}f}" + (f": {floor_words}" if floor_words else "")
                  if floor else "")
    made_of = f" (2 sd of the paired differences{floor_text})" if explain else ""
    return Verdict(GAIN_LABELS[word], ours, f"the mean paired difference {_signed(float(d.mean()), unit, digits)} lies "
                                            f"{where} ±{bar:.{digits}f}{made_of}")


#: the labels that decide a test's outcome (a direction, a pass or a fail); every other label decides nothing
DECIDED_LABELS = ("reproduced", "differs, within margin", "differs, margin undecided", "differs, beyond margin",
                  "concordant", "discordant", "holds", "partly holds", "does not hold")
#: what "not comparable" says when no reason is given
NOT_COMPARABLE_REASON = "measured in a setting other than the paper's"
#: the labels that decide on which side of its boundary a ratio or difference lies (a direction)
DIRECTION_LABELS = ("holds", "does not hold", "concordant", "discordant")
#: the ladder's labels reserved for a paper's ratio of two timings, both sides timed here in one quiet run
RATIO_LABELS = ("concordant", "discordant")


def _load_reason(load) -> tuple[bool, str]:
    """:func:`greenelm_book.bench.judge_quiet` of one recorded load (``[1-min, 5-min, ...]``, or a 1-minute
    average alone, which is never quiet: the 5-minute one is not recorded), at the bench's ``QUIET_LOAD``."""
    from ..bench import QUIET_LOAD as limit, judge_quiet

    values = [load] if isinstance(load, (int, float)) else list(load)
    if len(values) == 1 and math.isfinite(float(values[0])):
        one = float(values[0])
        return False, (f"the 1-minute load average ({one:g}) above {limit:g}" if one > limit else
                       f"the 1-minute load average ({one:g}) recorded, the 5-minute one not")
    return judge_quiet(values, limit)


def evidence_bound(verdict: Verdict, *, seeds: dict | None = None, loads: dict | None = None,
                   quiet: bool | None = None, comparable: bool = True, reason: str = "",
                   min_runs: int = MIN_DECIDING_SEEDS) -> Verdict:
    """``verdict`` no stronger than what it rests on, the book's three rules applied in one place:

    * ``comparable`` False (a setting other than the paper's; ``reason`` says which): "not comparable";
    * the quiet rule: a timing is judged only when recorded quiet: ``loads`` ``{point: [1-min, 5-min]
      load averages}`` (each by :func:`greenelm_book.bench.judge_quiet`; a 1-minute average alone is
      not quiet) or ``quiet`` False (``reason`` says why) make it "inconclusive";
    * the seeds rule: ``seeds`` ``{point: seeds}``, a point with fewer than ``min_runs`` makes it
      "inconclusive" (:func:`seeds_rule`).

    Only a label that decides (:data:`DECIDED_LABELS`) is bounded; the test's own outcome stays in the
    detail, for information. A verdict its evidence bears passes through unchanged (the same object)."""
    if verdict.label not in DECIDED_LABELS:
        return verdict
    info = f"; for information, the test gives {verdict.label} ({verdict.detail})"
    if not comparable:
        return Verdict("not comparable", verdict.ours,
                       (reason or NOT_COMPARABLE_REASON) + info)
    busy = []
    if quiet is False:
        busy.append(reason or "the timings are not recorded as quiet")
    for point, load in (loads or {}).items():
        ok, why = _load_reason(load)
        if not ok:
            busy.append(f"{point}: {why}")
    if busy:
        label = ladder_label("test", enough=False, outcomes=())
        return Verdict(label, verdict.ours, f"a timing not recorded as quiet cannot decide (the quiet rule): "
                                            f"{'; '.join(busy)}{info}")
    if seeds:
        return seeds_rule(verdict, seeds, min_runs)
    return verdict


#: why a "not comparable" verdict decides no direction, where its detail names no other reason
NOT_COMPARABLE_WHY = "a setting other than the paper's"
#: why a verdict decides no direction, by a phrase its detail carries (first match wins)
NO_DIRECTION_WHY = (("no load average recorded", "loads not recorded"), ("not recorded as quiet", "busy timings"), ("(the quiet rule)", "busy timings"),
                    ("(the seeds rule)", "too few seeds"), ("timed on another machine", "timed on another machine"),
                    ("straddles", "its interval includes no difference"), ("the test needs", "too few runs for the test"),
                    ("CI of the ratio contains 1", "its interval includes 1"))


def no_direction_why(verdict, estimate: float, *, at: float = 1.0) -> str:
    """Why ``verdict`` (a :class:`Verdict` or its label) lets a sentence state no side of ``at`` for
    ``estimate``: busy timings, too few seeds or another machine (read from the verdict's detail), a
    different setting ("not comparable"), no difference, an interval that includes ``at``, an
    inconclusive test, or a label that judges a value, not a direction."""
    label = getattr(verdict, "label", verdict)
    detail = getattr(verdict, "detail", "")
    for phrase, why in NO_DIRECTION_WHY:
        if phrase in detail:
            return why
    if label == "not comparable":
        return NOT_COMPARABLE_WHY
    if label in DIRECTION_LABELS:
        if estimate == at:
            return "no difference"
        return f"its interval includes {at:g}"
    if label == "inconclusive":
        return "the test decides neither side"
    return f"{label}: a value judged, not a direction"


def labelled_direction(verdict, estimate: float, words: tuple[str, str], evidence: str | None = None, *,
                       interval: tuple[float, float] | None = None, name_label: bool = False) -> str:
    """:func:`direction_words` with the evidence that decided a stated direction beside it, "faster (the
    same-machine ratio test: its 95 % interval 2.58–2.90×, 40 batches)" (``evidence``; default the
    verdict's own ``ours``), for a direction a page judges itself (no scorecard label: the comparison is no
    claim of the paper); an undecided direction gives "no direction judged (<why>)" as direction_words
    does (``interval``, ``name_label``: its own)."""
    said = direction_words(verdict, estimate, words, interval=interval, name_label=name_label)
    if said.startswith("no direction judged"):
        return said
    return f"{said} (the same-machine ratio test: {verdict.ours if evidence is None else evidence})"


def quiet_bound(verdict, *results):
    """``verdict`` (a same-machine ratio of ``results``' timings) bounded by the quiet rule
    (:func:`evidence_bound`): judged only where each result records in its setting the load averages
    (``load_average``) read before its timings and they are quiet, or, for a benchmark's interleaved pairs
    (``bench.record_quiet_ratio``), the benchmark's own quiet judgement (``quiet``, its reason in
    ``timing``); else inconclusive, the test's outcome kept for information."""
    loads = {r.key: r.setting["load_average"] for r in results if r.setting.get("load_average")}
    no_loads = [r for r in results if r.key not in loads]
    busy = [f"{r.key}: {r.setting.get('timing', 'not quiet')}" for r in no_loads if r.setting.get("quiet") is False]
    unrecorded = [r.key for r in no_loads if not isinstance(r.setting.get("quiet"), bool)]
    why = ([f"no load average recorded with {', '.join(unrecorded)}"] if unrecorded else []) + busy
    return evidence_bound(verdict, loads=loads, quiet=False if why else None, reason="; ".join(why))


def direction_words(verdict, estimate: float, words: tuple[str, str] = ("shorter than", "longer than"), *,
                    at: float = 1.0, interval: tuple[float, float] | None = None, name_label: bool = True) -> str:
    """The direction a sentence may state for ``estimate`` (a ratio, or a difference with ``at`` = 0)
    judged by ``verdict`` (a :class:`Verdict` or its label): ``words[0]`` below ``at``, ``words[1]``
    above it, only when the verdict decides a direction (:data:`DIRECTION_LABELS`) and ``interval``,
    when given, lies wholly on that side; else "no direction judged (<label>: <why>)" with the reason
    of :func:`no_direction_why`, or "no direction judged (<why>)" with ``name_label`` False (for a
    sentence that prints the verdict's label itself)."""
    from ..report import VERDICT_LABELS

    label = getattr(verdict, "label", verdict)
    if label not in VERDICT_LABELS:
        raise ValueError(f"direction_words needs a verdict label, got {label!r}")
    decided = label in DIRECTION_LABELS and estimate != at
    if decided and interval is not None:
        low, high = interval
        decided = high < at if estimate < at else low > at
    if not decided:
        why = no_direction_why(verdict, estimate, at=at)
        shown = why if not name_label or why.startswith(label) else f"{label}: {why}"
        return f"no direction judged ({shown})"
    return words[0] if estimate < at else words[1]


#: how :func:`direction_words` begins an answer that judges no direction
_NO_DIRECTION = "no direction judged ("


def no_direction_reason(words: str) -> str | None:
    """The reason inside :func:`direction_words`' "no direction judged (<reason>)", or None where ``words``
    state a judged direction: the one unwrapping every sentence that rewords that answer shares."""
    if words.startswith(_NO_DIRECTION) and words.endswith(")"):
        return words[len(_NO_DIRECTION):-1]
    return None
