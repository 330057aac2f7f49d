"""Tensor methods and operators, bound from the shared operation definitions."""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import core as C
from . import _ops as O
from ._dtypes import to_numpy_dtype
from ._tensor import Tensor, _raw, _shape_args, named, wrap

_SAME_NAME = [
    "add",
    "sub",
    "mul",
    "div",
    "true_divide",
    "pow",
    "matmul",
    "mm",
    "bmm",
    "dot",
    "mv",
    "outer",
    "neg",
    "square",
    "rsqrt",
    "reciprocal",
    "clamp",
    "maximum",
    "minimum",
    "lerp",
    "sum",
    "mean",
    "max",
    "min",
    "amax",
    "amin",
    "argmax",
    "argmin",
    "var",
    "std",
    "norm",
    "logsumexp",
    "prod",
    "cumsum",
    "all",
    "any",
    "count_nonzero",
    "sort",
    "argsort",
    "topk",
    "reshape",
    "view",
    "view_as",
    "permute",
    "transpose",
    "swapaxes",
    "t",
    "squeeze",
    "unsqueeze",
    "flatten",
    "unflatten",
    "expand",
    "expand_as",
    "broadcast_to",
    "repeat",
    "split",
    "chunk",
    "unbind",
    "narrow",
    "select",
    "index_select",
    "gather",
    "masked_fill",
    "flip",
    "roll",
    "tril",
    "triu",
    "exp",
    "log",
    "log1p",
    "sqrt",
    "sin",
    "cos",
    "tanh",
    "sigmoid",
    "relu",
    "abs",
    "sign",
    "floor",
    "ceil",
    "erf",
    "round",
    "log2",
    "log10",
    "exp2",
    "expm1",
    "tan",
    "softmax",
    "log_softmax",
    "eq",
    "ne",
    "lt",
    "le",
    "gt",
    "ge",
    "logical_not",
    "logical_and",
    "logical_or",
    "isnan",
    "isinf",
    "isfinite",
    "equal",
    "allclose",
    "isclose",
    "nonzero",
    "floor_divide",
    "remainder",
    "greater",
    "greater_equal",
    "less",
    "less_equal",
    "not_equal",
]

for _name in _SAME_NAME:
    setattr(Tensor, _name, getattr(O, _name))

Tensor.clip = O.clamp
Tensor.absolute = O.abs
Tensor.negative = O.neg
Tensor.multiply = O.mul
Tensor.divide = O.div
Tensor.subtract = O.sub


def _reshape_as(self: Tensor, other: Tensor) -> Tensor:
    return C.reshape(self, other.shape)


Tensor.reshape_as = _reshape_as


def _clamp_min(self: Tensor, min: Any) -> Tensor:
    return O.clamp(self, min=min)


def _clamp_max(self: Tensor, max: Any) -> Tensor:
    return O.clamp(self, max=max)


Tensor.clamp_min = _clamp_min
Tensor.clamp_max = _clamp_max

# Operators: hot paths go straight to the engine.
Tensor.__add__ = C.add
Tensor.__radd__ = lambda self, other: C.add(other, self)
Tensor.__sub__ = C.sub
Tensor.__rsub__ = lambda self, other: O.rsub(self, other)
Tensor.__mul__ = C.mul
Tensor.__rmul__ = lambda self, other: C.mul(other, self)
Tensor.__truediv__ = C.div
Tensor.__rtruediv__ = lambda self, other: O.rdiv(self, other)
Tensor.__pow__ = C.pow
Tensor.__rpow__ = lambda self, other: C.pow(other, self)
Tensor.__matmul__ = C.matmul
Tensor.__rmatmul__ = lambda self, other: C.matmul(other, self)
Tensor.__floordiv__ = O.floor_divide
Tensor.__rfloordiv__ = lambda self, other: O.floor_divide(wrap(np.asarray(other)), self)
Tensor.__mod__ = O.remainder
Tensor.__neg__ = C.neg
Tensor.__pos__ = lambda self: self
Tensor.__abs__ = C.abs
Tensor.__eq__ = C.eq
Tensor.__ne__ = C.ne
Tensor.__lt__ = C.lt
Tensor.__le__ = C.le
Tensor.__gt__ = C.gt
Tensor.__ge__ = C.ge
Tensor.__and__ = lambda self, other: wrap(np.asarray(self._data & _raw(other)))
Tensor.__or__ = lambda self, other: wrap(np.asarray(self._data | _raw(other)))
Tensor.__xor__ = lambda self, other: wrap(np.asarray(self._data ^ _raw(other)))
Tensor.__invert__ = lambda self: wrap(np.asarray(~self._data))
Tensor.__getitem__ = lambda self, index: C.getitem(self, index)
Tensor.__setitem__ = O.setitem
Tensor.__hash__ = object.__hash__


# ------------------------------------------------------------------ in-place methods
def _inplace_method(fn):
    def method(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
        return O._inplace(self, lambda x, *a: fn(x, *a, **kwargs), *args)

    return method


for _name, _fn in [
    ("add_", O.add),
    ("sub_", O.sub),
    ("mul_", O.mul),
    ("div_", O.div),
    ("pow_", O.pow),
    ("clamp_", O.clamp),
    ("clip_", O.clamp),
    ("exp_", O.exp),
    ("log_", O.log),
    ("sqrt_", O.sqrt),
    ("abs_", O.abs),
    ("neg_", O.neg),
    ("relu_", O.relu),
    ("sigmoid_", O.sigmoid),
    ("tanh_", O.tanh),
    ("masked_fill_", O.masked_fill),
    ("lerp_", O.lerp),
    ("floor_", O.floor),
    ("round_", O.round),
    ("square_", O.square),
]:
    setattr(Tensor, _name, _inplace_method(_fn))

Tensor.__iadd__ = Tensor.add_
Tensor.__isub__ = Tensor.sub_
Tensor.__imul__ = Tensor.mul_
Tensor.__itruediv__ = Tensor.div_


def _addcmul_(self: Tensor, t1: Any, t2: Any, *, value: Any = 1) -> Tensor:
    return O._inplace(self, lambda x, a, b: C.add(x, C.mul(C.mul(a, b), value)), t1, t2)


def _addcdiv_(self: Tensor, t1: Any, t2: Any, *, value: Any = 1) -> Tensor:
    return O._inplace(self, lambda x, a, b: C.add(x, C.mul(C.div(a, b), value)), t1, t2)


Tensor.addcmul_ = _addcmul_
Tensor.addcdiv_ = _addcdiv_


def _fill_(self: Tensor, value: Any) -> Tensor:
    return O._inplace(self, lambda x: C.add(C.mul(x, 0), _raw(value)))


def _zero_(self: Tensor) -> Tensor:
    if C.is_grad_enabled() and self.requires_grad:
        return O._inplace(self, lambda x: C.mul(x, 0))
    self._data[...] = 0
    return self


def _copy_(self: Tensor, src: Any, non_blocking: bool = False) -> Tensor:
    src_t = src if isinstance(src, C.Tensor) else wrap(np.asarray(src))
    if C.is_grad_enabled() and (self.requires_grad or src_t.requires_grad):
        return O._inplace(
            self,
            lambda x, s: named(
                C.add(C.mul(x, 0), C.cast(s, x._data.dtype)), "CopyBackwards"
            ),
            src_t,
        )
    self._data[...] = src_t._data
    return self


def _random_fill(self: Tensor, values: np.ndarray) -> Tensor:
    if C.is_grad_enabled() and self.requires_grad and self._ctx is None:
        raise RuntimeError(
            "a leaf Variable that requires grad is being used in an in-place operation."
        )
    self._data[...] = values
    return self


def _normal_(
    self: Tensor, mean: float = 0.0, std: float = 1.0, *, generator: Any = None
) -> Tensor:
    return _random_fill(
        self, C.rng_normal(self._data.shape, mean, std, dtype=self._data.dtype)
    )


def _uniform_(
    self: Tensor, a: float = 0.0, b: float = 1.0, *, generator: Any = None
) -> Tensor:
    return _random_fill(
        self, C.rng_uniform(self._data.shape, a, b, dtype=self._data.dtype)
    )


def _bernoulli_(self: Tensor, p: float = 0.5, *, generator: Any = None) -> Tensor:
    return _random_fill(self, C.rng_bernoulli(self._data.shape, p))


def _unsqueeze_(self: Tensor, dim: int) -> Tensor:
    self._data = np.expand_dims(self._data, dim)
    return self


def _squeeze_(self: Tensor, dim: Any = None) -> Tensor:
    self._data = (
        self._data.squeeze()
        if dim is None
        else (self._data.squeeze(dim) if self._data.shape[dim] == 1 else self._data)
    )
    return self


def _resize_(self: Tensor, *shape: Any) -> Tensor:
    self._data = np.resize(self._data, _shape_args(shape))
    return self


Tensor.fill_ = _fill_
Tensor.zero_ = _zero_
Tensor.copy_ = _copy_
Tensor.normal_ = _normal_
Tensor.uniform_ = _uniform_
Tensor.bernoulli_ = _bernoulli_
Tensor.unsqueeze_ = _unsqueeze_
Tensor.squeeze_ = _squeeze_
Tensor.resize_ = _resize_


def _apply_(self: Tensor, fn: Any) -> Tensor:
    self._data[...] = np.vectorize(fn)(self._data)
    return self


Tensor.apply_ = _apply_


def _astype(self: Tensor, dtype: Any) -> Tensor:
    return C.cast(self, to_numpy_dtype(dtype))


Tensor.to_dtype = _astype
