"""In-place chains on an item (`t[i].mul_(a).add_(b)`) and chains whose result rebinds the name
they start from (`x = x.to(dtype).sub_(mean).div_(std)`): converted, and computing torch's values."""

from __future__ import annotations

import numpy as np
import pytest
from converted_import import import_converted
from torch2ms.migrator.context import Options
from torch2ms.migrator.convert import convert_source

MIX = (
    "import torch\n\n"
    "def mix(encoded, pairs, lams):\n"
    "    targets = encoded.clone()\n"
    "    for i, j in pairs.items():\n"
    "        lam = lams[i]\n"
    "        targets[i].mul_(lam).add_(encoded[j], alpha=1.0 - lam)\n"
    "    return targets\n"
)
NORMALISE = (
    "import torch\n\n"
    "def normalise(loader, mean, std, dtype):\n"
    "    for x, y in loader:\n"
    "        x = x.to(device='cpu', non_blocking=True)\n"
    "        x = x.to(dtype).sub_(mean).div_(std)\n"
    "        yield x, y\n"
)
FRESH = "import torch\n\ndef f(a, m):\n    x = a * 2\n    x = x.float().sub_(m).mul_(3)\n    return x\n"


def _convert(source: str):
    result = convert_source(source, "m.py", Options())
    compile(result.code, "m.py", "exec")
    assert convert_source(result.code, "m.py", Options()).code == result.code
    return result


def _converted(code: str, folder, name: str):
    return import_converted(code, ["assign_item"], folder, name)


def test_an_item_chain_stores_its_last_value_back() -> None:
    result = _convert(MIX)
    assert (
        "ms_aux.assign_item(targets, i, targets[i].mul(lam).add(encoded[j], alpha=1.0 - lam))"
        in result.code
    )
    assert "torch" not in result.code and not result.findings


def test_a_rebound_chain_from_a_loop_item_converts_with_a_warning() -> None:
    result = _convert(NORMALISE)
    assert "        x = x.to(dtype).sub(mean).div(std)\n" in result.code
    assert "import torch" not in result.code and "_(" not in result.code
    warned = [f for f in result.findings if f.rule == "TM941"]
    assert [f.severity for f in warned] == ["warning"]  # one for the chain's two links
    assert "rebinds `x`" in warned[0].message


def test_a_rebound_chain_from_a_fresh_value_is_certain() -> None:
    result = _convert(FRESH)
    assert "    x = x.float().sub(m).mul(3)\n" in result.code
    assert "torch" not in result.code and not result.findings


@pytest.mark.parametrize(
    "source",
    [
        # A parameter: the caller holds the tensor `.float()` may return.
        "def f(x, m):\n    x = x.float().sub_(m)\n    return x\n",
        # The loop item was handed to a list before the update.
        "def f(loader, m, keep):\n    for x in loader:\n        keep.append(x)\n        x = x.float().sub_(m)\n",
        # Another name for the same tensor.
        "def f(loader, m):\n    for x in loader:\n        y = x\n        x = x.float().sub_(m)\n        yield y\n",
        # Bound from another name, which still holds the tensor.
        "def f(a, m):\n    y = a * 2\n    x = y\n    x = x.float().sub_(m)\n    return x, y\n",
        "def f(self, m):\n    x = self.buf.float()\n    x = x.float().sub_(m)\n    return x\n",
        # The result rebinds another name.
        "def f(a, m):\n    x = a * 2\n    z = x.float().sub_(m)\n    return x, z\n",
        # An item read as a value, not a statement.
        "def f(t, a, b):\n    y = t[0].mul_(a).add_(b)\n    return y\n",
    ],
)
def test_chains_whose_update_may_be_seen_elsewhere_keep_the_finding(
    source: str,
) -> None:
    result = _convert("import torch\n\n" + source)
    assert "_(" in result.code
    assert any(f.rule == "TM941" and f.severity == "error" for f in result.findings)


@pytest.mark.real
def test_the_item_chain_computes_torchs_values(fw, tmp_path) -> None:
    torch, ms = fw
    rng = np.random.default_rng(0)
    encoded = rng.uniform(0, 1, (4, 5)).astype(np.float32)
    pairs, lams = {0: 3, 1: 2, 2: 1, 3: 0}, [0.25, 0.5, 0.75, 0.9]
    namespace: dict = {}
    exec(compile(MIX, "original.py", "exec"), namespace)  # noqa: S102 - our snippet
    expected = namespace["mix"](torch.tensor(encoded), pairs, lams).numpy()
    module = _converted(_convert(MIX).code, tmp_path, "converted_mix")
    got = module.mix(ms.Tensor(encoded), pairs, lams).asnumpy()
    np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-7)


@pytest.mark.real
def test_the_rebound_chain_normalises_as_torch(fw, tmp_path) -> None:
    torch, ms = fw
    rng = np.random.default_rng(1)
    images = [rng.integers(0, 256, (2, 3, 4, 4)).astype(np.uint8) for _ in range(3)]
    mean = (np.array([0.485, 0.456, 0.406], np.float32) * 255).reshape(1, 3, 1, 1)
    std = (np.array([0.229, 0.224, 0.225], np.float32) * 255).reshape(1, 3, 1, 1)
    namespace: dict = {}
    exec(compile(NORMALISE, "original.py", "exec"), namespace)  # noqa: S102 - our snippet
    want = [
        x.numpy()
        for x, _ in namespace["normalise"](
            [(torch.tensor(a), 0) for a in images],
            torch.tensor(mean),
            torch.tensor(std),
            torch.float32,
        )
    ]
    module = _converted(_convert(NORMALISE).code, tmp_path, "converted_norm")
    got = [
        x.asnumpy()
        for x, _ in module.normalise(
            [(ms.Tensor(a), 0) for a in images],
            ms.Tensor(mean),
            ms.Tensor(std),
            ms.float32,
        )
    ]
    assert len(got) == len(want) == 3
    for a, b in zip(got, want):
        assert a.dtype == b.dtype == np.float32
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-6)


def test_a_gradient_write_outside_a_step_is_reported() -> None:
    """timm's adaptive_clip_grad writes clipped gradients into `p.grad`: a converted step's
    gradients are values handed to `optimizer(grads)`, so no `.grad` holds them there."""
    source = (
        "import torch\n\n"
        "def clip(parameters, c):\n"
        "    for p in parameters:\n"
        "        p.grad.detach().copy_(p.grad * c)\n"
        "        p.grad.data.mul_(c)\n\n"
        "class Sgd(torch.optim.Optimizer):\n"
        "    def step(self, closure=None):\n"
        "        for group in self.param_groups:\n"
        "            for p in group['params']:\n"
        "                p.grad.mul_(2.0)\n"
    )
    result = _convert(source)
    lines = sorted(f.line for f in result.findings if f.rule == "TM927")
    assert lines == [5, 6]
    assert all(
        f.severity == "error" and "optimizer(grads)" in f.message
        for f in result.findings
        if f.rule == "TM927"
    )
