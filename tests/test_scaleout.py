"""greenelm_book.scaleout: the generated data of the scale-out chapter and benchmark."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("dask.array")

from greenelm_book.scaleout import shifted_mnist


@pytest.fixture(scope="module")
def mnist():
    from greenelm.data import DataNotFoundError, load_dataset

    try:
        return load_dataset("mnist")
    except DataNotFoundError:
        pytest.skip("MNIST files not available")


def test_shifted_mnist_is_deterministic_and_labelled(mnist):
    X, y = shifted_mnist(60_010, block_rows=20_000, seed=1)
    assert X.shape == (60_010, 784) and X.numblocks == (4, 1)
    tail = X[59_990:].compute()
    np.testing.assert_array_equal(tail, shifted_mnist(60_010, 20_000, seed=1)[0][59_990:].compute())
    assert not np.array_equal(tail, shifted_mnist(60_010, 20_000, seed=2)[0][59_990:].compute())
    np.testing.assert_array_equal(y[59_990:].compute(), np.r_[mnist.y_train[-10:], mnist.y_train[:10]])
    # each row is its source image shifted by at most 2 pixels: same ink, up to clipped borders
    source = mnist.flat("train", np.float32)[np.arange(59_990, 60_010) % 60_000]
    assert np.all(tail.sum(1) <= source.sum(1) + 1e-3)
    assert np.mean(np.isclose(tail.sum(1), source.sum(1), rtol=1e-4)) > 0.9
    assert tail.min() >= 0 and tail.max() <= 1


def test_no_shift_gives_the_training_images(mnist):
    X, y = shifted_mnist(1_000, block_rows=300, max_shift=0)
    assert X.chunks[0] == (300, 300, 300, 100)
    np.testing.assert_array_equal(X.compute(), mnist.flat("train", np.float32)[:1_000])
    np.testing.assert_array_equal(y.compute(), mnist.y_train[:1_000])


@pytest.mark.parametrize("kwargs, message", [
    ({"n_rows": 0}, "n_rows"), ({"n_rows": 10, "block_rows": 0}, "block_rows"),
    ({"n_rows": 10, "max_shift": -1}, "max_shift"), ({"n_rows": 10, "max_shift": 1.5}, "max_shift")])
def test_bad_arguments_are_named(kwargs, message):
    with pytest.raises(ValueError, match=message):
        shifted_mnist(**kwargs)
