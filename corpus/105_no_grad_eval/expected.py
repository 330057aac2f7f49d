# Evaluation code under no_grad / inference_mode, and a decorated helper.
import numpy as np
import mindspore
from mindspore import ops

weights = mindspore.tensor(np.array([[0.2, -0.1], [0.4, 0.3]], dtype=np.float32))


def predict(batch):
    return ops.relu(batch @ weights)


def evaluate(batches):
    total = 0.0
    for batch in batches:
        # the score of one batch
        total += predict(batch).sum().item()
    return total


data = [mindspore.tensor(np.array([[1.0, 2.0], [3.0, -4.0]], dtype=np.float32)) * k for k in range(1, 4)]
print("score", evaluate(data))
first = predict(data[0])
print("first", first)
