"""One loss, two optimizers: encoder and decoder are stepped with different learning rates."""

import numpy as np
import mindspore
from mindspore import nn
from mindspore.experimental import optim

rng = np.random.default_rng(30)
inputs = mindspore.tensor(rng.standard_normal((10, 6)), dtype=mindspore.float32)

mindspore.set_seed(0)
encoder = nn.SequentialCell(nn.Dense(6, 3), nn.Tanh())
decoder = nn.Dense(3, 6)
encoder_optimizer = optim.SGD(encoder.trainable_params(), lr=0.1)
decoder_optimizer = optim.Adam(decoder.trainable_params(), lr=0.01)
def forward_fn():
    reconstruction = decoder(encoder(inputs))
    loss = ((reconstruction - inputs) ** 2).mean()
    return loss
grad_fn = mindspore.value_and_grad(forward_fn, None, encoder_optimizer.parameters + decoder_optimizer.parameters)
for step in range(3):
    loss, grads = grad_fn()
    grads_encoder = grads[:len(encoder_optimizer.parameters)]
    grads_decoder = grads[len(encoder_optimizer.parameters):]
    encoder_optimizer(grads_encoder)
    decoder_optimizer(grads_decoder)
    print("step", step, "reconstruction loss", loss.item())
