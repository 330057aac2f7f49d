"""Save a trained model's state_dict, load it into a fresh model, and check they agree."""

import os
import tempfile

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(6, 4)
        self.norm = nn.LayerNorm(4)
        self.bn = nn.BatchNorm1d(4)
        self.head = nn.Linear(4, 3)
        self.register_buffer("offset", torch.ones(3) * 0.5)

    def forward(self, ids):
        h = self.norm(self.embed(ids).mean(1))
        return self.head(self.bn(h)) + self.offset


torch.manual_seed(0)
rng = np.random.default_rng(0)
ids = torch.tensor(rng.integers(0, 6, size=(5, 3)), dtype=torch.int64)
targets = torch.tensor(rng.integers(0, 3, size=5), dtype=torch.int64)

model = Classifier()
criterion = nn.NLLLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.2)
for step in range(2):
    optimizer.zero_grad()
    loss = criterion(F.log_softmax(model(ids), dim=1), targets)
    loss.backward()
    optimizer.step()
    print("loss", loss.item())

path = os.path.join(tempfile.mkdtemp(), "classifier.pt")
torch.save(model.state_dict(), path)

restored = Classifier()
restored.load_state_dict(torch.load(path))
model.eval()
restored.eval()
print("trained", model(ids))
print("restored", restored(ids))
print("moving mean", restored.bn.running_mean.tolist())
