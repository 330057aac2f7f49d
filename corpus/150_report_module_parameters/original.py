# Gradients of a module's parameters outside a training loop: reported (TM910), since the
# parameters' gradients come back from value_and_grad(fn, None, model.trainable_params()).
import torch
from torch import nn

model = nn.Linear(3, 1)
x = torch.ones(2, 3)
out = model(x).sum()
out.backward()
print("weight grad", model.weight.grad)
