"""The measured workloads: each runs in its own process (``greenelm_book.bench.run_isolated``).

Every function loads MNIST itself, times only the fit (and, separately, the prediction), and
returns a JSON-friendly dict.  Data loading and float conversion happen before the timer, and
``rss_before_fit_bytes`` (the RSS just before the fit) and ``rss_after_fit_bytes`` (the peak RSS
during the fit and, for listing 1, its prediction; the peak mark is reset before the fit) let the
report separate what the fit adds from the input and the libraries.  A failure (``LinAlgError``, a crash) propagates so
the parent records it.
"""

from __future__ import annotations

import contextlib
import time

import numpy as np

from greenelm_book.bench import (blas_info, current_rss_bytes, flat_rows, gemm_peak, peak_rss_bytes,
                            reset_peak_rss)


def _kernels() -> list[str]:
    return sorted({f"{b['library']}: {b['architecture']}" for b in blas_info() if b.get("architecture")})


def _mnist(n_train=None):
    from greenelm.data import load_dataset

    ds = load_dataset("mnist")
    n = len(ds.y_train) if n_train is None else int(n_train)
    return ds, n


def peak(repeats: int = 5) -> dict:
    """The machine's GEMM peak (GFLOP/s, float64 and float32) and the BLAS kernels loaded."""
    return {"float64": gemm_peak("float64", repeats=repeats), "float32": gemm_peak("float32", repeats=repeats),
            "blas": blas_info()}


def greenelm_fit(n_hidden: int, dtype: str = "float64", weight_scale: str = "unit",
                 solver: str = "cholesky", alpha: float = 1e-3, n_train=None, seed: int = 0,
                 chunk_size: int = 4096) -> dict:
    """``ELMClassifier.fit`` on MNIST (N, 784) given in ``dtype``; accuracy on the 10,000 test images."""
    from greenelm import ELMClassifier

    ds, n = _mnist(n_train)
    X, y = flat_rows(ds, "train", n, dtype), ds.y_train[:n]
    X_test = flat_rows(ds, "test", None, dtype)
    model = ELMClassifier(n_hidden=n_hidden, alpha=alpha, solver=solver, weight_scale=weight_scale,
                          dtype=dtype, chunk_size=chunk_size, random_state=seed)
    reset_peak_rss()
    before = current_rss_bytes()
    start = time.perf_counter()
    model.fit(X, y)
    fit_seconds = time.perf_counter() - start
    after_fit = peak_rss_bytes()
    start = time.perf_counter()
    accuracy = 100 * float(np.mean(model.predict(X_test) == ds.y_test))
    predict_seconds = time.perf_counter() - start
    return {"fit_seconds": fit_seconds, "predict_seconds": predict_seconds, "accuracy": accuracy,
            "n_train": n, "input_bytes": X.nbytes, "rss_before_fit_bytes": before,
            "rss_after_fit_bytes": after_fit, "kernels": _kernels()}


def gram_upper_blocked(H: np.ndarray, G: np.ndarray, block: int = 1024) -> None:
    """``G += HᵀH`` on the upper block triangle by GEMMs of column blocks (a prototype to compare
    with ``syrk``): block row i gets ``H[:, i]ᵀ H[:, i:]``, ≈ N·d² + N·d·block FLOPs in all."""
    d = H.shape[1]
    for i in range(0, d, block):
        G[i:i + block, i:] += H[:, i:i + block].T @ H[:, i:]


def greenelm_phases(n_hidden: int, dtype: str = "float64", n_train=None, seed: int = 0,
                    chunk_size: int = 4096, alpha: float = 1e-3, compare_gram: bool = True) -> dict:
    """Where a greenelm fit spends its time: the estimator's steps, one by one, on MNIST.

    features (``RandomReLUFeatures.transform``), Gram + HᵀY (``NormalEquations.update``: syrk and a
    GEMM), the d × d solve (``solvers.solve``) and prediction; ``hty`` times the HᵀY product alone
    on the same blocks (it is part of the update); with ``compare_gram`` the same Gram is also
    formed by a full GEMM ``HᵀH`` (``gram_gemm``) and by :func:`gram_upper_blocked` (``gram_blocked``),
    outside the fit, to compare with ``syrk``.
    """
    from greenelm.features import RandomReLUFeatures
    from greenelm.solvers import NormalEquations, solve

    ds, n = _mnist(n_train)
    X, y = flat_rows(ds, "train", n, dtype), ds.y_train[:n]
    Y = np.eye(10, dtype=dtype)[y]
    times = dict.fromkeys(("setup", "features", "update", "hty", "gram_gemm", "gram_blocked", "solve", "predict"),
                          0.0)
    start = time.perf_counter()
    features = RandomReLUFeatures(X.shape[1], n_hidden, seed, dtype=dtype)
    equations = NormalEquations(n_hidden, 10, dtype)
    times["setup"] = time.perf_counter() - start
    if compare_gram:
        full = np.empty((n_hidden, n_hidden), dtype=dtype)
        blocked = np.zeros((n_hidden, n_hidden), dtype=dtype)
    for lo in range(0, n, chunk_size):
        rows = slice(lo, min(lo + chunk_size, n))
        start = time.perf_counter()
        H = features.transform(X[rows])
        times["features"] += time.perf_counter() - start
        start = time.perf_counter()
        equations.update(H, Y[rows])
        times["update"] += time.perf_counter() - start
        start = time.perf_counter()
        H.T @ Y[rows]
        times["hty"] += time.perf_counter() - start
        if compare_gram:
            start = time.perf_counter()
            np.matmul(H.T, H, out=full)
            times["gram_gemm"] += time.perf_counter() - start
            start = time.perf_counter()
            gram_upper_blocked(H, blocked)
            times["gram_blocked"] += time.perf_counter() - start
    start = time.perf_counter()
    W2 = solve(equations, "cholesky", alpha)
    times["solve"] = time.perf_counter() - start
    X_test = ds.flat("test", dtype)
    start = time.perf_counter()
    scores = features.transform(X_test) @ W2.astype(dtype)
    times["predict"] = time.perf_counter() - start
    accuracy = 100 * float(np.mean(scores.argmax(1) == ds.y_test))
    return {"seconds": times, "accuracy": accuracy, "n_train": n, "kernels": _kernels()}


def listing1_fit(n_hidden: int, solve: str = "normal", n_train=None) -> dict:
    """The paper's appendix listing 1 as published (``greenelm_book.paper_code.listing1``)."""
    from greenelm_book.paper_code import listing1

    ds, n = _mnist(n_train)
    reset_peak_rss()
    before = current_rss_bytes()
    out = listing1(ds.x_train[:n], ds.y_train[:n], ds.x_test, ds.y_test, n_hidden=n_hidden, solve=solve)
    out.update(input_bytes=n * 784 * 4, rss_before_fit_bytes=before, rss_after_fit_bytes=peak_rss_bytes(),
               kernels=_kernels())
    return out


def listing_features(X_uint8, n_hidden: int, seed: int = 42):
    """Listing 1's Phase I, line for line: legacy ``np.random.seed``, W1, b1 ~ N(0, 1), float64 H."""
    np.random.seed(seed)
    X = X_uint8.reshape(-1, 28 * 28).astype(np.float32) / 255.0
    W1 = np.random.randn(784, n_hidden)
    b1 = np.random.randn(n_hidden)
    return X, W1, b1, np.maximum(0, X @ W1 + b1)


def same_h_solvers(n_hidden: int, variants=("lud", "cholesky", "ridge", "greenelm"), chunk_size: int = 4096,
                   alpha: float = 1e-3) -> dict:
    """Listing 2's ``solve_green_elm`` variants ('pinv', 'lud', 'cholesky'), scikit-learn's Ridge
    ('ridge'), greenelm's streamed normal equations ('greenelm') and greenelm's exact minimum-norm
    solve ('gelsd'), all on listing 1's features H (one H, built once).

    Returns per variant its solve time (s), accuracy (%), and the fraction of test predictions on
    which it disagrees with greenelm's readout of the same H.
    """
    from greenelm_book.paper_code import solve_green_elm
    from greenelm.solvers import NormalEquations, solve

    ds, n = _mnist()
    start = time.perf_counter()
    _, W1, b1, H = listing_features(ds.x_train, n_hidden)
    feature_seconds = time.perf_counter() - start
    Y = np.eye(10)[ds.y_train]
    H_test = np.maximum(0, (ds.x_test.reshape(-1, 784) / 255.0) @ W1 + b1)
    results, predictions, exact = {}, {}, {}
    for variant in variants:
        start = time.perf_counter()
        if variant == "gelsd":
            from greenelm.solvers import solve_min_norm

            W2 = solve_min_norm(H, Y)
        elif variant == "ridge":
            from sklearn.linear_model import Ridge

            W2 = Ridge(alpha=alpha, solver="cholesky", fit_intercept=False).fit(H, Y).coef_.T
        elif variant == "greenelm":
            equations = NormalEquations(n_hidden, 10)
            for lo in range(0, n, chunk_size):
                equations.update(H[lo:lo + chunk_size], Y[lo:lo + chunk_size])
            W2 = solve(equations, "cholesky", alpha)
        else:
            W2, _ = solve_green_elm(H, Y, variant=variant, lam=alpha)
        seconds = time.perf_counter() - start
        scores = H_test @ W2
        if variant in ("pinv", "gelsd"):
            exact[variant] = scores
        predictions[variant] = scores.argmax(1)
        results[variant] = {"solve_seconds": seconds,
                            "accuracy": 100 * float(np.mean(predictions[variant] == ds.y_test))}
    if "greenelm" in predictions:
        for variant in variants:
            results[variant]["disagreement_vs_greenelm"] = float(
                np.mean(predictions[variant] != predictions["greenelm"]))
    pinv_vs_gelsd = None
    if len(exact) == 2:
        pinv_vs_gelsd = {"max_score_difference": float(np.abs(exact["pinv"] - exact["gelsd"]).max()),
                         "prediction_disagreement": float(np.mean(predictions["pinv"] != predictions["gelsd"]))}
    return {"feature_seconds": feature_seconds, "variants": results, "pinv_vs_gelsd": pinv_vs_gelsd, "n_train": n,
            "h_bytes": H.nbytes, "kernels": _kernels()}


def large_order(order: int = 16000, solver: str = "cholesky", seed: int = 0) -> dict:
    """An SPD system of order ``order`` through ``solvers.solve_normal_equations``.

    ``A = M + Mᵀ + 2·order·I`` with M ~ U[0, 1) is symmetric and diagonally dominant, hence SPD
    (built in O(order²)); returns the solve time and the relative residual ‖A x − b‖ / ‖b‖.
    """
    from greenelm.solvers import LARGE_ORDER, solve_normal_equations

    rng = np.random.default_rng(seed)
    A = rng.random((order, order))
    A += A.T
    A.flat[:: order + 1] += 2.0 * order
    A = np.asfortranarray(A)
    b = rng.standard_normal((order, 10))
    start = time.perf_counter()
    x = solve_normal_equations(A, b, 0.0, solver)
    seconds = time.perf_counter() - start
    residual = float(np.linalg.norm(A @ x - b) / np.linalg.norm(b))
    return {"order": order, "solver": solver, "seconds": seconds, "relative_residual": residual,
            "routed_to_torch": order >= LARGE_ORDER, "large_order": LARGE_ORDER,
            "kernels": _kernels()}


def streaming_latency(n_hidden: int = 4000, batch: int = 250, n_updates: int = 8, n_initial: int = 8000,
                      seed: int = 0, alpha: float = 1e-3) -> dict:
    """Per-update latency (s) of the RLS update at width d and batch B on MNIST features: the paper's
    listing-3 update and greenelm.streaming's (see ``benchmarks.streaming_adapters``)."""
    import importlib

    try:
        streaming = importlib.import_module("greenelm.streaming")
    except ImportError as error:
        return {"available": False, "reason": f"greenelm.streaming not importable ({error})"}
    import torch

    from greenelm.features import RandomReLUFeatures

    from . import streaming_adapters

    ds, _ = _mnist()
    rows = n_initial + batch * n_updates
    H = RandomReLUFeatures(784, n_hidden, seed).transform(flat_rows(ds, "train", rows))
    Y = np.eye(10)[ds.y_train[:rows]]
    return streaming_adapters.measure(streaming, torch, H, Y, n_initial, batch, n_updates, alpha)


def _gemm_rates(dtypes) -> dict:
    """Square 4096² GEMM rates (GFLOP/s, best of 2 after a warm-up) for each dtype, measured now."""
    return {dtype: gemm_peak(dtype, repeats=2)["best"] for dtype in dtypes}


def _chunk_parts(features, X_block, dtype: str) -> dict:
    """One 4,096-row block of the fit, its steps timed alone (seconds): the feature GEMM into a reused
    buffer, bias + ReLU, and the Gram's syrk on the same block (``dsyrk``/``ssyrk``, trans as in
    the fit)."""
    from scipy.linalg import blas

    n, d = X_block.shape[0], features.n_hidden
    H = np.empty((n, d), dtype=dtype)
    G = np.zeros((d, d), dtype=dtype, order="F")
    syrk = blas.dsyrk if dtype == "float64" else blas.ssyrk
    out = {}
    from greenelm.features import _product

    start = time.perf_counter()
    _product(X_block, features.W, H)                 # the fit's own feature GEMM
    out["feature_gemm"] = time.perf_counter() - start
    start = time.perf_counter()
    H += features.b
    np.maximum(H, 0, out=H)
    out["bias_relu"] = time.perf_counter() - start
    start = time.perf_counter()
    syrk(1.0, H.T, beta=0.0, c=G, trans=0, lower=0, overwrite_c=1)
    out["syrk"] = time.perf_counter() - start
    return out


#: the BLAS and LAPACK calls a greenelm fit makes (NumPy path), with the FLOPs of one call from its
#: arguments: gemm 2·m·n·k, syrk (trans=0) n²·k, syr2k 2·n²·k, Cholesky n³/3
_CLOCKED = {
    "gemm": (("sgemm", "dgemm"), lambda alpha, a, b, *args, **kw: 2.0 * a.shape[0] * a.shape[1] * b.shape[1]),
    "syrk": (("ssyrk", "dsyrk"), lambda alpha, a, *args, **kw: float(a.shape[0]) ** 2 * a.shape[1]),
    "syr2k": (("dsyr2k",), lambda alpha, a, b, *args, **kw: 2.0 * a.shape[0] ** 2 * a.shape[1]),
}


@contextlib.contextmanager
def blas_clock():
    """Time every call of SciPy's BLAS ``gemm``/``syrk``/``syr2k`` and of ``scipy.linalg.cho_factor``
    made inside the block (the module attributes a greenelm fit looks up at each call are wrapped, and
    restored on exit). Yields {kind: {"seconds", "gflop", "calls"}} for "gemm", "syrk", "syr2k" and
    "cholesky", filled as the calls happen; the wrappers add about a microsecond per call."""
    import scipy.linalg
    from scipy.linalg import blas

    clock = {kind: {"seconds": 0.0, "gflop": 0.0, "calls": 0} for kind in (*_CLOCKED, "cholesky")}
    patched = []

    def timed(kind, function, flops):
        def call(*args, **kwargs):
            start = time.perf_counter()
            result = function(*args, **kwargs)
            entry = clock[kind]
            entry["seconds"] += time.perf_counter() - start
            entry["gflop"] += flops(*args, **kwargs) / 1e9
            entry["calls"] += 1
            return result
        return call

    for kind, (names, flops) in _CLOCKED.items():
        for name in names:
            patched.append((blas, name, getattr(blas, name)))
            setattr(blas, name, timed(kind, getattr(blas, name), flops))
    patched.append((scipy.linalg, "cho_factor", scipy.linalg.cho_factor))
    scipy.linalg.cho_factor = timed("cholesky", scipy.linalg.cho_factor,
                                    lambda a, *args, **kw: a.shape[0] ** 3 / 3.0)
    try:
        yield clock
    finally:
        for module, name, original in patched:
            setattr(module, name, original)


def fit_floor(n_hidden: int, dtype: str = "float64", repeats: int = 5, n_train=None, seed: int = 0) -> dict:
    """A greenelm fit against its FLOP floor, both measured in this one process, interleaved.

    Each repeat measures the GEMM rate (4096², best of 2; float64, and float32 for a float32 fit),
    then one ``ELMClassifier.fit`` on MNIST (N, 784) with its BLAS and Cholesky calls clocked
    (:func:`blas_clock`: the time inside them and outside), then one 4,096-row block's steps alone
    (:func:`_chunk_parts`).  The floor of a repeat is :func:`greenelm_book.bench.flop_floor_seconds`
    at that repeat's rates, so machine load that changes between repeats moves both alike."""
    from greenelm import ELMClassifier
    from greenelm.solvers import fit_flops
    from greenelm_book.bench import flop_floor_seconds

    ds, n = _mnist(n_train)
    X, y = flat_rows(ds, "train", n, dtype), ds.y_train[:n]
    dtypes = ("float64",) if dtype == "float64" else ("float64", "float32")
    runs = []
    for _ in range(int(repeats)):
        rates = _gemm_rates(dtypes)
        model = ELMClassifier(n_hidden=n_hidden, alpha=1e-3, dtype=dtype, random_state=seed)
        with blas_clock() as clock:
            start = time.perf_counter()
            model.fit(X, y)
            seconds = time.perf_counter() - start
        floor = flop_floor_seconds(n, X.shape[1], n_hidden, 10, rates, dtype)
        blas_seconds = sum(entry["seconds"] for entry in clock.values())
        parts = _chunk_parts(model.features_, X[:4096], dtype)
        block = min(4096, n)
        rate = rates[dtype] * 1e9
        runs.append({"seconds": seconds, "floor_seconds": floor, "ratio": seconds / floor,
                     "blas": clock, "blas_seconds": blas_seconds, "outside_blas_seconds": seconds - blas_seconds,
                     "gemm_gflops": rates, "load_average_1min": __import__("os").getloadavg()[0],
                     "feature_gemm_vs_gemm": 2.0 * block * X.shape[1] * n_hidden / parts["feature_gemm"] / rate,
                     "syrk_vs_gemm": block * n_hidden**2 / parts["syrk"] / rate,
                     "bias_relu_share": parts["bias_relu"] / (parts["feature_gemm"] + parts["syrk"]
                                                              + parts["bias_relu"])})
        del model
    flops = fit_flops(n, X.shape[1], n_hidden, 10)
    return {"n_hidden": n_hidden, "dtype": dtype, "n_train": n, "gflop": flops.total / 1e9, "runs": runs,
            "kernels": _kernels()}


def streaming_floor(n_hidden: int = 4000, batch: int = 250, n_updates: int = 24, n_initial: int = 5000,
                    seed: int = 0, alpha: float = 1e-3) -> dict:
    """``StreamingRidge.update`` (per-call mode, float64) against its floor 3·d²·B FLOPs, in one process:
    after an initial fit on ``n_initial`` MNIST rows and one untimed update, ``n_updates`` batches of
    ``batch`` rows, a float64 GEMM rate (4096², one product, SciPy's BLAS) measured after every fourth update."""
    from greenelm import RandomReLUFeatures, StreamingRidge
    from greenelm_book.bench import gemm_flops

    ds, _ = _mnist()
    rows = n_initial + batch * (n_updates + 1)
    features = RandomReLUFeatures(784, n_hidden, seed)
    X = flat_rows(ds, "train", rows)
    Y = np.eye(10)[ds.y_train[:rows]]
    state = StreamingRidge(alpha=alpha).fit(features.transform(X[:n_initial]), Y[:n_initial])
    warm_up = slice(n_initial, n_initial + batch)       # one untimed update: first calls, first touches
    state.update(features.transform(X[warm_up]), Y[warm_up])
    n_initial += batch
    from scipy.linalg import blas

    # the rate through SciPy's BLAS, the library the update runs in (NumPy's would leave its own
    # threads spinning beside the next update)
    a = np.asfortranarray(np.random.default_rng(seed).standard_normal((4096, 4096)))
    product = np.empty_like(a, order="F")
    blas.dgemm(1.0, a, a, beta=0.0, c=product, overwrite_c=1)        # warm-up
    updates, rates = [], []
    for i in range(n_updates):
        block = slice(n_initial + i * batch, n_initial + (i + 1) * batch)
        H = features.transform(X[block])
        start = time.perf_counter()
        state.update(H, Y[block])
        updates.append(time.perf_counter() - start)
        if i % 4 == 3:
            start = time.perf_counter()
            blas.dgemm(1.0, a, a, beta=0.0, c=product, overwrite_c=1)
            rates.append(gemm_flops(4096, 4096, 4096) / (time.perf_counter() - start) / 1e9)
    floors = [3.0 * n_hidden**2 * batch / (rate * 1e9) for rate in rates]
    ratios = [t / floors[min(i // 4, len(floors) - 1)] for i, t in enumerate(updates)]
    return {"n_hidden": n_hidden, "batch": batch, "update_seconds": updates, "gemm_gflops": rates,
            "ratios": ratios, "kernels": _kernels()}
