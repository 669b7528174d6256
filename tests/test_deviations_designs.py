"""The deviations page's "Draws across d" row (greenelm_book.summaries.deviations._designs): each nested
design says which test accuracies it gives, so the page cannot read as if the accuracies at the paper's
widths (one draw per width, as the scaling chapter says) came from the nested draw."""

from __future__ import annotations

from greenelm_book.summaries import deviations as dv

_NEST16 = "first d units of one width-16000 draw per seed"
_NEST4 = "first d units of one width-4000 draw per seed"


def _result(dataset, d, design=None, runs=1, **more):
    setting = {"dataset": dataset, "n_hidden": d, "alpha": 0.001, **more}
    if design:
        setting["design"] = design
    return {"setting": setting, "values": [90.0] * runs}


def _results():
    out = {}
    for dataset in ("mnist", "fashion-mnist", "cifar10"):
        for d in (500, 1000, 2000, 4000):        # the paper's widths: the shared sweep, one draw per width
            out[f"{dataset}/green-elm/unit/cholesky/d={d}/accuracy"] = ("random_features", _result(dataset, d))
            out[f"{dataset}/green-elm/unit/cholesky/d={d}/train-accuracy"] = (
                "scaling", _result(dataset, d, _NEST16, evaluated_on="3000 random training rows"))
        for d in (8000, 16000):
            out[f"{dataset}/green-elm/unit/cholesky/d={d}/accuracy"] = ("scaling", _result(dataset, d, _NEST16))
    for d in (500, 1000, 4000):
        out[f"cifar10/green-elm/unit/cholesky/nested-in-d=4000/d={d}/accuracy"] = (
            "scaling", _result("cifar10", d, _NEST4, runs=5))
    return out


def test_each_nested_design_names_the_test_accuracies_it_gives():
    text = dv._designs(_results())
    wide, narrow = text.split("; ")[:2]
    assert wide.startswith("MNIST, Fashion-MNIST and CIFAR-10, d = 500 to 16,000: the first d units of one "
                           "16,000-wide draw with one seed (")
    assert "the test accuracies at d = 8,000 and 16,000 and the other quantities at every width it spans" in wide
    # the planted defect: the old row read "… at d = 500 to 16,000: the first d units of one 16,000-wide draw"
    # with nothing saying that the test accuracies at 500 to 4,000 are independent draws
    assert "2,000" not in wide.split("test accuracies")[1]
    # the seeds each design holds, counted from its results (a one-seed draw is not "one draw per seed")
    assert narrow.startswith("CIFAR-10, d = 500 to 4,000: the first d units of one 4,000-wide draw per seed, 5 seeds (")
    assert "a second set of test accuracies at d = 500, 1,000 and 4,000, beside one draw per width" in narrow
    assert text.endswith("every other result one draw per width (the test accuracies at the other widths "
                         "among them)")


def test_no_nested_design_is_not_recorded():
    assert dv._designs({}) == dv._NOT_RECORDED


def test_the_weight_scale_row_names_each_chapters_scales_from_the_store():
    """The row said "both, at every width and seed" while most chapters ran N(0, 1) only."""
    results = {"a": ("random_features", {"setting": {"weight_scale": "unit"}}),
               "b": ("random_features", {"setting": {"weight_scale": "he"}}),
               "c": ("scaling", {"setting": {"weight_scale": "unit"}}),
               "d": ("cifar10", {"setting": {"weight_scale": "he"}}),
               "e": ("scale_out", {"setting": {}})}
    assert dv._scales_text(results) == ("both in random features; $\\mathcal N(0, 1)$ only in scaling; "
                                        "$\\mathcal N(0, 2/D)$ only in CIFAR-10 (by chapter, as each result "
                                        "records its scale)")
    assert dv._scales_text({}) == dv._NOT_RECORDED
