"""greenelm_book.running.execute: the *Re-run this chapter* box is one text whoever writes it."""

from __future__ import annotations

import pytest

from greenelm_book.running.execute import rerun_box


def test_the_rerun_box_does_not_depend_on_the_order_of_nested_parameters():
    """The runner writes the box from the parameters in profile order, the build from the
    provenance read back from JSON (sorted at every depth): both must give the same text."""
    as_run = {"profile": "full", "parameters": {"seed": 0, "augment": {"mnist": ["shift"], "cifar10": ["flip"]},
                                                "widths": [4000, 500]}}
    read_back = {"profile": "full", "parameters": {"augment": {"cifar10": ["flip"], "mnist": ["shift"]},
                                                   "seed": 0, "widths": [4000, 500]}}
    box = rerun_box("frontier", as_run)
    assert box == rerun_box("frontier", read_back)
    assert box.index("cifar10") < box.index("mnist") and "[4000, 500]" in box    # lists keep their order
    assert box.index("augment") < box.index("seed")


def test_a_chapter_runs_after_the_chapters_it_reads_and_the_summaries_run_last():
    from greenelm_book.running.toc import READS_FROM, chapters, execution_order

    names = chapters()
    order = execution_order(names)
    assert sorted(order) == sorted(names) and order[-2:] == ["scorecard", "conclusion"]
    assert order.index("cifar10") < order.index("scaling") < order.index("frontier")
    for chapter, sources in READS_FROM.items():
        assert all(order.index(s) < order.index(chapter) for s in sources), chapter
    assert execution_order(["scaling", "entropy"]) == ["scaling", "entropy"]      # toc order kept otherwise
    with pytest.raises(ValueError, match="cycle"):
        execution_order(["a", "b"], {"a": ("b",), "b": ("a",)})


def test_every_read_the_store_records_is_of_a_chapter_executed_before():
    """The committed results' reads (``ChapterResults.get``) are declared in ``toc.READS_FROM``, so a
    fresh full run executes each source first."""
    import json
    from pathlib import Path

    from greenelm_book.running.toc import READS_FROM

    for path in sorted((Path(__file__).resolve().parents[1] / "book" / "results").glob("*.json")):
        data = json.loads(path.read_text())
        sources = {key.split(":", 1)[0] for key in data.get("reads", {})}
        assert sources <= set(READS_FROM.get(data["chapter"], ())), (data["chapter"], sources)
