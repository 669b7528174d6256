"""benchmarks/reports/README.md: the index of the exploration reports names every report of the
folder, each row names files that exist and the date its JSON records, and the reports that compare
variants hold no test accuracy: they score validation rows, or their test accuracies were removed."""

from __future__ import annotations

import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
REPORTS = ROOT / "benchmarks" / "reports"
INDEX = REPORTS / "README.md"
#: reports that compare variants on validation rows held out of the training images (issue 49)
VALIDATION_SCORED = ("shift_kernel", "shift_rows")
#: a report of a setting once compared with others on the test images: no test accuracy in it
TEST_ACCURACY_REMOVED = ("held_out_limit",)


def index_rows() -> list[dict]:
    """The index's table rows: the files each names (resolved from the index's folder) and its cells."""
    rows = []
    for line in INDEX.read_text().splitlines():
        if not line.startswith("| ") or line.startswith("| report |"):
            continue
        cells = [cell.strip() for cell in line.strip().strip("|").split(" | ")]
        if all(set(cell) <= set("-: ") for cell in cells):           # the header's separator
            continue
        targets = [(REPORTS / target).resolve() for target in re.findall(r"\]\(([^)]+)\)", cells[0])]
        rows.append({"cells": cells, "files": targets})
    return rows


def test_every_report_of_the_folder_has_a_row_and_every_row_names_existing_files():
    rows = index_rows()
    assert rows, "the index has no table rows"
    named = {path for row in rows for path in row["files"]}
    on_disk = {path.resolve() for path in REPORTS.iterdir() if path.name != "README.md"}
    assert not on_disk - named, f"reports without a row in {INDEX.name}: {sorted(p.name for p in on_disk - named)}"
    missing = [str(path.relative_to(ROOT)) for path in named if not path.is_file()]
    assert not missing, f"index rows name missing files: {missing}"
    for row in rows:
        assert len(row["cells"]) == 5 and row["files"], row["cells"]


def test_each_row_gives_the_date_its_report_records_and_no_variant_report_holds_a_test_accuracy():
    for row in index_rows():
        report, date, test_images = row["files"][0], row["cells"][3], row["cells"][4]
        data = [json.loads(path.read_text()) for path in row["files"] if path.suffix == ".json"]
        assert [d["date"][:10] for d in data] == [date], (report.name, date)
        if report.stem.startswith(VALIDATION_SCORED):
            assert data[0]["measure"]["scored"] == "validation" and test_images.startswith("no"), report.name
            assert "test accuracy" not in report.read_text(), report.name
        if report.stem.startswith(TEST_ACCURACY_REMOVED):
            assert "accuracy" not in data[0]["run"] and "accuracy" not in (data[0]["reference"] or {}), report.name
            assert "test_accuracy_removed" in data[0] and test_images.startswith("no test label"), report.name
