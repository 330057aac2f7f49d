"""Companion entries in library/parameters.py: torch qualified name -> entry name."""

ENTRIES: dict[str, str] = {
    "torch.nn.utils.fusion.fuse_conv_bn_eval": "fuse_conv_bn_eval",
    "torch.nn.utils.fusion.fuse_conv_bn_weights": "fuse_conv_bn_weights",
    "torch.nn.utils.fuse_conv_bn_eval": "fuse_conv_bn_eval",
    "torch.nn.utils.fuse_conv_bn_weights": "fuse_conv_bn_weights",
}
