"""The results store, the verdict rule and the scorecard; and the consistency of the committed stores.

Unit tests use a temporary results dir. The consistency tests read the committed stores
(``book/results``, full profile, and ``tests/notebooks/results``, the smoke references): one
configuration has one value, no two keys describe the same configuration, a page that shows another
chapter's result shows its current value, every page and its results file come from the same
execution, and the scorecard has one row per claim of the paper.
"""

from __future__ import annotations

import hashlib
import json
import math
from pathlib import Path

import nbformat
import pytest
from scipy.stats import t

from greenelm_book.paper import CLAIMS
from greenelm_book.report import (Verdict, judge_qualitative, judge_time, not_comparable,
                                  not_measurable, prediction_interval, by_sign)
from greenelm_book.judging.verdicts import value_vs_paper
from greenelm_book.store.results import ChapterResults, ResultsFileError, load_all
from greenelm_book.summaries.scorecard import UNANSWERED, counts, scorecard, section_html

ROOT = Path(__file__).resolve().parents[1]
STORES = [ROOT / "book" / "results", ROOT / "tests" / "notebooks" / "results"]
A_CLAIM = CLAIMS[0].id


# ---------------------------------------------------------------- the verdict rule
def test_prediction_interval_is_the_single_run_t_interval():
    values = [96.9, 97.0, 97.1, 97.2, 96.95]
    n = len(values)
    mean = sum(values) / n
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1))
    half = t.ppf(0.975, n - 1) * sd * math.sqrt(1 + 1 / n)
    lo, hi = prediction_interval(values)
    assert lo == pytest.approx(mean - half) and hi == pytest.approx(mean + half)
    with pytest.raises(ValueError, match="at least 2 runs"):
        prediction_interval([97.0])


def test_value_vs_paper_reproduced_inside_the_interval_and_signed_outside():
    values = [96.9, 97.0, 97.1, 97.2, 96.95]
    lo, hi = prediction_interval(values)
    assert value_vs_paper(97.15, values).label == "reproduced"
    above = value_vs_paper(hi + 0.5, values)
    assert above.label == "differs, beyond margin" and above.detail.startswith("-")
    below = value_vs_paper(lo - 0.5, values)
    assert below.label == "differs, beyond margin" and below.detail.startswith("+")
    assert "95 % PI" in above.detail and "(n = 5)" in above.ours


def test_value_vs_paper_widens_by_half_the_printed_digit():
    values = [97.0, 97.0, 97.0, 97.0, 97.0]           # zero spread: the interval is a point
    assert value_vs_paper(97.0, values).label == "reproduced"
    assert value_vs_paper(97.004, values).label == "differs, within margin"   # printed to 3 decimals: ±0.0005
    assert value_vs_paper(97.4, values).label == "differs, within margin"     # printed to 1 decimal: ±0.05


def test_fewer_than_five_runs_are_inconclusive():
    verdict = value_vs_paper(97.15, [97.0, 97.1, 97.2])
    assert verdict.label == "inconclusive" and "3 run(s)" in verdict.detail


def test_other_verdicts():
    assert judge_time(1.5, [6.0, 6.2]).label == "not comparable"
    assert "another machine" in judge_time(1.5, [6.0]).detail
    nc = not_comparable("EfficientNet-Lite0, not ResNet-18", 87.54, [90.0] * 5)
    assert nc.label == "not comparable" and "+2.46" in nc.detail and "information only" in nc.detail
    ratio = not_comparable("the paper's MLP is not described", 5.1, [2.27, 2.27], unit="×")
    assert ratio.detail == "the paper's MLP is not described; ours / paper's = 0.45, for information only"
    assert judge_qualitative(True, "test").label == "holds"
    assert judge_qualitative(False, "test").label == "does not hold"
    assert judge_qualitative("partly", "test").label == "partly holds"
    assert judge_qualitative("inconclusive", "test").label == "inconclusive"
    with pytest.raises(ValueError, match="True, False, 'partly' or 'inconclusive'"):
        judge_qualitative("maybe", "test")
    assert not_measurable("no GPU").label == "not measurable here"
    with pytest.raises(ValueError, match="verdict label"):
        Verdict("fine")
    assert by_sign(0.3, "above", "below") == "above" and by_sign(-0.3, "above", "below") == "below"
    assert by_sign(0.0, "above", "below") == "the same as"


# ---------------------------------------------------------------- the store
@pytest.fixture
def store(tmp_path):
    return ChapterResults("random_features", "smoke", directory=tmp_path)


def test_record_round_trips_through_the_file(store, tmp_path):
    result = store.record("mnist/green-elm/unit/pinv/d=500/accuracy", [89.1, 89.3], "%",
                          dataset="mnist", n_hidden=500, seeds=[0, 1])
    assert result.mean == pytest.approx(89.2) and result.n == 2
    loaded = load_all(tmp_path)["random_features"]["results"][result.key]
    assert loaded.values == (89.1, 89.3) and loaded.setting == {"dataset": "mnist", "n_hidden": 500,
                                                               "seeds": [0, 1]}
    assert "--chapter random_features" in loaded.command and loaded.machine


def test_one_key_one_value(store):
    store.record("mnist/x/accuracy", [1.0], "%", a=1)
    store.record("mnist/x/accuracy", [1.0], "%", a=1)            # the same again is fine
    with pytest.raises(ValueError, match="recorded twice"):
        store.record("mnist/x/accuracy", [2.0], "%", a=1)


@pytest.mark.parametrize("key", ["Mnist/x", "mnist//x", "/mnist", "mnist x", ""])
def test_bad_keys_are_refused(store, key):
    with pytest.raises(ValueError, match="result key"):
        store.record(key, [1.0], "%")


def test_non_finite_values_are_refused(store):
    with pytest.raises(ValueError, match="finite"):
        store.record("mnist/x/accuracy", [float("nan")], "%")
    with pytest.raises(ValueError, match="finite"):
        store.record("mnist/x/accuracy", [1.0], "%", alpha=float("inf"))


def test_answers_need_a_known_claim_and_existing_results(store):
    store.record("mnist/x/accuracy", [97.0] * 5, "%")
    store.answer(A_CLAIM, value_vs_paper(97.0, [97.0] * 5), keys="mnist/x/accuracy")
    with pytest.raises(ValueError, match="not a claim id"):
        store.answer("no_such_claim", not_measurable("x"))
    with pytest.raises(KeyError, match="no result"):
        store.answer(A_CLAIM, not_measurable("x"), keys=["mnist/y/accuracy"])
    with pytest.raises(TypeError, match="report.Verdict"):
        store.answer(A_CLAIM, "reproduced")


def test_reading_another_chapter_records_what_the_page_used(tmp_path):
    owner = ChapterResults("random_features", "smoke", directory=tmp_path)
    owner.record("mnist/x/accuracy", [97.0, 97.2], "%")
    reader = ChapterResults("baselines", "smoke", directory=tmp_path)
    assert reader.get("random_features", "mnist/x/accuracy").values == (97.0, 97.2)
    assert load_all(tmp_path)["baselines"]["reads"] == {"random_features:mnist/x/accuracy": (97.0, 97.2)}
    with pytest.raises(KeyError, match="recorded no result"):
        reader.get("random_features", "mnist/y/accuracy")
    with pytest.raises(KeyError, match="execute it first"):
        reader.get("cifar10", "cifar10/x/accuracy")


def test_a_re_execution_starts_from_nothing(tmp_path):
    ChapterResults("random_features", "smoke", directory=tmp_path).record("mnist/x/accuracy", [1.0], "%")
    ChapterResults("random_features", "smoke", directory=tmp_path)
    assert not (tmp_path / "random_features.json").exists()


@pytest.mark.parametrize("edit, words", [
    (lambda d: d.update(format=99), "'format' must be 1"),
    (lambda d: d.update(chapter="other"), "'chapter' must be 'random_features'"),
    (lambda d: d["results"]["mnist/x/accuracy"].update(values=[]), "non-empty list of finite numbers"),
    (lambda d: d["results"]["mnist/x/accuracy"].update(values=["97"]), "non-empty list of finite numbers"),
    (lambda d: d["results"]["mnist/x/accuracy"].pop("setting"), "exactly the fields"),
    (lambda d: d["answers"][A_CLAIM]["verdict"].update(label="great"), "verdict label"),
    (lambda d: d.update(reads={"nokey": {"values": [1]}}), "'reads' must map"),
])
def test_bad_results_files_name_the_problem(store, tmp_path, edit, words):
    store.record("mnist/x/accuracy", [97.0] * 5, "%")
    store.answer(A_CLAIM, value_vs_paper(97.0, [97.0] * 5), keys="mnist/x/accuracy")
    path = tmp_path / "random_features.json"
    data = json.loads(path.read_text())
    edit(data)
    path.write_text(json.dumps(data))
    with pytest.raises(ResultsFileError, match=words) as info:
        load_all(tmp_path)
    assert str(path) in str(info.value)


def test_a_file_that_is_not_json_is_an_error_not_a_crash(tmp_path):
    (tmp_path / "random_features.json").write_bytes(b"\x80\x04K\x01.")     # a pickle
    with pytest.raises(ResultsFileError, match="not a readable JSON"):
        load_all(tmp_path)


# ---------------------------------------------------------------- the scorecard
def test_scorecard_has_one_row_per_claim_and_counts_every_verdict(tmp_path):
    store = ChapterResults("random_features", "smoke", directory=tmp_path)
    paper_value = CLAIMS[0].value                       # the scorecard re-judges against the claim's value
    runs = [paper_value + d for d in (-0.1, 0.0, 0.1, 0.05, -0.05)]
    store.record("mnist/x/accuracy", runs, "%")
    store.answer(A_CLAIM, value_vs_paper(paper_value, runs), keys="mnist/x/accuracy", note="the setting")
    card = scorecard(tmp_path)
    assert list(card.claim) == [c.id for c in CLAIMS]
    assert card.set_index("claim").loc[A_CLAIM, "verdict"] == "reproduced"
    assert (card.verdict == UNANSWERED).sum() == len(CLAIMS) - 1
    assert counts(card).loc["all"].sum() == len(CLAIMS)
    html = section_html(card.head(3))
    assert html.count("<tr id=\"claim-") == 3 and "the setting" in html


def test_a_claim_answered_by_two_chapters_is_an_error(tmp_path):
    for chapter in ("random_features", "baselines"):
        ChapterResults(chapter, "smoke", directory=tmp_path).answer(A_CLAIM, not_measurable("x"))
    with pytest.raises(ValueError, match="answered twice"):
        scorecard(tmp_path)


# ---------------------------------------------------------------- the committed stores
def _quantity(key: str) -> str:
    return key.rsplit("/", 1)[-1]


@pytest.mark.parametrize("folder", STORES, ids=lambda p: str(p.relative_to(ROOT)))
def test_committed_store_one_configuration_one_value(folder):
    stored = load_all(folder)
    owners: dict[str, tuple] = {}
    settings: dict[str, str] = {}
    for chapter, content in stored.items():
        for key, result in content["results"].items():
            assert key not in owners, f"{key} recorded by {owners[key][0]} and by {chapter}"
            owners[key] = (chapter, result.values)
            same = json.dumps([result.setting, _quantity(key)], sort_keys=True)
            if result.setting:
                assert same not in settings, (f"{key} ({chapter}) and {settings[same]} describe one "
                                              f"configuration: {result.setting}")
                settings[same] = f"{key} ({chapter})"
    for chapter, content in stored.items():
        for read, values in content["reads"].items():
            owner, key = read.split(":", 1)
            assert key in owners, f"{chapter} shows {read}, which its owner no longer records"
            assert owners[key][1] == values, (f"{chapter} shows {read} = {values}, the store now has "
                                              f"{owners[key][1]}: re-execute {chapter}")
        for claim, answer in content["answers"].items():
            for key in answer.keys:
                assert key in owners, f"{chapter}'s answer to {claim} rests on {key}, which no chapter records"
    scorecard(folder)                       # every answer is to a claim of the paper, once


@pytest.mark.parametrize("folder", STORES, ids=lambda p: str(p.relative_to(ROOT)))
def test_each_page_and_its_results_come_from_one_execution(folder):
    for path in sorted(folder.glob("*.json")):
        notebook = folder.parent / f"{path.stem}.ipynb"
        assert notebook.is_file(), f"{path} has no executed chapter {notebook}"
        meta = nbformat.read(notebook, as_version=4).metadata.get("greenelm", {})
        assert meta.get("own_results_sha256") == hashlib.sha256(path.read_bytes()).hexdigest(), (
            f"{notebook.name} was not executed with the results now in {path}: re-execute it")


@pytest.mark.parametrize("folder", STORES, ids=lambda p: str(p.relative_to(ROOT)))
def test_the_executed_scorecard_shows_every_claim_as_stored(folder):
    notebook = folder.parent / "scorecard.ipynb"
    if not notebook.is_file():
        pytest.skip(f"{notebook} not executed yet")
    text = "".join(output.get("data", {}).get("text/html", "")
                   for cell in nbformat.read(notebook, as_version=4).cells
                   for output in cell.get("outputs", []))
    card = scorecard(folder)
    for row in card.itertuples():
        assert f'id="claim-{row.claim}"' in text, f"the scorecard page lacks claim {row.claim}"
    import html
    for row in card[card.ours != ""].itertuples():
        assert html.escape(row.ours) in text, f"the scorecard shows another value for {row.claim}"


def test_one_colour_per_series_across_the_book():
    from greenelm_book.report import DATASET_SERIES, SERIES, colour

    assert len(set(SERIES)) == len(SERIES)
    assert len({colour(s) for s in SERIES}) == len(SERIES), "two series share a colour"
    assert len({colour(s) for s in DATASET_SERIES}) == len(DATASET_SERIES)
    with pytest.raises(KeyError, match="add it to report.SERIES"):
        colour("a series nobody declared")
