"""Comparability as data: is a stored result measured in the paper's setting?

Every result key of the store gets one answer, from the rules below (the first that matches wins,
the exceptions first): comparable, or not comparable with the reason. A claim whose evidence is
not comparable gets "not comparable" on the scorecard, its difference shown for information
(:mod:`greenelm_book.judging.rejudge`); ``tests/test_verdicts.py`` checks it over the committed store.

What makes a result comparable is what the quantity depends on. An accuracy on EfficientNet-Lite0
embeddings measures the backbone as much as the method, so it is not comparable to the paper's
ResNet-18 numbers, and so is the difference between two solvers' accuracies on those embeddings
(how far the minimum-norm and the ridge solutions part depends on the features' conditioning, as
every Table II accuracy depends on the backbone); a solve's time depends on H's shape (the paper's
N = 50,000 × d = 4,000), not on the inputs that made H, so a ratio of two solves' times is. An unstated
*optimiser* (learning rate, batch, momentum: the paper states none for any SGD model) is filled
with one standard choice and makes nothing not comparable by itself, for MNIST, Fashion-MNIST
and CIFAR-10 alike; an unstated *architecture* (CIFAR-10's MLP width, its CNN, its convolutional
frontend) does.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["Comparability", "RULES", "EXCEPTIONS", "CHAPTER_RULES", "comparability", "is_quiet_timing"]


@dataclass(frozen=True)
class Comparability:
    """``comparable``: measured in the paper's setting; else ``reason`` says what differs."""

    comparable: bool
    reason: str = ""


_BACKBONE = ("EfficientNet-Lite0 embeddings (1280-d, 224 px), not the paper's ResNet-18 (512-d): the "
             "head's accuracy measures the backbone as much as the method")
_FIGURE_CIFAR = ("the scaling figure's CIFAR-10 curve (64.9–68.3 %) cannot be raw pixels (the paper's "
                 "Table VI gives 51 % at d = 2000); ours is Green-ELM on raw pixels")
_CIFAR_MLP = ("the paper gives neither its CIFAR-10 MLP's width nor its schedule; ours is 3072-256-10, "
              "10 epochs")

#: (pattern, reason): keys that are comparable although a rule below would match them
EXCEPTIONS = (
    (r"/pinv-over-cholesky/",
     "two solvers' solve times on one H of the paper's shape (N = 50,000, d = 4,000): a solve's time "
     "depends on H's shape, not on the inputs that made H"),
)
#: (pattern, reason): keys measured in a setting that differs from the paper's
RULES = (
    (r"efficientnet-lite0/.*(^|/)accuracy$|^cifar10-efficientnet-lite0/.*/accuracy$", _BACKBONE),
    (r"^cifar10/green-elm/(?!unit/|random-conv/)[^/]+/pinv-minus-cholesky/.*accuracy-difference$",
     "two solvers' accuracies on a pretrained backbone's embeddings (ours EfficientNet-Lite0), not the paper's "
     "ResNet-18 features: how far the minimum-norm and the ridge solutions part depends on the features, as "
     "every Table II accuracy does"),
    (r"^cifar10/sgd-mlp/efficientnet-lite0/",
     "an SGD head on EfficientNet-Lite0 embeddings; the paper states neither its SGD head's inputs "
     "(ResNet-18's 512-d) nor its epochs"),
    (r"^cifar10/sgd-mlp/|sgd-mlp-over-fit-time-ratio", _CIFAR_MLP),
    (r"^cifar10/sgd-cnn/|over-sgd-cnn-time-ratio",
     "the paper describes neither its CNN nor its schedule; ours: two conv blocks (32, 64 channels), "
     "dense 128, 8 epochs"),
    (r"random-conv",
     "the paper does not describe its convolutional frontend; ours is a fixed random 5 × 5 "
     "convolution with 128 filters"),
    (r"^cifar10/green-elm/unit/cholesky/(nested-in-d=\d+/d=\d+/accuracy|d=(8000|16000)/accuracy"
     r"|algorithm2/|ln-d-fit/|saturating-fit/)|^cifar10/arccos-kernel/", _FIGURE_CIFAR),
    (r"/readout/column-entropy$", "the paper does not give the histogram's bins K; ours K = 256"),
    (r"/readout/column-symmetry$", "the paper never defines its geometry score G; ours is a "
                                   "reconstruction (quantile symmetry of the column's values)"),
)

#: (chapter, pattern, reason): keys not comparable for the claims of one chapter although they are for
#: others. The scaling chapter's CIFAR-10 claims compare with the scaling figure's CIFAR-10 curve,
#: which is not raw pixels; the same raw-pixel accuracy is comparable with Table VI (51 % at d = 2000)
#: in the CIFAR-10 chapter, which measures it once for both.
CHAPTER_RULES = (
    ("scaling", r"^cifar10/green-elm/unit/cholesky/d=\d+/accuracy$", _FIGURE_CIFAR),
)


def comparability(key: str, chapter: str | None = None) -> Comparability:
    """The comparability of result ``key`` as evidence for a claim of ``chapter`` (None: any claim):
    the rules of this module, exceptions first, then the rules of that chapter."""
    if chapter is not None:
        for rule_chapter, pattern, reason in CHAPTER_RULES:
            if rule_chapter == chapter and re.search(pattern, key):
                return Comparability(False, reason)
    for pattern, _ in EXCEPTIONS:
        if re.search(pattern, key):
            return Comparability(True)
    for pattern, reason in RULES:
        if re.search(pattern, key):
            return Comparability(False, reason)
    return Comparability(True)


def is_quiet_timing(setting: dict) -> bool:
    """Whether a stored timing's setting records it as quiet: a timing step of its own ("quiet" in
    its ``timing``) or the benchmark suite's fresh processes on a quiet machine
    (``source`` benchmarks/report.json)."""
    return "quiet" in str(setting.get("timing", "")) or setting.get("source") == "benchmarks/report.json"
