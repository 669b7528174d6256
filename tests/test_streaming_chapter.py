"""The streaming chapter's functions (greenelm_book.chapters.streaming) on tiny streams: keys written and
their values, tables, prose numbers, answers and their verdicts; and latencies shown as medians."""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest

from greenelm.features import RandomReLUFeatures
from greenelm_book.chapters import streaming as st
from greenelm_book.paper import CLAIMS
from greenelm_book.judging.rejudge import judge_claim
from greenelm_book.report import judge_latency, judge_time, median_text
from greenelm_book.store.results import ChapterResults
from greenelm_book.chapters.streaming_harness import make_stream_data, streaming_benchmark
from greenelm_book.chapters.transfer import feature_split
from greenelm_book.judging.verdicts import timing_across_machines

N_HIDDEN, BATCH = 24, 10


def blobs(n, width, seed, n_classes=10):
    rng = np.random.default_rng(seed)
    y = np.arange(n) % n_classes
    centres = np.random.default_rng(99).normal(size=(n_classes, width))
    return centres[y] + 0.3 * rng.normal(size=(n, width)), y


@pytest.fixture(scope="module")
def streams():
    data = {}
    splits = {"backbone": feature_split("cifar10-test", *blobs(200, 16, 0), *blobs(60, 16, 1)),
              "pixels": feature_split("cifar10", *blobs(200, 12, 2), *blobs(60, 12, 3))}
    for name, split in splits.items():
        projection = RandomReLUFeatures(split.X_train.shape[1], N_HIDDEN, 0, weight_scale="he", bias="normal")
        data[name] = make_stream_data(split, projection, 0.8)
    return st.Streams(data, splits["backbone"], "efficientnet_lite0", "EfficientNet-Lite0", 64, 200,
                      N_HIDDEN, BATCH, 1e-3, 0)


@pytest.fixture(scope="module")
def bench(streams):
    return {name: streaming_benchmark(streams.data[name], BATCH, 1e-3, ["listing3", "cholesky"], ["numpy"],
                                      progress=False) for name in ("backbone", "pixels")}


@pytest.fixture
def cached(monkeypatch):
    """The chapter's memoised computations run directly (fingerprinting code takes seconds); the
    (name, params) of each are kept for the tests to read."""
    calls = []

    def run(name, params, compute, **_):
        calls.append((name, params))
        return compute(), {"cached": False}

    monkeypatch.setattr(st, "memoize", run)
    return calls


@pytest.fixture
def store(tmp_path, monkeypatch, cached):
    monkeypatch.setenv("GREENELM_CACHE", str(tmp_path / "cache"))
    return ChapterResults("streaming", "smoke", tmp_path)


def test_median_text_and_judge_latency_show_the_median_and_iqr():
    values = [0.4, 0.5, 0.6, 0.7, 2.0]
    assert median_text(values) == "median 0.600 s (IQR 0.500–0.700, n = 5)"
    assert median_text([9.63], digits=2) == "9.63 s (n = 1)"
    verdict = judge_latency(1.2, values)
    assert verdict.label == "not comparable" and verdict.ours == median_text(values)
    assert "ours / paper's = 0.5," in verdict.detail           # median 0.6 / 1.2, not the mean 0.84
    assert judge_time(1.2, values).ours.startswith("0.84 ±")
    assert timing_across_machines(1.2, values, 3, median=True) == verdict
    assert timing_across_machines(1.2, values, 2) == judge_time(1.2, values)


def test_a_millisecond_latency_keeps_two_significant_figures():
    assert median_text([0.0020, 0.0021, 0.0023], "s", 3) == "median 0.0021 s (IQR 0.0020–0.0022, n = 3)"
    assert median_text([0.00042], "s", 3) == "0.00042 s (n = 1)"
    assert median_text([0.4, 0.5, 0.6], "s", 3).startswith("median 0.500 s")        # 3 decimals suffice
    assert judge_latency(0.0179, [0.0020, 0.0021, 0.0023]).ours.startswith("median 0.0021 s")


def test_the_scorecard_shows_a_latency_as_the_chapter_did(store):
    seconds = store.record("cifar10-efficientnet-lite0/green-elm/stream/listing3/numpy/d=24/b=10/update-seconds",
                           [0.4, 0.5, 0.6, 0.7, 2.0], "s", dataset="cifar10")
    claim = next(c for c in CLAIMS if c.id == "table5_streaming_cpu_latency")
    for verdict, expected in ((judge_latency(claim.value, seconds.values), "median 0.600 s"),
                              (judge_time(claim.value, seconds.values), "0.84 ± 0.66 s")):
        answer = store.answer(claim.id, verdict, keys=[seconds.key])
        judged = judge_claim(claim, answer, {seconds.key: seconds}, {claim.id: answer})
        assert judged.test == "timing_across_machines" and judged.verdict.ours.startswith(expected)


def test_setting_and_names(streams):
    setting = streams.setting("pixels", method="cholesky")
    assert setting["n_initial"] == 160 and setting["n_stream"] == 40 and setting["n_test"] == 60
    assert setting["features"] == "raw pixels (3072-d)" and setting["method"] == "cholesky"
    assert streams.dataset == {"backbone": "cifar10-efficientnet-lite0", "pixels": "cifar10"}
    assert streams.features["backbone"] == "EfficientNet-Lite0 embeddings (16-d, 64 px)"


def test_latency_records_tables_and_words(store, streams, bench):
    keys = st.record_latency(store, streams, bench)
    assert set(keys) == {(n, m, "numpy") for n in ("backbone", "pixels") for m in ("listing3", "cholesky")}
    listing3 = keys["backbone", "listing3", "numpy"]
    assert listing3.key == "cifar10-efficientnet-lite0/green-elm/stream/listing3/numpy/d=24/b=10/update-seconds"
    assert listing3.n == 4 and listing3.unit == "s" and listing3.setting["dtype"] == "float64"
    frame = st.latency_frame(keys)
    row = frame[(frame.features == "backbone") & (frame["update"] == st.NAMES["listing3"])].iloc[0]
    assert row["median (s)"] == pytest.approx(np.median(listing3.values)) and row["batches"] == 4
    ratios = st.record_ratios(store, streams, bench["backbone"])
    assert list(ratios) == ["numpy"] and ratios["numpy"].unit == "×"
    np.testing.assert_allclose(ratios["numpy"].values, np.asarray(listing3.values)
                               / np.asarray(keys["backbone", "cholesky", "numpy"].values))
    costs = st.update_costs(bench["backbone"], N_HIDDEN, BATCH, ["listing3", "cholesky"])
    assert costs.flops["listing3"] > costs.flops["cholesky"] > 0
    assert costs.over_floor() == pytest.approx(costs.medians[("cholesky", "numpy")] / costs.floor_seconds)
    assert st.ratio_frame(ratios, costs)["batches"].tolist() == [4]
    words = st.latency_words(ratios, costs)
    assert words["speedup_numpy"] == pytest.approx(np.median(ratios["numpy"].values))
    assert words["speedup_numpy_q1"] <= words["speedup_numpy"] <= words["speedup_numpy_q3"]
    assert words["torch_sentence"] == "(torch's CPU backend: no ratio measured.)"
    assert words["speedup_words"].endswith(("times faster", "times slower")) or words["speedup_words"].startswith(
        "no direction judged (")
    # the load the quiet rule read is printed beside the ratio (finding 7 of issue 61's reading: none shown)
    assert words["load_text"] == "the 1- and 5-minute load averages were not recorded"      # none read here
    quiet = {"numpy": dataclasses.replace(ratios["numpy"], setting={**ratios["numpy"].setting,
                                                                      "load_average": [0.1, 0.2, 0.3]})}
    assert st.latency_words(quiet, costs)["load_text"] == \
        "the 1- and 5-minute load averages (0.1, 0.2) were at most 0.5"


def test_oracle_records_exactness_and_words(store, streams, bench, cached):
    oracle = st.record_oracle(store, streams, bench, accuracy_seeds=2)
    assert cached == [("streaming-oracle-accuracy", {"dataset": "cifar10/efficientnet_lite0", "subset": 200,
                                                     "image_size": 64, "n_hidden": 24, "alpha": 1e-3,
                                                     "seeds": [0, 1]})]
    assert oracle.accuracy.n == 2 and oracle.accuracy.setting["seeds"] == [0, 1]
    assert set(oracle.distance) == {"backbone", "pixels"} and oracle.distance["pixels"].n == 2
    assert oracle.stream_accuracy["backbone"].key == "cifar10-efficientnet-lite0/green-elm/stream/d=24/b=10/accuracy"
    exact, distance = st.exactness(bench, oracle)
    assert exact and distance < 1e-8
    assert st.exactness_lines(bench)[0] == ("backbone: every variant ends at the oracle's predictions: True; "
                                            "relative distance < 1e-6: True")
    words = st.oracle_words(streams, oracle, exact, distance)
    assert words["exact_clause"].startswith("every variant") and words["oracle_seeds"] == 2
    # the gap is between the two streams of one projection, never the seeds' mean against one stream; one
    # stream each, so the distance alone, no side (the rule on runs)
    backbone, pixels = oracle.stream_accuracy["backbone"].mean, oracle.stream_accuracy["pixels"].mean
    assert words["backbone_stream"] == backbone and words["n_train"] == 200
    assert words["backbone_vs_pixels"] == (f"{abs(backbone - pixels):.2f} points from the raw-pixel stream's on the "
                                           "means (no direction judged: one run per side)")
    assert len(st.oracle_frame(streams, bench, oracle)) == 2


def test_the_replay_updates_growth_is_judged_on_its_own_first_and_last_updates(store):
    loads = {"load_average": [0.1, 0.2, 0.3]}
    growing = store.record("a/sgd/update-seconds", [0.10, 0.11, 0.10, 0.12, 0.11, 0.2, 0.3, 0.4, 0.5,
                                                    0.61, 0.60, 0.62, 0.59, 0.63], "s", **loads)
    words = st.replay_growth_words(growing)
    assert words["replay_ends"] == 5 and words["replay_first_s"] == pytest.approx(0.11)
    assert words["replay_last_s"] == pytest.approx(0.61)
    assert words["replay_grows"].startswith("the cost grows with the buffer (the same-machine ratio test: its 95 % "
                                            "interval ") and words["replay_grows"].endswith("×, 5 updates a side)")
    unquiet = store.record("b/sgd/update-seconds", growing.values, "s")          # no load read before it
    assert st.replay_growth_words(unquiet)["replay_grows"].startswith("no direction judged (")
    short = st.replay_growth_words(store.record("c/sgd/update-seconds", [0.1, 0.2, 0.3], "s", **loads))
    assert short["replay_ends"] == 1 and short["replay_grows"].startswith("no direction judged (")
    with pytest.raises(ValueError, match="2 updates at least"):
        st.replay_growth_words(store.record("d/sgd/update-seconds", [0.1], "s", **loads))


def test_answers_of_table5_and_the_update(store, streams, bench):
    keys = st.record_latency(store, streams, bench)
    oracle = st.record_oracle(store, streams, bench, accuracy_seeds=1)
    sgd = {"backbone": pd.Series({"buffer_rows": 200})}
    sgd_keys = {("backbone", "seconds"): store.record("a/sgd/update-seconds", [0.2, 0.3, 0.5], "s"),
                ("backbone", "accuracy"): store.record("a/sgd/accuracy", [50.0], "%"),
                ("pixels", "accuracy"): store.record("b/sgd/accuracy", [40.0], "%")}
    st.answer_table5(store, streams, keys, oracle, sgd_keys, ["numpy"])
    answers = store.answers
    listing3 = keys["backbone", "listing3", "numpy"]
    assert answers["table5_streaming_cpu_latency"].verdict.ours == median_text(listing3.values, "s", 3)
    assert answers["table5_sgd_latency"].verdict.ours == "median 0.300 s (IQR 0.250–0.400, n = 3)"
    assert answers["table5_oracle_latency"].verdict == judge_time(14.5, oracle.seconds["backbone"].values)
    assert answers["table5_streaming_cuda_latency"].verdict.label == "not measurable here"
    assert answers["table5_oracle_accuracy"].verdict.label == "not comparable"    # not the paper's backbone
    assert answers["table5_streaming_cuda_accuracy"].verdict.label == "not measurable here"
    costs = st.update_costs(bench["backbone"], N_HIDDEN, BATCH, ["listing3", "cholesky"])
    st.answer_update_claims(store, streams, keys, oracle, sgd, sgd_keys, costs, True, 1e-14)
    assert answers["streaming_rls_exact"].verdict.label == "holds"
    assert "0 rows; the replay SGD keeps 200 rows" in answers["streaming_no_sample_retention"].verdict.ours
    # device claims: the chapter records the scorecard's label (no embedded device or edge node here),
    # with this CPU's update seconds for information
    for claim in ("listing3_sub_second_updates", "streaming_update_cost_b3"):
        assert answers[claim].verdict.label == "not measurable here", claim
    assert "for information, ours" in answers["listing3_sub_second_updates"].verdict.detail
    table = st.table5_latency(sgd_keys, oracle, keys, ["numpy"])
    assert table["paper (s)"].tolist() == [2.4, 14.5, 1.3514, 1.3514]
    assert table["ours, median (s)"].iloc[0] == pytest.approx(0.3)
    sgd_keys["pixels", "seconds"] = sgd_keys["backbone", "seconds"]
    accuracy = st.table5_accuracy(sgd_keys, oracle, bench, ["numpy"])
    assert np.isnan(accuracy["ours, backbone (%)"].iloc[3]) and accuracy["ours, backbone (%)"].iloc[0] == 50.0


def test_the_committed_gpu_report_gives_table5_its_cuda_row(store, streams, bench, tmp_path):
    import json

    from greenelm_book.store.results import ROOT

    gpu = st.record_gpu_latency(store)                       # benchmarks/gpu.json, from the repository
    report = json.loads((ROOT / st.GPU_REPORT).read_text())
    rows = {(r["method"], r["backend"]): r for r in report["streaming"]}
    assert set(gpu.seconds) == set(rows) and gpu.gpu == report["gpu"]
    listing3 = gpu.seconds["listing3", "torch-cuda"]
    assert listing3.values == tuple(rows["listing3", "torch-cuda"]["seconds"])
    assert np.median(listing3.values) == pytest.approx(rows["listing3", "torch-cuda"]["median_seconds"])
    assert listing3.setting["source"] == "benchmarks/gpu.json" and listing3.setting["device"] == report["gpu"]
    assert gpu.max_distance == max(r["relative_difference"] for r in report["streaming"]) < 1e-8
    words = st.gpu_words(gpu)
    cuda_ms = 1e3 * np.median(listing3.values)
    assert f"listing 3's update takes a median {cuda_ms:.2f} ms" in words["gpu_text"]
    ratio = np.median(gpu.seconds["listing3", "numpy"].values) / np.median(listing3.values)
    assert f"NumPy on the same host ({report['machine']}) takes {ratio:.0f}×" in words["gpu_text"]
    assert f"the {3 * gpu.n_hidden**2 * gpu.batch_size / 1e9:.1f} GFLOP of that leading term" in words["gpu_text"]
    assert words["gpu_finding"].startswith(f"re-measured on an {report['gpu']} (the committed GPU report): {cuda_ms:.2f} ms")
    keys = st.record_latency(store, streams, bench)
    oracle = st.record_oracle(store, streams, bench, accuracy_seeds=1)
    sgd_keys = {("backbone", "seconds"): store.record("a/sgd/update-seconds", [0.2, 0.3, 0.5], "s"),
                ("backbone", "accuracy"): store.record("a/sgd/accuracy", [50.0], "%")}
    table = st.table5_latency(sgd_keys, oracle, keys, ["numpy"], gpu)
    assert table["Table V row"].iloc[-1] == "Streaming, CUDA" and table["paper (s)"].iloc[-1] == 0.0179
    assert table["ours, median (s)"].iloc[-1] == pytest.approx(np.median(listing3.values))
    st.answer_table5(store, streams, keys, oracle, sgd_keys, ["numpy"], gpu)
    latency = store.answers["table5_streaming_cuda_latency"].verdict
    assert latency == judge_latency(0.0179, listing3.values) and latency.label == "not comparable"
    cuda_accuracy = store.answers["table5_streaming_cuda_accuracy"]
    assert cuda_accuracy.verdict.label == "not measurable here"        # the GPU report streams no backbone
    assert cuda_accuracy.keys == () or not cuda_accuracy.keys            # no CPU value shown as the CUDA one
    assert "no backbone stream ran on a GPU" in cuda_accuracy.verdict.detail
    assert f"the paper: {1e3 * 0.0179:.1f} ms on its GPU" in words["gpu_finding"]
    assert words["paper_streaming_accuracies"] == "87.53 % and 87.65 %"
    # no report: no CUDA row, and the claim stays not measurable
    assert st.record_gpu_latency(store, tmp_path / "absent.json") is None and st.record_gpu_latency(store, None) is None
    assert st.record_gpu_latency(store, st.GPU_REPORT, n_hidden=300, batch_size=50) is None      # another d, B
    assert st.record_gpu_latency(store, st.GPU_REPORT, gpu.n_hidden, gpu.batch_size) is not None
    assert "not measured" in st.gpu_words(None)["gpu_finding"]
    assert "Streaming, CUDA" not in st.table5_latency(sgd_keys, oracle, keys, ["numpy"]).values


def test_forgetting_records_answer_and_words(store, streams, cached):
    runs, keys = st.run_forgetting(store, streams, 12, [0, 1], n_tasks=5, epochs=1, buffer_size=20,
                                   batch_size=20, lr=1e-2)
    assert cached[0][0] == "streaming-forgetting" and cached[0][1]["seeds"] == [0, 1]
    assert cached[0][1]["minibatch"] == 128 and cached[0][1]["alpha"] == 1e-3
    assert set(keys) == {(m, q) for m in st.FORGETTING_METHODS for q in ("accuracy_earlier", "accuracy_seen")}
    rls = keys["exact RLS", "accuracy_earlier"]
    assert rls.key == "cifar10-efficientnet-lite0/green-elm-rls/class-incremental/tasks=5/d=12/accuracy-earlier"
    assert rls.n == 2 and "lr" not in rls.setting and keys["SGD with replay", "accuracy_seen"].setting["buffer_size"] == 20
    frame = st.forgetting_frame(runs, keys, 5)
    assert frame.learner.tolist() == list(st.FORGETTING_METHODS) and frame["rows kept"].iloc[0] == 0
    words = st.answer_forgetting(store, runs, keys, 5, 20)
    assert words["f_verdict"] == store.answers["streaming_sgd_catastrophic_forgetting"].verdict.label
    assert words["f_conclusion"] == st._FORGETTING_CONCLUSIONS[words["f_verdict"]]
    assert words["f_rls_earlier"] == rls.mean and words["f_seeds"] == 2


def test_drift_tables_lines_and_answer(store):
    final = pd.DataFrame({"updates": [50] * 5, "relative_error": [1e-14, 1e-5, 2e-14, 3e-5, np.nan],
                          "failed": [False, False, False, False, True]},
                         index=pd.MultiIndex.from_tuples([("cholesky", "float64"), ("cholesky", "float32"),
                                                          ("listing3", "float64"), ("listing3", "float32"),
                                                          ("information", "float32")], names=["method", "dtype"]))
    keys = {k: store.record(f"mnist/{k[0]}/{k[1]}/drift", [row.relative_error], "")
            for k, row in final.iterrows() if np.isfinite(row.relative_error)}
    frame = st.drift_frame(final, keys)
    assert frame["‖W − W_exact‖ / ‖W_exact‖"].tolist()[-1] == "lost definiteness"
    assert st.drift_lines(final)[0] == "cholesky    float64: 50 updates, failed: False, relative error below 1e-08: True"
    words = st.answer_drift(store, final.reset_index(), final, keys, 10, 24)
    # one stream: the seeds rule leaves the test's "holds" undecided (issue 61: "holds" on one stream)
    drift = store.answers["streaming_float64_mitigates_drift"].verdict
    assert drift.label == "inconclusive" and "the test gives holds" in drift.detail
    assert words["drift_f32"] == 1e-5 and words["drift_updates"] == 50 and np.isnan(words["drift_information_f32"])


def test_a_decided_speed_direction_prints_the_interval_that_decided_it():
    """Issue 61: the streaming page stated "2.81 times faster" with no interval beside it, while the conclusion
    gave the interval; both now print it, and an undecided direction is left as it is."""
    ratios = [2.7, 2.8, 2.9, 2.75, 2.85]
    _, low, high = st.ratio_interval(ratios)
    assert st.decided_with_interval("2.80 times faster", ratios) == \
        f"2.80 times faster (its 95 % interval {low:.2f}–{high:.2f}×, 5 batches)"
    undecided = "no direction judged (busy timings)"
    assert st.decided_with_interval(undecided, ratios) == undecided
