"""Exact streaming ridge readout: recursive least squares (RLS) by the Woodbury identity.

After ``n`` samples the state is the ridge solution on all of them, with no sample stored:

* ``P = (HᵀH + λI)⁻¹`` (d × d, symmetric positive definite) and ``W2 = P HᵀY`` (d × k).

A batch ``H`` (B × d), ``Y`` (B × k) updates it exactly (the paper's Woodbury/RLS remark)::

    U = P Hᵀ (d × B),  S = I_B + H U (B × B, SPD),  K = U S⁻¹
    P ← P − K Uᵀ,      W2 ← W2 + K (Y − H W2)

Update methods (one API, :class:`StreamingRidge`; NumPy arrays, or torch tensors on CPU/CUDA):

* ``"listing3"`` — the paper's appendix listing 3 as published: ``S`` inverted explicitly,
  ``P Hᵀ`` formed twice and ``H P`` once, so ≈ 8·d²·B FLOPs; P is not kept symmetric.
* ``"cholesky"`` — ours, the same algebra with the symmetry used: ``U = P Hᵀ`` once, the B × B
  system by Cholesky ``S = L Lᵀ`` (no inverse), ``V = U L⁻ᵀ`` and the symmetric rank-B update
  ``P ← P − V Vᵀ`` (BLAS ``syrk``, one triangle; in torch blocked GEMMs on the upper block
  rows) — ≈ 3·d²·B FLOPs; ``W2 ← W2 + V L⁻¹(Y − H W2)``.  P stays exactly symmetric.
* ``"information"`` — the information form: accumulate ``G = HᵀH`` (``syrk``, d²·B) and ``HᵀY``
  and refactorise on demand: the cheapest update, but reading the weights costs a d³/3
  Cholesky solve (cached until the next update).

Float64 by default.  Float32 is allowed: ``P − V Vᵀ`` subtracts nearly equal numbers when
``G + λI`` is ill-conditioned, so the float32 state drifts from the exact solution and may lose
positive definiteness (see :func:`drift_experiment`); the information form in float32 is as
accurate as a float32 Gram (its solve runs in float64).

Bad batches (wrong width, rows of H and Y that differ, NaN/inf) are refused with a
``ValueError`` before any state changes; a failed Cholesky of ``S`` (lost definiteness) raises
``numpy.linalg.LinAlgError``, also before any change.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.linalg import blas, lapack

from .features import check_choice, check_positive_int, row_chunks
from .solvers import NormalEquations, check_alpha, is_torch, solve_normal_equations

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


class StreamingRidge:
    """Exact streaming ridge readout ``W2`` (d × k) with no stored samples.

    Parameters
    ----------
    alpha : float > 0 — ridge λ (P = (HᵀH + λI)⁻¹ must exist before any data).
    method : {"cholesky", "listing3", "information"} — see the module docstring.
    dtype : {"float64", "float32"} — precision of the state.

    Start with :meth:`fit` (H, Y) or :meth:`from_normal_equations`; then :meth:`update` per batch.
    The backend follows the data: NumPy arrays → NumPy/SciPy; torch tensors → torch on their
    device.  ``coef_`` (d, k) and ``P`` (d, d) are NumPy arrays or tensors accordingly.
    """

    def __init__(self, alpha: float = 1e-3, method: str = "cholesky", dtype: str = "float64"):
        self.alpha = alpha
        self.method = method
        self.dtype = dtype
        self.n_samples = 0
        self._P = self._W = self._equations = None
        self._torch = False
        self.device = None

    # -- construction ------------------------------------------------------------------
    def _check_params(self) -> None:
        if check_alpha(self.alpha) == 0:
            raise ValueError("alpha must be > 0 for streaming: P = (HᵀH + λI)⁻¹ must exist "
                             "before the first batch")
        check_choice("method", self.method, METHODS)
        check_choice("dtype", self.dtype, STATE_DTYPES)

    def fit(self, H, Y) -> "StreamingRidge":
        """Initial fit on H (n, d), Y (n, k) (or (n,)): the ridge solution on these rows."""
        self._check_params()
        H, Y = self._as_pair(H, Y, n_hidden=None, n_outputs=None)
        device = H.device if is_torch(H) else None
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
                              method: str = "cholesky", dtype: str = "float64") -> "StreamingRidge":
        """Initial state from accumulated ``NormalEquations`` (NumPy or torch, on their device)."""
        return cls(alpha, method, dtype)._start(equations)

    def _start(self, equations: NormalEquations) -> "StreamingRidge":
        self._check_params()
        if equations.n_samples == 0:
            raise ValueError("the initial normal equations hold no samples")
        self._torch = is_torch(equations.gram)
        self.device = equations.gram.device if self._torch else None
        self.n_hidden, self.n_outputs = equations.n_hidden, equations.n_outputs
        self.n_samples = equations.n_samples
        gram, hty = equations.as_float64()
        if self.method == "information":
            self._equations = NormalEquations(self.n_hidden, self.n_outputs, self.dtype, self.device)
            self._equations.gram = gram.to(self._equations.gram.dtype).clone() if self._torch else \
                np.asarray(gram, dtype=self.dtype, order="F").copy(order="F")
            self._equations.hty = hty.to(self._equations.hty.dtype).clone() if self._torch else \
                hty.astype(self.dtype)
            self._equations.n_samples = self.n_samples
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

    def copy(self) -> "StreamingRidge":
        """An independent copy of the state."""
        twin = StreamingRidge.__new__(StreamingRidge)
        twin.__dict__.update(self.__dict__)
        clone = (lambda a: a.clone()) if self._torch else (lambda a: a.copy(order="K"))
        if self._P is not None:
            twin._P = clone(self._P)
        if self._W is not None:
            twin._W = clone(self._W)
        if self._equations is not None:
            twin._equations = NormalEquations.__new__(NormalEquations)
            twin._equations.__dict__.update(self._equations.__dict__)
            twin._equations.gram = clone(self._equations.gram)
            twin._equations.hty = clone(self._equations.hty)
        return twin

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
    def update(self, H, Y) -> "StreamingRidge":
        """Add a batch H (B, d), Y (B, k): afterwards ``coef_`` is the ridge solution on all rows."""
        self._check_started()
        H, Y = self._as_pair(H, Y, self.n_hidden, self.n_outputs)
        if self.method == "information":
            self._equations.update(H, Y)
            self._W = None
        elif self.method == "listing3":
            step = listing3_update_torch if self._torch else listing3_update_numpy
            self._W, self._P = step(H, Y, self._P, self._W)
        elif self._torch:
            self._update_cholesky_torch(H, Y)
        else:
            self._update_cholesky_numpy(H, Y)
        self.n_samples += H.shape[0]
        return self

    def _update_cholesky_numpy(self, H, Y) -> None:
        P, W = self._P, self._W
        gemm = blas.get_blas_funcs("gemm", dtype=P.dtype)
        Ht = np.asfortranarray(H.T)                          # (d, B); a view for C-ordered H
        U = gemm(1.0, P, Ht)                                 # P Hᵀ (d, B), Fortran
        S = gemm(1.0, Ht, U, trans_a=1)                      # H P Hᵀ (B, B)
        S.flat[:: S.shape[0] + 1] += 1.0
        potrf, trsm = lapack.get_lapack_funcs("potrf", (S,)), blas.get_blas_funcs("trsm", (S,))
        L, info = potrf(S, lower=1, clean=1, overwrite_a=1)
        if info != 0:
            raise _not_pd("I + H P Hᵀ", info)
        E = Y - H @ W                                        # residual (B, k)
        Z = trsm(1.0, L, E, lower=1)                         # L⁻¹ E
        V = trsm(1.0, L, U, side=1, lower=1, trans_a=1, overwrite_b=1)  # U L⁻ᵀ (d, B)
        # -- nothing below can fail: commit the new state
        W += V @ Z
        syrk = blas.get_blas_funcs("syrk", dtype=P.dtype)
        self._P = syrk(-1.0, V, beta=1.0, c=P, trans=0, lower=0, overwrite_c=1)
        _mirror_upper(self._P)

    def _update_cholesky_torch(self, H, Y) -> None:
        import torch

        P, W = self._P, self._W
        U = P @ H.T                                          # (d, B)
        S = H @ U
        S.diagonal().add_(1.0)
        L, info = torch.linalg.cholesky_ex(S)
        if int(info) != 0:
            raise _not_pd("I + H P Hᵀ", int(info))
        Z = torch.linalg.solve_triangular(L, Y - H @ W, upper=False)    # L⁻¹ E (B, k)
        Vt = torch.linalg.solve_triangular(L, U.T, upper=False)          # L⁻¹ Uᵀ = Vᵀ (B, d)
        W.addmm_(Vt.T, Z)
        _symmetric_downdate_torch(P, Vt)                     # P − V Vᵀ, one triangle, mirrored

    # -- results -------------------------------------------------------------------------
    @property
    def coef_(self):
        """Current readout W2 (d, k): NumPy array, or tensor on the state's device."""
        self._check_started()
        if self._W is None:  # information form: solve on demand, cache until the next update
            gram, hty = self._equations.as_float64()
            W = solve_normal_equations(gram, hty, self.alpha, "cholesky")
            if self._torch:
                import torch

                W = torch.as_tensor(W, device=self.device)
            self._W = W.to(_torch_dtype(self.dtype)) if self._torch else W.astype(self.dtype)
        return self._W

    @property
    def P(self):
        """``(HᵀH + λI)⁻¹`` (d, d) of the rows seen (the information form inverts on demand)."""
        self._check_started()
        if self._P is not None:
            return self._P
        gram, _ = self._equations.as_float64()
        eye = np.eye(self.n_hidden)
        if self._torch:
            gram = gram.cpu().numpy()
        P = solve_normal_equations(gram, eye, self.alpha, "cholesky")
        if self._torch:
            import torch

            return torch.as_tensor(P, dtype=_torch_dtype(self.dtype), device=self.device)
        return P.astype(self.dtype)

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
        return (f"StreamingRidge(alpha={self.alpha}, method={self.method!r}, dtype={self.dtype!r}, "
                f"backend={where}, n_samples={self.n_samples})")


# -- the chapter's experiments ---------------------------------------------------------------
BACKENDS = ("numpy", "torch-cpu", "torch-cuda")


def available_backends() -> list[str]:
    """``numpy``, ``torch-cpu``, and ``torch-cuda`` when torch sees a GPU."""
    import torch

    return [b for b in BACKENDS if b != "torch-cuda" or torch.cuda.is_available()]


def device_name(backend: str) -> str:
    """Human-readable processor of a backend (CPU model, or the CUDA device's name)."""
    if backend == "torch-cuda":
        import torch

        return torch.cuda.get_device_name(0)
    import platform

    try:
        with open("/proc/cpuinfo") as info:
            model = next(line.split(":", 1)[1].strip() for line in info if line.startswith("model name"))
    except (OSError, StopIteration):
        model = platform.processor() or "CPU"
    import os

    return f"{model} ({len(os.sched_getaffinity(0))} cores)"


def _to_backend(array, backend: str):
    if backend == "numpy":
        return array
    import torch

    return torch.as_tensor(array, device="cuda" if backend == "torch-cuda" else "cpu")


def _as_numpy(array) -> np.ndarray:
    return array.detach().cpu().numpy() if is_torch(array) else np.asarray(array)


def _equations_on(equations: NormalEquations, backend: str) -> NormalEquations:
    """A copy of float64 NumPy normal equations on ``backend``."""
    moved = NormalEquations.__new__(NormalEquations)
    moved.__dict__.update(equations.__dict__)
    moved.gram, moved.hty = _to_backend(equations.gram, backend), _to_backend(equations.hty, backend)
    return moved


@dataclass
class StreamData:
    """Hidden features of one split for a stream: initial rows, streamed rows, test rows.

    ``H_*`` (n, d) float64 NumPy, ``y_*`` labels, ``classes`` (k,); ``feature_seconds``: time
    of the training rows' features.
    """

    H_initial: np.ndarray
    y_initial: np.ndarray
    H_stream: np.ndarray
    y_stream: np.ndarray
    H_test: np.ndarray
    y_test: np.ndarray
    classes: np.ndarray
    feature_seconds: float = float("nan")

    def one_hot(self, y) -> np.ndarray:
        return (np.asarray(y)[:, None] == self.classes[None, :]).astype(np.float64)

    @property
    def n_hidden(self) -> int:
        return self.H_initial.shape[1]

    def batches(self, batch_size: int, n_batches: int | None = None) -> list[slice]:
        """Consecutive stream batches of ``batch_size`` rows (listing 3 drops a partial last one)."""
        batch_size = check_positive_int("batch_size", batch_size)
        count = len(self.y_stream) // batch_size
        count = count if n_batches is None else min(count, check_positive_int("n_batches", n_batches))
        if count == 0:
            raise ValueError(f"the stream of {len(self.y_stream)} rows holds no batch of {batch_size}")
        return [slice(i * batch_size, (i + 1) * batch_size) for i in range(count)]

    def accuracy(self, W) -> float:
        """Test accuracy (%) of readout W (d, k)."""
        return 100.0 * float(np.mean(self.classes[np.argmax(self.H_test @ _as_numpy(W), 1)] == self.y_test))


def hidden_features(features, X, chunk_rows: int = 4096) -> np.ndarray:
    """All of ``features.transform(X)`` as one float64 (N, d) array, computed in row chunks."""
    H = np.empty((len(X), features.n_hidden), dtype=np.float64)
    for rows, block in features.chunks(X, chunk_rows):
        H[rows] = _as_numpy(block)
    return H


def make_stream_data(split, features, initial_fraction: float = 0.8) -> StreamData:
    """Features of ``split`` (X_train, y_train, X_test, y_test): the first ``initial_fraction`` of
    the training rows for the initial fit, the rest for the stream (listing 3's 80 / 20)."""
    if not 0 < initial_fraction < 1:
        raise ValueError(f"initial_fraction must lie in (0, 1), got {initial_fraction!r}")
    n_initial = int(len(split.y_train) * initial_fraction)
    start = time.perf_counter()
    H = hidden_features(features, split.X_train)
    seconds = time.perf_counter() - start
    return StreamData(H[:n_initial], split.y_train[:n_initial], H[n_initial:], split.y_train[n_initial:],
                      hidden_features(features, split.X_test), split.y_test, np.unique(split.y_train),
                      seconds)


def batch_oracle(data: StreamData, alpha: float = 1e-3, chunk_rows: int = 4096) -> tuple[np.ndarray, float]:
    """The batch ridge readout on every training row (initial and streamed) from their features,
    as ``ELMClassifier.fit`` solves it (Gram by ``syrk`` in row chunks, Cholesky); returns
    ``(W2 (d, k), seconds)`` — the seconds exclude the features (``data.feature_seconds``)."""
    start = time.perf_counter()
    equations = NormalEquations(data.n_hidden, len(data.classes))
    for H, y in ((data.H_initial, data.y_initial), (data.H_stream, data.y_stream)):
        for rows in row_chunks(len(y), chunk_rows):
            equations.update(H[rows], data.one_hot(y[rows]))
    W = solve_normal_equations(*equations.as_float64(), alpha, "cholesky")
    return W, time.perf_counter() - start


def initial_equations(data: StreamData) -> tuple[NormalEquations, float]:
    """Normal equations of the initial rows (float64 NumPy) and the seconds they took."""
    start = time.perf_counter()
    equations = NormalEquations(data.n_hidden, len(data.classes))
    equations.update(data.H_initial, data.one_hot(data.y_initial))
    return equations, time.perf_counter() - start


def _timed_update(state: StreamingRidge, H, Y) -> float:
    """Seconds of one update until its weights are ready (the device synchronised; the
    information form's on-demand solve included, so every method ends with usable weights)."""
    state.synchronize()
    start = time.perf_counter()
    state.update(H, Y)
    if state.method == "information":
        state.coef_
    state.synchronize()
    return time.perf_counter() - start


def time_updates(states: dict, data: StreamData, batches, progress: bool = True) -> pd.DataFrame:
    """Stream ``batches`` of ``data`` into every state of ``states`` ({(method, backend): state}),
    interleaved: each batch goes to every state in turn, so all implementations are timed under
    the same machine load.  As listing 3, each state first makes one warm-up update (with the
    first initial rows, on a throwaway copy), and each batch's H and Y are on the backend's
    device before the clock starts.  Returns one row per (method, backend, batch) with seconds.
    """
    from tqdm import tqdm

    B = batches[0].stop - batches[0].start
    for (method, backend), state in states.items():
        _timed_update(state.copy(), _to_backend(data.H_initial[:B], backend),
                      _to_backend(data.one_hot(data.y_initial[:B]), backend))
    rows = []
    for i, batch in enumerate(tqdm(batches, desc="stream batches", disable=not progress)):
        H, Y = data.H_stream[batch], data.one_hot(data.y_stream[batch])
        for (method, backend), state in states.items():
            seconds = _timed_update(state, _to_backend(H, backend), _to_backend(Y, backend))
            rows.append({"method": method, "backend": backend, "batch": i, "seconds": seconds})
    return pd.DataFrame(rows)


def gemm_rate(n_hidden: int, batch_size: int, repeats: int = 3) -> float:
    """Measured float64 GEMM throughput (FLOP/s) of a (d × d)·(d × B) product, NumPy's BLAS."""
    rng = np.random.default_rng(0)
    P = np.asfortranarray(rng.standard_normal((n_hidden, n_hidden)))
    Ht = np.asfortranarray(rng.standard_normal((n_hidden, batch_size)))
    best = np.inf
    for _ in range(repeats):
        start = time.perf_counter()
        blas.dgemm(1.0, P, Ht)
        best = min(best, time.perf_counter() - start)
    return 2.0 * n_hidden**2 * batch_size / best


@dataclass
class StreamingBenchmark:
    """Results of :func:`streaming_benchmark`.

    ``latency``: one row per (method, backend, batch) with ``seconds``; ``summary``: per
    (method, backend) the latency median, IQR, mean, sd, the accuracy after the stream, the
    relative Frobenius distance of its W2 to the oracle's and the fraction of test predictions
    that differ from the oracle's.
    """

    latency: pd.DataFrame
    summary: pd.DataFrame
    oracle_accuracy: float
    oracle_seconds: float
    initial_seconds: float
    gemm_flops_per_second: float
    n_hidden: int
    batch_size: int
    n_batches: int


def streaming_benchmark(data: StreamData, batch_size: int = 250, alpha: float = 1e-3,
                        methods=("listing3", "cholesky"), backends=None, n_batches: int | None = None,
                        progress: bool = True) -> StreamingBenchmark:
    """Table V: initial fit on ``data``'s initial rows, then every stream batch by each
    (method, backend), timed interleaved (:func:`time_updates`); compared with the batch oracle.
    ``backends`` defaults to :func:`available_backends`.
    """
    backends = available_backends() if backends is None else list(backends)
    W_oracle, oracle_seconds = batch_oracle(data, alpha)
    equations, initial_seconds = initial_equations(data)
    batches = data.batches(batch_size, n_batches)
    predictions = data.H_test @ W_oracle
    states = {}
    for backend in backends:
        start_equations = _equations_on(equations, backend)
        for method in methods:
            states[method, backend] = StreamingRidge.from_normal_equations(start_equations, alpha, method)
    latency = time_updates(states, data, batches, progress)
    summary = []
    for (method, backend), state in states.items():
        seconds = latency.query("method == @method and backend == @backend")["seconds"].to_numpy()
        W = _as_numpy(state.coef_)
        q1, median, q3 = np.percentile(seconds, [25, 50, 75])
        summary.append({"method": method, "backend": backend, "device": device_name(backend),
                        "median_seconds": median, "q1_seconds": q1, "q3_seconds": q3,
                        "mean_seconds": seconds.mean(), "sd_seconds": seconds.std(ddof=1),
                        "accuracy": data.accuracy(W),
                        "relative_difference": float(np.linalg.norm(W - W_oracle) / np.linalg.norm(W_oracle)),
                        "prediction_disagreement": float(np.mean(
                            (data.H_test @ W).argmax(1) != predictions.argmax(1))),
                        "n_samples": state.n_samples})
    states.clear()
    return StreamingBenchmark(latency, pd.DataFrame(summary), data.accuracy(W_oracle),
                              oracle_seconds, initial_seconds, gemm_rate(data.n_hidden, batch_size),
                              data.n_hidden, batch_size, len(batches))


# -- the SGD baseline: a softmax readout retrained on a replay buffer ----------------------------
@dataclass
class ReplaySGDResult:
    """Per-update seconds (one epoch over the replay buffer each), accuracy after the stream."""

    seconds: np.ndarray
    initial_seconds: float
    accuracy_initial: float
    accuracy: float
    buffer_rows: int
    hyperparameters: dict


def replay_sgd(data: StreamData, batch_size: int = 250, n_batches: int | None = None,
               initial_epochs: int = 5, epochs_per_update: int = 1, lr: float = 1e-3,
               minibatch: int = 256, seed: int = 0, progress: bool = True) -> ReplaySGDResult:
    """Softmax readout (``torch.nn.Linear(d, k)``, cross-entropy, Adam) on the same H, float32 CPU.

    Trained ``initial_epochs`` on the initial rows; each stream batch joins the replay buffer
    (every row seen so far, kept) and the readout is retrained ``epochs_per_update`` epochs over
    the whole buffer — the paper's footnote: "a full epoch retrain over the accumulating memory
    replay buffer".  Minibatches are drawn by a seeded permutation.
    """
    import torch
    from tqdm import tqdm

    torch.manual_seed(seed)
    generator = torch.Generator().manual_seed(seed)
    batches = data.batches(batch_size, n_batches)
    n_initial = len(data.y_initial)
    labels = lambda y: torch.as_tensor(np.searchsorted(data.classes, y))  # noqa: E731
    # the replay buffer: every row seen so far (allocated once, filled as the stream arrives)
    buffer_H = torch.empty((n_initial + len(batches) * batch_size, data.n_hidden), dtype=torch.float32)
    buffer_y = torch.empty(len(buffer_H), dtype=torch.int64)
    buffer_H[:n_initial] = torch.as_tensor(data.H_initial)
    buffer_y[:n_initial] = labels(data.y_initial)
    model = torch.nn.Linear(data.n_hidden, len(data.classes))
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    H_test = torch.as_tensor(data.H_test, dtype=torch.float32)
    y_test = labels(data.y_test)

    def epochs(count, rows):
        for _ in range(count):
            for index in torch.randperm(rows, generator=generator).split(minibatch):
                optimizer.zero_grad(set_to_none=True)
                loss = torch.nn.functional.cross_entropy(model(buffer_H[index]), buffer_y[index])
                loss.backward()
                optimizer.step()

    def accuracy():
        with torch.no_grad():
            return 100.0 * float((model(H_test).argmax(1) == y_test).float().mean())

    start = time.perf_counter()
    epochs(initial_epochs, n_initial)
    initial_seconds = time.perf_counter() - start
    accuracy_initial = accuracy()
    seconds, filled = [], n_initial
    for rows in tqdm(batches, desc="replay SGD", disable=not progress, leave=False):
        start = time.perf_counter()
        buffer_H[filled:filled + batch_size] = torch.as_tensor(data.H_stream[rows])
        buffer_y[filled:filled + batch_size] = labels(data.y_stream[rows])
        filled += batch_size
        epochs(epochs_per_update, filled)
        seconds.append(time.perf_counter() - start)
    hyper = {"model": "softmax readout Linear(d, k)", "optimizer": "Adam", "lr": lr,
             "minibatch": minibatch, "initial_epochs": initial_epochs,
             "epochs_per_update": epochs_per_update, "dtype": "float32", "seed": seed}
    return ReplaySGDResult(np.array(seconds), initial_seconds, accuracy_initial, accuracy(), filled,
                           hyper)


# -- float32 against float64 over a long stream ----------------------------------------------
def drift_experiment(data: StreamData, batch_size: int = 10, alpha: float = 1e-3,
                     variants=(("cholesky", "float64"), ("cholesky", "float32"),
                               ("listing3", "float64"), ("listing3", "float32"),
                               ("information", "float32")),
                     n_checkpoints: int = 20, n_batches: int | None = None,
                     progress: bool = True) -> pd.DataFrame:
    """Stream many small batches with each (method, dtype) on NumPy and track the distance to the
    exact float64 batch solution on the rows seen so far.

    Returns one row per (method, dtype, checkpoint): ``updates``, ``samples``,
    ``relative_error`` = ‖W − W_exact‖_F / ‖W_exact‖_F, ``accuracy`` (%), ``asymmetry`` =
    max |P − Pᵀ| / max |P| and ``failed`` (the state lost definiteness; later rows are NaN).
    """
    from tqdm import tqdm

    batches = data.batches(batch_size, n_batches)
    marks = set(np.unique(np.linspace(0, len(batches), n_checkpoints + 1).round().astype(int)))
    initial, _ = initial_equations(data)
    # the exact solution at every checkpoint, from float64 normal equations (rows between
    # checkpoints are contiguous, so they are added in one block)
    seen, exact, previous = initial_equations(data)[0], {}, 0
    for mark in sorted(marks):
        if mark > previous:
            rows = slice(previous * batch_size, mark * batch_size)
            seen.update(data.H_stream[rows], data.one_hot(data.y_stream[rows]))
        exact[mark], previous = (solve_normal_equations(*seen.as_float64(), alpha, "cholesky"),
                                 seen.n_samples), mark
    records = []
    for method, dtype in variants:
        state = StreamingRidge.from_normal_equations(initial, alpha, method, dtype)
        failed = False
        for i, rows in enumerate(tqdm([None] + batches, desc=f"{method} {dtype}", disable=not progress,
                                      leave=False)):
            if i and not failed:
                try:
                    state.update(data.H_stream[rows], data.one_hot(data.y_stream[rows]))
                except np.linalg.LinAlgError:
                    failed = True
            if i not in marks:
                continue
            W_exact, samples = exact[i]
            record = {"method": method, "dtype": dtype, "updates": i, "samples": samples,
                      "relative_error": np.nan, "accuracy": np.nan, "asymmetry": np.nan,
                      "failed": failed}
            if not failed:
                W = state.coef_.astype(np.float64)
                finite = bool(np.isfinite(W).all())
                record["relative_error"] = (float(np.linalg.norm(W - W_exact) / np.linalg.norm(W_exact))
                                            if finite else np.inf)
                record["accuracy"] = data.accuracy(W) if finite else np.nan
                if method != "information":
                    P = state.P
                    record["asymmetry"] = float(np.abs(P - P.T).max() / np.abs(P).max())
            records.append(record)
    return pd.DataFrame(records)


def paired_speedup(latency: pd.DataFrame, slow: str = "listing3", fast: str = "cholesky") -> pd.DataFrame:
    """Per backend: the ratio slow/fast of the seconds of the same batch (median, IQR)."""
    wide = latency.pivot_table(index=["backend", "batch"], columns="method", values="seconds")
    ratio = (wide[slow] / wide[fast]).rename("ratio").reset_index()
    return ratio.groupby("backend", sort=False)["ratio"].agg(
        median="median", q1=lambda r: r.quantile(0.25), q3=lambda r: r.quantile(0.75),
        batches="count").reset_index()
