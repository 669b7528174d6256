"""The paper's gradient baselines, trained with SGD in torch (CPU, or CUDA when present).

Models (``MODELS``), all fed the same float rows in [0, 1] as Green-ELM (no augmentation,
no input standardisation):

* ``"mlp"``: D → 64 → k with ReLU, the "Standard (SGD), 10 epochs, hidden 64" rows of Table I
  (``n_hidden`` changes the width: the chapter's CIFAR-10 raw-pixel MLP uses ``CIFAR_MLP_HIDDEN``);
* ``"perceptron"``: D → k softmax regression, the single-layer perceptron of the paper's
  "Structural Resilience Comparison";
* ``"cnn"``: a small CNN, ``features`` (two conv–ReLU–max-pool blocks, ``CNN_CHANNELS``,
  flattened) + ``classifier`` (a ``CNN_HIDDEN``-unit ReLU layer and the k-way readout), the "SGD + Conv"
  row of Table VI. ``features`` takes the same flat rows (HWC order) as everything else, so a
  trained frontend can be frozen and reused as a feature extractor.

The paper does not state its SGD hyper-parameters; ours are :class:`SGDConfig`'s defaults
(cross-entropy, SGD with momentum, constant learning rate, mini-batches reshuffled every epoch by
a ``torch.Generator`` seeded with the run's seed; weights initialised after
``torch.manual_seed(seed)``). Training time is the wall time of the training loop on tensors
already in memory, as for ``ELMClassifier.fit``; accuracy (percent) is measured on the test set.

The book's baselines are computed once: :func:`sgd_run` caches one training (accuracy, training
time, the test accuracy after every epoch and the trained weights, stored as arrays, never
pickled) per dataset, model, seed, settings, torch device and thread count, so every chapter that
needs the MNIST MLP of seed 0 gets the same run, and :func:`model_from_run` rebuilds its model.

On a shared, oversubscribed CPU, torch's OpenMP threads spin-wait and small models slow down by
10-40×; set ``OMP_WAIT_POLICY=PASSIVE`` in the environment before torch is imported (the chapters
do) to keep the default two threads without that collapse.
"""

from __future__ import annotations

import dataclasses
import functools
import time
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import torch
from torch import nn
from tqdm import tqdm

from greenelm._validation import check_choice, check_positive_int
from greenelm.data import load_dataset

from .results_cache import memoize

MODELS = ("mlp", "perceptron", "cnn")
#: Table I: "Standard (SGD), 10 Epochs, hidden 64".
MLP_HIDDEN = 64
#: the raw-pixel CIFAR-10 MLP of Table VI (the paper gives no width; 64 is too narrow for 3072 inputs).
CIFAR_MLP_HIDDEN = 256
#: (height, width, channels) of the images behind a row of D pixels, for the CNN.
IMAGE_SHAPES = {784: (28, 28, 1), 3072: (32, 32, 3)}
#: the small CNN: output channels of its two conv blocks and the width of its hidden dense layer.
CNN_CHANNELS = (32, 64)
CNN_HIDDEN = 128
EVAL_BATCH = 4096


@dataclass(frozen=True)
class SGDConfig:
    """SGD hyper-parameters (the same for every model unless a chapter overrides them)."""

    epochs: int = 10
    batch_size: int = 64
    lr: float = 0.01
    momentum: float = 0.9
    weight_decay: float = 0.0

    def __post_init__(self):
        check_positive_int("epochs", self.epochs)
        check_positive_int("batch_size", self.batch_size)
        for name in ("lr", "momentum", "weight_decay"):
            value = getattr(self, name)
            if not np.isfinite(value) or value < 0 or (name == "lr" and value == 0):
                raise ValueError(f"{name} must be a finite number {'> 0' if name == 'lr' else '>= 0'}, "
                                 f"got {value!r}")


class ToImage(nn.Module):
    """Flat rows (N, H·W·C) in HWC order → images (N, C, H, W)."""

    def __init__(self, height: int, width: int, channels: int):
        super().__init__()
        self.shape = (height, width, channels)

    def forward(self, x):
        return x.reshape(len(x), *self.shape).permute(0, 3, 1, 2)


class SmallCNN(nn.Module):
    """3×3 conv–ReLU–2×2 max-pool twice (``features``: rows (N, H·W·C) → (N, c2·H/4·W/4)), then a
    ReLU dense layer and the readout (``classifier``: → (N, k))."""

    def __init__(self, image_shape: tuple[int, int, int], n_classes: int, n_hidden: int = CNN_HIDDEN,
                 channels: tuple[int, int] = CNN_CHANNELS):
        super().__init__()
        height, width, depth = image_shape
        c1, c2 = channels
        self.features = nn.Sequential(
            ToImage(height, width, depth),
            nn.Conv2d(depth, c1, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(c1, c2, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Flatten())
        self.n_features = c2 * (height // 4) * (width // 4)
        self.classifier = nn.Sequential(nn.Linear(self.n_features, n_hidden), nn.ReLU(),
                                        nn.Linear(n_hidden, n_classes))

    def forward(self, x):
        return self.classifier(self.features(x))


def build_model(name: str, n_inputs: int, n_classes: int, n_hidden: int | None = None) -> nn.Module:
    """An untrained ``name`` model for rows of ``n_inputs`` pixels and ``n_classes`` classes.

    Initialised from torch's global generator: call ``torch.manual_seed`` first.
    """
    check_choice("model", name, MODELS)
    n_inputs = check_positive_int("n_inputs", n_inputs)
    n_classes = check_positive_int("n_classes", n_classes)
    if name == "perceptron":
        if n_hidden is not None:
            raise ValueError("the perceptron has no hidden layer; leave n_hidden unset")
        return nn.Linear(n_inputs, n_classes)
    if name == "mlp":
        width = check_positive_int("n_hidden", MLP_HIDDEN if n_hidden is None else n_hidden)
        return nn.Sequential(nn.Linear(n_inputs, width), nn.ReLU(), nn.Linear(width, n_classes))
    if n_inputs not in IMAGE_SHAPES:
        raise ValueError(f"the cnn needs image rows of {' or '.join(map(str, IMAGE_SHAPES))} pixels "
                         f"(28x28 grey or 32x32 RGB), got {n_inputs}")
    return SmallCNN(IMAGE_SHAPES[n_inputs], n_classes,
                    CNN_HIDDEN if n_hidden is None else check_positive_int("n_hidden", n_hidden))


def resolve_device(device=None) -> torch.device:
    """``None`` → CUDA when available, else CPU."""
    if device is None:
        device = "cuda" if torch.cuda.is_available() else "cpu"
    return torch.device(device)


def _rows(X, device) -> torch.Tensor:
    X = torch.as_tensor(np.asarray(X) if not isinstance(X, torch.Tensor) else X)
    if X.ndim != 2:
        raise ValueError(f"X must be a 2-D array of rows (N, D), got shape {tuple(X.shape)}")
    return X.to(device=device, dtype=torch.float32)


def _labels(y, n_rows: int, device) -> torch.Tensor:
    y = np.array(y, copy=True)
    if y.shape != (n_rows,):
        raise ValueError(f"y must have shape ({n_rows},) to match X, got {y.shape}")
    if not np.issubdtype(y.dtype, np.integer) or (len(y) and y.min() < 0):
        raise ValueError("y must hold integer class labels 0..k-1")
    return torch.as_tensor(y, dtype=torch.int64, device=device)


@torch.no_grad()
def predict(model: nn.Module, X, device=None) -> np.ndarray:
    """Predicted labels (N,) of a trained model for rows X (N, D)."""
    device = next(model.parameters()).device if device is None else resolve_device(device)
    model.eval()
    X = _rows(X, device)
    return torch.cat([model(X[i:i + EVAL_BATCH]).argmax(1) for i in range(0, len(X), EVAL_BATCH)]
                     ).cpu().numpy()


@dataclass
class TrainedBaseline:
    """A trained baseline: the torch ``model`` and how it was trained.

    ``history`` (when requested) has one row per epoch: epochs, train_seconds (cumulative,
    training only) and test accuracy.
    """

    name: str
    model: nn.Module
    seed: int
    config: SGDConfig
    epochs: float
    train_seconds: float
    accuracy: float
    history: pd.DataFrame = field(default_factory=pd.DataFrame)

    def predict(self, X) -> np.ndarray:
        """Labels (N,) for rows X (N, D)."""
        return predict(self.model, X)


def train(name: str, X, y, seed: int = 0, config: SGDConfig | None = None, n_hidden: int | None = None,
          device=None, test=None, history: bool = False, time_budget: float | None = None
          ) -> TrainedBaseline:
    """Train model ``name`` with SGD on rows X (N, D) and labels y (N,) in 0..k-1.

    ``test = (X_test, y_test)`` gives the test accuracy (else ``accuracy`` is NaN);
    ``history=True`` evaluates it after every epoch, outside the timed region.
    ``time_budget`` (seconds) stops training after the first mini-batch that takes the training
    time past it (``epochs`` then counts completed mini-batches as a fraction of epochs).
    """
    config = config or SGDConfig()
    if time_budget is not None and not (np.isfinite(time_budget) and time_budget > 0):
        raise ValueError(f"time_budget must be a positive number of seconds, got {time_budget!r}")
    if history and test is None:
        raise ValueError("history=True needs a test set: pass test=(X_test, y_test)")
    device = resolve_device(device)
    X = _rows(X, device)
    y = _labels(y, len(X), device)
    n_classes = int(y.max().item()) + 1
    if test is not None:
        X_test, y_test = test
        y_test = np.asarray(y_test)
        _labels(y_test, len(X_test), "cpu")
        n_classes = max(n_classes, int(y_test.max()) + 1)

    def evaluate():
        return 100 * float(np.mean(predict(model, X_test) == y_test)) if test is not None else float("nan")

    torch.manual_seed(seed)
    model = build_model(name, X.shape[1], n_classes, n_hidden).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=config.lr, momentum=config.momentum,
                                weight_decay=config.weight_decay)
    loss_fn = nn.CrossEntropyLoss()
    shuffle = torch.Generator().manual_seed(seed)
    n, bs = len(X), config.batch_size
    batches_per_epoch = -(-n // bs)
    seconds, done, rows = 0.0, 0, []
    for epoch in range(1, config.epochs + 1):
        start = time.perf_counter()
        model.train()
        order = torch.randperm(n, generator=shuffle).to(device)
        for i in range(0, n, bs):
            idx = order[i:i + bs]
            optimizer.zero_grad(set_to_none=True)
            loss_fn(model(X[idx]), y[idx]).backward()
            optimizer.step()
            done += 1
            if time_budget is not None and seconds + time.perf_counter() - start >= time_budget:
                break
        if device.type == "cuda":
            torch.cuda.synchronize(device)
        seconds += time.perf_counter() - start
        out_of_time = time_budget is not None and seconds >= time_budget
        if history or out_of_time or epoch == config.epochs:
            rows.append({"epochs": done / batches_per_epoch, "train_seconds": seconds,
                         "accuracy": evaluate()})
        if out_of_time:
            break
    model.eval()
    return TrainedBaseline(name, model, seed, config, done / batches_per_epoch, seconds,
                           rows[-1]["accuracy"], pd.DataFrame(rows) if history else pd.DataFrame())


def sgd_runs(split, name: str, seeds=range(5), config: SGDConfig | None = None,
             n_hidden: int | None = None, device=None, history: bool = False,
             time_budget: float | None = None, return_models: bool = False, progress: bool = True):
    """Train ``name`` on ``split`` once per seed.

    Returns a tidy DataFrame (dataset, model, seed, epochs, train_seconds, accuracy): one row per
    seed, or with ``history=True`` one row per (seed, epoch). With ``return_models=True`` returns
    ``(frame, [TrainedBaseline per seed])``.
    """
    check_choice("model", name, MODELS)
    trained, rows = [], []
    for seed in tqdm(list(seeds), desc=f"{split.name} {name}", disable=not progress):
        run = train(name, split.X_train, split.y_train, seed, config, n_hidden, device,
                    (split.X_test, split.y_test), history, time_budget)
        trained.append(run)
        steps = run.history if history else pd.DataFrame(
            [{"epochs": run.epochs, "train_seconds": run.train_seconds, "accuracy": run.accuracy}])
        for step in steps.itertuples(index=False):
            rows.append({"dataset": split.name, "model": name, "seed": seed, "epochs": step.epochs,
                         "train_seconds": step.train_seconds, "accuracy": step.accuracy})
    frame = pd.DataFrame(rows, columns=["dataset", "model", "seed", "epochs", "train_seconds", "accuracy"])
    return (frame, trained) if return_models else frame


# --------------------------------------------------------------------------------------------------
# The book's SGD baselines, each computed once: cached runs (metrics, learning curve and weights)
# --------------------------------------------------------------------------------------------------

@functools.lru_cache(maxsize=3)
def _data(dataset: str, subset: int | None):
    """(X_train (N, D) float32 in [0, 1], y_train (N,), X_test, y_test) of ``dataset``."""
    ds = load_dataset(dataset, subset=subset)
    return ds.flat("train", np.float32), ds.y_train, ds.flat("test", np.float32), ds.y_test


def _train_run(dataset, model, seed, config, n_hidden, subset, device) -> dict:
    X, y, X_test, y_test = _data(dataset, subset)
    run = train(model, X, y, seed, config, n_hidden, device, (X_test, y_test), history=True)
    weights = {name: tensor.detach().cpu().numpy().copy() for name, tensor in run.model.state_dict().items()}
    return {"accuracy": float(run.accuracy), "train_seconds": float(run.train_seconds),
            "epochs": float(run.epochs), "n_train": int(len(y)), "n_test": int(len(y_test)),
            "n_inputs": int(X.shape[1]), "n_classes": int(max(y.max(), y_test.max()) + 1),
            "history": run.history.astype({"epochs": float, "train_seconds": float, "accuracy": float}),
            "weights": weights}


def sgd_run(dataset: str, model: str, seed: int = 0, config: SGDConfig | None = None,
            n_hidden: int | None = None, subset: int | None = None, device=None, refresh: bool = False) -> dict:
    """One SGD training of ``model`` on ``dataset`` (its first ``subset`` train and test images), cached.

    The same arguments give the same run in every chapter (the results cache, keyed by them, the
    torch device and thread count, and this module's source). Returns a dict: accuracy (%, test
    set), train_seconds (the training loop alone), epochs, n_train, n_test, n_inputs, n_classes,
    history (DataFrame, one row per epoch: epochs, train_seconds cumulative, accuracy), weights
    ({parameter name: array}, see :func:`model_from_run`), device, threads and cached (bool).
    ``refresh=True`` trains again and replaces the cached run (e.g. one timed on a busy machine).
    """
    check_choice("model", model, MODELS)
    config = config or SGDConfig()
    if not isinstance(config, SGDConfig):
        raise TypeError(f"config must be an SGDConfig, got {type(config).__name__}")
    if subset is not None:
        subset = check_positive_int("subset", subset)
    seed = int(seed)
    device = resolve_device(device)
    threads = int(torch.get_num_threads())
    params = {"dataset": dataset, "model": model, "seed": seed, "config": dataclasses.asdict(config),
              "n_hidden": None if n_hidden is None else int(n_hidden), "subset": subset,
              "device": device.type, "threads": threads}
    result, info = memoize("sgd-run", params, lambda: _train_run(dataset, model, seed, config, n_hidden,
                                                                  subset, device), refresh=refresh)
    return {**result, "model": model, "n_hidden": params["n_hidden"], "seed": seed,
            "device": device.type, "threads": threads, "cached": info["cached"]}


def model_from_run(run: dict) -> nn.Module:
    """The trained torch model of an :func:`sgd_run` result (CPU, eval mode), rebuilt from its weights."""
    model = build_model(run["model"], run["n_inputs"], run["n_classes"], run["n_hidden"])
    state = {name: torch.from_numpy(np.asarray(array)) for name, array in run["weights"].items()}
    model.load_state_dict(state, strict=True)
    return model.eval()


def sgd_seeds(dataset: str, model: str, seeds=range(5), config: SGDConfig | None = None,
              n_hidden: int | None = None, subset: int | None = None, device=None,
              progress: bool = True, refresh: bool = False) -> tuple[pd.DataFrame, pd.DataFrame, list[dict]]:
    """:func:`sgd_run` once per seed: ``(final, curves, runs)``.

    ``final`` has one row per seed (seed, epochs, train_seconds, accuracy); ``curves`` one row
    per (seed, epoch) with the same columns (the test accuracy after each epoch and the
    cumulative training time); ``runs`` the :func:`sgd_run` dicts.
    """
    runs = [sgd_run(dataset, model, s, config, n_hidden, subset, device, refresh)
            for s in tqdm(list(seeds), desc=f"{dataset} {model}", disable=not progress)]
    if not runs:
        raise ValueError("seeds is empty")
    columns = ["seed", "epochs", "train_seconds", "accuracy"]
    final = pd.DataFrame([{c: run[c] for c in columns} for run in runs], columns=columns)
    curves = pd.concat([run["history"].assign(seed=run["seed"])[columns] for run in runs], ignore_index=True)
    return final, curves, runs
