"""The arc-cosine kernel is the d → ∞ limit of Green-ELM's features; the in-place solvers are exact."""

from __future__ import annotations

import tempfile

import numpy as np
import pytest

from greenelm.features import RandomReLUFeatures
from greenelm.kernels import (accuracy_score_of_argmax, arccos_kernel, augment, averaged_kernel_ridge_predict,
                              cholesky_inplace, cholesky_solve_inplace, held_out_kernel_ridge_predict,
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


def _views(rng, n: int, columns: int = 12):
    """Two views of n inputs: x and x with its columns reversed (a 'mirror image'), float32."""
    X = rng.normal(size=(n, columns)).astype(np.float32)
    return [X, np.ascontiguousarray(X[:, ::-1])]


@pytest.mark.parametrize("weight_scale", ["unit", "he"])
def test_averaged_kernel_ridge_is_the_ridge_of_the_view_averaged_kernel(weight_scale):
    rng = np.random.default_rng(11)
    train, test = _views(rng, 200), _views(rng, 30)
    Y = np.eye(3)[rng.integers(0, 3, 200)]
    # reference in float64: the mean of the four kernels, solved directly
    pairs = lambda rows, cols: np.mean([arccos_kernel(a, b, weight_scale=weight_scale) for a in rows for b in cols],
                                       axis=0)
    K, K_test = pairs(train, train), pairs(test, train)
    mu = 1e-3 * np.diag(K).mean()
    expected = K_test @ np.linalg.solve(K + mu * np.eye(200), Y)
    scores, info = averaged_kernel_ridge_predict([v.copy() for v in train], Y, [v.copy() for v in test], [1e-3],
                                                 weight_scale=weight_scale, block_rows=64, cholesky_block=48)
    np.testing.assert_allclose(scores[0], expected, atol=2e-3 * np.abs(expected).max())
    assert info["mu"][0] == pytest.approx(mu, rel=1e-5) and (info["n_views"], info["n_train"]) == (2, 200)
    assert set(info["seconds"]) == {"kernel", "fit", "test"} and min(info["seconds"].values()) > 0


def test_averaged_kernel_ridge_with_one_view_is_the_inplace_ridge_and_jitters_share_one_kernel():
    rng = np.random.default_rng(12)
    X, T = rng.normal(size=(150, 9)).astype(np.float32), rng.normal(size=(25, 9)).astype(np.float32)
    Y = np.eye(2)[rng.integers(0, 2, 150)]
    scores, info = averaged_kernel_ridge_predict([X.copy()], Y, [T.copy()], [1e-4, 1e-2], weight_scale="he",
                                                 block_rows=40, cholesky_block=32)
    for score, mu, jitter in zip(scores, info["mu"], [1e-4, 1e-2]):
        alone, alone_info = kernel_ridge_predict_inplace(X.copy(), Y, T.copy(), jitter, weight_scale="he",
                                                         block_rows=40, cholesky_block=32)
        np.testing.assert_allclose(score, alone, atol=1e-4 * np.abs(alone).max())
        assert mu == pytest.approx(alone_info["mu"], rel=1e-6)


def test_averaged_kernel_ridge_is_invariant_to_the_views_of_a_test_input():
    rng = np.random.default_rng(13)
    train, test = _views(rng, 120), _views(rng, 20)
    Y = np.eye(2)[rng.integers(0, 2, 120)]
    scores, _ = averaged_kernel_ridge_predict([v.copy() for v in train], Y, [v.copy() for v in test], [1e-3])
    swapped, _ = averaged_kernel_ridge_predict([v.copy() for v in train], Y, [test[1].copy(), test[0].copy()],
                                               [1e-3])
    np.testing.assert_allclose(swapped[0], scores[0], atol=1e-4 * np.abs(scores[0]).max())   # float32 sums
    plain, _ = averaged_kernel_ridge_predict([train[0].copy()], Y, [test[0].copy()], [1e-3])
    assert np.abs(plain[0] - scores[0]).max() > 1e-2 * np.abs(scores[0]).max()   # the views do change it


def test_averaged_kernel_ridge_reports_a_jitter_that_does_not_factorise():
    X = np.ones((6, 7), dtype=np.float32)             # K = 4·11ᵀ: singular at μ = 0 (see above)
    Y = np.eye(2)[np.arange(6) % 2]
    scores, info = averaged_kernel_ridge_predict([X.copy()], Y, [X[:2].copy()], [0.0, 1e-2])
    assert scores[0] is None and np.all(np.isfinite(scores[1])) and info["mu"] == [0.0, pytest.approx(4e-2)]


def test_averaged_kernel_ridge_retries_a_failed_factorisation_from_the_spilled_kernel(tmp_path):
    rng = np.random.default_rng(14)
    X = np.vstack([np.ones((6, 7)), rng.normal(size=(4, 7))]).astype(np.float32)    # six equal rows: K singular
    T = rng.normal(size=(3, 7)).astype(np.float32)
    Y = np.eye(2)[np.arange(10) % 2]
    failed, info = averaged_kernel_ridge_predict([X.copy()], Y, [T.copy()], [1e-12], attempts=2, spill_dir=tmp_path)
    assert failed == [None] and info["attempts"] == 2 and info["jitters"] == [pytest.approx(1e-11)]
    scores, info = averaged_kernel_ridge_predict([X.copy()], Y, [T.copy()], [1e-12], attempts=9, spill_dir=tmp_path)
    assert info["attempts"] > 1 and info["jitters"][0] == pytest.approx(1e-12 * 10 ** (info["attempts"] - 1))
    # the retry factorised the kernel as built, not what the failed attempt left of it
    fresh, fresh_info = averaged_kernel_ridge_predict([X.copy()], Y, [T.copy()], info["jitters"])
    np.testing.assert_array_equal(scores[0], fresh[0])
    assert fresh_info["attempts"] == 1 and fresh_info["mu"] == info["mu"]
    assert list(tmp_path.iterdir()) == []                                          # the spill file is gone
    with pytest.raises(ValueError, match=r"attempts > 1 retries one jitter"):
        averaged_kernel_ridge_predict([X.copy()], Y, [T.copy()], [1e-6, 1e-3], attempts=2)


def test_a_spilled_kernel_is_read_back_only_when_its_bytes_check():
    from greenelm.kernels import _read_back, _spill

    kernel = np.arange(36, dtype=np.float32).reshape(6, 6)
    with tempfile.TemporaryFile() as file:
        crc = _spill(kernel, file, rows=4)
        kernel[:] = -1
        _read_back(kernel, file, crc, rows=4)
        np.testing.assert_array_equal(kernel, np.arange(36, dtype=np.float32).reshape(6, 6))
        file.seek(5)
        file.write(b"x")
        with pytest.raises(OSError, match="CRC-32 differs"):
            _read_back(kernel, file, crc)
        file.truncate(40)
        with pytest.raises(OSError, match="spill file ended after 40 bytes"):
            _read_back(kernel, file, crc)


def test_averaged_kernel_ridge_rejects_views_it_cannot_pair_or_scale_in_place():
    rng = np.random.default_rng(14)
    train, test = _views(rng, 20, 4), _views(rng, 5, 4)
    Y = np.eye(2)[np.arange(20) % 2]
    fresh = lambda views: [v.copy() for v in views]
    cases = [
        (dict(train_views=train[0]), "non-empty list of .* one per view"),
        (dict(train_views=[]), "non-empty list"),
        (dict(test_views=fresh(test)[:1]), "train_views has 2 views but test_views 1"),
        (dict(train_views=[train[0].copy(), train[0][:10].copy()]), "share one shape"),
        (dict(train_views=[train[0], train[0]]), r"train_views\[1\] and train_views\[0\] share memory"),
        (dict(train_views=[train[0].astype(np.float64), train[1].copy()]), r"train_views\[0\] must be a C-contiguous"),
        (dict(test_views=[v[:, :2].copy() for v in test]), "columns"),
        (dict(jitters=1e-3), "jitters must be a list"),
        (dict(jitters=[-1.0]), "finite numbers >= 0"),
        (dict(Y=Y[:5]), "Y must be"),
    ]
    for change, words in cases:
        kwargs = dict(train_views=fresh(train), Y=Y, test_views=fresh(test), jitters=[1e-3]) | change
        with pytest.raises(ValueError, match=words):
            averaged_kernel_ridge_predict(**kwargs)
    shared = fresh(train)
    with pytest.raises(ValueError, match="must not share memory"):
        averaged_kernel_ridge_predict(shared, Y, [shared[0][:5], shared[1][:5]], [1e-3])


def _held_out_problem(seed: int, n: int = 160, m: int = 25):
    rng = np.random.default_rng(seed)
    train, test = _views(rng, n), _views(rng, m)
    Y = np.eye(3)[rng.integers(0, 3, n)]
    order = rng.permutation(n)
    return train, test, Y, order[:100], order[100:140]          # unsorted rows: sorted inside


def test_held_out_ridge_is_the_curve_of_the_fitted_rows_and_the_refit_of_all_rows():
    train, test, Y, fit_rows, validation_rows = _held_out_problem(21)
    jitters = [1e-6, 1e-2, 1.0]
    fresh = lambda views: [v.copy() for v in views]
    scores, info = held_out_kernel_ridge_predict(fresh(train), Y, fresh(test), jitters, fit_rows, validation_rows,
                                                 weight_scale="he", block_rows=32, cholesky_block=24)
    # the reference: its own kernel on the fitted rows, scored on the held-out rows, then all rows
    fit, held = np.sort(fit_rows), np.sort(validation_rows)
    curve, curve_info = averaged_kernel_ridge_predict([v[fit].copy() for v in train], Y[fit],
                                                      [v[held].copy() for v in train], jitters, weight_scale="he")
    expected = [accuracy_score_of_argmax(score, Y[held]) for score in curve]
    assert info["validation"] == pytest.approx(expected, abs=1e-12)
    assert info["validation_mu"] == pytest.approx(curve_info["mu"], rel=1e-6)
    chosen = max(zip(expected, jitters))[1]
    assert info["jitter"] == chosen
    refit, refit_info = averaged_kernel_ridge_predict(fresh(train), Y, fresh(test), [chosen], weight_scale="he",
                                                      block_rows=32, cholesky_block=24)
    np.testing.assert_allclose(scores, refit[0], atol=1e-4 * np.abs(refit[0]).max())
    assert info["mu"] == pytest.approx(refit_info["mu"][0], rel=1e-6)
    assert (info["n_fit"], info["n_validation"], info["n_train"], info["n_views"]) == (100, 40, 160, 2)
    assert set(info["seconds"]) == {"kernel", "validation", "fit", "test"}


def test_held_out_ridge_breaks_a_tie_towards_the_larger_jitter_and_scores_with_the_given_function():
    train, test, Y, fit_rows, validation_rows = _held_out_problem(22)
    fresh = lambda views: [v.copy() for v in views]
    _, info = held_out_kernel_ridge_predict(fresh(train), Y, fresh(test), [1e-6, 1e-3, 1e-1], fit_rows,
                                            validation_rows, score=lambda scores, Y: 0.5)
    assert info["validation"] == [0.5, 0.5, 0.5] and info["jitter"] == 1e-1
    # a score that prefers the smallest jitter's predictions: the negative squared error
    _, info = held_out_kernel_ridge_predict(fresh(train), Y, fresh(test), [1e-6, 1e3], fit_rows, validation_rows,
                                            score=lambda scores, Y: -float(np.mean((scores - Y) ** 2)))
    assert info["validation"][0] != info["validation"][1] and info["jitter"] == [1e-6, 1e3][
        int(np.argmax(info["validation"]))]


def test_held_out_ridge_skips_a_jitter_that_does_not_factorise_and_fails_when_none_does():
    X = np.ones((8, 7), dtype=np.float32)              # K = 4·11ᵀ: singular at μ = 0
    Y = np.eye(2)[np.arange(8) % 2]
    scores, info = held_out_kernel_ridge_predict([X.copy()], Y, [X[:2].copy()], [0.0, 1e-2], [0, 1, 2, 3], [4, 5])
    assert info["validation"][0] is None and info["jitter"] == 1e-2 and np.all(np.isfinite(scores))
    with pytest.raises(np.linalg.LinAlgError, match=r"no jitter of \[0.0\] factorised .* 4 fitted rows"):
        held_out_kernel_ridge_predict([X.copy()], Y, [X[:2].copy()], [0.0], [0, 1, 2, 3], [4, 5])


def test_held_out_ridge_rejects_rows_that_are_not_disjoint_indices_of_the_training_rows():
    train, test, Y, fit_rows, validation_rows = _held_out_problem(23, n=40, m=5)
    fit_rows, validation_rows = np.arange(20), np.arange(20, 30)
    cases = [
        (dict(fit_rows=np.arange(10, 25)), "share rows: the held-out rows must not be fitted"),
        (dict(fit_rows=[0, 1, 1]), "fit_rows repeats a row"),
        (dict(validation_rows=[38, 40]), "validation_rows must index the 40 training rows, got indices from 38 to 40"),
        (dict(validation_rows=[-1, 30]), "must index the 40 training rows"),
        (dict(fit_rows=[]), "fit_rows must be a non-empty 1-d array of row indices"),
        (dict(fit_rows=np.array([0.0, 1.0])), "fit_rows must be a non-empty 1-d array of row indices, got float64"),
        (dict(validation_rows=np.arange(20, 30).reshape(2, 5)), "validation_rows must be a non-empty 1-d array"),
        (dict(score="accuracy"), "score must be a function"),
        (dict(jitters=[]), "non-empty list"),
    ]
    for change, words in cases:
        kwargs = dict(train_views=[v.copy() for v in train], Y=Y, test_views=[v.copy() for v in test],
                      jitters=[1e-3], fit_rows=fit_rows, validation_rows=validation_rows) | change
        with pytest.raises(ValueError, match=words):
            held_out_kernel_ridge_predict(**kwargs)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_the_arccos_transform_gives_the_same_bits_in_any_tiles_and_threads(monkeypatch, dtype):
    """The kernel's elementwise transform runs in cache-sized tiles split between threads: every value
    goes through the same float operations as one whole-array pass, so the bits are the same."""
    import greenelm.kernels as kernels

    rng = np.random.default_rng(15)
    norms_a, norms_b = rng.uniform(0.5, 3, 41), rng.uniform(0.5, 3, 300)
    products = (rng.uniform(-1.05, 1.05, (41, 300)) * np.multiply.outer(norms_a, norms_b)).astype(dtype)
    whole = products.copy()
    kernels._arccos_tile(whole, norms_a, norms_b)                       # one pass over the whole array
    np.testing.assert_allclose(whole, arccos_kernel_from(products, norms_a, norms_b), rtol=1e-5, atol=1e-6)
    for tile, threads in [(7, 1), (7, 2), (128, 3), (1 << 15, 2)]:
        monkeypatch.setattr(kernels, "ARCCOS_TILE_VALUES", tile)
        monkeypatch.setattr(kernels, "ARCCOS_THREADED_TILES", 2)
        monkeypatch.setattr(kernels, "blas_threads", lambda: threads)
        tiled = kernels._arccos_from_products(products.copy(), norms_a, norms_b)
        assert tiled.dtype == dtype and np.array_equal(tiled, whole), (tile, threads)


def arccos_kernel_from(products, norms_a, norms_b):
    """The degree-1 arc-cosine kernel from inner products and norms, in float64, by the formula."""
    cos = np.clip(products.astype(np.float64) / np.multiply.outer(norms_a, norms_b), -1, 1)
    theta = np.arccos(cos)
    return np.multiply.outer(norms_a, norms_b) * (np.sin(theta) + (np.pi - theta) * cos) / (2 * np.pi)
