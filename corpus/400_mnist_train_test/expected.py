"""MNIST-style training script: a model class, train() and test() functions, a main()."""

import argparse

import numpy as np
import mindspore
from mindspore import nn, ops
from mindspore.experimental import optim
import ms_aux


class Net(nn.Cell):
    def __init__(self):
        super(Net, self).__init__()
        self.fc1 = nn.Dense(16, 32)
        self.fc2 = nn.Dense(32, 10)

    def construct(self, x):
        x = ops.flatten(x, start_dim=1)
        x = ops.relu(self.fc1(x))
        x = self.fc2(x)
        return ms_aux.log_softmax(x, dim=1)


def make_batches(rng, n_batches, batch_size):
    batches = []
    for _ in range(n_batches):
        data = mindspore.tensor(rng.standard_normal((batch_size, 1, 4, 4)), dtype=mindspore.float32)
        target = mindspore.tensor(rng.integers(0, 10, size=batch_size), dtype=mindspore.int64)
        batches.append((data, target))
    return batches


def train(args, model, train_loader, optimizer, epoch):
    model.set_train()
    def forward_fn(data, target):
        output = model(data)
        loss = ops.nll_loss(output, target)
        return loss
    grad_fn = mindspore.value_and_grad(forward_fn, None, optimizer.parameters)
    for batch_idx, (data, target) in enumerate(train_loader):
        loss, grads = grad_fn(data, target)
        optimizer(grads)
        if batch_idx % args.log_interval == 0:
            print("train epoch", epoch, "batch", batch_idx, "loss", loss.item())


def test(model, test_loader):
    model.set_train(False)
    test_loss = 0
    correct = 0
    for data, target in test_loader:
        output = model(data)
        test_loss += ops.nll_loss(output, target, reduction="sum").item()
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

    mindspore.set_seed(1)
    rng = np.random.default_rng(0)
    train_loader = make_batches(rng, 4, 8)
    test_loader = make_batches(rng, 4, 8)

    model = Net()
    optimizer = optim.SGD(model.trainable_params(), lr=args.lr, momentum=0.9)
    for epoch in range(1, args.epochs + 1):
        train(args, model, train_loader, optimizer, epoch)
        test(model, test_loader)


if __name__ == "__main__":
    main()
