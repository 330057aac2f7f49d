"""Data-pipeline helpers with torchvision's meaning, on mindspore.dataset and PIL."""

import gzip
import io
import math
import os
import shutil
import threading

import mindspore
import mindspore.dataset as ds
import numpy as np
from mindspore import nn
from mindspore.dataset import vision
from PIL import Image


# -- transforms on PIL images ---------------------------------------------------------------
class InterpolationMode:
    """`torchvision.transforms.InterpolationMode`: each mode as the `mindspore.dataset.vision.Inter`
    member that resamples PIL images with the same PIL filter (LANCZOS is Inter.ANTIALIAS). BOX
    and HAMMING have no MindSpore member: they stay names, which MindSpore's transforms refuse."""

    NEAREST = vision.Inter.NEAREST
    BILINEAR = vision.Inter.BILINEAR
    BICUBIC = vision.Inter.BICUBIC
    LANCZOS = vision.Inter.ANTIALIAS
    BOX = "box"
    HAMMING = "hamming"

    def __new__(cls, value):
        """`InterpolationMode("bilinear")`: the mode whose torchvision value is ``value``."""
        modes = {
            "nearest": cls.NEAREST,
            "bilinear": cls.BILINEAR,
            "bicubic": cls.BICUBIC,
            "lanczos": cls.LANCZOS,
            "box": cls.BOX,
            "hamming": cls.HAMMING,
        }
        if value not in modes:
            raise ValueError(f"{value!r} is not a valid InterpolationMode")
        return modes[value]


class Compose:
    """`torchvision.transforms.Compose`: the transforms applied one after another, the image
    returned as the last one gives it (MindSpore's Compose, called on one image, returns a
    tuple); usable as one operation of a `mindspore.dataset` map."""

    def __init__(self, transforms):
        self.transforms = list(transforms)

    def __call__(self, img):
        for transform in self.transforms:
            img = transform(img)
        return img


class ColorJitter:
    """`torchvision.transforms.ColorJitter`: brightness, contrast, saturation and hue factors
    drawn uniformly from torchvision's ranges, applied in a random order, each by the
    `mindspore.dataset.vision.Adjust*` transform that computes torchvision's `adjust_*` on PIL
    images. As in torchvision, a factor left at its default is skipped (MindSpore's
    RandomColorAdjust always shifts the hue, which changes pixels even by 0)."""

    def __init__(self, brightness=0, contrast=0, saturation=0, hue=0):
        self.brightness = self._range(brightness, 1.0, (0, float("inf")), True)
        self.contrast = self._range(contrast, 1.0, (0, float("inf")), True)
        self.saturation = self._range(saturation, 1.0, (0, float("inf")), True)
        self.hue = self._range(hue, 0.0, (-0.5, 0.5), False)

    @staticmethod
    def _range(value, center, bound, clip_first_on_zero):
        if isinstance(value, (int, float)):
            if value < 0:
                raise ValueError("ColorJitter: a single value must be non negative")
            value = [center - float(value), center + float(value)]
            if clip_first_on_zero:
                value[0] = max(value[0], 0.0)
        else:
            value = [float(value[0]), float(value[1])]
        if not bound[0] <= value[0] <= value[1] <= bound[1]:
            raise ValueError(f"ColorJitter: values should be between {bound}")
        return None if value[0] == value[1] == center else tuple(value)

    def __call__(self, img):
        adjust = (
            (self.brightness, vision.AdjustBrightness),
            (self.contrast, vision.AdjustContrast),
            (self.saturation, vision.AdjustSaturation),
            (self.hue, vision.AdjustHue),
        )
        for index in np.random.permutation(4):
            bounds, transform = adjust[index]
            if bounds is not None:
                img = transform(float(np.random.uniform(bounds[0], bounds[1])))(img)
        return img


class RandomApply:
    """`torchvision.transforms.RandomApply`: the transforms in order with probability `p`
    (drawn with NumPy), else the image unchanged."""

    def __init__(self, transforms, p=0.5):
        self.transforms = list(transforms)
        self.p = p

    def __call__(self, img):
        if self.p < np.random.random():
            return img
        for transform in self.transforms:
            img = transform(img)
        return img


class RandomGrayscale:
    """`torchvision.transforms.RandomGrayscale`: with probability `p`, the image in gray with as
    many channels as it had, by `mindspore.dataset.vision.Grayscale` (torchvision's pixels)."""

    def __init__(self, p=0.1):
        self.p = p

    def __call__(self, img):
        if np.random.random() < self.p:
            return vision.Grayscale(get_dimensions(img)[0])(img)
        return img


class GaussianBlur:
    """`torchvision.transforms.GaussianBlur` on PIL images: a sigma drawn uniformly from the
    range, torchvision's normalised Gaussian kernels, reflected borders, rounded back to bytes;
    computed in NumPy (two one-dimensional passes in float64, where torchvision convolves in
    float32, so a pixel may differ by one where a value lies at a rounding boundary)."""

    def __init__(self, kernel_size, sigma=(0.1, 2.0)):
        size = (
            (kernel_size, kernel_size) if isinstance(kernel_size, int) else kernel_size
        )
        if len(size) != 2 or any(k <= 0 or k % 2 == 0 for k in size):
            raise ValueError("Kernel size value should be an odd and positive number.")
        if isinstance(sigma, (int, float)):
            if sigma <= 0:
                raise ValueError("If sigma is a single number, it must be positive.")
            sigma = (float(sigma), float(sigma))
        elif not 0.0 < sigma[0] <= sigma[1]:
            raise ValueError(
                "sigma values should be positive and of the form (min, max)."
            )
        self.kernel_size = tuple(size)
        self.sigma = tuple(sigma)

    @staticmethod
    def _kernel(size, sigma):
        half = (size - 1) * 0.5
        x = np.linspace(-half, half, size)
        pdf = np.exp(-0.5 * (x / sigma) ** 2)
        return pdf / pdf.sum()

    def __call__(self, img):
        _pil_only(img, "GaussianBlur")
        sigma = float(np.random.uniform(self.sigma[0], self.sigma[1]))
        pixels = np.asarray(img).astype(np.float64)
        flat = pixels.ndim == 2
        if flat:
            pixels = pixels[:, :, None]
        kx, ky = self.kernel_size
        padded = np.pad(
            pixels, ((ky // 2, ky // 2), (kx // 2, kx // 2), (0, 0)), mode="reflect"
        )
        rows = np.lib.stride_tricks.sliding_window_view(padded, ky, axis=0)
        blurred = rows @ self._kernel(ky, sigma)
        cols = np.lib.stride_tricks.sliding_window_view(blurred, kx, axis=1)
        blurred = cols @ self._kernel(kx, sigma)
        out = np.round(blurred).astype(np.uint8)
        return Image.fromarray(out[:, :, 0] if flat else out, img.mode)


def _pil_only(img, name):
    if not isinstance(img, Image.Image):
        raise NotImplementedError(
            f"{name}: this stand-in takes PIL images only, got {type(img).__name__}"
        )


def pil_to_tensor(pic):
    """`torchvision.transforms.functional.pil_to_tensor`: the PIL image's pixels as a CHW
    array of its own dtype, unscaled (numpy's view of the image, moved channels first)."""
    _pil_only(pic, "pil_to_tensor")
    array = np.asarray(pic)
    if array.ndim == 2:
        array = array[:, :, None]
    return np.ascontiguousarray(array.transpose(2, 0, 1))


class PILToTensor:
    """`torchvision.transforms.PILToTensor`: `pil_to_tensor` as a transform object."""

    def __call__(self, pic):
        return pil_to_tensor(pic)


def to_tensor(pic):
    """`torchvision.transforms.functional.to_tensor`: HWC uint8 -> CHW float32 in [0, 1],
    by `mindspore.dataset.vision.ToTensor`."""
    return vision.ToTensor()(pic)


def get_dimensions(img):
    """`torchvision.transforms.functional.get_dimensions`: [channels, height, width] of a PIL image."""
    _pil_only(img, "get_dimensions")
    width, height = img.size
    return [len(img.getbands()), height, width]


def get_image_size(img):
    """`torchvision.transforms.functional.get_image_size`: [width, height] of a PIL image."""
    _pil_only(img, "get_image_size")
    return list(img.size)


def image_crop(img, top, left, height, width):
    """`torchvision.transforms.functional.crop` on a PIL image: PIL's own crop, which fills
    the part of the box outside the image with zeros, as torchvision's does."""
    _pil_only(img, "crop")
    return img.crop((left, top, left + width, top + height))


def image_resize(
    img, size, interpolation=vision.Inter.BILINEAR, max_size=None, antialias=True
):
    """`torchvision.transforms.functional.resize` on a PIL image, by
    `mindspore.dataset.vision.Resize`, which resizes PIL images with PIL as torchvision does
    (an int size is the shorter side). `antialias` is always on for PIL images in both."""
    _pil_only(img, "resize")
    if max_size is not None:
        raise NotImplementedError("resize: max_size= is not supported")
    return vision.Resize(size, interpolation)(img)


def image_resized_crop(
    img,
    top,
    left,
    height,
    width,
    size,
    interpolation=vision.Inter.BILINEAR,
    antialias=True,
):
    """`torchvision.transforms.functional.resized_crop` on a PIL image: `crop`, then `resize`."""
    return image_resize(image_crop(img, top, left, height, width), size, interpolation)


def image_center_crop(img, output_size):
    """`torchvision.transforms.functional.center_crop` on a PIL image, by
    `mindspore.dataset.vision.CenterCrop` (an output larger than the image is refused)."""
    _pil_only(img, "center_crop")
    if isinstance(output_size, int):
        output_size = (output_size, output_size)
    elif len(output_size) == 1:
        output_size = (output_size[0], output_size[0])
    width, height = img.size
    if output_size[0] > height or output_size[1] > width:
        raise NotImplementedError(
            "center_crop: an output larger than the image (torchvision pads it) is not supported"
        )
    return vision.CenterCrop(tuple(output_size))(img)


_BORDERS = {
    "constant": vision.Border.CONSTANT,
    "edge": vision.Border.EDGE,
    "reflect": vision.Border.REFLECT,
    "symmetric": vision.Border.SYMMETRIC,
}


def image_pad(img, padding, fill=0, padding_mode="constant"):
    """`torchvision.transforms.functional.pad` on a PIL image, by `mindspore.dataset.vision.Pad`
    (the same (left, top, right, bottom) order and the same four modes)."""
    _pil_only(img, "pad")
    if isinstance(padding, (list, tuple)):
        padding = tuple(padding) if len(padding) > 1 else padding[0]
    return vision.Pad(padding, fill_value=fill, padding_mode=_BORDERS[padding_mode])(
        img
    )


def image_hflip(img):
    """`torchvision.transforms.functional.hflip` on a PIL image."""
    _pil_only(img, "hflip")
    return img.transpose(Image.FLIP_LEFT_RIGHT)


def image_vflip(img):
    """`torchvision.transforms.functional.vflip` on a PIL image."""
    _pil_only(img, "vflip")
    return img.transpose(Image.FLIP_TOP_BOTTOM)


# -- datasets ---------------------------------------------------------------------------------
def _dataset_folder(root, parts, files, download):
    """The folder under ``root`` that holds ``files``, extracting ``name.gz`` beside a missing
    ``name`` as torchvision does after its download; a clear error where they are absent (a
    converted program does not download)."""
    folder = os.path.join(os.path.expanduser(os.fspath(root)), *parts)
    for name in files:
        path = os.path.join(folder, name)
        if not os.path.exists(path) and os.path.exists(path + ".gz"):
            with gzip.open(path + ".gz", "rb") as source, open(path, "wb") as target:
                shutil.copyfileobj(source, target)
    missing = [n for n in files if not os.path.exists(os.path.join(folder, n))]
    if missing:
        action = "cannot download (download=True)" if download else "does not download"
        raise FileNotFoundError(
            f"{folder} must hold {', '.join(missing)}; the MindSpore conversion {action}: "
            "fetch the files once (torchvision's download writes this layout) and run again"
        )
    return folder


def _int64_label(label):
    return np.int64(label)


def _with_transforms(dataset, to_pil, transform, target_transform):
    """Map the image column to a PIL image and through ``transform``, and the label column to an
    int64 scalar and through ``target_transform``."""
    if transform is not None:
        dataset = dataset.map(operations=[to_pil, transform], input_columns=["image"])
    labels = [_int64_label] + (
        [target_transform] if target_transform is not None else []
    )
    return dataset.map(operations=labels, input_columns=["label"])


def _gray_pil(image):
    return Image.fromarray(image[:, :, 0], mode="L")


def _rgb_pil(image):
    return Image.fromarray(image)


_IDX_FILES = {
    True: ("train-images-idx3-ubyte", "train-labels-idx1-ubyte"),
    False: ("t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte"),
}


def _idx_only(folder, files):
    """A folder holding only ``files``: MnistDataset reads every file whose name starts with an
    idx name, so the `.gz` archives torchvision leaves beside them would be read too. Links to
    the files go in a `mindspore` folder beside the raw one (copies where links are refused)."""
    if not any(
        name.startswith(files) and name not in files for name in os.listdir(folder)
    ):
        return folder
    linked = os.path.join(os.path.dirname(folder), "mindspore")
    os.makedirs(linked, exist_ok=True)
    for name in files:
        target = os.path.join(linked, name)
        if not os.path.exists(target):
            try:
                os.symlink(os.path.abspath(os.path.join(folder, name)), target)
            except OSError:
                shutil.copyfile(os.path.join(folder, name), target)
    return linked


def MNIST(root, train=True, transform=None, target_transform=None, download=False):
    """`torchvision.datasets.MNIST`: `mindspore.dataset.MnistDataset` over torchvision's
    folder `root/MNIST/raw`, in file order; each image reaches `transform` as a PIL 'L' image
    and each label is an int64 scalar, as torchvision gives them."""
    files = _IDX_FILES[bool(train)]
    folder = _idx_only(_dataset_folder(root, ("MNIST", "raw"), files, download), files)
    usage = "train" if train else "test"
    data = ds.MnistDataset(folder, usage=usage, shuffle=False)
    return _with_transforms(data, _gray_pil, transform, target_transform)


def KMNIST(root, train=True, transform=None, target_transform=None, download=False):
    """`torchvision.datasets.KMNIST`: Kuzushiji-MNIST's idx files in `root/KMNIST/raw`, read by
    `mindspore.dataset.MnistDataset` (the same format and file names); samples as in `MNIST`."""
    files = _IDX_FILES[bool(train)]
    folder = _idx_only(_dataset_folder(root, ("KMNIST", "raw"), files, download), files)
    usage = "train" if train else "test"
    data = ds.MnistDataset(folder, usage=usage, shuffle=False)
    return _with_transforms(data, _gray_pil, transform, target_transform)


def FashionMNIST(
    root, train=True, transform=None, target_transform=None, download=False
):
    """`torchvision.datasets.FashionMNIST`: `mindspore.dataset.FashionMnistDataset` over
    torchvision's folder `root/FashionMNIST/raw`; samples as in `MNIST`."""
    files = _IDX_FILES[bool(train)]
    folder = _idx_only(
        _dataset_folder(root, ("FashionMNIST", "raw"), files, download), files
    )
    usage = "train" if train else "test"
    data = ds.FashionMnistDataset(folder, usage=usage, shuffle=False)
    return _with_transforms(data, _gray_pil, transform, target_transform)


def CIFAR10(root, train=True, transform=None, target_transform=None, download=False):
    """`torchvision.datasets.CIFAR10`: `mindspore.dataset.Cifar10Dataset` over
    `root/cifar-10-batches-bin`, the binary version of the files (torchvision reads the pickled
    `cifar-10-batches-py`, which Cifar10Dataset does not); images reach `transform` as PIL RGB."""
    files = (
        [f"data_batch_{i}.bin" for i in range(1, 6)] if train else ["test_batch.bin"]
    )
    folder = _dataset_folder(root, ("cifar-10-batches-bin",), files, download)
    usage = "train" if train else "test"
    data = ds.Cifar10Dataset(folder, usage=usage, shuffle=False)
    return _with_transforms(data, _rgb_pil, transform, target_transform)


def CIFAR100(root, train=True, transform=None, target_transform=None, download=False):
    """`torchvision.datasets.CIFAR100`: `mindspore.dataset.Cifar100Dataset` over
    `root/cifar-100-binary` (the binary version), with the fine labels as torchvision's targets."""
    files = ["train.bin"] if train else ["test.bin"]
    folder = _dataset_folder(root, ("cifar-100-binary",), files, download)
    usage = "train" if train else "test"
    data = ds.Cifar100Dataset(folder, usage=usage, shuffle=False)
    data = data.project(["image", "fine_label"]).rename(["fine_label"], ["label"])
    return _with_transforms(data, _rgb_pil, transform, target_transform)


IMG_EXTENSIONS = (
    ".jpg",
    ".jpeg",
    ".png",
    ".ppm",
    ".bmp",
    ".pgm",
    ".tif",
    ".tiff",
    ".webp",
)


def _decode_rgb(data):
    return Image.open(io.BytesIO(data.tobytes())).convert("RGB")


def ImageFolder(
    root,
    transform=None,
    target_transform=None,
    loader=None,
    is_valid_file=None,
    allow_empty=False,
):
    """`torchvision.datasets.ImageFolder`: `mindspore.dataset.ImageFolderDataset` with
    torchvision's classes (sorted folder names) and extensions; each image is decoded with PIL
    and converted to RGB, as torchvision's default loader does."""
    if loader is not None or is_valid_file is not None:
        raise NotImplementedError(
            "ImageFolder: loader= and is_valid_file= are not supported"
        )
    root = os.path.expanduser(os.fspath(root))
    classes = sorted(e.name for e in os.scandir(root) if e.is_dir())
    extensions = [e for x in IMG_EXTENSIONS for e in (x, x.upper())]
    data = ds.ImageFolderDataset(
        root,
        shuffle=False,
        extensions=extensions,
        class_indexing={name: i for i, name in enumerate(classes)},
    )
    decode = [_decode_rgb] + ([transform] if transform is not None else [])
    data = data.map(operations=decode, input_columns=["image"])
    labels = [_int64_label] + (
        [target_transform] if target_transform is not None else []
    )
    return data.map(operations=labels, input_columns=["label"])


def LSUN(root, classes="train", transform=None, target_transform=None):
    """`torchvision.datasets.LSUN`: LSUN's LMDB databases have no `mindspore.dataset` reader, so
    this stand-in raises when called; a script that takes another branch runs without
    torchvision."""
    raise NotImplementedError(
        "LSUN: mindspore.dataset has no reader for LSUN's LMDB databases; export the images "
        "to class folders and read them with ImageFolder"
    )


class FakeData:
    """`torchvision.datasets.FakeData`: random images and labels, drawn with NumPy seeded by the
    index (torchvision seeds torch's generator with it), so the pixels differ from torch's while
    the shapes, the classes and the image modes agree. Images reach `transform` as PIL images."""

    def __init__(
        self,
        size=1000,
        image_size=(3, 224, 224),
        num_classes=10,
        transform=None,
        target_transform=None,
        random_offset=0,
    ):
        self.size = size
        self.image_size = tuple(image_size)
        self.num_classes = num_classes
        self.transform = transform
        self.target_transform = target_transform
        self.random_offset = random_offset

    def __len__(self):
        return self.size

    def __getitem__(self, index):
        if index >= self.size:
            raise IndexError(f"{type(self).__name__} index out of range")
        rng = np.random.default_rng(index + self.random_offset)
        image = rng.standard_normal(self.image_size).astype(np.float32)
        target = int(rng.integers(0, self.num_classes))
        pixels = (image * 255).astype(np.int64).astype(np.uint8).transpose(1, 2, 0)
        image = Image.fromarray(pixels[:, :, 0] if pixels.shape[2] == 1 else pixels)
        if self.transform is not None:
            image = self.transform(image)
        if self.target_transform is not None:
            target = self.target_transform(target)
        return image, target


# -- images out ------------------------------------------------------------------------------
def _as_array(tensor):
    if isinstance(tensor, (list, tuple)):
        return np.stack([_as_array(t) for t in tensor])
    if isinstance(tensor, mindspore.Tensor):
        return tensor.asnumpy()
    return np.asarray(tensor)


def make_grid(
    tensor,
    nrow=8,
    padding=2,
    normalize=False,
    value_range=None,
    scale_each=False,
    pad_value=0.0,
):
    """`torchvision.utils.make_grid`: a batch of CHW images tiled row by row into one CHW
    image, with torchvision's padding, normalisation and single-channel expansion, in NumPy."""
    array = _as_array(tensor).astype(np.float32, copy=True)
    if array.ndim == 2:
        array = array[None]
    if array.ndim == 3:
        if array.shape[0] == 1:
            array = np.concatenate([array] * 3, 0)
        array = array[None]
    if array.ndim == 4 and array.shape[1] == 1:
        array = np.concatenate([array] * 3, 1)
    if normalize:

        def scale(part, bounds):
            low, high = bounds if bounds is not None else (part.min(), part.max())
            np.clip(part, low, high, out=part)
            part -= low
            part /= max(high - low, 1e-5)

        if scale_each:
            for image in array:
                scale(image, value_range)
        else:
            scale(array, value_range)
    if array.shape[0] == 1:
        return mindspore.Tensor(array[0])
    count, channels, height, width = array.shape
    columns = min(nrow, count)
    rows = math.ceil(count / columns)
    cell_h, cell_w = height + padding, width + padding
    grid = np.full(
        (channels, cell_h * rows + padding, cell_w * columns + padding),
        pad_value,
        dtype=np.float32,
    )
    for k in range(count):
        y, x = divmod(k, columns)
        top, left = y * cell_h + padding, x * cell_w + padding
        grid[:, top : top + height, left : left + width] = array[k]
    return mindspore.Tensor(grid)


def save_image(tensor, fp, format=None, **kwargs):
    """`torchvision.utils.save_image`: `make_grid`, scaled to bytes as torchvision rounds them
    (x * 255 + 0.5, clipped, truncated), written with PIL."""
    grid = make_grid(tensor, **kwargs).asnumpy()
    pixels = np.clip(grid * 255 + 0.5, 0, 255).transpose(1, 2, 0).astype(np.uint8)
    Image.fromarray(pixels).save(fp, format=format)


# -- layers ----------------------------------------------------------------------------------
class FrozenBatchNorm2d(nn.BatchNorm2d):
    """`torchvision.ops.misc.FrozenBatchNorm2d`: a BatchNorm2d that always normalises with its
    stored statistics (`use_batch_statistics=False`) and never trains its affine parameters;
    `gamma`, `beta`, `moving_mean` and `moving_variance` are non-trainable Parameters, named
    as MindSpore's BatchNorm names them (torch's weight, bias, running_mean, running_var)."""

    def __init__(self, num_features, eps=1e-5):
        super().__init__(num_features, eps=eps, use_batch_statistics=False)
        self.gamma.requires_grad = False
        self.beta.requires_grad = False


# MindSpore ops are not safe to run from several pipeline workers at once (the process aborts):
# the functions of `Lambda` run one at a time.
_LAMBDA_LOCK = threading.Lock()


class Lambda:
    """`torchvision.transforms.Lambda(f)` whose function computes on tensors (`torch.flatten(x)`,
    `x.mul(255)`): a `mindspore.dataset` pipeline holds NumPy arrays where torch's held tensors,
    so `f` is given a MindSpore tensor and the pipeline gets a NumPy array back. Other samples
    (a PIL image before `ToTensor`) reach `f` as they are."""

    def __init__(self, lambd):
        self.lambd = lambd

    def __call__(self, img):
        with _LAMBDA_LOCK:
            if isinstance(img, np.ndarray):
                img = mindspore.Tensor(img)
            out = self.lambd(img)
            return out.asnumpy() if isinstance(out, mindspore.Tensor) else out
