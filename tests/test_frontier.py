"""The frontier chapter's helpers: augmented copies and the cost curve's pairing of store keys."""

from __future__ import annotations

import numpy as np
import pytest

from greenelm_book.frontier import augmented, cost_curve
from greenelm_book.results import Result


def test_flip_mirrors_and_shifts_move_by_one_pixel_with_edges_repeated():
    images = np.arange(2 * 4 * 5 * 1, dtype=float).reshape(2, 4, 5, 1)
    (flip,) = augmented(images, "flip")
    np.testing.assert_array_equal(flip[:, :, 0], images[:, :, -1])
    down, up, right, left = augmented(images, "shift")
    np.testing.assert_array_equal(down[:, 1:], images[:, :-1])
    np.testing.assert_array_equal(down[:, 0], images[:, 0])          # the vacated edge repeats the old one
    np.testing.assert_array_equal(up[:, :-1], images[:, 1:])
    np.testing.assert_array_equal(right[:, :, 1:], images[:, :, :-1])
    np.testing.assert_array_equal(left[:, :, :-1], images[:, :, 1:])
    assert all(c.shape == images.shape for c in (flip, down, up, right, left))
    with pytest.raises(ValueError, match="augmentation"):
        augmented(images, "rotate")


def result(key, values, unit):
    return Result(key, tuple(values), unit, {}, "a", "machine", "2026-11-23", "command")


def test_cost_curve_pairs_each_time_with_its_accuracy_once():
    stored = {"a": {"results": {
        "mnist/m/accuracy": result("mnist/m/accuracy", [90.0, 92.0], "%"),
        "mnist/m/train-seconds": result("mnist/m/train-seconds", [3.0, 5.0], "s"),
        "mnist/m/fit-seconds": result("mnist/m/fit-seconds", [1.0], "s"),          # train-seconds wins
        "mnist/lonely/fit-seconds": result("mnist/lonely/fit-seconds", [1.0], "s"),  # no accuracy: left out
    }}}
    curve = cost_curve(stored)
    assert curve.to_dict("records") == [{"chapter": "a", "key": "mnist/m", "dataset": "mnist",
                                         "accuracy": 91.0, "seconds": 4.0}]
