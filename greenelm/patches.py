"""A frozen image feature map: whitened random patches, a ReLU split and pooling.

In the spirit of the random-feature baselines for images (Coates, Lee & Ng, AISTATS 2011: patches,
whitening, a thresholded encoding and quadrant pooling; Thiry, Arbel, Belilovsky & Oyallon, ICLR
2021: whitened patches sampled from the data as filters), and frozen like Green-ELM's projection:
nothing is trained by gradients. :meth:`RandomPatchFeatures.fit` only draws from the training
images, with the seed,

* ``n_whitening`` patches (p × p × C) that estimate the patch covariance, hence a ZCA whitening
  ``Z = V diag(1/√(s + whiten_eps)) Vᵀ`` of the contrast-normalised patches, and
* ``n_patches`` further patches that, whitened and scaled to unit norm, become the filters F (K, p²C)
  (or, with ``dictionary="kmeans"``, the K centroids of spherical k-means over whitened patches).

:meth:`~RandomPatchFeatures.transform` then maps each image (H, W, C) to

1. every p × p patch at stride 1 (``(H−p+1)(W−p+1)`` of them), each contrast-normalised
   (minus its mean, over √(variance + contrast_eps));
2. its responses ``z = whiten(patch) · Fᵀ`` (K per position): GEMMs with whitening and filters
   folded into one (p²C, K) matrix;
3. the ReLU split ``max(0, z − t)`` and ``max(0, −z − t)`` (threshold t, Coates' soft threshold);
4. mean pooling over a ``pool × pool`` grid of the positions (``numpy.array_split`` boundaries),

the NumPy path in strips of positions whose responses stay in cache while 3 and 4 reduce them
(the split from absolute values, see :meth:`RandomPatchFeatures._numpy_block`), the images of a
block split between BLAS's threads; the torch path with torch's kernels (the split from the soft
threshold and its magnitude, see :meth:`RandomPatchFeatures._torch_block`), in groups of images on
the CPU,

so ``n_features_out = 2 · K · pool²``, in blocks of rows ready for :class:`~greenelm.NormalEquations`,
:class:`~greenelm.RidgePath` and :class:`~greenelm.StreamingRidge`, exactly as Green-ELM's
features are. Inputs are rows (N, H·W·C) in height-width-channel order (what
``load_dataset(...).flat()`` returns, pixels in [0, 1]: the features depend on the pixels' scale, see
:class:`RandomPatchFeatures`' Notes) or arrays (N, H, W) / (N, H, W, C). ``device`` ``None`` runs
NumPy; a torch device (``"cpu"``, ``"cuda"``) runs the same arithmetic in torch.

**The mirror** (``mirror_symmetric=True``). The map then commutes with the left-right mirror of the
image (each image flipped along its width axis): the mirror acts on the features as a permutation
of their columns, ``transform(mirror(X)) == transform(X)[:, mirror_permutation_]`` to rounding.
Three things make it so: the dictionary is closed under mirroring (K/2 atoms drawn, each with its
mirror image, the patch flipped left-right: atom k + K/2 mirrors atom k), the ZCA whitening is
estimated over the drawn patches and their mirrors (its mean and covariance symmetrised exactly,
so the whitening commutes with the patch's flip), and the pooling cells are symmetric about the
vertical axis (:func:`symmetric_pool_bounds` on the columns; ``numpy.array_split``'s cells where
those are symmetric already; an even ``pool`` over an odd number of column positions has none, and
is refused, naming the patch sizes and pools that work). The contrast normalisation and the ReLU
split act on each patch's values as a set, so they commute with the flip as they are. With such a
map the views [image, mirror image] form a group acting on the features as column permutations,
which :class:`~greenelm.KernelLimitClassifier`'s ``symmetric_views`` turns into V kernel products
instead of V². Translations do not commute with the map (the positions shifted out at one border are
lost and zeros come in at the other), so a view set with shifts is no such group.
"""

from __future__ import annotations

import math
import numbers
from typing import Iterator

import numpy as np
from scipy.sparse import issparse
from sklearn.base import BaseEstimator, ClassNamePrefixFeaturesOutMixin, TransformerMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from ._threads import blas_controller, blas_threads, shared_executor
from ._validation import (check_choice, check_device, check_finite_fit, check_positive_int, require_memory,
                          seed_from_random_state)
from .features import DTYPES, GUARD_FLOOR_BYTES, row_chunks

#: how :class:`RandomPatchFeatures` chooses its filters (see its ``dictionary`` parameter)
DICTIONARIES = ("sampled", "kmeans")
#: images per block of :meth:`RandomPatchFeatures.chunks` by default
DEFAULT_CHUNK_IMAGES = 32
#: bytes of responses z per GEMM of the NumPy path: a strip small enough to stay in cache while
#: the ReLU split and pooling read it (1 MiB ran fastest of 128 KiB – 2 MiB at K = 1,024 and 4,096)
STRIP_BYTES = 1 << 20
#: bytes of responses z per group of images of the torch path on the CPU (a GPU takes the whole
#: block): below glibc's 32 MiB ceiling for fresh mmaps (16–24 MiB ran fastest of 2–32 MiB and the
#: whole block at K = 1,024 and 4,096)
TORCH_CPU_Z_BYTES = 16 << 20

#: why :class:`RandomPatchFeatures` fails scikit-learn's generic estimator checks
GENERIC_CHECK_DATA = ("scikit-learn's generic checks fit on small tables (e.g. 30 × 3 values a row), "
                      "not on rows of whole images of image_shape; fit refuses such rows as a shape "
                      "error (ValueError naming image_shape) rather than guess an image from them")
#: the generic checks that fit such tables (their names in scikit-learn 1.6 – 1.9): each fails on
#: the shape error; every other generic check passes
GENERIC_CHECKS_ON_TABLES = (
    "check_dict_unchanged", "check_dont_overwrite_parameters",
    "check_dtype_object", "check_estimators_dtypes", "check_estimators_fit_returns_self",
    "check_estimators_nan_inf", "check_estimators_overwrite_params", "check_estimators_pickle",
    "check_f_contiguous_array_estimator", "check_fit2d_1feature", "check_fit2d_1sample",
    "check_fit2d_predict1d", "check_fit_check_is_fitted", "check_fit_idempotent",
    "check_fit_score_takes_y", "check_methods_sample_order_invariance",
    "check_methods_subset_invariance", "check_n_features_in", "check_n_features_in_after_fitting",
    "check_pipeline_consistency", "check_positive_only_tag_during_fit", "check_readonly_memmap_input",
    "check_transformer_data_not_an_array", "check_transformer_general",
    "check_transformer_preserve_dtypes")


def expected_failed_checks(estimator) -> dict[str, str]:
    """The generic scikit-learn checks ``estimator`` (a :class:`RandomPatchFeatures`) is expected to
    fail, each with its reason: pass it as ``expected_failed_checks=`` to
    ``sklearn.utils.estimator_checks.check_estimator`` or ``parametrize_with_checks`` (scikit-learn
    ≥ 1.6, which replaced the ``_xfail_checks`` tag by that argument).

    Only ``image_shape=(1, 1)`` with ``patch_size=1, pool=1`` (1 × 1 pixels, each table column a
    channel) fits every table the checks use, and passes them all; any other image shape fails the checks of
    :data:`GENERIC_CHECKS_ON_TABLES` (:data:`GENERIC_CHECK_DATA`) and passes the rest."""
    if np.ndim(estimator.image_shape) == 1 and tuple(estimator.image_shape) == (1, 1) \
            and estimator.patch_size == 1 and estimator.pool == 1:
        return {}
    return {name: GENERIC_CHECK_DATA for name in GENERIC_CHECKS_ON_TABLES}


def _positive_number(name: str, value, allow_zero: bool = False) -> float:
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a number, got {value!r}") from None
    if not np.isfinite(number) or number < 0 or (number == 0 and not allow_zero):
        bound = ">= 0" if allow_zero else "> 0"
        raise ValueError(f"{name} must be a finite number {bound}, got {value!r}")
    return number


def _unit_rows(rows: np.ndarray) -> np.ndarray:
    """``rows`` (m, n) scaled to unit Euclidean norm, in place (rows of zeros stay zeros)."""
    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    rows /= np.where(norms > 0, norms, 1.0)
    return rows


def symmetric_pool_bounds(n_positions: int, pool: int) -> list[tuple[int, int]] | None:
    """The ``pool`` (start, stop) ranges that split ``n_positions`` with lengths that read the same
    from either end (cells symmetric about the middle), each ``n_positions // pool`` or one longer:
    :func:`pool_bounds`'s where those are symmetric (``pool`` divides ``n_positions``), else the longer
    ranges in pairs at the two ends (and one in the middle for an odd count). None where no such split
    exists: an even ``pool`` over an odd ``n_positions``."""
    size, longer = divmod(n_positions, pool)
    if longer % 2 and pool % 2 == 0:
        return None
    lengths = [size] * pool
    for k in range(longer // 2):
        lengths[k] += 1
        lengths[pool - 1 - k] += 1
    if longer % 2:
        lengths[pool // 2] += 1
    edges = [sum(lengths[:k]) for k in range(pool + 1)]
    return list(zip(edges[:-1], edges[1:]))


def _refuse_unrepresentable_pixels(images: np.ndarray, patch_values: int, dtype: str) -> None:
    """Refuse images (N, H, W, C) whose largest magnitude the features cannot represent: beyond
    ``dtype``'s range (the transform casts the pixels to it), or so large that a patch's variance
    (``patch_values`` = p²C squares, each of a difference up to twice the largest) overflows the fit's
    float64 contrast normalisation."""
    if images.size == 0 or images.dtype.kind not in "fiu":
        return
    largest = max(abs(float(images.max())), abs(float(images.min())))
    limit = min(math.sqrt(float(np.finfo(np.float64).max) / (4 * patch_values)), float(np.finfo(dtype).max))
    if not largest <= limit:
        raise ValueError(f"RandomPatchFeatures.fit: the images' largest magnitude {largest:.3g} is beyond what the "
                         f"features can hold (|pixel| <= {limit:.3g} in {dtype}, the contrast normalisation's "
                         "squares in float64): scale the pixels to [0, 1] (or to uint8's [0, 255])")


def pool_bounds(n_positions: int, pool: int) -> list[tuple[int, int]]:
    """The ``pool`` (start, stop) ranges that split ``n_positions`` as ``numpy.array_split`` does:
    the first ``n_positions % pool`` ranges one longer than the others."""
    size, longer = divmod(n_positions, pool)
    edges = [k * size + min(k, longer) for k in range(pool + 1)]
    return list(zip(edges[:-1], edges[1:]))


class RandomPatchFeatures(ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator):
    """Seeded whitened-patch features for images: X (N, H·W·C) → (N, 2·n_patches·pool²).

    Parameters
    ----------
    image_shape : (H, W) or (H, W, C); for (H, W), C is the number of values per row over H·W
    n_patches : K, filters drawn from the training images
    patch_size : p (patches are p × p × C)
    pool : the pooling grid is pool × pool
    threshold : t of the ReLU split (on whitened, unit-norm-filter responses)
    whiten_eps : added to the patch covariance's eigenvalues before the inverse square root
    contrast_eps : added to each patch's variance before dividing by its square root
    n_whitening : patches that estimate the covariance (at least 2)
    dictionary : how the K filters are chosen: ``"sampled"`` (default) whitened patches drawn from
        the training images, or ``"kmeans"`` the centroids of spherical k-means (scikit-learn's
        ``MiniBatchKMeans`` on unit-norm whitened patches, Coates & Ng 2012) over ``kmeans_sample``
        drawn patches, each scaled to unit norm
    kmeans_sample : patches the k-means sees (``dictionary="kmeans"`` only; at least ``n_patches``)
    dtype : "float32" (default) or "float64", the features' precision
    device : None (NumPy) or a torch device
    random_state : int seed (or a Generator / RandomState, from which one seed is drawn)
    mirror_symmetric : False (default) or True: a map that commutes with the left-right mirror of
        the image (see the module): n_patches must be even, the column pooling cells symmetric

    Attributes
    ----------
    mirror_permutation_ : (n_features_out,) int64, with ``mirror_symmetric=True`` only: the features
        of the mirrored images are ``transform(X)[:, mirror_permutation_]``

    Notes
    -----
    Pixel scale: ``contrast_eps`` is added to each patch's variance in the pixels' own units, so the
    features depend on the pixels' scale: uint8 values [0, 255] and the same images in [0, 1] give
    different features (at 255× the scale ``contrast_eps`` weighs 255² = 65,025× less). The defaults
    are set for pixels in [0, 1], what ``load_dataset(...).flat()`` returns; for uint8 images divide
    by 255 (or multiply ``contrast_eps`` by 255², which gives the [0, 1] features to rounding).

    Memory: ``fit`` and ``transform`` first count what they allocate (the drawn patches and their
    copies, the dictionary and the folded projection; the features, the images' patches and the
    pooled sums) and raise ``MemoryError`` naming the sizes when it exceeds the memory available
    (:func:`greenelm._validation.require_memory`), before allocating.

    Examples
    --------
    >>> import numpy as np
    >>> from greenelm import RandomPatchFeatures
    >>> X = np.random.default_rng(0).random((20, 8 * 8 * 3))
    >>> patches = RandomPatchFeatures((8, 8, 3), n_patches=4, patch_size=3, pool=2,
    ...                               n_whitening=200).fit(X)
    >>> patches.transform(X).shape, patches.n_features_out
    ((20, 32), 32)
    >>> symmetric = RandomPatchFeatures((8, 8, 3), n_patches=4, patch_size=3, pool=2, n_whitening=200,
    ...                                 mirror_symmetric=True).fit(X)
    >>> images = X.reshape(20, 8, 8, 3)
    >>> mirror = symmetric.transform(images[:, :, ::-1])
    >>> bool(np.allclose(mirror, symmetric.transform(images)[:, symmetric.mirror_permutation_], atol=1e-6))
    True
    """

    def __init__(self, image_shape, n_patches: int = 1024, patch_size: int = 6, pool: int = 2,
                 threshold: float = 0.25, whiten_eps: float = 0.1, contrast_eps: float = 0.01,
                 n_whitening: int = 100_000, dictionary: str = "sampled", kmeans_sample: int = 100_000,
                 dtype: str = "float32", device=None, random_state=0, mirror_symmetric: bool = False):
        self.image_shape = image_shape
        self.n_patches = n_patches
        self.patch_size = patch_size
        self.pool = pool
        self.threshold = threshold
        self.whiten_eps = whiten_eps
        self.contrast_eps = contrast_eps
        self.n_whitening = n_whitening
        self.dictionary = dictionary
        self.kmeans_sample = kmeans_sample
        self.dtype = dtype
        self.device = device
        self.random_state = random_state
        self.mirror_symmetric = mirror_symmetric

    # -- parameters ------------------------------------------------------------------------
    def _shape(self, n_values: int | None = None) -> tuple[int, int, int | None]:
        """(H, W, C); C is None for an ``image_shape`` (H, W) until ``n_values`` (H·W·C) gives it."""
        shape = tuple(self.image_shape) if np.ndim(self.image_shape) == 1 else ()
        if len(shape) not in (2, 3) or any(isinstance(s, (bool, np.bool_)) or not isinstance(s, numbers.Integral)
                                           or s < 1 for s in shape):
            raise ValueError(f"image_shape must be (H, W) or (H, W, C) of positive integers, "
                             f"got {self.image_shape!r}")
        shape = tuple(int(s) for s in shape)
        if len(shape) == 3 or n_values is None:
            return shape if len(shape) == 3 else shape + (None,)
        height, width = shape
        if n_values % (height * width):
            raise ValueError(f"X has rows of {n_values} values, which is not a whole number of "
                             f"{height} × {width} images (image_shape {shape}: H·W·C values a row)")
        return height, width, n_values // (height * width)

    def _check_params(self) -> None:
        height, width, _ = self._shape()
        check_positive_int("n_patches", self.n_patches)
        p = check_positive_int("patch_size", self.patch_size)
        if p > min(height, width):
            raise ValueError(f"patch_size {p} exceeds the image's {height} × {width}")
        pool = check_positive_int("pool", self.pool)
        if pool > min(height, width) - p + 1:
            raise ValueError(f"pool {pool} exceeds the {height - p + 1} × {width - p + 1} patch positions")
        _positive_number("threshold", self.threshold, allow_zero=True)
        _positive_number("whiten_eps", self.whiten_eps)
        _positive_number("contrast_eps", self.contrast_eps)
        if check_positive_int("n_whitening", self.n_whitening) < 2:
            raise ValueError(f"n_whitening must be at least 2, got {self.n_whitening!r}: the patch covariance of "
                             "one patch is undefined (NaN whitening, NaN features); draw more patches "
                             "(the default is 100,000)")
        check_choice("dictionary", self.dictionary, DICTIONARIES)
        if self.dictionary == "kmeans" and check_positive_int("kmeans_sample", self.kmeans_sample) < self.n_patches:
            raise ValueError(f"kmeans_sample ({self.kmeans_sample}) must be at least n_patches "
                             f"({self.n_patches}): k-means needs a patch per centroid")
        check_choice("dtype", self.dtype, DTYPES)
        check_device(self.device)
        self._check_mirror(height, width, p, pool)

    def _check_mirror(self, height: int, width: int, p: int, pool: int) -> None:
        """``mirror_symmetric`` a bool; when True, an even ``n_patches`` and column cells symmetric
        about the vertical axis (else ValueError naming the patch sizes and pools that have them)."""
        if not isinstance(self.mirror_symmetric, (bool, np.bool_)):
            raise ValueError(f"mirror_symmetric must be True or False, got {self.mirror_symmetric!r}")
        if not self.mirror_symmetric:
            return
        if int(self.n_patches) % 2:
            raise ValueError(f"mirror_symmetric=True draws each atom with its mirror image, so n_patches must be "
                             f"even, got n_patches={self.n_patches}")
        n_cols = width - p + 1
        if symmetric_pool_bounds(n_cols, pool) is None:
            side = min(height, width)
            sizes = [q for q in range(1, side + 1) if (width - q + 1) % 2 == 0 and pool <= side - q + 1]
            pools = [q for q in range(1, side - p + 2) if symmetric_pool_bounds(n_cols, q) is not None]
            raise ValueError(f"mirror_symmetric=True needs pooling cells symmetric about the vertical axis, and "
                             f"pool {pool} over the {n_cols} column positions (W - patch_size + 1 = {width} - {p} "
                             f"+ 1) has none (an even pool needs an even number of positions): with pool {pool} "
                             f"use patch_size in {sizes}, or with patch_size {p} a pool in {pools}")

    def _column_bounds(self, n_cols: int) -> list[tuple[int, int]]:
        """The pooling cells' (start, stop) over the ``n_cols`` column positions: ``numpy.array_split``'s
        (:func:`pool_bounds`), or with ``mirror_symmetric`` :func:`symmetric_pool_bounds`'s."""
        if self.mirror_symmetric:
            return symmetric_pool_bounds(n_cols, int(self.pool))
        return pool_bounds(n_cols, int(self.pool))

    @property
    def n_features_out(self) -> int:
        """2 · n_patches · pool² (the ReLU split's two halves, per pooling cell): once fitted, the fitted
        value (what ``transform`` returns, whatever ``set_params`` changed since)."""
        fitted = self.__dict__.get("_n_features_out")
        return fitted if fitted is not None else 2 * int(self.n_patches) * int(self.pool) ** 2

    def _check_fitted_pool(self) -> None:
        """Refuse to transform with a ``pool`` that ``set_params`` changed since the fit: the features
        would no longer be ``n_features_out`` wide."""
        if 2 * len(self.filters_) * int(self.pool) ** 2 != self.n_features_out:
            raise ValueError(f"pool was changed to {self.pool!r} by set_params after the fit, which gave "
                             f"{self.n_features_out} features: fit again (or set the fitted pool back)")

    def _images(self, X, name: str = "X", reset: bool = False) -> np.ndarray:
        """X as a (N, H, W, C) array of numbers (a view when it already is one), after checks:
        rows (N, H·W·C) or images (N, H, W) / (N, H, W, C); dense only."""
        if is_torch_tensor(X):
            raise TypeError(f"{name} must be a NumPy array; the features go to `device` themselves")
        if issparse(X):
            raise TypeError(f"{name} is a sparse {type(X).__name__}; RandomPatchFeatures takes dense "
                            "images (sparse input is not supported): pass X.toarray()")
        height, width, channels = self._shape()
        if len(getattr(X, "shape", ())) > 2:      # images: checked as their rows (N, H·W·C)
            X = np.asarray(X)
            expected = (height, width) + ((channels,) if channels is not None else ())
            if not (X.shape[1:] == expected or (X.ndim == 4 and channels is None and X.shape[1:3] == expected)
                    or (X.ndim == 3 and channels in (None, 1) and X.shape[1:] == (height, width))):
                raise ValueError(f"{name} has shape {X.shape}; image_shape {tuple(self.image_shape)} needs "
                                 f"rows (N, H·W·C) or images (N, {height}, {width}[, C])")
            X = X.reshape(len(X), -1)
        X = validate_data(self, X, reset=reset, dtype="numeric")
        shape = self._shape(X.shape[1])
        if X.shape[1] != math.prod(shape):
            raise ValueError(f"{name} has shape {X.shape}; image_shape {shape} needs rows of "
                             f"{math.prod(shape)} values (N, {math.prod(shape)}) or images "
                             f"(N, {', '.join(map(str, shape))})")
        return X.reshape((len(X),) + shape)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        # the output has the ``dtype`` parameter's precision, whatever the input's
        tags.transformer_tags.preserves_dtype = [self.dtype] if self.dtype in DTYPES else []
        return tags

    # -- fitting ---------------------------------------------------------------------------
    def _normalise(self, patches: np.ndarray) -> np.ndarray:
        """Contrast normalisation of rows (m, p²C), float64, in place."""
        patches -= patches.mean(axis=1, keepdims=True)
        patches /= np.sqrt(patches.var(axis=1, keepdims=True) + float(self.contrast_eps))
        return patches

    def _fit_memory(self, channels: int) -> dict[str, int]:
        """Bytes ``fit`` allocates (every copy counted): the drawn patches (indices, the gathered
        patches and their float64 copies), the covariance and whitening, the dictionary's patches
        (drawn, centred, whitened, unit-norm) and the folded projection (p²C × K, three copies)."""
        p, K = int(self.patch_size), int(self.n_patches)
        P = p * p * int(channels)
        whitening = int(self.n_whitening) * (2 if self.mirror_symmetric else 1)     # with their mirrors
        drawn = int(self.kmeans_sample) if self.dictionary == "kmeans" else K
        # the whitening's patches (one float64 copy) live to the end of fit; their gathering and the
        # dictionary's draw (or k-means) come one after the other: the plan counts the larger
        stages = {f"gathering them (a second copy of {whitening} × {P})": whitening * 8 * P,
                  f"the dictionary's {drawn} drawn patches (indices, four copies of {drawn} × {P})"
                  + (f" and k-means' distances ({drawn} × {K} float64)" if self.dictionary == "kmeans" else ""):
                      drawn * (3 * 8 + 4 * 8 * P) + (8 * drawn * K if self.dictionary == "kmeans" else 0)}
        largest = max(stages, key=stages.get)
        return {f"n_whitening = {whitening} patches of p²C = {P} values (indices, one copy)":
                    whitening * (3 * 8 + 8 * P),
                largest: stages[largest],
                "the covariance and whitening (p²C × p²C, four copies)": 4 * 8 * P * P,
                f"the filters and folded projection (n_patches × p²C = {K} × {P}, four copies)":
                    4 * 8 * K * (P + 1)}

    def _transform_memory(self, n_images: int, images_shape) -> dict[str, int]:
        """Bytes ``transform`` of ``n_images`` images allocates: the features, the images' patches
        (one row of p²C + 1 values per position) and the pooled sums."""
        height, width, channels = images_shape
        p, pool, K = int(self.patch_size), int(self.pool), int(self.n_patches)
        positions = (height - p + 1) * (width - p + 1)
        size = np.dtype(self.dtype).itemsize
        D1, n_cols = p * p * channels + 1, width - p + 1
        workers = max(1, min(blas_threads(), int(n_images)))      # each thread's share of the images
        share = -(-int(n_images) // workers)
        row_bytes = n_cols * K * size                              # as _numpy_block sizes its strips
        group = max(1, min(share, STRIP_BYTES // row_bytes))
        strip_rows = max(1, STRIP_BYTES // (group * row_bytes)) if group == share else 1
        return {f"the features (n × 2·K·pool² = {n_images} × {self.n_features_out} {self.dtype})":
                    size * n_images * self.n_features_out,
                f"the images' patches (n × {positions} positions × (p²C + 1 = {D1}))":
                    size * n_images * positions * D1,
                "the pooled sums (pool² × 2 × n × K)": size * pool * pool * 2 * n_images * K,
                f"the GEMM strips' responses (2 × {strip_rows * group * n_cols} × K, per thread)":
                    workers * 2 * strip_rows * group * n_cols * K * size,
                "the contrast normalisation's row means and scales (2 × n × positions)":
                    2 * size * n_images * positions,
                "the projection's copy and the pooled cells' products ((p²C + 1) × K, n × (p²C + 1) and 3 × n × K)":
                    size * (D1 * K + n_images * D1 + 3 * n_images * K)}

    def fit(self, X, y=None) -> "RandomPatchFeatures":
        """Draw the whitening and the filters from the training images X (N, H·W·C); y is ignored."""
        self._check_params()
        images = self._images(X, reset=True)
        _refuse_unrepresentable_pixels(images, int(self.patch_size) ** 2 * images.shape[3], self.dtype)
        require_memory(self._fit_memory(images.shape[3]),
                       f"RandomPatchFeatures(n_patches={self.n_patches}, n_whitening={self.n_whitening}"
                       + (f", kmeans_sample={self.kmeans_sample}" if self.dictionary == "kmeans" else "")
                       + ").fit", hint="lower n_patches, n_whitening or kmeans_sample")
        p = int(self.patch_size)
        self.__dict__.pop("mirror_permutation_", None)
        self.seed_ = seed_from_random_state(self.random_state)
        rng = np.random.default_rng(self.seed_)
        n_rows, n_cols = images.shape[1] - p + 1, images.shape[2] - p + 1

        windows = np.lib.stride_tricks.sliding_window_view(images, (p, p), axis=(1, 2))  # (N, r, c, C, p, p)

        def draw(count: int) -> np.ndarray:
            which = rng.integers(0, len(images), count)
            rows, cols = rng.integers(0, n_rows, count), rng.integers(0, n_cols, count)
            out = windows[which, rows, cols].reshape(count, -1).astype(np.float64)  # (C, p, p) order
            return self._normalise(out)

        mirror = bool(self.mirror_symmetric)
        # a patch's values in (C, p, p) order, flipped left-right
        flip = np.arange(images.shape[3] * p * p).reshape(-1, p, p)[:, :, ::-1].ravel()
        sample = draw(int(self.n_whitening))
        if mirror:
            sample = np.vstack([sample, sample[:, flip]])
        self.mean_ = sample.mean(axis=0)
        covariance = np.cov(sample, rowvar=False).reshape(sample.shape[1], sample.shape[1])
        if mirror:      # exactly symmetric under the flip (a + b == b + a), not only to rounding
            self.mean_ = (self.mean_ + self.mean_[flip]) / 2
            covariance = (covariance + covariance[np.ix_(flip, flip)]) / 2
        s, V = np.linalg.eigh(covariance)
        self.whitening_ = (V / np.sqrt(np.clip(s, 0, None) + float(self.whiten_eps))) @ V.T   # (p²C, p²C)
        if mirror:
            self.whitening_ = (self.whitening_ + self.whitening_[np.ix_(flip, flip)]) / 2
        n_drawn = int(self.n_patches) // 2 if mirror else int(self.n_patches)
        if self.dictionary == "kmeans":
            filters = self._kmeans_centroids(_unit_rows((draw(int(self.kmeans_sample)) - self.mean_)
                                                        @ self.whitening_), n_drawn)
        else:
            filters = (draw(n_drawn) - self.mean_) @ self.whitening_
        self.filters_ = _unit_rows(filters)                                                   # (K, p²C)
        if mirror:      # atom k + K/2 is atom k's mirror image
            self.filters_ = np.vstack([self.filters_, self.filters_[:, flip]])
        check_finite_fit("RandomPatchFeatures.fit", {"mean_": self.mean_, "whitening_": self.whitening_,
                                                     "filters_": self.filters_},
                         "the images' values overflow float64 once squared (or hold NaN)",
                         "scale the pixels to [0, 1] (or to uint8's [0, 255])")
        self._n_features_out = 2 * int(self.n_patches) * int(self.pool) ** 2
        if mirror:      # the mirror swaps atom k with atom k + K/2 and pooling column j with pool - 1 - j
            pool, K = int(self.pool), int(self.n_patches)
            index = np.arange(self._n_features_out, dtype=np.int64).reshape(2, pool, pool, K)
            self.mirror_permutation_ = index[:, :, ::-1][..., np.r_[K // 2:K, 0:K // 2]].ravel()
        self._prepare()
        return self

    def _kmeans_centroids(self, whitened: np.ndarray, n_clusters: int) -> np.ndarray:
        """Spherical k-means of unit-norm whitened patches (m, p²C): ``n_clusters`` centroids
        (n_clusters, p²C), seeded."""
        from sklearn.cluster import MiniBatchKMeans

        kmeans = MiniBatchKMeans(n_clusters=n_clusters, random_state=self.seed_, n_init=1,
                                 batch_size=max(4096, 3 * int(self.n_patches)), max_iter=20)
        return kmeans.fit(whitened).cluster_centers_

    def _prepare(self) -> None:
        """Fold whitening and filters into one (p²C, K) matrix and a (K,) offset, on ``device``."""
        projection = self.whitening_ @ self.filters_.T
        offset = -(self.mean_ @ projection)
        if self.device is None:
            self._projection, self._offset = projection.astype(self.dtype), offset.astype(self.dtype)
            # the NumPy path's GEMM: rows in (p, p, C) order, each patch's run of p·C values is
            # contiguous in an (H, W, C) image, and a last row, the offset (its patches end in a 1)
            p = int(self.patch_size)
            hwc = projection.reshape(-1, p, p, projection.shape[1]).transpose(1, 2, 0, 3).reshape(projection.shape)
            self._folded = np.vstack([hwc, offset[None, :]]).astype(self.dtype)
        else:
            import torch

            torch_dtype = getattr(torch, self.dtype)
            self._projection = torch.as_tensor(projection, dtype=torch_dtype, device=self.device)
            self._offset = torch.as_tensor(offset, dtype=torch_dtype, device=self.device)

    def __getstate__(self):
        state = dict(self.__dict__)
        state.pop("_projection", None)
        state.pop("_offset", None)
        state.pop("_folded", None)
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        if hasattr(self, "filters_"):
            self._prepare()

    # -- features --------------------------------------------------------------------------
    def transform(self, X):
        """Features of X (n, H·W·C) → (n, 2·K·pool²) in ``dtype`` (a torch tensor on ``device``)."""
        check_is_fitted(self, "filters_")
        self._check_fitted_pool()
        images = self._images(X)
        self._check_transform_memory(images)
        if self.device is None:
            return self._transform_numpy(images)
        return self._transform_torch(images)

    def _check_transform_memory(self, images) -> None:
        plan = self._transform_memory(len(images), images.shape[1:])
        if sum(plan.values()) >= GUARD_FLOOR_BYTES:
            require_memory(plan, f"RandomPatchFeatures(n_patches={self.n_patches}).transform of "
                                 f"{len(images)} images", self.device,
                           hint="transform fewer images at a time (chunks()), or lower n_patches")

    def chunks(self, X, chunk_rows: int = DEFAULT_CHUNK_IMAGES) -> Iterator[tuple[slice, object]]:
        """Yield ``(rows, features[rows])`` for consecutive blocks of at most ``chunk_rows`` images."""
        chunk_rows = check_positive_int("chunk_rows", chunk_rows)
        check_is_fitted(self, "filters_")
        self._check_fitted_pool()
        images = self._images(X)
        for rows in row_chunks(len(images), chunk_rows):
            block = images[rows]
            self._check_transform_memory(block)
            yield rows, (self._transform_numpy(block) if self.device is None else self._transform_torch(block))

    def _transform_numpy(self, images: np.ndarray, gemm_only: bool = False) -> np.ndarray:
        """Features (n, 2·K·pool²) of images (n, H, W, C): the images split between as many threads
        as BLAS has (each thread's GEMMs on one BLAS thread, as scikit-learn's KMeans does), each
        running :meth:`_numpy_block`. ``gemm_only`` runs its GEMMs alone (for ``benchmarks/patches``;
        the output is then meaningless)."""
        n, K, pool = len(images), self._projection.shape[1], int(self.pool)
        out = np.empty((n, 2, pool, pool, K), dtype=self._projection.dtype)
        projection = self._folded.copy()                                     # (p²C + 1, K)
        projection[-1] -= float(self.threshold)                 # its GEMM gives z − t directly
        workers = min(blas_threads(), n)
        if workers <= 1:
            self._numpy_block(images, projection, out, gemm_only)
        else:
            parts = pool_bounds(n, workers)
            with blas_controller().limit(limits=1, user_api="blas"):
                done = [shared_executor(workers).submit(self._numpy_block, images[a:b], projection, out[a:b],
                                                   gemm_only)
                        for a, b in parts]
                for future in done:
                    future.result()
        return out.reshape(n, -1)

    def _numpy_block(self, images: np.ndarray, projection: np.ndarray, out: np.ndarray,
                     gemm_only: bool = False) -> None:
        """Features of images (n, H, W, C) into ``out`` (n, 2, pool, pool, K), with ``projection``
        (p²C + 1, K): rows in (p, p, C) order and a last row, the offset minus t.

        The patches are laid out (rows, images, columns, p²C + 1), each ending in a 1 that carries
        the offset, so a strip of position rows of several images is one contiguous GEMM giving
        y = z − t for about :data:`STRIP_BYTES` of responses, reduced while they are in cache.
        Over a pooling cell of c positions,

            Σ relu(z − t) = (Σ y + Σ |y|) / 2,   Σ relu(−z − t) = (Σ |y + 2t| − Σ y) / 2 − c·t,

        where Σ y is linear (the cell's summed patches times the projection, a small GEMM): the
        split costs two absolute values, one addition and, per column cell, one sum over both
        halves (side by side in one buffer), all of which vectorise (``np.maximum`` against a
        scalar ran ~5× slower than ``np.add`` here). On MNIST's 25-value patches the calls per
        strip weigh: one sum for both halves, rather than one per half, ran the map 6–11 % faster
        there, with the same sums bit for bit.
        """
        p, pool, t = int(self.patch_size), int(self.pool), float(self.threshold)
        n, height, width, channels = images.shape
        n_rows, n_cols = height - p + 1, width - p + 1
        D1, K = projection.shape
        D, dtype = D1 - 1, projection.dtype
        windows = np.lib.stride_tricks.sliding_window_view(images, (p, p), axis=(1, 2))  # (n, r, c, C, p, p)
        buffer = np.zeros((n_rows, n, n_cols, D1), dtype=dtype)
        buffer[..., D] = 1
        if not gemm_only:
            np.copyto(buffer[..., :D].reshape(n_rows, n, n_cols, p, p, channels),
                      windows.transpose(1, 0, 2, 4, 5, 3), casting="same_kind")      # (p, p, C) order
            self._normalise_rows(buffer.reshape(-1, D1)[:, :D])

        rows = buffer.reshape(n_rows, n * n_cols, D1)              # a position row of every image
        row_bounds, col_bounds = pool_bounds(n_rows, pool), self._column_bounds(n_cols)
        row_bytes = n_cols * K * dtype.itemsize                      # one position row of one image
        group = max(1, min(n, STRIP_BYTES // row_bytes))             # images per strip
        strip_rows = max(1, STRIP_BYTES // (group * row_bytes)) if group == n else 1
        # the GEMM writes z − t into work[0]; work[1] takes |z − t| and work[0] becomes |z + t|, so one
        # reduction per column cell sums both halves
        work = np.empty((2, strip_rows * group * n_cols, K), dtype=dtype)
        sums = np.zeros((pool, pool, 2, n, K), dtype=dtype)          # Σ |y + 2t|, Σ |y| per cell
        for i, (r0, r1) in enumerate(row_bounds):
            cell_sums = sums[i]
            for a in range(r0, r1, strip_rows):
                b = min(a + strip_rows, r1)
                for g0 in range(0, n, group):
                    g1 = min(g0 + group, n)
                    m = (b - a) * (g1 - g0) * n_cols
                    zs = np.matmul(rows[a:b, g0 * n_cols:g1 * n_cols].reshape(m, D1), projection, out=work[0, :m])
                    if gemm_only:
                        continue
                    np.abs(zs, out=work[1, :m])                              # |z − t|, zs is z − t
                    np.abs(np.add(zs, 2 * t, out=zs), out=zs)                # |z + t|
                    halves = work[:, :m].reshape(2, b - a, g1 - g0, n_cols, K)
                    for j, (c0, c1) in enumerate(col_bounds):
                        cell_sums[j, :, g0:g1] += halves[:, :, :, c0:c1].sum(axis=(1, 3))
        if gemm_only:
            return
        for i, (r0, r1) in enumerate(row_bounds):
            for j, (c0, c1) in enumerate(col_bounds):
                count = (r1 - r0) * (c1 - c0)
                linear = buffer[r0:r1, :, c0:c1].sum(axis=(0, 2)) @ projection     # Σ y = Σ (z − t), (n, K)
                out[:, 0, i, j] = (sums[i, j, 1] + linear) * (0.5 / count)
                out[:, 1, i, j] = (sums[i, j, 0] - linear) * (0.5 / count) - t
        np.maximum(out, 0, out=out)                 # rounding must not make an empty cell negative

    def _normalise_rows(self, patches: np.ndarray) -> None:
        """Contrast normalisation of patch rows (m, p²C) in their dtype, in place (the means by a
        GEMV: ~2× faster than ``mean(axis=1)`` over rows this short)."""
        patches -= (patches @ np.full(patches.shape[1], 1.0 / patches.shape[1], dtype=patches.dtype))[:, None]
        scale = np.einsum("ij,ij->i", patches, patches)
        scale *= 1.0 / patches.shape[1]
        scale += float(self.contrast_eps)
        np.sqrt(scale, out=scale)
        patches /= scale[:, None]

    def _transform_torch(self, images: np.ndarray):
        """Features (n, 2·K·pool²) of images (n, H, W, C) on ``device``: a GPU takes the block at
        once; on the CPU, groups of images whose responses z span about :data:`TORCH_CPU_Z_BYTES`
        (fresh allocations of tens of MB, page-faulted on every call, cost more there than the
        arithmetic)."""
        import torch

        p, pool = int(self.patch_size), int(self.pool)
        n, height, width, channels = images.shape
        K = self._projection.shape[1]
        if not (images.flags.writeable and images.flags.c_contiguous):
            images = np.array(images)    # torch wraps neither read-only arrays nor negative strides
        x = torch.as_tensor(images, dtype=self._projection.dtype, device=self._projection.device)
        out = torch.empty((n, 2, pool, pool, K), dtype=x.dtype, device=x.device)
        z_bytes = (height - p + 1) * (width - p + 1) * K * x.element_size()        # one image's responses
        group = n if x.device.type != "cpu" else max(1, TORCH_CPU_Z_BYTES // z_bytes)
        for g0 in range(0, n, group):
            self._torch_block(x[g0:g0 + group], out[g0:g0 + group])
        out.clamp_(min=0)                           # rounding must not make an empty cell negative
        return out.reshape(n, -1)

    def _torch_block(self, x, out) -> None:
        """Features of images x (n, H, W, C), a torch tensor, into ``out`` (n, 2, pool, pool, K)."""
        import torch

        p, pool, t = int(self.patch_size), int(self.pool), float(self.threshold)
        n, height, width, channels = x.shape
        n_rows, n_cols = height - p + 1, width - p + 1
        x = x.permute(0, 3, 1, 2)                                                    # (n, C, H, W)
        patches = torch.nn.functional.unfold(x, p).transpose(1, 2).reshape(-1, channels * p * p)
        patches = patches - patches.mean(dim=1, keepdim=True)
        scale = torch.sqrt((patches * patches).sum(dim=1) / patches.shape[1] + float(self.contrast_eps))
        z = torch.addmm(self._offset, patches / scale[:, None], self._projection)      # (n·positions, K)
        del patches
        # the soft threshold s = relu(z − t) − relu(−z − t), and |s| = relu(z − t) + relu(−z − t) (one
        # of the two is 0): two elementwise passes, then the cells' sums of s and |s| give both halves
        K = z.shape[1]
        soft = torch.nn.functional.softshrink(z, t)
        magnitude = torch.abs(soft, out=z).view(n, n_rows, n_cols, K)           # z is not needed any more
        soft = soft.view(n, n_rows, n_cols, K)
        for i, (r0, r1) in enumerate(pool_bounds(n_rows, pool)):
            soft_band, magnitude_band = soft[:, r0:r1].sum(dim=1), magnitude[:, r0:r1].sum(dim=1)  # (n, n_cols, K)
            for j, (c0, c1) in enumerate(self._column_bounds(n_cols)):
                half_mean = 0.5 / ((r1 - r0) * (c1 - c0))
                soft_sum, magnitude_sum = soft_band[:, c0:c1].sum(dim=1), magnitude_band[:, c0:c1].sum(dim=1)
                torch.add(magnitude_sum, soft_sum, out=out[:, 0, i, j]).mul_(half_mean)   # mean relu(z − t)
                torch.sub(magnitude_sum, soft_sum, out=out[:, 1, i, j]).mul_(half_mean)   # mean relu(−z − t)


def is_torch_tensor(X) -> bool:
    """Whether X is a torch tensor (without importing torch)."""
    return type(X).__module__.startswith("torch")
