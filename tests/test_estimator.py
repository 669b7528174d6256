"""ELMClassifier / ELMRegressor: scikit-learn conformance, partial_fit, persistence, bad input."""

import pickle
import re
import threading
import warnings

import numpy as np
import scipy.sparse
import pytest
from sklearn.utils.estimator_checks import check_estimator

from sklearn.base import ClassifierMixin

from greenelm import ELMClassifier, ELMClassifierCV, ELMRegressor, ELMRegressorCV, load_model


def blobs(n=600, d=12, k=4, seed=0):
    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((k, d)) * 3
    y = rng.integers(0, k, n)
    return centres[y] + rng.standard_normal((n, d)), y


@pytest.mark.parametrize("estimator", [ELMClassifier(n_hidden=300), ELMRegressor(n_hidden=300)],
                         ids=lambda e: type(e).__name__)
def test_scikit_learn_estimator_checks(estimator):
    check_estimator(estimator)


@pytest.mark.parametrize("solver", ["pinv", "lu", "cholesky", "eigh"])
def test_every_solver_classifies_separable_blobs(solver):
    X, y = blobs()
    model = ELMClassifier(n_hidden=200, solver=solver).fit(X[:400], y[:400])
    assert model.score(X[400:], y[400:]) > 0.95
    assert model.coef_.shape == (200, 4)


def test_ridge_solvers_give_identical_predictions():
    X, y = blobs()
    outputs = [ELMClassifier(n_hidden=150, solver=s, alpha=1e-2).fit(X, y).decision_function(X)
               for s in ("lu", "cholesky", "eigh")]
    for other in outputs[1:]:
        np.testing.assert_allclose(other, outputs[0], rtol=1e-7, atol=1e-9)


def test_chunked_fit_equals_unchunked_fit():
    X, y = blobs()
    whole = ELMClassifier(n_hidden=120, chunk_size=len(X)).fit(X, y)
    chunked = ELMClassifier(n_hidden=120, chunk_size=37).fit(X, y)
    np.testing.assert_allclose(chunked.coef_, whole.coef_, rtol=1e-8, atol=1e-10)


def test_partial_fit_over_chunks_equals_fit():
    X, y = blobs()
    model = ELMClassifier(n_hidden=120)
    for start in range(0, len(X), 128):
        model.partial_fit(X[start:start + 128], y[start:start + 128], classes=np.arange(4))
    np.testing.assert_allclose(model.coef_, ELMClassifier(n_hidden=120).fit(X, y).coef_, rtol=1e-8,
                               atol=1e-10)
    with pytest.raises(ValueError, match="not in classes"):
        model.partial_fit(X[:5], np.full(5, 9))


def test_partial_fit_needs_classes_and_refuses_pinv():
    X, y = blobs()
    with pytest.raises(ValueError, match="classes must be given"):
        ELMClassifier().partial_fit(X, y)
    with pytest.raises(AttributeError) as raised:                     # hasattr() stays False
        ELMClassifier(solver="pinv").partial_fit(X, y, classes=np.arange(4))
    message = str(raised.value)
    assert message.startswith("ELMClassifier(solver='pinv') has no partial_fit: the pseudoinverse H⁺ "
                              "needs all rows of H at once and cannot be updated batch by batch")
    assert "Use solver='cholesky' or 'lu'" in message and "partial_fit_method='normal' or 'rls'" in message
    assert not hasattr(ELMRegressor(solver="pinv"), "partial_fit")
    assert hasattr(ELMRegressor(), "partial_fit") and hasattr(ELMRegressor(solver="lu"), "partial_fit")
    model = ELMRegressor(solver="pinv")
    model.set_params(solver="cholesky")                                # the rule follows the parameter
    model.partial_fit(X, y.astype(float))
    assert model.coef_.shape == (2000, 1)
    with pytest.raises(AttributeError, match=r"ELMClassifierCV has no partial_fit: it chooses λ from "
                                             r"all the training rows at once"):
        ELMClassifierCV().partial_fit(X, y)
    assert not hasattr(ELMRegressorCV(), "partial_fit")
    assert ELMClassifier.partial_fit.__doc__.startswith("Add a block of samples")   # documented


def test_same_seed_same_predictions_other_seed_differs():
    X, y = blobs()
    a = ELMClassifier(n_hidden=100, random_state=3).fit(X, y).decision_function(X)
    b = ELMClassifier(n_hidden=100, random_state=3).fit(X, y).decision_function(X)
    c = ELMClassifier(n_hidden=100, random_state=4).fit(X, y).decision_function(X)
    np.testing.assert_array_equal(a, b)
    assert not np.allclose(a, c)


def test_float32_matches_float64():
    X, y = blobs()
    f64 = ELMClassifier(n_hidden=100, alpha=1.0).fit(X, y)
    f32 = ELMClassifier(n_hidden=100, alpha=1.0, dtype="float32").fit(X, y)
    np.testing.assert_allclose(f32.decision_function(X), f64.decision_function(X), rtol=1e-3,
                               atol=1e-3)
    assert (f32.predict(X) == f64.predict(X)).mean() > 0.99


def test_torch_backend_matches_numpy(torch_device):
    pytest.importorskip("torch")
    X, y = blobs()
    numpy_model = ELMClassifier(n_hidden=100).fit(X, y)
    torch_model = ELMClassifier(n_hidden=100, device=torch_device).fit(X, y)
    np.testing.assert_allclose(torch_model.decision_function(X), numpy_model.decision_function(X),
                               rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("make", [lambda: ELMClassifier(n_hidden=80, random_state=5),
                                  lambda: ELMRegressor(n_hidden=80, random_state=5)])
def test_save_and_load_round_trip(tmp_path, make):
    X, y = blobs()
    model = make().fit(X, y if isinstance(make(), ELMClassifier) else X[:, :2])
    path = model.save(tmp_path / "model.npz")
    loaded = load_model(path)
    assert type(loaded) is type(model) and loaded.get_params() == model.get_params()
    np.testing.assert_array_equal(loaded.predict(X), model.predict(X))
    assert not list(tmp_path.glob("*.tmp*"))
    np.testing.assert_array_equal(pickle.loads(pickle.dumps(model)).predict(X), model.predict(X))


def test_load_detects_a_changed_projection(tmp_path, monkeypatch):
    X, y = blobs()
    path = ELMClassifier(n_hidden=50).fit(X, y).save(tmp_path / "m.npz")
    import greenelm.estimator as estimator

    monkeypatch.setattr(estimator, "_projection_digest", lambda W, b: "something else")
    with pytest.raises(ValueError, match="differs from the one the model was trained with"):
        load_model(path)


def test_regressor_fits_a_smooth_function():
    rng = np.random.default_rng(0)
    X = rng.uniform(-2, 2, (800, 2))
    y = np.sin(X[:, 0]) * X[:, 1]
    model = ELMRegressor(n_hidden=300, alpha=1e-2).fit(X[:600], y[:600])
    assert model.predict(X[600:]).shape == (200,)
    assert model.score(X[600:], y[600:]) > 0.95


@pytest.mark.parametrize("params, message", [
    ({"solver": "qr"}, "unknown solver 'qr'"),
    ({"alpha": -1.0}, "alpha"),
    ({"n_hidden": 0}, "n_hidden must be an integer >= 1"),
    ({"n_hidden": 2.5}, "n_hidden must be an integer >= 1"),
    ({"weight_scale": "xavier"}, "unknown weight_scale"),
    ({"dtype": "float16"}, "unknown dtype"),
    ({"chunk_size": 0}, "chunk_size"),
])
def test_bad_parameters_raise_clear_errors(params, message):
    X, y = blobs()
    with pytest.raises(ValueError, match=message):
        ELMClassifier(**params).fit(X, y)


def test_bad_data_raises_clear_errors():
    X, y = blobs()
    bad = X.copy()
    bad[3, 2] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        ELMClassifier().fit(bad, y)
    bad[3, 2] = np.inf
    with pytest.raises(ValueError, match="infinity"):
        ELMClassifier().fit(bad, y)
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        ELMClassifier().fit(X, y[:-1])
    with pytest.raises(ValueError, match="0 sample"):
        ELMClassifier().fit(X[:0], y[:0])
    with pytest.raises(ValueError, match="2 classes.*1 class"):
        ELMClassifier().fit(X, np.zeros(len(X)))
    with pytest.raises(ValueError, match="dim 3"):
        ELMClassifier().fit(X.reshape(len(X), 3, 4), y)
    model = ELMClassifier(n_hidden=20).fit(X, y)
    with pytest.raises(ValueError, match="X has 5 features, but ELMClassifier is expecting 12"):
        model.predict(X[:, :5])


def test_a_second_fit_of_the_same_object_from_another_thread_is_refused_not_merged():
    X, y = blobs(n=900)
    model = ELMClassifier(n_hidden=60, random_state=1)
    started, release = threading.Event(), threading.Event()
    start = model._start

    def slow_start(*args):  # hold the first fit inside, after its data were validated
        started.set()
        release.wait(30)
        start(*args)

    model._start = slow_start
    first = threading.Thread(target=model.fit, args=(X[:600], y[:600]), name="first-fit")
    first.start()
    assert started.wait(30)
    for call in (lambda: model.fit(X[600:], y[600:]),
                 lambda: model.partial_fit(X[600:], y[600:], classes=np.arange(4))):
        with pytest.raises(RuntimeError, match="while thread 'first-fit' is fitting the same estimator "
                                               r"object.*sklearn.base.clone"):
            call()
    release.set()
    first.join(30)
    del model._start
    alone = ELMClassifier(n_hidden=60, random_state=1).fit(X[:600], y[:600])
    np.testing.assert_array_equal(model.coef_, alone.coef_)
    if getattr(model, "equations_", None) is not None:
        assert model.equations_.n_samples == 600
    model.fit(X[600:], y[600:])                           # once it is done, fit works again
    np.testing.assert_array_equal(model.coef_,
                                  ELMClassifier(n_hidden=60, random_state=1).fit(X[600:], y[600:]).coef_)


def test_two_threads_fitting_one_object_end_with_one_of_their_fits():
    rng = np.random.default_rng(0)
    X, y = rng.standard_normal((9000, 20)), rng.standard_normal(9000)
    parts = {"a": (X[:6000], y[:6000]), "b": (X[6000:], y[6000:])}
    model, outcomes = ELMRegressor(n_hidden=80, chunk_size=256), {}

    def run(name):
        try:
            model.fit(*parts[name])
            outcomes[name] = "fitted"
        except RuntimeError as error:
            assert "is fitting the same estimator object" in str(error)
            outcomes[name] = "refused"

    threads = [threading.Thread(target=run, args=(name,)) for name in parts]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert sorted(outcomes) == ["a", "b"] and "fitted" in outcomes.values()
    singles = [ELMRegressor(n_hidden=80, chunk_size=256).fit(*parts[name]).coef_ for name in parts]
    assert any(np.array_equal(model.coef_, single) for single in singles)
    if getattr(model, "equations_", None) is not None:
        assert model.equations_.n_samples in (6000, 3000)


@pytest.mark.parametrize("dtype, name", [(np.float32, "float32"), ("f4", "float32"), ("single", "float32"),
                                         (np.dtype("float64"), "float64"), ("f8", "float64"), (float, "float64")])
def test_dtype_takes_numpy_spellings_and_keeps_the_parameter_as_given(tmp_path, dtype, name):
    X, y = blobs()
    model = ELMClassifier(n_hidden=50, dtype=dtype).fit(X, y)
    assert model.get_params()["dtype"] is dtype                      # set_params / clone keep it
    assert model.features_.W.dtype == np.dtype(name)
    reference = ELMClassifier(n_hidden=50, dtype=name).fit(X, y)
    np.testing.assert_array_equal(model.decision_function(X), reference.decision_function(X))
    assert load_model(model.save(tmp_path / "m.npz")).get_params()["dtype"] == name
    model.partial_fit(X[:10], y[:10])                                # np.float32 == "float32": no change
    for bad in (None, "float16", np.int64, True, "x"):
        with pytest.raises(ValueError, match=f"unknown dtype {re.escape(repr(bad))}; choose one of "
                                             "'float64', 'float32'"):
            ELMClassifier(n_hidden=5, dtype=bad).fit(X, y)


def test_a_gram_larger_than_the_memory_is_refused_before_allocating(monkeypatch):
    X, y = blobs(n=50)
    with pytest.raises(MemoryError, match=r"ELMClassifier\(n_hidden=400000\) needs .* \(W and b \(\(D \+ 1\) × d = 13 × "
                                          r"400000 float64\) 41.6 MB, HᵀH \(d × d = 400000 × 400000 float64\) 1.28 TB, "
                                          r".*the solve's 1 copy of HᵀH \+ λI \(cholesky\) 1.44 TB\), but only "
                                          r".* is available \(.*\): lower n_hidden"):
        ELMClassifier(n_hidden=400_000).fit(X, y)
    import greenelm._validation as validation

    # the solve's copy is counted: at d = 200 on 50 rows the fit holds 2.02 MB without it (W and b,
    # the Gram's 320 kB, the targets, the 1,024 rows NormalEquations gathers); the copy and the
    # finiteness check's mask (360 kB) take it past 2.2 MB
    monkeypatch.setattr(validation, "memory_limit", lambda device=None, root=None: (2_200_000, "test"))
    with pytest.raises(MemoryError, match=r"the solve's 1 copy of HᵀH \+ λI \(cholesky\) 360 kB"):
        ELMClassifier(n_hidden=200, chunk_size=50).fit(X, y)
    monkeypatch.setattr(validation, "memory_limit", lambda device=None, root=None: (1_900_000, "test"))
    with pytest.warns(UserWarning, match="more than half"):
        ELMClassifier(n_hidden=150).fit(X, y)                  # 1.66 MB with Cholesky's one copy
    with pytest.raises(MemoryError, match=r"the solve's 3 copies of HᵀH \+ λI \(lu\) 562 kB"):
        ELMClassifier(n_hidden=150, solver="lu").fit(X, y)    # LU's three: 2.02 MB
    monkeypatch.setattr(validation, "memory_limit", lambda device=None, root=None: (4_000_000, "test"))
    with pytest.warns(UserWarning, match=r"n_hidden=200: the fit's allocations take 2.38 MB, more than "
                                         r"half of the 4 MB available \(test\)"):
        ELMClassifier(n_hidden=200).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ELMClassifier(n_hidden=20).fit(X, y)                    # 205 kB: silent (and d/N = 0.4)


def test_a_cuda_model_checks_the_gpu_s_free_memory_not_the_host_s(monkeypatch):
    """device="cuda": the Gram and the projection live on the GPU, so its free memory is what they
    must fit (not measurable here: torch.cuda.mem_get_info stands in for a GPU)."""
    pytest.importorskip("torch")
    import torch

    import greenelm.estimator as estimator
    from greenelm._validation import available_memory

    monkeypatch.setattr(torch.cuda, "mem_get_info", lambda device=None: (3_000_000, 80_000_000_000))
    assert available_memory("cuda:0") == available_memory(torch.device("cuda")) == 3_000_000
    assert available_memory("meta") is None
    host = available_memory()
    assert available_memory("cpu") == pytest.approx(host, rel=0.5) and host > 3_000_000
    monkeypatch.setattr(estimator, "check_device", lambda device: device)      # no GPU here
    X, y = blobs(n=50)
    with pytest.raises(MemoryError, match=r"ELMClassifier\(n_hidden=1000\) needs .* HᵀH \(d × d = 1000 × 1000 "
                                          r"float64\) 8 MB.* but only 3 MB is available \(the free memory "
                                          r"of cuda\): lower n_hidden"):
        ELMClassifier(n_hidden=1000, device="cuda").fit(X, y)


@pytest.mark.parametrize("container", [scipy.sparse.csr_matrix, scipy.sparse.csc_matrix, scipy.sparse.csr_array])
@pytest.mark.parametrize("make", [lambda: ELMClassifier(n_hidden=80, chunk_size=64),
                                  lambda: ELMRegressor(n_hidden=80, chunk_size=64, partial_fit_method="rls"),
                                  lambda: ELMClassifier(n_hidden=80, solver="pinv"),
                                  lambda: ELMClassifierCV(n_hidden=80, alphas=[0.01, 0.1, 1.0])],
                         ids=["classifier", "regressor-rls", "pinv", "cv"])
def test_sparse_x_gives_the_dense_model(container, make):
    X, y = blobs(n=300)
    X[np.abs(X) < 1.5] = 0                                   # mostly zeros
    sparse = container(X)
    targets = y if isinstance(make(), ClassifierMixin) else X[:, :2]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)        # the CV choice may sit at the grid's end
        dense_model, sparse_model = make().fit(X, targets), make().fit(sparse, targets)
    assert relative(sparse_model.coef_, dense_model.coef_) <= 1e-8         # the solve amplifies rounding
    outputs = "decision_function" if isinstance(make(), ClassifierMixin) else "predict"
    assert relative(getattr(sparse_model, outputs)(sparse), getattr(dense_model, outputs)(X)) <= 1e-10
    if outputs != "predict":
        np.testing.assert_array_equal(sparse_model.predict(sparse), dense_model.predict(X))
    if hasattr(make(), "partial_fit") and make().solver != "pinv":
        extra = {"classes": np.unique(y)} if isinstance(make(), ClassifierMixin) else {}
        streamed, dense = make(), make()
        for rows in (slice(0, 120), slice(120, 300)):
            streamed.partial_fit(sparse[rows], targets[rows], **extra)
            dense.partial_fit(X[rows], targets[rows], **extra)
        assert relative(getattr(streamed, outputs)(X), getattr(dense, outputs)(X)) <= 1e-10


def relative(a, b) -> float:
    """max |a − b| over max |b|."""
    return float(np.abs(np.asarray(a) - np.asarray(b)).max() / np.abs(b).max())
