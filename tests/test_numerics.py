"""Numerics that fail loudly: overflowing inputs, singular systems, and the float32 Gram remedy."""

import numpy as np
import pytest
from scipy.linalg import blas

import greenelm.solvers as solvers
from greenelm.estimator import ELMClassifier, ELMRegressor
from greenelm.solvers import (FLOAT32_BLOCK_ROWS, GramSpectrum, NormalEquations,
                              NumericalOverflowError, solve, solve_min_norm, solve_normal_equations)

ESTIMATORS = (ELMClassifier, ELMRegressor)
OVERFLOWING_FITS = [(1e200, "float64"), (1e155, "float64"), (1e20, "float32")]


def data(n=200, n_inputs=8, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.random((n, n_inputs))
    return X, (X[:, 0] + X[:, 1] > 1).astype(int)


def offset_problem(n=16384, d=8, offset=1000.0, seed=0):
    """Float32 columns with a large common offset: H (n, d) = offset + U(0, 1), Y (n, 2).

    cond(HᵀH) ≈ 1e8: the float32 rounding of a Gram summed over all rows is far above its
    small eigenvalues, while the float32 rows themselves keep the noise to 6e-5 relative."""
    rng = np.random.default_rng(seed)
    H = (offset + rng.random((n, d))).astype(np.float32)
    Y = H[:, :2].astype(np.float64) @ np.array([[1.0, -1.0], [2.0, 0.5]])
    Y += rng.standard_normal((n, 2))
    return H, Y.astype(np.float32)


def float64_reference(H, Y, alpha):
    """The ridge readout from the float64 Gram of the same (float32-rounded) rows."""
    H, Y = H.astype(np.float64), Y.astype(np.float64)
    return np.linalg.solve(H.T @ H + alpha * np.eye(H.shape[1]), H.T @ Y)


# -- overflowing inputs ------------------------------------------------------------------------
@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("scale,dtype", OVERFLOWING_FITS, ids=lambda v: f"{v:g}" if isinstance(v, float) else v)
@pytest.mark.parametrize("solver", ["cholesky", "lu", "eigh"])
@pytest.mark.parametrize("Estimator", ESTIMATORS, ids=lambda c: c.__name__)
def test_fit_on_overflowing_inputs_names_overflow_and_the_input_scale(Estimator, solver, scale, dtype):
    X, y = data()
    model = Estimator(n_hidden=30, solver=solver, dtype=dtype)
    with pytest.raises(NumericalOverflowError, match="overflowed") as error:
        model.fit(X * scale, y)
    message = str(error.value)
    assert isinstance(error.value, ValueError)
    assert f"max |X| = {scale:.3g}" in message and "scale X down" in message
    assert f"{dtype} limit" in message and "HᵀH" in message
    assert not hasattr(model, "coef_"), "a failed fit must not leave a readout behind"


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("Estimator", ESTIMATORS, ids=lambda c: c.__name__)
@pytest.mark.parametrize("method", ["normal", "rls"])
def test_partial_fit_on_overflowing_inputs_fails_loudly(Estimator, method):
    X, y = data()
    model = Estimator(n_hidden=30, partial_fit_method=method)
    extra = {"classes": [0, 1]} if Estimator is ELMClassifier else {}
    with pytest.raises(NumericalOverflowError, match=r"overflow.*max \|X\| = 1e\+200"):
        model.partial_fit(X * 1e200, y, **extra)
    assert not hasattr(model, "coef_")
    # and on a later call, after a clean first one
    model = Estimator(n_hidden=30, partial_fit_method=method).partial_fit(X, y, **extra)
    with pytest.raises(NumericalOverflowError, match=r"overflow.*max \|X\| = 1e\+200"):
        model.partial_fit(X * 1e200, y)
    assert not hasattr(model, "coef_")


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("Estimator", ESTIMATORS, ids=lambda c: c.__name__)
def test_pinv_fits_huge_finite_features_exactly_and_refuses_overflowed_ones(Estimator):
    X, y = data()
    # float64 features of 1e156..1e201 are finite: the SVD (which scales internally) solves it.
    for scale in (1e155, 1e200):
        model = Estimator(n_hidden=30, solver="pinv").fit(X * scale, y)
        H = model.features_.transform(X * scale)
        Y = np.eye(2)[y] if Estimator is ELMClassifier else y[:, None].astype(float)
        gradient = H.T @ (H @ model.coef_ - Y)        # least squares: Hᵀ(HW − Y) = 0
        assert np.isfinite(model.coef_).all()
        assert np.abs(gradient).max() < 1e-9 * np.abs(H).max() * np.abs(Y).max() * len(H)
    # float32 features of X · 1e200 are inf (X itself does not fit in float32).
    model = Estimator(n_hidden=30, solver="pinv", dtype="float32")
    with pytest.raises(NumericalOverflowError, match=r"features.*overflowed.*max \|X\| = 1e\+200"):
        model.fit(X * 1e200, y)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("scale,dtype", [(1e308, "float64"), (1e40, "float32"), (1e200, "float32")],
                         ids=["f64x1e308", "f32x1e40", "f32x1e200"])
@pytest.mark.parametrize("Estimator", ESTIMATORS, ids=lambda c: c.__name__)
def test_predict_with_overflowing_scores_names_overflow_and_the_input_scale(Estimator, scale, dtype):
    X, y = data()
    model = Estimator(n_hidden=30, dtype=dtype).fit(X, y)
    methods = [model.predict] + ([model.decision_function] if Estimator is ELMClassifier else [])
    for method in methods:
        with pytest.raises(NumericalOverflowError, match=r"scores .* hold inf or NaN") as error:
            method(X * scale)
        assert f"max |X| = {scale:.3g}" in str(error.value) and f"{dtype} limit" in str(error.value)
    # large inputs whose scores stay representable predict without error: nothing overflowed
    assert model.predict(X * 1e30).shape == (len(X),)


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf], ids=["nan", "inf", "-inf"])
@pytest.mark.parametrize("Estimator", ESTIMATORS, ids=lambda c: c.__name__)
def test_inputs_with_nan_or_inf_are_refused_by_validation(Estimator, bad):
    X, y = data()
    broken = X.copy()
    broken[3, 2] = bad
    words = "NaN" if np.isnan(bad) else "infinity"
    with pytest.raises(ValueError, match=f"Input X contains {words}"):
        Estimator(n_hidden=10).fit(broken, y)
    model = Estimator(n_hidden=10).fit(X, y)
    with pytest.raises(ValueError, match=f"Input X contains {words}"):
        model.predict(broken)
    if Estimator is ELMRegressor:
        targets = y.astype(float)
        targets[5] = bad
        with pytest.raises(ValueError, match=f"Input y contains {words}"):
            Estimator(n_hidden=10).fit(X, targets)


# -- singular systems --------------------------------------------------------------------------
def duplicated_column_problem():
    """H (120, 10) whose last column repeats the first: HᵀH is exactly singular."""
    rng = np.random.default_rng(4)
    H = rng.standard_normal((120, 10))
    H[:, -1] = H[:, 0]
    return H, rng.standard_normal((120, 2))


@pytest.mark.parametrize("solver", ["cholesky", "lu"])
def test_singular_system_at_lambda_zero_is_an_error_not_nan(solver):
    H, Y = duplicated_column_problem()
    equations = NormalEquations(10, 2)
    equations.update(H, Y)
    with pytest.raises(np.linalg.LinAlgError, match=r"singular at λ = 0 .*raise alpha"):
        solve(equations, solver, 0.0)
    # a λ well above the rounding floor regularises it
    assert np.isfinite(solve(equations, solver, 1e-6)).all()


def test_singular_system_at_lambda_zero_gives_the_minimum_norm_solution_with_eigh_and_pinv():
    H, Y = duplicated_column_problem()
    equations = NormalEquations(10, 2)
    equations.update(H, Y)
    minimum_norm = np.linalg.pinv(H) @ Y
    np.testing.assert_allclose(solve(equations, "eigh", 0.0), minimum_norm, rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(solve_min_norm(H, Y), minimum_norm, rtol=1e-8, atol=1e-10)
    # the minimum-norm solution splits the duplicated column's weight evenly
    np.testing.assert_allclose(minimum_norm[0], minimum_norm[-1], rtol=1e-8)


@pytest.mark.parametrize("Estimator", ESTIMATORS, ids=lambda c: c.__name__)
def test_estimator_with_more_features_than_samples_at_alpha_zero(Estimator):
    X, y = data(n=15)
    with pytest.raises(np.linalg.LinAlgError, match=r"singular at λ = 0.*n_hidden > n_samples"):
        Estimator(n_hidden=40, alpha=0.0, solver="cholesky").fit(X, y)
    model = Estimator(n_hidden=40, alpha=0.0, solver="eigh").fit(X, y)
    Y = np.eye(2)[y] if Estimator is ELMClassifier else y[:, None].astype(float)
    np.testing.assert_allclose(model.coef_, np.linalg.pinv(model.features_.transform(X)) @ Y,
                               rtol=1e-6, atol=1e-8)


def test_torch_solves_fail_loudly_too():
    torch = pytest.importorskip("torch")
    H, Y = duplicated_column_problem()
    G, B = torch.as_tensor(H.T @ H), torch.as_tensor(H.T @ Y)
    with pytest.raises(np.linalg.LinAlgError, match="singular at λ = 0"):
        solve_normal_equations(G, B, 0.0, "cholesky")
    G[0, 0] = float("inf")
    with pytest.raises(NumericalOverflowError, match="HᵀH / HᵀY hold inf or NaN"):
        solve_normal_equations(G, B, 1e-3, "lu")


def test_nonfinite_sums_are_refused_by_every_normal_equation_solver():
    G, B = np.eye(4), np.ones((4, 1))
    G[1, 2] = np.nan
    for solver in ("cholesky", "lu", "eigh"):
        with pytest.raises(NumericalOverflowError, match=r"features relu\(XW \+ b\).*overflowed"):
            solve_normal_equations(G, B, 1e-3, solver)
    with pytest.raises(NumericalOverflowError, match="squared-feature sums"):
        GramSpectrum(G)


def test_eigh_keeps_rounding_negative_eigenvalues_from_blowing_up():
    # A PSD Gram of rank 1 whose zero eigenvalues came out slightly negative from rounding.
    v = np.arange(1.0, 5.0)
    G = np.outer(v, v) - 1e-12 * np.eye(4)
    W = GramSpectrum(G).weights(np.ones((4, 1)), 1e-12)
    assert np.isfinite(W).all() and np.abs(W).max() < 1e13   # 1/(max(s,0)+λ) ≤ 1/λ


# -- the float32 Gram remedy -------------------------------------------------------------------
def plain_float32_gram(H, Y):
    """The old float32 accumulation: one float32 syrk over all rows (the defect)."""
    G = blas.ssyrk(1.0, H.T, trans=0, lower=0)
    return np.asarray(G, dtype=np.float64), (H.T @ Y).astype(np.float64)


def test_plain_float32_gram_fails_on_the_offset_problem():
    H, Y = offset_problem()
    with pytest.raises(np.linalg.LinAlgError, match="not positive definite|singular"):
        solve_normal_equations(*plain_float32_gram(H, Y), 1e-3, "cholesky")


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("solver", ["cholesky", "lu", "eigh"])
def test_float32_remedy_matches_float64_on_the_offset_problem(solver, seed):
    H, Y = offset_problem(seed=seed)
    equations = NormalEquations(H.shape[1], 2, "float32")
    for start in range(0, len(H), 5000):          # uneven updates, split again into 4096-row blocks
        equations.update(H[start:start + 5000], Y[start:start + 5000])
    reference = float64_reference(H, Y, 1e-3)
    W2 = solve(equations, solver, 1e-3)
    # measured: ≤ 1e-4 relative; the plain float32 Gram is off by O(1) or not positive definite
    np.testing.assert_allclose(W2, reference, rtol=0, atol=1e-3 * np.abs(reference).max())
    assert equations.gram.dtype == np.float64 and equations.n_samples == len(H)


def test_float32_remedy_gram_is_the_gram_of_the_float32_rows():
    H, Y = offset_problem(n=9000, d=5)
    equations = NormalEquations(5, 2, "float32")
    equations.update(H, Y)
    H64 = H.astype(np.float64)
    upper = np.triu(H64.T @ H64)
    np.testing.assert_allclose(np.triu(equations.gram), upper, rtol=1e-9)
    assert (np.tril(equations.gram, -1) == 0).all()
    np.testing.assert_allclose(equations.hty, H64.T @ Y.astype(np.float64), rtol=1e-9)


def test_the_remedy_is_what_an_estimator_float32_fit_runs(monkeypatch):
    """Spy on the float32 syrk during ELMRegressor(dtype='float32').fit: every product is of a
    centred block of at most FLOAT32_BLOCK_ROWS rows with the targets beside it (H̃ᵀY from the
    same syrk), and the sums it feeds are float64."""
    rng = np.random.default_rng(5)
    X = 50.0 + rng.random((9000, 6))                # the inputs' offset makes the features' offset
    y = X[:, 0] - 2 * X[:, 1] + 0.1 * rng.standard_normal(len(X))
    calls = []
    real_ssyrk = blas.ssyrk

    def spy(alpha, a, **kwargs):
        block = np.asarray(a).T                       # syrk gets [H̃ Y]ᵀ
        assert block.shape[1] == 20 + 1               # d features, then the k = 1 target
        features = block[:, :20]
        calls.append((block.shape[0], np.abs(features.mean(axis=0)).max() / np.abs(features).max()))
        return real_ssyrk(alpha, a, **kwargs)

    monkeypatch.setattr(solvers.blas, "ssyrk", spy)
    f32 = ELMRegressor(n_hidden=20, dtype="float32", chunk_size=5000).fit(X, y)
    monkeypatch.undo()
    f64 = ELMRegressor(n_hidden=20, dtype="float64", chunk_size=5000).fit(X, y)
    assert [rows for rows, _ in calls] == [4096, 904, 4000]
    assert max(mean for _, mean in calls) < 1e-3     # centred on the block's column means
    assert f32.equations_.gram.dtype == np.float64
    np.testing.assert_allclose(f32.predict(X), f64.predict(X), rtol=1e-4)
    assert FLOAT32_BLOCK_ROWS == 4096


def test_float32_remedy_on_torch_matches_numpy(torch_device):
    torch = pytest.importorskip("torch")
    H, Y = offset_problem(n=9000, d=6)
    on_torch = NormalEquations(6, 2, "float32", device=torch_device)
    on_torch.update(torch.as_tensor(H, device=torch_device), torch.as_tensor(Y, device=torch_device))
    on_numpy = NormalEquations(6, 2, "float32")
    on_numpy.update(H, Y)
    assert on_torch.gram.dtype == torch.float64
    reference = float64_reference(H, Y, 1e-3)
    for equations in (on_torch, on_numpy):
        np.testing.assert_allclose(solve(equations, "cholesky", 1e-3), reference, rtol=0,
                                   atol=1e-3 * np.abs(reference).max())


def test_float32_sums_add_and_pickle_without_their_scratch_space():
    import pickle

    H, Y = offset_problem(n=6000, d=5)
    left, right = NormalEquations(5, 2, "float32"), NormalEquations(5, 2, "float32")
    left.update(H[:2500], Y[:2500])
    right.update(H[2500:], Y[2500:])
    whole = NormalEquations(5, 2, "float32")
    whole.update(H, Y)
    both = left + right
    np.testing.assert_allclose(both.gram, whole.gram, rtol=1e-9)
    assert both.n_samples == 6000 and both._scratch is None
    again = pickle.loads(pickle.dumps(left))
    assert again._scratch is None and again.dtype == "float32"
    np.testing.assert_array_equal(again.gram, left.gram)


def test_normal_equations_take_float32_or_float64_by_any_name_and_refuse_others():
    assert NormalEquations(3, 1, np.float32).dtype == "float32"
    assert NormalEquations(3, 1, np.dtype("float64")).dtype == "float64"
    with pytest.raises(ValueError, match="dtype must be 'float32' or 'float64', got 'float16'"):
        NormalEquations(3, 1, "float16")


def test_float32_blocks_add_the_whole_upper_triangle_across_column_bands():
    """d = 1,100 spans three bands of TRIANGLE_BAND columns (the last one partial): every upper entry
    is HᵀH to float32 accuracy, HᵀY too, and the lower triangle stays zero."""
    assert solvers.TRIANGLE_BAND == 512
    rng = np.random.default_rng(11)
    H = (3.0 + rng.random((700, 1100))).astype(np.float32)
    Y = rng.random((700, 3)).astype(np.float32)
    equations = NormalEquations(1100, 3, "float32", block_rows=256)
    equations.update(H[:450], Y[:450])
    equations.update(H[450:], Y[450:])
    H64 = H.astype(np.float64)
    expected = H64.T @ H64
    gram = equations.gram
    np.testing.assert_allclose(np.triu(gram), np.triu(expected), rtol=2e-6)
    assert (np.tril(gram, -1) == 0).all()
    np.testing.assert_allclose(equations.hty, H64.T @ Y.astype(np.float64), rtol=2e-6)
