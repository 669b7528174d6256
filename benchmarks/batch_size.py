"""Whole fits at any batch size: ``partial_fit`` against ``fit``, gathered sums, the image readout end to end.

Run from the repository root, alone on the machine (every ratio is measured in one run, each timed
fit in a fresh process, the repeats interleaved)::

    python -m benchmarks.batch_size                 # writes benchmarks/reports/batch_size.{json,md} (~15 min)
    python -m benchmarks.batch_size --quick --out /tmp/batch   # small sizes, a minute

Three tables:

* ``partial_fit`` over the first ``--rows`` MNIST training images in batches of 1, 16, 256 and all
  rows, by normal equations and by RLS, at d = 2,000 and 4,000, against ``fit`` on the same rows
  (ratio = median seconds / median ``fit`` seconds at that width), with each process's peak memory;
  one RLS row reads the readout after every batch of 256 (each read applies that batch as one block
  update: the cost RLS is for);
* ``NormalEquations(8192, 10, "float32").update`` over 4,096 rows in blocks of 8, 64, 512 and 4,096
  rows (the rows are gathered into blocks of :func:`greenelm.solvers.sum_block_rows`) against the
  float32 ``syrk`` floor, N·d² FLOPs at the rate measured in the same process;
* the image readout (``greenelm_book.chapters.frontier_features.patch_readout``, CIFAR-10, K filters, all 50,000
  training images) end to end, stage by stage, against the sum of its floors measured in the same
  run: the map's one GEMM (all images' patches times the folded p²C × K filters, in the map's own
  blocks), the Gram's N·d² FLOPs at the measured float32 ``syrk`` rate, one eigendecomposition of
  order d (LAPACK ``syevr``), each with the peak memory of the stage.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from datetime import datetime, timezone

import numpy as np

BATCHES = (1, 16, 256, "all")
METHODS = ("normal", "rls")


# -- what the fresh processes run -------------------------------------------------------------------
def _mnist(n_rows: int):
    from greenelm import load_dataset

    data = load_dataset("mnist")
    return (data.flat("train", np.float64)[:n_rows], data.y_train[:n_rows],
            data.flat("test", np.float64), data.y_test)


def time_partial_fit(n_hidden: int, n_rows: int, batch, method: str, read_every_batch: bool = False) -> dict:
    """Seconds of ``partial_fit`` over the first ``n_rows`` MNIST rows in batches of ``batch``
    (``"all"``: one call; ``"fit"``: ``fit`` instead), the readout read once at the end (or after
    every batch), and the test accuracy."""
    from greenelm import ELMClassifier

    X, y, X_test, y_test = _mnist(n_rows)
    model = ELMClassifier(n_hidden=n_hidden, partial_fit_method=method)
    start = time.perf_counter()
    if batch == "fit":
        model.fit(X, y)
    else:
        size = n_rows if batch == "all" else int(batch)
        for first in range(0, n_rows, size):
            model.partial_fit(X[first:first + size], y[first:first + size], classes=np.arange(10))
            if read_every_batch:
                model.coef_                                    # noqa: B018 - the read is what is timed
        model.coef_                                            # noqa: B018
    seconds = time.perf_counter() - start
    return {"seconds": seconds, "accuracy": 100 * float(model.score(X_test, y_test))}


def time_sums(n_hidden: int, n_rows: int, block: int, dtype: str = "float32") -> dict:
    """Seconds of ``NormalEquations.update`` over ``n_rows`` random rows in blocks of ``block`` rows
    (sums read at the end), and the ``syrk`` floor: N·d² FLOPs at the rate of one large block."""
    from scipy.linalg import blas

    from greenelm import NormalEquations

    rng = np.random.default_rng(0)
    H = rng.random((n_rows, n_hidden), dtype=np.float32).astype(dtype)
    Y = np.eye(10, dtype=dtype)[rng.integers(0, 10, n_rows)]
    syrk = blas.ssyrk if dtype == "float32" else blas.dsyrk
    scratch = np.zeros((n_hidden, n_hidden), dtype=dtype, order="F")
    syrk(1.0, H[:256].T, beta=0.0, c=scratch, trans=0, lower=0, overwrite_c=1)      # warm-up
    start = time.perf_counter()
    syrk(1.0, H.T, beta=0.0, c=scratch, trans=0, lower=0, overwrite_c=1)
    floor = time.perf_counter() - start
    del scratch
    equations = NormalEquations(n_hidden, 10, dtype)
    start = time.perf_counter()
    for first in range(0, n_rows, block):
        equations.update(H[first:first + block], Y[first:first + block])
    equations.gram                                                              # noqa: B018 - flushes
    seconds = time.perf_counter() - start
    return {"seconds": seconds, "floor_seconds": floor,
            "syrk_gflops": n_rows * n_hidden**2 / floor / 1e9, "gathered_rows": equations.block_rows}


def readout_floors(n_patches: int, n_images: int, chunk_images: int = 8) -> dict:
    """The image readout's floors on CIFAR-10 at K = ``n_patches`` (pool 2, 6 × 6 patches): the
    map's GEMM over ``n_images`` images in its own blocks, the float32 ``syrk`` rate at d = 8·K
    (4,096-row blocks: the Gram's seconds are N·d² at that rate), one ``syevr`` of order d."""
    import scipy.linalg
    from scipy.linalg import blas

    from greenelm import RandomPatchFeatures, load_dataset

    images = load_dataset("cifar10", subset=2000).flat("train", np.float32).reshape(-1, 32, 32, 3)
    features = RandomPatchFeatures((32, 32, 3), n_patches=n_patches, patch_size=6, random_state=0).fit(images)
    projection = features._projection
    d = features.n_features_out
    block = np.random.default_rng(0).random((chunk_images * 27 * 27, 108), dtype=np.float32)
    measured_blocks = 256
    block @ projection                                                          # warm-up
    start = time.perf_counter()
    for _ in range(measured_blocks):
        block @ projection
    gemm = (time.perf_counter() - start) / measured_blocks * (n_images / chunk_images)
    rng = np.random.default_rng(1)
    H = rng.random((4096, d), dtype=np.float32)
    gram = np.zeros((d, d), dtype=np.float32, order="F")
    blas.ssyrk(1.0, H[:256].T, beta=0.0, c=gram, trans=0, lower=0, overwrite_c=1)
    start = time.perf_counter()
    gram = blas.ssyrk(1.0, H.T, beta=0.0, c=gram, trans=0, lower=0, overwrite_c=1)
    syrk_rate = 4096 * d * d / (time.perf_counter() - start)
    if d >= 16_000:      # such a readout solves by Cholesky per λ (no eigendecomposition to floor)
        del gram, H
        return {"map_gemm_seconds": gemm, "gram_seconds": n_images * d * d / syrk_rate,
                "syrk_gflops": syrk_rate / 1e9, "eigh_seconds": 0.0, "n_features": d}
    spd = np.asfortranarray(gram, dtype=np.float64)
    del gram, H
    spd[np.diag_indices(d)] += 1.0
    start = time.perf_counter()
    scipy.linalg.eigh(spd, lower=False, check_finite=False, driver="evr", overwrite_a=True)
    eigh = time.perf_counter() - start
    return {"map_gemm_seconds": gemm, "gram_seconds": n_images * d * d / syrk_rate,
            "syrk_gflops": syrk_rate / 1e9, "eigh_seconds": eigh, "n_features": d}


def image_readout(n_patches: int, subset, loo_rows: int, device, alphas=None) -> dict:
    """``patch_readout`` on CIFAR-10 (one seed), its stages' seconds and peak memory; ``alphas``:
    the first λ grid (None: patch_readout's)."""
    from greenelm_book.chapters.frontier_features import patch_readout

    grid = {} if alphas is None else {"alphas": tuple(alphas)}
    run = patch_readout("cifar10", n_patches, 0, subset=subset, loo_rows=loo_rows, device=device, **grid)
    run.pop("loo")
    return run


# -- the run -------------------------------------------------------------------------------------------
def _isolated(target: str, **kwargs) -> dict:
    from greenelm_book.bench import run_isolated

    record = run_isolated(f"benchmarks.batch_size:{target}", kwargs,
                          env={"OMP_WAIT_POLICY": "PASSIVE"})
    if not record["ok"]:
        raise RuntimeError(f"{target}({kwargs}) failed: {record['error']}")
    return {**record["result"], "peak_gb": record["peak_rss_bytes"] / 1e9}


def partial_fit_rows(widths, n_rows: int, repeats: int) -> list[dict]:
    configs = [("fit", "normal", False)] + [(b, m, False) for m in METHODS for b in BATCHES] + [(256, "rls", True)]
    runs: dict = {}
    for _ in range(repeats):                       # interleaved: every configuration once per repeat
        for d in widths:
            for batch, method, reads in configs:
                runs.setdefault((d, batch, method, reads), []).append(
                    _isolated("time_partial_fit", n_hidden=d, n_rows=n_rows, batch=batch, method=method,
                              read_every_batch=reads))
    rows = []
    for d in widths:
        fit = statistics.median(r["seconds"] for r in runs[d, "fit", "normal", False])
        for batch, method, reads in configs:
            group = runs[d, batch, method, reads]
            seconds = statistics.median(r["seconds"] for r in group)
            rows.append({"d": d, "rows": n_rows, "method": "fit" if batch == "fit" else method
                         + (" (read every batch)" if reads else ""),
                         "batch": "—" if batch == "fit" else batch, "seconds": seconds,
                         "ratio to fit": seconds / fit, "accuracy (%)": group[0]["accuracy"],
                         "peak (GB)": max(r["peak_gb"] for r in group)})
    return rows


def sums_rows(n_hidden: int, n_rows: int, blocks) -> list[dict]:
    rows = []
    for block in blocks:
        result = _isolated("time_sums", n_hidden=n_hidden, n_rows=n_rows, block=block)
        rows.append({"d": n_hidden, "rows": n_rows, "caller's block": block,
                     "gathered into": result["gathered_rows"], "seconds": result["seconds"],
                     "syrk floor (s)": result["floor_seconds"], "ratio to floor": result["seconds"] / result["floor_seconds"],
                     "syrk GFLOP/s": result["syrk_gflops"]})
    return rows


def readout_rows(n_patches: int, subset, loo_rows: int, device, alphas=None) -> tuple[list[dict], dict]:
    run = _isolated("image_readout", n_patches=n_patches, subset=subset, loo_rows=loo_rows, device=device,
                    alphas=alphas)
    floors = _isolated("readout_floors", n_patches=n_patches, n_images=run["n_train"])
    peaks = run["stage_peak_gb"]
    plan, base = run["memory_plan_gb"], run["baseline_memory_gb"]

    def budget(stage: str) -> float:
        """The process before the data, the data and the stage's arrays (GB)."""
        return base + plan["data"] + plan[stage]

    rows = [{"stage": "features + sums", "seconds": run["feature_seconds"],
             "floor (s)": floors["map_gemm_seconds"] + floors["gram_seconds"],
             "floor is": f"map GEMM {floors['map_gemm_seconds']:.0f} s + Gram at {floors['syrk_gflops']:.0f} GFLOP/s "
                         f"{floors['gram_seconds']:.0f} s", "peak (GB)": peaks["sums"], "budget (GB)": budget("sums")},
            {"stage": "eigendecomposition", "seconds": run["spectrum_seconds"], "floor (s)": floors["eigh_seconds"],
             "floor is": f"syevr of order {floors['n_features']}", "peak (GB)": peaks.get("spectrum", 0.0),
             "budget (GB)": budget("spectrum") if "spectrum" in plan else base + plan["data"]},
            {"stage": "λ by LOO + readout", "seconds": run["loo_seconds"], "floor (s)": None, "floor is": "—",
             "peak (GB)": peaks["loo"], "budget (GB)": budget("loo")}]
    floor = floors["map_gemm_seconds"] + floors["gram_seconds"] + floors["eigh_seconds"]
    rows.append({"stage": "fit, end to end", "seconds": run["fit_seconds"], "floor (s)": floor,
                 "floor is": "sum of the floors", "peak (GB)": run["peak_memory_gb"], "budget (GB)": base + plan["peak"]})
    for row in rows:
        row["ratio"] = row["seconds"] / row["floor (s)"] if row["floor (s)"] else None
        row["peak / budget"] = row["peak (GB)"] / row["budget (GB)"]
    summary = {"accuracy": run["accuracy"], "alpha": run["alpha"], "n_features": run["n_features"],
               "n_train": run["n_train"], "fit_seconds": run["fit_seconds"], "floor_seconds": floor,
               "ratio": run["fit_seconds"] / floor, "solver": run["solver"], "peak_memory_gb": run["peak_memory_gb"], "device": run["device"],
               "budget_gb": rows[-1]["budget (GB)"]}
    return rows, summary


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="small sizes: checks the harness, measures nothing")
    parser.add_argument("--out", default="benchmarks/reports/batch_size")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--readout-patches", type=int, default=1024, help="K of the image readout")
    parser.add_argument("--readout-only", action="store_true", help="only the image readout table")
    parser.add_argument("--alphas", type=float, nargs="+", help="the readout's first λ grid (extended "
                        "x10 past an end until LOO's choice is interior); default patch_readout's 1e-4..1e4")
    args = parser.parse_args(argv)
    from greenelm_book.bench import machine_info, write_report

    if args.quick:
        widths, n_rows, repeats, sums = (200,), 600, 1, (300, 600)
        patches, subset, loo_rows = 16, 500, 100
    else:
        widths, n_rows, repeats, sums = (2000, 4000), 16384, args.repeats, (8, 64, 512, 4096)
        patches, subset, loo_rows = args.readout_patches, None, 3000
    device = "cpu" if _has_torch() else None
    started = time.time()
    partial = [] if args.readout_only else partial_fit_rows(widths, n_rows, repeats)
    gathered = [] if args.readout_only else sums_rows(sums[-1] * 2 if args.quick else 8192, sums[-1], sums)
    readout, summary = readout_rows(patches, subset, loo_rows, device, args.alphas)
    command = "python -m benchmarks.batch_size " + " ".join(argv if argv is not None else [])
    report = {"machine": machine_info(), "date": datetime.now(timezone.utc).strftime("%Y-%m-%d"),
              "command": command.strip(), "minutes": (time.time() - started) / 60,
              "partial_fit": partial, "sums": gathered, "image_readout": readout, "image_summary": summary}
    machine = report["machine"]
    preamble = (f"# Any batch size at full speed\n\n{machine.get('cpu')} ({machine.get('cores')} cores), "
                f"{report['date']}; `{report['command']}` ({report['minutes']:.0f} min; every timed fit in a "
                "fresh process, medians of interleaved repeats).\n")
    sections = [
        ("partial_fit against fit (MNIST)", "Ratio: median seconds over the median of `fit` on the same rows "
         "at the same width. The readout is read once, after the last batch, except in the row that reads it "
         "after every batch.", partial, None),
        ("Gathered sums (float32)", "`NormalEquations.update` in the caller's blocks, the rows "
         "gathered into blocks of `sum_block_rows` before each `syrk`; the floor is one float32 `syrk` over "
         "all rows in the same process.", gathered, None),
        (f"Image readout end to end (CIFAR-10, K = {patches}, {summary['n_features']} features)",
         f"Test accuracy {summary['accuracy']:.2f} % at λ = {summary['alpha']:g} (one seed, features on "
         f"{summary['device']}, solved by {summary['solver']}). Peaks are the process's resident high-water mark per stage (data, "
         "interpreter and libraries included); the budget is the process before the data (interpreter and "
         "libraries) plus `readout_memory`'s plan of the data and the stage's arrays.",
         readout, None)]
    sections = [section for section in sections if section[2]]
    write_report(report, f"{args.out}.json", f"{args.out}.md", sections, preamble)
    print(open(f"{args.out}.md").read())


def _has_torch() -> bool:
    import importlib.util

    return importlib.util.find_spec("torch") is not None


if __name__ == "__main__":
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    main()
