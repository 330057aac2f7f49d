"""Scores gathered at flat indices with torch.take (a retrieval step picking ranked items)."""

import torch

scores = torch.arange(12, dtype=torch.float32).reshape(3, 4)
ranked = torch.tensor([0, 5, 11])
picked = torch.take(scores, ranked)
print("picked", picked.sum().item())
