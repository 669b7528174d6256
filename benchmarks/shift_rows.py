"""One-pixel shifts as extra training rows of the stacked map: the chapter's stacked readout
(the paper's random ReLU layer on the standardised patch features, then the ridge readout with λ by
exact GCV, ``greenelm_book.chapters.frontier_features.stacked_readout``) fitted on each image alone against each image
and its four one-pixel shifts (five rows per image folded into the same d × d sums), on a subset.

Run from the repository root, alone on the machine::

    OMP_WAIT_POLICY=PASSIVE python -m benchmarks.shift_rows                 # MNIST, 20,000 fit and 10,000
                                                                             # validation rows, d = 8,000; writes
                                                                             # benchmarks/reports/shift_rows.{json,md}
    python -m benchmarks.shift_rows --subset 300 --validation 100 --widths 50 --n-patches 4 --out /tmp/quick

``benchmarks/shift_kernel`` averages the shifts into the stacked limit's kernel, at V² = 25 kernel
products for N rows; here they enter the finite map as 5·N rows of its Gram, whose cost grows with
the rows, not their square. Both the fits see the same features, weights and λ grid; the validation
rows (held out of the first ``--subset`` training images, ``held_out_patch_views``) are scored as they
are (no shifts when scoring); the test images are never read.
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

from .patches import VALIDATION_NOTE, add_patch_arguments, provenance, write_report


def measure(n_patches: int, pool: int, seed: int, subset: int, n_validation: int, widths) -> dict:
    """The standardised patch features of the first ``subset`` MNIST training images and their four
    one-pixel shifts, ``n_validation`` of them held out (seed ``seed``), then
    :func:`~greenelm_book.chapters.frontier_features.stacked_readout` at each of ``widths``, fitted on
    the fit rows alone and on the fit rows with their shifts as extra rows, scored on the validation rows."""
    from greenelm_book.chapters.frontier_features import held_out_patch_views, stacked_readout

    start = time.perf_counter()
    features = held_out_patch_views("mnist", n_patches, seed, subset=subset, n_validation=n_validation, pool=pool,
                                    views=("shift",))
    feature_seconds = time.perf_counter() - start
    y_train, n_views = features["y_fit"], len(features["X_fit"])
    stacked = np.concatenate(features.pop("X_fit"))        # the images' rows first, then each shift's
    rows = {"images": {"X_train": stacked[:len(y_train)], "y_train": y_train},
            "images and shifts": {"X_train": stacked, "y_train": np.tile(y_train, n_views)}}
    runs = []
    for width in widths:
        for name, train in rows.items():
            scored = {"X_test": features["X_validation"][0], "y_test": features["y_validation"]}  # stacked_readout's
            run = stacked_readout(train | scored, int(width), seed)
            runs.append({"rows": name, "n_rows": len(train["y_train"])} | run)
    return {"n_patches": n_patches, "pool": pool, "seed": seed, "subset": subset, "n_fit": len(y_train),
            "n_validation": len(features["y_validation"]), "scored": "validation",
            "n_features": int(features["n_features"]), "feature_seconds": feature_seconds, "runs": runs}


def markdown(report: dict) -> str:
    from greenelm_book.report import errors_removed

    m = report["measure"]
    lines = ["# One-pixel shifts as extra rows of the stacked map", "",
             f"{report['machine']}, {report['date']}; `{report['command']}`.", "", VALIDATION_NOTE, "",
             f"MNIST, the first {m['subset']:,} training images: {m['n_fit']:,} fit rows and {m['n_validation']:,} "
             f"validation rows, K = {m['n_patches']} "
             f"pooled {m['pool']} × {m['pool']} ({m['n_features']:,} inputs), seed {m['seed']} (patches and split); features of the "
             f"images and their four one-pixel shifts in {m['feature_seconds']:.0f} s. The stacked map (He-scaled "
             "random ReLU layer of width d, λ by exact GCV over 10⁻²…10⁴), fitted on the images alone or on the "
             "images and their shifts (5 rows per image); fit seconds exclude the patch features.", "",
             "| d | training rows | rows | validation accuracy (%) | λ (GCV) | fit (s) |",
             "| ---: | --- | ---: | ---: | ---: | ---: |"]
    for run in m["runs"]:
        lines.append(f"| {run['n_hidden']:,} | {run['rows']} | {run['n_rows']:,} | {run['accuracy']:.2f} | "
                     f"{run['alpha']:g} | {run['fit_seconds']:.0f} |")
    lines.append("")
    by_width = {}
    for run in m["runs"]:
        by_width.setdefault(run["n_hidden"], {})[run["rows"]] = run
    for width, pair in by_width.items():
        alone, shifted = pair.get("images"), pair.get("images and shifts")
        if alone is None or shifted is None:
            continue
        gap = shifted["accuracy"] - alone["accuracy"]
        share = errors_removed(shifted["accuracy"], alone["accuracy"])
        errors = "" if share is None else f", {abs(share) * 100:.0f} % {'fewer' if gap >= 0 else 'more'} errors"
        lines.append(f"At d = {width:,} the shifts as rows move the validation accuracy from {alone['accuracy']:.2f} % to "
                     f"{shifted['accuracy']:.2f} % ({gap:+.2f} points{errors}) for "
                     f"{shifted['fit_seconds'] / alone['fit_seconds']:.1f}× the fit's seconds.")
    lines.append("")
    return "\n".join(lines)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    add_patch_arguments(parser, n_patches=256, subset=30000, validation=10000)
    parser.add_argument("--widths", type=int, nargs="+", default=[8000])
    parser.add_argument("--out", default="benchmarks/reports/shift_rows")
    args = parser.parse_args(argv)
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    run = measure(args.n_patches, args.pool, args.seed, args.subset, args.validation, args.widths)
    write_report(provenance("benchmarks.shift_rows", argv) | {"measure": run}, args.out, markdown)


if __name__ == "__main__":
    main()
