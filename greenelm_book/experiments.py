"""Experiment loops shared by the chapters: width sweeps over seeds and solver comparisons.

Each returns a tidy ``pandas.DataFrame`` (one row per fit) so chapters only summarise and plot.
Accuracies are in percent; ``fit_seconds`` is the wall time of ``ELMClassifier.fit`` on
inputs already in memory (features + Gram + solve), the same for every solver. The results cache
(``memoize``, ``cache_dir``) lives in :mod:`greenelm_book.results_cache` and is re-exported here.
"""

from __future__ import annotations

import itertools
import time
from dataclasses import dataclass

import numpy as np
import pandas as pd
from tqdm import tqdm

from greenelm.data import load_dataset
from greenelm.estimator import ELMClassifier
from greenelm.features import RandomReLUFeatures
from greenelm.model_selection import RidgePath
from greenelm.solvers import NormalEquations, solve_normal_equations

from .results_cache import cache_dir, memoize  # noqa: F401  (the chapters import them from here)


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


# ------------------------------------------------------------------ nested widths (scaling chapter)
@dataclass
class WideModel:
    """One seed's widest Green-ELM, kept as normal equations so every narrower width is a sub-block.

    The first d hidden units of a width-``d_max`` projection are themselves a width-d projection
    (the columns of W and entries of b are i.i.d.), so the width-d readout solves the leading
    d × d block of HᵀH with the first d rows of HᵀY, and predicts from the first d test features.
    """

    features: RandomReLUFeatures
    equations: NormalEquations
    H_test: np.ndarray          # (n_test, d_max) float64
    y_test: np.ndarray
    seconds: float              # features + Gram of the widest model


def accumulate_wide(split: Split, n_hidden: int, seed: int, weight_scale: str = "unit",
                    chunk_rows: int = 4096, progress: bool = True) -> WideModel:
    """Accumulate HᵀH and HᵀY (float64) of the width-``n_hidden`` projection over the training rows."""
    start = time.perf_counter()
    features = RandomReLUFeatures(split.X_train.shape[1], n_hidden, seed=seed, weight_scale=weight_scale)
    n_classes = int(split.y_train.max()) + 1
    equations = NormalEquations(n_hidden, n_classes)
    chunks = features.chunks(split.X_train, chunk_rows)
    n_chunks = -(-len(split.X_train) // chunk_rows)
    for rows, H in tqdm(chunks, total=n_chunks, desc=f"{split.name} Gram d={n_hidden}", disable=not progress):
        equations.update(H, np.eye(n_classes)[split.y_train[rows]])
    H_test = features.transform(split.X_test)
    return WideModel(features, equations, H_test, split.y_test, time.perf_counter() - start)


def nested_widths(wide: WideModel, widths, alpha: float = 1e-3,
                  solver: str = "cholesky") -> tuple[pd.DataFrame, np.ndarray]:
    """Accuracy of every width ≤ the wide model's: rows (n_hidden, accuracy, solve_seconds, solver)
    and ``correct`` (n_widths, n_test) bool, whether each test sample is classified right.

    A Cholesky failure (G + λI numerically indefinite) falls back to LU on the same system; the
    row's ``solver`` says so.
    """
    gram, hty = wide.equations.gram, wide.equations.hty
    rows, correct = [], []
    for d in widths:
        if d > wide.equations.n_hidden:
            raise ValueError(f"width {d} exceeds the wide model's {wide.equations.n_hidden}")
        start = time.perf_counter()
        used = solver
        try:
            W2 = solve_normal_equations(gram[:d, :d], hty[:d], alpha, solver)
        except np.linalg.LinAlgError:
            if solver != "cholesky":
                raise
            # G + λI not numerically positive definite in float64: solve the same system by LU
            # (what the paper's 'lud' does) and say so in the row
            used = "lu (cholesky failed)"
            W2 = solve_normal_equations(gram[:d, :d], hty[:d], alpha, "lu")
        seconds = time.perf_counter() - start
        hits = (wide.H_test[:, :d] @ W2).argmax(axis=1) == wide.y_test
        correct.append(hits)
        rows.append({"n_hidden": int(d), "accuracy": 100 * float(hits.mean()), "solve_seconds": seconds,
                     "solver": used})
    return pd.DataFrame(rows), np.array(correct)


def ridge_path_table(wide: WideModel, split: Split, n_hidden: int, alphas,
                     chunk_rows: int = 4096) -> pd.DataFrame:
    """Per λ at width ``n_hidden`` (a sub-block of ``wide``): GCV, exact LOO and test accuracy."""
    d = int(n_hidden)
    n_classes = wide.equations.n_outputs
    path = RidgePath(wide.equations.gram[:d, :d], wide.equations.hty[:d], float(len(split.y_train)),
                     len(split.y_train))
    blocks = ((H[:, :d], np.eye(n_classes)[split.y_train[rows]])
              for rows, H in wide.features.chunks(split.X_train, chunk_rows))
    table = pd.DataFrame(path.gcv(alphas)).merge(pd.DataFrame(path.leave_one_out(alphas, blocks)), on="alpha")
    table["test_accuracy"] = [100 * float(np.mean((wide.H_test[:, :d] @ path.weights(a)).argmax(1) == split.y_test))
                              for a in table.alpha]
    table.insert(0, "n_hidden", d)
    return table
