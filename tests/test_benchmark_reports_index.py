"""benchmarks/reports/README.md: the index of the exploration reports names every report of the
folder, each row names files that exist and the date its JSON records, and a report that scores
variants on the test images says so."""

from __future__ import annotations

import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
REPORTS = ROOT / "benchmarks" / "reports"
INDEX = REPORTS / "README.md"
#: reports that score variants on the test images (issue 49): exploration, never a result
TEST_SCORED = ("shift_kernel", "shift_rows", "held_out_limit")


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


def test_each_row_gives_the_date_its_report_records_and_flags_test_scored_reports():
    for row in index_rows():
        report, date, test_images = row["files"][0], row["cells"][3], row["cells"][4]
        recorded = [json.loads(path.read_text())["date"][:10] for path in row["files"] if path.suffix == ".json"]
        assert recorded == [date], (report.name, recorded, date)
        if report.stem.startswith(TEST_SCORED):
            assert "exploration, not a result" in test_images and "no page may quote" in test_images, report.name
