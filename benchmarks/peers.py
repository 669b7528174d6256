"""greenelm against the ELM libraries users compare it with, on full MNIST, side by side.

The peers are benchmark-only dependencies (the ``peers`` extra: ``pip install scikit-elm hpelm
pyoselm "dask[distributed]" pandas pyarrow`` in a venv of their own beside numpy, scipy and
scikit-learn; never the library's own).  Run from the repository root, alone on the machine::

    python -m benchmarks.peers         # 5 rounds (≈ 12 min on 2 cores): benchmarks/peers.{json,md},
                                       # merged into benchmarks/report.{json,md}
    python -m benchmarks.peers --rows 5000 --d 500 --repeats 1 --stream-widths 300 --out /tmp/peers

Every fit runs in a fresh process (time, peak RSS of that process).  The fits go in rounds: each
round measures the GEMM rates (float64, float32) in a process of its own, then fits every library
once, in an order rotated from round to round, so load that drifts during the run touches every
library alike.  A row gives the median over the rounds and its range; the ratios (to greenelm
float64, to the FLOP floor) are medians of each round's own ratios.  The floor of a fit is its
FLOPs (``greenelm.solvers.fit_flops``) at the rates of its round: features and Gram at the rate
of greenelm's dtype (float64 for the peers), the solve at the float64 rate.  Rows:

* greenelm ``ELMClassifier`` float64 and float32 (ReLU, λ = 1e-3);
* scikit-elm ``skelm.ELMClassifier`` (``ufunc="relu"``, ``alpha=1e-3``);
* hpelm ``ELM`` with its own sigmoid neurons (ReLU is not one of its neuron types);
* scikit-learn alone: greenelm's ``RandomReLUTransformer`` + ``RidgeClassifier(alpha=1e-3,
  fit_intercept=False)`` (holds all of H: N × d float64).

Streaming: pyoselm's ``OSELMClassifier`` (sigmoid: it has no ReLU) against greenelm's
``StreamingRidge`` (ReLU features, per-call Cholesky update), an initial block then batches of B
rows; one process per library and width, the median time per update against its floor 3·d²·B
FLOPs at the float64 GEMM rate of the run.
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
    median seconds per update (the first, a warm-up, left out) and the test accuracy after the stream."""
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
        from greenelm.streaming import rls_block_rows

        gathered = library == "greenelm-gathered"
        features = RandomReLUFeatures(X.shape[1], n_hidden, seed=0)
        Y = np.eye(10)
        state = StreamingRidge(alpha=1e-3, block_rows=rls_block_rows(n_hidden) if gathered else None)
        state.fit(features.transform(X[:n_initial]), Y[y[:n_initial]])
        batches = [(features.transform(X[rows]), Y[y[rows]]) for rows in stream]    # features untimed
        if gathered:
            # batches wait and go in as blocks of rls_block_rows(d) rows: the time per batch is the
            # whole stream's, the last flush (the read) included, over the number of batches
            state.update(*batches[0])
            state.coef_                                   # warm-up: the first block's calls
            start = time.perf_counter()
            for H, T in batches[1:]:
                state.update(H, T)
            state.coef_
            times = [(time.perf_counter() - start) / (len(batches) - 1)]
        else:
            for H, T in batches:
                start = time.perf_counter()
                state.update(H, T)
                times.append(time.perf_counter() - start)
        accuracy = np.mean((features.transform(X_test) @ state.coef_).argmax(axis=1) == y_test)
    timed = times[1:] if len(times) > 1 else times       # the first update warms up (first calls)
    return {"update_seconds": float(np.median(timed)), "update_runs": [float(t) for t in timed],
            "accuracy": 100 * float(accuracy)}


def gemm_rate() -> dict:
    """The float64 and float32 GEMM rates (GFLOP/s, 4096², best of 3 after a warm-up)."""
    from greenelm_book.bench import gemm_peak

    return {dtype: gemm_peak(dtype, repeats=3)["best"] for dtype in ("float64", "float32")}


def _isolated(target: str, **kwargs) -> dict:
    from greenelm_book.bench import run_isolated

    record = run_isolated(f"benchmarks.peers:{target}", kwargs, env={"OMP_WAIT_POLICY": "PASSIVE"})
    if not record["ok"]:
        return {"error": record["error"], "peak_gb": record["peak_rss_bytes"] / 1e9}
    return {**record["result"], "peak_gb": record["peak_rss_bytes"] / 1e9}


LIBRARIES = ("greenelm-float64", "greenelm-float32", "scikit-elm", "hpelm", "scikit-learn")


def _spread(values) -> str:
    return f"{min(values):.3g}–{max(values):.3g}" if values else "—"


def _median(values):
    import statistics

    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def fit_rounds(d: int, n_train, repeats: int, libraries=LIBRARIES, log=print) -> tuple[list, list]:
    """``repeats`` rounds of (GEMM rates, one fit per library in a rotated order): the raw records
    and one row per library (medians over the rounds, ranges, per-round ratios)."""
    from greenelm_book.bench import flop_floor_seconds

    N = n_train or 60000
    records = []
    for round_ in range(repeats):
        rates = _isolated("gemm_rate")
        order = libraries[round_ % len(libraries):] + libraries[:round_ % len(libraries)]
        results = {}
        for library in order:
            results[library] = _isolated("fit_one", library=library, n_hidden=d, n_train=n_train)
            log(f"round {round_ + 1}/{repeats} {library}: "
                + (f"{results[library]['seconds']:.2f} s" if "seconds" in results[library]
                   else results[library]["error"][:80]))
        records.append({"rates": rates, "fits": results})
    rows = []
    for library in libraries:
        done = [r for r in records if "seconds" in r["fits"][library] and "float64" in r["rates"]]
        if not done:
            error = next((r["fits"][library].get("error") for r in records), "no run")
            rows.append({"library": library, "d": d, "fit (s)": None, "note": str(error)[:80]})
            continue
        dtype = "float32" if library == "greenelm-float32" else "float64"
        seconds = [r["fits"][library]["seconds"] for r in done]
        to_reference = [r["fits"][library]["seconds"] / r["fits"]["greenelm-float64"]["seconds"] for r in done
                        if "seconds" in r["fits"].get("greenelm-float64", {})]
        to_floor = [r["fits"][library]["seconds"]
                    / flop_floor_seconds(N, 784, d, 10, r["rates"], dtype) for r in done]
        rows.append({"library": library, "d": d, "repeats": len(done), "fit (s)": _median(seconds),
                     "fit runs (s)": seconds,
                     "range (s)": _spread(seconds), "ratio to greenelm float64": _median(to_reference),
                     "ratio to floor": _median(to_floor), "floor ratio range": _spread(to_floor),
                     "accuracy (%)": _median([r["fits"][library]["accuracy"] for r in done]),
                     "peak (GB)": _median([r["fits"][library]["peak_gb"] for r in done])})
    return records, rows


STREAMERS = ("greenelm", "greenelm-gathered", "pyoselm")


def stream_rows(widths, batches: dict, initial: int, rate: float | None = None, log=print,
                libraries=STREAMERS) -> list:
    """One process per library and width: the median update time and its ratio to 3·d²·B FLOPs at
    the float64 GEMM rate ``rate`` (GFLOP/s), or, when None, at the rate measured in a process of
    its own just before each width's updates (a same-run ratio either way)."""
    rows = []
    for width in widths:
        width_rate = rate if rate is not None else _isolated("gemm_rate")["float64"]
        update_floor = 3.0 * width * width * 250 / (width_rate * 1e9)
        for library in libraries:
            result = _isolated("stream_one", library=library, n_hidden=width, batch=250,
                               n_batches=batches[library], n_initial=initial)
            log(f"streaming {library} d={width}: {result.get('update_seconds', result.get('error'))}")
            rows.append({"library": library, "d": width, "B": 250, "updates": batches[library],
                         "initial rows": initial, "rows fitted": initial + 250 * batches[library],
                         "GEMM (GFLOP/s)": width_rate,
                         "update (s)": result.get("update_seconds"),
                         "update runs (s)": result.get("update_runs", []),
                         "ratio to floor": (result["update_seconds"] / update_floor
                                            if "update_seconds" in result else None),
                         "accuracy (%)": result.get("accuracy"), "peak (GB)": result["peak_gb"],
                         **({"note": result["error"][:80]} if "error" in result else {})})
    return rows


STREAM_TEXT = ("Median seconds per update (batches of B rows after an initial block), one process per library "
               "and width; floor 3·d²·B FLOPs at a float64 GEMM rate of the same run. `greenelm` applies each "
               "batch as it comes; `greenelm-gathered` (`StreamingRidge(block_rows=rls_block_rows(d))`) lets "
               "batches wait and applies them as blocks of d/4 rows: its time is the whole stream's, the last "
               "block included, per batch. pyoselm uses sigmoid neurons (it has no ReLU) and is timed on fewer "
               "updates (each takes seconds). The accuracy is the model's after its stream: it has seen the "
               "initial block and its updates (rows fitted), not every training row.")


def _without_runs(rows: list) -> list:
    """The rows for a Markdown table: every run is in the JSON, the table shows medians and ranges."""
    return [{k: v for k, v in row.items() if not k.endswith("runs (s)")} for row in rows]


def write_streaming_only(args, streaming: list, seconds: float) -> None:
    """``--streaming-only``: the streaming table alone, in ``{out}.json`` and ``{out}.md``."""
    from greenelm_book.bench import machine_info, write_report

    command = "python -m benchmarks.peers " + " ".join(__import__("sys").argv[1:])
    date = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    report = {"machine": machine_info(), "date": date, "command": command.strip(), "duration_seconds": seconds,
              "streaming": streaming}
    machine = report["machine"]
    preamble = (f"# greenelm's streaming update against its floor and pyoselm\n\n{machine.get('cpu')} "
                f"({machine.get('cores')} cores), {date}; `{report['command']}` ({seconds / 60:.1f} min). Each "
                "width's float64 GEMM rate measured in a process of its own just before its updates.\n")
    write_report(report, f"{args.out}.json", f"{args.out}.md", [("Streaming updates, B = 250", STREAM_TEXT + " Floor "
                 "at the GEMM rate column.", _without_runs(streaming), None)], preamble)
    print(open(f"{args.out}.md").read())


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=5, help="rounds of fits (default 5)")
    parser.add_argument("--d", type=int, default=4000, help="hidden width of the fits")
    parser.add_argument("--rows", type=int, default=None, help="training rows (default: all 60,000)")
    parser.add_argument("--stream-widths", type=int, nargs="*", default=[2000, 4000])
    parser.add_argument("--streaming-only", action="store_true",
                        help="only the streaming updates, each width's floor at a GEMM rate measured just "
                             "before it (writes --out, merges nothing)")
    parser.add_argument("--out", default="benchmarks/peers")
    parser.add_argument("--report", default=None,
                        help="report.json to merge the tables into (default: benchmarks/report.json when "
                             "--out is the default, else none)")
    args = parser.parse_args(argv)
    from pathlib import Path

    from greenelm_book.bench import machine_info, write_report

    started = time.perf_counter()
    log = lambda message: print(f"[{time.perf_counter() - started:6.0f} s] {message}", flush=True)  # noqa: E731
    small = bool(args.rows)
    batches = {"greenelm": 4 if small else 20, "greenelm-gathered": 8 if small else 20,
               "pyoselm": 3 if small else 4}
    if args.streaming_only:
        streaming = stream_rows(args.stream_widths, batches, 1000 if small else 5000, None, log=log)
        write_streaming_only(args, streaming, time.perf_counter() - started)
        return
    records, rows = fit_rounds(args.d, args.rows, args.repeats, log=log)
    rates64 = [r["rates"]["float64"] for r in records if "float64" in r["rates"]]
    rate = _median(rates64) or float("nan")
    streaming = stream_rows(args.stream_widths, batches, 1000 if small else 5000, rate, log=log)
    command = ("python -m benchmarks.peers " + " ".join(argv if argv is not None else __import__("sys").argv[1:])).strip()
    date = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    N = args.rows or 60000
    report = {"machine": machine_info(), "date": date, "command": command,
              "duration_seconds": time.perf_counter() - started, "gemm_gflops": rate,
              "gemm_gflops_per_round": [r["rates"] for r in records], "fits": rows, "streaming": streaming,
              "raw": records}
    machine = report["machine"]
    preamble = (f"# greenelm against its peers\n\n{machine.get('cpu')} ({machine.get('cores')} cores), {date}; "
                f"`{command}` ({report['duration_seconds'] / 60:.1f} min); float64 GEMM {rate:.0f} GFLOP/s "
                f"(median of the rounds, range {_spread(rates64)}). {args.repeats} rounds; in each, the GEMM "
                "rates and then one fit per library, each in a fresh process, the order rotated per round.\n")
    fit_text = (f"MNIST, {N:,} training rows, d = {args.d:,}, λ = 1e-3; test accuracy on the 10,000 test "
                "images. Medians over the rounds; the ratios are medians of each round's own ratios. Floor: "
                "the fit's FLOPs (features, Gram, solve) at the GEMM rates of the same round. hpelm uses its "
                "own sigmoid neurons (it has no ReLU); the others ReLU.")
    stream_text = STREAM_TEXT + " Floor at the run's float64 GEMM rate."
    sections = [(f"Fits on MNIST ({N:,} rows), d = {args.d:,}", fit_text, _without_runs(rows), None),
                ("Streaming updates, B = 250", stream_text, _without_runs(streaming), None)]
    write_report(report, f"{args.out}.json", f"{args.out}.md", sections, preamble)
    target = args.report or ("benchmarks/report.json" if args.out == "benchmarks/peers" else None)
    if target:
        from benchmarks.run import merge_into

        merge_into(Path(target), {"peers_fits": rows, "peers_streaming": streaming}, [],
                   {"command": command, "date": date})
    print(open(f"{args.out}.md").read())


if __name__ == "__main__":
    main()
