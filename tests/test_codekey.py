"""A results-cache key follows the code the computation runs (greenelm_book.store.codekey): comments,
docstrings, formatting and moving a helper keep it; a change in any function it reaches, however
deep, changes it; a change in code it never reaches does not."""

from __future__ import annotations

import importlib
import sys
import textwrap

import pytest

from greenelm_book.store import results_cache
from greenelm_book.store.codekey import code_fingerprint
from greenelm_book.store.results_cache import memoize

PACKAGE = "codekey_pkg"

MAIN = '''
"""The computation."""
from .helpers import helper

SCALE = 3


def compute():
    """Doubles the helper's value."""
    return 2 * helper(SCALE)


def unrelated():
    return "never called"
'''

HELPERS = '''
import numpy as np


def helper(x):
    """A helper."""
    return inner(x) + 1   # plus one


def inner(x):
    return int(np.sum(np.arange(x)))


def other():
    return 0
'''


@pytest.fixture(autouse=True)
def _cache(tmp_path, monkeypatch):
    monkeypatch.setenv("GREENELM_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv(results_cache.RECORD_ENV, str(tmp_path / "record"))       # not the committed one
    monkeypatch.delenv(results_cache.RECORD_WRITE_ENV, raising=False)


@pytest.fixture
def package(tmp_path, monkeypatch):
    """``write(main=..., helpers=..., extra=...)`` writes the package afresh and returns its compute()."""
    root = tmp_path / "pkgs"
    (root / PACKAGE).mkdir(parents=True)
    monkeypatch.syspath_prepend(str(root))

    def write(main=MAIN, helpers=HELPERS, extra="", attribute="compute"):
        for name in [m for m in sys.modules if m == PACKAGE or m.startswith(PACKAGE + ".")]:
            del sys.modules[name]
        for name, text in (("__init__", ""), ("main", main), ("helpers", helpers), ("extra", extra)):
            (root / PACKAGE / f"{name}.py").write_text(textwrap.dedent(text))
        importlib.invalidate_caches()
        return getattr(importlib.import_module(f"{PACKAGE}.main"), attribute)

    yield write
    for name in [m for m in sys.modules if m == PACKAGE or m.startswith(PACKAGE + ".")]:
        del sys.modules[name]


def key(compute) -> str:
    return code_fingerprint(compute)["digest"]


def test_the_walk_reaches_the_helpers_transitively_and_records_the_libraries(package):
    found = code_fingerprint(package())
    assert found["units"] == [f"{PACKAGE}.helpers.helper", f"{PACKAGE}.helpers.inner", f"{PACKAGE}.main.SCALE",
                              f"{PACKAGE}.main.compute"]
    assert [library.split()[0] for library in found["libraries"]] == ["numpy"]
    assert package()() == 2 * (0 + 1 + 2 + 1)


def test_docstring_comment_and_formatting_edits_in_a_called_helper_keep_the_key(package):
    before = key(package())
    edited = HELPERS.replace('"""A helper."""', '"""A helper, now documented at length.\n\n    More.\n    """')
    edited = edited.replace("return inner(x) + 1   # plus one", "# a comment\n    return (inner(x)\n            + 1)")
    edited = edited.replace("def inner(x):", "def inner(x: int) -> int:")
    assert edited != HELPERS
    assert key(package(helpers=edited)) == before
    assert key(package(main=MAIN.replace('"""Doubles the helper\'s value."""', "# no docstring"))) == before


def test_a_code_change_in_a_transitively_called_helper_changes_the_key(package):
    before = key(package())
    assert key(package(helpers=HELPERS.replace("np.arange(x)", "np.arange(x + 1)"))) != before
    assert key(package(main=MAIN.replace("SCALE = 3", "SCALE = 4"))) != before         # a constant it reads


def test_a_change_in_code_the_computation_never_reaches_keeps_the_key(package):
    before = key(package())
    assert key(package(helpers=HELPERS.replace("return 0", "return 1"))) == before
    assert key(package(main=MAIN.replace('"never called"', '"changed"'))) == before
    assert key(package(extra="def anything():\n    return 42\n")) == before


def test_moving_a_helper_to_another_module_keeps_the_key(package):
    before = key(package())
    helper_only = HELPERS.split("def inner")[0] + "from .extra import inner\n\n\ndef other():\n    return 0\n"
    moved = "import numpy as np\n\n\ndef inner(x):\n    return int(np.sum(np.arange(x)))\n"
    assert key(package(helpers=helper_only, extra=moved)) == before


def test_a_module_used_as_a_value_brings_in_everything_it_defines(package):
    main = MAIN.replace("from .helpers import helper", "from . import helpers").replace(
        "2 * helper(SCALE)", "2 * getattr(helpers, 'helper')(SCALE)")
    before = key(package(main=main))
    assert key(package(main=main, helpers=HELPERS.replace("return 0", "return 1"))) != before


def test_memoize_keys_on_the_code(package):
    compute = package()
    first, info = memoize("walked", {}, compute)
    assert not info["cached"]
    assert memoize("walked", {}, compute)[1]["cached"]
    assert memoize("walked", {}, package(helpers=HELPERS.replace('"""A helper."""', "")))[1]["cached"]
    changed, info_changed = memoize("walked", {}, package(helpers=HELPERS.replace("+ 1", "+ 2")))
    assert not info_changed["cached"] and changed == first + 2 and info_changed["path"] != info["path"]
    manifest = results_cache.json.loads(open(info_changed["path"]).read())
    assert f"{PACKAGE}.helpers.inner" in manifest["code_units"] and manifest["code"] == key(
        package(helpers=HELPERS.replace("+ 1", "+ 2")))


def test_a_closure_and_a_lambda_are_walked(package):
    main = MAIN + '''

def make(n):
    def compute():
        return helper(n)
    return compute


LAMBDA = lambda: inner_call()  # noqa: E731


def inner_call():
    return helper(1)
'''
    closure = package(main=main, attribute="make")(2)
    before = key(closure)
    assert f"{PACKAGE}.helpers.inner" in code_fingerprint(closure)["units"]
    assert key(package(main=main, helpers=HELPERS.replace("+ 1", "+ 2"), attribute="make")(2)) != before
    lam = package(main=main, attribute="LAMBDA")
    assert f"{PACKAGE}.helpers.inner" in code_fingerprint(lam)["units"]


def test_the_books_computations_reach_the_code_their_old_module_lists_missed():
    """The scaling chapter's cached function runs greenelm_book.chapters.experiments, which its hand-kept
    list omitted; the walk finds it."""
    from greenelm_book.chapters.scaling_law import wide_ridge_paths

    units = code_fingerprint(lambda: wide_ridge_paths())["units"]
    assert "greenelm_book.chapters.experiments.accumulate_wide" in units
    assert any(unit.startswith("greenelm.solvers.") for unit in units)


def test_lines_inserted_above_a_loaded_function_or_lambda_keep_its_key(package, tmp_path):
    """The walk reads the source on disk, which may have been edited since the module was loaded
    (a long chapter run while someone edits the package): functions and lambdas are found by their
    qualified names, so lines inserted above them change no key (by line, the lookup would miss
    and fall back to the bytecode, whose key differs)."""
    main = MAIN + """

def make():
    return lambda: helper(3)
"""
    compute = package(main=main)
    lam = compute.__globals__["make"]()
    before, lam_before = key(compute), key(lam)
    source = tmp_path / "pkgs" / PACKAGE / "main.py"
    source.write_text(source.read_text().replace("def compute():", "def inserted(x):\n    return x\n\n\ndef compute():"))
    assert key(compute) == before and key(lam) == lam_before      # the modules in memory are the old ones
    assert f"{PACKAGE}.main.make.<locals>.<lambda>" in code_fingerprint(lam)["units"]


def test_the_nth_of_several_lambdas_in_one_scope_is_told_apart_by_its_line(package):
    main = MAIN + """

PAIR = (lambda: helper(1),
        lambda: helper(2))
"""
    first, second = package(main=main, attribute="PAIR")
    assert key(first) != key(second)


def test_moving_a_module_keeps_keys_unless_an_import_inside_a_function_names_it(package, tmp_path):
    """The key follows code, not module paths: a module moved into a subpackage keeps the keys of
    what reaches it when only module-level imports name it; an import written inside a function
    is part of that function's text, so mending it there re-keys (codekey's docstring says so)."""
    def moved(main, helpers_import):
        sub = tmp_path / "pkgs" / PACKAGE / "sub"
        sub.mkdir(exist_ok=True)
        (sub / "__init__.py").write_text("")
        (sub / "helpers.py").write_text(textwrap.dedent(HELPERS))
        return package(main=main.replace("from .helpers import helper", helpers_import), helpers="")

    before = key(package())
    assert key(moved(MAIN, "from .sub.helpers import helper")) == before
    inside = MAIN.replace("from .helpers import helper\n", "").replace(
        "    return 2 * helper(SCALE)", "    from .helpers import helper\n    return 2 * helper(SCALE)")
    inside_before = key(package(main=inside))
    inside_moved = inside.replace("from .helpers import helper", "from .sub.helpers import helper")
    assert key(moved(inside_moved, "")) != inside_before
