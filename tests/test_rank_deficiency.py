"""greenelm_book.chapters.rank_deficiency: rank-deficient regimes, their readouts and stability measures."""

import numpy as np
import pytest

from greenelm_book.chapters.rank_deficiency import (REGIMES, backward_error, numerical_rank, rank_deficiency_study,
                                           regime_features, solve_readout)


def _data(n=240, n_test=60, n_inputs=12, seed=0):
    rng = np.random.default_rng(seed)
    X, X_test = rng.standard_normal((n, n_inputs)), rng.standard_normal((n_test, n_inputs))
    teacher = rng.standard_normal((n_inputs, 3))
    return X, X @ teacher, X_test, X_test @ teacher


@pytest.fixture
def data():
    X, scores, X_test, scores_test = _data()
    return X, scores.argmax(1), X_test, scores_test.argmax(1)


def test_duplicated_units_copy_the_first_half_and_halve_the_rank(data):
    X, _, X_test, _ = data
    H, H_test = regime_features(X, X_test, "duplicated-units", 40, seed=3)
    assert H.shape == (len(X), 40) and H_test.shape == (len(X_test), 40)
    np.testing.assert_array_equal(H[:, :20], H[:, 20:])
    np.testing.assert_array_equal(H_test[:, :20], H_test[:, 20:])
    assert numerical_rank(H)[0] == 20


def test_wide_regime_has_rank_at_most_n_and_full_rank_is_full(data):
    X, _, X_test, _ = data
    H, _ = regime_features(X[:30], X_test, "d>n", 40, seed=0)
    assert numerical_rank(H)[0] == 30
    H, _ = regime_features(X, X_test, "full-rank", 40, seed=0)
    assert numerical_rank(H)[0] == 40


def test_collinear_inputs_have_the_requested_rank_and_seeds_repeat(data):
    X, _, X_test, _ = data
    H1, T1 = regime_features(X, X_test, "collinear-inputs", 16, seed=5, input_rank=3)
    H2, T2 = regime_features(X, X_test, "collinear-inputs", 16, seed=5, input_rank=3)
    np.testing.assert_array_equal(H1, H2)
    np.testing.assert_array_equal(T1, T2)
    # relu of rank-3 inputs: pre-activations (without the bias) span at most 3 directions
    H0, _ = regime_features(X, X_test, "full-rank", 16, seed=5)
    assert not np.allclose(H0, H1)


def test_pinv_on_duplicated_units_splits_the_weight_evenly(data):
    X, y, X_test, _ = data
    H, _ = regime_features(X, X_test, "duplicated-units", 20, seed=1)
    Y = np.eye(3)[y]
    W2 = solve_readout(H, Y, "pinv", 0.0)
    np.testing.assert_allclose(W2[:10], W2[10:], atol=1e-8)   # the minimum-norm solution is symmetric
    ridge = solve_readout(H, Y, "cholesky", 1e-3)
    np.testing.assert_allclose(ridge[:10], ridge[10:], atol=1e-8)


def test_backward_error_is_tiny_for_a_solve_and_large_for_a_wrong_readout(data):
    X, y, X_test, _ = data
    H, _ = regime_features(X, X_test, "full-rank", 20, seed=2)
    Y = np.eye(3)[y]
    gram, hty = H.T @ H, H.T @ Y
    W2 = solve_readout(H, Y, "lu", 1e-3)
    assert backward_error(gram, hty, W2, 1e-3) < 1e-14
    assert backward_error(gram, hty, np.zeros_like(W2), 1e-3) == 1.0


def test_solve_readout_names_an_unknown_solver(data):
    X, y, X_test, _ = data
    with pytest.raises(ValueError, match="solver"):
        solve_readout(X, np.eye(3)[y], "qr", 1e-3)


def test_study_rows_refusals_and_agreement(data):
    X, y, X_test, y_test = data
    frame = rank_deficiency_study(X, y, X_test, y_test, n_hidden=40, n_rows=30, n_rows_tall=200,
                                  seeds=[0, 1], alphas=(1e-3, 1e-12), input_rank=4)
    assert len(frame) == len(REGIMES) * 2 * 5
    pinv = frame[frame.solver == "pinv"]
    assert not pinv.refused.any() and (pinv.disagreement == 0).all()
    # at λ = 1e-12 the duplicated-unit Gram is singular to working precision: the library refuses
    tiny = frame[(frame.regime == "duplicated-units") & (frame.alpha == 1e-12)]
    assert tiny.refused.all() and tiny.accuracy.isna().all()
    assert set(frame[frame.regime == "d>n"]["rank"]) == {30}
    answered = frame[~frame.refused]
    assert answered.accuracy.between(0, 100).all() and (answered.backward_error < 1e-10).all()
    # a well-conditioned full-rank system: every solver predicts as pinv does
    control = frame[(frame.regime == "full-rank") & ~frame.refused]
    assert (control.disagreement == 0).all()


@pytest.mark.parametrize("kwargs, words", [
    ({"regimes": ["singular"]}, "regime"),
    ({"n_rows": 40}, "n_rows < n_hidden"),
    ({"n_rows_tall": 30}, "n_rows_tall"),
    ({"epsilon": 0.0}, "epsilon"),
    ({"regimes": ["duplicated-units"], "n_hidden": 41, "n_rows": 20}, "even n_hidden"),
])
def test_study_rejects_bad_settings(data, kwargs, words):
    X, y, X_test, y_test = data
    settings = {"n_hidden": 40, "n_rows": 30, "n_rows_tall": 200, "seeds": [0], **kwargs}
    with pytest.raises(ValueError, match=words):
        rank_deficiency_study(X, y, X_test, y_test, **settings)


def test_study_rejects_mismatched_rows(data):
    X, y, X_test, y_test = data
    with pytest.raises(ValueError, match="same number of rows"):
        rank_deficiency_study(X, y[:-1], X_test, y_test, n_hidden=40, n_rows=30, n_rows_tall=200)
