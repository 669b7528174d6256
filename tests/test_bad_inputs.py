"""Bad input to the streaming state and the data loaders: each case raises one clear error whose
words name the problem, and a refused batch leaves the streaming state exactly as it was."""

from __future__ import annotations

import numpy as np
import pytest

from greenelm import data
from greenelm.solvers import NormalEquations
from greenelm.streaming import StreamingRidge

D, K = 4, 2


def started(method: str = "cholesky") -> StreamingRidge:
    rng = np.random.default_rng(0)
    return StreamingRidge(alpha=0.1, method=method).fit(rng.random((20, D)), rng.random((20, K)))


def batch(rows: int = 3, d: int = D, k: int = K, bad: str | None = None):
    rng = np.random.default_rng(1)
    H, Y = rng.random((rows, d)), rng.random((rows, k))
    if bad == "nan-H":
        H[1, 2] = np.nan
    if bad == "inf-Y":
        Y[0, 1] = np.inf
    return H, Y


CONSTRUCTION = [
    (dict(alpha=0.0), ValueError, "alpha must be > 0 for streaming"),
    (dict(alpha=-1.0), ValueError, r"alpha \(the ridge λ\) must be a finite number >= 0, got -1.0"),
    (dict(alpha=float("nan")), ValueError, "must be a finite number"),
    (dict(alpha="0.1"), ValueError, "must be a finite number >= 0, got '0.1'"),
    (dict(method="woodbury"), ValueError, "unknown method 'woodbury'; choose one of 'cholesky'"),
    (dict(dtype="float16"), ValueError, "unknown dtype 'float16'"),
]


@pytest.mark.parametrize("kwargs, error, words", CONSTRUCTION)
def test_streaming_state_refuses_bad_parameters_at_the_first_fit(kwargs, error, words):
    rng = np.random.default_rng(0)
    with pytest.raises(error, match=words):
        StreamingRidge(**{"alpha": 0.1, **kwargs}).fit(rng.random((10, D)), rng.random((10, K)))


UPDATES = [
    (lambda: batch(d=D + 1), "H has 5 columns, expected d=4"),
    (lambda: batch(k=K + 1), "Y has 3 columns, expected k=2"),
    (lambda: (batch()[0], batch(rows=2)[1]), "H has 3 rows but Y has 2"),
    (lambda: batch(rows=0), "empty batch: H has no rows"),
    (lambda: batch(bad="nan-H"), "H contains NaN or infinite values; batch refused"),
    (lambda: batch(bad="inf-Y"), "Y contains NaN or infinite values; batch refused"),
    (lambda: (batch()[0][None], batch()[1]), r"H must be 2-D \(B, d\)"),
]


@pytest.mark.parametrize("method", ["cholesky", "listing3", "information"])
@pytest.mark.parametrize("make_batch, words", UPDATES)
def test_a_refused_batch_names_the_problem_and_leaves_the_state_unchanged(method, make_batch, words):
    state = started(method)
    before = (np.array(state.coef_, copy=True), state.n_samples)
    with pytest.raises(ValueError, match=words):
        state.update(*make_batch())
    np.testing.assert_array_equal(state.coef_, before[0])
    assert state.n_samples == before[1]


def test_update_before_any_fit_says_how_to_start():
    with pytest.raises(RuntimeError, match=r"no initial fit: call fit\(H, Y\) or from_normal_equations"):
        StreamingRidge(alpha=0.1).update(*batch())


def test_empty_normal_equations_cannot_start_a_stream():
    with pytest.raises(ValueError, match="the initial normal equations hold no samples"):
        StreamingRidge.from_normal_equations(NormalEquations(D, K), alpha=0.1)


LOADER = [
    (dict(name="mnits"), ValueError, "unknown dataset 'mnits'; known datasets: mnist, fashion-mnist, cifar10"),
    (dict(name="mnist", subset=0), ValueError, "subset must be an integer >= 1 \\(or None\\), not 0"),
    (dict(name="mnist", subset=2.5), ValueError, "subset must be an integer >= 1 \\(or None\\), not 2.5"),
    (dict(name="mnist", subset=True), ValueError, "subset must be an integer >= 1 \\(or None\\), not True"),
    (dict(name="mnist", subset=-3), ValueError, "subset must be an integer >= 1 \\(or None\\), not -3"),
]


@pytest.mark.parametrize("kwargs, error, words", LOADER)
def test_loader_refuses_bad_arguments_before_searching(kwargs, error, words):
    with pytest.raises(error, match=words):
        data.load_dataset(**kwargs)


def test_a_root_without_the_files_lists_every_folder_searched(tmp_path, monkeypatch):
    monkeypatch.delenv("GREENELM_DATA", raising=False)
    monkeypatch.setenv("GREENELM_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(data, "candidate_roots", lambda name, root=None: [tmp_path / "empty"])
    with pytest.raises(data.DataNotFoundError, match="MNIST not found") as caught:
        data.load_dataset("mnist", root=tmp_path / "empty")
    assert str(tmp_path / "empty") in str(caught.value)
    assert "train-images-idx3-ubyte" in str(caught.value)


@pytest.fixture(scope="module")
def tiny_dataset():
    rng = np.random.default_rng(0)
    images = rng.integers(0, 256, (6, 2, 2), dtype=np.uint8)
    labels = np.arange(6) % 3
    return data.Dataset("mnist", images, labels, images, labels, tuple("abc"), "nowhere")


@pytest.mark.parametrize("split, dtype, words", [
    ("validation", np.float64, "split must be 'train' or 'test', not 'validation'"),
    ("train", np.int64, "flat\\(\\) needs a floating dtype, not int64"),
    ("train", np.uint8, "flat\\(\\) needs a floating dtype, not uint8"),
])
def test_flat_names_a_bad_split_or_dtype(tiny_dataset, split, dtype, words):
    with pytest.raises(ValueError, match=words):
        tiny_dataset.flat(split, dtype)


def test_partial_fit_with_a_single_class_names_the_classes_argument():
    from greenelm import ELMClassifier

    X = np.random.default_rng(0).random((6, 3))
    with pytest.raises(ValueError, match=r"ELMClassifier needs at least 2 classes in classes; got 1 class \(7\)"):
        ELMClassifier(n_hidden=5).partial_fit(X, np.full(6, 7), classes=[7])


@pytest.mark.parametrize("backend", ["numpy", "torch"])
def test_an_overflowing_batch_is_refused_and_the_state_is_unchanged(backend):
    from greenelm.solvers import NumericalOverflowError

    state, (H, Y) = started(), batch()
    if backend == "torch":
        torch = pytest.importorskip("torch")
        rng = np.random.default_rng(0)
        state = StreamingRidge(alpha=0.1).fit(torch.as_tensor(rng.random((20, D))), torch.as_tensor(rng.random((20, K))))
        H, Y = torch.as_tensor(H), torch.as_tensor(Y)
    as_numpy = (lambda a: a.numpy().copy()) if backend == "torch" else (lambda a: a.copy())  # noqa: E731
    before = as_numpy(state.coef_)
    with pytest.raises(NumericalOverflowError, match="the streaming update overflowed.*state is unchanged"):
        state.update(H * 1e200, Y)
    np.testing.assert_array_equal(as_numpy(state.coef_), before)
    assert state.n_samples == 20
