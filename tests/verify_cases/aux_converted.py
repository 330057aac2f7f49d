import mindspore
import numpy as np
from mindspore import nn

rng = np.random.default_rng(1)
x = mindspore.Tensor(rng.standard_normal((8, 3)), dtype=mindspore.float32)
y = mindspore.Tensor(rng.standard_normal((8, 2)), dtype=mindspore.float32)
model = nn.Dense(3, 2)
optimizer = nn.SGD(model.trainable_params(), learning_rate=0.1)
criterion = nn.MSELoss()


def forward_fn(x, y):
    output = model(x)
    loss = criterion(output, y)
    return loss, output


grad_fn = mindspore.value_and_grad(forward_fn, None, optimizer.parameters, has_aux=True)
for step in range(3):
    (loss, output), grads = grad_fn(x, y)
    optimizer(grads)
    print("step", step, "loss", loss.item(), "mean output", output.mean().item())
