# Second and third derivatives with create_graph=True (as in physics-informed losses).
import torch


def derivatives(t):
    t.requires_grad_(True)
    u = torch.sin(2.0 * t) * t ** 2
    (du,) = torch.autograd.grad(u, t, create_graph=True)
    (d2u,) = torch.autograd.grad(du, t, create_graph=True)
    (d3u,) = torch.autograd.grad(d2u, t)
    return du, d2u, d3u


du, d2u, d3u = derivatives(torch.tensor(0.7))
print("du", du)
print("d2u", d2u)
print("d3u", d3u)
