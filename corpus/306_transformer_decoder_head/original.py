"""A query-based classification head: learned queries attend to image tokens through a stack of
decoder layers (the ML-Decoder pattern), evaluated on a fixed batch."""

from typing import Optional

import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor, nn
from torch.nn.modules.transformer import _get_activation_fn


class QueryDecoderLayer(nn.Module):
    def __init__(self, width, heads=4, hidden=32, dropout=0.1, activation="gelu"):
        super().__init__()
        self.self_attn = nn.MultiheadAttention(width, heads, dropout=dropout)
        self.multihead_attn = nn.MultiheadAttention(width, heads, dropout=dropout)
        self.linear1 = nn.Linear(width, hidden)
        self.linear2 = nn.Linear(hidden, width)
        self.norm1 = nn.LayerNorm(width)
        self.norm2 = nn.LayerNorm(width)
        self.norm3 = nn.LayerNorm(width)
        self.dropout = nn.Dropout(dropout)
        self.activation = _get_activation_fn(activation)

    def __setstate__(self, state):
        if "activation" not in state:
            state["activation"] = F.relu
        super().__setstate__(state)

    def forward(self, tgt: Tensor, memory: Tensor, tgt_mask: Optional[Tensor] = None,
                memory_mask: Optional[Tensor] = None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, tgt_is_causal=False, memory_is_causal=False):
        tgt = self.norm1(tgt + self.self_attn(tgt, tgt, tgt, attn_mask=tgt_mask)[0])
        attended, _ = self.multihead_attn(
            tgt, memory, memory, key_padding_mask=memory_key_padding_mask
        )
        tgt = self.norm2(tgt + attended)
        return self.norm3(tgt + self.linear2(self.dropout(self.activation(self.linear1(tgt)))))


class QueryHead(nn.Module):
    def __init__(self, features, classes, width=16, queries=5):
        super().__init__()
        self.embed = nn.Linear(features, width)
        self.decoder = nn.TransformerDecoder(QueryDecoderLayer(width), num_layers=2)
        self.queries = nn.Embedding(queries, width)
        self.classifier = nn.Linear(queries * width, classes)

    def forward(self, x, padding=None):
        tokens = self.embed(x.flatten(2).transpose(1, 2))
        tokens = F.relu(tokens, inplace=True)
        queries = self.queries.weight.unsqueeze(1).expand(-1, tokens.shape[0], -1)
        h = self.decoder(queries, tokens.transpose(0, 1), memory_key_padding_mask=padding)
        return self.classifier(h.transpose(0, 1).flatten(1))


torch.manual_seed(0)
model = QueryHead(features=8, classes=3)
model.eval()
rng = np.random.default_rng(0)
images = torch.tensor(rng.standard_normal((2, 8, 3, 3)).astype(np.float32))
padding = torch.zeros(2, 9, dtype=torch.bool)
padding[1, 6:] = True
logits = model(images, padding)
print("logits", logits.detach().numpy().round(5).tolist())
print("plain logits", model(images).detach().numpy().round(5).tolist())
