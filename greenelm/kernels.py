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
"""

from __future__ import annotations

import math

import numpy as np
import scipy.linalg

from ._validation import check_choice, check_positive_int
from ._progress import progress_bar
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


def _arccos_from_products(products: np.ndarray, norms_a: np.ndarray, norms_b: np.ndarray) -> np.ndarray:
    """In place: inner products x̃ᵀz̃ (n, m) → K(x, z), given ‖x̃‖ (n,) and ‖z̃‖ (m,)."""
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
    return cos


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


__all__ = ["augment", "arccos_kernel", "cholesky_inplace", "cholesky_solve_inplace", "kernel_ridge_predict"]
