"""``mindspore.nn`` losses with MindSpore's argument names and defaults."""

from __future__ import annotations

from typing import Any

import numpy as np

from ... import core
from .cell import Cell


def _raw(x: Any) -> Any:
    return x._data if isinstance(x, core.Tensor) else x


class LossBase(Cell):
    """Base of custom losses: ``get_loss(x, weights)`` applies the reduction."""

    def __init__(self, reduction: str = "mean") -> None:
        super().__init__()
        if reduction not in ("mean", "sum", "none"):
            raise ValueError(
                f"For 'LossBase', the 'reduction' must be in ['mean', 'sum', 'none'], but got {reduction}."
            )
        self.reduction = reduction

    def get_loss(self, x: Any, weights: Any = 1.0) -> Any:
        if not (isinstance(weights, float) and weights == 1.0):
            x = core.mul(x, weights)
        if self.reduction == "mean":
            return core.mean(x)
        if self.reduction == "sum":
            return core.sum(x)
        return x

    def get_axis(self, x: Any) -> tuple:
        return tuple(range(x.ndim))


class MSELoss(LossBase):
    def construct(self, logits: Any, labels: Any) -> Any:
        return core.mse_loss(logits, labels, self.reduction)


class L1Loss(LossBase):
    def construct(self, logits: Any, labels: Any) -> Any:
        return core.l1_loss(logits, labels, self.reduction)


class SmoothL1Loss(LossBase):
    """Default ``reduction='none'`` in MindSpore."""

    def __init__(self, beta: float = 1.0, reduction: str = "none") -> None:
        super().__init__(reduction)
        self.beta = beta

    def construct(self, logits: Any, labels: Any) -> Any:
        return core.smooth_l1_loss(logits, labels, self.reduction, self.beta)


class CrossEntropyLoss(LossBase):
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

    def construct(self, logits: Any, labels: Any) -> Any:
        weight = None if self.weight is None else _raw(self.weight)
        return core.cross_entropy(
            logits,
            _raw(labels),
            self.reduction,
            self.ignore_index,
            self.label_smoothing,
            weight,
        )


class NLLLoss(LossBase):
    def __init__(
        self, weight: Any = None, ignore_index: int = -100, reduction: str = "mean"
    ) -> None:
        super().__init__(reduction)
        self.weight, self.ignore_index = weight, ignore_index

    def construct(self, logits: Any, labels: Any) -> Any:
        weight = None if self.weight is None else _raw(self.weight)
        return core.nll_loss(
            logits, _raw(labels), weight, self.ignore_index, self.reduction
        )


class SoftmaxCrossEntropyWithLogits(LossBase):
    """``-sum(labels * log_softmax(logits))`` per sample; ``sparse`` labels are class indices.
    Default ``reduction='none'``."""

    def __init__(self, sparse: bool = False, reduction: str = "none") -> None:
        super().__init__(reduction)
        self.sparse = sparse

    def construct(self, logits: Any, labels: Any) -> Any:
        if self.sparse:
            return core.cross_entropy(
                logits, np.asarray(_raw(labels)).astype(np.int64), self.reduction
            )
        logp = core.log_softmax(logits, -1)
        loss = core.neg(core.sum(core.mul(logp, labels), -1))
        return self.get_loss(loss)


class BCELoss(LossBase):
    def __init__(self, weight: Any = None, reduction: str = "mean") -> None:
        super().__init__(reduction)
        self.weight = weight

    def construct(self, logits: Any, labels: Any) -> Any:
        return core.binary_cross_entropy(logits, labels, self.weight, self.reduction)


class BCEWithLogitsLoss(LossBase):
    def __init__(
        self, reduction: str = "mean", weight: Any = None, pos_weight: Any = None
    ) -> None:
        super().__init__(reduction)
        self.weight, self.pos_weight = weight, pos_weight

    def construct(self, logits: Any, labels: Any) -> Any:
        return core.binary_cross_entropy_with_logits(
            logits, labels, self.weight, self.reduction, self.pos_weight
        )
