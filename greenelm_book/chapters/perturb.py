"""Geometric perturbation of test images: the paper's "Structural Resilience Comparison".

Test images are rotated about their centre by torchvision's
``torchvision.transforms.functional.rotate`` (bilinear interpolation, pixels from outside the
image filled with 0, positive angles counter-clockwise, the image size kept), computed in float64
so that multiples of 90° reproduce ``np.rot90`` to rounding, then flattened to the same rows in
[0, 1] that the models were trained on. Models are trained once on unrotated images and
evaluated on every angle.
"""

from __future__ import annotations

from typing import Callable, Mapping

import numpy as np
import pandas as pd

def _check_angle(angle) -> float:
    if isinstance(angle, bool) or not isinstance(angle, (int, float, np.integer, np.floating)) \
            or not np.isfinite(angle):
        raise ValueError(f"angle must be a finite number of degrees, got {angle!r}")
    return float(angle)


def rotate(images, angle: float, dtype=np.float64, batch_size: int = 10000) -> np.ndarray:
    """Rotate uint8 grey images (N, H, W) by ``angle`` degrees → float rows (N, H·W) in [0, 1]."""
    import torch
    from torchvision.transforms.functional import InterpolationMode
    from torchvision.transforms.functional import rotate as tv_rotate

    angle = _check_angle(angle)
    images = np.asarray(images)
    if images.dtype != np.uint8:
        raise ValueError(f"images must be uint8 pixels in 0..255, got dtype {images.dtype}")
    if images.ndim != 3:
        raise ValueError(f"images must be a stack of grey images (N, H, W), got shape {images.shape}")
    dtype = np.dtype(dtype)
    if not np.issubdtype(dtype, np.floating):
        raise ValueError(f"rotate() returns floating rows; dtype {dtype} is not floating")
    n, height, width = images.shape
    out = np.empty((n, height * width), dtype=dtype)
    for start in range(0, n, batch_size):
        block = torch.from_numpy(images[start:start + batch_size].astype(np.float64) / 255)
        turned = tv_rotate(block[:, None], angle, interpolation=InterpolationMode.BILINEAR, fill=0.0)
        out[start:start + len(block)] = turned.reshape(len(block), -1).numpy()
    return out


def _angles(angles) -> list[float]:
    angles = [_check_angle(a) for a in np.atleast_1d(np.asarray(angles, dtype=object)).tolist()]
    if not angles:
        raise ValueError("angles is empty")
    return angles


def rotated_test_sets(dataset, angles, dtype=np.float64) -> dict[float, np.ndarray]:
    """{angle: rows (N, H·W)} of ``dataset.x_test`` rotated by each angle (computed once, reused)."""
    return {angle: rotate(dataset.x_test, angle, dtype) for angle in _angles(angles)}


def accuracy_under_rotation(predict_fn: Callable[[np.ndarray], np.ndarray], dataset, angles,
                            dtype=np.float64, rotated: Mapping[float, np.ndarray] | None = None
                            ) -> pd.DataFrame:
    """Test accuracy (percent) of ``predict_fn`` on ``dataset``'s test images rotated by each angle.

    ``dataset`` has uint8 ``x_test`` (N, H, W) and labels ``y_test`` (N,); ``rotated`` optionally
    holds the rotated rows already (:func:`rotated_test_sets`). Returns columns angle, accuracy.
    """
    rows = []
    for angle in _angles(angles):
        X = rotated[angle] if rotated is not None and angle in rotated else rotate(dataset.x_test, angle, dtype)
        predicted = np.asarray(predict_fn(X))
        if predicted.shape != dataset.y_test.shape:
            raise ValueError(f"predict_fn returned shape {predicted.shape}, expected {dataset.y_test.shape}")
        rows.append({"angle": angle, "accuracy": 100 * float(np.mean(predicted == dataset.y_test))})
    return pd.DataFrame(rows)


def paired_difference(a, b, level: float = 0.95) -> tuple[float, float, float]:
    """``(mean, low, high)``: the mean of ``a − b`` over paired runs (n,), n ≥ 2, and its ``level``
    confidence interval (Student t, n − 1 degrees of freedom)."""
    from scipy.stats import t

    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if a.shape != b.shape or a.ndim != 1 or len(a) < 2:
        raise ValueError(f"a and b must be paired runs of equal length >= 2, got shapes {a.shape} and {b.shape}")
    if not (np.all(np.isfinite(a)) and np.all(np.isfinite(b))):
        raise ValueError("a and b must be finite")
    if not 0 < level < 1:
        raise ValueError(f"level must lie in (0, 1), got {level!r}")
    diff = a - b
    half = float(t.ppf(0.5 + level / 2, len(diff) - 1)) * diff.std(ddof=1) / np.sqrt(len(diff))
    return float(diff.mean()), float(diff.mean() - half), float(diff.mean() + half)
