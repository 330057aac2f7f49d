"""`torch.isin`: membership of each element in a set of test elements.

MindSpore 2.10 has no `isin`. Each element is compared with every test element (`ops.equal` after
a broadcast) and the comparisons are reduced with `any`, ops with CPU kernels. Either argument
may be a Python number, as torch allows.
"""

import mindspore
from mindspore import ops


def isin(elements, test_elements, *, assume_unique=False, invert=False):
    """`torch.isin(elements, test_elements, assume_unique=False, invert=False)`: a bool tensor of
    `elements`' shape, True where the element is among `test_elements` (False with `invert`)."""
    elements_tensor = isinstance(elements, mindspore.Tensor)
    if not elements_tensor:
        elements = mindspore.Tensor(elements)
    if not isinstance(test_elements, mindspore.Tensor):
        test_elements = mindspore.Tensor(test_elements)
    flat = elements.reshape(-1, 1)
    tests = test_elements.reshape(1, -1)
    if tests.shape[1] == 0:
        found = ops.zeros(flat.shape[0], mindspore.bool_)
    else:
        dtype = (
            mindspore.float64
            if flat.dtype.is_floating_point or tests.dtype.is_floating_point
            else mindspore.int64
        )
        found = ops.equal(flat.astype(dtype), tests.astype(dtype)).any(axis=1)
    found = found.reshape(elements.shape)
    return ops.logical_not(found) if invert else found
