"""greenelm_book.chapters.complexity: exponents with intervals, the verdict on operation-count claims, the
fresh-process timings (tiny sizes, no timed assertions) and the reading of benchmarks/peers.json."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy.stats import linregress, t

from greenelm.solvers import fit_flops
from greenelm_book.chapters import complexity
from greenelm_book.paper import HARDWARE_CLAIMS
from greenelm_book.store.results import ChapterResults

ROOT = Path(__file__).resolve().parents[1]
CLAIMS = HARDWARE_CLAIMS["complexity"]


# -- exponents and their intervals ----------------------------------------------------------------
def test_loglog_fit_recovers_an_exact_power_law():
    x = np.array([500, 1000, 2000, 4000, 8000])
    fit = complexity.loglog_fit(x, 3e-9 * x**2.0)
    assert fit["slope"] == pytest.approx(2.0) and fit["half_width"] == pytest.approx(0, abs=1e-9)
    assert fit["n"] == 5


def test_loglog_fit_interval_is_the_t_interval_of_the_regression():
    rng = np.random.default_rng(0)
    x = np.array([1000, 2000, 3000, 4000, 6000, 8000])
    y = x**3 * np.exp(rng.normal(0, 0.1, len(x)))
    fit = complexity.loglog_fit(x, y)
    ref = linregress(np.log(x), np.log(y))
    half = t.ppf(0.975, len(x) - 2) * ref.stderr
    assert fit["slope"] == pytest.approx(ref.slope) and fit["half_width"] == pytest.approx(half)
    assert fit["low"] < 3 < fit["high"]                 # this draw's interval covers the truth
    assert complexity.loglog_fit(x, y, level=0.5)["half_width"] < half


def test_loglog_fit_needs_three_distinct_sizes():
    with pytest.raises(ValueError, match="at least 3 distinct sizes"):
        complexity.loglog_fit([1000, 2000, 2000], [1.0, 2.0, 2.1])


@pytest.mark.parametrize("count, low, high, label", [
    (1.0, 0.9, 1.1, "holds"),             # the interval contains the claim
    (1.0, 1.05, 1.2, "holds"),            # excludes it, within the ±0.25 margin
    (1.0, 0.6, 0.8, "partly holds"),      # time grows more slowly than the count by more than the margin
    (1.0, 1.3, 1.6, "partly holds"),      # ... or faster
    (1.5, 0.9, 1.1, "does not hold"),     # the count itself has another exponent
])
def test_exponent_verdict_decides_on_the_count_and_qualifies_by_time(count, low, high, label):
    verdict = complexity.exponent_verdict(1, count, (low + high) / 2, low, high)
    assert verdict.label == label
    assert f"95 % CI {low:.2f} to {high:.2f}" in verdict.ours and "paper 1" in verdict.ours


def test_wall_time_alone_never_refutes_a_count():
    for low in np.linspace(-3, 6, 19):
        assert complexity.exponent_verdict(3, 3.0, low + 0.1, low, low + 0.2).label != "does not hold"


def _synthetic(sizes, widths, fixed_width, fixed_size, p=None):
    """A phase sweep's table with times exactly ∝ size^p (p per phase), as phase_sweep returns it."""
    p = p or {"features": 1.0, "gram": 1.0, "solve": 0.0}
    rows = []
    for axis, n, d in [("N", n, fixed_width) for n in sizes] + [("d", fixed_size, d) for d in widths]:
        flops = fit_flops(n, 784, d, 10)
        x = n if axis == "N" else d
        exponents = p if axis == "N" else {"features": 1.0, "gram": 1.8, "solve": 3.0}
        for phase in complexity.PHASES:
            seconds = 1e-3 * x ** exponents[phase]
            rows.append({"axis": axis, "n_samples": n, "n_hidden": d, "phase": phase, "seconds": seconds,
                         "times": [seconds] * 3, "load": [0.5, 0.6, 0.7], "gflop": getattr(flops, phase) / 1e9})
    return pd.DataFrame(rows)


def _factorization(orders, p=2.6):
    return pd.DataFrame([{"order": o, "seconds": 1e-9 * o**p, "times": [1e-9 * o**p] * 3, "load": [1.0] * 3,
                          "gflop": o**3 / 3 / 1e9} for o in orders])


def test_exponent_table_fits_time_and_count_over_every_size():
    timings = _synthetic([5000, 10000, 20000, 40000, 60000], [500, 1000, 2000, 4000, 8000], 2000, 10000)
    table = complexity.exponent_table(timings, _factorization([1000, 2000, 4000, 8000]), CLAIMS, 100.0)
    by = table.set_index(["phase", "against"])
    assert list(by.index) == [("features", "N"), ("gram", "N"), ("solve", "N"), ("features", "d"), ("gram", "d"),
                              ("factorization", "d")]
    assert by.loc[("gram", "d"), "time"] == pytest.approx(1.8)
    assert by.loc[("gram", "d"), "count"] == pytest.approx(2, abs=0.02)         # Nd² + 2Ndk over 500..8000
    assert by.loc[("features", "N"), "count"] == pytest.approx(1) and by.loc[("solve", "N"), "count"] == pytest.approx(0)
    assert by.loc[("factorization", "d"), "count"] == pytest.approx(3) and by.loc[("factorization", "d"), "time"] == pytest.approx(2.6)
    assert by.loc[("gram", "N"), "sizes"] == [5000, 10000, 20000, 40000, 60000] and by.loc[("gram", "N"), "fixed"] == "d=2000"
    # the FLOP floor at the one GEMM rate: time / (GFLOP / rate)
    row = by.loc[("features", "d")]
    assert row["time / floor at largest"] == pytest.approx(1e-3 * 8000 / (2 * 10000 * 784 * 8000 / 1e9 / 100.0))
    verdicts = [complexity.exponent_verdict(r.paper, r["count"], r.time, r["ci low"], r["ci high"])
                for _, r in table.iterrows()]
    assert [v.label for v in verdicts] == ["holds"] * 4 + ["holds", "partly holds"]
    shown = complexity.exponent_display(table, verdicts)
    assert shown["sizes"][0] == "5,000–60,000 (5)" and shown["verdict"].iloc[-1] == "partly holds"


def test_gram_share_and_dominance():
    timings = _synthetic([100, 200, 300], [10, 20, 40], 20, 200)
    share = complexity.gram_share(timings)
    assert list(share.n_hidden) == [10, 20, 40]
    d = 40
    expected = 100 * (1e-3 * d**1.8 + 1e-3 * d**3) / (1e-3 * d + 1e-3 * d**1.8 + 1e-3 * d**3)
    assert share["median"].iloc[-1] == pytest.approx(expected)
    assert complexity.dominance_verdict(40, 80, 500, 8000).label == "holds"
    assert complexity.dominance_verdict(60, 55, 500, 8000).label == "does not hold"
    assert complexity.dominance_verdict(30, 45, 500, 8000).label == "does not hold"


def test_record_timings_and_exponents_write_one_key_per_configuration(tmp_path):
    store = ChapterResults("hardware", "smoke", tmp_path)
    timings = _synthetic([1000, 2000, 4000], [100, 200, 400], 200, 2000)
    factorization = _factorization([100, 200, 400])
    setting = {"dataset": "mnist", "seed": 0}
    complexity.record_timings(store, timings, factorization, setting)
    shared = store.results["mnist/green-elm/unit/cholesky/phase=gram/n=2000/d=200/seconds"]
    assert shared.setting["load_average_1min"] == [0.5, 0.6, 0.7] and shared.n == 3
    assert "machine/cholesky/float64/order=400/seconds" in store.results
    table = complexity.exponent_table(timings, factorization, CLAIMS, 50.0)
    keys = complexity.record_exponents(store, table, setting)
    gram_d = keys["gram", "d"]
    assert gram_d[0] == "mnist/green-elm/unit/cholesky/phase=gram/n=2000/d=100-400/exponent"
    assert store.results[gram_d[1]].mean == pytest.approx(table.set_index(["phase", "against"]).loc[("gram", "d"), "half width"])
    assert keys["factorization", "d"][2] == "machine/cholesky/float64/order=100-400/flop-exponent"
    # the worst load read before its timings, for the quiet rule: the 1-minute average alone when no 5-minute one
    assert store.results[gram_d[0]].setting["load_average_1min"] == [0.7]
    assert complexity.worst_load(timings.assign(load5=[[0.2, 0.9]] * len(timings))) == [0.7, 0.9]


# -- the fresh processes (tiny sizes) ------------------------------------------------------------
def test_phase_sweep_times_each_point_once_in_its_own_process():
    table = complexity.phase_sweep([300, 600], [20, 40], fixed_width=40, fixed_size=600, repeats=2)
    assert len(table) == 4 * 3 and set(table.phase) == set(complexity.PHASES)
    assert all(len(t) == 2 and min(t) > 0 for t in table.times)
    assert all(len(load) == 2 and min(load) >= 0 for load in table.load)
    assert all(len(load) == 2 and min(load) >= 0 for load in table.load5)      # the 5-minute average too
    shared = table[(table.n_samples == 600) & (table.n_hidden == 40)]
    assert set(shared.axis) == {"N", "d"}
    for _, group in shared.groupby("phase"):
        assert group.times.iloc[0] == group.times.iloc[1]          # one measurement on both axes
        assert group.seconds.iloc[0] == np.median(group.times.iloc[0])
    assert table.gflop.iloc[0] == pytest.approx(2 * 300 * 784 * 40 / 1e9)


def test_factorization_and_gemm_in_fresh_processes():
    table = complexity.factorization_sweep([64, 128, 256], repeats=2)
    assert list(table.order) == [64, 128, 256] and all(len(t) == 2 for t in table.times)
    assert table.gflop.iloc[-1] == pytest.approx(256**3 / 3 / 1e9)
    gemm = complexity.measure_gemm(128, 2)
    assert gemm["best"] >= gemm["median"] > 0 and gemm["repeats"] == 2 and gemm["kernels"]
    assert complexity.load_range(table) == (min(min(v) for v in table.load), max(max(v) for v in table.load))
    with pytest.raises(RuntimeError, match="failed in its process"):
        complexity.isolated("factorization_run", {"order": -1})


def test_spd_matrix_is_positive_definite():
    A = complexity.spd_matrix(300, seed=3)
    assert np.allclose(A, A.T) and np.linalg.eigvalsh(A).min() > 0 and A.flags.f_contiguous


# -- the peers -----------------------------------------------------------------------------------
ONE_FIT = {"command": "python -m benchmarks.peers", "date": "2026-11-24",
           "fits": [{"library": "greenelm-float64", "d": 4000, "fit (s)": 15.0, "accuracy (%)": 96.85, "peak (GB)": 1.1},
                    {"library": "greenelm-float32", "d": 4000, "fit (s)": 8.0, "accuracy (%)": 96.85, "peak (GB)": 1.0},
                    {"library": "hpelm", "d": 4000, "fit (s)": 20.0, "accuracy (%)": 96.9, "peak (GB)": 1.4},
                    {"library": "broken", "d": 4000, "fit (s)": None, "accuracy (%)": None, "peak (GB)": 0.1,
                     "note": "ImportError"}],
           "streaming": [{"library": "greenelm", "d": 2000, "B": 250, "update (s)": 0.1, "accuracy (%)": 94.5,
                          "peak (GB)": 0.9},
                         {"library": "pyoselm", "d": 2000, "B": 250, "update (s)": 1.5, "accuracy (%)": 93.7,
                          "peak (GB)": 1.3}]}


def test_peer_tables_read_one_fit_records_with_floors_at_the_given_rate():
    fits, stream = complexity.peer_tables(ONE_FIT, gemm_gflops=100.0)
    floor = fit_flops(60000, 784, 4000, 10).total / 100e9
    g = fits.set_index("library")
    assert g.loc["greenelm-float64", "× floor"] == pytest.approx(15.0 / floor)
    assert math.isnan(g.loc["greenelm-float32", "× floor"])           # no float32 rate here
    assert g.loc["hpelm", "× greenelm"] == pytest.approx(20 / 15) and g.loc["hpelm", "runs"] == 1
    assert g.loc["broken", "runs"] == 0 and math.isnan(g.loc["broken", "fit (s)"])
    s = stream.set_index("library")
    assert s.loc["pyoselm", "× greenelm"] == pytest.approx(15.0)
    assert s.loc["greenelm", "× floor"] == pytest.approx(0.1 / (3 * 2000**2 * 250 / 100e9))


def test_peer_tables_read_repeated_records_as_medians():
    repeated = json.loads(json.dumps(ONE_FIT))
    repeated["n_train"] = 30000
    repeated["fits"][0] = {"library": "greenelm-float64", "d": 4000, "fit (s)": 14.0, "fit runs (s)": [14.0, 16.0, 13.0],
                           "accuracy (%)": [96.8, 96.9, 96.85], "peak (GB)": [1.0, 1.2, 1.1]}
    repeated["streaming"][1]["update runs (s)"] = [1.0, 3.0, 2.0, 2.5, 1.5]
    fits, stream = complexity.peer_tables(repeated, gemm_gflops=100.0)
    g = fits.set_index("library").loc["greenelm-float64"]
    assert g["fit (s)"] == 14.0 and g["runs"] == 3 and g["accuracy (%)"] == pytest.approx(96.85)
    assert g["peak (GB)"] == 1.2 and g["N"] == 30000
    assert g["× floor"] == pytest.approx(14.0 / (fit_flops(30000, 784, 4000, 10).total / 100e9))
    assert stream.set_index("library").loc["pyoselm", "update (s)"] == 2.0


def test_peer_tables_show_the_reports_own_same_run_ratios():
    """A report's ratios come from its own run (each round's GEMM rate); the chapter's rate is not used."""
    report = json.loads(json.dumps(ONE_FIT))
    report["fits"][2].update({"ratio to greenelm float64": 1.25, "ratio to floor": 1.5})
    report["streaming"][0]["ratio to floor"] = 1.1
    fits, stream = complexity.peer_tables(report, gemm_gflops=100.0)
    assert tuple(fits.set_index("library").loc["hpelm", ["× greenelm", "× floor"]]) == (1.25, 1.5)
    assert fits.set_index("library").loc["greenelm-float64", "× greenelm"] == 1.0      # recomputed: none given
    assert stream.set_index("library").loc["greenelm", "× floor"] == 1.1


def test_peer_tables_refuse_another_file_and_read_the_committed_one():
    with pytest.raises(ValueError, match="no list 'fits'"):
        complexity.peer_tables({"rows": []}, 100.0)
    committed = json.loads((ROOT / "benchmarks" / "peers.json").read_text())
    fits, stream = complexity.peer_tables(committed, 100.0)
    assert "greenelm-float64" in set(fits.library) and len(stream) >= 2
    assert fits.set_index("library").loc["greenelm-float64", "× greenelm"] == 1.0


def test_record_peers_keeps_every_run(tmp_path):
    store = ChapterResults("hardware", "smoke", tmp_path)
    repeated = json.loads(json.dumps(ONE_FIT))
    repeated["fits"][0]["fit runs (s)"] = [14.0, 16.0, 13.0]
    fits, stream = complexity.peer_tables(repeated, 100.0)
    complexity.record_peers(store, fits, stream, repeated)
    assert store.results["mnist/peers/greenelm-float64/n=60000/d=4000/fit-seconds"].values == (14.0, 16.0, 13.0)
    assert "mnist/peers-streaming/pyoselm/d=2000/b=250/update-seconds" in store.results
    assert not any("broken" in key for key in store.results)            # a failed row records nothing


def test_count_sentence_names_the_rows_whose_count_departs():
    timings = _synthetic([1000, 2000, 4000], [250, 500, 1000], 250, 2000)
    table = complexity.exponent_table(timings, _factorization([200, 400, 800]), CLAIMS, 50.0)
    assert complexity.count_sentence(table).startswith("The FLOP model has the paper's exponent on every row")
    table.loc[table.phase == "gram", "count"] = 1.5
    assert "Gram HᵀH against N (1.50)" in complexity.count_sentence(table)


def test_the_papers_solver_seconds_are_quoted_from_the_constants():
    from greenelm_book import paper

    words = complexity.paper_seconds_words(paper.TABLE_IV.set_index("solver"))
    assert words == {"paper_iv_seconds": "pinv 74.1 s, LU 5.8 s, Cholesky 6.4 s", "paper_ratio_terms": "74.1 s / 5.8 s",
                     "paper_table4_pinv_seconds": "74.1 s", "paper_table1_pinv_seconds": "1.50 s"}


def test_the_no_gpu_claim_s_contrast_is_undecided_by_the_cnns_trained_on_the_cpu():
    """Issue 61: the claim "unlike deep CNNs, which need high-end GPUs … Green-ELM relies on standard linear
    algebra" was first judged "holds" on its second part alone, then "partly holds" on a two-layer CNN trained
    on a CPU; the claim names no depth and no time that counts as need, so the CNNs trained on a CPU decide no
    contrast and the claim, by the rule for a claim of parts, is inconclusive; a GPU present refutes the first
    part. With the frontier's airbench94 trained on a CPU too, the page no longer says "the one CNN"."""
    from greenelm_book.chapters import complexity as cx

    assert cx.no_gpu_verdict(120.0, [60.0, 110.0], has_gpu=False).label == "inconclusive"
    small = cx.no_gpu_verdict(120.0, [60.0, 110.0], has_gpu=False,
                              cnns=[("CIFAR-10's SGD + Conv, 69.38 % in 354 s", 2)])
    assert small.label == "inconclusive" and "69.38 % in 354 s" in small.ours
    assert "has 2 convolutional layers: not a deep network, so it tests no contrast" in small.ours
    assert "so no CNN trained here decides it (undecided)" in small.detail
    both = cx.no_gpu_verdict(120.0, [60.0, 110.0], has_gpu=False,
                             cnns=[("CIFAR-10's SGD + Conv, 69.38 % in 354 s", 2), ("airbench94, 93.98 % in 42 min", 7)])
    assert both.label == "inconclusive" and "the one CNN" not in both.ours
    assert both.ours.endswith("are CIFAR-10's SGD + Conv, 69.38 % in 354 s, with 2 convolutional layers; and airbench94, "
                              "93.98 % in 42 min, with 7 convolutional layers: a CNN of the last one's depth trains "
                              "without a GPU, and none deeper is trained here")
    assert cx.no_gpu_verdict(120.0, [60.0, 110.0], has_gpu=True, cnns=[("x", 2)]).label == "does not hold"
    assert cx.conv_layers("conv3x3-32, pool, conv3x3-64, pool, dense 128, 10") == 2 and cx.conv_layers(None) is None


def test_the_ratio_test_words_name_the_label_and_never_a_comparative():
    """Table IV's pinv / LU ratio beside the paper's: the ratio test judges direction and order of magnitude,
    so the sentence names its label and why, never "larger than the paper's"."""
    from greenelm_book.report import Verdict

    few = Verdict("inconclusive", "ratio 13.70×", "n = 1 and 1, the test needs 5 per side (another machine: "
                                                  "direction and order of magnitude only)")
    words = complexity.ratio_test_words(few)
    assert words == "inconclusive (too few runs for the test)" and "larger" not in words and "smaller" not in words
    agree = Verdict("concordant", "ratio 11.0×", "the 95 % CI lies above 1 and within ×/÷ 3 of 12.8×")
    assert complexity.ratio_test_words(agree) == "concordant (the 95 % CI lies above 1 and within ×/÷ 3 of 12.8×)"


def test_linear_in_n_words_name_only_the_reason_the_undecided_verdicts_give():
    """Finding 8/9 of issue 61's reading: "undecided … (timings not recorded as quiet, or an interval on a
    boundary)" as an either/or, where every verdict gave the quiet rule's reason."""
    from greenelm_book.report import Verdict

    quiet = Verdict("inconclusive", "0.95", "a timing not recorded as quiet cannot decide (the quiet rule): MNIST, "
                    "n=5000 60000: the 1-minute load average (1.86) above 0.5")
    straddles = Verdict("inconclusive", "0.95", "the interval straddles the margin")
    assert complexity.linear_n_words([quiet, quiet]) == "undecided by the test above (busy timings) about"
    assert complexity.linear_n_words([quiet, straddles]) == (
        "undecided by the test above (busy timings; its interval includes no difference) about")
    assert complexity.linear_n_words([Verdict("holds", "1.0", "t"), Verdict("holds", "1.0", "t")]) == "consistent with"
    assert complexity.linear_n_words(["holds", "partly holds"]) == "by the test above, not consistent with"
    assert "or an interval" not in complexity.linear_n_words([quiet])


def test_a_streaming_rows_accuracy_names_the_rows_its_model_saw():
    """Finding 5 of issue 61's reading: greenelm streaming 95.25 % against its batch fit's 96.85 % at d = 4,000,
    unexplained: the stream's model has seen its initial block and updates, not all 60,000 rows."""
    report = json.loads((Path(__file__).resolve().parents[1] / "benchmarks" / "peers.json").read_text())
    fits, stream = complexity.peer_tables(report, gemm_gflops=100.0)
    rows = stream.set_index(["library", "d"])["rows fitted"]
    assert rows[("greenelm", 4000)] == 5000 + 20 * 250 and rows[("pyoselm", 4000)] == 5000 + 4 * 250
    said = complexity.stream_accuracy_sentence(fits, stream)
    assert "greenelm 10,000; greenelm-gathered 10,000; pyoselm 6,000 rows, of the 60,000 the fits use" in said
    assert said.endswith("not comparable with the fits' accuracy, nor between libraries that saw different rows.")
    small = dict(report, command="python -m benchmarks.peers --rows 3000")
    assert complexity.stream_rows_fitted(small, {"updates": 4, "B": 250}) == 1000 + 1000
    assert complexity.stream_rows_fitted(report, {"updates": 4, "B": 250, "initial rows": 200}) == 1200
    assert complexity.stream_accuracy_sentence(fits, stream.iloc[0:0]) == ""
