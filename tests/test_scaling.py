"""Algorithm 2 reproduces Table III from the paper's own figure points; the fits behave as stated."""

from __future__ import annotations

import numpy as np
import pytest

from greenelm_book import paper
from greenelm_book.chapters.scaling_law import calibrate_complexity, fit_hypothesis, model_residuals, spectral_entropy

WIDTHS = [500, 1000, 2000, 4000]


def _paper_curves() -> dict:
    fig = paper.FIG_SCALING
    return {name: fig[fig.dataset == name].sort_values("n_hidden").accuracy.to_numpy() / 100
            for name in ("mnist", "fashion-mnist", "cifar10")}


def test_algorithm2_on_the_paper_figure_gives_table_iii():
    calibration = calibrate_complexity(WIDTHS, _paper_curves())
    table = paper.TABLE_III
    assert round(calibration.alpha, 4) == table["alpha"]
    assert round(calibration.beta, 4) == table["beta"]
    assert calibration.complexity["mnist"] == 1.0
    assert round(calibration.complexity["fashion-mnist"], 4) == table["C_fashion-mnist"]
    assert round(calibration.complexity["cifar10"], 4) == table["C_cifar10"]


def test_subtracting_beta_does_not_change_the_slopes():
    curves = _paper_curves()
    calibration = calibrate_complexity(WIDTHS, curves)
    for name, acc in curves.items():
        slope = np.polyfit(np.log(WIDTHS), acc, 1)[0]
        assert calibration.slopes[name] == pytest.approx(slope, rel=1e-12)


def test_model_residuals_are_zero_only_where_the_model_was_fitted():
    curves = _paper_curves()
    calibration = calibrate_complexity(WIDTHS, curves)
    residuals = model_residuals(calibration, WIDTHS, curves)
    mnist = residuals[residuals.dataset == "mnist"].residual
    assert abs(mnist.sum()) < 1e-12                      # OLS residuals sum to zero
    fashion = residuals[residuals.dataset == "fashion-mnist"].residual
    assert fashion.abs().min() > 0.05                     # β is MNIST's, 5+ points off Fashion's curve


def test_hypothesis_recovers_synthetic_parameters():
    psi, gamma = 0.05, 0.7
    entropies = {"a": 1.0, "b": 2.0, "c": 3.5}
    intercepts = {"a": 0.5, "b": 0.4, "c": 0.2}
    x = np.log(WIDTHS)
    curves = {k: psi * x / entropies[k] ** gamma + intercepts[k] for k in entropies}
    fit = fit_hypothesis(WIDTHS, curves, entropies)
    assert fit.psi == pytest.approx(psi, rel=1e-10)
    assert fit.gamma == pytest.approx(gamma, rel=1e-10)
    for k in entropies:
        np.testing.assert_allclose(fit.predict(WIDTHS, k), curves[k], rtol=1e-10)


def test_bad_inputs_are_named():
    with pytest.raises(ValueError, match="fractions"):
        calibrate_complexity(WIDTHS, {"mnist": [89.2, 94.0, 97.15, 98.1]})
    with pytest.raises(ValueError, match="anchor"):
        calibrate_complexity(WIDTHS, {"fashion-mnist": [0.8, 0.81, 0.82, 0.83]})
    with pytest.raises(ValueError, match="3 accuracies for 4 widths"):
        calibrate_complexity(WIDTHS, {"mnist": [0.8, 0.81, 0.82]})
    with pytest.raises(ValueError, match="no entropy"):
        fit_hypothesis(WIDTHS, {"mnist": [0.8, 0.81, 0.82, 0.83]}, {})
    with pytest.raises(ValueError, match="NaN"):
        spectral_entropy(np.array([[0.0, np.nan], [1.0, 2.0]]))


def test_spectral_entropy_counts_effective_dimensions():
    rng = np.random.default_rng(0)
    isotropic = rng.standard_normal((20000, 8))
    assert 2 ** spectral_entropy(isotropic) == pytest.approx(8, rel=0.01)
    line = np.outer(rng.standard_normal(500), np.ones(8))
    assert spectral_entropy(line) == pytest.approx(0, abs=1e-6)
