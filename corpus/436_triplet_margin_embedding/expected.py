"""Metric learning: an embedding network trained with a triplet margin loss on (anchor, positive, negative)."""

import numpy as np
import mindspore
from mindspore import nn, ops
from mindspore.experimental import optim
import ms_aux


class EmbeddingNet(nn.Cell):
    def __init__(self, in_features, dim):
        super().__init__()
        self.fc1 = nn.Dense(in_features, 16)
        self.fc2 = nn.Dense(16, dim)

    def construct(self, x):
        return ms_aux.normalize(self.fc2(ops.relu(self.fc1(x))), dim=1)


rng = np.random.default_rng(36)
anchors = mindspore.tensor(rng.standard_normal((8, 6)), dtype=mindspore.float32)
positives = anchors + 0.1 * mindspore.tensor(rng.standard_normal((8, 6)), dtype=mindspore.float32)
negatives = mindspore.tensor(rng.standard_normal((8, 6)), dtype=mindspore.float32)

mindspore.set_seed(0)
model = EmbeddingNet(6, 4)
criterion = ms_aux.TripletMarginLoss(margin=1.0, p=2)
optimizer = optim.Adam(model.trainable_params(), lr=0.01)
def forward_fn():
    loss = criterion(model(anchors), model(positives), model(negatives))
    return loss
grad_fn = mindspore.value_and_grad(forward_fn, None, optimizer.parameters)
for step in range(3):
    loss, grads = grad_fn()
    optimizer(grads)
    print("step", step, "loss", loss.item())
