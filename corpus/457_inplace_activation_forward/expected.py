"""A block with in-place activations and a layer scale updated in place, as vision backbones
write them (`inplace=True`): the forward of an input, evaluated without a gradient."""

import numpy as np
import mindspore
from mindspore import nn, ops


def swish(x, inplace: bool = False):
    # torch2ms: TM963 MindSpore's Assign passes no gradient to the value it writes; inside a differentiated function this in-place update of `x` computes wrong gradients
    return ops.assign(x, x.mul(x.sigmoid())) if inplace else x.mul(x.sigmoid())


class LayerScale(nn.Cell):
    def __init__(self, dim, init_values=1e-5, inplace=False):
        super().__init__()
        self.inplace = inplace
        self.gamma = mindspore.Parameter(init_values * ops.ones(dim))

    def construct(self, x):
        # torch2ms: TM963 MindSpore's Assign passes no gradient to the value it writes; inside a differentiated function this in-place update of `x` computes wrong gradients
        return ops.assign(x, x.mul(self.gamma)) if self.inplace else x * self.gamma


class Block(nn.Cell):
    def __init__(self, dim):
        super().__init__()
        self.fc = nn.Dense(dim, dim)
        self.ls = LayerScale(dim, init_values=0.5, inplace=True)

    def construct(self, x):
        y = self.fc(x)
        # torch2ms: TM963 MindSpore's Assign passes no gradient to the value it writes; inside a differentiated function this in-place update of `y` computes wrong gradients
        ops.assign(y, y.clamp(-2.0, 2.0))
        return x + self.ls(swish(y, inplace=True))


mindspore.set_seed(0)
model = Block(4)
data = mindspore.tensor(
    np.random.default_rng(0).standard_normal((2, 4)), dtype=mindspore.float32
)
print("out", model(data))
