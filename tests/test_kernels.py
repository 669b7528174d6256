"""The arc-cosine kernel is the d → ∞ limit of Green-ELM's features; the in-place solvers are exact."""

from __future__ import annotations

import numpy as np
import pytest

from greenelm.features import RandomReLUFeatures
from greenelm.kernels import (arccos_kernel, augment, cholesky_inplace, cholesky_solve_inplace,
                              kernel_ridge_predict, kernel_ridge_predict_inplace)


@pytest.fixture(scope="module")
def small_inputs():
    rng = np.random.default_rng(3)
    return rng.uniform(0, 1, size=(12, 6))


@pytest.mark.parametrize("weight_scale", ["unit", "he"])
def test_kernel_is_the_wide_limit_of_the_features(small_inputs, weight_scale):
    d = 400_000
    H = RandomReLUFeatures(6, d, seed=1, weight_scale=weight_scale).transform(small_inputs)
    empirical = H @ H.T / d
    K = arccos_kernel(small_inputs, weight_scale=weight_scale)
    # Monte-Carlo error of a mean of d terms: ~ 1/sqrt(d) relative; 1 % is > 5 sd here
    assert np.abs(empirical - K).max() < 0.01 * np.abs(K).max()


def test_kernel_diagonal_symmetry_and_psd(small_inputs):
    K = arccos_kernel(small_inputs)
    Xa = augment(small_inputs)
    np.testing.assert_allclose(np.diag(K), (Xa**2).sum(1) / 2, rtol=1e-12)
    np.testing.assert_allclose(K, K.T, rtol=1e-12)
    assert np.linalg.eigvalsh(K).min() > 0
    cross = arccos_kernel(small_inputs[:4], small_inputs)
    np.testing.assert_allclose(cross, K[:4], rtol=1e-12)


def test_kernel_rejects_bad_input(small_inputs):
    with pytest.raises(ValueError, match="Gaussian bias"):
        arccos_kernel(small_inputs, bias="uniform")
    bad = small_inputs.copy()
    bad[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        arccos_kernel(bad)
    with pytest.raises(ValueError, match="columns"):
        arccos_kernel(small_inputs, small_inputs[:, :3])
    with pytest.raises(ValueError, match="weight_scale"):
        arccos_kernel(small_inputs, weight_scale="xavier")


def _spd(n, dtype, seed=0):
    rng = np.random.default_rng(seed)
    B = rng.standard_normal((n, n + 5))
    return (B @ B.T / n + np.eye(n)).astype(dtype)


@pytest.mark.parametrize("dtype,tol", [("float64", 1e-10), ("float32", 2e-4)])
@pytest.mark.parametrize("block", [64, 100, 1000])
def test_blocked_cholesky_matches_lapack(dtype, tol, block):
    A = _spd(333, dtype)
    reference = np.linalg.cholesky(A.astype(np.float64))
    work = A.copy()
    work[np.triu_indices(333, 1)] = 1e30          # the upper triangle is never read
    cholesky_inplace(work, block=block)
    np.testing.assert_allclose(np.tril(work), reference, atol=tol * np.abs(reference).max())
    Y = np.random.default_rng(1).standard_normal((333, 4))
    X = cholesky_solve_inplace(work, Y, block=block)
    np.testing.assert_allclose(X, np.linalg.solve(A.astype(np.float64), Y), rtol=50 * tol, atol=50 * tol)


def test_blocked_cholesky_reports_indefinite_and_bad_arrays():
    A = _spd(50, "float64")
    A[30, 30] = -100.0
    with pytest.raises(np.linalg.LinAlgError, match="not positive definite"):
        cholesky_inplace(A, block=16)
    with pytest.raises(ValueError, match="C-contiguous"):
        cholesky_inplace(np.asfortranarray(_spd(20, "float64")))
    with pytest.raises(ValueError, match="square"):
        cholesky_inplace(np.zeros((3, 4)))


# float32: a solve with condition number ~1e5 keeps about two or three digits
@pytest.mark.parametrize("dtype,tol", [("float64", 1e-8), ("float32", 1e-2)])
def test_kernel_ridge_matches_an_explicit_solve(dtype, tol):
    rng = np.random.default_rng(5)
    X, T = rng.uniform(0, 1, (300, 8)), rng.uniform(0, 1, (40, 8))
    Y = np.eye(3)[rng.integers(0, 3, 300)]
    jitter = 1e-3
    scores, info = kernel_ridge_predict(X, Y, T, jitter=jitter, dtype=dtype, block_rows=70, cholesky_block=64)
    K = arccos_kernel(X)
    mu = jitter * np.diag(K).mean()
    assert info["mu"] == pytest.approx(mu, rel=1e-6)
    expected = arccos_kernel(T, X) @ np.linalg.solve(K + mu * np.eye(300), Y)
    np.testing.assert_allclose(scores, expected, atol=tol * np.abs(expected).max())


def test_kernel_ridge_rejects_bad_arguments():
    X = np.random.default_rng(0).uniform(0, 1, (20, 4))
    Y = np.eye(2)[np.arange(20) % 2]
    with pytest.raises(ValueError, match="jitter"):
        kernel_ridge_predict(X, Y, X, jitter=-1.0)
    with pytest.raises(ValueError, match="Y must be"):
        kernel_ridge_predict(X, Y[:5], X, jitter=1e-3)
    with pytest.raises(ValueError, match="columns"):
        kernel_ridge_predict(X, Y, X[:, :2], jitter=1e-3)


@pytest.mark.parametrize("weight_scale", ["unit", "he"])
def test_inplace_kernel_ridge_matches_the_copying_one(weight_scale):
    rng = np.random.default_rng(8)
    X, T = rng.normal(size=(300, 20)).astype(np.float32), rng.normal(size=(40, 20)).astype(np.float32)
    Y = np.eye(3)[rng.integers(0, 3, 300)]
    expected, info = kernel_ridge_predict(X, Y, T, jitter=1e-3, weight_scale=weight_scale, block_rows=70,
                                          cholesky_block=64)
    X_in, T_in = X.copy(), T.copy()
    scores, info_in = kernel_ridge_predict_inplace(X_in, Y, T_in, jitter=1e-3, weight_scale=weight_scale,
                                                   block_rows=70, cholesky_block=64)
    np.testing.assert_allclose(scores, expected, atol=1e-3 * np.abs(expected).max())
    assert info_in["mu"] == pytest.approx(info["mu"], rel=1e-5)
    assert (info_in["jitter"], info_in["attempts"], info_in["n_train"]) == (1e-3, 1, 300)
    sigma_w = 1.0 if weight_scale == "unit" else np.sqrt(2 / 20)
    np.testing.assert_allclose(X_in, X * np.float32(sigma_w), rtol=1e-6)   # scaled in place, as documented
    np.testing.assert_allclose(T_in, T * np.float32(sigma_w), rtol=1e-6)


def test_inplace_kernel_ridge_raises_the_jitter_after_a_failed_factorisation():
    # seven ones: ‖x̃‖² = 8, K = 4·11ᵀ exactly, so the second pivot is exactly 4 − 2² = 0 at μ = 0
    X = np.ones((6, 7), dtype=np.float32)
    Y = np.eye(2)[np.arange(6) % 2]
    with pytest.raises(np.linalg.LinAlgError, match=r"2 attempt\(s\), the last at jitter 0"):
        kernel_ridge_predict_inplace(X.copy(), Y, X[:2].copy(), jitter=0.0, attempts=2)
    scores, info = kernel_ridge_predict_inplace(X.copy(), Y, X[:2].copy(), jitter=1e-12, attempts=12)
    assert info["attempts"] > 1 and info["jitter"] == pytest.approx(1e-12 * 10 ** (info["attempts"] - 1))
    assert info["mu"] == pytest.approx(4 * info["jitter"], rel=1e-6) and np.all(np.isfinite(scores))


def test_inplace_kernel_ridge_rejects_what_it_cannot_scale_in_place():
    X = np.random.default_rng(0).normal(size=(20, 4)).astype(np.float32)
    Y = np.eye(2)[np.arange(20) % 2]
    with pytest.raises(ValueError, match="float32"):
        kernel_ridge_predict_inplace(X.astype(np.float64), Y, X.copy(), jitter=1e-3)
    with pytest.raises(ValueError, match="C-contiguous"):
        kernel_ridge_predict_inplace(np.asfortranarray(X), Y, X.copy(), jitter=1e-3)
    with pytest.raises(ValueError, match="share memory"):
        kernel_ridge_predict_inplace(X, Y, X[:5], jitter=1e-3)
    bad = X.copy()
    bad[3, 1] = np.nan
    with pytest.raises(ValueError, match="X_train contains NaN"):
        kernel_ridge_predict_inplace(bad, Y, X.copy(), jitter=1e-3)
    with pytest.raises(ValueError, match="Y must be"):
        kernel_ridge_predict_inplace(X.copy(), Y[:5], X.copy(), jitter=1e-3)
    with pytest.raises(ValueError, match="columns"):
        kernel_ridge_predict_inplace(X.copy(), Y, X[:, :2].copy(), jitter=1e-3)
    with pytest.raises(ValueError, match="jitter"):
        kernel_ridge_predict_inplace(X.copy(), Y, X.copy(), jitter=-1.0)
