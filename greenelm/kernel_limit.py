"""The infinitely wide Green-ELM as scikit-learn estimators: arc-cosine kernel ridge.

:class:`KernelLimitClassifier` and :class:`KernelLimitRegressor` fit the d → ∞ limit of the random
ReLU ELM (:mod:`greenelm.kernels`): with K the degree-1 arc-cosine kernel of the inputs augmented
with the bias, ``x̃ = [σ_w x, σ_b]`` (σ_w = 1 for ``weight_scale="unit"``, √(2/D) for ``"he"``; σ_b =
1, the ELM's ``bias="normal"``), they solve ``(K + μI) A = Y`` for the N training rows and predict
``K(X_test, X_train) A``, μ = jitter · mean(diag K).

* **Float32, in place.** K (N × N float32, 4·N² bytes: 10 GB at N = 50,000) is built in row blocks
  and factorised where it lies by :func:`greenelm.kernels.cholesky_inplace`; the model keeps the
  training rows (float32) and A (N × k float32). Before anything large is allocated the memory plan
  (:func:`fit_memory`, :func:`predict_memory`) is checked against the memory available, and a
  ``MemoryError`` names every part's size.
* **Views.** ``views`` (functions X → X', each row mapped alone) average the kernel over views of
  each input: ``K̄(x, z) = mean over a, b of K(v_a(x), v_b(z))`` (e.g. ``[features, features ∘ mirror]``
  for an image and its mirror image), the kernel of the random ReLU features of every view, at N rows.
  The views are applied to blocks of ``block_rows`` rows, at ``fit`` and at ``predict``.
  ``symmetric_views=True`` declares that the views form a group acting on the features as column
  permutations (e.g. ``[features, features ∘ mirror]`` of a map that commutes with the mirror,
  :class:`~greenelm.RandomPatchFeatures` with ``mirror_symmetric=True``): then
  ``K̄(x, z) = mean over a of K(v_a(x), v_0(z))``, so the training and the test kernels cost V products
  instead of V², and the model keeps only the first view's training rows. ``fit`` checks the
  declaration on its first rows (:data:`SYMMETRY_CHECK_ROWS`: the V-product and V² kernels of their
  block agree within :data:`SYMMETRY_RTOL` of its largest value) and refuses views that fail it. Shifts
  with zero fill do not commute with a patch map (the border): views with shifts keep the V² kernel.
* **On a GPU.** ``device`` (a torch device) builds the kernel, chooses the jitter, factorises and
  predicts there (:mod:`greenelm._kernel_torch`, the same arithmetic, in float64 before the kernel is stored in float32); the views and the
  fitted arrays stay on the host.
* **Depth.** ``depth`` composes the arc-cosine kernel (Cho and Saul, 2009; :mod:`greenelm.kernels`):
  the limit of ``depth`` ReLU layers, elementwise work on each view pair's kernel before averaging;
  depth 1 is the kernel above.
* **The jitter** is given (a float; ``attempts`` > 1 retries a failed factorisation at ×10 from a
  copy of the kernel spilled to disk) or chosen among a list on held-out *training* rows of the same
  kernel (:func:`held_out_rows`: a seeded permutation, ``random_state``), then the ridge at the
  chosen one is fitted on all N rows (:func:`greenelm.kernels.held_out_choice`).

Model files (:meth:`KernelLimitClassifier.save`, :func:`greenelm.load_model`) are format 4 of the
library's ``.npz`` of plain arrays and one JSON ``meta`` with a content digest: the training rows
``train_rows`` (V, N, D') float32, the coefficients ``coef`` (N, k) float32, the labels and feature
names. View functions are code, which a model file never holds: a model fitted with views is saved
with their number, and after loading takes them again from its ``views`` parameter
(``model.set_params(views=[...])``, the same functions in the same order). With ``symmetric_views``
(recorded with the parameters) ``train_rows`` holds the first view only, (1, N, D'); files written
before ``symmetric_views`` and ``depth`` existed load with them False and 1.
"""

from __future__ import annotations

import json
import math
import numbers
import re
import time
import warnings

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from . import _persistence as persistence
from ._progress import progress_bar
from ._threads import blas_threads, object_lock, one_fit_at_a_time
from ._validation import (check_choice, check_device, check_finite_fit, check_positive_int, require_memory,
                          seed_from_random_state, warn_on_grid_edge)
from .features import WEIGHT_SCALES, row_chunks
from .kernels import (ARCCOS_THREADED_TILES, ARCCOS_TILE_VALUES, _augmented_norms, _averaged_block,
                      _averaged_kernel, _solve_with_retries, accuracy_score_of_argmax, held_out_choice,
                      weight_sigma)

#: rows of the kernel built, and of test rows mapped through the views, at a time
DEFAULT_BLOCK_ROWS = 1024
#: the order of the diagonal blocks the in-place Cholesky factorises (greenelm.kernels.cholesky_inplace)
CHOLESKY_BLOCK = 8192
#: the first training rows on which ``symmetric_views=True`` is checked (their V-product and V² kernels)
SYMMETRY_CHECK_ROWS = 128
#: how far those two kernels may differ, relative to the block's largest value: float32 rounding of
#: products over permuted columns stays below 1e-6 at D' = 18,432; views that are no group differ by
#: far more
SYMMETRY_RTOL = 1e-4
#: columns of a block of the test kernel cast to float64 at a time for the scores ``K̄(x, X_fit) A``
SCORE_COLUMNS = 4096
#: how far a row's scores may move with the rows predicted beside it, in float32 roundings of each of
#: their terms: |Δ score_k(x)| ≤ BATCH_ROUNDINGS · eps32 · Σ_j |K̄(x, x_j) A_jk|. The scores are summed
#: in float64 (float32 sums moved them by up to N roundings: 1e-3 on scikit-learn's digits); what is
#: left is the float32 kernel's own rounding, which BLAS may round differently for a row alone (sgemv)
#: than within a block (sgemm), amplified by the coefficients A (large at a small jitter).
#: tests/test_hostile_inputs.py measures at most 1.2 roundings
BATCH_ROUNDINGS = 4

#: why the kernel-limit estimators fail a generic scikit-learn check, by check
FLOAT32_ROWS = ("the kernel is float32: a row alone and within a block go through different BLAS kernels "
                "(sgemv, sgemm), whose roundings differ beyond the check's 1e-7")


def expected_failed_checks(estimator) -> dict[str, str]:
    """The generic scikit-learn checks a :class:`KernelLimitClassifier` / :class:`KernelLimitRegressor`
    is expected to fail, each with its reason: pass it as ``expected_failed_checks=`` to
    ``sklearn.utils.estimator_checks.check_estimator`` or ``parametrize_with_checks`` (scikit-learn
    ≥ 1.6), as :func:`greenelm.patches.expected_failed_checks`."""
    return {"check_methods_subset_invariance": FLOAT32_ROWS}


def _refuse_overflowing_norms(owner: str, norms: list) -> None:
    """Refuse training rows whose squared augmented norms ‖x̃‖² (``norms``: ‖x̃‖ per row of each view,
    float64), summed over the N rows as the float32 kernel and its factorisation sum them, leave float32."""
    n, largest = len(norms[0]), max(float(np.max(view)) for view in norms)
    if not largest ** 2 * n < float(np.finfo(np.float32).max):
        raise ValueError(f"{owner}: the training rows' largest squared norm ‖x̃‖² = {largest ** 2:.3g}, summed over "
                         f"the N = {n:,} rows, leaves float32 (the kernel's type, up to 3.4e38): the kernel would "
                         "hold inf and NaN. Scale X down (e.g. pixels to [0, 1], or columns to unit variance)")


# -- parameters ------------------------------------------------------------------------------
def _check_jitter(jitter) -> float | list[float]:
    """``jitter`` as a float >= 0 (given) or a non-empty list of them (to choose from); else ValueError."""
    def one(value, name="jitter"):
        if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(value) or value < 0:
            raise ValueError(f"{name} must be a finite number >= 0 (or a list of them to choose from on "
                             f"held-out rows), got {value!r}")
        return float(value)

    if isinstance(jitter, np.ndarray) and jitter.ndim == 0:
        return one(jitter.item())
    if isinstance(jitter, (list, tuple, np.ndarray)):
        if len(jitter) == 0:
            raise ValueError("jitter is an empty list: give a number, or a non-empty list of candidates "
                             "to choose from on held-out rows")
        return [one(value, "each jitter of the list") for value in np.asarray(jitter, dtype=object).ravel()]
    return one(jitter)


def _check_size(name: str, value, allow_none: bool = False):
    """A row count (int >= 1) or a fraction (float in (0, 1)); None when allowed."""
    if value is None and allow_none:
        return None
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        if value < 1:
            raise ValueError(f"{name} must be a number of rows >= 1 or a fraction in (0, 1), got {value!r}")
        return int(value)
    if isinstance(value, numbers.Real) and not isinstance(value, bool) and 0 < value < 1:
        return float(value)
    raise ValueError(f"{name} must be a number of rows >= 1 or a fraction in (0, 1)"
                     f"{' or None' if allow_none else ''}, got {value!r}")


def _check_views(views) -> list | None:
    """``views`` as a non-empty list of callables, or None (the kernel on X itself)."""
    if views is None:
        return None
    if callable(views):
        return [views]
    if isinstance(views, (list, tuple)) and views and all(callable(view) for view in views):
        return list(views)
    raise ValueError("views must be None, a function X (n, D) -> X' (n, D') or a non-empty list of such "
                     f"functions, got {views!r}")


def held_out_rows(n_rows: int, fit_size, validation_size, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """The fitted and held-out training rows of the jitter's choice: the first n_fit and the next
    n_validation of seed ``seed``'s permutation of ``n_rows``, each sorted (int64). A size is a row
    count or a fraction of the rows (the held-out count rounded up, the fitted one down);
    ``fit_size`` None takes every row not held out."""
    validation_size = _check_size("validation_size", validation_size)
    fit_size = _check_size("fit_size", fit_size, allow_none=True)
    n_validation = (math.ceil(validation_size * n_rows) if isinstance(validation_size, float)
                    else validation_size)
    n_fit = (n_rows - n_validation if fit_size is None else
             math.floor(fit_size * n_rows) if isinstance(fit_size, float) else fit_size)
    if n_fit < 1 or n_validation < 1 or n_fit + n_validation > n_rows:
        raise ValueError(f"choosing the jitter on held-out rows needs at least 1 fitted and 1 held-out row "
                         f"among the {n_rows} training rows (got {n_rows} sample(s): fit_size={fit_size!r} "
                         f"gives {n_fit}, validation_size={validation_size!r} gives {n_validation}); give "
                         "one jitter, or more rows")
    order = np.random.default_rng(seed).permutation(n_rows)
    return np.sort(order[:n_fit]).astype(np.int64), np.sort(order[n_fit:n_fit + n_validation]).astype(np.int64)


# -- memory plans ----------------------------------------------------------------------------
def _transform_bytes(n_rows: int, n_cols: int) -> int:
    """Temporaries of the arc-cosine transform of one (n_rows, n_cols) block: whole for a small block,
    else a tile per BLAS thread at a time (float64 outer product, then three float32 arrays)."""
    values = n_rows * n_cols
    if values >= ARCCOS_THREADED_TILES * ARCCOS_TILE_VALUES:
        values = ARCCOS_TILE_VALUES * min(blas_threads(), math.ceil(values / ARCCOS_TILE_VALUES))
    return 20 * values


def _cholesky_bytes(n: int, block: int) -> int:
    """Temporaries of :func:`greenelm.kernels.cholesky_inplace` on an (n, n) float32 matrix: LAPACK's
    copy of a diagonal block (order b = min(n, block)), and beside it a panel block's transposed copy
    and its solve (2 · b · min(b, n − b)) or a trailing update's product (≤ b²)."""
    b = min(int(n), int(block))
    return 4 * b * b + 4 * max(2 * b * min(b, int(n) - b), min(b, int(n) - b) ** 2)


def fit_memory(n_rows: int, width: int, n_views: int, n_outputs: int, block_rows: int = DEFAULT_BLOCK_ROWS,
               n_fit: int = 0, n_validation: int = 0, symmetric_views: bool = False,
               cholesky_block: int = CHOLESKY_BLOCK) -> dict[str, int]:
    """Bytes of each allocation ``fit`` makes beyond its input X, before it makes any: {words: bytes}.

    N = ``n_rows`` training rows of ``n_views`` views ``width`` wide, k = ``n_outputs``; ``n_fit`` and
    ``n_validation`` > 0 when the jitter is chosen on held-out rows (their block of the kernel is copied
    once per jitter). Beside the kernel, the rows and the targets, which live throughout, the stages
    (the kernel's build, the held-out choice, the factorisation) run one after another: the plan counts
    the temporaries of the largest, named; ``symmetric_views``: the first view's rows are copied out to
    be kept once the kernel is freed, so they count only where the rows, the targets and that copy
    together exceed the fit's peak."""
    n, v, k = int(n_rows), int(n_views), int(n_outputs)
    m = min(int(block_rows), n)
    blocks = 3 if v > 1 else 1          # a view pair's products beside the last pair's and the running mean
    parts = {f"the kernel (N × N float32, N = {n:,})": 4 * n * n,
             f"the training rows ({v} view(s) × N × {width:,} float32)": 4 * v * n * int(width),
             f"targets, scores and coefficients (N × {k}: float64, float64 and float32)": 20 * n * k}
    stages = {f"a block of kernel rows ({blocks} × {m:,} × N float32, with the arc-cosine's temporaries)":
                  4 * blocks * m * n + _transform_bytes(m, n),
              f"the Cholesky's copy of a diagonal block (order {min(n, int(cholesky_block)):,} float32) and "
              "a panel's": _cholesky_bytes(n, cholesky_block)}
    if n_fit:
        mv = min(int(block_rows), int(n_validation))
        stages[f"the held-out choice (the {n_fit:,} fitted rows' block, {n_fit:,}² float32, its Cholesky's "
               f"copies, and a {mv:,} × {n_fit:,} block of the held-out rows')"] = (
                   4 * n_fit * n_fit + _cholesky_bytes(n_fit, cholesky_block) + 18 * mv * n_fit)
    largest = max(stages, key=stages.get)
    parts[largest] = stages[largest]
    if symmetric_views and v > 1:       # copied after the kernel is freed: beside the rows and targets only
        after = 4 * v * n * int(width) + 20 * n * k + 4 * n * int(width)
        beyond = after - sum(parts.values())
        if beyond > 0:
            parts[f"the first view's rows, kept once the kernel is freed (N × {width:,} float32), beyond the "
                  "fit's peak"] = beyond
    return parts


def device_fit_memory(n_rows: int, width: int, n_views: int, n_outputs: int, block_rows: int = DEFAULT_BLOCK_ROWS,
                      n_fit: int = 0, n_validation: int = 0, symmetric_views: bool = False) -> dict[str, int]:
    """Bytes on the device (``device`` set) of each allocation ``fit`` makes there, before it makes any:
    the training views (freed once the kernel is built), the kernel (N × N float32), the system promoted to
    float64 and its Cholesky factor (N × N float64 each: the device factorises in float64), a block of kernel rows with the arc-cosine's temporaries, the held-out choice's block and its
    factor; the views and the choice do not live at once with the factor, so the larger stage is counted."""
    n, v, k, m = int(n_rows), int(n_views), int(n_outputs), min(int(block_rows), int(n_rows))
    parts = {f"the kernel (N × N float32, N = {n:,})": 4 * n * n,
             f"targets and coefficients (N × {k}: float64 and float32)": 12 * n * k}
    stages = {f"the training rows ({v} view(s) × N × {int(width):,} float32) and a block of kernel rows "
              f"({m:,} × N, with the arc-cosine's temporaries; float64 on the device)": 8 * v * n * int(width) + 64 * m * n,
              "the factorisation (the system and its Cholesky factor, N × N float64 each)": 16 * n * n}
    if n_fit:
        stages[f"the held-out choice (the {int(n_fit):,} fitted rows' block in float32, its float64 copy and "
               f"factor, {int(n_fit):,}² each, and the {int(n_validation):,} held-out rows' block in float64)"] = (
                   20 * int(n_fit) ** 2 + 8 * int(n_validation) * int(n_fit))
    largest = max(stages, key=stages.get)
    parts[largest] = stages[largest]
    return parts


def predict_memory(n_rows: int, n_train: int, width: int, n_views: int, n_outputs: int,
                   block_rows: int = DEFAULT_BLOCK_ROWS) -> dict[str, int]:
    """Bytes of each allocation ``predict`` makes for ``n_rows`` test rows, before it makes any. A block of
    the test kernel lives while it is built and while its scores are summed; the two stages run one after
    the other, so the plan counts the temporaries of the larger, named."""
    n, v, m, k = int(n_train), int(n_views), min(int(block_rows), int(n_rows)), int(n_outputs)
    parts = {f"test kernel blocks (one of {m:,} × N float32, N = {n:,}, at a time)": 4 * m * n,
             f"a block of test rows' views ({v} × {m:,} × {width:,} float32, and a view's own output in float64)":
                 4 * v * m * int(width) + 8 * m * int(width),
             f"the scores ({int(n_rows):,} × {k} float64) and the coefficients in float64 (N × {k})":
                 8 * int(n_rows) * k + 8 * n * k}
    extra = 2 if v > 1 else 0           # as in fit_memory: a view pair's products beside the last pair's
    stages = {f"the block's build ({extra} more × {m:,} × N float32, with the arc-cosine's temporaries)":
                  4 * extra * m * n + _transform_bytes(m, n),
              f"the scores' sums (a float64 copy of {m:,} × {min(n, SCORE_COLUMNS):,} kernel values)":
                  8 * m * min(n, SCORE_COLUMNS)}
    largest = max(stages, key=stages.get)
    parts[largest] = stages[largest]
    return parts


# -- the estimators --------------------------------------------------------------------------
#: the private attributes of a fitted model (besides its public ``name_`` ones)
_MODEL_STATE = ("_norms", "_fitted_views", "_fitted_params", "_n_view_functions", "_single_output")


class _KernelLimitBase(BaseEstimator):
    """Shared fit/predict; subclasses turn targets into Y (N, k) and scores into predictions."""

    def __init__(self, jitter=1e-3, weight_scale="unit", views=None, validation_size=0.2, fit_size=None,
                 random_state=0, attempts=1, block_rows=DEFAULT_BLOCK_ROWS, progress=False, symmetric_views=False,
                 depth=1, device=None):
        self.jitter = jitter
        self.weight_scale = weight_scale
        self.views = views
        self.validation_size = validation_size
        self.fit_size = fit_size
        self.random_state = random_state
        self.attempts = attempts
        self.block_rows = block_rows
        self.progress = progress
        self.symmetric_views = symmetric_views
        self.depth = depth
        self.device = device

    def _check_params(self) -> None:
        jitter = _check_jitter(self.jitter)
        check_choice("weight_scale", self.weight_scale, WEIGHT_SCALES)
        _check_views(self.views)
        _check_size("validation_size", self.validation_size)
        _check_size("fit_size", self.fit_size, allow_none=True)
        attempts = check_positive_int("attempts", self.attempts)
        if attempts > 1 and isinstance(jitter, list):
            raise ValueError(f"attempts > 1 retries a given jitter at ×10; a list of jitters is chosen from "
                             f"instead (got attempts={attempts} with jitter={self.jitter!r})")
        if attempts > 1 and jitter == 0:
            raise ValueError(f"attempts={attempts} retries at the jitter × 10, which stays 0: give a jitter > 0 "
                             "to retry from (e.g. jitter=1e-6), or attempts=1 for the unregularised fit alone")
        check_positive_int("block_rows", self.block_rows)
        if not isinstance(self.progress, (bool, np.bool_)):
            raise ValueError(f"progress must be True or False, got {self.progress!r}")
        if not isinstance(self.symmetric_views, (bool, np.bool_)):
            raise ValueError(f"symmetric_views must be True or False, got {self.symmetric_views!r}")
        check_positive_int("depth", self.depth)
        check_device(self.device)

    # -- views -----------------------------------------------------------------------------
    def _views_now(self) -> list | None:
        """The view functions predict applies: those of the fit, or, for a model loaded from a file
        (which holds no code), the ``views`` parameter, which must give as many."""
        fitted = self.__dict__.get("_fitted_views", False)
        if fitted is not False:
            return fitted
        views = _check_views(self.views)
        if self._n_view_functions == 0:
            if views is not None:
                raise ValueError(f"this model was fitted without views, but views={self.views!r} is set; "
                                 "set views=None (or fit again with the views)")
            return None
        if views is None or len(views) != self._n_view_functions:
            raise ValueError(f"this model was fitted with {self._n_view_functions} view function(s), which a model "
                             "file cannot hold (it holds data, never code): give them again, the same functions "
                             f"in the same order, with model.set_params(views=[...]) (got views={self.views!r})")
        return views

    def _map_rows(self, X, views, out: np.ndarray, sigma: np.float32, first_row: int = 0) -> None:
        """Write the views of the rows X (m, D) into ``out`` (V, m, D') float32, scaled by σ_w in place."""
        for v, view in enumerate([None] if views is None else views):
            mapped = X if view is None else _view_output(view, X, v, out.shape[2], first_row)
            np.multiply(mapped, sigma, out=out[v], casting="same_kind")     # copied and scaled in one pass
        if not np.isfinite(out).all():
            raise ValueError(f"{'X' if views is None else 'the views of X'} in rows {first_row}–"
                             f"{first_row + len(X) - 1} hold values beyond float32's range (or NaN or inf)")

    # -- fitting ---------------------------------------------------------------------------
    def _fit_aside(self, X, y):
        """Fit a fresh estimator of the same parameters (``_fit``), then publish its model here in
        one step, under the object's lock: a reader meanwhile sees the previous model whole (or none),
        a second fit of this object meanwhile is refused (:func:`one_fit_at_a_time`), and a failed
        fit leaves this estimator unfitted."""
        with one_fit_at_a_time(self, "fit"):
            params = self.get_params(deep=False)
            fresh = type(self)(**params)
            try:
                fresh._fit(X, y)
            except BaseException:
                self._publish({})
                raise
            self._publish({name: value for name, value in vars(fresh).items() if name not in params})
        return self

    def _publish(self, model: dict) -> None:
        """Replace the model (the fitted attributes, ``name_``, and the private ones a fit sets) by
        ``model``'s, in one assignment; the parameters and anything else (e.g. what a meta-estimator
        attached) stay."""
        with object_lock(self):
            state = {name: value for name, value in vars(self).items()
                     if not (name in _MODEL_STATE or name.endswith("_") and not name.startswith("__"))}
            state.update(model)
            self.__dict__ = state

    def _published(self):
        """The model as last published: a shallow copy of this estimator, read under its lock (a
        refit in another thread replaces the model at once when it ends); ``NotFittedError`` if none."""
        with object_lock(self):
            model = object.__new__(type(self))
            model.__dict__.update(vars(self))
        check_is_fitted(model, "dual_coef_")
        return model

    def _fit_targets(self, X, Y: np.ndarray, score) -> None:
        """Fit on X (N, D) (validated) and Y (N, k) float64, choosing a listed jitter by ``score``."""
        self._check_params()
        jitter = _check_jitter(self.jitter)
        views = _check_views(self.views)
        block_rows = int(self.block_rows)
        n = len(X)
        self.seed_ = seed_from_random_state(self.random_state)
        fit_rows = validation_rows = None
        if isinstance(jitter, list):
            fit_rows, validation_rows = held_out_rows(n, self.fit_size, self.validation_size, self.seed_)
        first = slice(0, min(block_rows, n))       # the views' width, from the first block (cheap)
        width = X.shape[1] if views is None else _view_output(views[0], X[first], 0, None, 0).shape[1]
        n_views = 1 if views is None else len(views)
        symmetric = bool(self.symmetric_views) and n_views > 1
        n_fit, n_validation = (0, 0) if fit_rows is None else (len(fit_rows), len(validation_rows))
        hint = ("the kernel is N × N: fit on fewer rows, or use the finite-width ELM estimators, whose memory "
                "does not grow with N")
        if self.device is None:
            parts = fit_memory(n, width, n_views, Y.shape[1], block_rows, n_fit, n_validation, symmetric)
        else:       # the host holds the rows and the targets; the kernel lies on the device
            parts = {name: size for name, size in fit_memory(n, width, n_views, Y.shape[1]).items()
                     if name.startswith(("the training rows", "targets"))}
            require_memory(device_fit_memory(n, width, n_views, Y.shape[1], block_rows, n_fit, n_validation,
                                             symmetric),
                           f"{type(self).__name__}.fit on {n:,} rows on {self.device}", device=self.device,
                           hint=hint)
        require_memory(parts, f"{type(self).__name__}.fit on {n:,} rows", hint=hint)
        sigma = np.float32(weight_sigma(self.weight_scale, width))
        train = np.empty((n_views, n, width), dtype=np.float32)
        for rows in row_chunks(n, block_rows):
            self._map_rows(X[rows], views, train[:, rows], sigma, rows.start)
        train_views = list(train)
        norms = [_augmented_norms(view) for view in train_views]
        _refuse_overflowing_norms(f"{type(self).__name__}.fit", norms)
        depth = int(self.depth)
        if symmetric:
            _check_symmetric_views(train_views, norms, depth)
        if self.device is None:
            fitted = self._fit_on_host(train_views, norms, Y, jitter, fit_rows, validation_rows, score, symmetric)
        else:
            from ._kernel_torch import fit_on_device

            fitted = fit_on_device(train_views, norms, Y, jitter, fit_rows, validation_rows, score, symmetric,
                                   depth, block_rows, int(self.attempts), check_device(self.device))
        self.validation_scores_ = fitted["validation_scores"]
        if self.validation_scores_ is not None:
            warn_on_grid_edge(type(self).__name__, "jitter_", fitted["jitter"], self.jitter, "jitter", "jitter",
                              stacklevel=6)
        coef, mu, last, used = fitted["coef"], fitted["mu"], fitted["jitter"], fitted["attempts"]
        if coef is None:
            raise np.linalg.LinAlgError(f"the arc-cosine kernel of the {n:,} rows plus μI did not factorise in "
                                        f"{used} attempt(s), the last at jitter {last:g}: raise the jitter"
                                        + ("" if int(self.attempts) > 1 or last == 0 else " (or pass attempts > 1)"))
        check_finite_fit(f"{type(self).__name__}.fit", {"dual_coef_": coef, "mu_": mu},
                         "μ = jitter · mean(diag K̄) or the kernel's sums overflowed, or the factorisation lost "
                         "all precision", "scale X down (e.g. pixels to [0, 1]) and give a moderate jitter (1e-8 to 1e3)")
        if symmetric:                   # the test kernel reads the first view's rows only
            train, norms = train[:1].copy(), norms[:1]
        self.X_fit_, self.dual_coef_, self._norms = train, coef, norms
        self.jitter_, self.mu_, self.attempts_ = float(last), float(mu), int(used)
        self.n_views_ = n_views
        self._n_view_functions = 0 if views is None else n_views
        self._fitted_views = views
        self._fitted_params = self.get_params(deep=False)
        self.fit_seconds_ = fitted["seconds"]

    def _fit_on_host(self, train_views, norms, Y, jitter, fit_rows, validation_rows, score, symmetric) -> dict:
        """The NumPy fit: the kernel's lower triangle in place, the held-out choice of a listed jitter, the
        factorisation (with retries); the same dict as :func:`greenelm._kernel_torch.fit_on_device`."""
        block_rows = int(self.block_rows)
        clock = [time.perf_counter()]
        kernel = _averaged_kernel(train_views, norms, block_rows, bool(self.progress), symmetric, int(self.depth))
        clock.append(time.perf_counter())
        validation_scores = None
        if fit_rows is not None:
            jitter, validation_scores, _ = held_out_choice(kernel, Y, jitter, fit_rows, validation_rows,
                                                           score, block_rows, progress=bool(self.progress))
        coef, mu, last, used = _solve_with_retries(kernel, Y, jitter, int(self.attempts), CHOLESKY_BLOCK,
                                                   bool(self.progress), None)
        del kernel
        clock.append(time.perf_counter())
        return {"coef": coef, "mu": mu, "jitter": last, "attempts": used, "validation_scores": validation_scores,
                "seconds": dict(zip(["kernel", "fit"], np.diff(clock).tolist()))}

    # -- prediction ------------------------------------------------------------------------
    def _scores(self, X) -> np.ndarray:
        """``K̄(X, X_fit) A`` (M, k) float64, in blocks of rows."""
        check_is_fitted(self, "dual_coef_")
        X = validate_data(self, X, reset=False, dtype=(np.float64, np.float32))
        views = self._views_now()
        params = self.__dict__.get("_fitted_params") or self.get_params(deep=False)
        block_rows = int(params["block_rows"])
        _, n, width = self.X_fit_.shape
        n_views = self.n_views_                 # X_fit_ holds the first view only with symmetric_views
        require_memory(predict_memory(len(X), n, width, n_views, self.dual_coef_.shape[1], block_rows),
                       f"{type(self).__name__}.predict on {len(X):,} rows", hint="predict fewer rows at a time")
        if self.device is not None:         # the training rows and a block of the test kernel on the device
            m = min(block_rows, len(X))
            require_memory({f"the training rows ({len(self.X_fit_)} × N × {width:,} float64 on the device, N = {n:,})":
                                2 * self.X_fit_.nbytes,
                            f"a block of the test kernel ({m:,} × N float64, with the arc-cosine's temporaries)":
                                64 * m * n},
                           f"{type(self).__name__}.predict on {self.device}", device=self.device,
                           hint="predict fewer rows at a time (block_rows)")
        sigma = np.float32(weight_sigma(params["weight_scale"], width))
        train_views = list(self.X_fit_)
        device = check_device(self.device)
        if device is not None:
            from ._kernel_torch import scores_on_device, to_device

            train_views, train_norms = to_device(train_views, self._norms, device)
        coef = self.dual_coef_.astype(np.float64)      # scores summed in float64: see BATCH_ROUNDINGS
        scores = np.empty((len(X), self.dual_coef_.shape[1]))
        test = np.empty((n_views, min(block_rows, len(X)), width), dtype=np.float32)
        for rows in progress_bar(list(row_chunks(len(X), block_rows)), desc="test kernel",
                                 disable=not params["progress"]):
            block = test[:, :rows.stop - rows.start]
            self._map_rows(X[rows], views, block, sigma, rows.start)
            test_norms = [_augmented_norms(view) for view in block]
            if device is not None:
                scores[rows] = scores_on_device(list(block), train_views, test_norms, train_norms,
                                                self.dual_coef_, int(params["depth"]), device, SCORE_COLUMNS)
                continue
            kernel = _averaged_block(list(block), train_views, test_norms, self._norms,
                                     int(params["depth"]))
            scores[rows] = 0.0
            for columns in row_chunks(n, SCORE_COLUMNS):
                scores[rows] += kernel[:, columns].astype(np.float64) @ coef[columns]
            del kernel                  # before the next block is built: one block of the test kernel at a time
        if not np.isfinite(scores).all():
            raise ValueError("the kernel ridge's scores hold NaN or inf (the inputs' norms overflow float32?)")
        return scores

    def __getstate__(self):
        with object_lock(self):
            state = dict(super().__getstate__())
        state.pop("_norms", None)       # recomputed from X_fit_ (same values)
        return state

    def __setstate__(self, state):
        super().__setstate__(state)
        if "X_fit_" in self.__dict__:
            self._norms = [_augmented_norms(view) for view in self.X_fit_]

    # -- persistence -----------------------------------------------------------------------
    def save(self, path):
        """Write the fitted model to ``path`` (.npz of plain arrays and a JSON meta, format 4) atomically,
        or into a binary file object; returns it. The view functions are not saved (see the module)."""
        return self._published()._save(path)

    def _save(self, path):
        params = dict(self.__dict__.get("_fitted_params") or self.get_params(deep=False))
        params["views"] = None
        if isinstance(params["jitter"], (list, tuple, np.ndarray)):
            params["jitter"] = [float(value) for value in np.asarray(params["jitter"], dtype=np.float64).ravel()]
        if params["random_state"] is not None and not isinstance(params["random_state"], (int, np.integer)):
            params["random_state"] = int(self.seed_)    # a generator: the seed it gave
        params["progress"] = bool(params["progress"])
        params["device"] = None if self.device is None else str(self.device)    # where it runs now
        arrays = {"train_rows": self.X_fit_, "coef": np.asarray(self.dual_coef_, dtype=np.float32)}
        meta = {"format_version": persistence.KERNEL_LIMIT_FORMAT, "class": type(self).__name__,
                "params": params, "seed": int(self.seed_), "n_features_in": int(self.n_features_in_),
                "n_outputs": int(self.dual_coef_.shape[1]), "n_views": int(self._n_view_functions),
                "fitted": {"jitter": self.jitter_, "mu": self.mu_, "attempts": self.attempts_,
                           "validation_scores": self.validation_scores_},
                "single_output": None, "classes": None, "feature_names": hasattr(self, "feature_names_in_")}
        if hasattr(self, "classes_"):
            arrays["classes"], as_object = persistence.encode_labels(self.classes_)
            meta["classes"] = {"object": as_object}
        else:
            meta["single_output"] = bool(self._single_output)
        if meta["feature_names"]:
            arrays["feature_names_in"] = np.asarray(self.feature_names_in_, dtype=str)
        meta = json.loads(json.dumps(meta, default=persistence._json_value, allow_nan=False))
        return persistence.save_archive(path, meta, arrays)


def _check_symmetric_views(train_views, norms, depth: int = 1) -> None:
    """``symmetric_views=True`` checked on the first :data:`SYMMETRY_CHECK_ROWS` rows of the σ_w-scaled
    views (V arrays (N, D') float32, their norms): their V-product kernel block, mean over a of
    K(v_a(x), v_0(z)), must equal the V² one within :data:`SYMMETRY_RTOL` of its largest value; else
    ValueError (the views are no group of column permutations)."""
    m = min(SYMMETRY_CHECK_ROWS, len(train_views[0]))
    rows, row_norms = [view[:m] for view in train_views], [norm[:m] for norm in norms]
    full = _averaged_block(rows, rows, row_norms, row_norms, depth)
    folded = _averaged_block(rows, rows[:1], row_norms, row_norms[:1], depth)
    gap, scale = float(np.abs(full - folded).max()), float(np.abs(full).max())
    if not gap <= SYMMETRY_RTOL * scale:
        raise ValueError(f"symmetric_views=True declares that the {len(rows)} views form a group acting on the "
                         "features as column permutations (e.g. [features, features of the mirror image] of "
                         f"RandomPatchFeatures(mirror_symmetric=True)), but on the first {m} rows the kernel of "
                         f"{len(rows)} products differs from the kernel of {len(rows) ** 2} by {gap:.3g}, beyond "
                         f"{SYMMETRY_RTOL:g} of its largest value {scale:.3g}: these views are no such group "
                         "(shifts, at the border, never are); set symmetric_views=False")


def _view_output(view, X, index: int, width, first_row: int) -> np.ndarray:
    """``view(X)`` checked: a finite numeric (m, D') array with m = len(X) and D' = ``width`` (None: any)."""
    out = view(X)
    try:
        out = np.asarray(out)
    except (TypeError, ValueError, RuntimeError) as error:
        raise ValueError(f"views[{index}] returned {type(out).__name__}, not an array: {error}") from error
    if out.dtype.kind not in "biuf":
        raise ValueError(f"views[{index}] returned an array of dtype {out.dtype}; views must return numbers")
    if out.ndim != 2 or out.shape[0] != len(X) or (width is not None and out.shape[1] != width) or out.shape[1] == 0:
        expected = f"({len(X)}, {'D′' if width is None else width})"
        raise ValueError(f"views[{index}] returned shape {out.shape} for rows {first_row}–{first_row + len(X) - 1} "
                         f"{X.shape}; each view must map the rows (n, D) to (n, D'), row by row, with one D' ≥ 1 "
                         f"for every view: expected {expected}")
    return out


_PARAMETERS = """    Parameters
    ----------
    jitter : float or list of float, default=1e-3
        The ridge relative to the kernel's scale, μ = jitter · mean(diag K), ≥ 0; a list: the one whose
        ridge, fitted on ``fit_size`` training rows, scores best on ``validation_size`` others (a tie
        goes to the larger), then fitted on all rows; a choice at either end of the list warns
        (``UserWarning``: the best jitter may lie beyond it).
    weight_scale : {"unit", "he"}, default="unit"
        σ_w of the limit's Gaussian weights: 1, or √(2/D') (He) for D' inputs; the bias is N(0, 1).
    views : None, callable or list of callables, default=None
        Functions X (n, D) → (n, D') mapping each row alone (e.g. a feature map, and the same map of
        the mirror image); the kernel is averaged over every pair of views (V² kernels' work). None:
        the kernel of X itself. A model loaded from a file takes them from this parameter again: their
        number and each one's output width D' are checked (``ValueError`` at ``predict``), the functions
        themselves cannot be (a file holds no code), so give the same functions in the same order.
    symmetric_views : bool, default=False
        The views form a group acting on the features as column permutations (the first view's
        features and the mirror image's of a mirror-symmetric map): the kernel is the mean over a of
        K(v_a(x), v_0(z)), V products instead of V², and ``X_fit_`` keeps the first view only;
        checked at ``fit`` on its first rows (views that fail it, e.g. shifts, are refused).
    depth : int, default=1
        The arc-cosine kernel composed ``depth`` times (Cho and Saul, 2009): the limit of ``depth``
        ReLU layers, elementwise work on each view pair's kernel block; 1 is the one-layer kernel.
    device : None, str or torch.device, default=None
        Where the kernel is built, factorised and applied: None, NumPy on the host (the kernel's lower
        triangle in place, 4·N² bytes); a torch device (``"cuda"``, ``"cpu"``), torch there (the kernel, computed
        in float64 and stored in float32, and, at the factorisation, the system and its factor in float64, 20·N² bytes of the device's memory, checked before they are
        allocated: the device factorises in float64, where cuSOLVER's float32 Cholesky failed on kernels
        the host's passed). The
        views run on the host either way and the fitted arrays stay NumPy, so a model fitted on a GPU saves,
        loads and predicts anywhere (``load_model(path, device=None)``). The two paths' kernels agree to
        float32 rounding (the device computes each value in float64 before storing it in float32).
    validation_size : float or int, default=0.2
        Held-out training rows for a list of jitters (a fraction, rounded up, or a count).
    fit_size : float, int or None, default=None
        Fitted rows of the choice (None: every row not held out).
    random_state : None, int, RandomState or Generator, default=0
        The held-out split's seed (``seed_``); unused with one jitter.
    attempts : int, default=1
        With one jitter: factorisations tried, the jitter × 10 after each failure (the kernel spilled to
        a temporary file in between, 4·N² bytes of disk). Retries need a jitter > 0 (× 10 keeps 0 at
        0): ``jitter=0`` with ``attempts > 1`` is refused at fit.
    block_rows : int, default=1024
        Rows of the kernel built, and of test rows mapped through the views, at a time.
    progress : bool, default=False
        Progress bars (tqdm, when installed) over the kernel's blocks, the factorisation and the test rows.

    Attributes
    ----------
    X_fit_ : ndarray of shape (n_views, N, D'), float32
        The training rows of each view, scaled by σ_w ((1, N, D'), the first view, with ``symmetric_views``).
    dual_coef_ : ndarray of shape (N, k), float32
        A of ``(K̄ + μI) A = Y``; finite, or ``fit`` raises (rows whose squared norms, summed over
        the N rows, leave float32 are refused at fit: scale X down). The scores ``K̄(x, X_fit) A``
        are summed in float64: a row's scores depend on the rows predicted beside it only through the
        float32 kernel's rounding (at most :data:`BATCH_ROUNDINGS` roundings of each term).
    jitter_, mu_ : float
        The jitter used (chosen, or raised by retries) and μ = ``jitter_`` · mean(diag K̄).
    validation_scores_ : list or None
        The held-out score per jitter (None where its block did not factorise), for a list of jitters.
    attempts_ : int
        Factorisations of the whole kernel.
    n_views_ : int
        V (1 without views); ``n_features_in_``, ``feature_names_in_`` as scikit-learn's.
    fit_seconds_ : dict
        Wall seconds of the ``kernel`` and of the ``fit`` (choice, factorisation and solve).
"""


class KernelLimitClassifier(ClassifierMixin, _KernelLimitBase):
    __doc__ = """The d → ∞ Green-ELM classifier: arc-cosine kernel ridge on one-hot targets, float32, in place.

    Predicts the class of the largest score ``K̄(x, X_fit) A``; a listed jitter is chosen by the
    accuracy on the held-out rows. Memory: 4·N² bytes for the kernel plus the training rows (see
    :func:`fit_memory`).

""" + _PARAMETERS + """    classes_ : ndarray of shape (k,)
        The labels, of the dtype they were given in.

    Examples
    --------
    >>> import numpy as np
    >>> from greenelm import KernelLimitClassifier
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((300, 4)); y = np.where(X[:, 0] * X[:, 1] > 0, "same", "other")
    >>> model = KernelLimitClassifier(jitter=[1e-3, 1e-2, 1e-1]).fit(X[:200], y[:200])
    >>> model.classes_.tolist(), model.jitter_ in (1e-3, 1e-2, 1e-1)
    (['other', 'same'], True)
    >>> bool(model.score(X[200:], y[200:]) > 0.8)
    True
"""

    def fit(self, X, y):
        """Fit on X (N, D) and labels y (N,)."""
        return self._fit_aside(X, y)

    def _fit(self, X, y):
        X, y = validate_data(self, X, y, dtype=(np.float64, np.float32))
        check_classification_targets(y)
        self.classes_ = np.unique(y)
        if len(self.classes_) < 2:
            raise ValueError(f"{type(self).__name__} needs at least 2 classes in y; got 1 class "
                             f"({self.classes_.tolist()[0]!r})")
        self.n_outputs_ = len(self.classes_)
        Y = (y[:, None] == self.classes_[None, :]).astype(np.float64)
        self._fit_targets(X, Y, accuracy_score_of_argmax)

    def decision_function(self, X):
        """Scores (M, k); (M,) for two classes (positive: ``classes_[1]``)."""
        scores = self._published()._scores(X)
        return scores[:, 1] - scores[:, 0] if scores.shape[1] == 2 else scores

    def predict(self, X):
        """Labels (M,): the class of the largest score."""
        model = self._published()
        return model.classes_[np.argmax(model._scores(X), axis=1)]


def _negative_mse(scores: np.ndarray, Y: np.ndarray) -> float:
    """−mean((scores − Y)²): the regressor's held-out score (higher is better)."""
    return -float(np.mean((scores - Y) ** 2))


class KernelLimitRegressor(RegressorMixin, _KernelLimitBase):
    __doc__ = """The d → ∞ Green-ELM regressor: arc-cosine kernel ridge on targets y (N,) or (N, k), float32.

    ``predict`` returns (M,) for 1-d ``y``, else (M, k); a listed jitter is chosen by the mean squared
    error on the held-out rows.

""" + _PARAMETERS + """
    Examples
    --------
    >>> import numpy as np
    >>> from greenelm import KernelLimitRegressor
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(-2, 2, (300, 2)); y = np.sin(X[:, 0]) * X[:, 1]
    >>> model = KernelLimitRegressor(jitter=1e-2).fit(X[:200], y[:200])
    >>> bool(model.score(X[200:], y[200:]) > 0.9)
    True
"""

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.multi_output = True
        return tags

    def fit(self, X, y):
        """Fit on X (N, D) and targets y (N,) or (N, k)."""
        return self._fit_aside(X, y)

    def _fit(self, X, y):
        X, y = validate_data(self, X, y, dtype=(np.float64, np.float32), multi_output=True, y_numeric=True)
        self._single_output = y.ndim == 1
        Y = np.asarray(y, dtype=np.float64).reshape(len(y), -1)
        self.n_outputs_ = Y.shape[1]
        self._fit_targets(X, Y, _negative_mse)

    def predict(self, X):
        """Predictions (M,) for 1-d targets, else (M, k)."""
        model = self._published()
        scores = model._scores(X)
        return scores[:, 0] if model._single_output else scores


# -- model files ------------------------------------------------------------------------------
_META_KEYS = ("format_version", "class", "params", "seed", "n_features_in", "n_outputs", "n_views", "fitted",
              "single_output", "classes", "feature_names", "content_sha256")
_FITTED_KEYS = ("jitter", "mu", "attempts", "validation_scores")


def _finite_number(value, minimum: float = 0.0) -> bool:
    return (isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
            and value >= minimum)


def read_kernel_limit(archive, path, meta: dict, headers: dict, device):
    """Check the fields of a kernel-limit model file (format 4) and rebuild the model; every field is
    checked before an array is read (the digest streamed first). :class:`ModelFileError` names the field."""
    error = persistence.ModelFileError
    if meta.get("format_version") != persistence.KERNEL_LIMIT_FORMAT:
        raise error(path, "format_version", f"{meta.get('format_version')!r} is not the format of "
                                            f"{meta['class']} files ({persistence.KERNEL_LIMIT_FORMAT})")
    persistence._check_keys(path, "meta", meta, _META_KEYS)
    cls = {"KernelLimitClassifier": KernelLimitClassifier, "KernelLimitRegressor": KernelLimitRegressor}[meta["class"]]
    params = meta["params"]
    if not isinstance(params, dict):
        raise error(path, "params", f"must be a JSON object, got {params!r}")
    params = {"symmetric_views": False, "depth": 1, "device": None} | params    # files written before these
    persistence._check_keys(path, "params", params, cls().get_params())
    if params["device"] is not None and not isinstance(params["device"], str):
        raise error(path, "params", f"device must be null or a string, got {params['device']!r}")
    if not (isinstance(device, str) and device == persistence.SAVED_DEVICE):
        params["device"] = None if device is None else str(device)
    params["device"] = persistence._usable_device(params["device"], f"model file {path}")
    if params["views"] is not None:
        raise error(path, "params", "views must be null (a model file holds no code; n_views counts them)")
    seed = params["random_state"]
    if seed is not None and (not persistence._is_int(seed) or seed < 0):
        raise error(path, "params", f"random_state must be null or an integer >= 0, got {seed!r}")
    try:
        cls(**params)._check_params()
    except (ValueError, TypeError) as problem:
        raise error(path, "params", str(problem)) from problem
    for field, minimum in (("seed", 0), ("n_features_in", 1), ("n_outputs", 1), ("n_views", 0)):
        if not persistence._is_int(meta[field]) or meta[field] < minimum:
            raise error(path, field, f"must be an integer >= {minimum}, got {meta[field]!r}")
    fitted = meta["fitted"]
    if not isinstance(fitted, dict):
        raise error(path, "fitted", f"must be a JSON object, got {fitted!r}")
    persistence._check_keys(path, "fitted", fitted, _FITTED_KEYS)
    if not (_finite_number(fitted["jitter"]) and _finite_number(fitted["mu"])):
        raise error(path, "fitted", f"jitter and mu must be finite numbers >= 0, got {fitted['jitter']!r}, "
                                    f"{fitted['mu']!r}")
    if not persistence._is_int(fitted["attempts"]) or fitted["attempts"] < 1:
        raise error(path, "fitted", f"attempts must be an integer >= 1, got {fitted['attempts']!r}")
    scores, listed = fitted["validation_scores"], isinstance(params["jitter"], list)
    if (scores is None) == listed or (listed and (not isinstance(scores, list) or len(scores) != len(params["jitter"])
                                                  or not all(s is None or _finite_number(s, -math.inf) for s in scores))):
        raise error(path, "fitted", "validation_scores must be a list of numbers (or null), one per jitter, for a "
                                    f"list of jitters, and null for one jitter; got {scores!r}")
    k = meta["n_outputs"]
    if not isinstance(meta["feature_names"], bool):
        raise error(path, "feature_names", f"must be true or false, got {meta['feature_names']!r}")
    if "train_rows" not in headers or len(headers["train_rows"][0]) != 3:
        raise error(path, "train_rows", "missing, or not a 3-d array (n_views, N, D')")
    n_views, n, width = headers["train_rows"][0]
    kept = 1 if params["symmetric_views"] is True else max(meta["n_views"], 1)    # symmetric: the first view
    if n_views != kept or n < 1 or width < 1:
        raise error(path, "train_rows", f"shape {headers['train_rows'][0]} does not hold the {kept} "
                                        "view(s) of N >= 1 rows")
    if meta["n_views"] == 0 and width != meta["n_features_in"]:
        raise error(path, "train_rows", f"holds {width} columns but the model takes {meta['n_features_in']} "
                                        "(without views the rows are the inputs)")
    expected = {"meta": ((), "U"), "train_rows": ((n_views, n, width), np.dtype(np.float32)),
                "coef": ((n, k), np.dtype(np.float32))}
    expected.update(persistence.check_output_meta(path, meta, k, cls is KernelLimitClassifier))
    if meta["feature_names"]:
        expected["feature_names_in"] = ((meta["n_features_in"],), "U")
    persistence._check_keys(path, "arrays", headers, expected)
    for field, (shape, kinds) in expected.items():
        found_shape, dtype = headers[field]
        if found_shape != shape:
            raise error(path, field, f"shape {found_shape}, expected {shape}")
        if not (dtype == kinds if isinstance(kinds, np.dtype) else dtype.kind in kinds):
            raise error(path, field, f"dtype {dtype} is not allowed here (expected {kinds})")
    digest = meta["content_sha256"]
    if not isinstance(digest, str) or not re.fullmatch(r"[0-9a-f]{64}", digest):
        raise error(path, "content_sha256", f"must be 64 hex digits, got {digest!r}")
    persistence._check_content_digest(archive, path, meta)
    model = cls(**params)
    train = persistence._read_array(archive, path, "train_rows")
    coef = persistence._read_array(archive, path, "coef")
    for field, array in (("train_rows", train), ("coef", coef)):
        if not np.isfinite(array).all():
            raise error(path, field, "holds NaN or infinite values")
    if cls is KernelLimitClassifier:
        classes = persistence._read_array(archive, path, "classes")
        if classes.dtype.kind == "f" and not np.isfinite(classes).all():
            raise error(path, "classes", "labels hold NaN or infinite values")
        if not np.array_equal(np.unique(classes), classes):
            raise error(path, "classes", "labels must be sorted and distinct (as np.unique)")
        model.classes_ = classes.astype(object) if meta["classes"]["object"] else classes
    else:
        model._single_output = meta["single_output"]
    if meta["feature_names"]:
        model.feature_names_in_ = persistence._read_array(archive, path, "feature_names_in").astype(object)
    model.X_fit_, model.dual_coef_ = np.ascontiguousarray(train), np.ascontiguousarray(coef)
    model._norms = [_augmented_norms(view) for view in model.X_fit_]
    model.seed_, model.n_features_in_, model.n_outputs_ = meta["seed"], meta["n_features_in"], k
    model.n_views_, model._n_view_functions = max(meta["n_views"], 1), meta["n_views"]
    model.jitter_, model.mu_ = float(fitted["jitter"]), float(fitted["mu"])
    model.attempts_, model.validation_scores_ = fitted["attempts"], fitted["validation_scores"]
    model._fitted_params = model.get_params(deep=False)
    if meta["n_views"]:
        warnings.warn(f"{path} holds a model fitted with {meta['n_views']} view function(s), which a model file "
                      "cannot hold: give them again, the same functions in the same order, with "
                      "model.set_params(views=[...]) before predicting", UserWarning, stacklevel=4)
    return model


__all__ = ["KernelLimitClassifier", "KernelLimitRegressor", "expected_failed_checks", "fit_memory", "held_out_rows",
           "predict_memory", "read_kernel_limit"]
