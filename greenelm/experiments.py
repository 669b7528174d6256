"""Experiment loops shared by the chapters: width sweeps over seeds and solver comparisons.

Each returns a tidy ``pandas.DataFrame`` (one row per fit) so chapters only summarise and plot.
Accuracies are in percent; ``fit_seconds`` is the wall time of ``ELMClassifier.fit`` on
inputs already in memory (features + Gram + solve), the same for every solver.
"""

from __future__ import annotations

import itertools
import time
from dataclasses import dataclass

import numpy as np
import pandas as pd
from tqdm import tqdm

from .data import load_dataset
from .estimator import ELMClassifier


@dataclass(frozen=True)
class Split:
    """A dataset flattened to float rows in [0, 1]: X (N, D), y (N,), and the test split."""

    name: str
    X_train: np.ndarray
    y_train: np.ndarray
    X_test: np.ndarray
    y_test: np.ndarray


def load_split(name: str, subset: int | None = None, dtype=np.float64) -> Split:
    """Load ``name`` (optionally its first ``subset`` train and test samples) as float rows."""
    ds = load_dataset(name, subset=subset)
    return Split(ds.name, ds.flat("train", dtype), ds.y_train, ds.flat("test", dtype), ds.y_test)


def timed_fit(model, X, y) -> float:
    """Fit ``model`` on (X, y) and return the wall time in seconds."""
    start = time.perf_counter()
    model.fit(X, y)
    return time.perf_counter() - start


def width_sweep(split: Split, widths, weight_scales=("unit", "he"), seeds=range(5),
                solvers=("cholesky",), alpha: float = 1e-3, dtype: str = "float64",
                progress: bool = True) -> pd.DataFrame:
    """Fit one Green-ELM per (weight scale, width, seed, solver) and record accuracy and time."""
    grid = list(itertools.product(weight_scales, widths, seeds, solvers))
    rows = []
    for scale, width, seed, solver in tqdm(grid, desc=f"{split.name} widths", disable=not progress):
        model = ELMClassifier(n_hidden=width, solver=solver, alpha=alpha, weight_scale=scale,
                              dtype=dtype, random_state=seed)
        seconds = timed_fit(model, split.X_train, split.y_train)
        rows.append({"dataset": split.name, "weight_scale": scale, "n_hidden": width, "seed": seed,
                     "solver": solver, "accuracy": 100 * model.score(split.X_test, split.y_test),
                     "fit_seconds": seconds})
    return pd.DataFrame(rows)


def solver_comparison(split: Split, n_hidden: int, solvers=("pinv", "lu", "cholesky", "eigh"),
                      alpha: float = 1e-3, weight_scale: str = "unit", seed: int = 0,
                      progress: bool = True) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Fit the same projection with each solver.

    Returns ``(results, disagreement)``: per solver its accuracy and fit time; per pair of solvers
    the maximum absolute difference of their readout scores on the test set and the fraction of
    test predictions on which they disagree.
    """
    rows, scores = [], {}
    for solver in tqdm(solvers, desc="solvers", disable=not progress):
        model = ELMClassifier(n_hidden=n_hidden, solver=solver, alpha=alpha,
                              weight_scale=weight_scale, random_state=seed)
        seconds = timed_fit(model, split.X_train, split.y_train)
        scores[solver] = model.decision_function(split.X_test)
        rows.append({"solver": solver, "alpha": 0.0 if solver == "pinv" else alpha,
                     "accuracy": 100 * np.mean(model.classes_[scores[solver].argmax(1)] == split.y_test),
                     "fit_seconds": seconds})
    pairs = []
    for a, b in itertools.combinations(solvers, 2):
        pairs.append({"solver_a": a, "solver_b": b,
                      "max_score_difference": float(np.abs(scores[a] - scores[b]).max()),
                      "prediction_disagreement": float(np.mean(scores[a].argmax(1) != scores[b].argmax(1)))})
    return pd.DataFrame(rows), pd.DataFrame(pairs)


def elm_readouts(split: Split, widths, seeds=range(5), solvers=("pinv", "cholesky"), alpha: float = 1e-3,
                 weight_scale: str = "unit", dtype: str = "float64", progress: bool = True
                 ) -> tuple[pd.DataFrame, dict]:
    """Fit one Green-ELM per (solver, width, seed) and keep its readout.

    Returns ``(results, readouts)``: a tidy frame (dataset, solver, n_hidden, seed, accuracy,
    fit_seconds) and a dict ``(solver, n_hidden, seed) -> W2`` (array (n_hidden, k), ``coef_``).
    """
    grid = list(itertools.product(solvers, widths, seeds))
    rows, readouts = [], {}
    for solver, width, seed in tqdm(grid, desc=f"{split.name} readouts", disable=not progress):
        model = ELMClassifier(n_hidden=width, solver=solver, alpha=alpha, weight_scale=weight_scale,
                              dtype=dtype, random_state=seed)
        seconds = timed_fit(model, split.X_train, split.y_train)
        readouts[solver, width, seed] = np.array(model.coef_, dtype=np.float64)
        rows.append({"dataset": split.name, "solver": solver, "n_hidden": width, "seed": seed,
                     "accuracy": 100 * model.score(split.X_test, split.y_test), "fit_seconds": seconds})
    return pd.DataFrame(rows), readouts
