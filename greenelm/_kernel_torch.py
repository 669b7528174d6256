"""The kernel limit's arithmetic in torch, for ``KernelLimitClassifier(device=...)`` (and the regressor).

The NumPy path of :mod:`greenelm.kernels` on a torch device (a GPU), the kernel stored in float32 as there:
the view-averaged arc-cosine kernel K̄ (N, N) built in blocks of rows, its composition ``depth`` times,
the jitter chosen on held-out training rows (one factorisation of the fitted rows' block per jitter),
then ``(K̄ + μI) A = Y`` factorised whole (``torch.linalg.cholesky_ex``) and solved; the test kernel
in blocks, its scores summed in float64. The factorisations run in float64: the system K̄ + μI, built
in float32 as on the host, is promoted before ``cholesky_ex`` (on 60,000 rows at the small jitters the
held-out choice picks, cuSOLVER's float32 Cholesky failed where the host's blocked float32 one passed;
a GPU's float64 runs near its float32 rate). The model's arrays stay NumPy (the training rows and A come
back to the host), so a model fitted on a GPU is saved, loaded and compared as any other.

Each kernel value is computed in float64 (the products, the arc-cosine) and stored in float32, where the
NumPy path computes in float32: the two kernels agree to float32 rounding, not bit for bit. Every product on
the device is a float64 one, so TF32 (a float32 setting) never enters.
"""

from __future__ import annotations

import math
import time

import numpy as np

from .features import row_chunks


def _arccos_(products, norms_a, norms_b):
    """In place: inner products x̃ᵀz̃ (n, m) → K(x, z) = |x||z| (sin θ + (π − θ) cos θ) / (2π), given
    ‖x̃‖ (n,) and ‖z̃‖ (m,) float64 (their outer product in the products' dtype)."""
    import torch

    scale = torch.outer(norms_a, norms_b).to(products.dtype)
    cos = products.div_(scale).clamp_(-1.0, 1.0)
    theta = torch.arccos(cos)
    sin = torch.sqrt(torch.clamp(1.0 - cos * cos, min=0.0))
    cos.mul_(math.pi - theta).add_(sin).mul_(scale).div_(2 * math.pi)
    return cos


def averaged_block(rows_of, cols_of, row_norms, col_norms, depth: int = 1):
    """``mean over views a, b of K(rows_of[a], cols_of[b])`` (n, m) on the views' device, in their dtype
    (float64, :func:`to_device`), from σ_w-scaled views (tensors) and their augmented norms (float64 tensors);
    K composed ``depth`` times (the torch twin of :func:`greenelm.kernels._averaged_block`)."""
    total = None
    for a, rows in enumerate(rows_of):
        for b, cols in enumerate(cols_of):
            block = _arccos_(rows @ cols.T + 1.0, row_norms[a], col_norms[b])     # σ_b² = 1: the bias
            for layer in range(1, depth):
                scale = 2.0 ** (-layer / 2)
                _arccos_(block, row_norms[a] * scale, col_norms[b] * scale)
            total = block if total is None else total.add_(block)
    return total.div_(float(len(rows_of) * len(cols_of)))


def _solve(kernel, Y, jitter: float):
    """``(K + μI) A = Y`` (μ = jitter · mean diag K) from the lower triangle of ``kernel`` (n, n) float32,
    factorised in float64 (the system promoted to a float64 copy beside its factor): (A (n, k) float32, or
    None where K + μI did not factorise or A is not finite; μ). ``kernel`` is left as it was."""
    import torch

    mu = float(jitter) * float(torch.diagonal(kernel).double().mean())
    system = kernel.double()
    system.diagonal().add_(mu)
    factor, info = torch.linalg.cholesky_ex(system)
    del system
    if int(info) != 0:
        return None, mu
    coef = torch.cholesky_solve(Y.double(), factor).to(kernel.dtype)
    return (coef if bool(torch.isfinite(coef).all()) else None), mu


def to_device(views: list, norms: list, device):
    """The σ_w-scaled NumPy views (each (N, D') float32) and their norms ((N,) float64) as float64 tensors
    on ``device``: the kernel's products are summed in float64 there, each value rounded to float32 once
    (sums of 16,384 float32 products in a GPU's GEMM order left the 60,000-row kernel indefinite beyond
    the μ the held-out choice picked, in float64 factorisations too)."""
    import torch

    return ([torch.as_tensor(view, device=device).double() for view in views],
            [torch.as_tensor(norm, device=device) for norm in norms])


def fit_on_device(train_views: list, norms: list, Y: np.ndarray, jitter, fit_rows, validation_rows, score,
                  symmetric: bool, depth: int, block_rows: int, attempts: int, device) -> dict:
    """The kernel limit's fit on ``device``: the σ_w-scaled training views (V NumPy (N, D') float32) and
    their norms, targets Y (N, k) float64, ``jitter`` a float or a list (chosen on ``fit_rows`` /
    ``validation_rows`` by ``score``, a tie going to the larger), ``attempts`` factorisations at × 10
    after each failure (one jitter). Returns {"coef" (N, k) float32 NumPy or None, "mu", "jitter" (the
    last tried), "attempts", "validation_scores" (or None), "seconds" {"kernel", "fit"}}."""
    import torch

    clock = [time.perf_counter()]
    views, view_norms = to_device(train_views, norms, device)
    columns, column_norms = (views[:1], view_norms[:1]) if symmetric else (views, view_norms)
    n = len(Y)
    kernel = torch.empty((n, n), dtype=torch.float32, device=device)
    for rows in row_chunks(n, block_rows):
        kernel[rows] = averaged_block([view[rows] for view in views], columns,
                                      [norm[rows] for norm in view_norms], column_norms, depth)
    del views, columns
    if kernel.device.type == "cuda":
        torch.cuda.synchronize(kernel.device)
    clock.append(time.perf_counter())
    targets = torch.as_tensor(Y, device=device)
    validation_scores = None
    if isinstance(jitter, list):
        fit = torch.as_tensor(fit_rows, device=device)
        held = torch.as_tensor(validation_rows, device=device)
        block = kernel.index_select(0, fit).index_select(1, fit)
        across = kernel.index_select(0, held).index_select(1, fit).double()
        validation_scores = []
        for value in jitter:
            coef, _ = _solve(block, targets.index_select(0, fit), value)
            validation_scores.append(None if coef is None else
                                     float(score((across @ coef.double()).cpu().numpy(), Y[validation_rows])))
        del block, across
        if all(s is None for s in validation_scores):
            raise np.linalg.LinAlgError(f"no jitter of {jitter} factorised the kernel of the {len(fit_rows)} "
                                        "fitted rows")
        jitter = max((s, j) for s, j in zip(validation_scores, jitter) if s is not None)[1]
        attempts = 1
    for used in range(1, attempts + 1):
        if used > 1:
            jitter *= 10
        coef, mu = _solve(kernel, targets, jitter)
        if coef is not None:
            break
    del kernel
    coef = None if coef is None else coef.cpu().numpy()
    clock.append(time.perf_counter())
    return {"coef": coef, "mu": mu, "jitter": float(jitter), "attempts": used,
            "validation_scores": validation_scores, "seconds": dict(zip(["kernel", "fit"], np.diff(clock).tolist()))}


def scores_on_device(test_views: list, train_views, test_norms: list, train_norms, coef: np.ndarray, depth: int,
                     device, score_columns: int) -> np.ndarray:
    """``K̄(test, train) A`` (m, k) float64 NumPy for one block of σ_w-scaled test views (V NumPy (m, D')
    float32) against the training views (float64 tensors on ``device``, :func:`to_device`, with their norms;
    the first only when symmetric): the block of the test kernel in float64, its products with A summed over
    ``score_columns`` columns at a time."""
    import torch

    views, norms = to_device(test_views, test_norms, device)
    kernel = averaged_block(views, train_views, norms, train_norms, depth)     # float64, as the views
    coef = torch.as_tensor(coef, device=device).double()
    scores = torch.zeros((kernel.shape[0], coef.shape[1]), dtype=torch.float64, device=device)
    for columns in row_chunks(kernel.shape[1], score_columns):
        scores += kernel[:, columns] @ coef[columns]
    return scores.cpu().numpy()
