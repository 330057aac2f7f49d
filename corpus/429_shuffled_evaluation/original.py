"""Evaluation over a shuffled DataLoader: totals do not depend on the order of the batches."""

import numpy as np
import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset


class ArrayDataset(Dataset):
    def __init__(self, features, labels):
        self.features = features
        self.labels = labels

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, index):
        return self.features[index], self.labels[index]


rng = np.random.default_rng(29)
features = rng.standard_normal((24, 5)).astype(np.float32)
labels = rng.integers(0, 3, size=24).astype(np.int64)
loader = DataLoader(ArrayDataset(features, labels), batch_size=6, shuffle=True)



def evaluate(model, loader):
    model.eval()
    total_loss = 0.0
    correct = 0
    with torch.no_grad():
        for inputs, targets in loader:
            logits = model(inputs)
            total_loss += nn.functional.cross_entropy(logits, targets, reduction="sum").item()
            correct += (logits.argmax(dim=1) == targets).sum().item()
    return total_loss, correct


torch.manual_seed(0)
model = nn.Linear(5, 3)
total_loss, correct = evaluate(model, loader)
print("total loss", total_loss, "correct", correct)
