"""SGD baselines (greenelm_book.baselines) and rotations (greenelm_book.perturb): shapes, determinism,
learning, exact rotations, and clear errors. Small synthetic problems only (fast)."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest
import torch

from greenelm_book.baselines import (MLP_HIDDEN, SGDConfig, SmallCNN, build_model, predict, sgd_runs,
                                train)
from greenelm_book.experiments import Split
from greenelm_book.perturb import accuracy_under_rotation, rotate, rotated_test_sets

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


