"""TM101/TM102/TM108: backward() and autograd.grad become mindspore.grad of an extracted function."""

from __future__ import annotations

import pytest
from torch2ms.migrator.convert import convert_source


def convert(source: str):
    result = convert_source(source, "case.py")
    again = convert_source(result.code, "case.py")
    assert again.code == result.code, "not idempotent"
    compile(result.code, "case.py", "exec")
    return result


REWRITES = [
    pytest.param(
        "import torch\n\n"
        "def f(x):\n"
        "    x.requires_grad_()\n"
        "    y = (x * x).sum()\n"
        "    y.backward()\n"
        "    return x.grad\n",
        "import mindspore\n\n"
        "def f(x):\n"
        "    def y_fn(x):\n"
        "        y = (x * x).sum()\n"
        "        return y\n"
        "    x_grad = mindspore.grad(y_fn, grad_position=0)(x)\n"
        "    return x_grad\n",
        id="grad-of-one-leaf",
    ),
    pytest.param(
        "import torch\n\n"
        "def f(x):\n"
        "    x.requires_grad_()\n"
        "    torch.autograd.backward((x ** 2).sum())\n"
        "    return x.grad\n",
        "import mindspore\n\n"
        "def f(x):\n"
        "    def forward_fn(x):\n"
        "        return (x ** 2).sum()\n"
        "    x_grad = mindspore.grad(forward_fn, grad_position=0)(x)\n"
        "    return x_grad\n",
        id="autograd-backward-expression",
    ),
    pytest.param(
        "import torch\n\n"
        "def f(x, y):\n"
        "    x.requires_grad_()\n"
        "    y.requires_grad_()\n"
        "    h = x * y\n"
        "    z = h.sum()\n"
        "    z.backward()\n"
        "    return h, x.grad, y.grad\n",
        "import mindspore\n\n"
        "def f(x, y):\n"
        "    def z_fn(x, y):\n"
        "        h = x * y\n"
        "        z = h.sum()\n"
        "        return z, h\n"
        "    (z, h), (x_grad, y_grad) = mindspore.value_and_grad(z_fn, grad_position=(0, 1), has_aux=True)(x, y)\n"
        "    return h, x_grad, y_grad\n",
        id="intermediate-read-later-is-aux",
    ),
    pytest.param(
        "import torch\n\n"
        "def f(w):\n"
        "    w.requires_grad_()\n"
        "    print('before', w.grad)\n"
        "    (w * 2).sum().backward()\n"
        "    (w * 3).sum().backward()\n"
        "    w.grad.zero_()\n"
        "    print('zero', w.grad)\n"
        "    (w * 4).sum().backward()\n"
        "    return w.grad\n",
        "import mindspore\n"
        "from mindspore import ops\n\n"
        "def f(w):\n"
        "    print('before', None)\n"
        "    def forward_fn(w):\n"
        "        return (w * 2).sum()\n"
        "    w_grad = mindspore.grad(forward_fn, grad_position=0)(w)\n"
        "    def forward_fn_2(w):\n"
        "        return (w * 3).sum()\n"
        "    w_grad_new = mindspore.grad(forward_fn_2, grad_position=0)(w)\n"
        "    w_grad = w_grad + w_grad_new\n"
        "    print('zero', ops.zeros_like(w))\n"
        "    def forward_fn_3(w):\n"
        "        return (w * 4).sum()\n"
        "    w_grad = mindspore.grad(forward_fn_3, grad_position=0)(w)\n"
        "    return w_grad\n",
        id="accumulate-and-zero",
    ),
    pytest.param(
        "import torch\n\n"
        "def f(a, v):\n"
        "    a.requires_grad_()\n"
        "    b = torch.autograd.grad(a * a, a, grad_outputs=v)\n"
        "    return b\n",
        "import mindspore\n\n"
        "def f(a, v):\n"
        "    def forward_fn(a):\n"
        "        return a * a\n"
        "    b = mindspore.vjp(forward_fn, a)[1](v)\n"
        "    return b\n",
        id="grad-outputs-vjp",
    ),
    pytest.param(
        "from torch.autograd import grad\n\n"
        "def f(x, y):\n"
        "    z = x * y + y\n"
        "    return grad([z, x * 2], [x, y])\n",
        "import mindspore\n\n"
        "def f(x, y):\n"
        "    def forward_fn(x, y):\n"
        "        z = x * y + y\n"
        "        return z, x * 2\n"
        "    return mindspore.grad(forward_fn, grad_position=(0, 1))(x, y)\n",
        id="several-outputs-sum",
    ),
    pytest.param(
        "import torch\n\n"
        "def f(x):\n"
        "    x.requires_grad_()\n"
        "    h = x * 3\n"
        "    h.register_hook(print)\n"
        "    (h * h).sum().backward()\n"
        "    return x.grad\n",
        "import mindspore\n\n"
        "def f(x):\n"
        "    def forward_fn(x):\n"
        "        h = x * 3\n"
        "        # torch2ms: TM913 `register_hook` moved into the differentiated function (PyNative `Tensor.register_hook`)\n"
        "        h.register_hook(print)\n"
        "        return (h * h).sum()\n"
        "    x_grad = mindspore.grad(forward_fn, grad_position=0)(x)\n"
        "    return x_grad\n",
        id="hook-moves-into-function",
    ),
    pytest.param(
        "import torch\n\n"
        "def f(x):\n"
        "    x.requires_grad_()\n"
        "    y = x * 2\n"
        "    flag = y.requires_grad, y.is_leaf, x.is_leaf\n"
        "    return flag, y.grad\n",
        "\n"
        "def f(x):\n"
        "    y = x * 2\n"
        "    flag = True, False, True\n"
        "    return flag, None\n",
        id="static-tape-flags",
    ),
]


@pytest.mark.parametrize(("before", "after"), REWRITES)
def test_rewrites(before: str, after: str) -> None:
    result = convert(before)
    assert result.code == after
    assert not [f for f in result.findings if f.severity == "error"], result.findings


LEFT_ALONE = [
    pytest.param(
        "import torch\n\n"
        "def probe(model, x):\n"
        "    out = model(x).sum()\n"
        "    out.backward()\n"
        "    return model.fc.weight.grad\n",
        "TM910",
        id="module-parameters",
    ),
    pytest.param(
        "import torch\n\n"
        "def f(x):\n"
        "    x.requires_grad_()\n"
        "    h = x * 2\n"
        "    h.retain_grad()\n"
        "    (h * h).sum().backward()\n"
        "    return h.grad\n",
        "TM911",
        id="retain-grad",
    ),
    pytest.param(
        "import torch\n\n"
        "def f(x):\n"
        "    x.requires_grad_()\n"
        "    x.mul_(2)\n"
        "    (x * x).sum().backward()\n"
        "    return x.grad\n",
        "TM914",
        id="in-place-leaf",
    ),
    pytest.param(
        "import torch\n\n"
        "def f(x, model):\n"
        "    x.requires_grad_()\n"
        "    y = model(x)\n"
        "    print(y)\n"
        "    y.sum().backward()\n"
        "    return x.grad\n",
        "TM910",
        id="side-effects-needed-before",
    ),
    pytest.param(
        "import torch\n\n"
        "w = torch.zeros(3, requires_grad=True)\n"
        "for step in range(3):\n"
        "    loss = (w * 2).sum()\n"
        "    loss.backward()\n"
        "print(w.grad)\n",
        "TM910",
        id="leaves-outside-the-loop",
    ),
    pytest.param(
        "import torch\n\n"
        "def f(x, flag):\n"
        "    x.requires_grad_()\n"
        "    if flag:\n"
        "        y = x * 2\n"
        "    else:\n"
        "        y = x * 3\n"
        "    y.sum().backward()\n"
        "    return x.grad\n",
        "TM910",
        id="branch-computes-output",
    ),
    pytest.param(
        "import torch\n\n"
        "def f(x):\n"
        "    x.requires_grad_()\n"
        "    y = x * 2\n"
        "    if y.grad_fn is None:\n"
        "        return None\n"
        "    return y\n",
        "TM912",
        id="grad-fn-control-flow",
    ),
]


@pytest.mark.parametrize(("before", "finding"), LEFT_ALONE)
def test_left_alone_and_reported(before: str, finding: str) -> None:
    result = convert(before)
    assert finding in {f.rule for f in result.findings}, result.findings
    assert "mindspore.grad" not in result.code and "value_and_grad" not in result.code
    # The flags stay when the gradient stays on torch.
    assert "requires_grad" in result.code or "grad_fn" in result.code


def test_backward_followed_by_step_is_the_training_rules() -> None:
    source = (
        "import torch\n\n"
        "def step(w, opt):\n"
        "    w.requires_grad_()\n"
        "    loss = (w * w).sum()\n"
        "    loss.backward()\n"
        "    opt.step()\n"
    )
    result = convert_source(source, "case.py")
    assert "TM101" not in result.rules_applied
    assert not [f for f in result.findings if f.rule == "TM910"]


def test_self_backward_is_not_a_tensor() -> None:
    source = "import torch\n\nclass Layer:\n    def run(self):\n        self.backward()\n        return torch.ones(1)\n"
    result = convert(source)
    assert "self.backward()" in result.code
    assert not [f for f in result.findings if f.rule == "TM910"]


def test_backward_into_an_unnamed_leaf_is_dropped() -> None:
    source = (
        "import torch\n\n"
        "x = torch.ones(2, requires_grad=True)\n"
        "x = x * 2\n"
        "y = x - 1\n"
        "y.backward(x)\n"
        "print(y)\n"
    )
    result = convert(source)
    assert "y.backward" not in result.code
    assert [f for f in result.findings if f.rule == "TM101" and f.severity == "note"]


def test_backward_into_a_rebound_parameter_is_kept() -> None:
    # The caller still holds the leaf and may read its .grad.
    source = (
        "import torch\n\n"
        "def f(x):\n"
        "    x.requires_grad_()\n"
        "    x = x * 2\n"
        "    y = x - 1\n"
        "    y.backward(x)\n"
        "    return y\n"
    )
    result = convert(source)
    assert "y.backward(x)" in result.code
    assert "TM910" in {f.rule for f in result.findings}


def test_allow_unused_gives_none() -> None:
    source = "import torch\n\ndef f(x, u):\n    return torch.autograd.grad((x * x).sum(), [x, u], allow_unused=True)\n"
    result = convert(source)
    assert "(mindspore.grad(forward_fn, grad_position=0)(x), None)" in result.code


def test_unused_input_without_allow_unused_is_reported() -> None:
    source = "import torch\n\ndef f(x, u):\n    return torch.autograd.grad((x * x).sum(), [x, u])\n"
    result = convert(source)
    assert "TM910" in {f.rule for f in result.findings}
    assert "torch.autograd.grad" in result.code


def test_grad_output_read_later_runs_forward_once() -> None:
    source = (
        "import torch\n\n"
        "def f(x):\n"
        "    x.requires_grad_()\n"
        "    y = (x ** 3).sum()\n"
        "    (g,) = torch.autograd.grad(y, x)\n"
        "    return y, g\n"
    )
    after = (
        "import mindspore\n\n"
        "def f(x):\n"
        "    def y_fn(x):\n"
        "        y = (x ** 3).sum()\n"
        "        return y\n"
        "    y, y_grad = mindspore.value_and_grad(y_fn, grad_position=0)(x)\n"
        "    (g,) = (y_grad,)\n"
        "    return y, g\n"
    )
    assert convert(source).code == after


LOOP_BEFORE = (
    "import torch\n\n"
    "def fit(xs, ys, lr):\n"
    "    w = torch.zeros(1, requires_grad=True)\n"
    "    for _ in range(3):\n"
    "        loss = ((w * xs - ys) ** 2).mean()\n"
    "        loss.backward()\n"
    "        with torch.no_grad():\n"
    "            w -= lr * w.grad\n"
    "        w.grad.zero_()\n"
    "    return w\n"
)


def test_gradient_descent_loop_by_hand() -> None:
    result = convert(LOOP_BEFORE)
    assert (
        "    def loss_fn(w):\n        loss = ((w * xs - ys) ** 2).mean()\n        return loss\n    for _ in range(3):\n"
        in result.code
    )
    assert (
        "        w_grad = mindspore.grad(loss_fn, grad_position=0)(w)\n        w -= lr * w_grad\n"
        in result.code
    )
    assert "backward" not in result.code and "w.grad" not in result.code


def test_loop_that_accumulates_across_iterations_is_reported() -> None:
    source = LOOP_BEFORE.replace("        w.grad.zero_()\n", "")
    result = convert(source)
    assert "loss.backward()" in result.code
    assert "TM910" in {f.rule for f in result.findings}


def test_loop_with_an_optimizer_step_is_left_to_the_training_rules() -> None:
    source = LOOP_BEFORE.replace("        w.grad.zero_()\n", "        opt.step()\n")
    result = convert_source(source, "case.py")
    assert "TM101" not in result.rules_applied


def test_mixed_second_derivative_warns() -> None:
    source = (
        "import torch\n\n"
        "def penalty(w, x):\n"
        "    x.requires_grad_()\n"
        "    s = torch.tanh((x * w).sum())\n"
        "    (g,) = torch.autograd.grad(s, x, create_graph=True)\n"
        "    return (g ** 2).sum()\n"
    )
    result = convert(source)
    assert [f for f in result.findings if f.rule == "TM917" and f.severity == "warning"]


def test_grad_fn_anywhere_is_reported() -> None:
    source = "import torch\n\ndef kind(t):\n    return 'op' if t.grad_fn else 'leaf'\n"
    result = convert(source)
    assert "TM912" in {f.rule for f in result.findings}


def test_grad_with_respect_to_module_parameters_uses_weights() -> None:
    source = (
        "import torch\n\n"
        "def parameter_grads(model, x):\n"
        "    loss = model(x).sum()\n"
        "    return torch.autograd.grad(loss, model.parameters())\n"
    )
    result = convert(source)
    assert "mindspore.grad(loss_fn, grad_position=None, weights=model." in result.code
    assert "import torch" not in result.code


@pytest.mark.parametrize(
    "flags",
    [
        "is_grads_batched=False",
        "materialize_grads=False, is_grads_batched=False",
    ],
)
def test_grad_with_torchs_defaults_said_explicitly_is_converted(flags: str) -> None:
    result = convert_source(
        "import torch\nx = torch.tensor([1.0, 2.0], requires_grad=True)\ny = x * x\n"
        f"g = torch.autograd.grad(outputs=[y.sum()], inputs=[x], {flags})\n",
        "case.py",
    )
    assert "torch" not in result.code.replace("mindspore", "")
    assert "mindspore.grad(" in result.code or "mindspore.vjp(" in result.code


def test_grad_batched_is_left_reported() -> None:
    result = convert_source(
        "import torch\nx = torch.tensor([1.0, 2.0], requires_grad=True)\ny = x * x\n"
        "g = torch.autograd.grad(y, x, v, is_grads_batched=True)\n",
        "case.py",
    )
    assert any(f.rule == "TM910" for f in result.findings)


@pytest.mark.parametrize(
    "call",
    [
        "torch.autograd.backward([z])",
        "torch.autograd.backward(tensors=(z,))",
        "torch.autograd.backward([z], [torch.tensor(2.0)])",
    ],
)
def test_backward_of_one_tensor_in_a_sequence_is_that_tensors(call: str) -> None:
    """The gradient is a value, so a flag set on it afterwards is dropped."""
    result = convert_source(
        "import torch\nx = torch.tensor([1.0, 2.0], requires_grad=True)\nz = (x * x).sum()\n"
        f"{call}\nx.grad.requires_grad = False\nresult = x.grad\n",
        "case.py",
    )
    assert "torch" not in result.code.replace("mindspore", "")
    assert "result = x_grad" in result.code
    assert "requires_grad" not in result.code


@pytest.mark.parametrize(
    "call",
    [
        "torch.autograd.backward([z1, z2], [g1, g2], True)",
        "torch.autograd.backward(grad_tensors=[g1, g2], tensors=[z1, z2])",
    ],
)
def test_backward_of_several_tensors_adds_their_gradients(call: str) -> None:
    """Each tensor's vector-Jacobian product is added into the leaf's gradient, as torch does."""
    result = convert_source(
        "import torch\nx = torch.ones(2, 2, requires_grad=True)\n"
        "g1 = torch.ones(2, 2)\ng2 = torch.ones(2, 2) * 2\n"
        f"z1 = x * 3\nz2 = x * x\n{call}\nresult = x.grad\n",
        "case.py",
    )
    assert "torch" not in result.code.replace("mindspore", "")
    assert "x_grad = x_grad + x_grad_new" in result.code
