"""Choosing the ridge strength λ in closed form: GCV and exact leave-one-out from one eigendecomposition.

With ``G = HᵀH = V diag(s) Vᵀ`` and ``Z = Vᵀ HᵀY`` (d × k), every ridge readout is
``W(λ) = V diag(1/(s+λ)) Z``, and for a whole grid of λ:

* the residual sum of squares ``‖Y − HW‖² = ‖Y‖² − Σᵢ (2/(sᵢ+λ) − sᵢ/(sᵢ+λ)²) ‖Zᵢ‖²`` and the
  effective degrees of freedom ``tr S = Σᵢ sᵢ/(sᵢ+λ)`` give generalised cross-validation,
  ``GCV(λ) = N · RSS / (N − tr S)²`` (Golub, Heath and Wahba 1979), with no pass over the data;
* one pass over row blocks of H gives each sample's leverage ``hⱼ = Σᵢ (HV)ⱼᵢ² / (sᵢ+λ)`` and
  the exact leave-one-out prediction ``ŷ₋ⱼ = yⱼ − eⱼ / (1 − hⱼ)`` (the PRESS identity), hence the
  exact LOO mean squared error and LOO classification accuracy without N refits.
"""

from __future__ import annotations

from typing import Iterable

import numpy as np

from ._validation import check_alpha
from .solvers import GramSpectrum


class RidgePath:
    """All ridge readouts of one set of normal equations, for any λ > 0.

    gram_upper (d, d) with its upper triangle valid, hty (d, k), ``yty`` = ‖Y‖²_F (a number),
    ``n_samples`` = N.  ``overwrite_gram=True`` lets the eigensolver use a float64 NumPy
    ``gram_upper`` as its workspace (its contents are then lost): 8·d² bytes less at the peak.

    Examples
    --------
    >>> import numpy as np
    >>> from greenelm import RidgePath
    >>> rng = np.random.default_rng(0)
    >>> H, Y = rng.random((50, 6)), rng.random((50, 2))
    >>> path = RidgePath(H.T @ H, H.T @ Y, float((Y ** 2).sum()), n_samples=50)
    >>> path.weights(0.1).shape
    (6, 2)
    >>> loo = path.leave_one_out([0.01, 0.1, 1.0], [(H, Y)])
    >>> sorted(loo), loo["loo_mse"].shape
    (['alpha', 'loo_accuracy', 'loo_mse'], (3,))
    """

    def __init__(self, gram_upper, hty, yty: float, n_samples: int, overwrite_gram: bool = False):
        spectrum = GramSpectrum(gram_upper, overwrite=overwrite_gram)
        self.eigenvalues = np.clip(spectrum.eigenvalues, 0.0, None)
        self.eigenvectors = spectrum.eigenvectors
        self.rotated_targets = self.eigenvectors.T @ np.asarray(hty, dtype=np.float64)   # Z (d, k)
        if not np.isfinite(yty) or yty < 0:
            raise ValueError(f"yty must be ‖Y‖² >= 0, got {yty!r}")
        if int(n_samples) < 2:
            raise ValueError(f"n_samples must be >= 2, got {n_samples!r}")
        self.yty, self.n_samples = float(yty), int(n_samples)

    @staticmethod
    def _alphas(alphas) -> np.ndarray:
        alphas = np.atleast_1d(np.asarray(alphas, dtype=np.float64))
        for a in alphas:
            if check_alpha(a) == 0:
                raise ValueError("λ must be > 0 on a ridge path (λ = 0 has no leave-one-out identity)")
        return alphas

    def weights(self, alpha: float) -> np.ndarray:
        """Readout (d, k) for ridge strength ``alpha``."""
        (alpha,) = self._alphas(alpha)
        return self.eigenvectors @ (self.rotated_targets / (self.eigenvalues + alpha)[:, None])

    def gcv(self, alphas) -> dict[str, np.ndarray]:
        """Per λ: degrees of freedom, training RSS, and GCV = N·RSS/(N − dof)².

        Returns columns ``{"alpha", "dof", "train_rss", "gcv"}`` (each (n_alphas,); a table for
        ``pandas.DataFrame``)."""
        s = self.eigenvalues
        energy = (self.rotated_targets**2).sum(axis=1)            # ‖Zᵢ‖²
        rows = []
        for alpha in self._alphas(alphas):
            inverse = 1.0 / (s + alpha)
            rss = self.yty - np.sum((2 * inverse - s * inverse**2) * energy)
            dof = float(np.sum(s * inverse))
            rows.append({"alpha": alpha, "dof": dof, "train_rss": float(rss),
                         "gcv": self.n_samples * rss / (self.n_samples - dof) ** 2})
        return {key: np.array([row[key] for row in rows]) for key in ("alpha", "dof", "train_rss", "gcv")}

    def rotate(self, H) -> np.ndarray:
        """Rows of features in the eigenbasis, ``H V`` (b, d) float64, from H (b, d): what
        :meth:`leave_one_out` computes first, to be kept when the same rows serve many calls."""
        H = np.asarray(H)
        if H.ndim != 2 or H.shape[1] != len(self.eigenvalues):
            raise ValueError(f"H must be (b, d={len(self.eigenvalues)}), got {H.shape}")
        return np.asarray(H, dtype=np.float64) @ self.eigenvectors

    def leave_one_out(self, alphas, blocks: Iterable[tuple[np.ndarray, np.ndarray]],
                      sample: bool = False, rotated: bool = False) -> dict[str, np.ndarray]:
        """Exact LOO over all N samples, from one pass over ``blocks`` of (H (b, d), Y (b, k)).

        Per λ: the LOO mean squared error (per sample, summed over the k outputs) and, for one-hot
        Y, the LOO classification accuracy (argmax of the LOO scores against argmax of Y), in percent.
        Returns columns ``{"alpha", "loo_mse", "loo_accuracy"}``, each (n_alphas,).

        Weighted rows: blocks ``(√w·H, √w·Y, w)`` (the normal equations summed the √w-scaled rows);
        each row is left out with its whole weight, and the means are weighted by w.

        ``sample=True``: the blocks are a sample of the N training rows (each of them one of the rows
        the normal equations summed); each of their LOO residuals is still exact, and the means are
        over the sample (an unbiased estimate of the means over all N when the sample is random).

        ``rotated=True``: each block's first member is already ``H V`` (:meth:`rotate`), so a
        search over λ one value at a time pays the (b × d × d) rotation once.
        """
        alphas = self._alphas(alphas)
        s, V = self.eigenvalues, self.eigenvectors
        inverses = 1.0 / (s[None, :] + alphas[:, None])                  # (n_alpha, d)
        coefficients = [self.rotated_targets * inv[:, None] for inv in inverses]
        squared, correct, seen, total = np.zeros(len(alphas)), np.zeros(len(alphas)), 0, 0.0
        for block in blocks:
            H, Y = np.asarray(block[0], dtype=np.float64), np.asarray(block[1], dtype=np.float64)
            if H.shape[1] != len(s) or len(Y) != len(H):
                raise ValueError(f"block shapes H {H.shape} and Y {Y.shape} do not match d={len(s)}")
            weight = np.ones(len(H)) if len(block) == 2 else np.asarray(block[2], dtype=np.float64)
            P = H if rotated else H @ V                                    # (b, d)
            leverage = (P * P) @ inverses.T                                # (b, n_alpha)
            labels = Y.argmax(axis=1)
            for a, coef in enumerate(coefficients):
                residual = (Y - P @ coef) / (1.0 - leverage[:, a])[:, None]
                squared[a] += np.sum(residual**2)
                correct[a] += np.sum(weight * ((Y - residual).argmax(axis=1) == labels))
            seen += len(H)
            total += float(weight.sum())
        if sample and not 0 < seen <= self.n_samples:
            raise ValueError(f"a sample of the {self.n_samples} training rows needs 1..{self.n_samples} rows, "
                             f"the blocks held {seen}")
        if not sample and seen != self.n_samples:
            raise ValueError(f"the blocks held {seen} rows but the normal equations {self.n_samples}")
        return {"alpha": alphas, "loo_mse": squared / total, "loo_accuracy": 100 * correct / total}
