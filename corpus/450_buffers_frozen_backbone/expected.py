"""A fine-tuning script that freezes its backbone and keeps normalisation constants as buffers,
reading them back by name (reported: a converted buffer is a Parameter that does not require a
gradient, so the frozen parameters are counted among the buffers too)."""

import numpy as np
import mindspore
from mindspore import nn, ops
import ms_aux


class Head(nn.Cell):
    def __init__(self):
        super().__init__()
        self.backbone = nn.Dense(4, 8)
        self.classifier = nn.Dense(8, 3)
        self.mean = mindspore.Parameter(mindspore.tensor([0.5, -0.25, 0.0, 1.0]), requires_grad=False)
        self.scale = mindspore.Parameter(mindspore.tensor(2.0), requires_grad=False)

    def construct(self, x):
        h = ops.relu(self.backbone((x - self.mean) * self.scale))
        return self.classifier(h)


mindspore.set_seed(0)
model = Head()
# torch2ms: TM938 `trainable_params()` leaves out the parameters this file freezes
for p in model.backbone.trainable_params():
    p.requires_grad = False
# torch2ms: TM958 a converted buffer is a Parameter with requires_grad=False, and this file freezes parameters: the companion counts those among the buffers
buffers = dict(ms_aux.named_buffers(model))
print("mean", buffers["mean"].tolist())
print("scale", buffers["scale"].item())
x = mindspore.tensor(np.random.default_rng(0).standard_normal((5, 4)).astype(np.float32))
out = model(x) * buffers["scale"]
print("out", out)
