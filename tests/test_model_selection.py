"""GCV and exact leave-one-out from one eigendecomposition equal their brute-force definitions."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from greenelm.model_selection import RidgePath
from greenelm.solvers import NormalEquations, solve_normal_equations

ALPHAS = [1e-2, 0.3, 10.0]


@pytest.fixture(scope="module")
def problem():
    rng = np.random.default_rng(7)
    H = np.maximum(rng.standard_normal((90, 25)) @ rng.standard_normal((25, 40)), 0)   # rank-deficient
    Y = np.eye(4)[rng.integers(0, 4, 90)]
    equations = NormalEquations(40, 4)
    for rows in (slice(0, 50), slice(50, 90)):
        equations.update(H[rows], Y[rows])
    path = RidgePath(equations.gram, equations.hty, float((Y**2).sum()), 90)
    return H, Y, equations, path


def test_weights_equal_the_cholesky_solve(problem):
    H, Y, equations, path = problem
    for alpha in ALPHAS:
        np.testing.assert_allclose(path.weights(alpha),
                                   solve_normal_equations(equations.gram, equations.hty, alpha), rtol=1e-7,
                                   atol=1e-9)


def test_gcv_equals_the_hat_matrix_definition(problem):
    H, Y, _, path = problem
    table = path.gcv(ALPHAS)
    for i, alpha in enumerate(ALPHAS):
        row = SimpleNamespace(**{key: column[i] for key, column in table.items()})
        S = H @ np.linalg.solve(H.T @ H + alpha * np.eye(40), H.T)
        rss = np.sum((Y - S @ Y) ** 2)
        assert row.dof == pytest.approx(np.trace(S), rel=1e-9)
        assert row.train_rss == pytest.approx(rss, rel=1e-7)
        assert row.gcv == pytest.approx(90 * rss / (90 - np.trace(S)) ** 2, rel=1e-7)


def test_leave_one_out_equals_ninety_refits(problem):
    H, Y, _, path = problem
    table = path.leave_one_out(ALPHAS, [(H[:33], Y[:33]), (H[33:], Y[33:])])
    for i, alpha in enumerate(ALPHAS):
        row = SimpleNamespace(**{key: column[i] for key, column in table.items()})
        errors, hits = 0.0, 0
        for j in range(90):
            keep = np.arange(90) != j
            W = np.linalg.solve(H[keep].T @ H[keep] + alpha * np.eye(40), H[keep].T @ Y[keep])
            prediction = H[j] @ W
            errors += np.sum((Y[j] - prediction) ** 2)
            hits += prediction.argmax() == Y[j].argmax()
        assert row.loo_mse == pytest.approx(errors / 90, rel=1e-6)
        assert row.loo_accuracy == pytest.approx(100 * hits / 90)


def test_leave_one_out_on_a_sample_of_rows_equals_their_refits(problem):
    H, Y, _, path = problem
    rows = [3, 40, 41, 77]
    table = path.leave_one_out([0.3], [(H[rows], Y[rows])], sample=True)
    errors = 0.0
    for j in rows:
        keep = np.arange(90) != j
        W = np.linalg.solve(H[keep].T @ H[keep] + 0.3 * np.eye(40), H[keep].T @ Y[keep])
        errors += np.sum((Y[j] - H[j] @ W) ** 2)
    assert table["loo_mse"][0] == pytest.approx(errors / len(rows), rel=1e-6)
    with pytest.raises(ValueError, match="a sample of the 90 training rows"):
        path.leave_one_out([0.3], [(H, Y), (H[:5], Y[:5])], sample=True)


def test_bad_arguments_are_named(problem):
    H, Y, equations, path = problem
    with pytest.raises(ValueError, match="λ must be > 0"):
        path.gcv([0.0])
    with pytest.raises(ValueError, match="blocks held 33 rows"):
        path.leave_one_out([1.0], [(H[:33], Y[:33])])
    with pytest.raises(ValueError, match="yty"):
        RidgePath(equations.gram, equations.hty, -1.0, 90)


def test_loo_from_rotated_rows_and_an_overwritten_gram_equal_the_plain_path():
    rng = np.random.default_rng(7)
    H, Y = rng.random((80, 12)), np.eye(3)[rng.integers(0, 3, 80)]
    plain = RidgePath(H.T @ H, H.T @ Y, float((Y**2).sum()), 80)
    gram = np.asfortranarray(H.T @ H)
    lean = RidgePath(gram, H.T @ Y, float((Y**2).sum()), 80, overwrite_gram=True)
    np.testing.assert_allclose(lean.weights(0.1), plain.weights(0.1), rtol=1e-10)
    alphas = [0.01, 0.1, 1.0]
    reference = plain.leave_one_out(alphas, [(H[:40], Y[:40]), (H[40:], Y[40:])])
    rotated = lean.leave_one_out(alphas, [(lean.rotate(H), Y)], rotated=True)
    for column in ("loo_mse", "loo_accuracy"):
        np.testing.assert_allclose(rotated[column], reference[column], rtol=1e-9)
    with pytest.raises(ValueError, match=r"H must be \(b, d=12\), got \(80, 11\)"):
        lean.rotate(H[:, :11])
