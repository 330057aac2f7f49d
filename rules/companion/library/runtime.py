"""Queries and helpers of torch's runtime that a converted program answers for itself.

Autocast dtypes, the default device, asynchronous asserts, checkpoint-loading contexts, weight
initialisation arithmetic and the legacy `torch.Tensor(...)` constructor: each says what it returns
on MindSpore and why that keeps the program's meaning.
"""

import contextlib
import re

import mindspore
import numpy as np
from mindspore import ops


def get_autocast_dtype(device_type="cuda"):
    """`torch.get_autocast_dtype(device_type)`: torch's defaults, bfloat16 on the CPU and float16 on
    accelerators. A converted program runs no autocast region (`is_autocast_enabled()` is False), so
    this only answers a query."""
    return mindspore.bfloat16 if str(device_type) == "cpu" else mindspore.float16


def get_autocast_cpu_dtype():
    """`torch.get_autocast_cpu_dtype()`: bfloat16, torch's default for the CPU."""
    return mindspore.bfloat16


def get_autocast_gpu_dtype():
    """`torch.get_autocast_gpu_dtype()`: float16, torch's default for CUDA."""
    return mindspore.float16


def initial_seed():
    """`torch.initial_seed()`: the seed last set. Converted code seeds with `mindspore.set_seed`
    (`torch.manual_seed`, `torch.seed`), which `mindspore.get_seed()` answers; before any seed,
    MindSpore's default generator's."""
    seed = mindspore.get_seed()
    return int(seed) if seed is not None else int(mindspore.initial_seed())


def seed():
    """`torch.seed()`: seeds what the program draws with a nondeterministic seed and returns it,
    as torch does; the seed is within MindSpore's range (below 2**32), torch's may be wider."""
    value = int(mindspore.seed()) % (2**32)
    mindspore.set_seed(value)
    return value


class _DefaultDevice:
    """What `torch.get_default_device()` returns, as far as code reads it: `.type` and `str()`."""

    def __init__(self, kind):
        self.type = kind
        self.index = None

    def __str__(self):
        return self.type

    __repr__ = __str__


def get_default_device():
    """`torch.get_default_device()`: the device MindSpore computes on (`cpu`, `cuda` for a GPU,
    `npu` for Ascend); never `meta`, which MindSpore has no counterpart of."""
    target = mindspore.get_context("device_target")
    return _DefaultDevice({"GPU": "cuda", "Ascend": "npu"}.get(target, "cpu"))


def assert_async(condition, message="Expected Tensor with single nonzero value"):
    """`torch._assert_async(t)`: raises when the one-element tensor is zero. torch defers the check
    on accelerators; MindSpore reads the value at once."""
    if not bool(condition):
        raise RuntimeError(message)


def safe_globals(safe_globals):
    """`torch.serialization.safe_globals([...])`: a context that does nothing. It lets torch's
    unpickler accept the listed classes; MindSpore's checkpoints are not pickles."""
    return contextlib.nullcontext()


def calculate_fan_in_and_fan_out(tensor):
    """`torch.nn.init._calculate_fan_in_and_fan_out(t)`: (fan_in, fan_out) from the shape, as torch
    computes them: the receptive field (dims after the first two) times the input / output
    channels (dims 1 and 0)."""
    shape = tuple(tensor.shape)
    if len(shape) < 2:
        raise ValueError(
            "Fan in and fan out can not be computed for tensor with fewer than 2 dimensions"
        )
    receptive = int(np.prod(shape[2:])) if len(shape) > 2 else 1
    return shape[1] * receptive, shape[0] * receptive


def legacy_tensor(*data, dtype=None, device=None):
    """`torch.Tensor(...)`, the legacy constructor: from data (a list, tuple, array or tensor) a
    float32 tensor of its values; from sizes (`torch.Tensor(2, 3)`) a float32 tensor of that shape,
    filled with zeros where torch leaves memory uninitialised; `torch.Tensor()` an empty one.
    ``dtype`` serves the typed constructors (`torch.LongTensor(...)` and the others)."""
    dtype = mindspore.float32 if dtype is None else dtype
    if not data:
        return ops.zeros((0,), dtype)
    if len(data) == 1 and not isinstance(data[0], int):
        value = data[0]
        if isinstance(value, mindspore.Tensor):
            return value.astype(dtype)
        if isinstance(value, (tuple, list)) and not value:
            return ops.zeros((0,), dtype)
        if dtype == mindspore.bfloat16:
            return mindspore.Tensor(np.asarray(value, dtype=np.float32)).astype(dtype)
        return mindspore.Tensor(
            np.asarray(value, dtype=mindspore.dtype_to_nptype(dtype))
        )
    if all(isinstance(d, int) for d in data):
        return ops.zeros(tuple(data), dtype)
    raise TypeError(f"torch.Tensor() got arguments it does not take: {data!r}")


def _typed_legacy(dtype):
    """The legacy constructor named by an element type (`torch.LongTensor(...)`)."""

    def construct(*data, device=None):
        return legacy_tensor(*data, dtype=dtype)

    return construct


FloatTensor = _typed_legacy(mindspore.float32)
DoubleTensor = _typed_legacy(mindspore.float64)
HalfTensor = _typed_legacy(mindspore.float16)
BFloat16Tensor = _typed_legacy(mindspore.bfloat16)
LongTensor = _typed_legacy(mindspore.int64)
IntTensor = _typed_legacy(mindspore.int32)
ShortTensor = _typed_legacy(mindspore.int16)
CharTensor = _typed_legacy(mindspore.int8)
ByteTensor = _typed_legacy(mindspore.uint8)
BoolTensor = _typed_legacy(mindspore.bool_)


def vmap(func, in_dims=0, out_dims=0, randomness="error", *, chunk_size=None):
    """`torch.vmap(func, in_dims, out_dims)`: `func` applied to each slice along `in_dims` (an int,
    or one entry per argument, None for an argument passed whole), the results stacked along
    `out_dims`. A loop of calls, so that every operator `func` uses keeps its own semantics
    (MindSpore's `vmap` batches a 2-D @ 1-D matmul wrongly in 2.10). torch's `randomness` and
    `chunk_size` have no counterpart: anything but their defaults raises."""
    if randomness != "error" or chunk_size is not None:
        raise NotImplementedError(
            "vmap: randomness= and chunk_size= have no MindSpore counterpart"
        )

    def mapped(*args):
        dims = in_dims if isinstance(in_dims, (tuple, list)) else (in_dims,) * len(args)
        sizes = {a.shape[d] for a, d in zip(args, dims) if d is not None}
        if len(sizes) != 1:
            raise ValueError(
                f"vmap: the mapped dimensions differ in size: {sorted(sizes)}"
            )
        results = [
            func(*(a if d is None else _take(a, d, i) for a, d in zip(args, dims)))
            for i in range(sizes.pop())
        ]
        if isinstance(results[0], (tuple, list)):
            outs = (
                out_dims
                if isinstance(out_dims, (tuple, list))
                else (out_dims,) * len(results[0])
            )
            return tuple(
                ops.stack(list(r), axis=o) for r, o in zip(zip(*results), outs)
            )
        return ops.stack(results, axis=out_dims)

    return mapped


def _take(x, dim, index):
    """The slice of ``x`` at ``index`` along ``dim``, without that dimension."""
    return x[(slice(None),) * (dim % x.ndim) + (index,)]


class Size(tuple):
    """`torch.Size(sizes)`: a tuple of ints with torch's `numel()`. MindSpore shapes are plain
    tuples; they compare equal to it, element by element."""

    def __new__(cls, sizes=()):
        return super().__new__(cls, (int(s) for s in sizes))

    def numel(self):
        count = 1
        for size in self:
            count *= size
        return count


class _DatasetKind(type):
    """Answers `isinstance(obj, <kind>)` by what the object's class defines: a converted dataset
    class no longer derives from torch's `Dataset`/`IterableDataset` (MindSpore reads any object
    with `__getitem__` and `__len__`, or `__iter__`)."""

    def __instancecheck__(cls, obj):
        return cls.__subclasscheck__(type(obj))

    def __subclasscheck__(cls, klass):
        has = lambda name: any(
            name in vars(k) for k in klass.__mro__ if k is not object
        )
        if cls.style == "iterable":
            return has("__iter__") and not has("__getitem__")
        return has("__getitem__")


class Dataset(metaclass=_DatasetKind):
    """`torch.utils.data.Dataset` in a type check: an object whose class defines `__getitem__`
    (a map-style dataset)."""

    style = "map"


class IterableDataset(metaclass=_DatasetKind):
    """`torch.utils.data.IterableDataset` in a type check: an object whose class defines
    `__iter__` and no `__getitem__` (an iterable-style dataset)."""

    style = "iterable"


# `torch.utils.data._utils.collate.np_str_obj_array_pattern`: the NumPy dtype kinds (bytes,
# strings, objects) that default collation refuses to turn into tensors; torch's own pattern.
np_str_obj_array_pattern = re.compile(r"[SaUO]")

# `torch.utils.data._utils.collate.default_collate_err_msg_format`: the message default collation
# raises for a batch of another type; torch's own text.
default_collate_err_msg_format = (
    "default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; "
    "found {}"
)
