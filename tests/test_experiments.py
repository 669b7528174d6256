"""The wide model holds its projection's normal equations (narrower widths are its leading blocks);
the results cache recomputes when it must."""

from __future__ import annotations

import numpy as np
import pytest

from greenelm_book.chapters import experiments
from greenelm_book.chapters.experiments import Split, accumulate_wide, memoize


@pytest.fixture(scope="module")
def split():
    rng = np.random.default_rng(0)
    centres = rng.uniform(0, 1, (3, 10))
    y = rng.integers(0, 3, 400)
    X = np.clip(centres[y] + 0.3 * rng.standard_normal((400, 10)), 0, 1)
    return Split("toy", X[:300], y[:300], X[300:], y[300:])


def test_the_wide_model_holds_the_normal_equations_of_its_projection(split):
    """HᵀH (upper triangle), HᵀY and the test features of its projection; the scaling chapter reads
    every narrower width from their leading blocks."""
    wide = accumulate_wide(split, 60, seed=4, chunk_rows=70, progress=False)
    H, T = wide.features.transform(split.X_train), wide.features.transform(split.X_test)
    Y = np.eye(3)[split.y_train]
    np.testing.assert_allclose(np.triu(wide.equations.gram), np.triu(H.T @ H), rtol=1e-10, atol=1e-10)  # upper triangle
    np.testing.assert_allclose(wide.equations.hty, H.T @ Y, rtol=1e-10, atol=1e-10)
    np.testing.assert_array_equal(wide.H_test, T)
    np.testing.assert_array_equal(wide.y_test, split.y_test)


def test_memoize_caches_atomically_and_keys_on_params(tmp_path, monkeypatch):
    monkeypatch.setenv("GREENELM_CACHE", str(tmp_path))
    calls = []

    def compute():
        calls.append(1)
        return {"value": len(calls)}

    first, info = memoize("unit", {"a": 1}, compute)
    again, info_again = memoize("unit", {"a": 1}, compute)
    other, _ = memoize("unit", {"a": 2}, compute)
    assert (first, again, other) == ({"value": 1}, {"value": 1}, {"value": 2})
    assert not info["cached"] and info_again["cached"]
    assert not list(experiments.cache_dir().glob("*.tmp*"))
    refreshed, info_refresh = memoize("unit", {"a": 1}, compute, refresh=True)
    assert refreshed == {"value": 3} and not info_refresh["cached"]
