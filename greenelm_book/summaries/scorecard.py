"""The scorecard: every claim of the paper (:data:`greenelm_book.paper.CLAIMS`), one row each, judged
uniformly from the results store (:mod:`greenelm_book.store.results`).

Each chapter stored its answer at execution (its verdict and the result keys it rests on); the
scorecard judges every claim again by one named test of :mod:`greenelm_book.judging.verdicts` applied to
those stored runs (:func:`greenelm_book.judging.rejudge.judge_claim`), so parallel claims get one test and
not-comparable evidence gives "not comparable". Where the book's judgement differs from the
chapter's page, the row says so. A measurement judged against the same paper value by several
claims is one judgement: the repeats point to the first (``same_as``), and :func:`counts` counts
claims or unique judgements.

:func:`scorecard` builds the rows; :func:`counts` tabulates them; :func:`section_html` renders one
group of them as a table that fits the book's column; :func:`summary_markdown` is the short summary
the intro includes. For counts elsewhere (the conclusion): :func:`verdict_totals` (claims and
unique judgements per verdict), ``counts(card, unique=True, split_differs=False)``,
:func:`unique_judgements` and :func:`base_verdict` (every "differs, …" label as "differs").
"""

from __future__ import annotations

import html
from pathlib import Path

import pandas as pd

from ..paper import CLAIMS, COMPILED_TABLE_NUMBER, SECTIONS
from ..judging.rejudge import judge_claim
from ..report import DIFFERS_LABELS, VERDICT_LABELS
from ..store.results import load_all

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


def base_verdict(label: str) -> str:
    """"differs" for every label of :data:`greenelm_book.report.DIFFERS_LABELS`, else the label."""
    return "differs" if label in DIFFERS_LABELS else label


_base = base_verdict


def unique_judgements(frame: pd.DataFrame) -> pd.DataFrame:
    """The rows of :func:`scorecard` that are judgements of their own (``same_as`` empty)."""
    return frame[frame["same_as"] == ""]


def scorecard(directory: str | Path) -> pd.DataFrame:
    """One row per claim, in the paper's order: section, group, claim, statement, where, paper,
    ours, verdict, detail, note, chapter (the chapter that answered it, or the one meant to), test
    (the :mod:`greenelm_book.judging.verdicts` test that gave the verdict), recorded and
    recorded_detail (the label and the reason on the chapter's page at execution) and same_as (the
    claim whose judgement this row repeats, or "")."""
    stored = load_all(directory)
    answers = {}
    for chapter, content in stored.items():
        for claim_id, answer in content["answers"].items():
            if claim_id in answers:
                raise ValueError(f"claim {claim_id} answered twice: by {answers[claim_id].chapter} "
                                 f"and by {chapter}")
            answers[claim_id] = answer
    unknown = sorted(set(answers) - {c.id for c in CLAIMS})
    if unknown:
        raise ValueError(f"answers to claims that are not in paper.CLAIMS: {unknown}")
    results = {key: result for content in stored.values() for key, result in content["results"].items()}
    rows, first_of = [], {}
    for claim in CLAIMS:
        answer = answers.get(claim.id)
        row = {"section": claim.section, "group": _group(claim.where), "claim": claim.id,
               "statement": claim.statement, "where": claim.where, "paper": _paper_text(claim),
               "ours": "", "verdict": UNANSWERED, "detail": "no chapter has recorded an answer yet",
               "note": "", "chapter": claim.chapter, "test": "", "recorded": "", "recorded_detail": "",
               "same_as": ""}
        if answer is not None:
            judged = judge_claim(claim, answer, results, answers)
            notes = [answer.note] if answer.note else []
            if judged.verdict.label != answer.verdict.label:
                notes.append(f"re-judged by the book's rule ({judged.test}): the chapter recorded "
                             f"{answer.verdict}")
            elif judged.verdict.detail != answer.verdict.detail:
                notes.append(f"the same label; the chapter recorded its reason as: {answer.verdict.detail}")
            row.update(ours=judged.verdict.ours, verdict=judged.verdict.label, detail=judged.verdict.detail,
                       note="; ".join(notes), chapter=answer.chapter, test=judged.test,
                       recorded=answer.verdict.label, recorded_detail=answer.verdict.detail)
            if claim.value is not None and judged.values:
                fingerprint = (judged.test, claim.value, judged.values)
                if fingerprint in first_of:
                    row["same_as"] = first_of[fingerprint]
                    row["detail"] = f"same judgement as {first_of[fingerprint]}: {row['detail']}"
                else:
                    first_of[fingerprint] = claim.id
        rows.append(row)
    frame = pd.DataFrame(rows)
    frame["section"] = pd.Categorical(frame["section"], categories=SECTIONS, ordered=True)
    frame.attrs["keys"] = tuple(sorted(results))
    return frame


#: the verdict words of a count table's header, with soft hyphens where a narrow column may break them
HYPHENATED = {"reproduced": "repro\u00adduced", "concordant": "con\u00adcordant", "discordant": "dis\u00adcordant",
              "inconclusive": "incon\u00adclusive", "not comparable": "not com\u00adparable",
              "not measurable here": "not mea\u00adsurable here", "does not hold": "does not hold"}


def counts(frame: pd.DataFrame, unique: bool = False, split_differs: bool = True) -> pd.DataFrame:
    """Claims (``unique=False``) or unique judgements (``unique=True``: repeats of a judgement,
    ``same_as`` set, left out) per section (rows, the paper's order, then "all") and verdict
    (columns, :data:`STATUSES` order, those that occur); ``split_differs=False`` counts every
    "differs, …" label as "differs"."""
    if unique:
        frame = frame[frame["same_as"] == ""]
    verdicts = frame["verdict"] if split_differs else frame["verdict"].map(_base)
    table = pd.crosstab(frame["section"].astype(str), verdicts)
    table = table.reindex([s for s in SECTIONS if s in table.index])
    order = list(dict.fromkeys(s if split_differs else _base(s) for s in STATUSES))
    table = table[[s for s in order if s in table.columns]]
    table.loc["all"] = table.sum(axis=0)
    return table


def verdict_totals(frame: pd.DataFrame) -> pd.DataFrame:
    """Per verdict (rows, :data:`STATUSES` order, those that occur): ``claims`` and ``unique``
    judgements — the numbers a summary quotes."""
    table = pd.DataFrame({"claims": frame["verdict"].value_counts(),
                          "unique": frame.loc[frame["same_as"] == "", "verdict"].value_counts()})
    table = table.reindex([s for s in STATUSES if s in table.index]).fillna(0).astype(int)
    table.index.name = "verdict"
    return table


_BADGE = {"reproduced": "#1b7837", "holds": "#1b7837", "differs, within margin": "#d6604d",
          "differs, margin undecided": "#b2182b", "differs, beyond margin": "#67001f",
          "concordant": "#5aae61", "discordant": "#b2182b",
          "does not hold": "#b2182b",
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


def _test_text(test: str) -> str:
    """The named test behind a verdict, folded away from the reader's text."""
    return (f'<details class="sc-test"><summary>test</summary>{html.escape(test)}</details>' if test else "")


def tests_table(frame: pd.DataFrame) -> pd.DataFrame:
    """The tests the scorecard applied: one row per test (most used first) with its rule and the
    number of claims it judged."""
    from ..judging.verdicts import RULES

    described = dict(RULES, not_comparable="a setting that differs from the paper's (the rules below): "
                     "the difference is shown for information only",
                     not_measurable="no measurement here can decide it (the claim's row says why): the book's "
                                    "machine cannot measure it, it is about a device the book does not have, or it "
                                    "states a setting, a definition or what the paper's code does",
                     chapter_test="the chapter's own stated test, shown under the verdict, as recorded "
                                  "when the chapter ran")
    used = frame.loc[frame.test != "", "test"].value_counts()
    return pd.DataFrame({"test": used.index, "rule": [described[t] for t in used.index],
                         "claims": used.to_numpy()})


def comparability_markdown(frame: pd.DataFrame) -> str:
    """The comparability rules (:mod:`greenelm_book.judging.comparability`) as Markdown bullets, each with
    the number of the store's result keys it makes not comparable."""
    from ..judging.comparability import EXCEPTIONS, RULES as NOT_COMPARABLE, comparability

    keys = frame.attrs.get("keys", ())
    reasons = pd.Series([comparability(k).reason for k in keys if not comparability(k).comparable],
                        dtype=object).value_counts()
    counts = {reason: int(reasons.get(reason, 0)) for _, reason in NOT_COMPARABLE}
    lines = [f"- {reason} ({n} stored result{'' if n == 1 else 's'})" for reason, n in counts.items()]
    lines += [f"- comparable although a rule above matches: {reason}" for _, reason in EXCEPTIONS]
    return "\n".join(lines) + "\n"


def section_html(rows: pd.DataFrame) -> str:
    """A group of scorecard rows as an HTML table of four columns that fits the book's column:
    the claim (with where it is printed and the chapter that answers it), the paper's value, ours,
    and the verdict with its detail."""
    out = ['<table class="greenelm-scorecard"><thead><tr><th>claim</th><th>paper</th><th>ours</th>'
           '<th>verdict</th></tr></thead><tbody>']
    for row in rows.itertuples():
        colour = _BADGE[row.verdict]
        detail = html.escape(row.detail)
        if row.same_as:                          # the repeated judgement links to the row it repeats
            detail = detail.replace(row.same_as, f'<a href="#claim-{row.same_as}">another row</a>', 1)
        note = f'<br><span class="sc-note">{html.escape(row.note)}</span>' if row.note else ""
        out.append(
            f'<tr id="claim-{row.claim}"><td>{html.escape(row.statement)}'
            f'<br><span class="sc-where">{html.escape(row.where)} · {_link(row.chapter)}</span>{note}</td>'
            f'<td>{html.escape(row.paper)}</td><td>{html.escape(row.ours) or "—"}</td>'
            f'<td><span class="sc-badge" style="background:{colour}">{html.escape(row.verdict)}</span>'
            f'<br><span class="sc-detail">{detail}{_test_text(row.test)}</span></td></tr>')
    out.append("</tbody></table>")
    return "".join(out)


def label_disagreements(frame: pd.DataFrame) -> pd.DataFrame:
    """The claims whose chapter recorded (and its page showed) another label than the scorecard's
    judgement, whole labels compared ("differs" against "differs, beyond margin" is a disagreement):
    claim, chapter, recorded, verdict."""
    recorded = frame[frame.recorded != ""]
    differ = recorded.recorded != recorded.verdict
    return recorded.loc[differ, ["claim", "chapter", "recorded", "verdict"]].reset_index(drop=True)


def page_disagreements(frame: pd.DataFrame) -> pd.DataFrame:
    """The claims whose chapter's page states another verdict than the scorecard: another whole
    label, or the same label for another reason (the recorded detail against the scorecard's, the
    prefix of a repeated judgement aside): claim, chapter, recorded, verdict, recorded_detail, detail."""
    recorded = frame[frame.recorded != ""]
    detail = recorded.detail.str.replace(r"^same judgement as [^:]+: ", "", regex=True)
    differ = (recorded.recorded != recorded.verdict) | (recorded.recorded_detail != detail)
    return recorded.loc[differ, ["claim", "chapter", "recorded", "verdict", "recorded_detail",
                                 "detail"]].reset_index(drop=True)


#: the threshold whose reason is set beside the widest seed-to-seed spread the store holds
SPREAD_THRESHOLD = "> 10 points"


def widest_accuracy_spread(directory: str | Path) -> tuple[float, str] | None:
    """``(sd, key)``: the largest seed-to-seed standard deviation (points) of any stored accuracy
    (a result in % over at least two runs whose key ends in "accuracy", training accuracies aside), and
    its key; None when the store has none."""
    import statistics

    spreads = [(statistics.stdev(result.values), key)
               for chapter in load_all(directory).values() for key, result in chapter["results"].items()
               if key.endswith("accuracy") and not key.endswith("train-accuracy") and result.unit == "%"
               and len(result.values) > 1]
    return max(spreads) if spreads else None


def ladder_markdown(widest: tuple[float, str] | None = None) -> str:
    """The ladder of labels for a number against the paper's (:data:`greenelm_book.judging.verdicts.LADDER`)
    and every chapter test's threshold with its reason (:data:`~greenelm_book.judging.verdicts.THRESHOLDS`),
    as two Markdown tables. ``widest``: :func:`widest_accuracy_spread`, stated beside the reason of
    :data:`SPREAD_THRESHOLD`."""
    from ..judging.verdicts import (DIRECTION_LABELS, GAIN_LABELS, LADDER, MIN_GAIN_RUNS, NO_DIRECTION_WHY,
                                    NOT_COMPARABLE_WHY, THRESHOLDS)

    lines = ["**The ladder** (every label a verdict can take, each given by one condition; for any judgement "
             "exactly one condition holds, and no label implies another):", "", "| label | requires |",
             "| --- | --- |"]
    lines += [f"| {label} | {requires} |" for label, requires in LADDER]
    gains = ", ".join(f"\"{'a ' if word in ('gain', 'loss') else ''}{word}\" means *{label}*"
                      for word, label in GAIN_LABELS.items())
    lines += ["", f"The frontier's gain rule states its outcome in words of its own, not labels, each meaning one "
                  f"label of the claim \"B gains over A\" (paired over seeds, at least {MIN_GAIN_RUNS}, each running "
                  f"both; its bar is twice the standard deviation of the paired differences, or a stated floor where "
                  f"larger; the ladder's n ≥ 5 is for numbers against the paper's): {gains}. A direction (faster, "
                  f"slower, shorter, longer, closer, grows) is stated only where a test decides one, its interval "
                  f"wholly on one side: beside a label that decides one ({', '.join(DIRECTION_LABELS)}), or, for "
                  f"a comparison that is no claim of the paper, beside the test that decided it and its interval; "
                  f"elsewhere a page says "
                  f"\"no direction judged\" and why ({', '.join(dict.fromkeys(why for _, why in NO_DIRECTION_WHY))}, "
                  f"{NOT_COMPARABLE_WHY}): words, not labels.", ""]
    lines += ["**The thresholds of the chapters' own tests**, each with its reason:", "",
              "| threshold | decides | why |", "| --- | --- | --- |"]
    for threshold, claims, why in THRESHOLDS:
        if threshold == SPREAD_THRESHOLD and widest is not None:
            why += (f"; the widest seed-to-seed sd of a test accuracy in the results store is {widest[0]:.2f} "
                    f"points ({widest[1]}; the protocols' validation accuracies, choices on training rows, "
                    f"are not results)")
        lines.append(f"| {threshold} | {claims} | {why} |")
    return "\n".join(lines) + "\n"


def undecided_markdown(frame: pd.DataFrame) -> str:
    """One sentence under the counts: how many claims the quiet and the seeds rules left inconclusive,
    and what the ratio test against a paper's ratio (``ratio_across_machines``) gave, from ``frame``
    (:func:`scorecard`), so that a label no claim reached is said to be unreached."""
    from ..judging.verdicts import RATIO_LABELS

    def claims(n: int) -> str:
        return f"{n} claim{'' if n == 1 else 's'}"

    inconclusive = frame[frame.verdict == "inconclusive"]
    by_rule = {rule: int((inconclusive.test == rule).sum()) for rule in ("quiet_rule", "seeds_rule")}
    ratios = frame[frame.test == "ratio_across_machines"]
    reached = int(frame.verdict.isin(RATIO_LABELS).sum())
    ratio_labels = ", ".join(f"{label} {n}" for label, n in ratios.verdict.value_counts().items()) or "none"
    return (f"Of the {len(inconclusive)} inconclusive claims, the quiet rule (timings not recorded as quiet) "
            f"bounded {by_rule['quiet_rule']} and the seeds rule (a point on one seed) {by_rule['seeds_rule']}; "
            f"the other {len(inconclusive) - sum(by_rule.values())} rest on the reason their rows state (an interval "
            f"that straddles a test's boundary, too few pairs, a ratio's timings not quiet, a part left untested). "
            f"The ratio test against a "
            f"paper's ratio judged {claims(len(ratios))} ({ratio_labels}): "
            + ("no claim is concordant or discordant yet." if reached == 0 else f"{claims(reached)} decided by it.")
            + "\n")


def summary_markdown(directory: str | Path) -> str:
    """The intro's summary: the verdict rule, how many of the paper's claims got each verdict and
    how many unique judgements (a Markdown table), then the ladder and the thresholds
    (:func:`ladder_markdown`)."""
    from ..report import RULE

    frame = scorecard(directory)
    table = verdict_totals(frame)
    lines = [f"**The verdict rule:** {RULE}.", "", "| verdict | claims | unique judgements |",
             "| --- | ---: | ---: |"]
    lines += [f"| {verdict} | {int(row['claims'])} | {int(row['unique'])} |" for verdict, row in table.iterrows()]
    lines.append(f"| **all** | **{len(frame)}** | **{int((frame.same_as == '').sum())}** |")
    return ("\n".join(lines) + "\n\n" + undecided_markdown(frame) + "\n"
            + ladder_markdown(widest_accuracy_spread(directory)))
