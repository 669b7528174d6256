"""The image feature map against its own GEMM and the memory floor: how close to its limits
``RandomPatchFeatures`` runs.

Run from the repository root, alone on the machine (the ratios are measured in one run)::

    OMP_WAIT_POLICY=PASSIVE python -m benchmarks.patches          # writes benchmarks/patches.json and .md
    python -m benchmarks.patches --images 16 --widths 64 --mnist-widths 64 --repeats 1 --out /tmp/quick

For CIFAR-10 (32 × 32 × 3 images, 6 × 6 patches, pool 2) at each width K of ``--widths``, and for
MNIST (28 × 28, 5 × 5 patches, pool 2) at each K of ``--mnist-widths``, the features of ``--images``
images are computed in blocks of ``--chunk`` images by the NumPy path (and the torch CPU path with
``--torch``), interleaved ``--repeats`` times with

* **GEMM**: the one product the map cannot avoid, (chunk × positions) × p²C patches times the
  p²C × K filters in float32, timed the same way, done two ways: one call per block, and the
  NumPy map's own GEMMs alone (its strips on its threads, ``_transform_numpy(gemm_only=True)``);
  the faster of the two is the GEMM the ratios divide by;
* **memory**: a STREAM-like add ``a = b + c`` over arrays of 256 MiB, split between the BLAS
  threads' count of threads, giving the machine's bandwidth (3 × 256 MiB moved per pass), one
  pass after each repeat of a width (the floor moves with it: 21–34 GB/s were seen here);
* **BLAS's float32 rate**: a 2,048 × 2,048 × 2,048 product on BLAS's threads, the best rate
  its kernels reach on this machine, also measured after each repeat of a width.

Each row gives the medians, map / GEMM, the elementwise work (im2col, normalisation, split,
pooling: map − GEMM) over the GEMM, and two floors:

* the memory floor: the bytes of the responses z (n · positions · K · 4) written once and read
  once, the least a map that holds z in memory moves, at the measured bandwidth. A map that keeps
  z in cache (the NumPy path's strips) can run below it;
* the compute floor: the GEMM's flops (2 · n · positions · p²C · K) at BLAS's float32 rate. On
  MNIST's 25-value patches the GEMM alone takes 1.5–2× the memory floor: the map is bound by its
  GEMM's arithmetic, not by moving z, and the compute floor says how far that GEMM is from the
  kernels' best.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

from greenelm import RandomPatchFeatures

#: the order of the square float32 product that gives BLAS's rate (the compute floor's)
RATE_ORDER = 2048
#: dataset → (image shape, patch size)
CASES = {"cifar10": ((32, 32, 3), 6), "mnist": ((28, 28, 1), 5)}


def bandwidth_gbs(mib: int = 256, repeats: int = 3, threads: int | None = None) -> float:
    """Memory bandwidth (GB/s): the median of ``repeats`` passes of ``a = b + c`` over float32
    arrays of ``mib`` MiB each (3 × mib MiB moved a pass), split between ``threads`` threads
    (NumPy releases the GIL in the loop); default: the BLAS threads' count."""
    from greenelm._threads import blas_threads

    threads = threads or blas_threads()
    n = mib * 2**20 // 4
    a, b, c = np.empty(n, np.float32), np.ones(n, np.float32), np.ones(n, np.float32)
    a[:] = 0                                                      # touch every page first
    bounds = np.linspace(0, n, threads + 1).astype(int)

    def part(k):
        s = slice(bounds[k], bounds[k + 1])
        np.add(b[s], c[s], out=a[s])

    times = []
    with ThreadPoolExecutor(threads) as pool:
        for _ in range(repeats):
            start = time.perf_counter()
            list(pool.map(part, range(threads)))
            times.append(time.perf_counter() - start)
    return 3 * a.nbytes / float(np.median(times)) / 1e9


def measure_case(images: np.ndarray, shape, patch_size: int, K: int, chunk: int, repeats: int,
                 bandwidth: float | None = None, torch_too: bool = False, name: str = "",
                 peak_gflops: float | None = None) -> list[dict]:
    """Rows (one per path) for ``images`` (n, H, W, C) at width K: medians of the map and of its
    GEMM over ``repeats`` interleaved runs, their ratios, the memory floor at ``bandwidth`` GB/s and
    the compute floor at BLAS's float32 rate ``peak_gflops`` GFLOP/s (None: the median of one
    :func:`bandwidth_gbs` pass, or one :data:`RATE_ORDER`² float32 product timed by
    :func:`greenelm_book.bench.gemm_peak`, after each repeat)."""
    from greenelm_book.bench import gemm_peak

    n = len(images)
    paths = {"numpy": None} | ({"torch cpu": "cpu"} if torch_too else {})
    maps = {path: RandomPatchFeatures(shape, n_patches=K, patch_size=patch_size, pool=2, device=device).fit(images)
            for path, device in paths.items()}
    positions = (shape[0] - patch_size + 1) * (shape[1] - patch_size + 1)
    D = patch_size * patch_size * shape[2]
    block = np.random.default_rng(0).random((min(chunk, n) * positions, D), dtype=np.float32)
    projection = np.asarray(maps["numpy"]._projection, dtype=np.float32)
    n_blocks = -(-n // chunk)
    last = n - (n_blocks - 1) * chunk

    def gemm():
        for k in range(n_blocks):
            (block if k < n_blocks - 1 else block[:last * positions]) @ projection

    def gemm_strips():
        for start in range(0, n, chunk):
            maps["numpy"]._transform_numpy(images[start:start + chunk], gemm_only=True)

    runs = {"gemm": gemm, "gemm_strips": gemm_strips} | {path: (lambda m=m: [h for _, h in m.chunks(images, chunk)]) for path, m in maps.items()}
    for m in maps.values():                                          # warm-up
        m.transform(images[:chunk])
    times = {key: [] for key in runs}
    bandwidths, rates = [], []
    for _ in range(repeats):
        for key, run in runs.items():
            start = time.perf_counter()
            run()
            times[key].append(time.perf_counter() - start)
        if bandwidth is None:
            bandwidths.append(bandwidth_gbs(repeats=1))
        if peak_gflops is None:
            rates.append(gemm_peak("float32", n=RATE_ORDER, repeats=1)["best"])
    bandwidth = bandwidth if bandwidth is not None else float(np.median(bandwidths))
    peak_gflops = peak_gflops if peak_gflops is not None else float(np.median(rates))
    gemm_blocks, gemm_strips_seconds = float(np.median(times["gemm"])), float(np.median(times["gemm_strips"]))
    gemm_seconds = min(gemm_blocks, gemm_strips_seconds)
    z_bytes = n * positions * K * 4
    floor = 2 * z_bytes / (bandwidth * 1e9)
    flops = 2 * n * positions * D * K
    compute_floor = flops / (peak_gflops * 1e9)
    # each repeat's own ratio: its map over the faster of the two GEMMs timed beside it
    gemm_each = np.minimum(times["gemm"], times["gemm_strips"])
    rows = []
    for path, m in maps.items():
        seconds = float(np.median(times[path]))
        elementwise_each = np.asarray(times[path]) / gemm_each - 1
        rows.append({"dataset": name, "K": K, "features": m.n_features_out, "path": path, "images": n,
                     "chunk": chunk, "map_seconds": seconds, "gemm_seconds": gemm_seconds,
                     "gemm_block_seconds": gemm_blocks, "gemm_strip_seconds": gemm_strips_seconds,
                     "ratio": seconds / gemm_seconds, "elementwise_ratio": (seconds - gemm_seconds) / gemm_seconds,
                     "elementwise_range": [float(elementwise_each.min()), float(elementwise_each.max())],
                     "seconds_each": {"map": times[path], "gemm_block": times["gemm"],
                                      "gemm_strips": times["gemm_strips"]},
                     "gemm_gflops": flops / gemm_seconds / 1e9,
                     "z_gb": z_bytes / 1e9, "bandwidth_gbs": bandwidth, "memory_floor_seconds": floor,
                     "gemm_over_floor": gemm_seconds / floor, "map_over_floor": seconds / floor,
                     "blas_gflops": peak_gflops, "compute_floor_seconds": compute_floor,
                     "map_over_compute_floor": seconds / compute_floor})
    return rows


def measure(n_images: int, widths, mnist_widths, chunk: int, repeats: int, torch_too: bool) -> dict:
    from greenelm.data import load_dataset

    rows = []
    for name, ks in (("cifar10", widths), ("mnist", mnist_widths)):
        if not ks:
            continue
        shape, p = CASES[name]
        images = load_dataset(name, subset=max(n_images, 1000)).flat("train", np.float32)
        images = images[:n_images].reshape((-1,) + shape)
        for K in ks:
            case = measure_case(images, shape, p, K, chunk, repeats, None, torch_too, name, None)
            print(markdown_rows(case), flush=True)
            rows += case
    return {"rows": rows}


HEADER = ["| data | K | features | path | map (s) | GEMM per block (s) | GEMM in strips (s) | map / GEMM "
          "| elementwise / GEMM | its range | GEMM GFLOP/s | z (GB) | memory floor (s) | GEMM / floor "
          "| map / floor | compute floor (s) | map / compute floor |",
          "| --- | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: "
          "| ---: | ---: |"]


def _seconds(value) -> str:
    """A figure of two decimals, or "–" where an older report has none."""
    return "–" if value is None else f"{value:.2f}"


def markdown_rows(rows) -> str:
    return "\n".join(f"| {r['dataset']} | {r['K']} | {r['features']} | {r['path']} | {r['map_seconds']:.2f} | "
                     f"{r['gemm_block_seconds']:.2f} | {r['gemm_strip_seconds']:.2f} | {r['ratio']:.2f} | {r['elementwise_ratio']:.2f} | "
                     f"{r['elementwise_range'][0]:.2f}–{r['elementwise_range'][1]:.2f} | "
                     f"{r['gemm_gflops']:.0f} | {r['z_gb']:.1f} | {r['memory_floor_seconds']:.2f} | "
                     f"{r['gemm_over_floor']:.2f} | {r['map_over_floor']:.2f} | "
                     f"{_seconds(r.get('compute_floor_seconds'))} | {_seconds(r.get('map_over_compute_floor'))} |"
                     for r in rows)


def floor_words(report: dict) -> str:
    """The bandwidth and BLAS rate a report's floors use: one figure each (older reports) or the
    range over its rows, each the median of the measurements after that width's repeats."""
    def spread(key: str, unit: str) -> str:
        if key in report:
            return f"{report[key]:.{1 if unit == 'GB/s' else 0}f} {unit}"
        values = [r[key] for r in report["rows"] if r.get(key) is not None]
        digits = 1 if unit == "GB/s" else 0
        return f"{min(values):.{digits}f}–{max(values):.{digits}f} {unit}" if values else "not measured"

    words = f"memory bandwidth {spread('bandwidth_gbs', 'GB/s')} (a = b + c, 256 MiB arrays)"
    if "blas_gflops" in report or any("blas_gflops" in r for r in report["rows"]):
        words += (f"; BLAS's float32 rate {spread('blas_gflops', 'GFLOP/s')} "
                  f"(a {RATE_ORDER:,} × {RATE_ORDER:,} × {RATE_ORDER:,} product)")
    return words + ("" if "bandwidth_gbs" in report else ", each measured after every repeat of a width")


def summary(rows) -> list[str]:
    """Lines on the NumPy map against the two bounds it is held to: on CIFAR-10 its elementwise work
    at most half its GEMM, on MNIST the map at most twice the memory floor (medians, at each width),
    and on MNIST what the GEMM alone leaves of that bound."""
    lines = []
    for name, key, bound, words in (("cifar10", "elementwise_ratio", 0.5, "elementwise / GEMM"),
                                    ("mnist", "map_over_floor", 2.0, "map / memory floor")):
        numpy_rows = [r for r in rows if r["dataset"] == name and r["path"] == "numpy"]
        if not numpy_rows:
            continue
        values = ", ".join(f"{r[key]:.2f} at K = {r['K']:,}" for r in numpy_rows)
        over = [r["K"] for r in numpy_rows if r[key] > bound]
        verdict = (f"above {bound:g} at K = {', '.join(f'{k:,}' for k in over)}" if over
                   else f"at most {bound:g} at every K")
        line = f"- {name}, NumPy path, {words}: {values}; {verdict}."
        if name == "mnist":
            clauses = []
            for r in numpy_rows:
                room = 2 / r["gemm_over_floor"] - 1
                clauses.append(f"at K = {r['K']:,} its GEMM alone is {r['gemm_over_floor']:.2f}× that floor, "
                               + (f"leaving the elementwise work at most {room:.2f}× the GEMM" if room > 0
                                  else "past the bound before any elementwise work")
                               + f" (measured: {r['elementwise_ratio']:.2f}×)")
            line += " A" + "; ".join(clauses)[1:] + "."
        lines.append(line)
    return lines


def markdown(report: dict) -> str:
    return "\n".join(["# Image feature map against its GEMM and the memory floor", "",
                      f"{report['machine']}, {report['date']}; `{report['command']}`; "
                      f"{report['images']} images in blocks of {report['chunk']}, medians of {report['repeats']} "
                      f"interleaved runs; {floor_words(report)}. GEMM = the faster of one call per block and "
                      "the NumPy map's "
                      "strips; elementwise = map − GEMM; *its range*: each repeat's map over the GEMMs "
                      "timed beside it; memory floor = the responses z written and read once at that "
                      "bandwidth; compute floor = the GEMM's flops at BLAS's float32 rate.", ""]
                     + HEADER + [markdown_rows(report["rows"]), ""] + summary(report["rows"])) + "\n"


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--images", type=int, default=512)
    parser.add_argument("--widths", type=int, nargs="*", default=[1024, 2048, 4096], help="CIFAR-10 K")
    parser.add_argument("--mnist-widths", type=int, nargs="*", default=[1024, 4096], help="MNIST K")
    parser.add_argument("--chunk", type=int, default=8)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--torch", action="store_true", help="also the torch CPU path")
    parser.add_argument("--out", default="benchmarks/patches")
    args = parser.parse_args(argv)
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    result = measure(args.images, args.widths, args.mnist_widths, args.chunk, args.repeats, args.torch)
    report = provenance("benchmarks.patches", argv) | {
        "images": args.images, "chunk": args.chunk, "repeats": args.repeats} | result
    write_report(report, args.out, markdown)


def add_patch_arguments(parser: argparse.ArgumentParser, n_patches: int, subset: int | None,
                        validation: int | None = None) -> None:
    """The options of a benchmark on the frontier chapter's standardised patch features: ``--n-patches``,
    ``--pool`` (3), ``--seed`` (0) and ``--subset`` (the first images; None: all), with the given
    defaults; with ``validation``, ``--validation``: the validation rows held out of those training
    images (the benchmark scores them, never the test images)."""
    parser.add_argument("--n-patches", type=int, default=n_patches)
    parser.add_argument("--pool", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--subset", type=int, default=subset)
    if validation is not None:
        parser.add_argument("--validation", type=int, default=validation,
                            help="validation rows held out of the training images (the rest are fitted)")


#: the line a report that compares variants on validation rows carries under its command
VALIDATION_NOTE = ("**Validation rows only:** the variants are fitted on rows of the training images and scored on "
                   "other training rows held out; the test images are never read, so these accuracies choose "
                   "nothing the frontier reports (its protocol makes its own choices, `book/frontier_protocol/`).")


def provenance(module: str, argv=None) -> dict:
    """The machine, the UTC date and the command line (``python -m <module> ...``) of a report."""
    from greenelm_book.bench import cpu_model

    return {"machine": f"{cpu_model() or platform.machine()}, {os.cpu_count()} cores",
            "date": datetime.now(timezone.utc).strftime("%Y-%m-%d"),
            "command": " ".join([f"python -m {module}"] + list(sys.argv[1:] if argv is None else argv))}


def write_report(report: dict, out, markdown) -> None:
    """``report`` as ``<out>.json`` and, rendered by ``markdown(report)``, ``<out>.md``; printed too."""
    out = Path(out)
    out.with_suffix(".json").write_text(json.dumps(report, indent=1) + "\n")
    out.with_suffix(".md").write_text(markdown(report))
    print(markdown(report))


if __name__ == "__main__":
    main()
