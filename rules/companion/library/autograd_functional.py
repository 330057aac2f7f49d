"""torch.autograd.functional on MindSpore: jacobian, hessian, vjp, jvp, hvp and vhp of a Python
function, with torch's argument forms and torch's nesting of the results.

Everything is built on ``mindspore.vjp`` in PyNative mode (no graph compilation of the user's
function): a Jacobian is one vector-Jacobian product per output element, a Jacobian-vector
product is that Jacobian contracted with ``v``, and second derivatives differentiate
``mindspore.grad`` of the function. Results are the same numbers torch computes; the cost grows
with the number of output elements, as torch's ``vectorize=False`` path does.
"""

import mindspore
from mindspore import ops


def _as_tuple(value):
    return (
        (tuple(value), True) if isinstance(value, (tuple, list)) else ((value,), False)
    )


def _called(func, inputs):
    """``func`` of the unpacked inputs, and its outputs as a tuple."""
    outputs, is_tuple = _as_tuple(func(*inputs))
    return outputs, is_tuple


def _jacobian_blocks(func, inputs):
    """[output][input] Jacobian blocks, each of shape output.shape + input.shape."""
    outputs, out_is_tuple = _called(func, inputs)

    def flat(*xs):
        return _as_tuple(func(*xs))[0]

    _, pullback = mindspore.vjp(flat, *inputs)
    blocks = []
    for j, out in enumerate(outputs):
        rows = []
        for k in range(max(1, out.size)):
            cotangents = [ops.zeros_like(o) for o in outputs]
            one_hot = ops.zeros(out.size, out.dtype)
            one_hot[k] = 1
            cotangents[j] = one_hot.reshape(out.shape)
            grads = pullback(tuple(cotangents))
            grads = grads if isinstance(grads, tuple) else (grads,)
            rows.append(grads)
        blocks.append(
            tuple(
                ops.stack([row[i] for row in rows]).reshape(
                    tuple(out.shape) + tuple(x.shape)
                )
                for i, x in enumerate(inputs)
            )
        )
    return outputs, out_is_tuple, blocks


def _nest(blocks, out_is_tuple, in_is_tuple):
    if out_is_tuple and in_is_tuple:
        return tuple(blocks)
    if out_is_tuple:
        return tuple(row[0] for row in blocks)
    if in_is_tuple:
        return blocks[0]
    return blocks[0][0]


def jacobian(
    func,
    inputs,
    create_graph=False,
    strict=False,
    vectorize=False,
    strategy="reverse-mode",
):
    """`torch.autograd.functional.jacobian`: a tensor for one input and one output, a tuple over
    the inputs or outputs that are tuples, a tuple of tuples [output][input] for both."""
    inputs, in_is_tuple = _as_tuple(inputs)
    _, out_is_tuple, blocks = _jacobian_blocks(func, inputs)
    return _nest(blocks, out_is_tuple, in_is_tuple)


def _gradient_function(func, count):
    positions = tuple(range(count)) if count > 1 else 0

    def gradient(*xs):
        return mindspore.grad(func, grad_position=positions)(*xs)

    return gradient


def _scalar_output(func, inputs, name):
    outputs, is_tuple = _called(func, inputs)
    if is_tuple or outputs[0].size != 1:
        raise RuntimeError(
            f"The function given to {name} should return a single Tensor with a single element."
        )
    return outputs[0]


def hessian(
    func,
    inputs,
    create_graph=False,
    strict=False,
    vectorize=False,
    outer_jacobian_strategy="reverse-mode",
):
    """`torch.autograd.functional.hessian` of a function returning one element: a tensor of
    shape input.shape * 2 for one input, a tuple of tuples [i][j] for a tuple of inputs."""
    inputs, in_is_tuple = _as_tuple(inputs)
    _scalar_output(func, inputs, "hessian")
    gradient = _gradient_function(func, len(inputs))
    _, out_is_tuple, blocks = _jacobian_blocks(gradient, inputs)
    return _nest(blocks, in_is_tuple and out_is_tuple, in_is_tuple)


def _default_v(v, values, name):
    if v is not None:
        v, _ = _as_tuple(v)
        return v
    if any(x.size != 1 for x in values):
        raise RuntimeError(
            f"The vector v can only be None if the {name} is a single Tensor with a single element."
        )
    return tuple(ops.ones_like(x) for x in values)


def _contract(blocks, vs, outputs, inputs):
    """J v for each output: the sum over inputs of block[j][i] contracted with v[i]."""
    results = []
    for j, out in enumerate(outputs):
        total = ops.zeros(out.shape, out.dtype)
        for i, x in enumerate(inputs):
            block = blocks[j][i].reshape(max(1, out.size), max(1, x.size))
            total = total + ops.matmul(block, vs[i].reshape(-1)).reshape(out.shape)
        results.append(total)
    return results


def vjp(func, inputs, v=None, create_graph=False, strict=False):
    """`torch.autograd.functional.vjp`: (func's output, v^T J), the second shaped as ``inputs``."""
    inputs, in_is_tuple = _as_tuple(inputs)
    outputs, out_is_tuple = _called(func, inputs)
    vs = _default_v(v, outputs, "output of the user-provided function")

    def flat(*xs):
        return _as_tuple(func(*xs))[0]

    _, pullback = mindspore.vjp(flat, *inputs)
    grads = pullback(tuple(vs))
    grads = grads if isinstance(grads, tuple) else (grads,)
    result_out = outputs if out_is_tuple else outputs[0]
    return result_out, (tuple(grads) if in_is_tuple else grads[0])


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    """`torch.autograd.functional.jvp`: (func's output, J v), the second shaped as the output."""
    inputs, in_is_tuple = _as_tuple(inputs)
    vs = _default_v(v, inputs, "input")
    outputs, out_is_tuple, blocks = _jacobian_blocks(func, inputs)
    products = _contract(blocks, vs, outputs, inputs)
    if out_is_tuple:
        return outputs, tuple(products)
    return outputs[0], products[0]


def _second_order(func, inputs, v, name, transpose):
    inputs, in_is_tuple = _as_tuple(inputs)
    output = _scalar_output(func, inputs, name)
    vs = _default_v(v, inputs, "input")
    gradient = _gradient_function(func, len(inputs))
    gradients, _, blocks = _jacobian_blocks(gradient, inputs)
    if transpose:
        blocks = [
            [blocks[i][j] for i in range(len(inputs))] for j in range(len(inputs))
        ]
        blocks = [
            [_swap(blocks[j][i], gradients[i], inputs[j]) for i in range(len(inputs))]
            for j in range(len(inputs))
        ]
    products = _contract(blocks, vs, gradients, inputs)
    return output, (tuple(products) if in_is_tuple else products[0])


def _swap(block, gradient, x):
    """The transposed Hessian block: shape x.shape + gradient.shape read as
    gradient.shape + x.shape."""
    flat = block.reshape(max(1, gradient.size), max(1, x.size))
    return flat.T.reshape(tuple(x.shape) + tuple(gradient.shape))


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    """`torch.autograd.functional.hvp`: (func's output, H v)."""
    return _second_order(func, inputs, v, "hvp", transpose=False)


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    """`torch.autograd.functional.vhp`: (func's output, v^T H)."""
    return _second_order(func, inputs, v, "vhp", transpose=True)
