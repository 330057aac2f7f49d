"""``mindspore.mint.nn``: torch-style layers (``weight``/``bias`` names, torch defaults)."""

from __future__ import annotations

from typing import Any

import numpy as np

from .... import core
from ..._missing import module_getattr
from ..._tensor import Parameter, Tensor
from ...nn.cell import Cell
from ...nn.layers import GELU as _MsGELU
from ...nn.layers import Flatten, Identity, ReLU, Sigmoid, SiLU, Tanh  # noqa: F401
from . import functional


class Linear(Cell):
    def __init__(
        self, in_features: int, out_features: int, bias: bool = True, dtype: Any = None
    ) -> None:
        super().__init__()
        self.in_features, self.out_features = in_features, out_features
        weight, b = core.init_linear(out_features, in_features, bias)
        self.weight = Parameter(Tensor(weight), name="weight")
        self.bias = Parameter(Tensor(b), name="bias") if bias else None

    def construct(self, x: Any) -> Any:
        return core.linear(x, self.weight, self.bias)


class Conv2d(Cell):
    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        kernel_size: Any,
        stride: Any = 1,
        padding: Any = 0,
        dilation: Any = 1,
        groups: int = 1,
        bias: bool = True,
        padding_mode: str = "zeros",
        dtype: Any = None,
    ) -> None:
        super().__init__()
        kernel = (
            (kernel_size, kernel_size)
            if isinstance(kernel_size, int)
            else tuple(kernel_size)
        )
        weight, b = core.init_conv(out_channels, in_channels // groups, kernel, bias)
        self.weight = Parameter(Tensor(weight), name="weight")
        self.bias = Parameter(Tensor(b), name="bias") if bias else None
        self.stride, self.padding, self.dilation, self.groups = (
            stride,
            padding,
            dilation,
            groups,
        )

    def construct(self, x: Any) -> Any:
        return core.conv2d(
            x,
            self.weight,
            self.bias,
            self.stride,
            self.padding,
            self.dilation,
            self.groups,
        )


class GELU(_MsGELU):
    def __init__(self, approximate: str = "none") -> None:
        super().__init__(approximate == "tanh")


class Dropout(Cell):
    def __init__(self, p: float = 0.5, inplace: bool = False) -> None:
        super().__init__()
        self.p = p

    def construct(self, x: Any) -> Any:
        return core.dropout(x, self.p, self.training)


class LayerNorm(Cell):
    def __init__(
        self,
        normalized_shape: Any,
        eps: float = 1e-5,
        elementwise_affine: bool = True,
        bias: bool = True,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        shape = (
            (normalized_shape,)
            if isinstance(normalized_shape, int)
            else tuple(normalized_shape)
        )
        self.normalized_shape, self.eps = shape, eps
        self.weight = (
            Parameter(Tensor(np.ones(shape, np.float32)), name="weight")
            if elementwise_affine
            else None
        )
        self.bias = (
            Parameter(Tensor(np.zeros(shape, np.float32)), name="bias")
            if elementwise_affine and bias
            else None
        )

    def construct(self, x: Any) -> Any:
        return core.layer_norm(
            x, self.normalized_shape, self.weight, self.bias, self.eps
        )


class BatchNorm2d(Cell):
    """torch conventions: ``running = (1 - momentum) * running + momentum * batch``."""

    def __init__(
        self,
        num_features: int,
        eps: float = 1e-5,
        momentum: float = 0.1,
        affine: bool = True,
        track_running_stats: bool = True,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        self.eps, self.momentum = eps, momentum
        self.weight = Parameter(
            Tensor(np.ones(num_features, np.float32)),
            name="weight",
            requires_grad=affine,
        )
        self.bias = Parameter(
            Tensor(np.zeros(num_features, np.float32)),
            name="bias",
            requires_grad=affine,
        )
        self.running_mean = Parameter(
            Tensor(np.zeros(num_features, np.float32)),
            name="running_mean",
            requires_grad=False,
        )
        self.running_var = Parameter(
            Tensor(np.ones(num_features, np.float32)),
            name="running_var",
            requires_grad=False,
        )

    def construct(self, x: Any) -> Any:
        return core.batch_norm(
            x,
            self.running_mean,
            self.running_var,
            self.weight,
            self.bias,
            self.training,
            self.momentum,
            self.eps,
        )


class Embedding(Cell):
    def __init__(
        self,
        num_embeddings: int,
        embedding_dim: int,
        padding_idx: Any = None,
        dtype: Any = None,
        **kwargs: Any,
    ) -> None:
        super().__init__()
        table = core.rng_normal((num_embeddings, embedding_dim), 0.0, 1.0)
        if padding_idx is not None:
            table[padding_idx] = 0
        self.padding_idx = padding_idx
        self.weight = Parameter(Tensor(table), name="weight")

    def construct(self, ids: Any) -> Any:
        return core.embedding(self.weight, np.asarray(core.raw(ids)), self.padding_idx)


class _Loss(Cell):
    def __init__(self, reduction: str = "mean") -> None:
        super().__init__()
        self.reduction = reduction


class MSELoss(_Loss):
    def construct(self, input: Any, target: Any) -> Any:
        return functional.mse_loss(input, target, self.reduction)


class L1Loss(_Loss):
    def construct(self, input: Any, target: Any) -> Any:
        return functional.l1_loss(input, target, self.reduction)


class CrossEntropyLoss(_Loss):
    def __init__(
        self,
        weight: Any = None,
        ignore_index: int = -100,
        reduction: str = "mean",
        label_smoothing: float = 0.0,
    ) -> None:
        super().__init__(reduction)
        self.weight, self.ignore_index, self.label_smoothing = (
            weight,
            ignore_index,
            label_smoothing,
        )

    def construct(self, input: Any, target: Any) -> Any:
        return functional.cross_entropy(
            input,
            target,
            self.weight,
            self.ignore_index,
            self.reduction,
            self.label_smoothing,
        )


__getattr__ = module_getattr(__name__)
