"""The frontier chapter's page: what it reads, records, answers, tables, figures and sentences.

Nothing here fits a model. The chapter reads committed records (``book/frontier_protocol/``):

* the protocol's seeds (:mod:`greenelm_book.chapters.frontier_protocol`: every choice on validation
  rows of the training images, one refit, the test set read once per seed for the pick);
* the declared fixed measurements of the paper's map on the pixels
  (:mod:`greenelm_book.chapters.frontier_fixed`) and the SGD opponents
  (:mod:`greenelm_book.chapters.frontier_opponents`);

and the scaling chapter's results (the paper's map at the widths it measures). So the chapter
re-executes in seconds on any clone, and each number it shows was computed once, by the run that
wrote its record; the gate's ledger (``test-reads.json``) lists every read of the test labels.

Result keys (one configuration, one key):

* ``<dataset>/green-elm/unit/ridge-loo/d=<d>/{accuracy,lambda}`` and ``<dataset>/arccos-kernel/accuracy``:
  part 1, the scaling chapter's key prefix continued to wider d;
* ``<dataset>/frontier-protocol/{test-accuracy,seconds,refit-seconds,peak-memory}``: one value per
  seed recorded;
* ``<dataset>/<recipe>/<schedule>/{accuracy,train-seconds}``: the SGD opponents, one value per seed.

The search that came before the protocol (variants scored on the test images) is retired; its
kernel limit's timing survives as ``benchmarks/held_out_limit.py``, which reads no test label.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd

from ..judging.rejudge import answer_as_scorecard
from ..paper import DATASET_NAMES
from ..report import and_list, by_sign, capitalised, colour, duration_text, judge_qualitative, log_ticks, spread_text, thousands
from .frontier_protocol import RUNS_DIR, configuration_key, load_protocol
from .frontier_opponents import opponent_key
from .frontier_budget import (OPTIMIZER_WORDS, RECIPE_WORDS, accuracy_cell, gain_with_sampling, recipe_words,
                              record_host, repo_path, seeds_text)
from .frontier_records import candidate_text, variant_gains
from .frontier_records import load_records as _load_records
from .frontier_records import with_own_schedule_runs

#: the published anchors' sources, as the anchor table names them
SOURCES = {"mcdonnell2015fast": "McDonnell et al. 2015", "mcdonnell2015enhanced": "McDonnell & Vladusich 2015",
           "coates2011analysis": "Coates, Lee & Ng 2011", "thiry2021unreasonable": "Thiry et al. 2021",
           "recht2018cifar": "Recht et al. 2018", "shankar2020neural": "Shankar et al. 2020",
           "chen2019cknpytorch": "Chen 2019 (code of Mairal 2016)", "page2018how": "Page 2018",
           "jordan2024airbench": "Jordan 2024"}
#: the opponents' recipes in words
#: how long an opponent trained, in words, by its schedule (:data:`~greenelm_book.chapters.frontier_opponents.SCHEDULES`)
SCHEDULE_WORDS = {"published": "its own schedule", "protocol-seconds": "cut at the protocol's seconds"}
#: the datasets in the page's order
DATASETS = ("mnist", "fashion-mnist", "cifar10")
GB = 1e9


#: the grid's history beside the protocol's rule, in the same words on every page that states the rule
#: (the frontier, the intro, the headline findings, the conclusion): :func:`grid_history`
GRID_HISTORY = "the grid was first explored on test scores"


#: the halving protocol's grid, in the same words wherever its picks are quoted: :func:`halving_grid`
HALVING_GRID = ("a grid declared in advance from published settings and the book's own additions (its families, "
                "the kernel limit among them, first explored on test scores by the earlier search)")


#: the same in the bottom line's fewer words (its history kept, its sources left to the pages that quote them)
HALVING_GRID_BRIEF = "a grid declared in advance (its families first explored on test scores by an earlier search)"


def halving_grid(brief: bool = False) -> str:
    """Where the halving protocol's grid comes from (``params/frontier_halving.yml``, each range with its
    source), in the words every page quoting its picks uses; ``brief``: the bottom line's shorter words,
    which keep the grid's history."""
    return HALVING_GRID_BRIEF if brief else HALVING_GRID


def grid_history() -> str:
    """The one clause that names the grid's history wherever "every choice made on held-out training
    rows" is said: the protocol's choices are made within a grid whose families an earlier search, now
    retired, compared on test-set accuracy."""
    return GRID_HISTORY


def load_records(records_dir: str | Path = RUNS_DIR, budget_dir: str | Path | None = None) -> dict:
    """:func:`~greenelm_book.chapters.frontier_records.load_records` of ``records_dir`` (relative: to the root);
    with ``budget_dir``, each opponent's own-schedule runs completed from the accuracy-seconds fronts' records
    there (:func:`~greenelm_book.chapters.frontier_records.with_own_schedule_runs`)."""
    records = _load_records(repo_path(records_dir))
    return records if budget_dir is None else with_own_schedule_runs(records, repo_path(budget_dir))


# ----------------------------------------------------------------------------- part 1: ultra wide
def fixed_records(dataset: str, records_dir: str | Path = RUNS_DIR, seed: int = 0) -> dict:
    """The fixed measurements of the paper's map on ``dataset``'s pixels with ``seed`` recorded in
    ``records_dir`` (full runs only): {"widths": {d: record}, "limit": record or None, "limit_held_out": [the
    limit with its ridge chosen on held-out training rows, one record per seed, every seed recorded: its
    split is seeded]}, each with its file name."""
    out: dict = {"widths": {}, "limit": None, "limit_held_out": []}
    for path in sorted(repo_path(records_dir).glob(f"{dataset}-paper-map-*-seed*.json")):
        record = json.loads(path.read_text(encoding="utf-8"))
        if record.get("subset") is not None or record.get("dataset") != dataset:
            continue
        record["file"] = path.name
        if record["configuration"].get("ridge") == "held-out":
            out["limit_held_out"].append(record)
        elif int(record["seed"]) != int(seed):
            continue
        elif record["configuration"]["model"] == "paper-map-limit":
            out["limit"] = record
        else:
            out["widths"][int(record["configuration"]["n_hidden"])] = record
    out["limit_held_out"].sort(key=lambda r: int(r["seed"]))
    return out


def ultra_wide_part(store, dataset: str, records_dir: str | Path = RUNS_DIR, seed: int = 0) -> dict:
    """Part 1: the scaling chapter's curve of the paper's map (λ by exact LOO), continued by the fixed
    measurements at wider d, and the map's d → ∞ limit (read from the scaling chapter when it measured
    it, else from its fixed record); each width past the scaling chapter's recorded here. The ln d law
    and the saturating law are fitted at the paper's widths (else the two narrowest) and tested on the
    wider ones.

    Returns {dataset, prefix, widths, d_ultra, loo_curve {d: accuracy}, lambda {d: λ}, interior,
    kernel_key, kernel_accuracy, fit_widths, held_widths, test (HeldOutTest), held_out_limit (the tuned
    limit's Result over its seeds, None when not measured), records}."""
    from .. import paper
    from ..store.results import load_all
    from .frontier_fixed import SCALING_KEY, scaling_widths
    from .scaling_law import held_out_test

    scaling = load_all(store.directory)["scaling"]["results"]
    prefix = SCALING_KEY.format(dataset=dataset, d="")
    measured = scaling_widths(scaling, dataset, "accuracy")
    loo_curve = {d: store.get("scaling", f"{prefix}{d}/accuracy").mean for d in measured}
    found = fixed_records(dataset, records_dir, seed)
    wider = {d: r for d, r in found["widths"].items() if d not in loo_curve}
    if not wider or found["limit"] is None:
        raise FileNotFoundError(f"{records_dir}: no record of the paper's map on {dataset}'s pixels past d = "
                                f"{max(measured, default=0)}, or of its limit; run python -m "
                                f"greenelm_book.chapters.frontier_fixed --dataset {dataset} --seed {seed}")
    chosen = {}
    for d, record in sorted(wider.items()):
        setting = dict(dataset=dataset, model="Green-ELM", weight_scale="unit", seeds=[record["seed"]], n_hidden=d,
                       criterion="exact LOO MSE", loo_rows=int(record["loo_rows"]), subset=None,
                       gram="float32 features and Gram (the library's float32 remedy)", solver="float64 Cholesky",
                       record=record["file"], computed_at=record["started_at"])
        chosen[d] = store.record(f"{prefix}{d}/lambda", [record["alpha"]], "", quantity="λ", **setting).mean
        loo_curve[d] = store.record(f"{prefix}{d}/accuracy", [record["test_accuracy"]], "%",
                                    quantity="test accuracy at LOO's λ", **setting).mean
    kernel_key = f"{dataset}/arccos-kernel/accuracy"
    if kernel_key in scaling:                      # the scaling chapter measured this limit: read it
        kernel_accuracy = store.get("scaling", kernel_key).mean
    else:
        limit = found["limit"]
        kernel_accuracy = store.record(kernel_key, [limit["test_accuracy"]], "%", dataset=dataset,
                                       n_train=limit["n_train"], model="arc-cosine kernel ridge (d = ∞)",
                                       estimator="greenelm.KernelLimitClassifier", jitter=limit["jitter"],
                                       mu=limit["mu"], dtype="float32", subset=None, record=limit["file"],
                                       computed_at=limit["started_at"]).mean
    held_out_limit = None
    if found["limit_held_out"]:                    # the limit of tuned fits: its ridge chosen on held-out rows
        tuned = found["limit_held_out"]
        held_out_limit = store.record(
            f"{dataset}/arccos-kernel/held-out-ridge/accuracy", [r["test_accuracy"] for r in tuned], "%",
            dataset=dataset, n_train=tuned[0]["n_train"],
            model="arc-cosine kernel ridge (d = ∞), ridge chosen on held-out training rows",
            estimator="greenelm.KernelLimitClassifier", jitter_grid=tuned[0]["jitter_grid"],
            validation_share=tuned[0]["validation_share"], jitters=[r["jitter"] for r in tuned],
            seeds=[int(r["seed"]) for r in tuned], computed_on=sorted({record_host(r) or "not recorded" for r in tuned}),
            subset=None, record=[r["file"] for r in tuned], computed_at=[r["started_at"] for r in tuned])
    paper_widths = [d for d in paper.SCALING["widths"] if d in loo_curve]
    fit_widths = paper_widths if len(paper_widths) >= 2 else sorted(loo_curve)[:2]
    held_widths = [d for d in sorted(loo_curve) if d > max(fit_widths)]
    test = held_out_test(fit_widths, [loo_curve[d] for d in fit_widths], held_widths,
                         [loo_curve[d] for d in held_widths])
    return {"dataset": dataset, "prefix": prefix, "widths": sorted(wider), "d_ultra": max(wider),
            "loo_curve": loo_curve, "lambda": chosen, "interior": all(r["interior"] for r in wider.values()),
            "kernel_key": kernel_key, "kernel_accuracy": kernel_accuracy, "fit_widths": fit_widths,
            "held_widths": held_widths, "test": test, "held_out_limit": held_out_limit,
            "records": {**wider, "limit": found["limit"], "limit_held_out": found["limit_held_out"]}}


def ultra_intro_glues(part: dict) -> dict:
    """The values part 1's introduction quotes: the dataset, the widths and the fixed runs' cost."""
    widest, limit = part["records"][part["d_ultra"]], part["records"]["limit"]
    return {"ultra_name": DATASET_NAMES[part["dataset"]],
            "ultra_text": " and ".join(thousands(d) for d in part["widths"]),
            "ultra_minutes": duration_text(widest["seconds"]),
            "ultra_peak": f"{widest['peak_memory_gb']:.1f}",
            "limit_minutes": duration_text(limit["seconds"]), "limit_peak": f"{limit['peak_memory_gb']:.1f}"}


def widest_gap_phrase(limit: float, widest: float) -> str:
    """The limit against the widest model (one value each: one run per side), its side stated only where
    the interval decides it (:func:`~greenelm_book.judging.verdicts.gap_phrase`): "0.84 points above the
    widest model on the means (no direction judged: one run per side)"."""
    from ..judging.verdicts import gap_phrase

    return gap_phrase([limit], [widest], "the widest model")


def ultra_glues(part: dict, goal: float) -> dict:
    """The values the paragraph after part 1's figure quotes (``goal``: the bar of the answer, %)."""
    test, d_ultra, kernel = part["test"], part["d_ultra"], part["kernel_accuracy"]
    accuracy = part["loo_curve"][d_ultra]
    ln_error = test.log_prediction[-1] - accuracy
    sat_error = test.saturating_prediction[-1] - accuracy
    gap = kernel - accuracy
    return {
        "d_ultra": thousands(d_ultra), "acc_ultra": accuracy, "lam_ultra": f"{part['lambda'][d_ultra]:.0e}",
        "ultra_interior": "yes" if part["interior"] else "no", "fit_widths_text": widths_text(part["fit_widths"]),
        "ln_words": by_sign(ln_error, "overshoots", "undershoots", "matches"), "ln_error_abs": abs(ln_error),
        "sat_words": by_sign(sat_error, "overshoots", "undershoots", "matches"), "sat_error_abs": abs(sat_error),
        "ln_mae": test.log_error, "sat_mae": test.saturating_error, "kernel_acc": kernel, "gap": abs(gap),
        "gap_phrase": widest_gap_phrase(kernel, accuracy),
        "limit_sentence": by_sign(kernel - goal,
                                  f"the limit of this map, at its vanishing ridge, clears the {goal:.1f} % mark.",
                                  f"the limit of this map at its vanishing ridge, the width past every width, stays "
                                  f"{goal - kernel:.2f} points below the {goal:.1f} % bar the question is judged by. "
                                  + bar_reading(part, goal),
                                  f"the limit sits exactly at {goal:.1f} %."),
        "limit_ridge_sentence": limit_ridge_sentence(part)}


def patches_bar_sentence(store, goal: float, dataset: str = "mnist") -> str:
    """Where the halving protocol's picks on ``dataset`` (part 3's random patches, another map than the one
    this question judges) stand against the same ``goal`` (%), for information: their mean ± sd over seeds, the
    95 % interval of that mean (:func:`~greenelm_book.judging.verdicts.mean_beyond_bound`, the book's one
    interval rule), its side of the bar, and how many seeds fall below it; "" with fewer than 2 seeds."""
    from ..judging.verdicts import mean_beyond_bound, mean_interval
    from .frontier_budget import HALVING

    found = store.results.get(f"{dataset}/{HALVING}/test-accuracy")
    if found is None or found.n < 2:
        return ""
    verdict = mean_beyond_bound({dataset: found.values}, goal, "above", what="test accuracy (%)")
    _, low, high = mean_interval(found.values)
    side = {"holds": "lies above it", "does not hold": "lies below it"}.get(
        verdict.label, "contains the bar, so they are shown neither above nor below it")
    below = sum(value < goal for value in found.values)
    return (f"For information, the random patches of section 3 (another map, not judged by this question) reach "
            f"{spread_text(found)} % on {DATASET_NAMES[dataset]} over {found.n} seeds under the halving protocol; "
            f"the 95 % interval of that mean, {low:.2f}–{high:.2f} %, {side} ({below} of {found.n} seeds below "
            f"{goal:.1f} %).")


def bar_reading(part: dict, goal: float) -> str:
    """Why the limit is read against a fixed bar while its gap to the widest model states no side: the widest
    model is one random draw of the map's weights (the seeds rule bounds a draw), the limit draws nothing (a
    kernel on every training image), and its ridge chosen on held-out rows, over seeded splits, is said beside."""
    tuned = part.get("held_out_limit")
    also = ("" if tuned is None else
            f"; with its ridge chosen on held-out rows ({len(tuned.values)} seeded splits, below) it is "
            f"{abs(goal - tuned.mean):.2f} points {by_sign(tuned.mean - goal, 'above', 'below', 'at')} it")
    return ("The limit draws no random weights (a kernel on every training image), so it is read against the fixed "
            "bar directly, where its gap to the widest model, one draw of the map's weights, states no side"
            f"{also}.")


def limit_ridge_sentence(part: dict) -> str:
    """Which limit the kernel's accuracy is: its ridge μ (the record's) against the one the widest finite
    model's LOO λ stands for in the kernel's scale, μ = λ / d (ridge on H = relu(XW + b) with λ predicts as
    kernel ridge on K = HHᵀ/d with λ/d), so a reader does not take the limit of near-minimum-norm fits
    for the limit of the LOO-tuned ones."""
    limit, d = part["records"]["limit"], part["d_ultra"]
    lam = part["lambda"][d]
    return (f"Its ridge is μ = {limit['mu']:.1e} (a jitter of {limit['jitter']:g}); LOO's λ = {lam:.0e} at "
            f"d = {thousands(d)} stands for μ = λ/d = {lam / d:.2g} in the kernel's scale, "
            f"{by_sign(math.log10(lam / d / limit['mu']), 'larger', 'smaller', 'the same')} by "
            f"{abs(math.log10(lam / d / limit['mu'])):.0f} orders of magnitude. The paper's fixed λ = 10⁻³ stands "
            "for μ = λ/d → 0 as d grows, so that limit is the paper's setting's (near-minimum-norm fits). "
            + held_out_limit_sentence(part))


def held_out_limit_sentence(part: dict) -> str:
    """The limit of tuned fits, where its records exist: the ridge chosen on held-out training rows (the
    records' jitter grid and share, which every seed's record must share), the jitter and μ each seed chose,
    the test accuracy over the seeds, and where it was computed when every record names it (its accuracy,
    not its seconds, is read); else that it is not measured."""
    tuned, result = part["records"].get("limit_held_out"), part.get("held_out_limit")
    if not tuned or result is None:
        return "The limit with a tuned ridge is not measured here."
    grid, share = tuned[0]["jitter_grid"], tuned[0]["validation_share"]
    if any(r["jitter_grid"] != grid or r["validation_share"] != share for r in tuned):
        raise ValueError("the held-out limit's records do not share one jitter grid and share: "
                         + "; ".join(f"{r['file']}: {r['jitter_grid']}, {r['validation_share']}" for r in tuned))
    steps = {round(b / a, 9) for a, b in zip(grid, grid[1:])}
    spacing = f", ×{steps.pop():g} apart" if len(steps) == 1 else ""
    hosts = [record_host(r) for r in tuned]
    seeds = [int(r["seed"]) for r in tuned]
    jitters, mus = [f"{r['jitter']:g}" for r in tuned], [f"{r['mu']:.1e}" for r in tuned]
    chose = (f"a jitter of {jitters[0]} (μ = {mus[0]})" if len(tuned) == 1 else
             f"jitters of {and_list(jitters)} (μ = {and_list(mus)}) on seeds {and_list([str(s) for s in seeds])}")
    return (f"With its ridge chosen on held-out training rows instead (a seeded {100 * share:.0f} % of the training "
            f"images scoring the jitters {grid[0]:g} to {grid[-1]:g}{spacing}, each fitted on the rest; declared "
            f"before it ran), the limit chose {chose} and reaches {spread_text(result)} % "
            f"({len(seeds)} seed{'' if len(seeds) == 1 else 's'})"
            + (f", computed on {hosts[0]} (its accuracy is read, not its seconds)."
               if None not in hosts and len(set(hosts)) == 1 else "."))


def widths_text(widths) -> str:
    """Widths in words: ``"8 000, 16 000 and 32 000"`` (:func:`~greenelm_book.report.thousands`)."""
    return and_list(thousands(d) for d in widths)


def held_out_sentence(part: dict, scaling_error=None) -> str:
    """What part 1's held-out error averages, in words: the widths it is taken over (``part["held_widths"]``,
    λ by LOO at each) and both laws' mean absolute errors; with ``scaling_error`` (the scaling chapter's
    stored ln d error, a :class:`~greenelm_book.store.results.Result` whose setting names its
    ``held_out_widths`` and ``alpha``) the sentence names it as a different quantity, with its own value."""
    test = part["test"]
    sentence = (f"Over the held-out widths d = {widths_text(part['held_widths'])} (every width past the fitted d ≤ "
                f"{thousands(max(part['fit_widths']))}, λ by leave-one-out at each), the mean absolute error is "
                f"{test.log_error:.2f} points for ln d and {test.saturating_error:.2f} for the saturating law.")
    if scaling_error is None:
        return sentence
    setting = scaling_error.setting
    return (f"{sentence} The scaling chapter's ln d error, {scaling_error.mean:.2f} points, is "
            f"another quantity: its mean over d = {widths_text(setting['held_out_widths'])} at the paper's fixed "
            f"λ = {setting['alpha']:g}: one of the held-out errors, one per dataset that chapter measured, on "
            "which the ln d verdict rests.")


def plot_ultra_wide(part: dict):
    """Part 1's figure: the measured LOO curve, the ln d line and the saturating law fitted at the
    fit widths (held-out widths shaded), and the kernel limit; x on a log scale labelled at the
    measured widths only."""
    import matplotlib.pyplot as plt

    test, fit_widths, curve = part["test"], part["fit_widths"], part["loo_curve"]
    fig, ax = plt.subplots(figsize=(7.5, 4.2))
    widths_all = sorted(curve)
    ax.plot(widths_all, [curve[d] for d in widths_all], "o-", color=colour("Green-ELM"),
            label="Green-ELM, λ by exact LOO (measured)")
    grid = np.geomspace(min(fit_widths), part["d_ultra"] * 4, 200)
    ax.plot(grid, test.log_params[0] * np.log(grid) + test.log_params[1], "--", color=colour("Green-ELM (ridge)"),
            label=f"ln d line fitted at d ≤ {thousands(max(fit_widths))}")
    a, b, c = test.saturating_params
    ax.plot(grid, a - b * grid ** -c, ":", color=colour("ridge on pixels"), label="saturating law, same points")
    ax.axhline(part["kernel_accuracy"], color=colour("kernel limit"), lw=1.5, label="d → ∞: arc-cosine kernel")
    held = part.get("held_widths") or []
    # shaded from midway (in log d) between the widest fitted width and the narrowest held-out one: a fitted
    # width is never drawn inside the held-out band
    ax.axvspan(np.sqrt(max(fit_widths) * min(held)) if held else max(fit_widths), grid[-1], color="0.93", zorder=0)
    ax.set_ylim(top=min(100.0, ax.get_ylim()[1]))          # the ln d line would climb past 100 %
    ax.set(xscale="log", xlabel="hidden width d (log scale)", ylabel="test accuracy (%)",
           title=f"{DATASET_NAMES[part['dataset']]}: the paper's map, widened (shaded: held out)")
    log_ticks(ax, widths_all)
    ax.legend(loc="lower right", fontsize=9)
    return fig


def answer_ultra_wide(store, part: dict, goal: float):
    """The answer to ``ultra_wide_million_dimensions``: holds if the ln d line predicts the
    held-out widths better than the saturating law and the map's limit reaches ``goal``: at the paper's
    vanishing ridge or, where measured, with its ridge chosen on held-out rows (the seeds' mean)."""
    test, d_ultra, kernel = part["test"], part["d_ultra"], part["kernel_accuracy"]
    fit_widths, held_widths = part["fit_widths"], part["held_widths"]
    tuned = part.get("held_out_limit")
    limits = [kernel] + ([tuned.mean] if tuned is not None else [])
    ln_continues = test.log_error < test.saturating_error
    limit_reaches = max(limits) >= goal
    which = ("at the paper's fixed λ (arc-cosine kernel ridge, μ = λ/d → 0: the limit of the paper's own setting) "
             "or with its ridge chosen on held-out training rows (the limit of tuned fits)" if tuned is not None else
             "at the paper's fixed λ (arc-cosine kernel ridge, μ = λ/d → 0: the limit of the paper's own setting; "
             "that of tuned fits is not measured)")
    rule = (f"holds if the ln d line fitted at d ≤ {max(fit_widths)} predicts the held-out widths "
            f"{', '.join(str(d) for d in held_widths)} better than a saturating law fitted to the same points, and "
            f"the map's d → ∞ limit {which} reaches {goal:.1f} % on {DATASET_NAMES[part['dataset']]}")
    limit_keys = [part["kernel_key"]] + ([tuned.key] if tuned is not None else [])
    keys = [f"{part['prefix']}{d_ultra}/accuracy", *limit_keys]
    limits_text = (f"{kernel:.2f} % at the vanishing ridge and {tuned.mean:.2f} % with the held-out ridge, both"
                   if tuned is not None else f"{kernel:.2f} %")
    if not limit_reaches:
        # the conjunction fails on the limits alone, each computed from every training image rather than drawn
        # as a width's features are: the seeds rule that bounds the widths' one draw each does not reach them
        split = "" if tuned is None else f" (the held-out ridge's limit: a mean over {len(tuned.values)} seeded splits)"
        rule += (f"; it fails on the limits alone ({limits_text} < {goal:.1f} %), each computed from every "
                 f"training image rather than from drawn features, so the widths' one draw each does not decide "
                 f"it{split} (the ln d part, for information: {'passes' if ln_continues else 'fails'})")
        keys = limit_keys
    answer_as_scorecard(store, "ultra_wide_million_dimensions", judge_qualitative(
        ln_continues and limit_reaches, rule,
        f"d = {d_ultra}: {part['loo_curve'][d_ultra]:.2f} %; mean absolute error over d = "
        f"{', '.join(str(d) for d in held_widths)} (λ by LOO): ln d {test.log_error:.2f}, saturating "
        f"{test.saturating_error:.2f} points; limit {kernel:.2f} %"
        + (f" (held-out ridge {tuned.mean:.2f} %)" if tuned is not None else "")),
        keys, note="the paper's map on MNIST pixels, λ by LOO at every width (the random patches of sections 2 and 3, "
        "the book's headline, are another map, not judged here); declared fixed measurements, not choices")
    return store.answers["ultra_wide_million_dimensions"]


# ----------------------------------------------------------------------------- part 2: the protocol
def protocol_runs(records: dict, dataset: str) -> list[dict]:
    """The protocol's records of ``dataset``, by seed ([] when none)."""
    entry = records.get(dataset, {"protocol": {}})
    return [entry["protocol"][s] for s in sorted(entry["protocol"])]


def _read_at(run: dict) -> str:
    """When the test labels were read for the pick of one seed's run (the gate's ledger time)."""
    return next((r["at"] for r in run.get("test_reads", []) if r["kind"] == "pick"), "")


def record_protocol(store, records: dict, planned_seeds) -> dict:
    """Record each dataset's protocol (one value per seed recorded) and its SGD opponents; returns
    {dataset: {"accuracy", "seconds", "refit", "memory" (Results), "seeds": [..], "opponents": {schedule: Result}}}."""
    out = {}
    for dataset in DATASETS:
        runs = protocol_runs(records, dataset)
        if not runs:
            continue
        setting = dict(dataset=dataset, protocol="params/frontier_protocol.yml", seeds=[r["seed"] for r in runs],
                       planned_seeds=list(planned_seeds), picks=[configuration_key(r["pick"]) for r in runs],
                       n_fit=runs[0]["n_fit"], n_validation=runs[0]["n_validation"], n_train=runs[0]["n_train"],
                       machine="2 CPU cores", computed_at=[_read_at(r) for r in runs])
        prefix = f"{dataset}/frontier-protocol"
        part = {"seeds": setting["seeds"], "runs": runs, "n_test": int(runs[0]["n_test"]),
                "accuracy": store.record(f"{prefix}/test-accuracy", [r["test_accuracy"] for r in runs], "%",
                                         quantity="test accuracy of each seed's pick, read once", **setting),
                "seconds": store.record(f"{prefix}/seconds", [r["seconds"]["total"] for r in runs], "s",
                                        quantity="the whole protocol: selection fits + refit + scoring", **setting),
                "refit": store.record(f"{prefix}/refit-seconds", [r["seconds"]["refit"] for r in runs], "s",
                                      quantity="the refit on all training images at the pick", **setting),
                "memory": store.record(f"{prefix}/peak-memory", [r["peak_memory_gb"] for r in runs], "GB",
                                       quantity="the process's peak resident memory", **setting),
                "opponents": {}}
        by_schedule: dict[str, list] = {}
        for (schedule, _), run in sorted(records[dataset]["opponents"].items()):
            by_schedule.setdefault(schedule, []).append(run)
        for schedule, found in by_schedule.items():
            recipe = found[0]["configuration"]["model"]
            opponent = dict(dataset=dataset, recipe=recipe, schedule=schedule, seeds=[r["seed"] for r in found],
                            epochs_run=[r["epochs_run"] for r in found], machine="2 CPU cores",
                            machines=[record_host(r) for r in found],       # each run's, where its record names it
                            computed_at=[r["started_at"] for r in found])
            key = opponent_key(dataset, recipe, schedule)
            part["opponents"][schedule] = {
                "accuracy": store.record(f"{key}/accuracy", [r["accuracy"] for r in found], "%",
                                         quantity="test accuracy (declared fixed measurement)", **opponent),
                "seconds": store.record(f"{key}/train-seconds", [r["seconds"] for r in found], "s",
                                        quantity="training seconds", **opponent),
                "runs": found}
        out[dataset] = part
    return out


def headline_table(protocol: dict, planned_seeds) -> pd.DataFrame:
    """One row per dataset: the seeds recorded, the picks' test accuracy (mean ± sd, and the test-set
    sampling error of the mean), the whole protocol's seconds and the refit's (means), the peak memory
    (from the recorded results)."""

    rows = []
    for dataset, part in protocol.items():
        rows.append({"dataset": DATASET_NAMES[dataset],
                     "seeds": f"{len(part['seeds'])} of {len(planned_seeds)}",
                     "test accuracy (%)": accuracy_cell(part["accuracy"].values, part["n_test"]),
                     "whole protocol": duration_text(part["seconds"].mean),
                     "of it the refit": duration_text(part["refit"].mean),
                     "peak memory (GB)": f"{max(part['memory'].values):.1f}"})
    return pd.DataFrame(rows)


def picks_table(protocol: dict) -> pd.DataFrame:
    """One row per dataset and seed: the protocol's pick (:func:`candidate_text`), its validation
    accuracy, its test accuracy (that seed's one read) and the whole protocol's seconds, the last two
    read from the recorded results of :func:`record_protocol`."""
    rows = []
    for dataset, part in protocol.items():
        for run, test, seconds in zip(part["runs"], part["accuracy"].values, part["seconds"].values, strict=True):
            rows.append({"dataset": DATASET_NAMES[dataset], "seed": run["seed"],
                         "pick": candidate_text(run["pick"]),
                         "validation (%)": f"{run['validation_accuracy']:.2f}",
                         "test (%)": f"{test:.2f}", "whole protocol": duration_text(seconds)})
    return pd.DataFrame(rows)


def grid_view(records: dict, dataset: str) -> pd.DataFrame:
    """The grid of ``dataset`` in validation accuracy (:func:`~greenelm_book.chapters.frontier_records.grid_table`),
    with shorter column names to fit the book's column."""
    from .frontier_records import grid_table

    frame = grid_table(records, dataset)
    return frame.rename(columns={"selection fit (s)": "fit (s)", "validation accuracy (%)": "validation (%)"})


def gains_text(records: dict, protocol: dict) -> str:
    """The book's gain verdict (:func:`~greenelm_book.judging.verdicts.gain_over`) of each variant over the
    plain ridge readout, per dataset, on the per-seed validation accuracies: one sentence per dataset."""
    from .frontier_records import VARIANT_WORDS

    parts = []
    for dataset in protocol:
        gains = variant_gains(records, dataset)
        counts = {}
        for run in records[dataset]["protocol"].values():
            for row in run["grid"]:
                counts.setdefault(row["candidate"].get("variant"), set()).add(json.dumps(row["candidate"], sort_keys=True))
        n_base = len(counts.get("readout", ()))
        said = "; ".join(selection_bounded(verdict, len(counts.get(variant, ())), n_base)
                         for variant, verdict in gains.items())
        best_of = ", ".join(f"{VARIANT_WORDS.get(v, v)} {len(c)}" for v, c in counts.items())
        parts.append(f"{DATASET_NAMES[dataset]}: {said} (candidates per variant: {best_of}).")
    return (" ".join(parts) + " Each side is a variant's best validation accuracy among its candidates, on the "
            "validation rows that best was chosen on: a side with more candidates gains from the choice itself, so "
            "its lead is an upper bound of what a split the choice never saw would show, and shows no gain.")


def selection_bounded(verdict, n_variant: int, n_base: int) -> str:
    """A variant's gain verdict over the readout (its ``ours``: "B − A = … (paired, n = 3): a gain") as the
    page may state it when each side is its best validation accuracy on the rows that chose it: a gain by a
    side with more candidates than the other (``n_variant`` > ``n_base``) is that choice's upper bound, so
    the rule's "no gain shown", with the reason; a loss, or a gain between equal numbers of candidates, as judged."""
    from ..judging.verdicts import GAIN_LABELS

    if verdict.label != GAIN_LABELS["gain"] or n_variant <= n_base:
        return verdict.ours
    difference = verdict.ours.rsplit(": ", 1)[0]
    return (f"{difference}: no gain shown (best of {n_variant} candidates against {n_base}, on the rows that chose "
            "them: an upper bound)")


def protocol_sentence(protocol: dict, planned_seeds) -> str:
    """The protocol's outcome in words, per dataset, with how many planned seeds have run."""
    parts = []
    for dataset, part in protocol.items():
        parts.append(f"{DATASET_NAMES[dataset]} {spread_text(part['accuracy'])} % over {len(part['seeds'])} of "
                     f"{len(planned_seeds)} seeds, "
                     f"{duration_text(part['seconds'].mean)} for the whole protocol per seed")
    missing = [DATASET_NAMES[d] for d in DATASETS if d not in protocol]
    text = "The protocol gives " + "; ".join(parts) + "."
    if missing:
        text += f" {' and '.join(missing)} {'has' if len(missing) == 1 else 'have'} no seed recorded yet."
    short = {DATASET_NAMES[d]: len(part["seeds"]) for d, part in protocol.items() if len(part["seeds"]) < len(planned_seeds)}
    if short:
        from ..judging.verdicts import MIN_GAIN_RUNS

        one = len(short) == 1
        counts = ", ".join(f"{'' if one else name + ' '}{n} of {len(planned_seeds)}" for name, n in short.items())
        text += (f" {' and '.join(short)} {'has' if one else 'have'} fewer seeds than planned ({counts}), so "
                 f"{'its number is' if one else 'their numbers are'} not yet the headline")
        text += (f"; the book's gain rule judges no difference over fewer than {MIN_GAIN_RUNS} seeds."
                 if min(short.values()) < MIN_GAIN_RUNS else ".")
    return text


# ----------------------------------------------------------------------------- part 3: opponents, anchors
def picks_of(protocol: dict, halving: dict | None, dataset: str) -> list[tuple[str, dict]]:
    """[(the protocol's name, its part)] of ``dataset``: the earlier protocol's (:func:`record_protocol`), then
    the halving protocol's (:func:`~greenelm_book.chapters.frontier_sections.record_halving`) where a seed of it
    ran; both parts carry "seeds", "accuracy", "seconds", "n_test" and "runs"."""
    found = [("the earlier protocol", protocol[dataset])]
    if halving and (halving.get(dataset) or {}).get("runs"):
        found.append(("the halving protocol", halving[dataset]))
    return found


def opponents_view(protocol: dict, halving: dict | None = None) -> pd.DataFrame:
    """One row per dataset and opponent schedule, beside each protocol's pick (:func:`picks_of`): how each is
    trained (the opponent's optimiser by name), accuracy (with its test-set sampling error) and seconds."""

    rows = []
    for dataset, part in protocol.items():
        for name, picked in picks_of(protocol, halving, dataset):
            rows.append({"dataset": DATASET_NAMES[dataset], "method": f"{name} (its pick, refitted)",
                         "trained": "kernel ridge, no gradient steps",
                         "test accuracy (%)": accuracy_cell(picked["accuracy"].values, picked["n_test"]),
                         "seconds": f"{picked['seconds'].mean:,.0f}"})
        for schedule, result in part["opponents"].items():
            recipe = result["accuracy"].setting["recipe"]
            rows.append({"dataset": DATASET_NAMES[dataset],
                         "method": f"{RECIPE_WORDS.get(recipe, recipe)}, {SCHEDULE_WORDS[schedule]}",
                         "trained": f"whole network ({OPTIMIZER_WORDS.get(recipe, recipe)})",
                         "test accuracy (%)": accuracy_cell(result["accuracy"].values, part["n_test"]),
                         "seconds": f"{result['seconds'].mean:,.0f}"})
    return pd.DataFrame(rows)


def opponent_gain(part: dict, result: dict, explain: bool = True) -> dict:
    """The book's gain rule with the test-set sampling error
    (:func:`~greenelm_book.chapters.frontier_budget.gain_with_sampling`) on "the protocol's pick gains
    over the SGD opponent", paired by seed over the seeds both have run. ``part``: a dataset's
    entry of :func:`record_protocol`; ``result``: one of its opponents. Returns {"verdict", "outcome"
    ("gain", "loss" or "no gain shown"), "seeds" (both ran), "gap" (mean paired difference, points),
    "ratio" (the protocol's whole seconds over the opponent's training seconds, means on those seeds),
    "ours_seconds" and "theirs_seconds" (those two means, the ratio's sides)}; ``explain`` False: the verdict's
    detail without what the rule's bar is made of (:func:`gain_with_sampling`)."""
    from ..judging.verdicts import GAIN_LABELS

    def by_seed(recorded):
        return dict(zip(recorded.setting["seeds"], recorded.values, strict=True))

    ours, theirs = by_seed(part["accuracy"]), by_seed(result["accuracy"])
    common = [seed for seed in part["seeds"] if seed in theirs]
    if not common:
        raise ValueError("the protocol and its opponent share no seed; the gain rule pairs them by seed")
    recipe = result["accuracy"].setting["recipe"]
    verdict = gain_with_sampling([theirs[s] for s in common], [ours[s] for s in common], part["n_test"],
                                 names=(f"{RECIPE_WORDS.get(recipe, recipe)} ({OPTIMIZER_WORDS.get(recipe, recipe)})",
                                        "the protocol's pick"), explain=explain)
    ours_seconds, theirs_seconds = by_seed(part["seconds"]), by_seed(result["seconds"])
    ours_mean = float(np.mean([ours_seconds[s] for s in common]))
    theirs_mean = float(np.mean([theirs_seconds[s] for s in common]))
    return {"verdict": verdict, "outcome": {label: word for word, label in GAIN_LABELS.items()}[verdict.label],
            "seeds": common, "gap": float(np.mean([ours[s] - theirs[s] for s in common])),
            "ratio": ours_mean / theirs_mean, "ours_seconds": ours_mean, "theirs_seconds": theirs_mean}


def seconds_ratio_words(ours, theirs, judged: dict, n_seeds: int, explain: bool = True) -> str:
    """The whole protocol's seconds against an opponent's training seconds (``ours``, ``theirs``: their
    Results; ``judged``: :func:`opponent_gain`'s), as a ratio only where
    :func:`~greenelm_book.store.results.same_host` shows one machine measured both; else the two means side
    by side and why no ratio is stated (``explain`` False: "no ratio stated" alone, the reason said before)."""
    from ..store.results import same_host

    where = "on that seed" if n_seeds == 1 else "on those seeds (means)"
    sides = f"{judged['ours_seconds']:,.0f} s against {judged['theirs_seconds']:,.0f} s"
    if same_host(ours, theirs):
        return f"the whole protocol takes {judged['ratio']:.1f}× the recipe's training seconds {where} ({sides})"
    return (f"the whole protocol took {judged['ours_seconds']:,.0f} s and the recipe's training "
            f"{judged['theirs_seconds']:,.0f} s {where}, no ratio stated"
            + (": their records do not show one machine measured both" if explain else ""))


def gain_outcome_words(judged: dict) -> str:
    """:func:`opponent_gain`'s outcome as a noun phrase: "a gain", "a loss", "no gain shown"."""
    return {"gain": "a gain", "loss": "a loss"}.get(judged["outcome"], judged["outcome"])


def pick_gap_words(judged: dict, opponent: str, pick: str | None = None) -> str:
    """A protocol's pick against ``opponent`` in words, by :func:`opponent_gain`'s ``judged``: "<pick> is 9.22
    points below <opponent> over 3 paired seeds" (the seeds both ran) where the book's gain rule decides a side (3 seeds or
    more), else "<pick> and <opponent> are 0.44 points apart on the means on seed 0, the one seed both ran (no
    direction judged)"; without ``pick``, the same without a subject ("9.22 points below <opponent> …", "0.44
    points from <opponent> on the means …")."""
    from ..judging.verdicts import MIN_GAIN_RUNS

    common, gap = judged["seeds"], judged["gap"]
    seeds = f"over {len(common)} paired seeds" if len(common) > 1 else f"on seed {common[0]}, the one seed both ran"
    if judged["outcome"] in ("gain", "loss") and len(common) >= MIN_GAIN_RUNS:       # a side the rule decided
        said = f"{abs(gap):.2f} points {by_sign(gap, 'above', 'below', 'level with')} {opponent} {seeds}"
        return f"{pick} is {said}" if pick else said
    if pick:                                                   # no side stated where the rule decides none
        return f"{pick} and {opponent} are {abs(gap):.2f} points apart on the means {seeds} (no direction judged)"
    return f"{abs(gap):.2f} points from {opponent} on the means {seeds} (no direction judged)"


def opponents_sentence(protocol: dict, halving: dict | None = None) -> str:
    """Each protocol's pick (:func:`picks_of`: the earlier one's, then the halving one's where it ran) against
    the SGD opponent on each dataset that has both, paired by seed, with the book's gain rule's verdict
    (:func:`opponent_gain`): the difference's side is stated only where that rule decides a gain or a loss
    (3 seeds or more), else the two are "… points apart on the means (no direction judged)"; what the rule's
    bar is made of is said at its first use only."""
    from ..judging.verdicts import MIN_GAIN_RUNS
    from ..store.results import days_text, measured_on_text, result_days

    sentences, timed, explained, why_no_ratio = [], [], False, True
    for dataset, opponents_part in protocol.items():
        for (name, part), (schedule, result) in ((picked, opponent) for picked in picks_of(protocol, halving, dataset)
                                                 for opponent in opponents_part["opponents"].items()):
            judged = opponent_gain(part, result, explain=not explained)     # the rule's bar explained once
            timed += [part["seconds"], result["seconds"]]
            opponent = f"{RECIPE_WORDS.get(result['accuracy'].setting['recipe'])} ({SCHEDULE_WORDS[schedule]})"
            if len(judged["seeds"]) < MIN_GAIN_RUNS:            # the rule's own reason: too few seeds
                judgement = f"not judged by the book's gain rule: {judged['verdict'].detail}"
            else:
                judgement = f"{gain_outcome_words(judged)} by the book's gain rule, since {judged['verdict'].detail}"
                explained = True
            gap_words = pick_gap_words(judged, opponent, f"{name}'s pick")
            sentences.append(
                f"On {DATASET_NAMES[dataset]} {gap_words}, "
                f"{judgement}; {seconds_ratio_words(part['seconds'], result['seconds'], judged, len(judged['seeds']), why_no_ratio)}.")
            why_no_ratio = why_no_ratio and "no ratio stated" not in sentences[-1]      # the reason said once
    if not sentences:
        return "No SGD opponent has a record yet."
    # what the records say of where and when those seconds were measured (no host beyond the cores: never
    # "one machine" unless the records show it)
    timed = list({id(r): r for r in timed}.values())
    named = named_hosts_clause(protocol, halving)
    if named:           # the records that name a machine first, then what the seconds together amount to
        days = days_text(result_days(timed))                 # every run's day, not each value's latest
        when = f" (measured {days})" if days else ""
        return (" ".join(sentences) + f" {named}: the seconds above, pooled over seeds, are not shown to come "
                f"from one machine{when}.")
    return " ".join(sentences) + f" The protocols' and the recipes' seconds above were {measured_on_text(timed)}."


def named_hosts_clause(protocol: dict, halving: dict | None = None) -> str:
    """Which of the protocols' seed records name the machine that ran them (:func:`record_host`), where some
    do and the others do not: "Of the protocols' 18 seed records, only CIFAR-10's halving protocol seed 2
    (AMD EPYC, 2 cores) names the machine that ran it; the other 17 name none; the recipes' records name none"
    ("" when every record, or none, names one: the seconds' host sentence then says it whole)."""
    by_host: dict[str, dict[str, list]] = {}          # machine -> "MNIST's halving protocol" -> its seeds
    unnamed = 0
    for dataset in protocol:
        for name, part in picks_of(protocol, halving, dataset):
            for run in part.get("runs", []):
                host = record_host(run)
                if host:
                    which = f"{DATASET_NAMES[dataset]}'s {name.removeprefix('the ')}"
                    by_host.setdefault(host, {}).setdefault(which, []).append(int(run["seed"]))
                else:
                    unnamed += 1
    named = [f"{and_list([f'{which} ' + seeds_text(sorted(seeds)) for which, seeds in runs.items()])} ({host})"
             for host, runs in by_host.items()]
    n_named = sum(len(seeds) for runs in by_host.values() for seeds in runs.values())
    if not named or not unnamed:
        return ""
    recipe_runs = [run for dataset in protocol for result in protocol[dataset]["opponents"].values()
                   for run in result.get("runs", [])]
    recipes_named = sum(1 for run in recipe_runs if record_host(run))
    recipes = ("the recipes' records name none" if not recipes_named else
               f"of the recipes' {len(recipe_runs)} runs, {recipes_named} name{'s' if recipes_named == 1 else ''} "
               f"{'its' if recipes_named == 1 else 'their'} machine (the fronts' own-schedule points, §5) and "
               f"{len(recipe_runs) - recipes_named} name{'s' if len(recipe_runs) - recipes_named == 1 else ''} none")
    return (f"Of the protocols' {n_named + unnamed} seed records, only {'; '.join(named)} "
            f"name{'s' if n_named == 1 else ''} the machine that ran {'it' if n_named == 1 else 'them'}; "
            f"the other {unnamed} name none; {recipes}")


def opponent_recipes_text(protocol: dict) -> str:
    """Each dataset's opponent named for what it is (:func:`~greenelm_book.chapters.frontier_budget.recipe_words`:
    its optimiser, schedule and augmentation read from its recipe; a recipe run on another dataset than
    its own said to be untuned for it), one sentence per dataset that has an opponent."""

    sentences = []
    for dataset, part in protocol.items():
        recipes = sorted({result["accuracy"].setting["recipe"] for result in part["opponents"].values()})
        for recipe in recipes:
            words = recipe_words(recipe, dataset)
            sentences.append(f"on {DATASET_NAMES[dataset]}, {words}.")
    if not sentences:
        return "no opponent has a record yet."
    return " ".join(s[0].upper() + s[1:] if i else s for i, s in enumerate(sentences))


def limit_memory_gb(n_train: int) -> float:
    """The kernel limit's N × N float32 kernel, in GB (the views average into the same N × N kernel)."""
    return 4 * int(n_train) ** 2 / GB


def anchor_table(protocol: dict, halving: dict | None = None) -> pd.DataFrame:
    """The published anchors of the datasets the protocol ran, each with what it trains, its size
    and its augmentation, then the book's own rows (each protocol's pick, :func:`picks_of`: kernel ridge over
    all training images and its kernel's memory; the gradient-trained opponent, its optimiser named) in the
    same columns, our accuracies with their test-set sampling error."""
    from .. import paper

    rows = []
    for dataset in protocol:
        for row in paper.ANCHORS[paper.ANCHORS["dataset"] == dataset].itertuples():
            rows.append({"dataset": DATASET_NAMES[dataset], "method (source)": f"{row.method} ({SOURCES[row.source]})",
                         "trained": row.trained, "size": row.size, "augmentation": row.augmentation,
                         "test accuracy (%)": f"{row.accuracy:g}"})
        part = protocol[dataset]
        for name, picked in picks_of(protocol, halving, dataset):
            picks = list({configuration_key(run["pick"]): run for run in picked["runs"]}.values())   # distinct picks
            rows.append({"dataset": DATASET_NAMES[dataset],
                         "method (source)": f"this book: {name}'s pick, "
                                            + picks_method([run["pick"] for run in picked["runs"]]),
                         "trained": "; ".join(dict.fromkeys(PICK_TRAINED[run["pick"]["variant"]] for run in picks)),
                         "size": "; ".join(dict.fromkeys(pick_size(run["pick"], run["n_train"]) for run in picks)),
                         "augmentation": "; ".join(dict.fromkeys(
                             " + ".join(VIEW_WORDS.get(v, v) for v in run["pick"].get("views") or []) or "none"
                             for run in picks)),
                         "test accuracy (%)": accuracy_cell(picked["accuracy"].values, picked["n_test"])})
        for schedule, result in part["opponents"].items():
            recipe = result["accuracy"].setting["recipe"]
            rows.append({"dataset": DATASET_NAMES[dataset],
                         "method (source)": f"this book: {RECIPE_WORDS.get(recipe, recipe)} on two CPU cores, "
                                            f"{SCHEDULE_WORDS[schedule]}",
                         "trained": f"whole network ({OPTIMIZER_WORDS.get(recipe, recipe)})",
                         "size": OPPONENT_SIZES.get(recipe, "—"),
                         "augmentation": OPPONENT_AUGMENTATION.get(recipe, "—"),
                         "test accuracy (%)": accuracy_cell(result["accuracy"].values, part["n_test"])})
    return pd.DataFrame(rows)


#: what the protocol's pick is and trains, by its variant (:data:`~greenelm_book.chapters.frontier_protocol.VARIANTS`)
PICK_METHODS = {"limit": "{map} in its d → ∞ limit on whitened random patches",
                "stacked": "{map} at a finite width on whitened random patches",
                "readout": "a ridge readout on whitened random patches"}
PICK_TRAINED = {"limit": "kernel ridge (one Cholesky), no SGD", "stacked": "least-squares readout, no SGD",
                "readout": "least-squares readout, no SGD"}


def picks_method(picks: list[dict]) -> str:
    """What ``picks`` (one per seed) are, in words, each variant once (:data:`PICK_METHODS`), with how many of
    its picks compose the paper's map deeper than one layer (the arc-cosine kernel composed that many times in
    the limit): "the paper's map (2 layers deep in 1 of 19 picks) in its d → ∞ limit on whitened random patches"."""
    from collections import Counter

    depths: dict[str, Counter] = {}
    for pick in picks:
        depths.setdefault(pick["variant"], Counter())[int(pick.get("depth") or 1)] += 1

    def map_words(found: Counter) -> str:
        deeper = [f"{depth} layers deep in {n} of {sum(found.values())} picks" for depth, n in sorted(found.items())
                  if depth > 1]
        return "the paper's map" + (f" ({'; '.join(deeper)})" if deeper else "")

    return "; ".join(PICK_METHODS[variant].format(map=map_words(found)) for variant, found in depths.items())


#: the views a pick averages into its kernel, or adds as rows, in words
VIEW_WORDS = {"flip": "mirror images", "shift": "one-pixel shifts"}


def pick_size(pick: dict, n_train: int) -> str:
    """A pick's model size: the kernel limit's N × N kernel and its float32 memory, else its features."""
    patch_features = 2 * int(pick["n_patches"]) * int(pick["pool"]) ** 2
    if pick["variant"] == "limit":
        return f"N × N kernel, N = {int(n_train):,}: {limit_memory_gb(n_train):.1f} GB in float32"
    if pick["variant"] == "stacked":
        return f"d = {int(pick['n_hidden']):,} random features on {patch_features:,} patch features"
    return f"{patch_features:,} patch features"


#: the opponents' size and augmentation, as their recipes (greenelm_book.chapters.fast_sgd) set them
OPPONENT_SIZES = {"pytorch-mnist-cnn": "2 conv + 2 dense layers, 1.2 M weights",
                  "airbench94": "about 1.97 M weights"}
OPPONENT_AUGMENTATION = {"pytorch-mnist-cnn": "none",
                         "airbench94": "alternating flips, 2-pixel translations; flips and translations at test time"}


def anchor_notes(protocol: dict, halving: dict | None = None) -> list[str]:
    """The anchors' compute, as their sources state it, and the book's own rows' seconds on two CPU
    cores: the footnotes of :func:`anchor_table` (one line each, in its order)."""
    from .. import paper

    lines = []
    for dataset in protocol:
        lines += [f"{SOURCES[row.source]}, {row.accuracy:g} % on {DATASET_NAMES[dataset]}: {row.compute}."
                  for row in paper.ANCHORS[paper.ANCHORS["dataset"] == dataset].itertuples()]
        part = protocol[dataset]
        for name, picked in picks_of(protocol, halving, dataset):
            lines.append(f"This book's {name.removeprefix('the ')} on {DATASET_NAMES[dataset]}: "
                         f"{picked['seconds'].mean:,.0f} s per seed on two CPU cores, every selection fit, the refit "
                         "and the scoring counted.")
        for schedule, result in part["opponents"].items():
            recipe = RECIPE_WORDS.get(result['accuracy'].setting['recipe'])
            lines.append(f"{capitalised(recipe)} on {DATASET_NAMES[dataset]} here ({SCHEDULE_WORDS[schedule]}): "
                         f"{result['seconds'].mean:,.0f} s of training on two CPU cores.")
    return lines


# ----------------------------------------------------------------------------- what limited us
def limits_text(protocol: dict, part: dict) -> str:
    """What bounded the chapter: the limit's N × N kernel against this machine's memory, per dataset; the
    machine's memory as every page prints it (:func:`~greenelm_book.bench.memory_text`)."""
    from ..bench import chapter_machine, memory_text

    parts = [f"{DATASET_NAMES[d]} {max(p['memory'].values):.1f} GB at peak for a {p['runs'][0]['n_train']:,}-row kernel "
             f"({limit_memory_gb(p['runs'][0]['n_train']):.1f} GB of it)" for d, p in protocol.items()]
    limit = part["records"]["limit"]
    return ("Every kernel limit holds its N × N float32 kernel: " + "; ".join(parts)
            + f"; the pixels' limit {limit['peak_memory_gb']:.1f} GB. Twice the training images would need four times "
              f"the memory, past this machine's {memory_text(chapter_machine()['memory_gib'])}, and the kernel's products grow "
              "as N².")


def planned_seeds(params: str | Path | None = None) -> list[int]:
    """The seeds ``params/frontier_protocol.yml`` plans for every dataset."""
    return list(load_protocol(None if params is None else repo_path(params))["seeds"])


__all__ = ["DATASETS", "RECIPE_WORDS", "SCHEDULE_WORDS", "SOURCES", "gain_outcome_words", "pick_gap_words", "anchor_notes", "anchor_table", "answer_ultra_wide", "held_out_limit_sentence", "named_hosts_clause",
           "fixed_records", "gains_text", "selection_bounded", "grid_view", "headline_table", "limit_memory_gb", "limits_text",
           "load_records", "opponent_gain", "opponent_key", "opponent_recipes_text", "opponents_sentence", "opponents_view", "picks_table", "plot_ultra_wide",
           "pick_size", "picks_of", "planned_seeds", "protocol_runs", "protocol_sentence", "record_protocol", "ultra_glues",
           "repo_path", "ultra_intro_glues", "ultra_wide_part"]
