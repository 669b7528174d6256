"""What a model costs besides accuracy: its file on disk, its training arithmetic, CPU time and memory.

Used by the hardware chapter to answer the paper's storage, energy and memory remarks:

* :func:`storage_footprint`: the bytes of a greenelm model file (the readout and the seed: ``W``
  and ``b`` are redrawn on load) against a file that stores ``W`` and ``b`` as well, and whether
  the model loaded from the seed predicts exactly as the fitted one;
* :func:`sgd_mlp_flops`: the arithmetic of training the paper's SGD MLP (one hidden ReLU layer)
  for some epochs, counted layer by layer (multiply-add = 2 FLOPs);
* :func:`training_footprint`: one training run (Green-ELM or the SGD MLP) measured for
  :func:`greenelm_book.bench.run_isolated` — its CPU seconds, wall seconds and the memory it adds.

The chapter's sections call the rest: :func:`memory_sweep` / :func:`record_memory`,
:func:`training_runs` / :func:`record_training` (with RAPL joules where readable), :func:`storage_table`,
and the verdicts :func:`activation_verdict`, :func:`storage_verdict`, :func:`energy_answers`,
:func:`edge_verdict`. No FLOP count or CPU time is a joule, and the chapter says so.
"""

from __future__ import annotations

import math
import resource
import tempfile
import time
from pathlib import Path

import numpy as np

from greenelm._validation import check_choice, check_positive_int

__all__ = ["sgd_mlp_flops", "storage_footprint", "training_footprint", "cpu_seconds", "package_counters",
           "counter_ranges", "counter_joules", "memory_sweep", "record_memory", "training_runs", "record_training",
           "training_table", "activation_verdict", "edge_verdict", "energy_answers", "energy_text",
           "storage_table", "storage_verdict", "memory_texts", "flop_sentence"]

#: the models :func:`training_footprint` trains
MODELS = ("green-elm", "sgd-mlp")


def sgd_mlp_flops(n_samples: int, n_inputs: int, n_hidden: int, n_outputs: int, epochs: int,
                  batch_size: int) -> dict:
    """FLOPs of training a D–h–k ReLU MLP by mini-batch SGD with momentum for ``epochs`` epochs.

    Per sample and epoch: the forward pass 2Dh + 2hk; the backward pass 2Dh for the first layer's
    weight gradient (no gradient of the input is needed) and 4hk for the second layer's weight and
    input gradients. Per mini-batch: the momentum update, 4 FLOPs per parameter. Biases, ReLU and
    the softmax loss are O(h + k) per sample and left out. Returns ``{"forward", "backward",
    "update", "total"}`` in FLOPs.
    """
    N, D, h, k, E = (check_positive_int(name, value) for name, value in (
        ("n_samples", n_samples), ("n_inputs", n_inputs), ("n_hidden", n_hidden),
        ("n_outputs", n_outputs), ("epochs", epochs)))
    batch_size = check_positive_int("batch_size", batch_size)
    forward = 2.0 * E * N * (D * h + h * k)
    backward = 2.0 * E * N * D * h + 4.0 * E * N * h * k
    parameters = D * h + h + h * k + k
    update = 4.0 * E * math.ceil(N / batch_size) * parameters
    return {"forward": forward, "backward": backward, "update": update,
            "total": forward + backward + update}


def storage_footprint(X_train: np.ndarray, y_train: np.ndarray, X_test: np.ndarray, n_hidden: int,
                      seed: int = 0, alpha: float = 1e-3, directory: str | Path | None = None) -> dict:
    """Fit a Green-ELM on X_train (N, D), y_train (N,) and measure its two model files.

    * the seed file: ``model.save`` — the readout (d, k), the labels and the seed; ``load_model``
      redraws ``W`` (D, d) and ``b`` (d,) from the seed and checks them against a stored digest;
    * the weights file: the same readout and labels with ``W`` and ``b`` stored (``np.savez``),
      what a model whose projection cannot be redrawn must ship.

    Returns the two sizes in bytes, the bytes of ``W`` + ``b`` and of the readout, and how the
    model loaded from the seed file predicts X_test (M, D) against the fitted model:
    ``labels_identical`` and ``max_score_difference`` (max |decision_function| difference).
    """
    from greenelm import ELMClassifier, load_model

    model = ELMClassifier(n_hidden=check_positive_int("n_hidden", n_hidden), alpha=alpha,
                          random_state=seed).fit(X_train, y_train)
    W, b = np.asarray(model.features_.W), np.asarray(model.features_.b)
    with tempfile.TemporaryDirectory(dir=directory, prefix="greenelm-storage-") as tmp:
        seed_file, weights_file = Path(tmp) / "seed.npz", Path(tmp) / "weights.npz"
        model.save(seed_file)
        np.savez(weights_file, W=W, b=b, coef=np.asarray(model.coef_), classes=model.classes_)
        start = time.perf_counter()
        loaded = load_model(seed_file)
        load_seconds = time.perf_counter() - start
        seed_bytes, weights_bytes = seed_file.stat().st_size, weights_file.stat().st_size
    scores, loaded_scores = model.decision_function(X_test), loaded.decision_function(X_test)
    return {"n_hidden": int(n_hidden), "n_inputs": int(W.shape[0]), "n_outputs": int(model.coef_.shape[1]),
            "seed_file_bytes": int(seed_bytes), "weights_file_bytes": int(weights_bytes),
            "projection_bytes": int(W.nbytes + b.nbytes), "readout_bytes": int(np.asarray(model.coef_).nbytes),
            "load_seconds": load_seconds,
            "labels_identical": bool(np.array_equal(model.predict(X_test), loaded.predict(X_test))),
            "max_score_difference": float(np.max(np.abs(scores - loaded_scores)))}


def cpu_seconds() -> float:
    """User + system CPU seconds of this process (all its threads) so far."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def training_footprint(model: str, n_train: int, n_hidden: int, dataset: str = "mnist", seed: int = 0,
                       epochs: int = 10, batch_size: int = 64, alpha: float = 1e-3) -> dict:
    """Train ``model`` once on the first ``n_train`` images of ``dataset`` (for ``run_isolated``).

    ``model``: ``"green-elm"`` (ELMClassifier, Cholesky, ``n_hidden`` features, λ = ``alpha``) or
    ``"sgd-mlp"`` (the baselines' D–``n_hidden``–k MLP, SGD for ``epochs`` epochs of
    ``batch_size``). Returns the wall and CPU seconds of the training call alone, this process's
    RSS before it and its peak RSS during it (the peak mark is reset first where Linux allows),
    and the FLOP count of the training.
    """
    from greenelm.data import load_dataset
    from greenelm.solvers import fit_flops

    from ..bench import current_rss_bytes, flat_rows, peak_rss_bytes, reset_peak_rss

    check_choice("model", model, MODELS)
    data = load_dataset(dataset)
    n = check_positive_int("n_train", n_train)
    X, y = flat_rows(data, "train", n), data.y_train[:n]
    k = int(data.y_train.max()) + 1
    if model == "green-elm":
        from greenelm import ELMClassifier

        estimator = ELMClassifier(n_hidden=n_hidden, alpha=alpha, random_state=seed)
        run = lambda: estimator.fit(X, y)  # noqa: E731
        flops = fit_flops(n, X.shape[1], n_hidden, k).total
    else:
        from .baselines import SGDConfig, train

        X = X.astype(np.float32)
        run = lambda: train("mlp", X, y, seed=seed, n_hidden=n_hidden,  # noqa: E731
                            config=SGDConfig(epochs=epochs, batch_size=batch_size))
        flops = sgd_mlp_flops(n, X.shape[1], n_hidden, k, epochs, batch_size)["total"]
    reset_peak_rss()
    before = current_rss_bytes()
    cpu, wall = cpu_seconds(), time.perf_counter()
    run()
    wall, cpu = time.perf_counter() - wall, cpu_seconds() - cpu
    return {"model": model, "n_train": n, "n_hidden": int(n_hidden), "wall_seconds": wall,
            "cpu_seconds": cpu, "rss_before_bytes": before, "peak_rss_bytes": peak_rss_bytes(),
            "flops": flops}


def package_counters(counters: dict[str, int]) -> dict[str, int]:
    """The package-level RAPL zones of ``counters`` (``{path: µJ}`` from ``bench.rapl_energy_uj``).

    Linux lists each sub-zone (``intel-rapl:0:0``, the cores of package 0) beside its package
    (``intel-rapl:0``); the package already counts it, so summing all zones would count it twice.
    """
    return {path: value for path, value in counters.items() if Path(path).parent.name.count(":") == 1}


def counter_ranges(counters: dict[str, int]) -> dict[str, int]:
    """Each RAPL counter's range in µJ (its ``max_energy_range_uj`` file), where readable."""
    ranges = {}
    for path in counters:
        try:
            ranges[path] = int((Path(path).parent / "max_energy_range_uj").read_text())
        except (OSError, ValueError):
            continue
    return ranges


def counter_joules(before: dict[str, int], after: dict[str, int], ranges: dict[str, int] | None = None) -> float:
    """Joules between two readings of the same RAPL counters (µJ, ``{path: value}``).

    A counter that went down wrapped around once: its range (``ranges[path]``) is added back; without
    a known range that is a ``ValueError``.
    """
    if set(before) != set(after):
        raise ValueError(f"the two readings name different counters: {sorted(before)} vs {sorted(after)}")
    total = 0
    for path, start in before.items():
        delta = after[path] - start
        if delta < 0:
            if not ranges or path not in ranges:
                raise ValueError(f"{path} went down ({start} -> {after[path]} µJ) and its range is unknown")
            delta += ranges[path]
        total += delta
    return total / 1e6


# -- the hardware chapter's sections: measure in fresh processes, record, judge -------------------
def memory_sweep(widths, n_train: int, dataset: str = "mnist") -> list[dict]:
    """Memory a fit adds (MiB) for greenelm and the paper's listing 1 at each width, each fit in a
    fresh process (:func:`greenelm_book.bench.fit_memory`): rows ``method``, ``d``, ``added (MiB)``."""
    from ..bench import run_isolated

    rows = []
    for method in ("greenelm", "listing"):
        for d in widths:
            run = run_isolated("greenelm_book.bench:fit_memory",
                               {"n_hidden": int(d), "n_train": int(n_train), "method": method, "dataset": dataset})
            if not run["ok"]:
                raise RuntimeError(f"memory run {method} d={d} failed: {run['error']}")
            r = run["result"]
            rows.append({"method": method, "d": int(d),
                         "added (MiB)": (r["rss_after_fit_bytes"] - r["rss_before_fit_bytes"]) / 2**20})
    return rows


def record_memory(store, rows, n_train: int, dataset: str = "mnist", alpha: float = 1e-3, seed: int = 0):
    """Record :func:`memory_sweep`'s rows; a table with the sizes of H (N × d) and HᵀH (d × d) beside."""
    import pandas as pd

    models = {"greenelm": ("Green-ELM", "green-elm/unit/cholesky", {"alpha": alpha, "seed": seed}),
              "listing": ("paper listing 1", "paper-listing1/normal", {"code": "listing 1, np.linalg.solve", "seed": 42})}
    table = []
    for row in rows:
        label, key_model, own = models[row["method"]]
        res = store.record(f"{dataset}/{key_model}/n={n_train}/d={row['d']}/fit-added-mib", [row["added (MiB)"]], "MiB",
                           dataset=dataset, model=label, n_train=n_train, n_hidden=row["d"], dtype="float64",
                           quantity="peak RSS during the fit minus RSS before it", **own)
        table.append({"code": label, "d": row["d"], "added by the fit (MiB)": res.mean,
                      "H (MiB)": n_train * row["d"] * 8 / 2**20, "HᵀH (MiB)": row["d"] ** 2 * 8 / 2**20})
    return pd.DataFrame(table)


def training_runs(n_train: int, elm_width: int, sgd_hidden: int, repeats: int = 1, dataset: str = "mnist",
                  seed: int = 0) -> dict:
    """Green-ELM's fit and the SGD MLP's training, each once per repeat in a fresh process
    (:func:`training_footprint`), with RAPL package joules where readable and the load averages read
    before each run: ``{model: {"runs": [...], "joules": [...], "loads": [...]}}``."""
    from ..bench import load_average, rapl_energy_uj, run_isolated

    def package():
        counters = rapl_energy_uj()
        return package_counters(counters) if counters else None

    out = {model: {"runs": [], "joules": [], "loads": []} for model in MODELS}
    for repeat in range(int(repeats)):
        for model, width in (("green-elm", elm_width), ("sgd-mlp", sgd_hidden)):
            out[model]["loads"].append(load_average())      # read before the run, for the quiet rule
            before = package()
            run = run_isolated("greenelm_book.chapters.footprint:training_footprint",
                               {"model": model, "n_train": int(n_train), "n_hidden": int(width),
                                "dataset": dataset, "seed": seed + repeat})
            after = package()
            if not run["ok"]:
                raise RuntimeError(f"{model} run failed: {run['error']}")
            out[model]["runs"].append(run["result"])
            if before is not None and after is not None:
                out[model]["joules"].append(counter_joules(before, after, counter_ranges(before)))
    return out


def record_training(store, runs: dict, elm_setting: dict, sgd_setting: dict, elm_prefix: str,
                    sgd_prefix: str, sgd_flops: float) -> dict:
    """Record CPU seconds, wall seconds, memory added, FLOPs (and joules where measured) of
    :func:`training_runs`; returns the :class:`~greenelm_book.store.results.Result` of each as ``{"elm_cpu",
    "sgd_cpu", "elm_wall", "sgd_wall", "elm_mem", "sgd_mem", "elm_flops", "sgd_flops", "elm_joules",
    "sgd_joules"}`` (joules None when unmeasured)."""
    from ..bench import largest_loads

    mib = lambda r: (r["peak_rss_bytes"] - r["rss_before_bytes"]) / 2**20  # noqa: E731
    elm, sgd = runs["green-elm"]["runs"], runs["sgd-mlp"]["runs"]
    loads = {model: largest_loads(runs[model].get("loads", [])) for model in MODELS}
    out = {
        "elm_cpu": store.record(f"{elm_prefix}/fit-cpu-seconds", [r["cpu_seconds"] for r in elm], "s", **elm_setting,
                                quantity="CPU seconds (user + system) of the fit call",
                                **({"load_average": loads["green-elm"]} if loads["green-elm"] else {})),
        "sgd_cpu": store.record(f"{sgd_prefix}/train-cpu-seconds", [r["cpu_seconds"] for r in sgd], "s", **sgd_setting,
                                quantity="CPU seconds (user + system) of the training call",
                                **({"load_average": loads["sgd-mlp"]} if loads["sgd-mlp"] else {})),
        "elm_wall": store.record(f"{elm_prefix}/fit-wall-seconds", [r["wall_seconds"] for r in elm], "s",
                                 **elm_setting, quantity="wall seconds of the fit call (the same runs)"),
        "sgd_wall": store.record(f"{sgd_prefix}/train-wall-seconds", [r["wall_seconds"] for r in sgd], "s",
                                 **sgd_setting, quantity="wall seconds of the training call (the same runs)"),
        "elm_mem": store.record(f"{elm_prefix}/fit-added-mib", [mib(r) for r in elm], "MiB", **elm_setting,
                                quantity="peak RSS during the fit minus RSS before it"),
        "sgd_mem": store.record(f"{sgd_prefix}/train-added-mib", [mib(r) for r in sgd], "MiB", **sgd_setting,
                                quantity="peak RSS during the training minus RSS before it"),
        "elm_flops": store.record(f"{elm_prefix}/fit-flops", [elm[0]["flops"]], "FLOP", **elm_setting,
                                  quantity="FLOPs counted (greenelm.solvers.fit_flops)"),
        "sgd_flops": store.record(f"{sgd_prefix}/train-flops", [sgd_flops], "FLOP", **sgd_setting,
                                  quantity="FLOPs counted (footprint.sgd_mlp_flops)")}
    for model, name, prefix, setting in (("green-elm", "elm_joules", elm_prefix, elm_setting),
                                         ("sgd-mlp", "sgd_joules", sgd_prefix, sgd_setting)):
        joules = runs[model]["joules"]
        out[name] = (store.record(
            f"{prefix}/package-joules", joules, "J", **setting,
            quantity="RAPL package energy during the run (whole machine)") if joules else None)
    return out


def training_words(rec: dict) -> dict:
    """The directions the footprint paragraph may state (glue name → words), each only where a test decides it:
    ``cpu_word`` Green-ELM's CPU seconds against SGD's (paired by repeat, the same-machine ratio under the
    quiet rule), ``mem_word`` SGD's added memory against Green-ELM's (the same-machine ratio of the runs)."""
    from ..judging.verdicts import direction_words, quiet_bound, same_machine_ratio
    from ..report import Verdict

    cpu = np.asarray(rec["elm_cpu"].values, float) / np.asarray(rec["sgd_cpu"].values, float)
    cpu_verdict = quiet_bound(same_machine_ratio(cpu, claimed="below"), rec["elm_cpu"], rec["sgd_cpu"])
    sgd_mem, elm_mem = (np.asarray(rec[k].values, float) for k in ("sgd_mem", "elm_mem"))
    mem_verdict = (same_machine_ratio(sgd_mem, elm_mem, claimed="above") if (sgd_mem > 0).all() and (elm_mem > 0).all()
                   else Verdict("inconclusive", "", "a run added no memory: no ratio"))
    return {"cpu_word": direction_words(cpu_verdict, float(np.exp(np.log(cpu).mean())), ("less", "more")),
            "mem_word": direction_words(mem_verdict, sgd_mem.mean() / max(elm_mem.mean(), 1e-12), ("less", "more"))}


def memory_texts(rec: dict) -> dict:
    """Each training's added memory as the page prints it beside the direction :func:`training_words` states:
    ``sgd_mem_text``, ``elm_mem_text`` ("159.2 ± 0.4 MiB (n = 5)": mean ± sd over the runs)."""
    from ..report import ours_text

    return {f"{name}_text": ours_text(rec[name].values, "MiB", 1) for name in ("sgd_mem", "elm_mem")}


def flop_sentence(flop_ratio: float, cpu_word: str) -> str:
    """What the fit's arithmetic against SGD's (``flop_ratio``: the fit's FLOPs over SGD's) says, ending the
    sentence that states the CPU time's direction (``cpu_word``, :func:`training_words`): where the fit does
    more arithmetic, the time it saves is credited to dense BLAS only where the CPU time's direction is
    decided ("less"); otherwise no saving is stated."""
    if flop_ratio < 1:
        return "so at this size the fit saves arithmetic as well"
    if flop_ratio == 1:
        return "with the same arithmetic"
    said = ("so the fit does not save arithmetic against this small MLP (a one-hidden-layer network of width 64 "
            "is cheap per pass)")
    if cpu_word == "less":
        said += ("; the CPU time it saves comes from dense BLAS running near the machine's GEMM rate, not from "
                 "fewer operations")
    return said


def activation_verdict(activation_kib: float, elm_mib: float, sgd_mib: float):
    """"SGD needs substantial memory for its activations, which limits on-device training": not
    measurable here. The claim is about SGD on devices in general (deep networks, large batches), and
    the paper measures no device and no deep network; for information, the activations one backward
    pass of the paper's own Table I MLP keeps (counted) against what a Green-ELM fit adds (measured)."""
    from ..report import Verdict

    larger = "more" if activation_kib / 1024 > elm_mib else "less"
    return Verdict("not measurable here",
                   f"activations {activation_kib:.0f} KiB per batch vs Green-ELM's {elm_mib:.0f} MiB; the whole "
                   f"SGD training adds {sgd_mib:.0f} MiB, mostly the framework's buffers",
                   "the claim is about SGD on devices, deep networks with large batches included; the paper "
                   "measures neither a device nor a deep network, and no device is here. For information: the "
                   f"paper's own Table I MLP keeps {larger} memory in activations than a Green-ELM fit at the "
                   "Table I width adds (counted against measured in a fresh process)")


def storage_table(store, split, widths, setting: dict, seed: int = 0, alpha: float = 1e-3):
    """Measure :func:`storage_footprint` at each width and record it: a table (one row per d) and
    the keys the storage claim rests on."""
    import pandas as pd

    rows, keys = [], []
    for d in widths:
        s = storage_footprint(split.X_train, split.y_train, split.X_test, d, seed=seed, alpha=alpha)
        own = dict(**setting, n_hidden=int(d), n_inputs=s["n_inputs"], n_outputs=s["n_outputs"],
                   n_train=len(split.y_train), n_test=len(split.y_test), format="greenelm .npz (np.savez, uncompressed)")
        prefix = f"{setting['dataset']}/green-elm/unit/cholesky/d={d}"
        seed_file = store.record(f"{prefix}/seed-file-bytes", [s["seed_file_bytes"]], "bytes", **own,
                                 stores="readout, labels, seed and digest")
        weights = store.record(f"{prefix}/weights-file-bytes", [s["weights_file_bytes"]], "bytes", **own,
                               stores="readout, labels, W and b")
        same = store.record(f"{prefix}/seed-reload-labels-identical", [float(s["labels_identical"])], "", **own,
                            quantity="1 when the model loaded from the seed file predicts every test label as the fitted model")
        diff = store.record(f"{prefix}/seed-reload-max-score-difference", [s["max_score_difference"]], "", **own,
                            quantity="max |decision_function| difference, loaded vs fitted")
        keys += [seed_file.key, weights.key, same.key, diff.key]
        rows.append({"width d": int(d), "with W (MB)": weights.mean / 1e6, "seed only (MB)": seed_file.mean / 1e6,
                     "smaller (×)": weights.mean / seed_file.mean, "same predictions": "yes" if same.mean == 1 else "no",
                     "max score diff.": diff.mean})
    return pd.DataFrame(rows), keys


def storage_verdict(table):
    """"W1 from a seed reduces storage": every seed-only file smaller than the one with W and b, and
    the model loaded from it predicting exactly as the fitted one."""
    from ..report import judge_qualitative

    largest = table.iloc[-1]
    smaller = bool((table["smaller (×)"] > 1).all() and (table["same predictions"] == "yes").all())
    return judge_qualitative(smaller, "greenelm's seed-only model file against one that stores W and b, and the "
                             "seed-only model's test predictions against the fitted model's",
                             f"{largest['seed only (MB)']:.2f} MB instead of {largest['with W (MB)']:.2f} MB at "
                             f"d = {int(largest['width d'])} ({largest['smaller (×)']:.0f}× smaller), "
                             + ("identical predictions" if smaller else "predictions differ"))


def energy_answers(rec: dict, setting_text: str) -> list[tuple]:
    """Answers ``(claim, verdict, keys)`` to "SGD's passes cost more energy" and "energy was not
    measured", from :func:`record_training`'s results ``rec``: RAPL joules where the machine has
    them, else "not measurable here" with the FLOP and CPU ratios as information."""
    from ..report import judge_qualitative, not_measurable

    flop_ratio = rec["elm_flops"].mean / rec["sgd_flops"].mean
    cpu_ratio = rec["elm_cpu"].mean / rec["sgd_cpu"].mean
    if rec["elm_joules"] is not None and rec["sgd_joules"] is not None:
        elm, sgd = rec["elm_joules"].mean, rec["sgd_joules"].mean
        keys = [rec["elm_joules"].key, rec["sgd_joules"].key]
        return [("energy_per_prediction_reduced",
                 judge_qualitative(bool(elm < sgd), "RAPL package energy of the Green-ELM fit against the SGD "
                                   "MLP's training (Table I settings)", f"{elm:.0f} J vs {sgd:.0f} J"), keys),
                ("energy_not_measured", judge_qualitative(True, "does the paper report joules or emissions",
                                                          "no; this machine's RAPL counters give the figures above"), keys)]
    return [("energy_per_prediction_reduced",
             not_measurable(f"no energy counters are readable here; as information, Green-ELM's fit does "
                            f"{flop_ratio:.1f}× the FLOPs and uses {cpu_ratio:.2f}× the CPU seconds of SGD's "
                            f"training ({setting_text})"),
             [rec["elm_flops"].key, rec["sgd_flops"].key, rec["elm_cpu"].key, rec["sgd_cpu"].key]),
            ("energy_not_measured",
             judge_qualitative(True, "does the paper, or can this book, report joules or emissions",
                               "neither: no RAPL counters are readable here; FLOPs and CPU seconds instead"),
             [rec["elm_cpu"].key, rec["sgd_cpu"].key])]


def energy_text(rec: dict) -> str:
    """The chapter's sentence on energy: the joules measured, or why there are none."""
    if rec["elm_joules"] is not None and rec["sgd_joules"] is not None:
        return (f"the RAPL package counters read {rec['elm_joules'].mean:.0f} J for the Green-ELM fit and "
                f"{rec['sgd_joules'].mean:.0f} J for the SGD training (whole machine, other processes included)")
    return ("this machine exposes no readable RAPL energy counters (/sys/class/powercap/intel-rapl*), "
            "so no joules are reported")


def cpu_seconds_words(runs: dict, cores: int) -> str:
    """What the footprint's CPU seconds count, in words, with the check that makes them credible:
    user + system time of the training call's process, summed over every thread (the BLAS threads
    included, no other process), so up to ``cores`` CPU seconds per second of wall time. ``runs``:
    :func:`training_runs`'s ``{model: {"runs": [{"cpu_seconds", "wall_seconds"}, ...]}}``. ValueError
    when a run's CPU seconds exceed ``cores`` × its wall time (by more than 2 %: timer granularity),
    which no process on ``cores`` cores can do."""
    ratios = {}
    for model, part in runs.items():
        for run in part["runs"]:
            ratio = run["cpu_seconds"] / run["wall_seconds"]
            if ratio > cores * 1.02:
                raise ValueError(f"{model}: {run['cpu_seconds']:.2f} CPU s in {run['wall_seconds']:.2f} s of wall "
                                 f"time is more than {cores} cores can give")
            ratios[model] = max(ratios.get(model, 0.0), ratio)
    busiest = ", ".join(f"{model} {ratio:.1f}×" for model, ratio in ratios.items())
    return (f"CPU seconds are the user and system time of the training call's process, every thread summed (its "
            f"BLAS threads included, no other process): on {cores} cores up to {cores} CPU seconds per second of "
            f"wall time (the most a run used: {busiest}), so they are not the wall seconds of a fit timed elsewhere")


def training_table(rec: dict, width: int, hidden: int, epochs: int, solver: str = "cholesky"):
    """Green-ELM's fit (its ``solver`` named) beside the SGD MLP's training: FLOPs, CPU and wall seconds of
    the same runs (each the whole training call in a fresh process, set-up included: not the baselines
    chapter's training-loop seconds), memory added (means)."""
    import pandas as pd

    from .random_features import SOLVER_NAMES     # the solvers' names as the pages print them

    return pd.DataFrame([
        {"model": f"Green-ELM ({SOLVER_NAMES.get(solver, solver)}), d = {width}",
         "FLOPs (G)": rec["elm_flops"].mean / 1e9, "CPU, whole call (s)": rec["elm_cpu"].mean, "wall, whole call (s)": rec["elm_wall"].mean, "memory added (MiB)": rec["elm_mem"].mean},
        {"model": f"SGD MLP, hidden {hidden}, {epochs} epochs", "FLOPs (G)": rec["sgd_flops"].mean / 1e9,
         "CPU, whole call (s)": rec["sgd_cpu"].mean, "wall, whole call (s)": rec["sgd_wall"].mean, "memory added (MiB)": rec["sgd_mem"].mean}])



def edge_verdict(rec: dict, cores: int, n_train: int, width: int):
    """"Viable for edge AI": not measurable without an edge device; the fit's CPU seconds and memory
    on this CPU as information."""
    from ..report import not_measurable

    return not_measurable(f"no edge device or power meter here; on this {cores}-core CPU without a GPU the fit at "
                          f"N = {n_train}, d = {width} takes {rec['elm_cpu'].mean:.1f} CPU s and adds "
                          f"{rec['elm_mem'].mean:.0f} MiB, evidence of feasibility on a small CPU, not of viability "
                          "on a battery-powered device")
