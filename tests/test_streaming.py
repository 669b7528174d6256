"""Streaming RLS readout: exactness against the batch ridge solution, state invariants,
backend agreement, refused batches that leave the state untouched, and partial_fit."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest
import torch

from greenelm.estimator import ELMClassifier, ELMRegressor
from greenelm.features import RandomReLUFeatures
from greenelm.solvers import NormalEquations
from greenelm.streaming import (METHODS, StreamingRidge, listing3_update_numpy, listing3_update_torch,
                                update_flops)
from greenelm_book.chapters.streaming_harness import (StreamData, drift_experiment, make_stream_data, paired_speedup,
                                           replay_sgd, streaming_benchmark)

D, K, ALPHA = 40, 3, 0.1
CUDA = pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device")


def problem(n=300, d=D, k=K, seed=0):
    """Non-negative features with a common offset (as ReLU features have), and targets."""
    rng = np.random.default_rng(seed)
    H = np.maximum(rng.standard_normal((n, d)) + 0.3, 0)
    Y = H @ rng.standard_normal((d, k)) + 0.1 * rng.standard_normal((n, k))
    return H, Y


def ridge(H, Y, alpha=ALPHA):
    """The batch ridge readout on all rows, by LAPACK's general solver (independent of greenelm)."""
    return np.linalg.solve(H.T @ H + alpha * np.eye(H.shape[1]), H.T @ Y)


def on(array, backend):
    return torch.as_tensor(array, device=backend) if backend != "numpy" else array


def as_numpy(array):
    return array.cpu().numpy() if isinstance(array, torch.Tensor) else np.asarray(array)


def stream(H, Y, n_initial, batch, method="cholesky", backend="numpy", dtype="float64"):
    state = StreamingRidge(ALPHA, method, dtype).fit(on(H[:n_initial], backend), on(Y[:n_initial], backend))
    for start in range(n_initial, len(H), batch):
        state.update(on(H[start:start + batch], backend), on(Y[start:start + batch], backend))
    return state


def relative_error(W, reference):
    return np.linalg.norm(as_numpy(W) - reference) / np.linalg.norm(reference)


@pytest.mark.parametrize("backend", ["numpy", "cpu"])
@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("batch", [1, 7, 64, 130])  # 64 and 130 rows exceed d = 40
def test_streaming_equals_batch_ridge(method, backend, batch):
    H, Y = problem()
    state = stream(H, Y, 25, batch, method, backend)  # initial fit on fewer rows than d
    reference = ridge(H, Y)
    assert state.n_samples == len(H)
    assert relative_error(state.coef_, reference) <= 1e-9
    H_test, _ = problem(50, seed=1)
    np.testing.assert_array_equal((H_test @ as_numpy(state.coef_)).argmax(1),
                                  (H_test @ reference).argmax(1))


def test_weights_exact_after_every_batch():
    H, Y = problem(200)
    state = StreamingRidge(ALPHA).fit(H[:30], Y[:30])
    for start in range(30, 200, 17):
        state.update(H[start:start + 17], Y[start:start + 17])
        assert relative_error(state.coef_, ridge(H[:start + 17], Y[:start + 17])) <= 1e-9


@pytest.mark.parametrize("backend", ["numpy", "cpu"])
@pytest.mark.parametrize("method", METHODS)
def test_P_is_the_symmetric_positive_definite_inverse(method, backend):
    H, Y = problem()
    state = stream(H, Y, 25, 11, method, backend)
    P = as_numpy(state.P)
    reference = np.linalg.inv(H.T @ H + ALPHA * np.eye(D))
    assert np.linalg.norm(P - reference) / np.linalg.norm(reference) <= 1e-9
    if method == "cholesky":  # ours keeps P exactly symmetric; listing 3 to rounding only
        np.testing.assert_array_equal(P, P.T)
    else:
        assert np.abs(P - P.T).max() <= 1e-12 * np.abs(P).max()
    assert np.linalg.eigvalsh((P + P.T) / 2).min() > 0


def test_numpy_P_is_mirrored_when_read_not_after_every_update():
    H, Y = problem()
    state = stream(H[:100], Y[:100], 100, 50)
    for rows in (slice(100, 150), slice(150, 200)):
        state.update(H[rows], Y[rows])
    assert state._lower_stale                     # the updates kept only the upper triangle
    exact = np.linalg.inv(H[:200].T @ H[:200] + ALPHA * np.eye(H.shape[1]))
    P = state.P                                   # reading mirrors it
    assert not state._lower_stale
    np.testing.assert_array_equal(P, P.T)
    assert relative_error(P, exact) <= 1e-9
    scalars, arrays = state.update(H[200:250], Y[200:250]).export_state()
    np.testing.assert_array_equal(arrays["P"], arrays["P"].T)
    assert relative_error(state.coef_, ridge(H[:250], Y[:250])) <= 1e-9


def test_numpy_and_torch_cpu_agree():
    H, Y = problem()
    a = stream(H, Y, 50, 20, "cholesky", "numpy")
    b = stream(H, Y, 50, 20, "cholesky", "cpu")
    assert isinstance(b.coef_, torch.Tensor) and b.coef_.dtype == torch.float64
    np.testing.assert_allclose(b.coef_.numpy(), a.coef_, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(b.P.numpy(), a.P, rtol=1e-10, atol=1e-14)


@CUDA
@pytest.mark.parametrize("method", METHODS)
def test_cuda_streaming_equals_batch_ridge(method):
    H, Y = problem()
    state = stream(H, Y, 25, 13, method, "cuda")
    assert state.coef_.device.type == "cuda"
    assert relative_error(state.coef_, ridge(H, Y)) <= 1e-9
    np.testing.assert_allclose(as_numpy(state.coef_), stream(H, Y, 25, 13, method).coef_, rtol=1e-9,
                               atol=1e-12)


def test_listing3_numpy_is_the_torch_listing():
    H, Y = problem(80)
    P = np.linalg.inv(H[:50].T @ H[:50] + ALPHA * np.eye(D))
    W = P @ H[:50].T @ Y[:50]
    W_np, P_np = listing3_update_numpy(H[50:], Y[50:], P, W)
    W_t, P_t = listing3_update_torch(*(torch.from_numpy(a) for a in (H[50:], Y[50:], P, W)))
    np.testing.assert_allclose(W_np, W_t.numpy(), rtol=1e-10)
    np.testing.assert_allclose(P_np, P_t.numpy(), rtol=1e-10, atol=1e-15)
    assert relative_error(W_np, ridge(H, Y)) <= 1e-9


def test_from_normal_equations_and_from_batch_equal_fit():
    H, Y = problem()
    equations = NormalEquations(D, K)
    equations.update(H[:100], Y[:100])
    a = StreamingRidge.from_normal_equations(equations, ALPHA).update(H[100:], Y[100:])
    b = StreamingRidge.from_batch(H[:100], Y[:100], alpha=ALPHA).update(H[100:], Y[100:])
    np.testing.assert_allclose(a.coef_, b.coef_, rtol=1e-12)
    assert relative_error(a.coef_, ridge(H, Y)) <= 1e-9


def test_one_dimensional_targets_are_one_output():
    H, Y = problem(k=1)
    state = StreamingRidge(ALPHA).fit(H[:100], Y[:100, 0])
    state.update(H[100:], Y[100:, 0])
    assert state.coef_.shape == (D, 1)
    assert relative_error(state.coef_, ridge(H, Y)) <= 1e-9


def test_float32_state_stays_float32_and_close():
    H, Y = problem()
    state = stream(H, Y, 50, 25, "cholesky", "numpy", "float32")
    assert state.coef_.dtype == np.float32 and state.P.dtype == np.float32
    error = relative_error(state.coef_.astype(np.float64), ridge(H, Y))
    assert 0 < error < 1e-3  # float32 rounding, not float64 exactness


def snapshot(state):
    copy = state.copy()
    return copy, state


def assert_same_state(before, after):
    assert before.n_samples == after.n_samples
    for a, b in ((before.coef_, after.coef_), (before.P, after.P)):
        np.testing.assert_array_equal(as_numpy(a), as_numpy(b))


BAD_BATCHES = [
    (lambda H, Y: (H[:, :-1], Y), "columns, expected d=40"),
    (lambda H, Y: (H, Y[:, :-1]), "columns, expected k=3"),
    (lambda H, Y: (H[:-1], Y), "rows but Y has"),
    (lambda H, Y: (H[:0], Y[:0]), "empty batch"),
    (lambda H, Y: (H[None], Y), "must be 2-D"),
    (lambda H, Y: (np.where(np.arange(H.size).reshape(H.shape) == 5, np.nan, H), Y), "H contains NaN"),
    (lambda H, Y: (H, np.where(np.arange(Y.size).reshape(Y.shape) == 2, np.inf, Y)), "Y contains NaN or inf"),
]


@pytest.mark.parametrize("backend", ["numpy", "cpu"])
@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("make_bad, message", BAD_BATCHES)
def test_bad_batch_is_refused_without_changing_the_state(method, backend, make_bad, message):
    H, Y = problem()
    state = stream(H[:200], Y[:200], 60, 70, method, backend)
    state.coef_  # the information form caches its weights: compare with them too
    before = state.copy()
    bad_H, bad_Y = make_bad(H[200:220], Y[200:220])
    with pytest.raises(ValueError, match=message):
        state.update(on(bad_H, backend), on(bad_Y, backend))
    assert_same_state(before, state)
    state.update(on(H[200:], backend), on(Y[200:], backend))  # still usable and exact
    assert relative_error(state.coef_, ridge(H, Y)) <= 1e-9


@pytest.mark.parametrize("backend", ["numpy", "cpu"])
def test_lost_definiteness_is_refused_without_changing_the_state(backend):
    H, Y = problem()
    state = stream(H[:100], Y[:100], 60, 40, "cholesky", backend)
    state._P = -state._P  # as if drift had destroyed positive definiteness
    before = state.copy()
    with pytest.raises(np.linalg.LinAlgError, match="not positive definite"):
        state.update(on(H[100:120], backend), on(Y[100:120], backend))
    assert_same_state(before, state)


def test_parameter_errors():
    H, Y = problem()
    with pytest.raises(ValueError, match="alpha must be > 0"):
        StreamingRidge(0.0).fit(H, Y)
    with pytest.raises(ValueError, match="unknown method 'qr'"):
        StreamingRidge(ALPHA, "qr").fit(H, Y)
    with pytest.raises(ValueError, match="unknown dtype"):
        StreamingRidge(ALPHA, dtype="float16").fit(H, Y)
    with pytest.raises(RuntimeError, match="no initial fit"):
        StreamingRidge(ALPHA).update(H, Y)
    with pytest.raises(ValueError, match="hold no samples"):
        StreamingRidge.from_normal_equations(NormalEquations(D, K), ALPHA)


def test_update_flops_counts():
    d, B, k = 4000, 250, 10
    assert update_flops(d, B, k, "information") == d * d * B + 2 * d * B * k
    assert update_flops(d, B, k, "cholesky") == pytest.approx(3 * d * d * B, rel=0.1)
    assert update_flops(d, B, k, "listing3") == pytest.approx(8 * d * d * B, rel=0.1)


# -- the estimator's partial_fit ----------------------------------------------------------------
def classification(n=400, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, 8))
    y = (X[:, 0] + 0.5 * X[:, 1] > 0).astype(int) + (X[:, 2] > 1)
    return X, y


@pytest.mark.parametrize("device", [None, "cpu"])
def test_rls_partial_fit_equals_fit(device):
    X, y = classification()
    params = dict(n_hidden=60, alpha=0.5, chunk_size=33, random_state=3, device=device)
    full = ELMClassifier(**params).fit(X, y)
    streamed = ELMClassifier(partial_fit_method="rls", **params)
    for start in range(0, len(X), 70):
        streamed.partial_fit(X[start:start + 70], y[start:start + 70], classes=np.unique(y))
        streamed.coef_                   # noqa: B018 - a read between batches: RLS block updates
    assert streamed.stream_.n_samples == len(X) and streamed.equations_ is None
    assert relative_error(streamed.coef_, full.coef_) <= 1e-9
    np.testing.assert_array_equal(streamed.predict(X), full.predict(X))


def test_rls_partial_fit_continues_a_fit():
    X, y = classification()
    full = ELMRegressor(n_hidden=50, alpha=0.5).fit(X, y.astype(float))
    model = ELMRegressor(n_hidden=50, alpha=0.5, partial_fit_method="rls").fit(X[:300], y[:300].astype(float))
    model.partial_fit(X[300:], y[300:].astype(float))
    assert relative_error(model.coef_, full.coef_) <= 1e-9
    assert model.predict(X).shape == (len(X),)


def test_rls_partial_fit_errors():
    X, y = classification()
    with pytest.raises(ValueError, match="needs alpha > 0"):
        ELMClassifier(alpha=0.0, partial_fit_method="rls", n_hidden=20).partial_fit(X, y, classes=[0, 1, 2])
    with pytest.raises(ValueError, match="unknown partial_fit_method 'woodbury'"):
        ELMClassifier(partial_fit_method="woodbury", n_hidden=20).partial_fit(X, y, classes=[0, 1, 2])


# -- the chapter's experiment functions, on a tiny synthetic split -------------------------------
@pytest.fixture(scope="module")
def tiny_split():
    rng = np.random.default_rng(0)
    X = rng.random((700, 12))
    y = (X[:, :3].sum(1) * 2).astype(int) % 4
    return SimpleNamespace(X_train=X[:500], y_train=y[:500], X_test=X[500:], y_test=y[500:])


def test_streaming_benchmark_matches_the_oracle(tiny_split):
    features = RandomReLUFeatures(12, 30, seed=0, weight_scale="he")
    data = make_stream_data(tiny_split, features, 0.8)
    result = streaming_benchmark(data, batch_size=20, alpha=0.1,
                                 methods=("listing3", "cholesky", "information"),
                                 backends=("numpy", "torch-cpu"), progress=False)
    assert isinstance(data, StreamData) and result.n_batches == 5  # 100 streamed rows
    summary = result.summary
    assert len(summary) == 6 and (summary.n_samples == 500).all()
    assert (summary.relative_difference <= 1e-9).all()
    assert (summary.prediction_disagreement == 0).all()
    assert np.allclose(summary.accuracy, result.oracle_accuracy)
    assert len(result.latency) == 6 * 5 and (result.latency.seconds > 0).all()
    speedup = paired_speedup(result.latency)
    assert list(speedup.backend) == ["numpy", "torch-cpu"] and (speedup.batches == 5).all()


def test_drift_experiment_float64_exact_float32_not(tiny_split):
    features = RandomReLUFeatures(12, 30, seed=0, weight_scale="he")
    data = make_stream_data(tiny_split, features, 0.2)
    drift = drift_experiment(data, batch_size=5, alpha=0.1, n_checkpoints=4, progress=False)
    last = drift.groupby(["method", "dtype"]).last()
    assert (last.updates == 80).all() and (last.samples == 500).all()
    assert last.loc[("cholesky", "float64"), "relative_error"] <= 1e-9
    assert last.loc[("cholesky", "float32"), "relative_error"] > 1e-9
    assert last.loc[("cholesky", "float64"), "asymmetry"] == 0


def test_replay_sgd_buffer_grows(tiny_split):
    features = RandomReLUFeatures(12, 30, seed=0, weight_scale="he")
    data = make_stream_data(tiny_split, features, 0.8)
    result = replay_sgd(data, batch_size=20, initial_epochs=2, progress=False)
    assert result.buffer_rows == 500 and len(result.seconds) == 5
    assert 0 <= result.accuracy <= 100
