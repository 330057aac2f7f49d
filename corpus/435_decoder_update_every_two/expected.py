"""Encoder and decoder with their own optimizers; the decoder accumulates two batches per update."""

import numpy as np
import mindspore
from mindspore import nn
from mindspore.experimental import optim
import torch

rng = np.random.default_rng(35)
batches = [
    (mindspore.tensor(rng.standard_normal((4, 5)), dtype=mindspore.float32), mindspore.tensor(rng.standard_normal((4, 2)), dtype=mindspore.float32))
    for _ in range(4)
]

mindspore.set_seed(0)
encoder = nn.SequentialCell(nn.Dense(5, 8), nn.ReLU())
decoder = nn.Dense(8, 2)
criterion = nn.MSELoss()
encoder_optimizer = optim.SGD(encoder.trainable_params(), lr=0.1)
decoder_optimizer = optim.SGD(decoder.trainable_params(), lr=0.05)

# torch2ms: TM900 `.zero_grad()` is not converted: no certain MindSpore mapping; it still runs on torch
decoder_optimizer.zero_grad()
for i, (x, y) in enumerate(batches):
    # torch2ms: TM900 `.zero_grad()` is not converted: no certain MindSpore mapping; it still runs on torch
    encoder_optimizer.zero_grad()
    loss = criterion(decoder(encoder(x)), y)
    # torch2ms: TM924 this backward() feeds the gradients of several optimizers (`decoder_optimizer`, `encoder_optimizer`); the training step is left unconverted
    loss.backward()
    encoder_optimizer.step()
    if (i + 1) % 2 == 0:
        decoder_optimizer.step()
        # torch2ms: TM900 `.zero_grad()` is not converted: no certain MindSpore mapping; it still runs on torch
        decoder_optimizer.zero_grad()
    print("batch", i, "loss", loss.item())
