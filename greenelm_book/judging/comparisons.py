"""Comparisons of two measured quantities: a paper's difference or ratio of two single runs, and
"comparable performance" as an equivalence test; what an SGD run reached within a time budget.

:func:`prediction_check` is the prediction-interval step of the book's verdict rule
(:data:`greenelm_book.report.RULE`) for a difference ``a − b`` or a ratio ``a / b`` of two
independently measured quantities; :func:`greenelm_book.judging.verdicts.judge_between` gives the
verdict (the ladder of :data:`greenelm_book.judging.verdicts.LADDER`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..report import MIN_RUNS, _decimals

__all__ = ["accuracy_within", "between_interval", "prediction_check", "equivalence", "elm_fit_times"]


def accuracy_within(curves: pd.DataFrame, seconds: float) -> pd.DataFrame:
    """What each seed's run had reached within a training-time budget of ``seconds``.

    ``curves``: rows (seed, epochs, train_seconds cumulative, accuracy) as :func:`sgd_seeds`
    gives. Returns one row per seed: seed, epochs (the last whole epoch finished within the
    budget, 0 if none) and accuracy after it (NaN if none).
    """
    if not (np.isfinite(seconds) and seconds > 0):
        raise ValueError(f"seconds must be a positive number, got {seconds!r}")
    missing = {"seed", "epochs", "train_seconds", "accuracy"} - set(curves.columns)
    if missing:
        raise ValueError(f"curves lacks the columns {sorted(missing)}")
    rows = []
    for seed, runs in curves.groupby("seed", sort=True):
        done = runs[runs.train_seconds <= seconds].sort_values("epochs")
        rows.append({"seed": seed, "epochs": float(done.epochs.iloc[-1]) if len(done) else 0.0,
                     "accuracy": float(done.accuracy.iloc[-1]) if len(done) else float("nan")})
    return pd.DataFrame(rows, columns=["seed", "epochs", "accuracy"])


def between_interval(a, b, op: str = "difference", kind: str = "prediction", level: float = 0.95):
    """``(estimate, low, high)`` of ``a − b`` (``op="difference"``) or ``a / b`` (``"ratio"``, on the log scale).

    ``a`` and ``b`` are independent runs (n_a, n_b ≥ 2). ``kind="prediction"``: the interval for one
    new run of each, Welch's t on var(a)(1 + 1/n_a) + var(b)(1 + 1/n_b) — the verdict rule's single-run
    prediction interval for a paper's difference or ratio of two single runs; ``kind="mean"``: the
    confidence interval of the difference (ratio) of the means, var(a)/n_a + var(b)/n_b.
    """
    from scipy.stats import t

    if op not in ("difference", "ratio"):
        raise ValueError(f"op must be 'difference' or 'ratio', got {op!r}")
    if kind not in ("prediction", "mean"):
        raise ValueError(f"kind must be 'prediction' or 'mean', got {kind!r}")
    a, b = (np.asarray(v, dtype=float).ravel() for v in (a, b))
    if len(a) < 2 or len(b) < 2:
        raise ValueError(f"each side needs at least 2 runs, got {len(a)} and {len(b)}")
    if not (np.isfinite(a).all() and np.isfinite(b).all()):
        raise ValueError("values must be finite numbers")
    if op == "ratio":
        if (a <= 0).any() or (b <= 0).any():
            raise ValueError("a ratio needs positive values on both sides")
        a, b = np.log(a), np.log(b)
    terms = [v.var(ddof=1) * ((1 + 1 / len(v)) if kind == "prediction" else 1 / len(v)) for v in (a, b)]
    total = sum(terms)
    centre = float(a.mean() - b.mean())
    if total == 0:
        low = high = centre
    else:
        dof = total ** 2 / sum(term ** 2 / (len(v) - 1) for term, v in zip(terms, (a, b)))
        half = float(t.ppf(0.5 + level / 2, dof)) * float(np.sqrt(total))
        low, high = centre - half, centre + half
    if op == "ratio":
        return float(np.exp(centre)), float(np.exp(low)), float(np.exp(high))
    return centre, low, high


def prediction_check(paper: float, a, b, op: str = "difference", unit: str = "points", digits: int = 2,
                     min_runs=(MIN_RUNS, MIN_RUNS)) -> tuple:
    """The prediction-interval step of the verdict rule for a paper's difference (or ratio) of two
    single runs: ``(inside, ours, detail)`` with ``inside`` True when the paper's value lies inside the
    95 % prediction interval of :func:`between_interval` (widened by half the last printed digit of
    ``paper``), False when not, None with fewer than ``min_runs`` = (runs of a, runs of b). Ours is
    mean(a) − mean(b) (or the ratio of the geometric means) over independent runs."""
    a, b = (np.asarray(v, dtype=float).ravel() for v in (a, b))
    if min(len(a), len(b)) >= 2:
        estimate = between_interval(a, b, op)[0]           # a ratio: of the geometric means
    else:
        estimate = (a.mean() - b.mean()) if op == "difference" else a.mean() / b.mean()
    suffix = {"points": " pts", "%": " %", "": ""}.get(unit, f" {unit}") if unit != "×" else "×"
    ours = f"{estimate:+.{digits}f}{suffix}" if op == "difference" else f"{estimate:.{digits}f}{suffix}"
    ours += f" (n = {len(a)} and {len(b)})"
    signed = f"{estimate - paper:+.{digits}f}{suffix}"
    if len(a) < min_runs[0] or len(b) < min_runs[1]:
        return None, ours, (f"{signed}; {len(a)} and {len(b)} run(s), the rule needs "
                            f"{min_runs[0]} and {min_runs[1]}")
    _, low, high = between_interval(a, b, op, "prediction")
    tolerance = 0.5 * 10 ** -_decimals(paper)
    interval = f"95 % PI {low:.{digits}f}–{high:.{digits}f}"
    inside = bool(low - tolerance <= paper <= high + tolerance)
    return inside, ours, (interval if inside else f"{signed}; {interval}")


def equivalence(a, b, margin: float, min_runs: int = MIN_RUNS):
    """Is the mean of ``a`` within ``margin`` of the mean of ``b``? ``(outcome, low, high)``.

    ``low``–``high`` is the 95 % confidence interval (Welch) of mean(a) − mean(b). The outcome is
    True when it lies inside [−margin, margin] (equivalent), False when it lies wholly outside
    (a difference larger than the margin), None when it straddles a bound or either side has
    fewer than ``min_runs`` runs (undecided).
    """
    if not (np.isfinite(margin) and margin > 0):
        raise ValueError(f"margin must be a positive number, got {margin!r}")
    _, low, high = between_interval(a, b, "difference", "mean")
    if min(np.size(a), np.size(b)) < min_runs:
        return None, low, high
    if -margin <= low and high <= margin:
        return True, low, high
    if high < -margin or low > margin:
        return False, low, high
    return None, low, high


def elm_fit_times(dataset: str, n_hidden: int, solver: str = "pinv", weight_scale: str = "unit",
                  subset: int | None = None, repeats: int = 3, seed: int = 0) -> dict:
    """Wall times of ``ELMClassifier.fit`` on ``dataset``'s training rows already in memory, after one
    untimed fit: ``{"seconds": [repeats floats], "n_train": int}``.

    Run it in a fresh process (``greenelm_book.bench.run_isolated("greenelm_book.judging.comparisons:elm_fit_times",
    {...})``): in a process that has trained torch models, torch's threads and BLAS's contend and a fit
    on a busy machine was measured 5–15× slower.
    """
    from greenelm.data import load_dataset
    from greenelm.estimator import ELMClassifier

    from ..bench import time_call

    ds = load_dataset(dataset, subset=subset)
    X, y = ds.flat("train"), ds.y_train
    times = time_call(lambda: ELMClassifier(n_hidden=n_hidden, solver=solver, weight_scale=weight_scale,
                                            random_state=seed).fit(X, y), repeats=repeats, warmup=1)
    return {"seconds": times, "n_train": int(len(y))}
