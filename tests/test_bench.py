"""greenelm_book.bench: FLOP models against hand-computed counts, the isolated runner (peak memory,
recorded failures), and the report writer. No timed assertions."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from greenelm_book import bench
from greenelm.solvers import fit_flops


def test_fit_flops_by_hand():
    # N=1000, D=784, d=100, k=10: features 2·1000·784·100; syrk 1000·100²; HᵀY 2·1000·100·10;
    # Cholesky 100³/3; two triangular solves 2·100²·10.
    f = fit_flops(1000, 784, 100, 10)
    assert f.features == 156_800_000
    assert f.gram == 10_000_000 + 2_000_000
    assert f.solve == pytest.approx(1_000_000 / 3 + 200_000)


def test_listing_and_svd_flop_models_by_hand():
    N, D, d, k = 1000, 784, 100, 10
    assert bench.gemm_flops(2, 3, 4) == 48
    # NumPy computes H.T @ H with BLAS syrk (one triangle): N d², as greenelm's Gram
    features, normal = 2 * N * D * d, N * d * d + 2 * N * d * k
    assert bench.listing_flops(N, D, d, k, "lud") == pytest.approx(features + normal + 2 * d**3 / 3 + 2 * d * d * k)
    # the listing's Cholesky variant re-solves both triangles with np.linalg.solve (LU each)
    assert bench.listing_flops(N, None, d, k, "cholesky") == pytest.approx(
        normal + d**3 / 3 + 2 * (2 * d**3 / 3 + 2 * d * d * k))
    assert bench.listing_flops(N, None, d, k, "ridge") == pytest.approx(normal + d**3 / 3 + 2 * d * d * k)
    assert bench.pinv_flops(N, None, d, k) == pytest.approx(8 * N * d * d + 20 * d**3 + 2 * N * d * k)
    assert bench.listing_flops(N, D, d, k, "pinv") == bench.pinv_flops(N, D, d, k)
    assert bench.gelsd_flops(N, None, d, k) == pytest.approx(2 * N * d * d + 11 * d**3 + 4 * N * d * k)
    with pytest.raises(ValueError, match="unknown listing variant 'qr'"):
        bench.listing_flops(N, D, d, k, "qr")


def test_flop_floor_splits_precisions():
    peak = {"float64": 100.0, "float32": 200.0}
    f = fit_flops(6000, 784, 400, 10)
    assert bench.flop_floor_seconds(6000, 784, 400, 10, peak, "float64") == pytest.approx(f.total / 100e9)
    assert bench.flop_floor_seconds(6000, 784, 400, 10, peak, "float32") == pytest.approx(
        (f.features + f.gram) / 200e9 + f.solve / 100e9)


def test_gemm_peak_and_blas_info_are_plausible():
    peak = bench.gemm_peak("float32", n=256, repeats=2)
    assert peak["best"] >= peak["median"] > 0
    info = bench.blas_info()
    assert any(i["internal_api"] == "openblas" or i["user_api"] == "blas" for i in info)
    assert all("architecture" in i for i in info)


def test_time_call_counts_calls():
    calls = []
    times = bench.time_call(lambda: calls.append(1), repeats=3, warmup=2)
    assert len(times) == 3 and len(calls) == 5 and all(t >= 0 for t in times)


# -- run_isolated: functions the child process calls -----------------------------------------------
def allocate(mib: int) -> dict:
    block = np.ones(mib * 2**20 // 8)
    return {"sum": float(block.sum()), "value": np.float64(1.5), "nan": float("nan")}


def fail(message: str) -> dict:
    raise np.linalg.LinAlgError(message)


def crash() -> dict:
    import os
    import signal

    os.kill(os.getpid(), signal.SIGSEGV)


def exit_nonzero() -> dict:
    import sys

    print("something went wrong on stderr", file=sys.stderr)
    sys.exit(3)


def sleep(seconds: float) -> dict:
    import time

    time.sleep(seconds)
    return {"slept": seconds}


def read_env(name: str) -> dict:
    import os

    return {"value": os.environ.get(name)}


def test_run_isolated_reports_result_and_peak_memory():
    small = bench.run_isolated("tests.test_bench:allocate", {"mib": 1})
    big = bench.run_isolated("tests.test_bench:allocate", {"mib": 300})
    assert small["ok"] and big["ok"], (small["error"], big["error"])
    assert big["result"] == {"sum": 300 * 2**20 / 8, "value": 1.5, "nan": None}
    # the child's own peak: at least the 300 MiB block, and ~300 MiB above the small run
    assert big["peak_rss_bytes"] >= 300 * 2**20
    assert 250 * 2**20 < big["peak_rss_bytes"] - small["peak_rss_bytes"] < 400 * 2**20


def test_run_isolated_records_exceptions_crashes_and_exit_codes():
    failed = bench.run_isolated("tests.test_bench:fail", {"message": "not positive definite"})
    assert not failed["ok"] and failed["result"] is None
    assert failed["error"] == "LinAlgError: not positive definite"

    crashed = bench.run_isolated("tests.test_bench:crash")
    assert not crashed["ok"] and crashed["signal"] == "SIGSEGV" and crashed["returncode"] == -11
    assert crashed["error"].startswith("killed by SIGSEGV")

    exited = bench.run_isolated("tests.test_bench:exit_nonzero")
    assert not exited["ok"] and exited["returncode"] == 3
    assert exited["error"] == "exit status 3: something went wrong on stderr"


def test_run_isolated_environment_and_timeout():
    assert bench.run_isolated("tests.test_bench:read_env", {"name": "GREENELM_BENCH_X"},
                              env={"GREENELM_BENCH_X": "7"})["result"] == {"value": "7"}
    removed = bench.run_isolated("tests.test_bench:read_env", {"name": "GREENELM_BENCH_X"},
                                 env={"GREENELM_BENCH_X": None})
    assert removed["result"] == {"value": None}
    slow = bench.run_isolated("tests.test_bench:sleep", {"seconds": 30}, timeout=1)
    assert not slow["ok"] and slow["error"] == "timed out after 1 s" and slow["wall_seconds"] < 20
    with pytest.raises(ValueError, match="module:function"):
        bench.run_isolated("tests.test_bench.allocate")


def test_write_report_json_and_markdown(tmp_path):
    report = {"rows": [{"a": 1, "b": float("nan"), "c": np.float32(2.5)}], "arr": np.arange(3)}
    rows = [{"method": "x|y", "seconds": 1234.5678, "ok": True, "tiny": 1e-5, "none": None}]
    bench.write_report(report, tmp_path / "r.json", tmp_path / "r.md",
                       [("Fits", "Some text.", rows, ["method", "seconds", "ok", "tiny", "none"])],
                       preamble="# Title")
    loaded = json.loads((tmp_path / "r.json").read_text())
    assert loaded == {"rows": [{"a": 1, "b": None, "c": 2.5}], "arr": [0, 1, 2]}
    md = (tmp_path / "r.md").read_text().splitlines()
    assert md[0] == "# Title" and "## Fits" in md and "Some text." in md
    header = md.index("| method | seconds | ok | tiny | none |")
    assert md[header + 1] == "|---|---|---|---|---|"
    assert md[header + 2] == "| x\\|y | 1,235 | yes | 1.00e-05 | — |"


def test_markdown_table_empty_and_median():
    assert bench.markdown_table([]) == "_(no rows)_\n"
    assert bench.median([3.0, None, float("nan"), 1.0, 2.0]) == 2.0
    assert math.isnan(bench.median([None]))


def test_rapl_energy_is_none_or_counters():
    energy = bench.rapl_energy_uj()
    assert energy is None or all(isinstance(v, int) and v >= 0 for v in energy.values())


def peak_after_reset(mib: int) -> dict:
    block = np.ones(mib * 2**20 // 8)
    high = bench.peak_rss_bytes()
    del block
    reset = bench.reset_peak_rss()
    return {"high": high, "after_reset": bench.peak_rss_bytes(), "reset": reset,
            "current": bench.current_rss_bytes()}


def test_reset_peak_rss_forgets_an_earlier_peak():
    run = bench.run_isolated("tests.test_bench:peak_after_reset", {"mib": 300})
    assert run["ok"], run["error"]
    r = run["result"]
    assert r["high"] >= 300 * 2**20
    if r["reset"]:  # Linux: the mark drops back to about the current RSS, 300 MiB below the old peak,
        # and the peak the parent reads at exit is the one since the reset
        assert r["after_reset"] < r["high"] - 250 * 2**20
        assert abs(r["after_reset"] - r["current"]) < 50 * 2**20
        assert run["peak_rss_bytes"] < r["high"] - 250 * 2**20
    else:
        assert run["peak_rss_bytes"] >= r["high"] - 2**20


def test_phase_times_streams_blocks_and_times_each_phase():
    import time

    rng = np.random.default_rng(0)
    X, Y = rng.random((700, 30)), np.eye(3)[rng.integers(0, 3, 700)]
    start = time.perf_counter()
    times = bench.phase_times(X, Y, 40, chunk_rows=256, repeats=3, all_times=True)
    wall = time.perf_counter() - start
    assert set(times) == set(bench.PHASES) and all(len(v) == 3 and min(v) > 0 for v in times.values())
    assert sum(sum(v) for v in times.values()) <= wall
    medians = bench.phase_times(X, Y, 40, chunk_rows=256, repeats=1)
    assert set(medians) == set(bench.PHASES) and all(isinstance(v, float) for v in medians.values())


def test_a_machine_s_memory_is_printed_one_way_everywhere():
    """Finding 8 of issue 61's reading: the deviations and environment pages printed 23.5 GiB, the
    frontier "24 GiB" typed by hand. One formatter (:func:`memory_text`, inside :func:`machine_text`)
    prints it; no page source types a memory size of its own."""
    from pathlib import Path

    from greenelm_book.bench import machine_text, memory_text

    assert memory_text(23.5) == "23.5 GiB" and memory_text(24.0) == "24 GiB"
    assert machine_text({"cpu": "AMD EPYC", "cores": 2, "memory_gib": 23.5}) == "AMD EPYC, 2 cores, 23.5 GiB"
    assert machine_text({"cpu": "AMD EPYC", "cores": 2, "memory_gib": None}) == "AMD EPYC, 2 cores, memory not recorded"
    root = Path(__file__).resolve().parents[1]
    for path in [*root.glob("notebooks/*.py"), *root.glob("greenelm_book/**/*.py")]:
        text = path.read_text(encoding="utf-8")
        assert "24 GiB" not in text, path
        if path.name != "bench.py":
            assert ":g} GiB" not in text, f"{path}: a memory formatted by hand; use bench.memory_text"


def test_timed_words_say_what_each_pinv_timing_measures():
    """Finding 27 of issue 61's reading: the paper's listing 2 pinv solve alone (23.6 s) took longer than
    greenelm's whole pinv fit (13.9 s), explained only in passing. Each timing's note and prose says
    what it times, from one function."""
    from greenelm_book.bench import timed_words

    ours, theirs = timed_words("greenelm", "pinv"), timed_words("listing2", "pinv")
    assert ours.startswith("greenelm's whole fit: the features, then LAPACK gelsd") and "no Gram" in ours
    assert theirs.startswith("the paper's listing 2, the solve alone: np.linalg.pinv(H) @ Y")
    assert "pseudoinverse formed" in theirs
    assert timed_words("listing2", "lud") == timed_words("listing2", "lu")
    assert "Cholesky" in timed_words("greenelm", "cholesky")
    with pytest.raises(ValueError, match="code must be"):
        timed_words("sklearn", "pinv")
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    complexity = (root / "greenelm_book" / "chapters" / "complexity.py").read_text(encoding="utf-8")
    features = (root / "greenelm_book" / "chapters" / "random_features.py").read_text(encoding="utf-8")
    assert "bench.timed_words('listing2', solver)" in complexity and "solve alone, one run" not in complexity
    assert "timed_words('greenelm', solver)" in features and "quiet whole fit on inputs" not in features
