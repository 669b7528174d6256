"""The whitened-patch image feature map: against a per-patch reference, seeding, chunking, torch, bad input."""

from __future__ import annotations

import importlib.util
import pickle

import numpy as np
import pytest

import scipy.sparse
from sklearn.utils.estimator_checks import parametrize_with_checks

from greenelm import NormalEquations, RandomPatchFeatures, RidgePath
from greenelm.patches import expected_failed_checks, pool_bounds, symmetric_pool_bounds

SHAPE = (9, 8, 3)


@pytest.fixture(scope="module")
def images():
    return np.random.default_rng(1).random((12,) + SHAPE)


def fitted(images, **kw):
    params = dict(n_patches=5, patch_size=3, pool=2, n_whitening=300, random_state=7) | kw
    return RandomPatchFeatures(SHAPE, **params).fit(images)


def reference(features: RandomPatchFeatures, image: np.ndarray) -> np.ndarray:
    """One image's features, patch by patch, from the fitted whitening and filters (float64)."""
    p, pool, t = features.patch_size, features.pool, features.threshold
    n_rows, n_cols = image.shape[0] - p + 1, image.shape[1] - p + 1
    z = np.empty((n_rows, n_cols, features.n_patches))
    for r in range(n_rows):
        for c in range(n_cols):
            patch = image[r:r + p, c:c + p].transpose(2, 0, 1).ravel().astype(np.float64)
            patch = (patch - patch.mean()) / np.sqrt(patch.var() + features.contrast_eps)
            z[r, c] = ((patch - features.mean_) @ features.whitening_) @ features.filters_.T
    out = np.empty((2, pool, pool, features.n_patches))
    for i, (r0, r1) in enumerate(pool_bounds(n_rows, pool)):
        for j, (c0, c1) in enumerate(features._column_bounds(n_cols)):
            cell = z[r0:r1, c0:c1]
            out[0, i, j] = np.maximum(cell - t, 0).mean(axis=(0, 1))
            out[1, i, j] = np.maximum(-cell - t, 0).mean(axis=(0, 1))
    return out.ravel()


def test_features_equal_the_patch_by_patch_reference(images):
    features = fitted(images, dtype="float64")
    H = features.transform(images.reshape(len(images), -1))
    assert H.shape == (12, features.n_features_out) == (12, 2 * 5 * 4)
    for k in (0, 5, 11):
        np.testing.assert_allclose(H[k], reference(features, images[k]), rtol=1e-10, atol=1e-12)
    assert (H >= 0).all() and H.dtype == np.float64


def test_whitening_whitens_and_filters_have_unit_norm(images):
    features = fitted(images, n_whitening=5000, whiten_eps=1e-9)
    np.testing.assert_allclose(np.linalg.norm(features.filters_, axis=1), 1.0, rtol=1e-12)
    W = features.whitening_
    np.testing.assert_allclose(W, W.T, atol=1e-12)          # ZCA: symmetric


def test_same_seed_same_features_other_seed_other_features(images):
    a, b = fitted(images), fitted(images)
    np.testing.assert_array_equal(a.transform(images), b.transform(images))
    c = fitted(images, random_state=8)
    assert not np.allclose(a.filters_, c.filters_)


def test_chunked_equals_unchunked_and_input_layouts_agree(images):
    features = fitted(images)
    whole = features.transform(images)
    blocks = list(features.chunks(images.reshape(len(images), -1), chunk_rows=5))
    assert [rows for rows, _ in blocks] == [slice(0, 5), slice(5, 10), slice(10, 12)]
    np.testing.assert_allclose(np.vstack([H for _, H in blocks]), whole, rtol=1e-6, atol=1e-7)
    assert whole.dtype == np.float32


def test_grey_images_take_rows_or_images():
    grey = np.random.default_rng(2).random((6, 10, 10))
    features = RandomPatchFeatures((10, 10), n_patches=3, patch_size=4, pool=3, n_whitening=200).fit(grey)
    np.testing.assert_allclose(features.transform(grey), features.transform(grey.reshape(6, 100)), rtol=1e-6)
    assert features.transform(grey).shape == (6, 2 * 3 * 9)


def test_the_features_feed_the_normal_equations_like_any_block(images):
    features = fitted(images, dtype="float64")
    H, Y = features.transform(images), np.eye(3)[np.arange(12) % 3]
    equations = NormalEquations(features.n_features_out, 3)
    for rows, block in features.chunks(images, chunk_rows=4):
        equations.update(block, Y[rows])
    np.testing.assert_allclose(np.triu(equations.gram), np.triu(H.T @ H), rtol=1e-10, atol=1e-12)
    path = RidgePath(equations.gram, equations.hty, float((Y**2).sum()), 12)
    np.testing.assert_allclose(path.weights(0.1), np.linalg.solve(H.T @ H + 0.1 * np.eye(len(H.T)), H.T @ Y),
                               rtol=1e-8, atol=1e-10)


def test_pickle_round_trip_gives_the_same_features(images):
    features = fitted(images)
    again = pickle.loads(pickle.dumps(features))
    np.testing.assert_array_equal(again.transform(images), features.transform(images))


@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="torch not installed")
@pytest.mark.parametrize("z_bytes", [1, 1 << 30], ids=["an-image-a-group", "the-block-at-once"])
def test_torch_equals_numpy(images, torch_device, monkeypatch, z_bytes):
    """On the CPU the torch path maps groups of images (one each at 1 byte of z), on a GPU the block."""
    import greenelm.patches as patches

    monkeypatch.setattr(patches, "TORCH_CPU_Z_BYTES", z_bytes)
    numpy_features = fitted(images, dtype="float64")
    torch_features = fitted(images, dtype="float64", device=torch_device)
    blocks = [H.cpu().numpy() for _, H in torch_features.chunks(images, chunk_rows=5)]
    np.testing.assert_allclose(np.vstack(blocks), numpy_features.transform(images), rtol=1e-10, atol=1e-12)
    mirrored = images[:, :, ::-1]                      # a view with a negative stride
    np.testing.assert_allclose(torch_features.transform(mirrored).cpu().numpy(), numpy_features.transform(mirrored),
                               rtol=1e-10, atol=1e-12)


@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="torch not installed")
def test_torch_float32_is_within_its_tolerance_and_never_negative(images, torch_device):
    """The torch path sums the soft threshold s and |s| per cell (their half-sum and half-difference
    are the two halves): in float32 within its tolerance of the float64 reference, and a threshold
    no response reaches gives zeros, not rounding below them."""
    features = fitted(images, pool=3, device=torch_device)
    H = features.transform(images).cpu().numpy()
    assert H.dtype == np.float32
    for k in (0, 7):
        np.testing.assert_allclose(H[k], reference(features, images[k]), rtol=1e-5, atol=1e-6)
    H = fitted(images, threshold=40.0, device=torch_device).transform(images).cpu().numpy()
    assert (H >= 0).all() and np.abs(H).max() <= 1e-5 * 40


@pytest.mark.parametrize("kw, X_shape, message", [
    ({"image_shape": (9, 8, 3, 1)}, None, "image_shape must be"),
    ({"image_shape": (9, 0)}, None, "image_shape must be"),
    ({"patch_size": 10}, None, "patch_size 10 exceeds"),
    ({"pool": 8}, None, "pool 8 exceeds"),
    ({"n_patches": 0}, None, "n_patches"),
    ({"whiten_eps": 0}, None, "whiten_eps must be a finite number > 0"),
    ({"threshold": -1}, None, "threshold must be a finite number >= 0"),
    ({"dtype": "float16"}, None, "dtype"),
    ({"dictionary": "pca"}, None, "dictionary"),
    ({"dictionary": "kmeans", "kmeans_sample": 4}, None, r"kmeans_sample \(4\) must be at least n_patches \(5\)"),
    ({}, (12, 9 * 8 * 3 + 1), "has shape"),
    ({}, (12, 8, 9, 3), "has shape"),
])
def test_bad_parameters_and_shapes_are_named(images, kw, X_shape, message):
    X = images if X_shape is None else np.zeros(X_shape)
    params = dict(image_shape=SHAPE, n_patches=5, patch_size=3, pool=2, n_whitening=300) | kw
    with pytest.raises(ValueError, match=message):
        RandomPatchFeatures(**params).fit(X)


def test_non_finite_input_and_unfitted_use_fail_loudly(images):
    bad = images.copy()
    bad[3, 2, 2, 1] = np.nan
    with pytest.raises(ValueError, match="Input X contains NaN"):
        fitted(bad)
    features = fitted(images)
    with pytest.raises(ValueError, match="Input X contains NaN"):
        features.transform(bad)
    bad[3, 2, 2, 1] = np.inf
    with pytest.raises(ValueError, match="Input X contains infinity"):
        features.transform(bad)
    with pytest.raises(Exception, match="not fitted"):
        RandomPatchFeatures(SHAPE).transform(images)


def test_pool_bounds_split_like_array_split():
    assert pool_bounds(27, 2) == [(0, 14), (14, 27)]
    assert pool_bounds(24, 3) == [(0, 8), (8, 16), (16, 24)]
    for n_positions in range(1, 40):
        for pool in range(1, n_positions + 1):
            parts = np.array_split(np.arange(n_positions), pool)
            assert pool_bounds(n_positions, pool) == [(int(part[0]), int(part[-1]) + 1) for part in parts]


# -- scikit-learn conventions ---------------------------------------------------------------------
# A table (N, D) is N images of 1 × 1 pixels with D channels under image_shape=(1, 1): the only
# image shape every table of the checks fits, so patch_size and pool are 1 (the defaults, 6 and 2,
# need images of at least 7 × 7); n_patches and n_whitening are small to keep the checks fast.
@parametrize_with_checks([RandomPatchFeatures((1, 1), n_patches=3, patch_size=1, pool=1, n_whitening=50),
                          RandomPatchFeatures((1, 1), n_patches=3, patch_size=1, pool=1, n_whitening=50,
                                              dtype="float64", threshold=0.0)])
def test_scikit_learn_checks(estimator, check):
    check(estimator)


def test_defaults_feature_names_and_channels_from_the_rows(images):
    default = RandomPatchFeatures((9, 8))
    assert default.get_params()["n_patches"] == 1024 and default.patch_size == 6 and default.pool == 2
    rows = images.reshape(len(images), -1)
    inferred = RandomPatchFeatures((9, 8), n_patches=5, patch_size=3, pool=2, n_whitening=300,
                                   random_state=7).fit(rows)
    np.testing.assert_array_equal(inferred.transform(rows), fitted(images).transform(images))
    assert inferred.n_features_in_ == 9 * 8 * 3
    names = inferred.get_feature_names_out()
    assert names.tolist() == [f"randompatchfeatures{i}" for i in range(2 * 5 * 2 * 2)]
    with pytest.raises(ValueError, match=r"rows of 100 values, which is not a whole number of 9 × 8 images"):
        RandomPatchFeatures((9, 8)).fit(np.zeros((3, 100)))


@pytest.mark.parametrize("container", [scipy.sparse.csr_matrix, scipy.sparse.csc_array])
def test_sparse_input_is_refused_by_name(images, container):
    rows = container(images.reshape(len(images), -1))
    with pytest.raises(TypeError, match=f"X is a sparse {container.__name__}; RandomPatchFeatures takes "
                                        r"dense images .sparse input is not supported.: pass X.toarray\(\)"):
        RandomPatchFeatures(SHAPE, n_patches=5, patch_size=3, n_whitening=300).fit(rows)
    with pytest.raises(TypeError, match="sparse"):
        fitted(images).transform(rows)


# -- the NumPy path's strips and threads ------------------------------------------------------------
@pytest.mark.parametrize("strip_bytes", [1, 700, 3000, 1 << 20])
@pytest.mark.parametrize("threads", [1, 2, 5])
def test_strips_and_threads_equal_the_reference(images, monkeypatch, strip_bytes, threads):
    """Every strip shape (one image and one position row per GEMM, several images of one row,
    several rows of every image, the whole block) and every split between threads gives the
    patch-by-patch reference; BLAS's thread count is restored afterwards."""
    import greenelm.patches as patches
    from threadpoolctl import threadpool_info

    features = fitted(images, dtype="float64", pool=3)
    # a position row of one image is 6 positions × 5 filters × 8 bytes = 240 bytes: 1 → one image
    # and one row per GEMM, 700 → two images, 3000 → every image of the worker, 1 MiB → whole bands
    monkeypatch.setattr(patches, "STRIP_BYTES", strip_bytes)
    monkeypatch.setattr(patches, "blas_threads", lambda: threads)
    before = [lib["num_threads"] for lib in threadpool_info()]
    H = features.transform(images)
    assert [lib["num_threads"] for lib in threadpool_info()] == before
    for k in (0, 4, 11):
        np.testing.assert_allclose(H[k], reference(features, images[k]), rtol=1e-10, atol=1e-12)


def test_float32_is_within_its_tolerance_of_the_float64_reference(images):
    features = fitted(images, pool=3)
    H = features.transform(images)
    assert H.dtype == np.float32
    for k in (0, 7):
        np.testing.assert_allclose(H[k], reference(features, images[k]), rtol=1e-5, atol=1e-6)


def test_a_threshold_above_every_response_gives_zeros_not_rounding_below_them(images):
    """Σ relu(z − t) is computed as (Σ z − c·t + Σ |z − t|) / 2: it cancels to 0 when no response
    passes t, and must not come out negative."""
    for dtype, tol in (("float64", 1e-12), ("float32", 1e-5)):
        H = fitted(images, dtype=dtype, threshold=40.0).transform(images)
        assert (H >= 0).all() and np.abs(H).max() <= tol * 40


def test_integer_images_equal_their_float_copies(images):
    pixels = (images * 255).astype(np.uint8)
    features = fitted(pixels.astype(np.float64), dtype="float64")
    np.testing.assert_allclose(features.transform(pixels), features.transform(pixels.astype(np.float64)),
                               rtol=1e-12, atol=1e-14)


def test_the_benchmark_reports_ratios_and_the_memory_floor(images):
    from benchmarks.patches import markdown_rows, measure_case

    rows = measure_case(images.astype(np.float32), SHAPE, 3, 6, chunk=5, repeats=1, bandwidth=10.0, name="toy",
                        peak_gflops=50.0)
    (row,) = rows
    assert row["K"] == 6 and row["features"] == 2 * 6 * 4 and row["images"] == 12 and row["path"] == "numpy"
    assert row["ratio"] == pytest.approx(row["map_seconds"] / row["gemm_seconds"])
    assert row["elementwise_ratio"] == pytest.approx(row["ratio"] - 1)
    assert row["z_gb"] == pytest.approx(12 * 7 * 6 * 6 * 4 / 1e9)
    assert row["memory_floor_seconds"] == pytest.approx(2 * row["z_gb"] / 10.0)
    assert row["gemm_seconds"] == min(row["gemm_block_seconds"], row["gemm_strip_seconds"]) > 0
    assert row["gemm_over_floor"] == pytest.approx(row["gemm_seconds"] / row["memory_floor_seconds"])
    assert row["compute_floor_seconds"] == pytest.approx(2 * 12 * 7 * 6 * (3 * 3 * 3) * 6 / 50e9)
    assert row["map_over_compute_floor"] == pytest.approx(row["map_seconds"] / row["compute_floor_seconds"])
    assert markdown_rows(rows).endswith(f"| {row['compute_floor_seconds']:.2f} | {row['map_over_compute_floor']:.2f} |")
    (measured,) = measure_case(images.astype(np.float32), SHAPE, 3, 6, chunk=5, repeats=1, name="toy")
    assert measured["bandwidth_gbs"] > 0 and measured["blas_gflops"] > 0     # measured after the repeat
    assert measured["compute_floor_seconds"] == pytest.approx(2 * 12 * 7 * 6 * 27 * 6 / (measured["blas_gflops"] * 1e9))
    older = {k: v for k, v in row.items() if k not in ("compute_floor_seconds", "map_over_compute_floor")}
    assert markdown_rows([older]).endswith("| – | – |")
    each = row["seconds_each"]          # one repeat: its range is the median's ratio
    assert row["elementwise_range"][0] == row["elementwise_range"][1] == pytest.approx(
        each["map"][0] / min(each["gemm_block"][0], each["gemm_strips"][0]) - 1)
    assert markdown_rows(rows).startswith("| toy | 6 | 48 | numpy |")


def test_the_benchmark_summary_follows_its_rows():
    from benchmarks.patches import summary

    def row(dataset, K, path="numpy", **values):
        return {"dataset": dataset, "K": K, "path": path, "elementwise_ratio": 0.0, "map_over_floor": 0.0,
                "gemm_over_floor": 1.0} | values

    rows = [row("cifar10", 1024, elementwise_ratio=0.56), row("cifar10", 2048, elementwise_ratio=0.27),
            row("cifar10", 1024, "torch cpu", elementwise_ratio=2.0),
            row("mnist", 4096, map_over_floor=2.72, gemm_over_floor=1.6, elementwise_ratio=0.7)]
    cifar, mnist = summary(rows)
    assert cifar == ("- cifar10, NumPy path, elementwise / GEMM: 0.56 at K = 1,024, 0.27 at K = 2,048; "
                     "above 0.5 at K = 1,024.")
    assert mnist == ("- mnist, NumPy path, map / memory floor: 2.72 at K = 4,096; above 2 at K = 4,096. At K = 4,096 "
                     "its GEMM alone is 1.60× that floor, leaving the elementwise work at most 0.25× the GEMM "
                     "(measured: 0.70×).")
    (crowded,) = summary([row("mnist", 1024, map_over_floor=5.0, gemm_over_floor=2.5, elementwise_ratio=1.0)])
    assert crowded.endswith("At K = 1,024 its GEMM alone is 2.50× that floor, past the bound before any "
                            "elementwise work (measured: 1.00×).")
    (within,) = summary([row("cifar10", 4096, elementwise_ratio=0.3)])
    assert within.endswith("0.30 at K = 4,096; at most 0.5 at every K.")
    assert summary([row("cifar10", 4096, "torch cpu")]) == []


def test_the_benchmark_names_the_rates_its_floors_use():
    from benchmarks.patches import floor_words

    assert floor_words({"bandwidth_gbs": 21.46, "rows": []}) == "memory bandwidth 21.5 GB/s (a = b + c, 256 MiB arrays)"
    rows = [{"bandwidth_gbs": 24.04, "blas_gflops": 150.2}, {"bandwidth_gbs": 33.96, "blas_gflops": 188.7}]
    assert floor_words({"rows": rows}) == (
        "memory bandwidth 24.0–34.0 GB/s (a = b + c, 256 MiB arrays); BLAS's float32 rate 150–189 GFLOP/s "
        "(a 2,048 × 2,048 × 2,048 product), each measured after every repeat of a width")


@pytest.mark.skipif(not hasattr(__import__("os"), "fork"), reason="needs os.fork")
def test_a_forked_child_maps_with_threads_of_its_own(images, monkeypatch):
    """The thread pool is per process: a child forked after the parent used it does not wait on
    the parent's threads (it would hang; the alarm turns a hang into a failure)."""
    import os
    import signal

    import greenelm.patches as patches

    monkeypatch.setattr(patches, "blas_threads", lambda: 2)
    features = fitted(images, dtype="float64")
    expected = features.transform(images)                          # the parent's pool now exists
    pid = os.fork()
    if pid == 0:                                                     # the child
        signal.alarm(30)
        try:
            ok = np.allclose(features.transform(images), expected, rtol=1e-12, atol=1e-14)
        finally:
            os._exit(0 if ok else 3)
    _, status = os.waitpid(pid, 0)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0, status


def _motif_images(seed: int, n: int = 40) -> np.ndarray:
    """Grey 12 × 12 images made of three 3 × 3 motifs at random places on faint noise: patches
    from a few directions, which centroids cover and a few sampled patches may miss."""
    rng = np.random.default_rng(seed)
    motifs = rng.standard_normal((3, 3, 3))
    out = 0.05 * rng.standard_normal((n, 12, 12))
    for image in out:
        for _ in range(6):
            r, c = rng.integers(0, 10, 2)
            image[r:r + 3, c:c + 3] += motifs[rng.integers(3)]
    return out


def test_kmeans_dictionary_gives_seeded_unit_centroids_that_cover_the_patches_better():
    X = _motif_images(0)
    common = dict(n_patches=4, patch_size=3, pool=1, n_whitening=2000, random_state=3)
    kmeans = RandomPatchFeatures((12, 12), dictionary="kmeans", kmeans_sample=3000, **common).fit(X)
    again = RandomPatchFeatures((12, 12), dictionary="kmeans", kmeans_sample=3000, **common).fit(X)
    sampled = RandomPatchFeatures((12, 12), **common).fit(X)
    assert kmeans.filters_.shape == sampled.filters_.shape == (4, 9)
    np.testing.assert_allclose(np.linalg.norm(kmeans.filters_, axis=1), 1.0, rtol=1e-12)
    np.testing.assert_array_equal(kmeans.filters_, again.filters_)        # same seed, same centroids
    np.testing.assert_array_equal(kmeans.transform(X), again.transform(X))
    # every patch of fresh images, whitened as both models whiten (same seed, same draw): its best
    # cosine to a filter is higher, on average, for the centroids than for sampled patches
    np.testing.assert_array_equal(kmeans.whitening_, sampled.whitening_)
    fresh = np.lib.stride_tricks.sliding_window_view(_motif_images(1), (3, 3), axis=(1, 2)).reshape(-1, 9)
    probe = (kmeans._normalise(fresh.astype(np.float64)) - kmeans.mean_) @ kmeans.whitening_
    probe /= np.linalg.norm(probe, axis=1, keepdims=True)
    coverage = {name: (probe @ model.filters_.T).max(axis=1).mean()
                for name, model in (("kmeans", kmeans), ("sampled", sampled))}
    assert coverage["kmeans"] > coverage["sampled"] + 0.02, coverage


# Real image shapes: scikit-learn's generic tables are not rows of such images, so the checks that
# fit them are expected to fail, each with its reason (patches.expected_failed_checks); the rest pass.
IMAGE_SHAPED = [RandomPatchFeatures((8, 8, 3), n_patches=4, patch_size=3, pool=2, n_whitening=200),
                RandomPatchFeatures((6, 5), n_patches=3, patch_size=2, pool=1, n_whitening=100, dtype="float64")]


@parametrize_with_checks(IMAGE_SHAPED, expected_failed_checks=expected_failed_checks)
def test_scikit_learn_checks_on_image_shapes(estimator, check):
    check(estimator)


@pytest.mark.parametrize("estimator", IMAGE_SHAPED, ids=["8x8x3", "6x5"])
def test_the_expected_failures_are_exactly_the_checks_that_fail_and_say_why(estimator):
    import warnings

    from sklearn.utils.estimator_checks import check_estimator

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        results = check_estimator(estimator, on_fail=None)
    failed = {result["check_name"] for result in results if result["status"] == "failed"}
    passed = {result["check_name"] for result in results if result["status"] == "passed"}
    run = {result["check_name"] for result in results}
    expected = expected_failed_checks(estimator)
    assert failed and failed == set(expected) & run       # exactly the declared ones fail
    assert all("not on rows of whole images of image_shape" in reason for reason in expected.values())
    assert len(passed) >= 15                                         # the others do run, and pass
    for result in results:                       # each fails on the shape error (or wraps it)
        if result["status"] == "failed":
            error, words = result["exception"], []
            while error is not None:
                words.append(str(error))
                error = error.__cause__ or error.__context__
            assert any("image_shape" in text for text in words), (result["check_name"], words[0][:200])
    square = RandomPatchFeatures((1, 1), n_patches=3, patch_size=1, pool=1, n_whitening=50)
    assert expected_failed_checks(square) == {}                       # 1 × 1 images pass them all


# -- the mirror-symmetric map --------------------------------------------------------------------
def mirrored(X: np.ndarray) -> np.ndarray:
    """Images (N, H, W, C) flipped along their width axis."""
    return X[:, :, ::-1]


@pytest.mark.parametrize("shape, p, pool, dictionary", [
    ((12, 12, 3), 3, 2, "sampled"), ((12, 12, 3), 5, 3, "sampled"), ((12, 12, 3), 4, 3, "kmeans"),
    ((28, 28, 1), 5, 3, "sampled"), ((28, 28, 1), 5, 4, "sampled"), ((28, 28, 1), 7, 1, "sampled")])
def test_the_mirror_acts_on_the_symmetric_maps_features_as_a_column_permutation(shape, p, pool, dictionary):
    """transform(mirror(X)) == transform(X)[:, mirror_permutation_] to float32 rounding, for
    array_split's cells (12 − 3 + 1 = 10 over 2) and the symmetric ones put in their place (8 over 3:
    3, 2, 3; 24 over 4 ... 22 over 3: 7, 8, 7), a sampled and a k-means dictionary."""
    X = np.random.default_rng(3).random((15,) + shape).astype(np.float32)
    features = RandomPatchFeatures(shape, n_patches=8, patch_size=p, pool=pool, n_whitening=400,
                                   kmeans_sample=200, dictionary=dictionary, random_state=4,
                                   mirror_symmetric=True).fit(X)
    H, H_mirror = features.transform(X), features.transform(mirrored(X))
    permutation = features.mirror_permutation_
    assert permutation.dtype == np.int64 and permutation.shape == (features.n_features_out,)
    np.testing.assert_array_equal(np.sort(permutation), np.arange(features.n_features_out))
    np.testing.assert_array_equal(permutation[permutation], np.arange(features.n_features_out))   # an involution
    np.testing.assert_allclose(H_mirror, H[:, permutation], rtol=0,
                               atol=8 * np.finfo(np.float32).eps * np.abs(H).max())
    assert np.abs(H_mirror - H).max() > 1e-3          # the mirror does move the features


def test_the_symmetric_map_is_closed_under_the_flip_and_equals_the_reference(images):
    """Atom k + K/2 is atom k flipped left-right, the whitening commutes with the flip exactly, and
    the features are the patch-by-patch reference's over the symmetric cells (9 − 3 + 1 = 7 rows,
    8 − 3 + 1 = 6 columns over pool 3: 2, 2, 2)."""
    features = fitted(images, n_patches=6, pool=3, dtype="float64", mirror_symmetric=True)
    flip = np.arange(3 * 3 * 3).reshape(3, 3, 3)[:, :, ::-1].ravel()        # (C, p, p) order
    np.testing.assert_array_equal(features.filters_[3:], features.filters_[:3, flip])
    np.testing.assert_array_equal(features.whitening_[np.ix_(flip, flip)], features.whitening_)
    np.testing.assert_array_equal(features.mean_[flip], features.mean_)
    H = features.transform(images)
    for k in (0, 7):
        np.testing.assert_allclose(H[k], reference(features, images[k]), rtol=1e-10, atol=1e-12)


def test_the_default_map_is_todays_bit_for_bit(images):
    """mirror_symmetric=False draws as the map always did (a copy of that draw, here) and pools over
    numpy.array_split's cells: the same whitening, filters and features, bit for bit."""
    features = fitted(images)
    rng = np.random.default_rng(features.seed_)
    p = 3
    windows = np.lib.stride_tricks.sliding_window_view(images, (p, p), axis=(1, 2))

    def draw(count):
        which = rng.integers(0, len(images), count)
        rows, cols = rng.integers(0, 9 - p + 1, count), rng.integers(0, 8 - p + 1, count)
        out = windows[which, rows, cols].reshape(count, -1).astype(np.float64)
        out -= out.mean(axis=1, keepdims=True)
        out /= np.sqrt(out.var(axis=1, keepdims=True) + 0.01)
        return out

    sample = draw(300)
    mean = sample.mean(axis=0)
    s, V = np.linalg.eigh(np.cov(sample, rowvar=False))
    whitening = (V / np.sqrt(np.clip(s, 0, None) + 0.1)) @ V.T
    filters = (draw(5) - mean) @ whitening
    filters /= np.linalg.norm(filters, axis=1, keepdims=True)
    np.testing.assert_array_equal(features.mean_, mean)
    np.testing.assert_array_equal(features.whitening_, whitening)
    np.testing.assert_array_equal(features.filters_, filters)
    assert not hasattr(features, "mirror_permutation_")
    assert all(features._column_bounds(n) == pool_bounds(n, 2) for n in range(2, 30))
    np.testing.assert_array_equal(fitted(images, mirror_symmetric=False).transform(images), features.transform(images))


def test_symmetric_pool_bounds_read_the_same_from_either_end():
    assert symmetric_pool_bounds(8, 3) == [(0, 3), (3, 5), (5, 8)]
    assert symmetric_pool_bounds(10, 4) == [(0, 3), (3, 5), (5, 7), (7, 10)]
    assert symmetric_pool_bounds(24, 3) == pool_bounds(24, 3)
    for n_positions in range(1, 40):
        for pool in range(1, n_positions + 1):
            bounds = symmetric_pool_bounds(n_positions, pool)
            if pool % 2 == 0 and n_positions % 2:
                assert bounds is None
                continue
            lengths = [b - a for a, b in bounds]
            assert bounds[0][0] == 0 and bounds[-1][1] == n_positions and len(bounds) == pool
            assert all(a == b for (_, a), (b, _) in zip(bounds, bounds[1:]))
            assert lengths == lengths[::-1] and set(lengths) <= {n_positions // pool, n_positions // pool + 1}


@pytest.mark.parametrize("kw, message", [
    (dict(n_patches=5), "n_patches must be even, got n_patches=5"),
    (dict(n_patches=4, pool=2, patch_size=4), r"pool 2 over the 5 column positions .* use patch_size in \[1, 3, 5, 7\], "
                                              r"or with patch_size 4 a pool in \[1, 3, 5\]"),
    (dict(n_patches=4, mirror_symmetric="yes"), "mirror_symmetric must be True or False")])
def test_a_map_that_cannot_commute_with_the_mirror_is_refused_at_fit(images, kw, message):
    params = dict(mirror_symmetric=True) | kw
    with pytest.raises(ValueError, match=message):
        fitted(images, **params)


@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="torch not installed")
def test_torch_maps_the_symmetric_map_as_numpy_does(images, torch_device):
    numpy_features = fitted(images, n_patches=6, pool=3, dtype="float64", mirror_symmetric=True)
    torch_features = fitted(images, n_patches=6, pool=3, dtype="float64", mirror_symmetric=True, device=torch_device)
    np.testing.assert_allclose(torch_features.transform(images).cpu().numpy(), numpy_features.transform(images),
                               rtol=1e-10, atol=1e-12)
