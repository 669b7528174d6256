"""greenelm_book.chapters.solver_timing: one timed fit per seed, cached, with the accuracy of the same fit."""

import pytest

from greenelm.estimator import ELMClassifier
from greenelm_book.chapters.experiments import load_split
from greenelm_book.chapters.solver_timing import quiet_fit_times


@pytest.fixture
def split(monkeypatch, tmp_path):
    monkeypatch.setenv("GREENELM_CACHE", str(tmp_path))
    try:
        return load_split("mnist", subset=300)
    except (FileNotFoundError, OSError, RuntimeError) as error:
        pytest.skip(f"MNIST not available: {error}")


def test_one_timed_fit_per_seed_with_its_accuracy_then_cached(split):
    first = quiet_fit_times("mnist", "unit", 30, "cholesky", seeds=[0, 3], subset=300)
    assert len(first["seconds"]) == 2 and all(s > 0 for s in first["seconds"])
    assert (first["n_train"], first["n_test"], first["cached"]) == (300, 300, False)
    for seed, accuracy in zip([0, 3], first["accuracy"]):
        model = ELMClassifier(n_hidden=30, solver="cholesky", weight_scale="unit", random_state=seed)
        assert accuracy == pytest.approx(100 * model.fit(split.X_train, split.y_train)
                                         .score(split.X_test, split.y_test))
    again = quiet_fit_times("mnist", "unit", 30, "cholesky", seeds=[0, 3], subset=300)
    assert again["cached"] and again["seconds"] == first["seconds"]


@pytest.mark.parametrize("kwargs, words", [({"solver": "qr"}, "solver"), ({"n_hidden": 0}, "n_hidden"),
                                           ({"seeds": []}, "at least one seed")])
def test_bad_settings_are_named(split, kwargs, words):
    settings = {"dataset": "mnist", "weight_scale": "unit", "n_hidden": 10, "solver": "lu",
                "subset": 300, **kwargs}
    with pytest.raises(ValueError, match=words):
        quiet_fit_times(**settings)
