"""Quiet fit timings of Green-ELM configurations: one fit per seed, back to back, nothing else running.

The width sweep's ``fit_seconds`` (:mod:`greenelm_book.chapters.sweeps`) come from whatever ran beside the
sweep; these are measured in a step of their own, after one untimed warm-up fit (BLAS threads,
page faults), and cached (:func:`greenelm_book.store.results_cache.memoize`) so a re-execution shows the
quiet numbers instead of re-measuring on a busy machine.
"""

from __future__ import annotations

import time

from greenelm._validation import check_choice, check_positive_int
from greenelm.estimator import ELMClassifier
from greenelm.solvers import SOLVERS

from .experiments import load_split
from ..store.results_cache import memoize

def _measure(dataset: str, subset, weight_scale: str, n_hidden: int, solver: str, seeds, alpha: float) -> dict:
    split = load_split(dataset, subset=subset)
    ELMClassifier(n_hidden=min(n_hidden, 64), solver=solver, alpha=alpha, weight_scale=weight_scale,
                  random_state=0).fit(split.X_train[:2000], split.y_train[:2000])        # warm-up
    seconds, accuracy = [], []
    for seed in seeds:
        model = ELMClassifier(n_hidden=n_hidden, solver=solver, alpha=alpha, weight_scale=weight_scale,
                              random_state=seed)
        start = time.perf_counter()
        model.fit(split.X_train, split.y_train)
        seconds.append(time.perf_counter() - start)
        accuracy.append(100 * float(model.score(split.X_test, split.y_test)))
    return {"seconds": seconds, "accuracy": accuracy, "n_train": int(len(split.y_train)),
            "n_test": int(len(split.y_test))}


def quiet_fit_times(dataset: str, weight_scale: str, n_hidden: int, solver: str, seeds=(0, 1, 2),
                    alpha: float = 1e-3, subset: int | None = None) -> dict:
    """Fit seconds and test accuracy (%) of ``ELMClassifier.fit`` once per seed, cached.

    Returns ``{"seconds": [...], "accuracy": [...], "n_train", "n_test", "cached"}`` (one entry per
    seed, in order). The time is the whole fit (features, Gram or SVD, solve) on inputs in memory.
    """
    check_choice("solver", solver, SOLVERS)
    n_hidden = check_positive_int("n_hidden", n_hidden)
    seeds = [int(s) for s in seeds]
    if not seeds:
        raise ValueError("seeds must name at least one seed (one timed fit each)")
    params = {"dataset": dataset, "subset": subset, "weight_scale": weight_scale, "n_hidden": n_hidden,
              "solver": solver, "seeds": seeds, "alpha": float(alpha)}
    result, info = memoize("quiet-fit-times", params,
                           lambda: _measure(dataset, subset, weight_scale, n_hidden, solver, seeds,
                                            float(alpha)))
    return {**result, "cached": info["cached"]}
