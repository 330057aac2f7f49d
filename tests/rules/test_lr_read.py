"""TM209 on optimizers the file does not build: a learning rate read from `X.param_groups` (a
received optimizer, a comprehension over its groups) is read as a float; an optimizer class's own
`self.param_groups` is left as it is."""

from __future__ import annotations

from conftest import convert_checked


def test_received_optimizer_and_comprehension() -> None:
    source = (
        "import torch\n\n"
        "def log(optimizer, x):\n"
        "    lrl = [group['lr'] for group in optimizer.param_groups]\n"
        "    lr = sum(lrl) / len(lrl)\n"
        "    first = optimizer.param_groups[0]['lr']\n"
        "    return f'{lr:.3e} {first:.2f}', torch.abs(x)\n"
    )
    code = convert_checked(source).code
    assert "[float(group['lr']) for group in optimizer.param_groups]" in code
    assert "first = float(optimizer.param_groups[0]['lr'])" in code
    # the name is no group outside its comprehension
    assert "lr = sum(lrl) / len(lrl)" in code
    assert convert_checked(code).code == code


def test_own_param_groups_stay() -> None:
    source = (
        "import torch\n\n"
        "class Sgd(torch.optim.Optimizer):\n"
        "    def step(self):\n"
        "        for group in self.param_groups:\n"
        "            for p in group['params']:\n"
        "                p.add_(p.grad, alpha=-group['lr'])\n"
    )
    code = convert_checked(source).code
    assert "float(" not in code
