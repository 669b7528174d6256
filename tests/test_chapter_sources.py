"""Every chapter is prose over calls into ``greenelm_book`` (the scorecard notebook is the model).

In a chapter's code cells: no function defined (``def`` or ``lambda``), no hand-kept module list
for the results cache (``MODULES``, ``modules=``: cache keys follow the code), and no cell over
:data:`MAX_LINES` lines of statements (imports, blank lines and comments not counted; the
``parameters`` cell is the chapter's settings and is not counted either).

A chapter whose rewrite waits for its full-profile re-execution is listed in :data:`WAITING` with
the commit that re-applies it; its test is a strict xfail, so it fails as soon as the committed
notebook passes (then remove it from the list).
"""

from __future__ import annotations

import re
from pathlib import Path

import jupytext
import pytest

ROOT = Path(__file__).resolve().parents[1]
MAX_LINES = 15
#: chapter -> why its committed notebook still holds code (the rewrite is tested and waits to be executed)
WAITING: dict[str, str] = {}
_FUNCTION = re.compile(r"^\s*(async\s+)?def\s|\blambda\b", re.M)


def _chapters():
    for path in sorted((ROOT / "notebooks").glob("*.py")):
        marks = [pytest.mark.xfail(strict=True, reason=WAITING[path.stem])] if path.stem in WAITING else []
        yield pytest.param(path, id=path.stem, marks=marks)


def statement_lines(source: str) -> int:
    """Lines of a code cell that are neither blank, comments nor import statements (continuations
    of a multi-line import included)."""
    count, in_import = 0, False
    for line in source.splitlines():
        stripped = line.strip()
        if in_import:
            in_import = ")" not in stripped
            continue
        if not stripped or stripped.startswith("#"):
            continue
        if re.match(r"(import|from)\s", stripped):
            in_import = "(" in stripped and ")" not in stripped
            continue
        count += 1
    return count


def problems(path: Path) -> list[str]:
    """What keeps chapter ``path`` from being prose over calls (empty: nothing)."""
    found = []
    cells = [c for c in jupytext.read(path, fmt="py:percent").cells if c.cell_type == "code"]
    for number, cell in enumerate(cells, 1):
        if "parameters" in cell.metadata.get("tags", []):
            continue
        if _FUNCTION.search(cell.source):
            found.append(f"code cell {number} defines a function")
        if re.search(r"\bMODULES\b|\bmodules=", cell.source):
            found.append(f"code cell {number} keeps a module list for the results cache")
        if statement_lines(cell.source) > MAX_LINES:
            found.append(f"code cell {number} has {statement_lines(cell.source)} lines of statements")
    return found


@pytest.mark.parametrize("path", list(_chapters()))
def test_each_chapter_is_prose_over_calls(path):
    assert not problems(path), f"{path.name}: " + "; ".join(problems(path))


def test_the_checks_catch_what_they_look_for(tmp_path):
    chapter = tmp_path / "x.py"
    chapter.write_text('# %% tags=["parameters"]\nprofile = "smoke"\n\n# %%\nimport numpy as np\n'
                       "from a import (b,\n    c)\nf = lambda v: v\n\n# %%\ndef g():\n    return 1\n\n"
                       "# %%\nMODULES = ('x',)\n\n# %%\n" + "x = 1\n" * (MAX_LINES + 1))
    assert problems(chapter) == ["code cell 2 defines a function", "code cell 3 defines a function",
                                 "code cell 4 keeps a module list for the results cache",
                                 f"code cell 5 has {MAX_LINES + 1} lines of statements"]
    assert statement_lines("import a\nfrom b import (c,\n  d)\n# note\n\nx = ridge_lambda\n") == 1
