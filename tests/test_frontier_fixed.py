"""The frontier's fixed measurements of the paper's map on the pixels (greenelm_book.chapters.frontier_fixed):
declared configurations read the test labels through the gate as kind "fixed", once each, into the
ledger; a width the scaling chapter measures is read there, not measured again; records are written
once and skipped after; the limit is the library's KernelLimitClassifier."""

from __future__ import annotations

import json

import numpy as np
import pytest

from greenelm_book.chapters import frontier_fixed as ff
from greenelm_book.chapters.frontier_protocol import TestGate, UndeclaredFixedMeasurement

PARAMS = ("seeds: [0]\ndatasets:\n  mnist:\n    validation_size: 10\n    fit_size: null\n"
          "    grid:\n      - {variant: [readout], n_patches: [4], patch_size: [3], pool: [2], ridge: [[1.0]]}\n"
          "    fixed:\n      - {model: paper-map, input: pixels, n_hidden: 30}\n"
          "      - {model: paper-map, input: pixels, n_hidden: 20}\n"
          "      - {model: paper-map-limit, input: pixels}\n")


@pytest.fixture
def setup(tmp_path):
    params = tmp_path / "protocol.yml"
    params.write_text(PARAMS, encoding="utf-8")
    results = tmp_path / "results"
    results.mkdir()
    prefix = "mnist/green-elm/unit/ridge-loo/d=20"                # the scaling chapter's widest: d = 20
    (results / "scaling.json").write_text(json.dumps({"results": {
        f"{prefix}/accuracy": {"values": [80.0]}, f"{prefix}/lambda": {"values": [10.0]}}}), encoding="utf-8")
    return tmp_path / "runs", params, results


def test_declared_measurements_read_the_test_labels_once_each_and_are_recorded(setup):
    from greenelm import KernelLimitClassifier, load_dataset

    out, params, results = setup
    logged = []
    paths = ff.run_measurements("mnist", 0, out_dir=out, params=params, subset=200, loo_rows=20,
                                results_dir=results, log=logged.append)
    assert sorted(p.name for p in paths) == ["mnist-paper-map-d30-seed0.json", "mnist-paper-map-limit-seed0.json"]
    assert any("d = 20" not in m and "read there" in m for m in logged)          # d = 20: the scaling chapter's
    reads = json.loads((out / "test-reads.json").read_text())["reads"]
    assert [(r["kind"], r["configuration"]["model"]) for r in reads] == [("fixed", "paper-map"),
                                                                         ("fixed", "paper-map-limit")]
    width = json.loads((out / "mnist-paper-map-d30-seed0.json").read_text())
    assert width["lambdas_from"] == {"scaling_width": 20, "lambda": 10.0} and width["interior"]
    assert all("test_accuracy" not in step for step in width["paths"])            # λ chosen by LOO only
    limit = json.loads((out / "mnist-paper-map-limit-seed0.json").read_text())
    data = load_dataset("mnist", subset=200)
    model = KernelLimitClassifier(jitter=ff.LIMIT_JITTER, weight_scale="unit").fit(data.flat("train", np.float32),
                                                                                   data.y_train)
    assert limit["test_accuracy"] == pytest.approx(100 * model.score(data.flat("test", np.float32), data.y_test))
    again = ff.run_measurements("mnist", 0, out_dir=out, params=params, subset=200, results_dir=results,
                                log=logged.append)
    assert sorted(again) == sorted(paths) and "recorded already" in logged[-1]
    assert len(json.loads((out / "test-reads.json").read_text())["reads"]) == 2   # no second read


def test_an_undeclared_configuration_is_refused_before_it_is_fitted():
    rng = np.random.default_rng(0)
    gate = TestGate({"mnist": np.arange(5) % 2}, fixed={"mnist": [{"model": "paper-map-limit", "input": "pixels"}]})
    X = rng.random((8, 4), dtype=np.float32)
    with pytest.raises(UndeclaredFixedMeasurement, match="was not declared"):
        ff.measure("mnist", {"model": "paper-map", "input": "pixels", "n_hidden": 10**9}, 0, X, np.arange(8) % 2,
                   X[:5], gate)                         # 10⁹ features: refused before any memory is asked for
    with pytest.raises(ValueError, match="not one of this module's measurements"):
        ff.measure("mnist", {"model": "airbench94", "schedule": "published"}, 0, X, np.arange(8) % 2, X[:5], gate)
    assert gate.reads() == []


def test_the_held_out_ridge_limit_chooses_its_jitter_on_training_rows_and_reads_the_test_once(setup):
    """The limit of tuned fits: its jitter chosen among HELD_OUT_JITTERS on a seeded fifth of the training
    rows (the library's own held-out choice), refitted on all, scored once through the gate as a fixed
    measurement of its own record."""
    from greenelm import KernelLimitClassifier, load_dataset

    out, params, results = setup
    params.write_text(PARAMS + "      - {model: paper-map-limit, input: pixels, ridge: held-out}\n", encoding="utf-8")
    paths = ff.run_measurements("mnist", 1, models=["paper-map-limit"], out_dir=out, params=params, subset=200,
                                results_dir=results, log=lambda message: None)
    assert sorted(p.name for p in paths) == ["mnist-paper-map-limit-heldout-seed1.json", "mnist-paper-map-limit-seed1.json"]
    tuned = json.loads((out / "mnist-paper-map-limit-heldout-seed1.json").read_text())
    assert tuned["configuration"] == {"model": "paper-map-limit", "input": "pixels", "ridge": "held-out"}
    assert tuned["jitter_grid"] == list(ff.HELD_OUT_JITTERS) and len(tuned["validation_scores"]) == len(ff.HELD_OUT_JITTERS)
    assert tuned["validation_scores"][ff.HELD_OUT_JITTERS.index(tuned["jitter"])] == max(tuned["validation_scores"])
    assert "machine" not in tuned                                   # NumPy: no device named
    data = load_dataset("mnist", subset=200)
    model = KernelLimitClassifier(jitter=list(ff.HELD_OUT_JITTERS), weight_scale="unit", validation_size=ff.HELD_OUT_SHARE,
                                  random_state=1).fit(data.flat("train", np.float32), data.y_train)
    assert tuned["jitter"] == model.jitter_
    assert tuned["test_accuracy"] == pytest.approx(100 * model.score(data.flat("test", np.float32), data.y_test))
    reads = json.loads((out / "test-reads.json").read_text())["reads"]
    assert sorted(r["configuration"].get("ridge", "") for r in reads) == ["", "held-out"]     # one read each


def test_a_limit_is_measured_by_its_ridge_alone_a_lost_record_is_not_read_again_and_a_ridge_typo_is_refused(setup):
    """--ridge held-out measures the tuned limit alone (a GPU run for it read the vanishing ridge's seeds too);
    a configuration the ledger lists as read but whose record is not here is skipped, never read again; an
    unknown ridge is refused before anything is fitted."""
    out, params, results = setup
    params.write_text(PARAMS + "      - {model: paper-map-limit, input: pixels, ridge: held-out}\n", encoding="utf-8")
    paths = ff.run_measurements("mnist", 2, models=["paper-map-limit"], ridges=["held-out"], out_dir=out, params=params,
                                subset=120, results_dir=results, log=lambda message: None)
    assert [p.name for p in paths] == ["mnist-paper-map-limit-heldout-seed2.json"]
    paths[0].unlink()                                              # the record lost, its read in the ledger
    logged = []
    assert ff.run_measurements("mnist", 2, models=["paper-map-limit"], ridges=["held-out"], out_dir=out, params=params,
                               subset=120, results_dir=results, log=logged.append) == []
    assert "the ledger lists a read at" in logged[-1] and "not read again" in logged[-1]
    assert len(json.loads((out / "test-reads.json").read_text())["reads"]) == 1
    rng = np.random.default_rng(0)
    typo = {"model": "paper-map-limit", "input": "pixels", "ridge": "heldout"}
    gate = TestGate({"mnist": np.arange(5) % 2}, fixed={"mnist": [typo]})
    X = rng.random((8, 4), dtype=np.float32)
    with pytest.raises(ValueError, match="ridge must be one of"):
        ff.measure("mnist", typo, 0, X, np.arange(8) % 2, X[:5], gate)
    assert gate.reads() == []
