"""greenelm_book.chapters.frontier_exploration (the frontier's search before its protocol): the former chapter's loops, records, answer, tables, figures and
sentences, on tiny hand-made inputs (the fits replaced by stand-ins, except one tiny stacked map)."""

from __future__ import annotations

import math
import re
from functools import partial
from pathlib import Path
from types import SimpleNamespace

import matplotlib
import numpy as np
import pandas as pd
import pytest

matplotlib.use("Agg")

from greenelm_book.chapters import frontier_exploration as fc
from greenelm_book import paper
from greenelm_book.report import thousands
from greenelm_book.store.results import ChapterResults, Result, load_all

ROOT = Path(__file__).resolve().parent.parent

@pytest.fixture
def store(tmp_path):
    return ChapterResults("frontier", "smoke", tmp_path)


@pytest.fixture
def cache(tmp_path, monkeypatch):
    """The results cache in a throwaway folder."""
    monkeypatch.setenv("GREENELM_CACHE", str(tmp_path / "cache"))
    return tmp_path / "cache"


def _put(directory: Path, chapter: str, values: dict, settings: dict | None = None) -> None:
    """Write ``chapter``'s results ``{key: [values]}`` into ``directory`` as that chapter would."""
    other = ChapterResults(chapter, "smoke", directory)
    for key, runs in values.items():
        other.record(key, runs, "%" if key.endswith("accuracy") else "s", **(settings or {}).get(key, {}))


# ----------------------------------------------------------------------------- parameters and formatting
def test_parameters_may_be_one_value_a_list_or_nothing():
    assert fc.as_list(None) == [] and fc.as_list([]) == [] and fc.as_list(3) == [3] and fc.as_list((2, 3)) == [2, 3]
    assert fc.pool_list(2) == [2] and fc.pool_list([2, 3]) == [2, 3]
    for bad in ([], [2, 2], 0):
        with pytest.raises(ValueError, match="pool"):
            fc.pool_list(bad)
    assert fc.dictionary_list("sampled") == [] and fc.dictionary_list(None) == []
    assert fc.dictionary_list("kmeans") == ["kmeans"] == fc.dictionary_list(["sampled", "kmeans", "kmeans"])
    with pytest.raises(ValueError, match="unknown dictionary"):
        fc.dictionary_list(["sampled", "random"])


def test_features_run_in_numpy_on_a_cpu_and_in_torch_on_a_gpu(monkeypatch):
    torch = pytest.importorskip("torch")
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert fc.feature_device() is None
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    assert fc.feature_device() == "cuda"


def test_thousands_groups_with_a_no_break_space():
    assert thousands(1024) == "1\u202f024" and thousands(32000.0) == "32\u202f000"
    assert thousands(999) == "999" and thousands(0.5) == "0.5" and thousands(1234567) == "1\u202f234\u202f567"
    assert thousands(4096, separator="") == "4096"


def test_patch_configs_gate_the_pools_and_dictionaries():
    kwargs = dict(judged=32, wide={"cifar10": [64]}, seeds=[0, 1], seed=0, augment={"cifar10": ["flip"]})
    plain = fc.patch_configs(["mnist", "cifar10"], [8, 32], pools=[2], dictionaries=[], **kwargs)
    assert plain == [("mnist", 8, 2, "sampled", 0, ()), ("mnist", 32, 2, "sampled", 0, ()),
                     ("mnist", 32, 2, "sampled", 1, ()),
                     ("cifar10", 8, 2, "sampled", 0, ()), ("cifar10", 32, 2, "sampled", 0, ()),
                     ("cifar10", 32, 2, "sampled", 1, ()), ("cifar10", 64, 2, "sampled", 0, ()),
                     ("cifar10", 32, 2, "sampled", 0, ("flip",))]
    more = fc.patch_configs(["mnist", "cifar10"], [8, 32], pools=[2, 3], dictionaries=["kmeans"], **kwargs)
    assert more[:len(plain)] == plain                           # the main sweep first, unchanged
    extra = more[len(plain):]
    assert {c[:4] for c in extra} == {(n, K, p, d) for n in ("mnist", "cifar10") for K in (8, 32)
                                      for p, d in ((3, "sampled"), (2, "kmeans"))}
    assert sorted(c[4] for c in extra if c[1] == 32) == [0, 0, 0, 0, 1, 1, 1, 1]     # judged K: every seed
    assert all(c[5] == () for c in extra) and all(c[1] != 64 for c in extra)          # no wide K, no augmentation
    with pytest.raises(ValueError, match="judged_patches"):
        fc.patch_configs(["mnist"], [8, 16], pools=[2], dictionaries=[], **kwargs)
    assert fc.widths_of(["mnist", "cifar10"], [8, 32], {"cifar10": [64]}) == {"mnist": [8, 32], "cifar10": [8, 32, 64]}


def _fake_readout(dataset, n_patches, seed, subset=None, pool=2, augment=(), loo_rows=3000, alpha=None,
                  device=None, dictionary="sampled"):
    """A stand-in for patch_readout: numbers that say what it was asked."""
    return {"accuracy": 50.0 + n_patches / 10 + seed + (5.0 if dictionary == "kmeans" else 0.0) + pool,
            "alpha": 0.1 if alpha is None else alpha, "n_features": 2 * n_patches * pool * pool,
            "n_train": (subset or 60_000) * (1 + len(augment)), "fit_seconds": 1.0 + seed, "feature_seconds": 0.5,
            "spectrum_seconds": 0.25, "peak_memory_gb": 0.9, "seed": seed, "interior": True,
            "solver": "eigh" if n_patches < 1000 else "cholesky", "loo_seconds": 2.0,
            "loo": {"alpha": [0.01, 0.1, 1.0]}}


def test_fit_patches_keeps_the_cache_entries_and_passes_the_lambda_and_dictionary(monkeypatch):
    calls = []

    def memoize(name, params, compute):
        calls.append((name, params, compute))
        return compute(), {"cached": False}

    monkeypatch.setattr("greenelm_book.store.results_cache.memoize", memoize)
    monkeypatch.setattr(fc, "patch_readout", _fake_readout)
    configs = [("mnist", 8, 2, "sampled", 0, ()), ("mnist", 8, 2, "sampled", 0, ("shift",)),
               ("mnist", 8, 2, "kmeans", 0, ())]
    runs = fc.fit_patches(configs, subset=100, loo_rows=50, device="cpu")
    assert list(runs) == configs and runs[configs[1]]["alpha"] == runs[configs[0]]["alpha"] == 0.1
    (name, sampled, compute), (_, augmented, _), (_, kmeans, kcompute) = calls
    assert name == "frontier-patches"
    assert sampled == {"dataset": "mnist", "n_patches": 8, "seed": 0, "subset": 100, "pool": 2, "augment": [],
                       "loo_rows": 50, "alpha": None, "device": "cpu"}       # the params the chapter always used
    assert augmented["augment"] == ["shift"] and augmented["alpha"] == 0.1
    assert kmeans == {**sampled, "dictionary": "kmeans"}
    assert isinstance(compute, partial) and "dictionary" not in compute.keywords
    assert kcompute.keywords["dictionary"] == "kmeans"


def _runs(configs):
    return {c: _fake_readout(c[0], c[1], c[4], subset=100, pool=c[2], augment=c[5], dictionary=c[3])
            for c in configs}


def test_record_patches_writes_keys_with_the_dictionary_only_when_not_the_default(store):
    configs = fc.patch_configs(["mnist"], [8, 32], 32, {}, [0, 1], 0, [2, 3], {"mnist": ["shift"]}, ["kmeans"])
    records = fc.record_patches(store, _runs(configs), 100)
    keys = sorted(store.results)
    bases = sorted({k.rsplit("/", 1)[0] for k in keys})
    assert bases == sorted(["mnist/patch-readout/p=5/pool=2/k=8", "mnist/patch-readout/p=5/pool=2/k=32",
                            "mnist/patch-readout/p=5/pool=2/k=32/augment=shift",
                            "mnist/patch-readout/p=5/pool=3/k=8", "mnist/patch-readout/p=5/pool=3/k=32",
                            "mnist/patch-readout/p=5/pool=2/k=8/dictionary=kmeans",
                            "mnist/patch-readout/p=5/pool=2/k=32/dictionary=kmeans"])
    assert {k.rsplit("/", 1)[1] for k in keys} == {"accuracy", "fit-seconds", "peak-memory", "lambda"}
    back = load_all(store.directory)["frontier"]["results"]                   # read back from the file
    judged = back["mnist/patch-readout/p=5/pool=2/k=32/accuracy"]
    assert judged.values == (55.2, 56.2) and judged.setting["seeds"] == [0, 1]
    assert "dictionary" not in judged.setting and judged.setting["n_features"] == 256
    kmeans = back["mnist/patch-readout/p=5/pool=2/k=32/dictionary=kmeans/accuracy"]
    assert kmeans.values == (60.2, 61.2) and kmeans.setting["dictionary"] == "kmeans"
    assert back["mnist/patch-readout/p=5/pool=3/k=8/accuracy"].setting["n_features"] == 144
    aug = back["mnist/patch-readout/p=5/pool=2/k=32/augment=shift/fit-seconds"]
    assert aug.values == (1.0,) and aug.setting["readout"] == "ridge at the unaugmented fit's LOO λ"
    assert back["mnist/patch-readout/p=5/pool=2/k=8/peak-memory"].unit == "GB"
    main = fc.main_records(records, 2)
    assert list(main) == [("mnist", 8, ()), ("mnist", 32, ()), ("mnist", 32, ("shift",))]
    table = fc.patch_table(main)
    assert list(table.columns) == ["dataset", "K", "features", "augmented", "runs", "accuracy (%)", "fit (s)",
                                   "peak memory (GB)", "LOO's λ", "solve"]
    assert table.loc[1, "accuracy (%)"] == "55.70 ± 0.71 % (n = 2)" and table.loc[2, "augmented"] == "shift"
    best = fc.best_patch(records, ["mnist"])
    assert best["mnist"][0] == ("mnist", 32, 2, "kmeans", ())         # 60.7: the k-means centroids win here
    key = fc.best_patch_key(back, "mnist")                             # the conclusion's reading of the store
    assert key == "mnist/patch-readout/p=5/pool=2/k=32/dictionary=kmeans/accuracy"
    assert fc.configuration_text(back[key].setting) == "K = 32 k-means patches, 2 × 2 pooling"
    assert fc.configuration_text(aug.setting) == "K = 32 sampled patches, 2 × 2 pooling, with the four one-pixel shifts"
    with pytest.raises(KeyError, match="no patch readout of cifar10"):
        fc.best_patch_key(back, "cifar10")


def test_the_best_is_the_most_accurate_and_a_tie_goes_to_the_faster_fit():
    assert fc.best_of({"a": (90.0, 10.0), "b": (91.0, 50.0), "c": (91.0, 20.0)}) == "c"
    assert fc.best_of({"a": (90.0, 10.0)}) == "a"


def test_comparison_table_and_sentence_and_the_gating(store):
    (store.directory / "two").mkdir()
    configs = fc.patch_configs(["mnist"], [8, 32], 32, {}, [0, 1], 0, [2, 3], {}, ["kmeans"])
    records = fc.record_patches(store, _runs(configs), 100)
    table = fc.comparison_table(records, ["mnist"], [8, 32], [2, 3], ["kmeans"])
    assert list(table.columns[:5]) == ["dataset", "K", "sampled, pool 2 (%)", "sampled, pool 2: fit (s)",
                                       "sampled, pool 3 (%)"]
    assert "sampled, pool 3 (%)" in table.columns and "k-means, pool 2 (%)" in table.columns
    assert list(table["K"]) == [8, 32] and table.loc[1, "k-means, pool 2 (%)"] == "60.70 ± 0.71 % (n = 2)"
    sentence = fc.comparison_sentence(records, ["mnist"], [8, 32], [2, 3], ["kmeans"])
    assert sentence == ("At K = 32, the k-means centroids score MNIST 5.00 points above the sampled patches pooled "
                        "2 × 2. At K = 32, pooling 3 × 3 scores MNIST 1.00 points above the sampled patches pooled 2 × 2.")
    two = fc.record_patches(ChapterResults("frontier", "smoke", store.directory / "two"), _runs(
        fc.patch_configs(["mnist", "cifar10"], [8], 8, {}, [0], 0, [2], {}, ["kmeans"])), 100)
    assert fc.comparison_sentence(two, ["mnist", "cifar10"], [8], [2], ["kmeans"]) == (
        "At K = 8, the k-means centroids score MNIST 5.00 points above and CIFAR-10 5.00 points above the sampled "
        "patches pooled 2 × 2.")
    assert fc.comparison_table(records, ["mnist"], [8, 32], [2], []) is None
    assert fc.comparison_view(records, ["mnist"], [8, 32], [2], []) is None
    assert fc.comparison_sentence(records, ["mnist"], [8, 32], [2], []) == "Not run in this profile."


def test_goal_sentence_names_reached_and_missed(store):
    configs = fc.patch_configs(["mnist", "cifar10"], [8], 8, {}, [0], 0, [2], {}, [])
    best = fc.best_patch(fc.record_patches(store, _runs(configs), 100), ["mnist", "cifar10"])
    sentence = fc.goal_sentence(best, {"mnist": 52.0, "cifar10": 60.0})
    assert sentence.startswith("The best readouts: MNIST ") and "(K = 8 sampled patches, 2 × 2 pooling)" in sentence
    assert sentence.endswith(". Reached: MNIST (52.80 %, K = 8 sampled patches, 2 × 2 pooling, in 1 s and 0.9 GB). "
                             "Missed: CIFAR-10 (52.80 % against 60.0 %).")
    assert "No goal is reached" in fc.goal_sentence(best, {"mnist": 99.0, "cifar10": 99.0})
    def result(value, unit):
        return Result("k", (value,), unit, {"n_patches": 8}, "frontier", "m", "2026-11-26", "c")

    limit = {"accuracy": result(99.5, "%"), "fit": result(600.0, "s"), "memory": result(14.2, "GB")}
    narrow = {"accuracy": result(40.0, "%"), "fit": result(6.0, "s"), "memory": result(1.0, "GB")}
    sentence = fc.goal_sentence(best, {"mnist": 99.0, "cifar10": 60.0}, {("mnist", None): limit,
                                                                          ("cifar10", 200): narrow})
    assert ("With the paper's map stacked on them: MNIST 99.50 % (the stacked map's d → ∞ limit on the K = 8 patch "
            "features); CIFAR-10 40.00 % (the stacked map, d = 200, on the K = 8 patch features). ") in sentence
    assert sentence.endswith("Reached: MNIST (99.50 %, the stacked map's d → ∞ limit on the K = 8 patch features, "
                             "in 10.0 min and 14.2 GB). Missed: CIFAR-10 (52.80 % against 60.0 %).")
    # past the budget of fitting: reached in accuracy only, with the best within the budget beside it
    sentence = fc.goal_sentence(best, {"mnist": 99.0, "cifar10": 60.0}, {("mnist", None): limit}, budget=300.0)
    assert sentence.endswith("No goal is reached within 5 min of fitting. Reached in accuracy, but past 5 min of fitting: "
                             "MNIST (99.50 %, the stacked map's d → ∞ limit on the K = 8 patch features, in 10.0 min "
                             "and 14.2 GB; within 5 min the best is 52.80 %, K = 8 sampled patches, 2 × 2 pooling). "
                             "Missed: CIFAR-10 (52.80 % against 60.0 %).")


# ----------------------------------------------------------------------------- the stacked map
def test_the_stacked_section_says_whether_its_limit_was_computed():
    assert fc.stacked_limit_text(True, [200]).startswith("As in part 1, no width of this stacked map can do better")
    assert "is not computed in this run" in fc.stacked_limit_text(False, [2000])
    assert fc.stacked_limit_text(False, []).startswith("This run fits neither the stacked map nor its d → ∞ limit")


def test_the_stacked_section_records_nothing_when_not_asked(store):
    assert fc.fit_stacked(store, ["mnist"], 4, [], False, seed=0, subset=100, pool=2, jitter=1e-2) == {}
    assert store.results == {}
    assert fc.stacked_table({}, {}, 4) is None and fc.stacked_view({}, {}, 4) is None
    assert fc.plot_stacked({}, {}, 4) is None
    assert fc.stacked_sentence({}, {}, 4) == "Not run in this profile."


def test_the_stacked_map_and_its_limit_on_tiny_patch_features(store, cache):
    configs = fc.patch_configs(["mnist"], [4], 4, {}, [0], 0, [2], {}, [])
    main = fc.main_records(fc.record_patches(store, _runs(configs), 120), 2)
    stacked = fc.fit_stacked(store, ["mnist"], 4, [50], True, seed=0, subset=120, pool=2, jitter=1e-2)
    assert list(stacked) == [("mnist", 50), ("mnist", None)]
    base = "mnist/stacked-patches/p=5/pool=2/k=4"
    assert {k for k in store.results if "stacked" in k} == {
        f"{base}/d=50/accuracy", f"{base}/d=50/fit-seconds", f"{base}/d=50/peak-memory", f"{base}/d=50/lambda",
        f"{base}/arccos-kernel/accuracy", f"{base}/arccos-kernel/fit-seconds", f"{base}/arccos-kernel/peak-memory"}
    back = load_all(store.directory)["frontier"]["results"]
    limit = back[f"{base}/arccos-kernel/accuracy"]
    assert 0 <= limit.mean <= 100 and limit.setting["n_features"] == 32 and limit.setting["n_train"] == 120
    assert limit.setting["jitter"] == 1e-2 and limit.setting["mu"] > 0
    assert back[f"{base}/d=50/accuracy"].setting["n_hidden"] == 50
    assert back[f"{base}/d=50/fit-seconds"].mean > 0 and back[f"{base}/d=50/peak-memory"].mean > 0.01
    (store.directory / "again").mkdir()
    again = fc.fit_stacked(ChapterResults("frontier", "smoke", store.directory / "again"), ["mnist"], 4, [50],
                           True, seed=0, subset=120, pool=2, jitter=1e-2)           # from the cache: the same
    assert again["mnist", 50]["accuracy"].values == stacked["mnist", 50]["accuracy"].values
    assert len(list(cache.rglob("frontier-stacked-*.json"))) == 2
    table = fc.stacked_table(stacked, main, 4)
    assert list(table.columns) == ["dataset", "model", "d", "accuracy (%)", "λ", "fit (s)", "peak memory (GB)"]
    assert list(table["model"]) == ["patch readout alone", "stacked map", "kernel limit (d → ∞)"]
    assert list(table["d"]) == ["—", "50", "∞"] and table.loc[2, "λ"].startswith("μ = ")
    sentence = fc.stacked_sentence(stacked, main, 4)
    assert sentence.startswith("MNIST: at d = 50 the stacked map is ") and "its limit is" in sentence
    fig = fc.plot_stacked(stacked, main, 4)
    assert [line.get_label() for line in fig.axes[0].get_lines()] == ["stacked map", "d → ∞: K = 4, 2 × 2",
                                                                      "patch readout alone"]
    assert [tick.get_text() for tick in fig.axes[0].get_xticklabels()] == ["50", "∞"]


def test_the_limit_on_another_pooling_grid(store, cache):
    configs = fc.patch_configs(["mnist"], [4], 4, {}, [0], 0, [2, 3], {}, [])
    records = fc.record_patches(store, _runs(configs), 120)
    main = fc.main_records(records, 2)
    stacked = fc.fit_stacked(store, ["mnist"], 4, [], True, seed=0, subset=120, pool=2, jitter=1e-2)
    pooled = fc.fit_pooled_limits(store, {"mnist": [3]}, 4, seed=0, subset=120, jitter=1e-2)
    assert list(pooled) == [("mnist", 4, 3, "vanishing")]
    limit = store.results["mnist/stacked-patches/p=5/pool=3/k=4/arccos-kernel/accuracy"]
    assert pooled["mnist", 4, 3, "vanishing"]["accuracy"].values == limit.values and limit.setting["n_features"] == 2 * 4 * 9
    assert fc.fit_pooled_limits(store, {}, 4, seed=0, subset=120, jitter=1e-2) == {}
    table = fc.stacked_table(stacked, main, 4, pooled, records)
    assert list(table["model"]) == ["patch readout alone", "kernel limit (d → ∞)", "patch readout alone, pooled 3 × 3",
                                    "kernel limit (d → ∞), pooled 3 × 3"]
    assert table.loc[3, "accuracy (%)"] == limit.mean
    two, three = stacked["mnist", None]["accuracy"].mean, limit.mean
    sentence = fc.stacked_sentence(stacked, main, 4, pooled)
    assert (f"on the features pooled 3 × 3 the limit reaches {three:.2f} %, {abs(three - two):.2f} points "
            f"{fc.by_sign(three - two, 'above', 'below', 'level with')} that.") in sentence
    fig = fc.plot_stacked(stacked, main, 4, pooled)
    points = {line.get_label(): line for line in fig.axes[0].get_lines()}
    assert list(points) == ["d → ∞: K = 4, 2 × 2", "d → ∞: K = 4, 3 × 3", "patch readout alone"]
    # side by side at d = ∞, each with its own marker: close values do not hide each other
    assert points["d → ∞: K = 4, 2 × 2"].get_xdata()[0] < points["d → ∞: K = 4, 3 × 3"].get_xdata()[0]
    assert points["d → ∞: K = 4, 2 × 2"].get_marker() != points["d → ∞: K = 4, 3 × 3"].get_marker()
    assert ("also computed on the same K's features pooled 3 × 3 (MNIST; "
            in fc.stacked_limit_text(True, [], {"mnist": [3]}))
    assert "pooled" not in fc.stacked_limit_text(True, [])


def test_the_limit_on_wider_features_is_the_same_limit_solved_in_place(store, cache):
    stacked = fc.fit_stacked(store, ["mnist"], 4, [], True, seed=0, subset=120, pool=3, jitter=1e-2)
    (store.directory / "wide").mkdir()        # one key, one configuration: the same limit in another store
    store = ChapterResults("frontier", "smoke", store.directory / "wide")
    wide = fc.fit_wide_limits(store, {"mnist": [[4, 3], [6, 3]]}, seed=0, subset=120, jitter=1e-2)
    assert list(wide) == [("mnist", 4, 3, "vanishing"), ("mnist", 6, 3, "vanishing")]
    # at the same K and grid the in-place float32 solve predicts what the copying one did
    assert wide["mnist", 4, 3, "vanishing"]["accuracy"].values == stacked["mnist", None]["accuracy"].values
    limit = store.results["mnist/stacked-patches/p=5/pool=3/k=6/arccos-kernel/accuracy"]
    assert limit.setting["solver"] == fc.WIDE_LIMIT_SOLVER and limit.setting["n_features"] == 2 * 6 * 9
    assert store.results["mnist/stacked-patches/p=5/pool=3/k=6/arccos-kernel/peak-memory"].mean > 0.01
    assert len(list(cache.rglob("frontier-stacked-limit-*.json"))) == 2
    with pytest.raises(ValueError, match=r"must be \[K, pool\], got \[4\]"):
        fc.fit_wide_limits(store, {"mnist": [[4]]}, seed=0, subset=120, jitter=1e-2)
    main = fc.main_records(fc.record_patches(store, _runs(fc.patch_configs(["mnist"], [4], 4, {}, [0], 0, [2], {}, [])),
                                             120), 2)
    pooled = {("mnist", 6, 3, "vanishing"): wide["mnist", 6, 3, "vanishing"]}
    table = fc.stacked_table({("mnist", None): stacked["mnist", None]}, main, 4, pooled)
    assert list(table["model"])[-1] == "kernel limit (d → ∞), K = 6, pooled 3 × 3"
    assert "on the K = 6 features pooled 3 × 3 the limit reaches" in fc.stacked_sentence(
        {("mnist", None): stacked["mnist", None]}, main, 4, pooled)
    fig = fc.plot_stacked({("mnist", None): stacked["mnist", None]}, main, 4, pooled)
    assert "d → ∞: K = 6, 3 × 3" in [text.get_text() for text in fig.legends[0].get_texts()]
    memory = fc.limit_memory_sentence({("mnist", None): stacked["mnist", None]}, pooled)
    peak = wide["mnist", 6, 3, "vanishing"]["memory"].mean
    assert memory.endswith(f"(MNIST, K = 6 pooled 3 × 3 (108 features): a {4 * 120 ** 2 / 1e9:.1f} GB kernel beside "
                           f"{4 * 120 * 108 / 1e9:.1f} GB of training features, {peak:.1f} GB at its peak).")
    assert fc.limit_memory_sentence({}, {}) == ""
    text = fc.stacked_limit_text(True, [], {}, {"mnist": [[1024, 3]], "cifar10": [[1024, 3]]})
    assert f"And on wider features: K = {thousands(1024)} patches pooled 3 × 3 (MNIST, CIFAR-10), whose kernel" in text
    assert "wider" not in fc.stacked_limit_text(False, [2000], {}, {"mnist": [[1024, 3]]})


def test_the_limit_with_its_ridge_chosen_on_held_out_rows(store, cache):
    import numpy as np

    from greenelm.kernels import kernel_ridge_predict
    from greenelm_book.chapters.frontier_features import held_out_split, standardised_patch_views

    ridge = fc.fit_ridge_limits(store, {"mnist": [[4, 3]]}, seed=0, subset=120, jitters=[1e-6, 1e-2, 10.0],
                                n_fit=20000, n_validation=10000)
    record = ridge["mnist", 4, 3, "ridge"]
    setting = record["accuracy"].setting
    assert (setting["n_fit"], setting["n_validation"], setting["n_train"]) == (80, 40, 120)   # a subset: 2/3, 1/3
    held_out = {jitter: result.mean for jitter, result in record["validation"].items()}
    assert setting["jitter"] == max(held_out, key=lambda j: (held_out[j], j))             # the best; a tie: larger
    assert "mnist/stacked-patches/p=5/pool=3/k=4/arccos-kernel-ridge/jitter=0.01/validation-accuracy" in store.results
    # the held-out values: the ridge of the fitted rows' own kernel, scored on the held-out rows only
    features = standardised_patch_views("mnist", 4, 0, subset=120, pool=3, views=())
    (X,), y = features["X_train"], features["y_train"]
    fit, held = held_out_split(120, 80, 40, 0)
    for jitter, result in record["validation"].items():
        scores, _ = kernel_ridge_predict(X[fit], np.eye(10)[y[fit]], X[held], jitter=jitter, weight_scale="he")
        assert abs(result.mean - 100 * np.mean(scores.argmax(1) == y[held])) <= 100 / 40 + 1e-9   # float32 order
    # the final fit on all training rows: the wide limit at the chosen jitter, from the same kernel
    (store.directory / "wide").mkdir()
    wide = fc.fit_wide_limits(ChapterResults("frontier", "smoke", store.directory / "wide"), {"mnist": [[4, 3]]},
                              seed=0, subset=120, jitter=setting["jitter"])
    n_test = len(features["y_test"])
    assert abs(wide["mnist", 4, 3, "vanishing"]["accuracy"].mean - record["accuracy"].mean) <= 100 / n_test + 1e-9
    assert record["fit"].mean > 0 and record["memory"].mean > 0
    assert len(list(cache.rglob("frontier-held-out-limit-*.json"))) == 1
    again = fc.fit_ridge_limits(ChapterResults("frontier", "smoke", store.directory / "wide"), {"mnist": [[4, 3]]},
                                seed=0, subset=120, jitters=[1e-6, 1e-2, 10.0], n_fit=20000, n_validation=10000)
    assert again["mnist", 4, 3, "ridge"]["accuracy"].values == record["accuracy"].values
    assert len(list(cache.rglob("frontier-held-out-limit-*.json"))) == 1         # read back, not computed again
    stacked = fc.fit_stacked(store, ["mnist"], 4, [], True, seed=0, subset=120, pool=2, jitter=1e-2)
    main = fc.main_records(fc.record_patches(store, _runs(fc.patch_configs(["mnist"], [4], 4, {}, [0], 0, [2], {}, [])),
                                             120), 2)
    table = fc.stacked_table(stacked, main, 4, ridge)
    assert list(table["model"])[-1] == "kernel limit (d → ∞), pooled 3 × 3, μ chosen on held-out rows"
    assert "pooled 3 × 3 with μ chosen on held-out rows (μ = " in fc.stacked_sentence(stacked, main, 4, ridge)
    # beside the vanishing ridge's limit on the same features: held-out and test accuracy both
    vanishing = fc.fit_pooled_limits(store, {"mnist": [3]}, 4, seed=0, subset=120, jitter=1e-6)
    sentence = fc.stacked_sentence(stacked, main, 4, vanishing | ridge)
    held_out = max(result.mean for result in record["validation"].values())
    smallest = record["validation"][1e-6].mean
    gap = record["accuracy"].mean - vanishing["mnist", 4, 3, "vanishing"]["accuracy"].mean
    assert (f"on the features pooled 3 × 3, held-out rows choose μ = {setting['mu']:.1e} ({held_out:.2f} % of them "
            f"right, against {smallest:.2f} % at the smallest μ tried), and the test accuracy "
            f"{fc.by_sign(gap, 'rises', 'falls', 'stays')} ") in sentence
    assert fc.stacked_text(None, setting, pooled=True).endswith("pooled 3 × 3, μ chosen on held-out rows")
    text = fc.stacked_limit_text(True, [], {}, {}, {"mnist": [[256, 3]]})
    assert text.endswith(f"kernel ridge on {thousands(20000)} training rows scored on {thousands(10000)} others "
                         "for each μ, then refitted on all training rows at the best, one N × N kernel serving both "
                         "(greenelm.kernels.held_out_kernel_ridge_predict: each μ factorises a copy of the fitted "
                         "rows' block) (on MNIST's K = 256 features "
                         "pooled 3 × 3).")
    with pytest.raises(ValueError, match=r"must be \[K, pool\]"):
        fc.fit_ridge_limits(store, {"mnist": [[4, 3, 1]]}, seed=0, subset=120, jitters=[1e-6], n_fit=2, n_validation=1)



def _plain_limit_beside(store, subset: int):
    """MNIST's limit on K = 4 features pooled 3 × 3 at the vanishing ridge (jitter 1e-2), the stacked
    limit on the main grid (pool 2) and the patch readouts' main records, for ``subset`` images: what a
    variant of the limit is set beside. Returns (pooled, stacked, main)."""
    plain = fc.fit_pooled_limits(store, {"mnist": [3]}, 4, seed=0, subset=subset, jitter=1e-2)
    stacked = fc.fit_stacked(store, ["mnist"], 4, [], True, seed=0, subset=subset, pool=2, jitter=1e-2)
    configs = fc.patch_configs(["mnist"], [4], 4, {}, [0], 0, [2], {}, [])
    return plain, stacked, fc.main_records(fc.record_patches(store, _runs(configs), subset), 2)


def test_the_limit_with_one_pixel_shifts_averaged_into_its_kernel(store, cache):
    from greenelm.kernels import arccos_kernel
    from greenelm_book.chapters.frontier_features import standardised_patch_views

    shift = fc.fit_averaged_limits(store, {"mnist": [[4, 3]]}, seed=0, subset=120, jitter=1e-2, views=["shift"])
    record = shift["mnist", 4, 3, "shift"]
    assert record["accuracy"].key == "mnist/stacked-patches/p=5/pool=3/k=4/arccos-kernel-shift/accuracy"
    setting = record["accuracy"].setting
    assert setting["views"] == ["identity", "shift 1", "shift 2", "shift 3", "shift 4"]
    assert "one-pixel shifts" in setting["model"] and fc.limit_variant(setting) == "shift"
    # the same predictions as the kernel averaged over the 25 pairs of views in float64, solved directly
    features = standardised_patch_views("mnist", 4, 0, subset=120, pool=3, views=("shift",))
    train, test, y = features["X_train"], features["X_test"], features["y_train"]
    averaged = lambda rows, cols: np.mean([arccos_kernel(a.astype(np.float64), b.astype(np.float64), weight_scale="he")
                                          for a in rows for b in cols], axis=0)
    K = averaged(train, train)
    scores = averaged(test, train) @ np.linalg.solve(K + 1e-2 * np.diag(K).mean() * np.eye(len(K)), np.eye(10)[y])
    expected = 100 * np.mean(scores.argmax(1) == features["y_test"])
    assert abs(record["accuracy"].mean - expected) <= 100 / len(features["y_test"]) + 1e-9   # float32 order
    assert setting["mu"] == pytest.approx(1e-2 * np.diag(K).mean(), rel=1e-4)
    assert len(list(cache.rglob("frontier-averaged-limit-*.json"))) == 1
    again = fc.fit_averaged_limits(store, {"mnist": [[4, 3]]}, seed=0, subset=120, jitter=1e-2)
    assert again["mnist", 4, 3, "shift"]["accuracy"].values == record["accuracy"].values
    assert len(list(cache.rglob("frontier-averaged-limit-*.json"))) == 1          # read back, not computed again
    with pytest.raises(ValueError, match=r"views must be \('shift',\)"):
        fc.fit_averaged_limits(store, {"mnist": [[4, 3]]}, seed=0, subset=120, jitter=1e-2, views=["flip"])
    # beside the vanishing ridge's limit on the same features, at the same jitter
    plain, stacked, main = _plain_limit_beside(store, 120)
    pooled = plain | shift
    table = fc.stacked_table(stacked, main, 4, pooled)
    assert list(table["model"])[-1] == "kernel limit (d → ∞), pooled 3 × 3, four one-pixel shifts in the kernel"
    sentence = fc.stacked_sentence(stacked, main, 4, pooled)
    assert fc.shift_words(record, plain["mnist", 4, 3, "vanishing"], "the features pooled 3 × 3") in sentence
    fig = fc.plot_stacked(stacked, main, 4, pooled)
    assert "d → ∞: K = 4, 3 × 3, + shifts" in [text.get_text() for text in fig.legends[0].get_texts()]
    assert f"(72 features, 5 views of each image)" in fc.limit_memory_sentence(stacked, pooled)
    text = fc.stacked_limit_text(True, [], shift={"mnist": [[256, 3]]})
    assert "K̄(x, z) = (1/25) Σ K(a, b)" in text and text.endswith("(on MNIST's K = 256 features pooled 3 × 3).")
    assert "shifts" not in fc.stacked_limit_text(False, [2000], shift={"mnist": [[256, 3]]})


def test_the_limit_on_the_patch_size_held_out_rows_choose(store, cache):
    from greenelm.kernels import arccos_kernel
    from greenelm_book.chapters.frontier_features import held_out_split, patch_views

    spec = {"mnist": [[4, 3, [5, 7]]]}
    sized = fc.fit_patch_size_limits(store, spec, seed=0, subset=150, jitter=1e-2, n_fit=20000, n_validation=10000)
    record = sized["mnist", 4, 3, "patch"]
    setting = record["accuracy"].setting
    chosen = setting["patch_size"]
    assert record["accuracy"].key == f"mnist/stacked-patches/p={chosen}/pool=3/k=4/arccos-kernel-patch/accuracy"
    assert setting["n_fit"] == 100 and setting["n_validation"] == 50 and setting["patch_sizes"] == [5, 7]
    assert fc.limit_variant(setting) == "patch" and "patch size chosen" in setting["model"]
    # the choice: each size's kernel ridge on 100 training rows, scored on 50 others, in float64; never the test rows
    held_out = {}
    for p in (5, 7):
        features = patch_views("mnist", 4, 0, patch_size=p, subset=150, pool=3)
        (X,), y = features["X_train"], features["y_train"]
        fit, validation = held_out_split(len(y), 100, 50, 0)
        K = arccos_kernel(X[fit].astype(np.float64), X[fit].astype(np.float64), weight_scale="he")
        A = np.linalg.solve(K + 1e-2 * np.diag(K).mean() * np.eye(len(K)), np.eye(10)[y[fit]])
        scores = arccos_kernel(X[validation].astype(np.float64), X[fit].astype(np.float64), weight_scale="he") @ A
        held_out[p] = 100 * np.mean(scores.argmax(1) == y[validation])
        assert abs(record["validation"][p].mean - held_out[p]) <= 100 / 50 + 1e-9        # float32 order
    assert record["validation"][chosen].mean == max(result.mean for result in record["validation"].values())
    assert record["validation"][5].key.endswith("/patch-size=5/validation-accuracy")
    # then the limit on all training rows at that size: the same accuracy as the direct float64 solve
    features = patch_views("mnist", 4, 0, patch_size=chosen, subset=150, pool=3)
    (X,), (T,), y = features["X_train"], features["X_test"], features["y_train"]
    K = arccos_kernel(X.astype(np.float64), X.astype(np.float64), weight_scale="he")
    scores = arccos_kernel(T.astype(np.float64), X.astype(np.float64), weight_scale="he") @ np.linalg.solve(
        K + 1e-2 * np.diag(K).mean() * np.eye(len(K)), np.eye(10)[y])
    assert abs(record["accuracy"].mean - 100 * np.mean(scores.argmax(1) == features["y_test"])) <= 100 / len(T) + 1e-9
    assert len(list(cache.rglob("frontier-map-choice-*.json"))) == 1
    again = fc.fit_patch_size_limits(store, spec, seed=0, subset=150, jitter=1e-2, n_fit=20000, n_validation=10000)
    assert again["mnist", 4, 3, "patch"]["accuracy"].values == record["accuracy"].values
    assert len(list(cache.rglob("frontier-map-choice-*.json"))) == 1       # read back, not computed again
    with pytest.raises(ValueError, match=r"must be \[K, pool, \[patch sizes\]\]"):
        fc.fit_patch_size_limits(store, {"mnist": [[4, 3, 5]]}, seed=0, subset=150, jitter=1e-2, n_fit=2,
                                 n_validation=1)
    # beside the limit on the dataset's own 5 x 5 patches, at the same jitter
    plain, stacked, main = _plain_limit_beside(store, 150)
    pooled = plain | sized
    assert set(pooled) == {("mnist", 4, 3, "vanishing"), ("mnist", 4, 3, "patch")}          # two keys, whatever p
    table = fc.stacked_table(stacked, main, 4, pooled)
    assert list(table["model"])[-1] == (f"kernel limit (d → ∞), pooled 3 × 3, {chosen} × {chosen} patches chosen on "
                                        "held-out rows")
    words = fc.patch_words(record, plain["mnist", 4, 3, "vanishing"], "the features pooled 3 × 3")
    assert words in fc.stacked_sentence(stacked, main, 4, pooled)
    assert words.startswith(f"on the features pooled 3 × 3 from {chosen} × {chosen} patches (held-out rows: "
                            f"5 × 5 {record['validation'][5].mean:.2f} %, 7 × 7 {record['validation'][7].mean:.2f} %)")
    fig = fc.plot_stacked(stacked, main, 4, pooled)
    assert f"d → ∞: K = 4, 3 × 3, {chosen} × {chosen} patches" in [t.get_text() for t in fig.legends[0].get_texts()]
    assert fc.stacked_text(None, setting, pooled=True).endswith(f"pooled 3 × 3, {chosen} × {chosen} patches chosen on "
                                                                "held-out rows")
    text = fc.stacked_limit_text(True, [], patch_size={"mnist": [[256, 3, [5, 7, 9]]]})
    assert text.endswith("its fit time counting the choice (on MNIST's K = 256 features pooled 3 × 3, p among 5, 7, 9).")
    assert "patches' size" not in fc.stacked_limit_text(False, [2000], patch_size={"mnist": [[256, 3, [5, 7]]]})


def test_the_limit_on_the_threshold_and_whitening_held_out_rows_choose(store, cache):
    from greenelm.kernels import arccos_kernel
    from greenelm_book.chapters.frontier_features import held_out_split, patch_views

    spec = {"mnist": [[4, 3, [5, 7], [[0.25, 0.1], [0.75, 0.5], [1.0, 1.0]]]]}
    common = dict(seed=0, subset=150, jitter=1e-2, n_fit=20000, n_validation=10000)
    sized = fc.fit_patch_size_limits(store, {"mnist": [[4, 3, [5, 7]]]}, **common)["mnist", 4, 3, "patch"]
    tuned = fc.fit_map_limits(store, spec, **common)
    record = tuned["mnist", 4, 3, "map"]
    setting = record["accuracy"].setting
    p, t, e = setting["patch_size"], setting["threshold"], setting["whiten_eps"]
    assert p == sized["accuracy"].setting["patch_size"]                 # the patch size's own choice, read back
    assert len(list(cache.rglob("frontier-map-choice-*.json"))) == 2    # the sizes' choice once, then the pairs'
    assert record["accuracy"].key == f"mnist/stacked-patches/p={p}/pool=3/k=4/arccos-kernel-map/accuracy"
    assert setting["map_settings"] == [[0.25, 0.1], [0.75, 0.5], [1.0, 1.0]] and setting["patch_sizes"] == [5, 7]
    assert fc.limit_variant(setting) == "map" and fc.limit_variant(sized["accuracy"].setting) == "patch"
    assert sized["accuracy"].setting["threshold"] == 0.25 and sized["accuracy"].setting["whiten_eps"] == 0.1
    # the pairs' choice at that p, against a float64 reference on the same rows; never the test rows
    for (t_, e_), result in record["validation"].items():
        features = patch_views("mnist", 4, 0, patch_size=p, subset=150, pool=3, threshold=t_, whiten_eps=e_)
        (X,), y = features["X_train"], features["y_train"]
        fit, validation = held_out_split(len(y), 100, 50, 0)
        K = arccos_kernel(X[fit].astype(np.float64), X[fit].astype(np.float64), weight_scale="he")
        A = np.linalg.solve(K + 1e-2 * np.diag(K).mean() * np.eye(len(K)), np.eye(10)[y[fit]])
        scores = arccos_kernel(X[validation].astype(np.float64), X[fit].astype(np.float64), weight_scale="he") @ A
        assert abs(result.mean - 100 * np.mean(scores.argmax(1) == y[validation])) <= 100 / 50 + 1e-9
        assert result.key.endswith(f"/threshold={t_:g}/whiten-eps={e_:g}/validation-accuracy")
    assert record["validation"][t, e].mean == max(result.mean for result in record["validation"].values())
    # the limit on all training rows at the chosen pair: the direct float64 solve's accuracy
    features = patch_views("mnist", 4, 0, patch_size=p, subset=150, pool=3, threshold=t, whiten_eps=e)
    (X,), (T,), y = features["X_train"], features["X_test"], features["y_train"]
    K = arccos_kernel(X.astype(np.float64), X.astype(np.float64), weight_scale="he")
    scores = arccos_kernel(T.astype(np.float64), X.astype(np.float64), weight_scale="he") @ np.linalg.solve(
        K + 1e-2 * np.diag(K).mean() * np.eye(len(K)), np.eye(10)[y])
    assert abs(record["accuracy"].mean - 100 * np.mean(scores.argmax(1) == features["y_test"])) <= 100 / len(T) + 1e-9
    size = fc.map_choice_run("mnist", 4, 3, [{"patch_size": 5}, {"patch_size": 7}], **common)
    pairs = fc.map_choice_run("mnist", 4, 3, [{"patch_size": p, "threshold": t_, "whiten_eps": e_}
                                              for t_, e_ in setting["map_settings"]], **common)
    run = fc.averaged_limit_run("mnist", 4, 3, seed=0, subset=150, jitter=1e-2, views=(), setting=pairs["chosen"])
    assert record["fit"].mean == pytest.approx(run["fit_seconds"] + size["seconds"] + pairs["seconds"])   # both choices
    again = fc.fit_map_limits(store, spec, **common)
    assert again["mnist", 4, 3, "map"]["accuracy"].values == record["accuracy"].values
    assert len(list(cache.rglob("frontier-map-choice-*.json"))) == 2       # read back, not computed again
    with pytest.raises(ValueError, match=r"must be \[K, pool, \[patch sizes\], \[\[threshold, whitening eps\]"):
        fc.fit_map_limits(store, {"mnist": [[4, 3, [5]]]}, **common)
    with pytest.raises(ValueError, match=r"\[\[threshold, whitening eps\]"):
        fc.fit_map_limits(store, {"mnist": [[4, 3, [5], [0.25, 0.1]]]}, **common)
    # in the chapter: the table's row, the sentence against the patch-size limit, the legend and the text
    plain, stacked, main = _plain_limit_beside(store, 150)
    pooled = plain | {("mnist", 4, 3, "patch"): sized} | tuned
    table = fc.stacked_table(stacked, main, 4, pooled)
    assert list(table["model"])[-1] == (f"kernel limit (d → ∞), pooled 3 × 3, {p} × {p} patches, threshold {t:g} and "
                                        f"whitening ε {e:g} chosen on held-out rows")
    words = fc.map_words(record, sized)
    assert words in fc.stacked_sentence(stacked, main, 4, pooled)
    fig = fc.plot_stacked(stacked, main, 4, pooled)
    assert f"d → ∞: K = 4, 3 × 3, {p} × {p} patches, t = {t:g}, ε = {e:g}" in [
        text.get_text() for text in fig.legends[0].get_texts()]
    text = fc.stacked_limit_text(True, [], map_settings=spec)
    assert text.endswith("its fit time counting both choices (on MNIST's K = 4 features pooled 3 × 3, (t, ε) among "
                         "(0.25, 0.1), (0.75, 0.5), (1, 1)).")
    assert "whitening" not in fc.stacked_limit_text(False, [2000], map_settings=spec)


def test_map_words_follow_the_sign():
    def result(value, setting=None):
        return Result("a", (value,), "%", setting or {}, "frontier", "m", "2026-11-27", "c")

    tuned = {"accuracy": result(99.55, {"patch_size": 7, "threshold": 0.75, "whiten_eps": 0.5}),
             "validation": {(0.25, 0.1): result(99.39), (0.75, 0.5): result(99.45)}}
    words = fc.map_words(tuned, {"accuracy": result(99.49)})
    assert words == ("with the threshold and whitening ε held-out rows chose at 7 × 7 (t = 0.25, ε = 0.1: 99.39 %; "
                     "t = 0.75, ε = 0.5: 99.45 %), t = 0.75 and ε = 0.5, the test accuracy rises to 99.55 %, 0.06 "
                     "points above the map's own settings' 99.49 %: 12 % fewer errors")
    assert fc.map_words(tuned, {"accuracy": result(99.60)}).endswith(
        "falls to 99.55 %, 0.05 points below the map's own settings' 99.60 %: 12 % more errors")


def test_map_settings_are_checked_and_patch_views_take_them():
    from greenelm import RandomPatchFeatures
    from greenelm_book.chapters.frontier_features import patch_views

    assert fc.map_setting({"patch_size": 7, "threshold": 1, "whiten_eps": 0.5}) == {
        "patch_size": 7, "threshold": 1.0, "whiten_eps": 0.5}
    with pytest.raises(ValueError, match=r"unknown map setting\(s\) \['pool'\]"):
        fc.map_setting({"pool": 2})
    with pytest.raises(ValueError, match="whiten_eps must be a finite number > 0, got 0"):
        fc.map_setting({"whiten_eps": 0})
    with pytest.raises(ValueError, match="threshold must be a finite number >= 0, got -0.1"):
        fc.map_setting({"threshold": -0.1})
    with pytest.raises(ValueError, match="threshold must be a finite number >= 0, got True"):
        fc.map_setting({"threshold": True})
    with pytest.raises(ValueError, match="at least one map setting"):
        fc.map_choice_point("mnist", 4, 0, 150, 3, [], 1e-2, 100, 50)
    with pytest.MonkeyPatch.context() as patch:                   # refused before any image is mapped
        patch.setattr(fc, "patch_views", lambda *a, **k: pytest.fail("mapped images before checking attempts"))
        with pytest.raises(ValueError, match="attempts"):
            fc.map_choice_point("mnist", 4, 0, 150, 3, [{"patch_size": 3}], 1e-2, 100, 50, attempts=0)
    own = RandomPatchFeatures((28, 28, 1))
    default = patch_views("mnist", 4, 0, subset=60, pool=3)
    explicit = patch_views("mnist", 4, 0, subset=60, pool=3, threshold=own.threshold, whiten_eps=own.whiten_eps)
    assert (default["threshold"], default["whiten_eps"]) == (own.threshold, own.whiten_eps)
    np.testing.assert_array_equal(default["X_train"][0], explicit["X_train"][0])
    other = patch_views("mnist", 4, 0, subset=60, pool=3, threshold=0.75, whiten_eps=0.5, test=False)
    assert (other["threshold"], other["whiten_eps"]) == (0.75, 0.5) and other["X_test"] == []
    assert not np.array_equal(other["X_train"][0], default["X_train"][0])


def test_patch_words_follow_the_sign():
    def result(value, setting=None):
        return Result("a", (value,), "%", setting or {}, "frontier", "m", "2026-11-27", "c")

    def limit(accuracy, p, validation=None):
        record = {"accuracy": result(accuracy, {"patch_size": p})}
        if validation:
            record["validation"] = {q: result(v) for q, v in validation.items()}
        return record

    plain = limit(99.41, 5)
    better = fc.patch_words(limit(99.52, 9, {5: 98.6, 9: 98.9}), plain, "the features")
    assert better == ("on the features from 9 × 9 patches (held-out rows: 5 × 5 98.60 %, 9 × 9 98.90 %), the test "
                      "accuracy rises to 99.52 %, 0.11 points above the 5 × 5 patches' 99.41 %: 19 % fewer errors")
    worse = fc.patch_words(limit(99.31, 9, {5: 98.6, 9: 98.9}), plain, "the features")
    assert worse.endswith("falls to 99.31 %, 0.10 points below the 5 × 5 patches' 99.41 %: 17 % more errors")
    same = fc.patch_words(limit(99.41, 9, {9: 98.9}), plain, "the features")
    assert same.endswith("the test accuracy stays at 99.41 %")


def test_patch_views_equal_the_frozen_copy_at_the_datasets_own_patch_size():
    from greenelm_book.chapters.frontier_features import patch_views, standardised_patch_views

    frozen = standardised_patch_views("mnist", 4, 0, subset=60, pool=3, views=("shift",))
    general = patch_views("mnist", 4, 0, subset=60, pool=3, views=("shift",))
    assert general["patch_size"] == 5 and general["views"] == frozen["views"]
    for part in ("X_train", "X_test"):
        for a, b in zip(frozen[part], general[part], strict=True):
            np.testing.assert_array_equal(a, b)
    wider = patch_views("mnist", 4, 0, patch_size=9, subset=60, pool=3)
    assert wider["patch_size"] == 9 and wider["X_train"][0].shape == frozen["X_train"][0].shape
    assert not np.array_equal(wider["X_train"][0], frozen["X_train"][0])
    with pytest.raises(ValueError, match="patch_size"):
        patch_views("mnist", 4, 0, patch_size=0, subset=60, pool=3)


def test_errors_removed_is_the_share_of_the_base_errors():
    from greenelm_book.report import errors_removed

    assert errors_removed(99.2, 99.0) == pytest.approx(0.2)
    assert errors_removed(98.5, 99.0) == pytest.approx(-0.5)
    assert errors_removed(99.0, 100.0) is None


def test_shift_words_follow_the_sign_and_count_the_errors_removed():
    def record(accuracy):
        return {"accuracy": Result("a", (accuracy,), "%", {}, "frontier", "m", "2026-11-27", "c")}

    words = fc.shift_words(record(99.52), record(99.40), "the features")
    assert words == ("on the features with each image's four one-pixel shifts averaged into the kernel, the test "
                     "accuracy rises to 99.52 %, 0.12 points above the same limit without them (99.40 %): 20 % fewer errors")
    assert fc.shift_words(record(99.28), record(99.40), "f").endswith("falls to 99.28 %, 0.12 points below the same "
                                                                      "limit without them (99.40 %): 20 % more errors")
    assert fc.shift_words(record(99.40), record(99.40), "f").endswith("the test accuracy stays at 99.40 %")
    assert fc.shift_words(record(100.0), record(100.0), "f").endswith("stays at 100.00 %")
    assert fc.shift_words(record(99.0), record(100.0), "f").endswith("below the same limit without them (100.00 %)")


def test_the_limit_with_mirror_images_averaged_into_its_kernel(store, cache):
    kwargs = dict(seed=0, subset=120, jitters=[1e-6, 1e-2], n_fit=20000, n_validation=10000)
    plain = fc.fit_ridge_limits(store, {"mnist": [[4, 3]]}, **kwargs)
    flip = fc.fit_ridge_limits(store, {"mnist": [[4, 3]]}, views=["flip"], **kwargs)
    record = flip["mnist", 4, 3, "flip"]
    base = "mnist/stacked-patches/p=5/pool=3/k=4/arccos-kernel-flip-ridge"
    assert record["accuracy"].key == f"{base}/accuracy" and f"{base}/jitter=0.01/validation-accuracy" in store.results
    setting = record["accuracy"].setting
    assert setting["views"] == ["identity", "flip"] and "mirror image" in setting["model"]
    assert setting["jitter"] in (1e-6, 1e-2) and (setting["n_fit"], setting["n_validation"]) == (80, 40)
    assert record["accuracy"].values != plain["mnist", 4, 3, "ridge"]["accuracy"].values or \
        record["validation"][1e-2].values != plain["mnist", 4, 3, "ridge"]["validation"][1e-2].values
    assert len(list(cache.rglob("frontier-held-out-limit-*.json"))) == 2          # one computation each
    with pytest.raises(ValueError, match=r"views must be \(\) or \('flip',\)"):
        fc.fit_ridge_limits(store, {"mnist": [[4, 3]]}, views=["shift"], **kwargs)
    pooled = plain | flip
    stacked = fc.fit_stacked(store, ["mnist"], 4, [], True, seed=0, subset=120, pool=2, jitter=1e-2)
    main = fc.main_records(fc.record_patches(store, _runs(fc.patch_configs(["mnist"], [4], 4, {}, [0], 0, [2], {}, [])),
                                             120), 2)
    table = fc.stacked_table(stacked, main, 4, pooled)
    assert list(table["model"])[-1] == ("kernel limit (d → ∞), pooled 3 × 3, mirror images in the kernel, "
                                        "μ chosen on held-out rows")
    gap = record["accuracy"].mean - plain["mnist", 4, 3, "ridge"]["accuracy"].mean
    sentence = fc.stacked_sentence(stacked, main, 4, pooled)
    assert (f"on the features pooled 3 × 3 with each image's mirror image averaged into the kernel, held-out rows "
            f"choose μ = {setting['mu']:.1e} and the test accuracy {fc.by_sign(gap, 'rises', 'falls', 'stays')}") in sentence
    fig = fc.plot_stacked(stacked, main, 4, pooled)
    assert "d → ∞: K = 4, 3 × 3, μ held out, + mirror" in [text.get_text() for text in fig.legends[0].get_texts()]
    memory = fc.limit_memory_sentence(stacked, flip)
    assert f"(72 features, 2 views of each image): a {4 * 120 ** 2 / 1e9:.1f} GB kernel beside " \
           f"{2 * 4 * 120 * 72 / 1e9:.1f} GB of training features" in memory
    assert fc.stacked_text(None, setting, pooled=True).endswith(
        "pooled 3 × 3, mirror images in the kernel, μ chosen on held-out rows")
    text = fc.stacked_limit_text(True, [], {}, {}, {}, flip={"cifar10": [[1024, 3]]})
    assert "K̄(x, z) = ¼ Σ K(a, b)" in text and text.endswith(f"(on CIFAR-10's K = {thousands(1024)} features pooled 3 × 3).")
    assert "mirror" not in fc.stacked_limit_text(False, [2000], flip={"cifar10": [[1024, 3]]})
    overall = {"mnist": (record, "words")}
    assert fc.best_width_sentence(overall) == (f"Our best results, for comparison: MNIST "
                                               f"{record['accuracy'].mean:.2f} % on 72 patch features (the paper's "
                                               "map on them at d → ∞).")
    readout = main["mnist", 4, ()]
    assert fc.best_width_sentence({"mnist": (readout, "w")}).endswith(
        f"MNIST {readout['accuracy'].mean:.2f} % on {readout['accuracy'].setting['n_features']} patch features.")
    assert fc.best_width_sentence({}) == ""


def test_the_goal_sentence_counts_the_limit_on_another_grid():
    def result(value, unit, pool=2):
        return Result("k", (value,), unit, {"n_patches": 8, "pool": pool}, "frontier", "m", "2026-11-26", "c")

    best = {"mnist": (None, {"accuracy": result(98.0, "%"), "fit": result(60.0, "s"), "memory": result(1.0, "GB")})}
    two = {"accuracy": result(99.3, "%"), "fit": result(600.0, "s"), "memory": result(14.0, "GB")}
    three = {"accuracy": result(99.6, "%", 3), "fit": result(700.0, "s"), "memory": result(15.0, "GB")}
    sentence = fc.goal_sentence(best, {"mnist": 99.5}, {("mnist", None): two}, {("mnist", 8, 3, "vanishing"): three})
    assert "MNIST 99.60 % (the stacked map's d → ∞ limit on the K = 8 patch features pooled 3 × 3)" in sentence
    assert sentence.endswith("Reached: MNIST (99.60 %, the stacked map's d → ∞ limit on the K = 8 patch features "
                             "pooled 3 × 3, in 11.7 min and 15.0 GB). ")


# ----------------------------------------------------------------------------- parity, anchors, cost curve
def test_parity_counts_the_epochs_within_the_readouts_time(store):
    _put(store.directory, "baselines", {
        "mnist/sgd-mlp/e=1/train-seconds": [1.0], "mnist/sgd-mlp/e=2/train-seconds": [2.0],
        "mnist/sgd-mlp/e=1/accuracy": [85.0], "mnist/sgd-mlp/e=2/accuracy": [90.0],
        "mnist/sgd-mlp/accuracy": [95.0], "mnist/sgd-mlp/train-seconds": [3.5],
        "cifar10/sgd-mlp/accuracy": [40.0], "cifar10/sgd-mlp/train-seconds": [0.6],
        "cifar10/sgd-cnn/e=1/train-seconds": [9.0], "cifar10/sgd-cnn/e=1/accuracy": [50.0],
        "cifar10/sgd-cnn/accuracy": [60.0], "cifar10/sgd-cnn/train-seconds": [10.0]},
        {"cifar10/sgd-mlp/accuracy": {"epochs": 1}, "mnist/sgd-mlp/accuracy": {"epochs": 3},
         "cifar10/sgd-cnn/accuracy": {"epochs": 2}})
    configs = [("mnist", 8, 2, "sampled", 1, ()), ("cifar10", 8, 2, "sampled", 1, ())]   # fit 2.0 s each
    records = fc.record_patches(store, _runs(configs), 100)
    best = fc.best_patch(records, ["mnist", "cifar10"])
    assert list(fc.baseline_curve(store, "mnist", "sgd-mlp").itertuples(index=False, name=None)) == [
        (1, 1.0, 85.0), (2, 2.0, 90.0), (3, 3.5, 95.0)]
    rows = fc.parity_rows(store, best)
    assert [(r["dataset"], r["SGD model"], r["SGD epochs in that time"]) for r in rows] == [
        ("MNIST", "SGD MLP", 2), ("CIFAR-10", "SGD MLP", 1), ("CIFAR-10", "SGD CNN", 0)]
    assert rows[0]["SGD then (%)"] == 90.0 and rows[1]["SGD then (%)"] == 40.0 and math.isnan(rows[2]["SGD then (%)"])
    assert list(fc.parity_table(rows).columns) == ["dataset", "SGD model", "one-shot result", "its accuracy (%)",
                                                   "its fit (s)", "SGD epochs in that time", "SGD then (%)",
                                                   "SGD run's end (s)", "SGD at its end (%)"]
    assert fc.parity_sentence(rows) == (
        "MNIST's SGD MLP reaches 90.00 % within the 2 s fit of the patch readout (2 epochs; 36.20 points above its "
        "53.80 %). CIFAR-10's SGD MLP ended its run after 1 s at 40.00 %, before the 2 s fit of the patch readout "
        "(13.80 points below its 53.80 %). CIFAR-10's SGD CNN finished no epoch within the 2 s fit of the patch "
        "readout.")
    longer = {("cifar10", "sgd-cnn"): pd.DataFrame({"epochs": [1, 2], "seconds": [1.5, 2.5], "accuracy": [30.0, 35.0]})}
    rows = fc.parity_rows(store, best, longer)                 # the longer run replaces the baselines' curve
    assert (rows[2]["SGD epochs in that time"], rows[2]["SGD then (%)"], rows[2]["SGD run's end (s)"]) == (1, 30.0, 2.5)
    assert fc.long_text(longer) == "the CIFAR-10 CNN for 2 epochs (2 s)" and fc.long_text({}) == fc.NOT_RUN
    assert fc.budget_sentence(store, records, ["mnist", "cifar10"]) == (
        "Given the SGD runs' own training times, the best readout that fits in them: MNIST's SGD MLP (95.00 % in "
        "4 s): 53.80 % in 2 s (K = 8 sampled patches, 2 × 2 pooling); CIFAR-10's SGD MLP (40.00 % in 1 s): no "
        "readout fits in that time; the fastest takes 2 s for 53.80 %; CIFAR-10's SGD CNN (60.00 % in 10 s): "
        "53.80 % in 2 s (K = 8 sampled patches, 2 × 2 pooling).")
    anchors = fc.anchor_table(best)
    assert list(anchors.columns) == ["dataset", "published method (source)", "trained", "size; augmentation",
                                     "published (%)", "ours, patch readout (%)"]
    assert set(anchors["dataset"]) == {"MNIST", "CIFAR-10"} and set(anchors["ours, patch readout (%)"]) == {53.8}
    assert len(anchors) == len(paper.ANCHORS)                  # every anchor of a fitted dataset shows
    # with the chapter's best beside it: a stacked limit above the readout is the best, one below is not
    better = {key: store.record(f"{key[0]}/stacked-patches/limit-{i}/{stat}", [value], unit, n_patches=8, pool=3)
              for i, (key, value) in enumerate({("mnist", 8, 3, "vanishing"): 60.0,
                                                 ("cifar10", 8, 3, "vanishing"): 50.0}.items())
              for stat, unit in (("accuracy", "%"),)}
    pooled = {key: {"accuracy": result, "fit": result, "memory": result} for key, result in better.items()}
    overall, _ = fc.best_overall(best, {}, pooled)
    anchors = fc.anchor_table(best, overall)
    assert list(anchors.columns)[-1] == "ours, best (%)"
    assert dict(zip(anchors["dataset"], anchors["ours, best (%)"])) == {"MNIST": 60.0, "CIFAR-10": 53.8}
    # parity with the chapter's best beside the readout where it is another result (MNIST's limit, fitted
    # in the stacked record's "fit" of 60 s: past the MNIST MLP's 3.5 s run), and only there (CIFAR-10)
    assert fc.compared_seconds(best, overall) == {"mnist": [2.0, 60.0], "cifar10": [2.0]}
    rows = fc.parity_rows(store, best, None, overall)
    assert [(r["dataset"], r["one-shot result"], r["its accuracy (%)"]) for r in rows] == [
        ("MNIST", "patch readout", 53.8), ("MNIST", "stacked map's d → ∞ limit", 60.0),
        ("CIFAR-10", "patch readout", 53.8), ("CIFAR-10", "patch readout", 53.8)]
    assert (rows[1]["SGD epochs in that time"], rows[1]["SGD then (%)"]) == (3, 95.0)
    assert fc.parity_sentence(rows).startswith(
        "MNIST's SGD MLP reaches 90.00 % within the 2 s fit of the patch readout (2 epochs; 36.20 points above its "
        "53.80 %), and ended its run after 4 s at 95.00 %, before the 60 s fit of the stacked map's d → ∞ limit "
        "(35.00 points above its 60.00 %). CIFAR-10's SGD MLP ended")
    width = store.record("mnist/stacked-patches/p=5/pool=2/k=8/d=8000/accuracy", [1.0], "%")
    assert fc.result_label({"accuracy": width}) == "stacked map at d = 8\u202f000"


# ----------------------------------------------------------------------------- published anchors
ANCHOR_COLUMNS = ["dataset", "method", "accuracy", "trained", "size", "augmentation", "compute", "source"]


def _bib_keys() -> set[str]:
    return set(re.findall(r"^@\w+\{([^,\s]+),", (ROOT / "book" / "references.bib").read_text(), re.M))


def test_every_anchor_says_what_is_trained_its_size_augmentation_and_compute():
    assert list(paper.ANCHORS.columns) == ANCHOR_COLUMNS
    for row in paper.ANCHORS.itertuples(index=False):
        for column, value in zip(ANCHOR_COLUMNS, row):
            assert value is not None and str(value).strip() and not pd.isna(value), (column, row)
        assert row.trained in paper.TRAINED, row
        assert row.dataset in ("mnist", "cifar10") and 0 < row.accuracy <= 100


def test_every_anchor_source_has_a_short_name_and_a_bibtex_entry():
    keys = _bib_keys()
    for source in paper.ANCHORS.source.unique():
        assert source in fc.SOURCES, source
        assert source in keys, source
    assert set(fc.SOURCES) <= keys


def test_no_anchor_trained_by_sgd_is_called_training_free():
    for row in paper.ANCHORS.itertuples():
        if "SGD" in row.trained:
            assert not re.search(r"training[- ]free|no training|untrained|one[- ]shot", row.method, re.I), row.method
        if row.trained in ("nothing",):
            assert "SGD" not in row.method


def test_the_anchors_include_the_kernel_methods_and_the_fast_sgd_recipes():
    trained = dict(zip(paper.ANCHORS.source + "/" + paper.ANCHORS.accuracy.astype(str), paper.ANCHORS.trained))
    assert trained["shankar2020neural/90.0"] == "kernel ridge"
    assert trained["chen2019cknpytorch/90.2"] == "whole network (SGD)"          # the supervised CKN
    assert trained["chen2019cknpytorch/84.0"] == "convex readout (SVM)"         # the unsupervised one
    assert trained["page2018how/94.08"] == trained["jordan2024airbench/94.01"] == "whole network (SGD)"
    # Thiry et al.'s "linear" and one-hidden-layer heads are trained by SGD, on crops and flips
    thiry = paper.ANCHORS[paper.ANCHORS.source == "thiry2021unreasonable"]
    assert set(thiry.trained) == {"SGD-trained head"} and 88.5 in set(thiry.accuracy)
    assert thiry.augmentation.str.contains("flips").all()


def test_the_anchor_table_shows_every_anchor_with_its_training_and_the_notes_its_compute():
    best = {name: (None, {"accuracy": SimpleNamespace(mean=50.0)}) for name in ("mnist", "cifar10")}
    table = fc.anchor_table(best)
    assert list(table.columns) == ["dataset", "published method (source)", "trained", "size; augmentation",
                                   "published (%)", "ours, patch readout (%)"]
    assert "compute" not in table.columns                                        # in the notes instead
    rows = {(r["published method (source)"].rsplit(" (", 1)[-1].rstrip(")"), r["trained"])
            for r in table.to_dict("records")}
    assert {("Shankar et al. 2020", "kernel ridge"), ("code of Mairal 2016", "whole network (SGD)"),
            ("Page 2018", "whole network (SGD)"), ("Jordan 2024", "whole network (SGD)")} <= rows
    # only the fitted datasets' anchors, in ANCHORS' order; the notes follow the same rows
    cifar = fc.anchor_table({"cifar10": best["cifar10"]})
    assert set(cifar.dataset) == {"CIFAR-10"} and len(cifar) == (paper.ANCHORS.dataset == "cifar10").sum()
    notes = fc.anchor_notes(["cifar10"])
    assert len(notes) == len(cifar)
    assert notes[-1].startswith("Jordan 2024, 94.01 % on CIFAR-10, trained: whole network (SGD); compute: 3.29 s")
    assert any("79 s on one V100" in note for note in notes) and len(fc.anchor_notes()) == len(paper.ANCHORS)


def test_a_long_runs_kept_epochs_hold_the_parity_of_the_whole_run():
    epochs = np.arange(1, 251)
    seconds = 1.5 * epochs                                       # epoch 137 ends at 205.5 s, 138 at 207 s
    keep = fc.kept_epochs(epochs, seconds, compared=[206.0, 10_000.0, 0.5])
    assert list(epochs[keep]) == list(range(1, 101)) + [110, 120, 130, 137] + list(range(140, 251, 10))
    kept = pd.DataFrame({"epochs": epochs[keep], "seconds": seconds[keep]})
    for limit in (206.0, 10_000.0):                              # the last epoch within: the same, kept or not
        assert kept[kept.seconds <= limit].epochs.max() == epochs[seconds <= limit].max()
    assert fc.kept_epochs([1, 2, 3], [1.0, 2.0, 3.0]).all()


def test_longer_sgd_runs_are_recorded_epoch_by_epoch_and_only_for_the_chosen_networks(store, cache):
    pytest.importorskip("torch")
    curves = fc.long_sgd_runs(store, {"mnist": {"mlp": 3}}, seed=0, subset=200)
    curve = curves["mnist", "sgd-mlp"]
    assert list(curve.epochs) == [1, 2, 3] and curve.seconds.is_monotonic_increasing
    assert store.results["mnist/sgd-mlp/long/accuracy"].values == (curve.accuracy.iloc[-1],)
    assert store.results["mnist/sgd-mlp/long/e=2/accuracy"].values == (curve.accuracy.iloc[1],)
    assert store.results["mnist/sgd-mlp/long/accuracy"].setting["architecture"] == "784-64-10"
    assert fc.long_sgd_runs(store, {}, seed=0, subset=200) == {}
    with pytest.raises(ValueError, match="no longer SGD run of 'mlp' on 'cifar10': the chapter trains mlp on mnist"):
        fc.long_sgd_runs(store, {"cifar10": {"mlp": 3}}, seed=0, subset=200)
    fc.record_patches(store, _runs([("mnist", 8, 2, "sampled", 0, ())]), 100)
    cost = fc.chapter_cost_curve(store, ["mnist"])
    assert set(cost.run[cost.method == "SGD MLP"]) == {"mnist/sgd-mlp/long"}     # its three epochs share one run
    fig = fc.plot_cost_curve(cost, ["mnist"])
    assert "SGD MLP, longer run" in [line.get_label() for line in fig.axes[0].get_lines()]


def test_cost_curve_families_and_this_chapters_results(store):
    assert fc.family("cifar10/stacked-patches/p=6/pool=2/k=32/d=200") == "stacked map"
    assert fc.family("cifar10/patch-readout/p=6/pool=2/k=32/dictionary=kmeans") == "patch readout"
    assert fc.family("cifar10/sgd-cnn/e=3") == "SGD CNN" and fc.family("mnist/green-elm/unit/x") == "Green-ELM"
    _put(store.directory, "baselines", {"mnist/sgd-mlp/accuracy": [90.0], "mnist/sgd-mlp/train-seconds": [2.0],
                                        "svhn/sgd-mlp/accuracy": [90.0], "svhn/sgd-mlp/train-seconds": [2.0]})
    fc.record_patches(store, _runs([("mnist", 8, 2, "sampled", 0, ())]), 100)
    curve = fc.chapter_cost_curve(store, ["mnist"])
    assert sorted(curve.method) == ["SGD MLP", "patch readout"] and set(curve.dataset) == {"mnist"}
    fig = fc.plot_cost_curve(curve, ["mnist"])
    assert fig.axes[0].get_xscale() == "log"


def test_limits_glues_quote_the_widest_fit(store):
    configs = fc.patch_configs(["mnist"], [8, 32], 32, {}, [0], 0, [2], {}, [])
    glues = fc.limits_glues(91.5, 99.5, _runs(configs), ["mnist"], {"mnist": [8, 32]}, 0, 2)
    assert glues["million_words"] == "the kernel limit above says even that would not bring this map to 99.5 %."
    assert glues["feature_seconds_text"] == ("the features and sums of one pass took MNIST at K = 32: 0 s for "
                                             "100 images, then 0 s for the eigendecomposition, peak memory 0.9 GB.")
    assert fc.patch_intro_glues(2, 1000, {"mnist": ["shift"], "cifar10": []}, ["mnist", "cifar10"]) == {
        "pool_text": "2 × 2", "pool_cells": "4", "loo_text": "1\u202f000",
        "augment_text": "MNIST: the four one-pixel shifts"}


def test_the_widest_fits_say_they_solved_by_one_cholesky_per_lambda_and_why(store):
    from greenelm.solvers import LARGE_ORDER

    narrow = _runs(fc.patch_configs(["mnist"], [8, 32], 32, {}, [0], 0, [2], {}, []))
    assert fc.solver_sentence(narrow) == ("Every fit here has at most 256 features: one eigendecomposition of its "
                                          "Gram gives the whole λ path.")
    configs = fc.patch_configs(["mnist"], [8, 32], 32, {"mnist": [2048]}, [0], 0, [2], {}, [])
    runs = _runs(configs)
    sentence = fc.solver_sentence(runs)
    assert sentence.startswith("Up to 256 features one eigendecomposition of the Gram gives the whole λ path; "
                               "at 16\u202f384 features the readout factorises G + λI in float64 once per λ "
                               "instead (3 values tried, from the float32 Gram): ")
    assert f"from {thousands(LARGE_ORDER)} features on the library runs LAPACK on one thread" in sentence
    skipping = {config: {**run, "infeasible_alphas": [0.0001, 0.001], "gram_dtype": "float64"}
                for config, run in runs.items()}
    assert ("instead (5 values tried, from the float64 Gram; λ = 0.0001, 0.001 skipped, G + λI not numerically "
            "positive definite there): ") in fc.solver_sentence(skipping)
    glues = fc.limits_glues(91.5, 99.5, runs, ["mnist"], {"mnist": [8, 32, 2048]}, 0, 2)
    assert "K = 2\u202f048: 0 s for 100 images, then 2 s for 3 Cholesky factorisations (one per λ tried)" in \
        glues["feature_seconds_text"]
    table = fc.patch_table(fc.main_records(fc.record_patches(store, runs, 100), 2))
    assert list(table["solve"]) == ["eigh", "eigh", "Cholesky"]
    assert store.results["mnist/patch-readout/p=5/pool=2/k=2048/accuracy"].setting["solver"] == \
        "one float64 Cholesky factorisation of G + λI per λ"


def test_the_patch_plot_labels_its_feature_counts_without_overlap(store):
    import matplotlib.pyplot as plt

    configs = fc.patch_configs(["mnist"], [64, 256], 256, {"mnist": [1024]}, [0], 0, [2, 3], {}, [])
    fig = fc.plot_patches(fc.record_patches(store, _runs(configs), 100),
                          ["mnist"], {"mnist": [64, 256, 1024]}, 256, {}, {"mnist": 99.5}, [2, 3], [])
    fig.canvas.draw()               # 512 … 8 192 features with pool 3's 1 152 and 4 608 among them
    assert [t.get_text() for t in fig.axes[0].get_xticklabels() if t.get_text()] == ["512", "2\u202f048", "8\u202f192"]
    plt.close(fig)


