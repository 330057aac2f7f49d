"""Metric learning: an embedding network trained with a triplet margin loss on (anchor, positive, negative)."""

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class EmbeddingNet(nn.Module):
    def __init__(self, in_features, dim):
        super().__init__()
        self.fc1 = nn.Linear(in_features, 16)
        self.fc2 = nn.Linear(16, dim)

    def forward(self, x):
        return F.normalize(self.fc2(F.relu(self.fc1(x))), dim=1)


rng = np.random.default_rng(36)
anchors = torch.tensor(rng.standard_normal((8, 6)), dtype=torch.float32)
positives = anchors + 0.1 * torch.tensor(rng.standard_normal((8, 6)), dtype=torch.float32)
negatives = torch.tensor(rng.standard_normal((8, 6)), dtype=torch.float32)

torch.manual_seed(0)
model = EmbeddingNet(6, 4)
criterion = nn.TripletMarginLoss(margin=1.0, p=2)
optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
for step in range(3):
    optimizer.zero_grad()
    loss = criterion(model(anchors), model(positives), model(negatives))
    loss.backward()
    optimizer.step()
    print("step", step, "loss", loss.item())
