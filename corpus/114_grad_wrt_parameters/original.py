# torch.autograd.grad with respect to a module's parameters (as in meta-learning inner steps):
# MindSpore's grad with grad_position=None and weights returns one gradient per parameter.
import torch
from torch import nn


def parameter_grads(model, x, y):
    loss = ((model(x) - y) ** 2).mean()
    grads = torch.autograd.grad(loss, model.parameters())
    return loss, grads


model = nn.Linear(2, 1)
model.weight.data = torch.tensor([[0.5, -0.25]])
model.bias.data = torch.tensor([0.1])
x = torch.tensor([[1.0, 2.0], [3.0, -1.0], [0.5, 0.5]])
y = torch.tensor([[1.0], [0.0], [2.0]])
loss, (g_weight, g_bias) = parameter_grads(model, x, y)
print("loss", loss)
print("grad weight", g_weight)
print("grad bias", g_bias)
