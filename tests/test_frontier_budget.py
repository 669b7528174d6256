"""Accuracy against seconds (greenelm_book.chapters.frontier_budget): the points declared before they run,
each read once through the gate with a fake trainer and builder; the record's fields; the test-set
sampling error and the gain rule that accounts for it; the crossing's answer on synthetic fronts; the
figure; the opponents in words."""

from __future__ import annotations

import dataclasses
import json
import math

import numpy as np
import pytest

from greenelm_book.bench import chapter_machine, machine_instance
from greenelm_book.chapters import frontier_budget as fb
from greenelm_book.chapters import frontier_protocol as fp
from greenelm_book.chapters.frontier_opponents import RECIPES
from greenelm_book.chapters.frontier_protocol import TestSetAlreadyRead

POINTS = ("    one_shot:\n"
          "      - {family: one-shot, pick_of: frontier_halving, n_train: 30, n_patches: 8}\n"
          "      - {family: one-shot, pick_of: frontier_halving, n_train: null, n_patches: 128}\n"
          "    sgd:\n"
          "      - {family: sgd, model: pytorch-mnist-cnn, epochs: 1}\n"
          "      - {family: sgd, model: pytorch-mnist-cnn, epochs: 14}\n")
PICK = {"variant": "readout", "n_patches": 64, "patch_size": 3, "pool": 2, "ridge": [1.0]}


def params_text(records) -> str:
    return f"seeds: [0, 1, 2]\nprotocol_records: {records}\ndatasets:\n  mnist:\n" + POINTS


class Trainer:
    """A stand-in for a fast_sgd trainer: records what it was given, predicts class 0."""

    def __init__(self):
        self.calls = []

    def __call__(self, X_train, y_train, X_test, y_test, *, seed, epochs):
        self.calls.append({"n_train": len(X_train), "seed": seed, "epochs": epochs})
        return {"accuracy": 100 * float(np.mean(np.asarray(y_test) == 0)), "seconds": 2.5, "eval_seconds": 0.1,
                "epochs_run": float(epochs), "model": object()}


class Builder:
    """A stand-in for the protocol's build_model: records the candidate and the rows it fitted; predicts 0."""

    def __init__(self):
        self.built, self.fitted = [], []

    def __call__(self, candidate, image_shape, seed):
        self.built.append((candidate, image_shape, seed))
        builder = self

        class Model:
            def fit(self, X, y):
                builder.fitted.append(len(X))
                return self

            def predict(self, X):
                return np.zeros(len(X), int)

        return Model()


@pytest.fixture
def setup(tmp_path, monkeypatch):
    rng = np.random.default_rng(0)
    data = (rng.random((40, 784), dtype=np.float32), rng.integers(0, 10, 40),
            rng.random((20, 784), dtype=np.float32), np.r_[np.zeros(5, int), np.ones(15, int)])
    monkeypatch.setattr(fb, "protocol_data", lambda dataset, subset=None: data)
    monkeypatch.setattr(fb, "RUNS_DIR", tmp_path / "opponents")      # the opponents' records: none unless written
    records = tmp_path / "halving"
    params = tmp_path / "budget.yml"
    params.write_text(params_text(records), encoding="utf-8")
    return tmp_path / "runs", params, records


def quiet(message):
    pass


# ----------------------------------------------------------------------------- the declared points
def test_the_books_points_are_declared_for_every_dataset_with_the_issues_schedules():
    spec = fb.load_budget()
    assert len(spec["seeds"]) >= 3 and spec["protocol_records"].name == "frontier_halving"
    own = {"airbench94": [1, 2, 4, 9.9], "pytorch-mnist-cnn": [1, 2, 4, 14]}
    for dataset in ("mnist", "fashion-mnist", "cifar10"):
        entry = spec["datasets"][dataset]
        assert [p["epochs"] for p in entry["sgd"]] == own[RECIPES[dataset]]
        assert {p["model"] for p in entry["sgd"]} == {RECIPES[dataset]}
        sizes = [p["n_train"] for p in entry["one_shot"]]
        assert sizes[-1] is None and sizes[:-1] == sorted(sizes[:-1])          # growing, then all rows
        slugs = [fb.point_slug(p) for p in fb.dataset_points(spec, dataset)]
        assert len(set(slugs)) == len(slugs)                                   # one record file per point


@pytest.mark.parametrize("edit, message", [
    (lambda t: t.replace("seeds: [0, 1, 2]", "seeds: [0, 1]"), "at least 3 distinct integers"),
    (lambda t: t.replace("epochs: 14}", "epochs: 14, lr: 2}"), r"unknown \['lr'\]"),
    (lambda t: t.replace("model: pytorch-mnist-cnn, epochs: 1}", "model: airbench94, epochs: 1}"),
     "opponent recipe 'pytorch-mnist-cnn', not 'airbench94'"),
    (lambda t: t.replace("epochs: 14}", "epochs: 2.5}"), "whole epochs"),
    (lambda t: t.replace("epochs: 14}", "epochs: 1}"), "declares a point twice"),
    (lambda t: t.replace("n_train: 30", "n_train: 0"), "n_train must be a positive integer or null"),
    (lambda t: t.replace("pick_of: frontier_halving, n_train: 30", "pick_of: frontier_protocol, n_train: 30"),
     "pick_of must be one of"),
])
def test_a_bad_declaration_is_refused_naming_the_problem(tmp_path, edit, message):
    params = tmp_path / "budget.yml"
    params.write_text(edit(params_text(tmp_path)), encoding="utf-8")
    with pytest.raises(ValueError, match=message):
        fb.load_budget(params)


def test_main_lists_the_declared_points(setup, capsys):
    _, params, _ = setup
    fb.main(["--list", "--params", str(params)])
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 4 and lines[2].startswith("mnist --point 2: ") and '"epochs":1' in lines[2]


def test_remaining_runs_every_unrecorded_point_seed_by_seed(setup):
    out, params, records = setup
    assert fb.remaining_points("mnist", out, params)[:5] == [(0, 0), (0, 1), (0, 2), (0, 3), (1, 0)]
    assert len(fb.remaining_points("mnist", out, params)) == 12
    train = Trainer()
    fb.run_point("mnist", 2, 1, out_dir=out, params=params, train=train, log=quiet)
    assert (1, 2) not in fb.remaining_points("mnist", out, params) and len(fb.remaining_points("mnist", out, params)) == 11
    with pytest.raises(SystemExit):
        fb.main(["--remaining", "--dataset", "mnist", "--seed", "0", "--params", str(params), "--out", str(out)])


def test_the_remaining_points_start_when_quiet_and_none_starts_after_the_stop_time(setup):
    import datetime

    out, params, _ = setup
    utc = datetime.timezone.utc
    start = datetime.datetime(2026, 12, 4, 18, 0, tzinfo=utc)
    assert fb.stop_time("18:30", now=start) == datetime.datetime(2026, 12, 4, 18, 30, tzinfo=utc)
    assert fb.stop_time("17:30", now=start) == datetime.datetime(2026, 12, 5, 17, 30, tzinfo=utc)   # the next one
    assert fb.stop_time("2026-12-04T19:00") == datetime.datetime(2026, 12, 4, 19, 0, tzinfo=utc)
    with pytest.raises(ValueError, match="--stop-by 'soon': give HH:MM"):
        fb.stop_time("soon")
    ran, waited, said = [], [], []
    clock = iter(start + datetime.timedelta(minutes=m) for m in (0, 20, 40, 60))
    done = fb.run_remaining("mnist", out_dir=out, params=params, wait_quiet=True,
                            stop_by=start + datetime.timedelta(minutes=50), log=said.append,
                            run=lambda dataset, index, seed, **kw: ran.append((seed, index)),
                            wait=lambda deadline: waited.append(deadline) or [0.1, 0.2, 0.3], now=lambda: next(clock))
    assert done == ran == [(0, 0), (0, 1), (0, 2)] and len(waited) == 1      # quiet before the first; back to back
    assert waited[0] == (start + datetime.timedelta(minutes=50)).timestamp()
    assert said[-1] == "stop: 2026-12-04 18:50 UTC reached; mnist seed 0 point 3 and after not started"

    def busy(deadline):
        raise TimeoutError("the machine was not quiet by the deadline: the 1-minute load average (2) above 0.5")

    said.clear()
    assert fb.run_remaining("mnist", out_dir=out, params=params, wait_quiet=True, stop_by=start, log=said.append,
                            run=lambda *a, **k: None, wait=busy, now=lambda: start - datetime.timedelta(minutes=1)) == []
    assert said == ["stop: the machine was not quiet by the deadline: the 1-minute load average (2) above 0.5; "
                    "mnist seed 0 point 0 and after not started"]
    with pytest.raises(SystemExit):
        fb.main(["--dataset", "mnist", "--point", "0", "--seed", "0", "--wait-quiet", "--params", str(params)])


# ----------------------------------------------------------------------------- one point, one seed
def test_an_sgd_point_is_read_once_and_its_record_has_the_measurement(setup):
    out, params, _ = setup
    train = Trainer()
    path = fb.run_point("mnist", 3, 1, out_dir=out, params=params, train=train, log=quiet)
    assert path.name == "mnist-sgd-pytorch-mnist-cnn-e14-seed1.json"
    assert train.calls == [{"n_train": 40, "seed": 1, "epochs": 14}]
    record = json.loads(path.read_text())
    assert record["point"] == {"family": "sgd", "model": "pytorch-mnist-cnn", "epochs": 14}
    assert (record["test_accuracy"], record["seconds"], record["n_test"], record["n_train"]) == (25.0, 2.5, 20, 40)
    assert record["sampling_error"] == pytest.approx(100 * math.sqrt(0.25 * 0.75 / 20))
    assert all(len(record["load_average"][when]) == 3 for when in ("started", "finished"))
    assert "model" not in record["trainer"] and record["wall_seconds"] >= 0
    assert record["machine"]["cores"] >= 1 and record["peak_memory_gb"] > 0
    (read,) = json.loads((out / "test-reads.json").read_text())["reads"]
    assert (read["kind"], read["seed"], read["configuration"]) == ("fixed", 1, record["point"])
    fb.run_point("mnist", 3, 1, out_dir=out, params=params, train=train, log=quiet)
    assert len(train.calls) == 1                                             # recorded: skipped, no read
    path.unlink()
    with pytest.raises(TestSetAlreadyRead, match="read the test labels already .* read once"):
        fb.run_point("mnist", 3, 1, out_dir=out, params=params, train=train, log=quiet)
    assert len(train.calls) == 1 and len(json.loads((out / "test-reads.json").read_text())["reads"]) == 1
    # the read with no record is a failed point: that seed will never have every point, and the page says so
    assert fb.failed_points("mnist", out, params) == {1: ["14 epochs"]}
    assert fb.failed_points("mnist", out / "none", params) == {}                   # no ledger: none failed
    assert fb.failed_clause({"failed": fb.failed_points("mnist", out, params)}) == (
        "seed 1's point at 14 epochs read its test labels and its run ended before its record was written: a "
        "point's labels are read once, so seed 1 will not have every point measured")
    assert fb.failed_clause({"failed": {}}) == "" and "seeds 1 and 2 will not" in fb.failed_clause(
        {"failed": {1: ["1 epoch"], 2: ["1 epoch", "2 epochs"]}})


def test_a_one_shot_point_refits_its_seeds_pick_smaller_and_records_what_it_fitted(setup):
    out, params, records = setup
    build = Builder()
    with pytest.raises(FileNotFoundError, match="mnist-seed2.json: the new protocol of mnist, seed 2 has no record"):
        fb.run_point("mnist", 0, 2, out_dir=out, params=params, build=build, log=quiet)
    assert not build.built and not (out / "test-reads.json").exists()      # nothing read before the refusal
    records.mkdir()
    fp.seed_record_path(records, "mnist", 2).write_text(json.dumps(
        {"pick": PICK, "seconds": {"selection": 300.0, "total": 900.0}, "test_accuracy": 99.0, "n_test": 20}))
    path = fb.run_point("mnist", 0, 2, out_dir=out, params=params, build=build, log=quiet)
    record = json.loads(path.read_text())
    ((candidate, shape, seed),) = build.built
    assert (candidate.n_patches, candidate.variant, shape, seed) == (8, "readout", (28, 28, 1), 2)
    assert build.fitted == [30] and record["n_train"] == 30
    assert record["settings"] == {**PICK, "n_patches": 8}
    assert record["protocol"] == {"pick": PICK, "seconds": 900.0} and record["test_accuracy"] == 25.0
    reads = json.loads((out / "test-reads.json").read_text())["reads"]
    assert [r["kind"] for r in reads] == ["fixed"]


def test_the_picks_own_refit_is_read_from_the_protocols_record_not_measured_again(setup):
    """Point 1 fits the pick itself on every row (its K, 128, capped at the pick's 64): the protocol's
    refit of that seed, the same build, fit and gate-read scoring, so it is read from there; a point that
    differs from the pick (fewer rows) is not, and a protocol run on a subset cannot stand for it."""
    out, params, records = setup
    records.mkdir()
    halving = fp.seed_record_path(records, "mnist", 1)
    here = chapter_machine()
    halving.write_text(json.dumps({"pick": PICK, "seconds": {"selection": 300.0, "total": 900.0, "refit": 600.0, "scoring": 40.0},
                                   "test_accuracy": 99.0, "n_test": 20, "subset": None,
                                   "host": {"cpu": here["cpu"], "cores": here["cores"], "kernel": "6.1",
                                            "instance": machine_instance()}}))
    build = Builder()
    assert fb.run_point("mnist", 1, 1, out_dir=out, params=params, build=build, log=quiet) == halving
    assert not build.built and not (out / "test-reads.json").exists()       # no second fit, no second read
    point = fb.dataset_points(fb.load_budget(params), "mnist")[1]
    read = fb.pick_refit_point("mnist", point, 1, records)
    assert (read["seconds"], read["scoring_seconds"], read["test_accuracy"], read["settings"]) == (
        600.0, 40.0, 99.0, PICK)
    assert read["sampling_error"] == pytest.approx(fb.sampling_error(99.0, 20))
    assert fb.record_host(read) == f"{here['cpu']}, {here['cores']} cores" + (
        f", instance {machine_instance()}" if machine_instance() else "")
    (refit,) = fb.fronts("mnist", out, params)["one_shot"]
    assert refit["seconds"] == {1: 600.0} and refit["accuracy"] == {1: 99.0} and refit["hosts"] == {1: fb.record_host(read)}
    # a refit another machine timed (or one whose record names none) is measured here: seconds on one machine
    other = fp.seed_record_path(records, "mnist", 0)
    other.write_text(json.dumps({"pick": PICK, "seconds": {"selection": 300.0, "total": 900.0, "refit": 600.0, "scoring": 40.0},
                                 "test_accuracy": 99.0, "n_test": 20, "subset": None}))
    measured = fb.run_point("mnist", 1, 0, out_dir=out, params=params, build=build, log=quiet)
    assert measured.parent == out and len(build.built) == 1 and build.fitted == [40]
    smaller = fb.dataset_points(fb.load_budget(params), "mnist")[0]
    assert fb.pick_refit_point("mnist", smaller, 1, records) is None
    assert fb.pick_refit_point("mnist", point, 2, records) is None           # seed 2 has no protocol record
    halving.write_text(json.dumps({"pick": PICK, "seconds": {"selection": 300.0, "total": 9.0, "refit": 6.0, "scoring": 1.0},
                                   "test_accuracy": 99.0, "n_test": 20, "subset": 600}))
    with pytest.raises(ValueError, match="the protocol ran on a subset"):
        fb.pick_refit_point("mnist", point, 1, records)


def test_an_undeclared_point_or_seed_is_refused(setup):
    out, params, _ = setup
    train = Trainer()
    with pytest.raises(ValueError, match=r"declares points 0..3, got --point 4"):
        fb.run_point("mnist", 4, 0, out_dir=out, params=params, train=train, log=quiet)
    with pytest.raises(ValueError, match=r"seed 7 is not one of the declared seeds \[0, 1, 2\]"):
        fb.run_point("mnist", 2, 7, out_dir=out, params=params, train=train, log=quiet)
    with pytest.raises(KeyError, match="'cifar10' declares no point"):
        fb.run_point("cifar10", 0, 0, out_dir=out, params=params, train=train, log=quiet)
    assert not train.calls


def test_training_rows_are_a_seeded_subset():
    rows = fb.training_rows(100, 30, 4)
    assert len(set(rows)) == 30 and list(rows) == sorted(rows) and rows.max() < 100
    assert np.array_equal(rows, fb.training_rows(100, 30, 4)) and not np.array_equal(rows, fb.training_rows(100, 30, 5))
    assert np.array_equal(fb.training_rows(5, None, 0), np.arange(5))
    with pytest.raises(ValueError, match="asks for 101 training rows; the training set has 100"):
        fb.training_rows(100, 101, 0)


# ----------------------------------------------------------------------------- the sampling error
def test_the_sampling_error_is_the_binomial_one_and_is_printed_beside_the_spread():
    assert fb.sampling_error(99.5, 10_000) == pytest.approx(0.0705, abs=1e-4)    # the issue's ±0.07
    assert fb.sampling_error(100.0, 10_000) == 0.0
    assert fb.difference_sampling_error(99.5, 99.5, 10_000) == pytest.approx(math.sqrt(2) * 0.07053, abs=1e-4)
    text = fb.accuracy_text([99.55, 99.56, 99.57], 10_000)
    assert text == "99.56 % ± 0.01 over 3 seeds, ± 0.07 test-set sampling error (10,000 images)"
    assert "(one seed)" in fb.accuracy_text([92.81], 10_000)
    with pytest.raises(ValueError, match="n_test must be a positive integer"):
        fb.sampling_error(99.0, 0)
    with pytest.raises(ValueError, match=r"percentage in \[0, 100\]"):
        fb.sampling_error(101.0, 10)


def test_the_gain_rule_with_sampling_error_refuses_a_gain_the_test_set_cannot_resolve():
    from greenelm_book.judging.verdicts import gain_over

    a, b = [97.40, 97.42, 97.41], [97.50, 97.52, 97.51]            # +0.10 points, every seed alike
    assert gain_over(a, b).label == "holds"                          # the plain rule: a gain
    verdict = fb.gain_with_sampling(a, b, 10_000, names=("SGD", "one-shot"))
    floor = 2 * math.hypot(fb.sampling_error(97.41, 10_000), fb.sampling_error(97.51, 10_000))
    assert floor == pytest.approx(0.44, abs=0.01)                    # 2 · √2 · 0.16 points
    assert verdict.label == "inconclusive" and f"floor {floor:.2f}: 2 sampling errors of a difference" in verdict.detail
    assert f"{floor:g}" not in verdict.detail                        # rounded as the bar, never printed raw
    assert fb.gain_with_sampling(a, [v + 0.5 for v in b], 10_000).label == "holds"
    assert fb.gain_with_sampling([v + 0.5 for v in b], a, 10_000).label == "does not hold"


# ----------------------------------------------------------------------------- the crossing's answer
def make_front(family, seconds, accuracy, jitter=0.0, seeds=(0, 1, 2)):
    """A synthetic front: one point per (seconds, accuracy), each seed's accuracy moved by ±jitter."""
    out = []
    for i, (s, a) in enumerate(zip(seconds, accuracy)):
        shifts = {seed: jitter * ((-1) ** (seed + i)) * (1 + seed) for seed in seeds}
        out.append({"point": {"family": family, "i": i}, "label": f"{family} {i}",
                    "seeds": list(seeds), "seconds": {seed: float(s) * (1 + 0.01 * seed) for seed in seeds},
                    "accuracy": {seed: a + shifts[seed] for seed in seeds}, "n_test": 10_000})
    return out


ONE_SHOT = make_front("one-shot", [10, 100, 1000, 10_000], [97.0, 98.0, 98.5, 98.8], jitter=0.02)


def test_a_crossing_one_shot_below_sgd_above():
    sgd = make_front("sgd", [20, 200, 2000, 9000], [90.0, 97.8, 99.2, 99.5], jitter=0.02)
    result = fb.crossing(ONE_SHOT, sgd)
    assert [c["outcome"] for c in result["comparisons"]] == ["gain", "gain", "loss", "loss"]
    assert result["one_shot_up_to"] == pytest.approx(np.mean([200, 202, 204]))
    assert result["sgd_from"] == pytest.approx(np.mean([2000, 2020, 2040]))
    assert result["sentence"] == ("Compared at the recipe's training seconds on each seed's machine (the one-shot front "
                                  "interpolated there; seconds are means over the compared seeds), by the book's gain rule from "
                                  "20 s to 9,090 s (4 of the recipe's 4 points), the one-shot model is more accurate than the gradient-trained recipe up to 202 s, and the "
                                  "recipe is more accurate from 2,020 s on.")


def test_no_crossing_either_way_and_points_outside_the_front():
    sgd = make_front("sgd", [5, 50, 500, 20_000], [80.0, 90.0, 95.0, 99.9], jitter=0.02)
    result = fb.crossing(ONE_SHOT, sgd)
    assert [c["outcome"] for c in result["comparisons"]] == ["gain", "gain"]
    assert result["outside"] == ["sgd 0", "sgd 3"] and result["sgd_from"] is None
    assert result["sentence"].startswith("The one-shot model is more accurate than the gradient-trained recipe at every compared budget "
                                         "(2 of the recipe's 4 points, 50 s to 505 s)")
    assert ("The recipe's points at sgd 0 and sgd 3 (5.0 s, 20,200 s) lie outside the one-shot front's seconds on at least one "
            "seed (the seed whose front is narrowest at each end: from 10 s to 10,000 s)") in result["sentence"]
    # the summaries group answers of one shape by the span the crossing writes (bottom_line.joined_answers)
    from greenelm_book.summaries.bottom_line import joined_answers

    assert joined_answers([("MNIST", result["brief"]), ("Fashion-MNIST", result["brief"])]) == (
        "on MNIST (2 of the recipe's 4 points, 50 s to 505 s) and Fashion-MNIST (2 of the recipe's 4 points, 50 s to "
        "505 s), the one-shot model is more accurate than the gradient-trained recipe at every compared budget; the recipe "
        "is more accurate at none.")
    # how the budgets are compared is in the page's sentence, and left to the summary's lead in the brief form
    assert fb.COMPARED_AT in result["sentence"] and fb.COMPARED_AT not in result["brief"]
    better = make_front("sgd", [20, 200, 2000], [99.0, 99.3, 99.6], jitter=0.02)
    assert fb.crossing(ONE_SHOT, better)["sentence"].startswith(
        "The gradient-trained recipe is more accurate than the one-shot model at every compared budget (3 of the recipe's "
        "3 points, 20 s to 2,020 s)")


def test_an_inconclusive_answer_when_the_seeds_spread_more_than_the_fronts_differ():
    sgd = make_front("sgd", [20, 200, 2000], [97.4, 98.3, 98.6], jitter=0.4)
    result = fb.crossing(ONE_SHOT, sgd)
    assert {c["outcome"] for c in result["comparisons"]} == {"no gain shown"}
    assert result["one_shot_up_to"] is None and result["sgd_from"] is None
    assert result["sentence"] == ("Neither the one-shot model nor the gradient-trained recipe is more accurate at any "
                                  "compared budget (3 of the recipe's 3 points, 20 s to 2,020 s), "
                                  f"{fb.COMPARED_AT}: no gain shown either way.")
    assert fb.budget_clause("MNIST", result) == "on MNIST at no budget compared (20–2,020 s; no gain shown either way)"
    two_seeds = make_front("sgd", [20, 200], [90.0, 90.0], seeds=(0, 1))
    assert {c["outcome"] for c in fb.crossing(ONE_SHOT, two_seeds)["comparisons"]} == {"no gain shown"}


def test_the_crossing_with_sampling_error_and_fronts_that_cross_twice():
    far = make_front("sgd", [20, 200], [90.0, 99.9])
    # the page's answer reads the seeds whose points all name one machine (compared_seeds): named here
    named = [{**p, "hosts": {s: "Test CPU, 2 cores, instance 0123456789ab" for s in p["seeds"]}} for p in ONE_SHOT + far]
    by_the_page = fb.answer({"one_shot": named[:len(ONE_SHOT)], "sgd": named[len(ONE_SHOT):], "n_test": 10_000,
                             "recipe": "pytorch-mnist-cnn"})
    unnamed = fb.answer({"one_shot": ONE_SHOT, "sgd": far, "n_test": 10_000, "recipe": "pytorch-mnist-cnn"})
    assert unnamed["comparisons"] == []       # points naming no machine are not shown to share one: not compared
    assert by_the_page["sampling_error"] and [c["outcome"] for c in by_the_page["comparisons"]] == ["gain", "loss"]
    assert by_the_page["comparisons"][0]["verdict"].ours.startswith(
        "the one-shot model − the PyTorch examples' MNIST CNN =")
    close = make_front("sgd", [20, 200], [97.5, 97.95])     # 0.2 points ahead of the one-shot front, then behind
    plain = fb.crossing(ONE_SHOT, close)
    assert [c["outcome"] for c in plain["comparisons"]] == ["loss", "gain"]
    assert {c["outcome"] for c in fb.crossing(ONE_SHOT, close, n_test=10_000)["comparisons"]} == {"no gain shown"}
    zigzag = make_front("sgd", [20, 200, 2000], [90.0, 99.0, 90.0], jitter=0.02)
    sentence = fb.crossing(ONE_SHOT, zigzag)["sentence"]
    assert "do not divide" in sentence and "at 20 s the one-shot model is more accurate, at 202 s the recipe is " \
                                           "more accurate, at 2,020 s the one-shot model is more accurate" in sentence
    assert fb.crossing(ONE_SHOT, make_front("sgd", [1], [50.0]))["sentence"].startswith("No point of the recipe lies within")
    assert fb.crossing([], zigzag)["sentence"] == "The one-shot front has no point yet: the fronts are not compared."


# ----------------------------------------------------------------------------- the figure and the words
def test_the_figure_has_both_fronts_the_protocols_marker_and_a_log_seconds_axis():
    import matplotlib.pyplot as plt

    sgd = make_front("sgd", [20, 200, 2000], [90.0, 97.8, 99.2])
    marker = {"seconds": {0: 3000.0, 1: 3100.0, 2: 2900.0}, "accuracy": {0: 98.9, 1: 99.0, 2: 98.95},
              "n_test": 10_000}
    fig = fb.plot_fronts("mnist", ONE_SHOT, sgd, marker, sgd_name="the PyTorch examples' CNN")
    (ax,) = fig.axes
    assert ax.get_xscale() == "log" and ax.get_ylabel() == "test accuracy (%)"
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert labels == ["the one-shot model (the protocol's pick refit at growing N and K)", "the PyTorch examples' CNN",
                      "the whole protocol (every rung, the refit, the scoring)"]
    lines = [c.lines[0] for c in ax.containers if c.lines[0] is not None and len(c.lines[0].get_xdata()) > 1]
    assert sorted(len(line.get_xdata()) for line in lines) == [3, 4]
    one_shot_line = next(line for line in lines if len(line.get_xdata()) == 4)
    assert np.allclose(one_shot_line.get_ydata(), [np.mean(list(p["accuracy"].values())) for p in ONE_SHOT])
    plt.close(fig)


def test_the_opponents_are_named_for_what_they_are_read_from_their_recipes():
    from greenelm_book.chapters import fast_sgd

    cnn = fb.recipe_words("pytorch-mnist-cnn", "mnist")
    assert "Adadelta" in cnn and "multiplied by 0.7 after each epoch" in cnn and "14 epochs" in cnn
    assert "not tuned" not in cnn
    fashion = fb.recipe_words("pytorch-mnist-cnn", "fashion-mnist")
    assert fashion.startswith(cnn) and "it is the MNIST recipe as published, not tuned for Fashion-MNIST" in fashion
    assert fb.untuned_words("pytorch-mnist-cnn", "mnist") == "" == fb.untuned_words("airbench94", "cifar10")
    assert fb.untuned_words("pytorch-mnist-cnn", "fashion-mnist") == "the MNIST recipe, not tuned for Fashion-MNIST"
    air = fb.recipe_words("airbench94", "cifar10")
    assert "SGD with Nesterov momentum 0.85" in air and "batches of 1,024" in air
    assert air.endswith("9.9 epochs with alternating flips and 2-pixel translations")
    plain = fb.recipe_words("airbench94", "cifar10", dataclasses.replace(fast_sgd.AIRBENCH94, flip=False, translate=0))
    assert plain.endswith("epochs with no augmentation")
    changed = fb.recipe_words("pytorch-mnist-cnn", "mnist", dataclasses.replace(fast_sgd.PYTORCH_MNIST_CNN, gamma=0.5))
    assert "multiplied by 0.5 after each epoch" in changed
    with pytest.raises(ValueError, match="no recipe 'resnet'"):
        fb.recipe_words("resnet", "mnist")
    # the short words in the tables name the optimiser the full words name
    assert set(fb.OPTIMIZER_WORDS) == {"pytorch-mnist-cnn", "airbench94"}
    assert fb.OPTIMIZER_WORDS["pytorch-mnist-cnn"] in cnn
    assert fb.OPTIMIZER_WORDS["airbench94"].replace(", ", " with ") in air


def test_an_accuracy_cell_carries_the_spread_and_the_sampling_error_of_the_mean():
    assert fb.accuracy_cell([99.5, 99.6, 99.7], 10_000) == "99.60 ± 0.10 (n = 3), ± 0.06 sampling"
    assert fb.accuracy_cell([90.0], 2_500) == "90.00 (n = 1), ± 0.60 sampling"
    with pytest.raises(ValueError, match="at least one value"):
        fb.accuracy_cell([], 10_000)
    with pytest.raises(ValueError, match="n_test must be a positive integer"):
        fb.accuracy_cell([90.0], 0)


def test_fronts_are_read_from_records_by_family_and_a_seed_twice_is_refused():
    records = [{"dataset": "mnist", "seed": s, "point": {"family": "sgd", "model": "pytorch-mnist-cnn", "epochs": e},
                "seconds": 10.0 * e + s, "test_accuracy": 90.0 + e, "n_test": 10_000}
               for e in (4, 1) for s in (0, 1, 2)]
    (first, second) = fb.front(records, "sgd")
    assert (first["label"], second["label"]) == ("1 epoch", "4 epochs")          # ordered by seconds
    assert first["seconds"] == {0: 10.0, 1: 11.0, 2: 12.0} and first["seeds"] == [0, 1, 2]
    assert fb.front(records, "one-shot") == []
    with pytest.raises(ValueError, match="seed 0 recorded twice"):
        fb.front(records + records[:1], "sgd")


def test_a_datasets_fronts_and_marker_are_read_from_the_committed_records(setup):
    out, params, records = setup
    assert fb.fronts("mnist", out, params)["one_shot"] == [] and fb.fronts("mnist", out, params)["marker"] is None
    records.mkdir()
    for seed in (0, 1, 2):
        fp.seed_record_path(records, "mnist", seed).write_text(json.dumps(
            {"pick": PICK, "seconds": {"selection": 300.0, "total": 900.0 + seed, "refit": 600.0, "scoring": 40.0},
             "test_accuracy": 99.0 + seed / 10, "n_test": 20}))
        fb.run_point("mnist", 0, seed, out_dir=out, params=params, build=Builder(), log=quiet)
        fb.run_point("mnist", 2, seed, out_dir=out, params=params, train=Trainer(), log=quiet)
    got = fb.fronts("mnist", out, params)
    assert [p["label"] for p in got["one_shot"]] == ["N = 30, K ≤ 8", "N = all, K ≤ 128"]    # the refit: read
    assert got["one_shot"][0]["seeds"] == [0, 1, 2] == got["one_shot"][1]["seeds"]
    assert [p["label"] for p in got["sgd"]] == ["1 epoch"] and got["sgd"][0]["seconds"] == {0: 2.5, 1: 2.5, 2: 2.5}
    assert got["marker"]["seconds"] == {0: 900.0, 1: 901.0, 2: 902.0} and (got["n_test"], got["recipe"]) == (
        20, "pytorch-mnist-cnn")
    assert fb.compared_seeds(got) == [] and fb.answer(got)["comparisons"] == []    # the answer reads no seed
    said = fb.crossing(got["one_shot"], got["sgd"], n_test=got["n_test"])
    # the pick's refit was read from the protocol's record, which names no machine: no seed shares one
    assert said["other_machine"] == ["1 epoch"] and said["comparisons"] == [] and said["outside"] == []
    assert said["sentence"].endswith("The recipe's point at 1 epoch is not compared: no seed measured that point and the one-shot "
                                     "front on one machine.")
    for entry in got["one_shot"] + got["sgd"]:
        entry["hosts"] = {seed: "Test CPU, 2 cores, instance 0123456789ab" for seed in entry["seeds"]}
    said = fb.answer(got)
    assert said["sampling_error"] and said["outside"] == []        # 2.5 s lies within the one-shot front's seconds
    assert [c["label"] for c in said["comparisons"]] == ["1 epoch"]
    params.write_text(params.read_text().replace("epochs: 1}", "epochs: 3}"), encoding="utf-8")
    with pytest.raises(ValueError, match="are not declared in the budget's parameters"):
        fb.fronts("mnist", out, params)


def test_an_sgd_point_at_its_own_schedule_is_read_from_the_opponents_record_not_measured_again(setup, tmp_path):
    from greenelm_book.chapters import fast_sgd

    assert fb.OWN_EPOCHS == {"airbench94": fast_sgd.AIRBENCH94.train_epochs,
                             "pytorch-mnist-cnn": fast_sgd.PYTORCH_MNIST_CNN.epochs}
    out, params, _ = setup
    opponents = tmp_path / "opponents"
    opponents.mkdir()
    published = opponents / "mnist-pytorch-mnist-cnn-published-seed0.json"
    published.write_text(json.dumps({"accuracy": 99.1, "seconds": 750.0, "n_test": 20, "epochs": 14.0,
                                     "subset": None}))
    train = Trainer()
    # the opponent's record names no machine: its seconds cannot stand beside this machine's, so measured here
    first = fb.run_point("mnist", 3, 0, out_dir=out / "elsewhere", params=params, train=train, log=quiet)
    assert first.parent == out / "elsewhere" and len(train.calls) == 1
    train.calls.clear()
    here = chapter_machine()
    published.write_text(json.dumps({"accuracy": 99.1, "seconds": 750.0, "n_test": 20, "epochs": 14.0,
                                     "subset": None, "machine": {"cpu": here["cpu"], "cores": here["cores"],
                                                                 "instance": machine_instance()}}))
    assert fb.run_point("mnist", 3, 0, out_dir=out, params=params, train=train, log=quiet) == published
    assert not train.calls and not (out / "test-reads.json").exists()        # no second measurement, no read
    fb.run_point("mnist", 3, 1, out_dir=out, params=params, train=train, log=quiet)   # seed 1: none there
    assert len(train.calls) == 1
    fb.run_point("mnist", 2, 0, out_dir=out, params=params, train=train, log=quiet)   # 1 epoch: measured here
    (own, short) = sorted(fb.fronts("mnist", out, params)["sgd"], key=lambda p: p["point"]["epochs"], reverse=True)
    assert own["accuracy"] == {0: 99.1, 1: 25.0} and own["seconds"] == {0: 750.0, 1: 2.5}
    assert short["seeds"] == [0]
    published.write_text(json.dumps({"accuracy": 99.1, "seconds": 750.0, "n_test": 20, "epochs": 14.0,
                                     "subset": 600}))
    with pytest.raises(ValueError, match="not the recipe's own schedule on all images"):
        fb.opponent_point("mnist", {"family": "sgd", "model": "pytorch-mnist-cnn", "epochs": 14}, 0)


def test_the_intro_names_no_opponent_optimiser_by_hand():
    """Finding 10 of issue 61's reading: the intro called the opponents "a fast-training SGD recipe" while
    the MNIST ones train with Adadelta. The hand-written intro names no optimiser of an opponent; the
    generated findings it includes name each from :data:`OPTIMIZER_WORDS` (the rule, planted: the old
    sentence is caught)."""
    import re
    from pathlib import Path

    optimisers = sorted({words.split(",")[0] for words in fb.OPTIMIZER_WORDS.values()})
    assert optimisers == ["Adadelta", "SGD"]
    pattern = re.compile(rf"\b(?:{'|'.join(optimisers)})\b[\w\s-]{{0,30}}\brecipes?\b")
    assert pattern.search("the result is set against a fast-training SGD recipe on two CPU cores")
    intro = (Path(__file__).resolve().parents[1] / "book" / "intro.md").read_text(encoding="utf-8")
    assert not pattern.search(re.sub(r"\s+", " ", intro))
    assert "recipes trained whole on two CPU cores (the findings above name each, with its optimiser)" in \
        re.sub(r"\s+", " ", intro)


def test_a_point_whose_fit_fails_is_logged_and_the_rest_still_run(setup):
    """A fit that raises LinAlgError or MemoryError leaves no record and no test read (the fit precedes the
    score); the remaining points run, so one indefinite kernel does not cost a seed's other points. Any other
    error stops the run."""
    out, params, _ = setup
    said, ran = [], []

    def run(dataset, index, seed, **kw):
        ran.append((seed, index))
        if (seed, index) == (0, 1):
            raise np.linalg.LinAlgError("did not factorise")

    done = fb.run_remaining("mnist", out_dir=out, params=params, log=said.append, run=run)
    assert (0, 1) not in done and (0, 2) in done and len(ran) == 12
    assert said == ["mnist seed 0 point 1: failed, no record (LinAlgError: did not factorise)"]

    def broken(dataset, index, seed, **kw):
        raise KeyError("a bug")

    with pytest.raises(KeyError):
        fb.run_remaining("mnist", out_dir=out, params=params, log=said.append, run=broken)


def test_a_gpu_point_names_the_gpu_first_and_its_host_beside_it():
    machine = {"cpu": "Intel(R) Xeon(R) Processor", "cores": 16, "gpu": "NVIDIA H200"}
    assert fb.record_host({"machine": machine}) == "NVIDIA H200 GPU on Intel(R) Xeon(R) Processor, 16 cores"
    from greenelm_book.bench import host_from_words

    assert host_from_words(fb.record_host({"machine": machine}))["cores"] == 16       # read back as the store does
    assert fb.record_host({"machine": {"cpu": "AMD EPYC", "cores": 2}}) == "AMD EPYC, 2 cores"


def test_a_cpu_point_names_its_machine_instance_and_a_seed_without_one_is_not_compared():
    """Two virtual machines of one CPU model and core count ran the same points at different speeds: a CPU
    point names its machine's instance, and a seed whose points do not all name one instance is not compared."""
    from greenelm_book.bench import host_from_words, machine_instance

    here = fb.record_host({"machine": {"cpu": "AMD EPYC", "cores": 2, "instance": "c5e2921893ad"}})
    assert here == "AMD EPYC, 2 cores, instance c5e2921893ad" and fb.names_one_machine(here)
    assert host_from_words(here)["cpu"] == "AMD EPYC" and host_from_words(here)["cores"] == 2
    assert not fb.names_one_machine("AMD EPYC, 2 cores")                 # a model and cores: not one machine
    gpu = {"cpu": "Intel(R) Xeon(R) Processor", "cores": 16, "gpu": "NVIDIA H200"}
    assert not fb.names_one_machine(fb.record_host({"machine": gpu})) and fb.names_one_machine(None)
    gpu_here = fb.record_host({"machine": {**gpu, "instance": "c5e2921893ad"}})
    assert gpu_here == "NVIDIA H200 GPU on Intel(R) Xeon(R) Processor, 16 cores, instance c5e2921893ad"
    assert fb.names_one_machine(gpu_here) and host_from_words(gpu_here)["cores"] == 16
    instance = machine_instance()
    assert instance is None or (len(instance) == 12 and int(instance, 16) >= 0)
    assert machine_instance() == instance                                 # one boot, one id
    bare = "AMD EPYC, 2 cores"
    one_shot = [fb.front_entry({"family": "one-shot", "n_train": n, "n_patches": 128}, f"N = {n}", 10_000,
                               seconds={0: t, 1: t, 2: t / 2}, accuracy={0: a, 1: a, 2: a},
                               hosts={0: bare, 1: bare, 2: here}) for n, t, a in ((2500, 4.0, 88.0), (60000, 1000.0, 93.0))]
    sgd = [fb.front_entry({"family": "sgd", "model": "pytorch-mnist-cnn", "epochs": 1}, "1 epoch", 10_000,
                          seconds={0: 100.0, 1: 100.0, 2: 50.0}, accuracy={0: 85.0, 1: 85.0, 2: 85.0},
                          hosts={0: bare, 1: bare, 2: here})]
    assert fb.seed_hosts({"one_shot": one_shot, "sgd": sgd}) == {0: None, 1: None, 2: here}
    result = fb.crossing(one_shot, sgd)
    assert result["other_machine"] == [] and [c["seeds"] for c in result["comparisons"]] == [[2]]
    from greenelm_book.chapters import frontier_sections as fs

    clause = fs.instance_clause({"one_shot": one_shot, "sgd": sgd})
    assert "6 of this dataset's runs, recorded earlier, name only a CPU model and cores" in clause
    assert "(on each of the 3 declared points they share, the machines named here differ 2.0× in mean seconds)" in clause
    assert "the one declared point they share (N = 2500), the machines named here differ 2.0×" in fs.instance_clause(
        {"one_shot": one_shot[:1], "sgd": []})
    uneven = [dict(sgd[0], seconds={0: 100.0, 1: 100.0, 2: 25.0})]           # 2.0× and 4.0×: a median and a range
    assert ("(on the 3 declared points measured on more than one of the machines named here, their mean seconds differ by "
            "a median 2.0×, up to 4.0× at 1 epoch)") in fs.instance_clause({"one_shot": one_shot, "sgd": uneven})
    assert "(the boot's id) only since records kept it: 2 of this dataset's runs, recorded earlier, name only" in fs.instance_clause({"one_shot": one_shot[:1], "sgd": []})
    unnamed = [dict(e, hosts={0: bare, 1: bare, 2: None}) for e in one_shot]     # no machine named: no evidence
    assert "records kept it: 4 of this dataset's runs" in fs.instance_clause({"one_shot": unnamed, "sgd": []})
    assert "differ by" not in fs.instance_clause({"one_shot": unnamed, "sgd": []})
    everywhere_here = [dict(e, hosts={0: here, 1: here, 2: here}) for e in one_shot]
    assert fs.instance_clause({"one_shot": everywhere_here, "sgd": []}) == ""


def test_the_gpu_fronts_read_their_own_records_only_and_carry_no_protocol_marker(setup):
    """A GPU's fronts never borrow the CPU's measurements: the protocol's refit recorded by the halving run is
    read into the CPU's fronts and not into the GPU's, and the GPU's have no marker (the protocol ran on CPUs)."""
    out, params, records = setup
    records.mkdir()
    here = chapter_machine()
    fp.seed_record_path(records, "mnist", 1).write_text(json.dumps(
        {"pick": PICK, "seconds": {"selection": 300.0, "total": 900.0, "refit": 600.0, "scoring": 40.0}, "test_accuracy": 99.0,
         "n_test": 20, "subset": None, "host": {"cpu": here["cpu"], "cores": here["cores"]}}))
    on_cpu = fb.fronts("mnist", out, params)
    on_gpu = fb.fronts("mnist", out, params, on_gpu=True)
    assert len(on_cpu["one_shot"]) == 1 and on_cpu["marker"] is not None and not on_cpu["on_gpu"]
    assert on_gpu["one_shot"] == [] and on_gpu["marker"] is None and on_gpu["on_gpu"]


def test_the_gpu_note_counts_runs_names_the_gpu_and_the_library_paths(tmp_path):
    from greenelm_book.chapters import frontier_sections as fs

    machine = {"cpu": "Intel(R) Xeon(R) Processor", "cores": 16, "gpu": "NVIDIA H200"}
    host = fb.record_host({"machine": machine})
    point = {"family": "sgd", "model": "pytorch-mnist-cnn", "epochs": 1}
    entry = fb.front_entry(point, "1 epoch", 10_000, seconds={0: 2.0, 1: 2.1}, accuracy={0: 98.0, 1: 98.1},
                           hosts={0: host, 1: host})
    fronts_of = {"mnist": {"one_shot": [], "sgd": [entry], "declared": 9},
                 "cifar10": {"one_shot": [], "sgd": [], "declared": 9}}
    note = fs.gpu_fronts_note(fronts_of, tmp_path)
    assert note == f"Measured on {host}: MNIST 2 of 27 runs; CIFAR-10 none yet."
    assert fs.gpu_fronts_note(fronts_of, tmp_path, planned=6).startswith(f"Measured on {host}: MNIST 2 of 54 runs;")
    (tmp_path / fs.KERNEL_PATHS).write_text(json.dumps({"paths": {"path a": ["x.json", "y.json"], "path b": ["z.json"]}}))
    note = fs.gpu_fronts_note(fronts_of, tmp_path)
    assert "measured with 2 revisions of the library's GPU path" in note and "2 with path a; and 1 with path b, the path the library ships" in note
    assert fs.gpu_fronts_note({"mnist": fronts_of["cifar10"]}, tmp_path) == "No point has been measured on a GPU yet."


def test_the_gpus_refit_is_set_beside_the_protocols_refit_of_the_same_pick(tmp_path):
    from greenelm_book.chapters import frontier_sections as fs

    halving = tmp_path / "halving"
    halving.mkdir()
    fp.seed_record_path(halving, "mnist", 0).write_text(json.dumps(
        {"pick": PICK, "seconds": {"selection": 300.0, "total": 900.0, "refit": 600.0, "scoring": 40.0}, "test_accuracy": 99.47,
         "n_test": 10_000, "subset": None}))
    refit = fb.front_entry({"family": "one-shot", "pick_of": "frontier_halving", "n_train": None, "n_patches": None},
                           "N = all", 10_000, seconds={0: 8.0, 1: 8.1}, accuracy={0: 99.44, 1: 99.5})
    smaller = fb.front_entry({"family": "one-shot", "pick_of": "frontier_halving", "n_train": 2500, "n_patches": 128},
                             "N = 2,500", 10_000, seconds={0: 0.3}, accuracy={0: 98.0})
    said = fs.gpu_refit_agreement({"mnist": {"one_shot": [smaller, refit], "sgd": []}}, halving)
    assert said.startswith("The GPU's refit of each seed's pick on every training row scores within 0.03 points")
    assert "(1 seed of MNIST)" in said
    assert fs.gpu_refit_agreement({"mnist": {"one_shot": [smaller], "sgd": []}}, halving) == ""


def test_a_point_borrowed_from_a_record_naming_no_machine_is_said_to_be_measured_again(setup):
    from greenelm_book.chapters import frontier_sections as fs

    out, params, records = setup
    records.mkdir()
    fp.seed_record_path(records, "mnist", 1).write_text(json.dumps(
        {"pick": PICK, "seconds": {"selection": 300.0, "total": 900.0, "refit": 600.0, "scoring": 40.0}, "test_accuracy": 99.0,
         "n_test": 20, "subset": None}))                    # the protocol's refit, its record naming no host
    got = fb.fronts("mnist", out, params)
    (refit,) = got["one_shot"]
    assert refit["hosts"] == {1: None} and 1 in refit["read_from"]
    text = fs.fronts_status("mnist", got, fs.load_budget_params(params))
    assert ("neither read its labels through this section's ledger) is shown as read, and is measured again on its "
            "seed's machine when the fronts' command runs that point: until then that seed is not compared") in text


def test_the_bottom_lines_clause_follows_each_shape_of_the_answer():
    """budget_clause says, per dataset, where the one-shot model is more accurate, in the shapes the crossing
    can take: a range below a recipe range, every budget, none, a middle with no gain shown either way, and fronts
    that cross back and forth (then no range is claimed)."""
    crossing = fb.crossing(ONE_SHOT, make_front("sgd", [20, 200, 2000, 9000], [90.0, 97.8, 99.2, 99.5], jitter=0.02))
    assert fb.budget_clause("MNIST", crossing) == "on MNIST up to 202 s (the recipe from 2,020 s on)"
    below = fb.crossing(ONE_SHOT, make_front("sgd", [20, 200, 2000], [90.0, 90.0, 90.0], jitter=0.02))
    assert fb.budget_clause("MNIST", below) == "on MNIST at every budget compared (20–2,020 s)"
    above = fb.crossing(ONE_SHOT, make_front("sgd", [20, 200, 2000], [99.9, 99.9, 99.9], jitter=0.02))
    assert fb.budget_clause("MNIST", above) == "on MNIST at no budget compared (20–2,020 s; the recipe more accurate at each)"
    middle = fb.crossing(ONE_SHOT, make_front("sgd", [20, 200, 2000, 9000], [90.0, 98.0, 98.51, 99.5], jitter=0.1))
    outcomes = [c["outcome"] for c in middle["comparisons"]]
    assert outcomes[0] == "gain" and outcomes[-1] == "loss" and "no gain shown" in outcomes and middle["divides"]
    clause = fb.budget_clause("MNIST", middle)
    assert clause == "on MNIST at 20 s (no gain shown either way at 202–2,020 s; the recipe at 9,090 s)"  # one budget each end
    back_and_forth = fb.crossing(ONE_SHOT, make_front("sgd", [20, 200, 2000, 9000], [90.0, 99.9, 90.0, 99.9], jitter=0.02))
    assert not back_and_forth["divides"]
    assert fb.budget_clause("MNIST", back_and_forth) == (
        "on MNIST in no one range of the budgets compared (20–9,090 s): the fronts cross back and forth")
    assert fb.budget_clause("MNIST", fb.crossing(ONE_SHOT, make_front("sgd", [1, 2], [90.0, 91.0]))) == ""
    # several datasets: one shared clause only where every answer has one and the same outcome at every budget
    assert fb.budget_clauses([("MNIST", below), ("Fashion-MNIST", below)]) == (
        "at every budget compared on MNIST (20–2,020 s) and Fashion-MNIST (20–2,020 s)")
    assert fb.budget_clauses([("MNIST", above), ("Fashion-MNIST", above)]) == (
        "at no budget compared: the recipe more accurate at each on MNIST (20–2,020 s) and Fashion-MNIST (20–2,020 s)")
    level = fb.crossing(ONE_SHOT, make_front("sgd", [20, 200, 2000], [97.4, 98.3, 98.6], jitter=0.4))
    assert fb.uniform_outcome(level) == "no gain shown" and fb.uniform_outcome(middle) is None
    assert fb.budget_clauses([("MNIST", level), ("Fashion-MNIST", level)]) == (
        "at no budget compared: no gain shown either way on MNIST (20–2,020 s) and Fashion-MNIST (20–2,020 s)")
    # every answer uniform, their outcomes different: the datasets of each outcome are named together
    assert fb.budget_clauses([("MNIST", below), ("Fashion-MNIST", above)]) == (
        "at every budget compared on MNIST (20–2,020 s), and at no budget compared on the others: the recipe more "
        "accurate at each on Fashion-MNIST (20–2,020 s)")
    assert fb.budget_clauses([("MNIST", level), ("Fashion-MNIST", level), ("CIFAR-10", above)]) == (
        "at no budget compared: no gain shown either way on MNIST (20–2,020 s) and Fashion-MNIST (20–2,020 s), the "
        "recipe more accurate at each on CIFAR-10 (20–2,020 s)")
    # one answer not uniform: one clause per dataset, listed, what follows the one-shot range in parentheses
    assert fb.budget_clauses([("MNIST", below), ("Fashion-MNIST", crossing), ("CIFAR-10", level)]) == (
        "on MNIST at every budget compared (20–2,020 s), on Fashion-MNIST up to 202 s (the recipe from 2,020 s on) "
        "and on CIFAR-10 at no budget compared (20–2,020 s; no gain shown either way)")
    assert fb.budget_clauses([("MNIST", below)]) == fb.budget_clause("MNIST", below)
    assert fb.budget_clauses([("MNIST", fb.crossing(ONE_SHOT, make_front("sgd", [1, 2], [90.0, 91.0])))]) == ""


def test_one_compared_budget_is_said_as_that_budget_never_as_a_range_past_it():
    one = make_front("sgd", [5, 500, 20_000], [80.0, 99.9, 99.95], jitter=0.02)        # only 500 s lies within
    sentence = fb.crossing(ONE_SHOT, one)["sentence"]
    assert sentence.startswith("The gradient-trained recipe is more accurate than the one-shot model at the one compared "
                               "budget (1 of the recipe's 3 points, at 505 s)") and "every" not in sentence.split(".")[0]
    two = make_front("sgd", [200, 2000], [97.8, 99.2], jitter=0.02)                    # a gain at one, a loss at the other
    sentence = fb.crossing(ONE_SHOT, two)["sentence"]
    assert ("the one-shot model is more accurate than the gradient-trained recipe at 202 s, and the recipe is more "
            "accurate at 2,020 s.") in sentence
    assert "up to" not in sentence and " on." not in sentence


def test_the_start_loads_of_the_runs_an_answer_reads_are_counted_against_the_quiet_rule():
    machine = dict.fromkeys((0, 1, 2), "M, 2 cores, instance 0123456789ab")     # every seed on one named machine
    one_shot = [dict(p, hosts=machine, loads={0: [0.1, 0.2, 0.3], 1: [1.5, 1.2, 1.0], 2: [0.2, 0.7, 0.9]})
                for p in ONE_SHOT[:2]]
    sgd = [dict(p, hosts=machine, loads={0: [0.0, 0.1, 0.2]}) for p in make_front("sgd", [20, 200], [90.0, 97.8])]
    fronts_of = {"one_shot": one_shot, "sgd": sgd, "n_test": 10_000, "recipe": "pytorch-mnist-cnn",
                 "marker": {"seconds": {0: 1.0, 1: 1.0, 2: 1.0}, "selection": {0: 1.0, 1: 1.0, 2: 1.0},
                            "loads": {0: [2.0, 1.9, 1.5]}}}
    sentence = fb.start_loads_sentence(fronts_of)
    # 6 one-shot starts (2 busy: seeds 1 and 2 of each point), 2 SGD starts (quiet), 1 protocol start (busy)
    assert sentence.startswith("These seconds are not held to the quiet rule: of the 9 runs they read whose records "
                               "hold the loads at their start (points and protocols of the compared seeds), 5 started")
    unloaded = {**fronts_of, "one_shot": [dict(p, hosts=machine) for p in ONE_SHOT[:2]],
                "sgd": [dict(p, hosts=machine) for p in make_front("sgd", [20], [90.0])], "marker": None}
    assert fb.compared_seeds(unloaded) == [0, 1, 2] and fb.start_loads_sentence(unloaded) == ""


def test_datasets_not_compared_with_the_search_counted_are_named():
    from greenelm_book.summaries.bottom_line import uncounted_words

    assert uncounted_words(["Fashion-MNIST"]) == ("Fashion-MNIST is not compared so (a compared seed's search is not "
                                                  "shown to have run on its points' machine)")
    assert uncounted_words(["MNIST", "CIFAR-10"]).startswith("MNIST and CIFAR-10 are not compared so")
