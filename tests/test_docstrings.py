"""The examples in the library's docstrings run and print what they say (doctest)."""

from __future__ import annotations

import doctest
import importlib
from pathlib import Path

import pytest

LIBRARY = Path(__file__).resolve().parent.parent / "greenelm"
MODULES = sorted(f"greenelm.{p.stem}" for p in LIBRARY.glob("*.py") if p.stem != "__init__")


@pytest.mark.parametrize("name", ["greenelm", *MODULES])
def test_docstring_examples_run(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS)
    assert result.failed == 0, f"{result.failed} of {result.attempted} docstring examples of {name} failed"
