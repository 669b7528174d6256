"""greenelm_book.store.shown: a number a page prints beside a configuration's label is the store's.

Unit tests build a results dir and a page by hand (the outputs ``glue_result`` and ``keyed_table``
display, written into a notebook), then move the store or the page under it; the last test reads
every committed executed page against the results dir it was executed with.
"""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest

from greenelm_book.store import shown
from greenelm_book.store.results import ChapterResults

ROOT = Path(__file__).resolve().parents[1]
PAGE_DIRS = [ROOT / "book", ROOT / "tests" / "notebooks"]
KEY = "mnist/green-elm/unit/cholesky/d=2000/accuracy"
LATENCY = "mnist/green-elm/stream/d=2000/b=250/update-seconds"


@pytest.fixture
def store(tmp_path):
    store = ChapterResults("scaling", "smoke", tmp_path)
    store.record(KEY, [95.9, 96.0, 96.1], "%", dataset="mnist", n_hidden=2000)
    store.record(LATENCY, [0.5, 0.6, 0.7, 0.9], "s", dataset="mnist", n_hidden=2000, batch=250)
    return store


@pytest.fixture
def displayed(monkeypatch):
    """What ``glue_result`` displays, as notebook outputs."""
    outputs = []

    def display(bundle, raw=False, metadata=None):
        outputs.append(nbformat.v4.new_output("display_data", data=bundle, metadata=metadata or {}))

    import IPython.display

    monkeypatch.setattr(IPython.display, "display", display)
    return outputs


def _page(path: Path, outputs) -> Path:
    cell = nbformat.v4.new_code_cell("...", outputs=list(outputs))
    nbformat.write(nbformat.v4.new_notebook(cells=[cell]), path)
    return path


def _table_output(table):
    data, metadata = table._repr_mimebundle_()
    return nbformat.v4.new_output("display_data", data=data, metadata=metadata)


def test_result_text_prints_each_form_with_the_book_formatters():
    assert shown.result_text([95.9, 96.0, 96.1]) == "96.00"
    assert shown.result_text([95.9, 96.0, 96.1], "spread") == "96.00 ± 0.10"
    assert shown.result_text([0.5, 0.6, 0.7, 0.9], "median", 3, "s") == "median 0.650 s (IQR 0.575–0.750, n = 4)"
    with pytest.raises(ValueError, match="form must be one of"):
        shown.result_text([1.0], "max")
    with pytest.raises(ValueError, match="no runs"):
        shown.result_text([])


def test_a_glued_result_agrees_until_the_store_moves(store, displayed, tmp_path):
    assert shown.glue_result(store, "mnist_2000", KEY, form="spread") == "96.00 ± 0.10"
    assert shown.glue_result(store, "latency", LATENCY, form="median", digits=3).startswith("median 0.650 s")
    page = _page(tmp_path / "scaling.ipynb", displayed)
    entries = shown.shown_entries(page)
    assert [e["printed"] for e in entries] == ["96.00 ± 0.10", "median 0.650 s (IQR 0.575–0.750, n = 4)"]
    assert entries[0]["key"] == KEY and entries[0]["chapter"] == "scaling"
    assert shown.page_disagreements(page, tmp_path) == []

    moved = ChapterResults("scaling", "smoke", tmp_path)             # a re-execution: new values
    moved.record(KEY, [97.0, 97.1, 97.2], "%", dataset="mnist", n_hidden=2000)
    moved._save()
    problems = shown.page_disagreements(page, tmp_path)
    assert len(problems) == 2
    assert "printed as '96.00 ± 0.10', the store gives '97.10 ± 0.10'" in problems[0]
    assert LATENCY in problems[1] and "no longer recorded" in problems[1]


def test_a_page_edited_after_execution_is_caught(store, displayed, tmp_path):
    shown.glue_result(store, "mnist_2000", KEY)
    displayed[0]["data"]["application/papermill.record/text/plain"] = "'96.06'"
    problems = shown.page_disagreements(_page(tmp_path / "scaling.ipynb", displayed), tmp_path)
    assert problems == [f"scaling.ipynb: scaling:{KEY} printed as '96.06', the store gives '96.00'"]


def test_a_keyed_table_prints_the_stored_text_in_its_cells(store, tmp_path):
    import pandas as pd

    frame = pd.DataFrame({"d": [1000, 2000], "one nested draw (%)": [95.1, 96.06], "5 seeds (%)": [0.0, 0.0]})
    table = shown.keyed_table(store, frame, {(1, "5 seeds (%)"): ("scaling", KEY, "spread")}, integers=["d"])
    page = _page(tmp_path / "scaling.ipynb", [_table_output(table)])
    (entry,) = shown.shown_entries(page)
    assert entry["printed"] == "96.00 ± 0.10" and (entry["row"], entry["column"]) == (1, 2)
    assert shown.page_disagreements(page, tmp_path) == []

    nb = nbformat.read(page, as_version=4)                           # the cell's text changed by hand
    output = nb.cells[0].outputs[0]
    output["data"]["text/html"] = output["data"]["text/html"].replace("96.00 ± 0.10", "96.06")
    nbformat.write(nb, page)
    (problem,) = shown.page_disagreements(page, tmp_path)
    assert "printed as '96.06'" in problem


def test_a_keyed_table_refuses_a_cell_it_does_not_have(store):
    import pandas as pd

    with pytest.raises(KeyError, match=r"no cell \(5, 'x'\)"):
        shown.keyed_table(store, pd.DataFrame({"x": [1.0]}), {(5, "x"): KEY})


@pytest.mark.parametrize("folder", PAGE_DIRS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_executed_page_prints_the_store_values(folder):
    problems = [p for page in sorted(folder.glob("*.ipynb"))
                for p in shown.page_disagreements(page, folder / "results")]
    assert not problems, "\n".join(problems)


def test_the_streaming_page_ties_its_latencies_to_the_store():
    """The streaming chapter quotes listing 3's and our update latency through glue_result, so the
    page test above checks them (a re-execution that drops the tie fails here)."""
    entries = shown.shown_entries(ROOT / "book" / "streaming.ipynb")
    assert {e["key"].split("/")[3] for e in entries if e["form"] == "median"} >= {"listing3", "cholesky"}
    assert all(e["printed"].startswith("median ") for e in entries)
