"""The forward region and data preparation: statements that only prepare data stay where they
stand, and a data statement between two forward statements that a later one reads moves with the
forward computation. Three step shapes seen in real training code hold together here."""

from __future__ import annotations

from conftest import convert_checked
from torch2ms.migrator.findings import ERROR

HEADER = "import math\nimport sys\n\nimport torch\n\nimport imaging\n\n\n"

# The input is normalised after the model has read it, and a second network reads both.
INTERLEAVED = HEADER + (
    "def train(net, critic, loader, optimizer, mse, weight):\n"
    "    for images, _ in loader:\n"
    "        count = len(images)\n"
    "        optimizer.zero_grad()\n"
    "        images = images.to('cpu')\n"
    "        styled = net(images)\n"
    "        styled = imaging.scale_pixels(styled)\n"
    "        images = imaging.scale_pixels(images)\n"
    "        feats_styled = critic(styled)\n"
    "        feats_images = critic(images)\n"
    "        total = 0.0\n"
    "        for a, b in zip(feats_styled, feats_images):\n"
    "            total += mse(a, b[:count])\n"
    "        total *= weight\n"
    "        total.backward()\n"
    "        optimizer.step()\n"
    "        print('total', total.item())\n"
)

# Data branches that reshape what an earlier branch made; the loss value is checked before the step.
BRANCHES = HEADER + (
    "def train(model, criterion, loader, optimizer, args, mix=None):\n"
    "    for samples, targets in loader:\n"
    "        if mix is not None:\n"
    "            samples, targets = mix(samples, targets)\n"
    "        if args.double:\n"
    "            samples = torch.cat((samples, samples), dim=0)\n"
    "            targets = torch.cat((targets, targets), dim=0)\n"
    "        outputs = model(samples)\n"
    "        loss = criterion(outputs, targets)\n"
    "        if not math.isfinite(loss.item()):\n"
    "            sys.exit(1)\n"
    "        optimizer.zero_grad()\n"
    "        loss.backward()\n"
    "        optimizer.step()\n"
)

# A nested data branch: moved to the device, then mixed, only on one path, then a layout branch.
NESTED = HEADER + (
    "def train(model, loss_fn, loader, optimizer, args, mix=None):\n"
    "    for batch, (inputs, target) in enumerate(loader):\n"
    "        if not args.prefetch:\n"
    "            inputs, target = inputs.to('cpu'), target.to('cpu')\n"
    "            if mix is not None:\n"
    "                inputs, target = mix(inputs, target)\n"
    "        if args.channels_last:\n"
    "            inputs = inputs.contiguous(memory_format=torch.channels_last)\n"
    "        output = model(inputs)\n"
    "        loss = loss_fn(output, target)\n"
    "        optimizer.zero_grad()\n"
    "        loss.backward()\n"
    "        optimizer.step()\n"
)


def _converted(source: str) -> tuple[str, str]:
    result = convert_checked(source)
    assert not [f for f in result.findings if f.severity == ERROR], result.findings
    assert ".backward(" not in result.code
    forward = result.code.split("def forward_fn")[1].split("grad_fn =")[0]
    return result.code, forward


def test_data_statement_between_forward_statements_moves_with_them() -> None:
    code, forward = _converted(INTERLEAVED)
    # the normalisation of the input runs after the model read it, inside the forward
    assert forward.index("styled = net(images)") < forward.index(
        "images = imaging.scale_pixels(images)"
    )
    assert forward.index("images = imaging.scale_pixels(images)") < forward.index(
        "feats_images = critic(images)"
    )
    # the inner loop's targets are its own: they are neither arguments nor aux outputs
    assert "def forward_fn(images, count):" in code
    assert "grad_fn(images, count)" in code


def test_data_branches_stay_rewritten_with_the_interleaved_shape() -> None:
    code, forward = _converted(BRANCHES)
    assert "mix(samples, targets)" in forward
    assert "sys.exit(1)" in code.split("grad_fn =")[1]


def test_nested_data_branch_stays_rewritten_with_the_interleaved_shape() -> None:
    code, forward = _converted(NESTED)
    assert forward.index("mix(inputs, target)") < forward.index("output = model(inputs)")
    assert "grad_fn(inputs, target)" in code


# The loss value is read, checked and printed before the backward; the loss is then rebound.
READ_BEFORE = HEADER + (
    "def train(model, criterion, loader, optimizer, accum_iter):\n"
    "    for it, (samples, targets) in enumerate(loader):\n"
    "        outputs = model(samples)\n"
    "        loss = criterion(outputs, targets)\n"
    "        loss_value = loss.item()\n"
    "        if not math.isfinite(loss_value):\n"
    "            print('Loss is {}, stopping training'.format(loss_value))\n"
    "            sys.exit(1)\n"
    "        print('loss', loss.item(), 'mean', outputs.mean().item())\n"
    "        loss = loss / accum_iter\n"
    "        loss.backward()\n"
    "        optimizer.step()\n"
    "        optimizer.zero_grad()\n"
)


def test_reads_of_the_loss_before_the_backward_run_after_the_call() -> None:
    """They take their values from what the call returns: the loss as it was where they read it
    (before `loss / accum_iter`) is returned beside the loss that is differentiated."""
    code, forward = _converted(READ_BEFORE)
    assert "loss_read = loss\n" in forward
    assert forward.index("loss_read = loss") < forward.index("loss = loss / accum_iter")
    assert "return loss, outputs, loss_read" in forward
    loop = code.split("grad_fn =")[1]
    call = loop.index("grad_fn(samples, targets)")
    assert call < loop.index("loss_value = loss_read.item()")
    assert "print('loss', loss_read.item(), 'mean', outputs.mean().item())" in loop
    assert loop.index("sys.exit(1)") < loop.index("optimizer(")
    again = convert_checked(code)
    assert again.code == code


def test_a_read_that_leaves_the_loop_keeps_the_finding() -> None:
    """`continue` between the forward statements cannot run after them: the step stays reported."""
    source = READ_BEFORE.replace("sys.exit(1)", "continue")
    result = convert_checked(source)
    assert any(f.rule in ("TM923", "TM926") for f in result.findings), result.findings
    assert "loss.backward()" in result.code
