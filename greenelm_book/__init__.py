"""greenelm_book: the reproduction machinery of the book "Green-ELM, reproduced".

It imports the library (:mod:`greenelm`) and is never imported by it. Not part of the
``greenelm`` distribution: the repository's Makefile puts it on the virtual environment's path.

Modules: ``toc`` (chapters, profiles), ``execute`` (papermill), ``freshness``, ``environment`` and
``build`` (the HTML book), with ``runner`` their command line; ``experiments`` (the chapters'
loops), ``results_cache`` (``memoize``: results stored as checksummed data, never pickles, keyed by
the code they run, found by ``codekey``), ``paper`` and ``paper_code`` (the paper's numbers and listings),
``report`` (the verdict rule, tables, plot style), ``baselines`` (SGD models), ``backbones``
(frozen CNNs and their embedding cache), ``transfer``, ``perturb``, ``scaling``, ``entropy``,
``streaming_bench`` (the streaming chapter's harness) and ``bench`` (timers, FLOPs, peak memory).
"""
