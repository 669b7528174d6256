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

The d × d factorisation always runs in float64, even when the features and the Gram are
float32: it costs O(d³), small next to the O(Nd²) Gram, and float32 normal equations lose
about half of their digits.  Factorisations of order ≥ :data:`LARGE_ORDER` are routed to
torch's LAPACK, because the multithreaded OpenBLAS of the NumPy/SciPy wheels is known to crash
in ``potrf`` at that size.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.linalg
from scipy.linalg import blas

from ._validation import check_alpha

SOLVERS = ("pinv", "lu", "cholesky", "eigh")
NORMAL_EQUATION_SOLVERS = ("lu", "cholesky", "eigh")
LARGE_ORDER = 16000


def is_torch(array) -> bool:
    """True when ``array`` is a torch tensor (without importing torch otherwise)."""
    return type(array).__module__.startswith("torch")


class NormalEquations:
    """Running sums ``G = HᵀH`` (upper triangle valid) and ``HᵀY`` over row blocks.

    Blocks may be NumPy arrays or torch tensors (then the sums live on the blocks' device).
    ``n_samples`` counts the rows seen.  Two accumulators with the same shape add with ``+``.
    """

    def __init__(self, n_hidden: int, n_outputs: int, dtype="float64", device=None):
        self.n_hidden, self.n_outputs, self.n_samples = int(n_hidden), int(n_outputs), 0
        if device is None:
            # Fortran order lets syrk update G in place.
            self.gram = np.zeros((n_hidden, n_hidden), dtype=dtype, order="F")
            self.hty = np.zeros((n_hidden, n_outputs), dtype=dtype)
        else:
            import torch

            torch_dtype = getattr(torch, str(dtype).replace("torch.", ""))
            self.gram = torch.zeros((n_hidden, n_hidden), dtype=torch_dtype, device=device)
            self.hty = torch.zeros((n_hidden, n_outputs), dtype=torch_dtype, device=device)

    def update(self, H, Y) -> None:
        """Add one block: H (n, d), Y (n, k), same dtype as the sums."""
        if H.shape[1] != self.n_hidden or Y.shape != (H.shape[0], self.n_outputs):
            raise ValueError(f"block shapes H {tuple(H.shape)} and Y {tuple(Y.shape)} do not match "
                             f"d={self.n_hidden}, k={self.n_outputs}")
        if is_torch(self.gram):
            self.gram.addmm_(H.T, H)
            self.hty.addmm_(H.T, Y.to(self.hty.dtype))
        else:
            H = np.asarray(H, dtype=self.gram.dtype)
            # H.T of a C-ordered block is Fortran-ordered: syrk computes (Hᵀ)(Hᵀ)ᵀ = HᵀH with no copy.
            syrk = blas.get_blas_funcs("syrk", dtype=self.gram.dtype)
            self.gram = syrk(1.0, H.T, beta=1.0, c=self.gram, trans=0, lower=0, overwrite_c=1)
            self.hty += H.T @ np.asarray(Y, dtype=self.hty.dtype)
        self.n_samples += H.shape[0]

    def __add__(self, other: "NormalEquations") -> "NormalEquations":
        if (self.n_hidden, self.n_outputs) != (other.n_hidden, other.n_outputs):
            raise ValueError("cannot add normal equations of different shapes")
        total = NormalEquations.__new__(NormalEquations)
        total.__dict__.update(self.__dict__)
        total.gram = self.gram + other.gram
        total.hty = self.hty + other.hty
        total.n_samples = self.n_samples + other.n_samples
        return total

    def as_float64(self):
        """``(G_upper, HᵀY)`` in float64, NumPy (G Fortran-ordered) or torch on the sums' device."""
        if is_torch(self.gram):
            return self.gram.double(), self.hty.double()
        return np.asarray(self.gram, dtype=np.float64, order="F"), self.hty.astype(np.float64)


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
            raise np.linalg.LinAlgError(_not_pd_message(int(info)))
        return torch.cholesky_solve(B, L).cpu().numpy()
    return torch.linalg.solve(A, B).cpu().numpy()


def _not_pd_message(order) -> str:
    return (f"G + λI is not positive definite (leading minor {order} failed): the Gram matrix is "
            "numerically singular at this λ; raise alpha, use float64 features, or use solver='eigh'")


def solve_normal_equations(gram_upper, hty, alpha: float, solver: str = "cholesky") -> np.ndarray:
    """Ridge readout ``W2 = (G + λI)⁻¹ HᵀY``: G (d, d) upper triangle valid, HᵀY (d, k) → (d, k) float64.

    NumPy inputs are solved with SciPy's LAPACK (torch's beyond LARGE_ORDER); torch tensors
    on their own device.  The result is a NumPy array.
    """
    alpha = check_alpha(alpha)
    if solver not in NORMAL_EQUATION_SOLVERS:
        raise ValueError(f"unknown solver {solver!r} for the normal equations; "
                         f"choose one of {', '.join(map(repr, NORMAL_EQUATION_SOLVERS))}")
    if solver == "eigh":
        return GramSpectrum(gram_upper).weights(hty, alpha)
    if is_torch(gram_upper) or gram_upper.shape[0] >= LARGE_ORDER:
        return _solve_torch(gram_upper, hty, alpha, solver)
    A = _ridge_matrix(gram_upper, alpha)
    B = np.asarray(hty, dtype=np.float64)
    if solver == "cholesky":
        try:
            factor = scipy.linalg.cho_factor(A, lower=False, overwrite_a=True, check_finite=False)
        except np.linalg.LinAlgError as error:
            raise np.linalg.LinAlgError(_not_pd_message(str(error).split("-th")[0])) from error
        return scipy.linalg.cho_solve(factor, B, check_finite=False)
    return scipy.linalg.solve(symmetrize_upper(A), B, assume_a="gen", overwrite_a=True,
                              check_finite=False)


class GramSpectrum:
    """Eigendecomposition ``G = V diag(s) Vᵀ`` of a Gram matrix (d × d), once, for any λ.

    ``weights(HᵀY, λ)`` is ``V diag(1/(s+λ)) Vᵀ HᵀY``.  At λ = 0 it is the minimum-norm
    least-squares solution ``H⁺Y``: eigenvalues below ``rcond · max(s)`` are treated as zero,
    where ``rcond`` defaults to ``d · eps`` (the numerical noise floor of an eigenvalue of G).
    """

    def __init__(self, gram_upper):
        if is_torch(gram_upper) or gram_upper.shape[0] >= LARGE_ORDER:
            import torch

            gram = symmetrize_upper(torch.as_tensor(gram_upper, dtype=torch.float64))
            s, V = torch.linalg.eigh(gram)
            self.eigenvalues, self.eigenvectors = s.cpu().numpy(), V.cpu().numpy()
        else:
            self.eigenvalues, self.eigenvectors = scipy.linalg.eigh(
                np.asarray(gram_upper, dtype=np.float64), lower=False, check_finite=False,
                driver="evr")

    def weights(self, hty: np.ndarray, alpha: float, rcond: float | None = None) -> np.ndarray:
        """Readout (d, k) for ridge strength ``alpha`` from HᵀY (d, k)."""
        alpha = check_alpha(alpha)
        s, V = self.eigenvalues, self.eigenvectors
        if alpha > 0:
            inverse = 1.0 / (s + alpha)
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
    (``max(N, d) · eps · σ_max``), without forming the d × N pseudoinverse.
    """
    if is_torch(H):
        H, Y = H.double().cpu().numpy(), Y.double().cpu().numpy()
    H = np.asarray(H, dtype=np.float64)
    cond = max(H.shape) * np.finfo(np.float64).eps
    W2, *_ = scipy.linalg.lstsq(H, np.asarray(Y, dtype=np.float64), cond=cond,
                                lapack_driver="gelsd", check_finite=False)
    return W2


def solve(equations: NormalEquations, solver: str = "cholesky", alpha: float = 1e-3) -> np.ndarray:
    """Readout (d, k) from accumulated normal equations with a normal-equation solver."""
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
