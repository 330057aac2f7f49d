"""A one-block causal self-attention language model: embeddings, layer norm, a buffer, AdamW."""

import numpy as np
import mindspore
from mindspore import nn, ops
from mindspore.experimental import optim


class SelfAttention(nn.Cell):
    def __init__(self, dim, context):
        super().__init__()
        self.query = nn.Dense(dim, dim)
        self.key = nn.Dense(dim, dim, has_bias=False)
        self.value = nn.Dense(dim, dim)
        self.proj = nn.Dense(dim, dim)
        self.mask = mindspore.Parameter(ops.tril(ops.ones((context, context))), requires_grad=False)
        self.scale = dim ** -0.5

    def construct(self, x):
        t = x.shape[1]
        scores = ops.matmul(self.query(x), self.key(x).transpose(1, 2)) * self.scale
        scores = scores.masked_fill(self.mask[:t, :t] == 0, -1e9)
        weights = ops.softmax(scores, axis=-1)
        return self.proj(ops.matmul(weights, self.value(x)))


class TinyLM(nn.Cell):
    def __init__(self, vocab=11, dim=8, context=5):
        super().__init__()
        self.tokens = nn.Embedding(vocab, dim, embedding_table=mindspore.common.initializer.Normal(1.0))
        self.positions = mindspore.Parameter(ops.zeros((1, context, dim)))
        self.norm1 = nn.LayerNorm((dim,), epsilon=1e-05)
        self.attn = SelfAttention(dim, context)
        self.norm2 = nn.LayerNorm((dim,), epsilon=1e-05)
        self.mlp = nn.SequentialCell(nn.Dense(dim, 2 * dim), nn.Tanh(), nn.Dense(2 * dim, dim))
        self.head = nn.Dense(dim, vocab)

    def construct(self, ids):
        x = self.tokens(ids) + self.positions[:, : ids.shape[1]]
        x = x + self.attn(self.norm1(x))
        x = x + self.mlp(self.norm2(x))
        return self.head(x)


mindspore.set_seed(0)
rng = np.random.default_rng(0)
ids = mindspore.tensor(rng.integers(0, 11, size=(3, 5)), dtype=mindspore.int64)
targets = mindspore.tensor(rng.integers(0, 11, size=(3, 5)), dtype=mindspore.int64)

model = TinyLM()
optimizer = optim.AdamW(model.trainable_params(), lr=0.01, weight_decay=0.1)
def forward_fn():
    logits = model(ids)
    loss = ops.cross_entropy(logits.reshape(-1, 11), targets.reshape(-1))
    return loss
grad_fn = mindspore.value_and_grad(forward_fn, None, optimizer.parameters)
for step in range(4):
    loss, grads = grad_fn()
    optimizer(grads)
    print("loss", loss.item())

print("norm gamma", model.norm1.gamma.tolist())
print("token row", model.tokens.embedding_table[3].tolist())

model.set_train(False)
print("eval logits", model(ids)[0])
