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
    *test*, *weights*, *samples*, or *million* and one of those) or a configuration's parameter (after ``d =``, ``N =``, ``B =``,
    ``K =``, *seed*);
  - a convention of the notation: a shape or a size written with ``×`` (``3 × 3``, ``784 × 64``),
    an interval's level (``95 %`` before *confidence*, *prediction*, *CI* or *PI*), ``± 2 sd``, the
    ``[0, 1]`` of the pixels;

* **a hand-written claim** is a sentence (not a question: a question states nothing that can go
  stale) with no glued value that uses one of :data:`CLAIM_WORDS`
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


_GLUED = "⟨glued⟩"


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
    if re.match(r"\s*(?:million\s+|thousand\s+)?(?:images|rows|training|test|weights|samples)\b", after):
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
    return re.sub(r"\s+", " ", text).strip()[:160]


def hand_written(markdown: str) -> list[tuple[str, str]]:
    """[(kind, snippet)] of the hand-written numbers and claims in ``markdown`` (see the module
    docstring): kind ``"number"`` (the number and its neighbourhood) or ``"claim"`` (the sentence)."""
    text = prose(markdown)
    found = []
    for match in _NUMBER.finditer(text):
        if not _allowed_number(text, match):
            found.append(("number", _snippet(text[max(0, match.start() - 40):match.end() + 20])))
    for sentence in _sentences(text):
        if _GLUED not in sentence and not sentence.rstrip().endswith("?") and CLAIM_WORDS.search(sentence):
            found.append(("claim", _snippet(sentence)))
    return found


def sources() -> list[Path]:
    return sorted((ROOT / "notebooks").glob("*.py")) + [ROOT / page for page in HAND_WRITTEN_PAGES]


def found_defects() -> dict[str, list[tuple[str, str]]]:
    return {str(path.relative_to(ROOT)): [d for cell in markdown_cells(path) for d in hand_written(cell)]
            for path in sources()}


#: what the rule flags that is not a result of ours, each read by a person (page -> [(kind, text as
#: found)]): a description of the method or of a test's design ("solved by pinv", "held-out widths"),
#: a question, a quotation of the paper's printed values rounded or not kept in paper.py (Table II's
#: 1726 s, the figure's 64.9–68.3 %, Table V's 80/20 split), an illustration (80 % background), the
#: results cache's size limits and a port number
METHOD: dict[str, list[tuple[str, str]]] = {
    'notebooks/baselines.py': [
        ('claim', 'The paper\'s headline divides Table I\'s SGD time (17.45 s) by its Green-ELM (PInv, d = 2000) time (1.50 s): "an 11.6× reduction in reported training time ... whi'),
    ],
    'notebooks/cifar10.py': [
        ('number', 'xact pseudoinverse reaches 87.54 % in 1726 s, LU 87.53 % in 17'),
        ('claim', 'Green-ELM as a head on a frozen ImageNet ResNet-18 ⟨role⟩ (classifier removed, 512-d embeddings, images resized to 224), ⟨math⟩ : the exact pseudoinverse reache'),
        ('claim', 'If the random expansion is worth its cost, Green-ELM must beat it.'),
        ('number', '**The 119× claim.** On the ⟨'),
    ],
    'notebooks/entropy.py': [
        ('number', '(an image that is 80 % background and 20 % full ink has ⟨ma'),
    ],
    'notebooks/frontier.py': [
        ('claim', 'If dimensionality is cheap, can we reach state-of-the-art performance by expanding into a million-dimensional hidden space?" This chapter answers it on two CPU '),
        ('claim', "On these features the grid holds three readouts: the plain ridge readout, the paper's map at a finite width d, and the paper's map in its d → ∞ limit ( ⟨code⟩ o"),
    ],
    'notebooks/hardware.py': [
        ('claim', '**Time**: a Green-ELM fit costs ⟨math⟩ for the features, ⟨math⟩ for ⟨math⟩ and about ⟨math⟩ for the factorisation, and the regularised normal equations (LU, Cho'),
    ],
    'notebooks/random_features.py': [
        ('claim', 'Each is solved by pinv (λ = 0), and by LU and Cholesky at λ = 1e-3 and at λ = 1e-10.'),
    ],
    'notebooks/rotation.py': [
        ('claim', 'A model decays faster when it loses more points between 0° and θ.'),
    ],
    'notebooks/scale_out.py': [
        ('number', 'one host, `dask worker tcp://scheduler:8786 --nthreads 1 --nwor'),
    ],
    'notebooks/scaling.py': [
        ('claim', "(2) tests ln d the only way four points allow — fit on the paper's widths, predict wider ones that were held out, against a saturating law;"),
        ('number', 'ves. And the figure\'s "CIFAR-10" curve (64.9–68.3 %) cannot be G'),
        ('number', 'And the figure\'s "CIFAR-10" curve (64.9–68.3 %) cannot be Green-'),
        ('claim', "Mean test accuracy at λ = 10⁻³ (five seeds at the paper's widths in the full profile, the held-out seeds beyond; the last column counts them)."),
        ('claim', 'The held-out test'),
        ('claim', "So we fit two laws on the paper's widths only — the line ⟨math⟩ and the saturating ⟨math⟩ (three parameters, ⟨math⟩ its asymptote) — and predict the held-out wi"),
        ('claim', "**Test**: ln d holds for a dataset when its mean absolute held-out error is no larger than the saturating law's."),
        ('claim', 'This is information, not a verdict: the paper never defines ⟨math⟩ , and the sign of γ follows from whichever entropy one picks, so the scorecard records the γ '),
        ('number', "models: the previous width's choice × {0.1, 1, 10}), extended"),
        ('claim', "Whether a law predicts the curve beyond the measured widths is the held-out ln d test's question (above)."),
    ],
    'notebooks/streaming.py': [
        ('number', 'ining set for the initial fit, the last 20 % streamed): 1.3514'),
        ('number', "r's ⟨math⟩ , ⟨math⟩ , ⟨math⟩ and 80/20 split. The accuraci"),
        ('claim', "The paper's update against ours on the same batches (the ratio of the seconds of the same batch, listing 3 / ours), and the time our update's FLOPs take ( ⟨math"),
        ('claim', "This is not a lower bound: the update's own products may run faster than the product timed beside it."),
    ],
    'book/intro.md': [
        ('number', 'ord ⟨code⟩ (at most 2 MB an entry and 20 MB in all; larger i'),
        ('claim', 'The <a href="frontier.html">frontier</a> chapter answers it on two-core CPU machines (a run\'s host named where its record has one; some accuracy-seconds points '),
        ('claim', 'Every choice there (variant, patch size, width, ridge) is made on held-out training rows, and the test set is read once per seed for the pick (once more for eac'),
        ('claim', "Ours is a mean ± standard deviation over seeds (every source of randomness is seeded: the random projection or patches, and where relevant a network's initial w"),
    ],
}

#: hand-typed thresholds of tests, awaiting their chapter's next execution: the hardware chapter
#: re-measures timings whenever it runs, so its prose changes with its next quiet run
#: (page -> [(kind, text as found)])
KNOWN: dict[str, list[tuple[str, str]]] = {
    'notebooks/hardware.py': [
        ('number', "over the measured sizes must be within 0.05 of the paper's, els"),
        ('number', "ns the paper's exponent or lies within ±0.25 of it (a margin fix"),
    ],
}


# ----------------------------------------------------------------------------- tests
def test_the_rule_catches_planted_numbers_and_claims():
    planted = ("Green-ELM reaches 96.91 % at d = 4000 by pinv. Our SGD is 2.7× faster than the fit. "
               "The random patches' numbers were chosen on test images.")
    kinds = [kind for kind, _ in hand_written(planted)]
    assert kinds.count("number") == 2                     # 96.91 and 2.7 are ours, typed by hand
    assert kinds.count("claim") == 3
    asked = "Are the normal equations faster than the pseudoinverse here? The normal equations are faster here."
    assert [kind for kind, _ in hand_written(asked)] == ["claim"]    # the statement, not the question


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


# ----------------------------------------------------------------------------- code names in the prose
#: a module path of the book's machinery or a test's id, as prose names them
_CODE_NAME = re.compile(r"(?<!python -m )\b(?:greenelm_book(?:\.\w+)+|tests/test_\w+(?:\.py)?(?:::\w+)?)")


def code_names(markdown: str) -> list[str]:
    """The module paths of ``greenelm_book`` and the test ids that ``markdown`` shows a reader
    (a command, ``python -m greenelm_book...``, is an instruction, not a name, and is allowed)."""
    return _CODE_NAME.findall(markdown)


def test_code_names_are_found_and_commands_allowed():
    assert code_names("Ours (`greenelm_book.chapters.baselines`) is tested by `tests/test_distributed.py`.") == [
        "greenelm_book.chapters.baselines", "tests/test_distributed.py"]
    assert code_names("Run `python -m greenelm_book.running.runner html --source book`.") == []


#: module paths left in a chapter's prose until its next execution, {source: [names]} (none now: a
#: prose-only edit reaches a chapter that re-measures timings through ``runner refresh-prose``,
#: without executing it); the test fails when a new one appears and when a listed one is gone
AWAITING_REEXECUTION: dict[str, list[str]] = {}


def test_no_module_path_or_test_id_in_the_prose():
    found = {str(path.relative_to(ROOT)): names for path in sources()
             if (names := [n for cell in markdown_cells(path) for n in code_names(cell)])}
    assert found == AWAITING_REEXECUTION, found
