"""The headline-ratio benchmark's pairs as a stored result, and the rule that a ratio of two
separate runs is not judged while one quiet process's interleaved pairs are."""

from __future__ import annotations

import json

import pytest

from greenelm_book import bench
from greenelm_book.judging.rejudge import scorecard_verdict, same_run
from greenelm_book.store.results import ChapterResults, Result


def _report(path, quiet=True, ratios=(2.1, 2.0, 2.2, 2.05, 2.15)):
    pairs = [{"pair": i, "a_seconds": r, "b_seconds": 1.0, "ratio": r, "computed_at": f"2026-11-28T09:0{i}:00+00:00",
              "pid": 42} for i, r in enumerate(ratios)]
    entry = {"name": "sgd_mlp_over_pinv_mnist", "numerator": "SGD", "denominator": "pinv", "data": "MNIST",
             "pid": 42, "started_at": "2026-11-28T09:00:00+00:00", "finished_at": "2026-11-28T09:05:00+00:00",
             "pairs": pairs}
    path.write_text(json.dumps({"quiet": quiet, "ratios": {entry["name"]: entry}}))
    return path


def test_the_quiet_pairs_are_recorded_with_their_run_and_times(tmp_path):
    report = _report(tmp_path / "headline_ratios.json")
    store = ChapterResults("baselines", "smoke", tmp_path / "results")
    key = "mnist/sgd-mlp-over-green-elm/unit/pinv/d=2000/paired-time-ratio"
    result = bench.record_quiet_ratio(store, "sgd_mlp_over_pinv_mnist", key, report)
    assert result.values == (2.1, 2.0, 2.2, 2.05, 2.15) and result.unit == "×"
    assert "quiet" in result.setting["timing"] and result.setting["run"] == "pid 42 at 2026-11-28T09:00:00+00:00"
    assert len(result.setting["computed_at"]) == 5
    assert bench.record_quiet_ratio(store, "no_such_ratio", key, report) is None
    assert bench.record_quiet_ratio(store, "sgd_mlp_over_pinv_mnist", key, tmp_path / "absent.json") is None


def test_the_key_defaults_to_the_ratios_one_key_and_an_unknown_name_is_refused(tmp_path):
    report = _report(tmp_path / "headline_ratios.json")
    store = ChapterResults("baselines", "smoke", tmp_path / "results")
    result = bench.record_quiet_ratio(store, "sgd_mlp_over_pinv_mnist", path=report)
    assert result.key == bench.QUIET_RATIO_KEYS["sgd_mlp_over_pinv_mnist"]
    with pytest.raises(ValueError, match="no result key for the quiet ratio 'no_such_ratio'"):
        bench.record_quiet_ratio(store, "no_such_ratio", path=report)


def test_every_quiet_ratio_key_is_recorded_in_the_committed_store_and_named_by_the_benchmark():
    """One table names where each ratio's pairs live: the chapters wrote them there, and the benchmark's
    ratios are exactly the table's names."""
    from benchmarks import headline_ratios
    from greenelm_book.store.results import load_all

    recorded = {}
    for chapter in load_all(bench.HEADLINE_RATIOS.parents[1] / "book" / "results").values():
        recorded.update(chapter["results"])
    assert set(headline_ratios.RATIOS) == set(bench.QUIET_RATIO_KEYS)
    for name, key in bench.QUIET_RATIO_KEYS.items():
        assert key in recorded, name
        assert recorded[key].setting["source"] == "benchmarks/headline_ratios.json", name


def test_a_report_that_is_not_the_benchmarks_is_refused(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"ratios": []}))
    with pytest.raises(ValueError, match="not a headline-ratio report"):
        bench.quiet_ratio("x", bad)


def test_one_quiet_process_is_judged_and_separate_runs_are_not(tmp_path):
    report = _report(tmp_path / "headline_ratios.json", ratios=(0.55, 0.57, 0.6, 0.56, 0.58))
    store = ChapterResults("baselines", "smoke", tmp_path / "results")
    quiet = bench.record_quiet_ratio(store, "sgd_mlp_over_pinv_mnist", "mnist/q/paired-time-ratio", report)
    from greenelm_book.report import Verdict

    verdict = scorecard_verdict("speedup_vs_sgd_mnist_d2000", Verdict("inconclusive", ""), [quiet.key], {quiet.key: quiet})
    assert verdict.label == "discordant" and "opposite direction" in verdict.detail     # 0.57× against 11.6×
    sgd = Result("mnist/sgd/seconds", (10.0,) * 5, "s", {"timing": "quiet"}, "baselines", "m", "d", "c")
    fit = Result("mnist/elm/seconds", (1.0,) * 5, "s", {"timing": "quiet"}, "baselines", "m", "d", "c")
    assert not same_run(sgd, fit)
    apart = scorecard_verdict("speedup_vs_sgd_mnist_d2000", Verdict("inconclusive", ""), [sgd.key, fit.key],
                              {sgd.key: sgd, fit.key: fit})
    assert apart.label == "not comparable" and "different runs" in apart.detail


def test_the_committed_benchmark_report_reads():
    """The benchmark's own report (benchmarks/headline_ratios.json) is what quiet_ratio reads."""
    entry = bench.quiet_ratio("sgd_mlp_over_pinv_mnist")
    if entry is None:
        pytest.skip("no committed headline-ratio report")
    assert len(entry["pairs"]) >= 5 and entry["source"] == "headline_ratios.json"
    assert {p["pid"] for p in entry["pairs"]} == {entry["pid"]}


def test_table_iv_rests_on_the_quiet_pairs_when_they_exist(tmp_path):
    import pandas as pd

    from greenelm_book.chapters import complexity
    from greenelm_book import paper
    from greenelm_book.report import Verdict

    report = _report(tmp_path / "headline_ratios.json", ratios=(10.5, 10.6, 10.7, 10.55, 10.65))
    data = json.loads(report.read_text())
    data["ratios"]["table4_pinv_over_lu_mnist_d2000"] = {**data["ratios"].pop("sgd_mlp_over_pinv_mnist"),
                                                       "name": "table4_pinv_over_lu_mnist_d2000"}
    report.write_text(json.dumps(data))
    store = ChapterResults("hardware", "smoke", tmp_path / "results")
    solves = {s: store.record(f"mnist/paper-listing2/{s}/d=2000/solve-seconds", [v], "s", solver=s)
              for s, v in (("pinv", 23.5), ("lu", 1.7), ("cholesky", 1.7))}
    quiet = bench.record_quiet_ratio(store, "table4_pinv_over_lu_mnist_d2000",
                                     "mnist/paper-listing2/pinv-over-lu/d=2000/paired-time-ratio", report)
    paper_iv = paper.TABLE_IV.set_index("solver")
    complexity.answer_table_iv(store, paper_iv, solves, quiet)
    assert store.answers["table4_pinv_d2000_seconds"].keys == (solves["pinv"].key, quiet.key)
    assert store.answers["table4_lu_d2000_seconds"].keys == (solves["lu"].key,)
    assert complexity.ratio_how(quiet).startswith("timed pair by pair in one quiet process: 5 pairs")
    verdict = scorecard_verdict("table4_pinv_d2000_seconds", Verdict("not comparable", ""),
                                list(store.answers["table4_pinv_d2000_seconds"].keys), store.results)
    assert verdict.label == "concordant" and "Table IV's pinv / LU = 12.8×" in verdict.detail   # 10.6 vs 12.8
    assert store.answers["table4_pinv_d2000_seconds"].verdict == verdict          # the page records the same
    assert isinstance(paper_iv, pd.DataFrame)


def _solve(solver, **change):
    """A listing-2 solve read from the benchmark report's shared-H table, as the hardware chapter stores it."""
    setting = {"dataset": "mnist", "solver": solver, "n_hidden": 2000, "timed": "solve alone",
               "features": "listing 1's H (seed 42), shared by every solver", "source": "benchmarks/report.json",
               "command": "python -m benchmarks.run --only fit-floor", "measured": "2026-11-27 07:47 UTC", **change}
    seconds = {"pinv": 23.53, "lu": 1.72}[solver]
    return Result(f"mnist/paper-listing2/{solver}/same-h/n=60000/d=2000/solve-seconds", (seconds,), "s", setting,
                  "hardware", "m", "2026-11-27", "c")


def test_the_reports_shared_h_solves_are_one_run_and_the_table_iv_ratio_is_judged_as_such():
    """benchmarks/run.py times every listing-2 solver of a width in one process on one H: the pinv / LU
    ratio of Table IV is one run's (the hardware page's words), so the scorecard judges it (here:
    inconclusive, one run per side) instead of calling it "timed in different runs"."""
    from greenelm_book.judging.rejudge import judge_claim
    from greenelm_book.paper import CLAIMS
    from greenelm_book.report import Verdict
    from greenelm_book.store.results import Answer

    pinv, lu = _solve("pinv"), _solve("lu")
    assert same_run(pinv, lu)
    assert not same_run(pinv, _solve("lu", measured="2026-11-28 07:47 UTC"))     # another report run
    assert not same_run(pinv, _solve("lu", features="listing 1's H (seed 7)"))   # not one shared H
    assert not same_run(pinv, _solve("lu", run="pid 1 at 2026-11-27"))          # a named run wins
    results = {pinv.key: pinv, lu.key: lu}
    answers = {c: Answer(c, Verdict("not comparable", ""), (r.key,))
               for c, r in (("table4_pinv_d2000_seconds", pinv), ("table4_lu_d2000_seconds", lu))}
    claim = next(c for c in CLAIMS if c.id == "table4_pinv_d2000_seconds")
    judged = judge_claim(claim, answers[claim.id], results, answers).verdict
    assert judged.label == "inconclusive" and "different runs" not in judged.detail
    assert judged.ours.startswith("13.68×") and "n = 1 and 1" in judged.ours


def test_without_quiet_pairs_the_pinv_row_rests_on_the_same_runs_lu_and_the_page_says_the_scorecards(tmp_path):
    from greenelm_book import paper
    from greenelm_book.chapters import complexity
    from greenelm_book.report import Verdict

    store = ChapterResults("hardware", "smoke", tmp_path / "results")
    solves = {s: store.record(_solve(s if s != "cholesky" else "lu").key.replace("/lu/", f"/{s}/"),
                              [v], "s", **{**_solve("pinv").setting, "solver": s})
              for s, v in (("pinv", 23.53), ("lu", 1.72), ("cholesky", 1.74))}
    ratio = store.record("mnist/paper-listing2/pinv-over-lu/same-h/n=60000/d=2000/solve-time-ratio",
                         [23.53 / 1.72], "×", **_solve("pinv").setting)
    complexity.answer_table_iv(store, paper.TABLE_IV.set_index("solver"), solves, ratio)
    answer = store.answers["table4_pinv_d2000_seconds"]
    assert answer.keys == (solves["pinv"].key, solves["lu"].key)
    assert complexity.ratio_how(ratio) == "from the report's one run of each"
    verdict = scorecard_verdict("table4_pinv_d2000_seconds", Verdict("not comparable", ""), list(answer.keys),
                                store.results)
    assert verdict.label == "inconclusive" and "n = 1 and 1" in verdict.ours
    assert answer.verdict == verdict                                    # the page records the scorecard's
