"""MNIST-style training script: a model class, train() and test() functions, a main()."""

import argparse

import numpy as np
from mindspore import nn
import torch


class Net(nn.Cell):
    def __init__(self):
        super(Net, self).__init__()
        self.fc1 = torch.nn.Linear(16, 32)
        self.fc2 = torch.nn.Linear(32, 10)

    def construct(self, x):
        x = torch.flatten(x, 1)
        x = torch.nn.functional.relu(self.fc1(x))
        x = self.fc2(x)
        return torch.nn.functional.log_softmax(x, dim=1)


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
        loss = torch.nn.functional.nll_loss(output, target)
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
            test_loss += torch.nn.functional.nll_loss(output, target, reduction="sum").item()
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
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9)
    for epoch in range(1, args.epochs + 1):
        train(args, model, train_loader, optimizer, epoch)
        test(model, test_loader)


# torch2ms: TM900 `torch.nn.Linear` is not converted: no certain MindSpore mapping; it still runs on torch
# torch2ms: TM900 `torch.flatten` is not converted: no certain MindSpore mapping; it still runs on torch
# torch2ms: TM900 `torch.nn.functional.relu` is not converted: no certain MindSpore mapping; it still runs on torch
# torch2ms: TM900 `torch.nn.functional.log_softmax` is not converted: no certain MindSpore mapping; it still runs on torch
# torch2ms: TM900 `torch.tensor` is not converted: no certain MindSpore mapping; it still runs on torch
# torch2ms: TM900 `torch.float32` is not converted: no certain MindSpore mapping; it still runs on torch
# torch2ms: TM900 `torch.int64` is not converted: no certain MindSpore mapping; it still runs on torch
# torch2ms: TM900 `torch.nn.functional.nll_loss` is not converted: no certain MindSpore mapping; it still runs on torch
# torch2ms: TM900 `torch.no_grad` is not converted: no certain MindSpore mapping; it still runs on torch
# torch2ms: TM900 `torch.manual_seed` is not converted: no certain MindSpore mapping; it still runs on torch
# torch2ms: TM900 `torch.optim.SGD` is not converted: no certain MindSpore mapping; it still runs on torch
if __name__ == "__main__":
    main()
