"""--style cell: a plain training step becomes nn.TrainOneStepCell(nn.WithLossCell(...)); any other
step keeps the functional form with a TM207 note that names the reason.

pyupgrade-style cases: source before, source after (converted with --style cell)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from conftest import convert_checked

CELL = [
    pytest.param(
        # the inputs are bound once, before the loop; the loss is criterion(model(x), y)
        "import torch\n"
        "x = load_x()\n"
        "y = load_y()\n"
        "for step in range(3):\n"
        "    opt.zero_grad()\n"
        "    loss = loss_fn(model(x), y)\n"
        "    loss.backward()\n"
        "    opt.step()\n",
        "from mindspore import nn\n"
        "x = load_x()\n"
        "y = load_y()\n"
        "train_net = nn.TrainOneStepCell(nn.WithLossCell(model, loss_fn), opt)\n"
        "for step in range(3):\n"
        "    loss = train_net(x, y)\n",
        id="loop-invariant-inputs",
    ),
    pytest.param(
        # the inputs are the loop's targets; the forward in two statements
        "import torch\n"
        "for data, label in loader:\n"
        "    optimizer.zero_grad()\n"
        "    logits = net(data)\n"
        "    loss = criterion(logits, label)\n"
        "    loss.backward()\n"
        "    optimizer.step()\n"
        "    print('loss', loss.item())\n",
        "from mindspore import nn\n"
        "train_net = nn.TrainOneStepCell(nn.WithLossCell(net, criterion), optimizer)\n"
        "for data, label in loader:\n"
        "    loss = train_net(data, label)\n"
        "    print('loss', loss.item())\n",
        id="loop-bound-inputs",
    ),
    pytest.param(
        # one input bound in the loop, the other outside it (an autoencoder's target is its input)
        "import torch\n"
        "for epoch in range(epochs):\n"
        "    for batch in loader:\n"
        "        loss = criterion(autoencoder(batch), batch)\n"
        "        loss.backward()\n"
        "        optimizer.step()\n"
        "        optimizer.zero_grad()\n",
        "from mindspore import nn\n"
        "train_net = nn.TrainOneStepCell(nn.WithLossCell(autoencoder, criterion), optimizer)\n"
        "for epoch in range(epochs):\n"
        "    for batch in loader:\n"
        "        loss = train_net(batch, batch)\n",
        id="reset-after-step-outer-loop",
    ),
    pytest.param(
        # in a train() function whose parameters are the inputs; the cell is built in the function
        "import torch\n"
        "def train(model, criterion, optimizer, features, labels, epochs):\n"
        "    for epoch in range(epochs):\n"
        "        model.zero_grad()\n"
        "        loss = criterion(model(features), labels)\n"
        "        loss.backward()\n"
        "        optimizer.step()\n"
        "    return loss.item()\n",
        "from mindspore import nn\n"
        "def train(model, criterion, optimizer, features, labels, epochs):\n"
        "    train_net = nn.TrainOneStepCell(nn.WithLossCell(model, criterion), optimizer)\n"
        "    # torch2ms: TM201 assumes `optimizer` holds exactly the parameters of `model`\n"
        "    for epoch in range(epochs):\n"
        "        loss = train_net(features, labels)\n"
        "    return loss.item()\n",
        id="function-parameters",
    ),
    pytest.param(
        # attributes of a trainer
        "import torch\n"
        "class Trainer:\n"
        "    def fit(self, loader):\n"
        "        for x, y in loader:\n"
        "            self.optimizer.zero_grad()\n"
        "            loss = self.criterion(self.model(x), y)\n"
        "            loss.backward()\n"
        "            self.optimizer.step()\n",
        "from mindspore import nn\n"
        "class Trainer:\n"
        "    def fit(self, loader):\n"
        "        train_net = nn.TrainOneStepCell(nn.WithLossCell(self.model, self.criterion), self.optimizer)\n"
        "        for x, y in loader:\n"
        "            loss = train_net(x, y)\n",
        id="trainer-attributes",
    ),
    pytest.param(
        # a model built in an outer loop: the cell is built there too, once per model
        "import torch\n"
        "import torch.nn as nn\n"
        "for width in (4, 8):\n"
        "    model = nn.Linear(width, 2)\n"
        "    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)\n"
        "    for x, y in loader:\n"
        "        optimizer.zero_grad()\n"
        "        loss = criterion(model(x), y)\n"
        "        loss.backward()\n"
        "        optimizer.step()\n",
        "from mindspore import nn\n"
        "from mindspore.experimental import optim\n"
        "for width in (4, 8):\n"
        "    model = nn.Dense(width, 2)\n"
        "    optimizer = optim.Adam(model.trainable_params(), lr=1e-3)\n"
        "    train_net = nn.TrainOneStepCell(nn.WithLossCell(model, criterion), optimizer)\n"
        "    for x, y in loader:\n"
        "        loss = train_net(x, y)\n",
        id="model-per-outer-iteration",
    ),
    pytest.param(
        # several steps on each batch: the cell holds no input, so it is built before both loops
        "import torch\n"
        "for x, y in loader:\n"
        "    for k in range(inner_steps):\n"
        "        optimizer.zero_grad()\n"
        "        loss = criterion(model(x), y)\n"
        "        loss.backward()\n"
        "        optimizer.step()\n",
        "from mindspore import nn\n"
        "train_net = nn.TrainOneStepCell(nn.WithLossCell(model, criterion), optimizer)\n"
        "for x, y in loader:\n"
        "    for k in range(inner_steps):\n"
        "        loss = train_net(x, y)\n",
        id="inputs-of-an-outer-loop",
    ),
    pytest.param(
        # an optimizer made in the loop: the cell is built where the step runs
        "import torch\n"
        "model = torch.nn.Linear(4, 2)\n"
        "for x, y in loader:\n"
        "    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "    optimizer.zero_grad()\n"
        "    loss = criterion(model(x), y)\n"
        "    loss.backward()\n"
        "    optimizer.step()\n",
        "from mindspore import nn\n"
        "from mindspore.experimental import optim\n"
        "model = nn.Dense(4, 2)\n"
        "for x, y in loader:\n"
        "    optimizer = optim.SGD(model.trainable_params(), lr=0.1)\n"
        "    train_net = nn.TrainOneStepCell(nn.WithLossCell(model, criterion), optimizer)\n"
        "    loss = train_net(x, y)\n",
        id="optimizer-made-in-the-loop",
    ),
    pytest.param(
        # clipping by a literal global norm: a custom training cell (seed 003, 梯度裁剪)
        "import torch\n"
        "x, y = data()\n"
        "for step in range(10):\n"
        "    optimizer.zero_grad()\n"
        "    loss = criterion(model(x), y)\n"
        "    loss.backward()\n"
        "    torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)\n"
        "    optimizer.step()\n",
        "import mindspore\n"
        "from mindspore import nn, ops\n"
        "x, y = data()\n"
        "class TrainOneStepWithClipCell(nn.TrainOneStepCell):\n"
        "    def __init__(self, network, optimizer, max_norm):\n"
        "        super().__init__(network, optimizer)\n"
        "        self.max_norm = max_norm\n"
        "\n"
        "    def construct(self, *inputs):\n"
        "        loss, grads = mindspore.value_and_grad(self.network, None, self.weights)(*inputs)\n"
        "        grads = ops.clip_by_global_norm(grads, self.max_norm)\n"
        "        self.optimizer(grads)\n"
        "        return loss\n"
        "train_net = TrainOneStepWithClipCell(nn.WithLossCell(model, criterion), optimizer, 1.0)\n"
        "# torch2ms: TM201 assumes `optimizer` holds exactly the parameters of `model`\n"
        "for step in range(10):\n"
        "    loss = train_net(x, y)\n",
        id="clip-global-norm",
    ),
]


@pytest.mark.parametrize(("before", "after"), CELL)
def test_plain_step_becomes_a_training_cell(before: str, after: str) -> None:
    result = convert_checked(before, style="cell")
    assert result.code == after
    assert "TM208" in result.rules_applied
    assert not [f for f in result.findings if f.rule == "TM207"], result.findings


KEPT = [
    pytest.param(
        "import torch\n"
        "for real, z in loader:\n"
        "    opt_d.zero_grad()\n"
        "    loss_d = bce(disc(real), ones) + bce(disc(gen(z).detach()), zeros)\n"
        "    loss_d.backward()\n"
        "    opt_d.step()\n"
        "    opt_g.zero_grad()\n"
        "    loss_g = bce(disc(gen(z)), ones)\n"
        "    loss_g.backward()\n"
        "    opt_g.step()\n",
        "the step updates several optimizers (`opt_d`, `opt_g`)",
        id="several-optimizers",
    ),
    pytest.param(
        "import torch\n"
        "for i, (x, y) in enumerate(loader):\n"
        "    loss = criterion(model(x), y) / 4\n"
        "    loss.backward()\n"
        "    if (i + 1) % 4 == 0:\n"
        "        optimizer.step()\n"
        "        optimizer.zero_grad()\n",
        "the gradients accumulate over several backward() calls before a step",
        id="accumulation",
    ),
    pytest.param(
        "import torch\n"
        "for x, y in loader:\n"
        "    optimizer.zero_grad()\n"
        "    output = model(x)\n"
        "    loss = criterion(output, y)\n"
        "    loss.backward()\n"
        "    optimizer.step()\n"
        "    correct += (output.argmax(1) == y).sum().item()\n",
        "the loop reads `output` after the step; a training cell returns only the loss",
        id="aux-output-read-later",
    ),
    pytest.param(
        "import torch\n"
        "scaler = torch.cuda.amp.GradScaler()\n"
        "for x, y in loader:\n"
        "    optimizer.zero_grad()\n"
        "    loss = criterion(model(x), y)\n"
        "    scaler.scale(loss).backward()\n"
        "    scaler.step(optimizer)\n"
        "    scaler.update()\n",
        "the step scales the loss (GradScaler)",
        id="scaler",
    ),
    pytest.param(
        "import torch\n"
        "import torch.nn as nn\n"
        "encoder = nn.Linear(4, 3)\n"
        "head = nn.Linear(3, 2)\n"
        "optimizer = torch.optim.SGD(list(encoder.parameters()) + list(head.parameters()), lr=0.1)\n"
        "for x, y in loader:\n"
        "    optimizer.zero_grad()\n"
        "    loss = criterion(head(encoder(x)), y)\n"
        "    loss.backward()\n"
        "    optimizer.step()\n",
        "the loss reads two models (`head`, `encoder`)",
        id="two-models",
    ),
    pytest.param(
        "import torch\n"
        "for x, y in loader:\n"
        "    optimizer.zero_grad()\n"
        "    out = model(x)\n"
        "    loss = criterion(out, y) + 0.1 * out.abs().mean()\n"
        "    loss.backward()\n"
        "    optimizer.step()\n",
        "the loss is not `criterion(model(x), y)`",
        id="extra-loss-term",
    ),
    pytest.param(
        "import torch\n"
        "for x, y in loader:\n"
        "    optimizer.zero_grad()\n"
        "    loss = criterion(model(x.float()), y)\n"
        "    loss.backward()\n"
        "    optimizer.step()\n",
        "the loss is not `criterion(model(x), y)`",
        id="input-expression",
    ),
    pytest.param(
        "import torch\n"
        "import torch.nn.functional as F\n"
        "for x, y in loader:\n"
        "    optimizer.zero_grad()\n"
        "    loss = F.mse_loss(model(x), y)\n"
        "    loss.backward()\n"
        "    optimizer.step()\n",
        "the loss function `F.mse_loss` is a torch function, not a loss cell",
        id="functional-loss",
    ),
    pytest.param(
        "import torch\n"
        "for x, y in loader:\n"
        "    optimizer.zero_grad()\n"
        "    loss = criterion(model(x), y)\n"
        "    loss.backward()\n"
        "    torch.nn.utils.clip_grad_value_(model.parameters(), 0.5)\n"
        "    optimizer.step()\n",
        "the gradients are clipped by value",
        id="clip-value",
    ),
    pytest.param(
        "import torch\n"
        "for x, y in loader:\n"
        "    optimizer.zero_grad()\n"
        "    loss = criterion(model(x), y)\n"
        "    loss.backward()\n"
        "    torch.nn.utils.clip_grad_norm_(model.parameters(), args.clip)\n"
        "    optimizer.step()\n",
        "the clipping threshold is not a literal >= 0.01",
        id="clip-threshold-variable",
    ),
    pytest.param(
        "import torch\n"
        "for x, y in loader:\n"
        "    optimizer.zero_grad()\n"
        "    loss = criterion(model(x), y)\n"
        "    loss.backward()\n"
        "    norm = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)\n"
        "    optimizer.step()\n"
        "    print(norm)\n",
        "the norm that clip_grad_norm_ returns is used",
        id="clip-norm-read",
    ),
    pytest.param(
        "import torch\n"
        "for x, y in loader:\n"
        "    optimizer.zero_grad()\n"
        "    loss = criterion(model(x), y)\n"
        "    log(model.weight)\n"
        "    loss.backward()\n"
        "    optimizer.step()\n",
        "`log(model.weight)` runs between the forward and `optimizer.step()`",
        id="statement-before-step",
    ),
    pytest.param(
        "import torch\n"
        "def train_step(x, y):\n"
        "    optimizer.zero_grad()\n"
        "    loss = criterion(model(x), y)\n"
        "    loss.backward()\n"
        "    optimizer.step()\n"
        "    return loss.item()\n",
        "the step is not inside a loop",
        id="no-loop",
    ),
    pytest.param(
        "import torch\n"
        "for model, criterion in pairs:\n"
        "    optimizer.zero_grad()\n"
        "    loss = criterion(model(x), y)\n"
        "    loss.backward()\n"
        "    optimizer.step()\n",
        "is bound inside the loop",
        id="model-bound-in-the-loop",
    ),
]


@pytest.mark.parametrize(("source", "reason"), KEPT)
def test_other_shapes_keep_the_functional_form_with_a_note(
    source: str, reason: str
) -> None:
    result = convert_checked(source, style="cell")
    functional = convert_checked(source)
    notes = [f for f in result.findings if f.rule == "TM207"]
    assert len(notes) == 1, [(f.rule, f.message) for f in result.findings]
    note = notes[0]
    assert note.severity == "note"
    assert note.message.startswith("--style cell kept the functional form: ")
    assert reason in note.message, note.message
    assert "TrainOneStepCell" not in result.code
    assert "TM208" not in result.rules_applied
    # The code is the functional form, with the note's comment above the loop (or the step).
    assert _without_comment_lines(result.code, note.message) == functional.code
    anchor = source.splitlines()[note.line - 1].strip()
    assert anchor.startswith(("for ", "optimizer.step()")), anchor
    assert not [f for f in functional.findings if f.rule == "TM207"]


def _without_comment_lines(code: str, message: str) -> str:
    return "".join(
        line
        for line in code.splitlines(keepends=True)
        if line.strip() != f"# torch2ms: TM207 {message}"
    )


def test_the_functional_style_writes_no_cell_and_no_note() -> None:
    source = CELL[1].values[0]
    result = convert_checked(source)
    assert "TrainOneStepCell" not in result.code
    assert "value_and_grad" in result.code
    assert not [f for f in result.findings if f.rule in ("TM207", "TM208")]


def test_the_cell_style_is_a_layer_on_top_of_the_functional_rewrite() -> None:
    training = Path(__file__).resolve().parents[2] / "rules" / "training"

    def imported(module: str) -> set[str]:
        tree = ast.parse((training / f"{module}.py").read_text(encoding="utf-8"))
        return {
            node.module or ""
            for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom) and node.level == 1
        } | {
            alias.name
            for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom) and node.level == 1 and not node.module
            for alias in node.names
        }

    assert "cell" not in imported("rewrite")
    assert "rewrite" in imported("cell")
