"""greenelm against the ELM libraries users compare it with, on full MNIST, side by side.

The peers are benchmark-only dependencies (``pip install scikit-elm hpelm pyoselm`` beside the
library; never the library's own).  Run from the repository root, alone on the machine::

    python -m benchmarks.peers                      # writes benchmarks/peers.{json,md}
    python -m benchmarks.peers --quick --out /tmp/peers

Every fit runs in a fresh process (time, peak RSS of that process); the FLOP floor of a fit is
``greenelm.solvers.fit_flops`` at the float64 GEMM rate measured in the same run.  Rows:

* greenelm ``ELMClassifier`` float64 and float32 (ReLU, λ = 1e-3);
* scikit-elm ``skelm.ELMClassifier`` (``ufunc="relu"``, ``alpha=1e-3``);
* hpelm ``ELM`` with its own sigmoid neurons (ReLU is not one of its neuron types);
* scikit-learn alone: greenelm's ``RandomReLUTransformer`` + ``RidgeClassifier(alpha=1e-3,
  fit_intercept=False)`` (holds all of H: N × d float64).

Streaming: pyoselm's ``OSELMClassifier`` (sigmoid: it has no ReLU) against greenelm's
``StreamingRidge`` (ReLU features, per-call Cholesky update), an initial block then batches of B
rows; time per update against its floor 3·d²·B FLOPs at the measured GEMM rate.
"""

from __future__ import annotations

import argparse
import time
from datetime import datetime, timezone

import numpy as np


def _mnist(n_train=None):
    from greenelm import load_dataset

    data = load_dataset("mnist")
    X, y = data.flat("train", np.float64), data.y_train
    if n_train:
        X, y = X[:n_train], y[:n_train]
    return X, y, data.flat("test", np.float64), data.y_test


def fit_one(library: str, n_hidden: int, n_train=None) -> dict:
    """Fit ``library``'s ELM on MNIST (in this process): seconds and test accuracy (%)."""
    X, y, X_test, y_test = _mnist(n_train)
    start = time.perf_counter()
    if library.startswith("greenelm"):
        from greenelm import ELMClassifier

        model = ELMClassifier(n_hidden=n_hidden, alpha=1e-3, dtype=library.split("-")[1]).fit(X, y)
        predict = model.predict
    elif library == "scikit-elm":
        from skelm import ELMClassifier

        model = ELMClassifier(n_neurons=n_hidden, ufunc="relu", alpha=1e-3, random_state=0).fit(X, y)
        predict = model.predict
    elif library == "hpelm":
        import hpelm

        model = hpelm.ELM(X.shape[1], 10, precision="double")
        model.add_neurons(n_hidden, "sigm")
        model.train(X, np.eye(10)[y], "c")
        predict = lambda Z: model.predict(Z).argmax(axis=1)  # noqa: E731
    elif library == "scikit-learn":
        from sklearn.linear_model import RidgeClassifier
        from sklearn.pipeline import make_pipeline

        from greenelm import RandomReLUTransformer

        model = make_pipeline(RandomReLUTransformer(n_hidden=n_hidden, random_state=0),
                              RidgeClassifier(alpha=1e-3, fit_intercept=False)).fit(X, y)
        predict = model.predict
    else:
        raise ValueError(f"unknown library {library!r}")
    seconds = time.perf_counter() - start
    return {"seconds": seconds, "accuracy": 100 * float(np.mean(predict(X_test) == y_test))}


def stream_one(library: str, n_hidden: int, batch: int, n_batches: int, n_initial: int) -> dict:
    """An initial block of ``n_initial`` rows, then ``n_batches`` updates of ``batch`` rows: the
    median seconds per update and the test accuracy after the stream."""
    X, y, X_test, y_test = _mnist()
    stream = [slice(n_initial + i * batch, n_initial + (i + 1) * batch) for i in range(n_batches)]
    times = []
    if library == "pyoselm":
        from pyoselm import OSELMClassifier

        model = OSELMClassifier(n_hidden=n_hidden, activation_func="sigmoid", random_state=0)
        model.fit(X[:n_initial], y[:n_initial])
        for rows in stream:
            start = time.perf_counter()
            model.partial_fit(X[rows], y[rows])
            times.append(time.perf_counter() - start)
        accuracy = model.score(X_test, y_test)
    else:
        from greenelm import RandomReLUFeatures, StreamingRidge

        features = RandomReLUFeatures(X.shape[1], n_hidden, seed=0)
        Y = np.eye(10)
        state = StreamingRidge(alpha=1e-3).fit(features.transform(X[:n_initial]), Y[y[:n_initial]])
        for rows in stream:
            H = features.transform(X[rows])
            start = time.perf_counter()
            state.update(H, Y[y[rows]])
            times.append(time.perf_counter() - start)
        accuracy = np.mean((features.transform(X_test) @ state.coef_).argmax(axis=1) == y_test)
    return {"update_seconds": float(np.median(times)), "accuracy": 100 * float(accuracy)}


def gemm_rate() -> dict:
    from greenelm_book.bench import gemm_peak

    return gemm_peak("float64")


def _isolated(target: str, **kwargs) -> dict:
    from greenelm_book.bench import run_isolated

    record = run_isolated(f"benchmarks.peers:{target}", kwargs, env={"OMP_WAIT_POLICY": "PASSIVE"})
    if not record["ok"]:
        return {"error": record["error"], "peak_gb": record["peak_rss_bytes"] / 1e9}
    return {**record["result"], "peak_gb": record["peak_rss_bytes"] / 1e9}


LIBRARIES = ("greenelm-float64", "greenelm-float32", "scikit-elm", "hpelm", "scikit-learn")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--out", default="benchmarks/peers")
    args = parser.parse_args(argv)
    from greenelm.solvers import fit_flops
    from greenelm_book.bench import machine_info, write_report

    d, n_train, widths, batches, initial = (4000, None, (2000, 4000), 20, 5000)
    if args.quick:
        d, n_train, widths, batches, initial = 300, 3000, (200,), 3, 1000
    peak = _isolated("gemm_rate")
    rate = peak.get("best", float("nan")) * 1e9            # GFLOP/s, best of its repeats
    N = n_train or 60000
    floor = fit_flops(N, 784, d, 10).total / rate
    rows, reference = [], None
    for library in LIBRARIES:
        result = _isolated("fit_one", library=library, n_hidden=d, n_train=n_train)
        if "error" in result:
            rows.append({"library": library, "d": d, "fit (s)": None, "accuracy (%)": None,
                         "peak (GB)": result["peak_gb"], "note": result["error"][:80]})
            continue
        reference = reference or result["seconds"]
        rows.append({"library": library, "d": d, "fit (s)": result["seconds"],
                     "ratio to greenelm float64": result["seconds"] / reference,
                     "ratio to floor": result["seconds"] / floor, "accuracy (%)": result["accuracy"],
                     "peak (GB)": result["peak_gb"]})
    streaming = []
    for width in widths:
        update_floor = 3.0 * width * width * 250 / rate
        for library in ("greenelm", "pyoselm"):
            result = _isolated("stream_one", library=library, n_hidden=width, batch=250,
                               n_batches=batches, n_initial=initial)
            streaming.append({"library": library, "d": width, "B": 250,
                              "update (s)": result.get("update_seconds"),
                              "ratio to floor": (result["update_seconds"] / update_floor
                                                 if "update_seconds" in result else None),
                              "accuracy (%)": result.get("accuracy"), "peak (GB)": result["peak_gb"]})
    command = ("python -m benchmarks.peers " + " ".join(argv or [])).strip()
    report = {"machine": machine_info(), "date": datetime.now(timezone.utc).strftime("%Y-%m-%d"),
              "command": command, "gemm_gflops": rate / 1e9, "fit_floor_seconds": floor,
              "fits": rows, "streaming": streaming}
    machine = report["machine"]
    preamble = (f"# greenelm against its peers\n\n{machine.get('cpu')} ({machine.get('cores')} cores), "
                f"{report['date']}; `{command}`; float64 GEMM {rate / 1e9:.0f} GFLOP/s in this run. "
                "One fit per library, each in a fresh process.\n")
    sections = [(f"Fits on MNIST ({N:,} rows), d = {d:,}",
                 f"Floor: the fit's FLOPs (features, Gram, solve) at the measured GEMM rate, {floor:.1f} s. "
                 "hpelm uses its own sigmoid neurons (it has no ReLU); the others ReLU.", rows, None),
                ("Streaming updates, B = 250", "Median seconds per update after an initial block; floor "
                 "3·d²·B FLOPs at the measured GEMM rate. pyoselm uses sigmoid neurons (it has no ReLU).",
                 streaming, None)]
    write_report(report, f"{args.out}.json", f"{args.out}.md", sections, preamble)
    print(open(f"{args.out}.md").read())


if __name__ == "__main__":
    main()
