"""Companion entries in library/data.py: torch qualified name -> entry name."""

_VISION = "torchvision.transforms."
_FUNCTIONAL = "torchvision.transforms.functional."

ENTRIES: dict[str, str] = {
    _VISION + "Compose": "Compose",
    _VISION + "ColorJitter": "ColorJitter",
    _VISION + "RandomApply": "RandomApply",
    _VISION + "RandomGrayscale": "RandomGrayscale",
    _VISION + "GaussianBlur": "GaussianBlur",
    _VISION + "InterpolationMode": "InterpolationMode",
    _FUNCTIONAL + "InterpolationMode": "InterpolationMode",
    _VISION + "PILToTensor": "PILToTensor",
    _FUNCTIONAL + "pil_to_tensor": "pil_to_tensor",
    _FUNCTIONAL + "to_tensor": "to_tensor",
    _FUNCTIONAL + "get_dimensions": "get_dimensions",
    _FUNCTIONAL + "get_image_size": "get_image_size",
    _FUNCTIONAL + "crop": "image_crop",
    _FUNCTIONAL + "resize": "image_resize",
    _FUNCTIONAL + "resized_crop": "image_resized_crop",
    _FUNCTIONAL + "center_crop": "image_center_crop",
    _FUNCTIONAL + "pad": "image_pad",
    _FUNCTIONAL + "hflip": "image_hflip",
    _FUNCTIONAL + "vflip": "image_vflip",
    "torchvision.datasets.MNIST": "MNIST",
    "torchvision.datasets.FashionMNIST": "FashionMNIST",
    "torchvision.datasets.KMNIST": "KMNIST",
    "torchvision.datasets.CIFAR10": "CIFAR10",
    "torchvision.datasets.CIFAR100": "CIFAR100",
    "torchvision.datasets.ImageFolder": "ImageFolder",
    "torchvision.datasets.FakeData": "FakeData",
    "torchvision.datasets.LSUN": "LSUN",
    "torchvision.utils.make_grid": "make_grid",
    "torchvision.utils.save_image": "save_image",
    "torchvision.ops.misc.FrozenBatchNorm2d": "FrozenBatchNorm2d",
    "torchvision.ops.FrozenBatchNorm2d": "FrozenBatchNorm2d",
}
