"""The BLAS thread count and one process-wide thread pool, for NumPy work split between threads
(NumPy's ufuncs and BLAS calls release the GIL): the patch map's image blocks, the arc-cosine
kernel's elementwise transform; and the per-object locks that make an estimator's reads safe
from any number of threads (:func:`object_lock`)."""

from __future__ import annotations

import contextlib
import os
import threading
import weakref

_STATE = {}
#: object → its lock, held weakly: the lock is no attribute of the object, so ``clone``,
#: ``get_params``, pickles, copies and model files neither see nor share it (a copy gets its own)
_LOCKS: "weakref.WeakKeyDictionary[object, threading.RLock]" = weakref.WeakKeyDictionary()
_LOCKS_GUARD = threading.Lock()


def _after_fork_in_child() -> None:
    _STATE.clear()
    _LOCKS.clear()            # a lock another thread of the parent held would never be released


if hasattr(os, "register_at_fork"):          # a forked child has none of the parent's threads
    os.register_at_fork(after_in_child=_after_fork_in_child)


def object_lock(obj) -> threading.RLock:
    """The re-entrant lock of ``obj`` (created on first use, one per object, freed with it).

    Estimators take it to solve a readout that waits, to fit, and to read a consistent model;
    ``StreamingRidge`` to update and to read its state."""
    lock = _LOCKS.get(obj)
    if lock is None:
        with _LOCKS_GUARD:
            lock = _LOCKS.get(obj)
            if lock is None:
                lock = _LOCKS[obj] = threading.RLock()
    return lock


_FITTING: dict[int, str] = {}            # id(object) → the thread fitting it
_FITTING_LOCK = threading.Lock()


@contextlib.contextmanager
def one_fit_at_a_time(obj, method: str):
    """Mark ``obj`` as being fitted by this thread while the block runs: a second fit of the same
    object meanwhile (from another thread) raises ``RuntimeError`` before touching anything, instead
    of mixing both datasets into one state. The object's lock is not taken here (see
    :func:`object_lock`)."""
    key = id(obj)
    with _FITTING_LOCK:
        running = _FITTING.get(key)
        if running is None:
            _FITTING[key] = threading.current_thread().name
    if running is not None:
        raise RuntimeError(f"{type(obj).__name__}.{method} was called while thread {running!r} is fitting "
                           "the same estimator object; one estimator holds one fit at a time. Fit a copy "
                           "per thread (sklearn.base.clone(estimator)), or wait for the running fit")
    try:
        yield
    finally:
        with _FITTING_LOCK:
            del _FITTING[key]


def blas_controller():
    """One :class:`threadpoolctl.ThreadpoolController` (a dependency of scikit-learn) per process."""
    if "controller" not in _STATE:
        from threadpoolctl import ThreadpoolController

        _STATE["controller"] = ThreadpoolController()
    return _STATE["controller"]


def blas_threads() -> int:
    """The threads BLAS would use now (1 under an enclosing ``threadpool_limits(1)``)."""
    return max([lib.num_threads for lib in blas_controller().select(user_api="blas").lib_controllers] or [1])


def shared_executor(workers: int):
    """A process-wide thread pool of at least ``workers`` threads (starting threads costs ~ms)."""
    from concurrent.futures import ThreadPoolExecutor

    pool = _STATE.get("executor")
    if pool is None or pool._max_workers < workers:
        pool = _STATE["executor"] = ThreadPoolExecutor(workers, thread_name_prefix="greenelm")
    return pool
