"""Benchmark utilities: FLOP models, GEMM-peak measurement, isolated runs with peak memory, reports.

Used by ``python -m benchmarks.run`` and by the hardware chapter; nothing here asserts a speed.

* FLOP models (multiply-add = 2 FLOPs) of every fit we time: greenelm's streamed normal equations
  (:func:`greenelm.solvers.fit_flops`), the paper's listings (full ``HᵀH`` GEMM, LU, the Cholesky
  variant that re-solves its triangles with LU), ``numpy.linalg.pinv`` (thin SVD) and LAPACK
  ``gelsd`` — see :data:`FLOP_MODELS` for the formulas as text.
* :func:`gemm_peak`: the machine's measured GEMM throughput (GFLOP/s) in this process.
* :func:`run_isolated`: call ``module:function(**kwargs)`` in a fresh Python process and return its
  result, wall time and **peak resident memory** (``ru_maxrss`` of that child from ``wait4``); a
  crash (signal, non-zero exit, exception) is returned as a recorded failure, never raised.
* :func:`blas_info`: which BLAS libraries, kernels ('architecture') and thread counts are loaded.
* :func:`host_info`: the host a timing result records (CPU model, cores, OS kernel, BLAS, GEMM rate);
  :func:`report_host` the same from what a benchmark report recorded.
* :func:`judge_quiet`: whether a machine was quiet, on its 1- and 5-minute load averages.
* :func:`write_report`: the JSON report and its Markdown rendering.
* :func:`rapl_energy_uj`: RAPL energy counters when the machine exposes them (else ``None``).
"""

from __future__ import annotations

import glob
import importlib
import json
import math
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Sequence

import numpy as np

from greenelm.solvers import fit_flops

#: The FLOP models used in reports, as text (N samples, D inputs, d hidden, k outputs).
FLOP_MODELS = {
    "greenelm": "features 2NDd + Gram (syrk) Nd² + HᵀY 2Ndk + Cholesky d³/3 + solves 2d²k",
    "listing_lud": "features 2NDd + HᵀH Nd² (NumPy's matmul sends H.T @ H to BLAS syrk) + HᵀY 2Ndk "
                   "+ LU 2d³/3 + solves 2d²k",
    "listing_cholesky": "features 2NDd + HᵀH Nd² (syrk) + HᵀY 2Ndk + Cholesky d³/3 + two np.linalg.solve "
                        "on the triangles (each an LU 2d³/3 + 2d²k)",
    "ridge_cholesky": "HᵀH Nd² (syrk, via NumPy) + HᵀY 2Ndk + Cholesky d³/3 + solves 2d²k (features not included)",
    "pinv": "features 2NDd + thin SVD 6Nd² + 20d³ (R-SVD, Golub & Van Loan) + V Σ⁺ Uᵀ 2Nd² + (·)Y 2Ndk",
    "gelsd": "features 2NDd + QR 2Nd² + SVD of R 11d³ + QᵀY 4Ndk (Golub & Van Loan's SVD least squares)",
}


def gemm_flops(m: int, n: int, k: int) -> float:
    """FLOPs of an (m, k) @ (k, n) product: 2mnk."""
    return 2.0 * m * n * k


def listing_flops(n_samples: int, n_inputs: int | None, n_hidden: int, n_outputs: int = 10,
                  variant: str = "lud") -> float:
    """FLOPs of the paper's listing-2 solver ``variant`` ('lud', 'cholesky', 'pinv') on H (N, d).

    ``n_inputs=None`` leaves out the feature GEMM (a solve on given H); 'ridge' is scikit-learn's
    Ridge(solver='cholesky').  Both form HᵀH as ``H.T @ H``, which NumPy's matmul recognises and
    computes with BLAS ``syrk`` (one triangle, N d² FLOPs), the same kernel greenelm calls.
    """
    N, d, k = n_samples, n_hidden, n_outputs
    features = 0.0 if n_inputs is None else 2.0 * N * n_inputs * d
    normal = 1.0 * N * d * d + 2.0 * N * d * k
    if variant == "lud":
        return features + normal + 2 * d**3 / 3 + 2.0 * d * d * k
    if variant == "cholesky":
        return features + normal + d**3 / 3 + 2 * (2 * d**3 / 3 + 2.0 * d * d * k)
    if variant == "ridge":
        return features + normal + d**3 / 3 + 2.0 * d * d * k
    if variant == "pinv":
        return pinv_flops(N, n_inputs, d, k)
    raise ValueError(f"unknown listing variant {variant!r}; choose 'lud', 'cholesky', 'ridge' or 'pinv'")


def pinv_flops(n_samples: int, n_inputs: int | None, n_hidden: int, n_outputs: int = 10) -> float:
    """FLOPs of ``np.linalg.pinv(H) @ Y`` (thin SVD, then V Σ⁺ Uᵀ, then the product with Y)."""
    N, d, k = n_samples, n_hidden, n_outputs
    features = 0.0 if n_inputs is None else 2.0 * N * n_inputs * d
    return features + 6.0 * N * d * d + 20.0 * d**3 + 2.0 * N * d * d + 2.0 * N * d * k


def gelsd_flops(n_samples: int, n_inputs: int | None, n_hidden: int, n_outputs: int = 10) -> float:
    """FLOPs of minimum-norm least squares by LAPACK ``gelsd`` (QR, then SVD of R)."""
    N, d, k = n_samples, n_hidden, n_outputs
    features = 0.0 if n_inputs is None else 2.0 * N * n_inputs * d
    return features + 2.0 * N * d * d + 11.0 * d**3 + 4.0 * N * d * k


def flop_floor_seconds(n_samples: int, n_inputs: int, n_hidden: int, n_outputs: int,
                       peak_gflops: Mapping[str, float], dtype: str = "float64") -> float:
    """Seconds a greenelm fit would take at the measured GEMM peak: features and Gram at the
    peak of ``dtype``, the d × d solve (always float64) at the float64 peak."""
    flops = fit_flops(n_samples, n_inputs, n_hidden, n_outputs)
    return ((flops.features + flops.gram) / (peak_gflops[dtype] * 1e9)
            + flops.solve / (peak_gflops["float64"] * 1e9))


# -- timing and the GEMM peak -------------------------------------------------------------------
def time_call(fn: Callable[[], Any], repeats: int = 3, warmup: int = 0) -> list[float]:
    """Wall times (s) of ``repeats`` calls of ``fn()`` after ``warmup`` untimed calls."""
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return times


def gemm_peak(dtype: str = "float64", n: int = 4096, repeats: int = 5, seed: int = 0) -> dict:
    """Measured square GEMM throughput of NumPy's BLAS: ``{"best", "median"}`` in GFLOP/s."""
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((n, n)).astype(dtype)
    b = rng.standard_normal((n, n)).astype(dtype)
    out = np.empty((n, n), dtype=dtype)
    times = time_call(lambda: np.matmul(a, b, out=out), repeats=repeats, warmup=1)
    rates = [gemm_flops(n, n, n) / t / 1e9 for t in times]
    return {"dtype": dtype, "n": n, "best": max(rates), "median": statistics.median(rates),
            "repeats": repeats}


def blas_info() -> list[dict]:
    """The loaded BLAS/OpenMP libraries: file, version, kernel ('architecture'), threads."""
    from threadpoolctl import threadpool_info

    import scipy.linalg  # noqa: F401  (load SciPy's BLAS too, so it is listed)

    keys = ("user_api", "internal_api", "version", "architecture", "num_threads", "threading_layer")
    return [{"library": Path(info["filepath"]).name, **{k: info.get(k) for k in keys}}
            for info in threadpool_info()]


def cpu_model() -> str:
    """The CPU's model name (Linux's /proc/cpuinfo; elsewhere what ``platform`` knows)."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "CPU"


def machine_info() -> dict:
    """CPU model, cores, memory, Python/NumPy versions and the OPENBLAS_* environment."""
    model = cpu_model()
    try:
        memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError):
        memory = None
    return {"cpu": model, "cores": os.cpu_count(), "memory_bytes": memory,
            "python": platform.python_version(), "numpy": np.__version__,
            "platform": platform.platform(),
            "openblas_env": {k: v for k, v in os.environ.items() if k.startswith("OPENBLAS_")}}


def chapter_machine(device=None) -> dict[str, Any]:
    """The machine a chapter runs on, as its provenance records it: CPU model, usable cores,
    memory (GiB), OS, Python (from :func:`machine_info`); with a CUDA ``device``, also ``"gpu"`` (its
    name, as torch gives it) and ``"torch"`` (torch's version and its CUDA's)."""
    info = machine_info()
    memory = info["memory_bytes"]
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else info["cores"]
    machine = {"cpu": info["cpu"], "cores": cores,
               "memory_gib": None if memory is None else round(memory / 2**30, 1),
               "os": info["platform"], "python": info["python"]}
    if device is not None and str(device).startswith("cuda"):
        import torch

        machine["gpu"] = torch.cuda.get_device_name(torch.device(device))
        machine["torch"] = f"{torch.__version__} (CUDA {torch.version.cuda})"
    return machine


def machine_instance() -> str | None:
    """This boot of this machine, as a short id (the first 12 hex digits of Linux's
    ``/proc/sys/kernel/random/boot_id``; None elsewhere): two virtual machines of one CPU model and core
    count, which :func:`chapter_machine` cannot tell apart, have different ids, and so does one machine
    after a reboot."""
    try:
        with open("/proc/sys/kernel/random/boot_id") as found:
            return found.read().strip().replace("-", "")[:12] or None
    except OSError:
        return None


#: how each code solves for the readout, by solver (the words :func:`timed_words` prints)
_GREENELM_SOLVES = {"pinv": "LAPACK gelsd on H (a QR of the N × d H, then an SVD of its d × d factor; no Gram)",
                    "lu": "the Gram HᵀH + λI and an LU solve", "cholesky": "the Gram HᵀH + λI and a Cholesky solve"}
_LISTING2_SOLVES = {"pinv": "np.linalg.pinv(H) @ Y (a full SVD of the N × d H, the d × N pseudoinverse formed)",
                    "lu": "the Gram HᵀH + λI and np.linalg.solve (LU)",
                    "cholesky": "the Gram HᵀH + λI, np.linalg.cholesky and two solves"}


def timed_words(code: str, solver: str) -> str:
    """What a timing of ``solver`` by ``code`` measures, in the words printed beside its seconds:
    ``code`` "greenelm" (``ELMClassifier.fit``, the whole fit) or "listing2" (the paper's listing 2,
    the solve alone on a given H). A pinv timing of one is not the other's: greenelm's pinv is
    LAPACK ``gelsd`` after the features, listing 2's an explicit pseudoinverse."""
    solver = {"lud": "lu"}.get(solver, solver)
    if code == "greenelm":
        return f"greenelm's whole fit: the features, then {_GREENELM_SOLVES[solver]}"
    if code == "listing2":
        return f"the paper's listing 2, the solve alone: {_LISTING2_SOLVES[solver]}"
    raise ValueError(f"code must be 'greenelm' or 'listing2', got {code!r}")


def memory_text(gib: float) -> str:
    """A machine's memory as every page prints it (one rounding): ``23.5`` -> ``"23.5 GiB"``."""
    return f"{gib:g} GiB"


def machine_text(machine: dict) -> str:
    """A chapter's machine (:func:`chapter_machine`'s dict) in words, as every page prints it:
    ``"AMD EPYC, 2 cores, 23.5 GiB"``."""
    memory = machine.get("memory_gib")
    return f"{machine['cpu']}, {machine['cores']} cores, " + (memory_text(memory) if memory else "memory not recorded")


def peak_rss_bytes() -> int:
    """Peak resident memory of this process (bytes): Linux's VmHWM, which :func:`reset_peak_rss`
    can reset, else ``ru_maxrss`` (the peak since the process started)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def load_average() -> list[float] | None:
    """The machine's 1-, 5- and 15-minute load averages (to 0.01), None where the OS keeps none. A run
    records them when it starts and ends: on this machine a quiet run starts near 0 and ends near
    the number of threads it kept busy."""
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except (AttributeError, OSError):
        return None


#: the load average at or under which a machine counts as quiet: both the 1- and the 5-minute averages
#: (:func:`judge_quiet`)
QUIET_LOAD = 0.5


def judge_quiet(load: Sequence[float] | None, limit: float = QUIET_LOAD) -> tuple[bool, str]:
    """Whether a machine whose load averages were ``load`` (``[1-min, 5-min, ...]``, as
    :func:`load_average` returns them) was quiet: the 1- and the 5-minute averages both at most
    ``limit``. The 1-minute average alone calls a machine quiet a minute after a long job ended,
    while the 5-minute one still shows it. Returns ``(quiet, reason)``, the reason in words; a load
    not recorded (None, or fewer than two averages) is not quiet. Negative or non-finite loads are
    a ValueError naming them."""
    if load is None or len(load) < 2:
        return False, "the 1- and 5-minute load averages were not recorded"
    one, five = float(load[0]), float(load[1])
    if not all(math.isfinite(x) and x >= 0 for x in (one, five)):
        raise ValueError(f"load averages must be finite and non-negative, got {list(load)}")
    if one <= limit and five <= limit:     # printed to two decimals, as the kernel reports them
        return True, f"the 1- and 5-minute load averages ({round(one, 2):g}, {round(five, 2):g}) were at most {limit:g}"
    busy = " and ".join(f"the {m}-minute load average ({round(x, 2):g})" for m, x in ((1, one), (5, five))
                        if x > limit)
    return False, f"{busy} above {limit:g}"


def wait_until_quiet(limit: float = QUIET_LOAD, *, poll_seconds: float = 20.0, deadline: float | None = None,
                     read: Callable[[], Sequence[float] | None] = load_average,
                     clock: Callable[[], float] = time.time, sleep: Callable[[float], None] = time.sleep) -> list[float]:
    """Wait until the machine is quiet by :func:`judge_quiet` (``limit``), reading the load averages every
    ``poll_seconds``; returns the reading that passed. ``deadline``: a ``clock()`` time (seconds since the
    epoch) after which waiting stops with a TimeoutError naming the last reading; a machine whose load
    cannot be read is never quiet, so it waits until the deadline (or forever without one)."""
    while True:
        load = read()
        quiet, reason = judge_quiet(load, limit)
        if quiet:
            return list(load)
        if deadline is not None and clock() + poll_seconds > deadline:
            raise TimeoutError(f"the machine was not quiet by the deadline: {reason}")
        sleep(poll_seconds)


def largest_loads(readings) -> list[float] | None:
    """``[largest 1-minute, largest 5-minute]`` of several :func:`load_average` readings (``[[1, 5, 15], ...]``;
    None entries, runs that read none, are skipped): what :func:`judge_quiet` judges those runs by. Where a
    reading lacks its 5-minute average, the 1-minute one alone (not quiet by that rule); None when none
    was read."""
    read = [list(r) for r in readings if r]
    if not read:
        return None
    one = max(float(r[0]) for r in read)
    return [one] + ([max(float(r[1]) for r in read)] if all(len(r) > 1 for r in read) else [])


def kernel_release(platform_text: str | None) -> str | None:
    """The OS kernel's release in a ``platform.platform()`` string (``'Linux-6.18.44-fc-v782-x86_64-with-glibc2.36'``
    -> ``'6.18.44-fc-v782'``); None when the string is missing or not of that form."""
    import re

    match = re.match(r"^[A-Za-z]+-(.+?)-(?:x86_64|amd64|aarch64|arm64|i[3-6]86|ppc64le|s390x)(?:-|$)",
                     platform_text or "")
    return match.group(1) if match else None


def blas_text(libraries: Sequence[Mapping[str, Any]] | None) -> str | None:
    """The BLAS libraries of :func:`blas_info`'s list in words, sorted so the order they were loaded in does
    not count (``'openblas 0.3.30 (Haswell) + openblas 0.3.31.188.0 (Haswell), 2 threads'``); None when
    none is listed."""
    names, threads = set(), set()
    for lib in libraries or ():
        if lib.get("user_api") == "blas":
            arch = f" ({lib['architecture']})" if lib.get("architecture") else ""
            names.add(f"{lib.get('internal_api') or lib.get('library')} {lib.get('version')}{arch}")
            threads.add(lib.get("num_threads"))
    if not names:
        return None
    return " + ".join(sorted(names)) + ", " + "/".join(str(t) for t in sorted(threads, key=str)) + " threads"


def host_from_words(words: str) -> dict[str, Any]:
    """A host as results record it from a report's words for its machine (``'Intel(R) Xeon(R) Processor,
    16 cores'``: CPU model and cores; the other fields None, not recorded). A machine's instance after them
    (``', instance c5e2921893ad'``, the frontier's point records) names which machine, not what it is: dropped."""
    import re

    words = re.sub(r", instance [0-9a-f]+$", "", words)          # a GPU's host too ("… GPU on …, 16 cores")
    cpu, _, rest = words.rpartition(",")
    cores = re.fullmatch(r"\s*(\d+)\s+(?:CPU\s+)?cores", rest)
    return {"cpu": (cpu.strip() or None) if cores else words, "cores": int(cores.group(1)) if cores else None,
            "kernel": None, "blas": None, "gemm_gflops": None}


def report_host(report: Mapping[str, Any]) -> dict | None:
    """The host a benchmark report recorded (:func:`host_info`'s fields, None where it recorded a field not):
    its ``machine`` (top level, ``meta`` or ``settings``: :func:`machine_info`'s or :func:`chapter_machine`'s
    fields, or words), its ``blas`` list and its float64 GEMM peak (``peak``), where it recorded them."""
    meta = report.get("meta") if isinstance(report.get("meta"), Mapping) else {}
    settings = report.get("settings") if isinstance(report.get("settings"), Mapping) else {}
    machine = report.get("machine") or meta.get("machine") or settings.get("machine")
    if isinstance(machine, str):
        return host_from_words(machine) if machine else None
    blas = report.get("blas") or meta.get("blas") or (settings.get("parent_threads") or {}).get("blas")
    if not isinstance(machine, Mapping):
        return host_from_report(None, blas if isinstance(blas, list) else None)
    machine = {"cpu": machine.get("cpu") or machine.get("processor"), "cores": machine.get("cores") or machine.get("cpus"),
               "os": machine.get("os") or machine.get("platform")}
    host = host_from_report(machine, blas if isinstance(blas, list) else None)
    peak = report.get("peak") if isinstance(report.get("peak"), Mapping) else {}
    gemm = (peak.get("used") or peak.get("start") or {}).get("float64") if peak else None
    gemm = gemm.get("best") if isinstance(gemm, Mapping) else gemm      # the rate used, or a gemm_peak entry
    if isinstance(gemm, (int, float)) and not isinstance(gemm, bool):
        host["gemm_gflops"] = round(float(gemm), 1)
    return host


_HOST: dict | None = None


def host_info(gemm_order: int = 1024) -> dict[str, Any]:
    """The host that measures a timing, as results record it: ``{"cpu", "cores", "kernel", "blas",
    "gemm_gflops"}`` — CPU model, usable cores, OS kernel release, the BLAS (:func:`blas_text`) and its
    float64 GEMM rate (GFLOP/s, best of 3 square products of order ``gemm_order``, measured once per
    process, the first time this is called)."""
    global _HOST
    if _HOST is None:
        machine = chapter_machine()
        _HOST = {"cpu": machine["cpu"], "cores": machine["cores"], "kernel": platform.release(),
                 "blas": blas_text(blas_info()),
                 "gemm_gflops": round(gemm_peak("float64", n=gemm_order, repeats=3)["best"], 1)}
    return dict(_HOST)


def host_from_report(machine: Mapping[str, Any] | None, blas: Sequence[Mapping[str, Any]] | None = None) -> dict | None:
    """A host as results record it (:func:`host_info`'s fields) from what a benchmark report recorded:
    its ``machine`` (:func:`chapter_machine`'s fields) and ``blas`` (:func:`blas_info`'s list); a field
    the report lacks is None (not recorded). None when the report recorded neither."""
    if not machine and not blas:
        return None
    machine = machine or {}
    return {"cpu": machine.get("cpu"), "cores": machine.get("cores"), "kernel": kernel_release(machine.get("os")),
            "blas": blas_text(blas), "gemm_gflops": None}


def reset_peak_rss() -> bool:
    """Reset this process's peak-RSS mark to its current RSS (Linux ``clear_refs``); True if done."""
    try:
        Path("/proc/self/clear_refs").write_text("5")
        return True
    except OSError:
        return False


def current_rss_bytes() -> int:
    """Resident memory of this process now (bytes; Linux /proc, else the peak so far)."""
    try:
        pages = int(Path("/proc/self/statm").read_text().split()[1])
        return pages * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return peak_rss_bytes()


def flat_rows(dataset, split: str = "train", n_rows: int | None = None, dtype="float64") -> np.ndarray:
    """The first ``n_rows`` images of ``split`` as (n, D) floats in [0, 1], converting only those rows
    (``Dataset.flat`` converts the whole split, which would hide how memory grows with N)."""
    x = dataset.x_train if split == "train" else dataset.x_test
    x = x[: len(x) if n_rows is None else int(n_rows)]
    out = x.reshape(len(x), -1).astype(dtype)
    out /= 255
    return out


def rapl_energy_uj() -> dict[str, int] | None:
    """Readable RAPL energy counters (µJ) by domain path, or ``None`` when the machine has none."""
    values = {}
    for path in sorted(glob.glob("/sys/class/powercap/intel-rapl*/energy_uj")):
        try:
            values[path] = int(Path(path).read_text())
        except (OSError, ValueError):
            continue
    return values or None


# -- isolated runs with peak memory -------------------------------------------------------------
def run_isolated(target: str, kwargs: Mapping[str, Any] | None = None, *,
                 env: Mapping[str, str | None] | None = None, timeout: float | None = None,
                 cwd: str | os.PathLike | None = None) -> dict:
    """Run ``module:function(**kwargs)`` in a fresh Python process and measure it.

    ``env`` updates the child's environment (a value ``None`` removes the variable).  The function
    must return a JSON-serialisable dict.  Returns ``{"ok", "result", "error", "returncode",
    "signal", "peak_rss_bytes", "wall_seconds"}``: ``peak_rss_bytes`` is the child's own peak
    resident set (its VmHWM at exit, so since its last :func:`reset_peak_rss` if it called it; for a
    child that died without reporting, ``ru_maxrss`` from ``wait4``, which on Linux also counts the
    parent's RSS at fork); a crash, a non-zero exit, an exception or a
    timeout gives ``ok=False`` with the reason in ``error`` — it is never raised here.
    """
    if ":" not in target:
        raise ValueError(f"target must be 'module:function', got {target!r}")
    child_env = dict(os.environ)
    for key, value in (env or {}).items():
        if value is None:
            child_env.pop(key, None)
        else:
            child_env[key] = str(value)
    with tempfile.TemporaryDirectory(prefix="greenelm-bench-") as tmp:
        out, err = Path(tmp) / "result.json", Path(tmp) / "stderr.txt"
        (Path(tmp) / "kwargs.json").write_text(json.dumps(dict(kwargs or {})))
        command = [sys.executable, "-m", "greenelm_book.bench", "child", target,
                   str(Path(tmp) / "kwargs.json"), str(out)]
        start = time.perf_counter()
        with open(err, "wb") as stderr:
            process = subprocess.Popen(command, env=child_env, cwd=cwd, stdout=subprocess.DEVNULL,
                                       stderr=stderr)
        timed_out = threading.Event()

        def kill():
            timed_out.set()
            process.kill()

        timer = threading.Timer(timeout, kill) if timeout else None
        if timer:
            timer.start()
        try:
            _, status, usage = os.wait4(process.pid, 0)
        finally:
            if timer:
                timer.cancel()
        process.returncode = os.waitstatus_to_exitcode(status)  # reaped: keep Popen consistent
        wall = time.perf_counter() - start
        record = {"ok": False, "result": None, "error": None, "returncode": process.returncode,
                  "signal": None, "peak_rss_bytes": usage.ru_maxrss * 1024, "wall_seconds": wall}
        stderr_tail = err.read_text(errors="replace")[-2000:].strip()
        if process.returncode < 0:
            import signal as signals

            record["signal"] = signals.Signals(-process.returncode).name
        if timed_out.is_set():
            record["error"] = f"timed out after {timeout:g} s"
        elif process.returncode != 0:
            last = stderr_tail.splitlines()[-1] if stderr_tail else ""
            what = (f"killed by {record['signal']}" if record["signal"]
                    else f"exit status {process.returncode}")
            record["error"] = f"{what}: {last}" if last else what
            record["stderr_tail"] = stderr_tail
        elif not out.exists():
            record["error"] = "the child wrote no result"
        else:
            payload = json.loads(out.read_text())
            # The child's own VmHWM: wait4's ru_maxrss also counts the parent's RSS at fork time,
            # which Linux carries across execve, so it is only the fallback for a child that died.
            record["peak_rss_bytes"] = payload.get("peak_rss_bytes", record["peak_rss_bytes"])
            if "exception" in payload:
                record["error"] = payload["exception"]
                record["stderr_tail"] = stderr_tail
            else:
                record["ok"], record["result"] = True, payload["result"]
    return record


def _child(target: str, kwargs_path: str, out_path: str) -> None:
    """Entry point of :func:`run_isolated`'s child: call the target, write its result as JSON."""
    module, name = target.split(":", 1)
    kwargs = json.loads(Path(kwargs_path).read_text())
    try:
        result = getattr(importlib.import_module(module), name)(**kwargs)
        payload = {"result": _jsonable(result)}
    except Exception as error:  # recorded, not raised: a failure is a result of the benchmark
        payload = {"exception": f"{type(error).__name__}: {error}"}
        import traceback

        traceback.print_exc()
    payload["peak_rss_bytes"] = peak_rss_bytes()
    Path(out_path).write_text(json.dumps(payload))


def _jsonable(value):
    """Convert NumPy scalars/arrays (and nested containers) to plain JSON types."""
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


# -- phase timing (the hardware chapter, through greenelm_book.chapters.complexity) ------------------------
PHASES = ("features", "gram", "solve")


def phase_times(X: np.ndarray, Y: np.ndarray, n_hidden: int, *, dtype: str = "float64",
                alpha: float = 1e-3, seed: int = 0, chunk_rows: int = 4096, repeats: int = 3,
                all_times: bool = False) -> dict:
    """Median seconds of each phase of a greenelm fit on X (N, D), Y (N, k) over ``repeats`` runs.

    The fit is streamed as ``ELMClassifier.fit`` streams it, one block of ``chunk_rows`` rows at a
    time, and each block's two steps are timed apart: ``features`` (relu(XW + b) of the block) and
    ``gram`` (adding the block into HᵀH by ``syrk`` and into HᵀY, the last gathered rows included);
    ``solve`` is the float64 Cholesky solve of order d.  ``all_times=True``: each phase's list of
    ``repeats`` times instead of their median.
    """
    from greenelm.features import RandomReLUFeatures
    from greenelm.solvers import NormalEquations, solve

    features = RandomReLUFeatures(X.shape[1], n_hidden, seed, dtype=dtype)
    X = np.asarray(X, dtype=dtype)
    Y = np.asarray(Y, dtype=dtype)
    out = {phase: [] for phase in PHASES}
    for _ in range(repeats):
        equations = NormalEquations(n_hidden, Y.shape[1], dtype)
        spent = {"features": 0.0, "gram": 0.0}
        for (rows,) in _row_slices(len(X), chunk_rows):
            start = time.perf_counter()
            H = features.transform(X[rows])
            middle = time.perf_counter()
            equations.update(H, Y[rows])
            spent["features"] += middle - start
            spent["gram"] += time.perf_counter() - middle
        start = time.perf_counter()
        equations.flush()
        spent["gram"] += time.perf_counter() - start
        start = time.perf_counter()
        solve(equations, "cholesky", alpha)
        out["solve"].append(time.perf_counter() - start)
        out["features"].append(spent["features"])
        out["gram"].append(spent["gram"])
    if all_times:
        return out
    return {phase: statistics.median(times) for phase, times in out.items()}


def _row_slices(n_rows: int, chunk_rows: int):
    for start in range(0, n_rows, chunk_rows):
        yield (slice(start, min(start + chunk_rows, n_rows)),)


def fit_memory(n_hidden: int, n_train: int | None = None, method: str = "greenelm",
               dataset: str = "mnist", dtype: str = "float64") -> dict:
    """Fit once on ``dataset`` (for :func:`run_isolated`): ``method`` 'greenelm' (ELMClassifier,
    Cholesky) or 'listing' (the paper's listing 1 with the normal equations, which holds H).
    Returns the training input's size, this process's RSS just before the fit and its peak RSS
    during the fit (the peak mark is reset before the fit where Linux allows it)."""
    from greenelm.data import load_dataset

    ds = load_dataset(dataset)
    n = len(ds.y_train) if n_train is None else int(n_train)
    if method == "greenelm":
        from greenelm.estimator import ELMClassifier

        X = flat_rows(ds, "train", n, dtype)
        reset_peak_rss()
        before = current_rss_bytes()
        ELMClassifier(n_hidden=n_hidden, dtype=dtype).fit(X, ds.y_train[:n])
        input_bytes = X.nbytes
    elif method == "listing":
        from .paper_code import listing1

        reset_peak_rss()
        before = current_rss_bytes()
        listing1(ds.x_train[:n], ds.y_train[:n], ds.x_test[:1], ds.y_test[:1], n_hidden=n_hidden,
                 solve="normal")
        input_bytes = n * ds.x_train[0].size * 4
    else:
        raise ValueError(f"unknown method {method!r}; choose 'greenelm' or 'listing'")
    return {"n_train": n, "n_hidden": n_hidden, "method": method, "input_bytes": input_bytes,
            "rss_before_fit_bytes": before, "rss_after_fit_bytes": peak_rss_bytes()}


# -- summaries and reports ----------------------------------------------------------------------
def median(values: Iterable[float]) -> float:
    """Median of the finite values (NaN when there are none)."""
    finite = [float(v) for v in values if v is not None and math.isfinite(float(v))]
    return statistics.median(finite) if finite else float("nan")


def format_value(value, digits: int = 3) -> str:
    """A table cell: numbers to ``digits`` significant digits, None/NaN as '—'."""
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, (int, np.integer)):
        return f"{int(value):,}"
    if isinstance(value, (float, np.floating)):
        if not math.isfinite(value):
            return "—"
        if value != 0 and (abs(value) >= 1e6 or abs(value) < 1e-3):
            return f"{value:.{digits - 1}e}"
        return f"{value:.{digits}g}" if abs(value) < 10 ** digits else f"{value:,.0f}"
    return str(value).replace("|", "\\|").replace("\n", " ")


def markdown_table(rows: Sequence[Mapping[str, Any]], columns: Sequence[str] | None = None,
                   digits: int = 3) -> str:
    """A GitHub Markdown table of ``rows`` (dicts) over ``columns`` (default: the first row's keys)."""
    if not rows:
        return "_(no rows)_\n"
    columns = list(columns or rows[0].keys())
    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    for row in rows:
        lines.append("| " + " | ".join(format_value(row.get(c), digits) for c in columns) + " |")
    return "\n".join(lines) + "\n"


def write_report(report: Mapping[str, Any], json_path: str | os.PathLike,
                 md_path: str | os.PathLike | None = None,
                 sections: Sequence[tuple[str, str, Sequence[Mapping[str, Any]], Sequence[str] | None]] = (),
                 preamble: str = "") -> None:
    """Write ``report`` as JSON (NaN → null) and, when ``md_path`` is given, a Markdown page:
    ``preamble`` and then for each ``(title, text, rows, columns)`` section a heading, text, table."""
    json_path = Path(json_path)
    json_path.write_text(json.dumps(_jsonable(report), indent=1, allow_nan=False) + "\n")
    if md_path is not None:
        parts = [preamble.rstrip() + "\n"] if preamble else []
        for title, text, rows, columns in sections:
            parts.append(f"## {title}\n")
            if text:
                parts.append(text.rstrip() + "\n")
            if rows is not None:
                parts.append(markdown_table(rows, columns))
        Path(md_path).write_text("\n".join(parts))


def _main(argv: Sequence[str]) -> int:
    if len(argv) == 4 and argv[0] == "child":
        _child(*argv[1:])
        return 0
    print("usage: python -m greenelm_book.bench child MODULE:FUNCTION KWARGS.json OUT.json", file=sys.stderr)
    return 2


#: the headline ratios timed in one quiet process each (``python -m benchmarks.headline_ratios``)
HEADLINE_RATIOS = Path(__file__).resolve().parents[1] / "benchmarks" / "headline_ratios.json"


#: each headline ratio's name -> the result key under which its chapter records the quiet interleaved
#: pairs (:func:`record_quiet_ratio`), at the paper's setting, the only one the benchmark times; read by
#: the chapters that record them, the summaries that quote them and the benchmark's ``Ratio.evidence``
QUIET_RATIO_KEYS = {
    "sgd_mlp_over_pinv_mnist": "mnist/sgd-mlp-over-green-elm/unit/pinv/d=2000/paired-time-ratio",
    "pinv_over_cholesky_n50000_d4000": "cifar10/listing2/pinv-over-cholesky/n=50000/d=4000/paired-time-ratio",
    "table4_pinv_over_lu_mnist_d2000": "mnist/paper-listing2/pinv-over-lu/same-h/n=60000/d=2000/paired-time-ratio",
    "cifar10_sgd_mlp_over_raw_fit": "cifar10/green-elm/unit/cholesky/d=2000/sgd-mlp-over-fit-time-ratio/paired",
    "conv_total_over_sgd_cnn": "cifar10/green-elm/random-conv/cholesky/d=2000/total-over-sgd-cnn-time-ratio/paired",
}


def quiet_ratio(name: str, path: str | Path | None = None) -> dict | None:
    """The entry ``name`` of the headline-ratio benchmark's report (its pairs, both sides, data, the
    process and times), with ``"quiet"`` (the entry's own run's, else the report's: the machine was quiet
    when that run started) and
    ``"source"`` added; None when the report or the entry does not exist. Raises ValueError for a
    report that is not the benchmark's (names the file and what is wrong). ``path``: the report
    (default :data:`HEADLINE_RATIOS`)."""
    path = Path(HEADLINE_RATIOS if path is None else path)
    if not path.is_file():
        return None
    report = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(report, dict) or not isinstance(report.get("ratios"), dict):
        raise ValueError(f"{path}: not a headline-ratio report (no mapping 'ratios' of name to entry)")
    entry = report["ratios"].get(name)
    if entry is None:
        return None
    pairs = entry.get("pairs")
    if not pairs or not all(isinstance(p, dict) and p.get("ratio", 0) > 0 for p in pairs):
        raise ValueError(f"{path}: ratio {name!r} has no positive pair ratios")
    quiet, reason = run_quiet(report, name, entry)
    latest = entry.get("started_at", "") >= str(report.get("started_at", ""))
    machine = report.get("settings", {}).get("machine") if latest else None   # the report's own run only
    host = host_from_report(machine, (entry.get("threads") or {}).get("blas"))
    return {**entry, "quiet": quiet, "quiet_reason": reason, "host": host, "source": str(path.name)}


def run_quiet(report: dict, name: str, entry: dict) -> tuple[bool, str]:
    """Whether the run that measured ratio ``name`` started on a quiet machine, by :func:`judge_quiet`
    on that run's recorded load averages (the report's ``runs``, else its ``settings``); a run whose
    loads were not recorded keeps the flag it was written with."""
    runs = report.get("runs") or [{"ratios": list(report["ratios"]),
                                   "load_before": report.get("settings", {}).get("load_before")}]
    load = next((run.get("load_before") for run in runs if name in run.get("ratios", ())), None)
    if load is None:
        quiet = bool(entry.get("quiet", report.get("quiet")))
        return quiet, "its run recorded no load averages; " + ("written as quiet" if quiet else "written as busy")
    return judge_quiet(load, float(report.get("settings", {}).get("quiet_load", QUIET_LOAD)))


def process_words(result) -> str:
    """How the headline-ratio benchmark's pairs of ``result`` (a stored result) were timed, in words that
    follow its recorded quietness: "one quiet process", or "one process on a busy machine"."""
    setting = getattr(result, "setting", None) or {}
    quiet = setting.get("quiet", str(setting.get("timing", "")).startswith("quiet"))
    return "one quiet process" if quiet else "one process on a busy machine"


def record_quiet_ratio(store, name: str, key: str | None = None, path: str | Path | None = None):
    """Record (in ``store``, a :class:`~greenelm_book.store.results.ChapterResults`) the paired ratios of
    the headline-ratio benchmark's entry ``name`` under ``key`` (default: ``QUIET_RATIO_KEYS[name]``;
    unit ×, one value per pair), its
    setting saying what each side timed, the run (process and start) and when each pair was
    computed; returns the Result, or None when the benchmark has not measured it."""
    if key is None:
        if name not in QUIET_RATIO_KEYS:
            raise ValueError(f"no result key for the quiet ratio {name!r}: pass key= or add it to QUIET_RATIO_KEYS "
                             f"(known: {', '.join(sorted(QUIET_RATIO_KEYS))})")
        key = QUIET_RATIO_KEYS[name]
    entry = quiet_ratio(name, path)
    if entry is None:
        return None
    pairs = entry["pairs"]
    # the words for a busy machine do not contain "quiet" (judging.comparability.is_quiet_timing looks for it)
    timing = ("quiet: one process, the two sides interleaved after a warm-up" if entry["quiet"] else
              "one process, the two sides interleaved, on a busy machine") + f" ({entry['quiet_reason']})"
    measured = {"date": max(p["computed_at"] for p in pairs)[:10], "host": entry["host"]}     # a results.Provenance
    return store.record(key, [p["ratio"] for p in pairs], "×", provenance=measured,
                        source=f"benchmarks/{entry['source']}",
                        numerator=entry["numerator"], denominator=entry["denominator"], data=entry["data"],
                        timing=timing, quiet=entry["quiet"], run=f"pid {entry['pid']} at {entry['started_at']}",
                        started_at=entry["started_at"], finished_at=entry["finished_at"],
                        computed_at=[p["computed_at"] for p in pairs], pairs=len(pairs),
                        numerator_seconds=[p["a_seconds"] for p in pairs],
                        denominator_seconds=[p["b_seconds"] for p in pairs])


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
