"""The book's one verdict rule, its table and figure style, and the words that follow a number's sign.

**The verdict rule** (:data:`RULE`, stated once in the intro and applied by every chapter through
the functions of :mod:`greenelm_book.judging.verdicts`): the paper reports single runs, so a paper value is **reproduced** when
it lies inside our 95 % *prediction interval for a single run*, mean ± t(0.975, n−1) · sd · √(1 + 1/n)
over n ≥ 5 seeds (widened by half the last printed digit of the paper's value), and TOST puts our
mean within the practical margin (inside the interval without that: **inconclusive**); otherwise the verdict
is **differs**, with the signed difference (ours − paper's) and the interval, split by a practical
margin chosen in advance per unit (accuracy ±0.5 points): *within* (an equivalence test, TOST, puts
our mean inside it), *beyond* (a one-sided test puts it outside) or *undecided*. Fewer than five runs
are **inconclusive**. A setting that differs (backbone, features, data) is **not comparable**, with
the reason and the difference shown as information only; the paper's timings come from another
machine and are never judged (a paper's ratio only on direction and order of magnitude). A
qualitative claim **holds**, **partly holds** or **does not hold** by a stated test; **not
measurable here** says why (no GPU, no energy counters). The tests themselves, one named function
per kind, live in :mod:`greenelm_book.judging.verdicts`; comparability per result key in
:mod:`greenelm_book.judging.comparability`.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass

import numpy as np
import pandas as pd

MIN_RUNS = 5
RULE = ("a paper value is reproduced when it lies inside our 95 % prediction interval for a single "
        "run (the paper reports single runs), computed over at least 5 seeds, and an equivalence test "
        "(TOST) puts our mean within a practical margin chosen in advance (accuracy: ±0.5 points); "
        "otherwise we give the signed difference (ours − paper's) with that interval, and whether it "
        "lies within or beyond the margin (the ladder of labels). Different settings are not comparable "
        "(the difference is shown for information), timings across machines are never judged (their "
        "ratios, timed in one quiet run, only on direction and order of magnitude: ×/÷ 3), and "
        "qualitative claims are judged by a stated test")
VERDICT_LABELS = ("reproduced", "differs, within margin", "differs, margin undecided",
                  "differs, beyond margin", "concordant", "discordant",
                  "inconclusive", "not comparable", "holds", "partly holds", "does not hold", "not measurable here")
#: the labels of a value judged against the paper's that is not reproduced, by the practical margin
#: (:data:`greenelm_book.judging.verdicts.PRACTICAL_MARGINS`); a ratio across machines has its own
#: words (direction and order of magnitude), not these
DIFFERS_LABELS = ("differs, within margin", "differs, margin undecided", "differs, beyond margin")


@dataclass(frozen=True)
class Verdict:
    """A verdict on one claim: ``label`` (one of :data:`VERDICT_LABELS`), ``ours`` (our value as text)
    and ``detail`` (the signed difference and interval, or the reason, or the test)."""

    label: str
    ours: str = ""
    detail: str = ""

    def __post_init__(self):
        if self.label not in VERDICT_LABELS:
            raise ValueError(f"verdict label {self.label!r}: expected one of {VERDICT_LABELS}")

    def __str__(self) -> str:
        return self.label + (f" ({self.detail})" if self.detail else "")


def prediction_interval(values, level: float = 0.95) -> tuple[float, float]:
    """The ``level`` prediction interval for one more run: mean ± t · sd · √(1 + 1/n), n ≥ 2 runs."""
    from scipy.stats import t

    values = [float(v) for v in values]
    n = len(values)
    if n < 2:
        raise ValueError(f"a prediction interval needs at least 2 runs, got {n}")
    mean, sd = statistics.fmean(values), statistics.stdev(values)
    half = float(t.ppf(0.5 + level / 2, n - 1)) * sd * math.sqrt(1 + 1 / n)
    return mean - half, mean + half


def _decimals(value: float) -> int:
    """Digits after the point of ``value`` as the paper prints it (97.15 -> 2, 1726.15 -> 2, 70 -> 0)."""
    text = f"{value:.6f}".rstrip("0").rstrip(".")
    return len(text.split(".")[1]) if "." in text else 0


def _unit_text(unit: str) -> str:
    return {"%": " %", "points": " pts", "": ""}.get(unit, f" {unit}")


def _signed(diff: float, unit: str, digits: int) -> str:
    """A difference with its sign and unit (accuracy differences in points): ``"-1.20 pts"``."""
    return f"{diff:+.{digits}f}{_unit_text(unit if unit != '%' else 'points')}"


def ours_text(values, unit: str = "%", digits: int = 2) -> str:
    """Our value as shown in every table: ``"97.02 ± 0.11 % (n = 5)"`` (mean ± sd over runs)."""
    values = np.ravel(values)
    return f"{spread_text(values, digits)}{_unit_text(unit)} (n = {len(values)})"


def not_comparable(reason: str, paper: float | None = None, values=None, unit: str = "%",
                   digits: int = 2) -> Verdict:
    """A different setting: the reason, and (when both exist) the difference for information."""
    if values is None:
        return Verdict("not comparable", "", reason)
    ours = ours_text(values, unit, digits)
    if paper is None:
        return Verdict("not comparable", ours, reason)
    if unit == "×":                 # a ratio against a ratio: their quotient, never a difference printed with ×
        return Verdict("not comparable", ours,
                       f"{reason}; ours / paper's = {float(np.mean(values)) / paper:.2g}, for information only")
    diff = float(np.mean(values)) - paper
    return Verdict("not comparable", ours,
                   f"{reason}; {_signed(diff, unit, digits)} for information only")


def judge_time(paper_seconds: float, values, digits: int = 2, median: bool = False) -> Verdict:
    """A paper timing: never judged across machines; ours and the ratio are shown as information.
    ``median=True`` for a latency: ours as its median and IQR (:func:`median_text`), the ratio of
    the median; otherwise mean ± sd and the ratio of the mean."""
    ours = median_text(values, "s", digits) if median else ours_text(values, "s", digits)
    ratio = float(np.median(values) if median else np.mean(values)) / paper_seconds
    return Verdict("not comparable", ours,
                   f"timed on another machine; ours / paper's = {ratio:.2g}, information only")


def judge_qualitative(outcome: bool | str, test: str, ours: str = "") -> Verdict:
    """A qualitative claim: ``outcome`` True (holds), False (does not hold), "partly" or "inconclusive"
    (the test's parts leave it undecided); ``test`` says how it was decided."""
    if outcome == "partly":
        return Verdict("partly holds", ours, test)
    if outcome == "inconclusive":
        return Verdict("inconclusive", ours, test)
    if not isinstance(outcome, (bool, np.bool_)):
        raise ValueError(f"outcome must be True, False, 'partly' or 'inconclusive', got {outcome!r}")
    return Verdict("holds" if outcome else "does not hold", ours, test)


def not_measurable(reason: str) -> Verdict:
    """A claim this machine cannot measure, and why."""
    return Verdict("not measurable here", "", reason)


def by_sign(value: float, positive: str, negative: str, zero: str = "the same as",
            tolerance: float = 0.0) -> str:
    """The word(s) a sentence needs for the sign of ``value``: ``by_sign(a - b, "above", "below")``."""
    if abs(value) <= tolerance:
        return zero
    return positive if value > 0 else negative


def errors_removed(accuracy: float, base: float) -> float | None:
    """The share of ``base``'s test errors that ``accuracy`` removes (accuracies in %; negative where
    it adds errors): 0.2 for 99.20 % against 99.00 %; None when ``base`` made no errors."""
    return None if base >= 100 else (accuracy - base) / (100 - base)


def and_list(items) -> str:
    """Words joined as a sentence lists them: ``["a"]`` → "a", ``["a", "b"]`` → "a and b",
    ``["a", "b", "c"]`` → "a, b and c"."""
    items = list(items)
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


def capitalised(text: str) -> str:
    """``text`` with its first letter upper-cased, the rest as it is (a generated clause that opens a
    sentence): "the paper's map" → "The paper's map"; "" stays ""."""
    return text[:1].upper() + text[1:]


def duration_text(seconds: float) -> str:
    """``seconds`` as ``12 s``, ``3.4 min`` or ``2.1 h``."""
    if seconds < 60:
        return f"{seconds:.0f} s"
    if seconds < 3600:
        return f"{seconds / 60:.1f} min"
    return f"{seconds / 3600:.1f} h"


def show_table(frame: pd.DataFrame, digits: int = 2, integers=(), caption: str | None = None):
    """A table for reading: no index, integers as integers, NaN shown as "—", ``digits`` decimals.

    ``integers``: columns printed without decimals (besides the integer-typed ones).
    """
    frame = frame.reset_index(drop=True)
    formats = {}
    for column in frame.columns:
        if column in integers or pd.api.types.is_integer_dtype(frame[column]):
            formats[column] = lambda v: "—" if pd.isna(v) else thousands(int(v))
        elif pd.api.types.is_float_dtype(frame[column]):
            formats[column] = (lambda v, d=digits: "—" if pd.isna(v) else f"{v:.{d}f}")
    styler = frame.style.hide(axis="index").format(formats, na_rep="—")
    styler = styler.set_table_attributes('class="greenelm-table"')
    if caption:
        styler = styler.set_caption(caption)
    return styler


#: One colour per series across the book (seaborn's colorblind palette), so a series looks the same
#: in every figure. Chapters ask :func:`colour` by name; an unknown name is an error, not a new colour.
# ordered so that series shown together get well-separated colours (blue, orange, green, vermillion,
# purple, brown, pink, grey, yellow, sky blue, then the dark palette); append new names at the end
SERIES = ("Green-ELM", "SGD MLP", "Green-ELM (ridge)", "SGD CNN", "SGD perceptron", "ridge on pixels",
          "kernel limit", "random conv", "backbone", "Green-ELM (pinv)", "exact RLS", "SGD, no replay",
          "SGD with replay", "features relu(XW + b)", "Gram HᵀH", "Cholesky solve", "paper listing 1",
          "Green-ELM (W he)", "Green-ELM (ridge, He)", "RLS, listing 3", "RLS, information form",
          "Dask workers", "one process", "patch readout", "published anchor", "stacked map")
DATASET_SERIES = ("mnist", "fashion-mnist", "cifar10", "cifar10 (backbone)")


def colour(series: str):
    """The book's colour (an RGB tuple) for ``series`` (one of :data:`SERIES` or :data:`DATASET_SERIES`):
    seaborn's colorblind palette, then its dark and muted ones, in the order of :data:`SERIES`."""
    import seaborn as sns

    if series in SERIES:
        palette = (sns.color_palette("colorblind", 10) + sns.color_palette("dark", 10)
                   + sns.color_palette("muted", 10))
        return palette[SERIES.index(series) % len(palette)]
    if series in DATASET_SERIES:
        return sns.color_palette("Set1", len(DATASET_SERIES))[DATASET_SERIES.index(series)]
    raise KeyError(f"no colour for series {series!r}: add it to report.SERIES or report.DATASET_SERIES")


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


def spread_text(result, digits: int = 2) -> str:
    """``"97.15 ± 0.08"``: mean ± sd over runs, no unit (the mean alone for one run). ``result``: a
    :class:`~greenelm_book.store.results.Result` or the runs' values (n,)."""
    values = [float(v) for v in np.ravel(getattr(result, "values", result))]
    spread = f" ± {statistics.stdev(values):.{digits}f}" if len(values) > 1 else ""
    return f"{statistics.fmean(values):.{digits}f}{spread}"


def thousands(value, separator: str = "\u202f") -> str:
    """A whole number with its thousands grouped by ``separator``, by default a narrow no-break
    space (U+202F), so ``"1 024"`` never wraps at the group, in prose or on an axis:
    ``thousands(32000) == "32\u202f000"``. Other numbers as ``:g`` prints them (``0.5``)."""
    number = float(value)
    if number.is_integer():
        return f"{int(number):,}".replace(",", separator)
    return f"{number:g}"


def spaced_values(values, ratio: float = 1.6) -> list:
    """The values of ``values`` (positive) kept for tick labels on a log axis: the smallest, then
    each at least ``ratio`` × the last kept one (so labels of close values do not overlap)."""
    kept = []
    for value in sorted(set(values)):
        if not kept or value >= ratio * kept[-1]:
            kept.append(value)
    return kept


def log_ticks(ax, values=None, ratio: float = 1.6, axis: str = "x") -> None:
    """A log-scaled ``axis`` ("x" or "y") of ``ax`` labelled without overlap: at the
    :func:`spaced_values` of ``values`` when given (each printed with :func:`thousands`, whose
    separator does not break), else at the powers of ten; minor ticks are kept but never labelled."""
    import matplotlib.ticker as ticker

    if axis not in ("x", "y"):
        raise ValueError(f"axis must be 'x' or 'y', got {axis!r}")
    scale = ax.xaxis if axis == "x" else ax.yaxis
    if values is not None:
        values = spaced_values(values, ratio)
        scale.set_major_locator(ticker.FixedLocator(values))
        scale.set_major_formatter(ticker.FixedFormatter([thousands(v) for v in values]))
    else:
        scale.set_major_locator(ticker.LogLocator(base=10))
        scale.set_major_formatter(ticker.FuncFormatter(lambda v, _: thousands(v) if v >= 1 else f"{v:g}"))
    scale.set_minor_formatter(ticker.NullFormatter())


def median_text(values, unit: str = "s", digits: int = 3) -> str:
    """A latency as every page shows it: ``"median 0.639 s (IQR 0.473–0.702, n = 40)"``, the median
    and interquartile range over runs (batches); one run alone as ``"9.630 s (n = 1)"``. ``digits``
    decimals, more where the median needs them for two significant figures (``"median 0.0021 s"``)."""
    values = np.ravel(np.asarray(values, dtype=float))
    middle = abs(float(np.median(values)))
    if 0 < middle < 1:
        digits = max(digits, 1 - int(np.floor(np.log10(middle))))
    if len(values) == 1:
        return f"{values[0]:.{digits}f}{_unit_text(unit)} (n = 1)"
    q1, median, q3 = np.percentile(values, [25, 50, 75])
    return (f"median {median:.{digits}f}{_unit_text(unit)} (IQR {q1:.{digits}f}–{q3:.{digits}f}, "
            f"n = {len(values)})")


def judge_latency(paper_seconds: float, values, digits: int = 3) -> Verdict:
    """:func:`judge_time` for a latency (seconds per batch, update or request): ours is the median
    with its IQR, the ratio is of the median."""
    return judge_time(paper_seconds, values, digits, median=True)
