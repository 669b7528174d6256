"""Green-ELM as a readout on frozen features: the loops behind the CIFAR-10 chapter (Tables II, VI).

* :func:`feature_split` wraps precomputed features (a backbone's, a convolutional frontend's) as an
  :class:`~greenelm_book.chapters.experiments.Split`, so every Green-ELM and SGD loop runs on them unchanged;
* :func:`ridge_readout` is the baseline without a random layer: ridge regression of the one-hot
  labels on the raw features (plus a bias column), by Cholesky;
* :func:`listing2_solvers` runs the paper's appendix listing 2 head as published — the projection
  ``W1 ~ N(0, 2/D)``, ``b1 ~ N(0, 1)``, the whole ``H`` in memory, and its ``solve_green_elm``
  switch (``pinv``, ``lud``, ``cholesky``), timing the solve alone as the listing does;
* :func:`greenelm_fits` fits :class:`~greenelm.estimator.ELMClassifier` end to end (features,
  ``syrk`` Gram over row blocks, solve) for a grid of widths, solvers and dtypes;
* :func:`listing2_runs` repeats :func:`listing2_solvers` over seeds (one projection per seed);
* :func:`split_digest` names a split's data (for cache keys), :func:`paired_ratios` divides two
  series of same-machine timings run by run.

Accuracies are in percent, times in seconds of wall clock on inputs already in memory.
"""

from __future__ import annotations

import hashlib
import itertools
import time

import numpy as np
import pandas as pd
from tqdm import tqdm

from greenelm.estimator import ELMClassifier
from .experiments import Split, timed_fit
from greenelm.features import draw_projection
from ..paper_code import solve_green_elm
from greenelm.solvers import NormalEquations, solve

__all__ = ["feature_split", "greenelm_fits", "listing2_runs", "listing2_solvers", "paired_ratios",
           "ridge_readout", "split_digest"]


def feature_split(name: str, X_train, y_train, X_test, y_test) -> Split:
    """A :class:`Split` of precomputed feature rows (checked: 2-D, finite, same width, labels match)."""
    X_train, X_test = np.asarray(X_train), np.asarray(X_test)
    y_train, y_test = np.asarray(y_train), np.asarray(y_test)
    for label, X, y in (("train", X_train, y_train), ("test", X_test, y_test)):
        if X.ndim != 2:
            raise ValueError(f"{label} features must be a 2-D (N, k) array, got shape {X.shape}")
        if len(X) != len(y):
            raise ValueError(f"{label}: {len(X)} feature rows but {len(y)} labels")
        if not np.all(np.isfinite(X)):
            raise ValueError(f"{label} features contain NaN or infinite values")
    if X_train.shape[1] != X_test.shape[1]:
        raise ValueError(f"train features have {X_train.shape[1]} columns, test {X_test.shape[1]}")
    return Split(name, X_train, y_train, X_test, y_test)


def _one_hot(y, n_classes: int) -> np.ndarray:
    return np.eye(n_classes)[np.asarray(y)]


def ridge_readout(split: Split, alpha: float = 1e-3, solver: str = "cholesky") -> dict:
    """Ridge regression of one-hot labels on the raw features with a bias column (no random layer).

    The bias column is not penalised differently (λ on every weight, as for Green-ELM's readout).
    Returns accuracy (percent), ``fit_seconds`` (Gram, right-hand side and solve) and the width.
    """
    n_classes = int(max(split.y_train.max(), split.y_test.max())) + 1
    start = time.perf_counter()
    X = np.hstack([np.asarray(split.X_train, dtype=np.float64), np.ones((len(split.X_train), 1))])
    equations = NormalEquations(X.shape[1], n_classes)
    equations.update(X, _one_hot(split.y_train, n_classes))
    W = solve(equations, solver=solver, alpha=alpha)
    seconds = time.perf_counter() - start
    X_test = np.hstack([np.asarray(split.X_test, dtype=np.float64), np.ones((len(split.X_test), 1))])
    accuracy = 100 * float(np.mean((X_test @ W).argmax(1) == split.y_test))
    return {"model": "ridge on raw features", "n_inputs": split.X_train.shape[1], "solver": solver,
            "alpha": alpha, "accuracy": accuracy, "fit_seconds": seconds}


def listing2_solvers(split: Split, n_hidden: int = 4000, variants=("pinv", "lud", "cholesky"),
                     lam: float = 1e-3, seed: int = 0, progress: bool = True) -> pd.DataFrame:
    """Appendix listing 2's head on ``split``'s features, as published, one row per solver variant.

    ``W1 ~ N(0, 2/D)`` and ``b1 ~ N(0, 1)`` (``greenelm.features.draw_projection(..., "he",
    "normal")`` from ``seed``), ``H = relu(X W1 + b1)`` in float64 for train and test, then
    ``solve_green_elm(H, Y, variant, lam)`` for each variant on the same ``H``. ``solve_seconds`` is
    the listing's own timer (the solve alone); ``map_seconds`` the construction of the training ``H``.
    """
    W, b = draw_projection(split.X_train.shape[1], n_hidden, seed, "he", "normal")
    start = time.perf_counter()
    H = np.maximum(np.asarray(split.X_train, dtype=np.float64) @ W + b, 0)
    map_seconds = time.perf_counter() - start
    H_test = np.maximum(np.asarray(split.X_test, dtype=np.float64) @ W + b, 0)
    n_classes = int(max(split.y_train.max(), split.y_test.max())) + 1
    Y = _one_hot(split.y_train, n_classes)
    rows = []
    for variant in tqdm(list(variants), desc=f"listing 2 d={n_hidden}", disable=not progress):
        W2, seconds = solve_green_elm(H, Y, variant=variant, lam=lam)
        accuracy = 100 * float(np.mean((H_test @ W2).argmax(1) == split.y_test))
        rows.append({"implementation": "listing 2", "solver": variant, "n_hidden": n_hidden,
                     "alpha": 0.0 if variant == "pinv" else lam, "accuracy": accuracy,
                     "solve_seconds": seconds, "map_seconds": map_seconds})
    return pd.DataFrame(rows)


def greenelm_fits(split: Split, widths, solvers=("cholesky",), dtypes=("float64",), seeds=(0,),
                  alpha: float = 1e-3, weight_scale: str = "he", device=None,
                  progress: bool = True) -> pd.DataFrame:
    """Fit ``ELMClassifier`` for every (width, solver, dtype, seed): accuracy and end-to-end fit time.

    ``fit_seconds`` covers the random features, the Gram/right-hand-side accumulation over row
    blocks and the solve (``pinv`` holds the whole ``H`` and solves by SVD instead).
    """
    rows = []
    grid = list(itertools.product(widths, solvers, dtypes, seeds))
    for width, solver, dtype, seed in tqdm(grid, desc=f"{split.name} Green-ELM", disable=not progress):
        model = ELMClassifier(n_hidden=width, solver=solver, alpha=alpha, weight_scale=weight_scale,
                              dtype=dtype, random_state=seed, device=device)
        seconds = timed_fit(model, split.X_train, split.y_train)
        rows.append({"dataset": split.name, "n_hidden": width, "solver": solver, "dtype": dtype,
                     "seed": seed, "alpha": 0.0 if solver == "pinv" else alpha,
                     "accuracy": 100 * model.score(split.X_test, split.y_test), "fit_seconds": seconds})
    return pd.DataFrame(rows)


def listing2_runs(split: Split, n_hidden: int = 4000, variants=("pinv", "lud", "cholesky"),
                  lam: float = 1e-3, seeds=(0, 1, 2, 3, 4), progress: bool = True) -> pd.DataFrame:
    """:func:`listing2_solvers` once per seed (a new projection each), rows tagged with ``seed``.

    Returns one row per (seed, variant): implementation, solver, n_hidden, alpha, accuracy (%),
    solve_seconds, map_seconds, seed.
    """
    seeds = [int(s) for s in seeds]
    if not seeds:
        raise ValueError("listing2_runs needs at least one seed")
    frames = [listing2_solvers(split, n_hidden, variants, lam, seed, progress=False).assign(seed=seed)
              for seed in tqdm(seeds, desc=f"listing 2 d={n_hidden}", disable=not progress)]
    return pd.concat(frames, ignore_index=True)


def split_digest(split: Split) -> str:
    """SHA-256 of a split's arrays (dtype, shape and bytes of X and y, train and test): a cache key."""
    h = hashlib.sha256(split.name.encode())
    for array in (split.X_train, split.y_train, split.X_test, split.y_test):
        array = np.ascontiguousarray(array)
        h.update(f"|{array.dtype}|{array.shape}|".encode())
        h.update(array.data)
    return h.hexdigest()


def paired_ratios(numerator, denominator) -> np.ndarray:
    """Run-by-run ratios ``numerator[i] / denominator[i]`` of two timing series, i < min(lengths).

    Pairing keeps each ratio one measurement of each side (the seeds' spread is not averaged
    away); the longer series' extra runs are left out. Times must be finite and positive.
    """
    num = np.asarray(numerator, dtype=float).ravel()
    den = np.asarray(denominator, dtype=float).ravel()
    if num.size == 0 or den.size == 0:
        raise ValueError("paired_ratios needs at least one run on each side")
    for label, values in (("numerator", num), ("denominator", den)):
        if not np.all(np.isfinite(values)) or np.any(values <= 0):
            raise ValueError(f"paired_ratios: {label} times must be finite and > 0, got {values}")
    n = min(num.size, den.size)
    return num[:n] / den[:n]
