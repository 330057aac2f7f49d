"""Containers whose MindSpore counterpart runs differently from torch's."""

import mindspore
from mindspore import nn


class Sequential(nn.SequentialCell):
    """`torch.nn.Sequential` as a base class: MindSpore's SequentialCell run the way torch runs it.

    torch's forward pass calls every child module in the order it was registered, including the
    ones a subclass assigns as attributes (`self.conv = nn.Conv2d(...)`) or adds with `add_module`.
    MindSpore's SequentialCell runs only the cells given to its constructor or appended to it, so
    such a subclass would return its input unchanged. This class runs every child cell in order;
    indexing, `len` and parameter names are SequentialCell's own, which agree with torch's."""

    def construct(self, input):
        for cell in self._cells.values():
            input = cell(input)
        return input


def get_submodule(module, target=""):
    """`module.get_submodule('a.b.0')`: the sub-cell at a dotted path of attribute names (the
    module itself for ''), raising AttributeError as torch does for a missing or non-module
    step. An object that is no Cell answers with its own method."""
    if not isinstance(module, mindspore.nn.Cell):
        return module.get_submodule(target)
    if target == "":
        return module
    found = module
    for item in target.split("."):
        if not hasattr(found, item):
            raise AttributeError(f"{type(found).__name__} has no attribute `{item}`")
        found = getattr(found, item)
        if not isinstance(found, mindspore.nn.Cell):
            raise AttributeError(f"`{item}` is not an nn.Module")
    return found


def get_parameter(module, target):
    """`module.get_parameter('a.b.weight')`: the Parameter at a dotted path, found as
    `get_submodule` finds its cell."""
    if not isinstance(module, mindspore.nn.Cell):
        return module.get_parameter(target)
    path, _, name = target.rpartition(".")
    owner = get_submodule(module, path)
    name = _parameter_name(owner, name)
    if not hasattr(owner, name):
        raise AttributeError(f"{type(owner).__name__} has no attribute `{name}`")
    found = getattr(owner, name)
    if not isinstance(found, mindspore.Parameter):
        raise AttributeError(f"`{name}` is not an nn.Parameter")
    return found


def _parameter_name(layer, name):
    """The name a MindSpore layer gives the parameter torch's layer calls `name` (a library's
    own tables name parameters as torch does: `transformer.wte.weight`)."""
    if hasattr(layer, name):
        return name
    if isinstance(layer, nn.Embedding) and name == "weight":
        return "embedding_table"
    renamed = {
        "weight": "gamma",
        "bias": "beta",
        "running_mean": "moving_mean",
        "running_var": "moving_variance",
    }.get(name)
    return renamed if renamed is not None and hasattr(layer, renamed) else name
