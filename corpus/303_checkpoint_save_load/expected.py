"""Save a trained model's state_dict, load it into a fresh model, and check they agree."""

import os
import tempfile

import numpy as np
import mindspore
from mindspore import nn, ops
from mindspore.experimental import optim
import ms_aux


class Classifier(nn.Cell):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(6, 4, embedding_table=mindspore.common.initializer.Normal(1.0))
        self.norm = nn.LayerNorm((4,), epsilon=1e-05)
        self.bn = nn.BatchNorm1d(4)
        self.head = nn.Dense(4, 3)
        self.offset = mindspore.Parameter(ops.ones(3) * 0.5, requires_grad=False)

    def construct(self, ids):
        h = self.norm(self.embed(ids).mean(1))
        return self.head(self.bn(h)) + self.offset


mindspore.set_seed(0)
rng = np.random.default_rng(0)
ids = mindspore.tensor(rng.integers(0, 6, size=(5, 3)), dtype=mindspore.int64)
targets = mindspore.tensor(rng.integers(0, 3, size=5), dtype=mindspore.int64)

model = Classifier()
model.set_train()
criterion = nn.NLLLoss()
optimizer = optim.SGD(model.trainable_params(), lr=0.2)
def forward_fn():
    loss = criterion(ms_aux.log_softmax(model(ids), dim=1), targets)
    return loss
grad_fn = mindspore.value_and_grad(forward_fn, None, optimizer.parameters)
for step in range(2):
    loss, grads = grad_fn()
    optimizer(grads)
    print("loss", loss.item())

path = os.path.join(tempfile.mkdtemp(), "classifier.pt")
ms_aux.save(ms_aux.state_dict(model), path)

restored = Classifier()
restored.set_train()
ms_aux.load_state_dict(restored, ms_aux.load(path))
model.set_train(False)
restored.set_train(False)
print("trained", model(ids))
print("restored", restored(ids))
print("moving mean", restored.bn.moving_mean.tolist())
