"""Primitive-style operator classes (``ops.ReduceMean(keep_dims)(x, axis)`` ...)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ... import core
from .. import _dtype
from .._tensor import wrap
from . import _functional as F


class Primitive:
    """Base of the operator classes: configured once, then called on tensors."""

    def __call__(self, *args: Any) -> Any:
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"Prim[{type(self).__name__}]"


def _simple(name: str, fn: Any) -> type:
    return type(name, (Primitive,), {"__call__": lambda self, *args: fn(*args)})


Add = _simple("Add", F.add)
Sub = _simple("Sub", F.sub)
Mul = _simple("Mul", F.mul)
Div = _simple("Div", F.div)
RealDiv = _simple("RealDiv", F.div)
Pow = _simple("Pow", F.pow)
Neg = _simple("Neg", F.neg)
Abs = _simple("Abs", F.abs)
Exp = _simple("Exp", F.exp)
Log = _simple("Log", F.log)
Sqrt = _simple("Sqrt", F.sqrt)
Rsqrt = _simple("Rsqrt", F.rsqrt)
Square = _simple("Square", F.square)
Tanh = _simple("Tanh", F.tanh)
Sigmoid = _simple("Sigmoid", F.sigmoid)
ReLU = _simple("ReLU", F.relu)
Maximum = _simple("Maximum", F.maximum)
Minimum = _simple("Minimum", F.minimum)
Equal = _simple("Equal", F.equal)
Greater = _simple("Greater", F.greater)
Less = _simple("Less", F.less)
Reshape = _simple("Reshape", F.reshape)
Transpose = _simple("Transpose", F.transpose)
Cast = _simple("Cast", F.cast)
ExpandDims = _simple("ExpandDims", F.expand_dims)
OnesLike = _simple("OnesLike", F.ones_like)
ZerosLike = _simple("ZerosLike", F.zeros_like)
Select = _simple("Select", F.where)
Identity = _simple("Identity", F.identity)
Depend = _simple("Depend", F.depend)
Assign = _simple("Assign", F.assign)
StopGradient = _simple("StopGradient", F.stop_gradient)
Erf = _simple("Erf", F.erf)
IsFinite = _simple("IsFinite", F.isfinite)


class Reciprocal(Primitive):
    def __call__(self, x: Any) -> Any:
        return core.div(1.0, x)


class Shape(Primitive):
    def __call__(self, x: Any) -> tuple:
        return tuple(x.shape)


class DType(Primitive):
    def __call__(self, x: Any) -> Any:
        return x.dtype


class Fill(Primitive):
    def __call__(self, dtype: Any, shape: Any, value: Any) -> Any:
        return F.fill(dtype, shape, value)


class Zeros(Primitive):
    def __call__(self, shape: Any, dtype: Any) -> Any:
        return F.zeros(shape, dtype)


class Ones(Primitive):
    def __call__(self, shape: Any, dtype: Any) -> Any:
        return F.ones(shape, dtype)


class _Reduce(Primitive):
    def __init__(self, keep_dims: bool = False, skip_mode: bool = False) -> None:
        self.keep_dims = keep_dims


class ReduceMean(_Reduce):
    def __call__(self, x: Any, axis: Any = ()) -> Any:
        return F.mean(x, axis, self.keep_dims)


class ReduceSum(_Reduce):
    def __call__(self, x: Any, axis: Any = ()) -> Any:
        return F.sum(x, axis, self.keep_dims)


class ReduceMax(_Reduce):
    def __call__(self, x: Any, axis: Any = ()) -> Any:
        return F.amax(x, axis, self.keep_dims)


class ReduceMin(_Reduce):
    def __call__(self, x: Any, axis: Any = ()) -> Any:
        return F.amin(x, axis, self.keep_dims)


class MatMul(Primitive):
    def __init__(self, transpose_a: bool = False, transpose_b: bool = False) -> None:
        self.transpose_a = transpose_a
        self.transpose_b = transpose_b

    def __call__(self, a: Any, b: Any) -> Any:
        if self.transpose_a:
            a = core.swapaxes(a, -1, -2)
        if self.transpose_b:
            b = core.swapaxes(b, -1, -2)
        return core.matmul(a, b)


class BatchMatMul(MatMul):
    pass


class Softmax(Primitive):
    def __init__(self, axis: int = -1) -> None:
        self.axis = axis

    def __call__(self, x: Any) -> Any:
        return F.softmax(x, self.axis)


class LogSoftmax(Softmax):
    def __call__(self, x: Any) -> Any:
        return F.log_softmax(x, self.axis)


class Concat(Primitive):
    def __init__(self, axis: int = 0) -> None:
        self.axis = axis

    def __call__(self, tensors: Any) -> Any:
        return F.concat(tensors, self.axis)


class Stack(Concat):
    def __call__(self, tensors: Any) -> Any:
        return F.stack(tensors, self.axis)


class Squeeze(Primitive):
    def __init__(self, axis: Any = ()) -> None:
        self.axis = axis

    def __call__(self, x: Any) -> Any:
        return F.squeeze(x, self.axis if self.axis != () else None)


class Argmax(Primitive):
    def __init__(self, axis: int = -1, output_type: Any = _dtype.int32) -> None:
        self.axis = axis
        self.output_type = output_type

    def __call__(self, x: Any) -> Any:
        return F.cast(F.argmax(x, self.axis), self.output_type)


class Gather(Primitive):
    def __init__(self, batch_dims: int = 0) -> None:
        self.batch_dims = batch_dims

    def __call__(self, params: Any, indices: Any, axis: int) -> Any:
        return F.gather(params, indices, axis, self.batch_dims)


class OneHot(Primitive):
    def __init__(self, axis: int = -1) -> None:
        self.axis = axis

    def __call__(self, indices: Any, depth: int, on_value: Any, off_value: Any) -> Any:
        return F.one_hot(indices, depth, on_value, off_value, self.axis)


class Dropout(Primitive):
    def __init__(self, keep_prob: float = 0.5, Seed0: int = 0, Seed1: int = 0) -> None:
        self.keep_prob = keep_prob

    def __call__(self, x: Any) -> tuple:
        p = 1.0 - self.keep_prob
        keep = core.rng_bernoulli(x.shape, self.keep_prob)
        scale = np.asarray(
            1.0 / self.keep_prob if self.keep_prob > 0 else 0.0, x._data.dtype
        )
        out = core.mul(x, keep.astype(x._data.dtype) * scale) if p > 0 else x
        return out, wrap(keep)


class SoftmaxCrossEntropyWithLogits(Primitive):
    def __call__(self, logits: Any, labels: Any) -> tuple:
        logp = core.log_softmax(logits, -1)
        loss = core.neg(core.sum(core.mul(logp, labels), -1))
        backprop = core.sub(core.softmax(logits, -1), labels)
        return loss, F.stop_gradient(backprop)


class SparseSoftmaxCrossEntropyWithLogits(Primitive):
    def __init__(self, is_grad: bool = False) -> None:
        self.is_grad = is_grad

    def __call__(self, logits: Any, labels: Any) -> Any:
        return F.cross_entropy(logits, labels)


class HyperMap(Primitive):
    def __init__(self, ops: Any = None, reverse: bool = False) -> None:
        self.ops = ops

    def __call__(self, *args: Any) -> Any:
        if self.ops is not None:
            fn, seqs = self.ops, args
        else:
            fn, seqs = args[0], args[1:]
        return tuple(fn(*items) for items in zip(*seqs))


class Map(HyperMap):
    pass


class Partial(Primitive):
    def __call__(self, fn: Any, *args: Any) -> Any:
        return lambda *rest: fn(*args, *rest)


def partial(fn: Any, *args: Any) -> Any:
    return lambda *rest: fn(*args, *rest)


class MultitypeFuncGraph:
    """A function registered per argument type; the shim dispatches by arity only."""

    def __init__(self, name: str, read_value: bool = False) -> None:
        self.name = name
        self.entries: dict[int, Any] = {}

    def register(self, *types: str):
        def decorate(fn):
            self.entries[len(types)] = fn
            return fn

        return decorate

    def __call__(self, *args: Any) -> Any:
        return self.entries[len(args)](*args)
