"""TM210/TM928: helpers, closures, methods and loss-scaler objects that run the training step for
their callers (function summaries), and the library loss scalers kept as data.

pyupgrade-style cases: source before, source after; then the shapes that must stay reported, each
with its reason; then the library NativeScaler against timm's own on the real frameworks.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import convert_checked, require_module
from torch2ms.migrator.findings import ERROR

CASES = Path(__file__).resolve().parent.parent / "helper_cases"


def convert(source: str, **options) -> tuple[str, list]:
    result = convert_checked(source, **options)
    return result.code, result.findings


REWRITES = [
    pytest.param(
        "import torch\n"
        "\n"
        "\n"
        "class Trainer:\n"
        "    def _optimizer_step(self, loss):\n"
        "        self.optimizer.zero_grad()\n"
        "        loss.backward()\n"
        "        torch.nn.utils.clip_grad_value_(self.model.parameters(), 0.5)\n"
        "        self.optimizer.step()\n"
        "\n"
        "    def train_step(self, inputs, targets):\n"
        "        loss = (self.model(inputs) - targets).pow(2).mean()\n"
        "        self._optimizer_step(loss)\n"
        "        return loss.item()\n",
        "import mindspore\n"
        "from mindspore import ops\n"
        "\n"
        "\n"
        "class Trainer:\n"
        "    def _optimizer_step(self, grads):\n"
        "        grads = ops.clip_by_value(grads, -0.5, 0.5)\n"
        "        self.optimizer(grads)\n"
        "        return grads\n"
        "\n"
        "    def train_step(self, inputs, targets):\n"
        "        def forward_fn():\n"
        "            loss = (self.model(inputs) - targets).pow(2).mean()\n"
        "            return loss\n"
        "        grad_fn = mindspore.value_and_grad(forward_fn, None, self.optimizer.parameters)\n"
        "        loss, grads = grad_fn()\n"
        "        grads = self._optimizer_step(grads)\n"
        "        return loss.item()\n",
        id="method",
    ),
    pytest.param(
        "import torch\n"
        "\n"
        "\n"
        "def train_one_epoch(model, loader, optimizer, accum_steps):\n"
        "    optimizer.zero_grad()\n"
        "    for batch_idx, (input, target) in enumerate(loader):\n"
        "        need_update = (batch_idx + 1) % accum_steps == 0\n"
        "\n"
        "        def _forward():\n"
        "            output = model(input)\n"
        "            return (output - target).pow(2).mean() / accum_steps\n"
        "\n"
        "        def _backward(_loss):\n"
        "            _loss.backward()\n"
        "            if need_update:\n"
        "                optimizer.step()\n"
        "\n"
        "        loss = _forward()\n"
        "        _backward(loss)\n"
        "        if need_update:\n"
        "            optimizer.zero_grad()\n",
        "import mindspore\n"
        "from mindspore import ops\n"
        "\n"
        "\n"
        "def train_one_epoch(model, loader, optimizer, accum_steps):\n"
        "    accum_grads = tuple(ops.zeros_like(p) for p in optimizer.parameters)\n"
        "    def forward_fn():\n"
        "        loss = _forward()\n"
        "        return loss\n"
        "    grad_fn = mindspore.value_and_grad(forward_fn, None, optimizer.parameters)\n"
        "    for batch_idx, (input, target) in enumerate(loader):\n"
        "        need_update = (batch_idx + 1) % accum_steps == 0\n"
        "\n"
        "        def _forward():\n"
        "            output = model(input)\n"
        "            return (output - target).pow(2).mean() / accum_steps\n"
        "\n"
        "        def _backward(grads):\n"
        "            if need_update:\n"
        "                optimizer(grads)\n"
        "\n"
        "        loss, grads_1 = grad_fn()\n"
        "        accum_grads = tuple(map(ops.add, accum_grads, grads_1))\n"
        "        _backward(accum_grads)\n"
        "        if need_update:\n"
        "            accum_grads = tuple(ops.zeros_like(p) for p in optimizer.parameters)\n",
        id="closure",
    ),
    pytest.param(
        "import torch\n"
        "from timm.utils import NativeScaler\n"
        "\n"
        "\n"
        "def train(model, loader, optimizer, loss_scaler, accum_iter):\n"
        "    optimizer.zero_grad()\n"
        "    for step, (x, y) in enumerate(loader):\n"
        "        loss = (model(x) - y).pow(2).mean() / accum_iter\n"
        "        loss_scaler(loss, optimizer, need_update=(step + 1) % accum_iter == 0)\n"
        "        if (step + 1) % accum_iter == 0:\n"
        "            optimizer.zero_grad()\n",
        "import mindspore\n"
        "from mindspore import amp, ops\n"
        "\n"
        "\n"
        "def train(model, loader, optimizer, loss_scaler, accum_iter):\n"
        "    accum_grads = tuple(ops.zeros_like(p) for p in optimizer.parameters)\n"
        "    def forward_fn(x, y):\n"
        "        loss = (model(x) - y).pow(2).mean() / accum_iter\n"
        "        return loss_scaler.scale(loss)\n"
        "    grad_fn = mindspore.value_and_grad(forward_fn, None, optimizer.parameters)\n"
        "    for step, (x, y) in enumerate(loader):\n"
        "        # torch2ms: TM210 assumes `loss_scaler` is a `NativeScaler` (the one loss scaler this module imports); its callers must pass the converted `NativeScaler`\n"
        "        _, grads = grad_fn(x, y)\n"
        "        accum_grads = tuple(map(ops.add, accum_grads, grads))\n"
        "        need_update = (step + 1) % accum_iter == 0\n"
        "        if need_update:\n"
        "            accum_grads = loss_scaler.unscale(accum_grads)\n"
        "            grads_finite = amp.all_finite(accum_grads)\n"
        "            if grads_finite:\n"
        "                optimizer(accum_grads)\n"
        "            loss_scaler.adjust(grads_finite)\n"
        "        if (step + 1) % accum_iter == 0:\n"
        "            accum_grads = tuple(ops.zeros_like(p) for p in optimizer.parameters)\n",
        id="library",
    ),
]


@pytest.mark.parametrize(("before", "after"), REWRITES)
def test_rewrites(before: str, after: str) -> None:
    code, findings = convert(before)
    assert code == after
    assert not [f for f in findings if f.severity == ERROR], findings


HELPER = (
    "import torch\n"
    "\n"
    "\n"
    "def step(loss, optimizer):\n"
    "    optimizer.zero_grad()\n"
    "    loss.backward()\n"
    "    optimizer.step()\n"
)
NATIVE = "import torch\nfrom timm.utils import NativeScaler\n"
REPORTS = [
    pytest.param(
        "import torch\n\n\n"
        "class LossScaler:\n"
        "    def __init__(self):\n"
        "        self._scaler = torch.amp.GradScaler('cpu')\n\n"
        "    def __call__(self, loss, optimizer, create_graph=False):\n"
        "        self._scaler.scale(loss).backward(create_graph=create_graph)\n"
        "        self._scaler.step(optimizer)\n"
        "        self._scaler.update()\n\n\n"
        "def train(model, loader, optimizer, loss_scaler):\n"
        "    for x, y in loader:\n"
        "        optimizer.zero_grad()\n"
        "        loss = (model(x) - y).pow(2).mean()\n"
        "        loss_scaler(loss, optimizer, create_graph=True)\n",
        "a higher-order backward through its loss scaling (`create_graph=True`)",
        id="create_graph_true",
    ),
    pytest.param(
        NATIVE + "\n\n"
        "def train(model, loader, optimizer, loss_scaler=None):\n"
        "    for x, y in loader:\n"
        "        optimizer.zero_grad()\n"
        "\n"
        "        def _backward(_loss):\n"
        "            if loss_scaler is not None:\n"
        "                loss_scaler(_loss, optimizer)\n"
        "\n"
        "        loss = (model(x) - y).pow(2).mean()\n"
        "        _backward(loss)\n",
        "runs under `if loss_scaler is not None:`, so which backward runs",
        id="scaled_on_some_paths",
    ),
    pytest.param(
        NATIVE + "\n\n"
        "def train(model, loader, optimizer, loss_scaler=None):\n"
        "    for x, y in loader:\n"
        "        optimizer.zero_grad()\n"
        "\n"
        "        def _backward(_loss):\n"
        "            scaled = loss_scaler is not None\n"
        "            if scaled:\n"
        "                loss_scaler(_loss, optimizer)\n"
        "            else:\n"
        "                _loss.backward()\n"
        "                optimizer.step()\n"
        "\n"
        "        loss = (model(x) - y).pow(2).mean()\n"
        "        _backward(loss)\n",
        "a value the helper computes, which its callers cannot evaluate",
        id="choice_on_a_computed_value",
    ),
    pytest.param(
        NATIVE + "\n\n"
        "def train(model, loader, optimizer, loss_scaler=None):\n"
        "    for x, y in loader:\n"
        "        optimizer.zero_grad()\n"
        "\n"
        "        def _backward(_loss):\n"
        "            if optimizer.param_groups[0]['lr'] > 0.1:\n"
        "                _loss.backward()\n"
        "                optimizer.step()\n"
        "            else:\n"
        "                _loss.backward()\n"
        "                print(_loss.item())\n"
        "                optimizer.step()\n"
        "\n"
        "        loss = (model(x) - y).pow(2).mean()\n"
        "        _backward(loss)\n",
        "cannot be summarised: it reads the loss `_loss` after its backward()",
        id="choice_with_a_branch_that_reads_the_loss",
    ),
    pytest.param(
        "import torch\n\n\n"
        "def step(loss, optimizer):\n"
        "    loss.backward()\n"
        "    optimizer.step()\n"
        "    return loss.item()\n\n\n"
        "def train(model, loader, optimizer):\n"
        "    for x, y in loader:\n"
        "        optimizer.zero_grad()\n"
        "        step((model(x) - y).pow(2).mean(), optimizer)\n",
        "it reads the loss `loss` after its backward()",
        id="reads_the_loss",
    ),
    pytest.param(
        HELPER + "\n\n"
        "def train(model, loader, optimizer):\n"
        "    for x, y in loader:\n"
        "        result = step((model(x) - y).pow(2).mean(), optimizer)\n",
        "the value of this call of `step` is used",
        id="value_used",
    ),
    pytest.param(
        "import torch\n\n\n"
        "def train_one_epoch(model, loader, optimizer, loss_scaler):\n"
        "    for x, y in loader:\n"
        "        loss = (model(x) - y).pow(2).mean()\n"
        "        optimizer.zero_grad()\n"
        "        loss_scaler(loss, optimizer, clip_grad=1.0, parameters=model.parameters())\n",
        "whose definition is not in this file",
        id="scaler_in_another_file",
    ),
    pytest.param(
        "import torch\nfrom timm.utils import ApexScaler\n\n\n"
        "def train(model, loader, optimizer):\n"
        "    loss_scaler = ApexScaler()\n"
        "    for x, y in loader:\n"
        "        optimizer.zero_grad()\n"
        "        loss_scaler((model(x) - y).pow(2).mean(), optimizer)\n",
        "apex's `amp.scale_loss` has no MindSpore form",
        id="apex",
    ),
]


@pytest.mark.parametrize(("source", "reason"), REPORTS)
def test_reports_with_a_specific_reason(source: str, reason: str) -> None:
    code, findings = convert(source)
    messages = [f.message for f in findings if f.rule == "TM928"]
    assert any(reason in m for m in messages), messages
    assert all(f.severity == ERROR for f in findings if f.rule == "TM928")
    # The step stays as torch wrote it, and no generic "no certain mapping" stands for backward().
    assert not any(f.rule == "TM900" and "backward" in f.message for f in findings), (
        findings
    )
    helper_lines = [line for line in source.splitlines() if ".backward(" in line]
    for line in helper_lines:
        assert line in code


def test_helper_kept_when_one_call_is_left() -> None:
    """A helper called twice, once where the rule cannot rewrite the call: both calls and the
    helper keep passing the loss."""
    source = (
        HELPER + "\n\n"
        "def train(model, loader, optimizer):\n"
        "    for x, y in loader:\n"
        "        loss = (model(x) - y).pow(2).mean()\n"
        "        step(loss, optimizer)\n"
        "\n\n"
        "def finetune(model, batch, optimizer):\n"
        "    kept = step((model(batch[0]) - batch[1]).abs().mean(), optimizer)\n"
    )
    code, findings = convert(source)
    assert "loss.backward()" in code
    assert "step(loss, optimizer)" in code
    assert any(
        f.rule == "TM928" and "its call at line 17 is left unconverted" in f.message
        for f in findings
    ), findings


def test_cuda_native_scaler_warns_on_cpu() -> None:
    source = (
        (CASES / "timm_native_scaler.py")
        .read_text()
        .replace('NativeScaler(device="cpu")', "NativeScaler()")
    )
    code, findings = convert(source)
    assert "amp.DynamicLossScaler(scale_value=2 ** 16" in code
    assert "timm" not in code.split('"""', 2)[2]
    assert any(f.rule == "TM204" and "torch disables" in f.message for f in findings), (
        findings
    )


@pytest.mark.real
@pytest.mark.slow
@pytest.mark.parametrize("device", ['"cpu"', None])
def test_native_scaler_matches_timm(tmp_path, device) -> None:
    """The call written out from the table computes what timm's NativeScaler computes: losses of
    every step and the final parameters, with gradient accumulation and clipping."""
    require_module("torch")
    require_module("mindspore")
    require_module("timm")
    from torch2ms.migrator.corpus import Pair
    from torch2ms.migrator.verify import verify_pair

    source = (CASES / "timm_native_scaler.py").read_text()
    if device is None:
        source = source.replace('NativeScaler(device="cpu")', "NativeScaler()")
    original = tmp_path / "original.py"
    original.write_text(source)
    report = verify_pair(Pair("native_scaler", str(original)), backend="real")
    assert report["status"] == "pass", report
    assert report["compared"] >= 9
    assert "TM210" in report["rules"]


ACCELERATE = (
    "import torch\n"
    "from accelerate import Accelerator\n"
    "\n"
    "accelerator = Accelerator(cpu=True)\n"
    "\n"
    "\n"
    "def train(model, batches, optimizer, criterion):\n"
    "    for inputs, targets in batches:\n"
    "        optimizer.zero_grad()\n"
    "        loss = criterion(model(inputs), targets)\n"
    "        accelerator.backward(loss)\n"
    "        accelerator.clip_grad_norm_(model.parameters(), max_norm)\n"
    "        optimizer.step()\n"
)


def test_plain_accelerator_backward_and_clipping() -> None:
    """A plain accelerator's backward is the loss's backward and its clipping is torch's."""
    code, findings = convert(ACCELERATE)
    assert "accelerator.backward" not in code
    assert "accelerator.clip_grad_norm_" not in code
    assert "loss, grads = grad_fn(inputs, targets)" in code
    assert "grad_norm = ops.norm(ops.stack([ops.norm(g) for g in grads]))" in code
    assert code.index("grad_norm = ") < code.index("optimizer(grads)")
    assert not [f for f in findings if f.severity == ERROR], findings


@pytest.mark.parametrize(
    ("arguments", "reason"),
    [
        ('cpu=True, mixed_precision="fp16"', "scales the loss with its own GradScaler"),
        ("gradient_accumulation_steps=4", "divides the loss by the accumulation steps"),
    ],
)
def test_accelerator_that_changes_the_loss_is_reported(arguments, reason) -> None:
    source = ACCELERATE.replace("Accelerator(cpu=True)", f"Accelerator({arguments})")
    code, findings = convert(source)
    assert "accelerator.backward(loss)" in code
    messages = [f.message for f in findings if f.rule == "TM928"]
    assert any(reason in m for m in messages), messages


CHOSEN = (
    NATIVE + "from timm import utils\n\n\n"
    "def train(model, loader, optimizer, args, loss_scaler=None):\n"
    "    second_order = getattr(optimizer, 'is_second_order', False)\n"
    "    for x, y in loader:\n"
    "        optimizer.zero_grad()\n"
    "\n"
    "        def _backward(_loss):\n"
    "            if loss_scaler is not None:\n"
    "                loss_scaler(_loss, optimizer, clip_grad=args.clip_grad,\n"
    "                            clip_mode=args.clip_mode, parameters=model.parameters(),\n"
    "                            create_graph=second_order)\n"
    "            else:\n"
    "                _loss.backward(create_graph=second_order)\n"
    "                utils.dispatch_clip_grad(model.parameters(), args.clip_grad, mode=args.clip_mode)\n"
    "                optimizer.step()\n"
    "\n"
    "        loss = (model(x) - y).pow(2).mean()\n"
    "        _backward(loss)\n"
)


def test_backward_chosen_at_run_time_is_rewritten_branch_by_branch() -> None:
    """timm's `_backward`: the loss scaler when one is given, a plain backward when not. The
    caller differentiates the loss each branch scales, the helper keeps its `if` with each branch
    on gradients, the clipping mode is read at run time, and a true `create_graph` raises."""
    code, findings = convert(CHOSEN)
    assert not [f for f in findings if f.severity == ERROR], findings
    assert (
        "return (loss_scaler.scale(loss) if loss_scaler is not None else loss)" in code
    )
    assert "def _backward(grads):" in code
    assert "            if loss_scaler is not None:" in code
    assert code.count("ms_aux.clip_grads(grads, optimizer.parameters, ") == 2
    assert "args.clip_grad, args.clip_mode, 2.0)" in code
    assert code.count("if second_order:\n") == 2
    assert "raise NotImplementedError" in code
    assert ".backward(" not in code
    assert "import torch" not in code
    assert any(
        f.rule == "TM210" and "create_graph=second_order" in f.message for f in findings
    )
    again, _ = convert(code)
    assert again == code


def test_data_branches_after_a_forward_statement_stay_in_the_forward_region() -> None:
    """DeiT's step: `if mixup_fn is not None: samples, targets = mixup_fn(...)`, then branches that
    reshape what it produced (`if args.cosub: samples = torch.cat(...)`). Those branches read a
    value the step computed, so they are not data preparation: they go into the differentiated
    function with the rest, and the step is rewritten."""
    source = (
        NATIVE + "import math\nimport sys\n\n\n"
        "def train_one_epoch(model, criterion, loader, optimizer, loss_scaler, args, mixup_fn=None):\n"
        "    for samples, targets in loader:\n"
        "        if mixup_fn is not None:\n"
        "            samples, targets = mixup_fn(samples, targets)\n"
        "        if args.cosub:\n"
        "            samples = torch.cat((samples, samples), dim=0)\n"
        "        if args.bce_loss:\n"
        "            targets = targets.gt(0.0).type(targets.dtype)\n"
        "        outputs = model(samples)\n"
        "        loss = criterion(outputs, targets)\n"
        "        loss_value = loss.item()\n"
        "        if not math.isfinite(loss_value):\n"
        "            sys.exit(1)\n"
        "        optimizer.zero_grad()\n"
        "        loss_scaler(loss, optimizer, clip_grad=1.0, parameters=model.parameters())\n"
    )
    code, findings = convert(source)
    assert not [f for f in findings if f.rule in ("TM926", "TM928")], findings
    forward = code.split("def forward_fn")[1].split("grad_fn =")[0]
    assert "mixup_fn(samples, targets)" in forward
    assert "ops.cat((samples, samples), axis=0)" in forward
