"""One loss, two optimizers: encoder and decoder are stepped with different learning rates."""

import numpy as np
import torch
import torch.nn as nn

rng = np.random.default_rng(30)
inputs = torch.tensor(rng.standard_normal((10, 6)), dtype=torch.float32)

torch.manual_seed(0)
encoder = nn.Sequential(nn.Linear(6, 3), nn.Tanh())
decoder = nn.Linear(3, 6)
encoder_optimizer = torch.optim.SGD(encoder.parameters(), lr=0.1)
decoder_optimizer = torch.optim.Adam(decoder.parameters(), lr=0.01)
for step in range(3):
    encoder_optimizer.zero_grad()
    decoder_optimizer.zero_grad()
    reconstruction = decoder(encoder(inputs))
    loss = ((reconstruction - inputs) ** 2).mean()
    loss.backward()
    encoder_optimizer.step()
    decoder_optimizer.step()
    print("step", step, "reconstruction loss", loss.item())
