"""Catastrophic forgetting on a class-incremental stream: exact RLS against SGD with and without replay.

The classes arrive in tasks (CIFAR-10: 5 tasks of 2 classes); each learner sees a task's rows once
it arrives and never again, except what a replay buffer keeps. All three learners read the same
hidden features ``H`` (N, d) and fit the same model class, a linear readout ``H @ W`` (d, k) over
all k classes, so only the learning rule differs:

* ``"exact RLS"`` — :class:`greenelm.streaming.StreamingRidge` updated batch by batch: after every
  task it is the ridge solution on every row seen so far, with no row kept.
* ``"SGD, no replay"`` — a softmax readout (``torch.nn.Linear(d, k)``, cross-entropy, Adam)
  trained ``epochs`` epochs on each task's rows only.
* ``"SGD with replay"`` — the same, each task's epochs running over the task's rows and a
  bounded buffer of ``buffer_size`` earlier rows (reservoir sampling, seeded).

After each task every learner is scored on the test rows of the classes seen so far, its argmax
taken over those classes (the usual class-incremental protocol): the accuracy on all seen
classes, on the *earlier* classes (the tasks before the current one) and on the first task's.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from greenelm._validation import check_positive_int
from greenelm.streaming import StreamingRidge

__all__ = ["METHODS", "class_tasks", "final_gaps", "forgetting_experiment", "forgetting_run"]

METHODS = ("exact RLS", "SGD, no replay", "SGD with replay")


def class_tasks(classes, n_tasks: int) -> list[np.ndarray]:
    """``classes`` (k,) cut into ``n_tasks`` consecutive groups of equal size (k divisible)."""
    classes = np.asarray(classes)
    n_tasks = check_positive_int("n_tasks", n_tasks)
    if classes.ndim != 1 or len(classes) == 0 or len(np.unique(classes)) != len(classes):
        raise ValueError(f"classes must be a 1-D array of distinct labels, got {classes!r}")
    if len(classes) % n_tasks:
        raise ValueError(f"n_tasks={n_tasks} does not divide the {len(classes)} classes into equal tasks")
    return list(classes.reshape(n_tasks, -1))


def _check_split(H_train, y_train, H_test, y_test):
    H_train, H_test = np.asarray(H_train), np.asarray(H_test)
    y_train, y_test = np.asarray(y_train), np.asarray(y_test)
    if H_train.ndim != 2 or H_test.ndim != 2 or H_train.shape[1] != H_test.shape[1]:
        raise ValueError(f"H_train and H_test must be 2-D with the same width d; got "
                         f"{H_train.shape} and {H_test.shape}")
    if len(H_train) != len(y_train) or len(H_test) != len(y_test):
        raise ValueError(f"rows of H and y differ: H_train {len(H_train)}, y_train {len(y_train)}, "
                         f"H_test {len(H_test)}, y_test {len(y_test)}")
    if not (np.isfinite(H_train).all() and np.isfinite(H_test).all()):
        raise ValueError("H_train and H_test must be finite")
    return H_train, y_train, H_test, y_test


def _scores_accuracy(scores, y_test, classes, seen, subset) -> float:
    """Accuracy (%) on the test rows labelled in ``subset``, argmax over the ``seen`` classes."""
    columns = np.flatnonzero(np.isin(classes, seen))
    rows = np.isin(y_test, subset)
    predicted = classes[columns[np.argmax(scores[rows][:, columns], axis=1)]]
    return 100.0 * float(np.mean(predicted == y_test[rows]))


def _reservoir(buffer: np.ndarray, seen: int, rows: np.ndarray, size: int, rng) -> tuple[np.ndarray, int]:
    """Reservoir sampling (Algorithm R): ``buffer`` (indices) after offering ``rows`` in order."""
    buffer = list(buffer)
    for row in rows:
        if len(buffer) < size:
            buffer.append(row)
        else:
            slot = int(rng.integers(0, seen + 1))
            if slot < size:
                buffer[slot] = row
        seen += 1
    return np.asarray(buffer, dtype=np.int64), seen


def forgetting_run(H_train, y_train, H_test, y_test, method: str, n_tasks: int = 5, seed: int = 0,
                   alpha: float = 1e-3, batch_size: int = 500, epochs: int = 5, lr: float = 1e-3,
                   minibatch: int = 128, buffer_size: int = 2000) -> pd.DataFrame:
    """One learner (``method``, one of :data:`METHODS`) through the class-incremental stream.

    ``H_train`` (N, d), ``y_train`` (N,), ``H_test`` (M, d), ``y_test`` (M,); tasks are
    :func:`class_tasks` of the sorted training labels, their rows taken in data order (RLS in
    batches of ``batch_size``). Returns one row per task: ``method``, ``seed``, ``task`` (1-based),
    ``rows_seen``, ``stored_rows`` (rows the learner keeps), ``accuracy_seen``,
    ``accuracy_earlier`` (NaN after the first task), ``accuracy_first`` and ``accuracy_current`` (%).
    """
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, got {method!r}")
    H_train, y_train, H_test, y_test = _check_split(H_train, y_train, H_test, y_test)
    batch_size, epochs = check_positive_int("batch_size", batch_size), check_positive_int("epochs", epochs)
    minibatch = check_positive_int("minibatch", minibatch)
    buffer_size = check_positive_int("buffer_size", buffer_size)
    classes = np.unique(y_train)
    tasks = class_tasks(classes, n_tasks)
    if not np.isin(y_test, classes).all():
        raise ValueError("y_test holds labels that are not in y_train")
    Y_train = (y_train[:, None] == classes[None, :]).astype(np.float64)
    rng = np.random.default_rng(seed)
    if method == "exact RLS":
        state = None
    else:
        import torch

        torch.manual_seed(seed)
        generator = torch.Generator().manual_seed(seed)
        model = torch.nn.Linear(H_train.shape[1], len(classes))
        optimizer = torch.optim.Adam(model.parameters(), lr=lr)
        H32 = torch.as_tensor(H_train, dtype=torch.float32)
        labels = torch.as_tensor(np.searchsorted(classes, y_train))
        H_test32 = torch.as_tensor(H_test, dtype=torch.float32)
        buffer, offered = np.empty(0, dtype=np.int64), 0
    records, seen_rows = [], 0
    for t, task in enumerate(tasks):
        rows = np.flatnonzero(np.isin(y_train, task))
        if len(rows) == 0:
            raise ValueError(f"task {t + 1} (classes {list(task)}) has no training rows")
        if method == "exact RLS":
            for start in range(0, len(rows), batch_size):
                batch = rows[start:start + batch_size]
                if state is None:
                    state = StreamingRidge(alpha).fit(H_train[batch], Y_train[batch])
                else:
                    state.update(H_train[batch], Y_train[batch])
            scores = H_test @ state.coef_
            stored = 0
        else:
            train_rows = rows if method == "SGD, no replay" else np.concatenate([rows, buffer])
            index = torch.as_tensor(train_rows)
            for _ in range(epochs):
                for part in index[torch.randperm(len(index), generator=generator)].split(minibatch):
                    optimizer.zero_grad(set_to_none=True)
                    loss = torch.nn.functional.cross_entropy(model(H32[part]), labels[part])
                    loss.backward()
                    optimizer.step()
            if method == "SGD with replay":
                buffer, offered = _reservoir(buffer, offered, rows, buffer_size, rng)
            with torch.no_grad():
                scores = model(H_test32).numpy()
            stored = len(buffer) if method == "SGD with replay" else 0
        seen_rows += len(rows)
        seen = np.concatenate(tasks[:t + 1])
        earlier = np.concatenate(tasks[:t]) if t else None
        records.append({
            "method": method, "seed": seed, "task": t + 1, "rows_seen": seen_rows, "stored_rows": stored,
            "accuracy_seen": _scores_accuracy(scores, y_test, classes, seen, seen),
            "accuracy_earlier": (np.nan if earlier is None
                                 else _scores_accuracy(scores, y_test, classes, seen, earlier)),
            "accuracy_first": _scores_accuracy(scores, y_test, classes, seen, tasks[0]),
            "accuracy_current": _scores_accuracy(scores, y_test, classes, seen, task)})
    return pd.DataFrame(records)


def forgetting_experiment(X_train, y_train, X_test, y_test, n_hidden: int, seeds, methods=METHODS,
                          weight_scale: str = "he", bias: str = "normal", **options) -> pd.DataFrame:
    """:func:`forgetting_run` of every method and seed on Green-ELM features of X (N, D).

    Each seed draws its own projection ``RandomReLUFeatures(D, n_hidden, seed, weight_scale,
    bias)`` (shared by the methods) and seeds SGD's initialisation, shuffling and buffer;
    ``options`` go to :func:`forgetting_run`. Returns the runs' rows, concatenated.
    """
    from greenelm.features import RandomReLUFeatures

    from .streaming_harness import hidden_features

    seeds = [int(s) for s in seeds]
    if not seeds:
        raise ValueError("seeds must name at least one seed")
    frames = []
    for seed in seeds:
        features = RandomReLUFeatures(np.asarray(X_train).shape[1], n_hidden, seed,
                                      weight_scale=weight_scale, bias=bias)
        H_train, H_test = hidden_features(features, X_train), hidden_features(features, X_test)
        for method in methods:
            frames.append(forgetting_run(H_train, y_train, H_test, y_test, method, seed=seed, **options))
    return pd.concat(frames, ignore_index=True)


def final_gaps(runs: pd.DataFrame, quantity: str = "accuracy_earlier",
               reference: str = "exact RLS") -> pd.DataFrame:
    """Per seed, after the last task: ``reference``'s ``quantity`` minus every other method's."""
    last = runs[runs.task == runs.task.max()].pivot(index="seed", columns="method", values=quantity)
    if reference not in last:
        raise ValueError(f"no runs of {reference!r} in runs")
    return pd.DataFrame({m: last[reference] - last[m] for m in last.columns if m != reference})
