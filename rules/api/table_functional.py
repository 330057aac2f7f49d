"""`torch.nn.functional` -> `mindspore.ops`."""

from __future__ import annotations

from .entries import fn, report

F = "torch.nn.functional."
_NO_CPU = "no CPU kernel in MindSpore 2.10"
_INPLACE = {
    "unsafe_args": {"inplace": "True"},
    "unsafe_reason": "MindSpore has no in-place activation, and torch's also changes the input "
    "tensor for everything else holding it; where nothing else reads it, write `x = op(x)` "
    "(converted as it is when x was computed just before and is rebound)",
}
# ops.interpolate matches torch for nearest, (bi)linear and area resizes to a given size. Its bicubic
# weights differ from torch's (a=-0.5 against -0.75), it refuses integer scale factors and
# scale_factor with nearest on 4-D inputs, and it has no antialias. (Any scale_factor is refused,
# even a literal None.)
_RESIZE = {
    "unsafe_args": {
        "mode": "'bicubic'",
        "scale_factor": "*",
        "recompute_scale_factor": "*",
        "antialias": "*",
    },
    "unsafe_reason": "MindSpore's bicubic weights differ from torch's, it refuses integer scale "
    "factors and has no antialias: pass size= and a nearest, bilinear or area mode",
}
# MindSpore's avg_pool2d/3d take padding per side, torch's per dimension: a literal tuple is
# written out per side; a padding that is not a literal may be such a tuple (None is no padding
# torch takes).
_POOL_PADDING = {
    "transform": {"padding": "pad_each_side"},
    "positional": 6,
    "unsafe_args": {"padding": "None"},
    "unsafe_reason": "MindSpore takes the padding per side (top, bottom, left, right); write "
    "the tuple out",
}
_REDUCTION = {
    "unsafe_args": {"size_average": "*", "reduce": "*"},
    "unsafe_reason": "size_average/reduce are deprecated; pass reduction='mean'|'sum'|'none'",
}


# MindSpore's CPU kernel reads a weight smaller than the input as if it had the input's shape.
_BCE_WEIGHT = {
    "unsafe_args": {**_REDUCTION["unsafe_args"], "weight": "*"},
    "unsafe_reason": "MindSpore's binary_cross_entropy does not broadcast `weight` on CPU: "
    "pass `ops.broadcast_to(weight, input.shape)`",
}


_LOG_SOFTMAX = (
    "MindSpore's log_softmax kernel rounds a few ulps away from torch's on CPU; "
    "`s = x - x.max(axis=dim, keepdims=True)`, `s - ops.log(ops.exp(s).sum(axis=dim, "
    "keepdims=True))`"
)


def act(name: str, params: tuple = ("input", "inplace"), mindspore: str = "", **fields):
    fields.setdefault("drop", ("inplace",))
    return fn(F + name, mindspore, params=params, **{**_INPLACE, **fields})


TABLE = (
    act("relu"),
    act("relu6"),
    act(
        "elu",
        ("input", "alpha", "inplace"),
        unsafe_args={"inplace": "True", "alpha": "*"},
        unsafe_reason="MindSpore 2.10's elu supports only alpha=1.0; write `ops.where(x > 0, x, alpha * ops.expm1(x))`",
    ),
    act("selu", rename={"input": "input_x"}, positional=1),
    act("celu", ("input", "alpha", "inplace"), sample=("f32[2,3]", 0.7)),
    act("silu"),
    act("mish"),
    act("hardswish"),
    act("hardsigmoid"),
    act(
        "hardtanh",
        ("input", "min_val", "max_val", "inplace"),
        sample=("f32[2,3]", -0.5, 0.5),
    ),
    act(
        "leaky_relu",
        ("input", "negative_slope", "inplace"),
        sample=("f32[2,3]", 0.2),
        rename={"negative_slope": "alpha"},
        defaults={"alpha": "0.01"},
        note="MindSpore's alpha defaults to 0.2",
    ),
    act(
        "threshold",
        ("input", "threshold", "value", "inplace"),
        rename={"threshold": "thr"},
        positional=3,
        sample=("f32[2,3]", 0.1, 20.0),
    ),
    report(
        F + "rrelu",
        "MindSpore's ops.rrelu always draws random slopes; torch's default (training=False) "
        "uses the fixed slope (lower + upper) / 2: write "
        "`ops.leaky_relu(x, (lower + upper) / 2)`",
    ),
    fn(F + "gelu", params=("input",), sample_kwargs={"approximate": "tanh"}),
    fn(F + "sigmoid"),
    fn(F + "tanh"),
    fn(F + "logsigmoid"),
    fn(F + "softsign"),
    fn(F + "tanhshrink"),
    fn(F + "softplus", params=("input", "beta", "threshold"), sample=("f32[2,3]", 2.0)),
    fn(F + "softshrink", params=("input", "lambd"), sample=("f32[2,3]", 0.3)),
    fn(F + "hardshrink", params=("input", "lambd"), sample=("f32[2,3]", 0.3)),
    fn(
        F + "glu",
        rename={"input": "x", "dim": "axis"},
        positional=1,
        params=("input", "dim"),
        sample=("f32[2,4]", -1),
    ),
    fn(
        F + "softmax",
        requires=("dim",),
        note="without dim, torch picks a dim by ndim (deprecated); pass it",
        params=("input", "dim"),
        sample=("f32[2,3]", 1),
        rename={"dim": "axis"},
    ),
    # The companion's composition: MindSpore's LogSoftmax kernel on CPU rounds a few float32
    # ulps away from torch's (3e-6 on log-probabilities near 0).
    report(F + "log_softmax", _LOG_SOFTMAX),
    fn(
        F + "softmin",
        requires=("dim",),
        note="without dim, torch picks a dim by ndim (deprecated); pass it",
        params=("input", "dim"),
        sample=("f32[2,3]", 1),
        rename={"input": "x", "dim": "axis"},
        positional=1,
    ),
    fn(F + "prelu", params=("input", "weight"), sample=("f32[2,3,4]", "f32[3]")),
    fn(
        F + "linear",
        "mindspore.ops.dense",
        params=("input", "weight", "bias"),
        sample=("f32[2,3]", "f32[4,3]", "f32[4]"),
    ),
    fn(
        F + "bilinear",
        "mindspore.ops.bidense",
        params=("input1", "input2", "weight", "bias"),
        sample=("f32[2,3]", "f32[2,4]", "f32[5,3,4]", "f32[5]"),
    ),
    fn(
        F + "conv1d",
        params=("input", "weight", "bias", "stride", "padding", "dilation", "groups"),
        positional=4,
        defaults={"pad_mode": "'pad'"},
        unsafe_args={"padding": "<str>"},
        unsafe_reason="string padding: pass pad_mode='same'|'valid' and no padding",
        sample=("f32[2,4,8]", "f32[6,4,3]", "f32[6]", 1, 1),
    ),
    fn(
        F + "conv2d",
        params=("input", "weight", "bias", "stride", "padding", "dilation", "groups"),
        positional=4,
        defaults={"pad_mode": "'pad'"},
        unsafe_args={"padding": "<str>"},
        unsafe_reason="string padding: pass pad_mode='same'|'valid' and no padding",
        sample=("f32[2,4,6,6]", "f32[6,2,3,3]", "f32[6]", 2, (1, 2), 1, 2),
    ),
    fn(
        F + "conv3d",
        params=("input", "weight", "bias", "stride", "padding", "dilation", "groups"),
        positional=4,
        defaults={"pad_mode": "'pad'"},
        unsafe_args={"padding": "<str>"},
        unsafe_reason="string padding: pass pad_mode='same'|'valid' and no padding",
        sample=("f32[1,2,4,4,4]", "f32[3,2,3,3,3]", None, 1, 1),
    ),
    fn(
        F + "avg_pool1d",
        defaults={"stride": "@kernel_size"},
        rename={"input": "input_x"},
        positional=1,
        params=(
            "input",
            "kernel_size",
            "stride",
            "padding",
            "ceil_mode",
            "count_include_pad",
        ),
        sample=("f32[2,3,8]", 2, 2),
    ),
    fn(
        F + "avg_pool2d",
        defaults={"stride": "@kernel_size"},
        rename={"input": "input_x"},
        params=(
            "input",
            "kernel_size",
            "stride",
            "padding",
            "ceil_mode",
            "count_include_pad",
            "divisor_override",
        ),
        sample=("f32[2,3,6,6]", 3, 2, (1, 0)),
        # MindSpore's divisor_override is an int (0 for none): torch's None goes to the
        # companion entry, which passes 0.
        **{
            **_POOL_PADDING,
            "unsafe_args": {**_POOL_PADDING["unsafe_args"], "divisor_override": "None"},
        },
    ),
    fn(
        F + "avg_pool3d",
        defaults={"stride": "@kernel_size"},
        rename={"input": "input_x"},
        params=(
            "input",
            "kernel_size",
            "stride",
            "padding",
            "ceil_mode",
            "count_include_pad",
        ),
        sample=("f32[1,2,5,5,5]", 3, 2, (1, 0, 1)),
        **_POOL_PADDING,
    ),
    fn(
        F + "max_pool2d",
        defaults={"stride": "@kernel_size"},
        params=("input", "kernel_size", "stride", "padding", "dilation", "ceil_mode"),
        rename={"input": "x"},
        # MindSpore's sixth parameter is return_indices: ceil_mode goes by name.
        positional=5,
        sample=("f32[2,3,7,7]", 3, 2, 0, 1, True),
    ),
    fn(
        F + "max_pool3d",
        defaults={"stride": "@kernel_size"},
        params=("input", "kernel_size", "stride", "padding", "dilation", "ceil_mode"),
        rename={"input": "x"},
        positional=6,
        sample=("f32[1,2,4,4,4]", 2),
    ),
    fn(
        F + "adaptive_avg_pool1d",
        params=("input", "output_size"),
        sample=("f32[2,3,8]", 4),
    ),
    fn(
        F + "adaptive_avg_pool2d",
        params=("input", "output_size"),
        sample=("f32[2,3,6,6]", (2, 3)),
    ),
    fn(
        F + "adaptive_avg_pool3d",
        params=("input", "output_size"),
        sample=("f32[1,2,4,4,4]", 2),
    ),
    fn(
        F + "lp_pool1d",
        params=("input", "norm_type", "kernel_size", "stride", "ceil_mode"),
        rename={"input": "x"},
        positional=5,
        sample=("f32+[2,3,8]", 2.0, 2),
    ),
    fn(
        F + "lp_pool2d",
        params=("input", "norm_type", "kernel_size", "stride", "ceil_mode"),
        rename={"input": "x"},
        positional=5,
        sample=("f32+[2,3,6,6]", 2.0, 2),
    ),
    fn(
        F + "pad",
        params=("input", "pad", "mode", "value"),
        sample=("f32[2,3,4]", (1, 2)),
        sample_kwargs={"value": 0.5},
        rename={"pad": "padding"},
    ),
    fn(
        F + "interpolate",
        params=("input", "size", "scale_factor", "mode", "align_corners"),
        sample=("f32[1,2,4,4]", (6, 6)),
        sample_kwargs={"mode": "nearest"},
        **_RESIZE,
    ),
    fn(
        F + "upsample",
        "mindspore.ops.interpolate",
        params=("input", "size", "scale_factor", "mode", "align_corners"),
        sample=("f32[1,2,4,4]", (5, 7)),
        sample_kwargs={"mode": "bilinear", "align_corners": False},
        **_RESIZE,
    ),
    fn(
        F + "grid_sample",
        params=("input", "grid", "mode", "padding_mode", "align_corners"),
        sample=("f32[1,2,4,4]", "f32u[1,3,3,2]"),
        sample_kwargs={"align_corners": False},
    ),
    fn(
        F + "affine_grid",
        params=("theta", "size", "align_corners"),
        sample=("f32[1,2,3]", (1, 2, 4, 4), False),
    ),
    fn(
        F + "pixel_shuffle",
        params=("input", "upscale_factor"),
        sample=("f32[1,8,2,2]", 2),
    ),
    fn(
        F + "pixel_unshuffle",
        params=("input", "downscale_factor"),
        sample=("f32[1,2,4,4]", 2),
    ),
    fn(
        F + "unfold",
        params=("input", "kernel_size", "dilation", "padding", "stride"),
        sample=("f32[1,2,4,4]", 2),
    ),
    fn(
        F + "dropout",
        params=("input", "p", "training", "inplace"),
        sample=("f32[2,3]", 0.5, False),
        **_INPLACE,
    ),
    fn(
        F + "dropout1d",
        params=("input", "p", "training", "inplace"),
        drop=("inplace",),
        sample=("f32[2,3,4]", 0.5, False),
        **_INPLACE,
    ),
    fn(
        F + "dropout2d",
        params=("input", "p", "training", "inplace"),
        drop=("inplace",),
        sample=("f32[2,3,4,4]", 0.5, False),
        **_INPLACE,
    ),
    fn(
        F + "dropout3d",
        params=("input", "p", "training", "inplace"),
        drop=("inplace",),
        sample=("f32[1,2,3,4,4]", 0.5, False),
        **_INPLACE,
    ),
    fn(
        F + "one_hot",
        rename={"tensor": "indices", "input": "indices", "num_classes": "depth"},
        positional=2,
        requires=("num_classes",),
        note="torch infers num_classes when it is absent; MindSpore needs depth",
        params=("tensor", "num_classes"),
        sample=("i64[4]", 3),
    ),
    fn(
        F + "embedding",
        params=("input", "weight", "padding_idx"),
        sample=("i64[2,3]", "f32[5,4]"),
        targets=("ascend",),
        note=_NO_CPU,
    ),
    fn(
        F + "cosine_similarity",
        params=("x1", "x2", "dim", "eps"),
        sample=("f32[2,3]", "f32[2,3]"),
    ),
    fn(F + "pdist", params=("input", "p"), sample=("f32[4,3]",)),
    fn(
        F + "layer_norm",
        params=("input", "normalized_shape", "weight", "bias", "eps"),
        sample=("f32[2,3,4]", (4,), "f32[4]", "f32[4]"),
        targets=("ascend",),
        note=_NO_CPU,
    ),
    fn(
        F + "group_norm",
        params=("input", "num_groups", "weight", "bias", "eps"),
        sample=("f32[2,4,3]", 2, "f32[4]", "f32[4]"),
    ),
    report(
        F + "batch_norm",
        "torch takes None for weight, bias and the running statistics (timm's weight "
        "standardisation passes no statistics); `ops.batch_norm` needs all four as tensors, and "
        "2-D or 4-D input",
    ),
    fn(
        F + "mse_loss",
        params=("input", "target", "size_average", "reduce", "reduction"),
        sample=("f32[2,3]", "f32[2,3]"),
        sample_kwargs={"reduction": "sum"},
        **_REDUCTION,
    ),
    fn(
        F + "l1_loss",
        params=("input", "target", "size_average", "reduce", "reduction"),
        sample=("f32[2,3]", "f32[2,3]"),
        **_REDUCTION,
    ),
    fn(
        F + "smooth_l1_loss",
        params=("input", "target", "size_average", "reduce", "reduction", "beta"),
        sample=("f32[2,3]", "f32[2,3]"),
        sample_kwargs={"beta": 0.5},
        defaults={"reduction": "'mean'"},
        note="MindSpore's reduction defaults to 'none'",
        # MindSpore's kernel refuses beta=0 (torch's L1 loss): the companion entry takes it.
        **{**_REDUCTION, "unsafe_args": {**_REDUCTION["unsafe_args"], "beta": "0.0"}},
    ),
    fn(
        F + "huber_loss",
        params=("input", "target"),
        sample=("f32[2,3]", "f32[2,3]"),
        sample_kwargs={"delta": 0.5},
        **_REDUCTION,
    ),
    fn(
        F + "cross_entropy",
        params=("input", "target", "weight"),
        sample=("f32[4,3]", "i64[4]"),
        sample_kwargs={"label_smoothing": 0.1},
        **_REDUCTION,
    ),
    fn(
        F + "nll_loss",
        params=(
            "input",
            "target",
            "weight",
            "size_average",
            "ignore_index",
            "reduce",
            "reduction",
        ),
        rename={"input": "inputs"},
        positional=3,
        sample=("f32[4,3]", "i64[4]"),
        **_REDUCTION,
    ),
    fn(
        F + "binary_cross_entropy",
        params=("input", "target", "weight", "size_average", "reduce", "reduction"),
        rename={"input": "logits", "target": "labels"},
        positional=3,
        sample=("f32p[2,3]", "f32p[2,3]"),
        **_BCE_WEIGHT,
    ),
    fn(
        F + "binary_cross_entropy_with_logits",
        params=(
            "input",
            "target",
            "weight",
            "size_average",
            "reduce",
            "reduction",
            "pos_weight",
        ),
        sample=("f32[2,3]", "f32p[2,3]"),
        sample_kwargs={"pos_weight": "f32+[3]"},
        **_REDUCTION,
    ),
    report(
        F + "kl_div",
        "MindSpore's ops.kl_div has no log_target: exponentiate a log target first, "
        "`ops.kl_div(input, ops.exp(target), reduction)`",
    ),
    fn(
        F + "cosine_embedding_loss",
        params=(
            "input1",
            "input2",
            "target",
            "margin",
            "size_average",
            "reduce",
            "reduction",
        ),
        sample=("f32[3,4]", "f32[3,4]", "f32n[3]"),
        **_REDUCTION,
    ),
    fn(
        F + "margin_ranking_loss",
        params=(
            "input1",
            "input2",
            "target",
            "margin",
            "size_average",
            "reduce",
            "reduction",
        ),
        sample=("f32[4]", "f32[4]", "f32n[4]", 0.1),
        **_REDUCTION,
    ),
    report(
        F + "hinge_embedding_loss",
        "MindSpore's hinge_embedding_loss needs float targets; torch takes integer -1/1: "
        "cast the target with `.astype(input.dtype)`",
    ),
    fn(
        F + "soft_margin_loss",
        params=("input", "target"),
        sample=("f32[2,3]", "f32n[2,3]"),
        targets=("ascend",),
        note=_NO_CPU,
        **_REDUCTION,
    ),
    fn(
        F + "multilabel_soft_margin_loss",
        params=("input", "target", "weight", "size_average", "reduce", "reduction"),
        sample=("f32[2,3]", "f32p[2,3]"),
        **_REDUCTION,
    ),
    fn(
        F + "multi_margin_loss",
        params=(
            "input",
            "target",
            "p",
            "margin",
            "weight",
            "size_average",
            "reduce",
            "reduction",
        ),
        sample=("f32[4,3]", "i64[4]"),
        **_REDUCTION,
    ),
    fn(
        F + "triplet_margin_loss",
        params=("anchor", "positive", "negative", "margin", "p", "eps", "swap"),
        sample=("f32[3,4]", "f32[3,4]", "f32[3,4]"),
        targets=("gpu", "ascend"),
        note=_NO_CPU,
        **_REDUCTION,
    ),
    fn(
        F + "gaussian_nll_loss",
        params=("input", "target", "var", "full", "eps"),
        sample=("f32[2,3]", "f32[2,3]", "f32+[2,3]"),
    ),
    fn(
        F + "gumbel_softmax",
        params=("logits", "tau", "hard", "eps", "dim"),
        drop=("eps",),
        transform={"tau": "as_float"},
        positional=1,
        sample=("f32[2,3]",),
        check="shape",
    ),
    report(
        F + "normalize",
        "MindSpore 2.10 has no ops.normalize; write `x / ops.clamp(ops.norm(x, p, dim, "
        "keepdim=True), min=eps)`",
    ),
    report(
        F + "max_pool1d",
        "MindSpore 2.10 has no ops.max_pool1d; use `mindspore.nn.MaxPool1d` or unsqueeze "
        "and `ops.max_pool2d`",
    ),
    report(
        F + "fold",
        "MindSpore's fold takes output_size as a Tensor: `ops.fold(x, mindspore.tensor(size), ...)`",
    ),
    report(
        F + "pairwise_distance",
        "MindSpore 2.10 has no pairwise_distance; write "
        "`ops.norm(x1 - x2 + eps, p, dim=-1)`",
    ),
    report(F + "instance_norm", "use `mindspore.nn.InstanceNorm1d/2d/3d` as a layer"),
    report(
        F + "local_response_norm",
        "use `mindspore.nn.LRN` (depth_radius = size // 2, alpha scaled by 1/size)",
    ),
    report(F + "poisson_nll_loss", "use `mindspore.nn.PoissonNLLLoss` as a layer"),
)
