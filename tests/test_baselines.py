"""SGD baselines (greenelm_book.chapters.baselines: training, and the chapter's records, answers, prose numbers
and figures) and rotations (greenelm_book.chapters.perturb): shapes, determinism, learning, exact rotations, keys
written, and clear errors. Small synthetic problems only (fast)."""

from __future__ import annotations

import re
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
import torch

from greenelm_book.chapters import baselines as bl
from greenelm_book.chapters.baselines import (MLP_HIDDEN, SGDConfig, SmallCNN, build_model, predict, sgd_runs,
                                train)
from greenelm_book.chapters.experiments import Split
from greenelm_book.chapters.perturb import accuracy_under_rotation, rotate, rotated_test_sets
from greenelm_book.report import spread_text
from greenelm_book.store.results import ChapterResults

FAST = SGDConfig(epochs=3, batch_size=32, lr=0.05)


def blobs(n_per_class=60, n_inputs=784, n_classes=3, seed=0, spread=0.15):
    """Well separated Gaussian blobs in [0, 1]^D: train and test from the same centres."""
    rng = np.random.default_rng(seed)
    centres = rng.uniform(0.2, 0.8, (n_classes, n_inputs))

    def draw(n):
        y = np.repeat(np.arange(n_classes), n)
        return np.clip(centres[y] + spread * rng.standard_normal((len(y), n_inputs)), 0, 1), y
    X, y = draw(n_per_class)
    X_test, y_test = draw(n_per_class // 2)
    return Split("blobs", X, y, X_test, y_test)


@pytest.fixture(scope="module")
def problem():
    return blobs()


# --------------------------------------------------------------------------- models
@pytest.mark.parametrize("name, n_inputs, n_params", [
    ("perceptron", 784, 784 * 10 + 10),
    ("mlp", 784, 784 * MLP_HIDDEN + MLP_HIDDEN + MLP_HIDDEN * 10 + 10),
])
def test_dense_model_shapes(name, n_inputs, n_params):
    model = build_model(name, n_inputs, 10)
    assert model(torch.zeros(5, n_inputs)).shape == (5, 10)
    assert sum(p.numel() for p in model.parameters()) == n_params


@pytest.mark.parametrize("n_inputs, n_features", [(784, 64 * 7 * 7), (3072, 64 * 8 * 8)])
def test_cnn_has_a_reusable_frontend(n_inputs, n_features):
    model = build_model("cnn", n_inputs, 10)
    assert isinstance(model, SmallCNN)
    x = torch.rand(4, n_inputs)
    features = model.features(x)
    assert features.shape == (4, n_features) == (4, model.n_features)
    torch.testing.assert_close(model.classifier(features), model(x))


def test_cnn_reads_rows_in_hwc_order():
    """A pixel at (row 1, column 2, channel 0) of the HWC row lands at [0, 0, 1, 2] of the image."""
    model = build_model("cnn", 3072, 10)
    row = torch.zeros(1, 3072)
    row[0, (1 * 32 + 2) * 3 + 0] = 1.0
    image = model.features[0](row)
    assert image.shape == (1, 3, 32, 32)
    assert image[0, 0, 1, 2] == 1.0 and image.sum() == 1.0


def test_model_errors_are_clear():
    with pytest.raises(ValueError, match="unknown model 'resnet'"):
        build_model("resnet", 784, 10)
    with pytest.raises(ValueError, match="unknown model 'svm'"):
        sgd_runs(blobs(5), "svm", seeds=[0])
    with pytest.raises(ValueError, match="cnn needs image rows"):
        build_model("cnn", 100, 10)
    with pytest.raises(ValueError, match="no hidden layer"):
        build_model("perceptron", 784, 10, n_hidden=5)
    with pytest.raises(ValueError, match="lr must be"):
        SGDConfig(lr=0)
    with pytest.raises(ValueError, match="epochs must be"):
        SGDConfig(epochs=0)


def test_training_input_errors_are_clear(problem):
    with pytest.raises(ValueError, match=r"y must have shape \(180,\)"):
        train("mlp", problem.X_train, problem.y_train[:-1])
    with pytest.raises(ValueError, match="integer class labels"):
        train("mlp", problem.X_train, problem.y_train.astype(float))
    with pytest.raises(ValueError, match="2-D array of rows"):
        train("mlp", problem.X_train[0], problem.y_train[:1])
    with pytest.raises(ValueError, match="history=True needs a test set"):
        train("mlp", problem.X_train, problem.y_train, history=True)
    with pytest.raises(ValueError, match="time_budget must be"):
        train("mlp", problem.X_train, problem.y_train, time_budget=-1)


# --------------------------------------------------------------------------- training
@pytest.mark.parametrize("name", ["perceptron", "mlp"])
def test_same_seed_same_model(problem, name):
    a = train(name, problem.X_train, problem.y_train, seed=3, config=FAST, device="cpu")
    b = train(name, problem.X_train, problem.y_train, seed=3, config=FAST, device="cpu")
    c = train(name, problem.X_train, problem.y_train, seed=4, config=FAST, device="cpu")
    for p, q in zip(a.model.parameters(), b.model.parameters()):
        torch.testing.assert_close(p, q, rtol=0, atol=0)
    assert any(not torch.equal(p, q) for p, q in zip(a.model.parameters(), c.model.parameters()))
    np.testing.assert_array_equal(a.predict(problem.X_test), b.predict(problem.X_test))


def test_cnn_same_seed_same_weights():
    data = blobs(n_per_class=8, n_classes=2)
    runs = [train("cnn", data.X_train, data.y_train, seed=1, config=SGDConfig(epochs=1, batch_size=8))
            for _ in range(2)]
    for p, q in zip(runs[0].model.parameters(), runs[1].model.parameters()):
        torch.testing.assert_close(p, q, rtol=0, atol=0)


@pytest.mark.parametrize("name", ["perceptron", "mlp"])
def test_training_learns_a_separable_problem(problem, name):
    untrained = build_model(name, 784, 3)
    run = train(name, problem.X_train, problem.y_train, seed=0, config=FAST,
                test=(problem.X_test, problem.y_test))
    assert run.accuracy >= 95  # chance is 33 %
    assert run.accuracy == 100 * np.mean(predict(run.model, problem.X_test) == problem.y_test)
    assert run.epochs == FAST.epochs and run.train_seconds > 0
    assert not all(torch.equal(p, q) for p, q in zip(untrained.parameters(), run.model.parameters()))


def test_sgd_runs_is_tidy_and_reproducible(problem):
    frame = sgd_runs(problem, "perceptron", seeds=[0, 1], config=FAST, progress=False)
    assert list(frame.columns) == ["dataset", "model", "seed", "epochs", "train_seconds", "accuracy"]
    assert frame.seed.tolist() == [0, 1] and set(frame.model) == {"perceptron"}
    assert (frame.epochs == FAST.epochs).all()
    again, models = sgd_runs(problem, "perceptron", seeds=[1], config=FAST, progress=False,
                             return_models=True)
    assert again.accuracy.iloc[0] == frame.accuracy.iloc[1]
    assert models[0].seed == 1 and models[0].accuracy == again.accuracy.iloc[0]


def test_history_has_one_row_per_epoch_and_ends_at_the_final_model(problem):
    frame = sgd_runs(problem, "mlp", seeds=[0], config=FAST, history=True, progress=False)
    assert frame.epochs.tolist() == [1.0, 2.0, 3.0]
    assert frame.train_seconds.is_monotonic_increasing
    final = sgd_runs(problem, "mlp", seeds=[0], config=FAST, progress=False)
    assert frame.accuracy.iloc[-1] == final.accuracy.iloc[0]


def test_time_budget_stops_early(problem):
    """A budget far below one epoch stops after the first mini-batch."""
    config = SGDConfig(epochs=5, batch_size=10)
    run = train("mlp", problem.X_train, problem.y_train, config=config, time_budget=1e-9,
                test=(problem.X_test, problem.y_test))
    assert run.epochs == pytest.approx(1 / 18)  # 180 rows in mini-batches of 10
    assert np.isfinite(run.accuracy)


# --------------------------------------------------------------------------- rotations
@pytest.fixture(scope="module")
def images():
    return np.random.default_rng(0).integers(0, 256, (4, 28, 28), dtype=np.uint8)


def test_rotate_by_zero_is_identity(images):
    rows = rotate(images, 0)
    assert rows.shape == (4, 784) and rows.dtype == np.float64
    np.testing.assert_allclose(rows, images.reshape(4, -1) / 255, rtol=0, atol=1e-12)


@pytest.mark.parametrize("angle, k", [(90, 1), (180, 2), (-90, -1), (270, 3), (450, 1)])
def test_rotate_by_right_angles_matches_rot90(images, angle, k):
    expected = np.rot90(images, k=k, axes=(1, 2)).reshape(4, -1) / 255
    np.testing.assert_allclose(rotate(images, angle), expected, rtol=0, atol=1e-12)


def test_rotate_small_angle_moves_pixels_and_keeps_size(images):
    rows = rotate(images, 15, dtype=np.float32)
    assert rows.shape == (4, 784) and rows.dtype == np.float32
    assert 0 <= rows.min() and rows.max() <= 1
    assert np.abs(rows - images.reshape(4, -1) / 255).max() > 0.1
    # corners come from outside the image: filled with 0
    assert np.all(rows.reshape(4, 28, 28)[:, 0, 0] == 0)


def test_rotate_batches_agree(images):
    np.testing.assert_array_equal(rotate(images, 20, batch_size=3), rotate(images, 20))


def test_rotate_errors_are_clear(images):
    with pytest.raises(ValueError, match="angle must be a finite number"):
        rotate(images, float("nan"))
    with pytest.raises(ValueError, match="angle must be a finite number"):
        rotate(images, "15")
    with pytest.raises(ValueError, match="must be uint8"):
        rotate(images.astype(np.float32), 10)
    with pytest.raises(ValueError, match=r"\(N, H, W\)"):
        rotate(images[0], 10)
    with pytest.raises(ValueError, match="not floating"):
        rotate(images, 10, dtype=np.int32)


def test_accuracy_under_rotation_counts_correct_predictions(images):
    """A 'model' that recognises the upright images by their exact pixels: 100 % at 0°, 360°,
    0 % at 90°."""
    upright = images.reshape(4, -1) / 255
    data = SimpleNamespace(x_test=images, y_test=np.arange(4))

    def predict_fn(rows):
        distance = ((rows[:, None, :] - upright[None]) ** 2).sum(-1)
        return np.where(distance.min(1) < 1e-12, distance.argmin(1), -1)
    frame = accuracy_under_rotation(predict_fn, data, [0, 90, 360])
    assert frame.angle.tolist() == [0.0, 90.0, 360.0]
    assert frame.accuracy.tolist() == [100.0, 0.0, 100.0]
    cached = rotated_test_sets(data, [0, 90, 360])
    np.testing.assert_array_equal(cached[90.0], rotate(images, 90))
    assert accuracy_under_rotation(predict_fn, data, [0, 90, 360], rotated=cached).equals(frame)
    with pytest.raises(ValueError, match="angles is empty"):
        accuracy_under_rotation(predict_fn, data, [])
    with pytest.raises(ValueError, match="returned shape"):
        accuracy_under_rotation(lambda rows: np.zeros(3), data, [0])




# --------------------------------------------------------------------------- the chapter's records and answers
def fake_seeds(accuracies, seconds, epochs=3):
    """(final, curves, runs) as sgd_seeds returns them: per seed, accuracy rising by 1 point and time by
    ``seconds`` per epoch, ending at ``accuracies[i]`` after ``epochs`` epochs."""
    rows = [{"seed": s, "epochs": float(k), "train_seconds": seconds * k, "accuracy": acc - (epochs - k)}
            for s, acc in enumerate(accuracies) for k in range(1, epochs + 1)]
    curves = pd.DataFrame(rows)
    final = curves[curves.epochs == epochs].reset_index(drop=True)
    runs = [{"n_train": 100, "n_test": 50, "device": "cpu", "threads": 1} for _ in accuracies]
    return final, curves, runs


@pytest.fixture()
def store(tmp_path):
    return ChapterResults("baselines", "smoke", tmp_path)


def test_record_runs_writes_final_and_curve_keys(store):
    final, curves, runs = fake_seeds([90.0, 92.0], 0.5)
    acc, sec = bl.record_runs(store, "mnist/sgd-mlp", final, curves, runs, FAST, shown_curve=True, dataset="mnist")
    assert acc.values == (90.0, 92.0) and sec.values == (1.5, 1.5)
    assert acc.setting["epochs"] == 3 and acc.setting["seeds"] == [0, 1] and acc.setting["lr"] == FAST.lr
    assert sec.setting["timed"] == "training loop, data in memory"
    assert set(store.results) == {"mnist/sgd-mlp/accuracy", "mnist/sgd-mlp/train-seconds",
                                  "mnist/sgd-mlp/e=1/accuracy", "mnist/sgd-mlp/e=1/train-seconds",
                                  "mnist/sgd-mlp/e=2/accuracy", "mnist/sgd-mlp/e=2/train-seconds"}
    assert store.results["mnist/sgd-mlp/e=1/accuracy"].values == (88.0, 90.0)


def test_record_runs_without_curve_writes_two_keys(store):
    final, curves, runs = fake_seeds([80.0], 1.0)
    bl.record_runs(store, "mnist/sgd-perceptron", final, curves, runs, FAST)
    assert set(store.results) == {"mnist/sgd-perceptron/accuracy", "mnist/sgd-perceptron/train-seconds"}


def test_curves_read_back_what_was_recorded(store):
    final, curves, runs = fake_seeds([90.0, 92.0], 0.5)
    bl.record_runs(store, "p", final, curves, runs, FAST, shown_curve=True)
    per_seed = bl.seed_curves(store, "p", 3)
    pd.testing.assert_frame_equal(per_seed.sort_values(["seed", "epochs"]).reset_index(drop=True)[
        ["seed", "epochs", "train_seconds", "accuracy"]], curves.astype({"epochs": int}))
    c = bl.curve_of(store, "p", 3)
    assert list(c.epochs) == [1, 2, 3]
    assert list(c.accuracy) == [89.0, 90.0, 91.0] and list(c.seconds) == [0.5, 1.0, 1.5]
    assert c.sd.iloc[0] == pytest.approx(np.std([88, 90], ddof=1))


def test_spread_text_and_verdict_rows(store):
    final, curves, runs = fake_seeds([96.0, 97.0, 96.5, 96.8, 96.9], 1.0)
    acc, sec = bl.record_runs(store, "mnist/sgd-mlp", final, curves, runs, FAST)
    assert spread_text(acc) == f"{np.mean(acc.values):.2f} ± {np.std(acc.values, ddof=1):.2f}"
    one = bl.record_runs(store, "x", *fake_seeds([50.0], 1.0), FAST)[0]
    assert spread_text(one, 1) == "50.0"
    bl.answer_table1(store, {("mnist", "mlp"): (acc, sec), ("fashion-mnist", "mlp"): (acc, sec)})
    rows = bl.verdict_rows(store, [("a", "table1_mnist_sgd_accuracy"), ("b", "table1_mnist_sgd_seconds")])
    assert list(rows.columns) == ["what", "paper", "ours", "verdict"]
    assert list(rows.paper) == ["96.84 %", "17.45 s"]
    assert rows.verdict.iloc[1] == "not comparable"
    # 96.84 inside the interval, but sd 0.39 leaves equivalence within ±0.5 unshown (TOST p ≈ 0.08)
    assert rows.verdict.iloc[0] == store.answers["table1_mnist_sgd_accuracy"].verdict.label == "inconclusive"


def test_answer_table1_answers_six_claims_and_words(store):
    mlp = bl.record_runs(store, "mnist/sgd-mlp", *fake_seeds([90.0, 91.0], 1.0), FAST)
    perc = bl.record_runs(store, "mnist/sgd-perceptron", *fake_seeds([85.0, 86.0], 1.0), FAST)
    table1 = {(n, m): run for n in ("mnist", "fashion-mnist") for m, run in (("mlp", mlp), ("perceptron", perc))}
    bl.answer_table1(store, table1)
    assert set(store.answers) == {"table1_mnist_sgd_accuracy", "table1_fashion_sgd_accuracy",
                                  "fig_scaling_mnist_sgd_baseline_accuracy",
                                  "fig_scaling_fashion_sgd_baseline_accuracy",
                                  "table1_mnist_sgd_seconds", "table1_fashion_sgd_seconds"}
    assert store.answers["table1_mnist_sgd_accuracy"].verdict.label == "inconclusive"   # 2 seeds
    words = bl.table1_words(store, table1)
    assert words["bl_mnist_mlp_vs_paper"] == pytest.approx(96.84 - 90.5)
    assert words["bl_mnist_mlp_above_below"] == "below" and words["bl_fashion_mlp_above_below"] == "above"
    assert words["bl_mnist_perc_acc"] == 85.5 and words["bl_mnist_verdict"] == "inconclusive"
    frame = bl.table1_frame(table1)
    assert list(frame.data) == ["MNIST", "MNIST", "Fashion-MNIST", "Fashion-MNIST"] and list(frame.seeds) == [2] * 4


def elm_store(tmp_path, subset=None, n_train=100, machine=None):
    """A random_features store holding Green-ELM (unit, pinv, d = 10) accuracy and fit time."""
    other = ChapterResults("random_features", "smoke", tmp_path)
    if machine is not None:
        other.machine = machine
    other.record("mnist/green-elm/unit/pinv/d=10/accuracy", [95.0, 95.2, 95.1], "%", n_train=n_train, subset=subset)
    other.record("mnist/green-elm/unit/pinv/d=10/fit-seconds", [0.1, 0.12, 0.11], "s", n_train=n_train)
    return other


def answered_against_green_elm(tmp_path, store):
    """Three MNIST SGD MLP runs (94.9, 95.1, 95.0 %, 0.5 s) answered against a Green-ELM pinv store at
    d = 10: (elm accuracy, elm fit seconds, MLP accuracy, MLP seconds, bl.answer_vs_green_elm's answers)."""
    other = elm_store(tmp_path)
    elm_acc = other.results["mnist/green-elm/unit/pinv/d=10/accuracy"]
    elm_sec = other.results["mnist/green-elm/unit/pinv/d=10/fit-seconds"]
    mnist_acc, mnist_sec = bl.record_runs(store, "mnist/sgd-mlp", *fake_seeds([94.9, 95.1, 95.0], 0.5), FAST,
                                          shown_curve=True)
    answers = bl.answer_vs_green_elm(store, mnist_acc, mnist_sec, elm_acc, elm_acc, elm_sec, 10, 10, 1.0)
    return elm_acc, elm_sec, mnist_acc, mnist_sec, answers


def test_owned_reads_random_features_only_for_the_same_data_and_machine(tmp_path, store):
    elm_store(tmp_path)
    got = bl.owned(store, "mnist", "pinv", 10, "accuracy", 100, None)
    assert got.values == (95.0, 95.2, 95.1) and got.chapter == "random_features"
    assert "random_features:mnist/green-elm/unit/pinv/d=10/accuracy" in store.reads
    assert bl.owned(store, "mnist", "pinv", 10, "accuracy", 200, None) is None     # other training rows
    assert bl.owned(store, "mnist", "pinv", 10, "accuracy", 100, 50) is None       # other subset
    assert bl.owned(store, "mnist", "pinv", 20, "accuracy", 100, None) is None     # absent
    assert bl.elm_accuracy(store, "mnist", 10, 100, None).chapter == "random_features"
    assert bl.elm_fit_seconds(store, "mnist", 10, 100, None, repeats=1).values == (0.1, 0.12, 0.11)


def test_owned_refuses_a_timing_from_another_machine(tmp_path, store):
    elm_store(tmp_path, machine="another CPU, 64 cores")
    assert bl.owned(store, "mnist", "pinv", 10, "fit-seconds", 100, None) is None
    assert bl.owned(store, "mnist", "pinv", 10, "accuracy", 100, None) is not None


def test_answer_vs_green_elm_and_its_words(tmp_path, store):
    elm_acc, elm_sec, mnist_acc, mnist_sec, answers = answered_against_green_elm(tmp_path, store)
    assert set(store.answers) == {"speedup_vs_sgd_mnist_d2000", "mnist_d4000_beats_sgd_by_1_26",
                                  "abstract_comparable_to_sgd"}
    assert answers["gap"] == pytest.approx(0.1) and answers["outcome"] is None       # 3 runs: undecided
    assert store.answers["abstract_comparable_to_sgd"].verdict.label == "inconclusive"
    # the two sides were timed in separate runs (no quiet benchmark at this width): not judged
    assert answers["speedup"].label == "not comparable" and "different runs" in answers["speedup"].detail
    assert store.answers["speedup_vs_sgd_mnist_d2000"].keys == (mnist_sec.key, elm_sec.key)
    words = bl.comparison_words(store, mnist_acc, mnist_sec, elm_acc, elm_sec, elm_acc, answers, 3)
    assert words["bl_ratio"] == pytest.approx(1.5 / np.exp(np.mean(np.log([0.1, 0.12, 0.11]))))
    # the ratio is not judged (separate runs): no direction is stated beside it (the planted defect: "longer than")
    assert words["bl_ratio_words"].startswith("no direction judged (not comparable: ") and words["bl_comparable"] == "undecided"
    assert words["bl_ratio_how"].startswith("the ratio of the geometric means over separate runs")
    assert words["bl_ratio_sides"] == "its sides are the seconds in the table"
    # the two sides' hosts are not shown to be one machine: the MLP's curve is not read at Green-ELM's seconds
    # (a reader: "at Green-ELM's 40.3 s the MLP's runs stand at all of their 10 epochs" from two hosts)
    assert words["bl_budget_sentence"].startswith("Green-ELM's fit (0.1 s, its mean in the table above) and the "
                                                  "MLP's epochs were timed apart (the MLP on ")
    assert "so the MLP's curve is not read at Green-ELM's seconds" in words["bl_budget_sentence"]
    assert words["bl_source"] == "read from the random_features chapter"
    # a reader: "measured here, the random_features chapter's results being absent" beside a page that shows them
    timed_here = bl.source_words(["mnist/green-elm/unit/pinv/d=2000/timed-by-baselines/fit-seconds"])
    assert timed_here.startswith("read from the random_features chapter, except the fit time, measured here "
                                 "because the random_features chapter's timing of that fit is not shown to come from "
                                 "this execution's machine")
    assert "timed-by-baselines" not in timed_here                  # no result key in the prose
    assert "absent" not in timed_here
    frame = bl.comparison_frame(mnist_acc, mnist_sec, elm_acc, elm_sec, elm_acc, 3, 10, 10)
    assert list(frame.runs) == [3, 3, 3] and frame["time (s)"].iloc[2] == "—"


def test_green_elm_points_keep_only_configurations_with_both_results(tmp_path, store):
    elm_store(tmp_path)
    assert bl.green_elm_points(store, "fashion-mnist", 10, None, None, 100, None) == []
    acc = store.get("random_features", "mnist/green-elm/unit/pinv/d=10/accuracy")
    points = bl.green_elm_points(store, "mnist", 10, acc, acc, 100, None)
    assert [(w, a.key) for w, a, _ in points] == [(10, acc.key)]


def test_cifar_answers_are_not_comparable_and_words(store):
    mlp = bl.record_runs(store, "cifar10/sgd-mlp", *fake_seeds([45.0, 46.0], 2.0, epochs=2), FAST, shown_curve=True)
    cnn = bl.record_runs(store, "cifar10/sgd-cnn", *fake_seeds([60.0, 62.0], 100.0, epochs=2), FAST, shown_curve=True)
    bl.answer_cifar(store, {"mlp": mlp, "cnn": cnn}, 256, 2, 2)
    assert len(store.answers) == 7
    assert all(a.verdict.label == "not comparable" for a in store.answers.values())
    assert "3072-256-10, 2 epochs" in store.answers["table6_sgd_mlp_accuracy"].verdict.detail
    words = bl.cifar_words(store, {"mlp": mlp, "cnn": cnn}, 2)
    assert words["bl_c10_cnn_last_gain"] == pytest.approx(1.0) and words["bl_c10_cnn_last_words"] == "gained"
    # seconds from two machines decide no direction (the planted defect: "longer than" the paper's 181 s)
    assert words["bl_c10_mlp_words"] == "below"
    assert words["bl_c10_cnn_time_words"] == "no direction judged (not comparable: timed on another machine)"
    assert bl.cifar_architecture("mlp", 256) == "3072-256-10"
    assert bl.cifar_architecture("cnn").startswith("conv3x3-32, pool, conv3x3-64")


def test_the_figures_draw_one_panel_per_dataset(store):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    bl.record_runs(store, "p", *fake_seeds([90.0, 92.0], 0.5), FAST, shown_curve=True)
    curve = bl.curve_of(store, "p", 3)
    fig = bl.learning_curves_figure({"mnist": curve, "fashion-mnist": curve}, {"mnist": [], "fashion-mnist": []})
    assert [ax.get_title() for ax in fig.axes] == ["MNIST", "Fashion-MNIST"]
    fig2 = bl.cifar_curves_figure({"mlp": curve, "cnn": curve}, 256)
    assert len(fig2.axes[0].get_lines()) == 2 + 3          # two curves, three paper lines
    plt.close(fig)
    plt.close(fig2)


def test_comparison_words_print_the_ratio_the_speedup_was_judged_on(tmp_path, store):
    """When the speed-up rests on quiet interleaved pairs, the prose's ratio is those pairs' (the
    number the table and the scorecard print), not the ratio of the chapter's separate runs."""
    from greenelm_book.judging.verdicts import Verdict, ratio_interval

    elm_acc, elm_sec, mnist_acc, mnist_sec, answers = answered_against_green_elm(tmp_path, store)
    pairs = store.record("mnist/sgd-mlp-over-green-elm/paired-time-ratio", [0.61, 0.62, 0.63], "×", quiet=True)
    store.answer("speedup_vs_sgd_mnist_d2000", Verdict("discordant", "0.62×", "test"), keys=[pairs.key])
    words = bl.comparison_words(store, mnist_acc, mnist_sec, elm_acc, elm_sec, elm_acc, answers, 3)
    assert (words["bl_ratio"], words["bl_ratio_low"], words["bl_ratio_high"]) == pytest.approx(
        ratio_interval(pairs.values))
    assert words["bl_ratio_how"].startswith("both timed in one quiet process, interleaved, 3 pairs")
    assert words["bl_ratio"] != pytest.approx(1.5 / np.exp(np.mean(np.log([0.1, 0.12, 0.11]))))
    # pairs without their sides recorded: the sides are said to be the table's (no seconds invented)
    assert words["bl_ratio_sides"] == "its sides are the seconds in the table, paired by seed"


def test_the_judged_ratio_s_own_sides_are_shown_under_their_name_not_the_table_s_seconds(tmp_path, store):
    """The prose gives the interleaved pairs' own seconds (9.1 s over 14.6 s = 0.62×) beside their ratio,
    not the table's Green-ELM fit (here 0.11 s) whose quotient with the MLP's is another number."""
    from greenelm_book.judging.verdicts import Verdict

    elm_acc, elm_sec, mnist_acc, mnist_sec, answers = answered_against_green_elm(tmp_path, store)
    pairs = store.record("mnist/sgd-mlp-over-green-elm/time-ratio", [0.62, 0.63, 0.61], "×", quiet=False,
                         numerator_seconds=[9.0, 9.2, 9.1], denominator_seconds=[14.5, 14.6, 14.7])
    store.answer("speedup_vs_sgd_mnist_d2000", Verdict("discordant", "0.62×", "test"), keys=[pairs.key])
    words = bl.comparison_words(store, mnist_acc, mnist_sec, elm_acc, elm_sec, elm_acc, answers, 3)
    sides = words["bl_ratio_sides"]
    assert sides.startswith("in those pairs the MLP's training took 9.1 s and Green-ELM's fit 14.6 s on average")
    assert sides.endswith("the pairs' own runs, not the seconds in the table")
    assert f"{elm_sec.mean:.1f} s" not in sides


def test_the_speedup_is_described_by_the_test_the_scorecard_uses(tmp_path, store, monkeypatch):
    """The page's description of how the 11.6x is judged is the words of the test the scorecard uses on
    the recorded answer (here the interleaved pairs: a ratio across machines), not a description typed
    beside it (the page had kept "a 95 % prediction interval, Welch" after the test changed)."""
    import json

    from greenelm_book import bench
    from greenelm_book.judging.verdicts import RULES, TEST_WORDS, TESTS, words_of_test

    pairs = [{"pair": i, "a_seconds": 6.2, "b_seconds": 10.0, "ratio": 0.62, "computed_at": "2026-11-28T09:05:00+00:00",
              "pid": 7} for i in range(5)]
    report = tmp_path / "report" / "headline_ratios.json"
    report.parent.mkdir()
    report.write_text(json.dumps({"quiet": True, "ratios": {"sgd_mlp_over_pinv_mnist": {
        "name": "sgd_mlp_over_pinv_mnist", "numerator": "mlp", "denominator": "pinv", "data": "MNIST", "pid": 7,
        "started_at": "2026-11-28T09:04:00+00:00", "finished_at": "2026-11-28T09:07:00+00:00", "pairs": pairs}}}))
    monkeypatch.setattr(bench, "HEADLINE_RATIOS", report)
    other = ChapterResults("random_features", "smoke", tmp_path)
    elm_acc = other.record("mnist/green-elm/unit/pinv/d=2000/accuracy", [97.0, 97.1, 96.9], "%", n_train=60_000)
    elm_sec = other.record("mnist/green-elm/unit/pinv/d=2000/fit-seconds", [10.0, 10.1, 9.9], "s", n_train=60_000)
    mnist_acc, mnist_sec = bl.record_runs(store, "mnist/sgd-mlp", *fake_seeds([94.9, 95.1, 95.0], 0.5), FAST,
                                          shown_curve=True)
    answers = bl.answer_vs_green_elm(store, mnist_acc, mnist_sec, elm_acc, elm_acc, elm_sec, 2000, 2000, 1.0)
    assert store.answers["speedup_vs_sgd_mnist_d2000"].keys == (bench.QUIET_RATIO_KEYS["sgd_mlp_over_pinv_mnist"],)
    words = bl.comparison_words(store, mnist_acc, mnist_sec, elm_acc, elm_sec, elm_acc, answers, 3)
    assert words["bl_speedup_test"] == RULES["ratio_across_machines"]
    assert "prediction interval" not in words["bl_speedup_test"]
    assert words["bl_wide_test"] == TEST_WORDS["difference_vs_paper"]
    assert RULES["value_vs_paper"] in words["bl_wide_test"] and "as value_vs_paper" not in words["bl_wide_test"]
    # every test the scorecard may name has its words, and a name that is no test is an error
    assert set(TEST_WORDS) == set(TESTS) and all(words_of_test(t) for t in TESTS)
    with pytest.raises(ValueError, match="no test named 'welch'"):
        words_of_test("welch")


def test_the_page_types_no_description_of_the_speedup_test():
    """The baselines page states the speed-up's and the +1.26's tests only through the glued words."""
    from pathlib import Path

    source = (Path(__file__).resolve().parents[1] / "notebooks" / "baselines.py").read_text(encoding="utf-8")
    bullets = source[source.index("* **speed-up**"):source.index("* **comparable**")]
    assert "{glue:text}`bl_speedup_test`" in bullets and "{glue:text}`bl_wide_test`" in bullets
    assert not re.search(r"Welch|prediction interval|confidence interval", bullets), bullets


def test_the_equivalence_test_says_equivalent_never_comparable():
    """Finding 23 of issue 61's reading: the equivalence test's "not comparable" meant "not equivalent",
    while on the ladder "not comparable" means a setting unlike the paper's."""
    assert bl.EQUIVALENCE_WORDS == {True: "equivalent", False: "not equivalent", None: "undecided"}
    assert not any("comparable" in words for words in bl.EQUIVALENCE_WORDS.values())
    source = (Path(__file__).resolve().parents[1] / "greenelm_book" / "chapters" / "baselines.py").read_text(
        encoding="utf-8")
    assert '"not comparable", None: "undecided"' not in source and "wholly outside: not \"" not in source


def test_the_parity_margin_has_one_justification_read_by_baselines_and_the_thresholds():
    """Finding 7: the ±1-point margin was justified two ways (the intro's thresholds: the widest gap the
    paper calls parity; baselines: 'between 0.31 and 1.26 points'). One constant with its reason, read by
    both; the baselines chapter sets no margin of its own."""
    from greenelm_book.judging.verdicts import PARITY_MARGIN, PARITY_MARGIN_WHY, THRESHOLDS

    assert PARITY_MARGIN == 1.0 and "calls parity" in PARITY_MARGIN_WHY
    assert [why for threshold, _, why in THRESHOLDS if threshold == f"±{PARITY_MARGIN:g} point"] == [PARITY_MARGIN_WHY]
    root = Path(__file__).resolve().parents[1]
    source = (root / "notebooks" / "baselines.py").read_text(encoding="utf-8")
    assert "comparable_margin" not in source and "0.31-point" not in source
    assert 'glue("bl_margin", PARITY_MARGIN)' in source and 'glue("bl_margin_why", PARITY_MARGIN_WHY)' in source
    assert "{glue:text}`bl_margin_why`" in source
    assert "comparable_margin" not in (root / "params" / "full.yml").read_text(encoding="utf-8")


def test_a_set_of_runs_carries_its_measurement_day_and_host_only_when_every_run_records_them():
    """Issue 61: the CIFAR-10 SGD runs' seconds said "host not recorded" though their cache entries record it."""
    from greenelm_book.chapters.baselines import runs_provenance

    host = {"cpu": "AMD EPYC", "cores": 2, "kernel": "k", "blas": "b", "gemm_gflops": 70.0}
    runs = [{"computed_at": "2026-12-02T16:06:18+00:00", "host": host},
            {"computed_at": "2026-12-03T09:00:00+00:00", "host": dict(host)}]
    both = runs_provenance(runs)
    assert (both.date, both.host) == ("2026-12-03", host)
    older = runs_provenance(runs + [{"computed_at": None, "host": None}])
    assert (older.date, older.host) == ("", None)
    moved = runs_provenance([runs[0], {**runs[1], "host": {**host, "gemm_gflops": 45.0}}])
    assert (moved.date, moved.host) == ("2026-12-03", None)


def test_the_budget_sentence_states_what_its_evidence_decides():
    """Finding 11 of issue 61's reading: "within Green-ELM's 13.9 s the MLP finishes all of its 10 epochs" and
    "Green-ELM is … ahead of it" from separate, unquiet runs."""
    within = pd.DataFrame({"seed": [0, 1, 2], "epochs": [10.0, 10.0, 10.0], "accuracy": [96.0, 96.2, 96.1]})
    decided = bl.budget_sentence(within, [97.0, 97.1, 97.2], 13.9, 10, "shorter")
    assert decided.startswith("within Green-ELM's 13.9 s (its fit's mean in the table above) the MLP finishes all "
                              "of its 10 epochs, reaching 96.10 %; Green-ELM's accuracy is 1.00 points above the MLP there")
    busy = bl.budget_sentence(within, [96.0, 96.3, 96.1], 13.9, 10, "no direction judged (inconclusive: busy timings)")
    assert "finishes" not in busy.split(";")[0] and "which of the two finishes first is not judged: inconclusive: busy timings" in busy
    assert "on the means (no direction judged" in busy          # 0.03 points over three seeds: no side
    # timed on machines not shown to be one: the curve is not read at Green-ELM's seconds, the MLP's whole
    # training stands beside Green-ELM's accuracy
    apart = bl.budget_sentence(within, [97.0, 97.1, 97.2], 40.3, 10, "no direction judged (inconclusive: busy timings)",
                               timed_apart="timed apart (the MLP on a host not recorded, 2026-11-28; Green-ELM on "
                                           "AMD EPYC, 2 cores, 2026-12-03), not shown to be one machine",
                               final_accuracy=[98.0, 98.1, 98.2])
    assert apart.startswith("Green-ELM's fit (40.3 s, its mean in the table above) and the MLP's epochs were timed "
                            "apart (the MLP on a host not recorded, 2026-11-28;")
    assert "so the MLP's curve is not read at Green-ELM's seconds; after its 10 epochs the MLP reaches 98.10 %" in apart
    assert apart.endswith("Green-ELM's accuracy is 1.00 points below the MLP.") and "stand at" not in apart
    partway = pd.DataFrame({"seed": [0, 1], "epochs": [4.0, 5.0], "accuracy": [95.0, 95.4]})
    assert bl.budget_sentence(partway, [97.0, 97.1], 5.0, 10, "shorter").startswith(
        "at Green-ELM's 5.0 s (its fit's mean in the table above) the MLP's runs stand at on average 4.5 epochs,")


def test_a_fit_timed_here_records_its_host_and_day_even_after_cache_reads(tmp_path, store, monkeypatch):
    """The budget sentence read "Green-ELM on a host not recorded, a day not recorded" for a fit timed in that
    very execution: a process that has read cache entries records no host unless the value says it was
    measured now."""
    import datetime as dt

    from greenelm_book import bench
    from greenelm_book.store import results as results_mod

    host = {"cpu": "Test CPU", "cores": 2, "kernel": "6.0", "blas": "openblas", "gemm_gflops": 50.0}
    monkeypatch.setattr(bench, "host_info", lambda gemm_order=1024: dict(host))
    monkeypatch.setattr(bench, "run_isolated", lambda target, kwargs: {"ok": True, "result": {"seconds": [1.0, 1.1]}})
    monkeypatch.setattr(results_mod, "_cache_reads", lambda: 3)
    timed = bl.elm_fit_seconds(store, "mnist", 10, 100, None, repeats=2)
    assert timed.values == (1.0, 1.1) and timed.date == dt.date.today().isoformat()
    assert timed.host["cpu"] == "Test CPU" and timed.host["cores"] == 2
