"""The committed cache of record (greenelm_book.store.results_cache, book/cache): a fresh clone re-executes
a chapter from it without computing; changing code recomputes exactly the results that run it, and
the recompute says which part of the key changed; a damaged record is not used; the caps keep large
payloads out; only the full profile into book/ writes it; the committed record is sound."""

from __future__ import annotations

import hashlib
import importlib
import json
import logging
import os
import subprocess
import sys
import textwrap
import time
from functools import partial
from pathlib import Path

import nbformat
import numpy as np
import pytest

from greenelm_book.store import results_cache
from greenelm_book.running import runner
from greenelm_book.store.results_cache import CacheWarning, memoize

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(autouse=True)
def _folders(tmp_path, monkeypatch):
    monkeypatch.setenv("GREENELM_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv(results_cache.RECORD_ENV, str(tmp_path / "record"))
    for var in (results_cache.RECORD_WRITE_ENV, results_cache.RECOMPUTE_ENV, results_cache.COMPUTE_LOG_ENV,
                results_cache.STORED_ONLY_ENV):
        monkeypatch.delenv(var, raising=False)


def fresh_machine(monkeypatch, tmp_path, label="fresh"):
    """An empty local cache, as on a fresh clone."""
    monkeypatch.setenv("GREENELM_CACHE", str(tmp_path / label))


def counted(value):
    calls = []

    def compute():
        calls.append(1)
        return value

    return compute, calls


def log_lines(path):
    return [json.loads(line) for line in Path(path).read_text().splitlines()]


# ------------------------------------------------------------------ the order of lookup

def test_the_record_answers_on_a_fresh_machine_without_computing(tmp_path, monkeypatch):
    value = {"accuracy": np.array([97.1, 97.3]), "solver": "cholesky"}
    compute, calls = counted(value)
    monkeypatch.setenv(results_cache.RECORD_WRITE_ENV, "1")
    _, info = memoize("rec", {"n": 3}, compute)
    assert info["source"] == "computed" and calls == [1]
    assert results_cache.record_entries() == [Path(info["path"]).stem]
    monkeypatch.delenv(results_cache.RECORD_WRITE_ENV)
    fresh_machine(monkeypatch, tmp_path)
    got, info = memoize("rec", {"n": 3}, compute)
    assert calls == [1] and info["cached"] and info["source"] == "record"
    np.testing.assert_array_equal(got["accuracy"], value["accuracy"]) and got["solver"] == "cholesky"
    _, info = memoize("rec", {"n": 3}, compute)                 # copied into the local cache
    assert info["source"] == "local" and Path(info["path"]).parent == tmp_path / "fresh" / "results"


def test_a_damaged_local_entry_falls_through_to_the_record(tmp_path, monkeypatch):
    compute, calls = counted([1, 2, 3])
    monkeypatch.setenv(results_cache.RECORD_WRITE_ENV, "1")
    _, info = memoize("both", {}, compute)
    payload = Path(info["path"]).with_suffix(".npz")
    payload.write_bytes(payload.read_bytes()[:-7])
    with pytest.warns(CacheWarning, match="results cache: ignoring") as warned:
        got, info = memoize("both", {}, compute)
    assert str(payload) in str(warned[0].message)
    assert got == [1, 2, 3] and calls == [1] and info["source"] == "record"


def test_a_record_whose_payload_fails_its_checksum_is_recomputed_with_a_warning_naming_it(tmp_path, monkeypatch):
    compute, calls = counted({"x": np.arange(6.0)})
    monkeypatch.setenv(results_cache.RECORD_WRITE_ENV, "1")
    _, info = memoize("flipped", {"a": 1}, compute)
    recorded = tmp_path / "record" / (Path(info["path"]).stem + ".npz")
    data = bytearray(recorded.read_bytes())
    data[len(data) // 2] ^= 0xFF
    recorded.write_bytes(bytes(data))
    fresh_machine(monkeypatch, tmp_path)
    log = tmp_path / "compute.jsonl"
    monkeypatch.setenv(results_cache.COMPUTE_LOG_ENV, str(log))
    with pytest.warns(CacheWarning, match="cache of record: ignoring .* fails its checksum") as warned:
        got, info = memoize("flipped", {"a": 1}, compute)
    assert str(recorded) in str(warned[0].message)
    assert calls == [1, 1] and info["source"] == "computed"
    np.testing.assert_array_equal(got["x"], np.arange(6.0))
    line = log_lines(log)[-1]
    assert line["source"] == "computed" and str(recorded) in line["warnings"][0]
    assert line["record_note"] == "written" and line["recorded"]            # the record was mended
    fresh_machine(monkeypatch, tmp_path, "third")
    assert memoize("flipped", {"a": 1}, compute)[1]["source"] == "record" and calls == [1, 1]


def test_a_record_is_not_written_outside_the_books_execution(tmp_path, monkeypatch):
    compute, calls = counted(1)
    memoize("unwritten", {}, compute)
    assert results_cache.record_entries() == [] and not (tmp_path / "record").exists()


# ------------------------------------------------------------------ the caps

def test_the_caps_keep_a_too_large_payload_out_of_the_record(tmp_path, monkeypatch):
    monkeypatch.setattr(results_cache, "RECORD_ENTRY_MAX_BYTES", 20_000)
    monkeypatch.setenv(results_cache.RECORD_WRITE_ENV, "1")
    log = tmp_path / "compute.jsonl"
    monkeypatch.setenv(results_cache.COMPUTE_LOG_ENV, str(log))
    _, big = memoize("big", {}, lambda: np.zeros(10_000))              # 80 kB of payload
    _, small = memoize("small", {}, lambda: np.zeros(10))
    assert Path(big["path"]).is_file()                                  # kept locally
    assert results_cache.record_entries() == [Path(small["path"]).stem]
    first, second = log_lines(log)
    assert not first["recorded"] and "over the record's cap of 20,000 bytes per entry" in first["record_note"]
    assert second["recorded"] and second["record_note"] == "written"
    used = sum(p.stat().st_size for p in (tmp_path / "record").iterdir() if p.name != "index.json")
    monkeypatch.setattr(results_cache, "RECORD_TOTAL_MAX_BYTES", used + 100)
    memoize("small-too", {}, lambda: np.zeros(10))
    assert "over its budget of" in log_lines(log)[-1]["record_note"]
    assert len(results_cache.record_entries()) == 1


def test_the_stated_budget():
    assert results_cache.RECORD_ENTRY_MAX_BYTES == 2_000_000
    assert results_cache.RECORD_TOTAL_MAX_BYTES == 20_000_000


# ------------------------------------------------------------------ saying what changed

def test_a_recompute_names_the_changed_param(caplog):
    memoize("swept", {"n": 1, "options": {"eps": 0.5, "pool": 3}}, lambda: 1)
    memoize("swept-other", {"n": 9}, lambda: 1)                       # another name: never compared
    with caplog.at_level(logging.WARNING, logger="greenelm_book.store.results_cache"):
        memoize("swept", {"n": 1, "options": {"eps": 0.25, "pool": 3}, "seed": 0}, lambda: 1)
    message = caplog.records[-1].getMessage()
    assert "params: options.eps 0.5 -> 0.25, seed added (0)" in message
    assert "code" not in message.split("params:")[1] and "n 1" not in message and "swept-other" not in message


def test_the_change_goes_to_the_compute_log_not_the_page_under_the_runner(tmp_path, monkeypatch, caplog):
    log = tmp_path / "compute.jsonl"
    monkeypatch.setenv(results_cache.COMPUTE_LOG_ENV, str(log))
    memoize("logged", {"n": 1}, lambda: 1)
    with caplog.at_level(logging.DEBUG, logger="greenelm_book.store.results_cache"):
        memoize("logged", {"n": 2}, lambda: 1)
    assert caplog.records == []
    first, event, second = log_lines(log)                 # the event is written before computing
    assert "changed" not in first and "params: n 1 -> 2" in second["changed"]
    assert event["event"] == "computing" and event["changed"] == second["changed"]
    from greenelm_book.running.execute import _compute_calls, compute_time
    assert _compute_calls(log) == [first, second] and compute_time(log, 0.0)["memoized"] == 2


def test_the_runner_reports_a_changed_key_from_whole_lines_of_the_log_as_they_come(tmp_path):
    from greenelm_book.running.execute import _Follow
    log, said = tmp_path / "compute.jsonl", []
    follow = _Follow(log, None)                        # no thread: drained by hand
    follow.report = said.append
    follow.drain()                                      # no log yet
    line = json.dumps({"event": "computing", "name": "x", "changed": "x: no stored entry"})
    log.write_text(json.dumps({"name": "y", "cached": True, "seconds": 1.0}) + "\n" + line[:20])
    follow.drain()
    assert said == []                                   # half a line waits for its end
    log.write_text(log.read_text() + line[20:] + "\n")
    follow.drain()
    follow.drain()
    assert said == ["    computing x: no stored entry"]


PACKAGE = "record_pkg"

SCIENCE = '''
import os

import numpy as np

SCALE = 2


def _ran(what):
    marker = os.environ.get("RECORD_MARKER")
    if marker:
        with open(marker, "a") as fh:
            fh.write(what + "\\n")


def alpha(n):
    _ran("alpha")
    return np.arange(n) * SCALE


def beta(n):
    _ran("beta")
    return shared(n) + 1


def shared(n):
    return np.arange(n)
'''


@pytest.fixture
def science(tmp_path, monkeypatch):
    """``write(text)`` (re)writes the package's module and returns it freshly imported."""
    root = tmp_path / "pkgs"
    (root / PACKAGE).mkdir(parents=True)
    (root / PACKAGE / "__init__.py").write_text("")
    monkeypatch.syspath_prepend(str(root))
    monkeypatch.setenv("RECORD_MARKER", str(tmp_path / "ran.txt"))

    def write(text=SCIENCE):
        for name in [m for m in sys.modules if m.startswith(PACKAGE)]:
            del sys.modules[name]
        (root / PACKAGE / "science.py").write_text(textwrap.dedent(text))
        importlib.invalidate_caches()
        return importlib.import_module(f"{PACKAGE}.science")

    yield write
    for name in [m for m in sys.modules if m.startswith(PACKAGE)]:
        del sys.modules[name]


def ran(tmp_path):
    path = tmp_path / "ran.txt"
    return path.read_text().split() if path.is_file() else []


def chapter(module):
    """The two results of a toy chapter."""
    return (memoize("toy-alpha", {"n": 4}, partial(module.alpha, 4))[0],
            memoize("toy-beta", {"n": 4}, partial(module.beta, 4))[0])


def test_changing_code_recomputes_exactly_the_result_that_runs_it_and_names_it(science, tmp_path, caplog):
    chapter(science())
    assert ran(tmp_path) == ["alpha", "beta"]
    chapter(science())
    assert ran(tmp_path) == ["alpha", "beta"]                          # both from the cache
    with caplog.at_level(logging.WARNING, logger="greenelm_book.store.results_cache"):
        alpha, beta = chapter(science(SCIENCE.replace("np.arange(n) * SCALE", "np.arange(n) * SCALE + 1")))
    assert ran(tmp_path) == ["alpha", "beta", "alpha"]
    np.testing.assert_array_equal(alpha, [1, 3, 5, 7])
    (message,) = [r.getMessage() for r in caplog.records]
    assert f"code: changed {PACKAGE}.science.alpha" in message and "toy-alpha" in message
    assert "beta" not in message and "params" not in message
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="greenelm_book.store.results_cache"):
        chapter(science(SCIENCE.replace("return np.arange(n)\n", "return helper(n)\n\n\ndef helper(n):\n"
                                        "    return np.arange(n)\n")))
    assert ran(tmp_path)[3:] == ["beta"]                  # alpha's code is back to its first version's entry
    assert not [r for r in caplog.records if "toy-alpha" in r.getMessage()]
    beta_message = [r.getMessage() for r in caplog.records if "toy-beta" in r.getMessage()][0]
    assert (f"code: changed {PACKAGE}.science.shared; added {PACKAGE}.science.helper" in beta_message)


def test_moving_a_function_to_another_module_keeps_its_entry(science, tmp_path):
    module = science()
    chapter(module)
    root = tmp_path / "pkgs" / PACKAGE
    (root / "moved.py").write_text("import numpy as np\n\n\ndef shared(n):\n    return np.arange(n)\n")
    chapter(science(SCIENCE.replace("def shared(n):\n    return np.arange(n)\n", "")
                    .replace("import numpy as np\n", f"import numpy as np\n\nfrom {PACKAGE}.moved import shared\n")))
    assert ran(tmp_path) == ["alpha", "beta"]                          # nothing recomputed


def test_a_recompute_names_the_changed_library(monkeypatch, caplog):
    real = results_cache.code_fingerprint

    def under_old_numpy(compute):
        found = real(compute)
        libraries = ["numpy 1.0.0" if lib.startswith("numpy ") else lib for lib in found["libraries"]]
        return dict(found, libraries=libraries, digest=hashlib.sha256(b"old numpy").hexdigest())

    monkeypatch.setattr(results_cache, "code_fingerprint", under_old_numpy)
    memoize("libbed", {}, lambda: np.zeros(2))
    monkeypatch.setattr(results_cache, "code_fingerprint", real)
    with caplog.at_level(logging.WARNING, logger="greenelm_book.store.results_cache"):
        memoize("libbed", {}, lambda: np.zeros(2))
    message = caplog.records[-1].getMessage()
    assert f"libraries: numpy 1.0.0 -> {np.__version__}" in message and "params" not in message
    assert "code: " not in message


# ------------------------------------------------------------------ recompute, index and pruning

def test_recompute_since_ignores_what_was_stored_before_it(tmp_path, monkeypatch):
    compute, calls = counted(5)
    monkeypatch.setenv(results_cache.RECORD_WRITE_ENV, "1")
    _, info = memoize("again", {}, compute)
    since = time.time()
    for path in [Path(info["path"]), *(tmp_path / "record").glob("again-*.json")]:
        os.utime(path, (since - 60, since - 60))
    monkeypatch.setenv(results_cache.RECOMPUTE_ENV, repr(since))
    assert memoize("again", {}, compute)[1]["source"] == "computed" and calls == [1, 1]
    assert memoize("again", {}, compute)[1]["source"] == "local" and calls == [1, 1]   # once per run
    monkeypatch.setenv(results_cache.RECOMPUTE_ENV, "yesterday")
    with pytest.raises(ValueError, match="GREENELM_RECOMPUTE_SINCE='yesterday': expected a Unix time"):
        memoize("again", {}, compute)


def test_stored_only_answers_from_the_stores_and_refuses_to_compute_naming_what_changed(tmp_path, monkeypatch):
    compute, calls = counted(7)
    monkeypatch.setenv(results_cache.RECORD_WRITE_ENV, "1")
    memoize("kept", {"n": 1}, compute)
    monkeypatch.delenv(results_cache.RECORD_WRITE_ENV)
    fresh_machine(monkeypatch, tmp_path)
    monkeypatch.setenv(results_cache.STORED_ONLY_ENV, "1")
    assert memoize("kept", {"n": 1}, compute)[0] == 7 and calls == [1]           # from the record
    with pytest.raises(results_cache.NotStored, match=r"kept \(kept-[0-9a-f]{16}\) is not stored: .*params: n 1 -> 2"):
        memoize("kept", {"n": 2}, compute)
    assert calls == [1] and not list((tmp_path / "fresh" / "results").glob("kept-*.json"))[1:]   # nothing computed
    with pytest.raises(SystemExit, match="--recompute and --stored-only contradict"):
        runner.main(["run", "--profile", "smoke", "--out", str(tmp_path / "out"), "--recompute", "--stored-only"])


def test_a_chapters_replaced_entries_are_removed_and_prune_lists_what_no_chapter_uses(tmp_path, monkeypatch):
    monkeypatch.setenv(results_cache.RECORD_WRITE_ENV, "1")
    entries = {n: Path(memoize(n, {}, lambda: 1)[1]["path"]).stem for n in ("e1", "e2", "e3", "e4", "orphan")}
    record = tmp_path / "record"
    assert results_cache.update_record_index("ch", [entries["e1"], entries["e2"]], record) == []
    assert results_cache.update_record_index("other", [entries["e4"]], record) == []
    assert results_cache.update_record_index("gone", [entries["e2"]], record) == []
    assert results_cache.update_record_index("ch", [entries["e1"], entries["e3"]], record) == []  # e2: "gone"'s
    assert results_cache.update_record_index("gone", [], record) == [entries["e2"]]
    assert not (record / (entries["e2"] + ".json")).exists() and not (record / (entries["e2"] + ".npz")).exists()
    assert results_cache.prune_record(["ch"], record, dry_run=True) == sorted([entries["e4"], entries["orphan"]])
    assert len(results_cache.record_entries(record)) == 4                # a dry run removes nothing
    assert results_cache.prune_record(["ch"], record) == sorted([entries["e4"], entries["orphan"]])
    assert results_cache.record_entries(record) == sorted([entries["e1"], entries["e3"]])
    index = json.loads((record / "index.json").read_text())
    assert index == {"format": results_cache.INDEX_FORMAT, "chapters": {"ch": sorted([entries["e1"], entries["e3"]])}}
    (record / "index.json").write_text("[]")
    with pytest.raises(ValueError, match="not a record index"):
        results_cache.prune_record(["ch"], record)


def test_only_the_full_profile_into_book_writes_the_record(tmp_path):
    assert runner.record_for("full", ROOT / "book") == results_cache.RECORD == ROOT / "book" / "cache"
    assert runner.record_for("smoke", ROOT / "tests" / "notebooks") is None
    assert runner.record_for("smoke", ROOT / "book") is None
    assert runner.record_for("full", tmp_path) is None
    assert runner.record_for("full", ROOT / "book", no_record=True) is None
    assert runner.record_for("smoke", tmp_path, record=tmp_path / "r") == tmp_path / "r"


# ------------------------------------------------------------------ the committed record

def test_the_committed_record_is_sound_within_its_budget_and_not_ignored_by_git():
    folder = results_cache.RECORD
    total = 0
    for entry in results_cache.record_entries(folder):
        stem = folder / entry
        manifest = json.loads(stem.with_suffix(".json").read_text())
        assert entry == f"{manifest['name']}-{manifest['key'][:16]}", entry
        _, text, payload = results_cache._checked_manifest(stem, {"format": results_cache.FORMAT})
        size = len(text) + len(payload)
        assert size <= results_cache.RECORD_ENTRY_MAX_BYTES, f"{entry}: {size:,} bytes"
        total += size
    assert total <= results_cache.RECORD_TOTAL_MAX_BYTES
    leftovers = [p.name for p in folder.glob("*.npz") if not p.with_suffix(".json").is_file()]
    assert leftovers == [], "payloads without a manifest"
    index = results_cache._read_index(folder)
    from greenelm_book.running.toc import chapters
    assert set(index) <= set(chapters())
    assert set().union(*index.values()) <= set(results_cache.record_entries(folder)) if index else True
    if (ROOT / ".git").exists():
        proc = subprocess.run(["git", "check-ignore", "book/cache/x-0123456789abcdef.npz",
                               "book/cache/x-0123456789abcdef.json", "book/cache/index.json"], cwd=ROOT,
                              capture_output=True, text=True)
        assert proc.returncode == 1 and proc.stdout == "", f"git ignores the cache of record: {proc.stdout}"


# ------------------------------------------------------------------ a chapter re-executed by the runner

TOY = '''\
# %% [markdown]
# # A toy chapter
#
# PROSE

# %% tags=["parameters"]
profile = "smoke"
seed = 0
n = 3

# %%
from functools import partial

from record_pkg import science
from greenelm_book.store.results_cache import memoize

alpha = memoize("toy-alpha", {"n": n}, partial(science.alpha, n))[0]
beta = memoize("toy-beta", {"n": n}, partial(science.beta, n))[0]
print("alpha", alpha.tolist(), "beta", beta.tolist())
'''


def _run(project, out, *extra, capsys):
    code = runner.main(["run", "--out", str(out), "--no-progress", "--notebooks", str(project / "notebooks"),
                        "--toc", str(project / "_toc.yml"), "--params", str(project / "params"), *extra])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    return captured.err


def _printed(notebook) -> str:
    nb = nbformat.read(notebook, as_version=4)
    return "".join(o.get("text", "") for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", []))


def _record_files(record) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(record.iterdir())}


def test_a_fresh_clone_reexecutes_a_chapter_with_changed_prose_without_computing(science, tmp_path, monkeypatch,
                                                                                 capsys):
    science()
    project, out, record = tmp_path / "project", tmp_path / "book", tmp_path / "project-record"
    (project / "notebooks").mkdir(parents=True)
    (project / "params").mkdir()
    (project / "notebooks" / "toy.py").write_text(TOY)
    (project / "params" / "full.yml").write_text("toy: {n: 4}\n")
    (project / "params" / "smoke.yml").write_text("toy: {n: 2}\n")
    (project / "_toc.yml").write_text("format: jb-book\nroot: book/intro\nchapters:\n  - file: book/toy\n")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(tmp_path / "pkgs"), str(ROOT),
                                                      os.environ.get("PYTHONPATH", "")]))
    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")
    full = ("--profile", "full", "--record", str(record))

    err = _run(project, out, *full, capsys=capsys)                    # the maintainer's execution
    assert ran(tmp_path) == ["alpha", "beta"] and "2 computed; 2 written to the record" in err
    assert "alpha [0, 2, 4, 6] beta [1, 2, 3, 4]" in _printed(out / "toy.ipynb")
    assert len(results_cache.record_entries(record)) == 2

    fresh_machine(monkeypatch, tmp_path, "clone-cache")                # a fresh clone edits a sentence
    (project / "notebooks" / "toy.py").write_text(TOY.replace("PROSE", "Better prose."))
    before = _record_files(record)
    err = _run(project, out, *full, "--stale-only", capsys=capsys)
    assert ran(tmp_path) == ["alpha", "beta"], "the fresh clone computed"
    assert "2 from the record, 0 from the local cache, 0 computed" in err
    assert "alpha [0, 2, 4, 6] beta [1, 2, 3, 4]" in _printed(out / "toy.ipynb")
    assert "Better prose." in nbformat.read(out / "toy.ipynb", as_version=4).cells[0].source
    assert _record_files(record) == before

    science(SCIENCE.replace("np.arange(n) * SCALE", "np.arange(n) * SCALE + 10"))   # code alpha runs
    err = _run(project, out, *full, capsys=capsys)
    assert ran(tmp_path) == ["alpha", "beta", "alpha"]
    assert "computing toy-alpha: no stored entry for this key; against" in err and f"code: changed {PACKAGE}.science.alpha" in err
    assert "record: removed 1 entry no chapter uses now: toy-alpha-" in err
    assert "alpha [10, 12, 14, 16] beta [1, 2, 3, 4]" in _printed(out / "toy.ipynb")
    after = _record_files(record)
    assert {k for k in after if k.startswith("toy-beta")} == {k for k in before if k.startswith("toy-beta")}
    assert len(results_cache.record_entries(record)) == 2

    monkeypatch.setenv(results_cache.RECORD_WRITE_ENV, "1")           # even so, a smoke run never writes
    monkeypatch.setenv(results_cache.RECORD_ENV, str(record))
    _run(project, tmp_path / "smoke", "--profile", "smoke", capsys=capsys)
    assert ran(tmp_path)[3:] == ["alpha", "beta"] and _record_files(record) == after
    monkeypatch.delenv(results_cache.RECORD_WRITE_ENV)

    err = _run(project, out, *full, "--recompute", capsys=capsys)     # from scratch
    assert ran(tmp_path)[5:] == ["alpha", "beta"]
    assert "0 from the record, 0 from the local cache, 2 computed; 2 written to the record" in err
    assert sorted(_record_files(record)) == sorted(after)
