"""One rule applied evenly (issue 61, the referee's findings 15-30): every verdict passes through
``verdicts.evidence_bound`` (the seeds rule, the quiet rule, comparability) given what it rests on, so
no page states a label stronger than its evidence; a sentence's speed direction follows its verdict
(``verdicts.direction_words``). The function case by case, each finding planted and caught, and the
committed store and pages checked."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from greenelm_book.judging import rejudge as R, verdicts as V
from greenelm_book.paper import CLAIMS
from greenelm_book.report import Verdict
from greenelm_book.store.results import Result, load_all
from greenelm_book.summaries import bottom_line as bl
from greenelm_book.summaries.scorecard import scorecard

ROOT = Path(__file__).resolve().parents[1]
STORE = ROOT / "book" / "results"
CLAIM = {c.id: c for c in CLAIMS}
HOLDS = Verdict("holds", "ours", "the test")


@pytest.fixture(scope="module")
def card():
    return scorecard(STORE).set_index("claim")


@pytest.fixture(scope="module")
def results():
    return {k: r for content in load_all(STORE).values() for k, r in content["results"].items()}


def _result(key: str, values, unit: str = "%", **setting) -> Result:
    return Result(key=key, values=tuple(float(v) for v in values), unit=unit, setting=setting, chapter="scaling",
                  machine="", date="", command="")


# ----------------------------------------------------------------------------- the function, case by case
def test_few_seeds_make_a_decided_verdict_inconclusive():
    bounded = V.evidence_bound(HOLDS, seeds={"MNIST, d=500": 1, "MNIST, d=1000": 5})
    assert (bounded.label, bounded.ours) == ("inconclusive", "ours")
    assert "(the seeds rule): MNIST, d=500 (1 seed);" in bounded.detail and "d=1000" not in bounded.detail
    assert bounded.detail.endswith("the test gives holds (the test)")
    assert V.evidence_bound(HOLDS, seeds={"MNIST, d=500": 2}) is HOLDS


def test_busy_loads_make_a_timing_verdict_inconclusive():
    busy = V.evidence_bound(HOLDS, loads={"gram": [2.3, 2.1]})
    assert busy.label == "inconclusive" and busy.detail.startswith(
        "a timing not recorded as quiet cannot decide (the quiet rule): gram: the 1-minute load average (2.3) and "
        "the 5-minute load average (2.1) above 0.5")
    # a minute after a long job the 1-minute average is low, the 5-minute one is not: busy
    assert "the 5-minute load average (0.9) above 0.5" in V.evidence_bound(HOLDS, loads={"g": [0.3, 0.9]}).detail
    # a 1-minute average alone: busy above 0.5, and never shown quiet below it
    assert "the 1-minute load average (2.3) above 0.5" in V.evidence_bound(HOLDS, loads={"g": 2.3}).detail
    assert "the 5-minute one not" in V.evidence_bound(HOLDS, loads={"g": 0.2}).detail
    assert V.evidence_bound(HOLDS, quiet=False, reason="x: no load recorded").detail.startswith(
        "a timing not recorded as quiet cannot decide (the quiet rule): x: no load recorded;")
    assert V.evidence_bound(HOLDS, loads={"g": [0.2, 0.4, 0.9]}) is HOLDS       # the 15-minute one is not read


def test_a_setting_not_the_papers_is_not_comparable():
    bounded = V.evidence_bound(Verdict("partly holds", "o", "t"), comparable=False, reason="raw pixels")
    assert (bounded.label, bounded.ours, bounded.detail) == (
        "not comparable", "o", "raw pixels; for information, the test gives partly holds (t)")
    assert V.evidence_bound(HOLDS, comparable=False).detail.startswith("measured in a setting other than the paper's")
    # not comparable first, whatever else the evidence lacks
    assert V.evidence_bound(HOLDS, comparable=False, seeds={"p": 1}, loads={"p": [3, 3]}).label == "not comparable"


def test_a_decided_verdict_its_evidence_bears_passes_through_unchanged():
    for verdict in (HOLDS, Verdict("reproduced", "o", "d"), Verdict("discordant", "o", "d"),
                    Verdict("does not hold", "o", "d")):
        assert V.evidence_bound(verdict, seeds={"p": 5}, loads={"p": [0.1, 0.2]}) is verdict
    for label in ("inconclusive", "not measurable here", "not comparable"):     # nothing left to bound
        verdict = Verdict(label, "o", "d")
        assert V.evidence_bound(verdict, seeds={"p": 1}, comparable=False, quiet=False) is verdict


def test_direction_words_only_where_the_verdict_decides_the_direction():
    assert V.direction_words(Verdict("holds"), 2.0) == "longer than"
    assert V.direction_words("discordant", 0.5, ("faster", "slower")) == "faster"
    assert V.direction_words("does not hold", 0.4, ("below", "above"), at=1.0, interval=(0.3, 0.6)) == "below"
    assert V.direction_words("inconclusive", 2.0) == "no direction judged (inconclusive: the test decides neither side)"
    # a same-machine ratio whose interval contains 1 says so (not "the test decides neither side"), busy or not
    straddling = V.same_machine_ratio([0.9, 1.1, 1.0, 1.05, 0.95], claimed="below")
    assert V.direction_words(straddling, 1.0) == "no direction judged (inconclusive: its interval includes 1)"
    assert V.direction_words("not comparable", 0.5) == "no direction judged (not comparable: a setting other than the paper's)"
    assert V.direction_words("reproduced", 0.9, at=0.0) == "no direction judged (reproduced: a value judged, not a direction)"
    assert V.direction_words("holds", 2.0, interval=(0.8, 3.0)) == "no direction judged (holds: its interval includes 1)"
    assert V.direction_words("holds", 1.0) == "no direction judged (holds: no difference)"
    # the reason is read from the verdict's detail where it names one (the book's rules, another machine)
    busy = V.evidence_bound(Verdict("holds", "0.62×", "ci 0.61–0.63"), quiet=False)
    assert V.direction_words(busy, 0.62) == "no direction judged (inconclusive: busy timings)"
    assert V.direction_words(Verdict("not comparable", "", "timed on another machine; ours / paper's = 2"), 2.0) \
        == "no direction judged (not comparable: timed on another machine)"
    # a sentence that prints the verdict's label itself asks for the reason alone
    assert V.direction_words(busy, 0.62, name_label=False) == "no direction judged (busy timings)"
    assert V.direction_words("holds", 2.0, name_label=False) == "longer than"
    with pytest.raises(ValueError, match="needs a verdict label, got 'faster'"):
        V.direction_words("faster", 2.0)


def test_the_quiet_rule_is_stated_with_the_bench_limit():
    from greenelm_book.bench import QUIET_LOAD

    assert f"at most {QUIET_LOAD:g} before" in V.RULES["quiet_rule"] and "quiet_rule" in V.TESTS
    assert "1- and 5-minute load averages" in V.words_of_test("quiet_rule")


# ----------------------------------------------------------------------------- each finding, planted and caught
def test_a_holds_on_one_draw_is_inconclusive():
    """Findings 15-17: Cover's theorem, Tikhonov's conditioning and the open question rested on one draw."""
    keys = [f"{n}/green-elm/unit/cholesky/d={d}/train-accuracy" for n in ("mnist", "fashion-mnist") for d in (500, 1000)]
    one = {k: _result(k, [90.0], seeds=[0]) for k in keys}
    judged = R.scorecard_verdict("cover_expansion_separability", HOLDS, keys, one)
    assert judged.label == "inconclusive" and "MNIST, d=500, train accuracy (1 seed)" in judged.detail
    three = {k: _result(k, [90.0, 90.1, 90.2], seeds=[0, 1, 2]) for k in keys}
    assert R.scorecard_verdict("cover_expansion_separability", HOLDS, keys, three) == HOLDS
    wide, kernel = "mnist/green-elm/unit/ridge-loo/d=32000/accuracy", "mnist/arccos-kernel/accuracy"
    ultra = {wide: _result(wide, [97.9]), kernel: _result(kernel, [98.74])}
    judged = R.scorecard_verdict("ultra_wide_million_dimensions", Verdict("does not hold", "o", "t"), [wide, kernel],
                                 ultra)
    assert judged.label == "inconclusive" and "d=32000" in judged.detail
    assert "arccos" not in judged.detail.split("; for information")[0]        # a kernel limit is not a draw
    # a conjunction that fails on the limit alone rests on the limit's key only: no draw, so it decides
    assert R.scorecard_verdict("ultra_wide_million_dimensions", Verdict("does not hold", "o", "t"), [kernel],
                               ultra).label == "does not hold"


def test_a_busy_exponent_is_inconclusive():
    """Finding 18: the complexity exponents and "linear in N" were judged on timings not recorded as quiet."""
    key = "mnist/green-elm/unit/cholesky/phase=gram/d=2000/n=5000-60000/exponent"
    flop = key.replace("/exponent", "/flop-exponent")
    busy = {key: _result(key, [0.96], "exponent", load_average_1min=[1.7, 2.3]), flop: _result(flop, [1.0], "exponent")}
    judged = R.scorecard_verdict("complexity_gram_exponent_n", HOLDS, [key, flop], busy)
    assert judged.label == "inconclusive" and "the 1-minute load average (2.3) above 0.5" in judged.detail
    quiet = {**busy, key: _result(key, [0.96], "exponent", load_average=[0.2, 0.3, 0.4])}
    assert R.scorecard_verdict("complexity_gram_exponent_n", HOLDS, [key, flop], quiet) == HOLDS
    unrecorded = {**busy, key: _result(key, [0.96], "exponent")}
    assert "no load average recorded" in R.scorecard_verdict("complexity_gram_exponent_n", HOLDS, [key, flop],
                                                             unrecorded).detail
    count = Verdict("does not hold", "o", "the FLOP model's exponent")        # the count's verdict needs no timing
    assert R.scorecard_verdict("complexity_gram_exponent_n", count, [key, flop], busy) == count


def test_raw_cifar10_cannot_decide_a_partial_verdict():
    """Finding 30: raw-pixel CIFAR-10 (not the paper's figure's setting) decided "partly holds"."""
    keys = [f"{n}/green-elm/unit/cholesky/algorithm2/slope" for n in ("mnist", "fashion-mnist", "cifar10")]
    slopes = {k: _result(k, v, "points per ln d") for k, v in zip(keys, ([3.0, 3.1, 3.2], [2.0, 2.1, 2.2],
                                                                         [3.5, 3.6, 3.7]))}
    judged = R.scorecard_verdict("slope_inverse_to_complexity", HOLDS, keys, slopes)
    assert judged.label == "not comparable" and "the test gives partly holds" in judged.detail
    assert "scaling figure's CIFAR-10 curve" in judged.detail
    two = {k: slopes[k] for k in keys[:2]}
    assert R.scorecard_verdict("slope_inverse_to_complexity", HOLDS, keys[:2], two).label == "holds"


def _direction_problems(text: str) -> list[str]:
    """The sentences of ``text`` that state a speed direction beside a label that decides none (a question
    ends a sentence: it states no direction)."""
    sentences = re.split(r"(?<=[.;?])\s+", " ".join(text.split()))
    return [s for s in sentences if re.search(r"\b(?:shorter|longer|faster|slower) than\b", s)
            and re.search(r"\b(?:inconclusive|not comparable)\b", s)]


def test_a_direction_word_beside_an_undecided_ratio_is_found():
    """Finding 19: the planted sentence is found; the sentence the book now writes is not."""
    planted = "Its training is longer than Green-ELM's pinv fit, where the paper reports 11.6× (verdict: inconclusive)."
    assert _direction_problems(planted) == [planted]
    written = (f"Its training against Green-ELM's pinv fit, by the verdict: "
               f"{V.direction_words('inconclusive', 2.3, ('shorter', 'longer'))}, where the paper reports 11.6×.")
    assert _direction_problems(written) == [] and "no direction judged (inconclusive: " in written
    asked = ("Are the normal equations faster than the pseudoinverse here? By the verdict: no direction judged "
             "(inconclusive: busy timings).")
    assert _direction_problems(asked) == []                        # a question states no direction
    assert _direction_problems(asked.replace("Are the normal equations faster", "The normal equations are faster")
                               .replace("here? By", "here, by")) != []


# ----------------------------------------------------------------------------- the committed store and pages
def test_no_committed_verdict_rests_on_one_draw_or_busy_timings(card, results):
    stored = load_all(STORE)
    for chapter, content in stored.items():
        for claim, answer in content["answers"].items():
            row = card.loc[claim]
            keys = [k for k in answer.keys if k in results]
            if row.verdict in V.DECIDED_LABELS:
                few = {p: n for p, n in R.draws_of(keys, results).items() if n < V.MIN_DECIDING_SEEDS}
                assert not few, (claim, row.verdict, few)
    for claim in ("cover_expansion_separability", "tikhonov_improves_conditioning"):
        assert card.loc[claim, "verdict"] == "inconclusive" and "(the seeds rule)" in card.loc[claim, "detail"], claim
    # the open question fails on the d → ∞ limit alone, which rests on no draw: the seeds rule does not reach it
    ultra = card.loc["ultra_wide_million_dimensions"]
    assert ultra.verdict == "does not hold" and "each computed from every training image rather than from drawn features" in ultra.detail, ultra.detail
    for claim in R.TIMED_CLAIMS:
        assert card.loc[claim, "verdict"] == "inconclusive" and "(the quiet rule)" in card.loc[claim, "detail"], claim


def test_the_committed_pages_state_no_direction_their_verdict_does_not_decide():
    pages = {name: bl.rendered_text(ROOT / "book" / f"{name}.ipynb")
             for name in ("baselines", "cifar10", "random_features", "scaling", "rotation", "frontier")}
    pages["headline"] = bl.headline_markdown(STORE)
    assert {name: _direction_problems(text) for name, text in pages.items()} == {name: [] for name in pages}


def test_rotation_judges_each_sgd_model_as_more_robust_does(card):
    """Finding 21: "higher across the range" and "rapid decay" were "holds" on the perceptron alone."""
    for claim in ("rotation_higher_across_range", "rotation_sgd_rapid_decay", "more_robust_to_rotation"):
        assert card.loc[claim, "verdict"] == "partly holds", claim        # an untested part moves neither side
        assert "perceptron and Table I's MLP" in card.loc[claim, "detail"], claim
        assert claim not in R.UNTESTED_PARTS or "the tested part, which gives partly holds" in card.loc[claim, "detail"]


def test_the_weight_scale_sentence_follows_the_paired_verdict(card):
    """Finding 22: "the paper's numbers match unit better" beside the paired test's "inconclusive"."""
    text = " ".join(bl.rendered_text(ROOT / "book" / "random_features.ipynb").replace("*", "").split())
    label = card.loc["weight_scale_unit", "verdict"]
    words = {"holds": "N(0, 1).", "does not hold": "N(0, 2/D)."}.get(label, f"no direction judged ({label}: ")
    assert f"the scale the paper's numbers match better: {words}" in text


def test_the_gain_is_judged_with_one_margin_on_its_page_and_the_scorecard(card):
    """Finding 6: the 0.95-point gain's margin was ±0.5 on its chapter page and ±0.24 on the scorecard."""
    answer = load_all(STORE)["scaling"]["answers"]["gain_d2000_to_d4000"]
    row = card.loc["gain_d2000_to_d4000"]
    assert (answer.verdict.label, answer.verdict.detail) == (row.verdict, row.detail)
    assert "±0.24" in row.detail and "±0.5-pt" not in row.detail


def test_a_claim_about_the_datasets_evaluated_is_tested_on_each_of_them(card, results):
    """Finding 3.5: "expressive enough … for the datasets evaluated" was judged without CIFAR-10, and
    "untangled" on two of three datasets with no reason given. The CIFAR-10 chapter's raw-pixel accuracy
    joins the first claim's test (against the book's own CIFAR-10 MLP); the second says why its test
    covers the 784-pixel datasets only."""
    from greenelm_book.store.results import Answer

    claim = next(c for c in CLAIMS if c.id == "ultra_wide_relu_sufficient")
    stored = Answer(claim.id, Verdict("holds"), keys=("mnist/green-elm/unit/cholesky/d=4000/accuracy",))
    added = R.with_added_evidence(claim, stored, results)
    assert added.keys == stored.keys + tuple(k for _, k in R.ADDED_EVIDENCE[claim.id][0])
    assert R.with_added_evidence(claim, stored, {}) is stored                  # nothing to add: unchanged
    # the added dataset without the baseline its test reads beside it (a chapter executed before the
    # baselines chapter's results exist): nothing added, so the test does not fail for want of a reference
    lacking = {k: r for k, r in results.items() if k not in {k for _, k in R.ADDED_NEEDS[claim.id]}}
    assert R.with_added_evidence(claim, stored, lacking) is stored
    row = card.loc[claim.id]
    assert "for CIFAR-10" in row.detail and "(added: CIFAR-10 at d = 2000 on raw pixels" in row.detail
    untangle = card.loc["abstract_untangle_without_backprop"]
    assert untangle.detail.endswith("(datasets: " + R.SCOPE["abstract_untangle_without_backprop"] + ")")


def test_a_claim_with_an_untested_part_is_judged_by_the_ladders_rule(card):
    """Finding 3.6 ("partly holds" from the robustness part alone) and the reader after it ("inconclusive"
    while the tested part passed against one model and failed against the other): a stated part no
    measurement tests is an undecided outcome, which by the ladder moves neither side. A tested part that
    holds leaves the claim inconclusive; one that passed somewhere and failed elsewhere, partly holds."""
    for claim, part in R.UNTESTED_PARTS.items():
        row = card.loc[claim]
        assert row.detail.startswith(f"a stated part is not tested ({part}); ")
        tested = row.detail.split(" gives ", 1)[1]
        if tested.startswith("holds"):
            assert row.verdict == "inconclusive" and "for information, the tested part gives holds" in row.detail
        else:
            assert row.verdict == tested.split(" (")[0], (claim, row.verdict, tested)
            assert "it moves neither side (the ladder)" in row.detail
    assert card.loc["more_robust_to_rotation"].verdict == "partly holds"          # the perceptron yes, the MLP no
    assert V.ladder_label("test", enough=True, outcomes=("pass", "undecided")) == "inconclusive"
    assert V.ladder_label("test", enough=True, outcomes=("pass", "fail", "undecided")) == "partly holds"
    assert V.ladder_label("test", enough=True, outcomes=("fail", "undecided")) == "does not hold"


def test_streaming_s_ratio_words_state_a_direction_only_on_quiet_recorded_timings():
    """Issue 61: streaming's "2.96 times faster" was stated from timings that recorded no load; the ratio's
    direction now passes the quiet rule first (``streaming.quiet_bound``)."""
    from greenelm_book.chapters import streaming as st

    ratios = [2.9, 3.0, 3.1, 2.95, 3.05]
    decided = V.same_machine_ratio(ratios, claimed="above")
    assert decided.label == "holds"
    key = "cifar10/green-elm/stream/listing3-over-cholesky/numpy/d=4000/b=250/ratio"
    unrecorded = st.quiet_bound(decided, _result(key, ratios, "×"))
    assert unrecorded.label == "inconclusive" and "no load average recorded" in unrecorded.detail
    assert V.direction_words(unrecorded, 3.0, ("slower", "faster")).startswith("no direction judged (inconclusive")
    busy = st.quiet_bound(decided, _result(key, ratios, "×", load_average=[0.2, 1.4, 1.0]))
    assert busy.label == "inconclusive" and "(the quiet rule)" in busy.detail
    quiet = st.quiet_bound(decided, _result(key, ratios, "×", load_average=[0.01, 0.3, 0.8]))
    assert quiet is decided and V.direction_words(quiet, 3.0, ("slower", "faster")) == "faster"


def test_the_quiet_rule_reads_a_benchmarks_own_quiet_judgement_of_its_pairs(tmp_path):
    """Interleaved pairs recorded with the benchmark's quiet flag (no load average of their own) are
    judged by that flag: busy pairs are 'busy timings', not 'loads not recorded'; quiet ones decide."""
    from greenelm_book.judging.verdicts import no_direction_why, quiet_bound, same_machine_ratio
    from greenelm_book.store.results import ChapterResults

    store = ChapterResults("probe", "smoke", tmp_path)
    ratios = [2.0, 2.1, 1.9, 2.05, 1.95]
    busy = store.record("probe/busy/ratio", ratios, "×", quiet=False,
                        timing="one process, the two sides interleaved, on a busy machine (load 1.2)")
    calm = store.record("probe/calm/ratio", ratios, "×", quiet=True, timing="quiet: one process")
    bare = store.record("probe/bare/ratio", ratios, "×")
    test = same_machine_ratio(ratios, claimed="above")
    assert quiet_bound(test, busy).label == "inconclusive"
    assert no_direction_why(quiet_bound(test, busy), 2.0) == "busy timings"
    assert quiet_bound(test, calm).label == "holds"
    assert no_direction_why(quiet_bound(test, bare), 2.0) == "loads not recorded"


def test_a_verdict_judged_again_says_its_untested_part_once(results):
    """A reader's finding: the conclusion's rotation row read "a stated part is not tested (…) … which gives
    partly holds (a stated part is not tested (…) … which gives partly holds (…)))": an answer whose verdict
    was already judged, judged again, says the untested part once."""
    from dataclasses import replace

    answers = {claim_id: answer for content in load_all(STORE).values() for claim_id, answer in content["answers"].items()}
    claim = next(c for c in CLAIMS if c.id == "more_robust_to_rotation")
    once = R.judge_claim(claim, answers[claim.id], results, answers)
    twice = R.judge_claim(claim, replace(answers[claim.id], verdict=once.verdict), results, answers)
    prefix = f"a stated part is not tested ({R.UNTESTED_PARTS[claim.id]}); "
    assert once.verdict.detail.count(prefix) == 1 and twice.verdict.detail.count(prefix) == 1
    assert twice.verdict.label == once.verdict.label
    for claim in CLAIMS:                                # any claim's scope or untested part: said once, judged twice
        if claim.id in answers:
            first = R.judge_claim(claim, answers[claim.id], results, answers)
            again = R.judge_claim(claim, replace(answers[claim.id], verdict=first.verdict), results, answers)
            assert again.verdict.detail == first.verdict.detail or again.verdict.label != first.verdict.label, claim.id
