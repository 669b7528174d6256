"""greenelm_book.chapters.footprint: model files, SGD FLOP counts, training footprints, RAPL arithmetic, and
the hardware chapter's record and verdict functions built on them."""

import numpy as np
import pytest

from greenelm.solvers import fit_flops
from greenelm_book.chapters import footprint
from greenelm_book.store.results import ChapterResults


def test_sgd_mlp_flops_by_hand():
    # D=3, h=2, k=4, N=5, E=2, batch 2 -> 3 batches per epoch; 2*3+2+2*4+4 = 20 parameters
    f = footprint.sgd_mlp_flops(5, 3, 2, 4, 2, 2)
    assert f["forward"] == 2 * 2 * 5 * (3 * 2 + 2 * 4)
    assert f["backward"] == 2 * 2 * 5 * 3 * 2 + 4 * 2 * 5 * 2 * 4
    assert f["update"] == 4 * 2 * 3 * 20
    assert f["total"] == f["forward"] + f["backward"] + f["update"]


def test_sgd_mlp_flops_linear_in_samples_and_epochs():
    base = footprint.sgd_mlp_flops(6000, 784, 64, 10, 1, 60)
    assert footprint.sgd_mlp_flops(12000, 784, 64, 10, 1, 60)["total"] == pytest.approx(2 * base["total"])
    assert footprint.sgd_mlp_flops(6000, 784, 64, 10, 10, 60)["total"] == pytest.approx(10 * base["total"])
    # the paper's Table I MLP on full MNIST: about 0.12 TFLOP, a third of a Green-ELM fit at d = 2000
    table1 = footprint.sgd_mlp_flops(60000, 784, 64, 10, 10, 64)["total"]
    assert 1.2e11 < table1 < 1.3e11 < fit_flops(60000, 784, 2000, 10).total


@pytest.mark.parametrize("kwargs", [dict(n_samples=0), dict(epochs=1.5), dict(batch_size=-1),
                                    dict(n_hidden=True)])
def test_sgd_mlp_flops_rejects_bad_sizes(kwargs):
    args = dict(n_samples=10, n_inputs=3, n_hidden=2, n_outputs=2, epochs=1, batch_size=4) | kwargs
    with pytest.raises(ValueError, match=next(iter(kwargs))):
        footprint.sgd_mlp_flops(**args)


def test_storage_footprint_seed_file_is_small_and_reproduces_predictions(tmp_path):
    rng = np.random.default_rng(0)
    X, y = rng.random((120, 30)), rng.integers(0, 3, 120)
    small = footprint.storage_footprint(X[:100], y[:100], X[100:], n_hidden=40, directory=tmp_path)
    large = footprint.storage_footprint(X[:100], y[:100], X[100:], n_hidden=80, directory=tmp_path)
    for s, d in ((small, 40), (large, 80)):
        assert s["projection_bytes"] == (30 * d + d) * 8 and s["readout_bytes"] == d * 3 * 8
        assert s["weights_file_bytes"] > s["projection_bytes"] + s["readout_bytes"]
        assert s["seed_file_bytes"] < s["weights_file_bytes"] - s["projection_bytes"] + 4096
        assert s["labels_identical"] and s["max_score_difference"] == 0.0
    # the weights file grows with D·d, the seed file only with d·k
    grow_weights = large["weights_file_bytes"] - small["weights_file_bytes"]
    grow_seed = large["seed_file_bytes"] - small["seed_file_bytes"]
    assert grow_weights == pytest.approx(40 * (30 + 1 + 3) * 8, abs=64)
    assert grow_seed == pytest.approx(40 * 3 * 8, abs=64)
    assert list(tmp_path.iterdir()) == []          # the temporary files are removed


def test_package_counters_skip_sub_zones_and_joules_undo_a_wrap():
    counters = {"/sys/class/powercap/intel-rapl:0/energy_uj": 10,
                "/sys/class/powercap/intel-rapl:0:0/energy_uj": 5,
                "/sys/class/powercap/intel-rapl:1/energy_uj": 7}
    packages = footprint.package_counters(counters)
    assert sorted(packages) == ["/sys/class/powercap/intel-rapl:0/energy_uj",
                                "/sys/class/powercap/intel-rapl:1/energy_uj"]
    before = {"a": 1_000_000, "b": 900}
    assert footprint.counter_joules(before, {"a": 3_000_000, "b": 100}, {"b": 1000}) == pytest.approx(2.0002)
    with pytest.raises(ValueError, match="range is unknown"):
        footprint.counter_joules(before, {"a": 3_000_000, "b": 100})
    with pytest.raises(ValueError, match="different counters"):
        footprint.counter_joules(before, {"a": 1})
    assert footprint.counter_ranges({"/nonexistent/energy_uj": 1}) == {}


def test_training_footprint_measures_both_models():
    elm = footprint.training_footprint("green-elm", n_train=300, n_hidden=50)
    sgd = footprint.training_footprint("sgd-mlp", n_train=256, n_hidden=16, epochs=1, batch_size=64)
    assert elm["flops"] == fit_flops(300, 784, 50, 10).total
    assert sgd["flops"] == footprint.sgd_mlp_flops(256, 784, 16, 10, 1, 64)["total"]
    for r in (elm, sgd):
        assert r["cpu_seconds"] > 0 and r["wall_seconds"] > 0
        assert r["peak_rss_bytes"] >= r["rss_before_bytes"] > 0
    with pytest.raises(ValueError, match="model"):
        footprint.training_footprint("svm", n_train=10, n_hidden=5)


class _Result:
    def __init__(self, mean, key):
        self.mean, self.key = mean, key


def _records(elm_joules=None, sgd_joules=None):
    r = {name: _Result(value, name) for name, value in (("elm_flops", 4e11), ("sgd_flops", 1e11),
                                                         ("elm_cpu", 12.0), ("sgd_cpu", 10.0),
                                                         ("elm_wall", 6.5), ("sgd_wall", 9.0),
                                                         ("elm_mem", 200.0), ("sgd_mem", 150.0))}
    r["elm_joules"] = None if elm_joules is None else _Result(elm_joules, "elm_joules")
    r["sgd_joules"] = None if sgd_joules is None else _Result(sgd_joules, "sgd_joules")
    return r


def test_energy_answers_need_counters_and_say_so_without():
    without = dict((c, v) for c, v, _ in footprint.energy_answers(_records(), "N = 10"))
    assert without["energy_per_prediction_reduced"].label == "not measurable here"
    assert "4.0× the FLOPs" in without["energy_per_prediction_reduced"].detail
    assert "1.20× the CPU seconds" in without["energy_per_prediction_reduced"].detail
    measured = dict((c, (v, k)) for c, v, k in footprint.energy_answers(_records(50.0, 80.0), "N = 10"))
    verdict, keys = measured["energy_per_prediction_reduced"]
    assert verdict.label == "holds" and verdict.ours == "50 J vs 80 J" and keys == ["elm_joules", "sgd_joules"]
    assert footprint.energy_answers(_records(90.0, 80.0), "")[0][1].label == "does not hold"
    assert "no readable RAPL" in footprint.energy_text(_records())
    assert "50 J" in footprint.energy_text(_records(50.0, 80.0))


def test_activation_and_edge_verdicts():
    small, large = footprint.activation_verdict(230.0, 200.0, 150.0), footprint.activation_verdict(300 * 1024, 200.0, 150.0)
    assert small.label == large.label == "not measurable here"          # no device, no deep network here
    assert "keeps less memory" in small.detail and "keeps more memory" in large.detail
    assert small.ours.startswith("activations 230 KiB per batch vs Green-ELM's 200 MiB")
    edge = footprint.edge_verdict(_records(), 2, 60000, 2000)
    assert edge.label == "not measurable here" and "12.0 CPU s" in edge.detail and "200 MiB" in edge.detail
    table = footprint.training_table(_records(), 2000, 64, 10)
    assert list(table["FLOPs (G)"]) == [400.0, 100.0] and table["model"][1] == "SGD MLP, hidden 64, 10 epochs"
    assert table["model"][0] == "Green-ELM (Cholesky), d = 2000"             # the solver named beside its seconds
    assert list(table["wall, whole call (s)"]) == [_records()["elm_wall"].mean, _records()["sgd_wall"].mean]


def test_storage_table_records_each_width_and_the_verdict_reads_it(tmp_path):
    from types import SimpleNamespace

    rng = np.random.default_rng(0)
    split = SimpleNamespace(X_train=rng.random((80, 200)), y_train=rng.integers(0, 3, 80), X_test=rng.random((10, 200)),
                            y_test=rng.integers(0, 3, 10))
    store = ChapterResults("hardware", "smoke", tmp_path)
    table, keys = footprint.storage_table(store, split, [20, 40], {"dataset": "toy", "alpha": 1e-3}, seed=0)
    assert list(table["width d"]) == [20, 40] and len(keys) == 8 and all(k in store.results for k in keys)
    assert (table["smaller (×)"] > 1).all() and (table["same predictions"] == "yes").all()
    assert footprint.storage_verdict(table).label == "holds"
    table.loc[1, "same predictions"] = "no"
    assert footprint.storage_verdict(table).label == "does not hold"


def test_the_cpu_seconds_are_said_to_count_every_thread_and_checked_against_the_cores():
    """The hardware page's CPU seconds exceeded two cores' wall time of a fit timed elsewhere: the words
    say what CPU seconds count, and a run claiming more CPU time than its cores can give is refused."""
    runs = {"green-elm": {"runs": [{"cpu_seconds": 15.0, "wall_seconds": 8.0}, {"cpu_seconds": 14.0, "wall_seconds": 9.0}]},
            "sgd-mlp": {"runs": [{"cpu_seconds": 20.0, "wall_seconds": 19.0}]}}
    words = footprint.cpu_seconds_words(runs, 2)
    assert "every thread summed" in words and "up to 2 CPU seconds per second of wall time" in words
    assert "(the most a run used: green-elm 1.9×, sgd-mlp 1.1×)" in words
    runs["green-elm"]["runs"].append({"cpu_seconds": 15.0, "wall_seconds": 5.3})    # 2.8 CPU s per second
    with pytest.raises(ValueError, match="green-elm: 15.00 CPU s in 5.30 s of wall time is more than 2 cores"):
        footprint.cpu_seconds_words(runs, 2)


class _Runs:
    """A stored result's fields training_words reads: key, values, setting (its load averages)."""

    def __init__(self, key, values, load=None):
        self.key, self.values = key, list(values)
        self.setting = {"load_average": load} if load else {}


def test_training_words_state_a_direction_only_where_the_test_decides_it():
    quiet, busy = [0.1, 0.2], [0.1, 1.3]
    rec = {"elm_cpu": _Runs("e", [2.0, 2.1, 1.9, 2.0, 2.05], quiet), "sgd_cpu": _Runs("s", [10, 10.5, 9.8, 10.1, 10.2], quiet),
           "elm_mem": _Runs("em", [200, 201, 199, 200, 200]), "sgd_mem": _Runs("sm", [300, 305, 298, 301, 300])}
    words = footprint.training_words(rec)
    assert words == {"cpu_word": "less", "mem_word": "more"}
    rec["sgd_cpu"] = _Runs("s", rec["sgd_cpu"].values, busy)          # a busy run decides no direction
    assert footprint.training_words(rec)["cpu_word"].startswith("no direction judged (")
    rec["sgd_cpu"] = _Runs("s", rec["sgd_cpu"].values[:3], quiet)      # three runs: too few for the test
    rec["elm_cpu"] = _Runs("e", rec["elm_cpu"].values[:3], quiet)
    assert footprint.training_words(rec)["cpu_word"].startswith("no direction judged (")
    from greenelm_book.bench import largest_loads

    assert largest_loads([[0.1, 0.4, 1.0], None, [0.3, 0.2, 0.1]]) == [0.3, 0.4]
    assert largest_loads([None]) is None
    assert largest_loads([[0.1, 0.2, 0.3], [0.2]]) == [0.2]      # a reading without its 5-minute average


def test_memory_is_printed_with_its_spread_and_a_time_saving_only_where_decided():
    """Finding 15 of issue 61's reading: "159 MiB … against Green-ELM's 131 MiB: more" with no spread, and
    "where it saves time, dense BLAS … does" after a CPU-time verdict that decided no direction."""
    rec = {"elm_mem": _Runs("em", [131.3, 131.1, 131.9]), "sgd_mem": _Runs("sm", [158.5, 159.3, 159.5])}
    assert footprint.memory_texts(rec) == {"sgd_mem_text": "159.1 ± 0.5 MiB (n = 3)",
                                           "elm_mem_text": "131.4 ± 0.4 MiB (n = 3)"}
    undecided = footprint.flop_sentence(2.5, "no direction judged (inconclusive: busy timings)")
    assert "does not save arithmetic" in undecided and "time" not in undecided and "BLAS" not in undecided
    assert footprint.flop_sentence(2.5, "less").endswith(
        "the CPU time it saves comes from dense BLAS running near the machine's GEMM rate, not from fewer operations")
    assert footprint.flop_sentence(0.5, "more") == "so at this size the fit saves arithmetic as well"
    assert footprint.flop_sentence(1.0, "less") == "with the same arithmetic"
