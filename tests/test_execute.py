"""greenelm_book.execute: the *Re-run this chapter* box is one text whoever writes it."""

from __future__ import annotations

from greenelm_book.execute import rerun_box


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
