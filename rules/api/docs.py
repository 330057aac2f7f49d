"""Metadata of the TM4xx rules and of the findings they report (ruff style: what, why, use instead)."""

from __future__ import annotations

from ...migrator.findings import ERROR, WARNING
from ...migrator.rule import Example, RuleMeta, define

_HINT = "MindSpore's PyTorch-MindSpore API mapping table and its difference pages"

API_META = RuleMeta(
    id="TM401",
    title="torch functions, layers and optimizers become their MindSpore counterparts",
    what="Rewrites calls of `torch.*`, `torch.nn.functional.*`, `torch.nn` layers and losses, and "
    "`torch.optim` optimizers and schedulers from the API tables: the callee, the argument names, the "
    "defaults that differ (`nn.Conv2d` gets `pad_mode='pad'` and `has_bias=True`) and value conventions "
    "(BatchNorm momentum m becomes 1 - m). Names used as values (`torch.float32`, `torch.Tensor`) are "
    "renamed too, and so are layer classes inside type annotations and layer classes given as "
    "parameter defaults (`act_layer=nn.ReLU`) when the function only calls the parameter with "
    "arguments MindSpore's class takes as they are (not `act_layer(inplace=True)`); where MindSpore's "
    "class needs a keyword default of its own in every such call, the default becomes "
    "`functools.partial` of it (`act_layer=nn.GELU` called as `act_layer()` becomes "
    "`functools.partial(nn.GELU, approximate=False)`: MindSpore's `GELU()` is the tanh "
    "approximation). A layer class named without a call whose `mindspore.mint.nn` class takes torch's "
    "constructor and forward arguments as they are becomes that class where it runs (`nn.Softshrink`; "
    "with `--target ascend` also `nn.GELU`, `nn.ReLU6`, `nn.AvgPool2d`, `nn.Dropout`, ...). "
    "`@torch.fx.wrap`, `@torch.jit.ignore` and "
    "`@torch.jit.unused` are removed: outside tracing and scripting they return the function itself. "
    "With `--target ascend`, the torch-compatible `mindspore.mint` form is used where the "
    "mapping table lists one.",
    why="Every mapping is checked numerically against torch on MindSpore 2.10 (CPU): the default target "
    "uses `mindspore.ops`/`mindspore.nn` because much of `mindspore.mint` has no CPU kernel there. "
    "`mindspore.experimental.optim` takes torch's optimizer arguments (seed 003 uses it for training).",
    use_instead="`ops.*`, `nn.*` and `mindspore.experimental.optim.*` with the mapped arguments.",
    examples=(
        Example(
            before="import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n\n"
            "layer = nn.Linear(20, 10, bias=False)\n"
            "y = F.relu(torch.sum(x, dim=1), inplace=False)\nz = torch.zeros(2, 3, dtype=torch.float32)\n",
            after="import mindspore\nfrom mindspore import nn, ops\n\n"
            "layer = nn.Dense(20, 10, has_bias=False)\n"
            "y = ops.relu(ops.sum(x, dim=1))\nz = ops.zeros((2, 3), dtype=mindspore.float32)\n",
        ),
        Example(
            before="import torch.nn as nn\n\nconv = nn.Conv2d(3, 16, 3, padding=1)\n"
            "ok = isinstance(conv, nn.Conv2d)\n",
            after="from mindspore import nn\n\nconv = nn.Conv2d(3, 16, 3, padding=1, pad_mode='pad', has_bias=True)\n"
            "ok = isinstance(conv, nn.Conv2d)\n",
        ),
        Example(
            before="import torch\n\nopt = torch.optim.AdamW(params, lr=1e-3, fused=True)\n"
            "sched = torch.optim.lr_scheduler.StepLR(opt, 10)\n",
            after="from mindspore.experimental import optim\n\nopt = optim.AdamW(params, lr=1e-3)\n"
            "sched = optim.lr_scheduler.StepLR(opt, 10)\n",
        ),
        Example(
            before="import torch.nn as nn\n\n\n"
            "def block(dim, act_layer=nn.ReLU, norm_layer=nn.BatchNorm2d) -> nn.Linear:\n"
            "    return norm_layer(dim), act_layer()\n",
            after="from mindspore import nn\n\n\n"
            "def block(dim, act_layer=nn.ReLU, norm_layer=nn.BatchNorm2d) -> nn.Dense:\n"
            "    return norm_layer(dim), act_layer()\n",
        ),
        Example(
            before="import torch.nn.functional as F\n\ny = F.gelu(x)\n",
            after="from mindspore import mint\n\ny = mint.nn.functional.gelu(x)\n",
            options={"target": "ascend"},
        ),
    ),
    severity=WARNING,
    family="api",
)

METHOD_META = define(
    "TM402",
    "Tensor methods become MindSpore Tensor methods",
    "Rewrites Tensor method calls whose MindSpore form differs: `x.size()` becomes `x.shape`, "
    "`x.size(1)` becomes `x.shape[1]`, `x.dim()` becomes `x.ndim`, `x.relu()` becomes `ops.relu(x)`, "
    "`x.std(1)` becomes `ops.std(x, axis=1, ddof=1)`, and in-place methods become `ops.assign`: "
    "`x.mul_(b)` becomes `ops.assign(x, x.mul(b))`. Methods MindSpore's Tensor has with torch's "
    "arguments stay as they are. A method whose name numpy arrays or Python builtins also have is only "
    "rewritten when nothing changes; otherwise it is reported, since the receiver may not be a tensor.",
    "MindSpore 2.x Tensors follow torch's method names and arguments for most methods (checked on "
    "MindSpore 2.10), but not all: `size` is an attribute holding the element count, and on CPU "
    "`add_`/`mul_`/`sub_`/`div_` return the result without changing the tensor.",
    "`x.shape`, `x.ndim`, `ops.relu(x)`.",
    examples=(
        Example(
            before="import torch\n\nx = torch.ones(2, 3)\nn = x.size(0)\nd = x.dim()\ny = x.view(3, 2).relu()\n",
            after="from mindspore import ops\n\nx = ops.ones((2, 3))\nn = x.shape[0]\nd = x.ndim\ny = ops.relu(x.view(3, 2))\n",
        ),
    ),
    severity=WARNING,
    family="api",
)

INIT_META = define(
    "TM403",
    "torch.nn.init functions become MindSpore initializers",
    "Rewrites `nn.init.xavier_uniform_(w, gain=2.0)` to "
    "`w.set_data(initializer(XavierUniform(gain=2.0), w.shape, w.dtype))`.",
    "MindSpore initialises a Parameter from an initializer object instead of filling a tensor in place; "
    "its defaults differ (Normal's sigma is 0.01, torch's std is 1), so they are passed explicitly.",
    "`param.set_data(initializer(<Init>(...), param.shape, param.dtype))` from "
    "`mindspore.common.initializer`.",
    examples=(
        Example(
            before="import torch.nn as nn\n\nnn.init.zeros_(layer.bias)\n",
            after="import mindspore\n\nlayer.bias.set_data(mindspore.common.initializer.initializer("
            "mindspore.common.initializer.Zero(), layer.bias.shape, layer.bias.dtype))\n",
        ),
    ),
    severity=WARNING,
    family="api",
)

NO_MAPPING = define(
    "TM940",
    "torch API with no certain MindSpore mapping",
    "Reports a torch API that the mapping tables list as having no certain rewrite (devices, "
    "distribution, compilation, data loading, APIs whose MindSpore form differs in kind). The code is "
    "left as it is.",
    "A guessed rewrite would compute something else without warning; each entry records why.",
    "The idiom named in the finding's hint; see " + _HINT + ".",
    severity=ERROR,
    family="api",
)

UNSAFE_ARGUMENT = define(
    "TM941",
    "Argument that cannot be carried over",
    "Reports a call whose arguments cannot be mapped with certainty: `out=`, `inplace=True` on a "
    "function, `requires_grad=True`, string padding, `*args`, deprecated `size_average`/`reduce`, "
    "and layer classes passed as values (`act_layer=nn.GELU`) that are later called with torch's "
    "arguments, where MindSpore's class takes other ones.",
    "MindSpore's API has no such argument or a different convention; dropping it would change the result.",
    "The form named in the finding's hint.",
    severity=ERROR,
    family="api",
)

CALL_RESULT = define(
    "TM943",
    "In-place update of a call's result becomes its new value",
    "Reports `f(x).mul_(g)` converted to `f(x).mul(g)`: the receiver is the result of a call of the "
    "program's own (a layer, a function held in a name or attribute) and the statement uses the "
    "in-place call's value.",
    "Nothing but this expression holds a value a function has just computed, so updating it in place "
    "is computing the new value; MindSpore 2.10's CPU in-place methods would return it without "
    "changing the tensor. Only a function that returns a tensor it also holds (its argument, a "
    "stored buffer) would have seen the update in torch.",
    "Nothing to do, unless the function returns a tensor held elsewhere: then write "
    "`y = f(x)` and `ops.assign(y, y * g)`.",
    severity=WARNING,
    family="api",
)

NO_KERNEL = define(
    "TM942",
    "Mapping not available on the target device",
    "Reports an API whose MindSpore counterpart has no kernel on the chosen `--target` in MindSpore "
    "2.10 (for example most of `mindspore.mint` on CPU, `Tensor.zero_()` on CPU).",
    "The converted code would fail at run time with `The kernel ... unregistered`.",
    "Convert with `--target ascend` (or gpu where listed), or write the CPU form named in the hint.",
    severity=ERROR,
    family="api",
)
