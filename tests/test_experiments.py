"""Nested widths are exact sub-models of the widest one; the results cache recomputes when it must."""

from __future__ import annotations

import numpy as np
import pytest

from greenelm_book import experiments
from greenelm_book.experiments import Split, accumulate_wide, memoize, nested_widths, ridge_path_table


@pytest.fixture(scope="module")
def split():
    rng = np.random.default_rng(0)
    centres = rng.uniform(0, 1, (3, 10))
    y = rng.integers(0, 3, 400)
    X = np.clip(centres[y] + 0.3 * rng.standard_normal((400, 10)), 0, 1)
    return Split("toy", X[:300], y[:300], X[300:], y[300:])


def test_nested_width_equals_a_ridge_fit_on_the_first_units(split):
    wide = accumulate_wide(split, 60, seed=4, chunk_rows=70, progress=False)
    table, correct = nested_widths(wide, [10, 35, 60], alpha=1e-3)
    H, T = wide.features.transform(split.X_train), wide.features.transform(split.X_test)
    Y = np.eye(3)[split.y_train]
    for d, row, hits in zip([10, 35, 60], table.itertuples(), correct):
        W2 = np.linalg.solve(H[:, :d].T @ H[:, :d] + 1e-3 * np.eye(d), H[:, :d].T @ Y)
        expected = (T[:, :d] @ W2).argmax(1) == split.y_test
        np.testing.assert_array_equal(hits, expected)
        assert row.accuracy == pytest.approx(100 * expected.mean())
    with pytest.raises(ValueError, match="exceeds"):
        nested_widths(wide, [61])


def test_ridge_path_table_matches_direct_fits(split):
    wide = accumulate_wide(split, 40, seed=1, chunk_rows=64, progress=False)
    table = ridge_path_table(wide, split, 25, [1e-2, 1.0], chunk_rows=64)
    direct, _ = nested_widths(wide, [25], alpha=1.0)
    assert table.set_index("alpha").loc[1.0, "test_accuracy"] == pytest.approx(direct.accuracy[0])
    assert list(table.columns[:2]) == ["n_hidden", "alpha"] and {"gcv", "loo_accuracy"} <= set(table.columns)


def test_memoize_caches_atomically_and_keys_on_params(tmp_path, monkeypatch):
    monkeypatch.setenv("GREENELM_CACHE", str(tmp_path))
    calls = []

    def compute():
        calls.append(1)
        return {"value": len(calls)}

    first, info = memoize("unit", {"a": 1}, compute)
    again, info_again = memoize("unit", {"a": 1}, compute)
    other, _ = memoize("unit", {"a": 2}, compute)
    assert (first, again, other) == ({"value": 1}, {"value": 1}, {"value": 2})
    assert not info["cached"] and info_again["cached"]
    assert not list(experiments.cache_dir().glob("*.tmp*"))
    refreshed, info_refresh = memoize("unit", {"a": 1}, compute, refresh=True)
    assert refreshed == {"value": 3} and not info_refresh["cached"]


def test_nested_widths_fall_back_to_lu_when_cholesky_fails(split, monkeypatch):
    wide = accumulate_wide(split, 30, seed=2, chunk_rows=100, progress=False)
    reference, _ = nested_widths(wide, [30], alpha=1e-3, solver="lu")
    real = experiments.solve_normal_equations

    def failing(gram, hty, alpha, solver="cholesky"):
        if solver == "cholesky":
            raise np.linalg.LinAlgError("not positive definite")
        return real(gram, hty, alpha, solver)

    monkeypatch.setattr(experiments, "solve_normal_equations", failing)
    table, _ = nested_widths(wide, [30], alpha=1e-3)
    assert table.solver[0] == "lu (cholesky failed)"
    assert table.accuracy[0] == reference.accuracy[0]
