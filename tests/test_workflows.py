"""The GitHub Actions workflows: actionlint finds nothing, CI runs `make test`, and the Pages
workflow renders the committed chapters without executing any."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
WORKFLOWS = sorted((ROOT / ".github" / "workflows").glob("*.yml"))


def test_actionlint_finds_nothing():
    actionlint = shutil.which("actionlint", path=str(Path(sys.executable).parent)) or shutil.which("actionlint")
    if actionlint is None:
        pytest.skip("actionlint is not installed (extra 'test')")
    assert WORKFLOWS
    done = subprocess.run([actionlint, "-no-color", *map(str, WORKFLOWS)], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


def run_lines(name: str) -> list[str]:
    workflow = yaml.safe_load((ROOT / ".github" / "workflows" / name).read_text())
    return [line.strip() for job in workflow["jobs"].values() for step in job.get("steps", [])
            for line in step.get("run", "").splitlines()]


def test_ci_workflow_runs_make_test():
    assert "make test" in run_lines("test.yml")


def test_pages_workflow_renders_committed_chapters_only():
    lines = run_lines("pages.yml")
    assert ".venv/bin/python -m greenelm_book.running.runner html --source book" in lines
    assert not [line for line in lines if " run " in f" {line} " or "make book" in line], lines
