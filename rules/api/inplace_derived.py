"""In-place Tensor methods derived from their out-of-place mapping, not listed one by one.

torch's `x.op_(*args)` computes `x.op(*args)` (or `torch.op(x, *args)`) and writes the result into
`x` in x's dtype. MindSpore 2.10's CPU in-place methods return the result and leave the tensor as
it was, or do not exist; `ops.assign(x, <the out-of-place call>)` writes the result back and casts
it to x's dtype, as torch does (`x.eq_(y)` on a float tensor holds 0.0 and 1.0). The rule decides
where `x` may be named again (rules/api/receivers.assign_root and the in-place chains).

Only methods whose result has the tensor's shape are derived here: `squeeze_`, `t_`, `resize_`
change the shape, which `ops.assign` cannot.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping

from .spec import ApiMapping

# torch 2.13's Tensor methods `op_` whose out-of-place `op` keeps the receiver's shape
# (torch.Tensor's own names; shape-changing ones, views and autograd flags are left out, and so are
# float_power_, which torch runs on float64 tensors only, and mvlgamma_, whose domain depends on p).
TORCH_INPLACE = frozenset(
    """
    abs_ absolute_ acos_ acosh_ add_ addbmm_ addcdiv_ addcmul_ addmm_ addmv_ addr_ arccos_
    arccosh_ arcsin_ arcsinh_ arctan2_ arctan_ arctanh_ asin_ asinh_ atan2_ atan_ atanh_
    baddbmm_ bitwise_and_ bitwise_left_shift_ bitwise_not_ bitwise_or_ bitwise_right_shift_
    bitwise_xor_ ceil_ clamp_ clamp_max_ clamp_min_ clip_ copysign_ cos_ cosh_ cumprod_ cumsum_
    deg2rad_ digamma_ div_ divide_ eq_ erf_ erfc_ erfinv_ exp2_ exp_ expm1_ fix_
    floor_ floor_divide_ fmod_ frac_ gcd_ ge_ greater_ greater_equal_ gt_ heaviside_ hypot_ i0_
    igamma_ igammac_ index_add_ index_copy_ index_fill_ index_put_ index_reduce_ lcm_ ldexp_ le_
    lerp_ less_ less_equal_ lgamma_ log10_ log1p_ log2_ log_ logical_and_ logical_not_
    logical_or_ logical_xor_ logit_ lt_ masked_fill_ masked_scatter_ mul_ multiply_
    nan_to_num_ ne_ neg_ negative_ nextafter_ not_equal_ polygamma_ pow_ put_ rad2deg_
    reciprocal_ relu_ remainder_ renorm_ round_ rsqrt_ scatter_ scatter_add_ scatter_reduce_
    sgn_ sigmoid_ sign_ sin_ sinc_ sinh_ sqrt_ square_ sub_ subtract_ tan_ tanh_ tril_ triu_
    true_divide_ trunc_ xlogy_
    """.split()  # noqa: SIM905 - names as data, one block
)
# torch 2.13's functions `torch.op_(input, ...)`: `op` written back into `input`.
TORCH_FUNCTION_INPLACE = frozenset(
    """
    abs_ acos_ acosh_ addmv_ arccos_ arccosh_ arcsin_ arcsinh_ arctan_ arctanh_ asin_ asinh_
    atan_ atanh_ ceil_ clamp_ clamp_max_ clamp_min_ clip_ cos_ cosh_ deg2rad_ erf_ erfc_ exp2_
    exp_ expm1_ fix_ floor_ frac_ gcd_ i0_ lcm_ ldexp_ log10_ log1p_ log2_ log_ logit_
    nan_to_num_ neg_ negative_ rad2deg_ reciprocal_ relu_ round_ rsqrt_ sigmoid_ sin_ sinc_
    sinh_ sqrt_ square_ tan_ tanh_ trunc_ xlogy_
    """.split()  # noqa: SIM905 - names as data, one block
)
TENSOR = "torch.Tensor."


def _from_method(name: str, base: ApiMapping) -> ApiMapping:
    # A base MindSpore cannot run keeps its status: the rule writes its companion entry back.
    status = "args" if base.translatable else base.status
    return dataclasses.replace(base, torch=TENSOR + name, form="assign", status=status)


def _from_function(name: str, function: ApiMapping) -> ApiMapping | None:
    """`x.op_(a)` from `torch.op(input, a)`: the receiver takes the first parameter's place."""
    if not function.params or function.params[0].startswith("*"):
        return None
    first = function.params[0]
    rename = {
        ("self" if key == first else key): value
        for key, value in function.rename.items()
    }
    transform = {
        ("self" if key == first else key): value
        for key, value in function.transform.items()
    }
    return dataclasses.replace(
        function,
        torch=TENSOR + name,
        kind="method",
        params=("self", *function.params[1:]),
        rename=rename,
        transform=transform,
        form="assign",
        status="args",
        # `Tensor.op` written out takes the receiver first, as the function does.
        spread=False,
    )


def derived_inplace(
    methods: Mapping[str, ApiMapping], functions: Mapping[str, ApiMapping]
) -> Iterable[ApiMapping]:
    """Assign-form mappings for every torch in-place method the tables do not list, from the
    Tensor method's mapping (a report-only one too: its companion entry serves it) or else the
    `torch.*` function's."""
    for name in sorted(TORCH_INPLACE):
        if name in methods:
            continue
        base = methods.get(name[:-1])
        if base is not None and base.form == "call":
            yield _from_method(name, base)
            continue
        function = functions.get("torch." + name[:-1])
        if (
            function is not None
            and function.kind == "function"
            and function.translatable
            and function.form == "call"
        ):
            derived = _from_function(name, function)
            if derived is not None:
                yield derived
    for name in sorted(TORCH_FUNCTION_INPLACE):
        function = functions.get("torch." + name[:-1])
        if (
            "torch." + name not in functions
            and function is not None
            and function.kind == "function"
            and function.translatable
            and function.form == "call"
            and function.params
            and not function.params[0].startswith("*")
        ):
            # `torch.op_(x, ...)`: the same call, its result written back into its first argument.
            yield dataclasses.replace(
                function, torch="torch." + name, form="assign", status="args"
            )
