"""TM963: an in-place update written back with `ops.assign` into a tensor that is not a fresh
local one is reported where it can be differentiated (a module's forward, a function a gradient
transform takes, what those call in the file), and nowhere else."""

from __future__ import annotations

from conftest import convert_checked

MODULE = """import torch
from torch import nn


def swish(x, inplace: bool = False):
    return x.mul_(x.sigmoid()) if inplace else x.mul(x.sigmoid())


def unused(x):
    x.mul_(2)
    return x


class LayerScale(nn.Module):
    def __init__(self, dim, inplace=False):
        super().__init__()
        self.inplace = inplace
        self.gamma = nn.Parameter(torch.ones(dim))
        self.gamma.mul_(0.5)
        self.register_buffer("count", torch.zeros(()))

    def reset_parameters(self):
        self.gamma.mul_(0.5)

    def forward(self, x):
        y = x * 2
        y.add_(1)
        with torch.no_grad():
            self.gamma.clamp_(0, 1)
        self.gamma.data.mul_(1.0)
        self.count.add_(1)
        if False:
            x.add_(1)
        x = swish(x, self.inplace)
        return x.mul_(self.gamma) if self.inplace else x * self.gamma


class Plain:
    def forward(self, x):
        x.add_(1)
        return x


class SGD(torch.optim.Optimizer):
    @torch.no_grad()
    def step(self):
        for group in self.param_groups:
            for p in group["params"]:
                p.add_(p.grad, alpha=-group["lr"])


def loss_of(w, x):
    w.mul_(2)
    return (w * x).sum()


grads = torch.func.grad(loss_of)
"""


def _lines(result, rule: str) -> list[int]:
    return sorted(f.line for f in result.findings if f.rule == rule)


def test_reported_where_the_update_can_be_differentiated():
    result = convert_checked(MODULE)
    source = MODULE.splitlines()
    reported = [source[line - 1].strip() for line in _lines(result, "TM963")]
    assert reported == [
        "return x.mul_(x.sigmoid()) if inplace else x.mul(x.sigmoid())",
        "return x.mul_(self.gamma) if self.inplace else x * self.gamma",
        "w.mul_(2)",
    ], reported
    finding = next(f for f in result.findings if f.rule == "TM963")
    assert "Assign passes no gradient" in finding.message and "`x`" in finding.message
    assert "x = x * y" in finding.hint
    # the fresh local tensor is rebound, exact and silent
    assert "(y := y.add(1))" in result.code


def test_silent_outside_differentiated_code():
    """Initialisation, `no_grad`, `.data`, the module's own state, a false branch, an optimizer step, a function no
    forward calls, a class that is not a module: `ops.assign` without TM963."""
    result = convert_checked(MODULE.replace("grads = torch.func.grad(loss_of)\n", ""))
    source = MODULE.splitlines()
    reported = {source[line - 1].strip() for line in _lines(result, "TM963")}
    assert reported == {
        "return x.mul_(x.sigmoid()) if inplace else x.mul(x.sigmoid())",
        "return x.mul_(self.gamma) if self.inplace else x * self.gamma",
    }
    assert result.code.count("ops.assign(") == 12, result.code


LOOP = """import torch
from torch import nn

model = nn.Linear(3, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
data = [(torch.ones(4, 3), torch.zeros(4, 2))]


def train():
    for x, y in data:
        x.sub_(0.5)
        out = model(x)
        out.mul_(2)
        loss = ((out - y) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
"""


def test_model_output_updated_in_the_value_and_grad_region():
    """The training rewrite differentiates the loop's forward: the model's output updated in
    place is reported, the data updated before the model sees it is not."""
    result = convert_checked(LOOP)
    assert "mindspore.value_and_grad(forward_fn" in result.code, result.code
    source = LOOP.splitlines()
    reported = [source[line - 1].strip() for line in _lines(result, "TM963")]
    assert reported == ["out.mul_(2)"], (reported, result.code)
    assert "ops.assign(x, x.sub(0.5))" in result.code
