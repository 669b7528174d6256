"""The frontier's protocol by successive halving (Jamieson & Talwalkar 2016; Li et al. 2018, Hyperband).

Per dataset and seed (:func:`run_halving`):

1. rungs of growing size (:func:`rung_sizes`): rung r fits ``fit_sizes[r]`` training rows and scores
   ``validation_sizes[r]`` held-out training rows, each ``eta`` (3) times the rung before; the last
   rung's sizes are the protocol's largest;
2. every candidate of the grid (:class:`~greenelm_book.chapters.frontier_protocol.Candidate`) is fitted
   at rung 0; at each rung the best ``ceil(n / eta)`` (at least one) of its n candidates survive to
   the next (:func:`survivors`: the highest validation accuracy, a tie broken by the protocol's
   :data:`~greenelm_book.chapters.frontier_protocol.TIE_RULE`; a candidate whose fit failed never
   survives); when one candidate is left it is the pick and no larger rung is run; at the last rung
   the best is the pick;
3. one refit on all training rows at the pick, and the test set scored once through the
   :class:`~greenelm_book.chapters.frontier_protocol.TestGate` (unchanged).

**The rungs' splits are nested** (:func:`rung_rows`): one permutation of the training rows, seeded by
the run's seed (the permutation of :func:`greenelm.kernel_limit.held_out_rows`), gives every rung's
rows: rung r fits the first ``fit_sizes[r]`` rows of it and scores the ``validation_sizes[r]`` rows
that follow the *last* rung's fit rows. So a rung's fit rows and validation rows contain the previous
rung's, no row is ever fitted at one rung and scored at another, and the last rung's split is
exactly :func:`~greenelm.kernel_limit.held_out_rows` at its sizes (the earlier protocol's split when
the sizes are its 20,000 and 10,000). Nested rather than fresh: a survivor's accuracy at the next
rung is measured on a superset of the rows it was chosen on plus ``eta - 1`` times as many new ones,
so the rungs refine one estimate instead of drawing a new one, and every choice reads training rows.

:func:`cost_plan` predicts the whole protocol's seconds (every rung, the refit, the scoring) from a
per-candidate cost model (:func:`fit_flops`) whose rates are calibrated on the earlier protocol's
records (:func:`calibrate`); ``python -m greenelm_book.chapters.frontier_halving --plan`` prints it
without fitting anything, and ``python -m greenelm_book.chapters.frontier_halving --dataset mnist --seed 0``
runs the protocol (:func:`main`).
"""

from __future__ import annotations

import json
import math
import time
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from greenelm._validation import check_positive_int

from .frontier_protocol import (GB, INNER_FIT_ROWS, INNER_VALIDATION_ROWS, RUNS_DIR, TIE_RULE, Candidate, TestGate,
                                _info, _selection_fit, _write_json_atomically, build_model, checked_run_inputs,
                                configuration_key, expand_grid, protocol_data, refit_and_score, seed_record_path)

#: the halving protocol's grid and rungs, declared from published settings
HALVING_PARAMS = Path(__file__).resolve().parents[2] / "params" / "frontier_halving.yml"
#: where its per-seed records and its own test-read ledger are written (the earlier protocol's stay in
#: ``book/frontier_protocol/``)
HALVING_DIR = RUNS_DIR.parent / "frontier_halving"
#: the fraction of a rung's candidates kept is 1/ETA (rounded up), and each rung is ETA times larger
ETA = 3
#: how the rungs' rows are drawn (the record says it)
NESTING = ("nested: one permutation of the training rows seeded by the run's seed; rung r fits its first "
           "fit_sizes[r] rows and scores the validation_sizes[r] rows after the last rung's fit rows")


# ----------------------------------------------------------------------------- the rungs
def rung_sizes(last_fit: int, last_validation: int, n_rungs: int, eta: int = ETA) -> list[tuple[int, int]]:
    """[(fit rows, validation rows)] of ``n_rungs`` rungs, each ``eta`` times the one before (rounded
    up), the last ``(last_fit, last_validation)``."""
    last_fit, last_validation = (check_positive_int(n, v) for n, v in (("last_fit", last_fit),
                                                                      ("last_validation", last_validation)))
    n_rungs, eta = check_positive_int("n_rungs", n_rungs), check_positive_int("eta", eta)
    if eta < 2:
        raise ValueError(f"eta must be at least 2 (the fraction of candidates kept is 1/eta), got {eta}")
    sizes = [(math.ceil(last_fit / eta ** (n_rungs - 1 - r)), math.ceil(last_validation / eta ** (n_rungs - 1 - r)))
             for r in range(n_rungs)]
    if len(set(sizes)) != len(sizes):
        raise ValueError(f"{n_rungs} rungs shrinking by {eta} from ({last_fit}, {last_validation}) repeat a size: "
                         f"{sizes}; give fewer rungs or larger sizes")
    return sizes


def rung_rows(n_rows: int, sizes: Sequence[tuple[int, int]], seed: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """Each rung's (fit rows, validation rows), sorted int64, nested (see the module): rung r's fit rows
    are the first ``sizes[r][0]`` of seed ``seed``'s permutation of ``n_rows``, its validation rows the
    ``sizes[r][1]`` after the last rung's fit rows."""
    sizes = [(int(f), int(v)) for f, v in sizes]
    if not sizes:
        raise ValueError("no rung")
    for earlier, later in zip(sizes, sizes[1:]):
        if later[0] < earlier[0] or later[1] < earlier[1]:
            raise ValueError(f"rung sizes must not shrink (nested rows), got {sizes}")
    last_fit, last_validation = sizes[-1]
    if min(min(s) for s in sizes) < 1 or last_fit + last_validation > n_rows:
        raise ValueError(f"the last rung's {last_fit} fit and {last_validation} validation rows (each >= 1) must "
                         f"fit in the {n_rows} training rows; rung sizes {sizes}")
    order = np.random.default_rng(int(seed)).permutation(n_rows)      # held_out_rows' permutation
    return [(np.sort(order[:f]).astype(np.int64), np.sort(order[last_fit:last_fit + v]).astype(np.int64))
            for f, v in sizes]


def ranked(validation: Mapping[int, float | None], grid: Sequence) -> list[int]:
    """The grid indices of the fitted candidates (validation accuracy not None), best first: the highest
    validation accuracy, a tie by :data:`TIE_RULE` (``cost()``, then the grid index)."""
    fitted = [i for i, v in validation.items() if v is not None]
    return sorted(fitted, key=lambda i: (-validation[i], tuple(grid[i].cost()) if hasattr(grid[i], "cost") else (), i))


def survivors(validation: Mapping[int, float | None], grid: Sequence, eta: int = ETA) -> list[int]:
    """The grid indices kept after a rung of ``len(validation)`` candidates: the best ``ceil(n / eta)``
    (at least 1) of :func:`ranked`, in grid order; a failed fit never survives, so fewer survive when
    fewer were fitted."""
    keep = max(1, math.ceil(len(validation) / eta))
    return sorted(ranked(validation, grid)[:keep])


# ----------------------------------------------------------------------------- the protocol
def run_halving(dataset: str, X_train, y_train, X_test, gate: TestGate, grid: Sequence[Candidate], seed: int, *,
                image_shape, sizes: Sequence[tuple[int, int]], eta: int = ETA,
                build: Callable[[Candidate, tuple, int], Any] = build_model, cache: str | None = None,
                load_started: Sequence[float] | None = None) -> dict:
    """The halving protocol for one dataset and seed (see the module).

    X_train (N, H·W·C), y_train (N,): the training rows; X_test (M, H·W·C): the test images (their labels
    only in ``gate``); ``sizes``: [(fit rows, validation rows)] per rung (:func:`rung_sizes`);
    ``build(candidate, image_shape, seed)``: an unfitted model with ``fit`` and ``predict`` (default
    :func:`~greenelm_book.chapters.frontier_protocol.build_model`). A fit that fails (``LinAlgError``,
    ``MemoryError``) is recorded with its error and never survives. ``cache``: a name for the data; each
    rung's fit of each candidate is then memoised, so a stopped run resumes. ``load_started``: the load
    averages read before the run's own work began (before its data was loaded), what the quiet rule judges;
    default: read here.

    Returns a JSON-able record: dataset, seed, n_train, n_test, "protocol" ("successive halving"), "eta",
    "nesting", "grid" [candidate], "rungs" [{"rung", "n_fit", "n_validation", "fits" [{"index",
    validation_accuracy (%), seconds, info, error}], "survivors" [index], "seconds"}], "pick", "pick_index",
    "tie_rule", "validation_accuracy" (the pick's, at the last rung it ran), "test_accuracy" (%),
    "seconds" {"selection" (every rung's fits), "rungs" [per rung], "refit", "scoring", "total"},
    "selection_fits_read_back", "refit_info", "peak_memory_gb", "load_average", "test_reads", "host" (the
    machine that ran it: :func:`~greenelm_book.bench.host_info`)."""
    from ..bench import host_info, load_average, machine_instance, peak_rss_bytes, reset_peak_rss

    grid, X_train, y_train = checked_run_inputs(dataset, X_train, y_train, X_test, gate, grid, seed)
    rows_per_rung = rung_rows(len(y_train), sizes, int(seed))
    reset_peak_rss()
    load_started = load_average() if load_started is None else list(load_started)
    described = [c.as_dict() if isinstance(c, Candidate) else dict(c) for c in grid]
    alive, rungs, read_back, last = list(range(len(grid))), [], 0, {}
    for rung, (fit_rows, validation_rows) in enumerate(rows_per_rung):
        fits = []
        for index in alive:
            def fit_one(candidate=grid[index], fit_rows=fit_rows, validation_rows=validation_rows):
                return _selection_fit(build, candidate, image_shape, seed, X_train[fit_rows], y_train[fit_rows],
                                      X_train[validation_rows], y_train[validation_rows])

            if cache is None:
                entry = fit_one()
            else:
                from ..store.results_cache import memoize

                entry, info = memoize("frontier-halving-fit", {
                    "data": str(cache), "dataset": dataset, "seed": int(seed), "n_train": int(len(y_train)),
                    "fit_rows": int(len(fit_rows)), "validation_rows": int(len(validation_rows)),
                    "last_fit_rows": int(sizes[-1][0]), "nesting": NESTING,
                    "candidate": json.loads(configuration_key(described[index])), "image_shape": list(image_shape)},
                    fit_one)
                read_back += bool(info.get("cached"))
            fits.append({"index": index, **entry})
        last = {f["index"]: f["validation_accuracy"] for f in fits}
        if all(v is None for v in last.values()):
            raise RuntimeError(f"{dataset}, seed {seed}, rung {rung}: no candidate could be fitted on its "
                               f"{len(fit_rows)} fit rows: " + "; ".join(
                                   f"{configuration_key(described[f['index']])}: {f['error']}" for f in fits))
        final = rung == len(rows_per_rung) - 1
        kept = ranked(last, grid)[:1] if final else survivors(last, grid, eta)
        rungs.append({"rung": rung, "n_fit": int(len(fit_rows)), "n_validation": int(len(validation_rows)),
                      "fits": fits, "survivors": kept, "seconds": float(sum(f["seconds"] for f in fits))})
        alive = kept
        if len(alive) == 1:
            break
    (index,) = alive
    selection = float(sum(r["seconds"] for r in rungs))
    pick = grid[index]
    model, test_accuracy, refit, scoring = refit_and_score(build, pick, image_shape, seed, X_train, y_train, X_test,
                                                           gate, dataset)
    record = {"dataset": dataset, "seed": int(seed), "protocol": "successive halving", "eta": int(eta),
              "nesting": NESTING, "n_train": int(len(y_train)), "n_test": int(len(X_test)),
              "sizes": [[int(f), int(v)] for f, v in sizes], "grid": described, "rungs": rungs,
              "pick": described[index], "pick_index": int(index), "tie_rule": TIE_RULE,
              "validation_accuracy": last[index], "test_accuracy": test_accuracy,
              "seconds": {"selection": selection, "rungs": [r["seconds"] for r in rungs], "refit": refit,
                          "scoring": scoring, "total": selection + refit + scoring},
              "selection_fits_read_back": int(read_back), "refit_info": _info(model),
              "peak_memory_gb": peak_rss_bytes() / GB,
              "load_average": {"started": load_started, "finished": load_average()},
              "test_reads": gate.reads(dataset, int(seed)),
              # read after the timed work: its short GEMM probe times nothing of it; the instance names which
              # machine of that model (frontier_budget.names_one_machine)
              "host": {**host_info(), "instance": machine_instance()}}
    return json.loads(json.dumps(record, allow_nan=False))


# ----------------------------------------------------------------------------- the parameters
def load_halving(path: str | Path | None = None) -> dict:
    """``params/frontier_halving.yml`` checked: {"seeds", "eta", "datasets": {name: {"sizes" [(fit,
    validation)] per rung, "grid" [Candidate], "budget_seconds"}}}; its ``sources`` (each setting's published
    sources) are read by the page (:func:`~greenelm_book.chapters.frontier_sections.load_sources`)."""
    import yaml

    path = Path(path or HALVING_PARAMS)
    data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    unknown = sorted(set(data) - {"seeds", "eta", "datasets", "sources"})   # sources: read by the page
    if unknown:
        raise ValueError(f"{path}: unknown key(s) {unknown} (have seeds, eta, datasets, sources)")
    seeds = data.get("seeds")
    if not isinstance(seeds, list) or not seeds or len(set(seeds)) != len(seeds) \
            or not all(isinstance(s, int) and not isinstance(s, bool) for s in seeds):
        raise ValueError(f"{path}: seeds must be a list of distinct integers, got {seeds!r}")
    eta = data.get("eta", ETA)
    datasets = {}
    for name, spec in (data.get("datasets") or {}).items():
        unknown = sorted(set(spec) - {"last_fit", "last_validation", "n_rungs", "budget_seconds", "defaults",
                                      "grid"})
        if unknown:
            raise ValueError(f"{path}: datasets.{name} has unknown key(s) {unknown}")
        missing = sorted({"last_fit", "last_validation", "n_rungs", "grid"} - set(spec))
        if missing:
            raise ValueError(f"{path}: datasets.{name} lacks {missing}")
        datasets[str(name)] = {"sizes": rung_sizes(spec["last_fit"], spec["last_validation"], spec["n_rungs"], eta),
                               "grid": expand_grid(spec["grid"], spec.get("defaults")),
                               "budget_seconds": spec.get("budget_seconds")}
    if not datasets:
        raise ValueError(f"{path}: no datasets")
    return {"seeds": seeds, "eta": int(eta), "datasets": datasets}


# ----------------------------------------------------------------------------- the cost plan
def _patch_positions(image_shape, candidate) -> int:
    height, width = image_shape[:2]
    return (height - candidate.patch_size + 1) * (width - candidate.patch_size + 1)


def fit_flops(candidate: Candidate, n_fit: int, n_scored: int, image_shape) -> dict[str, float]:
    """The work of fitting ``candidate`` on ``n_fit`` rows and predicting ``n_scored`` rows, in five
    kinds, each counted in FLOPs (a kind a variant does not do is left out): {"features": the patch map
    of every image view (a whitened p×p×C patch at each position against K atoms), "products": the dense
    products (the limit's kernel blocks, V² view pairs or V for a symmetric flip; the stacked map's
    hidden layer and Gram), "elementwise": the limit's kernel entries passed through the arc-cosine
    transform (counted in entries: each view pair's blocks, once per composition), "factorisations":
    Cholesky factorisations (the limit's one per jitter on its inner split and one at the chosen
    jitter), "decompositions": the readouts' GCV decompositions (the plain readout's of its rows × F
    features, rows·F·min(rows, F); the stacked one's d × d)}."""
    c, n, m = candidate, float(n_fit), float(n_scored)
    channels = image_shape[2] if len(image_shape) > 2 else 1
    patch = c.patch_size ** 2 * channels
    views, width = c.n_views, float(c.n_features)
    features = 2.0 * _patch_positions(image_shape, c) * patch * (c.n_patches + patch) * (n * views + m)
    if c.variant == "limit":
        pairs = views if (c.symmetric and c.views == ("flip",)) else views ** 2
        products = pairs * (n * n * width + 2.0 * n * m * width)
        elementwise = c.depth * pairs * (n * n + n * m)
        if len(c.ridge) > 1:
            n_validation = min(INNER_VALIDATION_ROWS, max(1, math.ceil(0.2 * n)))
            inner = min(INNER_FIT_ROWS, n - n_validation)
            factorisations = len(c.ridge) * inner ** 3 / 3.0 + n ** 3 / 3.0
        else:
            factorisations = n ** 3 / 3.0
        return {"features": features, "products": products, "elementwise": elementwise,
                "factorisations": factorisations}
    rows = n * views
    if c.variant == "stacked":
        hidden = float(c.n_hidden)
        return {"features": features, "products": 2.0 * (rows + m) * width * hidden + rows * hidden ** 2,
                "decompositions": hidden ** 3}
    return {"features": features, "decompositions": rows * width * min(rows, width)}


#: the kinds of work of :func:`fit_flops`, each with its own calibrated rate
_KINDS = ("features", "products", "elementwise", "factorisations", "decompositions")


def record_fits(records: Sequence[Mapping]) -> list[dict]:
    """Every measured fit of the earlier protocol's records ([{"candidate", "n_fit", "n_scored",
    "image_shape", "seconds"}]): each selection fit (its fit and validation rows) and each refit
    with its scoring (all training rows, the test images)."""
    from .frontier_features import IMAGE_SHAPES

    out = []
    for record in records:
        if record.get("subset") is not None:
            continue
        shape = IMAGE_SHAPES[record["dataset"]][0]
        for row in record["grid"]:
            if row["validation_accuracy"] is not None:
                out.append({"candidate": Candidate.from_dict(row["candidate"]), "n_fit": record["n_fit"],
                            "n_scored": record["n_validation"], "image_shape": shape, "seconds": row["seconds"]})
        out.append({"candidate": Candidate.from_dict(record["pick"]), "n_fit": record["n_train"],
                    "n_scored": record["n_test"], "image_shape": shape,
                    "seconds": record["seconds"]["refit"] + record["seconds"]["scoring"]})
    return out


def calibrate(records: Sequence[Mapping]) -> dict:
    """Seconds per FLOP of each kind of :func:`fit_flops`, fitted to the earlier protocol's measured
    seconds by non-negative least squares on *relative* errors (each fit weighted by 1/its seconds, so a
    short fit counts as much as a long one): {"seconds_per_gflop": {kind: s}, "n_fits", "relative_error":
    {"median", "max"}} (the fits' |predicted / measured - 1|)."""
    from scipy.optimize import nnls

    fits = record_fits(records)
    if len(fits) < len(_KINDS):
        raise ValueError(f"calibrating {len(_KINDS)} rates needs at least {len(_KINDS)} measured fits, got {len(fits)}")
    A = np.array([[fit_flops(f["candidate"], f["n_fit"], f["n_scored"], f["image_shape"]).get(k, 0.0) / 1e9
                   for k in _KINDS] for f in fits])
    seconds = np.array([f["seconds"] for f in fits], dtype=float)
    rates, _ = nnls(A / seconds[:, None], np.ones(len(fits)))
    errors = np.abs(A @ rates / seconds - 1)
    return {"seconds_per_gflop": dict(zip(_KINDS, map(float, rates))), "n_fits": len(fits),
            "relative_error": {"median": float(np.median(errors)), "max": float(errors.max())}}


def earlier_records(folder: str | Path = RUNS_DIR) -> list[dict]:
    """The earlier protocol's per-seed records (``<dataset>-seed<k>.json`` with a grid of selection fits)."""
    out = []
    for path in sorted(Path(folder).glob("*-seed*.json")):
        record = json.loads(path.read_text(encoding="utf-8"))
        if isinstance(record.get("grid"), list) and "n_fit" in record and "pick" in record:
            out.append(record)
    return out


def predicted_seconds(candidate: Candidate, n_fit: int, n_scored: int, image_shape,
                      rates: Mapping[str, float]) -> float:
    """Seconds of one fit and prediction at the calibrated ``rates`` (seconds per GFLOP of each kind)."""
    work = fit_flops(candidate, n_fit, n_scored, image_shape)
    return float(sum(work[k] / 1e9 * rates[k] for k in work))


def limit_refit_bytes(candidate: Candidate, n_train: int) -> int:
    """Bytes a limit candidate's refit on ``n_train`` rows allocates beyond its input
    (:func:`greenelm.kernel_limit.fit_memory`: the N × N kernel, the kept views' training rows, the
    held-out choice of its jitter), counted as the estimator's own memory check counts them (every view's
    rows, and a symmetric map's first view kept beside them), so the plan never promises less than the
    refit will ask for."""
    from greenelm.kernel_limit import fit_memory

    c, n = candidate, int(n_train)
    n_validation = min(INNER_VALIDATION_ROWS, max(1, math.ceil(0.2 * n))) if len(c.ridge) > 1 else 0
    n_fit = min(INNER_FIT_ROWS, n - n_validation) if n_validation else 0
    return int(sum(fit_memory(n, c.n_features, c.n_views, 10, n_fit=n_fit, n_validation=n_validation,
                              symmetric_views=bool(c.symmetric) and c.n_views > 1).values()))


def cost_plan(grid: Sequence[Candidate], sizes: Sequence[tuple[int, int]], n_train: int, n_test: int, image_shape,
              rates: Mapping[str, float], eta: int = ETA) -> dict:
    """The protocol's predicted seconds for one seed, at the worst case (the costliest candidates
    survive every cut, the costliest is picked): {"rungs" [{"n_fit", "n_validation", "n_candidates",
    "seconds"}], "refit", "scoring", "total", "refit_memory_gb" (the largest limit refit's allocations,
    :func:`limit_refit_bytes`)}. Rung r has the survivors of rung r - 1 (each cut keeps
    ``ceil(n / eta)``); it stops, as :func:`run_halving` does, once one candidate is left."""
    grid = list(grid)
    rungs, alive = [], len(grid)
    for r, (n_fit, n_validation) in enumerate(sizes):
        costs = sorted((predicted_seconds(c, n_fit, n_validation, image_shape, rates) for c in grid), reverse=True)
        rungs.append({"n_fit": int(n_fit), "n_validation": int(n_validation), "n_candidates": alive,
                      "seconds": float(sum(costs[:alive]))})
        alive = 1 if r == len(sizes) - 1 else max(1, math.ceil(alive / eta))
        if alive == 1:
            break
    refits = [(predicted_seconds(c, n_train, 0, image_shape, rates),
               predicted_seconds(c, n_train, n_test, image_shape, rates)) for c in grid]
    refit, with_scoring = max(refits, key=lambda pair: pair[1])
    plan = {"rungs": rungs, "refit": refit, "scoring": with_scoring - refit,
            "refit_memory_gb": max((limit_refit_bytes(c, n_train) / GB for c in grid if c.variant == "limit"),
                                   default=0.0)}
    plan["total"] = float(sum(r["seconds"] for r in rungs) + with_scoring)
    return plan


def plan_text(params: str | Path | None = None, records_dir: str | Path = RUNS_DIR) -> str:
    """The cost plan of every dataset of the halving parameters, as lines of text (nothing is fitted)."""
    from .frontier_features import IMAGE_SHAPES

    spec = load_halving(params)
    calibration = calibrate(earlier_records(records_dir))
    rates = calibration["seconds_per_gflop"]
    lines = [f"cost model: seconds per GFLOP {', '.join(f'{k} {v:.4g}' for k, v in rates.items())}, calibrated on "
             f"{calibration['n_fits']} measured fits of {records_dir} (relative error median "
             f"{calibration['relative_error']['median']:.0%}, max {calibration['relative_error']['max']:.0%})"]
    for dataset, entry in spec["datasets"].items():
        n_train, n_test = TRAIN_TEST_ROWS[dataset]
        plan = cost_plan(entry["grid"], entry["sizes"], n_train, n_test, IMAGE_SHAPES[dataset][0], rates, spec["eta"])
        budget = entry["budget_seconds"]
        lines.append(f"{dataset}: {len(entry['grid'])} candidates, eta {spec['eta']}; predicted (worst case) "
                     f"{plan['total']:.0f} s per seed" + (f" (budget {budget} s)" if budget else ""))
        for r, rung in enumerate(plan["rungs"]):
            lines.append(f"  rung {r}: {rung['n_candidates']} candidates x ({rung['n_fit']} fit, "
                         f"{rung['n_validation']} validation rows): {rung['seconds']:.0f} s")
        lines.append(f"  refit on {n_train} rows: {plan['refit']:.0f} s; scoring {n_test} test images: "
                     f"{plan['scoring']:.0f} s; the largest limit refit allocates "
                     f"{plan['refit_memory_gb']:.1f} GB")
    return "\n".join(lines)


#: (training rows, test rows) of each dataset: the plan's sizes without loading the data
TRAIN_TEST_ROWS = {"mnist": (60_000, 10_000), "fashion-mnist": (60_000, 10_000), "cifar10": (50_000, 10_000)}


# ----------------------------------------------------------------------------- the runs
def run_and_record_halving(dataset: str, seeds: Sequence[int], *, out_dir: str | Path = HALVING_DIR,
                           params: str | Path | None = None, subset: int | None = None, build: Callable = build_model,
                           log: Callable[[str], None] = print) -> list[Path]:
    """The halving protocol for ``dataset``, one seed at a time, each record written (atomically) to
    ``out_dir/<dataset>-seed<seed>.json``, the test reads to ``out_dir/test-reads.json`` (this protocol's
    own ledger). A recorded seed is skipped; a stopped seed resumes from its memoised fits. The first seed's
    load averages are read before the data is loaded; a later seed's, when it starts (after the previous
    seed's run, so not quiet: run one seed per call, after the quiet gate, to time it)."""
    from .frontier_features import IMAGE_SHAPES

    from ..bench import load_average

    spec = load_halving(params)
    if dataset not in spec["datasets"]:
        raise KeyError(f"{dataset!r} has no grid in the halving parameters (have {sorted(spec['datasets'])})")
    entry = spec["datasets"][dataset]
    before_data = load_average()        # the first seed's load, read before this process loads anything
    X_train, y_train, X_test, y_test = protocol_data(dataset, subset)
    gate = TestGate({dataset: y_test}, ledger=Path(out_dir) / "test-reads.json")
    del y_test
    sizes = entry["sizes"]
    if subset is not None:                  # the rungs scaled into the subset, for a smoke run
        scale = min(1.0, 0.9 * len(y_train) / (sizes[-1][0] + sizes[-1][1]))
        sizes = [(max(1, int(f * scale)), max(1, int(v * scale))) for f, v in sizes]
    written, ran = [], False
    for seed in seeds:
        path = seed_record_path(out_dir, dataset, seed)
        if path.exists():
            log(f"{dataset}, seed {seed}: recorded already ({path}), skipped")
            written.append(path)
            continue
        log(f"{dataset}, seed {seed}: {len(entry['grid'])} candidates over rungs {sizes}, then the refit")
        record = run_halving(dataset, X_train, y_train, X_test, gate, entry["grid"], int(seed),
                             image_shape=IMAGE_SHAPES[dataset][0], sizes=sizes, eta=spec["eta"], build=build,
                             cache=f"{dataset}, {'all rows' if subset is None else f'first {subset} rows'}",
                             load_started=None if ran else before_data)
        ran = True
        record["subset"] = subset
        _write_json_atomically(path, record)
        log(f"{dataset}, seed {seed}: test {record['test_accuracy']:.2f} %, "
            f"{record['seconds']['total']:.0f} s -> {path}")
        written.append(path)
    return written


def main(argv: Sequence[str] | None = None) -> None:
    """``python -m greenelm_book.chapters.frontier_halving --dataset mnist --seed 0 [--seed 1 ...] [--subset N]
    [--out DIR] [--params FILE]``: :func:`run_and_record_halving` (records in ``book/frontier_halving/``);
    ``--plan`` prints the cost plan of every dataset (:func:`plan_text`) and fits nothing. Run a protocol
    alone on the machine, under the run lock, in the background:
    ``flock /tmp/greenelm-run.lock python -m greenelm_book.chapters.frontier_halving ...``."""
    import argparse

    parser = argparse.ArgumentParser(prog="python -m greenelm_book.chapters.frontier_halving",
                                     description="the frontier's protocol by successive halving, one (dataset, "
                                                 "seed) record at a time")
    parser.add_argument("--plan", action="store_true", help="print the predicted seconds per rung; fit nothing")
    parser.add_argument("--dataset", default=None, help="required unless --plan")
    parser.add_argument("--seed", type=int, action="append", default=None, help="repeat for several seeds")
    parser.add_argument("--subset", type=int, default=None, help="first N rows of each split (default: all)")
    parser.add_argument("--out", default=str(HALVING_DIR), help=f"records and ledger (default {HALVING_DIR})")
    parser.add_argument("--params", default=None, help=f"the protocol's parameters (default {HALVING_PARAMS})")
    args = parser.parse_args(argv)
    if args.plan:
        print(plan_text(args.params))
        return
    if args.dataset is None or not args.seed:
        parser.error("--dataset and at least one --seed are required (or --plan)")
    started = time.perf_counter()
    run_and_record_halving(args.dataset, args.seed, out_dir=args.out, params=args.params, subset=args.subset,
                           log=lambda message: print(f"[{time.perf_counter() - started:7.0f} s] {message}",
                                                     flush=True))


if __name__ == "__main__":
    main()


__all__ = ["ETA", "HALVING_DIR", "HALVING_PARAMS", "NESTING", "TRAIN_TEST_ROWS", "calibrate", "cost_plan",
           "earlier_records", "fit_flops", "limit_refit_bytes", "load_halving", "main", "plan_text",
           "predicted_seconds", "ranked", "record_fits", "rung_rows", "rung_sizes", "run_and_record_halving",
           "run_halving", "survivors"]
