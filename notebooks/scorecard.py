# ---
# jupyter:
#   jupytext:
#     text_representation:
#       extension: .py
#       format_name: percent
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Scorecard: every claim of the paper
#
# Each row below is one claim of the paper {cite}`silva2026greenelm` — every cell of its six
# tables, every point and baseline of its scaling figure, and every number or qualitative statement
# of its text — with the value the paper prints and where, our measurement with its spread, and
# the verdict. The rows are generated from the book's results store: each chapter records what it
# measured and its answer to the claims it tests, and this page only reads them, so a number here
# is the number in the chapter it links to.
#
# Every verdict on this page is the book's uniform judgement: each chapter stored its answer and
# the runs it rests on, and this page judges every claim again from those stored runs by one named
# test, the same test for parallel claims. Each verdict is one
# label of the ladder on the introduction's page, given by one condition: *reproduced* (the rule
# above), or a *differs* split by the practical margin chosen in advance (*within margin*: an
# equivalence test, TOST, puts our mean within it; *beyond margin*: a one-sided test puts it
# outside; *margin undecided*: neither); a ratio of timings from another machine has words of its
# own, never *reproduced*: *concordant* (same direction, within ×/÷ 3 of the paper's) or *discordant*;
# *inconclusive* (fewer runs than its test needs, timings not recorded as quiet, an interval straddling
# a boundary of the test, or, for a claim of parts, a part undecided and none failed); *not comparable* (our setting differs — another
# backbone, other features, an architecture the paper does not state — the reason is given and
# the difference is information only); *holds*, *partly holds*, *does not hold* (a qualitative
# claim, by the test stated under it: it passes on every, on some, or on none of the datasets,
# regimes or stated parts of the claim it is applied to); *not measurable here* (and why). Where this judgement
# differs from what the chapter recorded, the row says what the chapter recorded.
#
# Four rules keep a verdict no stronger than its evidence. A timing not recorded as quiet (low 1- and
# 5-minute load averages when it was taken) cannot decide a direction (the quiet rule). A claim that states a setting, a
# definition or what the paper's code does is not a finding, and a claim about a device the book
# does not have (an edge node, an embedded or battery-powered device) is not measured here: both are
# *not measurable here*, with what the book checked shown for information, and neither is counted
# with the findings. A point measured on one seed cannot decide a verdict alone (the seeds rule): a
# test resting on one-seed points is *inconclusive*, its outcome shown for information. The scaling
# figure's CIFAR-10 curve is not raw pixels, so a scaling claim whose test would decide on raw-pixel
# CIFAR-10 is *not comparable* (the setting rule), whether it sets a number against the paper's or
# orders the book's own curves, and what its test gives is shown for information; against Table VI's
# raw-pixel numbers (the CIFAR-10 chapter) the same accuracies are comparable.

# %% tags=["parameters"]
profile = "smoke"
seed = 0

# %% tags=["remove-input"]
from IPython.display import HTML, Markdown, display

from greenelm_book.report import RULE, glue, set_style
from greenelm_book.store.results import results_dir
from greenelm_book.summaries.scorecard import (HYPHENATED, comparability_markdown, counts, scorecard, section_html,
                                               table_label, tests_table, verdict_totals)

set_style()
display(Markdown(f"**The verdict rule**, the same everywhere in the book: {RULE}."))
card = scorecard(results_dir(profile))
totals = verdict_totals(card)
glue("scorecard_claims", len(card))
glue("scorecard_answered", int((card.verdict != "not yet answered").sum()))
glue("scorecard_unique", int((card.same_as == "").sum()))
rejudged = int((card.note.str.contains("re-judged")).sum())
glue("scorecard_rejudged", f"{rejudged} {'row carries' if rejudged == 1 else 'rows carry'}")

# %% [markdown]
# ## The counts
#
# Of the paper's {glue:text}`scorecard_claims` claims, {glue:text}`scorecard_answered` have an
# answer from a chapter. Some claims repeat one measurement against the same paper value (the
# abstract quoting a Table I cell, the figure plotting it again): they are one judgement, so the
# claims make {glue:text}`scorecard_unique` unique judgements. By verdict:

# %% tags=["remove-input"]
display(HTML(totals.rename(columns={"unique": "unique judgements"}).reset_index()
             .to_html(index=False, classes="greenelm-table greenelm-compact", border=0)))

# %% [markdown]
# Unique judgements by the paper's section and verdict (the three kinds of *differs* together):

# %% tags=["remove-input"]
table = counts(card, unique=True, split_differs=False).rename_axis(index=None, columns=None)
short = {"Hardware and Complexity Analysis": "Hardware and Complexity"}
display(HTML(table.rename(index=short, columns=HYPHENATED).to_html(classes="greenelm-table greenelm-compact",
                                                                   border=0)))

# %% tags=["remove-input"]
import matplotlib.pyplot as plt

from greenelm_book.summaries.scorecard import _BADGE

unique = totals["unique"]
fig, ax = plt.subplots(figsize=(7, 0.42 * len(unique) + 0.8))
ax.barh(unique.index[::-1], unique.values[::-1], color=[_BADGE[s] for s in unique.index[::-1]])
for y, n in enumerate(unique.values[::-1]):
    ax.text(n + 0.5, y, str(int(n)), va="center")
ax.set_xlabel("unique judgements")
ax.set_xlim(0, unique.max() * 1.15)
ax.grid(axis="y", visible=False)
plt.show()

# %% [markdown]
# ## The tests
#
# Each verdict names the test that gave it; each test is one function of the book's code
# with a unit test, its rule stated once. {glue:text}`scorecard_rejudged` a note where
# the chapter's page, judged when the chapter ran, gave another label.

# %% tags=["remove-input"]
display(HTML(tests_table(card).to_html(index=False, classes="greenelm-table greenelm-compact", border=0)))

# %% [markdown]
# A result is *not comparable* when it is measured in a setting that differs from the paper's; the
# rules, one per kind of difference, and how many of the store's result keys each covers:

# %% tags=["remove-input"]
display(Markdown(comparability_markdown(card)))

# %% [markdown]
# ## Claim by claim
#
# Grouped by the paper's sections and, within a section, by the table, figure or passage that
# prints the claim. The book keeps the paper's source numbering of tables; where the compiled
# PDF numbers a table differently, the heading says so.

# %% tags=["remove-input"]
from IPython.display import Markdown

for section, rows in card.groupby("section", observed=True, sort=True):   # the paper's order
    display(Markdown(f"### {section}"))
    groups = list(dict.fromkeys(rows["group"]))
    for group in groups:
        part = rows[rows["group"] == group]
        if len(groups) > 1:
            display(Markdown(f"#### {table_label(group)}"))
        display(HTML(section_html(part)))
