"""The stacked limit with its ridge chosen on held-out rows, in one computation: one kernel for the
choice and the final fit (``greenelm.kernels.held_out_kernel_ridge_predict``).

Run from the repository root, alone on the machine::

    OMP_WAIT_POLICY=PASSIVE python -m benchmarks.held_out_limit     # CIFAR-10, K = 1,024 pooled 3 x 3, mirror images
                                                                    # writes benchmarks/reports/held_out_limit.{json,md}
    python -m benchmarks.held_out_limit --subset 600 --n-patches 8 --out /tmp/quick

The kernel limit of the frontier's search before its protocol (CIFAR-10, K = 1,024 patches pooled
3 × 3, each image's mirror image in the kernel), outside the results cache, with its parts
timed: the features are computed once, the N × N kernel averaged over each image and its mirror
image is built once, the ridges of the choice are solved on its block of ``n_fit`` rows
(``greenelm_book.chapters.frontier_features.held_out_split``) and scored on the ``n_validation``
held-out rows, the chosen jitter's ridge is solved on all rows in place, and the test images are
scored. The report gives the held-out curve, the wall time of each part and the peak memory (the
committed report also the former chapter's stored result for the same setting, from another
run: a reference, not a same-run ratio). The test images' scores are computed, since their kernel
is part of the cost, but their labels are never read: this setting was one of several variants
compared on the test images before the protocol, so its test accuracy is no result (the
protocol's records in ``book/frontier_protocol/`` are). The protocol itself fits its limits with
``greenelm.KernelLimitClassifier``.
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

from .patches import add_patch_arguments, provenance, write_report

#: the line under the report's command: why it shows no test accuracy
NO_TEST_LABELS_NOTE = ("**No test labels read:** this setting was one of several variants compared on the test "
                       "images before the frontier's protocol, so its test accuracy is no result; the report times "
                       "its parts (the test images' kernel and scores among them) and shows the held-out curve.")


def measure(dataset: str, n_patches: int, pool: int, seed: int, subset, views, jitters, n_fit: int,
            n_validation: int) -> dict:
    """The stacked limit with its ridge μ chosen on held-out training rows, in one computation, each
    part timed: the standardised patch features of (``dataset``, ``n_patches``, ``seed``, ``subset``,
    ``pool``) and of each image's copies ``views`` (``frontier_features.standardised_patch_views``), one
    N × N float32 arc-cosine kernel (He scale) averaged over the views, the ridge at each of
    ``jitters`` fitted on ``n_fit`` training rows and scored on ``n_validation`` others (seed
    ``seed``'s ``frontier_features.held_out_split``), then the best jitter's ridge on all training rows,
    in place, and the test images' scores (``greenelm.kernels.held_out_kernel_ridge_predict``). The
    test labels are never read."""
    from greenelm._validation import check_positive_int
    from greenelm.kernels import held_out_kernel_ridge_predict
    from greenelm_book.bench import peak_rss_bytes, reset_peak_rss
    from greenelm_book.chapters.frontier_features import GB, held_out_split, standardised_patch_views

    start = time.perf_counter()
    reset_peak_rss()
    features = standardised_patch_views(dataset, n_patches, seed, subset=subset, pool=pool, views=tuple(views))
    y_train = features["y_train"]
    n_fit, n_validation = check_positive_int("n_fit", n_fit), check_positive_int("n_validation", n_validation)
    if n_fit + n_validation > len(y_train):
        raise ValueError(f"n_fit + n_validation = {n_fit + n_validation} exceeds the {len(y_train)} training rows")
    fit_rows, validation_rows = held_out_split(len(y_train), n_fit, n_validation, seed)
    _, info = held_out_kernel_ridge_predict(features.pop("X_train"), np.eye(int(y_train.max()) + 1)[y_train],
                                            features.pop("X_test"), jitters, fit_rows, validation_rows,
                                            weight_scale="he")
    return {"dataset": dataset, "n_patches": n_patches, "pool": pool, "seed": seed, "subset": subset,
            "views": list(features["views"]), "n_features": int(features["n_features"]), "n_train": len(y_train),
            "n_fit": n_fit, "n_validation": n_validation, "jitters": [float(j) for j in info["jitters"]],
            "validation_accuracy": [None if value is None else 100 * value for value in info["validation"]],
            "jitter": float(info["jitter"]), "mu": float(info["mu"]),
            "seconds": {"features": float(features["seconds"]), **info["seconds"],
                        "total": time.perf_counter() - start},
            "peak_memory_gb": peak_rss_bytes() / GB}


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
    write_report(provenance("benchmarks.held_out_limit", argv) | {"run": run, "reference": None}, args.out, markdown)


if __name__ == "__main__":
    main()
