"""Paper-vs-reproduced tables, the one verdict rule, and the book's plot style.

The verdict rule (used by every chapter): a paper figure is **reproduced** when it lies within
our mean ± 2 sd over seeds; otherwise the verdict is the signed difference, ours minus the paper's.
With a single run (no sd) only an exact match to the printed precision counts as reproduced.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

VERDICT_RULE = ("reproduced when the paper's value lies within our mean ± 2 sd over seeds; "
                "otherwise the signed difference (ours − paper's)")


def verdict(paper: float, mean: float, sd: float = float("nan"), unit: str = "pts") -> str:
    """The verdict for one paper figure against our mean ± sd (see :data:`VERDICT_RULE`)."""
    band = 2 * sd if np.isfinite(sd) else 0.0
    if abs(mean - paper) <= band + 1e-9:
        return "reproduced"
    return f"{mean - paper:+.2f} {unit}"


def summarize(results: pd.DataFrame, by: list[str], value: str = "accuracy") -> pd.DataFrame:
    """Mean, sd and count of ``value`` over seeds for each group of ``by`` columns."""
    grouped = results.groupby(by, sort=False)[value]
    return grouped.agg(mean="mean", sd="std", n="count").reset_index()


def compare(paper: pd.DataFrame, ours: pd.DataFrame, on: list[str], value: str = "accuracy",
            unit: str = "pts") -> pd.DataFrame:
    """Join the paper's ``value`` with our mean ± sd on ``on`` and add the verdict per row."""
    table = paper.merge(ours, on=on, how="left")
    table["verdict"] = [verdict(p, m, s, unit) if np.isfinite(m) else "not measured"
                        for p, m, s in zip(table[value], table["mean"], table["sd"])]
    return table


def mean_sd(mean: float, sd: float, digits: int = 2) -> str:
    """``"97.15 ± 0.08"`` (just the mean when sd is undefined)."""
    return f"{mean:.{digits}f}" if not np.isfinite(sd) else f"{mean:.{digits}f} ± {sd:.{digits}f}"


def set_style() -> None:
    """The book's figure style (seaborn whitegrid, readable sizes, PNG output)."""
    import matplotlib as mpl
    import seaborn as sns

    sns.set_theme(style="whitegrid", context="notebook", palette="colorblind")
    mpl.rcParams.update({"figure.figsize": (7.5, 4.5), "figure.dpi": 110, "savefig.bbox": "tight"})


def glue(name: str, value, display: bool = False):
    """``myst_nb.glue`` for numbers quoted in prose; NumPy scalars become Python numbers first.

    myst-nb formats ``{glue:text}`name:.2f``` from the value's ``text/plain``, which for a
    NumPy scalar is ``np.float64(...)`` and fails to format (a build warning, an error under -W).
    """
    from myst_nb import glue as myst_glue

    return myst_glue(name, value.item() if isinstance(value, np.generic) else value, display=display)
