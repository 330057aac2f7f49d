"""What a library runs at import time and in its helpers, as model zoos write it: typed tensor
annotations, backend probes through importlib, safetensors' torch binding, and a key cache that
starts as torch's 1-D empty placeholder and grows with cat."""

import importlib.util
import os
import tempfile

import numpy as np
import mindspore
from mindspore import ops
import ms_aux
load_file = ms_aux.safetensors_load_file
save_file = ms_aux.safetensors_save_file

rng = np.random.default_rng(48)


def is_torch_available():
    return ms_aux.find_spec("torch") is not None


def is_torch_cuda_available():
    return False


class KeyCache:
    def __init__(self):
        self.keys = mindspore.tensor([])

    def update(self, keys: mindspore.Tensor) -> mindspore.Tensor:
        self.keys = ms_aux.cat_skipping_empty([self.keys, keys], dim=-2)
        return self.keys


def pooled(ids: mindspore.Tensor | None, table: mindspore.Tensor) -> mindspore.Tensor:
    return table[ids].mean(0) if ids is not None else table.mean(0)


print("backend available", int(is_torch_available()))
print("cuda available", int(is_torch_cuda_available()))
cache = KeyCache()
for step in range(3):
    out = cache.update(mindspore.tensor(rng.standard_normal((2, 3)), dtype=mindspore.float32))
print("cache rows", out.shape[0], "sum", out.sum().item())
table = mindspore.tensor(rng.standard_normal((5, 4)), dtype=mindspore.float32)
print("pooled", pooled(mindspore.tensor([0, 3]), table).sum().item(), pooled(None, table).sum().item())
with tempfile.TemporaryDirectory() as folder:
    path = os.path.join(folder, "weights.safetensors")
    save_file({"table": table, "bias": ops.ones(4)}, path)
    state = load_file(path)
print("loaded", sorted(state), state["table"].sum().item(), state["bias"].sum().item())
