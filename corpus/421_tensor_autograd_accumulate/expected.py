"""Tensor-level autograd in a helper: two backwards accumulate into .grad until it is reset."""

import mindspore


def fit_line(xs, ys, steps, lr):
    w = mindspore.tensor(0.5)
    b = mindspore.tensor(0.0)
    def loss_fn(w, b):
        prediction = w * xs + b
        loss = ((prediction - ys) ** 2).mean()
        return loss
    def regulariser_fn(w):
        regulariser = 0.1 * w**2
        return regulariser
    for _ in range(steps):
        regulariser = 0.1 * w**2
        loss, (w_grad, b_grad) = mindspore.value_and_grad(loss_fn, grad_position=(0, 1))(w, b)
        w_grad_new = mindspore.grad(regulariser_fn, grad_position=0)(w)
        w_grad = w_grad + w_grad_new
        w -= lr * w_grad
        b -= lr * b_grad
    return w, b, loss


xs = mindspore.tensor([0.0, 1.0, 2.0, 3.0])
ys = mindspore.tensor([1.0, 2.9, 5.1, 7.0])
w, b, loss = fit_line(xs, ys, steps=20, lr=0.05)
print("w", w.item(), "b", b.item(), "loss", loss.item())
