"""The frontier chapter: how far a one-shot (closed-form) readout goes on two CPU cores.

* :func:`patch_readout` fits the library's frozen image feature map
  (:class:`greenelm.RandomPatchFeatures`) with a ridge readout: one streamed pass of float32 feature
  blocks into the normal equations (augmented copies of the training images, when asked, are folded
  into the same sums), λ by exact leave-one-out on a random sample of training rows from one
  eigendecomposition (:class:`greenelm.RidgePath`), then the test accuracy, the fit's seconds and the
  process's peak memory.
* :func:`cost_curve` pairs every accuracy the results store holds with the seconds its training took.

Images are rows in height-width-channel order, as ``load_dataset(...).flat()`` gives them.
"""

from __future__ import annotations

import time

import numpy as np
import pandas as pd

from greenelm._validation import check_choice, check_positive_int

#: per dataset: image shape (H, W, C) and patch size p
IMAGE_SHAPES = {"mnist": ((28, 28, 1), 5), "fashion-mnist": ((28, 28, 1), 5), "cifar10": ((32, 32, 3), 6)}
#: training-set augmentations :func:`augmented` knows
AUGMENTATIONS = ("flip", "shift")


def augmented(images: np.ndarray, how: str) -> list[np.ndarray]:
    """Extra copies of ``images`` (N, H, W, C): ``"flip"`` the mirror image (left-right), ``"shift"``
    the four one-pixel shifts (edges repeated). Each copy (N, H, W, C) keeps the rows' order."""
    check_choice("augmentation", how, AUGMENTATIONS)
    if how == "flip":
        return [images[:, :, ::-1]]
    copies = []
    for axis, step in ((1, 1), (1, -1), (2, 1), (2, -1)):
        shifted = np.roll(images, step, axis=axis)
        edge = [slice(None)] * 4
        edge[axis] = 0 if step == 1 else -1
        source = [slice(None)] * 4
        source[axis] = 1 if step == 1 else -2
        shifted[tuple(edge)] = shifted[tuple(source)]
        copies.append(shifted)
    return copies


def patch_readout(dataset: str, n_patches: int, seed: int, subset: int | None = None, pool: int = 2,
                  threshold: float = 0.25, whiten_eps: float = 0.1, augment: tuple = (),
                  alphas=tuple(10.0 ** np.arange(-4, 5)), loo_rows: int = 3000, chunk_images: int = 8,
                  alpha: float | None = None, device=None) -> dict:
    """Whitened-patch features of ``dataset`` (``n_patches`` filters, ``pool`` × ``pool`` pooling,
    seed ``seed``) with a ridge readout whose λ minimises the exact LOO error on ``loo_rows`` random
    training rows (the grid ``alphas`` is extended ×10 past an end until the choice is interior), or
    the given ``alpha``: with augmented copies in the sums a left-out row's copies stay in, so LOO
    would favour too little regularisation; the chapter passes the λ LOO chose without augmentation.
    ``device``: where the features are computed (None NumPy, or a torch device); the sums and the
    solve are NumPy float64 either way.

    Returns a dict: accuracy (%), alpha, interior, n_features, fit_seconds (features + sums +
    eigendecomposition + λ choice + readout), feature_seconds, predict_seconds, peak_memory_gb, the
    LOO path (alpha, loo_mse, loo_accuracy) and n_train (rows summed, augmented copies included).
    """
    from greenelm import NormalEquations, RandomPatchFeatures, RidgePath, load_dataset

    from .bench import peak_rss_bytes, reset_peak_rss
    from .scaling import search_lambda

    shape, p = IMAGE_SHAPES[dataset]
    check_positive_int("n_patches", n_patches)
    augment = tuple(augment)
    for how in augment:
        check_choice("augmentation", how, AUGMENTATIONS)
    data = load_dataset(dataset, subset=subset)
    X_train = data.flat("train", np.float32).reshape((-1,) + shape)
    X_test = data.flat("test", np.float32).reshape((-1,) + shape)
    n_classes = int(data.y_train.max()) + 1
    targets = np.eye(n_classes, dtype=np.float32)
    reset_peak_rss()
    start = time.perf_counter()
    features = RandomPatchFeatures(shape, n_patches=n_patches, patch_size=p, pool=pool, threshold=threshold,
                                   whiten_eps=whiten_eps, random_state=seed, device=device).fit(X_train)

    def blocks(images):
        for rows, H in features.chunks(images, chunk_images):
            yield rows, (H.cpu().numpy() if hasattr(H, "cpu") else H)

    equations = NormalEquations(features.n_features_out, n_classes, "float32")
    copies = [X_train] + [c for how in augment for c in augmented(X_train, how)]
    for images in copies:
        for rows, H in blocks(images):
            equations.update(H, targets[data.y_train[rows]])
    feature_seconds = time.perf_counter() - start
    n_train = len(data.y_train)
    path = RidgePath(equations.gram, equations.hty, float(equations.n_samples), equations.n_samples)
    rows = np.sort(np.random.default_rng(seed).choice(n_train, size=min(int(loo_rows), n_train), replace=False))
    H_loo = np.vstack([H for _, H in blocks(X_train[rows])]).astype(np.float64)
    Y_loo = targets[data.y_train[rows]].astype(np.float64)
    def evaluate(a: float) -> dict:
        found = path.leave_one_out([a], [(H_loo, Y_loo)], sample=True)
        return {"alpha": float(a), "loo_mse": float(found["loo_mse"][0]),
                "loo_accuracy": float(found["loo_accuracy"][0])}

    if alpha is None:
        searched, interior = search_lambda(evaluate, alphas, factor=10.0, max_extend=11)
    else:
        searched, interior = [evaluate(alpha)], None
    best = min(searched, key=lambda r: r["loo_mse"])["alpha"]
    W = path.weights(best).astype(np.float32)
    fit_seconds = time.perf_counter() - start
    start = time.perf_counter()
    scores = np.vstack([H @ W for _, H in blocks(X_test)])
    predict_seconds = time.perf_counter() - start
    return {"dataset": dataset, "n_patches": int(n_patches), "pool": int(pool), "seed": int(seed),
            "device": "numpy" if device is None else str(device),
            "augment": list(augment), "n_features": features.n_features_out, "n_train": int(equations.n_samples),
            "accuracy": 100 * float(np.mean(scores.argmax(axis=1) == data.y_test)), "alpha": float(best),
            "interior": interior, "fit_seconds": fit_seconds, "feature_seconds": feature_seconds,
            "predict_seconds": predict_seconds, "peak_memory_gb": peak_rss_bytes() / 1e9,
            "loo": {key: [r[key] for r in searched] for key in ("alpha", "loo_mse", "loo_accuracy")},
            "loo_rows": int(len(rows))}


#: suffixes of the store's time keys that :func:`cost_curve` pairs with ``…/accuracy``
TIME_SUFFIXES = ("/train-total-seconds", "/train-seconds", "/fit-seconds")


def cost_curve(stored: dict) -> pd.DataFrame:
    """Every (accuracy, seconds) pair the results store holds: ``stored`` maps chapter → its results
    (as :func:`greenelm_book.results.load_all` returns). A time key ``<base>/train-total-seconds``,
    ``<base>/train-seconds`` or ``<base>/fit-seconds`` pairs with ``<base>/accuracy`` of the same
    chapter (the first suffix found wins). Rows: chapter, key, dataset, accuracy (mean %), seconds (mean)."""
    rows = []
    for chapter, entry in stored.items():
        keys = entry["results"]
        taken = set()
        for suffix in TIME_SUFFIXES:
            for key, result in keys.items():
                if not key.endswith(suffix):
                    continue
                base = key[: -len(suffix)]
                accuracy = keys.get(f"{base}/accuracy")
                if accuracy is None or base in taken:
                    continue
                taken.add(base)
                rows.append({"chapter": chapter, "key": base, "dataset": base.split("/")[0],
                             "accuracy": float(np.mean(accuracy.values)), "seconds": float(np.mean(result.values))})
    return pd.DataFrame(rows, columns=["chapter", "key", "dataset", "accuracy", "seconds"])


def kernel_limit(dataset: str, subset: int | None, jitter: float, attempts: int = 3,
                 n_train: int | None = None) -> dict:
    """Green-ELM's d → ∞ limit on ``dataset``: arc-cosine kernel ridge on the first ``n_train`` (default
    all) of the (``subset``) training images, float32, μ = jitter · mean diag K, the jitter ×10 after
    a failed factorisation.

    Cached under the same entry as the scaling chapter's (so a limit either computes is shared).
    Returns {"accuracy" (%), "mu", "jitter", "n_train"}; raises ``LinAlgError`` after ``attempts``.
    """
    from greenelm.kernels import kernel_ridge_predict

    from .experiments import load_split
    from .results_cache import memoize

    split = load_split(dataset, subset=subset)
    n_train = len(split.y_train) if n_train is None else min(int(n_train), len(split.y_train))
    for _ in range(int(attempts)):
        def compute(jitter=jitter):
            try:
                scores, info = kernel_ridge_predict(split.X_train[:n_train], np.eye(10)[split.y_train[:n_train]],
                                                    split.X_test, jitter=jitter)
            except np.linalg.LinAlgError as error:
                return {"failed": str(error)}
            return {"accuracy": 100 * float(np.mean(scores.argmax(1) == split.y_test)), **info}
        result, _ = memoize("arccos-kernel", {"dataset": dataset, "subset": subset, "n_train": n_train,
                                              "jitter": jitter}, compute)
        if "failed" not in result:
            return {"accuracy": result["accuracy"], "mu": float(result["mu"]), "jitter": jitter, "n_train": n_train}
        jitter *= 10
    raise np.linalg.LinAlgError(f"the arc-cosine kernel of {dataset} did not factorise up to jitter {jitter / 10:g}")


def ultra_wide(dataset: str, subset: int | None, n_hidden: int, seed: int, lambdas, loo_rows: int = 3000,
               factor: float = 10.0, max_extend: int = 4, chunk_rows: int = 2048) -> dict:
    """One Green-ELM of width ``n_hidden`` (W, b ~ N(0, 1), seed ``seed``) with λ by exact LOO, within
    the memory of one float32 Gram and one float64 factor.

    The normal equations are accumulated from float32 feature blocks (the library's float32 remedy),
    kept as a float32 Gram (4·d² bytes); for each λ of ``lambdas`` (extended ×``factor`` past an end
    until LOO's choice is interior, at most ``max_extend`` times) ``G + λI`` is formed in float64
    and factorised in place (Cholesky, single-threaded at orders ≥ ``LARGE_ORDER`` as the library
    routes them), giving the readout, the exact LOO residuals ``e_j / (1 − h_j)`` of ``loo_rows``
    random training rows and the test accuracy. Returns {"paths": [{alpha, loo_mse, test_accuracy,
    train_accuracy}], "alpha", "test_accuracy", "interior", "gram_seconds", "solve_seconds", "loo_rows"}.
    """
    import scipy.linalg

    from greenelm import NormalEquations, RandomReLUFeatures, load_dataset

    from .scaling import _lapack_threads, search_lambda

    data = load_dataset(dataset, subset=subset)
    X_train, X_test = data.flat("train", np.float32), data.flat("test", np.float32)
    n_classes = int(data.y_train.max()) + 1
    targets = np.eye(n_classes, dtype=np.float32)
    start = time.perf_counter()
    features = RandomReLUFeatures(X_train.shape[1], n_hidden, seed=seed, weight_scale="unit", dtype="float32")
    equations = NormalEquations(n_hidden, n_classes, "float32")
    for rows, H in features.chunks(X_train, chunk_rows):
        equations.update(H, targets[data.y_train[rows]])
    hty = equations.hty.copy()
    gram = np.asarray(equations.gram, dtype=np.float32, order="F")      # upper triangle valid
    del equations
    gram_seconds = time.perf_counter() - start
    rows = np.sort(np.random.default_rng(seed).choice(len(X_train), size=min(int(loo_rows), len(X_train)),
                                                      replace=False))
    H_loo = features.transform(X_train[rows])
    Y_loo = np.eye(n_classes)[data.y_train[rows]]
    H_test = features.transform(X_test)
    labels = data.y_train[rows]

    def evaluate(alpha: float) -> dict:
        A = np.array(gram, dtype=np.float64, order="F")
        A[np.diag_indices(n_hidden)] += alpha
        with _lapack_threads(n_hidden):
            factor_upper = scipy.linalg.cho_factor(A, lower=False, overwrite_a=True, check_finite=False)
        W = scipy.linalg.cho_solve(factor_upper, hty, check_finite=False)
        half = scipy.linalg.solve_triangular(factor_upper[0], H_loo.T.astype(np.float64), trans="T", lower=False,
                                             check_finite=False)
        leverage = np.einsum("ij,ij->j", half, half)
        del A, factor_upper, half
        fitted = H_loo @ W
        residual = (Y_loo - fitted) / (1.0 - leverage)[:, None]
        return {"alpha": float(alpha), "loo_mse": float(np.mean(np.sum(residual**2, axis=1))),
                "loo_accuracy": 100 * float(np.mean((Y_loo - residual).argmax(axis=1) == labels)),
                "train_accuracy": 100 * float(np.mean(fitted.argmax(axis=1) == labels)),
                "test_accuracy": 100 * float(np.mean((H_test @ W.astype(np.float32)).argmax(axis=1) == data.y_test))}

    start = time.perf_counter()
    path, interior = search_lambda(evaluate, lambdas, factor, max_extend)
    best = min(path, key=lambda r: r["loo_mse"])
    return {"paths": path, "alpha": best["alpha"], "test_accuracy": best["test_accuracy"], "interior": bool(interior),
            "gram_seconds": gram_seconds, "solve_seconds": time.perf_counter() - start, "loo_rows": int(len(rows))}

