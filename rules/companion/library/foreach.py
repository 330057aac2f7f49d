"""`torch._foreach_<op>` for the element-wise ops of one tensor: the op applied to each tensor of a
list. The out-of-place form returns a new list; the in-place form (`_foreach_<op>_`) gives each
tensor its new value (`copy_`) and returns the list, as torch 2.x does."""

from mindspore import ops


def _foreach_each(op):
    """`torch._foreach_<op>(tensors)`: `[op(t) for t in tensors]`."""

    def apply(tensors):
        return [op(t) for t in tensors]

    return apply


def _foreach_in_place(op):
    """`torch._foreach_<op>_(tensors)`: each tensor becomes `op(t)` (`copy_`, which a view takes too); the list is returned."""

    def apply(tensors):
        for tensor in tensors:
            tensor.copy_(op(tensor))
        return list(tensors)

    return apply


def _foreach_frac(x):
    # torch's frac keeps the sign: x - trunc(x)
    return x - ops.trunc(x)


def _foreach_round(x):
    # torch rounds half to even, as ops.round does
    return ops.round(x)


foreach_abs = _foreach_each(ops.abs)
foreach_abs_ = _foreach_in_place(ops.abs)
foreach_acos = _foreach_each(ops.acos)
foreach_acos_ = _foreach_in_place(ops.acos)
foreach_asin = _foreach_each(ops.asin)
foreach_asin_ = _foreach_in_place(ops.asin)
foreach_atan = _foreach_each(ops.atan)
foreach_atan_ = _foreach_in_place(ops.atan)
foreach_ceil = _foreach_each(ops.ceil)
foreach_ceil_ = _foreach_in_place(ops.ceil)
foreach_cos = _foreach_each(ops.cos)
foreach_cos_ = _foreach_in_place(ops.cos)
foreach_cosh = _foreach_each(ops.cosh)
foreach_cosh_ = _foreach_in_place(ops.cosh)
foreach_erf = _foreach_each(ops.erf)
foreach_erf_ = _foreach_in_place(ops.erf)
foreach_erfc = _foreach_each(ops.erfc)
foreach_erfc_ = _foreach_in_place(ops.erfc)
foreach_exp = _foreach_each(ops.exp)
foreach_exp_ = _foreach_in_place(ops.exp)
foreach_expm1 = _foreach_each(ops.expm1)
foreach_expm1_ = _foreach_in_place(ops.expm1)
foreach_floor = _foreach_each(ops.floor)
foreach_floor_ = _foreach_in_place(ops.floor)
foreach_frac = _foreach_each(_foreach_frac)
foreach_frac_ = _foreach_in_place(_foreach_frac)
foreach_lgamma = _foreach_each(ops.lgamma)
foreach_lgamma_ = _foreach_in_place(ops.lgamma)
foreach_log = _foreach_each(ops.log)
foreach_log_ = _foreach_in_place(ops.log)
foreach_log10 = _foreach_each(ops.log10)
foreach_log10_ = _foreach_in_place(ops.log10)
foreach_log1p = _foreach_each(ops.log1p)
foreach_log1p_ = _foreach_in_place(ops.log1p)
foreach_log2 = _foreach_each(ops.log2)
foreach_log2_ = _foreach_in_place(ops.log2)
foreach_neg_ = _foreach_in_place(ops.neg)
foreach_reciprocal = _foreach_each(ops.reciprocal)
foreach_reciprocal_ = _foreach_in_place(ops.reciprocal)
foreach_round = _foreach_each(_foreach_round)
foreach_round_ = _foreach_in_place(_foreach_round)
foreach_rsqrt = _foreach_each(ops.rsqrt)
foreach_rsqrt_ = _foreach_in_place(ops.rsqrt)
foreach_sigmoid = _foreach_each(ops.sigmoid)
foreach_sigmoid_ = _foreach_in_place(ops.sigmoid)
foreach_sign_ = _foreach_in_place(ops.sign)
foreach_sin = _foreach_each(ops.sin)
foreach_sin_ = _foreach_in_place(ops.sin)
foreach_sinh = _foreach_each(ops.sinh)
foreach_sinh_ = _foreach_in_place(ops.sinh)
foreach_tan = _foreach_each(ops.tan)
foreach_tan_ = _foreach_in_place(ops.tan)
foreach_tanh = _foreach_each(ops.tanh)
foreach_tanh_ = _foreach_in_place(ops.tanh)
foreach_trunc = _foreach_each(ops.trunc)
foreach_trunc_ = _foreach_in_place(ops.trunc)
