"""The chapters' results cache: ``memoize(name, params, compute)`` computes once and stores the result as data.

An entry is two files in :func:`cache_dir` (``greenelm.data.cache_dir() / "results"``), named after
``name`` and the first 16 hex digits of its key: SHA-256 of the name, the params and the code the
computation runs (:func:`greenelm_book.store.codekey.code_fingerprint`: ``compute`` and every function,
class and constant of ``greenelm``/``greenelm_book`` it reaches, as syntax trees without comments,
docstrings or formatting, plus the versions of the other libraries it calls). Editing a docstring
or moving a helper keeps every entry; changing any code the computation runs recomputes it.

* ``{name}-{key}.npz`` — the payload: every numpy array of the result (``allow_pickle=False``);
* ``{name}-{key}.json`` — the manifest: format, name, full key, params, code digest (with the
  functions, classes and constants it covers, each with its own digest, and the library versions,
  for the reader and to say what changed), compute seconds, the SHA-256 of the payload file, the
  result's structure (arrays referred to by their name in the payload), when it was computed
  (``computed_at``, UTC) and on what host (:func:`greenelm_book.bench.host_info`), and the SHA-256 of the
  manifest itself. ``info`` carries ``computed_at`` and ``host`` back (None for an entry written before
  manifests recorded them), for :meth:`greenelm_book.store.results.Provenance.from_cache`.

Both are written atomically (temporary file, then ``os.replace``), the payload first and the
manifest last, so a manifest means a complete entry. Nothing is ever unpickled. On a read, an
entry that cannot be trusted (unparsable manifest, a checksum that does not match, a missing
payload, a manifest written for other params) or a legacy pickled result (``{name}-*.pkl``, never
opened) is reported with a :class:`CacheWarning` naming the file, and the result is recomputed.
Temporaries left by a killed write are removed on the next call (the rule, which never removes a
live writer's file, is in :mod:`greenelm._cachefiles`).

**The cache of record.** The repository commits entries of the same format in ``book/cache/``
(:func:`record_dir`; ``$GREENELM_RECORD_DIR`` points elsewhere), so that a fresh clone re-executes
a chapter from the results the book shows instead of recomputing them. A call looks in the local
cache, then in the record, then computes; an entry read from the record is copied into the local
cache. Only the runner's full-profile execution into ``book/`` writes the record (it sets
``$GREENELM_RECORD_WRITE=1`` for the chapter's kernel): every result it reads or computes is put
in the record too (atomically, payload then manifest) when the entry (payload and manifest) takes
at most :data:`RECORD_ENTRY_MAX_BYTES` (2 MB) and the whole record stays within
:data:`RECORD_TOTAL_MAX_BYTES` (20 MB); larger intermediates (features, kernels) stay in the
local cache. ``book/cache/index.json`` lists the entries each chapter used at its last execution
(:func:`update_record_index`): an entry no chapter uses any more (its key changed) is removed
after that chapter's execution, and :func:`prune_record` removes those no chapter of the toc lists.

When a call computes although entries of the same ``name`` exist (locally or in the record) under
other keys, it says which part of the key changed, against the nearest of them
(:func:`explain_change`): the params (which values), the code (which functions, classes or
constants changed, were added or removed) or the library versions (old -> new). Under the runner
the sentence goes to the compute log, which the runner prints to its stderr (not into the page);
elsewhere it is logged (``logging``, logger ``greenelm_book.store.results_cache``, level WARNING).
``$GREENELM_RECOMPUTE_SINCE`` (a Unix time; the runner's ``--recompute``) makes every entry
written before that time, local or recorded, count as absent, so everything is recomputed once.

When ``$GREENELM_COMPUTE_LOG`` names a file (the runner sets it for each chapter it executes),
every call appends one JSON line to it: ``{"name", "cached", "seconds", "entry", "source",
"recorded"}`` (the compute seconds of the stored result, also when it was read from the cache;
where it came from: ``local``, ``record`` or ``computed``; whether the record holds it), with
``changed`` (the sentence above), ``warnings`` and ``record_note`` when there are any (and, before
a recompute whose key changed, an ``{"event": "computing", "changed"}`` line the runner prints at
once), so a chapter's provenance records how long its results took to compute
(:func:`greenelm_book.running.execute.compute_time`).

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

import datetime as _dt
import hashlib
import io
import json
import logging
import math
import os
import re
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

from .._former_names import former_label
from .codekey import code_fingerprint

__all__ = ["CacheWarning", "NotStored", "RECORD_ENTRY_MAX_BYTES", "STORED_ONLY_ENV",
           "refuse_when_stored_only", "RECORD_TOTAL_MAX_BYTES", "cache_dir",
           "explain_change", "memoize", "prune_record", "record_dir", "record_entries",
           "update_record_index"]

#: environment variable naming the file each :func:`memoize` call appends its compute time to
COMPUTE_LOG_ENV = "GREENELM_COMPUTE_LOG"
#: environment variable naming the cache of record's folder (default :data:`RECORD`)
RECORD_ENV = "GREENELM_RECORD_DIR"
#: environment variable: ``1`` makes :func:`memoize` write what it reads or computes into the record
RECORD_WRITE_ENV = "GREENELM_RECORD_WRITE"
#: environment variable: a Unix time; entries written before it count as absent (``--recompute``)
RECOMPUTE_ENV = "GREENELM_RECOMPUTE_SINCE"
#: environment variable: ``1`` makes :func:`memoize` refuse to compute (:class:`NotStored`) what no
#: store holds: a re-execution from stored results only (``runner run --stored-only``)
STORED_ONLY_ENV = "GREENELM_STORED_ONLY"
#: the committed cache of record
RECORD = Path(__file__).resolve().parents[2] / "book" / "cache"
#: the largest entry (payload and manifest, bytes) the record takes; larger ones stay local
RECORD_ENTRY_MAX_BYTES = 2_000_000
#: the record's budget: all its entries (payloads and manifests) together, in bytes
RECORD_TOTAL_MAX_BYTES = 20_000_000
INDEX = "index.json"
INDEX_FORMAT = "greenelm-record-index/1"
_ENTRY_FILE = re.compile(r"^(?P<entry>[A-Za-z0-9_.-]+-[0-9a-f]{16})\.(?:json|npz)$")
_log = logging.getLogger(__name__)

FORMAT = "greenelm-results/2"
_MASKED_DTYPES = {"Int8", "Int16", "Int32", "Int64", "UInt8", "UInt16", "UInt32", "UInt64",
                  "Float32", "Float64", "boolean"}


class NotStored(RuntimeError):
    """A computation that neither the local cache nor the cache of record holds, asked for while
    :data:`STORED_ONLY_ENV` forbids computing."""


def refuse_when_stored_only(missing: str, doing: str = "computing it") -> None:
    """Raise :class:`NotStored` (``missing``, then why) when :data:`STORED_ONLY_ENV` forbids computing:
    the one check of every store a chapter computes through (this cache, the backbones' feature cache)."""
    if os.environ.get(STORED_ONLY_ENV) == "1":
        raise NotStored(f"{missing}; {STORED_ONLY_ENV}=1 (the runner's --stored-only) forbids {doing}: run without it")


class CacheWarning(UserWarning):
    """A cache entry was ignored (the message names the file and why) and its result recomputed."""


def cache_dir() -> Path:
    """Where computed results are kept: ``greenelm.data.cache_dir() / "results"``."""
    return data_cache_dir() / "results"


def record_dir() -> Path:
    """The cache of record: ``$GREENELM_RECORD_DIR``, else the repository's ``book/cache``."""
    env = os.environ.get(RECORD_ENV)
    return Path(env) if env else RECORD


def _recompute_since() -> float | None:
    text = os.environ.get(RECOMPUTE_ENV)
    if not text:
        return None
    try:
        since = float(text)
    except ValueError:
        raise ValueError(f"${RECOMPUTE_ENV}={text!r}: expected a Unix time in seconds") from None
    if not math.isfinite(since):
        raise ValueError(f"${RECOMPUTE_ENV}={text!r}: expected a Unix time in seconds")
    return since


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


def _write_entry(stem: Path, manifest: dict, arrays: dict[str, np.ndarray]) -> tuple[bytes, bytes]:
    """Write the entry at ``stem``; return its (manifest, payload) bytes."""
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)          # object arrays were refused: nothing is pickled
    payload = buffer.getvalue()
    manifest = dict(manifest, payload=stem.name + ".npz", payload_sha256=hashlib.sha256(payload).hexdigest())
    manifest["manifest_sha256"] = hashlib.sha256(_dumps(manifest).encode()).hexdigest()
    text = json.dumps(manifest, sort_keys=True, allow_nan=False, indent=1).encode()          # ASCII
    _copy_entry((text, payload), stem)
    return text, payload


def _copy_entry(files: tuple[bytes, bytes], stem: Path) -> None:
    """Write an entry's (manifest, payload) bytes at ``stem``: the payload first, the manifest last."""
    manifest, payload = files
    atomic_write(stem.with_name(stem.name + ".npz"), lambda handle: handle.write(payload))
    atomic_write(stem.with_name(stem.name + ".json"), lambda handle: handle.write(manifest))


def _checked_manifest(stem: Path, expected: dict) -> tuple[dict, bytes, bytes]:
    """(manifest, its bytes, the payload's bytes) of the entry at ``stem``, both checksums and the
    ``expected`` fields verified; raises _Untrusted."""
    manifest_path, payload_path = stem.with_name(stem.name + ".json"), stem.with_name(stem.name + ".npz")
    try:
        text = manifest_path.read_bytes()
        manifest = json.loads(text.decode("utf-8"))
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
    return manifest, text, payload


def _read_entry(stem: Path, expected: dict):
    """``(result, seconds, (manifest bytes, payload bytes))`` of the entry at ``stem``; raises
    _Untrusted when it cannot be trusted."""
    manifest, text, payload = _checked_manifest(stem, expected)
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
        raise _Untrusted(f"the entry {stem.with_name(stem.name + '.json')} cannot be decoded "
                         f"({type(err).__name__}: {err})") from err
    return result, seconds, (text, payload)


_READS = [0]          # results this process has read from the cache (local or record): cache_reads()


def cache_reads() -> int:
    """How many results this process has read from the cache (local or of record) so far: a value
    recorded after one may have been measured before this execution
    (:class:`greenelm_book.store.results.ChapterResults` then does not stamp it with today's date)."""
    return _READS[0]


def _measured_fields(manifest_bytes: bytes) -> dict:
    """``{"computed_at", "host"}`` of an entry's manifest (None where an entry written before manifests
    carried them lacks one)."""
    manifest = json.loads(manifest_bytes.decode("utf-8"))
    return {"computed_at": manifest.get("computed_at"), "host": manifest.get("host")}


def _log_compute(name: str, cached: bool, seconds: float, **fields) -> None:
    """Append ``{"name", "cached", "seconds", **fields}`` to ``$GREENELM_COMPUTE_LOG`` when it is set."""
    log = os.environ.get(COMPUTE_LOG_ENV)
    if log:
        with open(log, "a", encoding="utf-8") as fh:
            fh.write(json.dumps({"name": name, "cached": cached, "seconds": seconds, **fields}) + "\n")


def _log_event(event: str, **fields) -> None:
    """Append ``{"event": event, **fields}`` to the compute log: not a call (``compute_time`` skips
    it); the runner prints it while the chapter runs."""
    log = os.environ.get(COMPUTE_LOG_ENV)
    if log:
        with open(log, "a", encoding="utf-8") as fh:
            fh.write(json.dumps({"event": event, **fields}) + "\n")


# ------------------------------------------------------------------ the cache of record

def _record(stem: Path, files: tuple[bytes, bytes], expected: dict, keep: bool) -> tuple[bool, str]:
    """Put the entry ``files`` into the record at ``stem`` unless it is over the caps or (``keep``)
    a sound one is there; ``(whether the record holds it now, what happened)``."""
    if keep:
        try:
            _checked_manifest(stem, expected)
            return True, "kept"
        except _Untrusted:
            pass
    size = len(files[0]) + len(files[1])
    if size > RECORD_ENTRY_MAX_BYTES:
        return False, (f"not recorded: the entry takes {size:,} bytes, over the record's cap of "
                       f"{RECORD_ENTRY_MAX_BYTES:,} bytes per entry (it stays in the local cache)")
    mine = {stem.name + ".json", stem.name + ".npz"}
    total = sum(path.stat().st_size for path in _entry_files(stem.parent) if path.name not in mine)
    if total + size > RECORD_TOTAL_MAX_BYTES:
        return False, (f"not recorded: the record would take {total + size:,} bytes, over its budget of "
                       f"{RECORD_TOTAL_MAX_BYTES:,} bytes (it stays in the local cache)")
    _copy_entry(files, stem)
    return True, "written"


def _entry_files(folder: Path) -> list[Path]:
    """The entries' files (``<name>-<key>.json``/``.npz``) in ``folder``."""
    try:
        return sorted(p for p in folder.iterdir() if _ENTRY_FILE.match(p.name) and p.is_file())
    except (FileNotFoundError, NotADirectoryError):
        return []


def record_entries(folder: str | Path | None = None) -> list[str]:
    """The entries (``<name>-<key>``, key's first 16 hex digits) that have a manifest in the record."""
    folder = Path(folder) if folder is not None else record_dir()
    return sorted(p.stem for p in _entry_files(folder) if p.suffix == ".json")


def _read_index(folder: Path) -> dict[str, list[str]]:
    path = folder / INDEX
    if not path.is_file():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        raise ValueError(f"{path}: cannot be read ({err})") from err
    chapters = data.get("chapters") if type(data) is dict and data.get("format") == INDEX_FORMAT else None
    if type(chapters) is not dict or not all(type(v) is list and all(type(e) is str for e in v)
                                             for v in chapters.values()):
        raise ValueError(f"{path}: not a record index ({INDEX_FORMAT}: chapters -> lists of entries)")
    return chapters


def _write_index(folder: Path, chapters: dict[str, list[str]]) -> None:
    text = json.dumps({"format": INDEX_FORMAT, "chapters": {k: sorted(set(v)) for k, v in sorted(chapters.items())}},
                      indent=1) + "\n"
    atomic_write(folder / INDEX, lambda handle: handle.write(text.encode()))


def _remove_entries(folder: Path, entries) -> list[str]:
    removed = []
    for entry in sorted(entries):
        check_entry_name(entry, "entry")
        found = False
        for suffix in (".json", ".npz"):          # the manifest first: a payload alone is never used
            path = entry_path(folder, entry + suffix)
            if path.is_file():
                path.unlink()
                found = True
        if found:
            removed.append(entry)
    return removed


def update_record_index(chapter: str, used, folder: str | Path | None = None) -> list[str]:
    """Record that ``chapter`` uses the record entries ``used`` (replacing what its last execution
    used) and remove the entries it used before that no chapter uses now; return those removed."""
    folder = Path(folder) if folder is not None else record_dir()
    check_entry_name(chapter, "chapter")
    chapters = _read_index(folder)
    before = set(chapters.get(chapter, []))
    chapters[chapter] = sorted(set(used))
    still = set().union(*chapters.values())
    _write_index(folder, chapters)
    return _remove_entries(folder, before - still)


def prune_record(chapters, folder: str | Path | None = None, dry_run: bool = False) -> list[str]:
    """Remove the record's entries that none of ``chapters`` (the toc's) lists in the index, and the
    index's lines of other chapters; return the entries removed (or, ``dry_run``, to remove)."""
    folder = Path(folder) if folder is not None else record_dir()
    index = _read_index(folder)
    kept = {name: entries for name, entries in index.items() if name in set(chapters)}
    used = set().union(*kept.values()) if kept else set()
    present = {_ENTRY_FILE.match(p.name)["entry"] for p in _entry_files(folder)}
    obsolete = sorted(present - used)
    if dry_run:
        return obsolete
    remove_stale_temporaries(folder)
    if kept != index:
        _write_index(folder, kept)
    return _remove_entries(folder, obsolete)


# ------------------------------------------------------------------ saying what changed

def _short(value) -> str:
    text = json.dumps(value, sort_keys=True)
    return text if len(text) <= 60 else text[:57] + "..."


def _param_changes(old, new, where: str = "") -> list[str]:
    """The leaves where two params differ, as ``where: old -> new`` (added, removed)."""
    if type(old) is dict and type(new) is dict:
        out = []
        for k in sorted(set(old) | set(new)):
            at = f"{where}.{k}" if where else k
            if k not in old:
                out.append(f"{at} added ({_short(new[k])})")
            elif k not in new:
                out.append(f"{at} removed (was {_short(old[k])})")
            else:
                out.extend(_param_changes(old[k], new[k], at))
        return out
    if old == new and type(old) is type(new):
        return []
    return [f"{where or 'params'} {_short(old)} -> {_short(new)}"]


def _libraries(listed) -> dict[str, str]:
    out = {}
    for item in listed or []:
        dist, _, version = str(item).rpartition(" ")
        out[dist or version] = version if dist else ""
    return out


def _code_changes(old: dict, code: dict) -> list[str]:
    """What differs between an old manifest's code and ``code`` (a code fingerprint)."""
    parts = []
    old_items = old.get("code_items")
    if type(old_items) is dict:                      # labels compared under the modules' former names
        old_items = {former_label(label): digest for label, digest in old_items.items()}
        new_items = {former_label(label): digest for label, digest in code["items"].items()}
        old_digests, new_digests = set(old_items.values()), set(new_items.values())
        changed = sorted(k for k in set(old_items) & set(new_items) if old_items[k] != new_items[k])
        added = sorted(k for k in set(new_items) - set(old_items) if new_items[k] not in old_digests)
        removed = sorted(k for k in set(old_items) - set(new_items) if old_items[k] not in new_digests)
        words = [f"{label} {', '.join(names)}" for label, names in
                 (("changed", changed), ("added", added), ("removed", removed)) if names]
        if words:
            parts.append("code: " + "; ".join(words))
    else:
        old_units = set(old.get("code_units") or [])
        added, removed = sorted(set(code["units"]) - old_units), sorted(old_units - set(code["units"]))
        words = [f"{label} {', '.join(names)}" for label, names in (("added", added), ("removed", removed)) if names]
        parts.append("code (the older entry has no per-unit digests" + (f"; {'; '.join(words)})" if words else ")"))
    before, after = _libraries(old.get("libraries")), _libraries(code["libraries"])
    libs = [f"{d} {before.get(d) or '(none)'} -> {after.get(d) or '(none)'}"
            for d in sorted(set(before) | set(after)) if before.get(d) != after.get(d)]
    if libs:
        parts.append("libraries: " + ", ".join(libs))
    if not parts:
        parts.append("code (its digest differs; no unit or library tells why)")
    return parts


def _siblings(name: str, folders, exclude: str) -> list[tuple[Path, dict]]:
    """Sound manifests of ``name`` under other keys in ``folders``."""
    pattern = re.compile(re.escape(name) + r"-[0-9a-f]{16}")
    out = []
    for folder in folders:
        try:
            paths = sorted(Path(folder).glob(f"{name}-*.json"))
        except OSError:
            continue
        for path in paths:
            if not pattern.fullmatch(path.stem) or path.stem == exclude:
                continue
            try:
                manifest = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, UnicodeDecodeError, json.JSONDecodeError):
                continue
            if type(manifest) is not dict or manifest.get("name") != name or manifest.get("format") != FORMAT:
                continue
            body = {k: v for k, v in manifest.items() if k != "manifest_sha256"}
            if manifest.get("manifest_sha256") == hashlib.sha256(_dumps(body).encode()).hexdigest():
                out.append((path, manifest))
    return out


def explain_change(name: str, params: dict, code: dict, folders) -> str | None:
    """Why ``name`` with ``params`` (canonical) and ``code`` (a code fingerprint) has no stored
    entry although entries of that name exist in ``folders`` under other keys: which part of the
    key differs from the nearest of them (fewest differing params, then the same code, then the
    newest). ``None`` when there is no such entry."""
    key = _key(name, params, code["digest"])
    found = _siblings(name, folders, f"{name}-{key[:16]}")
    if not found:
        return None

    def distance(item):
        path, manifest = item
        return (len(_param_changes(manifest.get("params"), params)), manifest.get("code") != code["digest"],
                -path.stat().st_mtime)

    path, nearest = min(found, key=distance)
    parts = []
    params_changed = _param_changes(nearest.get("params"), params)
    if params_changed:
        parts.append("params: " + ", ".join(params_changed))
    if nearest.get("code") != code["digest"]:
        parts.extend(_code_changes(nearest, code))
    return f"{name}: no stored entry for this key; against {path}, " + "; ".join(parts)


# ------------------------------------------------------------------ the call

def memoize(name: str, params: dict, compute, refresh: bool = False):
    """``compute()`` once per (name, params, code it runs); later calls load the stored result.

    ``name`` labels the entry (letters, digits, ``-``, ``_``, ``.``); ``params`` is a dict of JSON
    values (None, bool, int, float, str and lists/tuples/dicts of them; numpy scalars are taken as
    Python numbers) describing the computation; the code ``compute`` runs is found by walking it
    (see the module docstring), so changing that code recomputes. The local cache is asked first,
    then the cache of record (:func:`record_dir`), then ``compute`` runs. ``refresh=True``
    recomputes and overwrites. The result must be made of the types the module docstring lists
    (else TypeError naming the offending part, before anything is written). Returns ``(result,
    info)`` with ``info = {"cached": bool, "seconds": compute time of the stored result, "path":
    the manifest, "source": "local" | "record" | "computed"}``; an entry that cannot be trusted is
    reported with a :class:`CacheWarning` naming its file, and not used.
    """
    check_entry_name(name, "name")
    if type(params) is not dict:
        raise TypeError(f"params must be a dict, got {_type_name(params)}")
    if not callable(compute):
        raise TypeError(f"compute must be a callable taking no arguments, got {_type_name(compute)}")
    if type(refresh) is not bool:
        raise TypeError(f"refresh must be True or False, got {refresh!r}")
    canonical = _canonical_params(params)
    since = _recompute_since()
    code = code_fingerprint(compute)
    key = _key(name, canonical, code["digest"])
    entry = f"{name}-{key[:16]}"
    folder, record = cache_dir(), record_dir()
    stem = entry_path(folder, entry + ".json").with_suffix("")
    record_stem = entry_path(record, entry + ".json").with_suffix("")
    writing = os.environ.get(RECORD_WRITE_ENV) == "1"
    remove_stale_temporaries(folder)
    if writing:
        remove_stale_temporaries(record)
    legacy = sorted(folder.glob(f"{name}-*.pkl"))
    if legacy:
        warnings.warn(f"results cache: ignoring {len(legacy)} legacy pickled result(s), never unpickled: "
                      f"{', '.join(map(str, legacy))} (delete them)", CacheWarning, stacklevel=2)
    expected = {"format": FORMAT, "name": name, "key": key, "params": canonical, "code": code["digest"]}
    problems = []
    for source, where in (("local", stem), ("record", record_stem)):
        manifest_path = where.with_name(where.name + ".json")
        if refresh or not manifest_path.exists():
            continue
        if since is not None and manifest_path.stat().st_mtime < since:
            continue                                  # --recompute: written before this run
        try:
            result, seconds, files = _read_entry(where, expected)
        except _Untrusted as why:
            what = "results cache" if source == "local" else "cache of record"
            problems.append(f"{what}: ignoring {manifest_path}: {why}; recomputing")
            warnings.warn(problems[-1], CacheWarning, stacklevel=2)
            continue
        if source == "record":
            try:
                _copy_entry(files, stem)
            except OSError:
                pass                                  # a read-only local cache: the record still answers
        keep = since is None or (record_stem.with_name(entry + ".json").is_file() and
                                 record_stem.with_name(entry + ".json").stat().st_mtime >= since)
        recorded, note = (True, "kept") if source == "record" else (
            _record(record_stem, files, expected, keep) if writing else (False, None))
        _log_compute(name, True, seconds, entry=entry, source=source, recorded=recorded,
                     **({"record_note": note} if writing else {}), **({"warnings": problems} if problems else {}))
        _READS[0] += 1
        return result, {"cached": True, "seconds": seconds, "path": str(manifest_path), "source": source,
                        **_measured_fields(files[0])}
    changed = explain_change(name, canonical, code, [folder, record])
    if changed and os.environ.get(COMPUTE_LOG_ENV):
        _log_event("computing", name=name, entry=entry, changed=changed)       # the runner shows it now
    elif changed:
        _log.warning("recomputing %s", changed)
    refuse_when_stored_only(f"{name} ({entry}) is not stored{': ' + changed if changed else ''}")
    start = time.perf_counter()
    result = compute()
    seconds = time.perf_counter() - start
    from ..bench import host_info

    measured = {"computed_at": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"), "host": host_info()}
    encoder = _Encoder()
    structure = encoder.node(result)
    files = _write_entry(stem, dict(expected, code_units=code["units"], code_items=code["items"],
                                    libraries=code["libraries"], seconds=seconds, result=structure, **measured),
                         encoder.arrays)
    recorded, note = _record(record_stem, files, expected, keep=False) if writing else (False, None)
    _log_compute(name, False, seconds, entry=entry, source="computed", recorded=recorded,
                 **({"record_note": note} if writing else {}), **({"changed": changed} if changed else {}),
                 **({"warnings": problems} if problems else {}))
    return result, {"cached": False, "seconds": seconds, "path": str(stem.with_name(stem.name + ".json")),
                    "source": "computed", **measured}
