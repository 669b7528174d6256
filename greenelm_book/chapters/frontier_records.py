"""The frontier protocol's records as a page shows them: what each dataset's seeds picked and scored,
the grid's validation accuracies, the SGD opponents, and the gains between variants.

Reads the per-seed records of :mod:`greenelm_book.chapters.frontier_protocol` and
:mod:`greenelm_book.chapters.frontier_opponents` (``book/frontier_protocol/``). Nothing here reads a
test label: the test accuracies shown are those the gate recorded for each seed's pick and for the
declared fixed measurements; every table of the grid shows validation accuracy.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Mapping

import pandas as pd

from ..judging.verdicts import gain_over
from ..report import ours_text
from .frontier_protocol import RUNS_DIR, VARIANTS, configuration_key, mean_sd

_PROTOCOL = re.compile(r"(?P<dataset>[a-z0-9-]+?)-seed(?P<seed>\d+)\.json")
#: the fixed measurements' records (:func:`~greenelm_book.chapters.frontier_fixed.fixed_record_path`), which the
#: protocol's pattern would otherwise read as seeds of a dataset named "mnist-paper-map-d32000"
_FIXED = re.compile(r"[a-z0-9-]+?-paper-map-(?:limit(?:-heldout)?|d\d+)-seed\d+\.json")
_OPPONENT = re.compile(r"(?P<dataset>[a-z0-9-]+?)-(?P<recipe>airbench94|pytorch-mnist-cnn)-"
                       r"(?P<schedule>published|protocol-seconds)-seed(?P<seed>\d+)\.json")
#: a variant in words
VARIANT_WORDS = {"limit": "kernel limit (d → ∞)", "stacked": "the paper's map, finite width", "readout": "ridge readout"}


def load_records(out_dir: str | Path = RUNS_DIR) -> dict:
    """{dataset: {"protocol": {seed: record}, "opponents": {(schedule, seed): record}}} of the records in
    ``out_dir`` (a full run's only: a record of a subset is a check and is left out)."""
    out: dict = {}
    for path in sorted(Path(out_dir).glob("*.json")):
        opponent, protocol = _OPPONENT.fullmatch(path.name), _PROTOCOL.fullmatch(path.name)
        if _FIXED.fullmatch(path.name) or not (opponent or protocol):
            continue
        record = json.loads(path.read_text(encoding="utf-8"))
        if record.get("subset") is not None:
            continue
        if opponent:
            entry = out.setdefault(opponent["dataset"], {"protocol": {}, "opponents": {}})
            entry["opponents"][(opponent["schedule"], int(opponent["seed"]))] = record
        else:
            entry = out.setdefault(protocol["dataset"], {"protocol": {}, "opponents": {}})
            entry["protocol"][int(protocol["seed"])] = record
    return out


def with_own_schedule_runs(records: dict, budget_dir: str | Path) -> dict:
    """``records`` (:func:`load_records`) with each dataset's opponent at its own schedule (``"published"``)
    completed from the accuracy-seconds front's last SGD point (the same declared measurement: the recipe at
    :data:`~greenelm_book.chapters.frontier_budget.OWN_EPOCHS` on every training image, one test read) for
    each seed that has no opponent record of its own; such a run carries ``"measured_by"`` (its record's
    path) and the point's ``"machine"``. ``budget_dir``: the CPU points' records
    (:data:`~greenelm_book.chapters.frontier_budget.BUDGET_DIR`). A new dict; ``records`` is not changed."""
    from .frontier_budget import OWN_EPOCHS, load_points, point_record_path

    out = {dataset: {"protocol": dict(entry["protocol"]), "opponents": dict(entry["opponents"])}
           for dataset, entry in records.items()}
    for dataset, entry in out.items():
        for point in load_points(dataset, budget_dir):
            spec = point["point"]
            if (spec.get("family") != "sgd" or point.get("subset") is not None or point.get("device")
                    or float(spec["epochs"]) != OWN_EPOCHS.get(spec["model"])):
                continue
            key = ("published", int(point["seed"]))
            if key in entry["opponents"]:
                continue                                   # the opponent's own record of that seed stands
            entry["opponents"][key] = {
                "dataset": dataset, "seed": int(point["seed"]), "schedule": "published",
                "configuration": {"model": spec["model"], "schedule": "published"},
                "accuracy": float(point["test_accuracy"]), "seconds": float(point["seconds"]),
                "epochs_run": float(spec["epochs"]), "epochs": float(spec["epochs"]),
                "n_train": int(point["n_train"]), "n_test": int(point["n_test"]),
                "started_at": point.get("started_at", ""), "machine": point.get("machine"),
                "measured_by": str(point_record_path(budget_dir, dataset, spec, point["seed"]))}
    return out


def candidate_text(candidate: Mapping) -> str:
    """A grid candidate in a few words: ``kernel limit, K = 1,024, 7 × 7 patches, t = 0.25, ε = 0.1, mirror``
    (and, when set, the mirror-symmetric map and the arc-cosine kernel's depth)."""
    parts = [VARIANT_WORDS.get(candidate.get("variant"), str(candidate.get("variant")))]
    if candidate.get("n_hidden"):
        parts.append(f"d = {int(candidate['n_hidden']):,}")
    parts.append(f"K = {int(candidate['n_patches']):,}")
    parts.append(f"{candidate['patch_size']} × {candidate['patch_size']} patches, pool {candidate['pool']}")
    parts.append(f"t = {candidate['threshold']:g}, ε = {candidate['whiten_eps']:g}")
    if candidate.get("views"):
        parts.append(" + ".join({"flip": "mirror", "shift": "shifts"}.get(v, v) for v in candidate["views"]))
    if candidate.get("symmetric"):             # the halving grid's settings (absent from the earlier grid's)
        parts.append("mirror-symmetric map")
    if candidate.get("depth", 1) != 1:
        parts.append(f"arc-cosine kernel composed {int(candidate['depth'])} times")
    return ", ".join(parts)


def grid_table(records: Mapping, dataset: str) -> pd.DataFrame:
    """The grid of ``dataset``, one row per candidate in the grid's order: its validation accuracy over
    the recorded seeds (mean ± sd), its selection fit's seconds (mean), how many seeds picked it."""
    runs = [records[dataset]["protocol"][s] for s in sorted(records[dataset]["protocol"])]
    order = [configuration_key(row["candidate"]) for row in runs[0]["grid"]]
    rows = []
    for key in order:
        entries = [row for run in runs for row in run["grid"] if configuration_key(row["candidate"]) == key]
        scores = [e["validation_accuracy"] for e in entries if e["validation_accuracy"] is not None]
        rows.append({"candidate": candidate_text(entries[0]["candidate"]),
                     "validation accuracy (%)": ours_text(scores, "") if scores else "not fitted",
                     "selection fit (s)": f"{mean_sd([e['seconds'] for e in entries])['mean']:,.0f}",
                     "picked": sum(configuration_key(run["pick"]) == key for run in runs)})
    return pd.DataFrame(rows)


def variant_gains(records: Mapping, dataset: str, base: str = "readout") -> dict:
    """{variant: the book's gain verdict of that variant over ``base``} on the per-seed best validation
    accuracies of each variant (:func:`greenelm_book.judging.verdicts.gain_over`; never a test score)."""
    from .frontier_protocol import variant_validation

    runs = [records[dataset]["protocol"][s] for s in sorted(records[dataset]["protocol"])]
    base_scores = variant_validation(runs, base)
    return {variant: gain_over(base_scores, variant_validation(runs, variant),
                               names=(VARIANT_WORDS[base], VARIANT_WORDS[variant]))
            for variant in VARIANTS if variant != base}


__all__ = ["VARIANT_WORDS", "candidate_text", "grid_table", "load_records", "variant_gains", "with_own_schedule_runs"]
