"""Scale-out: fit a Green-ELM readout on data larger than one machine, as a Dask map-reduce.

Every normal-equation solver needs only ``G = HᵀH`` (d × d) and ``HᵀY`` (d × k), and both
are sums over row blocks. So a fit on a ``dask.array`` of N rows is

* **map** (on the workers, one task per row block): rebuild the frozen projection ``W, b``
  from the seed (cached per worker process, never shipped in the task graph), compute
  ``H = relu(X W + b)`` for the block in sub-chunks of ``estimator.chunk_size`` rows and
  accumulate the block's ``HᵀH`` (upper triangle, ``syrk``) and ``HᵀY`` — the O(NDd) features
  and O(Nd²) Gram of the paper's complexity analysis, spread over the workers;
* **reduce**: dask.array's own tree reduction (``sum(axis=0, split_every=...)``) adds the
  per-block ``[G | HᵀY]`` (d × (d + k)) pairwise in groups of ``split_every``, so no worker
  ever holds more than ``split_every + 1`` partial sums and the client receives one d × (d + k)
  array;
* **solve** (on the client): the O(d³) factorisation with :func:`greenelm.solvers.solve`,
  exactly as the single-machine fit.

Why ``map_blocks`` + ``sum``: the partial statistics are ordinary arrays of a fixed shape, so
stacking them along a new block axis makes the reduction a plain ``dask.array`` sum, which
brings dask's tuned tree reduction, task fusion and memory-aware ordering for free; the same
graph runs on the threaded scheduler, on a ``LocalCluster`` and on a real cluster.

Usage::

    import dask.array as da
    from dask.distributed import Client
    from greenelm import ELMClassifier
    from greenelm.distributed import fit_dask

    client = Client("tcp://scheduler:8786")          # a running cluster (or LocalCluster())
    X = da.from_zarr("s3://bucket/features.zarr")      # (N, D), chunked along rows
    y = da.from_zarr("s3://bucket/labels.zarr")        # (N,)
    model = fit_dask(ELMClassifier(n_hidden=2000), X, y, client=client)

A dask dataframe is accepted too (its rows are converted with ``to_dask_array(lengths=True)``).
Bad blocks (a block whose width differs from the declared one, NaN or inf values, unknown labels)
are detected inside the task that reads them, so the data is read once; the error names the
block and its rows.
"""

from __future__ import annotations

import functools
from typing import NamedTuple

import numpy as np
from sklearn.utils.multiclass import check_classification_targets

from ._threads import object_lock
from ._validation import check_dtype, check_positive_int, require_memory
from .features import RandomReLUFeatures, projection_memory
from .solvers import NormalEquations, solve

__all__ = ["FeatureSpec", "fit_dask", "sufficient_statistics", "as_dask_array"]


class FeatureSpec(NamedTuple):
    """Everything that defines the frozen projection; workers rebuild ``W, b`` from it."""

    n_inputs: int
    n_hidden: int
    seed: int
    weight_scale: str = "unit"
    bias: str = "normal"
    dtype: str = "float64"
    device: str | None = None


@functools.lru_cache(maxsize=4)
def cached_features(spec: FeatureSpec) -> RandomReLUFeatures:
    """The projection of ``spec``, drawn once per worker process and reused by its tasks."""
    return RandomReLUFeatures(*spec)


def _dask_array():
    """``dask.array``, or an ImportError saying how to install it."""
    try:
        import dask.array
    except ImportError as error:
        raise ImportError("greenelm.distributed needs dask: pip install 'greenelm[dask]' "
                          "(dask[array] and distributed)") from error
    return dask.array


# ----------------------------------------------------------------------------------- inputs
def as_dask_array(data, name: str, chunks=None):
    """``data`` as a dask array: dask arrays pass through, dask dataframes/series are converted
    with ``to_dask_array(lengths=True)``, NumPy-like arrays are wrapped with ``chunks`` rows."""
    da = _dask_array()

    if isinstance(data, da.Array):
        return data
    if hasattr(data, "to_dask_array"):  # dask DataFrame / Series
        return data.to_dask_array(lengths=True)
    if hasattr(data, "__dask_graph__"):
        raise TypeError(f"{name}: unsupported dask collection {type(data).__name__}; pass a "
                        "dask.array or a dask dataframe")
    array = np.asarray(data)
    return da.from_array(array, chunks=(chunks,) + array.shape[1:] if chunks else "auto")


def _check_rows(array, name: str) -> None:
    if any(np.isnan(c) for c in array.chunks[0]):
        raise ValueError(f"{name} has unknown chunk sizes along its rows (e.g. a dask dataframe's "
                         "`.values`); use `.to_dask_array(lengths=True)` or `.compute_chunk_sizes()`")


def _block_label(block_info) -> tuple[str, int]:
    """``("block i (rows a:b)", a)`` for the first input of a map_blocks call."""
    info = block_info[0]
    start, stop = info["array-location"][0]
    return f"block {info['chunk-location'][0]} (rows {start}:{stop})", start


def _first_bad_row(values) -> int | None:
    finite = np.isfinite(values)
    if finite.all():
        return None
    return int(np.argmin(finite.reshape(len(values), -1).all(axis=1)))


def _block_statistics(X, Y, *, spec: FeatureSpec, chunk_size: int, classes, block_info=None):
    """One row block → its ``[HᵀH (upper) | HᵀY]`` as (1, d, d + k), float64 (the sums of
    :class:`~greenelm.solvers.NormalEquations` are float64 whatever ``spec.dtype`` of the features).

    X (n, D) are the block's inputs; Y (n, 1) its labels (``classes`` given: one-hot here) or
    (n, k) real targets. Bad blocks raise ``ValueError`` naming the block and its rows.
    """
    where, start = _block_label(block_info)
    n_rows = block_info[0]["array-location"][0][1] - start
    X = np.asarray(X)
    if X.ndim != 2 or X.shape != (n_rows, spec.n_inputs):
        raise ValueError(f"{where}: X block has shape {X.shape}, expected ({n_rows}, {spec.n_inputs}) "
                         f"(the array declares {spec.n_inputs} features)")
    if X.dtype.kind not in "biuf":
        raise ValueError(f"{where}: X block has non-numeric dtype {X.dtype}")
    bad = _first_bad_row(X)
    if bad is not None:
        raise ValueError(f"{where}: X holds NaN or inf values (first in row {start + bad})")
    Y = np.asarray(Y)
    if len(Y) != n_rows:
        raise ValueError(f"{where}: y block has {len(Y)} rows, X block has {n_rows}")
    if classes is not None:
        labels = Y.reshape(n_rows)
        unknown = np.setdiff1d(labels, classes)
        if unknown.size:
            raise ValueError(f"{where}: y contains labels {unknown[:5]} not in classes {classes}")
        Y = labels[:, None] == classes[None, :]
    else:
        bad = _first_bad_row(Y)
        if bad is not None:
            raise ValueError(f"{where}: y holds NaN or inf values (first in row {start + bad})")
    features = cached_features(spec)
    equations = NormalEquations(spec.n_hidden, Y.shape[1], spec.dtype, spec.device)
    for rows, H in features.chunks(X, chunk_size):
        block = Y[rows].astype(spec.dtype)
        if spec.device is not None:
            import torch

            block = torch.as_tensor(block, device=H.device)
        equations.update(H, block)
    gram, hty = equations.gram, equations.hty
    if spec.device is not None:
        gram, hty = gram.cpu().numpy(), hty.cpu().numpy()
    out = np.empty((1, spec.n_hidden, spec.n_hidden + Y.shape[1]), dtype=np.float64)
    out[0, :, : spec.n_hidden] = gram
    out[0, :, spec.n_hidden:] = hty
    return out


def sufficient_statistics(X, Y, spec: FeatureSpec, chunk_size: int = 4096, classes=None,
                          split_every: int = 4):
    """Lazy ``[HᵀH (upper triangle) | HᵀY]``, a dask array (d, d + k) of float64 sums.

    X: dask array (N, D) chunked along rows (column chunks are merged); Y: dask array (N,)
    labels when ``classes`` (k,) is given (one-hot inside the tasks), else (N,) or (N, k)
    real targets. One task per row block of X (Y is re-chunked to match), then a tree sum
    over blocks with fan-in ``split_every``.
    """
    da = _dask_array()

    _check_rows(X, "X")
    _check_rows(Y, "y")
    if X.ndim != 2:
        raise ValueError(f"X must be 2-D (N, D), got shape {X.shape}")
    if X.shape[1] != spec.n_inputs:
        raise ValueError(f"X has {X.shape[1]} features, expected {spec.n_inputs}")
    if Y.ndim not in (1, 2) or Y.shape[0] != X.shape[0]:
        raise ValueError(f"y must have one row per row of X ({X.shape[0]}), got shape {Y.shape}")
    if classes is None and Y.dtype.kind not in "biuf":
        raise ValueError(f"regression targets must be numeric, got dtype {Y.dtype}")
    X = X.rechunk({1: -1})
    Y = Y.reshape(Y.shape[0], -1) if Y.ndim == 1 else Y
    Y = Y.rechunk({0: X.chunks[0], 1: -1})
    k = len(classes) if classes is not None else Y.shape[1]
    d = spec.n_hidden
    partials = da.map_blocks(
        _block_statistics, X, Y, new_axis=2,
        chunks=((1,) * X.numblocks[0], (d,), (d + k,)),
        dtype=np.float64, meta=np.empty((0, 0, 0), dtype=np.float64),
        token="greenelm-block-statistics",
        spec=spec, chunk_size=chunk_size, classes=classes)
    return partials.sum(axis=0, split_every=split_every, dtype=np.float64)


def _compute(collection, client=None, scheduler=None, retries: int = 0):
    """Compute on ``client`` (with task ``retries``) or on a dask scheduler (default: dask's)."""
    _dask_array()
    import dask

    if client is not None:
        return client.compute(collection, retries=retries).result()
    return dask.compute(collection, scheduler=scheduler)[0]


def dask_memory_plan(n_inputs: int, n_hidden: int, n_outputs: int, dtype: str, chunk_size: int,
                     block_rows: int, split_every: int, solver: str, tasks_here: int) -> dict[str, int]:
    """Bytes a :func:`fit_dask` allocates in this process: ``tasks_here`` map tasks at once (the
    local schedulers run them here; 0 with a client, whose workers have memory of their own), each
    with W (cached), its row block's features and sums and its packed (d, d + k) output, the tree
    sum's ``split_every + 1`` partial sums, and on the client the summed statistics, the normal
    equations built from them, the solve's copies and the estimator's own projection."""
    D, d, k = int(n_inputs), int(n_hidden), int(n_outputs)
    size, packed = np.dtype(dtype).itemsize, 8 * d * (d + k)
    parts = {}
    if tasks_here:
        rows = min(int(chunk_size), int(block_rows))
        parts[f"{tasks_here} map task(s) at once: W (D × d = {D} × {d}), a block of features "
              f"({rows} × {d}), the block's HᵀH and its packed [HᵀH | HᵀY]"] = tasks_here * (
            size * D * d + size * rows * d + 8 * d * d + packed
            + (4 * (d + k) * (d + k + rows) if dtype == "float32" else 0))
        parts[f"the tree sum's split_every + 1 = {int(split_every) + 1} partial sums "
              f"(d × (d + k) = {d} × {d + k} float64)"] = (int(split_every) + 1) * packed
    copies = {"cholesky": 1, "lu": 3, "eigh": 2}.get(solver, 1)
    parts[f"the client's summed [HᵀH | HᵀY] and the normal equations built from it (2 × {d} × {d + k})"] = 2 * packed
    parts[f"the solve's {copies} cop{'y' if copies == 1 else 'ies'} of HᵀH + λI ({solver})"] = copies * 8 * d * d
    parts.update(projection_memory(D, d, dtype))
    return parts


def fit_dask(estimator, X, y, *, classes=None, client=None, scheduler=None, retries: int = 0,
             split_every: int = 4):
    """Fit ``estimator`` (ELMClassifier or ELMRegressor) on dask data; returns it, fitted.

    X: dask array (N, D) chunked along rows (or a dask dataframe); y: dask array (N,) labels,
    or (N,) / (N, k) targets for a regressor. Workers compute per-block ``HᵀH`` and ``HᵀY``
    (``W`` rebuilt from the seed on each worker), dask tree-sums them, and the client solves
    with ``estimator.solver``. The fitted attributes (``coef_``, ``classes_``, ``seed_``,
    ``n_features_in_``, ``n_outputs_``, ``equations_``) are those of ``estimator.fit`` on the
    same data, up to floating-point summation order.

    classes: all labels, if known (saves one pass over y, computed with ``da.unique`` otherwise).
    client: a ``dask.distributed.Client`` (``Client("tcp://scheduler:8786")`` for a cluster);
    ``retries``: how often a task that raised is re-run there. Without a client, ``scheduler``
    ("threads", "processes", "sync" or None for dask's default, which is the active Client
    when one exists). A worker that dies mid-task is rescheduled by the scheduler on its own
    (``distributed.scheduler.allowed-failures`` times).

    Before any task runs, what this process allocates (:func:`dask_memory_plan`: with a local
    scheduler the map tasks too) is checked against the memory available: ``MemoryError`` naming
    the sizes.  The estimator is updated under its lock (``greenelm._threads.object_lock``), so
    threads reading it meanwhile see the old model or the new one.
    """
    from .estimator import ELMClassifier

    if estimator.solver == "pinv":
        raise ValueError("fit_dask cannot use solver='pinv', which needs all of H at once; use "
                         "'cholesky', 'lu', or 'eigh' (alpha=0 for the minimum-norm limit)")
    chunk_size = check_positive_int("chunk_size", estimator.chunk_size)
    estimator._check_params()
    X = as_dask_array(X, "X", chunk_size)
    y = as_dask_array(y, "y", X.chunks[0][0] if len(X.chunks[0]) else None)
    if X.ndim != 2:
        raise ValueError(f"X must be 2-D (N, D), got shape {X.shape}")
    if X.shape[0] == 0:
        raise ValueError("X has no rows: cannot fit")
    is_classifier = isinstance(estimator, ELMClassifier)
    dtype = check_dtype(estimator.dtype)
    d, D = int(estimator.n_hidden), int(X.shape[1])
    if is_classifier and y.ndim != 1:
        raise ValueError(f"y must be 1-D labels (N,) for a classifier, got shape {y.shape}")
    known_outputs = (len(np.unique(np.asarray(classes))) if classes is not None else 2) if is_classifier \
        else (1 if y.ndim == 1 else int(y.shape[1]))
    if client is not None or scheduler in ("processes",):
        tasks_here = 0
    else:
        import os

        tasks_here = 1 if scheduler in ("sync", "single-threaded", "synchronous") else \
            max(1, min(len(X.chunks[0]), os.cpu_count() or 1))
    _check_rows(X, "X")
    block_rows = int(max(X.chunks[0])) if len(X.chunks[0]) else 0
    require_memory(dask_memory_plan(D, d, known_outputs, dtype, chunk_size, block_rows,
                                    check_positive_int("split_every", split_every), estimator.solver,
                                    tasks_here),
                   f"fit_dask({type(estimator).__name__}(n_hidden={d})) on X ({X.shape[0]} × {D})",
                   hint="lower n_hidden, chunk_size or the row blocks of X (X.rechunk)")
    if is_classifier:
        if classes is None:
            da = _dask_array()

            _check_rows(y, "y")
            classes = _compute(da.unique(y), client, scheduler, retries)
        classes = np.unique(np.asarray(classes))
    with object_lock(estimator):
        return _fit_dask_locked(estimator, X, y, classes, is_classifier, dtype, chunk_size, client,
                                scheduler, retries, split_every)


def _fit_dask_locked(estimator, X, y, classes, is_classifier, dtype, chunk_size, client, scheduler,
                     retries, split_every):
    """:func:`fit_dask` from the labels on, under the estimator's lock."""
    if is_classifier:
        check_classification_targets(classes)
        if len(classes) < 2:
            raise ValueError(f"ELMClassifier needs at least 2 classes in y; got {len(classes)}")
        estimator.classes_ = classes
        estimator.n_outputs_ = len(classes)
    else:
        if classes is not None:
            raise ValueError("classes is for classifiers; a regressor takes real targets")
        estimator._single_output = y.ndim == 1
        estimator.n_outputs_ = 1 if y.ndim == 1 else y.shape[1]

    estimator.__dict__.pop("feature_names_in_", None)
    estimator.n_features_in_ = int(X.shape[1])
    estimator.seed_ = estimator._draw_seed()
    device = None if estimator.device is None else str(estimator.device)
    spec = FeatureSpec(estimator.n_features_in_, int(estimator.n_hidden), estimator.seed_,
                       estimator.weight_scale, estimator.bias, dtype, device)
    lazy = sufficient_statistics(X, y, spec, chunk_size, classes if is_classifier else None,
                                 split_every)
    packed = np.asarray(_compute(lazy, client, scheduler, retries))

    d = spec.n_hidden
    equations = NormalEquations.from_sums(packed[:, :d], packed[:, d:], int(X.shape[0]),
                                          dtype, estimator.device)
    estimator._snapshot_params()          # the parameters of this fit, as ``fit`` records them
    estimator.stream_, estimator._fitted_by_partial_fit, estimator._partial_state_missing = None, False, None
    estimator._waiting_rows, estimator._waiting_count = [], 0   # rows an earlier partial_fit gathered
    estimator._features = estimator._make_features()
    estimator.equations_ = equations
    estimator.coef_ = solve(equations, estimator.solver, estimator.alpha)
    return estimator
