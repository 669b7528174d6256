"""Prose checks over the rendered text of every page, and the deviations page against the settings.

The rendered text of a page is what a reader sees: for an executed chapter ``book/<name>.ipynb``
its markdown cells (with ``{glue}`` roles replaced by their glued values) and the ``text/markdown``
and ``text/html`` outputs of the cells not removed from the page; for a static page ``book/*.md``
its text. Code (fenced blocks, inline code, ``<pre>``) is left out. Three kinds of defect:

* **doubled word** – the same word twice in a row ("the The", "the the"), case-insensitive;
* **signed number in a sign word** – a sign that the words around it repeat or contradict
  ("is -0.16 points (below", "-3.58 points below", "+0.4 points above") or a difference printed
  as zero ("by at most 0.00 points");
* **dangling reference** – "the table above", "as above", "the figure below" with no table or
  figure (or, for a bare "as above", nothing at all) on that side of it in the page.

The heavy chapters cannot be re-executed before their next full run, so their known defects are
listed in :data:`KNOWN` (page -> the defects' texts, as found): the test fails when a new defect
appears *and* when a listed one is gone, so the list stays true. Every other page has none.

The deviations page (``book/deviations.md``) is static text; its stated settings are checked against
the recorded ones: the verdict rule, each chapter's seed and epoch counts and widths (the settings
stored with its results in ``book/results`` and its entry in ``params/full.yml``), scaling's
nested draws, the CNN's measured epoch time and the machine the chapters ran on.
"""

from __future__ import annotations

import functools
import html
import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
BOOK = ROOT / "book"

#: known defects of committed pages awaiting their page's next execution (page -> [(kind, text as
#: found)]); a page not listed must have none. Empty: every page was re-executed with its text fixed.
KNOWN: dict[str, list[tuple[str, str]]] = {}


# ----------------------------------------------------------------------------- rendered text
class _Text(HTMLParser):
    """Text of an HTML fragment, without <pre>, <script> and <style>; a table's text between the
    markers ``\\x00table\\x00`` and ``\\x00/table\\x00`` (cells separated by `` | ``), an image
    as ``\\x00figure\\x00``."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self._skip = 0

    def handle_starttag(self, tag, attrs):
        if tag in ("pre", "script", "style"):
            self._skip += 1
        elif tag == "table":
            self.parts.append(" \x00table\x00 ")
        elif tag in ("img", "svg"):
            self.parts.append(" \x00figure\x00 ")
        elif tag in ("td", "th"):
            self.parts.append(" | ")
        elif tag in ("p", "div", "br", "tr", "li", "h1", "h2", "h3", "h4"):
            self.parts.append("\n\n")     # a line of its own

    def handle_endtag(self, tag):
        if tag in ("pre", "script", "style") and self._skip:
            self._skip -= 1
        elif tag == "table":
            self.parts.append(" \x00/table\x00 ")

    def handle_data(self, data):
        if not self._skip:
            self.parts.append(data)


def html_text(fragment: str) -> str:
    """The reader's text of an HTML fragment (markers for tables and figures)."""
    parser = _Text()
    parser.feed(fragment)
    return "".join(parser.parts)


def markdown_text(text: str, glued: dict[str, str] | None = None) -> str:
    """The reader's text of MyST markdown: code and directives' options out, ``{glue}`` roles
    replaced by their values, tables and figures marked."""
    glued = glued or {}
    text = re.sub(r"(?ms)^(`{3,}|~{3,})(?!\{(?:admonition|note|tip|warning|important|eval-rst)\}).*?^\1\s*$",
                  "", text)                                     # fenced code (not admonitions)
    text = re.sub(r"^(`{3,})\{.*$|^`{3,}\s*$|^:class:.*$", "", text, flags=re.M)  # admonition fences

    def glue(match):
        key, _, fmt = match.group(2).partition(":")
        value = glued.get(key, "")
        if fmt:
            try:
                return format(float(value), fmt)
            except ValueError:
                return value
        return value

    text = re.sub(r"\{glue(:text|:md|:any|)\}`([^`]+)`", glue, text)
    # {doc}`name` (and reStructuredText's :doc:`name`) shows the page's title, {doc}`text <name>` the text
    text = re.sub(r"(?:\{doc\}|(?<![\w}]):doc:)`([^`<]+?)`", lambda m: titles().get(m.group(1).strip(), m.group(1)),
                  text)
    text = re.sub(r"(?<![\w}]):doc:`([^`<]*?)\s*<[^`]*>`", r"\1", text)
    text = re.sub(r"\{(?:doc|ref|cite|numref|eq|math)\}`([^`<]*?)(?:\s*<[^`]*>)?`", r"\1", text)
    text = re.sub(r"`[^`\n]+`", " ⟨code⟩ ", text)
    text = re.sub(r"!\[[^\]]*\]\([^)]*\)|^```\{figure\}.*$|\{glue:figure\}", " \x00figure\x00 ", text,
                  flags=re.M)
    text = re.sub(r"((?:^\s*\|.*\|\s*\n?)+)", lambda m: " \x00table\x00 " + m.group(1) + " \x00/table\x00 \n",
                  text, flags=re.M)                            # a table: its rows between markers
    text = re.sub(r"\$\$.*?\$\$|\$[^$\n]+\$", " ⟨math⟩ ", text, flags=re.S)
    text = re.sub(r"<[^>]+>", " ", text)                           # inline HTML tags
    return html.unescape(text)


@functools.lru_cache(maxsize=None)
def titles() -> dict[str, str]:
    """{page name: its title} (the first ``# `` heading), as a ``{doc}`` role shows it."""
    import nbformat

    out = {}
    for path in sorted(BOOK.glob("*.ipynb")) + sorted(BOOK.glob("*.md")):
        if path.suffix == ".md":
            text = path.read_text(encoding="utf-8")
        else:
            text = "\n".join(c.source for c in nbformat.read(path, as_version=4).cells
                             if c.cell_type == "markdown")
        m = re.search(r"^# (.+)$", text, re.M)
        if m:
            out[path.stem] = m.group(1).strip()
    return out


def _glued(nb) -> dict[str, str]:
    """{key: text} of the values a notebook glued (myst_nb.glue), as ``{glue:text}`` shows them."""
    out = {}
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            name = output.get("metadata", {}).get("scrapbook", {}).get("name")
            if name:
                data = output.get("data", {})
                text = data.get("application/papermill.record/text/plain", data.get("text/plain", ""))
                text = "".join(text) if isinstance(text, list) else str(text)
                if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
                    text = text[1:-1]
                out[name] = text
    return out


def page_text(path: Path) -> str:
    """The reader's text of one page of the book (an executed chapter or a static .md page)."""
    if path.suffix == ".md":
        text = path.read_text(encoding="utf-8")
        for include in re.findall(r"```\{include\}\s*(\S+)\s*```", text):
            text = text.replace(include, "")
        return markdown_text(text)
    import nbformat

    nb = nbformat.read(path, as_version=4)
    glued = _glued(nb)
    parts = []
    for cell in nb.cells:
        tags = set(cell.metadata.get("tags", []))
        if "remove-cell" in tags:
            continue
        if cell.cell_type == "markdown":
            parts.append(markdown_text(cell.source, glued))
        elif cell.cell_type == "code" and not {"remove-output", "hide-output"} & tags:
            for output in cell.get("outputs", []):
                if output.get("metadata", {}).get("scrapbook"):
                    continue                                   # glued values show where pasted
                data = output.get("data", {})
                if "text/html" in data:
                    parts.append(html_text("".join(data["text/html"])))
                elif "text/markdown" in data:
                    parts.append(markdown_text("".join(data["text/markdown"]), glued))
                elif "image/png" in data or "image/svg+xml" in data:
                    parts.append(" \x00figure\x00 ")
    return "\n\n".join(parts)


def pages() -> list[Path]:
    """Every page of the book: the executed chapters and the static pages."""
    return sorted(BOOK.glob("*.ipynb")) + sorted(BOOK.glob("*.md"))


# ----------------------------------------------------------------------------- the checks
_NUMBER = r"\d[\d,]*(?:\.\d+)?"
_UNIT = r"(?:\s*(?:percentage\s+points?|points?|pp|%|×|x|s|seconds?))?"
#: a word twice, separated by spaces or one line break (a paragraph's source lines join)
_DOUBLED = re.compile(r"\b([A-Za-z]+)(?:[ \t]+|[ \t]*\n[ \t]*)\1\b", re.I)
_SIGNED = [
    # a minus sign and a word that says "below" again ("-3.58 points below", "is -0.16 points (below")
    re.compile(rf"(?<![\w.,])[-−]{_NUMBER}{_UNIT}\s*\(?\s*(?:below|lower|less|under|behind|short of|slower|worse)\b",
               re.I),
    re.compile(rf"\b(?:below|lower|less|under|behind|short|slower|worse)\s+(?:than\s+\S+\s+)?by\s+[-−]{_NUMBER}",
               re.I),
    # a difference printed as zero ("by at most 0.00 points")
    re.compile(r"\bby (?:at most |up to |only |about )?[-−+]?0(?:\.0+)?(?:\s*(?:percentage\s+points?|points?|pp|%))",
               re.I),
]
_ABOVE = re.compile(r"\b(?:the|this|that)\s+(table|figure|plot|chart)s?\s+above\b"
                    r"|\bthe\s+above\s+(table|figure|plot|chart)\b|\bas\s+(above)\b", re.I)
_BELOW = re.compile(r"\b(?:the|this|that)\s+(table|figure|plot|chart)s?\s+below\b"
                    r"|\bthe\s+below\s+(table|figure|plot|chart)\b|\bas\s+(below)\b", re.I)
_MARK = {"table": "\x00table\x00", "figure": "\x00figure\x00", "plot": "\x00figure\x00",
         "chart": "\x00figure\x00"}


def _in_table(text: str, at: int) -> bool:
    """Whether position ``at`` of a page's text is inside a table."""
    return text.rfind("\x00table\x00", 0, at) > text.rfind("\x00/table\x00", 0, at)


def _snippet(text: str, start: int, end: int, pad: int = 20) -> str:
    return re.sub(r"\s+", " ", text[max(0, start - pad):end + pad].replace("\x00", "")).strip()


def defects(text: str) -> list[tuple[str, str]]:
    """[(kind, snippet)] of the prose defects in a page's rendered text (see the module docstring).

    A reference ("the table above", "as above") is dangling when nothing of its kind is on that
    side of it in the page, and always inside a table cell or as a parenthetical "(as above)": a
    row or a note written for one claim has no neighbour it can point to."""
    found = []
    for m in _DOUBLED.finditer(text):
        found.append(("doubled word", _snippet(text, m.start(), m.end(), 12)))
    for pattern in _SIGNED:
        for m in pattern.finditer(text):
            found.append(("signed number", _snippet(text, m.start(), m.end(), 12)))
    for pattern, side in ((_ABOVE, "above"), (_BELOW, "below")):
        for m in pattern.finditer(text):
            what = next(g for g in m.groups() if g).lower()
            context = text[:m.start()] if side == "above" else text[m.end():]
            if _in_table(text, m.start()):
                ok = False
            elif what in _MARK:
                ok = _MARK[what] in context
            else:   # a bare "as above/below": in running text, with text on that side of it
                parenthetical = text[max(0, m.start() - 1):m.start()] == "(" and text[m.end():m.end() + 1] == ")"
                ok = not parenthetical and bool(re.search(r"[A-Za-z]", context))
            if not ok:
                found.append(("dangling reference", _snippet(text, m.start(), m.end(), 24)))
    return found


# ----------------------------------------------------------------------------- tests
def test_the_checks_find_each_kind_of_defect():
    text = ("The result is -0.16 points (below the paper). It is -3.58 points below it. They differ by "
            "at most 0.00 points. See the the table above. It is higher (as above). The The end. "
            "\x00table\x00 | 1 | higher, as above | \x00/table\x00 The figure below.")
    kinds = [k for k, _ in defects(text)]
    assert kinds.count("doubled word") == 2
    assert kinds.count("signed number") == 3
    assert kinds.count("dangling reference") == 4
    fine = (" \x00table\x00 | refused | refused | \x00/table\x00 \n\nThe table above shows it: ours is 0.16 "
            "points below the paper and +1.2 points above it, 10–40× slower, a difference of -0.04 "
            "points; they differ by at most 0.05 points. That is, as above, within 1 point. The "
            "figure below: \x00figure\x00")
    assert defects(fine) == [], defects(fine)


def test_a_doc_role_shows_its_pages_title_in_markdown_and_restructuredtext():
    """The API page's ``the :doc:`frontier``` read "the The frontier: …" in the HTML: a role
    without its own text shows the page's title, so a doubled word is found."""
    title = titles()["frontier"]
    assert title.startswith("The ")
    assert markdown_text("the {doc}`frontier` measures it") == f"the {title} measures it"
    assert markdown_text("the :doc:`frontier` chapter") == f"the {title} chapter"
    assert markdown_text("the :doc:`frontier chapter <frontier>` measures it") == "the frontier chapter measures it"
    assert [kind for kind, _ in defects(markdown_text("the :doc:`frontier` chapter"))] == ["doubled word"]
    # a reStructuredText block's prose is the reader's too (the API page's autodoc blocks)
    assert "the " + title in markdown_text("```{eval-rst}\n.. currentmodule:: x\n\nthe :doc:`frontier`\n```")


def test_rendered_text_replaces_glue_and_drops_code_and_removed_cells():
    import nbformat
    from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

    glue = new_output("display_data", data={"text/plain": "0.1234"},
                      metadata={"scrapbook": {"name": "gap", "mime_prefix": ""}})
    nb = new_notebook(cells=[
        new_markdown_cell("Ours is {glue:text}`gap:.2f` points below; `the the` is code.\n\n"
                          "```python\nthe the\n```"),
        new_code_cell("x", outputs=[glue]),
        new_code_cell("p", metadata={"tags": ["remove-cell"]},
                      outputs=[new_output("display_data", data={"text/html": "<p>the the</p>"})]),
        new_code_cell("t", outputs=[new_output("display_data", data={"text/html": "<table><tr><td>1</td></tr></table>"})]),
        new_markdown_cell("The table above.")])
    path = Path(__import__("tempfile").mkdtemp()) / "t.ipynb"
    nbformat.write(nb, path)
    text = page_text(path)
    assert "Ours is 0.12 points below" in text
    assert "the the" not in text
    assert defects(text) == []


def _found() -> dict[str, list[tuple[str, str]]]:
    return {path.name: defects(page_text(path)) for path in pages()}


def test_pages_have_no_new_prose_defects_and_the_known_list_is_true():
    found = _found()
    problems = []
    for page, got in found.items():
        known = KNOWN.get(page, [])
        new = [d for d in got if d not in known]
        gone = [d for d in known if d not in got]
        problems += [f"{page}: new {kind}: {text!r}" for kind, text in new]
        problems += [f"{page}: listed {kind} no longer there (remove it from KNOWN): {text!r}"
                     for kind, text in gone]
    problems += [f"KNOWN lists {page}, which is not a page" for page in KNOWN if page not in found]
    assert not problems, "\n".join(problems)


# ----------------------------------------------------------------------------- the deviations page
def _sections() -> dict[str, str]:
    """{chapter: its section of book/deviations.md} for the sections that name their chapter."""
    text = (BOOK / "deviations.md").read_text(encoding="utf-8")
    out = {}
    for block in re.split(r"(?m)^## ", text)[1:]:
        m = re.search(r"^Chapter: \{doc\}`(\w+)`", block, re.M)
        if m:
            out[m.group(1)] = block
    return out


def _recorded(chapter: str) -> dict[str, set]:
    """Seed counts, epoch counts and widths recorded by ``chapter`` (its results' settings, the
    results it read, and its params/full.yml entry)."""
    store = json.loads((BOOK / "results" / f"{chapter}.json").read_text())
    settings = [r["setting"] for r in store["results"].values()]
    for key in store.get("reads", {}):
        other, _, name = key.partition(":")
        settings.append(json.loads((BOOK / "results" / f"{other}.json").read_text())["results"][name]["setting"])
    params = yaml.safe_load((ROOT / "params" / "full.yml").read_text())[chapter] or {}
    seeds, epochs, widths = set(), set(), set()
    for setting in settings + [params]:
        for key, value in setting.items():
            values = value if isinstance(value, list) else [value]
            if "seed" in key:
                seeds.add(len(value) if isinstance(value, list) else value)
            if "epoch" in key:
                epochs.update(v for v in values if isinstance(v, int))
            if key in ("n_hidden", "width", "widths") or key.endswith(("_width", "_widths")):
                widths.update(v for v in values if isinstance(v, int))
    return {"seeds": seeds, "epochs": epochs, "widths": widths}


def _int(text: str) -> int:
    return int(text.replace(",", ""))


@pytest.mark.parametrize("chapter", sorted(_sections()))
def test_deviations_page_states_recorded_seeds_epochs_and_widths(chapter):
    section = _sections()[chapter]
    recorded = _recorded(chapter)
    stated = {
        "seeds": {_int(n) for n in re.findall(r"\b(\d+) (?:seeds|projections)\b", section)}
        | {_int(b) - _int(a) + 1 for a, b in re.findall(r"\bseeds? \(?(\d+)[–-](\d+)\)?", section)},
        "epochs": {_int(n) for n in re.findall(r"\b(\d+) epochs\b", section)},
        "widths": {_int(n) for n in re.findall(r"\bd = (\d[\d,]*)\b(?! rows)", section)},
    }
    for what, values in stated.items():
        wrong = sorted(values - recorded[what])
        assert not wrong, (f"book/deviations.md, {chapter}: states {what} {wrong}, but the chapter "
                           f"recorded {sorted(recorded[what])}")


def test_deviations_page_states_the_verdict_rule():
    """The rule as greenelm_book.report states it, and its width at 5 seeds in sd."""
    import math

    from scipy import stats

    from greenelm_book import report

    text = (BOOK / "deviations.md").read_text(encoding="utf-8")
    assert "95 % prediction interval for a single run" in report.RULE
    assert "95 % prediction interval for a single run" in text
    assert "at least 5 seeds" in report.RULE and "n ≥ 5" in text
    factor = stats.t.ppf(0.975, 4) * math.sqrt(1 + 1 / 5)
    for m in re.finditer(r"mean ± (\d+(?:\.\d+)?) sd", text):
        assert float(m.group(1)) == round(factor, len(m.group(1).partition(".")[2])), (
            f"book/deviations.md says {m.group(0)}; at 5 seeds the interval is mean ± {factor:.2f} sd")
    assert re.search(r"mean ± 3 sd", text)


def test_deviations_page_states_scalings_draws_and_the_cnns_epoch_time():
    section = _sections()["scaling"]
    store = json.loads((BOOK / "results" / "scaling.json").read_text())["results"]
    designs = {r["setting"]["design"] for r in store.values() if "design" in r["setting"]}
    assert designs, "scaling records no draw design"
    for design in designs:
        width = _int(re.search(r"width-(\d+) draw", design).group(1))
        assert re.search(rf"first d units of one ({width}|{width:,})-wide draw", section), (
            f"book/deviations.md, scaling: the recorded design {design!r} is not stated")
    run = json.loads((BOOK / "results" / "baselines.json").read_text())["results"]["cifar10/sgd-cnn/train-seconds"]
    per_epoch = sum(run["values"]) / len(run["values"]) / run["setting"]["epochs"]
    stated = re.findall(r"(\d+(?:\.\d+)?) s per epoch|epoch takes (\d+(?:\.\d+)?) s",
                        _sections()["baselines"])
    assert stated, "book/deviations.md, baselines: the CNN's epoch time is not stated"
    for pair in stated:
        value = next(v for v in pair if v)
        assert float(value) == round(per_epoch, 1), (
            f"book/deviations.md says {value} s per epoch; book/results records {per_epoch:.1f}")


def test_deviations_page_states_the_machine_the_chapters_ran_on():
    import nbformat

    text = (BOOK / "deviations.md").read_text(encoding="utf-8")
    machines = set()
    for path in sorted(BOOK.glob("*.ipynb")):
        host = nbformat.read(path, as_version=4).metadata.get("greenelm", {}).get("machine")
        if host:
            machines.add(f"{host['cpu']}, {host['cores']} cores, {host['memory_gib']:g} GiB")
    assert machines, "no executed chapter records its machine"
    for machine in machines:
        assert machine in text, f"book/deviations.md does not state the machine {machine!r}"

