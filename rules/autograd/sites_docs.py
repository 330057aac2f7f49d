"""Docs and examples of TM101 (backward), TM102 (autograd.grad) and TM108 (retain_graph)."""

from __future__ import annotations

from ...migrator.rule import Example, RuleMeta, define

BACKWARD = RuleMeta(
    id="TM101",
    title="`backward()` becomes `mindspore.grad` / `value_and_grad` of the forward function",
    what="Rewrites `z.backward()` and `torch.autograd.backward(z)` on a value computed from leaf tensors "
    "(`requires_grad=True`, `Variable(..., requires_grad=True)`, `requires_grad_()`): the statements "
    "from the leaves to `z` become a function of the leaves, called through `mindspore.grad(fn, "
    "grad_position=...)`, or `mindspore.value_and_grad` when `z` or the intermediates are used "
    "afterwards. Later reads of `x.grad` become the returned gradients; a read before any backward "
    "becomes `None`; a second backward adds to the first, as `.grad` accumulates. A `gradient` argument "
    "(vector-Jacobian product) becomes `mindspore.vjp(fn, *leaves)` and a call of its pullback.",
    why="The seed (梯度求导) explains that PyTorch records a graph during the forward pass and `backward` "
    "fills `.grad` state, while MindSpore records nothing and builds the backward graph from a function "
    "with `grad`: `out = mindspore.grad(net, grad_position=0)(x, y)`. `grad_position` picks the inputs: "
    "0 gives the first input's gradient, (0, 1) a tuple of both. `mindspore.vjp` is MindSpore's "
    "functional form of `backward(gradient)`: it returns the output and a pullback that takes the "
    "sensitivity; `ops.GradOperation(sens_param=True)` computes the same but the seed marks it as not "
    "recommended in current versions.",
    use_instead="`grad_fn = mindspore.value_and_grad(fn, grad_position=(0, 1)); z, (dx, dy) = grad_fn(x, y)`.",
    examples=(
        Example(
            before="import torch\n\n"
            "def grads(x, y):\n"
            "    x.requires_grad_()\n"
            "    y.requires_grad_()\n"
            "    z = x**2 + y\n"
            '    print("x.grad before backward", x.grad)\n'
            "    z.backward()\n"
            "    return z, x.grad, y.grad\n",
            after="import mindspore\n\n"
            "def grads(x, y):\n"
            '    print("x.grad before backward", None)\n'
            "    def z_fn(x, y):\n"
            "        z = x**2 + y\n"
            "        return z\n"
            "    z, (x_grad, y_grad) = mindspore.value_and_grad(z_fn, grad_position=(0, 1))(x, y)\n"
            "    return z, x_grad, y_grad\n",
        ),
        Example(
            before="import torch\n\n"
            "def vjp(a, v):\n"
            "    a.requires_grad_()\n"
            "    b = a * 2\n"
            "    c = b - 1\n"
            "    c.backward(v)\n"
            "    return a.grad\n",
            after="import mindspore\n\n"
            "def vjp(a, v):\n"
            "    def c_fn(a):\n"
            "        b = a * 2\n"
            "        c = b - 1\n"
            "        return c\n"
            "    _, c_vjp = mindspore.vjp(c_fn, a)\n"
            "    (a_grad,) = c_vjp(v)\n"
            "    return a_grad\n",
        ),
        Example(
            before="import torch\n\n"
            "def f(x, model):\n"
            "    x.requires_grad_()\n"
            "    for _ in range(2):\n"
            "        x = model(x)\n"
            "    x.sum().backward()\n",
            after="\n"
            "def f(x, model):\n"
            "    import torch\n"
            "    # torch2ms: TM900 `.requires_grad_()` is not converted: no certain MindSpore mapping; it still runs on torch\n"
            "    x.requires_grad_()\n"
            "    for _ in range(2):\n"
            "        x = model(x)\n"
            "    # torch2ms: TM910 gradient computation not converted: the output is computed by a compound statement (loop, branch or with)\n"
            "    x.sum().backward()\n",
            findings=("TM910",),
        ),
    ),
    family="autograd",
)
AUTOGRAD_GRAD = define(
    "TM102",
    "`torch.autograd.grad` becomes `mindspore.grad`",
    "Rewrites `torch.autograd.grad(outputs, inputs, ...)` into `mindspore.grad(fn, grad_position=...)` "
    "of the function that computes `outputs` from `inputs`. The result keeps torch's tuple shape: one "
    "input gives `(g,)`, several give a tuple. Several outputs are returned together, and MindSpore "
    "sums their gradients (seed: `has_aux=False`). `create_graph=True` needs nothing: a gradient used "
    "in a later `autograd.grad` is recomputed inside the next function, which nests `mindspore.grad` "
    "(higher order). With `allow_unused=True` an input the output does not depend on gives `None`. "
    "`grad_outputs` becomes a `mindspore.vjp` pullback.",
    "The seed: `torch.autograd.grad` returns the gradients instead of filling `.grad`, and migrates "
    "like `backward`; `mindspore.grad` returns them as values too.",
    "`out = (mindspore.grad(net, grad_position=0)(x, y),)`; nest `mindspore.grad(mindspore.grad(f))` "
    "for second derivatives.",
    examples=(
        Example(
            before="import torch as T\n\n"
            "def second_derivative(x):\n"
            "    x.requires_grad_()\n"
            "    y = x ** 3\n"
            "    (dy,) = T.autograd.grad(y, x, create_graph=True)\n"
            "    (d2y,) = T.autograd.grad(dy, x)\n"
            "    return dy, d2y\n",
            after="import mindspore\n\n"
            "def second_derivative(x):\n"
            "    def y_fn(x):\n"
            "        y = x ** 3\n"
            "        return y\n"
            "    def dy_fn(x):\n"
            "        (dy,) = (mindspore.grad(y_fn, grad_position=0)(x),)\n"
            "        return dy\n"
            "    dy, dy_grad = mindspore.value_and_grad(dy_fn, grad_position=0)(x)\n"
            "    (d2y,) = (dy_grad,)\n"
            "    return dy, d2y\n",
        ),
        Example(
            before="from torch import autograd\n\n"
            "def partials(x, y, u):\n"
            "    z = x * y\n"
            "    return autograd.grad(z, [x, y, u], allow_unused=True)\n",
            after="import mindspore\n\n"
            "def partials(x, y, u):\n"
            "    def z_fn(x, y):\n"
            "        z = x * y\n"
            "        return z\n"
            "    grads = mindspore.grad(z_fn, grad_position=(0, 1))(x, y)\n"
            "    return (grads[0], grads[1], None)\n",
        ),
    ),
    family="autograd",
)
RETAIN_GRAPH = define(
    "TM108",
    "`retain_graph=` and `create_graph=` are dropped",
    "Drops `retain_graph=True` and `create_graph=True` from the gradient calls TM101/TM102 rewrite. "
    "Two backwards through one forward reuse the extracted function and give the sum of their "
    "gradients, as `.grad` accumulation does.",
    "The seed (retain_graph): PyTorch frees the recorded graph after `backward`, so a second backward "
    "needs `retain_graph=True`; MindSpore keeps the backward graph that `grad` built, and calling the "
    "gradient function again computes the gradients again. Higher-order gradients come from nesting "
    "`mindspore.grad`, which needs no flag.",
    "Call the gradient function again: `mindspore.grad(fn, grad_position=0)(x)`.",
    examples=(
        Example(
            before="import torch\n\n"
            "def twice(w, a):\n"
            "    w.requires_grad_()\n"
            "    loss = w * a\n"
            "    loss.backward(retain_graph=True)\n"
            "    loss.backward()\n"
            "    return w.grad\n",
            after="import mindspore\n\n"
            "def twice(w, a):\n"
            "    def loss_fn(w):\n"
            "        loss = w * a\n"
            "        return loss\n"
            "    w_grad = mindspore.grad(loss_fn, grad_position=0)(w)\n"
            "    w_grad_new = mindspore.grad(loss_fn, grad_position=0)(w)\n"
            "    w_grad = w_grad + w_grad_new\n"
            "    return w_grad\n",
        ),
    ),
    family="autograd",
)
