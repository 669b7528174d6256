"""The scikit-learn API: sample weights, random_state, device checks, the CV estimators, the transformer."""

from __future__ import annotations

import importlib.util
import sys
import warnings

import numpy as np
import pytest
from sklearn.linear_model import Ridge
from sklearn.pipeline import make_pipeline
from sklearn.utils.estimator_checks import parametrize_with_checks

from greenelm import (ELMClassifier, ELMClassifierCV, ELMRegressor, ELMRegressorCV, RandomReLUFeatures,
                      RandomReLUTransformer)
from greenelm.estimator import DEFAULT_RELATIVE_ALPHAS


def regression(n=120, d=5, k=2, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    Y = np.column_stack([np.sin(X[:, 0]) * X[:, 1], X[:, 2] ** 2 - X[:, 3]])[:, :k]
    return X, Y + 0.1 * rng.standard_normal(Y.shape)


def classification(n=150, d=4, k=3, seed=0):
    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((k, d)) * 2
    y = rng.integers(0, k, n)
    return centres[y] + rng.standard_normal((n, d)), y


def relative(a, b) -> float:
    return float(np.linalg.norm(a - b) / np.linalg.norm(b))


# -- scikit-learn's own checks ----------------------------------------------------------------
HAS_TORCH = importlib.util.find_spec("torch") is not None
CHECKED = [ELMClassifier(n_hidden=50), ELMRegressor(n_hidden=50), ELMClassifierCV(n_hidden=50),
           ELMRegressorCV(n_hidden=50), RandomReLUTransformer(n_hidden=50),
           # variants with their own code paths
           ELMClassifier(n_hidden=50, solver="pinv"), ELMRegressor(n_hidden=50, alpha=0.1, partial_fit_method="rls"),
           ELMClassifierCV(n_hidden=50, cv="gcv", solver="eigh"), ELMClassifierCV(n_hidden=50, scoring="accuracy"),
           RandomReLUTransformer(n_hidden=50, dtype="float32", weight_scale="he", bias="uniform")]
if HAS_TORCH:
    CHECKED += [ELMRegressor(n_hidden=50, device="cpu"), RandomReLUTransformer(n_hidden=50, device="cpu")]
# float32 features: every check but three, which compare results at float64 tolerances (1e-7) that
# float32 rounding of the features does not meet; the logic they test is checked in float64 above
CHECKED += [ELMClassifier(n_hidden=50, dtype="float32"), ELMRegressor(n_hidden=50, dtype="float32")]
FLOAT32_TOLERANCE = "float32 features round beyond the check's float64 tolerance"


CV_WEIGHTS = ("λ is chosen by leaving out whole rows: a weight of 2 is not two repeats for the CV "
              "criterion (as scikit-learn's RidgeCV)")


def expected_failures(estimator) -> dict:
    if getattr(estimator, "dtype", None) == "float32" and not isinstance(estimator, RandomReLUTransformer):
        return {"check_sample_weight_equivalence_on_dense_data": FLOAT32_TOLERANCE,
                "check_sample_weight_equivalence_on_sparse_data": FLOAT32_TOLERANCE,
                "check_methods_subset_invariance": FLOAT32_TOLERANCE}
    return {}


@parametrize_with_checks(CHECKED, expected_failed_checks=expected_failures)
def test_scikit_learn_checks(estimator, check):
    name = getattr(check, "func", check).__name__
    if isinstance(estimator, (ELMClassifierCV, ELMRegressorCV)) and name.startswith("check_sample_weight_equivalence"):
        pytest.skip(CV_WEIGHTS)      # not applicable by design (it passes only when both λ choices coincide)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*end|.*value of the alphas grid", category=UserWarning)
        check(estimator)


# -- sample_weight --------------------------------------------------------------------------
FITS = [("cholesky", None), ("lu", None), ("eigh", None), ("pinv", None), ("cholesky", "normal"),
        ("eigh", "normal"), ("cholesky", "rls")]


def fit_weighted(X, Y, weights, solver, partial, chunk_size=32):
    """coef_ of an ELMRegressor fitted with fit (partial None) or partial_fit over 3 blocks."""
    model = ELMRegressor(n_hidden=40, alpha=0.1, solver=solver, chunk_size=chunk_size, random_state=3,
                         partial_fit_method=partial or "normal")
    if partial is None:
        return model.fit(X, Y, sample_weight=weights).coef_
    for rows in np.array_split(np.arange(len(X)), 3):
        model.partial_fit(X[rows], Y[rows], sample_weight=None if weights is None else weights[rows])
    return model.coef_


@pytest.mark.parametrize("solver, partial", FITS)
def test_weight_two_equals_a_repeated_row_and_zero_a_dropped_one(solver, partial):
    X, Y = regression()
    weights = np.ones(len(X))
    weights[[5, 17, 60]] = 2.0
    weights[[8, 90]] = 0.0
    # the same rows with row 5, 17, 60 repeated in place and rows 8, 90 left out
    order = np.repeat(np.arange(len(X)), weights.astype(int))
    weighted = fit_weighted(X, Y, weights, solver, partial)
    repeated = fit_weighted(X[order], Y[order], None, solver, partial)
    assert relative(weighted, repeated) <= 1e-10


@pytest.mark.parametrize("solver, partial", FITS)
def test_unit_weights_equal_no_weights_exactly(solver, partial):
    X, Y = regression()
    np.testing.assert_array_equal(fit_weighted(X, Y, np.ones(len(X)), solver, partial),
                                  fit_weighted(X, Y, None, solver, partial))


def test_weighted_partial_fit_over_chunks_equals_weighted_fit_for_the_classifier():
    X, y = classification()
    weights = np.random.default_rng(1).uniform(0, 3, len(X))
    whole = ELMClassifier(n_hidden=60, alpha=0.01).fit(X, y, sample_weight=weights)
    chunked = ELMClassifier(n_hidden=60, alpha=0.01)
    for rows in np.array_split(np.arange(len(X)), 4):
        chunked.partial_fit(X[rows], y[rows], classes=[0, 1, 2], sample_weight=weights[rows])
    assert relative(chunked.coef_, whole.coef_) <= 1e-10
    unweighted = ELMClassifier(n_hidden=60, alpha=0.01).fit(X, y)
    assert relative(whole.coef_, unweighted.coef_) > 1e-3      # the weights did change the readout


def test_weighted_fit_on_torch_matches_numpy(torch_device):
    X, Y = regression()
    weights = np.random.default_rng(2).uniform(0, 2, len(X))
    numpy_model = ELMRegressor(n_hidden=40, alpha=0.1).fit(X, Y, sample_weight=weights)
    torch_model = ELMRegressor(n_hidden=40, alpha=0.1, device=torch_device).fit(X, Y, sample_weight=weights)
    np.testing.assert_allclose(torch_model.coef_, numpy_model.coef_, rtol=1e-8, atol=1e-10)


def test_weights_that_leave_one_class_are_refused():
    X, y = classification()
    with pytest.raises(ValueError, match="sample_weight leaves 1 class with positive weight"):
        ELMClassifier(n_hidden=20).fit(X, y, sample_weight=(y == 1).astype(float))


def test_metadata_routing_passes_sample_weight_through_a_pipeline():
    import sklearn

    X, Y = regression()
    weights = np.random.default_rng(3).uniform(0, 2, len(X))
    with sklearn.config_context(enable_metadata_routing=True):
        pipeline = make_pipeline(RandomReLUTransformer(40, random_state=3),
                                 Ridge(0.1, fit_intercept=False, solver="cholesky")
                                 .set_fit_request(sample_weight=True))
        routed = make_pipeline(ELMRegressor(n_hidden=40, alpha=0.1, random_state=3)
                               .set_fit_request(sample_weight=True))
        pipeline.fit(X, Y, sample_weight=weights)
        routed.fit(X, Y, sample_weight=weights)
    np.testing.assert_allclose(routed.predict(X), pipeline.predict(X), rtol=1e-7, atol=1e-9)


# -- random_state -----------------------------------------------------------------------------
@pytest.mark.parametrize("make", [lambda: None, lambda: 7, lambda: np.int64(7),
                                  lambda: np.random.RandomState(4), lambda: np.random.default_rng(4)],
                         ids=["None", "int", "np.int64", "RandomState", "Generator"])
def test_seed_reproduces_the_model(make):
    X, y = classification()
    model = ELMClassifier(n_hidden=30, random_state=make()).fit(X, y)
    again = ELMClassifier(n_hidden=30, random_state=model.seed_).fit(X, y)
    np.testing.assert_array_equal(again.coef_, model.coef_)


def test_generators_follow_scikit_learn_conventions():
    X, y = classification()
    # equal generator states give equal models; one generator gives a new draw per fit
    first = ELMClassifier(n_hidden=30, random_state=np.random.RandomState(9)).fit(X, y)
    second = ELMClassifier(n_hidden=30, random_state=np.random.RandomState(9)).fit(X, y)
    assert first.seed_ == second.seed_
    shared = np.random.default_rng(9)
    seeds = {ELMClassifier(n_hidden=30, random_state=shared).fit(X, y).seed_ for _ in range(3)}
    assert len(seeds) == 3
    assert ELMClassifier(n_hidden=30, random_state=11).fit(X, y).seed_ == 11


# -- device ---------------------------------------------------------------------------------
def test_cuda_without_a_gpu_fails_at_fit_with_a_clear_error():
    torch = pytest.importorskip("torch")
    if torch.cuda.is_available():
        pytest.skip("this machine has CUDA")
    X, y = classification()
    model = ELMClassifier(n_hidden=10, device="cuda")            # construction never fails
    with pytest.raises(RuntimeError, match=r"device='cuda' asks for CUDA, but torch.cuda.is_available\(\) "
                                           r"is False"):
        model.fit(X, y)
    with pytest.raises(RuntimeError, match="asks for CUDA"):
        RandomReLUTransformer(10, device="cuda:0").fit(X)


def test_a_device_without_torch_names_the_torch_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "torch", None)              # import torch now raises ImportError
    X, y = classification()
    with pytest.raises(ImportError, match=r"needs PyTorch.*pip install greenelm\[torch\]"):
        ELMClassifier(n_hidden=10, device="cpu").fit(X, y)
    ELMClassifier(n_hidden=10).fit(X, y)                          # the NumPy path needs no torch


def test_torch_cpu_device_is_accepted_as_string_or_torch_device():
    torch = pytest.importorskip("torch")
    X, y = classification()
    for device in ("cpu", torch.device("cpu")):
        model = ELMClassifier(n_hidden=20, device=device).fit(X, y)
        np.testing.assert_allclose(model.coef_, ELMClassifier(n_hidden=20).fit(X, y).coef_, rtol=1e-8)


# -- the cross-validated estimators ------------------------------------------------------------
ALPHAS = np.array([1e-3, 1e-2, 1e-1, 1.0, 10.0, 100.0])


def test_exact_leave_one_out_equals_n_refits():
    X, Y = regression(n=30, d=4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        model = ELMRegressorCV(n_hidden=20, alphas=ALPHAS, random_state=2).fit(X, Y)
    brute = []
    for alpha in ALPHAS:
        errors = 0.0
        for j in range(len(X)):
            keep = np.arange(len(X)) != j
            refit = ELMRegressor(n_hidden=20, alpha=alpha, random_state=2).fit(X[keep], Y[keep])
            errors += np.sum((refit.predict(X[j:j + 1]) - Y[j]) ** 2)
        brute.append(errors / len(X))
    np.testing.assert_allclose(model.cv_results_["loo_mse"], brute, rtol=1e-6)
    assert model.alpha_ == ALPHAS[np.argmin(brute)]
    assert model.best_score_ == pytest.approx(min(brute), rel=1e-6)
    base = ELMRegressor(n_hidden=20, alpha=model.alpha_, random_state=2).fit(X, Y)
    np.testing.assert_allclose(model.coef_, base.coef_, rtol=1e-10, atol=1e-12)


def test_leave_one_out_accuracy_equals_n_refits_and_ties_go_to_the_larger_alpha():
    X, y = classification(n=40, seed=3)
    X += 0.5 * np.random.default_rng(4).standard_normal(X.shape)    # overlapping classes
    alphas = np.r_[ALPHAS, 1e4, 1e6, 1e8]
    model = ELMClassifierCV(n_hidden=25, alphas=alphas, scoring="accuracy").fit(X, y)
    brute = []
    for alpha in alphas:
        hits = sum(ELMClassifier(n_hidden=25, alpha=alpha).fit(np.delete(X, j, 0), np.delete(y, j))
                   .predict(X[j:j + 1])[0] == y[j] for j in range(len(X)))
        brute.append(100 * hits / len(X))
    np.testing.assert_allclose(model.cv_results_["loo_accuracy"], brute)
    best = np.flatnonzero(np.array(brute) == max(brute))
    assert len(best) > 1 and best.max() < len(alphas) - 1       # a tie inside the grid
    assert model.alpha_ == alphas[best].max()
    assert model.best_score_ == max(brute)


def test_gcv_equals_the_hat_matrix_formula():
    X, Y = regression(n=60, d=4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        model = ELMRegressorCV(n_hidden=30, alphas=ALPHAS, cv="gcv").fit(X, Y)
    H = model.features_.transform(X)
    expected = []
    for alpha in ALPHAS:
        S = H @ np.linalg.solve(H.T @ H + alpha * np.eye(30), H.T)
        expected.append(len(X) * np.sum((Y - S @ Y) ** 2) / (len(X) - np.trace(S)) ** 2)
    np.testing.assert_allclose(model.cv_results_["gcv"], expected, rtol=1e-7)
    assert model.alpha_ == ALPHAS[np.argmin(expected)]
    assert "loo_mse" not in model.cv_results_


@pytest.mark.parametrize("solver", ["cholesky", "lu", "eigh"])
@pytest.mark.parametrize("cv", ["loo", "gcv"])
def test_cv_estimators_predict_as_the_base_estimator_refitted_at_alpha(solver, cv):
    X, y = classification()
    classifier = ELMClassifierCV(n_hidden=60, alphas=np.logspace(-3, 3, 7), cv=cv, solver=solver).fit(X, y)
    base = ELMClassifier(n_hidden=60, alpha=classifier.alpha_, solver=solver).fit(X, y)
    np.testing.assert_allclose(classifier.decision_function(X), base.decision_function(X), rtol=1e-9,
                               atol=1e-10)
    np.testing.assert_array_equal(classifier.predict(X), base.predict(X))
    Xr, Y = regression()
    regressor = ELMRegressorCV(n_hidden=40, alphas=np.logspace(-3, 3, 7), cv=cv, solver=solver).fit(Xr, Y[:, 0])
    base = ELMRegressor(n_hidden=40, alpha=regressor.alpha_, solver=solver).fit(Xr, Y[:, 0])
    assert regressor.predict(Xr).shape == (len(Xr),)
    np.testing.assert_allclose(regressor.predict(Xr), base.predict(Xr), rtol=1e-9, atol=1e-10)


def test_default_grid_follows_the_mean_eigenvalue_of_the_gram():
    X, Y = regression()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        model = ELMRegressorCV(n_hidden=30, cv="gcv").fit(X, Y)
    H = model.features_.transform(X)
    np.testing.assert_allclose(model.alphas_, DEFAULT_RELATIVE_ALPHAS * np.trace(H.T @ H) / 30, rtol=1e-12)
    assert set(model.cv_results_) == {"alpha", "dof", "train_rss", "gcv"}
    assert all(column.shape == (10,) for column in model.cv_results_.values())


def test_a_choice_at_the_end_of_the_grid_warns():
    X, Y = regression()
    noise = np.random.default_rng(5).standard_normal(len(X))      # no signal: the most shrinkage wins
    with pytest.warns(UserWarning, match=r"alpha_=1 is the largest value of the alphas grid \[0.01, 1\]"):
        ELMRegressorCV(n_hidden=30, alphas=[1e-2, 1e-1, 1.0]).fit(X, noise)
    with pytest.warns(UserWarning, match="smallest value of the alphas grid"):
        ELMRegressorCV(n_hidden=30, alphas=[1e-3, 1e5, 1e6]).fit(X, Y)
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)               # one λ: no end to warn about
        ELMRegressorCV(n_hidden=30, alphas=[1.0]).fit(X, Y)


def test_cv_estimators_have_no_partial_fit():
    assert not hasattr(ELMClassifierCV(), "partial_fit") and not hasattr(ELMRegressorCV(), "partial_fit")
    assert hasattr(ELMClassifier(), "partial_fit")


# -- the transformer --------------------------------------------------------------------------
@pytest.mark.parametrize("options", [{}, {"weight_scale": "he", "bias": "uniform"}, {"dtype": "float32"}])
def test_transformer_features_equal_random_relu_features_exactly(options):
    X, _ = regression()
    transformer = RandomReLUTransformer(n_hidden=70, random_state=5, **options).fit(X)
    expected = RandomReLUFeatures(X.shape[1], 70, 5, **options).transform(X)
    features = transformer.transform(X)
    assert type(features) is np.ndarray and features.dtype == expected.dtype
    np.testing.assert_array_equal(features, expected)


@pytest.mark.parametrize("container", ["csr_matrix", "csc_matrix", "csr_array", "coo_matrix"])
@pytest.mark.parametrize("options", [{}, {"dtype": "float32"}] + ([{"device": "cpu"}] if HAS_TORCH else []))
def test_transformer_takes_sparse_input_and_gives_the_dense_features(container, options):
    import scipy.sparse

    X, _ = regression()
    X[np.abs(X) < 1.0] = 0                                   # mostly zeros
    sparse = getattr(scipy.sparse, container)(X)
    transformer = RandomReLUTransformer(n_hidden=70, random_state=5, **options)
    from_sparse = transformer.fit(sparse).transform(sparse)
    dense = RandomReLUTransformer(n_hidden=70, random_state=5, **options).fit(X).transform(X)
    assert type(from_sparse) is np.ndarray and from_sparse.dtype == dense.dtype
    assert transformer.n_features_in_ == X.shape[1]
    tolerance = 1e-10 if options.get("dtype", "float64") == "float64" else 1e-6
    assert np.abs(from_sparse - dense).max() <= tolerance * np.abs(dense).max()
    assert transformer.__sklearn_tags__().input_tags.sparse
    with pytest.raises(ValueError, match=f"X has {X.shape[1] + 1} features, but RandomReLUTransformer is "
                                         f"expecting {X.shape[1]} features"):
        transformer.transform(scipy.sparse.csr_matrix(np.ones((2, X.shape[1] + 1))))


def test_feature_chunks_reusing_one_buffer_equal_fresh_blocks():
    X, _ = regression()
    features = RandomReLUFeatures(X.shape[1], 40, seed=2)
    fresh = [(rows, H.copy()) for rows, H in features.chunks(X, 33)]
    reused = list(features.chunks(X, 33, reuse=True))
    assert [rows for rows, _ in reused] == [rows for rows, _ in fresh]
    assert len({H.__array_interface__["data"][0] for _, H in reused}) == 1     # one buffer
    for (rows, H), (_, reference) in zip(features.chunks(X, 33, reuse=True), fresh):
        np.testing.assert_array_equal(H, reference)                          # bit for bit
        np.testing.assert_array_equal(H, features.transform(X[rows]))
        # SciPy's gemm gives NumPy's matmul bit for bit (one BLAS pool for the features and syrk)
        np.testing.assert_array_equal(H, np.maximum(X[rows] @ features.W + features.b, 0))
    with pytest.raises(ValueError, match="out must be a C-ordered NumPy array of shape"):
        features.transform(X[:5], out=np.empty((5, 40), order="F"))


def test_pipeline_of_transformer_and_ridge_is_the_elm_regressor():
    X, Y = regression()
    pipeline = make_pipeline(RandomReLUTransformer(200, random_state=0),
                             Ridge(alpha=0.5, fit_intercept=False, solver="cholesky")).fit(X, Y)
    elm = ELMRegressor(n_hidden=200, alpha=0.5, random_state=0).fit(X, Y)
    np.testing.assert_allclose(pipeline.predict(X), elm.predict(X), rtol=1e-7, atol=1e-9)


def test_transformer_feature_names_and_torch_device(torch_device):
    pandas = pytest.importorskip("pandas")
    X, _ = regression()
    frame = pandas.DataFrame(X, columns=[f"x{i}" for i in range(X.shape[1])])
    transformer = RandomReLUTransformer(n_hidden=3).fit(frame)
    assert list(transformer.feature_names_in_) == list(frame.columns)
    assert list(transformer.get_feature_names_out()) == [f"randomrelutransformer{i}" for i in range(3)]
    on_torch = RandomReLUTransformer(n_hidden=30, device=torch_device).fit(X).transform(X)
    assert type(on_torch) is np.ndarray
    np.testing.assert_allclose(on_torch, RandomReLUTransformer(n_hidden=30).fit(X).transform(X), rtol=1e-12)


# -- bad input --------------------------------------------------------------------------------
X_OK, Y_OK = classification(n=30)
BAD_PARAMETERS = [
    (ELMClassifier, {"n_hidden": 0}, ValueError, "n_hidden must be an integer >= 1, got 0"),
    (ELMRegressor, {"n_hidden": "many"}, ValueError, "n_hidden must be an integer >= 1"),
    (ELMClassifier, {"alpha": -0.5}, ValueError, r"alpha \(the ridge λ\) must be a finite number >= 0"),
    (ELMRegressor, {"alpha": np.nan}, ValueError, "alpha .* finite number"),
    (ELMClassifier, {"solver": "qr"}, ValueError, "unknown solver 'qr'"),
    (ELMClassifier, {"weight_scale": "xavier"}, ValueError, "unknown weight_scale 'xavier'"),
    (ELMRegressor, {"bias": "zero"}, ValueError, "unknown bias 'zero'"),
    (ELMClassifier, {"dtype": "float16"}, ValueError, "unknown dtype 'float16'"),
    (ELMClassifier, {"chunk_size": -3}, ValueError, "chunk_size must be an integer >= 1"),
    (ELMClassifier, {"random_state": "seed"}, ValueError, "random_state must be None, an int seed"),
    (ELMRegressor, {"random_state": 1.5}, ValueError, "random_state must be None, an int seed"),
    (ELMClassifier, {"random_state": True}, ValueError, "random_state must be None, an int seed"),
    (ELMClassifier, {"random_state": -1}, ValueError, r"random_state must be an int in \[0, 2\*\*32\)"),
    (ELMClassifier, {"device": "gpu0"}, ValueError, "unknown device 'gpu0': torch does not understand it"),
    (ELMRegressor, {"device": 3}, TypeError, "device must be None, a string"),
    (ELMClassifier, {"partial_fit_method": "kalman"}, ValueError, "unknown partial_fit_method 'kalman'"),
    (ELMClassifierCV, {"alphas": [1.0, 0.0]}, ValueError, "alphas must be a non-empty 1-d sequence"),
    (ELMRegressorCV, {"alphas": []}, ValueError, "alphas must be a non-empty 1-d sequence"),
    (ELMClassifierCV, {"cv": "kfold"}, ValueError, "unknown cv 'kfold'; choose one of 'loo', 'gcv'"),
    (ELMClassifierCV, {"cv": 1}, ValueError, "cv=1: k-fold cross-validation needs at least 2 folds"),
    (ELMRegressorCV, {"cv": 2.5}, ValueError, "cv must be 'loo', 'gcv', a number of folds >= 2, a scikit-learn splitter"),
    (ELMClassifierCV, {"scoring": "f1"}, ValueError, "unknown scoring 'f1'"),
    (ELMClassifierCV, {"scoring": "accuracy", "cv": "gcv"}, ValueError, "scoring='accuracy' needs cv='loo' or k folds"),
    (ELMRegressorCV, {"solver": "pinv"}, ValueError, "solver='pinv' ignores λ"),
    (RandomReLUTransformer, {"n_hidden": 0}, ValueError, "n_hidden must be an integer >= 1"),
    (RandomReLUTransformer, {"weight_scale": "big"}, ValueError, "unknown weight_scale 'big'"),
    (RandomReLUTransformer, {"dtype": "int8"}, ValueError, "unknown dtype 'int8'"),
    (RandomReLUTransformer, {"random_state": "zero"}, ValueError, "random_state must be None"),
    (RandomReLUTransformer, {"device": "tpu:x"}, ValueError, "unknown device 'tpu:x'"),
]


@pytest.mark.parametrize("cls, params, error, message", BAD_PARAMETERS,
                         ids=[f"{c.__name__}-{'-'.join(p)}" for c, p, _, _ in BAD_PARAMETERS])
def test_bad_parameters_are_named_at_fit(cls, params, error, message):
    if "device" in params:
        pytest.importorskip("torch")
    estimator = cls(n_hidden=10, **params) if "n_hidden" not in params else cls(**params)
    with pytest.raises(error, match=message):
        estimator.fit(X_OK, Y_OK)


def _nan_in(array, value=np.nan):
    array = np.array(array, dtype=float)
    array[3] = value
    return array


BAD_DATA = [
    ("fit", ELMClassifier, {"sample_weight": np.ones(29)}, ValueError, r"sample_weight.shape == \(29,\), expected"),
    ("fit", ELMRegressor, {"sample_weight": -np.ones(30)}, ValueError,
     "sample_weight must be >= 0; got -1.0 at index 0"),
    ("fit", ELMClassifier, {"sample_weight": _nan_in(np.ones(30))}, ValueError, "sample_weight contains NaN"),
    ("fit", ELMRegressor, {"sample_weight": _nan_in(np.ones(30), np.inf)}, ValueError,
     "sample_weight contains infinity"),
    ("fit", ELMClassifier, {"sample_weight": np.zeros(30)}, ValueError, "sample_weight is all zeros"),
    ("fit", ELMClassifier, {"sample_weight": np.ones((30, 2))}, ValueError, "Sample weights must be 1D"),
    ("fit", ELMClassifier, {"X": _nan_in(X_OK)}, ValueError, "Input X contains NaN"),
    ("fit", ELMRegressor, {"X": _nan_in(X_OK, np.inf)}, ValueError, "Input X contains infinity"),
    ("fit", ELMRegressor, {"y": _nan_in(Y_OK)}, ValueError, "Input y contains NaN"),
    ("fit", ELMClassifier, {"y": np.zeros(30)}, ValueError, "needs at least 2 classes in y; got 1 class"),
    ("fit", ELMClassifierCV, {"y": np.ones(30)}, ValueError, "ELMClassifierCV needs at least 2 classes"),
    ("fit", ELMClassifier, {"y": np.linspace(0, 1, 30)}, ValueError, "Unknown label type: continuous"),
    ("fit", ELMRegressorCV, {"X": X_OK[:1], "y": Y_OK[:1]}, ValueError,
     "needs at least 2 samples to cross-validate, got 1 sample"),
    ("partial_fit", ELMClassifier, {"classes": [0, 1, 2, 7]}, ValueError,
     "classes .* differ from those of the first call"),
    ("partial_fit", ELMClassifier, {"y": np.full(30, 9), "classes": None}, ValueError, "not in classes"),
    ("partial_fit", ELMRegressor, {"sample_weight": np.ones(31)}, ValueError, "sample_weight.shape"),
    ("partial_fit", ELMRegressor, {"X": X_OK[:, :2]}, ValueError, "X has 2 features, but ELMRegressor is expecting 4"),
    ("predict", ELMClassifier, {"X": X_OK[:, :3]}, ValueError, "X has 3 features, but ELMClassifier is expecting 4"),
    ("predict", ELMRegressorCV, {"X": _nan_in(X_OK)}, ValueError, "Input X contains NaN"),
    ("transform", RandomReLUTransformer, {"X": X_OK[:, :1]}, ValueError,
     "X has 1 features, but RandomReLUTransformer is expecting 4"),
    ("transform", RandomReLUTransformer, {"X": _nan_in(X_OK, np.inf)}, ValueError, "Input X contains infinity"),
]


@pytest.mark.parametrize("method, cls, change, error, message", BAD_DATA,
                         ids=[f"{m}-{c.__name__}-{'-'.join(ch)}" for m, c, ch, _, _ in BAD_DATA])
def test_bad_data_is_named(method, cls, change, error, message):
    estimator = cls(n_hidden=10, alpha=0.1) if "alpha" in cls().get_params() else cls(n_hidden=10)
    arguments = {"X": X_OK, "y": Y_OK.astype(float) if cls in (ELMRegressor, ELMRegressorCV) else Y_OK}
    if method == "partial_fit":                       # a first call, then the bad one
        estimator.partial_fit(X_OK, arguments["y"], **({"classes": [0, 1, 2]} if cls is ELMClassifier else {}))
        if cls is ELMClassifier:
            arguments["classes"] = [0, 1, 2]
    elif method in ("predict", "transform"):
        estimator.fit(X_OK, arguments["y"]) if method == "predict" else estimator.fit(X_OK)
    arguments.update(change)
    if method in ("predict", "transform"):
        arguments = {"X": arguments["X"]}
    elif cls is RandomReLUTransformer:
        arguments.pop("y")
    if "classes" in arguments and arguments["classes"] is None:
        arguments.pop("classes")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        with pytest.raises(error, match=message):
            getattr(estimator, method)(**arguments)


# -- k-fold cross-validation and weights in the CV estimators -------------------------------------
ALPHAS = [0.01, 0.1, 1.0, 10.0]


def brute_force_folds(make, X, y, splits, weights):
    """Per λ: pooled weighted squared error (summed over outputs) and accuracy of refits."""
    mse, accuracy = [], []
    for alpha in ALPHAS:
        squared = correct = 0.0
        for train, test in splits:
            model = make(alpha).fit(X[train], y[train], sample_weight=weights[train])
            if hasattr(model, "classes_"):
                Y = (y[test][:, None] == model.classes_[None, :]).astype(float)
                scores = model._raw_outputs(X[test])
                correct += np.sum(weights[test] * (model.predict(X[test]) == y[test]))
            else:
                Y, scores = y[test].reshape(len(test), -1), model.predict(X[test]).reshape(len(test), -1)
            squared += np.sum(weights[test] * np.sum((Y - scores) ** 2, axis=1))
        total = sum(weights[test].sum() for _, test in splits)
        mse.append(squared / total)
        accuracy.append(100 * correct / total)
    return np.array(mse), np.array(accuracy)


@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
def test_k_fold_equals_refits_on_each_split(weighted):
    from sklearn.model_selection import KFold, StratifiedKFold

    X, Y = regression(n=90)
    weights = np.random.default_rng(1).uniform(0.2, 3, 90) if weighted else np.ones(90)
    splitter = KFold(3, shuffle=True, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        model = ELMRegressorCV(n_hidden=40, alphas=ALPHAS, cv=splitter).fit(X, Y, sample_weight=weights)
    expected, _ = brute_force_folds(lambda a: ELMRegressor(n_hidden=40, alpha=a), X, Y,
                                    list(splitter.split(X)), weights)
    np.testing.assert_allclose(model.cv_results_["cv_mse"], expected, rtol=1e-8)
    assert model.best_score_ == model.cv_results_["cv_mse"].min()
    Xc, yc = classification(n=90)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        classifier = ELMClassifierCV(n_hidden=40, alphas=ALPHAS, cv=3, scoring="accuracy").fit(
            Xc, yc, sample_weight=weights)
    splits = list(StratifiedKFold(3).split(Xc, yc))      # what an int means for a classifier
    mse, accuracy = brute_force_folds(lambda a: ELMClassifier(n_hidden=40, alpha=a), Xc, yc, splits, weights)
    np.testing.assert_allclose(classifier.cv_results_["cv_mse"], mse, rtol=1e-8)
    np.testing.assert_allclose(classifier.cv_results_["cv_accuracy"], accuracy, rtol=1e-12)
    assert classifier.best_score_ == classifier.cv_results_["cv_accuracy"].max()


def test_weighted_leave_one_out_leaves_out_each_row_with_its_weight():
    X, Y = regression(n=40)
    weights = np.random.default_rng(2).uniform(0, 2, 40)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        model = ELMRegressorCV(n_hidden=20, alphas=ALPHAS).fit(X, Y, sample_weight=weights)
    splits = [(np.delete(np.arange(40), j), np.array([j])) for j in range(40)]
    expected, _ = brute_force_folds(lambda a: ELMRegressor(n_hidden=20, alpha=a), X, Y, splits, weights)
    np.testing.assert_allclose(model.cv_results_["loo_mse"], expected, rtol=1e-7)
    refit = ELMRegressor(n_hidden=20, alpha=model.alpha_).fit(X, Y, sample_weight=weights)
    np.testing.assert_allclose(model.predict(X), refit.predict(X), rtol=1e-8, atol=1e-10)


def test_weighted_gcv_equals_gcv_of_the_repeated_rows():
    X, Y = regression(n=60)
    counts = np.random.default_rng(3).integers(0, 4, 60)
    repeated = np.repeat(np.arange(60), counts)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        weighted = ELMRegressorCV(n_hidden=30, alphas=ALPHAS, cv="gcv").fit(X, Y, sample_weight=counts)
        plain = ELMRegressorCV(n_hidden=30, alphas=ALPHAS, cv="gcv").fit(X[repeated], Y[repeated])
    np.testing.assert_allclose(weighted.cv_results_["gcv"], plain.cv_results_["gcv"], rtol=1e-8)
    np.testing.assert_allclose(weighted.coef_, plain.coef_, rtol=1e-8, atol=1e-10)


def test_a_model_fitted_with_a_splitter_pickles_and_says_why_it_does_not_save(tmp_path):
    import pickle

    from sklearn.model_selection import KFold

    X, y = classification()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        model = ELMClassifierCV(n_hidden=20, alphas=ALPHAS, cv=KFold(3)).fit(X, y)
        counted = ELMClassifierCV(n_hidden=20, alphas=ALPHAS, cv=3).fit(X, y)
    np.testing.assert_array_equal(pickle.loads(pickle.dumps(model)).predict(X), model.predict(X))
    with pytest.raises(ValueError, match=r"fitted with cv=KFold\(.*an object a model file cannot hold"):
        model.save(tmp_path / "m.npz")
    from greenelm import load_model

    loaded = load_model(counted.save(tmp_path / "m.npz"))
    assert loaded.cv == 3 and sorted(loaded.cv_results_) == sorted(counted.cv_results_)
