"""The interpolation threshold, named: an ELM fit whose width d is near its number of rows N at a
ridge too small to regularise (``greenelm.estimator.at_interpolation_threshold``) warns with
``InterpolationThresholdWarning`` and the remedy; on MNIST the warning comes where accuracy
collapses toward chance and stays silent where it does not."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import greenelm
from greenelm import ELMClassifier, ELMClassifierCV, ELMRegressor, InterpolationThresholdWarning
from greenelm.estimator import THRESHOLD_BAND, THRESHOLD_RELATIVE_ALPHA, at_interpolation_threshold


def threshold_warnings(fit) -> list[str]:
    """The messages of the InterpolationThresholdWarnings ``fit()`` raises (every other warning kept)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fit()
    return [str(w.message) for w in caught if issubclass(w.category, InterpolationThresholdWarning)]


# -- the rule --------------------------------------------------------------------------------------
def test_the_rule_is_a_band_of_d_over_n_at_a_small_relative_ridge():
    n, trace = 1_000, 1e6                              # mean eigenvalue tr/d = 1e3 at d = 1000
    small = 0.5 * THRESHOLD_RELATIVE_ALPHA * trace / n
    assert at_interpolation_threshold(1_000, n, small, trace)
    assert at_interpolation_threshold(1_000, n, 0.0, trace)                       # the minimum-norm readout
    assert at_interpolation_threshold(1_000, n, 0.0, 0.0)                         # dead features, no ridge
    assert not at_interpolation_threshold(1_000, n, 2 * THRESHOLD_RELATIVE_ALPHA * trace / n, trace)
    low, high = THRESHOLD_BAND
    for d in (int(low * n), int(high * n) + 1, n // 2, 2 * n):                   # the band is open
        assert not at_interpolation_threshold(d, n, 0.0, trace), d
    for d in (int(low * n) + 1, int(high * n)):
        assert at_interpolation_threshold(d, n, 0.0, trace), d
    assert not at_interpolation_threshold(5, 0, 0.0, trace)


def test_the_band_is_where_the_minimum_norm_variance_passes_three_times_the_noise():
    """γ/(1 − γ) below γ = d/N = 1 and 1/(γ − 1) above: both equal 3 at the band's edges."""
    low, high = THRESHOLD_BAND
    assert low / (1 - low) == pytest.approx(3) and 1 / (high - 1) == pytest.approx(3)


# -- the estimators, on synthetic data -------------------------------------------------------------
def blobs(n=300, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.random((n, 20))
    return X, (X[:, 0] + 0.3 * rng.standard_normal(n) > 0.5).astype(int) + (X[:, 1] > 0.7)


def test_a_fit_at_d_equal_n_and_the_default_ridge_warns_with_the_remedy():
    X, y = blobs()
    messages = threshold_warnings(lambda: ELMClassifier(n_hidden=300).fit(X, y))
    assert len(messages) == 1
    for words in ("ELMClassifier(n_hidden=300) on 300 rows (d/N = 1.00) at alpha=0.001",
                  "interpolation threshold", "ELMClassifierCV(n_hidden=300)", "n_hidden <= 150", ">= 600"):
        assert words in messages[0], words
    with pytest.warns(InterpolationThresholdWarning) as record:   # pointed at the caller's line
        ELMRegressor(n_hidden=280).fit(X, y.astype(float))
    assert record[0].filename == __file__
    assert issubclass(InterpolationThresholdWarning, UserWarning)
    assert greenelm.InterpolationThresholdWarning is InterpolationThresholdWarning
    assert "minimum-norm readout (solver='pinv'" in threshold_warnings(
        lambda: ELMClassifier(n_hidden=300, solver="pinv").fit(X, y))[0]


@pytest.mark.parametrize("make", [lambda: ELMClassifier(n_hidden=100), lambda: ELMClassifier(n_hidden=900),
                                  lambda: ELMClassifier(n_hidden=300, alpha=1e3),
                                  lambda: ELMClassifierCV(n_hidden=300, cv="gcv")],
                         ids=["narrow", "wide", "large-ridge", "cross-validated"])
def test_fits_away_from_the_threshold_or_with_a_chosen_ridge_are_silent(make):
    X, y = blobs()
    assert threshold_warnings(lambda: make().fit(X, y)) == []


def test_rows_of_zero_weight_do_not_count_toward_n():
    X, y = blobs(600)
    weights = np.r_[np.ones(300), np.zeros(300)]
    assert threshold_warnings(lambda: ELMClassifier(n_hidden=300).fit(X, y)) == []      # d/N = 0.5
    assert "on 300 rows" in threshold_warnings(lambda: ELMClassifier(n_hidden=300).fit(X, y, sample_weight=weights))[0]


# -- real data: the warning where accuracy collapses -----------------------------------------------
@pytest.fixture(scope="module")
def mnist_1000():
    try:
        data = greenelm.load_dataset("mnist")
    except greenelm.data.DataNotFoundError as error:
        pytest.skip(f"MNIST is not available here (set GREENELM_DATA): {str(error).splitlines()[0]}")
    X = data.flat("train")[:1_000]
    X_test = data.flat("test")[:2_000]
    return X, data.y_train[:1_000], X_test, data.y_test[:2_000]


def test_on_mnist_the_warning_comes_where_accuracy_collapses_and_not_elsewhere(mnist_1000):
    """1,000 MNIST images at the default ridge: d = 1,000 scores near chance (measured 17 %) and
    warns; d = 500 scores above 70 % (74 %) and is silent, as is the remedy it names (the ridge
    chosen by ELMClassifierCV at d = 1,000)."""
    X, y, X_test, y_test = mnist_1000
    scores, warned = {}, {}
    for d in (500, 1_000):
        model = ELMClassifier(n_hidden=d, solver="eigh", random_state=0)
        warned[d] = threshold_warnings(lambda: model.fit(X, y))
        scores[d] = model.score(X_test, y_test)
    assert scores[1_000] < 0.3 and scores[500] > 0.7, scores
    assert len(warned[1_000]) == 1 and warned[500] == [], warned
    remedy = ELMClassifierCV(n_hidden=1_000, cv="gcv", random_state=0)       # the warning's first remedy
    assert threshold_warnings(lambda: remedy.fit(X, y)) == []
    assert remedy.score(X_test, y_test) > 0.7
