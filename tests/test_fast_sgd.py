"""The fast-SGD opponents (greenelm_book.chapters.fast_sgd): airbench94 and the PyTorch examples' MNIST CNN.

Every test runs in seconds on a CPU: on a few hundred synthetic (or real, when present) images, with
the published recipe where one step is cheap enough and a narrow variant of it otherwise.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
import torch

from greenelm_book.chapters import fast_sgd as fs

#: a narrow, small-batch airbench (same code paths, ~1/30 of the FLOPs) for runs of a few seconds.
NARROW = dataclasses.replace(fs.AIRBENCH94, widths=(16, 32, 32), batch_size=64)

RESULT_KEYS = {"accuracy": float, "accuracy_no_tta": float, "seconds": float, "eval_seconds": float,
               "epochs_run": float, "epochs": float, "steps_run": int, "total_steps": int,
               "stopped_early": bool, "per_epoch": list, "weights_sha256": str, "seed": int,
               "n_train": int, "n_test": int, "device": str, "dtype": str, "threads": int, "recipe": dict}


def colour_toy(n: int, seed: int, hwc: bool = True):
    """Two classes of noisy 32×32 RGB images: class 0 red-dominant, class 1 blue-dominant (uint8)."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    X = rng.integers(0, 256, (n, 32, 32, 3)).astype(np.float64)
    channel = np.where(y == 0, 0, 2)
    X[np.arange(n), :, :, channel] = 0.4 * X[np.arange(n), :, :, channel] + 150
    X = X.astype(np.uint8)
    return (X if hwc else X.transpose(0, 3, 1, 2).copy()), y


def brightness_toy(n: int, seed: int):
    """Two classes of noisy 28×28 grey images: class 0 dark, class 1 bright (uint8, (N, 28, 28))."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    X = rng.integers(0, 160, (n, 28, 28)) + 90 * y[:, None, None]
    return X.astype(np.uint8), y


@pytest.fixture
def one_thread():
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


def check_result(r: dict, recipe) -> None:
    for key, kind in RESULT_KEYS.items():
        assert key in r, key
        assert isinstance(r[key], kind), (key, type(r[key]))
    assert 0 <= r["accuracy"] <= 100 and 0 <= r["accuracy_no_tta"] <= 100
    assert r["seconds"] > 0 and r["eval_seconds"] > 0
    assert r["recipe"] == recipe.as_dict()
    assert r["per_epoch"], "per_epoch is empty"
    for i, row in enumerate(r["per_epoch"], start=1):
        assert set(row) == {"epoch", "steps", "seconds", "train_seconds", "accuracy"}
        assert row["epoch"] == i and row["seconds"] > 0
    assert r["per_epoch"][-1]["train_seconds"] == pytest.approx(r["seconds"])
    assert r["per_epoch"][-1]["steps"] == r["steps_run"]


# --------------------------------------------------------------------------- airbench94

def test_recipe_holds_the_published_values():
    """hyp of legacy/airbench94.py (KellerJordan/cifar10-airbench @ f1c599c)."""
    r = fs.AIRBENCH94
    assert (r.train_epochs, r.batch_size, r.lr, r.momentum, r.weight_decay) == (9.9, 1024, 11.5, 0.85, 0.0153)
    assert (r.bias_scaler, r.label_smoothing, r.whiten_bias_epochs) == (64.0, 0.2, 3)
    assert (r.flip, r.alternating_flip, r.translate) == (True, True, 2)
    assert (r.widths, r.batchnorm_momentum, r.scaling_factor, r.tta_level) == ((64, 256, 256), 0.6, 1 / 9, 2)
    assert (r.lr_peak, r.lr_start, r.lr_end, r.lookahead_every) == (0.23, 0.2, 0.07, 5)
    assert (r.whiten_kernel_size, r.whiten_eps, r.whiten_images, r.bn_eps) == (2, 5e-4, 5000, 1e-12)
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.lr = 1.0


def test_one_epoch_of_the_published_net_returns_the_documented_keys():
    """The full-width net (published recipe, batch 64 so 128 images make two steps), one epoch."""
    recipe = dataclasses.replace(fs.AIRBENCH94, batch_size=64)
    X, y = colour_toy(128, 0)
    Xt, yt = colour_toy(32, 1, hwc=False)  # the other accepted layout
    r = fs.train_airbench(X, y, Xt, yt, seed=0, epochs=1, recipe=recipe)
    check_result(r, recipe)
    assert (r["epochs_run"], r["steps_run"], r["total_steps"], r["stopped_early"]) == (1.0, 2, 2, False)
    assert r["per_epoch"][0]["accuracy"] is None  # evaluated only at the end unless asked
    assert (r["n_train"], r["n_test"], r["device"], r["dtype"]) == (128, 32, "cpu", "float32")


def test_same_seed_same_run_and_the_callers_generator_untouched(one_thread):
    X, y = colour_toy(256, 0)
    Xt, yt = colour_toy(64, 1)
    torch.manual_seed(123)
    expected_draw = torch.rand(3)
    torch.manual_seed(123)
    a = fs.train_airbench(X, y, Xt, yt, seed=7, epochs=2, recipe=NARROW)
    assert torch.equal(torch.rand(3), expected_draw), "train_airbench moved the global generator"
    b = fs.train_airbench(X, y, Xt, yt, seed=7, epochs=2, recipe=NARROW)
    c = fs.train_airbench(X, y, Xt, yt, seed=8, epochs=2, recipe=NARROW)
    assert a["accuracy"] == b["accuracy"] and a["accuracy_no_tta"] == b["accuracy_no_tta"]
    assert a["weights_sha256"] == b["weights_sha256"]
    assert c["weights_sha256"] != a["weights_sha256"]


def test_learns_a_separable_toy_task():
    X, y = colour_toy(256, 0)
    Xt, yt = colour_toy(128, 1)
    r = fs.train_airbench(X, y, Xt, yt, seed=0, epochs=3, recipe=NARROW, eval_every_epoch=True)
    assert r["accuracy"] > 90 and r["accuracy_no_tta"] > 90, r
    assert all(row["accuracy"] is not None for row in r["per_epoch"])


def test_real_cifar10_beats_chance():
    """1024 real CIFAR-10 images (uint8 HWC, as the loader gives them), two epochs of 32 steps.

    The recipe is tuned for ~500 000 image passes; 2048 give ~15-20 % (chance: 10 %). Skipped when
    the dataset is not found."""
    from greenelm import load_dataset

    try:
        d = load_dataset("cifar10")
    except Exception as exc:  # not found: the data is optional for the unit tests
        pytest.skip(f"CIFAR-10 not available: {exc}")
    recipe = dataclasses.replace(NARROW, batch_size=32)
    r = fs.train_airbench(d.x_train[:1024], d.y_train[:1024], d.x_test[:500], d.y_test[:500],
                          seed=0, epochs=2, recipe=recipe)
    assert r["steps_run"] == 64
    assert r["accuracy"] > 13, r["accuracy"]  # chance is 10 % (± 1.3 on 500 images)


@pytest.mark.parametrize("case, message", [
    ("grey images", r"X_train must have shape"),
    ("wrong size", r"X_train must have shape"),
    ("label 10", r"y_train labels out of range"),
    ("label -1", r"y_test labels out of range"),
    ("mismatched lengths", r"mismatched lengths"),
    ("standardised floats", r"not in \[0, 1\]"),
    ("int64 images", r"uint8 or floating"),
    ("fewer than a batch", r"fewer than one batch"),
    ("2-D labels", r"1-D array"),
    ("seed", r"seed must be"),
    ("time_budget", r"time_budget must be"),
    ("channels_last", r"channels_last must be True or False, got 'yes'"),
])
def test_bad_inputs_raise_value_errors_naming_the_problem(case, message):
    X, y = colour_toy(64, 0)
    Xt, yt = colour_toy(16, 1)
    kwargs = dict(seed=0, epochs=1, recipe=NARROW)
    if case == "grey images":
        X = X[..., 0]
    elif case == "wrong size":
        X = X[:, :28, :28, :]
    elif case == "label 10":
        y = y.copy()
        y[0] = 10
    elif case == "label -1":
        yt = yt.copy()
        yt[0] = -1
    elif case == "mismatched lengths":
        y = y[:-1]
    elif case == "standardised floats":
        X = (X - 128.0) / 64
    elif case == "int64 images":
        X = X.astype(np.int64)
    elif case == "fewer than a batch":
        X, y = X[:63], y[:63]
    elif case == "2-D labels":
        y = y[:, None]
    elif case == "seed":
        kwargs["seed"] = -1
    elif case == "time_budget":
        kwargs["time_budget"] = 0
    elif case == "channels_last":
        kwargs["channels_last"] = "yes"
    with pytest.raises(ValueError, match=message):
        fs.train_airbench(X, y, Xt, yt, **kwargs)


def test_time_budget_stops_early():
    X, y = colour_toy(256, 0)
    Xt, yt = colour_toy(32, 1)
    r = fs.train_airbench(X, y, Xt, yt, seed=0, epochs=50, time_budget=0.05, recipe=NARROW)
    assert r["stopped_early"] is True
    assert r["epochs_run"] < r["epochs"] == 50
    assert 1 <= r["steps_run"] < r["total_steps"] == 50 * 4
    assert r["epochs_run"] == r["steps_run"] / 4
    assert len(r["per_epoch"]) == math.ceil(r["epochs_run"])


def test_whitening_layer_is_frozen_and_keeps_its_data_derived_weights():
    torch.manual_seed(0)
    net = fs.make_airbench_net(NARROW, device="cpu")
    optimizer, _ = fs.airbench_optimizer(net, total_steps=10, recipe=NARROW)
    in_optimizer = {id(p) for group in optimizer.param_groups for p in group["params"]}
    assert net[0].weight.requires_grad is False
    assert id(net[0].weight) not in in_optimizer
    assert id(net[0].bias) in in_optimizer  # the whitening bias trains (for whiten_bias_epochs)
    bn_weights = [m.weight for m in net.modules() if isinstance(m, torch.nn.BatchNorm2d)]
    assert bn_weights and all(not w.requires_grad and id(w) not in in_optimizer for w in bn_weights)

    X, y = colour_toy(128, 0)
    Xt, yt = colour_toy(16, 1)
    r = fs.train_airbench(X, y, Xt, yt, seed=0, epochs=2, recipe=NARROW, return_model=True)
    mean = torch.tensor(NARROW.cifar_mean).view(1, 3, 1, 1)
    std = torch.tensor(NARROW.cifar_std).view(1, 3, 1, 1)
    images = (torch.from_numpy(X).float().div(255).permute(0, 3, 1, 2) - mean) / std
    expected = fs.make_airbench_net(NARROW, device="cpu")[0]
    fs.init_whitening_conv(expected, images)
    assert torch.allclose(r["model"][0].weight, expected.weight, atol=1e-6)
    # The 12 positive filters whiten: the (uncentred) second moments of their outputs over the
    # training patches are diag(λ / (λ + eps)), the 12 negative filters are their negations.
    assert expected.weight.shape == (24, 3, 2, 2)
    assert torch.equal(expected.weight[12:], -expected.weight[:12])
    out = torch.nn.functional.conv2d(images, expected.weight[:12]).permute(0, 2, 3, 1).reshape(-1, 12)
    moments = (out.T @ out / len(out)).double()
    assert (moments - torch.diag(torch.diag(moments))).abs().max() < 1e-3
    assert ((torch.diag(moments) > 0) & (torch.diag(moments) < 1 + 1e-4)).all()


def test_augmentation_is_the_recipes_alternating_flip_and_translate():
    """Epoch 0 sees each image flipped or not at random; epoch 1 sees exactly its mirror image; every
    training input is a 32×32 crop of the reflect-padded image at a shift in [-2, 2]²."""
    gen = torch.Generator().manual_seed(0)
    images = torch.randn(64, 3, 32, 32)
    no_translate = dataclasses.replace(NARROW, translate=0, batch_size=32)
    flipped = fs._preflip_and_pad(images, gen, no_translate)
    is_flipped = [torch.equal(f, x.flip(-1)) for f, x in zip(flipped, images)]
    assert all(f or torch.equal(a, x) for f, a, x in zip(is_flipped, flipped, images))
    assert 10 < sum(is_flipped) < 54  # random halves
    seen = [{}, {}, {}]
    for epoch in range(3):
        for idx, inputs in fs._epoch_batches(flipped, epoch, gen, no_translate):
            seen[epoch].update(zip(idx.tolist(), inputs))
    assert len(seen[0]) == 64  # 2 batches of 32, each image once
    for i in range(64):
        assert torch.equal(seen[1][i], seen[0][i].flip(-1)) and torch.equal(seen[2][i], seen[0][i])

    translate = dataclasses.replace(NARROW, batch_size=32)  # translate 2, the published value
    padded = fs._preflip_and_pad(images, gen, translate)
    assert padded.shape == (64, 3, 36, 36)
    shifts_used = set()
    for idx, inputs in fs._epoch_batches(padded, 0, gen, translate):
        for i, x in zip(idx.tolist(), inputs):
            match = [(sy, sx) for sy in range(5) for sx in range(5)
                     if torch.equal(x, padded[i, :, sy:sy + 32, sx:sx + 32])]
            assert match, i
            shifts_used.add(match[0])
    assert len(shifts_used) > 10  # the 25 shifts are drawn, not one

def test_learning_rate_follows_the_published_schedule():
    """get_lr of the recipe, written out here: 0.2 → 1 over ⌊0.23·T⌋ steps, then 1 → 0.07 at T."""
    total = math.ceil(48 * 9.9)  # 476 steps: 50 000 images, batches of 1024, 9.9 epochs
    assert total == 476
    torch.manual_seed(0)
    net = fs.make_airbench_net(NARROW, device="cpu")
    recipe = fs.AIRBENCH94
    optimizer, scheduler = fs.airbench_optimizer(net, total, recipe)
    base = 11.5 / (1024 * (1 + 1 / (1 - 0.85)))
    wd = 0.0153 * 1024 / (1024 * (1 + 1 / (1 - 0.85)))
    warmup = int(476 * 0.23)  # 109

    def published(step):
        if step < warmup:
            return 0.2 + 0.8 * step / warmup
        return 1 - 0.93 * (step - warmup) / (476 - warmup)

    checks = {0: 0.2, 50: None, warmup: 1.0, 300: None, 475: None}
    for step in range(476):
        if step in checks:
            factor = published(step)
            if checks[step] is not None:
                assert factor == pytest.approx(checks[step])
            assert fs.airbench_lr_factor(step, total, recipe) == pytest.approx(factor)
            biases, others = optimizer.param_groups
            assert others["lr"] == pytest.approx(base * factor, rel=1e-12)
            assert biases["lr"] == pytest.approx(64 * base * factor, rel=1e-12)
            assert others["weight_decay"] * others["lr"] == pytest.approx(wd * factor, rel=1e-12)
            assert others["nesterov"] and others["momentum"] == 0.85
        optimizer.step()  # no gradients: a no-op that keeps torch's call order
        scheduler.step()
    assert fs.airbench_lr_factor(476, total, recipe) == pytest.approx(0.07)


# --------------------------------------------------------------------------- FLOPs

def test_flops_per_image_match_a_hand_count():
    rows = {row["name"]: row for row in fs.layer_flops(fs.make_airbench_net(device="cpu"), (3, 32, 32))}
    # block 2, first conv: 64 → 256 channels, 3×3, 'same' on the 15×15 map left by block 1's pool
    assert rows["3.conv1"]["macs"] == 15 * 15 * 256 * 64 * 3 * 3
    # whitening: 3 → 24 channels, 2×2, no padding: 31×31 outputs
    assert rows["0"]["macs"] == 31 * 31 * 24 * 3 * 2 * 2 and rows["0"]["first"] and not rows["0"]["weight_trained"]
    hand = [31 * 31 * 24 * 12, 31 * 31 * 64 * 24 * 9, 15 * 15 * 64 * 64 * 9, 15 * 15 * 256 * 64 * 9,
            7 * 7 * 256 * 256 * 9, 7 * 7 * 256 * 256 * 9, 3 * 3 * 256 * 256 * 9, 256 * 10]
    assert fs.airbench_flops_per_image(training=False) == 2 * sum(hand) == 236_294_720
    assert fs.airbench_flops_per_image() == 2 * (hand[0] + 3 * sum(hand[1:])) == 707_777_088
    # The airbench README gives 0.36 PFLOPs for a whole airbench94 run (476 steps + 6-view TTA).
    est = fs.airbench_seconds_estimate(100)
    pflops = (476 * 1024 * est["flops_per_train_image"] + 10_000 * est["flops_per_test_image"]) / 1e15
    assert pflops == pytest.approx(0.36, abs=0.005)
    assert est["seconds_per_epoch"] == pytest.approx(49_152 * 707_777_088 / 100e9)
    assert est["train_seconds"] == pytest.approx(476 * 1024 * 707_777_088 / 100e9)
    # The MNIST CNN: conv1 26²·32·9, conv2 24²·64·32·9, fc1 9216·128, fc2 128·10 multiply-adds.
    mnist = [26 * 26 * 32 * 9, 24 * 24 * 64 * 32 * 9, 9216 * 128, 128 * 10]
    assert fs.small_cnn_flops_per_image(training=False) == 2 * sum(mnist)
    assert fs.small_cnn_flops_per_image() == 2 * (2 * mnist[0] + 3 * sum(mnist[1:]))


# --------------------------------------------------------------------------- the MNIST CNN

def test_small_cnn_runs_learns_and_is_reproducible(one_thread):
    X, y = brightness_toy(512, 0)
    Xt, yt = brightness_toy(128, 1)
    a = fs.train_small_cnn(X, y, Xt, yt, seed=3, epochs=2)
    check_result(a, fs.PYTORCH_MNIST_CNN)
    assert (a["epochs_run"], a["steps_run"], a["total_steps"]) == (2.0, 16, 16)
    assert a["accuracy"] == a["accuracy_no_tta"] > 90  # Adadelta starts slowly: 8 steps are not enough
    b = fs.train_small_cnn(X.reshape(512, 784), y, Xt[:, None], yt, seed=3, epochs=2)  # other layouts
    assert a["accuracy"] == b["accuracy"] and a["weights_sha256"] == b["weights_sha256"]
    translated = dataclasses.replace(fs.PYTORCH_MNIST_CNN, translate=2)
    c = fs.train_small_cnn(X[:128], y[:128], Xt, yt, seed=3, epochs=1, recipe=translated)
    check_result(c, translated)


def test_small_cnn_time_budget_and_bad_inputs():
    X, y = brightness_toy(256, 0)
    Xt, yt = brightness_toy(32, 1)
    r = fs.train_small_cnn(X, y, Xt, yt, seed=0, epochs=14, time_budget=0.01)
    assert r["stopped_early"] and r["epochs_run"] < 14 and r["steps_run"] >= 1
    with pytest.raises(ValueError, match="X_train must have shape"):
        fs.train_small_cnn(np.zeros((8, 32, 32, 3), np.uint8), y[:8], Xt, yt, seed=0)
    with pytest.raises(ValueError, match="mismatched lengths"):
        fs.train_small_cnn(X, y[:10], Xt, yt, seed=0)
    with pytest.raises(ValueError, match="out of range"):
        fs.train_small_cnn(X, y + 9, Xt, yt, seed=0)


def test_the_weights_memory_format_is_the_recipes_on_cuda_and_the_measured_one_on_the_cpu():
    assert fs.airbench_channels_last("cuda") is True
    assert fs.airbench_channels_last("cpu") is fs.CPU_CHANNELS_LAST
    for channels_last in (False, True):
        torch.manual_seed(0)
        net = fs.make_airbench_net(NARROW, device="cpu", channels_last=channels_last)
        conv = net[2].conv1.weight
        assert conv.is_contiguous(memory_format=torch.channels_last) is channels_last
        assert conv.is_contiguous() is not channels_last


def test_both_memory_formats_train_the_same_net_to_rounding(one_thread):
    """channels_last reorders the convolutions' sums, nothing else: one seed's short runs in the two
    formats end with the same weights to float32 rounding and the same predictions."""
    X, y = colour_toy(256, 0)
    Xt, yt = colour_toy(64, 1)
    runs = {channels_last: fs.train_airbench(X, y, Xt, yt, seed=3, epochs=2, recipe=NARROW, device="cpu",
                                             channels_last=channels_last, return_model=True)
            for channels_last in (False, True)}
    assert runs[False]["memory_format"] == "contiguous" and runs[True]["memory_format"] == "channels_last"
    contiguous, last = (runs[c]["model"].state_dict() for c in (False, True))
    assert contiguous.keys() == last.keys()
    for name, value in contiguous.items():
        assert torch.allclose(value.float(), last[name].float(), rtol=1e-3, atol=1e-4), name
    assert runs[False]["accuracy"] == runs[True]["accuracy"]
    assert runs[False]["steps_run"] == runs[True]["steps_run"] == 8


def test_a_recipe_s_convolutional_layers_are_counted_on_its_built_network():
    """The no-GPU claim names each CPU-trained CNN's depth: airbench94's whitening layer and its three groups'
    two convolutions each (7), the PyTorch examples' CNN's two; an unknown recipe is refused by name."""
    from greenelm_book.chapters.fast_sgd import recipe_conv_layers

    assert recipe_conv_layers("airbench94") == 7 and recipe_conv_layers("pytorch-mnist-cnn") == 2
    with pytest.raises(ValueError, match="no recipe named 'resnet'"):
        recipe_conv_layers("resnet")
