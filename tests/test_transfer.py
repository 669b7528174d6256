"""greenelm_book.chapters.transfer: the readout loops behind the CIFAR-10 chapter (Tables II and VI)."""

import numpy as np
import pytest

from greenelm_book.chapters.transfer import (feature_split, greenelm_fits, listing2_runs, paired_ratios,
                                    ridge_readout, split_digest)


def _blobs(n=300, k=12, classes=3, seed=0):
    """Separable Gaussian blobs as a feature split (train n rows, test n // 2 rows)."""
    rng = np.random.default_rng(seed)
    centres = rng.normal(0, 4, (classes, k))
    y = rng.integers(0, classes, n + n // 2)
    X = centres[y] + rng.normal(0, 1, (len(y), k))
    return feature_split("blobs", X[:n], y[:n], X[n:], y[n:])


def test_feature_split_rejects_bad_input():
    X, y = np.ones((4, 3)), np.zeros(4, int)
    with pytest.raises(ValueError, match="2-D"):
        feature_split("x", X.ravel(), y, X, y)
    with pytest.raises(ValueError, match="labels"):
        feature_split("x", X, y[:3], X, y)
    with pytest.raises(ValueError, match="columns"):
        feature_split("x", X, y, X[:, :2], y)
    bad = X.copy()
    bad[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        feature_split("x", bad, y, X, y)


def test_listing2_runs_one_projection_per_seed():
    split = _blobs()
    runs = listing2_runs(split, n_hidden=40, variants=("pinv", "cholesky"), lam=1e-3, seeds=[0, 1, 2],
                         progress=False)
    assert len(runs) == 6 and sorted(runs.seed.unique()) == [0, 1, 2]
    assert set(runs.solver) == {"pinv", "cholesky"}
    assert (runs.query("solver == 'pinv'").alpha == 0).all()
    # separable blobs: every solver classifies the test set well
    assert runs.accuracy.min() > 90
    # the same seed gives the same projection, hence the same accuracy
    again = listing2_runs(split, n_hidden=40, variants=("cholesky",), seeds=[1], progress=False)
    first = runs.query("seed == 1 and solver == 'cholesky'").accuracy.item()
    assert again.accuracy.item() == first
    with pytest.raises(ValueError, match="seed"):
        listing2_runs(split, n_hidden=10, seeds=[], progress=False)


def test_ridge_and_green_elm_readouts_agree_on_separable_data():
    split = _blobs(seed=3)
    ridge = ridge_readout(split, alpha=1e-3)
    fits = greenelm_fits(split, [60], ["cholesky"], ["float64"], [0, 1], 1e-3, "he", progress=False)
    assert ridge["n_inputs"] == 12 and ridge["accuracy"] > 90
    assert len(fits) == 2 and fits.accuracy.min() > 90 and (fits.fit_seconds > 0).all()


def test_split_digest_names_the_data():
    split = _blobs()
    assert split_digest(split) == split_digest(_blobs())
    changed = feature_split("blobs", split.X_train.copy(), split.y_train, split.X_test, split.y_test)
    changed.X_train[0, 0] += 1e-9
    assert split_digest(changed) != split_digest(split)
    as32 = feature_split("blobs", split.X_train.astype(np.float32), split.y_train,
                         split.X_test.astype(np.float32), split.y_test)
    assert split_digest(as32) != split_digest(split)


def test_paired_ratios_pairs_run_by_run():
    np.testing.assert_allclose(paired_ratios([10, 20, 30], [2, 4]), [5, 5])
    np.testing.assert_allclose(paired_ratios([6.0], [3.0, 1.0]), [2.0])
    with pytest.raises(ValueError, match="at least one"):
        paired_ratios([], [1.0])
    with pytest.raises(ValueError, match="> 0"):
        paired_ratios([1.0, 0.0], [1.0, 1.0])
    with pytest.raises(ValueError, match="finite"):
        paired_ratios([1.0], [np.inf])
