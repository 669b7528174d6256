"""The frontier's protocol: every choice on held-out training rows, the test set read once, per seed.

Per dataset and seed (:func:`run_protocol`):

1. a seeded split of the *training* rows into fit rows and validation rows
   (:func:`greenelm.kernel_limit.held_out_rows`, seed = the run's seed);
2. every candidate of a grid given as data (:class:`Candidate`, :func:`expand_grid`; the grid of
   ``params/frontier_protocol.yml``, fixed before any run) is built (:func:`build_model`: the
   library's :class:`greenelm.RandomPatchFeatures`, then a ridge readout, the paper's map of width d
   with its readout, or the library's :class:`greenelm.KernelLimitClassifier`), fitted on the fit rows
   and scored on the validation rows: its **validation accuracy** is all the choice reads;
3. the pick is the candidate of the highest validation accuracy; a tie goes to the cheaper one
   (:data:`TIE_RULE`, :meth:`Candidate.cost`);
4. one refit on all training rows at the pick, and the test set is scored **once**, for the pick,
   through the :class:`TestGate`, which holds the test labels and refuses a second searched
   configuration per (dataset, seed).

The record (JSON-able) holds the grid with its validation accuracies and seconds, the pick, its test
accuracy, the seconds of the whole protocol (every selection fit + the refit + the scoring) with the
refit's beside it, and the process's peak resident memory over the protocol.
:func:`run_seeds` runs it for several seeds (mean ± sd of the test accuracy and the seconds);
:func:`run_fixed` scores the configurations declared in advance as fixed measurements, not choices;
a difference between variants is judged by :func:`greenelm_book.judging.verdicts.gain_over` on per-seed
*validation* accuracies (:func:`variant_validation`), never on test scores.
"""

from __future__ import annotations

import datetime
import itertools
import json
import math
import numbers
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from greenelm._cachefiles import atomic_write
from greenelm._validation import check_choice, check_positive_int
from greenelm.features import row_chunks

#: the protocol's grid and fixed measurements, beside the profiles (not a chapter's parameters)
PROTOCOL_PARAMS = Path(__file__).resolve().parents[2] / "params" / "frontier_protocol.yml"
#: what a candidate fits on the patch features: a ridge readout on them, the paper's random ReLU map
#: of width ``n_hidden`` and its readout, or that map's d → ∞ limit (arc-cosine kernel ridge)
VARIANTS = ("readout", "stacked", "limit")
#: the training-image views a candidate may add (:func:`greenelm_book.chapters.frontier_features.augmented`): the
#: mirror image, the four one-pixel shifts
VIEWS = ("flip", "shift")
#: the two kinds of test-set reads the gate records
KINDS = ("pick", "fixed")
#: how :func:`run_protocol` breaks a tie of validation accuracies
TIE_RULE = ("among equal validation accuracies, the cheaper candidate: fewer views, then fewer patch "
            "features (2·K·pool²), then the narrower stacked width, then fewer ridge candidates, then "
            "the earlier in the grid")
#: rows of images mapped through the patch features at a time
BLOCK_ROWS = 1024
#: a limit's jitter chosen among several (:class:`PatchModel`): at most this many of its training
#: rows fitted and held out (a fifth of them held out below that), as the chapter's choice of μ did
#: (20,000 and 10,000): the fitted rows' block of the kernel is copied once per jitter (4·n² bytes)
INNER_FIT_ROWS, INNER_VALIDATION_ROWS = 20_000, 10_000
GB = 1e9


# ----------------------------------------------------------------------------- the candidates
def configuration_key(configuration) -> str:
    """The canonical text of a configuration (a :class:`Candidate` or a JSON-able mapping): sorted
    keys, no spaces; two configurations are the same exactly when their keys are."""
    if isinstance(configuration, Candidate):
        configuration = configuration.as_dict()
    if not isinstance(configuration, Mapping):
        raise TypeError(f"a configuration is a Candidate or a mapping of settings, got {configuration!r}")
    try:
        return json.dumps(configuration, sort_keys=True, separators=(",", ":"), allow_nan=False)
    except (TypeError, ValueError) as error:
        raise ValueError(f"a configuration must be JSON-able (numbers, text, lists): {configuration!r}: "
                         f"{error}") from error


@dataclass(frozen=True)
class Candidate:
    """One configuration of the grid.

    variant : one of :data:`VARIANTS`
    n_patches : K filters of the patch features (``2·K·pool²`` features)
    patch_size : p (p × p patches); pool : the pooling grid is pool × pool
    threshold : t of the ReLU split; whiten_eps : ε of the ZCA whitening
    dictionary : ``"sampled"`` or ``"kmeans"`` (:class:`greenelm.RandomPatchFeatures`)
    views : augmentations of :data:`VIEWS` (the limit averages them into its kernel; the readouts
        add them as training rows)
    n_hidden : the paper's map's width d (``"stacked"`` only)
    ridge : the ridge candidates, chosen on training rows alone: the limit's jitters (one: given;
        several: :class:`~greenelm.KernelLimitClassifier` chooses on held-out rows of its own
        training rows), the readouts' λ (GCV)
    n_whitening : patches that estimate the whitening (None: the library's default)
    symmetric : the mirror-symmetric patch map (``RandomPatchFeatures(mirror_symmetric=True)``, even
        ``n_patches``), its features standardised over the training images and their mirrors; a limit
        whose views are exactly the mirror image then averages its kernel from V products
        (``symmetric_views=True``), one with shifts keeps the V² kernel (a shift does not commute)
    depth : the arc-cosine kernel composed ``depth`` times (``"limit"`` only; 1: today's kernel)

    ``symmetric`` False and ``depth`` 1 are left out of :meth:`as_dict`, so every configuration of the
    earlier protocol keeps its :func:`configuration_key`.
    """

    variant: str
    n_patches: int
    patch_size: int
    pool: int
    threshold: float = 0.25
    whiten_eps: float = 0.1
    dictionary: str = "sampled"
    views: tuple = ()
    n_hidden: int | None = None
    ridge: tuple = (1e-3,)
    n_whitening: int | None = None
    symmetric: bool = False
    depth: int = 1

    def __post_init__(self):
        check_choice("variant", self.variant, VARIANTS)
        for name in ("n_patches", "patch_size", "pool"):
            object.__setattr__(self, name, check_positive_int(name, getattr(self, name)))
        for name in ("threshold", "whiten_eps"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(value) \
                    or value < 0 or (value == 0 and name == "whiten_eps"):
                raise ValueError(f"{name} must be a finite number {'> 0' if name == 'whiten_eps' else '>= 0'}, "
                                 f"got {value!r}")
            object.__setattr__(self, name, float(value))
        check_choice("dictionary", self.dictionary, ("sampled", "kmeans"))
        views = (self.views,) if isinstance(self.views, str) else tuple(self.views)
        for view in views:
            check_choice("view", view, VIEWS)
        object.__setattr__(self, "views", views)
        if self.variant == "stacked":
            object.__setattr__(self, "n_hidden", check_positive_int("n_hidden", self.n_hidden))
        elif self.n_hidden is not None:
            raise ValueError(f"n_hidden is the stacked map's width; the {self.variant!r} variant has none "
                             f"(got n_hidden={self.n_hidden!r})")
        ridge = (self.ridge,) if isinstance(self.ridge, numbers.Real) else tuple(self.ridge)
        if not ridge or any(isinstance(r, bool) or not isinstance(r, numbers.Real) or not math.isfinite(r)
                            or r < 0 or (r == 0 and self.variant != "limit") for r in ridge):
            raise ValueError(f"ridge must be a non-empty list of finite numbers (> 0; a limit's jitter >= 0), "
                             f"got {self.ridge!r}")
        object.__setattr__(self, "ridge", tuple(float(r) for r in ridge))
        if self.n_whitening is not None:
            object.__setattr__(self, "n_whitening", check_positive_int("n_whitening", self.n_whitening))
        if not isinstance(self.symmetric, (bool, np.bool_)):
            raise ValueError(f"symmetric must be True or False, got {self.symmetric!r}")
        object.__setattr__(self, "symmetric", bool(self.symmetric))
        if self.symmetric and self.n_patches % 2:
            raise ValueError(f"the mirror-symmetric map draws each atom with its mirror image: n_patches must be "
                             f"even, got {self.n_patches}")
        object.__setattr__(self, "depth", check_positive_int("depth", self.depth))
        if self.depth != 1 and self.variant != "limit":
            raise ValueError(f"depth composes the limit's arc-cosine kernel; the {self.variant!r} variant has none "
                             f"(got depth={self.depth!r})")

    @property
    def n_views(self) -> int:
        """V: the image itself, then one per mirror image and four per shift set."""
        return 1 + sum(4 if view == "shift" else 1 for view in self.views)

    @property
    def n_features(self) -> int:
        """The patch features' width, 2·K·pool²."""
        return 2 * self.n_patches * self.pool ** 2

    def cost(self) -> tuple:
        """The order of :data:`TIE_RULE` (the grid index is added by the caller)."""
        return (self.n_views, self.n_features, self.n_hidden or 0, len(self.ridge))

    def as_dict(self) -> dict:
        """The candidate as JSON-able settings (lists for the tuples)."""
        out = asdict(self)
        out["views"], out["ridge"] = list(self.views), list(self.ridge)
        for name, default in (("symmetric", False), ("depth", 1)):     # the earlier protocol's keys stay
            if out[name] == default:
                del out[name]
        return out

    @classmethod
    def from_dict(cls, settings: Mapping) -> "Candidate":
        """A candidate from its settings; an unknown name is a ValueError naming it."""
        unknown = sorted(set(settings) - set(cls.__dataclass_fields__))
        if unknown:
            raise ValueError(f"unknown candidate setting(s) {unknown}: a candidate has "
                             f"{sorted(cls.__dataclass_fields__)}")
        return cls(**dict(settings))


def expand_grid(blocks: Sequence[Mapping], defaults: Mapping | None = None) -> list[Candidate]:
    """The candidates of a grid given as data: each block maps a setting to the list of its values
    (a list-valued setting, ``views`` or ``ridge``, as a list of lists), its candidates are the
    product of its lists over ``defaults``, and the grid is the blocks' candidates in order, each
    configuration once (the first place it appears)."""
    if isinstance(blocks, Mapping):
        blocks = [blocks]
    candidates, seen = [], set()
    for index, block in enumerate(blocks):
        if not isinstance(block, Mapping) or not block:
            raise ValueError(f"grid block {index} must be a non-empty mapping setting -> [values], got {block!r}")
        names = list(block)
        for name in names:
            if not isinstance(block[name], (list, tuple)) or not block[name]:
                raise ValueError(f"grid block {index}: {name!r} must be a non-empty list of its values "
                                 f"(a list-valued setting as a list of lists), got {block[name]!r}")
        for values in itertools.product(*(block[name] for name in names)):
            candidate = Candidate.from_dict({**dict(defaults or {}), **dict(zip(names, values))})
            if configuration_key(candidate) not in seen:
                seen.add(configuration_key(candidate))
                candidates.append(candidate)
    if not candidates:
        raise ValueError("the grid has no candidate")
    return candidates


def load_protocol(path: str | Path | None = None) -> dict:
    """``params/frontier_protocol.yml`` checked: {"seeds": [int], "datasets": {name: {"validation_size",
    "fit_size", "grid": [Candidate], "fixed": [settings]}}}."""
    import yaml

    path = Path(path or PROTOCOL_PARAMS)
    data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    seeds = data.get("seeds")
    if not isinstance(seeds, list) or len(seeds) < 1 or len(set(seeds)) != len(seeds) \
            or not all(isinstance(s, int) and not isinstance(s, bool) for s in seeds):
        raise ValueError(f"{path}: seeds must be a list of distinct integers, got {seeds!r}")
    datasets = {}
    for name, spec in (data.get("datasets") or {}).items():
        unknown = sorted(set(spec) - {"validation_size", "fit_size", "defaults", "grid", "fixed"})
        if unknown:
            raise ValueError(f"{path}: datasets.{name} has unknown key(s) {unknown}")
        fixed = list(spec.get("fixed") or [])
        for settings in fixed:
            configuration_key(settings)
        datasets[str(name)] = {"validation_size": spec.get("validation_size", 0.2), "fit_size": spec.get("fit_size"),
                               "grid": expand_grid(spec["grid"], spec.get("defaults")), "fixed": fixed}
    if not datasets:
        raise ValueError(f"{path}: no datasets")
    return {"seeds": seeds, "datasets": datasets}


# ----------------------------------------------------------------------------- the test gate
class TestSetAlreadyRead(RuntimeError):
    """A second searched configuration asked for the test labels of a (dataset, seed)."""

    __test__ = False


class UndeclaredFixedMeasurement(ValueError):
    """A configuration asked to be scored as a fixed measurement that was not declared before the run."""


#: the format of a gate's ledger file (every read of the test labels, kept across processes)
LEDGER_FORMAT = "greenelm-test-reads/1"
_READ_FIELDS = {"dataset", "seed", "kind", "key", "configuration", "what", "n_test", "at"}


def _write_json_atomically(path: Path, data) -> None:
    """``data`` as JSON at ``path``, written atomically (:func:`greenelm._cachefiles.atomic_write`)."""
    text = json.dumps(data, indent=1, allow_nan=False) + "\n"
    atomic_write(Path(path), lambda handle: handle.write(text.encode("utf-8")))


def _read_ledger(path: Path) -> list[dict]:
    """The reads a gate's ledger file holds ([] when it does not exist); ValueError naming the file
    when it is not a ledger (a gate never starts from a ledger it cannot read)."""
    if not path.exists():
        return []
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ValueError(f"{path}: not a test-read ledger ({error})") from error
    if not isinstance(data, dict) or data.get("format") != LEDGER_FORMAT or not isinstance(data.get("reads"), list):
        raise ValueError(f"{path}: not a test-read ledger of format {LEDGER_FORMAT}")
    for read in data["reads"]:
        if not isinstance(read, dict) or set(read) != _READ_FIELDS or read["kind"] not in KINDS:
            raise ValueError(f"{path}: a read that is not a gate's record: {read!r}")
    return [dict(read) for read in data["reads"]]


class TestGate:
    """The one way to the test labels: it records which configuration read them, per (dataset, seed).

    ``labels``: {dataset: test labels (M,)}, kept private (copied; no public attribute holds them);
    ``fixed``: {dataset: [configurations declared before the run as fixed measurements]}.

    A read names the dataset, the seed, the configuration (a :class:`Candidate` or a JSON-able
    mapping) and its kind: ``"pick"`` (the protocol's choice: one configuration per (dataset, seed);
    a second is refused with :class:`TestSetAlreadyRead`; the same one may read again, each read
    recorded) or ``"fixed"`` (only a declared configuration, else :class:`UndeclaredFixedMeasurement`;
    any number of them). :meth:`record` lists every read, JSON-able. With ``ledger`` (a file path) the
    reads are also kept in that file, written after each read and read back when a gate is made, so a
    later process (a resumed run, the next seed) is held to the picks recorded before it.
    """

    __test__ = False                     # not a pytest test class, whatever its name

    def __init__(self, labels: Mapping[str, Any], fixed: Mapping[str, Sequence] | None = None,
                 ledger: str | Path | None = None):
        self.__labels = {str(name): np.array(values, copy=True) for name, values in labels.items()}
        for name, values in self.__labels.items():
            values.setflags(write=False)
            if values.ndim != 1 or values.size == 0:
                raise ValueError(f"the test labels of {name!r} must be a non-empty 1-d array, got shape {values.shape}")
        unknown = sorted(set(fixed or {}) - set(self.__labels))
        if unknown:
            raise ValueError(f"fixed measurements declared for {unknown}, which have no test labels here "
                             f"(datasets: {sorted(self.__labels)})")
        self._fixed = {name: {configuration_key(c): json.loads(configuration_key(c)) for c in configs}
                       for name, configs in (fixed or {}).items()}
        self._ledger = None if ledger is None else Path(ledger)
        self._reads: list[dict] = _read_ledger(self._ledger) if self._ledger is not None else []

    def __repr__(self) -> str:
        return (f"TestGate(datasets={sorted(self.__labels)}, reads={len(self._reads)}, "
                f"fixed={ {name: len(c) for name, c in self._fixed.items()} })")

    def __reduce__(self):
        raise TypeError("a TestGate is not copied or pickled: its labels stay in the one object that "
                        "records their reads")

    def _check(self, dataset: str, seed: int, configuration, kind: str) -> str:
        if dataset not in self.__labels:
            raise KeyError(f"the gate holds no test labels for {dataset!r} (it holds {sorted(self.__labels)})")
        if isinstance(seed, bool) or not isinstance(seed, numbers.Integral):
            raise ValueError(f"seed must be an integer, got {seed!r}")
        check_choice("kind", kind, KINDS)
        self._sync()                                     # reads another process made since this gate began
        key = configuration_key(configuration)
        if kind == "fixed":
            if key not in self._fixed.get(dataset, {}):
                raise UndeclaredFixedMeasurement(
                    f"{dataset}, seed {seed}: {key} was not declared before the run as a fixed measurement of "
                    f"{dataset} (declared: {sorted(self._fixed.get(dataset, {})) or 'none'}); a configuration "
                    "that was searched for is scored as the protocol's pick, once")
            return key
        picked = [r for r in self._reads if r["dataset"] == dataset and r["seed"] == int(seed) and r["kind"] == "pick"]
        if picked and picked[0]["key"] != key:
            raise TestSetAlreadyRead(
                f"{dataset}, seed {seed}: the test labels were already read by the searched configuration "
                f"{picked[0]['key']} (at {picked[0]['at']}); {key} asks for them too. One searched "
                "configuration per (dataset, seed) reads the test set: choose on validation rows, or declare "
                "the configuration before the run as a fixed measurement")
        return key

    def _sync(self, new: dict | None = None) -> None:
        """Merge the ledger file's reads into this gate's (another process may have added some since this
        gate was made) and, with ``new``, append it and write the merged ledger back, all under an
        exclusive lock of ``<ledger>.lock`` so two processes never overwrite each other's reads."""
        if self._ledger is None:
            if new is not None:
                self._reads.append(new)
            return
        import fcntl

        self._ledger.parent.mkdir(parents=True, exist_ok=True)
        with open(self._ledger.with_name(self._ledger.name + ".lock"), "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            on_file = _read_ledger(self._ledger)
            seen = {json.dumps(read, sort_keys=True) for read in on_file}
            self._reads = on_file + [r for r in self._reads if json.dumps(r, sort_keys=True) not in seen]
            if new is not None:
                self._reads.append(new)
                _write_json_atomically(self._ledger, {"format": LEDGER_FORMAT, "reads": self._reads})

    def _note(self, dataset: str, seed: int, key: str, kind: str, what: str) -> None:
        self._sync({"dataset": dataset, "seed": int(seed), "kind": kind, "key": key,
                    "configuration": json.loads(key), "what": what, "n_test": int(self.__labels[dataset].size),
                    "at": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")})

    def n_test(self, dataset: str) -> int:
        """M, the number of test labels of ``dataset`` (not a read)."""
        return int(self.__labels[dataset].size)

    def score(self, dataset: str, seed: int, configuration, predicted, kind: str = "pick") -> float:
        """The test accuracy (%) of ``predicted`` (M,) labels for ``configuration``, recorded as a read."""
        key = self._check(dataset, seed, configuration, kind)
        labels = self.__labels[dataset]
        predicted = np.asarray(predicted)
        if predicted.shape != labels.shape:
            raise ValueError(f"{dataset}: predicted labels of shape {predicted.shape}, the test set has {labels.shape}")
        self._note(dataset, seed, key, kind, "accuracy")
        return 100 * float(np.mean(predicted == labels))

    def release(self, dataset: str, seed: int, configuration, kind: str = "pick") -> np.ndarray:
        """A read-only copy of the test labels (M,) for ``configuration`` (e.g. a confusion matrix of
        the pick), recorded as a read."""
        key = self._check(dataset, seed, configuration, kind)
        self._note(dataset, seed, key, kind, "labels")
        out = self.__labels[dataset].copy()
        out.setflags(write=False)
        return out

    def reads(self, dataset: str | None = None, seed: int | None = None) -> list[dict]:
        """The reads so far (copies), of one dataset and seed when given."""
        return [dict(r) for r in self._reads
                if (dataset is None or r["dataset"] == dataset) and (seed is None or r["seed"] == seed)]

    def record(self) -> dict:
        """What read the test set, and when: {"reads": [{"dataset", "seed", "kind", "key",
        "configuration", "what", "n_test", "at"}], "fixed": {dataset: [declared configurations]}}."""
        return {"reads": self.reads(),
                "fixed": {name: list(configs.values()) for name, configs in self._fixed.items()}}


# ----------------------------------------------------------------------------- the models
def _view_images(X: np.ndarray, image_shape, view: str, index: int) -> np.ndarray:
    """Rows (m, H·W·C) of ``view`` (``"identity"``, ``"flip"``, or ``"shift"`` number ``index``)."""
    if view == "identity":
        return X
    from .frontier_features import augmented

    images = np.asarray(X).reshape((-1,) + tuple(image_shape))
    (copy,) = itertools.islice(augmented(images, view), index, index + 1)
    return np.ascontiguousarray(copy).reshape(len(X), -1)


def _library_option(estimator: type, name: str, value):
    """``value``, once the library's ``estimator`` is known to take the option ``name`` (else a
    ValueError naming the option the candidate needs)."""
    import inspect

    if name not in inspect.signature(estimator.__init__).parameters:
        raise ValueError(f"this candidate needs {estimator.__name__}({name}=...), which this version of the "
                         f"library does not have")
    return value


class PatchModel:
    """One candidate as a classifier of image rows X (n, H·W·C): the library's
    :class:`~greenelm.RandomPatchFeatures` fitted on the training rows (seed ``seed``), its features
    standardised by the training rows' mean and sd (float64 sums over row blocks), then

    * ``"limit"``: :class:`~greenelm.KernelLimitClassifier` (He scale, jitter(s) ``ridge``,
      ``random_state`` = seed) whose views are the features of each image view, averaged into the kernel;
      several jitters are chosen on its own training rows (:data:`INNER_FIT_ROWS` fitted,
      :data:`INNER_VALIDATION_ROWS` held out at most);
    * ``"stacked"``: :class:`~greenelm.ELMClassifierCV` of width ``n_hidden`` (He scale, λ among
      ``ridge`` by GCV) on the features of every view as training rows;
    * ``"readout"``: scikit-learn's ``RidgeClassifierCV`` (λ among ``ridge`` by GCV) on them.

    A ``symmetric`` candidate fits the mirror-symmetric map and standardises over the training images
    and their mirrors (mean and sd symmetric under the map's column permutation); its limit with views
    exactly [mirror] declares them a group (``symmetric_views=True``: V products, not V²). ``depth`` > 1
    composes the limit's arc-cosine kernel. Either needs a library that has the option (ValueError at fit).

    ``info()`` gives what the fit chose (the jitter or λ) as JSON-able numbers. ``device`` (a torch device,
    e.g. ``"cuda"``): the feature map and the limit's kernel run there (the library's ``device``), the
    features coming back to the host as float32 NumPy; the other variants run on the host.

    """

    def __init__(self, candidate: Candidate, image_shape, seed: int, block_rows: int = BLOCK_ROWS, device=None):
        self.candidate, self.image_shape, self.seed = candidate, tuple(image_shape), int(seed)
        self.block_rows = check_positive_int("block_rows", block_rows)
        self.device = device

    def _transform(self, X: np.ndarray) -> np.ndarray:
        """The feature map of rows X as a float32 NumPy array (from the device where it ran there)."""
        features = self.patches_.transform(X)
        return features if isinstance(features, np.ndarray) else features.cpu().numpy()

    def _views(self) -> list[tuple[str, int]]:
        return [("identity", 0)] + [(v, i) for v in self.candidate.views for i in range(4 if v == "shift" else 1)]

    def _features(self, X: np.ndarray, view=("identity", 0)) -> np.ndarray:
        """Standardised features (m, F) float32 of the rows X of one view."""
        out = np.empty((len(X), self.patches_.n_features_out), dtype=np.float32)
        for rows in row_chunks(len(X), self.block_rows):
            out[rows] = self._transform(_view_images(X[rows], self.image_shape, *view))
        out -= self.mean_
        out /= self.scale_
        return out

    def fit(self, X, y) -> "PatchModel":
        from greenelm import ELMClassifierCV, KernelLimitClassifier, RandomPatchFeatures

        c = self.candidate
        X = np.asarray(X, dtype=np.float32)
        y = np.asarray(y)
        given = {} if c.n_whitening is None else {"n_whitening": c.n_whitening}
        if c.symmetric:
            given["mirror_symmetric"] = _library_option(RandomPatchFeatures, "mirror_symmetric", True)
        self.patches_ = RandomPatchFeatures(self.image_shape, n_patches=c.n_patches, patch_size=c.patch_size,
                                            pool=c.pool, threshold=c.threshold, whiten_eps=c.whiten_eps,
                                            dictionary=c.dictionary, random_state=self.seed, device=self.device,
                                            **given).fit(X)
        total = np.zeros(self.patches_.n_features_out)
        squares = np.zeros(self.patches_.n_features_out)
        for rows in row_chunks(len(X), self.block_rows):
            block = np.asarray(self._transform(X[rows]), dtype=np.float64)
            total += block.sum(axis=0)
            squares += np.einsum("ij,ij->j", block, block)
        n_rows = len(X)
        if c.symmetric:
            # over the training images and their mirrors: the mirrors' features are the images'
            # columns permuted (transform(mirror(X)) == transform(X)[:, mirror_permutation_])
            permutation = np.asarray(self.patches_.mirror_permutation_)
            total, squares, n_rows = total + total[permutation], squares + squares[permutation], 2 * n_rows
        mean = total / n_rows
        scale = np.sqrt(np.maximum(squares / n_rows - mean ** 2, 0.0))
        self.mean_ = mean.astype(np.float32)
        self.scale_ = np.where(scale > 1e-12 * max(1.0, float(np.abs(mean).max())), scale, 1.0).astype(np.float32)
        if c.variant == "limit":
            views = [lambda rows, view=view: self._features(np.asarray(rows, dtype=np.float32), view)
                     for view in self._views()]
            jitter = list(c.ridge) if len(c.ridge) > 1 else c.ridge[0]
            n_validation = min(INNER_VALIDATION_ROWS, max(1, math.ceil(0.2 * len(X))))
            n_fit = min(INNER_FIT_ROWS, len(X) - n_validation)
            options = {}
            if c.symmetric and c.views == ("flip",):        # [identity, mirror]: a group acting by permutation
                options["symmetric_views"] = _library_option(KernelLimitClassifier, "symmetric_views", True)
            if c.depth != 1:
                options["depth"] = _library_option(KernelLimitClassifier, "depth", c.depth)
            self.model_ = KernelLimitClassifier(jitter=jitter, weight_scale="he", views=views,
                                                validation_size=n_validation, fit_size=n_fit,
                                                random_state=self.seed, block_rows=self.block_rows,
                                                **options, **({} if self.device is None else {"device": self.device})
                                                ).fit(X, y)
            return self
        H = np.concatenate([self._features(X, view) for view in self._views()])
        targets = np.tile(y, c.n_views)
        if c.variant == "stacked":
            self.model_ = ELMClassifierCV(n_hidden=c.n_hidden, alphas=list(c.ridge), cv="gcv", weight_scale="he",
                                          random_state=self.seed).fit(H, targets)
        else:
            from sklearn.linear_model import RidgeClassifierCV

            self.model_ = RidgeClassifierCV(alphas=list(c.ridge)).fit(H, targets)
        return self

    def predict(self, X) -> np.ndarray:
        """Labels (m,) of the image rows X (m, H·W·C)."""
        X = np.asarray(X, dtype=np.float32)
        if self.candidate.variant == "limit":
            return self.model_.predict(X)
        return self.model_.predict(self._features(X))

    def info(self) -> dict:
        if self.candidate.variant == "limit":
            scores = self.model_.validation_scores_
            return {"jitter": float(self.model_.jitter_), "mu": float(self.model_.mu_),
                    "inner_validation": None if scores is None else [None if s is None else float(s) for s in scores]}
        return {"alpha": float(self.model_.alpha_)}


def build_model(candidate: Candidate, image_shape, seed: int, device=None):
    """The default model builder of :func:`run_protocol`: a :class:`PatchModel` (on ``device``, a torch
    device, where given)."""
    return PatchModel(candidate, image_shape, seed, device=device)


# ----------------------------------------------------------------------------- the protocol
def _info(model) -> dict:
    info = getattr(model, "info", None)
    return info() if callable(info) else {}


def pick_index(validation: Sequence[float | None], grid: Sequence) -> int:
    """The index of the pick: the highest validation accuracy (None: a candidate whose fit failed),
    a tie broken by :data:`TIE_RULE` (a grid entry without ``cost()`` costs nothing: grid order)."""
    fitted = [i for i, v in enumerate(validation) if v is not None]
    if not fitted:
        raise RuntimeError("no candidate of the grid could be fitted (every fit failed): nothing to pick")
    best = max(validation[i] for i in fitted)
    tied = [i for i in fitted if validation[i] == best]
    return min(tied, key=lambda i: (tuple(grid[i].cost()) if hasattr(grid[i], "cost") else (), i))


def _selection_fit(build, candidate, image_shape, seed: int, X_fit, y_fit, X_validation, y_validation) -> dict:
    """One candidate fitted on the fit rows and scored on the validation rows: {"validation_accuracy"
    (%, None when the fit failed), "info", "error", "seconds"}."""
    began = time.perf_counter()
    entry = {"validation_accuracy": None, "info": {}, "error": None}
    model = None
    try:
        model = build(candidate, tuple(image_shape), int(seed))
        model.fit(X_fit, y_fit)
        predicted = np.asarray(model.predict(X_validation))
        entry["validation_accuracy"] = 100 * float(np.mean(predicted == y_validation))
        entry["info"] = _info(model)
    except (np.linalg.LinAlgError, MemoryError) as error:
        entry["error"] = f"{type(error).__name__}: {error}"
    del model
    entry["seconds"] = time.perf_counter() - began
    return json.loads(json.dumps(entry, allow_nan=False))


def checked_run_inputs(dataset: str, X_train, y_train, X_test, gate: "TestGate", grid: Sequence, seed) -> tuple:
    """The inputs of one protocol run checked (an integer seed, a grid with a candidate, as many labels as
    training rows, as many test images as the gate holds labels): (grid as a list, X_train, y_train as
    arrays). Shared by :func:`run_protocol` and the halving protocol's ``run_halving``."""
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral):
        raise ValueError(f"seed must be an integer, got {seed!r}")
    grid = list(grid)
    if not grid:
        raise ValueError("the grid has no candidate")
    X_train, y_train = np.asarray(X_train), np.asarray(y_train)
    if len(X_train) != len(y_train):
        raise ValueError(f"X_train has {len(X_train)} rows, y_train {len(y_train)}")
    if len(X_test) != gate.n_test(dataset):
        raise ValueError(f"X_test has {len(X_test)} rows, the gate holds {gate.n_test(dataset)} test labels "
                         f"of {dataset}")
    return grid, X_train, y_train


def refit_and_score(build: Callable, pick, image_shape, seed: int, X_train, y_train, X_test, gate: "TestGate",
                    dataset: str) -> tuple:
    """The pick refitted on every training row (N, H·W·C) and the test images (M, H·W·C) scored once
    through the gate: (model, test accuracy (%), refit seconds, scoring seconds)."""
    began = time.perf_counter()
    model = build(pick, tuple(image_shape), int(seed))
    model.fit(X_train, y_train)
    refit = time.perf_counter() - began
    began = time.perf_counter()
    predicted = np.asarray(model.predict(X_test))
    test_accuracy = gate.score(dataset, int(seed), pick, predicted, kind="pick")
    return model, test_accuracy, refit, time.perf_counter() - began


def run_protocol(dataset: str, X_train, y_train, X_test, gate: TestGate, grid: Sequence[Candidate], seed: int, *,
                 image_shape, validation_size=0.2, fit_size=None,
                 build: Callable[[Candidate, tuple, int], Any] = build_model, cache: str | None = None) -> dict:
    """The protocol for one dataset and seed (see the module).

    X_train (N, H·W·C) and y_train (N,): the training rows; X_test (M, H·W·C): the test images (their
    labels only in ``gate``); ``grid``: the candidates; ``validation_size`` / ``fit_size``: the split
    of the training rows (a count or a fraction, :func:`greenelm.kernel_limit.held_out_rows`, seed
    ``seed``); ``build(candidate, image_shape, seed)``: an unfitted model with ``fit(X, y)`` and
    ``predict(X)``. A candidate whose fit fails (``LinAlgError``: no jitter factorised;
    ``MemoryError``: it does not fit this machine) is recorded with its error and no validation accuracy.
    ``cache``: a name for the data (e.g. ``"mnist, all rows"``): each candidate's selection fit is then
    memoised (:func:`greenelm_book.store.results_cache.memoize`, keyed by that name, the seed, the split and
    the candidate), so a run stopped midway resumes where it stopped; its seconds are those of the run
    that computed it.

    Returns a JSON-able record: dataset, seed, n_train, n_fit, n_validation, n_test, "grid" [{candidate,
    validation_accuracy (%), seconds, info, error}], "pick" (candidate), "pick_index", "tie_rule",
    "validation_accuracy", "test_accuracy" (%), "seconds" {"selection" (the sum of the selection fits'
    own seconds, read back or not), "refit", "scoring", "total" (their sum)}, "selection_fits_read_back",
    "refit_info", "peak_memory_gb", "load_average" {"started", "finished"} (the machine's 1-, 5- and 15-minute
    load averages when this run started and finished, :func:`greenelm_book.bench.load_average`), "test_reads"
    (the gate's reads of this dataset and seed)."""
    from greenelm.kernel_limit import held_out_rows

    from ..bench import load_average, peak_rss_bytes, reset_peak_rss

    grid, X_train, y_train = checked_run_inputs(dataset, X_train, y_train, X_test, gate, grid, seed)
    reset_peak_rss()
    load_started = load_average()
    start = time.perf_counter()
    fit_rows, validation_rows = held_out_rows(len(y_train), fit_size, validation_size, int(seed))
    rows, read_back = [], 0
    for candidate in grid:
        described = candidate.as_dict() if isinstance(candidate, Candidate) else dict(candidate)

        def fit_one(candidate=candidate):
            return _selection_fit(build, candidate, image_shape, seed, X_train[fit_rows], y_train[fit_rows],
                                  X_train[validation_rows], y_train[validation_rows])

        if cache is None:
            entry = fit_one()
        else:
            from ..store.results_cache import memoize

            entry, info = memoize("frontier-protocol-selection", {
                "data": str(cache), "dataset": dataset, "seed": int(seed), "n_train": int(len(y_train)),
                "fit_rows": int(len(fit_rows)), "validation_rows": int(len(validation_rows)),
                "candidate": json.loads(configuration_key(described)), "image_shape": list(image_shape)}, fit_one)
            read_back += bool(info.get("cached"))
        rows.append({"candidate": described, **entry})
    # every selection fit's own seconds, whether it ran now or in the run that stopped midway (a
    # resumed run's wall clock would leave the fits read back out)
    selection = float(sum(r["seconds"] for r in rows))
    if all(r["validation_accuracy"] is None for r in rows):
        raise RuntimeError(f"{dataset}, seed {seed}: no candidate of the grid could be fitted on the fit rows: "
                           + "; ".join(f"{configuration_key(r['candidate'])}: {r['error']}" for r in rows))
    index = pick_index([r["validation_accuracy"] for r in rows], grid)
    pick = grid[index]
    model, test_accuracy, refit, scoring = refit_and_score(build, pick, image_shape, seed, X_train, y_train, X_test,
                                                           gate, dataset)
    total = selection + refit + scoring
    record = {"dataset": dataset, "seed": int(seed), "n_train": int(len(y_train)), "n_fit": int(len(fit_rows)),
              "n_validation": int(len(validation_rows)), "n_test": int(len(X_test)), "grid": rows,
              "pick": rows[index]["candidate"], "pick_index": int(index), "tie_rule": TIE_RULE,
              "validation_accuracy": rows[index]["validation_accuracy"], "test_accuracy": test_accuracy,
              "seconds": {"selection": selection, "refit": refit, "scoring": scoring, "total": total},
              "selection_fits_read_back": int(read_back),
              "refit_info": _info(model), "peak_memory_gb": peak_rss_bytes() / GB,
              "load_average": {"started": load_started, "finished": load_average()},
              "test_reads": gate.reads(dataset, int(seed))}
    return json.loads(json.dumps(record, allow_nan=False))


def mean_sd(values) -> dict:
    """{"mean", "sd" (ddof 1; None for one value), "n", "values"} of a list of numbers."""
    values = [float(v) for v in values]
    if not values:
        raise ValueError("mean_sd needs at least one value")
    return {"mean": float(np.mean(values)), "sd": float(np.std(values, ddof=1)) if len(values) > 1 else None,
            "n": len(values), "values": values}


def run_seeds(dataset: str, X_train, y_train, X_test, gate: TestGate, grid: Sequence[Candidate], seeds: Sequence[int],
              **options) -> dict:
    """:func:`run_protocol` for each of ``seeds`` (each the whole protocol: split, dictionary draws,
    choice, refit, one test read): {"runs": [records], "test_accuracy", "seconds", "refit_seconds",
    "peak_memory_gb" (each :func:`mean_sd` over the seeds), "picks" [candidate per seed]}."""
    seeds = [int(s) for s in seeds]
    if len(set(seeds)) != len(seeds) or not seeds:
        raise ValueError(f"seeds must be distinct integers, got {seeds!r}")
    runs = [run_protocol(dataset, X_train, y_train, X_test, gate, grid, seed, **options) for seed in seeds]
    return {"dataset": dataset, "seeds": seeds, "runs": runs,
            "test_accuracy": mean_sd([r["test_accuracy"] for r in runs]),
            "seconds": mean_sd([r["seconds"]["total"] for r in runs]),
            "refit_seconds": mean_sd([r["seconds"]["refit"] for r in runs]),
            "peak_memory_gb": mean_sd([r["peak_memory_gb"] for r in runs]),
            "picks": [r["pick"] for r in runs]}


def variant_validation(runs: Sequence[Mapping], variant: str) -> list[float]:
    """Per seed, the best validation accuracy (%) among the ``variant``'s candidates of each run's grid:
    what :func:`greenelm_book.judging.verdicts.gain_over` compares between variants (never a test score)."""
    out = []
    for run in runs:
        scores = [r["validation_accuracy"] for r in run["grid"]
                  if r["candidate"].get("variant") == variant and r["validation_accuracy"] is not None]
        if not scores:
            raise ValueError(f"seed {run['seed']}: no fitted {variant!r} candidate in the grid")
        out.append(max(scores))
    return out


def run_fixed(dataset: str, X_train, y_train, X_test, gate: TestGate, configurations: Sequence, seed: int, *,
              build: Callable[[Any, tuple, int], Any], image_shape) -> list[dict]:
    """Fit each configuration declared as a fixed measurement on all training rows and score it through
    the gate (kind ``"fixed"``; an undeclared one is refused before it is fitted):
    [{"configuration", "test_accuracy" (%), "seconds"}]."""
    out = []
    for configuration in configurations:
        gate._check(dataset, int(seed), configuration, "fixed")
        began = time.perf_counter()
        model = build(configuration, tuple(image_shape), int(seed))
        model.fit(np.asarray(X_train), np.asarray(y_train))
        accuracy = gate.score(dataset, int(seed), configuration, np.asarray(model.predict(X_test)), kind="fixed")
        out.append({"configuration": json.loads(configuration_key(configuration)), "test_accuracy": accuracy,
                    "seconds": time.perf_counter() - began})
    return out


def protocol_data(dataset: str, subset: int | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(X_train (N, H·W·C) float32, y_train (N,), X_test (M, H·W·C) float32, y_test (M,)) of ``dataset``
    (``greenelm.load_dataset``, ``subset`` rows of each split); y_test is for a :class:`TestGate` only."""
    from greenelm import load_dataset

    data = load_dataset(dataset, subset=subset)
    return (data.flat("train", np.float32), np.asarray(data.y_train), data.flat("test", np.float32),
            np.asarray(data.y_test))


def run_dataset(dataset: str, *, params: str | Path | None = None, subset: int | None = None,
                seeds: Sequence[int] | None = None, build: Callable = build_model,
                fixed_build: Callable | None = None) -> dict:
    """The protocol of ``params/frontier_protocol.yml`` for ``dataset`` over its seeds (or ``seeds``):
    :func:`run_seeds`' summary, the fixed measurements per seed when ``fixed_build`` builds them, and
    the gate's record (what read the test set, when). Hours at the full grid: run it in the background."""
    from .frontier_features import IMAGE_SHAPES

    spec = load_protocol(params)
    if dataset not in spec["datasets"]:
        raise KeyError(f"{dataset!r} has no grid in the protocol's parameters (have {sorted(spec['datasets'])})")
    entry = spec["datasets"][dataset]
    X_train, y_train, X_test, y_test = protocol_data(dataset, subset)
    gate = TestGate({dataset: y_test}, fixed={dataset: entry["fixed"]})
    del y_test
    summary = run_seeds(dataset, X_train, y_train, X_test, gate, entry["grid"], seeds or spec["seeds"],
                        image_shape=IMAGE_SHAPES[dataset][0], validation_size=entry["validation_size"],
                        fit_size=entry["fit_size"], build=build)
    if fixed_build is not None and entry["fixed"]:
        summary["fixed"] = {seed: run_fixed(dataset, X_train, y_train, X_test, gate, entry["fixed"], seed,
                                            build=fixed_build, image_shape=IMAGE_SHAPES[dataset][0])
                            for seed in summary["seeds"]}
    summary["gate"] = gate.record()
    return summary


#: where the per-seed records of the protocol and the gate's ledger are committed
RUNS_DIR = Path(__file__).resolve().parents[2] / "book" / "frontier_protocol"


def seed_record_path(out_dir: str | Path, dataset: str, seed: int) -> Path:
    """The file of one (dataset, seed) protocol record."""
    return Path(out_dir) / f"{dataset}-seed{int(seed)}.json"


def run_and_record(dataset: str, seeds: Sequence[int], *, out_dir: str | Path = RUNS_DIR,
                   params: str | Path | None = None, subset: int | None = None, build: Callable = build_model,
                   log: Callable[[str], None] = print) -> list[Path]:
    """The protocol for ``dataset``, one seed at a time, each record written (atomically) to
    ``out_dir/<dataset>-seed<seed>.json`` as soon as it is done, the test reads to the gate's ledger
    ``out_dir/test-reads.json`` (kept across runs: a seed whose pick was already scored cannot be scored
    for another configuration). A seed whose record exists is skipped; a seed stopped midway resumes
    from its memoised selection fits. Returns the records' paths. Hours per seed at the full grid."""
    from .frontier_features import IMAGE_SHAPES

    spec = load_protocol(params)
    if dataset not in spec["datasets"]:
        raise KeyError(f"{dataset!r} has no grid in the protocol's parameters (have {sorted(spec['datasets'])})")
    entry = spec["datasets"][dataset]
    X_train, y_train, X_test, y_test = protocol_data(dataset, subset)
    gate = TestGate({dataset: y_test}, fixed={dataset: entry["fixed"]}, ledger=Path(out_dir) / "test-reads.json")
    del y_test
    written = []
    for seed in seeds:
        path = seed_record_path(out_dir, dataset, seed)
        if path.exists():
            log(f"{dataset}, seed {seed}: recorded already ({path}), skipped")
            written.append(path)
            continue
        log(f"{dataset}, seed {seed}: {len(entry['grid'])} candidates, then the refit")
        record = run_protocol(dataset, X_train, y_train, X_test, gate, entry["grid"], int(seed),
                              image_shape=IMAGE_SHAPES[dataset][0], validation_size=entry["validation_size"],
                              fit_size=entry["fit_size"], build=build,
                              cache=f"{dataset}, {'all rows' if subset is None else f'first {subset} rows'}")
        record["subset"] = subset
        _write_json_atomically(path, record)
        log(f"{dataset}, seed {seed}: test {record['test_accuracy']:.2f} %, {record['seconds']['total']:.0f} s -> {path}")
        written.append(path)
    return written


def main(argv: Sequence[str] | None = None) -> None:
    """``python -m greenelm_book.chapters.frontier_protocol --dataset mnist --seed 0 [--seed 1 ...] [--subset N]
    [--out DIR] [--params FILE]``: :func:`run_and_record`. Run it alone on the machine, under the run
    lock, in the background: ``flock /tmp/greenelm-run.lock python -m greenelm_book.chapters.frontier_protocol ...``."""
    import argparse

    parser = argparse.ArgumentParser(prog="python -m greenelm_book.chapters.frontier_protocol",
                                     description="the frontier's protocol, one (dataset, seed) record at a time")
    parser.add_argument("--dataset", required=True)
    parser.add_argument("--seed", type=int, action="append", required=True, help="repeat for several seeds")
    parser.add_argument("--subset", type=int, default=None, help="first N rows of each split (default: all)")
    parser.add_argument("--out", default=str(RUNS_DIR), help=f"records and ledger (default {RUNS_DIR})")
    parser.add_argument("--params", default=None, help=f"the protocol's parameters (default {PROTOCOL_PARAMS})")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    run_and_record(args.dataset, args.seed, out_dir=args.out, params=args.params, subset=args.subset,
                   log=lambda message: print(f"[{time.perf_counter() - started:7.0f} s] {message}", flush=True))


if __name__ == "__main__":
    main()


__all__ = ["BLOCK_ROWS", "Candidate", "INNER_FIT_ROWS", "INNER_VALIDATION_ROWS", "KINDS", "PROTOCOL_PARAMS",
           "PatchModel", "TIE_RULE", "TestGate", "checked_run_inputs", "refit_and_score",
           "TestSetAlreadyRead", "UndeclaredFixedMeasurement", "VARIANTS", "VIEWS", "build_model",
           "configuration_key", "expand_grid", "load_protocol", "mean_sd", "pick_index", "protocol_data",
           "run_dataset", "run_fixed", "run_protocol", "run_seeds", "variant_validation", "LEDGER_FORMAT", "RUNS_DIR",
           "seed_record_path", "run_and_record", "main"]
