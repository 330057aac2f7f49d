"""torch's attention backend selection, for code that names a backend or limits
`scaled_dot_product_attention` to some of them. The companion's attention is one composition of
matmuls and softmax, which computes the math backend's values whatever the selection; the
selection is kept so that code reading it back sees what it chose."""

import contextlib
import enum

import mindspore
from mindspore import ops


class SDPBackend(enum.Enum):
    """`torch.nn.attention.SDPBackend`: the backends, under torch's names and numbers."""

    ERROR = -1
    MATH = 0
    FLASH_ATTENTION = 1
    EFFICIENT_ATTENTION = 2
    CUDNN_ATTENTION = 3
    OVERRIDEABLE = 4

    def __int__(self):
        return self.value

    __index__ = __int__


# The backends torch enables by default, in its order.
_SDPA_BACKENDS = [
    SDPBackend.CUDNN_ATTENTION,
    SDPBackend.FLASH_ATTENTION,
    SDPBackend.EFFICIENT_ATTENTION,
    SDPBackend.MATH,
    SDPBackend.OVERRIDEABLE,
]


def _cur_sdpa_kernel_backends(with_priority=False):
    """`torch.nn.attention._cur_sdpa_kernel_backends()`: the backends selected now."""
    return list(_SDPA_BACKENDS)


@contextlib.contextmanager
def sdpa_kernel(backends, set_priority=False):
    """`torch.nn.attention.sdpa_kernel(backends)`: selects `backends` inside the block (the
    values `scaled_dot_product_attention` computes are the same for every backend)."""
    if isinstance(backends, SDPBackend):
        backends = [backends]
    if not all(isinstance(b, SDPBackend) for b in backends):
        raise AssertionError("Backend must be an instance of SDPBackend")
    previous = list(_SDPA_BACKENDS)
    chosen = [b for b in backends if b != SDPBackend.ERROR]
    if not set_priority:
        chosen = [b for b in previous if b in chosen] + [
            b for b in chosen if b not in previous
        ]
    _SDPA_BACKENDS[:] = chosen
    try:
        yield {}
    finally:
        _SDPA_BACKENDS[:] = previous


def and_masks(*mask_mods):
    """`torch.nn.attention.flex_attention.and_masks`: a mask function true where all are."""
    if not all(callable(arg) for arg in mask_mods):
        raise RuntimeError(f"All inputs should be callable mask_mods: {mask_mods}")

    def and_mask(b, h, q_idx, kv_idx):
        result = ops.ones((), mindspore.bool_)
        for mod in mask_mods:
            result = ops.logical_and(result, mod(b, h, q_idx, kv_idx))
        return result

    return and_mask


def or_masks(*mask_mods):
    """`torch.nn.attention.flex_attention.or_masks`: a mask function true where any is."""
    if not all(callable(arg) for arg in mask_mods):
        raise RuntimeError(f"All inputs should be callable mask_mods: {mask_mods}")

    def or_mask(b, h, q_idx, kv_idx):
        result = ops.zeros((), mindspore.bool_)
        for mod in mask_mods:
            result = ops.logical_or(result, mod(b, h, q_idx, kv_idx))
        return result

    return or_mask


def noop_mask(batch, head, token_q, token_kv):
    """`torch.nn.attention.flex_attention.noop_mask`: attends everywhere."""
    return ops.ones((), mindspore.bool_)
