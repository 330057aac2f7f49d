"""`torch.nn` layers and losses -> `mindspore.nn` cells, with constructor argument maps."""

from __future__ import annotations

from .entries import layer, report

N = "torch.nn."
NN = "mindspore.nn."
_NO_CPU = "no CPU kernel in MindSpore 2.10"
_INPLACE = ("inplace",)
# inplace=True also writes the result into the input, which MindSpore's layers never do: the
# companion class (which does) stands for those calls.
_WRITES_INPUT = {
    "unsafe_args": {"inplace": "True"},
    "unsafe_reason": "torch's inplace=True also writes the result into the input tensor, which "
    "MindSpore's layer does not; where nothing else reads the input, drop `inplace`",
}
_REDUCTION = {
    "unsafe_args": {"size_average": "*", "reduce": "*"},
    "unsafe_reason": "size_average/reduce are deprecated; pass reduction='mean'|'sum'|'none'",
}
_NORM_NAMES = {
    "weight": "gamma",
    "bias": "beta",
    "running_mean": "moving_mean",
    "running_var": "moving_variance",
}
_BATCH_NORM = {
    "params": ("num_features", "eps", "momentum", "affine", "track_running_stats"),
    "positional": 4,
    "transform": {"momentum": "one_minus"},
    "unsafe_args": {"track_running_stats": "False", "momentum": "=None"},
    # MindSpore's BatchNorm always tracks them: True is its only behaviour.
    "drop": ("track_running_stats",),
    "unsafe_reason": "MindSpore's BatchNorm always tracks an exponential moving average; "
    "use `use_batch_statistics=True` for batch statistics in both modes",
    "param_names": _NORM_NAMES,
    "note": "MindSpore's momentum weighs the old statistics: momentum = 1 - torch momentum",
    "check": "train",
}
_CONV = {
    "params": (
        "in_channels",
        "out_channels",
        "kernel_size",
        "stride",
        "padding",
        "dilation",
        "groups",
        "bias",
        "padding_mode",
    ),
    "positional": 4,
    "rename": {"groups": "group", "bias": "has_bias"},
    "defaults": {"pad_mode": "'pad'", "has_bias": "True"},
    "transform": {"padding": "pad_each_side"},
    "unsafe_args": {"padding": "<str>", "padding_mode": "*"},
    "unsafe_reason": "string padding or a padding_mode: pass pad_mode='same'|'valid', or pad explicitly with "
    "`mindspore.nn.Pad`/`ops.pad(mode='reflect')`",
    "note": "MindSpore's Conv has pad_mode='same' and has_bias=False by default, and pads each side explicitly",
}
_CONV_T = dict(
    _CONV,
    params=(
        "in_channels",
        "out_channels",
        "kernel_size",
        "stride",
        "padding",
        "output_padding",
        "groups",
        "bias",
        "dilation",
        "padding_mode",
    ),
)
_LAYOUT_1D = "; its weight layout is (out, in, 1, k)"
_POOL = {
    "positional": 2,
    "defaults": {"stride": "@kernel_size", "pad_mode": "'pad'"},
    "note": "MindSpore's stride defaults to 1, torch's to kernel_size",
}
# Pools over 2 or 3 dimensions take their sizes as an int or a tuple, not a list.
_SIZES = {"kernel_size": "list_to_tuple", "stride": "list_to_tuple"}


# torch's recurrent layers: MindSpore's take the same arguments in the same order (`bias` is
# `has_bias`, `dropout` must be a float), name their parameters as torch does (`weight_ih_l0`,
# `bias_hh_l1_reverse`) in the same gate order and layout, and return `(output, h_n)` or
# `(output, (h_n, c_n))` for an input and an optional initial state, as torch does.
_RNN_PARAMS = (
    "input_size",
    "hidden_size",
    "num_layers",
    "bias",
    "batch_first",
    "dropout",
    "bidirectional",
)
_RNN = {
    "positional": 7,
    "rename": {"bias": "has_bias"},
    "transform": {"dropout": "as_float"},
    "note": "MindSpore's recurrent layers take batched input only (torch also takes an unbatched "
    "(L, H_in) sequence) and no PackedSequence",
}


def act(name: str, mindspore: str = "", params: tuple = ("inplace",), **fields):
    return layer(
        N + name, mindspore, params=params, drop=_INPLACE, **{**_WRITES_INPUT, **fields}
    )


def loss(name: str, params: tuple, sample: tuple, **fields):
    return layer(N + name, params=params, sample=sample, **{**_REDUCTION, **fields})


TABLE = (
    layer(
        N + "Linear",
        NN + "Dense",
        params=("in_features", "out_features", "bias"),
        positional=2,
        rename={
            "in_features": "in_channels",
            "out_features": "out_channels",
            "bias": "has_bias",
        },
        init=(3, 4),
        sample=("f32[2,3]",),
    ),
    layer(
        N + "Bilinear",
        NN + "BiDense",
        params=("in1_features", "in2_features", "out_features", "bias"),
        positional=3,
        rename={
            "in1_features": "in1_channels",
            "in2_features": "in2_channels",
            "out_features": "out_channels",
            "bias": "has_bias",
        },
        init=(3, 4, 5),
        sample=("f32[2,3]", "f32[2,4]"),
    ),
    layer(
        N + "Conv1d",
        **{**_CONV, "note": _CONV["note"] + _LAYOUT_1D},
        init=(4, 6, 3),
        init_kwargs={"padding": 1},
        sample=("f32[2,4,8]",),
    ),
    layer(
        N + "Conv2d",
        **_CONV,
        init=(4, 6, 3, 2),
        init_kwargs={"padding": (1, 2), "groups": 2},
        sample=("f32[2,4,7,7]",),
    ),
    layer(
        N + "Conv3d",
        **_CONV,
        init=(2, 3, 3),
        init_kwargs={"bias": False},
        sample=("f32[1,2,5,5,5]",),
    ),
    layer(
        N + "ConvTranspose1d",
        NN + "Conv1dTranspose",
        **{
            **_CONV_T,
            "note": _CONV["note"] + _LAYOUT_1D,
            # MindSpore's Conv1dTranspose has no output_padding: the companion class takes it.
            "unsafe_args": {**_CONV_T["unsafe_args"], "output_padding": "*"},
        },
        init=(4, 3, 3, 2),
        init_kwargs={"padding": 1},
        sample=("f32[2,4,5]",),
    ),
    layer(
        N + "ConvTranspose2d",
        NN + "Conv2dTranspose",
        **_CONV_T,
        init=(4, 3, 3, 2),
        init_kwargs={"padding": 1},
        sample=("f32[2,4,5,5]",),
    ),
    layer(
        N + "ConvTranspose3d",
        NN + "Conv3dTranspose",
        **_CONV_T,
        init=(2, 3, 3),
        sample=("f32[1,2,3,3,3]",),
    ),
    layer(
        N + "BatchNorm1d",
        **_BATCH_NORM,
        init=(3,),
        init_kwargs={"momentum": 0.2},
        sample=("f32[4,3]",),
    ),
    layer(N + "BatchNorm2d", **_BATCH_NORM, init=(3, 1e-3), sample=("f32[4,3,2,2]",)),
    layer(N + "BatchNorm3d", **_BATCH_NORM, init=(2,), sample=("f32[2,2,2,2,2]",)),
    layer(
        N + "LayerNorm",
        params=("normalized_shape", "eps", "elementwise_affine", "bias"),
        positional=1,
        rename={"eps": "epsilon"},
        defaults={"epsilon": "1e-05"},
        transform={"normalized_shape": "as_tuple"},
        unsafe_args={"elementwise_affine": "False", "bias": "False"},
        unsafe_reason="MindSpore's LayerNorm always has gamma and beta; freeze them with requires_grad=False",
        param_names={"weight": "gamma", "bias": "beta"},
        note="MindSpore's epsilon defaults to 1e-7 and its normalized_shape must be a tuple",
        init=(4,),
        sample=("f32[2,3,4]",),
    ),
    layer(
        N + "GroupNorm",
        params=("num_groups", "num_channels", "eps", "affine"),
        param_names={"weight": "gamma", "bias": "beta"},
        init=(2, 4),
        sample=("f32[2,4,3,3]",),
    ),
    layer(
        N + "InstanceNorm1d",
        params=("num_features", "eps", "momentum", "affine", "track_running_stats"),
        positional=2,
        defaults={"affine": "False"},
        unsafe_args={"track_running_stats": "True", "momentum": "*"},
        unsafe_reason="MindSpore's InstanceNorm keeps no running statistics",
        param_names={"weight": "gamma", "bias": "beta"},
        targets=("gpu", "ascend"),
        note="torch's affine defaults to False, MindSpore's to True; " + _NO_CPU,
        init=(3,),
        init_kwargs={"affine": True},
        sample=("f32[2,3,5]",),
    ),
    layer(
        N + "InstanceNorm2d",
        params=("num_features", "eps", "momentum", "affine", "track_running_stats"),
        positional=2,
        defaults={"affine": "False"},
        unsafe_args={"track_running_stats": "True", "momentum": "*"},
        unsafe_reason="MindSpore's InstanceNorm keeps no running statistics",
        param_names={"weight": "gamma", "bias": "beta"},
        targets=("gpu", "ascend"),
        note="torch's affine defaults to False, MindSpore's to True; " + _NO_CPU,
        init=(3,),
        init_kwargs={"affine": True},
        sample=("f32[2,3,4,4]",),
    ),
    layer(
        N + "Embedding",
        params=("num_embeddings", "embedding_dim", "padding_idx"),
        positional=2,
        rename={"num_embeddings": "vocab_size", "embedding_dim": "embedding_size"},
        unsafe_args={
            "max_norm": "*",
            "scale_grad_by_freq": "True",
            "sparse": "True",
            "_weight": "*",
        },
        unsafe_reason="MindSpore's Embedding has no max_norm, scale_grad_by_freq or sparse gradients",
        param_names={"weight": "embedding_table"},
        init=(5, 4),
        sample=("i64[2,3]",),
    ),
    layer(
        N + "Dropout",
        params=("p", "inplace"),
        positional=0,
        drop=_INPLACE,
        **_WRITES_INPUT,
        note="MindSpore's first positional parameter is keep_prob; p= is passed by name",
        init=(0.3,),
    ),
    layer(
        N + "Dropout1d", params=("p", "inplace"), drop=_INPLACE, sample=("f32[2,3,4]",)
    ),
    report(
        N + "Dropout2d",
        "MindSpore's nn.Dropout2d takes (N, C, H, W) input only, where torch's drops (N, C) "
        "entries of an input of any rank; for 4-D input write `mindspore.nn.Dropout2d(p=...)`",
        kind="class",
    ),
    layer(
        N + "Dropout3d",
        params=("p", "inplace"),
        drop=_INPLACE,
        sample=("f32[1,2,3,4,4]",),
    ),
    act("ReLU"),
    act("ReLU6"),
    act("SiLU"),
    act("Mish"),
    act("SELU", NN + "SeLU"),
    act("CELU", params=("alpha", "inplace"), init=(0.7,)),
    act("ELU", params=("alpha", "inplace")),
    act("Hardswish", NN + "HSwish"),
    act("Hardsigmoid", NN + "HSigmoid"),
    act("Hardtanh", params=("min_val", "max_val", "inplace"), init=(-0.5, 0.5)),
    act(
        "LeakyReLU",
        params=("negative_slope", "inplace"),
        rename={"negative_slope": "alpha"},
        defaults={"alpha": "0.01"},
        note="MindSpore's alpha defaults to 0.2, torch's negative_slope to 0.01",
    ),
    act("Threshold", params=("threshold", "value", "inplace"), init=(0.1, 20.0)),
    layer(
        N + "GELU",
        params=("approximate",),
        transform={"approximate": "is_tanh"},
        defaults={"approximate": "False"},
        note="MindSpore's approximate is a bool and defaults to True (tanh)",
        init_kwargs={"approximate": "tanh"},
    ),
    layer(N + "Sigmoid"),
    layer(N + "Tanh"),
    layer(N + "Softsign"),
    layer(N + "Tanhshrink"),
    layer(N + "LogSigmoid"),
    layer(N + "Identity", params=("*args",), init=(3,)),
    layer(N + "Hardshrink", NN + "HShrink", params=("lambd",), init=(0.3,)),
    layer(
        N + "Softmax",
        params=("dim",),
        rename={"dim": "axis"},
        init=(1,),
        requires=("dim",),
        # dim=None is torch's legacy axis choice, which the companion class makes.
        unsafe_args={"dim": "None"},
        note="without dim, torch picks one by ndim (deprecated); MindSpore uses -1: pass dim",
    ),
    # The companion's class composes log-softmax: MindSpore's LogSoftmax kernel on CPU rounds a
    # few float32 ulps away from torch's.
    report(
        N + "LogSoftmax",
        "MindSpore's LogSoftmax kernel rounds a few ulps away from torch's on CPU; subtract the "
        "max and the log of the summed exponentials",
        kind="class",
    ),
    layer(
        N + "Softmin",
        params=("dim",),
        rename={"dim": "axis"},
        init=(1,),
        requires=("dim",),
        # dim=None is torch's legacy axis choice, which the companion class makes.
        unsafe_args={"dim": "None"},
        note="without dim, torch picks one by ndim (deprecated); MindSpore uses -1: pass dim",
    ),
    layer(N + "GLU", params=("dim",), rename={"dim": "axis"}, sample=("f32[2,4]",)),
    layer(
        N + "PReLU",
        params=("num_parameters", "init"),
        rename={"num_parameters": "channel", "init": "w"},
        param_names={"weight": "w"},
        init=(3,),
        sample=("f32[2,3,4]",),
    ),
    layer(
        N + "MaxPool1d",
        params=(
            "kernel_size",
            "stride",
            "padding",
            "dilation",
            "return_indices",
            "ceil_mode",
        ),
        **_POOL,
        init=(2,),
        sample=("f32[2,3,8]",),
    ),
    layer(
        N + "MaxPool2d",
        params=(
            "kernel_size",
            "stride",
            "padding",
            "dilation",
            "return_indices",
            "ceil_mode",
        ),
        **_POOL,
        transform=_SIZES,
        init=(3, 2, 1),
        sample=("f32[2,3,7,7]",),
    ),
    layer(
        N + "MaxPool3d",
        params=(
            "kernel_size",
            "stride",
            "padding",
            "dilation",
            "return_indices",
            "ceil_mode",
        ),
        **_POOL,
        transform=_SIZES,
        init=(2,),
        sample=("f32[1,2,4,4,4]",),
    ),
    layer(
        N + "AvgPool1d",
        params=("kernel_size", "stride", "padding", "ceil_mode", "count_include_pad"),
        **_POOL,
        init=(2,),
        sample=("f32[2,3,8]",),
    ),
    layer(
        N + "AvgPool2d",
        params=(
            "kernel_size",
            "stride",
            "padding",
            "ceil_mode",
            "count_include_pad",
            "divisor_override",
        ),
        **_POOL,
        transform=_SIZES,
        init=(3, 2, 1),
        sample=("f32[2,3,7,7]",),
    ),
    layer(
        N + "AvgPool3d",
        params=(
            "kernel_size",
            "stride",
            "padding",
            "ceil_mode",
            "count_include_pad",
            "divisor_override",
        ),
        **_POOL,
        transform=_SIZES,
        init=(2,),
        sample=("f32[1,2,4,4,4]",),
    ),
    layer(
        N + "AdaptiveAvgPool1d",
        params=("output_size",),
        init=(4,),
        sample=("f32[2,3,8]",),
    ),
    layer(
        N + "AdaptiveAvgPool2d",
        params=("output_size",),
        init=((2, 3),),
        sample=("f32[2,3,6,6]",),
    ),
    layer(
        N + "AdaptiveAvgPool3d",
        params=("output_size",),
        init=(2,),
        sample=("f32[1,2,4,4,4]",),
    ),
    layer(
        N + "LPPool1d",
        params=("norm_type", "kernel_size", "stride", "ceil_mode"),
        init=(2.0, 2),
        sample=("f32+[2,3,8]",),
    ),
    layer(
        N + "LPPool2d",
        params=("norm_type", "kernel_size", "stride", "ceil_mode"),
        init=(2.0, 2),
        sample=("f32+[2,3,6,6]",),
    ),
    layer(N + "Flatten", params=("start_dim", "end_dim"), sample=("f32[2,3,4]",)),
    layer(
        N + "Unflatten",
        params=("dim", "unflattened_size"),
        rename={"dim": "axis"},
        positional=2,
        init=(1, (2, 2)),
        sample=("f32[3,4]",),
    ),
    layer(
        N + "ZeroPad2d",
        params=("padding",),
        init=((1, 2, 0, 1),),
        sample=("f32[1,2,3,3]",),
    ),
    layer(
        N + "ConstantPad1d",
        params=("padding", "value"),
        init=(2, 0.5),
        sample=("f32[2,3,4]",),
    ),
    layer(
        N + "ConstantPad2d",
        params=("padding", "value"),
        init=((1, 0, 2, 1), 0.5),
        sample=("f32[1,2,3,3]",),
    ),
    layer(
        N + "ConstantPad3d",
        params=("padding", "value"),
        init=(1, 0.5),
        sample=("f32[1,2,2,2,2]",),
    ),
    layer(
        N + "ReflectionPad1d", params=("padding",), init=(2,), sample=("f32[2,3,4]",)
    ),
    layer(
        N + "ReflectionPad2d", params=("padding",), init=(1,), sample=("f32[1,2,3,3]",)
    ),
    layer(
        N + "ReplicationPad1d", params=("padding",), init=(2,), sample=("f32[2,3,4]",)
    ),
    layer(
        N + "ReplicationPad2d",
        params=("padding",),
        init=((1, 0, 2, 1),),
        sample=("f32[1,2,3,3]",),
    ),
    layer(
        N + "ReplicationPad3d",
        params=("padding",),
        init=(1,),
        sample=("f32[1,2,2,2,2]",),
    ),
    layer(
        N + "PixelShuffle",
        params=("upscale_factor",),
        init=(2,),
        sample=("f32[1,8,2,2]",),
    ),
    layer(
        N + "PixelUnshuffle",
        params=("downscale_factor",),
        init=(2,),
        sample=("f32[1,2,4,4]",),
    ),
    layer(
        N + "ChannelShuffle", params=("groups",), init=(2,), sample=("f32[1,4,2,2]",)
    ),
    layer(
        N + "Upsample",
        params=("size", "scale_factor", "mode", "align_corners"),
        init=((6, 6),),
        sample=("f32[1,2,4,4]",),
        unsafe_args={"scale_factor": "*"},
        unsafe_reason="MindSpore's Upsample takes a float scale factor only; the companion class "
        "takes torch's ints and tuples",
    ),
    loss(
        "MSELoss",
        ("size_average", "reduce", "reduction"),
        ("f32[2,3]", "f32[2,3]"),
        positional=0,
    ),
    loss(
        "L1Loss",
        ("size_average", "reduce", "reduction"),
        ("f32[2,3]", "f32[2,3]"),
        positional=0,
        init_kwargs={"reduction": "sum"},
    ),
    loss(
        "CrossEntropyLoss",
        (
            "weight",
            "size_average",
            "ignore_index",
            "reduce",
            "reduction",
            "label_smoothing",
        ),
        ("f32[4,3]", "i64[4]"),
        positional=1,
        init_kwargs={"label_smoothing": 0.1},
        targets=("gpu", "ascend"),
        note="on CPU, MindSpore 2.10's nn.CrossEntropyLoss rejects int64 labels: cast them with "
        "`labels.astype(mindspore.int32)` or call `ops.cross_entropy(logits, labels, ...)`, which accepts them",
    ),
    loss(
        "NLLLoss",
        ("weight", "size_average", "ignore_index", "reduce", "reduction"),
        ("f32[4,3]", "i64[4]"),
        positional=1,
    ),
    loss(
        "BCELoss",
        ("weight", "size_average", "reduce", "reduction"),
        ("f32p[2,3]", "f32p[2,3]"),
        positional=1,
        unsafe_args={"size_average": "*", "reduce": "*", "weight": "*"},
        unsafe_reason="MindSpore's BCELoss does not broadcast `weight` on CPU: pass it "
        "broadcast to the input's shape",
    ),
    loss(
        "BCEWithLogitsLoss",
        ("weight", "size_average", "reduce", "reduction", "pos_weight"),
        ("f32[2,3]", "f32p[2,3]"),
        positional=0,
        init_kwargs={"pos_weight": "f32+[3]"},
        param_names={"pos_weight": ""},
    ),
    loss(
        "SmoothL1Loss",
        ("size_average", "reduce", "reduction", "beta"),
        ("f32[2,3]", "f32[2,3]"),
        positional=0,
        # MindSpore's kernel refuses beta=0 (torch's L1 loss): the companion class takes it.
        unsafe_args={**_REDUCTION["unsafe_args"], "beta": "0.0"},
        defaults={"reduction": "'mean'"},
        note="MindSpore's reduction defaults to 'none'",
        init_kwargs={"beta": 0.5},
    ),
    loss(
        "HuberLoss",
        ("reduction", "delta"),
        ("f32[2,3]", "f32[2,3]"),
        init_kwargs={"delta": 0.5},
    ),
    loss(
        "KLDivLoss",
        ("size_average", "reduce", "reduction", "log_target"),
        ("f32[2,3]", "f32p[2,3]"),
        positional=0,
        unsafe_args={"size_average": "*", "reduce": "*", "log_target": "*"},
        unsafe_reason="MindSpore's KLDivLoss takes probabilities as target; exponentiate a log target first",
        init_kwargs={"reduction": "sum"},
    ),
    loss(
        "CosineEmbeddingLoss",
        ("margin", "size_average", "reduce", "reduction"),
        ("f32[3,4]", "f32[3,4]", "f32n[3]"),
        positional=1,
    ),
    loss(
        "MarginRankingLoss",
        ("margin", "size_average", "reduce", "reduction"),
        ("f32[4]", "f32[4]", "f32n[4]"),
        positional=1,
        init=(0.1,),
    ),
    loss(
        "HingeEmbeddingLoss",
        ("margin", "size_average", "reduce", "reduction"),
        ("f32[2,3]", "f32n[2,3]"),
        positional=1,
    ),
    loss(
        "MultiLabelSoftMarginLoss",
        ("weight", "size_average", "reduce", "reduction"),
        ("f32[2,3]", "f32p[2,3]"),
        positional=1,
    ),
    loss(
        "MultiMarginLoss",
        ("p", "margin", "weight", "size_average", "reduce", "reduction"),
        ("f32[4,3]", "i64[4]"),
        positional=2,
    ),
    loss(
        "PoissonNLLLoss",
        ("log_input", "full", "size_average", "eps", "reduce", "reduction"),
        ("f32[2,3]", "f32+[2,3]"),
        positional=2,
    ),
    loss(
        "GaussianNLLLoss",
        ("full", "eps", "reduction"),
        ("f32[2,3]", "f32[2,3]", "f32+[2,3]"),
        positional=0,
    ),
    loss(
        "SoftMarginLoss",
        ("size_average", "reduce", "reduction"),
        ("f32[2,3]", "f32n[2,3]"),
        positional=0,
        targets=("ascend",),
        note=_NO_CPU,
    ),
    loss(
        "TripletMarginLoss",
        ("margin", "p", "eps", "swap", "size_average", "reduce", "reduction"),
        ("f32[3,4]", "f32[3,4]", "f32[3,4]"),
        positional=0,
        targets=("gpu", "ascend"),
        note=_NO_CPU,
    ),
    layer(
        N + "LSTM",
        **_RNN,
        params=_RNN_PARAMS + ("proj_size",),
        unsafe_args={"proj_size": "*"},
        unsafe_reason="MindSpore's LSTM has no projection (proj_size); project h_t with "
        "`nn.Dense(hidden_size, proj_size, has_bias=False)` after each step by hand",
        init=(3, 4, 2),
        init_kwargs={"bidirectional": True, "dropout": 0},
        sample=("f32[5,2,3]",),
    ),
    layer(
        N + "GRU",
        **_RNN,
        params=_RNN_PARAMS,
        init=(3, 4),
        init_kwargs={"batch_first": True},
        sample=("f32[2,5,3]",),
    ),
    layer(
        N + "RNN",
        **{**_RNN, "positional": 3},  # MindSpore reads nonlinearity by keyword only
        params=_RNN_PARAMS[:3] + ("nonlinearity",) + _RNN_PARAMS[3:],
        init=(3, 4, 2, "relu"),
        init_kwargs={"bias": False},
        sample=("f32[5,2,3]",),
    ),
    report(
        N + "MultiheadAttention",
        "MindSpore's nn.MultiheadAttention takes has_bias= and splits its "
        "projections differently; port the weights by hand",
        kind="class",
    ),
    report(
        N + "Transformer",
        "port with `mindspore.nn.Transformer`; its arguments and weight names differ",
        kind="class",
    ),
    report(
        N + "TransformerEncoderLayer",
        "port with `mindspore.nn.TransformerEncoderLayer`; its arguments and "
        "weight names differ",
        kind="class",
    ),
    report(
        N + "TransformerDecoderLayer",
        "port with `mindspore.nn.TransformerDecoderLayer`; its arguments and "
        "weight names differ",
        kind="class",
    ),
    report(
        N + "Softplus",
        "MindSpore 2.10 has no nn.Softplus; call `ops.softplus(x, beta, threshold)` in "
        "construct",
        kind="class",
    ),
    report(
        N + "Softshrink",
        "MindSpore 2.10 has no nn.Softshrink; call `ops.softshrink(x, lambd)` in construct",
        kind="class",
    ),
    report(
        N + "CosineSimilarity",
        "MindSpore's nn.CosineSimilarity is a different metric; call "
        "`ops.cosine_similarity(x1, x2, dim, eps)` in construct",
        kind="class",
    ),
    report(
        N + "PairwiseDistance",
        "MindSpore 2.10 has no PairwiseDistance; compute "
        "`ops.norm(x1 - x2 + eps, p, dim=-1)`",
        kind="class",
    ),
    report(
        N + "SyncBatchNorm",
        "use `mindspore.nn.SyncBatchNorm` inside a communication group; the "
        "process group setup differs",
        kind="class",
    ),
)
