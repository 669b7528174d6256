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


def test_every_public_class_and_function_has_an_example():
    """The API reference shows an example for every public name (constants and errors aside)."""
    import greenelm

    missing = []
    for name in greenelm.__all__:
        value = getattr(greenelm, name)
        if not callable(value) or (isinstance(value, type) and issubclass(value, Exception)):
            continue
        if ">>> " not in (value.__doc__ or ""):
            missing.append(name)
    assert not missing, f"public names without a docstring example: {missing}"
