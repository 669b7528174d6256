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
# # Conclusion
#
# What the re-measurement says about the paper {cite}`silva2026greenelm`, read from the
# {doc}`scorecard <scorecard>` (every claim, one row) and so from the same results store as every
# chapter. The lists below are generated from the verdicts; the sentences around them are chosen
# by the counts they quote.

# %% tags=["parameters"]
profile = "smoke"
seed = 0

# %% tags=["remove-cell"]
from IPython.display import Markdown, display

from greenelm_book.report import glue
from greenelm_book.results import results_dir
from greenelm_book.scorecard import UNANSWERED, scorecard

card = scorecard(results_dir(profile))
quantitative = card[card.verdict.isin(["reproduced", "differs", "inconclusive"])]
qualitative = card[card.verdict.isin(["holds", "partly holds", "does not hold"])]
glue("n_claims", len(card))
glue("n_judged", len(quantitative))
glue("n_reproduced", int((card.verdict == "reproduced").sum()))
glue("n_differs", int((card.verdict == "differs").sum()))
glue("n_qualitative", len(qualitative))
glue("n_holds", int((card.verdict == "holds").sum()))
glue("n_partly", int((card.verdict == "partly holds").sum()))
glue("n_not_hold", int((card.verdict == "does not hold").sum()))
glue("n_not_comparable", int((card.verdict == "not comparable").sum()))
glue("n_not_measurable", int((card.verdict == "not measurable here").sum()))
glue("n_unanswered", int((card.verdict == UNANSWERED).sum()))


def bullets(rows, limit=None):
    """Markdown bullets: the claim, ours and the verdict's detail, linked to its chapter."""
    lines = []
    for row in list(rows.itertuples())[:limit]:
        ours = f" — ours: {row.ours}" if row.ours else ""
        lines.append(f"- {row.statement}{ours} ({row.verdict}: {row.detail}; "
                     f"[{row.chapter.replace('_', ' ')}]({row.chapter}.ipynb))")
    return "\n".join(lines) if lines else "- none"


# %% [markdown]
# ## The numbers
#
# Of the paper's {glue:text}`n_claims` claims, {glue:text}`n_judged` are numbers we could measure in
# the paper's own setting; {glue:text}`n_reproduced` of them are reproduced by the book's rule and
# {glue:text}`n_differs` differ. {glue:text}`n_not_comparable` are numbers whose setting we cannot
# match (another backbone, features, or a timing on another machine),
# {glue:text}`n_not_measurable` cannot be measured on this machine, and
# {glue:text}`n_unanswered` have no answer yet. Of the {glue:text}`n_qualitative` qualitative
# claims tested, {glue:text}`n_holds` hold, {glue:text}`n_partly` hold in part and
# {glue:text}`n_not_hold` do not.

# %% [markdown]
# ### Numbers that reproduce

# %% tags=["remove-input"]
display(Markdown(bullets(card[card.verdict == "reproduced"])))

# %% [markdown]
# ### Numbers that differ
#
# Each with the signed difference (ours − the paper's) and our 95 % prediction interval for a
# single run.

# %% tags=["remove-input"]
display(Markdown(bullets(card[card.verdict == "differs"])))

# %% [markdown]
# ### Qualitative claims
#
# Each with the test the chapter applied.

# %% tags=["remove-input"]
display(Markdown(bullets(qualitative.sort_values("verdict"))))

# %% [markdown]
# ### What we could not compare or measure

# %% tags=["remove-input"]
display(Markdown(bullets(card[card.verdict.isin(["not comparable", "not measurable here", "inconclusive",
                                                   UNANSWERED])])))
