"""The caches cannot be turned against the user: the results cache stores data (never pickles) and
round-trips every supported type exactly; damaged, mismatching or planted entries are reported and
recomputed, never loaded; a killed writer's temporaries are removed on the next run (a live one's
never); no cache key reaches outside its folder. (The key's code part: tests/test_codekey.py.)"""

from __future__ import annotations

import collections
import importlib
import json
import os
import pathlib
import pickle
import re
import subprocess
import sys
import textwrap
import time

import numpy as np
import pandas as pd
import pytest

from greenelm import _cachefiles
from greenelm._cachefiles import (
    check_entry_name,
    entry_path,
    remove_stale_temporaries,
    temp_prefix,
)
from greenelm_book.store import results_cache
from greenelm_book.store.results_cache import CacheWarning, memoize

ROOT = pathlib.Path(__file__).resolve().parent.parent


@pytest.fixture(autouse=True)
def _cache(tmp_path, monkeypatch):
    monkeypatch.setenv("GREENELM_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv(results_cache.RECORD_ENV, str(tmp_path / "record"))       # not the committed one
    monkeypatch.delenv(results_cache.RECORD_WRITE_ENV, raising=False)


def temporaries(folder) -> list[pathlib.Path]:
    return sorted(pathlib.Path(folder).glob(".*.tmp"))


def assert_identical(a, b):
    """Same types all the way down and the same values (NaN equal to NaN, -0.0 distinct from 0.0)."""
    assert type(a) is type(b), (type(a), type(b))
    if isinstance(a, pd.DataFrame):
        pd.testing.assert_frame_equal(a, b, check_exact=True)
    elif isinstance(a, np.ndarray):
        assert a.dtype == b.dtype and a.shape == b.shape
        assert np.array_equal(a, b, equal_nan=a.dtype.kind in "fc")
    elif isinstance(a, np.generic):
        assert a.dtype == b.dtype and (a == b or (a != a and b != b))
    elif isinstance(a, float):
        assert repr(a) == repr(b)
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b)
        for x, y in zip(a, b):
            assert_identical(x, y)
    elif isinstance(a, dict):
        assert list(a) == list(b) and [type(k) for k in a] == [type(k) for k in b]
        for k in a:
            assert_identical(a[k], b[k])
    else:
        assert a == b


def stored_and_loaded(name, value, params=None):
    """Store ``value`` under ``name``, then load it back from disk (compute must not run again)."""
    calls = []

    def compute():                 # one callable for both calls: the key follows its code
        calls.append(1)
        return value

    first, info = memoize(name, params or {}, compute)
    assert not info["cached"] and first is value and calls == [1]
    loaded, info = memoize(name, params or {}, compute)
    assert info["cached"] and calls == [1], "recomputed instead of loaded"
    return loaded


# ------------------------------------------------------------------ round trips

TABLE = pd.DataFrame({
    "n_hidden": np.array([10, 20, 40], dtype=np.int64),
    "accuracy": [91.5, np.nan, -0.0],
    "ok": [True, False, True],
    "solver": ["cholesky", "lu (cholesky failed)", "cholesky"],
    "small": np.array([1, -2, 3], dtype=np.int8),
    "single": np.array([0.5, 1e-30, np.inf], dtype=np.float32),
    "when": pd.to_datetime(["2026-01-01", "2026-06-30", "2027-01-01"]),
})

ROUND_TRIPS = {
    "none": None,
    "bool": True,
    "int": -7,
    "big-int": 2 ** 80 + 1,
    "float": 0.1,
    "float-specials": [float("nan"), float("inf"), -0.0, 5e-324],
    "str": "λ = 10⁻³ \"quoted\" \n line",
    "empty-str": "",
    "array-float64": np.linspace(0, 1, 7).reshape(7, 1),
    "array-float32-fortran": np.asfortranarray(np.arange(12, dtype=np.float32).reshape(3, 4)),
    "array-bool": np.array([[True, False], [False, True]]),
    "array-int8": np.array([-128, 0, 127], dtype=np.int8),
    "array-uint64": np.array([2 ** 64 - 1], dtype=np.uint64),
    "array-complex": np.array([1 + 2j, np.nan], dtype=np.complex128),
    "array-unicode": np.array(["a", "ßü", ""]),
    "array-bytes": np.array([b"x", b"yz"]),
    "array-datetime": np.array(["2026-11-23T13:00"], dtype="datetime64[m]"),
    "array-structured": np.array([(1, 2.5)], dtype=[("a", "<i4"), ("b", "<f8")]),
    "array-0d": np.array(3.0),
    "array-empty": np.zeros((0, 5)),
    "numpy-scalars": [np.float32(1.5), np.float64(-0.0), np.int64(-3), np.uint8(255), np.bool_(True),
                      np.str_("s"), np.complex64(1j), np.datetime64("2026-01-01")],
    "list-tuple": [1, (2, "three", None), [], ()],
    "nested-dict": {"table": TABLE, "correct": np.array([[True, False]]), "meta": {"seed": 0, "alpha": 1e-3}},
    "dict-keys": {("cholesky", 500, 0): np.eye(2), 3: "int key", 2.5: "float key", None: "none",
                  True: "bool key", np.int64(9): "numpy key", ("nested", (1, 2)): []},
    "failed-message": {"failed": "Cholesky failed: matrix not positive definite"},
    "dataframe": TABLE,
    "dataframe-string-missing": pd.DataFrame({"s": ["a", None, "c"],
                                              "o": pd.Series(["x", None, float("nan")], dtype=object),
                                              "S": pd.array(["q", None, "r"], dtype="string")}),
    "dataframe-nullable": pd.DataFrame({"I": pd.array([1, None, 3], dtype="Int64"),
                                        "U": pd.array([None, 2, 3], dtype="UInt16"),
                                        "F": pd.array([0.5, None, 1.0], dtype="Float32"),
                                        "B": pd.array([True, None, False], dtype="boolean")}),
    "dataframe-index-and-labels": TABLE.set_index("solver").rename_axis(columns="field"),
    "dataframe-odd-index": pd.DataFrame({1: [1, 2], 2.5: ["a", "b"]}, index=pd.Index([10, 5], name="id")),
    "dataframe-datetime-index": pd.DataFrame({"x": [1, 2]}, index=pd.DatetimeIndex(["2026-01-02", "2026-01-01"],
                                                                                   name="day")),
    "dataframe-step-index": pd.DataFrame({"x": [1.0, 2.0]}, index=pd.RangeIndex(4, 0, -2)),
    "dataframe-duplicate-columns": pd.DataFrame([[1, 2]], columns=["a", "a"]),
    "dataframe-empty": pd.DataFrame(),
    "dataframe-no-columns": pd.DataFrame(index=range(3)),
    "dataframe-no-rows": TABLE.iloc[:0],
}


@pytest.mark.parametrize("case", list(ROUND_TRIPS))
def test_round_trip_is_exact(case):
    value = ROUND_TRIPS[case]
    assert_identical(value, stored_and_loaded(case, value))


def test_entry_is_data_a_manifest_and_an_npz():
    result, info = memoize("layout", {"alpha": np.float64(1e-3), "widths": (10, 20)},
                           lambda: {"a": np.arange(3), "note": "x"})
    manifest_path = pathlib.Path(info["path"])
    assert sorted(p.name for p in manifest_path.parent.iterdir()) == [
        manifest_path.name, manifest_path.with_suffix(".npz").name]
    manifest = json.loads(manifest_path.read_text())
    assert manifest["params"] == {"alpha": 0.001, "widths": [10, 20]}
    assert "modules" not in manifest and len(manifest["code"]) == 64
    assert manifest["code_units"] == ["test_cache.test_entry_is_data_a_manifest_and_an_npz.<locals>.<lambda>"] and manifest["libraries"] == ["numpy " + np.__version__]
    assert manifest["result"]["type"] == "dict" and manifest["payload"] == manifest_path.with_suffix(".npz").name
    with np.load(manifest_path.with_suffix(".npz"), allow_pickle=False) as payload:
        assert payload.files == ["a0"]


def test_params_and_refresh_key_the_entry():
    calls = []

    def compute():
        calls.append(1)
        return len(calls)

    assert memoize("keyed", {"a": 1}, compute)[0] == 1
    assert memoize("keyed", {"a": 1}, compute)[0] == 1
    assert memoize("keyed", {"a": 2}, compute)[0] == 2
    assert memoize("keyed", {"a": 1.0}, compute)[0] == 3          # 1.0 is not the parameter 1
    assert memoize("other-name", {"a": 1}, compute)[0] == 4
    refreshed, info = memoize("keyed", {"a": 1}, compute, refresh=True)
    assert refreshed == 5 and not info["cached"]
    assert memoize("keyed", {"a": 1}, compute)[0] == 5


# ------------------------------------------------------------------ damaged entries are recomputed

def _reseal(manifest: dict) -> str:
    """A manifest edited by someone who recomputed its own checksum (only the content checks remain)."""
    body = {k: v for k, v in manifest.items() if k != "manifest_sha256"}
    body["manifest_sha256"] = results_cache.hashlib.sha256(results_cache._dumps(body).encode()).hexdigest()
    return json.dumps(body)


def _flip_payload_byte(manifest, payload):
    data = bytearray(payload.read_bytes())
    data[len(data) // 2] ^= 0xFF
    payload.write_bytes(bytes(data))


DAMAGE = {
    "payload byte flipped": (_flip_payload_byte, "payload .* fails its checksum"),
    "payload truncated": (lambda m, p: p.write_bytes(p.read_bytes()[:100]), "fails its checksum"),
    "payload missing": (lambda m, p: p.unlink(), "payload .* cannot be read"),
    "manifest not JSON": (lambda m, p: m.write_text("{not json"), "manifest .* cannot be read"),
    "manifest not an object": (lambda m, p: m.write_text("[1, 2]"), "not a JSON object"),
    "manifest edited": (lambda m, p: m.write_text(m.read_text().replace('"seconds": ', '"seconds": 1')),
                        "manifest .* fails its checksum"),
    "params differ": (lambda m, p: m.write_text(_reseal(dict(json.loads(m.read_text()), params={"a": 2}))),
                      "written for params \\{'a': 2\\}"),
    "structure differs": (lambda m, p: m.write_text(_reseal(dict(json.loads(m.read_text()),
                                                                 result={"type": "ndarray", "array": "a9"}))),
                          "cannot be decoded"),
}


@pytest.mark.parametrize("damage", list(DAMAGE))
def test_damaged_entry_is_reported_with_its_path_and_recomputed(damage):
    harm, reason = DAMAGE[damage]
    value = {"x": np.arange(5.0), "s": "text"}
    calls = []

    def compute():
        calls.append(1)
        return value

    _, info = memoize("damaged", {"a": 1}, compute)
    manifest = pathlib.Path(info["path"])
    harm(manifest, manifest.with_suffix(".npz"))
    calls.clear()
    with pytest.warns(CacheWarning, match=reason) as record:
        again, info = memoize("damaged", {"a": 1}, compute)
    assert str(manifest) in str(record[0].message) and "recomputing" in str(record[0].message)
    assert calls == [1] and not info["cached"]
    assert_identical(again, value)
    assert memoize("damaged", {"a": 1}, compute)[1]["cached"] and calls == [1]     # rewritten, sound


class Armed:
    """Unpickling this creates ``marker``: the proof that a pickle would run code."""

    def __init__(self, marker):
        self.marker = str(marker)

    def __reduce__(self):
        return (open, (self.marker, "w"))


def _armed_pickle(marker) -> bytes:
    blob = pickle.dumps({"result": Armed(marker), "seconds": 0.0})
    proof = pathlib.Path(str(marker) + ".proof")
    pickle.loads(pickle.dumps(Armed(proof))).close()      # the payload is live: this one did run
    assert proof.exists()
    return blob


def test_planted_legacy_pickle_never_executes(tmp_path):
    marker = tmp_path / "pwned"
    calls = []

    def count():
        calls.append(1)
        return len(calls)

    _, info = memoize("planted", {"a": 1}, count)
    stem = pathlib.Path(info["path"]).with_suffix("")
    legacy = stem.with_suffix(".pkl")
    legacy.write_bytes(_armed_pickle(marker))
    pathlib.Path(info["path"]).unlink()                    # only the pickle is left for this key
    with pytest.warns(CacheWarning, match="never unpickled") as record:
        result, info = memoize("planted", {"a": 1}, count)
    assert str(legacy) in str(record[0].message)
    assert result == 2 and not info["cached"] and not marker.exists()
    with pytest.warns(CacheWarning, match="legacy"):
        assert memoize("planted", {"a": 1}, count) == (2, {**info, "cached": True, "source": "local"})
    assert not marker.exists()


def test_pickle_in_the_payload_slot_never_executes_even_with_a_matching_checksum(tmp_path):
    marker = tmp_path / "pwned"
    _, info = memoize("slot", {}, lambda: np.arange(3))
    manifest_path = pathlib.Path(info["path"])
    blob = _armed_pickle(marker)
    manifest_path.with_suffix(".npz").write_bytes(blob)
    manifest = json.loads(manifest_path.read_text())
    manifest["payload_sha256"] = results_cache.hashlib.sha256(blob).hexdigest()
    manifest_path.write_text(_reseal(manifest))
    with pytest.warns(CacheWarning, match="cannot be decoded"):
        result, info = memoize("slot", {}, lambda: np.arange(3))
    assert not info["cached"] and not marker.exists()
    np.testing.assert_array_equal(result, np.arange(3))


# ------------------------------------------------------------------ interrupted writes

def _env():
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}


def _start(code: str, *args) -> subprocess.Popen:
    """Run ``code`` in a subprocess and wait until it prints "ready" (its temporary is on disk)."""
    proc = subprocess.Popen([sys.executable, "-c", textwrap.dedent(code), *map(str, args)], env=_env(),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = proc.stdout.readline()
    if line.strip() != "ready":
        proc.kill()
        raise AssertionError(f"writer did not start: {line!r} {proc.stderr.read()}")
    return proc


def _kill(proc: subprocess.Popen) -> None:
    proc.kill()
    proc.wait()                 # reaped: its pid no longer exists
    proc.stdout.close()
    proc.stderr.close()


STALLING_MEMOIZE = """
    import os, sys, time
    import numpy as np
    def stall(fd):                      # the payload's temporary is written, not yet renamed
        print("ready", flush=True)
        time.sleep(600)
    os.fsync = stall
    from greenelm_book.store.results_cache import memoize
    memoize("interrupted", {"n": 1000}, lambda: {"x": np.arange(1000.0)})
"""

STALLING_WRITE = """
    import pathlib, sys, time
    from greenelm._cachefiles import atomic_write
    def write(handle):
        handle.write(b"partial" * 1000)
        handle.flush()
        print("ready", flush=True)
        time.sleep(600)
    atomic_write(pathlib.Path(sys.argv[1]), write)
"""


def test_memoize_killed_mid_write_leaves_nothing_after_the_next_run():
    folder = results_cache.cache_dir()
    proc = _start(STALLING_MEMOIZE)
    try:
        left = temporaries(folder)
        assert len(left) == 1 and left[0].name.startswith(".interrupted-") and ".npz." in left[0].name
        assert remove_stale_temporaries(folder) == [] and left[0].exists()     # a live writer's: kept
    finally:
        _kill(proc)
    assert not list(folder.glob("*.json"))                                     # no entry was published
    def compute():
        return {"x": np.arange(1000.0)}

    result, info = memoize("interrupted", {"n": 1000}, compute)
    assert not info["cached"] and temporaries(folder) == []
    np.testing.assert_array_equal(result["x"], np.arange(1000.0))
    assert memoize("interrupted", {"n": 1000}, compute)[1]["cached"]


def test_killed_writer_of_the_embedding_cache_is_cleaned_by_the_next_extract():
    from greenelm_book.chapters.backbones import (
        cache_path,
        extract,
        feature_cache_dir,
        get_backbone,
    )
    bb = get_backbone("random_conv", channels=4)
    images = np.random.default_rng(0).integers(0, 256, (3, 32, 32, 3), dtype=np.uint8)
    path = cache_path(bb, images, "toy/train")
    proc = _start(STALLING_WRITE, path)
    try:
        assert len(temporaries(feature_cache_dir())) == 1 and not path.exists()
    finally:
        _kill(proc)
    info = extract(bb, images, "toy/train", progress=False, return_info=True)
    assert not info.cached and info.path == path and temporaries(feature_cache_dir()) == []
    np.testing.assert_array_equal(info.features, bb.transform(images, progress=False))


def test_stale_rule_spares_live_writers_foreign_machines_and_other_files(tmp_path):
    folder = tmp_path / "folder"
    folder.mkdir()
    mine_dead = folder / f".entry.json.{_cachefiles.writer_id()}-999999999-abcd1234.tmp"
    mine_alive = folder / f"{temp_prefix('entry.json')}efgh5678.tmp"          # this process: alive
    foreign = folder / ".entry.json.0123456789ab-12-ijkl9012.tmp"             # another machine's
    foreign_old = folder / ".entry.json.0123456789ab-13-mnop3456.tmp"
    folder_temp = folder / f".cifar-10-batches-py.{_cachefiles.writer_id()}-999999999-qrst7890.tmp"
    unrelated = [folder / "entry.json", folder / ".entry.json.tmp", folder / "notes.tmp"]
    for path in [mine_dead, mine_alive, foreign, foreign_old, *unrelated]:
        path.write_text("x")
    folder_temp.mkdir()
    (folder_temp / "data_batch_1").write_text("partial")
    day_ago = time.time() - _cachefiles.STALE_AFTER_SECONDS - 60
    os.utime(foreign_old, (day_ago, day_ago))
    removed = remove_stale_temporaries(folder)
    assert sorted(removed) == sorted([mine_dead, foreign_old, folder_temp])
    assert all(p.exists() for p in [mine_alive, foreign, *unrelated])
    assert remove_stale_temporaries(tmp_path / "missing") == []


# ------------------------------------------------------------------ names and paths

@pytest.mark.parametrize("name, error, words", [
    ("", ValueError, "must not be empty"),
    ("../evil", ValueError, "no path separators"),
    ("a/b", ValueError, "'/'"),
    ("a\\b", ValueError, "no path separators"),
    ("/etc/passwd", ValueError, "no path separators"),
    ("..", ValueError, "must not start with '.'"),
    (".", ValueError, "must not start with '.'"),
    (".hidden", ValueError, "must not start with '.'"),
    ("a..b", ValueError, "contain '..'"),
    ("a b", ValueError, "' '"),
    ("nul\x00byte", ValueError, "only letters, digits"),
    ("ünïcode", ValueError, "only letters, digits"),
    ("x" * 121, ValueError, "121 characters long"),
    (42, TypeError, "name must be a str"),
    (None, TypeError, "name must be a str"),
])
def test_unsafe_names_are_refused(name, error, words, tmp_path):
    with pytest.raises(error, match=re.escape(words)):
        memoize(name, {}, lambda: 1)
    assert not (tmp_path / "cache" / "results").exists() or not any((tmp_path / "cache" / "results").iterdir())
    assert not (tmp_path / "evil").exists()


def test_entry_path_stays_inside_the_folder(tmp_path):
    folder = tmp_path / "results"
    folder.mkdir()
    assert entry_path(folder, "ok.json") == folder / "ok.json"
    with pytest.raises(ValueError, match="would leave the cache folder"):
        entry_path(folder, "../outside.json")
    outside = tmp_path / "outside.json"
    (folder / "link.json").symlink_to(outside)                     # a planted symlink is refused too
    with pytest.raises(ValueError, match="would leave the cache folder"):
        entry_path(folder, "link.json")
    assert check_entry_name("scaling-curve_v2.1") == "scaling-curve_v2.1"


def test_a_planted_symlink_cannot_redirect_a_write(tmp_path):
    _, info = memoize("linked", {}, lambda: 1)
    manifest = pathlib.Path(info["path"])
    manifest.unlink()
    outside = tmp_path / "victim.json"
    manifest.symlink_to(outside)
    with pytest.raises(ValueError, match="would leave the cache folder"):
        memoize("linked", {}, lambda: 1)
    assert not outside.exists()


def test_backbone_cache_names_stay_inside_the_folder():
    from greenelm_book.chapters.backbones import cache_path, feature_cache_dir, get_backbone
    bb = get_backbone("random_conv", channels=4)
    images = np.zeros((2, 32, 32, 3), np.uint8)
    path = cache_path(bb, images, "../../etc/" + "x" * 200)
    assert path.parent == feature_cache_dir() and path.name.startswith("random_conv-------etc-xxx")
    bb.name = "../evil"
    with pytest.raises(ValueError, match="backbone name '../evil'.*no path separators"):
        cache_path(bb, images, "toy")


# ------------------------------------------------------------------ bad input

Point = collections.namedtuple("Point", "x y")


def _frame_with_object_ints():
    return pd.DataFrame({"c": pd.Series(["a", 1], dtype=object)})


def _frame_with_attrs():
    frame = pd.DataFrame({"a": [1]})
    frame.attrs["unit"] = "%"
    return frame


BAD = [
    # (arguments to memoize, error, words)
    (dict(params=[("a", 1)]), TypeError, "params must be a dict"),
    (dict(params={1: "a"}), TypeError, "parameter names must be str"),
    (dict(params={"x": object()}), TypeError, r"params\['x'\] has the unsupported type object"),
    (dict(params={"x": [1, {2}]}), TypeError, r"params\['x'\]\[1\] has the unsupported type set"),
    (dict(params={"alpha": float("nan")}), ValueError, r"params\['alpha'\] is nan: parameters must be finite"),
    (dict(params={"x": np.arange(3)}), TypeError, "numpy.ndarray"),
    pytest.param(dict(params={"x": np.longdouble(1) / 3}), TypeError,
                 r"params\['x'\] = .* is not exactly a Python float",
                 marks=pytest.mark.skipif(np.finfo(np.longdouble).eps == np.finfo(np.float64).eps,
                                          reason="long double is double here")),
    (dict(compute=42), TypeError, "compute must be a callable"),
    (dict(refresh="yes"), TypeError, "refresh must be True or False"),
    (dict(result=object()), TypeError, "cannot store result: unsupported type object"),
    (dict(result={"a": [1, {2}]}), TypeError, r"cannot store result\['a'\]\[1\]: unsupported type set"),
    (dict(result={"w": np.array([1, "x"], dtype=object)}), TypeError, r"result\['w'\].*dtype object"),
    (dict(result=Point(1, 2)), TypeError, "unsupported type .*Point"),
    (dict(result={frozenset(): 1}), TypeError, "unsupported type frozenset"),
    (dict(result=pd.Series([1, 2])), TypeError, "unsupported type pandas.*Series"),
    (dict(result={"t": pd.DataFrame({"c": pd.Categorical(["a"])})}), TypeError,
     r"result\['t'\]\['c'\]: unsupported column dtype category"),
    (dict(result={"t": _frame_with_object_ints()}), TypeError,
     r"result\['t'\]\['c'\]\[1\]: a value of type int in a column of dtype object"),
    (dict(result=pd.DataFrame({"a": [1]}, index=pd.MultiIndex.from_tuples([(1, 2)]))), TypeError, "MultiIndex"),
    (dict(result=pd.DataFrame({"a": [1, 2]}, index=pd.date_range("2026-01-01", periods=2, freq="D"))), TypeError,
     "unsupported index type pandas.*DatetimeIndex"),
    (dict(result=np.ma.masked_array([1, 2], mask=[0, 1])), TypeError, "unsupported type numpy.ma.*MaskedArray"),
    (dict(result=_frame_with_attrs()), TypeError, r"DataFrame.attrs \(\['unit'\]\) are not stored"),
    (dict(result=pd.DataFrame({"a": pd.to_datetime(["2026-01-01"]).tz_localize("UTC")})), TypeError,
     "unsupported column dtype datetime64"),
]


@pytest.mark.parametrize("case, error, words", BAD,
                         ids=[(c.values[2] if hasattr(c, "values") else c[2])[:40] for c in BAD])
def test_bad_input_is_refused_naming_the_problem_before_anything_is_written(case, error, words):
    arguments = {"name": "bad", "params": {}, "compute": lambda: case.get("result", 1)}
    arguments.update({k: v for k, v in case.items() if k != "result"})
    with pytest.raises(error, match=words):
        memoize(**arguments)
    folder = results_cache.cache_dir()
    assert not folder.exists() or not [p for p in folder.iterdir()]
