"""torchvision datasets and their conversions, on files the tests write in torchvision's layouts.

The original runs on real torchvision and the conversion (companion entries built on
mindspore.dataset) on real MindSpore; every sample must agree: the image after the transform, the
label, their order and count.
"""

from __future__ import annotations

import gzip
import os
import shutil

import numpy as np
import pytest
from data_support import (
    as_array,
    convert_and_run,
    frameworks,
    load_companion,
    run_original,
    write_cifar10,
    write_cifar100,
    write_image_folder,
    write_mnist,
)

pytestmark = pytest.mark.real

HEAD = "from torchvision import datasets, transforms\n"
TO_TENSOR = "transform=transforms.Compose([transforms.ToTensor(), transforms.Normalize((0.5,), (0.25,))])"


@pytest.fixture(scope="module")
def aux(tmp_path_factory):
    frameworks()
    return load_companion(str(tmp_path_factory.mktemp("companion")))


def torch_samples(dataset) -> list[tuple[np.ndarray, int]]:
    return [(as_array(image), int(label)) for image, label in dataset]


def mindspore_samples(dataset) -> list[tuple[np.ndarray, int]]:
    rows = dataset.create_tuple_iterator(output_numpy=True, num_epochs=1)
    samples = []
    for image, label in rows:
        assert label.dtype == np.int64 and label.shape == ()
        samples.append((image, int(label)))
    return samples


def assert_same_samples(original, converted) -> None:
    expected, actual = torch_samples(original), mindspore_samples(converted)
    assert len(original) == len(converted) == len(expected) == len(actual)
    assert [label for _, label in expected] == [label for _, label in actual]
    for (want, _), (got, _) in zip(expected, actual):
        assert want.shape == got.shape
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-6)


@pytest.mark.parametrize("name", ["MNIST", "FashionMNIST", "KMNIST"])
@pytest.mark.parametrize("train", [True, False])
def test_idx_datasets(name: str, train: bool, tmp_path, aux) -> None:
    write_mnist(str(tmp_path), name)
    source = HEAD + f"data = datasets.{name}(root, train={train}, {TO_TENSOR})\n"
    scope = {"root": str(tmp_path)}
    original = run_original(source, scope)
    converted, code = convert_and_run(source, scope)
    assert f"ms_aux.{name}(root" in code
    assert_same_samples(original["data"], converted["data"])


def test_idx_files_are_extracted_from_their_archives(tmp_path, aux) -> None:
    """torchvision downloads `*.gz` and extracts them beside; a root holding only the archives
    is extracted the same way, since MnistDataset reads uncompressed files."""
    write_mnist(str(tmp_path))
    raw = tmp_path / "MNIST" / "raw"
    for path in list(raw.iterdir()):
        with open(path, "rb") as source, gzip.open(str(path) + ".gz", "wb") as target:
            shutil.copyfileobj(source, target)
        path.unlink()
    data = aux.MNIST(str(tmp_path), train=False, transform=aux.Compose([]))
    assert len(data) == 10
    assert (raw / "t10k-images-idx3-ubyte").exists()


def test_archives_beside_the_idx_files_are_not_read(tmp_path, aux) -> None:
    """torchvision's download leaves `*.gz` beside the extracted files, as here."""
    write_mnist(str(tmp_path))
    raw = tmp_path / "MNIST" / "raw"
    for path in list(raw.iterdir()):
        with open(path, "rb") as source, gzip.open(str(path) + ".gz", "wb") as target:
            shutil.copyfileobj(source, target)
    source = HEAD + f"data = datasets.MNIST(root, train=True, {TO_TENSOR})\n"
    scope = {"root": str(tmp_path)}
    original = run_original(source, scope)
    converted, _ = convert_and_run(source, scope)
    assert_same_samples(original["data"], converted["data"])


@pytest.mark.parametrize("download", [False, True])
def test_missing_files_raise_a_clear_error(download: bool, tmp_path, aux) -> None:
    with pytest.raises(FileNotFoundError, match="train-images-idx3-ubyte") as error:
        aux.MNIST(str(tmp_path), train=True, download=download)
    assert ("cannot download" in str(error.value)) == download


def test_target_transform_and_pil_images(tmp_path, aux) -> None:
    """The transform receives a PIL 'L' image, as torchvision's does; target_transform the label."""
    write_mnist(str(tmp_path))
    source = (
        HEAD + "data = datasets.MNIST(root, train=False, "
        "transform=transforms.Lambda(lambda im: [im.mode, *im.size].__len__() + im.getpixel((3, 4))), "
        "target_transform=lambda y: y * 10)\n"
    )
    scope = {"root": str(tmp_path)}
    original = run_original(source, scope)
    converted, _ = convert_and_run(source, scope)
    expected = [(int(image), label) for image, label in original["data"]]
    actual = [
        (int(image), int(label))
        for image, label in converted["data"].create_tuple_iterator(output_numpy=True)
    ]
    assert expected == actual


@pytest.fixture
def unchecked_cifar(monkeypatch):
    """torchvision checks the MD5 sums of the real CIFAR files; the generated ones have others."""
    _, torchvision, _ = frameworks()
    monkeypatch.setattr(
        torchvision.datasets.CIFAR10, "_check_integrity", lambda self: True
    )
    monkeypatch.setattr(
        torchvision.datasets.cifar, "check_integrity", lambda *args, **kwargs: True
    )


@pytest.mark.usefixtures("unchecked_cifar")
@pytest.mark.parametrize("name", ["CIFAR10", "CIFAR100"])
def test_cifar_test_split(name: str, tmp_path, aux) -> None:
    """The test split (10,000 generated records: MindSpore's readers take whole files only);
    CIFAR-100's targets are its fine labels."""
    (write_cifar10 if name == "CIFAR10" else write_cifar100)(str(tmp_path))
    source = (
        HEAD + f"data = datasets.{name}(root=root, train=False, "
        "transform=transforms.PILToTensor(), target_transform=lambda y: y + 1)\n"
    )
    scope = {"root": str(tmp_path)}
    original = run_original(source, scope)
    converted, _ = convert_and_run(source, scope)
    assert_same_samples(original["data"], converted["data"])


@pytest.mark.parametrize(
    ("name", "missing"), [("CIFAR10", "data_batch_1.bin"), ("CIFAR100", "train.bin")]
)
def test_cifar_missing_split_is_a_clear_error(name, missing, tmp_path, aux) -> None:
    with pytest.raises(FileNotFoundError, match=missing):
        getattr(aux, name)(str(tmp_path), train=True)


def test_cifar_pickled_only_is_a_clear_error(tmp_path, aux) -> None:
    write_cifar10(str(tmp_path))
    shutil.rmtree(tmp_path / "cifar-10-batches-bin")
    with pytest.raises(FileNotFoundError, match="cifar-10-batches-bin"):
        aux.CIFAR10(str(tmp_path), train=False)


def test_image_folder(tmp_path, aux) -> None:
    """Classes from sorted folder names, files in sorted order, every image converted to RGB,
    files with other extensions skipped: the samples torchvision's ImageFolder gives."""
    write_image_folder(str(tmp_path))
    source = (
        HEAD + "data = datasets.ImageFolder(str(root), "
        "transform=transforms.Compose([transforms.Resize((8, 8)), transforms.ToTensor()]))\n"
    )
    scope = {"root": tmp_path}
    original = run_original(source, scope)
    converted, _ = convert_and_run(source, scope)
    assert_same_samples(original["data"], converted["data"])


def test_fake_data_shapes_classes_and_modes(aux) -> None:
    """FakeData draws its pixels with NumPy, not torch's generator: shapes, classes, modes and
    the transform path agree; the pixel values do not (and are not compared)."""
    source = (
        HEAD + "data = datasets.FakeData(size=12, image_size=(1, 6, 5), num_classes=3, "
        "transform=transforms.ToTensor())\n"
        "gray = datasets.FakeData(4, (1, 6, 5))\ncolour = datasets.FakeData(4, (3, 6, 5))\n"
    )
    original = run_original(source)
    converted, _ = convert_and_run(source)
    assert len(original["data"]) == len(converted["data"]) == 12
    for (a, x), (b, y) in zip(original["data"], converted["data"]):
        assert tuple(a.shape) == tuple(b.shape) == (1, 6, 5)
        assert b.dtype == np.float32 and 0.0 <= b.min() and b.max() <= 1.0
        assert 0 <= x < 3 and 0 <= y < 3
    for name in ("gray", "colour"):
        assert original[name][0][0].mode == converted[name][0][0].mode
        assert original[name][0][0].size == converted[name][0][0].size
    labels = {converted["data"][i][1] for i in range(12)}
    assert len(labels) > 1
    assert converted["data"][5][1] == converted["data"][5][1]
    with pytest.raises(IndexError):
        converted["data"][12]


def test_root_with_user_folder(tmp_path, aux, monkeypatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    write_mnist(os.path.join(str(tmp_path), "data"))
    assert len(aux.MNIST("~/data", train=False)) == 10


def test_lsun_stand_in_raises(aux) -> None:
    with pytest.raises(NotImplementedError, match="LMDB"):
        aux.LSUN("root", classes=["bedroom_train"])
