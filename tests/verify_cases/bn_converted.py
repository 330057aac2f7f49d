import mindspore
import numpy as np
from mindspore import nn

rng = np.random.default_rng(4)
batches = [
    mindspore.Tensor(rng.standard_normal((8, 3)) * 2 + 1, dtype=mindspore.float32)
    for _ in range(3)
]
norm = nn.BatchNorm1d(3, momentum=0.9)
norm.set_train(True)
for step, batch in enumerate(batches):
    out = norm(batch)
    print("step", step, "out", out.sum().item())
norm.set_train(False)
print("eval", norm(batches[0])[:2])
