"""Rank-deficient Green-ELM readouts: pinv against LU and Cholesky, accuracy and stability.

The paper ranks its solvers' numerical stability (pinv "Highest", LU "Medium", Cholesky
"Medium-Low") and says decomposition solvers cost "slight accuracy degradation in rank-deficient
regimes". :func:`rank_deficiency_study` measures that on systems whose feature matrix H (N, d) is
rank-deficient by construction:

- ``"d>n"``: fewer training rows than hidden units (N < d, rank H ≤ N);
- ``"duplicated-units"``: the second half of the hidden units copies the first (rank H ≤ d/2);
- ``"collinear-inputs"``: the inputs projected onto a random ``input_rank``-dimensional subspace
  (X Q Qᵀ, every pixel a combination of a few directions) before the random layer;
- ``"full-rank"``: the control (N > d, nothing removed).

Each (regime, seed) draws one projection (``unit`` scale unless told) and solves it with pinv
(``solve_min_norm``, λ = 0) and with LU and Cholesky on ``(HᵀH + λI) W2 = HᵀY`` for each λ. Per
solve it records the test accuracy, whether the library refused the system (``LinAlgError``), the
normwise backward error of the solve (the relative residual of the system the solver solves), the
amplification of a relative perturbation ε of H into the readout (‖ΔW2‖/‖W2‖ / ε), the fraction of
test predictions that perturbation flips, and the fraction of test predictions that differ from pinv.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from greenelm._validation import check_choice, check_positive_int
from greenelm.features import RandomReLUFeatures
from greenelm.solvers import solve_min_norm, solve_normal_equations

REGIMES = ("full-rank", "d>n", "duplicated-units", "collinear-inputs")
RIDGE_SOLVERS = ("lu", "cholesky")


def regime_features(X, X_test, regime: str, n_hidden: int, seed: int, weight_scale: str = "unit",
                    input_rank: int = 20) -> tuple[np.ndarray, np.ndarray]:
    """Features (H (N, d), H_test (M, d)) of one rank-deficient regime (see the module docstring).

    ``X`` (N, D) and ``X_test`` (M, D) are float rows; for ``"d>n"`` the caller passes N < d rows.
    """
    check_choice("regime", regime, REGIMES)
    n_hidden = check_positive_int("n_hidden", n_hidden)
    X, X_test = np.asarray(X, dtype=np.float64), np.asarray(X_test, dtype=np.float64)
    if X.ndim != 2 or X_test.ndim != 2 or X.shape[1] != X_test.shape[1]:
        raise ValueError(f"X and X_test must be 2-D with the same number of columns, got {X.shape} "
                         f"and {X_test.shape}")
    if regime == "collinear-inputs":
        input_rank = check_positive_int("input_rank", input_rank)
        if input_rank >= X.shape[1]:
            raise ValueError(f"input_rank must be below the {X.shape[1]} inputs, got {input_rank}")
        rng = np.random.default_rng([seed, 1])
        Q, _ = np.linalg.qr(rng.standard_normal((X.shape[1], input_rank)))
        X, X_test = (X @ Q) @ Q.T, (X_test @ Q) @ Q.T
    if regime == "duplicated-units":
        if n_hidden % 2:
            raise ValueError(f"duplicated-units needs an even n_hidden, got {n_hidden}")
        half = RandomReLUFeatures(X.shape[1], n_hidden // 2, seed=seed, weight_scale=weight_scale)
        H, H_test = half.transform(X), half.transform(X_test)
        return np.hstack([H, H]), np.hstack([H_test, H_test])
    features = RandomReLUFeatures(X.shape[1], n_hidden, seed=seed, weight_scale=weight_scale)
    return features.transform(X), features.transform(X_test)


def solve_readout(H, Y, solver: str, alpha: float, sums=None) -> np.ndarray:
    """Readout W2 (d, k) of H (N, d), Y (N, k): ``pinv`` (λ ignored) or LU/Cholesky at λ = ``alpha``.

    ``sums``: (HᵀH, HᵀY) when already computed.
    """
    if solver == "pinv":
        return solve_min_norm(H, Y)
    check_choice("solver", solver, RIDGE_SOLVERS)
    gram, hty = sums if sums is not None else (H.T @ H, H.T @ Y)
    return solve_normal_equations(gram, hty, alpha, solver)


def backward_error(gram, hty, W2, alpha: float) -> float:
    """Normwise relative residual of ``(G + λI) W2 = HᵀY`` for G = HᵀH (d, d), HᵀY (d, k), W2 (d, k).

    ‖(G + λI)W2 − HᵀY‖ / (‖G + λI‖ ‖W2‖ + ‖HᵀY‖), Frobenius norms (λ = 0: the least-squares normal
    equations pinv satisfies): about machine epsilon for a backward-stable solve, whatever the
    conditioning.
    """
    A = gram + alpha * np.eye(len(gram))
    residual = np.linalg.norm(A @ W2 - hty)
    return float(residual / (np.linalg.norm(A) * np.linalg.norm(W2) + np.linalg.norm(hty)))


def numerical_rank(H) -> tuple[int, float]:
    """(numerical rank of H (N, d) at NumPy's cutoff max(N, d)·eps·σ_max, σ_max)."""
    s = np.linalg.svd(H, compute_uv=False)
    cutoff = max(H.shape) * np.finfo(np.float64).eps * s[0]
    return int(np.sum(s > cutoff)), float(s[0])


def rank_deficiency_study(X, y, X_test, y_test, regimes=REGIMES, n_hidden: int = 2000,
                          n_rows: int = 1000, n_rows_tall: int = 4000, seeds=range(5),
                          alphas=(1e-3, 1e-10), epsilon: float = 1e-8, weight_scale: str = "unit",
                          input_rank: int = 20) -> pd.DataFrame:
    """One row per (regime, seed, solver, λ) over the regimes of :data:`REGIMES`.

    ``X`` (N, D), ``y`` (N,) training data (the first ``n_rows`` rows for ``"d>n"``, the first
    ``n_rows_tall`` for the others); ``X_test`` (M, D), ``y_test`` (M,). Columns: regime, seed,
    n_rows, n_hidden, rank, solver, alpha, refused, accuracy (%), backward_error, amplification,
    flipped (% of test predictions a relative ε perturbation of H changes), disagreement (% of test
    predictions that differ from pinv's). Refused solves have NaN in the measured columns.
    """
    X, X_test = np.asarray(X, dtype=np.float64), np.asarray(X_test, dtype=np.float64)
    y, y_test = np.asarray(y), np.asarray(y_test)
    if len(X) != len(y) or len(X_test) != len(y_test):
        raise ValueError(f"X and y (and X_test and y_test) must have the same number of rows, got "
                         f"{len(X)}/{len(y)} and {len(X_test)}/{len(y_test)}")
    if not epsilon > 0:
        raise ValueError(f"epsilon must be a positive relative perturbation, got {epsilon}")
    if n_rows >= n_hidden:
        raise ValueError(f"the d>n regime needs n_rows < n_hidden, got n_rows={n_rows}, n_hidden={n_hidden}")
    if n_rows_tall <= n_hidden or n_rows_tall > len(X):
        raise ValueError(f"n_rows_tall must exceed n_hidden={n_hidden} and fit in the {len(X)} training "
                         f"rows, got {n_rows_tall}")
    classes = np.unique(y)
    rows = []
    for regime in regimes:
        n = n_rows if regime == "d>n" else n_rows_tall
        Y = (y[:n, None] == classes[None, :]).astype(np.float64)
        for seed in seeds:
            H, H_test = regime_features(X[:n], X_test, regime, n_hidden, seed, weight_scale, input_rank)
            rank, _ = numerical_rank(H)
            noise = np.random.default_rng([seed, 2]).standard_normal(H.shape)
            H_perturbed = H + epsilon * np.linalg.norm(H) / np.linalg.norm(noise) * noise
            sums = (H.T @ H, H.T @ Y)
            sums_perturbed = (H_perturbed.T @ H_perturbed, H_perturbed.T @ Y)
            reference = None
            for solver, alpha in [("pinv", 0.0)] + [(s, a) for a in alphas for s in RIDGE_SOLVERS]:
                row = {"regime": regime, "seed": int(seed), "n_rows": n, "n_hidden": n_hidden,
                       "rank": rank, "solver": solver, "alpha": alpha}
                try:
                    W2 = solve_readout(H, Y, solver, alpha, sums)
                    W2_perturbed = solve_readout(H_perturbed, Y, solver, alpha, sums_perturbed)
                except np.linalg.LinAlgError:
                    rows.append({**row, "refused": True, "accuracy": np.nan, "backward_error": np.nan,
                                 "amplification": np.nan, "flipped": np.nan, "disagreement": np.nan})
                    continue
                predicted = (H_test @ W2).argmax(1)
                if solver == "pinv":
                    reference = predicted
                change = np.linalg.norm(W2_perturbed - W2) / np.linalg.norm(W2)
                rows.append({**row, "refused": False,
                             "accuracy": 100 * float(np.mean(classes[predicted] == y_test)),
                             "backward_error": backward_error(*sums, W2, alpha),
                             "amplification": float(change / epsilon),
                             "flipped": 100 * float(np.mean((H_test @ W2_perturbed).argmax(1) != predicted)),
                             "disagreement": 100 * float(np.mean(predicted != reference))})
    return pd.DataFrame(rows)
