"""The frontier chapter's page (greenelm_book.chapters.frontier): it reads committed records and fits
nothing. Each protocol seed, fixed measurement and opponent is recorded once with one value per seed;
the headline and the tables are those records; part 1 continues the scaling chapter's curve with the
fixed measurements and says which command makes a missing one; the anchors table names what every
row trains and the kernel limit's size as a kernel, not a feature count."""

from __future__ import annotations

import json
import re
import shutil
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from greenelm_book.chapters import frontier as fc
from greenelm_book.chapters import frontier_budget as fb
from greenelm_book.paper import ANCHORS, TRAINED
from greenelm_book.running.toc import ROOT
from greenelm_book.store.results import ChapterResults, same_host

RECORDS = ROOT / "book" / "frontier_protocol"
WIDE = {"dataset": "mnist", "seed": 0, "configuration": {"model": "paper-map", "input": "pixels", "n_hidden": 32000},
        "subset": None, "started_at": "2026-11-28T17:00:00+00:00", "alpha": 1e5, "test_accuracy": 97.9,
        "interior": True, "loo_rows": 3000, "seconds": 1500.0, "peak_memory_gb": 15.0, "n_train": 60000}
LIMIT = {"dataset": "mnist", "seed": 0, "configuration": {"model": "paper-map-limit", "input": "pixels"},
         "subset": None, "started_at": "2026-11-28T17:30:00+00:00", "test_accuracy": 98.74, "jitter": 1e-6,
         "mu": 1e-3, "seconds": 600.0, "peak_memory_gb": 15.2, "n_train": 60000}


@pytest.fixture
def setup(tmp_path):
    records = tmp_path / "records"
    records.mkdir()
    for path in RECORDS.glob("*-seed*.json"):
        if "paper-map" not in path.name:
            shutil.copy(path, records)
    results = tmp_path / "results"
    results.mkdir()
    shutil.copy(ROOT / "book" / "results" / "scaling.json", results)
    return records, ChapterResults("frontier", "full", results)


def _write_fixed(records):
    (records / "mnist-paper-map-d32000-seed0.json").write_text(json.dumps(WIDE))
    (records / "mnist-paper-map-limit-seed0.json").write_text(json.dumps(LIMIT))


def test_each_protocol_seed_and_opponent_is_recorded_once_with_one_value_per_seed(setup):
    records_dir, store = setup
    records = fc.load_records(records_dir)
    protocol = fc.record_protocol(store, records, [0, 1, 2])
    assert set(protocol) == {d for d in records if records[d]["protocol"]}
    for dataset, part in protocol.items():
        runs = [records[dataset]["protocol"][s] for s in sorted(records[dataset]["protocol"])]
        assert part["accuracy"].values == tuple(r["test_accuracy"] for r in runs)
        assert part["seconds"].values == tuple(r["seconds"]["total"] for r in runs)
        assert part["accuracy"].setting["picks"] == [fc.configuration_key(r["pick"]) for r in runs]
        assert all(at.startswith("20") for at in part["accuracy"].setting["computed_at"])   # when the test set was read
        row = fc.headline_table(protocol, [0, 1, 2]).set_index("dataset").loc[fc.DATASET_NAMES[dataset]]
        assert row["seeds"] == f"{len(runs)} of 3"
    again = fc.record_protocol(store, records, [0, 1, 2])                   # the same records: the same results
    assert {d: p["accuracy"].values for d, p in again.items()} == {d: p["accuracy"].values for d, p in protocol.items()}


def test_the_headline_is_the_picks_test_accuracy_mean_and_sd_over_the_seeds(setup):
    records_dir, store = setup
    seed0 = json.loads((records_dir / "mnist-seed0.json").read_text())
    for seed, accuracy in ((1, 99.41), (2, 99.50)):              # two more seeds of the same protocol
        (records_dir / f"mnist-seed{seed}.json").write_text(json.dumps(dict(seed0, seed=seed, test_accuracy=accuracy)))
    protocol = fc.record_protocol(store, fc.load_records(records_dir), [0, 1, 2])
    scores = [seed0["test_accuracy"], 99.41, 99.50]
    row = fc.headline_table(protocol, [0, 1, 2]).set_index("dataset").loc["MNIST"]
    assert row["seeds"] == "3 of 3"
    sampling = 100 * np.sqrt(np.mean(scores) / 100 * (1 - np.mean(scores) / 100) / seed0["n_test"])
    assert row["test accuracy (%)"] == (f"{np.mean(scores):.2f} ± {np.std(scores, ddof=1):.2f} (n = 3), "
                                        f"± {sampling:.2f} sampling")
    assert f"MNIST {np.mean(scores):.2f} ± {np.std(scores, ddof=1):.2f} % over 3 of 3 seeds" in \
        fc.protocol_sentence(protocol, [0, 1, 2])
    picks = fc.picks_table(protocol).query("dataset == 'MNIST'")
    assert list(picks["seed"]) == [0, 1, 2]
    assert list(picks["test (%)"]) == [f"{s:.2f}" for s in scores]            # each seed's one read
    assert list(picks["validation (%)"]) == [f"{seed0['validation_accuracy']:.2f}"] * 3
    assert set(picks["pick"]) == {fc.candidate_text(seed0["pick"])}
    assert list(picks.columns) == ["dataset", "seed", "pick", "validation (%)", "test (%)", "whole protocol"]


def test_the_opponents_table_names_the_recipe_and_its_schedule(setup):
    records_dir, store = setup
    records = fc.load_records(records_dir)
    protocol = fc.record_protocol(store, records, [0, 1, 2])
    rows = fc.opponents_view(protocol).to_dict("records")
    for dataset, part in protocol.items():
        for schedule, result in part["opponents"].items():
            found = [r for (s, _), r in records[dataset]["opponents"].items() if s == schedule]
            assert result["accuracy"].setting["epochs_run"] == [r["epochs_run"] for r in found]
            model = found[0]["configuration"]["model"]
            optimizer = {"pytorch-mnist-cnn": "Adadelta", "airbench94": "SGD, Nesterov momentum"}[model]
            (row,) = [r for r in rows if r["dataset"] == fc.DATASET_NAMES[dataset] and r["trained"] ==
                      f"whole network ({optimizer})" and fc.SCHEDULE_WORDS[schedule] in r["method"]]
            assert row["method"].startswith(fc.RECIPE_WORDS[model])
            scores = [r["accuracy"] for r in found]
            spread = f" ± {np.std(scores, ddof=1):.2f}" if len(scores) > 1 else ""
            sampling = 100 * np.sqrt(np.mean(scores) / 100 * (1 - np.mean(scores) / 100) / part["n_test"])
            assert row["test accuracy (%)"] == f"{np.mean(scores):.2f}{spread} (n = {len(scores)}), ± {sampling:.2f} sampling"


def test_the_anchors_table_names_what_each_row_trains_and_the_limit_as_a_kernel(setup):
    records_dir, store = setup
    protocol = fc.record_protocol(store, fc.load_records(records_dir), [0, 1, 2])
    table = fc.anchor_table(protocol)
    assert list(table.columns) == ["dataset", "method (source)", "trained", "size", "augmentation", "test accuracy (%)"]
    for dataset in protocol:
        name = fc.DATASET_NAMES[dataset]
        ours = table[(table["dataset"] == name) & table["method (source)"].str.startswith("this book: the earlier protocol")]
        (size,) = ours["size"]
        n = protocol[dataset]["runs"][0]["n_train"]
        assert size == f"N × N kernel, N = {n:,}: {4 * n * n / 1e9:.1f} GB in float32"
        (method,) = ours["method (source)"]                # seeds that picked the same variant name it once
        variants = [part.strip() for part in method.removeprefix("this book: the earlier protocol's pick, ").split(";")]
        assert len(variants) == len(set(variants)), method
        assert (table["dataset"] == name).sum() == (ANCHORS["dataset"] == dataset).sum() + 1 + len(protocol[dataset]["opponents"])
    assert table["trained"].str.len().min() > 0 and "—" not in set(table["trained"])


def test_the_anchor_notes_state_each_sources_compute_and_the_books_seconds(setup):
    records_dir, store = setup
    protocol = fc.record_protocol(store, fc.load_records(records_dir), [0, 1, 2])
    notes = fc.anchor_notes(protocol)
    for dataset, part in protocol.items():
        name = fc.DATASET_NAMES[dataset]
        for row in ANCHORS[ANCHORS["dataset"] == dataset].itertuples():
            assert f"{fc.SOURCES[row.source]}, {row.accuracy:g} % on {name}: {row.compute}." in notes
        assert f"This book's earlier protocol on {name}: {part['seconds'].mean:,.0f} s per seed" in " ".join(notes)
        for result in part["opponents"].values():
            assert f"{result['seconds'].mean:,.0f} s of training on two CPU cores." in " ".join(notes)
    assert all(note.endswith(".") and "\n" not in note for note in notes)      # one list item each


def test_part_one_continues_the_scaling_curve_with_the_fixed_measurements(setup):
    records_dir, store = setup
    with pytest.raises(FileNotFoundError, match="python -m greenelm_book.chapters.frontier_fixed --dataset mnist --seed 0"):
        fc.ultra_wide_part(store, "mnist", records_dir)
    _write_fixed(records_dir)
    part = fc.ultra_wide_part(store, "mnist", records_dir)
    assert part["d_ultra"] == 32000 and part["loo_curve"][32000] == 97.9 and part["lambda"][32000] == 1e5
    assert part["kernel_accuracy"] == 98.74 and store.results["mnist/arccos-kernel/accuracy"].setting["record"] == (
        "mnist-paper-map-limit-seed0.json")
    scaling = json.loads((store.directory / "scaling.json").read_text())["results"]
    for d, value in part["loo_curve"].items():                  # the scaling chapter's widths are read, not copied
        key = f"mnist/green-elm/unit/ridge-loo/d={d}/accuracy"
        assert (key in scaling) == (d != 32000) and value == pytest.approx(np.mean(
            scaling[key]["values"]) if d != 32000 else 97.9)
    glues = fc.ultra_glues(part, 99.5)
    assert glues["gap_phrase"].split(" the widest model")[0].endswith("points from") and "stays 0.76 points below the 99.5 % bar" in glues["limit_sentence"]
    # why one run is read against the bar but states no side against the widest model (one draw of weights)
    assert "draws no random weights" in glues["limit_sentence"] and "states no side" in glues["limit_sentence"]
    ridge = glues["limit_ridge_sentence"]           # the limit's μ against the μ = λ/d LOO's λ stands for
    assert ridge.startswith("Its ridge is μ = 1.0e-03 (a jitter of 1e-06); LOO's λ = 1e+05 at d = ")
    assert "stands for μ = λ/d = 3.1 in the kernel's scale, larger by 3 orders of magnitude" in ridge
    # the conjunction fails on the limit alone (98.74 < 99.5), computed, not drawn: the seeds rule does not reach it
    verdict = fc.answer_ultra_wide(store, part, 99.5).verdict
    assert verdict.label == "does not hold" and "each computed from every training image rather than from drawn features" in verdict.detail
    assert ridge.endswith("The limit with a tuned ridge is not measured here.") and "that of tuned fits is not measured" in verdict.detail


def test_the_limit_of_tuned_fits_is_read_beside_the_vanishing_ridges_and_both_decide_the_verdict(setup):
    """A reader's finding: "does not hold" rested on the paper's vanishing ridge alone, the limit of tuned fits
    unmeasured. Its record (ridge chosen on held-out training rows) is stored, said, and judged beside it:
    the claim fails only when neither limit reaches the bar, and holds on the limits' side when either does."""
    records_dir, store = setup
    _write_fixed(records_dir)
    machine = {"cpu": "Intel(R) Xeon(R) Processor", "cores": 16, "gpu": "NVIDIA H200"}
    tuned = dict(LIMIT, configuration={"model": "paper-map-limit", "input": "pixels", "ridge": "held-out"},
                 jitter=1e-5, mu=4.4e-4, jitter_grid=[1e-6, 1e-5, 1e-4], validation_share=0.2,
                 validation_scores=[0.98, 0.981, 0.97], test_accuracy=98.80, machine=machine, seed=0)
    (records_dir / "mnist-paper-map-limit-heldout-seed0.json").write_text(json.dumps(tuned))
    part = fc.ultra_wide_part(store, "mnist", records_dir)
    assert part["kernel_accuracy"] == 98.74 and part["held_out_limit"].mean == 98.80
    assert store.results["mnist/arccos-kernel/held-out-ridge/accuracy"].setting["record"] == ["mnist-paper-map-limit-heldout-seed0.json"]
    sentence = fc.ultra_glues(part, 99.5)["limit_ridge_sentence"]
    assert sentence.endswith("With its ridge chosen on held-out training rows instead (a seeded 20 % of the training "
                             "images scoring the jitters 1e-06 to 0.0001, ×10 apart, each fitted on the rest; "
                             "declared before it ran), the limit chose a jitter of 1e-05 (μ = 4.4e-04) and reaches "
                             "98.80 % (1 seed), computed on NVIDIA H200 GPU on Intel(R) Xeon(R) Processor, 16 cores (its "
                             "accuracy is read, not its seconds).")
    # one seed: the seeds rule leaves the verdict undecided; every seed's record is read (the split is seeded)
    assert fc.answer_ultra_wide(store, part, 99.5).verdict.label == "inconclusive"
    for seed, accuracy, jitter in ((1, 98.70, 1e-3), (2, 98.76, 1e-4)):
        (records_dir / f"mnist-paper-map-limit-heldout-seed{seed}.json").write_text(
            json.dumps(dict(tuned, seed=seed, test_accuracy=accuracy, jitter=jitter)))
    store = ChapterResults("frontier", "full", store.directory)            # a fresh execution of the page
    part = fc.ultra_wide_part(store, "mnist", records_dir)
    assert part["held_out_limit"].values == (98.80, 98.70, 98.76) and part["kernel_accuracy"] == 98.74
    assert "the limit chose jitters of 1e-05, 0.001 and 0.0001 (μ = 4.4e-04, 4.4e-04 and 4.4e-04) on seeds 0, 1 and 2 " \
           "and reaches 98.75 ± 0.05 % (3 seeds)" in fc.ultra_glues(part, 99.5)["limit_ridge_sentence"]
    answer = fc.answer_ultra_wide(store, part, 99.5)
    assert answer.verdict.label == "does not hold" and set(answer.keys) == {
        "mnist/arccos-kernel/accuracy", "mnist/arccos-kernel/held-out-ridge/accuracy"}
    assert "98.74 % at the vanishing ridge and 98.75 % with the held-out ridge, both < 99.5 %" in answer.verdict.detail
    assert answer.verdict.ours.endswith("limit 98.74 % (held-out ridge 98.75 %)")
    # the tuned limit alone past the bar: the limits' side of the conjunction passes (the ln d part decides)
    assert fc.answer_ultra_wide(store, part, 98.745).verdict.label != "does not hold" or \
        part["test"].log_error >= part["test"].saturating_error
    assert "fails on the limits alone" not in fc.answer_ultra_wide(store, part, 98.745).verdict.detail


def test_the_held_out_error_names_every_width_it_averages_and_the_scaling_chapter_s_as_another(setup):
    records_dir, store = setup
    _write_fixed(records_dir)
    part = fc.ultra_wide_part(store, "mnist", records_dir)
    held = part["held_widths"]
    assert held == [d for d in sorted(part["loo_curve"]) if d > 4000] and len(held) > 1 and held[-1] == 32000
    scaling = store.get("scaling", "mnist/green-elm/unit/cholesky/ln-d-fit/held-out-error")
    text = fc.held_out_sentence(part, scaling)
    # every width the mean is taken over, not only this chapter's widest (the planted defect: 32 000 alone)
    assert f"d = {fc.widths_text(held)} " in text and fc.widths_text(held).count("\u202f") == len(held)
    assert f"{part['test'].log_error:.2f} points for ln d" in text
    assert abs(part["test"].log_error - float(np.mean(np.abs(np.subtract(part["test"].log_prediction,
                                                                          part["test"].measured))))) < 1e-12
    # the scaling chapter's ln d error is printed as its own stored value, named as another quantity
    assert f"ln d error, {scaling.mean:.2f} points, is another quantity" in text
    assert f"d = {fc.widths_text(scaling.setting['held_out_widths'])} at the paper's fixed λ = 0.001" in text
    # not the verdict's only evidence: it rests on every dataset the scaling chapter measured
    assert text.endswith("one of the held-out errors, one per dataset that chapter measured, on which the ln d "
                         "verdict rests.")
    assert fc.held_out_sentence(part).endswith("for the saturating law.")
    answer = fc.answer_ultra_wide(store, part, 99.5).verdict
    assert f"mean absolute error over d = {', '.join(str(d) for d in held)} (λ by LOO): ln d " \
           f"{part['test'].log_error:.2f}" in answer.ours
    assert fc.widths_text([8000]) == "8\u202f000"


def test_the_opponent_sentence_pairs_seeds_and_states_a_side_only_where_the_gain_rule_decides(setup):
    records_dir, store = setup
    protocol = fc.record_protocol(store, fc.load_records(records_dir), [0, 1, 2])
    text = fc.opponents_sentence(protocol)
    for dataset, part in protocol.items():
        for result in part["opponents"].values():
            ours = dict(zip(part["seeds"], part["accuracy"].values))
            theirs = dict(zip(result["accuracy"].setting["seeds"], result["accuracy"].values))
            gap = np.mean([ours[s] - theirs[s] for s in theirs])          # paired over the seeds both ran
            judged = fc.opponent_gain(part, result)
            if len(theirs) < 3 or judged["outcome"] not in ("gain", "loss"):
                # no side where the gain rule decides none (finding 12 of issue 61's reading: "0.44 points
                # above … on seed 0", one seed)
                assert f"On {fc.DATASET_NAMES[dataset]} the earlier protocol's pick and " in text
                assert f"are {abs(gap):.2f} points apart on the means" in text and "(no direction judged)" in text
                assert f"the earlier protocol's pick is {abs(gap):.2f} points" not in text
            else:
                assert f"On {fc.DATASET_NAMES[dataset]} the earlier protocol's pick is {abs(gap):.2f} points " \
                       f"{'above' if gap > 0 else 'below'}" in text
            if len(theirs) < 3:
                assert "not judged by the book's gain rule: the rule needs 3 seeds, each running both" in text
            # the ratio's two sides are printed beside it (finding 5 of issue 61's reading: "4.6× on that
            # seed" with no seed's seconds shown, the page's means giving 4.26), and the ratio itself only
            # where one machine is shown to have measured both
            which = "on that seed" if len(theirs) == 1 else "on those seeds (means)"
            assert fc.seconds_ratio_words(part["seconds"], result["seconds"], judged, len(theirs), explain=False) in text
            assert text.count("their records do not show one machine measured both") <= 1     # the reason said once
            if same_host(part["seconds"], result["seconds"]):
                assert (f"{judged['ratio']:.1f}× the recipe's training seconds {which} ({judged['ours_seconds']:,.0f} s "
                        f"against {judged['theirs_seconds']:,.0f} s).") in text
            else:
                assert (f"took {judged['ours_seconds']:,.0f} s and the recipe's training {judged['theirs_seconds']:,.0f} s "
                        f"{which}, no ratio stated") in text
            assert judged["ratio"] == pytest.approx(judged["ours_seconds"] / judged["theirs_seconds"])
            assert judged["ours_seconds"] == pytest.approx(np.mean([dict(zip(part["seconds"].setting["seeds"], part["seconds"].values))[s]
                                                                    for s in judged["seeds"]]))
    # where and when the seconds were measured, as recorded (finding 20: "on one machine" where no host is recorded)
    assert "on one machine" not in text and " The protocols' and the recipes' seconds above were measured on " in text
    assert fc.opponents_sentence({}) == "No SGD opponent has a record yet."


def test_the_halving_protocols_pick_stands_beside_the_earlier_one_against_the_opponents(setup):
    """Issue 61's reading: §4 set only the earlier protocol's pick (its grid first explored on test scores)
    against the recipes; the halving protocol's pick, the one the headline quotes, stands beside it in the
    table, the sentence, the anchors and their notes, each judged by the same gain rule."""
    records_dir, store = setup
    protocol = fc.record_protocol(store, fc.load_records(records_dir), [0, 1, 2])
    dataset = next(iter(protocol))
    halving = {dataset: dict(protocol[dataset]), "cifar10-none": {"runs": []}}
    assert [name for name, _ in fc.picks_of(protocol, halving, dataset)] == ["the earlier protocol", "the halving protocol"]
    assert [name for name, _ in fc.picks_of(protocol, None, dataset)] == ["the earlier protocol"]
    methods = list(fc.opponents_view(protocol, halving)["method"])
    assert "the halving protocol (its pick, refitted)" in methods and "the earlier protocol (its pick, refitted)" in methods
    text = fc.opponents_sentence(protocol, halving)
    assert f"On {fc.DATASET_NAMES[dataset]} the halving protocol's pick" in text
    assert "the halving protocol's pick" not in fc.opponents_sentence(protocol)
    table = fc.anchor_table(protocol, halving)
    assert table["method (source)"].str.startswith("this book: the halving protocol's pick, ").sum() == 1
    assert any(line.startswith(f"This book's halving protocol on {fc.DATASET_NAMES[dataset]}: ")
               for line in fc.anchor_notes(protocol, halving))


def test_the_seconds_sentence_names_the_seed_records_that_name_their_machine(setup):
    """Issue 61's reading: §4 said the seconds were measured on "2 cores (CPU … not recorded)" while §3
    showed a seed whose record names AMD EPYC; the records that name a machine are said so, seed by seed."""
    records_dir, store = setup
    protocol = fc.record_protocol(store, fc.load_records(records_dir), [0, 1, 2])
    dataset = next(iter(protocol))
    runs = protocol[dataset]["runs"]
    assert fc.named_hosts_clause(protocol) == ""                           # no record names one: nothing to add
    named = dict(runs[0], host={"cpu": "AMD EPYC", "cores": 2})
    halving = {dataset: dict(protocol[dataset], runs=[named] + list(runs[1:]))}
    others = sum(len(part["runs"]) for part in protocol.values()) + len(runs) - 1
    clause = fc.named_hosts_clause(protocol, halving)
    assert clause == (f"Of the protocols' {others + 1} seed records, only {fc.DATASET_NAMES[dataset]}'s halving protocol "
                      f"seed {named['seed']} (AMD EPYC, 2 cores) names the machine that ran it; the other {others} "
                      "name none; the recipes' records name none")
    said = fc.opponents_sentence(protocol, halving)
    assert f" {clause}: the seconds above, pooled over seeds, are not shown to come from one machine" in said
    # records naming one machine are grouped under it, seed by seed
    both = {dataset: dict(protocol[dataset], runs=[dict(r, host={"cpu": "AMD EPYC", "cores": 2}) for r in runs[:2]]
                          + list(runs[2:]))}
    assert (f"{fc.DATASET_NAMES[dataset]}'s halving protocol seeds {runs[0]['seed']} and {runs[1]['seed']} "
            "(AMD EPYC, 2 cores) name the machine that ran them") in fc.named_hosts_clause(protocol, both)
    assert "The protocols' and the recipes' seconds above were" not in said
    every = {d: dict(part, runs=[dict(r, host={"cpu": "AMD EPYC", "cores": 2}) for r in part["runs"]])
             for d, part in protocol.items()}
    assert fc.named_hosts_clause(every) == ""                              # all name one: the host sentence says it
    own = {"cpu": "Test CPU", "cores": 2, "instance": "0123456789ab"}     # a recipe's run read from a front's point
    result = next(iter(protocol[dataset]["opponents"].values()))
    fronted = {d: dict(part, opponents={k: dict(r, runs=[dict(run, machine=own) for run in r["runs"][:1]] + r["runs"][1:])
                                        for k, r in part["opponents"].items()}) if d == dataset else part
               for d, part in protocol.items()}
    recipe_runs = sum(len(r["runs"]) for part in protocol.values() for r in part["opponents"].values())
    assert fc.named_hosts_clause(fronted, halving).endswith(
        f"; of the recipes' {recipe_runs} runs, 1 names its machine (the fronts' own-schedule points, §5) and "
        f"{recipe_runs - 1} name{'s' if recipe_runs - 1 == 1 else ''} none") and result["runs"]


def test_a_seconds_ratio_is_stated_only_where_one_machine_measured_both():
    host = {"cpu": "AMD EPYC", "cores": 2, "kernel": "6.1", "blas": "openblas", "gemm_gflops": 60.0}
    ours, theirs = SimpleNamespace(host=host), SimpleNamespace(host=dict(host, gemm_gflops=58.0))   # a GEMM reading differs
    judged = {"ratio": 5.0, "ours_seconds": 3000.0, "theirs_seconds": 600.0}
    assert fc.seconds_ratio_words(ours, theirs, judged, 3) == \
        "the whole protocol takes 5.0× the recipe's training seconds on those seeds (means) (3,000 s against 600 s)"
    other = SimpleNamespace(host=dict(host, cpu="Intel Xeon"))
    assert fc.seconds_ratio_words(ours, other, judged, 1) == (
        "the whole protocol took 3,000 s and the recipe's training 600 s on that seed, no ratio stated: their records "
        "do not show one machine measured both")
    unknown = SimpleNamespace(host=None)
    assert "no ratio stated" in fc.seconds_ratio_words(ours, unknown, judged, 3)
    assert fc.seconds_ratio_words(ours, other, judged, 1, explain=False) == (
        "the whole protocol took 3,000 s and the recipe's training 600 s on that seed, no ratio stated")


def test_the_gain_rule_judges_the_opponent_once_both_sides_have_three_seeds(setup):
    records_dir, store = setup
    seed0 = json.loads((records_dir / "mnist-seed0.json").read_text())
    opponent = json.loads((records_dir / "mnist-pytorch-mnist-cnn-published-seed0.json").read_text())
    ours, theirs = [99.50, 99.55, 99.60], [99.70, 99.74, 99.81]           # the opponent ahead on every seed
    for seed in (0, 1, 2):
        (records_dir / f"mnist-seed{seed}.json").write_text(json.dumps(dict(seed0, seed=seed, test_accuracy=ours[seed])))
        (records_dir / f"mnist-pytorch-mnist-cnn-published-seed{seed}.json").write_text(
            json.dumps(dict(opponent, seed=seed, accuracy=theirs[seed], seconds=100.0 * (seed + 1))))
    protocol = fc.record_protocol(store, fc.load_records(records_dir), [0, 1, 2])
    judged = fc.opponent_gain(protocol["mnist"], protocol["mnist"]["opponents"]["published"])
    assert judged["seeds"] == [0, 1, 2] and judged["outcome"] == "loss"
    assert judged["gap"] == pytest.approx(np.mean(np.subtract(ours, theirs)))
    seconds = [seed0["seconds"]["total"]] * 3
    assert judged["ratio"] == pytest.approx(np.mean(seconds) / 200.0)
    text = fc.opponents_sentence(protocol)
    assert (f"On MNIST the earlier protocol's pick is {abs(judged['gap']):.2f} points below the PyTorch examples' MNIST CNN "
            "(its own schedule) over 3 paired seeds, a loss by the book's gain rule, since the mean paired "
            "difference") in text
    # the seconds say over which seeds they are taken (a ratio only where one machine measured both)
    assert fc.seconds_ratio_words(protocol["mnist"]["seconds"], protocol["mnist"]["opponents"]["published"]["seconds"],
                                  judged, 3).endswith("on those seeds (means)" + (
        f" ({np.mean(seconds):,.0f} s against 200 s)" if same_host(
            protocol["mnist"]["seconds"], protocol["mnist"]["opponents"]["published"]["seconds"]) else
        ", no ratio stated: their records do not show one machine measured both"))
    # the floor is named and rounded as the bar
    detail = judged["verdict"].detail
    floor = 2 * fb.difference_sampling_error(np.mean(theirs), np.mean(ours), protocol["mnist"]["n_test"])
    assert (f"at least the floor {floor:.2f}: 2 sampling errors of a difference of two accuracies on "
            f"{protocol['mnist']['n_test']:,} test images") in detail
    assert not re.search(r"\d\.\d{3,}", detail), detail                 # no raw float beside the rounded bar
    # what the bar is made of is said once in a passage; a later use gives the bar's value alone
    brief = fc.opponent_gain(protocol["mnist"], protocol["mnist"]["opponents"]["published"], explain=False)
    assert brief["verdict"].label == judged["verdict"].label and brief["verdict"].detail == detail.split(" (2 sd")[0]
    assert text.count("(2 sd of the paired differences") == 1
    (records_dir / "mnist-pytorch-mnist-cnn-published-seed2.json").unlink()   # two seeds: not judged
    fresh = records_dir.parent / "results-two-seeds"
    fresh.mkdir()
    protocol = fc.record_protocol(ChapterResults("frontier", "full", fresh), fc.load_records(records_dir), [0, 1, 2])
    judged = fc.opponent_gain(protocol["mnist"], protocol["mnist"]["opponents"]["published"])
    assert judged["seeds"] == [0, 1] and judged["outcome"] == "no gain shown"
    assert judged["verdict"].label == "inconclusive"


def _synthetic_scaling(directory, limit=None):
    """A scaling chapter whose LOO curve lies on 80 + 2 ln(d / 500) up to d = 4000 (and its limit)."""
    scaling = ChapterResults("scaling", "full", directory)
    for d in (500, 1000, 2000, 4000):
        scaling.record(f"mnist/green-elm/unit/ridge-loo/d={d}/accuracy", [80 + 2 * np.log(d / 500)], "%")
    scaling.record("mnist/green-elm/unit/ridge-loo/d=4000/lambda", [100.0], "")
    if limit is not None:
        scaling.record("mnist/arccos-kernel/accuracy", [limit], "%")


@pytest.mark.parametrize("limit, label", [(99.0, "holds"), (95.0, "does not hold")])
def test_the_answer_holds_only_when_ln_d_predicts_and_the_limit_reaches_the_bar(tmp_path, limit, label):
    _synthetic_scaling(tmp_path / "results")
    records = tmp_path / "records"
    records.mkdir()
    wide = dict(WIDE, configuration=dict(WIDE["configuration"], n_hidden=8000), alpha=100.0,
                test_accuracy=80 + 2 * np.log(8000 / 500))
    (records / "mnist-paper-map-d8000-seed0.json").write_text(json.dumps(wide))
    (records / "mnist-paper-map-limit-seed0.json").write_text(json.dumps(dict(LIMIT, test_accuracy=limit)))
    store = ChapterResults("frontier", "full", tmp_path / "results")
    part = fc.ultra_wide_part(store, "mnist", records)
    assert part["fit_widths"] == [500, 1000, 2000, 4000] and part["held_widths"] == [8000]
    assert "scaling:mnist/green-elm/unit/ridge-loo/d=4000/accuracy" in store.reads
    answer = fc.answer_ultra_wide(store, part, 98.0)
    if label == "holds":
        # a pass rests on the widths too: one draw per width cannot decide it (the seeds rule)
        assert answer.verdict.label == "inconclusive" and "the test gives holds (" in answer.verdict.detail
        assert answer.keys == ("mnist/green-elm/unit/ridge-loo/d=8000/accuracy", "mnist/arccos-kernel/accuracy")
    else:
        # a limit below the bar fails the conjunction alone, on no random draw: it decides
        assert answer.verdict.label == "does not hold" and "each computed from every training image rather than from drawn features" in answer.verdict.detail
        assert answer.keys == ("mnist/arccos-kernel/accuracy",)
    glues = fc.ultra_glues(part, 98.0)
    assert glues["ln_error_abs"] < 1e-6 and glues["d_ultra"] == "8\u202f000" and glues["lam_ultra"] == "1e+02"
    assert fc.plot_ultra_wide(part).axes[0].get_xscale() == "log"


def test_a_limit_the_scaling_chapter_measured_is_read_there_not_from_the_record(tmp_path):
    _synthetic_scaling(tmp_path / "results", limit=97.5)
    records = tmp_path / "records"
    records.mkdir()
    _write_fixed(records)
    store = ChapterResults("frontier", "full", tmp_path / "results")
    part = fc.ultra_wide_part(store, "mnist", records)
    assert part["kernel_accuracy"] == 97.5 and "mnist/arccos-kernel/accuracy" not in store.results
    assert "scaling:mnist/arccos-kernel/accuracy" in store.reads


def test_the_chapter_is_prose_over_calls_and_fits_nothing():
    import re

    import jupytext

    nb = jupytext.read(ROOT / "notebooks" / "frontier.py", fmt="py:percent")
    code = [c for c in nb.cells if c.cell_type == "code" and "parameters" not in c.metadata.get("tags", [])]
    for cell in code:
        lines = [line for line in cell.source.splitlines() if line.strip()]
        assert len(lines) <= 15, cell.source
        assert not re.search(r"^\s*def |\blambda\b|\.fit\(|memoize", cell.source, re.M), cell.source
    params = next(c for c in nb.cells if "parameters" in c.metadata.get("tags", []))
    for name in ("seed", "ultra_dataset", "ultra_goal", "records_dir", "protocol_params"):
        assert re.search(rf"^{name} = ", params.source, re.M), name


def test_gains_are_said_in_the_gain_rules_own_words_on_validation_accuracy(setup):
    records_dir, store = setup
    records = fc.load_records(records_dir)
    protocol = fc.record_protocol(store, records, [0, 1, 2])
    text = fc.gains_text(records, protocol)
    for dataset in protocol:
        for verdict in fc.variant_gains(records, dataset).values():
            assert verdict.ours.rsplit(": ", 1)[0] in text   # "B − A = … (paired, n = …)", then its outcome
    assert "inconclusive" not in text and "holds" not in text    # no claim of the paper is judged here
    # each side a best of its candidates: their counts are named, and the selection's optimism said
    for dataset in protocol:
        assert re.search(rf"{fc.DATASET_NAMES[dataset]}: .*?\(candidates per variant: .*?ridge readout \d+\)\.", text)
    assert "its lead is an upper bound of what a split the choice never saw would show, and shows no gain" in text


def test_a_gain_of_the_side_with_more_candidates_is_not_judged_a_gain():
    """Finding 14 of issue 61's reading: "kernel limit − ridge readout = +0.97 …: a gain", the limit the best
    of 8 candidates on the rows that chose it against one readout: an upper bound, not a gain."""
    from greenelm_book.judging.verdicts import gain_over

    gain = gain_over([98.0, 98.1, 98.2], [99.0, 99.05, 99.2], names=("ridge readout", "kernel limit"))
    assert gain.ours.endswith(": a gain")
    bounded = fc.selection_bounded(gain, 8, 1)
    assert bounded == (gain.ours.rsplit(": ", 1)[0] + ": no gain shown (best of 8 candidates against 1, on the "
                       "rows that chose them: an upper bound)")
    assert fc.selection_bounded(gain, 1, 1) == gain.ours                 # equal choices: the rule's own word
    loss = gain_over([99.0, 99.05, 99.2], [98.0, 98.1, 98.2], names=("ridge readout", "kernel limit"))
    assert fc.selection_bounded(loss, 8, 1) == loss.ours                 # a loss despite the choice stands


def test_the_chapters_relative_paths_are_read_from_the_root_whatever_the_working_directory(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)                              # nbval runs a smoke reference from its own folder
    assert fc.planned_seeds("params/frontier_protocol.yml") == [0, 1, 2]
    assert fc.load_records("book/frontier_protocol") == fc.load_records(RECORDS)
    assert fc.fixed_records("mnist", "book/frontier_protocol") == fc.fixed_records("mnist", RECORDS)
    other = fc.fixed_records("mnist", RECORDS, seed=1)          # another seed's: only the seeded held-out limits,
    assert other["widths"] == {} and other["limit"] is None      # read whatever the seed (every seed's split)
    assert [r["seed"] for r in other["limit_held_out"]] == [r["seed"] for r in fc.fixed_records("mnist", RECORDS)["limit_held_out"]]


# ----------------------------------------------------------------------------- the anchors' data (paper.ANCHORS)

ANCHOR_COLUMNS = ["dataset", "method", "accuracy", "trained", "size", "augmentation", "compute", "source"]


def _bib_keys() -> set[str]:
    return set(re.findall(r"^@\w+\{([^,\s]+),", (ROOT / "book" / "references.bib").read_text(), re.M))


def test_every_anchor_says_what_is_trained_its_size_augmentation_and_compute():
    assert list(ANCHORS.columns) == ANCHOR_COLUMNS
    for row in ANCHORS.itertuples(index=False):
        for column, value in zip(ANCHOR_COLUMNS, row):
            assert value is not None and str(value).strip() and not pd.isna(value), (column, row)
        assert row.trained in TRAINED, row
        assert row.dataset in ("mnist", "cifar10") and 0 < row.accuracy <= 100


def test_every_anchor_source_has_a_short_name_and_a_bibtex_entry():
    keys = _bib_keys()
    for source in ANCHORS.source.unique():
        assert source in fc.SOURCES, source
        assert source in keys, source
    assert set(fc.SOURCES) <= keys


def test_no_anchor_trained_by_sgd_is_called_training_free():
    for row in ANCHORS.itertuples():
        if "SGD" in row.trained:
            assert not re.search(r"training[- ]free|no training|untrained|one[- ]shot", row.method, re.I), row.method
        if row.trained in ("nothing",):
            assert "SGD" not in row.method


def test_the_anchors_include_the_kernel_methods_and_the_fast_sgd_recipes():
    trained = dict(zip(ANCHORS.source + "/" + ANCHORS.accuracy.astype(str), ANCHORS.trained))
    assert trained["shankar2020neural/90.0"] == "kernel ridge"
    assert trained["chen2019cknpytorch/90.2"] == "whole network (SGD)"          # the supervised CKN
    assert trained["chen2019cknpytorch/84.0"] == "convex readout (SVM)"         # the unsupervised one
    assert trained["page2018how/94.08"] == trained["jordan2024airbench/94.01"] == "whole network (SGD)"
    # Thiry et al.'s "linear" and one-hidden-layer heads are trained by SGD, on crops and flips
    thiry = ANCHORS[ANCHORS.source == "thiry2021unreasonable"]
    assert set(thiry.trained) == {"SGD-trained head"} and 88.5 in set(thiry.accuracy)
    assert thiry.augmentation.str.contains("flips").all()


def test_a_dataset_short_of_its_planned_seeds_is_named_with_its_count_and_not_yet_headlined(tmp_path):
    records = tmp_path / "records"
    records.mkdir()
    for seed in (0, 1, 2):
        shutil.copy(RECORDS / f"fashion-mnist-seed{seed}.json", records)
    seed0 = json.loads((RECORDS / "mnist-seed0.json").read_text())
    for seed in (0, 1):
        (records / f"mnist-seed{seed}.json").write_text(json.dumps(dict(seed0, seed=seed)))
    results = tmp_path / "results"
    results.mkdir()
    shutil.copy(ROOT / "book" / "results" / "scaling.json", results)

    def sentence():
        store = ChapterResults("frontier", "full", results)
        return fc.protocol_sentence(fc.record_protocol(store, fc.load_records(records), [0, 1, 2]), [0, 1, 2])

    text = sentence()
    assert ("MNIST has fewer seeds than planned (2 of 3), so its number is not yet the headline; the book's gain "
            "rule judges no difference over fewer than 3 seeds.") in text
    assert "Fashion-MNIST has" not in text and "one run's" not in text
    (records / "mnist-seed2.json").write_text(json.dumps(dict(seed0, seed=2)))
    assert "fewer seeds than planned" not in sentence()


def test_each_opponent_is_named_by_its_optimiser_and_a_borrowed_recipe_is_said_to_be_untuned(setup):
    records_dir, store = setup
    protocol = fc.record_protocol(store, fc.load_records(records_dir), [0, 1, 2])
    text = fc.opponent_recipes_text(protocol)
    for dataset, part in protocol.items():
        for result in part["opponents"].values():
            assert f"{fc.DATASET_NAMES[dataset]}, {fb.recipe_words(result['accuracy'].setting['recipe'], dataset)}." in text
    if "mnist" in protocol and protocol["mnist"]["opponents"]:
        assert "Adadelta" in text and "not plain SGD" in text
    assert fc.opponent_recipes_text({}) == "no opponent has a record yet."


def test_the_limit_against_the_widest_model_states_a_side_only_where_decided():
    """Issue 61's reading: the frontier page said "0.84 points above the widest model" where the conclusion
    said no direction can be judged from one run per side; both now say the latter."""
    assert fc.widest_gap_phrase(98.74, 97.90) == \
        "0.84 points from the widest model on the means (no direction judged: one run per side)"
    assert fc.widest_gap_phrase(97.0, 97.0).startswith("level with the widest model")


def test_an_opponents_own_schedule_runs_are_completed_from_the_fronts_last_points(setup, tmp_path):
    """A seed with no opponent record of its own takes the recipe's own-schedule point of the accuracy-seconds
    front (the same declared measurement), a seed with one keeps its record; a shortened schedule, a GPU's
    point or a subset's is not read as the opponent's run; §4 then pairs the protocol with every such seed."""
    records_dir, store = setup
    budget = tmp_path / "budget"
    budget.mkdir()
    own = {"family": "sgd", "model": "pytorch-mnist-cnn", "epochs": 14}
    host = {"cpu": "Test CPU", "cores": 2, "instance": "0123456789ab"}

    def point(seed, accuracy, spec=own, **extra):
        record = {"dataset": "mnist", "seed": seed, "point": spec, "subset": None, "n_train": 60000,
                  "seconds": 600.0 + seed, "test_accuracy": accuracy, "n_test": 10000, "device": None,
                  "started_at": "2026-12-04T20:00:00+00:00", "machine": host, **extra}
        fb.point_record_path(budget, "mnist", spec, seed).write_text(json.dumps(record))

    for seed in (0, 1, 2):
        point(seed, 50.0 + seed)                                    # seed 0: the opponent's own record stands
    point(3, 51.0, spec=dict(own, epochs=4))                        # a shortened schedule: not the opponent's run
    point(4, 52.0, device="cuda")                                   # a GPU's point: not this CPU opponent's
    records = fc.load_records(records_dir, budget)
    before = fc.load_records(records_dir)["mnist"]["opponents"]
    got = records["mnist"]["opponents"]
    assert got[("published", 0)] == before[("published", 0)]
    assert {k: (v["accuracy"], v["seconds"], v["machine"]) for k, v in got.items() if k != ("published", 0)} == {
        ("published", 1): (51.0, 601.0, host), ("published", 2): (52.0, 602.0, host)}
    assert got[("published", 2)]["measured_by"].endswith("mnist-sgd-pytorch-mnist-cnn-e14-seed2.json")
    assert fc.load_records(records_dir)["mnist"]["opponents"] == before          # the records read are not changed
    protocol = fc.record_protocol(store, records, [0, 1, 2])
    assert protocol["mnist"]["opponents"]["published"]["accuracy"].setting["seeds"] == [0, 1, 2]


def test_the_fixed_measurements_are_not_read_as_protocol_seeds():
    """The paper's map's fixed records (its widths, its limit and the limit with a held-out ridge) are not a
    dataset's protocol seeds: no dataset named after them appears."""
    assert not [d for d in fc.load_records(RECORDS) if "paper-map" in d]


def test_the_committed_page_says_what_the_gain_rules_bar_is_made_of_once_per_passage():
    """§3 (the two protocols' picks) and §4 (each pick against its recipe) each explain the gain rule's bar at
    its first use and give its value alone after that (they once repeated it in every sentence)."""
    from greenelm_book.summaries.bottom_line import rendered_text

    text = rendered_text(ROOT / "book" / "frontier.ipynb")
    assert 1 <= text.count("(2 sd of the paired differences") <= 2, text.count("(2 sd of the paired differences")


def test_a_picks_method_names_each_variant_once_with_the_depths_of_its_map():
    one, two = {"variant": "limit"}, {"variant": "limit", "depth": 2}
    assert fc.picks_method([one, one]) == "the paper's map in its d → ∞ limit on whitened random patches"
    assert fc.picks_method([one, two, one]) == ("the paper's map (2 layers deep in 1 of 3 picks) in its d → ∞ limit on "
                                                "whitened random patches")
    assert fc.picks_method([two]) == ("the paper's map (2 layers deep in 1 of 1 picks) in its d → ∞ limit on whitened "
                                      "random patches")
    assert fc.picks_method([one, {"variant": "readout"}]).endswith("; a ridge readout on whitened random patches")


@pytest.mark.parametrize("values, side, below", [
    ([99.47, 99.52, 99.49, 99.55, 99.50, 99.46], "contains the bar", 3),
    ([99.61, 99.60, 99.63], "lies above it", 0),
    ([99.31, 99.30, 99.33], "lies below it", 3)])
def test_the_patches_stand_against_the_bar_by_the_interval_of_their_mean(tmp_path, values, side, below):
    store = ChapterResults("frontier", "full", tmp_path)
    assert fc.patches_bar_sentence(store, 99.5) == ""                  # no seed recorded: nothing said
    store.record("mnist/frontier-halving/test-accuracy", values, "%", dataset="mnist")
    sentence = fc.patches_bar_sentence(store, 99.5)
    assert side in sentence and f"({below} of {len(values)} seeds below 99.5 %)" in sentence
    assert "not judged by this question" in sentence
