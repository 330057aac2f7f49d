"""What the nn rules know about torch layers, as data.

Parameter names are those MindSpore 2.10's `mindspore.nn` layers register (checked with
`parameters_and_names()` on the real framework); a layer missing here keeps torch's names
(`Dense` and `Conv2d` keep `weight`/`bias`, in the same (out, in, ...) layout).
"""

from __future__ import annotations

_NORM = {"weight": "gamma", "bias": "beta"}
_BATCH_NORM = {**_NORM, "running_mean": "moving_mean", "running_var": "moving_variance"}

# torch.nn layer -> {torch attribute: MindSpore attribute}; the API table's `param_names` win.
PARAM_NAMES: dict[str, dict[str, str]] = {
    "torch.nn.BatchNorm1d": _BATCH_NORM,
    "torch.nn.BatchNorm2d": _BATCH_NORM,
    "torch.nn.BatchNorm3d": _BATCH_NORM,
    "torch.nn.SyncBatchNorm": _BATCH_NORM,
    "torch.nn.InstanceNorm1d": _BATCH_NORM,
    "torch.nn.InstanceNorm2d": _BATCH_NORM,
    "torch.nn.InstanceNorm3d": _BATCH_NORM,
    "torch.nn.LayerNorm": _NORM,
    "torch.nn.GroupNorm": _NORM,
    "torch.nn.Embedding": {"weight": "embedding_table"},
    "torch.nn.PReLU": {"weight": "w"},
}

# Plain attributes MindSpore's layers name differently (init code reads `m.groups`).
_CONV_ATTRIBUTES = {"groups": "group"}
ATTRIBUTE_NAMES: dict[str, dict[str, str]] = {
    "torch.nn.Conv1d": _CONV_ATTRIBUTES,
    "torch.nn.Conv2d": _CONV_ATTRIBUTES,
    "torch.nn.Conv3d": _CONV_ATTRIBUTES,
    "torch.nn.ConvTranspose2d": _CONV_ATTRIBUTES,
    "torch.nn.Linear": {"in_features": "in_channels", "out_features": "out_channels"},
    **{
        "torch.nn." + name: {"bias": "has_bias"}
        for name in ("LSTM", "GRU", "RNN", "LSTMCell", "GRUCell", "RNNCell")
    },
}

# torch attributes that MindSpore's class holds in another form or lacks, beyond the renamed ones
# above (MindSpore's Conv1d keeps `stride` as (1, s), its Embedding `vocab_size`).
HELD_OTHERWISE: dict[str, tuple[str, ...]] = {
    "torch.nn.Embedding": ("num_embeddings", "embedding_dim"),
    "torch.nn.Conv1d": ("kernel_size", "stride", "padding", "dilation"),
    "torch.nn.Conv2d": ("padding",),
    "torch.nn.Conv3d": ("padding",),
    "torch.nn.LayerNorm": ("eps", "elementwise_affine"),
    "torch.nn.PReLU": ("num_parameters",),
}

# Attributes torch layers have that MindSpore's do not.
NO_COUNTERPART: dict[str, str] = {
    "num_batches_tracked": "MindSpore's BatchNorm keeps no step counter; momentum is always used",
}

# Layers whose output depends on train/eval mode.
MODE_DEPENDENT = frozenset(
    "torch.nn." + name
    for name in [
        "BatchNorm1d",
        "BatchNorm2d",
        "BatchNorm3d",
        "SyncBatchNorm",
        "LazyBatchNorm1d",
        "LazyBatchNorm2d",
        "LazyBatchNorm3d",
        "InstanceNorm1d",
        "InstanceNorm2d",
        "InstanceNorm3d",
        "LazyInstanceNorm1d",
        "LazyInstanceNorm2d",
        "LazyInstanceNorm3d",
        "RReLU",
        "Dropout",
        "Dropout1d",
        "Dropout2d",
        "Dropout3d",
        "AlphaDropout",
        "FeatureAlphaDropout",
        "MultiheadAttention",
        "TransformerEncoderLayer",
        "TransformerDecoderLayer",
        "TransformerEncoder",
        "TransformerDecoder",
    ]
)

# Containers: torch name -> MindSpore name.
CONTAINERS = {
    "torch.nn.Sequential": "mindspore.nn.SequentialCell",
    "torch.nn.ModuleList": "mindspore.nn.CellList",
    "torch.nn.ModuleDict": "mindspore.nn.CellDict",
}

# Names under torch.nn that are not Module classes.
NOT_MODULES = frozenset(
    {
        "torch.nn.Parameter",
        "torch.nn.Buffer",
        "torch.nn.UninitializedParameter",
        "torch.nn.UninitializedBuffer",
    }
)


def is_layer(qualified: str) -> bool:
    """A `torch.nn.<Class>` that is a Module (layers, losses, containers)."""
    if not qualified.startswith("torch.nn."):
        return False
    parts = qualified.split(".")
    if len(parts) == 3:
        return parts[2][:1].isupper() and qualified not in NOT_MODULES
    return len(parts) >= 4 and parts[2] == "modules" and parts[-1][:1].isupper()


def canonical(qualified: str) -> str:
    """`torch.nn.modules.batchnorm.BatchNorm2d` -> `torch.nn.BatchNorm2d`."""
    parts = qualified.split(".")
    if len(parts) >= 4 and parts[:3] == ["torch", "nn", "modules"]:
        return "torch.nn." + parts[-1]
    return qualified


def param_names(layer: str) -> dict[str, str]:
    """torch -> MindSpore parameter names of a layer: the API table's, else those above."""
    layer = canonical(layer)
    from ..api import BY_TORCH_NAME

    mapping = BY_TORCH_NAME.get(layer)
    if mapping is not None and mapping.param_names:
        return {k: v for k, v in mapping.param_names.items() if v}
    return PARAM_NAMES.get(layer, {})


def param_name(layer: str, attribute: str) -> str | None:
    """The MindSpore attribute for ``attribute`` of a torch ``layer``, when it differs."""
    return param_names(layer).get(attribute) or ATTRIBUTE_NAMES.get(
        canonical(layer), {}
    ).get(attribute)


def torch_only_attributes(layer: str) -> frozenset[str]:
    """The attributes of a torch ``layer`` that its MindSpore class names otherwise, holds in
    another form or lacks: code reading them from an instance needs the companion class."""
    layer = canonical(layer)
    return (
        frozenset(param_names(layer))
        | frozenset(ATTRIBUTE_NAMES.get(layer, {}))
        | frozenset(HELD_OTHERWISE.get(layer, ()))
    )
