"""A one-block causal self-attention language model: embeddings, layer norm, a buffer, AdamW."""

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class SelfAttention(nn.Module):
    def __init__(self, dim, context):
        super().__init__()
        self.query = nn.Linear(dim, dim)
        self.key = nn.Linear(dim, dim, bias=False)
        self.value = nn.Linear(dim, dim)
        self.proj = nn.Linear(dim, dim)
        self.register_buffer("mask", torch.tril(torch.ones(context, context)))
        self.scale = dim ** -0.5

    def forward(self, x):
        t = x.shape[1]
        scores = torch.matmul(self.query(x), self.key(x).transpose(1, 2)) * self.scale
        scores = scores.masked_fill(self.mask[:t, :t] == 0, -1e9)
        weights = F.softmax(scores, dim=-1)
        return self.proj(torch.matmul(weights, self.value(x)))


class TinyLM(nn.Module):
    def __init__(self, vocab=11, dim=8, context=5):
        super().__init__()
        self.tokens = nn.Embedding(vocab, dim)
        self.positions = nn.Parameter(torch.zeros(1, context, dim))
        self.norm1 = nn.LayerNorm(dim)
        self.attn = SelfAttention(dim, context)
        self.norm2 = nn.LayerNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 2 * dim), nn.Tanh(), nn.Linear(2 * dim, dim))
        self.head = nn.Linear(dim, vocab)

    def forward(self, ids):
        x = self.tokens(ids) + self.positions[:, : ids.shape[1]]
        x = x + self.attn(self.norm1(x))
        x = x + self.mlp(self.norm2(x))
        return self.head(x)


torch.manual_seed(0)
rng = np.random.default_rng(0)
ids = torch.tensor(rng.integers(0, 11, size=(3, 5)), dtype=torch.int64)
targets = torch.tensor(rng.integers(0, 11, size=(3, 5)), dtype=torch.int64)

model = TinyLM()
optimizer = torch.optim.AdamW(model.parameters(), lr=0.01, weight_decay=0.1)
for step in range(4):
    optimizer.zero_grad()
    logits = model(ids)
    loss = F.cross_entropy(logits.reshape(-1, 11), targets.reshape(-1))
    loss.backward()
    optimizer.step()
    print("loss", loss.item())

print("norm gamma", model.norm1.weight.tolist())
print("token row", model.tokens.weight[3].tolist())

model.eval()
with torch.no_grad():
    print("eval logits", model(ids)[0])
