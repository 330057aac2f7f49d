"""Companion entries in library/weight_norm.py: torch qualified name -> entry name."""

U = "torch.nn.utils."

ENTRIES: dict[str, str] = {
    U + "weight_norm": "weight_norm",
    U + "remove_weight_norm": "remove_weight_norm",
    U + "parametrizations.weight_norm": "parametrized_weight_norm",
    U + "parametrize.remove_parametrizations": "remove_parametrizations",
    U + "parametrize.is_parametrized": "is_parametrized",
}
