"""Companion entries in library/functional.py: torch qualified name -> entry name."""

F = "torch.nn.functional."

ENTRIES: dict[str, str] = {
    "torch.einsum": "einsum",
    "torch.roll": "roll",
    "torch.meshgrid": "meshgrid",
    "torch.unique": "unique",
    "torch.equal": "equal",
    "torch.full": "full",
    "torch.nonzero": "nonzero",
    "torch.where": "where",
    # A seeded generator's stream; the idiom serves the calls without `generator=`.
    "torch.Generator": "Generator",
    "torch.randperm": "randperm",
    "torch.randint": "randint",
    "torch.rand": "rand",
    "torch.randn": "randn",
    "torch.normal": "normal",
    "torch.multinomial": "multinomial",
    "torch.layer_norm": "layer_norm",
    F + "layer_norm": "layer_norm",
    F + "rms_norm": "rms_norm",
    F + "normalize": "normalize",
    F + "group_norm": "group_norm",
    F + "batch_norm": "batch_norm",
    F + "scaled_dot_product_attention": "scaled_dot_product_attention",
    F + "fold": "fold",
    F + "avg_pool2d": "avg_pool2d",
    F + "interpolate": "interpolate",
    F + "upsample": "interpolate",
    # Activations kept as values (calls use the idiom).
    "torch.nn.functional.relu": "relu",
    "torch.nn.functional.relu6": "relu6",
    "torch.nn.functional.leaky_relu": "leaky_relu",
    "torch.nn.functional.elu": "elu",
    "torch.nn.functional.celu": "celu",
    "torch.nn.functional.selu": "selu",
    "torch.nn.functional.silu": "silu",
    "torch.nn.functional.mish": "mish",
    "torch.nn.functional.hardsigmoid": "hardsigmoid",
    "torch.nn.functional.hardswish": "hardswish",
    "torch.nn.functional.hardtanh": "hardtanh",
    "torch.nn.functional.threshold": "threshold",
    "torch.nn.functional.rrelu": "rrelu",
    "torch.nn.functional.gumbel_softmax": "gumbel_softmax",
    "torch.nn.functional.log_softmax": "log_softmax",
    "torch.log_softmax": "log_softmax_over",
    "torch.rrelu": "rrelu",
    # The in-place forms: the result written into the input.
    "torch.relu_": "relu_",
    "torch.nn.functional.relu_": "relu_",
    "torch.nn.functional.leaky_relu_": "leaky_relu_",
    "torch.nn.functional.elu_": "elu_",
    "torch.nn.functional.celu_": "celu_",
    "torch.selu_": "selu_",
    "torch.celu_": "celu_",
    "torch.nn.functional.hardtanh_": "hardtanh_",
    "torch.nn.functional.threshold_": "threshold_",
    "torch.threshold_": "threshold_",
}

# Torch classes the API table refuses whose companion class is what converted calls build: an
# annotation naming the torch class names the companion class.
ANNOTATED: dict[str, str] = {"torch.Generator": "Generator"}

# Entries that stand for a function kept as a value only (none: the activations also serve
# calls with `inplace=True`, which they write into the input as torch does).
VALUE_ONLY: frozenset[str] = frozenset()
