"""greenelm: an honest, fast reproduction of Green-ELM (random ReLU features + closed-form readout).

The public API::

    from greenelm import ELMClassifier, ELMRegressor, load_model, load_dataset
"""

from .estimator import ELMClassifier, ELMRegressor, load_model
from .features import RandomReLUFeatures
from .solvers import SOLVERS, GramSpectrum, NormalEquations, solve, solve_min_norm

__all__ = ["ELMClassifier", "ELMRegressor", "load_model", "load_dataset", "RandomReLUFeatures",
           "NormalEquations", "GramSpectrum", "solve", "solve_min_norm", "SOLVERS"]
__version__ = "0.1.0"


def load_dataset(*args, **kwargs):
    """See :func:`greenelm.data.load_dataset` (imported lazily)."""
    from .data import load_dataset as _load

    return _load(*args, **kwargs)
