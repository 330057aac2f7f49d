"""Truncated backpropagation through time: the hidden state is carried across steps and detached."""

import numpy as np
import mindspore
from mindspore import nn, ops
from mindspore.experimental import optim


class TinyRNN(nn.Cell):
    def __init__(self, input_size, hidden_size):
        super().__init__()
        self.in2hidden = nn.Dense(input_size, hidden_size)
        self.hidden2hidden = nn.Dense(hidden_size, hidden_size, has_bias=False)
        self.readout = nn.Dense(hidden_size, 1)

    def construct(self, x, hidden):
        hidden = ops.tanh(self.in2hidden(x) + self.hidden2hidden(hidden))
        return self.readout(hidden), hidden


rng = np.random.default_rng(8)
sequence = mindspore.tensor(rng.standard_normal((6, 4, 3)), dtype=mindspore.float32)
targets = mindspore.tensor(rng.standard_normal((6, 4, 1)), dtype=mindspore.float32)

mindspore.set_seed(0)
rnn = TinyRNN(3, 5)
optimizer = optim.SGD(rnn.trainable_params(), lr=0.05, momentum=0.9, nesterov=True)
hidden = ops.zeros((4, 5))
def forward_fn(hidden, t):
    hidden = ops.stop_gradient(hidden)
    output, hidden = rnn(sequence[t], hidden)
    loss = ops.mse_loss(output, targets[t])
    return loss, hidden
grad_fn = mindspore.value_and_grad(forward_fn, None, optimizer.parameters, has_aux=True)
for t in range(6):
    (loss, hidden), grads = grad_fn(hidden, t)
    optimizer(grads)
    print("t", t, "loss", loss.item())
print("final hidden", ops.stop_gradient(hidden).asnumpy().sum())
