"""The book's bottom line: the few numbers the conclusion and the intro's headline findings quote.

Every number is read from the results store (:mod:`greenelm_book.store.results`) or from the paper's
constants (:mod:`greenelm_book.paper`); nothing is typed in. Each ``*_findings`` function returns a
flat ``{name: value}`` dict whose names are the glue names of ``notebooks/conclusion.py``: floats
and ints for numbers, strings for words chosen by the sign of a number (:func:`report.by_sign`) and
for lists. :func:`findings` merges them; :func:`glue_findings` glues them; :func:`headline_markdown`
writes the intro's headline findings from the same numbers (the page :data:`HEADLINE_PAGE`).

A configuration is found by its key in the store. The smoke profile measures narrower models than
the paper's, so a key with a width (``.../d={d}/...``) is taken at the paper's width when it was
measured, else at the widest measured width below it (:meth:`Store.at_width`); the findings name the
width they used, and the paper's value they compare with is the one printed for that width.
"""

from __future__ import annotations

import json
import re
import statistics
from pathlib import Path
from typing import NamedTuple, Sequence

from ..bench import QUIET_RATIO_KEYS, process_words
from ..judging.verdicts import direction_words, gap_phrase, labelled_direction, mean_difference_words, same_machine_ratio
from ..paper import (CLAIMS, DATASET_NAMES, FIG_SCALING, FIG_SCALING_BASELINES, HARDWARE_CLAIMS, ROTATION_CLAIM, TABLE_I, TABLE_II,
                    TABLE_IV, TABLE_VI)
from ..report import and_list, by_sign, capitalised, duration_text, spread_text, thousands
from ..store.results import Result, brief_host_text, days_text, host_text, load_all, measured_on_text, result_days
from ..store.shown import glued_value

__all__ = ["HEADLINE_PAGE", "Store", "accuracy_findings", "speed_findings", "inconsistency_findings",
           "scaling_findings", "frontier_findings", "streaming_findings", "scale_out_findings", "joined_answers",
           "verdict_markdown", "findings", "glue_findings", "headline_markdown", "write_headline_page",
           "rendered_text", "rendered_parts", "word_count", "CONCLUSION_CLAIMS", "counts_text", "verdict_glues",
           "bottom_line_text", "verdict_problems", "reproduces_words", "BORNE_OUT", "peak_words", "direction_clause"]

#: the intro's headline findings, generated from ``book/results`` (committed, like the scorecard summary)
HEADLINE_PAGE = "book/headline_findings.md"


def _row(table, **where):
    """The one row of a paper table whose columns equal ``where``."""
    rows = table
    for column, value in where.items():
        rows = rows[rows[column] == value]
    if len(rows) != 1:
        raise LookupError(f"{len(rows)} rows of the paper's table match {where}, expected one")
    return rows.iloc[0]


def _claim_value(claim_id: str) -> float:
    """The number the paper prints for claim ``claim_id`` (:data:`paper.CLAIMS`)."""
    for claim in CLAIMS:
        if claim.id == claim_id:
            if claim.value is None:
                raise ValueError(f"claim {claim_id} has no printed number")
            return float(claim.value)
    raise KeyError(f"no claim {claim_id!r} in greenelm_book.paper.CLAIMS")


#: the paper's headline width (Table I's MNIST PInv row; also Table VI's raw-pixel d)
HEADLINE_WIDTH = int(_row(TABLE_I, dataset="mnist", solver="pinv").n_hidden)
#: the widest width of the paper's scaling figure and Table I
WIDEST_WIDTH = int(FIG_SCALING.n_hidden.max())
#: the width of the paper's backbone head (Table II)
HEAD_WIDTH = int(TABLE_II.n_hidden.max())


class Store:
    """The results of one results directory, searched by key across chapters."""

    def __init__(self, directory: str | Path):
        self.directory = Path(directory)
        self.results: dict[str, Result] = {}
        for stored in load_all(self.directory).values():
            self.results.update(stored["results"])
        self.chapter = {key: result.chapter for key, result in self.results.items()}
        if not self.results:
            raise FileNotFoundError(f"no results in {self.directory}: execute the chapters first "
                                    f"(python -m greenelm_book.running.runner run --profile ... --out ...)")

    @classmethod
    def from_results(cls, results, directory: str = "<given results>") -> "Store":
        """A store over ``results`` (an iterable of :class:`Result`), for tests and what-ifs."""
        store = cls.__new__(cls)
        store.directory = Path(directory)
        store.results = {r.key: r for r in results}
        store.chapter = {r.key: r.chapter for r in store.results.values()}
        return store

    def get(self, key: str) -> Result:
        """Result ``key`` (whichever chapter recorded it)."""
        try:
            return self.results[key]
        except KeyError:
            raise KeyError(f"no result {key!r} in {self.directory}") from None

    def matching(self, pattern: str, chapter: str | None = None) -> dict[str, Result]:
        """``{key: Result}`` of every key that matches the regular expression ``pattern`` in full
        (recorded by ``chapter``, when given)."""
        compiled = re.compile(pattern)
        return {k: r for k, r in sorted(self.results.items())
                if compiled.fullmatch(k) and chapter in (None, self.chapter[k])}

    def at_width(self, template: str, width: int, among=None, chapter: str | None = None) -> tuple[Result, int]:
        """The result of ``template`` (a key with ``{d}`` for the width) at ``width`` when measured,
        else at the widest measured width below it, else at the narrowest measured; and that width.
        ``among``: consider only these widths (e.g. those the paper prints a value for); ``chapter``:
        only that chapter's results."""
        pattern = re.escape(template).replace(re.escape("{d}"), r"(\d+)")
        widths = sorted(int(re.fullmatch(pattern, k).group(1)) for k in self.matching(pattern, chapter))
        if among is not None:
            widths = [w for w in widths if w in set(among)]
        if not widths:
            raise KeyError(f"no result {template.format(d='<d>')!r} at any width in {self.directory}")
        below = [w for w in widths if w <= width]
        chosen = below[-1] if below else widths[0]
        return self.get(template.format(d=chosen)), chosen


#: the widths the paper's scaling figure prints a value for
PAPER_WIDTHS = tuple(int(d) for d in sorted(set(FIG_SCALING.n_hidden)))


def _paper_point(dataset: str, width: int) -> float:
    """The paper's scaling-figure accuracy for ``dataset`` at ``width`` (Table I where it prints it)."""
    return float(_row(FIG_SCALING, dataset=dataset, n_hidden=width).accuracy)


def _gap(prefix: str, ours: Result, paper: float, reference: str) -> dict:
    """``{prefix}`` (our mean), ``{prefix}_paper``, ``{prefix}_gap`` (|ours − paper|) and
    ``{prefix}_from``, the distance in words (:func:`gap_phrase`, ``reference`` naming the paper's value)."""
    return {prefix: ours.mean, f"{prefix}_paper": paper, f"{prefix}_gap": abs(ours.mean - paper),
            f"{prefix}_from": gap_phrase(ours.values, [paper], reference)}


def solver_text(result: Result) -> str:
    """How a stored Green-ELM accuracy was fitted, from its setting: "by pinv" for the pseudoinverse,
    "by ridge (Cholesky, λ = 0.001)" for the regularised normal equations."""
    solver, alpha = result.setting.get("solver"), result.setting.get("alpha")
    if solver == "pinv":
        return "by pinv"
    if solver in ("cholesky", "lu"):
        name = {"cholesky": "Cholesky", "lu": "LU"}[solver]
        return f"by ridge ({name}, λ = {alpha:g})" if alpha is not None else f"by ridge ({name})"
    raise ValueError(f"{result.key}: no solver recorded in its setting ({result.setting!r})")


def accuracy_findings(store: Store) -> dict:
    """Green-ELM and the SGD MLP on MNIST and Fashion-MNIST against the paper's printed accuracies,
    the text's weight scale against the code's, and Green-ELM on CIFAR-10 raw pixels (Table VI)."""
    out = {}
    mnist, d = store.at_width("mnist/green-elm/unit/pinv/d={d}/accuracy", HEADLINE_WIDTH, PAPER_WIDTHS)
    out.update(_gap("acc_mnist", mnist, _paper_point("mnist", d), "the paper"), acc_mnist_d=d)
    wide, d_wide = store.at_width("mnist/green-elm/unit/cholesky/d={d}/accuracy", WIDEST_WIDTH, PAPER_WIDTHS)
    out.update(_gap("acc_mnist_wide", wide, _paper_point("mnist", d_wide), "it"), acc_mnist_wide_d=d_wide,
               acc_mnist_how=solver_text(mnist), acc_mnist_wide_how=solver_text(wide))
    fashion, d_f = store.at_width("fashion-mnist/green-elm/unit/pinv/d={d}/accuracy", WIDEST_WIDTH, PAPER_WIDTHS)
    out.update(_gap("acc_fashion", fashion, _paper_point("fashion-mnist", d_f), "it"), acc_fashion_d=d_f,
               acc_fashion_n=fashion.n)
    he = store.get(f"mnist/green-elm/he/pinv/d={d}/accuracy")
    out.update(acc_mnist_he=he.mean, acc_mnist_he_words=distance_words(he.values, mnist.values,
                                                                        out["acc_mnist_paper"]))
    for name, dataset in (("mnist", "mnist"), ("fashion", "fashion-mnist")):
        sgd = store.get(f"{dataset}/sgd-mlp/accuracy")
        paper = float(_row(TABLE_I, dataset=dataset, solver="sgd").accuracy)
        out.update(_gap(f"sgd_{name}", sgd, paper, "Table I"))
    mlp_mnist = store.get("mnist/sgd-mlp/accuracy")
    out.update(elm_vs_mlp_gap=abs(mnist.mean - mlp_mnist.mean),
               elm_vs_mlp_from=gap_phrase(mnist.values, mlp_mnist.values, "our SGD MLP"),
               elm_vs_that_mlp=gap_phrase(mnist.values, mlp_mnist.values, "that MLP"))
    raw, d_raw = store.at_width("cifar10/green-elm/unit/cholesky/d={d}/accuracy", HEADLINE_WIDTH,
                                chapter="cifar10")
    paper_raw = float(_row(TABLE_VI, family="elm", model="raw").accuracy)
    out.update(_gap("acc_cifar_raw", raw, paper_raw, f"Table VI's {paper_raw:g} %"), acc_cifar_raw_d=d_raw)
    angle = int(ROTATION_CLAIM["angle"])
    advantage = store.matching(rf"mnist/green-elm/unit/pinv/d=\d+/vs-sgd-perceptron/angle={angle}/advantage")
    if not advantage:
        raise KeyError(f"no rotation advantage at {angle}° in {store.directory}")
    key = max(advantage, key=lambda k: int(re.search(r"/d=(\d+)/", k).group(1)))
    out.update(_gap("rotation_advantage", advantage[key], _claim_value("rotation_advantage_15deg"), "the paper's"))
    mlp = store.get(key.replace("/vs-sgd-perceptron/", "/vs-sgd-mlp/"))
    out.update(rotation_mlp_gap=abs(mlp.mean),
               rotation_mlp_from=gap_phrase(mlp.values, [0.0], "it", ("behind", "ahead of")))
    return out


def _scorecard_verdict(claim_id: str, results: list):
    """The scorecard's verdict on ``claim_id`` from ``results`` (the Results it rests on, the first its
    primary evidence), judged from them alone (:func:`greenelm_book.judging.rejudge.scorecard_verdict`)."""
    from ..judging.rejudge import scorecard_verdict
    from ..report import Verdict

    return scorecard_verdict(claim_id, Verdict("inconclusive"), [r.key for r in results], {r.key: r for r in results})


def speed_findings(store: Store) -> dict:
    """Same-machine ratios against the paper's: SGD's training over Green-ELM's fit (the 11.6×),
    on CIFAR-10 raw pixels (the 5.1×), pinv over LU on one H (Table IV) and pinv over Cholesky on
    backbone features (the 119×)."""
    from ..judging.comparisons import between_interval

    from ..judging.verdicts import ratio_interval

    # the 11.6× as the scorecard judges it: the quiet interleaved pairs when measured (one clock),
    # else the two chapters' own timings (a prediction interval for one run of each)
    pairs = store.results.get(QUIET_RATIO_KEYS["sgd_mlp_over_pinv_mnist"])
    judged = [pairs] if pairs is not None else []
    if pairs is not None:
        ratio, low, high = ratio_interval(pairs.values)
        d = int(re.search(r"/d=(\d+)/", pairs.key).group(1))
        how = (f"both timed in {process_words(pairs)}, interleaved, {pairs.n} pairs; 95 % confidence interval "
               f"{low:.2f}× to {high:.2f}×")
        where = f"timed in {process_words(pairs)}"
    else:
        sgd = store.get("mnist/sgd-mlp/train-seconds")
        elm, d = store.at_width("mnist/green-elm/unit/pinv/d={d}/fit-seconds", HEADLINE_WIDTH)
        ratio, low, high = between_interval(sgd.values, elm.values, "ratio")
        judged = [sgd, elm]
        how = (f"the MLP timed in the {store.chapter[sgd.key].replace('_', ' ')} chapter, {sgd.mean:.1f} s, the fit in "
               f"the {store.chapter[elm.key].replace('_', ' ')} chapter, {elm.mean:.1f} s; a prediction interval of "
               f"{low:.2f}× to {high:.2f}× for one run of each")
        where = f"from separate runs, {measured_on_text([sgd, elm])}"
    out = {"speedup": ratio, "speedup_low": low, "speedup_high": high, "speedup_d": d,
           "speedup_paper": _claim_value("speedup_vs_sgd_mnist_d2000"), "speedup_how": how,
           # a direction only where the scorecard's verdict on the ratio decides one
           "speedup_where": where,
           "speedup_words": direction_clause(direction_words(_scorecard_verdict("speedup_vs_sgd_mnist_d2000", judged),
                                                             ratio, ("shorter", "longer"), interval=(low, high),
                                                             name_label=False))}
    # the 5.1× as the scorecard judges it: the quiet interleaved pairs when measured, else run by run
    raw, _ = store.at_width("cifar10/green-elm/unit/cholesky/d={d}/sgd-mlp-over-fit-time-ratio", HEADLINE_WIDTH)
    raw = store.results.get(QUIET_RATIO_KEYS["cifar10_sgd_mlp_over_raw_fit"], raw)
    out.update(speedup_raw=raw.mean, speedup_raw_paper=_claim_value("cifar10_raw_speedup_vs_sgd"))
    # Table IV's ratio as the scorecard judges it: the quiet interleaved pairs when measured
    quiet = store.results.get(QUIET_RATIO_KEYS["table4_pinv_over_lu_mnist_d2000"])
    if quiet is not None and not quiet.setting.get("quiet", True):
        quiet = None            # a busy run's pairs: the hardware chapter judges the report's one run of each
    pinv_lu = quiet or store.get("mnist/paper-listing2/pinv-over-lu/same-h/n=60000/d=2000/solve-time-ratio")
    paper_pinv_lu = float(_row(TABLE_IV, solver="pinv").seconds / _row(TABLE_IV, solver="lu").seconds)
    out.update(pinv_lu=pinv_lu.mean, pinv_lu_paper=paper_pinv_lu, pinv_lu_when=pinv_lu.date or "a day not recorded",
               pinv_lu_what=(f"one shared H, the two solves interleaved in {process_words(quiet)}" if quiet else
                             ", ".join(pinv_lu.setting[k] for k in ("features", "timed") if pinv_lu.setting.get(k))
                             or "one feature matrix"))
    # the 119× as the scorecard judges it: listing 2's two solves on one H of the paper's shape, interleaved
    # in one quiet process, when measured; else the chapter's run-by-run ratio on the backbone's features
    chol, d_head = store.at_width("cifar10/green-elm/efficientnet-lite0/pinv-over-cholesky/d={d}/solve-time-ratio",
                                  HEAD_WIDTH)
    quiet_chol = store.results.get(QUIET_RATIO_KEYS["pinv_over_cholesky_n50000_d4000"]) if d_head == 4000 else None
    chol = quiet_chol or chol
    out.update(pinv_chol=chol.mean, pinv_chol_d=d_head,
               pinv_chol_what=(f"one H of the paper's shape (N = 50,000), the two solves interleaved in "
                               f"{process_words(quiet_chol)}" if quiet_chol else "CIFAR-10 backbone features"),
               pinv_chol_paper=float(HARDWARE_CLAIMS["pinv_over_cholesky_speedup_d4000"]))
    return out


def inconsistency_findings() -> dict:
    """Where the paper disagrees with itself, from its constants alone: one fit timed in Table I and
    in Table IV, its accuracy in both, the MNIST SGD and CIFAR-10 CNN baselines in a table and in the
    figure, and the figure's CIFAR-10 curve against Table VI's raw-pixel row."""
    t1 = _row(TABLE_I, dataset="mnist", solver="pinv")
    t4 = _row(TABLE_IV, solver="pinv")
    sgd = _row(TABLE_I, dataset="mnist", solver="sgd")
    cifar_curve = FIG_SCALING[FIG_SCALING.dataset == "cifar10"].accuracy
    return {"t1_pinv_s": float(t1.train_seconds), "t4_pinv_s": float(t4.seconds),
            "t4_over_t1": float(t4.seconds / t1.train_seconds), "t1_pinv_acc": float(t1.accuracy),
            "t4_pinv_acc": float(t4.accuracy), "pinv_d": int(t1.n_hidden),
            "sgd_s_paper": float(sgd.train_seconds),
            "speedup_if_t4": float(sgd.train_seconds / t4.seconds),
            "gain_paper": _claim_value("gain_d2000_to_d4000"),
            "sgd_table": float(sgd.accuracy), "sgd_figure": float(FIG_SCALING_BASELINES["mnist"]),
            "cnn_table": float(_row(TABLE_VI, family="sgd", model="cnn").accuracy),
            "cnn_figure": float(FIG_SCALING_BASELINES["cifar10"]),
            "cifar_curve_low": float(cifar_curve.min()), "cifar_curve_high": float(cifar_curve.max()),
            "cifar_head_table": float(_row(TABLE_II, solver="cholesky").accuracy),
            "cifar_raw_table": float(_row(TABLE_VI, family="elm", model="raw").accuracy)}


def scaling_findings(store: Store) -> dict:
    """The ln d law against a saturating law on held-out widths, the widest Green-ELM (λ by LOO) and
    the d → ∞ limit (arc-cosine kernel) against the paper's trained baselines."""
    from ..chapters.scaling import log_law_words

    worse, draws = [], []
    for dataset in DATASET_NAMES:
        ln = store.get(f"{dataset}/green-elm/unit/cholesky/ln-d-fit/held-out-error")
        sat = store.get(f"{dataset}/green-elm/unit/cholesky/saturating-fit/held-out-error")
        draws += [ln.n, sat.n]
        if ln.mean > sat.mean:
            worse.append(DATASET_NAMES[dataset])
    mnist_ln = store.get("mnist/green-elm/unit/cholesky/ln-d-fit/held-out-error").mean
    mnist_sat = store.get("mnist/green-elm/unit/cholesky/saturating-fit/held-out-error").mean
    loo = store.matching(r"mnist/green-elm/unit/ridge-loo/d=\d+/accuracy")
    width = {k: int(re.search(r"/d=(\d+)/", k).group(1)) for k in loo}
    widest = max(loo, key=width.get)
    limit_runs = store.get("mnist/arccos-kernel/accuracy")
    cifar_runs, cnn_runs = store.get("cifar10/arccos-kernel/accuracy"), store.get("cifar10/sgd-cnn/accuracy")
    limit, cifar_limit, cnn = limit_runs.mean, cifar_runs.mean, cnn_runs.mean
    held = store.get("mnist/green-elm/unit/cholesky/ln-d-fit/held-out-error").setting
    asymptote = store.get("mnist/green-elm/unit/cholesky/saturating-fit/asymptote").mean
    return {"ln_worse_n": len(worse), "ln_n": len(DATASET_NAMES), "ln_draws": min(draws),
            "ln_text": log_law_words(len(worse), len(DATASET_NAMES), min(draws)),
            "ln_fit_widths": f"{thousands(min(held['fit_widths']))} to {thousands(max(held['fit_widths']))}",
            "ln_held_out_widths": " and ".join(thousands(w) for w in held["held_out_widths"]),
            "asymptote_mnist": asymptote,
            # one fitted value with no interval: its distance, no side (the rule on runs gives none)
            "asymptote_words": f"{abs(limit - asymptote):.2f} points from the vanishing-ridge limit (one fit: no side "
                               "judged)",
            "ln_worse_text": ", ".join(worse) if worse else "none",
            "ln_mnist_error": mnist_ln, "sat_mnist_error": mnist_sat,
            "ultra_d": f"{width[widest]:,}",
            "ultra_acc": loo[widest].mean, "limit_mnist": limit,
            "limit_mnist_gap": abs(limit - loo[widest].mean),
            "limit_mnist_from": gap_phrase(limit_runs.values, loo[widest].values, "it"),
            "limit_mnist_tuned": tuned_limit_words(store),
            "limit_cifar": cifar_limit, "limit_cifar_vs_cnn": abs(cifar_limit - cnn),
            "limit_cifar_from": gap_phrase(cifar_runs.values, cnn_runs.values, "our SGD-trained CNN")}


def tuned_limit_words(store: Store) -> str:
    """The MNIST limit with its ridge chosen on held-out training rows, where the frontier measured it:
    "; with a ridge chosen on held-out training rows, 98.73 ± 0.02 % (3 seeds)" ("" when not measured)."""
    found = store.matching(r"mnist/arccos-kernel/held-out-ridge/accuracy")
    if not found:
        return ""
    (tuned,) = found.values()
    return (f"; with a ridge chosen on held-out training rows, {spread_text(tuned)} % ({tuned.n} "
            f"seed{'' if tuned.n == 1 else 's'})")


#: the frontier protocol's datasets, as the findings name them
PROTOCOL_DATASETS = (("mnist", "mnist"), ("fashion", "fashion-mnist"), ("cifar", "cifar10"))
#: the protocol the headline quotes (successive halving, its grid declared from published settings) and the
#: earlier one, quoted beside it with its grid's history
HEADLINE_PROTOCOL, EARLIER_PROTOCOL = "frontier-halving", "frontier-protocol"


def _protocol_results(store: Store, protocol: str) -> list:
    """[(dataset, test-accuracy Result)] of ``protocol`` for each of :data:`PROTOCOL_DATASETS` with a seed recorded."""
    return [(dataset, found) for _, dataset in PROTOCOL_DATASETS
            if (found := store.results.get(f"{dataset}/{protocol}/test-accuracy")) is not None]


def direction_clause(words: str) -> str:
    """A parenthesis' words for :func:`~greenelm_book.judging.verdicts.direction_words`' answer: "its
    direction: shorter" where a direction is judged, "no direction judged: busy timings" where none is."""
    from ..judging.verdicts import no_direction_reason

    reason = no_direction_reason(words)
    return f"its direction: {words}" if reason is None else f"no direction judged: {reason}"


def planned_seeds_words(found: Result) -> str:
    """How many of a protocol's planned seeds ``found`` (its test accuracy) holds: "2 of 3 declared seeds"."""
    return f"{found.n} of {len(found.setting['planned_seeds'])} declared seeds"


def protocol_text(store: Store) -> str:
    """The halving protocol's picks in words, per dataset with a seed recorded: "99.50 ± 0.03 % on MNIST
    (3 of 3 declared seeds, 25.5 min per seed on average; ± 0.07 test-set sampling error)", the whole
    protocol's seconds per seed ("each" for one seed, "per seed on average" for several), how many seeds
    ran over the dataset's limit of seconds where any did (", over its 30.0 min limit on 3 of 3 seeds"), the
    sampling error of the mean on the dataset's test images; "no seed recorded yet" when none."""
    from ..chapters.frontier_budget import sampling_error
    from ..chapters.frontier_sections import seeds_over_limit

    parts = []
    for dataset, found in _protocol_results(store, HEADLINE_PROTOCOL):
        seconds = store.get(f"{dataset}/{HEADLINE_PROTOCOL}/seconds")
        error = sampling_error(found.mean, int(found.setting["n_test"]))
        over = len(seeds_over_limit(seconds))
        over_words = (f", over its {duration_text(float(seconds.setting['limit_seconds']))} limit on {over} of "
                      f"{seconds.n} seed{'s' * (seconds.n != 1)}" if over else "")
        parts.append(f"{spread_text(found)} % on {DATASET_NAMES[dataset]} ({planned_seeds_words(found)}, "
                     f"{duration_text(seconds.mean)} "
                     f"{'each' if seconds.n == 1 else 'per seed on average'}{over_words}; "
                     f"± {error:.2f} test-set sampling error)")
    return "; ".join(parts) if parts else "no seed recorded yet"


def protocol_method(store: Store) -> str:
    """What the halving protocol's picks are, over every dataset's seeds (their settings' ``picks``), by
    :func:`~greenelm_book.chapters.frontier.picks_method`: "the paper's map (2 layers deep in 1 of 19 picks) in its
    d → ∞ limit on whitened random patches"; "" when no seed is recorded."""
    import json

    from ..chapters.frontier import picks_method

    picks = [json.loads(pick) for _, found in _protocol_results(store, HEADLINE_PROTOCOL)
             for pick in found.setting["picks"]]
    return picks_method(picks) if picks else ""


def protocol_how(store: Store, brief: bool = False) -> str:
    """How the halving protocol's test accuracies were obtained, from their settings: "chosen by successive
    halving on held-out training rows (the last rung: 6,000 fit and 3,000 validation rows) over a grid declared
    from published settings, one test read per seed" (each dataset's last rung joined when they differ,
    :func:`greenelm_book.chapters.frontier.halving_grid` the grid's origin); ``brief``: without the last rung
    and the test read (the bottom line's words); "" when no seed is recorded."""
    from ..chapters.frontier import halving_grid

    last = sorted({tuple(found.setting["sizes"][-1]) for _, found in _protocol_results(store, HEADLINE_PROTOCOL)})
    if not last:
        return ""
    if brief:
        return f"chosen by successive halving on held-out training rows over {halving_grid(brief=True)}"
    rungs = " or ".join(f"{fit:,} fit and {validation:,} validation rows" for fit, validation in last)
    return (f"chosen by successive halving on held-out training rows (the last rung: {rungs}) over "
            f"{halving_grid()}, one test read per seed")


def earlier_protocol_sentence(store: Store) -> str:
    """The earlier protocol's picks beside the headline's, with how they were chosen and its grid's history
    (:func:`greenelm_book.chapters.frontier.grid_history`): "The earlier protocol (every choice on 10,000
    held-out training rows, though the grid was first explored on test scores) gave 99.56 ± 0.01 % on MNIST
    (3 seeds); …"; "" when it has no seed recorded."""
    from ..chapters.frontier import grid_history

    found = _protocol_results(store, EARLIER_PROTOCOL)
    if not found:
        return ""
    rows = sorted({result.setting["n_validation"] for _, result in found})
    seeds = {result.n for _, result in found}
    if len(seeds) == 1:           # one count of seeds: the accuracies in a row, the datasets in the same order
        n = seeds.pop()
        picks = (f"{and_list([spread_text(result) for _, result in found])} % on "
                 f"{and_list([DATASET_NAMES[dataset] for dataset, _ in found])} "
                 f"({n} seed{'s' * (n != 1)}{' each' * (len(found) > 1)})")
    else:
        picks = "; ".join(f"{spread_text(result)} % on {DATASET_NAMES[dataset]} ({result.n} seed{'s' * (result.n != 1)})"
                          for dataset, result in found)
    return (f"The earlier protocol (every choice on {' or '.join(f'{v:,}' for v in rows)} held-out training rows, "
            f"though {grid_history()}) gave {picks}.")


def opponent_sentence(store: Store, provenance: bool = True) -> str:
    """The frontier's gradient-trained opponents at their own schedule, one sentence naming each dataset
    with a record: "… reach 99.13 % on MNIST (the PyTorch examples' MNIST CNN, Adadelta, 1 seed, 12.0 min
    of training); …", then when and on what their seconds were measured (``provenance``; the conclusion's
    brief form leaves it to the intro, saying only what the minutes cover, :data:`BRIEF_SCOPE`); "" when none has
    a record."""
    from ..chapters.frontier import RECIPE_WORDS
    from ..chapters.frontier_budget import INSTANCE_MARK, OPTIMIZER_WORDS, untuned_words
    from ..chapters.frontier_opponents import RECIPES, opponent_key

    parts, timed = [], []
    for _, dataset in PROTOCOL_DATASETS:
        recipe = RECIPES[dataset]
        key = opponent_key(dataset, recipe, "published")
        found = store.results.get(f"{key}/accuracy")
        if found is None:
            continue
        seconds = store.get(f"{key}/train-seconds")
        timed.append(seconds)
        untuned = untuned_words(recipe, dataset)
        parts.append(f"{spread_text(found)} % on {DATASET_NAMES[dataset]} ({RECIPE_WORDS[recipe]}, "
                     f"{OPTIMIZER_WORDS[recipe]}, {found.n} seed{'s' if found.n != 1 else ''}, "
                     f"{duration_text(seconds.mean)} of training{'; ' + untuned if untuned else ''})")
    if not parts:
        return ""
    hosts = sorted({brief_host_text(r.host) for r in timed})
    when = days_text(result_days(timed)) or "on days not recorded"         # every run's day, not the latest
    where = hosts[0] if len(hosts) == 1 else f"{and_list(hosts)}, not shown to be one machine"
    runs = [machine for r in timed for machine in r.setting.get("machines") or [None] * r.n]
    named = sorted({m.split(INSTANCE_MARK)[0] for m in runs if m})
    if named:           # some runs' records name their machine (the fronts' own-schedule points): say which
        cores = {r.host.get("cores") for r in timed if r.host}
        cores_text = f"{cores.pop()} cores" if len(cores) == 1 and None not in cores else ""
        if cores_text:                  # the cores said once, not again after each machine's model
            named = [m.removesuffix(f", {cores_text}") for m in named]
        where = (f"{cores_text + ': ' if cores_text else ''}{sum(1 for m in runs if m)} of {len(runs)} runs name their "
                 f"machine ({and_list(named)}), the others none, not shown to be one machine")
    said = ("Trained whole by gradient steps to their own schedules, the published fast-training recipes "
            f"reach {'; '.join(parts)}")
    if provenance:
        return f"{said}; their training seconds were measured {when}, on {where}."
    return f"{said}{BRIEF_SCOPE}."


#: what the brief opponent sentence adds so its minutes are not read against the protocol's as like for like
BRIEF_SCOPE = ("; those minutes are training alone, and the protocol's are its whole search and refit, on machines "
               "not shown to be one")


def pick_against_recipe(store: Store, dataset: str) -> str:
    """The halving protocol's pick on ``dataset`` against the gradient-trained recipe at its own schedule, paired
    by seed and judged as the frontier page's §4 judges it (:func:`~greenelm_book.chapters.frontier.opponent_gain`),
    from the store: "9.22 points below Jordan's airbench94 (its own schedule) over 3 paired seeds: a loss by the
    gain rule"; "" when either side has no result or they share no seed."""
    from ..chapters.frontier import RECIPE_WORDS, SCHEDULE_WORDS, gain_outcome_words, opponent_gain, pick_gap_words
    from ..chapters.frontier_opponents import RECIPES, opponent_key
    from ..judging.verdicts import MIN_GAIN_RUNS

    found = store.results.get(f"{dataset}/{HEADLINE_PROTOCOL}/test-accuracy")
    key = opponent_key(dataset, RECIPES[dataset], "published")
    theirs = store.results.get(f"{key}/accuracy")
    if found is None or theirs is None or not set(found.setting["seeds"]) & set(theirs.setting["seeds"]):
        return ""
    ours = {"accuracy": found, "seconds": store.get(f"{dataset}/{HEADLINE_PROTOCOL}/seconds"),
            "seeds": list(found.setting["seeds"]), "n_test": int(found.setting["n_test"])}
    judged = opponent_gain(ours, {"accuracy": theirs, "seconds": store.get(f"{key}/train-seconds")})
    said = pick_gap_words(judged, f"{RECIPE_WORDS[RECIPES[dataset]]} ({SCHEDULE_WORDS['published']})")
    return f"{said}: {gain_outcome_words(judged)} by the gain rule" if len(judged["seeds"]) >= MIN_GAIN_RUNS else said


def _choice_marker(store: Store, dataset: str) -> dict | None:
    """The halving protocol's seconds per seed as the fronts' marker (:func:`~greenelm_book.chapters.frontier_budget.
    protocol_marker`'s "seconds", "selection" and "hosts"), read from the store; None before any seed is stored."""
    total = store.results.get(f"{dataset}/{HEADLINE_PROTOCOL}/seconds")
    selection = store.results.get(f"{dataset}/{HEADLINE_PROTOCOL}/selection-seconds")
    if total is None or selection is None:
        return None
    seeds = [int(s) for s in selection.setting["seeds"]]
    hosts = selection.setting.get("seed_hosts") or [None] * len(seeds)      # stored before seeds' hosts were: none
    return {"seconds": dict(zip(seeds, total.values)), "selection": dict(zip(seeds, selection.values)),
            "hosts": dict(zip(seeds, hosts))}


class Answered(NamedTuple):
    """One dataset's answered fronts (:func:`_answered_fronts`)."""
    dataset: str
    name: str
    result: dict                    # :func:`~greenelm_book.chapters.frontier_budget.answer`
    counted: dict | None            # the same with the choice of the pick counted (None on the GPU: chosen on CPUs)
    choice_seconds: list            # each compared seed's seconds of choosing its pick ([] where not known)


def _answered_fronts(store: Store, spec, folder: str) -> tuple[list, list, bool]:
    """([:class:`Answered`], names of the datasets not answered, whether any point is stored) of the fronts
    stored under ``<dataset>/<folder>/...`` (``"budget"``: two CPU cores; ``"budget-gpu"``: one GPU)."""
    from ..chapters.frontier_budget import answer, choice_seconds, dataset_points, fronts_from_results
    from ..chapters.frontier_sections import fronts_ready

    answered, waiting, any_point = [], [], False
    for _, dataset in PROTOCOL_DATASETS:
        if dataset not in spec["datasets"]:             # not part of the declared design
            continue
        accuracies = store.matching(rf"{re.escape(dataset)}/{folder}/[^/]+/accuracy")
        any_point = any_point or bool(accuracies)
        pairs = [(r, store.get(key.removesuffix("/accuracy") + "/train-seconds")) for key, r in accuracies.items()]
        fronts_of = fronts_from_results(pairs, dataset, len(dataset_points(spec, dataset)))
        fronts_of["marker"] = _choice_marker(store, dataset) if folder == "budget" else None
        if fronts_ready(fronts_of):
            answered.append(Answered(dataset, DATASET_NAMES[dataset], answer(fronts_of),
                                     answer(fronts_of, counting_choice=True), choice_seconds(fronts_of)))
        elif accuracies or folder == "budget":
            waiting.append(DATASET_NAMES[dataset])
    return answered, waiting, any_point


#: an answer's span of compared budgets: " (2 of the recipe's 4 points, 2.6 s to 5.0 s)"
_BUDGETS = re.compile(r" \((\d+ of the recipe's \d+ points?, [^()]+)\)")


def briefs(answered: Sequence[tuple]) -> list[tuple[str, str]]:
    """[(name, the answer's brief form)] of :func:`_answered_fronts`' answers, for :func:`joined_answers`."""
    return [(a.name, a.result["brief"]) for a in answered]


def uncounted_words(names: Sequence[str]) -> str:
    """The answered datasets not compared with the search counted, in words: "Fashion-MNIST is not compared so
    (a compared seed's search is not shown to have run on its points' machine)"."""
    return (f"{capitalised(and_list(names))} {'is' if len(names) == 1 else 'are'} not compared so (a compared seed's "
            "search is not shown to have run on its points' machine)")


def counted_briefs(answered: Sequence[tuple]) -> list[tuple[str, str]]:
    """[(name, the brief form of the answer with the choice of the pick counted)] where it is known."""
    return [(a.name, a.counted["brief"]) for a in answered if a.counted is not None]


def fronts_bottom(store: Store, params=None) -> str:
    """The paper's thesis in the bottom line's words, from the CPU fronts the frontier page stored: at equal
    training seconds on two CPU cores, where the one-shot model is more accurate than the gradient-trained
    recipe, one clause per answered dataset (:func:`~greenelm_book.chapters.frontier_budget.budget_clause`),
    what the one-shot seconds leave out (choosing the pick: the protocol's selection seconds, their range over
    those datasets' seeds), the answers with it counted (where the one-shot model is more accurate at no
    budget then, just that and the datasets where the recipe is), and the
    datasets not answered yet; "" when none is answered. Datasets with one and the same uniform answer share a clause
    (:func:`~greenelm_book.chapters.frontier_budget.budget_clauses`)."""
    from ..chapters.frontier import RECIPE_WORDS
    from ..chapters.frontier_budget import budget_clauses, load_budget
    from ..chapters.frontier_opponents import RECIPES

    answered, waiting, _ = _answered_fronts(store, load_budget(params), "budget")
    clauses = budget_clauses([(a.name, a.result) for a in answered])
    if not clauses:
        return ""
    counted = [(a.name, a.counted) for a in answered if a.counted is not None]
    said = budget_clauses(counted)
    uncounted = [a.name for a in answered if a.counted is None]
    beside = [f"{and_list(uncounted)} not compared"] if uncounted else []
    if said and not any(c["outcome"] == "gain" for _, result in counted for c in result["comparisons"]):
        lost = [name for name, result in counted if any(c["outcome"] == "loss" for c in result["comparisons"])]
        said = "at no budget compared" + (f" ({'; '.join([f'the recipe more accurate on {and_list(lost)}'] + beside)})"
                                          if lost or beside else "")
    elif said and beside:
        said += f" ({beside[0]})"
    choosing = [v for a in answered if a.counted is not None for v in a.choice_seconds]
    also = (f"; counting its search too ({min(choosing):,.0f}–{max(choosing):,.0f} s per seed), {said}"
            if said else "")
    waits = (f"; {and_list(waiting)} {'is' if len(waiting) == 1 else 'are'} not answered yet" if waiting else "")
    recipes: dict[str, list] = {}                   # each recipe named once, with the datasets it opposes
    for a in answered:
        recipes.setdefault(RECIPES[a.dataset], []).append(a.name)
    ordered = sorted(recipes.items(), key=lambda item: len(item[1]))   # the recipe of most datasets last: "elsewhere"
    against = ", ".join(RECIPE_WORDS[r] + ("" if len(recipes) == 1 else " elsewhere" if i == len(ordered) - 1 else
                                           f" on {and_list(names)}")
                        for i, (r, names) in enumerate(ordered))      # their optimizers are named on the frontier page
    return ("At equal seconds on two CPU cores, by the gain rule, the one-shot pick is more "
            f"accurate than the gradient-trained recipe ({against}) {clauses}, "
            f"counting its refits alone{also}{waits}")


def joined_answers(answered: Sequence[tuple[str, str]]) -> str:
    """The fronts' answers [(dataset name, :func:`~greenelm_book.chapters.frontier_budget.answer`'s "brief")]
    as one passage: datasets whose answers differ only in their span of compared budgets share one sentence,
    each span beside its dataset's name ("on MNIST (2 of the recipe's 4 points, 2.6 s to 5.0 s) and Fashion-MNIST
    (3 of the recipe's 4 points, 2.4 s to 8.8 s), the one-shot model is more accurate …"); "" when none."""
    groups: dict[str, list[str]] = {}
    for name, brief in answered:
        span = _BUDGETS.search(brief)
        shape = _BUDGETS.sub("", brief, count=1) if span else brief
        groups.setdefault(shape, []).append(f"{name} ({span.group(1)})" if span else name)
    parts = [f"on {and_list(names)}, {shape[:1].lower()}{shape[1:]}" for shape, names in groups.items()]
    return " ".join(part if i == 0 else part[:1].upper() + part[1:] for i, part in enumerate(parts))


def gpu_fronts_sentence(store: Store, params=None) -> str:
    """The same answers from the fronts measured on one GPU (``<dataset>/budget-gpu/...``): the answered
    datasets in the page's words, the others with GPU points named as not answered yet; "" when none."""
    from ..chapters.frontier_budget import load_budget

    spec = load_budget(params)
    answered, waiting, any_point = _answered_fronts(store, spec, "budget-gpu")
    if not any_point:
        return ""
    from ..judging.verdicts import MIN_GAIN_RUNS

    said = (f"The same points on one GPU, compared the same way ({MIN_GAIN_RUNS}+ seeds per point; the one-shot seconds exclude the pick's "
            f"search, made on a CPU): {joined_answers(briefs(answered))}" if answered else
            "The same points on one GPU: no dataset is answered yet.")
    if answered and waiting:
        said += f" {and_list(waiting)} {'is' if len(waiting) == 1 else 'are'} not answered on the GPU yet."
    unmeasured = [DATASET_NAMES[d] for _, d in PROTOCOL_DATASETS if d in spec["datasets"]
                  and not store.matching(rf"{re.escape(d)}/budget-gpu/[^/]+/accuracy")]
    if unmeasured:
        said += f" {and_list(unmeasured)} {'has' if len(unmeasured) == 1 else 'have'} no point measured on the GPU."
    return said


def fronts_sentence(store: Store, params=None) -> str:
    """The frontier's accuracy-against-seconds answers, from the points its page stored
    (``<dataset>/budget/<point>/accuracy`` and ``/train-seconds``): each dataset whose two fronts are complete
    (every declared point of ``params``, :func:`~greenelm_book.chapters.frontier_budget.load_budget`, with 3
    seeds) answered in the page's words (:func:`~greenelm_book.chapters.frontier_budget.answer`), the others
    named as not answered yet; "" when no point is stored."""
    from ..chapters.frontier_budget import COMPARED_AT, load_budget

    answered, waiting, any_point = _answered_fronts(store, load_budget(params), "budget")
    if not any_point:
        return ""
    how = f", compared {COMPARED_AT}" if answered else ""
    said = (f"Accuracy against training seconds, each seed's two fronts from one machine instance, each point "
            f"declared before it ran and reading the test set once{how} (one-shot "
            "seconds: each refit alone, not the search that chose its pick; the runs chained alone under the run lock, "
            "their seconds not held to the quiet rule): ") + (
        joined_answers(briefs(answered)) if answered else
        "no dataset is answered yet: none has 3 seeds each measured wholly by a single machine instance.")
    counted = counted_briefs(answered)
    if counted:
        said += f" Counting that search too (each one-shot point's seconds plus its seed's rungs): {joined_answers(counted)}"
        if uncounted := [a.name for a in answered if a.counted is None]:
            said += f" {uncounted_words(uncounted)}."
    if answered and waiting:
        said += (f" {' and '.join(waiting)} {'is' if len(waiting) == 1 else 'are'} not answered yet (fewer "
                 "than 3 seeds have every declared point measured, each seed's by a single machine instance).")
    return said


def frontier_findings(store: Store) -> dict:
    """The frontier protocol's picks (every choice on validation rows, the test set read once per seed)
    and its SGD opponents; the book's SGD CNN on CIFAR-10; the ridge baseline without a random layer."""
    out = {"protocol_text": protocol_text(store), "opponent_sentence": opponent_sentence(store),
           "opponent_brief": opponent_sentence(store, provenance=False),
           "protocol_how": protocol_how(store), "protocol_how_brief": protocol_how(store, brief=True),
           "protocol_method": (method := protocol_method(store)), "protocol_method_capital": capitalised(method),
           "earlier_protocol_sentence": earlier_protocol_sentence(store),
           "fronts_sentence": fronts_sentence(store), "gpu_fronts_sentence": gpu_fronts_sentence(store),
           "fronts_bottom": fronts_bottom(store)}
    for name, dataset in PROTOCOL_DATASETS:
        found = store.results.get(f"{dataset}/{HEADLINE_PROTOCOL}/test-accuracy")
        out[f"protocol_{name}"] = None if found is None else found.mean
        out[f"protocol_{name}_seeds"] = None if found is None else planned_seeds_words(found)
        out[f"protocol_{name}_against"] = pick_against_recipe(store, dataset)
    cnn = store.get("cifar10/sgd-cnn/accuracy")
    out.update(cnn_acc=cnn.mean, cnn_s=store.get("cifar10/sgd-cnn/train-seconds").mean)
    head, _ = store.at_width("cifar10/green-elm/efficientnet-lite0/cholesky/d={d}/accuracy", HEAD_WIDTH)
    ridge_runs = store.get("cifar10/ridge/efficientnet-lite0/accuracy")
    ridge = ridge_runs.mean
    out.update(head_acc=head.mean, ridge_backbone=ridge, head_vs_ridge=abs(head.mean - ridge),
               head_vs_ridge_from=gap_phrase(head.values, ridge_runs.values, "it"))
    return out


def streaming_findings(store: Store) -> dict:
    """Exactness of the streamed readout, forgetting against SGD, and listing 3's update against ours."""
    distances = [v for r in store.matching(r".*/green-elm/stream/d=\d+/b=\d+/distance-to-oracle").values()
                 for v in r.values]
    rls = store.matching(r".*/green-elm-rls/class-incremental/.*/accuracy-earlier")
    sgd = store.matching(r".*/sgd-softmax/no-replay/class-incremental/.*/accuracy-earlier")
    if len(rls) != 1 or len(sgd) != 1:
        raise LookupError(f"expected one class-incremental RLS and one SGD result, got {list(rls) + list(sgd)}")
    (rls,), (sgd,) = rls.values(), sgd.values()
    from ..judging.verdicts import quiet_bound, ratio_interval

    ratio = store.matching(r"cifar10-efficientnet-lite0/green-elm/stream/listing3-over-cholesky/numpy/.*/ratio")
    (ratio,) = ratio.values()
    # the ratio's two sides, timed batch by batch in one run: their host is the ratio's (a ratio records none)
    sides = store.matching(r"cifar10-efficientnet-lite0/green-elm/stream/(listing3|cholesky)/numpy/.*/update-seconds")
    hosts = [r.host for r in sides.values()]
    host = ratio.host or (hosts[0] if len(hosts) == 2 and hosts[0] and hosts[0] == hosts[1] else None)
    return {"stream_distance": max(distances), "forget_rls": rls.mean, "forget_sgd": sgd.mean,
            "forget_gap": abs(rls.mean - sgd.mean),
            "listing3_ratio": statistics.median(ratio.values),
            "listing3_where": f"measured on {brief_host_text(host)}" if host else "its host not recorded",
            # per-batch ratios of one run: the same-machine test, under the quiet rule, decides the direction,
            # or nothing is said (the streaming chapter's words)
            "listing3_words": labelled_direction(quiet_bound(same_machine_ratio(ratio.values, claimed="above"), ratio),
                                                 statistics.median(ratio.values), ("slower", "faster"),
                                                 evidence="its 95 % interval {:.2f}–{:.2f}×, {} batches".format(
                                                     *ratio_interval(ratio.values)[1:], ratio.n))}


def distance_words(a, b, paper: float) -> str:
    """Whether runs ``a`` land further from or closer to ``paper`` than runs ``b``, in words a sentence
    may state: with both means on one side of ``paper`` the distance follows mean(a) − mean(b), judged by
    :func:`~greenelm_book.judging.verdicts.mean_difference_words` (a direction only where its interval
    decides it); with the means on either side, the distances' signed difference alone, "on the means"."""
    side_a, side_b = statistics.fmean(a) - paper, statistics.fmean(b) - paper
    if side_a * side_b > 0:
        words = ("further from", "closer to") if side_b < 0 else ("closer to", "further from")
        return mean_difference_words(a, b, words, with_interval=False)
    return by_sign(abs(side_a) - abs(side_b), "further from", "closer to", "as far from") + " on the means"


def peak_words(peaks: dict) -> str:
    """The Dask workers' peak memory over the numbers of rows in words (``peaks``: {N: peak MB}): its
    range and its change from the smallest N to the largest, "between 85 and 126 MB (+48 % from the
    smallest N to the largest, for 100 times the rows)", as the scale-out chapter measures it."""
    if not peaks:
        raise ValueError("peak_words: no worker peaks")
    sizes = sorted(peaks)
    low, high = min(peaks.values()), max(peaks.values())
    if len(sizes) == 1:
        return f"{low:.0f} MB at the one N measured ({sizes[0]:,} rows)"
    change = 100 * (peaks[sizes[-1]] / peaks[sizes[0]] - 1)
    return (f"between {low:.0f} and {high:.0f} MB ({change:+.0f} % from the smallest N to the largest, for "
            f"{sizes[-1] / sizes[0]:.0f} times the rows)")


def scale_out_findings(store: Store) -> dict:
    """The Dask fit: the largest N, its CPU-time exponent in N and each worker's peak memory."""
    peaks = store.matching(r"mnist-shifted/green-elm/dask/d=\d+/n=\d+/worker-peak-mb")
    sizes = [int(re.search(r"/n=(\d+)/", k).group(1)) for k in peaks]
    (exponent,) = store.matching(r"mnist-shifted/green-elm/dask/d=\d+/cpu-time-exponent").values()
    by_n = {int(re.search(r"/n=(\d+)/", k).group(1)): r.mean for k, r in peaks.items()}
    equal = store.matching(r"mnist/green-elm/fit-localcluster/d=\d+/n=\d+/coef-difference")
    equal_by_n = {int(re.search(r"/n=(\d+)/", k).group(1)): r.mean for k, r in equal.items()}
    equal_text = "; ".join(f"at N = {n:,} the readout equals the single process's to {difference:.0e} "
                           "relative (rounding)" for n, difference in sorted(equal_by_n.items()))
    return {"dask_n": f"{max(sizes):,}", "dask_exponent": exponent.mean, "dask_peak_text": peak_words(by_n),
            "dask_equal_text": equal_text or "the readout's equality to the single process's is not measured",
            "dask_peak_low": min(r.mean for r in peaks.values()),
            "dask_peak_high": max(r.mean for r in peaks.values())}


def verdict_markdown(directory: str | Path) -> str:
    """One line of Markdown: the scorecard's count of claims per verdict (every label that occurs)."""
    from .scorecard import counts, scorecard

    frame = scorecard(directory)
    totals = counts(frame).loc["all"]
    items = " · ".join(f"*{label}* {int(n)}" for label, n in totals.items() if int(n) > 0)
    return f"**Verdicts** on the paper's {len(frame)} claims ([scorecard](scorecard.ipynb)): {items}."


#: the claims whose scorecard verdict the conclusion quotes, each glued as ``verdict_<claim id>``
#: (:func:`verdict_glues`); the page's every verdict word is one of these glues (:func:`verdict_problems`)
CONCLUSION_CLAIMS = (
    "feature_learning_not_needed_mnist", "streaming_rls_exact", "total_cost_linear_in_n", "gain_d2000_to_d4000",
    "table1_mnist_pinv_d2000_accuracy", "abstract_mnist_d4000_accuracy", "abstract_fashion_accuracy",
    "abstract_comparable_to_sgd", "speedup_vs_sgd_mnist_d2000", "accuracy_near_logarithmic_in_d",
    "mnist_sea_distributed_over_sgd", "weight_scale_unit",
    "table1_mnist_sgd_accuracy", "table1_fashion_sgd_accuracy", "table6_elm_raw_accuracy",
    "rotation_advantage_15deg", "more_robust_to_rotation", "table4_pinv_d2000_seconds",
    "pinv_over_cholesky_speedup_d4000", "cifar10_raw_speedup_vs_sgd", "listing3_sub_second_updates",
    "predictable_path_to_parity", "ultra_wide_million_dimensions", "fig_scaling_cifar10_d2000_accuracy",
    "streaming_sgd_catastrophic_forgetting", "w1_from_seed_storage",
    "abstract_scaling_hypothesis", "scaling_hypothesis_gamma")
#: glue-name prefix of a claim's verdict, and the glue name of the scorecard's counts
VERDICT_GLUE, COUNTS_GLUE = "verdict_", "verdict_counts"
#: the words a reader takes for a judgement (every scorecard label is made of them)
VERDICT_WORDS = re.compile(r"\b(?:reproduced|differs?|inconclusive|not comparable|holds?|not measurable|"
                           r"concordant|discordant)\b",
                           re.I)


def counts_text(card) -> str:
    """The scorecard's claims per verdict, every label that occurs, in the scorecard's order:
    "reproduced: 2; differs, within margin: 2; …"."""
    from .scorecard import STATUSES

    totals = card["verdict"].value_counts()
    return "; ".join(f"{label}: {int(totals[label])}" for label in STATUSES if label in totals)


def verdict_glues(card) -> dict:
    """{glue name: text} of the scorecard's judgements the conclusion quotes: ``verdict_<claim>`` the
    label of each of :data:`CONCLUSION_CLAIMS`, ``verdict_counts`` (:func:`counts_text`) and
    ``n_claims``. ``card``: :func:`greenelm_book.summaries.scorecard.scorecard`'s rows."""
    labels = dict(zip(card["claim"], card["verdict"]))
    missing = [claim for claim in CONCLUSION_CLAIMS if claim not in labels]
    if missing:
        raise KeyError(f"the scorecard has no claim {missing}")
    out = {f"{VERDICT_GLUE}{claim}": labels[claim] for claim in CONCLUSION_CLAIMS}
    out.update({COUNTS_GLUE: counts_text(card), "n_claims": len(card)})
    return out


#: verdict labels that say a claim is borne out (the others say it is not, or is not judged)
BORNE_OUT = ("reproduced", "holds", "concordant")


def reproduces_words(found: dict, card) -> dict:
    """The words that join the bottom line's "What is borne out" on MNIST's widest accuracy to the two
    claims about it, from their verdicts: the paper's "> 95 %" with no feature learning
    (``feature_learning_not_needed_mnist``, the bar its test uses) and the paper's own value at that
    width (``abstract_mnist_d4000_accuracy``). Returns ``{"wide_bar": the paper's bar (95), "wide_bar_words":
    "above" / "below" (ours against the bar), "wide_own": "but not its 98.10 %" (its verdict a "differs"), "and
    matches its …" (borne out, :data:`BORNE_OUT`) or "while its … is undecided" (any other)}``;
    the verdict of the paper's own value follows ``wide_own`` on the page. ``found``: :func:`findings`; ``card``: the
    scorecard's rows."""
    labels = dict(zip(card["claim"], card["verdict"]))
    claims = ("feature_learning_not_needed_mnist", "abstract_mnist_d4000_accuracy")
    missing = [claim for claim in claims if claim not in labels]
    if missing:
        raise KeyError(f"the scorecard has no claim {missing}")
    bar = _claim_value("above_95_single_step")
    own = f"its {found['acc_mnist_wide_paper']:.2f} %"
    label = labels["abstract_mnist_d4000_accuracy"]
    wide_own = (f"and matches {own}" if label in BORNE_OUT else f"but not {own}" if label.startswith("differs")
                else f"while {own} is undecided")
    return {"wide_bar": bar, "wide_bar_words": by_sign(found["acc_mnist_wide"] - bar, "above", "below"),
            "wide_own": wide_own, "gain_levels": gain_levels_words(labels)}


#: MNIST's gain between the paper's two widths, and the figure's levels at those widths
GAIN_CLAIM, LEVEL_CLAIMS = "gain_d2000_to_d4000", ("fig_scaling_mnist_d2000_accuracy", "fig_scaling_mnist_d4000_accuracy")


def gain_levels_words(labels: dict) -> str:
    """Where MNIST's gain from d = 2000 to 4000 is borne out but the figure's levels at those widths are not,
    the words that keep the verdict from reading as the levels': "; the levels themselves do not" (or "; one
    width's level does not"); "" otherwise. ``labels``: claim → scorecard verdict."""
    levels = [labels.get(claim) for claim in LEVEL_CLAIMS]
    if labels.get(GAIN_CLAIM) not in BORNE_OUT or None in levels:
        return ""
    missed = sum(level not in BORNE_OUT for level in levels)
    if not missed:
        return ""
    return "; the levels themselves do not" if missed == len(levels) else "; one width's level does not"


def findings(directory: str | Path) -> dict:
    """Every number and word the conclusion quotes, read from the results in ``directory``."""
    store = Store(directory)
    out = {}
    for part in (accuracy_findings(store), speed_findings(store), inconsistency_findings(),
                 scaling_findings(store), frontier_findings(store), streaming_findings(store),
                 scale_out_findings(store)):
        clash = set(out) & set(part)
        if clash:
            raise ValueError(f"findings named twice: {sorted(clash)}")
        out.update(part)
    return out


def glue_findings(values: dict) -> None:
    """Glue every finding under its name (for ``{glue:text}`` roles)."""
    from ..report import glue

    for name, value in values.items():
        glue(name, value)


def headline_markdown(directory: str | Path) -> str:
    """The intro's headline findings (a Markdown list), every number from ``directory``'s results
    and the paper's constants. A results dir that lacks a result they need (no chapter executed
    yet, or not all of them) gives one line that says so instead, so that a book still builds."""
    try:
        f = findings(directory)
    except (FileNotFoundError, LookupError) as exc:     # LookupError: KeyError included
        return f"*The headline findings appear once every chapter has been executed ({str(exc).strip(chr(39))}).*\n"
    wide = (f", and {f['acc_mnist_wide_from']} at d = "
            f"{f['acc_mnist_wide_d']} ({f['acc_mnist_wide']:.2f} % against {f['acc_mnist_wide_paper']:.2f} %)"
            if f["acc_mnist_wide_d"] != f["acc_mnist_d"] else "")
    lines = [
        f"- **Accuracy.** On MNIST, Green-ELM lands {f['acc_mnist_from']} "
        f"at d = {f['acc_mnist_d']} ({f['acc_mnist']:.2f} % against {f['acc_mnist_paper']:.2f} %){wide}; "
        f"on Fashion-MNIST {f['acc_fashion_from']} "
        f"({f['acc_fashion']:.2f} % against {f['acc_fashion_paper']:.2f} % at d = {f['acc_fashion_d']}).",
        f"- **Speed.** The paper's headline, training {f['speedup_paper']:g}× faster than SGD, is a ratio of "
        f"two single timings; {f['speedup_where']}, our SGD MLP's training takes {f['speedup']:.2f}× Green-ELM's "
        f"pinv fit ({f['speedup_words']}). The pseudoinverse takes {f['pinv_chol']:.1f}× a Cholesky solve at d = {f['pinv_chol_d']} on "
        f"{f['pinv_chol_what']}, where the paper reports {f['pinv_chol_paper']:g}×.",
        f"- **The paper disagrees with itself.** The same MNIST pinv fit at d = {f['pinv_d']} takes "
        f"{f['t1_pinv_s']:.2f} s in Table I and {f['t4_pinv_s']:g} s in Table IV; with Table IV's time its "
        f"own speed-up over SGD would be {f['speedup_if_t4']:.2f}×. Its text and listings 2 and 3 draw $W$ "
        f"from $\\mathcal N(0, 2/D)$, Algorithm 1 and listing 1 (the MNIST code) from $\\mathcal N(0, 1)$.",
        f"- **Width.** Fitted on the paper's widths, {f['ln_text']}; the d → ∞ limit of the paper's map (kernel ridge "
        f"at a vanishing ridge, float32) "
        f"is {f['limit_mnist']:.2f} % on MNIST and {f['limit_cifar']:.2f} % on CIFAR-10 raw pixels.",
        f"- **Beyond the paper.** {f['protocol_method_capital']}, {f['protocol_how']}: {f['protocol_text']}."
        + (f" {f['earlier_protocol_sentence']}" if f["earlier_protocol_sentence"] else "")
        + (f" {f['opponent_sentence']}" if f["opponent_sentence"] else "")
        + (f" {f['fronts_sentence']}" if f["fronts_sentence"] else "")
        + (f" {f['gpu_fronts_sentence']}" if f["gpu_fronts_sentence"] else ""),
    ]
    return "\n".join(lines) + "\n"


def write_headline_page(out_dir: str | Path, results: str | Path | None = None) -> Path:
    """Write :func:`headline_markdown` of ``results`` (default ``<out_dir>/results``) to
    ``<out_dir>/headline_findings.md``, the page the intro includes; return its path. Unchanged
    text is not rewritten."""
    out_dir = Path(out_dir)
    text = headline_markdown(results if results is not None else out_dir / "results")
    path = out_dir / Path(HEADLINE_PAGE).name
    if not path.is_file() or path.read_text(encoding="utf-8") != text:
        path.write_text(text, encoding="utf-8")
    return path


_GLUE = re.compile(r"\{glue:text\}`([A-Za-z0-9_]+)(?::([^`]*))?`")


def rendered_text(notebook: str | Path) -> str:
    """The prose of an executed notebook as a reader sees it: markdown cells with each
    ``{glue:text}`` role replaced by its glued value (formatted as the role asks), roles reduced to
    their text, and the Markdown that code cells display."""
    return "\n\n".join(text for _, text in rendered_parts(notebook))


def _glued(nb: dict) -> dict:
    """{name: value} of every glue of a notebook (its JSON)."""
    glued = {}
    for cell in nb["cells"]:
        for output in cell.get("outputs", []):
            name = output.get("metadata", {}).get("scrapbook", {}).get("name")
            if name and (value := glued_value(output)) is not None:
                glued[name] = value
    return glued


def _render(source: str, glued: dict, where, role=None) -> str:
    """Markdown ``source`` as a reader sees it: ``{glue:text}`` roles replaced by ``role(name, text)``
    (default: the text), other roles reduced to their text."""
    def value(match):
        name, spec = match.group(1), match.group(2) or ""
        if name not in glued:
            raise KeyError(f"{where}: {{glue:text}}`{name}` was never glued")
        text = format(glued[name], spec)
        return role(name, text) if role else text

    text = _GLUE.sub(value, source)
    text = re.sub(r"\{(?:doc|ref)\}`([^`<]*?)\s*(?:<[^>]*>)?`", r"\1", text)
    return re.sub(r"\{cite\}`[^`]*`", "[1]", text)


def rendered_parts(notebook: str | Path, role=None) -> list[tuple[str, str]]:
    """[(kind, text)] of an executed notebook as a reader sees it, in page order: ("markdown", a
    markdown cell rendered by :func:`_render`) and ("output", the Markdown a code cell displays)."""
    nb = json.loads(Path(notebook).read_text(encoding="utf-8"))
    glued = _glued(nb)
    parts = []
    for cell in nb["cells"]:
        if cell["cell_type"] == "markdown":
            parts.append(("markdown", _render("".join(cell["source"]), glued, notebook, role)))
        for output in cell.get("outputs", []):
            if "text/markdown" in output.get("data", {}):
                parts.append(("output", "".join(output["data"]["text/markdown"])))
    return parts


#: the heading the conclusion's bottom line opens with
BOTTOM_LINE_HEADING = "## The bottom line"


def bottom_line_text(notebook: str | Path) -> str:
    """The rendered bottom line of the conclusion (the markdown cell that opens with
    :data:`BOTTOM_LINE_HEADING`)."""
    cells = [text for kind, text in rendered_parts(notebook) if kind == "markdown"
             and text.lstrip().startswith(BOTTOM_LINE_HEADING)]
    if len(cells) != 1:
        raise LookupError(f"{notebook}: {len(cells)} cells open with {BOTTOM_LINE_HEADING!r}, expected one")
    return cells[0]


def verdict_problems(notebook: str | Path, card) -> list[str]:
    """Where a page's verdict words do not come from the scorecard's judgement (``card``:
    :func:`greenelm_book.summaries.scorecard.scorecard`'s rows): a ``verdict_<claim>`` glue whose text is not
    the scorecard's label of that claim (or names no claim), a ``verdict_counts`` glue that is not
    :func:`counts_text`, and any verdict word (:data:`VERDICT_WORDS`) elsewhere in the page's
    rendered text. Empty when every verdict word is the scorecard's."""
    labels = dict(zip(card["claim"], card["verdict"]))
    problems = []

    def role(name, text):
        if name == COUNTS_GLUE:
            if text != counts_text(card):
                problems.append(f"the counts read {text!r}; the scorecard's are {counts_text(card)!r}")
            return "\x00"
        if name.startswith(VERDICT_GLUE):
            claim = name.removeprefix(VERDICT_GLUE)
            if claim not in labels:
                problems.append(f"{name}: no claim {claim!r} on the scorecard")
            elif text != labels[claim]:
                problems.append(f"{claim}: the page says {text!r}, the scorecard {labels[claim]!r}")
            return "\x00"
        return text

    for _, text in rendered_parts(notebook, role):
        for match in VERDICT_WORDS.finditer(text):
            context = text[max(0, match.start() - 60):match.end() + 20].replace("\x00", "<verdict>")
            problems.append(f"a verdict word not from the scorecard: {match.group(0)!r} in …{context}…")
    return problems


def word_count(text: str) -> int:
    """Words in ``text``: runs of characters with a letter or digit (Markdown marks not counted)."""
    return sum(1 for token in text.split() if re.search(r"\w", token))
