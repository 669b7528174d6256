"""The scorecard: every claim of the paper (:data:`greenelm_book.paper.CLAIMS`), one row each, with
the answer a chapter recorded in the results store (:mod:`greenelm_book.results`).

:func:`scorecard` builds the rows; :func:`section_html` renders one group of them as a table that
fits the book's column; :func:`summary_markdown` is the short summary the intro includes.
"""

from __future__ import annotations

import html
from pathlib import Path

import pandas as pd

from .paper import CLAIMS, COMPILED_TABLE_NUMBER, SECTIONS
from .report import VERDICT_LABELS
from .results import load_all

#: what the scorecard shows for a claim no chapter has answered yet
UNANSWERED = "not yet answered"
STATUSES = VERDICT_LABELS + (UNANSWERED,)
#: chapters without a page of their own (none now: every chapter of paper.CHAPTERS is in the toc)
CHAPTER_PAGES: dict = {}


def _group(where: str) -> str:
    """The paper's table/figure/section a claim is printed in first (its scorecard group)."""
    first = where.split(";")[0].strip()
    if first.startswith("Table"):
        return first.split(" (")[0]
    return first


def _paper_text(claim) -> str:
    if claim.value is None:
        return "—"
    value = f"{claim.value:g}"
    unit = {"%": " %", "×": "×", "": ""}.get(claim.unit, f" {claim.unit}")
    return value + unit


def scorecard(directory: str | Path) -> pd.DataFrame:
    """One row per claim, in the paper's order: section, group, claim, statement, where, paper,
    ours, verdict, detail, chapter (the chapter that answered it, or the one meant to)."""
    answers = {}
    for chapter, stored in load_all(directory).items():
        for claim_id, answer in stored["answers"].items():
            if claim_id in answers:
                raise ValueError(f"claim {claim_id} answered twice: by {answers[claim_id].chapter} "
                                 f"and by {chapter}")
            answers[claim_id] = answer
    rows = []
    for claim in CLAIMS:
        answer = answers.get(claim.id)
        rows.append({"section": claim.section, "group": _group(claim.where), "claim": claim.id,
                     "statement": claim.statement, "where": claim.where, "paper": _paper_text(claim),
                     "ours": answer.verdict.ours if answer else "",
                     "verdict": answer.verdict.label if answer else UNANSWERED,
                     "detail": (answer.verdict.detail if answer else
                                "no chapter has recorded an answer yet"),
                     "note": answer.note if answer else "",
                     "chapter": answer.chapter if answer else claim.chapter})
    unknown = sorted(set(answers) - {c.id for c in CLAIMS})
    if unknown:
        raise ValueError(f"answers to claims that are not in paper.CLAIMS: {unknown}")
    frame = pd.DataFrame(rows)
    frame["section"] = pd.Categorical(frame["section"], categories=SECTIONS, ordered=True)
    return frame


def counts(frame: pd.DataFrame) -> pd.DataFrame:
    """Claims per section (rows, the paper's order, then "all") and verdict (columns, :data:`STATUSES`
    order, those that occur)."""
    table = pd.crosstab(frame["section"].astype(str), frame["verdict"])
    table = table.reindex([s for s in SECTIONS if s in table.index])
    table = table[[s for s in STATUSES if s in table.columns]]
    table.loc["all"] = table.sum(axis=0)
    return table


_BADGE = {"reproduced": "#1b7837", "holds": "#1b7837", "differs": "#b2182b", "does not hold": "#b2182b",
          "partly holds": "#e08214", "inconclusive": "#e08214", "not comparable": "#5e6b7a",
          "not measurable here": "#5e6b7a", UNANSWERED: "#9e9e9e"}


def _link(chapter: str) -> str:
    if CHAPTER_PAGES.get(chapter, chapter) is None:
        return html.escape(chapter)
    return f'<a href="{chapter}.html">{html.escape(chapter.replace("_", " "))}</a>'


def table_label(group: str) -> str:
    """``"Table IV"`` → ``"Table IV (compiled: V)"`` where the compiled paper numbers it differently."""
    if group.startswith("Table "):
        number = group.split()[1]
        compiled = COMPILED_TABLE_NUMBER.get(number)
        if compiled and compiled != number:
            return f"{group} (compiled PDF: Table {compiled})"
    return group


def section_html(rows: pd.DataFrame) -> str:
    """A group of scorecard rows as an HTML table of four columns that fits the book's column:
    the claim (with where it is printed and the chapter that answers it), the paper's value, ours,
    and the verdict with its detail."""
    out = ['<table class="greenelm-scorecard"><thead><tr><th>claim</th><th>paper</th><th>ours</th>'
           '<th>verdict</th></tr></thead><tbody>']
    for row in rows.itertuples():
        colour = _BADGE[row.verdict]
        note = f'<br><span class="sc-note">{html.escape(row.note)}</span>' if row.note else ""
        out.append(
            f'<tr id="claim-{row.claim}"><td>{html.escape(row.statement)}'
            f'<br><span class="sc-where">{html.escape(row.where)} · {_link(row.chapter)}</span>{note}</td>'
            f'<td>{html.escape(row.paper)}</td><td>{html.escape(row.ours) or "—"}</td>'
            f'<td><span class="sc-badge" style="background:{colour}">{html.escape(row.verdict)}</span>'
            f'<br><span class="sc-detail">{html.escape(row.detail)}</span></td></tr>')
    out.append("</tbody></table>")
    return "".join(out)


def summary_markdown(directory: str | Path) -> str:
    """The intro's summary: how many of the paper's claims got each verdict (a Markdown table)."""
    from .report import RULE

    frame = scorecard(directory)
    table = counts(frame)
    lines = [f"**The verdict rule:** {RULE}.", "", "| verdict | claims |", "| --- | ---: |"]
    lines += [f"| {verdict} | {int(n)} |" for verdict, n in table.loc["all"].items()]
    lines.append(f"| **all** | **{len(frame)}** |")
    return "\n".join(lines) + "\n"
