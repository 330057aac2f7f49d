"""Train a small classifier on fixed batches: the device idiom, in-place init, number formats."""

import argparse

import numpy as np
import torch
import torch.nn.functional as F
import torch.utils.checkpoint
from torch import nn


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.hidden = nn.Linear(4, 6)
        self.out = nn.Linear(6, 3)
        self._init_weights()

    def _init_weights(self):
        with torch.no_grad():
            self.hidden.weight.copy_(torch.linspace(-0.6, 0.6, 24).reshape(6, 4))
            self.hidden.bias.zero_()
            self.out.weight.data.copy_(torch.linspace(0.5, -0.5, 18).reshape(3, 6))
            self.out.bias.fill_(0.1)

    def forward(self, x):
        with torch.autocast(device_type="cuda", enabled=False):
            h = torch.utils.checkpoint.checkpoint(self.hidden, x, use_reentrant=False)
        return F.log_softmax(self.out(F.relu(h)), dim=1)


def train(model, device, batches, optimizer, epoch):
    model.train()
    for step, (data, target) in enumerate(batches):
        data, target = data.to(device), target.to(device, non_blocking=True)
        optimizer.zero_grad()
        loss = F.nll_loss(model(data), target)
        loss.backward()
        optimizer.step()
        print(f"epoch {epoch} step {step} loss {loss:.6f}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--no-accel", action="store_true")
    args = parser.parse_args()
    use_accel = not args.no_accel and torch.accelerator.is_available()
    if use_accel:
        device = torch.accelerator.current_accelerator()
    else:
        device = torch.device("cpu")
    loader_options = {"batch_size": 5}
    if use_accel:
        loader_options.update({"num_workers": 1, "pin_memory": True})
    model = Classifier().to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
    rng = np.random.default_rng(7)
    batches = [
        (
            torch.tensor(rng.standard_normal((5, 4)), dtype=torch.float32),
            torch.tensor(rng.integers(0, 3, 5)),
        )
        for _ in range(2)
    ]
    for epoch in range(1, 3):
        train(model, device, batches, optimizer, epoch)
    total = torch.sum(model.hidden.weight * model.hidden.weight)
    eps = torch.finfo(torch.float32).eps
    rank = torch.distributed.get_rank() if torch.distributed.is_initialized() else 0
    print(f"weight sum {total:.5f} eps {eps:.3e} rank {rank}")


if __name__ == "__main__":
    main()
