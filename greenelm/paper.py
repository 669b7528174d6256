"""The paper's reported numbers, in one place, each with the table or figure it comes from.

Chapters read these; no notebook retypes a paper figure.  Accuracies are in percent,
times in seconds, as printed in the paper (W. Silva, "Green-ELM: Efficient Analytic Learning
via High-Dimensional Random Projections").
"""

from __future__ import annotations

import pandas as pd

#: Table I, "Consolidated Benchmarks" (MNIST and Fashion-MNIST; Green-ELM rows use PInv unless noted).
TABLE_I = pd.DataFrame([
    ("mnist", "SGD MLP", "sgd", 64, 96.84, 17.45),
    ("mnist", "Green-ELM (PInv)", "pinv", 2000, 97.15, 1.50),
    ("fashion-mnist", "SGD MLP", "sgd", 64, 84.41, 8.89),
    ("fashion-mnist", "Green-ELM (PInv)", "pinv", 500, 82.67, 1.00),
    ("fashion-mnist", "Green-ELM (PInv)", "pinv", 1000, 84.52, 2.60),
    ("fashion-mnist", "Green-ELM (PInv)", "pinv", 4000, 86.63, 94.20),
    ("fashion-mnist", "Green-ELM (LUD)", "lu", 4000, 86.39, 11.5),
], columns=["dataset", "model", "solver", "n_hidden", "accuracy", "train_seconds"])

#: Fig. "Performance scaling": Green-ELM accuracy against d (the figure's plotted points).
FIG_SCALING = pd.DataFrame(
    [("mnist", d, a) for d, a in zip((500, 1000, 2000, 4000), (89.2, 94.0, 97.15, 98.1))]
    + [("fashion-mnist", d, a) for d, a in zip((500, 1000, 2000, 4000), (82.67, 84.52, 85.60, 86.63))]
    + [("cifar10", d, a) for d, a in zip((500, 1000, 2000, 4000), (64.91, 66.10, 67.95, 68.32))],
    columns=["dataset", "n_hidden", "accuracy"])

#: Fig. "Performance scaling": the dashed baselines (SGD for MNIST/Fashion, a CNN for CIFAR-10).
FIG_SCALING_BASELINES = {"mnist": 95.1, "fashion-mnist": 84.41, "cifar10": 72.0}

#: Table IV, "Solver Performance" (MNIST, d = 2000; LU and Cholesky with λ = 1e-3).
TABLE_IV = pd.DataFrame([
    ("pinv", "SVD", "Highest", 74.1, 96.92),
    ("lu", "LU Decomp.", "Medium", 5.8, 96.87),
    ("cholesky", "Cholesky", "Medium-Low", 6.4, 96.78),
], columns=["solver", "algorithm", "stability", "seconds", "accuracy"])

#: Abstract and Section "Experimental Results": the headline MNIST claims.
HEADLINE = {"mnist_d2000_accuracy": 97.15, "mnist_d2000_seconds": 1.5, "mnist_d4000_accuracy": 98.10,
            "fashion_accuracy": 86.63, "speedup_vs_sgd": 11.6, "ridge_lambda": 1e-3}
