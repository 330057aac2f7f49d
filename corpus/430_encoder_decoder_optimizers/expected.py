"""One loss, two optimizers: encoder and decoder are stepped with different learning rates."""

import numpy as np
import mindspore
from mindspore import nn
from mindspore.experimental import optim
import torch

rng = np.random.default_rng(30)
inputs = mindspore.tensor(rng.standard_normal((10, 6)), dtype=mindspore.float32)

mindspore.manual_seed(0)
encoder = nn.SequentialCell(nn.Dense(6, 3), nn.Tanh())
decoder = nn.Dense(3, 6)
encoder_optimizer = optim.SGD(encoder.trainable_params(), lr=0.1)
decoder_optimizer = optim.Adam(decoder.trainable_params(), lr=0.01)
for step in range(3):
    # torch2ms: TM900 `.zero_grad()` is not converted: no certain MindSpore mapping; it still runs on torch
    encoder_optimizer.zero_grad()
    # torch2ms: TM900 `.zero_grad()` is not converted: no certain MindSpore mapping; it still runs on torch
    decoder_optimizer.zero_grad()
    reconstruction = decoder(encoder(inputs))
    loss = ((reconstruction - inputs) ** 2).mean()
    # torch2ms: TM924 this backward() feeds the gradients of several optimizers (`encoder_optimizer`, `decoder_optimizer`); the training step is left unconverted
    loss.backward()
    encoder_optimizer.step()
    decoder_optimizer.step()
    print("step", step, "reconstruction loss", loss.item())
