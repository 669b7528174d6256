"""Green-ELM fits over (dataset, weight scale, width, seed, solver), each cached as a result.

One fit is one configuration: :func:`fit_once` computes it once per parameters and code (the
results cache, :func:`greenelm_book.store.results_cache.memoize`), so every chapter that needs MNIST at
d = 2000 gets the same numbers, and a re-execution of a chapter reads them instead of refitting.
Fit time is the wall time of ``ELMClassifier.fit`` on inputs already in memory.
"""

from __future__ import annotations

import functools
import itertools
import time

import pandas as pd
from tqdm import tqdm

from greenelm.data import load_dataset
from greenelm.estimator import ELMClassifier

from ..store.results_cache import memoize

@functools.lru_cache(maxsize=4)
def _split(dataset: str, subset: int | None):
    ds = load_dataset(dataset, subset=subset)
    return ds.flat("train"), ds.y_train, ds.flat("test"), ds.y_test


def _fit(dataset, subset, weight_scale, n_hidden, seed, solver, alpha):
    X, y, X_test, y_test = _split(dataset, subset)
    model = ELMClassifier(n_hidden=n_hidden, solver=solver, alpha=alpha, weight_scale=weight_scale,
                          random_state=seed)
    start = time.perf_counter()
    model.fit(X, y)
    seconds = time.perf_counter() - start
    return {"accuracy": 100 * float(model.score(X_test, y_test)), "fit_seconds": seconds,
            "n_train": int(len(y)), "n_test": int(len(y_test))}


def fit_once(dataset: str, weight_scale: str, n_hidden: int, seed: int, solver: str,
             alpha: float = 1e-3, subset: int | None = None) -> dict:
    """Accuracy (%) and fit seconds of one Green-ELM, cached: {accuracy, fit_seconds, n_train, n_test, cached}."""
    params = {"dataset": dataset, "subset": subset, "weight_scale": weight_scale, "n_hidden": int(n_hidden),
              "seed": int(seed), "solver": solver, "alpha": float(alpha)}
    result, info = memoize("elm-fit", params, lambda: _fit(dataset, subset, weight_scale, int(n_hidden),
                                                            int(seed), solver, float(alpha)))
    return {**result, "cached": info["cached"]}


def width_sweep(dataset: str, widths, weight_scales=("unit", "he"), seeds=range(5), solvers=("cholesky",),
                alpha: float = 1e-3, subset: int | None = None, progress: bool = True) -> pd.DataFrame:
    """One row per (weight scale, width, seed, solver): dataset, weight_scale, n_hidden, seed, solver,
    alpha, accuracy (%), fit_seconds, n_train, n_test."""
    grid = list(itertools.product(weight_scales, widths, seeds, solvers))
    rows = []
    for scale, width, seed, solver in tqdm(grid, desc=f"{dataset} widths", disable=not progress):
        row = fit_once(dataset, scale, width, seed, solver, alpha, subset)
        rows.append({"dataset": dataset, "weight_scale": scale, "n_hidden": int(width), "seed": int(seed),
                     "solver": solver, "alpha": 0.0 if solver == "pinv" else alpha,
                     **{k: row[k] for k in ("accuracy", "fit_seconds", "n_train", "n_test")}})
    return pd.DataFrame(rows)


if __name__ == "__main__":   # fill the cache for the full profile: python -m greenelm_book.chapters.sweeps
    for name in ("mnist", "fashion-mnist"):
        width_sweep(name, [500, 1000, 2000, 4000], ("unit", "he"), range(5), ("cholesky", "pinv"))
