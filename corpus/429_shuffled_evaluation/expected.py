"""Evaluation over a shuffled DataLoader: totals do not depend on the order of the batches."""

import numpy as np
import mindspore
import mindspore.dataset as ds
from mindspore import nn, ops


class ArrayDataset:
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
# torch2ms: TM935 the shuffled order comes from MindSpore's generator, not torch's
loader = ds.GeneratorDataset(ArrayDataset(features, labels), column_names=["data", "label"], shuffle=True).batch(6)



def evaluate(model, loader):
    model.set_train(False)
    total_loss = 0.0
    correct = 0
    for inputs, targets in loader:
        logits = model(inputs)
        total_loss += ops.cross_entropy(logits, targets, reduction="sum").item()
        correct += (logits.argmax(dim=1) == targets).sum().item()
    return total_loss, correct


mindspore.set_seed(0)
model = nn.Dense(5, 3)
total_loss, correct = evaluate(model, loader)
print("total loss", total_loss, "correct", correct)
