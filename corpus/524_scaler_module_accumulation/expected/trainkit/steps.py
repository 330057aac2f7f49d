"""A step helper that zeroes, runs backward, clips and steps the optimizer it receives."""

from mindspore import ops


def clipped_step(grads, optimizer, parameters, max_norm):
    grad_norm = ops.norm(ops.stack([ops.norm(g) for g in grads]))
    grads = tuple(g * ops.clamp(max_norm / (grad_norm + 1e-6), max=1.0) for g in grads)
    optimizer(grads)
    return grads
