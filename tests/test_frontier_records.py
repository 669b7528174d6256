"""The frontier protocol's records as the page shows them (greenelm_book.chapters.frontier_records): made
by the real protocol on tiny images for three seeds, then read back (a fixed measurement's record is
not a seed); the grid shows validation accuracy only, gains are the book's verdict. The headline and
the opponents' table are the page's (tests/test_frontier_page.py)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from greenelm_book.chapters import frontier_protocol as fp
from greenelm_book.chapters import frontier_records as fr
from test_frontier_protocol import SHAPE, tiny_images          # the protocol tests' images

PARAMS = ("seeds: [0, 1, 2]\ndatasets:\n  tiny:\n    validation_size: 100\n    fit_size: null\n"
          "    defaults: {n_patches: 6, patch_size: 3, pool: 2, n_whitening: 400}\n"
          "    grid:\n      - {variant: [readout], ridge: [[1.0e-2, 1.0, 100.0]]}\n"
          "      - {variant: [limit], ridge: [[1.0e-4, 1.0e-2]]}\n"
          "      - {variant: [stacked], n_hidden: [40], ridge: [[1.0e-2, 1.0, 100.0, 10000.0]]}\n"
          "    fixed:\n      - {model: pytorch-mnist-cnn, schedule: published}\n")


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("frontier-records")
    patch = pytest.MonkeyPatch()
    data = (*tiny_images(300, 0), *tiny_images(120, 1))
    patch.setenv("GREENELM_CACHE", str(tmp / "cache"))
    patch.setenv("GREENELM_RECORD_DIR", str(tmp / "record"))
    patch.setattr(fp, "protocol_data", lambda dataset, subset=None: data)
    import greenelm_book.chapters.frontier_features as features

    patch.setitem(features.IMAGE_SHAPES, "tiny", (SHAPE, 3))
    params = tmp / "protocol.yml"
    params.write_text(PARAMS, encoding="utf-8")
    out = tmp / "runs"
    fp.run_and_record("tiny", [0, 1, 2], out_dir=out, params=params, log=lambda m: None)
    (out / "tiny-pytorch-mnist-cnn-published-seed0.json").write_text(json.dumps(
        {"configuration": {"model": "pytorch-mnist-cnn", "schedule": "published"}, "accuracy": 90.0, "seconds": 12.0,
         "epochs_run": 14.0, "subset": None}))
    (out / "tiny-seed7.json").write_text(json.dumps({"subset": 1000}))          # a check: left out
    (out / "tiny-paper-map-d40-seed0.json").write_text(json.dumps({"subset": None}))   # a fixed measurement
    yield out
    patch.undo()


def test_the_records_are_read_per_dataset_seed_and_opponent(runs):
    records = fr.load_records(runs)
    assert set(records) == {"tiny"} and sorted(records["tiny"]["protocol"]) == [0, 1, 2]
    assert list(records["tiny"]["opponents"]) == [("published", 0)]


def test_the_grid_shows_validation_accuracy_and_how_often_each_was_picked(runs):
    records = fr.load_records(runs)
    table = fr.grid_table(records, "tiny")
    assert list(table.columns) == ["candidate", "validation accuracy (%)", "selection fit (s)", "picked"]
    assert len(table) == 3 and table["picked"].sum() == 3
    first = [records["tiny"]["protocol"][s]["grid"][0]["validation_accuracy"] for s in (0, 1, 2)]
    assert table.iloc[0]["validation accuracy (%)"].startswith(f"{np.mean(first):.2f} ± ")
    assert "test" not in " ".join(table.columns)


def test_gains_between_variants_are_the_books_verdict_on_validation_accuracy(runs):
    records = fr.load_records(runs)
    gains = fr.variant_gains(records, "tiny")
    assert set(gains) == {"limit", "stacked"}
    assert all(g.label in ("holds", "does not hold", "inconclusive") for g in gains.values())
    assert all("(paired, n = 3)" in g.ours for g in gains.values())


def test_a_candidate_reads_in_words():
    text = fr.candidate_text(fp.Candidate("limit", 1024, 7, 3, views=("flip",)).as_dict())
    assert text == "kernel limit (d → ∞), K = 1,024, 7 × 7 patches, pool 3, t = 0.25, ε = 0.1, mirror"
