"""A small CNN with BatchNorm, trained for a few steps, then evaluated."""

import numpy as np
import mindspore
from mindspore import nn, ops
from mindspore.experimental import optim


class ConvNet(nn.Cell):
    def __init__(self, classes=4):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 4, 3, padding=1, pad_mode='pad', has_bias=True)
        self.bn1 = nn.BatchNorm2d(4, momentum=0.8)
        self.conv2 = nn.Conv2d(4, 6, 3, stride=2, pad_mode='pad', has_bias=True)
        self.bn2 = nn.BatchNorm2d(6)
        self.fc = nn.Dense(6 * 3 * 3, classes)

    def construct(self, x):
        x = ops.relu(self.bn1(self.conv1(x)))
        x = ops.relu(self.bn2(self.conv2(x)))
        x = ops.flatten(x, start_dim=1)
        return self.fc(x)


mindspore.set_seed(0)
rng = np.random.default_rng(0)
images = mindspore.tensor(rng.standard_normal((8, 1, 8, 8)), dtype=mindspore.float32)
labels = mindspore.tensor(rng.integers(0, 4, size=8), dtype=mindspore.int64)

model = ConvNet()
model.set_train()
optimizer = optim.SGD(model.trainable_params(), lr=0.1, momentum=0.9)
def forward_fn():
    loss = ops.cross_entropy(model(images), labels)
    return loss
grad_fn = mindspore.value_and_grad(forward_fn, None, optimizer.parameters)
for step in range(3):
    loss, grads = grad_fn()
    optimizer(grads)
    print("loss", loss.item())

print("running mean", model.bn1.moving_mean.tolist())
print("running var", model.bn2.moving_variance.tolist())
print("gamma", model.bn1.gamma.tolist())

model.set_train(False)
logits = model(images)
print("eval logits", logits)

convs = [m for m in (cell for _, cell in model.cells_and_names()) if isinstance(m, nn.Conv2d)]
print("conv layers", len(convs), "children", len(list(model.cells())))
