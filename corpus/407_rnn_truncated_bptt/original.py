"""Truncated backpropagation through time: the hidden state is carried across steps and detached."""

import numpy as np
import torch
from torch import nn


class TinyRNN(nn.Module):
    def __init__(self, input_size, hidden_size):
        super().__init__()
        self.in2hidden = nn.Linear(input_size, hidden_size)
        self.hidden2hidden = nn.Linear(hidden_size, hidden_size, bias=False)
        self.readout = nn.Linear(hidden_size, 1)

    def forward(self, x, hidden):
        hidden = torch.tanh(self.in2hidden(x) + self.hidden2hidden(hidden))
        return self.readout(hidden), hidden


rng = np.random.default_rng(8)
sequence = torch.tensor(rng.standard_normal((6, 4, 3)), dtype=torch.float32)
targets = torch.tensor(rng.standard_normal((6, 4, 1)), dtype=torch.float32)

torch.manual_seed(0)
rnn = TinyRNN(3, 5)
optimizer = torch.optim.SGD(rnn.parameters(), lr=0.05, momentum=0.9, nesterov=True)
hidden = torch.zeros(4, 5)
for t in range(6):
    hidden = hidden.detach()
    output, hidden = rnn(sequence[t], hidden)
    loss = nn.functional.mse_loss(output, targets[t])
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print("t", t, "loss", loss.item())
print("final hidden", hidden.detach().numpy().sum())
