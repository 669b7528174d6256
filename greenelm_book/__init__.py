"""greenelm_book: the reproduction machinery of the book "Green-ELM, reproduced".

It imports the library (:mod:`greenelm`) and is never imported by it. Not part of the
``greenelm`` distribution: the repository's Makefile puts it on the virtual environment's path.

Its rooms, each importing only the rooms below it (the layers contract in ``pyproject.toml``):

* ``running``: the chapters and profiles (``toc``), papermill execution with provenance
  (``execute``), ``freshness``, the environment page, the HTML ``build``, and ``runner``, the command
  line (``python -m greenelm_book.running.runner``);
* ``summaries``: the pages that sum up the book from the results store (``scorecard``,
  ``bottom_line``, ``deviations``);
* ``chapters``: one module per chapter, named as the chapter (``frontier``, ``scaling``, ``entropy``,
  ...), with the science each needs beside it (``frontier_features``, ``frontier_protocol``,
  ``frontier_halving``, ``frontier_fixed``, ``scaling_law``, ``weight_statistics``, ``streaming_harness``,
  ``baselines``, ``backbones``, ...);
* ``judging``: one named test per kind of verdict (``verdicts``), the uniform re-judgement of every
  stored answer (``rejudge``), ``comparability`` as data, paired ``comparisons``;
* ``store``: the results store (``results``), the results cache and its cache of record
  (``results_cache``, keyed by ``codekey``), the numbers a page shows (``shown``);
* at the top, below them all: ``paper`` and ``paper_code`` (the paper's numbers and listings),
  ``report`` (the verdict rule, tables, plot style) and ``bench`` (timers, FLOPs, peak memory).

The modules' former flat names (``frontier_chapter`` for ``chapters.frontier``, ...) still import, as the same
module objects, for the executed chapters and the commands written before the move
(:mod:`greenelm_book._former_names`).
"""

from . import _former_names

_former_names.install()
