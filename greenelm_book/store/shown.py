"""Numbers a page shows, tied to the store entry they come from, and the check that they still agree.

A chapter shows a stored result through :func:`glue_result` (a number quoted in prose) or
:func:`keyed_table` (a table whose cells say which result they show). Both write what they showed,
``{"chapter", "key", "form", "digits", "text"}``, into the output's metadata under
``greenelm.shown``. :func:`page_disagreements` reads an executed page back, formats each shown
result again from the results dir the page was executed against, and lists every number whose
printed text is not the store's: the test behind "one configuration, one number, on every page".

``form`` says which statistic of the runs is printed, with the book's one formatter for each:
``"mean"`` (``97.15``), ``"spread"`` (mean ± sd, :func:`report.spread_text`) and ``"median"``
(median and IQR, :func:`report.median_text`, for latencies).
"""

from __future__ import annotations

import ast
import html
import json
import re
import statistics
from pathlib import Path

import pandas as pd

from ..report import median_text, show_table, spread_text
from .results import load_all

__all__ = ["FORMS", "result_text", "glue_result", "keyed_table", "shown_entries", "page_disagreements",
           "RUN_FIELDS", "configuration", "duplicate_configurations"]

#: the statistics a page may print for a result's runs
FORMS = ("mean", "spread", "median")


def result_text(values, form: str = "mean", digits: int = 2, unit: str = "") -> str:
    """The text a page prints for runs ``values`` (n,): their mean, mean ± sd or median with IQR,
    ``digits`` decimals (``unit``, the result's, is printed by the median form only)."""
    if form not in FORMS:
        raise ValueError(f"form must be one of {FORMS}, got {form!r}")
    values = [float(v) for v in values]
    if not values:
        raise ValueError("a result with no runs has no text to show")
    if form == "mean":
        return f"{statistics.fmean(values):.{digits}f}"
    if form == "spread":
        return spread_text(values, digits)
    return median_text(values, unit, digits)


def _entry(store, key: str, chapter: str | None, form: str, digits: int) -> dict:
    chapter = chapter or store.chapter
    result = store.get(chapter, key)
    text = result_text(result.values, form, digits, result.unit)
    return {"chapter": chapter, "key": key, "form": form, "digits": int(digits), "text": text}


def glue_result(store, name: str, key: str, chapter: str | None = None, form: str = "mean",
                digits: int = 2) -> str:
    """Glue result ``key`` of ``chapter`` (default the store's own chapter) under ``name`` as the text
    :func:`result_text` gives, for ``{glue:text}`name```; returns that text. ``store``: the page's
    :class:`~greenelm_book.store.results.ChapterResults` (a result of another chapter is read through it,
    so the page records the read)."""
    from IPython.core.formatters import format_display_data
    from IPython.display import display
    from myst_nb.ext.glue import GLUE_PREFIX

    entry = _entry(store, key, chapter, form, digits)
    bundle, metadata = format_display_data(entry["text"])
    metadata["scrapbook"] = {"name": name, "mime_prefix": GLUE_PREFIX}
    metadata["greenelm"] = {"shown": [entry]}
    display({GLUE_PREFIX + kind: value for kind, value in bundle.items()}, raw=True, metadata=metadata)
    return entry["text"]


class _KeyedTable:
    """A table for display whose output metadata lists the results its cells show."""

    def __init__(self, styler, shown: list[dict]):
        self.styler, self.shown = styler, shown

    def _repr_mimebundle_(self, include=None, exclude=None):
        return {"text/html": self.styler.to_html()}, {"greenelm": {"shown": self.shown}}


def keyed_table(store, frame: pd.DataFrame, cells: dict, digits: int = 2, integers=(),
                caption: str | None = None):
    """:func:`report.show_table` of ``frame`` (rows × columns) where each cell named in ``cells``,
    ``{(row position, column name): key or (chapter, key, form)}``, prints that stored result (the
    cell's value is replaced by the result's text); other cells are shown as they are."""
    frame = frame.reset_index(drop=True).copy()
    shown = []
    for (row, column), source in cells.items():
        chapter, key, form = (None, source, "mean") if isinstance(source, str) else source
        if column not in frame.columns or not 0 <= row < len(frame):
            raise KeyError(f"no cell ({row}, {column!r}) in a table of {len(frame)} rows and columns "
                           f"{list(frame.columns)}")
        entry = _entry(store, key, chapter, form, digits)
        frame[column] = frame[column].astype(object)
        frame.at[row, column] = entry["text"]
        shown.append({**entry, "row": int(row), "column": int(frame.columns.get_loc(column))})
    return _KeyedTable(show_table(frame, digits=digits, integers=integers, caption=caption), shown)


_TEXT = "application/papermill.record/text/plain"


def _cell_text(table_html: str, row: int, column: int) -> str | None:
    """The text of data cell (row, column) of a pandas Styler's HTML, or None."""
    match = re.search(rf'<td id="T_[^"]*_row{row}_col{column}"[^>]*>(.*?)</td>', table_html, re.S)
    return html.unescape(match.group(1)).strip() if match else None


def glued_value(output: dict):
    """The value a glue output of an executed notebook carries: papermill's record read back as a
    Python literal (its text when it is not one); ``None`` for an output that is not a glue."""
    plain = output.get("data", {}).get(_TEXT)
    if plain is None:
        return None
    plain = "".join(plain)
    try:
        return ast.literal_eval(plain)
    except (ValueError, SyntaxError):
        return plain


def shown_entries(notebook: str | Path) -> list[dict]:
    """Every stored result an executed page shows: its metadata entry plus ``printed``, the text
    the page actually carries (the glued value, or the table cell's text)."""
    nb = json.loads(Path(notebook).read_text(encoding="utf-8"))
    found = []
    for cell in nb["cells"]:
        for output in cell.get("outputs", []):
            entries = output.get("metadata", {}).get("greenelm", {}).get("shown", [])
            data = output.get("data", {})
            for entry in entries:
                if "row" in entry:
                    printed = _cell_text("".join(data.get("text/html", "")), entry["row"], entry["column"])
                else:
                    printed = glued_value(output)
                found.append({**entry, "printed": printed})
    return found


def page_disagreements(notebook: str | Path, results: str | Path) -> list[str]:
    """One line per result that page ``notebook`` shows with a text other than the store's in
    ``results`` (a results dir) gives now, or that the store no longer has. Empty: the page agrees."""
    stored = load_all(results)
    problems = []
    for entry in shown_entries(notebook):
        where = f"{Path(notebook).name}: {entry['chapter']}:{entry['key']}"
        result = stored.get(entry["chapter"], {}).get("results", {}).get(entry["key"])
        if result is None:
            problems.append(f"{where} is shown but no longer recorded")
            continue
        now = result_text(result.values, entry["form"], entry["digits"], result.unit)
        if entry["printed"] != now:
            problems.append(f"{where} printed as {entry['printed']!r}, the store gives {now!r}")
    return problems


#: setting fields that say how or when a configuration was run, not what it is: two results that
#: differ only in these (or in their seeds) are one configuration measured twice
RUN_FIELDS = frozenset({"seeds", "timing", "timed", "run", "date", "machine", "command", "source", "design",
                        "evaluated_on", "quantity", "note"})


def configuration(key: str, result) -> tuple:
    """What a stored result measures, whatever chapter or key holds it: (quantity, the last part of
    the key; unit; the setting without :data:`RUN_FIELDS`, as sorted JSON)."""
    setting = {k: v for k, v in sorted(result.setting.items()) if k not in RUN_FIELDS}
    return key.rsplit("/", 1)[-1], result.unit, json.dumps(setting, sort_keys=True, default=str)


def duplicate_configurations(results: str | Path) -> list[list[tuple[str, str, float]]]:
    """Configurations that two chapters of the store ``results`` (a results dir) each measured
    (one configuration, two values): one list per configuration of ``(chapter, key, mean)``. A
    chapter that shows another's result reads it (:meth:`ChapterResults.get`) and is not listed."""
    groups: dict[tuple, list] = {}
    for chapter, data in sorted(load_all(results).items()):
        for key, result in data["results"].items():
            groups.setdefault(configuration(key, result), []).append((chapter, key, result.mean))
    return [found for found in groups.values() if len({chapter for chapter, _, _ in found}) > 1]
