"""Index arithmetic and scalars that MindSpore 2.10 has no function for.

- `torch.unravel_index(indices, shape)`: the coordinates of flat indices in a shape, by integer
  division and remainder from the last dimension (ops with CPU kernels);
- `torch.scalar_tensor(s, dtype=...)`: a 0-d tensor, float32 unless a dtype is given, as torch's.
"""

import mindspore
from mindspore import ops


def unravel_index(indices, shape):
    """`torch.unravel_index(indices, shape)`: a tuple of int64 tensors, one per dimension of
    `shape`, each of `indices`' shape."""
    if not isinstance(indices, mindspore.Tensor):
        indices = mindspore.Tensor(indices, mindspore.int64)
    shape = (shape,) if isinstance(shape, int) else tuple(int(s) for s in shape)
    rest = indices.astype(mindspore.int64)
    coordinates = []
    for size in reversed(shape):
        coordinates.append(ops.remainder(rest, size))
        rest = ops.floor_divide(rest, size)
    return tuple(reversed(coordinates))


def scalar_tensor(
    s, *, dtype=None, layout=None, device=None, pin_memory=None, requires_grad=False
):
    """`torch.scalar_tensor(s, dtype=None, ...)`: a 0-d tensor of `s` (float32 by default);
    placement arguments have no MindSpore meaning here."""
    return mindspore.Tensor(s, dtype if dtype is not None else mindspore.float32)
