"""Companion entries in library/nn_extra.py: torch qualified name -> entry name."""

from __future__ import annotations

F = "torch.nn.functional."

ENTRIES: dict[str, str] = {
    F + "alpha_dropout": "alpha_dropout",
    "torch.alpha_dropout": "alpha_dropout",
    F + "feature_alpha_dropout": "feature_alpha_dropout",
    "torch.feature_alpha_dropout": "feature_alpha_dropout",
    F + "adaptive_max_pool1d": "adaptive_max_pool1d",
    "torch.adaptive_max_pool1d": "adaptive_max_pool1d",
    F + "adaptive_max_pool2d": "adaptive_max_pool2d",
    F + "adaptive_max_pool3d": "adaptive_max_pool3d",
    F + "multilabel_margin_loss": "multilabel_margin_loss",
    F + "multi_margin_loss": "multi_margin_loss",
    F + "triplet_margin_with_distance_loss": "triplet_margin_with_distance_loss",
}
_MODULES = {
    "dropout": ("AlphaDropout", "FeatureAlphaDropout"),
    "pooling": ("AdaptiveMaxPool1d", "AdaptiveMaxPool2d", "AdaptiveMaxPool3d"),
    "loss": (
        "MultiLabelMarginLoss",
        "TripletMarginWithDistanceLoss",
        "MultiMarginLoss",
    ),
}
for _module, _classes in _MODULES.items():
    for _name in _classes:
        ENTRIES["torch.nn." + _name] = _name
        ENTRIES[f"torch.nn.modules.{_module}.{_name}"] = _name
