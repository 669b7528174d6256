"""The infinitely wide Green-ELM: the arc-cosine kernel and its kernel ridge regression.

For Gaussian W (columns ~ N(0, σ_w² I)) and b ~ N(0, σ_b²), random ReLU features satisfy
``H Hᵀ / d → K`` as d → ∞ (law of large numbers), with the degree-1 arc-cosine kernel
(Cho and Saul, 2009) on inputs augmented with the bias, ``x̃ = [σ_w x, σ_b]``::

    K(x, z) = E[relu(wᵀx + b) relu(wᵀz + b)] = ‖x̃‖ ‖z̃‖ (sin θ + (π − θ) cos θ) / (2π),
    cos θ = x̃ᵀz̃ / (‖x̃‖ ‖z̃‖).

(Cho and Saul's k₁ is twice this: they normalise by 1/π.)  σ_w = 1 for ``weight_scale="unit"``,
σ_w² = 2/D for ``"he"``; σ_b = 1 (``bias="normal"``).  A uniform bias has no closed form here.

The ridge readout of width d predicts ``H_t (HᵀH + λI)⁻¹ HᵀY = K̂_t (K̂ + (λ/d) I)⁻¹ Y`` with
``K̂ = H Hᵀ / d``: at a fixed λ the effective ridge λ/d vanishes, so the infinitely wide Green-ELM
is kernel *interpolation* with K.  :func:`kernel_ridge_predict` solves ``(K + μI) A = Y`` with a
small stated jitter μ (numerically needed in float32) and predicts ``K_t A``.

The N × N system is solved in place in float32 (N = 60,000: 14.4 GB) by a right-looking blocked
Cholesky (:func:`cholesky_inplace`) on views of one NumPy array: SciPy's and torch's Cholesky
routines would make a second N × N copy (and multithreaded OpenBLAS ``potrf`` fails beyond order
16,000), while the blocked form runs multithreaded in place.

**Views.** The kernel averaged over V views of each input, ``K̄(x, z) = mean over a, b of
K(v_a(x), v_b(z))``, costs V² products of feature blocks. When the views form a group whose elements
act on the features as permutations of their columns, ``v_a(x) = P_a v_0(x)`` (the identity and the
mirror image's features of a mirror-symmetric patch map, :class:`~greenelm.RandomPatchFeatures` with
``mirror_symmetric=True``), K depends on inner products and norms only, both unchanged by a common
permutation, so ``K(v_a(x), v_b(z)) = K(v_b⁻¹ v_a(x), v_0(z))`` and the mean over the V² pairs is the
mean over the V of ``K(v_a(x), v_0(z))``: V products, and only the first view of the training rows
(``_averaged_kernel(..., symmetric=True)``, ``_averaged_block`` with the first view as its columns).
Views that do not commute with the feature map are no such group: one-pixel shifts with zero fill
lose a border's positions and bring in zeros, so a view set with shifts keeps the V² kernel.

**Depth.** The arc-cosine kernel composed ``depth`` times (Cho and Saul, 2009: the kernel of a
network of ``depth`` infinitely wide ReLU layers), each layer's kernel the arc-cosine of the previous
one's, ``K_{ℓ+1}(x, z) = √(K_ℓ(x, x) K_ℓ(z, z)) J(θ_ℓ) / (2π)`` with ``cos θ_ℓ = K_ℓ(x, z) /
√(K_ℓ(x, x) K_ℓ(z, z))`` and ``J(θ) = sin θ + (π − θ) cos θ``; the diagonal halves at each layer,
``√K_ℓ(x, x) = ‖x̃‖ / 2^(ℓ/2)`` (:func:`_compose_arccos`). It is elementwise work on each view pair's
kernel block, no further product; depth 1 is the kernel above.
"""

from __future__ import annotations

import math
import tempfile
import time
import zlib

import numpy as np
import scipy.linalg

from ._validation import check_choice, check_positive_int
from ._progress import progress_bar
from ._threads import blas_threads, shared_executor
from .features import WEIGHT_SCALES, row_chunks
from .solvers import LARGE_ORDER

KERNEL_DTYPES = ("float32", "float64")


def augment(X, weight_scale: str = "unit") -> np.ndarray:
    """``x̃ = [σ_w x, σ_b]``: X (N, D) → (N, D + 1) float64, for the arc-cosine kernel."""
    check_choice("weight_scale", weight_scale, WEIGHT_SCALES)
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2 or X.shape[0] == 0:
        raise ValueError(f"X must be a non-empty 2-d array (N, D), got shape {X.shape}")
    if not np.all(np.isfinite(X)):
        raise ValueError("X contains NaN or inf")
    sigma_w = 1.0 if weight_scale == "unit" else math.sqrt(2.0 / X.shape[1])
    return np.hstack([sigma_w * X, np.ones((X.shape[0], 1))])


#: values of a kernel block transformed at a time by one thread: a tile that stays in cache while
#: the arc-cosine's dozen elementwise passes read it (out of cache each pass went to memory)
ARCCOS_TILE_VALUES = 1 << 15
#: tiles a block needs before it is tiled and split between threads (smaller blocks ran slower so:
#: the threads' start-up costs more than their work saves)
ARCCOS_THREADED_TILES = 16


def _arccos_from_products(products: np.ndarray, norms_a: np.ndarray, norms_b: np.ndarray) -> np.ndarray:
    """In place: inner products x̃ᵀz̃ (n, m) → K(x, z), given ‖x̃‖ (n,) and ‖z̃‖ (m,).

    A block of at least :data:`ARCCOS_THREADED_TILES` tiles of :data:`ARCCOS_TILE_VALUES` values
    goes tile by tile, the tiles split between as many threads as BLAS has (a smaller one in one
    pass): each value goes through the same float operations as one whole-array pass, so the
    result does not depend on the tiles or the threads."""
    n, m = products.shape
    if n * m < ARCCOS_THREADED_TILES * ARCCOS_TILE_VALUES:          # a small block: one pass, in cache
        _arccos_tile(products, norms_a, norms_b)
        return products
    tile_cols = min(m, ARCCOS_TILE_VALUES)
    tile_rows = max(1, ARCCOS_TILE_VALUES // tile_cols)
    tiles = [(slice(r, min(r + tile_rows, n)), slice(c, min(c + tile_cols, m)))
             for r in range(0, n, tile_rows) for c in range(0, m, tile_cols)]

    def transform(part):
        for rows, cols in part:
            _arccos_tile(products[rows, cols], norms_a[rows], norms_b[cols])

    workers = min(blas_threads(), len(tiles))
    if workers <= 1:
        transform(tiles)
    else:
        for future in [shared_executor(workers).submit(transform, tiles[w::workers]) for w in range(workers)]:
            future.result()
    return products


def _arccos_tile(products: np.ndarray, norms_a: np.ndarray, norms_b: np.ndarray) -> None:
    """:func:`_arccos_from_products` of one tile (a view, written in place)."""
    scale = np.multiply.outer(norms_a, norms_b).astype(products.dtype)
    cos = np.divide(products, scale, out=products)
    np.clip(cos, -1.0, 1.0, out=cos)
    theta = np.arccos(cos)
    sin = np.sqrt(np.maximum(1.0 - cos * cos, 0.0))
    # K = |x||z| (sin θ + (π − θ) cos θ) / (2π)
    cos *= (math.pi - theta)
    cos += sin
    cos *= scale
    cos /= 2 * math.pi


def arccos_kernel(X, Z=None, weight_scale: str = "unit", bias: str = "normal",
                  dtype: str = "float64") -> np.ndarray:
    """The d → ∞ limit of ``relu(XW + b) relu(ZW + b)ᵀ / d``: X (n, D), Z (m, D) → K (n, m)."""
    if bias != "normal":
        raise ValueError(f"the arc-cosine kernel limit needs a Gaussian bias (bias='normal'), got {bias!r}")
    check_choice("dtype", dtype, KERNEL_DTYPES)
    Xa = augment(X, weight_scale)
    Za = Xa if Z is None else augment(Z, weight_scale)
    if Za.shape[1] != Xa.shape[1]:
        raise ValueError(f"X has {Xa.shape[1] - 1} columns but Z has {Za.shape[1] - 1}")
    products = (Xa.astype(dtype) @ Za.astype(dtype).T)
    return _arccos_from_products(products, np.linalg.norm(Xa, axis=1), np.linalg.norm(Za, axis=1))


def cholesky_inplace(A: np.ndarray, block: int = 8192, progress: bool = False) -> np.ndarray:
    """Lower Cholesky factor of the SPD matrix ``A`` (n, n), written over A's lower triangle.

    Only the lower triangle of ``A`` is read; the strict upper triangle is left as it was (garbage
    allowed).  Right-looking blocked algorithm on views of A (no second n × n array): LAPACK
    Cholesky of each diagonal block of order ≤ ``block`` (below OpenBLAS's multithreaded ``potrf``
    failure order), a triangular solve for the panel below it and GEMM updates of the lower blocks
    of the trailing matrix, all multithreaded BLAS.  Returns A.
    """
    if not isinstance(A, np.ndarray) or A.ndim != 2 or A.shape[0] != A.shape[1]:
        raise ValueError(f"A must be a square NumPy array, got {getattr(A, 'shape', type(A))}")
    if not A.flags.c_contiguous or A.dtype.name not in KERNEL_DTYPES:
        raise ValueError(f"A must be a C-contiguous float32/float64 array, got {A.dtype}, "
                         f"C-contiguous={A.flags.c_contiguous}")
    block = check_positive_int("block", block)
    if block >= LARGE_ORDER:
        raise ValueError(f"block must be < {LARGE_ORDER} (OpenBLAS's multithreaded potrf fails beyond)")
    blocks = list(row_chunks(A.shape[0], block))
    for j, bj in enumerate(progress_bar(blocks, desc="blocked Cholesky", disable=not progress)):
        try:
            L = scipy.linalg.cholesky(A[bj, bj], lower=True, check_finite=False)
        except np.linalg.LinAlgError as error:
            raise np.linalg.LinAlgError(f"matrix is not positive definite (in the diagonal block at row "
                                        f"{bj.start}: {error}); raise the jitter") from error
        A[bj, bj] = L
        for bi in blocks[j + 1:]:            # panel: A_ij ← A_ij L_jj⁻ᵀ, i.e. L_jj A_ijᵀ = A_ijᵀ
            A[bi, bj] = scipy.linalg.solve_triangular(L, A[bi, bj].T, lower=True, check_finite=False).T
        for k, bk in enumerate(blocks[j + 1:], start=j + 1):
            for bi in blocks[k:]:            # trailing lower blocks: A_ik −= L_ij L_kjᵀ
                A[bi, bk] -= A[bi, bj] @ A[bk, bj].T
    return A


def cholesky_solve_inplace(L: np.ndarray, Y: np.ndarray, block: int = 8192) -> np.ndarray:
    """Solve ``L Lᵀ X = Y`` with the lower triangle of ``L`` (n, n) (as left by :func:`cholesky_inplace`).

    Y (n, k) → X (n, k) in L's dtype, by blocked forward and back substitution on views of L.
    """
    X = np.array(Y, dtype=L.dtype)
    blocks = list(row_chunks(L.shape[0], check_positive_int("block", block)))
    for i, bi in enumerate(blocks):          # forward: L z = y
        for bk in blocks[:i]:
            X[bi] -= L[bi, bk] @ X[bk]
        X[bi] = scipy.linalg.solve_triangular(L[bi, bi], X[bi], lower=True, check_finite=False)
    for i in reversed(range(len(blocks))):   # back: Lᵀ x = z
        bi = blocks[i]
        for bk in blocks[i + 1:]:
            X[bi] -= L[bk, bi].T @ X[bk]
        X[bi] = scipy.linalg.solve_triangular(L[bi, bi], X[bi], lower=True, trans=1, check_finite=False)
    return X


def kernel_ridge_predict(X_train, Y, X_test, jitter: float, weight_scale: str = "unit",
                         dtype: str = "float32", block_rows: int = 2048, cholesky_block: int = 8192,
                         progress: bool = False) -> tuple[np.ndarray, dict]:
    """Kernel ridge with the arc-cosine kernel: ``K_t (K + μI)⁻¹ Y``.

    X_train (N, D), Y (N, k), X_test (M, D) → scores (M, k) float64, and a dict with
    ``mu`` = jitter · mean(diag K) (the absolute ridge used) and the kernel's dtype.
    K (N × N, ``dtype``) is built in row blocks and factorised in place.
    """
    check_choice("dtype", dtype, KERNEL_DTYPES)
    if not (np.isfinite(jitter) and jitter >= 0):
        raise ValueError(f"jitter must be a finite number >= 0, got {jitter!r}")
    Y = np.asarray(Y, dtype=np.float64)
    Xa, Ta = augment(X_train, weight_scale), augment(X_test, weight_scale)
    if Y.ndim != 2 or len(Y) != len(Xa):
        raise ValueError(f"Y must be (N={len(Xa)}, k), got shape {Y.shape}")
    if Ta.shape[1] != Xa.shape[1]:
        raise ValueError(f"X_test has {Ta.shape[1] - 1} columns, X_train {Xa.shape[1] - 1}")
    norms, test_norms = np.linalg.norm(Xa, axis=1), np.linalg.norm(Ta, axis=1)
    Xd, Td = Xa.astype(dtype), Ta.astype(dtype)
    n = len(Xa)
    K = np.zeros((n, n), dtype=dtype)     # zero pages: the unused upper triangle stays finite
    for rows in progress_bar(list(row_chunks(n, block_rows)), desc="kernel", disable=not progress):
        # lower triangle only (columns up to the block's end) is needed by the factorisation
        cols = slice(0, rows.stop)
        K[rows, cols] = _arccos_from_products(Xd[rows] @ Xd[cols].T, norms[rows], norms[cols])
    diagonal = np.diagonal(K).astype(np.float64)
    mu = float(jitter * diagonal.mean())
    K.flat[:: n + 1] += np.asarray(mu, dtype=dtype)
    cholesky_inplace(K, block=cholesky_block, progress=progress)
    coef = cholesky_solve_inplace(K, Y, block=cholesky_block)
    del K
    scores = np.empty((len(Ta), Y.shape[1]))
    for rows in row_chunks(len(Ta), block_rows):
        block = _arccos_from_products(Td[rows] @ Xd.T, test_norms[rows], norms)
        scores[rows] = (block @ coef).astype(np.float64)
    return scores, {"mu": mu, "jitter": float(jitter), "dtype": dtype, "n_train": n}


def _float32_rows(name: str, X) -> np.ndarray:
    """``X`` itself when it is a C-contiguous, finite (n, D) float32 array (checked in row blocks,
    no copy); else ValueError naming ``name``."""
    if not isinstance(X, np.ndarray) or X.dtype != np.float32 or X.ndim != 2 or not X.flags.c_contiguous:
        raise ValueError(f"{name} must be a C-contiguous 2-d float32 NumPy array (it is scaled in place), got "
                         f"{getattr(X, 'dtype', type(X).__name__)} with shape {getattr(X, 'shape', None)}")
    if X.shape[0] == 0 or not X.flags.writeable:
        raise ValueError(f"{name} must be non-empty and writeable, got shape {X.shape}")
    for rows in row_chunks(len(X), 4096):
        if not np.all(np.isfinite(X[rows])):
            raise ValueError(f"{name} contains NaN or inf")
    return X


def _augmented_norms(X: np.ndarray) -> np.ndarray:
    """‖x̃‖ = sqrt(‖x‖² + σ_b²) of each row of the (already σ_w-scaled) float32 X (n, D) → (n,) float64."""
    norms = np.empty(len(X))
    for rows in row_chunks(len(X), 4096):        # each element cast to float64 inside the sum: no float64 copy
        norms[rows] = np.sqrt(np.einsum("ij,ij->i", X[rows], X[rows], dtype=np.float64) + 1.0)
    return norms


def kernel_ridge_predict_inplace(X_train: np.ndarray, Y, X_test: np.ndarray, jitter: float,
                                 weight_scale: str = "unit", attempts: int = 1, block_rows: int = 1024,
                                 cholesky_block: int = 8192, progress: bool = False) -> tuple[np.ndarray, dict]:
    """:func:`kernel_ridge_predict` in float32 with no copy of the inputs, for wide inputs.

    X_train (N, D) and X_test (M, D) must be C-contiguous float32 arrays: they are **scaled by σ_w
    in place** (overwritten) and the bias enters each product as ``+ σ_b²``, so the memory is the
    inputs, the N × N float32 kernel and one ``block_rows`` × N block (``kernel_ridge_predict``
    holds the inputs three more times, as float64 and float32 augmented copies). Y (N, k).
    μ = jitter · mean(diag K); after a failed factorisation the kernel is rebuilt with the jitter
    ×10, at most ``attempts`` factorisations in all. Returns scores (M, k) float64 and a dict with
    ``mu``, ``jitter`` (the one that factorised), ``attempts`` (used), ``dtype`` and ``n_train``;
    raises ``LinAlgError`` (naming the last jitter) when none factorised.
    """
    check_choice("weight_scale", weight_scale, WEIGHT_SCALES)
    if not (np.isfinite(jitter) and jitter >= 0):
        raise ValueError(f"jitter must be a finite number >= 0, got {jitter!r}")
    attempts = check_positive_int("attempts", attempts)
    X_train, X_test = _float32_rows("X_train", X_train), _float32_rows("X_test", X_test)
    Y = np.asarray(Y, dtype=np.float64)
    n = len(X_train)
    if Y.ndim != 2 or len(Y) != n:
        raise ValueError(f"Y must be (N={n}, k), got shape {Y.shape}")
    if X_test.shape[1] != X_train.shape[1]:
        raise ValueError(f"X_test has {X_test.shape[1]} columns, X_train {X_train.shape[1]}")
    if np.shares_memory(X_train, X_test):
        raise ValueError("X_train and X_test must not share memory (each is scaled in place)")
    sigma_w = np.float32(1.0 if weight_scale == "unit" else math.sqrt(2.0 / X_train.shape[1]))
    X_train *= sigma_w
    X_test *= sigma_w
    norms, test_norms = _augmented_norms(X_train), _augmented_norms(X_test)
    chunks = list(row_chunks(n, check_positive_int("block_rows", block_rows)))
    for attempt in range(1, attempts + 1):
        K = np.zeros((n, n), dtype=np.float32)     # zero pages: the unused upper triangle stays finite
        for rows in progress_bar(chunks, desc="kernel", disable=not progress):
            cols = slice(0, rows.stop)               # the lower triangle, all the factorisation reads
            products = X_train[rows] @ X_train[cols].T
            products += np.float32(1.0)              # σ_b² = 1: the bias column of x̃
            K[rows, cols] = _arccos_from_products(products, norms[rows], norms[cols])
        mu = float(jitter * np.diagonal(K).astype(np.float64).mean())
        K.flat[:: n + 1] += np.float32(mu)
        try:
            cholesky_inplace(K, block=cholesky_block, progress=progress)
        except np.linalg.LinAlgError:
            del K
            if attempt == attempts:
                raise np.linalg.LinAlgError(f"the arc-cosine kernel did not factorise in {attempts} attempt(s), "
                                            f"the last at jitter {jitter:g}") from None
            jitter *= 10
            continue
        coef = cholesky_solve_inplace(K, Y, block=cholesky_block)
        del K
        break
    scores = np.empty((len(X_test), Y.shape[1]))
    for rows in row_chunks(len(X_test), block_rows):
        products = X_test[rows] @ X_train.T
        products += np.float32(1.0)
        scores[rows] = (_arccos_from_products(products, test_norms[rows], norms) @ coef).astype(np.float64)
    return scores, {"mu": mu, "jitter": float(jitter), "attempts": attempt, "dtype": "float32", "n_train": n}


def _float32_views(name: str, views) -> list[np.ndarray]:
    """``views`` as a non-empty list of :func:`_float32_rows` arrays of one shape, no two sharing memory."""
    if isinstance(views, np.ndarray) or not isinstance(views, (list, tuple)) or not views:
        raise ValueError(f"{name} must be a non-empty list of (n, D) float32 arrays, one per view, got "
                         f"{type(views).__name__}")
    views = [_float32_rows(f"{name}[{i}]", view) for i, view in enumerate(views)]
    if any(view.shape != views[0].shape for view in views):
        raise ValueError(f"the views of {name} must share one shape, got {[view.shape for view in views]}")
    for i, view in enumerate(views):
        for j in range(i):
            if np.shares_memory(view, views[j]):
                raise ValueError(f"{name}[{i}] and {name}[{j}] share memory (each view is scaled in place)")
    return views


def _compose_arccos(block: np.ndarray, norms_a: np.ndarray, norms_b: np.ndarray, depth: int) -> np.ndarray:
    """In place: the arc-cosine kernel K₁ (n, m) of inputs with ‖x̃‖ (n,) and ‖z̃‖ (m,) → K_depth, the
    kernel composed ``depth`` times (see the module): layer ℓ's kernel is the arc-cosine transform of
    layer ℓ − 1's, whose diagonal's square roots are ‖x̃‖ / 2^((ℓ − 1)/2). Depth 1 leaves it as it is."""
    for layer in range(1, depth):
        scale = 2.0 ** (-layer / 2)
        _arccos_from_products(block, norms_a * scale, norms_b * scale)
    return block


def _averaged_block(rows_of, cols_of, row_norms, col_norms, depth: int = 1) -> np.ndarray:
    """``mean over views a, b of K(rows_of[a], cols_of[b])`` (n, m) float32, from σ_w-scaled float32 views;
    K the arc-cosine kernel composed ``depth`` times (:func:`_compose_arccos`)."""
    total = None
    for a, rows in enumerate(rows_of):
        for b, cols in enumerate(cols_of):
            products = rows @ cols.T
            products += np.float32(1.0)              # σ_b² = 1: the bias column of x̃
            block = _compose_arccos(_arccos_from_products(products, row_norms[a], col_norms[b]),
                                    row_norms[a], col_norms[b], depth)
            if total is None:
                total = block
            else:
                total += block
    total /= np.float32(len(rows_of) * len(cols_of))
    return total


def _checked_jitters(jitters) -> list[float]:
    """``jitters`` as a non-empty list of finite floats >= 0; else ValueError."""
    if np.ndim(jitters) == 0:
        raise ValueError(f"jitters must be a list of numbers, got {jitters!r}")
    jitters = [float(j) for j in jitters]
    if not jitters or not all(np.isfinite(j) and j >= 0 for j in jitters):
        raise ValueError(f"jitters must be a non-empty list of finite numbers >= 0, got {jitters!r}")
    return jitters


def _scaled_views(train_views, Y, test_views, weight_scale: str):
    """Check the views and targets of the view-averaged ridges, scale every view by σ_w in place.
    Returns (train_views, Y (N, k) float64, test_views, train norms, test norms): lists per view."""
    check_choice("weight_scale", weight_scale, WEIGHT_SCALES)
    train_views, test_views = _float32_views("train_views", train_views), _float32_views("test_views", test_views)
    if len(train_views) != len(test_views):
        raise ValueError(f"train_views has {len(train_views)} views but test_views {len(test_views)}: one per view")
    if test_views[0].shape[1] != train_views[0].shape[1]:
        raise ValueError(f"test_views have {test_views[0].shape[1]} columns, train_views {train_views[0].shape[1]}")
    if any(np.shares_memory(a, b) for a in train_views for b in test_views):
        raise ValueError("train_views and test_views must not share memory (each view is scaled in place)")
    Y = np.asarray(Y, dtype=np.float64)
    if Y.ndim != 2 or len(Y) != len(train_views[0]):
        raise ValueError(f"Y must be (N={len(train_views[0])}, k), got shape {Y.shape}")
    sigma_w = np.float32(1.0 if weight_scale == "unit" else math.sqrt(2.0 / train_views[0].shape[1]))
    for view in train_views + test_views:
        view *= sigma_w
    return (train_views, Y, test_views, [_augmented_norms(view) for view in train_views],
            [_augmented_norms(view) for view in test_views])


def _averaged_kernel(train_views, norms, block_rows: int, progress: bool, symmetric: bool = False,
                     depth: int = 1) -> np.ndarray:
    """The lower triangle of K̄ (N, N) float32 over the σ_w-scaled views (the strict upper triangle zero);
    ``symmetric``: the views form a group of column permutations, so K̄(x, z) = mean over a of
    K(v_a(x), v_0(z)), V products instead of V² (see the module); K composed ``depth`` times."""
    n = len(train_views[0])
    columns, column_norms = (train_views[:1], norms[:1]) if symmetric else (train_views, norms)
    kernel = np.zeros((n, n), dtype=np.float32)       # zero pages: the unused upper triangle stays finite
    for rows in progress_bar(list(row_chunks(n, block_rows)), desc="averaged kernel", disable=not progress):
        cols = slice(0, rows.stop)                      # the lower triangle, all the factorisation reads
        kernel[rows, cols] = _averaged_block([view[rows] for view in train_views],
                                             [view[cols] for view in columns],
                                             [norm[rows] for norm in norms], [norm[cols] for norm in column_norms],
                                             depth)
    return kernel


def _ridge_coefficients(kernel: np.ndarray, Y: np.ndarray, jitters, cholesky_block: int,
                        progress: bool) -> tuple[list, list]:
    """Solve ``(K + μI) A = Y`` for each jitter (μ = jitter · mean diag K) from the lower triangle of
    ``kernel`` (N, N) float32: each on a copy, the last one in place (``kernel`` is overwritten). Returns the
    coefficients (N, k) per jitter (None where K + μI did not factorise) and the μ per jitter."""
    n = len(kernel)
    mean_diagonal = float(np.diagonal(kernel).astype(np.float64).mean())
    coefs, mus = [], []
    for i, jitter in enumerate(jitters):
        system = kernel if i == len(jitters) - 1 else kernel.copy()
        mus.append(jitter * mean_diagonal)
        system.flat[:: n + 1] += np.float32(mus[-1])
        try:
            cholesky_inplace(system, block=cholesky_block, progress=progress)
            coefs.append(cholesky_solve_inplace(system, Y, block=cholesky_block))
        except np.linalg.LinAlgError:
            coefs.append(None)
        del system
    return coefs, mus


def _scores_per_coefficient(coefs, n_rows: int, block_rows: int, kernel_rows) -> list:
    """``K_rows @ A`` (n_rows, k) float64 for each coefficient A of ``coefs`` (None stays None), from
    one product per block of rows with every A side by side: ``kernel_rows(rows)`` gives the kernel's
    block (len(rows), N) for a slice of the rows."""
    solved = [coef for coef in coefs if coef is not None]
    scores = [None if coef is None else np.empty((n_rows, coef.shape[1])) for coef in coefs]
    if solved:
        stacked = np.concatenate(solved, axis=1)        # one product with every jitter's coefficients
        k = solved[0].shape[1]
        for rows in row_chunks(n_rows, block_rows):
            block = kernel_rows(rows) @ stacked
            for score, columns in zip([score for score in scores if score is not None], row_chunks(block.shape[1], k)):
                score[rows] = block[:, columns]
    return scores


def _averaged_scores(test_views, train_views, test_norms, norms, coefs, block_rows: int) -> list:
    """``K̄(test, train) @ A`` (M, k) float64 for each coefficient A of ``coefs`` (None stays None)."""
    return _scores_per_coefficient(coefs, len(test_views[0]), block_rows, lambda rows: _averaged_block(
        [view[rows] for view in test_views], train_views, [norm[rows] for norm in test_norms], norms))


def _spill(kernel: np.ndarray, file, rows: int = 4096) -> int:
    """Write ``kernel`` (N, N) to ``file`` row block by row block; return the CRC-32 of its bytes."""
    crc = 0
    for block in row_chunks(len(kernel), rows):
        data = memoryview(kernel[block]).cast("B")
        crc = zlib.crc32(data, crc)
        file.write(data)
    return crc


def _read_back(kernel: np.ndarray, file, crc: int, rows: int = 4096) -> None:
    """Read ``kernel`` back in place from the start of ``file`` (as :func:`_spill` wrote it); OSError
    when the file is short or its bytes' CRC-32 is not ``crc``."""
    file.seek(0)
    check = 0
    for block in row_chunks(len(kernel), rows):
        data = memoryview(kernel[block]).cast("B")
        filled = 0
        while filled < len(data):
            got = file.readinto(data[filled:])
            if not got:
                raise OSError(f"the kernel's spill file ended after {file.tell()} bytes")
            filled += got
        check = zlib.crc32(data, check)
    if check != crc:
        raise OSError("the kernel read back from its spill file is not the kernel written (CRC-32 differs)")


def _solve_with_retries(kernel: np.ndarray, Y: np.ndarray, jitter: float, attempts: int, cholesky_block: int,
                        progress: bool, spill_dir) -> tuple:
    """:func:`_ridge_coefficients` at ``jitter``, then at ×10 after each failed factorisation, at most
    ``attempts`` in all; with more than one, ``kernel`` (N, N) float32 is first spilled to a temporary
    file in ``spill_dir`` (deleted on return) and read back before each retry, so no second N × N
    array is held. Returns (coefficients (N, k) or None, μ, the last jitter tried, attempts used)."""
    if attempts == 1:
        (coef,), (mu,) = _ridge_coefficients(kernel, Y, [jitter], cholesky_block, progress)
        return coef, mu, jitter, 1
    with tempfile.TemporaryFile(dir=spill_dir) as file:
        crc = _spill(kernel, file)
        for attempt in range(1, attempts + 1):
            if attempt > 1:
                jitter *= 10
                _read_back(kernel, file, crc)
            (coef,), (mu,) = _ridge_coefficients(kernel, Y, [jitter], cholesky_block, progress)
            if coef is not None:
                break
    return coef, mu, jitter, attempt


def averaged_kernel_ridge_predict(train_views, Y, test_views, jitters, weight_scale: str = "unit",
                                  block_rows: int = 1024, cholesky_block: int = 8192,
                                  progress: bool = False, attempts: int = 1,
                                  spill_dir: str | None = None) -> tuple[list, dict]:
    """Kernel ridge with the arc-cosine kernel averaged over views (transformations) of each input,
    for one or several jitters from one kernel.

    ``train_views`` is a list of V arrays (N, D) (the same N inputs, each transformed by view v: e.g.
    ``[features(images), features(mirrored images)]``) and ``test_views`` a list of V arrays (M, D)
    in the same order, all C-contiguous float32, **scaled by σ_w in place**. The kernel is
    ``K̄(x, z) = mean over a, b of K(view_a(x), view_b(z))``: the kernel of the random ReLU features
    averaged over the views (d → ∞), so training with the views folded into the kernel, at N rows;
    V = 1 is :func:`kernel_ridge_predict_inplace`. Building it costs V² kernels.

    For each jitter of ``jitters``, μ = jitter · mean(diag K̄) is added and ``(K̄ + μI) A = Y`` (Y (N, k))
    solved by the in-place Cholesky; with more than one jitter a copy of the kernel is kept
    (memory 2 · N² · 4 bytes, else N² · 4). With one jitter, ``attempts`` > 1 retries a factorisation
    that failed at the jitter × 10, at most ``attempts`` in all, from a copy of the kernel spilled to a
    temporary file in ``spill_dir`` (default: the system's; 4 · N² bytes of disk, deleted on return,
    CRC-checked when read back) instead of building it again. Returns ``scores``, a list with (M, k)
    float64 per jitter (None where the kernel did not factorise), and a dict with ``mu`` (list),
    ``jitters`` (with retries: the last one tried), ``attempts`` (used), ``n_views``, ``dtype``,
    ``n_train`` and ``seconds`` (wall seconds of the ``kernel``, the ``fit`` (every factorisation and
    solve, the spill's writes and reads) and the ``test`` scores).
    """
    jitters = _checked_jitters(jitters)
    attempts = check_positive_int("attempts", attempts)
    if attempts > 1 and len(jitters) > 1:
        raise ValueError(f"attempts > 1 retries one jitter at ×10; got {len(jitters)} jitters {jitters!r}")
    train_views, Y, test_views, norms, test_norms = _scaled_views(train_views, Y, test_views, weight_scale)
    block_rows = check_positive_int("block_rows", block_rows)
    clock = [time.perf_counter()]
    kernel = _averaged_kernel(train_views, norms, block_rows, progress)
    clock.append(time.perf_counter())
    used = 1
    if len(jitters) == 1:
        coef, mu, last, used = _solve_with_retries(kernel, Y, jitters[0], attempts, cholesky_block, progress, spill_dir)
        coefs, mus, jitters = [coef], [mu], [last]
    else:
        coefs, mus = _ridge_coefficients(kernel, Y, jitters, cholesky_block, progress)
    del kernel
    clock.append(time.perf_counter())
    scores = _averaged_scores(test_views, train_views, test_norms, norms, coefs, block_rows)
    clock.append(time.perf_counter())
    return scores, {"mu": mus, "jitters": jitters, "attempts": used, "n_views": len(train_views), "dtype": "float32",
                    "n_train": len(Y), "seconds": dict(zip(["kernel", "fit", "test"], np.diff(clock).tolist()))}


def _held_out_rows(name: str, rows, n: int) -> np.ndarray:
    """``rows`` as sorted unique int64 indices into N = ``n`` rows; else ValueError naming ``name``."""
    rows = np.asarray(rows)
    if rows.ndim != 1 or rows.size == 0 or not np.issubdtype(rows.dtype, np.integer):
        raise ValueError(f"{name} must be a non-empty 1-d array of row indices, got {rows.dtype} with shape {rows.shape}")
    if rows.min() < 0 or rows.max() >= n:
        raise ValueError(f"{name} must index the {n} training rows, got indices from {rows.min()} to {rows.max()}")
    if len(np.unique(rows)) != len(rows):
        raise ValueError(f"{name} repeats a row")
    return np.sort(rows).astype(np.int64)


def _checked_choice(fit_rows, validation_rows, n: int, score, block_rows):
    """The held-out choice's arguments checked: (fit rows, validation rows) as disjoint index arrays
    into ``n`` rows, ``score`` callable, ``block_rows`` a positive int; ValueError naming the problem."""
    fit_rows, validation_rows = _held_out_rows("fit_rows", fit_rows, n), _held_out_rows("validation_rows", validation_rows, n)
    if np.intersect1d(fit_rows, validation_rows).size:
        raise ValueError("fit_rows and validation_rows share rows: the held-out rows must not be fitted")
    if not callable(score):
        raise ValueError(f"score must be a function (scores, Y) -> float, got {type(score).__name__}")
    return fit_rows, validation_rows, check_positive_int("block_rows", block_rows)


def _symmetric_take(lower: np.ndarray, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
    """``K[rows][:, cols]`` of the symmetric K whose lower triangle ``lower`` (N, N) holds."""
    below = rows[:, None] >= cols[None, :]
    return np.where(below, lower[np.ix_(rows, cols)], lower[np.ix_(cols, rows)].T)


def accuracy_score_of_argmax(scores: np.ndarray, Y: np.ndarray) -> float:
    """The fraction of rows whose largest score is in the column of Y's largest value (one-hot Y)."""
    return float(np.mean(scores.argmax(1) == Y.argmax(1)))


def held_out_kernel_ridge_predict(train_views, Y, test_views, jitters, fit_rows, validation_rows,
                                  weight_scale: str = "unit", score=accuracy_score_of_argmax,
                                  block_rows: int = 1024, cholesky_block: int = 8192,
                                  progress: bool = False) -> tuple[np.ndarray, dict]:
    """:func:`averaged_kernel_ridge_predict` with its jitter chosen on held-out training rows, from the
    same kernel: one N × N kernel serves the choice and the final fit.

    For each jitter of ``jitters`` the ridge fitted on the ``fit_rows`` of the training views
    (μ = jitter · the mean diagonal of their block of K̄) predicts the ``validation_rows`` (disjoint
    index arrays); ``score(scores (n_v, k), Y[validation_rows])`` (higher is better; default: the
    accuracy of the argmax) picks the jitter, a tie going to the larger one. The ridge at that jitter
    is then fitted on all N rows (μ = jitter · mean diag K̄) and predicts the test views. The choice
    costs one n_fit² float32 copy of the kernel's block and its factorisation per jitter, no kernel.

    Returns ``scores`` (M, k) float64 and a dict with ``jitter`` and ``mu`` (the final fit's),
    ``validation`` (the score per jitter, None where the block did not factorise), ``validation_mu``,
    ``jitters``, ``n_fit``, ``n_validation``, ``n_views``, ``dtype``, ``n_train`` and ``seconds`` (wall
    seconds of the ``kernel``, the ``validation`` fits, the final ``fit`` and the ``test`` scores); raises
    ``LinAlgError`` when no jitter factorised the block, or the chosen one the whole kernel.
    """
    jitters = _checked_jitters(jitters)
    train_views, Y, test_views, norms, test_norms = _scaled_views(train_views, Y, test_views, weight_scale)
    n = len(Y)
    fit_rows, validation_rows, block_rows = _checked_choice(fit_rows, validation_rows, n, score, block_rows)
    clock = [time.perf_counter()]
    kernel = _averaged_kernel(train_views, norms, block_rows, progress)
    clock.append(time.perf_counter())
    chosen, validation, validation_mu = held_out_choice(kernel, Y, jitters, fit_rows, validation_rows, score,
                                                        block_rows, cholesky_block, progress)
    clock.append(time.perf_counter())
    (coef,), (mu,) = _ridge_coefficients(kernel, Y, [chosen], cholesky_block, progress)
    del kernel
    if coef is None:
        raise np.linalg.LinAlgError(f"the kernel of all {n} rows did not factorise at the chosen jitter {chosen:g}")
    clock.append(time.perf_counter())
    (scores,) = _averaged_scores(test_views, train_views, test_norms, norms, [coef], block_rows)
    clock.append(time.perf_counter())
    seconds = dict(zip(["kernel", "validation", "fit", "test"], np.diff(clock).tolist()))
    return scores, {"jitter": chosen, "mu": mu, "validation": validation, "validation_mu": validation_mu,
                    "jitters": jitters, "n_fit": len(fit_rows), "n_validation": len(validation_rows),
                    "n_views": len(train_views), "dtype": "float32", "n_train": n, "seconds": seconds}


def weight_sigma(weight_scale: str, n_features: int) -> float:
    """σ_w of ``weight_scale`` for inputs of ``n_features`` columns: 1 (``"unit"``) or √(2/D) (``"he"``),
    as every function here scales its inputs."""
    check_choice("weight_scale", weight_scale, WEIGHT_SCALES)
    return 1.0 if weight_scale == "unit" else math.sqrt(2.0 / n_features)


def held_out_choice(kernel: np.ndarray, Y, jitters, fit_rows, validation_rows,
                    score=accuracy_score_of_argmax, block_rows: int = 1024, cholesky_block: int = 8192,
                    progress: bool = False) -> tuple[float, list, list]:
    """The jitter choice of :func:`held_out_kernel_ridge_predict` from a built kernel, which it only reads.

    ``kernel`` (N, N) float32 holds K̄ in its lower triangle (as the in-place ridges build it), Y (N, k).
    For each jitter of ``jitters`` the ridge fitted on the ``fit_rows`` (μ = jitter · the mean diagonal
    of their block; one n_fit² float32 copy of the block at a time) predicts the ``validation_rows``
    (disjoint index arrays into the N rows); ``score(scores (n_v, k), Y[validation_rows])`` (higher is
    better) picks the jitter, a tie going to the larger one. Returns (the chosen jitter, the score per
    jitter (None where the block did not factorise), μ per jitter); raises ``LinAlgError`` when no
    jitter factorised the block (:func:`held_out_kernel_ridge_predict` chooses by it).
    """
    jitters = _checked_jitters(jitters)
    if not isinstance(kernel, np.ndarray) or kernel.ndim != 2 or kernel.shape[0] != kernel.shape[1]:
        raise ValueError(f"kernel must be a square NumPy array, got {getattr(kernel, 'shape', type(kernel))}")
    n = len(kernel)
    Y = np.asarray(Y, dtype=np.float64)
    if Y.ndim != 2 or len(Y) != n:
        raise ValueError(f"Y must be (N={n}, k), got shape {Y.shape}")
    fit_rows, validation_rows, block_rows = _checked_choice(fit_rows, validation_rows, n, score, block_rows)
    coefs, validation_mu = [], []
    for jitter in jitters:     # the block taken anew for each: one n_fit² copy at a time
        # sorted fit rows: the block's lower triangle is read from the kernel's lower triangle
        (coef,), (mu,) = _ridge_coefficients(kernel[np.ix_(fit_rows, fit_rows)], Y[fit_rows], [jitter],
                                             cholesky_block, progress)
        coefs.append(coef)
        validation_mu.append(mu)
    if all(coef is None for coef in coefs):
        raise np.linalg.LinAlgError(f"no jitter of {jitters} factorised the kernel of the {len(fit_rows)} fitted rows")
    predicted = _scores_per_coefficient(coefs, len(validation_rows), block_rows,
                                        lambda rows: _symmetric_take(kernel, validation_rows[rows], fit_rows))
    validation = [None if scores is None else float(score(scores, Y[validation_rows])) for scores in predicted]
    chosen = max((value, jitter) for value, jitter in zip(validation, jitters) if value is not None)[1]
    return chosen, validation, validation_mu


__all__ = ["accuracy_score_of_argmax", "augment", "arccos_kernel", "averaged_kernel_ridge_predict", "cholesky_inplace",
           "cholesky_solve_inplace", "held_out_choice", "held_out_kernel_ridge_predict",
           "kernel_ridge_predict", "kernel_ridge_predict_inplace", "weight_sigma"]
