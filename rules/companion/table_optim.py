"""Companion entries in library/optim.py: torch qualified name -> entry name.

`torch.optim.Optimizer` is the base of optimizers written against torch's API; the foreach ops
are the ones TM407 cannot write as a loop (an `alpha=`, an operand not visibly a list or a number),
and the optimizer classes are used where they flow as values (`opt_class=torch.optim.AdamW`).
"""

_FOREACH = (
    "add",
    "add_",
    "sub",
    "sub_",
    "mul",
    "mul_",
    "div",
    "div_",
    "addcmul",
    "addcmul_",
    "addcdiv",
    "addcdiv_",
    "lerp",
    "lerp_",
    "maximum",
    "maximum_",
    "minimum",
    "minimum_",
    "pow",
    "sqrt",
    "sqrt_",
    "neg",
    "sign",
    "copy_",
    "zero_",
    "norm",
)
_OPTIMIZERS = (
    "SGD",
    "Adam",
    "AdamW",
    "Adadelta",
    "Adagrad",
    "Adamax",
    "NAdam",
    "RAdam",
    "RMSprop",
)

ENTRIES: dict[str, str] = {
    "torch.optim.Optimizer": "Optimizer",
    "torch.optim.optimizer.Optimizer": "Optimizer",
    "torch.optim.optimizer.required": "required",
    "torch.optim.optimizer.ParamsT": "ParamsT",
    "torch.optim.optimizer._default_to_fused_or_foreach": "default_to_fused_or_foreach",
    "torch.optim.optimizer._get_capturable_supported_devices": "get_capturable_supported_devices",
    # torch-only settings optimizer modules write at import: plain variables here.
    "torch.backends.opt_einsum.enabled": "opt_einsum_enabled",
    "torch.backends.opt_einsum.strategy": "opt_einsum_strategy",
    "torch._dynamo.config.cache_size_limit": "dynamo_cache_size_limit",
    # optimizers ask whether they run under graph capture: never here (library/plumbing.py).
    "torch._dynamo.is_compiling": "is_compiling",
    **{f"torch._foreach_{op}": f"foreach_{op}" for op in _FOREACH},
    **{
        f"torch.ops.aten._foreach_{op}.overloads": "foreach_overloads"
        for op in _FOREACH
    },
    **{f"torch.optim.{name}": name for name in _OPTIMIZERS},
    **{f"torch.optim.{name.lower()}.{name}": name for name in _OPTIMIZERS},
}
