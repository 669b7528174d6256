"""The frontier's protocol by successive halving (greenelm_book.chapters.frontier_halving): rung sizes,
nested rows, survivors per rung, ties, failed fits, determinism by seed, one test read per seed; the
grid declared in params/frontier_halving.yml; the cost plan; the new Candidate fields keep the earlier
protocol's configuration keys; PatchModel's wiring of the mirror-symmetric map."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from greenelm.kernel_limit import held_out_rows
from greenelm_book.chapters import frontier_halving as fh
from greenelm_book.chapters import frontier_protocol as fp
from greenelm_book.chapters.frontier_protocol import Candidate, TestGate

SHAPE = (4, 4, 1)


# ----------------------------------------------------------------------------- a synthetic grid
def synthetic(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """n rows of 16 values: column 0 holds the label (0-2), column 1 a uniform draw that decides which
    rows a candidate of quality q gets right (those below q), so two candidates of equal quality agree
    row for row."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    X = rng.random((n, 16)).astype(np.float32)
    X[:, 0] = y
    return X, y


def quality_grid(qualities, **settings) -> list[Candidate]:
    """One candidate per quality; the quality rides in ``threshold`` (the fake model reads it)."""
    return [Candidate(variant="limit", n_patches=2 + 2 * i, patch_size=2, pool=1, threshold=q, **settings)
            for i, q in enumerate(qualities)]


class FakeBuild:
    """A model builder that records every fit (candidate key, fit rows) and prediction; a candidate of
    threshold q predicts the right label on the rows whose column 1 is below q; a key in ``fail``
    raises LinAlgError at fit."""

    def __init__(self, fail=()):
        self.fits, self.predicted, self.fail = [], [], set(fail)

    def __call__(self, candidate, image_shape, seed):
        build = self

        class Model:
            def fit(self, X, y):
                key = fp.configuration_key(candidate)
                build.fits.append((key, len(X), tuple(np.asarray(X[:3, 1]).tolist())))
                if key in build.fail:
                    raise np.linalg.LinAlgError("no jitter factorised")
                return self

            def predict(self, X):
                build.predicted.append(len(X))
                right = X[:, 0].astype(int)
                return np.where(X[:, 1] < candidate.threshold, right, (right + 1) % 3)

        return Model()


@pytest.fixture(scope="module")
def data():
    X_train, y_train = synthetic(900, 0)
    X_test, y_test = synthetic(200, 1)
    return X_train, y_train, X_test, y_test


def gate_of(y_test) -> TestGate:
    return TestGate({"tiny": y_test})


def run(data, grid, seed=0, sizes=((30, 20), (90, 60), (270, 180)), build=None):
    X_train, y_train, X_test, y_test = data
    gate = gate_of(y_test)
    record = fh.run_halving("tiny", X_train, y_train, X_test, gate, grid, seed, image_shape=SHAPE, sizes=sizes,
                            build=build or FakeBuild())
    return record, gate


# ----------------------------------------------------------------------------- rungs
def test_rung_sizes_grow_by_eta_to_the_protocols_largest():
    assert fh.rung_sizes(6000, 3000, 4) == [(223, 112), (667, 334), (2000, 1000), (6000, 3000)]
    assert fh.rung_sizes(100, 50, 1) == [(100, 50)]
    assert fh.rung_sizes(20, 10, 2, eta=2) == [(10, 5), (20, 10)]
    with pytest.raises(ValueError, match="repeat a size"):
        fh.rung_sizes(3, 2, 4)
    with pytest.raises(ValueError, match="eta must be at least 2"):
        fh.rung_sizes(90, 30, 2, eta=1)


def test_rung_rows_are_nested_never_cross_and_the_last_is_held_out_rows():
    sizes = fh.rung_sizes(600, 300, 3)
    rows = fh.rung_rows(1000, sizes, 7)
    assert [(len(f), len(v)) for f, v in rows] == sizes
    for (fit, validation), (next_fit, next_validation) in zip(rows, rows[1:]):
        assert set(fit) < set(next_fit) and set(validation) < set(next_validation)
    every_fit = set().union(*(set(f) for f, _ in rows))
    every_validation = set().union(*(set(v) for _, v in rows))
    assert not every_fit & every_validation                        # no row is fitted at one rung and scored at another
    last_fit, last_validation = held_out_rows(1000, 600, 300, 7)
    assert np.array_equal(rows[-1][0], last_fit) and np.array_equal(rows[-1][1], last_validation)
    again = fh.rung_rows(1000, sizes, 7)
    assert all(np.array_equal(a, b) for pair, other in zip(rows, again) for a, b in zip(pair, other))
    assert not np.array_equal(fh.rung_rows(1000, sizes, 8)[0][0], rows[0][0])
    with pytest.raises(ValueError, match="must fit in the 800 training rows"):
        fh.rung_rows(800, sizes, 7)
    with pytest.raises(ValueError, match="must not shrink"):
        fh.rung_rows(1000, [(60, 30), (20, 10)], 7)


def test_survivors_are_the_best_third_rounded_up_ties_to_the_cheaper_and_never_a_failed_fit():
    grid = quality_grid([0.5] * 7)
    scores = {0: 90.0, 1: 95.0, 2: None, 3: 95.0, 4: 80.0, 5: 99.0, 6: 70.0}
    assert fh.survivors(scores, grid) == [1, 3, 5]                 # ceil(7 / 3) = 3, in grid order
    # a tie at the cut: the cheaper (fewer patch features) survives, then the earlier in the grid
    tied = {0: 90.0, 1: 90.0, 2: 90.0, 3: 10.0}
    cheap_last = quality_grid([0.5] * 3)[::-1] + quality_grid([0.5])
    assert fh.ranked(tied, cheap_last) == [2, 1, 0, 3]             # among the tied, fewest patch features first
    assert fh.survivors(tied, cheap_last) == [1, 2]
    same = [Candidate(variant="limit", n_patches=4, patch_size=2, pool=1)] * 4
    assert fh.ranked(tied, same) == [0, 1, 2, 3]                   # equal cost: the earlier
    # a failed fit never survives, even when too few were fitted to fill the third
    assert fh.survivors({0: None, 1: None, 2: 50.0, 3: None, 4: None, 5: None, 6: None}, grid) == [2]
    assert fh.survivors({0: 1.0}, grid) == [0]


# ----------------------------------------------------------------------------- the protocol
def test_halving_on_a_synthetic_grid_keeps_a_third_per_rung_and_reads_the_test_set_once(data):
    X_train, y_train, X_test, y_test = data
    qualities = [0.3, 0.9, 0.5, 0.7, 0.95, 0.4, 0.6, 0.8, 0.2, 0.85]
    grid = quality_grid(qualities)
    build = FakeBuild()
    record, gate = run(data, grid, build=build)
    assert json.loads(json.dumps(record)) == record
    rungs = record["rungs"]
    assert [len(r["fits"]) for r in rungs] == [10, 4, 2]
    assert [len(r["survivors"]) for r in rungs] == [4, 2, 1]
    assert [(r["n_fit"], r["n_validation"]) for r in rungs] == [(30, 20), (90, 60), (270, 180)]
    assert record["sizes"] == [[30, 20], [90, 60], [270, 180]] and record["eta"] == 3
    for rung, following in zip(rungs, rungs[1:]):
        assert [f["index"] for f in following["fits"]] == rung["survivors"]
        best = sorted(rung["fits"], key=lambda f: -f["validation_accuracy"])[:len(rung["survivors"])]
        assert sorted(f["index"] for f in best) == rung["survivors"]
    assert record["pick_index"] == int(np.argmax(qualities)) and record["pick"] == grid[record["pick_index"]].as_dict()
    assert record["validation_accuracy"] == rungs[-1]["fits"][[f["index"] for f in rungs[-1]["fits"]]
                                                             .index(record["pick_index"])]["validation_accuracy"]
    # each fit saw its rung's fit rows; the refit all training rows; the test images predicted once
    assert [n for _, n, _ in build.fits] == [30] * 10 + [90] * 4 + [270] * 2 + [len(y_train)]
    assert build.predicted.count(len(y_test)) == 1
    (read,) = gate.reads("tiny")
    assert read["kind"] == "pick" and read["configuration"] == record["pick"] and record["test_reads"] == [read]
    seconds = record["seconds"]
    assert seconds["rungs"] == [r["seconds"] for r in rungs]
    assert seconds["selection"] == pytest.approx(sum(f["seconds"] for r in rungs for f in r["fits"]))
    assert seconds["total"] == pytest.approx(seconds["selection"] + seconds["refit"] + seconds["scoring"])


def test_halving_stops_once_one_candidate_is_left(data):
    build = FakeBuild()
    record, _ = run(data, quality_grid([0.4, 0.9, 0.6]), build=build)
    assert [len(r["fits"]) for r in record["rungs"]] == [3] and record["rungs"][0]["survivors"] == [1]
    assert [n for _, n, _ in build.fits] == [30, 30, 30, 900]


def test_a_tie_at_the_cut_keeps_the_cheaper_candidate(data):
    # two of quality 0.9 (identical predictions, so an exact tie) at the cut of 4 -> 2, the costlier
    # of the tied pair listed first
    grid = [Candidate(variant="limit", n_patches=64, patch_size=2, pool=1, threshold=0.9),
            Candidate(variant="limit", n_patches=8, patch_size=2, pool=1, threshold=0.9),
            Candidate(variant="limit", n_patches=8, patch_size=2, pool=1, threshold=0.95),
            Candidate(variant="limit", n_patches=4, patch_size=2, pool=1, threshold=0.1)]
    record, _ = run(data, grid, sizes=((30, 20), (90, 60)))
    first = record["rungs"][0]
    scores = {f["index"]: f["validation_accuracy"] for f in first["fits"]}
    assert scores[0] == scores[1]
    assert first["survivors"] == [1, 2]                            # the cheaper of the tied pair


def test_a_failed_fit_is_recorded_and_never_survives(data):
    grid = quality_grid([0.3, 0.9, 0.5, 0.7])
    broken = fp.configuration_key(grid[1])                         # the best, were it fitted
    record, _ = run(data, grid, build=FakeBuild(fail={broken}))
    (failed,) = [f for f in record["rungs"][0]["fits"] if f["index"] == 1]
    assert failed["validation_accuracy"] is None and "LinAlgError" in failed["error"]
    assert 1 not in record["rungs"][0]["survivors"] and record["pick_index"] == 3
    with pytest.raises(RuntimeError, match="no candidate could be fitted"):
        run(data, grid[1:2] + grid[1:2], build=FakeBuild(fail={broken}))


def test_a_record_names_the_machine_that_ran_it(data):
    record, _ = run(data, quality_grid([0.3, 0.9, 0.5]))
    assert set(record["host"]) == {"cpu", "cores", "kernel", "blas", "gemm_gflops", "instance"} and record["host"]["cores"] >= 1


def test_the_same_seed_gives_the_same_record_and_another_seed_other_rows(data):
    grid = quality_grid([0.3, 0.9, 0.5, 0.7, 0.55])
    one, two, other = FakeBuild(), FakeBuild(), FakeBuild()
    first, _ = run(data, grid, seed=3, build=one)
    again, _ = run(data, grid, seed=3, build=two)
    assert [[(f["index"], f["validation_accuracy"]) for f in r["fits"]] for r in first["rungs"]] == \
           [[(f["index"], f["validation_accuracy"]) for f in r["fits"]] for r in again["rungs"]]
    assert (first["pick"], first["test_accuracy"]) == (again["pick"], again["test_accuracy"])
    assert [rows for _, _, rows in one.fits] == [rows for _, _, rows in two.fits]
    run(data, grid, seed=4, build=other)
    assert [rows for _, _, rows in other.fits][:1] != [rows for _, _, rows in one.fits][:1]


def test_bad_input_is_refused_before_any_fit(data):
    X_train, y_train, X_test, y_test = data
    build = FakeBuild()
    with pytest.raises(ValueError, match="seed must be an integer"):
        fh.run_halving("tiny", X_train, y_train, X_test, gate_of(y_test), quality_grid([0.5]), 1.5,
                       image_shape=SHAPE, sizes=[(30, 20)], build=build)
    with pytest.raises(ValueError, match="must fit in the 900 training rows"):
        fh.run_halving("tiny", X_train, y_train, X_test, gate_of(y_test), quality_grid([0.5]), 0,
                       image_shape=SHAPE, sizes=[(800, 200)], build=build)
    assert build.fits == []


# ----------------------------------------------------------------------------- the new Candidate fields
def test_the_earlier_protocols_configuration_keys_are_unchanged():
    records = fh.earlier_records()
    assert len(records) >= 9
    seen = 0
    for record in records:
        for settings in [row["candidate"] for row in record["grid"]] + [record["pick"]]:
            candidate = Candidate.from_dict(settings)
            assert candidate.as_dict() == settings
            assert fp.configuration_key(candidate) == fp.configuration_key(settings)
            seen += 1
    ledger = json.loads((fp.RUNS_DIR / "test-reads.json").read_text())
    picks = [r for r in ledger["reads"] if r["kind"] == "pick"]
    assert picks and all(fp.configuration_key(Candidate.from_dict(r["configuration"])) == r["key"] for r in picks)
    assert seen > 80


def test_symmetric_and_depth_are_checked_and_recorded_only_when_set():
    base = dict(variant="limit", n_patches=4, patch_size=3, pool=2)
    assert "symmetric" not in Candidate(**base).as_dict() and "depth" not in Candidate(**base).as_dict()
    settings = Candidate(**base, symmetric=True, depth=2, views=["flip"]).as_dict()
    assert (settings["symmetric"], settings["depth"]) == (True, 2)
    assert Candidate.from_dict(settings).as_dict() == settings
    with pytest.raises(ValueError, match="n_patches must be even, got 5"):
        Candidate(**{**base, "n_patches": 5}, symmetric=True)
    with pytest.raises(ValueError, match="symmetric must be True or False"):
        Candidate(**base, symmetric="yes")
    with pytest.raises(ValueError, match="depth must be an integer >= 1"):
        Candidate(**base, depth=0)
    with pytest.raises(ValueError, match="the 'readout' variant has none"):
        Candidate(**{**base, "variant": "readout"}, depth=2)


# ----------------------------------------------------------------------------- PatchModel's wiring
class ColumnSums:
    """A stand-in for the mirror-symmetric map: feature j is the sum of column j's pixels (plus a
    column-dependent offset making the mirrored columns' statistics differ), so the mirror permutes
    the features (reverses them) exactly."""

    seen: list = []

    def __init__(self, image_shape, mirror_symmetric=None, **settings):          # None: not passed
        ColumnSums.seen.append({"mirror_symmetric": mirror_symmetric, **settings})
        self.image_shape = tuple(image_shape)

    def fit(self, X):
        width = self.image_shape[1]
        self.n_features_out = width
        self.mirror_permutation_ = np.arange(width)[::-1].astype(np.int64)
        return self

    def transform(self, X):
        images = np.asarray(X, dtype=np.float32).reshape((-1,) + self.image_shape)
        return images.sum(axis=(1, 3))


class Kernel:
    """A stand-in for KernelLimitClassifier recording its options and views."""

    seen: list = []

    def __init__(self, views=None, symmetric_views=None, depth=None, **options):   # None: not passed
        Kernel.seen.append({"symmetric_views": symmetric_views, "depth": depth, "views": views, **options})
        self.views = views

    def fit(self, X, y):
        self.first_ = [np.asarray(view(X[:5])) for view in self.views]
        return self


def test_patch_model_wires_the_mirror_symmetric_map_its_standardisation_and_the_v_product_kernel(monkeypatch):
    import greenelm

    monkeypatch.setattr(greenelm, "RandomPatchFeatures", ColumnSums)
    monkeypatch.setattr(greenelm, "KernelLimitClassifier", Kernel)
    ColumnSums.seen.clear(), Kernel.seen.clear()
    rng = np.random.default_rng(0)
    images = rng.random((40, 6, 5, 1)).astype(np.float32) * np.arange(1, 6)[None, None, :, None]
    X, y = images.reshape(40, -1), rng.integers(0, 2, 40)
    candidate = Candidate(variant="limit", n_patches=4, patch_size=3, pool=2, symmetric=True, views=["flip"])
    model = fp.PatchModel(candidate, (6, 5, 1), 0).fit(X, y)
    assert ColumnSums.seen[-1]["mirror_symmetric"] is True
    both = np.concatenate([images.sum(axis=(1, 3)), images[:, :, ::-1].sum(axis=(1, 3))]).astype(np.float64)
    np.testing.assert_allclose(model.mean_, both.mean(axis=0), rtol=1e-5)
    np.testing.assert_allclose(model.scale_, both.std(axis=0), rtol=1e-4)
    np.testing.assert_allclose(model.mean_, model.mean_[::-1], rtol=1e-6)   # symmetric under the permutation
    options = Kernel.seen[-1]
    assert options["symmetric_views"] is True and len(options["views"]) == 2
    identity, mirrored = model.model_.first_
    np.testing.assert_allclose(mirrored, identity[:, ::-1], rtol=1e-5, atol=1e-6)
    # with the shifts too: the map is symmetric, the kernel keeps its V² products
    fp.PatchModel(Candidate(**{**candidate.as_dict(), "views": ["flip", "shift"]}), (6, 5, 1), 0).fit(X, y)
    assert Kernel.seen[-1]["symmetric_views"] is None and len(Kernel.seen[-1]["views"]) == 6
    # the plain map: neither option is passed, the standardisation is over the training images alone
    plain = fp.PatchModel(Candidate(variant="limit", n_patches=4, patch_size=3, pool=2, views=["flip"]),
                          (6, 5, 1), 0).fit(X, y)
    assert ColumnSums.seen[-1]["mirror_symmetric"] is None
    assert Kernel.seen[-1]["symmetric_views"] is None and Kernel.seen[-1]["depth"] is None
    np.testing.assert_allclose(plain.mean_, images.sum(axis=(1, 3)).mean(axis=0), rtol=1e-5)
    # a depth is passed on to the kernel
    fp.PatchModel(Candidate(variant="limit", n_patches=4, patch_size=3, pool=2, depth=3), (6, 5, 1), 0).fit(X, y)
    assert Kernel.seen[-1]["depth"] == 3


def test_patch_model_refuses_an_option_the_library_does_not_have(monkeypatch):
    import greenelm

    class Old:
        def __init__(self, image_shape, n_patches=4, patch_size=3, pool=2, threshold=0.25, whiten_eps=0.1,
                     dictionary="sampled", random_state=0):
            pass

    monkeypatch.setattr(greenelm, "RandomPatchFeatures", Old)
    X = np.zeros((10, 30), dtype=np.float32)
    with pytest.raises(ValueError, match=r"Old\(mirror_symmetric=...\), which this version of the library"):
        fp.PatchModel(Candidate(variant="limit", n_patches=4, patch_size=3, pool=2, symmetric=True),
                      (6, 5, 1), 0).fit(X, np.zeros(10))


def test_a_symmetric_limit_with_the_real_library_when_it_has_the_interface():
    import inspect

    import greenelm

    if "mirror_symmetric" not in inspect.signature(greenelm.RandomPatchFeatures.__init__).parameters or \
            "symmetric_views" not in inspect.signature(greenelm.KernelLimitClassifier.__init__).parameters:
        pytest.skip("the library has no mirror-symmetric map yet (interface.md)")
    rng = np.random.default_rng(1)
    images = rng.random((120, 8, 8, 1)).astype(np.float32)
    y = (images[:, :4].mean(axis=(1, 2, 3)) > images[:, 4:].mean(axis=(1, 2, 3))).astype(int)
    X = images.reshape(120, -1)
    candidate = Candidate(variant="limit", n_patches=6, patch_size=3, pool=2, n_whitening=400, symmetric=True,
                          views=["flip"], ridge=[1e-2])
    model = fp.PatchModel(candidate, (8, 8, 1), 0).fit(X[:100], y[:100])
    permutation = model.patches_.mirror_permutation_
    np.testing.assert_allclose(model.mean_[permutation], model.mean_, rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(model.scale_[permutation], model.scale_, rtol=1e-4, atol=1e-6)
    assert model.predict(X[100:]).shape == (20,)


# ----------------------------------------------------------------------------- the declared grid and its plan
def test_the_halving_parameters_declare_the_published_ranges():
    spec = fh.load_halving()
    assert spec["seeds"] == [0, 1, 2, 3, 4, 5, 6] and spec["eta"] == 3   # 3-6 declared later, before any run of them (§5)
    assert set(spec["datasets"]) == {"mnist", "fashion-mnist", "cifar10"}
    everything = [c for entry in spec["datasets"].values() for c in entry["grid"]]
    assert max(c.n_patches for c in everything) == 2048
    assert {c.patch_size for c in everything} >= {3, 8} and min(c.patch_size for c in everything) >= 3 \
        and max(c.patch_size for c in everything) <= 8
    assert {c.pool for c in everything} == {2, 3, 4}
    assert all(c.n_patches * c.pool ** 2 <= 9216 for c in everything)
    assert {c.depth for c in everything if c.variant == "limit"} == {1, 2, 3}      # Cho & Saul's composition
    assert any(c.depth > 1 and c.symmetric for c in everything)
    for name, entry in spec["datasets"].items():
        grid = entry["grid"]
        assert {c.variant for c in grid} == {"limit", "readout"}
        assert len({fp.configuration_key(c) for c in grid}) == len(grid)
        views = {c.views for c in grid}
        # a shift does not commute with the map: V² view pairs through the arc-cosine, past the budget
        assert not any(c.variant == "limit" and "shift" in c.views for c in grid)
        if name == "mnist":                                        # a mirrored digit is another glyph
            assert views == {(), ("shift",)} and not any(c.symmetric for c in grid)
        else:
            assert {(), ("flip",), ("flip", "shift")} <= views
            symmetric = [c for c in grid if c.symmetric]
            assert symmetric and all(c.views == ("flip",) and c.variant == "limit" for c in symmetric)
            # pooling cells symmetric about the vertical axis: no even pool over an odd number of columns
            width = fp_image_shape(name)[1]
            assert all(c.pool % 2 == 1 or (width - c.patch_size + 1) % 2 == 0 for c in symmetric)
        (last_fit, last_validation) = entry["sizes"][-1]
        assert entry["sizes"] == fh.rung_sizes(last_fit, last_validation, len(entry["sizes"]), spec["eta"])
    # the earlier protocol's parameters stay as they were
    earlier = fp.load_protocol()
    assert earlier["datasets"]["mnist"]["fit_size"] == 20000 and len(earlier["datasets"]["mnist"]["grid"]) == 10


def test_the_halving_parameters_refuse_what_they_do_not_know(tmp_path):
    params = tmp_path / "halving.yml"
    good = ("seeds: [0]\ndatasets:\n  tiny:\n    last_fit: 90\n    last_validation: 30\n    n_rungs: 2\n"
            "    grid:\n      - {variant: [limit], n_patches: [4], patch_size: [3], pool: [2]}\n")
    params.write_text(good, encoding="utf-8")
    assert fh.load_halving(params)["datasets"]["tiny"]["sizes"] == [(30, 10), (90, 30)]
    for text, message in ((good + "rungs: 3\n", r"unknown key\(s\) \['rungs'\]"),
                          (good.replace("    n_rungs: 2\n", ""), r"lacks \['n_rungs'\]"),
                          (good.replace("n_rungs: 2", "n_rungs: 2\n    fit_size: 9"),
                           r"unknown key\(s\) \['fit_size'\]"),
                          (good.replace("seeds: [0]", "seeds: [0, 0]"), "distinct integers"),
                          ("eta: 1\n" + good, "eta must be at least 2")):
        params.write_text(text, encoding="utf-8")
        with pytest.raises(ValueError, match=message):
            fh.load_halving(params)


def test_the_cost_model_is_calibrated_on_the_earlier_records_and_the_plan_is_within_budget():
    records = fh.earlier_records()
    calibration = fh.calibrate(records)
    assert calibration["n_fits"] == len(fh.record_fits(records)) > 80
    assert calibration["relative_error"]["median"] < 0.15 and calibration["relative_error"]["max"] < 0.6
    rates = calibration["seconds_per_gflop"]
    assert all(rate >= 0 for rate in rates.values()) and rates["products"] > 0
    plain = Candidate(variant="limit", n_patches=512, patch_size=6, pool=3, views=["flip"])
    symmetric = Candidate(**{**plain.as_dict(), "symmetric": True})
    for kind in ("products", "elementwise"):                        # V = 2 view pairs, not V² = 4
        assert fh.fit_flops(symmetric, 1000, 0, (32, 32, 3))[kind] == \
            pytest.approx(fh.fit_flops(plain, 1000, 0, (32, 32, 3))[kind] / 2)
    deeper = Candidate(**{**plain.as_dict(), "depth": 3})
    assert fh.fit_flops(deeper, 1000, 0, (32, 32, 3))["elementwise"] == \
        pytest.approx(3 * fh.fit_flops(plain, 1000, 0, (32, 32, 3))["elementwise"])
    assert fh.fit_flops(deeper, 1000, 0, (32, 32, 3))["products"] == \
        fh.fit_flops(plain, 1000, 0, (32, 32, 3))["products"]
    assert fh.predicted_seconds(plain, 2000, 500, (32, 32, 3), rates) > \
        fh.predicted_seconds(plain, 1000, 500, (32, 32, 3), rates)
    spec = fh.load_halving()
    budgets = {"mnist": 1800, "fashion-mnist": 1800, "cifar10": 2700}
    for name, entry in spec["datasets"].items():
        n_train, n_test = fh.TRAIN_TEST_ROWS[name]
        plan = fh.cost_plan(entry["grid"], entry["sizes"], n_train, n_test,
                            fp_image_shape(name), rates, spec["eta"])
        counts = [r["n_candidates"] for r in plan["rungs"]]
        assert counts[0] == len(entry["grid"])
        assert all(b == math.ceil(a / 3) for a, b in zip(counts, counts[1:]))
        rungs = sum(r["seconds"] for r in plan["rungs"])
        assert plan["total"] == pytest.approx(rungs + plan["refit"] + plan["scoring"])
        assert entry["budget_seconds"] == budgets[name] and plan["total"] < budgets[name]
        # the plan counts what the estimator's memory check will ask for (Fashion-MNIST seed 2's mirror-symmetric
        # refit: 23.8 GB asked, with 23.8 GB free); no refit asks for more than the machine's 24 GiB
        assert 10 < plan["refit_memory_gb"] <= 24 * 2 ** 30 / 1e9
    from greenelm.kernel_limit import fit_memory

    symmetric = [c for c in spec["datasets"]["fashion-mnist"]["grid"]
                 if c.variant == "limit" and c.symmetric and c.views == ("flip",)]
    assert symmetric, "the grid declares mirror-symmetric limit candidates"
    # at least what the estimator asks for without a held-out choice: both views' rows and the first one kept
    asked = fit_memory(60_000, symmetric[0].n_features, 2, 10, symmetric_views=True)
    assert fh.limit_refit_bytes(symmetric[0], 60_000) >= sum(asked.values())


def fp_image_shape(dataset):
    from greenelm_book.chapters.frontier_features import IMAGE_SHAPES

    return IMAGE_SHAPES[dataset][0]


def test_the_plan_flag_prints_the_plan_and_fits_nothing(capsys):
    fh.main(["--plan"])
    out = capsys.readouterr().out
    for name in ("mnist", "fashion-mnist", "cifar10"):
        assert f"{name}: " in out
    assert "rung 3:" in out and "calibrated on" in out
    with pytest.raises(SystemExit):
        fh.main(["--dataset", "mnist"])                            # a run needs its seeds


# ----------------------------------------------------------------------------- records on disk
def test_halving_records_go_to_their_own_folder_and_ledger_and_resume(data, tmp_path, monkeypatch):
    X_train, y_train, X_test, y_test = data
    monkeypatch.setenv("GREENELM_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("GREENELM_RECORD_DIR", str(tmp_path / "record"))
    monkeypatch.setattr(fh, "protocol_data", lambda dataset, subset=None: (X_train, y_train, X_test, y_test))
    import greenelm_book.chapters.frontier_features as frontier

    monkeypatch.setitem(frontier.IMAGE_SHAPES, "tiny", (SHAPE, 3))
    params = tmp_path / "halving.yml"
    params.write_text("seeds: [0]\neta: 3\ndatasets:\n  tiny:\n    last_fit: 270\n    last_validation: 180\n"
                      "    n_rungs: 2\n    defaults: {variant: limit, patch_size: 2, pool: 1}\n"
                      "    grid:\n      - {n_patches: [2, 4, 6, 8], threshold: [0.3, 0.8]}\n", encoding="utf-8")
    build = FakeBuild()
    (path,) = fh.run_and_record_halving("tiny", [0], out_dir=tmp_path / "runs", params=params, build=build,
                                        log=lambda m: None)
    record = json.loads(path.read_text())
    assert path.name == "tiny-seed0.json" and record["protocol"] == "successive halving"
    assert [len(r["fits"]) for r in record["rungs"]] == [8, 3]
    assert [r["kind"] for r in json.loads((tmp_path / "runs" / "test-reads.json").read_text())["reads"]] == ["pick"]
    fits = len(build.fits)
    path.unlink()                                                  # as if stopped before its record
    fh.run_and_record_halving("tiny", [0], out_dir=tmp_path / "runs", params=params, build=build, log=lambda m: None)
    assert len(build.fits) == fits + 1                             # only the refit: every rung's fits were memoised
    assert json.loads(path.read_text())["selection_fits_read_back"] == 11


def test_a_smoke_run_of_the_halving_protocol_on_mnist_images(tmp_path, monkeypatch):
    from greenelm.data import DataNotFoundError

    monkeypatch.setenv("GREENELM_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("GREENELM_RECORD_DIR", str(tmp_path / "record"))
    params = tmp_path / "halving.yml"
    params.write_text("seeds: [0]\neta: 3\ndatasets:\n  mnist:\n    last_fit: 360\n    last_validation: 180\n"
                      "    n_rungs: 2\n    defaults: {patch_size: 5, pool: 2, n_whitening: 2000}\n    grid:\n"
                      "      - {variant: [limit], n_patches: [16, 32], threshold: [0.25, 1.0],\n"
                      "         ridge: [[1.0e-3, 1.0e-1]]}\n"
                      "      - {variant: [limit], n_patches: [16], symmetric: [true], views: [[flip]], depth: [2]}\n"
                      "      - {variant: [readout], n_patches: [16], ridge: [[1.0e-1, 10.0]]}\n", encoding="utf-8")
    try:
        (path,) = fh.run_and_record_halving("mnist", [0], out_dir=tmp_path / "runs", params=params, subset=600,
                                            log=lambda m: None)
    except DataNotFoundError as error:
        pytest.skip(f"MNIST is not here ({error}); set GREENELM_DATA")
    record = json.loads(path.read_text())
    assert record["n_train"] == 600 and record["subset"] == 600
    assert [len(r["fits"]) for r in record["rungs"]] == [6, 2]
    assert all(f["error"] is None for f in record["rungs"][0]["fits"])   # the symmetric, deeper limit fits too
    assert record["test_accuracy"] > 70 and len(record["test_reads"]) == 1
