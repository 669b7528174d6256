"""The d → ∞ Green-ELM as estimators (greenelm.kernel_limit): scikit-learn's checks, exactness against
a float64 reference, views, the held-out jitter choice, equality with greenelm.kernels' functions (the
book's code path), model files, bad parameters and the memory plan."""

from __future__ import annotations

import io
import json
import math
import tracemalloc
import warnings
import zipfile

import numpy as np
import pytest
import scipy.linalg
from sklearn.utils.estimator_checks import parametrize_with_checks

import greenelm
from greenelm import KernelLimitClassifier, KernelLimitRegressor, ModelFileError, load_model
from greenelm import kernel_limit, kernels
from greenelm.kernel_limit import fit_memory, held_out_rows


# -- data and an independent float64 reference -----------------------------------------------------
def mirror(X):
    """Columns reversed: an involution whose kernel is the kernel (norms and inner products kept)."""
    return X[:, ::-1]


def identity(X):
    return X


def halve(X):
    return 0.5 * X


def blobs(n=120, d=6, k=3, seed=0, spread=1.0):
    rng = np.random.default_rng(seed)
    centres = 2.5 * rng.standard_normal((k, d))
    y = rng.integers(0, k, n)
    return centres[y] + spread * rng.standard_normal((n, d)), y


def arccos64(X, Z, sigma_w=1.0):
    """K(x, z) = |x̃||z̃| (sin θ + (π − θ) cos θ) / (2π), x̃ = [σ_w x, 1], in float64."""
    Xa = np.hstack([sigma_w * np.asarray(X, float), np.ones((len(X), 1))])
    Za = np.hstack([sigma_w * np.asarray(Z, float), np.ones((len(Z), 1))])
    nx, nz = np.linalg.norm(Xa, axis=1), np.linalg.norm(Za, axis=1)
    cos = np.clip(Xa @ Za.T / np.outer(nx, nz), -1, 1)
    theta = np.arccos(cos)
    return np.outer(nx, nz) * (np.sin(theta) + (np.pi - theta) * cos) / (2 * np.pi)


def averaged64(X, Z, views, sigma_w=1.0):
    """mean over views a, b of K(v_a(X), v_b(Z)): V² blocks, float64."""
    return np.mean([arccos64(a(X), b(Z), sigma_w) for a in views for b in views], axis=0)


def ridge64(K, Y, jitter):
    """(K + μI)⁻¹ Y with μ = jitter · mean(diag K), by SciPy in float64."""
    mu = jitter * np.mean(np.diag(K))
    return scipy.linalg.solve(K + mu * np.eye(len(K)), Y, assume_a="pos")


def relative(a, b) -> float:
    return float(np.linalg.norm(a - b) / np.linalg.norm(b))


# -- scikit-learn's own checks ---------------------------------------------------------------------
CHECKED = [KernelLimitClassifier(), KernelLimitRegressor(),
           # the held-out choice and views, each row block of 7 rows
           KernelLimitClassifier(jitter=[1e-3, 1e-1], weight_scale="he", views=[identity, halve], block_rows=7),
           KernelLimitRegressor(jitter=[1e-3, 1e-1], validation_size=0.3, random_state=1, views=[identity, mirror])]
# (a mirror view makes a classifier blind to the order of the columns: on the checks' two-column
# blobs that costs the training accuracy check_classifiers_train asks for, as it should)
@parametrize_with_checks(CHECKED, expected_failed_checks=kernel_limit.expected_failed_checks)
def test_scikit_learn_checks(estimator, check):
    check(estimator)


def test_exported_lazily_from_greenelm():
    assert {"KernelLimitClassifier", "KernelLimitRegressor"} <= set(greenelm.__all__)
    assert greenelm.KernelLimitClassifier is KernelLimitClassifier


# -- exactness ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("weight_scale", ["unit", "he"])
def test_regressor_equals_the_float64_kernel_ridge_to_float32_precision(weight_scale):
    rng = np.random.default_rng(1)
    X, T = rng.standard_normal((80, 5)), rng.standard_normal((30, 5))
    Y = np.column_stack([np.sin(X[:, 0]), X[:, 1] * X[:, 2]])
    sigma = 1.0 if weight_scale == "unit" else math.sqrt(2 / 5)
    reference = arccos64(T, X, sigma) @ ridge64(arccos64(X, X, sigma), Y, 1e-2)
    model = KernelLimitRegressor(jitter=1e-2, weight_scale=weight_scale).fit(X, Y)
    assert relative(model.predict(T), reference) < 1e-4
    assert model.mu_ == pytest.approx(1e-2 * np.mean(np.diag(arccos64(X, X, sigma))), rel=1e-6)
    assert model.predict(T).shape == (30, 2)
    one = KernelLimitRegressor(jitter=1e-2, weight_scale=weight_scale).fit(X, Y[:, 0])
    assert one.predict(T).shape == (30,)
    assert relative(one.predict(T), reference[:, 0]) < 1e-4


def test_classifier_scores_are_the_kernel_ridge_on_one_hot_targets_with_string_labels():
    X, y = blobs()
    labels = np.array(["cat", "dog", "emu"])[y]
    model = KernelLimitClassifier(jitter=1e-3).fit(X[:90], labels[:90])
    onehot = np.eye(3)[y[:90]]
    reference = arccos64(X[90:], X[:90]) @ ridge64(arccos64(X[:90], X[:90]), onehot, 1e-3)
    assert relative(model.decision_function(X[90:]), reference) < 1e-4
    assert model.classes_.tolist() == ["cat", "dog", "emu"]
    np.testing.assert_array_equal(model.predict(X[90:]), np.array(["cat", "dog", "emu"])[reference.argmax(1)])
    binary = KernelLimitClassifier(jitter=1e-3).fit(X[:90], y[:90] == 0)
    scores = arccos64(X[90:], X[:90]) @ ridge64(arccos64(X[:90], X[:90]), np.eye(2)[(y[:90] == 0).astype(int)], 1e-3)
    np.testing.assert_allclose(binary.decision_function(X[90:]), scores[:, 1] - scores[:, 0], rtol=1e-3, atol=1e-4)


def test_views_average_the_kernel_over_every_pair_of_views():
    rng = np.random.default_rng(2)
    X, T = rng.standard_normal((70, 6)), rng.standard_normal((20, 6))
    y = np.sin(X[:, 0]) + X[:, 5]

    def shift(A):
        return np.roll(A, 1, axis=1) + 0.5

    views = [identity, mirror, shift]
    model = KernelLimitRegressor(jitter=1e-2, views=views, block_rows=16).fit(X, y)
    reference = averaged64(T, X, views) @ ridge64(averaged64(X, X, views), y, 1e-2)
    assert relative(model.predict(T), reference) < 1e-4
    # not the kernel of X alone, nor of one pair of views
    plain = arccos64(T, X) @ ridge64(arccos64(X, X), y, 1e-2)
    assert relative(plain, reference) > 1e-2
    assert model.n_views_ == 3 and model.X_fit_.shape == (3, 70, 6)


def test_a_mirror_view_makes_predictions_mirror_invariant():
    X, y = blobs(d=8, seed=3)
    model = KernelLimitClassifier(jitter=1e-2, views=[identity, mirror]).fit(X[:100], y[:100])
    np.testing.assert_allclose(model.decision_function(mirror(X[100:])), model.decision_function(X[100:]),
                               rtol=0, atol=1e-4)      # float32 rounding of the same sums in another order
    without = KernelLimitClassifier(jitter=1e-2).fit(X[:100], y[:100])
    assert np.abs(without.decision_function(mirror(X[100:])) - without.decision_function(X[100:])).max() > 1e-2


def test_views_may_change_the_width_and_are_applied_in_blocks_of_rows():
    X, y = blobs(n=60, d=4, seed=4)
    calls = []

    def squares(A):
        calls.append(len(A))
        return np.hstack([A, A ** 2])

    model = KernelLimitClassifier(jitter=1e-3, views=squares, block_rows=25).fit(X, y)
    assert model.X_fit_.shape == (1, 60, 8)
    assert max(calls) <= 25
    reference = arccos64(squares(X[:5]), squares(X)) @ ridge64(arccos64(squares(X), squares(X)), np.eye(3)[y], 1e-3)
    assert relative(model.decision_function(X[:5]), reference) < 1e-4


# -- the held-out choice of the jitter -----------------------------------------------------------------
def test_held_out_rows_are_a_seeded_disjoint_split_of_the_training_rows():
    fit, validation = held_out_rows(100, None, 0.25, seed=7)
    assert len(fit) == 75 and len(validation) == 25 and not np.intersect1d(fit, validation).size
    assert fit.min() >= 0 and max(fit.max(), validation.max()) < 100
    order = np.random.default_rng(7).permutation(100)          # the book's held_out_split
    np.testing.assert_array_equal(validation, np.sort(order[75:]))
    fit, validation = held_out_rows(100, 40, 30, seed=7)
    np.testing.assert_array_equal(fit, np.sort(order[:40]))
    np.testing.assert_array_equal(validation, np.sort(order[40:70]))


def test_the_chosen_jitter_is_the_argmax_of_the_held_out_accuracy_on_training_rows_only():
    X, y = blobs(n=200, d=5, seed=5, spread=2.2)     # overlapping classes: the ridge matters
    jitters = [1e-4, 1e-2, 1.0, 30.0]
    model = KernelLimitClassifier(jitter=jitters, validation_size=60, random_state=3).fit(X[:150], y[:150])
    fit, validation = held_out_rows(150, None, 60, seed=3)
    assert fit.max() < 150 and validation.max() < 150
    K = arccos64(X[:150], X[:150])
    accuracies = []
    for jitter in jitters:
        scores = K[np.ix_(validation, fit)] @ ridge64(K[np.ix_(fit, fit)], np.eye(3)[y[fit]], jitter)
        accuracies.append(float(np.mean(scores.argmax(1) == y[validation])))
    np.testing.assert_allclose(model.validation_scores_, accuracies, atol=1 / 60 + 1e-12)   # a row at most
    best = max(model.validation_scores_)
    assert model.jitter_ == max(j for j, s in zip(jitters, model.validation_scores_) if s == best)
    assert len(set(accuracies)) > 1                                 # the choice is not a tie
    # then the ridge at the chosen jitter on all training rows, as if given
    given = KernelLimitClassifier(jitter=model.jitter_).fit(X[:150], y[:150])
    np.testing.assert_array_equal(model.dual_coef_, given.dual_coef_)
    # the same rows and seed give the same choice; the test rows play no part in it
    again = KernelLimitClassifier(jitter=jitters, validation_size=60, random_state=3).fit(X[:150], y[:150])
    assert again.validation_scores_ == model.validation_scores_


def test_the_regressor_chooses_by_the_held_out_squared_error():
    rng = np.random.default_rng(6)
    X = rng.uniform(-2, 2, (120, 2))
    y = np.sin(2 * X[:, 0]) + 0.5 * rng.standard_normal(120)     # noisy: interpolation loses
    model = KernelLimitRegressor(jitter=[1e-5, 1e-1, 10.0], random_state=0).fit(X, y)
    fit, validation = held_out_rows(120, None, 0.2, seed=0)
    K = arccos64(X, X)
    errors = [float(np.mean((K[np.ix_(validation, fit)] @ ridge64(K[np.ix_(fit, fit)], y[fit, None], j)
                             - y[validation, None]) ** 2)) for j in (1e-5, 1e-1, 10.0)]
    # float32 against float64: the near-interpolating ridge (1e-5) is the least well conditioned
    np.testing.assert_allclose(-np.array(model.validation_scores_), errors, rtol=2e-2)
    assert model.jitter_ == (1e-5, 1e-1, 10.0)[int(np.argmin(errors))]


# -- the book's functions: the same numbers ----------------------------------------------------------
def test_equals_held_out_kernel_ridge_predict_with_mirror_views_as_the_frontier_calls_it():
    """The frontier's held_out_limit_point: views [features, mirrored features], He scale, jitters
    chosen on seeded held-out rows, then all rows (kernels.held_out_kernel_ridge_predict)."""
    X, y = blobs(n=260, d=12, k=4, seed=8, spread=1.8)
    X, T = X[:200].astype(np.float32), X[200:].astype(np.float32)
    jitters, seed = [1e-6, 1e-4, 1e-2, 1e-1], 11
    fit, validation = held_out_rows(200, 120, 50, seed)
    scores, info = kernels.held_out_kernel_ridge_predict(
        [X.copy(), np.ascontiguousarray(mirror(X))], np.eye(4)[y[:200]], [T.copy(), np.ascontiguousarray(mirror(T))],
        jitters, fit, validation, weight_scale="he", block_rows=64)
    model = KernelLimitClassifier(jitter=jitters, views=[identity, mirror], weight_scale="he", fit_size=120,
                                  validation_size=50, random_state=seed, block_rows=64).fit(X, y[:200])
    assert model.jitter_ == info["jitter"] and model.validation_scores_ == info["validation"]
    assert model.mu_ == pytest.approx(info["mu"], rel=1e-12)
    ours = model._scores(T)
    assert np.abs(ours - scores).max() <= 1e-5 * np.abs(scores).max()
    np.testing.assert_array_equal(model.predict(T), scores.argmax(1))


def test_equals_the_in_place_kernel_ridges_with_one_jitter():
    X, y = blobs(n=150, d=9, seed=9)
    X, T = X[:110].astype(np.float32), X[110:].astype(np.float32)
    Y = np.eye(3)[y[:110]]
    (averaged,), info = kernels.averaged_kernel_ridge_predict([X.copy(), np.ascontiguousarray(mirror(X))], Y,
                                                              [T.copy(), np.ascontiguousarray(mirror(T))], [1e-4],
                                                              weight_scale="he")
    model = KernelLimitClassifier(jitter=1e-4, views=[identity, mirror], weight_scale="he").fit(X, y[:110])
    # the estimator sums its scores K̄ A in float64, the in-place ridge in float32 (N = 110 terms at μ of
    # jitter 1e-4): they agree to the float32 sum's rounding
    assert np.abs(model._scores(T) - averaged).max() <= 1e-4 * np.abs(averaged).max()
    single, info = kernels.kernel_ridge_predict_inplace(X.copy(), Y, T.copy(), 1e-4, weight_scale="he", attempts=3)
    plain = KernelLimitClassifier(jitter=1e-4, weight_scale="he", attempts=3).fit(X, y[:110])
    assert plain.jitter_ == info["jitter"] and plain.attempts_ == info["attempts"]
    assert np.abs(plain._scores(T) - single).max() <= 1e-4 * np.abs(single).max()


def test_fit_leaves_the_inputs_and_the_views_outputs_unchanged():
    X, y = blobs(n=50, d=5, seed=10)
    X = X.astype(np.float32)
    kept = X.copy()
    held = []

    def keep(A):
        held.append(A)          # the view's output is the caller's array
        return A

    model = KernelLimitClassifier(views=[keep], weight_scale="he").fit(X, y)
    model.predict(X)
    np.testing.assert_array_equal(X, kept)
    assert not np.shares_memory(model.X_fit_, X)


# -- model files -------------------------------------------------------------------------------------
def test_save_and_load_give_identical_predictions(tmp_path):
    X, y = blobs(n=100, seed=11)
    labels = np.array(["a", "bb", "c"])[y]
    model = KernelLimitClassifier(jitter=[1e-3, 1e-1], weight_scale="he").fit(X[:80], labels[:80])
    loaded = load_model(model.save(tmp_path / "kernel.npz"))
    assert type(loaded) is KernelLimitClassifier and loaded.get_params() == model.get_params()
    np.testing.assert_array_equal(loaded.decision_function(X[80:]), model.decision_function(X[80:]))
    np.testing.assert_array_equal(loaded.predict(X[80:]), model.predict(X[80:]))
    assert (loaded.jitter_, loaded.mu_, loaded.validation_scores_) == (model.jitter_, model.mu_, model.validation_scores_)
    regressor = KernelLimitRegressor(jitter=1e-2).fit(X[:80], np.column_stack([X[:80, 0], X[:80, 1] ** 2]))
    buffer = io.BytesIO()
    regressor.save(buffer)
    buffer.seek(0)
    np.testing.assert_array_equal(load_model(buffer).predict(X[80:]), regressor.predict(X[80:]))


def test_a_model_with_views_is_saved_without_code_and_takes_them_again(tmp_path):
    X, y = blobs(n=90, seed=12)
    model = KernelLimitClassifier(jitter=1e-3, views=[identity, mirror]).fit(X[:70], y[:70])
    path = model.save(tmp_path / "views.npz")
    with pytest.warns(UserWarning, match="2 view function"):
        loaded = load_model(path)
    with pytest.raises(ValueError, match="fitted with 2 view function.*set_params"):
        loaded.predict(X[70:])
    loaded.set_params(views=[identity])
    with pytest.raises(ValueError, match="fitted with 2 view function"):
        loaded.predict(X[70:])
    loaded.set_params(views=[identity, mirror])
    np.testing.assert_array_equal(loaded.decision_function(X[70:]), model.decision_function(X[70:]))
    with zipfile.ZipFile(path) as archive:
        assert sorted(archive.namelist()) == ["classes.npy", "coef.npy", "meta.npy", "train_rows.npy"]


def rewrite(path, change):
    """The model file at ``path`` with its meta (a dict) changed by ``change``; the digest left as it was."""
    with np.load(path, allow_pickle=False) as archive:
        arrays = {name: archive[name] for name in archive.files}
    meta = json.loads(str(arrays.pop("meta")))
    change(meta, arrays)
    out = path.with_name("changed.npz")
    np.savez(out, meta=np.array(json.dumps(meta)), **arrays)
    return out


@pytest.mark.parametrize("change, field, words", [
    (lambda m, a: m.update(format_version=5), "format_version", "5 is not the format"),
    (lambda m, a: m["params"].update(jitter=-1.0), "params", "jitter must be a finite number >= 0"),
    (lambda m, a: m.update(n_views=3), "train_rows", "does not hold the 3 view"),
    (lambda m, a: a.update(coef=a["coef"].astype(np.float64)), "coef", "dtype float64 is not allowed"),
    (lambda m, a: m["fitted"].update(jitter=0.5), "content_sha256", "differ from those it was saved with"),
    (lambda m, a: a.update(coef=a["coef"] * 2), "content_sha256", "differ from those it was saved with"),
])
def test_a_changed_model_file_is_refused_naming_the_field(tmp_path, change, field, words):
    X, y = blobs(n=40, seed=13)
    path = KernelLimitClassifier().fit(X, y).save(tmp_path / "model.npz")
    with pytest.raises(ModelFileError, match=words) as error:
        load_model(rewrite(path, change))
    assert error.value.field == field


# -- on a torch device ----------------------------------------------------------------------------
def _flip(X):
    return np.asarray(X)[:, ::-1]


def _same(X):
    return np.asarray(X)


@pytest.mark.parametrize("params", [
    {"jitter": 1e-3},
    {"jitter": [1e-4, 1e-2, 1e-1]},
    {"jitter": 1e-3, "views": [_same, _flip]},
    {"jitter": 1e-3, "views": [_same, _flip], "symmetric_views": True},
    {"jitter": [1e-3, 1e-1], "views": [_same, _flip], "depth": 2},
], ids=["one-jitter", "listed-jitters", "views", "symmetric-views", "depth-2"])
def test_the_torch_path_equals_the_numpy_path_to_float32_rounding(params, torch_device):
    """The same kernel ridge on a torch device: the same jitter chosen from the same held-out scores, the
    coefficients and the scores within float32 rounding amplified by the kernel's conditioning, the same
    labels; the fitted arrays NumPy."""
    X, y = blobs(n=260, seed=21)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)        # a choice at the grid's edge warns on both
        host = KernelLimitClassifier(**params).fit(X[:200], y[:200])
        device = KernelLimitClassifier(device=torch_device, **params).fit(X[:200], y[:200])
    assert device.jitter_ == host.jitter_ and device.validation_scores_ == host.validation_scores_
    assert isinstance(device.X_fit_, np.ndarray) and isinstance(device.dual_coef_, np.ndarray)
    np.testing.assert_array_equal(device.X_fit_, host.X_fit_)
    # float32 rounding of the kernel, amplified by the condition number of K̄ + μI (float64 here)
    views = list(host.X_fit_) if not params.get("symmetric_views") else [host.X_fit_[0], _flip(host.X_fit_[0])]
    norms = [kernels._augmented_norms(view) for view in views]
    system = kernel_limit._averaged_block(views, views, norms, norms, params.get("depth", 1)).astype(np.float64)
    condition = np.linalg.cond(system + host.mu_ * np.eye(len(system)))
    tolerance = 10 * np.finfo(np.float32).eps * condition
    assert np.abs(device.dual_coef_ - host.dual_coef_).max() <= tolerance * np.abs(host.dual_coef_).max()
    scores, expected = device.decision_function(X[200:]), host.decision_function(X[200:])
    assert np.abs(scores - expected).max() <= tolerance * np.abs(expected).max()
    np.testing.assert_array_equal(device.predict(X[200:]), host.predict(X[200:]))
    assert set(device.fit_seconds_) == {"kernel", "fit"}


def test_at_jitter_zero_the_device_fit_interpolates_its_training_rows(torch_device):
    """μ = 0: the ridge interpolates (the coefficients themselves hang on the float32 kernel's conditioning,
    so the two paths' are not compared at jitter 0)."""
    X, y = blobs(n=120, seed=5, spread=3.0)
    model = KernelLimitClassifier(jitter=0.0, device=torch_device).fit(X, y)
    assert model.mu_ == 0.0
    np.testing.assert_array_equal(model.predict(X), y)


def test_a_model_fitted_on_a_device_saves_and_loads_anywhere(tmp_path, torch_device):
    """The model file of a device fit holds NumPy arrays and the device: loaded as saved it runs there,
    with device=None on NumPy, both giving the saved model's predictions."""
    X, y = blobs(n=80, seed=14)
    model = KernelLimitClassifier(device=torch_device).fit(X, y)
    path = model.save(tmp_path / "model.npz")
    as_saved, on_numpy = load_model(path), load_model(path, device=None)
    assert as_saved.device == torch_device and on_numpy.device is None
    np.testing.assert_array_equal(as_saved.predict(X), model.predict(X))
    np.testing.assert_array_equal(on_numpy.predict(X), model.predict(X))
    assert load_model(load_model(path, device=None).save(tmp_path / "numpy.npz"), device=torch_device).device \
        == torch_device


def test_a_saved_device_this_machine_lacks_is_refused_naming_what_to_pass(tmp_path):
    X, y = blobs(n=40, seed=14)
    path = KernelLimitClassifier().fit(X, y).save(tmp_path / "model.npz")
    changed = rewrite(path, lambda meta, arrays: meta["params"].update(device="no-such-device"))
    with pytest.raises(ValueError, match="device='no-such-device', which .*device=None"):
        load_model(changed)


def test_the_device_memory_plan_is_checked_before_anything_is_allocated(monkeypatch):
    """A fit on a device whose memory cannot hold the kernel and its factor is refused naming them."""
    pytest.importorskip("torch")
    X, y = blobs(n=300, seed=3)

    def limit(device=None, cgroup_root=None):
        return (10_000, "a test's device limit") if device is not None else (10 ** 12, "the host")

    monkeypatch.setattr("greenelm._validation.memory_limit", limit)
    with pytest.raises(MemoryError, match=r"on cpu needs.*the kernel \(N × N float32, N = 300\).*a test's device"):
        KernelLimitClassifier(device="cpu").fit(X, y)


# -- bad parameters and inputs -----------------------------------------------------------------------
@pytest.mark.parametrize("params, words", [
    ({"jitter": -1e-3}, "jitter must be a finite number >= 0"),
    ({"jitter": float("nan")}, "jitter must be a finite number >= 0"),
    ({"jitter": []}, "jitter is an empty list"),
    ({"jitter": [1e-3, -1.0]}, "each jitter of the list must be a finite number >= 0"),
    ({"jitter": "small"}, "jitter must be a finite number"),
    ({"weight_scale": "xavier"}, "unknown weight_scale 'xavier'"),
    ({"views": [identity, "mirror"]}, "views must be None, a function"),
    ({"views": []}, "views must be None, a function"),
    ({"validation_size": 0.0}, "validation_size must be a number of rows >= 1 or a fraction"),
    ({"validation_size": 1.5}, "validation_size must be a number of rows >= 1 or a fraction"),
    ({"fit_size": 0}, "fit_size must be a number of rows >= 1"),
    ({"attempts": 0}, "attempts must be an integer >= 1"),
    ({"attempts": 3, "jitter": [1e-3, 1e-2]}, "attempts > 1 retries a given jitter"),
    ({"block_rows": 0}, "block_rows must be an integer >= 1"),
    ({"progress": "yes"}, "progress must be True or False"),
    ({"symmetric_views": "yes"}, "symmetric_views must be True or False"),
    ({"depth": 0}, "depth must be an integer >= 1"),
    ({"depth": 1.5}, "depth must be an integer >= 1"),
    ({"jitter": [1e-3, 1e-2], "fit_size": 30, "validation_size": 20}, "at least 1 fitted and 1 held-out row"),
])
def test_bad_parameters_are_refused_at_fit_naming_them(params, words):
    X, y = blobs(n=40, seed=15)
    with pytest.raises(ValueError, match=words):
        KernelLimitClassifier(**params).fit(X, y)


@pytest.mark.parametrize("views, words", [
    ([identity, lambda A: A[:, :3]], r"views\[1\] returned shape \(\d+, 3\).*expected \(\d+, 6\)"),
    ([lambda A: A[:-1]], r"views\[0\] returned shape \(\d+, 6\) for rows 0–"),
    ([lambda A: A[:, 0]], r"views\[0\] returned shape \(\d+,\)"),
    ([lambda A: A.astype(str)], "views must return numbers"),
    ([lambda A: A * np.inf], "hold values beyond float32's range"),
])
def test_views_returning_the_wrong_rows_are_refused_naming_the_view(views, words):
    X, y = blobs(n=40, seed=16)
    with pytest.raises(ValueError, match=words):
        KernelLimitClassifier(views=views).fit(X, y)


def test_a_view_that_changes_width_at_predict_is_refused():
    X, y = blobs(n=40, seed=17)
    state = {"width": 6}
    model = KernelLimitClassifier(views=lambda A: A[:, :state["width"]]).fit(X, y)
    state["width"] = 4
    with pytest.raises(ValueError, match=r"views\[0\] returned shape \(\d+, 4\).*expected \(\d+, 6\)"):
        model.predict(X)


def test_an_indefinite_kernel_at_jitter_zero_raises_naming_the_jitter():
    X = np.repeat(np.random.default_rng(0).standard_normal((5, 3)), 4, axis=0)    # repeated rows: K singular
    y = np.arange(20) % 2
    with pytest.raises(np.linalg.LinAlgError, match="did not factorise in 1 attempt.*jitter 0"):
        KernelLimitClassifier(jitter=0.0).fit(X, y)
    assert KernelLimitClassifier(jitter=0.0 + 1e-3).fit(X, y).attempts_ == 1


# -- memory ------------------------------------------------------------------------------------------
def test_an_absurd_training_set_is_refused_before_anything_is_allocated():
    n = 2_000_000
    X, y = np.zeros((n, 1)), np.arange(n) % 2
    tracemalloc.start()
    try:
        with pytest.raises(MemoryError) as error:
            KernelLimitClassifier(views=[identity, mirror]).fit(X, y)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    words = str(error.value)
    assert "the kernel (N × N float32, N = 2,000,000) 16 TB" in words
    assert "training rows (2 view(s) × N × 1 float32) 16 MB" in words and "is available" in words
    assert peak < 200 * 2**20          # validation's copies of X and y at most, nothing of the plan


def test_the_memory_plan_counts_the_kernel_the_views_and_the_held_out_block():
    parts = fit_memory(50_000, 18_432, 2, 10, 1024, n_fit=20_000, n_validation=10_000)
    sizes = dict(zip([name.split(" (")[0] for name in parts], parts.values()))
    assert sizes["the kernel"] == 4 * 50_000 ** 2
    assert sizes["the training rows"] == 4 * 2 * 50_000 * 18_432
    assert sizes["the held-out choice"] >= 4 * 20_000 ** 2 + 4 * 8192 ** 2     # its block and its Cholesky's copy
    assert "the Cholesky's copy of a diagonal block" not in sizes     # stages in turn: only the largest counts
    one = dict(zip([name.split(" (")[0] for name in fit_memory(10_000, 784, 1, 10)], fit_memory(10_000, 784, 1, 10).values()))
    assert one["the Cholesky's copy of a diagonal block"] == 4 * 8192 ** 2 + 4 * 2 * 8192 * (10_000 - 8192)


def test_predict_checks_its_memory_before_allocating(monkeypatch):
    X, y = blobs(n=40, seed=18)
    model = KernelLimitClassifier().fit(X, y)
    monkeypatch.setattr("greenelm._validation.memory_limit", lambda device=None, root=None: (1000, "a test's limit"))
    with pytest.raises(MemoryError, match=r"predict on 40 rows needs .*test kernel blocks.*a test's limit"):
        model.predict(X)


def test_progress_bars_change_nothing(capsys):
    X, y = blobs(n=60, seed=19)
    quiet = KernelLimitClassifier(jitter=[1e-3, 1e-2], block_rows=16).fit(X, y)
    shown = KernelLimitClassifier(jitter=[1e-3, 1e-2], block_rows=16, progress=True).fit(X, y)
    np.testing.assert_array_equal(quiet.decision_function(X), shown.decision_function(X))


def test_set_params_after_fit_changes_nothing_until_the_next_fit():
    X, y = blobs(n=60, seed=20)
    model = KernelLimitClassifier(jitter=np.float64(1e-2), weight_scale="he", block_rows=16).fit(X[:40], y[:40])
    before = model.decision_function(X[40:])
    model.set_params(weight_scale="unit", block_rows=3, views=[mirror])
    np.testing.assert_array_equal(model.decision_function(X[40:]), before)
    assert not np.array_equal(model.fit(X[:40], y[:40]).decision_function(X[40:]), before)


# -- symmetric views: V products instead of V² -------------------------------------------------------
def half_turn(X):
    """Columns rolled by half their number: an involution that commutes with ``mirror`` (for even D)."""
    return np.roll(X, X.shape[1] // 2, axis=1)


def mirror_half_turn(X):
    return mirror(half_turn(X))


GROUPS = {"mirror": [identity, mirror], "four": [identity, mirror, half_turn, mirror_half_turn]}


@pytest.mark.parametrize("group", sorted(GROUPS))
def test_the_v_product_kernel_of_a_group_of_column_permutations_is_the_v_squared_kernel(group):
    """For views forming a group of column permutations (two: the mirror; four: the mirror and a half
    turn), mean over a of K(v_a(x), v_0(z)) is the mean over every pair: the lower triangles agree to
    float32 rounding, and are not the plain kernel's."""
    views = GROUPS[group]
    X = np.random.default_rng(20).standard_normal((90, 8))
    train = [np.ascontiguousarray(view(X), dtype=np.float32) for view in views]
    norms = [kernels._augmented_norms(view) for view in train]
    full = kernels._averaged_kernel(train, norms, 32, False)
    folded = kernels._averaged_kernel(train, norms, 32, False, symmetric=True)
    np.testing.assert_allclose(folded, full, rtol=0, atol=1e-6 * np.abs(full).max())
    np.testing.assert_allclose(np.tril(full), np.tril(averaged64(X, X, views)), rtol=1e-5, atol=1e-6)
    assert np.abs(np.tril(kernels._averaged_kernel(train[:1], norms[:1], 32, False) - full)).max() > 1e-2


@pytest.mark.parametrize("group", sorted(GROUPS))
def test_symmetric_views_fit_and_predict_as_the_v_squared_kernel_keeping_the_first_view(group):
    views = GROUPS[group]
    X, y = blobs(n=130, d=8, seed=21)
    params = dict(jitter=[1e-3, 1e-2, 1e-1], views=views, block_rows=24)
    full = KernelLimitClassifier(**params).fit(X[:100], y[:100])
    folded = KernelLimitClassifier(symmetric_views=True, **params).fit(X[:100], y[:100])
    assert folded.X_fit_.shape == (1, 100, 8) and folded.n_views_ == len(views)
    np.testing.assert_array_equal(folded.X_fit_[0], full.X_fit_[0])
    assert folded.jitter_ == full.jitter_ and folded.mu_ == pytest.approx(full.mu_, rel=1e-6)
    np.testing.assert_allclose(folded.validation_scores_, full.validation_scores_, atol=1 / 20)
    np.testing.assert_allclose(folded.decision_function(X[100:]), full.decision_function(X[100:]), rtol=0, atol=1e-4)
    np.testing.assert_array_equal(folded.predict(X[100:]), full.predict(X[100:]))
    onehot = np.eye(3)[y[:100]]
    reference = averaged64(X[100:], X[:100], views) @ ridge64(averaged64(X[:100], X[:100], views), onehot, full.jitter_)
    assert relative(folded.decision_function(X[100:]), reference) < 1e-4


def test_a_mirror_symmetric_patch_map_makes_the_image_and_its_mirror_a_group_of_views():
    """[features, features of the mirror image] of RandomPatchFeatures(mirror_symmetric=True) fit with
    two kernel products as with four; the default map (not closed under the mirror) is refused."""
    images = np.random.default_rng(22).random((80, 10, 10, 3))
    y = (images[:, :, :5].mean(axis=(1, 2, 3)) > images[:, :, 5:].mean(axis=(1, 2, 3))).astype(int)
    rows = images.reshape(80, -1)

    def views_of(features):
        def mirrored(X):
            return features.transform(X.reshape(-1, 10, 10, 3)[:, :, ::-1])
        return [features.transform, mirrored]

    symmetric = greenelm.RandomPatchFeatures((10, 10, 3), n_patches=6, patch_size=3, pool=2, n_whitening=500,
                                             mirror_symmetric=True).fit(rows[:60])
    params = dict(jitter=1e-2, weight_scale="he", views=views_of(symmetric), block_rows=16)
    full = KernelLimitClassifier(**params).fit(rows[:60], y[:60])
    folded = KernelLimitClassifier(symmetric_views=True, **params).fit(rows[:60], y[:60])
    # two float32 paths through one ridge solve: equal to float32 rounding amplified by the solve (the
    # largest elementwise difference seen on an Intel host: 1.3e-4 on values near 1); a wrong kernel moves them by tenths
    assert relative(folded.decision_function(rows[60:]), full.decision_function(rows[60:])) < 2e-3
    assert folded.X_fit_.shape == (1, 60, symmetric.n_features_out)
    plain = greenelm.RandomPatchFeatures((10, 10, 3), n_patches=6, patch_size=3, pool=2, n_whitening=500).fit(rows[:60])
    with pytest.raises(ValueError, match="differs from the kernel of 4 .* no such group .* symmetric_views=False"):
        KernelLimitClassifier(jitter=1e-2, views=views_of(plain), symmetric_views=True).fit(rows[:60], y[:60])


def test_views_that_are_no_group_are_refused_at_fit_and_shifts_are_not():
    X, y = blobs(n=60, d=8, seed=23)

    def shift(A):                      # one column over, a zero in at the border
        out = np.roll(A, 1, axis=1)
        out[:, 0] = 0
        return out

    for views in ([identity, shift], [identity, halve], [identity, mirror, half_turn]):
        with pytest.raises(ValueError, match="symmetric_views=True declares .* no such group"):
            KernelLimitClassifier(views=views, symmetric_views=True).fit(X, y)
    assert KernelLimitClassifier(views=[identity, shift]).fit(X, y).n_views_ == 2    # the V² kernel takes them


def test_a_symmetric_model_file_keeps_the_first_view_and_old_files_load(tmp_path):
    from greenelm import _persistence as persistence

    X, y = blobs(n=90, d=8, seed=24)
    model = KernelLimitClassifier(jitter=1e-3, views=[identity, mirror], symmetric_views=True).fit(X[:70], y[:70])
    path = model.save(tmp_path / "symmetric.npz")
    with pytest.warns(UserWarning, match="2 view function"):
        loaded = load_model(path)
    assert loaded.get_params()["symmetric_views"] is True and loaded.X_fit_.shape == (1, 70, 8)
    assert loaded.n_views_ == 2
    loaded.set_params(views=[identity, mirror])
    np.testing.assert_array_equal(loaded.decision_function(X[70:]), model.decision_function(X[70:]))
    with pytest.raises(ModelFileError, match="does not hold the 2 view"):
        load_model(rewrite(path, lambda m, a: m["params"].update(symmetric_views=False)))
    # a file written before the parameter existed: no symmetric_views among its parameters
    plain = KernelLimitClassifier(jitter=1e-3).fit(X[:70], y[:70])
    with np.load(plain.save(tmp_path / "plain.npz"), allow_pickle=False) as archive:
        arrays = {name: archive[name] for name in archive.files}
    meta = json.loads(str(arrays.pop("meta")))
    del meta["params"]["symmetric_views"], meta["params"]["depth"], meta["content_sha256"]
    persistence.save_archive(tmp_path / "old.npz", meta, arrays)
    old = load_model(tmp_path / "old.npz")
    assert old.get_params()["symmetric_views"] is False and old.get_params()["depth"] == 1
    np.testing.assert_array_equal(old.decision_function(X[70:]), plain.decision_function(X[70:]))


def test_the_memory_plan_counts_the_kept_first_view_of_symmetric_views_after_the_kernel_is_freed():
    """The first view's rows are copied out once the kernel is freed: at CIFAR-10's N = 50,000 and 18,432
    features the copy (3.7 GB) fits in the kernel's 10 GB, so the peak is the plain plan's (a refit once
    refused for asking 23.8 GB with 22.9 GB free); with few rows and wide features it adds what exceeds it."""
    plain = fit_memory(50_000, 18_432, 2, 10, 1024)
    assert fit_memory(50_000, 18_432, 2, 10, 1024, symmetric_views=True) == plain
    narrow_n = fit_memory(1_000, 18_432, 2, 10, 1024, symmetric_views=True)
    after = 4 * 2 * 1_000 * 18_432 + 20 * 1_000 * 10 + 4 * 1_000 * 18_432
    assert sum(narrow_n.values()) == after > sum(fit_memory(1_000, 18_432, 2, 10, 1024).values())
    assert fit_memory(50_000, 18_432, 1, 10, 1024, symmetric_views=True) == fit_memory(50_000, 18_432, 1, 10, 1024)


# -- depth: the arc-cosine kernel composed -----------------------------------------------------------
def composed64(X, Z, depth, sigma_w=1.0):
    """The arc-cosine kernel composed ``depth`` times (Cho & Saul 2009), in float64, directly: each
    layer's kernel from the previous one's values and diagonals, K' = √(k_x k_z) J(θ) / (2π)."""
    K = arccos64(X, Z, sigma_w)
    kx, kz = np.diag(arccos64(X, X, sigma_w)), np.diag(arccos64(Z, Z, sigma_w))
    for _ in range(depth - 1):
        scale = np.sqrt(np.outer(kx, kz))
        cos = np.clip(K / scale, -1, 1)
        theta = np.arccos(cos)
        K = scale * (np.sin(theta) + (np.pi - theta) * cos) / (2 * np.pi)
        kx, kz = kx * np.pi / (2 * np.pi), kz * np.pi / (2 * np.pi)       # θ = 0 on the diagonal
    return K


@pytest.mark.parametrize("depth", [1, 2, 3])
def test_the_composed_kernel_and_its_ridge_equal_a_float64_composition(depth):
    rng = np.random.default_rng(30)
    X, T = rng.standard_normal((80, 5)), rng.standard_normal((30, 5))
    Y = np.column_stack([np.sin(X[:, 0]), X[:, 1] * X[:, 2]])
    train = [np.ascontiguousarray(X, dtype=np.float32)]
    kernel = kernels._averaged_kernel(train, [kernels._augmented_norms(train[0])], 32, False, depth=depth)
    np.testing.assert_allclose(np.tril(kernel), np.tril(composed64(X, X, depth)), rtol=1e-5, atol=1e-6)
    model = KernelLimitRegressor(jitter=1e-2, depth=depth).fit(X, Y)
    reference = composed64(T, X, depth) @ ridge64(composed64(X, X, depth), Y, 1e-2)
    assert relative(model.predict(T), reference) < 1e-4
    if depth > 1:                      # not the one-layer kernel's ridge
        assert relative(arccos64(T, X) @ ridge64(arccos64(X, X), Y, 1e-2), reference) > 1e-3


def test_depth_composes_each_view_pair_before_averaging_and_keeps_the_group_symmetry():
    views = GROUPS["mirror"]
    X, y = blobs(n=110, d=8, seed=31)
    full = KernelLimitClassifier(jitter=1e-2, views=views, depth=2).fit(X[:80], y[:80])
    folded = KernelLimitClassifier(jitter=1e-2, views=views, depth=2, symmetric_views=True).fit(X[:80], y[:80])
    onehot = np.eye(3)[y[:80]]

    def averaged(A, B):
        return np.mean([composed64(a(A), b(B), 2) for a in views for b in views], axis=0)

    reference = averaged(X[80:], X[:80]) @ ridge64(averaged(X[:80], X[:80]), onehot, 1e-2)
    assert relative(full.decision_function(X[80:]), reference) < 1e-4
    np.testing.assert_allclose(folded.decision_function(X[80:]), full.decision_function(X[80:]), rtol=0, atol=1e-4)
