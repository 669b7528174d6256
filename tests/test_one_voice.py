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

#: answers recorded before the chapters judged through the scorecard (and before the ladder made
#: "reproduced" require equivalence): they change when their chapter is next executed at the full
#: profile, and this list must shrink with them (it is compared exactly)
AWAITING_RE_EXECUTION = {
    "table1_mnist_sgd_accuracy": "baselines",
    "speedup_vs_sgd_mnist_d2000": "baselines",
    "table1_fashion_pinv_d500_accuracy": "random_features",
    "cifar10_raw_parity_with_sgd": "cifar10",
    "elm_conv_viable_readout": "cifar10",
    "elm_conv_total_time_parity": "cifar10",
    "pinv_d4000_behind_sgd": "cifar10",
    "pinv_over_cholesky_speedup_d4000": "cifar10",
    "cholesky_accuracy_cost_0_01": "cifar10",
    "abstract_frozen_backbone_effective": "cifar10",   # its primary evidence is EfficientNet's, not ResNet-18's
}


def test_the_committed_chapters_record_the_scorecards_labels():
    found = sc.label_disagreements(sc.scorecard(STORE))
    assert dict(zip(found.claim, found.chapter)) == AWAITING_RE_EXECUTION


def test_a_planted_contradiction_is_found(tmp_path):
    """A chapter's recorded label changed by hand (a page that says another thing) is found."""
    store = tmp_path / "results"
    shutil.copytree(STORE, store)
    card = sc.scorecard(store)
    row = card[(card.test == "value_vs_paper") & ~card.claim.isin(list(AWAITING_RE_EXECUTION))].iloc[0]
    path = store / f"{row.chapter}.json"
    data = json.loads(path.read_text())
    planted = "reproduced" if sc.base_verdict(row.verdict) != "reproduced" else "differs"
    data["answers"][row.claim]["verdict"]["label"] = planted
    path.write_text(json.dumps(data))
    found = sc.label_disagreements(sc.scorecard(store)).set_index("claim")
    assert row.claim in found.index
    assert (found.loc[row.claim, "recorded"], found.loc[row.claim, "chapter"]) == (planted, row.chapter)
    assert len(found) == len(AWAITING_RE_EXECUTION) + 1


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
