"""One configuration, one value: no configuration is measured by two chapters of the committed store,
except those listed below, each waiting for the re-execution that removes it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from greenelm_book.store.shown import configuration, duplicate_configurations

ROOT = Path(__file__).resolve().parents[1]
STORE = ROOT / "book" / "results"


def test_no_configuration_is_measured_by_two_chapters():
    found = duplicate_configurations(STORE)
    assert found == [], found


def test_a_planted_second_value_is_found(tmp_path):
    """A chapter that records another chapter's configuration (here hardware re-measuring the random
    features chapter's MNIST Cholesky fit at d = 2000 with other values) is found."""
    store = tmp_path / "results"
    shutil.copytree(STORE, store)
    source = json.loads((store / "random_features.json").read_text())
    key = "mnist/green-elm/unit/cholesky/d=2000/accuracy"
    planted = dict(source["results"][key], values=[1.0, 2.0], chapter="hardware")
    hardware = json.loads((store / "hardware.json").read_text())
    hardware["results"]["mnist/elm/again/accuracy"] = planted
    (store / "hardware.json").write_text(json.dumps(hardware))
    found = [group for group in duplicate_configurations(store) if ("hardware", "mnist/elm/again/accuracy", 1.5) in group]
    assert found and ("random_features", key) in {(c, k) for c, k, _ in found[0]}


def test_a_configuration_ignores_seeds_and_run_fields_but_not_what_was_measured():
    from greenelm_book.store.results import Result

    def result(**setting):
        return Result("k", (1.0,), "%", setting, "c", "m", "2026-11-28", "")

    a = configuration("x/accuracy", result(dataset="mnist", n_hidden=2000, seeds=[0], timing="quiet"))
    assert a == configuration("y/accuracy", result(dataset="mnist", n_hidden=2000, seeds=[0, 1, 2]))
    assert a != configuration("y/accuracy", result(dataset="mnist", n_hidden=4000, seeds=[0]))
    assert a != configuration("y/fit-seconds", result(dataset="mnist", n_hidden=2000, seeds=[0]))
