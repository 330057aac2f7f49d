"""Layers chosen when the program runs, as language-model scripts build them: the recurrent class
looked up in torch.nn by its name (`getattr(nn, rnn_type)`), a model that subclasses
`nn.Transformer` and reuses its encoder, and containers told apart with `isinstance`."""

import numpy as np
import torch
import torch.nn as nn

rng = np.random.default_rng(7)


class RNNModel(nn.Module):
    def __init__(self, rnn_type, ntoken, ninp, nhid, nlayers):
        super().__init__()
        self.encoder = nn.Embedding(ntoken, ninp)
        if rnn_type in ["LSTM", "GRU"]:
            self.rnn = getattr(nn, rnn_type)(ninp, nhid, nlayers, dropout=0.0)
        else:
            self.rnn = nn.RNN(ninp, nhid, nlayers, nonlinearity="tanh")
        self.decoder = nn.Linear(nhid, ntoken)
        self.heads = nn.ModuleList([nn.Linear(nhid, 2), nn.Linear(nhid, 3)])
        self.scales = nn.ParameterList([nn.Parameter(torch.ones(2))])

    def forward(self, tokens):
        output, _ = self.rnn(self.encoder(tokens))
        return self.decoder(output)


class TransformerModel(nn.Transformer):
    def __init__(self, ntoken, ninp, nhead, nhid, nlayers):
        super().__init__(
            d_model=ninp, nhead=nhead, dim_feedforward=nhid, num_encoder_layers=nlayers
        )
        self.input_emb = nn.Embedding(ntoken, ninp)
        self.decoder = nn.Linear(ninp, ntoken)

    def forward(self, src):
        mask = self.generate_square_subsequent_mask(src.shape[0])
        output = self.encoder(self.input_emb(src), mask=mask)
        return self.decoder(output)


def containers(model):
    kinds = (nn.ModuleList, nn.ModuleDict, nn.ParameterList)
    return sum(1 for _, m in model.named_modules() if isinstance(m, kinds))


def constant_weights(model, value):
    for p in model.parameters():
        nn.init.constant_(p, value)


tokens = torch.tensor(rng.integers(0, 10, size=(5, 2)), dtype=torch.long)
for rnn_type in ["LSTM", "GRU", "RNN_TANH"]:
    model = RNNModel(rnn_type, 10, 4, 6, 2)
    constant_weights(model, 0.05)
    model.eval()
    out = model(tokens)
    print(rnn_type, "output", out.sum().item(), "containers", containers(model))

model = TransformerModel(10, 8, 2, 16, 2)
constant_weights(model, 0.03)
model.eval()
out = model(tokens)
print("transformer output", out.sum().item(), tuple(out.shape))
mask = nn.Transformer.generate_square_subsequent_mask(4)
print("mask", torch.isinf(mask).sum().item(), mask[3, 0].item())
