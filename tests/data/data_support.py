"""Shared pieces of the data-pipeline tests: generated data files in torchvision's layouts, the
assembled companion module, and running a converted snippet beside it."""

from __future__ import annotations

import importlib.util
import os
import struct
import sys
from types import ModuleType

import numpy as np
import pytest
from conftest import require_module

DATA_ENTRIES = (
    "Compose",
    "ColorJitter",
    "RandomApply",
    "RandomGrayscale",
    "GaussianBlur",
    "get_worker_info",
    "Sampler",
    "SequentialSampler",
    "RandomSampler",
    "SubsetRandomSampler",
    "BatchSampler",
    "DistributedSampler",
    "TensorDataset",
    "Subset",
    "random_split",
    "WeightedRandomSampler",
    "ConcatDataset",
    "ChainDataset",
    "default_convert",
    "Generator",
    "InterpolationMode",
    "PILToTensor",
    "pil_to_tensor",
    "to_tensor",
    "get_dimensions",
    "get_image_size",
    "image_crop",
    "image_resize",
    "image_resized_crop",
    "image_center_crop",
    "image_pad",
    "image_hflip",
    "image_vflip",
    "MNIST",
    "FashionMNIST",
    "KMNIST",
    "CIFAR10",
    "CIFAR100",
    "ImageFolder",
    "FakeData",
    "LSUN",
    "default_collate",
    "DataLoader",
    "make_grid",
    "save_image",
    "FrozenBatchNorm2d",
)


def frameworks():
    """Real torch, torchvision and MindSpore (CPU, PyNative)."""
    torch = require_module("torch")
    torchvision = require_module("torchvision")
    ms = require_module("mindspore")
    ms.set_context(mode=ms.PYNATIVE_MODE, device_target="CPU")
    return torch, torchvision, ms


def load_companion(folder: str) -> ModuleType:
    """Write the companion module holding every data entry into ``folder`` and import it as
    ``ms_aux`` (the name converted code imports)."""
    from torch2ms.rules.companion import assemble

    path = os.path.join(folder, "ms_aux.py")
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(assemble(DATA_ENTRIES))
    spec = importlib.util.spec_from_file_location("ms_aux", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    sys.modules["ms_aux"] = module
    return module


@pytest.fixture(scope="session")
def companion(tmp_path_factory):
    frameworks()
    module = load_companion(str(tmp_path_factory.mktemp("companion")))
    yield module
    sys.modules.pop("ms_aux", None)


def convert_and_run(source: str, namespace: dict | None = None) -> tuple[dict, str]:
    """Convert ``source``, check it no longer needs torch or torchvision, and run it."""
    from conftest import convert_checked
    from torch2ms.migrator.convert import imports_torch

    result = convert_checked(source)
    assert not imports_torch(result.code), result.code
    scope = dict(namespace or {})
    exec(compile(result.code, "converted", "exec"), scope)  # noqa: S102 - our own snippet
    return scope, result.code


def run_original(source: str, namespace: dict | None = None) -> dict:
    scope = dict(namespace or {})
    exec(compile(source, "original", "exec"), scope)  # noqa: S102 - our own snippet
    return scope


def as_array(value) -> np.ndarray:
    """PIL images, torch tensors, MindSpore tensors and arrays as NumPy arrays."""
    if hasattr(value, "asnumpy"):
        return value.asnumpy()
    if hasattr(value, "detach"):
        return value.detach().numpy()
    return np.asarray(value)


# -- generated files ---------------------------------------------------------------------------
def write_idx(path: str, array: np.ndarray) -> None:
    """An uncompressed IDX file of unsigned bytes (the MNIST format)."""
    header = struct.pack(">BBBB", 0, 0, 0x08, array.ndim)
    header += b"".join(struct.pack(">I", size) for size in array.shape)
    with open(path, "wb") as handle:
        handle.write(header + array.astype(np.uint8).tobytes())


def write_mnist(
    root: str, folder: str = "MNIST", train: int = 20, test: int = 10
) -> None:
    """``root/<folder>/raw`` with the four idx files torchvision extracts there."""
    rng = np.random.default_rng(len(folder))
    raw = os.path.join(root, folder, "raw")
    os.makedirs(raw, exist_ok=True)
    for prefix, count in (("train", train), ("t10k", test)):
        write_idx(
            os.path.join(raw, f"{prefix}-images-idx3-ubyte"),
            rng.integers(0, 256, (count, 28, 28)),
        )
        write_idx(
            os.path.join(raw, f"{prefix}-labels-idx1-ubyte"),
            rng.integers(0, 10, (count,)),
        )


def cifar_records(count: int, labels: int, seed: int) -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(seed)
    images = rng.integers(0, 256, (count, 3, 32, 32), dtype=np.uint8)
    return images, rng.integers(0, labels, count), rng.integers(0, 20, count)


# MindSpore's CIFAR readers read whole files of this many records (smaller files are refused).
CIFAR_TEST_RECORDS = 10000


def write_cifar10(root: str) -> None:
    """CIFAR-10's test split in both versions of the same records: the binary file Cifar10Dataset
    reads (``cifar-10-batches-bin/test_batch.bin``) and the pickled one torchvision reads
    (``cifar-10-batches-py/test_batch``)."""
    import pickle

    binary = os.path.join(root, "cifar-10-batches-bin")
    pickled = os.path.join(root, "cifar-10-batches-py")
    os.makedirs(binary, exist_ok=True)
    os.makedirs(pickled, exist_ok=True)
    images, labels, _ = cifar_records(CIFAR_TEST_RECORDS, 10, 1)
    flat = images.reshape(CIFAR_TEST_RECORDS, -1)
    with open(os.path.join(binary, "test_batch.bin"), "wb") as handle:
        handle.write(
            np.concatenate([labels[:, None].astype(np.uint8), flat], 1).tobytes()
        )
    with open(os.path.join(pickled, "test_batch"), "wb") as handle:
        pickle.dump({"data": flat, "labels": labels.tolist()}, handle)
    with open(os.path.join(pickled, "batches.meta"), "wb") as handle:
        pickle.dump({"label_names": [f"c{i}" for i in range(10)]}, handle)


def write_cifar100(root: str) -> None:
    """CIFAR-100's test split in both versions: ``cifar-100-binary/test.bin`` (coarse label,
    fine label, pixels per record) and ``cifar-100-python/test`` (pickled, torchvision's)."""
    import pickle

    binary = os.path.join(root, "cifar-100-binary")
    pickled = os.path.join(root, "cifar-100-python")
    os.makedirs(binary, exist_ok=True)
    os.makedirs(pickled, exist_ok=True)
    images, fine, coarse = cifar_records(CIFAR_TEST_RECORDS, 100, 2)
    flat = images.reshape(CIFAR_TEST_RECORDS, -1)
    labels = np.stack([coarse, fine], 1).astype(np.uint8)
    with open(os.path.join(binary, "test.bin"), "wb") as handle:
        handle.write(np.concatenate([labels, flat], 1).tobytes())
    with open(os.path.join(pickled, "test"), "wb") as handle:
        pickle.dump(
            {
                "data": flat,
                "fine_labels": fine.tolist(),
                "coarse_labels": coarse.tolist(),
            },
            handle,
        )
    with open(os.path.join(pickled, "meta"), "wb") as handle:
        pickle.dump({"fine_label_names": [f"c{i}" for i in range(100)]}, handle)


def write_image_folder(root: str) -> None:
    """Class folders (out of alphabetical creation order) of PNG images in RGB, L and RGBA."""
    from PIL import Image

    rng = np.random.default_rng(7)
    for name, count in (("zebra", 3), ("ant", 2), ("moth", 2)):
        folder = os.path.join(root, name)
        os.makedirs(folder, exist_ok=True)
        for i in range(count):
            mode = ("RGB", "L", "RGBA")[i % 3]
            channels = {"RGB": 3, "L": 1, "RGBA": 4}[mode]
            pixels = rng.integers(0, 256, (9 + i, 11, channels), dtype=np.uint8)
            image = Image.fromarray(pixels[:, :, 0] if channels == 1 else pixels, mode)
            image.save(os.path.join(folder, f"img_{3 - i}.png"))
    with open(os.path.join(root, "ant", "notes.txt"), "w") as handle:
        handle.write("not an image\n")


def pil_image(height: int = 37, width: int = 53, mode: str = "RGB", seed: int = 0):
    """A PIL image of random pixels."""
    from PIL import Image

    rng = np.random.default_rng(seed)
    channels = {"RGB": 3, "L": 1}[mode]
    pixels = rng.integers(0, 256, (height, width, channels), dtype=np.uint8)
    return Image.fromarray(pixels[:, :, 0] if channels == 1 else pixels, mode)
