"""``torch.amp.GradScaler(...)`` -> ``mindspore.amp.DynamicLossScaler(...)``.

torch: on overflow ``scale *= backoff_factor``, otherwise after ``growth_interval`` finite steps
``scale *= growth_factor``. MindSpore's DynamicLossScaler divides by ``scale_factor`` on overflow
(never below 1) and multiplies by it after ``scale_window`` finite steps: the same schedule when
``backoff_factor == 1 / growth_factor``.
"""

from __future__ import annotations

import ast

import libcst as cst

from ...migrator.context import ModuleContext

DEFAULTS = {
    "init_scale": 65536.0,
    "growth_factor": 2.0,
    "backoff_factor": 0.5,
    "growth_interval": 2000,
}
POSITIONAL = (
    "device",
    "init_scale",
    "growth_factor",
    "backoff_factor",
    "growth_interval",
    "enabled",
)
CUDA_POSITIONAL = (
    "init_scale",
    "growth_factor",
    "backoff_factor",
    "growth_interval",
    "enabled",
)


def _value(node: cst.BaseExpression):
    try:
        return ast.literal_eval(cst.Module([]).code_for_node(node))
    except (ValueError, SyntaxError):
        return None


def scaler_call(call: cst.Call, ctx: ModuleContext) -> tuple[cst.Call | None, str]:
    qualified = ctx.qualname(call.func)
    names = (
        POSITIONAL
        if qualified in ("torch.amp.GradScaler", "torch.amp.grad_scaler.GradScaler")
        else CUDA_POSITIONAL
    )
    given: dict[str, cst.BaseExpression] = {}
    positional = [a for a in call.args if a.keyword is None]
    if len(positional) > len(names) or any(a.star for a in call.args):
        return None, "GradScaler arguments could not be read"
    for arg, pname in zip(positional, names):
        given[pname] = arg.value
    for arg in call.args:
        if arg.keyword is not None:
            given[arg.keyword.value] = arg.value
    device = (
        "cuda"
        if names is CUDA_POSITIONAL
        else _value(given["device"])
        if "device" in given
        else "cuda"
    )
    if device == "cuda" and ctx.options.target == "cpu":
        # torch disables a CUDA scaler where CUDA is absent, whatever `enabled` says: the
        # converted scaler is exact there as it is for an enabled one (scales by powers of two)
        given.pop("enabled", None)
    if "enabled" in given and _value(given["enabled"]) is not True:
        return (
            None,
            "`GradScaler(enabled=...)` that may be disabled has no MindSpore loss scaler form",
        )
    values = dict(DEFAULTS)
    for key in DEFAULTS:
        if key in given:
            value = _value(given[key])
            if value is None:
                values[key] = given[key]
            else:
                values[key] = value
    growth, backoff = values["growth_factor"], values["backoff_factor"]
    if (
        not isinstance(growth, (int, float))
        or float(growth) != int(growth)
        or int(growth) < 1
    ):
        return None, "MindSpore's loss scaler takes an integer scale factor"
    if (
        not isinstance(backoff, (int, float))
        or abs(float(backoff) * float(growth) - 1.0) > 1e-12
    ):
        return (
            None,
            "`backoff_factor` is not `1 / growth_factor`; MindSpore's scaler divides by its scale factor on overflow",
        )
    scale = values["init_scale"]
    window = values["growth_interval"]
    args = [
        cst.Arg(_node(scale), keyword=cst.Name("scale_value"), equal=_eq()),
        cst.Arg(
            cst.Integer(str(int(growth))), keyword=cst.Name("scale_factor"), equal=_eq()
        ),
        cst.Arg(_node(window), keyword=cst.Name("scale_window"), equal=_eq()),
    ]
    return cst.Call(func=ctx.name("mindspore.amp.DynamicLossScaler"), args=args), ""


def _eq() -> cst.AssignEqual:
    return cst.AssignEqual(
        whitespace_before=cst.SimpleWhitespace(""),
        whitespace_after=cst.SimpleWhitespace(""),
    )


def _node(value) -> cst.BaseExpression:
    if isinstance(value, cst.BaseExpression):
        return value
    if isinstance(value, float) and value.is_integer():
        if value == 65536.0:
            return cst.BinaryOperation(cst.Integer("2"), cst.Power(), cst.Integer("16"))
        return cst.Integer(str(int(value)))
    return cst.parse_expression(repr(value))
