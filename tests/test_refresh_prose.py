"""``runner refresh-prose``: a prose-only edit reaches the executed chapter without executing it, and
anything more is refused (greenelm_book.running.prose)."""

from __future__ import annotations

import datetime
import shutil

import nbformat
import pytest

from greenelm_book.running import freshness, runner
from greenelm_book.running.prose import ProseRefreshError, glue_references, refresh_prose

NOW = datetime.datetime(2026, 12, 2, 4, 30, tzinfo=datetime.timezone.utc)


@pytest.fixture
def edited(tiny_executed, tmp_path):
    """A copy of the executed tiny chapter and of its sources, whose prose a test edits."""
    out, notebooks = tmp_path / "out", tmp_path / "notebooks"
    out.mkdir()
    shutil.copy(tiny_executed.path, out / "tiny.ipynb")
    shutil.copytree(tiny_executed.project.notebooks, notebooks)
    return out, notebooks, tiny_executed.project


def _outputs(nb) -> list:
    return [(c.source, c.get("execution_count"), c.outputs) for c in nb.cells if c.cell_type == "code"]


def test_glue_references_are_read_from_roles_and_directives():
    text = ("A {glue:text}`gap:.2f` and {glue:}`width`, {glue}`n` twice {glue:text}`gap`.\n"
            "```{glue:figure} fig_a\n:name: x\n```\n")
    assert glue_references(text) == ["gap", "width", "n", "fig_a"]


def test_a_prose_edit_is_applied_without_executing_and_the_chapter_is_fresh(edited):
    out, notebooks, project = edited
    before = nbformat.read(out / "tiny.ipynb", as_version=4)
    kw = dict(toc=project.toc_tiny, notebooks_dir=notebooks, params_dir=project.params)
    source = notebooks / "tiny.py"
    source.write_text(source.read_text().replace("# The width is", "# The chosen width is")
                      + "\n# %% [markdown]\n# A closing line, width {glue:text}`tiny_width`.\n")
    assert freshness.stale_chapters(out, **kw) == ["tiny"]

    refresh_prose("tiny", out, notebooks_dir=notebooks, now=NOW)

    after = nbformat.read(out / "tiny.ipynb", as_version=4)
    nbformat.validate(after)
    assert _outputs(after) == _outputs(before)            # every code cell, output and count kept
    prose = [c.source for c in after.cells if c.cell_type == "markdown"
             and "greenelm-rerun" not in c.metadata.get("tags", [])]
    assert prose[0].startswith("# A tiny chapter") and "The chosen width is {glue:}`tiny_width`" in prose[0]
    assert prose[-1] == "A closing line, width {glue:text}`tiny_width`."
    assert after.cells[-1].cell_type == "markdown"          # in the source's order
    assert sum("greenelm-rerun" in c.metadata.get("tags", []) for c in after.cells) == 1
    meta = after.metadata["greenelm"]
    assert meta["prose_refreshed_at"] == "2026-12-02T04:30:00+00:00"
    assert meta["source_sha256"] != before.metadata["greenelm"]["source_sha256"]
    assert {k: v for k, v in meta.items() if k not in ("source_sha256", "prose_refreshed_at")} == \
        {k: v for k, v in before.metadata["greenelm"].items() if k != "source_sha256"}
    assert freshness.stale_chapters(out, **kw) == []
    refresh_prose("tiny", out, notebooks_dir=notebooks, now=NOW)                 # a second time: the same
    assert nbformat.read(out / "tiny.ipynb", as_version=4) == after


def test_a_changed_code_cell_is_refused_and_the_notebook_left_as_it_was(edited):
    out, notebooks, _ = edited
    before = (out / "tiny.ipynb").read_bytes()
    source = notebooks / "tiny.py"
    source.write_text(source.read_text().replace('ax.set_title("tiny")', 'ax.set_title("small")'))
    with pytest.raises(ProseRefreshError, match=r"code cell 3 of .*tiny\.py differs .*'ax\.set_title\(\"tiny\"\)'"):
        refresh_prose("tiny", out, notebooks_dir=notebooks)
    source.write_text(source.read_text() + "\n# %%\nprint(1)\n")                  # one more code cell
    with pytest.raises(ProseRefreshError, match="code cell"):
        refresh_prose("tiny", out, notebooks_dir=notebooks)
    assert (out / "tiny.ipynb").read_bytes() == before


def test_a_glue_name_no_output_glues_is_refused_by_name(edited):
    out, notebooks, project = edited
    before = (out / "tiny.ipynb").read_bytes()
    source = notebooks / "tiny.py"
    source.write_text(source.read_text().replace("{glue:}`tiny_width`",
                                                 "{glue:}`tiny_width` ({glue:text}`tiny_depth:.1f`, {glue:text}`nope`)"))
    with pytest.raises(ProseRefreshError, match=r"glue name\(s\) no output .* glues: nope, tiny_depth$"):
        refresh_prose("tiny", out, notebooks_dir=notebooks)
    assert (out / "tiny.ipynb").read_bytes() == before
    # the command line says the same and exits 1
    common = ["--out", str(out), "--chapter", "tiny", "--notebooks", str(notebooks), "--toc", str(project.toc_tiny)]
    assert runner.main(["refresh-prose", *common]) == 1
    source.write_text(source.read_text().replace(" ({glue:text}`tiny_depth:.1f`, {glue:text}`nope`)", " (edited)"))
    assert runner.main(["refresh-prose", *common]) == 0
    assert "(edited)" in (out / "tiny.ipynb").read_text()
