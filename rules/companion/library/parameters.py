"""Functions that set a layer's parameter values as torch does.

torch's initializers fill a tensor in place, and timm hands them views (`weight[i].view(shape)`)
whose update must reach the parameter; BatchNorm folds into a convolution for inference; torch's
built-in layers reset their parameters on request (`m.reset_parameters()`).
"""

import copy

import mindspore
from mindspore import ops


def fuse_conv_bn_weights(
    conv_w, conv_b, bn_rm, bn_rv, bn_eps, bn_w, bn_b, transpose=False
):
    """`torch.nn.utils.fusion.fuse_conv_bn_weights`: the convolution weight and bias that compute
    the convolution followed by the evaluation-mode BatchNorm, as Parameters."""
    if conv_b is None:
        conv_b = ops.zeros_like(bn_rm)
    if bn_w is None:
        bn_w = ops.ones_like(bn_rm)
    if bn_b is None:
        bn_b = ops.zeros_like(bn_rm)
    scale = bn_w * ops.rsqrt(bn_rv + bn_eps)
    shape = (1, -1) if transpose else (-1, 1)
    shape = shape + (1,) * (conv_w.ndim - 2)
    fused_w = (conv_w * scale.reshape(shape)).astype(conv_w.dtype)
    fused_b = ((conv_b - bn_rm) * scale + bn_b).astype(conv_b.dtype)
    return (
        mindspore.Parameter(fused_w, requires_grad=_trains(conv_w)),
        mindspore.Parameter(fused_b, requires_grad=_trains(conv_b)),
    )


def _trains(value):
    """Whether a value is a trained Parameter (a computed tensor stands for torch's
    `requires_grad=False` one)."""
    return isinstance(value, mindspore.Parameter) and value.requires_grad


def fuse_conv_bn_eval(conv, bn, transpose=False):
    """`torch.nn.utils.fusion.fuse_conv_bn_eval`: a copy of `conv` whose weight and bias fold in
    the BatchNorm `bn` as it normalises in evaluation mode (moving statistics, `gamma`, `beta`).
    Both must be in evaluation mode (`set_train(False)`), as torch asserts."""
    if conv.training or bn.training:
        raise AssertionError("Fusion only for eval!")
    fused = copy.deepcopy(conv)
    weight, bias = fuse_conv_bn_weights(
        fused.weight,
        fused.bias if getattr(fused, "has_bias", fused.bias is not None) else None,
        bn.moving_mean,
        bn.moving_variance,
        bn.eps,
        bn.gamma,
        bn.beta,
        transpose,
    )
    weight.name = fused.weight.name
    fused.weight = weight
    bias.name = "bias"
    fused.bias = bias
    fused.has_bias = True
    return fused
