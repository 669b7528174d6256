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
    assert "3 kept, 0 broken" in done.stdout


def test_every_greenelm_import_of_the_chapters_and_the_book_names_a_library_module():
    """The book's machinery lives in greenelm_book/; the transitional aliases that kept old chapters
    running (greenelm.experiments, .paper, .report, .scaling) are gone, and nothing imports them."""
    assert not [p.name for p in LIBRARY.iterdir() if p.is_dir() and p.name != "__pycache__"]
    library = {"greenelm"} | {f"greenelm.{p.stem}" for p in library_modules()}
    sources = sorted((ROOT / "notebooks").glob("*.py")) + sorted((ROOT / "greenelm_book").rglob("*.py"))
    wrong = [(p.name, module) for p in sources for module, _ in imports_of(p)
             if module.split(".")[0] == "greenelm" and module not in library]
    assert not wrong, wrong


def package_imports(package: str) -> dict[str, set[str]]:
    """{module: modules of the same package it imports}, dotted below ``package`` (``store.results``),
    module-level and function-level imports alike (``from . import x``, ``from ..room.x import y``,
    ``from package.room.x import y``, ``import package.x``)."""
    folder = ROOT / package
    paths = {".".join(p.relative_to(folder).with_suffix("").parts): p for p in sorted(folder.rglob("*.py"))}
    modules = {name for name in paths if not name.endswith("__init__")}

    def module_of(dotted: str) -> str | None:
        return dotted if dotted in modules else None

    graph = {}
    for name, path in paths.items():
        if name.endswith("__init__"):
            continue
        here = name.split(".")[:-1]                      # the module's package, below ``package``
        found = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    base = here[: len(here) - node.level + 1] if node.level <= len(here) + 1 else None
                    if base is None:
                        continue
                    base = ".".join(base + ([node.module] if node.module else []))
                elif (node.module or "").split(".")[0] == package:
                    base = node.module[len(package) + 1:]
                else:
                    continue
                if module_of(base):
                    found.add(base)
                else:
                    found |= {m for alias in node.names
                              if (m := module_of(f"{base}.{alias.name}" if base else alias.name))}
            elif isinstance(node, ast.Import):
                found |= {m for alias in node.names if alias.name.startswith(package + ".")
                          if (m := module_of(alias.name[len(package) + 1:]))}
        graph[name] = found - {name}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One import circle per strongly connected group of modules (empty when there is none)."""
    found, done = [], set()

    def visit(node, path):
        if node in path:
            found.append(path[path.index(node):] + [node])
            return
        if node in done:
            return
        for nxt in sorted(graph.get(node, ())):
            visit(nxt, path + [node])
        done.add(node)

    for start in sorted(graph):
        visit(start, [])
    return found


def test_the_cycle_finder_finds_a_circle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c", "a"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


@pytest.mark.parametrize("package", ["greenelm", "greenelm_book"])
def test_no_import_circle_inside_a_package(package):
    """results -> runner -> scorecard -> results was one (through a function-level import)."""
    graph = package_imports(package)
    assert graph["store.results" if package == "greenelm_book" else "estimator"], "the walk finds imports"
    if package == "greenelm_book":
        assert "judging.verdicts" in graph["chapters.scaling"], "relative imports across rooms are resolved"
    assert not cycles(graph), " ; ".join(" -> ".join(c) for c in cycles(graph))


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
