"""The ladder of labels: each label given by one condition, the conditions exclusive and exhaustive
over every input a verdict function takes, every label a verdict can take on the ladder, and the
scorecard's agreement check comparing whole labels."""

from __future__ import annotations

import itertools
import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from greenelm_book.judging import verdicts as V
from greenelm_book.report import VERDICT_LABELS, prediction_interval
from greenelm_book.summaries import scorecard as sc

ROOT = Path(__file__).resolve().parent.parent
STORE = ROOT / "book" / "results"
LABELS = [label for label, _ in V.LADDER]

VALUE_FACTS = [dict(enough=e, inside=i, margin=m)
               for e, i, m in itertools.product((True, False), (True, False), ("within", "beyond", "undecided"))]
RATIO_FACTS = [dict(same_run=r, enough=e, side=s, band=b)
               for r, e, s, b in itertools.product((True, False), (True, False), ("paper", "other", "straddles"),
                                                   ("inside", "outside", "straddles"))]
TEST_FACTS = [dict(enough=e, outcomes=o) for e in (True, False)
              for n in range(0, 4) for o in itertools.product(("pass", "fail", "undecided"), repeat=n)]


@pytest.mark.parametrize("kind, facts", [("value", f) for f in VALUE_FACTS] + [("ratio", f) for f in RATIO_FACTS]
                         + [("test", f) for f in TEST_FACTS])
def test_exactly_one_condition_holds_for_every_case(kind, facts):
    """Exclusive and exhaustive: over the whole space of facts of each kind, one label's condition holds."""
    held = [label for label, holds in V.LADDER_CONDITIONS[kind](**facts).items() if holds]
    assert len(held) == 1, (kind, facts, held)
    assert V.ladder_label(kind, **facts) == held[0]
    assert held[0] in LABELS


def test_the_ladder_is_every_verdict_label_once():
    """Every label a Verdict can carry (so every label any verdict function can return) is on the
    ladder, once, and the retired plain "differs" is on neither."""
    assert sorted(LABELS) == sorted(VERDICT_LABELS) and len(set(LABELS)) == len(LABELS)
    assert "differs" not in VERDICT_LABELS
    for kind, conditions in V.LADDER_CONDITIONS.items():
        facts = {"value": VALUE_FACTS, "ratio": RATIO_FACTS, "test": TEST_FACTS}[kind][0]
        assert set(conditions(**facts)) <= set(LABELS), kind


def test_a_broken_ladder_is_an_error(monkeypatch):
    monkeypatch.setitem(V.LADDER_CONDITIONS, "value", lambda **f: {"reproduced": True, "inconclusive": True})
    with pytest.raises(RuntimeError, match="exclude each other"):
        V.ladder_label("value", enough=True, inside=True, margin="within")
    with pytest.raises(ValueError, match="kind must be"):
        V.ladder_label("seconds")


def test_the_stated_ladder_makes_no_false_implication():
    text = sc.ladder_markdown()
    assert "implies at least" not in text and "exactly one condition holds" in text
    for label, requires in V.LADDER:
        assert f"| {label} | {requires} |" in text


runs = st.lists(st.floats(90.0, 99.0, allow_nan=False), min_size=2, max_size=8)


@settings(max_examples=150, deadline=None)
@given(values=runs, paper=st.floats(90.0, 99.0, allow_nan=False).map(lambda v: round(v, 2)))
def test_value_vs_paper_gives_the_label_of_its_facts(values, paper):
    """The label value_vs_paper returns is the one whose condition its inputs meet (computed here
    from the prediction interval and the margin's outcome independently)."""
    verdict = V.value_vs_paper(paper, values, "%")
    assert verdict.label in LABELS
    enough = len(values) >= V.MIN_RUNS
    if not enough:
        assert verdict.label == "inconclusive"
        return
    lo, hi = prediction_interval(np.asarray(values))
    inside = lo - 0.005 <= paper <= hi + 0.005
    outcome, _ = V.margin_outcome(values, paper, 0.5)
    assert verdict.label == V.ladder_label("value", enough=True, inside=inside, margin=outcome)


@settings(max_examples=100, deadline=None)
@given(a=runs, b=runs, paper=st.floats(-5.0, 5.0, allow_nan=False).map(lambda v: round(v, 2)))
def test_difference_vs_paper_labels_are_on_the_ladder(a, b, paper):
    label = V.difference_vs_paper(paper, a, b).label
    assert label in LABELS and label not in ("concordant", "discordant")


ratios = st.lists(st.floats(0.05, 50.0, allow_nan=False), min_size=2, max_size=8)


@settings(max_examples=150, deadline=None)
@given(paper=st.floats(0.1, 30.0, allow_nan=False), a=ratios, quiet=st.booleans(), same_run=st.booleans())
def test_a_ratio_from_another_machine_is_never_reproduced(paper, a, quiet, same_run):
    """A ratio of timings from another machine takes only its own words (or inconclusive / not
    comparable), and the label is the one of its CI's facts."""
    verdict = V.ratio_across_machines(paper, a, quiet=quiet, same_run=same_run)
    assert verdict.label in ("concordant", "discordant", "inconclusive",
                             "not comparable")
    if not same_run:
        assert verdict.label == "not comparable"
    elif len(a) < V.MIN_RUNS or not quiet:
        assert verdict.label == "inconclusive"
    else:
        _, low, high = V.ratio_interval(a)
        side = "paper" if (low > 1 if paper > 1 else high < 1) else "other" if (high < 1 if paper > 1 else low > 1) \
            else "straddles"
        band = "inside" if paper / 3 <= low and high <= paper * 3 else \
            "outside" if high < paper / 3 or low > paper * 3 else "straddles"
        assert verdict.label == V.ladder_label("ratio", same_run=True, enough=True, side=side, band=band)


@settings(max_examples=80, deadline=None)
@given(values=st.dictionaries(st.sampled_from(["mnist", "fashion-mnist", "cifar10"]),
                              st.lists(st.floats(0.5, 1.5, allow_nan=False), min_size=2, max_size=6), min_size=1),
       claimed=st.sampled_from(["above", "below"]))
def test_mean_beyond_bound_is_on_the_ladder(values, claimed):
    label = V.mean_beyond_bound(values, 1.0, claimed).label
    assert label in ("holds", "partly holds", "does not hold", "inconclusive")


def test_mean_beyond_bound_decides_by_each_interval():
    above, below = [1.10, 1.08, 1.12, 1.09, 1.11], [0.80, 0.82, 0.79, 0.81, 0.83]
    assert V.mean_beyond_bound({"fashion-mnist": above}, 1.0).label == "holds"
    mixed = V.mean_beyond_bound({"fashion-mnist": above, "cifar10": below}, 1.0, what="C")
    assert mixed.label == "partly holds" and "CIFAR-10: C 0.81" in mixed.ours
    assert V.mean_beyond_bound({"cifar10": below}, 1.0).label == "does not hold"
    straddling = V.mean_beyond_bound({"fashion-mnist": above, "cifar10": [0.9, 1.1, 1.0, 0.95, 1.05]}, 1.0)
    assert straddling.label == "inconclusive" and "straddles 1 for CIFAR-10" in straddling.detail
    with pytest.raises(ValueError, match="claimed"):
        V.mean_beyond_bound({"cifar10": below}, 1.0, claimed="equal")


def test_value_vs_paper_refuses_a_unit_without_a_margin():
    with pytest.raises(ValueError, match="no practical margin for unit '×'"):
        V.value_vs_paper(5.1, [2.3, 2.2, 2.4, 2.3, 2.2], "×")


def test_the_whole_label_check_catches_a_planted_mismatch(tmp_path):
    """A chapter's recorded label changed to another label of the same "differs" family (the old
    base-label check counted both as "differs" and reported nothing) is found."""
    store = tmp_path / "results"
    shutil.copytree(STORE, store)
    card = sc.scorecard(store)
    before = set(sc.label_disagreements(card).claim)          # a chapter awaiting re-execution, if any
    row = card[(card.verdict == "differs, beyond margin") & (card.recorded == "differs, beyond margin")].iloc[0]
    path = store / f"{row.chapter}.json"
    data = json.loads(path.read_text())
    data["answers"][row.claim]["verdict"]["label"] = "differs, within margin"
    path.write_text(json.dumps(data))
    found = sc.label_disagreements(sc.scorecard(store)).set_index("claim")
    assert set(found.index) - before == {row.claim}
    assert (found.loc[row.claim, "recorded"], found.loc[row.claim, "verdict"]) == ("differs, within margin",
                                                                                  "differs, beyond margin")
    assert sc.base_verdict("differs, within margin") == sc.base_verdict("differs, beyond margin")  # the old check's blind spot



def test_mean_interval_is_the_t_interval_mean_beyond_bound_reads():
    from scipy import stats

    values = [99.47, 99.52, 99.49, 99.55, 99.50, 99.46]
    mean, low, high = V.mean_interval(values)
    expected = stats.t.interval(0.95, len(values) - 1, loc=np.mean(values), scale=stats.sem(values))
    assert mean == pytest.approx(np.mean(values)) and (low, high) == pytest.approx(expected)
    assert f"95 % CI {low:.2f} to {high:.2f}" in V.mean_beyond_bound({"mnist": values}, 99.5).ours
