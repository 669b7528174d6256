"""Provenance a reader can audit: when a result was measured (not when its page was executed), the host
that measured a timing, quietness on the 1- and 5-minute loads, and the environment page's count of
every record a page reads."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import shutil
from pathlib import Path

import pytest

from greenelm_book import bench
from greenelm_book.running import environment
from greenelm_book.running.migrate_provenance import migrate_entry, migrate_folder
from greenelm_book.store import results as results_mod
from greenelm_book.store import results_cache
from greenelm_book.store.results import (NOT_RECORDED, ChapterResults, Provenance, Result, ResultsFileError,
                                         days_text, host_text, is_timing, load_all, measured_date, same_host)

ROOT = Path(__file__).resolve().parents[1]
HOST = {"cpu": "Test CPU", "cores": 2, "kernel": "6.1.0-test", "blas": "openblas 0.3.30 (Haswell), 2 threads",
        "gemm_gflops": 50.0}


@pytest.fixture
def fake_host(monkeypatch):
    """This process's host, without timing a GEMM."""
    monkeypatch.setattr(bench, "host_info", lambda gemm_order=1024: dict(HOST))
    return HOST


# ------------------------------------------------------------------ quietness

@pytest.mark.parametrize("load, quiet, words", [
    ([0.3, 0.4, 2.0], True, "were at most 0.5"),          # the 15-minute average is not judged
    ([0.5, 0.5, 0.5], True, "were at most 0.5"),          # at the limit is quiet
    ([0.3, 1.16, 1.65], False, "the 5-minute load average (1.16) above 0.5"),   # the conv run's loads
    ([0.9, 0.2, 0.1], False, "the 1-minute load average (0.9) above 0.5"),
    ([0.9, 1.2, 0.1], False, "the 1-minute load average (0.9) and the 5-minute load average (1.2)"),
    (None, False, "not recorded"),
    ([0.2], False, "not recorded"),
])
def test_quiet_is_judged_on_the_1_and_5_minute_loads(load, quiet, words):
    got, reason = bench.judge_quiet(load, 0.5)
    assert got is quiet
    assert words in reason


def test_waiting_for_quiet_polls_until_both_loads_pass_and_stops_at_the_deadline():
    readings = iter([[1.9, 1.2, 0.5], [0.3, 0.6, 0.5], [0.2, 0.4, 0.4]])
    slept = []
    assert bench.wait_until_quiet(0.5, poll_seconds=20, read=lambda: next(readings), sleep=slept.append) == [0.2, 0.4, 0.4]
    assert slept == [20, 20]                              # the 5-minute load kept it waiting once more
    clock = iter([100.0, 120.0, 140.0])
    with pytest.raises(TimeoutError, match=r"not quiet by the deadline: the 1-minute load average \(0.9\) above 0.5"):
        bench.wait_until_quiet(0.5, poll_seconds=20, deadline=150.0, read=lambda: [0.9, 0.1], clock=lambda: next(clock),
                               sleep=lambda s: None)
    with pytest.raises(TimeoutError, match="not recorded"):     # an unreadable load is never quiet
        bench.wait_until_quiet(deadline=0.0, read=lambda: None, clock=lambda: 1.0, sleep=lambda s: None)


def test_a_nonsense_load_is_refused_by_name():
    with pytest.raises(ValueError, match=r"load averages must be finite and non-negative, got \[-1.0, 0.2\]"):
        bench.judge_quiet([-1.0, 0.2])


def _report(load_before, written_quiet=True):
    pairs = [{"pair": i, "a_seconds": 2.0, "b_seconds": 1.0, "ratio": 2.0, "pid": 7,
              "computed_at": f"2026-11-28T09:0{i}:00+00:00"} for i in range(5)]
    entry = {"claim": "c", "paper_ratio": 2.0, "numerator": "a", "denominator": "b", "data": "d", "pairs": pairs,
             "pid": 7, "started_at": "2026-11-28T09:00:00+00:00", "finished_at": "2026-11-28T09:06:00+00:00",
             "quiet": written_quiet, "threads": {"blas": [{"user_api": "blas", "internal_api": "openblas",
                                                           "version": "0.3.30", "architecture": "Haswell",
                                                           "num_threads": 2}]}}
    return {"started_at": "2026-11-28T09:00:00+00:00", "quiet": written_quiet,
            "settings": {"quiet_load": 0.5, "load_before": load_before,
                         "machine": {"cpu": "AMD EPYC", "cores": 2, "os": "Linux-6.18.44-fc-v782-x86_64-with-glibc2.36"}},
            "runs": [{"started_at": "2026-11-28T09:00:00+00:00", "finished_at": "2026-11-28T09:06:00+00:00",
                      "load_before": load_before, "ratios": ["r"]}],
            "ratios": {"r": entry}}


def test_a_ratio_written_as_quiet_is_judged_again_on_its_run_s_5_minute_load(tmp_path):
    path = tmp_path / "headline_ratios.json"
    path.write_text(json.dumps(_report([0.32, 1.95, 2.7])))
    entry = bench.quiet_ratio("r", path)
    assert entry["quiet"] is False and "5-minute load average (1.95)" in entry["quiet_reason"]
    path.write_text(json.dumps(_report([0.32, 0.41, 2.7], written_quiet=False)))
    assert bench.quiet_ratio("r", path)["quiet"] is True


def test_a_recorded_quiet_ratio_carries_its_measurement_day_host_and_quietness(tmp_path, fake_host):
    path = tmp_path / "headline_ratios.json"
    path.write_text(json.dumps(_report([0.32, 1.95, 2.7])))
    store = ChapterResults("baselines", "smoke", tmp_path / "results")
    result = bench.record_quiet_ratio(store, "r", key="mnist/a-over-b/paired-time-ratio", path=path)
    assert result.date == "2026-11-28" and result.executed == dt.date.today().isoformat()
    assert result.host == {"cpu": "AMD EPYC", "cores": 2, "kernel": "6.18.44-fc-v782",
                           "blas": "openblas 0.3.30 (Haswell), 2 threads", "gemm_gflops": None}
    assert result.setting["quiet"] is False and "busy machine (the 5-minute load average (1.95)" in result.setting["timing"]
    from greenelm_book.judging.comparability import is_quiet_timing

    assert not is_quiet_timing(result.setting)           # the judges read it as not quiet


# ------------------------------------------------------------------ when a result was measured

@pytest.mark.parametrize("setting, day", [
    ({"measured": "2026-11-27 07:47 UTC"}, "2026-11-27"),
    ({"computed_at": ["2026-11-28T23:59:00+00:00", "2026-11-29T00:10:00+00:00"]}, "2026-11-29"),
    ({"source": "benchmarks/scaleout.json (python -m benchmarks.scaleout, 2026-11-22T08:54:27+00:00)"}, "2026-11-22"),
    ({"source": "benchmarks/run-2026-11-20.json"}, ""),      # a day in a file's name is not a time stamp
    ({"measured": None, "seeds": [0, 1]}, ""),
])
def test_the_measurement_day_is_read_from_what_a_setting_says(setting, day):
    assert measured_date(setting) == day


def test_pooled_values_span_every_runs_day_not_only_the_latest():
    """A value pooled over runs of several days (the frontier's recipes: seeds run days apart) is said to be
    measured over all of them; a result whose setting says nothing falls back to its own date."""
    from greenelm_book.store.results import measured_days, result_days

    pooled = {"computed_at": ["2026-11-29T11:04:12+00:00", "2026-11-29T12:40:06+00:00", "2026-12-05T02:08:35+00:00"]}
    assert measured_days(pooled) == ["2026-11-29", "2026-12-05"] and measured_date(pooled) == "2026-12-05"
    runs = Result("a/train-seconds", (1.0, 2.0, 3.0), "s", pooled, "frontier", "m", "2026-12-05", "")
    bare = Result("b/train-seconds", (1.0,), "s", {}, "frontier", "m", "2026-11-20", "")
    assert result_days([runs, bare]) == ["2026-11-20", "2026-11-29", "2026-12-05"]
    assert days_text(result_days([runs])) == "between 2026-11-29 and 2026-12-05"


def test_a_value_measured_by_this_execution_gets_today_and_this_host(tmp_path, monkeypatch, fake_host):
    monkeypatch.setattr(results_mod, "_cache_reads", lambda: 0)
    store = ChapterResults("hardware", "smoke", tmp_path)
    timing = store.record("mnist/x/fit-seconds", [1.0, 2.0], "s", n=3)
    accuracy = store.record("mnist/x/accuracy", [97.0], "%", n=3)
    today = dt.date.today().isoformat()
    assert (timing.date, timing.executed, timing.host) == (today, today, HOST)
    assert (accuracy.date, accuracy.host) == (today, None)        # only a timing records its host
    assert load_all(tmp_path)["hardware"]["results"]["mnist/x/fit-seconds"] == timing      # round trip


def test_after_a_cache_read_an_undated_value_is_not_recorded_rather_than_today(tmp_path, monkeypatch, fake_host):
    monkeypatch.setattr(results_mod, "_cache_reads", lambda: 3)
    store = ChapterResults("hardware", "smoke", tmp_path)
    result = store.record("mnist/x/fit-seconds", [1.0], "s")
    assert (result.date, result.host, result.measured_text) == ("", None, NOT_RECORDED)
    read = load_all(tmp_path)["hardware"]["results"]["mnist/x/fit-seconds"]
    assert read.measured_text == NOT_RECORDED and host_text(read.host) == "host not recorded"
    dated = store.record("mnist/y/fit-seconds", [1.0], "s", provenance=Provenance.from_cache(
        {"computed_at": "2026-11-20T10:00:00+00:00", "host": HOST}))
    assert (dated.date, dated.host) == ("2026-11-20", HOST)
    imported = store.record("gpu/z/update-seconds", [0.1], "s", source="benchmarks/gpu.json", measured="2026-11-26",
                            host="Intel(R) Xeon(R) Processor, 16 cores")
    assert imported.date == "2026-11-26"
    assert imported.host == {"cpu": "Intel(R) Xeon(R) Processor", "cores": 16, "kernel": None, "blas": None,
                             "gemm_gflops": None}


def test_a_provenance_of_the_wrong_kind_is_refused(tmp_path):
    store = ChapterResults("hardware", "smoke", tmp_path)
    with pytest.raises(TypeError, match="mnist/x/fit-seconds: provenance must be a results.Provenance"):
        store.record("mnist/x/fit-seconds", [1.0], "s", provenance="2026-11-20")
    with pytest.raises(ValueError, match=r"mnist/x/fit-seconds: provenance date must be an ISO day .* not '28 Nov'"):
        store.record("mnist/x/fit-seconds", [1.0], "s", provenance=Provenance("28 Nov"))


def test_a_result_stored_before_provenance_reads_back_as_not_recorded(tmp_path):
    entry = {"values": [1.0], "unit": "s", "setting": {}, "chapter": "hardware", "machine": "m",
             "date": "2026-11-29", "command": "c"}
    (tmp_path / "hardware.json").write_text(json.dumps({"format": 1, "chapter": "hardware", "results": {
        "a/fit-seconds": entry}, "answers": {}}))
    old = load_all(tmp_path)["hardware"]["results"]["a/fit-seconds"]
    assert (old.date, old.executed, old.host) == ("", "2026-11-29", None)
    (tmp_path / "hardware.json").write_text(json.dumps({"format": 1, "chapter": "hardware", "results": {
        "a/fit-seconds": {**entry, "executed": "2026-11-29", "host": {"cpu": "x", "ram": 3}}}, "answers": {}}))
    with pytest.raises(ResultsFileError, match=r"hardware.json: result 'a/fit-seconds': 'host' must be null or an object"):
        load_all(tmp_path)
    (tmp_path / "hardware.json").write_text(json.dumps({"format": 1, "chapter": "hardware", "results": {
        "a/fit-seconds": {**entry, "date": "Nov 28", "executed": "2026-11-29", "host": None}}, "answers": {}}))
    with pytest.raises(ResultsFileError, match=r"result 'a/fit-seconds': 'date' and 'executed' must be ISO days"):
        load_all(tmp_path)


def test_is_timing_names_the_machine_dependent_results():
    assert is_timing("mnist/green-elm/unit/pinv/d=2000/fit-seconds", "s")
    assert is_timing("mnist/paper-listing2/pinv-over-lu/same-h/n=60000/d=2000/paired-time-ratio", "×")
    assert is_timing("hardware/gemm/float64/peak", "GFLOP/s")
    assert not is_timing("mnist/green-elm/unit/pinv/d=2000/accuracy", "%")
    assert not is_timing("mnist/green-elm/unit/pinv/d=2000/peak-memory", "GB")


# ------------------------------------------------------------------ hosts

def _timing(host):
    return Result("k/fit-seconds", (1.0,), "s", {}, "hardware", "m", "2026-11-29", "c", "2026-11-29", host)


def test_same_host_needs_both_hosts_recorded_and_equal():
    assert same_host(_timing(HOST), _timing(dict(HOST, gemm_gflops=41.0))) is True    # a GEMM reading is not identity
    assert same_host(_timing(HOST), _timing(dict(HOST, kernel="6.18.44-fc-v782"))) is False
    assert same_host(_timing(HOST), _timing(dict(HOST, blas="openblas 0.3.30 (Haswell), 1 threads"))) is False
    assert same_host(_timing(HOST), _timing(None)) is None
    assert same_host(_timing(HOST), _timing(dict(HOST, kernel=None))) is None         # cannot be told
    assert same_host(_timing(dict(HOST, kernel=None)), _timing(dict(HOST, cpu="Other", kernel=None))) is False


def test_a_value_timed_on_a_gpu_names_its_host_by_the_gpu_and_its_cpu_twin_does_not():
    words = {"gpu": "NVIDIA H200", "host": "Intel(R) Xeon(R) Processor, 16 cores"}
    on_gpu = results_mod._setting_host({**words, "device": "NVIDIA H200"})
    on_cpu = results_mod._setting_host({**words, "device": "Intel(R) Xeon(R) Processor, 16 cores"})
    assert host_text(on_gpu) == ("NVIDIA H200 GPU on Intel(R) Xeon(R) Processor, 16 cores (kernel, BLAS and GEMM rate "
                                 "not recorded)")
    assert on_cpu["cpu"] == "Intel(R) Xeon(R) Processor" and on_gpu["cores"] == on_cpu["cores"] == 16
    assert same_host(_timing(dict(on_gpu, kernel="k", blas="b")), _timing(dict(on_cpu, kernel="k", blas="b"))) is False
    named = {"device": "NVIDIA H200", "gpu": "NVIDIA H200", "machine": "NVIDIA H200 GPU on Intel(R) Xeon(R) Processor, 16 cores"}
    assert results_mod._setting_host(named)["cpu"] == "NVIDIA H200 GPU on Intel(R) Xeon(R) Processor"   # named once


def test_hosts_in_words_say_what_is_not_recorded():
    assert host_text(HOST) == ("Test CPU, 2 cores, kernel 6.1.0-test, openblas 0.3.30 (Haswell), 2 threads, "
                               "GEMM 50 GFLOP/s")
    assert host_text({"cpu": "AMD EPYC", "cores": 2}) == "AMD EPYC, 2 cores (kernel, BLAS and GEMM rate not recorded)"
    assert host_text({"cores": 2, "kernel": "6.1", "blas": "openblas", "gemm_gflops": 52.0}) == \
        "2 cores, kernel 6.1, openblas, GEMM 52 GFLOP/s (CPU not recorded)"
    assert host_text({"cpu": "AMD EPYC", "cores": 2, "kernel": "6.1", "blas": "openblas", "gemm_gflops": 52.0}) == \
        "AMD EPYC, 2 cores, kernel 6.1, openblas, GEMM 52 GFLOP/s"
    assert host_text({"cpu": None, "cores": None}) == "host not recorded"
    assert host_text(None) == "host not recorded"
    # two OpenBLAS builds in one process (numpy's and scipy's wheels): said, not read as one library
    two = dict(HOST, blas="openblas 0.3.30 (Haswell) + openblas 0.3.31.188.0 (Haswell), 2 threads")
    assert ("kernel 6.1.0-test, 2 BLAS builds loaded in one process (openblas 0.3.30 (Haswell) + openblas "
            "0.3.31.188.0 (Haswell), 2 threads), GEMM 50 GFLOP/s") in host_text(two)


def test_host_info_records_cpu_cores_kernel_blas_and_a_measured_gemm_rate(monkeypatch):
    monkeypatch.setattr(bench, "_HOST", None)
    host = bench.host_info(gemm_order=64)
    assert set(host) == set(results_mod.HOST_FIELDS)
    assert host["cores"] >= 1 and host["kernel"] and host["cpu"]
    assert host["gemm_gflops"] > 0 and "threads" in (host["blas"] or "threads")


def test_a_report_s_host_and_kernel_are_read_from_what_it_recorded():
    assert bench.kernel_release("Linux-6.18.44-fc-v782-x86_64-with-glibc2.36") == "6.18.44-fc-v782"
    assert bench.kernel_release("Darwin") is None
    blas = [{"user_api": "blas", "internal_api": "openblas", "version": v, "architecture": "Haswell", "num_threads": 2}
            for v in ("0.3.31", "0.3.30")]
    assert bench.blas_text(blas) == bench.blas_text(blas[::-1]) == \
        "openblas 0.3.30 (Haswell) + openblas 0.3.31 (Haswell), 2 threads"
    report = {"meta": {"machine": {"cpu": "AMD EPYC", "cores": 2, "platform": "Linux-6.18.44-fc-v782-x86_64-with-glibc2.36"}},
              "blas": blas, "peak": {"used": {"float64": 75.26}}}
    assert bench.report_host(report) == {"cpu": "AMD EPYC", "cores": 2, "kernel": "6.18.44-fc-v782",
                                         "blas": "openblas 0.3.30 (Haswell) + openblas 0.3.31 (Haswell), 2 threads",
                                         "gemm_gflops": 75.3}
    assert bench.report_host({"machine": "Intel(R) Xeon(R) Processor, 16 cores"})["cores"] == 16
    assert bench.report_host({"command": "x"}) is None


# ------------------------------------------------------------------ cache entries carry when and where

def test_a_cache_entry_records_when_and_where_it_was_computed(tmp_path, monkeypatch, fake_host):
    monkeypatch.setenv("GREENELM_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv(results_cache.RECORD_ENV, str(tmp_path / "record"))
    reads = results_cache.cache_reads()
    _, computed = results_cache.memoize("provenance-test", {"a": 1}, lambda: {"x": 1.0})
    assert computed["computed_at"][:10] == dt.datetime.now(dt.timezone.utc).date().isoformat()
    assert computed["host"] == HOST and results_cache.cache_reads() == reads
    _, cached = results_cache.memoize("provenance-test", {"a": 1}, lambda: {"x": 1.0})
    assert cached["cached"] and (cached["computed_at"], cached["host"]) == (computed["computed_at"], HOST)
    assert results_cache.cache_reads() == reads + 1
    assert Provenance.from_cache(cached) == Provenance(computed["computed_at"][:10], HOST)
    assert Provenance.from_cache({"computed_at": None, "host": None}) == Provenance("", None)   # an older entry


# ------------------------------------------------------------------ the migration of the stored results

def test_migrating_a_result_recovers_only_what_its_records_say():
    old = {"values": [1.0], "unit": "s", "setting": {}, "chapter": "c", "machine": "m", "date": "2026-11-29",
           "command": "x"}
    machine = {"cpu": "AMD EPYC", "cores": 2, "kernel": "6.18.44", "blas": None, "gemm_gflops": None}
    assert migrate_entry("k/fit-seconds", old, fresh=False, machine_host=machine) == \
        {**old, "date": "", "executed": "2026-11-29", "host": None}               # read from the cache: not known
    assert migrate_entry("k/fit-seconds", old, fresh=True, machine_host=machine) == \
        {**old, "date": "2026-11-29", "executed": "2026-11-29", "host": machine}  # measured by that execution
    assert migrate_entry("k/accuracy", {**old, "unit": "%"}, fresh=True, machine_host=machine)["host"] is None
    imported = {**old, "setting": {"measured": "2026-11-26", "host": "Intel(R) Xeon(R) Processor, 16 cores"}}
    got = migrate_entry("k/update-seconds", imported, fresh=True, machine_host=machine)
    assert got["date"] == "2026-11-26" and got["host"]["cores"] == 16
    assert migrate_entry("k/fit-seconds", got, fresh=False, machine_host=None) is got        # already migrated


def test_migrating_a_folder_keeps_values_and_moves_the_page_s_digest(tmp_path, fake_host):
    out = tmp_path / "out"
    store = ChapterResults("tiny", "smoke", out / "results")
    store.record("a/fit-seconds", [1.0, 2.0], "s")
    path = out / "results" / "tiny.json"
    payload = json.loads(path.read_text())
    for entry in payload["results"].values():                  # as written before results had provenance
        del entry["executed"], entry["host"]
        entry["date"] = "2026-11-29"                             # then: the execution's day
    path.write_text(json.dumps(payload, indent=1, ensure_ascii=False) + "\n")
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    (out / "tiny.ipynb").write_text(json.dumps({"metadata": {"greenelm": {
        "own_results_sha256": digest, "compute": {"cached": 0},
        "machine": {"cpu": "AMD EPYC", "cores": 2, "os": "Linux-6.1.0-x86_64-with-glibc2.36"}}}}))
    before = load_all(out / "results")["tiny"]["results"]["a/fit-seconds"]
    lines = migrate_folder(out)
    after = load_all(out / "results")["tiny"]["results"]["a/fit-seconds"]
    assert after.values == before.values and after.setting == before.setting
    assert after.host == {"cpu": "AMD EPYC", "cores": 2, "kernel": "6.1.0", "blas": None, "gemm_gflops": None}
    meta = json.loads((out / "tiny.ipynb").read_text())["metadata"]["greenelm"]
    assert meta["own_results_sha256"] == hashlib.sha256(path.read_bytes()).hexdigest() != digest
    assert "1 with a measurement date" in lines[0]
    assert migrate_folder(out) == [f"{path}: already migrated"]


def test_the_committed_results_carry_their_provenance():
    """Every committed result has been migrated; the imported ones carry their report's day, not the
    day their chapter was executed (the issue: every hardware result carried one day)."""
    stored = load_all(ROOT / "book" / "results")
    for chapter, content in stored.items():
        for key, result in content["results"].items():
            assert result.executed, f"{chapter}:{key} was not migrated (python -m greenelm_book.running.migrate_provenance)"
    hardware = stored["hardware"]["results"].values()
    imported = [r for r in hardware if str(r.setting.get("source", "")).startswith("benchmarks/")]
    assert imported and all(r.date == measured_date(r.setting) and r.date for r in imported)
    assert len({r.date for r in hardware}) > 1


# ------------------------------------------------------------------ the environment page

@pytest.mark.parametrize("record, seconds", [
    ({"seconds": {"selection": 10.0, "refit": 5.0, "total": 16.0}, "subset": None}, 16.0),       # a protocol run
    ({"seconds": 100.0, "wall_seconds": 120.0, "subset": None}, 120.0),                           # an opponent
    ({"seconds": 478.5, "subset": None}, 478.5),                                                  # a fixed measurement
    ({"duration_seconds": 727.0}, 727.0),                                                         # benchmarks/peers
    ({"meta": {"duration_seconds": 60.0}}, 60.0),                                                 # benchmarks/run
    ({"runs": [{"started_at": "2026-11-28T09:00:00+00:00", "finished_at": "2026-11-28T09:10:00+00:00"},
               {"started_at": "2026-11-28T14:00:00+00:00", "finished_at": "2026-11-28T14:00:30+00:00"}]}, 630.0),
    ({"command": "x", "date": "2026-11-26"}, None),
])
def test_a_record_s_seconds_are_what_it_recorded(record, seconds):
    assert environment.record_seconds(record) == seconds


def test_the_environment_page_counts_the_frontier_s_recorded_runs():
    """The frontier's page reads every protocol, fixed-measurement and opponent record: the page's row
    for it shows their hours, not the seconds its execution took."""
    records = environment.records_read("frontier", {})
    runs = [p for name in ("frontier_protocol", "frontier_halving", "frontier_budget")
            for p in (ROOT / "book" / name).glob("*.json") if p.name != "test-reads.json"]
    assert sorted(records) == sorted(runs) and len(runs) >= 12
    assert ROOT / "book" / "frontier_halving" / "mnist-seed2.json" in records      # the halving protocol's runs
    seconds, missing = environment.records_seconds(records)
    assert missing == 0 and seconds > 10 * 3600
    page = environment.environment_page(ROOT / "book")
    row = next(line for line in page.splitlines() if line.startswith("| {doc}`frontier <frontier>`"))
    assert f"| {environment.duration_text(seconds)} in {len(records)} records |" in row, row


def test_a_page_reads_the_benchmark_reports_its_results_name(tmp_path):
    (tmp_path / "benchmarks").mkdir()
    (tmp_path / "benchmarks" / "peers.json").write_text(json.dumps({"duration_seconds": 727.0}))
    results = {"a": {"setting": {"source": "benchmarks/peers.json"}},
               "b": {"setting": {"source": "benchmarks/missing.json (x)"}}, "c": {"setting": {}}}
    assert environment.records_read("hardware", results, root=tmp_path) == [tmp_path / "benchmarks" / "peers.json"]
    copy = tmp_path / "book" / "frontier_protocol"
    shutil.copytree(ROOT / "book" / "frontier_protocol", copy)
    (copy / "mnist-seed9.json").write_text(json.dumps({"seconds": {"total": 1.0}, "subset": 1000}))   # a check run
    read = environment.records_read("frontier", {}, root=tmp_path)
    assert copy / "mnist-seed9.json" not in read and copy / "mnist-seed0.json" in read
    assert copy / "test-reads.json" not in read                      # the gate's ledger is not a run


def test_where_compared_timings_were_measured_is_said_and_two_hosts_are_never_one():
    from greenelm_book.store.results import measured_on_text

    a, b = _timing(HOST), _timing(dict(HOST, gemm_gflops=40.0))
    assert measured_on_text([a, b]) == f"measured on one host ({host_text(HOST)}), on 2026-11-29"
    assert measured_on_text([a]) == f"measured on {host_text(HOST)}, on 2026-11-29"
    other = Result("k2/fit-seconds", (1.0,), "s", {}, "hardware", "m", "2026-11-28", "c", "2026-11-29",
                   dict(HOST, kernel="6.18.44-fc-v782"))
    text = measured_on_text([a, other])
    assert "not shown to be one machine" in text and "kernel 6.18.44-fc-v782" in text and "(k2/fit-seconds)" in text
    assert text.endswith("on 2026-11-28 to 2026-11-29")
    undated = Result("k3/fit-seconds", (1.0,), "s", {}, "c", "m", "", "c", "2026-11-29", None)
    assert measured_on_text([a, undated]).endswith("host not recorded (k3/fit-seconds) — not shown to be one "
                                                   "machine; on 2026-11-29; measurement date not recorded for 1")
    assert measured_on_text([undated]) == "measured on host not recorded, measurement date not recorded"
    assert measured_on_text([undated, undated]) == ("measured on host not recorded: too little of the host recorded "
                                                    "to show it was one machine; measurement date not recorded")
    with pytest.raises(ValueError, match="no results"):
        measured_on_text([])


def test_a_value_timed_after_a_cache_read_can_say_it_was_measured_now(tmp_path, monkeypatch, fake_host):
    monkeypatch.setattr(results_mod, "_cache_reads", lambda: 5)
    store = ChapterResults("streaming", "smoke", tmp_path)
    result = store.record("s/update-seconds", [0.1], "s", provenance=Provenance.now())
    assert (result.date, result.host) == (dt.date.today().isoformat(), HOST)


def test_the_environment_page_shows_where_compared_timings_were_measured():
    """Every answer resting on two or more timings is listed with where they were measured; the Conv
    parity mixes the quiet benchmark's host with timings whose host was not recorded, and says so."""
    from greenelm_book.paper import CLAIMS

    rows = environment.timing_comparisons(ROOT / "book")
    statement = next(f"{c.statement} ({c.where})" for c in CLAIMS if c.id == "elm_conv_total_time_parity")
    parity = next(text for claim, chapter, text in rows if claim == statement)
    assert "host not recorded" in parity and "not shown to be one machine" in parity
    page = environment.environment_page(ROOT / "book")
    assert all(f"| {claim} | {{doc}}`{chapter} <{chapter}>` | {text} |" in page for claim, chapter, text in rows)
    stored = load_all(ROOT / "book" / "results")
    owners = {k: r for c in stored.values() for k, r in c["results"].items()}
    compared = sum(environment.compares_timings([owners[k] for k in a.keys if k in owners and is_timing(k, owners[k].unit)])
                   for c in stored.values() for a in c["answers"].values())
    assert len(rows) == compared > 0
    speedup = next(f"{c.statement} ({c.where})" for c in CLAIMS if c.id == "speedup_vs_sgd_mnist_d2000")
    assert speedup in [claim for claim, _, _ in rows]          # one paired ratio compares two timings


def test_the_sentence_on_where_the_book_ran_follows_the_recorded_hosts():
    """"Every chapter was executed on the same machine" above a table of hosts with two kernels was the
    defect: the sentence is generated from the timings' hosts, by same_host."""
    machine = "Test CPU, 2 cores, 23.5 GiB"
    one = environment.execution_sentence([machine, machine], [HOST, dict(HOST, gemm_gflops=60.0), None])
    assert one.startswith(f"Every chapter's provenance describes one kind of machine, {machine} (CPU model, cores and "
                          "memory only, which machines of different speeds may share)")
    many = environment.execution_sentence([machine, "Other CPU, 2 cores, 23.5 GiB"], [HOST])
    assert many.startswith("The chapters' provenance describes 2 kinds of machine (Other CPU")
    assert "every timing that records its host was measured on one host; their float64 GEMM rate read 50 to 60 " \
           "GFLOP/s (each host record's own reading" in one and "(1 timing result records no host)." in one
    assert "not the hardware chapter's GEMM figure" in one      # two readings of one host are named apart
    two = environment.execution_sentence([machine, machine], [HOST, dict(HOST, kernel="6.18.44-fc-v782")])
    assert "not all measured on one host: they record 2 kernels; its float64 GEMM rate read 50 GFLOP/s" in two
    assert "every timing" not in two and "same machine" not in two
    partial = environment.execution_sentence([machine], [HOST, {"cpu": "Test CPU", "cores": 2}])
    assert "too incompletely to show they are one machine" in partial
    assert environment.execution_sentence(["–"], [None]).startswith("No chapter's provenance names its machine")
    assert "no timing result records its host." in environment.execution_sentence(["–"], [None])


def test_the_environment_page_does_not_call_the_book_s_hosts_one_machine():
    hosts = environment.timing_host_records(ROOT / "book")
    page = environment.environment_page(ROOT / "book")
    machines = environment.execution_sentence([], hosts)
    kernels = {h["kernel"] for h in hosts if h and h.get("kernel")}
    assert len(kernels) > 1 and "the timings were not all measured on one host: they record " in machines
    assert "executed on the same machine" not in page
    assert machines.split("; ", 1)[1] in page


def test_the_total_of_recorded_runs_says_which_records_several_pages_read(tmp_path):
    """The page's total counts each record once; a record two pages read is in both rows, so the sentence says
    how many are shared and their time, and the rows' sum minus the shared time (counted again) is the total."""
    one, two = tmp_path / "one.json", tmp_path / "two.json"
    one.write_text(json.dumps({"duration_seconds": 600.0}))
    two.write_text(json.dumps({"duration_seconds": 60.0}))
    assert environment.shared_records_words({one: 1, two: 1}) == "each counted once"
    assert environment.shared_records_words({one: 3, two: 1}) == (
        "each counted once; 1 record of 10.0 min is read by 3 pages, so the rows add to more")
    assert environment.shared_records_words({one: 3, two: 2}) == (
        "each counted once; 2 records of 11.0 min are read by up to 3 pages, so the rows add to more")
    page = environment.environment_page(ROOT / "book")
    assert "of recorded runs (each counted once" in page
