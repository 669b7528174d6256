"""Phase II of Green-ELM: the closed-form readout ``W2`` (d × k) from ``H`` (N × d) and ``Y`` (N × k).

Every solver but ``pinv`` needs only the sufficient statistics ``G = HᵀH`` (d × d) and
``HᵀY`` (d × k), which add over row blocks (:class:`NormalEquations`).  ``G`` is accumulated
with BLAS ``syrk`` (half the work of ``H.T @ H``; only the upper triangle is kept).

Solvers (one interface, :func:`solve`):

* ``pinv``     — exact minimum-norm least squares ``H⁺ Y`` by SVD (LAPACK ``gelsd``), λ ignored,
  as the paper's Moore–Penrose solution; it needs all of ``H`` (:func:`solve_min_norm`);
* ``lu``       — ``(G + λI) W2 = HᵀY`` by LU (LAPACK ``getrf``/``getrs``), the paper's ``np.linalg.solve``;
* ``cholesky`` — the same system by Cholesky (``potrf``/``potrs``), the fastest exact path;
* ``eigh``     — ``G = V diag(s) Vᵀ`` once (:class:`GramSpectrum`), then any λ, including the
  λ → 0 minimum-norm limit, in O(d²k).

The sums and the d × d factorisation are float64 even when the features are float32: the
factorisation costs O(d³), small next to the O(Nd²) Gram, and float32 normal equations lose
about half of their digits.  Float32 features keep their float32 products: each block of rows
is centred on its column means, multiplied in float32 and added into the float64 sums with a
float64 correction for the means (:class:`NormalEquations`); a plain float32 Gram over all rows
is not positive definite on the paper's MNIST setting with He weights at d = 4000.

Failures are loud: sums with inf or NaN (features that overflowed) raise
:class:`NumericalOverflowError`; a system singular at the given λ (a failed or rounding-level
Cholesky pivot, an LU condition number beyond 1/eps, a readout with inf or NaN) raises
``numpy.linalg.LinAlgError`` naming λ.

Factorisations of order ≥ :data:`LARGE_ORDER` are routed to torch's LAPACK when torch is
installed, because the multithreaded OpenBLAS of the NumPy/SciPy wheels is known to crash in
``potrf`` at that size; without torch they run in SciPy with its BLAS limited to one thread
(slower, and safe).
"""

from __future__ import annotations

import contextlib
import importlib.util
import warnings
from dataclasses import dataclass

import numpy as np
import scipy.linalg
from scipy.linalg import blas

from ._validation import check_alpha

SOLVERS = ("pinv", "lu", "cholesky", "eigh")
NORMAL_EQUATION_SOLVERS = ("lu", "cholesky", "eigh")
LARGE_ORDER = 16000
#: rows of a float32 block whose Gram is formed in float32 before it is added into float64 sums
FLOAT32_BLOCK_ROWS = 4096
#: rows gathered before the sums are updated (see :func:`sum_block_rows`), per block dtype
SUM_BLOCK_ROWS = {"float64": 1024, "float32": FLOAT32_BLOCK_ROWS}
#: columns per band when a float32 block's upper triangle is added into the float64 sums (the lower
#: one holds zeros: adding it too moved d²/2 more values per block)
TRIANGLE_BAND = 512
#: the most memory the gathering buffer of :class:`NormalEquations` may hold
SUM_BUFFER_BYTES = 256 * 2**20


def is_torch(array) -> bool:
    """True when ``array`` is a torch tensor (without importing torch otherwise)."""
    return type(array).__module__.startswith("torch")


def sum_block_rows(n_hidden: int, dtype: str = "float64") -> int:
    """Rows :class:`NormalEquations` gathers before it updates its d × d sums.

    The rule: :data:`SUM_BLOCK_ROWS` (1,024 rows in float64, 4,096 in float32), fewer when that
    buffer would pass :data:`SUM_BUFFER_BYTES` (256 MiB), never fewer than 256.  Each update of
    the sums reads and writes all d² entries of the Gram (float32 blocks: three such passes), for
    n·d² multiply-adds of ``syrk``: with fewer than a few hundred rows a block is memory-bound, and
    8-row blocks ran 33× slower than one block at d = 8,192 on this project's 2-core machine.
    At these sizes ``syrk`` is within 10 % of its large-block rate (``benchmarks/reports/batch_size.md``).

    Examples
    --------
    >>> from greenelm import sum_block_rows
    >>> sum_block_rows(2000, "float64"), sum_block_rows(2000, "float32"), sum_block_rows(65536, "float32")
    (1024, 4096, 1024)
    """
    itemsize = 4 if dtype == "float32" else 8
    fit_in_buffer = SUM_BUFFER_BYTES // (max(int(n_hidden), 1) * itemsize)
    return int(max(256, min(SUM_BLOCK_ROWS[dtype], fit_in_buffer)))


class NormalEquations:
    """Running sums ``G = HᵀH`` (upper triangle valid) and ``HᵀY`` over row blocks.

    Blocks may be NumPy arrays or torch tensors (then the sums live on the blocks' device).
    ``n_samples`` counts the rows seen.  Two accumulators with the same shape add with ``+``.

    **Any block size at full speed.**  ``update`` copies rows into a buffer of ``block_rows`` rows
    (:func:`sum_block_rows`: chosen from d and the dtype) and adds the buffer into the sums when it
    is full; blocks of at least ``block_rows`` rows go straight in.  Reading ``gram``, ``hty`` or
    :meth:`as_float64` (or adding, copying, pickling) first adds the rows still in the buffer
    (:meth:`flush`), so the sums always equal those of one block up to the order of summation
    (float64: ~1e-15 relative; float32 blocks: see below).  ``block_rows=1`` adds every block as it comes.

    ``dtype`` is the blocks' precision.  The sums are float64 in both cases.  Float32 blocks are
    split into blocks of at most :data:`FLOAT32_BLOCK_ROWS` rows; each is centred on its own
    column means, its Gram (with H̃ᵀY beside it) is formed by one float32 ``syrk`` of the centred
    block and Y side by side into a float32 (d + k) × (d + k) scratch matrix,
    and that partial Gram plus a float64 rank-2 correction for the means is added into
    the float64 sums.  A plain float32 sum over all N rows loses the Gram's small eigenvalues to
    rounding, which scales with the features' common offset (``G + λI`` is then not positive
    definite on the paper's MNIST settings with ``weight_scale="he"``); centring removes the
    offset and the per-block float64 summation the growth with N, for O(nd + d²) per block next
    to the O(nd²) float32 product.  Memory: a float64 d × d and a float32 (d + k) × (d + k)
    matrix, the buffer (``block_rows`` × (d + k) in ``dtype``) and, for float32, the centred
    block beside Y (at most :data:`FLOAT32_BLOCK_ROWS` × (d + k)).  ``benchmarks/float32_remedies.md`` measures this
    against the alternatives.

    Examples
    --------
    >>> import numpy as np
    >>> from greenelm import NormalEquations, solve
    >>> rng = np.random.default_rng(0)
    >>> H, Y = rng.random((100, 6)), rng.random((100, 2))
    >>> equations = NormalEquations(n_hidden=6, n_outputs=2)
    >>> for rows in (slice(0, 60), slice(60, 100)):      # any split of the rows
    ...     equations.update(H[rows], Y[rows])
    >>> W2 = solve(equations, "cholesky", alpha=1e-3)
    >>> bool(np.allclose(W2, np.linalg.solve(H.T @ H + 1e-3 * np.eye(6), H.T @ Y)))
    True
    """

    def __init__(self, n_hidden: int, n_outputs: int, dtype="float64", device=None,
                 block_rows: int | None = None):
        self.n_hidden, self.n_outputs, self.n_samples = int(n_hidden), int(n_outputs), 0
        self.dtype = str(dtype).replace("torch.", "") if "torch" in str(dtype) else np.dtype(dtype).name
        if self.dtype not in ("float32", "float64"):
            raise ValueError(f"dtype must be 'float32' or 'float64', got {dtype!r}")
        if block_rows is None:
            block_rows = sum_block_rows(self.n_hidden, self.dtype)
        if isinstance(block_rows, bool) or not isinstance(block_rows, (int, np.integer)) or block_rows < 1:
            raise ValueError(f"block_rows must be an integer >= 1, got {block_rows!r}")
        self.block_rows = int(block_rows)
        self._scratch = None  # float32 (d + k)² partial [H̃ Y]ᵀ[H̃ Y] of one block (float32 blocks only)
        self._centred = None  # float32 block rows minus their means, Y beside them (float32 blocks only)
        self._buffer_H = self._buffer_Y = None  # rows gathered, not yet in the sums
        self._pending = 0
        if device is None:
            # Fortran order lets syrk update G in place.
            self._gram = np.zeros((n_hidden, n_hidden), dtype=np.float64, order="F")
            self._hty = np.zeros((n_hidden, n_outputs), dtype=np.float64)
        else:
            import torch

            self._gram = torch.zeros((n_hidden, n_hidden), dtype=torch.float64, device=device)
            self._hty = torch.zeros((n_hidden, n_outputs), dtype=torch.float64, device=device)

    # -- the sums, complete whenever they are read --------------------------------------
    @property
    def gram(self):
        """``HᵀH`` (d, d) float64, upper triangle valid (the gathered rows added first)."""
        self.flush()
        return self._gram

    @gram.setter
    def gram(self, value):
        self._gram = value

    @property
    def hty(self):
        """``HᵀY`` (d, k) float64 (the gathered rows added first)."""
        self.flush()
        return self._hty

    @hty.setter
    def hty(self, value):
        self._hty = value

    @property
    def pending_rows(self) -> int:
        """Rows counted in ``n_samples`` that wait in the buffer for the next :meth:`flush`."""
        return self._pending

    def update(self, H, Y) -> None:
        """Add one block: H (n, d) and Y (n, k) in ``dtype`` (any number of rows, gathered)."""
        if H.shape[1] != self.n_hidden or Y.shape != (H.shape[0], self.n_outputs):
            raise ValueError(f"block shapes H {tuple(H.shape)} and Y {tuple(Y.shape)} do not match "
                             f"d={self.n_hidden}, k={self.n_outputs}")
        n, start = H.shape[0], 0
        self.n_samples += n
        while start < n:
            if self._pending == 0 and n - start >= self.block_rows:
                self._add_block(H[start:], Y[start:])      # large enough: no copy
                return
            take = min(n - start, self.block_rows - self._pending)
            self._gather(H[start:start + take], Y[start:start + take])
            start += take
            if self._pending == self.block_rows:
                self.flush()

    def _gather(self, H, Y) -> None:
        """Copy rows H (m, d), Y (m, k) into the buffer (allocated on first use)."""
        if self._buffer_H is None:
            if is_torch(self._gram):
                import torch

                dtype = getattr(torch, self.dtype)
                self._buffer_H = torch.empty((self.block_rows, self.n_hidden), dtype=dtype,
                                             device=self._gram.device)
                self._buffer_Y = torch.empty((self.block_rows, self.n_outputs), dtype=dtype,
                                             device=self._gram.device)
            else:
                self._buffer_H = np.empty((self.block_rows, self.n_hidden), dtype=self.dtype)
                self._buffer_Y = np.empty((self.block_rows, self.n_outputs), dtype=self.dtype)
        rows = slice(self._pending, self._pending + H.shape[0])
        if is_torch(self._buffer_H):
            import torch

            self._buffer_H[rows] = torch.as_tensor(H, device=self._buffer_H.device)
            self._buffer_Y[rows] = torch.as_tensor(Y, device=self._buffer_Y.device)
        else:
            self._buffer_H[rows] = H
            self._buffer_Y[rows] = Y
        self._pending += H.shape[0]

    def flush(self) -> None:
        """Add the gathered rows into the sums (a no-op when none wait)."""
        if self._pending:
            pending, self._pending = self._pending, 0
            self._add_block(self._buffer_H[:pending], self._buffer_Y[:pending])

    def _add_block(self, H, Y) -> None:
        """Add H (n, d), Y (n, k) into the sums now."""
        if self.dtype == "float32":
            for start in range(0, H.shape[0], FLOAT32_BLOCK_ROWS):
                rows = slice(start, start + FLOAT32_BLOCK_ROWS)
                self._add_float32_block(H[rows], Y[rows])
        elif is_torch(self._gram):
            H = H.to(self._gram.dtype)
            self._gram.addmm_(H.T, H)
            self._hty.addmm_(H.T, Y.to(self._hty.dtype))
        else:
            H = np.asarray(H, dtype=np.float64)
            # H.T of a C-ordered block is Fortran-ordered: syrk computes (Hᵀ)(Hᵀ)ᵀ = HᵀH with no copy.
            self._gram = blas.dsyrk(1.0, H.T, beta=1.0, c=self._gram, trans=0, lower=0, overwrite_c=1)
            # SciPy's gemm, as the syrk and the features: one BLAS thread pool for the whole fit
            self._hty += blas.dgemm(1.0, H.T, np.asarray(Y, dtype=np.float64))

    def _add_float32_block(self, H, Y) -> None:
        """The float32 remedy for one block of ≤ FLOAT32_BLOCK_ROWS rows: H (n, d), Y (n, k).

        With s the block's column means (float32) and H̃ = H - s: HᵀH = H̃ᵀH̃ + s vᵀ + v sᵀ with
        v = H̃ᵀ1 + (n/2) s, and HᵀY = H̃ᵀY + s (1ᵀY).  H̃ᵀH̃ and H̃ᵀY are float32 products (one
        ``ssyrk`` of [H̃ Y], n × (d + k), on the NumPy path); the column sums H̃ᵀ1 and the rank-2
        correction are float64.
        """
        n = H.shape[0]
        if is_torch(self._gram):
            import torch

            H, Y = H.to(torch.float32), Y.to(torch.float32)
            shift = H.mean(dim=0)
            centred = H - shift
            shift = shift.double()
            v = centred.sum(dim=0, dtype=torch.float64) + 0.5 * n * shift
            self._gram += centred.T @ centred
            self._gram += torch.outer(shift, v) + torch.outer(v, shift)
            self._hty += centred.T @ Y
            self._hty += torch.outer(shift, Y.sum(dim=0, dtype=torch.float64))
            return
        H, Y = np.asarray(H, dtype=np.float32), np.asarray(Y, dtype=np.float32)
        d = self.n_hidden
        shift = H.mean(axis=0)
        if self._centred is None or self._centred.shape[0] < n:
            # kept for the next block: a fresh n × (d + k) array per block costs its page faults again
            self._centred = np.empty((min(max(n, self.block_rows), FLOAT32_BLOCK_ROWS),
                                      d + self.n_outputs), dtype=np.float32)
        # [H̃ Y] side by side: one syrk gives H̃ᵀH̃ and H̃ᵀY (and YᵀY, unused) in one pass over the
        # block, where a separate H̃ᵀY product read all n × d values again (~10 % of a d = 4,000 fit)
        block = self._centred[:n]
        centred = np.subtract(H, shift, out=block[:, :d])
        block[:, d:] = Y
        shift = shift.astype(np.float64)
        v = centred.sum(axis=0, dtype=np.float64) + 0.5 * n * shift
        if self._scratch is None:
            self._scratch = np.zeros((d + self.n_outputs,) * 2, dtype=np.float32, order="F")
        # beta=0 overwrites the upper triangle; the lower one stays zero, as in the float64 sums.
        self._scratch = blas.ssyrk(1.0, block.T, beta=0.0, c=self._scratch, trans=0, lower=0,
                                   overwrite_c=1)
        for start in range(0, d, TRIANGLE_BAND):   # the upper triangle only, in column bands
            stop = min(start + TRIANGLE_BAND, d)
            self._gram[:stop, start:stop] += self._scratch[:stop, start:stop]
        self._gram = blas.dsyr2k(1.0, shift[:, None], v[:, None], beta=1.0, c=self._gram, trans=0,
                                 lower=0, overwrite_c=1)
        self._hty += self._scratch[:d, d:]
        self._hty += np.outer(shift, Y.sum(axis=0, dtype=np.float64))

    def release_scratch(self) -> None:
        """Add the gathered rows, then free the buffer and the float32 scratch Gram (kept otherwise
        for the next block): call when no more rows will come, to hold only the sums."""
        self.flush()
        self._scratch = self._centred = self._buffer_H = self._buffer_Y = None

    @classmethod
    def from_sums(cls, gram, hty, n_samples: int, dtype="float64", device=None,
                  block_rows: int | None = None) -> "NormalEquations":
        """Accumulated sums ``G`` (d, d; upper triangle valid) and ``HᵀY`` (d, k), stored as float64
        (NumPy, or torch on ``device``), to be continued with blocks in ``dtype``."""
        equations = cls(gram.shape[0], hty.shape[1], dtype, device, block_rows)
        if device is None:
            equations._gram = np.array(gram, dtype=np.float64, order="F")
            equations._hty = np.array(hty, dtype=np.float64)
        else:
            import torch

            equations._gram = torch.as_tensor(gram, dtype=torch.float64, device=device).clone()
            equations._hty = torch.as_tensor(hty, dtype=torch.float64, device=device).clone()
        equations.n_samples = int(n_samples)
        return equations

    def copy(self) -> "NormalEquations":
        """An independent copy with the same sums (gathered rows added first)."""
        twin = NormalEquations.__new__(NormalEquations)
        twin.__dict__.update(self.__getstate__())
        clone = (lambda a: a.clone()) if is_torch(self._gram) else (lambda a: a.copy(order="K"))
        twin._gram, twin._hty = clone(self._gram), clone(self._hty)
        return twin

    def __getstate__(self):
        self.flush()
        state = self.__dict__.copy()
        # scratch space and the empty buffer, not state: keeps pickles (dask) small
        state["_scratch"] = state["_centred"] = state["_buffer_H"] = state["_buffer_Y"] = None
        return state

    def __setstate__(self, state):
        for old, new in (("gram", "_gram"), ("hty", "_hty")):  # pickles from before the buffer
            if old in state:
                state[new] = state.pop(old)
        state.setdefault("_scratch", None)
        state.setdefault("_centred", None)
        state.setdefault("_buffer_H", None)
        state.setdefault("_buffer_Y", None)
        state.setdefault("_pending", 0)
        state.setdefault("dtype", str(state["_gram"].dtype).replace("torch.", ""))
        state.setdefault("block_rows", sum_block_rows(state["n_hidden"], state["dtype"]))
        self.__dict__.update(state)

    def __add__(self, other: "NormalEquations") -> "NormalEquations":
        if (self.n_hidden, self.n_outputs) != (other.n_hidden, other.n_outputs):
            raise ValueError("cannot add normal equations of different shapes")
        total = NormalEquations.__new__(NormalEquations)
        total.__dict__.update(self.__getstate__())
        total._gram = self.gram + other.gram
        total._hty = self.hty + other.hty
        total.n_samples = self.n_samples + other.n_samples
        return total

    def as_float64(self):
        """``(G_upper, HᵀY)`` in float64, NumPy (G Fortran-ordered) or torch on the sums' device."""
        self.flush()
        if is_torch(self._gram):
            return self._gram.double(), self._hty.double()
        return np.asarray(self._gram, dtype=np.float64, order="F"), self._hty.astype(np.float64)


class NumericalOverflowError(ValueError):
    """The random features, their accumulated sums or the scores left the floating-point range."""


def _all_finite(array) -> bool:
    if is_torch(array):
        import torch

        return bool(torch.isfinite(array).all())
    return bool(np.isfinite(array).all())


def check_finite_sums(gram, hty=None) -> None:
    """Raise :class:`NumericalOverflowError` when G (d, d) or HᵀY (d, k) hold inf or NaN.

    The sums add squares of the features, so they overflow first: inf or NaN there means the
    features relu(XW + b) were too large for the precision, i.e. the inputs were.  O(d²).
    """
    if _all_finite(gram) and (hty is None or _all_finite(hty)):
        return
    diagonal = gram.diagonal()
    diagonal = diagonal.cpu().numpy() if is_torch(diagonal) else np.asarray(diagonal)
    raise NumericalOverflowError(
        f"the accumulated sums HᵀH / HᵀY hold inf or NaN ({int(np.sum(~np.isfinite(diagonal)))} of "
        f"{len(diagonal)} squared-feature sums diag(HᵀH) are not finite): the random features "
        "relu(XW + b) or their squares overflowed (float64 holds up to 1.8e308, float32 up to "
        "3.4e38), so the inputs are far too large; scale X down (e.g. to [0, 1] or unit variance)")


def check_finite_readout(W2, alpha: float, solver: str) -> None:
    """Raise ``LinAlgError`` when the readout (d, k) holds inf or NaN (with finite sums: singular)."""
    if not _all_finite(W2):
        raise np.linalg.LinAlgError(_singular_message(
            alpha, f"the readout from solver={solver!r} holds inf or NaN"))


def _singular_message(alpha: float, detail: str) -> str:
    return (f"G + λI is numerically singular at λ = {alpha:g} ({detail}): the features are linearly "
            "dependent (duplicated or dead features, or n_hidden > n_samples) and λ is too small to "
            "regularise them; raise alpha, or use solver='eigh' (alpha=0 gives the minimum-norm "
            "solution) or solver='pinv'")


def _check_pivots(pivots, diagonal, alpha: float) -> None:
    """Refuse a Cholesky factor whose smallest squared pivot is at the rounding floor
    ``d · eps · max diag(G + λI)``: the solve would then return rounding noise."""
    floor = len(diagonal) * np.finfo(np.float64).eps * float(np.max(diagonal))
    smallest = float(np.min(pivots)) ** 2
    if not smallest > floor:
        raise np.linalg.LinAlgError(_singular_message(
            alpha, f"smallest squared Cholesky pivot {smallest:.3g} is below the rounding floor "
                   f"{floor:.3g}"))


def symmetrize_upper(gram_upper):
    """Full symmetric matrix from one whose upper triangle holds the values (d × d; NumPy or torch)."""
    if is_torch(gram_upper):
        return gram_upper.triu() + gram_upper.triu(1).T
    return np.triu(gram_upper) + np.triu(gram_upper, 1).T


def _ridge_matrix(gram_upper: np.ndarray, alpha: float) -> np.ndarray:
    """``G + λI`` as a new float64 Fortran array (upper triangle valid)."""
    A = np.array(gram_upper, dtype=np.float64, order="F", copy=True)
    A.flat[:: A.shape[0] + 1] += alpha
    return A


def _solve_torch(gram_upper, hty, alpha: float, solver: str):
    """``(G + λI)⁻¹ HᵀY`` with torch's LAPACK on the tensors' device (float64); returns NumPy (d, k)."""
    import torch

    A = symmetrize_upper(torch.as_tensor(gram_upper, dtype=torch.float64))
    A.diagonal().add_(alpha)
    B = torch.as_tensor(np.asarray(hty) if not is_torch(hty) else hty, dtype=torch.float64,
                        device=A.device)
    if solver == "cholesky":
        L, info = torch.linalg.cholesky_ex(A)
        if int(info) != 0:
            raise np.linalg.LinAlgError(_not_pd_message(int(info), alpha))
        _check_pivots(L.diagonal().abs().cpu().numpy(), A.diagonal().cpu().numpy(), alpha)
        return torch.cholesky_solve(B, L).cpu().numpy()
    try:
        return torch.linalg.solve(A, B).cpu().numpy()
    except RuntimeError as error:  # torch's LinAlgError is a RuntimeError
        raise np.linalg.LinAlgError(_singular_message(alpha, f"LU failed: {error}")) from error


def _not_pd_message(order, alpha: float) -> str:
    return _singular_message(alpha, f"not positive definite: leading minor {order} failed")


def _large_on_torch(gram_upper) -> bool:
    """Whether this factorisation runs in torch: torch tensors always, NumPy arrays of order
    ≥ LARGE_ORDER when torch is installed."""
    return is_torch(gram_upper) or (gram_upper.shape[0] >= LARGE_ORDER
                                    and importlib.util.find_spec("torch") is not None)


def _scipy_threads(order: int):
    """A context in which SciPy's LAPACK runs single-threaded for orders ≥ LARGE_ORDER."""
    if order < LARGE_ORDER:
        return contextlib.nullcontext()
    from threadpoolctl import threadpool_limits  # a dependency of scikit-learn

    return threadpool_limits(limits=1, user_api="blas")


def solve_normal_equations(gram_upper, hty, alpha: float, solver: str = "cholesky") -> np.ndarray:
    """Ridge readout ``W2 = (G + λI)⁻¹ HᵀY``: G (d, d) upper triangle valid, HᵀY (d, k) → (d, k) float64.

    NumPy inputs are solved with SciPy's LAPACK (torch's beyond LARGE_ORDER when installed, else
    SciPy single-threaded); torch tensors on their own device.  The result is a NumPy array.

    Fails loudly: :class:`NumericalOverflowError` when G or HᵀY are not finite (the features
    overflowed), ``LinAlgError`` naming λ when ``G + λI`` is singular to working precision
    (a failed or rounding-level Cholesky pivot, an LU condition number beyond 1/eps, or a
    readout with inf/NaN).  The checks cost O(d²).
    """
    alpha = check_alpha(alpha)
    if solver not in NORMAL_EQUATION_SOLVERS:
        raise ValueError(f"unknown solver {solver!r} for the normal equations; "
                         f"choose one of {', '.join(map(repr, NORMAL_EQUATION_SOLVERS))}")
    check_finite_sums(gram_upper, hty)
    if solver == "eigh":
        W2 = GramSpectrum(gram_upper).weights(hty, alpha)
    elif _large_on_torch(gram_upper):
        W2 = _solve_torch(gram_upper, hty, alpha, solver)
    else:
        with _scipy_threads(gram_upper.shape[0]):
            W2 = _solve_scipy(_ridge_matrix(gram_upper, alpha), np.asarray(hty, dtype=np.float64),
                              alpha, solver)
    check_finite_readout(W2, alpha, solver)
    return W2


def _solve_scipy(A: np.ndarray, B: np.ndarray, alpha: float, solver: str) -> np.ndarray:
    """``A⁻¹ B`` for A = G + λI (d, d; upper triangle valid, overwritten) by Cholesky or LU."""
    if solver == "cholesky":
        diagonal = A.diagonal().copy()
        try:
            factor = scipy.linalg.cho_factor(A, lower=False, overwrite_a=True, check_finite=False)
        except np.linalg.LinAlgError as error:
            raise np.linalg.LinAlgError(_not_pd_message(str(error).split("-th")[0], alpha)) from error
        _check_pivots(np.abs(factor[0].diagonal()), diagonal, alpha)
        return scipy.linalg.cho_solve(factor, B, check_finite=False)
    with warnings.catch_warnings():
        # SciPy only warns when the LU's reciprocal condition number is below eps.
        warnings.simplefilter("error", scipy.linalg.LinAlgWarning)
        try:
            return scipy.linalg.solve(symmetrize_upper(A), B, assume_a="gen", overwrite_a=True,
                                      check_finite=False)
        except (np.linalg.LinAlgError, scipy.linalg.LinAlgWarning) as error:
            raise np.linalg.LinAlgError(_singular_message(alpha, f"LU: {error}")) from error


class GramSpectrum:
    """Eigendecomposition ``G = V diag(s) Vᵀ`` of a Gram matrix (d × d), once, for any λ.

    ``weights(HᵀY, λ)`` is ``V diag(1/(s+λ)) Vᵀ HᵀY``.  At λ = 0 it is the minimum-norm
    least-squares solution ``H⁺Y``: eigenvalues below ``rcond · max(s)`` are treated as zero,
    where ``rcond`` defaults to ``d · eps`` (the numerical noise floor of an eigenvalue of G).
    For λ > 0, eigenvalues that rounding made negative count as zero (G is positive
    semidefinite), so ``1/(s + λ)`` stays finite and positive.

    Examples
    --------
    >>> import numpy as np
    >>> from greenelm import GramSpectrum, solve_min_norm
    >>> rng = np.random.default_rng(0)
    >>> H, Y = rng.random((40, 5)), rng.random((40, 2))
    >>> spectrum = GramSpectrum(H.T @ H)                     # one eigendecomposition ...
    >>> paths = [spectrum.weights(H.T @ Y, a) for a in (1e-2, 1e-1, 1.0)]   # ... any λ
    >>> bool(np.allclose(spectrum.weights(H.T @ Y, 0.0), solve_min_norm(H, Y)))   # λ → 0: H⁺Y
    True
    """

    def __init__(self, gram_upper, overwrite: bool = False):
        """``overwrite=True``: a float64 NumPy ``gram_upper`` may serve as LAPACK's workspace."""
        check_finite_sums(gram_upper)
        if _large_on_torch(gram_upper):
            import torch

            gram = symmetrize_upper(torch.as_tensor(gram_upper, dtype=torch.float64))
            s, V = torch.linalg.eigh(gram)
            self.eigenvalues, self.eigenvectors = s.cpu().numpy(), V.cpu().numpy()
        else:
            with _scipy_threads(gram_upper.shape[0]):
                self.eigenvalues, self.eigenvectors = scipy.linalg.eigh(
                    np.asarray(gram_upper, dtype=np.float64), lower=False, check_finite=False,
                    driver="evr", overwrite_a=bool(overwrite))

    def weights(self, hty: np.ndarray, alpha: float, rcond: float | None = None) -> np.ndarray:
        """Readout (d, k) for ridge strength ``alpha`` from HᵀY (d, k)."""
        alpha = check_alpha(alpha)
        s, V = self.eigenvalues, self.eigenvectors
        if alpha > 0:
            inverse = 1.0 / (np.maximum(s, 0.0) + alpha)
        else:
            rcond = len(s) * np.finfo(np.float64).eps if rcond is None else rcond
            keep = s > rcond * max(s.max(), 0.0)
            inverse = np.where(keep, 1.0 / np.where(keep, s, 1.0), 0.0)
        if is_torch(hty):
            hty = hty.cpu().numpy()
        return V @ (inverse[:, None] * (V.T @ np.asarray(hty, dtype=np.float64)))


def solve_min_norm(H, Y) -> np.ndarray:
    """Exact minimum-norm least squares ``H⁺ Y`` by SVD: H (N, d), Y (N, k) → (d, k) float64.

    Uses LAPACK ``gelsd`` with the singular-value cutoff of ``numpy.linalg.pinv``
    (``max(N, d) · eps · σ_max``), without forming the d × N pseudoinverse.  H with inf or
    NaN (features that overflowed) raises :class:`NumericalOverflowError`: an O(Nd) check next
    to the O(Nd²) SVD, which LAPACK would otherwise run on garbage.

    Examples
    --------
    >>> import numpy as np
    >>> from greenelm import solve_min_norm
    >>> H = np.array([[1.0, 1.0], [2.0, 2.0], [0.0, 0.0]])   # rank 1: many least-squares solutions
    >>> solve_min_norm(H, np.array([[2.0], [4.0], [0.0]])).ravel().round(12).tolist()
    [1.0, 1.0]
    """
    if is_torch(H):
        H, Y = H.double().cpu().numpy(), Y.double().cpu().numpy()
    H = np.asarray(H, dtype=np.float64)
    if not np.isfinite(H).all():
        raise NumericalOverflowError(
            "the random features relu(XW + b) hold inf or NaN: they overflowed (float64 holds up to "
            "1.8e308, float32 up to 3.4e38), so the inputs are far too large; scale X down "
            "(e.g. to [0, 1] or unit variance)")
    cond = max(H.shape) * np.finfo(np.float64).eps
    W2, *_ = scipy.linalg.lstsq(H, np.asarray(Y, dtype=np.float64), cond=cond,
                                lapack_driver="gelsd", check_finite=False)
    check_finite_readout(W2, 0.0, "pinv")
    return W2


def solve(equations: NormalEquations, solver: str = "cholesky", alpha: float = 1e-3) -> np.ndarray:
    """Readout (d, k) from accumulated normal equations with a normal-equation solver.

    Examples
    --------
    >>> import numpy as np
    >>> from greenelm import NormalEquations, solve
    >>> rng = np.random.default_rng(1)
    >>> equations = NormalEquations(4, 1)
    >>> equations.update(rng.random((30, 4)), rng.random((30, 1)))
    >>> readouts = [solve(equations, name, alpha=0.1) for name in ("cholesky", "lu", "eigh")]
    >>> bool(np.allclose(readouts[0], readouts[1]) and np.allclose(readouts[0], readouts[2]))
    True
    """
    if solver == "pinv":
        raise ValueError("solver 'pinv' needs all of H at once (use solve_min_norm); from accumulated "
                         "HᵀH and HᵀY use solver='eigh' with alpha=0 for the minimum-norm limit")
    if solver not in SOLVERS:
        raise ValueError(f"unknown solver {solver!r}; choose one of {', '.join(map(repr, SOLVERS))}")
    if equations.n_samples == 0:
        raise ValueError("no samples accumulated: cannot solve for the readout")
    gram, hty = equations.as_float64()
    return solve_normal_equations(gram, hty, alpha, solver)


@dataclass(frozen=True)
class FlopCount:
    """Floating-point operations of one Green-ELM fit (multiply-add = 2 FLOPs)."""

    features: float
    gram: float
    solve: float

    @property
    def total(self) -> float:
        return self.features + self.gram + self.solve


def fit_flops(n_samples: int, n_inputs: int, n_hidden: int, n_outputs: int = 10) -> FlopCount:
    """FLOPs of features O(NDd), syrk Gram O(Nd²) (half of a GEMM) with HᵀY, Cholesky solve O(d³)."""
    N, D, d, k = n_samples, n_inputs, n_hidden, n_outputs
    return FlopCount(features=2.0 * N * D * d, gram=N * d * d + 2.0 * N * d * k,
                     solve=d**3 / 3 + 2.0 * d * d * k)
