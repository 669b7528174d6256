"""The image feature map against its own GEMM: how close to GEMM speed ``RandomPatchFeatures`` runs.

Run from the repository root (alone on the machine: the ratios are measured in one run)::

    python -m benchmarks.patches                      # writes benchmarks/patches.json and .md
    python -m benchmarks.patches --images 256 --widths 256 --out /tmp/quick

For CIFAR-10 images (32 × 32 × 3, 6 × 6 patches, pool 2) and each width K, the features of
``--images`` images are computed by the NumPy path and the torch CPU path (when torch is
installed) in blocks of ``--chunk`` images, interleaved ``--repeats`` times, against the one GEMM the
map cannot avoid: for each block, the (chunk × 729 positions) × 108 patch matrix times the 108 × K
filters, in float32, timed the same way. The report gives the median of each and the ratio map / GEMM
(1.0 would be the GEMM alone: whitening, the ReLU split and pooling for free).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

from greenelm import RandomPatchFeatures
from greenelm.data import load_dataset


def _median_seconds(run, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return float(np.median(times))


def measure(n_images: int, widths, chunk: int, repeats: int) -> list[dict]:
    images = load_dataset("cifar10", subset=max(n_images, 1000)).flat("train", np.float32)
    X = images[:n_images]
    rows = []
    try:
        import torch  # noqa: F401
        devices = [None, "cpu"]
    except ImportError:
        devices = [None]
    for K in widths:
        maps = {device: RandomPatchFeatures((32, 32, 3), n_patches=K, patch_size=6, device=device).fit(images)
                for device in devices}
        block_patches = np.random.default_rng(0).random((chunk * 27 * 27, 108), dtype=np.float32)
        projection = maps[None]._projection
        n_blocks = -(-n_images // chunk)
        for block in (X[:chunk],):                  # warm-up
            [m.transform(block) for m in maps.values()]
        gemm = _median_seconds(lambda: [block_patches @ projection for _ in range(n_blocks)], repeats)
        for device, features in maps.items():
            seconds = _median_seconds(lambda: [h for _, h in features.chunks(X, chunk)], repeats)
            rows.append({"K": K, "features": features.n_features_out, "path": "numpy" if device is None else "torch cpu",
                         "images": n_images, "chunk": chunk, "map_seconds": seconds, "gemm_seconds": gemm,
                         "ratio": seconds / gemm, "gemm_gflops": 2 * n_blocks * block_patches.shape[0] * 108 * K / gemm / 1e9})
    return rows


def markdown(report: dict) -> str:
    lines = ["# Image feature map against its GEMM", "",
             f"{report['machine']}, {report['date']}; `{report['command']}`.", "",
             "| K | features | path | map (s) | GEMM (s) | map / GEMM | GEMM GFLOP/s |",
             "| ---: | ---: | --- | ---: | ---: | ---: | ---: |"]
    for r in report["rows"]:
        lines.append(f"| {r['K']} | {r['features']} | {r['path']} | {r['map_seconds']:.2f} | "
                     f"{r['gemm_seconds']:.2f} | {r['ratio']:.2f} | {r['gemm_gflops']:.0f} |")
    return "\n".join(lines) + "\n"


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--images", type=int, default=1024)
    parser.add_argument("--widths", type=int, nargs="+", default=[256, 1024])
    parser.add_argument("--chunk", type=int, default=8)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--out", default="benchmarks/patches")
    args = parser.parse_args(argv)
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    from greenelm_book.bench import cpu_model

    report = {"machine": f"{cpu_model() or platform.machine()}, {os.cpu_count()} cores",
              "date": datetime.now(timezone.utc).strftime("%Y-%m-%d"),
              "command": "python -m benchmarks.patches " + " ".join(argv or []),
              "rows": measure(args.images, args.widths, args.chunk, args.repeats)}
    out = Path(args.out)
    out.with_suffix(".json").write_text(json.dumps(report, indent=1) + "\n")
    out.with_suffix(".md").write_text(markdown(report))
    print(markdown(report))


if __name__ == "__main__":
    main()
