"""Companion entries in library/parameters.py: torch qualified name -> entry name."""

ENTRIES: dict[str, str] = {
    "torch.nn.utils.fusion.fuse_conv_bn_eval": "fuse_conv_bn_eval",
    "torch.nn.utils.fusion.fuse_conv_bn_weights": "fuse_conv_bn_weights",
    "torch.nn.utils.fuse_conv_bn_eval": "fuse_conv_bn_eval",
    "torch.nn.utils.fuse_conv_bn_weights": "fuse_conv_bn_weights",
    "torch.nn.init.calculate_gain": "calculate_gain",
}

# The in-place initializers, where the idiom (`p.set_data(initializer(...))`) cannot serve: named
# as values (`partial(nn.init.kaiming_uniform_, a=math.sqrt(5))`) or given a tensor that is not a
# plain name (`nn.init.zeros_(w[i].view(shape))`, a view whose update must reach `w`).
for _name in (
    "uniform_",
    "normal_",
    "trunc_normal_",
    "constant_",
    "ones_",
    "zeros_",
    "xavier_uniform_",
    "xavier_normal_",
    "kaiming_uniform_",
    "kaiming_normal_",
    "eye_",
    "dirac_",
):
    ENTRIES["torch.nn.init." + _name] = "init_" + _name
