"""One memory guard (``greenelm._validation.require_memory``) before every allocation a user's
size sets: each absurd size is refused with a ``MemoryError`` that names the sizes, in well under
a second (before anything is allocated); the available memory is the tightest of the host's, the
container's cgroup limit less its usage and the address-space limit (``ulimit -v``) less what the
process maps."""

import time

import numpy as np
import pytest

import greenelm._validation as validation
from greenelm import (ELMClassifier, ELMClassifierCV, ELMRegressor, RandomPatchFeatures, RandomReLUFeatures,
                      RandomReLUTransformer, StreamingRidge)
from greenelm._validation import cgroup_available_memory, require_memory

QUICK = 1.0            # seconds: an error path that allocates nothing


def refused(call, *words):
    """Run ``call``; it must raise MemoryError within QUICK seconds, naming each of ``words``."""
    start = time.perf_counter()
    with pytest.raises(MemoryError) as raised:
        call()
    elapsed = time.perf_counter() - start
    message = str(raised.value)
    assert elapsed < QUICK, f"took {elapsed:.2f} s to refuse: {message}"
    for word in words + ("needs", "but only", "is available ("):
        assert word in message, f"{word!r} not in: {message}"
    return message


X, Y = np.random.default_rng(0).random((20, 3)), np.arange(20) % 2


@pytest.mark.parametrize("make, copy", [
    (lambda: ELMClassifier(n_hidden=10**9), "the solve's 1 copy of HᵀH + λI (cholesky) 9e+06 TB"),
    (lambda: ELMRegressor(n_hidden=10**9, partial_fit_method="rls"), "P = (HᵀH + λI)⁻¹ (d × d float64)"),
    (lambda: ELMClassifier(n_hidden=10**9, solver="pinv"), "the SVD's copy of H 160 GB"),
    (lambda: ELMClassifierCV(n_hidden=10**9), "the eigendecomposition's copies of HᵀH")],
    ids=["classifier", "regressor-rls", "pinv", "cv"])
def test_estimators_refuse_an_absurd_width(make, copy):
    refused(lambda: make().fit(X, Y), "HᵀH (d × d = 1000000000 × 1000000000 float64) 8e+06 TB",
            "W and b ((D + 1) × d = 4 × 1000000000 float64) 32 GB", copy, "lower n_hidden")
    if hasattr(make(), "partial_fit"):
        classes = {"classes": [0, 1]} if isinstance(make(), ELMClassifier) else {}
        refused(lambda: make().partial_fit(X, Y, **classes), "HᵀH (d × d = 1000000000 × 1000000000", copy)


def test_the_solve_s_copy_of_the_gram_is_counted(monkeypatch):
    """A Gram (8·d² bytes) that fits alone but not beside the solve's copy (and its finiteness mask) is refused."""
    d = 300
    gram = 8 * d * d
    monkeypatch.setattr(validation, "memory_limit", lambda device=None, root=None: (gram + gram // 2, "test"))
    message = refused(lambda: ELMClassifier(n_hidden=d, chunk_size=8).fit(X, Y),
                      "HᵀH (d × d = 300 × 300 float64) 720 kB", "the solve's 1 copy of HᵀH + λI (cholesky) 810 kB")
    assert "only 1.08 MB is available (test)" in message


def test_the_random_layer_refuses_an_absurd_width_before_drawing():
    refused(lambda: RandomReLUTransformer(n_hidden=10**9).fit(np.zeros((20, 1))),
            "W and b's float64 draw ((D + 1) × d = 2 × 1000000000) 16 GB", "H = transform(X) (N × d = 20 × 1000000000 float64)",
            "lower n_hidden")
    refused(lambda: RandomReLUTransformer(n_hidden=10**12).fit(np.zeros((2, 1))), "16 TB")
    refused(lambda: RandomReLUFeatures(n_inputs=10, n_hidden=10**11), "W and b in float64 (11 × 100000000000) 8.8 TB")


def test_transform_refuses_features_larger_than_the_memory(monkeypatch):
    layer = RandomReLUTransformer(n_hidden=5000).fit(np.zeros((2, 3)))
    features = RandomReLUFeatures(n_inputs=3, n_hidden=5000)
    monkeypatch.setattr(validation, "memory_limit", lambda device=None, root=None: (50_000_000, "test"))
    rows = np.zeros((2000, 3))                                        # 2000 × 5000 float64 = 80 MB
    refused(lambda: layer.transform(rows), "the features H (n × d = 2000 × 5000 float64) 80 MB",
            "transform fewer rows at a time")
    refused(lambda: features.transform(rows), "80 MB")
    assert layer.transform(rows[:100]).shape == (100, 5000)         # 4 MB: below the guard's floor


def test_the_patch_map_refuses_absurd_sizes(monkeypatch):
    images = np.random.default_rng(0).random((20, 8 * 8 * 3))
    common = dict(patch_size=3, pool=2)
    refused(lambda: RandomPatchFeatures((8, 8, 3), n_patches=10**9, **common).fit(images),
            "the dictionary's 1000000000 drawn patches", "n_patches × p²C = 1000000000 × 27", "lower n_patches")
    refused(lambda: RandomPatchFeatures((8, 8, 3), n_whitening=10**11, **common).fit(images),
            "n_whitening = 100000000000 patches")
    refused(lambda: RandomPatchFeatures((8, 8, 3), n_patches=10, dictionary="kmeans", kmeans_sample=10**11,
                                        **common).fit(images), "100000000000 drawn patches")
    fitted = RandomPatchFeatures((8, 8, 3), n_patches=4, n_whitening=200, **common).fit(images)
    monkeypatch.setattr(validation, "memory_limit", lambda device=None, root=None: (1_000, "test"))
    batch = np.repeat(images, 2000, axis=0)                          # 40,000 images: 1.2 GB of patches
    message = refused(lambda: fitted.transform(batch), "the features (n × 2·K·pool² = 40000 × 32 float32)",
                      "the images' patches (n × 36 positions", "transform fewer images at a time")
    assert "40000 images" in message
    refused(lambda: next(fitted.chunks(batch, chunk_rows=40000)), "40000 images")


def test_streaming_ridge_refuses_an_absurd_state():
    refused(lambda: StreamingRidge().fit(np.ones((1, 10**6)), np.ones((1, 1))),
            "HᵀH (d × d = 1000000 × 1000000 float64) 8 TB", "G + λI, factorised into P")


def test_fit_dask_refuses_before_any_task():
    da = pytest.importorskip("dask.array")
    from greenelm.distributed import fit_dask

    Xd, yd = da.from_array(X, chunks=10), da.from_array(Y, chunks=10)
    message = refused(lambda: fit_dask(ELMClassifier(n_hidden=10**7), Xd, yd, classes=[0, 1]),
                      "map task(s) at once", "the tree sum's split_every + 1 = 5 partial sums",
                      "the client's summed [HᵀH | HᵀY]", "lower n_hidden")
    assert "fit_dask(ELMClassifier(n_hidden=10000000)) on X (20 × 3)" in message
    refused(lambda: fit_dask(ELMClassifier(n_hidden=10**7), Xd, yd, classes=[0, 1], scheduler="sync"),
            "1 map task(s) at once")


def test_require_memory_names_every_part_and_where(monkeypatch):
    monkeypatch.setattr(validation, "memory_limit", lambda device=None, root=None: (2_000_000, "the moon's"))
    with pytest.raises(MemoryError, match=r"^thing\.fit needs 3 MB \(A \(2 × 2\) 1 MB, B 2 MB\), but only 2 MB "
                                          r"is available \(the moon's\): lower d$"):
        require_memory({"A (2 × 2)": 1_000_000, "B": 2_000_000}, "thing.fit", hint="lower d")
    require_memory({"A": 2_000_000}, "thing.fit")                      # exactly what is there: fine
    for bad in (-1, 1.5, True, "1"):
        with pytest.raises(ValueError, match="must be an int >= 0 bytes"):
            require_memory({"A": bad}, "thing")
    monkeypatch.setattr(validation, "memory_limit", lambda device=None, root=None: (None, "unknown"))
    require_memory({"A": 10**30}, "thing")                             # cannot be told: no refusal


def write(folder, **files):
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (folder / name.replace("__", ".")).write_text(text)


def test_cgroup_v2_and_v1_limits_are_read_from_the_root(tmp_path, monkeypatch):
    v2 = tmp_path / "v2"
    write(v2, memory__max="1000000000\n", memory__current="300000000\n",
          memory__stat="anon 200000000\ninactive_file 50000000\nactive_file 50000000\n")
    assert cgroup_available_memory(v2) == 1_000_000_000 - (300_000_000 - 50_000_000)
    write(tmp_path / "v2max", memory__max="max\n", memory__current="5\n")
    assert cgroup_available_memory(tmp_path / "v2max") is None          # no limit
    v1 = tmp_path / "v1"
    write(v1 / "memory", memory__limit_in_bytes="2000000000\n", memory__usage_in_bytes="500000000\n",
          memory__stat="cache 10\ntotal_inactive_file 100000000\n")
    assert cgroup_available_memory(v1) == 2_000_000_000 - 400_000_000
    write(tmp_path / "v1none" / "memory", memory__limit_in_bytes="9223372036854771712\n",
          memory__usage_in_bytes="1\n")
    assert cgroup_available_memory(tmp_path / "v1none") is None        # v1's "no limit"
    assert cgroup_available_memory(tmp_path / "absent") is None
    write(tmp_path / "over", memory__max="100\n", memory__current="500\n")
    assert cgroup_available_memory(tmp_path / "over") == 0

    # the tighter of the host's and the cgroup's, and the message says which
    monkeypatch.setattr(validation, "CGROUP_ROOT", str(v2))
    host = validation._host_available_memory()
    assert host > 750_000_000
    assert validation.available_memory() == 750_000_000
    with pytest.raises(MemoryError, match=r"only 750 MB is available \(the container's memory limit \(cgroup\) "
                                          r"less its usage\)"):
        require_memory({"X": 800_000_000}, "thing")
    monkeypatch.setattr(validation, "CGROUP_ROOT", str(tmp_path / "v2max"))
    assert validation.memory_limit()[1] == "the host's available memory"      # no cgroup limit: the host's


def test_every_limit_a_user_sets_is_read_and_the_refusal_names_the_one_that_refused(tmp_path, monkeypatch):
    """Host memory, cgroup v2, cgroup v1 and the address-space limit (``ulimit -v``): each, made the
    tightest by monkeypatching what it reads, is the one that refuses, and the message names it."""
    import resource

    GB = 10**9
    unlimited = resource.getrlimit(resource.RLIMIT_AS)
    monkeypatch.setattr(validation, "_host_available_memory", lambda: 8 * GB)
    monkeypatch.setattr(validation, "CGROUP_ROOT", str(tmp_path / "no-cgroup"))
    monkeypatch.setattr(resource, "getrlimit", lambda which: (resource.RLIM_INFINITY, resource.RLIM_INFINITY)
                        if which == resource.RLIMIT_AS else unlimited)
    assert validation.memory_limit() == (8 * GB, "the host's available memory")
    refused(lambda: require_memory({"X": 9 * GB}, "thing"), "only 8 GB is available (the host's available memory)")

    write(tmp_path / "v2", memory__max=f"{3 * GB}\n", memory__current=f"{GB}\n", memory__stat="inactive_file 0\n")
    write(tmp_path / "v1" / "memory", memory__limit_in_bytes=f"{5 * GB}\n", memory__usage_in_bytes=f"{GB}\n")
    for root, left in (("v2", 2 * GB), ("v1", 4 * GB)):
        monkeypatch.setattr(validation, "CGROUP_ROOT", str(tmp_path / root))
        assert validation.available_memory() == left
        refused(lambda: require_memory({"X": left + 1}, "thing"),
                "is available (the container's memory limit (cgroup) less its usage)")

    # ulimit -v 1.5 GB with 0.5 GB mapped: 1 GB left, tighter than the cgroup's 4 GB and the host's 8 GB
    monkeypatch.setattr(resource, "getrlimit", lambda which: (3 * GB // 2, resource.RLIM_INFINITY)
                        if which == resource.RLIMIT_AS else unlimited)
    monkeypatch.setattr(validation, "_virtual_size", lambda: GB // 2)
    assert validation.address_space_available() == GB
    message = refused(lambda: require_memory({"the kernel": GB + 1}, "KernelLimitClassifier.fit"),
                      "only 1 GB is available (the address-space limit (ulimit -v, RLIMIT_AS)")
    assert "cgroup" not in message and "host" not in message
    require_memory({"the kernel": GB}, "KernelLimitClassifier.fit")       # what the limit allows: fine
    monkeypatch.setattr(validation, "_virtual_size", lambda: 2 * GB)    # already past the limit: nothing left
    assert validation.address_space_available() == 0


def test_the_process_s_own_address_space_is_measured():
    """``_virtual_size`` reads this process's mapped address space: it grows by an array's size
    when the array is mapped (1 GiB, far above malloc's largest mmap threshold, 32 MiB, so it is
    always a fresh mapping; left untouched, it takes no physical memory)."""
    before = validation._virtual_size()
    block = np.empty(1 << 30, dtype=np.uint8)
    assert validation._virtual_size() - before >= 1 << 30
    del block


def test_a_real_ulimit_v_refuses_a_kernel_fit_before_it_allocates():
    """In a child process under ``resource.setrlimit(RLIMIT_AS)`` (what ``ulimit -v`` sets), a
    kernel-limit fit whose kernel passes the limit is refused by the guard, naming the limit."""
    import subprocess
    import sys

    code = ("import resource, numpy as np\n"
            "from greenelm import _validation, KernelLimitClassifier\n"
            "resource.setrlimit(resource.RLIMIT_AS, (_validation._virtual_size() + 200 * 2**20, "
            "resource.RLIM_INFINITY))\n"
            "X = np.random.default_rng(0).random((20_000, 3)); y = np.arange(20_000) % 2\n"
            "try:\n    KernelLimitClassifier().fit(X, y)\nexcept MemoryError as error:\n    print(error)\n")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert "the address-space limit (ulimit -v, RLIMIT_AS)" in result.stdout, result.stdout + result.stderr
    assert "the kernel (N × N float32, N = 20,000) 1.6 GB" in result.stdout
