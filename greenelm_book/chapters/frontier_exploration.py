"""The frontier's search before its protocol (until 2026-11-28 the chapter's page module): patch
readouts, stacked maps and kernel-limit variants fitted and **scored on the test images**, the most
accurate headlined. A number chosen that way is not a result, so no page reads this module any more:
the chapter (:mod:`greenelm_book.chapters.frontier`) reads the protocol's records, every choice made
on validation rows. It stays for the exploration reports' scripts (``benchmarks/held_out_limit.py``)
and its tests, and goes when they are re-run on validation rows. The computations live in
:mod:`greenelm_book.chapters.frontier_features`.

Result keys (one configuration, one key):

* ``<dataset>/patch-readout/p=<p>/pool=<pool>/k=<K>[/dictionary=<name>][/augment=<a+b>]/<stat>``
  for stat in accuracy, fit-seconds, peak-memory, lambda; ``/dictionary=...`` only for a dictionary
  other than :data:`DEFAULT_DICTIONARY`, so the sampled patches keep their keys;
* ``<dataset>/stacked-patches/p=<p>/pool=<pool>/k=<K>/{d=<d>,arccos-kernel}/<stat>``: the paper's
  map stacked on the standardised patch features (:func:`~greenelm_book.chapters.frontier_features.stacked_readout`)
  and its d → ∞ limit (:func:`~greenelm_book.chapters.frontier_features.stacked_kernel_limit`; at wider K,
  :func:`stacked_limit_point`); ``…/arccos-kernel-ridge/`` the limit with μ chosen on held-out
  training rows, ``…/arccos-kernel-flip-ridge/`` with each image's mirror image averaged into
  its kernel too, and ``…/arccos-kernel-shift/`` the vanishing ridge's limit with each image's four
  one-pixel shifts averaged into its kernel (:func:`averaged_limit_point`; :data:`LIMIT_VARIANTS`).

A section whose parameter is empty (no second dictionary, one pool, no stacked widths and no limit)
records nothing and says :data:`NOT_RUN`.
"""

from __future__ import annotations

import numbers
import re
import time
from functools import partial

import numpy as np
import pandas as pd

from greenelm._validation import check_positive_int

from .frontier_features import (IMAGE_SHAPES, cost_curve, held_out_split, patch_readout, patch_views,
                                stacked_kernel_limit, stacked_readout, standardised_patch_features,
                                standardised_patch_views)
from ..paper import DATASET_NAMES
from .frontier import SOURCES, log_ticks          # the page's anchors' sources and log axes
from ..report import by_sign, colour, duration_text, errors_removed, ours_text, show_table, thousands

#: the augmentations in words
AUGMENT_WORDS = {"flip": "the mirror image", "shift": "the four one-pixel shifts"}
#: the SGD-trained networks of the baselines chapter each dataset is compared with
SGD_MODELS = {"mnist": ["sgd-mlp"], "fashion-mnist": ["sgd-mlp"], "cifar10": ["sgd-mlp", "sgd-cnn"]}
SGD_LABELS = {"sgd-mlp": "SGD MLP", "sgd-cnn": "SGD CNN"}
#: the SGD networks the chapter may train for longer than the baselines chapter did (the MLP of
#: Table I on the 28 × 28 datasets, the small CNN on CIFAR-10: the strongest SGD network of each)
LONG_SGD = {"mnist": ("mlp",), "fashion-mnist": ("mlp",), "cifar10": ("cnn",)}
#: the dictionaries in words
WORDS = {"kmeans": "k-means", "sampled": "sampled"}
#: the patch dictionary of the chapter's main sweep (its keys do not name it)
DEFAULT_DICTIONARY = "sampled"
#: what a section whose parameter is empty says instead of its results
NOT_RUN = "not run in this profile"
#: how a patch readout solves for its λ path (:func:`~greenelm_book.chapters.frontier_features.choose_readout_solver`):
#: the words its results' setting records, and the short label of the chapter's table
SOLVER_WORDS = {"eigh": "one eigendecomposition of the Gram, every λ from it",
                "cholesky": "one float64 Cholesky factorisation of G + λI per λ"}
SOLVER_LABELS = {SOLVER_WORDS["eigh"]: "eigh", SOLVER_WORDS["cholesky"]: "Cholesky"}
GB = 1e9


# ----------------------------------------------------------------------------- parameters
def as_list(value) -> list:
    """A parameter that may be one value, a list of them, or None/empty (nothing): as a list."""
    if value is None:
        return []
    if isinstance(value, (list, tuple)):
        return list(value)
    return [value]


def pool_list(pool) -> list[int]:
    """``pool`` (an int or a list of them) as a list, the main pool first; ValueError if empty."""
    pools = [int(p) for p in as_list(pool)]
    if not pools or any(p < 1 for p in pools) or len(set(pools)) != len(pools):
        raise ValueError(f"pool must be a positive int or a list of distinct ones, got {pool!r}")
    return pools


def dictionary_list(dictionary) -> list[str]:
    """The dictionaries compared with the default one (``dictionary``: a name, a list, or None);
    the default is always fitted (the chapter is built on it) and not listed here."""
    from greenelm.patches import DICTIONARIES

    names = as_list(dictionary)
    unknown = [n for n in names if n not in DICTIONARIES]
    if unknown:
        raise ValueError(f"unknown dictionary {unknown}: expected names of {DICTIONARIES}")
    return [n for n in dict.fromkeys(names) if n != DEFAULT_DICTIONARY]


def feature_device() -> str | None:
    """Where the patch features are computed: ``"cuda"`` through torch when a GPU is present, else
    None, NumPy (on two CPU cores its strip map runs 1.5–2.1× faster than torch's CPU path,
    ``benchmarks/patches``, and the whole CIFAR-10 fit at K = 256 takes 1.30× as long on torch's CPU
    path: ``benchmarks/patch_fit_device``, both of 2026-11-27)."""
    try:
        import torch
    except ImportError:
        return None
    return "cuda" if torch.cuda.is_available() else None


# ----------------------------------------------------------------------------- part 2: patches
def patch_key(name: str, K: int, pool: int, extra=(), dictionary: str = DEFAULT_DICTIONARY) -> str:
    """The key prefix of one patch-readout configuration (the statistic is appended)."""
    kind = f"/dictionary={dictionary}" if dictionary != DEFAULT_DICTIONARY else ""
    aug = f"/augment={'+'.join(extra)}" if extra else ""
    return f"{name}/patch-readout/p={IMAGE_SHAPES[name][1]}/pool={pool}/k={K}{kind}{aug}"


def patch_run(name: str, K: int, seed: int, *, subset, pool: int, loo_rows: int, device, extra=(),
              alpha=None, dictionary: str = DEFAULT_DICTIONARY) -> dict:
    """One cached :func:`~greenelm_book.chapters.frontier_features.patch_readout` (entry ``frontier-patches``; the
    params name the dictionary only when it is not the default, so the sampled entries keep theirs)."""
    from ..store.results_cache import memoize

    params = {"dataset": name, "n_patches": K, "seed": seed, "subset": subset, "pool": pool, "augment": list(extra),
              "loo_rows": loo_rows, "alpha": alpha, "device": device}
    options = dict(subset=subset, pool=pool, augment=tuple(extra), loo_rows=loo_rows, alpha=alpha, device=device)
    if dictionary != DEFAULT_DICTIONARY:
        params["dictionary"] = options["dictionary"] = dictionary
    result, _ = memoize("frontier-patches", params, partial(patch_readout, name, K, seed, **options))
    return result


def widths_of(datasets, widths, wide: dict) -> dict:
    """{dataset: the K fitted at the main pool}: ``widths`` and the dataset's ``wide`` ones."""
    return {name: list(widths) + list(wide.get(name, [])) for name in datasets}


def patch_configs(datasets, widths, judged: int, wide: dict, seeds, seed: int, pools, augment: dict,
                  dictionaries) -> list[tuple]:
    """Every patch readout the chapter fits, in order, as (dataset, K, pool, dictionary, seed, augment):
    at the main pool ``pools[0]`` the default dictionary at ``widths`` and the dataset's ``wide``
    widths, the ``judged`` K over ``seeds`` (the others at ``seed``), and the judged K once more with
    the dataset's augmentations; then each further pool at ``widths``, then each further dictionary
    (``dictionaries``, as :func:`dictionary_list` gives them) at ``widths`` and the main pool."""
    if judged not in widths:
        raise ValueError(f"judged_patches ({judged}) must be one of patch_widths {list(widths)}")
    configs = []

    def sweep(name, Ks, pool, dictionary):
        for K in Ks:
            configs.extend((name, K, pool, dictionary, s, ()) for s in (seeds if K == judged else [seed]))

    for name in datasets:
        sweep(name, list(widths) + list(wide.get(name, [])), pools[0], DEFAULT_DICTIONARY)
        if augment.get(name):
            configs.append((name, judged, pools[0], DEFAULT_DICTIONARY, seed, tuple(augment[name])))
    for pool in pools[1:]:
        for name in datasets:
            sweep(name, widths, pool, DEFAULT_DICTIONARY)
    for dictionary in dictionaries:
        for name in datasets:
            sweep(name, widths, pools[0], dictionary)
    return configs


def fit_patches(configs, *, subset, loo_rows: int, device) -> dict:
    """The runs of ``configs`` (:func:`patch_configs`), {config: run}. An augmented run takes the λ
    that LOO chose for the same configuration without augmentation (fitted before it)."""
    runs = {}
    for config in configs:
        name, K, pool, dictionary, s, extra = config
        alpha = runs[name, K, pool, dictionary, s, ()]["alpha"] if extra else None
        runs[config] = patch_run(name, K, s, subset=subset, pool=pool, loo_rows=loo_rows, device=device,
                                 extra=extra, alpha=alpha, dictionary=dictionary)
    return runs


def record_patches(store, runs: dict, subset) -> dict:
    """Record each patch configuration's accuracy, fit seconds, peak memory and λ over its seeds.
    Returns {(dataset, K, pool, dictionary, augment): {"accuracy", "fit", "memory", "alpha": Result}}
    in the order of ``runs``."""
    groups = {}
    for (name, K, pool, dictionary, s, extra), run in runs.items():
        groups.setdefault((name, K, pool, dictionary, extra), []).append(run)
    records = {}
    for (name, K, pool, dictionary, extra), group in groups.items():
        base = patch_key(name, K, pool, extra, dictionary)
        setting = dict(dataset=name, n_patches=K, n_features=group[0]["n_features"], pool=pool,
                       patch_size=IMAGE_SHAPES[name][1], threshold=0.25, whiten_eps=0.1, n_whitening=100_000,
                       augment=list(extra), n_train=group[0]["n_train"], subset=subset,
                       seeds=[r["seed"] for r in group], readout="ridge, λ by exact LOO" if not extra
                       else "ridge at the unaugmented fit's LOO λ", dtype="float32 features, float64 sums",
                       solver=SOLVER_WORDS[group[0]["solver"]])
        if dictionary != DEFAULT_DICTIONARY:
            setting.update(dictionary=dictionary, kmeans_sample=100_000)
        records[name, K, pool, dictionary, extra] = {
            "accuracy": store.record(f"{base}/accuracy", [r["accuracy"] for r in group], "%", **setting),
            "fit": store.record(f"{base}/fit-seconds", [r["fit_seconds"] for r in group], "s", **setting),
            "memory": store.record(f"{base}/peak-memory", [r["peak_memory_gb"] for r in group], "GB", **setting),
            "alpha": store.record(f"{base}/lambda", [r["alpha"] for r in group], "", **setting)}
    return records


def main_records(records: dict, pool: int) -> dict:
    """The records of the main sweep: pool ``pool``, the default dictionary; {(dataset, K, augment): …}."""
    return {(name, K, extra): rec for (name, K, p, dictionary, extra), rec in records.items()
            if p == pool and dictionary == DEFAULT_DICTIONARY}


def patch_intro_glues(pool: int, loo_rows: int, augment: dict, datasets) -> dict:
    """The values part 2's introduction quotes: the main pooling grid, the LOO rows, the augmentations."""
    return {"pool_text": f"{pool} × {pool}", "pool_cells": f"{pool * pool}", "loo_text": thousands(loo_rows),
            "augment_text": "; ".join(f"{DATASET_NAMES[n]}: " + " and ".join(AUGMENT_WORDS[a] for a in augment[n])
                                      for n in datasets if augment.get(n)) or "none in this run"}


def patch_row(name: str, K: int, extra, rec: dict) -> dict:
    """One row of a patch-readout table."""
    return {"dataset": DATASET_NAMES[name], "K": K, "features": rec["accuracy"].setting["n_features"],
            "augmented": "+".join(extra) or "—", "runs": len(rec["accuracy"].values),
            "accuracy (%)": ours_text(rec["accuracy"].values),
            "fit (s)": rec["fit"].mean, "peak memory (GB)": rec["memory"].mean,
            "LOO's λ": f"{np.median(rec['alpha'].values):.0e}",
            "solve": SOLVER_LABELS[rec["accuracy"].setting["solver"]]}


def patch_table(main: dict) -> pd.DataFrame:
    """The main sweep's table: one row per (dataset, K, augmentation)."""
    return pd.DataFrame([patch_row(name, K, extra, rec) for (name, K, extra), rec in main.items()])


def plot_patches(records: dict, datasets, widths_of: dict, judged: int, augment: dict, goals: dict, pools,
                 dictionaries):
    """Part 2's figure: accuracy against features per dataset at the main pool (and, when fitted,
    each further pool and dictionary, and the judged K with augmentation), the goal dashed."""
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(datasets), figsize=(7.5, 3.0), sharex=True, squeeze=False)
    series = [(pools[0], DEFAULT_DICTIONARY, "o-", "patch readout")]
    series += [(p, DEFAULT_DICTIONARY, "s--", f"pool {p} × {p}") for p in pools[1:]]
    series += [(pools[0], d, "D:", f"{WORDS.get(d, d)} dictionary") for d in dictionaries]
    plotted = []
    for ax, name in zip(axes[0], datasets):
        for pool, dictionary, style, label in series:
            Ks = widths_of[name] if (pool, dictionary) == (pools[0], DEFAULT_DICTIONARY) else \
                [K for K in widths_of[name] if (name, K, pool, dictionary, ()) in records]
            points = [(records[name, K, pool, dictionary, ()]["accuracy"].setting["n_features"],
                       records[name, K, pool, dictionary, ()]["accuracy"].mean) for K in Ks]
            ax.plot(*zip(*points), style, color=colour("patch readout"), mfc="white" if label != "patch readout"
                    else None, label=label)
            plotted += [x for x, _ in points]
        extra = tuple(augment.get(name, ()))
        if extra and (name, judged, pools[0], DEFAULT_DICTIONARY, extra) in records:
            rec = records[name, judged, pools[0], DEFAULT_DICTIONARY, extra]["accuracy"]
            ax.plot(rec.setting["n_features"], rec.mean, "^", color=colour("patch readout"), mfc="white",
                    label="+ augmentation")
        ax.axhline(goals[name], color="0.5", lw=1, ls="--")
        ax.set(xscale="log", title=DATASET_NAMES[name], xlabel="features 2·K·pool²")
    for ax in axes[0]:
        log_ticks(ax, plotted, ratio=3.5)              # three narrow panels: 512, 2 048, 8 192, not 1 152
    axes[0][0].set_ylabel("test accuracy (%)")
    axes[0][0].legend(loc="lower right", fontsize=8)
    fig.tight_layout()
    return fig


def best_of(candidates: dict):
    """The best of ``candidates`` ({id: (accuracy %, fit seconds)}): the most accurate, a tie going to
    the faster fit. The one rule for "the best patch readout", here and in the conclusion."""
    return max(candidates, key=lambda c: (candidates[c][0], -candidates[c][1]))


def best_patch(records: dict, datasets) -> dict:
    """Each dataset's best patch configuration (any K, pool, dictionary or augmentation; :func:`best_of`):
    {dataset: ((dataset, K, pool, dictionary, augment), record)}."""
    out = {}
    for name in datasets:
        mine = {key: rec for key, rec in records.items() if key[0] == name}
        key = best_of({k: (rec["accuracy"].mean, rec["fit"].mean) for k, rec in mine.items()})
        out[name] = (key, mine[key])
    return out


def best_patch_key(results: dict, dataset: str) -> str:
    """The accuracy key of ``dataset``'s best patch readout among a store's ``results`` ({key: Result},
    the fit seconds beside each accuracy), by :func:`best_of`."""
    pattern = re.compile(rf"{re.escape(dataset)}/patch-readout/p=\d+/pool=\d+/k=\d+(/[^/]+)*/accuracy")
    found = [key for key in results if pattern.fullmatch(key)]
    if not found:
        raise KeyError(f"no patch readout of {dataset} among the results")
    return best_of({key: (results[key].mean, results[key.removesuffix("accuracy") + "fit-seconds"].mean)
                    for key in found})


def configuration_text(setting: dict) -> str:
    """A patch readout's configuration from its result's setting, e.g. "K = 1 024 k-means patches,
    3 × 3 pooling, with the mirror image"."""
    pool, augment = setting["pool"], setting.get("augment") or []
    text = (f"K = {thousands(setting['n_patches'])} {WORDS[setting.get('dictionary', DEFAULT_DICTIONARY)]} patches, "
            f"{pool} × {pool} pooling")
    return text + (", with " + " and ".join(AUGMENT_WORDS[a] for a in augment) if augment else "")


def stacked_text(width: int | None, setting: dict, pooled: bool = False) -> str:
    """A stacked-map result's configuration in words: "the stacked map, d = 8 000, on the K = 256
    patch features" or "the stacked map's d → ∞ limit on the K = 256 patch features" (with
    ``pooled``, their pooling grid too: "… patch features pooled 3 × 3")."""
    on = f"on the K = {thousands(setting['n_patches'])} patch features"
    if pooled:
        on += f" pooled {setting['pool']} × {setting['pool']}"
    on += limit_words(limit_variant(setting), setting)
    return f"the stacked map's d → ∞ limit {on}" if width is None else f"the stacked map, d = {thousands(width)}, {on}"


def limit_variant(setting: dict) -> str:
    """The :data:`LIMIT_VARIANTS` name of a stacked result from its setting: "shift" for a limit with
    one-pixel shifts among its views (:func:`averaged_limit_point`), "flip" for one with other views
    (:func:`held_out_limit_point` with mirror images), "patch" for one whose patch size was chosen on
    held-out rows (:func:`fit_patch_size_limits`), "map" for one whose threshold and whitening ε were
    chosen too (:func:`fit_map_limits`), "ridge" for one with μ chosen on held-out rows, else "vanishing"."""
    if "views" in setting:
        return "shift" if any(str(view).startswith("shift") for view in setting["views"]) else "flip"
    if "map_settings" in setting:
        return "map"
    if "patch_sizes" in setting:
        return "patch"
    return "ridge" if "n_validation" in setting else "vanishing"


def limit_words(variant: str, setting: dict, labels: dict | None = None) -> str:
    """The words after a limit's features for its ``variant``: :data:`LIMIT_VARIANTS`' (or, with
    ``labels``, e.g. :data:`LIMIT_LABELS`, those), the patch size, threshold and whitening ε filled in
    from its ``setting``."""
    words = LIMIT_VARIANTS[variant][2] if labels is None else labels[variant]
    return words.format(p=setting.get("patch_size"), t=setting.get("threshold"), e=setting.get("whiten_eps"))


def result_candidates(best: dict, stacked: dict | None, pooled: dict | None, name: str) -> tuple[dict, dict]:
    """``name``'s results in the running for its best: its best patch readout (``best``, :func:`best_patch`)
    and each stacked width or limit (``stacked`` as :func:`fit_stacked` returns it, ``pooled`` as
    :func:`fit_pooled_limits` and its siblings). Returns ({id: (record, words)} of all,
    the same of the stacked ones alone)."""
    mine = {(width, None): rec for (other, width), rec in (stacked or {}).items() if other == name}
    mine |= {(None, key[1:]): rec for key, rec in (pooled or {}).items() if key[0] == name}
    stacked_ones = {key: (rec, stacked_text(key[0], rec["accuracy"].setting, pooled=key[1] is not None))
                    for key, rec in mine.items()}
    readout = best[name][1]
    return {"readout": (readout, configuration_text(readout["accuracy"].setting))} | stacked_ones, stacked_ones


def best_of_results(found: dict, budget: float | None = None):
    """The best (record, words) of ``found`` ({id: (record, words)}) by :func:`best_of`, among those
    whose fit took at most ``budget`` seconds when given; None when none did."""
    kept = {key: rec for key, (rec, _) in found.items() if budget is None or rec["fit"].mean <= budget}
    return found[best_of({key: (rec["accuracy"].mean, rec["fit"].mean) for key, rec in kept.items()})] if kept else None


def best_overall(best: dict, stacked: dict | None = None, pooled: dict | None = None) -> tuple[dict, dict]:
    """Each dataset's best result of the chapter (:func:`best_of_results` of :func:`result_candidates`):
    its best patch readout or, when better, the best stacked width or limit. Returns ({dataset: (record,
    words)} overall, {dataset: (record, words)} of the stacked map's best alone)."""
    overall, stacked_best = {}, {}
    for name in best:
        everything, stacked_ones = result_candidates(best, stacked, pooled, name)
        overall[name] = best_of_results(everything)
        if stacked_ones:
            stacked_best[name] = best_of_results(stacked_ones)
    return overall, stacked_best


def goal_sentence(best: dict, goals: dict, stacked: dict | None = None, pooled: dict | None = None,
                  budget: float = 3600.0) -> str:
    """The best patch readout of each dataset with its configuration and, when the stacked map was
    fitted (``stacked`` as :func:`fit_stacked` returns it, ``pooled`` as :func:`fit_pooled_limits`),
    its best width or limit; then which goals the best of all (:func:`best_overall`) reaches within
    ``budget`` seconds of fitting (with its fit time and peak memory), which it reaches only past
    them (with the best within them), and which it misses, and by how much."""
    found = "The best readouts: " + "; ".join(
        f"{DATASET_NAMES[n]} {best[n][1]['accuracy'].mean:.2f} % ({configuration_text(best[n][1]['accuracy'].setting)})"
        for n in best) + ". "
    overall, stacked_best = best_overall(best, stacked, pooled)
    if stacked_best:
        found += "With the paper's map stacked on them: " + "; ".join(
            f"{DATASET_NAMES[n]} {rec['accuracy'].mean:.2f} % ({words})" for n, (rec, words) in stacked_best.items()) + ". "

    def said(rec, words, minutes=False):
        took = f"{rec['fit'].mean / 60:.1f} min" if minutes else duration_text(rec["fit"].mean)
        return f"{rec['accuracy'].mean:.2f} %, {words}, in {took} and {rec['memory'].mean:.1f} GB"

    reached, late, missed = [], [], []
    for n, (rec, words) in overall.items():
        if rec["accuracy"].mean < goals[n]:
            missed.append(f"{DATASET_NAMES[n]} ({rec['accuracy'].mean:.2f} % against {goals[n]:.1f} %)")
        elif rec["fit"].mean <= budget:
            reached.append(f"{DATASET_NAMES[n]} ({said(rec, words)})")
        else:
            within = best_of_results(result_candidates(best, stacked, pooled, n)[0], budget)
            best_within = f"{within[0]['accuracy'].mean:.2f} %, {within[1]}" if within else "none"
            late.append(f"{DATASET_NAMES[n]} ({said(rec, words, minutes=True)}; within {budget / 60:.0f} min the best "
                        f"is {best_within})")
    minutes = f"{budget / 60:.0f} min of fitting"
    return (found + ("Reached: " + "; ".join(reached) + ". " if reached else f"No goal is reached within {minutes}. ")
            + (f"Reached in accuracy, but past {minutes}: " + "; ".join(late) + ". " if late else "")
            + ("Missed: " + "; ".join(missed) + "." if missed else ""))


def solver_sentence(runs: dict) -> str:
    """Which widths solved for λ by one eigendecomposition and which by a Cholesky factorisation per
    λ, and why (:func:`~greenelm_book.chapters.frontier_features.choose_readout_solver`); ``runs`` as :func:`fit_patches`
    returns them."""
    from greenelm.solvers import LARGE_ORDER

    by_solver = {}
    for run in runs.values():
        by_solver.setdefault(run["solver"], set()).add(int(run["n_features"]))
    eigh, cholesky = sorted(by_solver.get("eigh", ())), sorted(by_solver.get("cholesky", ()))
    if not cholesky:
        return (f"Every fit here has at most {thousands(max(eigh))} features: one eigendecomposition of its "
                "Gram gives the whole λ path.")
    widest = [run for run in runs.values() if run["solver"] == "cholesky"]
    tried = sorted({len(run["loo"]["alpha"]) + len(run.get("infeasible_alphas", [])) for run in widest})
    skipped = sorted({a for run in widest for a in run.get("infeasible_alphas", [])})
    gram = " or ".join(sorted({run.get("gram_dtype", "float32") for run in widest}))
    why = (f"from {thousands(LARGE_ORDER)} features on the library runs LAPACK on one thread (the multithreaded "
           "OpenBLAS of the NumPy wheels crashes in factorisations of that order), and there an eigendecomposition "
           "with its eigenvectors, several d³ flops, costs more than the λ search's factorisations, d³/3 flops each"
           if min(cholesky) >= LARGE_ORDER else "the eigendecomposition's workspace would not fit the memory left")
    return ((f"Up to {thousands(max(eigh))} features one eigendecomposition of the Gram gives the whole λ path; "
             if eigh else "")
            + f"at {' and '.join(thousands(d) for d in cholesky)} features the readout factorises G + λI in float64 "
            f"once per λ instead ({' or '.join(str(t) for t in tried)} values tried, from the {gram} Gram"
            + (f"; λ = {', '.join(f'{a:g}' for a in skipped)} skipped, G + λI not numerically positive definite there"
               if skipped else "")
            + f"): {why}.")


# ----------------------------------------------------------------------------- dictionary and pooling
def comparison_table(records: dict, datasets, widths, pools, dictionaries) -> pd.DataFrame | None:
    """Sampled against each further dictionary, and the main pool against each further pool, at
    ``widths``: one row per (dataset, K) with each variant's accuracy (mean ± sd over its runs, the
    same seeds) and its fit seconds (peak memory stays in the store: the table must fit the page's
    column). None when neither is fitted."""
    variants = [(pools[0], DEFAULT_DICTIONARY, f"sampled, pool {pools[0]}")]
    variants += [(p, DEFAULT_DICTIONARY, f"sampled, pool {p}") for p in pools[1:]]
    variants += [(pools[0], d, f"{WORDS.get(d, d)}, pool {pools[0]}") for d in dictionaries]
    if len(variants) == 1:
        return None
    rows = []
    for name in datasets:
        for K in widths:
            row = {"dataset": DATASET_NAMES[name], "K": K}
            for pool, dictionary, label in variants:
                rec = records[name, K, pool, dictionary, ()]
                row[f"{label} (%)"] = ours_text(rec["accuracy"].values)
                row[f"{label}: fit (s)"] = rec["fit"].mean
            rows.append(row)
    return pd.DataFrame(rows)


def comparison_view(records: dict, datasets, widths, pools, dictionaries):
    """:func:`comparison_table` for display (one decimal), or None (nothing shown) when not fitted."""
    frame = comparison_table(records, datasets, widths, pools, dictionaries)
    return None if frame is None else show_table(frame, digits=1, integers=["K"])


def comparison_sentence(records: dict, datasets, widths, pools, dictionaries) -> str:
    """Each further dictionary's and pool's mean accuracy difference from the main sweep (sampled
    patches, the main pool) at the widest K of ``widths``, per dataset; :data:`NOT_RUN`
    (capitalised) when neither is fitted."""
    K = max(widths)
    parts = []
    for label, pool, dictionary in ([(f"the {WORDS.get(d, d)} centroids score", pools[0], d) for d in dictionaries]
                                    + [(f"pooling {p} × {p} scores", p, DEFAULT_DICTIONARY) for p in pools[1:]]):
        diffs = []
        for name in datasets:
            base = records[name, K, pools[0], DEFAULT_DICTIONARY, ()]["accuracy"].mean
            other = records[name, K, pool, dictionary, ()]["accuracy"].mean
            diffs.append(f"{DATASET_NAMES[name]} {abs(other - base):.2f} points "
                         f"{by_sign(other - base, 'above', 'below', 'level with')}")
        listed = ", ".join(diffs[:-1]) + " and " + diffs[-1] if len(diffs) > 1 else diffs[0]
        parts.append(f"At K = {thousands(K)}, {label} {listed} the sampled patches pooled "
                     f"{pools[0]} × {pools[0]}.")
    return " ".join(parts) if parts else NOT_RUN.capitalize() + "."


# ----------------------------------------------------------------------------- the stacked map
#: the standardised patch features of the last configuration asked for, kept for the next stacked
#: fit of the same configuration in this process (its widths and its limit share one map)
_FEATURES: dict = {}


def stacked_point(dataset: str, n_patches: int, seed: int, subset, pool: int, n_hidden: int | None = None,
                  jitter: float | None = None) -> dict:
    """The stacked map of width ``n_hidden`` (:func:`~greenelm_book.chapters.frontier_features.stacked_readout`), or
    with ``n_hidden=None`` its kernel limit at ``jitter`` (:func:`~greenelm_book.chapters.frontier_features.stacked_kernel_limit`),
    on the standardised patch features of (``dataset``, ``n_patches``, ``seed``, ``subset``, ``pool``).

    Returns the fit's result with ``fit_seconds`` (the patch map and standardisation, then the fit),
    ``peak_memory_gb`` (the process's resident high-water mark over the fit, features included),
    ``n_features`` and ``n_train``."""
    from ..bench import peak_rss_bytes, reset_peak_rss

    config = (dataset, int(n_patches), int(seed), subset, int(pool))
    reset_peak_rss()
    if config not in _FEATURES:
        _FEATURES.clear()
        _FEATURES[config] = standardised_patch_features(dataset, n_patches, seed, subset=subset, pool=pool)
    features = _FEATURES[config]
    start = time.perf_counter()
    if n_hidden is None:
        run = stacked_kernel_limit(features, jitter)
        run = {key: value for key, value in run.items() if key != "predicted"}
    else:
        run = stacked_readout(features, n_hidden, seed)
    seconds = time.perf_counter() - start
    return {**run, "fit_seconds": features["seconds"] + seconds, "peak_memory_gb": peak_rss_bytes() / GB,
            "n_features": int(features["n_features"]), "n_train": len(features["y_train"])}


def stacked_limit_point(dataset: str, n_patches: int, seed: int, subset, pool: int, jitter: float,
                        attempts: int = 3) -> dict:
    """The stacked map's d → ∞ limit on wide patch features: :func:`stacked_point`'s limit, with the
    kernel ridge solved in float32 in place (``greenelm.kernels.kernel_ridge_predict_inplace``: the
    features and the N × N kernel, no float64 copy of the features), so that K = 1,024 patches pooled
    3 × 3 (18,432 inputs) fit beside MNIST's 14.4 GB kernel. The jitter ×10 after a failed
    factorisation, at most ``attempts`` in all.

    Returns {"accuracy" (%), "mu", "jitter", "n_train", "seconds" (the kernel ridge), "fit_seconds"
    (the patch map and standardisation, then the kernel ridge), "peak_memory_gb", "n_features"}."""
    from greenelm.kernels import kernel_ridge_predict_inplace

    from ..bench import peak_rss_bytes, reset_peak_rss

    _FEATURES.clear()                        # a previous configuration's features: memory this fit needs
    reset_peak_rss()
    features = standardised_patch_features(dataset, n_patches, seed, subset=subset, pool=pool)
    y_train = features["y_train"]
    start = time.perf_counter()
    scores, info = kernel_ridge_predict_inplace(features.pop("X_train"), np.eye(int(y_train.max()) + 1)[y_train],
                                                features.pop("X_test"), jitter, weight_scale="he",
                                                attempts=attempts)
    seconds = time.perf_counter() - start
    accuracy = 100 * float(np.mean(scores.argmax(1) == features["y_test"]))
    return {"accuracy": accuracy, "mu": float(info["mu"]), "jitter": float(info["jitter"]),
            "n_train": len(y_train), "seconds": seconds, "fit_seconds": features["seconds"] + seconds,
            "peak_memory_gb": peak_rss_bytes() / GB, "n_features": int(features["n_features"])}


def held_out_limit_point(dataset: str, n_patches: int, seed: int, subset, pool: int, views, jitters,
                         n_fit: int, n_validation: int, read_test_labels: bool = True) -> dict:
    """The stacked limit with its ridge μ chosen on held-out training rows, in one computation: the
    standardised patch features of (``dataset``, ``n_patches``, ``seed``, ``subset``, ``pool``) and of
    each image's augmented copies ``views`` (e.g. ``("flip",)``; ``()``: the images alone,
    :func:`~greenelm_book.chapters.frontier_features.standardised_patch_views`), one N × N float32 arc-cosine kernel (He
    scale) averaged over the views, the ridge at each of ``jitters`` fitted on ``n_fit`` training rows
    and scored on ``n_validation`` others (seed ``seed``'s
    :func:`~greenelm_book.chapters.frontier_features.held_out_split`; the test rows are never read for the choice), then
    the best jitter's ridge on all training rows, in place
    (``greenelm.kernels.held_out_kernel_ridge_predict``).

    ``read_test_labels=False`` (a benchmark of its parts' seconds) scores the test images without
    reading their labels: "accuracy" is then None.

    Returns {"accuracy" (%), "mu", "jitter", "jitters", "validation" (% per jitter, None where the
    block did not factorise), "n_fit", "n_validation", "n_train", "seconds" ({"features", "kernel",
    "validation", "fit", "test"}), "fit_seconds" (their sum), "peak_memory_gb", "n_features",
    "views"}; raises ``LinAlgError`` when no jitter factorised, or the chosen one on all rows."""
    from greenelm.kernels import held_out_kernel_ridge_predict

    from ..bench import peak_rss_bytes, reset_peak_rss

    _FEATURES.clear()                        # a previous configuration's features: memory this fit needs
    reset_peak_rss()
    features = standardised_patch_views(dataset, n_patches, seed, subset=subset, pool=pool, views=tuple(views))
    y_train = features["y_train"]
    n_fit, n_validation = check_positive_int("n_fit", n_fit), check_positive_int("n_validation", n_validation)
    if n_fit + n_validation > len(y_train):
        raise ValueError(f"n_fit + n_validation = {n_fit + n_validation} exceeds the {len(y_train)} training rows")
    fit_rows, validation_rows = held_out_split(len(y_train), n_fit, n_validation, seed)
    scores, info = held_out_kernel_ridge_predict(features.pop("X_train"), np.eye(int(y_train.max()) + 1)[y_train],
                                                 features.pop("X_test"), jitters, fit_rows, validation_rows,
                                                 weight_scale="he")
    seconds = {"features": float(features["seconds"]), **info["seconds"]}
    accuracy = 100 * float(np.mean(scores.argmax(1) == features["y_test"])) if read_test_labels else None
    return {"accuracy": accuracy, "mu": float(info["mu"]),
            "jitter": float(info["jitter"]), "jitters": [float(j) for j in info["jitters"]],
            "validation": [None if value is None else 100 * value for value in info["validation"]],
            "n_fit": n_fit, "n_validation": n_validation, "n_train": len(y_train), "seconds": seconds,
            "fit_seconds": sum(seconds.values()), "peak_memory_gb": peak_rss_bytes() / GB,
            "n_features": int(features["n_features"]), "views": list(features["views"])}


def averaged_limit_point(dataset: str, n_patches: int, seed: int, subset, pool: int, views, jitter: float,
                         attempts: int = 3, setting: dict | None = None) -> dict:
    """The stacked limit at the vanishing ridge (:func:`stacked_limit_point`'s μ = ``jitter`` · mean diag K)
    with each image's augmented copies ``views`` (e.g. ``("shift",)``: its four one-pixel shifts)
    averaged into the kernel, in one computation: the standardised patch features of every view
    (:func:`~greenelm_book.chapters.frontier_features.patch_views` at the map's ``setting``, :func:`map_setting`; None or
    {}: the dataset's own), one N × N float32 arc-cosine kernel (He scale) averaged over the V² pairs of
    views, factorised in place
    (``greenelm.kernels.averaged_kernel_ridge_predict``); a failed factorisation is retried at the
    jitter × 10, at most ``attempts`` in all, from the kernel spilled to a temporary file (not built again).

    Returns {"accuracy" (%), "mu", "jitter" (the one that factorised), "attempts", "n_train", "seconds"
    ({"features", "kernel", "fit", "test"}), "fit_seconds" (their sum), "peak_memory_gb", "n_features",
    "views", "patch_size", "threshold", "whiten_eps"}; raises ``LinAlgError`` when the kernel plus μI
    factorised at none of the jitters."""
    from greenelm.kernels import averaged_kernel_ridge_predict

    from ..bench import peak_rss_bytes, reset_peak_rss

    _FEATURES.clear()                        # a previous configuration's features: memory this fit needs
    reset_peak_rss()
    features = patch_views(dataset, n_patches, seed, subset=subset, pool=pool, views=tuple(views),
                           **map_setting(setting or {}))
    y_train = features["y_train"]
    (scores,), info = averaged_kernel_ridge_predict(features.pop("X_train"), np.eye(int(y_train.max()) + 1)[y_train],
                                                    features.pop("X_test"), [jitter], weight_scale="he",
                                                    attempts=attempts)
    if scores is None:
        raise np.linalg.LinAlgError(f"the kernel averaged over {len(features['views'])} views did not factorise "
                                    f"in {attempts} attempt(s), the last at jitter {info['jitters'][0]:g}")
    seconds = {"features": float(features["seconds"]), **info["seconds"]}
    return {"accuracy": 100 * float(np.mean(scores.argmax(1) == features["y_test"])), "mu": float(info["mu"][0]),
            "jitter": float(info["jitters"][0]), "attempts": int(info["attempts"]), "n_train": len(y_train),
            "seconds": seconds, "fit_seconds": sum(seconds.values()), "peak_memory_gb": peak_rss_bytes() / GB,
            "n_features": int(features["n_features"]), "views": list(features["views"]),
            "patch_size": int(features["patch_size"]), "threshold": float(features["threshold"]),
            "whiten_eps": float(features["whiten_eps"])}


def map_choice_point(dataset: str, n_patches: int, seed: int, subset, pool: int, settings, jitter: float,
                     n_fit: int, n_validation: int, attempts: int = 3) -> dict:
    """The patch map's settings for the stacked limit chosen on training rows alone: for each setting of
    ``settings`` ({"patch_size", "threshold", "whiten_eps"}: any of :func:`~greenelm_book.chapters.frontier_features.patch_views`'
    map settings, the rest its own), the standardised features of the training images (``n_patches``
    filters, pool ``pool``), and :func:`~greenelm_book.chapters.frontier_features.stacked_kernel_limit` (He scale,
    μ = ``jitter`` · mean diag K, ×10 after a failed factorisation, at most ``attempts``) fitted on ``n_fit``
    training rows and scored on ``n_validation`` others (seed ``seed``'s
    :func:`~greenelm_book.chapters.frontier_features.held_out_split`). The test images are never mapped.

    Returns {"settings", "validation" (% per setting), "chosen" (the best setting; the first of equals in
    ``settings``), "seconds" (all of it), "n_fit", "n_validation"}."""
    settings = [map_setting(setting) for setting in settings]
    if not settings:
        raise ValueError("settings must name at least one map setting to choose from")
    n_fit, n_validation = check_positive_int("n_fit", n_fit), check_positive_int("n_validation", n_validation)
    attempts = check_positive_int("attempts", attempts)
    start, validation = time.perf_counter(), []
    for setting in settings:
        features = patch_views(dataset, n_patches, seed, subset=subset, pool=pool, test=False, **setting)
        (X,), y = features["X_train"], features["y_train"]
        if n_fit + n_validation > len(y):
            raise ValueError(f"n_fit + n_validation = {n_fit + n_validation} exceeds the {len(y)} training rows")
        fit_rows, validation_rows = held_out_split(len(y), n_fit, n_validation, seed)
        held_out = {"X_train": X[fit_rows], "y_train": y[fit_rows], "X_test": X[validation_rows],
                    "y_test": y[validation_rows]}
        del features, X
        validation.append(stacked_kernel_limit(held_out, jitter, attempts=attempts)["accuracy"])
    chosen = settings[int(np.argmax(validation))]      # argmax: the first of equals, in the order given
    return {"settings": settings, "validation": validation, "chosen": chosen, "seconds": time.perf_counter() - start,
            "n_fit": n_fit, "n_validation": n_validation}


#: the patch map's settings a choice on held-out rows may set (:func:`map_choice_point`), as
#: :func:`~greenelm_book.chapters.frontier_features.patch_views` names them
MAP_SETTINGS = ("patch_size", "threshold", "whiten_eps")


def map_setting(setting: dict) -> dict:
    """``setting`` checked: only :data:`MAP_SETTINGS` names, a positive integer patch size, a threshold
    ≥ 0 and a whitening ε > 0 (numbers as floats); another is a ValueError naming it."""
    unknown = sorted(set(setting) - set(MAP_SETTINGS))
    if unknown:
        raise ValueError(f"unknown map setting(s) {unknown}: the map's settings are {list(MAP_SETTINGS)}")
    checked = {}
    for name, value in setting.items():
        if name == "patch_size":
            checked[name] = check_positive_int("patch_size", value)
            continue
        if isinstance(value, bool) or not isinstance(value, numbers.Real) or not np.isfinite(value) \
                or value < 0 or (value == 0 and name == "whiten_eps"):
            raise ValueError(f"{name} must be a finite number {'> 0' if name == 'whiten_eps' else '>= 0'}, got {value!r}")
        checked[name] = float(value)
    return checked


def stacked_key(name: str, K: int, pool: int, n_hidden: int | None, variant: str = "vanishing",
                patch_size: int | None = None) -> str:
    """The key prefix of the stacked map of width ``n_hidden`` (None: its kernel limit, of
    :data:`LIMIT_VARIANTS`' ``variant``) on ``patch_size`` × ``patch_size`` patches (None: the dataset's own)."""
    return (f"{name}/stacked-patches/p={patch_size or IMAGE_SHAPES[name][1]}/pool={pool}/k={K}/"
            + (LIMIT_VARIANTS[variant][0] if n_hidden is None else f"d={n_hidden}"))


#: the stacked limit's variants, as the chapter's tables and keys name them: the vanishing ridge
#: (:func:`fit_stacked`, :func:`fit_pooled_limits`, :func:`fit_wide_limits`), μ chosen on held-out rows
#: and, with it, each image's mirror image averaged into the kernel (:func:`fit_ridge_limits`):
#: {variant: (key suffix, model in words, words after the features)}
LIMIT_VARIANTS = {
    "vanishing": ("arccos-kernel", "arc-cosine kernel ridge (d = ∞)", ""),
    "ridge": ("arccos-kernel-ridge", "arc-cosine kernel ridge (d = ∞), μ chosen on held-out training rows",
              ", μ chosen on held-out rows"),
    "flip": ("arccos-kernel-flip-ridge", "arc-cosine kernel ridge (d = ∞), each image's mirror image averaged "
             "into the kernel, μ chosen on held-out training rows", ", mirror images in the kernel, μ chosen on held-out rows"),
    "shift": ("arccos-kernel-shift", "arc-cosine kernel ridge (d = ∞), each image's four one-pixel shifts averaged "
              "into the kernel, vanishing ridge", ", four one-pixel shifts in the kernel"),
    "patch": ("arccos-kernel-patch", "arc-cosine kernel ridge (d = ∞), vanishing ridge, the patch size chosen on held-out "
              "training rows", ", {p} × {p} patches chosen on held-out rows"),
    "map": ("arccos-kernel-map", "arc-cosine kernel ridge (d = ∞), vanishing ridge, the patch size, then the ReLU split's "
            "threshold and the whitening's ε chosen on held-out training rows",
            ", {p} × {p} patches, threshold {t:g} and whitening ε {e:g} chosen on held-out rows"),
}


def record_stacked(store, name: str, n_patches: int, pool: int, width: int | None, run: dict, *, seed: int,
                   subset, solver: str | None = None, variant: str = "vanishing", chosen: dict | None = None) -> dict:
    """Record one stacked fit (``width``) or limit (``width=None``, of :data:`LIMIT_VARIANTS`' ``variant``)
    of :func:`stacked_point`, :func:`stacked_limit_point` or :func:`held_out_limit_point`: accuracy,
    fit-seconds, peak-memory and, for a width, the λ GCV chose; the limit's ridge μ (and ``solver``,
    and how μ was ``chosen``: jitters tried, rows fitted and held out, when given) in its setting.
    Returns {"accuracy", "fit", "memory"[, "alpha"]: Result}."""
    setting = dict(dataset=name, n_patches=n_patches, n_features=run["n_features"], pool=pool,
                   patch_size=run.get("patch_size", IMAGE_SHAPES[name][1]), seeds=[seed], n_train=run["n_train"], subset=subset,
                   inputs="patch features standardised on the training images")
    setting.update({what: run[what] for what in ("threshold", "whiten_eps") if what in run})
    if width is None:
        setting.update(model=LIMIT_VARIANTS[variant][1], weight_scale="he", jitter=run["jitter"], mu=run["mu"],
                       dtype="float32")
        if solver:
            setting["solver"] = solver
        setting.update(chosen or {})
        if len(run.get("views", ())) > 1:         # the images and their augmented copies
            setting["views"] = run["views"]
    else:
        setting.update(model="relu(F W + b), W ~ N(0, 2/F), b ~ N(0, 1)", n_hidden=width,
                       readout="ridge, λ by exact GCV", dtype="float64")
    base = stacked_key(name, n_patches, pool, width, variant, setting["patch_size"])
    record = {"accuracy": store.record(f"{base}/accuracy", [run["accuracy"]], "%", **setting),
              "fit": store.record(f"{base}/fit-seconds", [run["fit_seconds"]], "s", **setting),
              "memory": store.record(f"{base}/peak-memory", [run["peak_memory_gb"]], "GB", **setting)}
    if width is not None:
        record["alpha"] = store.record(f"{base}/lambda", [run["alpha"]], "", **setting)
    return record


def fit_stacked(store, datasets, n_patches: int, widths, limit: bool, *, seed: int, subset, pool: int,
                jitter: float) -> dict:
    """The stacked map at each width of ``widths`` and, when ``limit``, its kernel limit, on each
    dataset's judged patch features (``n_patches`` sampled filters, pool ``pool``, seed ``seed``):
    cached (``frontier-stacked``), recorded (accuracy, fit-seconds, peak-memory and, for a width,
    the λ GCV chose; the limit's ridge μ is in its setting).
    Returns {(dataset, width or None): {"accuracy", "fit", "memory"[, "alpha"]: Result}}; empty when
    there is nothing to fit."""
    from ..store.results_cache import memoize

    records = {}
    for name in datasets:
        for width in [int(w) for w in widths] + ([None] if limit else []):
            params = {"dataset": name, "n_patches": n_patches, "seed": seed, "subset": subset, "pool": pool,
                      "n_hidden": width, "jitter": jitter if width is None else None}
            run, _ = memoize("frontier-stacked", params, partial(stacked_point, name, n_patches, seed, subset, pool,
                                                                 n_hidden=width, jitter=params["jitter"]))
            records[name, width] = record_stacked(store, name, n_patches, pool, width, run, seed=seed,
                                                  subset=subset)
    return records


def fit_pooled_limits(store, pools: dict, n_patches: int, *, seed: int, subset, jitter: float) -> dict:
    """The stacked map's d → ∞ limit on the judged patch features pooled over other grids than the
    main one (which :func:`fit_stacked` covers): ``pools`` {dataset: [pool, …]}; :func:`fit_stacked`'s
    fits, cache and records. Returns {(dataset, K, pool, "vanishing"): {"accuracy", "fit", "memory": Result}}
    (the vanishing ridge, not one chosen on held-out rows: :data:`LIMIT_VARIANTS`)."""
    return {(name, int(n_patches), int(pool), "vanishing"): record
            for name, grids in pools.items() for pool in grids
            for (_, _), record in fit_stacked(store, [name], n_patches, [], True, seed=seed, subset=subset,
                                              pool=int(pool), jitter=jitter).items()}


#: how :func:`fit_wide_limits` solves, as its results' setting records it
WIDE_LIMIT_SOLVER = "float32 kernel and Cholesky in place, features scaled in place (no copy)"


def limit_pairs(spec: dict, what: str):
    """(dataset, K, pool) for each [K, pool] pair of ``spec`` ({dataset: [[K, pool], …]}); a pair of
    another length is a ValueError naming ``what``."""
    for name, pairs in spec.items():
        for pair in pairs:
            if len(pair) != 2:
                raise ValueError(f"each of {name}'s {what} must be [K, pool], got {pair!r}")
            yield name, int(pair[0]), int(pair[1])


def fit_wide_limits(store, wide: dict, *, seed: int, subset, jitter: float) -> dict:
    """The stacked map's d → ∞ limit on wider patch features: ``wide`` {dataset: [[K, pool], …]},
    each by :func:`stacked_limit_point` (cached as ``frontier-stacked-limit``), recorded under the
    same keys as :func:`fit_stacked`'s limit. Returns {(dataset, K, pool, "vanishing"): {"accuracy", "fit", "memory": Result}}."""
    from ..store.results_cache import memoize

    records = {}
    for name, K, pool in limit_pairs(wide, "wide stacked limits"):
        params = {"dataset": name, "n_patches": K, "seed": seed, "subset": subset, "pool": pool, "jitter": jitter}
        run, _ = memoize("frontier-stacked-limit", params, partial(stacked_limit_point, name, K, seed, subset, pool, jitter))
        records[name, K, pool, "vanishing"] = record_stacked(store, name, K, pool, None, run, seed=seed, subset=subset,
                                                             solver=WIDE_LIMIT_SOLVER)
    return records


def fit_ridge_limits(store, spec: dict, *, seed: int, subset, jitters, n_fit: int, n_validation: int,
                     views=()) -> dict:
    """The stacked map's limit with its ridge μ chosen on held-out training rows and, with ``views``
    (e.g. ``("flip",)``: the variant "flip" of :data:`LIMIT_VARIANTS`), each image's augmented copies
    averaged into the kernel: ``spec`` {dataset: [[K, pool], …]}; for each, :func:`held_out_limit_point`
    (one kernel for the choice over ``jitters`` on ``n_fit`` + ``n_validation`` training rows and for
    the fit on all of them; cached as ``frontier-held-out-limit``). Recorded by :func:`record_stacked`
    (fit-seconds: features, kernel, held-out ridges, final fit and test scores) with
    ``jitter=<j>/validation-accuracy`` per jitter that factorised. Returns {(dataset, K, pool, variant):
    {"accuracy", "fit", "memory": Result, "validation": {jitter: Result}}}."""
    from ..store.results_cache import memoize

    records = {}
    jitters, views = [float(j) for j in jitters], tuple(views)
    variant = "flip" if views == ("flip",) else "ridge"
    if views and variant != "flip":
        raise ValueError(f"views must be () or ('flip',), got {views!r}")
    for name, K, pool in limit_pairs(spec, "ridge-chosen limits"):
        size = held_out_sizes(subset, n_fit, n_validation)
        params = {"dataset": name, "n_patches": K, "seed": seed, "subset": subset, "pool": pool,
                  "views": list(views), "jitters": jitters, "n_fit": size[0], "n_validation": size[1]}
        run, _ = memoize("frontier-held-out-limit", params,
                         partial(held_out_limit_point, name, K, seed, subset, pool, views, jitters, *size))
        setting = {"jitters": jitters, "n_fit": size[0], "n_validation": size[1]}
        record = record_stacked(store, name, K, pool, None, run, seed=seed, subset=subset, solver=WIDE_LIMIT_SOLVER,
                                variant=variant, chosen=setting)
        base = record["accuracy"].key.removesuffix("/accuracy")
        record["validation"] = {
            jitter: store.record(f"{base}/jitter={jitter:g}/validation-accuracy", [accuracy], "%",
                                 **{**record["accuracy"].setting, "jitter": jitter})
            for jitter, accuracy in zip(run["jitters"], run["validation"]) if accuracy is not None}
        records[name, K, pool, variant] = record
    return records


#: how :func:`fit_averaged_limits` solves, as its results' setting records it
AVERAGED_LIMIT_SOLVER = ("float32 kernel averaged over every pair of views (V² products), Cholesky in place, "
                         "features scaled in place (no copy)")


def averaged_limit_run(name: str, K: int, pool: int, *, seed: int, subset, jitter: float, views,
                       attempts: int = 3, setting: dict | None = None) -> dict:
    """:func:`averaged_limit_point` of (``name``, ``K``, ``pool``, ``views``, the map's ``setting``) from
    ``jitter`` (×10 after a failed factorisation, at most ``attempts``), cached as
    ``frontier-averaged-limit``: the run :func:`fit_averaged_limits` records."""
    from ..store.results_cache import memoize

    views, setting = tuple(views), map_setting(setting or {})
    params = {"dataset": name, "n_patches": int(K), "seed": seed, "subset": subset, "pool": int(pool),
              "views": list(views), "jitter": float(jitter), "attempts": int(attempts), "setting": setting}
    run, _ = memoize("frontier-averaged-limit", params, partial(averaged_limit_point, name, int(K), seed, subset,
                                                                int(pool), views, float(jitter), int(attempts),
                                                                setting))
    return run


def fit_averaged_limits(store, spec: dict, *, seed: int, subset, jitter: float, views=("shift",)) -> dict:
    """The stacked map's limit at the vanishing ridge with each image's augmented copies ``views``
    averaged into the kernel (``("shift",)``, the four one-pixel shifts: the variant "shift" of
    :data:`LIMIT_VARIANTS`): ``spec`` {dataset: [[K, pool], …]}; for each, :func:`averaged_limit_run`,
    recorded by :func:`record_stacked` (fit-seconds: features, kernel, fit and test scores).
    Returns {(dataset, K, pool, "shift"): {"accuracy", "fit", "memory": Result}}."""
    views = tuple(views)
    if views != ("shift",):
        raise ValueError(f"views must be ('shift',), got {views!r}")
    records = {}
    for name, K, pool in limit_pairs(spec, "shift-averaged limits"):
        run = averaged_limit_run(name, K, pool, seed=seed, subset=subset, jitter=jitter, views=views)
        records[name, K, pool, "shift"] = record_stacked(store, name, K, pool, None, run, seed=seed, subset=subset,
                                                         solver=AVERAGED_LIMIT_SOLVER, variant="shift")
    return records


#: how :func:`fit_patch_size_limits` solves, as its results' setting records it
PATCH_LIMIT_SOLVER = ("float32 kernel and Cholesky in place, features scaled in place (no copy); a failed "
                      "factorisation retried from a spilled copy of the kernel")


def patch_size_spec(spec: dict):
    """(dataset, K, pool, [p, …]) for each [K, pool, [p, …]] of ``spec`` ({dataset: [[K, pool, [p, …]], …]});
    another shape is a ValueError naming it."""
    for name, entries in spec.items():
        for entry in entries:
            if len(entry) != 3 or isinstance(entry[2], (int, str)) or not list(entry[2]):
                raise ValueError(f"each of {name}'s patch-size limits must be [K, pool, [patch sizes]], got {entry!r}")
            yield name, int(entry[0]), int(entry[1]), [int(p) for p in entry[2]]


def held_out_sizes(subset, n_fit: int, n_validation: int) -> tuple[int, int]:
    """The (fitted, held-out) training rows of a choice made on training rows: (``n_fit``,
    ``n_validation``), or for a ``subset`` smaller than their sum two thirds and one third of it."""
    if subset and n_fit + n_validation > subset:
        return 2 * subset // 3, subset - 2 * subset // 3
    return int(n_fit), int(n_validation)


def map_choice_run(name: str, K: int, pool: int, settings, *, seed: int, subset, jitter: float, n_fit: int,
                   n_validation: int) -> dict:
    """:func:`map_choice_point` of (``name``, ``K``, ``pool``) over ``settings``, on the held-out rows
    :func:`held_out_sizes` gives, cached as ``frontier-map-choice``."""
    from ..store.results_cache import memoize

    size = held_out_sizes(subset, n_fit, n_validation)
    settings = [map_setting(setting) for setting in settings]
    params = {"dataset": name, "n_patches": K, "seed": seed, "subset": subset, "pool": pool, "settings": settings,
              "jitter": float(jitter), "n_fit": size[0], "n_validation": size[1]}
    choice, _ = memoize("frontier-map-choice", params,
                        partial(map_choice_point, name, K, seed, subset, pool, settings, float(jitter), *size))
    return choice


def chosen_limit(store, name: str, K: int, pool: int, choices: list, variant: str, chosen: dict, *, seed: int,
                 subset, jitter: float) -> dict:
    """The stacked limit at the vanishing ridge (:func:`averaged_limit_run`, no views) at the map setting
    the last of ``choices`` (:func:`map_choice_run`'s) chose, recorded by :func:`record_stacked` as
    ``variant`` with ``chosen`` in its setting, fit-seconds counting every choice too."""
    run = averaged_limit_run(name, K, pool, seed=seed, subset=subset, jitter=jitter, views=(),
                             setting=choices[-1]["chosen"])
    run = {**run, "fit_seconds": run["fit_seconds"] + sum(choice["seconds"] for choice in choices)}
    return record_stacked(store, name, K, pool, None, run, seed=seed, subset=subset, solver=PATCH_LIMIT_SOLVER,
                          variant=variant, chosen=chosen | {"n_fit": choices[-1]["n_fit"],
                                                            "n_validation": choices[-1]["n_validation"]})


def record_choice(store, record: dict, choice: dict, named) -> dict:
    """Each setting's held-out accuracy of ``choice`` (:func:`map_choice_run`'s) recorded beside the limit
    ``record`` (:func:`chosen_limit`'s) as ``<its key>/<part>/validation-accuracy``, its setting the limit's
    with that map setting in. ``named(setting)`` gives (label, part). Returns {label: Result}."""
    base = record["accuracy"].key.removesuffix("/accuracy")
    return {label: store.record(f"{base}/{part}/validation-accuracy", [accuracy], "%",
                                **{**record["accuracy"].setting, **setting})
            for setting, accuracy in zip(choice["settings"], choice["validation"])
            for label, part in [named(setting)]}


def fit_patch_size_limits(store, spec: dict, *, seed: int, subset, jitter: float, n_fit: int,
                          n_validation: int) -> dict:
    """The stacked map's limit at the vanishing ridge on the patch size held-out rows choose (the
    variant "patch" of :data:`LIMIT_VARIANTS`): ``spec`` {dataset: [[K, pool, [p, …]], …]}; for each,
    :func:`map_choice_run` over the sizes p (``n_fit`` training rows fitted, ``n_validation`` others
    scored), then :func:`chosen_limit` on all training rows at the chosen size, with
    ``patch-size=<p>/validation-accuracy`` per size. Returns {(dataset, K, pool, "patch"): {"accuracy",
    "fit", "memory": Result, "validation": {p: Result}}}."""
    records = {}
    for name, K, pool, sizes in patch_size_spec(spec):
        choice = map_choice_run(name, K, pool, [{"patch_size": p} for p in sizes], seed=seed, subset=subset,
                                jitter=jitter, n_fit=n_fit, n_validation=n_validation)
        record = chosen_limit(store, name, K, pool, [choice], "patch", {"patch_sizes": sizes}, seed=seed,
                              subset=subset, jitter=jitter)
        record["validation"] = record_choice(store, record, choice, lambda setting: (
            setting["patch_size"], f"patch-size={setting['patch_size']}"))
        records[name, K, pool, "patch"] = record
    return records


def map_spec(spec: dict):
    """(dataset, K, pool, [p, …], [(threshold, whitening ε), …]) for each [K, pool, [p, …], [[t, ε], …]] of
    ``spec``; another shape is a ValueError naming it."""
    for name, entries in spec.items():
        for entry in entries:
            pairs = entry[3] if len(entry) == 4 else None
            if pairs is None or isinstance(pairs, (int, str)) or not list(pairs) \
                    or any(isinstance(pair, (int, float, str)) or len(pair) != 2 for pair in pairs):
                raise ValueError(f"each of {name}'s map limits must be [K, pool, [patch sizes], "
                                 f"[[threshold, whitening eps], ...]], got {entry!r}")
            (_, K, pool, sizes), = patch_size_spec({name: [entry[:3]]})
            yield name, K, pool, sizes, [(float(t), float(e)) for t, e in pairs]


def fit_map_limits(store, spec: dict, *, seed: int, subset, jitter: float, n_fit: int, n_validation: int) -> dict:
    """The stacked map's limit at the vanishing ridge on the map held-out rows choose in two steps (the
    variant "map" of :data:`LIMIT_VARIANTS`): ``spec`` {dataset: [[K, pool, [p, …], [[t, ε], …]], …]}; for
    each, the patch size p as :func:`fit_patch_size_limits` chooses it (the same cached choice), then at
    that p the ReLU split's threshold t and the whitening's ε of the pairs (:func:`map_choice_run`, the
    same rows), then :func:`chosen_limit` on all training rows, fit-seconds counting both choices, with
    ``threshold=<t>/whiten-eps=<ε>/validation-accuracy`` per pair. Returns {(dataset, K, pool, "map"):
    {"accuracy", "fit", "memory": Result, "validation": {(t, ε): Result}}}."""
    records = {}
    held_out = {"seed": seed, "subset": subset, "jitter": jitter, "n_fit": n_fit, "n_validation": n_validation}
    for name, K, pool, sizes, pairs in map_spec(spec):
        size = map_choice_run(name, K, pool, [{"patch_size": p} for p in sizes], **held_out)
        p = size["chosen"]["patch_size"]
        choice = map_choice_run(name, K, pool, [{"patch_size": p, "threshold": t, "whiten_eps": e} for t, e in pairs],
                                **held_out)
        record = chosen_limit(store, name, K, pool, [size, choice], "map",
                              {"patch_sizes": sizes, "map_settings": [list(pair) for pair in pairs]},
                              seed=seed, subset=subset, jitter=jitter)
        record["validation"] = record_choice(store, record, choice, lambda setting: (
            (setting["threshold"], setting["whiten_eps"]),
            f"threshold={setting['threshold']:g}/whiten-eps={setting['whiten_eps']:g}"))
        records[name, K, pool, "map"] = record
    return records


def grid_words(K: int, pool: int, judged: int, variant: str = "vanishing", setting: dict | None = None) -> str:
    """A limit's features in words beside the judged K's: "pooled 3 × 3", or "K = 1,024, pooled 3 × 3"
    for another K; then its :data:`LIMIT_VARIANTS` words ("…, μ chosen on held-out rows"; :func:`limit_words`
    of its ``setting``)."""
    return (f"K = {thousands(K)}, " if K != judged else "") + f"pooled {pool} × {pool}" + limit_words(variant, setting or {})


def stacked_table(stacked: dict, main: dict, judged: int, pooled: dict | None = None,
                  records: dict | None = None) -> pd.DataFrame | None:
    """"The stacked map against its kernel limit": per dataset the patch readout alone at the
    judged K, the stacked map at each width and its d → ∞ limit; then, for each other pooling grid
    or wider K of ``pooled`` ({(dataset, K, pool, ridge): record}, :func:`fit_pooled_limits`,
    :func:`fit_wide_limits` and :func:`fit_ridge_limits`), the readout alone on those features (from the patch ``records``, when
    there) and the limit. None when nothing was fitted."""
    if not stacked:
        return None
    rows = []
    for name in dict.fromkeys(name for name, _ in stacked):
        alone = main[name, judged, ()]
        rows.append({"dataset": DATASET_NAMES[name], "model": "patch readout alone", "d": "—",
                     "accuracy (%)": alone["accuracy"].mean, "λ": f"{np.median(alone['alpha'].values):.0e}",
                     "fit (s)": alone["fit"].mean, "peak memory (GB)": alone["memory"].mean})
        for (other, width), rec in stacked.items():
            if other == name:
                rows.append({"dataset": DATASET_NAMES[name],
                             "model": "stacked map" if width is not None else "kernel limit (d → ∞)",
                             "d": thousands(width) if width is not None else "∞",
                             "accuracy (%)": rec["accuracy"].mean,
                             "λ": f"{rec['alpha'].mean:.0e}" if width is not None
                             else f"μ = {rec['accuracy'].setting['mu']:.1e}",
                             "fit (s)": rec["fit"].mean, "peak memory (GB)": rec["memory"].mean})
        shown_alone = set()
        for (other, K, pool, variant), rec in (pooled or {}).items():
            if other != name:
                continue
            alone = (records or {}).get((name, K, pool, DEFAULT_DICTIONARY, ()))
            if alone is not None and (K, pool) not in shown_alone:
                shown_alone.add((K, pool))
                rows.append({"dataset": DATASET_NAMES[name],
                             "model": f"patch readout alone, {grid_words(K, pool, judged)}",
                             "d": "—", "accuracy (%)": alone["accuracy"].mean,
                             "λ": f"{np.median(alone['alpha'].values):.0e}", "fit (s)": alone["fit"].mean,
                             "peak memory (GB)": alone["memory"].mean})
            rows.append({"dataset": DATASET_NAMES[name],
                         "model": f"kernel limit (d → ∞), {grid_words(K, pool, judged, variant, rec['accuracy'].setting)}",
                         "d": "∞", "accuracy (%)": rec["accuracy"].mean,
                         "λ": f"μ = {rec['accuracy'].setting['mu']:.1e}", "fit (s)": rec["fit"].mean,
                         "peak memory (GB)": rec["memory"].mean})
    return pd.DataFrame(rows)


def stacked_view(stacked: dict, main: dict, judged: int, pooled: dict | None = None, records: dict | None = None):
    """:func:`stacked_table` for display, or None (nothing shown) when nothing was fitted."""
    frame = stacked_table(stacked, main, judged, pooled, records)
    return None if frame is None else show_table(frame, digits=2)


#: the stacked figure's short names of the limits' variants, after their features
LIMIT_LABELS = {"vanishing": "", "ridge": ", μ held out", "flip": ", μ held out, + mirror", "shift": ", + shifts",
                "patch": ", {p} × {p} patches", "map": ", {p} × {p} patches, t = {t:g}, ε = {e:g}"}
#: the stacked figure's markers for the limits, in the order they are first met
LIMIT_MARKERS = ("D", "s", "^", "v", "*", "P", "X", "h")


def limit_points(stacked: dict, pooled: dict | None, name: str, judged: int, main_pool: int) -> dict:
    """``name``'s d → ∞ limits in the stacked figure's words: {label: Result of its accuracy}, the
    main grid's limit (of :func:`fit_stacked`) first, then ``pooled``'s in their order; e.g.
    "K = 1,024, 3 × 3, μ held out"."""
    found = {}
    if (name, None) in stacked:
        found[f"K = {thousands(judged)}, {main_pool} × {main_pool}"] = stacked[name, None]["accuracy"]
    for (other, K, pool, variant), rec in (pooled or {}).items():
        if other == name:
            found[f"K = {thousands(K)}, {pool} × {pool}{limit_words(variant, rec['accuracy'].setting, LIMIT_LABELS)}"] = (
                rec["accuracy"])
    return found


def plot_stacked(stacked: dict, main: dict, judged: int, pooled: dict | None = None):
    """"The stacked map against its kernel limit": per dataset, accuracy against the stacked width d
    (evenly spaced), and at d = ∞ each limit of :func:`limit_points` side by side (one marker per
    limit, the same in every panel, so close values do not hide each other), with the patch readout
    alone as a dashed line. None when nothing was fitted."""
    import matplotlib.pyplot as plt

    if not stacked:
        return None
    names = list(dict.fromkeys(name for name, _ in stacked))
    main_pool = next(iter(stacked.values()))["accuracy"].setting["pool"]
    fig, axes = plt.subplots(1, len(names), figsize=(7.5, 3.0), squeeze=False)
    markers = {}
    for ax, name in zip(axes[0], names):
        widths = sorted(w for n, w in stacked if n == name and w is not None)
        if widths:
            ax.plot(range(len(widths)), [stacked[name, w]["accuracy"].mean for w in widths], "o-",
                    color=colour("stacked map"), label="stacked map")
        limits = limit_points(stacked, pooled, name, judged, main_pool)
        offsets = np.linspace(-0.3, 0.3, len(limits)) if len(limits) > 1 else [0.0]
        for offset, (label, result) in zip(offsets, limits.items()):
            marker = markers.setdefault(label, LIMIT_MARKERS[len(markers) % len(LIMIT_MARKERS)])
            ax.plot([len(widths) + offset], [result.mean], marker, color=colour("kernel limit"), ms=6,
                    markeredgecolor="black", markeredgewidth=0.5, label=f"d → ∞: {label}")
        ax.axhline(main[name, judged, ()]["accuracy"].mean, color=colour("patch readout"), lw=1, ls="--",
                   label="patch readout alone")
        ax.set_xticks(range(len(widths) + 1), [thousands(w) for w in widths] + ["∞"])
        ax.set_xlim(-0.5, len(widths) + 0.5)
        ax.margins(y=0.12)                   # the markers at the top stay inside the panel
        ax.set(title=DATASET_NAMES[name], xlabel="stacked width d")
    axes[0][0].set_ylabel("test accuracy (%)")
    labelled = {}                            # one legend below the panels: no panel's points are covered
    for ax in axes[0]:
        for line in ax.get_lines():
            labelled.setdefault(line.get_label(), line)
    columns = 2
    fig.legend(list(labelled.values()), list(labelled), loc="lower center", ncol=columns, fontsize=8, frameon=False)
    fig.tight_layout(rect=(0, 0.065 * (1 + (len(labelled) - 1) // columns), 1, 1))
    return fig


def ridge_words(ridge: dict, vanishing: dict, features: str) -> str:
    """The limit with μ chosen on held-out rows (``ridge``, as :func:`fit_ridge_limits` records it)
    against the vanishing ridge's limit on the same ``features`` (``vanishing``), held-out and test
    accuracy both, e.g. "on the features pooled 3 × 3, held-out rows choose μ = 1.5e-02 (99.28 % of
    them right, against 99.21 % at the smallest μ tried), and the test accuracy falls to 99.32 %,
    0.09 points below the vanishing ridge's 99.41 %"."""
    setting = ridge["accuracy"].setting
    held_out = ridge["validation"]
    smallest, chosen = min(held_out), max(result.mean for result in held_out.values())
    test_gap = ridge["accuracy"].mean - vanishing["accuracy"].mean
    moves = by_sign(test_gap, "rises", "falls", "stays")
    return (f"on {features}, held-out rows choose μ = {setting['mu']:.1e} ({chosen:.2f} % "
            f"of them right, against {held_out[smallest].mean:.2f} % at the smallest μ tried), and the test accuracy "
            f"{moves} {'at' if test_gap == 0 else 'to'} {ridge['accuracy'].mean:.2f} %"
            + ("" if test_gap == 0 else f", {abs(test_gap):.2f} points {by_sign(test_gap, 'above', 'below')} the "
               f"vanishing ridge's {vanishing['accuracy'].mean:.2f} %"))


def flip_words(flip: dict, plain: dict, features: str) -> str:
    """The limit with each image's mirror image averaged into its kernel (``flip``, as
    :func:`fit_ridge_limits` records it with views) against the same features' limit without it
    (``plain``, μ chosen the same way), e.g. "on the K = 1,024 features pooled 3 × 3 with each
    image's mirror image averaged into the kernel, held-out rows choose μ = 1.5e-02 and the test
    accuracy rises to 84.10 %, 1.42 points above the same limit without the mirror images"."""
    gap = flip["accuracy"].mean - plain["accuracy"].mean
    return (f"on {features} with each image's mirror image averaged into the kernel, held-out rows choose "
            f"μ = {flip['accuracy'].setting['mu']:.1e} and the test accuracy "
            f"{by_sign(gap, 'rises', 'falls', 'stays')} {'at' if gap == 0 else 'to'} {flip['accuracy'].mean:.2f} %"
            + ("" if gap == 0 else f", {abs(gap):.2f} points {by_sign(gap, 'above', 'below')} the same limit "
               f"without the mirror images ({plain['accuracy'].mean:.2f} %)"))


def shift_words(shift: dict, plain: dict, features: str) -> str:
    """The limit with each image's four one-pixel shifts averaged into its kernel (``shift``, as
    :func:`fit_averaged_limits` records it) against the same features' limit without them (``plain``,
    the same vanishing ridge), with the share of test errors it removes, e.g. "on the features pooled
    3 × 3 with each image's four one-pixel shifts averaged into the kernel, the test accuracy rises to
    99.52 %, 0.11 points above the same limit without them (99.41 %): 19 % fewer errors"."""
    before = plain["accuracy"].mean
    return (f"on {features} with each image's four one-pixel shifts averaged into the kernel, "
            + accuracy_move_words(shift["accuracy"].mean, before, f"the same limit without them ({before:.2f} %)"))


def accuracy_move_words(accuracy: float, before: float, against: str) -> str:
    """How a test accuracy moved from ``before`` (both in %), worded by its sign, with the share of
    test errors it removes: "the test accuracy rises to 99.52 %, 0.11 points above ``against``: 19 %
    fewer errors" (``against`` names the base, e.g. "the same limit without them (99.41 %)"), or "the
    test accuracy stays at 99.41 %"."""
    gap, share = accuracy - before, errors_removed(accuracy, before)
    errors = "" if share is None else f": {100 * abs(share):.0f} % {by_sign(gap, 'fewer', 'more')} errors"
    return (f"the test accuracy {by_sign(gap, 'rises', 'falls', 'stays')} {'at' if gap == 0 else 'to'} {accuracy:.2f} %"
            + ("" if gap == 0 else f", {abs(gap):.2f} points {by_sign(gap, 'above', 'below')} {against}{errors}"))


def patch_words(patch: dict, plain: dict, features: str) -> str:
    """The limit on larger patches, their size chosen on held-out training rows (``patch``, as
    :func:`fit_patch_size_limits` records it), against the same features' limit on the dataset's own
    patches (``plain``, the same vanishing ridge), with the held-out scores and the share of test
    errors it removes, e.g. "on the features pooled 3 × 3 from 9 × 9 patches (held-out rows: 5 × 5
    98.61 %, 7 × 7 98.83 %, 9 × 9 98.90 %), the test accuracy rises to 99.52 %, 0.11 points above the
    5 × 5 patches' 99.41 %: 19 % fewer errors"."""
    p = patch["accuracy"].setting["patch_size"]
    held_out = ", ".join(f"{q} × {q} {result.mean:.2f} %" for q, result in patch["validation"].items())
    before, own = plain["accuracy"].mean, plain["accuracy"].setting["patch_size"]
    return (f"on {features} from {p} × {p} patches (held-out rows: {held_out}), "
            + accuracy_move_words(patch["accuracy"].mean, before, f"the {own} × {own} patches' {before:.2f} %"))


def map_words(tuned: dict, patch: dict) -> str:
    """The limit whose ReLU split's threshold and whitening ε were chosen on held-out training rows
    (``tuned``, as :func:`fit_map_limits` records it) against the limit at the map's own at the same
    patch size (``patch``, :func:`fit_patch_size_limits`'), with the held-out scores and the share of
    test errors it removes, e.g. "with the threshold and whitening ε held-out rows chose at 7 × 7
    (t = 0.25, ε = 0.1: 99.39 %; t = 0.75, ε = 0.5: 99.45 %), t = 0.75 and ε = 0.5, the test accuracy
    rises to 99.55 %, 0.06 points above the map's own settings' 99.49 %: 12 % fewer errors"."""
    setting = tuned["accuracy"].setting
    held_out = "; ".join(f"t = {t:g}, ε = {e:g}: {result.mean:.2f} %" for (t, e), result in tuned["validation"].items())
    before = patch["accuracy"].mean
    return (f"with the threshold and whitening ε held-out rows chose at {setting['patch_size']} × {setting['patch_size']} "
            f"({held_out}), t = {setting['threshold']:g} and ε = {setting['whiten_eps']:g}, "
            + accuracy_move_words(tuned["accuracy"].mean, before, f"the map's own settings' {before:.2f} %"))


def stacked_sentence(stacked: dict, main: dict, judged: int, pooled: dict | None = None) -> str:
    """The widest stacked map and the limit against the patch readout alone, per dataset; and the
    limit on each other pooling grid or wider K of ``pooled`` against the main grid's limit (a
    ridge chosen on held-out rows against the vanishing one, mirror images against none)."""
    if not stacked:
        return NOT_RUN.capitalize() + "."
    parts = []
    for name in dict.fromkeys(name for name, _ in stacked):
        alone = main[name, judged, ()]["accuracy"].mean
        widths = [w for n, w in stacked if n == name and w is not None]
        said = []
        if widths:
            acc = stacked[name, max(widths)]["accuracy"].mean
            said.append(f"at d = {thousands(max(widths))} the stacked map is {abs(acc - alone):.2f} points "
                        f"{by_sign(acc - alone, 'above', 'below', 'level with')} the readout alone")
        if (name, None) in stacked:
            limit = stacked[name, None]["accuracy"].mean
            said.append(f"its limit is {abs(limit - alone):.2f} points "
                        f"{by_sign(limit - alone, 'above', 'below', 'level with')} it ({limit:.2f} %)")
            for (other, K, pool, variant), rec in (pooled or {}).items():
                if other != name:
                    continue
                on = f"the K = {thousands(K)} features" if K != judged else "the features"
                features = f"{on} pooled {pool} × {pool}"
                vanishing, chosen, patch = ((pooled or {}).get((name, K, pool, v))
                                            for v in ("vanishing", "ridge", "patch"))
                if variant == "ridge" and vanishing is not None:
                    said.append(ridge_words(rec, vanishing, features))
                    continue
                if variant == "flip" and chosen is not None:
                    said.append(flip_words(rec, chosen, features))
                    continue
                if variant == "shift" and vanishing is not None:
                    said.append(shift_words(rec, vanishing, features))
                    continue
                if variant == "patch" and vanishing is not None:
                    said.append(patch_words(rec, vanishing, features))
                    continue
                if variant == "map" and patch is not None:
                    said.append(map_words(rec, patch))
                    continue
                gap = rec["accuracy"].mean - limit
                how = ("" if variant == "vanishing" else f" with {limit_words(variant, rec['accuracy'].setting).removeprefix(', ')} "
                           f"(μ = {rec['accuracy'].setting['mu']:.1e})")
                said.append(f"on {features}{how} the limit reaches {rec['accuracy'].mean:.2f} %, "
                            f"{abs(gap):.2f} points {by_sign(gap, 'above', 'below', 'level with')} that")
        parts.append(f"{DATASET_NAMES[name]}: " + "; ".join(said) + ".")
    return " ".join(parts)


# ----------------------------------------------------------------------------- part 3: parity
#: a longer SGD run's recorded epochs: every one up to this, then every :data:`LONG_CURVE_STEP`-th
LONG_CURVE_EVERY = 100
LONG_CURVE_STEP = 10


def last_within(seconds, limit: float) -> int | None:
    """The index of the last epoch that finished within ``limit`` seconds of training, given each
    epoch's cumulative training ``seconds`` (ascending); None when none did. The one rule the parity
    (:func:`parity_rows`), the kept epochs (:func:`kept_epochs`) and the headline
    (:func:`~greenelm_book.summaries.bottom_line.sgd_within`) read a run by."""
    within = np.flatnonzero(np.asarray(seconds) <= limit)
    return int(within[-1]) if len(within) else None


def kept_epochs(epochs, seconds, compared=()) -> np.ndarray:
    """The epochs of a longer SGD run that the results store keeps, as a boolean mask over the run's
    ``epochs`` (cumulative training ``seconds`` after each): every epoch up to
    :data:`LONG_CURVE_EVERY`, every :data:`LONG_CURVE_STEP`-th after it, the last, and the last one
    that finished within each of ``compared`` (the fit times the run is set against), so that the
    parity read from the kept epochs equals the parity of the whole run."""
    epochs, seconds = np.asarray(epochs), np.asarray(seconds)
    keep = (epochs <= LONG_CURVE_EVERY) | (epochs % LONG_CURVE_STEP == 0) | (epochs == epochs.max())
    for limit in compared:
        last = last_within(seconds, limit)
        if last is not None:
            keep[last] = True
    return keep


def compared_results(best: dict, overall: dict | None = None) -> dict:
    """{dataset: [record]}: the one-shot results :func:`parity_rows` sets against SGD, the best patch
    readout (``best``, :func:`best_patch`) and, where it is another result, the chapter's best
    (``overall`` as :func:`best_overall` gives it: a stacked width or limit)."""
    out = {}
    for name, (_, readout) in best.items():
        out[name] = [readout]
        if overall and overall.get(name) and overall[name][0] is not readout:
            out[name].append(overall[name][0])
    return out


def compared_seconds(best: dict, overall: dict | None = None) -> dict:
    """{dataset: [fit seconds]} of :func:`compared_results`."""
    return {name: [rec["fit"].mean for rec in records] for name, records in compared_results(best, overall).items()}


def long_sgd_runs(store, epochs: dict, *, seed: int, subset, compared: dict | None = None) -> dict:
    """The book's SGD networks trained for ``epochs`` ({dataset: {"mlp" | "cnn": epochs}}; the
    networks of :data:`LONG_SGD`) at seed ``seed``: longer than the baselines chapter's schedule, so
    that they run as long as the readouts, with its settings otherwise (``SGDConfig``'s defaults,
    the same architectures). Cached (the baselines chapter's ``sgd-run`` entries, keyed by the
    epochs) and recorded with their learning curves under ``{dataset}/sgd-{model}/long/...``: the
    epochs :func:`kept_epochs` keeps, given ``compared`` ({dataset: [fit seconds]},
    :func:`compared_seconds`). Returns {(dataset, "sgd-" + model): DataFrame (epochs, seconds,
    accuracy), one row per kept epoch}."""
    from .baselines import MLP_HIDDEN, SGDConfig, cifar_architecture, record_runs, sgd_seeds

    curves = {}
    for name, models in (epochs or {}).items():
        for model, n_epochs in models.items():
            if model not in LONG_SGD.get(name, ()):
                raise ValueError(f"no longer SGD run of {model!r} on {name!r}: the chapter trains "
                                 + ", ".join(f"{m} on {n}" for n, ms in LONG_SGD.items() for m in ms))
            config = SGDConfig(epochs=int(n_epochs))
            final, curve, runs = sgd_seeds(name, model, [seed], config, subset=subset, progress=False)
            curve = curve[kept_epochs(curve.epochs, curve.train_seconds, (compared or {}).get(name, ()))]
            architecture = (f"{runs[0]['n_inputs']}-{MLP_HIDDEN}-{runs[0]['n_classes']}" if model == "mlp"
                            else cifar_architecture(model))
            record_runs(store, f"{name}/sgd-{model}/long", final, curve, runs, config, shown_curve=True,
                        dataset=name, model=f"SGD {model}", architecture=architecture, inputs="raw pixels")
            curves[name, f"sgd-{model}"] = pd.DataFrame({"epochs": curve.epochs.to_numpy(),
                                                          "seconds": curve.train_seconds.to_numpy(),
                                                          "accuracy": curve.accuracy.to_numpy()})
    return curves


def long_text(curves: dict) -> str:
    """The longer SGD runs in words ("the MNIST MLP for 150 epochs (218 s), …"), ``curves`` as
    :func:`long_sgd_runs` returns them; :data:`NOT_RUN` when there are none."""
    if not curves:
        return NOT_RUN
    return ", ".join(f"the {DATASET_NAMES[name]} {SGD_LABELS[model].removeprefix('SGD ')} for "
                     f"{int(curve.epochs.iloc[-1])} epochs ({curve.seconds.iloc[-1]:.0f} s)"
                     for (name, model), curve in curves.items())


def baseline_curve(store, name: str, model: str) -> pd.DataFrame:
    """The baselines chapter's run of ``model`` on ``name``, epoch by epoch: epochs, seconds (mean
    cumulative training time over its seeds), accuracy (mean %)."""
    from ..store.results import load_all

    baselines = load_all(store.directory)["baselines"]["results"]
    full_acc = store.get("baselines", f"{name}/{model}/accuracy")
    full_s = store.get("baselines", f"{name}/{model}/train-seconds")
    epochs = sorted(int(k.split("/e=")[1].split("/")[0]) for k in baselines
                    if k.startswith(f"{name}/{model}/e=") and k.endswith("/train-seconds"))
    rows = [(e, store.get("baselines", f"{name}/{model}/e={e}/train-seconds").mean,
             store.get("baselines", f"{name}/{model}/e={e}/accuracy").mean) for e in epochs]
    rows.append((int(full_acc.setting.get("epochs", max(epochs, default=0) + 1)), full_s.mean, full_acc.mean))
    return pd.DataFrame(rows, columns=["epochs", "seconds", "accuracy"])


def result_label(record: dict) -> str:
    """A short name for one of the chapter's results (``record`` as :func:`best_overall` gives it):
    "patch readout", "stacked map at d = 8,000" or "stacked map's d → ∞ limit"."""
    key = record["accuracy"].key
    if "/stacked-patches/" not in key:
        return "patch readout"
    width = re.search(r"/d=(\d+)/", key)
    return f"stacked map at d = {thousands(int(width.group(1)))}" if width else "stacked map's d → ∞ limit"


def parity_rows(store, best: dict, long_curves: dict | None = None, overall: dict | None = None) -> list[dict]:
    """Each dataset's one-shot results (:func:`compared_results`) against each SGD network given the same
    seconds. For each, SGD's accuracy after the last epoch that finished within the result's fit time,
    from the chapter's longer run where there is one (``long_curves`` as :func:`long_sgd_runs` returns
    them), else from the baselines chapter's; and that run's last epoch (its seconds and accuracy),
    which tells whether the run covered the result's time."""
    rows = []
    for name, results in compared_results(best, overall).items():
        for model in SGD_MODELS[name]:
            curve = (long_curves or {}).get((name, model))
            curve = baseline_curve(store, name, model) if curve is None else curve
            for rec in results:
                seconds = rec["fit"].mean
                last = last_within(curve.seconds, seconds)
                rows.append({"dataset": DATASET_NAMES[name], "SGD model": SGD_LABELS[model],
                             "one-shot result": result_label(rec), "its accuracy (%)": rec["accuracy"].mean,
                             "its fit (s)": seconds,
                             "SGD epochs in that time": 0 if last is None else int(curve.epochs.iloc[last]),
                             "SGD then (%)": np.nan if last is None else float(curve.accuracy.iloc[last]),
                             "SGD run's end (s)": float(curve.seconds.iloc[-1]),
                             "SGD at its end (%)": float(curve.accuracy.iloc[-1])})
    return rows


def parity_table(rows: list[dict]) -> pd.DataFrame:
    """:func:`parity_rows` as a table."""
    return pd.DataFrame(rows)


def parity_sentence(rows: list[dict]) -> str:
    """One sentence per SGD network: given each one-shot result's fit time, SGD's accuracy then and how
    far it is above or below the result; where the SGD run ended before that time, what it reached at
    its end."""
    groups = {}
    for r in rows:
        groups.setdefault((r["dataset"], r["SGD model"]), []).append(r)
    sentences = []
    for (dataset, model), group in groups.items():
        clauses, ended = [], False
        for r in group:
            ours, then = r["its accuracy (%)"], r["SGD then (%)"]
            fit = f"the {thousands(round(r['its fit (s)']))} s fit of the {r['one-shot result']}"

            def gap(value):
                return (f"{abs(value - ours):.2f} points {by_sign(value - ours, 'above', 'below', 'level with')} "
                        f"its {ours:.2f} %")

            if np.isnan(then):
                clauses.append(f"finished no epoch within {fit}")
            elif r["SGD run's end (s)"] < r["its fit (s)"]:
                end, at_end = r["SGD run's end (s)"], r["SGD at its end (%)"]
                clauses.append(f"before {fit} ({gap(at_end)})" if ended else
                               f"ended its run after {thousands(round(end))} s at {at_end:.2f} %, before {fit} ({gap(at_end)})")
                ended = True
            else:
                clauses.append(f"{'' if clauses else 'reaches '}{then:.2f} % within {fit} "
                               f"({thousands(r['SGD epochs in that time'])} epochs; {gap(then)})")
        sentences.append(f"{dataset}'s {model} " + ", and ".join(clauses) + ".")
    return " ".join(sentences)


def budget_sentence(store, records: dict, datasets) -> str:
    """The other way round: given each baselines SGD run's own training time, the best readout whose
    fit took no longer (:func:`best_of`), or the fastest readout when none did."""
    parts = []
    for name in datasets:
        mine = {key: rec for key, rec in records.items() if key[0] == name}
        for model in SGD_MODELS[name]:
            acc = store.get("baselines", f"{name}/{model}/accuracy")
            seconds = store.get("baselines", f"{name}/{model}/train-seconds").mean
            head = f"{DATASET_NAMES[name]}'s {SGD_LABELS[model]} ({acc.mean:.2f} % in {seconds:.0f} s)"
            within = {key: (rec["accuracy"].mean, rec["fit"].mean) for key, rec in mine.items()
                      if rec["fit"].mean <= seconds}
            if within:
                key = best_of(within)
                parts.append(f"{head}: {within[key][0]:.2f} % in {within[key][1]:.0f} s "
                             f"({configuration_text(mine[key]['accuracy'].setting)})")
            else:
                key = min(mine, key=lambda k: mine[k]["fit"].mean)
                parts.append(f"{head}: no readout fits in that time; the fastest takes {mine[key]['fit'].mean:.0f} s "
                             f"for {mine[key]['accuracy'].mean:.2f} %")
    return "Given the SGD runs' own training times, the best readout that fits in them: " + "; ".join(parts) + "."


def anchor_table(best: dict, overall: dict | None = None) -> pd.DataFrame:
    """The published anchors of the datasets fitted, each with what it trains, its size and its
    augmentation (the compute is in :func:`anchor_notes`), beside our best patch readout and, with
    ``overall`` (:func:`best_overall`), the chapter's best result (the stacked map's limit, when it
    is better). Every anchor of a fitted dataset shows, those with no counterpart of ours (the
    networks trained end to end) included: "ours" is the dataset's best, not a matched method."""
    from .. import paper

    rows = []
    for row in paper.ANCHORS.itertuples():
        if row.dataset in best:
            rows.append({"dataset": DATASET_NAMES[row.dataset],
                         "published method (source)": f"{row.method} ({SOURCES[row.source]})",
                         "trained": row.trained, "size; augmentation": f"{row.size}; {row.augmentation}",
                         "published (%)": row.accuracy,
                         "ours, patch readout (%)": best[row.dataset][1]["accuracy"].mean})
            if overall is not None:
                rows[-1]["ours, best (%)"] = overall[row.dataset][0]["accuracy"].mean
    return pd.DataFrame(rows)


def anchor_notes(datasets=None) -> list[str]:
    """The anchors' compute, as their sources state it, one line each in :func:`anchor_table`'s
    order (all datasets, or those in ``datasets``): the footnotes of the table, which leaves the
    column out to fit the page."""
    from .. import paper

    return [f"{SOURCES[row.source]}, {row.accuracy:g} % on {DATASET_NAMES[row.dataset]}, trained: {row.trained}; "
            f"compute: {row.compute}." for row in paper.ANCHORS.itertuples()
            if datasets is None or row.dataset in datasets]


# ----------------------------------------------------------------------------- part 4: cost curve
def family(key: str) -> str:
    """The method (a :func:`~greenelm_book.report.colour` series) of a cost-curve key."""
    if "/stacked-patches/" in key:
        return "stacked map"
    if "/patch-readout/" in key:
        return "patch readout"
    if "efficientnet" in key:
        return "backbone"
    if "/sgd-cnn" in key:
        return "SGD CNN"
    if "/sgd-mlp" in key:
        return "SGD MLP"
    if "/sgd-perceptron" in key:
        return "SGD perceptron"
    if "random-conv" in key:
        return "random conv"
    return "Green-ELM"


def chapter_cost_curve(store, datasets) -> pd.DataFrame:
    """Every (accuracy, seconds) pair of the results store with this chapter's own results, for
    ``datasets``, with its method (:func:`family`) and its run (the key without an SGD run's
    ``/e=k``: the epochs of one run share it)."""
    from ..store.results import load_all

    stored = load_all(store.directory)
    stored["frontier"] = {"results": store.results}
    curve = cost_curve(stored)
    curve = curve[curve.dataset.isin(datasets) & (curve.seconds > 0)]
    return curve.assign(method=curve.key.map(family), run=curve.key.str.replace(r"/e=\d+$", "", regex=True))


def plot_cost_curve(curve: pd.DataFrame, datasets):
    """Part 4's figure: accuracy against training seconds (log), one panel per dataset, the SGD
    networks' epochs joined by lines."""
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(datasets), figsize=(7.5, 3.7), sharey=False, squeeze=False)
    for ax, name in zip(axes[0], datasets):
        part = curve[curve.dataset == name]
        for (method, run), group in part.groupby(["method", "run"], sort=False):
            group = group.sort_values("seconds")
            if method not in ("SGD MLP", "SGD CNN"):
                ax.plot(group.seconds, group.accuracy, "o", ms=4, color=colour(method), label=method)
            elif run.endswith("/long"):        # the chapter's longer run: hundreds of epochs, one seed
                ax.plot(group.seconds, group.accuracy, "-", lw=1.2, color=colour(method), label=f"{method}, longer run")
            else:
                ax.plot(group.seconds, group.accuracy, "o-", ms=4, color=colour(method), label=method)
        ax.set(xscale="log", title=DATASET_NAMES[name], xlabel="training seconds (log)")
        log_ticks(ax)
    axes[0][0].set_ylabel("test accuracy (%)")
    handles = {h.get_label(): h for ax in axes[0] for h in ax.get_lines()}
    fig.legend(handles.values(), handles.keys(), loc="lower center", ncol=4, fontsize=8, bbox_to_anchor=(0.5, 0.0),
               frameon=False)
    fig.tight_layout(rect=(0, 0.17, 1, 1))          # the legend's rows below the panels' axis labels
    return fig


# ----------------------------------------------------------------------------- what limited us
def limits_glues(kernel_accuracy: float, goal: float, runs: dict, datasets, widths_of: dict, seed: int,
                 pool: int) -> dict:
    """The values "What limited us" quotes: what the kernel limit says of a million-wide map, and
    one pass's feature, eigendecomposition and memory cost at each dataset's widest K."""
    million = by_sign(kernel_accuracy - goal,
                      "the kernel limit above says such a width of this map could clear "
                      f"{goal:.1f} %.",
                      f"the kernel limit above says even that would not bring this map to {goal:.1f} %.",
                      f"the kernel limit above sits exactly at {goal:.1f} %.")
    parts = []
    for name in datasets:
        widest = max(widths_of[name])
        run = runs[name, widest, pool, DEFAULT_DICTIONARY, seed, ()]
        solve = (f"{run['spectrum_seconds']:.0f} s for the eigendecomposition" if run["solver"] == "eigh" else
                 f"{run['loo_seconds']:.0f} s for {len(run['loo']['alpha'])} Cholesky factorisations (one per λ tried)")
        parts.append(f"{DATASET_NAMES[name]} at K = {thousands(widest)}: {run['feature_seconds']:.0f} s for "
                     f"{thousands(run['n_train'])} images, then {solve}, peak memory {run['peak_memory_gb']:.1f} GB")
    return {"million_words": million,
            "feature_seconds_text": "the features and sums of one pass took " + "; ".join(parts) + "."}


def view_count(setting: dict) -> int:
    """How many views of each image a stacked limit's kernel averages (1: the images alone)."""
    return len(setting.get("views", [""]))


def best_width_sentence(overall: dict) -> str:
    """How many features each dataset's best result (``overall`` as :func:`best_overall` gives it)
    takes as its input, and whether it is the stacked map's d → ∞ limit on them: the count to set
    beside the anchors' 64,000–256,000. Empty when nothing was fitted."""
    parts = []
    for name, (rec, _) in overall.items():
        setting = rec["accuracy"].setting
        if "n_features" not in setting:
            continue
        limit = "d = ∞" in str(setting.get("model", ""))
        parts.append(f"{DATASET_NAMES[name]} {rec['accuracy'].mean:.2f} % on {thousands(setting['n_features'])} "
                     "patch features" + (" (the paper's map on them at d → ∞)" if limit else ""))
    return ("Our best results, for comparison: " + "; ".join(parts) + ".") if parts else ""


def limit_memory_sentence(stacked: dict, pooled: dict) -> str:
    """What bounds the stacked map's d → ∞ limit: per dataset, its widest features' float32 kernel
    (4·N² bytes) and features (4·N·F bytes per view: the images', and their mirror images' when
    averaged into the kernel) against the fit's measured peak memory; ``stacked`` and ``pooled``
    as :func:`fit_stacked` and :func:`fit_pooled_limits` return them. Empty when no limit was computed."""
    limits = {(name, None, None, "vanishing"): rec for (name, width), rec in stacked.items() if width is None}
    limits |= pooled
    parts = []
    for name in dict.fromkeys(key[0] for key in limits):
        mine = [rec for key, rec in limits.items() if key[0] == name]
        widest = max(mine, key=lambda rec: (rec["accuracy"].setting["n_features"] * view_count(rec["accuracy"].setting),
                                            rec["memory"].mean))
        setting = widest["accuracy"].setting
        n, features, views = setting["n_train"], setting["n_features"], view_count(setting)
        parts.append(f"{DATASET_NAMES[name]}, K = {thousands(setting['n_patches'])} pooled {setting['pool']} × "
                     f"{setting['pool']} ({thousands(features)} features"
                     + (f", {views} views of each image" if views > 1 else "")
                     + f"): a {4 * n * n / GB:.1f} GB kernel beside {4 * n * features * views / GB:.1f} GB of "
                     f"training features, {widest['memory'].mean:.1f} GB at its peak")
    if not parts:
        return ""
    return ("The stacked map's limit is bounded by memory instead: a float32 kernel of 4·N² bytes beside the "
            "features' 4·N·F (per view), at the widest features computed here (" + "; ".join(parts) + ").")


# ----------------------------------------------------------------------------- figures
def limit_features_words(spec: dict | None) -> list[str]:
    """Each [K, pool] pair of ``spec`` ({dataset: [[K, pool], …]}) in words: "MNIST's K = 256 features
    pooled 3 × 3"."""
    return [f"{DATASET_NAMES[name]}'s K = {thousands(int(K))} features pooled {int(pool)} × {int(pool)}"
            for name, pairs in (spec or {}).items() for K, pool in pairs]


def stacked_limit_text(limit: bool, widths=(), pools: dict | None = None, wide: dict | None = None,
                       ridge: dict | None = None, validation=(20000, 10000), flip: dict | None = None,
                       shift: dict | None = None, patch_size: dict | None = None, map_settings: dict | None = None) -> str:
    """What the stacked section says of what this run fits: the stacked map at ``widths`` and, with
    ``limit`` (the profile's ``stacked_limit``), its d → ∞ limit, also on the features pooled over
    the other grids of ``pools`` ({dataset: [pool, …]}), on the wider features of ``wide``, with
    μ chosen on ``validation`` = (fit, held-out) training rows for ``ridge`` and with the mirror
    images averaged into the kernel for ``flip``, with the four one-pixel shifts for ``shift`` (each
    {dataset: [[K, pool], …]}), on the patch size held-out rows choose for ``patch_size`` ({dataset:
    [[K, pool, [p, …]], …]}), and at that p on the split's threshold and whitening ε held-out rows choose
    for ``map_settings`` ({dataset: [[K, pool, [p, …], [[t, ε], …]], …]}); or that it fits neither."""
    grids = {}
    for name, found in (pools or {}).items():
        for pool in found:
            grids.setdefault(int(pool), []).append(DATASET_NAMES[name])
    also = "".join(f" The limit is also computed on the same K's features pooled {pool} × {pool} ({', '.join(names)}; "
                   "part 2's pooling table compares the two grids' readouts alone)."
                   for pool, names in grids.items()) if limit else ""
    wider = {}
    for name, pairs in (wide or {}).items():
        for K, pool in pairs:
            wider.setdefault((int(K), int(pool)), []).append(DATASET_NAMES[name])
    if limit and wider:
        also += (" And on wider features: " + "; ".join(
            f"K = {thousands(K)} patches pooled {pool} × {pool} ({', '.join(names)})" for (K, pool), names in wider.items())
            + ", whose kernel ridge runs in float32 in place (greenelm.kernels.kernel_ridge_predict_inplace: "
            "the features scaled where they lie, beside the N × N kernel, with no float64 copy of them).")
    chosen = limit_features_words(ridge)
    if limit and chosen:
        also += (" At a fixed λ the limit's ridge λ/d vanishes; letting λ grow with d leaves a ridge μ > 0, chosen "
                 f"here as the readouts choose λ, on training rows alone: kernel ridge on {thousands(validation[0])} "
                 f"training rows scored on {thousands(validation[1])} others for each μ, then refitted on all "
                 "training rows at the best, one N × N kernel serving both (greenelm.kernels."
                 "held_out_kernel_ridge_predict: each μ factorises a copy of the fitted rows' block) (on "
                 + " and ".join(chosen) + ").")
    mirrored = limit_features_words(flip)
    if limit and mirrored:
        also += (" Flipping an image left to right keeps its class, and the limit can take that in without "
                 "doubling N: its kernel becomes the kernel of the features averaged over an image and its mirror "
                 "image, K̄(x, z) = ¼ Σ K(a, b) over a ∈ {x, x's mirror image}, b ∈ {z, z's mirror image} "
                 "(four kernels' work and twice the features' memory, one N × N kernel), with μ chosen the "
                 "same way (on " + " and ".join(mirrored) + ").")
    shifted = limit_features_words(shift)
    if limit and shifted:
        also += (" A digit moved by one pixel keeps its class too: averaged over each image and its four one-pixel "
                 "shifts (up, down, left, right, the edge row or column repeated), the kernel takes in five views "
                 "of every image, K̄(x, z) = (1/25) Σ K(a, b) over the views a of x and b of z (25 kernels' work, "
                 "five times the features' memory, one N × N kernel), at the same vanishing ridge as the limit "
                 "without them (on " + " and ".join(shifted) + ").")
    sized = [f"{DATASET_NAMES[name]}'s K = {thousands(K)} features pooled {pool} × {pool}, p among "
             + ", ".join(map(str, sizes)) for name, K, pool, sizes in patch_size_spec(patch_size or {})]
    if limit and sized:
        also += (" The patches' size p (p × p pixels) was fixed per dataset so far; the limit can choose it as it "
                 f"chooses μ, on training rows alone: the kernel ridge on {thousands(validation[0])} training rows "
                 f"scored on {thousands(validation[1])} others for each p, at the vanishing ridge, then the limit on "
                 "all training rows at the best p, its fit time counting the choice (on " + "; ".join(sized) + ").")
    tuned = [f"{DATASET_NAMES[name]}'s K = {thousands(K)} features pooled {pool} × {pool}, (t, ε) among "
             + ", ".join(f"({t:g}, {e:g})" for t, e in pairs) for name, K, pool, _, pairs in map_spec(map_settings or {})]
    if limit and tuned:
        also += (" Two more of the map's settings were fixed so far: the ReLU split's threshold t (features "
                 "max(0, ±r − t) of each whitened response r) and the whitening's ε (added to the patch "
                 "covariance's eigenvalues). At the p chosen, the same rows choose the pair (t, ε), then the limit "
                 "is fitted on all training rows at the best pair, its fit time counting both choices (on "
                 + "; ".join(tuned) + ").")
    if not list(widths) and not limit:
        return ("This run fits neither the stacked map nor its d → ∞ limit (the profile's stacked_widths and "
                "stacked_limit switch them on; the smoke profile runs both on a thousand images).")
    if limit:
        return ("As in part 1, no width of this stacked map can do better than its d → ∞ limit: kernel ridge "
                "with the arc-cosine kernel of the same W, b on all training rows, factorised in float32 with a "
                "vanishing ridge." + also)
    return ("Its d → ∞ limit (kernel ridge with the arc-cosine kernel of the same W, b on all training rows: an "
            "N × N factorisation per dataset) is not computed in this run; the profile's stacked_limit "
            "switches it on.")
