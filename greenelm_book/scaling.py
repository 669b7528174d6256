"""The paper's scaling law: accuracy against ln d, Algorithm 2 (Table III) and the hypothesis form.

Empirical Scaling Model (paper, remark "Empirical Scaling Model")::

    Acc(d, C) ≈ α · ln(d) / C + β

Algorithm 2 ("Scaling Hypothesis Parameter Calibration") fits it in two steps, exactly as
:func:`calibrate_complexity` does: an OLS line ``A = α ln d + β`` on the anchor dataset (MNIST,
``C = 1``), then for every other dataset the OLS slope ``m`` of ``A − β`` on ``ln d`` and
``C = α / m``.  Subtracting the constant β does not change an OLS slope, so ``C`` is just the ratio
of the anchor's slope to the dataset's; β is never used for the other datasets, and the fitted
model does not pass through their points (:func:`model_residuals` measures by how much).

Empirical Scaling Hypothesis::

    A(d, H) = Ψ · ln(d) / H^γ + ε_dataset

with an intrinsic entropy ``H`` per dataset that the paper does not define.  :func:`fit_hypothesis`
takes ``H`` as an input (the chapter states its choice), fits each dataset's slope and intercept by
OLS and then ``ln slope = ln Ψ − γ ln H`` by OLS across datasets.

Accuracies are fractions in [0, 1] (as in Algorithm 2) unless a function says otherwise.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import scipy.linalg


def _ols(x: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """Slope and intercept of the least-squares line ``y = slope · x + intercept``."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if x.shape != y.shape or x.ndim != 1 or len(x) < 2:
        raise ValueError(f"need two 1-d arrays of equal length >= 2, got shapes {x.shape} and {y.shape}")
    if not (np.all(np.isfinite(x)) and np.all(np.isfinite(y))):
        raise ValueError("OLS inputs contain NaN or inf")
    if np.ptp(x) == 0:
        raise ValueError("OLS needs at least two distinct x values")
    slope, intercept = np.polyfit(x, y, 1)
    return float(slope), float(intercept)


def _check_curves(widths, accuracies: dict) -> np.ndarray:
    widths = np.asarray(widths, dtype=float)
    if widths.ndim != 1 or np.any(widths <= 0):
        raise ValueError(f"widths must be a 1-d array of positive numbers, got {widths!r}")
    for name, acc in accuracies.items():
        acc = np.asarray(acc, dtype=float)
        if acc.shape != widths.shape:
            raise ValueError(f"{name}: {acc.shape[0] if acc.ndim else 0} accuracies for {len(widths)} widths")
        if np.any((acc < 0) | (acc > 1)):
            raise ValueError(f"{name}: accuracies must be fractions in [0, 1] (Algorithm 2), got {acc}")
    return widths


@dataclass(frozen=True)
class Calibration:
    """Algorithm 2's output: global α, β (from the anchor) and a complexity C per dataset."""

    alpha: float
    beta: float
    complexity: dict
    slopes: dict
    anchor: str

    def predict(self, widths, dataset: str) -> np.ndarray:
        """The calibrated model ``α ln d / C + β`` (fractions) for ``dataset`` at ``widths``."""
        return self.alpha * np.log(np.asarray(widths, dtype=float)) / self.complexity[dataset] + self.beta

    def as_series(self) -> pd.Series:
        """α, β and each C, named as in Table III."""
        out = {"alpha": self.alpha, "beta": self.beta}
        out.update({f"C_{name}": c for name, c in self.complexity.items()})
        return pd.Series(out)


def calibrate_complexity(widths, accuracies: dict, anchor: str = "mnist") -> Calibration:
    """Algorithm 2, as published: ``accuracies`` maps dataset → accuracy fractions at ``widths``.

    ``α, β = OLS(ln d, A_anchor)``; for every other dataset ``m = OLS slope(ln d, A − β)``,
    ``C = α / m``; ``C_anchor = 1``.
    """
    widths = _check_curves(widths, accuracies)
    if anchor not in accuracies:
        raise ValueError(f"anchor dataset {anchor!r} not among {sorted(accuracies)}")
    x = np.log(widths)
    alpha, beta = _ols(x, accuracies[anchor])
    complexity, slopes = {anchor: 1.0}, {anchor: alpha}
    for name, acc in accuracies.items():
        if name == anchor:
            continue
        m, _ = _ols(x, np.asarray(acc, dtype=float) - beta)
        slopes[name] = m
        complexity[name] = alpha / m if m != 0 else float("inf")
    return Calibration(alpha, beta, complexity, slopes, anchor)


def model_residuals(calibration: Calibration, widths, accuracies: dict) -> pd.DataFrame:
    """Per dataset and width: measured accuracy, the calibrated model's, and their difference."""
    rows = []
    for name, acc in accuracies.items():
        predicted = calibration.predict(widths, name)
        for d, a, p in zip(widths, acc, predicted):
            rows.append({"dataset": name, "n_hidden": int(d), "accuracy": float(a), "model": float(p),
                         "residual": float(a - p)})
    return pd.DataFrame(rows)


@dataclass(frozen=True)
class Hypothesis:
    """The hypothesis ``A = Ψ ln d / H^γ + ε_k``: Ψ, γ, and per dataset its slope and ε."""

    psi: float
    gamma: float
    slopes: dict
    intercepts: dict
    entropies: dict

    def predict(self, widths, dataset: str) -> np.ndarray:
        h = self.entropies[dataset]
        return self.psi * np.log(np.asarray(widths, dtype=float)) / h**self.gamma + self.intercepts[dataset]


def fit_hypothesis(widths, accuracies: dict, entropies: dict) -> Hypothesis:
    """Fit the Empirical Scaling Hypothesis given an entropy ``H`` > 0 per dataset.

    Each dataset: OLS ``A = m ln d + ε``; across datasets: OLS ``ln m = ln Ψ − γ ln H``
    (needs at least two datasets with distinct H and positive slopes).
    """
    widths = _check_curves(widths, accuracies)
    missing = set(accuracies) - set(entropies)
    if missing:
        raise ValueError(f"no entropy H given for {sorted(missing)}")
    if any(not np.isfinite(h) or h <= 0 for h in entropies.values()):
        raise ValueError(f"entropies must be finite and > 0, got {entropies}")
    x = np.log(widths)
    slopes, intercepts = {}, {}
    for name, acc in accuracies.items():
        slopes[name], intercepts[name] = _ols(x, acc)
    if any(m <= 0 for m in slopes.values()):
        raise ValueError(f"the hypothesis needs positive slopes, got {slopes}")
    names = list(accuracies)
    neg_gamma, log_psi = _ols(np.log([entropies[n] for n in names]), np.log([slopes[n] for n in names]))
    return Hypothesis(float(np.exp(log_psi)), -neg_gamma, slopes, intercepts,
                      {n: float(entropies[n]) for n in names})


def bootstrap_calibration(widths, correct: dict, anchor: str = "mnist", n_boot: int = 1000,
                          seed: int = 0, entropies: dict | None = None) -> pd.DataFrame:
    """Bootstrap Algorithm 2 (and the hypothesis when ``entropies`` is given).

    ``correct[dataset]`` is a boolean array (n_seeds, n_widths, n_test): whether each test sample
    was classified correctly by the model of each seed and width.  Each replicate resamples the
    seeds and the test samples (the same test indices for every width of a dataset, so the curve
    stays paired) and refits.  Returns one row per replicate: α, β, each C (and Ψ, γ).
    """
    widths = np.asarray(widths, dtype=float)
    rng = np.random.default_rng(seed)
    rows = []
    for _ in range(int(n_boot)):
        curves = {}
        for name, hits in correct.items():
            hits = np.asarray(hits, dtype=bool)
            if hits.ndim != 3 or hits.shape[1] != len(widths):
                raise ValueError(f"{name}: correct must be (n_seeds, {len(widths)} widths, n_test), "
                                 f"got {hits.shape}")
            seeds = rng.integers(0, hits.shape[0], hits.shape[0])
            samples = rng.integers(0, hits.shape[2], hits.shape[2])
            curves[name] = hits[seeds][:, :, samples].mean(axis=(0, 2))
        row = calibrate_complexity(widths, curves, anchor).as_series().to_dict()
        if entropies is not None:
            try:
                hyp = fit_hypothesis(widths, curves, entropies)
                row.update({"psi": hyp.psi, "gamma": hyp.gamma})
            except ValueError:          # a resampled slope ≤ 0 has no logarithm: no hypothesis fit
                row.update({"psi": np.nan, "gamma": np.nan})
        rows.append(row)
    return pd.DataFrame(rows)


def confidence_intervals(replicates: pd.DataFrame, level: float = 0.95) -> pd.DataFrame:
    """Percentile intervals (low, high) of every column of bootstrap ``replicates``."""
    tail = (1 - level) / 2
    return replicates.quantile([tail, 1 - tail]).T.set_axis(["low", "high"], axis=1)


def spectral_entropy(X: np.ndarray) -> float:
    """Shannon entropy (bits) of the normalised eigenvalue spectrum of the centred data's covariance.

    X (N, D).  ``2 ** spectral_entropy`` is an effective number of dimensions; used by the chapter
    as one stated choice of the hypothesis' undefined "intrinsic manifold entropy" H.
    """
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2 or len(X) < 2:
        raise ValueError(f"X must be (N >= 2, D), got shape {X.shape}")
    if not np.all(np.isfinite(X)):
        raise ValueError("X contains NaN or inf")
    centred = X - X.mean(axis=0)
    s = np.clip(scipy.linalg.eigvalsh(centred.T @ centred, check_finite=False), 0.0, None)
    p = s[s > 0] / s.sum()
    return float(-(p * np.log2(p)).sum())
