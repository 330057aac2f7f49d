# detach() cuts a value out of the gradient: d(x * stop(x))/dx = stop(x).
import numpy as np
import torch

x = torch.tensor(np.array([1.0, -2.0, 3.0], dtype=np.float32), requires_grad=True)
target = (x * 2.0).detach()
loss = ((x - target) ** 2).sum() + (x * x.detach()).sum()
loss.backward()
print("loss", loss)
print("x.grad", x.grad)
