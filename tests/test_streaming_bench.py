"""greenelm_book.chapters.streaming_harness.oracle_accuracy: the batch oracle's accuracy without holding H."""

import numpy as np
import pytest

from greenelm.features import RandomReLUFeatures
from greenelm_book.chapters.experiments import Split
from greenelm_book.chapters.streaming_harness import batch_oracle, make_stream_data, oracle_accuracy


def test_oracle_accuracy_matches_the_batch_oracle_on_the_same_projection():
    rng = np.random.default_rng(0)
    centres = rng.normal(0, 1, (3, 16))
    y = rng.integers(0, 3, 400)
    X = centres[y] + rng.normal(0, 1.5, (400, 16))
    split = Split("blobs", X[:300], y[:300], X[300:], y[300:])
    features = RandomReLUFeatures(16, 40, 5, weight_scale="he", bias="normal")
    data = make_stream_data(split, features, 0.8)
    W, _ = batch_oracle(data, 1e-2)
    expected = data.accuracy(W)
    assert oracle_accuracy(split, 40, 5, 1e-2, chunk_rows=64) == pytest.approx(expected)
    assert 40 < expected < 100
    with pytest.raises(ValueError, match="n_hidden"):
        oracle_accuracy(split, 0, 5)
