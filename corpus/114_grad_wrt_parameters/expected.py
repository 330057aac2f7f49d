# torch.autograd.grad with respect to a module's parameters (as in meta-learning inner steps):
# MindSpore's grad with grad_position=None and weights returns one gradient per parameter.
import mindspore
from mindspore import nn


def parameter_grads(model, x, y):
    def loss_fn():
        loss = ((model(x) - y) ** 2).mean()
        return loss
    loss, loss_grads = mindspore.value_and_grad(loss_fn, grad_position=None, weights=model.trainable_params())()
    grads = loss_grads
    return loss, grads


model = nn.Dense(2, 1)
model.weight.set_data(mindspore.tensor([[0.5, -0.25]]))
model.bias.set_data(mindspore.tensor([0.1]))
x = mindspore.tensor([[1.0, 2.0], [3.0, -1.0], [0.5, 0.5]])
y = mindspore.tensor([[1.0], [0.0], [2.0]])
loss, (g_weight, g_bias) = parameter_grads(model, x, y)
print("loss", loss)
print("grad weight", g_weight)
print("grad bias", g_bias)
