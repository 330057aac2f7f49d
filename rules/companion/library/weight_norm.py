"""Weight normalisation of a layer's weight, in torch's two forms.

`torch.nn.utils.weight_norm` keeps a magnitude `weight_g` and a direction `weight_v` as the layer's
Parameters; `torch.nn.utils.parametrizations.weight_norm` keeps them as
`parametrizations.weight.original0` and `.original1`. Either way the layer's `weight` is
`v * (g / ||v||)`, the norm taken over every dimension but `dim`, computed again before each call
(a forward pre-hook, so gradients reach `g` and `v`). The Parameters have torch's shapes and names,
so a torch checkpoint's keys and tensors load as they are: a MindSpore 1-d convolution holds its
weight with an extra axis (`(out, in, 1, k)` for torch's `(out, in, k)`), and the computed weight
is reshaped to it. Removing the normalisation makes the computed weight the layer's Parameter again.
"""

import mindspore
from mindspore import nn, ops


def _norm_except(v, dim):
    """||v|| over every dimension but `dim`, keeping dimensions; over all of them for `dim=None`
    or -1, as torch's `norm_except_dim` reads -1."""
    if dim is None or dim == -1:
        return ops.sqrt((v * v).sum())
    dim = dim % v.ndim
    axes = tuple(axis for axis in range(v.ndim) if axis != dim)
    return ops.sqrt((v * v).sum(axis=axes, keepdims=True))


def _torch_shape(module, weight):
    """The shape torch gives this weight: a 1-d convolution's without MindSpore's extra axis 2."""
    one_d = (nn.Conv1d, nn.Conv1dTranspose)
    if isinstance(module, one_d) and weight.ndim == 4 and weight.shape[2] == 1:
        return tuple(weight.shape[:2]) + tuple(weight.shape[3:])
    return tuple(weight.shape)


def _normalised(g, v, dim, shape):
    return ops.reshape(v * (g / _norm_except(v, dim)), shape)


def _split(module, name, dim):
    """(g, v, the layer's own weight shape) of the layer's Parameter `name`, which is removed."""
    weight = getattr(module, name)
    if not isinstance(weight, mindspore.Parameter):
        raise TypeError(
            f"weight_norm: `{name}` is not a Parameter of {type(module).__name__}"
        )
    shape = tuple(weight.shape)
    v = ops.reshape(weight, _torch_shape(module, weight)).copy()
    g = _norm_except(v, dim)
    delattr(module, name)
    return g, v, shape


def weight_norm(module, name="weight", dim=0):
    """`torch.nn.utils.weight_norm(module, name, dim)`: Parameters `<name>_g` and `<name>_v`, and
    `<name>` computed from them before each call. Returns the module."""
    g, v, shape = _split(module, name, dim)
    setattr(module, name + "_g", mindspore.Parameter(g, name=name + "_g"))
    setattr(module, name + "_v", mindspore.Parameter(v, name=name + "_v"))

    def compute(cell, inputs):
        value = _normalised(
            getattr(cell, name + "_g"), getattr(cell, name + "_v"), dim, shape
        )
        object.__setattr__(cell, name, value)

    compute(module, ())
    hooks = module.__dict__.setdefault("_weight_norm_hooks", {})
    hooks[name] = module.register_forward_pre_hook(compute)
    return module


def remove_weight_norm(module, name="weight"):
    """`torch.nn.utils.remove_weight_norm(module, name)`: `<name>` a Parameter again, holding the
    normalised weight; `<name>_g` and `<name>_v` are removed. Returns the module."""
    hooks = module.__dict__.get("_weight_norm_hooks", {})
    if name not in hooks:
        raise ValueError(f"weight_norm of '{name}' not found in {module}")
    hooks.pop(name).remove()
    value = getattr(module, name)
    object.__delattr__(module, name)
    delattr(module, name + "_g")
    delattr(module, name + "_v")
    setattr(module, name, mindspore.Parameter(value, name=name))
    return module


class _WeightNormParametrization(nn.Cell):
    """What torch's `module.parametrizations.<name>` holds for weight normalisation: `original0`
    (the magnitude g) and `original1` (the direction v)."""

    def __init__(self, g, v, dim, shape):
        super().__init__()
        self.original0 = mindspore.Parameter(g, name="original0")
        self.original1 = mindspore.Parameter(v, name="original1")
        self.dim = dim
        self.shape = shape

    def construct(self):
        return _normalised(self.original0, self.original1, self.dim, self.shape)


class _Parametrizations(nn.Cell):
    """`module.parametrizations`: one child per parametrized tensor name (`"weight" in ...`)."""

    def __contains__(self, name):
        return name in self._cells

    def keys(self):
        return self._cells.keys()


def parametrized_weight_norm(module, name="weight", dim=0):
    """`torch.nn.utils.parametrizations.weight_norm(module, name, dim)`: the magnitude and direction
    as `module.parametrizations.<name>.original0` and `.original1`, and `<name>` computed from
    them before each call. Returns the module."""
    g, v, shape = _split(module, name, dim)
    if "parametrizations" not in module._cells:
        module.parametrizations = _Parametrizations()
    setattr(module.parametrizations, name, _WeightNormParametrization(g, v, dim, shape))

    def compute(cell, inputs):
        object.__setattr__(cell, name, getattr(cell.parametrizations, name)())

    compute(module, ())
    hooks = module.__dict__.setdefault("_parametrization_hooks", {})
    hooks[name] = module.register_forward_pre_hook(compute)
    return module


def is_parametrized(module, tensor_name=None):
    """`torch.nn.utils.parametrize.is_parametrized(module, tensor_name)`."""
    parametrizations = module._cells.get("parametrizations")
    if parametrizations is None:
        return False
    return tensor_name is None or tensor_name in parametrizations


def remove_parametrizations(module, tensor_name, leave_parametrized=True):
    """`torch.nn.utils.parametrize.remove_parametrizations(module, tensor_name,
    leave_parametrized)`: `tensor_name` a Parameter again, holding the parametrized value (or, with
    `leave_parametrized=False`, the direction `original1` it was computed from). Returns the
    module."""
    hooks = module.__dict__.get("_parametrization_hooks", {})
    if tensor_name not in hooks:
        raise ValueError(
            f"Module {module} does not have a parametrization on {tensor_name}"
        )
    hooks.pop(tensor_name).remove()
    parametrization = getattr(module.parametrizations, tensor_name)
    if leave_parametrized:
        value = parametrization()
    else:
        value = ops.reshape(parametrization.original1, parametrization.shape)
    object.__delattr__(module, tensor_name)
    delattr(module.parametrizations, tensor_name)
    if not module.parametrizations._cells:
        delattr(module, "parametrizations")
    setattr(module, tensor_name, mindspore.Parameter(value, name=tensor_name))
    return module
