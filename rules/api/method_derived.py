"""Tensor methods derived from the `torch.*` function of the same name, not listed one by one.

torch's `x.op(*args, **kwargs)` is `torch.op(x, *args, **kwargs)` for every name below (one native
signature serves both). Where the method tables have no row for `op` and the function's row is
certain, the method takes that row with the receiver in the first parameter's place: its keyword
renames (`dim` -> `axis`), defaults, value transforms and target (`x.diff(dim=1)` ->
`ops.diff(x, axis=1)`). Names numpy arrays or builtins also have are left out: for them the
receiver decides, and the tables say so row by row.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping

import numpy as np

from .spec import ApiMapping

# torch 2.13's Tensor methods that are also `torch` functions taking the tensor first (dtype
# names such as `half` and `cfloat` left out).
TORCH_METHOD_FUNCTIONS = frozenset(
    """
    abs absolute acos acosh add addbmm addcdiv addcmul addmm addmv addr adjoint all allclose
    amax amin aminmax angle any arccos arccosh arcsin arcsinh arctan arctan2 arctanh argmax
    argmin argsort argwhere as_strided as_strided_scatter asin asinh atan atan2 atanh baddbmm
    bernoulli bincount bitwise_and bitwise_left_shift bitwise_not bitwise_or bitwise_right_shift
    bitwise_xor bmm broadcast_to ceil cholesky cholesky_inverse cholesky_solve chunk clamp
    clamp_max clamp_min clip clone conj conj_physical copysign corrcoef cos cosh count_nonzero
    cov cross cummax cummin cumprod cumsum deg2rad dequantize det detach diag diag_embed
    diagflat diagonal diagonal_scatter diff digamma dist div divide dot dsplit eig eq equal erf
    erfc erfinv exp exp2 expm1 fix flatten flip fliplr flipud float_power floor floor_divide
    fmax fmin fmod frac frexp gather gcd ge geqrf ger get_device greater greater_equal gt
    hardshrink hash_tensor heaviside histc histogram hsplit hypot i0 igamma igammac index_add
    index_copy index_fill index_put index_reduce index_select inner int_repr inverse is_complex
    is_conj is_distributed is_floating_point is_inference is_neg is_nonzero is_same_size
    is_signed isclose isfinite isinf isnan isneginf isposinf isreal istft kron kthvalue lcm
    ldexp le lerp less less_equal lgamma log log10 log1p log2 log_softmax logaddexp logaddexp2
    logcumsumexp logdet logical_and logical_not logical_or logical_xor logit logsumexp lstsq lt
    lu lu_solve masked_fill masked_scatter masked_select matmul matrix_exp matrix_power max
    maximum mean median min minimum mm mode moveaxis movedim msort mul multinomial multiply mv
    mvlgamma nan_to_num nanmean nanmedian nanquantile nansum narrow narrow_copy ne neg negative
    nextafter nonzero nonzero_static norm not_equal numel orgqr ormqr outer permute pinverse
    polygamma positive pow prelu prod put q_per_channel_axis q_per_channel_scales
    q_per_channel_zero_points q_scale q_zero_point qr qscheme quantile rad2deg ravel reciprocal
    relu remainder renorm repeat_interleave reshape resolve_conj resolve_neg roll rot90 round
    rsqrt scatter scatter_add scatter_reduce select select_scatter sgn sigmoid sign signbit sin
    sinc sinh slice_inverse slice_scatter slogdet smm softmax solve sort split split_with_sizes
    sqrt square squeeze sspaddmm std stft sub subtract sum svd swapaxes swapdims symeig t take
    take_along_dim tan tanh tensor_split tile topk trace transpose triangular_solve tril triu
    true_divide trunc unbind unflatten unique unique_consecutive unsafe_chunk unsafe_split
    unsafe_split_with_sizes unsqueeze var vdot vsplit where xlogy
    """.split()  # noqa: SIM905 - names as data, one block
)
_SHARED = frozenset(
    name
    for kind in (np.ndarray, list, dict, str, set, tuple, bytes, int, float, object)
    for name in dir(kind)
)


def method_from_function(
    function: ApiMapping, name: str, form: str
) -> ApiMapping | None:
    """`x.<name>(a)` from `torch.op(input, a)`: the receiver takes the first parameter's place."""
    if not function.params or function.params[0].startswith("*"):
        return None
    first = function.params[0]

    def moved(table: Mapping[str, str]) -> dict[str, str]:
        return {
            ("self" if key == first else key): value for key, value in table.items()
        }

    return dataclasses.replace(
        function,
        torch="torch.Tensor." + name,
        kind="method",
        params=("self", *function.params[1:]),
        rename=moved(function.rename),
        transform=moved(function.transform),
        form=form,
        status="args",
        # The function written out takes the receiver first.
        spread=False,
    )


def derived_methods(
    methods: Mapping[str, ApiMapping], functions: Mapping[str, ApiMapping]
) -> Iterable[ApiMapping]:
    """A call-form method mapping for every name of ``TORCH_METHOD_FUNCTIONS`` the method tables
    leave out, from the certain mapping of the `torch.*` function."""
    for name in sorted(TORCH_METHOD_FUNCTIONS - _SHARED - set(methods)):
        function = functions.get("torch." + name)
        if (
            function is None
            or function.kind != "function"
            or not function.translatable
            or function.form != "call"
        ):
            continue
        derived = method_from_function(function, name, "call")
        if derived is not None:
            yield derived
