"""An MLP on MNIST whose transform flattens each image with a Lambda that calls torch, as the
forward-forward and simple-MLP examples write it. The idx files are written first, so the pair
needs no download."""

import os
import struct

import numpy as np
import mindspore
import mindspore.dataset.vision as vision
from mindspore import nn, ops
from mindspore.experimental import optim
import ms_aux


def write_idx(path, array):
    header = struct.pack(">BBBB", 0, 0, 0x08, array.ndim)
    header += b"".join(struct.pack(">I", size) for size in array.shape)
    with open(path, "wb") as handle:
        handle.write(header + array.astype(np.uint8).tobytes())


rng = np.random.default_rng(8)
raw = os.path.join("data", "MNIST", "raw")
os.makedirs(raw, exist_ok=True)
for prefix, count in (("train", 16), ("t10k", 8)):
    write_idx(os.path.join(raw, f"{prefix}-images-idx3-ubyte"), rng.integers(0, 256, (count, 28, 28)))
    write_idx(os.path.join(raw, f"{prefix}-labels-idx1-ubyte"), rng.integers(0, 10, (count,)))

transform = ms_aux.Compose(
    [
        vision.ToTensor(),
        vision.Normalize((0.1307,), (0.3081,), is_hwc=False),
        ms_aux.Lambda(lambda x: ops.flatten(x, start_dim=0)),
    ]
)
train_set = ms_aux.MNIST("data", train=True, download=False, transform=transform)
train_loader = train_set.batch(4)

mindspore.set_seed(0)
model = nn.SequentialCell(nn.Dense(784, 16), nn.ReLU(), nn.Dense(16, 10))
optimizer = optim.SGD(model.trainable_params(), lr=0.05)
criterion = lambda input, target: ops.cross_entropy(input, target)
def forward_fn(images, labels):
    loss = criterion(model(images), labels)
    return loss
grad_fn = mindspore.value_and_grad(forward_fn, None, optimizer.parameters)
for step, (images, labels) in enumerate(train_loader):
    print("batch", step, tuple(images.shape), images.sum().item())
    loss, grads = grad_fn(images, labels)
    optimizer(grads)
    print("step", step, "loss", loss.item())
