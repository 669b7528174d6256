"""Scikit-learn estimators for Green-ELM: :class:`ELMClassifier` and :class:`ELMRegressor`.

``fit`` streams ``X`` through the random ReLU features in row chunks, accumulates ``HᵀH`` and
``HᵀY`` and solves once (solver ``pinv`` is the exception: it needs all of ``H``).
``partial_fit`` keeps accumulating, so fitting on chunks equals fitting on everything; with
``partial_fit_method="rls"`` it instead updates an exact recursive-least-squares state
(:class:`greenelm.streaming.StreamingRidge`, P = (HᵀH + λI)⁻¹ and W2) per chunk, so the
readout after each call costs O(d²·B) rather than a new O(d³) solve.

Numerical failures are loud: inputs so large that the features or their squared sums overflow
raise :class:`greenelm.solvers.NumericalOverflowError` (a ``ValueError``) naming max |X|, in
``fit`` and when the scores of ``predict`` overflow; a system singular at the given λ raises
``numpy.linalg.LinAlgError``.  A failed fit leaves no ``coef_``.

Saved models (:meth:`save`, :func:`load_model`) are ``.npz`` files holding the parameters,
the seed and the readout ``W2``; loading rebuilds ``W`` and ``b`` from the seed and checks
them against a stored SHA-256 digest, so a model never silently changes if NumPy's
generator ever did.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import tempfile
from pathlib import Path

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from ._validation import check_alpha, check_choice, check_positive_int
from .features import BIAS_DISTRIBUTIONS, DEFAULT_CHUNK_ROWS, DTYPES, WEIGHT_SCALES, RandomReLUFeatures
from .solvers import (SOLVERS, NormalEquations, NumericalOverflowError, check_finite_readout,
                      check_finite_sums, solve, solve_min_norm)

PARTIAL_FIT_METHODS = ("normal", "rls")

FORMAT_VERSION = 1


def _fails_loudly(fit_step):
    """Decorate a fit step ``(self, X, Y, ...)``: an overflow error gains the inputs' scale, and a
    readout with inf or NaN raises (overflow or a singular system, whichever the scale shows)
    and leaves the estimator unfitted.  The extra work (max |X|) is done only on failure."""

    @functools.wraps(fit_step)
    def checked(self, X, *args, **kwargs):
        try:
            fit_step(self, X, *args, **kwargs)
            if not np.isfinite(self.coef_).all():
                if self._overflows(X):
                    raise NumericalOverflowError("the readout holds inf or NaN: the features "
                                                 "overflowed")
                check_finite_readout(self.coef_, check_alpha(self.alpha), self.solver)
        except NumericalOverflowError as error:
            self.__dict__.pop("coef_", None)
            raise NumericalOverflowError(f"{error}. {self._input_scale(X)}") from None
        except np.linalg.LinAlgError as error:
            self.__dict__.pop("coef_", None)
            if self._overflows(X):  # e.g. an RLS update on inf features: the cause is the scale
                raise NumericalOverflowError(f"the solve failed ({error}) because the features "
                                             f"overflowed. {self._input_scale(X)}") from error
            raise
    return checked


class _ELMBase(BaseEstimator):
    """Shared fit/predict machinery; subclasses turn targets into the matrix Y (N, k)."""

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

    # -- parameters and features -------------------------------------------------------
    def _check_params(self) -> None:
        check_positive_int("n_hidden", self.n_hidden)
        check_positive_int("chunk_size", self.chunk_size)
        check_alpha(self.alpha)
        check_choice("solver", self.solver, SOLVERS)
        check_choice("weight_scale", self.weight_scale, WEIGHT_SCALES)
        check_choice("bias", self.bias, BIAS_DISTRIBUTIONS)
        check_choice("dtype", self.dtype, DTYPES)
        check_choice("partial_fit_method", self.partial_fit_method, PARTIAL_FIT_METHODS)
        if self.random_state is not None and not isinstance(self.random_state, (int, np.integer)):
            raise ValueError(f"random_state must be an int seed or None, got {self.random_state!r}")

    def _draw_seed(self) -> int:
        if self.random_state is None:
            return int(np.random.SeedSequence().generate_state(1)[0])
        return int(self.random_state)

    def _make_features(self) -> RandomReLUFeatures:
        return RandomReLUFeatures(self.n_features_in_, self.n_hidden, self.seed_, self.weight_scale,
                                  self.bias, self.dtype, self.device)

    @property
    def features_(self) -> RandomReLUFeatures:
        """The frozen projection (rebuilt from the seed on first use after loading or unpickling)."""
        check_is_fitted(self, "coef_")
        if getattr(self, "_features", None) is None:
            self._features = self._make_features()
        return self._features

    def _feature_bound(self, X) -> tuple[float, float]:
        """(max |X|, a bound on max |relu(XW + b)|): diagnostics computed only after a failure."""
        W, b = self._features.W, self._features.b
        W, b = (W.double().cpu().numpy(), b.double().cpu().numpy()) if hasattr(W, "cpu") else (W, b)
        with np.errstate(over="ignore", invalid="ignore"):
            x_max = float(np.max(np.abs(X))) if np.size(X) else 0.0
            column_norm = float(np.abs(W).astype(np.float64).sum(axis=0).max())
            return x_max, x_max * column_norm + float(np.abs(b).max())

    def _overflows(self, X) -> bool:
        """Whether the features, or the sums of their squares over X's rows, can exceed ``dtype``."""
        _, h_max = self._feature_bound(X)
        with np.errstate(over="ignore"):
            return not h_max * h_max * max(len(X), 1) < np.finfo(self.dtype).max

    def _input_scale(self, X, squares: bool = True) -> str:
        """What overflowed, in numbers: max |X|, the features' bound (and their squared sums')."""
        x_max, h_max = self._feature_bound(X)
        with np.errstate(over="ignore"):
            sums = f", and their squared sums {h_max * h_max * max(len(X), 1):.3g}," if squares else ""
        return (f"The inputs reach max |X| = {x_max:.3g}, so the features can reach about "
                f"{h_max:.3g}{sums} against the {self.dtype} limit {np.finfo(self.dtype).max:.3g}: "
                "scale X down (for example to [0, 1] or unit variance)")

    def __getstate__(self):
        state = self.__dict__.copy()
        state.pop("_features", None)  # rebuilt from the seed; keeps pickles small
        return state

    # -- fitting ---------------------------------------------------------------------------
    def _start(self) -> None:
        self._check_params()
        self.seed_ = self._draw_seed()
        self._features = self._make_features()
        self.equations_ = NormalEquations(self.n_hidden, self.n_outputs_, self.dtype, self.device)
        self.stream_ = None

    def _accumulate(self, X, Y) -> None:
        for rows, H in self._features.chunks(X, self.chunk_size):
            self.equations_.update(H, self._as_block(Y[rows], H))

    def _as_block(self, Y, H):
        if self.device is None:
            return Y.astype(self.dtype, copy=False)
        import torch

        return torch.as_tensor(Y, dtype=H.dtype, device=H.device)

    @_fails_loudly
    def _fit_targets(self, X, Y) -> None:
        """Fit the readout to targets Y (N, k) from inputs X (N, D)."""
        self._start()
        if self.solver == "pinv":
            H = np.empty((len(X), self.n_hidden), dtype=np.float64)
            for rows, block in self._features.chunks(X, self.chunk_size):
                H[rows] = block.cpu().numpy() if self.device is not None else block
            self.coef_ = solve_min_norm(H, Y)
            self.equations_ = None
        else:
            self._accumulate(X, Y)
            self.coef_ = solve(self.equations_, self.solver, self.alpha)

    @_fails_loudly
    def _partial_fit_targets(self, X, Y) -> None:
        if self.solver == "pinv":
            raise ValueError("partial_fit cannot use solver='pinv', which needs all of H at once; "
                             "use solver='eigh' with alpha=0 for the minimum-norm limit")
        if self.partial_fit_method == "rls" and check_alpha(self.alpha) == 0:
            raise ValueError("partial_fit_method='rls' needs alpha > 0: P = (HᵀH + λI)⁻¹ must exist")
        if not self._has_partial_state():
            self._start()
        if self.partial_fit_method == "rls":
            self._stream(X, Y)
            return
        self._accumulate(X, Y)
        self.coef_ = solve(self.equations_, self.solver, self.alpha)

    def _has_partial_state(self) -> bool:
        return (getattr(self, "equations_", None) is not None
                or getattr(self, "stream_", None) is not None)

    def _stream(self, X, Y) -> None:
        """RLS partial_fit: the accumulated normal equations (on the first call: the first chunk)
        start a float64 StreamingRidge state; every further chunk is an exact Woodbury update."""
        from .streaming import StreamingRidge

        for rows, H in self._features.chunks(X, self.chunk_size):
            Y_block = self._as_block(Y[rows], H)
            if self.stream_ is None:
                first_chunk = self.equations_.n_samples == 0
                if first_chunk:
                    self.equations_.update(H, Y_block)
                check_finite_sums(*self.equations_.as_float64())
                self.stream_ = StreamingRidge.from_normal_equations(self.equations_, self.alpha)
                self.equations_ = None
                if first_chunk:
                    continue
            self.stream_.update(H, Y_block)
        W = self.stream_.coef_
        self.coef_ = W.double().cpu().numpy().copy() if hasattr(W, "cpu") else np.array(W, dtype=np.float64)

    # -- prediction ------------------------------------------------------------------------
    def _raw_outputs(self, X) -> np.ndarray:
        """``relu(X W + b) W2`` (N, k), computed in row chunks."""
        check_is_fitted(self, "coef_")
        X = validate_data(self, X, reset=False, dtype=(np.float64, np.float32))
        features = self.features_
        out = np.empty((len(X), self.coef_.shape[1]), dtype=np.float64)
        if self.device is None:
            W2 = self.coef_.astype(self.dtype, copy=False)
            for rows, H in features.chunks(X, self.chunk_size):
                out[rows] = H @ W2
        else:
            import torch

            W2 = torch.as_tensor(self.coef_, dtype=features.W.dtype, device=features.W.device)
            for rows, H in features.chunks(X, self.chunk_size):
                out[rows] = (H @ W2).double().cpu().numpy()
        if not np.isfinite(out).all():
            raise NumericalOverflowError("the scores relu(XW + b) W2 hold inf or NaN: the features "
                                         f"overflowed. {self._input_scale(X, squares=False)}")
        return out

    # -- persistence -----------------------------------------------------------------------
    def _extra_arrays(self) -> dict:
        return {}

    def save(self, path) -> Path:
        """Write the fitted model to ``path`` (.npz) atomically; returns the path."""
        check_is_fitted(self, "coef_")
        path = Path(path)
        W, b = self.features_.W, self.features_.b
        meta = {"format_version": FORMAT_VERSION, "class": type(self).__name__,
                "params": self.get_params(), "seed": self.seed_,
                "n_features_in": self.n_features_in_, "projection_sha256": _projection_digest(W, b)}
        meta["params"]["device"] = None if self.device is None else str(self.device)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp.npz")
        os.close(fd)
        try:
            np.savez(tmp, meta=json.dumps(meta), coef=self.coef_, **self._extra_arrays())
            os.replace(tmp, path)
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)
        return path


def _projection_digest(W, b) -> str:
    digest = hashlib.sha256()
    for array in (W, b):
        array = array.cpu().numpy() if hasattr(array, "cpu") else array
        digest.update(np.ascontiguousarray(array, dtype=np.float64).tobytes())
    return digest.hexdigest()


def load_model(path):
    """Load a model written by :meth:`ELMClassifier.save` or :meth:`ELMRegressor.save`."""
    with np.load(path, allow_pickle=False) as archive:
        meta = json.loads(str(archive["meta"]))
        classes = {"ELMClassifier": ELMClassifier, "ELMRegressor": ELMRegressor}
        if meta.get("format_version") != FORMAT_VERSION or meta.get("class") not in classes:
            raise ValueError(f"{path} is not a greenelm model file of format {FORMAT_VERSION}")
        model = classes[meta["class"]](**meta["params"])
        model.seed_ = meta["seed"]
        model.n_features_in_ = meta["n_features_in"]
        model.coef_ = archive["coef"]
        model.n_outputs_ = model.coef_.shape[1]
        model.equations_ = None
        if "classes" in archive.files:
            model.classes_ = archive["classes"]
    features = model.features_
    if _projection_digest(features.W, features.b) != meta["projection_sha256"]:
        raise ValueError(f"{path}: the projection rebuilt from seed {model.seed_} differs from the "
                         "one the model was trained with (a different NumPy random generator?)")
    return model


class ELMClassifier(ClassifierMixin, _ELMBase):
    """Green-ELM classifier: random ReLU features and a closed-form readout on one-hot targets.

    Parameters
    ----------
    n_hidden : int — hidden width d.
    alpha : float — ridge λ of the normal equations (ignored by ``pinv``); default 1e-3 as the paper.
    solver : {"cholesky", "lu", "eigh", "pinv"} — see :mod:`greenelm.solvers`.
    weight_scale : {"unit", "he"} — W ~ N(0, 1) (the paper's code) or N(0, 2/D) (its text).
    bias : {"normal", "uniform"} — b ~ N(0, 1) or U(-1, 1).
    dtype : {"float64", "float32"} — precision of the features and of the Gram's products; the
        sums and the solve are float64 (float32 blocks are centred per block before their float32
        product, so float32 fits match float64 ones; see :class:`greenelm.solvers.NormalEquations`).
    chunk_size : int — rows of H computed at a time.
    device : None for NumPy/SciPy, or a torch device ("cpu", "cuda").
    random_state : int or None — seed of the projection.
    partial_fit_method : {"normal", "rls"} — ``partial_fit`` re-solves the accumulated normal
        equations (O(d³) per call) or updates an exact streaming RLS state (O(d²·B) per chunk,
        float64, needs alpha > 0; see :mod:`greenelm.streaming`).

    Attributes: ``coef_`` (d, k) readout, ``classes_``, ``seed_``, ``n_features_in_``, ``features_``.
    """

    def fit(self, X, y):
        """Fit on X (N, D) and labels y (N,)."""
        X, y = validate_data(self, X, y, dtype=(np.float64, np.float32))
        check_classification_targets(y)
        self.classes_ = np.unique(y)
        if len(self.classes_) < 2:
            raise ValueError(f"ELMClassifier needs at least 2 classes in y; got 1 class "
                             f"({self.classes_[0]!r})")
        self.n_outputs_ = len(self.classes_)
        self._fit_targets(X, self._one_hot(y))
        return self

    def partial_fit(self, X, y, classes=None):
        """Add a block of samples; ``classes`` (all labels) is required on the first call."""
        first = not self._has_partial_state()
        X, y = validate_data(self, X, y, dtype=(np.float64, np.float32), reset=first)
        check_classification_targets(y)
        if first:
            if classes is None:
                raise ValueError("classes must be given on the first call to partial_fit")
            self.classes_ = np.unique(classes)
            if len(self.classes_) < 2:
                raise ValueError("ELMClassifier needs at least 2 classes; got 1 class")
            self.n_outputs_ = len(self.classes_)
        elif classes is not None and not np.array_equal(np.unique(classes), self.classes_):
            raise ValueError(f"classes {np.unique(classes)} differ from those of the first call "
                             f"{self.classes_}")
        self._partial_fit_targets(X, self._one_hot(y))
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

    def _extra_arrays(self) -> dict:
        return {"classes": self.classes_}


class ELMRegressor(RegressorMixin, _ELMBase):
    """Green-ELM regressor: the same features and readout on real targets y (N,) or (N, k).

    Parameters as :class:`ELMClassifier`.  ``predict`` returns (N,) for 1-d ``y``.
    """

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.multi_output = True
        return tags

    def fit(self, X, y):
        """Fit on X (N, D) and targets y (N,) or (N, k)."""
        X, y = validate_data(self, X, y, dtype=(np.float64, np.float32), multi_output=True,
                             y_numeric=True)
        Y = self._targets(y)
        self._fit_targets(X, Y)
        return self

    def partial_fit(self, X, y):
        """Add a block of samples to the accumulated normal equations and re-solve."""
        first = not self._has_partial_state()
        X, y = validate_data(self, X, y, dtype=(np.float64, np.float32), multi_output=True,
                             y_numeric=True, reset=first)
        if not first and (y.ndim == 1) != self._single_output:
            raise ValueError("y has a different number of outputs than in earlier partial_fit calls")
        Y = self._targets(y, reset=first)
        self._partial_fit_targets(X, Y)
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
