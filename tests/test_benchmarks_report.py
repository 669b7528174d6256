"""benchmarks/run.py: reports assembled from several runs, and the floor rows and targets."""

from __future__ import annotations

import json

from benchmarks import run


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
