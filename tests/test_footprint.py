"""greenelm_book.footprint (model files, SGD FLOP counts, training footprints, RAPL arithmetic) and
the phase sweep of greenelm_book.bench that the hardware chapter records."""

import numpy as np
import pytest

from greenelm.solvers import fit_flops
from greenelm_book import bench, footprint


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


def test_scaling_sweep_times_a_shared_point_once():
    rng = np.random.default_rng(1)
    X, Y = rng.random((200, 8)), np.eye(3)[rng.integers(0, 3, 200)]
    table = bench.scaling_sweep(X, Y, [100, 200], [10, 20], fixed_width=20, fixed_size=200, repeats=2,
                                progress=False)
    assert len(table) == 4 * 3 and set(table.phase) == set(bench.PHASES)
    assert all(len(t) == 2 and t[0] > 0 for t in table.times)
    shared = table[(table.n_samples == 200) & (table.n_hidden == 20)]
    assert set(shared.axis) == {"N", "d"}
    for phase, group in shared.groupby("phase"):
        assert group.times.iloc[0] == group.times.iloc[1]     # one measurement on both axes
        assert group.seconds.iloc[0] == np.median(group.times.iloc[0])
