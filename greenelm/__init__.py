"""greenelm: Green-ELM as a library — seeded random ReLU features and an exact closed-form readout.

The public API (imported on first use, so ``import greenelm`` itself loads nothing heavy)::

    from greenelm import ELMClassifier, ELMRegressor, load_model, load_dataset
    from greenelm import ELMClassifierCV, ELMRegressorCV, RandomReLUTransformer, StreamingRidge
    from greenelm import RandomPatchFeatures     # a frozen feature map for images
    from greenelm import KernelLimitClassifier, KernelLimitRegressor   # the d → ∞ limit: kernel ridge

Core dependencies: numpy, scipy, scikit-learn. Optional: torch (``device="cpu"``/``"cuda"``),
dask (:mod:`greenelm.distributed`), tqdm (progress bars).
"""

from __future__ import annotations

import importlib

__version__ = "0.2.0"

#: public name -> the module that defines it
_EXPORTS = {
    "ELMClassifier": "estimator", "ELMRegressor": "estimator", "load_model": "estimator",
    "ModelFileError": "estimator", "InterpolationThresholdWarning": "estimator",
    "ELMClassifierCV": "estimator", "ELMRegressorCV": "estimator",
    "RandomReLUFeatures": "features", "RandomReLUTransformer": "features",
    "RandomPatchFeatures": "patches",
    "KernelLimitClassifier": "kernel_limit", "KernelLimitRegressor": "kernel_limit",
    "NormalEquations": "solvers", "sum_block_rows": "solvers", "GramSpectrum": "solvers", "solve": "solvers",
    "solve_min_norm": "solvers", "SOLVERS": "solvers",
    "NumericalOverflowError": "solvers",
    "StreamingRidge": "streaming", "RidgePath": "model_selection",
    "load_dataset": "data",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'greenelm' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(__all__))
