"""Companion entries in library/losses.py (and the parameter containers of
library/containers.py): torch qualified name -> entry name."""

from __future__ import annotations

F = "torch.nn.functional."

ENTRIES: dict[str, str] = {
    F + "pairwise_distance": "pairwise_distance",
    "torch.pairwise_distance": "pairwise_distance",
    F + "triplet_margin_loss": "triplet_margin_loss",
    F + "soft_margin_loss": "soft_margin_loss",
    F + "binary_cross_entropy": "binary_cross_entropy",
    F + "kl_div": "kl_div",
    "torch.kl_div": "kl_div",
    F + "hinge_embedding_loss": "hinge_embedding_loss",
    "torch.hinge_embedding_loss": "hinge_embedding_loss",
    F + "conv_transpose1d": "conv_transpose1d",
    F + "conv_transpose2d": "conv_transpose2d",
    "torch.conv_transpose1d": "conv_transpose1d",
    "torch.conv_transpose2d": "conv_transpose2d",
}
_MODULES = {
    "loss": (
        "TripletMarginLoss",
        "SoftMarginLoss",
        "BCELoss",
        "KLDivLoss",
        "HingeEmbeddingLoss",
    ),
    "distance": ("PairwiseDistance", "CosineSimilarity"),
    "container": ("ParameterDict", "ParameterList"),
}
for _module, _classes in _MODULES.items():
    for _name in _classes:
        ENTRIES["torch.nn." + _name] = _name
        ENTRIES[f"torch.nn.modules.{_module}.{_name}"] = _name
