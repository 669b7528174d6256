"""No sentence about a result is typed by hand: the prose a person writes (the markdown cells of
``notebooks/*.py`` and the hand-written static pages, :data:`HAND_WRITTEN_PAGES`) states numbers
and claims about results only through values glued from the results store.

The rule, applied to the prose with code (fenced blocks, inline code), math (``$…$``), link
targets, HTML comments and every MyST role (``{glue:text}`…```, ``{doc}``, ``{cite}``, …) removed:

* **a hand-written number** is a defect unless it is

  - part of a name (a digit joined to a letter or a hyphen: CIFAR-10, ResNet-18, float32, 784-64-10);
  - a year (1900–2099) or the number of a part of the paper (after *Table*, *Section*, *Sec.*,
    *Listing*, *listing*, *Fig.*, *Figure*, *Eq.*, *appendix*);
  - a value the paper prints: a number written in ``greenelm_book/paper.py``, the one place the
    paper's printed numbers live (a quotation of the paper cannot go stale; our own results are
    never there);
  - a setting, not a result: the size of the data (a number before *images*, *rows*, *training*,
    *test*, *weights*, *samples*) or a configuration's parameter (after ``d =``, ``N =``, ``B =``,
    ``K =``, *seed*);
  - a convention of the notation: a shape or a size written with ``×`` (``3 × 3``, ``784 × 64``),
    an interval's level (``95 %`` before *confidence*, *prediction*, *CI* or *PI*), ``± 2 sd``, the
    ``[0, 1]`` of the pixels;

* **a hand-written claim** is a sentence with no glued value that uses one of :data:`CLAIM_WORDS`
  (a comparison's direction or how a number of ours was obtained: "faster", "beats", "reaches",
  "chosen on", "held-out", "by pinv", …).

The chapters whose prose cannot change before their next full execution keep their defects in
:data:`KNOWN` (page -> the defects' texts, as found): the test fails when a new defect appears and
when a listed one is gone, so the list stays true and only shrinks.
"""

from __future__ import annotations

import ast
import functools
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: static pages written by hand (the others, deviations, environment, headline findings and the
#: scorecard summary, are written by tested functions from the store)
HAND_WRITTEN_PAGES = ("book/intro.md", "book/api.md")

#: words that, in a sentence about our results, state a direction or how a number was obtained
CLAIM_WORDS = re.compile(
    r"\b(faster|slower|beats?|beaten|outperforms?|outperformed|reach(?:es|ed)|chosen on|"
    r"held[- ]out|by pinv|higher than|lower than|better than|worse than)\b", re.I)

#: words after which a number names a part of the paper
_PART = r"(?:Table|Tables|Section|Sec\.|Listing|listing|listings|Fig\.|Figure|Eq\.|appendix)"


@functools.lru_cache(maxsize=None)
def paper_numbers() -> frozenset[float]:
    """Every number written in ``greenelm_book/paper.py`` (its literals and the numbers inside its
    strings): the paper's printed values."""
    source = (ROOT / "greenelm_book" / "paper.py").read_text(encoding="utf-8")
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Constant) and type(node.value) in (int, float):
            found.add(float(node.value))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            found.update(float(m.replace(",", "")) for m in re.findall(r"\d[\d,]*(?:\.\d+)?", node.value))
    return frozenset(found)


def markdown_cells(path: Path) -> list[str]:
    """The markdown a person wrote in ``path``: a jupytext percent notebook's markdown cells (the
    ``# `` prefixes removed), or a static page's whole text."""
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".md":
        return [text]
    cells = re.findall(r"(?m)^# %% \[markdown\][^\n]*\n((?:#[^\n]*(?:\n|$))*)", text)
    return ["\n".join(line[2:] if line.startswith("# ") else line[1:] for line in cell.splitlines())
            for cell in cells]


_GLUED = "\x00glued\x00"


def prose(markdown: str) -> str:
    """``markdown`` without code, math, link targets, comments and roles; a glue role becomes
    :data:`_GLUED` (a sentence holding one says a value from the store)."""
    text = re.sub(r"(?ms)^(`{3,}|~{3,})(?!\{(?:admonition|note|tip|warning|important)\}).*?^\1\s*$", " ", markdown)
    text = re.sub(r"^(`{3,})\{.*$|^`{3,}\s*$|^:class:.*$", " ", text, flags=re.M)
    text = re.sub(r"<!--.*?-->", " ", text, flags=re.S)
    text = re.sub(r"\{glue(?::\w+)?\}`[^`]*`", f" {_GLUED} ", text)
    text = re.sub(r"\{[\w:-]+\}`[^`]*`", " ⟨role⟩ ", text)
    text = re.sub(r"`[^`\n]+`", " ⟨code⟩ ", text)
    text = re.sub(r"\$\$.*?\$\$|\$[^$\n]+\$", " ⟨math⟩ ", text, flags=re.S)
    text = re.sub(r"\]\([^)]*\)", "]", text)
    return text


_NUMBER = re.compile(r"(?<![\w.\-])\d[\d,]*(?:\.\d+)?(?![\w\-])")


def _allowed_number(text: str, match: re.Match) -> bool:
    token = match.group().rstrip(",")
    before, after = text[:match.start()], text[match.start() + len(token):]
    value = float(token.replace(",", ""))
    if re.fullmatch(r"(19|20)\d\d", token):
        return True
    if re.search(rf"{_PART}\s*(?:\d+\s*(?:,|and|or|–)\s*)*$", before):
        return True
    if value in paper_numbers():
        return True
    if re.match(r"\s*(?:images|rows|training|test|weights|samples)\b", after):
        return True                                     # the size of the data
    if re.search(r"(?:\b[dNBK]\s*=|\bseeds?)\s*$", before):
        return True                                     # a configuration's parameter
    if re.match(r"\s*×\s*\d", after) or re.search(r"\d\s*×\s*$", before):
        return True                                     # a shape: 3 × 3, 784 × 64
    if re.match(r"\s*%\s*(?:\(?confidence|prediction|CI\b|PI\b)", after):
        return True
    if re.search(r"±\s*$", before) and re.match(r"\s*sd\b", after):
        return True
    if re.search(r"\[\s*$|\[0,\s*$", before) and token in ("0", "1"):
        return True
    return False


def _sentences(text: str) -> list[str]:
    return [s for s in re.split(r"(?<=[.!?:;])\s+(?=[A-Z*(\-])|\n\s*\n|\n\s*[-*] ", text) if s.strip()]


def _snippet(text: str) -> str:
    return re.sub(r"\s+", " ", text.replace(_GLUED, "⟨glued⟩")).strip()[:160]


def hand_written(markdown: str) -> list[tuple[str, str]]:
    """[(kind, snippet)] of the hand-written numbers and claims in ``markdown`` (see the module
    docstring): kind ``"number"`` (the number and its neighbourhood) or ``"claim"`` (the sentence)."""
    text = prose(markdown)
    found = []
    for match in _NUMBER.finditer(text):
        if not _allowed_number(text, match):
            found.append(("number", _snippet(text[max(0, match.start() - 40):match.end() + 20])))
    for sentence in _sentences(text):
        if _GLUED not in sentence and CLAIM_WORDS.search(sentence):
            found.append(("claim", _snippet(sentence)))
    return found


def sources() -> list[Path]:
    return sorted((ROOT / "notebooks").glob("*.py")) + [ROOT / page for page in HAND_WRITTEN_PAGES]


def found_defects() -> dict[str, list[tuple[str, str]]]:
    return {str(path.relative_to(ROOT)): [d for cell in markdown_cells(path) for d in hand_written(cell)]
            for path in sources()}


#: sentences the rule flags that describe the method or define a rule, not a result, each read by a
#: person (page -> [(kind, text as found)]): allowed as they are
METHOD: dict[str, list[tuple[str, str]]] = {}

#: defects of sources awaiting their page's next execution or rewrite (page -> [(kind, text)])
KNOWN: dict[str, list[tuple[str, str]]] = {}


# ----------------------------------------------------------------------------- tests
def test_the_rule_catches_planted_numbers_and_claims():
    planted = ("Green-ELM reaches 96.91 % at d = 4000 by pinv. Our SGD is 2.7× faster than the fit. "
               "The random patches' numbers were chosen on test images.")
    kinds = [kind for kind, _ in hand_written(planted)]
    assert kinds.count("number") == 2                     # 96.91 and 2.7 are ours, typed by hand
    assert kinds.count("claim") == 3


def test_the_rule_allows_glue_names_years_paper_values_and_notation():
    fine = ("Green-ELM reaches {glue:text}`acc:.2f` % on CIFAR-10 with ResNet-18 features (Table IV, "
            "listing 2, 2026), against the paper's 97.15 % and its 11.6×; a 3 × 3 kernel, the 95 % "
            "confidence interval, mean ± 2 sd, pixels in [0, 1], `d = 12345`, $N = 60000$.")
    assert hand_written(fine) == [], hand_written(fine)


def test_markdown_cells_reads_a_jupytext_notebook(tmp_path):
    source = tmp_path / "page.py"
    source.write_text("# %% [markdown]\n# # Title\n#\n# It is faster.\n\n# %%\nx = 1.5\n")
    assert markdown_cells(source) == ["# Title\n\nIt is faster."]
    assert [kind for kind, _ in hand_written(markdown_cells(source)[0])] == ["claim"]


def test_sources_have_no_new_hand_written_results_and_the_known_list_is_true():
    found = found_defects()
    problems = []
    for page, got in found.items():
        known = KNOWN.get(page, []) + METHOD.get(page, [])
        problems += [f"{page}: hand-written {kind}: {text!r}" for kind, text in got if (kind, text) not in known]
        problems += [f"{page}: listed {kind} no longer there (remove it from KNOWN or METHOD): {text!r}"
                     for kind, text in known if (kind, text) not in got]
    problems += [f"KNOWN or METHOD lists {page}, which is not a source" for page in {**KNOWN, **METHOD}
                 if page not in found]
    assert not problems, "\n".join(problems)
