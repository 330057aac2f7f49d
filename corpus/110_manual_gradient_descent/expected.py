# Linear regression by hand: backward, an update under no_grad, and zeroed gradients.
import numpy as np
import mindspore
from mindspore import ops

X = mindspore.tensor(np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], dtype=np.float32))
y = mindspore.tensor(np.array([1.0, 2.0, 3.0], dtype=np.float32))
w = ops.zeros(2)
b = ops.zeros(1)
lr = 0.01
def loss_fn(w, b):
    pred = X @ w + b
    loss = ((pred - y) ** 2).mean()
    return loss
for epoch in range(5):
    loss, (w_grad, b_grad) = mindspore.value_and_grad(loss_fn, grad_position=(0, 1))(w, b)
    w -= lr * w_grad
    b -= lr * b_grad
    print("epoch", epoch, "loss", loss.item())
print("w", w)
print("b", b)
