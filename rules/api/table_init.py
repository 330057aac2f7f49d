"""`torch.nn.init.*_(tensor, ...)` -> `tensor.set_data(initializer(<Init>(...), tensor.shape, tensor.dtype))`.

The torch functions fill a tensor in place; MindSpore builds an initializer object and sets the
parameter's data from it. ``form="initializer"`` tells the rule to write that statement; the
constructor arguments below map like any call, the tensor being the first torch argument.
"""

from __future__ import annotations

from .spec import ApiMapping

I = "torch.nn.init."
MI = "mindspore.common.initializer."


def init(
    name: str, mindspore: str, params: tuple = (), check: str = "shape", **fields
) -> ApiMapping:
    fields.setdefault("status", "args")
    fields.setdefault("sample", ("f32[4,6]",))
    return ApiMapping(
        torch=I + name,
        mindspore=MI + mindspore,
        kind="function",
        form="initializer",
        params=("tensor",) + params,
        drop=("tensor",),
        check=check,
        **fields,
    )


TABLE = (
    init("zeros_", "Zero", check="values"),
    init("ones_", "One", check="values"),
    init(
        "constant_",
        "Constant",
        ("val",),
        rename={"val": "value"},
        sample=("f32[4,6]", 0.25),
        check="values",
    ),
    init("eye_", "Identity", check="values"),
    init("dirac_", "Dirac", ("groups",), sample=("f32[4,2,3,3]",), check="values"),
    init(
        "normal_",
        "Normal",
        ("mean", "std"),
        rename={"std": "sigma"},
        defaults={"sigma": "1.0"},
        note="MindSpore's sigma defaults to 0.01, torch's std to 1",
        sample=("f32[4,6]", 0.0, 0.5),
    ),
    init(
        "trunc_normal_",
        "TruncatedNormal",
        ("mean", "std", "a", "b"),
        rename={"std": "sigma"},
        defaults={"sigma": "1.0"},
        note="MindSpore's sigma defaults to 0.01, torch's std to 1",
    ),
    init("xavier_uniform_", "XavierUniform", ("gain",), sample=("f32[4,6]", 2.0)),
    init("xavier_normal_", "XavierNormal", ("gain",)),
    init(
        "kaiming_uniform_",
        "HeUniform",
        ("a", "mode", "nonlinearity"),
        rename={"a": "negative_slope"},
        sample=("f32[4,6]", 0.1),
    ),
    init(
        "kaiming_normal_",
        "HeNormal",
        ("a", "mode", "nonlinearity"),
        rename={"a": "negative_slope"},
        sample_kwargs={"mode": "fan_out", "nonlinearity": "relu"},
    ),
    init("orthogonal_", "Orthogonal", ("gain",)),
    ApiMapping(
        torch=I + "uniform_",
        mindspore="",
        kind="function",
        status="report",
        targets=(),
        note="MindSpore's Uniform(scale) draws from [-scale, scale]; for torch's [a, b] write "
        "`w.set_data(ops.uniform(w.shape, mindspore.tensor(a), mindspore.tensor(b)))`",
    ),
)
