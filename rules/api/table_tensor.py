"""Tensor methods. MindSpore 2.x Tensor methods follow torch's names and arguments for most of these."""

from __future__ import annotations

import dataclasses

from .entries import method, report
from .table_torch import STD_ARGS

_SECTIONS = {"sections": "indices_or_sections", "indices": "indices_or_sections"}
_INT32 = "MindSpore returns int32 indices (dtype), torch int64"

_UNARY = {
    "f32[2,3]": (
        "abs absolute arcsinh arctan asinh atan ceil cos cosh deg2rad erf erfc exp expm1 floor frac i0 "
        "neg negative rad2deg round sigmoid sign sgn sin sinc sinh square tan tanh trunc isfinite isinf "
        "isnan isneginf isposinf isreal signbit ravel contiguous float half double int long "
        "bool numel nelement is_floating_point is_complex is_contiguous fliplr flipud tolist "
        "nonzero argwhere"
    ),
    "f32u[2,3]": "acos arccos asin arcsin atanh arctanh erfinv",
    "f32+[2,3]": "digamma lgamma log log10 log1p log2 reciprocal rsqrt sqrt",
    "f32g[2,3]": "acosh arccosh",
    "bool[2,3]": "logical_not",
    "f32[3,3]": "t trace det inverse",
}

_BINARY = [
    ("add", "f32[2,3]", "f32[2,3]"),
    ("sub", "f32[2,3]", "f32[2,3]"),
    ("subtract", "f32[2,3]", "f32[2,3]"),
    ("mul", "f32[2,3]", "f32[2,3]"),
    ("div", "f32[2,3]", "f32+[2,3]"),
    ("divide", "f32[2,3]", "f32+[2,3]"),
    ("true_divide", "f32[2,3]", "f32+[2,3]"),
    ("fmod", "f32[2,3]", "f32+[2,3]"),
    ("remainder", "f32[2,3]", "f32+[2,3]"),
    ("pow", "f32+[2,3]", "f32[2,3]"),
    ("atan2", "f32[2,3]", "f32[2,3]"),
    ("arctan2", "f32[2,3]", "f32[2,3]"),
    ("hypot", "f32[2,3]", "f32[2,3]"),
    ("maximum", "f32[2,3]", "f32[2,3]"),
    ("minimum", "f32[2,3]", "f32[2,3]"),
    ("fmax", "f32[2,3]", "f32[2,3]"),
    ("eq", "i64[2,3]", "i64[2,3]"),
    ("ne", "i64[2,3]", "i64[2,3]"),
    ("lt", "f32[2,3]", "f32[2,3]"),
    ("le", "f32[2,3]", "f32[2,3]"),
    ("gt", "f32[2,3]", "f32[2,3]"),
    ("ge", "f32[2,3]", "f32[2,3]"),
    ("greater", "f32[2,3]", "f32[2,3]"),
    ("greater_equal", "f32[2,3]", "f32[2,3]"),
    ("less", "f32[2,3]", "f32[2,3]"),
    ("less_equal", "f32[2,3]", "f32[2,3]"),
    ("not_equal", "i64[2,3]", "i64[2,3]"),
    ("logical_and", "bool[2,3]", "bool[2,3]"),
    ("logical_or", "bool[2,3]", "bool[2,3]"),
    ("logical_xor", "bool[2,3]", "bool[2,3]"),
    ("bitwise_and", "i64[2,3]", "i64[2,3]"),
    ("bitwise_or", "i64[2,3]", "i64[2,3]"),
    ("bitwise_xor", "i64[2,3]", "i64[2,3]"),
    ("logaddexp", "f32[2,3]", "f32[2,3]"),
    ("logaddexp2", "f32[2,3]", "f32[2,3]"),
    ("copysign", "f32[2,3]", "f32[2,3]"),
    ("nextafter", "f32[2,3]", "f32[2,3]"),
    ("xlogy", "f32+[2,3]", "f32+[2,3]"),
    ("gcd", "i64[2,3]", "i64[2,3]"),
    ("lcm", "i64[2,3]", "i64[2,3]"),
    ("inner", "f32[2,3]", "f32[4,3]"),
    ("outer", "f32[3]", "f32[4]"),
    ("ger", "f32[3]", "f32[4]"),
    ("matmul", "f32[2,3]", "f32[3,4]"),
    ("mm", "f32[2,3]", "f32[3,4]"),
    ("bmm", "f32[2,2,3]", "f32[2,3,4]"),
    ("float_power", "f32+[2,3]", "f32[2,3]"),
    ("heaviside", "f32[2,3]", "f32[2,3]"),
    ("expand_as", "f32[1,3]", "f32[2,3]"),
    ("view_as", "f32[2,3]", "f32[3,2]"),
    ("reshape_as", "f32[2,3]", "f32[3,2]"),
    ("type_as", "i64[2,3]", "f32[2,3]"),
    ("masked_select", "f32[2,3]", "bool[2,3]"),
    ("isclose", "f32[2,3]", "f32[2,3]"),
]

_OTHER = [
    method(
        "sum",
        params=("self", "dim", "keepdim"),
        sample=("f32[2,3,4]", 1, True),
        sample_kwargs={"dtype": "dtype:float64"},
    ),
    method("mean", params=("self", "dim", "keepdim"), sample=("f32[2,3,4]", (0, 2))),
    method("prod", params=("self", "dim", "keepdim"), sample=("f32[2,3]", 1)),
    method(
        "nansum",
        "mindspore.ops.nansum",
        params=("self", "dim", "keepdim"),
        sample=("f32[2,3]", 1),
        rename={"dim": "axis", "keepdim": "keepdims"},
        positional=3,
    ),
    method("max", params=("self", "dim", "keepdim"), sample=("f32[2,3]", 1)),
    method("min", params=("self", "dim", "keepdim"), sample=("f32[2,3]", 1, True)),
    method(
        "amax",
        params=("self", "dim", "keepdim"),
        sample=("f32[2,3,4]", (0, 2)),
        rename={"dim": "axis", "keepdim": "keepdims"},
        positional=3,
    ),
    method(
        "amin",
        params=("self", "dim", "keepdim"),
        sample=("f32[2,3,4]", -1),
        rename={"dim": "axis", "keepdim": "keepdims"},
        positional=3,
    ),
    method("argmax", params=("self", "dim", "keepdim"), sample=("f32[2,3]", 1)),
    method(
        "argmin", params=("self", "dim", "keepdim"), sample=("f32[2,3]", 1), note=_INT32
    ),
    method(
        "std",
        "mindspore.ops.std",
        params=("self", "dim"),
        sample=("f32[2,3]", 1),
        **STD_ARGS,
    ),
    method(
        "var",
        "mindspore.ops.var",
        params=("self", "dim"),
        sample=("f32[2,3]", 1),
        sample_kwargs={"keepdim": True, "unbiased": False},
        **STD_ARGS,
    ),
    method("logsumexp", params=("self", "dim", "keepdim"), sample=("f32[2,3]", 1)),
    method(
        "median",
        requires=("dim",),
        note="without dim torch returns one value",
        params=("self", "dim", "keepdim"),
        sample=("f32[2,5]", 1),
    ),
    method(
        "norm",
        params=("self", "p", "dim", "keepdim"),
        sample=("f32[2,3]", 2, 1),
        rename={"p": "ord"},
        positional=4,
    ),
    method("cumsum", params=("self", "dim"), sample=("f32[2,3]", 1)),
    method("cumprod", params=("self", "dim"), sample=("f32[2,3]", 1)),
    method("all", params=("self", "dim", "keepdim"), sample=("bool[2,3]", 1)),
    method("any", params=("self", "dim", "keepdim"), sample=("bool[2,3]", 1)),
    method(
        "count_nonzero",
        "mindspore.ops.count_nonzero",
        params=("self", "dim"),
        sample=("i64[2,3]", 1),
        rename={"dim": "axis"},
        positional=2,
        defaults={"dtype": "mindspore.int64"},
        transform={"dim": "none_all_axes"},
    ),
    method("view", params=("self", "*size"), sample=("f32[2,3]", 3, 2)),
    method("reshape", params=("self", "*shape"), sample=("f32[2,3]", (3, 2))),
    method(
        "flatten", params=("self", "start_dim", "end_dim"), sample=("f32[2,3,4]", 1)
    ),
    method(
        "squeeze",
        params=("self", "dim"),
        sample=("f32[2,1,3]", 1),
        rename={"dim": "axis"},
        positional=2,
    ),
    method("unsqueeze", params=("self", "dim"), sample=("f32[2,3]", -1)),
    method("transpose", params=("self", "dim0", "dim1"), sample=("f32[2,3,4]", 0, 2)),
    method("permute", params=("self", "*dims"), sample=("f32[2,3,4]", 2, 0, 1)),
    method("expand", params=("self", "*size"), sample=("f32[1,3]", 2, 3)),
    method(
        "repeat",
        "mindspore.ops.tile",
        params=("self", "*repeats"),
        sample=("f32[2,3]", 2, 1, 1),
        rename={"repeats": "dims"},
        note="Tensor.repeat has no CPU kernel in MindSpore 2.10; tile repeats alike",
    ),
    method("split", params=("self", "split_size", "dim"), sample=("f32[4,3]", 2)),
    # torch also takes the count as `sections=` and the split points as `indices=`.
    method(
        "tensor_split",
        "mindspore.ops.tensor_split",
        params=("self", "indices_or_sections", "dim"),
        sample=("f32[5,3]", 2, 1),
        rename=_SECTIONS | {"dim": "axis"},
        positional=3,
    ),
    method(
        "dsplit",
        "mindspore.ops.dsplit",
        params=("self", "indices_or_sections"),
        sample=("f32[2,2,4]", [1, 3]),
        rename=_SECTIONS,
        positional=2,
    ),
    method("chunk", params=("self", "chunks", "dim"), sample=("f32[4,3]", 2, 0)),
    method("unbind", params=("self", "dim"), sample=("f32[2,3]", 1)),
    method(
        "flip",
        params=("self", "*dims"),
        spread=False,
        transform={"dims": "int_to_tuple"},
        sample=("f32[2,3]", 0),
        note="MindSpore's flip takes the dims as a tuple",
    ),
    method("tile", params=("self", "dims"), sample=("f32[2,3]", (2, 1))),
    method(
        "narrow",
        "mindspore.ops.narrow",
        params=("self", "dim", "start", "length"),
        sample=("f32[4,3]", 0, 1, 2),
        rename={"dim": "axis"},
        positional=4,
    ),
    method(
        "gather", params=("self", "dim", "index"), sample=("f32[3,4]", 1, "i64[3,2]")
    ),
    method(
        "index_select",
        params=("self", "dim", "index"),
        sample=("f32[5,3]", 0, "i64[2]"),
    ),
    method(
        "masked_fill",
        params=("self", "mask", "value"),
        sample=("f32[2,3]", "bool[2,3]", 0.5),
    ),
    method(
        "scatter",
        params=("self", "dim", "index", "src"),
        sample=("f32[3,4]", 1, "i64[3,1]", "f32[3,1]"),
    ),
    method(
        "scatter_add",
        params=("self", "dim", "index", "src"),
        sample=("f32[3,4]", 1, "i64[3,2]", "f32[3,2]"),
    ),
    method(
        "index_add",
        params=("self", "dim", "index", "source"),
        sample=("f32[5,3]", 0, "i64[2]", "f32[2,3]"),
    ),
    method("tril", params=("self", "diagonal"), sample=("f32[3,3]", -1)),
    method("triu", params=("self", "diagonal"), sample=("f32[3,3]", 1)),
    method("diag", params=("self", "diagonal"), sample=("f32[3]",)),
    method(
        "diagonal", params=("self", "offset", "dim1", "dim2"), sample=("f32[3,4]", 1)
    ),
    method(
        "movedim", params=("self", "source", "destination"), sample=("f32[2,3,4]", 0, 2)
    ),
    method("swapaxes", params=("self", "axis0", "axis1"), sample=("f32[2,3,4]", 0, 2)),
    method("roll", params=("self", "shifts", "dims"), sample=("f32[2,3]", 1, 1)),
    method(
        "sort",
        params=("self", "dim", "descending"),
        sample=("f32[2,5]", 1, True),
        note=_INT32,
    ),
    method(
        "argsort",
        params=("self", "dim", "descending"),
        sample=("f32[2,5]", 1),
        note=_INT32,
    ),
    method(
        "topk",
        params=("self", "k", "dim", "largest", "sorted"),
        sample=("f32[2,5]", 2),
        note=_INT32,
    ),
    method("clamp", params=("self", "min", "max"), sample=("f32[2,3]", -0.5, 0.5)),
    method("clip", params=("self", "min", "max"), sample=("f32[2,3]", -0.5, 0.5)),
    method(
        "nan_to_num",
        params=("self", "nan", "posinf", "neginf"),
        sample=("f32[2,3]", 0.0),
    ),
    method(
        "lerp", params=("self", "end", "weight"), sample=("f32[2,3]", "f32[2,3]", 0.3)
    ),
    method(
        "addcmul",
        params=("self", "tensor1", "tensor2"),
        sample=("f32[2,3]", "f32[2,3]", "f32[2,3]"),
        sample_kwargs={"value": 0.5},
    ),
    method(
        "addcdiv",
        params=("self", "tensor1", "tensor2"),
        sample=("f32[2,3]", "f32[2,3]", "f32+[2,3]"),
        sample_kwargs={"value": 0.5},
    ),
    method(
        "addmm",
        params=("self", "mat1", "mat2"),
        sample=("f32[2,4]", "f32[2,3]", "f32[3,4]"),
        sample_kwargs={"beta": 0.5},
    ),
    method(
        "baddbmm",
        params=("self", "batch1", "batch2"),
        sample=("f32[3,2,4]", "f32[3,2,3]", "f32[3,3,4]"),
    ),
    method(
        "addmv", params=("self", "mat", "vec"), sample=("f32[2]", "f32[2,3]", "f32[3]")
    ),
    method(
        "addr", params=("self", "vec1", "vec2"), sample=("f32[2,3]", "f32[2]", "f32[3]")
    ),
    method(
        "cross", params=("self", "other", "dim"), sample=("f32[2,3]", "f32[2,3]", 1)
    ),
    method("logit", params=("self", "eps"), sample=("f32p[2,3]",)),
    method(
        "where",
        params=("self", "condition", "other"),
        sample=("f32[2,3]", "bool[2,3]", "f32[2,3]"),
    ),
    method("new_zeros", params=("self", "size"), sample=("f32[2,3]", (2, 2))),
    method("new_ones", params=("self", "size"), sample=("i64[2,3]", (3,))),
    method(
        "new_full",
        params=("self", "size", "fill_value"),
        sample=("f32[2,3]", (2, 2), 1.5),
    ),
    method(
        "new_empty", params=("self", "size"), sample=("f32[2,3]", (2, 2)), check="shape"
    ),
    method("item", sample=("f32[1]",)),
    # torch's complex casts; MindSpore casts with astype.
    method("cfloat", "astype", defaults={"dtype": "mindspore.complex64"}),
    method("cdouble", "astype", defaults={"dtype": "mindspore.complex128"}),
    method("conj_physical", "mindspore.ops.conj"),
    method("to", params=("self", "dtype"), sample=("f32[2,3]", "dtype:float16")),
    method(
        "type",
        requires=("dtype",),
        note="without a dtype torch returns the type's name",
        params=("self", "dtype"),
        sample=("f32[2,3]", "dtype:int32"),
    ),
    method(
        "size",
        "shape",
        params=("self", "dim"),
        form="attribute",
        sample=("f32[2,3]", 1),
    ),
    method("dim", "ndim", form="attribute"),
    method("ndimension", "ndim", form="attribute"),
    method("element_size", "itemsize", form="attribute"),
    method("numpy", "asnumpy"),
    method(
        "uniform_",
        params=("self", "from", "to"),
        sample=("f32[2,3]", -1.0, 1.0),
        check="shape",
    ),
    method(
        "normal_",
        params=("self", "mean", "std"),
        sample=("f32[2,3]", 0.0, 1.0),
        check="shape",
    ),
    method("bernoulli", sample=("f32p[2,3]",), check="shape"),
    method("exponential_", sample=("f32[2,3]",), check="shape"),
    method(
        "random_",
        params=("self", "from", "to"),
        sample=("f32[2,3]", 0, 5),
        check="shape",
    ),
    method("unique_consecutive", sample=("i64[6]",)),
    method(
        "histc", params=("self", "bins", "min", "max"), sample=("f32[10]", 4, -2.0, 2.0)
    ),
    method(
        "renorm",
        params=("self", "p", "dim", "maxnorm"),
        sample=("f32[2,3]", 2, 0, 1),
        rename={"dim": "axis"},
        # MindSpore's Renorm checks for a float maxnorm.
        transform={"maxnorm": "as_float"},
        positional=4,
    ),
    method(
        "index_put",
        params=("self", "indices", "values"),
        sample=("f32[4]", ("i64[2]",), "f32[2]"),
    ),
    method(
        "clamp_min",
        "mindspore.ops.clamp",
        params=("self", "min"),
        sample=("f32[2,3]", 0.0),
    ),
    method(
        "clamp_max",
        "mindspore.ops.clamp",
        params=("self", "max"),
        sample=("f32[2,3]", 0.0),
        positional=1,
    ),
    method("relu", "mindspore.ops.relu"),
    method("exp2", "mindspore.ops.exp2"),
    method(
        "kron",
        "mindspore.ops.kron",
        params=("self", "other"),
        sample=("f32[2,3]", "f32[2,2]"),
    ),
    method(
        "dot",
        "mindspore.ops.inner",
        params=("self", "tensor"),
        sample=("f32[3]", "f32[3]"),
        rename={"tensor": "other"},
        positional=2,
        note="MindSpore's dot needs 2-D inputs; inner is the 1-D dot product",
    ),
    method(
        "mv", "mindspore.ops.mv", params=("self", "vec"), sample=("f32[2,3]", "f32[3]")
    ),
    method(
        "dist",
        "mindspore.ops.dist",
        params=("self", "other", "p"),
        sample=("f32[2,3]", "f32[2,3]"),
    ),
    method(
        "softmax",
        params=("self", "dim"),
        sample=("f32[2,3]", 1),
        rename={"dim": "axis"},
        positional=2,
    ),
]

# Methods whose MindSpore 2.10 kernels exist only for Ascend (CPU: "kernel ... unregistered").
_ASCEND_ONLY = {
    "bitwise_not",
    "scatter_add",
    "index_add",
    "roll",
    "addcdiv",
    "new_full",
    "uniform_",
    "normal_",
    "bernoulli",
    "exponential_",
    "random_",
}
_NO_CPU = "no CPU kernel in MindSpore 2.10"


def _place(entry):
    leaf = entry.torch.rsplit(".", 1)[1]
    if leaf in _ASCEND_ONLY:
        return dataclasses.replace(
            entry,
            targets=("ascend",),
            note=(entry.note + "; " if entry.note else "") + _NO_CPU,
        )
    return entry


TABLE = tuple(
    _place(entry)
    for entry in [
        method(name, sample=(spec,))
        for spec, names in _UNARY.items()
        for name in names.split()
    ]
    + [
        method(name, params=("self", "other"), sample=(left, right))
        for name, left, right in _BINARY
    ]
    + _OTHER
    + [method("bitwise_not", sample=("i64[2,3]",))]
    + [
        # MindSpore 2.10's Tensor.floor_divide with a Python number needs the FloorDivScalar
        # kernel, which the CPU lacks; ops.floor_divide takes tensors and numbers alike.
        method(
            "floor_divide",
            "mindspore.ops.floor_divide",
            params=("self", "other"),
            sample=("f32[2,3]", "f32+[2,3]"),
            positional=2,
        ),
    ]
    + [
        method(
            "multiply",
            params=("self", "other"),
            sample=("f32[2,3]", "f32[2,3]"),
            rename={"other": "value"},
            positional=2,
        ),
        # torch also takes the source as `other=`
        method(
            "copy_",
            params=("self", "src"),
            sample=("f32[2,3]", "f32[2,3]"),
            rename={"other": "src"},
        ),
    ]
    + [
        method(
            "clone",
            "copy",
            params=("self",),
            drop=("memory_format",),
            note="MindSpore's Tensor.clone has no CPU kernel in 2.10; copy makes the same copy",
        )
    ]
)


def inplace(name: str, out_of_place: str, params: tuple = ("self",), **fields):
    """An in-place method, written `ops.assign(x, <out-of-place call>)`.

    On CPU, MindSpore 2.10's `add_`, `mul_`, ... return the result and leave the tensor as it was
    (others have no CPU kernel or do not exist); `ops.assign` updates a Tensor or Parameter in place (`Tensor.assign_value` is refused after the tensor went through `mindspore.grad`).
    """
    fields.setdefault("sample", ("f32[2,3]",))
    return method(
        name, out_of_place, params=params, form="assign", status="args", **fields
    )


INPLACE = (
    inplace(
        "add_",
        "add",
        ("self", "other"),
        sample=("f32[2,3]", "f32[2,3]"),
        sample_kwargs={"alpha": 0.5},
    ),
    inplace("sub_", "sub", ("self", "other"), sample=("f32[2,3]", "f32[2,3]")),
    inplace("mul_", "mul", ("self", "other"), sample=("f32[2,3]", "f32[2,3]")),
    inplace("div_", "div", ("self", "other"), sample=("f32[2,3]", "f32+[2,3]")),
    inplace("pow_", "pow", ("self", "exponent"), sample=("f32+[2,3]", 2.0)),
    inplace("clamp_", "clamp", ("self", "min", "max"), sample=("f32[2,3]", -0.5, 0.5)),
    inplace(
        "lerp_", "lerp", ("self", "end", "weight"), sample=("f32[2,3]", "f32[2,3]", 0.3)
    ),
    inplace(
        "addcmul_",
        "addcmul",
        ("self", "tensor1", "tensor2"),
        sample=("f32[2,3]", "f32[2,3]", "f32[2,3]"),
        sample_kwargs={"value": 0.5},
    ),
    inplace(
        "addcdiv_",
        "mindspore.ops.addcdiv",
        ("self", "tensor1", "tensor2"),
        sample=("f32[2,3]", "f32[2,3]", "f32+[2,3]"),
        sample_kwargs={"value": 0.5},
    ),
    inplace(
        "scatter_",
        "scatter",
        ("self", "dim", "index", "src"),
        sample=("f32[3,4]", 1, "i64[3,1]", "f32[3,1]"),
    ),
    inplace(
        "masked_fill_",
        "masked_fill",
        ("self", "mask", "value"),
        sample=("f32[2,3]", "bool[2,3]", 0.5),
    ),
    inplace(
        "fill_",
        "mindspore.ops.full_like",
        ("self", "value"),
        rename={"value": "fill_value"},
        sample=("f32[2,3]", 0.25),
    ),
    inplace("zero_", "mindspore.ops.zeros_like"),
    inplace("exp_", "exp"),
    inplace("sqrt_", "sqrt", sample=("f32+[2,3]",)),
    inplace("abs_", "abs"),
    inplace("neg_", "neg"),
    inplace("sign_", "sign"),
    inplace("reciprocal_", "reciprocal", sample=("f32+[2,3]",)),
    inplace("square_", "square"),
    inplace("sigmoid_", "sigmoid"),
    inplace("tanh_", "tanh"),
    inplace("floor_", "floor"),
    inplace("trunc_", "trunc"),
    inplace("log_", "log", sample=("f32+[2,3]",)),
    inplace("erfinv_", "erfinv", sample=("f32u[2,3]",)),
    inplace("relu_", "mindspore.ops.relu"),
    inplace("logical_not_", "logical_not", sample=("bool[2,3]",)),
)

REPORTS = tuple(
    [
        report(
            "torch.Tensor." + name,
            f"MindSpore 2.10 has no in-place `{name}`; rebind: `x = x.{name[:-1]}(...)`",
            kind="method",
        )
        for name in [
            "t_",
            "squeeze_",
            "unsqueeze_",
            "transpose_",
        ]
    ]
    + [
        report(
            "torch.Tensor.unfold",
            "MindSpore's Tensor.unfold is im2col, not torch's sliding view; build the "
            "windows with slicing and `ops.stack`",
            kind="method",
        ),
        *(
            report(
                "torch.Tensor." + name,
                "MindSpore's sparse tensors are `mindspore.COOTensor(indices, values, shape)` "
                "and `mindspore.CSRTensor(indptr, indices, values, shape)`, built from their "
                "parts; no method turns a dense tensor into one",
                kind="method",
            )
            for name in ("to_sparse", "to_sparse_coo", "to_sparse_csr", "to_sparse_csc")
        ),
        report(
            "torch.Tensor.cuda",
            "MindSpore places tensors by context (`mindspore.set_device('GPU')`); "
            "drop `.cuda()`",
            kind="method",
        ),
    ]
)
