"""Build the HTML book with jupyter-book (warnings are errors).

The repository's ``book/`` is built in place (``_build/html``); any other folder of executed
chapters is staged beside a copy of the book's other files. The two generated pages,
:data:`ENVIRONMENT_PAGE` (from the chapters' provenance) and :data:`SCORECARD_SUMMARY` (from their
results store, included by the intro), are written at each build; the repository commits them for
``book/`` so that a plain ``jupyter-book build .`` of a clean checkout renders the same book
(``tests/test_pipeline.py`` checks that the committed ones are what a build would write).

Each chapter's page is made by :func:`greenelm_book.running.execute.present` before the build (its
parameters cells hidden, the *Re-run this chapter* box from its provenance): the runner does it at
execution, and the build again for notebooks executed before (``book/<name>.ipynb`` rewritten in
place when it changes, a staged copy otherwise); no output and no provenance changes.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import yaml

from .environment import ENVIRONMENT_PAGE, environment_page
from .execute import present_file
from .toc import BOOK, BUILD, CONFIG, ROOT, TOC, chapters, pages, relative

#: files of the book besides the chapters, copied when a book is staged
BOOK_FILES = ("book/intro.md", "book/references.bib", "_static/greenelm.css")
#: generated at each build from the results store of the chapters being rendered (included by the intro)
SCORECARD_SUMMARY = "book/scorecard_summary.md"


class BuildError(RuntimeError):
    """``jupyter-book build`` failed (or the book could not be staged)."""


#: set (e.g. by the Pages workflow, from github.server_url/github.repository) to link the book to
#: its repository: the repository button and source links in the rendered pages
REPOSITORY_ENV = "GREENELM_REPOSITORY_URL"


def book_config(config: Path = CONFIG) -> str:
    """``_config.yml``'s text, with ``repository.url`` and the repository button set from
    ``$GREENELM_REPOSITORY_URL`` when that is set (else unchanged)."""
    text = config.read_text()
    url = os.environ.get(REPOSITORY_ENV, "").strip()
    if not url:
        return text
    if not re.fullmatch(r"https://[\w.-]+/[\w.-]+/[\w.-]+", url):
        raise ValueError(f"{REPOSITORY_ENV}={url!r}: expected https://host/owner/repository")
    data = yaml.safe_load(text)
    data.setdefault("repository", {})["url"] = url
    data.setdefault("html", {}).update(use_repository_button=True, use_issues_button=True)
    return yaml.safe_dump(data, sort_keys=False)


def _jupyter_book(args: list[str], cwd: Path, quiet: bool) -> None:
    cmd = [sys.executable, "-c", "from jupyter_book.cli.main import main; main()", "build", *args]
    kwargs = {"stdout": subprocess.PIPE, "stderr": subprocess.STDOUT, "text": True} if quiet else {}
    proc = subprocess.run(cmd, cwd=cwd, **kwargs)
    if proc.returncode != 0:
        tail = ("\n" + proc.stdout[-6000:]) if quiet and proc.stdout else ""
        raise BuildError(f"jupyter-book build failed (exit {proc.returncode}){tail}")


def _sync(src: Path, dst: Path) -> None:
    dst.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy2(src, dst)


def generated_pages(source_dir: str | Path, toc: str | Path | None = None) -> dict[str, str]:
    """{page (relative to the book's root): text} of the pages written from ``source_dir``'s executed
    chapters: the scorecard summary and the intro's headline findings (both from
    ``source_dir/results``) and, when the toc lists it, the environment page. For ``book/`` they are
    committed (a clean checkout builds as it is)."""
    from ..summaries.bottom_line import HEADLINE_PAGE, headline_markdown
    from ..summaries.deviations import DEVIATIONS_PAGE, deviations_markdown
    from ..summaries.scorecard import summary_markdown

    source_dir = Path(source_dir)
    out = {SCORECARD_SUMMARY: summary_markdown(source_dir / "results"),
           HEADLINE_PAGE: headline_markdown(source_dir / "results"),
           DEVIATIONS_PAGE: deviations_markdown(source_dir / "results")}
    if ENVIRONMENT_PAGE in pages(toc):
        out[ENVIRONMENT_PAGE] = environment_page(source_dir, toc)
    return out


def write_generated_pages(source_dir: str | Path, root: str | Path = ROOT, toc: str | Path | None = None,
                          generated: dict[str, str] | None = None) -> list[Path]:
    """Write :func:`generated_pages` (or ``generated``, when given) under ``root`` (the repository's,
    by default); return their paths. A page whose text is unchanged is not rewritten."""
    written = []
    for rel, text in (generated if generated is not None else generated_pages(source_dir, toc)).items():
        path = Path(root) / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.is_file() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
        written.append(path)
    return written


def build_html(source_dir: str | Path, *, toc: str | Path | None = None,
               build_root: str | Path | None = None, quiet: bool = False) -> Path:
    """Render the book with ``jupyter-book build -W --keep-going --all``; return the html folder.

    ``source_dir`` = ``book`` (the repository's): build the repository root in place ->
    ``_build/html``. Any other folder of executed chapters: stage ``_config.yml``, the toc,
    ``book/intro.md``, ``book/references.bib``, the static pages, the pages generated from
    ``source_dir`` (:func:`generated_pages`) and ``source_dir/<name>.ipynb`` as
    ``book/<name>.ipynb`` in ``<build_root>/stage-<dir name>/``, build it, and copy the result to
    ``<build_root>/<dir name>/html`` (``build_root`` defaults to ``_build``).
    Raises :class:`BuildError` when a chapter notebook is missing or the build fails (warnings
    are errors).
    """
    source_dir = Path(source_dir).resolve()
    toc_path = Path(toc).resolve() if toc is not None else TOC
    names = chapters(toc_path)
    missing = [n for n in names if not (source_dir / f"{n}.ipynb").is_file()]
    if missing:
        raise BuildError(f"{relative(source_dir)} lacks executed chapters: "
                         + ", ".join(f"{n}.ipynb" for n in missing)
                         + " (run: python -m greenelm_book.running.runner run --profile ... --out "
                         + f"{relative(source_dir)})")
    build_root = Path(build_root).resolve() if build_root is not None else BUILD
    opts = ["--warningiserror", "--keep-going", "--all"]
    if source_dir == BOOK.resolve() and build_root == BUILD:
        for n in names:
            present_file(source_dir / f"{n}.ipynb")
        write_generated_pages(source_dir, ROOT, toc_path)
        extra = [] if toc is None else ["--toc", str(toc_path)]
        if os.environ.get(REPOSITORY_ENV):
            BUILD.mkdir(parents=True, exist_ok=True)
            (BUILD / "_config.yml").write_text(book_config())
            extra += ["--config", str(BUILD / "_config.yml")]
        _jupyter_book([str(ROOT), *opts, *extra], ROOT, quiet)
        return BUILD / "html"

    stage = build_root / f"stage-{source_dir.name}"
    if stage.exists():
        shutil.rmtree(stage)
    stage.mkdir(parents=True)
    (stage / "_config.yml").write_text(book_config())
    _sync(toc_path, stage / "_toc.yml")
    generated = generated_pages(source_dir, toc_path)
    for rel in (*BOOK_FILES, *pages(toc_path)):
        if rel not in generated:
            _sync(ROOT / rel, stage / rel)
    write_generated_pages(source_dir, stage, toc_path, generated)
    for n in names:
        _sync(source_dir / f"{n}.ipynb", stage / "book" / f"{n}.ipynb")
        present_file(stage / "book" / f"{n}.ipynb")
    _jupyter_book([str(stage), *opts], stage, quiet)
    html = build_root / source_dir.name / "html"
    if html.exists():
        shutil.rmtree(html)
    shutil.copytree(stage / "_build" / "html", html)
    return html
