"""Input checks shared by the library: one place for the words of every error.

Each check returns the value in its canonical type or raises ``ValueError`` (``TypeError`` for a
value of the wrong kind) naming the parameter and what it got.
"""

from __future__ import annotations

import numbers

import numpy as np


def check_choice(name: str, value, choices) -> None:
    """Raise ``ValueError`` naming the parameter when ``value`` is not one of ``choices``."""
    if not isinstance(value, str) or value not in choices:
        raise ValueError(f"unknown {name} {value!r}; choose one of {', '.join(map(repr, choices))}")


def check_positive_int(name: str, value) -> int:
    """Return ``value`` as int, or raise ``ValueError`` unless it is an integer ≥ 1."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ValueError(f"{name} must be an integer >= 1, got {value!r}")
    return int(value)


def check_alpha(alpha) -> float:
    """Return the ridge strength λ as a float, refusing negative, NaN, infinite or non-numbers."""
    if isinstance(alpha, bool) or not isinstance(alpha, numbers.Real):
        raise ValueError(f"alpha (the ridge λ) must be a finite number >= 0, got {alpha!r}")
    alpha = float(alpha)
    if not np.isfinite(alpha) or alpha < 0:
        raise ValueError(f"alpha (the ridge λ) must be a finite number >= 0, got {alpha!r}")
    return alpha


def seed_from_random_state(random_state) -> int:
    """The integer seed (0 ≤ seed < 2³²) a ``random_state`` stands for, as scikit-learn accepts it.

    ``None`` draws a fresh seed from the OS; an int is the seed itself; a ``RandomState`` or a
    ``Generator`` gives one draw (so the same generator state gives the same seed, and the
    estimator records that seed in ``seed_`` so a saved model rebuilds the same projection).
    """
    if random_state is None:
        return int(np.random.SeedSequence().generate_state(1)[0])
    if isinstance(random_state, (int, np.integer)) and not isinstance(random_state, bool):
        if not 0 <= int(random_state) < 2**32:
            raise ValueError(f"random_state must be an int in [0, 2**32), got {random_state!r}")
        return int(random_state)
    if isinstance(random_state, np.random.RandomState):
        return int(random_state.randint(0, 2**32, dtype=np.uint64))
    if isinstance(random_state, np.random.Generator):
        return int(random_state.integers(0, 2**32, dtype=np.uint64))
    raise ValueError("random_state must be None, an int seed, a numpy.random.RandomState or a "
                     f"numpy.random.Generator, got {random_state!r}")
