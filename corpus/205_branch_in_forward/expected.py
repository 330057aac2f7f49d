"""A branch inside the forward region picks the forward computation (word_language_model style)."""

import argparse

import numpy as np
import mindspore
from mindspore import nn
from mindspore.experimental import optim

parser = argparse.ArgumentParser()
parser.add_argument("--model", default="deep")
args = parser.parse_args([])

rng = np.random.default_rng(25)
shallow = nn.Dense(5, 2)
deep = nn.SequentialCell(nn.Dense(5, 8), nn.ReLU(), nn.Dense(8, 2))
model = deep if args.model == "deep" else shallow
for p in model.trainable_params():
    p.copy_(mindspore.tensor(rng.standard_normal(tuple(p.shape)) * 0.5, dtype=mindspore.float32))
criterion = nn.MSELoss()
optimizer = optim.Adam(model.trainable_params(), lr=0.05)
loader = [
    (mindspore.tensor(rng.standard_normal((4, 5)), dtype=mindspore.float32), mindspore.tensor(rng.standard_normal((4, 2)), dtype=mindspore.float32))
    for _ in range(5)
]

def forward_fn(data, target):
    if args.model == "deep":
        output = model(data)
        output = output * 2.0
    else:
        output = model(data)
    loss = criterion(output, target)
    return loss
grad_fn = mindspore.value_and_grad(forward_fn, None, optimizer.parameters)
for step, (data, target) in enumerate(loader):
    loss, grads = grad_fn(data, target)
    optimizer(grads)
    print("step", step, "loss", loss.item())

print("final", [p.sum().item() for p in model.trainable_params()])
