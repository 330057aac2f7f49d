import mindspore
import numpy as np
from mindspore import nn, ops

rng = np.random.default_rng(3)
states = mindspore.Tensor(rng.standard_normal((6, 4)), dtype=mindspore.float32)
next_states = mindspore.Tensor(rng.standard_normal((6, 4)), dtype=mindspore.float32)
rewards = mindspore.Tensor(rng.standard_normal((6, 1)), dtype=mindspore.float32)
value_net = nn.Dense(4, 1)
optimizer = nn.SGD(value_net.trainable_params(), learning_rate=0.05)
gamma = 0.9


def forward_fn():
    target = rewards + gamma * ops.stop_gradient(value_net(next_states))
    loss = ((value_net(states) - target) ** 2).mean()
    return loss


grad_fn = mindspore.value_and_grad(forward_fn, None, optimizer.parameters)
for step in range(3):
    loss, grads = grad_fn()
    optimizer(grads)
    print("step", step, "td loss", loss.item())
