"""Generated data for the scale-out chapter and benchmark: a dataset's training images repeated to
any number of rows with seeded random pixel shifts, as a lazy ``dask.array`` whose blocks are made
inside the tasks (no process ever holds the whole matrix)::

    from greenelm_book.scaleout import shifted_mnist
    X, y = shifted_mnist(2_000_000, block_rows=20_000, seed=0)     # (2e6, 784) float32, (2e6,)
    model = greenelm.distributed.fit_dask(ELMClassifier(n_hidden=2000), X, y, client=client)
"""

from __future__ import annotations

import functools

import numpy as np

from greenelm._validation import check_positive_int

__all__ = ["shifted_mnist"]


@functools.lru_cache(maxsize=2)
def _training_images(dataset: str):
    from greenelm.data import load_dataset

    ds = load_dataset(dataset)
    return ds.x_train, ds.y_train


def _shifted_block(index, *, dataset: str, seed: int, max_shift: int, dtype: str):
    """Rows ``index`` (n,) of the generated data: training image ``i mod N_train`` shifted by a
    random (dy, dx) ∈ [-max_shift, max_shift]² drawn from ``(seed, index[0])``; (n, D) in [0, 1]."""
    from numpy.lib.stride_tricks import sliding_window_view

    images, _ = _training_images(dataset)
    base = images[np.asarray(index) % len(images)]
    if len(base) == 0:
        return np.empty((0, int(np.prod(images.shape[1:]))), dtype=dtype)
    s = max_shift
    h, w = images.shape[1:3]
    rng = np.random.default_rng([seed, int(index[0])])
    dy, dx = rng.integers(0, 2 * s + 1, size=(2, len(base)))
    pad = [(0, 0), (s, s), (s, s)] + [(0, 0)] * (base.ndim - 3)
    windows = sliding_window_view(np.pad(base, pad), (h, w), axis=(1, 2))
    shifted = windows[np.arange(len(base)), dy, dx]      # (n, [C,] h, w)
    if base.ndim == 4:                                   # colour: back to (n, h, w, C)
        shifted = np.moveaxis(shifted, 1, -1)
    out = shifted.reshape(len(base), -1).astype(dtype)
    out /= 255
    return out


def _labels_block(index, *, dataset: str):
    _, labels = _training_images(dataset)
    return labels[np.asarray(index) % len(labels)]


def shifted_mnist(n_rows: int, block_rows: int = 20_000, seed: int = 0, max_shift: int = 2,
                  dataset: str = "mnist", dtype: str = "float32"):
    """Lazy ``(X (n_rows, D), y (n_rows,))``: a dataset's training images repeated to ``n_rows``
    rows with seeded random pixel shifts, generated block by block inside the tasks (never
    materialised whole). Row i is image ``i mod 60000`` shifted by up to ``max_shift`` pixels;
    the data depends only on ``(seed, block_rows)``. Workers load the images themselves (cached
    per process), so they need the dataset files (``GREENELM_DATA``)."""
    import dask.array as da

    n_rows = check_positive_int("n_rows", n_rows)
    block_rows = check_positive_int("block_rows", block_rows)
    if isinstance(max_shift, bool) or not isinstance(max_shift, (int, np.integer)) or max_shift < 0:
        raise ValueError(f"max_shift must be a non-negative whole number of pixels, got {max_shift!r}")
    images, _ = _training_images(dataset)
    n_inputs = int(np.prod(images.shape[1:]))
    rows = da.arange(n_rows, chunks=block_rows)
    # the generator's own ``dtype`` goes in a partial: map_blocks keeps ``dtype=`` for itself
    generate = functools.partial(_shifted_block, dataset=dataset, seed=seed, max_shift=max_shift,
                                 dtype=dtype)
    X = rows.map_blocks(generate, new_axis=1, chunks=(rows.chunks[0], (n_inputs,)), dtype=dtype,
                        meta=np.empty((0, 0), dtype=dtype))
    y = rows.map_blocks(functools.partial(_labels_block, dataset=dataset), dtype=np.int64,
                        meta=np.empty((0,), dtype=np.int64))
    return X, y
