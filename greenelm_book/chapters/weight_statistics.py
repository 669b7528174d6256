"""Weight-distribution statistics: the paper's histogram entropy and its companions.

The paper (Section "Information Density and Shannon Entropy" and its remark) measures the
"structural complexity" of a weight matrix by

    S = -Σ p(w_i) log2 p(w_i),

with p estimated by "a histogram with K equally spaced bins over the observed weight range" and
"base-2 logarithms after normalization of the bin counts".  :func:`histogram_entropy` is exactly
that: bins of equal width over ``[min(w), max(w)]`` (NumPy's ``np.histogram(w, bins=K)``, the last
bin closed), counts divided by their sum, empty bins dropped (0·log 0 = 0).  It lies in
``[0, log2 K]`` and is unchanged by any affine map ``a·w + c`` (``a ≠ 0``) of the weights.
The paper does not give K; every function takes it.

Companions used by the entropy chapter (all per matrix or per slice along an ``axis``):

* :func:`quantile_symmetry` — the geometry axis ``G`` of our reconstruction of the paper's
  "MNIST Sea" figure (the paper never defines G): the symmetry of the value distribution about its
  mean, ``G = -corr(s, reversed(s))`` for the sorted values ``s``; 1 for any symmetric
  distribution, lower the more skewed.
* :func:`hoyer_sparsity` and :func:`near_zero_fraction` — how "dense" a weight vector is.
* :func:`matched_entropy` and :func:`gaussian_entropy` — the entropy of random subsets of a fixed
  size, and of Gaussian samples of a given size: histogram entropy grows with the number of
  values (it cannot exceed ``log2 n``), so matrices of different sizes are compared at equal n.
* :func:`weight_statistics` — all of the above for a dict of named weight matrices, as one tidy
  table; :func:`linear_weights` reads the weight matrices of a trained torch model.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from greenelm._validation import check_positive_int

#: Our default K: the paper gives none.  256 is one bin per grey level of an 8-bit MNIST pixel.
DEFAULT_BINS = 256
#: :func:`near_zero_fraction`'s default threshold, relative to the largest magnitude.
NEAR_ZERO_TOL = 0.01


# ----------------------------------------------------------------------------- input checks
def _as_slices(weights, axis, minimum: int = 1, what: str = "weights") -> tuple[np.ndarray, tuple]:
    """``weights`` as float64 rows (M, n), one row per slice along ``axis`` (one row if None),
    and the shape of the result (``()`` for axis=None)."""
    try:
        a = np.asarray(weights, dtype=np.float64)
    except (TypeError, ValueError) as err:
        raise TypeError(f"{what} must be an array of real numbers: {err}") from None
    if a.size == 0:
        raise ValueError(f"{what} is empty (shape {a.shape}); need at least {minimum} value(s)")
    if not np.all(np.isfinite(a)):
        bad = int(np.sum(~np.isfinite(a)))
        raise ValueError(f"{what} contains {bad} NaN or infinite value(s); the histogram range "
                         f"[min, max] is undefined")
    if axis is None:
        rows, shape = a.reshape(1, -1), ()
    else:
        if a.ndim == 0:
            raise ValueError(f"axis={axis} needs an array with at least one dimension, got a scalar")
        if not -a.ndim <= axis < a.ndim:
            raise ValueError(f"axis {axis} is out of bounds for {what} of shape {a.shape}")
        moved = np.moveaxis(a, axis, -1)
        rows, shape = moved.reshape(-1, moved.shape[-1]), moved.shape[:-1]
    if rows.shape[1] < minimum:
        raise ValueError(f"{what} needs at least {minimum} values per slice, got {rows.shape[1]}")
    return rows, shape


def _check_bins(bins) -> int:
    if isinstance(bins, bool) or not isinstance(bins, (int, np.integer)) or bins < 1:
        raise ValueError(f"bins (the number of histogram bins K) must be an integer >= 1, got {bins!r}")
    return int(bins)


def _shaped(values: np.ndarray, shape: tuple):
    return float(values[0]) if shape == () else values.reshape(shape)


# ----------------------------------------------------------------------------- histograms
def histogram_counts(weights, bins: int = DEFAULT_BINS, axis: int | None = None) -> np.ndarray:
    """Counts of a K-bin histogram over ``[min, max]``, as ``np.histogram(w, bins=K)[0]``.

    ``weights``: any shape.  ``axis=None``: one histogram of all values → counts (K,);
    ``axis=i``: one histogram per 1-D slice along axis ``i`` (each over its own range) → counts of
    shape ``weights.shape`` without axis ``i``, plus a last axis of length K.  A constant slice
    puts everything in one bin (NumPy widens its range by ±0.5).  Vectorised; equal to a loop of
    ``np.histogram`` calls, including values on bin edges.
    """
    K = _check_bins(bins)
    rows, shape = _as_slices(weights, axis)
    lo, hi = rows.min(axis=1), rows.max(axis=1)
    const = lo == hi
    lo, hi = np.where(const, lo - 0.5, lo), np.where(const, hi + 0.5, hi)
    edges = np.linspace(lo, hi, K + 1, axis=-1)  # (M, K + 1), each row as np.histogram's edges
    # NumPy's own uniform-bin path: a first guess from the scaled value, then a correction against
    # the actual edges (so values on an edge land where np.histogram puts them)
    idx = ((rows - lo[:, None]) / (hi - lo)[:, None] * K).astype(np.intp)
    idx[idx >= K] = K - 1
    idx[idx < 0] = 0
    idx[rows < np.take_along_axis(edges, idx, 1)] -= 1
    up = (rows >= np.take_along_axis(edges, idx + 1, 1)) & (idx != K - 1)
    idx[up] += 1
    flat = (np.arange(len(rows))[:, None] * K + idx).ravel()
    counts = np.bincount(flat, minlength=len(rows) * K).reshape(len(rows), K)
    return counts[0] if shape == () else counts.reshape(*shape, K)


def entropy_from_counts(counts, axis: int = -1):
    """Base-2 Shannon entropy of normalised counts along ``axis`` (zero counts dropped): bits."""
    c = np.asarray(counts, dtype=np.float64)
    if c.size == 0 or np.any(c < 0) or not np.all(np.isfinite(c)):
        raise ValueError("counts must be a non-empty array of finite, non-negative numbers")
    total = c.sum(axis=axis, keepdims=True)
    if np.any(total == 0):
        raise ValueError("counts sum to zero: no distribution to take the entropy of")
    p = c / total
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(p > 0, -p * np.log2(np.where(p > 0, p, 1.0)), 0.0)
    h = terms.sum(axis=axis)
    return float(h) if np.ndim(h) == 0 else h


def histogram_entropy(weights, bins: int = DEFAULT_BINS, axis: int | None = None):
    """The paper's entropy of a weight distribution, in bits.

    A histogram with ``bins`` (K) equal bins over the observed range ``[min(w), max(w)]``, its
    counts normalised to probabilities p_k, and ``H = -Σ_k p_k log2 p_k`` over the non-empty bins.

    ``weights``: any shape; ``axis=None`` → a float for all values together; ``axis=i`` → one
    entropy per 1-D slice along axis ``i`` (e.g. ``axis=0`` on a readout ``W2`` of shape (d, k)
    gives the k column entropies; ``axis=1`` on images X (N, D) gives one per image), an array of
    ``weights.shape`` without axis ``i``.  ``0 <= H <= log2(min(K, n))`` for n values per slice.
    Raises ``ValueError`` for empty input, NaN/inf, or ``bins`` not an integer >= 1.
    """
    return entropy_from_counts(histogram_counts(weights, bins, axis))


# ----------------------------------------------------------------------------- shape of the distribution
def quantile_symmetry(weights, axis: int | None = None):
    """Symmetry of the value distribution about its mean: ``G = -corr(s, s[::-1])``, s sorted.

    For sorted values s with mean m, ``G = -Σ (s_i - m)(s_{n+1-i} - m) / Σ (s_i - m)²``: the
    quantile function q(p) of a distribution symmetric about its mean satisfies
    q(p) - m = -(q(1-p) - m), so G = 1; skew lowers it (G ≤ 1, and G ≥ -1).  Unchanged by any affine
    map with non-zero slope.  A constant slice counts as symmetric (G = 1).
    ``weights``/``axis`` as in :func:`histogram_entropy`; a float or an array of slices.
    """
    rows, shape = _as_slices(weights, axis)
    s = np.sort(rows, axis=1)
    c = s - s.mean(axis=1, keepdims=True)
    num = -(c * c[:, ::-1]).sum(axis=1)
    den = (c * c).sum(axis=1)
    # a slice whose spread is at rounding level is constant for this purpose
    tiny = den <= (1e-24 * np.maximum(1.0, np.abs(s).max(axis=1)) ** 2) * rows.shape[1]
    g = np.where(tiny, 1.0, num / np.where(tiny, 1.0, den))
    return _shaped(np.clip(g, -1.0, 1.0), shape)


def hoyer_sparsity(weights, axis: int | None = None):
    """Hoyer's sparsity ``(√n - ‖w‖₁/‖w‖₂) / (√n - 1)`` ∈ [0, 1] (Hoyer, JMLR 2004).

    0 when every |w_i| is equal (fully dense), 1 for a single non-zero (one-hot).  Scale-free;
    for large Gaussian samples ≈ 1 - √(2/π) ≈ 0.20, for Laplace ≈ 1 - 1/√2 ≈ 0.29.  Needs n >= 2
    values per slice and not all zero.  ``weights``/``axis`` as in :func:`histogram_entropy`.
    """
    rows, shape = _as_slices(weights, axis, minimum=2)
    l1, l2 = np.abs(rows).sum(axis=1), np.sqrt((rows * rows).sum(axis=1))
    if np.any(l2 == 0):
        raise ValueError("hoyer_sparsity is undefined for an all-zero weight vector")
    root = np.sqrt(rows.shape[1])
    return _shaped((root - l1 / l2) / (root - 1), shape)


def near_zero_fraction(weights, tol: float = NEAR_ZERO_TOL, axis: int | None = None):
    """Fraction of weights with ``|w| < tol · max|w|`` (per slice when ``axis`` is given)."""
    if not (np.isfinite(tol) and 0 < tol < 1):
        raise ValueError(f"tol must be a number in (0, 1), got {tol!r}")
    rows, shape = _as_slices(weights, axis)
    top = np.abs(rows).max(axis=1, keepdims=True)
    return _shaped((np.abs(rows) < tol * top).mean(axis=1), shape)


# ----------------------------------------------------------------------------- size-matched comparisons
def matched_entropy(weights, n: int, bins: int = DEFAULT_BINS, draws: int = 20, seed: int = 0) -> np.ndarray:
    """Entropies (draws,) of ``draws`` random subsets of ``n`` of the weights (without replacement).

    Histogram entropy depends on how many values it sees (at most log2 n); this puts matrices of
    different sizes on the same footing.  Raises if ``n`` exceeds the number of weights.
    """
    n, draws = check_positive_int("n", n), check_positive_int("draws", draws)
    flat = _as_slices(weights, None)[0][0]
    if n > flat.size:
        raise ValueError(f"n={n} exceeds the {flat.size} weights available")
    rng = np.random.default_rng(seed)
    picks = np.stack([flat[rng.choice(flat.size, n, replace=False)] for _ in range(draws)])
    return histogram_entropy(picks, bins, axis=1)


def gaussian_entropy(n: int, bins: int = DEFAULT_BINS, draws: int = 20, seed: int = 0) -> np.ndarray:
    """Entropies (draws,) of ``n`` i.i.d. Gaussian values (any mean and scale: H is affine-invariant).

    The reference for a "dense, broadly distributed" vector of n weights.
    """
    n, draws = check_positive_int("n", n), check_positive_int("draws", draws)
    return histogram_entropy(np.random.default_rng(seed).standard_normal((draws, n)), bins, axis=1)


def weight_statistics(sets: Mapping[str, np.ndarray], bins: Sequence[int] = (DEFAULT_BINS,),
                      n_match: int | None = None, draws: int = 20, seed: int = 0) -> pd.DataFrame:
    """Statistics of named weight matrices, one row per (set, K).

    ``sets``: name → matrix (n_in, n_out) whose columns are the weight vectors of the output units
    (an ELM readout ``coef_`` (d, k); a torch ``Linear.weight`` transposed, see
    :func:`linear_weights`).  Columns of the result:

    * ``set``, ``bins`` (K), ``size`` (number of weights), ``columns``;
    * ``entropy``: :func:`histogram_entropy` of all the weights (the paper's definition);
    * ``column_entropy``: mean over columns of each column's entropy (the "stars" of the Sea);
    * ``matched_entropy``: mean of :func:`matched_entropy` over ``draws`` subsets of ``n_match``
      weights (NaN when ``n_match`` is None or larger than the set);
    * ``gaussian_entropy`` / ``gaussian_column_entropy`` / ``gaussian_matched_entropy``: the same
      for Gaussian samples of the same sizes (:func:`gaussian_entropy`);
    * K-independent: ``symmetry`` (:func:`quantile_symmetry` of all weights), ``column_symmetry``
      (mean over columns), ``hoyer`` (:func:`hoyer_sparsity` of all weights) and ``near_zero``
      (:func:`near_zero_fraction`).
    """
    if not sets:
        raise ValueError("sets is empty: pass a mapping name -> weight matrix")
    Ks = [_check_bins(k) for k in bins]
    rows = []
    for name, W in sets.items():
        W = np.asarray(W, dtype=np.float64)
        if W.ndim != 2:
            raise ValueError(f"{name}: expected a matrix (n_in, n_out), got shape {W.shape}")
        fixed = {"symmetry": quantile_symmetry(W), "column_symmetry": float(np.mean(quantile_symmetry(W, axis=0))),
                 "hoyer": hoyer_sparsity(W), "near_zero": near_zero_fraction(W)}
        matched_ok = n_match is not None and n_match <= W.size
        for K in Ks:
            rows.append({
                "set": name, "bins": K, "size": W.size, "columns": W.shape[1],
                "entropy": histogram_entropy(W, K),
                "column_entropy": float(np.mean(histogram_entropy(W, K, axis=0))),
                "matched_entropy": float(matched_entropy(W, n_match, K, draws, seed).mean())
                if matched_ok else np.nan,
                "gaussian_entropy": float(gaussian_entropy(W.size, K, 1 if W.size > 10**5 else 4, seed).mean()),
                "gaussian_column_entropy": float(gaussian_entropy(W.shape[0], K, draws, seed).mean()),
                "gaussian_matched_entropy": float(gaussian_entropy(n_match, K, draws, seed).mean())
                if matched_ok else np.nan,
                **fixed})
    return pd.DataFrame(rows)


def linear_weights(model, prefix: str = "") -> dict[str, np.ndarray]:
    """The weight matrices of every ``torch.nn.Linear`` in ``model``, as (n_in, n_out) arrays.

    Keys are ``prefix`` + the module's name in ``model`` (``"0"``, ``"2"`` for an
    ``nn.Sequential`` MLP; ``""`` for a bare ``nn.Linear``); biases are left out.
    """
    from torch import nn

    out = {}
    for name, module in model.named_modules():
        if isinstance(module, nn.Linear):
            out[prefix + name] = module.weight.detach().cpu().double().numpy().T.copy()
    if not out:
        raise ValueError(f"{type(model).__name__} has no nn.Linear layer")
    return out
