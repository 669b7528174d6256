"""Phase I of Green-ELM: the frozen random ReLU projection ``H = relu(X W + b)``.

``W`` (D × d) and ``b`` (d,) are drawn once from a seed and never trained.  They are
always drawn in float64 with NumPy's PCG64 generator and then cast, so the float32 and
float64 variants (and the NumPy and torch backends) share the same projection up to
rounding.

Weight scales:

* ``"he"``:   W ~ N(0, 2/D), the paper's Phase I text;
* ``"unit"``: W ~ N(0, 1), the paper's Algorithm 1 and its appendix code.

Bias distributions: ``"normal"`` (N(0, 1), Algorithm 1 and the code) or ``"uniform"``
(U(-1, 1), the paper's Phase I says "uniformly initialized" without a range).

``H`` is produced in row chunks so a fit never holds the whole N × d matrix.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterator

import numpy as np
from scipy.linalg import blas
from scipy.sparse import issparse
from sklearn.base import BaseEstimator, ClassNamePrefixFeaturesOutMixin, TransformerMixin

from ._validation import (check_choice, check_device, check_dtype, check_positive_int, require_memory,
                          seed_from_random_state)

WEIGHT_SCALES = ("he", "unit")
BIAS_DISTRIBUTIONS = ("normal", "uniform")
DTYPES = ("float64", "float32")
DEFAULT_CHUNK_ROWS = 4096
#: a block of features smaller than this is allocated without asking how much memory is free
#: (reading /proc/meminfo and the cgroup files costs ~0.1 ms, not worth it for a small predict)
GUARD_FLOOR_BYTES = 64 << 20


def projection_memory(n_inputs: int, n_hidden: int, dtype: str, device=None) -> dict[str, int]:
    """Bytes of drawing the projection: W (D × d) and b (d,) in float64, then their casts (or
    tensors): b is as large as W with one input column, so both count (D + 1) × d values."""
    D, d = int(n_inputs), int(n_hidden)
    return {f"W and b's float64 draw ((D + 1) × d = {D + 1} × {d})": 8 * (D + 1) * d,
            f"W and b in {dtype} ({D + 1} × {d}{'' if device is None else f' on {device}'})":
                np.dtype(dtype).itemsize * (D + 1) * d}


def require_features_memory(n_rows: int, n_hidden: int, dtype: str, what: str, device=None,
                            hint: str = "transform fewer rows at a time") -> None:
    """Refuse a block of features H (n_rows × d) that does not fit (above GUARD_FLOOR_BYTES)."""
    size = np.dtype(dtype).itemsize * int(n_rows) * int(n_hidden)
    if size >= GUARD_FLOOR_BYTES:
        require_memory({f"the features H (n × d = {n_rows} × {n_hidden} {dtype})": size}, what,
                       device, hint)


def row_chunks(n_rows: int, chunk_rows: int) -> Iterator[slice]:
    """Yield consecutive row slices of at most ``chunk_rows`` rows covering ``range(n_rows)``."""
    for start in range(0, n_rows, chunk_rows):
        yield slice(start, min(start + chunk_rows, n_rows))


def draw_projection(n_inputs: int, n_hidden: int, seed: int, weight_scale: str = "unit",
                    bias: str = "normal") -> tuple[np.ndarray, np.ndarray]:
    """Draw the frozen projection in float64: ``W`` (n_inputs, n_hidden), ``b`` (n_hidden,)."""
    n_inputs = check_positive_int("n_inputs", n_inputs)
    n_hidden = check_positive_int("n_hidden", n_hidden)
    check_choice("weight_scale", weight_scale, WEIGHT_SCALES)
    check_choice("bias", bias, BIAS_DISTRIBUTIONS)
    rng = np.random.default_rng(seed)
    W = rng.standard_normal((n_inputs, n_hidden))
    if weight_scale == "he":
        W *= np.sqrt(2.0 / n_inputs)
    b = rng.standard_normal(n_hidden) if bias == "normal" else rng.uniform(-1.0, 1.0, n_hidden)
    return W, b


def _product(X: np.ndarray, W: np.ndarray, out=None) -> np.ndarray:
    """``X @ W`` (n, d), C-ordered, into ``out`` when given, by SciPy's BLAS ``gemm``.

    The same product as NumPy's ``matmul`` (``Hᵀ = Wᵀ Xᵀ`` in column-major order, no copies for
    C-ordered X and W), through the BLAS that :class:`greenelm.solvers.NormalEquations`'s
    ``syrk`` uses: a fit then alternates one BLAS thread pool, not NumPy's and SciPy's, whose idle
    threads otherwise spin beside the other's work (8 % per 4,096-row block at d = 4,000, timed
    pairwise in one process)."""
    n, d = X.shape[0], W.shape[1]
    H = np.empty((n, d), dtype=W.dtype) if out is None else out
    if n == 0 or X.shape[1] == 0 or d == 0:
        return np.matmul(X, W, out=H)
    gemm = blas.dgemm if W.dtype == np.float64 else blas.sgemm
    result = gemm(1.0, W.T, X.T, beta=0.0, c=H.T, overwrite_c=1)
    if result.ctypes.data != H.ctypes.data:      # the BLAS wrapper wrote a copy: keep its values
        H[...] = result.T
    return H


@dataclass
class RandomReLUFeatures:
    """Seeded random ReLU features ``x ↦ relu(x W + b)``: (N, D) → (N, d).

    ``device`` is ``None`` for the NumPy path or a torch device (``"cpu"``, ``"cuda"``)
    for the torch path; both give the same features to within float tolerance.

    Examples
    --------
    >>> import numpy as np
    >>> from greenelm import RandomReLUFeatures
    >>> features = RandomReLUFeatures(n_inputs=3, n_hidden=5, seed=0)
    >>> X = np.ones((4, 3))
    >>> H = features.transform(X)
    >>> H.shape, bool((H >= 0).all())
    ((4, 5), True)
    >>> [rows for rows, block in features.chunks(X, chunk_rows=3)]
    [slice(0, 3, None), slice(3, 4, None)]
    """

    n_inputs: int
    n_hidden: int
    seed: int = 0
    weight_scale: str = "unit"
    bias: str = "normal"
    dtype: str = "float64"
    device: object = None
    W: object = field(init=False, repr=False)
    b: object = field(init=False, repr=False)

    def __post_init__(self):
        self.dtype = check_dtype(self.dtype, DTYPES)
        n_inputs = check_positive_int("n_inputs", self.n_inputs)
        n_hidden = check_positive_int("n_hidden", self.n_hidden)
        what = f"RandomReLUFeatures(n_inputs={n_inputs}, n_hidden={n_hidden})"
        # the float64 draw is on the host; W, cast, where the features are computed
        plan = projection_memory(n_inputs, n_hidden, self.dtype, self.device)
        on_host = self.device is None or str(self.device) == "cpu"
        if on_host:
            require_memory(plan, what, self.device, hint="lower n_hidden")
        else:
            draw, cast = plan.items()
            require_memory(dict([draw]), what, None, hint="lower n_hidden")
            require_memory(dict([cast]), what, self.device, hint="lower n_hidden")
        W, b = draw_projection(self.n_inputs, self.n_hidden, self.seed, self.weight_scale, self.bias)
        if self.device is None:
            self.W, self.b = W.astype(self.dtype), b.astype(self.dtype)
        else:
            import torch

            torch_dtype = getattr(torch, self.dtype)
            self.W = torch.as_tensor(W, dtype=torch_dtype, device=self.device)
            self.b = torch.as_tensor(b, dtype=torch_dtype, device=self.device)

    def transform(self, X, out=None) -> np.ndarray:
        """Features of one block of rows: X (n, D) dense or SciPy sparse → H (n, d), dense, in
        ``dtype`` (and on ``device``).

        ``out`` (NumPy path only): a C-ordered (n, d) array of ``dtype`` to write H into, so that
        blocks computed one after another reuse one buffer.  A fresh (n, d) array is first touched
        inside the multithreaded GEMM, whose page faults made a 4,096 × 4,000 block 1.5-1.8× slower
        than the same GEMM into a reused buffer (``benchmarks/report.md``, fits against their floor)."""
        if out is None:
            require_features_memory(X.shape[0], self.n_hidden, self.dtype,
                                    f"RandomReLUFeatures.transform of {X.shape[0]} rows", self.device)
        if out is not None and (self.device is not None or not isinstance(out, np.ndarray)
                                or out.dtype != np.dtype(self.dtype) or not out.flags.c_contiguous
                                or out.shape != (X.shape[0], self.n_hidden)):
            raise ValueError(f"out must be a C-ordered NumPy array of shape ({X.shape[0]}, "
                             f"{self.n_hidden}) and dtype {self.dtype} (NumPy path only)")
        if issparse(X):                # sparse @ dense: a dense block; on torch, the block densified
            if self.device is None:
                product = X.astype(self.dtype) @ self.W
                if out is None:
                    H = np.asarray(product)
                else:
                    H = out
                    H[...] = product
                H += self.b
                return np.maximum(H, 0, out=H)
            X = X.toarray()
        if self.device is None:
            H = _product(np.asarray(X, dtype=self.dtype), self.W, out)
            H += self.b
            return np.maximum(H, 0, out=H)
        import torch

        if isinstance(X, np.ndarray) and not X.flags.writeable:
            X = X.copy()  # torch cannot wrap a read-only array (a memory map): copy this block
        X = torch.as_tensor(X, dtype=self.W.dtype, device=self.W.device)
        return torch.addmm(self.b, X, self.W).clamp_(min=0)

    def chunks(self, X, chunk_rows: int = DEFAULT_CHUNK_ROWS,
               reuse: bool = False) -> Iterator[tuple[slice, object]]:
        """Yield ``(rows, H[rows])`` for consecutive row blocks of X (N, D).

        ``reuse=True`` (NumPy path): every block is written into one buffer of
        ``chunk_rows`` × d, so each block is overwritten by the next: use it (or copy it) before
        asking for the next one.  It saves a fresh d-wide allocation per block (see
        :meth:`transform`)."""
        chunk_rows = check_positive_int("chunk_rows", chunk_rows)
        n_rows = X.shape[0] if issparse(X) else len(X)
        buffer = None
        if reuse and self.device is None and n_rows:
            require_features_memory(min(chunk_rows, n_rows), self.n_hidden, self.dtype,
                                    "a block of features", hint="lower chunk_rows or n_hidden")
            buffer = np.empty((min(chunk_rows, n_rows), self.n_hidden), dtype=self.dtype)
        for rows in row_chunks(n_rows, chunk_rows):
            out = None if buffer is None else buffer[: rows.stop - rows.start]
            yield rows, self.transform(X[rows], out=out)


def _refuse_overflowing_features(features: RandomReLUFeatures, X, what: str) -> None:
    """Refuse X (N, D) whose features relu(X W + b) can leave ``features.dtype``: the bound
    max |X| · max column ‖W‖₁ + max |b|, from W (D, d) in row blocks (no D × d copy)."""
    W, b = features.W, features.b
    if hasattr(W, "cpu"):                           # a torch projection
        W, b = W.double().cpu().numpy(), b.double().cpu().numpy()
    column_l1 = np.zeros(W.shape[1])
    for rows in row_chunks(W.shape[0], max(1, (1 << 20) // max(W.shape[1], 1))):
        column_l1 += np.abs(W[rows]).sum(axis=0, dtype=np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        x_max = float(abs(X).max()) if X.shape[0] else 0.0
        bound = x_max * float(column_l1.max()) + float(np.abs(b).max())
    limit = float(np.finfo(features.dtype).max)
    if not bound < limit:
        raise ValueError(f"{what}: the inputs reach max |X| = {x_max:.3g}, so the features relu(XW + b) can reach "
                         f"about {bound:.3g}, beyond the {features.dtype} limit {limit:.3g}: scale X down (for "
                         "example to [0, 1] or unit variance)")


class RandomReLUTransformer(ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator):
    """The random ReLU layer as a scikit-learn transformer: X (N, D) → relu(X W + b) (N, d).

    X may be dense or SciPy sparse (any format; converted to CSR): the features are dense.

    ``fit`` only draws ``W`` (D, d) and ``b`` (d,) from the seed (the data give D); before it, it
    checks that W (its float64 draw and its cast) and the features of the X it is given (N × d,
    what ``fit_transform`` returns) fit in the memory available, and ``transform`` checks its
    output: ``MemoryError`` naming the sizes, before allocating.  The features
    equal :meth:`RandomReLUFeatures.transform` with the same seed exactly, and those of
    :class:`greenelm.ELMRegressor` / :class:`greenelm.ELMClassifier` with the same parameters, so a
    ``Pipeline`` of this transformer and a ridge without intercept is a Green-ELM.

    Parameters
    ----------
    n_hidden : int, default=2000
        Number of features d.
    weight_scale : {"unit", "he"}, default="unit"
        W ~ N(0, 1) or N(0, 2/D).
    bias : {"normal", "uniform"}, default="normal"
        b ~ N(0, 1) or U(-1, 1).
    dtype : {"float64", "float32"}, default="float64"
        Precision of the features (and of the output).
    random_state : None, int, numpy.random.RandomState or numpy.random.Generator, default=0
        Seed of the projection, as in :class:`greenelm.ELMClassifier`; the seed used is ``seed_``.
    device : None or a torch device, default=None
        Where the features are computed (``transform`` always returns a NumPy array).

    Attributes
    ----------
    seed_ : int
        The seed W and b were drawn from.
    features_ : RandomReLUFeatures
        The projection (``features_.W`` (D, d), ``features_.b`` (d,)).
    n_features_in_ : int
        D.
    feature_names_in_ : ndarray of shape (D,)
        Input column names, when X has string column names.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.linear_model import Ridge
    >>> from sklearn.pipeline import make_pipeline
    >>> from greenelm import RandomReLUTransformer
    >>> X = np.random.default_rng(0).standard_normal((50, 3)); y = X.sum(axis=1)
    >>> RandomReLUTransformer(n_hidden=4, random_state=0).fit_transform(X).shape
    (50, 4)
    >>> RandomReLUTransformer(n_hidden=2).fit(X).get_feature_names_out()
    array(['randomrelutransformer0', 'randomrelutransformer1'], dtype=object)
    >>> model = make_pipeline(RandomReLUTransformer(100), Ridge(1e-3, fit_intercept=False)).fit(X, y)
    """

    def __init__(self, n_hidden=2000, weight_scale="unit", bias="normal", dtype="float64",
                 random_state=0, device=None):
        self.n_hidden = n_hidden
        self.weight_scale = weight_scale
        self.bias = bias
        self.dtype = dtype
        self.random_state = random_state
        self.device = device

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        # the output has the ``dtype`` parameter's precision, whatever the input's
        try:
            tags.transformer_tags.preserves_dtype = [check_dtype(self.dtype, DTYPES)]
        except ValueError:
            tags.transformer_tags.preserves_dtype = []
        tags.input_tags.sparse = True
        return tags

    def fit(self, X, y=None):
        """Draw the projection for X (N, D), dense or SciPy sparse (only D is used); returns self."""
        from sklearn.utils.validation import validate_data

        X = validate_data(self, X, accept_sparse="csr", dtype=(np.float64, np.float32))
        check_positive_int("n_hidden", self.n_hidden)
        check_choice("weight_scale", self.weight_scale, WEIGHT_SCALES)
        check_choice("bias", self.bias, BIAS_DISTRIBUTIONS)
        dtype = check_dtype(self.dtype, DTYPES)
        check_device(self.device)
        D, d, N = int(self.n_features_in_), int(self.n_hidden), X.shape[0]
        require_memory({**projection_memory(D, d, dtype, self.device),
                        f"H = transform(X) (N × d = {N} × {d} {dtype}), what fit_transform returns":
                            np.dtype(dtype).itemsize * N * d},
                       f"RandomReLUTransformer(n_hidden={d}).fit on X ({N} × {D})",
                       hint="lower n_hidden (W is D × d, the features N × d)")
        self.seed_ = seed_from_random_state(self.random_state)
        features = RandomReLUFeatures(self.n_features_in_, self.n_hidden, self.seed_,
                                      self.weight_scale, self.bias, dtype, self.device)
        _refuse_overflowing_features(features, X, f"RandomReLUTransformer(dtype={dtype!r}).fit")
        self.features_ = features
        self._n_features_out = self.n_hidden
        return self

    def transform(self, X) -> np.ndarray:
        """Features relu(X W + b): X (N, D), dense or SciPy sparse (sparse @ dense: X is never
        densified on the NumPy path; on a torch device one row block at a time) → (N, d) dense
        NumPy array of ``dtype``."""
        from sklearn.utils.validation import check_is_fitted, validate_data

        check_is_fitted(self, "features_")
        X = validate_data(self, X, reset=False, accept_sparse="csr", dtype=(np.float64, np.float32))
        require_features_memory(X.shape[0], self.n_hidden, self.features_.dtype,
                                f"RandomReLUTransformer.transform of {X.shape[0]} rows",
                                hint="transform fewer rows at a time, or lower n_hidden")
        if self.device is None:
            return self.features_.transform(X)
        out = np.empty((X.shape[0], self.n_hidden), dtype=self.features_.dtype)
        for rows, H in self.features_.chunks(X):
            out[rows] = H.cpu().numpy()
        return out
