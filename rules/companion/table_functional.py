"""Companion entries in library/functional.py: torch qualified name -> entry name."""

F = "torch.nn.functional."

ENTRIES: dict[str, str] = {
    "torch.einsum": "einsum",
    "torch.roll": "roll",
    "torch.unique": "unique",
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
}
