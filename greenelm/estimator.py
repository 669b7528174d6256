"""Scikit-learn estimators for Green-ELM: :class:`ELMClassifier` and :class:`ELMRegressor`.

``fit`` streams ``X`` through the random ReLU features in row chunks, accumulates ``HᵀH`` and
``HᵀY`` and solves once (solver ``pinv`` is the exception: it needs all of ``H``).
``partial_fit`` keeps accumulating, so fitting on chunks equals fitting on everything; with
``partial_fit_method="rls"`` it instead keeps an exact recursive-least-squares state
(:class:`greenelm.streaming.StreamingRidge`, P = (HᵀH + λI)⁻¹ and W2), so a readout read
between batches costs O(d²·B) rather than a new O(d³) solve.

**What a batch costs.**  ``partial_fit`` never pays d² per small batch: its rows are gathered
into blocks large enough for a compute-bound ``syrk`` (:func:`greenelm.solvers.sum_block_rows`),
and the readout is solved when it is first used after new rows (``coef_``, ``predict``,
``decision_function``, ``score``, ``save``, pickling), not after every batch.  A batch costs its
features and its share of the Gram (O(B·D·d + B·d²)) whatever B is; each *read* after new rows
costs one solve (normal equations: a d³/3 Cholesky; RLS: one block update O(d²·B) for the rows
gathered since the last read, whose first read starts P from the normal equations).

``fit`` and ``partial_fit`` take ``sample_weight``: the rows of each block of ``H`` and ``Y``
are scaled by √w, so the sums become HᵀWH and HᵀWY (and ``pinv`` solves the scaled rows).
:class:`ELMClassifierCV` and :class:`ELMRegressorCV` choose λ on a grid by exact leave-one-out
or GCV from one Gram and one eigendecomposition (:class:`greenelm.model_selection.RidgePath`).

**Threads.**  Reads (``predict``, ``decision_function``, ``score``, ``coef_``, ``save``, a pickle)
are safe from any number of threads at once: the first read after ``partial_fit`` flushes the
gathered rows and solves the readout exactly once, under the estimator's own lock (a
``threading.RLock`` per object, no attribute of it), while the other readers wait for it; a
reader sees the model before or after a solve or a fit call, never part of one, and no gathered
row is lost.  ``fit`` and ``partial_fit`` hold the same lock, so a ``partial_fit`` waits for a read
that is solving, and reads wait for a running ``partial_fit`` (``fit``).  Two fits of one object
at once (``fit`` or ``partial_fit`` from two threads) are refused: the second raises
``RuntimeError``.

Numerical failures are loud: inputs so large that the features or their squared sums overflow
raise :class:`greenelm.solvers.NumericalOverflowError` (a ``ValueError``) naming max |X|, in
``fit`` and when the scores of ``predict`` overflow; a system singular at the given λ raises
``numpy.linalg.LinAlgError``.  A failed fit leaves no ``coef_``.

Saved models (:meth:`save`, :func:`load_model`) are ``.npz`` files of plain arrays (never
pickled objects): the parameters, the seed, the readout ``W2``, the labels (any dtype, restored
as they were), the feature names and, when asked or when the model is being fitted by
``partial_fit``, the partial-fit state (8·d² bytes), so ``partial_fit`` continues after loading.
Loading validates every field before anything large is read (:class:`ModelFileError` names
the file and the field), rebuilds ``W`` and ``b`` from the seed and checks them against a stored
SHA-256 digest, so a model never silently changes if NumPy's generator ever did.  Pickles (and
joblib) carry the same: everything but ``W`` and ``b``, the partial-fit state as CPU arrays.
"""

from __future__ import annotations

import functools
import hashlib
import numbers
import warnings
from pathlib import Path

import numpy as np
from scipy.sparse import csr_matrix, issparse
from scipy.sparse import vstack as sparse_vstack
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from ._persistence import (SAVED_DEVICE, ModelFileError, portable_pickle_state, read_model,
                           restore_pickle_state, write_model)
from . import _validation
from ._threads import object_lock, one_fit_at_a_time
from ._validation import (check_alpha, check_alphas, check_choice, check_device, check_dtype,
                          check_positive_int, check_sample_weight, format_bytes, require_memory,
                          seed_from_random_state)
from .features import BIAS_DISTRIBUTIONS, DEFAULT_CHUNK_ROWS, DTYPES, WEIGHT_SCALES, RandomReLUFeatures
from .model_selection import RidgePath
from .solvers import (FLOAT32_BLOCK_ROWS, SOLVERS, NormalEquations, NumericalOverflowError,
                      check_finite_readout, check_finite_sums, is_torch, solve, solve_min_norm,
                      sum_block_rows)

PARTIAL_FIT_METHODS = ("normal", "rls")
#: parameters a partial-fit state is built with: partial_fit refuses to continue after they change
_STATE_PARAMETERS = ("n_hidden", "weight_scale", "bias", "dtype", "device", "random_state",
                     "partial_fit_method")
CV_MODES = ("loo", "gcv")
CV_SCORINGS = ("mse", "accuracy")
#: default λ grid of the CV estimators, relative to the mean eigenvalue tr(HᵀH)/d of the Gram
DEFAULT_RELATIVE_ALPHAS = np.logspace(-6, 3, 10)


def _same_value(a, b) -> bool:
    """Whether two parameter values are the same (arrays elementwise, generators by identity)."""
    if a is b:
        return True
    generators = (np.random.RandomState, np.random.Generator)
    if isinstance(a, generators) or isinstance(b, generators):
        return False
    try:
        return bool(np.array_equal(a, b))
    except (TypeError, ValueError):
        return False


class InterpolationThresholdWarning(UserWarning):
    """A fit sits at the interpolation threshold (:func:`at_interpolation_threshold`): its width d is
    near its number of rows N at a ridge too small to regularise, where the readout interpolates
    the noise of the labels (the variance peak of double descent) and accuracy can fall to chance."""


#: the interpolation threshold's band of d/N: there the minimum-norm readout's variance is more than
#: 3× the noise's, γ/(1 − γ) for γ = d/N < 1 and 1/(γ − 1) above (Hastie, Montanari, Rosset and
#: Tibshirani 2022, "Surprises in high-dimensional ridgeless least squares interpolation")
THRESHOLD_BAND = (0.75, 4 / 3)
#: ... and the ridge, relative to the mean eigenvalue tr(HᵀH)/d, below which it does not tame that
#: variance (MNIST, 1,000 rows at d = N: 18 % at 1e-7 of it, 71 % at 1e-3, 82 % at 1e-2)
THRESHOLD_RELATIVE_ALPHA = 1e-3


def at_interpolation_threshold(n_hidden: int, n_rows: int, alpha: float, gram_trace: float) -> bool:
    """True when a ridge fit of width d = ``n_hidden`` on N = ``n_rows`` rows at ``alpha`` sits at the
    interpolation threshold: d/N inside :data:`THRESHOLD_BAND` and ``alpha`` below
    :data:`THRESHOLD_RELATIVE_ALPHA` × the mean eigenvalue of the Gram, ``gram_trace`` / d (O(1)
    from the trace of HᵀH, which the fit has; ``alpha = 0``: the minimum-norm readout)."""
    d, n = int(n_hidden), int(n_rows)
    if n < 1 or not THRESHOLD_BAND[0] < d / n < THRESHOLD_BAND[1]:
        return False
    return alpha < THRESHOLD_RELATIVE_ALPHA * max(float(gram_trace), 0.0) / d or alpha == 0


class MethodUnavailableError(AttributeError):
    """A method this estimator's configuration cannot offer (an ``AttributeError``, so
    ``hasattr(estimator, name)`` is False, as scikit-learn expects), saying why and what to use."""


class _available_unless:
    """Method descriptor: ``reason(estimator)`` returns None (the method is there) or the words of
    the :class:`MethodUnavailableError` that accessing it raises (so ``hasattr`` is False)."""

    def __init__(self, reason, method):
        self.reason, self.method = reason, method
        functools.update_wrapper(self, method)

    def __get__(self, obj, owner=None):
        if obj is None:
            return self.method
        why = self.reason(obj)
        if why is not None:
            raise MethodUnavailableError(why)
        return self.method.__get__(obj, owner)


def _pinv_cannot_stream(estimator) -> str | None:
    """``partial_fit`` exists unless solver='pinv' (which needs all of H at once)."""
    if getattr(estimator, "solver", None) != "pinv":
        return None
    name = type(estimator).__name__
    return (f"{name}(solver='pinv') has no partial_fit: the pseudoinverse H⁺ needs all rows of H "
            "at once and cannot be updated batch by batch. Use solver='cholesky' or 'lu' (or "
            "'eigh', with alpha=0 for the minimum-norm limit): their normal equations stream, with "
            f"partial_fit_method='normal' or 'rls' — {name}(solver='cholesky').partial_fit(...)")


def _cv_cannot_stream(estimator) -> str | None:
    name = type(estimator).__name__
    base = name[:-2]
    return (f"{name} has no partial_fit: it chooses λ from all the training rows at once. Choose λ "
            f"with {name}.fit on a sample, then stream with {base}(alpha=model.alpha_).partial_fit(...)")


def _one_fit_at_a_time(method):
    """Decorate ``fit`` / ``partial_fit``: a second call on the same estimator while one runs (in
    another thread) raises ``RuntimeError`` before touching anything, instead of mixing both
    datasets into one state (:func:`greenelm._threads.one_fit_at_a_time`).  The call runs under
    the object's lock (:func:`object_lock`), so it waits for a read that is solving the readout,
    and reads wait for it: a reader sees the model before or after the call, never partway."""

    @functools.wraps(method)
    def exclusive(self, *args, **kwargs):
        with one_fit_at_a_time(self, method.__name__), object_lock(self):
            return method(self, *args, **kwargs)
    return exclusive


def _fails_loudly(fit_step):
    """Decorate a fit step ``(self, X, Y, ...)``: an overflow error gains the inputs' scale, and a
    readout with inf or NaN raises (overflow or a singular system, whichever the scale shows)
    and leaves the estimator unfitted.  The extra work (max |X|) is done only on failure."""

    @functools.wraps(fit_step)
    def checked(self, X, *args, **kwargs):
        try:
            fit_step(self, X, *args, **kwargs)
            # a readout that waits to be solved is checked when it is solved (_settle_readout)
            coef = self.__dict__.get("coef_") if not self.__dict__.get("_readout_stale") else None
            if coef is not None and not np.isfinite(coef).all():
                if self._overflows(X):
                    raise NumericalOverflowError("the readout holds inf or NaN: the features "
                                                 "overflowed")
                check_finite_readout(self.coef_, check_alpha(self.alpha), self.solver)
        except NumericalOverflowError as error:
            self._drop_readout()
            raise NumericalOverflowError(f"{error}. {self._input_scale(X)}") from None
        except np.linalg.LinAlgError as error:
            self._drop_readout()
            if self._overflows(X):  # e.g. an RLS update on inf features: the cause is the scale
                raise NumericalOverflowError(f"the solve failed ({error}) because the features "
                                             f"overflowed. {self._input_scale(X)}") from error
            raise
    return checked


class _ELMBase(BaseEstimator):
    """Shared fit/predict machinery; subclasses turn targets into the matrix Y (N, k)."""

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True           # CSR/CSC X: the features' GEMM takes it as it is
        return tags

    def __init__(self, n_hidden=2000, alpha=1e-3, solver="cholesky", weight_scale="unit",
                 bias="normal", dtype="float64", chunk_size=DEFAULT_CHUNK_ROWS, device=None,
                 random_state=0, partial_fit_method="normal"):
        self.n_hidden = n_hidden
        self.alpha = alpha
        self.solver = solver
        self.weight_scale = weight_scale
        self.bias = bias
        self.dtype = dtype
        self.chunk_size = chunk_size
        self.device = device
        self.random_state = random_state
        self.partial_fit_method = partial_fit_method

    # -- the readout, solved when first read after partial_fit -------------------------
    @property
    def coef_(self):
        """The readout W2 (n_hidden, k) float64; after ``partial_fit`` solved on this first read
        (once, under the object's lock: threads reading at once wait for that one solve)."""
        if self.__dict__.get("_readout_stale"):
            with object_lock(self):
                if self.__dict__.get("_readout_stale"):
                    self._settle_readout()
        try:
            return self.__dict__["coef_"]
        except KeyError:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute 'coef_'") from None

    @coef_.setter
    def coef_(self, value) -> None:
        self.__dict__["coef_"] = value
        self.__dict__["_readout_stale"] = False

    @coef_.deleter
    def coef_(self) -> None:
        self.__dict__.pop("coef_", None)

    def _drop_readout(self) -> None:
        """After a failed fit step: no ``coef_`` (nor one waiting to be solved)."""
        self.__dict__.pop("coef_", None)
        self.__dict__["_readout_stale"] = False

    def _settle_readout(self) -> None:
        """Solve the readout for the rows ``partial_fit`` added since it was last solved.

        Called under the object's lock.  Normal equations: one solve of the accumulated sums.
        RLS: the first read starts the exact state P = (HᵀH + λI)⁻¹ from the sums; later reads
        apply the gathered rows as one block update.  The new readout is built aside and
        published by one assignment (the old one stays until then).  On failure the estimator
        keeps its rows, has no ``coef_``, and the next read tries again (and raises again)."""
        state = self.__dict__
        try:
            self._add_gathered()
            if self.partial_fit_method == "rls":
                from .streaming import StreamingRidge, rls_block_rows

                if self.stream_ is None:
                    check_finite_sums(*self.equations_.as_float64())
                    self.stream_ = StreamingRidge.from_normal_equations(
                        self.equations_, self.alpha, block_rows=rls_block_rows(self.n_hidden))
                    self.equations_ = None
                W = self.stream_.coef_
                coef = W.double().cpu().numpy().copy() if hasattr(W, "cpu") else np.array(W, dtype=np.float64)
            else:
                coef = solve(self.equations_, self.solver, self.alpha)
            check_finite_readout(coef, check_alpha(self.alpha), self.solver)
        except BaseException:
            state.pop("coef_", None)
            raise
        state["coef_"] = coef                       # published: then no longer stale
        state["_readout_stale"] = False

    def _published_model(self):
        """``(coef_, features_, dtype, device, chunk_size)`` of one model, read together under the
        object's lock (after solving a readout that waits); ``NotFittedError`` if there is none."""
        with object_lock(self):
            check_is_fitted(self, "coef_")
            return (self.coef_, self.features_, self._fitted("dtype"), self._fitted("device"),
                    self.chunk_size)

    # -- parameters and features -------------------------------------------------------
    def _check_params(self) -> None:
        check_positive_int("n_hidden", self.n_hidden)
        check_positive_int("chunk_size", self.chunk_size)
        check_choice("solver", self.solver, SOLVERS)
        check_choice("weight_scale", self.weight_scale, WEIGHT_SCALES)
        check_choice("bias", self.bias, BIAS_DISTRIBUTIONS)
        check_dtype(self.dtype, DTYPES)
        self._check_readout_params()
        check_device(self.device)

    def _check_readout_params(self) -> None:
        check_alpha(self.alpha)
        check_choice("partial_fit_method", self.partial_fit_method, PARTIAL_FIT_METHODS)

    def _draw_seed(self) -> int:
        """The projection's seed: ``random_state`` itself if an int, else one draw from it."""
        return seed_from_random_state(self.random_state)

    def _make_features(self) -> RandomReLUFeatures:
        fitted = self._fitted
        return RandomReLUFeatures(self.n_features_in_, fitted("n_hidden"), self.seed_,
                                  fitted("weight_scale"), fitted("bias"), fitted("dtype"),
                                  fitted("device"))

    # -- the parameters the fitted state was built with ----------------------------------------
    def _snapshot_params(self) -> None:
        """Record the constructor parameters of this fit (``_fitted_params``): the projection,
        predictions, pickles and ``save`` use them, so a later ``set_params`` changes nothing
        until the next ``fit`` (scikit-learn's convention)."""
        self._fitted_params = self._current_params()

    def _current_params(self) -> dict:
        """``get_params()``, the dtype by its canonical name when it names one (``np.float32`` →
        ``"float32"``)."""
        params = self.get_params(deep=False)
        try:
            params["dtype"] = check_dtype(params["dtype"], DTYPES)
        except ValueError:
            pass
        return params

    def _fitted(self, name: str):
        """The value of parameter ``name`` the fitted state was built with (the current one for
        models pickled by greenelm <= 0.2.0, which recorded none)."""
        fitted = getattr(self, "_fitted_params", None)
        return fitted[name] if fitted is not None and name in fitted else getattr(self, name)

    def _changed_since_fit(self, names=None) -> list[str]:
        """``"name: fitted → now"`` for each parameter (of ``names``, default all) that
        ``set_params`` changed since the fit."""
        fitted = getattr(self, "_fitted_params", None) or {}
        now = self._current_params()
        return [f"{name}={fitted[name]!r} → {now[name]!r}" for name in (names or fitted)
                if name in fitted and name in now and not _same_value(fitted[name], now[name])]

    def _continues_partial_fit(self) -> bool:
        """Whether ``partial_fit`` continues a state; refuses to continue one built with other
        parameters than the current ones (the state belongs to those)."""
        if not self._has_partial_state():
            return False
        names = list(_STATE_PARAMETERS)
        if self._fitted("partial_fit_method") == "rls":
            names.append("alpha")                    # P = (HᵀH + λI)⁻¹ holds λ
        changed = self._changed_since_fit(names)
        if changed:
            raise ValueError(f"set_params changed {', '.join(changed)} since partial_fit started; "
                             "the accumulated state belongs to the old values, so partial_fit cannot "
                             "continue it. Call fit (or partial_fit on a new estimator) to start with "
                             "the new parameters, or set them back")
        return True

    def _after_partial_fit(self) -> None:
        """Record the parameters a continued ``partial_fit`` used (λ, solver, chunk_size may change)."""
        self._snapshot_params()

    @property
    def features_(self) -> RandomReLUFeatures:
        """The frozen projection (rebuilt from the seed on first use after loading or unpickling)."""
        check_is_fitted(self, "coef_")
        if getattr(self, "_features", None) is None:
            self._features = self._make_features()
        return self._features

    def _feature_bound(self, X) -> tuple[float, float]:
        """(max |X|, a bound on max |relu(XW + b)|): O(n·D) per call (W's part is computed once)."""
        features = self._features
        cached = self.__dict__.get("_weight_bound")
        if cached is None or cached[0] is not features:     # max column ‖W‖₁ and max |b|, once: O(D·d)
            W, b = features.W, features.b
            W, b = (W.double().cpu().numpy(), b.double().cpu().numpy()) if hasattr(W, "cpu") else (W, b)
            cached = (features, float(np.abs(W).astype(np.float64).sum(axis=0).max()), float(np.abs(b).max()))
            self._weight_bound = cached
        with np.errstate(over="ignore", invalid="ignore"):
            x_max = (float(abs(X).max()) if issparse(X) else float(np.max(np.abs(X)))) if X.shape[0] else 0.0
            return x_max, x_max * cached[1] + cached[2]

    def _overflows(self, X) -> bool:
        """Whether the features, or the sums of their squares over X's rows, can exceed ``dtype``."""
        _, h_max = self._feature_bound(X)
        with np.errstate(over="ignore"):
            return not h_max * h_max * max(X.shape[0], 1) < np.finfo(self._fitted("dtype")).max

    def _input_scale(self, X, squares: bool = True) -> str:
        """What overflowed, in numbers: max |X|, the features' bound (and their squared sums')."""
        x_max, h_max = self._feature_bound(X)
        dtype = self._fitted("dtype")
        with np.errstate(over="ignore"):
            sums = f", and their squared sums {h_max * h_max * max(X.shape[0], 1):.3g}," if squares else ""
        return (f"The inputs reach max |X| = {x_max:.3g}, so the features can reach about "
                f"{h_max:.3g}{sums} against the {dtype} limit {np.finfo(dtype).max:.3g}: "
                "scale X down (for example to [0, 1] or unit variance)")

    def __getstate__(self):
        """Everything but ``W`` and ``b`` (rebuilt from the seed, so the pickle does not hold the
        D × d projection).  As ``save(include_state="auto")``: a model fitted by ``partial_fit``
        keeps its partial-fit state (d × d, 8·d² bytes) as CPU NumPy arrays, so ``partial_fit``
        continues after unpickling, wherever the model ran; after ``fit`` the state is left out
        (the pickle holds the readout, O(d·k)) and ``partial_fit`` on the copy raises
        ``ValueError`` saying so, rather than restarting from zero."""
        with object_lock(self):
            return self._pickle_state()

    def _pickle_state(self) -> dict:
        if self.__dict__.get("_readout_stale"):
            self._settle_readout()
        state = dict(super().__getstate__())
        state.pop("_features", None)
        state.pop("_weight_bound", None)
        has_state = state.get("equations_") is not None or state.get("stream_") is not None
        if has_state and not state.get("_fitted_by_partial_fit", False):
            state["equations_"] = state["stream_"] = None
            state["_partial_state_missing"] = (
                f"this {type(self).__name__} was pickled (or copied) after fit, and such pickles "
                "leave out the partial-fit state (the d × d Gram), as save() does by default; "
                "partial_fit would restart from zero. Call fit, or use save(path, "
                "include_state=True) and load_model to continue partial_fit elsewhere")
        state = portable_pickle_state(state)
        exported = state.get("_portable_partial_state")
        if exported is not None:    # views of the live state: copies, which a later update cannot change
            state["_portable_partial_state"] = (dict(exported[0]),
                                                {key: np.array(a) for key, a in exported[1].items()})
        return state

    def __setstate__(self, state):
        super().__setstate__(restore_pickle_state(state))

    # -- fitting ---------------------------------------------------------------------------
    def _start(self, n_rows: int | None = None, gathers: bool = False) -> None:
        self._check_params()
        self._snapshot_params()
        self._check_memory(n_rows, gathers)
        self.seed_ = self._draw_seed()
        self._features = self._make_features()
        self.equations_ = NormalEquations(self.n_hidden, self.n_outputs_, self._fitted("dtype"),
                                          self.device)
        self.stream_ = None
        self._fitted_by_partial_fit = False
        self._partial_state_missing = None
        self._readout_stale = False
        self._waiting_rows, self._waiting_count = [], 0     # rows partial_fit gathered, not yet summed

    def _memory_plan(self, n_rows: int | None = None, gathers: bool = False) -> dict[str, int]:
        """Bytes of each allocation a fit (or partial_fit) of ``n_rows`` rows (None: unknown, at
        most ``chunk_size`` a block) makes, every copy counted: what lives throughout (W and b, the
        Gram HᵀH (d × d float64), the float32 path's scratch; ``pinv``: H itself and its SVD's
        copy) and the temporaries of the largest of the stages, which run in turn (named): the
        projection's float64 draw, a block of features, the solve's copies of the Gram, and for the
        cross-validated estimators the eigendecomposition, the LOO pass or the folds; ``gathers``
        (partial_fit): the copies of the rows it keeps until they are summed."""
        d, D = int(self.n_hidden), int(self.n_features_in_)
        dtype, device = self._fitted("dtype"), self._fitted("device")
        size, k = np.dtype(dtype).itemsize, int(getattr(self, "n_outputs_", 1) or 1)
        chunk = int(self.chunk_size) if n_rows is None else max(1, min(int(self.chunk_size), int(n_rows)))
        parts = {f"W and b ((D + 1) × d = {D + 1} × {d} {dtype})": size * (D + 1) * d,
                 f"HᵀH (d × d = {d} × {d} float64)": 8 * d * d}
        stages = {}
        if device is None:
            stages[f"W and b's float64 draw ({D + 1} × {d})"] = 8 * (D + 1) * d
        rows = int(n_rows or chunk)
        parts[f"the targets and a block's cast ({rows} × {k} float64)"] = 16 * rows * k
        if gathers:
            kept = max(int(self.chunk_size), rows)
            parts[f"the rows partial_fit keeps until they are summed (up to {kept} rows of X, Y and the "
                  "weights, float64)"] = 8 * kept * (D + k + 1)
        gathering = sum_block_rows(d, dtype)            # NormalEquations gathers a block smaller than this
        if n_rows is None or chunk < gathering or 0 < int(n_rows) % chunk < gathering:
            parts[f"the rows gathered for the sums ({gathering} × (d + k) {dtype})"] = size * gathering * (d + k)
        stages[f"a block of features ({chunk} × {d} {dtype})"] = \
            size * chunk * d + (4 * chunk * D if dtype == "float32" else 0)      # (and X's block cast)
        if dtype == "float32":
            centred = min(max(chunk, sum_block_rows(d, "float32")), FLOAT32_BLOCK_ROWS)
            parts[f"float32 Gram scratch and centred block ((d + k)² + {centred} × (d + k))"] = \
                4 * (d + k) * (d + k + centred)
        solver = self.solver
        copies = {"cholesky": 1, "lu": 3, "eigh": 2}.get(solver, 1)
        solve_words = (f"the solve's {copies} cop{'y' if copies == 1 else 'ies'} of HᵀH + λI "
                       f"({solver})")
        check = d * d                                   # the finiteness check's mask of the sums
        if solver == "pinv":
            parts[f"H (N × d = {rows} × {d} float64)"] = 8 * rows * d
            parts["the SVD's copy of H"] = 8 * rows * d
            m = min(rows, d)                            # LAPACK gelsd's workspace (SMLSIZ = 25)
            levels = max(int(np.log2(m / 26)) + 1, 0) if m else 0
            parts["gelsd's workspace and right-hand sides"] = (8 * (62 * m + 8 * m * levels + m * k + 676)
                                                               + 4 * (3 * m * levels + 11 * m) + 8 * max(rows, d) * k)
        elif isinstance(self, _CrossValidatedRidge):
            stages["the eigendecomposition's copies of HᵀH (symmetrised, eigenvectors)"] = 2 * 8 * d * d + check
            stages[f"the eigenvectors and {solve_words}"] = 8 * d * d + copies * 8 * d * d + check
            if isinstance(self.cv, str) and self.cv == "loo":
                n_alphas = len(DEFAULT_RELATIVE_ALPHAS if self.alphas is None else np.atleast_1d(self.alphas))
                stages[f"the LOO pass (the eigenvectors, a block of features in float64, rotated and "
                       f"squared: 3 × {chunk} × {d}, and per λ its readout and leverages)"] = (
                    8 * d * d + (24 + (size if size != 8 else 0)) * chunk * d
                    + 8 * n_alphas * (d * (k + 1) + chunk) + 24 * chunk * k)
            elif not isinstance(self.cv, str):
                stages["each fold's Gram and its eigendecomposition, beside the last fold's, and a "
                       "block of its features"] = 5 * 8 * d * d + (size + 16) * chunk * d
        elif self._fitted("partial_fit_method") == "rls":
            stages["P = (HᵀH + λI)⁻¹ (d × d float64), beside HᵀH when it starts"] = 8 * d * d + check
        else:
            stages[solve_words] = copies * 8 * d * d + check
        largest = max(stages, key=stages.get)
        parts[largest] = stages[largest]
        return parts

    def _check_memory(self, n_rows: int | None = None, gathers: bool = False) -> None:
        """Before allocating: every allocation of the fit (:meth:`_memory_plan`) must fit in the
        memory available where it lives (the tighter of the host's and the container's cgroup
        limit, or the GPU's for a CUDA ``device``): ``MemoryError`` naming the sizes otherwise
        (:func:`greenelm._validation.require_memory`); more than half of it warns."""
        d, device = int(self.n_hidden), self._fitted("device")
        parts = self._memory_plan(n_rows, gathers)
        require_memory(parts, f"{type(self).__name__}(n_hidden={d})", device,
                       hint="lower n_hidden (the d × d Gram and its solve grow as d²)"
                            + (", or chunk_size" if self.solver != "pinv" else
                               ", or use solver='cholesky', which never holds H"))
        available, where = _validation.memory_limit(device)
        needed = sum(parts.values())
        if available is not None and needed > available / 2:
            warnings.warn(f"n_hidden={d}: the fit's allocations take {format_bytes(needed)}, more "
                          f"than half of the {format_bytes(available)} available ({where})",
                          UserWarning, stacklevel=6)

    def _accumulate(self, X, Y, sample_weight=None, check_blocks: bool = False) -> None:
        """Add X's feature blocks to the sums (``check_blocks``: refuse features that overflow,
        as partial_fit must, since its solve, which would see them, waits)."""
        # one reused feature buffer: update() either adds a block at once or copies its rows
        for rows, H in self._features.chunks(X, self.chunk_size, reuse=True):
            H, Y_block = self._weighted_block(H, Y[rows], sample_weight, rows)
            if check_blocks:
                self._check_block(H)
            self.equations_.update(H, Y_block)

    def _check_block(self, H) -> None:
        """Raise NumericalOverflowError when a block of features (≥ 0) holds inf or NaN or is so
        large that sums of its squares over all rows could overflow ``dtype``: O(n·d)."""
        if H.shape[0] == 0:
            return
        largest = float(H.max())
        n_rows = self.equations_.n_samples if self.equations_ is not None else self.stream_.n_samples
        with np.errstate(over="ignore", invalid="ignore"):
            if largest * largest * (n_rows + H.shape[0]) < np.finfo(self.dtype).max:
                return
        raise NumericalOverflowError("the random features relu(XW + b) or the sums of their squares "
                                     "overflowed")

    def _weighted_block(self, H, Y, sample_weight, rows):
        """One block ``(√w·H, √w·Y)``: weighted sums HᵀWH, HᵀWY are the plain sums of the scaled rows."""
        Y = self._as_block(Y, H)
        if sample_weight is None:
            return H, Y
        root = np.sqrt(sample_weight[rows])
        if is_torch(H):
            import torch

            root = torch.as_tensor(root, dtype=H.dtype, device=H.device)
        else:
            root = root.astype(H.dtype, copy=False)
        H *= root[:, None]  # H is a fresh block of features: scaling in place keeps its memory
        return H, Y * root[:, None]

    def _as_block(self, Y, H):
        if self._fitted("device") is None:
            return Y.astype(self._fitted("dtype"), copy=False)
        import torch

        return torch.as_tensor(Y, dtype=H.dtype, device=H.device)

    @_fails_loudly
    def _fit_targets(self, X, Y, sample_weight=None) -> None:
        """Fit the readout to targets Y (N, k) from inputs X (N, D), rows weighted by sample_weight (N,)."""
        self._start(X.shape[0])
        if self.solver == "pinv":
            H = np.empty((X.shape[0], self.n_hidden), dtype=np.float64)
            for rows, block in self._features.chunks(X, self.chunk_size):
                H[rows] = block.cpu().numpy() if self.device is not None else block
            if sample_weight is not None:  # min ‖√W (H W2 − Y)‖: the rows scaled by √w
                root = np.sqrt(sample_weight)[:, None]
                H *= root
                Y = Y * root
            self.coef_ = solve_min_norm(H, Y)
            self.equations_ = None
        else:
            self._accumulate(X, Y, sample_weight)
            self.coef_ = solve(self.equations_, self.solver, self.alpha)
        self._warn_at_interpolation_threshold(X.shape[0] if sample_weight is None
                                              else int(np.count_nonzero(sample_weight)))

    def _warn_at_interpolation_threshold(self, n_rows: int) -> None:
        """Warn (:class:`InterpolationThresholdWarning`, with the remedy) when this fit of ``n_rows``
        rows (of weight > 0) sits at the interpolation threshold (:func:`at_interpolation_threshold`)."""
        d = int(self.n_hidden)
        if not THRESHOLD_BAND[0] < d / max(n_rows, 1) < THRESHOLD_BAND[1]:
            return
        alpha, trace = (0.0, 0.0) if self.solver == "pinv" else (check_alpha(self.alpha), 0.0)
        if alpha > 0:
            gram = self.equations_.gram
            trace = float(gram.diagonal().sum())
        if not at_interpolation_threshold(d, n_rows, alpha, trace):
            return
        name = type(self).__name__
        ridge = ("the minimum-norm readout (solver='pinv', no ridge)" if alpha == 0 else
                 f"alpha={alpha:g}, {alpha * d / trace:.1e} of the mean eigenvalue of HᵀH")
        warnings.warn(InterpolationThresholdWarning(
            f"{name}(n_hidden={d}) on {n_rows:,} rows (d/N = {d / n_rows:.2f}) at {ridge}: the fit sits at the "
            "interpolation threshold d ≈ N, where a small ridge lets the readout interpolate the labels' noise "
            "(the variance peak of double descent) and accuracy can fall to chance. Choose alpha on held-out "
            f"rows with {name}CV(n_hidden={d}), or take a narrower or wider d (n_hidden <= {n_rows // 2:,} or "
            f">= {2 * n_rows:,})"), stacklevel=6)

    @_fails_loudly
    def _partial_fit_targets(self, X, Y, sample_weight=None) -> None:
        # (solver='pinv' has no partial_fit at all: see _partial_fit_available)
        if self.partial_fit_method == "rls" and check_alpha(self.alpha) == 0:
            raise ValueError("partial_fit_method='rls' needs alpha > 0: P = (HᵀH + λI)⁻¹ must exist")
        if not self._has_partial_state():
            self._start(X.shape[0], gathers=True)
        elif getattr(self, "_features", None) is None:  # loaded or unpickled: W from the seed
            self._features = self._make_features()
        self._fitted_by_partial_fit = True
        if self._overflows(X):          # refused now, with its scale, not when the rows are used
            raise NumericalOverflowError("the random features relu(XW + b) or the sums of their "
                                         "squares can overflow")
        self._gather(X, Y, sample_weight)
        self._readout_stale = True      # solved on the first read (_settle_readout)

    def _validated_batch(self, X, y, first: bool, targets_ok, **checks):
        """``(X, y)`` of a ``partial_fit`` call, as ``validate_data`` returns them.

        After the first call, NumPy float32/float64 X (n, D) with finite values, no feature names
        expected, and targets ``targets_ok(y)`` accepts, are what ``validate_data`` would return
        unchanged: they skip its per-call overhead (which dominates batches of a few rows).
        Anything else goes through ``validate_data``, which converts it or raises its usual error."""
        if (not first and type(X) is np.ndarray and type(y) is np.ndarray and X.ndim == 2
                and X.dtype in (np.float64, np.float32) and 1 <= X.shape[0] == y.shape[0]
                and X.shape[1] == self.n_features_in_ and "feature_names_in_" not in self.__dict__
                and targets_ok(y) and np.isfinite(X).all()):
            return X, y
        return validate_data(self, X, y, accept_sparse="csr", dtype=(np.float64, np.float32), reset=first,
                             **checks)

    def _gather(self, X, Y, sample_weight) -> None:
        """Keep a copy of the rows X (n, D), Y (n, k), weights (n,) or None; once ``chunk_size``
        rows wait, their features go into the sums in one block (:meth:`_add_gathered`)."""
        waiting = self.__dict__.setdefault("_waiting_rows", [])
        weights = np.ones(X.shape[0]) if sample_weight is None else sample_weight
        waiting.append((X.copy(), np.array(Y, copy=True), np.array(weights, copy=True),
                        sample_weight is not None))
        self._waiting_count = self.__dict__.get("_waiting_count", 0) + X.shape[0]
        if self._waiting_count >= self.chunk_size:
            self._add_gathered()

    def _add_gathered(self) -> None:
        """Features of the rows ``partial_fit`` gathered, in one block, into the sums (normal
        equations, or the RLS state once it exists): a small batch never pays a d-wide GEMM
        that re-reads W, nor a d × d update, of its own."""
        waiting = self.__dict__.get("_waiting_rows")
        if not waiting:
            return
        self._waiting_rows, self._waiting_count = [], 0
        if len(waiting) == 1:
            X = waiting[0][0]
        elif any(issparse(rows[0]) for rows in waiting):
            X = sparse_vstack([csr_matrix(rows[0]) for rows in waiting], format="csr")
        else:
            X = np.concatenate([rows[0] for rows in waiting])
        Y = waiting[0][1] if len(waiting) == 1 else np.concatenate([rows[1] for rows in waiting])
        weighted = any(rows[3] for rows in waiting)
        weights = np.concatenate([rows[2] for rows in waiting]) if weighted else None
        if self.partial_fit_method == "rls" and self.stream_ is not None:
            self._stream(X, Y, weights)
        else:   # normal equations, and RLS rows before its state's first read
            self._accumulate(X, Y, weights, check_blocks=True)

    def _has_partial_state(self) -> bool:
        if getattr(self, "_partial_state_missing", None):  # loaded from a file without the state
            raise ValueError(self._partial_state_missing)
        return (getattr(self, "equations_", None) is not None
                or getattr(self, "stream_", None) is not None)

    def _stream(self, X, Y, sample_weight=None) -> None:
        """RLS partial_fit once its state exists: X's rows are gathered by the float64
        StreamingRidge state and applied as exact block (Woodbury) updates."""
        from .streaming import rls_block_rows

        if self.stream_.block_rows is None:         # a state loaded from a file or a pickle
            self.stream_.block_rows = rls_block_rows(self.n_hidden)
        for rows, H in self._features.chunks(X, self.chunk_size):
            H, Y_block = self._weighted_block(H, Y[rows], sample_weight, rows)
            self._check_block(H)
            self.stream_.update(H, Y_block)

    # -- prediction ------------------------------------------------------------------------
    def _raw_outputs(self, X) -> np.ndarray:
        """``relu(X W + b) W2`` (N, k), computed in row chunks."""
        coef, features, dtype, device, chunk_size = self._published_model()
        X = validate_data(self, X, reset=False, accept_sparse="csr", dtype=(np.float64, np.float32))
        out = np.empty((X.shape[0], coef.shape[1]), dtype=np.float64)
        if device is None:
            W2 = coef.astype(dtype, copy=False)
            for rows, H in features.chunks(X, chunk_size, reuse=True):
                out[rows] = H @ W2
        else:
            import torch

            W2 = torch.as_tensor(coef, dtype=features.W.dtype, device=features.W.device)
            for rows, H in features.chunks(X, chunk_size):
                out[rows] = (H @ W2).double().cpu().numpy()
        if not np.isfinite(out).all():
            raise NumericalOverflowError("the scores relu(XW + b) W2 hold inf or NaN: the features "
                                         f"overflowed. {self._input_scale(X, squares=False)}")
        return out

    # -- persistence -----------------------------------------------------------------------
    def save(self, path, include_state="auto") -> Path:
        """Write the fitted model to ``path`` (.npz, no pickled objects) atomically; returns the path.

        ``path`` may also be a binary file object opened for writing (then written in place, not
        atomically, and returned); a missing folder raises ``FileNotFoundError`` naming it.

        ``include_state`` — whether the partial-fit state is stored, so that ``partial_fit``
        continues after :func:`load_model`: the normal equations ``HᵀH`` (d × d) and ``HᵀY``
        (d × k), or the RLS state ``P`` (d × d) and ``W2``; in float64 that is 8·d² bytes
        (128 MB at d = 4000) next to the 8·d·k of the readout.

        * ``"auto"`` (default): stored when the model was fitted by ``partial_fit`` (or loaded
          with a state), not after ``fit``, whose models are usually deployed, not continued;
        * ``True``: stored (a ``ValueError`` if the model has none: ``solver="pinv"``);
        * ``False``: not stored.

        ``partial_fit`` on a model loaded without its state raises ``ValueError`` (it never
        restarts from zero).  A ``RandomState``/``Generator`` ``random_state`` is saved as the
        int seed it gave (``seed_``), which rebuilds the same projection.

        The file holds the fitted model: the parameters written are those it was fitted with.
        A ``set_params`` since the fit (which takes effect at the next ``fit``) is not saved,
        and a ``UserWarning`` names it.
        """
        with object_lock(self):
            return self._save(path, include_state)

    def _save(self, path, include_state) -> Path:
        check_is_fitted(self, "coef_")
        changed = self._changed_since_fit()
        if changed:
            warnings.warn(f"set_params changed {', '.join(changed)} since the fit; the file holds the "
                          "fitted model, with the values it was fitted with (fit again to save the "
                          "new ones)", UserWarning, stacklevel=3)
        params = {**self._current_params(), **(getattr(self, "_fitted_params", None) or {})}
        return write_model(self, path, include_state, _projection_digest(self.features_.W,
                                                                          self.features_.b), params)


def _projection_digest(W, b) -> str:
    digest = hashlib.sha256()
    for array in (W, b):
        array = array.cpu().numpy() if hasattr(array, "cpu") else array
        digest.update(np.ascontiguousarray(array, dtype=np.float64).tobytes())
    return digest.hexdigest()


def load_model(path, device=SAVED_DEVICE):
    """Load a model written by the ``save`` method of any greenelm estimator, from a path or a
    seekable binary file object.

    ``device`` — where the loaded model runs: ``"saved"`` (default) the device it was saved
    with, ``None`` NumPy, or a torch device (``"cpu"``, ``"cuda"``, ``"cuda:1"``).  A model
    saved on a device this machine lacks (e.g. CUDA) raises ``ValueError`` saying to pass
    ``device=None`` or ``"cpu"``; the loaded model's ``device`` parameter is the one chosen.

    Every field is validated before the projection is drawn or the d × d state is read; a
    file that is not a valid greenelm model raises :class:`ModelFileError` (a ``ValueError``)
    naming the file and the field, as does a projection rebuilt from the seed that differs
    from the saved digest.

    Examples
    --------
    >>> import os, tempfile
    >>> import numpy as np
    >>> from greenelm import ELMRegressor, load_model
    >>> rng = np.random.default_rng(0)
    >>> X, y = rng.random((100, 3)), rng.random(100)
    >>> model = ELMRegressor(n_hidden=50, partial_fit_method="rls").partial_fit(X[:60], y[:60])
    >>> path = os.path.join(tempfile.mkdtemp(), "model.npz")
    >>> loaded = load_model(model.save(path))              # the partial-fit state comes along
    >>> loaded = loaded.partial_fit(X[60:], y[60:])
    >>> whole = ELMRegressor(n_hidden=50).fit(X, y)
    >>> bool(np.allclose(loaded.coef_, whole.coef_, rtol=1e-8, atol=1e-10))
    True
    """
    estimators = {cls.__name__: cls for cls in (ELMClassifier, ELMRegressor, ELMClassifierCV, ELMRegressorCV)}
    from .kernel_limit import read_kernel_limit

    model, expected = read_model(path, estimators, device, kernel_reader=read_kernel_limit)
    if expected is None:      # a greenelm.kernel_limit model: no projection (read and checked whole)
        return model
    model._snapshot_params()
    features = model.features_
    if _projection_digest(features.W, features.b) != expected:
        raise ModelFileError(path, "projection_sha256", f"the projection rebuilt from seed "
                             f"{model.seed_} differs from the one the model was trained with "
                             "(a different NumPy random generator?)")
    return model


#: the constructor parameters shared by ELMClassifier and ELMRegressor (numpy docstring form)
_ESTIMATOR_PARAMETERS = """    Parameters
    ----------
    n_hidden : int, default=2000
        Hidden width d.
    alpha : float, default=1e-3
        Ridge λ of the normal equations (ignored by ``pinv``); 1e-3 as the paper.
    solver : {"cholesky", "lu", "eigh", "pinv"}, default="cholesky"
        See :mod:`greenelm.solvers`; ``pinv`` needs all of H (N × d) in memory and has no
        ``partial_fit``.
    weight_scale : {"unit", "he"}, default="unit"
        W ~ N(0, 1) (the paper's code) or N(0, 2/D) (its text).
    bias : {"normal", "uniform"}, default="normal"
        b ~ N(0, 1) or U(-1, 1).
    dtype : {"float64", "float32"}, default="float64"
        Precision of the features and of the Gram's products; the sums and the d × d solve are
        float64 (float32 blocks are centred per block before their float32 product, so float32
        fits match float64 ones; see :class:`greenelm.solvers.NormalEquations`).
    chunk_size : int, default=4096
        Rows of H computed at a time: memory is O(chunk_size·d + d²), flat in N.
    device : None or str or torch.device, default=None
        None for NumPy/SciPy, or a torch device ("cpu", "cuda", "cuda:1"); checked at fit time
        (torch installed, CUDA available).
    random_state : None, int, numpy.random.RandomState or numpy.random.Generator, default=0
        The projection's seed. An int is the seed itself; None draws a fresh one; a generator
        gives one draw (so, as in scikit-learn, successive fits with the same generator differ).
        The seed used is ``seed_``: ``random_state=model.seed_`` rebuilds the same model.
    partial_fit_method : {"normal", "rls"}, default="normal"
        ``partial_fit`` re-solves the accumulated normal equations (O(d³) per call) or updates an
        exact streaming RLS state (O(d²·B) per chunk, float64, needs alpha > 0; see
        :class:`greenelm.streaming.StreamingRidge`).

"""


class ELMClassifier(ClassifierMixin, _ELMBase):
    __doc__ = """Green-ELM classifier: random ReLU features and a closed-form readout on one-hot targets.

    ``fit`` and ``partial_fit`` take ``sample_weight`` (N,) ≥ 0: the readout solves the weighted
    problem (HᵀWH + λI) W2 = HᵀWY (``pinv``: the minimum-norm solution of the rows scaled by √w),
    so an integer weight equals repeating the row and a zero weight equals dropping it. A
    ``partial_fit`` batch of all-zero weights adds nothing (the model after it equals the model
    before); ``fit`` refuses all-zero weights, the same at every supported scikit-learn version.

""" + _ESTIMATOR_PARAMETERS + """    Attributes
    ----------
    coef_ : ndarray of shape (n_hidden, n_classes)
        The readout W2.
    classes_ : ndarray of shape (n_classes,)
        The labels, of the dtype they were given in.
    seed_ : int
        The projection's seed.
    n_features_in_ : int
        D; ``feature_names_in_`` too when fitted on a DataFrame.
    features_ : RandomReLUFeatures
        The frozen projection (rebuilt from ``seed_`` after loading or unpickling).

    Examples
    --------
    >>> import numpy as np
    >>> from greenelm import ELMClassifier
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((300, 4)); y = np.where(X[:, 0] * X[:, 1] > 0, "same", "other")
    >>> model = ELMClassifier(n_hidden=200, random_state=0).fit(X, y)
    >>> model.coef_.shape, model.classes_.tolist()
    ((200, 2), ['other', 'same'])
    >>> bool(model.score(X, y) > 0.9)
    True
"""

    @_one_fit_at_a_time
    def fit(self, X, y, sample_weight=None):
        """Fit on X (N, D) and labels y (N,), optionally weighting the rows by sample_weight (N,)."""
        X, y = validate_data(self, X, y, accept_sparse="csr", dtype=(np.float64, np.float32))
        check_classification_targets(y)
        sample_weight = check_sample_weight(sample_weight, X)
        self._set_classes(y, "y")
        _check_weighted_classes(y, sample_weight)
        self._fit_targets(X, self._one_hot(y), sample_weight)
        return self

    def _set_classes(self, labels, where: str) -> None:
        """``classes_`` (k,) and ``n_outputs_`` = k from ``labels``; at least two classes."""
        self.classes_ = np.unique(labels)
        if len(self.classes_) < 2:
            raise ValueError(f"{type(self).__name__} needs at least 2 classes in {where}; got 1 class "
                             f"({self.classes_.tolist()[0]!r})")
        self.n_outputs_ = len(self.classes_)

    @functools.partial(_available_unless, _pinv_cannot_stream)
    @_one_fit_at_a_time
    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """Add a block of samples X (n, D), labels y (n,) (rows weighted by sample_weight (n,), if
        given); ``classes`` (all labels) is required on the first call.

        Thread-safe with reads: it holds the estimator's lock, so it waits while another thread
        solves the readout on a first read, and reads wait until it returns (see the module's
        "Threads"); a second ``partial_fit`` or ``fit`` from another thread meanwhile raises
        ``RuntimeError``."""
        first = not self._continues_partial_fit()
        X, y = self._validated_batch(X, y, first, _plain_labels)
        if first:   # later calls: _one_hot refuses any label outside classes_
            check_classification_targets(y)
        sample_weight = check_sample_weight(sample_weight, X, allow_all_zero=True)
        if first:
            if classes is None:
                raise ValueError("classes must be given on the first call to partial_fit")
            self._set_classes(classes, "classes")
        elif classes is not None and not np.array_equal(np.unique(classes), self.classes_):
            raise ValueError(f"classes {np.unique(classes)} differ from those of the first call "
                             f"{self.classes_}")
        self._partial_fit_targets(X, self._one_hot(y), sample_weight)
        self._after_partial_fit()
        return self

    def _one_hot(self, y) -> np.ndarray:
        unknown = np.setdiff1d(y, self.classes_)
        if unknown.size:
            raise ValueError(f"y contains labels {unknown[:5]} not in classes {self.classes_}")
        return (y[:, None] == self.classes_[None, :]).astype(np.float64)

    def decision_function(self, X):
        """Readout scores (N, k); (N,) for two classes (positive: ``classes_[1]``)."""
        scores = self._raw_outputs(X)
        return scores[:, 1] - scores[:, 0] if scores.shape[1] == 2 else scores

    def predict(self, X):
        """Class labels (N,): the argmax of the readout."""
        scores = self._raw_outputs(X)
        return self.classes_[np.argmax(scores, axis=1)]


def _plain_labels(y) -> bool:
    """1-d integer, boolean or string labels, or finite float ones (no conversion needed)."""
    return y.ndim == 1 and (y.dtype.kind in "iubU" or (y.dtype.kind == "f" and np.isfinite(y).all()))


def _finite_float_targets(y) -> bool:
    """(n,) or (n, k ≥ 1) finite float targets (no conversion needed)."""
    return (y.ndim == 1 or (y.ndim == 2 and y.shape[1] >= 1)) and y.dtype.kind == "f" and np.isfinite(y).all()


def _check_weighted_classes(y, sample_weight) -> None:
    """Refuse weights that leave fewer than 2 classes with positive weight."""
    if sample_weight is None:
        return
    kept = np.unique(y[sample_weight > 0])
    if len(kept) < 2:
        raise ValueError(f"sample_weight leaves {len(kept)} class with positive weight ({kept}); "
                         "ELMClassifier needs at least 2 classes")


class ELMRegressor(RegressorMixin, _ELMBase):
    __doc__ = """Green-ELM regressor: the same features and readout on real targets y (N,) or (N, k).

    ``predict`` returns (N,) for 1-d ``y`` and (N, k) for 2-d ``y`` (also (N, 1)).
    ``fit`` and ``partial_fit`` take ``sample_weight`` as :class:`ELMClassifier`.

""" + _ESTIMATOR_PARAMETERS + """    Attributes
    ----------
    coef_ : ndarray of shape (n_hidden, k)
        The readout W2.
    seed_, n_features_in_, features_
        As in :class:`ELMClassifier`.

    Examples
    --------
    >>> import numpy as np
    >>> from greenelm import ELMRegressor
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(-2, 2, (400, 2)); y = np.sin(X[:, 0]) + X[:, 1] ** 2
    >>> model = ELMRegressor(n_hidden=300, alpha=1e-3, random_state=0).fit(X, y)
    >>> model.predict(X).shape
    (400,)
    >>> bool(model.score(X, y) > 0.99)
    True
"""

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.multi_output = True
        return tags

    @_one_fit_at_a_time
    def fit(self, X, y, sample_weight=None):
        """Fit on X (N, D) and targets y (N,) or (N, k), optionally weighting rows by sample_weight (N,)."""
        X, y = validate_data(self, X, y, accept_sparse="csr", dtype=(np.float64, np.float32), multi_output=True,
                             y_numeric=True)
        sample_weight = check_sample_weight(sample_weight, X)
        Y = self._targets(y)
        self._fit_targets(X, Y, sample_weight)
        return self

    @functools.partial(_available_unless, _pinv_cannot_stream)
    @_one_fit_at_a_time
    def partial_fit(self, X, y, sample_weight=None):
        """Add a block of samples X (n, D), targets y (n,) or (n, k) (rows weighted by
        sample_weight (n,), if given); the readout is solved on the next read.

        Thread-safe with reads, as :meth:`ELMClassifier.partial_fit`: it waits for a read that is
        solving the readout, and reads wait until it returns."""
        first = not self._continues_partial_fit()
        X, y = self._validated_batch(X, y, first, _finite_float_targets, multi_output=True, y_numeric=True)
        sample_weight = check_sample_weight(sample_weight, X, allow_all_zero=True)
        if not first and (y.ndim == 1) != self._single_output:
            raise ValueError("y has a different number of outputs than in earlier partial_fit calls")
        Y = self._targets(y, reset=first)
        self._partial_fit_targets(X, Y, sample_weight)
        self._after_partial_fit()
        return self

    def _targets(self, y, reset: bool = True) -> np.ndarray:
        if reset:
            self._single_output = y.ndim == 1
            self.n_outputs_ = 1 if y.ndim == 1 else y.shape[1]
        Y = np.asarray(y, dtype=np.float64).reshape(len(y), -1)
        if Y.shape[1] != self.n_outputs_:
            raise ValueError(f"y has {Y.shape[1]} outputs, expected {self.n_outputs_}")
        return Y

    def predict(self, X):
        """Predictions (N,) for 1-d targets, else (N, k)."""
        outputs = self._raw_outputs(X)
        return outputs[:, 0] if getattr(self, "_single_output", self.n_outputs_ == 1) else outputs


class _CrossValidatedRidge:
    """λ chosen on one Gram: GCV, or exact leave-one-out from one more pass over the features.

    Mixed into ELMClassifierCV / ELMRegressorCV ahead of their base estimator.
    """

    _scoring_name = "mse"

    def _check_readout_params(self) -> None:
        if self.alphas is not None:
            check_alphas(self.alphas)
        _check_cv(self.cv)
        if self.solver == "pinv":
            raise ValueError(f"{type(self).__name__} chooses a ridge λ > 0; solver='pinv' ignores λ. "
                             "Use solver='cholesky', 'lu' or 'eigh'")

    def _loo_blocks(self, X, Y, sample_weight=None):
        """Blocks (√w·H, √w·Y, w) of the training rows, for the LOO pass."""
        for rows, H in self._features.chunks(X, self.chunk_size):
            H = H.double().cpu().numpy() if is_torch(H) else np.asarray(H, dtype=np.float64)
            if sample_weight is None:
                yield H, Y[rows]
            else:
                root = np.sqrt(sample_weight[rows])[:, None]
                yield H * root, Y[rows] * root, sample_weight[rows]

    def _fit_cv(self, X, Y, sample_weight=None, y=None) -> None:
        """Accumulate one Gram from X (N, D) and Y (N, k) (rows weighted by sample_weight (N,)),
        pick ``alpha_`` on the grid (LOO, GCV or k folds), solve there."""
        if X.shape[0] < 2:
            raise ValueError(f"{type(self).__name__} needs at least 2 samples to cross-validate, got "
                             f"{X.shape[0]} sample")
        self._start(X.shape[0])
        self._accumulate(X, Y, sample_weight)
        gram, hty = self.equations_.as_float64()
        if is_torch(gram):
            gram, hty = gram.cpu().numpy(), hty.cpu().numpy()
        weights = np.ones(X.shape[0]) if sample_weight is None else sample_weight
        path = RidgePath(gram, hty, float(np.sum(weights[:, None] * Y**2)), X.shape[0])
        if self.alphas is None:
            mean_eigenvalue = float(np.trace(gram)) / self.n_hidden
            alphas = DEFAULT_RELATIVE_ALPHAS * (mean_eigenvalue if mean_eigenvalue > 0 else 1.0)
        else:
            alphas = check_alphas(self.alphas)
        results = path.gcv(alphas)
        if sample_weight is not None:   # N = Σw: integer weights give the GCV of the repeated rows
            total = float(weights.sum())
            results["gcv"] = total * results["train_rss"] / (total - results["dof"]) ** 2
        classifier = isinstance(self, ClassifierMixin)
        if isinstance(self.cv, str) and self.cv == "loo":
            loo = path.leave_one_out(alphas, self._loo_blocks(X, Y, sample_weight))
            results["loo_mse"] = loo["loo_mse"]
            if classifier:
                results["loo_accuracy"] = loo["loo_accuracy"]
            score_column = "loo"
        elif isinstance(self.cv, str):
            score_column = "gcv"
        else:
            folds = self._k_fold(X, Y, sample_weight, y, alphas)
            results["cv_mse"] = folds["mse"]
            if classifier:
                results["cv_accuracy"] = folds["accuracy"]
            score_column = "cv"
        if self._scoring_name == "accuracy":
            score = results[f"{score_column}_accuracy"]
            loss = -np.nan_to_num(score, nan=-np.inf)             # the best accuracy is the least loss
        else:
            score = results["gcv" if score_column == "gcv" else f"{score_column}_mse"]
            loss = np.nan_to_num(score, nan=np.inf)
        ties = np.flatnonzero(loss == loss.min())
        best = ties[np.argmax(alphas[ties])]                      # ties → the larger λ
        self.alphas_, self.cv_results_ = alphas, results
        self.alpha_ = float(alphas[best])
        self.best_score_ = float(score[best])
        _validation.warn_on_grid_edge(type(self).__name__, "alpha_", self.alpha_, alphas, "alphas", "λ", stacklevel=5)
        if self.solver == "eigh":
            self.coef_ = path.weights(self.alpha_)
        else:
            self.coef_ = solve(self.equations_, self.solver, self.alpha_)
        self.equations_ = None

    def _k_fold(self, X, Y, sample_weight, y, alphas) -> dict:
        """Per λ: the squared error (summed over the k outputs) and the accuracy (percent) of the
        readouts fitted on each split's training rows, on its test rows, pooled over the splits
        (each test row counted with its weight)."""
        from sklearn.model_selection import check_cv

        splitter = check_cv(self.cv, y, classifier=isinstance(self, ClassifierMixin))
        weights = np.ones(X.shape[0]) if sample_weight is None else sample_weight
        squared, correct, seen = np.zeros(len(alphas)), np.zeros(len(alphas)), 0.0
        for train, test in splitter.split(np.zeros((X.shape[0], 1)), y):
            equations = NormalEquations(self.n_hidden, self.n_outputs_, self._fitted("dtype"), self.device)
            X_train, Y_train, w_train = X[train], Y[train], weights[train]
            for rows, H in self._features.chunks(X_train, self.chunk_size, reuse=True):
                equations.update(*self._weighted_block(H, Y_train[rows], w_train, rows))
            gram, hty = equations.as_float64()
            if is_torch(gram):
                gram, hty = gram.cpu().numpy(), hty.cpu().numpy()
            spectrum = RidgePath(gram, hty, float(np.sum(w_train[:, None] * Y_train**2)), max(len(train), 2))
            coefficients = [spectrum.rotated_targets / (spectrum.eigenvalues + a)[:, None] for a in alphas]
            X_test, Y_test, w_test = X[test], Y[test], weights[test]
            for rows, H in self._features.chunks(X_test, self.chunk_size):
                H = H.double().cpu().numpy() if is_torch(H) else np.asarray(H, dtype=np.float64)
                P = H @ spectrum.eigenvectors
                labels = Y_test[rows].argmax(axis=1)
                for a, coef in enumerate(coefficients):
                    scores = P @ coef
                    squared[a] += np.sum(w_test[rows] * np.sum((Y_test[rows] - scores) ** 2, axis=1))
                    correct[a] += np.sum(w_test[rows] * (scores.argmax(axis=1) == labels))
            seen += float(w_test.sum())
        if seen <= 0:
            raise ValueError(f"the test rows of cv={self.cv!r} carry no weight: nothing to score")
        return {"mse": squared / seen, "accuracy": 100 * correct / seen}


def _check_cv(cv) -> None:
    """``cv``: "loo", "gcv", a number of folds >= 2, a scikit-learn splitter or an iterable of splits."""
    if isinstance(cv, str):
        check_choice("cv", cv, CV_MODES)
    elif isinstance(cv, numbers.Integral) and not isinstance(cv, bool):
        if cv < 2:
            raise ValueError(f"cv={cv!r}: k-fold cross-validation needs at least 2 folds")
    elif not (hasattr(cv, "split") and hasattr(cv, "get_n_splits")) and not hasattr(cv, "__iter__"):
        raise ValueError(f"cv must be 'loo', 'gcv', a number of folds >= 2, a scikit-learn splitter "
                         f"(KFold(5), StratifiedKFold, ...) or an iterable of (train, test) splits; "
                         f"got {cv!r}")


_CV_PARAMETERS = """
    Parameters
    ----------
    n_hidden : int, default=2000
        Hidden width d.
    alphas : array-like of shape (n_alphas,) or None, default=None
        Grid of ridge strengths λ > 0 (absolute, as ``alpha`` of the base estimator).  ``None``:
        ``np.logspace(-6, 3, 10)`` times the mean eigenvalue ``tr(HᵀH)/d`` of the training Gram,
        so the grid follows the scale of the features and of N; the grid used is ``alphas_``.
    cv : {"loo", "gcv"}, int, scikit-learn splitter or iterable of splits, default="loo"
        ``"loo"``: exact leave-one-out by the PRESS identity (one more pass over the features of X,
        no refit); ``"gcv"``: generalised cross-validation ``N·RSS/(N − dof)²`` (no extra pass);
        an int k or a splitter (``KFold``, ``StratifiedKFold`` — the default for an int with a
        classifier, as ``sklearn.model_selection.check_cv``): one Gram and eigendecomposition per
        split's training rows, the test rows' error pooled over the splits (columns ``cv_mse``
        and, for classifiers, ``cv_accuracy``).  A model fitted with a splitter object pickles but
        does not ``save`` (a model file holds no objects); an int does.
    <scoring>solver : {"cholesky", "lu", "eigh"}, default="cholesky"
        Solver of the final readout at ``alpha_`` (``"pinv"`` has no λ and is refused).
    weight_scale, bias, dtype, chunk_size, device, random_state
        As in :class:`<base>`.

    Attributes
    ----------
    alpha_ : float
        The chosen λ: the best criterion on the grid, ties going to the larger λ.  A
        ``UserWarning`` is raised when it is the smallest or largest value of the grid.
    alphas_ : ndarray of shape (n_alphas,)
        The grid searched.
    best_score_ : float
        The criterion at ``alpha_`` (<best>).
    cv_results_ : dict of ndarray of shape (n_alphas,)
        Columns ``alpha``, ``dof`` (effective degrees of freedom), ``train_rss``, ``gcv`` and, for
        ``cv="loo"``, ``loo_mse`` (per sample, summed over the k outputs)<loo_accuracy>.
    coef_ : ndarray of shape (n_hidden, k)
        The readout refitted on all of X at ``alpha_``.
    seed_, n_features_in_, features_<classes>
        As in :class:`<base>`.

    Notes
    -----
    Only one Gram ``HᵀH`` is accumulated and eigendecomposed (:class:`greenelm.model_selection.RidgePath`);
    every λ of the grid then costs O(d·k) (GCV) or O(N·d·k) in the extra pass (LOO).
    ``fit`` takes ``sample_weight`` (N,): the Gram and the final readout are weighted as in the base
    estimator; LOO leaves out each row with its whole weight and counts its error with that weight
    (as scikit-learn's ``RidgeCV``: a weight of 2 is not two repeats for the criterion), GCV uses
    N = Σw, and k folds weight the training sums and the test errors.  There is no ``partial_fit``.
"""


def _cv_doc(**parts) -> str:
    text = _CV_PARAMETERS
    for key, value in parts.items():
        text = text.replace(f"<{key}>", value)
    return text


class ELMClassifierCV(_CrossValidatedRidge, ELMClassifier):
    __doc__ = """Green-ELM classifier whose ridge λ is chosen by exact leave-one-out or GCV on one Gram.

    The one-hot targets are regressed as in :class:`ELMClassifier`; the criterion is the LOO
    (or GCV) mean squared error of the one-hot targets by default, as scikit-learn's
    ``RidgeClassifierCV``, or the LOO accuracy.
""" + _cv_doc(
        base="ELMClassifier", classes=", classes_",
        scoring=('scoring : {"mse", "accuracy"}, default="mse"\n'
                 '        ``"mse"``: squared error of the one-hot targets (LOO or GCV);\n'
                 '        ``"accuracy"``: LOO or k-fold accuracy in percent (not with ``cv="gcv"``).\n    '),
        best="GCV, LOO MSE, or LOO accuracy in percent, after ``scoring`` and ``cv``",
        loo_accuracy=" and ``loo_accuracy`` (percent)") + """
    Examples
    --------
    >>> import numpy as np
    >>> from greenelm import ELMClassifierCV
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((200, 5)); y = (X[:, 0] + X[:, 1] > 0).astype(int)
    >>> model = ELMClassifierCV(n_hidden=100, alphas=np.logspace(-2, 3, 6)).fit(X, y)
    >>> model.alpha_ in model.alphas_, model.cv_results_["loo_mse"].shape
    (True, (6,))
"""

    def __init__(self, n_hidden=2000, alphas=None, cv="loo", scoring="mse", solver="cholesky",
                 weight_scale="unit", bias="normal", dtype="float64", chunk_size=DEFAULT_CHUNK_ROWS,
                 device=None, random_state=0):
        self.n_hidden = n_hidden
        self.alphas = alphas
        self.cv = cv
        self.scoring = scoring
        self.solver = solver
        self.weight_scale = weight_scale
        self.bias = bias
        self.dtype = dtype
        self.chunk_size = chunk_size
        self.device = device
        self.random_state = random_state

    partial_fit = _available_unless(_cv_cannot_stream, ELMClassifier.partial_fit)

    @property
    def _scoring_name(self):
        return self.scoring

    def _check_readout_params(self) -> None:
        super()._check_readout_params()
        check_choice("scoring", self.scoring, CV_SCORINGS)
        if self.scoring == "accuracy" and isinstance(self.cv, str) and self.cv == "gcv":
            raise ValueError("scoring='accuracy' needs cv='loo' or k folds (GCV estimates a squared "
                             "error only)")

    @_one_fit_at_a_time
    def fit(self, X, y, sample_weight=None):
        """Choose ``alpha_`` on X (N, D), labels y (N,), rows weighted by sample_weight (N,), and
        fit the readout there."""
        X, y = validate_data(self, X, y, accept_sparse="csr", dtype=(np.float64, np.float32))
        check_classification_targets(y)
        sample_weight = check_sample_weight(sample_weight, X)
        self._set_classes(y, "y")
        _check_weighted_classes(y, sample_weight)
        self._fit_cv(X, self._one_hot(y), sample_weight, y)
        return self


class ELMRegressorCV(_CrossValidatedRidge, ELMRegressor):
    __doc__ = """Green-ELM regressor whose ridge λ is chosen by exact leave-one-out or GCV on one Gram.

    One λ for all outputs: the criterion is the LOO (or GCV) squared error summed over the k
    outputs.
""" + _cv_doc(base="ELMRegressor", classes="", scoring="",
                            best="GCV or LOO MSE, after ``cv``", loo_accuracy="") + """
    Examples
    --------
    >>> import numpy as np
    >>> from greenelm import ELMRegressorCV
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(-2, 2, (300, 2)); y = np.sin(X[:, 0]) * X[:, 1]
    >>> model = ELMRegressorCV(n_hidden=200, alphas=np.logspace(-3, 2, 6), cv="gcv").fit(X, y)
    >>> model.predict(X).shape, sorted(model.cv_results_)
    ((300,), ['alpha', 'dof', 'gcv', 'train_rss'])
"""

    def __init__(self, n_hidden=2000, alphas=None, cv="loo", solver="cholesky", weight_scale="unit",
                 bias="normal", dtype="float64", chunk_size=DEFAULT_CHUNK_ROWS, device=None,
                 random_state=0):
        self.n_hidden = n_hidden
        self.alphas = alphas
        self.cv = cv
        self.solver = solver
        self.weight_scale = weight_scale
        self.bias = bias
        self.dtype = dtype
        self.chunk_size = chunk_size
        self.device = device
        self.random_state = random_state

    partial_fit = _available_unless(_cv_cannot_stream, ELMRegressor.partial_fit)

    @_one_fit_at_a_time
    def fit(self, X, y, sample_weight=None):
        """Choose ``alpha_`` on X (N, D), targets y (N,) or (N, k), rows weighted by
        sample_weight (N,), and fit the readout there."""
        X, y = validate_data(self, X, y, accept_sparse="csr", dtype=(np.float64, np.float32), multi_output=True,
                             y_numeric=True)
        sample_weight = check_sample_weight(sample_weight, X)
        self._fit_cv(X, self._targets(y), sample_weight, y)
        return self
