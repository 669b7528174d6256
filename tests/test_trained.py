"""greenelm_book.chapters.trained (models kept for the entropy and rotation chapters) and perturb.paired_difference."""

import numpy as np
import pytest
from scipy.stats import t

from greenelm_book.chapters import trained
from greenelm_book.chapters.perturb import paired_difference
from greenelm_book.store.results import ChapterResults

SUBSET = 300


@pytest.fixture(autouse=True)
def _cache(tmp_path, monkeypatch):
    monkeypatch.setenv("GREENELM_CACHE", str(tmp_path / "cache"))


def test_elm_run_keeps_the_fitted_readout_and_its_accuracy():
    from greenelm.data import load_dataset
    from greenelm.estimator import ELMClassifier

    run = trained.elm_run("mnist", 50, 3, "cholesky", 1e-3, "unit", SUBSET)
    ds = load_dataset("mnist", subset=SUBSET)
    model = ELMClassifier(n_hidden=50, solver="cholesky", alpha=1e-3, weight_scale="unit", random_state=3)
    model.fit(ds.flat("train"), ds.y_train)
    assert run["readout"].shape == (50, 10)
    np.testing.assert_allclose(run["readout"], model.coef_)
    assert tuple(run["angles"]) == trained.ANGLES and run["accuracy"].shape == (len(trained.ANGLES),)
    assert trained.at_angle(run, 0) == pytest.approx(100 * model.score(ds.flat("test"), ds.y_test))
    assert (run["n_train"], run["n_test"]) == (SUBSET, SUBSET)
    # a second call reads the same run; another seed is another model
    again = trained.elm_run("mnist", 50, 3, "cholesky", 1e-3, "unit", SUBSET)
    np.testing.assert_array_equal(again["readout"], run["readout"])
    other = trained.elm_run("mnist", 50, 4, "cholesky", 1e-3, "unit", SUBSET)
    assert not np.allclose(other["readout"], run["readout"])


def test_rotation_lowers_accuracy_and_pinv_ignores_alpha():
    run = trained.elm_run("mnist", 100, 0, "pinv", 123.0, "unit", SUBSET)
    same = trained.elm_run("mnist", 100, 0, "pinv", 1e-3, "unit", SUBSET)
    np.testing.assert_array_equal(run["readout"], same["readout"])
    assert trained.at_angle(run, 45) < trained.at_angle(run, 0)


def test_sgd_run_weights_are_the_layers_of_the_trained_model():
    from greenelm_book.chapters.baselines import SGDConfig, train
    from greenelm.data import load_dataset

    run = trained.sgd_run("mnist", "mlp", 1, epochs=1, subset=SUBSET)
    assert {k: v.shape for k, v in run["weights"].items()} == {"0": (784, 64), "2": (64, 10)}
    ds = load_dataset("mnist", subset=SUBSET)
    direct = train("mlp", ds.flat("train"), ds.y_train, 1, SGDConfig(epochs=1))
    np.testing.assert_allclose(run["weights"]["0"], direct.model[0].weight.detach().double().numpy().T)
    assert trained.at_angle(run, 0) == pytest.approx(100 * np.mean(direct.predict(ds.flat("test")) == ds.y_test))
    perceptron = trained.sgd_run("mnist", "perceptron", 1, epochs=1, subset=SUBSET)
    assert {k: v.shape for k, v in perceptron["weights"].items()} == {"": (784, 10)}


@pytest.mark.parametrize("call", [
    lambda: trained.elm_run("mnist", 50, 0, solver="svd", subset=SUBSET),
    lambda: trained.elm_run("mnist", 0, 0, subset=SUBSET),
    lambda: trained.elm_run("mnist", 50, 0, weight_scale="xavier", subset=SUBSET),
    lambda: trained.elm_run("mnist", 50, 0, alpha=0.0, subset=SUBSET),
    lambda: trained.elm_run("mnist", 50, 0, subset=-5),
    lambda: trained.sgd_run("mnist", "cnn", 0, subset=SUBSET),
    lambda: trained.sgd_run("mnist", "mlp", 0, epochs=0, subset=SUBSET),
])
def test_bad_arguments_are_refused(call):
    with pytest.raises(ValueError):
        call()


def test_at_angle_refuses_an_angle_not_evaluated():
    with pytest.raises(ValueError, match="not one of the evaluated angles"):
        trained.at_angle({"angles": np.array([0.0, 5.0]), "accuracy": np.array([90.0, 80.0])}, 7)


def test_owned_result_uses_the_owner_only_in_the_same_setting(tmp_path):
    owner = ChapterResults("baselines", "smoke", tmp_path)
    owner.record("mnist/sgd-mlp/accuracy", [90.0, 91.0], "%", n_train=300, seeds=[0, 1], epochs=10)
    reader = ChapterResults("rotation", "smoke", tmp_path)
    result, why = trained.owned_result(reader, "baselines", "mnist/sgd-mlp/accuracy", ours=[90.0, 91.0],
                                       n_train=300, seeds=[0, 1], epochs=10)
    assert result is not None and result.values == (90.0, 91.0) and why == ""
    result, why = trained.owned_result(reader, "baselines", "mnist/sgd-mlp/accuracy", n_train=2000)
    assert result is None and "n_train 300 there, 2000 here" in why
    result, why = trained.owned_result(reader, "baselines", "mnist/sgd-mlp/accuracy", ours=[90.0, 92.0])
    assert result is None and "differs" in why
    result, why = trained.owned_result(reader, "baselines", "mnist/sgd-perceptron/accuracy")
    assert result is None and "not in this results directory" in why
    result, why = trained.owned_result(reader, "random_features", "mnist/sgd-mlp/accuracy")
    assert result is None


def test_paired_difference_is_the_t_interval_of_the_differences():
    a, b = np.array([3.0, 5.0, 4.0, 6.0]), np.array([1.0, 2.0, 2.0, 3.0])
    mean, lo, hi = paired_difference(a, b)
    diff = a - b
    half = t.ppf(0.975, 3) * diff.std(ddof=1) / 2
    assert mean == pytest.approx(diff.mean())
    assert (lo, hi) == pytest.approx((diff.mean() - half, diff.mean() + half))
    # swapping the arguments mirrors the interval; a wider level widens it
    assert paired_difference(b, a) == pytest.approx((-mean, -hi, -lo))
    assert paired_difference(a, b, 0.99)[2] > hi


@pytest.mark.parametrize("a, b, level", [([1.0], [2.0], 0.95), ([1.0, 2.0], [1.0], 0.95),
                                         ([1.0, np.nan], [1.0, 2.0], 0.95), ([1.0, 2.0], [1.0, 3.0], 1.5)])
def test_paired_difference_refuses_bad_input(a, b, level):
    with pytest.raises(ValueError):
        paired_difference(a, b, level)


def test_fallback_note_names_every_result_not_used():
    assert trained.fallback_note({"a/accuracy": "", "b/accuracy": ""}) == ""
    note = trained.fallback_note({
        "a/accuracy": "the baselines chapter's result a/accuracy is not in this results directory",
        "b/accuracy": "the baselines chapter's b/accuracy has another setting (n_train 1 there, 2 here)",
        "c/accuracy": ""})
    assert "not in this results directory (a/accuracy)" in note and "n_train 1 there, 2 here" in note
    assert "c/accuracy" not in note
