"""Fine-tuning: the backbone is frozen with requires_grad = False, only the head is optimised."""

import numpy as np
import mindspore
from mindspore import nn, ops
from mindspore.experimental import optim


class Backbone(nn.Cell):
    def __init__(self):
        super().__init__()
        self.features = nn.SequentialCell(nn.Dense(5, 8), nn.ReLU(), nn.Dense(8, 8), nn.ReLU())

    def construct(self, x):
        return self.features(x)


class FineTuned(nn.Cell):
    def __init__(self, backbone, num_classes):
        super().__init__()
        self.backbone = backbone
        self.head = nn.Dense(8, num_classes)

    def construct(self, x):
        return self.head(self.backbone(x))


rng = np.random.default_rng(16)
inputs = mindspore.tensor(rng.standard_normal((12, 5)), dtype=mindspore.float32)
labels = mindspore.tensor(rng.integers(0, 4, size=12), dtype=mindspore.int64)

mindspore.set_seed(0)
model = FineTuned(Backbone(), num_classes=4)
# torch2ms: TM938 `trainable_params()` leaves out the parameters this file freezes
# torch2ms: TM932 `.parameters()` converted on a receiver taken to be a Module from its name
for param in model.backbone.trainable_params():
    param.requires_grad = False
# torch2ms: TM938 `trainable_params()` leaves out the parameters this file freezes
optimizer = optim.SGD(filter(lambda p: p.requires_grad, model.trainable_params()), lr=0.2)
criterion = lambda input, target: ops.cross_entropy(input, target)
def forward_fn():
    loss = criterion(model(inputs), labels)
    return loss
grad_fn = mindspore.value_and_grad(forward_fn, None, optimizer.parameters)
for step in range(4):
    loss, grads = grad_fn()
    optimizer(grads)
    print("step", step, "loss", loss.item())
