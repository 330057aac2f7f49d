# Parameters set through .data (a common initialisation idiom), then a gradient with respect
# to the input of the layer.
import mindspore
from mindspore import nn


def build():
    layer = nn.Dense(2, 1)
    layer.weight.set_data(mindspore.tensor([[0.5, -1.0]]))
    layer.bias.set_data(mindspore.tensor([0.25]))
    return layer


layer = build()
x = mindspore.tensor([[1.0, 2.0], [3.0, 4.0]])
def out_fn(x):
    out = layer(x).sum()
    return out
out, x_grad = mindspore.value_and_grad(out_fn, grad_position=0)(x)
print("out", out)
print("x.grad", x_grad)
