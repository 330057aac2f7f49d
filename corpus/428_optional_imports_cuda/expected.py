"""A script with an optional torch-ecosystem import and a guarded .cuda() move, run on the CPU; the conversion keeps the import's fallback."""

import numpy as np
import mindspore
from mindspore import nn, ops
from mindspore.experimental import optim
import ms_aux

# torch2ms: TM905 torch is imported optionally here; the converted program runs the `except ImportError` fallback
torchvision = None

rng = np.random.default_rng(28)
images = mindspore.tensor(rng.standard_normal((6, 1, 4, 4)), dtype=mindspore.float32)
labels = mindspore.tensor(rng.integers(0, 2, size=6), dtype=mindspore.int64)

mindspore.set_seed(0)
model = nn.SequentialCell(nn.Flatten(), nn.Dense(16, 8), nn.ReLU(), nn.Dense(8, 2))
# torch2ms: TM934 GPU placement removed: MindSpore runs on the device of its context
if ms_aux.cuda_is_available():
    pass
optimizer = optim.SGD(model.trainable_params(), lr=0.1)
def forward_fn():
    loss = ops.cross_entropy(model(images), labels)
    return loss
grad_fn = mindspore.value_and_grad(forward_fn, None, optimizer.parameters)
for step in range(3):
    loss, grads = grad_fn()
    optimizer(grads)
    print("step", step, "loss", loss.item())
print("torchvision", "missing" if torchvision is None else "found")
