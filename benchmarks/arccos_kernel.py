"""The arc-cosine kernel's elementwise transform against the GEMM before it: how much of building a
kernel block is the transform, one whole-block pass on one thread (greenelm <= 0.2's way) against
cache-sized tiles split between the BLAS threads (``greenelm.kernels._arccos_from_products``).

Run from the repository root, alone on the machine (the ratios are measured in one run)::

    OMP_WAIT_POLICY=PASSIVE python -m benchmarks.arccos_kernel      # writes benchmarks/arccos_kernel.json and .md
    python -m benchmarks.arccos_kernel --rows 64 --cols 2000 --inputs 100 --repeats 1 --out /tmp/quick

For each input width D of ``--inputs`` (18,432: CIFAR-10's K = 1,024 patches pooled 3 × 3; 4,608:
MNIST's K = 256 pooled 3 × 3; 784: MNIST's pixels) a block of ``--rows`` kernel rows against
``--cols`` training rows is built the way ``greenelm.kernels`` builds its blocks: the float32
product of the σ_w-scaled inputs (GEMM), then the transform of the products into K(x, z). The three
are timed interleaved ``--repeats`` times; the two transforms give the same bits (checked).
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

from .patches import provenance, write_report


def measure(width: int, rows: int, cols: int, repeats: int) -> dict:
    """Medians (s) of the block's GEMM, the whole-block transform and the tiled one, at input width ``width``."""
    from greenelm._threads import blas_threads
    from greenelm.kernels import _arccos_from_products, _arccos_tile, _augmented_norms

    rng = np.random.default_rng(0)
    X = (rng.standard_normal((cols, width)) * np.sqrt(2.0 / width)).astype(np.float32)
    norms = _augmented_norms(X)
    products = None
    times = {"gemm": [], "whole block, one thread": [], "tiles, threads": []}
    for _ in range(repeats):
        start = time.perf_counter()
        products = X[:rows] @ X.T
        products += np.float32(1.0)
        times["gemm"].append(time.perf_counter() - start)
        whole, tiled = products.copy(), products.copy()
        start = time.perf_counter()
        _arccos_tile(whole, norms[:rows], norms)
        times["whole block, one thread"].append(time.perf_counter() - start)
        start = time.perf_counter()
        _arccos_from_products(tiled, norms[:rows], norms)
        times["tiles, threads"].append(time.perf_counter() - start)
        if not np.array_equal(whole, tiled):
            raise AssertionError("the tiled transform changed the kernel's bits")
    medians = {key: float(np.median(value)) for key, value in times.items()}
    return {"inputs": width, "rows": rows, "cols": cols, "threads": blas_threads(), "seconds": medians,
            "whole_over_gemm": medians["whole block, one thread"] / medians["gemm"],
            "tiles_over_gemm": medians["tiles, threads"] / medians["gemm"],
            "speedup": medians["whole block, one thread"] / medians["tiles, threads"],
            "block_before_after": (medians["gemm"] + medians["whole block, one thread"])
            / (medians["gemm"] + medians["tiles, threads"])}


def markdown(report: dict) -> str:
    lines = ["# The arc-cosine kernel's transform against its GEMM", "",
             f"{report['machine']}, {report['date']}; `{report['command']}`; medians of {report['repeats']} "
             "interleaved runs. A block of kernel rows against training rows, float32: the product (GEMM), "
             "then the transform to K(x, z) as one pass over the whole block on one thread (before) or in "
             "cache-sized tiles on the BLAS threads (now); both give the same bits.", "",
             "| inputs D | block | threads | GEMM (s) | transform before (s) | transform now (s) | before / GEMM "
             "| now / GEMM | transform speed-up | block (GEMM + transform) speed-up |",
             "| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for r in report["rows"]:
        s = r["seconds"]
        lines.append(f"| {r['inputs']:,} | {r['rows']:,} × {r['cols']:,} | {r['threads']} | {s['gemm']:.2f} | "
                     f"{s['whole block, one thread']:.2f} | {s['tiles, threads']:.2f} | {r['whole_over_gemm']:.2f} | "
                     f"{r['tiles_over_gemm']:.2f} | {r['speedup']:.2f}× | {r['block_before_after']:.2f}× |")
    return "\n".join(lines) + "\n"


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--inputs", type=int, nargs="+", default=[18432, 4608, 784])
    parser.add_argument("--rows", type=int, default=1024)
    parser.add_argument("--cols", type=int, default=20000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--out", default="benchmarks/arccos_kernel")
    args = parser.parse_args(argv)
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    rows = [measure(width, args.rows, args.cols, args.repeats) for width in args.inputs]
    write_report(provenance("benchmarks.arccos_kernel", argv) | {"repeats": args.repeats, "rows": rows},
                 args.out, markdown)


if __name__ == "__main__":
    main()
