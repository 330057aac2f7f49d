"""Trains through the package three ways: with the loss scaler and adaptive clipping of the first
layer, without a scaler and with norm clipping, and without a scaler with value clipping and a
batch-size loss scale."""

from types import SimpleNamespace

import numpy as np
import mindspore
from mindspore import nn
from mindspore.experimental import optim

from choicelib.amp import ChosenScaler
from choicelib.loop import train_one_epoch

rng = np.random.default_rng(11)
loader = [
    (mindspore.tensor(rng.standard_normal((3 + i % 2, 6)), dtype=mindspore.float32),
     mindspore.tensor(rng.standard_normal((3 + i % 2, 2)), dtype=mindspore.float32))
    for i in range(5)
]
runs = [
    (SimpleNamespace(clip_grad=0.05, clip_mode="agc", scale_mode="linear"), True, None),
    (SimpleNamespace(clip_grad=0.5, clip_mode="norm", scale_mode="linear"), False, None),
    (SimpleNamespace(clip_grad=0.02, clip_mode="value", scale_mode="sqrt"), False, 4),
]
for args, scaled, reference in runs:
    mindspore.set_seed(0)
    model = nn.SequentialCell(nn.Dense(6, 12), nn.Tanh(), nn.Dense(12, 2))
    optimizer = optim.SGD(model.trainable_params(), lr=0.1, momentum=0.9)
    loss_fn = nn.MSELoss()
    loss_scaler = ChosenScaler() if scaled else None
    for epoch in range(2):
        train_one_epoch(epoch, model, loader, optimizer, loss_fn, args,
                        loss_scaler=loss_scaler, batch_size_reference=reference)
        if loss_scaler is not None:
            print("scale", loss_scaler.scale())
    print("final", args.clip_mode, [p.sum().item() for p in model.trainable_params()])
