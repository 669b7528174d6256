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
# Verdicts: *reproduced* / *differs* (the rule above); *inconclusive* (fewer than five runs);
# *not comparable* (our setting differs — another backbone, other features, another machine — the
# reason is given and the difference is information only); *holds*, *partly holds*, *does not
# hold* (a qualitative claim, by the test stated under it); *not measurable here* (and why).

# %% tags=["parameters"]
profile = "smoke"
seed = 0

# %% tags=["remove-input"]
from IPython.display import HTML, Markdown, display

from greenelm_book.report import RULE, glue, set_style
from greenelm_book.results import results_dir
from greenelm_book.scorecard import STATUSES, counts, scorecard, section_html, table_label

set_style()
display(Markdown(f"**The verdict rule**, the same everywhere in the book: {RULE}."))
card = scorecard(results_dir(profile))
glue("scorecard_claims", len(card))
glue("scorecard_answered", int((card.verdict != "not yet answered").sum()))

# %% [markdown]
# ## The counts
#
# Of the paper's {glue:text}`scorecard_claims` claims, {glue:text}`scorecard_answered` have an
# answer from a chapter. By the paper's section and verdict:

# %%
table = counts(card).rename_axis(index=None, columns=None)
short = {"Hardware and Complexity Analysis": "Hardware and Complexity", "Experimental Results": "Experimental Results"}
display(HTML(table.rename(index=short).to_html(classes="greenelm-table greenelm-compact", border=0)))

# %%
import matplotlib.pyplot as plt

from greenelm_book.scorecard import _BADGE

totals = card["verdict"].value_counts().reindex([s for s in STATUSES if s in set(card.verdict)])
fig, ax = plt.subplots(figsize=(7, 0.42 * len(totals) + 0.8))
ax.barh(totals.index[::-1], totals.values[::-1], color=[_BADGE[s] for s in totals.index[::-1]])
for y, n in enumerate(totals.values[::-1]):
    ax.text(n + 0.5, y, str(int(n)), va="center")
ax.set_xlabel("claims")
ax.set_xlim(0, totals.max() * 1.15)
ax.grid(axis="y", visible=False)
plt.show()

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
