"""Exact streaming ridge readout: recursive least squares (RLS) by the Woodbury identity.

After ``n`` samples the state is the ridge solution on all of them, with no sample stored:

* ``P = (HᵀH + λI)⁻¹`` (d × d, symmetric positive definite) and ``W2 = P HᵀY`` (d × k).

A batch ``H`` (B × d), ``Y`` (B × k) updates it exactly (the paper's Woodbury/RLS remark)::

    U = P Hᵀ (d × B),  S = I_B + H U (B × B, SPD),  K = U S⁻¹
    P ← P − K Uᵀ,      W2 ← W2 + K (Y − H W2)

Update methods (one API, :class:`StreamingRidge`; NumPy arrays, or torch tensors on CPU/CUDA):

* ``"listing3"`` — the paper's appendix listing 3 as published: ``S`` inverted explicitly,
  ``P Hᵀ`` formed twice and ``H P`` once, so ≈ 8·d²·B FLOPs; P is not kept symmetric.
* ``"cholesky"`` — ours, the same algebra with the symmetry used: ``U = P Hᵀ`` once (as
  ``Uᵀ = H P`` by BLAS ``symm`` on P's upper triangle), the B × B system by Cholesky
  ``S = L Lᵀ`` (no inverse), ``V = U L⁻ᵀ`` and the symmetric rank-B update ``P ← P − V Vᵀ``
  (BLAS ``syrk``, one triangle, mirrored only when P is read; in torch blocked GEMMs on the
  upper block rows) — ≈ 3·d²·B FLOPs; ``W2 ← W2 + V L⁻¹(Y − H W2)``.  P stays exactly
  symmetric.
* ``"information"`` — the information form: accumulate ``G = HᵀH`` (``syrk``, d²·B) and ``HᵀY``
  and refactorise on demand: the cheapest update, but reading the weights costs a d³/3
  Cholesky solve (cached until the next update).

Float64 by default.  Float32 is allowed: ``P − V Vᵀ`` subtracts nearly equal numbers when
``G + λI`` is ill-conditioned, so the float32 state drifts from the exact solution and may lose
positive definiteness; the information form in float32 takes float32 batches into float64 sums
(:class:`greenelm.solvers.NormalEquations`), and its solve runs in float64.

Threads: every method that updates or reads the state (``fit``, ``update``, ``flush``, ``coef_``,
``P``, ``predict``, ``copy``, ``export_state``) holds the object's lock (a ``threading.RLock``, no
attribute of the object), so calls from several threads run one at a time and none sees a batch
half applied or a gathered row lost: an update waits for a read, a read for an update.  ``coef_``
is replaced, not changed in place, by an update, so an array read earlier stays that readout; ``P``
is updated in place (it is d × d): copy it if another thread may update while you use it.

Memory: starting a state (``fit``, ``from_normal_equations``) checks that the d × d sums and the
factor it inverts fit in the memory available (``MemoryError`` naming the sizes, before allocating;
:func:`greenelm._validation.require_memory`).

Bad batches (wrong width, rows of H and Y that differ, NaN/inf) are refused with a
``ValueError`` before any state changes; a failed Cholesky of ``S`` (lost definiteness) raises
``numpy.linalg.LinAlgError``, also before any change.
"""

from __future__ import annotations

import functools

import numpy as np
from scipy.linalg import blas, lapack

from ._threads import object_lock
from ._validation import check_alpha, check_choice, check_positive_int, require_memory
from .solvers import NormalEquations, NumericalOverflowError, is_torch, solve_normal_equations, sum_block_rows

METHODS = ("cholesky", "listing3", "information")
STATE_DTYPES = ("float64", "float32")


# -- the paper's listing 3, as published ------------------------------------------------------
def listing3_update_torch(H_new, Y_new, P_old, W2_old):
    """Appendix listing 3's ``solve_green_elm_incremental_torch``, verbatim: → (W2_new, P_new)."""
    import torch

    B, d = H_new.shape

    # 1. Compute sub-dimensional innovation matrix in O(B^3) space
    shuttle_matrix = torch.eye(B, device=H_new.device) + torch.matmul(H_new, torch.matmul(P_old, H_new.T))

    # 2. Compute Kalman/Innovation Gain Matrix
    kappa = torch.matmul(P_old, torch.matmul(H_new.T, torch.inverse(shuttle_matrix)))  # torch 1.5

    # 3. Update tracking inverse matrix for optimization
    P_new = P_old - torch.matmul(kappa, torch.matmul(H_new, P_old))

    # 4. Compute error residue and update weights without memory replay
    error_residue = Y_new - torch.matmul(H_new, W2_old)
    W2_new = W2_old + torch.matmul(kappa, error_residue)

    return W2_new, P_new


def listing3_update_numpy(H_new, Y_new, P_old, W2_old):
    """Listing 3 transliterated to NumPy line by line (the paper's "NumPy / CPU" row): → (W2, P)."""
    B, d = H_new.shape
    shuttle_matrix = np.eye(B, dtype=P_old.dtype) + H_new @ (P_old @ H_new.T)
    kappa = P_old @ (H_new.T @ np.linalg.inv(shuttle_matrix))
    P_new = P_old - kappa @ (H_new @ P_old)
    error_residue = Y_new - H_new @ W2_old
    W2_new = W2_old + kappa @ error_residue
    return W2_new, P_new


def update_flops(n_hidden: int, batch_size: int, n_outputs: int = 10, method: str = "cholesky") -> float:
    """FLOPs of one update (multiply-add = 2); ``information`` excludes the on-demand solve."""
    check_choice("method", method, METHODS)
    d, B, k = n_hidden, batch_size, n_outputs
    if method == "listing3":  # P Hᵀ twice, H P once, κ (H P); H U, Hᵀ S⁻¹; inverse; residual, κ E
        return 8.0 * d * d * B + 4.0 * d * B * B + B**3 + 4.0 * d * B * k
    if method == "cholesky":  # U = P Hᵀ; syrk V Vᵀ; H U; V = U L⁻ᵀ; potrf; residual, L⁻¹E, V Z
        return 3.0 * d * d * B + 3.0 * d * B * B + B**3 / 3 + 4.0 * d * B * k + B * B * k
    return 1.0 * d * d * B + 2.0 * d * B * k  # syrk HᵀH and HᵀY


def rls_block_rows(n_hidden: int) -> int:
    """Rows gathered per RLS block update at width d: d/4 within [64, 1024].

    One block of B rows costs ≈ 3·d²·B + 3·d·B² FLOPs (:func:`update_flops`): B ≤ d/4 keeps the
    B² part within a quarter of the d² part, and B ≥ 64 keeps the GEMMs compute-bound."""
    return int(max(64, min(1024, int(n_hidden) // 4)))


# -- backends ------------------------------------------------------------------------------
def _torch_dtype(dtype: str):
    import torch

    return getattr(torch, dtype)


def _mirror_upper(A: np.ndarray, block: int = 512) -> None:
    """Copy the upper triangle of the square array A onto its lower triangle, in place."""
    n = A.shape[0]
    for start in range(0, n, block):
        stop = min(start + block, n)
        A[stop:, start:stop] = A[start:stop, stop:].T
        tile = A[start:stop, start:stop]
        tile[...] = np.triu(tile) + np.triu(tile, 1).T


def _symmetric_downdate_torch(P, Vt, block: int = 512) -> None:
    """``P ← P − V Vᵀ`` (V = Vtᵀ) for symmetric P (d, d) and Vt (B, d), in place, exactly symmetric.

    torch has no ``syrk``: the upper block rows are updated by GEMM (about half the FLOPs of
    the full product), each strictly-lower column block is copied from its transpose, and the
    diagonal blocks are made symmetric from their upper triangle (a GEMM's C and Cᵀ may differ
    in the last bit).
    """
    n = P.shape[0]
    for start in range(0, n, block):
        stop = min(start + block, n)
        P[start:stop, start:].addmm_(Vt[:, start:stop].T, Vt[:, start:], alpha=-1.0)
        P[stop:, start:stop] = P[start:stop, stop:].T
        tile = P[start:stop, start:stop]
        tile.copy_(tile.triu() + tile.triu(1).T)


def _not_pd(what: str, order) -> np.linalg.LinAlgError:
    return np.linalg.LinAlgError(
        f"{what} is not positive definite (leading minor {order}): the streamed state has lost "
        "definiteness (float32 drift or a too small alpha); use float64, a larger alpha, or "
        "method='information'")


def _check_update_finite(*arrays) -> None:
    """Refuse an update whose intermediate products (S = I + H P Hᵀ, the gain V, the innovation Z)
    overflowed, before anything is committed."""
    finite = (lambda a: bool(a.isfinite().all())) if is_torch(arrays[0]) else (lambda a: bool(np.isfinite(a).all()))
    if not all(finite(a) for a in arrays):
        raise NumericalOverflowError("the streaming update overflowed (inf or NaN in P Hᵀ or the "
                                     "residual): the batch's features are too large for the state's "
                                     "dtype; the state is unchanged")


def _locked(method):
    """Run ``method`` under the object's lock (:func:`greenelm._threads.object_lock`)."""

    @functools.wraps(method)
    def locked(self, *args, **kwargs):
        with object_lock(self):
            return method(self, *args, **kwargs)
    return locked


class StreamingRidge:
    """Exact streaming ridge readout ``W2`` (d × k) with no stored samples.

    Start with :meth:`fit` (H, Y) or :meth:`from_normal_equations`; then :meth:`update` per batch.
    The backend follows the data: NumPy arrays → NumPy/SciPy; torch tensors → torch on their
    device.  ``coef_`` (d, k) and ``P`` (d, d) are NumPy arrays or tensors accordingly.

    Parameters
    ----------
    alpha : float > 0
        Ridge λ (P = (HᵀH + λI)⁻¹ must exist before any data).
    method : {"cholesky", "listing3", "information"}
        The update (see :mod:`greenelm.streaming`).
    dtype : {"float64", "float32"}
        Precision of the state.
    block_rows : int or None, default=None
        ``None`` — **per-call mode**: every :meth:`update` is applied at once, as the paper's
        listing 3 does (the streaming chapter times this update).  An int — **gathering mode**:
        batches are kept (validated) until ``block_rows`` rows wait, then applied as one exact
        block update; reading ``coef_``, ``P``, :meth:`predict`, :meth:`copy` or
        :meth:`export_state` first applies the rows that wait.  The state after any read is the
        same ridge solution in both modes (up to rounding); gathering turns many small O(d²·B)
        updates, each reading and writing all of P, into few compute-bound ones.
        ``ELMClassifier(partial_fit_method="rls")`` uses it.

    Notes
    -----
    Thread-safe: updates and reads run one at a time under the object's lock (see
    :mod:`greenelm.streaming`); an update from one thread waits for a read in another.

    Examples
    --------
    >>> import numpy as np
    >>> from greenelm import StreamingRidge
    >>> rng = np.random.default_rng(0)
    >>> H, Y = rng.random((120, 8)), rng.random((120, 2))
    >>> state = StreamingRidge(alpha=1e-3).fit(H[:100], Y[:100])
    >>> state = state.update(H[100:], Y[100:])          # exact: the ridge solution on all 120 rows
    >>> state.coef_.shape
    (8, 2)
    """

    def __init__(self, alpha: float = 1e-3, method: str = "cholesky", dtype: str = "float64",
                 block_rows: int | None = None):
        self.alpha = alpha
        self.method = method
        self.dtype = dtype
        self.block_rows = block_rows
        self.n_samples = 0
        self._waiting, self._waiting_rows = [], 0  # gathered batches (H, Y), not yet applied
        self._P = self._W = self._equations = None
        self._lower_stale = False  # NumPy P: only its upper triangle is current (see _full_P)
        self._torch = False
        self.device = None

    # -- construction ------------------------------------------------------------------
    def _check_params(self) -> None:
        if check_alpha(self.alpha) == 0:
            raise ValueError("alpha must be > 0 for streaming: P = (HᵀH + λI)⁻¹ must exist "
                             "before the first batch")
        check_choice("method", self.method, METHODS)
        check_choice("dtype", self.dtype, STATE_DTYPES)
        if self.block_rows is not None:
            check_positive_int("block_rows", self.block_rows)

    @_locked
    def fit(self, H, Y) -> "StreamingRidge":
        """Initial fit on H (n, d), Y (n, k) (or (n,)): the ridge solution on these rows."""
        self._check_params()
        H, Y = self._as_pair(H, Y, n_hidden=None, n_outputs=None)
        device = H.device if is_torch(H) else None
        d, (n, k) = H.shape[1], Y.shape
        parts = {f"HᵀH (d × d = {d} × {d} float64)": 8 * d * d}
        gathering = sum_block_rows(d, "float64")        # NormalEquations gathers fewer rows than this
        if n % gathering:
            parts[f"the rows gathered for the sums ({gathering} × (d + k) float64)"] = 8 * gathering * (d + k)
        if self.dtype != "float64":
            parts[f"the batch in {self.dtype} (n × d = {n} × {d})"] = np.dtype(self.dtype).itemsize * n * d
        start = self._start_plan(d)
        update = n * d + (8 * n * d if self.dtype != "float64" else 0)
        if update > sum(start.values()):
            parts[f"the batch's finiteness mask{' and float64 copy' if update > n * d else ''}"] = update
        else:
            parts.update(start)
        require_memory(parts,
                       f"StreamingRidge.fit on H of width d = {d}", device,
                       hint="the state is d × d: use fewer columns of H")
        equations = NormalEquations(H.shape[1], Y.shape[1], "float64", device)
        equations.update(H.double() if is_torch(H) else H.astype(np.float64, copy=False),
                         Y.double() if is_torch(Y) else Y.astype(np.float64, copy=False))
        return self._start(equations)

    @classmethod
    def from_batch(cls, H, Y, alpha: float = 1e-3, method: str = "cholesky",
                   dtype: str = "float64") -> "StreamingRidge":
        """Initial state from a first block H (n, d), Y (n, k): ``cls(alpha, method, dtype).fit(H, Y)``."""
        return cls(alpha, method, dtype).fit(H, Y)

    @classmethod
    def from_normal_equations(cls, equations: NormalEquations, alpha: float = 1e-3,
                              method: str = "cholesky", dtype: str = "float64",
                              block_rows: int | None = None) -> "StreamingRidge":
        """Initial state from accumulated ``NormalEquations`` (NumPy or torch, on their device)."""
        return cls(alpha, method, dtype, block_rows)._start(equations)

    def _start_plan(self, d: int) -> dict[str, int]:
        """Bytes :meth:`_start` allocates beside the sums: G + λI factorised (d × d float64), which
        becomes P, then the larger of the temporaries of P's mirrored triangle (17 · b² bytes for
        its tiles of b = min(d, 512) rows, measured) and P's cast for a float32 state (the
        information form: its own copy of the sums)."""
        if self.method == "information":
            return {f"the information form's sums (d × d = {d} × {d} float64, and the zeros they replace)":
                        2 * 8 * d * d}
        parts = {f"G + λI, factorised into P (d × d = {d} × {d} float64)": 8 * d * d}
        mirror, cast = 17 * min(d, 512) ** 2, np.dtype(self.dtype).itemsize * d * d
        if self.dtype != "float64" and cast > mirror:
            parts[f"P in {self.dtype}"] = cast
        else:
            parts[f"the tiles of P's mirrored triangle ({min(d, 512)}² float64 and their triangles)"] = mirror
        return parts

    @_locked
    def _start(self, equations: NormalEquations) -> "StreamingRidge":
        self._check_params()
        if equations.n_samples == 0:
            raise ValueError("the initial normal equations hold no samples")
        d = equations.n_hidden
        require_memory(self._start_plan(d), f"StreamingRidge at d = {d}",
                       equations.gram.device if is_torch(equations.gram) else None,
                       hint="the state is d × d: lower n_hidden")
        self._torch = is_torch(equations.gram)
        self.device = equations.gram.device if self._torch else None
        self.n_hidden, self.n_outputs = equations.n_hidden, equations.n_outputs
        self.n_samples = equations.n_samples
        gram, hty = equations.as_float64()
        if self.method == "information":
            self._equations = NormalEquations.from_sums(gram, hty, self.n_samples, self.dtype, self.device)
            self._W = None
            return self
        if self._torch:
            import torch

            A = gram.triu() + gram.triu(1).T
            A.diagonal().add_(self.alpha)
            L, info = torch.linalg.cholesky_ex(A)
            if int(info) != 0:
                raise _not_pd("G + λI", int(info))
            dtype = _torch_dtype(self.dtype)
            self._P = torch.cholesky_inverse(L).to(dtype)
            self._P = (self._P + self._P.T) / 2
            self._W = torch.cholesky_solve(hty, L).to(dtype)
        else:
            A = np.array(gram, dtype=np.float64, order="F", copy=True)
            A.flat[:: A.shape[0] + 1] += self.alpha
            factor, info = lapack.dpotrf(A, lower=0, clean=1, overwrite_a=1)
            if info != 0:
                raise _not_pd("G + λI", info)
            self._W = lapack.dpotrs(factor, hty, lower=0)[0].astype(self.dtype)
            P, info = lapack.dpotri(factor, lower=0, overwrite_c=1)
            _mirror_upper(P)
            self._P = np.asfortranarray(P, dtype=self.dtype)
        return self

    @_locked
    def copy(self) -> "StreamingRidge":
        """An independent copy of the state (waiting rows applied first)."""
        self.flush()
        twin = StreamingRidge.__new__(StreamingRidge)
        twin.__dict__.update(self.__dict__)
        twin._waiting = []
        clone = (lambda a: a.clone()) if self._torch else (lambda a: a.copy(order="K"))
        if self._P is not None:
            twin._P = clone(self._P)
        if self._W is not None:
            twin._W = clone(self._W)
        if self._equations is not None:
            twin._equations = self._equations.copy()
        return twin

    # -- state export / import (for saving a model without pickle) ---------------------
    @_locked
    def export_state(self) -> tuple[dict, dict]:
        """The state as ``(scalars, arrays)``: JSON-able scalars (alpha, method, dtype, n_samples)
        and CPU NumPy arrays (views of the state, not copies) — ``P`` (d, d) and ``W`` (d, k) in the
        state's dtype, or for the information form its sums ``gram`` (d, d, upper triangle
        valid) and ``hty`` (d, k), float64 whatever the dtype of the batches."""
        self._check_started()
        self.flush()
        as_numpy = (lambda a: a.detach().cpu().numpy()) if self._torch else np.asarray
        if self.method == "information":
            arrays = {"gram": as_numpy(self._equations.gram), "hty": as_numpy(self._equations.hty)}
        else:
            arrays = {"P": as_numpy(self._full_P()), "W": as_numpy(self.coef_)}
        scalars = {"alpha": float(self.alpha), "method": self.method, "dtype": self.dtype,
                   "n_samples": int(self.n_samples)}
        return scalars, arrays

    @classmethod
    def from_state(cls, scalars: dict, arrays: dict, device=None,
                   block_rows: int | None = None) -> "StreamingRidge":
        """Rebuild a state from :meth:`export_state`'s output, as NumPy (``device=None``) or as torch
        tensors on ``device``.  Shapes and dtypes are checked; ``ValueError`` names what is wrong."""
        state = cls(scalars["alpha"], scalars["method"], scalars["dtype"], block_rows)
        state._check_params()
        n_samples = scalars["n_samples"]
        if isinstance(n_samples, bool) or not isinstance(n_samples, (int, np.integer)) or n_samples < 1:
            raise ValueError(f"n_samples must be an integer >= 1, got {n_samples!r}")
        square, rect = ("gram", "hty") if state.method == "information" else ("P", "W")
        if set(arrays) != {square, rect}:
            raise ValueError(f"method {state.method!r} needs the arrays {square!r} and {rect!r}, "
                             f"got {sorted(arrays)}")
        A, B = arrays[square], arrays[rect]
        d = A.shape[0] if A.ndim == 2 else -1
        if A.shape != (d, d) or B.ndim != 2 or B.shape[0] != d:
            raise ValueError(f"state arrays {square} {A.shape} and {rect} {B.shape} are not (d, d) "
                             "and (d, k)")
        expected = np.dtype(np.float64) if state.method == "information" else np.dtype(state.dtype)
        for name, array in ((square, A), (rect, B)):
            if array.dtype != expected:
                raise ValueError(f"state array {name} has dtype {array.dtype}, expected {expected}")
        state.n_hidden, state.n_outputs, state.n_samples = d, B.shape[1], int(n_samples)
        if device is None:
            A, B = np.array(A, order="F"), np.array(B)
        else:
            import torch

            state._torch, state.device = True, torch.device(device)
            A = torch.tensor(np.ascontiguousarray(A), device=state.device)
            B = torch.tensor(np.ascontiguousarray(B), device=state.device)
        if state.method == "information":
            state._equations = NormalEquations.from_sums(A, B, state.n_samples, state.dtype, state.device)
        else:
            state._P, state._W = A, B
        return state

    # -- validation ----------------------------------------------------------------------
    def _as_pair(self, H, Y, n_hidden, n_outputs):
        """H (B, d) and Y (B, k) as 2-D arrays of the state's backend and dtype, or ValueError."""
        torch_backend = self._torch if n_hidden is not None else is_torch(H)
        if torch_backend:
            import torch

            device = self.device if n_hidden is not None else H.device
            H = torch.as_tensor(H, dtype=_torch_dtype(self.dtype), device=device)
            Y = torch.as_tensor(Y, dtype=_torch_dtype(self.dtype), device=device)
            finite = lambda a: bool(torch.isfinite(a).all())  # noqa: E731
        else:
            H = np.asarray(H, dtype=self.dtype)
            Y = np.asarray(Y, dtype=self.dtype)
            finite = lambda a: bool(np.isfinite(a).all())  # noqa: E731
        if Y.ndim == 1:
            Y = Y.reshape(-1, 1)
        if H.ndim != 2 or Y.ndim != 2:
            raise ValueError(f"H must be 2-D (B, d) and Y 2-D (B, k); got H {tuple(H.shape)}, "
                             f"Y {tuple(Y.shape)}")
        if H.shape[0] != Y.shape[0]:
            raise ValueError(f"H has {H.shape[0]} rows but Y has {Y.shape[0]}")
        if H.shape[0] == 0:
            raise ValueError("empty batch: H has no rows")
        if n_hidden is not None and H.shape[1] != n_hidden:
            raise ValueError(f"H has {H.shape[1]} columns, expected d={n_hidden}")
        if n_outputs is not None and Y.shape[1] != n_outputs:
            raise ValueError(f"Y has {Y.shape[1]} columns, expected k={n_outputs}")
        if not finite(H):
            raise ValueError("H contains NaN or infinite values; batch refused")
        if not finite(Y):
            raise ValueError("Y contains NaN or infinite values; batch refused")
        return H, Y

    def _check_started(self) -> None:
        if self.n_samples == 0:
            raise RuntimeError("StreamingRidge has no initial fit: call fit(H, Y) or "
                               "from_normal_equations(...) first")

    # -- the update ----------------------------------------------------------------------
    @_locked
    def update(self, H, Y) -> "StreamingRidge":
        """Add a batch H (B, d), Y (B, k): afterwards ``coef_`` is the ridge solution on all rows.

        In gathering mode (``block_rows`` set) the batch waits, validated, until ``block_rows``
        rows wait or the state is read; a batch of ``block_rows`` rows or more goes in at once."""
        self._check_started()
        H, Y = self._as_pair(H, Y, self.n_hidden, self.n_outputs)
        if self.block_rows is None:
            self._apply(H, Y)
            return self
        self._waiting.append((H, Y))
        self._waiting_rows += H.shape[0]
        self.n_samples += H.shape[0]
        if self._waiting_rows >= self.block_rows:
            self.flush()
        return self

    @_locked
    def flush(self) -> None:
        """Apply the gathered batches as one exact block update (a no-op when none wait).

        A failure (lost definiteness, overflow) leaves the state as it was and drops the batches
        that waited: the error says how many rows."""
        if not self._waiting_rows:
            return
        waiting, rows = self._waiting, self._waiting_rows
        self._waiting, self._waiting_rows = [], 0
        self.n_samples -= rows
        if len(waiting) == 1:
            H, Y = waiting[0]
        elif self._torch:
            import torch

            H, Y = torch.cat([h for h, _ in waiting]), torch.cat([y for _, y in waiting])
        else:
            H, Y = np.concatenate([h for h, _ in waiting]), np.concatenate([y for _, y in waiting])
        try:
            self._apply(H, Y)
        except (np.linalg.LinAlgError, ValueError) as error:
            raise type(error)(f"{error} (while applying {rows} gathered rows; they were dropped "
                              "and the state is as before them)") from error

    def _apply(self, H, Y) -> None:
        """Apply one validated batch H (B, d), Y (B, k) now."""
        if self.method == "information":
            self._equations.update(H, Y)
            self._W = None
        elif self.method == "listing3":
            step = listing3_update_torch if self._torch else listing3_update_numpy
            self._W, self._P = step(H, Y, self._full_P(), self._W)
        elif self._torch:
            self._update_cholesky_torch(H, Y)
        else:
            self._update_cholesky_numpy(H, Y)
        self.n_samples += H.shape[0]

    def _update_cholesky_numpy(self, H, Y) -> None:
        P, W = self._P, self._W
        gemm, symm = blas.get_blas_funcs(("gemm", "symm"), dtype=P.dtype)
        # The row form Uᵀ = H P (B, d) reads P's upper triangle (symm) and ran at 0.75× the time of
        # the column form P Hᵀ (d, B) at d = 4,000, B = 250 on OpenBLAS (timed in one process, pairwise).
        # Every product goes through SciPy's BLAS: one thread pool (see greenelm.features._product).
        Hf = np.asfortranarray(H)                            # (B, d), Fortran (a B·d copy)
        Ut = symm(1.0, P, Hf, side=1, lower=0)               # Uᵀ = H P (B, d), Fortran
        S = gemm(1.0, Ut, Hf, trans_b=1)                     # H P Hᵀ (B, B)
        S.flat[:: S.shape[0] + 1] += 1.0
        _check_update_finite(S)
        potrf, trsm = lapack.get_lapack_funcs("potrf", (S,)), blas.get_blas_funcs("trsm", (S,))
        L, info = potrf(S, lower=1, clean=1, overwrite_a=1)
        if info != 0:
            raise _not_pd("I + H P Hᵀ", info)
        E = Y - gemm(1.0, Hf, W)                             # residual (B, k); SciPy's BLAS throughout
        Z = trsm(1.0, L, E, lower=1)                         # L⁻¹ E
        Vt = trsm(1.0, L, Ut, lower=1, overwrite_b=1)        # Vᵀ = L⁻¹ Uᵀ (B, d)
        _check_update_finite(Vt, Z)
        # -- nothing below can fail: commit the new state
        self._W = W + gemm(1.0, Vt, Z, trans_a=1)           # a new array: a W read earlier stays
        syrk = blas.get_blas_funcs("syrk", dtype=P.dtype)
        self._P = syrk(-1.0, Vt, beta=1.0, c=P, trans=1, lower=0, overwrite_c=1)   # P − V Vᵀ
        # the lower triangle is now stale: the next update reads only the upper one (symm), and
        # P is mirrored when it is read (_full_P), not after every update: copying half of P
        # across the diagonal cost about as much as the syrk itself at d = 4,000, B = 250
        self._lower_stale = True

    def _full_P(self):
        """The state's P (d, d), both triangles valid (mirrored from the upper one if stale)."""
        if self.__dict__.get("_lower_stale"):
            _mirror_upper(self._P)
            self._lower_stale = False
        return self._P

    def _update_cholesky_torch(self, H, Y) -> None:
        import torch

        P, W = self._P, self._W
        U = P @ H.T                                          # (d, B)
        S = H @ U
        S.diagonal().add_(1.0)
        _check_update_finite(S)
        L, info = torch.linalg.cholesky_ex(S)
        if int(info) != 0:
            raise _not_pd("I + H P Hᵀ", int(info))
        Z = torch.linalg.solve_triangular(L, Y - H @ W, upper=False)    # L⁻¹ E (B, k)
        Vt = torch.linalg.solve_triangular(L, U.T, upper=False)          # L⁻¹ Uᵀ = Vᵀ (B, d)
        _check_update_finite(Vt, Z)
        self._W = torch.addmm(W, Vt.T, Z)                    # a new tensor: a W read earlier stays
        _symmetric_downdate_torch(P, Vt)                     # P − V Vᵀ, one triangle, mirrored

    # -- results -------------------------------------------------------------------------
    @property
    @_locked
    def coef_(self):
        """Current readout W2 (d, k): NumPy array, or tensor on the state's device."""
        self._check_started()
        self.flush()
        if self._W is None:  # information form: solve on demand, cache until the next update
            gram, hty = self._equations.as_float64()
            W = solve_normal_equations(gram, hty, self.alpha, "cholesky")
            if self._torch:
                import torch

                W = torch.as_tensor(W, device=self.device)
            self._W = W.to(_torch_dtype(self.dtype)) if self._torch else W.astype(self.dtype)
        return self._W

    @property
    @_locked
    def P(self):
        """``(HᵀH + λI)⁻¹`` (d, d) of the rows seen (the information form inverts on demand)."""
        self._check_started()
        self.flush()
        if self._P is not None:
            return self._full_P()
        gram, _ = self._equations.as_float64()
        eye = np.eye(self.n_hidden)
        if self._torch:
            gram = gram.cpu().numpy()
        P = solve_normal_equations(gram, eye, self.alpha, "cholesky")
        if self._torch:
            import torch

            return torch.as_tensor(P, dtype=_torch_dtype(self.dtype), device=self.device)
        return P.astype(self.dtype)

    @_locked
    def predict(self, H):
        """Readout outputs ``H W2`` (n, k) of hidden features H (n, d)."""
        return H @ self.coef_

    def synchronize(self) -> None:
        """Wait for queued device work (CUDA); a no-op on CPU."""
        if self._torch and self.device.type == "cuda":
            import torch

            torch.cuda.synchronize(self.device)

    def __repr__(self) -> str:
        where = "numpy" if not self._torch else f"torch:{self.device}"
        gathering = "" if self.block_rows is None else f", block_rows={self.block_rows}"
        return (f"StreamingRidge(alpha={self.alpha}, method={self.method!r}, dtype={self.dtype!r}"
                f"{gathering}, backend={where}, n_samples={self.n_samples})")
