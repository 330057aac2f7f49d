"""``mindspore.nn``: Cell, layers, losses, optimizers and training wrappers."""

from __future__ import annotations

from .._missing import module_getattr
from .cell import Cell, CellDict, CellList, SequentialCell  # noqa: F401
from .layers import (  # noqa: F401
    ELU,
    GELU,
    AvgPool2d,
    BatchNorm1d,
    BatchNorm2d,
    Conv2d,
    Dense,
    Dropout,
    Embedding,
    Flatten,
    Identity,
    LayerNorm,
    LeakyReLU,
    LogSoftmax,
    MaxPool2d,
    ReLU,
    ReLU6,
    Sigmoid,
    SiLU,
    Softmax,
    Tanh,
    get_activation,
)
from .loss import (  # noqa: F401
    BCELoss,
    BCEWithLogitsLoss,
    CrossEntropyLoss,
    L1Loss,
    LossBase,
    MSELoss,
    NLLLoss,
    SmoothL1Loss,
    SoftmaxCrossEntropyWithLogits,
)
from .optim import SGD, Adam, AdamWeightDecay, LearningRateSchedule, Momentum, Optimizer  # noqa: F401
from .wrap import (  # noqa: F401
    DynamicLossScaleUpdateCell,
    FixedLossScaleUpdateCell,
    TrainOneStepCell,
    TrainOneStepWithLossScaleCell,
    WithLossCell,
)

__getattr__ = module_getattr(__name__)
