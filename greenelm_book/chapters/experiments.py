"""What the chapters share to run experiments: datasets as float rows (:class:`Split`,
:func:`load_split`), a timed fit, and one seed's widest model kept as normal equations
(:func:`accumulate_wide`, which the scaling chapter's width sweeps read every narrower width from).
The results cache (``memoize``, ``cache_dir``) lives in :mod:`greenelm_book.store.results_cache` and is
re-exported here.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
from tqdm import tqdm

from greenelm.data import load_dataset
from greenelm.features import RandomReLUFeatures
from greenelm.solvers import NormalEquations

from ..store.results_cache import cache_dir, memoize  # noqa: F401  (the chapters import them from here)


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
