"""Input checks shared by the library: one place for the words of every error.

Each check returns the value in its canonical type or raises ``ValueError`` (``TypeError`` for a
value of the wrong kind) naming the parameter and what it got.
"""

from __future__ import annotations

import functools
import inspect
import numbers
import warnings

import numpy as np


def check_choice(name: str, value, choices) -> None:
    """Raise ``ValueError`` naming the parameter when ``value`` is not one of ``choices``."""
    if not isinstance(value, str) or value not in choices:
        raise ValueError(f"unknown {name} {value!r}; choose one of {', '.join(map(repr, choices))}")


def check_positive_int(name: str, value) -> int:
    """Return ``value`` as int, or raise ``ValueError`` unless it is an integer ≥ 1."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ValueError(f"{name} must be an integer >= 1, got {value!r}")
    return int(value)


def check_alpha(alpha) -> float:
    """Return the ridge strength λ as a float, refusing negative, NaN, infinite or non-numbers."""
    if isinstance(alpha, bool) or not isinstance(alpha, numbers.Real):
        raise ValueError(f"alpha (the ridge λ) must be a finite number >= 0, got {alpha!r}")
    alpha = float(alpha)
    if not np.isfinite(alpha) or alpha < 0:
        raise ValueError(f"alpha (the ridge λ) must be a finite number >= 0, got {alpha!r}")
    return alpha


def seed_from_random_state(random_state) -> int:
    """The integer seed (0 ≤ seed < 2³²) a ``random_state`` stands for, as scikit-learn accepts it.

    ``None`` draws a fresh seed from the OS; an int is the seed itself; a ``RandomState`` or a
    ``Generator`` gives one draw (so the same generator state gives the same seed, and the
    estimator records that seed in ``seed_`` so a saved model rebuilds the same projection).
    """
    if random_state is None:
        return int(np.random.SeedSequence().generate_state(1)[0])
    if isinstance(random_state, (int, np.integer)) and not isinstance(random_state, bool):
        if not 0 <= int(random_state) < 2**32:
            raise ValueError(f"random_state must be an int in [0, 2**32), got {random_state!r}")
        return int(random_state)
    if isinstance(random_state, np.random.RandomState):
        return int(random_state.randint(0, 2**32, dtype=np.uint64))
    if isinstance(random_state, np.random.Generator):
        return int(random_state.integers(0, 2**32, dtype=np.uint64))
    raise ValueError("random_state must be None, an int seed, a numpy.random.RandomState or a "
                     f"numpy.random.Generator, got {random_state!r}")


def check_alphas(alphas) -> np.ndarray:
    """Return a grid of ridge strengths as a 1-d float64 array, refusing an empty grid or any λ ≤ 0."""
    try:
        grid = np.atleast_1d(np.asarray(alphas, dtype=np.float64))
    except (TypeError, ValueError) as error:
        raise ValueError(f"alphas must be a 1-d sequence of numbers > 0, got {alphas!r}") from error
    if grid.ndim != 1 or grid.size == 0 or not np.all(np.isfinite(grid)) or np.any(grid <= 0):
        raise ValueError(f"alphas must be a non-empty 1-d sequence of finite numbers > 0 (a ridge "
                         f"path has no λ = 0), got {alphas!r}")
    return grid


@functools.lru_cache(maxsize=None)
def _all_zero_weights_ok() -> dict:
    """The keyword that stops scikit-learn's ``_check_sample_weight`` from refusing all-zero weights
    itself (``allow_all_zero_weights``, scikit-learn >= 1.8; 1.6 and 1.7 have no such check), so
    that greenelm alone decides, the same at every supported version."""
    from sklearn.utils.validation import _check_sample_weight

    parameters = inspect.signature(_check_sample_weight).parameters
    return {"allow_all_zero_weights": True} if "allow_all_zero_weights" in parameters else {}


def check_sample_weight(sample_weight, X, allow_all_zero: bool = False):
    """``sample_weight`` as a float64 array (N,), or None; refuses a wrong length, NaN/inf and negatives.

    Built on scikit-learn's ``_check_sample_weight`` (which accepts lists, scalars and pandas
    series); a negative weight is refused here with the index of the first one. All-zero weights
    are refused with greenelm's own message, unless ``allow_all_zero`` (a ``partial_fit`` batch
    that adds nothing), at every supported scikit-learn version.
    """
    if sample_weight is None:
        return None
    from sklearn.utils.validation import _check_sample_weight

    weights = _check_sample_weight(sample_weight, X, dtype=np.float64, **_all_zero_weights_ok())
    if not allow_all_zero and not np.any(weights):  # greenelm's own check, at every version
        raise ValueError("sample_weight is all zeros: a fit needs at least one row of positive weight "
                         "(partial_fit takes an all-zero batch, which adds nothing)")
    negative = np.flatnonzero(weights < 0)
    if negative.size:
        raise ValueError(f"sample_weight must be >= 0; got {float(weights[negative[0]])!r} at index "
                         f"{negative[0]} ({negative.size} negative weight(s))")
    return weights


def check_device(device):
    """``None`` (the NumPy path), or the ``torch.device`` that ``device`` names, checked usable here.

    Raises ``ImportError`` when torch is not installed, ``ValueError`` for a device torch does not
    understand, and ``RuntimeError`` for a device this machine does not have (CUDA without a GPU).
    """
    if device is None:
        return None
    try:
        import torch
    except ImportError as error:
        raise ImportError(f"device={device!r} needs PyTorch, which is not installed: "
                          "pip install greenelm[torch] (or use device=None for the NumPy path)") from error
    if not isinstance(device, (str, torch.device)):
        raise TypeError(f"device must be None, a string such as 'cpu' or 'cuda' or a torch.device, "
                         f"got {device!r}")
    try:
        parsed = torch.device(device)
    except (RuntimeError, ValueError) as error:
        raise ValueError(f"unknown device {device!r}: torch does not understand it ({error}); use "
                         "None, 'cpu', 'cuda' or 'cuda:<index>'") from error
    if parsed.type == "cuda":
        if not torch.cuda.is_available():
            build = "built without CUDA" if torch.version.cuda is None else "no GPU visible"
            raise RuntimeError(f"device={device!r} asks for CUDA, but torch.cuda.is_available() is False "
                               f"(torch {torch.__version__}, {build}); use device='cpu' or device=None")
        if parsed.index is not None and parsed.index >= torch.cuda.device_count():
            raise RuntimeError(f"device={device!r}: only {torch.cuda.device_count()} CUDA device(s) "
                               "are visible")
    elif parsed.type != "cpu":
        try:
            torch.empty(0, device=parsed)
        except (RuntimeError, AssertionError) as error:
            reason = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
            raise RuntimeError(f"device={device!r} is not usable on this machine: {reason}") from error
    return parsed


#: where the container's control group files are read (a parameter of the functions below, so
#: tests can point it at a fake directory)
CGROUP_ROOT = "/sys/fs/cgroup"
_NO_LIMIT = 2**60          # cgroup v1 writes "no limit" as a page-rounded 2**63 - 1


def _read_cgroup_value(path: str) -> int | None:
    try:
        with open(path, encoding="ascii") as file:
            text = file.read().strip()
    except (OSError, UnicodeDecodeError):
        return None
    if text == "max":
        return None
    try:
        value = int(text)
    except ValueError:
        return None
    return None if value >= _NO_LIMIT else value


def _read_cgroup_stat(path: str, key: str) -> int:
    try:
        with open(path, encoding="ascii") as file:
            for line in file:
                name, _, value = line.partition(" ")
                if name == key:
                    return int(value)
    except (OSError, UnicodeDecodeError, ValueError):
        pass
    return 0


def cgroup_available_memory(root: str | None = None) -> int | None:
    """Bytes the container's memory limit still allows: the control group's limit minus its usage
    (less its inactive file cache, which the kernel reclaims before it kills), read from cgroup v2
    (``memory.max``, ``memory.current``, ``memory.stat``) or else v1 (``memory/memory.limit_in_bytes``,
    ``memory.usage_in_bytes``, ``memory.stat``) under ``root`` (default :data:`CGROUP_ROOT`);
    None when there is no limit (``max``) or no such files."""
    import os

    root = CGROUP_ROOT if root is None else str(root)
    for folder, limit_file, usage_file, cache_key in (
            (root, "memory.max", "memory.current", "inactive_file"),
            (os.path.join(root, "memory"), "memory.limit_in_bytes", "memory.usage_in_bytes",
             "total_inactive_file")):
        if not os.path.exists(os.path.join(folder, limit_file)):
            continue
        limit = _read_cgroup_value(os.path.join(folder, limit_file))
        if limit is None:
            return None
        usage = _read_cgroup_value(os.path.join(folder, usage_file)) or 0
        usage -= min(usage, _read_cgroup_stat(os.path.join(folder, "memory.stat"), cache_key))
        return max(limit - usage, 0)
    return None


def _host_available_memory() -> int | None:
    try:
        with open("/proc/meminfo", encoding="ascii") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        import os

        return int(os.sysconf("SC_AVPHYS_PAGES")) * int(os.sysconf("SC_PAGE_SIZE"))
    except (ValueError, OSError, AttributeError):
        return None


def _virtual_size() -> int:
    """Bytes of address space this process maps now (``VmSize`` of /proc/self/status; 0 if unknown)."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmSize:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError, UnicodeDecodeError):
        pass
    return 0


def address_space_available() -> int | None:
    """Bytes the address-space limit (``ulimit -v``: the soft ``RLIMIT_AS``) still allows this process:
    the limit less the address space it maps now (:func:`_virtual_size`); None when unlimited (or on
    a system without ``resource``)."""
    try:
        import resource
    except ImportError:
        return None
    soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    if soft == resource.RLIM_INFINITY or soft < 0:
        return None
    return max(int(soft) - _virtual_size(), 0)


def memory_limit(device=None, cgroup_root: str | None = None) -> tuple[int | None, str]:
    """``(bytes, where)``: what :func:`available_memory` returns, and words for where it was read
    (``"the GPU cuda:0's free memory"``, ``"the host's available memory"``, ``"the container's
    memory limit (cgroup)"``, ``"the address-space limit (ulimit -v)"``)."""
    if device is not None:
        import torch

        parsed = torch.device(device)
        if parsed.type == "cuda":      # free, plus what torch's caching allocator holds but no tensor uses
            spare = torch.cuda.memory_reserved(parsed) - torch.cuda.memory_allocated(parsed)
            return int(torch.cuda.mem_get_info(parsed)[0] + spare), f"the free memory of {parsed}"
        if parsed.type != "cpu":
            return None, f"memory on {parsed}"
    limits = [(_host_available_memory(), "the host's available memory"),
              (cgroup_available_memory(cgroup_root), "the container's memory limit (cgroup) less its usage"),
              (address_space_available(), "the address-space limit (ulimit -v, RLIMIT_AS) less the "
                                          "process's mapped address space")]
    known = [(size, where) for size, where in limits if size is not None]
    if not known:
        return None, "the host's available memory"
    return min(known, key=lambda limit: limit[0])       # the tightest (a tie: the first listed)


def available_memory(device=None, cgroup_root: str | None = None) -> int | None:
    """Bytes of memory available to a new allocation on ``device``: for a CUDA device (a name or a
    ``torch.device``) its free memory (``torch.cuda.mem_get_info``); for None or the CPU the tighter
    of the host's (``MemAvailable`` of /proc/meminfo, else the free physical pages), the
    container's cgroup limit less its usage (:func:`cgroup_available_memory`) and the address-space
    limit less the process's mapped address space (:func:`address_space_available`); None when it
    cannot be told (another accelerator, or a system that does not say)."""
    return memory_limit(device, cgroup_root)[0]


def require_memory(parts: dict[str, int], what: str, device=None, hint: str = "",
                   cgroup_root: str | None = None) -> None:
    """Refuse, before allocating, a path whose allocations do not fit in the memory available.

    ``parts`` maps words for each allocation (``"W (D × d float32)"``) to its bytes, every copy
    the path makes counted; ``what`` names the path (``"RandomReLUTransformer(n_hidden=10**9).fit"``);
    ``hint`` says what to lower. Raises ``MemoryError`` naming each part's size, the total, the
    bytes available and where (the tightest limit :func:`memory_limit` reads on ``device``: the
    host's, the container's cgroup, the address space's) when the total exceeds them; returns
    quietly when it cannot be told.
    """
    sizes = {}
    for name, size in parts.items():
        if isinstance(size, bool) or not isinstance(size, (int, np.integer)) or size < 0:
            raise ValueError(f"require_memory: the size of {name!r} must be an int >= 0 bytes, got {size!r}")
        sizes[name] = int(size)
    total = sum(sizes.values())
    available, where = memory_limit(device, cgroup_root)
    if available is None or total <= available:
        return
    listed = ", ".join(f"{name} {format_bytes(size)}" for name, size in sizes.items())
    raise MemoryError(f"{what} needs {format_bytes(total)} ({listed}), but only "
                      f"{format_bytes(available)} is available ({where})"
                      + (f": {hint}" if hint else ""))


def check_finite_fit(owner: str, learned: dict, cause: str, fix: str) -> None:
    """Refuse, at fit, a model whose learned values hold NaN or inf: ``ValueError`` naming the
    ``owner`` (``"KernelLimitClassifier.fit"``), each non-finite value of ``learned`` ({name:
    array or number}), the likely ``cause`` and the ``fix``. The one check that a fit returns a
    finite model or raises."""
    bad = [name for name, value in learned.items() if not np.isfinite(np.asarray(value)).all()]
    if bad:
        raise ValueError(f"{owner} learned NaN or inf in {', '.join(bad)}: {cause}; {fix}")


def warn_on_grid_edge(owner: str, name: str, chosen: float, grid, grid_name: str, quantity: str,
                      stacklevel: int = 4) -> None:
    """Warn (``UserWarning``) when ``chosen``, picked from ``grid`` (more than one value) on held-out
    rows, is the grid's smallest or largest value: the best ``quantity`` may lie beyond it. E.g.
    ``warn_on_grid_edge("KernelLimitClassifier", "jitter_", 0.1, [1e-3, 0.1], "jitter", "jitter")``."""
    grid = np.asarray(grid, dtype=np.float64).ravel()
    if grid.size > 1 and chosen in (grid.min(), grid.max()):
        end = "smallest" if chosen == grid.min() else "largest"
        warnings.warn(f"{owner}: {name}={chosen:.4g} is the {end} value of the {grid_name} grid "
                      f"[{grid.min():.4g}, {grid.max():.4g}]; the best {quantity} may lie beyond it: "
                      "extend the grid", UserWarning, stacklevel=stacklevel)


def check_dtype(value, choices=("float64", "float32")) -> str:
    """The canonical name (``"float64"``/``"float32"``) of a dtype given as a name, an alias
    (``"f4"``, ``"double"``), a NumPy type (``np.float32``) or a ``np.dtype``; ValueError otherwise."""
    try:
        name = None if value is None or isinstance(value, bool) else np.dtype(value).name
    except (TypeError, ValueError):
        name = None
    if name not in choices:
        raise ValueError(f"unknown dtype {value!r}; choose one of {', '.join(map(repr, choices))} (or "
                         "an equivalent: np.float32, 'f4', np.dtype('float64'))")
    return name


def format_bytes(n_bytes: float) -> str:
    """``n_bytes`` as a short human-readable size (``'1.3 GB'``)."""
    for unit in ("B", "kB", "MB", "GB", "TB"):
        if abs(n_bytes) < 1000 or unit == "TB":
            return f"{n_bytes:.3g} {unit}"
        n_bytes /= 1000
