"""Shared fixtures of the pipeline and browser tests: a tiny throwaway book project.

The project lives in a temporary folder (never in the repository) and mirrors the real layout:
``notebooks/<name>.py`` chapters, ``params/{smoke,full}.yml`` profiles and a ``_toc.yml``. The
runner is pointed at it with ``notebooks_dir=`` / ``params_dir=`` / ``toc=``, so these tests do
not depend on the real chapters.
"""

from __future__ import annotations

import textwrap
from pathlib import Path
from types import SimpleNamespace

import pytest

TINY = textwrap.dedent('''\
    # %% [markdown]
    # # A tiny chapter
    #
    # The width is {glue:}`tiny_width` and the paper says $d \\gg 784$ {cite}`silva2026greenelm`.

    # %% tags=["parameters"]
    profile = "smoke"
    seed = 0
    width = 3

    # %%
    import matplotlib.pyplot as plt
    import numpy as np
    from myst_nb import glue

    print(f"profile={profile} seed={seed} width={width}")
    glue("tiny_width", width, display=False)

    # %%
    fig, ax = plt.subplots(figsize=(3, 2))
    ax.plot(np.arange(width), np.random.default_rng(seed).normal(size=width))
    ax.set_title("tiny")
    plt.show()
    ''')

BAD = textwrap.dedent('''\
    # %% [markdown]
    # # A chapter that fails

    # %% tags=["parameters"]
    profile = "smoke"
    seed = 0

    # %%
    import os, pathlib
    x = 1
    results = pathlib.Path(os.environ.get("GREENELM_RESULTS_DIR", "."), "bad.json")   # a chapter's store,
    if results.is_file():                                                          # rewritten as it starts
        results.write_text("partial")

    # %%
    raise ValueError(f"boom {seed}")
    ''')

TOC = textwrap.dedent('''\
    format: jb-book
    root: book/intro
    chapters:
      - file: book/tiny
      - file: book/bad
    ''')


def pytest_configure(config):
    """Point the kernels nbval starts at a throwaway copy of the smoke references' results store
    (``tests/notebooks/results``): a re-executed chapter reads the others' results from it and
    writes its own there, never into the repository."""
    import os
    import shutil
    import tempfile

    if os.environ.get("GREENELM_RESULTS_DIR"):
        return
    folder = Path(tempfile.mkdtemp(prefix="greenelm-nbval-results-"))
    committed = Path(__file__).parent / "notebooks" / "results"
    if committed.is_dir():
        shutil.copytree(committed, folder, dirs_exist_ok=True)
    os.environ["GREENELM_RESULTS_DIR"] = str(folder)
    config.add_cleanup(lambda: shutil.rmtree(folder, ignore_errors=True))


@pytest.fixture(params=["cpu", "cuda"])
def torch_device(request) -> str:
    """The torch device of a test of the torch paths: "cpu" everywhere (torch's CPU device runs the
    code CUDA runs), and "cuda" where torch sees a GPU (skipped elsewhere). Skips without torch."""
    torch = pytest.importorskip("torch")
    if request.param == "cuda" and not torch.cuda.is_available():
        pytest.skip("no CUDA device on this machine")
    return request.param


def pytest_ignore_collect(collection_path, config):
    """Keep nbval away from the runner's partial notebooks of failed runs (``<name>.failed.ipynb``;
    its in-flight temporaries end in ``.tmp``, not ``.ipynb``)."""
    name = collection_path.name
    if name.endswith(".failed.ipynb"):
        return True
    return None


@pytest.fixture(scope="session")
def tiny_project(tmp_path_factory) -> SimpleNamespace:
    """A temporary project with a good chapter ``tiny`` (figure, glue, citation) and a failing
    chapter ``bad``; ``toc`` lists both, ``toc_tiny`` only ``tiny`` (for the book build)."""
    root = tmp_path_factory.mktemp("tiny-project")
    (root / "notebooks").mkdir()
    (root / "params").mkdir()
    (root / "notebooks" / "tiny.py").write_text(TINY)
    (root / "notebooks" / "bad.py").write_text(BAD)
    for profile, width in (("smoke", 5), ("full", 7)):
        (root / "params" / f"{profile}.yml").write_text(f"tiny: {{width: {width}}}\nbad: {{}}\n")
    (root / "_toc.yml").write_text(TOC)
    (root / "_toc_tiny.yml").write_text(TOC.replace("  - file: book/bad\n", ""))
    return SimpleNamespace(root=root, notebooks=root / "notebooks", params=root / "params",
                           toc=root / "_toc.yml", toc_tiny=root / "_toc_tiny.yml")


@pytest.fixture(scope="session")
def tiny_executed(tiny_project, tmp_path_factory) -> SimpleNamespace:
    """``tiny`` executed once by the runner at the smoke profile with the override seed=3."""
    from greenelm_book.running.execute import execute_chapter

    out = tmp_path_factory.mktemp("tiny-out")
    path = execute_chapter("tiny", "smoke", out, {"seed": 3}, notebooks_dir=tiny_project.notebooks,
                           params_dir=tiny_project.params, progress=False)
    return SimpleNamespace(out=out, path=Path(path), project=tiny_project)
