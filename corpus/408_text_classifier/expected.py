"""Bag-of-embeddings text classifier: Embedding, LayerNorm, mean pooling, AdamW."""

import numpy as np
import mindspore
from mindspore import nn, ops
from mindspore.experimental import optim

VOCAB, DIM, CLASSES = 20, 6, 3


class BagClassifier(nn.Cell):
    def __init__(self):
        super().__init__()
        self.embedding = nn.Embedding(VOCAB, DIM, embedding_table=mindspore.common.initializer.Normal(1.0))
        self.norm = nn.LayerNorm((DIM,), epsilon=1e-05)
        self.head = nn.Dense(DIM, CLASSES)

    def construct(self, tokens):
        embedded = self.embedding(tokens)
        pooled = embedded.mean(dim=1)
        return self.head(self.norm(pooled))


rng = np.random.default_rng(9)
tokens = mindspore.tensor(rng.integers(0, VOCAB, size=(12, 5)), dtype=mindspore.int64)
labels = mindspore.tensor(rng.integers(0, CLASSES, size=12), dtype=mindspore.int64)

mindspore.set_seed(0)
classifier = BagClassifier()
optimizer = optim.AdamW(classifier.trainable_params(), lr=0.05, weight_decay=0.01)
def forward_fn():
    logits = classifier(tokens)
    loss = ops.cross_entropy(logits, labels, label_smoothing=0.1)
    return loss, logits
grad_fn = mindspore.value_and_grad(forward_fn, None, optimizer.parameters, has_aux=True)
for epoch in range(3):
    (loss, logits), grads = grad_fn()
    optimizer(grads)
    accuracy = (logits.argmax(dim=1) == labels).float().mean()
    print("epoch", epoch, "loss", loss.item(), "accuracy", accuracy.item())
print("embedding norm", ops.stop_gradient(classifier.embedding.embedding_table).norm().item())
print("layer norm scale", ops.stop_gradient(classifier.norm.gamma).asnumpy())
