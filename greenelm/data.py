"""Checksum-verified loaders for the paper's datasets: MNIST, Fashion-MNIST and CIFAR-10.

``load_dataset(name)`` returns a :class:`Dataset` of uint8 images and int64 labels:

============== ======================= ======================
dataset        ``x_train``              ``x_test``
============== ======================= ======================
mnist          (60000, 28, 28)          (10000, 28, 28)
fashion-mnist  (60000, 28, 28)          (10000, 28, 28)
cifar10        (50000, 32, 32, 3) RGB   (10000, 32, 32, 3) RGB
============== ======================= ======================

Nothing is parsed before its md5 matches a pinned checksum. CIFAR-10's python batches
are pickles: once their md5 matches, they are read by a restricted unpickler that can
only rebuild numpy arrays of plain dtypes inside dicts and lists (any other global, as a
crafted file would need to run code, is refused with :class:`DataCorruptError`). Gzipped idx files are
accepted when either the ``.gz`` itself has the official md5 or its decompressed
content has the pinned md5 of the original file (Debian's Fashion-MNIST, and any
user re-compression, change the ``.gz`` bytes but not the content).

Data roots are searched in this order; the first root holding a complete copy wins:

1. the explicit ``root`` argument;
2. the environment variable ``GREENELM_DATA``;
3. ``cache_dir() / "data"``;
4. ``/usr/share/datasets`` (Debian's ``dataset-fashion-mnist`` package);
5. ``cache_dir() / "data" / "torchvision"``, where ``download=True`` makes torchvision
   download the data when no earlier root has it.

Inside a root the files are looked for in ``mnist/`` or ``MNIST/raw/`` (MNIST),
``fashion-mnist/`` or ``FashionMNIST/raw/`` (Fashion-MNIST), and for CIFAR-10 in an
unpacked ``cifar-10-batches-py/`` (in the root or in ``cifar-10/``) or a tarball
``cifar-10/cifar-10-python.tar.gz`` (or ``cifar-10-python.tar.gz``). A tarball is
unpacked once, atomically, into ``cache_dir() / "data" / "cifar-10-batches-py"``; the
temporary folder of an unpacking that was killed is removed by a later load (the rule is
in :mod:`greenelm._cachefiles`).

A root with missing files is skipped; a root whose files are all present but fail
verification raises :class:`DataCorruptError` instead of silently falling through.
"""

from __future__ import annotations

import dataclasses
import functools
import gzip
import hashlib
import io
import os
import pathlib
import pickle
import shutil
import tarfile
import tempfile
import zlib
from dataclasses import dataclass
from typing import Callable, NamedTuple

import numpy as np

from ._cachefiles import remove_stale_temporaries, temp_prefix

__all__ = [
    "DATASETS",
    "DataCorruptError",
    "DataNotFoundError",
    "Dataset",
    "cache_dir",
    "candidate_roots",
    "load_dataset",
]

DATASETS = ("mnist", "fashion-mnist", "cifar10")

_DEBIAN_ROOT = pathlib.Path("/usr/share/datasets")
_CIFAR_DIR = "cifar-10-batches-py"
_CIFAR_TARBALL = "cifar-10-python.tar.gz"


class DataNotFoundError(FileNotFoundError):
    """No data root holds a complete copy of the dataset (the message says where we looked)."""


class DataCorruptError(ValueError):
    """A dataset file is present but fails its md5 check or cannot be parsed."""


@dataclass(frozen=True, eq=False)
class Dataset:
    """One dataset, with read-only arrays.

    ``x_train``/``x_test`` are uint8: (N, 28, 28) for MNIST and Fashion-MNIST,
    (N, 32, 32, 3) HWC RGB for CIFAR-10. ``y_train``/``y_test`` are int64 (N,) in 0..9.
    ``source`` is the folder the files came from (for CIFAR-10 read from a tarball,
    the tarball's folder).
    """

    name: str
    x_train: np.ndarray
    y_train: np.ndarray
    x_test: np.ndarray
    y_test: np.ndarray
    classes: tuple[str, ...]
    source: str

    def flat(self, split: str = "train", dtype=np.float64) -> np.ndarray:
        """Images of ``split`` ("train" or "test") as a new (N, D) float array in [0, 1].

        D is 784 for MNIST/Fashion-MNIST and 3072 for CIFAR-10 (HWC order).
        """
        if split not in ("train", "test"):
            raise ValueError(f"split must be 'train' or 'test', not {split!r}")
        dtype = np.dtype(dtype)
        if not np.issubdtype(dtype, np.floating):
            raise ValueError(f"flat() needs a floating dtype, not {dtype}")
        x = self.x_train if split == "train" else self.x_test
        out = x.reshape(len(x), -1).astype(dtype)
        out /= 255
        return out

    def __repr__(self) -> str:
        return (
            f"Dataset(name={self.name!r}, x_train={self.x_train.shape}, "
            f"x_test={self.x_test.shape}, classes={len(self.classes)}, source={self.source!r})"
        )


# --------------------------------------------------------------------------- checksums

class _Md5(NamedTuple):
    gz: str | None  # md5 of the official .gz file (None: the file is never gzipped)
    raw: str        # md5 of the (decompressed) file content


# The .gz md5s are the official ones (those torchvision checks). The raw md5s are of
# the decompressed official files; Fashion-MNIST's were computed from Debian's
# dataset-fashion-mnist files, whose decompressed content is the original data.
_MNIST_MD5 = {
    "train-images-idx3-ubyte": _Md5("f68b3c2dcbeaaa9fbdd348bbdeb94873", "6bbc9ace898e44ae57da46a324031adb"),
    "train-labels-idx1-ubyte": _Md5("d53e105ee54ea40749a09fcbcd1e9432", "a25bea736e30d166cdddb491f175f624"),
    "t10k-images-idx3-ubyte": _Md5("9fb629c4189551a2d022fa330f9573f3", "2646ac647ad5339dbf082846283269ea"),
    "t10k-labels-idx1-ubyte": _Md5("ec29112dd5afa0611ce80d1b7f02629c", "27ae3e4e09519cfbb04c329615203637"),
}
_FASHION_MD5 = {
    "train-images-idx3-ubyte": _Md5("8d4fb7e6c68d591d4c3dfef9ec88bf0d", "f4a8712d7a061bf5bd6d2ca38dc4d50a"),
    "train-labels-idx1-ubyte": _Md5("25c81989df183df01b3e8a0aad5dffbe", "9018921c3c673c538a1fc5bad174d6f9"),
    "t10k-images-idx3-ubyte": _Md5("bef4ecab320f06d8554ea6380940ec79", "8181f5470baa50b63fa0f6fddb340f0a"),
    "t10k-labels-idx1-ubyte": _Md5("bb300cfdad3c16e7a12a480ee83cd310", "15d484375f8d13e6eb1aabb0c3f46965"),
}
_CIFAR_MD5 = {
    "data_batch_1": _Md5(None, "c99cafc152244af753f735de768cd75f"),
    "data_batch_2": _Md5(None, "d4bba439e000b95fd0a9bffe97cbabec"),
    "data_batch_3": _Md5(None, "54ebc095f3ab1f0389bbae665268c751"),
    "data_batch_4": _Md5(None, "634d18415352ddfa80567beed471001a"),
    "data_batch_5": _Md5(None, "482c414d41f54cd18b22e5b47cb7c3cb"),
    "test_batch": _Md5(None, "40351d587109b95175f43aff81a1287e"),
    "batches.meta": _Md5(None, "5ff9c542aee3614f3951f8cda6e48888"),
}


def _md5() -> "hashlib._Hash":
    return hashlib.md5(usedforsecurity=False)


def _fix_hint(path: pathlib.Path) -> str:
    """How to repair a bad file: derived files in the cache are re-created, others re-fetched."""
    unpacked = _cifar_cache()
    if path.parent == unpacked:
        return (f"Delete the folder {unpacked}; it is unpacked again from "
                f"{_CIFAR_TARBALL} on the next load.")
    return ("Delete it and obtain it again: copy it again from a good source, or remove "
            "it and call load_dataset(..., download=True) to re-download it.")


def _corrupt(path: pathlib.Path, expected: str, actual: str, detail: str = "") -> DataCorruptError:
    detail = f" ({detail})" if detail else ""
    return DataCorruptError(
        f"{path}: md5 mismatch{detail}: expected {expected}, got {actual}. "
        f"The file is damaged or not the official one. {_fix_hint(path)}"
    )


def _read_verified(path: pathlib.Path, md5: _Md5) -> bytes:
    """Return the content of ``path`` (decompressed if it ends in .gz) once its md5 matches."""
    blob = path.read_bytes()
    if path.suffix == ".gz":
        gz_md5 = _md5()
        gz_md5.update(blob)
        gz_actual = gz_md5.hexdigest()
        try:
            blob = gzip.decompress(blob)
        except (OSError, EOFError, zlib.error) as exc:  # BadGzipFile is an OSError
            raise _corrupt(path, md5.gz or "(not gzipped)", gz_actual,
                           f"not a readable gzip file: {exc}") from exc
        if gz_actual == md5.gz:
            return blob
    raw = _md5()
    raw.update(blob)
    if raw.hexdigest() != md5.raw:
        if path.suffix == ".gz":
            raise _corrupt(path, f"{md5.gz} for the .gz file or {md5.raw} for its content",
                           f"{gz_actual} and {raw.hexdigest()}")
        raise _corrupt(path, md5.raw, raw.hexdigest())
    return blob


# --------------------------------------------------------------------------- parsers

def _parse_idx(data: bytes, path: pathlib.Path, ndim: int) -> np.ndarray:
    """Parse an idx file of unsigned bytes with ``ndim`` dimensions (magic 00 00 08 ndim)."""
    magic = bytes((0, 0, 0x08, ndim))
    header = 4 + 4 * ndim
    if len(data) < header or data[:4] != magic:
        raise DataCorruptError(
            f"{path}: not an idx file of {ndim}-d unsigned bytes (magic {data[:4].hex()}, "
            f"expected {magic.hex()}). {_fix_hint(path)}")
    dims = tuple(int(d) for d in np.frombuffer(data, ">u4", count=ndim, offset=4))
    if len(data) != header + int(np.prod(dims)):
        raise DataCorruptError(
            f"{path}: idx header says shape {dims} ({header + int(np.prod(dims))} bytes) "
            f"but the file has {len(data)} bytes. {_fix_hint(path)}")
    return np.frombuffer(data, np.uint8, offset=header).reshape(dims)


def _check_split(x: np.ndarray, y: np.ndarray, where: pathlib.Path) -> None:
    if len(x) != len(y) or (y.size and (y.min() < 0 or y.max() > 9)):
        raise DataCorruptError(
            f"{where}: {len(x)} images but {len(y)} labels, or labels outside 0..9. "
            f"{_fix_hint(where)}")


_Arrays = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, "tuple[str, ...] | None"]


def _read_idx_set(files: dict[str, pathlib.Path], md5s: dict[str, _Md5]) -> _Arrays:
    """Read the four idx files (MNIST layout) into x_train, y_train, x_test, y_test."""
    arrays = {}
    for stem, path in files.items():
        ndim = int(stem.rsplit("-idx", 1)[1][0])  # "train-images-idx3-ubyte" -> 3
        arrays[stem] = _parse_idx(_read_verified(path, md5s[stem]), path, ndim)
    out = []
    for split in ("train", "t10k"):
        x = arrays[f"{split}-images-idx3-ubyte"]
        y = arrays[f"{split}-labels-idx1-ubyte"].astype(np.int64)
        _check_split(x, y, files[f"{split}-labels-idx1-ubyte"])
        out += [x, y]
    return (*out, None)


def _numpy_dtype(*args):
    """``numpy.dtype`` as the unpickler may call it: plain dtypes only (no Python objects inside)."""
    dtype = np.dtype(*args)
    if dtype.hasobject:
        raise pickle.UnpicklingError(f"refusing the object dtype {dtype}")
    return dtype


# The only globals the official CIFAR-10 batches (and pickle.dumps of the same dicts) refer to:
# numpy's array reconstruction. numpy 1.x pickles name numpy.core, numpy 2 numpy._core.
_ARRAY_RECONSTRUCT = np.ndarray.__reduce__(np.zeros(0, np.uint8))[0]
_CIFAR_GLOBALS = {
    ("numpy.core.multiarray", "_reconstruct"): _ARRAY_RECONSTRUCT,
    ("numpy._core.multiarray", "_reconstruct"): _ARRAY_RECONSTRUCT,
    ("numpy", "ndarray"): np.ndarray,
    ("numpy", "dtype"): _numpy_dtype,
}


class _CifarUnpickler(pickle.Unpickler):
    """Unpickler that resolves only :data:`_CIFAR_GLOBALS`; any other global is refused."""

    def find_class(self, module, name):
        try:
            return _CIFAR_GLOBALS[module, name]
        except KeyError:
            raise pickle.UnpicklingError(
                f"refusing global {module}.{name}: a CIFAR-10 batch holds only dicts, lists, "
                f"bytes, numbers and numpy arrays") from None

    def persistent_load(self, pid):
        raise pickle.UnpicklingError("refusing a persistent id: CIFAR-10 batches have none")


def _load_cifar_batch(blob: bytes, path: pathlib.Path) -> dict:
    """Unpickle one CIFAR-10 python batch (a dict keyed by bytes) with the restricted unpickler."""
    try:
        batch = _CifarUnpickler(io.BytesIO(blob), encoding="bytes").load()
    except Exception as exc:  # malformed pickles raise many types; none may escape as a crash
        raise DataCorruptError(f"{path}: not a CIFAR-10 python batch ({type(exc).__name__}: {exc}). "
                               f"{_fix_hint(path)}") from exc
    if not isinstance(batch, dict):
        raise DataCorruptError(f"{path}: a CIFAR-10 batch is a dict, this file holds a "
                               f"{type(batch).__name__}. {_fix_hint(path)}")
    return batch


def _read_cifar(files: dict[str, pathlib.Path], md5s: dict[str, _Md5]) -> _Arrays:
    """Read the CIFAR-10 python batches into HWC uint8 images and int64 labels."""
    def load(stem):
        return _load_cifar_batch(_read_verified(files[stem], md5s[stem]), files[stem])

    def field(batch, key, stem):
        if key not in batch:
            raise DataCorruptError(f"{files[stem]}: lacks the field {key!r}. {_fix_hint(files[stem])}")
        return batch[key]

    def split(stems):
        batches = [(stem, load(stem)) for stem in stems]
        x = np.concatenate([np.asarray(field(b, b"data", s), dtype=np.uint8) for s, b in batches])
        y = np.concatenate([np.asarray(field(b, b"labels", s), dtype=np.int64) for s, b in batches])
        x = np.ascontiguousarray(x.reshape(-1, 3, 32, 32).transpose(0, 2, 3, 1))
        _check_split(x, y, files[stems[0]])
        return x, y

    x_train, y_train = split([f"data_batch_{i}" for i in range(1, 6)])
    x_test, y_test = split(["test_batch"])
    classes = tuple(n.decode() for n in field(load("batches.meta"), b"label_names", "batches.meta"))
    return x_train, y_train, x_test, y_test, classes


# --------------------------------------------------------------------------- datasets

class _Spec(NamedTuple):
    name: str
    title: str
    folders: tuple[str, ...]   # folders, relative to a root, that may hold the files
    archives: tuple[str, ...]  # tarballs, relative to a root, that may hold them
    md5: dict[str, _Md5]       # file stem -> checksums
    reader: Callable[[dict[str, pathlib.Path], dict[str, _Md5]], _Arrays]
    classes: tuple[str, ...] | None
    torchvision: str           # torchvision.datasets class used by download=True
    layout: str                # for error messages: what a root should contain
    hint: str = ""             # extra way to obtain the data


_SPECS = {
    "mnist": _Spec(
        "mnist", "MNIST", ("mnist", "MNIST/raw"), (), _MNIST_MD5, _read_idx_set,
        tuple(str(d) for d in range(10)), "MNIST",
        "mnist/ with the four idx files (.gz or uncompressed)"),
    "fashion-mnist": _Spec(
        "fashion-mnist", "Fashion-MNIST", ("fashion-mnist", "FashionMNIST/raw"), (),
        _FASHION_MD5, _read_idx_set,
        ("T-shirt/top", "Trouser", "Pullover", "Dress", "Coat",
         "Sandal", "Shirt", "Sneaker", "Bag", "Ankle boot"), "FashionMNIST",
        "fashion-mnist/ with the four idx files (.gz or uncompressed)",
        "`apt-get install dataset-fashion-mnist` (installs it in /usr/share/datasets/fashion-mnist)"),
    "cifar10": _Spec(
        "cifar10", "CIFAR-10", (_CIFAR_DIR, f"cifar-10/{_CIFAR_DIR}"),
        (f"cifar-10/{_CIFAR_TARBALL}", _CIFAR_TARBALL), _CIFAR_MD5, _read_cifar,
        None, "CIFAR10",
        f"cifar-10/{_CIFAR_TARBALL} or an unpacked {_CIFAR_DIR}/"),
}
_ALIASES = {"fashion_mnist": "fashion-mnist", "fmnist": "fashion-mnist", "cifar-10": "cifar10"}


def _spec(name: str) -> _Spec:
    key = str(name).strip().lower()
    key = _ALIASES.get(key, key)
    if key not in _SPECS:
        raise ValueError(f"unknown dataset {name!r}; known datasets: {', '.join(DATASETS)} "
                         f"(aliases: {', '.join(_ALIASES)})")
    return _SPECS[key]


# --------------------------------------------------------------------------- roots

def cache_dir() -> pathlib.Path:
    """greenelm's cache folder: $GREENELM_CACHE, else $XDG_CACHE_HOME/greenelm, else ~/.cache/greenelm.

    It is created if missing (when it cannot be, the path is still returned and the
    error surfaces when something is written there).
    """
    if os.environ.get("GREENELM_CACHE"):
        path = pathlib.Path(os.environ["GREENELM_CACHE"])
    elif os.environ.get("XDG_CACHE_HOME"):
        path = pathlib.Path(os.environ["XDG_CACHE_HOME"]) / "greenelm"
    else:
        path = pathlib.Path.home() / ".cache" / "greenelm"
    path = path.expanduser()
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError:
        pass
    return path


def _cifar_cache() -> pathlib.Path:
    return cache_dir() / "data" / _CIFAR_DIR


def _torchvision_root() -> pathlib.Path:
    return cache_dir() / "data" / "torchvision"


def candidate_roots(name: str, root=None) -> list[pathlib.Path]:
    """Data roots searched for dataset ``name``, in order, without duplicates (see module doc)."""
    _spec(name)
    cache = cache_dir() / "data"
    roots = []
    for r in (root, os.environ.get("GREENELM_DATA"), cache, _DEBIAN_ROOT, _torchvision_root()):
        if r is not None and str(r) != "":
            path = pathlib.Path(r).expanduser()
            if path not in roots:
                roots.append(path)
    return roots


def _find_files(folder: pathlib.Path, md5s: dict[str, _Md5]):
    """Map each needed file stem to the file found in ``folder`` (plain or .gz); list the missing."""
    found, missing = {}, []
    for stem in md5s:
        path = next((p for p in (folder / stem, folder / f"{stem}.gz") if p.is_file()), None)
        if path is None:
            missing.append(stem)
        else:
            found[stem] = path
    return found, missing


class _Hit(NamedTuple):
    folder: pathlib.Path                # where the files (or the tarball) are
    archive: pathlib.Path | None = None  # the tarball, when the data is packed


def _search(spec: _Spec, roots: list[pathlib.Path]) -> tuple[_Hit | None, list[str]]:
    """First complete copy of the dataset in ``roots``, and a line per place looked in."""
    looked = []
    for root in roots:
        for rel in spec.folders:
            folder = root / rel
            found, missing = _find_files(folder, spec.md5)
            if not missing:
                return _Hit(folder), looked
            why = ("no such folder" if not folder.is_dir() else
                   "none of the files" if not found else f"missing {', '.join(missing)}")
            looked.append(f"{folder}  ({why})")
        for rel in spec.archives:
            archive = root / rel
            if archive.is_file():
                return _Hit(archive.parent, archive), looked
            looked.append(f"{archive}  (no such file)")
    return None, looked


def _not_found(spec: _Spec, looked: list[str], extra: str = "") -> DataNotFoundError:
    files = ", ".join(f"{stem}[.gz]" if spec.md5[stem].gz else stem for stem in spec.md5)
    ways = [f"set the environment variable GREENELM_DATA (or pass root=...) to a folder "
            f"containing {spec.layout}"]
    if spec.hint:
        ways.append(spec.hint)
    ways.append(f"call load_dataset({spec.name!r}, download=True) to download it with "
                f"torchvision into {_torchvision_root()} (needs internet)")
    return DataNotFoundError(
        f"{spec.title} not found (needed files: {files}). Looked in:\n  "
        + "\n  ".join(looked)
        + (f"\n{extra}" if extra else "")
        + "\nTo obtain it:\n  - " + "\n  - ".join(ways)
    )


# --------------------------------------------------------------------------- CIFAR-10 unpacking

def _unpack_cifar(archive: pathlib.Path) -> pathlib.Path:
    """Unpack the CIFAR-10 batches from ``archive`` once into the cache; return that folder.

    The members are extracted, md5-verified, into a temporary folder next to the
    target, which is then renamed into place; when another process got there first,
    its copy is kept and ours is discarded. Temporary folders left there by a killed
    unpacking are removed first (:func:`greenelm._cachefiles.remove_stale_temporaries`).
    """
    target = _cifar_cache()
    remove_stale_temporaries(target.parent)
    if target.is_dir():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = pathlib.Path(tempfile.mkdtemp(prefix=temp_prefix(_CIFAR_DIR), suffix=".tmp", dir=target.parent))
    try:
        tmp.chmod(0o755)  # mkdtemp's 0o700 would hide a shared cache from other users
        _extract_verified(archive, tmp)
        try:
            os.rename(tmp, target)
        except OSError:
            if not target.is_dir():
                raise  # a real failure, not a lost race
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return target


def _extract_verified(archive: pathlib.Path, dest: pathlib.Path) -> None:
    """Stream the needed members of ``archive`` into ``dest``, checking each one's md5."""
    wanted = {f"{_CIFAR_DIR}/{stem}": stem for stem in _CIFAR_MD5}
    try:
        with tarfile.open(archive, "r:gz") as tar:
            for member in tar:  # one sequential pass: members come in any order
                name = member.name.removeprefix("./")
                if name not in wanted or not member.isfile():
                    continue
                stem = wanted.pop(name)
                md5 = _md5()
                with tar.extractfile(member) as src, open(dest / stem, "wb") as out:
                    while chunk := src.read(1 << 20):
                        md5.update(chunk)
                        out.write(chunk)
                if md5.hexdigest() != _CIFAR_MD5[stem].raw:
                    raise _corrupt(pathlib.Path(f"{archive}:{member.name}"),
                                   _CIFAR_MD5[stem].raw, md5.hexdigest())
    except (tarfile.TarError, OSError, EOFError, zlib.error) as exc:
        if isinstance(exc, OSError) and exc.errno is not None:
            raise  # a disk problem (full, permissions), not a damaged tarball
        raise DataCorruptError(
            f"{archive}: cannot be unpacked ({exc}). The file is damaged. "
            f"{_fix_hint(archive)}") from exc
    if wanted:
        raise DataCorruptError(
            f"{archive}: lacks {', '.join(sorted(wanted))}; it is not the CIFAR-10 python "
            f"tarball. {_fix_hint(archive)}")


# --------------------------------------------------------------------------- loading

def _readonly(arr: np.ndarray) -> np.ndarray:
    arr.flags.writeable = False
    return arr


@functools.lru_cache(maxsize=8)
def _load_verified(name: str, folder: str) -> Dataset:
    """Verify and parse the dataset files in ``folder`` (memoized per process)."""
    spec = _SPECS[name]
    found, missing = _find_files(pathlib.Path(folder), spec.md5)
    if missing:  # only a folder we unpacked ourselves can lose files after the search
        stem = missing[0]
        raise _corrupt(pathlib.Path(folder) / stem, spec.md5[stem].raw, "no file")
    x_train, y_train, x_test, y_test, classes = spec.reader(found, spec.md5)
    arrays = [_readonly(a) for a in (x_train, y_train, x_test, y_test)]
    return Dataset(name, *arrays, classes or spec.classes, folder)


def load_dataset(name: str, root: str | os.PathLike | None = None, download: bool = False,
                 subset: int | None = None) -> Dataset:
    """Load dataset ``name`` ("mnist", "fashion-mnist" or "cifar10"), md5-verified.

    ``root`` is searched first (see the module doc for the full order). ``download=True``
    lets torchvision download the data when no root has it. ``subset`` keeps the first
    ``subset`` training and test samples. Arrays are read-only and shared between calls.

    Examples
    --------
    >>> from greenelm import load_dataset
    >>> mnist = load_dataset("mnist", subset=100)          # doctest: +SKIP
    >>> mnist.flat("train").shape, mnist.y_train.shape      # doctest: +SKIP
    ((100, 784), (100,))
    """
    spec = _spec(name)
    if subset is not None and (isinstance(subset, bool) or int(subset) != subset or subset < 1):
        raise ValueError(f"subset must be an integer >= 1 (or None), not {subset!r}")

    hit, looked = _search(spec, candidate_roots(spec.name, root))
    if hit is None and download:
        try:
            _download(spec, _torchvision_root())
        except Exception as exc:  # network failures come in many types
            raise _not_found(spec, looked, f"download=True failed: {exc!r}") from exc
        hit, _ = _search(spec, [_torchvision_root()])
    if hit is None:
        raise _not_found(spec, looked)

    data_dir = _unpack_cifar(hit.archive) if hit.archive else hit.folder
    ds = _load_verified(spec.name, str(data_dir.resolve()))
    source = str(hit.folder.resolve())
    if ds.source != source:
        ds = dataclasses.replace(ds, source=source)
    if subset is not None:
        n = int(subset)
        ds = dataclasses.replace(ds, x_train=ds.x_train[:n], y_train=ds.y_train[:n],
                                 x_test=ds.x_test[:n], y_test=ds.y_test[:n])
    return ds


def _download(spec: _Spec, dest: pathlib.Path) -> None:
    """Have torchvision download ``spec`` into ``dest`` (its own layout, its own checks)."""
    from torchvision import datasets  # imported here: only downloads need torchvision

    dest.mkdir(parents=True, exist_ok=True)
    # One instantiation downloads both splits; train=False keeps torchvision's own load small.
    getattr(datasets, spec.torchvision)(root=str(dest), train=False, download=True)


def _main(argv=None) -> int:
    """``python -m greenelm.data --check``: report where each dataset is found, or why not."""
    import argparse

    parser = argparse.ArgumentParser(description="Find and verify the Green-ELM datasets.")
    parser.add_argument("--check", action="store_true", help="load and checksum every dataset")
    parser.add_argument("--download", action="store_true", help="allow torchvision downloads")
    args = parser.parse_args(argv)
    missing = 0
    for name in DATASETS:
        try:
            dataset = load_dataset(name, download=args.download)
        except (DataNotFoundError, DataCorruptError) as error:
            missing += 1
            print(f"{name}: NOT AVAILABLE\n  {error}")
        else:
            print(f"{name}: ok ({len(dataset.y_train)} train + {len(dataset.y_test)} test, "
                  f"checksums verified) from {dataset.source}")
    return 1 if missing else 0


if __name__ == "__main__":
    raise SystemExit(_main())
