"""`torch.*` functions: math, reductions, shape, comparison, creation and random draws."""

from __future__ import annotations

import dataclasses

from .entries import alias, fn
from .table_functional import TABLE as _FUNCTIONAL

_R = {"dim": "axis", "keepdim": "keep_dims"}
_INT32 = "MindSpore returns int32 indices (dtype), torch int64"
_COMPANION = "the companion entry takes torch's arguments"
# torch.hsplit/vsplit/dsplit name their second argument after what it holds.
_SPLIT = {"indices": "indices_or_sections", "sections": "indices_or_sections"}
STD_ARGS = {
    "rename": {
        "dim": "axis",
        "keepdim": "keepdims",
        "correction": "ddof",
        "unbiased": "ddof",
    },
    "defaults": {"ddof": "1"},
    "transform": {"unbiased": "bool_to_int"},
    "note": "MindSpore's ddof defaults to 0, torch's correction to 1",
}

# Element-wise functions of one tensor, with a sample range that keeps them real and finite.
_UNARY = {
    "f32[2,3]": (
        "abs absolute arcsinh arctan asinh atan ceil cos cosh deg2rad erf erfc exp exp2 expm1 "
        "floor frac i0 neg negative rad2deg round sigmoid sign sgn sin sinc sinh square tan tanh "
        "trunc isfinite isinf isnan isneginf isposinf isreal signbit relu"
    ),
    "f32u[2,3]": "acos arccos asin arcsin atanh arctanh erfinv",
    "f32+[2,3]": "digamma lgamma log log10 log1p log2 reciprocal rsqrt sqrt",
    "f32g[2,3]": "acosh arccosh",
    "bool[2,3]": "logical_not",
}

# Element-wise functions of two tensors: (name, sample input, sample other, torch second name).
_BINARY = [
    ("add", "f32[2,3]", "f32[2,3]", "other"),
    ("mul", "f32[2,3]", "f32[2,3]", "other"),
    ("multiply", "f32[2,3]", "f32[2,3]", "other"),
    ("div", "f32[2,3]", "f32+[2,3]", "other"),
    ("divide", "f32[2,3]", "f32+[2,3]", "other"),
    ("floor_divide", "f32[2,3]", "f32+[2,3]", "other"),
    ("fmod", "f32[2,3]", "f32+[2,3]", "other"),
    ("remainder", "f32[2,3]", "f32+[2,3]", "other"),
    ("pow", "f32+[2,3]", "f32[2,3]", "exponent"),
    ("atan2", "f32[2,3]", "f32[2,3]", "other"),
    ("arctan2", "f32[2,3]", "f32[2,3]", "other"),
    ("hypot", "f32[2,3]", "f32[2,3]", "other"),
    ("maximum", "f32[2,3]", "f32[2,3]", "other"),
    ("minimum", "f32[2,3]", "f32[2,3]", "other"),
    ("fmax", "f32[2,3]", "f32[2,3]", "other"),
    ("eq", "i64[2,3]", "i64[2,3]", "other"),
    ("ne", "i64[2,3]", "i64[2,3]", "other"),
    ("lt", "f32[2,3]", "f32[2,3]", "other"),
    ("le", "f32[2,3]", "f32[2,3]", "other"),
    ("gt", "f32[2,3]", "f32[2,3]", "other"),
    ("ge", "f32[2,3]", "f32[2,3]", "other"),
    ("greater", "f32[2,3]", "f32[2,3]", "other"),
    ("greater_equal", "f32[2,3]", "f32[2,3]", "other"),
    ("less", "f32[2,3]", "f32[2,3]", "other"),
    ("less_equal", "f32[2,3]", "f32[2,3]", "other"),
    ("not_equal", "i64[2,3]", "i64[2,3]", "other"),
    ("logical_and", "bool[2,3]", "bool[2,3]", "other"),
    ("logical_or", "bool[2,3]", "bool[2,3]", "other"),
    ("logical_xor", "bool[2,3]", "bool[2,3]", "other"),
    ("bitwise_and", "i64[2,3]", "i64[2,3]", "other"),
    ("bitwise_or", "i64[2,3]", "i64[2,3]", "other"),
    ("bitwise_xor", "i64[2,3]", "i64[2,3]", "other"),
    ("logaddexp", "f32[2,3]", "f32[2,3]", "other"),
    ("logaddexp2", "f32[2,3]", "f32[2,3]", "other"),
    ("copysign", "f32[2,3]", "f32[2,3]", "other"),
    ("nextafter", "f32[2,3]", "f32[2,3]", "other"),
    ("xlogy", "f32+[2,3]", "f32+[2,3]", "other"),
    ("heaviside", "f32[2,3]", "f32[2,3]", "values"),
    ("gcd", "i64[2,3]", "i64[2,3]", "other"),
    ("lcm", "i64[2,3]", "i64[2,3]", "other"),
    ("kron", "f32[2,3]", "f32[2,2]", "other"),
    ("inner", "f32[2,3]", "f32[4,3]", "other"),
    ("outer", "f32[3]", "f32[4]", "vec2"),
    ("ger", "f32[3]", "f32[4]", "vec2"),
    ("matmul", "f32[2,3]", "f32[3,4]", "other"),
    ("mm", "f32[2,3]", "f32[3,4]", "mat2"),
    ("bmm", "f32[2,2,3]", "f32[2,3,4]", "mat2"),
    ("mv", "f32[2,3]", "f32[3]", "vec"),
    ("dist", "f32[2,3]", "f32[2,3]", "other"),
    ("float_power", "f32+[2,3]", "f32[2,3]", "exponent"),
]

_RENAMED = [
    fn(
        "torch.true_divide",
        params=("input", "other"),
        sample=("f32[2,3]", "f32+[2,3]"),
        rename={"input": "dividend", "other": "divisor"},
        positional=2,
    ),
    fn(
        "torch.clone",
        "mindspore.Tensor.copy",
        drop=("memory_format",),
        note="MindSpore has no ops.clone; the unbound Tensor.copy makes the copy",
    ),
    fn(
        "torch.linalg.vector_norm",
        params=("x", "ord", "dim", "keepdim"),
        sample=("f32[2,3]", 2, 1),
        rename={"dim": "axis", "keepdim": "keepdims", "input": "x"},
    ),
    alias("torch.pi", "mindspore.numpy.pi", check="values"),
    alias("torch.inf", "mindspore.numpy.inf", check="values"),
    alias("torch.nan", "mindspore.numpy.nan", check="values"),
    fn("torch.fix", "mindspore.ops.trunc"),
    fn(
        "torch.dot",
        "mindspore.ops.inner",
        params=("input", "other"),
        sample=("f32[3]", "f32[3]"),
        rename={"tensor": "other"},
        note="MindSpore's dot needs 2-D inputs; inner is the 1-D dot product",
    ),
]

_REDUCE = [
    fn(
        "torch.sum",
        params=("input", "dim", "keepdim"),
        sample=("f32[2,3,4]", 1, True),
        sample_kwargs={"dtype": "dtype:float64"},
    ),
    fn(
        "torch.mean",
        rename={"input": "x", "dim": "axis", "keepdim": "keep_dims"},
        positional=3,
        params=("input", "dim", "keepdim"),
        sample=("f32[2,3,4]", (0, 2)),
        unsafe_args={"dtype": "*"},
        unsafe_reason="MindSpore's mean has no dtype; " + _COMPANION,
    ),
    fn(
        "torch.prod",
        params=("input", "dim", "keepdim"),
        sample=("f32[2,3,4]", 1),
        sample_kwargs={"keepdim": True},
        rename=_R,
    ),
    fn(
        "torch.nansum",
        rename={"dim": "axis", "keepdim": "keepdims"},
        positional=3,
        params=("input", "dim", "keepdim"),
        sample=("f32[2,3]", 1),
    ),
    fn(
        "torch.nanmean",
        rename={"dim": "axis", "keepdim": "keepdims"},
        positional=3,
        params=("input", "dim", "keepdim"),
        sample=("f32[2,3]", 1),
    ),
    fn(
        "torch.max",
        requires=("dim",),
        note="without dim torch returns one value; write `ops.amax(x)`",
        rename={"dim": "axis", "keepdim": "keepdims"},
        positional=3,
        params=("input", "dim", "keepdim"),
        sample=("f32[2,3]", 1, True),
    ),
    fn(
        "torch.min",
        requires=("dim",),
        note="without dim torch returns one value; write `ops.amin(x)`",
        rename={"dim": "axis", "keepdim": "keepdims"},
        positional=3,
        params=("input", "dim", "keepdim"),
        sample=("f32[2,3]", 1),
    ),
    fn(
        "torch.amax",
        rename={"dim": "axis", "keepdim": "keepdims"},
        positional=3,
        params=("input", "dim", "keepdim"),
        sample=("f32[2,3,4]", (0, 2)),
    ),
    fn(
        "torch.amin",
        rename={"dim": "axis", "keepdim": "keepdims"},
        positional=3,
        params=("input", "dim", "keepdim"),
        sample=("f32[2,3,4]", -1, True),
    ),
    fn(
        "torch.argmax",
        params=("input", "dim", "keepdim"),
        sample=("f32[2,3]", 1),
        note="indices are int64 in both",
    ),
    fn(
        "torch.argmin",
        params=("input", "dim", "keepdim"),
        sample=("f32[2,3]", 1, True),
        rename={"dim": "axis", "keepdim": "keepdims"},
        note=_INT32,
    ),
    fn(
        "torch.std",
        params=("input", "dim", "unbiased", "keepdim"),
        sample=("f32[2,3]", 1),
        sample_kwargs={"keepdim": True, "correction": 0},
        **STD_ARGS,
    ),
    fn(
        "torch.var",
        # torch's overload with `unbiased` after `dim` (`torch.var(x, 1, False, True)`)
        params=("input", "dim", "unbiased", "keepdim"),
        sample=("f32[2,3]", 1),
        **STD_ARGS,
    ),
    fn(
        "torch.std_mean",
        # torch's overload with `unbiased` after `dim` (`torch.std_mean(x, 1, False, True)`)
        params=("input", "dim", "unbiased", "keepdim"),
        sample=("f32[2,3]", 1),
        **STD_ARGS,
    ),
    fn(
        "torch.var_mean",
        # torch's overload with `unbiased` after `dim` (`torch.var_mean(x, 1, False, True)`)
        params=("input", "dim", "unbiased", "keepdim"),
        sample=("f32[2,3]", 0),
        **STD_ARGS,
    ),
    fn("torch.logsumexp", params=("input", "dim", "keepdim"), sample=("f32[2,3]", 1)),
    fn(
        "torch.median",
        requires=("dim",),
        note="without dim torch returns one value; write `ops.median(x.flatten(), 0)[0]`",
        rename={"dim": "axis", "keepdim": "keepdims"},
        positional=3,
        params=("input", "dim", "keepdim"),
        sample=("f32[2,5]", 1),
    ),
    fn(
        "torch.norm",
        rename={"input": "A", "p": "ord"},
        positional=4,
        params=("input", "p", "dim", "keepdim"),
        sample=("f32[2,3]",),
        # torch's p is a vector norm over dim ('fro' too); MindSpore's ord a matrix norm on 2 dims.
        unsafe_args={"p": "*", "dtype": "*"},
        unsafe_reason="torch's p is a vector norm over `dim`, MindSpore's ord a matrix norm; "
        + _COMPANION,
    ),
    fn(
        "torch.cumsum",
        rename={"input": "x", "dim": "axis"},
        positional=2,
        params=("input", "dim"),
        sample=("f32[2,3]", 1),
    ),
    fn("torch.cumprod", params=("input", "dim"), sample=("f32[2,3]", 1)),
    fn(
        "torch.cummax",
        params=("input", "dim"),
        sample=("f32[2,3]", 1),
        rename={"dim": "axis"},
    ),
    fn(
        "torch.cummin",
        params=("input", "dim"),
        sample=("f32[2,3]", 1),
        rename={"dim": "axis"},
        note=_INT32,
    ),
    fn(
        "torch.logcumsumexp",
        params=("input", "dim"),
        sample=("f32[2,3]", 1),
        rename={"dim": "axis"},
    ),
    fn(
        "torch.all",
        rename={"dim": "axis", "keepdim": "keep_dims"},
        positional=3,
        params=("input", "dim", "keepdim"),
        sample=("bool[2,3]", 1),
    ),
    fn(
        "torch.any",
        rename={"dim": "axis", "keepdim": "keep_dims"},
        positional=3,
        params=("input", "dim", "keepdim"),
        sample=("bool[2,3]", 1),
    ),
    fn(
        "torch.count_nonzero",
        params=("input", "dim"),
        sample=("i64[2,3]", 1),
        rename={"input": "x", "dim": "axis"},
        defaults={"dtype": "mindspore.int64"},
        transform={"dim": "none_all_axes"},
    ),
    fn("torch.trace", sample=("f32[3,3]",)),
    fn("torch.det", sample=("f32[3,3]",)),
    fn("torch.logdet", sample=("f32[3,3]",)),
    fn("torch.numel"),
    fn(
        "torch.isclose",
        params=("input", "other", "rtol", "atol", "equal_nan"),
        sample=("f32[2,3]", "f32[2,3]", 1e-5, 2.0),
    ),
]

_SHAPE = [
    fn("torch.reshape", params=("input", "shape"), sample=("f32[2,3]", (3, 2))),
    fn(
        "torch.flatten",
        params=("input", "start_dim", "end_dim"),
        sample=("f32[2,3,4]",),
        positional=1,
        defaults={"start_dim": "0"},
        note="MindSpore's start_dim defaults to 1",
    ),
    fn(
        "torch.squeeze",
        rename={"dim": "axis"},
        positional=2,
        params=("input", "dim"),
        sample=("f32[2,1,3]", 1),
    ),
    fn("torch.unsqueeze", params=("input", "dim"), sample=("f32[2,3]", 1)),
    fn(
        "torch.transpose",
        "mindspore.ops.swapaxes",
        params=("input", "dim0", "dim1"),
        sample=("f32[2,3,4]", 0, 2),
        rename={"dim0": "axis0", "dim1": "axis1"},
    ),
    fn(
        "torch.permute",
        rename={"dims": "axis"},
        positional=2,
        params=("input", "dims"),
        sample=("f32[2,3,4]", (2, 0, 1)),
    ),
    fn(
        "torch.swapaxes",
        params=("input", "axis0", "axis1"),
        sample=("f32[2,3,4]", 0, 2),
    ),
    fn("torch.swapdims", params=("input", "dim0", "dim1"), sample=("f32[2,3,4]", 0, 2)),
    fn(
        "torch.movedim",
        params=("input", "source", "destination"),
        sample=("f32[2,3,4]", 0, 2),
    ),
    fn(
        "torch.moveaxis",
        params=("input", "source", "destination"),
        sample=("f32[2,3,4]", 0, 2),
    ),
    fn(
        "torch.cat",
        rename={"dim": "axis"},
        positional=2,
        params=("tensors", "dim"),
        sample=(["f32[2,3]", "f32[2,2]"], 1),
    ),
    fn(
        "torch.concat",
        rename={"dim": "axis"},
        positional=2,
        params=("tensors", "dim"),
        sample=(["f32[2,3]", "f32[1,3]"], 0),
    ),
    fn(
        "torch.concatenate",
        "mindspore.ops.cat",
        params=("tensors", "dim"),
        sample=(["f32[2,3]", "f32[2,1]"], -1),
        rename={"dim": "axis"},
    ),
    fn(
        "torch.stack",
        rename={"dim": "axis"},
        positional=2,
        params=("tensors", "dim"),
        sample=(["f32[2,3]", "f32[2,3]"], 1),
    ),
    fn("torch.hstack", params=("tensors",), sample=(["f32[2,3]", "f32[2,1]"],)),
    fn("torch.vstack", params=("tensors",), sample=(["f32[2,3]", "f32[1,3]"],)),
    fn("torch.dstack", params=("tensors",), sample=(["f32[2,3]", "f32[2,3]"],)),
    fn("torch.column_stack", params=("tensors",), sample=(["f32[3]", "f32[3,2]"],)),
    fn("torch.row_stack", params=("tensors",), sample=(["f32[2,3]", "f32[3]"],)),
    fn(
        "torch.split",
        rename={"dim": "axis"},
        positional=3,
        params=("tensor", "split_size_or_sections", "dim"),
        sample=("f32[4,3]", [1, 2], 1),
    ),
    fn(
        "torch.split_with_sizes",
        "mindspore.ops.split",
        rename={"split_sizes": "split_size_or_sections", "dim": "axis"},
        positional=3,
        params=("input", "split_sizes", "dim"),
        sample=("f32[4,3]", [1, 3], 0),
    ),
    fn(
        "torch.chunk",
        rename={"dim": "axis"},
        positional=3,
        params=("input", "chunks", "dim"),
        sample=("f32[4,3]", 2, 0),
    ),
    fn(
        "torch.tensor_split",
        params=("input", "indices_or_sections", "dim"),
        sample=("f32[5,3]", 2),
    ),
    fn(
        "torch.hsplit",
        params=("input", "indices_or_sections"),
        sample=("f32[3,4]", 2),
        rename=_SPLIT,
    ),
    fn(
        "torch.vsplit",
        params=("input", "indices_or_sections"),
        sample=("f32[4,3]", 2),
        rename=_SPLIT,
    ),
    fn(
        "torch.dsplit",
        params=("input", "indices_or_sections"),
        sample=("f32[2,2,4]", 2),
        rename=_SPLIT,
    ),
    fn("torch.unbind", params=("input", "dim"), sample=("f32[2,3]", 1)),
    fn("torch.flip", params=("input", "dims"), sample=("f32[2,3]", (0, 1))),
    fn("torch.fliplr"),
    fn("torch.flipud"),
    fn(
        "torch.roll",
        params=("input", "shifts", "dims"),
        sample=("f32[2,3]", 1, 1),
        targets=("gpu", "ascend"),
        note="no CPU kernel (Roll) in MindSpore 2.10",
    ),
    fn(
        "torch.rot90",
        defaults={"k": "1", "dims": "(0, 1)"},
        params=("input", "k", "dims"),
        sample=("f32[2,3]", 1, (0, 1)),
    ),
    fn("torch.tile", params=("input", "dims"), sample=("f32[2,3]", (2, 1))),
    fn(
        "torch.repeat_interleave",
        rename={"dim": "axis"},
        positional=3,
        params=("input", "repeats", "dim"),
        sample=("f32[2,3]", 2, 1),
    ),
    fn(
        "torch.narrow",
        rename={"dim": "axis"},
        positional=4,
        params=("input", "dim", "start", "length"),
        sample=("f32[4,3]", 0, 1, 2),
        # a start that is not a literal may be a 0-d tensor, which MindSpore's narrow refuses
        unsafe_args={"start": "<literal>"},
        unsafe_reason="MindSpore's narrow takes an int start; " + _COMPANION,
    ),
    fn(
        "torch.gather",
        "mindspore.ops.gather_elements",
        params=("input", "dim", "index"),
        sample=("f32[3,4]", 1, "i64[3,2]"),
    ),
    fn(
        "torch.index_select",
        rename={"dim": "axis"},
        positional=3,
        params=("input", "dim", "index"),
        sample=("f32[5,3]", 0, "i64[2]"),
    ),
    fn(
        "torch.masked_select",
        params=("input", "mask"),
        sample=("f32[2,3]", "bool[2,3]"),
    ),
    fn(
        "torch.take",
        params=("input", "index"),
        sample=("f32[2,3]", "i64[4]"),
        targets=("gpu", "ascend"),
        note="no CPU kernel (Take) in MindSpore 2.10",
    ),
    fn(
        "torch.where",
        requires=("input", "other"),
        note="torch.where(condition) alone is torch.nonzero(condition, as_tuple=True)",
        params=("condition", "input", "other"),
        sample=("bool[2,3]", "f32[2,3]", "f32[2,3]"),
    ),
    fn("torch.tril", params=("input", "diagonal"), sample=("f32[3,3]", -1)),
    fn("torch.triu", params=("input", "diagonal"), sample=("f32[3,3]", 1)),
    fn(
        "torch.diag",
        params=("input", "diagonal"),
        sample=("f32[3]",),
        unsafe_args={"diagonal": "*"},
        unsafe_reason="MindSpore's diag has no diagonal; " + _COMPANION,
    ),
    fn(
        "torch.diagonal",
        params=("input", "offset", "dim1", "dim2"),
        sample=("f32[3,4]", 1),
    ),
    fn(
        "torch.diag_embed",
        params=("input", "offset", "dim1", "dim2"),
        sample=("f32[2,3]",),
    ),
    fn("torch.diagflat", params=("input", "offset"), sample=("f32[3]", 1)),
    fn(
        "torch.broadcast_to",
        params=("input", "size"),
        sample=("f32[1,3]", (2, 3)),
        rename={"size": "shape"},
    ),
    # MindSpore's broadcast_to returns a new tensor: the copy expand_copy makes (-1 keeps a size).
    fn(
        "torch.expand_copy",
        "mindspore.ops.broadcast_to",
        params=("input", "size"),
        sample=("f32[1,3]", (2, -1)),
        rename={"size": "shape"},
    ),
    fn(
        "torch.nonzero",
        params=("input",),
        sample=("f32[2,3]",),
        unsafe_args={"as_tuple": "True"},
        unsafe_reason="MindSpore 2.10 has no CPU kernel for nonzero(as_tuple=True); "
        "take the columns: `tuple(ops.nonzero(x)[:, d] for d in range(x.ndim))`",
    ),
    fn("torch.ravel"),
    fn("torch.t", sample=("f32[2,3]",)),
    *(
        fn(
            f"torch.atleast_{n}d",
            params=("*tensors",),
            sample=(spec,),
            # no tensor at all: torch returns an empty tuple (the companion entry)
            requires=("tensors",),
        )
        for n, spec in ((1, "f32[]"), (2, "f32[3]"), (3, "f32[2,3]"))
    ),
    fn(
        "torch.block_diag",
        params=("*tensors",),
        spread=True,
        sample=("f32[2,2]", "f32[1,3]"),
    ),
    fn(
        "torch.combinations",
        params=("input", "r", "with_replacement"),
        sample=("f32[4]", 2),
    ),
    fn(
        "torch.meshgrid",
        params=("*tensors",),
        spread=True,
        one_sequence=True,
        # torch's default is 'ij' (with a warning), MindSpore's 'xy'.
        defaults={"indexing": "'ij'"},
        sample=("f32[2]", "f32[3]"),
        sample_kwargs={"indexing": "ij"},
    ),
    fn(
        "torch.scatter_add",
        "mindspore.ops.tensor_scatter_elements",
        params=("input", "dim", "index", "src"),
        sample=("f32[3,4]", 1, "i64[3,2]", "f32[3,2]"),
        positional=1,
        rename={
            "input": "input_x",
            "dim": "axis",
            "index": "indices",
            "src": "updates",
        },
        defaults={"reduction": "'add'"},
    ),
]

_COMPARE = [
    fn(
        "torch.sort",
        params=("input", "dim", "descending"),
        sample=("f32[2,5]", 1, True),
        rename={"dim": "axis"},
        unsafe_args={"stable": "True"},
        unsafe_reason="MindSpore's sort has no stable= option",
        note=_INT32,
    ),
    fn(
        "torch.argsort",
        params=("input", "dim", "descending"),
        sample=("f32[2,5]", 1),
        rename={"dim": "axis"},
        unsafe_args={"stable": "True"},
        unsafe_reason="MindSpore's argsort has no stable= option; " + _COMPANION,
        result_dtype="int64",
    ),
    fn("torch.msort", sample=("f32[4,3]",)),
    fn(
        "torch.topk",
        params=("input", "k", "dim", "largest", "sorted"),
        sample=("f32[2,5]", 2),
        note=_INT32,
    ),
    fn("torch.clamp", params=("input", "min", "max"), sample=("f32[2,3]", -0.5, 0.5)),
    fn(
        "torch.clip",
        params=("input", "min", "max"),
        sample=("f32[2,3]", -0.5),
        sample_kwargs={"max": 0.2},
    ),
    fn(
        "torch.nan_to_num",
        params=("input", "nan", "posinf", "neginf"),
        sample=("f32[2,3]", 0.0),
    ),
    fn(
        "torch.bucketize",
        params=("input", "boundaries"),
        sample=("f32[2,3]", "f32s[4]"),
        sample_kwargs={"right": True},
        note=_INT32,
    ),
    fn(
        "torch.searchsorted",
        rename={"input": "values"},
        positional=2,
        params=("sorted_sequence", "input"),
        sample=("f32s[5]", "f32[3]"),
        defaults={"out_int32": "True"},
        note="int64 output fails on MindSpore 2.10's CPU: int32 indices (dtype)",
    ),
    fn(
        "torch.histc",
        params=("input", "bins", "min", "max"),
        sample=("f32[10]", 4, -2.0, 2.0),
    ),
    fn(
        "torch.cdist",
        params=("x1", "x2", "p", "compute_mode"),
        sample=("f32[2,3]", "f32[4,3]"),
        # how torch computes the distances (through a matrix product or not), not what
        drop=("compute_mode",),
    ),
    fn(
        "torch.einsum",
        params=("equation", "*operands"),
        sample=("ij,jk->ik", "f32[2,3]", "f32[3,4]"),
        spread=True,
        targets=("gpu", "ascend"),
        note="MindSpore 2.10's einsum fails on CPU",
    ),
    fn(
        "torch.lerp",
        params=("input", "end", "weight"),
        sample=("f32[2,3]", "f32[2,3]", 0.3),
    ),
    fn(
        "torch.addcmul",
        params=("input", "tensor1", "tensor2"),
        sample=("f32[2,3]", "f32[2,3]", "f32[2,3]"),
        sample_kwargs={"value": 0.5},
    ),
    fn(
        "torch.addcdiv",
        params=("input", "tensor1", "tensor2"),
        sample=("f32[2,3]", "f32[2,3]", "f32+[2,3]"),
        sample_kwargs={"value": 0.5},
    ),
    fn(
        "torch.addmm",
        params=("input", "mat1", "mat2"),
        sample=("f32[2,4]", "f32[2,3]", "f32[3,4]"),
        sample_kwargs={"beta": 0.5, "alpha": 2.0},
    ),
    fn(
        "torch.addbmm",
        params=("input", "batch1", "batch2"),
        sample=("f32[2,4]", "f32[3,2,3]", "f32[3,3,4]"),
    ),
    fn(
        "torch.baddbmm",
        params=("input", "batch1", "batch2"),
        sample=("f32[3,2,4]", "f32[3,2,3]", "f32[3,3,4]"),
        sample_kwargs={"alpha": 0.5},
    ),
    fn(
        "torch.addmv",
        params=("input", "mat", "vec"),
        sample=("f32[2]", "f32[2,3]", "f32[3]"),
    ),
    fn(
        "torch.addr",
        params=("input", "vec1", "vec2"),
        sample=("f32[2,3]", "f32[2]", "f32[3]"),
    ),
    fn(
        "torch.cross",
        params=("input", "other", "dim"),
        sample=("f32[2,3]", "f32[2,3]", 1),
    ),
    fn("torch.logit", params=("input", "eps"), sample=("f32p[2,3]",)),
    fn("torch.mvlgamma", params=("input", "p"), sample=("f32g[2,3]", 1)),
    fn("torch.igamma", params=("input", "other"), sample=("f32+[2,3]", "f32+[2,3]")),
    fn("torch.igammac", params=("input", "other"), sample=("f32+[2,3]", "f32+[2,3]")),
    fn("torch.inverse", sample=("f32[3,3]",)),
    fn(
        "torch.cholesky_inverse",
        params=("input", "upper"),
        rename={"input": "input_x"},
        positional=2,
        sample=("f32[3,3]",),
        check="shape",
    ),
    fn(
        "torch.trapezoid",
        "mindspore.ops.trapz",
        transform={"dx": "as_float"},
        params=("y", "x"),
        sample=("f32[2,4]",),
        sample_kwargs={"dim": 1},
    ),
    fn(
        "torch.diff",
        rename={"input": "x", "dim": "axis"},
        positional=3,
        params=("input", "n", "dim"),
        sample=("f32[2,4]", 1, 1),
    ),
    fn(
        "torch.vander",
        params=("x", "N", "increasing"),
        sample=("f32[3]", 4),
        unsafe_args={"increasing": "*"},
        unsafe_reason="MindSpore's vander has no `increasing`; the companion entry flips it",
    ),
    fn(
        "torch.cosine_similarity",
        rename={"axis": "dim"},
        params=("x1", "x2", "dim", "eps"),
        sample=("f32[2,3]", "f32[2,3]"),
    ),
    fn("torch.is_tensor", params=("obj",)),
    fn("torch.is_floating_point"),
    fn("torch.is_complex"),
    fn("torch.is_nonzero", sample=("f32[1]",)),
]

_CREATE = [
    fn(
        "torch.zeros",
        params=("*size",),
        sample=(2, 3),
        sample_kwargs={"dtype": "dtype:float32"},
    ),
    fn("torch.ones", params=("*size",), sample=((2, 3),)),
    fn(
        "torch.empty",
        "mindspore.ops.zeros",
        params=("*size",),
        sample=(2, 3),
        check="shape",
        note="torch leaves the values undefined; zeros are one valid choice",
    ),
    fn("torch.zeros_like", params=("input",), sample=("f32[2,3]",)),
    fn("torch.ones_like", params=("input",), sample=("i64[2,3]",)),
    fn(
        "torch.full",
        params=("size", "fill_value"),
        requires=("dtype",),
        transform={"dtype": "written_dtype"},
        sample=((2, 3), 1.5),
        sample_kwargs={"dtype": "dtype:float32"},
        note="without a dtype written out, torch infers it from the fill value and ops.full makes "
        "int64 whatever the value; the companion `full` infers it as torch does",
    ),
    fn("torch.full_like", params=("input", "fill_value"), sample=("f32[2,3]", 2.0)),
    fn(
        "torch.empty_like",
        "mindspore.ops.zeros_like",
        params=("input",),
        check="shape",
        note="torch leaves the values undefined; zeros are one valid choice",
    ),
    fn("torch.arange", params=("start", "end", "step"), sample=(1, 7, 2)),
    fn(
        "torch.linspace",
        params=("start", "end", "steps"),
        sample=(0.0, 1.0, 5),
        unsafe_args={"dtype": "*"},
        unsafe_reason="MindSpore's linspace has no dtype; " + _COMPANION,
    ),
    fn(
        "torch.logspace", params=("start", "end", "steps", "base"), sample=(0.0, 1.0, 5)
    ),
    fn("torch.eye", params=("n", "m"), sample=(3, 4)),
    fn("torch.tril_indices", params=("row", "col", "offset"), sample=(3, 3)),
    fn("torch.triu_indices", params=("row", "col", "offset"), sample=(3, 4, 1)),
    fn(
        "torch.hann_window",
        defaults={"dtype": "mindspore.float32"},
        params=("window_length", "periodic"),
        sample=(5,),
    ),
    fn(
        "torch.hamming_window",
        defaults={"dtype": "mindspore.float32"},
        params=("window_length", "periodic"),
        sample=(5, False),
    ),
    fn(
        "torch.kaiser_window",
        defaults={"dtype": "mindspore.float32"},
        params=("window_length", "periodic", "beta"),
        sample=(5,),
    ),
    fn(
        "torch.tensor",
        mindspore="mindspore.tensor",
        params=("data",),
        sample=([[1.0, 2.0], [3.0, 4.0]],),
        sample_kwargs={"dtype": "dtype:float32"},
    ),
    fn(
        "torch.as_tensor",
        mindspore="mindspore.tensor",
        params=("data", "dtype"),
        sample=([1, 2, 3],),
    ),
    fn("torch.polar", params=("abs", "angle"), sample=("f32+[2,3]", "f32[2,3]")),
    fn("torch.real", sample=("c64[2,3]",)),
    fn("torch.imag", sample=("c64[2,3]",)),
    fn("torch.conj", sample=("c64[2,3]",)),
    fn("torch.view_as_real", sample=("c64[2,3]",)),
]

_RANDOM = [
    fn("torch.rand", params=("*size",), sample=(2, 3), check="shape"),
    fn("torch.randn", params=("*size",), sample=(2, 3), check="shape"),
    fn(
        "torch.randint",
        params=("low", "high", "size"),
        leading_default="0",
        sample=(0, 5, (2, 3)),
        check="shape",
    ),
    fn("torch.randperm", params=("n",), sample=(5,), check="shape"),
    fn("torch.rand_like", check="shape"),
    fn("torch.randn_like", check="shape"),
    fn(
        "torch.multinomial",
        params=("input", "num_samples", "replacement"),
        sample=("f32+[2,4]", 3),
        check="shape",
        result_dtype="int64",
    ),
    fn(
        "torch.manual_seed",
        mindspore="mindspore.set_seed",
        params=("seed",),
        sample=(7,),
        check="shape",
        note="mindspore.set_seed seeds what converted code draws (ops.randint/randn and the "
        "initializers), which mindspore.manual_seed does not; returns None where torch returns "
        "its Generator; torch and MindSpore draw different streams",
    ),
    # torch.initial_seed and torch.seed are the companion's (library/runtime.py): converted code
    # seeds with mindspore.set_seed, which mindspore.initial_seed does not report.
]

# Arguments of the element-wise rows that MindSpore's op lacks: the companion entry takes them.
_ROW_CHANGES = {
    "round": {
        "unsafe_args": {"decimals": "*"},
        "unsafe_reason": "MindSpore 2.10's CPU round takes decimals=0 only; "
        + _COMPANION,
    },
    "add": {
        "unsafe_args": {"alpha": "*"},
        "unsafe_reason": "MindSpore's add has no alpha; " + _COMPANION,
    },
}
_UNARY_ENTRIES = [
    fn("torch." + name, sample=(spec,), **_ROW_CHANGES.get(name, {}))
    for spec, names in _UNARY.items()
    for name in names.split()
]
_BINARY_ENTRIES = [
    fn(
        "torch." + name,
        params=("input", second),
        sample=(left, right),
        **_ROW_CHANGES.get(name, {}),
    )
    for name, left, right, second in _BINARY
]

# Same dtype and values, sharing the array's memory (a non-contiguous array is copied instead).
_NUMPY = [
    fn(
        "torch.from_numpy",
        "mindspore.from_numpy",
        params=("ndarray",),
        sample=("numpy:f64[2,3]",),
        note="MindSpore copies a non-contiguous array instead of sharing its memory",
    ),
]

_DTYPES = [
    alias("torch." + name, "mindspore." + target)
    for name, target in [
        ("float32", "float32"),
        ("float", "float32"),
        ("float16", "float16"),
        ("half", "float16"),
        ("float64", "float64"),
        ("double", "float64"),
        ("bfloat16", "bfloat16"),
        ("int8", "int8"),
        ("int16", "int16"),
        ("short", "int16"),
        ("int32", "int32"),
        ("int", "int32"),
        ("int64", "int64"),
        ("long", "int64"),
        ("uint8", "uint8"),
        ("uint16", "uint16"),
        ("uint32", "uint32"),
        ("uint64", "uint64"),
        ("float8_e4m3fn", "float8_e4m3fn"),
        ("float8_e5m2", "float8_e5m2"),
        ("bool", "bool_"),
        ("complex64", "complex64"),
        ("complex128", "complex128"),
        ("cfloat", "complex64"),
        ("cdouble", "complex128"),
    ]
] + [
    alias("torch.Tensor", "mindspore.Tensor"),
    # The common bases of the norm layers, named in type checks (not subclassed: their
    # constructors differ).
    alias(
        "torch.nn.modules.batchnorm._BatchNorm",
        "mindspore.nn.layer.normalization._BatchNorm",
        note="the base class of MindSpore's BatchNorm1d/2d/3d, for type checks",
    ),
    alias(
        "torch.nn.modules.instancenorm._InstanceNorm",
        "mindspore.nn.layer.normalization._InstanceNorm",
        note="the base class of MindSpore's InstanceNorm1d/2d/3d, for type checks",
    ),
    alias(
        "torch.dtype",
        "mindspore.dtype.Type",
        note="MindSpore dtypes are instances of mindspore.dtype.Type",
    ),
]

_BY_FUNCTIONAL = {m.torch: m for m in _FUNCTIONAL}


def _same_as_functional(name: str, **changes) -> object:
    """`torch.<name>`, the same operator as `torch.nn.functional.<name>`, mapped the same way
    (the activations among them take no `inplace`)."""
    base = _BY_FUNCTIONAL["torch.nn.functional." + name]
    return dataclasses.replace(base, torch="torch." + name, **changes)


_NO_INPLACE = {"drop": (), "unsafe_args": {}, "unsafe_reason": ""}
# Top-level aliases of `torch.nn.functional` functions. (`torch.batch_norm` and `torch.embedding`
# take their arguments in another order, `torch.adaptive_max_pool1d` returns the indices too,
# `torch.rrelu` is the companion's: its default slope is fixed, MindSpore's drawn; so is
# `torch.adaptive_avg_pool1d`: MindSpore's CPU form needs the length divisible by the size.)
_FUNCTIONAL_ALIASES = [
    # torch.softmax's third parameter is dtype (F.softmax's is _stacklevel)
    _same_as_functional("softmax", params=("input", "dim", "dtype")),
    _same_as_functional("log_softmax"),
    _same_as_functional("selu", params=("input",), status="exact", **_NO_INPLACE),
    _same_as_functional(
        "celu", params=("input", "alpha"), status="exact", **_NO_INPLACE
    ),
    _same_as_functional(
        "threshold", params=("input", "threshold", "value"), **_NO_INPLACE
    ),
    _same_as_functional("hardshrink"),
    _same_as_functional("prelu"),
    _same_as_functional("bilinear"),
    _same_as_functional("conv1d"),
    _same_as_functional("conv2d"),
    _same_as_functional("conv3d"),
    _same_as_functional("avg_pool1d"),
    _same_as_functional("max_pool2d"),
    _same_as_functional("max_pool3d"),
    _same_as_functional("pixel_shuffle"),
    _same_as_functional("pixel_unshuffle"),
    _same_as_functional("pdist"),
    _same_as_functional(
        "group_norm",
        params=("input", "num_groups", "weight", "bias", "eps", "cudnn_enabled"),
        drop=("cudnn_enabled",),
        status="args",
    ),
    _same_as_functional(
        "layer_norm",
        params=("input", "normalized_shape", "weight", "bias", "eps", "cudnn_enable"),
        drop=("cudnn_enable",),
        status="args",
    ),
    fn(
        "torch.dropout",
        params=("input", "p", "train"),
        rename={"train": "training"},
        positional=3,
        sample=("f32[2,3]", 0.5, False),
    ),
]

# Linear algebra and transforms that take torch's arguments.
_LINALG = [
    fn(
        "torch.linalg.pinv",
        "mindspore.ops.pinv",
        params=("A",),
        rename={"A": "x", "input": "x"},
        positional=1,
        sample=("f32[4,3]",),
        # torch's older form: a relative cutoff, which MindSpore's pinv calls rtol.
        unsafe_args={"rcond": "*"},
        unsafe_reason="torch's rcond is MindSpore's rtol; the companion entry maps it",
    ),
    fn(
        "torch.linalg.inv",
        "mindspore.ops.inverse",
        params=("A",),
        rename={"A": "input"},
        positional=1,
        sample=("f32[3,3]",),
    ),
]

TABLE = tuple(
    _FUNCTIONAL_ALIASES
    + _LINALG
    + _UNARY_ENTRIES
    + _BINARY_ENTRIES
    + _RENAMED
    + _REDUCE
    + _SHAPE
    + _COMPARE
    + _CREATE
    + _RANDOM
    + _NUMPY
    + _DTYPES
)
