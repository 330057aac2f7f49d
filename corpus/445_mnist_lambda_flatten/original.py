"""An MLP on MNIST whose transform flattens each image with a Lambda that calls torch, as the
forward-forward and simple-MLP examples write it. The idx files are written first, so the pair
needs no download."""

import os
import struct

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader
from torchvision import datasets, transforms


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

transform = transforms.Compose(
    [
        transforms.ToTensor(),
        transforms.Normalize((0.1307,), (0.3081,)),
        transforms.Lambda(lambda x: torch.flatten(x)),
    ]
)
train_set = datasets.MNIST("data", train=True, download=False, transform=transform)
train_loader = DataLoader(train_set, batch_size=4, shuffle=False)

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(784, 16), nn.ReLU(), nn.Linear(16, 10))
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
criterion = nn.CrossEntropyLoss()
for step, (images, labels) in enumerate(train_loader):
    print("batch", step, tuple(images.shape), images.sum().item())
    optimizer.zero_grad()
    loss = criterion(model(images), labels)
    loss.backward()
    optimizer.step()
    print("step", step, "loss", loss.item())
