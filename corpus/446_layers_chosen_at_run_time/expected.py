"""Layers chosen when the program runs, as language-model scripts build them: the recurrent class
looked up in torch.nn by its name (`getattr(nn, rnn_type)`), a model that subclasses
`nn.Transformer` and reuses its encoder, and containers told apart with `isinstance`."""

import numpy as np
import mindspore
from mindspore import nn, ops
import ms_aux

rng = np.random.default_rng(7)


class RNNModel(nn.Cell):
    def __init__(self, rnn_type, ntoken, ninp, nhid, nlayers):
        super().__init__()
        self.encoder = nn.Embedding(ntoken, ninp, embedding_table=mindspore.common.initializer.Normal(1.0))
        if rnn_type in ["LSTM", "GRU"]:
            self.rnn = ms_aux.nn_class(rnn_type)(ninp, nhid, nlayers, dropout=0.0)
        else:
            self.rnn = nn.RNN(ninp, nhid, nlayers, nonlinearity="tanh")
        self.decoder = nn.Dense(nhid, ntoken)
        self.heads = nn.CellList([nn.Dense(nhid, 2), nn.Dense(nhid, 3)])
        self.scales = ms_aux.ParameterList([mindspore.Parameter(ops.ones(2))])

    def construct(self, tokens):
        output, _ = self.rnn(self.encoder(tokens))
        return self.decoder(output)


class TransformerModel(ms_aux.Transformer):
    def __init__(self, ntoken, ninp, nhead, nhid, nlayers):
        super().__init__(
            d_model=ninp, nhead=nhead, dim_feedforward=nhid, num_encoder_layers=nlayers
        )
        self.input_emb = nn.Embedding(ntoken, ninp, embedding_table=mindspore.common.initializer.Normal(1.0))
        self.decoder = nn.Dense(ninp, ntoken)

    def construct(self, src):
        mask = self.generate_square_subsequent_mask(src.shape[0])
        output = self.encoder(self.input_emb(src), mask=mask)
        return self.decoder(output)


def containers(model):
    kinds = (nn.CellList, nn.CellDict, ms_aux.ParameterList)
    # torch2ms: TM932 `.named_modules()` converted on a receiver taken to be a Module from its name
    return sum(1 for _, m in model.cells_and_names() if isinstance(m, kinds))


def constant_weights(model, value):
    # torch2ms: TM932 `.parameters()` converted on a receiver taken to be a Module from its name
    for p in model.trainable_params():
        ms_aux.init_constant_(p, value)


tokens = mindspore.tensor(rng.integers(0, 10, size=(5, 2)), dtype=mindspore.int64)
for rnn_type in ["LSTM", "GRU", "RNN_TANH"]:
    model = RNNModel(rnn_type, 10, 4, 6, 2)
    constant_weights(model, 0.05)
    # torch2ms: TM932 `.eval()` converted on a receiver taken to be a Module from its name
    model.set_train(False)
    out = model(tokens)
    print(rnn_type, "output", out.sum().item(), "containers", containers(model))

model = TransformerModel(10, 8, 2, 16, 2)
constant_weights(model, 0.03)
# torch2ms: TM932 `.eval()` converted on a receiver taken to be a Module from its name
model.set_train(False)
out = model(tokens)
print("transformer output", out.sum().item(), tuple(out.shape))
mask = ms_aux.Transformer.generate_square_subsequent_mask(4)
print("mask", ops.isinf(mask).sum().item(), mask[3, 0].item())
