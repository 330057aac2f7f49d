"""Containers whose MindSpore counterpart runs differently from torch's."""

import mindspore
from mindspore import Parameter, nn


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


class ModuleDict(nn.CellDict):
    """`torch.nn.ModuleDict` holding containers (`dict(h=nn.ModuleList([...]))`): MindSpore's
    CellDict refuses a CellList, SequentialCell or CellDict as a value; torch's ModuleDict takes
    any module. Keys, attribute access and parameter names (`h.0.weight`) are CellDict's own."""

    def _validate_cell_type(self, cell):
        if not isinstance(cell, nn.Cell):
            raise TypeError(
                f"ModuleDict values must be Cells, but got {type(cell).__name__}"
            )


class ParameterDict(nn.Cell):
    """`torch.nn.ParameterDict`: an ordered mapping of names to Parameters registered on the
    Cell (so `trainable_params()` and checkpoints see them under `<name>.<key>`). A tensor
    that is not a Parameter is wrapped in one, as torch does."""

    def __init__(self, parameters=None):
        super().__init__()
        self._keys = []
        if parameters is not None:
            self.update(parameters)

    def __setitem__(self, key, value):
        if not isinstance(value, Parameter):
            value = Parameter(value, name=key)
        if key not in self._keys:
            self._keys.append(key)
        setattr(self, key, value)

    def __getitem__(self, key):
        if key not in self._keys:
            raise KeyError(key)
        return getattr(self, key)

    def __delitem__(self, key):
        self._keys.remove(key)
        delattr(self, key)

    def __len__(self):
        return len(self._keys)

    def __iter__(self):
        return iter(list(self._keys))

    def __contains__(self, key):
        return key in self._keys

    def keys(self):
        return list(self._keys)

    def values(self):
        return [self[k] for k in self._keys]

    def items(self):
        return [(k, self[k]) for k in self._keys]

    def get(self, key, default=None):
        return self[key] if key in self._keys else default

    def pop(self, key):
        value = self[key]
        del self[key]
        return value

    def clear(self):
        for key in list(self._keys):
            del self[key]

    def update(self, parameters):
        pairs = parameters.items() if hasattr(parameters, "items") else parameters
        for key, value in pairs:
            self[key] = value

    def copy(self):
        return ParameterDict(self.items())


class ParameterList(nn.Cell):
    """`torch.nn.ParameterList`: a list of Parameters registered on the Cell under their
    indices."""

    def __init__(self, values=None):
        super().__init__()
        self._count = 0
        for value in values or ():
            self.append(value)

    def append(self, value):
        if not isinstance(value, Parameter):
            value = Parameter(value, name=str(self._count))
        setattr(self, str(self._count), value)
        self._count += 1
        return self

    def extend(self, values):
        for value in values:
            self.append(value)
        return self

    def __getitem__(self, index):
        if isinstance(index, slice):
            return ParameterList([self[i] for i in range(self._count)[index]])
        if index < 0:
            index += self._count
        if not 0 <= index < self._count:
            raise IndexError("index out of range")
        return getattr(self, str(index))

    def __setitem__(self, index, value):
        if index < 0:
            index += self._count
        if not isinstance(value, Parameter):
            value = Parameter(value, name=str(index))
        setattr(self, str(index), value)

    def __len__(self):
        return self._count

    def __iter__(self):
        return iter([self[i] for i in range(self._count)])
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
