"""Whole patch-readout fits with the features on NumPy against torch's CPU path, in one run.

The frontier chapter computes its patch features with NumPy on a CPU (``greenelm_book.chapters.frontier.
feature_device``) because ``benchmarks/patches`` measured the map alone 1.9–4.8× faster there. This
measures what the chapter runs, the whole fit (features, sums, λ by LOO, readout, prediction), on
both paths, alternating in one process, so the choice rests on the fit and not on the map alone.

    python -m benchmarks.patch_fit_device [--dataset cifar10] [--patches 256] [--subset 10000] [--rounds 2]
"""

from __future__ import annotations

import argparse
import os
import statistics

PATHS = {"numpy": None, "torch cpu": "cpu"}


def measure(dataset: str, patches: int, subset: int | None, rounds: int) -> list[dict]:
    """``rounds`` fits per path, alternating (the order reversed every other round)."""
    from greenelm_book.chapters.frontier_features import patch_readout

    runs = {path: [] for path in PATHS}
    for r in range(rounds):
        order = list(PATHS) if r % 2 == 0 else list(PATHS)[::-1]
        for path in order:
            out = patch_readout(dataset, patches, seed=0, subset=subset, device=PATHS[path])
            runs[path].append(out)
            print(f"round {r}: {path}: fit {out['fit_seconds']:.1f} s, features {out['feature_seconds']:.1f} s, "
                  f"accuracy {out['accuracy']:.2f} %", flush=True)
    rows = []
    for path, outs in runs.items():
        rows.append({"path": path, "fits": len(outs),
                     "fit_seconds": statistics.median(o["fit_seconds"] for o in outs),
                     "fit_range": [min(o["fit_seconds"] for o in outs), max(o["fit_seconds"] for o in outs)],
                     "feature_seconds": statistics.median(o["feature_seconds"] for o in outs),
                     "accuracy": outs[0]["accuracy"], "alpha": outs[0]["alpha"]})
    base = rows[0]["fit_seconds"]
    for row in rows:
        row["fit_over_numpy"] = row["fit_seconds"] / base
    return rows


def markdown(report: dict) -> str:
    lines = ["# Patch readout: the whole fit with NumPy or torch CPU features", "",
             f"{report['machine']}, {report['date']}; `{report['command']}`; {report['dataset']}, K = "
             f"{report['patches']}, {report['subset'] or 'all'} training images, seed 0; medians of "
             f"{report['rows'][0]['fits']} fits per path, alternating in one process. A fit: features, "
             "float64 sums, λ by exact LOO, readout and prediction.", "",
             "| features on | fit (s) | range (s) | features (s) | fit / NumPy's | accuracy (%) | λ |",
             "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
    lines += [f"| {r['path']} | {r['fit_seconds']:.1f} | {r['fit_range'][0]:.1f}–{r['fit_range'][1]:.1f} | "
              f"{r['feature_seconds']:.1f} | {r['fit_over_numpy']:.2f} | {r['accuracy']:.2f} | {r['alpha']:g} |"
              for r in report["rows"]]
    return "\n".join(lines) + "\n"


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dataset", default="cifar10")
    parser.add_argument("--patches", type=int, default=256)
    parser.add_argument("--subset", type=int, default=10000)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--out", default="benchmarks/patch_fit_device")
    args = parser.parse_args(argv)
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    from benchmarks.patches import provenance, write_report

    rows = measure(args.dataset, args.patches, args.subset or None, args.rounds)
    report = provenance("benchmarks.patch_fit_device", argv) | {
        "dataset": args.dataset, "patches": args.patches, "subset": args.subset or None, "rows": rows}
    write_report(report, args.out, markdown)


if __name__ == "__main__":
    main()
