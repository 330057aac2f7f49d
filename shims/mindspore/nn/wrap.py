"""Training wrappers: ``WithLossCell``, ``TrainOneStepCell``, ``TrainOneStepWithLossScaleCell``."""

from __future__ import annotations

from typing import Any

import numpy as np

from ... import core
from .. import _grad
from .._grad import GradOperation
from .._tensor import Parameter, Tensor, wrap
from ..amp import all_finite
from ..ops._primitives import HyperMap
from .cell import Cell


def _identity(value: Any) -> Any:
    return value


class WithLossCell(Cell):
    def __init__(self, backbone: Cell, loss_fn: Cell) -> None:
        super().__init__(auto_prefix=False)
        self._backbone = backbone
        self._loss_fn = loss_fn

    def construct(self, data: Any, label: Any) -> Any:
        return self._loss_fn(self._backbone(data), label)

    @property
    def backbone_network(self) -> Cell:
        return self._backbone


class TrainOneStepCell(Cell):
    def __init__(
        self,
        network: Cell,
        optimizer: Cell,
        sens: Any = None,
        return_grad: bool = False,
    ) -> None:
        super().__init__(auto_prefix=False)
        self.network = network
        self.network.set_grad()
        self.optimizer = optimizer
        self.weights = optimizer.parameters
        self.sens = 1.0 if sens is None else sens
        self.return_grad = return_grad
        # What subclasses written against MindSpore's TrainOneStepCell use.
        self.grad = GradOperation(get_by_list=True, sens_param=True)
        self.grad_reducer = _identity
        self.reducer_flag = False
        self.hyper_map = HyperMap()

    def _loss_and_grads(self, inputs: tuple, sens: Any) -> tuple[Any, tuple]:
        return loss_and_weight_grads(self.network, self.weights, inputs, sens)

    def construct(self, *inputs: Any) -> Any:
        loss, grads = self._loss_and_grads(inputs, self.sens)
        self.optimizer(grads)
        if self.return_grad:
            return loss, grads
        return loss


def loss_and_weight_grads(
    network: Cell, weights: Any, inputs: tuple, sens: Any
) -> tuple[Any, tuple]:
    """Run ``network`` once and return its output and the gradients of ``weights`` with the output's
    seed filled with ``sens`` (MindSpore's ``F.fill(loss.dtype, loss.shape, sens)``)."""
    out, _, wg, nested = _grad._differentiate(
        network, inputs, {}, (), list(weights), False, False, fill=sens
    )
    value = out if nested else _grad._detach(out)
    return value, tuple(wg)


class FixedLossScaleUpdateCell(Cell):
    def __init__(self, loss_scale_value: float) -> None:
        super().__init__()
        self.loss_scale_value = loss_scale_value

    def get_loss_scale(self) -> float:
        return self.loss_scale_value

    def construct(self, loss_scale: Any, overflow: Any) -> Any:
        return overflow


class DynamicLossScaleUpdateCell(Cell):
    """On overflow the scale is divided by ``scale_factor`` (not below 1); after ``scale_window``
    clean steps it is multiplied by ``scale_factor``."""

    def __init__(
        self, loss_scale_value: float, scale_factor: float, scale_window: int
    ) -> None:
        super().__init__()
        self.loss_scale_value = loss_scale_value
        self.scale_factor = scale_factor
        self.scale_window = scale_window
        self.cur_iter = 1
        self.last_overflow_iter = 0

    def get_loss_scale(self) -> float:
        return self.loss_scale_value

    def construct(self, loss_scale: Any, overflow: Any) -> Any:
        overflow = bool(np.asarray(core.raw(overflow)))
        scale = loss_scale._data
        if overflow:
            scale[...] = max(float(scale) / self.scale_factor, 1.0)
            self.last_overflow_iter = self.cur_iter
        elif self.cur_iter - self.last_overflow_iter >= self.scale_window:
            scale[...] = float(scale) * self.scale_factor
            self.last_overflow_iter = self.cur_iter
        self.cur_iter += 1
        return wrap(np.asarray(overflow))


class TrainOneStepWithLossScaleCell(TrainOneStepCell):
    """Seeds the gradients with the loss scale, unscales them, and skips the update on overflow.
    Returns ``(loss, overflow, scale)``."""

    def __init__(self, network: Cell, optimizer: Cell, scale_sense: Any) -> None:
        super().__init__(network, optimizer, sens=None)
        if isinstance(scale_sense, Cell):
            self.loss_scaling_manager = scale_sense
            value = float(scale_sense.get_loss_scale())
            self.scale_sense = Parameter(Tensor(np.float32(value)), name="scale_sense")
        elif isinstance(scale_sense, core.Tensor):
            self.loss_scaling_manager = None
            self.scale_sense = Parameter(
                Tensor(np.asarray(scale_sense._data, np.float32).reshape(())),
                name="scale_sense",
            )
        else:
            raise TypeError(
                "For 'TrainOneStepWithLossScaleCell', 'scale_sense' must be a Cell or a Tensor."
            )

    def construct(self, *inputs: Any) -> tuple:
        scaling_sens = float(self.scale_sense._data)
        loss, grads = loss_and_weight_grads(
            self.network, self.weights, inputs, scaling_sens
        )
        grads = tuple(
            core.div(g, np.asarray(scaling_sens, g._data.dtype)) for g in grads
        )
        cond = core.logical_not(all_finite(grads))
        overflow = bool(cond._data)
        if self.loss_scaling_manager is not None:
            self.loss_scaling_manager(self.scale_sense, cond)
        if not overflow:
            self.optimizer(grads)
        return loss, cond, wrap(np.array(self.scale_sense._data))

    def start_overflow_check(self, pre_cond: Any, compute_input: Any) -> tuple:
        return wrap(np.zeros(8, np.float32)), compute_input

    def get_overflow_status(self, status: Any, compute_output: Any) -> Any:
        return core.logical_not(all_finite(compute_output))

    def process_loss_scale(self, overflow: Any) -> Any:
        if self.loss_scaling_manager is not None:
            return self.loss_scaling_manager(self.scale_sense, overflow)
        return overflow

    def set_sense_scale(self, sens: Any) -> None:
        self.scale_sense.set_data(sens)
