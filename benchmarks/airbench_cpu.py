"""airbench94's training steps on this CPU, with its weights in each memory format, in one run.

The frontier's CIFAR-10 opponent (``greenelm_book.chapters.fast_sgd.train_airbench``) trains the
recipe's net on the CPU; the recipe keeps it in ``channels_last`` on a GPU. This trains the same
seed's first epochs on training rows in both formats, alternating in one process (the order reversed
every other round), and reports per format the median seconds of a training step after the first
epoch (1,024 images; the first epoch warms the kernels up), the sustained rate that makes (from the
net's counted FLOPs, ``fast_sgd.airbench_flops_per_image``), the seconds a whole published run
(9.9 epochs of 50,000 images, plus the recipe's test-time augmentation on 10,000 images) would take at
that rate, and the held-out accuracy of the short runs, which agree to rounding across formats.
A format is called faster only when each of its runs beat each run of the other (:func:`faster_format`);
``fast_sgd.CPU_CHANNELS_LAST`` follows it, and stays as it is when none is.

No test label is read: the images scored are training rows left out of the short runs.

    python -m benchmarks.airbench_cpu [--images 5120] [--epochs 3] [--rounds 2] [--held-out 1024]
"""

from __future__ import annotations

import argparse
import os
import statistics

FORMATS = {"contiguous": False, "channels_last": True}


def measure(images: int, epochs: int, rounds: int, held_out: int) -> dict:
    """``rounds`` short runs per format, alternating; seconds per step after the first epoch."""
    import torch

    from greenelm import load_dataset
    from greenelm_book.chapters import fast_sgd

    data = load_dataset("cifar10")
    X, y = data.x_train, data.y_train
    fit, scored = slice(0, images), slice(images, images + held_out)
    runs: dict[str, list[dict]] = {name: [] for name in FORMATS}
    for r in range(rounds):
        for name in list(FORMATS) if r % 2 == 0 else list(FORMATS)[::-1]:
            out = fast_sgd.train_airbench(X[fit], y[fit], X[scored], y[scored], seed=0, epochs=epochs,
                                          device="cpu", channels_last=FORMATS[name])
            later = out["per_epoch"][1:]
            step = sum(e["seconds"] for e in later) / (later[-1]["steps"] - out["per_epoch"][0]["steps"])
            runs[name].append({"step_seconds": step, "accuracy_no_tta": out["accuracy_no_tta"]})
            print(f"round {r}: {name}: {step:.2f} s per step, held-out {out['accuracy_no_tta']:.2f} % "
                  f"(no TTA)", flush=True)
    train_flops = fast_sgd.airbench_flops_per_image(training=True)
    batch = fast_sgd.AIRBENCH94.batch_size
    rows = []
    for name, outs in runs.items():
        step = statistics.median(o["step_seconds"] for o in outs)
        rate = batch * train_flops / step / 1e9
        whole = fast_sgd.airbench_seconds_estimate(rate)
        rows.append({"format": name, "runs": len(outs), "step_seconds": step,
                     "step_range": [min(o["step_seconds"] for o in outs), max(o["step_seconds"] for o in outs)],
                     "gflops_per_second": rate, "published_run_seconds": whole["train_seconds"] + whole["eval_seconds"],
                     "accuracy_no_tta": [o["accuracy_no_tta"] for o in outs]})
    base = rows[0]["step_seconds"]
    for row in rows:
        row["step_over_contiguous"] = row["step_seconds"] / base
    return {"rows": rows, "threads": torch.get_num_threads(), "torch": torch.__version__,
            "chosen": faster_format(rows)}


def faster_format(rows: list[dict]) -> str | None:
    """The format whose slowest step time beats every other format's fastest, else ``None``."""
    for row in rows:
        if all(row["step_range"][1] < other["step_range"][0] for other in rows if other is not row):
            return row["format"]
    return None


def markdown(report: dict) -> str:
    lines = ["# airbench94 on this CPU: its training step in each memory format", "",
             f"{report['machine']}, {report['date']}; `{report['command']}`; torch {report['torch']}, "
             f"{report['threads']} threads. The recipe's first {report['epochs']} epochs on "
             f"{report['images']:,} CIFAR-10 training images, seed 0, float32; medians of {report['rows'][0]['runs']} "
             "runs per format, alternating in one process, over the steps after the first epoch. "
             f"Held out: {report['held_out']:,} other training rows (no test label is read).", "",
             "| weights | s per step (1,024 images) | range | / contiguous | GFLOP/s | a published run (min) "
             "| held-out accuracy, no TTA (%) |",
             "| --- | ---: | ---: | ---: | ---: | ---: | --- |"]
    lines += [f"| {r['format']} | {r['step_seconds']:.2f} | {r['step_range'][0]:.2f}–{r['step_range'][1]:.2f} | "
              f"{r['step_over_contiguous']:.2f} | {r['gflops_per_second']:.0f} | {r['published_run_seconds'] / 60:.0f} | "
              f"{', '.join(f'{a:.2f}' for a in r['accuracy_no_tta'])} |" for r in report["rows"]]
    lines += ["", "GFLOP/s: the step's counted convolution and linear FLOPs (1,024 × 707.8 MFLOPs) over its "
              "whole seconds (elementwise layers and the optimiser included). A published run: its 476 steps "
              "and the 6-view test-time augmentation of 10,000 images at that rate "
              "(`fast_sgd.airbench_seconds_estimate`). "
              + (f"Faster here in every run: **{report['chosen']}** (`fast_sgd.CPU_CHANNELS_LAST`)."
                 if report["chosen"] else "Neither format is faster in every run, so `fast_sgd.CPU_CHANNELS_LAST` "
                 "stays as it was.")]
    return "\n".join(lines) + "\n"


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--images", type=int, default=5120, help="training images of each short run")
    parser.add_argument("--epochs", type=int, default=3, help="epochs of each short run (at least 2)")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--held-out", type=int, default=1024, help="training rows scored after each run")
    parser.add_argument("--out", default="benchmarks/airbench_cpu")
    args = parser.parse_args(argv)
    if args.epochs < 2:
        parser.error("--epochs must be at least 2: the first epoch is the warm-up")
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    from benchmarks.patches import provenance, write_report

    report = provenance("benchmarks.airbench_cpu", argv) | {
        "images": args.images, "epochs": args.epochs, "held_out": args.held_out,
        **measure(args.images, args.epochs, args.rounds, args.held_out)}
    write_report(report, args.out, markdown)


if __name__ == "__main__":
    main()
