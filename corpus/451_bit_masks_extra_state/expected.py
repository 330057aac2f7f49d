"""Bit masks and padding masks as detection and tokenizer code writes them: `~` on integer flags
(a bitwise not) and on boolean masks, and a module that keeps a version number as extra state
(reported: MindSpore never calls get_extra_state, and checkpoints hold Parameters only)."""

import numpy as np
import mindspore
from mindspore import nn
import ms_aux


class Masker(nn.Cell):
    def __init__(self):
        super().__init__()
        self.proj = nn.Dense(4, 4)
        self.version = 2

    # torch2ms: TM959 `get_extra_state`: the companion's `state_dict`/`load_state_dict` keep this extra state under `_extra_state` as torch does, but `parameters_dict()` and MindSpore checkpoints hold Parameters only
    def get_extra_state(self):
        return {"version": self.version}

    # torch2ms: TM959 `set_extra_state`: the companion's `state_dict`/`load_state_dict` keep this extra state under `_extra_state` as torch does, but `parameters_dict()` and MindSpore checkpoints hold Parameters only
    def set_extra_state(self, state):
        self.version = state["version"]

    def construct(self, x, pad):
        keep = ms_aux.invert(pad)
        return self.proj(x) * keep.unsqueeze(-1).float()


flags = mindspore.tensor([0, 1, 5, -3], dtype=mindspore.int64)
print("inverted flags", ms_aux.invert(flags))
print("cleared bit", flags & ms_aux.invert(mindspore.tensor(1)))
mindspore.set_seed(0)
model = Masker()
x = mindspore.tensor(np.random.default_rng(0).standard_normal((2, 3, 4)).astype(np.float32))
pad = mindspore.tensor([[False, False, True], [False, True, True]])
out = model(x, pad)
print("out", out)
print("kept", (ms_aux.invert(pad)).sum().item())
