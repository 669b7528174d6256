"""Scikit-learn estimators for Green-ELM: :class:`ELMClassifier` and :class:`ELMRegressor`.

``fit`` streams ``X`` through the random ReLU features in row chunks, accumulates ``HᵀH`` and
``HᵀY`` and solves once (solver ``pinv`` is the exception: it needs all of ``H``).
``partial_fit`` keeps accumulating, so fitting on chunks equals fitting on everything; with
``partial_fit_method="rls"`` it instead updates an exact recursive-least-squares state
(:class:`greenelm.streaming.StreamingRidge`, P = (HᵀH + λI)⁻¹ and W2) per chunk, so the
readout after each call costs O(d²·B) rather than a new O(d³) solve.

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

import hashlib
from pathlib import Path

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from ._persistence import (SAVED_DEVICE, ModelFileError, portable_pickle_state, read_model,
                           restore_pickle_state, write_model)
from ._validation import check_alpha, check_choice, check_positive_int
from .features import BIAS_DISTRIBUTIONS, DEFAULT_CHUNK_ROWS, DTYPES, WEIGHT_SCALES, RandomReLUFeatures
from .solvers import SOLVERS, NormalEquations, solve, solve_min_norm

PARTIAL_FIT_METHODS = ("normal", "rls")


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

    def __getstate__(self):
        """Everything but ``W`` and ``b`` (rebuilt from the seed, so the pickle does not hold the
        D × d projection); the partial-fit state (d × d, 8·d² bytes) is kept as CPU NumPy arrays
        so ``partial_fit`` continues after unpickling, wherever the model ran."""
        state = dict(super().__getstate__())
        state.pop("_features", None)
        return portable_pickle_state(state)

    def __setstate__(self, state):
        super().__setstate__(restore_pickle_state(state))

    # -- fitting ---------------------------------------------------------------------------
    def _start(self) -> None:
        self._check_params()
        self.seed_ = self._draw_seed()
        self._features = self._make_features()
        self.equations_ = NormalEquations(self.n_hidden, self.n_outputs_, self.dtype, self.device)
        self.stream_ = None
        self._fitted_by_partial_fit = False
        self._partial_state_missing = None

    def _accumulate(self, X, Y) -> None:
        for rows, H in self._features.chunks(X, self.chunk_size):
            self.equations_.update(H, self._as_block(Y[rows], H))

    def _as_block(self, Y, H):
        if self.device is None:
            return Y.astype(self.dtype, copy=False)
        import torch

        return torch.as_tensor(Y, dtype=H.dtype, device=H.device)

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

    def _partial_fit_targets(self, X, Y) -> None:
        if self.solver == "pinv":
            raise ValueError("partial_fit cannot use solver='pinv', which needs all of H at once; "
                             "use solver='eigh' with alpha=0 for the minimum-norm limit")
        if self.partial_fit_method == "rls" and check_alpha(self.alpha) == 0:
            raise ValueError("partial_fit_method='rls' needs alpha > 0: P = (HᵀH + λI)⁻¹ must exist")
        if not self._has_partial_state():
            self._start()
        elif getattr(self, "_features", None) is None:  # loaded or unpickled: W from the seed
            self._features = self._make_features()
        self._fitted_by_partial_fit = True
        if self.partial_fit_method == "rls":
            self._stream(X, Y)
            return
        self._accumulate(X, Y)
        self.coef_ = solve(self.equations_, self.solver, self.alpha)

    def _has_partial_state(self) -> bool:
        if getattr(self, "_partial_state_missing", None):  # loaded from a file without the state
            raise ValueError(self._partial_state_missing)
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
        return out

    # -- persistence -----------------------------------------------------------------------
    def save(self, path, include_state="auto") -> Path:
        """Write the fitted model to ``path`` (.npz, no pickled objects) atomically; returns the path.

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
        """
        check_is_fitted(self, "coef_")
        return write_model(self, path, include_state, _projection_digest(self.features_.W,
                                                                          self.features_.b))


def _projection_digest(W, b) -> str:
    digest = hashlib.sha256()
    for array in (W, b):
        array = array.cpu().numpy() if hasattr(array, "cpu") else array
        digest.update(np.ascontiguousarray(array, dtype=np.float64).tobytes())
    return digest.hexdigest()


def load_model(path, device=SAVED_DEVICE):
    """Load a model written by :meth:`ELMClassifier.save` or :meth:`ELMRegressor.save`.

    ``device`` — where the loaded model runs: ``"saved"`` (default) the device it was saved
    with, ``None`` NumPy, or a torch device (``"cpu"``, ``"cuda"``, ``"cuda:1"``).  A model
    saved on a device this machine lacks (e.g. CUDA) raises ``ValueError`` saying to pass
    ``device=None`` or ``"cpu"``; the loaded model's ``device`` parameter is the one chosen.

    Every field is validated before the projection is drawn or the d × d state is read; a
    file that is not a valid greenelm model raises :class:`ModelFileError` (a ``ValueError``)
    naming the file and the field, as does a projection rebuilt from the seed that differs
    from the saved digest.
    """
    model, expected = read_model(path, {"ELMClassifier": ELMClassifier, "ELMRegressor": ELMRegressor},
                                 device)
    features = model.features_
    if _projection_digest(features.W, features.b) != expected:
        raise ModelFileError(path, "projection_sha256", f"the projection rebuilt from seed "
                             f"{model.seed_} differs from the one the model was trained with "
                             "(a different NumPy random generator?)")
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
    dtype : {"float64", "float32"} — precision of features and Gram (the solve is float64).
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
