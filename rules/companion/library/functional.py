"""Functions with torch's signatures, composed from operators that have CPU kernels."""

from mindspore import ops


def roll(input, shifts, dims=None):
    """`torch.roll`, from slices and a concatenation (`ops.roll` has no CPU kernel)."""
    if dims is None:
        return roll(input.reshape(-1), shifts, 0).reshape(input.shape)
    shifts = (shifts,) if isinstance(shifts, int) else tuple(shifts)
    dims = (dims,) if isinstance(dims, int) else tuple(dims)
    for shift, dim in zip(shifts, dims):
        size = input.shape[dim]
        shift %= size
        if shift:
            tail = input.narrow(dim, size - shift, shift)
            head = input.narrow(dim, 0, size - shift)
            input = ops.cat((tail, head), dim)
    return input
