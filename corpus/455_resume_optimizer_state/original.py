"""Training resumed from a checkpoint, as training scripts do it: the model's, the optimizers' and
the scheduler's state saved in one bundle, read back into freshly built ones, and training
continued. torch's optimizer layout is read by key (a group's learning rate, the per-parameter
step and moments, the scheduler's epoch)."""

import numpy as np
import torch
from torch import nn


class Regressor(nn.Module):
    def __init__(self):
        super().__init__()
        self.hidden = nn.Linear(3, 5)
        self.out = nn.Linear(5, 1)

    def forward(self, x):
        return self.out(torch.tanh(self.hidden(x)))


rng = np.random.default_rng(7)
x = torch.tensor(rng.standard_normal((16, 3)), dtype=torch.float32)
y = torch.tensor(rng.standard_normal((16, 1)), dtype=torch.float32)


def build():
    torch.manual_seed(0)
    model = Regressor()
    head = nn.Linear(3, 1)
    adam = torch.optim.AdamW(model.parameters(), lr=0.05, weight_decay=0.01)
    sgd = torch.optim.SGD(
        [{"params": head.weight}, {"params": head.bias, "lr": 0.02}],
        lr=0.1,
        momentum=0.9,
    )
    scheduler = torch.optim.lr_scheduler.StepLR(adam, step_size=2, gamma=0.5)
    return model, head, adam, sgd, scheduler


def train(model, head, adam, sgd, scheduler, steps, tag):
    for step in range(steps):
        adam.zero_grad()
        sgd.zero_grad()
        loss = nn.functional.mse_loss(model(x), y) + nn.functional.mse_loss(head(x), y)
        loss.backward()
        adam.step()
        sgd.step()
        scheduler.step()
        print(tag, step, "loss", loss.item())


model, head, adam, sgd, scheduler = build()
train(model, head, adam, sgd, scheduler, 3, "first")
torch.save(
    {"epoch": 3, "model": model.state_dict(), "head": head.state_dict(), "adam": adam.state_dict(), "sgd": sgd.state_dict(), "scheduler": scheduler.state_dict()},
    "resume_checkpoint.pt",
)

model, head, adam, sgd, scheduler = build()
checkpoint = torch.load("resume_checkpoint.pt")
model.load_state_dict(checkpoint["model"])
head.load_state_dict(checkpoint["head"])
adam.load_state_dict(checkpoint["adam"])
sgd.load_state_dict(checkpoint["sgd"])
scheduler.load_state_dict(checkpoint["scheduler"])
saved = checkpoint["adam"]
print("adam lr", saved["param_groups"][0]["lr"], "params", saved["param_groups"][0]["params"])
print("adam step", float(saved["state"][0]["step"]))
print("adam moments", sorted(saved["state"][1]), saved["state"][1]["exp_avg"].sum().item())
print("scheduler epoch", checkpoint["scheduler"]["last_epoch"], "last lr", checkpoint["scheduler"]["_last_lr"])
print("sgd lrs", [group["lr"] for group in checkpoint["sgd"]["param_groups"]])
print("sgd momentum", checkpoint["sgd"]["state"][1]["momentum_buffer"].sum().item())
train(model, head, adam, sgd, scheduler, 3, "resumed")
print("final", [p.sum().item() for p in model.parameters()], head.weight.sum().item())
print("resumed adam step", float(adam.state_dict()["state"][0]["step"]))
