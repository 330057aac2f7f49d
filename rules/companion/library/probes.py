"""Backend probes: what a converted library asks about the packages installed beside it.

A library converted whole asks "is the deep-learning backend here, and which version?" with
`importlib.util.find_spec("torch")` and `importlib.metadata.version("torch")`, often through a
helper that takes the package name as an argument. In converted code the backend is MindSpore:
these stand-ins answer for torch from MindSpore's installation, report the torch release whose
behaviour the conversion reproduces, and answer that packages built on torch (torchvision, ...)
are absent, so the library takes its plain path. Every other package is looked up as before.
"""

import importlib.metadata
import importlib.util

# Packages built on torch: absent for converted code, whatever is installed.
_TORCH_ONLY_ROOTS = frozenset(
    {
        "torchvision",
        "torchaudio",
        "torchtext",
        "torchao",
        "torch_npu",
        "torch_xla",
        "torchdynamo",
        "functorch",
        "triton",
        "pytorch_lightning",
        "lightning",
        "apex",
        "deepspeed",
        "flash_attn",
        "xformers",
        "bitsandbytes",
        "torch_geometric",
        "intel_extension_for_pytorch",
        "habana_frameworks",
        "torch_mlu",
        "torch_musa",
        "timm",
        "torchcodec",
        "kernels",
    }
)
# The torch release the converted code's mappings reproduce (`torch.__version__` answers it too).
_TORCH_RELEASE = "2.13.0+mindspore"


def _backend_here():
    return importlib.util.find_spec("mindspore") is not None


def find_spec(name, package=None):
    """`importlib.util.find_spec(name)`: for `torch` itself, MindSpore's spec (the backend the
    converted code runs on); None for torch's submodules, which name torch-only features, and for
    packages built on torch; every other package as importlib finds it."""
    root = str(name).split(".")[0]
    if root == "torch":
        return importlib.util.find_spec("mindspore") if name == "torch" else None
    if root in _TORCH_ONLY_ROOTS or root.startswith("torch"):
        return None
    return importlib.util.find_spec(name, package)


def package_version(name):
    """`importlib.metadata.version(name)`: for `torch`, the torch release the conversion
    reproduces where MindSpore is installed; packages built on torch are not found; every other
    package reports its own version."""
    root = str(name).split(".")[0].replace("-", "_").lower()
    if root == "torch" and _backend_here():
        return _TORCH_RELEASE
    if root == "torch" or root in _TORCH_ONLY_ROOTS or root.startswith("torch"):
        raise importlib.metadata.PackageNotFoundError(name)
    return importlib.metadata.version(name)


def feature_unavailable(*args, **kwargs):
    """A probe for a torch-only feature (CUDA, flex attention, `torch.compile`, collectives, fp8,
    custom ops, torchvision): False, since converted code runs none of them, so the library takes
    its plain path."""
    return False


class _TorchOnlyType(type):
    """The class of a stand-in: attributes are stand-ins too; calling one raises."""

    def __getattr__(cls, attribute):
        if attribute.startswith("__"):
            raise AttributeError(attribute)
        return torch_only(f"{cls.__torch_name__}.{attribute}")

    def __call__(cls, *args, **kwargs):
        raise NotImplementedError(
            f"`{cls.__torch_name__}` is torch-only and has no MindSpore form in this "
            "converted code (see the TM900 finding at its use)"
        )

    def __instancecheck__(cls, instance):
        return False

    def __repr__(cls):
        return f"<torch-only {cls.__torch_name__}>"


def torch_only(name):
    """A torch API that converted code names but cannot run: a class no value is an instance
    of (`isinstance(x, DTensor)` is False) and that raises NotImplementedError, naming the API,
    when called. It lets a module that mentions the API where it is defined import and run
    without torch."""
    return _TorchOnlyType(name.rsplit(".", 1)[-1], (), {"__torch_name__": name})
