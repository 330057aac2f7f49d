"""MNIST-style training script: a model class, train() and test() functions, a main()."""

import argparse

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim


class Net(nn.Module):
    def __init__(self):
        super(Net, self).__init__()
        self.fc1 = nn.Linear(16, 32)
        self.fc2 = nn.Linear(32, 10)

    def forward(self, x):
        x = torch.flatten(x, 1)
        x = F.relu(self.fc1(x))
        x = self.fc2(x)
        return F.log_softmax(x, dim=1)


def make_batches(rng, n_batches, batch_size):
    batches = []
    for _ in range(n_batches):
        data = torch.tensor(rng.standard_normal((batch_size, 1, 4, 4)), dtype=torch.float32)
        target = torch.tensor(rng.integers(0, 10, size=batch_size), dtype=torch.int64)
        batches.append((data, target))
    return batches


def train(args, model, train_loader, optimizer, epoch):
    model.train()
    for batch_idx, (data, target) in enumerate(train_loader):
        optimizer.zero_grad()
        output = model(data)
        loss = F.nll_loss(output, target)
        loss.backward()
        optimizer.step()
        if batch_idx % args.log_interval == 0:
            print("train epoch", epoch, "batch", batch_idx, "loss", loss.item())


def test(model, test_loader):
    model.eval()
    test_loss = 0
    correct = 0
    with torch.no_grad():
        for data, target in test_loader:
            output = model(data)
            test_loss += F.nll_loss(output, target, reduction="sum").item()
            pred = output.argmax(dim=1, keepdim=True)
            correct += pred.eq(target.view_as(pred)).sum().item()
    test_loss /= 4 * 8
    print("test loss", test_loss, "correct", correct)


def main():
    parser = argparse.ArgumentParser(description="MNIST-style example")
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--lr", type=float, default=0.05)
    parser.add_argument("--log-interval", type=int, default=1)
    args = parser.parse_args([])

    torch.manual_seed(1)
    rng = np.random.default_rng(0)
    train_loader = make_batches(rng, 4, 8)
    test_loader = make_batches(rng, 4, 8)

    model = Net()
    optimizer = optim.SGD(model.parameters(), lr=args.lr, momentum=0.9)
    for epoch in range(1, args.epochs + 1):
        train(args, model, train_loader, optimizer, epoch)
        test(model, test_loader)


if __name__ == "__main__":
    main()
