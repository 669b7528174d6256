"""The frontier's SGD opponents (greenelm_book.chapters.frontier_opponents): declared fixed measurements
that read the test labels through the protocol's gate and ledger; the equal-seconds opponent trains for
its seed's recorded protocol seconds; records are written once and skipped after."""

from __future__ import annotations

import json

import numpy as np
import pytest

from greenelm_book.chapters import frontier_opponents as fo
from greenelm_book.chapters import frontier_protocol as fp
from greenelm_book.chapters.frontier_protocol import UndeclaredFixedMeasurement

PARAMS = ("seeds: [0, 1, 2]\ndatasets:\n  mnist:\n    validation_size: 10\n    fit_size: null\n"
          "    grid:\n      - {variant: [readout], n_patches: [4], patch_size: [3], pool: [2], ridge: [[1.0]]}\n"
          "    fixed:\n      - {model: pytorch-mnist-cnn, schedule: published}\n"
          "      - {model: pytorch-mnist-cnn, schedule: protocol-seconds}\n")


class Trainer:
    """A stand-in for a fast_sgd trainer: records what it was given, predicts class 0."""

    def __init__(self):
        self.calls = []

    def __call__(self, X_train, y_train, X_test, y_test, *, seed, time_budget):
        self.calls.append({"n_train": len(X_train), "seed": seed, "time_budget": time_budget})
        return {"accuracy": 100 * float(np.mean(np.asarray(y_test) == 0)), "seconds": 1.5, "model": object()}


@pytest.fixture
def setup(tmp_path, monkeypatch):
    rng = np.random.default_rng(0)
    data = (rng.random((40, 784), dtype=np.float32), rng.integers(0, 10, 40),
            rng.random((20, 784), dtype=np.float32), np.r_[np.zeros(5, int), np.ones(15, int)])
    monkeypatch.setattr(fo, "protocol_data", lambda dataset, subset=None: data)
    params = tmp_path / "protocol.yml"
    params.write_text(PARAMS, encoding="utf-8")
    return tmp_path / "runs", params


def test_the_published_opponent_reads_the_test_labels_as_a_declared_fixed_measurement(setup):
    out, params = setup
    train = Trainer()
    path = fo.run_opponent("mnist", 0, "published", out_dir=out, params=params, train=train, log=lambda m: None)
    record = json.loads(path.read_text())
    assert path.name == "mnist-pytorch-mnist-cnn-published-seed0.json"
    assert record["accuracy"] == 25.0 and record["time_budget"] is None and "model" not in record
    assert all(len(record["load_average"][when]) == 3 for when in ("started", "finished"))
    assert train.calls == [{"n_train": 40, "seed": 0, "time_budget": None}]
    (read,) = json.loads((out / "test-reads.json").read_text())["reads"]
    assert (read["kind"], read["configuration"]) == ("fixed", {"model": "pytorch-mnist-cnn", "schedule": "published"})
    fo.run_opponent("mnist", 0, "published", out_dir=out, params=params, train=train, log=lambda m: None)
    assert len(train.calls) == 1                                   # recorded: skipped


def test_the_equal_seconds_opponent_trains_for_its_seeds_protocol_seconds(setup):
    out, params = setup
    train = Trainer()
    with pytest.raises(FileNotFoundError, match="mnist-seed1.json: the protocol of mnist, seed 1 has no record"):
        fo.run_opponent("mnist", 1, "protocol-seconds", out_dir=out, params=params, train=train, log=lambda m: None)
    assert not train.calls and not (out / "test-reads.json").exists()      # nothing read before the refusal
    out.mkdir(parents=True)
    fp.seed_record_path(out, "mnist", 1).write_text(json.dumps({"seconds": {"total": 1234.5}}))
    path = fo.run_opponent("mnist", 1, "protocol-seconds", out_dir=out, params=params, train=train,
                           log=lambda m: None)
    assert train.calls == [{"n_train": 40, "seed": 1, "time_budget": 1234.5}]
    assert json.loads(path.read_text())["time_budget"] == 1234.5


def test_an_undeclared_opponent_is_refused_before_it_trains(setup, tmp_path):
    out, _ = setup
    params = tmp_path / "undeclared.yml"
    params.write_text(PARAMS.split("    fixed:")[0] + "    fixed: []\n", encoding="utf-8")
    train = Trainer()
    with pytest.raises(UndeclaredFixedMeasurement, match="was not declared before the run"):
        fo.run_opponent("mnist", 0, "published", out_dir=out, params=params, train=train, log=lambda m: None)
    assert not train.calls


def test_the_opponents_are_declared_in_the_protocols_parameters():
    spec = fp.load_protocol()
    for dataset, entry in spec["datasets"].items():
        for schedule in fo.SCHEDULES:
            assert fo.opponent_configuration(dataset, schedule) in entry["fixed"], (dataset, schedule)


def test_bad_names_are_refused():
    with pytest.raises(ValueError, match="schedule"):
        fo.opponent_configuration("mnist", "longer")
    with pytest.raises(ValueError, match="dataset"):
        fo.opponent_configuration("svhn", "published")
