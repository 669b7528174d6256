"""The streaming chapter's harness (Table V): stream data, timed updates, the batch oracle,
the replay-SGD baseline and the float32 drift experiment, around :class:`greenelm.streaming.StreamingRidge`.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.linalg import blas

from greenelm._validation import check_positive_int
from greenelm.features import row_chunks
from greenelm.solvers import NormalEquations, is_torch, solve_normal_equations
from greenelm.streaming import StreamingRidge

# -- the chapter's experiments ---------------------------------------------------------------
BACKENDS = ("numpy", "torch-cpu", "torch-cuda")


def available_backends() -> list[str]:
    """``numpy``, ``torch-cpu``, and ``torch-cuda`` when torch sees a GPU."""
    import torch

    return [b for b in BACKENDS if b != "torch-cuda" or torch.cuda.is_available()]


def device_name(backend: str) -> str:
    """Human-readable processor of a backend (CPU model, or the CUDA device's name)."""
    if backend == "torch-cuda":
        import torch

        return torch.cuda.get_device_name(0)
    import os

    from ..bench import cpu_model

    return f"{cpu_model()} ({len(os.sched_getaffinity(0))} cores)"


def _to_backend(array, backend: str):
    if backend == "numpy":
        return array
    import torch

    return torch.as_tensor(array, device="cuda" if backend == "torch-cuda" else "cpu")


def _as_numpy(array) -> np.ndarray:
    return array.detach().cpu().numpy() if is_torch(array) else np.asarray(array)


def _equations_on(equations: NormalEquations, backend: str) -> NormalEquations:
    """A copy of float64 NumPy normal equations on ``backend``."""
    moved = equations.copy()
    moved.gram, moved.hty = _to_backend(moved.gram, backend), _to_backend(moved.hty, backend)
    return moved


@dataclass
class StreamData:
    """Hidden features of one split for a stream: initial rows, streamed rows, test rows.

    ``H_*`` (n, d) float64 NumPy, ``y_*`` labels, ``classes`` (k,); ``feature_seconds``: time
    of the training rows' features.
    """

    H_initial: np.ndarray
    y_initial: np.ndarray
    H_stream: np.ndarray
    y_stream: np.ndarray
    H_test: np.ndarray
    y_test: np.ndarray
    classes: np.ndarray
    feature_seconds: float = float("nan")

    def one_hot(self, y) -> np.ndarray:
        return (np.asarray(y)[:, None] == self.classes[None, :]).astype(np.float64)

    @property
    def n_hidden(self) -> int:
        return self.H_initial.shape[1]

    def batches(self, batch_size: int, n_batches: int | None = None) -> list[slice]:
        """Consecutive stream batches of ``batch_size`` rows (listing 3 drops a partial last one)."""
        batch_size = check_positive_int("batch_size", batch_size)
        count = len(self.y_stream) // batch_size
        count = count if n_batches is None else min(count, check_positive_int("n_batches", n_batches))
        if count == 0:
            raise ValueError(f"the stream of {len(self.y_stream)} rows holds no batch of {batch_size}")
        return [slice(i * batch_size, (i + 1) * batch_size) for i in range(count)]

    def accuracy(self, W) -> float:
        """Test accuracy (%) of readout W (d, k)."""
        return 100.0 * float(np.mean(self.classes[np.argmax(self.H_test @ _as_numpy(W), 1)] == self.y_test))


def hidden_features(features, X, chunk_rows: int = 4096) -> np.ndarray:
    """All of ``features.transform(X)`` as one float64 (N, d) array, computed in row chunks."""
    H = np.empty((len(X), features.n_hidden), dtype=np.float64)
    for rows, block in features.chunks(X, chunk_rows):
        H[rows] = _as_numpy(block)
    return H


def make_stream_data(split, features, initial_fraction: float = 0.8) -> StreamData:
    """Features of ``split`` (X_train, y_train, X_test, y_test): the first ``initial_fraction`` of
    the training rows for the initial fit, the rest for the stream (listing 3's 80 / 20)."""
    if not 0 < initial_fraction < 1:
        raise ValueError(f"initial_fraction must lie in (0, 1), got {initial_fraction!r}")
    n_initial = int(len(split.y_train) * initial_fraction)
    start = time.perf_counter()
    H = hidden_features(features, split.X_train)
    seconds = time.perf_counter() - start
    return StreamData(H[:n_initial], split.y_train[:n_initial], H[n_initial:], split.y_train[n_initial:],
                      hidden_features(features, split.X_test), split.y_test, np.unique(split.y_train),
                      seconds)


def oracle_accuracy(split, n_hidden: int, seed: int, alpha: float = 1e-3, weight_scale: str = "he",
                    bias: str = "normal", chunk_rows: int = 4096) -> float:
    """Test accuracy (%) of the batch ridge readout on ``split`` (X_train (N, D), y_train, X_test,
    y_test) through seed ``seed``'s projection (listing 3's: ``he`` weights, normal bias), fitted
    by Cholesky from the Gram accumulated in row chunks (H is never held whole)."""
    from greenelm.features import RandomReLUFeatures

    X_train = np.asarray(split.X_train)
    features = RandomReLUFeatures(X_train.shape[1], check_positive_int("n_hidden", n_hidden), int(seed),
                                  weight_scale=weight_scale, bias=bias)
    classes = np.unique(split.y_train)
    equations = NormalEquations(n_hidden, len(classes))
    for rows, block in features.chunks(X_train, chunk_rows):
        labels = np.asarray(split.y_train)[rows]
        equations.update(np.asarray(_as_numpy(block), dtype=np.float64),
                         (labels[:, None] == classes[None, :]).astype(np.float64))
    W = solve_normal_equations(*equations.as_float64(), alpha, "cholesky")
    scores = hidden_features(features, split.X_test, chunk_rows) @ W
    return 100.0 * float(np.mean(classes[np.argmax(scores, 1)] == np.asarray(split.y_test)))


def batch_oracle(data: StreamData, alpha: float = 1e-3, chunk_rows: int = 4096) -> tuple[np.ndarray, float]:
    """The batch ridge readout on every training row (initial and streamed) from their features,
    as ``ELMClassifier.fit`` solves it (Gram by ``syrk`` in row chunks, Cholesky); returns
    ``(W2 (d, k), seconds)`` — the seconds exclude the features (``data.feature_seconds``)."""
    start = time.perf_counter()
    equations = NormalEquations(data.n_hidden, len(data.classes))
    for H, y in ((data.H_initial, data.y_initial), (data.H_stream, data.y_stream)):
        for rows in row_chunks(len(y), chunk_rows):
            equations.update(H[rows], data.one_hot(y[rows]))
    W = solve_normal_equations(*equations.as_float64(), alpha, "cholesky")
    return W, time.perf_counter() - start


def initial_equations(data: StreamData) -> tuple[NormalEquations, float]:
    """Normal equations of the initial rows (float64 NumPy) and the seconds they took."""
    start = time.perf_counter()
    equations = NormalEquations(data.n_hidden, len(data.classes))
    equations.update(data.H_initial, data.one_hot(data.y_initial))
    return equations, time.perf_counter() - start


def _timed_update(state: StreamingRidge, H, Y) -> float:
    """Seconds of one update until its weights are ready (the device synchronised; the
    information form's on-demand solve included, so every method ends with usable weights)."""
    state.synchronize()
    start = time.perf_counter()
    state.update(H, Y)
    if state.method == "information":
        state.coef_
    state.synchronize()
    return time.perf_counter() - start


def time_updates(states: dict, data: StreamData, batches, progress: bool = True) -> pd.DataFrame:
    """Stream ``batches`` of ``data`` into every state of ``states`` ({(method, backend): state}),
    interleaved: each batch goes to every state in turn, so all implementations are timed under
    the same machine load.  As listing 3, each state first makes one warm-up update (with the
    first initial rows, on a throwaway copy), and each batch's H and Y are on the backend's
    device before the clock starts.  Returns one row per (method, backend, batch) with seconds.
    """
    from tqdm import tqdm

    B = batches[0].stop - batches[0].start
    for (method, backend), state in states.items():
        _timed_update(state.copy(), _to_backend(data.H_initial[:B], backend),
                      _to_backend(data.one_hot(data.y_initial[:B]), backend))
    rows = []
    for i, batch in enumerate(tqdm(batches, desc="stream batches", disable=not progress)):
        H, Y = data.H_stream[batch], data.one_hot(data.y_stream[batch])
        for (method, backend), state in states.items():
            seconds = _timed_update(state, _to_backend(H, backend), _to_backend(Y, backend))
            rows.append({"method": method, "backend": backend, "batch": i, "seconds": seconds})
    return pd.DataFrame(rows)


def gemm_rate(n_hidden: int, batch_size: int, repeats: int = 3) -> float:
    """Measured float64 GEMM throughput (FLOP/s) of a (d × d)·(d × B) product, NumPy's BLAS."""
    rng = np.random.default_rng(0)
    P = np.asfortranarray(rng.standard_normal((n_hidden, n_hidden)))
    Ht = np.asfortranarray(rng.standard_normal((n_hidden, batch_size)))
    best = np.inf
    for _ in range(repeats):
        start = time.perf_counter()
        blas.dgemm(1.0, P, Ht)
        best = min(best, time.perf_counter() - start)
    return 2.0 * n_hidden**2 * batch_size / best


@dataclass
class StreamingBenchmark:
    """Results of :func:`streaming_benchmark`.

    ``latency``: one row per (method, backend, batch) with ``seconds``; ``summary``: per
    (method, backend) the latency median, IQR, mean, sd, the accuracy after the stream, the
    relative Frobenius distance of its W2 to the oracle's and the fraction of test predictions
    that differ from the oracle's.
    """

    latency: pd.DataFrame
    summary: pd.DataFrame
    oracle_accuracy: float
    oracle_seconds: float
    initial_seconds: float
    gemm_flops_per_second: float
    n_hidden: int
    batch_size: int
    n_batches: int


def streaming_benchmark(data: StreamData, batch_size: int = 250, alpha: float = 1e-3,
                        methods=("listing3", "cholesky"), backends=None, n_batches: int | None = None,
                        progress: bool = True) -> StreamingBenchmark:
    """Table V: initial fit on ``data``'s initial rows, then every stream batch by each
    (method, backend), timed interleaved (:func:`time_updates`); compared with the batch oracle.
    ``backends`` defaults to :func:`available_backends`.
    """
    backends = available_backends() if backends is None else list(backends)
    W_oracle, oracle_seconds = batch_oracle(data, alpha)
    equations, initial_seconds = initial_equations(data)
    batches = data.batches(batch_size, n_batches)
    predictions = data.H_test @ W_oracle
    states = {}
    for backend in backends:
        start_equations = _equations_on(equations, backend)
        for method in methods:
            states[method, backend] = StreamingRidge.from_normal_equations(start_equations, alpha, method)
    latency = time_updates(states, data, batches, progress)
    summary = []
    for (method, backend), state in states.items():
        seconds = latency.query("method == @method and backend == @backend")["seconds"].to_numpy()
        W = _as_numpy(state.coef_)
        q1, median, q3 = np.percentile(seconds, [25, 50, 75])
        summary.append({"method": method, "backend": backend, "device": device_name(backend),
                        "median_seconds": median, "q1_seconds": q1, "q3_seconds": q3,
                        "mean_seconds": seconds.mean(), "sd_seconds": seconds.std(ddof=1),
                        "accuracy": data.accuracy(W),
                        "relative_difference": float(np.linalg.norm(W - W_oracle) / np.linalg.norm(W_oracle)),
                        "prediction_disagreement": float(np.mean(
                            (data.H_test @ W).argmax(1) != predictions.argmax(1))),
                        "n_samples": state.n_samples})
    states.clear()
    return StreamingBenchmark(latency, pd.DataFrame(summary), data.accuracy(W_oracle),
                              oracle_seconds, initial_seconds, gemm_rate(data.n_hidden, batch_size),
                              data.n_hidden, batch_size, len(batches))


# -- the SGD baseline: a softmax readout retrained on a replay buffer ----------------------------
@dataclass
class ReplaySGDResult:
    """Per-update seconds (one epoch over the replay buffer each), accuracy after the stream."""

    seconds: np.ndarray
    initial_seconds: float
    accuracy_initial: float
    accuracy: float
    buffer_rows: int
    hyperparameters: dict


def replay_sgd(data: StreamData, batch_size: int = 250, n_batches: int | None = None,
               initial_epochs: int = 5, epochs_per_update: int = 1, lr: float = 1e-3,
               minibatch: int = 256, seed: int = 0, progress: bool = True) -> ReplaySGDResult:
    """Softmax readout (``torch.nn.Linear(d, k)``, cross-entropy, Adam) on the same H, float32 CPU.

    Trained ``initial_epochs`` on the initial rows; each stream batch joins the replay buffer
    (every row seen so far, kept) and the readout is retrained ``epochs_per_update`` epochs over
    the whole buffer — the paper's footnote: "a full epoch retrain over the accumulating memory
    replay buffer".  Minibatches are drawn by a seeded permutation.
    """
    import torch
    from tqdm import tqdm

    torch.manual_seed(seed)
    generator = torch.Generator().manual_seed(seed)
    batches = data.batches(batch_size, n_batches)
    n_initial = len(data.y_initial)
    labels = lambda y: torch.as_tensor(np.searchsorted(data.classes, y))  # noqa: E731
    # the replay buffer: every row seen so far (allocated once, filled as the stream arrives)
    buffer_H = torch.empty((n_initial + len(batches) * batch_size, data.n_hidden), dtype=torch.float32)
    buffer_y = torch.empty(len(buffer_H), dtype=torch.int64)
    buffer_H[:n_initial] = torch.as_tensor(data.H_initial)
    buffer_y[:n_initial] = labels(data.y_initial)
    model = torch.nn.Linear(data.n_hidden, len(data.classes))
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    H_test = torch.as_tensor(data.H_test, dtype=torch.float32)
    y_test = labels(data.y_test)

    def epochs(count, rows):
        for _ in range(count):
            for index in torch.randperm(rows, generator=generator).split(minibatch):
                optimizer.zero_grad(set_to_none=True)
                loss = torch.nn.functional.cross_entropy(model(buffer_H[index]), buffer_y[index])
                loss.backward()
                optimizer.step()

    def accuracy():
        with torch.no_grad():
            return 100.0 * float((model(H_test).argmax(1) == y_test).float().mean())

    start = time.perf_counter()
    epochs(initial_epochs, n_initial)
    initial_seconds = time.perf_counter() - start
    accuracy_initial = accuracy()
    seconds, filled = [], n_initial
    for rows in tqdm(batches, desc="replay SGD", disable=not progress, leave=False):
        start = time.perf_counter()
        buffer_H[filled:filled + batch_size] = torch.as_tensor(data.H_stream[rows])
        buffer_y[filled:filled + batch_size] = labels(data.y_stream[rows])
        filled += batch_size
        epochs(epochs_per_update, filled)
        seconds.append(time.perf_counter() - start)
    hyper = {"model": "softmax readout Linear(d, k)", "optimizer": "Adam", "lr": lr,
             "minibatch": minibatch, "initial_epochs": initial_epochs,
             "epochs_per_update": epochs_per_update, "dtype": "float32", "seed": seed}
    return ReplaySGDResult(np.array(seconds), initial_seconds, accuracy_initial, accuracy(), filled,
                           hyper)


# -- float32 against float64 over a long stream ----------------------------------------------
def drift_experiment(data: StreamData, batch_size: int = 10, alpha: float = 1e-3,
                     variants=(("cholesky", "float64"), ("cholesky", "float32"),
                               ("listing3", "float64"), ("listing3", "float32"),
                               ("information", "float32")),
                     n_checkpoints: int = 20, n_batches: int | None = None,
                     progress: bool = True) -> pd.DataFrame:
    """Stream many small batches with each (method, dtype) on NumPy and track the distance to the
    exact float64 batch solution on the rows seen so far.

    Returns one row per (method, dtype, checkpoint): ``updates``, ``samples``,
    ``relative_error`` = ‖W − W_exact‖_F / ‖W_exact‖_F, ``accuracy`` (%), ``asymmetry`` =
    max |P − Pᵀ| / max |P| and ``failed`` (the state lost definiteness; later rows are NaN).
    """
    from tqdm import tqdm

    batches = data.batches(batch_size, n_batches)
    marks = set(np.unique(np.linspace(0, len(batches), n_checkpoints + 1).round().astype(int)))
    initial, _ = initial_equations(data)
    # the exact solution at every checkpoint, from float64 normal equations (rows between
    # checkpoints are contiguous, so they are added in one block)
    seen, exact, previous = initial_equations(data)[0], {}, 0
    for mark in sorted(marks):
        if mark > previous:
            rows = slice(previous * batch_size, mark * batch_size)
            seen.update(data.H_stream[rows], data.one_hot(data.y_stream[rows]))
        exact[mark], previous = (solve_normal_equations(*seen.as_float64(), alpha, "cholesky"),
                                 seen.n_samples), mark
    records = []
    for method, dtype in variants:
        state = StreamingRidge.from_normal_equations(initial, alpha, method, dtype)
        failed = False
        for i, rows in enumerate(tqdm([None] + batches, desc=f"{method} {dtype}", disable=not progress,
                                      leave=False)):
            if i and not failed:
                try:
                    state.update(data.H_stream[rows], data.one_hot(data.y_stream[rows]))
                except np.linalg.LinAlgError:
                    failed = True
            if i not in marks:
                continue
            W_exact, samples = exact[i]
            record = {"method": method, "dtype": dtype, "updates": i, "samples": samples,
                      "relative_error": np.nan, "accuracy": np.nan, "asymmetry": np.nan,
                      "failed": failed}
            if not failed:
                W = state.coef_.astype(np.float64)
                finite = bool(np.isfinite(W).all())
                record["relative_error"] = (float(np.linalg.norm(W - W_exact) / np.linalg.norm(W_exact))
                                            if finite else np.inf)
                record["accuracy"] = data.accuracy(W) if finite else np.nan
                if method != "information":
                    P = state.P
                    record["asymmetry"] = float(np.abs(P - P.T).max() / np.abs(P).max())
            records.append(record)
    return pd.DataFrame(records)


def paired_speedup(latency: pd.DataFrame, slow: str = "listing3", fast: str = "cholesky") -> pd.DataFrame:
    """Per backend: the ratio slow/fast of the seconds of the same batch (median, IQR)."""
    wide = latency.pivot_table(index=["backend", "batch"], columns="method", values="seconds")
    ratio = (wide[slow] / wide[fast]).rename("ratio").reset_index()
    return ratio.groupby("backend", sort=False)["ratio"].agg(
        median="median", q1=lambda r: r.quantile(0.25), q3=lambda r: r.quantile(0.75),
        batches="count").reset_index()
