"""Encoder and decoder with their own optimizers; the decoder accumulates two batches per update."""

import numpy as np
import torch
import torch.nn as nn

rng = np.random.default_rng(35)
batches = [
    (torch.tensor(rng.standard_normal((4, 5)), dtype=torch.float32), torch.tensor(rng.standard_normal((4, 2)), dtype=torch.float32))
    for _ in range(4)
]

torch.manual_seed(0)
encoder = nn.Sequential(nn.Linear(5, 8), nn.ReLU())
decoder = nn.Linear(8, 2)
criterion = nn.MSELoss()
encoder_optimizer = torch.optim.SGD(encoder.parameters(), lr=0.1)
decoder_optimizer = torch.optim.SGD(decoder.parameters(), lr=0.05)

decoder_optimizer.zero_grad()
for i, (x, y) in enumerate(batches):
    encoder_optimizer.zero_grad()
    loss = criterion(decoder(encoder(x)), y)
    loss.backward()
    encoder_optimizer.step()
    if (i + 1) % 2 == 0:
        decoder_optimizer.step()
        decoder_optimizer.zero_grad()
    print("batch", i, "loss", loss.item())
