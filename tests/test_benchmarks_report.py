"""benchmarks/run.py: reports assembled from several runs, and the floor rows and targets."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from benchmarks import run
from benchmarks.patches import VALIDATION_NOTE


def _entry(result, ok=True):
    return {"ok": ok, "error": None if ok else "boom", "runs": [{"result": result, "peak_rss_bytes": 2**30}]}


def test_floor_row_takes_medians_of_the_in_process_ratios_and_judges_d_4000():
    runs = [{"seconds": s, "floor_seconds": 10.0, "ratio": s / 10.0, "gemm_gflops": {"float64": g, "float32": 2 * g},
             "syrk_vs_gemm": 0.95, "feature_gemm_vs_gemm": 1.0, "bias_relu_share": 0.03}
            for s, g in ((11.0, 120.0), (12.5, 110.0), (11.5, 125.0))]
    row = run.floor_row(_entry({"n_train": 60000, "runs": runs}), 4000, "float64")
    assert row["ratio_to_floor"] == 1.15 and row["ratio_range"] == "1.1–1.25" and row["met"] is True
    assert row["repeats"] == 3 and row["gemm_gflops"] == 120.0 and row["peak_rss_mib"] == 1024
    wide = run.floor_row(_entry({"n_train": 60000, "runs": runs}), 8000, "float32", judged=False)
    assert wide["met"] is None and wide["goal"] == "—"
    assert run.floor_row(_entry(None, ok=False), 4000, "float64")["status"] == "failed: boom"
    targets = run.floor_targets({"fit_floor": [row, wide]}, 4000)
    assert [t["table"] for t in targets] == ["fit_floor"] and targets[0]["goal"] == "<= 1.2"


def test_the_blas_clock_counts_each_calls_flops_and_restores_the_functions():
    import scipy.linalg
    from scipy.linalg import blas

    from benchmarks.workloads import blas_clock
    from greenelm import ELMClassifier
    from greenelm.solvers import fit_flops

    originals = (blas.sgemm, blas.ssyrk, blas.dsyr2k, scipy.linalg.cho_factor)
    rng = np.random.default_rng(0)
    X, y = rng.random((3000, 20)).astype(np.float32), rng.integers(0, 3, 3000)
    with blas_clock() as clock:
        ELMClassifier(n_hidden=50, dtype="float32", random_state=0).fit(X, y)
    assert (blas.sgemm, blas.ssyrk, blas.dsyr2k, scipy.linalg.cho_factor) == originals
    flops = fit_flops(3000, 20, 50, 3)
    assert clock["gemm"]["gflop"] * 1e9 == pytest.approx(flops.features)           # one feature GEMM per block
    assert clock["syrk"]["gflop"] * 1e9 == 3000 * (50 + 3) ** 2                       # [H̃ Y] side by side
    assert clock["cholesky"]["gflop"] * 1e9 == pytest.approx(50**3 / 3) and clock["cholesky"]["calls"] == 1
    assert clock["syr2k"]["calls"] == clock["syrk"]["calls"] >= 1
    assert all(entry["seconds"] > 0 for entry in clock.values())


def test_floor_time_row_splits_the_ratio_into_blas_and_the_rest():
    blas = {"gemm": {"seconds": 2.0, "gflop": 300.0}, "syrk": {"seconds": 6.0, "gflop": 900.0},
            "syr2k": {"seconds": 0.1, "gflop": 0.1}, "cholesky": {"seconds": 0.3, "gflop": 20.0}}
    runs = [{"seconds": s, "floor_seconds": 8.0, "ratio": s / 8.0, "blas": blas, "blas_seconds": 8.4,
             "outside_blas_seconds": s - 8.4, "gemm_gflops": {"float64": 80.0, "float32": 160.0}}
            for s in (9.0, 9.2, 10.0)]
    row = run.floor_time_row(_entry({"n_train": 60000, "runs": runs}), 4000, "float32")
    assert row["ratio_to_floor"] == pytest.approx(row["blas_over_floor"] + row["outside_over_floor"])
    assert (row["blas_over_floor"], row["outside_blas_seconds"]) == (pytest.approx(1.05), pytest.approx(0.8))
    assert row["syrk_seconds"] == 6.0 and row["blas_gflops"] == pytest.approx(1220.1 / 8.4)
    assert row["gemm_gflops_measured"] == 160.0 and run.floor_time_row(_entry(None, ok=False), 4000, "float32") is None


def test_streaming_floor_row_against_its_goal():
    result = {"n_hidden": 4000, "batch": 250, "update_seconds": [0.2, 0.3, 0.25], "gemm_gflops": [100.0, 90.0],
              "ratios": [1.9, 2.4, 2.1]}
    row = run.streaming_floor_row(_entry(result))
    assert row["ratio_to_floor"] == 2.1 and row["met"] is False and row["update_seconds"] == 0.25
    assert run.floor_targets({"streaming_floor": [row]}, 4000)[0]["met"] is False


def test_merge_keeps_what_the_new_run_did_not_measure_and_says_who_measured_what(tmp_path):
    old = {"meta": {"command": "python -m benchmarks.run", "date": "d0"},
           "tables": {"fit": [{"a": 1}], "memory": [{"b": 2}]},
           "targets": [{"target": "fit one"}, {"target": "floor", "table": "fit_floor"}]}
    new = {"meta": {"command": "python -m benchmarks.run --only fit-floor", "date": "d1"},
           "tables": {"fit_floor": [{"c": 3}]}, "targets": [{"target": "floor new", "table": "fit_floor"}]}
    merged = run.merge_reports(old, new)
    assert merged["tables"] == {"fit": [{"a": 1}], "memory": [{"b": 2}], "fit_floor": [{"c": 3}]}
    assert [t["target"] for t in merged["targets"]] == ["fit one", "floor new"]   # the old floor target replaced
    assert merged["provenance"]["fit"]["date"] == "d0" and merged["provenance"]["fit_floor"]["date"] == "d1"
    path = tmp_path / "report.json"
    path.write_text(json.dumps(old))
    run.merge_into(path, {"peers_fits": [{"library": "x", "fit (s)": 1.0}]}, [],
                   {"command": "python -m benchmarks.peers", "date": "d2"})
    stored = json.loads(path.read_text())
    assert set(stored["tables"]) == {"fit", "memory", "peers_fits"} and stored["meta"] == old["meta"]
    text = path.with_suffix(".md").read_text()
    assert "## greenelm against its peers: fits" in text
    assert "Measured by `python -m benchmarks.peers` on d2." in text


def test_patch_fit_device_alternates_the_paths_and_reports_the_ratio(monkeypatch):
    """benchmarks.patch_fit_device: each round runs both feature paths (reversed every other round),
    and the table gives each path's median fit against NumPy's."""
    import greenelm_book.chapters.frontier_features as frontier
    from benchmarks import patch_fit_device as bench

    calls = []

    def fake_readout(dataset, patches, seed, subset, device):
        calls.append(device)
        seconds = 10.0 if device is None else 25.0
        return {"fit_seconds": seconds + len(calls), "feature_seconds": seconds / 2, "accuracy": 50.0, "alpha": 1.0}

    monkeypatch.setattr(frontier, "patch_readout", fake_readout)
    rows = bench.measure("cifar10", 16, 100, rounds=2)
    assert calls == [None, "cpu", "cpu", None]
    numpy_row, torch_row = rows
    assert numpy_row["fit_seconds"] == (11.0 + 14.0) / 2 and torch_row["fit_seconds"] == (27.0 + 28.0) / 2
    assert torch_row["fit_over_numpy"] == torch_row["fit_seconds"] / numpy_row["fit_seconds"]
    table = bench.markdown({"machine": "m", "date": "d", "command": "c", "dataset": "cifar10", "patches": 16,
                            "subset": 100, "rows": rows})
    assert "| torch cpu | 27.5 | 27.0–28.0 | 12.5 | 2.20 | 50.00 | 1 |" in table


def test_gpu_dry_run_writes_its_report_at_the_dry_run_shapes_and_leaves_the_full_shapes(tmp_path):
    """benchmarks.gpu --dry-run: the script's code on torch's CPU device at small shapes, written as
    <out>.json and <out>.md; the full shapes stay the module's constant."""
    pytest.importorskip("torch")
    from benchmarks import gpu

    full = gpu.FULL_SHAPES
    gpu.main(["--dry-run", "--out", str(tmp_path / "gpu"), "--batches", "3", "--repeats", "1"])
    report = json.loads((tmp_path / "gpu.json").read_text())
    dry = gpu.DRY_RUN_SHAPES
    fits = [r for r in report["fits"] if r["device"] != "cpu (NumPy)"]
    assert [(r["dtype"], r["n_hidden"]) for r in fits] == [(t, d) for t in ("float64", "float32") for d in dry.fit_widths]
    assert {r["device"] for r in fits} == {"cpu"} and report["gpu"] == "torch CPU (dry run)"
    assert report["streaming_shape"]["n_hidden"] == dry.stream_width == 96
    assert report["fits_extra"]["exactness"]["same_predictions"] is True
    assert [r["n_patches"] for r in report["patches"]] == list(dry.patch_widths)
    text = (tmp_path / "gpu.md").read_text()
    assert f"## Table V's update (d = {dry.stream_width}, B = {dry.stream_batch}, float64)" in text
    assert gpu.FULL_SHAPES is full and full.fit_widths == (4000, 8000, 16000) and full.device == "cuda"
    assert full.stream_width == 4000 and full.n_train == 60_000


def test_held_out_limit_reports_each_part_of_the_one_computation_and_no_test_accuracy(tmp_path):
    """benchmarks.held_out_limit: the held-out curve and the chosen jitter of the library's
    held_out_kernel_ridge_predict on the same views and rows, the parts' times adding up to no more
    than the one wall clock, and no test accuracy anywhere in the report."""
    from benchmarks import held_out_limit
    from greenelm.kernels import held_out_kernel_ridge_predict
    from greenelm_book.chapters.frontier_features import held_out_split, standardised_patch_views

    held_out_limit.main(["--subset", "300", "--n-patches", "4", "--held-out", "150", "60",
                         "--jitters", "1e-6", "1e-2", "10", "--out", str(tmp_path / "limit")])
    report = json.loads((tmp_path / "limit.json").read_text())
    run_ = report["run"]
    assert report["reference"] is None
    assert (run_["views"], run_["n_train"], run_["n_fit"], run_["n_validation"]) == (["identity", "flip"], 300, 150, 60)
    curve = run_["validation_accuracy"]
    assert len(curve) == 3 and run_["jitter"] == max(zip(curve, run_["jitters"]))[1]
    parts = run_["seconds"]
    assert sum(parts[k] for k in ("features", "kernel", "validation", "fit", "test")) <= parts["total"]
    assert "accuracy" not in run_ and run_["peak_memory_gb"] > 0
    features = standardised_patch_views("cifar10", 4, 0, subset=300, pool=3, views=("flip",))
    fit, validation = held_out_split(300, 150, 60, 0)
    _, info = held_out_kernel_ridge_predict(features["X_train"], np.eye(10)[features["y_train"]], features["X_test"],
                                            [1e-6, 1e-2, 10.0], fit, validation, weight_scale="he")
    assert [100 * v for v in info["validation"]] == curve and info["jitter"] == run_["jitter"]
    text = (tmp_path / "limit.md").read_text()
    assert "| one computation (this run) |" in text and f"chosen {run_['jitter']:g}" in text
    assert held_out_limit.NO_TEST_LABELS_NOTE in text and "test accuracy (%)" not in text


def test_arccos_kernel_times_both_transforms_of_one_block_and_reports_their_ratios(tmp_path):
    """benchmarks.arccos_kernel: one row per input width, the transforms' times beside the GEMM's,
    the ratios computed from the medians shown (the script itself refuses differing bits)."""
    from benchmarks import arccos_kernel

    arccos_kernel.main(["--inputs", "30", "60", "--rows", "40", "--cols", "900", "--repeats", "1",
                        "--out", str(tmp_path / "arccos")])
    report = json.loads((tmp_path / "arccos.json").read_text())
    assert [r["inputs"] for r in report["rows"]] == [30, 60]
    for r in report["rows"]:
        s = r["seconds"]
        assert r["speedup"] == pytest.approx(s["whole block, one thread"] / s["tiles, threads"])
        assert r["tiles_over_gemm"] == pytest.approx(s["tiles, threads"] / s["gemm"])
    assert "| 60 | 40 × 900 |" in (tmp_path / "arccos.md").read_text()


def test_shift_rows_pairs_each_shift_with_its_label_and_reports_each_fit():
    """benchmarks.shift_rows: the shifted rows are the features of the four shifts, each with its image's
    label (the fit equals stacked_readout on those rows built here), the scored rows are validation
    rows of the training images, and the report's sentence follows the sign of the change."""
    from benchmarks import shift_rows
    from greenelm_book.chapters.frontier_features import held_out_patch_views, stacked_readout

    m = shift_rows.measure(4, 3, 0, 200, 50, [30])
    assert [(run["rows"], run["n_rows"]) for run in m["runs"]] == [("images", 150), ("images and shifts", 750)]
    assert (m["n_fit"], m["n_validation"], m["scored"]) == (150, 50, "validation")
    features = held_out_patch_views("mnist", 4, 0, subset=200, n_validation=50, pool=3, views=("shift",))
    rows = {"X_train": np.vstack(features["X_fit"]), "y_train": np.concatenate([features["y_fit"]] * 5),
            "X_test": features["X_validation"][0], "y_test": features["y_validation"]}
    assert stacked_readout(rows, 30, 0)["accuracy"] == m["runs"][1]["accuracy"]
    report = {"machine": "m", "date": "d", "command": "c", "measure": m | {"runs": [
        {"rows": "images", "n_rows": 10, "n_hidden": 8000, "accuracy": 99.0, "alpha": 1.0, "fit_seconds": 10.0},
        {"rows": "images and shifts", "n_rows": 50, "n_hidden": 8000, "accuracy": 99.2, "alpha": 0.1,
         "fit_seconds": 40.0}]}}
    assert ("At d = 8,000 the shifts as rows move the validation accuracy from 99.00 % to 99.20 % (+0.20 points, "
            "20 % fewer errors) for 4.0× the fit's seconds.") in shift_rows.markdown(report)
    assert VALIDATION_NOTE in shift_rows.markdown(report)


def test_shift_kernel_terms_and_report(tmp_path):
    """benchmarks.shift_kernel: the full average is the mean of the 25 view-pair kernels (the symmetric
    shortcut for a training kernel gives the same matrix), the shortcuts are symmetric with weights
    summing to 1, and the report has one row per kernel and one accuracy per jitter."""
    from benchmarks import shift_kernel
    from greenelm.kernels import arccos_kernel

    rng = np.random.default_rng(0)
    views = [rng.standard_normal((30, 7)).astype(np.float32) for _ in range(5)]
    average = shift_kernel.kernel_of("average", views, views)
    reference = np.mean([arccos_kernel(a, b, weight_scale="he", dtype="float32").astype(np.float64)
                         for a in views for b in views], axis=0)
    np.testing.assert_allclose(average, reference, rtol=1e-6, atol=1e-9)
    for name in ("symmetrised", "relative"):
        terms = shift_kernel._products(name)
        assert math.isclose(sum(w for _, _, w in terms), 1.0)
        assert {(a, b) for a, b, _ in terms} == {(b, a) for a, b, _ in terms}
        kernel = shift_kernel.kernel_of(name, views, views)
        np.testing.assert_allclose(kernel, kernel.T, rtol=1e-6, atol=1e-9)
    assert [len(shift_kernel._products(name)) for name in shift_kernel.KERNELS] == [1, 25, 9, 5, 1, 1]
    assert shift_kernel._products("test-shifts", scored=True) == [(a, 0, 0.2) for a in range(5)]
    # shifts when scoring: the scored rows' kernel is the mean of their five views' kernels
    np.testing.assert_allclose(shift_kernel.kernel_of("test-shifts", views, views[:1] * 5, scored=True),
                               np.mean([arccos_kernel(v, views[0], weight_scale="he", dtype="float32")
                                        for v in views], axis=0), rtol=1e-5, atol=1e-8)
    # the self-kernel is the arc-cosine kernel's diagonal; the second layer's limit matches a wide
    # two-layer random ReLU network (He weights, Gaussian biases) to Monte Carlo accuracy
    X = views[0][:6].astype(np.float64)
    first = arccos_kernel(X, weight_scale="he")
    np.testing.assert_allclose(shift_kernel.self_kernel(X), np.diag(first), rtol=1e-12)
    second = shift_kernel.two_layer(first.copy(), np.diag(first), np.diag(first))
    width = 6000
    H1 = np.maximum(X @ rng.standard_normal((7, width)) * math.sqrt(2 / 7) + rng.standard_normal(width), 0)
    H2 = np.maximum(H1 @ rng.standard_normal((width, width)) * math.sqrt(2 / width) + rng.standard_normal(width), 0)
    np.testing.assert_allclose(H1 @ H1.T / width, first, rtol=0.1)
    np.testing.assert_allclose(H2 @ H2.T / width, second, rtol=0.1)
    assert not np.allclose(second, first, rtol=0.1)            # the second layer is another kernel

    shift_kernel.main(["--subset", "160", "--validation", "40", "--n-patches", "4", "--jitters", "1e-3", "1e-1",
                       "--out", str(tmp_path / "shift")])
    report = json.loads((tmp_path / "shift.json").read_text())["measure"]
    assert [run_["kernel"] for run_ in report["runs"]] == list(shift_kernel.KERNELS)
    assert all(len(run_["accuracy"]) == 2 for run_ in report["runs"])
    assert (report["n_fit"], report["n_validation"], report["scored"]) == (120, 40, "validation")
    text = (tmp_path / "shift.md").read_text()
    assert text.count("\n| ") == 2 + len(shift_kernel.KERNELS) and "| average | 25 / 25 |" in text
    assert "| test-shifts | 1 / 5 |" in text and "The second layer's limit moves" in text
    assert VALIDATION_NOTE in text and "test accuracy" not in text
    runs = {run_["kernel"]: run_ for run_ in report["runs"]}
    errors = [100 - max(a for a in runs[name]["accuracy"] if a is not None) for name in ("identity", "average")]
    assert f"the validation error goes from {errors[0]:.2f} % to {errors[1]:.2f} %" in text

    assert shift_kernel._fewer_errors(99.0, 98.0) == " (50 % fewer errors than the identity kernel)."
    assert shift_kernel._fewer_errors(97.0, 98.0) == " (50 % more errors than the identity kernel)."
    assert shift_kernel._fewer_errors(98.0, 98.0).startswith(" (as many errors")
    assert shift_kernel._fewer_errors(100.0, 100.0) == "."

    shift_kernel.main(["--subset", "120", "--validation", "40", "--n-patches", "4", "--jitters", "1e-3",
                       "--kernels", "identity", "symmetrised", "--no-eigenvalue", "--out", str(tmp_path / "quick")])
    assert all(run_["smallest_eigenvalue"] is None
               for run_ in json.loads((tmp_path / "quick.json").read_text())["measure"]["runs"])
    assert "| identity | 1 / 1 |" in (tmp_path / "quick.md").read_text()
    assert "not computed" in (tmp_path / "quick.md").read_text()


def test_the_kernel_floor_counts_each_phases_flops():
    from benchmarks.kernel_floor import floors

    assert floors(rows=2, width=3, views=2, test=5, classes=10) == {
        "kernel": 4 * (2 * 3 / 2) * 3 * 2,               # V² · N(N+1)/2 · D' · 2
        "factorisation": 8 / 3 + 2 * 2 * 4 * 10,          # N³/3 + two triangular solves
        "test_kernel": 4 * 5 * 2 * 3 * 2}                 # V² · M · N · D' · 2
    assert floors(rows=2, width=3, views=2, test=5, classes=10, symmetric=True) == {
        "kernel": 2 * (2 * 3 / 2) * 3 * 2,               # V · N(N+1)/2 · D' · 2: the views a group
        "factorisation": 8 / 3 + 2 * 2 * 4 * 10,
        "test_kernel": 2 * 5 * 2 * 3 * 2}                 # V · M · N · D' · 2


def test_the_kernel_floors_symmetric_views_are_an_involution_fitted_with_v_products(tmp_path):
    from benchmarks import kernel_floor

    swapped = kernel_floor.involution(np.random.default_rng(0).permutation(9))
    np.testing.assert_array_equal(swapped[swapped], np.arange(9))
    assert (swapped != np.arange(9)).sum() == 8                      # four pairs swapped, one column kept
    kernel_floor.main(["--rows", "300", "--width", "32", "--test", "50", "--blocks", "64", "--repeats", "1",
                       "--out", str(tmp_path / "sym")])
    result = json.loads((tmp_path / "sym.json").read_text())["result"]
    assert result["symmetric"] is True
    assert result["v_squared_floor_seconds"]["kernel"] == pytest.approx(2 * result["floor_seconds"]["kernel"])
    (fit,) = result["fits"]
    assert fit["total_over_v_squared_floor"] < fit["total_over_floor"]
    text = (tmp_path / "sym.md").read_text()
    assert "fitted with symmetric_views: 2 products per kernel entry" in text
    assert f"{fit['total_over_floor']:.2f}× its V-product floor" in text and "fit + test × V² floor" in text
    kernel_floor.main(["--rows", "300", "--width", "32", "--test", "50", "--blocks", "64", "--repeats", "1",
                       "--no-symmetric", "--out", str(tmp_path / "full")])
    result = json.loads((tmp_path / "full.json").read_text())["result"]
    assert result["symmetric"] is False and result["floor_seconds"] == result["v_squared_floor_seconds"]
    assert "4 product(s) per kernel entry" in (tmp_path / "full.md").read_text()


def test_the_kernel_floor_report_renders_each_block_against_the_floor(tmp_path):
    from benchmarks import kernel_floor

    kernel_floor.main(["--rows", "300", "--width", "32", "--test", "50", "--blocks", "64", "--repeats", "1",
                       "--out", str(tmp_path / "kf")])
    report = json.loads((tmp_path / "kf.json").read_text())
    (fit,) = report["result"]["fits"]
    assert fit["block"] == 64 and set(fit["over_floor"]) == {"kernel", "factorisation", "test_kernel"}
    assert fit["fit"] >= fit["kernel"] > 0
    assert "| 64 |" in (tmp_path / "kf.md").read_text()


def test_the_exploration_benchmarks_never_read_the_test_labels(monkeypatch):
    """benchmarks.shift_kernel, shift_rows and held_out_limit compare variants: the first two score
    validation rows held out of the training images, the third scores the test images (their kernel
    is part of its cost) and reports no accuracy. The loader hands out -1 for every test label, a
    class no image has: an accuracy computed from them would be exactly 0."""
    import greenelm
    from benchmarks import held_out_limit, shift_kernel, shift_rows

    real = greenelm.load_dataset
    loaded = []

    def without_test_labels(*args, **kwargs):
        loaded.append(args)
        return _WithoutTestLabels(real(*args, **kwargs))

    monkeypatch.setattr(greenelm, "load_dataset", without_test_labels)
    kernel = shift_kernel.measure(4, 3, 0, 150, 50, [1e-2], kernels=("identity",), eigenvalue=False)
    rows = shift_rows.measure(4, 3, 0, 150, 50, [20])
    limit = held_out_limit.measure("cifar10", 4, 3, 0, 120, ("flip",), [1e-2, 1.0], 60, 30)
    assert len(loaded) == 3, "a benchmark loaded its images past the loader"
    assert kernel["n_validation"] == rows["n_validation"] == 50
    assert min(kernel["runs"][0]["accuracy"] + [run_["accuracy"] for run_ in rows["runs"]]) > 0
    assert "accuracy" not in limit


class _WithoutTestLabels:
    """A loaded dataset whose test labels are all -1; everything else as loaded."""

    def __init__(self, data):
        self._data = data
        self.y_test = np.full(len(data.y_test), -1)

    def __getattr__(self, name):
        return getattr(self._data, name)


def test_airbench_cpu_alternates_the_formats_times_the_steps_after_the_warm_up_and_reads_no_test_label(
        monkeypatch):
    """benchmarks.airbench_cpu: each round trains in both memory formats (reversed every other round) on
    training rows, scoring other training rows; a step's seconds leave the first epoch out."""
    import greenelm
    from benchmarks import airbench_cpu as bench
    from greenelm_book.chapters import fast_sgd

    class TrainingRowsOnly:
        x_train = np.zeros((40, 32, 32, 3), np.uint8)
        y_train = np.arange(40) % 10

        @property
        def y_test(self):
            raise AssertionError("the benchmark read a test label")

    calls = []

    def fake_train(X, y, X_scored, y_scored, *, seed, epochs, device, channels_last):
        calls.append((channels_last, len(X), len(X_scored)))
        assert np.array_equal(y_scored, TrainingRowsOnly.y_train[len(X):len(X) + len(X_scored)])
        step = 2.0 if channels_last else 3.0
        per_epoch = [{"steps": 10 * (e + 1), "seconds": 10 * step + (100.0 if e == 0 else 0.0)} for e in range(epochs)]
        return {"per_epoch": per_epoch, "eval_seconds": 1.0, "accuracy": 50.0, "accuracy_no_tta": 40.0 + len(calls)}

    monkeypatch.setattr(greenelm, "load_dataset", lambda name: TrainingRowsOnly())
    monkeypatch.setattr(fast_sgd, "train_airbench", fake_train)
    report = bench.measure(images=30, epochs=3, rounds=2, held_out=10)
    assert calls == [(False, 30, 10), (True, 30, 10), (True, 30, 10), (False, 30, 10)]
    contiguous, last = report["rows"]
    assert contiguous["step_seconds"] == 3.0 and last["step_seconds"] == 2.0
    assert last["step_over_contiguous"] == 2.0 / 3.0 and report["chosen"] == "channels_last"
    rate = 1024 * fast_sgd.airbench_flops_per_image() / 2.0 / 1e9
    assert last["gflops_per_second"] == pytest.approx(rate)
    assert last["accuracy_no_tta"] == [42.0, 43.0]
    table = bench.markdown({"machine": "m", "date": "d", "command": "c", "images": 30, "epochs": 3,
                            "held_out": 10, **report})
    assert f"| channels_last | 2.00 | 2.00–2.00 | 0.67 | {rate:.0f} |" in table
    assert "Faster here in every run: **channels_last**" in table
    overlapping = [dict(contiguous, step_range=[2.5, 3.5]), dict(last, step_range=[1.5, 2.6])]
    assert bench.faster_format(overlapping) is None
    assert "Neither format is faster in every run" in bench.markdown({
        "machine": "m", "date": "d", "command": "c", "images": 30, "epochs": 3, "held_out": 10, **report,
        "rows": overlapping, "chosen": None})
