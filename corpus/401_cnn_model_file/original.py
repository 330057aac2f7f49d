"""A model file: a small CNN (conv, batch norm, pooling, dropout in eval) with a self-test block."""

import numpy as np
import torch
from torch import nn
import torch.nn.functional as F


class ConvBlock(nn.Module):
    def __init__(self, in_channels, out_channels):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size=3, padding=1, bias=False)
        self.bn = nn.BatchNorm2d(out_channels, momentum=0.1)

    def forward(self, x):
        return F.relu(self.bn(self.conv(x)))


class SmallCNN(nn.Module):
    def __init__(self, num_classes=3):
        super().__init__()
        self.block1 = ConvBlock(1, 4)
        self.block2 = ConvBlock(4, 8)
        self.pool = nn.MaxPool2d(2)
        self.dropout = nn.Dropout(0.5)
        self.classifier = nn.Linear(8 * 2 * 2, num_classes)

    def forward(self, x):
        x = self.pool(self.block1(x))
        x = self.pool(self.block2(x))
        x = torch.flatten(x, 1)
        x = self.dropout(x)
        return self.classifier(x)


def build_model(num_classes=3):
    return SmallCNN(num_classes)


if __name__ == "__main__":
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    model = build_model()
    images = torch.tensor(rng.standard_normal((4, 1, 8, 8)), dtype=torch.float32)
    model.train()
    features = model.block1(images)
    print("block1 mean", features.mean().item())
    model.eval()
    logits = model(images)
    print("logits", logits.detach().numpy())
    print("parameters", sum(p.numel() for p in model.parameters()))
