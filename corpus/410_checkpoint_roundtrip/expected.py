"""Train briefly, save the state_dict, load it into a fresh model and evaluate both."""

import numpy as np
import mindspore
from mindspore import nn, ops
from mindspore.experimental import optim


class MLP(nn.Cell):
    def __init__(self):
        super().__init__()
        self.layers = nn.SequentialCell(nn.Dense(3, 6), nn.BatchNorm1d(6), nn.ReLU(), nn.Dense(6, 2))

    def construct(self, x):
        return self.layers(x)


rng = np.random.default_rng(12)
data = mindspore.tensor(rng.standard_normal((10, 3)), dtype=mindspore.float32)
target = mindspore.tensor(rng.standard_normal((10, 2)), dtype=mindspore.float32)

mindspore.set_seed(0)
model = MLP()
model.set_train()
optimizer = optim.SGD(model.trainable_params(), lr=0.1)
def forward_fn():
    loss = ops.mse_loss(model(data), target)
    return loss
grad_fn = mindspore.value_and_grad(forward_fn, None, optimizer.parameters)
for step in range(3):
    loss, grads = grad_fn()
    optimizer(grads)

mindspore.save_checkpoint(model, "mlp.ckpt")
restored = MLP()
restored.set_train()
mindspore.load_param_into_net(restored, mindspore.load_checkpoint("mlp.ckpt"))
model.set_train(False)
restored.set_train(False)
print("trained", model(data).sum().item())
print("restored", restored(data).sum().item())
