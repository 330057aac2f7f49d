"""torch's Module members walks on a Cell: `named_parameters` with all of torch's arguments,
and `buffers` / `named_buffers`.

A converted buffer is a Parameter with `requires_grad=False` (so that checkpoints hold it), as
BatchNorm's moving statistics are; MindSpore's own `Cell.buffers()` therefore yields none of
them. Here a buffer is a Parameter that does not require a gradient, or a buffer MindSpore
registered itself; a parameter frozen by hand (`requires_grad=False`) is counted among them.
Names are MindSpore's (`gamma`, `moving_mean`), as `parameters_and_names()` gives them.
"""

import mindspore


def _cells(module, prefix, recurse, remove_duplicate):
    """(dotted name, cell) for `module` and, with `recurse`, every sub-cell, as torch's
    `named_modules` walks them; a shared cell comes once when `remove_duplicate`."""
    seen = set()
    stack = [(prefix, module)]
    while stack:
        name, cell = stack.pop()
        if remove_duplicate:
            if id(cell) in seen:
                continue
            seen.add(id(cell))
        yield name, cell
        if not recurse:
            return
        children = [
            (f"{name}.{child_name}" if name else child_name, child)
            for child_name, child in cell._cells.items()
            if child is not None
        ]
        stack.extend(reversed(children))


def _members(module, own, prefix, recurse, remove_duplicate):
    if not isinstance(module, mindspore.nn.Cell):
        raise TypeError(f"{type(module).__name__} is not a Cell")
    seen = set()
    for cell_name, cell in _cells(module, prefix, recurse, remove_duplicate):
        for name, value in own(cell):
            if value is None:
                continue
            if remove_duplicate:
                if id(value) in seen:
                    continue
                seen.add(id(value))
            yield (f"{cell_name}.{name}" if cell_name else name), value


def _own_parameters(cell):
    return [
        (n, p) for n, p in cell._params.items() if p is not None and p.requires_grad
    ]


def _own_buffers(cell):
    found = [
        (n, p) for n, p in cell._params.items() if p is not None and not p.requires_grad
    ]
    return found + list(getattr(cell, "_buffers", {}).items())


def named_parameters(module, prefix="", recurse=True, remove_duplicate=True):
    """`module.named_parameters(prefix, recurse, remove_duplicate)`: (name, Parameter) pairs of
    the parameters that require a gradient, in torch's order."""
    if not isinstance(module, mindspore.nn.Cell):
        return module.named_parameters(prefix, recurse, remove_duplicate)
    return _members(module, _own_parameters, prefix, recurse, remove_duplicate)


def named_buffers(module, prefix="", recurse=True, remove_duplicate=True):
    """`module.named_buffers(prefix, recurse, remove_duplicate)`: (name, buffer) pairs."""
    if not isinstance(module, mindspore.nn.Cell):
        return module.named_buffers(prefix, recurse, remove_duplicate)
    return _members(module, _own_buffers, prefix, recurse, remove_duplicate)


def module_buffers(module, recurse=True):
    """`module.buffers(recurse)`: the buffers of `named_buffers`."""
    if not isinstance(module, mindspore.nn.Cell):
        return module.buffers(recurse)
    return (value for _, value in named_buffers(module, recurse=recurse))


_CAST_TYPES = {
    "float": mindspore.float32,
    "half": mindspore.float16,
    "double": mindspore.float64,
    "bfloat16": mindspore.bfloat16,
}


def module_cast(module, method):
    """`module.float()` / `half()` / `double()` / `bfloat16()`: every floating-point Parameter
    and buffer of the cell and its sub-cells cast in place; returns the cell, as torch's do."""
    if not isinstance(module, mindspore.nn.Cell):
        return getattr(module, method)()
    dtype = _CAST_TYPES[method]
    for _, cell in _cells(module, "", True, True):
        for param in cell._params.values():
            if param is not None and param.dtype in _FLOATING:
                param.set_dtype(dtype)
        buffers = getattr(cell, "_buffers", {})
        for name, value in list(buffers.items()):
            if value is not None and value.dtype in _FLOATING:
                buffers[name] = value.astype(dtype)
    return module


_FLOATING = (
    mindspore.float16,
    mindspore.float32,
    mindspore.float64,
    mindspore.bfloat16,
)
