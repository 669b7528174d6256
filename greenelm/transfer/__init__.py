"""Transitional alias of :mod:`greenelm_book.transfer` (the book's machinery, moved out of the library).

Only the executed chapters that predate the move still import ``greenelm.transfer``; this alias keeps
them running until each is re-executed with the new import, and is deleted with the last one
(``tests/test_layers.py`` says when). It is no part of the library: the wheel leaves it out.
"""

import importlib
import sys

sys.modules[__name__] = importlib.import_module("greenelm_book.transfer")
