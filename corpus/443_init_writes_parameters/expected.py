"""Parameters written in place while a model is initialised, as language-model and vision
scripts do: `.data.uniform_`/`.data.normal_`/`.data.zero_()` in `init_weights`, and under
`torch.no_grad()` `copy_` from a tensor, `zero_()` and `fill_()` on layers found by traversal."""

import numpy as np
import mindspore
from mindspore import nn, ops
from mindspore.experimental import optim

rng = np.random.default_rng(12)


class TextModel(nn.Cell):
    def __init__(self, ntoken, ninp, nout):
        super().__init__()
        self.encoder = nn.Embedding(ntoken, ninp, embedding_table=mindspore.common.initializer.Normal(1.0))
        self.proj = nn.Dense(ninp, ninp)
        self.norm = nn.LayerNorm((ninp,), epsilon=1e-05)
        self.decoder = nn.Dense(ninp, nout)
        self.init_weights()

    def init_weights(self):
        initrange = 0.1
        ops.assign(self.encoder.embedding_table.data, (ops.rand_like(self.encoder.embedding_table.data) * (2 * initrange) - initrange).astype(self.encoder.embedding_table.data.dtype))
        ops.assign(self.decoder.bias.data, ops.zeros_like(self.decoder.bias.data))
        ops.assign(self.decoder.weight.data, (ops.randn_like(self.decoder.weight.data) * 0.02).astype(self.decoder.weight.data.dtype))

    def construct(self, tokens):
        x = self.encoder(tokens).mean(1)
        return self.decoder(self.norm(ops.tanh(self.proj(x))))


def load_pretrained(model, weight):
    model.proj.weight.copy_(weight)
    ops.assign(model.proj.bias, ops.zeros_like(model.proj.bias))
    ops.assign(model.norm.gamma, ops.full_like(model.norm.gamma, fill_value=1.5))
    for m in (cell for _, cell in model.cells_and_names()):
        if isinstance(m, nn.LayerNorm):
            ops.assign(m.beta.data, ops.full_like(m.beta.data, fill_value=0.25))
        for p in m.trainable_params(recurse=False):
            ops.assign(p.data, p.data.clamp(-1.0, 1.0))


model = TextModel(20, 6, 3)
print("uniform within range", int((model.encoder.embedding_table.abs() <= 0.1).all()))
print("decoder bias", model.decoder.bias.abs().sum().item())
load_pretrained(model, mindspore.tensor(rng.standard_normal((6, 6)) * 0.5, dtype=mindspore.float32))
print("proj weight", model.proj.weight.sum().item(), model.proj.weight.abs().max().item())
print("proj bias", model.proj.bias.sum().item())
print("norm", model.norm.gamma.sum().item(), model.norm.beta.sum().item())

tokens = mindspore.tensor(rng.integers(0, 20, size=(8, 5)), dtype=mindspore.int64)
target = mindspore.tensor(rng.standard_normal((8, 3)), dtype=mindspore.float32)
optimizer = optim.SGD(model.trainable_params(), lr=0.1)
def forward_fn():
    loss = ops.mse_loss(model(tokens), target)
    return loss
grad_fn = mindspore.value_and_grad(forward_fn, None, optimizer.parameters)
for step in range(3):
    loss, grads = grad_fn()
    optimizer(grads)
    print("step", step, "loss", loss.item())
