# grad_outputs: the vector-Jacobian product of a vector-valued function.
import numpy as np
import torch

x = torch.tensor(np.array([1.0, 2.0, 3.0], dtype=np.float32), requires_grad=True)
y = x ** 3 - 2.0 * x
v = torch.tensor(np.array([1.0, 0.1, 0.01], dtype=np.float32))
(vjp,) = torch.autograd.grad(y, x, grad_outputs=v)
print("y", y)
print("vjp", vjp)
