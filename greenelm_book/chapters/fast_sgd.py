"""Strong SGD opponents at equal seconds: the airbench94 recipe (CIFAR-10) and a small MNIST CNN.

The frontier chapter compares Green-ELM's one-shot models with the best published fast-training SGD
recipes that run in torch on a CPU (issue 49, item 6).

CIFAR-10: airbench94
--------------------
:func:`train_airbench` reimplements airbench94 of Keller Jordan, "94% on CIFAR-10 in 3.29 Seconds
on a Single GPU" (arXiv:2404.00498), from ``legacy/airbench94.py`` of
https://github.com/KellerJordan/cifar10-airbench (commit f1c599c4af24aca803e3e65a6a7e52a502e09d0e;
``airbench/lib_airbench94.py`` + ``airbench/utils.py`` there hold the same recipe, and
``legacy/airbench94_compiled.py`` adds ``torch.compile`` and a second compiled copy of the net that
freezes the whitening bias after 3 epochs). Every part of the recipe is
reproduced (one deliberate change is named below):

* the net: a frozen 2×2 patch-whitening convolution (3 → 24 channels: the 12 eigenvectors of the
  patch covariance of the first 5000 training images, scaled by 1/√(λ+5e-4), and their negations)
  with a learnable bias that trains for the first 3 epochs, GELU, three conv groups
  (conv3×3 – maxpool2 – BatchNorm – GELU – conv3×3 – BatchNorm – GELU; widths 64, 256, 256; convs
  without bias, identity (Dirac) initialised where the shapes allow; BatchNorm with frozen unit
  weight, learnable bias, ε = 1e-12, running-average momentum 0.4), maxpool3, a bias-free linear
  readout scaled by 1/9;
* the optimiser: Nesterov SGD, momentum 0.85, on the summed (not averaged) label-smoothed (0.2)
  cross-entropy of batches of 1024 (last partial batch dropped), learning rate 11.5 and weight decay
  0.0153 "per 1024 examples" in the recipe's decoupled form (torch lr = 11.5 / (1024·(1 + 1/(1-0.85))),
  weight decay wd/lr per parameter group), BatchNorm biases at 64× the learning rate;
* the schedule: 9.9 epochs (⌈48·9.9⌉ = 476 steps on 50 000 images), the learning rate factor rising
  linearly from 0.2 to 1 over the first ⌊0.23·T⌋ steps, then falling linearly to 0.07 at step T
  (:func:`airbench_lr_factor`);
* lookahead: every 5 steps the weights (and BatchNorm running statistics) move to an exponential
  average with decay 0.95⁵·(step/T)³, which they are then reset to; at the end the net takes the
  average's weights (so, as in the recipe, a run of fewer than 5 steps ends where it started);
* augmentation: 2-pixel random translation (reflect padding, one fresh shift per image and epoch)
  and alternating flip (each image flipped at random once, then the whole set flipped on every odd
  epoch, so every image alternates between its two mirror images);
* test-time augmentation (level 2): the mean of the logits of the image and its mirror, averaged
  with the same for the image translated one pixel up-left and one down-right (6 forward passes).

One deliberate change: the recipe copies the net into its lookahead average *before* the whitening
initialisation, so its final whitening filters keep a share of their random initialisation (the
product of the lookahead decays, at most 0.95⁵·(5/476)³ ≈ 9e-7 in the published run, much more in
short runs); we take the copy after it, so the frozen filters stay exactly the data-derived ones. A ``time_budget`` stop is ours too (see
:func:`train_airbench`).

What differs on the CPU: the GPU recipe keeps the net in half precision (BatchNorm in float32) and
``channels_last`` with cuDNN autotuning (``cudnn.benchmark``). On the CPU everything is float32 in the
default memory format; with CUDA available the recipe's own half precision and ``channels_last`` are
used (``dtype=`` overrides; that CUDA path follows the recipe but has not been run yet: no GPU was
at hand when this module was written). The recipe's GPU data loader becomes tensor indexing on the same device;
its random draws are the recipe's (one flip mask, one shift per image and epoch, one permutation per
epoch), taken from a ``torch.Generator`` seeded with ``seed``, while the weights are initialised after
``torch.manual_seed(seed)`` (inside ``torch.random.fork_rng``, so the caller's global generator is
left as it was). One seed therefore gives the same run: on the CPU bit for bit given the same torch
build and thread count, as far as torch's CPU kernels are deterministic (they are for these layers
in our tests); on CUDA ``cudnn.benchmark`` may pick different kernels from run to run, so only
statistically. The recipe times whitening initialisation, training and the final TTA evaluation
together (its "3.83 s"); ``seconds`` here is whitening initialisation plus training (augmentation
included), and ``eval_seconds`` the evaluation, reported apart.

MNIST and Fashion-MNIST: the PyTorch examples' CNN
--------------------------------------------------
:func:`train_small_cnn` is the ``Net`` of ``mnist/main.py`` in https://github.com/pytorch/examples
(conv3×3 1→32 – ReLU – conv3×3 32→64 – ReLU – maxpool2 – dropout 0.25 – linear 9216→128 – ReLU –
dropout 0.5 – linear 128→10 – log-softmax) trained as that script does: Adadelta (learning rate 1.0,
torch's defaults otherwise), ``StepLR(step_size=1, gamma=0.7)`` stepped after each epoch, batches of
64, 14 epochs, inputs normalised with MNIST's mean 0.1307 and standard deviation 0.3081 (for
Fashion-MNIST too, as the script would). Two documented departures: the training set is reshuffled
every epoch (the script shuffles only when an accelerator is used; only when CUDA is
used before pytorch/examples 65722fe, 2025-04-30), and :class:`SmallCNNRecipe` has an optional
random-translation augmentation (``translate``, off by default, as in the script). It has no
test-time augmentation, so ``accuracy == accuracy_no_tta``.

Compute, without a benchmark
----------------------------
Counting a multiply-add as 2 FLOPs over the convolutions and linear layers (BatchNorm, GELU, pooling
and the optimiser are elementwise and left out) from the layer shapes, with a training image costing
the forward pass, the gradient with respect to each layer's input (not for the first layer, whose
input is the image) and with respect to each trained weight (not for the frozen whitening weights):

* airbench94 forward: 118 147 360 multiply-adds = 236.3 MFLOPs per image (the block-2 first
  convolution alone, 64→256 channels 3×3 on 15×15, is 2·15·15·256·64·9 = 66.4 MFLOPs);
* airbench94 training: **707.8 MFLOPs per training image** (:func:`airbench_flops_per_image`);
  an epoch of 48·1024 = 49 152 images is 34.8 TFLOPs, i.e. **≈ 348 s per epoch at 100 GFLOP/s**
  (:func:`airbench_seconds_estimate`), ≈ 57 min for the recipe's 9.9 epochs plus ≈ 2.4 min for the
  6-view test-time augmentation of 10 000 test images. The whole run is 0.359 PFLOPs, the figure
  the airbench README (0.36 PFLOPs) and the header of ``legacy/airbench94_compiled.py`` (358 TFLOPs)
  give for airbench94, which supports this count (that header's "0.28 GFLOPs per forward pass" is
  looser than the 0.236 counted here);
* the MNIST CNN: 24.0 MFLOPs forward, 71.6 MFLOPs per training image, 4.3 TFLOPs per 60 000-image
  epoch, ≈ 43 s per epoch at 100 GFLOP/s (:func:`small_cnn_flops_per_image`).

A CPU's sustained rate on these convolutions must be measured on the machine that runs the chapter
(two cores typically give tens of GFLOP/s in float32); the estimate scales inversely with it.
"""

from __future__ import annotations

import dataclasses
import hashlib
import math
import numbers
import time
from dataclasses import dataclass

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

__all__ = [
    "AirbenchRecipe", "AIRBENCH94", "SmallCNNRecipe", "PYTORCH_MNIST_CNN",
    "train_airbench", "train_small_cnn", "make_airbench_net", "airbench_optimizer", "airbench_channels_last",
    "CPU_CHANNELS_LAST",
    "airbench_lr_factor", "init_whitening_conv", "make_small_cnn", "layer_flops", "recipe_conv_layers",
    "airbench_flops_per_image", "small_cnn_flops_per_image", "airbench_seconds_estimate",
]


# --------------------------------------------------------------------------- recipes

def _positive_int(name, value) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ValueError(f"{name} must be an integer >= 1, got {value!r}")
    return int(value)


def _positive_number(name, value) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(value) or value <= 0:
        raise ValueError(f"{name} must be a finite number > 0, got {value!r}")
    return float(value)


@dataclass(frozen=True)
class AirbenchRecipe:
    """The airbench94 hyper-parameters, with their published values.

    Source: ``hyp`` and the code of ``legacy/airbench94.py`` (identical in
    ``airbench/lib_airbench94.py`` + ``airbench/utils.py``) of github.com/KellerJordan/cifar10-airbench,
    commit f1c599c; the paper is arXiv:2404.00498.

    * ``train_epochs`` 9.9, ``batch_size`` 1024, ``lr`` 11.5 (per 1024 examples), ``momentum`` 0.85
      (Nesterov), ``weight_decay`` 0.0153 (per 1024 examples), ``bias_scaler`` 64 (BatchNorm biases'
      learning-rate multiplier), ``label_smoothing`` 0.2, ``whiten_bias_epochs`` 3: ``hyp['opt']``;
    * ``flip`` True, ``translate`` 2: ``hyp['aug']``; ``alternating_flip`` True: ``train94``'s loader
      (``altflip=True``) and the legacy script's every-other-epoch flip;
    * ``widths`` (64, 256, 256), ``batchnorm_momentum`` 0.6 (torch momentum 1 − 0.6),
      ``scaling_factor`` 1/9, ``tta_level`` 2: ``hyp['net']``;
    * ``bn_eps`` 1e-12: the ``BatchNorm`` class; ``whiten_kernel_size`` 2, ``whiten_eps`` 5e-4 and
      ``whiten_images`` 5000: ``make_net`` / ``init_whitening_conv`` / ``main``;
    * ``lr_peak`` 0.23, ``lr_start`` 0.2, ``lr_end`` 0.07: ``get_lr`` (``lr_peak``/``lr_end`` are
      arguments of ``utils.train``);
    * ``lookahead_every`` 5, ``lookahead_base`` 0.95⁵, ``lookahead_power`` 3: the lookahead calls and
      ``alpha_schedule`` in ``main``;
    * ``eval_batch`` 2000: ``infer``; ``cifar_mean``/``cifar_std``: ``CIFAR_MEAN``/``CIFAR_STD``;
    * ``num_classes`` 10: the readout ``nn.Linear(widths['block3'], 10)``.

    ``dataclasses.replace(AIRBENCH94, ...)`` gives a variant (the tests use narrow widths and small
    batches to run in seconds); anything but :data:`AIRBENCH94` itself is no longer the recipe.
    """

    train_epochs: float = 9.9
    batch_size: int = 1024
    lr: float = 11.5
    momentum: float = 0.85
    weight_decay: float = 0.0153
    bias_scaler: float = 64.0
    label_smoothing: float = 0.2
    whiten_bias_epochs: int = 3
    flip: bool = True
    alternating_flip: bool = True
    translate: int = 2
    widths: tuple[int, int, int] = (64, 256, 256)
    batchnorm_momentum: float = 0.6
    bn_eps: float = 1e-12
    scaling_factor: float = 1 / 9
    tta_level: int = 2
    whiten_kernel_size: int = 2
    whiten_eps: float = 5e-4
    whiten_images: int = 5000
    lr_peak: float = 0.23
    lr_start: float = 0.2
    lr_end: float = 0.07
    lookahead_every: int = 5
    lookahead_base: float = 0.95 ** 5
    lookahead_power: float = 3.0
    eval_batch: int = 2000
    cifar_mean: tuple[float, float, float] = (0.4914, 0.4822, 0.4465)
    cifar_std: tuple[float, float, float] = (0.2470, 0.2435, 0.2616)
    num_classes: int = 10

    def __post_init__(self):
        for name in ("batch_size", "whiten_kernel_size", "whiten_images", "lookahead_every",
                     "eval_batch", "num_classes"):
            _positive_int(name, getattr(self, name))
        _positive_number("train_epochs", self.train_epochs)
        _positive_number("lr", self.lr)
        if len(self.widths) != 3:
            raise ValueError(f"widths must be three block widths, got {self.widths!r}")
        for w in self.widths:
            _positive_int("widths", w)
        if self.tta_level not in (0, 1, 2):
            raise ValueError(f"tta_level must be 0, 1 or 2, got {self.tta_level!r}")
        if not (0 <= self.momentum < 1):
            raise ValueError(f"momentum must be in [0, 1), got {self.momentum!r}")
        if not (isinstance(self.translate, (int, np.integer)) and 0 <= self.translate < 16):
            raise ValueError(f"translate must be an integer number of pixels in [0, 16), got {self.translate!r}")

    def as_dict(self) -> dict:
        """The hyper-parameters as a plain dict (tuples as lists), for JSON records."""
        return {k: list(v) if isinstance(v, tuple) else v for k, v in dataclasses.asdict(self).items()}


#: the published airbench94 recipe.
AIRBENCH94 = AirbenchRecipe()


@dataclass(frozen=True)
class SmallCNNRecipe:
    """The PyTorch examples' MNIST recipe (``mnist/main.py`` of github.com/pytorch/examples).

    ``epochs`` 14, ``batch_size`` 64, ``lr`` 1.0 (Adadelta), ``gamma`` 0.7 (``StepLR`` per epoch):
    the script's argument defaults; ``mean``/``std`` 0.1307/0.3081: its ``transforms.Normalize``;
    ``dropout`` (0.25, 0.5), ``channels`` (32, 64), ``hidden`` 128: its ``Net``; ``eval_batch`` 1000:
    its test batch size. ``translate`` (pixels of random translation, zero padding) is ours and 0,
    as in the script; ``num_classes`` 10.
    """

    epochs: int = 14
    batch_size: int = 64
    lr: float = 1.0
    gamma: float = 0.7
    mean: float = 0.1307
    std: float = 0.3081
    dropout: tuple[float, float] = (0.25, 0.5)
    channels: tuple[int, int] = (32, 64)
    hidden: int = 128
    eval_batch: int = 1000
    translate: int = 0
    num_classes: int = 10

    def __post_init__(self):
        for name in ("epochs", "batch_size", "hidden", "eval_batch", "num_classes"):
            _positive_int(name, getattr(self, name))
        _positive_number("lr", self.lr)
        if not (isinstance(self.translate, (int, np.integer)) and 0 <= self.translate < 14):
            raise ValueError(f"translate must be an integer number of pixels in [0, 14), got {self.translate!r}")

    def as_dict(self) -> dict:
        """The hyper-parameters as a plain dict (tuples as lists), for JSON records."""
        return {k: list(v) if isinstance(v, tuple) else v for k, v in dataclasses.asdict(self).items()}


#: the published PyTorch-examples MNIST recipe.
PYTORCH_MNIST_CNN = SmallCNNRecipe()


# --------------------------------------------------------------------------- input checks

def _seed(seed) -> int:
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or not 0 <= seed < 2**63:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    return int(seed)


def _as_numpy(name, X) -> np.ndarray:
    if isinstance(X, torch.Tensor):
        X = X.detach().cpu().numpy()
    X = np.asarray(X)
    if X.dtype == object:
        raise ValueError(f"{name} must be a numeric array, got dtype object")
    return X


def _images(name: str, X, size: int, channels: int) -> torch.Tensor:
    """``X`` as a float32 tensor (N, channels, size, size) in [0, 1].

    Accepted: uint8 (0..255, divided by 255) or floating (already in [0, 1]) arrays of shape
    (N, size, size, channels) (HWC, as ``greenelm.load_dataset`` gives), (N, channels, size, size),
    (N, size·size·channels) (flat HWC rows, as ``Dataset.flat`` gives) and, for one channel,
    (N, size, size).
    """
    X = _as_numpy(name, X)
    hwc, chw, flat = (size, size, channels), (channels, size, size), size * size * channels
    if X.ndim == 4 and X.shape[1:] == hwc:
        layout = "hwc"
    elif X.ndim == 4 and X.shape[1:] == chw:
        layout = "chw"
    elif X.ndim == 2 and X.shape[1] == flat:
        layout = "flat"
    elif channels == 1 and X.ndim == 3 and X.shape[1:] == (size, size):
        layout = "grey"
    else:
        accepted = [f"(N, {size}, {size}, {channels})", f"(N, {channels}, {size}, {size})", f"(N, {flat})"]
        if channels == 1:
            accepted.append(f"(N, {size}, {size})")
        raise ValueError(f"{name} must have shape {' or '.join(accepted)}, got {X.shape}")
    if len(X) == 0:
        raise ValueError(f"{name} holds no images")
    if X.dtype == np.uint8:
        out = torch.from_numpy(np.array(X, dtype=np.float32)).div_(255)  # a copy: X may be read-only
    elif np.issubdtype(X.dtype, np.floating):
        out = torch.from_numpy(np.array(X, dtype=np.float32))
        if not torch.isfinite(out).all():
            raise ValueError(f"{name} holds NaN or infinite values")
        lo, hi = float(out.min()), float(out.max())
        if lo < 0 or hi > 1:
            raise ValueError(f"{name} is floating but not in [0, 1] (min {lo:g}, max {hi:g}): pass uint8 "
                             "images or floats scaled to [0, 1], not standardised ones")
    else:
        raise ValueError(f"{name} must be uint8 or floating, got dtype {X.dtype}")
    if layout == "hwc":
        out = out.permute(0, 3, 1, 2)
    elif layout == "flat":
        out = out.reshape(len(out), size, size, channels).permute(0, 3, 1, 2)
    elif layout == "grey":
        out = out.unsqueeze(1)
    # Standard strides whatever the layout: a permuted (N, H, W, 1) array counts as contiguous with
    # channels-last strides, which would send the convolutions down another (not bit-identical) path.
    return out.clone(memory_format=torch.contiguous_format)


def _labels(name: str, y, n: int, num_classes: int, x_name: str) -> torch.Tensor:
    y = _as_numpy(name, y)
    if y.ndim != 1:
        raise ValueError(f"{name} must be a 1-D array of class labels, got shape {y.shape}")
    if len(y) != n:
        raise ValueError(f"{name} has {len(y)} labels but {x_name} has {n} images (mismatched lengths)")
    if not (np.issubdtype(y.dtype, np.integer) or y.dtype == bool):
        if np.issubdtype(y.dtype, np.floating) and np.all(np.isfinite(y)) and np.all(y == np.round(y)):
            y = y.astype(np.int64)
        else:
            raise ValueError(f"{name} must hold integer class labels, got dtype {y.dtype}")
    if len(y) and (y.min() < 0 or y.max() >= num_classes):
        raise ValueError(f"{name} labels out of range: must be in 0..{num_classes - 1}, "
                         f"got min {y.min()} and max {y.max()}")
    return torch.from_numpy(y.astype(np.int64))


def _budget(time_budget) -> float | None:
    if time_budget is None:
        return None
    return _positive_number("time_budget", time_budget)


def _device(device) -> torch.device:
    if device is None:
        device = "cuda" if torch.cuda.is_available() else "cpu"
    return torch.device(device)


#: airbench94's weights in ``channels_last`` on the CPU too: ``benchmarks/airbench_cpu`` measures the
#: recipe's training steps in both memory formats, alternating in one process (on two AMD EPYC cores:
#: 8.0–8.1 s per step contiguous, 6.0–8.6 s channels_last, neither faster in every run), so contiguous stays
CPU_CHANNELS_LAST = False


def airbench_channels_last(device) -> bool:
    """Whether airbench94 keeps its weights in ``channels_last`` on ``device``: always on CUDA, as
    the recipe does; on the CPU as :data:`CPU_CHANNELS_LAST` (the faster format here)."""
    return True if _device(device).type == "cuda" else CPU_CHANNELS_LAST


def _channels_last(device, channels_last) -> bool:
    """``channels_last`` as asked (True or False), or :func:`airbench_channels_last` of ``device`` when None."""
    if channels_last is None:
        return airbench_channels_last(device)
    if not isinstance(channels_last, (bool, np.bool_)):
        raise ValueError(f"channels_last must be True or False, got {channels_last!r}")
    return bool(channels_last)


def _airbench_dtype(device: torch.device, dtype):
    """``dtype`` as asked, or airbench94's default when None: float16 on CUDA, float32 on the CPU."""
    if dtype is None:
        return torch.float16 if device.type == "cuda" else torch.float32
    return dtype


def _sync(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def _run_record(net: nn.Module, recipe, *, accuracy, accuracy_no_tta, seconds, eval_seconds, steps: int,
                steps_per_epoch: int, epochs, total_steps: int, stopped_early: bool, per_epoch: list, seed: int,
                n_train: int, n_test: int, device, dtype: str, return_model: bool) -> dict:
    """What both trainers return: accuracies, seconds, the steps run against the schedule, the weights'
    checksum and the setting (the trained ``net`` under ``"model"`` when ``return_model``)."""
    result = {
        "accuracy": accuracy, "accuracy_no_tta": accuracy_no_tta, "seconds": seconds,
        "eval_seconds": eval_seconds, "epochs_run": steps / steps_per_epoch, "epochs": float(epochs),
        "steps_run": steps, "total_steps": total_steps, "stopped_early": stopped_early,
        "per_epoch": per_epoch, "weights_sha256": _checksum(net), "seed": seed,
        "n_train": n_train, "n_test": n_test, "device": str(device), "dtype": dtype,
        "threads": torch.get_num_threads(), "recipe": recipe.as_dict(),
    }
    if return_model:
        result["model"] = net
    return result


def _checksum(model: nn.Module) -> str:
    """sha256 of the model's state (every tensor's bytes in state-dict order), for reproducibility."""
    h = hashlib.sha256()
    for k, v in model.state_dict().items():
        h.update(k.encode())
        h.update(v.detach().to("cpu").contiguous().numpy().tobytes())
    return h.hexdigest()


def _fork_rng(device: torch.device):
    return torch.random.fork_rng(devices=[device] if device.type == "cuda" else [])


# --------------------------------------------------------------------------- airbench94: the net

class _Mul(nn.Module):
    def __init__(self, scale: float):
        super().__init__()
        self.scale = scale

    def forward(self, x):
        return x * self.scale


class _BatchNorm(nn.BatchNorm2d):
    """The recipe's BatchNorm: frozen unit weight, learnable zero-initialised bias."""

    def __init__(self, num_features: int, momentum: float, eps: float):
        super().__init__(num_features, eps=eps, momentum=1 - momentum)
        self.weight.requires_grad = False
        self.bias.requires_grad = True


class _Conv(nn.Conv2d):
    """The recipe's conv: torch's default init, then Dirac (identity) on the first in_channels filters."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size: int = 3, padding="same",
                 bias: bool = False):
        super().__init__(in_channels, out_channels, kernel_size=kernel_size, padding=padding, bias=bias)

    def reset_parameters(self):
        super().reset_parameters()
        if self.bias is not None:
            self.bias.data.zero_()
        w = self.weight.data
        torch.nn.init.dirac_(w[:w.size(1)])


class _ConvGroup(nn.Module):
    def __init__(self, channels_in: int, channels_out: int, momentum: float, eps: float):
        super().__init__()
        self.conv1 = _Conv(channels_in, channels_out)
        self.pool = nn.MaxPool2d(2)
        self.norm1 = _BatchNorm(channels_out, momentum, eps)
        self.conv2 = _Conv(channels_out, channels_out)
        self.norm2 = _BatchNorm(channels_out, momentum, eps)
        self.activ = nn.GELU()

    def forward(self, x):
        x = self.activ(self.norm1(self.pool(self.conv1(x))))
        return self.activ(self.norm2(self.conv2(x)))


def make_airbench_net(recipe: AirbenchRecipe = AIRBENCH94, device=None, dtype=None,
                      channels_last: bool | None = None) -> nn.Sequential:
    """The airbench94 net (input (N, 3, 32, 32) normalised images → logits (N, num_classes)).

    Initialised from torch's global generator (call ``torch.manual_seed`` first); the whitening
    layer ``net[0]`` has ``weight.requires_grad = False`` and still needs
    :func:`init_whitening_conv`. ``dtype`` defaults to float16 (BatchNorm kept in float32) on CUDA,
    as in the recipe, and float32 elsewhere; ``channels_last`` (the weights' memory format) to
    :func:`airbench_channels_last` of the device.
    """
    device = _device(device)
    dtype = _airbench_dtype(device, dtype)
    channels_last = _channels_last(device, channels_last)
    k = recipe.whiten_kernel_size
    whiten_width = 2 * 3 * k ** 2
    w1, w2, w3 = recipe.widths
    m, eps = recipe.batchnorm_momentum, recipe.bn_eps
    net = nn.Sequential(
        _Conv(3, whiten_width, k, padding=0, bias=True),
        nn.GELU(),
        _ConvGroup(whiten_width, w1, m, eps),
        _ConvGroup(w1, w2, m, eps),
        _ConvGroup(w2, w3, m, eps),
        nn.MaxPool2d(3),
        nn.Flatten(),
        nn.Linear(w3, recipe.num_classes, bias=False),
        _Mul(recipe.scaling_factor),
    )
    net[0].weight.requires_grad = False
    net = net.to(device=device, dtype=dtype)
    if channels_last:
        net = net.to(memory_format=torch.channels_last)
    for mod in net.modules():
        if isinstance(mod, _BatchNorm):
            mod.float()
    return net


def init_whitening_conv(layer: nn.Conv2d, images: torch.Tensor, eps: float = AIRBENCH94.whiten_eps) -> None:
    """Set ``layer``'s weights (2·c·k², c, k, k) to the patch-whitening filters of ``images``.

    ``images``: normalised (N, c, H, W). The recipe's ``get_patches`` / ``get_whitening_parameters``
    / ``init_whitening_conv``: eigenvectors of the uncentred k×k patch covariance, largest
    eigenvalue first, divided by √(λ + eps), stacked with their negations.
    """
    h, w = layer.weight.shape[2:]
    c = images.shape[1]
    patches = images.unfold(2, h, 1).unfold(3, w, 1).transpose(1, 3).reshape(-1, c, h, w).float()
    n = patches.shape[0]
    flat = patches.view(n, -1)
    covariance = (flat.T @ flat) / n
    eigenvalues, eigenvectors = torch.linalg.eigh(covariance, UPLO="U")
    eigenvalues = eigenvalues.flip(0).view(-1, 1, 1, 1)
    eigenvectors = eigenvectors.T.reshape(c * h * w, c, h, w).flip(0)
    scaled = eigenvectors / torch.sqrt(eigenvalues + eps)
    with torch.no_grad():
        layer.weight.data[:] = torch.cat((scaled, -scaled)).to(layer.weight.dtype)


def airbench_lr_factor(step: int, total_steps: int, recipe: AirbenchRecipe = AIRBENCH94) -> float:
    """The recipe's ``get_lr``: the learning-rate multiplier after ``step`` optimiser steps.

    With W = ⌊lr_peak·T⌋: lr_start + (1 − lr_start)·step/W while step < W, then
    1 + (lr_end − 1)·(step − W)/(T − W).
    """
    warmup_steps = int(total_steps * recipe.lr_peak)
    warmdown_steps = total_steps - warmup_steps
    if step < warmup_steps:
        frac = step / warmup_steps
        return recipe.lr_start * (1 - frac) + 1.0 * frac
    frac = (step - warmup_steps) / warmdown_steps
    return 1.0 * (1 - frac) + recipe.lr_end * frac


def airbench_optimizer(net: nn.Module, total_steps: int, recipe: AirbenchRecipe = AIRBENCH94):
    """(optimizer, scheduler) as in the recipe: Nesterov SGD with two parameter groups and LambdaLR.

    Group 0: the BatchNorm biases at lr·bias_scaler; group 1: every other trainable parameter at
    lr = recipe.lr / (1024·(1 + 1/(1 − momentum))). Both have weight decay wd/lr_group with
    wd = weight_decay·batch_size / (1024·(1 + 1/(1 − momentum))), so the decay per step is wd times
    the schedule's factor. Frozen parameters (the whitening weights, BatchNorm weights) are left out.
    """
    kilostep_scale = 1024 * (1 + 1 / (1 - recipe.momentum))
    lr = recipe.lr / kilostep_scale
    wd = recipe.weight_decay * recipe.batch_size / kilostep_scale
    lr_biases = lr * recipe.bias_scaler
    norm_biases = [p for k, p in net.named_parameters() if "norm" in k and p.requires_grad]
    other_params = [p for k, p in net.named_parameters() if "norm" not in k and p.requires_grad]
    optimizer = torch.optim.SGD([dict(params=norm_biases, lr=lr_biases, weight_decay=wd / lr_biases),
                                 dict(params=other_params, lr=lr, weight_decay=wd / lr)],
                                momentum=recipe.momentum, nesterov=True)
    scheduler = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda step: airbench_lr_factor(step, total_steps, recipe))
    return optimizer, scheduler


class _Lookahead:
    """The recipe's ``LookaheadState``: an EMA of the whole state dict that the net is reset to."""

    def __init__(self, net: nn.Module):
        self.net_ema = {k: v.clone() for k, v in net.state_dict().items()}

    @torch.no_grad()
    def update(self, net: nn.Module, decay: float) -> None:
        for ema, param in zip(self.net_ema.values(), net.state_dict().values()):
            if param.dtype in (torch.half, torch.float):
                ema.lerp_(param, 1 - decay)
                param.copy_(ema)


# --------------------------------------------------------------------------- airbench94: data

def _batch_crop(padded: torch.Tensor, shifts: torch.Tensor, crop: int, r: int) -> torch.Tensor:
    """The recipe's ``batch_crop``: image i cropped at offset (r + shifts[i, 0], r + shifts[i, 1])."""
    out = torch.empty((len(padded), padded.shape[1], crop, crop), device=padded.device, dtype=padded.dtype)
    for sy in range(-r, r + 1):
        for sx in range(-r, r + 1):
            mask = (shifts[:, 0] == sy) & (shifts[:, 1] == sx)
            if mask.any():
                out[mask] = padded[mask, :, r + sy:r + sy + crop, r + sx:r + sx + crop]
    return out


def _preflip_and_pad(images: torch.Tensor, gen: torch.Generator, recipe: AirbenchRecipe) -> torch.Tensor:
    """The recipe's first-epoch preprocessing of normalised images (N, 3, 32, 32): flip each at random
    once (``flip``), then reflect-pad by ``translate`` pixels → (N, 3, 32 + 2r, 32 + 2r)."""
    if recipe.flip:
        flip_mask = (torch.rand(len(images), generator=gen) < 0.5).to(images.device).view(-1, 1, 1, 1)
        images = torch.where(flip_mask, images.flip(-1), images)
    r = recipe.translate
    return F.pad(images, (r,) * 4, "reflect") if r > 0 else images


def _epoch_batches(images: torch.Tensor, epoch: int, gen: torch.Generator, recipe: AirbenchRecipe):
    """Yield (indices (B,), inputs (B, 3, 32, 32)) for one epoch (0-based) of the recipe's loader.

    ``images`` come from :func:`_preflip_and_pad`. One shift per image (translation), then on odd
    epochs every image mirrored (alternating flip; with ``alternating_flip=False`` a fresh random flip
    instead), one permutation; the last partial batch is dropped. Draws come from ``gen``.
    """
    device, n, r, bs = images.device, len(images), recipe.translate, recipe.batch_size
    if r > 0:
        shifts = torch.randint(-r, r + 1, size=(n, 2), generator=gen).to(device)
    flip_all = recipe.flip and recipe.alternating_flip and epoch % 2 == 1
    if recipe.flip and not recipe.alternating_flip:
        rand_flip = (torch.rand(n, generator=gen) < 0.5).to(device)
    order = torch.randperm(n, generator=gen).to(device)
    for i in range(n // bs):
        idx = order[i * bs:(i + 1) * bs]
        inputs = _batch_crop(images[idx], shifts[idx], images.shape[-1] - 2 * r, r) if r > 0 else images[idx]
        if flip_all:
            inputs = inputs.flip(-1)
        elif recipe.flip and not recipe.alternating_flip:
            inputs = torch.where(rand_flip[idx].view(-1, 1, 1, 1), inputs.flip(-1), inputs)
        yield idx, inputs


@torch.no_grad()
def _infer(net: nn.Module, images: torch.Tensor, tta_level: int, eval_batch: int) -> torch.Tensor:
    """The recipe's ``infer``: logits (N, k) of normalised images (N, 3, 32, 32) at a TTA level."""

    def mirror(x):
        return 0.5 * net(x) + 0.5 * net(x.flip(-1))

    def mirror_translate(x):
        logits = mirror(x)
        padded = F.pad(x, (1,) * 4, "reflect")
        size = x.shape[-1]
        translated = [mirror(padded[:, :, 0:size, 0:size]), mirror(padded[:, :, 2:size + 2, 2:size + 2])]
        return 0.5 * logits + 0.5 * torch.stack(translated).mean(0)

    fn = [lambda x: net(x).clone(), mirror, mirror_translate][tta_level]
    net.eval()
    return torch.cat([fn(x).float() for x in images.split(eval_batch)])


def _accuracy(net, images, labels, tta_level, eval_batch) -> float:
    logits = _infer(net, images, tta_level, eval_batch)
    return 100.0 * (logits.argmax(1) == labels).float().mean().item()


# --------------------------------------------------------------------------- airbench94: training

def train_airbench(X_train, y_train, X_test, y_test, *, seed: int, epochs: float | None = None,
                   time_budget: float | None = None, progress: bool = False,
                   eval_every_epoch: bool = False, recipe: AirbenchRecipe = AIRBENCH94,
                   device=None, dtype=None, channels_last: bool | None = None,
                   return_model: bool = False) -> dict:
    """Train airbench94 on 32×32 RGB images and report its test accuracy.

    Parameters
    ----------
    X_train, X_test : uint8 (0..255) or floating (in [0, 1]) arrays or tensors of shape
        (N, 32, 32, 3) (HWC, as ``greenelm.load_dataset("cifar10")`` gives), (N, 3, 32, 32), or
        (N, 3072) flat HWC rows; each is normalised with the recipe's CIFAR-10 mean and std.
    y_train, y_test : integer labels (N,) in 0..recipe.num_classes-1.
    seed : seeds the initialisation (``torch.manual_seed``) and every data draw (a ``torch.Generator``).
    epochs : length of the run and of its schedule (default ``recipe.train_epochs``, 9.9); may be
        fractional: ⌈(N // batch_size)·epochs⌉ steps.
    time_budget : seconds; training stops after the first step that takes the training time
        (whitening initialisation included) to it. The learning-rate and lookahead schedules stay
        defined over the full ``epochs``, so a stopped run is the recipe cut short (its learning rate
        not annealed), not one re-planned for the budget: pass a smaller ``epochs`` for that. The
        net keeps its current weights (last reset to the lookahead average at a multiple of 5 steps,
        then trained on): the recipe's final "take the average" is skipped, as the average's decay
        0.95⁵·(step/T)³ is still small where a budget cuts the run, and before the first lookahead
        update (step 5) the average would be the untrained net.
    eval_every_epoch : also measure the test accuracy without TTA after each epoch (outside the timed
        region); otherwise only at the end.
    recipe : the hyper-parameters (default the published :data:`AIRBENCH94`).
    device, dtype : default CUDA when available, else CPU; float16 on CUDA and float32 on CPU.
    channels_last : the weights' memory format (default :func:`airbench_channels_last` of the device);
        the two formats compute the same sums in another order, so their runs agree to rounding.
    return_model : add the trained net under ``"model"``.

    Returns
    -------
    dict with ``accuracy`` (test %, with the recipe's TTA), ``accuracy_no_tta``, ``seconds``
    (whitening initialisation + training wall seconds), ``eval_seconds``, ``epochs_run`` (steps run /
    steps per epoch), ``epochs``, ``steps_run``, ``total_steps``, ``stopped_early``, ``per_epoch``
    (a list of {"epoch", "steps", "seconds" (that epoch's), "train_seconds" (cumulative),
    "accuracy" (no TTA, or None)}), ``weights_sha256``, ``seed``, ``n_train``, ``n_test``,
    ``device``, ``dtype``, ``memory_format``, ``threads`` and ``recipe`` (the hyper-parameters as a dict).
    """
    if not isinstance(recipe, AirbenchRecipe):
        raise ValueError(f"recipe must be an AirbenchRecipe, got {type(recipe).__name__}")
    seed = _seed(seed)
    epochs = recipe.train_epochs if epochs is None else _positive_number("epochs", epochs)
    time_budget = _budget(time_budget)
    device = _device(device)
    dtype = _airbench_dtype(device, dtype)
    channels_last = _channels_last(device, channels_last)
    x_train = _images("X_train", X_train, 32, 3)
    x_test = _images("X_test", X_test, 32, 3)
    y_train = _labels("y_train", y_train, len(x_train), recipe.num_classes, "X_train")
    y_test = _labels("y_test", y_test, len(x_test), recipe.num_classes, "X_test")
    batch_size = recipe.batch_size
    steps_per_epoch = len(x_train) // batch_size  # the recipe drops the last partial batch
    if steps_per_epoch == 0:
        raise ValueError(f"X_train has {len(x_train)} images, fewer than one batch of "
                         f"recipe.batch_size={batch_size}")
    total_steps = math.ceil(steps_per_epoch * epochs)
    if device.type == "cuda":
        torch.backends.cudnn.benchmark = True  # as the recipe (fast kernels, not bit-reproducible)

    mean = torch.tensor(recipe.cifar_mean, device=device).view(1, 3, 1, 1)
    std = torch.tensor(recipe.cifar_std, device=device).view(1, 3, 1, 1)

    def prepare(x):
        x = ((x.to(device) - mean) / std).to(dtype)
        return x.contiguous(memory_format=torch.channels_last) if channels_last else x

    y_train, y_test = y_train.to(device), y_test.to(device)
    gen = torch.Generator().manual_seed(seed)  # every data draw, on the CPU whatever the device
    loss_fn = nn.CrossEntropyLoss(label_smoothing=recipe.label_smoothing, reduction="none")

    with _fork_rng(device):
        torch.manual_seed(seed)
        net = make_airbench_net(recipe, device, dtype, channels_last)
        optimizer, scheduler = airbench_optimizer(net, total_steps, recipe)
        alpha_schedule = recipe.lookahead_base * (torch.arange(total_steps + 1) / total_steps) ** recipe.lookahead_power

        _sync(device)
        start = time.perf_counter()
        # Whitening initialisation on the first whiten_images training images (timed, as in the recipe).
        init_whitening_conv(net[0], prepare(x_train[:recipe.whiten_images]), recipe.whiten_eps)
        # The recipe takes this copy before the whitening initialisation (see the module doc).
        lookahead = _Lookahead(net)
        images = _preflip_and_pad(prepare(x_train), gen, recipe)
        _sync(device)
        seconds = time.perf_counter() - start

        steps, per_epoch, stopped_early = 0, [], False
        for epoch in range(math.ceil(epochs)):
            epoch_start = time.perf_counter()
            net[0].bias.requires_grad = epoch < recipe.whiten_bias_epochs
            net.train()
            for idx, inputs in _epoch_batches(images, epoch, gen, recipe):
                outputs = net(inputs)
                loss = loss_fn(outputs, y_train[idx]).sum()
                optimizer.zero_grad(set_to_none=True)
                loss.backward()
                optimizer.step()
                scheduler.step()
                steps += 1
                if steps % recipe.lookahead_every == 0:
                    lookahead.update(net, decay=alpha_schedule[steps].item())
                if steps >= total_steps:
                    lookahead.update(net, decay=1.0)
                    break
                if time_budget is not None:
                    _sync(device)
                    if seconds + time.perf_counter() - epoch_start >= time_budget:
                        stopped_early = True  # the net keeps its current weights (see the docstring)
                        break
            _sync(device)
            epoch_seconds = time.perf_counter() - epoch_start
            seconds += epoch_seconds
            row = {"epoch": epoch + 1, "steps": steps, "seconds": epoch_seconds, "train_seconds": seconds,
                   "accuracy": None}
            if eval_every_epoch:
                row["accuracy"] = _accuracy(net, prepare(x_test), y_test, 0, recipe.eval_batch)
            per_epoch.append(row)
            if progress:
                acc = "" if row["accuracy"] is None else f", test {row['accuracy']:.2f}% (no TTA)"
                print(f"airbench epoch {epoch + 1}: {steps}/{total_steps} steps, {seconds:.1f} s{acc}",
                      flush=True)
            if stopped_early or steps >= total_steps:
                break

        eval_start = time.perf_counter()
        test_images = prepare(x_test)
        accuracy = _accuracy(net, test_images, y_test, recipe.tta_level, recipe.eval_batch)
        accuracy_no_tta = _accuracy(net, test_images, y_test, 0, recipe.eval_batch)
        _sync(device)
        eval_seconds = time.perf_counter() - eval_start

    return _run_record(net, recipe, accuracy=accuracy, accuracy_no_tta=accuracy_no_tta, seconds=seconds,
                       eval_seconds=eval_seconds, steps=steps, steps_per_epoch=steps_per_epoch, epochs=epochs,
                       total_steps=total_steps, stopped_early=stopped_early, per_epoch=per_epoch, seed=seed,
                       n_train=len(x_train), n_test=len(x_test), device=device,
                       dtype=str(dtype).replace("torch.", ""), return_model=return_model) | {
        "memory_format": "channels_last" if channels_last else "contiguous"}


# --------------------------------------------------------------------------- the MNIST CNN

class _ExamplesNet(nn.Module):
    """``Net`` of pytorch/examples ``mnist/main.py``: (N, 1, 28, 28) → log-probabilities (N, k)."""

    def __init__(self, recipe: SmallCNNRecipe = PYTORCH_MNIST_CNN):
        super().__init__()
        c1, c2 = recipe.channels
        self.conv1 = nn.Conv2d(1, c1, 3, 1)
        self.conv2 = nn.Conv2d(c1, c2, 3, 1)
        self.dropout1 = nn.Dropout(recipe.dropout[0])
        self.dropout2 = nn.Dropout(recipe.dropout[1])
        self.fc1 = nn.Linear(c2 * 12 * 12, recipe.hidden)
        self.fc2 = nn.Linear(recipe.hidden, recipe.num_classes)

    def forward(self, x):
        x = F.relu(self.conv2(F.relu(self.conv1(x))))
        x = torch.flatten(self.dropout1(F.max_pool2d(x, 2)), 1)
        x = self.fc2(self.dropout2(F.relu(self.fc1(x))))
        return F.log_softmax(x, dim=1)


def make_small_cnn(recipe: SmallCNNRecipe = PYTORCH_MNIST_CNN, device=None) -> nn.Module:
    """The PyTorch examples' MNIST CNN (float32), initialised from torch's global generator."""
    return _ExamplesNet(recipe).to(_device(device))


def train_small_cnn(X_train, y_train, X_test, y_test, *, seed: int, epochs: int | None = None,
                    time_budget: float | None = None, progress: bool = False,
                    eval_every_epoch: bool = False, recipe: SmallCNNRecipe = PYTORCH_MNIST_CNN,
                    device=None, return_model: bool = False) -> dict:
    """Train the PyTorch examples' MNIST CNN on 28×28 grey images and report its test accuracy.

    ``X_train``/``X_test``: uint8 (0..255) or floating (in [0, 1]) arrays of shape (N, 28, 28) (as
    ``greenelm.load_dataset("mnist")`` gives), (N, 28, 28, 1), (N, 1, 28, 28) or (N, 784);
    ``y_*``: integer labels (N,) in 0..recipe.num_classes-1. ``epochs`` defaults to the recipe's 14
    (whole epochs; the StepLR decay is applied after each). ``time_budget`` (seconds) stops training
    after the first step that takes the training time to it. Float32 on every device; Adadelta's
    and dropout's randomness come from ``torch.manual_seed(seed)``, the shuffles (and the optional
    translation) from a ``torch.Generator`` seeded with ``seed``.

    Returns the dict of :func:`train_airbench` (``accuracy == accuracy_no_tta``: no TTA).
    """
    if not isinstance(recipe, SmallCNNRecipe):
        raise ValueError(f"recipe must be a SmallCNNRecipe, got {type(recipe).__name__}")
    seed = _seed(seed)
    epochs = recipe.epochs if epochs is None else _positive_int("epochs", epochs)
    time_budget = _budget(time_budget)
    device = _device(device)
    x_train = _images("X_train", X_train, 28, 1)
    x_test = _images("X_test", X_test, 28, 1)
    y_train = _labels("y_train", y_train, len(x_train), recipe.num_classes, "X_train").to(device)
    y_test = _labels("y_test", y_test, len(x_test), recipe.num_classes, "X_test").to(device)
    n, bs, r = len(x_train), recipe.batch_size, recipe.translate
    steps_per_epoch = -(-n // bs)  # DataLoader's default drop_last=False
    total_steps = steps_per_epoch * epochs
    gen = torch.Generator().manual_seed(seed)

    def prepare(x):
        return (x.to(device) - recipe.mean) / recipe.std

    @torch.no_grad()
    def evaluate(images) -> float:
        net.eval()
        pred = torch.cat([net(x).argmax(1) for x in images.split(recipe.eval_batch)])
        return 100.0 * (pred == y_test).float().mean().item()

    with _fork_rng(device):
        torch.manual_seed(seed)
        net = make_small_cnn(recipe, device)
        optimizer = torch.optim.Adadelta(net.parameters(), lr=recipe.lr)
        scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=1, gamma=recipe.gamma)
        _sync(device)
        start = time.perf_counter()
        # Translation pads the raw [0, 1] images with zeros (black) before normalising.
        images = prepare(F.pad(x_train, (r,) * 4) if r > 0 else x_train)
        _sync(device)
        seconds = time.perf_counter() - start
        steps, per_epoch, stopped_early = 0, [], False
        for epoch in range(epochs):
            epoch_start = time.perf_counter()
            order = torch.randperm(n, generator=gen).to(device)
            if r > 0:
                shifts = torch.randint(-r, r + 1, size=(n, 2), generator=gen).to(device)
            net.train()
            for i in range(0, n, bs):
                idx = order[i:i + bs]
                inputs = _batch_crop(images[idx], shifts[idx], 28, r) if r > 0 else images[idx]
                optimizer.zero_grad()
                F.nll_loss(net(inputs), y_train[idx]).backward()
                optimizer.step()
                steps += 1
                if time_budget is not None and steps < total_steps:
                    _sync(device)
                    if seconds + time.perf_counter() - epoch_start >= time_budget:
                        stopped_early = True
                        break
            scheduler.step()
            _sync(device)
            epoch_seconds = time.perf_counter() - epoch_start
            seconds += epoch_seconds
            row = {"epoch": epoch + 1, "steps": steps, "seconds": epoch_seconds, "train_seconds": seconds,
                   "accuracy": evaluate(prepare(x_test)) if eval_every_epoch else None}
            per_epoch.append(row)
            if progress:
                acc = "" if row["accuracy"] is None else f", test {row['accuracy']:.2f}%"
                print(f"small CNN epoch {epoch + 1}: {steps}/{total_steps} steps, {seconds:.1f} s{acc}",
                      flush=True)
            if stopped_early:
                break
        eval_start = time.perf_counter()
        accuracy = evaluate(prepare(x_test))
        _sync(device)
        eval_seconds = time.perf_counter() - eval_start

    return _run_record(net, recipe, accuracy=accuracy, accuracy_no_tta=accuracy, seconds=seconds,
                       eval_seconds=eval_seconds, steps=steps, steps_per_epoch=steps_per_epoch, epochs=epochs,
                       total_steps=total_steps, stopped_early=stopped_early, per_epoch=per_epoch, seed=seed,
                       n_train=n, n_test=len(x_test), device=device, dtype="float32", return_model=return_model)


def recipe_conv_layers(model: str) -> int:
    """The convolutional layers of a recipe's network, counted on the network built on the CPU
    (``"airbench94"``: :func:`make_airbench_net`, its frozen whitening layer included;
    ``"pytorch-mnist-cnn"``: :func:`make_small_cnn`)."""
    builders = {"airbench94": make_airbench_net, "pytorch-mnist-cnn": make_small_cnn}
    if model not in builders:
        raise ValueError(f"no recipe named {model!r}: one of {sorted(builders)}")
    return sum(isinstance(m, nn.Conv2d) for m in builders[model](device="cpu").modules())


# --------------------------------------------------------------------------- FLOPs

def layer_flops(net: nn.Module, input_shape: tuple[int, ...]) -> list[dict]:
    """Per-layer forward cost of ``net`` for one input of ``input_shape`` (C, H, W).

    One row per ``nn.Conv2d`` / ``nn.Linear`` in forward order: {"name", "macs" (multiply-adds:
    output elements × input channels per group × kernel area, or output features × input features),
    "weight_trained" (any weight requiring grad), "first" (the layer that reads the input)}.
    Runs one float32 forward pass on a CPU copy of ``net`` in eval mode.
    """
    import copy

    probe = copy.deepcopy(net).to(device="cpu", dtype=torch.float32, memory_format=torch.contiguous_format)
    rows, hooks = [], []
    for name, mod in probe.named_modules():
        if isinstance(mod, (nn.Conv2d, nn.Linear)):
            def hook(m, inputs, output, name=name):
                if isinstance(m, nn.Conv2d):
                    macs = output.numel() * (m.in_channels // m.groups) * m.kernel_size[0] * m.kernel_size[1]
                else:
                    macs = output.numel() * m.in_features
                rows.append({"name": name, "macs": int(macs), "weight_trained": bool(m.weight.requires_grad),
                             "first": not rows})
            hooks.append(mod.register_forward_hook(hook))
    probe.eval()
    with torch.no_grad():
        probe(torch.zeros(1, *input_shape))
    for h in hooks:
        h.remove()
    return rows


def _flops(rows: list[dict], training: bool) -> int:
    total = 0
    for row in rows:
        passes = 1
        if training:
            passes += int(row["weight_trained"]) + int(not row["first"])
        total += 2 * row["macs"] * passes
    return total


def airbench_flops_per_image(recipe: AirbenchRecipe = AIRBENCH94, training: bool = True) -> int:
    """FLOPs (2 per multiply-add, convolutions and linear layers only) per 32×32 image.

    ``training=False``: one forward pass (236 294 720 for airbench94). ``training=True``: forward +
    input gradients (all layers but the first) + weight gradients (all but the frozen whitening
    weights): 707 777 088 for airbench94.
    """
    return _flops(layer_flops(make_airbench_net(recipe, device="cpu", dtype=torch.float32), (3, 32, 32)),
                  training)


def small_cnn_flops_per_image(recipe: SmallCNNRecipe = PYTORCH_MNIST_CNN, training: bool = True) -> int:
    """FLOPs per 28×28 image of the MNIST CNN, counted as :func:`airbench_flops_per_image` does."""
    return _flops(layer_flops(make_small_cnn(recipe, device="cpu"), (1, 28, 28)), training)


def airbench_seconds_estimate(gflops_per_second: float, n_train: int = 50_000, n_test: int = 10_000,
                              epochs: float | None = None, recipe: AirbenchRecipe = AIRBENCH94) -> dict:
    """Expected seconds of an airbench run at a sustained ``gflops_per_second``, from FLOPs alone.

    Returns {"flops_per_train_image", "flops_per_test_image" (forward passes of the recipe's TTA:
    6 at level 2), "images_per_epoch" ((n_train // batch_size)·batch_size), "seconds_per_epoch",
    "train_seconds" (⌈steps per epoch · epochs⌉ steps), "eval_seconds"}. Elementwise layers, data
    movement and the optimiser are not counted, so a real run is slower.
    """
    rate = _positive_number("gflops_per_second", gflops_per_second) * 1e9
    epochs = recipe.train_epochs if epochs is None else _positive_number("epochs", epochs)
    train_flops = airbench_flops_per_image(recipe, training=True)
    views = {0: 1, 1: 2, 2: 6}[recipe.tta_level]
    test_flops = views * airbench_flops_per_image(recipe, training=False)
    steps_per_epoch = _positive_int("n_train", n_train) // recipe.batch_size
    images_per_epoch = steps_per_epoch * recipe.batch_size
    steps = math.ceil(steps_per_epoch * epochs)
    return {
        "flops_per_train_image": train_flops, "flops_per_test_image": test_flops,
        "images_per_epoch": images_per_epoch,
        "seconds_per_epoch": images_per_epoch * train_flops / rate,
        "train_seconds": steps * recipe.batch_size * train_flops / rate,
        "eval_seconds": n_test * test_flops / rate,
    }
