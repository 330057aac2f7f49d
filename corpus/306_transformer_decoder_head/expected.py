"""A query-based classification head: learned queries attend to image tokens through a stack of
decoder layers (the ML-Decoder pattern), evaluated on a fixed batch."""

from typing import Optional

import numpy as np
import mindspore
from mindspore import nn, ops
import ms_aux


class QueryDecoderLayer(nn.Cell):
    def __init__(self, width, heads=4, hidden=32, dropout=0.1, activation="gelu"):
        super().__init__()
        self.self_attn = ms_aux.MultiheadAttention(width, heads, dropout=dropout)
        self.multihead_attn = ms_aux.MultiheadAttention(width, heads, dropout=dropout)
        self.linear1 = nn.Dense(width, hidden)
        self.linear2 = nn.Dense(hidden, width)
        self.norm1 = nn.LayerNorm((width,), epsilon=1e-05)
        self.norm2 = nn.LayerNorm((width,), epsilon=1e-05)
        self.norm3 = nn.LayerNorm((width,), epsilon=1e-05)
        self.dropout = nn.Dropout(p=dropout)
        self.activation = ms_aux._get_activation_fn(activation)

    def __setstate__(self, state):
        cell_state, state = state
        if "activation" not in state:
            state["activation"] = ms_aux.relu
        super().__setstate__((cell_state, state))

    def construct(self, tgt: mindspore.Tensor, memory: mindspore.Tensor, tgt_mask: Optional[mindspore.Tensor] = None,
                memory_mask: Optional[mindspore.Tensor] = None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, tgt_is_causal=False, memory_is_causal=False):
        tgt = self.norm1(tgt + self.self_attn(tgt, tgt, tgt, attn_mask=tgt_mask)[0])
        attended, _ = self.multihead_attn(
            tgt, memory, memory, key_padding_mask=memory_key_padding_mask
        )
        tgt = self.norm2(tgt + attended)
        return self.norm3(tgt + self.linear2(self.dropout(self.activation(self.linear1(tgt)))))


class QueryHead(nn.Cell):
    def __init__(self, features, classes, width=16, queries=5):
        super().__init__()
        self.embed = nn.Dense(features, width)
        self.decoder = ms_aux.TransformerDecoder(QueryDecoderLayer(width), num_layers=2)
        self.queries = nn.Embedding(queries, width, embedding_table=mindspore.common.initializer.Normal(1.0))
        self.classifier = nn.Dense(queries * width, classes)

    def construct(self, x, padding=None):
        tokens = self.embed(x.flatten(2).transpose(1, 2))
        tokens = ops.relu(tokens)
        queries = self.queries.embedding_table.unsqueeze(1).expand(-1, tokens.shape[0], -1)
        h = self.decoder(queries, tokens.transpose(0, 1), memory_key_padding_mask=padding)
        return self.classifier(h.transpose(0, 1).flatten(1))


mindspore.set_seed(0)
model = QueryHead(features=8, classes=3)
model.set_train(False)
rng = np.random.default_rng(0)
images = mindspore.tensor(rng.standard_normal((2, 8, 3, 3)).astype(np.float32))
padding = ops.zeros((2, 9), dtype=mindspore.bool_)
padding[1, 6:] = True
logits = model(images, padding)
print("logits", ops.stop_gradient(logits).asnumpy().round(5).tolist())
print("plain logits", ops.stop_gradient(model(images)).asnumpy().round(5).tolist())
