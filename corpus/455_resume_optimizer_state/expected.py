"""Training resumed from a checkpoint, as training scripts do it: the model's, the optimizers' and
the scheduler's state saved in one bundle, read back into freshly built ones, and training
continued. torch's optimizer layout is read by key (a group's learning rate, the per-parameter
step and moments, the scheduler's epoch)."""

import numpy as np
import mindspore
from mindspore import nn, ops
from mindspore.experimental import optim
import ms_aux


class Regressor(nn.Cell):
    def __init__(self):
        super().__init__()
        self.hidden = nn.Dense(3, 5)
        self.out = nn.Dense(5, 1)

    def construct(self, x):
        return self.out(ops.tanh(self.hidden(x)))


rng = np.random.default_rng(7)
x = mindspore.tensor(rng.standard_normal((16, 3)), dtype=mindspore.float32)
y = mindspore.tensor(rng.standard_normal((16, 1)), dtype=mindspore.float32)


def build():
    mindspore.set_seed(0)
    model = Regressor()
    head = nn.Dense(3, 1)
    # torch2ms: TM932 `.parameters()` converted on a receiver taken to be a Module from its name
    adam = optim.AdamW(model.trainable_params(), lr=0.05, weight_decay=0.01)
    sgd = optim.SGD(
        [{"params": head.weight}, {"params": head.bias, "lr": 0.02}],
        lr=0.1,
        momentum=0.9,
    )
    scheduler = optim.lr_scheduler.StepLR(adam, step_size=2, gamma=0.5)
    return model, head, adam, sgd, scheduler


def train(model, head, adam, sgd, scheduler, steps, tag):
    def forward_fn():
        loss = ops.mse_loss(model(x), y) + ops.mse_loss(head(x), y)
        return loss
    grad_fn = mindspore.value_and_grad(forward_fn, None, adam.parameters + sgd.parameters)
    for step in range(steps):
        loss, grads = grad_fn()
        grads_adam = grads[:len(adam.parameters)]
        grads_sgd = grads[len(adam.parameters):]
        adam(grads_adam)
        sgd(grads_sgd)
        scheduler.step()
        print(tag, step, "loss", loss.item())


model, head, adam, sgd, scheduler = build()
train(model, head, adam, sgd, scheduler, 3, "first")
# torch2ms: TM932 `.state_dict()` converted on a receiver taken to be a Module from its name
ms_aux.save(
    {"epoch": 3, "model": ms_aux.state_dict(model), "head": ms_aux.state_dict(head), "adam": ms_aux.state_dict(adam), "sgd": ms_aux.state_dict(sgd), "scheduler": ms_aux.state_dict(scheduler)},
    "resume_checkpoint.pt",
)

model, head, adam, sgd, scheduler = build()
checkpoint = ms_aux.load("resume_checkpoint.pt")
ms_aux.load_state_dict(model, checkpoint["model"])
ms_aux.load_state_dict(head, checkpoint["head"])
ms_aux.load_state_dict(adam, checkpoint["adam"])
ms_aux.load_state_dict(sgd, checkpoint["sgd"])
ms_aux.load_state_dict(scheduler, checkpoint["scheduler"])
saved = checkpoint["adam"]
print("adam lr", saved["param_groups"][0]["lr"], "params", saved["param_groups"][0]["params"])
print("adam step", float(saved["state"][0]["step"]))
print("adam moments", sorted(saved["state"][1]), saved["state"][1]["exp_avg"].sum().item())
print("scheduler epoch", checkpoint["scheduler"]["last_epoch"], "last lr", checkpoint["scheduler"]["_last_lr"])
print("sgd lrs", [group["lr"] for group in checkpoint["sgd"]["param_groups"]])
print("sgd momentum", checkpoint["sgd"]["state"][1]["momentum_buffer"].sum().item())
train(model, head, adam, sgd, scheduler, 3, "resumed")
# torch2ms: TM932 `.parameters()` converted on a receiver taken to be a Module from its name
print("final", [p.sum().item() for p in model.trainable_params()], head.weight.sum().item())
print("resumed adam step", float(ms_aux.state_dict(adam)["state"][0]["step"]))
