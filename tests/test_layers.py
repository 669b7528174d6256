"""The two layers: the library (greenelm/) never imports the book's machinery (greenelm_book/),
``import greenelm`` stays light, and the wheel holds the library alone."""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LIBRARY = ROOT / "greenelm"
HEAVY = ("torch", "pandas", "matplotlib", "seaborn", "dask", "distributed", "tqdm", "greenelm_book")
def library_modules() -> list[Path]:
    return sorted(LIBRARY.glob("*.py"))


def imports_of(path: Path) -> list[tuple[str, bool]]:
    """(module imported, at module level?) for every import statement of a file."""
    tree = ast.parse(path.read_text())
    top = {id(node) for node in tree.body}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(alias.name, id(node) in top) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append((node.module, id(node) in top))
    return found


@pytest.mark.parametrize("path", library_modules(), ids=lambda p: p.name)
def test_library_module_never_imports_the_book_and_loads_heavy_stacks_lazily(path):
    for module, top_level in imports_of(path):
        root = module.split(".")[0]
        assert root != "greenelm_book", f"{path.name} imports {module}: the library never imports the book"
        assert not (top_level and root in HEAVY), (
            f"{path.name} imports {module} at module level: optional stacks are imported where used")


def run_python(code: str) -> str:
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT / "tests")
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_import_greenelm_loads_nothing_heavy():
    loaded = run_python("import sys, greenelm; print(' '.join(sorted(sys.modules)))").split()
    assert not [m for m in loaded if m.split(".")[0] in HEAVY + ("sklearn", "scipy")], loaded


def test_the_estimators_load_no_optional_stack():
    """scikit-learn itself imports pandas when it is installed; torch, matplotlib, dask and the book never."""
    loaded = run_python("import sys; from greenelm import ELMClassifier, ELMRegressor, load_model, StreamingRidge; "
                        "print(' '.join(sorted(sys.modules)))").split()
    assert not [m for m in loaded if m.split(".")[0] in
                ("torch", "matplotlib", "seaborn", "dask", "distributed", "greenelm_book")], loaded


def test_import_linter_contract_holds():
    lint = shutil.which("lint-imports", path=str(Path(sys.executable).parent))
    if lint is None:
        pytest.skip("import-linter is not installed (extra 'test')")
    done = subprocess.run([lint, "--config", str(ROOT / "pyproject.toml")], capture_output=True, text=True,
                          cwd=ROOT)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 kept, 0 broken" in done.stdout


def test_every_greenelm_import_of_the_chapters_and_the_book_names_a_library_module():
    """The book's machinery lives in greenelm_book/; the transitional aliases that kept old chapters
    running (greenelm.experiments, .paper, .report, .scaling) are gone, and nothing imports them."""
    assert not [p.name for p in LIBRARY.iterdir() if p.is_dir() and p.name != "__pycache__"]
    library = {"greenelm"} | {f"greenelm.{p.stem}" for p in library_modules()}
    sources = sorted((ROOT / "notebooks").glob("*.py")) + sorted((ROOT / "greenelm_book").glob("*.py"))
    wrong = [(p.name, module) for p in sources for module, _ in imports_of(p)
             if module.split(".")[0] == "greenelm" and module not in library]
    assert not wrong, wrong


def test_the_wheel_holds_the_library_alone(tmp_path):
    """Built from a copy of the project (setuptools writes build/ beside the sources)."""
    project = tmp_path / "project"
    shutil.copytree(ROOT, project, ignore=shutil.ignore_patterns(
        ".git", ".venv", "_build", "book", "tests", "notebooks", "benchmarks", "*.egg-info", "__pycache__"))
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
                           "--quiet", "-w", str(tmp_path), str(project)], capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"cannot build a wheel here: {done.stderr[-300:]}")
    (wheel,) = tmp_path.glob("greenelm-*.whl")
    names = [n for n in zipfile.ZipFile(wheel).namelist() if not n.startswith("greenelm-")]
    assert sorted(names) == sorted(f"greenelm/{p.name}" for p in library_modules())
