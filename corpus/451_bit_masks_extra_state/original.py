"""Bit masks and padding masks as detection and tokenizer code writes them: `~` on integer flags
(a bitwise not) and on boolean masks, and a module that keeps a version number as extra state
(reported: MindSpore never calls get_extra_state, and checkpoints hold Parameters only)."""

import numpy as np
import torch
import torch.nn as nn


class Masker(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(4, 4)
        self.version = 2

    def get_extra_state(self):
        return {"version": self.version}

    def set_extra_state(self, state):
        self.version = state["version"]

    def forward(self, x, pad):
        keep = ~pad
        return self.proj(x) * keep.unsqueeze(-1).float()


flags = torch.tensor([0, 1, 5, -3], dtype=torch.int64)
print("inverted flags", ~flags)
print("cleared bit", flags & ~torch.tensor(1))
torch.manual_seed(0)
model = Masker()
x = torch.tensor(np.random.default_rng(0).standard_normal((2, 3, 4)).astype(np.float32))
pad = torch.tensor([[False, False, True], [False, True, True]])
out = model(x, pad)
print("out", out)
print("kept", (~pad).sum().item())
