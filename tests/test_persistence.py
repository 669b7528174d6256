"""Persistence of ELMClassifier / ELMRegressor: model files (no pickle inside), pickle and joblib
round trips of labels of every kind, output shapes and feature names; partial_fit continuing
after loading; the device chosen on load; and bad model files refused with one clear error."""

import copy
import hashlib
import io
import json
import os
import pickle
import re
import subprocess
import sys
import warnings
import zipfile

import numpy as np
import pytest

import greenelm.features
from greenelm import ELMClassifier, ELMClassifierCV, ELMRegressor, ELMRegressorCV, ModelFileError, load_model

pd = pytest.importorskip("pandas")

D, N = 5, 240


def data(seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((N, D))
    return X, rng.integers(0, 3, N)


# -- the three ways to persist ----------------------------------------------------------------
def via_file(model, tmp_path, **save):
    return load_model(model.save(tmp_path / "model.npz", **save))


def via_pickle(model, tmp_path):
    return pickle.loads(pickle.dumps(model))


def via_joblib(model, tmp_path):
    joblib = pytest.importorskip("joblib")
    joblib.dump(model, tmp_path / "model.joblib")
    return joblib.load(tmp_path / "model.joblib")


def via_deepcopy(model, tmp_path):
    return copy.deepcopy(model)


ROUND_TRIPS = [via_file, via_pickle, via_joblib]


# -- labels of every kind ---------------------------------------------------------------------
def labels(kind, codes):
    """Labels (N,) of one kind from integer codes 0..2."""
    return {
        "int": lambda: codes,
        "negative_int": lambda: codes * 7 - 9,
        "int32": lambda: codes.astype(np.int32),
        "uint8": lambda: codes.astype(np.uint8),
        "float": lambda: codes * 3.0 - 2.0,  # -2.0, 1.0, 4.0 (scikit-learn wants integral floats)
        "bool": lambda: codes > 0,
        "str_numpy": lambda: np.array(["setosa", "versicolor", "virginica"])[codes],
        "str_object": lambda: np.array(["b", "a", "c"], dtype=object)[codes],
        "pandas_object": lambda: pd.Series(np.array(["cat", "dog", "emu"], dtype=object)[codes]),
        "pandas_category": lambda: pd.Series(np.array(["lo", "mid", "hi"])[codes], dtype="category"),
        "pandas_int_category": lambda: pd.Series(codes * 3 - 4, dtype="category"),
        "pandas_string": lambda: pd.Series(np.array(["x", "y", "z"])[codes], dtype="string"),
    }[kind]()


LABEL_KINDS = ["int", "negative_int", "int32", "uint8", "float", "bool", "str_numpy", "str_object",
               "pandas_object", "pandas_category", "pandas_int_category", "pandas_string"]


@pytest.mark.parametrize("round_trip", ROUND_TRIPS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("kind", LABEL_KINDS)
def test_classifier_labels_of_every_kind_round_trip(tmp_path, round_trip, kind):
    X, codes = data()
    y = labels(kind, codes if kind != "bool" else codes % 2)
    model = ELMClassifier(n_hidden=40, random_state=3).fit(X, y)
    loaded = round_trip(model, tmp_path)
    assert loaded.classes_.dtype == model.classes_.dtype
    np.testing.assert_array_equal(loaded.classes_, model.classes_)
    before, after = model.predict(X), loaded.predict(X)
    assert after.dtype == before.dtype and np.array_equal(after, before)
    assert len(np.unique(before)) > 1  # the labels really are predicted
    np.testing.assert_array_equal(loaded.decision_function(X), model.decision_function(X))
    assert loaded.get_params() == model.get_params()


def test_object_labels_of_mixed_types_are_refused_at_save_not_at_load(tmp_path):
    X, codes = data()
    model = ELMClassifier(n_hidden=20).fit(X, codes)
    model.classes_ = np.array([0, "one", 2.5], dtype=object)
    with pytest.raises(ValueError, match="classes_ must all be str, all bool"):
        model.save(tmp_path / "m.npz")
    assert list(tmp_path.iterdir()) == []


# -- output shapes and feature names -------------------------------------------------------------
@pytest.mark.parametrize("round_trip", ROUND_TRIPS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("shape", [(N,), (N, 1), (N, 3)], ids=str)
def test_regressor_output_shape_round_trips(tmp_path, round_trip, shape):
    X, _ = data()
    y = np.random.default_rng(1).standard_normal(shape)
    model = ELMRegressor(n_hidden=30).fit(X, y)
    loaded = round_trip(model, tmp_path)
    assert model.predict(X).shape == shape
    assert loaded.predict(X).shape == shape
    np.testing.assert_array_equal(loaded.predict(X), model.predict(X))


@pytest.mark.parametrize("round_trip", ROUND_TRIPS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("make", [ELMClassifier, ELMRegressor])
def test_feature_names_round_trip(tmp_path, round_trip, make):
    X, y = data()
    frame = pd.DataFrame(X, columns=[f"pixel {i}" for i in range(D)])
    model = make(n_hidden=20).fit(frame, y)
    loaded = round_trip(model, tmp_path)
    assert loaded.feature_names_in_.dtype == object
    np.testing.assert_array_equal(loaded.feature_names_in_, model.feature_names_in_)
    np.testing.assert_array_equal(loaded.predict(frame), model.predict(frame))
    with pytest.raises(ValueError, match="feature names"):
        loaded.predict(frame.rename(columns={"pixel 0": "other"}))


def test_no_feature_names_after_fitting_on_an_array(tmp_path):
    X, y = data()
    loaded = via_file(ELMClassifier(n_hidden=20).fit(X, y), tmp_path)
    assert not hasattr(loaded, "feature_names_in_")


# -- set_params after fit changes nothing until the next fit -------------------------------------
SET_AFTER_FIT = [{"weight_scale": "he"}, {"bias": "uniform"}, {"n_hidden": 55}, {"dtype": "float32"},
                 {"random_state": 9}, {"alpha": 10.0, "solver": "lu", "chunk_size": 7}]


@pytest.mark.parametrize("round_trip", ROUND_TRIPS + [via_deepcopy], ids=lambda f: f.__name__)
@pytest.mark.parametrize("change", SET_AFTER_FIT, ids=lambda c: "-".join(c))
def test_set_params_after_fit_keeps_the_fitted_model_through_every_round_trip(tmp_path, round_trip, change):
    X, y = data()
    model = ELMClassifier(n_hidden=40, random_state=3).fit(X, y)
    before = model.decision_function(X)
    model.set_params(**change)
    after = model.decision_function(X)
    if "chunk_size" in change:   # it only re-blocks the prediction's GEMM: equal to rounding (some
        # BLAS kernels round a 7-row block differently: 4.4e-16 on an H200 host's Xeon, OpenBLAS 0.3.34)
        np.testing.assert_allclose(after, before, rtol=0, atol=1e-13 * np.abs(before).max())
    else:
        np.testing.assert_array_equal(after, before)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        copied = round_trip(model, tmp_path)
    # Δ = 0 from the model it copies: the file holds the fitted model, its parameters included
    np.testing.assert_array_equal(copied.decision_function(X), before if round_trip is via_file else after)
    if round_trip is via_file:   # the file holds the fitted model, and the change is named
        assert copied.get_params()["n_hidden"] == 40
        words = [str(w.message) for w in caught if issubclass(w.category, UserWarning)]
        assert len(words) == 1 and f"set_params changed {next(iter(change))}=" in words[0], words
        assert "the file holds the fitted model" in words[0]
    else:                        # a copy keeps the new parameters, for the next fit
        assert copied.get_params()[next(iter(change))] == change[next(iter(change))]
    refitted = copied.fit(X, y)                                                   # fit uses the new ones
    expected = ELMClassifier(**{**ELMClassifier(n_hidden=40, random_state=3).get_params(),
                                **(change if round_trip is not via_file else {})}).fit(X, y)
    np.testing.assert_array_equal(refitted.decision_function(X), expected.decision_function(X))


@pytest.mark.parametrize("change, words", [
    ({"n_hidden": 50}, "n_hidden=40 → 50"), ({"weight_scale": "he"}, "weight_scale='unit' → 'he'"),
    ({"partial_fit_method": "rls"}, "partial_fit_method='normal' → 'rls'"), ({"random_state": 1}, "random_state=3 → 1")])
def test_partial_fit_refuses_to_continue_a_state_built_with_other_parameters(change, words):
    X, y = data()
    model = ELMClassifier(n_hidden=40, random_state=3).partial_fit(X[:100], y[:100], classes=[0, 1, 2])
    before = model.coef_.copy()
    model.set_params(**change)
    with pytest.raises(ValueError, match=f"set_params changed {re.escape(words)} since partial_fit "
                                         "started.*Call fit"):
        model.partial_fit(X[100:], y[100:])
    np.testing.assert_array_equal(model.coef_, before)
    model.set_params(alpha=0.5).fit(X, y)                        # fit starts afresh with them
    assert model.coef_.shape[0] == model.n_hidden


def test_partial_fit_continues_with_a_new_alpha_and_an_rls_state_refuses_one():
    X, y = data()
    normal = ELMClassifier(n_hidden=40, alpha=1e-2).partial_fit(X[:100], y[:100], classes=[0, 1, 2])
    normal.set_params(alpha=1.0).partial_fit(X[100:], y[100:])
    np.testing.assert_allclose(normal.coef_, ELMClassifier(n_hidden=40, alpha=1.0).fit(X, y).coef_,
                               rtol=1e-8, atol=1e-10)
    rls = ELMClassifier(n_hidden=40, alpha=1e-2, partial_fit_method="rls")
    rls.partial_fit(X[:100], y[:100], classes=[0, 1, 2]).set_params(alpha=1.0)
    with pytest.raises(ValueError, match="set_params changed alpha=0.01 → 1.0 since partial_fit started"):
        rls.partial_fit(X[100:], y[100:])


# -- partial_fit continues after loading -----------------------------------------------------------
def half_and_half(make, round_trip, tmp_path, targets):
    """(loaded after the first half, then fed the second; the original fed both; fit on all)."""
    X, _ = data()
    first, second = slice(0, N // 2), slice(N // 2, N)
    extra = {"classes": np.unique(targets)} if isinstance(make(), ELMClassifier) else {}
    model = make().partial_fit(X[first], targets[first], **extra)
    loaded = round_trip(model, tmp_path)
    loaded.partial_fit(X[second], targets[second])
    uninterrupted = model.partial_fit(X[second], targets[second])
    return loaded, uninterrupted, make().fit(X, targets)


@pytest.mark.parametrize("round_trip", ROUND_TRIPS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("method", ["normal", "rls"])
@pytest.mark.parametrize("make", [ELMClassifier, ELMRegressor])
def test_partial_fit_after_loading_equals_fitting_everything(tmp_path, round_trip, method, make):
    X, codes = data()
    targets = codes if make is ELMClassifier else X[:, :2] ** 2
    factory = lambda: make(n_hidden=60, alpha=1e-2, partial_fit_method=method)
    loaded, uninterrupted, whole = half_and_half(factory, round_trip, tmp_path, targets)
    np.testing.assert_array_equal(loaded.coef_, uninterrupted.coef_)  # the state round-trips exactly
    error = np.abs(loaded.coef_ - whole.coef_).max() / np.abs(whole.coef_).max()
    assert error <= 1e-10, error


@pytest.mark.parametrize("method", ["normal", "rls"])
def test_partial_fit_state_crosses_devices(tmp_path, method, torch_device):
    X, _ = data()
    y = X[:, 0] - X[:, 1]
    model = ELMRegressor(n_hidden=50, alpha=1e-2, partial_fit_method=method, device=torch_device)
    path = model.partial_fit(X[:100], y[:100]).save(tmp_path / "m.npz")
    loaded = load_model(path, device=None)
    assert loaded.device is None
    loaded.partial_fit(X[100:], y[100:])
    whole = ELMRegressor(n_hidden=50, alpha=1e-2).fit(X, y)
    np.testing.assert_allclose(loaded.coef_, whole.coef_, rtol=1e-8, atol=1e-10)


def test_include_state_decides_whether_partial_fit_can_continue(tmp_path):
    X, y = data()
    d = 200
    fitted = ELMClassifier(n_hidden=d).fit(X[:120], y[:120])
    small = fitted.save(tmp_path / "auto.npz")                    # 'auto' after fit: no state
    assert os.path.getsize(small) < 8 * d * d / 4
    with pytest.raises(ValueError, match="holds no partial-fit state.*include_state=True"):
        load_model(small).partial_fit(X[120:], y[120:])
    full = fitted.save(tmp_path / "state.npz", include_state=True)
    assert os.path.getsize(full) > 8 * d * d
    continued = load_model(full).partial_fit(X[120:], y[120:])
    np.testing.assert_allclose(continued.coef_, ELMClassifier(n_hidden=d).fit(X, y).coef_,
                               rtol=1e-8, atol=1e-10)
    streamed = ELMClassifier(n_hidden=d).partial_fit(X[:120], y[:120], classes=[0, 1, 2])
    assert os.path.getsize(streamed.save(tmp_path / "streamed.npz")) > 8 * d * d  # 'auto' keeps it
    without = streamed.save(tmp_path / "without.npz", include_state=False)
    assert os.path.getsize(without) < 8 * d * d / 4
    refused = load_model(without)
    with pytest.raises(ValueError, match="without.npz holds no partial-fit state"):
        refused.partial_fit(X[120:], y[120:])
    with pytest.raises(ValueError, match="holds no partial-fit state"):  # and after pickling it
        pickle.loads(pickle.dumps(refused)).partial_fit(X[120:], y[120:])
    refitted = refused.fit(X, y).partial_fit(X[:5], y[:5])       # fit starts afresh
    np.testing.assert_array_equal(refitted.coef_,
                                  ELMClassifier(n_hidden=d).fit(X, y).partial_fit(X[:5], y[:5]).coef_)


def test_include_state_refuses_bad_values_and_models_without_state(tmp_path):
    X, y = data()
    with pytest.raises(ValueError, match="include_state must be 'auto', True or False, got 'yes'"):
        ELMClassifier(n_hidden=20).fit(X, y).save(tmp_path / "m.npz", include_state="yes")
    with pytest.raises(ValueError, match="include_state must be 'auto', True or False, got 1"):
        ELMClassifier(n_hidden=20).fit(X, y).save(tmp_path / "m.npz", include_state=1)
    with pytest.raises(ValueError, match="include_state=True but the model holds no partial-fit state"):
        ELMClassifier(n_hidden=20, solver="pinv").fit(X, y).save(tmp_path / "m.npz", include_state=True)
    assert list(tmp_path.iterdir()) == []


def test_pickle_keeps_the_state_but_not_the_projection():
    n_inputs, d = 1000, 100
    rng = np.random.default_rng(0)
    model = ELMClassifier(n_hidden=d).partial_fit(rng.standard_normal((50, n_inputs)),
                                                  rng.integers(0, 3, 50), classes=[0, 1, 2])
    size = len(pickle.dumps(model))
    assert 8 * d * d < size < 8 * n_inputs * d  # the Gram (d × d) is in, W (D × d) is not
    assert getattr(pickle.loads(pickle.dumps(model)), "_features", None) is None


def test_torch_state_pickles_as_numpy(torch_device):
    X, y = data()
    model = ELMClassifier(n_hidden=30, device=torch_device).partial_fit(X, y, classes=[0, 1, 2])
    state = model.__getstate__()
    assert "equations_" not in state
    assert all(isinstance(a, np.ndarray) for a in state["_portable_partial_state"][1].values())
    clone = pickle.loads(pickle.dumps(model))
    assert type(clone.equations_.gram).__module__.startswith("torch")
    np.testing.assert_array_equal(clone.partial_fit(X, y).coef_, model.partial_fit(X, y).coef_)


# -- the device chosen on load -------------------------------------------------------------------
def test_torch_model_loads_on_numpy_or_on_its_saved_device(tmp_path, torch_device):
    X, y = data()
    model = ELMClassifier(n_hidden=60, device=torch_device).fit(X, y)
    path = model.save(tmp_path / "torch.npz")
    numpy_model = load_model(path, device=None)
    assert numpy_model.device is None and numpy_model.get_params()["device"] is None
    assert isinstance(numpy_model.features_.W, np.ndarray)
    np.testing.assert_array_equal(numpy_model.predict(X), model.predict(X))
    np.testing.assert_allclose(numpy_model.decision_function(X), model.decision_function(X),
                               rtol=1e-9, atol=1e-12)
    as_saved = load_model(path)
    assert as_saved.device == torch_device
    np.testing.assert_array_equal(as_saved.decision_function(X), model.decision_function(X))


def cuda_missing():
    torch = pytest.importorskip("torch")
    if torch.cuda.is_available():
        pytest.skip("this machine has CUDA")


def test_a_cuda_model_on_a_machine_without_cuda_says_what_to_pass(tmp_path):
    cuda_missing()
    X, y = data()
    path = ELMClassifier(n_hidden=20).fit(X, y).save(tmp_path / "m.npz")
    meta, arrays = parts(path)
    meta["params"]["device"] = "cuda"
    write(path, meta, arrays)
    with pytest.raises(ValueError, match="device='cuda', which is not available.*device=None"):
        load_model(path)
    assert load_model(path, device=None).predict(X).shape == (N,)
    with pytest.raises(ValueError, match="load_model call uses device='cuda'"):
        load_model(tmp_path / "m.npz", device="cuda")


def test_a_pickled_model_on_an_unavailable_device_says_what_to_do():
    cuda_missing()
    X, y = data()
    model = ELMClassifier(n_hidden=20, device="cpu").partial_fit(X, y, classes=[0, 1, 2])
    model.device = "cuda"  # as if pickled on a GPU machine (the state is exported to NumPy anyway)
    with pytest.raises(ValueError, match="pickled model uses device='cuda'.*load_model"):
        pickle.loads(pickle.dumps(model))


# -- saving is atomic --------------------------------------------------------------------------------
def test_a_failed_save_leaves_no_temp_file_and_the_old_file_intact(tmp_path, monkeypatch):
    X, y = data()
    model = ELMClassifier(n_hidden=20).fit(X, y)
    path = model.save(tmp_path / "m.npz")
    before = path.read_bytes()

    def broken_replace(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", broken_replace)
    with pytest.raises(OSError, match="disk full"):
        ELMClassifier(n_hidden=30).fit(X, y).save(path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.npz"]
    assert path.read_bytes() == before


def test_a_format_1_file_still_loads(tmp_path):
    """Files written by greenelm 0.2.0 (meta, coef, classes; no output flag, names or state)."""
    X, _ = data()
    model = ELMRegressor(n_hidden=25).fit(X, X[:, 0])
    meta, arrays = parts(model.save(tmp_path / "m.npz"))
    old = {key: meta[key] for key in ("class", "params", "seed", "n_features_in", "projection_sha256")}
    write(tmp_path / "v1.npz", {"format_version": 1, **old}, {"coef": arrays["coef"]})
    loaded = load_model(tmp_path / "v1.npz")
    np.testing.assert_array_equal(loaded.predict(X), model.predict(X))


# -- bad model files ---------------------------------------------------------------------------------
def parts(path):
    """(meta dict, {name: array}) of a model file."""
    with np.load(path, allow_pickle=False) as archive:
        arrays = {name: archive[name] for name in archive.files}
    return json.loads(str(arrays.pop("meta"))), arrays


def signed(meta, arrays):
    """``meta`` with ``content_sha256`` recomputed by the documented rule: SHA-256 over each array
    member's ``name:sha256(raw .npy bytes)`` line in name order, then meta's canonical JSON."""
    if "content_sha256" not in meta:
        return meta
    lines = []
    for name in sorted(arrays):
        buffer = io.BytesIO()
        np.lib.format.write_array(buffer, np.asanyarray(arrays[name]), allow_pickle=False)
        lines.append(f"{name}:{hashlib.sha256(buffer.getvalue()).hexdigest()}\n")
    rest = {key: value for key, value in meta.items() if key != "content_sha256"}
    text = "".join(lines).encode() + json.dumps(rest, sort_keys=True, separators=(",", ":")).encode()
    return {**meta, "content_sha256": hashlib.sha256(text).hexdigest()}


def write(path, meta, arrays, sign=True):
    """Write a model file; ``sign``: with a digest consistent with the (edited) content, as a
    careful editor would, so the checks behind the digest are reached."""
    np.savez(path, meta=np.array(json.dumps(signed(meta, arrays) if sign else meta)), **arrays)
    return path


@pytest.fixture(scope="module")
def good_files(tmp_path_factory):
    """A streamed classifier (with its normal-equation state), an RLS regressor (state), a
    single-output regressor fitted on a DataFrame and a cross-validated classifier: (meta, arrays)."""
    folder = tmp_path_factory.mktemp("good")
    X, y = data()
    frame = pd.DataFrame(X, columns=list("abcde"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # the CV model's choice may sit at the grid's end
        cross_validated = ELMClassifierCV(n_hidden=30, alphas=[0.01, 0.1, 1.0, 10.0, 100.0]).fit(X, y)
    return {
        "classifier": parts(ELMClassifier(n_hidden=30).partial_fit(X, y, classes=[0, 1, 2])
                            .save(folder / "c.npz")),
        "rls": parts(ELMRegressor(n_hidden=30, partial_fit_method="rls").partial_fit(X, X[:, :2])
                     .save(folder / "r.npz")),
        "named": parts(ELMRegressor(n_hidden=30).fit(frame, X[:, 0]).save(folder / "n.npz")),
        "cv": parts(cross_validated.save(folder / "cv.npz")),
    }


def edit(which, change):
    """A function writing the good file ``which`` changed by ``change(meta, arrays)`` to a path."""
    def make(good_files, path):
        meta, arrays = json.loads(json.dumps(good_files[which][0])), dict(good_files[which][1])
        change(meta, arrays)
        return write(path, meta, arrays)
    return make


def raw(content: bytes):
    def make(good_files, path):
        path.write_bytes(content)
        return path
    return make


def truncated(good_files, path):
    write(path, *good_files["classifier"])
    path.write_bytes(path.read_bytes()[:-200])
    return path


def pickled_classes(good_files, path):
    meta, arrays = good_files["classifier"]
    arrays = {**arrays, "classes": np.array([0, 1, 2], dtype=object)}  # np.savez pickles it
    np.savez(path, meta=np.array(json.dumps(meta)), **arrays)
    return path


def foreign_member(good_files, path):
    write(path, *good_files["classifier"])
    with zipfile.ZipFile(path, "a") as archive:
        archive.writestr("notes.txt", "hello")
    return path


def overstated_header(good_files, path):
    """A .npy header claiming a (30, 30000) coef while the member holds (30, 3) floats."""
    meta, arrays = good_files["classifier"]
    write(path, meta, arrays)
    with zipfile.ZipFile(path) as archive:
        members = {name: archive.read(name) for name in archive.namelist()}
    members["coef.npy"] = members["coef.npy"].replace(b"(30, 3)", b"(30, 30000)", 1)
    with zipfile.ZipFile(path, "w") as archive:
        for name, content in members.items():
            archive.writestr(name, content)
    return path


def unsigned(which, change):
    """As :func:`edit`, keeping the original digest (an edit that did not, or could not, re-sign)."""
    def make(good_files, path):
        meta, arrays = json.loads(json.dumps(good_files[which][0])), dict(good_files[which][1])
        change(meta, arrays)
        return write(path, meta, arrays, sign=False)
    return make


def duplicate_member(good_files, path):
    write(path, *good_files["classifier"])
    with zipfile.ZipFile(path, "a") as archive, warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)                      # "Duplicate name"
        archive.writestr("coef.npy", archive.read("coef.npy"))
    return path


def setitem(container, key, value):
    def change(meta, arrays):
        target = {"meta": meta, "arrays": arrays}[container[0]]
        for step in container[1:]:
            target = target[step]
        target[key] = value
    return change


def delete(container, key):
    def change(meta, arrays):
        target = meta if container == "meta" else arrays
        del target[key]
    return change


def both(*changes):
    def change(meta, arrays):
        for one in changes:
            one(meta, arrays)
    return change


META_KEYS = ["format_version", "class", "params", "seed", "n_features_in", "n_outputs",
             "single_output", "classes", "feature_names", "state", "cv", "projection_sha256",
             "content_sha256"]

BAD_FILES = [
    ("not_an_npz", raw(b"just some text, not a zip archive"), "file", "not an .npz archive"),
    ("empty_file", raw(b""), "file", "not an .npz archive"),
    ("npy_not_npz", raw(np.lib.format.MAGIC_PREFIX + b"\x01\x00"), "file", "not an .npz archive"),
    ("truncated", truncated, "file", "not an .npz archive"),
    ("pickled_object_array", pickled_classes, "classes", "pickled object array"),
    ("foreign_member", foreign_member, "notes.txt", "not a .npy array"),
    ("overstated_header", overstated_header, "coef", r"header says shape \(30, 30000\)"),
    ("no_meta", lambda g, p: np.savez(p, coef=np.zeros(3)) or p, "meta", "missing: not a greenelm model"),
    ("meta_not_json", lambda g, p: np.savez(p, meta=np.array("{not json")) or p, "meta", "not valid JSON"),
    ("meta_not_a_string", lambda g, p: np.savez(p, meta=np.zeros(3)) or p, "meta", "JSON string"),
    ("meta_a_list", lambda g, p: np.savez(p, meta=np.array("[1, 2]")) or p, "meta", "JSON object"),
    ("missing_coef", edit("classifier", delete("arrays", "coef")), "arrays", "missing key.*'coef'"),
    ("missing_classes", edit("classifier", delete("arrays", "classes")), "arrays", "missing key.*'classes'"),
    ("missing_state_array", edit("rls", delete("arrays", "state_P")), "arrays", "missing key.*'state_P'"),
    ("unknown_array", edit("classifier", setitem(("arrays",), "extra", np.zeros(2))), "arrays",
     "unknown key.*'extra'"),
    ("unknown_meta_key", edit("classifier", setitem(("meta",), "comment", "hi")), "meta",
     "unknown key.*'comment'"),
    ("format_version_4", edit("classifier", setitem(("meta",), "format_version", 4)), "format_version",
     "4 is not a format this greenelm reads"),
    ("format_version_text", edit("classifier", setitem(("meta",), "format_version", "2")),
     "format_version", "'2' is not a format"),
    ("unknown_class", edit("classifier", setitem(("meta",), "class", "SVC")), "class",
     "unknown class 'SVC'"),
    ("unknown_parameter", edit("classifier", setitem(("meta", "params"), "gamma", 1.0)), "params",
     "unknown key.*'gamma'"),
    ("missing_parameter", edit("classifier", lambda m, a: m["params"].pop("bias")), "params",
     "missing key.*'bias'"),
    ("ill_typed_n_hidden", edit("classifier", setitem(("meta", "params"), "n_hidden", 30.0)), "params",
     "n_hidden must be an integer >= 1, got 30.0"),
    ("bool_n_hidden", edit("classifier", setitem(("meta", "params"), "n_hidden", True)), "params",
     "n_hidden must be an integer"),
    ("bad_solver", edit("classifier", setitem(("meta", "params"), "solver", "qr")), "params",
     "unknown solver 'qr'"),
    ("negative_alpha", edit("classifier", setitem(("meta", "params"), "alpha", -1)), "params", "alpha"),
    ("alpha_as_text", edit("classifier", setitem(("meta", "params"), "alpha", "0.1")), "params", "alpha"),
    ("bad_dtype", edit("classifier", setitem(("meta", "params"), "dtype", "float16")), "params",
     "unknown dtype 'float16'"),
    ("device_not_a_string", edit("classifier", setitem(("meta", "params"), "device", 3)), "params",
     "device must be null or a string"),
    ("random_state_text", edit("classifier", setitem(("meta", "params"), "random_state", "x")), "params",
     "random_state must be null or an integer"),
    ("coef_wrong_shape", edit("classifier", setitem(("arrays",), "coef", np.zeros((30, 2)))), "coef",
     r"shape \(30, 2\), expected \(30, 3\)"),
    ("coef_transposed", edit("classifier", lambda m, a: a.update(coef=a["coef"].T.copy())), "coef",
     r"shape \(3, 30\)"),
    ("coef_nan", edit("classifier", lambda m, a: a.update(coef=np.where(np.eye(30, 3), np.nan, a["coef"]))),
     "coef", "NaN or infinite"),
    ("coef_inf", edit("classifier", lambda m, a: a.update(coef=a["coef"] + np.inf)), "coef",
     "NaN or infinite"),
    ("coef_int", edit("classifier", setitem(("arrays",), "coef", np.ones((30, 3), dtype=np.int64))),
     "coef", "dtype int64 is not allowed"),
    ("classes_count_mismatch", edit("classifier", setitem(("arrays",), "classes", np.arange(4))),
     "classes", r"shape \(4,\), expected \(3,\)"),
    ("classes_unsorted", edit("classifier", setitem(("arrays",), "classes", np.array([2, 0, 1]))),
     "classes", "sorted and distinct"),
    ("classes_repeated", edit("classifier", setitem(("arrays",), "classes", np.array([0, 1, 1]))),
     "classes", "sorted and distinct"),
    ("classes_nan", edit("classifier", setitem(("arrays",), "classes", np.array([0.0, 1.0, np.nan]))),
     "classes", "NaN or infinite"),
    ("classes_restore_flag", edit("classifier", setitem(("meta",), "classes", {"object": "yes"})),
     "classes", "must be"),
    ("one_output_classifier", edit("classifier", both(setitem(("meta",), "n_outputs", 1),
                                                      setitem(("arrays",), "coef", np.zeros((30, 1))))),
     "n_outputs", "one output per class"),
    ("regressor_with_classes", edit("named", setitem(("arrays",), "classes", np.arange(1))), "arrays",
     "unknown key.*'classes'"),
    ("single_output_with_two_outputs", edit("rls", setitem(("meta",), "single_output", True)),
     "single_output", "only when n_outputs is 1"),
    ("single_output_missing_value", edit("named", setitem(("meta",), "single_output", None)),
     "single_output", "must be true"),
    ("negative_n_features_in", edit("classifier", setitem(("meta",), "n_features_in", -5)), "n_features_in",
     "integer >= 1, got -5"),
    ("zero_n_outputs", edit("classifier", setitem(("meta",), "n_outputs", 0)), "n_outputs", "integer >= 1"),
    ("non_int_seed", edit("classifier", setitem(("meta",), "seed", 1.5)), "seed", "integer >= 0, got 1.5"),
    ("negative_seed", edit("classifier", setitem(("meta",), "seed", -1)), "seed", "integer >= 0"),
    ("bool_seed", edit("classifier", setitem(("meta",), "seed", True)), "seed", "integer >= 0"),
    ("digest_not_hex", edit("classifier", setitem(("meta",), "projection_sha256", "abc")),
     "projection_sha256", "64 hex digits"),
    ("digest_mismatch", edit("classifier", setitem(("meta",), "projection_sha256", "0" * 64)),
     "projection_sha256", "differs from the one the model was trained with"),
    ("seed_changed", edit("classifier", setitem(("meta",), "seed", 12345)),
     "projection_sha256", "rebuilt from seed 12345 differs"),
    ("feature_names_wrong_length", edit("named", setitem(("arrays",), "feature_names_in", np.array(["a"]))),
     "feature_names_in", r"shape \(1,\), expected \(5,\)"),
    ("feature_names_flag_text", edit("named", setitem(("meta",), "feature_names", "yes")),
     "feature_names", "true or false"),
    ("state_gram_wrong_shape", edit("classifier", setitem(("arrays",), "state_gram", np.zeros((30, 31)))),
     "state_gram", r"shape \(30, 31\), expected \(30, 30\)"),
    ("state_hty_wrong_shape", edit("classifier", setitem(("arrays",), "state_hty", np.zeros((30, 2)))),
     "state_hty", r"shape \(30, 2\), expected \(30, 3\)"),
    ("state_P_wrong_dtype", edit("rls", lambda m, a: a.update(state_P=a["state_P"].astype(np.float32))),
     "state_P", "dtype float32 is not allowed here .expected float64"),
    ("state_nan", edit("rls", lambda m, a: a.update(state_W=a["state_W"] * np.nan)), "state_W",
     "NaN or infinite"),
    ("state_dtype_not_the_models", edit("classifier", both(
        setitem(("meta", "state"), "dtype", "float32"),
        lambda m, a: a.update(state_gram=a["state_gram"].astype(np.float32),
                              state_hty=a["state_hty"].astype(np.float32)))),
     "state", "normal equations in float32 but the model's dtype is 'float64'"),
    ("state_unknown_kind", edit("classifier", setitem(("meta", "state"), "kind", "kalman")), "state",
     "kind must be 'normal' or 'rls'"),
    ("state_unknown_key", edit("classifier", setitem(("meta", "state"), "when", "today")), "state",
     "unknown key.*'when'"),
    ("state_zero_samples", edit("classifier", setitem(("meta", "state"), "n_samples", 0)), "state",
     "n_samples must be an integer >= 1"),
    ("state_bad_rls_method", edit("rls", setitem(("meta", "state"), "method", "qr")), "state",
     "unknown method 'qr'"),
    ("state_rls_zero_alpha", edit("rls", setitem(("meta", "state"), "alpha", 0.0)), "state",
     "alpha must be > 0"),
    ("rls_state_in_a_normal_model", edit("rls", setitem(("meta", "params"), "partial_fit_method", "normal")),
     "state", "needs partial_fit_method='rls'"),
    ("negated_gram_signed", edit("classifier", lambda m, a: a.update(state_gram=-a["state_gram"])),
     "state_gram", "negative diagonal entry"),
    ("negated_P_signed", edit("rls", lambda m, a: a.update(state_P=-a["state_P"])), "state_P",
     "negative diagonal entry"),
    ("negated_gram", unsigned("classifier", lambda m, a: a.update(state_gram=-a["state_gram"])),
     "content_sha256", "differ from those it was saved with"),
    ("asymmetric_P", unsigned("rls", lambda m, a: a.update(state_P=np.triu(a["state_P"]) * 2 - np.diag(np.diag(a["state_P"])))),
     "content_sha256", "differ from those it was saved with"),
    ("edited_n_samples", unsigned("classifier", setitem(("meta", "state"), "n_samples", 5)),
     "content_sha256", "differ from those it was saved with"),
    ("digest_not_hex_content", unsigned("classifier", setitem(("meta",), "content_sha256", "xyz")),
     "content_sha256", "64 hex digits"),
    ("duplicate_member", duplicate_member, "coef", "appears twice"),
    ("deeply_nested_json", lambda g, p: np.savez(p, meta=np.array("[" * 100_000 + "]" * 100_000)) or p,
     "meta", "nested too deeply"),
    ("huge_meta", lambda g, p: np.savez(p, meta=np.array("x" * (5 * 2**20))) or p, "meta",
     "declares 20971520 bytes"),
    ("device_meta", edit("classifier", setitem(("meta", "params"), "device", "meta")), "params",
     "device 'meta' holds no data"),
]


@pytest.mark.parametrize("name, make, field, words", BAD_FILES, ids=[case[0] for case in BAD_FILES])
def test_bad_model_file_raises_one_clear_error(good_files, tmp_path, name, make, field, words):
    path = make(good_files, tmp_path / f"{name}.npz")
    with pytest.raises(ModelFileError, match=words) as caught:
        load_model(path)
    message = str(caught.value)
    assert message.startswith(f"{path}: field {field!r}: "), message
    assert caught.value.field == field and isinstance(caught.value, ValueError)


@pytest.mark.parametrize("key", META_KEYS)
def test_missing_meta_key_is_named(good_files, tmp_path, key):
    path = edit("classifier", lambda meta, arrays: meta.pop(key))(good_files, tmp_path / "m.npz")
    with pytest.raises(ModelFileError, match=f"field 'meta': missing key.*'{key}'"):
        load_model(path)


def test_the_good_files_load(good_files, tmp_path):
    """The bad files above are one change away from these, which load."""
    X, _ = data()
    for which in good_files:
        model = load_model(edit(which, lambda meta, arrays: None)(good_files, tmp_path / f"{which}.npz"))
        inputs = pd.DataFrame(X, columns=list("abcde")) if which == "named" else X
        assert model.predict(inputs).shape[0] == N


def test_a_bad_file_is_refused_before_the_projection_is_drawn(good_files, tmp_path, monkeypatch):
    def no_drawing(*args, **kwargs):
        raise AssertionError("the projection was drawn before the file was validated")

    monkeypatch.setattr(greenelm.features, "draw_projection", no_drawing)
    bad = edit("classifier", lambda m, a: a.update(state_gram=np.full_like(a["state_gram"], np.inf)))
    with pytest.raises(ModelFileError, match="state_gram"):
        load_model(bad(good_files, tmp_path / "bad.npz"))
    with pytest.raises(AssertionError, match="projection was drawn"):  # a good file does draw it
        load_model(edit("classifier", lambda m, a: None)(good_files, tmp_path / "good.npz"))


# -- StreamingRidge's state export ---------------------------------------------------------------------
@pytest.mark.parametrize("method", ["cholesky", "listing3", "information"])
def test_streaming_ridge_state_round_trips_exactly(method):
    from greenelm import StreamingRidge

    rng = np.random.default_rng(0)
    H, Y = rng.standard_normal((90, 20)), rng.standard_normal((90, 2))
    state = StreamingRidge(alpha=0.1, method=method).fit(H[:40], Y[:40])
    scalars, arrays = state.export_state()
    json.dumps(scalars)  # plain data
    twin = StreamingRidge.from_state(scalars, {k: v.copy(order="K") for k, v in arrays.items()})
    twin.update(H[40:], Y[40:])
    state.update(H[40:], Y[40:])
    assert twin.n_samples == state.n_samples == 90
    np.testing.assert_array_equal(twin.coef_, state.coef_)
    np.testing.assert_allclose(twin.coef_, StreamingRidge(alpha=0.1).fit(H, Y).coef_, rtol=1e-9)


def test_streaming_ridge_from_state_names_what_is_wrong():
    from greenelm import StreamingRidge

    rng = np.random.default_rng(0)
    scalars, arrays = StreamingRidge(alpha=0.1).fit(rng.standard_normal((30, 6)),
                                                     rng.standard_normal((30, 2))).export_state()
    with pytest.raises(ValueError, match=r"are not \(d, d\) and \(d, k\)"):
        StreamingRidge.from_state(scalars, {"P": arrays["P"][:, :5], "W": arrays["W"]})
    with pytest.raises(ValueError, match="state array W has dtype float32, expected float64"):
        StreamingRidge.from_state(scalars, {"P": arrays["P"], "W": arrays["W"].astype(np.float32)})
    with pytest.raises(ValueError, match="needs the arrays 'P' and 'W'"):
        StreamingRidge.from_state(scalars, {"gram": arrays["P"], "hty": arrays["W"]})
    with pytest.raises(ValueError, match="n_samples must be an integer >= 1"):
        StreamingRidge.from_state({**scalars, "n_samples": 0}, arrays)
    with pytest.raises(ValueError, match="unknown method 'qr'"):
        StreamingRidge.from_state({**scalars, "method": "qr"}, arrays)


# -- the cross-validated estimators ---------------------------------------------------------------
@pytest.mark.parametrize("round_trip", ROUND_TRIPS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("make, cv", [(ELMClassifierCV, "loo"), (ELMClassifierCV, "gcv"),
                                      (ELMRegressorCV, "loo"), (ELMRegressorCV, "gcv")])
def test_cross_validated_estimators_keep_their_choice_and_grid(tmp_path, round_trip, make, cv):
    X, y = data()
    targets = y if make is ELMClassifierCV else X[:, :2]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # a choice at the grid's end warns
        model = make(n_hidden=30, cv=cv, alphas=np.logspace(-3, 3, 7)).fit(X, targets)
    loaded = round_trip(model, tmp_path)
    assert type(loaded) is make and loaded.alpha_ == model.alpha_ and loaded.best_score_ == model.best_score_
    np.testing.assert_array_equal(loaded.alphas_, model.alphas_)
    assert list(loaded.cv_results_) == list(model.cv_results_)
    for column in model.cv_results_:
        np.testing.assert_array_equal(loaded.cv_results_[column], model.cv_results_[column])
    np.testing.assert_array_equal(loaded.predict(X), model.predict(X))


CV_BAD_FILES = [
    ("cv_missing", lambda meta, arrays: meta.__setitem__("cv", None), "needs its choice of λ"),
    ("cv_alpha_negative", lambda meta, arrays: meta["cv"].__setitem__("alpha_", -1.0), "alpha_ must be a finite number > 0"),
    ("cv_alpha_text", lambda meta, arrays: meta["cv"].__setitem__("alpha_", "1"), "alpha_ must be a finite number > 0"),
    ("cv_score_text", lambda meta, arrays: meta["cv"].__setitem__("best_score_", "x"), "best_score_ must be a number"),
    ("cv_columns_empty", lambda meta, arrays: meta["cv"].__setitem__("columns", []), "columns must be a list"),
    ("cv_column_path", lambda meta, arrays: meta["cv"].__setitem__("columns", ["../x"]), "columns must be a list"),
    ("cv_unknown_key", lambda meta, arrays: meta["cv"].__setitem__("extra", 1), "unknown key"),
    ("cv_column_short", lambda meta, arrays: arrays.__setitem__("cv_gcv", arrays["cv_gcv"][:2]), "shape (2,), expected (5,)"),
    ("cv_grid_2d", lambda meta, arrays: arrays.__setitem__("cv_alphas", arrays["cv_alphas"].reshape(1, 5)), "non-empty 1-D grid"),
    ("cv_column_absent", lambda meta, arrays: arrays.pop("cv_gcv"), "missing key(s) 'cv_gcv'"),
]


@pytest.mark.parametrize("change, words", [case[1:] for case in CV_BAD_FILES], ids=[case[0] for case in CV_BAD_FILES])
def test_bad_cross_validation_fields_are_named(good_files, tmp_path, change, words):
    path = edit("cv", change)(good_files, tmp_path / "cv.npz")
    with pytest.raises(ModelFileError, match=re.escape(words)):
        load_model(path)


def test_a_plain_model_file_with_a_cv_field_is_refused(good_files, tmp_path):
    path = edit("named", lambda meta, arrays: meta.__setitem__("cv", {"alpha_": 1.0}))(good_files, tmp_path / "x.npz")
    with pytest.raises(ModelFileError, match="field 'cv': must be null for ELMRegressor"):
        load_model(path)


@pytest.mark.parametrize("round_trip", ROUND_TRIPS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("method", ["normal", "rls"])
def test_float32_partial_fit_state_continues_exactly(tmp_path, round_trip, method):
    """Float32 blocks accumulate into float64 sums; the saved state carries those sums (the rows
    gathered for the next block are added first), so resuming after a round trip equals never
    stopping up to float32 rounding of the blocks' products (the blocks are split differently),
    and is bit-identical to a run that read its readout at the same point."""
    X, y = data()
    make = lambda: ELMRegressor(n_hidden=30, dtype="float32", partial_fit_method=method)  # noqa: E731
    half = len(X) // 2
    resumed = round_trip(make().partial_fit(X[:half], X[:half, :2]), tmp_path)
    resumed.partial_fit(X[half:], X[half:, :2])
    read_half_way = make().partial_fit(X[:half], X[:half, :2])
    read_half_way.coef_                                   # noqa: B018 - solves (and flushes) here
    read_half_way.partial_fit(X[half:], X[half:, :2])
    np.testing.assert_array_equal(resumed.coef_, read_half_way.coef_)
    straight = make().partial_fit(X[:half], X[:half, :2]).partial_fit(X[half:], X[half:, :2])
    scale = np.abs(straight.predict(X)).max()
    np.testing.assert_allclose(resumed.predict(X), straight.predict(X), rtol=0, atol=1e-4 * scale)


# -- sizes, digests, temp files and file objects ----------------------------------------------------
def deflated_zeros_model(good_files, path, d):
    """A deflate-compressed file whose state_gram declares d × d float64 zeros (8·d² bytes)."""
    meta, arrays = good_files["classifier"]
    meta = json.loads(json.dumps(meta))
    meta["params"]["n_hidden"] = d
    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(header, {"descr": "<f8", "fortran_order": False, "shape": (d, d)})
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("meta.npy", _npy_bytes(np.array(json.dumps(meta))))
        with archive.open("state_gram.npy", "w", force_zip64=True) as member:
            member.write(header.getvalue())
            zeros = bytes(2**20)
            for _ in range(8 * d * d // len(zeros)):
                member.write(zeros)
            member.write(bytes(8 * d * d % len(zeros)))
    return path


def _npy_bytes(array):
    buffer = io.BytesIO()
    np.lib.format.write_array(buffer, array, allow_pickle=False)
    return buffer.getvalue()


def test_a_compressed_file_declaring_more_than_the_memory_is_refused_before_reading(good_files, tmp_path,
                                                                                     monkeypatch):
    import greenelm._persistence as persistence

    path = deflated_zeros_model(good_files, tmp_path / "bomb.npz", d=4000)       # 128 MB declared
    assert path.stat().st_size < 1_000_000
    monkeypatch.setattr(persistence, "available_memory", lambda: 64 * 2**20)
    reads = []
    monkeypatch.setattr(np.lib.format, "read_array", lambda *a, **k: reads.append(1))
    with pytest.raises(ModelFileError, match=r"field 'state_gram': the arrays declare \d+ bytes \(128000000 for this one\), "
                                             r"more than the 67108864 bytes of memory available"):
        load_model(path)
    assert reads == []                                       # not even meta was read


def test_an_allocation_that_fails_while_reading_is_a_model_file_error(good_files, tmp_path, monkeypatch):
    path = write(tmp_path / "m.npz", *good_files["classifier"])

    def no_memory(*args, **kwargs):
        raise MemoryError

    monkeypatch.setattr(np.lib.format, "read_array", no_memory)
    with pytest.raises(ModelFileError, match="field 'meta': too large to read into this machine's memory"):
        load_model(path)


def test_the_digest_covers_every_member_and_a_format_2_file_without_it_still_loads(good_files, tmp_path):
    X, _ = data()
    meta, arrays = good_files["classifier"]
    model = load_model(write(tmp_path / "good.npz", meta, arrays))
    for name in arrays:                                      # one flipped element in any member
        changed = dict(arrays)
        flat = np.array(changed[name]).reshape(-1)
        flat[0] = flat[0] + 1 if flat.dtype.kind in "iuf" else flat[-1]
        changed[name] = flat.reshape(np.shape(arrays[name]))
        if np.array_equal(changed[name], arrays[name]):
            continue
        with pytest.raises(ModelFileError, match="field 'content_sha256'"):
            load_model(write(tmp_path / f"{name}.npz", meta, changed, sign=False))
    old = {key: value for key, value in meta.items() if key != "content_sha256"}
    v2 = load_model(write(tmp_path / "v2.npz", {**old, "format_version": 2}, arrays))
    np.testing.assert_array_equal(v2.predict(X), model.predict(X))


def test_a_killed_save_leaves_no_temp_for_long_and_a_missing_folder_is_named(tmp_path):
    X, y = data()
    model = ELMClassifier(n_hidden=20).fit(X, y)
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                          text=True, check=True).stdout.strip()
    (tmp_path / f".m.npz.{dead}.abc123.tmp").write_bytes(b"half a zip")  # a save killed mid-write
    (tmp_path / f".m.npz.{os.getpid()}.live99.tmp").write_bytes(b"")     # a running save's (ours)
    (tmp_path / "other.npz.tmp").write_bytes(b"not ours")
    model.save(tmp_path / "m.npz")
    assert sorted(p.name for p in tmp_path.iterdir()) == [f".m.npz.{os.getpid()}.live99.tmp", "m.npz",
                                                          "other.npz.tmp"]
    with pytest.raises(FileNotFoundError, match=r"cannot save the model to .*missing.m\.npz: the folder "
                                                r".*missing does not exist"):
        model.save(tmp_path / "missing" / "m.npz")


def test_save_and_load_accept_binary_file_objects(tmp_path):
    X, y = data()
    model = ELMClassifier(n_hidden=20).partial_fit(X, y, classes=[0, 1, 2])
    buffer = io.BytesIO()
    assert model.save(buffer) is buffer
    buffer.seek(0)
    loaded = load_model(buffer)
    np.testing.assert_array_equal(loaded.decision_function(X), model.decision_function(X))
    np.testing.assert_array_equal(loaded.equations_.gram, model.equations_.gram)
    with open(tmp_path / "m.npz", "wb") as out:
        model.save(out)
    with open(tmp_path / "m.npz", "rb") as source:
        np.testing.assert_array_equal(load_model(source).predict(X), model.predict(X))
    with pytest.raises(ModelFileError, match=r"^<BytesIO>: field 'file': not an .npz archive"):
        load_model(io.BytesIO(b"not a zip"))              # named by its type when it has no name
    (tmp_path / "junk.npz").write_bytes(b"not a zip")
    with open(tmp_path / "junk.npz", "rb") as source, \
            pytest.raises(ModelFileError, match=r"junk\.npz: field 'file': not an .npz archive"):
        load_model(source)
    with open(tmp_path / "t.npz", "w") as text, pytest.raises(TypeError, match="binary: open the file with mode 'wb'"):
        model.save(text)


# -- compact pickles ---------------------------------------------------------------------------------
@pytest.mark.parametrize("copy_of", [lambda m: pickle.loads(pickle.dumps(m)), copy.deepcopy],
                         ids=["pickle", "deepcopy"])
def test_a_pickle_after_fit_leaves_out_the_gram_and_partial_fit_on_it_says_so(copy_of):
    X, y = data()
    d = 300
    model = ELMClassifier(n_hidden=d).fit(X, y)
    assert len(pickle.dumps(model)) < 8 * d * d / 10            # coef_ (d × 3), not the d × d Gram
    clone = copy_of(model)
    np.testing.assert_array_equal(clone.decision_function(X), model.decision_function(X))
    with pytest.raises(ValueError, match="pickled .or copied. after fit.*partial_fit would restart "
                                         "from zero.*include_state=True"):
        clone.partial_fit(X[:10], y[:10])
    np.testing.assert_array_equal(clone.fit(X, y).coef_, model.coef_)   # fit starts afresh
    streamed = ELMClassifier(n_hidden=d).partial_fit(X, y, classes=[0, 1, 2])
    assert len(pickle.dumps(streamed)) > 8 * d * d              # a partial_fit model keeps it
    refitted = copy_of(streamed).fit(X, y)                       # fit after partial_fit: left out
    assert len(pickle.dumps(refitted)) < 8 * d * d / 10
