"""Tensor methods called on a value that may not be a tensor.

`x.repeat(2, 1)` is torch's tile when `x` is a tensor, and numpy's element repeat when it is an
array; the converter cannot always tell which `x` is. Each function here takes the receiver as its
first argument and decides when the program runs: a MindSpore tensor gets torch's meaning, built
from operators with CPU kernels; any other object runs its own method with the arguments as written.
"""

import collections

import mindspore
import numpy as np
from mindspore import ops


def tensor_repeat(x, *sizes, **kwargs):
    """`x.repeat(*sizes)`: torch's Tensor.repeat (a tile) on a MindSpore tensor, built with `ops.tile`
    (Tensor.repeat is numpy's repeat in MindSpore); the object's own `repeat` otherwise."""
    if not isinstance(x, mindspore.Tensor):
        return x.repeat(*sizes, **kwargs)
    if "repeats" in kwargs:
        sizes = (kwargs.pop("repeats"),)
    if kwargs:
        raise TypeError(f"repeat() got unexpected keywords {sorted(kwargs)}")
    if len(sizes) == 1 and isinstance(sizes[0], (tuple, list)):
        sizes = tuple(sizes[0])
    if len(sizes) < x.ndim:
        raise RuntimeError(
            "Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor"
        )
    return ops.tile(x, tuple(int(s) for s in sizes))


def tensor_squeeze(x, *args, **kwargs):
    """`x.squeeze(dim)`: torch's Tensor.squeeze on a MindSpore tensor (a dim whose size is not 1 is
    left alone, where MindSpore's squeeze raises); the object's own `squeeze` otherwise."""
    if not isinstance(x, mindspore.Tensor):
        return x.squeeze(*args, **kwargs)
    dim = args[0] if args else kwargs.get("dim")
    if dim is None:
        return x.squeeze()
    dims = dim if isinstance(dim, (tuple, list)) else (dim,)
    axes = (
        tuple(sorted({d % x.ndim for d in dims if x.shape[d] == 1})) if x.ndim else ()
    )
    return x.squeeze(axes) if axes else x


def _correction(unbiased, correction):
    if correction is not None:
        return int(correction)
    return 1 if unbiased is None or unbiased else 0


def tensor_std(x, *args, **kwargs):
    """`x.std(dim, unbiased, keepdim, correction=)`: torch's Tensor.std on a MindSpore tensor (torch's
    correction defaults to 1, MindSpore's ddof to 0); the object's own `std` otherwise."""
    return _moment(x, "std", ops.std, args, kwargs)


def tensor_var(x, *args, **kwargs):
    """`x.var(dim, unbiased, keepdim, correction=)`: torch's Tensor.var on a MindSpore tensor (torch's
    correction defaults to 1, MindSpore's ddof to 0); the object's own `var` otherwise."""
    return _moment(x, "var", ops.var, args, kwargs)


def _moment(x, method, op, args, kwargs):
    if not isinstance(x, mindspore.Tensor):
        return getattr(x, method)(*args, **kwargs)
    dim, ddof, keepdim = _moment_args(args, kwargs)
    return op(x, axis=dim, ddof=ddof, keepdims=keepdim)


def _moment_args(args, kwargs):
    """(dim, ddof, keepdim) from torch's `std`/`var` arguments: `(dim, unbiased, keepdim)` or
    `(unbiased)` positionally, or by keyword with `correction`."""
    args = list(args)
    if args and isinstance(args[0], bool):
        kwargs.setdefault("unbiased", args.pop(0))
    names = ("dim", "unbiased", "keepdim")
    for name, value in zip(names, args):
        kwargs[name] = value
    dim = kwargs.get("dim")
    if isinstance(dim, list):
        dim = tuple(dim)
    ddof = _correction(kwargs.get("unbiased"), kwargs.get("correction"))
    return dim, ddof, bool(kwargs.get("keepdim", False))


def tensor_dot(x, tensor):
    """`x.dot(tensor)`: torch's 1-D dot product on MindSpore tensors (`ops.inner`; MindSpore's dot wants
    2-D inputs); the object's own `dot` otherwise. The parameter has torch's name (`tensor=`)."""
    if not isinstance(x, mindspore.Tensor):
        return x.dot(tensor)
    return ops.inner(x, tensor)


def invert(x):
    """`~x`: torch's bitwise not on an integer MindSpore tensor (`ops.invert`; MindSpore's `~` is a
    logical not there), its logical not on a bool one; the object's own `~` otherwise."""
    if isinstance(x, mindspore.Tensor) and x.dtype != mindspore.bool_:
        return ops.invert(x)
    return ~x


def requires_grad_(obj, requires_grad=True):
    """`obj.requires_grad_(flag)`: a Cell sets the flag on each of its Parameters, a Parameter on
    itself (MindSpore's `Parameter.requires_grad`, which decides what `trainable_params()` returns).

    Any other MindSpore tensor holds no such flag: MindSpore differentiates with respect to what
    `grad`/`value_and_grad` is given, which the conversion of the gradient computation decides. It is
    returned as it is. An object with its own `requires_grad_` (a torch tensor) runs it."""
    if isinstance(obj, mindspore.nn.Cell):
        for param in obj.get_parameters():
            param.requires_grad = bool(requires_grad)
        return obj
    if isinstance(obj, mindspore.Parameter):
        obj.requires_grad = bool(requires_grad)
        return obj
    if isinstance(obj, mindspore.Tensor):
        return obj
    return obj.requires_grad_(requires_grad)


def detach_(param, leaf=False):
    """`param.detach_()` on a Parameter: it stops requiring gradients (`requires_grad = False`), as
    torch's in-place detach of a leaf does; MindSpore keeps no graph on a tensor to cut.

    The conversion writes this call where the receiver is a Parameter (a loop over a module's
    parameters, a name just bound to one), or, with `leaf=True`, a leaf whose flag the code cleared
    before (torch lets only a leaf do that): a plain tensor there holds no graph and is returned
    as it is. Anything else raises, naming the MindSpore form."""
    if isinstance(param, mindspore.Parameter):
        param.requires_grad = False
        return param
    if leaf and isinstance(param, mindspore.Tensor):
        return param
    raise TypeError(
        "detach_() of a computed tensor: write `y = ops.stop_gradient(y)` where y is used"
    )


def eval_mode(obj):
    """`obj.eval()`: a Cell switches to inference (`set_train(False)`: dropout off, BatchNorm reads
    its moving statistics) and is returned, as torch's Module is; any other object runs its own
    `eval()`."""
    if isinstance(obj, mindspore.nn.Cell):
        return obj.set_train(False)
    return obj.eval()


def assign_item(base, index, value):
    """`base[index].add_(v)` and other in-place updates of `base[index]`, given the new value.

    A MindSpore tensor stores it into the part `index` selects (what torch's view of that part
    would have changed); anything else (a list or dict of tensors) holds a tensor there, which is
    updated in place, so every other reference to it sees the new values."""
    if isinstance(base, mindspore.Tensor):
        base[index] = value
        return base[index]
    return ops.assign(base[index], value)


def call_forward(obj, *args, **kwargs):
    """`obj.forward(...)`: a Cell's `construct` (torch's Module.forward: the computation, without
    the hooks a call runs); any other object's own `forward`."""
    if isinstance(obj, mindspore.nn.Cell) and not hasattr(type(obj), "forward"):
        return obj.construct(*args, **kwargs)
    return obj.forward(*args, **kwargs)


def tensor_size(x, *dim):
    """`x.size()` / `x.size(dim)` where `x` comes from elsewhere: a MindSpore tensor's shape (or one
    of its sizes, negative dims counted from the end), as torch's `Tensor.size` gives; any other
    object's own `size` method.

    A MindSpore tensor's `size` is its element count, an int, so calling it fails."""
    if isinstance(x, mindspore.Tensor):
        return x.shape[dim[0]] if dim else tuple(x.shape)
    return x.size(*dim)


# torch's CPU tensor type names, by MindSpore dtype name.
_TORCH_TYPE_NAMES = {
    "Float32": "torch.FloatTensor",
    "Float64": "torch.DoubleTensor",
    "Float16": "torch.HalfTensor",
    "BFloat16": "torch.BFloat16Tensor",
    "UInt8": "torch.ByteTensor",
    "Int8": "torch.CharTensor",
    "Int16": "torch.ShortTensor",
    "Int32": "torch.IntTensor",
    "Int64": "torch.LongTensor",
    "Bool": "torch.BoolTensor",
    "Complex64": "torch.ComplexFloatTensor",
    "Complex128": "torch.ComplexDoubleTensor",
}


def tensor_type(tensor, dtype=None, non_blocking=False, **kwargs):
    """`x.type(dtype=None)`: without a dtype, torch's name of the tensor's type ('torch.FloatTensor',
    the CPU name: MindSpore places tensors by context); with one, the tensor cast to it, given as a
    MindSpore dtype or as torch's type name ('torch.HalfTensor', 'torch.cuda.HalfTensor'). Any
    other object runs its own `type`."""
    if not isinstance(tensor, mindspore.Tensor):
        return tensor.type(dtype, non_blocking, **kwargs)
    names = {name: key for key, name in _TORCH_TYPE_NAMES.items()}
    if dtype is None:
        return _TORCH_TYPE_NAMES[str(tensor.dtype)]
    if isinstance(dtype, str):
        plain = dtype.replace("torch.cuda.", "torch.")
        if plain not in names:
            raise ValueError(f"invalid type: '{dtype}'")
        dtype = getattr(mindspore, names[plain].lower())
    return tensor if tensor.dtype == dtype else tensor.astype(dtype)


# torch's (values, indices) pair, which code reads by position or by name.
ValuesIndices = collections.namedtuple("ValuesIndices", ["values", "indices"])


def _reduce_or_compare(name, input, dim, keepdim, other, out):
    """torch's max/min: the second argument decides when the program runs. A tensor is `other`
    (the elementwise maximum or minimum), an int is `dim` (torch's (values, indices) pair, read
    by position or by name), nothing is the single largest or smallest element."""
    if out is not None:
        raise NotImplementedError(
            f"{name}: out= is not supported; use the returned value"
        )
    if other is None and isinstance(dim, (mindspore.Tensor, np.ndarray)):
        other, dim = dim, None
    if other is not None:
        if keepdim:
            raise TypeError(f"{name}(input, other) takes no keepdim")
        pick = ops.maximum if name == "max" else ops.minimum
        return pick(input, other)
    if dim is None:
        return input.max() if name == "max" else input.min()
    reduce = ops.max if name == "max" else ops.min
    return ValuesIndices(*reduce(input, int(dim), keepdims=keepdim))


def torch_max(input, dim=None, keepdim=False, *, other=None, out=None):
    """`torch.max(input, dim_or_other, ...)` where the converter cannot tell a dim from a tensor
    (see `_reduce_or_compare`): `ops.maximum`, `ops.max` or the largest element."""
    return _reduce_or_compare("max", input, dim, keepdim, other, out)


def torch_min(input, dim=None, keepdim=False, *, other=None, out=None):
    """`torch.min(input, dim_or_other, ...)` where the converter cannot tell a dim from a tensor
    (see `_reduce_or_compare`): `ops.minimum`, `ops.min` or the smallest element."""
    return _reduce_or_compare("min", input, dim, keepdim, other, out)


def tensor_max(x, *args, **kwargs):
    """`x.max(dim_or_other, ...)`: torch's `torch.max` on a MindSpore tensor (its own `max` takes
    no tensor), the object's own `max` otherwise (numpy's `axis`)."""
    if isinstance(x, mindspore.Tensor):
        return torch_max(x, *args, **kwargs)
    return x.max(*args, **kwargs)


def tensor_min(x, *args, **kwargs):
    """`x.min(dim_or_other, ...)`: torch's `torch.min` on a MindSpore tensor, the object's own
    `min` otherwise."""
    if isinstance(x, mindspore.Tensor):
        return torch_min(x, *args, **kwargs)
    return x.min(*args, **kwargs)
