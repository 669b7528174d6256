"""The frontier chapter: how far a one-shot (closed-form) readout goes on two CPU cores.

* :func:`patch_readout` fits the library's frozen image feature map
  (:class:`greenelm.RandomPatchFeatures`) with a ridge readout: one streamed pass of float32 feature
  blocks into the normal equations (augmented copies of the training images, when asked, are folded
  into the same sums), λ by exact leave-one-out on a random sample of training rows from one
  eigendecomposition (:class:`greenelm.RidgePath`), then the test accuracy, the fit's seconds and the
  process's peak memory, per stage.  The feature map works in small image blocks (its cache's
  size); the sums receive large row blocks (:func:`greenelm.solvers.sum_block_rows`).
* :func:`readout_memory` and :func:`ultra_wide_memory` state what each stage holds, and
  :func:`check_memory` refuses a fit that will not fit before it starts.
* :func:`cost_curve` pairs every accuracy the results store holds with the seconds its training took.

Images are rows in height-width-channel order, as ``load_dataset(...).flat()`` gives them.
"""

from __future__ import annotations

import time
from collections.abc import Iterator

import numpy as np
import pandas as pd

from greenelm._validation import check_choice, check_positive_int
from greenelm.features import row_chunks

#: per dataset: image shape (H, W, C) and patch size p
IMAGE_SHAPES = {"mnist": ((28, 28, 1), 5), "fashion-mnist": ((28, 28, 1), 5), "cifar10": ((32, 32, 3), 6)}
#: training-set augmentations :func:`augmented` knows
AUGMENTATIONS = ("flip", "shift")
#: how :func:`patch_readout` solves: one eigendecomposition, or one Cholesky factorisation per λ
READOUT_SOLVERS = ("eigh", "cholesky")


def augmented(images: np.ndarray, how: str) -> Iterator[np.ndarray]:
    """Extra copies of ``images`` (N, H, W, C), made one at a time: ``"flip"`` the mirror image
    (left-right, a view), ``"shift"`` the four one-pixel shifts (edges repeated). Each copy
    (N, H, W, C) keeps the rows' order."""
    check_choice("augmentation", how, AUGMENTATIONS)     # now, not on the first copy
    return iter([images[:, :, ::-1]]) if how == "flip" else _shifted(images)


def _shifted(images: np.ndarray) -> Iterator[np.ndarray]:
    """The four one-pixel shifts of ``images`` (N, H, W, C), edges repeated, one at a time."""
    for axis, step in ((1, 1), (1, -1), (2, 1), (2, -1)):
        shifted = np.roll(images, step, axis=axis)
        edge = [slice(None)] * 4
        edge[axis] = 0 if step == 1 else -1
        source = [slice(None)] * 4
        source[axis] = 1 if step == 1 else -2
        shifted[tuple(edge)] = shifted[tuple(source)]
        yield shifted


GB = 1e9


def check_memory(plan: dict, what: str, available: int | None = None) -> None:
    """Raise ``MemoryError`` before a fit whose stages (``plan`` in bytes, from :func:`readout_memory`
    or :func:`ultra_wide_memory`, whose ``data`` is already loaded) need more than the memory
    available now, naming every stage's size."""
    from greenelm._validation import available_memory

    available = available_memory() if available is None else int(available)
    if available is None or plan["peak"] - plan.get("data", 0) <= available:   # None: not known here
        return
    stages = ", ".join(f"{name} {size / GB:.2f} GB" for name, size in plan.items() if name != "peak")
    raise MemoryError(f"{what} needs about {plan['peak'] / GB:.1f} GB at its peak ({stages}) but "
                      f"{available / GB:.1f} GB are available: use fewer features or training rows")


def readout_memory(n_features: int, n_classes: int, n_train: int, n_test: int, image_values: int,
                   loo_rows: int, augment_copy: bool = False, chunk_images: int = 8,
                   positions: int = 729, patch_values: int = 108, solver: str = "eigh") -> dict:
    """Bytes each stage of :func:`patch_readout` holds, and the peak (data + the largest stage).

    * ``data``: the float32 training and test images (N·V and N_test·V values) and, with shift
      augmentation, one shifted copy at a time;
    * ``sums``: the float64 Gram (8·d²) and HᵀY, the float32 scratch Gram (4·d²), the gathering
      buffer (:func:`~greenelm.solvers.sum_block_rows` rows of d float32) and one feature block
      (``chunk_images`` images: positions × (patch + K) float32 values, twice);
    * ``spectrum``: the Gram (overwritten by the eigensolver) and its eigenvectors (8·d² each);
    * ``loo``: the eigenvectors, the LOO rows' features (float32) and their rotation (float64).

    ``solver="cholesky"`` (:func:`cholesky_ridge`, one factorisation per λ) has no ``spectrum``;
    its ``loo`` stage holds at least a float32 Gram (4·d²; :func:`cholesky_gram` keeps the float64
    one where 4·d² more fit), ``G + λI`` factorised in place (8·d²), the LOO rows' features
    (float32) and their triangular solve (float64, twice).
    """
    from greenelm.solvers import sum_block_rows

    d, k = int(n_features), int(n_classes)
    images = 4 * image_values * (n_train + n_test + (n_train if augment_copy else 0))
    block = 2 * 4 * chunk_images * positions * (patch_values + d)
    check_choice("solver", solver, READOUT_SOLVERS)
    plan = {"data": images,
            "sums": 8 * d * d + 4 * d * d + 4 * sum_block_rows(d, "float32") * (d + k) + block}
    if solver == "eigh":
        plan["spectrum"] = 2 * 8 * d * d + 40 * 8 * d
        plan["loo"] = 8 * d * d + loo_rows * d * (4 + 8)
    else:
        plan["loo"] = 12 * d * d + loo_rows * d * (4 + 16)
    plan["peak"] = plan["data"] + max(value for key, value in plan.items() if key != "data")
    return plan


def choose_readout_solver(n_features: int, plan_of) -> str:
    """``"eigh"`` (one eigendecomposition, every λ cheap) when d is below the library's
    ``LARGE_ORDER`` and its plan fits the memory available, else ``"cholesky"`` (one
    factorisation per λ, in the memory of a float32 Gram and one float64 factor).
    ``plan_of(solver)`` gives :func:`readout_memory`'s plan."""
    from greenelm.solvers import LARGE_ORDER

    plan = plan_of("eigh")
    from greenelm._validation import available_memory

    available = available_memory()
    fits = available is None or plan["peak"] - plan["data"] <= available
    return "eigh" if n_features < LARGE_ORDER and fits else "cholesky"


def cholesky_gram(gram64: np.ndarray, solve_bytes: int, available: int | None = None) -> np.ndarray:
    """The Gram the Cholesky path factorises from (d, d; upper triangle valid): ``gram64`` itself
    (float64) when it fits beside the solve's own ``solve_bytes`` (:func:`readout_memory`'s ``loo``
    stage, which counts a float32 copy: the float64 Gram needs 4·d² bytes more), else a float32 copy,
    whose rounding (relative 6e-8) sets a floor on λ below which G + λI is not numerically positive
    definite. ``available``: bytes free (default: :func:`greenelm._validation.available_memory`)."""
    from greenelm._validation import available_memory

    available = available_memory() if available is None else int(available)
    extra = 4 * gram64.shape[0] ** 2
    if available is None or solve_bytes + extra <= available:
        return gram64
    return np.asarray(gram64, dtype=np.float32, order="F")


def cholesky_ridge(gram, hty, H_loo, Y_loo, alpha: float):
    """Ridge readout at λ = ``alpha`` from a Gram ``gram`` (d, d; upper triangle valid, float32 or
    float64, not modified) and ``hty`` (d, k), and the exact LOO residuals of the rows ``H_loo``
    (n, d) with targets ``Y_loo`` (n, k): ``e_j / (1 − h_j)``, h_j = ‖L⁻¹ h_j‖² for G + λI = LᵀL.

    One float64 copy of G + λI is factorised in place (single-threaded at orders ≥ the library's
    ``LARGE_ORDER``).  Returns ``(W (d, k), fitted (n, k), loo_residual (n, k))``, float64.
    """
    import scipy.linalg

    from .scaling_law import _lapack_threads

    n = gram.shape[0]
    A = np.array(gram, dtype=np.float64, order="F")
    A[np.diag_indices(n)] += alpha
    with _lapack_threads(n):
        factor_upper = scipy.linalg.cho_factor(A, lower=False, overwrite_a=True, check_finite=False)
    W = scipy.linalg.cho_solve(factor_upper, hty, check_finite=False)
    half = scipy.linalg.solve_triangular(factor_upper[0], H_loo.T.astype(np.float64), trans="T", lower=False,
                                         check_finite=False)
    leverage = np.einsum("ij,ij->j", half, half)
    del A, factor_upper, half
    fitted = H_loo @ W
    return W, fitted, (Y_loo - fitted) / (1.0 - leverage)[:, None]


def ultra_wide_memory(n_hidden: int, n_classes: int, n_train: int, n_test: int, n_inputs: int,
                      loo_rows: int, chunk_rows: int = 2048) -> dict:
    """Bytes each stage of :func:`ultra_wide` holds, and the peak (data + the largest stage).

    * ``data``: the float32 training and test inputs;
    * ``sums``: the float64 Gram (8·d²), the float32 scratch Gram (4·d²), the gathering buffer and
      one feature block (``chunk_rows`` × d float32), then the float32 copy of the Gram made while
      the float64 one is still held (4·d²; the scratch is freed first);
    * ``solve``: per λ the float32 Gram, ``G + λI`` in float64 factorised in place (8·d²), the LOO
      and test rows' features (float32) and the LOO rows' triangular solve (float64, twice).
    """
    from greenelm.solvers import sum_block_rows

    d, k = int(n_hidden), int(n_classes)
    plan = {"data": 4 * n_inputs * (n_train + n_test),
            "sums": max(12 * d * d + 4 * d * (sum_block_rows(d, "float32") + chunk_rows), 12 * d * d),
            "solve": 12 * d * d + 4 * d * (loo_rows + n_test) + 2 * 8 * d * loo_rows + 8 * d * k}
    plan["peak"] = plan["data"] + max(plan["sums"], plan["solve"])
    return plan


def patch_readout(dataset: str, n_patches: int, seed: int, subset: int | None = None, pool: int = 2,
                  threshold: float = 0.25, whiten_eps: float = 0.1, augment: tuple = (),
                  alphas=tuple(10.0 ** np.arange(-4, 5)), loo_rows: int = 3000, chunk_images: int = 8,
                  alpha: float | None = None, device=None, solver: str = "auto",
                  dictionary: str = "sampled") -> dict:
    """Whitened-patch features of ``dataset`` (``n_patches`` filters, ``pool`` × ``pool`` pooling,
    seed ``seed``; ``dictionary`` ``"sampled"`` patches or ``"kmeans"`` centroids) with a ridge readout whose λ minimises the exact LOO error on ``loo_rows`` random
    training rows (the grid ``alphas`` is extended ×10 past an end until the choice is interior), or
    the given ``alpha``: with augmented copies in the sums a left-out row's copies stay in, so LOO
    would favour too little regularisation; the chapter passes the λ LOO chose without augmentation.
    ``device``: where the features are computed (None NumPy, or a torch device); the sums and the
    solve are NumPy float64 either way.  The map works on ``chunk_images`` images at a time; the sums
    gather their rows into large blocks.  Before anything large is allocated, the plan of
    :func:`readout_memory` is checked against the memory available (``MemoryError`` naming the sizes).
    ``solver``: ``"eigh"`` (one eigendecomposition of the Gram), ``"cholesky"`` (one factorisation
    per λ from a float32 Gram: :func:`cholesky_ridge`), or ``"auto"`` (:func:`choose_readout_solver`).

    Returns a dict: accuracy (%), alpha, interior, n_features, fit_seconds (features + sums +
    eigendecomposition + λ choice + readout), feature_seconds, spectrum_seconds, loo_seconds,
    predict_seconds, peak_memory_gb (the whole fit) and stage_peak_gb (per stage: sums, spectrum,
    loo), memory_plan_gb (:func:`readout_memory`), baseline_memory_gb (the process without the
    data: interpreter and libraries; the budget is baseline + plan), the LOO path (alpha, loo_mse, loo_accuracy) and
    n_train (rows summed, augmented copies included). On the Cholesky path a λ at which G + λI does not
    factorise (not numerically positive definite: λ below the Gram's rounding) is skipped and listed in
    ``infeasible_alphas``; ``interior`` is then judged among the feasible λ (False at that floor);
    ``gram_dtype`` is the dtype of the Gram it factorised from (:func:`cholesky_gram`).
    """
    from greenelm import NormalEquations, RandomPatchFeatures, RidgePath, load_dataset

    from ..bench import current_rss_bytes, peak_rss_bytes, reset_peak_rss
    from .scaling_law import search_lambda

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
    n_train, loo_rows = len(data.y_train), min(int(loo_rows), len(data.y_train))
    features = RandomPatchFeatures(shape, n_patches=n_patches, patch_size=p, pool=pool, threshold=threshold,
                                   whiten_eps=whiten_eps, dictionary=dictionary, random_state=seed,
                                   device=device)
    side = shape[0] - p + 1

    def plan_of(how: str) -> dict:
        return readout_memory(features.n_features_out, n_classes, n_train, len(data.y_test), int(np.prod(shape)),
                              loo_rows, augment_copy="shift" in augment, chunk_images=chunk_images,
                              positions=side * side, patch_values=p * p * shape[2], solver=how)

    if solver == "auto":
        solver = choose_readout_solver(features.n_features_out, plan_of)
    check_choice("solver", solver, READOUT_SOLVERS)
    plan = plan_of(solver)
    check_memory(plan, f"the patch readout of {dataset} with {features.n_features_out} features")
    stage_peak = {}

    def stage_done(name: str) -> None:
        stage_peak[name] = peak_rss_bytes() / GB
        reset_peak_rss()

    if device is not None:
        import torch  # noqa: F401 - loaded before the baseline is read: the libraries are not the fit's
    baseline = current_rss_bytes() - plan["data"]        # interpreter and libraries, before the data
    reset_peak_rss()
    start = time.perf_counter()
    features.fit(X_train)

    def blocks(images):
        for rows, H in features.chunks(images, chunk_images):
            yield rows, (H.cpu().numpy() if hasattr(H, "cpu") else H)

    def feature_rows(images) -> np.ndarray:
        """Features (n, d) float32 of ``images``, block by block into one array: keeping the small
        blocks themselves would pin the allocator's freed block-sized regions (GBs of RSS)."""
        out = np.empty((len(images), features.n_features_out), dtype=np.float32)
        for rows, H in blocks(images):
            out[rows] = H
        return out

    equations = NormalEquations(features.n_features_out, n_classes, "float32")
    for images in _training_copies(X_train, augment):
        for rows, H in blocks(images):
            equations.update(H, targets[data.y_train[rows]])
    equations.release_scratch()                      # the gathered rows added; scratch and buffer freed
    feature_seconds = time.perf_counter() - start
    stage_done("sums")
    n_summed = equations.n_samples
    loo_index = np.sort(np.random.default_rng(seed).choice(n_train, size=loo_rows, replace=False))
    Y_loo = targets[data.y_train[loo_index]].astype(np.float64)
    labels = Y_loo.argmax(axis=1)
    if solver == "eigh":
        # the eigensolver may overwrite the Gram: nothing else needs it
        path = RidgePath(equations.gram, equations.hty, float(n_summed), n_summed, overwrite_gram=True)
        del equations
        spectrum_seconds = time.perf_counter() - start - feature_seconds
        stage_done("spectrum")
        rotated = path.rotate(feature_rows(X_train[loo_index]))    # (loo_rows, d) float64, once for every λ

        def evaluate(a: float) -> dict:
            found = path.leave_one_out([a], [(rotated, Y_loo)], sample=True, rotated=True)
            return {"alpha": float(a), "loo_mse": float(found["loo_mse"][0]),
                    "loo_accuracy": float(found["loo_accuracy"][0])}

        readout = path.weights
    else:
        hty = equations.hty.copy()
        gram = cholesky_gram(equations.gram, plan["loo"])                # upper triangle valid
        del equations
        spectrum_seconds = 0.0
        H_loo = feature_rows(X_train[loo_index])
        readouts = {}

        def evaluate(a: float) -> dict:
            try:
                readouts[float(a)], _, residual = cholesky_ridge(gram, hty, H_loo, Y_loo, a)
            except np.linalg.LinAlgError:       # G + λI not numerically positive definite: λ below the
                return {"alpha": float(a), "loo_mse": np.inf, "loo_accuracy": np.nan}   # Gram's rounding
            return {"alpha": float(a), "loo_mse": float(np.mean(np.sum(residual**2, axis=1))),
                    "loo_accuracy": 100 * float(np.mean((Y_loo - residual).argmax(axis=1) == labels))}

        readout = readouts.__getitem__

    if alpha is None:
        searched, interior = search_lambda(evaluate, alphas, factor=10.0, max_extend=11)
    else:
        searched, interior = [evaluate(alpha)], None
    infeasible = [r["alpha"] for r in searched if not np.isfinite(r["loo_mse"])]
    searched = [r for r in searched if np.isfinite(r["loo_mse"])]
    if not searched:
        raise np.linalg.LinAlgError(f"G + λI is not positive definite at any λ tried ({infeasible}): the "
                                    f"{dataset} readout with {features.n_features_out} features has no feasible λ")
    best = min(searched, key=lambda r: r["loo_mse"])["alpha"]
    if infeasible and interior:                 # interior among the feasible λ only: not at the floor
        interior = searched[0]["alpha"] < best
    W = readout(best).astype(np.float32)
    fit_seconds = time.perf_counter() - start
    loo_seconds = fit_seconds - feature_seconds - spectrum_seconds
    stage_done("loo")
    start = time.perf_counter()
    scores = np.empty((len(X_test), n_classes), dtype=np.float32)
    for rows, H in blocks(X_test):
        scores[rows] = H @ W
    predict_seconds = time.perf_counter() - start
    return {"dataset": dataset, "n_patches": int(n_patches), "pool": int(pool), "seed": int(seed),
            "device": "numpy" if device is None else str(device), "solver": solver,
            "augment": list(augment), "n_features": features.n_features_out, "n_train": int(n_summed),
            "accuracy": 100 * float(np.mean(scores.argmax(axis=1) == data.y_test)), "alpha": float(best),
            "interior": interior, "fit_seconds": fit_seconds, "feature_seconds": feature_seconds,
            "spectrum_seconds": spectrum_seconds, "loo_seconds": loo_seconds,
            "predict_seconds": predict_seconds, "peak_memory_gb": max(stage_peak.values()),
            "stage_peak_gb": stage_peak, "memory_plan_gb": {key: value / GB for key, value in plan.items()},
            "baseline_memory_gb": baseline / GB,
            "loo": {key: [r[key] for r in searched] for key in ("alpha", "loo_mse", "loo_accuracy")},
            "infeasible_alphas": infeasible, "gram_dtype": str(gram.dtype) if solver == "cholesky" else "float64",
            "loo_rows": int(len(loo_index))}


def _training_copies(X_train: np.ndarray, augment: tuple) -> Iterator[np.ndarray]:
    """The training images (N, H, W, C), then each augmented copy, one at a time."""
    yield X_train
    for how in augment:
        yield from augmented(X_train, how)


#: suffixes of the store's time keys that :func:`cost_curve` pairs with ``…/accuracy``
TIME_SUFFIXES = ("/train-total-seconds", "/train-seconds", "/fit-seconds")


def cost_curve(stored: dict) -> pd.DataFrame:
    """Every (accuracy, seconds) pair the results store holds: ``stored`` maps chapter → its results
    (as :func:`greenelm_book.store.results.load_all` returns). A time key ``<base>/train-total-seconds``,
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
    from ..store.results_cache import memoize

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
    the memory of one float32 Gram and one float64 factor (:func:`ultra_wide_memory`, checked before
    it starts).

    The normal equations are accumulated from float32 feature blocks (the library's float32 remedy),
    kept as a float32 Gram (4·d² bytes); for each λ of ``lambdas`` (extended ×``factor`` past an end
    until LOO's choice is interior, at most ``max_extend`` times) ``G + λI`` is formed in float64
    and factorised in place (Cholesky, single-threaded at orders ≥ ``LARGE_ORDER`` as the library
    routes them), giving the readout and the exact LOO residuals ``e_j / (1 − h_j)`` of ``loo_rows``
    random training rows. The test images are mapped once, at LOO's λ: their predicted labels are
    returned, never scored here (the test labels are read through the frontier's test gate). Returns
    {"paths": [{alpha, loo_mse, loo_accuracy, train_accuracy}], "alpha", "test_predicted" (M,),
    "interior", "gram_seconds", "solve_seconds", "loo_rows"}.
    """
    from greenelm import NormalEquations, RandomReLUFeatures, load_dataset

    from .scaling_law import search_lambda

    data = load_dataset(dataset, subset=subset)
    X_train, X_test = data.flat("train", np.float32), data.flat("test", np.float32)
    n_classes = int(data.y_train.max()) + 1
    targets = np.eye(n_classes, dtype=np.float32)
    check_memory(ultra_wide_memory(n_hidden, n_classes, len(X_train), len(X_test), X_train.shape[1],
                                   min(int(loo_rows), len(X_train)), chunk_rows),
                 f"the width-{n_hidden} Green-ELM of {dataset}")
    start = time.perf_counter()
    features = RandomReLUFeatures(X_train.shape[1], n_hidden, seed=seed, weight_scale="unit", dtype="float32")
    equations = NormalEquations(n_hidden, n_classes, "float32")
    for rows, H in features.chunks(X_train, chunk_rows):
        equations.update(H, targets[data.y_train[rows]])
    equations.release_scratch()              # the gathered rows added; the float32 scratch freed
    hty = equations.hty.copy()
    gram = np.asarray(equations.gram, dtype=np.float32, order="F")      # upper triangle valid
    del equations
    gram_seconds = time.perf_counter() - start
    rows = np.sort(np.random.default_rng(seed).choice(len(X_train), size=min(int(loo_rows), len(X_train)),
                                                      replace=False))
    H_loo = features.transform(X_train[rows])
    Y_loo = np.eye(n_classes)[data.y_train[rows]]
    labels = data.y_train[rows]
    readouts = {}                                    # λ -> W (d, k): the chosen one maps the test images

    def evaluate(alpha: float) -> dict:
        W, fitted, residual = cholesky_ridge(gram, hty, H_loo, Y_loo, alpha)
        readouts[float(alpha)] = W.astype(np.float32)
        return {"alpha": float(alpha), "loo_mse": float(np.mean(np.sum(residual**2, axis=1))),
                "loo_accuracy": 100 * float(np.mean((Y_loo - residual).argmax(axis=1) == labels)),
                "train_accuracy": 100 * float(np.mean(fitted.argmax(axis=1) == labels))}

    start = time.perf_counter()
    path, interior = search_lambda(evaluate, lambdas, factor, max_extend)
    best = min(path, key=lambda r: r["loo_mse"])
    test_predicted = (features.transform(X_test) @ readouts[best["alpha"]]).argmax(axis=1)
    return {"paths": path, "alpha": best["alpha"], "test_predicted": test_predicted, "interior": bool(interior),
            "gram_seconds": gram_seconds, "solve_seconds": time.perf_counter() - start, "loo_rows": int(len(rows))}



# -- the paper's map stacked on the image features, and its d → ∞ limit -----------------------------
def standardised_patch_features(dataset: str, n_patches: int, seed: int, subset: int | None = None,
                                pool: int = 2, dictionary: str = "sampled", chunk_images: int = 8) -> dict:
    """Whitened-patch features of every training and test image of ``dataset``, each feature
    standardised by the training set's mean and standard deviation (a constant feature keeps scale 1):
    the input of the paper's random ReLU layer stacked on the image map. The identity view of
    :func:`standardised_patch_views` (no augmented copies).

    Returns {"X_train" (N, F) float32, "y_train" (N,), "X_test" (M, F) float32, "y_test" (M,),
    "seconds" (the map and the standardisation), "n_features" F = 2·K·pool²}.
    """
    features = standardised_patch_views(dataset, n_patches, seed, subset=subset, pool=pool, views=(),
                                        dictionary=dictionary, chunk_images=chunk_images)
    (X_train,), (X_test,) = features.pop("X_train"), features.pop("X_test")
    del features["views"]
    return {**features, "X_train": X_train, "X_test": X_test}


def stacked_readout(features: dict, n_hidden: int, seed: int, alphas=tuple(10.0 ** np.arange(-2, 5)),
                    weight_scale: str = "he", cv: str = "gcv") -> dict:
    """The paper's map on the image features: relu(F W + b) of width ``n_hidden`` (W ~ N(0, 2/F) for
    ``"he"``, b ~ N(0, 1), seed ``seed``) on :func:`standardised_patch_features`' output, then its
    ridge readout with λ from ``alphas`` by ``cv`` (``greenelm.ELMClassifierCV``: one
    eigendecomposition of the float64 Gram, exact GCV or LOO).

    Returns {"accuracy" (%), "alpha", "fit_seconds", "n_hidden"}.
    """
    from greenelm import ELMClassifierCV

    model = ELMClassifierCV(n_hidden=check_positive_int("n_hidden", n_hidden), alphas=list(alphas), cv=cv,
                            weight_scale=weight_scale, random_state=seed)
    start = time.perf_counter()
    model.fit(features["X_train"], features["y_train"])
    seconds = time.perf_counter() - start
    accuracy = 100 * float(np.mean(model.predict(features["X_test"]) == features["y_test"]))
    return {"accuracy": accuracy, "alpha": float(model.alpha_), "fit_seconds": seconds, "n_hidden": int(n_hidden)}


def stacked_kernel_limit(features: dict, jitter: float, weight_scale: str = "he", attempts: int = 3) -> dict:
    """The d → ∞ limit of :func:`stacked_readout`: arc-cosine kernel ridge (the kernel of the same
    W, b distribution) on all the training rows of ``features``, float32 in place (N² · 4 bytes),
    μ = jitter · mean diag K, the jitter ×10 after a failed factorisation (at most ``attempts``).

    Returns {"accuracy" (%), "predicted" (M,) test labels, "mu", "jitter", "n_train", "seconds"};
    raises ``LinAlgError`` after ``attempts`` failures.
    """
    from greenelm.kernels import kernel_ridge_predict

    X_train, y_train = features["X_train"], features["y_train"]
    targets = np.eye(int(y_train.max()) + 1)[y_train]
    for _ in range(int(attempts)):
        start = time.perf_counter()
        try:
            scores, info = kernel_ridge_predict(X_train, targets, features["X_test"], jitter=jitter,
                                                weight_scale=weight_scale)
        except np.linalg.LinAlgError:
            jitter *= 10
            continue
        predicted = scores.argmax(1)
        return {"accuracy": 100 * float(np.mean(predicted == features["y_test"])), "predicted": predicted,
                "mu": float(info["mu"]),
                "jitter": float(jitter), "n_train": len(y_train), "seconds": time.perf_counter() - start}
    raise np.linalg.LinAlgError(f"the stacked arc-cosine kernel did not factorise up to jitter {jitter / 10:g}")


def held_out_split(n: int, n_fit: int, n_validation: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """The fitted and held-out rows of the stacked limit's ridge choice: the first ``n_fit`` and the
    next ``n_validation`` of seed ``seed``'s permutation of ``n`` rows, each sorted."""
    order = np.random.default_rng(seed).permutation(n)
    return np.sort(order[:n_fit]), np.sort(order[n_fit:n_fit + n_validation])


def standardised_patch_views(dataset: str, n_patches: int, seed: int, subset: int | None = None, pool: int = 2,
                             views=("flip",), dictionary: str = "sampled", chunk_images: int = 8) -> dict:
    """:func:`standardised_patch_features` of every image and of its augmented copies (``views``:
    names :func:`augmented` knows, e.g. ``("flip",)`` for the mirror image), each standardised by the
    training images' own mean and standard deviation (one affine map for every view), computed in
    float64 over row blocks: no float64 copy of the (N, F) features.

    Returns {"X_train": [(N, F) float32: the images', then each copy's], "X_test": [(M, F) float32, the
    same order], "y_train", "y_test", "seconds", "n_features", "views": ("identity", *copies)}.
    """
    from greenelm import RandomPatchFeatures, load_dataset

    shape, p = IMAGE_SHAPES[dataset]
    views = tuple(views)
    for how in views:
        check_choice("view", how, AUGMENTATIONS)
    data = load_dataset(dataset, subset=subset)
    start = time.perf_counter()
    features = RandomPatchFeatures(shape, n_patches=check_positive_int("n_patches", n_patches), patch_size=p,
                                   pool=pool, dictionary=dictionary, random_state=seed)
    images = {"train": data.flat("train", np.float32).reshape((-1,) + shape),
              "test": data.flat("test", np.float32).reshape((-1,) + shape)}
    features.fit(images["train"])
    mapped = {"train": [], "test": []}
    for part, originals in images.items():
        for copy in [originals] + [c for how in views for c in augmented(originals, how)]:
            out = np.empty((len(copy), features.n_features_out), dtype=np.float32)
            for rows, block in features.chunks(copy, chunk_images):
                out[rows] = block
            mapped[part].append(out)
    del images
    train = mapped["train"][0]
    total = np.zeros(train.shape[1])
    for rows in row_chunks(len(train), 4096):
        total += train[rows].sum(axis=0, dtype=np.float64)
    mean = total / len(train)
    squares = np.zeros(train.shape[1])
    for rows in row_chunks(len(train), 4096):
        centred = train[rows].astype(np.float64) - mean
        squares += np.einsum("ij,ij->j", centred, centred)
    scale = np.sqrt(squares / len(train))
    scale = np.where(scale > 0, scale, 1.0)
    for out in mapped["train"] + mapped["test"]:
        for rows in row_chunks(len(out), 4096):
            out[rows] -= mean.astype(np.float32)
            out[rows] /= scale.astype(np.float32)
    return {"X_train": mapped["train"], "y_train": data.y_train, "X_test": mapped["test"], "y_test": data.y_test,
            "seconds": time.perf_counter() - start, "n_features": features.n_features_out,
            "views": ("identity",) + tuple(f"{how} {i + 1}" if how == "shift" else how
                                           for how in views for i in range(4 if how == "shift" else 1))}


def held_out_patch_views(dataset: str, n_patches: int, seed: int, *, subset: int | None, n_validation: int,
                         pool: int = 2, views=()) -> dict:
    """The training images only, for a benchmark that compares variants: :func:`patch_views` of the
    first ``subset`` training images (None: all) and of their copies ``views``, split into
    ``n_validation`` validation rows and fit rows (the rest) by seed ``seed``'s
    ``greenelm.kernel_limit.held_out_rows`` (the split of the library's held-out choices). The test
    images are neither mapped nor scored. The features are standardised by the statistics of all the
    ``subset`` images (no labels enter them).

    Returns {"X_fit": [(n_fit, F) float32 per view], "y_fit", "X_validation": [(n_validation, F)
    float32 per view], "y_validation", "seconds", "n_features", "views"}.
    """
    from greenelm.kernel_limit import held_out_rows

    features = patch_views(dataset, n_patches, seed, subset=subset, pool=pool, views=views, test=False)
    fit_rows, validation_rows = held_out_rows(len(features["y_train"]), None,
                                              check_positive_int("n_validation", n_validation), seed)
    every_view, y = features.pop("X_train"), np.asarray(features["y_train"])
    return {"X_fit": [view[fit_rows] for view in every_view], "y_fit": y[fit_rows],
            "X_validation": [view[validation_rows] for view in every_view], "y_validation": y[validation_rows],
            "seconds": features["seconds"], "n_features": features["n_features"], "views": features["views"]}


def patch_views(dataset: str, n_patches: int, seed: int, *, patch_size: int | None = None, subset: int | None = None,
                pool: int = 2, views=(), dictionary: str = "sampled", chunk_images: int = 8,
                threshold: float | None = None, whiten_eps: float | None = None, test: bool = True) -> dict:
    """:func:`standardised_patch_views` with the map's settings as parameters: ``patch_size`` p (p × p
    patches; None: the dataset's own, :data:`IMAGE_SHAPES`), the ReLU split's ``threshold`` and the
    whitening's ``whiten_eps`` (None: ``RandomPatchFeatures``' own); the same arrays at the dataset's
    own (tested). With ``test=False`` the test images are not mapped (``X_test`` is empty).
    ``standardised_patch_views`` keeps its own copy of these lines because the results-cache keys of
    the frontier's longest computations (hours of kernel limits) follow its code; the next rebuild of
    that cache can let it call this one.

    Returns {"X_train": [(N, F) float32 per view], "X_test": [(M, F) float32 per view], "y_train",
    "y_test", "seconds", "n_features", "views", "patch_size", "threshold", "whiten_eps"}.
    """
    from greenelm import RandomPatchFeatures, load_dataset

    shape, p = IMAGE_SHAPES[dataset]
    p = p if patch_size is None else check_positive_int("patch_size", patch_size)
    views = tuple(views)
    for how in views:
        check_choice("view", how, AUGMENTATIONS)
    data = load_dataset(dataset, subset=subset)
    start = time.perf_counter()
    given = {name: value for name, value in (("threshold", threshold), ("whiten_eps", whiten_eps)) if value is not None}
    features = RandomPatchFeatures(shape, n_patches=check_positive_int("n_patches", n_patches), patch_size=p,
                                   pool=pool, dictionary=dictionary, random_state=seed, **given)
    images = {"train": data.flat("train", np.float32).reshape((-1,) + shape)}
    if test:
        images["test"] = data.flat("test", np.float32).reshape((-1,) + shape)
    features.fit(images["train"])
    mapped = {"train": [], "test": []}
    for part, originals in images.items():
        for copy in [originals] + [c for how in views for c in augmented(originals, how)]:
            out = np.empty((len(copy), features.n_features_out), dtype=np.float32)
            for rows, block in features.chunks(copy, chunk_images):
                out[rows] = block
            mapped[part].append(out)
    del images
    train = mapped["train"][0]
    total = np.zeros(train.shape[1])
    for rows in row_chunks(len(train), 4096):
        total += train[rows].sum(axis=0, dtype=np.float64)
    mean = total / len(train)
    squares = np.zeros(train.shape[1])
    for rows in row_chunks(len(train), 4096):
        centred = train[rows].astype(np.float64) - mean
        squares += np.einsum("ij,ij->j", centred, centred)
    scale = np.sqrt(squares / len(train))
    scale = np.where(scale > 0, scale, 1.0)
    for out in mapped["train"] + mapped["test"]:
        for rows in row_chunks(len(out), 4096):
            out[rows] -= mean.astype(np.float32)
            out[rows] /= scale.astype(np.float32)
    return {"X_train": mapped["train"], "y_train": data.y_train, "X_test": mapped["test"], "y_test": data.y_test,
            "seconds": time.perf_counter() - start, "n_features": features.n_features_out, "patch_size": p,
            "threshold": features.threshold, "whiten_eps": features.whiten_eps,
            "views": ("identity",) + tuple(f"{how} {i + 1}" if how == "shift" else how
                                           for how in views for i in range(4 if how == "shift" else 1))}
