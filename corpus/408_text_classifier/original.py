"""Bag-of-embeddings text classifier: Embedding, LayerNorm, mean pooling, AdamW."""

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

VOCAB, DIM, CLASSES = 20, 6, 3


class BagClassifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.embedding = nn.Embedding(VOCAB, DIM)
        self.norm = nn.LayerNorm(DIM)
        self.head = nn.Linear(DIM, CLASSES)

    def forward(self, tokens):
        embedded = self.embedding(tokens)
        pooled = embedded.mean(dim=1)
        return self.head(self.norm(pooled))


rng = np.random.default_rng(9)
tokens = torch.tensor(rng.integers(0, VOCAB, size=(12, 5)), dtype=torch.int64)
labels = torch.tensor(rng.integers(0, CLASSES, size=12), dtype=torch.int64)

torch.manual_seed(0)
classifier = BagClassifier()
optimizer = torch.optim.AdamW(classifier.parameters(), lr=0.05, weight_decay=0.01)
for epoch in range(3):
    logits = classifier(tokens)
    loss = F.cross_entropy(logits, labels, label_smoothing=0.1)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    accuracy = (logits.argmax(dim=1) == labels).float().mean()
    print("epoch", epoch, "loss", loss.item(), "accuracy", accuracy.item())
print("embedding norm", classifier.embedding.weight.detach().norm().item())
print("layer norm scale", classifier.norm.weight.detach().numpy())
