"""Streaming-update latency through ``greenelm.streaming.StreamingRidge``: the paper's listing-3 update
(``method="listing3"``, the published torch function on torch tensors, and its NumPy transliteration)
beside greenelm's Cholesky update (NumPy and torch) and the information form."""

from __future__ import annotations

import statistics
import time

import numpy as np

#: (label, method, backend) of each timed update.
UPDATES = (("paper listing 3 (torch, as published)", "listing3", "torch"),
           ("paper listing 3 (NumPy transliteration)", "listing3", "numpy"),
           ("greenelm cholesky (NumPy/SciPy)", "cholesky", "numpy"),
           ("greenelm cholesky (torch)", "cholesky", "torch"),
           ("greenelm information form (update only)", "information", "numpy"))


def measure(streaming, torch, H, Y, n_initial, batch, n_updates, alpha) -> dict:
    """Median per-update latency (s) of each update after the same exact initial fit on ``n_initial``
    rows, and each final readout's largest difference from the batch ridge solution on all rows."""
    from greenelm.solvers import NormalEquations, solve

    rows_used = n_initial + batch * n_updates
    exact = NormalEquations(H.shape[1], Y.shape[1])
    exact.update(H[:rows_used], Y[:rows_used])
    W_exact = solve(exact, "cholesky", alpha)
    out = {"available": True, "n_hidden": H.shape[1], "batch": batch, "n_updates": n_updates,
           "dtype": "float64", "device": "cpu", "updates": []}
    for label, method, backend in UPDATES:
        to = (lambda a: torch.from_numpy(np.ascontiguousarray(a))) if backend == "torch" else (lambda a: a)
        try:
            state = streaming.StreamingRidge.from_batch(to(H[:n_initial]), to(Y[:n_initial]), alpha=alpha,
                                                        method=method)
            times = []
            for i in range(n_updates):
                rows = slice(n_initial + i * batch, n_initial + (i + 1) * batch)
                Hb, Yb = to(H[rows]), to(Y[rows])
                start = time.perf_counter()
                state.update(Hb, Yb)
                times.append(time.perf_counter() - start)
            W = state.coef_
            W = W.cpu().numpy() if hasattr(W, "cpu") else np.asarray(W)
            out["updates"].append({"update": label, "method": method, "backend": backend,
                                   "median_seconds": statistics.median(times), "seconds": times,
                                   "max_difference_from_batch_solution": float(np.abs(W - W_exact).max())})
        except Exception as error:  # a failing update is a result
            out["updates"].append({"update": label, "method": method, "backend": backend,
                                   "error": f"{type(error).__name__}: {error}"})
    times = {u["update"]: u.get("median_seconds") for u in out["updates"]}
    paper, ours = times.get(UPDATES[0][0]), times.get(UPDATES[2][0])
    out["ratio_paper_torch_to_greenelm_numpy"] = paper / ours if paper and ours else None
    return out
