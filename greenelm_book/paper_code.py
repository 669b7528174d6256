"""The paper's appendix code, as published; only data loading is adapted.

Listing 1 ("One-Shot Linear Matrix Solver") trains Green-ELM on MNIST with ``np.random.seed(42)``,
W1, b1 ~ N(0, 1), and ``np.linalg.pinv(H) @ Y`` on the whole training set.  The public repository
behind the paper trains the same code on the first ``slice_size = 20000`` samples; ``n_train``
reproduces that.  Listing 2's ``solve_green_elm`` is the solver switch used for Table II.

These functions are the reference that greenelm is compared with; they hold the whole N × d ``H``.
"""

from __future__ import annotations

import time

import numpy as np


def listing1(X_train_uint8, y_train, X_test_uint8, y_test, n_hidden: int = 2000,
             n_train: int | None = None, solve: str = "pinv", seed: int = 42) -> dict:
    """Appendix listing 1 on (N, 784) uint8 images; returns accuracy (%) and phase times (s).

    ``solve="pinv"`` is the listing; ``solve="normal"`` replaces its pinv by the commented-out
    ``np.linalg.solve`` of the λ = 1e-3 normal equations (the paper's LU variant).
    """
    np.random.seed(seed)
    X = X_train_uint8.reshape(-1, 28 * 28).astype(np.float32) / 255.0
    Y = np.eye(10)[y_train]
    if n_train is not None:
        X, Y = X[:n_train], Y[:n_train]
    start = time.perf_counter()
    W1 = np.random.randn(784, n_hidden)
    b1 = np.random.randn(n_hidden)
    H = np.maximum(0, X @ W1 + b1)
    features = time.perf_counter() - start
    start = time.perf_counter()
    if solve == "pinv":
        W2_out = np.linalg.pinv(H) @ Y
    elif solve == "normal":
        W2_out, _ = solve_green_elm(H, Y, variant="lud", lam=1e-3)
    else:
        raise ValueError(f"unknown solve {solve!r}; choose 'pinv' or 'normal'")
    solve_seconds = time.perf_counter() - start
    X_test = X_test_uint8.reshape(-1, 28 * 28) / 255.0
    H_test = np.maximum(0, X_test @ W1 + b1)
    preds = np.argmax(H_test @ W2_out, axis=1)
    accuracy = np.mean(preds == y_test)
    return {"accuracy": accuracy * 100, "feature_seconds": features, "solve_seconds": solve_seconds,
            "fit_seconds": features + solve_seconds, "n_train": len(X), "n_hidden": n_hidden}


def solve_green_elm(H, Y, variant: str = "cholesky", lam: float = 1e-3):
    """Appendix listing 2's solver switch, as published: returns ``(W2, solve_time)``."""
    N, d = H.shape
    start_time = time.time()
    if variant == "pinv":
        W2 = np.linalg.pinv(H) @ Y
    elif variant == "lud":
        A = np.dot(H.T, H) + lam * np.eye(d)
        B = np.dot(H.T, Y)
        W2 = np.linalg.solve(A, B)
    elif variant == "cholesky":
        A = np.dot(H.T, H) + lam * np.eye(d)
        B = np.dot(H.T, Y)
        L = np.linalg.cholesky(A)
        W2 = np.linalg.solve(L.T, np.linalg.solve(L, B))
    else:
        raise ValueError(f"Unknown variant: {variant}")
    solve_time = time.time() - start_time
    return W2, solve_time
