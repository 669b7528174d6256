"""The class-incremental forgetting experiment (greenelm_book.chapters.forgetting)."""

import numpy as np
import pytest

pytest.importorskip("torch")

from greenelm.solvers import solve_normal_equations
from greenelm_book.chapters.forgetting import (
    METHODS,
    _reservoir,
    class_tasks,
    final_gaps,
    forgetting_experiment,
    forgetting_run,
)


def blobs(n_per_class=60, n_classes=4, dim=12, seed=0, spread=0.6):
    """Gaussian blobs, one per class, rows shuffled: (X (n, dim), y (n,))."""
    rng = np.random.default_rng(seed)
    centres = rng.normal(0, 3, (n_classes, dim))
    y = np.repeat(np.arange(n_classes), n_per_class)
    X = centres[y] + spread * rng.normal(size=(len(y), dim))
    order = rng.permutation(len(y))
    return X[order], y[order]


@pytest.fixture(scope="module")
def data():
    X, y = blobs(seed=0)
    Xt, yt = blobs(n_per_class=40, seed=0)   # same centres (same seed), fresh noise below
    rng = np.random.default_rng(1)
    Xt = Xt + 0.1 * rng.normal(size=Xt.shape)
    return np.abs(X), y, np.abs(Xt), yt


def test_class_tasks_cuts_consecutive_equal_groups():
    tasks = class_tasks(np.arange(10), 5)
    assert [list(t) for t in tasks] == [[0, 1], [2, 3], [4, 5], [6, 7], [8, 9]]
    with pytest.raises(ValueError, match="does not divide"):
        class_tasks(np.arange(10), 3)
    with pytest.raises(ValueError, match="distinct labels"):
        class_tasks(np.array([0, 0, 1, 1]), 2)
    with pytest.raises(ValueError, match="n_tasks"):
        class_tasks(np.arange(4), 0)


def test_rls_after_the_last_task_is_the_batch_ridge_solution(data):
    H, y, Ht, yt = data
    run = forgetting_run(H, y, Ht, yt, "exact RLS", n_tasks=2, batch_size=7, alpha=1e-2)
    classes = np.unique(y)
    Y = (y[:, None] == classes).astype(float)
    W = solve_normal_equations(H.T @ H, H.T @ Y, 1e-2, "cholesky")
    expected = 100 * np.mean(classes[np.argmax(Ht @ W, 1)] == yt)
    last = run.iloc[-1]
    assert last.accuracy_seen == pytest.approx(expected)
    assert list(run.task) == [1, 2] and list(run.rows_seen) == [120, 240]
    assert (run.stored_rows == 0).all()
    assert np.isnan(run.accuracy_earlier.iloc[0]) and np.isfinite(run.accuracy_earlier.iloc[1])


def test_sgd_without_replay_forgets_and_rls_does_not(data):
    H, y, Ht, yt = data
    runs = {m: forgetting_run(H, y, Ht, yt, m, n_tasks=2, epochs=30, lr=1e-2, buffer_size=20)
            for m in METHODS}
    assert runs["exact RLS"].accuracy_first.iloc[-1] > 90
    assert runs["SGD, no replay"].accuracy_first.iloc[0] > 90          # it had learned task 1 ...
    assert runs["SGD, no replay"].accuracy_earlier.iloc[-1] < 50       # ... and lost it
    assert runs["SGD with replay"].accuracy_earlier.iloc[-1] > runs["SGD, no replay"].accuracy_earlier.iloc[-1]
    assert runs["SGD with replay"].stored_rows.iloc[-1] == 20
    assert (runs["SGD, no replay"].stored_rows == 0).all()


def test_same_seed_same_runs_other_seed_other_sgd(data):
    H, y, Ht, yt = data
    a = forgetting_run(H, y, Ht, yt, "SGD with replay", n_tasks=2, seed=3, epochs=2, buffer_size=10)
    b = forgetting_run(H, y, Ht, yt, "SGD with replay", n_tasks=2, seed=3, epochs=2, buffer_size=10)
    c = forgetting_run(H, y, Ht, yt, "SGD with replay", n_tasks=2, seed=4, epochs=2, buffer_size=10,
                       lr=1e-4)
    assert a.equals(b)
    assert not a[["accuracy_seen", "accuracy_first"]].equals(c[["accuracy_seen", "accuracy_first"]])


def test_reservoir_keeps_a_bounded_seeded_sample_of_offered_rows():
    rng = np.random.default_rng(0)
    buffer, seen = _reservoir(np.empty(0, dtype=np.int64), 0, np.arange(5), 8, rng)
    assert list(buffer) == [0, 1, 2, 3, 4] and seen == 5
    buffer, seen = _reservoir(buffer, seen, np.arange(100, 1100), 8, rng)
    assert len(buffer) == 8 and seen == 1005
    assert set(buffer) <= set(range(5)) | set(range(100, 1100))
    replay = lambda seed: _reservoir(np.arange(5), 5, np.arange(100, 1100), 8,
                                     np.random.default_rng(seed))[0]
    assert np.array_equal(replay(1), replay(1)) and not np.array_equal(replay(1), replay(2))
    assert (replay(1) >= 100).sum() >= 4        # later rows replace early ones at rate size/seen


def test_experiment_draws_features_per_seed_and_gaps_are_rls_minus_other(data):
    X, y, Xt, yt = data
    runs = forgetting_experiment(X, y, Xt, yt, 30, seeds=[0, 1], n_tasks=2, epochs=3, buffer_size=10)
    assert len(runs) == 2 * len(METHODS) * 2
    assert set(map(tuple, runs[["seed", "method"]].drop_duplicates().to_numpy())) == {
        (s, m) for s in (0, 1) for m in METHODS}
    gaps = final_gaps(runs)
    last = runs[runs.task == 2].set_index(["seed", "method"]).accuracy_earlier
    assert gaps.loc[1, "SGD, no replay"] == pytest.approx(last[(1, "exact RLS")] - last[(1, "SGD, no replay")])
    assert set(gaps.columns) == {"SGD, no replay", "SGD with replay"}


def test_bad_inputs_are_named(data):
    H, y, Ht, yt = data
    with pytest.raises(ValueError, match="method must be one of"):
        forgetting_run(H, y, Ht, yt, "adam")
    with pytest.raises(ValueError, match="rows of H and y differ"):
        forgetting_run(H, y[:-1], Ht, yt, "exact RLS", n_tasks=2)
    with pytest.raises(ValueError, match="same width"):
        forgetting_run(H, y, Ht[:, :-1], yt, "exact RLS", n_tasks=2)
    with pytest.raises(ValueError, match="not in y_train"):
        forgetting_run(H, y, Ht, yt + 10, "exact RLS", n_tasks=2)
    bad = H.copy()
    bad[0, 0] = np.nan
    with pytest.raises(ValueError, match="finite"):
        forgetting_run(bad, y, Ht, yt, "exact RLS", n_tasks=2)
    with pytest.raises(ValueError, match="buffer_size"):
        forgetting_run(H, y, Ht, yt, "SGD with replay", n_tasks=2, buffer_size=0)
    with pytest.raises(ValueError, match="seeds"):
        forgetting_experiment(H, y, Ht, yt, 10, seeds=[])
