"""The device-agnostic idiom: pick cuda when available, move model and data with .to(device)."""

import numpy as np
import mindspore
from mindspore import nn, ops
from mindspore.experimental import optim
import ms_aux

use_cuda = ms_aux.cuda_is_available()

rng = np.random.default_rng(26)
features = mindspore.tensor(rng.standard_normal((12, 4)), dtype=mindspore.float32)
labels = mindspore.tensor(rng.integers(0, 3, size=12), dtype=mindspore.int64)

mindspore.manual_seed(0)
model = nn.SequentialCell(nn.Dense(4, 8), nn.ReLU(), nn.Dense(8, 3))
optimizer = optim.SGD(model.trainable_params(), lr=0.1)
def forward_fn():
    data, target = features, labels
    loss = ops.cross_entropy(model(data), target)
    return loss
grad_fn = mindspore.value_and_grad(forward_fn, None, optimizer.parameters)
for epoch in range(3):
    loss, grads = grad_fn()
    optimizer(grads)
    print("epoch", epoch, "loss", loss.item())
if use_cuda:
    import torch
    # torch2ms: TM940 `torch.cuda.memory_allocated` has no certain MindSpore mapping
    print("gpu memory", torch.cuda.memory_allocated())
