"""A small model package written for torch, converted by torch2ms: the subject of the weights and
compare-model tests. It has the layers whose MindSpore names or layouts differ (Embedding,
BatchNorm, LayerNorm, Conv1d), a tied weight, a scale constant and the two ways torch programs
load trained weights."""

from __future__ import annotations

import importlib.util
import os

from click.testing import CliRunner
from torch2ms.cli.main import main

PACKAGE = "tinynet"
MODEL = """import torch
import torch.nn as nn


class Block(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.norm = nn.LayerNorm(dim, eps=1e-5)
        self.fc = nn.Linear(dim, dim, bias=False)
        self.scale = 0.5

    def forward(self, x):
        return x + self.fc(self.norm(x)) * self.scale


class Net(nn.Module):
    def __init__(self, vocab=20, dim=8):
        super().__init__()
        self.emb = nn.Embedding(vocab, dim)
        self.conv = nn.Conv1d(dim, dim, 3, padding=1)
        self.bn = nn.BatchNorm1d(dim, eps=1e-5)
        self.blocks = nn.ModuleList([Block(dim) for _ in range(2)])
        self.head = nn.Linear(dim, vocab, bias=False)
        self.head.weight = self.emb.weight

    def forward(self, ids):
        h = self.emb(ids).transpose(1, 2)
        h = self.bn(self.conv(h)).transpose(1, 2)
        for block in self.blocks:
            h = block(h)
        return self.head(h)


def build(vocab=20):
    return Net(vocab)


def load_trained(path, vocab=20):
    model = Net(vocab)
    model.load_state_dict(torch.load(path, map_location="cpu"))
    return model.eval()


def load_bundle(path):
    checkpoint = torch.load(path, map_location="cpu")
    model = Net()
    model.load_state_dict(checkpoint["model"])
    return model.eval()
"""
SPEC = f"{PACKAGE}.model:build()"
IDS = "2x5:int64:0:20"


def write_package(root: str) -> str:
    """The original package under ``root``/original; returns that folder."""
    folder = os.path.join(root, "original")
    os.makedirs(os.path.join(folder, PACKAGE), exist_ok=True)
    with open(os.path.join(folder, PACKAGE, "__init__.py"), "w") as handle:
        handle.write("")
    with open(os.path.join(folder, PACKAGE, "model.py"), "w") as handle:
        handle.write(MODEL)
    return folder


def convert_package(original: str, root: str) -> str:
    """``torch2ms convert`` of the package into ``root``/converted; returns that folder."""
    folder = os.path.join(root, "converted")
    result = CliRunner().invoke(
        main,
        [
            "convert",
            os.path.join(original, PACKAGE),
            "-o",
            os.path.join(folder, PACKAGE),
            "-q",
        ],
    )
    assert result.exit_code == 0, result.output
    return folder


def torch_module(original: str, name: str = "tinynet_torch_model"):
    """The original model module, imported on torch under a name of its own."""
    path = os.path.join(original, PACKAGE, "model.py")
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
