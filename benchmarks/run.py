"""Measure greenelm against the paper's appendix code and scikit-learn, in one run, on full MNIST.

    python -m benchmarks.run                 # everything (≈ 25 min on 2 cores), writes benchmarks/report.*
    python -m benchmarks.run --quick         # small widths, one repeat (≈ 5 min: a check of the machinery, not a measurement), writes /tmp/greenelm-bench-quick/
    python -m benchmarks.run --only fit,memory --out /tmp/bench
    python -m benchmarks.run --only fit-floor,streaming-floor   # the fit (d = 4000, 8000) and the RLS update
                                             # against their FLOP floors, rates measured in the same
                                             # processes (≈ 7 min), merged into benchmarks/report.*

Writing into a folder that holds a report already keeps the tables this run did not measure (other
entries, ``benchmarks.peers``'s tables); each table says which command measured it.

Every measured fit runs in a fresh process (``greenelm_book.bench.run_isolated``) so its peak resident
memory is its own and a crash is a recorded failure.  By default those processes run with
``OPENBLAS_CORETYPE`` and ``OPENBLAS_L2_SIZE`` unset (``--blas native``: OpenBLAS picks its own
kernel for this CPU); ``--blas env`` keeps the environment as it is.  The GEMM peak is measured in
the same run under the same setting, and each process records the kernel it ran.  The figures
of merit are ratios measured in this run.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from greenelm_book import bench
from greenelm.solvers import LARGE_ORDER, fit_flops

ENTRIES = ("peak", "fit", "profile", "large-order", "streaming", "memory", "foundation", "same-h", "fit-floor",
           "streaming-floor")
HERE = Path(__file__).resolve().parent
N_MNIST, D_MNIST, K = 60000, 784, 10
TARGETS = {"floor": 1.3, "listing_normal": 3.0, "listing_pinv": 30.0, "pinv_accuracy_points": 0.05,
           "floor_float64": 1.2, "floor_float32": 1.25, "streaming_floor": 2.0}


@dataclass
class Config:
    """Sizes of one benchmark run."""

    widths: tuple = (2000, 4000, 8000)
    target_width: int = 4000
    foundation_widths: tuple = (2000, 4000)
    pinv_widths: tuple = (2000, 4000)            # listing-1 pinv is run at these widths only
    memory_sizes: tuple = (15000, 30000)         # plus the full 60000 from "fit"
    pinv_quality_width: int = 2000
    same_h_widths: tuple = (2000, 4000)          # listing 2's variants on one H (8000: ~4 min more)
    large_order: int = LARGE_ORDER
    streaming: dict = field(default_factory=lambda: {"n_hidden": 4000, "batch": 250, "n_updates": 8})
    repeats: int = 3
    expensive_seconds: float = 40.0              # one run (flagged) for fits predicted slower than this
    # fit-floor: fits interleaved with GEMM-rate measurements in one process, (d, repeats)
    floor_widths: tuple = ((4000, 5), (8000, 3))
    floor_n_train: int | None = None             # full MNIST
    streaming_floor: dict = field(default_factory=lambda: {"n_hidden": 4000, "batch": 250, "n_updates": 24})


QUICK = Config(widths=(300, 600), target_width=600, foundation_widths=(300,), pinv_widths=(300,),
               memory_sizes=(15000, 30000), pinv_quality_width=300, same_h_widths=(300, 600), large_order=3000,
               streaming={"n_hidden": 600, "batch": 250, "n_updates": 4}, repeats=1,
               floor_widths=((600, 1),), floor_n_train=5000,
               streaming_floor={"n_hidden": 600, "batch": 250, "n_updates": 4, "n_initial": 1000})


class Runner:
    """Runs cases in fresh processes, logs progress and keeps every raw record."""

    def __init__(self, env: dict, budget: float, log=print):
        self.env, self.budget, self.log = env, budget, log
        self.start = time.perf_counter()
        self.records: list[dict] = []

    def elapsed(self) -> float:
        return time.perf_counter() - self.start

    def over_budget(self) -> bool:
        return self.elapsed() > self.budget

    def run(self, label: str, target: str, kwargs: dict, repeats: int = 1, timeout: float = 1800) -> dict:
        """Run ``target(**kwargs)`` ``repeats`` times; returns {label, runs, ok, error}."""
        runs = []
        if self.over_budget():
            self.log(f"[{self.elapsed():7.1f} s] {label}: skipped (over the {self.budget:.0f} s budget)")
            entry = {"label": label, "target": target, "kwargs": kwargs, "repeats": repeats, "runs": [],
                     "ok": False, "error": f"skipped: over the time budget ({self.budget:.0f} s)"}
            self.records.append(entry)
            return entry
        for i in range(repeats):
            load = os.getloadavg()[0]
            record = bench.run_isolated(f"benchmarks.workloads:{target}", kwargs, env=self.env,
                                        timeout=timeout, cwd=HERE.parent)
            record["load_average_1min_before"] = load
            runs.append(record)
            status = "ok" if record["ok"] else f"FAILED ({record['error']})"
            self.log(f"[{self.elapsed():7.1f} s] {label} #{i + 1}/{repeats}: {status}, "
                     f"{record['wall_seconds']:.1f} s in the process, peak RSS "
                     f"{record['peak_rss_bytes'] / 2**20:.0f} MiB")
            if not record["ok"]:
                break
        entry = {"label": label, "target": target, "kwargs": kwargs, "repeats": repeats, "runs": runs,
                 "ok": all(r["ok"] for r in runs), "error": next((r["error"] for r in runs if not r["ok"]), None)}
        self.records.append(entry)
        return entry


def _median_of(entry: dict, key: str) -> float:
    return bench.median(r["result"][key] for r in entry["runs"] if r["ok"] and r["result"].get(key) is not None)


def _peak_rss(entry: dict) -> float:
    return bench.median(r["peak_rss_bytes"] for r in entry["runs"] if r["ok"])


def fit_row(entry: dict, method: str, dtype: str, n_hidden: int, flops: float, peak: dict,
            n_train: int = N_MNIST, time_key: str = "fit_seconds") -> dict:
    """One row of the fit table from an entry's runs (medians)."""
    seconds = _median_of(entry, time_key) if entry["ok"] else float("nan")
    rate = flops / seconds / 1e9 if seconds == seconds and seconds > 0 else float("nan")
    ok_runs = [r for r in entry["runs"] if r["ok"]]
    input_bytes = ok_runs[0]["result"].get("input_bytes") if ok_runs else None
    before = _median_of(entry, "rss_before_fit_bytes") if ok_runs else float("nan")
    during = _median_of(entry, "rss_after_fit_bytes") if ok_runs else float("nan")
    rss = _peak_rss(entry)
    return {"method": method, "dtype": dtype, "n_hidden": n_hidden, "n_train": n_train,
            "seconds": seconds, "runs": len(ok_runs), "times": [r["result"][time_key] for r in ok_runs],
            "gflop": flops / 1e9, "gflops_per_s": rate, "fraction_of_peak": rate / peak[dtype],
            "peak_rss_mib": rss / 2**20, "fit_added_mib": (during - before) / 2**20,
            "input_mib": input_bytes / 2**20 if input_bytes else None,
            "accuracy": _median_of(entry, "accuracy") if ok_runs else None,
            "kernels": ok_runs[0]["result"].get("kernels") if ok_runs else None,
            "status": "ok" if entry["ok"] else f"failed: {entry['error']}",
            "flag": ("single run (expensive)" if entry["repeats"] < Config.repeats
                     else "single run" if entry["repeats"] == 1 else "")}


def _spread(values) -> str:
    values = [v for v in values if v == v]
    return f"{min(values):.3g}–{max(values):.3g}" if values else "—"


def floor_row(entry: dict, d: int, dtype: str, judged: bool = True) -> dict:
    """One row of the fit-floor table: medians (and ranges) over the repeats of one process; ``judged``:
    the row carries the goal (the target width)."""
    goal = TARGETS["floor_float64" if dtype == "float64" else "floor_float32"]
    if not entry["ok"]:
        return {"n_hidden": d, "dtype": dtype, "status": f"failed: {entry['error']}"}
    result = entry["runs"][0]["result"]
    runs = result["runs"]
    ratios = [r["ratio"] for r in runs]
    ratio = bench.median(ratios)
    return {"n_hidden": d, "dtype": dtype, "n_train": result["n_train"], "repeats": len(runs),
            "fit_seconds": bench.median(r["seconds"] for r in runs),
            "floor_seconds": bench.median(r["floor_seconds"] for r in runs),
            "ratio_to_floor": ratio, "ratio_range": _spread(ratios),
            "gemm_gflops": bench.median(r["gemm_gflops"][dtype] for r in runs),
            "gemm_gflops_range": _spread([r["gemm_gflops"][dtype] for r in runs]),
            "syrk_vs_gemm": bench.median(r["syrk_vs_gemm"] for r in runs),
            "feature_gemm_vs_gemm": bench.median(r["feature_gemm_vs_gemm"] for r in runs),
            "bias_relu_share": bench.median(r["bias_relu_share"] for r in runs),
            "goal": f"<= {goal:g}" if judged else "—", "met": (ratio <= goal) if judged else None,
            "peak_rss_mib": entry["runs"][0]["peak_rss_bytes"] / 2**20, "status": "ok"}


def floor_time_row(entry: dict, d: int, dtype: str) -> dict | None:
    """Where a fit-floor row's time goes: medians over the repeats of the seconds inside the BLAS and
    Cholesky calls (by kind) and outside them, and each part over the floor, so that
    ``ratio_to_floor = blas_over_floor + outside_over_floor``; None for a failed entry."""
    if not entry["ok"]:
        return None
    runs = entry["runs"][0]["result"]["runs"]
    median = bench.median
    row = {"n_hidden": d, "dtype": dtype, "fit_seconds": median(r["seconds"] for r in runs),
           "floor_seconds": median(r["floor_seconds"] for r in runs),
           "ratio_to_floor": median(r["ratio"] for r in runs),
           "blas_over_floor": median(r["blas_seconds"] / r["floor_seconds"] for r in runs),
           "outside_over_floor": median(r["outside_blas_seconds"] / r["floor_seconds"] for r in runs)}
    for kind in ("gemm", "syrk", "syr2k", "cholesky"):
        row[f"{kind}_seconds"] = median(r["blas"][kind]["seconds"] for r in runs)
    row["outside_blas_seconds"] = median(r["outside_blas_seconds"] for r in runs)
    row["blas_gflops"] = median(sum(e["gflop"] for e in r["blas"].values()) / r["blas_seconds"] for r in runs)
    row["gemm_gflops_measured"] = median(r["gemm_gflops"][dtype] for r in runs)
    return row


def streaming_floor_row(entry: dict) -> dict:
    """The streaming-floor row: the median update against 3·d²·B FLOPs at the rates measured beside it."""
    if not entry["ok"]:
        return {"status": f"failed: {entry['error']}"}
    r = entry["runs"][0]["result"]
    ratio = bench.median(r["ratios"])
    return {"n_hidden": r["n_hidden"], "batch": r["batch"], "updates": len(r["update_seconds"]),
            "update_seconds": bench.median(r["update_seconds"]), "ratio_to_floor": ratio,
            "ratio_range": _spread(r["ratios"]), "gemm_gflops": bench.median(r["gemm_gflops"]),
            "gemm_gflops_range": _spread(r["gemm_gflops"]), "goal": f"<= {TARGETS['streaming_floor']:g}",
            "met": ratio <= TARGETS["streaming_floor"], "status": "ok"}


def same_h_flops(variant: str, d: int) -> float:
    """FLOPs of one solve on a given H (N_MNIST × d), features excluded."""
    if variant == "greenelm":
        return N_MNIST * d * d + 2.0 * N_MNIST * d * K + d**3 / 3 + 2.0 * d * d * K
    if variant == "pinv":
        return bench.pinv_flops(N_MNIST, None, d, K)
    if variant == "gelsd":
        return bench.gelsd_flops(N_MNIST, None, d, K)
    return bench.listing_flops(N_MNIST, None, d, K, variant)


def predicted_seconds(flops: float, gflops: float, efficiency: float = 0.6) -> float:
    return flops / (gflops * 1e9 * efficiency)


def run_benchmarks(cfg: Config, selected: set, runner: Runner) -> dict:
    """Run the selected entries; returns the report dict (tables of rows + targets + raw records)."""
    report: dict = {"tables": {}, "skipped": [], "notes": []}
    # -- GEMM peak, in a process with the same BLAS environment as every measurement ----------
    peak_entry = runner.run("GEMM peak (start)", "peak", {"repeats": 5})
    if not peak_entry["ok"]:
        raise SystemExit(f"could not measure the GEMM peak: {peak_entry['error']}")
    p = peak_entry["runs"][0]["result"]
    peak = {"float64": p["float64"]["best"], "float32": p["float32"]["best"]}
    report["peak"] = {"start": p}
    report["blas"] = p["blas"]
    tables = report["tables"]
    fits: dict[tuple, dict] = {}

    def reps(flops, dtype="float64", efficiency=0.6):
        return cfg.repeats if predicted_seconds(flops, peak[dtype], efficiency) <= cfg.expensive_seconds else 1

    # -- greenelm and the paper's listing 1 on full MNIST, d in widths ------------------------
    fit_rows: list[dict] = []
    widths = sorted(cfg.widths, key=lambda w: (w != cfg.target_width, w))  # the target width first
    if "fit" in selected:
        rows = fit_rows
        for d in widths:
            for dtype in ("float64", "float32"):
                flops = fit_flops(N_MNIST, D_MNIST, d, K).total
                e = runner.run(f"greenelm {dtype} d={d}", "greenelm_fit", {"n_hidden": d, "dtype": dtype},
                               repeats=reps(flops, dtype))
                fits[("greenelm", dtype, "unit", d)] = row = fit_row(e, "greenelm cholesky", dtype, d, flops, peak)
                row["floor_seconds"] = bench.flop_floor_seconds(N_MNIST, D_MNIST, d, K, peak, dtype)
                row["vs_floor"] = row["seconds"] / row["floor_seconds"]
                rows.append(row)
            flops = bench.listing_flops(N_MNIST, D_MNIST, d, K, "lud")
            e = runner.run(f"listing 1 normal d={d}", "listing1_fit", {"n_hidden": d, "solve": "normal"},
                           repeats=reps(flops))
            fits[("listing1-normal", d)] = fit_row(e, "listing 1, np.linalg.solve (λ=1e-3)", "float64", d, flops, peak)
            rows.append(fits[("listing1-normal", d)])

    # -- where greenelm's time goes: its steps timed one by one ---------------------------------
    if "profile" in selected:
        rows = []
        for dtype in ("float64", "float32"):
            d = cfg.target_width
            e = runner.run(f"greenelm phases {dtype} d={d}", "greenelm_phases", {"n_hidden": d, "dtype": dtype},
                           repeats=1)
            if not e["ok"]:
                rows.append({"dtype": dtype, "phase": "all", "status": f"failed: {e['error']}"})
                continue
            s = e["runs"][0]["result"]["seconds"]
            f = fit_flops(N_MNIST, D_MNIST, d, K)
            phases = {"features": (s["features"], f.features, dtype),
                      "Gram + HᵀY (syrk + GEMM)": (s["update"], f.gram, dtype),
                      "  of which HᵀY (timed alone)": (s["hty"], 2.0 * N_MNIST * d * K, dtype),
                      "  alternative: Gram by full GEMM HᵀH (not in the fit)": (s["gram_gemm"], 2.0 * N_MNIST * d * d, dtype),
                      "  alternative: Gram by block-row GEMMs (not in the fit)": (
                          s["gram_blocked"], N_MNIST * d * d + N_MNIST * d * 1024, dtype),
                      "solve (float64 Cholesky)": (s["solve"], f.solve, "float64"),
                      "setup (draw W, b)": (s["setup"], 0.0, dtype),
                      "prediction (10,000 test)": (s["predict"], 2.0 * 10000 * (D_MNIST + K) * d, dtype)}
            total = s["setup"] + s["features"] + s["update"] + s["solve"]
            for phase, (sec, flops, pdtype) in phases.items():
                rows.append({"dtype": dtype, "n_hidden": d, "phase": phase, "seconds": sec,
                             "share_of_fit": None if phase.startswith(("pred", "  alt")) else sec / total,
                             "gflop": flops / 1e9, "gflops_per_s": flops / sec / 1e9 if sec > 0 and flops else None,
                             "fraction_of_peak": flops / sec / 1e9 / peak[pdtype] if sec > 0 and flops else None,
                             "floor_seconds": flops / (peak[pdtype] * 1e9) if flops else None})
        tables["profile"] = rows

    # -- an SPD solve of order >= LARGE_ORDER (routed to torch), in its own process -------------
    if "large-order" in selected:
        order = cfg.large_order
        e = runner.run(f"large order {order} (cholesky)", "large_order", {"order": order}, repeats=1)
        row = {"order": order, "solver": "cholesky", "routed_to_torch": order >= LARGE_ORDER,
               "peak_rss_mib": e["runs"][0]["peak_rss_bytes"] / 2**20 if e["runs"] else None,
               "status": "ok" if e["ok"] else f"failed: {e['error']}"}
        if e["ok"]:
            r = e["runs"][0]["result"]
            row.update(seconds=r["seconds"], relative_residual=r["relative_residual"],
                       gflops_per_s=order**3 / 3 / r["seconds"] / 1e9)
        tables["large_order"] = [row]

    # -- streaming update latency: the paper's listing 3 against greenelm.streaming -------------
    if "streaming" in selected:
        e = runner.run("streaming update latency", "streaming_latency", cfg.streaming, repeats=1)
        report["streaming"] = e["runs"][0]["result"] if e["ok"] else {"available": False, "reason": e["error"]}

    # -- peak memory against N -------------------------------------------------------------------
    if "memory" in selected:
        d = cfg.target_width
        rows = []
        for n in cfg.memory_sizes + (N_MNIST,):
            for method, target, kwargs in (("greenelm float64", "greenelm_fit", {"n_hidden": d}),
                                           ("listing 1 normal", "listing1_fit", {"n_hidden": d, "solve": "normal"})):
                key = ("greenelm", "float64", "unit", d) if method.startswith("greenelm") else ("listing1-normal", d)
                if n == N_MNIST and key in fits:
                    r = fits[key]
                else:
                    e = runner.run(f"memory {method} N={n} d={d}", target, {**kwargs, "n_train": n}, repeats=1)
                    r = fit_row(e, method, "float64", d, 0.0, peak, n_train=n)
                rows.append({"method": method, "n_train": n, "n_hidden": d, "peak_rss_mib": r["peak_rss_mib"],
                             "input_mib": r["input_mib"], "fit_added_mib": r["fit_added_mib"],
                             "h_mib": n * d * 8 / 2**20, "seconds": r["seconds"], "status": r["status"]})
        tables["memory"] = rows
        report["memory_slopes"] = _memory_slopes(rows)

    # -- the paper's listing 1 as printed (pinv): the slowest fits, after the cheap entries ---------
    if "fit" in selected:
        rows = fit_rows
        for d in sorted(widths, key=lambda w: w not in cfg.pinv_widths):  # measured ones first (estimates)
            flops = bench.pinv_flops(N_MNIST, D_MNIST, d, K)
            if d in cfg.pinv_widths:
                e = runner.run(f"listing 1 pinv d={d}", "listing1_fit", {"n_hidden": d, "solve": "pinv"}, repeats=1)
                fits[("listing1-pinv", d)] = fit_row(e, "listing 1, np.linalg.pinv (as printed)", "float64", d,
                                                     flops, peak)
                rows.append(fits[("listing1-pinv", d)])
            else:
                measured = [fits[("listing1-pinv", w)] for w in cfg.pinv_widths if ("listing1-pinv", w) in fits
                            and fits[("listing1-pinv", w)]["gflops_per_s"] == fits[("listing1-pinv", w)]["gflops_per_s"]]
                estimate = flops / (measured[-1]["gflops_per_s"] * 1e9) if measured else float("nan")
                reason = (f"skipped (budget): estimated {estimate:.0f} s from the FLOP model at the GFLOP/s "
                          f"measured at d={measured[-1]['n_hidden']}" if measured else "skipped (budget)")
                report["skipped"].append({"entry": f"listing 1 pinv d={d}", "reason": reason,
                                          "estimated_seconds": estimate})
                rows.append({"method": "listing 1, np.linalg.pinv (as printed)", "dtype": "float64",
                             "n_hidden": d, "n_train": N_MNIST, "seconds": None, "estimated_seconds": estimate,
                             "gflop": flops / 1e9, "status": reason, "flag": "not run"})
        order = {"greenelm cholesky": 0, "listing 1, np.linalg.solve (λ=1e-3)": 1}
        rows.sort(key=lambda r: (r["n_hidden"], order.get(r["method"], 2), r["dtype"]))
        for row in rows:
            base = fits.get(("greenelm", "float64", "unit", row["n_hidden"]))
            row["ratio_to_greenelm"] = (row["seconds"] / base["seconds"]
                                        if base and row.get("seconds") else None)
        tables["fit"] = rows

    # -- foundation figures: both W scales, float64 and float32, beside listing 1 -------------
    if "foundation" in selected:
        rows = []
        for d in cfg.foundation_widths:
            for scale in ("unit", "he"):
                for dtype in ("float64", "float32"):
                    key = ("greenelm", dtype, scale, d)
                    if key not in fits:
                        e = runner.run(f"greenelm {dtype} W={scale} d={d}", "greenelm_fit",
                                       {"n_hidden": d, "dtype": dtype, "weight_scale": scale}, repeats=cfg.repeats)
                        fits[key] = fit_row(e, "greenelm cholesky", dtype, d, fit_flops(N_MNIST, D_MNIST, d, K).total, peak)
                    r = fits[key]
                    rows.append({"code": "greenelm", "n_hidden": d, "weight_scale": scale, "dtype": dtype,
                                 "solver": "cholesky λ=1e-3", "accuracy": r["accuracy"], "fit_seconds": r["seconds"],
                                 "peak_rss_mib": r["peak_rss_mib"], "runs": r["runs"], "status": r["status"]})
            for solve, label in (("pinv", "np.linalg.pinv (as printed)"), ("normal", "np.linalg.solve λ=1e-3")):
                key = (f"listing1-{solve}", d)
                if key not in fits:
                    flops = bench.listing_flops(N_MNIST, D_MNIST, d, K, "pinv" if solve == "pinv" else "lud")
                    e = runner.run(f"listing 1 {solve} d={d}", "listing1_fit", {"n_hidden": d, "solve": solve},
                                   repeats=1 if solve == "pinv" else reps(flops))
                    fits[key] = fit_row(e, f"listing 1, {label}", "float64", d, flops, peak)
                r = fits[key]
                rows.append({"code": "paper listing 1", "n_hidden": d, "weight_scale": "unit (seed 42)",
                             "dtype": "float64 (H)", "solver": label, "accuracy": r["accuracy"],
                             "fit_seconds": r["seconds"], "peak_rss_mib": r["peak_rss_mib"], "runs": r["runs"],
                             "status": r["status"]})
        tables["foundation"] = rows

    # -- listing 2's solvers, Ridge, greenelm's solves on the listing's own H (+ pinv quality) --
    if "same-h" in selected:
        rows = []
        for d in cfg.widths:
            if d not in cfg.same_h_widths:
                report["skipped"].append({"entry": f"same H d={d}", "reason": "not in Config.same_h_widths (time "
                                          "budget); listing 1 normal equations at this d are in the fit table"})
                continue
            exact = ["pinv", "gelsd"] if d == cfg.pinv_quality_width else []
            variants = ["lud", "cholesky", "ridge", "greenelm"] + exact
            e = runner.run(f"same H d={d} ({', '.join(variants)})", "same_h_solvers",
                           {"n_hidden": d, "variants": variants}, repeats=1)
            if not e["ok"]:
                rows.append({"n_hidden": d, "variant": ",".join(variants), "status": f"failed: {e['error']}"})
                continue
            result = e["runs"][0]["result"]
            for variant, v in result["variants"].items():
                flops = same_h_flops(variant, d)
                rows.append({"n_hidden": d, "variant": {"lud": "listing 2 'lud'", "cholesky": "listing 2 'cholesky'",
                                                         "pinv": "listing 2 'pinv'", "ridge": "sklearn Ridge(cholesky)",
                                                         "greenelm": "greenelm NormalEquations + cholesky",
                                                         "gelsd": "greenelm solve_min_norm (gelsd)"}[variant],
                             "solve_seconds": v["solve_seconds"], "gflop": flops / 1e9,
                             "gflops_per_s": flops / v["solve_seconds"] / 1e9,
                             "fraction_of_peak": flops / v["solve_seconds"] / 1e9 / peak["float64"],
                             "ratio_to_greenelm": v["solve_seconds"] / result["variants"]["greenelm"]["solve_seconds"],
                             "accuracy": v["accuracy"], "disagreement_vs_greenelm": v.get("disagreement_vs_greenelm"),
                             "h_mib": result["h_bytes"] / 2**20, "peak_rss_mib": e["runs"][0]["peak_rss_bytes"] / 2**20,
                             "flag": "single run; one H shared by all variants"})
            if result.get("pinv_vs_gelsd"):
                v = result["variants"]
                tables["pinv_quality"] = [{
                    "n_hidden": d, "gelsd_seconds": v["gelsd"]["solve_seconds"],
                    "numpy_pinv_seconds": v["pinv"]["solve_seconds"],
                    "speedup": v["pinv"]["solve_seconds"] / v["gelsd"]["solve_seconds"],
                    "gelsd_accuracy": v["gelsd"]["accuracy"], "numpy_pinv_accuracy": v["pinv"]["accuracy"],
                    "accuracy_difference": v["gelsd"]["accuracy"] - v["pinv"]["accuracy"],
                    **result["pinv_vs_gelsd"], "flag": "single run, on the listing's H"}]
        tables["same_h"] = rows

    # -- the fit and the streaming update against their FLOP floors, rates measured alongside ----
    if "fit-floor" in selected:
        tables["fit_floor"] = rows = []
        for d, repeats in cfg.floor_widths:
            for dtype in ("float64", "float32"):
                e = runner.run(f"fit floor {dtype} d={d} ({repeats} repeats in one process)", "fit_floor",
                               {"n_hidden": d, "dtype": dtype, "repeats": repeats, "n_train": cfg.floor_n_train},
                               timeout=3600)
                rows.append(floor_row(e, d, dtype, judged=d == cfg.floor_widths[0][0]))
                timed = floor_time_row(e, d, dtype)
                if timed is not None:
                    tables.setdefault("fit_floor_time", []).append(timed)
    if "streaming-floor" in selected:
        e = runner.run("streaming update floor", "streaming_floor", cfg.streaming_floor)
        tables["streaming_floor"] = [streaming_floor_row(e)]

    end = runner.run("GEMM peak (end)", "peak", {"repeats": 5})
    if end["ok"]:
        report["peak"]["end"] = end["runs"][0]["result"]
    report["peak"]["used"] = peak
    report["targets"] = _targets(fits, cfg, peak, tables)
    report["raw"] = runner.records
    return report


def _memory_slopes(rows: list[dict]) -> dict:
    """Least-squares slope of peak RSS against N (MiB per 10,000 samples), per method."""
    out = {}
    for method in sorted({r["method"] for r in rows}):
        pts = [(r["n_train"], r["peak_rss_mib"]) for r in rows if r["method"] == method
               and r["peak_rss_mib"] == r["peak_rss_mib"]]
        if len(pts) >= 2:
            mx = statistics.mean(p[0] for p in pts)
            my = statistics.mean(p[1] for p in pts)
            slope = (sum((x - mx) * (y - my) for x, y in pts) / sum((x - mx) ** 2 for x, _ in pts))
            out[method] = 1e4 * slope
    return out


def _targets(fits: dict, cfg: Config, peak: dict, tables: dict) -> list[dict]:
    """The issue's performance targets at the target width, each with its measured value."""
    d = cfg.target_width
    g64 = fits.get(("greenelm", "float64", "unit", d))
    normal, pinv = fits.get(("listing1-normal", d)), fits.get(("listing1-pinv", d))
    out = []

    def add(name, value, goal, better, detail=""):
        met = None if value is None or value != value else (value <= goal if better == "<=" else value >= goal)
        out.append({"target": name, "measured": value, "goal": f"{better} {goal:g}", "met": met, "detail": detail})

    # The fits' floor ratios stay in the "fit" table (vs_floor); the targets on them are the fit-floor
    # entry's (floor_targets), whose GEMM rates are measured in the fits' own processes.
    if g64 and normal and normal["seconds"] == normal["seconds"] and g64["seconds"] == g64["seconds"]:
        add(f"listing normal equations / greenelm float64 (d={d})", normal["seconds"] / g64["seconds"],
            TARGETS["listing_normal"], ">=", f"{normal['seconds']:.2f} s vs {g64['seconds']:.2f} s")
    if (g64 and pinv and pinv["seconds"] == pinv["seconds"] and g64["seconds"] == g64["seconds"]
            and None not in (g64["accuracy"], pinv["accuracy"])):
        gap = g64["accuracy"] - pinv["accuracy"]
        add(f"listing pinv / greenelm float64 (d={d})", pinv["seconds"] / g64["seconds"], TARGETS["listing_pinv"],
            ">=", f"{pinv['seconds']:.1f} s vs {g64['seconds']:.2f} s; accuracy {g64['accuracy']:.2f} vs "
                  f"{pinv['accuracy']:.2f} % ({gap:+.2f} pts; different projections: greenelm seed 0, listing seed 42)")
        add(f"|accuracy greenelm − listing pinv| (d={d}, points)", abs(gap), TARGETS["pinv_accuracy_points"], "<=",
            "see the same-H table for the solver effect on one projection")
    slopes = {}
    for row in tables.get("memory", []):
        slopes.setdefault(row["method"], []).append(row)
    for method, rows in slopes.items():
        rows = sorted(rows, key=lambda r: r["n_train"])
        growth = rows[-1]["fit_added_mib"] - rows[0]["fit_added_mib"]
        add(f"{method}: growth of the fit's own peak memory from N={rows[0]['n_train']} to {rows[-1]['n_train']} (MiB)",
            growth, 0.25 * rows[-1]["h_mib"], "<=",
            f"H at N={rows[-1]['n_train']} would be {rows[-1]['h_mib']:.0f} MiB; goal: grow by < 1/4 of it")
    out.extend(floor_targets(tables, cfg.floor_widths[0][0] if cfg.floor_widths else None))
    return out


#: targets an older report may hold that the fit-floor entry's targets replace (the floor ratio against a
#: GEMM rate measured in another process, under another BLAS setting)
SUPERSEDED_TARGETS = ("greenelm float64 time / FLOP floor", "greenelm float32 time / FLOP floor")


def floor_targets(tables: dict, width) -> list[dict]:
    """The fit-floor (float64 ≤ 1.2×, float32 ≤ 1.25× at ``width``) and streaming-floor (≤ 2×) targets,
    each tagged with the table it comes from (so a later partial run can replace it)."""
    out = []
    for row in tables.get("fit_floor", []):
        if row.get("n_hidden") == width and row.get("status") == "ok":
            goal = TARGETS["floor_float64" if row["dtype"] == "float64" else "floor_float32"]
            out.append({"target": f"greenelm {row['dtype']} fit / FLOP floor, rates in the same process (d={width})",
                        "measured": row["ratio_to_floor"], "goal": f"<= {goal:g}",
                        "met": row["ratio_to_floor"] <= goal, "table": "fit_floor",
                        "detail": f"median of {row['repeats']} (range {row['ratio_range']}); "
                                  f"{row['fit_seconds']:.2f} s vs {row['floor_seconds']:.2f} s"})
    for row in tables.get("streaming_floor", []):
        if row.get("status") == "ok":
            out.append({"target": f"StreamingRidge update / 3·d²·B floor (d={row['n_hidden']}, B={row['batch']})",
                        "measured": row["ratio_to_floor"], "goal": f"<= {TARGETS['streaming_floor']:g}",
                        "met": row["met"], "table": "streaming_floor",
                        "detail": f"median of {row['updates']} updates (range {row['ratio_range']}); "
                                  f"{row['update_seconds'] * 1e3:.0f} ms"})
    return out


def merge_reports(old: dict, new: dict) -> dict:
    """``new`` with the tables (and their targets) of ``old`` that ``new`` did not measure.

    Each table's origin is kept in ``provenance`` (command, date), so a report assembled from
    several runs (``--only`` entries, ``benchmarks.peers``) says which run measured what."""
    merged = dict(new)
    provenance = dict(old.get("provenance", {}))
    old_meta = old.get("meta", {})
    for name in old.get("tables", {}):
        provenance.setdefault(name, {"command": old_meta.get("command"), "date": old_meta.get("date")})
    new_meta = new.get("meta", {})
    for name in new.get("tables", {}):
        provenance[name] = {"command": new_meta.get("command"), "date": new_meta.get("date")}
    tables = {**{k: v for k, v in old.get("tables", {}).items() if k not in new.get("tables", {})},
              **new.get("tables", {})}
    kept = [t for t in old.get("targets", []) if t.get("table", "fit") not in new.get("tables", {})
            and not t["target"].startswith(SUPERSEDED_TARGETS)]
    merged["tables"], merged["provenance"], merged["targets"] = tables, provenance, kept + new.get("targets", [])
    for key in ("streaming", "memory_slopes", "peak", "blas"):
        if key not in merged and key in old:
            merged[key] = old[key]
    return merged


def merge_into(path: Path, tables: dict, targets: list, meta: dict) -> dict:
    """Merge ``tables`` and ``targets`` measured by another command (``meta``: command, date, …) into
    the report at ``path`` (JSON; the Markdown beside it is rewritten); returns the merged report."""
    import json

    old = json.loads(path.read_text()) if path.exists() else {}
    new = {"tables": tables, "targets": targets, "meta": meta}
    merged = merge_reports(old, new)
    merged["meta"] = old.get("meta", meta)                 # the main run's description stays
    preamble, sections = render_markdown(merged)
    bench.write_report(merged, path, path.with_suffix(".md"), sections, preamble)
    return merged


FIT_COLUMNS = ["method", "dtype", "n_hidden", "seconds", "runs", "ratio_to_greenelm", "gflop", "gflops_per_s",
               "fraction_of_peak", "vs_floor", "peak_rss_mib", "input_mib", "accuracy", "status", "flag"]


def render_markdown(report: dict) -> tuple[str, list]:
    """The Markdown preamble and sections of the report."""
    if "peak" not in report or "machine" not in report.get("meta", {}):   # tables merged into no main run
        return "# greenelm benchmarks\n", _sections(report)
    meta, peak = report["meta"], report["peak"]
    kernels = sorted({f"{b['library']} → {b['architecture']} ({b['num_threads']} threads)" for b in report["blas"]})
    pre = [f"# greenelm benchmarks\n",
           f"Produced by `{meta['command']}` on {meta['date']} in {meta['duration_seconds'] / 60:.1f} min "
           f"({'quick' if meta['quick'] else 'full'} run). Machine: {meta['machine']['cpu']}, "
           f"{meta['machine']['cores']} cores, {meta['machine']['memory_bytes'] / 2**30:.0f} GiB. "
           f"BLAS setting of the measured processes: `{meta['blas_mode']}` ({meta['blas_mode_text']}).\n",
           "Kernels loaded: " + "; ".join(kernels) + ".\n",
           *([f"Re-rendered {meta['rerendered']}.\n"] if meta.get("rerendered") else []),
           f"Load average (1 min) at the start {meta['load_average_start'][0]:.1f}, at the end "
           f"{meta['load_average_end'][0]:.1f} on {meta['machine']['cores']} cores (each measurement's is in the "
           "JSON); other work on the machine slows every entry alike but is not excluded.\n",
           f"Measured GEMM peak (best of 5, 4096², same run, same setting): float64 "
           f"{peak['used']['float64']:.0f} GFLOP/s, float32 {peak['used']['float32']:.0f} GFLOP/s"
           + (f" (end of run: {peak['end']['float64']['best']:.0f} / {peak['end']['float32']['best']:.0f})."
              if "end" in peak else ".") + "\n",
           "Times are medians over `runs` fresh processes (single runs are flagged); ratios are against greenelm "
           "float64 at the same d, measured in this run. Peak RSS is the process's peak from the start of the fit "
           "to its exit (the peak mark is reset just before the fit, so data-loading transients are excluded; the "
           "loaded data, the libraries, the fit and the prediction are included); `input_mib` is the training matrix "
           "X itself; `fit_added_mib` is the peak during the fit above the RSS just before it.\n",
           "FLOP models: " + "; ".join(f"**{k}**: {v}" for k, v in bench.FLOP_MODELS.items()) + ".\n"]
    return "\n".join(pre), _sections(report)


def _sections(report: dict) -> list:
    """The report's Markdown sections ``(title, text, rows, columns)``, for the tables it holds."""
    sections = [("Targets", "", report.get("targets", []), ["target", "measured", "goal", "met", "detail"])]
    t = report.get("tables", {})
    if "fit" in t:
        sections.append(("Full-MNIST fits", _origin(report, "fit"), t["fit"], FIT_COLUMNS))
    if "same_h" in t:
        sections.append(("Solvers on the listing's own H",
                         _origin(report, "same_h") + "Listing 2's `solve_green_elm` variants, scikit-learn `Ridge(alpha=1e-3, solver='cholesky', "
                         "fit_intercept=False)` and greenelm's streamed NormalEquations + Cholesky on one H "
                         "(listing 1's features, seed 42). Times exclude the features.", t["same_h"],
                         ["n_hidden", "variant", "solve_seconds", "ratio_to_greenelm", "gflop", "gflops_per_s",
                          "fraction_of_peak", "accuracy", "disagreement_vs_greenelm", "h_mib", "peak_rss_mib", "flag"]))
    if "foundation" in t:
        sections.append(("Foundation figures", _origin(report, "foundation") + "Full MNIST, λ = 1e-3, both W scales; the paper's listing 1 "
                         "beside it, same machine, same run. A failure is recorded with its message.",
                         t["foundation"], None))
    if "memory" in t:
        slopes = ", ".join(f"{k}: {v:.0f} MiB per 10,000 samples" for k, v in report.get("memory_slopes", {}).items())
        sections.append(("Peak memory against N", _origin(report, "memory") + f"Slope of peak RSS against N: {slopes}.", t["memory"], None))
    if "pinv_quality" in t:
        sections.append(("Exact minimum-norm solution: gelsd against np.linalg.pinv",
                         "greenelm's `solve_min_norm` (LAPACK gelsd) and `np.linalg.pinv(H) @ Y` on the same H.",
                         t["pinv_quality"], None))
    if "streaming" in report:
        s = report["streaming"]
        text = (f"Not available: {s.get('reason')}" if not s.get("available") else
                f"Per-update latency through `greenelm.streaming.StreamingRidge`, d = {s['n_hidden']}, "
                f"B = {s['batch']}, median of {s['n_updates']} updates after the same initial fit, float64, CPU. "
                "The last column checks each final readout against the batch ridge solution on the same rows.")
        sections.append(("Streaming update latency", text, s.get("updates"),
                         ["update", "median_seconds", "max_difference_from_batch_solution", "error"]))
    if "large_order" in t:
        sections.append(("Large-order routing", f"An SPD solve of order ≥ LARGE_ORDER ({LARGE_ORDER}) through "
                         "`solve_normal_equations`, in its own process (a crash would be recorded).",
                         t["large_order"], None))
    if "profile" in t:
        sections.append(("Where greenelm's time goes", _origin(report, "profile") + "The estimator's steps timed one by one at the target width.",
                         t["profile"], None))
    if "fit_floor" in t:
        sections.append(("Fits against their FLOP floor", _origin(report, "fit_floor") +
                         "MNIST (`n_train` rows). Each configuration runs in one fresh process that alternates a GEMM-rate "
                         "measurement (4096², best of 2) with a fit; the floor of each repeat is the fit's FLOPs "
                         "(features and Gram at the rate of the fit's dtype, the float64 solve at the float64 "
                         "rate) at the rates just measured. `syrk_vs_gemm` and `feature_gemm_vs_gemm`: one "
                         "4,096-row block's syrk and feature GEMM, timed alone, as a fraction of the GEMM rate; "
                         "`bias_relu_share`: the elementwise pass's share of that block's time.",
                         t["fit_floor"], None))
    if "fit_floor_time" in t:
        sections.append(("Where the fits' time goes, against their floor", _origin(report, "fit_floor_time") +
                         "The same fits, their SciPy BLAS calls (`gemm`: the features, and H̃ᵀY in float64; "
                         "`syrk`: the Gram; `syr2k`: the float32 path's mean correction) and the Cholesky "
                         "factorisation clocked as they run. `blas_over_floor` + `outside_over_floor` = "
                         "`ratio_to_floor`: the first is the time inside those calls over the floor (above 1 where "
                         "they run below the GEMM rate measured beside the fit), the second the time outside "
                         "them (elementwise passes, centring, copies, checks). `blas_gflops`: the calls' FLOPs "
                         "over their seconds, float32 and float64 calls together.", t["fit_floor_time"], None))
    if "streaming_floor" in t:
        sections.append(("Streaming update against its FLOP floor", _origin(report, "streaming_floor") +
                         "`StreamingRidge.update` (float64, per-call mode) on MNIST features after an initial "
                         "fit; the floor is 3·d²·B FLOPs at the float64 GEMM rate measured after every fourth "
                         "update in the same process.", t["streaming_floor"], None))
    if "peers_fits" in t:
        sections.append(("greenelm against its peers: fits", _origin(report, "peers_fits") +
                         "MNIST; medians over the rounds, each fit in a fresh process, the libraries "
                         "interleaved (see `benchmarks/peers.md`).", t["peers_fits"], None))
    if "peers_streaming" in t:
        sections.append(("greenelm against its peers: streaming", _origin(report, "peers_streaming"),
                         t["peers_streaming"], None))
    if report.get("skipped"):
        sections.append(("Skipped", "", report["skipped"], ["entry", "reason", "estimated_seconds"]))
    return sections


def _origin(report: dict, table: str) -> str:
    """'Measured by `command` on date. ' for a table merged from another run, else ''."""
    origin = report.get("provenance", {}).get(table)
    if not origin or origin.get("command") == report.get("meta", {}).get("command"):
        return ""
    return f"Measured by `{origin.get('command')}` on {origin.get('date')}. "


#: how each reported row's FLOPs are modelled: fit-table method → (listing variant, features included)
_FIT_MODELS = {"listing 1, np.linalg.solve (λ=1e-3)": "lud", "listing 1, np.linalg.pinv (as printed)": "pinv"}
_SAME_H_MODELS = {"listing 2 'lud'": "lud", "listing 2 'cholesky'": "cholesky", "listing 2 'pinv'": "pinv",
                  "sklearn Ridge(cholesky)": "ridge", "greenelm NormalEquations + cholesky": "greenelm",
                  "greenelm solve_min_norm (gelsd)": "gelsd"}


def rederive_flops(report: dict) -> dict:
    """Recompute the FLOP-derived columns (gflop, GFLOP/s, fraction of peak) of a stored report
    with the current FLOP models; measured times, memory and accuracies are untouched."""
    peak = report["peak"]["used"]
    for row in report["tables"].get("fit", []):
        variant = _FIT_MODELS.get(row["method"])
        if variant is None:
            continue
        row["gflop"] = bench.listing_flops(N_MNIST, D_MNIST, row["n_hidden"], K, variant) / 1e9
        if row.get("seconds") == row.get("seconds") and row.get("seconds"):
            row["gflops_per_s"] = row["gflop"] / row["seconds"]
            row["fraction_of_peak"] = row["gflops_per_s"] / peak[row["dtype"]]
    for row in report["tables"].get("same_h", []):
        variant = _SAME_H_MODELS.get(row.get("variant"))
        if variant is None or "solve_seconds" not in row:
            continue
        row["gflop"] = same_h_flops(variant, row["n_hidden"]) / 1e9
        row["gflops_per_s"] = row["gflop"] / row["solve_seconds"]
        row["fraction_of_peak"] = row["gflops_per_s"] / peak["float64"]
    return report


def rerender(path: Path) -> None:
    """Re-derive FLOP columns of ``path`` (a report.json) and write it and its Markdown again."""
    import json

    report = rederive_flops(json.loads(path.read_text()))
    report["meta"]["rerendered"] = (f"{dt.datetime.now(dt.timezone.utc):%Y-%m-%d %H:%M UTC}: FLOP-derived columns "
                                    "recomputed with the current FLOP models (times unchanged)")
    preamble, sections = render_markdown(report)
    bench.write_report(report, path, path.with_suffix(".md"), sections, preamble)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.run", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="small widths, one repeat (a few minutes)")
    parser.add_argument("--only", default=",".join(ENTRIES),
                        help=f"comma-separated entries to run (default: all): {', '.join(ENTRIES)}")
    parser.add_argument("--blas", choices=("native", "env"), default="native",
                        help="native: unset OPENBLAS_CORETYPE/OPENBLAS_L2_SIZE in the measured processes "
                             "(OpenBLAS picks its kernel); env: keep the environment")
    parser.add_argument("--out", type=Path, default=None,
                        help="folder for report.json/report.md (default: benchmarks/; with --quick: "
                             "/tmp/greenelm-bench-quick, so a quick run never replaces the committed report)")
    parser.add_argument("--budget", type=float, default=1800.0,
                        help="seconds after which no new measurement starts (the rest is recorded as skipped)")
    parser.add_argument("--rerender", type=Path, default=None, metavar="REPORT_JSON",
                        help="measure nothing: recompute the FLOP-derived columns of a stored report with the "
                             "current FLOP models and rewrite its JSON and Markdown")
    args = parser.parse_args(argv)
    if args.rerender is not None:
        rerender(args.rerender)
        print(f"rewrote {args.rerender} and {args.rerender.with_suffix('.md')}", file=sys.stderr)
        return 0
    selected = {s.strip() for s in args.only.split(",") if s.strip()}
    unknown = selected - set(ENTRIES)
    if unknown:
        parser.error(f"unknown entries {sorted(unknown)}; choose from {', '.join(ENTRIES)}")
    cfg = QUICK if args.quick else Config()
    env = {"OPENBLAS_CORETYPE": None, "OPENBLAS_L2_SIZE": None} if args.blas == "native" else {}
    runner = Runner(env, args.budget, log=lambda m: print(m, file=sys.stderr, flush=True))
    started = dt.datetime.now(dt.timezone.utc)
    load_start = os.getloadavg()
    report = run_benchmarks(cfg, selected, runner)
    report["meta"] = {
        "command": "python -m benchmarks.run" + (" " + " ".join(argv if argv is not None else sys.argv[1:])).rstrip(),
        "date": started.strftime("%Y-%m-%d %H:%M UTC"), "duration_seconds": runner.elapsed(), "quick": args.quick,
        "entries": sorted(selected), "config": cfg.__dict__, "machine": bench.machine_info(),
        "blas_mode": args.blas, "blas_mode_text": "OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE unset in the measured "
        "processes only" if args.blas == "native" else "environment unchanged",
        "targets_spec": TARGETS, "load_average_start": load_start, "load_average_end": os.getloadavg()}
    out = args.out or (Path("/tmp/greenelm-bench-quick") if args.quick else HERE)
    out.mkdir(parents=True, exist_ok=True)
    stem = "report"
    if (out / f"{stem}.json").exists():      # keep what this run did not measure (other entries, peers)
        import json

        report = merge_reports(json.loads((out / f"{stem}.json").read_text()), report)
    preamble, sections = render_markdown(report)
    bench.write_report(report, out / f"{stem}.json", out / f"{stem}.md", sections, preamble)
    print(f"wrote {out / stem}.json and {out / stem}.md ({runner.elapsed() / 60:.1f} min)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
