"""Where each module of the book's machinery lived before it moved into its room (2026-11-28).

``greenelm_book`` was one flat folder; its modules now live in rooms by role (``running``,
``summaries``, ``chapters``, ``judging``, ``store``; the paper and the shared instruments stay at the
top). Two things still need the former names:

* **cache keys.** A results-cache key follows the code a computation runs, and an import written
  inside a function is part of that function's text (:mod:`greenelm_book.store.codekey`). The key
  writes such an import under the module's former name (:func:`former_name`), so moving a module
  keeps every key, and the committed cache of record still answers.
* **executed chapters and commands already written down.** The chapters' sources import the modules
  by their former names until each is next re-executed (changing a source makes its executed page
  stale), and commands such as ``python -m greenelm_book.runner`` are quoted in results and notes.
  :func:`install` makes ``greenelm_book.<former>`` import the module at its new place: the same
  module object, not a copy, so a test patching one name patches the other.

New code imports the current names; ``tests/test_layers.py`` checks that only the chapters' sources
listed there still use former ones.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys

PACKAGE = "greenelm_book"

#: former module (under ``greenelm_book.``) -> its current place (under ``greenelm_book.``)
MOVED: dict[str, str] = {
    # running and building the book
    "runner": "running.runner", "build": "running.build", "execute": "running.execute",
    "freshness": "running.freshness", "toc": "running.toc", "environment": "running.environment",
    # the pages that sum up the whole book
    "scorecard": "summaries.scorecard", "bottom_line": "summaries.bottom_line",
    "deviations": "summaries.deviations",
    # the judging: one test per kind, the uniform re-judgement, comparability, paired comparisons
    "verdicts": "judging.verdicts", "rejudge": "judging.rejudge", "comparability": "judging.comparability",
    "comparisons": "judging.comparisons",
    # the results store and the cache of record
    "results": "store.results", "results_cache": "store.results_cache", "codekey": "store.codekey",
    "shown": "store.shown",
    # the chapters, each module named as its chapter, its science beside it
    "experiments": "chapters.experiments",
    "random_features": "chapters.random_features", "rank_deficiency": "chapters.rank_deficiency",
    "solver_timing": "chapters.solver_timing", "sweeps": "chapters.sweeps",
    "baselines": "chapters.baselines", "fast_sgd": "chapters.fast_sgd",
    "cifar10": "chapters.cifar10", "backbones": "chapters.backbones", "transfer": "chapters.transfer",
    "scaling_chapter": "chapters.scaling", "scaling": "chapters.scaling_law",
    "rotation": "chapters.rotation", "perturb": "chapters.perturb", "trained": "chapters.trained",
    "weight_entropy": "chapters.entropy", "entropy": "chapters.weight_statistics",
    "streaming": "chapters.streaming", "streaming_bench": "chapters.streaming_harness",
    "forgetting": "chapters.forgetting",
    "scaleout": "chapters.scale_out",
    "complexity": "chapters.complexity", "footprint": "chapters.footprint",
    "frontier_chapter": "chapters.frontier", "frontier": "chapters.frontier_features",
    "frontier_protocol": "chapters.frontier_protocol",
}

_CURRENT_TO_FORMER = {f"{PACKAGE}.{new}": f"{PACKAGE}.{old}" for old, new in MOVED.items()}
_FORMER_TO_CURRENT = {f"{PACKAGE}.{old}": f"{PACKAGE}.{new}" for old, new in MOVED.items()}
#: the current names, longest first: a label's module is its longest current-name prefix
_CURRENT_LONGEST_FIRST = sorted(_CURRENT_TO_FORMER, key=len, reverse=True)


def former_name(module: str | None) -> str | None:
    """The dotted name ``module`` had before the move (itself when it did not move)."""
    return _CURRENT_TO_FORMER.get(module, module) if module else module


def former_label(label: str) -> str:
    """A code unit's label (``module.qualname``, :func:`greenelm_book.store.codekey.code_fingerprint`)
    with its module under the former name, so labels from before and after the move compare."""
    for current in _CURRENT_LONGEST_FIRST:
        if label.startswith(current + "."):
            return _CURRENT_TO_FORMER[current] + label[len(current):]
    return label


def current_name(module: str) -> str:
    """The dotted name a former module name now has (itself when it did not move)."""
    return _FORMER_TO_CURRENT.get(module, module)


class _Alias(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Imports ``greenelm_book.<former>`` as the module at its current place (one object)."""

    def find_spec(self, fullname, path=None, target=None):
        current = _FORMER_TO_CURRENT.get(fullname)
        if current is None:
            return None
        real = importlib.util.find_spec(current)
        if real is None:
            return None
        return importlib.machinery.ModuleSpec(fullname, self, origin=real.origin)

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        # a module may replace itself in sys.modules while it executes: the import returns the real one
        sys.modules[module.__name__] = importlib.import_module(_FORMER_TO_CURRENT[module.__name__])

    def get_code(self, fullname):
        """For ``python -m greenelm_book.<former>``: run the module at its current place as ``__main__``."""
        current = _FORMER_TO_CURRENT[fullname]
        return compile(f"import runpy\nrunpy.run_module({current!r}, run_name='__main__', alter_sys=True)\n",
                       f"<{fullname}, now {current}>", "exec")

    def is_package(self, fullname):
        return False


_ALIAS = _Alias()


def install() -> None:
    """Put the former-name importer on ``sys.meta_path`` (once)."""
    if _ALIAS not in sys.meta_path:
        sys.meta_path.append(_ALIAS)


__all__ = ["MOVED", "current_name", "former_label", "former_name", "install"]
