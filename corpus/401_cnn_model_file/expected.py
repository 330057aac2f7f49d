"""A model file: a small CNN (conv, batch norm, pooling, dropout in eval) with a self-test block."""

import numpy as np
import mindspore
from mindspore import nn, ops


class ConvBlock(nn.Cell):
    def __init__(self, in_channels, out_channels):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size=3, padding=1, has_bias=False, pad_mode='pad')
        self.bn = nn.BatchNorm2d(out_channels, momentum=0.9)

    def construct(self, x):
        return ops.relu(self.bn(self.conv(x)))


class SmallCNN(nn.Cell):
    def __init__(self, num_classes=3):
        super().__init__()
        self.block1 = ConvBlock(1, 4)
        self.block2 = ConvBlock(4, 8)
        self.pool = nn.MaxPool2d(2, stride=2, pad_mode='pad')
        self.dropout = nn.Dropout(p=0.5)
        self.classifier = nn.Dense(8 * 2 * 2, num_classes)

    def construct(self, x):
        x = self.pool(self.block1(x))
        x = self.pool(self.block2(x))
        x = ops.flatten(x, start_dim=1)
        x = self.dropout(x)
        return self.classifier(x)


def build_model(num_classes=3):
    return SmallCNN(num_classes)


if __name__ == "__main__":
    mindspore.set_seed(0)
    rng = np.random.default_rng(0)
    model = build_model()
    images = mindspore.tensor(rng.standard_normal((4, 1, 8, 8)), dtype=mindspore.float32)
    # torch2ms: TM932 `.train()` converted on a receiver taken to be a Module from its name
    model.set_train()
    features = model.block1(images)
    print("block1 mean", features.mean().item())
    # torch2ms: TM932 `.eval()` converted on a receiver taken to be a Module from its name
    model.set_train(False)
    logits = model(images)
    print("logits", ops.stop_gradient(logits).asnumpy())
    # torch2ms: TM932 `.parameters()` converted on a receiver taken to be a Module from its name
    print("parameters", sum(p.numel() for p in model.trainable_params()))
