"""The library's CUDA paths on a GPU: Table V's streaming update, one-shot fits and the patch map.

Run where torch sees a GPU (this project's own machine has none); every ratio is taken between
timings of the same run on that machine, never against another machine's seconds. Inputs are
random arrays of the paper's shapes: an update's and a fit's cost depend only on the shapes (dense
BLAS/cuBLAS work, no data-dependent branches), and the streamed readout's exactness is measured
against the batch ridge oracle on the same rows.

* **Table V's update** (d = 4000, B = 250, float64, λ = 1e-3): listing 3 as published, ours
  (Cholesky + syrk) and the information form, each on torch-cuda and on NumPy on the same host's
  CPU, timed interleaved by the streaming chapter's harness (``streaming_benchmark``); the floor is
  ours' 3·d²·B FLOPs at the GPU's float64 GEMM rate measured at the update's shape.
* **One-shot fits** (``ELMClassifier(device="cuda")``, N = 60,000, D = 784, 10 classes) at
  d = 4000, 8000, 16000 in float64 and float32 (TF32 off, torch's default), with the FLOP floor at
  the GPU's measured GEMM rates (``greenelm_book.bench.flop_floor_seconds``), and the CPU NumPy fit
  at d = 4000 for the same host's ratio; a d = 2000 float64 fit's decision function against NumPy's.
* **The patch map** (``RandomPatchFeatures(device="cuda")``, CIFAR-10's 32 × 32 × 3 images, 6 × 6
  patches, 2 × 2 pooling) at K = 1024 and 4096: seconds per 10,000 images.

    python -m benchmarks.gpu [--out benchmarks/gpu] [--batches 40] [--repeats 2]

``--dry-run`` runs the same code at small shapes on torch's CPU device (a check of the script on a
machine without a GPU; its numbers mean nothing).
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import os
import statistics
import time

import numpy as np


@dataclasses.dataclass(frozen=True)
class Shapes:
    """The shapes one run measures at, and the torch device it runs on."""

    n_train: int                   # a fit's rows
    n_inputs: int                  # a fit's input width
    n_classes: int
    fit_widths: tuple[int, ...]    # the fits' d
    stream_width: int              # Table V's update: d, B, the embeddings' width and λ
    stream_batch: int
    stream_inputs: int
    stream_alpha: float
    stream_images: int             # the streamed images (split 80/20) and the test images
    stream_test: int
    patch_widths: tuple[int, ...]  # the patch map's K
    patch_images: int              # the patch map's images
    peak_size: int                 # the square GEMM of the peak rates
    device: str                    # torch's device: "cuda", or "cpu" for the dry run


#: the paper's shapes on the GPU
FULL_SHAPES = Shapes(n_train=60_000, n_inputs=784, n_classes=10, fit_widths=(4000, 8000, 16000),
                     stream_width=4000, stream_batch=250, stream_inputs=512, stream_alpha=1e-3,
                     stream_images=50_000, stream_test=2_000, patch_widths=(1024, 4096), patch_images=10_000,
                     peak_size=8192, device="cuda")

#: ``--dry-run``: small shapes on torch's CPU device, the script's code paths on a machine without a GPU
DRY_RUN_SHAPES = dataclasses.replace(FULL_SHAPES, n_train=3000, fit_widths=(64, 128), stream_width=96,
                                     stream_batch=10, stream_images=1000, stream_test=200, patch_widths=(8,),
                                     patch_images=50, peak_size=512, device="cpu")


def synchronize(device: str) -> None:
    """Wait for the GPU's queue (nothing to wait for on the CPU device)."""
    import torch

    if device == "cuda":
        torch.cuda.synchronize()


def synchronised(fn, device: str):
    """Seconds of ``fn()`` with ``device``'s queue drained before and after."""
    synchronize(device)
    start = time.perf_counter()
    out = fn()
    synchronize(device)
    return time.perf_counter() - start, out


def cuda_gemm_rate(m: int, n: int, k: int, dtype: str, device: str, repeats: int = 5) -> float:
    """Median GFLOP/s of torch's (m × k)·(k × n) product on ``device`` (one warm-up)."""
    import torch

    generator = torch.Generator(device=device).manual_seed(0)
    a = torch.randn(m, k, device=device, dtype=getattr(torch, dtype), generator=generator)
    b = torch.randn(k, n, device=device, dtype=getattr(torch, dtype), generator=generator)
    a @ b
    return statistics.median(2.0 * m * n * k / synchronised(lambda: a @ b, device)[0] / 1e9 for _ in range(repeats))


def stream_data(shapes: Shapes, seed: int = 0):
    """Random embeddings of ``shapes.stream_images`` + ``stream_test`` images through listing 3's
    projection (full shapes: 512-d, 50,000 + 2,000 images, d = 4000), split 80/20 as the paper
    does: a :class:`~greenelm_book.chapters.streaming_harness.StreamData`."""
    from greenelm.features import RandomReLUFeatures
    from greenelm_book.chapters.streaming_harness import StreamData, hidden_features

    rng = np.random.default_rng(seed)
    X = rng.standard_normal((shapes.stream_images + shapes.stream_test, shapes.stream_inputs))
    y = rng.integers(0, shapes.n_classes, len(X))
    H = hidden_features(RandomReLUFeatures(shapes.stream_inputs, shapes.stream_width, seed=seed, weight_scale="he"), X)
    n_initial, n = int(0.8 * shapes.stream_images), shapes.stream_images
    return StreamData(H[:n_initial], y[:n_initial], H[n_initial:n], y[n_initial:n], H[n:], y[n:],
                      np.arange(shapes.n_classes))


def streaming_rows(shapes: Shapes, n_batches: int) -> tuple[list[dict], dict]:
    """Table V's update on torch-cuda and NumPy, interleaved: median seconds, the CPU/GPU ratio of
    the same method, the floor ratio on the GPU and the distance to the batch oracle."""
    from greenelm_book.chapters.streaming_harness import streaming_benchmark

    d, B, device = shapes.stream_width, shapes.stream_batch, shapes.device
    bench = streaming_benchmark(stream_data(shapes), B, shapes.stream_alpha, ("listing3", "cholesky", "information"),
                                ["numpy", f"torch-{device}"], n_batches=n_batches, progress=False)
    gpu_rate = cuda_gemm_rate(d, B, d, "float64", device)
    floor = 3.0 * d**2 * B / (gpu_rate * 1e9)
    summary = bench.summary.set_index(["method", "backend"])
    rows = []
    for (method, backend), row in summary.iterrows():
        rows.append({"method": method, "backend": backend, "device": row["device"],
                     "median_seconds": row["median_seconds"], "q1_seconds": row["q1_seconds"],
                     "q3_seconds": row["q3_seconds"],
                     "numpy_over_cuda": (summary.loc[(method, "numpy"), "median_seconds"] / row["median_seconds"]
                                         if backend != "numpy" else None),
                     "over_floor": row["median_seconds"] / floor if backend != "numpy" else None,
                     "relative_difference": row["relative_difference"], "batches": bench.n_batches,
                     "seconds": bench.latency.query("method == @method and backend == @backend")["seconds"].tolist()})
    return rows, {"gpu_float64_gemm_gflops": gpu_rate, "floor_seconds": floor}


def fit_rows(shapes: Shapes, repeats: int) -> tuple[list[dict], dict]:
    """``ELMClassifier(device=shapes.device)`` fits at ``shapes.fit_widths``, float64 and float32,
    against their FLOP floors at the GPU's GEMM rates; the CPU fit at the first width on the same
    host; exactness."""
    import torch

    from greenelm import ELMClassifier
    from greenelm_book.bench import flop_floor_seconds

    n_train, n_inputs, n_classes, device = shapes.n_train, shapes.n_inputs, shapes.n_classes, shapes.device
    rng = np.random.default_rng(0)
    X = rng.random((n_train, n_inputs), dtype=np.float32)
    y = rng.integers(0, n_classes, n_train)
    peak = shapes.peak_size
    peaks = {dtype: cuda_gemm_rate(peak, peak, peak, dtype, device) for dtype in ("float64", "float32")}
    rows = []
    for dtype in ("float64", "float32"):
        for d in shapes.fit_widths:
            fit = lambda: ELMClassifier(n_hidden=d, dtype=dtype, device=device, random_state=0).fit(X, y)  # noqa: E731
            fit()                                                       # warm-up: cuBLAS/cuSOLVER handles
            seconds = [synchronised(fit, device)[0] for _ in range(repeats)]
            floor = flop_floor_seconds(n_train, n_inputs, d, n_classes, peaks, dtype)
            rows.append({"device": device, "dtype": dtype, "n_hidden": d, "seconds": statistics.median(seconds),
                         "range": [min(seconds), max(seconds)], "floor_seconds": floor,
                         "over_floor": statistics.median(seconds) / floor})
            if device == "cuda":
                torch.cuda.empty_cache()
    first = shapes.fit_widths[0]
    start = time.perf_counter()
    ELMClassifier(n_hidden=first, random_state=0).fit(X, y)
    cpu = time.perf_counter() - start
    gpu_same = next(r for r in rows if r["dtype"] == "float64" and r["n_hidden"] == first)
    rows.append({"device": "cpu (NumPy)", "dtype": "float64", "n_hidden": first, "seconds": cpu,
                 "range": [cpu, cpu], "floor_seconds": None, "over_floor": None,
                 "cpu_over_cuda": cpu / gpu_same["seconds"]})
    small_X, small_y = X[:5000].astype(np.float64), y[:5000]
    on_cuda = ELMClassifier(n_hidden=2000, device=device, random_state=0).fit(small_X, small_y)
    on_numpy = ELMClassifier(n_hidden=2000, random_state=0).fit(small_X, small_y)
    a, b = on_cuda.decision_function(small_X), on_numpy.decision_function(small_X)
    exact = {"n_hidden": 2000, "rows": len(small_y), "max_relative_difference": float(np.abs(a - b).max() / np.abs(b).max()),
             "same_predictions": bool((on_cuda.predict(small_X) == on_numpy.predict(small_X)).all())}
    return rows, {"gemm_gflops": peaks, "exactness": exact}


def fit_phases(shapes: Shapes, repeats: int) -> list[dict]:
    """Where a CUDA fit's time goes, per (dtype, d): the fit's feature pass from host rows (the
    blocks' host-to-GPU copies included), the same pass from rows already on the GPU, the Gram
    sums (``NormalEquations.update``, blocks already on the GPU) and the solve, each synchronised.
    The same library calls as ``ELMClassifier.fit``, timed apart (median of ``repeats``)."""
    import torch

    from greenelm.features import DEFAULT_CHUNK_ROWS, RandomReLUFeatures, row_chunks
    from greenelm.solvers import NormalEquations, solve_normal_equations

    n_train, n_classes, device = shapes.n_train, shapes.n_classes, shapes.device
    rng = np.random.default_rng(0)
    X = rng.random((n_train, shapes.n_inputs), dtype=np.float32)
    Y = np.eye(n_classes)[rng.integers(0, n_classes, n_train)]
    blocks = list(row_chunks(n_train, DEFAULT_CHUNK_ROWS))
    rows = []
    for dtype in ("float64", "float32"):
        X_device = torch.as_tensor(X, device=device).to(getattr(torch, dtype))
        Y_device = torch.as_tensor(Y, device=device).to(getattr(torch, dtype))
        for d in shapes.fit_widths:
            features = RandomReLUFeatures(shapes.n_inputs, d, seed=0, dtype=dtype, device=device)
            median = lambda fn: statistics.median(synchronised(fn, device)[0] for _ in range(repeats))  # noqa: E731
            from_host = median(lambda: [features.transform(X[r]) for r in blocks])
            on_device = median(lambda: [features.transform(X_device[r]) for r in blocks])
            H = [features.transform(X_device[r]) for r in blocks]

            def sums():
                equations = NormalEquations(d, n_classes, dtype, device)
                for block, r in zip(H, blocks):
                    equations.update(block, Y_device[r])
                return equations.as_float64()

            gram = median(sums)
            upper = median(lambda: upper_block_gram(H, d)) if dtype == "float64" else None
            G, HtY = sums()
            if upper is not None:
                check = upper_block_gram(H, d)
                assert float((check.triu() - G.triu()).abs().max() / G.diagonal().max()) < 1e-12
            solve = median(lambda: solve_normal_equations(G, HtY, 1e-3))
            rows.append({"dtype": dtype, "n_hidden": d, "features_from_host": from_host,
                         "features_on_device": on_device, "gram": gram,
                         "gram_upper_blocks": upper, "solve": solve})
            del H, G, HtY
            if device == "cuda":
                torch.cuda.empty_cache()
    return rows


def upper_block_gram(H_blocks, d: int, parts: int = 4):
    """HᵀH's upper triangle of column blocks only (float64 sums): ``parts`` (parts + 1) / 2 of the
    parts² block products, a candidate for torch, which has no ``syrk``; the lower blocks stay 0."""
    import torch

    gram = torch.zeros((d, d), dtype=torch.float64, device=H_blocks[0].device)
    edges = [round(i * d / parts) for i in range(parts + 1)]
    for H in H_blocks:
        H = H.to(torch.float64)
        for i in range(parts):
            rows = slice(edges[i], edges[i + 1])
            gram[rows, edges[i]:].addmm_(H[:, rows].T, H[:, edges[i]:])
    return gram


def patch_rows(shapes: Shapes) -> list[dict]:
    """Seconds of the CIFAR-10-shaped patch map on the GPU per ``shapes.patch_images`` images, at
    each of ``shapes.patch_widths``."""
    import torch

    from greenelm import RandomPatchFeatures

    device = shapes.device
    images = np.random.default_rng(0).random((shapes.patch_images, 32, 32, 3), dtype=np.float32)
    rows = []
    for K in shapes.patch_widths:
        features = RandomPatchFeatures((32, 32, 3), n_patches=K, patch_size=6, pool=2, device=device,
                                       random_state=0).fit(images)
        run = lambda: [block for _, block in features.chunks(images)]  # noqa: E731
        run()
        seconds = statistics.median(synchronised(run, device)[0] for _ in range(2))
        rows.append({"n_patches": K, "n_features": features.n_features_out, "images": shapes.patch_images,
                     "seconds": seconds})
        del features
        if device == "cuda":
            torch.cuda.empty_cache()
    return rows


def markdown(report: dict, shapes: Shapes) -> str:
    """``report`` (measured at ``shapes``) as the markdown of ``<out>.md``."""
    gpu = report["gpu"]
    lines = [f"# The CUDA paths on {gpu}", "",
             f"{gpu}, host {report['machine']}, torch {report['torch']}, {report['date']}; `{report['command']}`. "
             "Random inputs of the paper's shapes; every ratio is between timings of this run.", "",
             f"## Table V's update (d = {shapes.stream_width}, B = {shapes.stream_batch}, float64)", "",
             f"Medians over {report['streaming'][0]['batches']} batches, interleaved. Floor: 3·d²·B FLOPs at "
             f"the GPU's float64 GEMM rate at this shape, {report['streaming_floor']['gpu_float64_gemm_gflops']:.0f} "
             f"GFLOP/s ({1e3 * report['streaming_floor']['floor_seconds']:.2f} ms).", "",
             "| update | backend | median (ms) | IQR (ms) | NumPy / CUDA | / floor | vs oracle |",
             "| --- | --- | ---: | --- | ---: | ---: | ---: |"]
    for r in report["streaming"]:
        lines.append(f"| {r['method']} | {r['backend']} | {1e3 * r['median_seconds']:.2f} | "
                     f"{1e3 * r['q1_seconds']:.2f}–{1e3 * r['q3_seconds']:.2f} | "
                     + (f"{r['numpy_over_cuda']:.1f}" if r["numpy_over_cuda"] else "—") + " | "
                     + (f"{r['over_floor']:.2f}" if r["over_floor"] else "—") + f" | {r['relative_difference']:.1e} |")
    peaks = report["fits_extra"]["gemm_gflops"]
    lines += ["", f"## One-shot fits (N = {shapes.n_train:,}, D = {shapes.n_inputs}, 10 classes)", "",
              f"GPU GEMM ({shapes.peak_size}³): float64 {peaks['float64']:.0f} GFLOP/s, float32 {peaks['float32']:.0f} GFLOP/s "
              "(TF32 off). Floor: features and Gram at the dtype's rate, the solve at float64's.", "",
              "| device | dtype | d | fit (s) | floor (s) | / floor | CPU / CUDA |", "| --- | --- | ---: | ---: | ---: | ---: | ---: |"]
    for r in report["fits"]:
        lines.append(f"| {r['device']} | {r['dtype']} | {r['n_hidden']} | {r['seconds']:.3f} | "
                     + (f"{r['floor_seconds']:.3f} | {r['over_floor']:.2f}" if r["floor_seconds"] else "— | —")
                     + " | " + (f"{r['cpu_over_cuda']:.1f}" if r.get("cpu_over_cuda") else "—") + " |")
    lines += ["", "Where the time goes (s; the same library calls as the fit, timed apart):", "",
              "| dtype | d | features, host rows | features, rows on GPU | Gram sums | Gram, upper blocks | solve |",
              "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
    lines += [f"| {r['dtype']} | {r['n_hidden']} | {r['features_from_host']:.3f} | {r['features_on_device']:.3f} | "
              f"{r['gram']:.3f} | " + (f"{r['gram_upper_blocks']:.3f}" if r.get("gram_upper_blocks") else "—")
              + f" | {r['solve']:.3f} |" for r in report.get("phases", [])]
    lines += ["", "Gram, upper blocks: 4 column blocks, the 10 products on or above the diagonal of 16 "
              "(benchmark only; the library sums HᵀH whole with `addmm` on torch, twice syrk's FLOPs)."]
    exact = report["fits_extra"]["exactness"]
    lines += ["", f"CUDA against NumPy, d = {exact['n_hidden']}, {exact['rows']} rows, float64: largest decision "
              f"difference {exact['max_relative_difference']:.1e} of the largest score; predictions "
              + ("identical" if exact["same_predictions"] else "not identical") + ".", "",
              "## The patch map (CIFAR-10 shape, 6 × 6 patches, 2 × 2 pooling)", "",
              "| K | features | images | seconds |", "| ---: | ---: | ---: | ---: |"]
    lines += [f"| {r['n_patches']} | {r['n_features']} | {r['images']} | {r['seconds']:.2f} |" for r in report["patches"]]
    return "\n".join(lines) + "\n"


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", default="benchmarks/gpu")
    parser.add_argument("--batches", type=int, default=40)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--dry-run", action="store_true", help="small shapes on torch's CPU device")
    args = parser.parse_args(argv)
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    import torch

    from benchmarks.patches import provenance, write_report

    shapes = DRY_RUN_SHAPES if args.dry_run else FULL_SHAPES
    if shapes.device == "cuda" and not torch.cuda.is_available():
        raise SystemExit("benchmarks.gpu needs a GPU that torch sees (torch.cuda.is_available() is False)")
    gpu = torch.cuda.get_device_name(0) if shapes.device == "cuda" else "torch CPU (dry run)"
    report = provenance("benchmarks.gpu", argv) | {"gpu": gpu, "torch": torch.__version__}
    started = time.perf_counter()
    report["streaming_shape"] = {"n_hidden": shapes.stream_width, "batch_size": shapes.stream_batch,
                                 "alpha": shapes.stream_alpha, "n_inputs": shapes.stream_inputs}
    report["streaming"], report["streaming_floor"] = streaming_rows(shapes, args.batches)
    print(f"streaming done, {time.perf_counter() - started:.0f} s", flush=True)
    report["fits"], report["fits_extra"] = fit_rows(shapes, args.repeats)
    print(f"fits done, {time.perf_counter() - started:.0f} s", flush=True)
    report["phases"] = fit_phases(shapes, args.repeats)
    print(f"phases done, {time.perf_counter() - started:.0f} s", flush=True)
    report["patches"] = patch_rows(shapes)
    report["seconds"] = time.perf_counter() - started
    write_report(report, args.out, functools.partial(markdown, shapes=shapes))


if __name__ == "__main__":
    main()
