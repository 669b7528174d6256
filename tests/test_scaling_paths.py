"""The scaling chapter's new experiment layer: per-seed Algorithm 2, the held-out test of ln d,
exact leave-one-out on a row subset, and the λ search that extends its grid."""

import numpy as np
import pytest

from greenelm_book.chapters.scaling_law import (RidgeAtWidth, calibrate_complexity, calibrate_per_seed, held_out_test,
                                   search_lambda)


def _problem(n=300, d=40, k=3, seed=0):
    rng = np.random.default_rng(seed)
    H = np.maximum(rng.standard_normal((n, d)), 0)
    labels = rng.integers(0, k, n)
    Y = np.eye(k)[labels]
    return H, Y, labels


def test_calibrate_per_seed_equals_algorithm2_on_each_seed():
    widths = [500, 1000, 2000, 4000]
    rng = np.random.default_rng(1)
    curves = {"mnist": 0.9 + 0.01 * np.log(widths) / 10 + rng.normal(0, 1e-3, (3, 4)),
              "fashion-mnist": 0.8 + 0.004 * np.log(widths) + rng.normal(0, 1e-3, (3, 4))}
    table = calibrate_per_seed(widths, curves)
    assert len(table) == 3
    for i in range(3):
        fit = calibrate_complexity(widths, {n: c[i] for n, c in curves.items()})
        assert table.loc[i, "alpha"] == pytest.approx(fit.alpha)
        assert table.loc[i, "C_fashion-mnist"] == pytest.approx(fit.complexity["fashion-mnist"])
    with pytest.raises(ValueError, match="same number of seeds"):
        calibrate_per_seed(widths, {"mnist": curves["mnist"], "fashion-mnist": curves["fashion-mnist"][:2]})


def test_held_out_test_prefers_the_law_that_generated_the_data():
    fit, held = np.array([500, 1000, 2000, 4000]), np.array([8000, 16000])
    saturating = lambda d: 98.0 - 300.0 * d ** -0.7
    test = held_out_test(fit, saturating(fit), held, saturating(held))
    assert test.saturating_error < 0.05 < test.log_error
    assert test.saturating_params[0] == pytest.approx(98.0, abs=0.1)      # the asymptote
    logarithmic = lambda d: 80.0 + 2.0 * np.log(d)
    test = held_out_test(fit, logarithmic(fit), held, logarithmic(held))
    assert test.log_error < 1e-8
    with pytest.raises(ValueError, match="exceed"):
        held_out_test(fit, saturating(fit), [3000], [97.0])


def test_loo_on_a_row_subset_equals_refits_without_each_row():
    H, Y, labels = _problem()
    rows = np.array([3, 50, 199])
    test_H, test_y = H[:20], labels[:20]
    ridge = RidgeAtWidth(np.triu(H.T @ H), H.T @ Y, H[rows], Y[rows], test_H, test_y)
    d, alpha = 25, 0.7
    out = ridge.evaluate(d, alpha)
    squared = []
    for j in rows:
        keep = np.ones(len(H), bool)
        keep[j] = False
        Hk = H[keep, :d]
        W = np.linalg.solve(Hk.T @ Hk + alpha * np.eye(d), Hk.T @ Y[keep])
        squared.append(np.sum((Y[j] - H[j, :d] @ W) ** 2))
    assert out["cholesky"]
    assert out["loo_mse"] == pytest.approx(np.mean(squared), rel=1e-8)
    W = np.linalg.solve(H[:, :d].T @ H[:, :d] + alpha * np.eye(d), H[:, :d].T @ Y)
    assert out["test_accuracy"] == pytest.approx(100 * np.mean((test_H[:, :d] @ W).argmax(1) == test_y))
    with pytest.raises(ValueError, match="λ"):
        ridge.evaluate(d, 0.0)
    with pytest.raises(ValueError, match="width"):
        ridge.evaluate(41, 1.0)


def test_search_lambda_extends_past_the_edge_until_the_minimum_is_interior():
    seen = []

    def evaluate(a):
        seen.append(a)
        return {"loo_mse": (np.log10(a) - 5.0) ** 2}       # minimum at λ = 1e5

    rows, interior = search_lambda(evaluate, [1e-3, 1.0, 1e3], factor=10)
    assert interior
    assert min(rows, key=lambda r: r["loo_mse"]) is rows[[r["loo_mse"] for r in rows].index(0.0)]
    assert max(seen) == pytest.approx(1e6) and len(seen) == len(set(seen)) == 6
    rows, interior = search_lambda(evaluate, [1e-3, 1e-2], factor=10, max_extend=2)
    assert not interior
    with pytest.raises(ValueError):
        search_lambda(evaluate, [1.0], factor=10)


def test_held_out_test_with_two_fit_points_fixes_c_at_one_half():
    law = lambda d: 95.0 - 100.0 * d ** -0.5
    test = held_out_test([500, 1000], law(np.array([500, 1000])), [4000], law(np.array([4000])))
    assert test.saturating_params == pytest.approx((95.0, 100.0, 0.5))
    assert test.saturating_error < 1e-9
