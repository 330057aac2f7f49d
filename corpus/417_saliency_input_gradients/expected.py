"""Saliency: the gradient of the top class score with respect to the input of a trained model."""

import numpy as np
import mindspore
from mindspore import nn

rng = np.random.default_rng(19)
mindspore.set_seed(0)
model = nn.SequentialCell(nn.Dense(6, 10), nn.ReLU(), nn.Dense(10, 3))
model.set_train(False)


def saliency(model, sample):
    sample = sample.copy()
    def forward_fn(sample):
        scores = model(sample)
        top = scores.argmax(dim=1)
        return scores.gather(1, top.view(-1, 1)).sum()
    sample_grad = mindspore.grad(forward_fn, grad_position=0)(sample)
    return sample_grad.abs()


sample = mindspore.tensor(rng.standard_normal((2, 6)), dtype=mindspore.float32)
saliency_map = saliency(model, sample)
print("saliency", saliency_map.asnumpy())
print("most salient feature", saliency_map.argmax(dim=1).tolist())
