"""mnist-style script: train() and test() functions called from main(), loss.item() logging."""

import argparse

import numpy as np
import mindspore
from mindspore import nn, ops
from mindspore.experimental import optim
import ms_aux


class Net(nn.Cell):
    def __init__(self):
        super(Net, self).__init__()
        self.fc1 = nn.Dense(12, 16)
        self.fc2 = nn.Dense(16, 4)

    def construct(self, x):
        x = ops.relu(self.fc1(x))
        x = self.fc2(x)
        return ms_aux.log_softmax(x, dim=1)


def init_weights(model, rng):
    for p in model.trainable_params():
        p.copy_(mindspore.tensor(rng.standard_normal(tuple(p.shape)) * 0.3, dtype=mindspore.float32))


def train(args, model, device, train_loader, optimizer, epoch):
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


def test(model, device, test_loader):
    model.set_train(False)
    test_loss = 0
    for data, target in test_loader:
        output = model(data)
        test_loss += ops.nll_loss(output, target, reduction="sum").item()
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
        (mindspore.tensor(rng.standard_normal((8, 12)), dtype=mindspore.float32), mindspore.tensor(rng.integers(0, 4, size=8), dtype=mindspore.int64))
        for _ in range(6)
    ]
    model = Net()
    init_weights(model, rng)
    optimizer = optim.SGD(model.trainable_params(), lr=args.lr, momentum=0.5)
    for epoch in range(1, args.epochs + 1):
        train(args, model, device, batches[:4], optimizer, epoch)
        test(model, device, batches[4:])
    print("final", [p.sum().item() for p in model.trainable_params()])


if __name__ == "__main__":
    main()
