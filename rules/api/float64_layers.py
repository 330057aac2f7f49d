"""Layers made in float64, and dtypes MindSpore cannot compute in on the CPU (TM960).

A torch layer is made in float64 where its construction passes `dtype=torch.float64` or is the
receiver of `.double()` / `.to(torch.float64)` right there. MindSpore 2.10's CPU kernels differ by
layer:

- BatchNorm has no float64 kernel; the companion's BatchNorm classes compute float64 from float64
  reductions, so such a layer is built from the companion class.
- The convolutions (Conv2D, Conv3D, Conv2DBackpropInput) take float16/float32 only, and nothing
  composes them in float64 with certainty: TM960 reports the line.
- float8 (`torch.float8_e4m3fn`, `torch.float8_e5m2`) has no CPU Cast kernel, so no tensor can be
  made in it: TM960 reports each use on the CPU target.
"""

from __future__ import annotations

import libcst as cst

from ...migrator.context import ModuleContext
from ...migrator.findings import WARNING
from ...migrator.rule import define

NO_DTYPE_KERNEL = define(
    "TM960",
    "A dtype MindSpore has no kernel for on the target",
    "Reports a layer made in float64 whose MindSpore 2.10 CPU kernel takes float16/float32 only "
    "(the convolutions), and float8 dtypes on the CPU, where no Cast kernel makes a tensor in "
    "them. The code is converted; the line fails at run time until it is changed by hand.",
    "MindSpore 2.10's CPU Conv2D, Conv3D and Conv2DBackpropInput reject float64 inputs and "
    "weights, and its CPU Cast has no float8 kernel ('Select CPU operator[Cast] fail! "
    "Unsupported data type!').",
    "Keep the layer in float32 (leave out `dtype=`/`.double()`, cast the input with "
    "`x.astype(mindspore.float32)`); for float8, keep float32 or bfloat16 on CPU, or convert "
    "with `--target ascend`.",
    severity=WARNING,
    family="api",
)

FLOAT64 = frozenset({"torch.float64", "torch.double"})
# Layers whose companion class computes float64 (from reductions with float64 kernels).
FLOAT64_COMPANIONS = frozenset(
    {"torch.nn.BatchNorm1d", "torch.nn.BatchNorm2d", "torch.nn.BatchNorm3d"}
)
NO_FLOAT64_KERNEL = frozenset(
    f"torch.nn.{name}"
    for name in (
        "Conv1d",
        "Conv2d",
        "Conv3d",
        "ConvTranspose1d",
        "ConvTranspose2d",
        "ConvTranspose3d",
    )
)
FLOAT8 = frozenset({"torch.float8_e4m3fn", "torch.float8_e5m2"})


def cast_receiver(call: cst.Call, ctx: ModuleContext) -> cst.Call | None:
    """The construction call `call` casts to float64: `<layer>(...).double()`,
    `<layer>(...).to(torch.float64)`, `<layer>(...).to(dtype=torch.float64)`."""
    func = call.func
    if not isinstance(func, cst.Attribute) or not isinstance(func.value, cst.Call):
        return None
    if func.attr.value == "double" and not call.args:
        return func.value
    if func.attr.value == "to" and len(call.args) == 1:
        arg = call.args[0]
        by_position = arg.keyword is None and not arg.star
        if (by_position or (arg.keyword and arg.keyword.value == "dtype")) and (
            ctx.qualname(arg.value) in FLOAT64
        ):
            return func.value
    return None


def made_float64(call: cst.Call, cast: set[int], ctx: ModuleContext) -> bool:
    """Whether the layer construction ``call`` (original) is made in float64."""
    if id(call) in cast:
        return True
    return any(
        a.keyword is not None
        and a.keyword.value == "dtype"
        and ctx.qualname(a.value) in FLOAT64
        for a in call.args
    )


def report_float64(torch_name: str, ctx: ModuleContext) -> None:
    name = torch_name.rsplit(".", 1)[1]
    ctx.report(
        NO_DTYPE_KERNEL.id,
        f"{name} in float64: MindSpore 2.10's CPU convolution kernels take float16/float32 "
        "only, and the converted layer fails on its first call",
        "Keep the layer in float32 (leave out `dtype=torch.float64` / `.double()`) and cast its "
        "input with `x.astype(mindspore.float32)`; cast the result back if float64 is needed.",
        severity=WARNING,
    )


def report_float8(torch_name: str, ctx: ModuleContext) -> None:
    name = torch_name.rsplit(".", 1)[1]
    ctx.report(
        NO_DTYPE_KERNEL.id,
        f"{name}: MindSpore 2.10 has no CPU Cast kernel for it, so no tensor can be made in "
        "it on the CPU",
        "Keep float32 or bfloat16 on the CPU, or convert with `--target ascend`.",
        severity=WARNING,
    )
