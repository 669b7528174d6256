"""Tests for greenelm.data: the real datasets, checksum verification, data-root resolution,
the torchvision download hook and the one-time atomic CIFAR-10 unpacking.

Real-data tests skip (with the reason) when a dataset is not available; everything that
writes goes to temporary folders (GREENELM_CACHE points at one for the whole module).
"""

from __future__ import annotations

import gzip
import hashlib
import os
import pathlib
import pickle
import re
import shutil
import subprocess
import sys
import tarfile
import types

import numpy as np
import pytest

from greenelm import data
from greenelm.data import (DATASETS, DataCorruptError, DataNotFoundError, Dataset, cache_dir,
                           candidate_roots, load_dataset)

MNIST_STEMS = ("train-images-idx3-ubyte", "train-labels-idx1-ubyte",
               "t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte")
CIFAR_STEMS = tuple(f"data_batch_{i}" for i in range(1, 6)) + ("test_batch", "batches.meta")
CIFAR_CLASSES = ("airplane", "automobile", "bird", "cat", "deer",
                 "dog", "frog", "horse", "ship", "truck")


# --------------------------------------------------------------------------- fixtures

@pytest.fixture(scope="module", autouse=True)
def module_cache(tmp_path_factory):
    """Point GREENELM_CACHE at a fresh folder for the whole module (restored afterwards)."""
    cache = tmp_path_factory.mktemp("greenelm-cache")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("GREENELM_CACHE", str(cache))
        yield cache


def _load_or_skip(name: str) -> Dataset:
    try:
        return load_dataset(name)
    except DataNotFoundError as exc:
        pytest.skip(f"{name} is not available in this environment "
                    f"(set GREENELM_DATA): {str(exc).splitlines()[0]}")


@pytest.fixture(scope="module")
def mnist(module_cache):
    return _load_or_skip("mnist")


@pytest.fixture(scope="module")
def fashion(module_cache):
    return _load_or_skip("fashion-mnist")


@pytest.fixture(scope="module")
def cifar(module_cache):
    """Real CIFAR-10, unpacked (at most once per run) into the module's temporary cache."""
    return _load_or_skip("cifar10")


@pytest.fixture(scope="module")
def mnist_raw(mnist):
    """Decompressed content of the four real MNIST files, by stem."""
    out = {}
    for stem in MNIST_STEMS:
        plain = os.path.join(mnist.source, stem)
        if os.path.isfile(plain):
            with open(plain, "rb") as f:
                out[stem] = f.read()
        else:
            with gzip.open(plain + ".gz", "rb") as f:
                out[stem] = f.read()
    return out


def _put(folder, stem, content: bytes, gz: bool = True):
    """Write ``stem`` (gzipped or plain) into ``folder``, replacing any other variant."""
    folder.mkdir(parents=True, exist_ok=True)
    for old in (folder / stem, folder / f"{stem}.gz"):
        old.unlink(missing_ok=True)
    path = folder / (f"{stem}.gz" if gz else stem)
    path.write_bytes(gzip.compress(content, compresslevel=1, mtime=0) if gz else content)
    return path


@pytest.fixture
def mnist_copy(tmp_path, mnist):
    """A data root holding a byte-identical copy of the real MNIST files in mnist/."""
    folder = tmp_path / "root" / "mnist"
    folder.mkdir(parents=True)
    for name in os.listdir(mnist.source):
        if name.split(".")[0] in MNIST_STEMS:
            shutil.copy(os.path.join(mnist.source, name), folder / name)
    return folder


@pytest.fixture
def no_data_anywhere(tmp_path, monkeypatch):
    """Every root empty: GREENELM_DATA, the cache and the Debian folder point at empty dirs."""
    for sub in ("env", "cache", "debian"):
        (tmp_path / sub).mkdir()
    monkeypatch.setenv("GREENELM_DATA", str(tmp_path / "env"))
    monkeypatch.setenv("GREENELM_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(data, "_DEBIAN_ROOT", tmp_path / "debian")
    return tmp_path


# --------------------------------------------------------------------------- real data

def _check_common(ds: Dataset, name: str, n_train: int, image_shape: tuple[int, ...]):
    assert ds.name == name
    assert ds.x_train.shape == (n_train, *image_shape) and ds.x_train.dtype == np.uint8
    assert ds.x_test.shape == (10000, *image_shape) and ds.x_test.dtype == np.uint8
    assert ds.y_train.shape == (n_train,) and ds.y_train.dtype == np.int64
    assert ds.y_test.shape == (10000,) and ds.y_test.dtype == np.int64
    assert len(ds.classes) == 10 and all(isinstance(c, str) for c in ds.classes)
    assert ds.x_train.min() == 0 and ds.x_train.max() == 255
    assert ds.x_test.min() == 0 and ds.x_test.max() == 255
    assert os.path.isdir(ds.source)


def test_mnist_real(mnist):
    _check_common(mnist, "mnist", 60000, (28, 28))
    for y, n in ((mnist.y_train, 60000), (mnist.y_test, 10000)):
        counts = np.bincount(y, minlength=10)
        assert len(counts) == 10 and counts.sum() == n and (counts > 0).all()
    assert mnist.y_train[:10].tolist() == [5, 0, 4, 1, 9, 2, 1, 3, 1, 4]  # the famous first digits


def test_fashion_real(fashion):
    _check_common(fashion, "fashion-mnist", 60000, (28, 28))
    assert (np.bincount(fashion.y_train, minlength=10) == 6000).all()
    assert (np.bincount(fashion.y_test, minlength=10) == 1000).all()
    assert fashion.classes[0] == "T-shirt/top" and fashion.classes[9] == "Ankle boot"


def test_cifar_real(cifar):
    _check_common(cifar, "cifar10", 50000, (32, 32, 3))
    assert (np.bincount(cifar.y_train, minlength=10) == 5000).all()
    assert (np.bincount(cifar.y_test, minlength=10) == 1000).all()
    assert cifar.classes == CIFAR_CLASSES
    # HWC RGB: image 0 equals the first row of data_batch_1 (R plane, G plane, B plane).
    batch = data._cifar_cache() / "data_batch_1"
    row = data._load_cifar_batch(batch.read_bytes(), batch)[b"data"][0]
    np.testing.assert_array_equal(cifar.x_train[0], row.reshape(3, 32, 32).transpose(1, 2, 0))


def test_cifar_unpacked_once_into_cache(cifar, module_cache, monkeypatch):
    unpacked = module_cache / "data" / "cifar-10-batches-py"
    assert sorted(p.name for p in unpacked.iterdir()) == sorted(CIFAR_STEMS)
    assert [p.name for p in (module_cache / "data").iterdir()] == ["cifar-10-batches-py"]  # no temp left
    mtimes = {p.name: p.stat().st_mtime_ns for p in unpacked.iterdir()}

    def no_tarfile(*args, **kwargs):
        raise AssertionError("the tarball was opened again")

    monkeypatch.setattr(data.tarfile, "open", no_tarfile)
    data._load_verified.cache_clear()  # force a real second load, not a memo hit
    again = load_dataset("cifar10")
    assert again is not cifar
    np.testing.assert_array_equal(again.x_test, cifar.x_test)
    np.testing.assert_array_equal(again.y_train, cifar.y_train)
    assert {p.name: p.stat().st_mtime_ns for p in unpacked.iterdir()} == mtimes


def test_memo_returns_shared_read_only_arrays(mnist):
    assert load_dataset("MNIST") is load_dataset("mnist")
    for arr in (mnist.x_train, mnist.y_train, mnist.x_test, mnist.y_test):
        assert not arr.flags.writeable
    with pytest.raises(ValueError):
        mnist.x_train[0, 0, 0] = 1
    sub = load_dataset("mnist", subset=3)
    assert not sub.x_train.flags.writeable


def test_flat_scaling(mnist):
    x = mnist.flat()
    assert x.shape == (60000, 784) and x.dtype == np.float64
    assert x.min() == 0.0 and x.max() == 1.0
    np.testing.assert_array_equal(x[5], mnist.x_train[5].reshape(-1) / 255.0)
    x32 = mnist.flat("test", dtype=np.float32)
    assert x32.shape == (10000, 784) and x32.dtype == np.float32
    assert x32.flags.writeable  # a fresh array, not a view of the memo
    for bad in ("val", "TRAIN", None):
        with pytest.raises(ValueError):
            mnist.flat(bad)


def test_flat_cifar_is_hwc(cifar):
    x = cifar.flat("test", dtype=np.float32)
    assert x.shape == (10000, 3072)
    np.testing.assert_allclose(x[7].reshape(32, 32, 3), cifar.x_test[7] / np.float32(255))


def test_subset(mnist):
    ds = load_dataset("mnist", subset=100)
    assert ds.x_train.shape == (100, 28, 28) and ds.x_test.shape == (100, 28, 28)
    assert ds.y_train.shape == ds.y_test.shape == (100,)
    np.testing.assert_array_equal(ds.y_test, mnist.y_test[:100])
    assert ds.source == mnist.source and ds.classes == mnist.classes
    for bad in (0, -1, 2.5, True):
        with pytest.raises(ValueError):
            load_dataset("mnist", subset=bad)


def test_aliases_and_case(fashion):
    assert load_dataset("FMNIST") is load_dataset(" Fashion_MNIST ") is load_dataset("fashion-mnist")
    for alias in ("CIFAR-10", "Cifar10", "fashion-mnist", "mnist"):
        assert candidate_roots(alias)


@pytest.mark.parametrize("name", ["svhn", "", "mnist2"])
def test_unknown_name_lists_known(name):
    with pytest.raises(ValueError) as err:
        load_dataset(name)
    assert all(known in str(err.value) for known in DATASETS)
    with pytest.raises(ValueError):
        candidate_roots(name)


# --------------------------------------------------------------------------- checksums

def test_recompressed_and_uncompressed_files_validate(tmp_path, mnist, mnist_raw):
    """A re-gzipped copy (other .gz bytes, same content) and plain idx files both load."""
    folder = tmp_path / "mnist"
    for i, stem in enumerate(MNIST_STEMS):
        _put(folder, stem, mnist_raw[stem], gz=i % 2 == 0)
    repacked = gzip.compress(mnist_raw[MNIST_STEMS[0]], compresslevel=1, mtime=0)
    assert hashlib.md5(repacked).hexdigest() != data._MNIST_MD5[MNIST_STEMS[0]].gz
    ds = load_dataset("mnist", root=tmp_path)
    assert ds.source == str(folder.resolve())
    np.testing.assert_array_equal(ds.x_train, mnist.x_train)
    np.testing.assert_array_equal(ds.y_test, mnist.y_test)


def test_flipped_byte_raises_corrupt(mnist_copy, mnist_raw):
    content = bytearray(mnist_raw["train-labels-idx1-ubyte"])
    content[1000] ^= 0x01
    bad = _put(mnist_copy, "train-labels-idx1-ubyte", bytes(content))
    with pytest.raises(DataCorruptError) as err:
        load_dataset("mnist", root=mnist_copy.parent)
    msg = str(err.value)
    expected = data._MNIST_MD5["train-labels-idx1-ubyte"]
    assert str(bad) in msg and expected.gz in msg and expected.raw in msg
    assert hashlib.md5(bytes(content)).hexdigest() in msg  # the actual md5
    assert "Delete" in msg


def test_corrupt_plain_file_raises(mnist_copy, mnist_raw):
    content = bytearray(mnist_raw["t10k-labels-idx1-ubyte"])
    content[-1] ^= 0xFF
    bad = _put(mnist_copy, "t10k-labels-idx1-ubyte", bytes(content), gz=False)
    with pytest.raises(DataCorruptError, match="t10k-labels-idx1-ubyte") as err:
        load_dataset("mnist", root=mnist_copy.parent)
    assert str(bad) in str(err.value)
    assert data._MNIST_MD5["t10k-labels-idx1-ubyte"].raw in str(err.value)


@pytest.mark.parametrize("damage", ["truncated", "garbage"])
def test_unreadable_gz_raises_corrupt(mnist_copy, mnist_raw, damage):
    stem = "t10k-labels-idx1-ubyte"
    path = _put(mnist_copy, stem, mnist_raw[stem])
    blob = path.read_bytes()
    path.write_bytes(blob[: len(blob) // 2] if damage == "truncated" else os.urandom(len(blob)))
    with pytest.raises(DataCorruptError) as err:
        load_dataset("mnist", root=mnist_copy.parent)
    assert str(path) in str(err.value) and data._MNIST_MD5[stem].gz in str(err.value)


def test_corrupt_root_does_not_fall_through(mnist_copy, mnist, monkeypatch):
    """Good data further down the search order must not hide a corrupt explicit root."""
    monkeypatch.setenv("GREENELM_DATA", os.path.dirname(mnist.source))
    (mnist_copy / "t10k-labels-idx1-ubyte.gz").write_bytes(b"not gzip at all")
    with pytest.raises(DataCorruptError):
        load_dataset("mnist", root=mnist_copy.parent)


def test_incomplete_root_is_skipped(mnist_copy, mnist, monkeypatch):
    monkeypatch.setenv("GREENELM_DATA", os.path.dirname(mnist.source))
    (mnist_copy / "t10k-labels-idx1-ubyte.gz").unlink()
    assert load_dataset("mnist", root=mnist_copy.parent).source == mnist.source


def test_idx_header_checks(tmp_path):
    path = tmp_path / "x-idx1-ubyte"
    good = bytes((0, 0, 8, 1)) + (3).to_bytes(4, "big") + bytes((1, 2, 3))
    np.testing.assert_array_equal(data._parse_idx(good, path, 1), [1, 2, 3])
    for bad in (bytes((0, 0, 9, 1)) + good[4:],      # wrong element type
                bytes((0, 0, 8, 3)) + good[4:],      # wrong number of dimensions
                good[:-1],                           # size disagrees with the header
                good[:3]):                           # not even a header
        with pytest.raises(DataCorruptError, match="x-idx1-ubyte"):
            data._parse_idx(bad, path, 1)


def test_pinned_raw_md5s_match_real_files(mnist_raw, fashion):
    for stem, content in mnist_raw.items():
        assert hashlib.md5(content).hexdigest() == data._MNIST_MD5[stem].raw
    # Debian's Fashion-MNIST is re-compressed: it validated through the decompressed md5s.
    for stem in MNIST_STEMS:
        gz = os.path.join(fashion.source, f"{stem}.gz")
        if os.path.isfile(gz):
            with gzip.open(gz, "rb") as f:
                assert hashlib.md5(f.read()).hexdigest() == data._FASHION_MD5[stem].raw


# --------------------------------------------------------------------------- roots

def test_candidate_roots_order(tmp_path, monkeypatch):
    monkeypatch.setenv("GREENELM_DATA", str(tmp_path / "env"))
    monkeypatch.setenv("GREENELM_CACHE", str(tmp_path / "cache"))
    roots = candidate_roots("mnist", tmp_path / "explicit")
    cache = tmp_path / "cache" / "data"
    assert roots == [tmp_path / "explicit", tmp_path / "env", cache,
                     data._DEBIAN_ROOT, cache / "torchvision"]
    monkeypatch.setenv("GREENELM_DATA", "")
    assert candidate_roots("mnist", str(cache)) == [cache, data._DEBIAN_ROOT, cache / "torchvision"]


def test_cache_dir_resolution(tmp_path, monkeypatch):
    monkeypatch.setenv("GREENELM_CACHE", str(tmp_path / "g"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache_dir() == tmp_path / "g" and cache_dir().is_dir()
    monkeypatch.delenv("GREENELM_CACHE")
    assert cache_dir() == tmp_path / "xdg" / "greenelm" and cache_dir().is_dir()
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert cache_dir() == tmp_path / "home" / ".cache" / "greenelm" and cache_dir().is_dir()


def test_explicit_root_beats_env(mnist_copy, mnist, monkeypatch):
    monkeypatch.setenv("GREENELM_DATA", os.path.dirname(mnist.source))
    assert load_dataset("mnist").source == mnist.source
    assert load_dataset("mnist", root=mnist_copy.parent).source == str(mnist_copy.resolve())


def test_env_var_root_and_torchvision_layout(tmp_path, mnist_raw, monkeypatch):
    folder = tmp_path / "MNIST" / "raw"  # torchvision's layout, uncompressed files
    for stem in MNIST_STEMS:
        _put(folder, stem, mnist_raw[stem], gz=False)
    monkeypatch.setenv("GREENELM_DATA", str(tmp_path))
    assert load_dataset("mnist").source == str(folder.resolve())


def test_not_found_lists_every_folder_and_remedies(no_data_anywhere, monkeypatch):
    calls = []
    monkeypatch.setattr(data, "_download", lambda *a: calls.append(a))
    empty = no_data_anywhere / "explicit"
    messages = {}
    for name in DATASETS:
        with pytest.raises(DataNotFoundError) as err:
            load_dataset(name, root=empty)
        msg = str(err.value)
        assert isinstance(err.value, FileNotFoundError)
        for root in candidate_roots(name, empty):
            assert str(root) in msg
        for sub in ("env", "cache", "debian", "explicit"):
            assert str(no_data_anywhere / sub) in msg
        assert "GREENELM_DATA" in msg and "download=True" in msg
        messages[name] = msg
    assert "apt-get install dataset-fashion-mnist" in messages["fashion-mnist"]
    assert calls == []  # download=False never reaches torchvision


# --------------------------------------------------------------------------- download hook

def _fake_torchvision(monkeypatch, cls_name, behaviour):
    """Install a stand-in torchvision whose dataset class runs ``behaviour(root)``."""
    calls = []

    class FakeDataset:
        def __init__(self, root, train=True, download=False):
            calls.append({"root": root, "train": train, "download": download})
            behaviour(root)

    datasets = types.ModuleType("torchvision.datasets")
    setattr(datasets, cls_name, FakeDataset)
    tv = types.ModuleType("torchvision")
    tv.datasets = datasets
    monkeypatch.setitem(sys.modules, "torchvision", tv)
    monkeypatch.setitem(sys.modules, "torchvision.datasets", datasets)
    return calls


def test_download_uses_torchvision_layout(no_data_anywhere, mnist_raw, monkeypatch):
    def write_like_torchvision(root):
        raw = os.path.join(root, "MNIST", "raw")
        os.makedirs(raw, exist_ok=True)
        for stem in MNIST_STEMS:  # torchvision keeps the .gz and writes the extracted file
            _put(pathlib.Path(raw), stem, mnist_raw[stem], gz=True)
            with open(os.path.join(raw, stem), "wb") as f:
                f.write(mnist_raw[stem])

    calls = _fake_torchvision(monkeypatch, "MNIST", write_like_torchvision)
    with pytest.raises(DataNotFoundError):
        load_dataset("mnist")
    assert calls == []
    ds = load_dataset("mnist", download=True, subset=10)
    tv_root = no_data_anywhere / "cache" / "data" / "torchvision"
    assert calls == [{"root": str(tv_root), "train": False, "download": True}]
    assert ds.source == str((tv_root / "MNIST" / "raw").resolve())
    assert ds.y_train.tolist() == [5, 0, 4, 1, 9, 2, 1, 3, 1, 4]
    load_dataset("mnist", download=True)  # already there: no second download
    assert len(calls) == 1


def test_download_failure_is_not_found(no_data_anywhere, monkeypatch):
    def offline(root):
        raise RuntimeError("Error downloading train-images-idx3-ubyte.gz")

    _fake_torchvision(monkeypatch, "FashionMNIST", offline)
    with pytest.raises(DataNotFoundError, match="download=True failed.*Error downloading") as err:
        load_dataset("fashion-mnist", download=True)
    assert str(no_data_anywhere / "env" / "fashion-mnist") in str(err.value)


def test_torchvision_has_the_classes_we_call():
    datasets = pytest.importorskip("torchvision.datasets")
    for name in DATASETS:
        assert hasattr(datasets, data._spec(name).torchvision)


# --------------------------------------------------------------------------- CIFAR-10 unpacking (synthetic)

@pytest.fixture
def tiny_cifar(tmp_path, monkeypatch):
    """A small tarball in CIFAR-10's python format (4 images per batch) with its md5s pinned."""
    rng = np.random.default_rng(0)
    members = {}
    for stem in CIFAR_STEMS[:-1]:
        batch = {b"batch_label": stem.encode(), b"filenames": [b"x.png"] * 4,
                 b"data": rng.integers(0, 256, (4, 3072), dtype=np.uint8),
                 b"labels": rng.integers(0, 10, 4).tolist()}
        members[stem] = pickle.dumps(batch, protocol=4)   # numpy's _reconstruct, like the official files
    members["batches.meta"] = pickle.dumps(
        {b"label_names": [c.encode() for c in CIFAR_CLASSES], b"num_cases_per_batch": 4}, protocol=4)
    for stem, blob in members.items():
        monkeypatch.setitem(data._CIFAR_MD5, stem, data._Md5(None, hashlib.md5(blob).hexdigest()))

    src = tmp_path / "src"
    (src / "cifar-10-batches-py").mkdir(parents=True)
    for stem, blob in members.items():
        (src / "cifar-10-batches-py" / stem).write_bytes(blob)
    (src / "cifar-10-batches-py" / "readme.html").write_text("ignored")
    tarball = tmp_path / "root" / "cifar-10" / "cifar-10-python.tar.gz"
    tarball.parent.mkdir(parents=True)
    with tarfile.open(tarball, "w:gz") as tar:
        tar.add(src / "cifar-10-batches-py", arcname="cifar-10-batches-py")
    monkeypatch.setenv("GREENELM_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("GREENELM_DATA", str(tmp_path / "nothing"))
    return types.SimpleNamespace(tarball=tarball, root=tarball.parent.parent, members=members,
                                 unpacked=tmp_path / "cache" / "data" / "cifar-10-batches-py")


def test_tiny_cifar_layout_and_hwc(tiny_cifar):
    ds = load_dataset("cifar10", root=tiny_cifar.root)
    assert ds.x_train.shape == (20, 32, 32, 3) and ds.x_test.shape == (4, 32, 32, 3)
    assert ds.source == str(tiny_cifar.tarball.parent.resolve())
    first = data._load_cifar_batch(tiny_cifar.members["data_batch_1"], pathlib.Path("data_batch_1"))[b"data"]
    i, h, w, c = 2, 5, 17, 1
    assert ds.x_train[i, h, w, c] == first[i, c * 1024 + h * 32 + w]
    assert ds.classes == CIFAR_CLASSES
    assert sorted(p.name for p in tiny_cifar.unpacked.iterdir()) == sorted(CIFAR_STEMS)


def test_tiny_cifar_rename_is_atomic_and_a_lost_race_is_discarded(tiny_cifar, monkeypatch):
    real_rename = os.rename
    seen = []

    def racing_rename(src, dst):
        # Our copy is complete and verified before it becomes visible ...
        assert not os.path.exists(dst)
        assert sorted(os.listdir(src)) == sorted(CIFAR_STEMS)
        # ... and meanwhile another process wins the race.
        os.makedirs(dst)
        for stem, blob in tiny_cifar.members.items():
            with open(os.path.join(dst, stem), "wb") as f:
                f.write(blob)
        open(os.path.join(dst, "winner"), "w").close()
        seen.append(src)
        return real_rename(src, dst)  # fails: dst exists and is not empty

    monkeypatch.setattr(data.os, "rename", racing_rename)
    ds = load_dataset("cifar10", root=tiny_cifar.root)
    assert len(seen) == 1 and ds.x_train.shape == (20, 32, 32, 3)
    assert (tiny_cifar.unpacked / "winner").exists()  # the winner's copy was kept
    assert os.listdir(tiny_cifar.unpacked.parent) == ["cifar-10-batches-py"]  # ours was removed


def test_tiny_cifar_bad_member_raises_and_leaves_nothing(tiny_cifar, monkeypatch):
    monkeypatch.setitem(data._CIFAR_MD5, "test_batch", data._Md5(None, "0" * 32))
    with pytest.raises(DataCorruptError) as err:
        load_dataset("cifar10", root=tiny_cifar.root)
    msg = str(err.value)
    assert str(tiny_cifar.tarball) in msg and "test_batch" in msg and "0" * 32 in msg
    assert hashlib.md5(tiny_cifar.members["test_batch"]).hexdigest() in msg
    assert not tiny_cifar.unpacked.parent.exists() or not os.listdir(tiny_cifar.unpacked.parent)


def test_tiny_cifar_damaged_tarball(tiny_cifar):
    blob = tiny_cifar.tarball.read_bytes()
    tiny_cifar.tarball.write_bytes(blob[: len(blob) // 2])
    with pytest.raises(DataCorruptError, match="cifar-10-python.tar.gz"):
        load_dataset("cifar10", root=tiny_cifar.root)
    assert not tiny_cifar.unpacked.exists()


def test_tiny_cifar_corrupted_cache_is_reported(tiny_cifar):
    load_dataset("cifar10", root=tiny_cifar.root)
    data._load_verified.cache_clear()
    (tiny_cifar.unpacked / "data_batch_3").write_bytes(b"tampered")
    with pytest.raises(DataCorruptError) as err:
        load_dataset("cifar10", root=tiny_cifar.root)
    msg = str(err.value)
    assert str(tiny_cifar.unpacked / "data_batch_3") in msg
    assert f"Delete the folder {tiny_cifar.unpacked}" in msg


# --------------------------------------------------------------------------- CIFAR-10: no code runs from a batch

class _Armed:
    """Unpickling this calls ``function(*args)`` (e.g. creates a marker file)."""

    def __init__(self, function, *args):
        self.function, self.args = function, args

    def __reduce__(self):
        return (self.function, self.args)


def _evil_batches(marker: pathlib.Path) -> dict[str, bytes]:
    quoted = repr(str(marker))
    good = {b"data": np.zeros((1, 3072), np.uint8), b"labels": [0]}
    return {
        "open": pickle.dumps({**good, b"labels": _Armed(open, str(marker), "w")}, protocol=4),
        "os.system": pickle.dumps({**good, b"x": _Armed(os.system, f"touch {quoted}")}, protocol=4),
        "eval": pickle.dumps({**good, b"x": _Armed(eval, f"open({quoted}, 'w')")}, protocol=4),
        "numpy.load": pickle.dumps({**good, b"data": _Armed(np.load, str(marker))}, protocol=4),
        "object array": pickle.dumps({**good, b"data": np.array([b"x", 1], dtype=object)}, protocol=4),
        "protocol 5 buffer": pickle.dumps(good, protocol=5),
    }


@pytest.mark.parametrize("kind, words", [
    ("open", "refusing global io.open"), ("os.system", "refusing global posix.system"),
    ("eval", "refusing global builtins.eval"), ("numpy.load", "refusing global numpy.load"),
    ("object array", "refusing the object dtype"), ("protocol 5 buffer", f"refusing global {np.zeros(0).__reduce_ex__(5)[0].__module__}._frombuffer"),
])
def test_restricted_unpickler_refuses_anything_but_plain_arrays(tmp_path, kind, words):
    marker = tmp_path / "pwned"
    blob = _evil_batches(marker)[kind]
    with pytest.raises(DataCorruptError) as err:
        data._load_cifar_batch(blob, tmp_path / "data_batch_1")
    assert words in str(err.value) and str(tmp_path / "data_batch_1") in str(err.value)
    assert not marker.exists()


def test_armed_batch_would_run_code_without_the_restriction(tmp_path):
    """The malicious batches above are live: plain pickle.loads of one creates the marker."""
    marker = tmp_path / "pwned"
    pickle.loads(_evil_batches(marker)["open"])[b"labels"].close()
    assert marker.exists()


@pytest.mark.parametrize("blob, words", [
    (pickle.dumps([1, 2], protocol=4), "is a dict, this file holds a list"),
    (b"not a pickle", "not a CIFAR-10 python batch"),
    (pickle.dumps({b"labels": [1]}, protocol=4), "lacks the field b'data'"),
], ids=["list", "garbage", "no data"])
def test_malformed_batches_are_reported(tiny_cifar, monkeypatch, blob, words):
    load_dataset("cifar10", root=tiny_cifar.root)               # unpacks the good batches
    data._load_verified.cache_clear()
    monkeypatch.setitem(data._CIFAR_MD5, "test_batch", data._Md5(None, hashlib.md5(blob).hexdigest()))
    (tiny_cifar.unpacked / "test_batch").write_bytes(blob)
    with pytest.raises(DataCorruptError, match=re.escape(words)) as err:
        load_dataset("cifar10", root=tiny_cifar.root)
    assert str(tiny_cifar.unpacked / "test_batch") in str(err.value)


def test_a_planted_batch_with_a_pinned_md5_never_runs(tiny_cifar, monkeypatch, tmp_path):
    marker = tmp_path / "pwned"
    evil = _evil_batches(marker)["open"]
    load_dataset("cifar10", root=tiny_cifar.root)
    data._load_verified.cache_clear()
    monkeypatch.setitem(data._CIFAR_MD5, "test_batch", data._Md5(None, hashlib.md5(evil).hexdigest()))
    (tiny_cifar.unpacked / "test_batch").write_bytes(evil)
    with pytest.raises(DataCorruptError, match="refusing global io.open"):
        load_dataset("cifar10", root=tiny_cifar.root)
    assert not marker.exists()


_STALLING_UNPACK = """
import pathlib, sys, tempfile, time
from greenelm._cachefiles import temp_prefix
folder = pathlib.Path(sys.argv[1])
folder.mkdir(parents=True, exist_ok=True)
tmp = pathlib.Path(tempfile.mkdtemp(prefix=temp_prefix("cifar-10-batches-py"), suffix=".tmp", dir=folder))
(tmp / "data_batch_1").write_bytes(b"half a batch")
print("ready", flush=True)
time.sleep(600)
"""


def _killed_unpacking(folder: pathlib.Path) -> pathlib.Path:
    """Start an unpacking into ``folder`` in a subprocess, kill it mid-way; return its temp folder."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(pathlib.Path(__file__).parents[1]),
                                                       os.environ.get("PYTHONPATH", "")])}
    proc = subprocess.Popen([sys.executable, "-c", _STALLING_UNPACK, str(folder)], env=env,
                            stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == "ready"
        (left,) = folder.glob(".cifar-10-batches-py.*.tmp")
        assert data.remove_stale_temporaries(folder) == [] and left.is_dir()   # its writer lives: kept
    finally:
        proc.kill()
        proc.wait()
        proc.stdout.close()
    return left


@pytest.mark.parametrize("unpacked_before", [False, True])
def test_killed_unpacking_is_cleaned_by_the_next_load(tiny_cifar, unpacked_before):
    if unpacked_before:
        load_dataset("cifar10", root=tiny_cifar.root)
        data._load_verified.cache_clear()
    left = _killed_unpacking(tiny_cifar.unpacked.parent)
    ds = load_dataset("cifar10", root=tiny_cifar.root)
    assert not left.exists()
    assert os.listdir(tiny_cifar.unpacked.parent) == ["cifar-10-batches-py"]
    assert ds.x_train.shape == (20, 32, 32, 3) and ds.classes == CIFAR_CLASSES
