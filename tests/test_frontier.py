"""The frontier chapter's helpers: augmented copies and the cost curve's pairing of store keys."""

from __future__ import annotations

import numpy as np
import pytest

from greenelm_book.chapters.frontier_features import augmented, cost_curve
from greenelm_book.store.results import Result


def test_flip_mirrors_and_shifts_move_by_one_pixel_with_edges_repeated():
    images = np.arange(2 * 4 * 5 * 1, dtype=float).reshape(2, 4, 5, 1)
    (flip,) = augmented(images, "flip")
    np.testing.assert_array_equal(flip[:, :, 0], images[:, :, -1])
    down, up, right, left = augmented(images, "shift")
    np.testing.assert_array_equal(down[:, 1:], images[:, :-1])
    np.testing.assert_array_equal(down[:, 0], images[:, 0])          # the vacated edge repeats the old one
    np.testing.assert_array_equal(up[:, :-1], images[:, 1:])
    np.testing.assert_array_equal(right[:, :, 1:], images[:, :, :-1])
    np.testing.assert_array_equal(left[:, :, :-1], images[:, :, 1:])
    assert all(c.shape == images.shape for c in (flip, down, up, right, left))
    with pytest.raises(ValueError, match="augmentation"):
        augmented(images, "rotate")


def result(key, values, unit):
    return Result(key, tuple(values), unit, {}, "a", "machine", "2026-11-23", "command")


def test_cost_curve_pairs_each_time_with_its_accuracy_once():
    stored = {"a": {"results": {
        "mnist/m/accuracy": result("mnist/m/accuracy", [90.0, 92.0], "%"),
        "mnist/m/train-seconds": result("mnist/m/train-seconds", [3.0, 5.0], "s"),
        "mnist/m/fit-seconds": result("mnist/m/fit-seconds", [1.0], "s"),          # train-seconds wins
        "mnist/lonely/fit-seconds": result("mnist/lonely/fit-seconds", [1.0], "s"),  # no accuracy: left out
    }}}
    curve = cost_curve(stored)
    assert curve.to_dict("records") == [{"chapter": "a", "key": "mnist/m", "dataset": "mnist",
                                         "accuracy": 91.0, "seconds": 4.0}]


def test_ultra_wide_readout_and_leave_one_out_equal_refits():
    """λ path of :func:`ultra_wide` on a small MNIST subset: each LOO MSE equals the refits without the
    row, and the chosen λ's test predictions equal ELMClassifier's with the same seed and λ."""
    from greenelm import ELMClassifier, RandomReLUFeatures, load_dataset
    from greenelm_book.chapters.frontier_features import ultra_wide

    run = ultra_wide("mnist", 300, 40, seed=3, lambdas=[0.1, 10.0, 1000.0], loo_rows=20)
    data = load_dataset("mnist", subset=300)
    X, y = data.flat("train", np.float32), data.y_train
    H = RandomReLUFeatures(784, 40, seed=3, dtype="float32").transform(X).astype(np.float64)
    Y = np.eye(10)[y]
    rows = np.sort(np.random.default_rng(3).choice(300, size=20, replace=False))
    for step in run["paths"]:
        errors = []
        for j in rows:
            keep = np.arange(300) != j
            W = np.linalg.solve(H[keep].T @ H[keep] + step["alpha"] * np.eye(40), H[keep].T @ Y[keep])
            errors.append(np.sum((Y[j] - H[j] @ W) ** 2))
        assert step["loo_mse"] == pytest.approx(np.mean(errors), rel=1e-4)
    model = ELMClassifier(n_hidden=40, alpha=run["alpha"], dtype="float32", random_state=3).fit(X, y)
    assert "test_accuracy" not in run and all("test_accuracy" not in step for step in run["paths"])   # never scored here
    agree = np.mean(run["test_predicted"] == model.predict(data.flat("test", np.float32)))
    assert agree >= 0.99                             # float32 products: a near-tie may flip


def test_memory_plans_name_their_stages_and_refuse_a_fit_that_will_not_fit():
    from greenelm_book.chapters.frontier_features import check_memory, readout_memory, ultra_wide_memory

    plan = readout_memory(8192, 10, 50_000, 10_000, 3072, 3000)
    d2 = 8192 * 8192
    assert plan["spectrum"] == 16 * d2 + 320 * 8192                     # Gram + eigenvectors
    assert plan["sums"] > 12 * d2 and plan["peak"] == plan["data"] + max(plan["sums"], plan["spectrum"], plan["loo"])
    assert 2.0e9 < plan["peak"] < 3.0e9                                  # K = 1,024 on CIFAR-10: under 3 GB
    wide = ultra_wide_memory(32_000, 10, 60_000, 10_000, 784, 3000)
    assert 12 * 32_000**2 < wide["peak"] < 24e9
    check_memory(plan, "fits", available=plan["peak"])                # enough: silent
    with pytest.raises(MemoryError, match=r"the readout needs about 2\.\d GB at its peak \(data 0\.74 GB, "
                                          r"sums 1\.\d\d GB, spectrum 1\.08 GB, loo 0\.\d\d GB\) but 1\.0 GB"):
        check_memory(plan, "the readout", available=10**9)


def test_patch_readout_reports_its_stages_and_equals_a_direct_ridge_fit():
    from greenelm import RandomPatchFeatures, load_dataset
    from greenelm_book.chapters.frontier_features import patch_readout

    run = patch_readout("mnist", 8, seed=1, subset=300, loo_rows=50, alpha=1.0, chunk_images=7)
    assert set(run["stage_peak_gb"]) == {"sums", "spectrum", "loo"} and run["n_train"] == 300
    data = load_dataset("mnist", subset=300)
    images = data.flat("train", np.float32).reshape(-1, 28, 28, 1)
    features = RandomPatchFeatures((28, 28, 1), n_patches=8, patch_size=5, random_state=1).fit(images)
    H = features.transform(images).astype(np.float64)
    W = np.linalg.solve(H.T @ H + np.eye(H.shape[1]), H.T @ np.eye(10)[data.y_train])
    H_test = features.transform(data.flat("test", np.float32).reshape(-1, 28, 28, 1))
    expected = 100 * np.mean((H_test @ W).argmax(axis=1) == data.y_test)
    assert run["accuracy"] == pytest.approx(expected, abs=100 / len(data.y_test) + 1e-9)


def test_the_cholesky_readout_equals_the_eigendecomposition_readout():
    from greenelm_book.chapters.frontier_features import patch_readout, readout_memory

    runs = {how: patch_readout("cifar10", 6, seed=2, subset=200, loo_rows=40, solver=how,
                               alphas=(0.1, 1.0, 10.0, 100.0)) for how in ("eigh", "cholesky")}
    assert runs["eigh"]["solver"] == "eigh" and runs["cholesky"]["solver"] == "cholesky"
    assert runs["eigh"]["alpha"] == runs["cholesky"]["alpha"] and runs["eigh"]["accuracy"] == runs["cholesky"]["accuracy"]
    np.testing.assert_allclose(runs["eigh"]["loo"]["loo_mse"], runs["cholesky"]["loo"]["loo_mse"], rtol=1e-6)
    assert set(runs["cholesky"]["stage_peak_gb"]) == {"sums", "loo"}
    wide = readout_memory(32_768, 10, 50_000, 10_000, 3072, 3000, solver="cholesky")
    assert "spectrum" not in wide and wide["peak"] < 16e9      # K = 4,096 (32,768 features) fits 24 GB
    with pytest.raises(ValueError, match="unknown solver 'lu'"):
        readout_memory(100, 10, 10, 10, 10, 10, solver="lu")


def test_the_cholesky_path_skips_a_lambda_below_the_grams_rounding_and_keeps_float64_where_it_fits(monkeypatch):
    import greenelm_book.chapters.frontier_features as frontier

    gram = np.eye(4)
    assert frontier.cholesky_gram(gram, 100, available=100 + 64) is gram                   # 4·d² more fits
    low = frontier.cholesky_gram(gram, 100, available=100 + 63)
    assert low.dtype == np.float32 and low.flags.f_contiguous and np.array_equal(low, gram)
    exact = frontier.cholesky_ridge

    def fails_below(floor):
        def ridge(gram, hty, H_loo, Y_loo, alpha):
            if alpha < floor:
                raise np.linalg.LinAlgError(f"{alpha}: not positive definite")
            return exact(gram, hty, H_loo, Y_loo, alpha)
        return ridge

    grid = (0.001, 0.01, 0.1, 1.0, 10.0)
    patch_readout = frontier.patch_readout
    reference = patch_readout("cifar10", 6, seed=2, subset=200, loo_rows=40, solver="cholesky", alphas=grid)
    monkeypatch.setattr(frontier, "cholesky_ridge", fails_below(0.01))
    run = patch_readout("cifar10", 6, seed=2, subset=200, loo_rows=40, solver="cholesky", alphas=grid)
    assert run["infeasible_alphas"] == [0.001] and run["loo"]["alpha"][0] == 0.01
    assert reference["infeasible_alphas"] == [] and run["gram_dtype"] == "float64"
    at_floor = run["alpha"] == 0.01
    assert run["interior"] is (not at_floor) and (at_floor or run["alpha"] == reference["alpha"])
    monkeypatch.setattr(frontier, "cholesky_ridge", fails_below(1e9))
    with pytest.raises(np.linalg.LinAlgError, match="not positive definite at any λ tried"):
        patch_readout("cifar10", 6, seed=2, subset=200, loo_rows=40, solver="cholesky", alphas=grid)


def _blobs(seed=0, n_train=160, n_test=120, n_features=6):
    """Three Gaussian classes in ``n_features`` dimensions, standardised like the patch features."""
    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((3, n_features)) * 1.2
    y_train, y_test = rng.integers(0, 3, n_train), rng.integers(0, 3, n_test)
    X_train = (centres[y_train] + rng.standard_normal((n_train, n_features))).astype(np.float32)
    X_test = (centres[y_test] + rng.standard_normal((n_test, n_features))).astype(np.float32)
    return {"X_train": X_train, "y_train": y_train, "X_test": X_test, "y_test": y_test}


def test_the_stacked_readout_tends_to_its_kernel_limit():
    """A wide stacked map with λ = μ·d predicts as the arc-cosine kernel ridge with μ (the kernel is
    the feature products' expectation over W, b: K ≈ HHᵀ/d; the finite ridge is solved in its dual
    form, N × N), and the readout's λ comes from the grid, the same for the same seed."""
    from greenelm import RandomReLUFeatures
    from greenelm_book.chapters.frontier_features import stacked_kernel_limit, stacked_readout

    features = _blobs()
    limit = stacked_kernel_limit(features, jitter=1e-2)
    d = 40_000
    relu = RandomReLUFeatures(n_inputs=6, n_hidden=d, seed=3, weight_scale="he")
    H, H_test = relu.transform(features["X_train"].astype(np.float64)), relu.transform(features["X_test"].astype(np.float64))
    Y = np.eye(3)[features["y_train"]]
    dual = np.linalg.solve(H @ H.T + limit["mu"] * d * np.eye(len(H)), Y)     # (HᵀH + λI)⁻¹Hᵀ = Hᵀ(HHᵀ + λI)⁻¹
    predicted = (H_test @ (H.T @ dual)).argmax(1)
    assert np.mean(predicted == limit["predicted"]) >= 0.97
    assert limit["n_train"] == 160 and limit["jitter"] == 1e-2
    run = stacked_readout(features, n_hidden=300, seed=1, alphas=(1e-2, 1e0, 1e2, 1e4, 1e6))
    again = stacked_readout(features, n_hidden=300, seed=1, alphas=(1e-2, 1e0, 1e2, 1e4, 1e6))
    assert run["alpha"] in (1e0, 1e2, 1e4) and run == {**again, "fit_seconds": run["fit_seconds"]}
    assert 50 < run["accuracy"] <= 100 and run["n_hidden"] == 300


def test_stacked_patch_features_are_standardised_on_the_training_images():
    from greenelm_book.chapters.frontier_features import standardised_patch_features

    features = standardised_patch_features("mnist", 4, seed=0, subset=120, pool=2)
    assert features["X_train"].shape == (120, 32) and features["X_test"].shape[1] == 32
    assert features["X_train"].dtype == np.float32 and features["n_features"] == 32
    np.testing.assert_allclose(features["X_train"].mean(axis=0), 0, atol=1e-5)
    spread = features["X_train"].std(axis=0)
    assert np.all((np.abs(spread - 1) < 1e-4) | (spread == 0))


def test_patch_views_are_the_patch_features_of_each_copy_standardised_as_the_images_are():
    from greenelm import RandomPatchFeatures, load_dataset
    from greenelm_book.chapters.frontier_features import standardised_patch_features, standardised_patch_views

    views = standardised_patch_views("mnist", 4, seed=0, subset=120, pool=2, views=("flip",))
    alone = standardised_patch_features("mnist", 4, seed=0, subset=120, pool=2)
    assert views["views"] == ("identity", "flip") and len(views["X_train"]) == len(views["X_test"]) == 2
    for part in ("X_train", "X_test"):       # the features alone are the identity view
        np.testing.assert_array_equal(views[part][0], alone[part])
    # the mirror images' features, under the training images' own mean and standard deviation
    data = load_dataset("mnist", subset=120)
    images = data.flat("train", np.float32).reshape(-1, 28, 28, 1)
    mapped = RandomPatchFeatures((28, 28, 1), n_patches=4, patch_size=5, pool=2, random_state=0).fit(images)
    raw, mirrored = mapped.transform(images), mapped.transform(images[:, :, ::-1])
    spread = raw.std(axis=0, dtype=np.float64)
    expected = (mirrored - raw.mean(axis=0, dtype=np.float64)) / np.where(spread > 0, spread, 1.0)
    np.testing.assert_allclose(views["X_train"][1], expected, atol=2e-5)
    standardised = (raw - raw.mean(axis=0, dtype=np.float64)) / np.where(spread > 0, spread, 1.0)
    np.testing.assert_allclose(views["X_train"][0], standardised, atol=2e-5)
    with pytest.raises(ValueError, match="view"):
        standardised_patch_views("mnist", 4, seed=0, subset=120, views=("rotate",))


def test_patch_views_equal_the_frozen_copy_at_the_datasets_own_patch_size():
    from greenelm_book.chapters.frontier_features import patch_views, standardised_patch_views

    frozen = standardised_patch_views("mnist", 4, 0, subset=60, pool=3, views=("shift",))
    general = patch_views("mnist", 4, 0, subset=60, pool=3, views=("shift",))
    assert general["patch_size"] == 5 and general["views"] == frozen["views"]
    for part in ("X_train", "X_test"):
        for a, b in zip(frozen[part], general[part], strict=True):
            np.testing.assert_array_equal(a, b)
    wider = patch_views("mnist", 4, 0, patch_size=9, subset=60, pool=3)
    assert wider["patch_size"] == 9 and wider["X_train"][0].shape == frozen["X_train"][0].shape
    assert not np.array_equal(wider["X_train"][0], frozen["X_train"][0])
    with pytest.raises(ValueError, match="patch_size"):
        patch_views("mnist", 4, 0, patch_size=0, subset=60, pool=3)


def test_patch_views_take_the_maps_threshold_and_whitening():
    from greenelm import RandomPatchFeatures
    from greenelm_book.chapters.frontier_features import patch_views

    own = RandomPatchFeatures((28, 28, 1))
    default = patch_views("mnist", 4, 0, subset=60, pool=3)
    explicit = patch_views("mnist", 4, 0, subset=60, pool=3, threshold=own.threshold, whiten_eps=own.whiten_eps)
    assert (default["threshold"], default["whiten_eps"]) == (own.threshold, own.whiten_eps)
    np.testing.assert_array_equal(default["X_train"][0], explicit["X_train"][0])
    other = patch_views("mnist", 4, 0, subset=60, pool=3, threshold=0.75, whiten_eps=0.5, test=False)
    assert (other["threshold"], other["whiten_eps"]) == (0.75, 0.5) and other["X_test"] == []
    assert not np.array_equal(other["X_train"][0], default["X_train"][0])


def test_errors_removed_is_the_share_of_the_base_errors():
    from greenelm_book.report import errors_removed

    assert errors_removed(99.2, 99.0) == pytest.approx(0.2)
    assert errors_removed(98.5, 99.0) == pytest.approx(-0.5)
    assert errors_removed(99.0, 100.0) is None
