"""The MindSpore examples of the gradient chapter (seeds 000/001) under ``torch2ms run``.

The expected text is the guide's printed output, produced by real MindSpore. That build printed
scientific notation with three exponent digits (the Windows C runtime); ``TORCH2MS_MS_EXPONENT_DIGITS=3``
selects that form. With the default (glibc) form, the shim must print what MindSpore 2.10 prints here.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest
from conftest import require_module

GRAD_BASIC = """
import mindspore
print("=== mindspore.grad ===")
x = mindspore.Tensor(1.0)
y = mindspore.Tensor(2.0)
def net(x, y):
    return x**2+y
out = mindspore.grad(net, grad_position=0)(x, y)
print("out", out)
out1 = mindspore.grad(net, grad_position=1)(x, y)
print("out1", out1)
"""
GRAD_BASIC_OUT = """=== mindspore.grad ===
out 2.0
out1 1.0
"""

GRAD_MULTI_OUTPUT = """
import mindspore
print("=== mindspore.grad 多个output ===")
x = mindspore.Tensor(1.0)
y = mindspore.Tensor(2.0)
def net(x, y):
    return x**2+y, x
out = mindspore.grad(net, grad_position=0)(x, y)
print("out", out)
out1 = mindspore.grad(net, grad_position=1)(x, y)
print("out1", out)
"""
GRAD_MULTI_OUTPUT_OUT = """=== mindspore.grad 多个output ===
out 3.0
out1 3.0
"""

GRAD_HAS_AUX = """
import mindspore
print("=== mindspore.grad has_aux ===")
x = mindspore.Tensor(1.0)
y = mindspore.Tensor(2.0)
def net(x, y):
    return x**2+y, x
grad_fcn = mindspore.grad(net, grad_position=0, has_aux=True)
out, _ = grad_fcn(x, y)
print("out", out)
grad_fcn1 = mindspore.grad(net, grad_position=1, has_aux=True)
out, _ = grad_fcn1(x, y)
print("out", out)
"""
GRAD_HAS_AUX_OUT = """=== mindspore.grad has_aux ===
out 2.0
out 1.0
"""

NET = """
import mindspore as ms
from mindspore import nn

class Net(nn.Cell):
    def __init__(self, in_channel, out_channel):
        super(Net, self).__init__()
        self.fc = nn.Dense(in_channel, out_channel, has_bias=False)
        self.loss = nn.MSELoss()

    def construct(self, x, y):
        logits = self.fc(x).squeeze()
        loss = self.loss(logits, y)
        return loss, logits

net = Net(3, 1)
net.fc.weight.set_data(ms.Tensor([[2, 3, 4]], ms.float32))   # 给全连接的weight设置固定值

print("=== weight ===")
for param in net.trainable_params():
    print("name:", param.name, "data:", param.data.asnumpy())
x = ms.Tensor([[1, 2, 3]], ms.float32)
y = ms.Tensor(19, ms.float32)

loss, logits = net(x, y)
print("=== output ===")
print(loss, logits)
"""
NET_OUT = """=== weight ===
name: fc.weight data: [[2. 3. 4.]]
=== output ===
1.0 20.0
"""

GRADS = [
    (
        """
print("=== grads 1 ===")
grad_func = ms.grad(net, grad_position=0, weights=None, has_aux=True)
grad, logit = grad_func(x, y)
print("grad", grad)
print("logit", logit)
""",
        """=== grads 1 ===
grad [[4. 6. 8.]]
logit (Tensor(shape=[], dtype=Float32, value= 20),)
""",
    ),
    (
        """
print("=== grads 2 ===")
grad_func = ms.grad(net, grad_position=1, weights=None, has_aux=True)
grad, logit = grad_func(x, y)
print("grad", grad)
print("logit", logit)
""",
        """=== grads 2 ===
grad -2.0
logit (Tensor(shape=[], dtype=Float32, value= 20),)
""",
    ),
    (
        """
print("=== grads 3 ===")
grad_func = ms.grad(net, grad_position=(0, 1), weights=None, has_aux=True)
grad, logit = grad_func(x, y)
print("grad", grad)
print("logit", logit)
""",
        """=== grads 3 ===
grad (Tensor(shape=[1, 3], dtype=Float32, value=
[[4.00000000e+000, 6.00000000e+000, 8.00000000e+000]]), Tensor(shape=[], dtype=Float32, value= -2))
logit (Tensor(shape=[], dtype=Float32, value= 20),)
""",
    ),
    (
        """
print("=== grads 4 ===")
grad_func = ms.grad(net, grad_position=None, weights=net.trainable_params(), has_aux=True)
grad, logit = grad_func(x, y)
print("grad", grad)
print("logits", logit)
""",
        """=== grads 4 ===
grad (Tensor(shape=[1, 3], dtype=Float32, value=
[[2.00000000e+000, 4.00000000e+000, 6.00000000e+000]]),)
logits (Tensor(shape=[], dtype=Float32, value= 20),)
""",
    ),
    (
        """
print("=== grads 5 ===")
grad_func = ms.grad(net, grad_position=0, weights=net.trainable_params(), has_aux=True)
grad, logit = grad_func(x, y)
print("grad", grad)
print("logit", logit)
""",
        """=== grads 5 ===
grad (Tensor(shape=[1, 3], dtype=Float32, value=
[[4.00000000e+000, 6.00000000e+000, 8.00000000e+000]]), (Tensor(shape=[1, 3], dtype=Float32, value=
[[2.00000000e+000, 4.00000000e+000, 6.00000000e+000]]),))
logit (Tensor(shape=[], dtype=Float32, value= 20),)
""",
    ),
    (
        """
print("=== grads 6 ===")
grad_func = ms.grad(net, grad_position=(0, 1), weights=net.trainable_params(), has_aux=True)
grad, logit = grad_func(x, y)
print("grad", grad)
print("logit", logit)
""",
        """=== grads 6 ===
grad ((Tensor(shape=[1, 3], dtype=Float32, value=
[[4.00000000e+000, 6.00000000e+000, 8.00000000e+000]]), Tensor(shape=[], dtype=Float32, value= -2)), (Tensor(shape=[1, 3], dtype=Float32, value=
[[2.00000000e+000, 4.00000000e+000, 6.00000000e+000]]),))
logit (Tensor(shape=[], dtype=Float32, value= 20),)
""",
    ),
    (
        """
print("=== grads 7 ===")
grad_func = ms.grad(net, grad_position=0, weights=None, has_aux=False)
grad = grad_func(x, y)  # 只有一个输出
print("grad", grad)
""",
        """=== grads 7 ===
grad [[ 6.  9. 12.]]
""",
    ),
    (
        """
class Net2(nn.Cell):
    def __init__(self, in_channel, out_channel):
        super().__init__()
        self.fc = nn.Dense(in_channel, out_channel, has_bias=False)
        self.loss = nn.MSELoss()

    def construct(self, x, y):
        logits = self.fc(x).squeeze()
        loss = self.loss(logits, y)
        return loss + logits

net2 = Net2(3, 1)
net2.fc.weight.set_data(ms.Tensor([[2, 3, 4]], ms.float32))   # 给全连接的weight设置固定值
grads = ms.grad(net2, grad_position=0, weights=None, has_aux=False)
grad = grads(x, y)  # 只有一个输出
print("grad", grad)
""",
        """grad [[ 6.  9. 12.]]
""",
    ),
    (
        """
print("=== value and grad ===")
value_and_grad_func = ms.value_and_grad(net, grad_position=(0, 1), weights=net.trainable_params(), has_aux=True)
value, grad = value_and_grad_func(x, y)
print("value", value)
print("grad", grad)
""",
        """=== value and grad ===
value (Tensor(shape=[], dtype=Float32, value= 1), Tensor(shape=[], dtype=Float32, value= 20))
grad ((Tensor(shape=[1, 3], dtype=Float32, value=
[[4.00000000e+000, 6.00000000e+000, 8.00000000e+000]]), Tensor(shape=[], dtype=Float32, value= -2)), (Tensor(shape=[1, 3], dtype=Float32, value=
[[2.00000000e+000, 4.00000000e+000, 6.00000000e+000]]),))
""",
    ),
    (
        """
from mindspore.amp import StaticLossScaler, all_finite

loss_scale = StaticLossScaler(1024.)  # 静态lossscale

def forward_fn(x, y):
    loss, logits = net(x, y)
    print("loss", loss)
    loss = loss_scale.scale(loss)
    return loss, logits

value_and_grad_func = ms.value_and_grad(forward_fn, grad_position=None, weights=net.trainable_params(), has_aux=True)
(loss, logits), grad = value_and_grad_func(x, y)
print("=== loss scale ===")
print("loss", loss)
print("grad", grad)
print("=== unscale ===")
loss = loss_scale.unscale(loss)
grad = loss_scale.unscale(grad)
print("loss", loss)
print("grad", grad)

# 检查是否溢出，无溢出的话返回True
state = all_finite(grad)
print(state)
""",
        """loss 1.0
=== loss scale ===
loss 1024.0
grad (Tensor(shape=[1, 3], dtype=Float32, value=
[[2.04800000e+003, 4.09600000e+003, 6.14400000e+003]]),)
=== unscale ===
loss 1.0
grad (Tensor(shape=[1, 3], dtype=Float32, value=
[[2.00000000e+000, 4.00000000e+000, 6.00000000e+000]]),)
True
""",
    ),
]

GRADS_8 = """
print("=== grads 8 ===")
grad_func = ms.grad(net, grad_position=None, weights=None, has_aux=True)
grad, logit = grad_func(x, y)
print("grad", grad)
print("logit", logit)
"""
GRADS_8_ERROR = (
    "ValueError: `grad_position` and `weight` can not be None at the same time."
)

SCRIPTS = {
    "grad_basic": (GRAD_BASIC, GRAD_BASIC_OUT),
    "grad_multi_output": (GRAD_MULTI_OUTPUT, GRAD_MULTI_OUTPUT_OUT),
    "grad_has_aux": (GRAD_HAS_AUX, GRAD_HAS_AUX_OUT),
    "net_grads": (
        NET + "".join(code for code, _ in GRADS),
        NET_OUT + "".join(out for _, out in GRADS),
    ),
}


def run(
    tmp_path, name: str, code: str, backend: str = "shim", exponent_digits: int = 2
):
    script = tmp_path / f"{name}.py"
    script.write_text(textwrap.dedent(code), encoding="utf-8")
    env = dict(
        os.environ,
        TORCH2MS_MS_EXPONENT_DIGITS=str(exponent_digits),
        PYTHONIOENCODING="utf-8",
    )
    return subprocess.run(
        [sys.executable, "-m", "torch2ms.cli.run", "--backend", backend, str(script)],
        capture_output=True,
        text=True,
        encoding="utf-8",
        env=env,
        cwd=tmp_path,
        check=False,
    )


@pytest.mark.parametrize("name", sorted(SCRIPTS))
def test_shim_prints_the_guides_table(tmp_path, name):
    code, expected = SCRIPTS[name]
    result = run(tmp_path, name, code, exponent_digits=3)
    assert result.returncode == 0, result.stderr
    assert result.stdout == expected


def test_grads_8_raises_the_guides_error(tmp_path):
    result = run(tmp_path, "grads_8", NET + GRADS_8, exponent_digits=3)
    assert result.returncode == 1
    assert result.stdout == NET_OUT + "=== grads 8 ===\n"
    assert result.stderr.strip().splitlines()[-1] == GRADS_8_ERROR
    assert "grads_8.py" in result.stderr


@pytest.mark.real
def test_real_mindspore_prints_what_the_shim_prints(tmp_path):
    require_module("mindspore")
    # One real process for every script: they are independent, so they run back to back.
    blocks = [
        GRAD_BASIC,
        GRAD_MULTI_OUTPUT,
        GRAD_HAS_AUX,
        SCRIPTS["net_grads"][0],
        GRADS_8,
    ]
    code = "\n".join(textwrap.dedent(b) for b in blocks)
    shim = run(tmp_path, "all_shim", code, "shim")
    real = run(tmp_path, "all_real", code, "real")
    assert shim.returncode == real.returncode == 1, real.stderr
    assert shim.stdout == real.stdout
    assert (
        shim.stderr.strip().splitlines()[-1]
        == real.stderr.strip().splitlines()[-1]
        == GRADS_8_ERROR
    )
