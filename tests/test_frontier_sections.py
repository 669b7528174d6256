"""The frontier page's sections of issue 62 (greenelm_book.chapters.frontier_sections), on synthetic
records in tmp folders: the halving protocol's records checked against their ledger (a second test
read, a read by another configuration, a read the ledger lacks: refused by name), recorded one value
per seed, each seed's whole protocol against its limit (over is said to be over), no verdict from fewer
than three seeds; the two protocols side by side, the earlier one labelled; every rung's survivors; the
ledger's reads; the grid's sources table generated from the parameters (the values no source gives
computed as the book's own, every source a BibTeX key of the book); the accuracy-seconds fronts (the
figure renders, the answer follows the sign of the difference, fewer than three seeds give no answer)."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

from greenelm_book.chapters import frontier as fc
from greenelm_book.chapters import frontier_budget as fb
from greenelm_book.chapters import frontier_sections as fs
from greenelm_book.chapters.frontier_protocol import Candidate, TestGate, configuration_key
from greenelm_book.chapters.frontier_records import candidate_text
from greenelm_book.running.toc import ROOT
from greenelm_book.store.results import ChapterResults

PICK = Candidate(variant="limit", n_patches=128, patch_size=8, pool=4).as_dict()
OTHER = Candidate(variant="readout", n_patches=256, patch_size=5, pool=2, ridge=(1.0,)).as_dict()
SIZES = [(10, 5), (30, 15), (90, 45)]
SPEC = {"seeds": [0, 1, 2], "datasets": {"mnist": {"sizes": SIZES, "budget_seconds": 1800, "grid": []},
                                         "fashion-mnist": {"sizes": SIZES, "budget_seconds": 1800, "grid": []},
                                         "cifar10": {"sizes": SIZES, "budget_seconds": 2700, "grid": []}}}


def halving_record(folder, dataset="mnist", seed=0, *, accuracy=99.0, total=1500.0, reads=1, pick=PICK,
                   read_by=None, failed=0, load=(0.05, 0.3, 0.6), host=None):
    """A halving record of 9 candidates (rung 0 keeps 3, rung 1 keeps 1: the pick), its test labels read
    ``reads`` times through a gate whose ledger is ``folder/test-reads.json`` (by ``read_by``, default
    the pick); ``failed`` fits of rung 0 failed; ``host``: the machine it names (none by default, as the
    records older than hosts). Written to ``folder/<dataset>-seed<seed>.json``."""
    folder.mkdir(exist_ok=True)
    gate = TestGate({dataset: np.zeros(100, int)}, ledger=folder / "test-reads.json")
    for _ in range(reads):
        gate.score(dataset, seed, read_by or pick, np.zeros(100, int))
    zero = [{"index": i, "validation_accuracy": None if i < failed else 90.0 + i + seed / 10, "seconds": 1.0}
            for i in range(9)]
    one = [{"index": i, "validation_accuracy": 95.0 + i / 10 + seed / 10, "seconds": 3.0} for i in (6, 7, 8)]
    record = {"dataset": dataset, "seed": seed, "protocol": "successive halving", "eta": 3, "n_train": 600,
              "n_test": 100, "sizes": [list(s) for s in SIZES], "subset": None,
              "rungs": [{"rung": 0, "n_fit": 10, "n_validation": 5, "fits": zero, "survivors": [6, 7, 8],
                         "seconds": 9.0},
                        {"rung": 1, "n_fit": 30, "n_validation": 15, "fits": one, "survivors": [8], "seconds": 9.0}],
              "pick": pick, "pick_index": 8, "validation_accuracy": 95.8 + seed / 10, "test_accuracy": accuracy,
              "seconds": {"selection": 18.0, "rungs": [9.0, 9.0], "refit": total - 20.0, "scoring": 2.0,
                          "total": total},
              "peak_memory_gb": 3.5, "test_reads": gate.reads(dataset, seed),
              "load_average": {"started": None if load is None else list(load), "finished": [2.1, 2.2, 2.0]}}
    if host is not None:
        record["host"] = dict(host)
    (folder / f"{dataset}-seed{seed}.json").write_text(json.dumps(record), encoding="utf-8")
    return record


def store_in(tmp_path) -> ChapterResults:
    results = tmp_path / "results"
    results.mkdir(exist_ok=True)
    return ChapterResults("frontier", "full", results)


# ----------------------------------------------------------------------------- the halving records
def test_the_halving_records_are_recorded_one_value_per_seed(tmp_path):
    folder = tmp_path / "halving"
    runs = [halving_record(folder, seed=s, accuracy=99.0 + s / 10, total=1500.0 + 10 * s) for s in (0, 1, 2)]
    records = fs.halving_records(folder)
    assert sorted(records) == ["mnist"] and sorted(records["mnist"]) == [0, 1, 2]
    store = store_in(tmp_path)
    halving = fs.record_halving(store, records, SPEC)
    assert list(halving) == ["mnist", "fashion-mnist", "cifar10"]            # the page's order, every dataset
    part = halving["mnist"]
    assert part["accuracy"].values == (99.0, 99.1, 99.2) and part["seconds"].values == (1500.0, 1510.0, 1520.0)
    assert part["validation"].values == tuple(r["validation_accuracy"] for r in runs)
    assert store.results["mnist/frontier-halving/refit-seconds"].values == tuple(r["seconds"]["refit"] for r in runs)
    assert part["accuracy"].setting["picks"] == [configuration_key(PICK)] * 3
    assert part["accuracy"].setting["limit_seconds"] == 1800.0 and part["accuracy"].setting["computed_at"][0][:2] == "20"
    assert halving["cifar10"] == {"seeds": [], "planned": [0, 1, 2], "limit": 2700.0, "runs": [],
                                  "sizes": [list(s) for s in SIZES]}
    assert fs.halving_records(tmp_path / "none") == {}                      # no folder: nothing yet


def test_the_seconds_carry_the_host_only_where_every_seed_records_the_same_one(tmp_path):
    """Provenance: a halving record names the machine that ran it; the seeds' seconds carry that host when
    every seed records the same one, and only their cores (the record's words) when one lacks it or differs."""
    host = {"cpu": "AMD EPYC", "cores": 2, "kernel": "6.1", "blas": "openblas 0.3.30 (Haswell), 2 threads",
            "gemm_gflops": 60.0}
    for case, hosts in (("same", [host, host, host]), ("mixed", [host, None, host]),
                        ("other", [host, dict(host, cpu="Intel Xeon"), host])):
        folder = tmp_path / case
        for seed, recorded in zip((0, 1, 2), hosts):
            record = halving_record(folder, seed=seed)
            if recorded:
                record["host"] = recorded
                (folder / f"mnist-seed{seed}.json").write_text(json.dumps(record), encoding="utf-8")
        part = fs.record_halving(store_in(tmp_path / case), fs.halving_records(folder), SPEC)["mnist"]
        if case == "same":
            assert part["seconds"].host == host
        else:
            assert part["seconds"].host["cpu"] is None and part["seconds"].host["cores"] == 2
        if case == "mixed":      # each seed's row names the host its record names, or says none is recorded
            assert list(fs.halving_seeds_table({"mnist": part}, "mnist")["measured on"]) == [
                "AMD EPYC, 2 cores", "not recorded", "AMD EPYC, 2 cores"]


def test_a_second_test_read_a_read_by_another_configuration_and_a_missing_ledger_are_refused(tmp_path):
    halving_record(tmp_path / "twice", reads=2)
    with pytest.raises(ValueError, match=r"mnist-seed0.json: MNIST, seed 0: its own list of test reads holds 2 "
                                         r"read\(s\) of the test labels"):
        fs.halving_records(tmp_path / "twice")
    halving_record(tmp_path / "other", read_by=OTHER)
    with pytest.raises(ValueError, match="the protocol reads them once, by its pick"):
        fs.halving_records(tmp_path / "other")
    halving_record(tmp_path / "lost")
    (tmp_path / "lost" / "test-reads.json").unlink()
    with pytest.raises(ValueError, match=r"the ledger test-reads.json holds 0 read\(s\) of the test labels \(no read\)"):
        fs.halving_records(tmp_path / "lost")
    record = halving_record(tmp_path / "fine")
    assert fs.check_test_reads(record, record["test_reads"])["key"] == configuration_key(PICK)


def test_a_seed_over_its_limit_is_reported_as_over(tmp_path):
    folder = tmp_path / "halving"
    for seed, total in ((0, 1700.0), (1, 1950.0), (2, 1790.0)):
        halving_record(folder, seed=seed, total=total)
    halving = fs.record_halving(store_in(tmp_path), fs.halving_records(folder), SPEC)
    assert fs.seeds_over_limit(halving["mnist"]["seconds"]) == [1]          # read from the stored Result alone
    table = fs.halving_seeds_table(halving, "mnist")
    assert list(table["against the limit"]) == ["under the 30.0 min limit", "over the 30.0 min limit by 2.5 min",
                                                "under the 30.0 min limit"]
    assert list(table["pick"]) == [candidate_text(PICK)] * 3 and list(table["test (%)"]) == ["99.00"] * 3
    assert fs.limit_verdict(halving["mnist"], "mnist").label == "does not hold"
    text = fs.halving_sentence(halving)
    assert "MNIST: 3 of 3 seeds run, 99.00 % ± 0.00 over 3 seeds" in text
    assert ("over its 30.0 min limit on seed 1 (within it on seeds 0 and 2); within the limit on every seed: does not hold (decided by seed 1, over "
            "the limit after starting on a quiet machine; seed 1 names no machine)." in text)
    assert fs.limit_verdict(halving["mnist"], "mnist").detail.endswith("(the quiet rule satisfied); seed 1 names no machine")
    named = tmp_path / "named"              # a deciding record that names its machine is not said to name none
    for seed, total, gemm in ((0, 1700.0, 90.0), (1, 1950.0, 34.4), (2, 1790.0, 98.8)):
        halving_record(named, seed=seed, total=total, host={"cpu": "AMD EPYC", "cores": 2, "gemm_gflops": gemm})
    (tmp_path / "n").mkdir()
    named_part = fs.record_halving(store_in(tmp_path / "n"), fs.halving_records(named), SPEC)["mnist"]
    # a record that names its machine is not said to name none; its GEMM rate is set beside those within the limit
    assert fs.overrun_hosts_words(named_part) == (
        "; seed 1 read a float64 GEMM rate of 34.4 GFLOP/s when it started, the seeds within the limit 90.0–98.8")
    assert ("(decided by seed 1, over the limit after starting on a quiet machine; seed 1 read a float64 GEMM rate of "
            "34.4 GFLOP/s when it started, the seeds within the limit 90.0–98.8)") in fs.halving_sentence({"mnist": named_part})
    assert "Fashion-MNIST and CIFAR-10: no seed run yet under the halving protocol." in text
    assert fs.against_limit(1800.0, 1800.0) == "at the 30.0 min limit"
    record = json.loads((folder / "mnist-seed1.json").read_text())
    record["test_reads"][0]["at"] = "2020-01-01T00:00:00+00:00"          # not the read the ledger holds
    (folder / "mnist-seed1.json").write_text(json.dumps(record))
    with pytest.raises(ValueError, match="is not the ledger's"):
        fs.halving_records(folder)


def test_a_seed_not_started_on_a_quiet_machine_leaves_the_limit_undecided(tmp_path):
    """Issue 61's quiet rule on the protocol's seconds: the 1- and 5-minute loads read when each seed started;
    one above 0.5 (or none read) leaves "within the limit" inconclusive, the test's outcome for information."""
    folder = tmp_path / "halving"
    for seed, total, load in ((0, 1700.0, (0.1, 0.3, 0.5)), (1, 1950.0, (2.3, 2.2, 2.0)), (2, 1790.0, None)):
        halving_record(folder, seed=seed, total=total, load=load)
    halving = fs.record_halving(store_in(tmp_path), fs.halving_records(folder), SPEC)
    assert fs.started_loads(halving["mnist"]) == {"seed 0": [0.1, 0.3], "seed 1": [2.3, 2.2], "seed 2": None}
    verdict = fs.limit_verdict(halving["mnist"], "mnist")
    assert verdict.label == "inconclusive" and "(the quiet rule)" in verdict.detail
    assert "seed 1: the 1-minute load average (2.3) and the 5-minute load average (2.2) above 0.5" in verdict.detail
    assert "seed 2: no load average read when it started" in verdict.detail and "seed 0" not in verdict.detail.split(";")[0]
    assert verdict.ours == "seed 0: 28.3 min, seed 1: 32.5 min, seed 2: 29.8 min"
    assert "within the limit on every seed: inconclusive (the quiet rule" in fs.halving_sentence(halving)
    assert list(fs.halving_seeds_table(halving, "mnist")["load at start (1, 5 min)"]) == ["0.10, 0.30", "2.30, 2.20",
                                                                                        "not read"]
    assert set(fs.halving_seeds_table(halving, "mnist")["measured on"]) == {"not recorded"}


def test_fewer_than_three_seeds_give_no_verdict(tmp_path):
    folder = tmp_path / "halving"
    halving_record(folder, seed=0, total=1000.0)
    halving = fs.record_halving(store_in(tmp_path), fs.halving_records(folder), SPEC)
    text = fs.halving_sentence(halving)
    assert text.startswith("MNIST: 1 of 3 seeds run, 99.00 % (one seed), ± 0.99 test-set sampling error (100 images), "
                           "the whole protocol 16.7 min per seed (mean), under its 30.0 min limit; no verdict from "
                           "fewer than 3 seeds (the seeds rule).")
    assert "holds" not in text
    verdict = fs.limit_verdict(halving["mnist"], "mnist")
    assert verdict.label == "inconclusive" and "MNIST (1 seed)" in verdict.detail and "(the seeds rule)" in verdict.detail
    assert list(fs.protocols_table({}, halving, "mnist")["seeds"]) == ["1 of 3"]


def test_the_two_protocols_stand_side_by_side_the_earlier_one_labelled(tmp_path):
    earlier_dir = tmp_path / "earlier"
    earlier_dir.mkdir()
    for path in (ROOT / "book" / "frontier_protocol").glob("*-seed*.json"):
        if "paper-map" not in path.name:
            shutil.copy(path, earlier_dir)
    store = store_in(tmp_path)
    earlier = fc.record_protocol(store, fc.load_records(earlier_dir), [0, 1, 2])
    folder = tmp_path / "halving"
    for seed in (0, 1, 2):
        halving_record(folder, seed=seed, accuracy=99.0 + seed / 10)
    halving = fs.record_halving(store, fs.halving_records(folder), SPEC)
    table = fs.protocols_table(earlier, halving, "mnist")
    assert list(table.columns) == ["protocol", "seeds", "test accuracy (%)", "whole protocol per seed", "limit"]
    old, new = table.to_dict("records")
    assert old["protocol"].startswith("earlier: every candidate fitted on 20,000 rows") and fc.grid_history() in old["protocol"]
    assert old["test accuracy (%)"] == fb.accuracy_cell(earlier["mnist"]["accuracy"].values, earlier["mnist"]["n_test"])
    assert old["limit"] == "none set" and new["limit"] == "30.0 min"
    assert new["protocol"].startswith("successive halving: 3 rungs, 10 to 90 fit rows and 5 to 45 validation rows")
    assert new["test accuracy (%)"] == fb.accuracy_cell([99.0, 99.1, 99.2], 100)
    waiting = fs.protocols_table(earlier, halving, "cifar10").to_dict("records")
    assert waiting[1]["test accuracy (%)"] == "no seed run yet" and waiting[1]["seeds"] == "0 of 3"
    assert waiting[1]["limit"] == "45.0 min"
    judged = fs.protocols_gain(earlier["mnist"], halving["mnist"])       # paired by seed, with the sampling error
    assert judged.ours.startswith("the halving protocol's pick − the earlier protocol's pick =")
    assert "against the earlier protocol's picks, the halving protocol's pick −" in fs.halving_sentence(halving, earlier)
    # a limit left to the quiet rule (a seed started on a busy machine) still compares the picks' accuracies
    (tmp_path / "busy").mkdir()
    for seed in (0, 1, 2):
        halving_record(tmp_path / "busy" / "halving", seed=seed, accuracy=99.0 + seed / 10, load=(1.9, 1.8, 1.5))
    busy = fs.record_halving(store_in(tmp_path / "busy"), fs.halving_records(tmp_path / "busy" / "halving"), SPEC)
    sentence = fs.halving_sentence(busy, earlier)
    assert "(the quiet rule: 3 of 3 seeds started on a machine it calls busy)" in sentence
    assert "against the earlier protocol's picks, the halving protocol's pick −" in sentence


def test_every_rung_shows_its_rows_candidates_survivors_and_failed_fits(tmp_path):
    folder = tmp_path / "halving"
    halving_record(folder, seed=0, failed=2)
    halving_record(folder, seed=1)
    halving = fs.record_halving(store_in(tmp_path), fs.halving_records(folder), SPEC)
    rows = fs.rungs_table(halving, "mnist").to_dict("records")
    assert [r["fit / validation rows"] for r in rows] == ["10 / 5", "30 / 15"]
    assert [r["candidates"] for r in rows] == ["9 (2 / 0 failed)", "3"] and [r["kept"] for r in rows] == ["3", "1"]
    assert rows[0]["best validation (%)"] == "98.05 ± 0.07" and rows[1]["seconds (mean)"] == "9"
    assert [r["seeds"] for r in rows] == [2, 2]


def test_the_ledger_sentence_lists_every_read_and_names_a_read_without_a_record(tmp_path):
    folder = tmp_path / "halving"
    halving_record(folder, seed=0)
    halving = fs.record_halving(store_in(tmp_path), fs.halving_records(folder), SPEC)
    at = json.loads((folder / "test-reads.json").read_text())["reads"][0]["at"]
    text = fs.ledger_sentence(folder, halving, "mnist")
    assert text == (f"The halving protocol's ledger (halving/test-reads.json) lists 1 read of MNIST's test labels: "
                    f"seed 0 by its pick at {at[:10]} {at[11:16]} UTC.")
    TestGate({"mnist": np.zeros(100, int)}, ledger=folder / "test-reads.json").score("mnist", 5, PICK, np.zeros(100))
    assert "lists 2 reads" in fs.ledger_sentence(folder, halving, "mnist")
    assert "seed 5 by its pick at" in fs.ledger_sentence(folder, halving, "mnist")
    assert fs.ledger_sentence(folder, halving, "mnist").endswith("(that seed has no record).")
    assert fs.ledger_sentence(folder, halving, "cifar10") == "The halving protocol's ledger lists no read of CIFAR-10's test labels."


def test_the_limits_are_the_parameters_budget_seconds():
    spec = fs.load_halving_params("params/frontier_halving.yml")
    assert {d: e["budget_seconds"] for d, e in spec["datasets"].items()} == {
        "mnist": 1800, "fashion-mnist": 1800, "cifar10": 2700}


# ----------------------------------------------------------------------------- the grid's sources
SOURCES = {
    "variant": '{setting: variant, name: readout, cites: [{key: cho2009kernel, values: [limit], says: "the kernel"}]}',
    "n_patches": '{setting: n_patches, name: K, cites: [{key: coates2011analysis, range: [2, 5], says: "K from 2 to 5"}], '
                 'own: "wider here"}',
    "patch_size": '{setting: patch_size, name: p, cites: [{key: coates2011analysis, values: [6], says: "p = 6"}]}',
    "pool": '{setting: pool, name: pool, cites: [{key: coates2011analysis, values: [2], says: "quadrants"}]}',
    "whiten_eps": '{setting: whiten_eps, name: eps, cites: [{key: coates2011analysis, values: [0.1], says: "0.1"}]}',
    "threshold": '{setting: threshold, name: t, cites: [{key: coates2011importance, values: [0.25], says: "0.25"}]}',
    "views": '{setting: views, name: views, cites: [{key: thiry2021unreasonable, values: [[], [flip]], says: "flips"}]}',
    "symmetric": '{setting: symmetric, name: symmetric, cites: [], own: "new here"}',
    "depth": '{setting: depth, name: depth, cites: [{key: cho2009kernel, values: [1], says: "depth 1"}]}',
    "dataset": '{setting: dataset, name: datasets, cites: [{key: coates2011analysis, values: [cifar10], says: "CIFAR"}]}',
}
TINY = ("seeds: [0]\ndatasets:\n  tiny:\n    last_fit: 90\n    last_validation: 30\n    n_rungs: 2\n"
        "    budget_seconds: 60\n    grid:\n"
        "      - {variant: [limit], n_patches: [4, 8], patch_size: [3, 6], pool: [2], depth: [1, 2]}\n")


def sources_params(tmp_path, **replace) -> str:
    entries = {**SOURCES, **replace}
    path = tmp_path / "halving.yml"
    path.write_text(TINY + "sources:\n" + "".join(f"  - {e}\n" for e in entries.values() if e), encoding="utf-8")
    return str(path)


def test_the_sources_table_computes_the_books_own_values_from_the_grid(tmp_path):
    rows = {r["setting"]: r for r in fs.sources_rows(sources_params(tmp_path))}
    assert rows["K"]["grid"] == ["4", "8"] and rows["K"]["own"] == "8: wider here"     # 4 within [2, 5], 8 beyond
    assert rows["p"]["own"] == "3" and rows["pool"]["own"] == "—" and rows["depth"]["own"] == "2"
    assert rows["symmetric"]["own"] == "no: new here" and rows["datasets"]["own"] == "tiny"
    assert rows["readout"]["grid"] == [fs.value_text("variant", "limit")] and rows["views"]["grid"] == ["none"]
    table = fs.sources_table(sources_params(tmp_path))
    assert table.splitlines()[0] == "| setting | in this grid | published (source) | this book's own |"
    assert "| K | 4, 8 | K from 2 to 5 {cite}`coates2011analysis` | 8: wider here |" in table.splitlines()
    with pytest.raises(ValueError, match=r"setting\(s\) \['depth'\] have no entry"):
        fs.sources_rows(sources_params(tmp_path, depth=""))
    with pytest.raises(ValueError, match=r"cite \['nobody2099'\], which book/references.bib does not hold"):
        fs.sources_rows(sources_params(tmp_path, pool=SOURCES["pool"].replace("coates2011analysis", "nobody2099")))
    with pytest.raises(ValueError, match="either values or a range"):
        fs.load_sources(sources_params(tmp_path, pool=SOURCES["pool"].replace("values: [2], ", "")))


def test_the_grid_size_sentence_counts_each_datasets_candidates_over_its_blocks(tmp_path):
    path = tmp_path / "halving.yml"
    path.write_text(TINY + "      - {variant: [limit], n_patches: [8, 16], patch_size: [3], pool: [2], depth: [1]}\n",
                    encoding="utf-8")                # 8 candidates, then 2 of which one repeats the first block's
    sentence = fs.grid_size_sentence(str(path))
    assert sentence.endswith("rung 0 fits every candidate of its dataset's blocks: tiny 9 candidates in 2 blocks.")
    assert sentence.startswith("The grid is not every combination of these values")
    book = fs.grid_size_sentence()
    for dataset, entry in fs.load_halving_params()["datasets"].items():
        assert f"{fs.DATASET_NAMES[dataset]} {len(entry['grid'])} candidates in " in book


def test_the_books_grid_names_its_sources_and_its_own_extensions():
    rows = {r["setting"]: r for r in fs.sources_rows()}
    assert rows["patch size p"]["grid"] == ["3", "4", "5", "6", "7", "8"] and rows["patch size p"]["own"] == "3, 4, 5, 7"
    assert rows["pooling grid (pool × pool cells)"]["own"] == "3, 4"
    assert rows["whitening ε"]["own"].startswith("0.01: ") and rows["the ReLU split's threshold t"]["own"].startswith("0.5, 1: ")
    assert rows["views (the limit averages them into its kernel, the readout adds them as training rows)"]["own"] \
        .startswith("shifts, mirror + shifts: ")
    assert rows["datasets"]["own"].startswith("MNIST, Fashion-MNIST: ")
    cited = {key for row in rows.values() for _, key in row["published"]}
    assert {"coates2011analysis", "coates2011importance", "thiry2021unreasonable", "cho2009kernel",
            "recht2019imagenet"} <= cited and cited <= fs.bib_keys()
    table = fs.sources_table()
    assert all(f"{{cite}}`{key}`" in table for key in cited)
    source = (ROOT / "notebooks" / "frontier.py").read_text(encoding="utf-8")
    for key in ("jamieson2016nonstochastic", "li2018hyperband"):                 # successive halving's sources
        assert key in fs.bib_keys() and key in source
    assert "```{glue:md} grid_sources\n# :format: myst" in source


def test_a_candidate_of_the_halving_grid_names_its_symmetric_map_and_depth():
    symmetric = Candidate(variant="limit", n_patches=512, patch_size=5, pool=3, views=("flip",), symmetric=True,
                          depth=2).as_dict()
    assert candidate_text(symmetric).endswith("mirror, mirror-symmetric map, arc-cosine kernel composed 2 times")
    assert "symmetric" not in candidate_text(PICK) and "composed" not in candidate_text(PICK)


# ----------------------------------------------------------------------------- the fronts
POINTS = ("    one_shot:\n"
          "      - {family: one-shot, pick_of: frontier_halving, n_train: 30, n_patches: 8}\n"
          "      - {family: one-shot, pick_of: frontier_halving, n_train: null, n_patches: null}\n"
          "    sgd:\n"
          "      - {family: sgd, model: pytorch-mnist-cnn, epochs: 1}\n"
          "      - {family: sgd, model: pytorch-mnist-cnn, epochs: 4}\n")


@pytest.fixture
def budget(tmp_path, monkeypatch):
    monkeypatch.setattr(fb, "RUNS_DIR", tmp_path / "opponents")          # no opponent's record
    params = tmp_path / "budget.yml"
    params.write_text(f"seeds: [0, 1, 2]\nprotocol_records: {tmp_path / 'halving'}\ndatasets:\n  mnist:\n" + POINTS,
                      encoding="utf-8")
    out = tmp_path / "points"
    out.mkdir()
    return out, params, tmp_path / "halving"


#: the machine every test point is recorded on (a budget record's "machine", chapter_machine's fields)
MACHINE = {"cpu": "Test CPU", "cores": 2, "instance": "0123456789ab"}   # one machine, named whole


def write_points(out, params, sgd_accuracy, seeds=(0, 1, 2)):
    """One-shot points at 10 s (97 %) and 1,000 s (99 %); SGD at 20 s and 500 s with ``sgd_accuracy``."""
    spec = fs.load_budget_params(params)
    points = fb.dataset_points(spec, "mnist")
    for point, seconds, accuracy in zip(points, (10.0, 1000.0, 20.0, 500.0), (97.0, 99.0, *sgd_accuracy)):
        for seed in seeds:
            record = {"dataset": "mnist", "seed": seed, "point": point, "seconds": seconds, "subset": None,
                      "test_accuracy": accuracy + 0.01 * seed, "n_test": 10_000, "machine": dict(MACHINE)}
            fb.point_record_path(out, "mnist", point, seed).write_text(json.dumps(record), encoding="utf-8")
    return spec


def test_the_fronts_answer_follows_the_sign_of_the_difference_and_the_figure_renders(budget, tmp_path):
    import matplotlib.pyplot as plt

    out, params, halving_dir = budget
    spec = write_points(out, params, (90.0, 99.8))          # SGD below the one-shot front at 20 s, above at 500 s
    halving_dir.mkdir()
    for seed in (0, 1, 2):        # seed 2's protocol record names no machine (older records): said beside the mean
        (halving_dir / f"mnist-seed{seed}.json").write_text(json.dumps(
            {"pick": PICK, "seconds": {"selection": 300.0, "total": 1500.0}, "test_accuracy": 99.1, "n_test": 10_000,
             **({"host": dict(MACHINE)} if seed < 2 else {})}))
    got = fs.budget_fronts("mnist", out, params, halving_dir)
    assert fs.fronts_ready(got)
    uneven = dict(got, marker=dict(got["marker"], selection={0: 280.0, 1: 320.0, 2: 300.0}))
    assert "took a further 300 s per seed on the compared seeds (mean; 280–320 s)" in fb.choice_cost_sentence(uneven)
    text = fs.fronts_text("mnist", got, spec)
    assert text == (f"{fb.answer(got)['sentence']} The one-shot seconds count each refit alone: choosing its pick "
                    "(every rung of the halving protocol) took a further 300 s per seed on the compared seeds (mean), "
                    "between the budgets compared (20 s to 500 s), and the whole protocol (the star: the rungs, the "
                    "refit on every training image and the scoring) 1,500 s (mean over the same seeds); the recipe's seconds likewise leave out "
                    "how its published settings were found. (Seed 2's protocol record names no machine: its seconds "
                    "are in that mean as recorded.) Counting that choice too (each one-shot point's seconds plus its "
                    "seed's rungs), the fronts are not compared: seed 2's protocol record names no machine, or another "
                    "than its points', so its rungs' seconds are not added to its points', and 2 seeds remain, fewer "
                    "than the 3 the gain rule pairs. Every point was measured on one machine (Test CPU, 2 cores, "
                    "instance 0123456789ab).")
    # with every compared seed's choice timed on its points' machine, the second answer is given
    (halving_dir / "mnist-seed2.json").write_text(json.dumps(
        {"pick": PICK, "seconds": {"selection": 300.0, "total": 1500.0}, "test_accuracy": 99.1, "n_test": 10_000,
         "host": dict(MACHINE)}))
    named = fs.budget_fronts("mnist", out, params, halving_dir)
    assert fb.choice_elsewhere(named) == [] and ("Counting that choice too (each one-shot point's seconds plus its "
            "seed's rungs), the gradient-trained recipe is more accurate than the one-shot model at the one compared "
            "budget (1 of the recipe's 2 points, at 500 s); the one-shot model is more accurate at none. With the "
            "choice counted, the recipe's point at 1 epoch (20 s) lies outside the one-shot front's seconds on at least "
            "one seed") in fs.fronts_text("mnist", named, spec)
    other = {"cpu": "Other CPU", "cores": 2, "instance": "ba9876543210"}     # a record naming another machine
    (halving_dir / "mnist-seed2.json").write_text(json.dumps(
        {"pick": PICK, "seconds": {"selection": 300.0, "total": 1500.0}, "test_accuracy": 99.1, "n_test": 10_000, "host": other}))
    assert "(Seed 2's protocol record names another machine than its points: its seconds are in that mean as recorded.)" in (
        fb.choice_cost_sentence(fs.budget_fronts("mnist", out, params, halving_dir)))
    assert "the one-shot model is more accurate than the gradient-trained recipe at 20 s, and the recipe is more accurate at 500 s" in text
    assert fs.fronts_progress({"mnist": got}, spec).endswith("every dataset is answered under its figure.")
    fig = fs.fronts_figure("mnist", got)
    (ax,) = fig.axes
    assert ax.get_xscale() == "log" and "the whole protocol (every rung, the refit, the scoring)" in [
        t.get_text() for t in ax.get_legend().get_texts()]
    plt.close(fig)
    recorded = fs.record_fronts(store_in(tmp_path), "mnist", got, out)
    assert recorded["sgd-pytorch-mnist-cnn-e1"]["accuracy"].values == pytest.approx((90.0, 90.01, 90.02))
    assert recorded["one-shot-n30-k8"]["seconds"].setting["records"] == ["book/frontier_budget"] * 3
    write_points(out, params, (99.9, 99.9))                  # SGD above everywhere: the other sign
    flipped = fs.fronts_text("mnist", fs.budget_fronts("mnist", out, params, halving_dir), spec)
    assert flipped.startswith("The gradient-trained recipe is more accurate than the one-shot model at every compared budget")


def test_fewer_than_three_seeds_at_a_point_give_no_answer_but_what_is_measured(budget):
    out, params, halving_dir = budget
    spec = write_points(out, params, (90.0, 99.8))
    fb.point_record_path(out, "mnist", fb.dataset_points(spec, "mnist")[3], 2).unlink()
    got = fs.budget_fronts("mnist", out, params, halving_dir)
    assert not fs.fronts_ready(got)
    text = fs.fronts_text("mnist", got, spec)
    assert text == ("MNIST is not answered yet: measured so far are the one-shot front 2 of its 2 declared points "
                    "(N = 30, K ≤ 8: 3 of 3 seeds; N = all, K = the pick's: 3 of 3 seeds) and the recipe's front 2 of its 2 "
                    "declared points (1 epoch: 3 of 3 seeds; 4 epochs: 2 of 3 seeds); the whole halving protocol's "
                    "marker has 0 of 3 seeds. The answer waits for 3 seeds with every point of both fronts measured, each seed's "
                    "points on one machine; so far seeds 0 and 1 have every point measured, each on one machine instance.")
    assert "more accurate" not in text
    fb.point_record_path(out, "mnist", fb.dataset_points(spec, "mnist")[3], 1).unlink()     # one whole seed left
    one = fs.fronts_text("mnist", fs.budget_fronts("mnist", out, params, halving_dir), spec)
    assert one.endswith("; so far seed 0 has every point measured, on one machine instance.")
    assert fs.fronts_figure("mnist", got) is not None
    assert fs.fronts_progress({"mnist": got}, spec) == (
        "Measured so far: 11 of the 12 declared runs (4 points × 3 seeds, both fronts of every dataset); no dataset "
        "can be answered yet, so each figure shows only the points measured.")


def test_a_declared_point_not_measured_at_all_gives_no_answer(budget):
    """Every point with three seeds is not enough: a declared point with no record leaves the front
    incomplete, so the answer waits (the status names it 0 of its points)."""
    out, params, halving_dir = budget
    spec = write_points(out, params, (90.0, 99.8))
    for seed in (0, 1, 2):
        fb.point_record_path(out, "mnist", fb.dataset_points(spec, "mnist")[3], seed).unlink()
    got = fs.budget_fronts("mnist", out, params, halving_dir)
    assert got["declared"] == 4 and len(got["one_shot"] + got["sgd"]) == 3
    assert not fs.fronts_ready(got)
    assert "the recipe's front 1 of its 2 declared points" in fs.fronts_text("mnist", got, spec)


def test_a_summary_rebuilds_the_fronts_from_the_stored_results(budget, tmp_path):
    out, params, halving_dir = budget
    write_points(out, params, (90.0, 99.8))
    got = fs.budget_fronts("mnist", out, params, halving_dir)
    recorded = fs.record_fronts(store_in(tmp_path), "mnist", got, out)
    rebuilt = fb.fronts_from_results([(r["accuracy"], r["seconds"]) for r in recorded.values()], "mnist", 4)
    for family in ("one_shot", "sgd"):
        assert [(p["label"], p["seconds"], p["accuracy"]) for p in rebuilt[family]] == \
               [(p["label"], p["seconds"], p["accuracy"]) for p in got[family]]
    assert fb.answer(rebuilt)["sentence"] == fb.answer(got)["sentence"] and fs.fronts_ready(rebuilt)
    assert not fs.fronts_ready(dict(rebuilt, declared=5))


def test_the_stored_points_carry_their_records_machine_and_day_not_the_executing_ones(budget, tmp_path):
    """Provenance: a point's seconds were measured by its own runs, perhaps on another host and day than the
    page's execution; the stored Result says theirs (one host only where every seed names the same one)."""
    out, params, halving_dir = budget
    spec = write_points(out, params, (90.0, 99.8))
    for path in out.glob("mnist-*-seed*.json"):
        record = json.loads(path.read_text())
        record["started_at"] = f"2020-01-0{record['seed'] + 1}T10:00:00+00:00"
        path.write_text(json.dumps(record))
    (tmp_path / "one").mkdir()
    (tmp_path / "two").mkdir()
    recorded = fs.record_fronts(store_in(tmp_path / "one"), "mnist", fs.budget_fronts("mnist", out, params, halving_dir),
                                out)
    seconds = next(iter(recorded.values()))["seconds"]
    assert seconds.date == "2020-01-03" and seconds.host["cpu"] == "Test CPU" and seconds.host["cores"] == 2
    assert seconds.host["kernel"] is None                      # the record names no more than CPU and cores
    path = fb.point_record_path(out, "mnist", fb.dataset_points(spec, "mnist")[0], 1)
    path.write_text(json.dumps(dict(json.loads(path.read_text()), machine={"cpu": "Other CPU", "cores": 2, "instance": "ba9876543210"})))
    recorded = fs.record_fronts(store_in(tmp_path / "two"), "mnist", fs.budget_fronts("mnist", out, params, halving_dir),
                                out)
    mixed = recorded[fb.point_slug(fb.dataset_points(spec, "mnist")[0])]["seconds"]
    assert mixed.host is None and mixed.setting["hosts"] == ["Test CPU, 2 cores, instance 0123456789ab", "Other CPU, 2 cores, instance ba9876543210", "Test CPU, 2 cores, instance 0123456789ab"]


def test_no_point_yet_gives_no_figure_and_says_so(budget):
    out, params, halving_dir = budget
    spec = fs.load_budget_params(params)
    got = fs.budget_fronts("mnist", out, params, halving_dir)
    assert fs.fronts_figure("mnist", got) is None and not fs.fronts_ready(got)
    assert fs.fronts_progress({"mnist": got}, spec).startswith("Measured so far: 0 of the 12 declared runs")
    assert fs.fronts_text("mnist", got, spec).startswith(
        "MNIST is not answered yet: measured so far are the one-shot front 0 of its 2 declared points and the "
        "recipe's front 0 of its 2 declared points;")


def test_a_quiet_seed_over_its_limit_decides_alone(tmp_path):
    """A seed that started on a quiet machine and ran over the limit refutes "within the limit on every seed",
    whatever the other seeds' loads; busy seeds over the limit alone decide nothing."""
    folder = tmp_path / "halving"
    for seed, total, load in ((0, 1700.0, (2.3, 2.2, 2.0)), (1, 1950.0, (0.01, 0.35, 0.5)), (2, 1790.0, None)):
        halving_record(folder, seed=seed, total=total, load=load)
    halving = fs.record_halving(store_in(tmp_path), fs.halving_records(folder), SPEC)
    verdict = fs.limit_verdict(halving["mnist"], "mnist")
    assert verdict.label == "does not hold" and "decided by seed 1, over the limit after starting on a quiet machine" in verdict.detail
    assert fs.quiet_overruns(halving["mnist"]) == [1]
    one = tmp_path / "one"                        # a single quiet seed over the limit decides before the seeds rule
    halving_record(one, seed=0, total=1950.0, load=(0.01, 0.2, 0.5))
    text = fs.halving_sentence(fs.record_halving(store_in(tmp_path), fs.halving_records(one), SPEC))
    assert "within the limit on every seed: does not hold (decided by seed 0, over the limit" in text
    assert "the seeds rule" not in text.split("Fashion")[0]
    folder = tmp_path / "busy"
    for seed, total, load in ((0, 1700.0, (0.1, 0.2, 0.5)), (1, 1950.0, (0.3, 0.6, 0.5)), (2, 1790.0, (0.1, 0.2, 0.5))):
        halving_record(folder, seed=seed, total=total, load=load)
    halving = fs.record_halving(store_in(tmp_path), fs.halving_records(folder), SPEC)
    assert fs.limit_verdict(halving["mnist"], "mnist").label == "inconclusive"


def test_the_summaries_quote_the_fronts_answer_from_the_stored_points(budget, tmp_path):
    """Issue 62's done-when: the intro's headline and the conclusion quote the fronts' answers; they read
    them from the results store (the points the page recorded), answered only where the fronts are complete."""
    from greenelm_book.summaries import bottom_line

    out, params, halving_dir = budget
    write_points(out, params, (90.0, 99.8))
    got = fs.budget_fronts("mnist", out, params, halving_dir)
    fs.record_fronts(store_in(tmp_path), "mnist", got, out)
    store = bottom_line.Store(tmp_path / "results")
    said = bottom_line.fronts_sentence(store, params)
    brief = fb.answer(got)["brief"]
    lead = ("Accuracy against training seconds, each seed's two fronts from one machine instance, each point declared "
            "before it ran and reading the test set once{} (one-shot seconds: "
            "each refit alone, not the search that chose its pick; the runs chained alone under the run lock, their "
            "seconds not held to the quiet rule): ")
    # how the budgets are compared is said once in the lead, and the page's sentence is the brief one with it
    assert said == lead.format(f", compared {fb.COMPARED_AT}") + bottom_line.joined_answers([("MNIST", brief)])
    assert fb.answer(got)["sentence"].replace(f"Compared {fb.COMPARED_AT} from", "From").startswith(brief)
    # the bottom line's form: the dataset's clause counting the refits alone, then with the choice of the pick
    # (the protocol's selection seconds per seed, from the store) added to each one-shot point's seconds
    from greenelm_book.store.results import Result

    assert bottom_line.fronts_bottom(store, params) == (
        "At equal seconds on two CPU cores, by the gain rule, the one-shot pick is more "
        "accurate than the gradient-trained recipe (the PyTorch examples' MNIST CNN) on MNIST at 20 s (the recipe at 500 s), counting its refits alone")
    def halving_seconds(hosts):
        for name, values in (("selection-seconds", (300.0, 310.0, 320.0)), ("seconds", (1500.0, 1510.0, 1520.0))):
            key = f"mnist/frontier-halving/{name}"
            store.results[key] = Result(key, values, "s", {"seeds": [0, 1, 2], "seed_hosts": hosts}, "frontier", "m", "", "")

    halving_seconds([fb.record_host({"machine": MACHINE})] * 2 + [None])   # seed 2's search on no machine named
    assert bottom_line.fronts_bottom(store, params).endswith("counting its refits alone")
    assert "Counting that search too" not in bottom_line.fronts_sentence(store, params)    # no counted answer at all
    halving_seconds([fb.record_host({"machine": MACHINE})] * 3)
    assert bottom_line.fronts_bottom(store, params) == (
        "At equal seconds on two CPU cores, by the gain rule, the one-shot pick is more "
        "accurate than the gradient-trained recipe (the PyTorch examples' MNIST CNN) on MNIST at 20 s (the recipe at 500 s), counting its refits alone; counting "
        "its search too (300–320 s per seed), at no budget compared (the recipe more accurate on MNIST)")
    # the summary's second answer: the same fronts with each seed's selection seconds added to its one-shot points
    assert bottom_line.fronts_sentence(store, params).endswith(
        "Counting that search too (each one-shot point's seconds plus its seed's rungs): on MNIST (1 of the recipe's "
        "2 points, at 500 s), the gradient-trained recipe is more accurate than the one-shot model at the one compared "
        "budget; the one-shot model is more accurate at none.")
    fb.point_record_path(out, "mnist", fb.dataset_points(fs.load_budget_params(params), "mnist")[3], 2).unlink()
    (tmp_path / "results").rename(tmp_path / "before")
    fs.record_fronts(store_in(tmp_path), "mnist", fs.budget_fronts("mnist", out, params, halving_dir), out)
    assert bottom_line.fronts_sentence(bottom_line.Store(tmp_path / "results"), params) == (
        lead.format("") + "no dataset is answered yet: none has 3 seeds each measured wholly by a single machine instance.")


def test_the_gpus_fronts_are_stored_apart_and_quoted_as_the_gpus(budget, tmp_path):
    """The same points' records read as the GPU's fronts are stored under <dataset>/budget-gpu/, never
    beside the CPU's, and the summaries quote them in their own sentence."""
    from greenelm_book.summaries import bottom_line

    out, params, halving_dir = budget
    write_points(out, params, (90.0, 99.8))
    got = fs.budget_fronts("mnist", out, params, halving_dir, on_gpu=True)
    recorded = fs.record_fronts(store_in(tmp_path), "mnist", got, out)
    store = bottom_line.Store(tmp_path / "results")
    assert recorded and not store.matching(r"mnist/budget/.*") and store.matching(r"mnist/budget-gpu/.*/accuracy")
    assert bottom_line.fronts_sentence(store, params) == ""
    said = bottom_line.gpu_fronts_sentence(store, params)
    brief = fb.answer(got)["brief"]
    assert said == ("The same points on one GPU, compared the same way (3+ seeds per point; the one-shot seconds exclude the pick's search, "
                    f"made on a CPU): {bottom_line.joined_answers([('MNIST', brief)])}")


def test_answers_that_differ_only_in_their_budgets_share_one_sentence():
    """The summaries quote several datasets' answers in one passage: one sentence for answers of one shape,
    each dataset's span of compared budgets beside its name; a later sentence starts with a capital."""
    from greenelm_book.summaries.bottom_line import joined_answers

    won = "The one-shot model is more accurate than the recipe at every compared budget ({}), by the rule."
    lost = "The recipe is more accurate than the one-shot model at every compared budget ({}), by the rule."
    assert joined_answers([("MNIST", won.format("2 of the recipe's 4 points, 2.6 s to 5.0 s"))]) == (
        "on MNIST (2 of the recipe's 4 points, 2.6 s to 5.0 s), the one-shot model is more accurate than the recipe "
        "at every compared budget, by the rule.")
    assert joined_answers([("MNIST", won.format("2 of the recipe's 4 points, 2.6 s to 5.0 s")),
                           ("CIFAR-10", lost.format("1 of the recipe's 4 points, at 9 s")),
                           ("Fashion-MNIST", won.format("3 of the recipe's 4 points, 2.4 s to 8.8 s"))]) == (
        "on MNIST (2 of the recipe's 4 points, 2.6 s to 5.0 s) and Fashion-MNIST (3 of the recipe's 4 points, 2.4 s "
        "to 8.8 s), the one-shot model is more accurate than the recipe at every compared budget, by the rule. On "
        "CIFAR-10 (1 of the recipe's 4 points, at 9 s), the recipe is more accurate than the one-shot model at every "
        "compared budget, by the rule.")
    assert joined_answers([("MNIST", "No point is compared.")]) == "on MNIST, no point is compared."
    assert joined_answers([]) == ""


def test_fronts_measured_on_two_machines_are_not_compared(budget):
    """Seconds are compared on one machine: a point one of whose seeds ran on another CPU than that seed's
    other points (or on one its record does not name, as the opponents' published runs) leaves the dataset
    unanswered, the status naming the machines and the seed."""
    out, params, halving_dir = budget
    spec = write_points(out, params, (90.0, 99.8))
    assert fb.one_host(fs.budget_fronts("mnist", out, params, halving_dir)) == "Test CPU, 2 cores, instance 0123456789ab"
    path = fb.point_record_path(out, "mnist", fb.dataset_points(spec, "mnist")[3], 2)
    record = json.loads(path.read_text())
    path.write_text(json.dumps(dict(record, machine={"cpu": "Other CPU", "cores": 2, "instance": "ba9876543210"})))
    got = fs.budget_fronts("mnist", out, params, halving_dir)
    assert fb.one_host(got) is None and not fs.fronts_ready(got)
    text = fs.fronts_text("mnist", got, spec)
    assert ("each seed's points on one machine (of the runs so far, 11 were measured on Test CPU, 2 cores, instance 0123456789ab; "
            "1 was measured on Other CPU, 2 cores, instance ba9876543210); so far seeds 0, 1 and 2 have every point measured, "
            "seeds 0 and 1 each on one machine instance; the points of seed 2 name two machines") in text
    assert fb.seed_hosts(got) == {0: "Test CPU, 2 cores, instance 0123456789ab", 1: "Test CPU, 2 cores, instance 0123456789ab", 2: None}
    path.write_text(json.dumps({k: v for k, v in record.items() if k != "machine"}))
    unnamed = fs.fronts_text("mnist", fs.budget_fronts("mnist", out, params, halving_dir), spec)
    assert "1 has a record naming no machine)" in unnamed and "name two machines" not in unnamed    # not measured here yet: no conflict
    assert "measured again on its seed's machine" not in unnamed        # the point's own record: not re-measured
    # the figure draws points, not joined fronts, and says why (a fresh reader: it "connects what the text
    # refuses to compare")
    import matplotlib.pyplot as plt

    (ax,) = fs.fronts_figure("mnist", fs.budget_fronts("mnist", out, params, halving_dir)).axes
    assert "not compared" in ax.get_title() and all(line.get_linestyle() == "None" for line in ax.get_lines()
                                                    if len(line.get_xdata()) > 1)
    plt.close("all")


def test_a_seed_whose_points_span_two_machines_is_left_out_and_three_whole_seeds_answer(budget, tmp_path):
    """Seeds 0 and 1 each measured partly on a machine named without its instance, seeds 2-4 whole on one
    instance: the dataset is answered from seeds 2-4 alone (the answer, the figure and the summaries' rebuilt
    fronts agree), the page naming the seeds left out and why; with seed 4's last point missing, two whole
    seeds remain and the dataset is not answered."""
    import matplotlib.pyplot as plt

    out, params, halving_dir = budget
    params.write_text(params.read_text().replace("seeds: [0, 1, 2]", "seeds: [0, 1, 2, 3, 4]"))
    spec = write_points(out, params, (90.0, 99.8), seeds=(0, 1, 2, 3, 4))
    slow = {"cpu": "Test CPU", "cores": 2}                  # a record from before the instance was recorded
    for seed in (0, 1):
        path = fb.point_record_path(out, "mnist", fb.dataset_points(spec, "mnist")[seed], seed)
        path.write_text(json.dumps(dict(json.loads(path.read_text()), machine=slow, seconds=5000.0,
                                        test_accuracy=50.0)))
    got = fs.budget_fronts("mnist", out, params, halving_dir)
    assert fb.compared_seeds(got) == [2, 3, 4] and fs.fronts_ready(got)
    alone = fb.crossing(*(lambda f: (f["one_shot"], f["sgd"]))(fb.restricted(got, [2, 3, 4])),
                        n_test=10_000, names=("the gradient-trained recipe", "the one-shot model"))
    assert fb.answer(got)["sentence"] == alone["sentence"] and [c["seeds"] for c in alone["comparisons"]] == [[2, 3, 4]] * 2
    text = fs.fronts_text("mnist", got, spec)
    assert "the one-shot model is more accurate than the gradient-trained recipe at 20 s" in text
    assert text.endswith("Seeds 2, 3 and 4, the compared seeds, were measured whole on one machine (Test CPU, 2 cores, "
                         "instance 0123456789ab). The points of seeds 0 and 1 do not name one machine (each: its "
                         "points name 2 machines, and its records name a CPU's model and cores without the machine's "
                         "instance): those seeds are not compared, nor shown in the figure.")
    assert fb.machines_sentence({**got, "failed": {0: ["1 epoch"]}}).endswith(
        "The points of seed 1 do not name one machine (its points name 2 machines, and its records name a CPU's model "
        "and cores without the machine's instance): that seed is not compared, nor shown in the figure. Seed 0's point "
        "at 1 epoch read its test labels and its run ended before its record was written: a point's labels are read "
        "once, so seed 0 will not have every point measured, and is not compared, nor shown in the figure.")
    kept = fb.restricted(got, [2, 3, 4])
    assert all(p["seeds"] == [2, 3, 4] and set(p["accuracy"]) == {2, 3, 4} for p in kept["one_shot"] + kept["sgd"])
    (ax,) = fs.fronts_figure("mnist", got).axes
    assert ax.get_title().endswith("seeds 2, 3 and 4 (the compared seeds); seeds 0 and 1 not shown")
    assert max(max(line.get_xdata()) for line in ax.get_lines() if len(line.get_xdata())) < 5000   # seed 0's 5,000 s left out
    plt.close("all")
    recorded = fs.record_fronts(store_in(tmp_path), "mnist", got, out)     # every seed stored; the answer picks
    rebuilt = fb.fronts_from_results([(r["accuracy"], r["seconds"]) for r in recorded.values()], "mnist", 4)
    assert fs.fronts_ready(rebuilt) and fb.answer(rebuilt)["sentence"] == fb.answer(got)["sentence"]
    last = fb.dataset_points(spec, "mnist")[3]
    fb.point_record_path(out, "mnist", last, 4).unlink()
    fewer = fs.budget_fronts("mnist", out, params, halving_dir)
    assert fb.compared_seeds(fewer) == [2, 3] and not fs.fronts_ready(fewer)
    assert fewer["failed"] == {} and "read its test labels" not in fs.fronts_text("mnist", fewer, spec)
    # the missing point read its labels and its run ended: seed 4 never has every point, and the page says so
    TestGate({"mnist": np.zeros(10, int)}, fixed={"mnist": fb.dataset_points(spec, "mnist")},
             ledger=out / "test-reads.json").release("mnist", 4, last, "fixed")
    failed = fs.budget_fronts("mnist", out, params, halving_dir)
    assert failed["failed"] == {4: [fb.point_label(last)]} and not fs.fronts_ready(failed)
    assert (f"; seed 4's point at {fb.point_label(last)} read its test labels and its run ended before its record "
            "was written: a point's labels are read once, so seed 4 will not have every point measured") in \
        fs.fronts_text("mnist", failed, spec)


def test_each_seed_on_its_own_machine_is_answered_pairing_seconds_within_a_seed(budget):
    """Seeds may run in different sessions on different hosts: with every point of seed 2 on another CPU, each
    seed's fronts are read against each other on that seed's machine, the dataset is answered and the page
    names which seed ran where; the crossing leaves out a seed whose SGD point and one-shot front name two
    machines (here: 2 seeds left, fewer than the gain rule needs, so no gain is shown at that point)."""
    out, params, halving_dir = budget
    spec = write_points(out, params, (90.0, 99.8))
    for point in fb.dataset_points(spec, "mnist"):
        path = fb.point_record_path(out, "mnist", point, 2)
        path.write_text(json.dumps(dict(json.loads(path.read_text()), machine={"cpu": "Other CPU", "cores": 2, "instance": "ba9876543210"})))
    got = fs.budget_fronts("mnist", out, params, halving_dir)
    assert fb.one_host(got) is None and fs.fronts_ready(got)
    text = fs.fronts_text("mnist", got, spec)
    assert "the one-shot model is more accurate than the gradient-trained recipe at 20 s, and the recipe is more accurate at 500 s" in text
    assert text.endswith("Each compared seed's points were measured on one machine, the seeds on 2 machines (seeds 0 and "
                         "1 on Test CPU, 2 cores, instance 0123456789ab; seed 2 on Other CPU, 2 cores, instance ba9876543210): seconds are compared within a seed, "
                         "and the mean seconds shown average over machines.")
    first = next(p for p in got["sgd"] if p["point"]["epochs"] == 1)
    first["hosts"][2] = "Test CPU, 2 cores, instance 0123456789ab"        # seed 2's SGD point on another machine than its one-shot front
    compared = fb.crossing(got["one_shot"], got["sgd"], n_test=10_000)["comparisons"]
    assert [c["seeds"] for c in compared] == [[0, 1], [0, 1, 2]] and compared[0]["outcome"] == "no gain shown"


def test_a_seed_left_out_is_named_with_its_own_reason():
    """Each reason a seed's points do not name one machine is said for that seed, and only those that apply."""
    whole = "Test CPU, 2 cores, instance 0123456789ab"
    assert fb.split_reason({whole}) == ""
    assert fb.split_reason({"Test CPU, 2 cores"}) == "its records name a CPU's model and cores without the machine's instance"
    assert fb.split_reason({whole, "Test CPU, 2 cores, instance ba9876543210"}) == "its points name 2 machines"
    assert fb.split_reason({whole, None}) == "a point's record names no machine"
    assert fb.split_reason({whole, "Test CPU, 2 cores", None}) == (
        "its points name 2 machines, and a point's record names no machine, and its records name a CPU's model "
        "and cores without the machine's instance")
