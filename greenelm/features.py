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

from ._validation import check_choice, check_positive_int

WEIGHT_SCALES = ("he", "unit")
BIAS_DISTRIBUTIONS = ("normal", "uniform")
DTYPES = ("float64", "float32")
DEFAULT_CHUNK_ROWS = 4096


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


@dataclass
class RandomReLUFeatures:
    """Seeded random ReLU features ``x ↦ relu(x W + b)``: (N, D) → (N, d).

    ``device`` is ``None`` for the NumPy path or a torch device (``"cpu"``, ``"cuda"``)
    for the torch path; both give the same features to within float tolerance.
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
        check_choice("dtype", self.dtype, DTYPES)
        W, b = draw_projection(self.n_inputs, self.n_hidden, self.seed, self.weight_scale, self.bias)
        if self.device is None:
            self.W, self.b = W.astype(self.dtype), b.astype(self.dtype)
        else:
            import torch

            torch_dtype = getattr(torch, self.dtype)
            self.W = torch.as_tensor(W, dtype=torch_dtype, device=self.device)
            self.b = torch.as_tensor(b, dtype=torch_dtype, device=self.device)

    def transform(self, X) -> np.ndarray:
        """Features of one block of rows: X (n, D) → H (n, d), in ``dtype`` (and on ``device``)."""
        if self.device is None:
            H = np.asarray(X, dtype=self.dtype) @ self.W
            H += self.b
            return np.maximum(H, 0, out=H)
        import torch

        X = torch.as_tensor(X, dtype=self.W.dtype, device=self.W.device)
        return torch.addmm(self.b, X, self.W).clamp_(min=0)

    def chunks(self, X, chunk_rows: int = DEFAULT_CHUNK_ROWS) -> Iterator[tuple[slice, object]]:
        """Yield ``(rows, H[rows])`` for consecutive row blocks of X (N, D)."""
        chunk_rows = check_positive_int("chunk_rows", chunk_rows)
        for rows in row_chunks(len(X), chunk_rows):
            yield rows, self.transform(X[rows])
