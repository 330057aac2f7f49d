"""What a library runs at import time and in its helpers, as model zoos write it: typed tensor
annotations, backend probes through importlib, safetensors' torch binding, and a key cache that
starts as torch's 1-D empty placeholder and grows with cat."""

import importlib.util
import os
import tempfile

import numpy as np
import torch
from safetensors.torch import load_file, save_file

rng = np.random.default_rng(48)


def is_torch_available():
    return importlib.util.find_spec("torch") is not None


def is_torch_cuda_available():
    return is_torch_available() and torch.cuda.is_available()


class KeyCache:
    def __init__(self):
        self.keys = torch.tensor([])

    def update(self, keys: torch.FloatTensor) -> torch.FloatTensor:
        self.keys = torch.cat([self.keys, keys], dim=-2)
        return self.keys


def pooled(ids: torch.LongTensor | None, table: torch.FloatTensor) -> torch.FloatTensor:
    return table[ids].mean(0) if ids is not None else table.mean(0)


print("backend available", int(is_torch_available()))
print("cuda available", int(is_torch_cuda_available()))
cache = KeyCache()
for step in range(3):
    out = cache.update(torch.tensor(rng.standard_normal((2, 3)), dtype=torch.float32))
print("cache rows", out.shape[0], "sum", out.sum().item())
table = torch.tensor(rng.standard_normal((5, 4)), dtype=torch.float32)
print("pooled", pooled(torch.tensor([0, 3]), table).sum().item(), pooled(None, table).sum().item())
with tempfile.TemporaryDirectory() as folder:
    path = os.path.join(folder, "weights.safetensors")
    save_file({"table": table, "bias": torch.ones(4)}, path)
    state = load_file(path)
print("loaded", sorted(state), state["table"].sum().item(), state["bias"].sum().item())
