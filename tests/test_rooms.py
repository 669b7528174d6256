"""The book's rooms (greenelm_book/running, summaries, chapters, judging, store): the layers contract
catches an upward import; the modules' former flat names import the same module objects; only the
chapters' sources not yet re-executed use them; and a cache key does not follow a module's path."""

from __future__ import annotations

import ast
import importlib
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from greenelm_book import _former_names
from greenelm_book.store import codekey

ROOT = Path(__file__).resolve().parent.parent

#: chapters whose sources still import the former names: a source changed is a page to re-execute, so
#: each moves to the current names at its next re-execution (and leaves this list)
SOURCES_ON_FORMER_NAMES: set[str] = set()

FORMER = re.compile(r"\bgreenelm_book\.(" + "|".join(sorted(map(re.escape, _former_names.MOVED), key=len,
                                                          reverse=True)) + r")\b")


def former_imports(path: Path) -> list[str]:
    """The former module names a source imports or names (``from greenelm_book import frontier_chapter``,
    ``greenelm_book.results_cache.memoize``)."""
    text = path.read_text()
    found = [f"greenelm_book.{m}" for m in FORMER.findall(text)]
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.ImportFrom) and node.module == "greenelm_book" and not node.level:
            found += [f"greenelm_book.{a.name}" for a in node.names if a.name in _former_names.MOVED]
    return found


@pytest.mark.parametrize("former", sorted(_former_names.MOVED))
def test_a_former_name_imports_the_module_at_its_current_place(former):
    current = importlib.import_module(f"greenelm_book.{_former_names.MOVED[former]}")
    assert importlib.import_module(f"greenelm_book.{former}") is current
    assert _former_names.former_name(current.__name__) == f"greenelm_book.{former}"
    assert _former_names.current_name(f"greenelm_book.{former}") == current.__name__


def test_a_command_written_with_a_former_name_runs_the_moved_module():
    done = subprocess.run([sys.executable, "-m", "greenelm_book.runner", "--help"], capture_output=True,
                          text=True, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert "execute chapters, check their freshness" in done.stdout


def test_every_module_lives_in_a_room_and_every_former_name_is_gone_from_the_folder():
    top = sorted(p.stem for p in (ROOT / "greenelm_book").glob("*.py"))
    assert top == ["__init__", "_former_names", "bench", "paper", "paper_code", "report"]
    for former, current in _former_names.MOVED.items():
        assert (ROOT / "greenelm_book" / (current.replace(".", "/") + ".py")).is_file(), current
    rooms = {p.name for p in (ROOT / "greenelm_book").iterdir() if p.is_dir() and p.name != "__pycache__"}
    assert rooms == {"running", "summaries", "chapters", "judging", "store"}


def test_only_the_listed_chapter_sources_still_use_former_names():
    """The machinery, the tests, the benchmarks and the documented commands use the current names; a
    chapter source moves to them when it is next re-executed, and then leaves the list."""
    code = [p for folder in ("greenelm_book", "tests", "benchmarks") for p in sorted((ROOT / folder).rglob("*.py"))
            if p.name not in ("_former_names.py", "test_rooms.py")]
    offenders = {str(p.relative_to(ROOT)): former_imports(p) for p in code}
    assert not {k: v for k, v in offenders.items() if v}
    for name in ("Makefile", "README.md", "book/intro.md", "benchmarks/README.md"):
        assert not FORMER.findall((ROOT / name).read_text()), name
    on_former = {p.stem for p in sorted((ROOT / "notebooks").glob("*.py")) if former_imports(p)}
    assert on_former <= SOURCES_ON_FORMER_NAMES, on_former - SOURCES_ON_FORMER_NAMES
    assert on_former == SOURCES_ON_FORMER_NAMES, (
        f"re-executed on the current names: remove {sorted(SOURCES_ON_FORMER_NAMES - on_former)} from the list")


def unit_text(source: str, package: str) -> str:
    (function,) = ast.parse(source).body
    return codekey._dump([function], package)


def test_a_function_level_import_reads_the_same_from_the_flat_folder_and_from_a_room():
    """The key follows code, not module paths: the chapter's ``from ..judging.report import glue`` is
    the flat module's ``from .report import glue``; a module imported from its room is the flat one."""
    flat = unit_text("def f():\n    from .report import glue\n    from .verdicts import value_vs_paper\n"
                     "    from . import frontier_chapter as fc, paper\n    return glue, fc\n", "greenelm_book")
    room = unit_text("def f():\n    from ..report import glue\n    from ..judging.verdicts import value_vs_paper\n"
                     "    from . import frontier as fc\n    from .. import paper\n    return glue, fc\n",
                     "greenelm_book.chapters")
    # the room's two statements for fc and paper are one statement in the flat folder: compare each
    assert flat.count("ImportFrom") == 3 and room.count("ImportFrom") == 4
    for line in ("ImportFrom(module='report', names=[alias(name='glue')], level=1)",
                 "ImportFrom(module='verdicts', names=[alias(name='value_vs_paper')], level=1)"):
        assert line in flat and line in room
    assert "alias(name='frontier_chapter', asname='fc')" in room
    assert "alias(name='paper')" in room and "module='chapters'" not in room


def test_absolute_imports_and_other_packages_keep_their_spelling():
    flat = unit_text("def f():\n    from greenelm_book.results_cache import memoize\n    import numpy as np\n"
                     "    from greenelm.kernels import arccos\n    return memoize\n", "greenelm_book")
    room = unit_text("def f():\n    from greenelm_book.store.results_cache import memoize\n    import numpy as np\n"
                     "    from greenelm.kernels import arccos\n    return memoize\n", "greenelm_book.chapters")
    assert flat == room
    assert "module='greenelm_book.results_cache'" in room and "module='greenelm.kernels'" in room


def test_a_changed_unit_is_still_named_across_the_move():
    """``explain_change`` compares units under their former labels: a unit that changed and moved is
    'changed', not 'removed' and 'added'."""
    from greenelm_book.store.results_cache import _code_changes

    old = {"code_items": {"greenelm_book.scaling.held_out_test": "a" * 16, "greenelm_book.paper.CLAIMS": "b" * 16},
           "libraries": []}
    new = {"items": {"greenelm_book.chapters.scaling_law.held_out_test": "c" * 16,
                     "greenelm_book.paper.CLAIMS": "b" * 16}, "libraries": []}
    assert _code_changes(old, new) == ["code: changed greenelm_book.scaling.held_out_test"]


def test_the_rooms_contract_catches_an_upward_import(tmp_path):
    lint = shutil.which("lint-imports", path=str(Path(sys.executable).parent))
    if lint is None:
        pytest.skip("import-linter is not installed (extra 'test')")
    for folder in ("greenelm", "greenelm_book"):
        shutil.copytree(ROOT / folder, tmp_path / folder, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    shown = tmp_path / "greenelm_book" / "store" / "shown.py"
    shown.write_text(shown.read_text() + "\n\ndef _planted():\n    from ..summaries import scorecard\n    return scorecard\n")
    done = subprocess.run([lint, "--config", str(tmp_path / "pyproject.toml")], capture_output=True, text=True,
                          cwd=tmp_path, env={"PYTHONPATH": str(tmp_path), "PATH": "/usr/bin:/bin"})
    assert done.returncode != 0, done.stdout
    assert "The book's rooms: each imports only the rooms below it BROKEN" in done.stdout
    assert "greenelm_book.store.shown -> greenelm_book.summaries.scorecard" in done.stdout


def test_a_module_run_as_main_resolves_its_relative_imports_from_the_package_it_was_run_from():
    """``python -m greenelm_book.chapters.frontier_protocol`` names the module ``__main__``: its
    function-level ``from .frontier_features import x`` keys as ``from .frontier import x``, as when imported."""
    import importlib.util
    import types

    main = types.ModuleType("__main__")
    main.__spec__ = importlib.util.find_spec("greenelm_book.chapters.frontier_protocol")
    assert codekey._package_of(main) == "greenelm_book.chapters"
    run_as_main = unit_text("def f():\n    from .frontier_features import IMAGE_SHAPES\n    return IMAGE_SHAPES\n",
                            codekey._package_of(main))
    assert "ImportFrom(module='frontier', names=[alias(name='IMAGE_SHAPES')], level=1)" in run_as_main
    script = types.ModuleType("__main__")                      # a script: no package
    script.__spec__ = None
    assert codekey._package_of(script) == ""
