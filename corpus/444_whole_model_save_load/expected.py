"""The best model kept whole with torch.save(model, f) during training, loaded back with
torch.load at the end and evaluated, as the language-model and super-resolution scripts do."""

import os
import tempfile

import numpy as np
import mindspore
from mindspore import nn, ops
from mindspore.experimental import optim
import ms_aux

rng = np.random.default_rng(21)
data = mindspore.tensor(rng.standard_normal((16, 4)), dtype=mindspore.float32)
target = mindspore.tensor(rng.standard_normal((16, 2)), dtype=mindspore.float32)
val = mindspore.tensor(rng.standard_normal((8, 4)), dtype=mindspore.float32)
val_target = mindspore.tensor(rng.standard_normal((8, 2)), dtype=mindspore.float32)


class Regressor(nn.Cell):
    def __init__(self):
        super().__init__()
        self.hidden = nn.Dense(4, 8)
        self.out = nn.Dense(8, 2)

    def construct(self, x):
        return self.out(ops.tanh(self.hidden(x)))


def evaluate(model):
    # torch2ms: TM932 `.eval()` converted on a receiver taken to be a Module from its name
    model.set_train(False)
    return ops.mse_loss(model(val), val_target).item()


model = Regressor()
# torch2ms: TM932 `.parameters()` converted on a receiver taken to be a Module from its name
optimizer = optim.SGD(model.trainable_params(), lr=0.3)
save = os.path.join(tempfile.mkdtemp(), "model.pt")
best = None
def forward_fn():
    loss = ops.mse_loss(model(data), target)
    return loss
grad_fn = mindspore.value_and_grad(forward_fn, None, optimizer.parameters)
for epoch in range(6):
    # torch2ms: TM932 `.train()` converted on a receiver taken to be a Module from its name
    model.set_train()
    loss, grads = grad_fn()
    optimizer(grads)
    val_loss = evaluate(model)
    print("epoch", epoch, "loss", loss.item(), "val", val_loss)
    if best is None or val_loss < best:
        with open(save, "wb") as f:
            # torch2ms: TM937 `torch.save` of a whole Module: the companion writes the Cell's parameter values and keeps the Cell for this run, so `torch.load` of the file in the same run gives back a copy holding them, as torch does; unlike torch, another process cannot rebuild the Cell from the file
            ms_aux.save(model, f)
        best = val_loss

with open(save, "rb") as f:
    model = ms_aux.load(f, weights_only=False)
print("best val", best, "reloaded val", evaluate(model))
