# Parameters set through .data (a common initialisation idiom), then a gradient with respect
# to the input of the layer.
import torch
from torch import nn


def build():
    layer = nn.Linear(2, 1)
    layer.weight.data = torch.tensor([[0.5, -1.0]])
    layer.bias.data = torch.tensor([0.25])
    return layer


layer = build()
x = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
out = layer(x).sum()
out.backward()
print("out", out)
print("x.grad", x.grad)
