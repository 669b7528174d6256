"""The book's uniform judgement of every stored answer: each claim re-judged by one named test of
:mod:`greenelm_book.judging.verdicts`, applied to the runs its chapter stored, after comparability.

A chapter records its answer at execution (its verdict, and the result keys it rests on); this
module judges the claim again from those results alone, recomputing nothing: numbers against the
paper by :func:`~greenelm_book.judging.verdicts.value_vs_paper` (or a difference, a ratio across machines,
a timing), the qualitative claims whose test is shared by :data:`CLAIM_TESTS`, and the others by the
chapter's own stated test (``chapter_test``) as recorded. Evidence that is not comparable
(:mod:`greenelm_book.judging.comparability`) makes the claim "not comparable", with the difference for
information. A claim about the book's own measurements compared with each other
(:data:`OWN_MEASUREMENTS`: the shape of its curves, its solvers' ranking, its conditioning, its
scaling in N) is judged on every dataset the book measured, raw-pixel CIFAR-10 included, whatever
the paper's setting for that dataset; parallel claims share one test (:data:`CLAIM_TESTS`). A claim's
first key is its primary evidence: when it is not comparable, neither is the claim.

Four rules keep a verdict no stronger than its evidence: the quiet rule for timings, and three more. A claim that states a setting, a
definition or what the paper's code does (:data:`NOT_FINDINGS`) and a claim about a device the book
does not have (:data:`DEVICE_CLAIMS`) are "not measurable here", whatever the chapter recorded; a
point measured on one seed cannot decide alone (the seeds rule,
:func:`~greenelm_book.judging.verdicts.seeds_rule`, :data:`SEEDED_CHAPTER_TESTS` and the curves'
shape tests); which weight scale lies behind the paper's accuracies is a paired test over the same
Table I rows (:func:`~greenelm_book.judging.verdicts.closer_paired`).
Every judgement then passes through :func:`bound_by_evidence`
(:func:`~greenelm_book.judging.verdicts.evidence_bound`), one function for the three rules that bound it:
the seeds rule on any result that records fewer draws, the quiet rule on the timings of
:data:`TIMED_CLAIMS`, and "not comparable" where a claim about the book's own curves rests on a result not
measured in the paper's setting.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field, replace

from . import verdicts as V
from .comparability import comparability as _comparability, is_quiet_timing
from ..paper import CLAIMS, FIG_SCALING_BASELINES, TABLE_I, TABLE_IV, dataset_name
from ..report import Verdict, not_comparable
from ..store.results import Answer

__all__ = ["Judgement", "judge_claim", "scorecard_verdict", "answer_as_scorecard", "shared_verdict", "CLAIM_TESTS",
           "OWN_PARITY_BASELINE", "OWN_MEASUREMENTS", "own_parity_keys", "scorecard_test", "judgement_words",
           "conditioning_reductions", "conditioning_verdict", "CONDITIONING_GAIN", "linear_in_n_verdict", "LINEAR_BAND",
           "PARALLEL", "parallel_groups", "claim_wording", "mixed_tests", "NOT_JUDGED", "bound_by_evidence", "draws_of",
           "ONE_DRAW_CLAIMS", "TIMED_CLAIMS", "ADDED_EVIDENCE", "ADDED_NEEDS", "SCOPE", "with_added_evidence", "UNTESTED_PARTS",
           "rule_of"]

QUALITATIVE = ("holds", "partly holds", "does not hold")


@dataclass(frozen=True)
class Judgement:
    """One claim's judgement: the verdict, the named test that gave it (one of
    :data:`greenelm_book.judging.verdicts.TESTS`) and the result keys it used."""

    verdict: Verdict
    test: str
    keys: tuple = ()
    values: tuple = field(default=(), compare=False)     # the runs of each key used, for uniqueness


#: the clause a chapter-test verdict gains when some of its evidence is not comparable (added once)
PARTLY_NOT_COMPARABLE = "rests partly on evidence not comparable to the paper's"

def _digits(text: str, default: int = 2) -> int:
    """Decimals of the first number in ``text`` ("95.95 ± 0.13 %" -> 2), to show ours as the chapter did."""
    match = re.search(r"\d+\.(\d+)", text or "")
    return len(match.group(1)) if match else default


def _dataset(key: str) -> str:
    return key.split("/", 1)[0]


def _not_comparable(claim, answer, results, keys, why: str = "") -> Judgement:
    """"not comparable": the reasons of the keys, and (for a number) the difference for information."""
    judged = [_comparability(k, claim.chapter) for k in keys]
    reasons = list(dict.fromkeys(c.reason for c in judged if not c.comparable))
    reason = "; ".join(reasons) + (f" ({why})" if why else "")
    first = results[keys[0]]
    if claim.value is not None and claim.kind != "qualitative" and claim.unit == first.unit.replace("pts", "points"):
        verdict = not_comparable(reason, claim.value, first.values, claim.unit, _digits(answer.verdict.ours))
    else:
        recorded = answer.verdict
        info = (f"; for information, the chapter's test gives {recorded.label} ({recorded.detail})"
                if recorded.label in QUALITATIVE else "")
        verdict = Verdict("not comparable", recorded.ours, reason + info)
    return Judgement(verdict, "not_comparable", tuple(keys), tuple(results[k].values for k in keys))


def _point_name(key: str) -> str:
    """A stored point in words: "mnist/green-elm/unit/cholesky/ln-d-fit/held-out-error" → "MNIST, ln d
    fit, held-out error"."""
    parts = key.split("/")
    return ", ".join([dataset_name(parts[0])] + [p.replace("ln-d", "ln d").replace("-", " ") for p in parts[-2:]])


def _needs_all(keys, results):
    """The keys a comparison needs; ``None`` when one is missing from the store."""
    return None if any(k not in results for k in keys) else list(keys)


def _judged(verdict: Verdict, test: str, keys, results) -> Judgement:
    return Judgement(verdict, test, tuple(keys), tuple(results[k].values for k in keys))


# ------------------------------------------------------------------ claim-specific shared tests
def _equivalence(claim, answer, results):
    a, b = answer.keys[:2]
    verdict = V.equivalent_accuracy(results[a].values, results[b].values, names=("Green-ELM", "SGD"))
    return verdict, [a, b], "equivalent_accuracy"


#: the book's own gradient-trained baseline of each dataset, of the kind the paper's scaling figure
#: draws as its dashed line (an SGD MLP for MNIST and Fashion-MNIST, a CNN for CIFAR-10; the
#: baselines chapter's runs, on the same raw pixels as the scaling chapter's curves)
OWN_PARITY_BASELINE = {"mnist": "mnist/sgd-mlp/accuracy", "fashion-mnist": "fashion-mnist/sgd-mlp/accuracy",
                       "cifar10": "cifar10/sgd-cnn/accuracy"}
#: claims about the book's own measurements compared with each other (or with its own baselines),
#: not with a number of the paper: judged on every dataset the book measured, whatever the paper's
#: setting for that dataset was
OWN_MEASUREMENTS = {"predictable_path_to_parity", "slope_inverse_to_complexity", "mnist_alpha_high_others_dampened",
                    "scaling_slopes_diverge", "d_correlates_with_separability", "diminishing_returns",
                    "table4_stability_ranking", "tikhonov_improves_conditioning", "total_cost_linear_in_n"}


def own_parity_keys(keys) -> list:
    """The result keys of the book's own baselines that ``keys`` (accuracies, one per dataset) are
    judged against for the path to parity (:data:`OWN_PARITY_BASELINE`)."""
    return [OWN_PARITY_BASELINE[_dataset(k)] for k in keys if _dataset(k) in OWN_PARITY_BASELINE]


def _path_to_parity(claim, answer, results):
    """Parity with gradient-based methods, on every dataset measured, against the book's own
    baselines (:data:`OWN_PARITY_BASELINE`) by non-inferiority at ±1 point; the figure's dashed line
    only where the store lacks one of the book's baselines."""
    own = {_dataset(k): OWN_PARITY_BASELINE.get(_dataset(k)) for k in answer.keys}
    if all(key in results for key in own.values()):
        pairs = {_dataset(k): (results[k].values, results[own[_dataset(k)]].values) for k in answer.keys}
        used = list(answer.keys) + list(own.values())
        if min(len(v) for pair in pairs.values() for v in pair) < 2:
            return (Verdict(V.ladder_label("test", enough=False, outcomes=()), "",
                            "non-inferiority needs at least 2 runs on each side"), used, "reaches_within_margin")
        verdict = V.reaches_within_margin(pairs, what="book's own gradient-trained baseline (an SGD MLP; on "
                                                      "CIFAR-10 a CNN, as the paper's figure)")
        return verdict, used, "reaches_within_margin"
    keys = [k for k in answer.keys if _comparability(k, claim.chapter).comparable]
    limits = {_dataset(k): results[k].values for k in keys}
    verdict = V.reaches_reference(limits, FIG_SCALING_BASELINES, "figure's SGD baseline") if limits else None
    dropped = [k for k in answer.keys if k not in keys]
    if verdict is not None and dropped:
        verdict = Verdict(verdict.label, verdict.ours, f"{verdict.detail}; the book's own baselines are not all "
                          f"stored, so judged against the figure's line on the comparable datasets "
                          f"({', '.join(dataset_name(_dataset(k)) for k in dropped)} not comparable: "
                          f"{_comparability(dropped[0], claim.chapter).reason})")
    return verdict, keys, "reaches_reference"


def _flatter_everywhere(claim, answer, results):
    """Flatter than MNIST on every other dataset the chapter measured (CIFAR-10 on raw pixels
    included: the claim orders the book's own slopes, it compares no number with the paper's)."""
    slopes = {_dataset(k): results[k].values for k in answer.keys}
    if len(slopes) < 2 or "mnist" not in slopes:
        return None, list(answer.keys), "flatter_than_anchor"
    return V.flatter_than_anchor(slopes, "mnist"), list(answer.keys), "flatter_than_anchor"


def _dampened(claim, answer, results):
    """"C > 1 dampens the curves" on every non-anchor dataset measured: each one's per-seed C
    (Algorithm 2, anchor MNIST, whose C is 1 by construction) has a 95 % CI above 1."""
    values = {_dataset(k): results[k].values for k in answer.keys if _dataset(k) != "mnist"}
    if not values:
        return None, list(answer.keys), "mean_beyond_bound"
    return V.mean_beyond_bound(values, 1.0, "above", what="C"), list(answer.keys), "mean_beyond_bound"


def _above_95(claim, answer, results):
    key = answer.keys[0]
    return V.above_threshold(results[key].values, 95.0), [key], "above_threshold"


def _rises(claim, answer, results):
    curves: dict = {}
    for key in answer.keys:
        curves.setdefault(_dataset(key), []).append(results[key].values)
    return V.rises_at_every_step(curves), list(answer.keys), "rises_at_every_step"


def _curves(claim, answer, results):
    """Every key of an answer, grouped by dataset in their stored (width) order: a claim about the
    shape of the book's own curves is judged on every dataset measured (:data:`OWN_MEASUREMENTS`)."""
    curves = {}
    for key in answer.keys:
        curves.setdefault(_dataset(key), []).append(results[key].values)
    return curves, list(answer.keys)


def _rises_throughout(claim, answer, results):
    """Rises with every widening, under the seeds rule (a one-seed width cannot decide alone)."""
    curves, used = _curves(claim, answer, results)
    if not curves:
        return None, used, "rises_throughout"
    verdict = V.rises_throughout_seeded(curves)
    return verdict, used, ("seeds_rule" if verdict != V.rises_throughout(curves) else "rises_throughout")


def _gains_shrink(claim, answer, results):
    """Each widening gains less, under the seeds rule (a one-seed width cannot decide alone)."""
    curves, used = _curves(claim, answer, results)
    if not curves:
        return None, used, "gains_shrink"
    verdict = V.gains_shrink_seeded(curves)
    return verdict, used, ("seeds_rule" if verdict != V.gains_shrink(curves) else "gains_shrink")


def _scale_rows(keys, results, closer: str, other: str):
    """``(gaps_closer, gaps_other, rows)``: ours − the paper's Table I accuracy per Green-ELM row of
    Table I where both weight scales ran (keys ``{dataset}/green-elm/{scale}/{solver}/d={d}/accuracy``;
    the λ = 1e-3 Cholesky runs stand for LU and Cholesky rows), the same rows for both scales."""
    gaps_a, gaps_b, rows = [], [], []
    for row in TABLE_I[TABLE_I.solver != "sgd"].itertuples():
        solver = "pinv" if row.solver == "pinv" else "cholesky"
        a, b = (f"{row.dataset}/green-elm/{scale}/{solver}/d={row.n_hidden}/accuracy" for scale in (closer, other))
        if a in keys and b in keys and a in results and b in results:
            gaps_a.append(float(sum(results[a].values) / len(results[a].values)) - row.accuracy)
            gaps_b.append(float(sum(results[b].values) / len(results[b].values)) - row.accuracy)
            rows.append(f"{dataset_name(row.dataset)} {row.solver} d = {row.n_hidden}")
    return gaps_a, gaps_b, rows


#: the weight scale each claim says is behind the paper's accuracies, and the other
_SCALES = {"weight_scale_unit": ("unit", "he"), "weight_scale_he": ("he", "unit")}
_SCALE_NAMES = {"unit": "N(0, 1)", "he": "N(0, 2/D)"}


def _closer_scale(claim, answer, results):
    """The scale claimed lies closer to Table I's Green-ELM accuracies than the other, paired over
    the rows where both ran (:func:`~greenelm_book.judging.verdicts.closer_paired`)."""
    closer, other = _SCALES[claim.id]
    gaps_a, gaps_b, rows = _scale_rows(set(answer.keys), results, closer, other)
    if not rows:
        return None, list(answer.keys), "closer_paired"
    verdict = V.closer_paired(gaps_a, gaps_b, names=(_SCALE_NAMES[closer], _SCALE_NAMES[other]))
    verdict = Verdict(verdict.label, verdict.ours, f"{verdict.detail} ({'; '.join(rows)})")
    return verdict, list(answer.keys), "closer_paired"


#: the book's own SGD MLP of a dataset (the baselines chapter), what "reaches SGD" is judged against
OWN_SGD_KEY = "{dataset}/sgd-mlp/accuracy"


def _reaches_sgd(claim, answer, results):
    """What SGD reaches is judged against the book's own SGD MLP runs where the store has them on
    every dataset (non-inferiority, ±1 point), else against the paper's Table I values."""
    own = {_dataset(k): OWN_SGD_KEY.format(dataset=_dataset(k)) for k in answer.keys}
    if all(key in results for key in own.values()):
        pairs = {_dataset(k): (results[k].values, results[own[_dataset(k)]].values) for k in answer.keys}
        verdict = V.reaches_within_margin(pairs, what="book's own SGD MLP (baselines chapter)")
        return verdict, list(answer.keys) + list(own.values()), "reaches_within_margin"
    sgd = TABLE_I[TABLE_I.solver == "sgd"].set_index("dataset")["accuracy"].to_dict()
    values = {_dataset(k): results[k].values for k in answer.keys}
    return V.reaches_reference(values, sgd, "paper's SGD MLP (Table I)"), list(answer.keys), "reaches_reference"


def _stability_ranking(claim, answer, results):
    """pinv < LU < Cholesky in perturbation amplification, in every rank-deficient regime the chapter
    measured (its keys: per regime, pinv, LU, Cholesky), paired by seed."""
    chains: dict = {}
    for key in answer.keys:
        regime = results[key].setting.get("regime") or re.search(r"rank-deficient=([^/]+)", key).group(1)
        chains.setdefault(regime, []).append(results[key].values)
    verdict = V.ranks_in_order(chains, ("pinv", "LU", "Cholesky"), what="amplification of a 1e-8 perturbation of H")
    return verdict, list(answer.keys), "ranks_in_order"


#: "improves the conditioning": λ lowers κ(HᵀH) at least this many times (an order of magnitude)
CONDITIONING_GAIN = 10.0


def conditioning_reductions(keys, results: dict) -> dict:
    """``{dataset: [κ(G) / κ(G + λI) per width]}`` from the stored ``…/ridge-condition-number`` ``keys``
    (κ(G + λI), its setting's ``alpha``) and the ``…/smallest-eigenvalue`` beside each (the largest
    eigenvalue is κ(G + λI)·(s_min + λ) − λ); unbounded (inf) where G is numerically singular
    (s_min ≤ 0). An error naming a missing key."""
    factors: dict = {}
    for key in keys:
        smallest_key = key.replace("ridge-condition-number", "smallest-eigenvalue")
        if key not in results or smallest_key not in results:
            raise KeyError(f"the conditioning test needs {key} and {smallest_key} in the store")
        kappa_ridge, smallest = results[key].values[0], results[smallest_key].values[0]
        alpha = float(results[key].setting["alpha"])
        largest = kappa_ridge * (smallest + alpha) - alpha
        factors.setdefault(_dataset(key), []).append(math.inf if smallest <= 0 else largest / smallest / kappa_ridge)
    return factors


def conditioning_verdict(keys, results: dict) -> Verdict:
    """"λ improves the conditioning" on every dataset measured (:func:`conditioning_reductions`,
    :func:`~greenelm_book.judging.verdicts.reaches_somewhere` at :data:`CONDITIONING_GAIN`)."""
    return V.reaches_somewhere(conditioning_reductions(keys, results), CONDITIONING_GAIN,
                               what="reduction κ(G) / κ(G + λI)")


def _conditioning(claim, answer, results):
    """λ lowers κ(HᵀH) at least tenfold at some measured width, on every dataset the chapter measured."""
    used = list(answer.keys) + [k.replace("ridge-condition-number", "smallest-eigenvalue") for k in answer.keys]
    if any(k not in results for k in used):
        return None, list(answer.keys), "reaches_somewhere"
    return conditioning_verdict(answer.keys, results), used, "reaches_somewhere"


#: "linear in N": the band of the exponent p of CPU time ∝ N^p (a fitted parameter's 10 % margin)
LINEAR_BAND = (0.9, 1.1)


def linear_in_n_verdict(keys, results: dict) -> Verdict:
    """"Total cost linear in N": CPU time ∝ N^p with p's 95 % CI within :data:`LINEAR_BAND`
    (:func:`~greenelm_book.judging.verdicts.exponent_within`), every stored value of the
    ``…/n=<N>/cpu-seconds-per-million`` ``keys`` a point (CPU seconds = value · N / 10⁶)."""
    sizes, cpu = [], []
    for key in keys:
        n = int(re.search(r"/n=(\d+)/", key).group(1))
        for value in results[key].values:
            sizes.append(n)
            cpu.append(value * n / 1e6)
    return V.exponent_within(sizes, cpu, LINEAR_BAND, what="exponent p of CPU time ∝ N^p")


def _linear_in_n(claim, answer, results):
    """CPU time ∝ N^p, p's 95 % CI within :data:`LINEAR_BAND` (:func:`linear_in_n_verdict`)."""
    keys = [k for k in answer.keys if k.endswith("/cpu-seconds-per-million")]
    if len({re.search(r"/n=(\d+)/", k).group(1) for k in keys}) < 3:
        return None, keys, "exponent_within"
    return linear_in_n_verdict(keys, results), keys, "exponent_within"


def _pinv_behind_sgd(claim, answer, results):
    a, b = answer.keys[:2]
    verdict = V.same_machine_ratio(results[a].values, results[b].values, claimed="above",
                                   what="pinv / SGD time")
    return verdict, [a, b], "same_machine_ratio"


#: qualitative claims judged by a shared test of :mod:`greenelm_book.judging.verdicts`; a function returns
#: ``(verdict or None, keys used, test name)`` (None: nothing comparable left to judge)
CLAIM_TESTS = {
    "abstract_comparable_to_sgd": _equivalence,
    "cifar10_raw_parity_with_sgd": _equivalence,
    "predictable_path_to_parity": _path_to_parity,
    "slope_inverse_to_complexity": _flatter_everywhere,
    "mnist_alpha_high_others_dampened": _dampened,
    "scaling_slopes_diverge": _flatter_everywhere,
    "rotation_clean_comparable": _equivalence,
    "table4_stability_ranking": _stability_ranking,
    "tikhonov_improves_conditioning": _conditioning,
    "total_cost_linear_in_n": _linear_in_n,
    "above_95_single_step": _above_95,
    "feature_learning_not_needed_mnist": _above_95,
    "abstract_untangle_without_backprop": _rises,
    "ultra_wide_relu_sufficient": _reaches_sgd,
    "pinv_d4000_behind_sgd": _pinv_behind_sgd,
    "d_correlates_with_separability": _rises_throughout,
    "diminishing_returns": _gains_shrink,
    "weight_scale_unit": _closer_scale,
    "weight_scale_he": _closer_scale,
}
#: claims that state no outcome to measure (a setting, a definition, what the paper's code does):
#: not findings, so "not measurable here", with what the book checked, never "holds" or "does not hold"
NOT_FINDINGS = {
    "rotation_benchmark_angle": "a setting of the paper's experiment, not a result",
    "table3_c_mnist": "a definition: Algorithm 2 sets the anchor's C to 1",
    "energy_not_measured": "a statement of what the paper did not measure, not a result",
    "bias_uniform": "a statement about the paper's method and code (its text says a uniform bias, its "
                    "Algorithm 1 and listings draw N(0, 1)); the book runs the code's N(0, 1) bias only, "
                    "so no run compares the two laws",
}
#: claims about a device the book does not have: "not measurable here", what was measured on this
#: machine shown for information (one rule for every device claim)
DEVICE_CLAIMS = {
    "edge_ai_viable": "no edge device, low-power sensor or power meter here",
    "listing3_sub_second_updates": "no low-memory embedded device here",
    "streaming_update_cost_b3": "no low-power edge node here",
}
#: claims decided by a chapter test on one draw per dataset: under the seeds rule
#: (:func:`~greenelm_book.judging.verdicts.seeds_rule`) one draw cannot decide alone
SEEDED_CHAPTER_TESTS = ("accuracy_near_logarithmic_in_d", "abstract_scaling_hypothesis")

#: families of parallel claims, the same claim about different datasets or in other words: each
#: family is judged by one test function (:data:`CLAIM_TESTS`), whatever its datasets' settings.
#: Claims worded alike up to datasets and numbers are found by :func:`parallel_groups`; these are the
#: ones worded differently. "Comparable" and "maintains parity" (two accuracies alike: equivalence,
#: TOST at ±1 point) are one family; "reaches parity" and "expressive enough" (ours no more than
#: 1 point below the book's own gradient-trained baseline: non-inferiority, where being ahead is no
#: failure) are another
PARALLEL = {
    "comparable accuracy": ("abstract_comparable_to_sgd", "cifar10_raw_parity_with_sgd", "rotation_clean_comparable"),
    "reaches the book's own SGD": ("predictable_path_to_parity", "ultra_wide_relu_sufficient"),
    "slope against complexity": ("slope_inverse_to_complexity", "scaling_slopes_diverge"),
    "accuracy above 95 %": ("above_95_single_step", "feature_learning_not_needed_mnist"),
}
_DATASET_WORDS = re.compile(r"\b(?:fashion-mnist|mnist|cifar-10|cifar10)\b", re.I)
_NUMBER_WORDS = re.compile(r"[~≈]?\s*[-+−]?\d[\d,]*(?:\.\d+)?\s*(?:%|×|s\b)?")


def claim_wording(statement: str) -> str:
    """A claim's statement with its datasets and numbers left out and any parenthesis dropped: the
    wording two parallel claims share ("Green-ELM (PInv) at d = 500 trains on Fashion-MNIST in 1.00 s"
    → "green-elm at d = trains on in")."""
    text = re.sub(r"\([^()]*\)", " ", statement)
    text = _NUMBER_WORDS.sub(" ", _DATASET_WORDS.sub(" ", text)).lower()
    return " ".join(re.sub(r"[^\w\s=-]", " ", text).split())


def parallel_groups(claims=CLAIMS) -> dict:
    """``{family: claim ids}`` of the parallel claims: :data:`PARALLEL`, and every set of two or more
    claims whose :func:`claim_wording` is the same."""
    groups: dict = {}
    for claim in claims:
        groups.setdefault(claim_wording(claim.statement), []).append(claim.id)
    found = {wording: tuple(ids) for wording, ids in groups.items() if len(ids) > 1}
    return {**found, **PARALLEL}


#: the tests that record rather than judge (a setting that is not comparable, a claim not measurable)
NOT_JUDGED = ("not_comparable", "not_measurable")


def mixed_tests(card, groups=None) -> dict:
    """``{family: {claim: test}}`` for every family of :func:`parallel_groups` whose judged claims
    (scorecard rows ``card`` with a test that judges, not :data:`NOT_JUDGED`) use more than one test."""
    tests = dict(zip(card["claim"], card["test"]))
    out = {}
    for family, ids in (parallel_groups() if groups is None else groups).items():
        judged = {c: tests[c] for c in ids if tests.get(c) and tests[c] not in NOT_JUDGED}
        if len(set(judged.values())) > 1:
            out[family] = judged
    return out


#: a paper's seconds judged as a ratio within its own table: claim -> (denominator claim, paper ratio)
TABLE_RATIOS = {"table4_pinv_d2000_seconds": (
    "table4_lu_d2000_seconds",
    float(TABLE_IV.set_index("solver").loc["pinv", "seconds"] / TABLE_IV.set_index("solver").loc["lu", "seconds"]))}


#: claims whose points are one draw each (one nested draw of W per width, or a fit to such widths): the
#: seeds rule (:func:`~greenelm_book.judging.verdicts.seeds_rule`) keeps one draw from deciding alone
ONE_DRAW_CLAIMS = ("cover_expansion_separability", "tikhonov_improves_conditioning", "ultra_wide_million_dimensions")
#: results that are not draws (no seed to repeat): left out of the seeds rule
UNSEEDED = re.compile(r"arccos-kernel/")
#: claims judged on timings, and the labels of theirs that rest on the timings (the complexity exponents'
#: "does not hold" rests on the FLOP count alone): the quiet rule
TIMED_CLAIMS = {**{f"complexity_{phase}_exponent_{axis}": ("holds", "partly holds")
                   for phase in ("features", "gram", "solve") for axis in ("n", "d")},
                "total_cost_linear_in_n": V.DECIDED_LABELS,
                # shares of one fit's seconds: timings as the exponents are, from the same runs
                "gram_and_factorization_dominate": V.DECIDED_LABELS}
#: results of a timed claim that are counts, not timings: left out of the quiet rule
NOT_TIMINGS = re.compile(r"flop-exponent$")


def draws_of(keys, results: dict, one_draw: bool = False) -> dict:
    """``{point: seeds}`` of the results ``keys`` that record their draws: the ``seeds`` list of a result's
    setting (one nested draw: ``[0]``), and, with ``one_draw``, the number of values of every other result
    that is a draw (not :data:`UNSEEDED`); what the seeds rule reads."""
    draws = {}
    for key in keys:
        recorded = results[key].setting.get("seeds")
        if isinstance(recorded, (list, tuple)):
            draws[_point_name(key)] = len(recorded)
        elif one_draw and not UNSEEDED.search(key):
            draws[_point_name(key)] = len(results[key].values)
    return draws


def _timing_evidence(keys, results) -> tuple[dict, bool | None, str]:
    """``(loads, quiet, reason)`` of the timings ``keys``: the load averages their settings record
    (``load_average``: [1-min, 5-min, ...]; ``load_average_1min``: the largest 1-minute average read), else
    whether they are recorded as quiet (:func:`~greenelm_book.judging.comparability.is_quiet_timing`)."""
    loads, unquiet = {}, []
    for key in keys:
        if NOT_TIMINGS.search(key):
            continue
        setting = results[key].setting
        if setting.get("load_average"):
            loads[_point_name(key)] = setting["load_average"]
        elif setting.get("load_average_1min"):
            loads[_point_name(key)] = max(setting["load_average_1min"])
        elif not is_quiet_timing(setting):
            unquiet.append(_point_name(key))
    reason = (f"{'; '.join(unquiet)}: neither a timing step of its own nor the benchmark suite's quiet run, "
              "and no load average recorded") if unquiet else ""
    return loads, (False if unquiet else None), reason


def rule_of(verdict: Verdict) -> str | None:
    """The book's rule (a test name of :data:`~greenelm_book.judging.verdicts.TESTS`) that bounded
    ``verdict``, as its detail names it ("(the seeds rule)", "(the quiet rule)"); None when none did."""
    return next((test for test, phrase in (("seeds_rule", "(the seeds rule)"), ("quiet_rule", "(the quiet rule)"))
                 if phrase in verdict.detail), None)


def bound_by_evidence(claim, judged: Judgement, results: dict) -> Judgement:
    """``judged`` no stronger than what it rests on (:func:`~greenelm_book.judging.verdicts.evidence_bound`):
    a claim about the book's own measurements (:data:`OWN_MEASUREMENTS`) resting on a result not measured
    in the paper's setting is "not comparable" (as every other claim is); a claim resting on a result that
    records fewer draws than the seeds rule asks (:func:`draws_of`; every result of :data:`ONE_DRAW_CLAIMS`)
    falls under the seeds rule, one of :data:`TIMED_CLAIMS` under the quiet rule. The test named is the
    rule that bounded it."""
    verdict, keys = judged.verdict, [k for k in judged.keys if k in results]
    apart = ([k for k in keys if not _comparability(k, claim.chapter).comparable]
             if claim.id in OWN_MEASUREMENTS else [])
    reason = "; ".join(dict.fromkeys(_comparability(k, claim.chapter).reason for k in apart))
    seeds = draws_of(keys, results, one_draw=claim.id in ONE_DRAW_CLAIMS)
    loads, quiet = {}, None
    if claim.id in TIMED_CLAIMS and verdict.label in TIMED_CLAIMS[claim.id]:
        loads, quiet, why = _timing_evidence(keys, results)
        reason = reason or why
    bounded = V.evidence_bound(verdict, seeds=seeds, loads=loads, quiet=quiet, comparable=not apart,
                               reason=reason)
    if bounded is verdict:
        return judged
    test = "not_comparable" if bounded.label == "not comparable" else rule_of(bounded) or "quiet_rule"
    return Judgement(bounded, test, judged.keys, judged.values)


#: evidence a later chapter measured for a claim whose own chapter runs first: {claim: ((chapter, key), ...),
#: why)}; the keys join the claim's answer before its test, so the test covers every dataset the claim names,
#: once the store holds them and what the test reads beside them (:data:`ADDED_NEEDS`)
ADDED_EVIDENCE = {
    "ultra_wide_relu_sufficient": (
        (("cifar10", "cifar10/green-elm/unit/cholesky/d=2000/accuracy"),),
        "CIFAR-10 at d = 2000 on raw pixels (\"the datasets evaluated\" include it; the CIFAR-10 chapter's "
        "raw-pixel width with five seeds), against the book's own CIFAR-10 MLP"),
}
#: what a claim's test reads beside its added keys (the book's own baseline on the added dataset)
ADDED_NEEDS = {"ultra_wide_relu_sufficient": tuple(("baselines", OWN_SGD_KEY.format(dataset=d))
                                                   for d in ("mnist", "fashion-mnist", "cifar10"))}
#: why a claim's test covers the datasets it does, where that is fewer than the book measured
SCOPE = {
    "abstract_untangle_without_backprop": "MNIST and Fashion-MNIST: the claim's d ≫ 784 names the 784-pixel "
                                          "inputs; CIFAR-10's inputs have 3,072",
}


#: claims of several stated parts one of which no measurement here tests: {claim: the part, and why}. By the
#: ladder a part left undecided moves neither side: a tested part that holds leaves the claim inconclusive (its
#: outcome shown for information), one that partly holds or does not hold decides it as it stands
UNTESTED_PARTS = {
    "sea_ones_low_entropy_island": "\"which the analytic W2 does not seek\": the entropy chapter tests which digit's "
                                   "images have the lowest entropy, not what the readout weights seek",
    "more_robust_to_rotation": "\"computationally cheaper than iterative training\": the rotation chapter "
                               "times none of its models; the book's same-machine ratio against SGD (the "
                               "baselines chapter) is a claim of its own",
}


#: the outcomes a decided label of the tested parts stands for, beside an untested part (undecided)
TESTED_OUTCOMES = {"holds": ("pass",), "partly holds": ("pass", "fail"), "does not hold": ("fail",)}


def with_added_evidence(claim, answer, results: dict):
    """``answer`` with the keys of :data:`ADDED_EVIDENCE` the store holds (the same object otherwise)."""
    added, _ = ADDED_EVIDENCE.get(claim.id, ((), ""))
    if not all(k in results for _, k in ADDED_NEEDS.get(claim.id, ())):
        return answer
    extra = tuple(k for _, k in added if k in results and k not in answer.keys)
    return replace(answer, keys=tuple(answer.keys) + extra) if extra else answer


def judge_claim(claim, answer, results: dict, answers: dict) -> Judgement:
    """The book's uniform judgement of ``claim`` from its stored ``answer`` and the store's ``results``
    (``{key: Result}``); ``answers``: every stored answer (``{claim id: Answer}``): the claim's test
    (:func:`_judge_claim`) on its keys and any :data:`ADDED_EVIDENCE`, then no stronger than what it
    rests on (:func:`bound_by_evidence`); the test's scope (:data:`SCOPE`, :data:`ADDED_EVIDENCE`) said
    in the detail."""
    answer = with_added_evidence(claim, answer, results)
    judged = bound_by_evidence(claim, _judge_claim(claim, answer, results, answers), results)
    # a label a rule bounded names the rule, wherever it was applied (here or by the chapter's own answer)
    ruled = rule_of(judged.verdict) if judged.verdict.label == "inconclusive" else None
    if ruled and judged.test == "chapter_test":
        judged = Judgement(judged.verdict, ruled, judged.keys, judged.values)
    untested_said = f"a stated part is not tested ({UNTESTED_PARTS[claim.id]}); " if claim.id in UNTESTED_PARTS else None
    if untested_said and judged.verdict.label in V.DECIDED_LABELS and \
            not judged.verdict.detail.startswith(untested_said):      # said once, on a verdict judged again
        tested = TESTED_OUTCOMES[judged.verdict.label]
        label = V.ladder_label("test", enough=True, outcomes=(*tested, "undecided"))
        said = ("for information, the tested part gives" if label != judged.verdict.label else
                "it moves neither side (the ladder), so the claim is judged on the tested part, which gives")
        judged = Judgement(Verdict(label, judged.verdict.ours,
                                   f"{untested_said}{said} {judged.verdict.label} ({judged.verdict.detail})"),
                           judged.test, judged.keys, judged.values)
    added, why = ADDED_EVIDENCE.get(claim.id, ((), ""))
    scope = (f"datasets: {SCOPE[claim.id]}" if claim.id in SCOPE else
             f"added: {why}" if any(k in answer.keys for _, k in added) else "")
    if not scope or judged.verdict.detail.endswith(f" ({scope})"):        # said once, on a verdict judged again
        return judged
    verdict = Verdict(judged.verdict.label, judged.verdict.ours, f"{judged.verdict.detail} ({scope})")
    return Judgement(verdict, judged.test, judged.keys, judged.values)


def _judge_claim(claim, answer, results: dict, answers: dict) -> Judgement:
    recorded = answer.verdict
    keys = [k for k in answer.keys if k in results]
    if recorded.label == "not measurable here":
        return Judgement(recorded, "not_measurable", tuple(keys))
    if claim.id in NOT_FINDINGS or claim.id in DEVICE_CLAIMS:
        why = NOT_FINDINGS.get(claim.id) or DEVICE_CLAIMS[claim.id]
        checked = f"; for information, {recorded.ours}" if recorded.ours else ""
        verdict = Verdict("not measurable here", "", f"{why}{checked} ({recorded.detail})" if recorded.detail
                          else f"{why}{checked}")
        return Judgement(verdict, "not_measurable", tuple(keys))
    if claim.id in SEEDED_CHAPTER_TESTS and keys:
        runs = {_point_name(k): len(results[k].values) for k in keys}
        verdict = V.seeds_rule(recorded, runs)
        ruled = verdict is not recorded or "(the seeds rule)" in verdict.detail
        return _judged(verdict, "seeds_rule" if ruled else "chapter_test", keys, results)
    if claim.id in OWN_MEASUREMENTS and len(keys) == len(answer.keys) and keys:
        verdict, used, test = CLAIM_TESTS[claim.id](claim, answer, results)
        if verdict is None or not used:
            return _not_comparable(claim, answer, results, keys, "nothing left to judge")
        return _judged(verdict, test, used, results)
    if claim.id in CLAIM_TESTS and len(keys) == len(answer.keys) and keys:
        if not all(_comparability(k, claim.chapter).comparable for k in keys):
            judged = _not_comparable(claim, answer, results, keys)
            info, _, test = CLAIM_TESTS[claim.id](claim, answer, results)
            verdict = Verdict("not comparable", info.ours, f"{judged.verdict.detail}; for information only, "
                              f"{info.detail}")
            return Judgement(verdict, judged.test, judged.keys, judged.values)
        verdict, used, test = CLAIM_TESTS[claim.id](claim, answer, results)
        if verdict is None or not used:
            return _not_comparable(claim, answer, results, keys, "nothing comparable left to judge")
        return _judged(verdict, test, used, results)
    if not keys:
        test = "not_comparable" if recorded.label == "not comparable" else "chapter_test"
        return Judgement(recorded, test)
    # the first key is a claim's primary evidence (a frozen head's accuracy for "the head is effective"):
    # when it is not comparable, neither is the claim, whatever the other keys are
    if not _comparability(keys[0], claim.chapter).comparable:
        primary = [k for k in keys if not _comparability(k, claim.chapter).comparable]
        return _not_comparable(claim, answer, results, primary if claim.kind == "qualitative" else keys[:1])
    if not any(_comparability(k, claim.chapter).comparable for k in keys):
        return _not_comparable(claim, answer, results, keys)
    if recorded.label in QUALITATIVE or claim.value is None:
        test = "not_comparable" if recorded.label == "not comparable" else "chapter_test"
        partly = [k for k in keys if not _comparability(k, claim.chapter).comparable]
        # once: a verdict the chapter recorded through answer_as_scorecard already carries the clause
        if partly and test == "chapter_test" and PARTLY_NOT_COMPARABLE not in recorded.detail:
            reasons = "; ".join(dict.fromkeys(_comparability(k, claim.chapter).reason for k in partly))
            recorded = Verdict(recorded.label, recorded.ours, f"{recorded.detail}; {PARTLY_NOT_COMPARABLE} "
                               f"({reasons})")
        return _judged(recorded, test, keys, results)
    return _judge_number(claim, answer, results, answers, keys)


def _judge_number(claim, answer, results, answers, keys) -> Judgement:
    """A number of the paper: a timing, a ratio across machines, a difference or a value."""
    first = results[keys[0]]
    digits = _digits(answer.verdict.ours)
    if claim.kind == "time":
        if claim.id in TABLE_RATIOS:
            other_claim, paper_ratio = TABLE_RATIOS[claim.id]
            paired = [results[k] for k in keys[1:] if results[k].unit == "×"]
            if paired:                           # the ratio timed pair by pair in one run
                verdict = V.ratio_across_machines(paper_ratio, paired[0].values,
                                                  quiet=is_quiet_timing(paired[0].setting))
                verdict = Verdict(verdict.label, verdict.ours,
                                  f"Table IV's pinv / LU = {paper_ratio:.1f}× in the paper; {verdict.detail}")
                return _judged(verdict, "ratio_across_machines", [paired[0].key], results)
            # the denominator's seconds: the answer's own second key, else the other claim's answer
            other = answers.get(other_claim)
            denominator = next((k for k in keys[1:] if results[k].unit == first.unit), None)
            if denominator is None and other is not None and other.keys and other.keys[0] in results:
                denominator = other.keys[0]
            if denominator is not None:
                b = results[denominator]
                verdict = V.ratio_across_machines(paper_ratio, first.values, b.values,
                                                  quiet=is_quiet_timing(first.setting) and is_quiet_timing(b.setting),
                                                  same_run=same_run(first, b))
                verdict = Verdict(verdict.label, verdict.ours,
                                  f"Table IV's pinv / LU = {paper_ratio:.1f}× in the paper; {verdict.detail}")
                return _judged(verdict, "ratio_across_machines", [first.key, b.key], results)
        latency = answer.verdict.ours.startswith("median ")      # shown as the chapter showed it
        return _judged(V.timing_across_machines(claim.value, first.values, digits, median=latency),
                       "timing_across_machines", [first.key], results)
    if claim.kind == "ratio":
        if len(keys) >= 3:                       # (paired ratio key, numerator key, denominator key)
            a, b = results[keys[1]], results[keys[2]]
            quiet = is_quiet_timing(a.setting) and is_quiet_timing(b.setting)
            verdict = V.ratio_across_machines(claim.value, a.values, b.values, quiet=quiet, same_run=same_run(a, b))
            return _judged(verdict, "ratio_across_machines", [a.key, b.key], results)
        if len(keys) == 2:                       # (numerator key, denominator key)
            a, b = results[keys[0]], results[keys[1]]
            quiet = is_quiet_timing(a.setting) and is_quiet_timing(b.setting)
            return _judged(V.ratio_across_machines(claim.value, a.values, b.values, quiet=quiet,
                                                   same_run=same_run(a, b)),
                           "ratio_across_machines", keys, results)
        verdict = V.ratio_across_machines(claim.value, first.values, quiet=is_quiet_timing(first.setting))
        return _judged(verdict, "ratio_across_machines", [first.key], results)
    unit = "" if claim.unit.startswith("fraction") else claim.unit
    if claim.kind == "difference" and len(keys) == 2 and first.unit == "%":
        a, b = results[keys[0]], results[keys[1]]
        verdict = V.difference_vs_paper(claim.value, a.values, b.values, unit, digits)
        return _judged(verdict, "difference_vs_paper", keys, results)
    if unit == "exponent" or unit == "degrees" or math.isnan(claim.value):
        return _judged(answer.verdict, "chapter_test", keys, results)
    return _judged(V.value_vs_paper(claim.value, first.values, unit, digits, difference=claim.kind == "difference"),
                   "value_vs_paper", [first.key], results)


#: the ``features`` words of solves the benchmark report timed in one process on one shared H
#: (``benchmarks/run.py``'s ``same_h_solvers``: every variant of a width in one fresh process)
SHARED_H = "shared by every solver"


def same_run(a, b) -> bool:
    """Whether two stored timings were measured in one run: both settings name the same ``run``
    (a benchmark's process and start time), or both are solves the benchmark report timed in one
    process on one shared H (same ``source``, ``command``, ``measured``, width and ``features``
    naming :data:`SHARED_H`). Two results without either come from separate runs (two chapters,
    or two processes of one), so a ratio of them is not judged."""
    run_a, run_b = a.setting.get("run"), b.setting.get("run")
    if run_a or run_b:
        return bool(run_a) and run_a == run_b
    fields = ("source", "command", "measured", "n_hidden", "features")
    shared = [a.setting.get(f) for f in fields]
    return (all(v not in (None, "") for v in shared) and shared == [b.setting.get(f) for f in fields]
            and SHARED_H in str(a.setting["features"]))


def shared_verdict(claim_id: str, keys, results: dict, ours: str = "") -> Verdict:
    """The verdict the scorecard gives ``claim_id`` (one of :data:`CLAIM_TESTS`) from the results
    ``keys`` of ``results`` (``{key: Result}``): its shared test on the comparable keys, "not
    comparable" when none is left. A chapter answers such a claim with this verdict, so its page and
    the scorecard say the same thing by one function. ``ours`` stands in for our value where the
    verdict is "not comparable" before any test ran."""
    if claim_id not in CLAIM_TESTS:
        raise ValueError(f"{claim_id!r} has no shared test; those that do: {sorted(CLAIM_TESTS)}")
    if not keys:
        raise KeyError(f"{claim_id}: the shared test needs every result it rests on; missing all")
    # a claim of CLAIM_TESTS is judged from its keys alone: the chapter's verdict is a placeholder
    return scorecard_verdict(claim_id, Verdict("holds", ours), keys, results)


def scorecard_verdict(claim_id: str, chapter_verdict: Verdict, keys, results: dict) -> Verdict:
    """The verdict the scorecard gives ``claim_id`` when the chapter answers it with
    ``chapter_verdict`` from ``keys`` (``results``: ``{key: Result}``, other chapters' included;
    KeyError if one is missing): a chapter shows this one, so a number it judges (a ratio across
    machines, a value on a setting that is not comparable) reads the same on its page and on the
    scorecard."""
    missing = [k for k in keys if k not in results]
    if missing:
        raise KeyError(f"{claim_id}: the judgement needs every result it rests on; missing {missing}")
    claim = next(c for c in CLAIMS if c.id == claim_id)
    return judge_claim(claim, Answer(claim_id, chapter_verdict, tuple(keys)), results, {}).verdict


def scorecard_test(claim_id: str, keys, results: dict, chapter_verdict: Verdict) -> str:
    """The name of the test (one of :data:`~greenelm_book.judging.verdicts.TESTS`) by which the scorecard
    judges ``claim_id`` answered with ``chapter_verdict`` from ``keys`` (``results``: ``{key: Result}``,
    other chapters' included): a page that says how the claim is judged prints
    ``verdicts.words_of_test`` of it, so its description is the test actually used."""
    claim = next((c for c in CLAIMS if c.id == claim_id), None)
    if claim is None:
        raise KeyError(f"no claim {claim_id!r} in greenelm_book.paper.CLAIMS")
    return judge_claim(claim, Answer(claim_id, chapter_verdict, tuple(keys)), results, {}).test


def judgement_words(store, claim_id: str, results=()) -> str:
    """How the scorecard judges the answer to ``claim_id`` recorded in ``store`` (a
    :class:`~greenelm_book.store.results.ChapterResults`), in words: ``verdicts.words_of_test`` of
    :func:`scorecard_test`. ``results``: Results of other chapters the answer's keys name."""
    answer = store.answers[claim_id]
    visible = {**store.results, **{r.key: r for r in results}}
    return V.words_of_test(scorecard_test(claim_id, answer.keys, visible, answer.verdict))


def answer_as_scorecard(store, claim_id: str, chapter_verdict: Verdict, keys, results=(), note: str = "") -> Verdict:
    """Record in ``store`` (a :class:`~greenelm_book.store.results.ChapterResults`) the scorecard's
    judgement of ``chapter_verdict`` on ``keys`` and return it, for the page to show: the chapter's
    label and the scorecard's are one. ``results``: Results of other chapters the keys name."""
    keys = list(keys)
    visible = {**store.results, **{r.key: r for r in results}}
    verdict = scorecard_verdict(claim_id, chapter_verdict, keys, visible)
    store.answer(claim_id, verdict, keys=keys, note=note)
    return verdict

