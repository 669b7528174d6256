"""The cached SGD runs (greenelm_book.chapters.baselines.sgd_run) and the two-sample comparisons
(greenelm_book.judging.comparisons): caching, rebuilt models, curves, intervals, verdicts, errors."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import torch
from scipy import stats

from greenelm_book.chapters.baselines import SGDConfig, model_from_run, predict, sgd_run, sgd_seeds, train
from greenelm_book.judging.comparisons import accuracy_within, between_interval, equivalence
from greenelm_book.judging.verdicts import judge_between

FAST = SGDConfig(epochs=2, batch_size=50, lr=0.05)


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("GREENELM_CACHE", str(tmp_path / "cache"))
    return tmp_path / "cache"


# --------------------------------------------------------------------------- cached runs
def test_sgd_run_is_cached_and_rebuilds_its_model(cache):
    first = sgd_run("mnist", "perceptron", seed=1, config=FAST, subset=300, device="cpu")
    again = sgd_run("mnist", "perceptron", seed=1, config=FAST, subset=300, device="cpu")
    assert not first["cached"] and again["cached"]
    for key in ("accuracy", "train_seconds", "epochs", "n_train", "n_test", "n_inputs", "n_classes"):
        assert again[key] == first[key]
    pd.testing.assert_frame_equal(again["history"], first["history"])
    assert (first["n_train"], first["n_test"], first["n_inputs"], first["n_classes"]) == (300, 300, 784, 10)
    assert first["history"].epochs.tolist() == [1.0, 2.0]
    assert first["history"].accuracy.iloc[-1] == first["accuracy"]
    # the rebuilt model predicts exactly as a fresh training with the same seed
    from greenelm.data import load_dataset
    ds = load_dataset("mnist", subset=300)
    X, X_test = ds.flat("train", np.float32), ds.flat("test", np.float32)
    fresh = train("perceptron", X, ds.y_train, seed=1, config=FAST, device="cpu")
    rebuilt = model_from_run(again)
    np.testing.assert_array_equal(predict(rebuilt, X_test), fresh.predict(X_test))
    assert 100 * np.mean(predict(rebuilt, X_test) == ds.y_test) == pytest.approx(first["accuracy"])
    # another seed is another run
    other = sgd_run("mnist", "perceptron", seed=2, config=FAST, subset=300, device="cpu")
    assert not other["cached"]
    redone = sgd_run("mnist", "perceptron", seed=1, config=FAST, subset=300, device="cpu", refresh=True)
    assert not redone["cached"] and redone["accuracy"] == first["accuracy"]
    assert not np.array_equal(other["weights"]["weight"], first["weights"]["weight"])


def test_sgd_seeds_frames(cache):
    final, curves, runs = sgd_seeds("mnist", "mlp", [0, 1], FAST, n_hidden=8, subset=200, device="cpu",
                                    progress=False)
    assert final.seed.tolist() == [0, 1] and len(runs) == 2
    assert list(curves.columns) == ["seed", "epochs", "train_seconds", "accuracy"]
    assert curves.groupby("seed").size().tolist() == [2, 2]
    last = curves.groupby("seed").tail(1).reset_index(drop=True)
    np.testing.assert_array_equal(last.accuracy, final.accuracy)
    np.testing.assert_array_equal(last.train_seconds, final.train_seconds)
    assert model_from_run(runs[0])[0].out_features == 8


def test_sgd_run_errors_are_clear(cache):
    with pytest.raises(ValueError, match="unknown model 'svm'"):
        sgd_run("mnist", "svm")
    with pytest.raises(TypeError, match="config must be an SGDConfig"):
        sgd_run("mnist", "mlp", config={"epochs": 1})
    with pytest.raises(ValueError, match="subset"):
        sgd_run("mnist", "mlp", subset=0)
    with pytest.raises(ValueError, match="seeds is empty"):
        sgd_seeds("mnist", "mlp", [], FAST, subset=100, progress=False)


# --------------------------------------------------------------------------- curves
def test_accuracy_within_takes_the_last_epoch_inside_the_budget():
    curves = pd.DataFrame({"seed": [0, 0, 0, 1, 1, 1], "epochs": [1, 2, 3] * 2,
                           "train_seconds": [1.0, 2.0, 3.0, 1.5, 3.0, 4.5],
                           "accuracy": [80.0, 85.0, 90.0, 70.0, 75.0, 78.0]})
    got = accuracy_within(curves, 2.5)
    assert got.epochs.tolist() == [2.0, 1.0] and got.accuracy.tolist() == [85.0, 70.0]
    assert accuracy_within(curves, 10).accuracy.tolist() == [90.0, 78.0]
    early = accuracy_within(curves, 0.5)
    assert early.epochs.tolist() == [0.0, 0.0] and early.accuracy.isna().all()
    with pytest.raises(ValueError, match="positive number"):
        accuracy_within(curves, 0)
    with pytest.raises(ValueError, match="lacks the columns"):
        accuracy_within(curves.drop(columns="seed"), 1)


# --------------------------------------------------------------------------- intervals and verdicts
def test_between_interval_difference_matches_welch():
    a, b = np.array([97.0, 97.2, 97.1, 96.9, 97.3]), np.array([96.0, 96.4, 95.9, 96.1])
    centre, low, high = between_interval(a, b, "difference", "mean")
    assert centre == pytest.approx(a.mean() - b.mean())
    welch = stats.ttest_ind(a, b, equal_var=False).confidence_interval(0.95)
    assert (low, high) == pytest.approx((welch.low, welch.high))
    # a prediction for one new run of each is wider than the interval of the means
    _, plow, phigh = between_interval(a, b, "difference", "prediction")
    assert plow < low and phigh > high and (plow + phigh) / 2 == pytest.approx(centre)


def test_between_interval_ratio_is_symmetric_on_the_log_scale():
    a, b = np.array([10.0, 11.0, 10.5, 9.8, 10.2]), np.array([1.0, 1.1, 0.95])
    ratio, low, high = between_interval(a, b, "ratio")
    assert ratio == pytest.approx(np.exp(np.log(a).mean() - np.log(b).mean()))
    assert low < ratio < high and np.log(ratio) - np.log(low) == pytest.approx(np.log(high) - np.log(ratio))
    # swapping the sides inverts the ratio and its interval
    back, blow, bhigh = between_interval(b, a, "ratio")
    assert (back, blow, bhigh) == pytest.approx((1 / ratio, 1 / high, 1 / low))


def test_between_interval_errors_are_clear():
    with pytest.raises(ValueError, match="at least 2 runs"):
        between_interval([1.0], [1.0, 2.0])
    with pytest.raises(ValueError, match="positive values"):
        between_interval([1.0, -1.0], [1.0, 2.0], "ratio")
    with pytest.raises(ValueError, match="op must be"):
        between_interval([1.0, 2.0], [1.0, 2.0], "sum")
    with pytest.raises(ValueError, match="kind must be"):
        between_interval([1.0, 2.0], [1.0, 2.0], kind="tolerance")
    with pytest.raises(ValueError, match="finite"):
        between_interval([1.0, np.nan], [1.0, 2.0])


def test_judge_between_follows_the_rule():
    rng = np.random.default_rng(0)
    a, b = 98.0 + 0.1 * rng.standard_normal(5), 96.8 + 0.1 * rng.standard_normal(5)
    assert judge_between(a.mean() - b.mean(), a, b).label == "reproduced"
    far = judge_between(3.0, a, b)                      # the ladder of difference_vs_paper: beyond the margin
    assert far.label == "differs, beyond margin" and far.detail.startswith(f"{a.mean() - b.mean() - 3.0:+.2f} pts")
    assert judge_between(1.2, a[:3], b).label == "inconclusive"
    t_sgd, t_elm = np.array([10.9, 11.0, 10.8, 11.1, 10.9]), np.array([20.0, 21.0, 19.5])
    speedup = judge_between(11.6, t_sgd, t_elm, "ratio", unit="×", min_runs=(5, 3))
    # a ratio of timings from separate runs is not judged (ratio_across_machines, same_run=False)
    assert speedup.label == "not comparable" and speedup.ours == f"{np.exp(np.log(t_sgd).mean() - np.log(t_elm).mean()):.2f}× (n = 5 and 3)"
    with pytest.raises(ValueError, match="op must be"):
        judge_between(11.6, t_sgd, t_elm, "sum")


def test_equivalence_decides_only_when_the_interval_is_clear():
    rng = np.random.default_rng(1)
    a = 97.0 + 0.1 * rng.standard_normal(5)
    assert equivalence(a, a + 0.2, margin=1.0)[0] is True
    outcome, low, high = equivalence(a, a + 2.0, margin=1.0)
    assert outcome is False and high < -1.0
    assert equivalence(a, a + 1.0, margin=1.0)[0] is None      # straddles the margin
    assert equivalence(a[:3], a[:3] + 0.2, margin=1.0)[0] is None  # too few runs
    with pytest.raises(ValueError, match="margin"):
        equivalence(a, a, margin=0)


def test_cpu_model_weights_are_plain_arrays(cache):
    run = sgd_run("mnist", "mlp", seed=0, config=SGDConfig(epochs=1, batch_size=100), n_hidden=4, subset=100,
                  device="cpu")
    assert set(run["weights"]) == {"0.weight", "0.bias", "2.weight", "2.bias"}
    assert all(isinstance(w, np.ndarray) and w.dtype == np.float32 for w in run["weights"].values())
    assert run["weights"]["0.weight"].shape == (4, 784)
    assert torch.get_num_threads() == run["threads"]


def test_elm_fit_times_in_a_fresh_process():
    from greenelm_book.bench import run_isolated
    from greenelm_book.judging.comparisons import elm_fit_times

    direct = elm_fit_times("mnist", 20, subset=200, repeats=2)
    assert direct["n_train"] == 200 and len(direct["seconds"]) == 2 and min(direct["seconds"]) > 0
    child = run_isolated("greenelm_book.judging.comparisons:elm_fit_times",
                         {"dataset": "mnist", "n_hidden": 20, "subset": 200, "repeats": 3})
    assert child["ok"], child["error"]
    assert len(child["result"]["seconds"]) == 3 and child["result"]["n_train"] == 200
    with pytest.raises(ValueError, match="solver"):
        elm_fit_times("mnist", 20, solver="qr", subset=200, repeats=1)
