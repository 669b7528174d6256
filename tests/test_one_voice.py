"""One voice: every label a chapter records (and its page shows) is the scorecard's judgement of
that claim; the ladder and the thresholds are stated once and shown on the intro page."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from greenelm_book.summaries import scorecard as sc
from greenelm_book.judging.verdicts import LADDER, THRESHOLDS

ROOT = Path(__file__).resolve().parent.parent
STORE = ROOT / "book" / "results"


#: recorded labels awaiting their chapter's re-execution, {claim: (chapter, recorded label)}: a chapter
#: that re-measures its timings when executed (hardware) is re-executed only on a quiet machine, so a
#: change of the verdict words may wait for it here, named
AWAITING_REEXECUTION: dict[str, tuple[str, str]] = {}


def _later_evidence(found):
    """Claims whose scorecard test adds a later chapter's results (rejudge.ADDED_EVIDENCE): the earlier chapter
    records its test on its own datasets (it cannot read a chapter executed after it) and prints no label for
    it; the scorecard's label covers every dataset."""
    from greenelm_book.judging.rejudge import ADDED_EVIDENCE

    return found[~found.index.isin(list(ADDED_EVIDENCE))]


def test_the_committed_chapters_record_the_scorecards_labels():
    found = _later_evidence(sc.label_disagreements(sc.scorecard(STORE)).set_index("claim"))
    assert {claim: (row.chapter, row.recorded) for claim, row in found.iterrows()} == AWAITING_REEXECUTION, \
        found.to_string()


def test_a_planted_contradiction_is_found(tmp_path):
    """A chapter's recorded label changed by hand (a page that says another thing) is found."""
    store = tmp_path / "results"
    shutil.copytree(STORE, store)
    card = sc.scorecard(store)
    row = card[card.test == "value_vs_paper"].iloc[0]
    path = store / f"{row.chapter}.json"
    data = json.loads(path.read_text())
    planted = "reproduced" if row.verdict != "reproduced" else "differs, within margin"
    data["answers"][row.claim]["verdict"]["label"] = planted
    path.write_text(json.dumps(data))
    found = _later_evidence(sc.label_disagreements(sc.scorecard(store)).set_index("claim"))
    assert row.claim in found.index
    assert (found.loc[row.claim, "recorded"], found.loc[row.claim, "chapter"]) == (planted, row.chapter)
    assert set(found.index) == {row.claim} | set(AWAITING_REEXECUTION)


def test_the_intro_summary_states_the_ladder_and_every_threshold():
    text = sc.summary_markdown(STORE)
    for label, requires in LADDER:
        assert f"| {label} | {requires} |" in text
    for threshold, _, why in THRESHOLDS:
        assert threshold in text and why in text
    assert text == (ROOT / "book" / "scorecard_summary.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("label", [label for label, _ in LADDER])
def test_every_ladder_label_is_a_verdict_label(label):
    from greenelm_book.report import VERDICT_LABELS

    assert label in VERDICT_LABELS


def test_a_page_that_gives_another_reason_under_the_same_label_is_found(tmp_path):
    """The agreement check compares what the chapter's page states, its label and its reason: a
    recorded reason changed by hand under the scorecard's own label (a page that says "not
    comparable" for one reason while the scorecard gives another) is found and noted, where the
    label-only check sees nothing."""
    store = tmp_path / "results"
    shutil.copytree(STORE, store)
    card = sc.scorecard(store)
    before = set(sc.page_disagreements(card).claim)
    row = card[(card.recorded == card.verdict) & ~card.claim.isin(before) & (card.same_as == "")].iloc[0]
    path = store / f"{row.chapter}.json"
    data = json.loads(path.read_text())
    data["answers"][row.claim]["verdict"]["detail"] = "a reason the scorecard does not give"
    path.write_text(json.dumps(data))
    planted = sc.scorecard(store)
    found = sc.page_disagreements(planted).set_index("claim")
    assert set(found.index) - before == {row.claim}
    assert found.loc[row.claim, "recorded_detail"] == "a reason the scorecard does not give"
    assert row.claim not in set(sc.label_disagreements(planted).claim)                 # the label-only blind spot
    assert "a reason the scorecard does not give" in planted.set_index("claim").loc[row.claim, "note"]


def test_the_ten_point_threshold_states_the_widest_spread_from_the_store(tmp_path):
    """The "> 10 points" threshold once said every accuracy here spreads "≤ 0.5 point" while spreads of
    1.65 and more exist: the page now gives the widest seed-to-seed sd the store holds, read from it."""
    from greenelm_book.store.results import ChapterResults

    store = ChapterResults("baselines", "smoke", tmp_path)
    store.record("cifar10/sgd-cnn/accuracy", [60.0, 63.0, 66.0], "%")          # sd 3.00: the widest
    store.record("mnist/sgd-mlp/accuracy", [97.0, 97.2], "%")
    store.record("mnist/sgd-mlp/train-seconds", [1.0, 9.0], "s")              # not an accuracy
    store.record("mnist/green-elm/accuracy", [50.0], "%")                     # one run: no spread
    assert sc.widest_accuracy_spread(tmp_path) == (pytest.approx(3.0), "cifar10/sgd-cnn/accuracy")
    text = sc.ladder_markdown(sc.widest_accuracy_spread(tmp_path))
    row = next(line for line in text.splitlines() if line.startswith(f"| {sc.SPREAD_THRESHOLD} |"))
    assert "the widest seed-to-seed sd of a test accuracy in the results store is 3.00 points (cifar10/sgd-cnn/accuracy;" in row
    assert "≤ 0.5" not in text
    assert sc.widest_accuracy_spread(tmp_path / "none") is None


def test_the_undecided_counts_follow_the_scorecard():
    """The sentence under the intro's counts: the inconclusive claims each evidence rule bounded, and what the
    ratio test against a paper's ratio gave; it says no claim reached concordant / discordant only when none did."""
    import pandas as pd

    frame = pd.DataFrame({"verdict": ["inconclusive"] * 4 + ["holds", "concordant"],
                          "test": ["quiet_rule", "quiet_rule", "seeds_rule", "ratio_across_machines",
                                   "chapter_test", "ratio_across_machines"]})
    text = sc.undecided_markdown(frame)
    assert text.startswith("Of the 4 inconclusive claims, the quiet rule (timings not recorded as quiet) bounded 2 "
                           "and the seeds rule (a point on one seed) 1; the other 1 rest")
    assert "judged 2 claims (inconclusive 1, concordant 1): 1 claim decided by it." in text
    text = sc.undecided_markdown(frame.iloc[:5])
    assert "judged 1 claim (inconclusive 1): no claim is concordant or discordant yet." in text
