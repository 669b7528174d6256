"""The chapters' results cache: ``memoize(name, params, compute)`` computes once and stores the result as data.

An entry is two files in :func:`cache_dir` (``greenelm.data.cache_dir() / "results"``), named after
``name`` and the first 16 hex digits of its key: SHA-256 of the name, the params and the code the
computation runs (:func:`greenelm_book.codekey.code_fingerprint`: ``compute`` and every function,
class and constant of ``greenelm``/``greenelm_book`` it reaches, as syntax trees without comments,
docstrings or formatting, plus the versions of the other libraries it calls). Editing a docstring
or moving a helper keeps every entry; changing any code the computation runs recomputes it.

* ``{name}-{key}.npz`` — the payload: every numpy array of the result (``allow_pickle=False``);
* ``{name}-{key}.json`` — the manifest: format, name, full key, params, code digest (with the
  functions, classes and constants it covers and the library versions, for the reader), compute
  seconds, the SHA-256 of the payload file, the result's structure (arrays referred to by their
  name in the payload), and the SHA-256 of the manifest itself.

Both are written atomically (temporary file, then ``os.replace``), the payload first and the
manifest last, so a manifest means a complete entry. Nothing is ever unpickled. On a read, an
entry that cannot be trusted (unparsable manifest, a checksum that does not match, a missing
payload, a manifest written for other params) or a legacy pickled result (``{name}-*.pkl``, never
opened) is reported with a :class:`CacheWarning` naming the file, and the result is recomputed.
Temporaries left by a killed write are removed on the next call (the rule, which never removes a
live writer's file, is in :mod:`greenelm._cachefiles`).

When ``$GREENELM_COMPUTE_LOG`` names a file (the runner sets it for each chapter it executes),
every call appends one JSON line to it: ``{"name", "cached", "seconds"}`` (the compute seconds of
the stored result, also when it was read from the cache), so a chapter's provenance records how
long its results took to compute (:func:`greenelm_book.execute.compute_time`).

Results may be built from: ``None``, ``bool``, ``int``, ``float``, ``str``, numpy arrays (not of
object dtype) and numpy scalars, ``list``, ``tuple``, ``dict`` (keys: the hashable ones among
these, tuples included) and pandas DataFrames. A DataFrame is stored column by column, in order,
with its dtype: numpy dtypes other than object; object or string (``str``) columns holding str
and missing values; the nullable ``Int*``/``UInt*``/``Float*``/``boolean`` dtypes. Its index and
column labels are stored the same way (a ``RangeIndex`` as start/stop/step; a plain ``Index``,
or a ``DatetimeIndex``/``TimedeltaIndex`` without ``freq``, as values); a MultiIndex,
``attrs`` or other column dtypes (categorical, ...) raise TypeError. Types must match exactly (a
subclass such as a namedtuple would not come back as itself, so it is refused). Anything else
raises TypeError at store time, naming the type and its place in the result
(e.g. ``result['table']['solver'][3]``).
"""

from __future__ import annotations

import hashlib
import io
import json
import math
import os
import time
import warnings
import zipfile
from pathlib import Path

import numpy as np

from greenelm._cachefiles import (
    atomic_write,
    check_entry_name,
    entry_path,
    remove_stale_temporaries,
)
from greenelm.data import cache_dir as data_cache_dir

from .codekey import code_fingerprint

__all__ = ["CacheWarning", "cache_dir", "memoize"]

#: environment variable naming the file each :func:`memoize` call appends its compute time to
COMPUTE_LOG_ENV = "GREENELM_COMPUTE_LOG"

FORMAT = "greenelm-results/2"
_MASKED_DTYPES = {"Int8", "Int16", "Int32", "Int64", "UInt8", "UInt16", "UInt32", "UInt64",
                  "Float32", "Float64", "boolean"}


class CacheWarning(UserWarning):
    """A cache entry was ignored (the message names the file and why) and its result recomputed."""


def cache_dir() -> Path:
    """Where computed results are kept: ``greenelm.data.cache_dir() / "results"``."""
    return data_cache_dir() / "results"


# ------------------------------------------------------------------ the key

def _canonical_params(value, where: str = "params"):
    """``params`` as plain JSON values (tuples become lists, numpy scalars Python numbers); else TypeError."""
    if value is None or type(value) in (bool, int, str):
        return value
    if type(value) is float or isinstance(value, np.floating):
        if not math.isfinite(value):
            raise ValueError(f"{where} is {value!r}: parameters must be finite numbers")
        if float(value) != value:
            raise TypeError(f"{where} = {value!r} ({_type_name(value)}) is not exactly a Python float")
        return float(value)
    if isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, np.integer):
        return int(value)
    if type(value) in (list, tuple):
        return [_canonical_params(v, f"{where}[{i}]") for i, v in enumerate(value)]
    if type(value) is dict:
        out = {}
        for k, v in value.items():
            if type(k) is not str:
                raise TypeError(f"{where} has a key {k!r} of type {type(k).__name__}: parameter names must be str")
            out[k] = _canonical_params(v, f"{where}[{k!r}]")
        return out
    raise TypeError(f"{where} has the unsupported type {_type_name(value)}: parameters must be None, bool, "
                    f"int, float, str, or lists/tuples/dicts of these")


def _key(name: str, params: dict, code: str) -> str:
    return hashlib.sha256(_dumps({"format": FORMAT, "name": name, "params": params,
                                  "code": code}).encode()).hexdigest()


def _dumps(obj) -> str:
    return json.dumps(obj, sort_keys=True, allow_nan=False, separators=(",", ":"))


# ------------------------------------------------------------------ encoding results as data

def _type_name(value) -> str:
    kind = type(value)
    return kind.__qualname__ if kind.__module__ == "builtins" else f"{kind.__module__}.{kind.__qualname__}"


class _Encoder:
    """Turns a result into a JSON structure plus named arrays (``a0``, ``a1``, ...)."""

    def __init__(self):
        self.arrays: dict[str, np.ndarray] = {}

    def array(self, values, where: str) -> str:
        values = np.asarray(values)
        if values.dtype.hasobject:
            raise TypeError(f"cannot store {where}: a numpy array of dtype {values.dtype} (Python objects "
                            f"cannot be stored without pickle)")
        label = f"a{len(self.arrays)}"
        self.arrays[label] = values
        return label

    def node(self, value, where: str = "result") -> dict:
        kind = type(value)
        if value is None:
            return {"type": "none"}
        if kind is bool:
            return {"type": "bool", "value": value}
        if kind is int:
            return {"type": "int", "value": str(value)}
        if kind is float:
            return {"type": "float", "value": repr(value)}
        if kind is str:
            return {"type": "str", "value": value}
        if kind is np.ndarray:
            return {"type": "ndarray", "array": self.array(value, where)}
        if isinstance(value, np.generic) and not isinstance(value, np.object_):
            return {"type": "numpy_scalar", "array": self.array(np.asarray(value), where)}
        if kind in (list, tuple):
            return {"type": kind.__name__, "items": [self.node(v, f"{where}[{i}]") for i, v in enumerate(value)]}
        if kind is dict:
            items = []
            for k, v in value.items():
                items.append([self.key(k, f"{where} key {k!r}"), self.node(v, f"{where}[{k!r}]")])
            return {"type": "dict", "items": items}
        if _is_dataframe(value):
            return self.dataframe(value, where)
        raise TypeError(f"cannot store {where}: unsupported type {_type_name(value)} (supported: None, bool, "
                        f"int, float, str, numpy arrays and scalars, list, tuple, dict, pandas.DataFrame)")

    def key(self, value, where: str) -> dict:
        if type(value) in (list, dict) or isinstance(value, np.ndarray) or _is_dataframe(value):
            raise TypeError(f"cannot store {where}: a dict key must be hashable, got {_type_name(value)}")
        if type(value) is tuple:
            return {"type": "tuple", "items": [self.key(v, f"{where}[{i}]") for i, v in enumerate(value)]}
        return self.node(value, where)

    def dataframe(self, frame, where: str) -> dict:
        if frame.attrs:
            raise TypeError(f"cannot store {where}: DataFrame.attrs ({sorted(frame.attrs)}) are not stored; "
                            f"clear them or return them separately")
        columns = [self.column(frame.iloc[:, i], f"{where}[{frame.columns[i]!r}]")
                   for i in range(frame.shape[1])]
        return {"type": "dataframe", "n_rows": len(frame), "columns": columns,
                "index": self.index(frame.index, f"{where}.index"),
                "column_labels": self.index(frame.columns, f"{where}.columns")}

    def index(self, index, where: str) -> dict:
        import pandas as pd
        if isinstance(index, pd.MultiIndex):
            raise TypeError(f"cannot store {where}: a MultiIndex is not supported (reset_index() it first)")
        if type(index) is pd.RangeIndex:
            return {"kind": "range", "start": index.start, "stop": index.stop, "step": index.step,
                    "name": self.key(index.name, f"{where}.name")}
        dated = isinstance(index, (pd.DatetimeIndex, pd.TimedeltaIndex)) and index.freq is None
        if type(index) is not pd.Index and not dated:
            raise TypeError(f"cannot store {where}: unsupported index type {_type_name(index)} "
                            f"(a RangeIndex, a plain Index, or a Datetime/TimedeltaIndex without freq)")
        return {"kind": "index", "values": self.column(pd.Series(index, copy=False), where),
                "name": self.key(index.name, f"{where}.name")}

    def column(self, column, where: str) -> dict:
        import pandas as pd
        dtype = column.dtype
        if isinstance(dtype, np.dtype) and not dtype.hasobject:
            return {"kind": "numpy", "array": self.array(column.to_numpy(), where)}
        if isinstance(dtype, pd.CategoricalDtype) or not (dtype == object or isinstance(dtype, pd.StringDtype)
                                                           or str(dtype) in _MASKED_DTYPES):
            raise TypeError(f"cannot store {where}: unsupported column dtype {dtype} (numpy dtypes, "
                            f"object/str columns of strings, nullable Int/UInt/Float/boolean)")
        missing = column.isna().to_numpy()
        if str(dtype) in _MASKED_DTYPES:
            values = column.to_numpy(dtype=dtype.numpy_dtype, na_value=dtype.numpy_dtype.type(0))
            return {"kind": "masked", "dtype": str(dtype), "array": self.array(values, where),
                    "missing": self.array(missing, where)}
        texts = []
        codes = np.zeros(len(column), np.int8)       # 0: a str, 1: None, 2: NaN, 3: pd.NA
        for row, value in enumerate(column.to_numpy(dtype=object)):
            if type(value) is str:
                texts.append(value)
                continue
            texts.append("")
            if value is None:
                codes[row] = 1
            elif type(value) is float and math.isnan(value):
                codes[row] = 2
            elif value is pd.NA:
                codes[row] = 3
            else:
                raise TypeError(f"cannot store {where}[{row}]: a value of type {_type_name(value)} in a column of dtype "
                                f"{dtype}; such columns may hold only str and missing values")
        out = {"kind": "strings", "array": self.array(np.array(texts, dtype=str), where),
               "missing": self.array(codes, where)}
        if dtype == object:
            out["dtype"] = "object"
        else:
            out["dtype"] = "string"
            out["storage"] = dtype.storage
            out["na_value"] = "nan" if dtype.na_value is not pd.NA else "NA"
        return out


def _is_dataframe(value) -> bool:
    kind = type(value)
    return kind.__name__ == "DataFrame" and kind.__module__.startswith("pandas")


class _Decoder:
    """Rebuilds a result from its structure and the payload's arrays (every array used exactly once)."""

    def __init__(self, arrays: dict[str, np.ndarray]):
        self.arrays, self.used = arrays, set()

    def array(self, label) -> np.ndarray:
        if label not in self.arrays or label in self.used:
            raise ValueError(f"the structure refers to array {label!r}, missing from the payload or used twice")
        self.used.add(label)
        return self.arrays[label]

    def node(self, node):
        kind = node["type"]
        if kind == "none":
            return None
        if kind == "bool":
            return bool(node["value"])
        if kind == "int":
            return int(node["value"])
        if kind == "float":
            return float(node["value"])
        if kind == "str":
            return str(node["value"])
        if kind == "ndarray":
            return self.array(node["array"])
        if kind == "numpy_scalar":
            return self.array(node["array"])[()]
        if kind == "list":
            return [self.node(item) for item in node["items"]]
        if kind == "tuple":
            return tuple(self.node(item) for item in node["items"])
        if kind == "dict":
            return {self.node(k): self.node(v) for k, v in node["items"]}
        if kind == "dataframe":
            return self.dataframe(node)
        raise ValueError(f"unknown node type {kind!r}")

    def dataframe(self, node):
        import pandas as pd
        index = self.index(node["index"])
        columns = [self.column(c) for c in node["columns"]]
        if len(index) != node["n_rows"] or any(len(c) != node["n_rows"] for c in columns):
            raise ValueError("a DataFrame's columns and index disagree on the number of rows")
        rows = pd.RangeIndex(node["n_rows"])
        frame = pd.DataFrame({i: pd.Series(c, index=rows, dtype=c.dtype, copy=False) for i, c in enumerate(columns)},
                             index=rows)                    # an explicit dtype: object stays object
        frame.index = index
        frame.columns = self.index(node["column_labels"])
        return frame

    def index(self, node):
        import pandas as pd
        if node["kind"] == "range":
            return pd.RangeIndex(node["start"], node["stop"], node["step"], name=self.node(node["name"]))
        values = self.column(node["values"])
        return pd.Index(values, dtype=values.dtype, name=self.node(node["name"]))

    def column(self, node):
        import pandas as pd
        if node["kind"] == "numpy":
            return self.array(node["array"])
        if node["kind"] == "masked":
            values = pd.array(self.array(node["array"]), dtype=node["dtype"])
            values[self.array(node["missing"])] = pd.NA
            return values
        texts = self.array(node["array"]).astype(object)
        missing = {1: None, 2: float("nan"), 3: pd.NA}
        for row, code in enumerate(self.array(node["missing"])):
            if code:
                texts[row] = missing[int(code)]
        if node["dtype"] == "object":
            return texts
        na_value = np.nan if node["na_value"] == "nan" else pd.NA
        return pd.array(texts, dtype=pd.StringDtype(node["storage"], na_value=na_value))


# ------------------------------------------------------------------ entries on disk

class _Untrusted(Exception):
    """An entry that must not be used (the message says why)."""


def _write_entry(stem: Path, manifest: dict, arrays: dict[str, np.ndarray]) -> None:
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)          # object arrays were refused: nothing is pickled
    payload = buffer.getvalue()
    manifest = dict(manifest, payload=stem.name + ".npz", payload_sha256=hashlib.sha256(payload).hexdigest())
    manifest["manifest_sha256"] = hashlib.sha256(_dumps(manifest).encode()).hexdigest()
    atomic_write(stem.with_name(stem.name + ".npz"), lambda handle: handle.write(payload))
    text = json.dumps(manifest, sort_keys=True, allow_nan=False, indent=1)          # ASCII
    atomic_write(stem.with_name(stem.name + ".json"), lambda handle: handle.write(text.encode()))


def _read_entry(stem: Path, expected: dict):
    """``(result, seconds)`` of the entry at ``stem``; raises _Untrusted when it cannot be trusted."""
    manifest_path, payload_path = stem.with_name(stem.name + ".json"), stem.with_name(stem.name + ".npz")
    try:
        manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        raise _Untrusted(f"its manifest {manifest_path} cannot be read ({err})") from err
    if type(manifest) is not dict:
        raise _Untrusted(f"its manifest {manifest_path} is not a JSON object")
    body = {k: v for k, v in manifest.items() if k != "manifest_sha256"}
    if manifest.get("manifest_sha256") != hashlib.sha256(_dumps(body).encode()).hexdigest():
        raise _Untrusted(f"its manifest {manifest_path} fails its checksum")
    for field, value in expected.items():
        if manifest.get(field) != value:
            raise _Untrusted(f"its manifest {manifest_path} was written for {field} {manifest.get(field)!r}, "
                             f"not {value!r}")
    try:
        payload = payload_path.read_bytes()
    except OSError as err:
        raise _Untrusted(f"its payload {payload_path} cannot be read ({err})") from err
    actual = hashlib.sha256(payload).hexdigest()
    if actual != manifest.get("payload_sha256"):
        raise _Untrusted(f"its payload {payload_path} fails its checksum (recorded "
                         f"{manifest.get('payload_sha256')}, actual {actual})")
    try:
        with np.load(io.BytesIO(payload), allow_pickle=False) as archive:
            arrays = {label: archive[label] for label in archive.files}
        decoder = _Decoder(arrays)
        result = decoder.node(manifest["result"])
        if decoder.used != set(arrays):
            raise ValueError(f"the payload holds arrays the structure does not use: {sorted(set(arrays) - decoder.used)}")
        seconds = float(manifest["seconds"])
    except (ValueError, KeyError, TypeError, IndexError, AttributeError, ImportError, OSError,
            zipfile.BadZipFile) as err:
        raise _Untrusted(f"the entry {manifest_path} cannot be decoded ({type(err).__name__}: {err})") from err
    return result, seconds


def _log_compute(name: str, cached: bool, seconds: float) -> None:
    """Append ``{"name", "cached", "seconds"}`` to ``$GREENELM_COMPUTE_LOG`` when it is set."""
    log = os.environ.get(COMPUTE_LOG_ENV)
    if log:
        with open(log, "a", encoding="utf-8") as fh:
            fh.write(json.dumps({"name": name, "cached": cached, "seconds": seconds}) + "\n")


def memoize(name: str, params: dict, compute, refresh: bool = False):
    """``compute()`` once per (name, params, code it runs); later calls load the stored result.

    ``name`` labels the entry (letters, digits, ``-``, ``_``, ``.``); ``params`` is a dict of JSON
    values (None, bool, int, float, str and lists/tuples/dicts of them; numpy scalars are taken as
    Python numbers) describing the computation; the code ``compute`` runs is found by walking it
    (see the module docstring), so changing that code recomputes. ``refresh=True`` recomputes and
    overwrites. The result must be made of the types the module docstring lists (else TypeError
    naming the offending part, before anything is written). Returns ``(result, info)`` with ``info = {"cached": bool, "seconds": compute time of
    the stored result, "path": the manifest}``; an entry that cannot be trusted is reported with a
    :class:`CacheWarning` and recomputed.
    """
    check_entry_name(name, "name")
    if type(params) is not dict:
        raise TypeError(f"params must be a dict, got {_type_name(params)}")
    if not callable(compute):
        raise TypeError(f"compute must be a callable taking no arguments, got {_type_name(compute)}")
    if type(refresh) is not bool:
        raise TypeError(f"refresh must be True or False, got {refresh!r}")
    canonical = _canonical_params(params)
    code = code_fingerprint(compute)
    key = _key(name, canonical, code["digest"])
    folder = cache_dir()
    stem = entry_path(folder, f"{name}-{key[:16]}.json").with_suffix("")
    remove_stale_temporaries(folder)
    legacy = sorted(folder.glob(f"{name}-*.pkl"))
    if legacy:
        warnings.warn(f"results cache: ignoring {len(legacy)} legacy pickled result(s), never unpickled: "
                      f"{', '.join(map(str, legacy))} (delete them)", CacheWarning, stacklevel=2)
    manifest_path = stem.with_name(stem.name + ".json")
    expected = {"format": FORMAT, "name": name, "key": key, "params": canonical, "code": code["digest"]}
    if manifest_path.exists() and not refresh:
        try:
            result, seconds = _read_entry(stem, expected)
            _log_compute(name, True, seconds)
            return result, {"cached": True, "seconds": seconds, "path": str(manifest_path)}
        except _Untrusted as why:
            warnings.warn(f"results cache: ignoring {manifest_path}: {why}; recomputing", CacheWarning,
                          stacklevel=2)
    start = time.perf_counter()
    result = compute()
    seconds = time.perf_counter() - start
    encoder = _Encoder()
    structure = encoder.node(result)
    _write_entry(stem, dict(expected, code_units=code["units"], libraries=code["libraries"], seconds=seconds,
                            result=structure), encoder.arrays)
    _log_compute(name, False, seconds)
    return result, {"cached": False, "seconds": seconds, "path": str(manifest_path)}
