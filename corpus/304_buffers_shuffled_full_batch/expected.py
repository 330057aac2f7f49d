"""Running statistics, an optional buffer, and a shuffled full-batch DataLoader (order-free loss)."""

import numpy as np
import mindspore
import mindspore.dataset as ds
from mindspore import nn, ops
from mindspore.experimental import optim

VERBOSE = False


class Samples:
    def __init__(self):
        rng = np.random.default_rng(3)
        self.x = rng.standard_normal((12, 4)).astype(np.float32)
        self.y = rng.integers(0, 3, size=12)

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        return self.x[i], self.y[i]


class Normalised(nn.Cell):
    def __init__(self):
        super().__init__()
        self.bn = nn.BatchNorm1d(4, momentum=0.5)
        self.fc = nn.Dense(4, 3)
        # torch2ms: TM931 `register_buffer` with a `None` value stays a MindSpore buffer
        self.register_buffer("cache", None)

    def construct(self, x):
        return self.fc(self.bn(x))


# torch2ms: TM930 `torch.nn.BatchNorm1d` has no `num_batches_tracked` in MindSpore
def describe(model):
    return int(model.bn.num_batches_tracked)


def train_epoch(model, loader, optimizer):
    def forward_fn(x, y):
        loss = ops.cross_entropy(model(x), y)
        return loss
    grad_fn = mindspore.value_and_grad(forward_fn, None, optimizer.parameters)
    for x, y in loader:
        loss, grads = grad_fn(x, y)
        optimizer(grads)
    return loss.item()


mindspore.set_seed(0)
dataset = Samples()
# torch2ms: TM935 the shuffled order comes from MindSpore's generator, not torch's
loader = ds.GeneratorDataset(dataset, column_names=["data", "label"], shuffle=True).batch(len(dataset))
model = Normalised()
model.set_train()
optimizer = optim.SGD(model.trainable_params(), lr=0.3)
for epoch in range(3):
    print("loss", train_epoch(model, loader, optimizer))
    if VERBOSE:
        print("batches", describe(model))

print("moving mean", model.bn.moving_mean.tolist())
print("moving var", model.bn.moving_variance.tolist())
