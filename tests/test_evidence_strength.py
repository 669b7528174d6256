"""Verdicts no stronger than their evidence (issue 61, item 4), from the committed store and by
planted cases: a setting, a definition or a statement about the paper's code is not a finding; a
device the book does not have is not measured; which weight scale lies behind the paper's
accuracies is a paired test over the same rows; a point measured on one seed cannot decide alone;
raw-pixel CIFAR-10 is evidence for claims about the book's own curves, never against a paper's number."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from greenelm_book.judging import rejudge as R, verdicts as V
from greenelm_book.paper import CLAIMS
from greenelm_book.report import Verdict
from greenelm_book.store.results import Answer, Result
from greenelm_book.summaries.scorecard import scorecard

ROOT = Path(__file__).resolve().parents[1]
STORE = ROOT / "book" / "results"
CLAIM = {c.id: c for c in CLAIMS}
#: a claim about a device: its statement names an edge node, an embedded, low-power or battery device
DEVICE_WORDS = re.compile(r"\b(?:edge|embedded|low-power|battery)\b", re.I)


@pytest.fixture(scope="module")
def card():
    return scorecard(STORE).set_index("claim")


def _result(key: str, values, unit: str = "%") -> Result:
    return Result(key=key, values=tuple(float(v) for v in values), unit=unit, setting={}, chapter="rotation",
                  machine="", date="", command="")


# ----------------------------------------------------------------------------- settings and definitions
def test_settings_definitions_and_the_papers_code_are_not_findings(card):
    """Every claim of NOT_FINDINGS is "not measurable here" on the scorecard, with its reason and what
    the chapter checked; none is counted among the findings (holds / does not hold)."""
    for claim, why in R.NOT_FINDINGS.items():
        row = card.loc[claim]
        assert (row.verdict, row.test) == ("not measurable here", "not_measurable"), (claim, row.verdict)
        assert row.detail.startswith(why)
    judged = card[card.verdict.isin(["holds", "partly holds", "does not hold"])]
    for phrase in ("a setting rather than a result", "by Algorithm 2's definition", "the paper's own Algorithm 1"):
        assert not judged.detail.str.contains(phrase, regex=False).any(), phrase


def test_a_planted_holds_on_a_setting_is_refused():
    """A chapter answering a setting with "holds" is re-judged "not measurable here"."""
    claim = CLAIM["rotation_benchmark_angle"]
    key = "mnist/green-elm/unit/pinv/d=2000/rotated/angle=15/accuracy"
    answer = Answer(claim.id, Verdict("holds", "15° is among our angles", "a setting"), (key,))
    judged = R.judge_claim(claim, answer, {key: _result(key, [90.0] * 5)}, {})
    assert judged.verdict.label == "not measurable here" and "a setting" in judged.verdict.detail


# ----------------------------------------------------------------------------- devices
def test_every_device_claim_is_not_measurable_here(card):
    """One rule for device claims: every claim whose statement names an edge, embedded, low-power or
    battery device is in DEVICE_CLAIMS, and each is "not measurable here" on the scorecard."""
    named = {c.id for c in CLAIMS if DEVICE_WORDS.search(c.statement)}
    assert named == set(R.DEVICE_CLAIMS), named ^ set(R.DEVICE_CLAIMS)
    for claim in named:
        assert card.loc[claim, "verdict"] == "not measurable here", (claim, card.loc[claim, "verdict"])


# ----------------------------------------------------------------------------- the weight scale, paired
def test_closer_paired_matches_a_one_sample_t_interval():
    """The interval is scipy's one-sample t interval of |B gap| − |A gap|; above 0 holds, below does
    not hold, straddling 0 inconclusive; too few rows inconclusive; unequal rows an error."""
    a, b = [0.1, -0.2, 0.3, 0.1, -0.1], [1.0, -1.5, 1.1, 0.9, 1.3]
    verdict = V.closer_paired(a, b, names=("A", "B"))
    diffs = np.abs(b) - np.abs(a)
    low, high = stats.ttest_1samp(diffs, 0.0).confidence_interval(0.95)
    assert verdict.label == "holds" and f"{low:+.2f} to {high:+.2f}" in verdict.ours
    assert V.closer_paired(b, a).label == "does not hold"
    assert V.closer_paired([0.5, -0.6, 0.4], [0.6, -0.4, 0.5]).label == "inconclusive"
    assert V.closer_paired([0.1, 0.2], [1.0, 2.0]).label == "inconclusive"
    with pytest.raises(ValueError, match="same rows"):
        V.closer_paired([0.1, 0.2, 0.3], [0.1, 0.2])


def test_the_weight_scale_is_judged_paired_over_the_same_rows(card):
    """Both scale claims are judged by closer_paired over the rows where both scales ran (no mean over
    5 rows set against a mean over 4); the two verdicts are mirror images, never both "holds"."""
    unit, he = card.loc["weight_scale_unit"], card.loc["weight_scale_he"]
    assert unit.test == he.test == "closer_paired"
    n = int(re.search(r"n = (\d+) rows", unit.ours).group(1))
    assert n == int(re.search(r"n = (\d+) rows", he.ours).group(1)) >= 3
    mirror = {"holds": "does not hold", "does not hold": "holds", "inconclusive": "inconclusive"}
    assert mirror[unit.verdict] == he.verdict


# ----------------------------------------------------------------------------- the seeds rule
def test_seeds_rule_makes_a_one_seed_verdict_inconclusive():
    verdict = Verdict("does not hold", "ln d worse", "held-out test")
    ruled = V.seeds_rule(verdict, {"mnist/ln-d": 1, "mnist/saturating": 1})
    assert ruled.label == "inconclusive" and "does not hold" in ruled.detail and "1 seed" in ruled.detail
    assert V.seeds_rule(verdict, {"mnist/ln-d": 5}) is verdict
    assert V.seeds_rule(ruled, {"mnist/ln-d": 1}) == ruled          # a recorded ruling is not ruled again


@pytest.mark.parametrize("claim", sorted(set(R.NOT_FINDINGS) | set(R.DEVICE_CLAIMS) | set(R.SEEDED_CHAPTER_TESTS)
                                         | {"weight_scale_unit", "d_correlates_with_separability"}))
def test_a_chapter_recording_the_scorecards_judgement_reads_the_same(card, claim):
    """A chapter records the scorecard's judgement (answer_as_scorecard); judging that recorded answer
    again gives the same verdict, word for word (no doubled reason)."""
    from greenelm_book.store.results import load_all

    stored = load_all(STORE)
    results = {k: r for content in stored.values() for k, r in content["results"].items()}
    row = card.loc[claim]
    keys = next(c["answers"][claim].keys for c in stored.values() if claim in c["answers"])
    once = R.scorecard_verdict(claim, Verdict(row.verdict, row.ours, row.detail), keys, results)
    assert (once.label, once.ours, once.detail) == (row.verdict, row.ours, row.detail)


def test_a_one_seed_width_cannot_decide_a_curve():
    """A curve dropping only at a one-seed width is undecided (inconclusive where no curve fails); one
    dropping between widths of 5 seeds fails; without one-seed widths the test is rises_throughout itself."""
    five = lambda m: [m - 0.1, m, m + 0.1, m - 0.05, m + 0.05]            # noqa: E731
    rising = {"mnist": [five(90), five(91), five(92)]}
    assert V.rises_throughout_seeded(rising) == V.rises_throughout(rising)
    late_drop = {"mnist": [five(90), five(91), [93.0]], "cifar10": [five(40), five(42), [41.0]]}
    assert V.rises_throughout_seeded(late_drop).label == "inconclusive"
    assert V.rises_throughout(late_drop).label == "partly holds"
    early_drop = {"mnist": [five(90), five(91), [93.0]], "cifar10": [five(42), five(40), [43.0]]}
    # one curve undecided, the other failing between 5-seed widths: the failure refutes "every curve", the
    # undecided one moves neither side (the ladder's "does not hold")
    assert V.rises_throughout_seeded(early_drop).label == "does not hold"
    assert V.rises_throughout_seeded({"cifar10": [five(42), five(40), [43.0]]}).label == "does not hold"


def test_the_stored_one_seed_verdicts_are_inconclusive(card):
    """The held-out ln d test rests on one nested draw per dataset: inconclusive, its one-seed points
    named; the curves' shape claims rest on one-seed widths beyond d = 4000: not decided by them."""
    for claim in R.SEEDED_CHAPTER_TESTS:
        row = card.loc[claim]
        assert (row.verdict, row.test) == ("inconclusive", "seeds_rule"), (claim, row.verdict)
        assert "MNIST, ln d fit, held out error (1 seed)" in row.detail and "/" not in row.detail.split(";")[0]
    for claim in ("d_correlates_with_separability", "diminishing_returns"):
        row = card.loc[claim]
        assert "one seed" in row.detail or row.test != "seeds_rule", claim


# ----------------------------------------------------------------------------- raw-pixel CIFAR-10, one rule
def test_raw_cifar10_cannot_decide_a_claim_about_the_papers_curves(card):
    """A claim about the book's own curves (OWN_MEASUREMENTS) is tested on raw-pixel CIFAR-10 too, but a
    result not measured in the paper's setting cannot decide it (one rule with every other claim): a
    decided outcome resting on one is "not comparable", the outcome kept for information; a number set
    against the paper's CIFAR-10 number is not comparable."""
    for claim in ("slope_inverse_to_complexity", "predictable_path_to_parity", "mnist_alpha_high_others_dampened"):
        row = card.loc[claim]
        assert (row.verdict, row.test) == ("not comparable", "not_comparable"), claim
        assert "for information, the test gives" in row.detail and "CIFAR-10" in row.detail, claim
    assert card.loc["table3_c_cifar10", "verdict"] == "not comparable"


def test_a_verdict_judged_twice_says_once_that_it_rests_partly_on_evidence_not_comparable():
    """A chapter records the scorecard's judgement (answer_as_scorecard); the scorecard judges it again:
    the clause naming the evidence not comparable appears once (the committed hardware answer)."""
    from pathlib import Path

    from greenelm_book.judging.rejudge import PARTLY_NOT_COMPARABLE, scorecard_verdict
    from greenelm_book.store.results import load_all

    book = Path(__file__).resolve().parents[1] / "book" / "results"
    stored = load_all(book)
    results = {k: r for chapter in stored.values() for k, r in chapter["results"].items()}
    answer = stored["hardware"]["answers"]["standard_linear_algebra_no_gpu"]
    again = scorecard_verdict(answer.claim, answer.verdict, answer.keys, results)
    assert PARTLY_NOT_COMPARABLE in again.detail
    assert again.detail.count(PARTLY_NOT_COMPARABLE) == 1
