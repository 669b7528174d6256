"""The frontier's protocol (greenelm_book.chapters.frontier_protocol): the test gate refuses a second searched
configuration, the choice reads validation rows alone, the test set is read once per seed for the
pick, and the records are JSON and repeat with the seed; the gain verdict (greenelm_book.judging.verdicts)."""

from __future__ import annotations

import json
import pickle

import numpy as np
import pytest

from greenelm_book.chapters import frontier_protocol as fp
from greenelm_book.judging import verdicts as V
from greenelm_book.chapters.frontier_protocol import Candidate, TestGate, TestSetAlreadyRead, UndeclaredFixedMeasurement

SHAPE = (8, 8, 1)


def tiny_images(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """n images 8 × 8 (rows of 64 values in [0, 1]) of 3 classes: a bright bar in the top, middle or
    bottom rows, with noise."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    X = 0.3 * rng.random((n, 8, 8))
    for i, label in enumerate(y):
        X[i, 1 + 2 * label:3 + 2 * label, rng.integers(0, 3):rng.integers(5, 8)] += 0.7
    return X.reshape(n, -1).astype(np.float32), y


def small(variant: str, **settings) -> Candidate:
    base = {"n_patches": 6, "patch_size": 3, "pool": 2, "n_whitening": 400}
    if variant == "limit":
        base["ridge"] = [1e-4, 1e-2, 1e-1]
    elif variant == "stacked":
        base.update(n_hidden=40, ridge=[1e-2, 1.0, 100.0])
    else:
        base["ridge"] = [1e-2, 1.0, 100.0]
    return Candidate(variant=variant, **{**base, **settings})


@pytest.fixture(scope="module")
def data():
    X_train, y_train = tiny_images(300, 0)
    X_test, y_test = tiny_images(120, 1)
    return X_train, y_train, X_test, y_test


GRID = [small("readout"), small("limit"), small("limit", views=["flip"]), small("stacked")]


# ----------------------------------------------------------------------------- the gate
def gate_of(y_test, fixed=()) -> TestGate:
    return TestGate({"tiny": y_test}, fixed={"tiny": list(fixed)})


def test_the_gate_refuses_a_second_searched_configuration_per_dataset_and_seed():
    y = np.array([0, 1, 2, 1])
    gate = gate_of(y)
    first, second = small("limit"), small("limit", n_patches=8)
    assert gate.score("tiny", 0, first, [0, 1, 2, 0]) == 75.0
    with pytest.raises(TestSetAlreadyRead) as refused:
        gate.score("tiny", 0, second, [0, 1, 2, 1])
    message = str(refused.value)
    assert "tiny" in message and "seed 0" in message
    assert fp.configuration_key(first) in message and fp.configuration_key(second) in message
    with pytest.raises(TestSetAlreadyRead):
        gate.release("tiny", 0, second)
    # the pick itself may read again (each read recorded); another seed has its own pick
    assert gate.score("tiny", 0, first, y) == 100.0
    assert gate.score("tiny", 1, second, y) == 100.0
    assert [(r["seed"], r["kind"], r["key"]) for r in gate.reads()] == [
        (0, "pick", fp.configuration_key(first)), (0, "pick", fp.configuration_key(first)),
        (1, "pick", fp.configuration_key(second))]


def test_declared_fixed_measurements_are_scored_and_recorded_as_fixed():
    y = np.array([0, 1, 1])
    paper = [{"model": "paper-map", "input": "pixels", "n_hidden": w} for w in (2000, 4000)]
    gate = gate_of(y, fixed=paper + [{"model": "paper-map-limit", "input": "pixels"}])
    assert gate.score("tiny", 0, small("readout"), [0, 1, 1]) == 100.0          # the pick
    assert gate.score("tiny", 0, paper[0], [0, 0, 1], kind="fixed") == pytest.approx(200 / 3)
    assert gate.score("tiny", 0, {"input": "pixels", "model": "paper-map", "n_hidden": 4000}, [1, 1, 1],
                      kind="fixed") == pytest.approx(200 / 3)                  # key order does not matter
    assert gate.score("tiny", 0, {"model": "paper-map-limit", "input": "pixels"}, y, kind="fixed") == 100.0
    with pytest.raises(UndeclaredFixedMeasurement, match="n_hidden.*8000.*not declared"):
        gate.score("tiny", 0, {"model": "paper-map", "input": "pixels", "n_hidden": 8000}, y, kind="fixed")
    with pytest.raises(UndeclaredFixedMeasurement):                     # a searched one cannot pass as fixed
        gate.score("tiny", 0, small("limit"), y, kind="fixed")
    record = json.loads(json.dumps(gate.record()))
    assert [r["kind"] for r in record["reads"]] == ["pick", "fixed", "fixed", "fixed"]
    assert record["reads"][1]["configuration"] == paper[0]
    assert all(r["dataset"] == "tiny" and r["seed"] == 0 and r["n_test"] == 3 and r["at"] for r in record["reads"])
    assert len(record["fixed"]["tiny"]) == 3


def test_the_gate_keeps_its_labels_private_and_checks_what_it_is_given():
    y = np.array([2, 0, 1])
    gate = gate_of(y)
    public = {name: value for name, value in vars(gate).items() if not name.startswith("_TestGate__")}
    assert not any(isinstance(value, np.ndarray) for value in public.values())
    assert not hasattr(gate, "labels") and "2, 0, 1" not in repr(gate)
    y[0] = 0                                                         # the gate holds its own copy
    released = gate.release("tiny", 3, small("readout"))
    assert released.tolist() == [2, 0, 1] and not released.flags.writeable
    assert gate.reads()[0]["what"] == "labels"
    with pytest.raises(TypeError, match="not copied or pickled"):
        pickle.dumps(gate)
    with pytest.raises(KeyError, match="no test labels for 'other'"):
        gate.score("other", 0, small("readout"), y)
    with pytest.raises(ValueError, match="shape"):
        gate.score("tiny", 0, small("readout"), [0, 1])
    with pytest.raises(ValueError, match="no test labels here"):
        TestGate({"tiny": y}, fixed={"other": [{"model": "x"}]})


# ----------------------------------------------------------------------------- the grid and the pick
def test_the_grid_is_the_product_of_each_block_over_the_defaults_each_configuration_once():
    defaults = {"patch_size": 5, "pool": 3, "n_patches": 256}
    grid = fp.expand_grid([{"variant": ["limit"], "patch_size": [5, 7], "views": [[], ["flip"]]},
                           {"variant": ["limit"], "patch_size": [5]},                     # a repeat
                           {"variant": ["stacked"], "n_hidden": [8000], "ridge": [[0.1, 1.0]]}], defaults)
    assert [(c.variant, c.patch_size, c.views) for c in grid] == [
        ("limit", 5, ()), ("limit", 5, ("flip",)), ("limit", 7, ()), ("limit", 7, ("flip",)), ("stacked", 5, ())]
    assert grid[-1].n_hidden == 8000 and grid[-1].ridge == (0.1, 1.0) and grid[-1].pool == 3
    assert Candidate.from_dict(grid[1].as_dict()) == grid[1]
    assert grid[1].n_views == 2 and small("limit", views=["shift"]).n_views == 5
    with pytest.raises(ValueError, match="unknown candidate setting.*'width'"):
        fp.expand_grid([{"variant": ["limit"], "width": [3]}], defaults)
    with pytest.raises(ValueError, match="n_hidden"):
        Candidate("stacked", 256, 5, 3)
    with pytest.raises(ValueError, match="n_hidden is the stacked map's width"):
        Candidate("limit", 256, 5, 3, n_hidden=100)
    with pytest.raises(ValueError, match="must be a non-empty list"):
        fp.expand_grid([{"variant": "limit"}], defaults)


def test_the_pick_is_the_best_validation_accuracy_a_tie_going_to_the_cheaper():
    wide, narrow, flipped = small("limit", n_patches=12), small("limit"), small("limit", views=["flip"])
    assert fp.pick_index([97.0, 98.0, None], [wide, narrow, flipped]) == 1
    assert fp.pick_index([98.0, 98.0, 98.0], [flipped, wide, narrow]) == 2     # fewer views, then features
    assert fp.pick_index([98.0, 98.0], [narrow, narrow]) == 0                  # then the grid's order
    with pytest.raises(RuntimeError, match="every fit failed"):
        fp.pick_index([None, None], [wide, narrow])


def test_the_protocols_parameters_load_with_three_seeds_and_declared_fixed_measurements():
    spec = fp.load_protocol()
    assert len(spec["seeds"]) >= 3
    assert set(spec["datasets"]) == {"mnist", "fashion-mnist", "cifar10"}
    for name, entry in spec["datasets"].items():
        variants = {c.variant for c in entry["grid"]}
        assert variants == set(fp.VARIANTS), name
        assert entry["fixed"] and all(fixed.get("model") for fixed in entry["fixed"])
        keys = {fp.configuration_key(c) for c in entry["grid"]}
        assert not keys & {fp.configuration_key(f) for f in entry["fixed"]}   # no searched one is "fixed"


# ----------------------------------------------------------------------------- the protocol end to end
class Spy:
    """A model builder that records which rows each model was fitted on and what it predicted."""

    def __init__(self, fail=()):
        self.fits, self.predicted, self.fail = [], [], set(fail)

    def __call__(self, candidate, image_shape, seed):
        spy, model = self, fp.build_model(candidate, image_shape, seed)

        class Recorded:
            def fit(self, X, y):
                if fp.configuration_key(candidate) in spy.fail:
                    raise np.linalg.LinAlgError("no jitter factorised")
                spy.fits.append((fp.configuration_key(candidate), len(X)))
                model.fit(X, y)
                return self

            def predict(self, X):
                spy.predicted.append(len(X))
                return model.predict(X)

            def info(self):
                return model.info()

        return Recorded()


def test_the_protocol_over_three_seeds_reads_the_test_set_once_per_seed_for_the_pick(data):
    X_train, y_train, X_test, y_test = data
    gate = gate_of(y_test)
    spy = Spy()
    summary = fp.run_seeds("tiny", X_train, y_train, X_test, gate, GRID, [0, 1, 2], image_shape=SHAPE,
                           validation_size=100, fit_size=None, build=spy)
    assert json.loads(json.dumps(summary)) == summary
    n_fit = len(y_train) - 100
    for run in summary["runs"]:
        reads = gate.reads("tiny", run["seed"])
        assert len(reads) == 1 and reads[0]["kind"] == "pick" and reads[0]["configuration"] == run["pick"]
        assert run["test_reads"] == reads
        # the pick: the highest validation accuracy (a tie: the cheaper, the earlier)
        validation = [r["validation_accuracy"] for r in run["grid"]]
        assert run["pick_index"] == fp.pick_index(validation, GRID)
        assert run["validation_accuracy"] == max(validation) and run["pick"] == GRID[run["pick_index"]].as_dict()
        assert (run["n_fit"], run["n_validation"], run["n_test"]) == (n_fit, 100, len(y_test))
        assert run["test_accuracy"] > 60                       # three bars: far above chance
        seconds = run["seconds"]
        assert seconds["total"] == pytest.approx(seconds["selection"] + seconds["refit"] + seconds["scoring"])
        assert seconds["selection"] == pytest.approx(sum(r["seconds"] for r in run["grid"]))
        assert run["peak_memory_gb"] > 0 and run["selection_fits_read_back"] == 0
        for when in ("started", "finished"):                   # the machine's load, as evidence of a quiet run
            assert len(run["load_average"][when]) == 3 and min(run["load_average"][when]) >= 0
    # every selection fit saw the fit rows alone, every refit all the training rows; the test images
    # were predicted once per seed
    per_seed = len(GRID) + 1
    assert [n for _, n in spy.fits] == ([n_fit] * len(GRID) + [len(y_train)]) * 3
    assert [key for key, _ in spy.fits[len(GRID)::per_seed]] == [json.dumps(r["pick"], sort_keys=True,
                                                                            separators=(",", ":"))
                                                                 for r in summary["runs"]]
    assert spy.predicted.count(len(y_test)) == 3
    assert summary["test_accuracy"]["n"] == 3 and summary["test_accuracy"]["sd"] is not None
    assert summary["seconds"]["mean"] > 0 and len(summary["picks"]) == 3
    # the same seed gives the same choice and the same accuracies; a variant's gain judged on validation
    again = fp.run_protocol("tiny", X_train, y_train, X_test, gate_of(y_test), GRID, 1, image_shape=SHAPE,
                            validation_size=100)
    first = summary["runs"][1]
    assert (again["pick"], again["test_accuracy"]) == (first["pick"], first["test_accuracy"])
    assert [r["validation_accuracy"] for r in again["grid"]] == [r["validation_accuracy"] for r in first["grid"]]
    limit, readout = (fp.variant_validation(summary["runs"], v) for v in ("limit", "readout"))
    assert len(limit) == 3 and V.gain_over(readout, limit).label in ("holds", "inconclusive", "does not hold")


def test_a_candidate_that_cannot_be_fitted_is_recorded_and_never_picked(data):
    X_train, y_train, X_test, y_test = data
    grid = GRID[:2]
    spy = Spy(fail={fp.configuration_key(grid[1])})
    run = fp.run_protocol("tiny", X_train, y_train, X_test, gate_of(y_test), grid, 0, image_shape=SHAPE,
                          validation_size=0.25, build=spy)
    assert run["grid"][1]["validation_accuracy"] is None and "LinAlgError" in run["grid"][1]["error"]
    assert run["pick_index"] == 0
    with pytest.raises(RuntimeError, match="no candidate of the grid could be fitted"):
        fp.run_protocol("tiny", X_train, y_train, X_test, gate_of(y_test), grid[1:], 0, image_shape=SHAPE,
                        validation_size=0.25, build=spy)


def test_fixed_measurements_run_through_the_gate_and_an_undeclared_one_is_refused_before_fitting(data):
    X_train, y_train, X_test, y_test = data
    declared = small("readout", n_patches=4).as_dict()
    gate = gate_of(y_test, fixed=[declared])
    spy = Spy()
    build = lambda config, shape, seed: spy(Candidate.from_dict(config), shape, seed)   # noqa: E731
    (result,) = fp.run_fixed("tiny", X_train, y_train, X_test, gate, [declared], 0, build=build, image_shape=SHAPE)
    assert result["configuration"] == declared and gate.reads()[0]["kind"] == "fixed"
    with pytest.raises(UndeclaredFixedMeasurement):
        fp.run_fixed("tiny", X_train, y_train, X_test, gate, [small("readout").as_dict()], 0, build=build,
                     image_shape=SHAPE)
    assert len(spy.fits) == 1


# ----------------------------------------------------------------------------- the gain verdict
def test_a_gain_must_exceed_twice_the_sd_of_the_paired_differences():
    a = [99.00, 99.10, 99.20]
    assert V.gain_label(a, [99.50, 99.60, 99.65]) == "gain"              # +0.48 ± 0.03
    assert V.gain_label(a, [99.05, 99.00, 99.30]) == "no gain shown"     # +0.02 ± 0.10
    assert V.gain_label(a, [98.60, 98.75, 98.80]) == "loss"
    # the seed-to-seed sd of the accuracies does not enter: only the paired differences' spread
    assert V.gain_label([98.0, 99.0, 100.0], [98.1, 99.1, 100.1]) == "gain"
    assert V.gain_label(a, [99.01, 99.11, 99.21], floor=0.02) == "no gain shown"   # below the floor
    assert V.gain_label(a, [99.01, 99.11, 99.21]) == "gain"
    assert V.gain_label([99.0, 99.1], [99.5, 99.6]) == "no gain shown"     # fewer than 3 seeds
    d = np.array([0.30, 0.10, 0.20])
    bar = 2 * d.std(ddof=1)                                              # 0.2: the mean is exactly at the bar
    assert V.gain_label(a, np.add(a, d)) == "no gain shown" and d.mean() == pytest.approx(bar)
    with pytest.raises(ValueError, match="one value per seed on each side"):
        V.gain_label(a, [99.0, 99.1])
    with pytest.raises(ValueError, match="floor"):
        V.gain_label(a, a, floor=-1)


def test_the_gain_verdict_labels_and_rule():
    verdict = V.gain_over([99.0, 99.1, 99.2], [99.5, 99.6, 99.65], names=("limit", "limit + mirror"))
    assert verdict.label == "holds" and verdict.ours.startswith("limit + mirror − limit = +0.48")
    assert verdict.ours.endswith("(paired, n = 3): a gain")
    assert V.gain_over([99.0, 99.1, 99.2], [99.05, 99.0, 99.3]).label == "inconclusive"
    assert V.gain_over([99.0, 99.1, 99.2], [98.6, 98.75, 98.8]).label == "does not hold"
    assert V.gain_over([99.0, 99.1], [99.5, 99.6]).label == "inconclusive"
    assert set(V.GAIN_LABELS) == {"gain", "no gain shown", "loss"}
    assert "gain_over" in V.TESTS and "twice the sd of the paired differences" in V.RULES["gain_over"]


MNIST_PROTOCOL = """
seeds: [0, 1, 2]
datasets:
  mnist:
    validation_size: 200
    defaults: {patch_size: 5, pool: 2, n_whitening: 2000, n_patches: 16}
    grid:
      - {variant: [limit], ridge: [[1.0e-4, 1.0e-2]]}
      - {variant: [readout], ridge: [[1.0e-2, 1.0, 100.0]]}
    fixed:
      - {model: paper-map-limit, input: pixels}
"""


def test_the_protocol_on_a_thousand_mnist_images_from_its_parameters_file(tmp_path):
    from greenelm.data import DataNotFoundError

    params = tmp_path / "protocol.yml"
    params.write_text(MNIST_PROTOCOL, encoding="utf-8")
    try:
        summary = fp.run_dataset("mnist", params=params, subset=1000, seeds=[0])
    except DataNotFoundError as error:
        pytest.skip(f"MNIST is not here ({error}); set GREENELM_DATA")
    (run,) = summary["runs"]
    assert json.loads(json.dumps(summary)) == summary
    assert (run["n_train"], run["n_fit"], run["n_validation"], run["n_test"]) == (1000, 800, 200, 1000)
    validation = [r["validation_accuracy"] for r in run["grid"]]
    assert run["validation_accuracy"] == max(validation) and run["test_accuracy"] > 85
    (read,) = summary["gate"]["reads"]
    assert (read["kind"], read["seed"], read["configuration"]) == ("pick", 0, run["pick"])
    assert summary["gate"]["fixed"] == {"mnist": [{"model": "paper-map-limit", "input": "pixels"}]}


# ----------------------------------------------------------------------------- across processes
def test_two_gates_on_one_ledger_keep_each_others_reads_and_picks(tmp_path):
    """Two processes' gates made before either read: each sees the other's reads when it reads, so
    neither overwrites the other's reads in the file and the second pick of a (dataset, seed) is refused."""
    ledger = tmp_path / "test-reads.json"
    y = np.array([0, 1, 2, 0])
    first, second = {"model": "a"}, {"model": "b"}
    one, two = TestGate({"tiny": y}, ledger=ledger), TestGate({"tiny": y}, ledger=ledger)
    one.score("tiny", 0, first, [0, 1, 2, 0])
    two.score("tiny", 1, second, [0, 1, 2, 0])                      # another seed: allowed
    with pytest.raises(TestSetAlreadyRead, match="already read"):
        two.score("tiny", 0, second, [0, 1, 2, 0])                  # seed 0 was picked by the other gate
    reads = json.loads(ledger.read_text())["reads"]
    assert [(r["seed"], r["configuration"]) for r in reads] == [(0, first), (1, second)]


def test_the_gates_ledger_holds_a_later_gate_to_the_picks_recorded_before_it(tmp_path):
    ledger = tmp_path / "test-reads.json"
    y = np.array([0, 1, 2, 1])
    first, second = small("limit"), small("limit", n_patches=8)
    TestGate({"tiny": y}, ledger=ledger).score("tiny", 0, first, [0, 1, 2, 0])
    later = TestGate({"tiny": y}, ledger=ledger)                  # another process, the same file
    assert [r["key"] for r in later.reads()] == [fp.configuration_key(first)]
    with pytest.raises(TestSetAlreadyRead, match="seed 0"):
        later.score("tiny", 0, second, y)
    assert later.score("tiny", 0, first, y) == 100.0 and later.score("tiny", 1, second, y) == 100.0
    assert len(json.loads(ledger.read_text())["reads"]) == 3
    ledger.write_text('{"format": "something else", "reads": []}')
    with pytest.raises(ValueError, match="not a test-read ledger"):
        TestGate({"tiny": y}, ledger=ledger)
    ledger.write_text("{broken")
    with pytest.raises(ValueError, match="not a test-read ledger"):
        TestGate({"tiny": y}, ledger=ledger)


def test_a_seed_is_recorded_when_done_and_a_resumed_run_reuses_its_selection_fits(data, tmp_path, monkeypatch):
    """``run_and_record``: one file per (dataset, seed), written when the seed is done; a recorded seed
    is skipped, and a seed run again from the start reads its memoised selection fits."""
    X_train, y_train, X_test, y_test = data
    monkeypatch.setenv("GREENELM_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("GREENELM_RECORD_DIR", str(tmp_path / "record"))
    monkeypatch.setattr(fp, "protocol_data", lambda dataset, subset=None: (X_train, y_train, X_test, y_test))
    import greenelm_book.chapters.frontier_features as frontier

    monkeypatch.setitem(frontier.IMAGE_SHAPES, "tiny", (SHAPE, 3))
    params = tmp_path / "protocol.yml"
    params.write_text("seeds: [0, 1, 2]\ndatasets:\n  tiny:\n    validation_size: 100\n    fit_size: null\n"
                      "    defaults: {n_patches: 6, patch_size: 3, pool: 2, n_whitening: 400}\n"
                      "    grid:\n      - {variant: [readout], ridge: [[1.0e-2, 1.0, 100.0]]}\n"
                      "      - {variant: [limit], ridge: [[1.0e-4, 1.0e-2]]}\n    fixed: []\n", encoding="utf-8")
    out = tmp_path / "runs"
    spy = Spy()
    (path,) = fp.run_and_record("tiny", [0], out_dir=out, params=params, build=spy, log=lambda m: None)
    record = json.loads(path.read_text())
    assert path.name == "tiny-seed0.json" and record["seed"] == 0 and record["subset"] is None
    assert [r["kind"] for r in json.loads((out / "test-reads.json").read_text())["reads"]] == ["pick"]
    fits = len(spy.fits)
    fp.run_and_record("tiny", [0], out_dir=out, params=params, build=spy, log=lambda m: None)
    assert len(spy.fits) == fits                                  # recorded: skipped, nothing fitted
    path.unlink()                                                 # as if stopped before its record
    fp.run_and_record("tiny", [0], out_dir=out, params=params, build=spy, log=lambda m: None)
    assert len(spy.fits) == fits + 1                              # only the refit: the selection was memoised
    again = json.loads(path.read_text())
    assert [r["validation_accuracy"] for r in again["grid"]] == [r["validation_accuracy"] for r in record["grid"]]
    assert again["test_accuracy"] == record["test_accuracy"]
    # the resumed run counts the selection fits' seconds of the run that computed them
    assert again["selection_fits_read_back"] == len(record["grid"]) and record["selection_fits_read_back"] == 0
    assert again["seconds"]["selection"] == pytest.approx(record["seconds"]["selection"])
