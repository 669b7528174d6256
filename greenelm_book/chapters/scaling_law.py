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

from greenelm.solvers import LARGE_ORDER


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


# ------------------------------------------------------------------ per-seed Algorithm 2
def calibrate_per_seed(widths, curves: dict, anchor: str = "mnist") -> pd.DataFrame:
    """Algorithm 2 on each seed's curve: one row per seed with α, β and each ``C_<dataset>``.

    ``curves[dataset]`` is (n_seeds, n_widths) accuracy fractions; seed i of every dataset is
    calibrated together (the paper's Table III is one such single-run calibration). All datasets
    need the same number of seeds.
    """
    arrays = {name: np.atleast_2d(np.asarray(c, dtype=float)) for name, c in curves.items()}
    counts = {a.shape[0] for a in arrays.values()}
    if len(counts) != 1:
        raise ValueError(f"every dataset needs the same number of seeds, got "
                         f"{ {n: a.shape[0] for n, a in arrays.items()} }")
    rows = []
    for i in range(counts.pop()):
        fit = calibrate_complexity(widths, {n: a[i] for n, a in arrays.items()}, anchor)
        rows.append(fit.as_series().to_dict() | {f"slope_{n}": m for n, m in fit.slopes.items()})
    return pd.DataFrame(rows)


# ------------------------------------------------------------------ held-out test of ln d
def _saturating(d, a, b, c):
    return a - b * np.power(d, -c)


@dataclass(frozen=True)
class HeldOutTest:
    """ln d against a saturating law ``a − b·d^(−c)``, both fitted on ``fit_widths`` and judged by
    their absolute error at ``held_widths`` (points of accuracy)."""

    fit_widths: tuple
    held_widths: tuple
    measured: tuple           # accuracy (%) at held_widths
    log_prediction: tuple
    saturating_prediction: tuple
    log_params: tuple         # (slope, intercept) per unit ln d
    saturating_params: tuple  # (a, b, c); a is the asymptote

    @property
    def log_error(self) -> float:
        """Mean absolute held-out error of the ln d line (points)."""
        return float(np.mean(np.abs(np.subtract(self.log_prediction, self.measured))))

    @property
    def saturating_error(self) -> float:
        """Mean absolute held-out error of the saturating law (points)."""
        return float(np.mean(np.abs(np.subtract(self.saturating_prediction, self.measured))))


def held_out_test(fit_widths, fit_accuracy, held_widths, held_accuracy) -> HeldOutTest:
    """Fit ``A = m ln d + k`` and ``A = a − b·d^(−c)`` (least squares, 0.05 ≤ c ≤ 3, b ≥ 0; with
    only two fit points c = 1/2) on (fit_widths, fit_accuracy) and predict held_widths.
    Accuracies in %, 1-d arrays."""
    from scipy.optimize import curve_fit

    x, y = np.asarray(fit_widths, dtype=float), np.asarray(fit_accuracy, dtype=float)
    xh, yh = np.asarray(held_widths, dtype=float), np.asarray(held_accuracy, dtype=float)
    if x.shape != y.shape or xh.shape != yh.shape or len(x) < 2 or len(xh) < 1:
        raise ValueError(f"need >= 2 fit points and >= 1 held-out point of matching shapes, got "
                         f"{x.shape}/{y.shape} and {xh.shape}/{yh.shape}")
    if np.any(x <= 0) or np.any(xh <= 0):
        raise ValueError("widths must be positive")
    if xh.min() <= x.max():
        raise ValueError(f"held-out widths {xh} must all exceed the fitted ones {x}")
    slope, intercept = _ols(np.log(x), y)
    start = (y.max() + (y.max() - y.min()), (y.max() - y.min()) * x.min() ** 0.5 * 2, 0.5)
    params = None
    if len(x) >= 3:
        try:
            params, _ = curve_fit(_saturating, x, y, p0=start, maxfev=20000,
                                  bounds=([-np.inf, 0, 0.05], [np.inf, np.inf, 3.0]))
        except RuntimeError:      # no convergence: the two-point form below
            params = None
    if params is None:            # c = 1/2, a and b linear in (1, d^-1/2)
        b_neg, a = _ols(x ** -0.5, y)
        params = (a, -b_neg, 0.5)
    return HeldOutTest(tuple(int(w) for w in x), tuple(int(w) for w in xh), tuple(float(v) for v in yh),
                       tuple(float(v) for v in slope * np.log(xh) + intercept),
                       tuple(float(v) for v in _saturating(xh, *params)), (slope, intercept),
                       tuple(float(p) for p in params))


# ------------------------------------------------------------------ λ by exact leave-one-out
def _lapack_threads(order: int):
    """Single-threaded BLAS/LAPACK for factorisations of order ≥ ``LARGE_ORDER`` (as the library's
    solvers route them: multithreaded potrf fails there on some OpenBLAS builds)."""
    import contextlib

    from threadpoolctl import threadpool_limits

    return threadpool_limits(limits=1, user_api="blas") if order >= LARGE_ORDER else contextlib.nullcontext()


@dataclass
class RidgeAtWidth:
    """Ridge readouts of the leading d × d block of one seed's normal equations, for any λ.

    ``gram`` (d_max, d_max) float64 with its upper triangle valid, ``hty`` (d_max, k);
    ``H_loo`` (m, d_max) and ``Y_loo`` (m, k): m training rows (part of the equations) on which
    the exact leave-one-out residual ``e_j / (1 − h_j)`` is evaluated; ``H_test`` (n_test, d_max)
    and ``y_test`` (n_test,) for the test accuracy.
    """

    gram: np.ndarray
    hty: np.ndarray
    H_loo: np.ndarray
    Y_loo: np.ndarray
    H_test: np.ndarray
    y_test: np.ndarray

    def evaluate(self, d: int, alpha: float) -> dict:
        """At width ``d`` and λ = ``alpha`` > 0: test accuracy (%), exact LOO MSE and accuracy (%)
        on the m rows, training accuracy (%) on them, and whether Cholesky of G + λI succeeded (else LU)."""
        d, alpha = int(d), float(alpha)
        if not 0 < d <= self.gram.shape[0]:
            raise ValueError(f"width {d} outside 1..{self.gram.shape[0]}")
        if not (np.isfinite(alpha) and alpha > 0):
            raise ValueError(f"λ must be a finite number > 0, got {alpha!r}")
        A = np.array(self.gram[:d, :d], order="F")          # only its upper triangle is read
        A[np.diag_indices(d)] += alpha
        Hm = self.H_loo[:, :d]
        try:
            with _lapack_threads(d):    # multithreaded potrf fails at large orders on this build
                factor = scipy.linalg.cho_factor(A, lower=False, overwrite_a=True, check_finite=False)
            W = scipy.linalg.cho_solve(factor, self.hty[:d], check_finite=False)
            half = scipy.linalg.solve_triangular(factor[0], Hm.T, trans="T", lower=False, check_finite=False)
            leverage = np.einsum("ij,ij->j", half, half)
            del half
            cholesky = True
        except np.linalg.LinAlgError:
            # G + λI not numerically positive definite in float64: the same system by LU
            A = np.triu(self.gram[:d, :d])
            A += np.triu(A, 1).T
            A[np.diag_indices(d)] += alpha
            with _lapack_threads(d):
                lu = scipy.linalg.lu_factor(A, overwrite_a=True, check_finite=False)
            W = scipy.linalg.lu_solve(lu, self.hty[:d], check_finite=False)
            leverage = np.einsum("ij,ji->i", Hm, scipy.linalg.lu_solve(lu, Hm.T, check_finite=False))
            cholesky = False
        del A
        fitted = Hm @ W
        labels = self.Y_loo.argmax(axis=1)
        residual = (self.Y_loo - fitted) / (1.0 - leverage)[:, None]
        test_hits = (self.H_test[:, :d] @ W).argmax(axis=1) == self.y_test
        return {"n_hidden": d, "alpha": alpha, "test_accuracy": 100 * float(test_hits.mean()),
                "loo_mse": float(np.mean(np.sum(residual**2, axis=1))),
                "loo_accuracy": 100 * float(np.mean((self.Y_loo - residual).argmax(axis=1) == labels)),
                "train_accuracy": 100 * float(np.mean(fitted.argmax(axis=1) == labels)),
                "cholesky": cholesky, "_hits": test_hits}


def search_lambda(evaluate, initial, factor: float = 10.0, max_extend: int = 8) -> tuple[list, bool]:
    """Evaluate λ over ``initial`` and extend the grid by ``factor`` past whichever end holds the
    smallest LOO MSE, until the minimiser is interior (or ``max_extend`` extensions).

    ``evaluate(λ)`` returns a dict with ``"loo_mse"``. Returns (rows sorted by λ, interior?).
    """
    if factor <= 1 or not np.isfinite(factor):
        raise ValueError(f"factor must be a finite number > 1, got {factor!r}")
    grid = sorted({float(a) for a in initial})
    if len(grid) < 2 or grid[0] <= 0:
        raise ValueError(f"the initial grid needs >= 2 distinct λ > 0, got {initial!r}")
    rows = {a: evaluate(a) for a in grid}
    for _ in range(int(max_extend)):
        lams = sorted(rows)
        best = min(lams, key=lambda a: rows[a]["loo_mse"])
        if best == lams[-1]:
            new = best * factor
        elif best == lams[0]:
            new = best / factor
        else:
            break
        rows[new] = evaluate(new)
    lams = sorted(rows)
    best = min(lams, key=lambda a: rows[a]["loo_mse"])
    return [rows[a] for a in lams], lams[0] < best < lams[-1]


def wide_ridge_paths(dataset: str, subset: int | None, d_max: int, seed: int, widths, alpha: float,
                     lambdas=None, loo_rows: int = 4000, local_above: int | None = None,
                     factor: float = 10.0, condition_widths=()) -> dict:
    """One seed's width-``d_max`` Green-ELM (W, b ~ N(0, 1)), its normal equations accumulated once,
    and at every width of ``widths`` (leading blocks): the test accuracy at the paper's λ =
    ``alpha`` (with the per-sample hits), and, when ``lambdas`` is given, λ searched by exact LOO
    (:func:`search_lambda`; from ``lambdas`` up to width ``local_above``, above it from the
    previous width's choice × {1/factor, 1, factor}). ``condition_widths``: widths at which the
    spectrum of G gives κ(G) and κ(G + αI).

    Returns ``{"paths": DataFrame (n_hidden, alpha, test_accuracy, loo_mse, loo_accuracy,
    train_accuracy, cholesky, searched), "hits": (n_widths, n_test) bool at ``alpha``,
    "interior": (n_widths,) bool, "conditions": DataFrame, "gram_seconds", "loo_rows"}``.
    """
    import time

    from .experiments import load_split

    split = load_split(dataset, subset=subset)
    widths = sorted(int(w) for w in widths)
    if widths[-1] > d_max:
        raise ValueError(f"width {widths[-1]} exceeds d_max {d_max}")
    start = time.perf_counter()
    from .experiments import accumulate_wide

    wide = accumulate_wide(split, d_max, seed=seed, progress=False)
    gram_seconds = time.perf_counter() - start
    n = len(split.y_train)
    rows_idx = np.sort(np.random.default_rng(seed).choice(n, size=min(int(loo_rows), n), replace=False))
    n_classes = wide.equations.n_outputs
    ridge = RidgeAtWidth(wide.equations.gram, wide.equations.hty, wide.features.transform(split.X_train[rows_idx]),
                         np.eye(n_classes)[split.y_train[rows_idx]], wide.H_test, split.y_test)
    records, hits, interior, conditions = [], [], [], []
    previous = None
    for d in widths:
        paper = ridge.evaluate(d, alpha)
        hits.append(paper.pop("_hits"))
        records.append(paper | {"searched": False})
        if lambdas is not None:
            if local_above is not None and d > local_above and previous is not None:
                initial = [previous / factor, previous, previous * factor]
            else:
                initial = list(lambdas)
            cache = {alpha: paper}

            def evaluate(a, d=d, cache=cache):
                if a not in cache:
                    row = ridge.evaluate(d, a)
                    row.pop("_hits")
                    cache[a] = row
                return cache[a]
            path, inside = search_lambda(evaluate, initial, factor)
            records.extend(r | {"searched": True} for r in path)
            previous = min(path, key=lambda r: r["loo_mse"])["alpha"]
            interior.append(inside)
        if d in condition_widths:
            s = scipy.linalg.eigvalsh(wide.equations.gram[:d, :d], lower=False, check_finite=False)
            conditions.append({"n_hidden": d, "s_max": float(s[-1]), "s_min": float(s[0]),
                               "kappa_ridge": (float(s[-1]) + alpha) / (float(s[0]) + alpha)})
    paths = pd.DataFrame(records)
    return {"paths": paths, "hits": np.array(hits), "interior": np.array(interior, dtype=bool),
            "conditions": pd.DataFrame(conditions), "gram_seconds": gram_seconds, "loo_rows": int(len(rows_idx))}
