"""TM2xx: training steps become value_and_grad + optimizer(grads); what cannot be, is reported.

pyupgrade-style cases: source before, source after. The inputs use no other torch API, so the
outputs show the training rules alone (and the import rule).
"""

from __future__ import annotations

import pytest
from conftest import convert_checked
from torch2ms.migrator.context import Options
from torch2ms.migrator.convert import convert_source


def convert(source: str, **options) -> tuple[str, list]:
    result = convert_checked(source, **options)
    return result.code, result.findings


REWRITES = [
    pytest.param(
        # zero_grad after the step: the program starts with no gradients, so G is zero at every backward
        "import torch\n"
        "for x, y in loader:\n"
        "    loss = criterion(model(x), y)\n"
        "    loss.backward()\n"
        "    optimizer.step()\n"
        "    optimizer.zero_grad()\n",
        "import mindspore\n"
        "def forward_fn(x, y):\n"
        "    loss = criterion(model(x), y)\n"
        "    return loss\n"
        "grad_fn = mindspore.value_and_grad(forward_fn, None, optimizer.parameters)\n"
        "for x, y in loader:\n"
        "    loss, grads = grad_fn(x, y)\n"
        "    optimizer(grads)\n",
        id="reset-after-step",
    ),
    pytest.param(
        # a reset in both branches dominates the backward
        "import torch\n"
        "for i, (x, y) in enumerate(loader):\n"
        "    if i % 2:\n"
        "        optimizer.zero_grad(set_to_none=True)\n"
        "    else:\n"
        "        optimizer.zero_grad(set_to_none=False)\n"
        "    loss = criterion(model(x), y)\n"
        "    loss.backward()\n"
        "    optimizer.step()\n",
        "import mindspore\n"
        "def forward_fn(x, y):\n"
        "    loss = criterion(model(x), y)\n"
        "    return loss\n"
        "grad_fn = mindspore.value_and_grad(forward_fn, None, optimizer.parameters)\n"
        "for i, (x, y) in enumerate(loader):\n"
        "    loss, grads = grad_fn(x, y)\n"
        "    optimizer(grads)\n",
        id="reset-in-both-branches",
    ),
    pytest.param(
        # a reset in one branch only: G is kept on the other path, exactly
        "import torch\n"
        "for i, (x, y) in enumerate(loader):\n"
        "    if i % 2 == 0:\n"
        "        optimizer.zero_grad()\n"
        "    loss = criterion(model(x), y)\n"
        "    loss.backward()\n"
        "    optimizer.step()\n",
        "import mindspore\n"
        "from mindspore import ops\n"
        "def forward_fn(x, y):\n"
        "    loss = criterion(model(x), y)\n"
        "    return loss\n"
        "grad_fn = mindspore.value_and_grad(forward_fn, None, optimizer.parameters)\n"
        "accum_grads = tuple(ops.zeros_like(p) for p in optimizer.parameters)\n"
        "for i, (x, y) in enumerate(loader):\n"
        "    if i % 2 == 0:\n"
        "        accum_grads = tuple(ops.zeros_like(p) for p in optimizer.parameters)\n"
        "    loss, grads = grad_fn(x, y)\n"
        "    accum_grads = tuple(map(ops.add, accum_grads, grads))\n"
        "    optimizer(accum_grads)\n",
        id="reset-in-one-branch",
    ),
    pytest.param(
        # values read between the forward and the backward come back as auxiliary outputs
        "import torch\n"
        "def train(model, loader, optimizer):\n"
        "    for data, target in loader:\n"
        "        optimizer.zero_grad()\n"
        "        output = model(data)\n"
        "        loss = loss_fn(output, target)\n"
        "        correct = (output.argmax(1) == target).sum().item()\n"
        "        loss.backward()\n"
        "        optimizer.step()\n"
        "        print(loss.item(), correct)\n",
        "import mindspore\n"
        "def train(model, loader, optimizer):\n"
        "    def forward_fn(data, target):\n"
        "        output = model(data)\n"
        "        loss = loss_fn(output, target)\n"
        "        return loss, output\n"
        "    grad_fn = mindspore.value_and_grad(forward_fn, None, optimizer.parameters, has_aux=True)\n"
        "    for data, target in loader:\n"
        "        (loss, output), grads = grad_fn(data, target)\n"
        "        correct = (output.argmax(1) == target).sum().item()\n"
        "        optimizer(grads)\n"
        "        print(loss.item(), correct)\n",
        id="aux-output",
    ),
    pytest.param(
        # grad_fn is built before the outermost loop whose body leaves the closures alone
        "import torch\n"
        "for epoch in range(3):\n"
        "    for x, y in loader:\n"
        "        optimizer.zero_grad()\n"
        "        loss = criterion(model(x), y)\n"
        "        loss.backward()\n"
        "        optimizer.step()\n",
        "import mindspore\n"
        "def forward_fn(x, y):\n"
        "    loss = criterion(model(x), y)\n"
        "    return loss\n"
        "grad_fn = mindspore.value_and_grad(forward_fn, None, optimizer.parameters)\n"
        "for epoch in range(3):\n"
        "    for x, y in loader:\n"
        "        loss, grads = grad_fn(x, y)\n"
        "        optimizer(grads)\n",
        id="hoisted-out-of-nested-loops",
    ),
    pytest.param(
        # a straight-line train_step function: no loop, grad_fn built where the step is
        "import torch\n"
        "def train_step(x, y):\n"
        "    optimizer.zero_grad()\n"
        "    loss = criterion(model(x), y)\n"
        "    loss.backward()\n"
        "    optimizer.step()\n"
        "    return loss.item()\n",
        "import mindspore\n"
        "def train_step(x, y):\n"
        "    def forward_fn():\n"
        "        loss = criterion(model(x), y)\n"
        "        return loss\n"
        "    grad_fn = mindspore.value_and_grad(forward_fn, None, optimizer.parameters)\n"
        "    loss, grads = grad_fn()\n"
        "    optimizer(grads)\n"
        "    return loss.item()\n",
        id="train-step-function",
    ),
    pytest.param(
        # clip_grad_value_ and a small max_norm: exact formulas on the gradient values
        "import torch\n"
        "for x, y in loader:\n"
        "    optimizer.zero_grad()\n"
        "    loss = criterion(model(x), y)\n"
        "    loss.backward()\n"
        "    torch.nn.utils.clip_grad_value_(model.parameters(), 0.1)\n"
        "    norm = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=0.001)\n"
        "    optimizer.step()\n",
        "import mindspore\n"
        "from mindspore import ops\n"
        "def forward_fn(x, y):\n"
        "    loss = criterion(model(x), y)\n"
        "    return loss\n"
        "grad_fn = mindspore.value_and_grad(forward_fn, None, optimizer.parameters)\n"
        "for x, y in loader:\n"
        "    loss, grads = grad_fn(x, y)\n"
        "    # torch2ms: TM201 assumes `optimizer` holds exactly the parameters of `model`\n"
        "    grads = ops.clip_by_value(grads, -0.1, 0.1)\n"
        "    # torch2ms: TM201 assumes `optimizer` holds exactly the parameters of `model`\n"
        "    norm = ops.norm(ops.stack([ops.norm(g) for g in grads]))\n"
        "    grads = tuple(g * ops.clamp(0.001 / (norm + 1e-6), max=1.0) for g in grads)\n"
        "    optimizer(grads)\n",
        id="clip-value-and-exact-norm",
    ),
    pytest.param(
        # scaler.unscale_ before clipping: the step does not unscale again
        "import torch\n"
        "scaler = torch.amp.GradScaler('cuda', init_scale=256.0, growth_interval=100)\n"
        "for x, y in loader:\n"
        "    optimizer.zero_grad()\n"
        "    loss = criterion(model(x), y)\n"
        "    scaler.scale(loss).backward()\n"
        "    scaler.unscale_(optimizer)\n"
        "    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)\n"
        "    scaler.step(optimizer)\n"
        "    scaler.update()\n"
        "    print(loss.item(), scaler.get_scale())\n",
        "import mindspore\n"
        "from mindspore import amp, ops\n"
        "scaler = amp.DynamicLossScaler(scale_value=256, scale_factor=2, scale_window=100)\n"
        "def forward_fn(x, y):\n"
        "    loss = criterion(model(x), y)\n"
        "    return scaler.scale(loss), loss\n"
        "grad_fn = mindspore.value_and_grad(forward_fn, None, optimizer.parameters, has_aux=True)\n"
        "for x, y in loader:\n"
        "    (_, loss), grads = grad_fn(x, y)\n"
        "    grads = scaler.unscale(grads)\n"
        "    # torch2ms: TM201 assumes `optimizer` holds exactly the parameters of `model`\n"
        "    grads = ops.clip_by_global_norm(grads, 1.0)\n"
        "    grads_finite = amp.all_finite(grads)\n"
        "    if grads_finite:\n"
        "        optimizer(grads)\n"
        "    scaler.adjust(grads_finite)\n"
        "    print(loss.item(), float(scaler.scale_value))\n",
        id="grad-scaler-unscale-clip",
    ),
    pytest.param(
        # model.zero_grad(); optimizer.step() on one line: one statement per line afterwards
        "import torch\n"
        "for x, y in loader:\n"
        "    log(); optimizer.zero_grad()\n"
        "    loss = criterion(model(x), y)\n"
        "    loss.backward(); optimizer.step()\n",
        "import mindspore\n"
        "def forward_fn(x, y):\n"
        "    loss = criterion(model(x), y)\n"
        "    return loss\n"
        "grad_fn = mindspore.value_and_grad(forward_fn, None, optimizer.parameters)\n"
        "for x, y in loader:\n"
        "    log()\n"
        "    loss, grads = grad_fn(x, y)\n"
        "    optimizer(grads)\n",
        id="semicolons",
    ),
    pytest.param(
        # one loss, two optimizers (encoder/decoder): one differentiation, split per optimizer
        "import torch\n"
        "for x, y in loader:\n"
        "    enc_opt.zero_grad()\n"
        "    dec_opt.zero_grad()\n"
        "    loss = criterion(decoder(encoder(x)), y)\n"
        "    loss.backward()\n"
        "    enc_opt.step()\n"
        "    dec_opt.step()\n",
        "import mindspore\n"
        "def forward_fn(x, y):\n"
        "    loss = criterion(decoder(encoder(x)), y)\n"
        "    return loss\n"
        "grad_fn = mindspore.value_and_grad(forward_fn, None, enc_opt.parameters + dec_opt.parameters)\n"
        "for x, y in loader:\n"
        "    loss, grads = grad_fn(x, y)\n"
        "    grads_enc = grads[:len(enc_opt.parameters)]\n"
        "    grads_dec = grads[len(enc_opt.parameters):]\n"
        "    enc_opt(grads_enc)\n"
        "    dec_opt(grads_dec)\n",
        id="joint-optimizers",
    ),
]


@pytest.mark.parametrize(("before", "after"), REWRITES)
def test_rewrite(before: str, after: str) -> None:
    code, findings = convert(before)
    assert code == after
    assert not [
        f for f in findings if f.severity == "error" and f.rule.startswith("TM2")
    ], findings


NOT_REWRITTEN = [
    pytest.param(
        # REINFORCE: the log-probabilities were computed in earlier calls and kept in a list
        "import torch\n"
        "policy = Policy()\n"
        "optimizer = torch.optim.Adam(policy.parameters(), lr=1e-2)\n"
        "def finish_episode():\n"
        "    policy_loss = []\n"
        "    for log_prob, R in zip(policy.saved_log_probs, returns):\n"
        "        policy_loss.append(-log_prob * R)\n"
        "    optimizer.zero_grad()\n"
        "    policy_loss = sum(policy_loss)\n"
        "    policy_loss.backward()\n"
        "    optimizer.step()\n",
        "TM920",
        id="reinforce",
    ),
    pytest.param(
        # LBFGS: the optimizer re-evaluates the loss through a closure
        "import torch\n"
        "def closure():\n"
        "    optimizer.zero_grad()\n"
        "    loss = criterion(model(x), y)\n"
        "    loss.backward()\n"
        "    return loss\n"
        "optimizer.step(closure)\n",
        "TM921",
        id="lbfgs-closure",
    ),
    pytest.param(
        # a gradient hook changes what reaches .grad
        "import torch\n"
        "model.fc.weight.register_hook(lambda g: g * 2)\n"
        "for x, y in loader:\n"
        "    optimizer.zero_grad()\n"
        "    loss = criterion(model(x), y)\n"
        "    loss.backward()\n"
        "    optimizer.step()\n",
        "TM922",
        id="hook",
    ),
    pytest.param(
        # a generator with BatchNorm must not run twice, and this forward is not a plain
        # model call that mindspore.vjp could run once
        "import torch\n"
        "from torch import nn\n"
        "class G(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.net = nn.Sequential(nn.Linear(2, 4), nn.BatchNorm1d(4))\n"
        "    def forward(self, z):\n"
        "        return self.net(z)\n"
        "netG = G()\n"
        "netD = nn.Linear(4, 1)\n"
        "optimizerD = torch.optim.SGD(netD.parameters(), lr=0.1)\n"
        "optimizerG = torch.optim.SGD(netG.parameters(), lr=0.1)\n"
        "for real, noise in loader:\n"
        "    netD.zero_grad()\n"
        "    fake = netG(noise).tanh()\n"
        "    errD = netD(real).mean() - netD(fake.detach()).mean()\n"
        "    errD.backward()\n"
        "    optimizerD.step()\n"
        "    netG.zero_grad()\n"
        "    errG = -netD(fake).mean()\n"
        "    errG.backward()\n"
        "    optimizerG.step()\n",
        "TM923",
        id="gan-batchnorm",
    ),
    pytest.param(
        # one loss, two optimizers: one differentiation, and optimizer.step() of the
        # first optimizer before the second backward reads a gradient that was kept
        "import torch\n"
        "for i, (x, y) in enumerate(loader):\n"
        "    enc_opt.zero_grad()\n"
        "    if i % 2 == 0:\n"
        "        dec_opt.zero_grad()\n"
        "    loss = criterion(decoder(encoder(x)), y)\n"
        "    loss.backward()\n"
        "    enc_opt.step()\n"
        "    dec_opt.step()\n",
        "TM924",
        id="joint-optimizers-accumulating",
    ),
    pytest.param(
        # .grad read by other code
        "import torch\n"
        "for x, y in loader:\n"
        "    optimizer.zero_grad()\n"
        "    loss = criterion(model(x), y)\n"
        "    loss.backward()\n"
        "    print(model.fc.weight.grad.norm())\n"
        "    optimizer.step()\n",
        "TM927",
        id="grad-read",
    ),
    pytest.param(
        # a value the loop tests before the backward decides whether the step runs at all
        # (a print there runs after the call instead, tests/rules/test_training_forward_data.py)
        "import torch\n"
        "for x, y in loader:\n"
        "    optimizer.zero_grad()\n"
        "    out = model(x)\n"
        "    if out.sum().item() > 1e3:\n"
        "        continue\n"
        "    out = model(out)\n"
        "    loss = criterion(out, y)\n"
        "    loss.backward()\n"
        "    optimizer.step()\n",
        "TM923",
        id="interleaved",
    ),
]


@pytest.mark.parametrize(("source", "rule"), NOT_REWRITTEN)
def test_reported_and_left_alone(source: str, rule: str) -> None:
    code, findings = convert(source)
    assert ".backward(" in code
    assert any(f.rule == rule and f.severity == "error" for f in findings), [
        (f.rule, f.message) for f in findings
    ]
    backward_lines = [
        i + 1 for i, line in enumerate(source.splitlines()) if ".backward(" in line
    ]
    reported = {f.line for f in findings if f.severity == "error"}
    assert set(backward_lines) <= reported, (backward_lines, reported)


NOT_MINE = [
    pytest.param(
        # backward without an optimizer: the autograd rules' case
        "import torch\ny = f(x)\ny.backward()\nprint(x.grad)\n",
        id="no-optimizer",
    ),
    pytest.param(
        # a scheduler's step is not an optimizer step
        "import torch\n"
        "for x in loader:\n"
        "    loss = f(x)\n"
        "    loss.backward()\n"
        "    scheduler.step()\n",
        id="scheduler-step",
    ),
]


@pytest.mark.parametrize("source", NOT_MINE)
def test_not_a_training_step(source: str) -> None:
    result = convert_source(source, "case.py")
    assert "TM201" not in result.rules_applied
    assert "value_and_grad(forward_fn, None" not in result.code


def test_claims_are_recorded_for_the_autograd_rules() -> None:
    import ast

    import libcst as cst
    from torch2ms.migrator.aliases import torch_aliases
    from torch2ms.migrator.context import ModuleContext
    from torch2ms.migrator.index import census, index_statements
    from torch2ms.rules.training.loop import CLAIMED, TrainingStepRule

    source = "import torch\nfor x, y in loader:\n    optimizer.zero_grad()\n    loss = f(model(x), y)\n    loss.backward()\n    optimizer.step()\n"
    tree = ast.parse(source)
    aliases = torch_aliases(tree)
    uses = census(tree, aliases, TrainingStepRule.methods)
    module = cst.parse_module(source)
    ctx = ModuleContext(
        "case.py",
        source,
        Options(),
        aliases,
        index_statements(module, tree, uses),
        uses,
    )
    TrainingStepRule().visit_Module(module, ctx)
    loop = module.body[1]
    claimed = ctx.state[CLAIMED]
    assert {
        id(s) for s in (loop.body.body[0], loop.body.body[2], loop.body.body[3])
    } <= claimed
    assert id(loop.body.body[1]) not in claimed


def test_accumulation_in_a_function_warns_about_leftovers() -> None:
    source = (
        "import torch\n"
        "def train(loader):\n"
        "    for i, (x, y) in enumerate(loader):\n"
        "        loss = criterion(model(x), y) / 4\n"
        "        loss.backward()\n"
        "        if (i + 1) % 4 == 0:\n"
        "            optimizer.step()\n"
        "            optimizer.zero_grad()\n"
    )
    code, findings = convert(source)
    assert "accum_grads = tuple(map(ops.add, accum_grads, grads))" in code
    assert any(f.rule == "TM202" and f.severity == "warning" for f in findings)


def test_style_cell_falls_back_to_functional_for_other_shapes() -> None:
    source = (
        "import torch\n"
        "for x, y in loader:\n"
        "    optimizer.zero_grad()\n"
        "    out = model(x)\n"
        "    loss = criterion(out, y) + 0.1 * out.abs().mean()\n"
        "    loss.backward()\n"
        "    optimizer.step()\n"
    )
    code, _ = convert(source, style="cell")
    assert "value_and_grad" in code
