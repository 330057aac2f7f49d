"""Optimizers written against torch's optimizer API: the base class, its plumbing and the foreach
ops become companion entries, the training step calls such an optimizer with gradients, and
converting again changes nothing."""

from __future__ import annotations

import pytest
from conftest import convert_checked

HEAD = "import torch\n\n\n"
OPTIMIZER = (
    "from torch.optim.optimizer import Optimizer, required\n\n\n"
    "class Sgd(Optimizer):\n"
    "    def __init__(self, params, lr=required):\n"
    "        super().__init__(params, dict(lr=lr))\n\n"
    "    @torch.no_grad()\n"
    "    def step(self, closure=None):\n"
    "        for group in self.param_groups:\n"
    "            for p in group['params']:\n"
    "                if p.grad is None or p.grad.is_sparse:\n"
    "                    continue\n"
    "                p.add_(p.grad, alpha=-group['lr'])\n"
)

REWRITES = [
    (
        HEAD + OPTIMIZER,
        (
            "import ms_aux\n\n\n"
            "class Sgd(ms_aux.Optimizer):\n"
            "    def __init__(self, params, lr=ms_aux.required):\n"
            "        super().__init__(params, dict(lr=lr))\n\n"
            "    def step(self, closure=None):\n"
            "        for group in self.param_groups:\n"
            "            for p in group['params']:\n"
            "                if p.grad is None or False:\n"
            "                    continue\n"
            "                ops.assign(p, p.add(p.grad, alpha=-group['lr']))\n"
        ),
        {"Optimizer", "required"},
    ),
    # An operand that may be a list or a tensor, and `alpha=`: the companion op takes either.
    (
        HEAD + "def update(params, updates, lr):\n"
        "    torch._foreach_add_(params, updates, alpha=-lr)\n"
        "    return torch._foreach_norm(params)\n",
        (
            "import ms_aux\n\n\ndef update(params, updates, lr):\n"
            "    ms_aux.foreach_add_(params, updates, alpha=-lr)\n"
            "    return ms_aux.foreach_norm(params)\n"
        ),
        {"foreach_add_", "foreach_norm"},
    ),
    # The multi-tensor choice: the plain loop runs.
    (
        HEAD + "def pick(params):\n"
        "    return torch.optim.optimizer._default_to_fused_or_foreach(params, False, False)[1]\n",
        (
            "import ms_aux\n\n\ndef pick(params):\n"
            "    return ms_aux.default_to_fused_or_foreach(params, False, False)[1]\n"
        ),
        {"default_to_fused_or_foreach"},
    ),
    # Optimizer classes as values take torch's switches; annotations name the companion base.
    (
        HEAD + "OPTIMIZERS = {'adamw': torch.optim.AdamW, 'sgd': torch.optim.SGD}\n\n\n"
        "def build(name, params) -> torch.optim.Optimizer:\n"
        "    return OPTIMIZERS[name](params, lr=0.1, foreach=True)\n",
        (
            "import ms_aux\n\n\nOPTIMIZERS = {'adamw': ms_aux.AdamW, 'sgd': ms_aux.SGD}\n\n\n"
            "def build(name, params) -> ms_aux.Optimizer:\n"
            "    return OPTIMIZERS[name](params, lr=0.1, foreach=True)\n"
        ),
        {"AdamW", "SGD", "Optimizer"},
    ),
    # A name an import's fallback binds stays the module's own.
    (
        (
            "try:\n    from torch.optim.optimizer import ParamsT\nexcept ImportError:\n"
            "    ParamsT = object\n\n\ndef f(params: ParamsT):\n    return params\n"
        ),
        (
            "import ms_aux\n"
            "# torch2ms: TM905 torch is imported optionally here; the converted program runs the "
            "`except ImportError` fallback\nParamsT = object\n\n\n"
            "def f(params: ms_aux.ParamsT):\n    return params\n"
        ),
        {"ParamsT"},
    ),
]


@pytest.mark.parametrize(("before", "after", "used"), REWRITES)
def test_optimizer_api_becomes_companion_entries(
    before: str, after: str, used: set[str]
) -> None:
    result = convert_checked(before)
    body = result.code.replace("from mindspore import ops\n", "")
    assert body == after
    assert result.companion == used
    assert not [f for f in result.findings if f.severity == "error"], result.findings


def test_training_step_calls_a_subclass_with_gradients() -> None:
    source = (
        HEAD
        + OPTIMIZER
        + "\n\nmodel = torch.nn.Linear(2, 1)\nsgd = Sgd(model.parameters(), lr=0.1)\n"
        "for x, y in batches:\n    sgd.zero_grad()\n    loss = ((model(x) - y) ** 2).mean()\n"
        "    loss.backward()\n    sgd.step()\n"
    )
    code = convert_checked(source).code
    assert "mindspore.value_and_grad(forward_fn, None, sgd.parameters)" in code
    assert "sgd(grads" in code and "sgd.step()" not in code and "zero_grad" not in code


def test_an_item_is_updated_where_it_lives() -> None:
    # `steps` may be a tensor (the part `i` selects is stored back) or a list of tensors (the
    # tensor at `i` is updated in place): the companion tells them apart when the program runs.
    result = convert_checked(HEAD + "def f(steps, i):\n    steps[i].add_(1)\n")
    assert "ms_aux.assign_item(steps, i, steps[i].add(1))" in result.code
    assert not result.findings
