"""`torch` itself read by a name known only at run time: `getattr(torch, config.dtype_name)`,
`hasattr(torch, name)`.

Libraries name dtypes in their configurations as text ("float32", "bfloat16") and look them up on
the torch module. The stand-in answers such a lookup with MindSpore's dtype of that name, and with
the stand-in device modules for `cuda` and `npu`; any other name is absent (AttributeError, so
`hasattr` is False and `getattr(..., default)` gives the default).
"""

import mindspore

from .plumbing import cuda, npu

_DTYPE_NAMES = {
    "float32": "float32",
    "float": "float32",
    "float16": "float16",
    "half": "float16",
    "float64": "float64",
    "double": "float64",
    "bfloat16": "bfloat16",
    "int8": "int8",
    "int16": "int16",
    "short": "int16",
    "int32": "int32",
    "int": "int32",
    "int64": "int64",
    "long": "int64",
    "uint8": "uint8",
    "uint16": "uint16",
    "uint32": "uint32",
    "uint64": "uint64",
    "bool": "bool_",
    "complex64": "complex64",
    "complex128": "complex128",
    "float8_e4m3fn": "float8_e4m3fn",
    "float8_e5m2": "float8_e5m2",
}


class _TorchNamespace:
    """The torch module as `getattr`/`hasattr` see it in converted code: dtypes by their torch
    names, `cuda` and `npu` as device stand-ins, nothing else."""

    def __getattr__(self, name):
        if name in _DTYPE_NAMES:
            return getattr(mindspore, _DTYPE_NAMES[name])
        if name == "cuda":
            return cuda
        if name == "npu":
            return npu
        raise AttributeError(
            f"torch.{name} has no MindSpore form here; only dtypes and the device modules "
            "are looked up by name in converted code"
        )

    def __repr__(self):
        return "<stand-in for the torch module, looked up by name>"


torch_namespace = _TorchNamespace()
