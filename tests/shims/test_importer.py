"""``shims.importer``: ``import torch`` / ``import mindspore`` served by the facades."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest
from torch2ms.shims import importer

FRESH_PROCESS = """
import sys
from torch2ms.shims import importer

importer.install()
import torch
import torch.nn as nn
from torch.nn import functional as F
import mindspore
import mindspore as ms
from mindspore import nn as ms_nn, ops
import mindspore.nn as ms_nn2
from mindspore.amp import StaticLossScaler, all_finite
from mindspore.experimental.optim import AdamW
from mindspore.common.initializer import Normal

import torch2ms.shims.mindspore as facade_ms
import torch2ms.shims.torch as facade_torch

assert mindspore is facade_ms and ms is facade_ms
assert ms_nn is facade_ms.nn and ms_nn2 is facade_ms.nn and ops is facade_ms.ops
assert torch is facade_torch and nn is facade_torch.nn and F is facade_torch.nn.functional
assert sys.modules["mindspore.nn"] is facade_ms.nn
assert StaticLossScaler is facade_ms.amp.StaticLossScaler
print(type(mindspore.Tensor(1.0)).__module__, type(torch.ones(1)).__module__)
"""


def test_install_serves_every_import_form_in_a_fresh_process():
    result = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(FRESH_PROCESS)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    ms_module, torch_module = result.stdout.split()
    assert ms_module.startswith("torch2ms.shims.mindspore")
    assert torch_module.startswith("torch2ms.shims.torch")


def test_missing_attributes_and_modules_name_the_api():
    with importer.activate("shim"):
        import mindspore

        with pytest.raises(
            NotImplementedError, match=r"shims: mindspore\.Model is not implemented"
        ):
            mindspore.Model  # noqa: B018
        with pytest.raises(
            NotImplementedError,
            match=r"shims: mindspore\.nn\.Transformer is not implemented",
        ):
            from mindspore.nn import Transformer  # noqa: F401
        with pytest.raises(
            NotImplementedError,
            match=r"shims: mindspore\.Tensor\.bincount is not implemented",
        ):
            mindspore.Tensor([1, 2]).bincount()
        with pytest.raises(
            ModuleNotFoundError, match=r"shims: mindspore\.train is not implemented"
        ):
            import mindspore.train


def test_activate_restores_the_previous_modules():
    before = {
        name: module
        for name, module in sys.modules.items()
        if name.split(".")[0] in ("torch", "mindspore")
    }
    path_before = list(sys.meta_path)
    with importer.activate("shim"):
        import mindspore

        assert mindspore.__name__ == "torch2ms.shims.mindspore"
    after = {
        name: module
        for name, module in sys.modules.items()
        if name.split(".")[0] in ("torch", "mindspore")
    }
    assert after == before
    assert sys.meta_path == path_before


def test_the_real_backend_explains_a_missing_framework():
    finder = importer.MissingFrameworkFinder()
    with pytest.raises(
        ModuleNotFoundError,
        match=r"the real backend needs mindspore installed .*--backend shim",
    ):
        finder.find_spec("mindspore")
    assert finder.find_spec("mindspore.nn") is None
    assert finder.find_spec("numpy") is None


def test_unknown_backend_is_rejected():
    with pytest.raises(ValueError, match="backend must be 'shim' or 'real'"):
        importer.install("gpu")
