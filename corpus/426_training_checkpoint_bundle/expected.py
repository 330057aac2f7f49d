"""A checkpoint that bundles model, optimizer and epoch; weights re-initialised through .data."""

import numpy as np
import mindspore
from mindspore import nn, ops
from mindspore.experimental import optim
import ms_aux


class Classifier(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(4, 6)
        self.bn = nn.BatchNorm1d(6)
        self.out = nn.Dense(6, 2)

    def construct(self, x):
        return self.out(ops.relu(self.bn(self.fc(x))))


rng = np.random.default_rng(27)
x = mindspore.tensor(rng.standard_normal((8, 4)), dtype=mindspore.float32)
y = mindspore.tensor(rng.integers(0, 2, size=8), dtype=mindspore.int64)

mindspore.set_seed(0)
model = Classifier()
model.set_train()
model.out.weight.set_data(mindspore.tensor(rng.standard_normal((2, 6)) * 0.1, dtype=mindspore.float32))
model.out.bias.set_data(ops.zeros(2))
optimizer = optim.SGD(model.trainable_params(), lr=0.1, momentum=0.9)
def forward_fn():
    loss = ops.cross_entropy(model(x), y)
    return loss
grad_fn = mindspore.value_and_grad(forward_fn, None, optimizer.parameters)
for epoch in range(2):
    loss, grads = grad_fn()
    optimizer(grads)
    print("epoch", epoch, "loss", loss.item())

# torch2ms: TM933 `parameters_and_names()` also yields the non-trainable statistics and buffers
for name, param in model.parameters_and_names():
    print("param", name, ops.stop_gradient(param).abs().sum().item())
ms_aux.save({"epoch": 2, "model_state_dict": ms_aux.state_dict(model), "optimizer_state_dict": ms_aux.state_dict(optimizer)}, "checkpoint.tar")
checkpoint = ms_aux.load("checkpoint.tar")
print("resumed epoch", checkpoint["epoch"])
