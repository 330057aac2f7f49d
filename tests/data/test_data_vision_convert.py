"""Converter-level tests for torchvision: before/after source, refusals, idempotence."""

from __future__ import annotations

import pytest
from conftest import convert_checked

MNIST_BEFORE = """import torch
from torchvision import datasets, transforms


def main(args):
    train_kwargs = {'batch_size': args.batch_size}
    transform = transforms.Compose([
        transforms.ToTensor(),
        transforms.Normalize((0.1307,), (0.3081,))
    ])
    dataset1 = datasets.MNIST('../data', train=True, download=True,
                              transform=transform)
    train_loader = torch.utils.data.DataLoader(dataset1, **train_kwargs)
    return len(train_loader.dataset)
"""

MNIST_AFTER = """import mindspore.dataset.vision as vision
import ms_aux


def main(args):
    train_kwargs = {'batch_size': args.batch_size}
    transform = ms_aux.Compose([
        vision.ToTensor(),
        vision.Normalize((0.1307,), (0.3081,), is_hwc=False)
    ])
    dataset1 = ms_aux.MNIST('../data', train=True, download=True,
                              transform=transform)
    train_loader = ms_aux.DataLoader(dataset1, **train_kwargs)
    return len(train_loader.dataset)
"""


def test_mnist_example_data_code() -> None:
    result = convert_checked(MNIST_BEFORE)
    assert result.code == MNIST_AFTER
    assert not result.findings
    assert result.companion == {"Compose", "MNIST", "DataLoader"}


@pytest.mark.parametrize(
    ("before", "after"),
    [
        (
            "import torchvision.transforms as T\nt = T.Resize(256, interpolation=T.InterpolationMode.BICUBIC)\n",
            (
                "import mindspore.dataset.vision as vision\nimport ms_aux\n"
                "t = vision.Resize(256, interpolation=ms_aux.InterpolationMode.BICUBIC)\n"
            ),
        ),
        (
            "import torchvision.transforms as T\nt = T.Resize(256, antialias=True)\n",
            "import mindspore.dataset.vision as vision\nt = vision.Resize(256)\n",
        ),
        (
            (
                "from torchvision import transforms\nt = transforms.RandomHorizontalFlip(0.3)\n"
                "u = transforms.RandomVerticalFlip(p=0.2)\n"
            ),
            (
                "import mindspore.dataset.vision as vision\nt = vision.RandomHorizontalFlip(prob=0.3)\n"
                "u = vision.RandomVerticalFlip(prob=0.2)\n"
            ),
        ),
        (
            "from torchvision.transforms import Pad\nt = Pad(2, 7, 'edge')\n",
            (
                "import mindspore.dataset.vision as vision\n"
                "t = vision.Pad(2, fill_value=7, padding_mode=vision.Border.EDGE)\n"
            ),
        ),
        (
            "import torchvision.transforms as T\nt = T.Normalize(mean, std, True)\n",
            "import mindspore.dataset.vision as vision\nt = vision.Normalize([float(v) for v in mean], [float(v) for v in std], is_hwc=False)\n",
        ),
        (
            "import torchvision.transforms as T\nt = T.Lambda(lambda x: x * 2)\n",
            "t = lambda x: x * 2\n",
        ),
        (
            # a function on tensors gets one where the pipeline holds a NumPy array
            "import torch\nimport torchvision.transforms as T\n"
            "t = T.Lambda(lambda x: torch.flatten(x))\nu = T.Lambda(lambda x: x.mul(255))\n",
            "from mindspore import ops\nimport ms_aux\n"
            "t = ms_aux.Lambda(lambda x: ops.flatten(x, start_dim=0))\n"
            "u = ms_aux.Lambda(lambda x: x.mul(255))\n",
        ),
        (
            "import torchvision.transforms as T\nt = T.Lambda(lambda im: im.rotate(90))\n",
            "t = lambda im: im.rotate(90)\n",
        ),
        (
            "import torchvision.transforms as T\n\nclass Mine(T.ToTensor):\n    pass\n",
            "import mindspore.dataset.vision as vision\n\nclass Mine(vision.ToTensor):\n    pass\n",
        ),
        (
            "import torchvision.transforms.functional as TF\nout = TF.resized_crop(img, 1, 2, 3, 4, 5)\n",
            "import ms_aux\nout = ms_aux.image_resized_crop(img, 1, 2, 3, 4, 5)\n",
        ),
        (
            "import torchvision\nimg = torchvision.utils.make_grid(x, nrow=4)\n",
            "import ms_aux\nimg = ms_aux.make_grid(x, nrow=4)\n",
        ),
        (
            "import torchvision.datasets as dset\nd = dset.FakeData(image_size=(3, 8, 8))\n",
            "import ms_aux\nd = ms_aux.FakeData(image_size=(3, 8, 8))\n",
        ),
    ],
)
def test_conversions(before: str, after: str) -> None:
    result = convert_checked(before)
    assert result.code == after
    assert not result.findings


@pytest.mark.parametrize(
    ("call", "reason"),
    [
        ("T.Resize(256, max_size=512)", "max_size"),
        ("T.Resize(256, interpolation=2)", "int interpolation"),
        ("T.Pad(2, padding_mode=mode)", "padding mode string literal"),
        ("T.RandomCrop(32, **options)", "unpacked"),
        ("T.Normalize(mean, std, eps=1)", "`eps=`"),
    ],
)
def test_refused_transforms_stay_on_torchvision(call: str, reason: str) -> None:
    result = convert_checked(
        f"import os\nimport torchvision.transforms as T\nt = {call}\n"
    )
    assert "import torchvision.transforms as T\n" in result.code
    assert f"t = {call}" in result.code
    findings = [(f.rule, f.message) for f in result.findings]
    assert any(rule == "TM951" and reason in message for rule, message in findings)


def test_unmapped_torchvision_names_are_reported() -> None:
    source = (
        "import torchvision.transforms as T\nfrom torchvision import datasets\n"
        "a = datasets.SVHN('x')\nb = T.RandomErasing()\nc = T.ToTensor()\n"
    )
    result = convert_checked(source)
    assert "a = datasets.SVHN('x')" in result.code
    assert "b = T.RandomErasing()" in result.code
    assert "c = vision.ToTensor()" in result.code
    assert [(f.rule, f.line) for f in result.findings] == [
        ("TM901", 1),
        ("TM901", 2),
        ("TM901", 3),
        ("TM901", 4),
    ]
    assert result.api_total == 3 and result.api_converted == 1


def test_torchvision_import_without_use_is_removed() -> None:
    result = convert_checked("import os\nimport torchvision\n\nx = os.sep\n")
    assert result.code == "import os\n\nx = os.sep\n"


def test_interpolation_modes_as_dictionary_keys() -> None:
    """timm's table of modes: every member becomes the companion's, BOX and HAMMING included."""
    source = (
        "from torchvision.transforms.functional import InterpolationMode\n"
        "modes = {InterpolationMode.NEAREST: 'nearest', InterpolationMode.BOX: 'box'}\n"
    )
    result = convert_checked(source)
    assert "ms_aux.InterpolationMode.NEAREST: 'nearest'" in result.code
    assert "ms_aux.InterpolationMode.BOX: 'box'" in result.code
    assert "torchvision" not in result.code


def test_only_the_torchvision_names_still_used_are_imported() -> None:
    source = (
        "from torchvision.datasets import CIFAR10, MNIST, QMNIST\n\n"
        "table = dict(cifar10=CIFAR10, mnist=MNIST, qmnist=QMNIST)\n"
    )
    result = convert_checked(source)
    assert result.code.startswith("import ms_aux\n# torch2ms: TM901")
    assert "from torchvision.datasets import QMNIST\n" in result.code
    assert (
        "dict(cifar10=ms_aux.CIFAR10, mnist=ms_aux.MNIST, qmnist=QMNIST)" in result.code
    )


def test_lsun_branch_no_longer_needs_torchvision() -> None:
    """dcgan's LSUN branch: the call becomes a stand-in that raises, reported as an error, so
    the script's other branches run without torchvision."""
    source = (
        "import torchvision.datasets as dset\n\n"
        "if name == 'lsun':\n    data = dset.LSUN(root=root, classes=['bedroom_train'])\n"
        "else:\n    data = dset.FakeData(image_size=(3, 8, 8))\n"
    )
    result = convert_checked(source)
    assert "data = ms_aux.LSUN(root=root, classes=['bedroom_train'])" in result.code
    assert "torchvision" not in result.code.replace("`torchvision.datasets.LSUN`", "")
    assert [(f.rule, f.severity) for f in result.findings] == [("TM951", "error")]
