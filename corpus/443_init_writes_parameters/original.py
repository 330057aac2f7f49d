"""Parameters written in place while a model is initialised, as language-model and vision
scripts do: `.data.uniform_`/`.data.normal_`/`.data.zero_()` in `init_weights`, and under
`torch.no_grad()` `copy_` from a tensor, `zero_()` and `fill_()` on layers found by traversal."""

import numpy as np
import torch
import torch.nn as nn

rng = np.random.default_rng(12)


class TextModel(nn.Module):
    def __init__(self, ntoken, ninp, nout):
        super().__init__()
        self.encoder = nn.Embedding(ntoken, ninp)
        self.proj = nn.Linear(ninp, ninp)
        self.norm = nn.LayerNorm(ninp)
        self.decoder = nn.Linear(ninp, nout)
        self.init_weights()

    def init_weights(self):
        initrange = 0.1
        self.encoder.weight.data.uniform_(-initrange, initrange)
        self.decoder.bias.data.zero_()
        self.decoder.weight.data.normal_(0, 0.02)

    def forward(self, tokens):
        x = self.encoder(tokens).mean(1)
        return self.decoder(self.norm(torch.tanh(self.proj(x))))


def load_pretrained(model, weight):
    with torch.no_grad():
        model.proj.weight.copy_(weight)
        model.proj.bias.zero_()
        model.norm.weight.fill_(1.5)
    for m in model.modules():
        if isinstance(m, nn.LayerNorm):
            m.bias.data.fill_(0.25)
        for p in m.parameters(recurse=False):
            p.data.clamp_(-1.0, 1.0)


model = TextModel(20, 6, 3)
print("uniform within range", int((model.encoder.weight.abs() <= 0.1).all()))
print("decoder bias", model.decoder.bias.abs().sum().item())
load_pretrained(model, torch.tensor(rng.standard_normal((6, 6)) * 0.5, dtype=torch.float32))
print("proj weight", model.proj.weight.sum().item(), model.proj.weight.abs().max().item())
print("proj bias", model.proj.bias.sum().item())
print("norm", model.norm.weight.sum().item(), model.norm.bias.sum().item())

tokens = torch.tensor(rng.integers(0, 20, size=(8, 5)), dtype=torch.long)
target = torch.tensor(rng.standard_normal((8, 3)), dtype=torch.float32)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(3):
    optimizer.zero_grad()
    loss = nn.functional.mse_loss(model(tokens), target)
    loss.backward()
    optimizer.step()
    print("step", step, "loss", loss.item())
