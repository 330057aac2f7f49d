"""torchvision transforms and their conversions, on real torchvision and real MindSpore.

Each snippet is converted by torch2ms and both sides run on the same generated PIL image; the
results must be equal (pixels exactly, floats to 1e-6). Random transforms run with arguments that
fix their draw (p=1 or p=0, a crop as large as the padded image, a colour range of one value),
so the comparison is of what they compute, not of the two generators.
"""

from __future__ import annotations

import numpy as np
import pytest
from data_support import (
    as_array,
    convert_and_run,
    frameworks,
    load_companion,
    pil_image,
    run_original,
)

pytestmark = pytest.mark.real

HEAD = "import torchvision.transforms as T\n"


@pytest.fixture(scope="module")
def aux(tmp_path_factory):
    frameworks()
    return load_companion(str(tmp_path_factory.mktemp("companion")))


def assert_same(expected, actual) -> None:
    expected, actual = as_array(expected), as_array(actual)
    assert expected.shape == actual.shape
    assert expected.dtype.kind == actual.dtype.kind, (expected.dtype, actual.dtype)
    np.testing.assert_allclose(actual, expected, rtol=0, atol=1e-6)


TRANSFORMS = [
    "T.ToTensor()",
    "T.PILToTensor()",
    "T.Compose([T.ToTensor(), T.Normalize((0.485, 0.456, 0.406), (0.229, 0.224, 0.225))])",
    "T.Compose([T.ToTensor(), T.Normalize(mean=[0.5, 0.4, 0.3], std=[0.2, 0.3, 0.4], inplace=True)])",
    "T.Resize(20)",
    "T.Resize(80)",
    "T.Resize((20, 30))",
    "T.Resize([41, 17], antialias=True)",
    "T.Resize(24, interpolation=T.InterpolationMode.BICUBIC)",
    "T.Resize(24, T.InterpolationMode.NEAREST)",
    "T.Resize(30, interpolation=T.InterpolationMode.LANCZOS)",
    "T.CenterCrop(20)",
    "T.CenterCrop((21, 30))",
    "T.RandomCrop((45, 61), padding=4)",
    "T.RandomCrop(size=(41, 55), padding=(1, 2), fill=9, padding_mode='constant')",
    "T.RandomCrop((41, 57), padding=2, padding_mode='reflect')",
    "T.RandomResizedCrop((16, 24), scale=(1.0, 1.0), ratio=(53 / 37, 53 / 37))",
    (
        "T.RandomResizedCrop(20, scale=(1.0, 1.0), ratio=(53 / 37, 53 / 37), "
        "interpolation=T.InterpolationMode.BICUBIC)"
    ),
    "T.RandomHorizontalFlip(p=1.0)",
    "T.RandomHorizontalFlip(0.0)",
    "T.RandomVerticalFlip(1.0)",
    "T.ColorJitter(brightness=(1.3, 1.3))",
    "T.ColorJitter(contrast=(0.6, 0.6))",
    "T.ColorJitter(saturation=(1.7, 1.7))",
    "T.ColorJitter(hue=(0.2, 0.2))",
    "T.Pad(3)",
    "T.Pad((1, 2), fill=200)",
    "T.Pad((1, 2, 3, 4), padding_mode='edge')",
    "T.Pad(2, padding_mode='symmetric')",
    "T.Pad(2, 0, 'reflect')",
    "T.Grayscale()",
    "T.Grayscale(num_output_channels=3)",
    "T.Lambda(lambda im: im.rotate(90))",
    "T.RandomApply([T.RandomHorizontalFlip(1.0), T.Pad(1)], p=1.0)",
    "T.RandomApply([T.Pad(1)], p=0.0)",
    "T.RandomGrayscale(p=1.0)",
    "T.RandomGrayscale(0.0)",
    "T.Compose([T.Resize(30), T.CenterCrop(24), T.RandomHorizontalFlip(1.0), T.ToTensor()])",
]


# Three-channel statistics, saturation and hue mean nothing for a gray image.
RGB_ONLY = ("Normalize((0.485", "mean=[0.5", "saturation", "hue")
CASES = [
    (expression, mode)
    for expression in TRANSFORMS
    for mode in ("RGB", "L")
    if mode == "RGB" or not any(part in expression for part in RGB_ONLY)
]


@pytest.mark.parametrize(("expression", "mode"), CASES)
def test_transform_matches_torchvision(expression: str, mode: str, aux) -> None:
    source = HEAD + f"t = {expression}\n"
    image = pil_image(mode=mode)
    original = run_original(source)
    converted, code = convert_and_run(source)
    companion = (
        "Compose",
        "ColorJitter",
        "PILToTensor",
        "Interp",
        "RandomApply",
        "RandomGrayscale",
    )
    assert ("ms_aux" in code) == any(name in expression for name in companion)
    assert_same(original["t"](image.copy()), converted["t"](image.copy()))


FUNCTIONAL = [
    "out = F.to_tensor(img)",
    "out = F.pil_to_tensor(img)",
    "out = F.get_dimensions(img)",
    "out = F.get_image_size(img)",
    "out = F.crop(img, 3, 4, 10, 12)",
    "out = F.crop(img, -2, 40, 20, 20)",
    "out = F.resize(img, 20)",
    "out = F.resize(img, [20, 31], interpolation=InterpolationMode.BICUBIC)",
    "out = F.resized_crop(img, 3, 4, 20, 25, (16, 16), InterpolationMode.BILINEAR)",
    "out = F.resized_crop(img, 0, 1, 30, 30, [12, 12], interpolation=InterpolationMode.NEAREST)",
    "out = F.center_crop(img, [20, 30])",
    "out = F.center_crop(img, 15)",
    "out = F.pad(img, [1, 2, 3, 4], fill=5)",
    "out = F.pad(img, 3, padding_mode='reflect')",
    "out = F.pad(img, [2, 1], padding_mode='edge')",
    "out = F.hflip(img)",
    "out = F.vflip(img)",
]


@pytest.mark.parametrize("statement", FUNCTIONAL)
@pytest.mark.parametrize("mode", ["RGB", "L"])
def test_functional_matches_torchvision(statement: str, mode: str, aux) -> None:
    source = (
        "import torchvision.transforms.functional as F\n"
        "from torchvision.transforms.functional import InterpolationMode\n"
        f"{statement}\n"
    )
    image = pil_image(mode=mode)
    original = run_original(source, {"img": image.copy()})
    converted, code = convert_and_run(source, {"img": image.copy()})
    assert "ms_aux." in code
    expected, actual = original["out"], converted["out"]
    if isinstance(expected, list):
        assert expected == actual
    else:
        assert_same(expected, actual)


def test_functional_stand_ins_refuse_what_they_cannot_reproduce(aux) -> None:
    image = pil_image()
    with pytest.raises(NotImplementedError, match="PIL images only"):
        aux.image_crop(np.zeros((4, 4, 3), np.uint8), 0, 0, 2, 2)
    with pytest.raises(NotImplementedError, match="max_size"):
        aux.image_resize(image, 20, max_size=30)
    with pytest.raises(NotImplementedError, match="larger than the image"):
        aux.image_center_crop(image, 60)


def test_mnist_style_pipeline_on_numpy_columns(aux) -> None:
    """MnistDataset's columns are HWC arrays: ToTensor and Normalize give torchvision's values on
    them too (the resampling transforms are only exact on PIL images, which the converted
    datasets hand to the transforms)."""
    source = HEAD + "t = T.Compose([T.ToTensor(), T.Normalize((0.1307,), (0.3081,))])\n"
    image = pil_image(28, 28, "L", seed=3)
    original = run_original(source)
    converted, _ = convert_and_run(source)
    array = np.asarray(image)[:, :, None]
    np.testing.assert_allclose(
        converted["t"](array), as_array(original["t"](image)), rtol=0, atol=1e-6
    )


@pytest.mark.parametrize(
    "blur",
    [
        "T.GaussianBlur(3, sigma=0.8)",
        "T.GaussianBlur(5, 1.5)",
        "T.GaussianBlur((3, 7), sigma=(2.0, 2.0))",
        "T.GaussianBlur(kernel_size=23, sigma=(1.1, 1.1))",
    ],
)
@pytest.mark.parametrize("mode", ["RGB", "L"])
def test_gaussian_blur(blur: str, mode: str, aux) -> None:
    """A fixed sigma fixes the draw. torchvision convolves in float32, the companion in float64:
    a pixel may differ by one at a rounding boundary, and almost none does."""
    source = HEAD + f"t = {blur}\n"
    image = pil_image(mode=mode, seed=5)
    original = run_original(source)
    converted, code = convert_and_run(source)
    assert "ms_aux.GaussianBlur(" in code
    expected = as_array(original["t"](image.copy())).astype(int)
    actual = as_array(converted["t"](image.copy())).astype(int)
    assert expected.shape == actual.shape
    assert np.abs(expected - actual).max() <= 1
    assert np.mean(expected != actual) < 0.002


def test_interpolation_mode_by_value(aux) -> None:
    _, torchvision, _ = frameworks()
    from mindspore.dataset import vision

    modes = torchvision.transforms.InterpolationMode
    for name in ("nearest", "bilinear", "bicubic", "lanczos"):
        member = aux.InterpolationMode(name)
        assert member == getattr(aux.InterpolationMode, modes(name).name)
        assert isinstance(member, vision.Inter)
    with pytest.raises(ValueError, match="not a valid"):
        aux.InterpolationMode("cubic")
