"""greenelm_book.summaries.bottom_line: the conclusion's and the intro's numbers, against the committed store.

(1) each finding is the store's value of the configuration it names, and the paper's value beside
it is the paper's constant; (2) widths fall back to the widest measured one below the paper's, and
the words follow the sign of their number; (3) the committed headline page is current and the
intro opens with it; (4) the conclusion's prose: every number glued, at most 1,500 words rendered,
its bottom line at most 250; (5) every verdict word on the conclusion is the scorecard's judgement of
the claim it stands beside (a planted contradiction fails); (6) the deviations page: generated from
the store, current, at most 1,500 words, its GPU row the streaming chapter's H200 measurement.
"""

from __future__ import annotations

import math
import re
import statistics

import numpy as np
import pandas as pd
import pytest

from greenelm_book.chapters import frontier as fc
from greenelm_book.bench import QUIET_RATIO_KEYS
from greenelm_book.chapters import frontier_budget as fb
from greenelm_book.report import duration_text, spread_text
from greenelm_book.judging import verdicts as V
from greenelm_book.summaries import bottom_line as bl
from greenelm_book.paper import DATASET_NAMES, FIG_SCALING, FIG_SCALING_BASELINES, TABLE_I, TABLE_IV, TABLE_VI
from greenelm_book.store.results import Result
from greenelm_book.running.toc import ROOT

STORE_DIR = ROOT / "book" / "results"
CONCLUSION_SOURCE = ROOT / "notebooks" / "conclusion.py"
CONCLUSION_PAGE = ROOT / "book" / "conclusion.ipynb"


@pytest.fixture(scope="module")
def store():
    return bl.Store(STORE_DIR)


@pytest.fixture(scope="module")
def found():
    return bl.findings(STORE_DIR)


def _without(store, key):
    """A copy of ``store`` without the result ``key``."""
    import copy

    other = copy.copy(store)
    other.results = {k: v for k, v in store.results.items() if k != key}
    return other


def _with(store, result):
    """A copy of ``store`` with ``result`` added."""
    import copy

    other = copy.copy(store)
    other.results = {**store.results, result.key: result}
    other.chapter = {**store.chapter, result.key: result.chapter}
    return other


def _result(key, values, chapter="test", unit="%", **setting):
    return Result(key, tuple(float(v) for v in values), unit, setting, chapter, "test machine",
                  "2026-01-01", "python -m greenelm_book.running.runner ...")


# ----------------------------------------------------------------------------- (1) the store
def test_accuracy_findings_are_the_store_configurations(store, found):
    mnist = store.get(f"mnist/green-elm/unit/pinv/d={found['acc_mnist_d']}/accuracy")
    assert mnist.setting["dataset"] == "mnist" and mnist.setting["n_hidden"] == found["acc_mnist_d"]
    assert mnist.setting["weight_scale"] == "unit" and mnist.setting["solver"] == "pinv"
    assert found["acc_mnist"] == mnist.mean
    paper = TABLE_I[(TABLE_I.dataset == "mnist") & (TABLE_I.solver == "pinv")].iloc[0]
    assert found["acc_mnist_d"] == paper.n_hidden and found["acc_mnist_paper"] == paper.accuracy
    assert found["acc_mnist_gap"] == pytest.approx(abs(mnist.mean - paper.accuracy))
    fashion = store.get(f"fashion-mnist/green-elm/unit/pinv/d={found['acc_fashion_d']}/accuracy")
    assert (found["acc_fashion"], found["acc_fashion_n"]) == (fashion.mean, fashion.n)
    assert found["acc_fashion_paper"] == FIG_SCALING[(FIG_SCALING.dataset == "fashion-mnist")
                                                     & (FIG_SCALING.n_hidden == found["acc_fashion_d"])].accuracy.item()
    assert found["acc_mnist_he"] == store.get(f"mnist/green-elm/he/pinv/d={found['acc_mnist_d']}/accuracy").mean
    assert found["sgd_mnist"] == store.get("mnist/sgd-mlp/accuracy").mean
    raw = store.get(f"cifar10/green-elm/unit/cholesky/d={found['acc_cifar_raw_d']}/accuracy")
    assert raw.chapter == "cifar10" and found["acc_cifar_raw"] == raw.mean
    assert found["acc_cifar_raw_paper"] == TABLE_VI[TABLE_VI.model == "raw"].accuracy.item()


def test_the_speed_up_is_the_quiet_pairs_geometric_mean_where_timed_in_one_process(store, found):
    key = f"mnist/sgd-mlp-over-green-elm/unit/pinv/d={found['speedup_d']}/paired-time-ratio"
    pairs = _result(key, [0.61, 0.62, 0.64, 0.6, 0.63], "baselines", "", quiet=True)
    quiet = bl.speed_findings(_with(store, pairs))              # the one-clock pairs, where measured
    assert quiet["speedup"] == pytest.approx(math.exp(np.mean(np.log(pairs.values))), rel=1e-12)
    assert quiet["speedup_how"].startswith("both timed in one quiet process, interleaved, 5 pairs")
    busy = bl.speed_findings(_with(store, _result(key, pairs.values, "baselines", "", quiet=False)))
    assert busy["speedup_how"].startswith("both timed in one process on a busy machine, interleaved, 5 pairs")
    without = bl.speed_findings(_without(store, key))           # else the chapters' own timings, said so
    sgd = store.get("mnist/sgd-mlp/train-seconds")
    elm = store.get(f"mnist/green-elm/unit/pinv/d={without['speedup_d']}/fit-seconds")
    assert without["speedup"] == pytest.approx(math.exp(np.mean(np.log(sgd.values)) - np.mean(np.log(elm.values))),
                                               rel=1e-12)
    assert "timed in the baselines chapter" in without["speedup_how"]
    if key in store.results:                                    # the committed store: its own quiet pairs
        geometric = math.exp(np.mean(np.log(store.get(key).values)))
        assert found["speedup"] == pytest.approx(geometric, rel=1e-12)
    else:
        assert found["speedup"] == without["speedup"]
    assert found["speedup_low"] < found["speedup"] < found["speedup_high"]
    assert found["speedup_paper"] == 11.6
    t4 = TABLE_IV.set_index("solver").seconds
    assert found["pinv_lu_paper"] == pytest.approx(t4["pinv"] / t4["lu"])
    # Table IV's ratio as the scorecard judges it: the interleaved pairs where they exist and were quiet,
    # else the report's one run of each
    ratio = {key: r for key, r in store.matching(r"mnist/paper-listing2/pinv-over-lu/.*/paired-time-ratio").items()
             if r.setting.get("quiet", True)} or store.matching(r"mnist/paper-listing2/pinv-over-lu/.*/solve-time-ratio")
    assert [found["pinv_lu"]] == [r.mean for r in ratio.values()]
    # the 119× and the 5.1× likewise: the quiet pairs where measured, else the chapter's run-by-run ratios
    quiet_chol = f"cifar10/listing2/pinv-over-cholesky/n=50000/d={found['pinv_chol_d']}/paired-time-ratio"
    chol = store.get(f"cifar10/green-elm/efficientnet-lite0/pinv-over-cholesky/d={found['pinv_chol_d']}"
                     "/solve-time-ratio")
    assert found["pinv_chol"] == store.results.get(quiet_chol, chol).mean
    assert bl.speed_findings(_without(store, quiet_chol))["pinv_chol"] == chol.mean
    assert ("process" in found["pinv_chol_what"]) == (quiet_chol in store.results)
    raw = store.get("cifar10/green-elm/unit/cholesky/d=2000/sgd-mlp-over-fit-time-ratio")
    assert found["speedup_raw"] == store.results.get(f"{raw.key}/paired", raw).mean
    assert bl.speed_findings(_without(store, f"{raw.key}/paired"))["speedup_raw"] == raw.mean


def test_inconsistencies_come_from_the_paper_constants():
    f = bl.inconsistency_findings()
    row = TABLE_I[(TABLE_I.dataset == "mnist") & (TABLE_I.solver == "pinv")].iloc[0]
    pinv = TABLE_IV[TABLE_IV.solver == "pinv"].iloc[0]
    assert (f["t1_pinv_s"], f["t4_pinv_s"]) == (row.train_seconds, pinv.seconds)
    assert f["t4_over_t1"] == pytest.approx(pinv.seconds / row.train_seconds)
    sgd_s = TABLE_I[(TABLE_I.dataset == "mnist") & (TABLE_I.solver == "sgd")].train_seconds.item()
    assert f["speedup_if_t4"] == pytest.approx(sgd_s / pinv.seconds)
    assert (f["sgd_figure"], f["cnn_figure"]) == (FIG_SCALING_BASELINES["mnist"], FIG_SCALING_BASELINES["cifar10"])
    curve = FIG_SCALING[FIG_SCALING.dataset == "cifar10"].accuracy
    assert (f["cifar_curve_low"], f["cifar_curve_high"]) == (curve.min(), curve.max())


def test_frontier_scaling_streaming_and_scale_out_findings(store, found):
    for name, dataset in bl.PROTOCOL_DATASETS:                            # one value per seed recorded
        result = store.results.get(f"{dataset}/frontier-halving/test-accuracy")    # the headline's protocol
        assert found[f"protocol_{name}"] == (None if result is None else result.mean)
        if result is not None:
            planned = len(result.setting["planned_seeds"])                    # as declared in the protocol's parameters
            assert f"{result.mean:.2f}" in found["protocol_text"] and f"{result.n} of {planned} declared seeds" in found["protocol_text"]
            assert found[f"protocol_{name}_seeds"] == f"{result.n} of {planned} declared seeds"
            seconds = store.get(f"{dataset}/frontier-halving/seconds")
            per = "each" if seconds.n == 1 else "per seed on average"          # a mean is not every seed's
            error = fb.sampling_error(result.mean, 10_000)                    # each dataset's 10,000 test images
            limit = seconds.setting["limit_seconds"]
            over = sum(v > limit for v in seconds.values)                   # the limit it broke, where it did
            over_words = f", over its {duration_text(limit)} limit on {over} of {seconds.n} seeds" if over else ""
            assert (f"declared seeds, {duration_text(seconds.mean)} {per}{over_words}; ± {error:.2f} test-set "
                    "sampling error)") in found["protocol_text"]
        earlier = store.results.get(f"{dataset}/frontier-protocol/test-accuracy")    # quoted beside, as it was
        if earlier is not None:
            assert spread_text(earlier) in found["earlier_protocol_sentence"]
            assert DATASET_NAMES[dataset] in found["earlier_protocol_sentence"]
    opponents = store.matching(r"[a-z0-9-]+/[a-z0-9-]+/published/accuracy")      # the SGD opponents, own schedule
    for key, result in opponents.items():
        dataset = key.split("/")[0]
        seconds = store.get(key.removesuffix("accuracy") + "train-seconds").mean
        recipe = result.setting["recipe"]
        untuned = "" if dataset == fb.RECIPE_HOME[recipe] else f"; the MNIST recipe, not tuned for {DATASET_NAMES[dataset]}"
        assert (f"{spread_text(result)} % on {DATASET_NAMES[dataset]} ({fc.RECIPE_WORDS[recipe]}, "
                f"{fb.OPTIMIZER_WORDS[recipe]}, {result.n} seed{'s' * (result.n != 1)}, {duration_text(seconds)} of "
                f"training{untuned})") in found["opponent_sentence"]
    if opponents:                                  # where the seconds were measured, never "the same cores" unproven
        assert re.search(r"their training seconds were measured (on|between) [^;]+, on ", found["opponent_sentence"])
        assert "same two cores" not in found["opponent_sentence"]
    assert bool(found["opponent_sentence"]) == bool(opponents)
    assert "by SGD" not in found["opponent_sentence"]          # the MNIST CNN trains with Adadelta
    if opponents:                                  # the conclusion's brief form: the same sentence, provenance left out
        assert found["opponent_brief"].endswith(bl.BRIEF_SCOPE + ".")      # what its minutes cover, said
        assert found["opponent_sentence"].startswith(found["opponent_brief"].removesuffix(bl.BRIEF_SCOPE + "."))
        assert "measured" not in found["opponent_brief"]
        runs = [m for r in opponents.values() for m in r.setting.get("machines") or [None] * r.n]
        if any(runs):                              # runs that name their machine are counted as such, not "not recorded"
            assert f"{sum(1 for m in runs if m)} of {len(runs)} runs name their machine" in found["opponent_sentence"]
    assert found["limit_mnist"] == store.get("mnist/arccos-kernel/accuracy").mean
    assert found["ultra_acc"] == store.get(f"mnist/green-elm/unit/ridge-loo/d={found['ultra_d'].replace(',', '')}"
                                           "/accuracy").mean
    widths = [int(re.search(r"/d=(\d+)/", k).group(1))
              for k in store.matching(r"mnist/green-elm/unit/ridge-loo/d=\d+/accuracy")]
    assert int(found["ultra_d"].replace(",", "")) == max(widths)
    assert 0 <= found["ln_worse_n"] <= found["ln_n"] == 3
    distances = [v for r in store.matching(r".*/stream/d=\d+/b=\d+/distance-to-oracle").values() for v in r.values]
    assert found["stream_distance"] == max(distances)
    ratio = store.matching(r"cifar10-efficientnet-lite0/green-elm/stream/listing3-over-cholesky/numpy/.*/ratio")
    assert found["listing3_ratio"] == statistics.median(next(iter(ratio.values())).values)
    peaks = [r.mean for r in store.matching(r"mnist-shifted/green-elm/dask/d=\d+/n=\d+/worker-peak-mb").values()]
    assert (found["dask_peak_low"], found["dask_peak_high"]) == (min(peaks), max(peaks))


def test_the_verdict_line_names_every_label_that_occurs():
    from greenelm_book.summaries.scorecard import scorecard

    frame = scorecard(STORE_DIR)
    line = bl.verdict_markdown(STORE_DIR)
    assert f"{len(frame)} claims" in line
    counted = re.findall(r"\*([^*]+)\* (\d+)", line)
    assert dict(counted) == {label: str(n) for label, n in frame.verdict.value_counts().items()}
    assert sum(int(n) for _, n in counted) == len(frame)


def test_the_smoke_store_gives_every_finding_too(found):
    smoke = bl.findings(ROOT / "tests" / "notebooks" / "results")
    assert set(smoke) == set(found)


# ----------------------------------------------------------------------------- (2) widths and words
def test_at_width_takes_the_paper_width_or_the_widest_below():
    store = bl.Store.from_results([_result(f"mnist/x/d={d}/accuracy", [d / 100]) for d in (500, 1000, 1500)]
                                  + [_result("mnist/x/d=700/accuracy", [7], chapter="other")])
    assert store.at_width("mnist/x/d={d}/accuracy", 1000)[1] == 1000
    assert store.at_width("mnist/x/d={d}/accuracy", 4000)[1] == 1500
    assert store.at_width("mnist/x/d={d}/accuracy", 4000, among=(500, 1000, 2000, 4000))[1] == 1000
    assert store.at_width("mnist/x/d={d}/accuracy", 800)[1] == 700
    assert store.at_width("mnist/x/d={d}/accuracy", 800, chapter="test")[1] == 500
    assert store.at_width("mnist/x/d={d}/accuracy", 100)[1] == 500        # nothing below: the narrowest
    with pytest.raises(KeyError, match="at any width"):
        store.at_width("mnist/y/d={d}/accuracy", 1000)


def test_words_follow_the_sign_of_their_number():
    from types import SimpleNamespace

    above = bl._gap("x", SimpleNamespace(mean=98.0, values=(97.9, 98.0, 98.1)), 97.0, "the paper")
    assert above == {"x": 98.0, "x_paper": 97.0, "x_gap": 1.0, "x_from": "1.00 points above the paper"}
    assert bl._gap("x", SimpleNamespace(mean=96.5, values=(96.4, 96.5, 96.6)), 97.0, "it")["x_from"] == \
        "0.50 points below it"

    def speed(sgd_seconds, elm_seconds, pairs=None):
        quiet = ([_result(QUIET_RATIO_KEYS["sgd_mlp_over_pinv_mnist"], pairs, unit="×", timing="quiet, interleaved pairs")]
                 if pairs else [])
        results = quiet + [_result("mnist/sgd-mlp/train-seconds", sgd_seconds, unit="s"),
                   _result("mnist/green-elm/unit/pinv/d=2000/fit-seconds", elm_seconds, unit="s"),
                   _result("cifar10/green-elm/unit/cholesky/d=2000/sgd-mlp-over-fit-time-ratio", [2.0], unit="×"),
                   _result("mnist/paper-listing2/pinv-over-lu/same-h/n=60000/d=2000/solve-time-ratio", [13.0]),
                   _result("cifar10/green-elm/efficientnet-lite0/pinv-over-cholesky/d=4000/solve-time-ratio", [10.0])]
        return bl.speed_findings(bl.Store.from_results(results))

    # two chapters' separate runs: the scorecard does not judge the ratio, so no direction is stated
    slower = speed([14.0, 15.0, 14.5], [15.0, 16.0, 15.5])
    assert slower["speedup"] < 1 and slower["speedup_words"].startswith("no direction judged: ")
    faster = speed([140.0, 150.0, 145.0], [15.0, 16.0, 15.5])
    assert faster["speedup"] == pytest.approx(math.exp(np.mean(np.log([140, 150, 145]))
                                                       - np.mean(np.log([15, 16, 15.5]))))
    assert faster["speedup_words"].startswith("no direction judged: ")
    # quiet interleaved pairs: the verdict decides (discordant, wholly below the paper's 11.6 / 3), and the words
    # follow the pairs' interval
    decided = speed([14.0], [15.0], pairs=[1.9, 2.0, 2.1, 2.0, 1.95])
    assert decided["speedup_words"] == "its direction: longer"
    assert speed([14.0], [15.0], pairs=[0.9, 1.1, 1.0, 0.95, 1.05])["speedup_words"].startswith("no direction judged: ")


def test_an_empty_results_dir_is_a_clear_error(tmp_path):
    with pytest.raises(FileNotFoundError, match="no results"):
        bl.Store(tmp_path)


# ----------------------------------------------------------------------------- (3) the headline page
def test_the_committed_headline_page_is_current():
    page = ROOT / bl.HEADLINE_PAGE
    assert page.read_text(encoding="utf-8") == bl.headline_markdown(STORE_DIR), (
        f"{bl.HEADLINE_PAGE} is stale: python -c 'from greenelm_book.summaries.bottom_line import write_headline_page; "
        "write_headline_page(\"book\")'")


def test_the_headline_page_quotes_the_findings(found):
    text = bl.headline_markdown(STORE_DIR)
    bullets = [line for line in text.splitlines() if line.startswith("- ")]
    assert 3 <= len(bullets) <= 5
    for snippet in (found["acc_mnist_from"], f"{found['speedup']:.2f}×",
                    f"{found['t4_pinv_s']:g} s in Table IV"):
        assert snippet in text


def test_each_mnist_width_on_the_headline_carries_its_own_gap(found):
    """One gap per width: the d = 2000 gap is never written as if it were the d = 4000 one too."""
    text = bl.headline_markdown(STORE_DIR)
    for prefix in ("acc_mnist", "acc_mnist_wide"):
        gap = found[prefix + "_from"]
        assert gap.startswith(f"{found[prefix + '_gap']:.2f} points ")
        at = f"d = {found[prefix + '_d']} ({found[prefix]:.2f} % against {found[prefix + '_paper']:.2f} %)"
        assert gap in text and at in text
        assert text.index(gap) < text.index(at) < text.index(gap) + len(gap) + 40, (gap, at)


def test_the_headline_page_quotes_the_frontier_protocol_and_no_number_chosen_on_the_test_images(found, store):
    """The frontier's numbers on the intro are the halving protocol's picks (read once per seed, with how many
    of the planned seeds have run), the earlier protocol's beside them with its grid's history, never a
    configuration picked among test scores."""
    text = bl.headline_markdown(STORE_DIR)
    beyond = next(line for line in text.splitlines() if line.startswith("- **Beyond the paper.**"))
    assert found["protocol_text"] in beyond and "held-out training rows" in beyond
    assert found["earlier_protocol_sentence"] in beyond
    assert beyond.index(found["protocol_text"]) < beyond.index(found["earlier_protocol_sentence"])
    assert found["opponent_sentence"] in beyond                    # the SGD opponents beside it, whichever wins
    exploration = store.matching(r".*/(patch-readout|stacked-patches)/.*/accuracy")   # the pre-protocol search
    assert not exploration, sorted(exploration)[:3]
def test_the_write_function_writes_the_include(tmp_path):
    (tmp_path / "results").symlink_to(STORE_DIR)
    path = bl.write_headline_page(tmp_path)
    assert path == tmp_path / "headline_findings.md"
    assert path.read_text(encoding="utf-8") == bl.headline_markdown(STORE_DIR)


def test_a_store_without_the_results_gives_a_line_that_says_so(tmp_path):
    assert "once every chapter has been executed" in bl.headline_markdown(tmp_path)              # nothing executed
    (tmp_path / "baselines.json").write_bytes((STORE_DIR / "baselines.json").read_bytes())
    text = bl.headline_markdown(tmp_path)                               # one chapter only
    assert "once every chapter has been executed" in text and "no result" in text and text.count("\n") == 1


def test_the_intro_opens_with_the_headline_findings():
    text = (ROOT / "book" / "intro.md").read_text(encoding="utf-8")
    include = text.index("```{include} headline_findings.md")
    assert include < text.index("\n## "), "the headline findings must come before the intro's first section"


# ----------------------------------------------------------------------------- (4) the conclusion's prose
def _markdown_cells():
    import jupytext

    nb = jupytext.read(CONCLUSION_SOURCE, fmt="py:percent")
    return [cell.source for cell in nb.cells if cell.cell_type == "markdown"]


def test_no_number_in_the_conclusion_prose_is_typed_in():
    """Every number of the conclusion's markdown is a {glue:text} role (read from the store or the
    paper's constants): once roles, math, code and names like CIFAR-10 are removed, no digit is left."""
    for source in _markdown_cells():
        text = re.sub(r"\{(?:glue:text|doc|cite|ref)\}`[^`]*`", "", source)
        text = re.sub(r"\$[^$]*\$", "", text)
        text = re.sub(r"`[^`]*`", "", text)
        text = re.sub(r"CIFAR-10|ResNet-18|EfficientNet-Lite0|\(\)", "", text)
        digits = re.findall(r"\S*\d\S*", text)
        assert not digits, f"typed-in numbers in the conclusion: {digits}"


def test_every_glued_name_is_a_finding(found, card):
    names = {m.group(1) for source in _markdown_cells() for m in bl._GLUE.finditer(source)}
    assert names, "the conclusion quotes no finding"
    known = set(found) | set(bl.verdict_glues(card)) | set(bl.reproduces_words(found, card))
    assert names <= known, f"glued names with no finding: {sorted(names - known)}"


def test_a_borne_out_gain_says_when_its_levels_are_not():
    gain, (low, high) = bl.GAIN_CLAIM, bl.LEVEL_CLAIMS
    differs = "differs, beyond margin"
    assert bl.gain_levels_words({gain: "reproduced", low: differs, high: differs}) == \
        "; the levels themselves do not"
    assert bl.gain_levels_words({gain: "reproduced", low: "reproduced", high: differs}) == \
        "; one width's level does not"
    assert bl.gain_levels_words({gain: "reproduced", low: "reproduced", high: "reproduced"}) == ""
    assert bl.gain_levels_words({gain: differs, low: differs, high: differs}) == ""     # the verdict says it
    assert bl.gain_levels_words({gain: "reproduced", low: differs}) == ""                # a level not answered


def test_the_rendered_conclusion_fits_in_1500_words(found):
    text = bl.rendered_text(CONCLUSION_PAGE)
    assert "{glue:text}" not in text
    assert 500 <= bl.word_count(text) <= 1500, bl.word_count(text)
    for snippet in (found["acc_mnist_from"],
                    f"{found['speedup']:.2f}× Green-ELM's pinv fit", f"{found['t1_pinv_s']:.2f} s in Table I"):
        assert snippet in text


def test_rendered_text_formats_glued_values(tmp_path):
    import json

    nb = {"cells": [{"cell_type": "code", "source": "", "outputs": [
        {"output_type": "display_data", "metadata": {"scrapbook": {"name": "x"}},
         "data": {"application/papermill.record/text/plain": "1.23456"}}]},
        {"cell_type": "markdown", "source": "x is {glue:text}`x:.2f` ({doc}`scaling`), y {glue:text}`y`"}]}
    path = tmp_path / "nb.ipynb"
    path.write_text(json.dumps(nb))
    with pytest.raises(KeyError, match="never glued"):
        bl.rendered_text(path)
    nb["cells"][1]["source"] = "x is {glue:text}`x:.2f` ({doc}`the scaling chapter <scaling>`)"
    path.write_text(json.dumps(nb))
    assert bl.rendered_text(path) == "x is 1.23 (the scaling chapter)"
    assert bl.word_count("**x** is 1.23 — (the scaling chapter)") == 6


def test_the_bottom_line_fits_in_250_words():
    for page in (CONCLUSION_PAGE, ROOT / "tests" / "notebooks" / "conclusion.ipynb"):
        text = bl.bottom_line_text(page)
        assert "{glue:text}" not in text
        assert 120 <= bl.word_count(text) <= 250, (page, bl.word_count(text))
    text = bl.rendered_text(CONCLUSION_PAGE)
    assert text.index(bl.BOTTOM_LINE_HEADING) < text.index("\n## ", text.index(bl.BOTTOM_LINE_HEADING) + 1)
    first = [line for line in text.splitlines() if line.startswith("## ")][0]
    assert first == bl.BOTTOM_LINE_HEADING, "the conclusion must open with its bottom line"


def test_the_bottom_line_names_the_store_numbers(found):
    text = " ".join(bl.bottom_line_text(CONCLUSION_PAGE).split())
    for snippet in (found["acc_mnist_from"], found["acc_fashion_from"],
                    f"is {found['speedup']:.2f}× here", f"{found['limit_mnist']:.2f} % on",
                    f"{found['limit_cifar_vs_cnn']:.2f} points", "our SGD-trained CNN", found["limit_cifar_from"]):
        assert snippet in text, snippet
    # the CIFAR-10 limit is set against the book's own CNN, not the paper's figure's baseline
    cnn = bl.Store(STORE_DIR).get("cifar10/sgd-cnn/accuracy").mean
    assert found["limit_cifar_vs_cnn"] == pytest.approx(abs(found["limit_cifar"] - cnn))
    side = "above" if found["limit_cifar"] > cnn else "below"
    assert found["limit_cifar_from"].startswith(f"{found['limit_cifar_vs_cnn']:.2f} points {side} our SGD-trained CNN")


# ----------------------------------------------------------------------------- (5) verdict words
@pytest.fixture(scope="module")
def card():
    from greenelm_book.summaries.scorecard import scorecard

    return scorecard(STORE_DIR)


def test_every_verdict_word_on_the_conclusion_is_the_scorecards(card):
    assert bl.verdict_problems(CONCLUSION_PAGE, card) == []
    from greenelm_book.summaries.scorecard import scorecard

    smoke = ROOT / "tests" / "notebooks"
    assert bl.verdict_problems(smoke / "conclusion.ipynb", scorecard(smoke / "results")) == []


def test_the_quoted_claims_are_the_ones_the_source_glues():
    source = CONCLUSION_SOURCE.read_text(encoding="utf-8")
    used = set(re.findall(r"\{glue:text\}`verdict_([a-z0-9_]+)`", source)) - {"counts"}
    assert used == set(bl.CONCLUSION_CLAIMS)
    assert "{glue:text}`verdict_counts`" in source


def _planted(tmp_path, change):
    """A copy of the executed conclusion with ``change`` (nb -> None) applied."""
    import json

    nb = json.loads(CONCLUSION_PAGE.read_text(encoding="utf-8"))
    change(nb)
    path = tmp_path / "conclusion.ipynb"
    path.write_text(json.dumps(nb), encoding="utf-8")
    return path


def test_a_planted_contradiction_fails(tmp_path, card):
    claim = "speedup_vs_sgd_mnist_d2000"
    label = dict(zip(card.claim, card.verdict))[claim]
    other = "reproduced" if label != "reproduced" else "differs, beyond margin"
    # the scorecard judges otherwise than the page says
    flipped = card.copy()
    flipped.loc[flipped.claim == claim, "verdict"] = other
    problems = bl.verdict_problems(CONCLUSION_PAGE, flipped)
    assert any(p.startswith(f"{claim}: the page says {label!r}") for p in problems), problems
    assert any(p.startswith("the counts read") for p in problems), problems

    # the page's glued label is not the scorecard's
    def glue_other(nb):
        for cell in nb["cells"]:
            for output in cell.get("outputs", []):
                if output.get("metadata", {}).get("scrapbook", {}).get("name") == f"verdict_{claim}":
                    output["data"] = {key: repr(other) for key in output["data"]}
    problems = bl.verdict_problems(_planted(tmp_path, glue_other), card)
    assert problems and all(claim in p for p in problems), problems

    # a verdict word typed into the prose, beside a claim, without the scorecard
    def typed(nb):
        cell = next(c for c in nb["cells"] if c["cell_type"] == "markdown"
                    and "".join(c["source"]).startswith(bl.BOTTOM_LINE_HEADING))
        cell["source"] = "".join(cell["source"]).replace("- **Beyond the paper.**",
                                                         "- The 119× speed-up is reproduced.\n- **Beyond the paper.**")
    problems = bl.verdict_problems(_planted(tmp_path, typed), card)
    assert len(problems) == 1 and "'reproduced'" in problems[0], problems


def test_the_bottom_lines_groups_agree_with_their_verdicts(card):
    """A claim under "What is borne out" is one the scorecard finds reproduced or holding; one under
    "What does not" one it decides against; one under "Not decided" one whose label decides nothing."""
    import jupytext

    labels = dict(zip(card.claim, card.verdict))
    nb = jupytext.read(CONCLUSION_SOURCE, fmt="py:percent")
    cell = next(c.source for c in nb.cells if c.cell_type == "markdown" and c.source.startswith(bl.BOTTOM_LINE_HEADING))
    bullets = {m.group(1): m.group(2) for m in re.finditer(r"(?ms)^- \*\*([^*]+)\*\*(.*?)(?=^- |^\s*$)", cell)}
    agree = {"reproduced", "holds"}
    # a verdict after the generated contrast (bottom_line.reproduces_words' "wide_own": "but not its …") is
    # set against the claim before it, and may be one that does not reproduce
    contrasted = re.findall(r"`wide_own`\s*\(\*\{glue:text\}`verdict_([a-z0-9_]+)`", bullets["What is borne out."])
    reproduces = [c for c in re.findall(r"verdict_([a-z0-9_]+)`", bullets["What is borne out."]) if c not in contrasted]
    does_not = re.findall(r"verdict_([a-z0-9_]+)`", bullets["What does not."])
    undecided = re.findall(r"verdict_([a-z0-9_]+)`", bullets["Not decided."])
    assert reproduces and does_not and undecided
    assert all(labels[c] in agree for c in reproduces), {c: labels[c] for c in reproduces}
    # "What does not" holds decided failures only; a label that decides nothing goes under "Not decided"
    failed = set(V.DECIDED_LABELS) - agree - {"differs, within margin", "concordant"}
    assert all(labels[c] in failed for c in does_not), {c: labels[c] for c in does_not}
    assert not any(labels[c] in V.DECIDED_LABELS for c in undecided), {c: labels[c] for c in undecided}


def _first_number(text: str) -> float:
    return float(re.search(r"-?\d+(?:\.\d+)?", text).group(0))


@pytest.mark.parametrize("claim, name, digits", [
    ("table1_mnist_pinv_d2000_accuracy", "acc_mnist", 2), ("abstract_mnist_d4000_accuracy", "acc_mnist_wide", 2),
    ("abstract_fashion_accuracy", "acc_fashion", 2), ("speedup_vs_sgd_mnist_d2000", "speedup", 2),
    ("table4_pinv_d2000_seconds", "pinv_lu", 1), ("pinv_over_cholesky_speedup_d4000", "pinv_chol", 1),
    ("cifar10_raw_speedup_vs_sgd", "speedup_raw", 1), ("table6_elm_raw_accuracy", "acc_cifar_raw", 2),
    ("rotation_advantage_15deg", "rotation_advantage", 2), ("table1_mnist_sgd_accuracy", "sgd_mnist", 2)])
def test_a_quoted_number_is_the_measurement_the_scorecard_judged(card, found, claim, name, digits):
    """Where the conclusion quotes a claim's number beside its verdict, it is the value the scorecard
    judged, at the precision the page prints."""
    ours = dict(zip(card.claim, card.ours))[claim]
    assert round(_first_number(ours), digits) == pytest.approx(round(found[name], digits)), (claim, ours)


# ----------------------------------------------------------------------------- (6) the deviations page
def test_the_deviations_page_is_generated_current_and_short():
    from greenelm_book.summaries.deviations import DEVIATIONS_PAGE, deviations_markdown

    text = (ROOT / DEVIATIONS_PAGE).read_text(encoding="utf-8")
    assert text == deviations_markdown(STORE_DIR), "book/deviations.md is stale: rebuild the generated pages"
    assert bl.word_count(text) <= 1500, bl.word_count(text)
    assert "252.2" not in text and "134.5" not in text


def test_the_deviations_gpu_row_states_the_h200_measurement(store):
    from greenelm_book.summaries.deviations import deviations_markdown

    text = deviations_markdown(STORE_DIR)
    reports = store.matching(r"gpu-report/green-elm/stream/(listing3|cholesky)/torch-cuda/d=\d+/b=\d+/update-seconds")
    assert len(reports) == 2, "the streaming chapter recorded no GPU measurement"
    listing3 = next(r for k, r in reports.items() if "/listing3/" in k)
    ours = next(r for k, r in reports.items() if "/cholesky/" in k)
    gpu_row = next(line for line in text.splitlines() if line.startswith("| GPU |"))
    assert listing3.setting["gpu"] in gpu_row
    paragraph = next(line for line in text.splitlines() if line.startswith("**GPU.**"))
    assert f"{1e3 * statistics.median(listing3.values):.2f} ms per update for listing 3" in paragraph
    assert f"{1e3 * statistics.median(ours.values):.2f} ms for the book's update" in paragraph
    assert listing3.setting["measured"] in paragraph and "Not measured on a GPU in any chapter:" in paragraph
    # the benchmark's one-shot fits on the GPU are named (the page once said the fits were never measured there)
    import json

    fits = [f for f in json.loads((ROOT / "benchmarks" / "gpu.json").read_text())["fits"] if f["device"] == "cuda"]
    widths = sorted({f["n_hidden"] for f in fits})
    assert f"timed one-shot fits of MNIST's shape on the NVIDIA H200 at d = {widths[0]:,} to {widths[-1]:,}" in paragraph
    # a store without a GPU report says the CUDA row is not measured
    smoke = deviations_markdown(ROOT / "tests" / "notebooks" / "results")
    if not bl.Store(ROOT / "tests" / "notebooks" / "results").matching(r"gpu-report/.*"):
        assert "Table V's CUDA row is not measured" in smoke


def test_the_deviations_page_reads_its_settings_from_the_store(tmp_path):
    """Move the CNN's recorded seconds and the page's epoch time moves with them."""
    import json
    import shutil

    from greenelm_book.summaries.deviations import deviations_markdown

    results = tmp_path / "results"
    shutil.copytree(STORE_DIR, results)
    store = json.loads((results / "baselines.json").read_text())
    run = store["results"]["cifar10/sgd-cnn/train-seconds"]
    run["values"] = [v * 2 for v in run["values"]]
    (results / "baselines.json").write_text(json.dumps(store))
    per_epoch = statistics.fmean(run["values"]) / run["setting"]["epochs"]
    assert f"an epoch takes {per_epoch:.1f} s" in deviations_markdown(results)
    assert f"an epoch takes {per_epoch:.1f} s" not in deviations_markdown(STORE_DIR)
    run["host"] = {"cpu": "Test CPU", "cores": 2}           # the host that measured it, not "the book's machine"
    (results / "baselines.json").write_text(json.dumps(store))
    assert (f"an epoch takes {per_epoch:.1f} s measured on Test CPU, 2 cores (kernel, BLAS and GEMM rate not "
            "recorded) (the mean") in deviations_markdown(results)


def test_the_deviations_page_says_what_the_scorecard_judged_of_each_ratio():
    """The page said the pinv / LU and Conv ratios are judged while the scorecard found them not
    comparable or inconclusive: each cell now carries the scorecard's verdict on that ratio."""
    import pandas as pd

    from greenelm_book.summaries.deviations import JUDGED_RATIOS, deviations_markdown, scorecard_verdict_text
    from greenelm_book.summaries.scorecard import scorecard

    card = scorecard(STORE_DIR)
    text = deviations_markdown(STORE_DIR)
    for claim, what in JUDGED_RATIOS.values():
        verdict = dict(zip(card.claim, card.verdict))[claim]
        assert f"seconds not judged; {what}: {verdict} (scorecard) |" in text
    assert "the pinv / LU ratio is |" not in text and "judged as a ratio only" not in text
    planted = pd.DataFrame({"claim": ["x", "y"], "verdict": ["inconclusive", "not comparable"]})
    assert scorecard_verdict_text(planted, "x", "the ratio") == "the ratio: inconclusive (scorecard)"
    with pytest.raises(KeyError, match="z: not a claim of the scorecard"):
        scorecard_verdict_text(planted, "z", "the ratio")


def _with_setting(key, values, unit="%", **setting):
    return Result(key, tuple(values), unit, setting, "c", "m", "2026-11-28", "")


def test_solver_text_says_how_the_accuracy_was_fitted_from_its_setting():
    assert bl.solver_text(_with_setting("a/pinv/accuracy", [97.0], solver="pinv", alpha=0.0)) == "by pinv"
    assert bl.solver_text(_with_setting("a/cholesky/accuracy", [97.0], solver="cholesky", alpha=0.001)) == (
        "by ridge (Cholesky, λ = 0.001)")
    with pytest.raises(ValueError, match="no solver recorded"):
        bl.solver_text(_with_setting("a/accuracy", [97.0]))


def test_the_conclusion_names_the_solver_of_each_mnist_width_as_recorded():
    """The committed store: d = 2000 is fitted by pinv and the widest MNIST width by ridge (the
    conclusion once said both were by pinv)."""
    found = bl.findings(ROOT / "book" / "results")
    assert found["acc_mnist_how"] == "by pinv"
    assert found["acc_mnist_wide_how"].startswith("by ridge (Cholesky")
    text = bl.rendered_text(CONCLUSION_PAGE)
    assert f"{found['acc_mnist_wide_how']} {found['acc_mnist_wide']:.2f} %" in text


def test_protocol_how_reads_the_rows_from_the_protocols_settings():
    store = bl.Store.from_results([_with_setting("mnist/frontier-halving/test-accuracy", [99.5], n_test=10000,
                                                 sizes=[[223, 112], [6000, 3000]], planned_seeds=[0, 1, 2]),
                                   _with_setting("cifar10/frontier-halving/test-accuracy", [85.0], n_test=10000,
                                                 sizes=[[500, 250], [5000, 2500]], planned_seeds=[0, 1, 2])])
    assert bl.protocol_how(store) == (
        "chosen by successive halving on held-out training rows (the last rung: 5,000 fit and 2,500 validation rows "
        "or 6,000 fit and 3,000 validation rows) over a grid declared in advance from published settings and the book's own additions "
        "(its families, the kernel limit among them, first explored on test scores by the earlier search), one test read per seed")
    assert bl.protocol_how(store, brief=True) == (
        "chosen by successive halving on held-out training rows over a grid declared in advance (its families first "
        "explored on test scores by an earlier search)")
    assert bl.protocol_how(bl.Store.from_results([])) == "" == bl.protocol_how(bl.Store.from_results([]), brief=True)
    earlier = bl.Store.from_results([_with_setting("mnist/frontier-protocol/test-accuracy", [99.5, 99.6],
                                                   n_validation=10000, n_fit=20000, n_train=60000)])
    assert bl.earlier_protocol_sentence(earlier) == (
        "The earlier protocol (every choice on 10,000 held-out training rows, though the grid was first explored on "
        "test scores) gave 99.55 ± 0.07 % on MNIST (2 seeds).")
    three = bl.Store.from_results([_with_setting(f"{d}/frontier-protocol/test-accuracy", v, n_validation=10000)
                                   for d, v in (("mnist", [99.5, 99.6]), ("fashion-mnist", [93.0, 93.2]),
                                                ("cifar10", [85.0, 85.2]))])
    assert bl.earlier_protocol_sentence(three).endswith(
        "gave 99.55 ± 0.07, 93.10 ± 0.14 and 85.10 ± 0.14 % on MNIST, Fashion-MNIST and CIFAR-10 (2 seeds each).")
    uneven = bl.Store.from_results([_with_setting("mnist/frontier-protocol/test-accuracy", [99.5, 99.6], n_validation=10000),
                                    _with_setting("cifar10/frontier-protocol/test-accuracy", [85.0], n_validation=10000)])
    assert bl.earlier_protocol_sentence(uneven).endswith("gave 99.55 ± 0.07 % on MNIST (2 seeds); 85.00 % on CIFAR-10 (1 seed).")
    assert bl.earlier_protocol_sentence(store) == "" and bl.protocol_how(earlier) == ""


def test_the_pick_against_its_recipe_is_judged_as_the_frontier_page_judges_it():
    """The bottom line's CIFAR-10 patches against airbench94: paired by seed over the seeds both ran, a side
    stated only where the gain rule decides one (3 seeds or more), and the same gap as the frontier page's §4."""
    def store_of(ours, theirs):
        seeds_ours, seeds_theirs = list(range(len(ours))), list(range(len(theirs)))
        return bl.Store.from_results([
            _with_setting("cifar10/frontier-halving/test-accuracy", ours, seeds=seeds_ours, n_test=10000),
            _with_setting("cifar10/frontier-halving/seconds", [2000.0] * len(ours), "s", seeds=seeds_ours),
            _with_setting("cifar10/airbench94/published/accuracy", theirs, recipe="airbench94", seeds=seeds_theirs),
            _with_setting("cifar10/airbench94/published/train-seconds", [2600.0] * len(theirs), "s",
                          recipe="airbench94", seeds=seeds_theirs)])

    three = store_of([85.0, 85.1, 84.9, 85.3], [94.0, 94.1, 94.2])      # paired over seeds 0-2 only
    assert bl.pick_against_recipe(three, "cifar10") == (
        "9.10 points below Jordan's airbench94 (its own schedule) over 3 paired seeds: a loss by the gain rule")
    one = store_of([85.0], [94.0, 94.1])
    assert bl.pick_against_recipe(one, "cifar10") == (
        "9.00 points from Jordan's airbench94 (its own schedule) on the means on seed 0, the one seed both ran "
        "(no direction judged)")
    assert bl.pick_against_recipe(one, "mnist") == ""                   # no record on that dataset
    # the committed store: the bottom line's gap is the one the frontier page prints
    found = bl.findings(ROOT / "book" / "results")
    if found["protocol_cifar_against"]:
        gap = found["protocol_cifar_against"].split(" points ")[0]
        page = bl.rendered_text(ROOT / "book" / "frontier.ipynb")
        assert f"the halving protocol's pick is {gap} points" in page
        assert found["protocol_cifar_against"] in bl.rendered_text(CONCLUSION_PAGE)


def test_the_conclusion_never_says_the_patches_were_chosen_on_test_images():
    text = bl.rendered_text(CONCLUSION_PAGE)
    assert "chosen on test" not in text
    assert bl.findings(ROOT / "book" / "results")["protocol_how_brief"] in text


def test_the_gpu_sentence_without_a_benchmark_report_names_no_fit(tmp_path):
    from greenelm_book.summaries import deviations

    assert deviations.gpu_benchmark_fits(tmp_path / "absent.json") is None
    assert deviations._unmeasured_on_gpu(None).startswith("Not measured on a GPU: the batch fits")
    report = tmp_path / "gpu.json"
    report.write_text('{"gpu": "G", "date": "2026-11-26", "fits": [{"device": "cpu", "n_hidden": 4000}, '
                      '{"device": "cuda", "n_hidden": 8000}, {"device": "cuda", "n_hidden": 4000}]}')
    assert deviations.gpu_benchmark_fits(report) == {"gpu": "G", "widths": [4000, 8000], "measured": "2026-11-26"}


def _card(**labels):
    return pd.DataFrame({"claim": list(labels), "verdict": list(labels.values())})


def test_what_reproduces_says_which_claim_holds_and_which_value_differs():
    """MNIST's widest accuracy holds for the paper's "> 95 %" but differs from the paper's own value at that
    width: the bottom line's joining words follow the two verdicts, never typed beside them."""
    found = {"acc_mnist_wide": 96.91, "acc_mnist_wide_paper": 98.1}
    words = bl.reproduces_words(found, _card(feature_learning_not_needed_mnist="holds",
                                             abstract_mnist_d4000_accuracy="differs, beyond margin"))
    assert words == {"wide_bar": 95.0, "wide_bar_words": "above", "wide_own": "but not its 98.10 %", "gain_levels": ""}
    assert bl.reproduces_words(found, _card(feature_learning_not_needed_mnist="holds",
                                            abstract_mnist_d4000_accuracy="reproduced"))["wide_own"] == (
        "and matches its 98.10 %")
    assert bl.reproduces_words(found, _card(feature_learning_not_needed_mnist="holds",
                                            abstract_mnist_d4000_accuracy="inconclusive"))["wide_own"] == (
        "while its 98.10 % is undecided")
    below = bl.reproduces_words({**found, "acc_mnist_wide": 94.0}, _card(
        feature_learning_not_needed_mnist="does not hold", abstract_mnist_d4000_accuracy="differs, beyond margin"))
    assert below["wide_bar_words"] == "below"
    with pytest.raises(KeyError, match="abstract_mnist_d4000_accuracy"):
        bl.reproduces_words(found, _card(feature_learning_not_needed_mnist="holds"))


def test_the_bottom_line_says_both_the_bar_and_the_papers_own_value(found, card):
    """The committed conclusion's "What is borne out" names, in one sentence, the paper's bar with its verdict
    and the paper's own value at that width with its verdict."""
    text = " ".join(bl.bottom_line_text(CONCLUSION_PAGE).split())
    words = bl.reproduces_words(found, card)
    labels = dict(zip(card.claim, card.verdict))
    assert (f"{found['acc_mnist_wide']:.2f} % (d = {found['acc_mnist_wide_d']}), {words['wide_bar_words']} the "
            f"paper's \"> {words['wide_bar']:g} %\" ({labels['feature_learning_not_needed_mnist']}) "
            f"{words['wide_own']} ({labels['abstract_mnist_d4000_accuracy']});") in text.replace("*", "")


def test_every_page_that_states_the_protocol_s_rule_names_the_grid_s_history_in_one_clause():
    """"Every choice made on held-out training rows" was said on the intro, the headline findings and the
    conclusion while only the frontier page said its grid's families were first explored on test scores:
    each page that states the rule now carries the one clause of frontier.grid_history."""
    import re

    from greenelm_book.chapters.frontier import grid_history, halving_grid

    clause = grid_history()
    pages = {"intro": (ROOT / "book" / "intro.md").read_text(encoding="utf-8"),
             "headline": bl.headline_markdown(STORE_DIR),
             "conclusion": bl.rendered_text(CONCLUSION_PAGE)}
    assert all("first explored on test scores" in halving_grid(brief) for brief in (False, True))   # both forms carry the history
    for name, text in pages.items():
        text = re.sub(r"\s+", " ", text)
        assert "held-out training rows" in text, f"{name} no longer states the rule: drop it from this test"
        assert clause in text or any(halving_grid(b) in text for b in (False, True)), name
    assert clause in re.sub(r"\s+", " ", bl.rendered_text(ROOT / "book" / "frontier.ipynb"))   # its disclosure
    for name, text in pages.items():          # the halving protocol's picks are quoted with their grid's origin
        assert any(halving_grid(b) in re.sub(r"\s+", " ", text) for b in (False, True)), name
    protocol = bl.protocol_how(bl.Store(STORE_DIR))
    assert f"over {halving_grid()}, one test read per seed" in protocol and "held-out training rows" in protocol
    earlier = bl.earlier_protocol_sentence(bl.Store(STORE_DIR))
    assert f", though {clause}) gave " in earlier and "held-out training rows" in earlier
    rest = re.sub(r"\s+", " ", pages["headline"]).replace(protocol, "").replace(earlier, "")
    assert "held-out training rows" not in rest


def test_the_open_question_s_verdict_sits_only_where_its_claim_is_stated():
    """``ultra_wide_million_dimensions`` tests the paper's map on MNIST (ln d and the 99.5 % bar): its verdict
    is glued beside the sentence that names that open question and its scope (the map, on MNIST pixels), never
    after a sentence about CIFAR-10 alone (the conclusion had put "(does not hold)" after "57.45 % on CIFAR-10
    … far from the state of the art")."""
    from pathlib import Path

    source = (Path(__file__).resolve().parents[1] / "notebooks" / "conclusion.py").read_text(encoding="utf-8")
    glue = "{glue:text}`verdict_ultra_wide_million_dimensions`"
    at = [i for i in range(len(source)) if source.startswith(glue, i)]
    assert at, "the conclusion no longer states the open question's verdict"
    assert "far from the state of the art" not in source
    for i in at:
        before = source[max(0, i - 160):i]
        assert "million-dimensional layer" in before and "MNIST pixels" in before, before
        assert "CIFAR-10" not in before.split("million-dimensional layer")[-1], before


# ----------------------------------------------------------------------------- issue 61's reading, words13
def test_the_ln_d_sentence_agrees_with_the_scorecard(store, found, card):
    labels = dict(zip(card["claim"], card["verdict"]))
    draws = min(r.n for r in store.matching(r"[a-z0-9-]+/green-elm/unit/cholesky/(ln-d|saturating)-fit/"
                                            r"held-out-error").values())
    assert found["ln_draws"] == draws
    undecided = labels["accuracy_near_logarithmic_in_d"] == "inconclusive"
    from greenelm_book.chapters.scaling import log_law_words

    assert ("too few draws to decide" in found["ln_text"]) == undecided
    assert found["ln_text"] == log_law_words(found["ln_worse_n"], found["ln_n"], draws)     # the scaling page's words
    headline = bl.headline_markdown(STORE_DIR)
    assert found["ln_text"] in headline
    assert "ln d predicts wider models worse" not in headline        # the old sentence, stated as a finding


def test_the_workers_peak_memory_is_given_with_its_change_over_n(store, found):
    """Finding 9: the conclusion said the workers' peak stays put "whatever the number of rows" while the
    scale-out chapter measures it growing (+48 % over a 100-fold N)."""
    assert bl.peak_words({10_000: 85.0, 100_000: 100.0, 1_000_000: 125.8}) == \
        "between 85 and 126 MB (+48 % from the smallest N to the largest, for 100 times the rows)"
    assert bl.peak_words({5_000: 90.0}) == "90 MB at the one N measured (5,000 rows)"
    with pytest.raises(ValueError, match="no worker peaks"):
        bl.peak_words({})
    peaks = {int(re.search(r"/n=(\d+)/", k).group(1)): r.mean
             for k, r in store.matching(r"mnist-shifted/green-elm/dask/d=\d+/n=\d+/worker-peak-mb").items()}
    change = 100 * (peaks[max(peaks)] / peaks[min(peaks)] - 1)
    assert f"{change:+.0f} % from the smallest N" in found["dask_peak_text"]
    source = CONCLUSION_SOURCE.read_text(encoding="utf-8")
    assert "whatever the number of rows" not in source and "{glue:text}`dask_peak_text`" in source
    # the equality is said at the N it was measured at, never at the benchmark's largest N (a reader's finding:
    # "equals the single-machine one to rounding" beside 2,000,000 rows, measured at 60,000)
    (key, difference), = store.matching(r"mnist/green-elm/fit-localcluster/d=\d+/n=\d+/coef-difference").items()
    n = int(re.search(r"/n=(\d+)/", key).group(1))
    assert found["dask_equal_text"] == (f"at N = {n:,} the readout equals the single process's to "
                                        f"{difference.mean:.0e} relative (rounding)")
    assert "{glue:text}`dask_equal_text`" in source and "single-machine one to rounding" not in source


def test_the_speed_ratio_says_how_it_was_timed_not_one_machine(store, found):
    """Finding 20: "on one machine" where the result records no host: the headline says what is recorded
    (the pairs' one process, or the separate runs' hosts)."""
    from greenelm_book.bench import QUIET_RATIO_KEYS, process_words

    key = QUIET_RATIO_KEYS["sgd_mlp_over_pinv_mnist"]
    if key in store.results:
        assert found["speedup_where"] == f"timed in {process_words(store.results[key])}"
        separate = bl.speed_findings(_without(store, key))["speedup_where"]
        assert separate.startswith("from separate runs, measured on")
    assert "on one machine" not in bl.headline_markdown(STORE_DIR)
    assert "per batch on one machine" not in CONCLUSION_SOURCE.read_text(encoding="utf-8")
    # streaming's ratio records no host of its own (a ratio is not a timing): its two sides, timed in one run, do
    sides = store.matching(r"cifar10-efficientnet-lite0/green-elm/stream/(listing3|cholesky)/numpy/.*/update-seconds")
    hosts = [r.host for r in sides.values()]
    assert len(hosts) == 2 and hosts[0] and hosts[0] == hosts[1]
    assert found["listing3_where"] == f"measured on {bl.brief_host_text(hosts[0])}"


def test_the_conclusion_rounds_the_streamed_distance_as_streaming_does():
    """Finding 8: 4e-11 in the conclusion against 3.5e-11 on the streaming page and the scorecard."""
    source = CONCLUSION_SOURCE.read_text(encoding="utf-8")
    assert "{glue:text}`stream_distance:.1e`" in source and "stream_distance:.0e" not in source


def test_a_stated_direction_carries_its_verdicts_label():
    """The conclusion's streaming sentence names the label that decided "faster"; an undecided one says why."""
    from greenelm_book.report import Verdict
    from greenelm_book.summaries.bottom_line import labelled_direction

    assert labelled_direction(Verdict("holds", "2.8×", "paired test"), 2.8, ("slower", "faster")) == \
        "faster (the same-machine ratio test: 2.8×)"
    assert labelled_direction(Verdict("holds", "0.5×", "paired test"), 0.5, ("slower", "faster")) == \
        "slower (the same-machine ratio test: 0.5×)"
    said = labelled_direction(Verdict("inconclusive", "2.8×", "busy (the quiet rule)"), 2.8, ("slower", "faster"))
    assert said == "no direction judged (busy timings)"


def test_a_distance_to_the_paper_is_stated_only_where_the_runs_decide_it():
    paper = 97.0
    assert bl.distance_words([94.6, 94.7, 94.8], [96.8, 96.9, 97.0], paper) == "further from"
    assert bl.distance_words([96.8, 96.9, 97.0], [94.6, 94.7, 94.8], paper) == "closer to"
    straddle = bl.distance_words([96.0, 96.9, 95.1], [96.5, 95.6, 96.4], paper)
    assert straddle.startswith("further from on the means (no direction judged: its 95 % interval")
    assert bl.distance_words([98.0, 98.1], [95.0, 95.1], paper) == "closer to on the means"   # either side


def test_a_gap_names_its_side_only_where_the_runs_decide_it():
    """The distance is printed either way; the side stands alone only where the Welch interval decides
    it (a sign alone once read "0.42 points above Table I" beside an inconclusive verdict)."""
    assert bl.gap_phrase([98.6, 98.62, 98.64], [98.2], "Table I") == "0.42 points above Table I"
    assert bl.gap_phrase([96.9, 97.0, 97.1], [98.2], "the paper") == "1.20 points below the paper"
    undecided = bl.gap_phrase([98.0, 99.2, 98.66], [98.2], "Table I")
    # no side word beside "no direction judged" (a fresh reader read "above … (no direction judged)" as both)
    assert undecided.startswith("0.42 points from Table I on the means (no direction judged: its 95 % interval")
    assert bl.gap_phrase([-2.2, -2.3, -2.1], [0.0], "it", ("behind", "ahead of")) == "2.20 points behind it"
    assert bl.gap_phrase([1.0, 1.1], [2.0, 2.1], "that MLP") == "1.00 points below that MLP"
    assert bl.gap_phrase([97.0], [97.0], "it").startswith("level with it")

def test_a_summary_direction_can_name_its_evidence_instead_of_the_verdicts_numbers():
    from greenelm_book.report import Verdict
    from greenelm_book.summaries.bottom_line import labelled_direction

    said = labelled_direction(Verdict("holds", "ratio 2.73×", "paired test"), 2.81, ("slower", "faster"),
                              evidence="its 95 % interval 2.58–2.90×, 40 batches")
    assert said == "faster (the same-machine ratio test: its 95 % interval 2.58–2.90×, 40 batches)"


def test_a_direction_clause_reads_as_one_parenthesis():
    from greenelm_book.summaries.bottom_line import direction_clause

    assert direction_clause("no direction judged (busy timings)") == "no direction judged: busy timings"
    assert direction_clause("shorter") == "its direction: shorter"


def test_a_summary_names_a_host_in_few_words_and_says_what_it_lacks():
    """The conclusion's hosts (the streaming ratio's, the recipes' seconds): CPU model and cores, the cores
    alone said so, never a host's whole record (it is on the chapter's page) nor one it does not have."""
    from greenelm_book.store.results import brief_host_text

    full = {"cpu": "AMD EPYC", "cores": 2, "kernel": "6.1", "blas": "openblas", "gemm_gflops": 60.0}
    assert brief_host_text(full) == "AMD EPYC, 2 cores"
    assert brief_host_text({"cpu": None, "cores": 2}) == "2 cores (CPU model not recorded)"
    assert brief_host_text({"cpu": "AMD EPYC", "cores": None}) == "AMD EPYC (cores not recorded)"
    assert brief_host_text(None) == brief_host_text({}) == "a host not recorded"
