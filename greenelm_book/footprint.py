"""What a model costs besides accuracy: its file on disk, its training arithmetic, CPU time and memory.

Used by the hardware chapter to answer the paper's storage, energy and memory remarks:

* :func:`storage_footprint`: the bytes of a greenelm model file (the readout and the seed: ``W``
  and ``b`` are redrawn on load) against a file that stores ``W`` and ``b`` as well, and whether
  the model loaded from the seed predicts exactly as the fitted one;
* :func:`sgd_mlp_flops`: the arithmetic of training the paper's SGD MLP (one hidden ReLU layer)
  for some epochs, counted layer by layer (multiply-add = 2 FLOPs);
* :func:`training_footprint`: one training run (Green-ELM or the SGD MLP) measured for
  :func:`greenelm_book.bench.run_isolated` — its CPU seconds, wall seconds and the memory it adds.

Nothing here reads energy: no FLOP count or CPU time is a joule, and the chapter says so.
"""

from __future__ import annotations

import math
import resource
import tempfile
import time
from pathlib import Path

import numpy as np

from greenelm._validation import check_choice, check_positive_int

__all__ = ["sgd_mlp_flops", "storage_footprint", "training_footprint", "cpu_seconds", "package_counters",
           "counter_ranges", "counter_joules"]

#: the models :func:`training_footprint` trains
MODELS = ("green-elm", "sgd-mlp")


def sgd_mlp_flops(n_samples: int, n_inputs: int, n_hidden: int, n_outputs: int, epochs: int,
                  batch_size: int) -> dict:
    """FLOPs of training a D–h–k ReLU MLP by mini-batch SGD with momentum for ``epochs`` epochs.

    Per sample and epoch: the forward pass 2Dh + 2hk; the backward pass 2Dh for the first layer's
    weight gradient (no gradient of the input is needed) and 4hk for the second layer's weight and
    input gradients. Per mini-batch: the momentum update, 4 FLOPs per parameter. Biases, ReLU and
    the softmax loss are O(h + k) per sample and left out. Returns ``{"forward", "backward",
    "update", "total"}`` in FLOPs.
    """
    N, D, h, k, E = (check_positive_int(name, value) for name, value in (
        ("n_samples", n_samples), ("n_inputs", n_inputs), ("n_hidden", n_hidden),
        ("n_outputs", n_outputs), ("epochs", epochs)))
    batch_size = check_positive_int("batch_size", batch_size)
    forward = 2.0 * E * N * (D * h + h * k)
    backward = 2.0 * E * N * D * h + 4.0 * E * N * h * k
    parameters = D * h + h + h * k + k
    update = 4.0 * E * math.ceil(N / batch_size) * parameters
    return {"forward": forward, "backward": backward, "update": update,
            "total": forward + backward + update}


def storage_footprint(X_train: np.ndarray, y_train: np.ndarray, X_test: np.ndarray, n_hidden: int,
                      seed: int = 0, alpha: float = 1e-3, directory: str | Path | None = None) -> dict:
    """Fit a Green-ELM on X_train (N, D), y_train (N,) and measure its two model files.

    * the seed file: ``model.save`` — the readout (d, k), the labels and the seed; ``load_model``
      redraws ``W`` (D, d) and ``b`` (d,) from the seed and checks them against a stored digest;
    * the weights file: the same readout and labels with ``W`` and ``b`` stored (``np.savez``),
      what a model whose projection cannot be redrawn must ship.

    Returns the two sizes in bytes, the bytes of ``W`` + ``b`` and of the readout, and how the
    model loaded from the seed file predicts X_test (M, D) against the fitted model:
    ``labels_identical`` and ``max_score_difference`` (max |decision_function| difference).
    """
    from greenelm import ELMClassifier, load_model

    model = ELMClassifier(n_hidden=check_positive_int("n_hidden", n_hidden), alpha=alpha,
                          random_state=seed).fit(X_train, y_train)
    W, b = np.asarray(model.features_.W), np.asarray(model.features_.b)
    with tempfile.TemporaryDirectory(dir=directory, prefix="greenelm-storage-") as tmp:
        seed_file, weights_file = Path(tmp) / "seed.npz", Path(tmp) / "weights.npz"
        model.save(seed_file)
        np.savez(weights_file, W=W, b=b, coef=np.asarray(model.coef_), classes=model.classes_)
        start = time.perf_counter()
        loaded = load_model(seed_file)
        load_seconds = time.perf_counter() - start
        seed_bytes, weights_bytes = seed_file.stat().st_size, weights_file.stat().st_size
    scores, loaded_scores = model.decision_function(X_test), loaded.decision_function(X_test)
    return {"n_hidden": int(n_hidden), "n_inputs": int(W.shape[0]), "n_outputs": int(model.coef_.shape[1]),
            "seed_file_bytes": int(seed_bytes), "weights_file_bytes": int(weights_bytes),
            "projection_bytes": int(W.nbytes + b.nbytes), "readout_bytes": int(np.asarray(model.coef_).nbytes),
            "load_seconds": load_seconds,
            "labels_identical": bool(np.array_equal(model.predict(X_test), loaded.predict(X_test))),
            "max_score_difference": float(np.max(np.abs(scores - loaded_scores)))}


def cpu_seconds() -> float:
    """User + system CPU seconds of this process (all its threads) so far."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def training_footprint(model: str, n_train: int, n_hidden: int, dataset: str = "mnist", seed: int = 0,
                       epochs: int = 10, batch_size: int = 64, alpha: float = 1e-3) -> dict:
    """Train ``model`` once on the first ``n_train`` images of ``dataset`` (for ``run_isolated``).

    ``model``: ``"green-elm"`` (ELMClassifier, Cholesky, ``n_hidden`` features, λ = ``alpha``) or
    ``"sgd-mlp"`` (the baselines' D–``n_hidden``–k MLP, SGD for ``epochs`` epochs of
    ``batch_size``). Returns the wall and CPU seconds of the training call alone, this process's
    RSS before it and its peak RSS during it (the peak mark is reset first where Linux allows),
    and the FLOP count of the training.
    """
    from greenelm.data import load_dataset
    from greenelm.solvers import fit_flops

    from .bench import current_rss_bytes, flat_rows, peak_rss_bytes, reset_peak_rss

    check_choice("model", model, MODELS)
    data = load_dataset(dataset)
    n = check_positive_int("n_train", n_train)
    X, y = flat_rows(data, "train", n), data.y_train[:n]
    k = int(data.y_train.max()) + 1
    if model == "green-elm":
        from greenelm import ELMClassifier

        estimator = ELMClassifier(n_hidden=n_hidden, alpha=alpha, random_state=seed)
        run = lambda: estimator.fit(X, y)  # noqa: E731
        flops = fit_flops(n, X.shape[1], n_hidden, k).total
    else:
        from .baselines import SGDConfig, train

        X = X.astype(np.float32)
        run = lambda: train("mlp", X, y, seed=seed, n_hidden=n_hidden,  # noqa: E731
                            config=SGDConfig(epochs=epochs, batch_size=batch_size))
        flops = sgd_mlp_flops(n, X.shape[1], n_hidden, k, epochs, batch_size)["total"]
    reset_peak_rss()
    before = current_rss_bytes()
    cpu, wall = cpu_seconds(), time.perf_counter()
    run()
    wall, cpu = time.perf_counter() - wall, cpu_seconds() - cpu
    return {"model": model, "n_train": n, "n_hidden": int(n_hidden), "wall_seconds": wall,
            "cpu_seconds": cpu, "rss_before_bytes": before, "peak_rss_bytes": peak_rss_bytes(),
            "flops": flops}


def package_counters(counters: dict[str, int]) -> dict[str, int]:
    """The package-level RAPL zones of ``counters`` (``{path: µJ}`` from ``bench.rapl_energy_uj``).

    Linux lists each sub-zone (``intel-rapl:0:0``, the cores of package 0) beside its package
    (``intel-rapl:0``); the package already counts it, so summing all zones would count it twice.
    """
    return {path: value for path, value in counters.items() if Path(path).parent.name.count(":") == 1}


def counter_ranges(counters: dict[str, int]) -> dict[str, int]:
    """Each RAPL counter's range in µJ (its ``max_energy_range_uj`` file), where readable."""
    ranges = {}
    for path in counters:
        try:
            ranges[path] = int((Path(path).parent / "max_energy_range_uj").read_text())
        except (OSError, ValueError):
            continue
    return ranges


def counter_joules(before: dict[str, int], after: dict[str, int], ranges: dict[str, int] | None = None) -> float:
    """Joules between two readings of the same RAPL counters (µJ, ``{path: value}``).

    A counter that went down wrapped around once: its range (``ranges[path]``) is added back; without
    a known range that is a ``ValueError``.
    """
    if set(before) != set(after):
        raise ValueError(f"the two readings name different counters: {sorted(before)} vs {sorted(after)}")
    total = 0
    for path, start in before.items():
        delta = after[path] - start
        if delta < 0:
            if not ranges or path not in ranges:
                raise ValueError(f"{path} went down ({start} -> {after[path]} µJ) and its range is unknown")
            delta += ranges[path]
        total += delta
    return total / 1e6
