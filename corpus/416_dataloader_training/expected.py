"""A Dataset subclass fed through a DataLoader (no shuffling) to a regression training loop."""

import numpy as np
import mindspore
import mindspore.dataset as ds
from mindspore import nn
from mindspore.experimental import optim


class PointsDataset:
    def __init__(self, n, seed):
        rng = np.random.default_rng(seed)
        self.x = rng.standard_normal((n, 3)).astype(np.float32)
        self.y = (self.x @ np.array([[1.0], [-2.0], [0.5]], dtype=np.float32) + 0.3).astype(np.float32)

    def __len__(self):
        return len(self.x)

    def __getitem__(self, index):
        return self.x[index], self.y[index]


loader = ds.GeneratorDataset(PointsDataset(24, seed=18), column_names=["data", "label"], shuffle=False).batch(8)
mindspore.set_seed(0)
model = nn.Dense(3, 1)
optimizer = optim.SGD(model.trainable_params(), lr=0.1)
loss_fn = nn.MSELoss()
def forward_fn(x, y):
    loss = loss_fn(model(x), y)
    return loss
grad_fn = mindspore.value_and_grad(forward_fn, None, optimizer.parameters)
for epoch in range(3):
    epoch_loss = 0.0
    for x, y in loader:
        loss, grads = grad_fn(x, y)
        optimizer(grads)
        epoch_loss += loss.item()
    print("epoch", epoch, "loss", epoch_loss / len(loader))
