"""A map-style Dataset read through a DataLoader, training a small regression model."""

import numpy as np
import mindspore
import mindspore.dataset as ds
from mindspore import nn, ops
from mindspore.experimental import optim


class Points:
    def __init__(self, n, seed):
        rng = np.random.default_rng(seed)
        self.x = rng.standard_normal((n, 3)).astype(np.float32)
        self.y = (self.x @ np.array([[1.0], [-2.0], [0.5]], dtype=np.float32) + 0.3).astype(np.float32)

    def __len__(self):
        return len(self.x)

    def __getitem__(self, index):
        return self.x[index], self.y[index]


class Regressor(nn.Cell):
    def __init__(self):
        super().__init__()
        self.hidden = nn.Dense(3, 8)
        self.out = nn.Dense(8, 1)

    def construct(self, x):
        return self.out(ops.tanh(self.hidden(x)))


train_set = Points(20, seed=0)
loader = ds.GeneratorDataset(train_set, column_names=["data", "label"], shuffle=False).batch(6, drop_remainder=True)
print("batches", len(loader))

mindspore.set_seed(0)
model = Regressor()
criterion = nn.MSELoss()
optimizer = optim.Adam(model.trainable_params(), lr=0.05)
def forward_fn(x, y):
    loss = criterion(model(x), y)
    return loss
grad_fn = mindspore.value_and_grad(forward_fn, None, optimizer.parameters)
for epoch in range(2):
    total = 0.0
    for x, y in loader:
        loss, grads = grad_fn(x, y)
        optimizer(grads)
        total += loss.item()
    print("epoch loss", total)

first_x, first_y = next(iter(loader))
print("first batch", first_x.shape[0], first_y.sum().item())
