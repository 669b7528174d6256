"""The BLAS thread count and one process-wide thread pool, for NumPy work split between threads
(NumPy's ufuncs and BLAS calls release the GIL): the patch map's image blocks, the arc-cosine
kernel's elementwise transform."""

from __future__ import annotations

import os

_STATE = {}
if hasattr(os, "register_at_fork"):          # a forked child has none of the parent's threads
    os.register_at_fork(after_in_child=_STATE.clear)


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
