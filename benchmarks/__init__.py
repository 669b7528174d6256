"""greenelm's benchmarks: ``python -m benchmarks.run`` (or ``make bench``) measures greenelm against
the paper's appendix code and scikit-learn in one run and writes ``benchmarks/report.{json,md}``."""
