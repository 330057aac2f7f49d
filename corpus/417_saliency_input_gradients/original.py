"""Saliency: the gradient of the top class score with respect to the input of a trained model."""

import numpy as np
import torch
import torch.nn as nn

rng = np.random.default_rng(19)
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(6, 10), nn.ReLU(), nn.Linear(10, 3))
model.eval()


def saliency(model, sample):
    sample = sample.clone().requires_grad_(True)
    scores = model(sample)
    top = scores.argmax(dim=1)
    scores.gather(1, top.view(-1, 1)).sum().backward()
    return sample.grad.abs()


sample = torch.tensor(rng.standard_normal((2, 6)), dtype=torch.float32)
saliency_map = saliency(model, sample)
print("saliency", saliency_map.numpy())
print("most salient feature", saliency_map.argmax(dim=1).tolist())
