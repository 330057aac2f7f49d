"""mnist-style script: train() and test() functions called from main(), loss.item() logging."""

import argparse

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim


class Net(nn.Module):
    def __init__(self):
        super(Net, self).__init__()
        self.fc1 = nn.Linear(12, 16)
        self.fc2 = nn.Linear(16, 4)

    def forward(self, x):
        x = F.relu(self.fc1(x))
        x = self.fc2(x)
        return F.log_softmax(x, dim=1)


def init_weights(model, rng):
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(torch.tensor(rng.standard_normal(tuple(p.shape)) * 0.3, dtype=torch.float32))


def train(args, model, device, train_loader, optimizer, epoch):
    model.train()
    for batch_idx, (data, target) in enumerate(train_loader):
        data, target = data.to(device), target.to(device)
        optimizer.zero_grad()
        output = model(data)
        loss = F.nll_loss(output, target)
        loss.backward()
        optimizer.step()
        if batch_idx % args.log_interval == 0:
            print("train epoch", epoch, "batch", batch_idx, "loss", loss.item())


def test(model, device, test_loader):
    model.eval()
    test_loss = 0
    with torch.no_grad():
        for data, target in test_loader:
            data, target = data.to(device), target.to(device)
            output = model(data)
            test_loss += F.nll_loss(output, target, reduction="sum").item()
    print("test loss", test_loss)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--lr", type=float, default=0.1)
    parser.add_argument("--log-interval", type=int, default=1)
    args = parser.parse_args([])
    device = "cpu"
    rng = np.random.default_rng(10)
    batches = [
        (torch.tensor(rng.standard_normal((8, 12)), dtype=torch.float32), torch.tensor(rng.integers(0, 4, size=8), dtype=torch.int64))
        for _ in range(6)
    ]
    model = Net()
    init_weights(model, rng)
    optimizer = optim.SGD(model.parameters(), lr=args.lr, momentum=0.5)
    for epoch in range(1, args.epochs + 1):
        train(args, model, device, batches[:4], optimizer, epoch)
        test(model, device, batches[4:])
    print("final", [p.sum().item() for p in model.parameters()])


if __name__ == "__main__":
    main()
