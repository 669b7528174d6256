"""The stacked limit with its ridge chosen on held-out rows, in one computation: one kernel for the
choice and the final fit (``greenelm.kernels.held_out_kernel_ridge_predict``).

Run from the repository root, alone on the machine::

    OMP_WAIT_POLICY=PASSIVE python -m benchmarks.held_out_limit     # CIFAR-10, K = 1,024 pooled 3 x 3, mirror images
                                                                    # writes benchmarks/reports/held_out_limit.{json,md}
    python -m benchmarks.held_out_limit --subset 600 --n-patches 8 --out /tmp/quick

This is the frontier chapter's held-out limit (``fit_ridge_limits``, through
``greenelm_book.chapters.frontier.held_out_limit_point``) run outside the results cache, with its
parts reported: the features are computed once, the N × N kernel averaged over each image and its
mirror image is built once, the ridges of the choice are solved on its block of ``n_fit`` rows
(``greenelm_book.chapters.frontier_features.held_out_split``) and scored on the ``n_validation`` held-out rows, and the
chosen jitter's ridge is solved on all rows in place. The report gives the held-out curve, the wall
time of each part and the peak memory, beside the chapter's stored result for the same setting
(computed in another run: a reference, not a same-run ratio). The test images are scored, since
their kernel is part of the computation's cost, but their labels are never read: this setting was
one of several variants compared on the test images before the frontier's protocol, so its test
accuracy is no result (the protocol's records in ``book/frontier_protocol/`` are).
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

from .patches import add_patch_arguments, provenance, write_report

#: the line under the report's command: why it shows no test accuracy
NO_TEST_LABELS_NOTE = ("**No test labels read:** this setting was one of several variants compared on the test "
                       "images before the frontier's protocol, so its test accuracy is no result; the report times "
                       "its parts (the test images' kernel and scores among them) and shows the held-out curve.")


def measure(dataset: str, n_patches: int, pool: int, seed: int, subset, views, jitters, n_fit: int,
            n_validation: int) -> dict:
    """One held-out limit on ``dataset``'s standardised patch views, as the frontier chapter computes
    it (``greenelm_book.chapters.frontier.held_out_limit_point``), outside the results cache."""
    from greenelm_book.chapters.frontier_exploration import held_out_limit_point

    start = time.perf_counter()
    run = held_out_limit_point(dataset, n_patches, seed, subset, pool, views, jitters, n_fit, n_validation,
                               read_test_labels=False)
    return {"dataset": dataset, "n_patches": n_patches, "pool": pool, "seed": seed, "subset": subset,
            "views": run["views"], "n_features": run["n_features"], "n_train": run["n_train"],
            "n_fit": n_fit, "n_validation": n_validation, "jitters": run["jitters"],
            "validation_accuracy": run["validation"], "jitter": run["jitter"], "mu": run["mu"],
            "seconds": {**run["seconds"], "total": time.perf_counter() - start},
            "peak_memory_gb": run["peak_memory_gb"]}


def stored_reference(dataset: str, n_patches: int, pool: int, results="book/results/frontier.json") -> dict | None:
    """The frontier chapter's stored flip limit for the same setting (fit-seconds, memory), if any."""
    path = Path(results)
    if not path.is_file():
        return None
    from greenelm_book.chapters.frontier_exploration import IMAGE_SHAPES, stacked_key

    base = stacked_key(dataset, n_patches, pool, None, "flip")
    stored = json.loads(path.read_text())["results"]
    if f"{base}/accuracy" not in stored:
        return None
    return {key: stored[f"{base}/{key}"]["values"][0] for key in ("fit-seconds", "peak-memory")} | {
        "patch_size": IMAGE_SHAPES[dataset][1]}


def markdown(report: dict) -> str:
    run, ref = report["run"], report["reference"]
    curve = " · ".join(f"{j:g}: " + ("—" if a is None else f"{a:.2f} %")
                       for j, a in zip(run["jitters"], run["validation_accuracy"]))
    s = run["seconds"]
    lines = ["# The stacked limit with μ chosen on held-out rows, in one computation", "",
             f"{report['machine']}, {report['date']}; `{report['command']}`.", "",
             # a report of a run that read the test labels, their accuracies since removed, says so instead
             f"**Test accuracies removed:** {report['test_accuracy_removed']}" if "test_accuracy_removed" in report
             else NO_TEST_LABELS_NOTE, "",
             f"{run['dataset']}, K = {run['n_patches']} pooled {run['pool']} × {run['pool']} ({run['n_features']} "
             f"inputs), views {', '.join(run['views'])}, seed {run['seed']}: the arc-cosine kernel (He scale) averaged "
             f"over the views, one {run['n_train']} × {run['n_train']} float32 kernel; the ridge chosen on "
             f"{run['n_fit']} fitted / {run['n_validation']} held-out training rows (μ = jitter · mean diag K), then "
             "refitted on all training rows.", "",
             f"Held-out accuracy per jitter: {curve}; chosen {run['jitter']:g} (μ = {run['mu']:.3g}).", "",
             "| | fit (min) | features | kernel | held-out ridges | final fit | test scores "
             "| peak memory (GB) |",
             "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
             f"| one computation (this run) | {s['total'] / 60:.1f} | {s['features'] / 60:.1f} | "
             f"{s['kernel'] / 60:.1f} | {s['validation'] / 60:.1f} | {s['fit'] / 60:.1f} | {s['test'] / 60:.1f} | "
             f"{run['peak_memory_gb']:.1f} |"]
    if ref:
        lines.append(f"| the chapter's stored result (another run) | "
                     f"{ref['fit-seconds'] / 60:.1f} | | | | | | {ref['peak-memory']:.1f} |")
    lines += ["", "Minutes; fit = features + kernel + held-out ridges + final fit + test scores (the test images' "
              "kernel and scores; their labels unread), one wall clock."]
    return "\n".join(lines) + "\n"


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dataset", default="cifar10")
    add_patch_arguments(parser, n_patches=1024, subset=None)
    parser.add_argument("--views", nargs="*", default=["flip"])
    parser.add_argument("--jitters", type=float, nargs="+", default=[1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1])
    parser.add_argument("--held-out", type=int, nargs=2, default=[20000, 10000], metavar=("N_FIT", "N_VALIDATION"))
    parser.add_argument("--out", default="benchmarks/reports/held_out_limit")
    args = parser.parse_args(argv)
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    run = measure(args.dataset, args.n_patches, args.pool, args.seed, args.subset, tuple(args.views), args.jitters,
                  *args.held_out)
    reference = stored_reference(args.dataset, args.n_patches, args.pool) if args.subset is None else None
    write_report(provenance("benchmarks.held_out_limit", argv) | {"run": run, "reference": reference},
                 args.out, markdown)


if __name__ == "__main__":
    main()
