"""Model files and pickles of :class:`~greenelm.estimator.ELMClassifier` / ``ELMRegressor``.

A model file is an ``.npz`` archive of plain arrays (never a pickled object) and one JSON
string ``meta``:

* ``meta``  — format version, class name, every constructor parameter, the projection seed,
  ``n_features_in``, ``n_outputs``, the output shape flag (regressors), how the labels are
  restored (classifiers), whether feature names and a partial-fit state follow, and the SHA-256
  of the projection ``W``, ``b`` rebuilt from the seed;
* ``coef`` (d, k) — the readout; ``classes`` (k,) — the labels, as a bool/int/float/unicode
  array (object labels such as pandas strings are written as unicode and restored as object);
* ``feature_names_in`` (D,) — when the model was fitted on a DataFrame;
* ``state_*`` — the partial-fit state when stored: ``state_gram`` (d, d) and ``state_hty``
  (d, k) of the normal equations, or the RLS state ``state_P`` (d, d) and ``state_W`` (d, k);
* ``cv_*`` (n_alphas,) — for the cross-validated estimators, the grid ``cv_alphas`` and each
  column of ``cv_results_`` (``meta["cv"]`` holds ``alpha_``, ``best_score_`` and the column names).

``meta["content_sha256"]`` (format 3) is the SHA-256 of every array member (one line
``name:sha256(raw .npy bytes)`` per member, in name order) followed by the canonical JSON of
``meta`` without that key (sorted keys, no spaces).

:func:`read_model` checks every field (the zip members' ``.npy`` headers first: duplicate
members, and arrays declaring more bytes than the memory available, are refused before anything
is read; then the digest, streamed, before any array is allocated) and raises
:class:`ModelFileError` naming the file and the field.  Saving writes a temp file
``.<name>.<pid>.<random>.tmp`` beside the target and renames it; a later save of the same
target removes the temps of saves whose process is gone.  Both accept binary file objects.  Pickles carry the same partial-fit state as CPU NumPy arrays
(:func:`portable_pickle_state`), so a model pickled on a GPU unpickles on any machine with that
device and ``partial_fit`` continues where it stopped.
"""

from __future__ import annotations

import glob
import hashlib
import io
import json
import math
import numbers
import os
import re
import tempfile
import time
import zipfile
import zlib
from pathlib import Path

import numpy as np
from sklearn.base import is_classifier

from ._validation import available_memory, check_alpha, check_choice
from .features import DTYPES
from .solvers import NormalEquations, is_torch

FORMAT_VERSION = 3
READABLE_VERSIONS = (1, 2, 3)
#: the format of :mod:`greenelm.kernel_limit`'s kernel ridges, classes of their own (fields of their
#: own, checked and read by that module)
KERNEL_LIMIT_FORMAT = 4
KERNEL_LIMIT_CLASSES = ("KernelLimitClassifier", "KernelLimitRegressor")
#: the largest ``meta`` string read (a model's is a few kB; a grid of alphas adds ~25 bytes each)
MAX_META_BYTES = 16 * 2**20
SAVED_DEVICE = "saved"

_COMMON_META = ("format_version", "class", "params", "seed", "n_features_in", "projection_sha256")
_META_V2 = _COMMON_META + ("n_outputs", "single_output", "classes", "feature_names", "state", "cv")
_META_V3 = _META_V2 + ("content_sha256",)
_CV_KEYS = ("alpha_", "best_score_", "columns")
_STATE_KEYS = {"normal": ("kind", "dtype", "n_samples"),
               "rls": ("kind", "alpha", "method", "dtype", "n_samples")}


class ModelFileError(ValueError):
    """A file that is not a valid greenelm model; ``str(error)`` names the file and the field."""

    def __init__(self, path, field: str, problem: str):
        self.path, self.field = str(path), field
        super().__init__(f"{path}: field {field!r}: {problem}")


# -- labels as data ---------------------------------------------------------------------------
def encode_labels(classes: np.ndarray) -> tuple[np.ndarray, bool]:
    """``(array, restore_as_object)``: labels (k,) as a bool/int/float/bytes/unicode array."""
    classes = np.asarray(classes)
    if classes.dtype.kind in "biufSU":
        return classes, False
    if classes.dtype.kind != "O":
        raise ValueError(f"classes_ of dtype {classes.dtype} cannot be saved without pickle")
    kinds = {_element_kind(label) for label in classes}
    if len(kinds) != 1 or None in kinds:
        raise ValueError("classes_ must all be str, all bool, all int or all float to be saved "
                         f"without pickle; got the types {sorted({type(c).__name__ for c in classes})}")
    (kind,) = kinds
    return np.array([kind(label) for label in classes], dtype={str: str, bool: bool, int: np.int64,
                                                              float: np.float64}[kind]), True


def _element_kind(label):
    if isinstance(label, str):
        return str
    if isinstance(label, (bool, np.bool_)):
        return bool
    if isinstance(label, numbers.Integral):
        return int
    if isinstance(label, numbers.Real):
        return float
    return None


# -- the partial-fit state as plain arrays -------------------------------------------------
def export_partial_state(equations, stream) -> tuple[dict, dict] | None:
    """``(scalars, arrays)`` of the partial-fit state (CPU NumPy arrays), or None when there is none."""
    if stream is not None:
        scalars, arrays = stream.export_state()
        return {"kind": "rls", **scalars}, arrays
    if equations is None:
        return None
    as_numpy = (lambda a: a.detach().cpu().numpy()) if is_torch(equations.gram) else np.asarray
    gram, hty = as_numpy(equations.gram), as_numpy(equations.hty)
    return ({"kind": "normal", "dtype": equations.dtype, "n_samples": int(equations.n_samples)},
            {"gram": gram, "hty": hty})


def import_partial_state(scalars: dict, arrays: dict, device) -> tuple:
    """``(equations_, stream_)`` rebuilt from :func:`export_partial_state` on ``device``."""
    if scalars["kind"] == "rls":
        from .streaming import StreamingRidge

        rest = {key: value for key, value in scalars.items() if key != "kind"}
        return None, StreamingRidge.from_state(rest, arrays, device)
    equations = NormalEquations.from_sums(arrays["gram"], arrays["hty"], scalars["n_samples"],
                                          scalars["dtype"], device)
    return equations, None


def portable_pickle_state(state: dict) -> dict:
    """An estimator's ``__dict__`` for pickling: the partial-fit state as CPU NumPy arrays."""
    state = dict(state)
    equations, stream = state.pop("equations_", None), state.pop("stream_", None)
    if "coef_" in state or equations is not None or stream is not None:
        state["_portable_partial_state"] = export_partial_state(equations, stream)
    return state


def restore_pickle_state(state: dict) -> dict:
    """Inverse of :func:`portable_pickle_state`: the state back on the estimator's ``device``."""
    state = dict(state)
    if "_portable_partial_state" in state:
        exported = state.pop("_portable_partial_state")
        state["equations_"], state["stream_"] = (
            (None, None) if exported is None else
            import_partial_state(*exported, _usable_device(state.get("device"), "pickled model",
                                                           _PICKLE_HINT)))
    return state


# -- devices ---------------------------------------------------------------------------------
_LOAD_HINT = "pass load_model(path, device=None) for NumPy or device='cpu' for torch on the CPU"
_PICKLE_HINT = ("save it with model.save(path) and use load_model(path, device=None) (NumPy) or "
                "device='cpu' instead of a pickle")


def _usable_device(device, origin: str, hint: str = _LOAD_HINT):
    """``device`` when this machine can use it (None: NumPy); else ValueError saying what to do."""
    if device is None:
        return None
    try:
        import torch
    except ImportError as error:
        raise ValueError(f"the {origin} uses device={str(device)!r}, which needs torch (not "
                         f"installed); {hint}") from error
    try:
        torch.empty(0, device=device)
    except (RuntimeError, AssertionError, ValueError, TypeError) as error:
        raise ValueError(f"the {origin} uses device={str(device)!r}, which is not available on "
                         f"this machine ({error}); {hint}") from error
    return device


# -- writing -----------------------------------------------------------------------------------
def _json_value(value):
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.floating):
        return float(value)
    raise TypeError(f"{value!r} ({type(value).__name__}) cannot be written to a model file")


def write_model(model, path, include_state, projection_sha256: str, params: dict) -> Path:
    """Write ``model`` (fitted with the constructor parameters ``params``) to ``path`` atomically."""
    if not isinstance(include_state, bool) and not (isinstance(include_state, str)
                                                    and include_state == "auto"):
        raise ValueError(f"include_state must be 'auto', True or False, got {include_state!r}")
    exported = export_partial_state(getattr(model, "equations_", None), getattr(model, "stream_", None))
    if include_state is True and exported is None:
        raise ValueError("include_state=True but the model holds no partial-fit state (fitted with "
                         "solver='pinv', or loaded from a file saved without it)")
    if include_state is False or (include_state == "auto"
                                  and not getattr(model, "_fitted_by_partial_fit", False)):
        exported = None
    params = dict(params)
    if model.coef_.shape[0] != params["n_hidden"]:
        raise ValueError(f"n_hidden is {params['n_hidden']} but the fitted readout has "
                         f"{model.coef_.shape[0]} rows: the model's state is inconsistent; refit it")
    params["device"] = None if params["device"] is None else str(params["device"])
    cv = params.get("cv")
    if cv is not None and not isinstance(cv, (str, int, np.integer)):
        raise ValueError(f"this model was fitted with cv={cv!r}, an object a model file cannot hold "
                         "(model files are plain data, never pickles): fit it with cv=<number of "
                         "folds> to save it, or pickle it (joblib.dump)")
    if isinstance(cv, np.integer):
        params["cv"] = int(cv)
    if params.get("alphas") is not None:  # the CV estimators' grid, as a JSON list
        params["alphas"] = [float(a) for a in np.atleast_1d(np.asarray(params["alphas"], dtype=np.float64))]
    if params["random_state"] is not None and not isinstance(params["random_state"], (int, np.integer)):
        params["random_state"] = int(model.seed_)  # a RandomState/Generator: the seed it gave
    arrays = {"coef": np.asarray(model.coef_)}
    meta = {"format_version": FORMAT_VERSION, "class": type(model).__name__, "params": params,
            "seed": int(model.seed_), "n_features_in": int(model.n_features_in_),
            "n_outputs": int(model.coef_.shape[1]), "single_output": None, "classes": None,
            "feature_names": hasattr(model, "feature_names_in_"), "state": None, "cv": None,
            "projection_sha256": projection_sha256}
    if hasattr(model, "alpha_"):  # a cross-validated estimator: its choice and the whole grid
        columns = list(model.cv_results_)
        meta["cv"] = {"alpha_": float(model.alpha_), "best_score_": float(model.best_score_),
                      "columns": columns}
        arrays["cv_alphas"] = np.asarray(model.alphas_, dtype=np.float64)
        arrays.update({f"cv_{name}": np.asarray(model.cv_results_[name], dtype=np.float64)
                       for name in columns})
    if hasattr(model, "classes_"):
        arrays["classes"], as_object = encode_labels(model.classes_)
        meta["classes"] = {"object": as_object}
    else:
        meta["single_output"] = bool(getattr(model, "_single_output", model.n_outputs_ == 1))
    if meta["feature_names"]:
        arrays["feature_names_in"] = np.asarray(model.feature_names_in_, dtype=str)
    if exported is not None:
        meta["state"] = exported[0]
        arrays.update({f"state_{name}": array for name, array in exported[1].items()})
    meta = json.loads(json.dumps(meta, default=_json_value, allow_nan=False))  # plain JSON types
    return save_archive(path, meta, arrays)


def check_output_meta(path, meta: dict, k: int, classifier: bool) -> dict:
    """Check a model file's ``classes`` and ``single_output`` fields for a classifier or a regressor
    with ``k`` outputs (:class:`ModelFileError` naming the field); returns the arrays they imply
    (``{"classes": ((k,), kinds)}`` for a classifier, else ``{}``)."""
    if classifier:
        labels = meta["classes"]
        if not (isinstance(labels, dict) and set(labels) == {"object"}
                and isinstance(labels["object"], bool)):
            raise ModelFileError(path, "classes", f"must be {{'object': true|false}}, got {labels!r}")
        if meta["single_output"] is not None:
            raise ModelFileError(path, "single_output", "must be null for a classifier")
        if k < 2:
            raise ModelFileError(path, "n_outputs", f"a classifier has one output per class (>= 2), got {k}")
        return {"classes": ((k,), "biufSU")}
    if meta["classes"] is not None:
        raise ModelFileError(path, "classes", "must be null for a regressor")
    if not isinstance(meta["single_output"], bool) or (meta["single_output"] and k != 1):
        raise ModelFileError(path, "single_output", f"must be true (only when n_outputs is 1) or "
                                                    f"false, got {meta['single_output']!r}")
    return {}


def save_archive(path, meta: dict, arrays: dict):
    """Write ``meta`` (plain JSON types) and ``arrays`` as a model file at ``path`` atomically (a
    temp file beside it, renamed), or into a binary file object; returns the path (or the object)."""
    if _is_file_object(path, "w"):
        _write_archive(path, meta, arrays)
        return path
    path = Path(path)
    if not path.parent.is_dir():
        raise FileNotFoundError(f"cannot save the model to {path}: the folder {path.parent} does not "
                                "exist (create it first)")
    _remove_stale_temps(path)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f"{_TEMP_PREFIX}{path.name}.{os.getpid()}.",
                               suffix=_TEMP_SUFFIX)
    try:
        with os.fdopen(fd, "wb") as out:
            _write_archive(out, meta, arrays)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return path


#: temporary files of a save: ``.<name>.<pid>.<random>.tmp`` beside the target
_TEMP_PREFIX, _TEMP_SUFFIX = ".", ".tmp"
#: a temp file this old is stale even if its process id is in use again
_STALE_TEMP_SECONDS = 24 * 3600


def _remove_stale_temps(path: Path) -> None:
    """Delete temp files an interrupted save of ``path`` left (its process no longer runs)."""
    pattern = re.compile(re.escape(f"{_TEMP_PREFIX}{path.name}.") + r"(\d+)\.[^.]+" + re.escape(_TEMP_SUFFIX))
    for candidate in path.parent.glob(f"{_TEMP_PREFIX}{glob.escape(path.name)}.*{_TEMP_SUFFIX}"):
        match = pattern.fullmatch(candidate.name)
        if match is None:
            continue
        try:
            age = time.time() - candidate.stat().st_mtime
            if not _process_runs(int(match.group(1))) or age > _STALE_TEMP_SECONDS:
                candidate.unlink()
        except OSError:                                # gone already, or not ours to delete
            pass


def _process_runs(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError):
        return True
    return True


def _is_file_object(target, mode: str) -> bool:
    """Whether ``target`` is a binary file object (rather than a path); refuses a text-mode one."""
    if isinstance(target, (str, os.PathLike)):
        return False
    needed = "write" if mode == "w" else "read"
    if not hasattr(target, needed):
        raise TypeError(f"expected a path or a binary file object, got {type(target).__name__}")
    if isinstance(target, io.TextIOBase):
        raise TypeError("model files are binary: open the file with mode 'wb' / 'rb', not in text mode")
    if mode == "r" and not (hasattr(target, "seek") and target.seekable()):
        raise TypeError("load_model needs a seekable binary file object (an .npz is a zip archive)")
    return True


def _canonical_meta(meta: dict) -> bytes:
    return json.dumps({key: value for key, value in meta.items() if key != "content_sha256"},
                      sort_keys=True, separators=(",", ":"), allow_nan=False).encode()


def _content_digest(member_digests: dict[str, str], meta: dict) -> str:
    """SHA-256 of every array member (its name and the SHA-256 of its raw .npy bytes, in name
    order) and of the canonical JSON of ``meta`` without this digest."""
    digest = hashlib.sha256()
    for name in sorted(member_digests):
        digest.update(f"{name}:{member_digests[name]}\n".encode())
    digest.update(_canonical_meta(meta))
    return digest.hexdigest()


class _Hashing(io.RawIOBase):
    """A write-only stream that forwards to ``out`` and hashes what passes."""

    def __init__(self, out):
        self.out, self.sha256 = out, hashlib.sha256()

    def writable(self):
        return True

    def write(self, data):
        self.sha256.update(data)
        return self.out.write(data)


def _write_archive(out, meta: dict, arrays: dict) -> None:
    """Write the arrays, then ``meta`` with the digest of everything, as an .npz (zip, stored)."""
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED, allowZip64=True) as archive:
        members = {}
        for name, array in arrays.items():
            with archive.open(f"{name}.npy", "w", force_zip64=True) as member:
                hashing = _Hashing(member)
                np.lib.format.write_array(hashing, np.asanyarray(array), allow_pickle=False)
                members[name] = hashing.sha256.hexdigest()
        meta = {**meta, "content_sha256": _content_digest(members, meta)}
        with archive.open("meta.npy", "w") as member:
            np.lib.format.write_array(member, np.array(json.dumps(meta, allow_nan=False)),
                                      allow_pickle=False)


# -- reading -----------------------------------------------------------------------------------
def _npy_headers(archive: zipfile.ZipFile, path) -> dict[str, tuple[tuple, np.dtype]]:
    """``{field: (shape, dtype)}`` from the zip members' .npy headers, reading no array data; refuses
    duplicate members and arrays that declare more bytes than this machine has available."""
    headers, sizes = {}, {}
    for info in archive.infolist():
        if not info.filename.endswith(".npy"):
            raise ModelFileError(path, info.filename, "archive member is not a .npy array")
        field = info.filename[:-4]
        if field in headers:
            raise ModelFileError(path, field, "appears twice in the archive (which copy is meant?)")
        try:
            with archive.open(info) as member:
                version = np.lib.format.read_magic(member)
                if version not in ((1, 0), (2, 0)):
                    raise ValueError(f".npy format version {version} is not supported")
                read = (np.lib.format.read_array_header_1_0 if version == (1, 0)
                        else np.lib.format.read_array_header_2_0)
                shape, _, dtype = read(member)
                offset = member.tell()
        except (ValueError, OSError, EOFError, zipfile.BadZipFile, zlib.error, NotImplementedError) as error:
            raise ModelFileError(path, field, f"unreadable .npy header: {error}") from error
        if dtype.hasobject:
            raise ModelFileError(path, field, "holds a pickled object array; model files hold "
                                              "plain data only and are never unpickled")
        needed = math.prod(shape) * dtype.itemsize
        if info.file_size - offset < needed:
            raise ModelFileError(path, field, f"header says shape {shape} ({needed} bytes) but "
                                              f"the member holds {info.file_size - offset} bytes")
        headers[field], sizes[field] = (tuple(shape), dtype), needed
    if sizes.get("meta", 0) > MAX_META_BYTES:
        raise ModelFileError(path, "meta", f"declares {sizes['meta']} bytes; a model's meta is a "
                                           f"JSON string of a few kB (at most {MAX_META_BYTES})")
    available = available_memory()
    if sizes and available is not None and sum(sizes.values()) > available:
        largest = max(sizes, key=sizes.get)
        raise ModelFileError(path, largest, f"the arrays declare {sum(sizes.values())} bytes "
                                            f"({sizes[largest]} for this one), more than the "
                                            f"{available} bytes of memory available here")
    return headers


def _read_array(archive: zipfile.ZipFile, path, field: str) -> np.ndarray:
    try:
        with archive.open(f"{field}.npy") as member:
            return np.lib.format.read_array(member, allow_pickle=False)
    except MemoryError as error:
        raise ModelFileError(path, field, "too large to read into this machine's memory") from error
    except (ValueError, OSError, EOFError, zipfile.BadZipFile, zlib.error) as error:
        raise ModelFileError(path, field, f"unreadable array: {error}") from error


def _check_content_digest(archive: zipfile.ZipFile, path, meta: dict) -> None:
    """Compare ``meta["content_sha256"]`` with the digest of the members' raw bytes, streamed
    (nothing is allocated), before any array is read."""
    expected = meta["content_sha256"]
    if not isinstance(expected, str) or not re.fullmatch(r"[0-9a-f]{64}", expected):
        raise ModelFileError(path, "content_sha256", f"must be 64 hex digits, got {expected!r}")
    members = {}
    for info in archive.infolist():
        if info.filename == "meta.npy":
            continue
        digest = hashlib.sha256()
        try:
            with archive.open(info) as member:
                for block in iter(lambda: member.read(2**20), b""):
                    digest.update(block)
        except (OSError, EOFError, zipfile.BadZipFile, zlib.error) as error:
            raise ModelFileError(path, info.filename[:-4], f"unreadable member: {error}") from error
        members[info.filename[:-4]] = digest.hexdigest()
    if _content_digest(members, meta) != expected:
        raise ModelFileError(path, "content_sha256", "the file's arrays or fields differ from those "
                             "it was saved with (edited, corrupted or truncated); it is refused")


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _check_keys(path, field: str, found, expected) -> None:
    missing, unknown = sorted(set(expected) - set(found)), sorted(set(found) - set(expected))
    if missing:
        raise ModelFileError(path, field, f"missing key(s) {', '.join(map(repr, missing))}")
    if unknown:
        raise ModelFileError(path, field, f"unknown key(s) {', '.join(map(repr, unknown))}")


def _upgrade_v1(path, meta: dict, headers: dict) -> dict:
    """Format 1 (greenelm ≤ 0.2.0): labels as a plain array, no output flag, names or state."""
    _check_keys(path, "meta", meta, _COMMON_META)
    coef_shape = headers.get("coef", ((), None))[0]
    n_outputs = coef_shape[1] if len(coef_shape) == 2 else None
    is_classifier = meta.get("class") == "ELMClassifier"
    return {**meta, "format_version": FORMAT_VERSION, "n_outputs": n_outputs,
            "single_output": None if is_classifier else n_outputs == 1,
            "classes": {"object": False} if is_classifier else None,
            "feature_names": False, "state": None, "cv": None, "content_sha256": None}


def _check_meta(path, meta: dict, estimators: dict, headers: dict):
    """Validate the JSON fields; returns (estimator class, params, expected arrays {field: check})."""
    _check_keys(path, "meta", meta, _META_V3)
    if meta["class"] not in estimators:
        raise ModelFileError(path, "class", f"unknown class {meta['class']!r}; expected one of "
                                            f"{', '.join(map(repr, estimators))}")
    cls = estimators[meta["class"]]
    params = meta["params"]
    if not isinstance(params, dict):
        raise ModelFileError(path, "params", f"must be a JSON object, got {params!r}")
    _check_keys(path, "params", params, cls().get_params())
    if params["device"] is not None and not isinstance(params["device"], str):
        raise ModelFileError(path, "params", f"device must be null or a string, got {params['device']!r}")
    if params["device"] is not None:
        _check_device_name(path, params["device"])
    seed = params["random_state"]
    if seed is not None and (not _is_int(seed) or seed < 0):
        raise ModelFileError(path, "params", f"random_state must be null or an integer >= 0, got {seed!r}")
    try:
        cls(**{**params, "device": None})._check_params()  # the device is chosen at load (below)
    except (ValueError, TypeError) as error:
        raise ModelFileError(path, "params", str(error)) from error
    if not _is_int(meta["seed"]) or meta["seed"] < 0:
        raise ModelFileError(path, "seed", f"must be an integer >= 0, got {meta['seed']!r}")
    for field in ("n_features_in", "n_outputs"):
        if not _is_int(meta[field]) or meta[field] < 1:
            raise ModelFileError(path, field, f"must be an integer >= 1, got {meta[field]!r}")
    digest = meta["projection_sha256"]
    if not isinstance(digest, str) or not re.fullmatch(r"[0-9a-f]{64}", digest):
        raise ModelFileError(path, "projection_sha256", f"must be 64 hex digits, got {digest!r}")
    d, k = params["n_hidden"], meta["n_outputs"]
    arrays = {"meta": ((), "U"), "coef": ((d, k), "f")}
    arrays.update(check_output_meta(path, meta, k, is_classifier(cls())))
    if not isinstance(meta["feature_names"], bool):
        raise ModelFileError(path, "feature_names", f"must be true or false, got {meta['feature_names']!r}")
    if meta["feature_names"]:
        arrays["feature_names_in"] = ((meta["n_features_in"],), "U")
    state = meta["state"]
    if state is not None:
        arrays.update(_check_state(path, state, params, d, k))
    arrays.update(_check_cv(path, meta["cv"], cls))
    _check_keys(path, "arrays", headers, arrays)
    if "cv_alphas" in arrays:  # the grid: cv_alphas (n_alphas,) and every column as long
        grid_shape = headers["cv_alphas"][0]
        if len(grid_shape) != 1 or grid_shape[0] < 1:
            raise ModelFileError(path, "cv_alphas", f"must be a non-empty 1-D grid, got shape {grid_shape}")
        arrays = {field: (grid_shape, kinds) if field.startswith("cv_") else (shape, kinds)
                  for field, (shape, kinds) in arrays.items()}
    for field, (shape, kinds) in arrays.items():
        found_shape, dtype = headers[field]
        if found_shape != shape:
            raise ModelFileError(path, field, f"shape {found_shape}, expected {shape}")
        allowed = dtype == kinds if isinstance(kinds, np.dtype) else dtype.kind in kinds
        if not allowed:
            expected = kinds if isinstance(kinds, np.dtype) else f"one of the kinds {kinds!r}"
            raise ModelFileError(path, field, f"dtype {dtype} is not allowed here (expected {expected})")
    return cls, params


def _check_device_name(path, device: str) -> None:
    """A saved device must name a place that holds data: torch understands it and it is not
    ``meta``.  (Without torch, loading on it is refused later, saying to pass ``device=None``.)"""
    try:
        import torch
    except ImportError:
        return
    try:
        parsed = torch.device(device)
    except (RuntimeError, ValueError) as error:
        raise ModelFileError(path, "params", f"device {device!r} is not a torch device: {error}") from None
    if parsed.type == "meta":
        raise ModelFileError(path, "params", "device 'meta' holds no data; a model runs on "
                                             "null (NumPy), 'cpu' or 'cuda'")


def _check_cv(path, cv, cls) -> dict:
    """Validate a CV estimator's choice (``meta["cv"]``); returns its expected arrays."""
    cross_validated = "alphas" in cls().get_params()
    if not cross_validated:
        if cv is not None:
            raise ModelFileError(path, "cv", f"must be null for {cls.__name__}")
        return {}
    if not isinstance(cv, dict):
        raise ModelFileError(path, "cv", f"{cls.__name__} needs its choice of λ, got {cv!r}")
    _check_keys(path, "cv", cv, _CV_KEYS)
    alpha = cv["alpha_"]
    if not isinstance(alpha, (int, float)) or isinstance(alpha, bool) or not math.isfinite(alpha) or alpha <= 0:
        raise ModelFileError(path, "cv", f"alpha_ must be a finite number > 0, got {alpha!r}")
    if not isinstance(cv["best_score_"], (int, float)) or isinstance(cv["best_score_"], bool):
        raise ModelFileError(path, "cv", f"best_score_ must be a number, got {cv['best_score_']!r}")
    columns = cv["columns"]
    if (not isinstance(columns, list) or not columns
            or not all(isinstance(c, str) and re.fullmatch(r"[a-z_]+", c) for c in columns)):
        raise ModelFileError(path, "cv", f"columns must be a list of column names, got {columns!r}")
    return {"cv_alphas": (None, "f"), **{f"cv_{name}": (None, "f") for name in columns}}


def _check_state(path, state, params: dict, d: int, k: int) -> dict:
    """Validate the partial-fit state's scalars; returns its expected arrays {field: (shape, dtype)}."""
    kind = state.get("kind") if isinstance(state, dict) else None
    if kind not in _STATE_KEYS:
        raise ModelFileError(path, "state", f"kind must be 'normal' or 'rls', got {kind!r}")
    _check_keys(path, "state", state, _STATE_KEYS[kind])
    try:
        check_choice("dtype", state["dtype"], DTYPES)
    except ValueError as error:
        raise ModelFileError(path, "state", str(error)) from error
    if not _is_int(state["n_samples"]) or state["n_samples"] < 1:
        raise ModelFileError(path, "state", f"n_samples must be an integer >= 1, got {state['n_samples']!r}")
    dtype = np.dtype(state["dtype"])
    names = ("gram", "hty")
    if kind == "normal" and state["dtype"] != params["dtype"]:
        raise ModelFileError(path, "state", f"normal equations in {state['dtype']} but the model's "
                                            f"dtype is {params['dtype']!r}")
    if kind == "rls":
        from .streaming import METHODS

        if params["partial_fit_method"] != "rls":
            raise ModelFileError(path, "state", "an RLS state needs partial_fit_method='rls', got "
                                                f"{params['partial_fit_method']!r}")
        try:
            check_choice("method", state["method"], METHODS)
            if check_alpha(state["alpha"]) == 0:
                raise ValueError("alpha must be > 0 for an RLS state")
        except ValueError as error:
            raise ModelFileError(path, "state", str(error)) from error
        names = ("gram", "hty") if state["method"] == "information" else ("P", "W")
    if names[0] == "gram":  # accumulated sums are float64 whatever the blocks' dtype
        dtype = np.dtype(np.float64)
    return {f"state_{names[0]}": ((d, d), dtype), f"state_{names[1]}": ((d, k), dtype)}


def read_model(path, estimators: dict, device=SAVED_DEVICE, kernel_reader=None):
    """Validate the file at ``path`` (a path or a seekable binary file object) and rebuild the
    model (without its projection); returns ``(model, projection_sha256)``.  Raises
    :class:`ModelFileError` for a bad file. ``kernel_reader(archive, path, meta, headers, device)``
    reads a file of one of :data:`KERNEL_LIMIT_CLASSES` (returned with ``None``; the caller passes
    :func:`greenelm.kernel_limit.read_kernel_limit`, so this module imports no estimator)."""
    source = path
    if _is_file_object(source, "r"):
        path = getattr(source, "name", None) or f"<{type(source).__name__}>"
    try:
        archive = zipfile.ZipFile(source)
    except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, ValueError) as error:
        raise ModelFileError(path, "file", f"not an .npz archive (a zip of .npy arrays): {error}") \
            from error
    with archive:
        model, meta = _read_archive(archive, path, estimators, device, kernel_reader)
    if meta is None:         # a kernel-limit model, read whole: no projection to rebuild
        return model, None
    return _place(model, meta, path, device)


def _read_archive(archive: zipfile.ZipFile, path, estimators: dict, device=SAVED_DEVICE, kernel_reader=None):
    headers = _npy_headers(archive, path)
    if "meta" not in headers:
        raise ModelFileError(path, "meta", "missing: not a greenelm model file")
    if headers["meta"][0] != () or headers["meta"][1].kind != "U":
        raise ModelFileError(path, "meta", "must be a JSON string (0-d unicode array)")
    try:
        meta = json.loads(str(_read_array(archive, path, "meta")))
    except json.JSONDecodeError as error:
        raise ModelFileError(path, "meta", f"not valid JSON: {error}") from error
    except RecursionError:
        raise ModelFileError(path, "meta", "JSON nested too deeply to be a model's meta") from None
    if not isinstance(meta, dict):
        raise ModelFileError(path, "meta", "must be a JSON object")
    if "format_version" not in meta:
        raise ModelFileError(path, "meta", "missing key(s) 'format_version': not a greenelm model file")
    version = meta["format_version"]
    if isinstance(meta.get("class"), str) and meta["class"] in KERNEL_LIMIT_CLASSES and kernel_reader is not None:
        return kernel_reader(archive, path, meta, headers, device), None     # checks its format_version itself
    if not _is_int(version) or version not in READABLE_VERSIONS:
        raise ModelFileError(path, "format_version", f"{version!r} is not a format this greenelm "
                                                     f"reads ({', '.join(map(str, READABLE_VERSIONS))}; "
                                                     f"{KERNEL_LIMIT_FORMAT} for {' and '.join(KERNEL_LIMIT_CLASSES)})")
    if version == 1:
        meta = _upgrade_v1(path, meta, headers)
    elif version == 2:  # format 2 (greenelm 0.2.x): no digest of the content
        _check_keys(path, "meta", meta, _META_V2)
        meta = {**meta, "format_version": FORMAT_VERSION, "content_sha256": None}
    cls, params = _check_meta(path, meta, estimators, headers)
    if meta["content_sha256"] is not None:
        _check_content_digest(archive, path, meta)
    coef = _read_array(archive, path, "coef")
    if not np.isfinite(coef).all():
        raise ModelFileError(path, "coef", "the readout holds NaN or infinite values")
    model = cls(**params)
    if "classes" in headers:
        classes = _read_array(archive, path, "classes")
        if classes.dtype.kind == "f" and not np.isfinite(classes).all():
            raise ModelFileError(path, "classes", "labels hold NaN or infinite values")
        if not np.array_equal(np.unique(classes), classes):
            raise ModelFileError(path, "classes", "labels must be sorted and distinct (as np.unique)")
        model.classes_ = classes.astype(object) if meta["classes"]["object"] else classes
    else:
        model._single_output = meta["single_output"]
    if meta["feature_names"]:
        model.feature_names_in_ = _read_array(archive, path, "feature_names_in").astype(object)
    cv_arrays = {name[len("cv_"):]: _read_array(archive, path, name)
                 for name in headers if name.startswith("cv_")}
    state = meta["state"]
    arrays = {}
    if state is not None:
        arrays = {name[len("state_"):]: _read_array(archive, path, name)
                  for name in headers if name.startswith("state_")}
        for name, array in arrays.items():
            if not np.isfinite(array).all():
                raise ModelFileError(path, f"state_{name}", "holds NaN or infinite values")
        for name in ("gram", "P"):   # HᵀH has sums of squares on its diagonal, P = (HᵀH + λI)⁻¹ > 0
            if name in arrays and not (np.diagonal(arrays[name]) >= 0).all():
                raise ModelFileError(path, f"state_{name}", "has a negative diagonal entry, which "
                                                            f"{'HᵀH' if name == 'gram' else 'P'} cannot have")
    return model, {"meta": meta, "params": params, "state": state, "arrays": arrays,
                   "coef": coef, "cv_arrays": cv_arrays}


def _place(model, read: dict, path, device):
    """Finish the model read from ``path`` on the device chosen (see :func:`read_model`)."""
    meta, params, state, arrays, coef, cv_arrays = (read[key] for key in
                                                    ("meta", "params", "state", "arrays", "coef", "cv_arrays"))
    target = params["device"] if isinstance(device, str) and device == SAVED_DEVICE else device
    model.device = _usable_device(target, f"model file {path}" if target is params["device"]
                                  else "load_model call")
    model.seed_, model.n_features_in_ = meta["seed"], meta["n_features_in"]
    model.coef_, model.n_outputs_ = np.asarray(coef, dtype=np.float64), meta["n_outputs"]
    try:
        model.equations_, model.stream_ = (None, None) if state is None else \
            import_partial_state(state, arrays, model.device)
    except ValueError as error:
        raise ModelFileError(path, "state", str(error)) from error
    model._fitted_by_partial_fit = state is not None
    if meta["cv"] is not None:
        model.alpha_, model.best_score_ = float(meta["cv"]["alpha_"]), float(meta["cv"]["best_score_"])
        model.alphas_ = cv_arrays.pop("alphas")
        model.cv_results_ = cv_arrays
    model._partial_state_missing = None if state is not None else (
        f"{path} holds no partial-fit state (it was saved with include_state=False, or by 'auto' "
        "from a model fitted by fit); partial_fit would restart from zero. Save with "
        "include_state=True to continue partial_fit after loading, or call fit")
    return model, meta["projection_sha256"]
