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
``load_dataset(...).flat()`` returns) or arrays (N, H, W) / (N, H, W, C). ``device`` ``None`` runs
NumPy; a torch device (``"cpu"``, ``"cuda"``) runs the same arithmetic in torch.
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
from ._validation import (check_choice, check_device, check_positive_int, require_memory,
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
    n_whitening : patches that estimate the covariance
    dictionary : how the K filters are chosen: ``"sampled"`` (default) whitened patches drawn from
        the training images, or ``"kmeans"`` the centroids of spherical k-means (scikit-learn's
        ``MiniBatchKMeans`` on unit-norm whitened patches, Coates & Ng 2012) over ``kmeans_sample``
        drawn patches, each scaled to unit norm
    kmeans_sample : patches the k-means sees (``dictionary="kmeans"`` only; at least ``n_patches``)
    dtype : "float32" (default) or "float64", the features' precision
    device : None (NumPy) or a torch device
    random_state : int seed (or a Generator / RandomState, from which one seed is drawn)

    Notes
    -----
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
    """

    def __init__(self, image_shape, n_patches: int = 1024, patch_size: int = 6, pool: int = 2,
                 threshold: float = 0.25, whiten_eps: float = 0.1, contrast_eps: float = 0.01,
                 n_whitening: int = 100_000, dictionary: str = "sampled", kmeans_sample: int = 100_000,
                 dtype: str = "float32", device=None, random_state=0):
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
        check_positive_int("n_whitening", self.n_whitening)
        check_choice("dictionary", self.dictionary, DICTIONARIES)
        if self.dictionary == "kmeans" and check_positive_int("kmeans_sample", self.kmeans_sample) < self.n_patches:
            raise ValueError(f"kmeans_sample ({self.kmeans_sample}) must be at least n_patches "
                             f"({self.n_patches}): k-means needs a patch per centroid")
        check_choice("dtype", self.dtype, DTYPES)
        check_device(self.device)

    @property
    def n_features_out(self) -> int:
        """2 · n_patches · pool² (the ReLU split's two halves, per pooling cell)."""
        return 2 * int(self.n_patches) * int(self.pool) ** 2

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
        whitening = int(self.n_whitening)
        drawn = int(self.kmeans_sample) if self.dictionary == "kmeans" else K
        return {f"n_whitening = {whitening} patches of p²C = {P} values (indices, two copies)":
                    whitening * (3 * 8 + 2 * 8 * P),
                "the covariance and whitening (p²C × p²C, four copies)": 4 * 8 * P * P,
                f"the dictionary's {drawn} drawn patches (indices, four copies of {drawn} × {P})":
                    drawn * (3 * 8 + 4 * 8 * P),
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
        require_memory(self._fit_memory(images.shape[3]),
                       f"RandomPatchFeatures(n_patches={self.n_patches}, n_whitening={self.n_whitening}"
                       + (f", kmeans_sample={self.kmeans_sample}" if self.dictionary == "kmeans" else "")
                       + ").fit", hint="lower n_patches, n_whitening or kmeans_sample")
        p = int(self.patch_size)
        self.seed_ = seed_from_random_state(self.random_state)
        rng = np.random.default_rng(self.seed_)
        n_rows, n_cols = images.shape[1] - p + 1, images.shape[2] - p + 1

        windows = np.lib.stride_tricks.sliding_window_view(images, (p, p), axis=(1, 2))  # (N, r, c, C, p, p)

        def draw(count: int) -> np.ndarray:
            which = rng.integers(0, len(images), count)
            rows, cols = rng.integers(0, n_rows, count), rng.integers(0, n_cols, count)
            out = windows[which, rows, cols].reshape(count, -1).astype(np.float64)  # (C, p, p) order
            return self._normalise(out)

        sample = draw(int(self.n_whitening))
        self.mean_ = sample.mean(axis=0)
        covariance = np.cov(sample, rowvar=False).reshape(sample.shape[1], sample.shape[1])
        s, V = np.linalg.eigh(covariance)
        self.whitening_ = (V / np.sqrt(np.clip(s, 0, None) + float(self.whiten_eps))) @ V.T   # (p²C, p²C)
        if self.dictionary == "kmeans":
            filters = self._kmeans_centroids(_unit_rows((draw(int(self.kmeans_sample)) - self.mean_)
                                                        @ self.whitening_))
        else:
            filters = (draw(int(self.n_patches)) - self.mean_) @ self.whitening_
        self.filters_ = _unit_rows(filters)                                                   # (K, p²C)
        self._n_features_out = self.n_features_out
        self._prepare()
        return self

    def _kmeans_centroids(self, whitened: np.ndarray) -> np.ndarray:
        """Spherical k-means of unit-norm whitened patches (m, p²C): K centroids (K, p²C), seeded."""
        from sklearn.cluster import MiniBatchKMeans

        kmeans = MiniBatchKMeans(n_clusters=int(self.n_patches), random_state=self.seed_, n_init=1,
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
        row_bounds, col_bounds = pool_bounds(n_rows, pool), pool_bounds(n_cols, pool)
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
            for j, (c0, c1) in enumerate(pool_bounds(n_cols, pool)):
                half_mean = 0.5 / ((r1 - r0) * (c1 - c0))
                soft_sum, magnitude_sum = soft_band[:, c0:c1].sum(dim=1), magnitude_band[:, c0:c1].sum(dim=1)
                torch.add(magnitude_sum, soft_sum, out=out[:, 0, i, j]).mul_(half_mean)   # mean relu(z − t)
                torch.sub(magnitude_sum, soft_sum, out=out[:, 1, i, j]).mul_(half_mean)   # mean relu(−z − t)


def is_torch_tensor(X) -> bool:
    """Whether X is a torch tensor (without importing torch)."""
    return type(X).__module__.startswith("torch")
