"""Reads from many threads at once: the first read after ``partial_fit`` solves the readout once,
under the object's lock; every reader gets the model ``fit`` gives on the same rows, and no
gathered row is lost.  Reads interleaved with ``partial_fit`` see the model before or after each
call, never part of one.  The kernel-limit estimators refuse a second concurrent fit, and their
readers during a refit see the previous model whole, the new one whole, or ``NotFittedError``.

Each case runs ``GREENELM_THREAD_TRIALS`` trials (default 30); the threads of a trial start
together at a ``threading.Barrier``.
"""

import copy
import io
import os
import pickle
import threading

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.exceptions import NotFittedError

from greenelm import (ELMClassifier, ELMClassifierCV, ELMRegressor, KernelLimitClassifier, KernelLimitRegressor,
                      StreamingRidge, load_model)
from greenelm import kernel_limit

TRIALS = int(os.environ.get("GREENELM_THREAD_TRIALS", "30"))
TOLERANCE = 1e-10
N_ROWS, N_INPUTS, N_HIDDEN = 240, 6, 40
BATCHES = (slice(0, 100), slice(100, 200), slice(200, 240))


def torch_or_skip(device):
    """Skip without torch, and on "cuda" where torch sees no GPU."""
    if device is not None:
        torch = pytest.importorskip("torch")
        if device == "cuda" and not torch.cuda.is_available():
            pytest.skip("torch sees no GPU")


def data(seed: int = 0):
    rng = np.random.default_rng(seed)
    X = rng.random((N_ROWS, N_INPUTS))
    y = (X[:, 0] + X[:, 1] > 1).astype(int) + (X[:, 2] > 0.7)          # three classes
    return X, y


def close(a, b) -> bool:
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    return a.shape == b.shape and float(np.max(np.abs(a - b))) <= TOLERANCE * max(1.0, float(np.max(np.abs(b))))


def race(n_threads: int, work):
    """Run ``work(i)`` in ``n_threads`` threads released together; → (results, errors)."""
    barrier = threading.Barrier(n_threads)
    results, errors = [None] * n_threads, []

    def run(i):
        try:
            barrier.wait(30)
            results[i] = work(i)
        except BaseException as error:           # noqa: BLE001 — every failure is reported
            errors.append(error)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(n_threads)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert not any(thread.is_alive() for thread in threads), "a reader never returned (deadlock?)"
    return results, errors


def streamed(make, X, y, read_between: bool):
    """``make()`` fed X, y by partial_fit in three batches (a read after the first when asked)."""
    model = make()
    for i, rows in enumerate(BATCHES):
        kwargs = {"classes": np.unique(y)} if i == 0 and isinstance(model, ELMClassifier) else {}
        model.partial_fit(X[rows], y[rows], **kwargs)
        if read_between and i == 0:
            model.decision_function(X[:5]) if isinstance(model, ELMClassifier) else model.predict(X[:5])
    return model


READS = ("decision_function", "predict", "coef_", "score", "pickle")


@pytest.mark.parametrize("device", [None, "cpu", "cuda"], ids=["numpy", "torch-cpu", "cuda"])
@pytest.mark.parametrize("method", ["normal", "rls"])
def test_the_first_read_from_many_threads_at_once_gives_fit_s_model(method, device):
    torch_or_skip(device)
    X, y = data()
    make = lambda: ELMClassifier(n_hidden=N_HIDDEN, chunk_size=64, partial_fit_method=method,  # noqa: E731
                                 device=device, random_state=0)
    reference = make().fit(X, y)
    expected = {"decision_function": reference.decision_function(X), "predict": reference.predict(X),
                "coef_": reference.coef_, "score": reference.score(X, y)}
    rng = np.random.default_rng(1)
    failures = []
    for trial in range(TRIALS):
        model = streamed(make, X, y, read_between=trial % 3 == 2)
        n_threads = int(rng.integers(2, 9))
        reads = [READS[(trial + i) % len(READS)] for i in range(n_threads)]

        def read(i):
            if reads[i] == "coef_":
                return model.coef_
            if reads[i] == "score":
                return model.score(X, y)
            if reads[i] == "pickle":
                return pickle.loads(pickle.dumps(model)).decision_function(X)
            return getattr(model, reads[i])(X)

        results, errors = race(n_threads, read)
        if errors:
            failures.append(f"trial {trial}: {type(errors[0]).__name__}: {errors[0]}")
            continue
        for what, got in zip(reads, results):
            want = expected["decision_function" if what == "pickle" else what]
            same = np.array_equal(got, want) if what == "predict" else close(got, want)
            if not same:
                failures.append(f"trial {trial}: a thread's {what} differs from fit's")
        if not close(model.decision_function(X), expected["decision_function"]):
            failures.append(f"trial {trial}: the model differs from fit's after the race")
        state = model.stream_ if method == "rls" else model.equations_
        if state.n_samples != N_ROWS:
            failures.append(f"trial {trial}: the state holds {state.n_samples} rows, not {N_ROWS}")
    failed = len({failure.split(":")[0] for failure in failures})
    assert not failures, f"{failed} of {TRIALS} trials failed: {failures[:5]}"


@pytest.mark.parametrize("method", ["normal", "rls"])
def test_a_regressor_s_first_read_from_many_threads(method):
    X, _ = data()
    y = np.sin(3 * X[:, :2])                                               # two outputs
    make = lambda: ELMRegressor(n_hidden=N_HIDDEN, chunk_size=64, partial_fit_method=method,  # noqa: E731
                                random_state=0)
    expected = make().fit(X, y).predict(X)
    for trial in range(TRIALS):
        model = streamed(make, X, y, read_between=trial % 2 == 1)
        results, errors = race(2 + trial % 7, lambda i: model.predict(X))
        assert not errors, f"trial {trial}: {errors[0]!r}"
        assert all(close(got, expected) for got in results), f"trial {trial}: a thread's predictions differ"
        assert close(model.predict(X), expected)


@pytest.mark.parametrize("device", [None, "cpu", "cuda"], ids=["numpy", "torch-cpu", "cuda"])
@pytest.mark.parametrize("method", ["normal", "rls"])
def test_reads_interleaved_with_partial_fit_see_a_whole_model(method, device):
    """One thread streams six batches; readers read all the while.  Each read equals the model fit
    on some prefix of the batches (the model before or after a partial_fit, never part of one), and
    the final model equals fit on all rows."""
    torch_or_skip(device)
    X, y = data(2)
    edges = [0, 40, 80, 120, 160, 200, 240]
    make = lambda: ELMClassifier(n_hidden=N_HIDDEN, chunk_size=64, partial_fit_method=method,  # noqa: E731
                                 device=device, random_state=0)
    X_eval = X[::7]
    prefixes = [make().fit(X[:stop], y[:stop]).decision_function(X_eval) for stop in edges[1:]]
    for trial in range(max(1, TRIALS // 3)):
        model = make().partial_fit(X[:40], y[:40], classes=np.unique(y))
        done = threading.Event()
        n_readers = 1 + trial % 4

        def work(i):
            if i == 0:                                                   # the writer
                try:
                    for start, stop in zip(edges[1:-1], edges[2:]):
                        model.partial_fit(X[start:stop], y[start:stop])
                finally:
                    done.set()
                return None
            seen = []
            while not done.is_set() or not seen:
                seen.append(model.decision_function(X_eval))
            return seen

        results, errors = race(1 + n_readers, work)
        assert not errors, f"trial {trial}: {errors[0]!r}"
        for seen in results[1:]:
            for got in seen:
                assert any(close(got, prefix) for prefix in prefixes), \
                    f"trial {trial}: a read matches no prefix of the batches (a partial model)"
        assert close(model.decision_function(X_eval), prefixes[-1])


def test_streaming_ridge_under_threads_keeps_every_row():
    """StreamingRidge in gathering mode: threads that update and threads that read at once; the
    state ends as the ridge on all rows, and every coef_ read is the ridge on some set of whole
    batches (the reads' rows counted)."""
    rng = np.random.default_rng(3)
    H, Y = rng.random((400, 30)), rng.random((400, 2))
    whole = StreamingRidge(alpha=1e-2).fit(H, Y).coef_
    for trial in range(TRIALS):
        state = StreamingRidge(alpha=1e-2, block_rows=64).fit(H[:40], Y[:40])
        batches = [slice(start, start + 40) for start in range(40, 400, 40)]
        n_threads = 2 + trial % 7

        def work(i):
            for rows in batches[i::n_threads]:
                state.update(H[rows], Y[rows])
                width = state.coef_.shape                                  # a read between updates
                assert width == (30, 2)
            return state.coef_

        _, errors = race(n_threads, work)
        assert not errors, f"trial {trial}: {errors[0]!r}"
        assert state.n_samples == 400
        assert close(state.coef_, whole), f"trial {trial}: rows were lost or applied twice"

    first_reads = StreamingRidge(alpha=1e-2, block_rows=1000).fit(H[:40], Y[:40])
    first_reads.update(H[40:], Y[40:])                                   # waits: 360 < 1000 rows
    results, errors = race(6, lambda i: first_reads.coef_.copy())
    assert not errors and all(close(got, whole) for got in results)


def test_reads_after_fit_from_many_threads_and_the_lock_is_no_attribute():
    X, y = data(4)
    model = ELMClassifierCV(n_hidden=N_HIDDEN, alphas=[1e-3, 1e-1, 10.0]).fit(X, y)
    expected = model.decision_function(X)
    results, errors = race(8, lambda i: model.decision_function(X))
    assert not errors and all(np.array_equal(got, expected) for got in results)

    streamed_model = streamed(lambda: ELMClassifier(n_hidden=N_HIDDEN, partial_fit_method="rls"), X, y, False)
    race(4, lambda i: streamed_model.predict(X))
    assert "lock" not in " ".join(vars(streamed_model)).lower()
    assert set(streamed_model.get_params()) == set(ELMClassifier().get_params())
    for twin in (copy.deepcopy(streamed_model), pickle.loads(pickle.dumps(streamed_model))):
        np.testing.assert_array_equal(twin.decision_function(X), streamed_model.decision_function(X))
        twin.partial_fit(X[:10], y[:10])                               # the copy streams on its own
    assert clone(streamed_model).get_params() == streamed_model.get_params()


# -- the kernel-limit estimators: one fit at a time, readers see a whole model ------------------------
def held_kernel(monkeypatch):
    """Hold every kernel-limit fit after its inputs were validated, until ``release`` is set;
    → (started, release) events."""
    started, release = threading.Event(), threading.Event()
    build = kernel_limit._averaged_kernel

    def slow(*args, **kwargs):
        started.set()
        assert release.wait(30)
        return build(*args, **kwargs)

    monkeypatch.setattr(kernel_limit, "_averaged_kernel", slow)
    return started, release


def kernel_reads(model, X):
    """Every read of a kernel-limit model: {name: what it returns}."""
    file = io.BytesIO()
    model.save(file)
    file.seek(0)
    reads = {"predict": model.predict(X), "pickle": pickle.loads(pickle.dumps(model)).predict(X),
             "save": load_model(file).predict(X)}
    if hasattr(model, "decision_function"):
        reads["decision_function"] = model.decision_function(X)
    return reads


def same_reads(got: dict, want: dict) -> bool:
    return got.keys() == want.keys() and all(close(got[name], want[name]) for name in want)


@pytest.mark.parametrize("cls", [KernelLimitClassifier, KernelLimitRegressor])
def test_a_second_kernel_limit_fit_is_refused_and_readers_see_the_previous_model_whole(cls, monkeypatch):
    X, y = data(5)
    old, new = (X[:120], y[:120]), (X[120:], y[120:] if cls is KernelLimitClassifier else 1.5 * y[120:] + 1)
    model = cls(jitter=1e-2).fit(*old)
    before = kernel_reads(model, X)
    after = kernel_reads(cls(jitter=1e-2).fit(*new), X)
    started, release = held_kernel(monkeypatch)
    refit = threading.Thread(target=model.fit, args=new, name="first-fit")
    refit.start()
    assert started.wait(30)
    with pytest.raises(RuntimeError, match="while thread 'first-fit' is fitting the same estimator "
                                           r"object.*sklearn.base.clone"):
        model.fit(*old)
    results, errors = race(6, lambda i: kernel_reads(model, X))      # during the refit: the old model
    assert not errors, repr(errors[0])
    assert all(same_reads(got, before) for got in results)
    release.set()
    refit.join(30)
    assert not refit.is_alive() and same_reads(kernel_reads(model, X), after)
    model.fit(*old)                                                   # once it is done, fit works again
    assert same_reads(kernel_reads(model, X), before)


def test_readers_during_a_first_fit_get_not_fitted_and_a_failed_refit_leaves_no_model(monkeypatch):
    X, y = data(6)
    model = KernelLimitClassifier(jitter=1e-2)
    started, release = held_kernel(monkeypatch)
    first = threading.Thread(target=model.fit, args=(X, y))
    first.start()
    assert started.wait(30)
    for read in (model.predict, model.decision_function):
        with pytest.raises(NotFittedError):
            read(X)
    with pytest.raises(NotFittedError):
        model.save(io.BytesIO())
    release.set()
    first.join(30)
    expected = model.predict(X)
    assert np.array_equal(expected, KernelLimitClassifier(jitter=1e-2).fit(X, y).predict(X))

    model.set_params(jitter=0.0)                      # at zero jitter, repeated rows do not factorise
    with pytest.raises(np.linalg.LinAlgError, match="jitter"):
        model.fit(np.vstack([X, X]), np.concatenate([y, y]))
    assert not hasattr(model, "dual_coef_") and not hasattr(model, "classes_")
    with pytest.raises(NotFittedError):
        model.predict(X)


def test_kernel_limit_readers_racing_refits_see_one_whole_model_or_the_other():
    X, y = data(7)
    parts = [(X[:120], y[:120]), (X[100:], y[100:])]
    expected = [kernel_reads(KernelLimitClassifier(jitter=1e-2).fit(*part), X) for part in parts]
    model = KernelLimitClassifier(jitter=1e-2).fit(*parts[0])
    failures = []
    for trial in range(max(TRIALS // 3, 4)):
        n_threads = 2 + trial % 5

        def work(i):
            if i == 0:
                model.fit(*parts[(trial + 1) % 2])
                return None
            return kernel_reads(model, X)

        results, errors = race(n_threads, work)
        if errors:
            failures.append(f"trial {trial}: {type(errors[0]).__name__}: {errors[0]}")
        failures += [f"trial {trial}: a read's {name} matches neither fit's model" for got in results[1:]
                     for name in got if not any(close(got[name], want[name]) for want in expected)]
        if not same_reads(kernel_reads(model, X), expected[(trial + 1) % 2]):
            failures.append(f"trial {trial}: the model after the race is not the last fit's")
    assert not failures, failures[:5]
