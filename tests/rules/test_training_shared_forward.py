"""TM201/TM204: one forward shared by backwards in exclusive branches (a trainer's
``_run_batch(train)`` with a GradScaler path, a plain path and an evaluation path).

pyupgrade-style cases: source before, source after; then the shapes that must stay reported.
"""

from __future__ import annotations

import pytest
from conftest import convert_checked
from torch2ms.migrator.findings import ERROR, WARNING


def convert(source: str, **options) -> tuple[str, list]:
    result = convert_checked(source, **options)
    return result.code, result.findings


REWRITES = [
    pytest.param(
        "import torch\n"
        "\n"
        "\n"
        "class Trainer:\n"
        "    def _run_batch(self, x, y, train=True):\n"
        "        with torch.set_grad_enabled(train):\n"
        "            _, loss = self.model(x, y)\n"
        "        if train:\n"
        "            self.optimizer.zero_grad(set_to_none=True)\n"
        "            if self.use_amp:\n"
        "                self.scaler.scale(loss).backward()\n"
        "                self.scaler.step(self.optimizer)\n"
        "                self.scaler.update()\n"
        "            else:\n"
        "                loss.backward()\n"
        "                self.optimizer.step()\n"
        "        return loss.item()\n",
        "import mindspore\n"
        "from mindspore import amp\n"
        "\n"
        "\n"
        "class Trainer:\n"
        "    def _run_batch(self, x, y, train=True):\n"
        "        def forward_fn():\n"
        "            # torch2ms: TM103 `set_grad_enabled(<expression>)` unwrapped: values in it are not cut from differentiation when it is False\n"
        "            _, loss = self.model(x, y)\n"
        "            return loss\n"
        "        def forward_fn_scaled():\n"
        "            loss = forward_fn()\n"
        "            return self.scaler.scale(loss), loss\n"
        "        grad_fn_scaled = mindspore.value_and_grad(forward_fn_scaled, None, self.optimizer.parameters, has_aux=True)\n"
        "        grad_fn = mindspore.value_and_grad(forward_fn, None, self.optimizer.parameters)\n"
        "        if train:\n"
        "            if self.use_amp:\n"
        "                (_, loss), grads = grad_fn_scaled()\n"
        "                grads = self.scaler.unscale(grads)\n"
        "                grads_finite = amp.all_finite(grads)\n"
        "                if grads_finite:\n"
        "                    self.optimizer(grads)\n"
        "                self.scaler.adjust(grads_finite)\n"
        "            else:\n"
        "                loss, grads = grad_fn()\n"
        "                self.optimizer(grads)\n"
        "        else:\n"
        "            loss = forward_fn()\n"
        "        return loss.item()\n",
        id="method-amp-plain-eval",
    ),
    pytest.param(
        "import torch\n"
        "for x, y in loader:\n"
        "    out = model(x)\n"
        "    loss = ((out - y) ** 2).mean()\n"
        "    if use_amp:\n"
        "        optimizer.zero_grad()\n"
        "        scaler.scale(loss).backward()\n"
        "        scaler.step(optimizer)\n"
        "        scaler.update()\n"
        "    elif train:\n"
        "        optimizer.zero_grad()\n"
        "        loss.backward()\n"
        "        optimizer.step()\n"
        "    print(loss.item())\n",
        "import mindspore\n"
        "from mindspore import amp\n"
        "def forward_fn(x, y):\n"
        "    out = model(x)\n"
        "    loss = ((out - y) ** 2).mean()\n"
        "    return loss\n"
        "def forward_fn_scaled(x, y):\n"
        "    loss = forward_fn(x, y)\n"
        "    return scaler.scale(loss), loss\n"
        "grad_fn_scaled = mindspore.value_and_grad(forward_fn_scaled, None, optimizer.parameters, has_aux=True)\n"
        "grad_fn = mindspore.value_and_grad(forward_fn, None, optimizer.parameters)\n"
        "for x, y in loader:\n"
        "    if use_amp:\n"
        "        (_, loss), grads = grad_fn_scaled(x, y)\n"
        "        grads = scaler.unscale(grads)\n"
        "        grads_finite = amp.all_finite(grads)\n"
        "        if grads_finite:\n"
        "            optimizer(grads)\n"
        "        scaler.adjust(grads_finite)\n"
        "    elif train:\n"
        "        loss, grads = grad_fn(x, y)\n"
        "        optimizer(grads)\n"
        "    else:\n"
        "        loss = forward_fn(x, y)\n"
        "    print(loss.item())\n",
        id="loop-elif-gets-else",
    ),
    pytest.param(
        "import torch\n"
        'scaler = torch.amp.GradScaler("cpu")\n'
        "def step(x, y, train=True):\n"
        "    out = model(x)\n"
        "    loss = criterion(out, y)\n"
        "    if train:\n"
        "        optimizer.zero_grad()\n"
        "        if use_amp:\n"
        "            scaler.scale(loss).backward()\n"
        "            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)\n"
        "            scaler.step(optimizer)\n"
        "            scaler.update()\n"
        "        else:\n"
        "            loss.backward()\n"
        "            optimizer.step()\n"
        "    else:\n"
        "        accuracy = (out.argmax(1) == y).float().mean()\n"
        "        print(accuracy.item())\n"
        "    return loss.item()\n",
        "import mindspore\n"
        "from mindspore import amp, ops\n"
        "scaler = amp.DynamicLossScaler(scale_value=2 ** 16, scale_factor=2, scale_window=2000)\n"
        "def step(x, y, train=True):\n"
        "    def forward_fn():\n"
        "        out = model(x)\n"
        "        loss = criterion(out, y)\n"
        "        return loss, out\n"
        "    def forward_fn_scaled():\n"
        "        loss, out = forward_fn()\n"
        "        return scaler.scale(loss), loss, out\n"
        "    grad_fn_scaled = mindspore.value_and_grad(forward_fn_scaled, None, optimizer.parameters, has_aux=True)\n"
        "    grad_fn = mindspore.value_and_grad(forward_fn, None, optimizer.parameters, has_aux=True)\n"
        "    if train:\n"
        "        if use_amp:\n"
        "            (_, loss, out), grads = grad_fn_scaled()\n"
        "            # torch2ms: TM201 assumes `optimizer` holds exactly the parameters of `model`\n"
        "            grads = ops.clip_by_global_norm(grads, 1.0)\n"
        "            grads = scaler.unscale(grads)\n"
        "            grads_finite = amp.all_finite(grads)\n"
        "            if grads_finite:\n"
        "                optimizer(grads)\n"
        "            scaler.adjust(grads_finite)\n"
        "        else:\n"
        "            (loss, out), grads = grad_fn()\n"
        "            optimizer(grads)\n"
        "    else:\n"
        "        loss, out = forward_fn()\n"
        "        accuracy = (out.argmax(1) == y).float().mean()\n"
        "        print(accuracy.item())\n"
        "    return loss.item()\n",
        id="eval-reads-aux-and-scaled-clip",
    ),
    pytest.param(
        "import torch\n"
        "class Trainer:\n"
        "    def _run_batch(self, x, y, train=True):\n"
        "        logits = self.model(x)\n"
        "        loss = self.criterion(logits, y)\n"
        "        if train:\n"
        "            self.optimizer.zero_grad()\n"
        "            if self.use_amp:\n"
        "                self.scaler.scale(loss).backward()\n"
        "                self.scaler.step(self.optimizer)\n"
        "                self.scaler.update()\n"
        "            else:\n"
        "                loss.backward()\n"
        "                self.optimizer.step()\n"
        "            return loss.item()\n"
        "        print(logits.argmax(1))\n",
        "import mindspore\n"
        "from mindspore import amp\n"
        "class Trainer:\n"
        "    def _run_batch(self, x, y, train=True):\n"
        "        def forward_fn():\n"
        "            logits = self.model(x)\n"
        "            loss = self.criterion(logits, y)\n"
        "            return loss, logits\n"
        "        def forward_fn_scaled():\n"
        "            loss, logits = forward_fn()\n"
        "            return self.scaler.scale(loss), loss, logits\n"
        "        grad_fn_scaled = mindspore.value_and_grad(forward_fn_scaled, None, self.optimizer.parameters, has_aux=True)\n"
        "        grad_fn = mindspore.value_and_grad(forward_fn, None, self.optimizer.parameters, has_aux=True)\n"
        "        if train:\n"
        "            if self.use_amp:\n"
        "                (_, loss, logits), grads = grad_fn_scaled()\n"
        "                grads = self.scaler.unscale(grads)\n"
        "                grads_finite = amp.all_finite(grads)\n"
        "                if grads_finite:\n"
        "                    self.optimizer(grads)\n"
        "                self.scaler.adjust(grads_finite)\n"
        "            else:\n"
        "                (loss, logits), grads = grad_fn()\n"
        "                self.optimizer(grads)\n"
        "            return loss.item()\n"
        "        else:\n"
        "            loss, logits = forward_fn()\n"
        "        print(logits.argmax(1))\n",
        id="train-branch-returns-eval-falls-through",
    ),
]


@pytest.mark.parametrize(("before", "after"), REWRITES)
def test_rewrite(before: str, after: str) -> None:
    code, findings = convert(before)
    assert code == after
    assert not [f for f in findings if f.severity == ERROR]


_STEP = (
    "        if train:\n"
    "            optimizer.zero_grad()\n"
    "            if use_amp:\n"
    "                scaler.scale(loss).backward()\n"
    "CLIP"
    "                scaler.step(optimizer)\n"
    "                scaler.update()\n"
    "            else:\n"
    "                loss.backward()\n"
    "                optimizer.step()\n"
)


def _trainer(
    scaler: str, between: str = "", test: str = "train", clip: str = ""
) -> str:
    return (
        "import torch\n"
        f"scaler = {scaler}\n"
        "class Trainer:\n"
        "    def run_batch(self, x, y, train=True):\n"
        "        out = model(x)\n"
        "        loss = criterion(out, y)\n"
        + between
        + _STEP.replace("if train:", f"if {test}:").replace("CLIP", clip)
        + "        return loss.item()\n"
    )


_CLIP = "                torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)\n"

REPORTED = [
    pytest.param(
        _trainer(
            'torch.amp.GradScaler("cpu")',
            between="        history.append(loss.item())\n",
        ),
        "TM923",
        id="loss-read-before-the-branches",
    ),
    pytest.param(
        _trainer('torch.amp.GradScaler("cpu")', test="train and loss.item() < 10"),
        "TM923",
        id="branch-test-reads-the-loss",
    ),
    pytest.param(
        _trainer('torch.amp.GradScaler("cpu")', between="        x = x * 2\n"),
        "TM923",
        id="forward-input-rebound-before-the-branches",
    ),
    pytest.param(
        _trainer(
            'torch.amp.GradScaler("cpu")',
            between="        if done:\n            return None\n",
        ),
        "TM923",
        id="path-ends-before-the-backward",
    ),
    pytest.param(
        _trainer("torch.cuda.amp.GradScaler()", clip=_CLIP),
        "TM926",
        id="disabled-cuda-scaler-clipping-scaled-gradients",
    ),
    pytest.param(
        _trainer('torch.amp.GradScaler("cpu", enabled=use_amp)'),
        "TM926",
        id="scaler-that-may-be-disabled",
    ),
    pytest.param(
        "import torch\n"
        "def run_batch(x, y, train):\n"
        "    out = model(x)\n"
        "    loss = criterion(out, y)\n"
        "    if train:\n"
        "        optimizer.zero_grad()\n"
        "        loss.backward()\n"
        "        optimizer.step()\n"
        "    else:\n"
        "        print(out.argmax(1))\n"
        "    if train:\n"
        "        optimizer.zero_grad()\n"
        "        (loss * 2).backward()\n"
        "        optimizer.step()\n"
        "    return loss.item()\n",
        "TM923",
        id="two-backwards-on-one-path",
    ),
    pytest.param(
        "import torch\n"
        "def run_batch(x, y):\n"
        "    out = model(x)\n"
        "    loss = criterion(out, y)\n"
        "    optimizer.zero_grad()\n"
        "    if use_amp:\n"
        "        scaler.scale(loss).backward()\n"
        "        scaler.step(optimizer)\n"
        "        scaler.update()\n"
        "    else:\n"
        "        for _ in range(2):\n"
        "            loss.backward(retain_graph=True)\n"
        "        optimizer.step()\n"
        "    return loss.item()\n",
        None,
        id="backward-inside-a-loop-of-a-branch",
    ),
]


@pytest.mark.parametrize(("source", "rule"), REPORTED)
def test_reported_and_left_alone(source: str, rule: str | None) -> None:
    code, findings = convert(source)
    assert ".backward(" in code
    errors = [f for f in findings if f.severity == ERROR]
    assert errors
    if rule is not None:
        assert rule in {f.rule for f in errors}
    assert "forward_fn" not in code


@pytest.mark.parametrize(
    ("scaler", "severity"),
    [
        pytest.param('torch.amp.GradScaler("cpu")', None, id="cpu-scaler-is-enabled"),
        pytest.param("torch.cpu.amp.GradScaler()", None, id="cpu-amp-scaler"),
        pytest.param("torch.amp.GradScaler(device)", WARNING, id="device-unknown"),
        pytest.param("make_scaler()", WARNING, id="scaler-built-elsewhere"),
    ],
)
def test_clipping_scaled_gradients(scaler: str, severity: str | None) -> None:
    code, findings = convert(_trainer(scaler, clip=_CLIP))
    assert ".backward(" not in code
    index = code.index("grad_fn_scaled()")
    assert index < code.index("clip_by_global_norm") < code.index("scaler.unscale")
    cautions = [f for f in findings if f.rule == "TM204" and "scaled" in f.message]
    if severity is None:
        assert not cautions
    else:
        assert [f.severity for f in cautions] == [severity]


def test_cuda_scaler_is_enabled_with_a_gpu_target() -> None:
    code, findings = convert(
        _trainer("torch.cuda.amp.GradScaler()", clip=_CLIP), target="gpu"
    )
    assert ".backward(" not in code
    assert not [f for f in findings if f.rule == "TM926"]


def test_autocast_in_the_shared_forward_stays_reported() -> None:
    source = (
        "import torch\n"
        "class Trainer:\n"
        "    def _run_batch(self, x, y, train=True):\n"
        "        with torch.set_grad_enabled(train), torch.amp.autocast(device_type=self.device_type, enabled=self.use_amp):\n"
        "            _, loss = self.model(x, y)\n"
        + _STEP.replace("CLIP", "")
        .replace("scaler", "self.scaler")
        .replace("optimizer", "self.optimizer")
        .replace("use_amp", "self.use_amp")
        + "        return loss.item()\n"
    )
    code, findings = convert(source)
    assert ".backward(" not in code
    assert "with torch.amp.autocast(device_type=self.device_type" in code
    assert "TM925" in {f.rule for f in findings if f.severity == ERROR}


def test_cuda_autocast_is_dropped_on_cpu() -> None:
    source = (
        "import torch\n"
        "class Trainer:\n"
        "    def _run_batch(self, x, y, train=True):\n"
        '        with torch.set_grad_enabled(train), torch.amp.autocast(device_type="cuda", enabled=self.use_amp):\n'
        "            _, loss = self.model(x, y)\n"
        + _STEP.replace("CLIP", "")
        + "        return loss.item()\n"
    )
    code, findings = convert(source)
    assert ".backward(" not in code and "autocast(" not in code
    assert [f.severity for f in findings if f.rule == "TM925"] == [WARNING]


def test_both_backwards_count_as_rewritten(tmp_path) -> None:
    import importlib.util
    import sys
    from pathlib import Path

    script = (
        Path(__file__).resolve().parents[2]
        / "scripts"
        / "examples_backward_coverage.py"
    )
    spec = importlib.util.spec_from_file_location("coverage_for_shared", script)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    (tmp_path / "trainer.py").write_text(
        _trainer('torch.amp.GradScaler("cpu")', clip=_CLIP)
    )
    tally = module.measure(str(tmp_path))
    assert (tally.total, tally.rewritten, tally.silent) == (2, 2, [])
