# A hook on an intermediate tensor moves into the differentiated function (TM913 note):
# MindSpore's Tensor.register_hook fires there in PyNative mode.
import mindspore


def report(grad):
    print("hook grad", grad)


def scaled_square(x):
    def loss_fn(x):
        hidden = x * 3
        # torch2ms: TM913 `register_hook` moved into the differentiated function (PyNative `Tensor.register_hook`)
        hidden.register_hook(report)
        loss = (hidden * hidden).sum()
        return loss
    x_grad = mindspore.grad(loss_fn, grad_position=0)(x)
    return x_grad


print("x.grad", scaled_square(mindspore.tensor([1.0, -2.0])))
