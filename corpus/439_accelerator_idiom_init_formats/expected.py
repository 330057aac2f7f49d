"""Pick an accelerator when one is present, initialise the layers in place, print formatted numbers."""

import numpy as np
import mindspore
from mindspore import nn, ops
from mindspore.experimental import optim
import ms_aux


class Regressor(nn.Cell):
    def __init__(self):
        super().__init__()
        self.body = nn.Dense(3, 5)
        self.head = nn.Dense(5, 1)
        ops.assign(self.body.weight, (ops.randn_like(self.body.weight) * 0.02).astype(self.body.weight.dtype))  # redrawn below: only the call is exercised
        self.body.weight.copy_(ops.linspace(-1.0, 1.0, 15).reshape(5, 3))
        ops.assign(self.body.bias, ops.full_like(self.body.bias, fill_value=0.05))
        self.head.weight.data.copy_(ops.linspace(0.3, -0.3, 5).reshape(1, 5))
        ops.assign(self.head.bias, ops.zeros_like(self.head.bias))

    def construct(self, x):
        # torch2ms: TM925 CUDA autocast is disabled in torch without CUDA; with --target cpu the forward runs in float32
        with ms_aux.autocast(device_type="cuda", enabled=False):
            return self.head(ops.tanh(self.body(x)))


use_accel = ms_aux.accelerator_is_available()

rng = np.random.default_rng(39)
inputs = mindspore.tensor(rng.standard_normal((16, 3)), dtype=mindspore.float32)
targets = mindspore.tensor(rng.standard_normal((16, 1)), dtype=mindspore.float32)

model = Regressor()
optimizer = optim.SGD(model.trainable_params(), lr=0.1)
def forward_fn():
    x, y = inputs, targets
    loss = ops.mse_loss(model(x), y)
    return loss, x
grad_fn = mindspore.value_and_grad(forward_fn, None, optimizer.parameters, has_aux=True)
for step in range(4):
    (loss, x), grads = grad_fn()
    optimizer(grads)
    print("step {} loss {:.6f}".format(step, loss.item()))
spread = ops.std(model.body.weight, ddof=1)
print(f"weight spread {spread.item():.5f}")
