"""Optimizers: torch's optimizer API on MindSpore parameters."""

from collections import defaultdict
from collections.abc import Iterable
from typing import Any

import mindspore
from mindspore import ops
from mindspore.experimental import optim as _ms_optim


class _RequiredParameter:
    """torch.optim.optimizer.required: the default of an optimizer argument a group must set."""

    def __repr__(self):
        return "<required parameter>"


required = _RequiredParameter()
# torch.optim.optimizer.ParamsT: what an optimizer's `params` may be (used in annotations).
ParamsT = Iterable[mindspore.Tensor] | Iterable[dict[str, Any]]

# torch.backends.opt_einsum.enabled / .strategy and torch._dynamo.config.cache_size_limit: settings
# of torch's einsum path and graph compiler, which do not exist here; code may set and read them.
opt_einsum_enabled = False
opt_einsum_strategy = None
dynamo_cache_size_limit = 8


class Optimizer:
    """torch.optim.Optimizer on MindSpore Parameters, called with gradients as MindSpore's are.

    It keeps torch's bookkeeping (`param_groups`, `defaults`, per-parameter `state`,
    `add_param_group`, `zero_grad`, `state_dict` / `load_state_dict`); a subclass writes `step()`
    as for torch, reading `p.grad`. A converted training step calls `optimizer(grads)`: the
    gradients (in the order of `optimizer.parameters`) are put in each parameter's `grad`, then
    `step()` runs. MindSpore gives a parameter the loss does not reach a zero gradient where torch
    leaves `grad` as None.
    """

    def __init__(self, params, defaults):
        if isinstance(params, mindspore.Tensor):
            raise TypeError(
                "params argument given to the optimizer should be an iterable of Tensors or dicts"
            )
        self.defaults = defaults
        self.state = defaultdict(dict)
        self.param_groups = []
        param_groups = list(params)
        if not param_groups:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]
        for param_group in param_groups:
            self.add_param_group(param_group)

    def add_param_group(self, param_group):
        params = param_group["params"]
        if isinstance(params, mindspore.Tensor):
            param_group["params"] = [params]
        elif isinstance(params, set):
            raise TypeError(
                "optimizer parameters need to be organized in ordered collections"
            )
        else:
            param_group["params"] = list(params)
        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError(
                    f"parameter group didn't specify a value of required optimization parameter {name}"
                )
            param_group.setdefault(name, default)
        seen = {id(p) for group in self.param_groups for p in group["params"]}
        if any(id(p) in seen for p in param_group["params"]):
            raise ValueError("some parameters appear in more than one parameter group")
        for p in param_group["params"]:
            if not hasattr(p, "grad"):
                p.grad = None
        self.param_groups.append(param_group)

    @property
    def parameters(self):
        """The parameters of all groups, in the order `optimizer(grads)` takes gradients."""
        return tuple(p for group in self.param_groups for p in group["params"])

    def __call__(self, gradients):
        for param, grad in zip(self.parameters, gradients):
            param.grad = grad
        self.step()
        return True

    def step(self, closure=None):
        raise NotImplementedError

    def zero_grad(self, set_to_none=True):
        for p in self.parameters:
            if set_to_none:
                p.grad = None
            elif getattr(p, "grad", None) is not None:
                p.grad = ops.zeros_like(p.grad)

    def __getstate__(self):
        return {
            "defaults": self.defaults,
            "state": self.state,
            "param_groups": self.param_groups,
        }

    def __setstate__(self, state):
        self.__dict__.update(state)

    def __repr__(self):
        lines = [self.__class__.__name__ + " ("]
        for index, group in enumerate(self.param_groups):
            lines.append(f"Parameter Group {index}")
            lines.extend(
                f"    {key}: {group[key]}" for key in sorted(group) if key != "params"
            )
        return "\n".join(lines + [")"])

    def state_dict(self):
        """torch's layout: parameters are numbered in group order."""
        index = {}
        groups = []
        for group in self.param_groups:
            packed = {k: v for k, v in group.items() if k != "params"}
            for p in group["params"]:
                index.setdefault(id(p), len(index))
            packed["params"] = [index[id(p)] for p in group["params"]]
            groups.append(packed)
        state = {index[id(p)]: v for p, v in self.state.items() if id(p) in index}
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict):
        saved = state_dict["param_groups"]
        if len(saved) != len(self.param_groups):
            raise ValueError(
                "loaded state dict has a different number of parameter groups"
            )
        by_index = {}
        for group, saved_group in zip(self.param_groups, saved):
            if len(group["params"]) != len(saved_group["params"]):
                raise ValueError(
                    "loaded state dict contains a parameter group that doesn't match the size of optimizer's group"
                )
            by_index.update(zip(saved_group["params"], group["params"]))
        self.state = defaultdict(dict)
        for key, value in state_dict["state"].items():
            if key in by_index:
                self.state[by_index[key]] = dict(value)
        for group, saved_group in zip(self.param_groups, saved):
            group.update({k: v for k, v in saved_group.items() if k != "params"})

    @staticmethod
    def _group_tensors_by_device_and_dtype(tensorlistlist, with_indices=False):
        """torch's grouping of parallel tensor lists by (device, dtype), one group per dtype here."""
        groups = {}
        for i, first in enumerate(tensorlistlist[0]):
            key = (None, first.dtype)
            lists, indices = groups.setdefault(key, ([[] for _ in tensorlistlist], []))
            for lst, source in zip(lists, tensorlistlist):
                lst.append(source[i] if source else None)
            indices.append(i)
        return {key: (lists, indices) for key, (lists, indices) in groups.items()}


def default_to_fused_or_foreach(params, differentiable, use_fused=False):
    """torch.optim.optimizer._default_to_fused_or_foreach: (fused, foreach), both False here.

    Both are implementation switches of the same update; the plain per-tensor loop runs.
    """
    return False, False


def get_capturable_supported_devices(supports_xla=True):
    """torch.optim.optimizer._get_capturable_supported_devices: no device captures graphs here."""
    return []


def foreach_overloads():
    """torch.ops.aten._foreach_<op>.overloads(): the operand kinds the companion foreach ops take."""
    return ["List", "Scalar", "ScalarList", "Tensor"]


def _operands(tensors, other):
    """`other` of a foreach op paired with each tensor: a list pairs one by one, anything else is shared."""
    if isinstance(other, (list, tuple)):
        if len(other) != len(tensors):
            raise ValueError("foreach op: tensor lists must have the same length")
        return list(other)
    return [other] * len(tensors)


def _update(tensors, values):
    """Write each new value into its tensor in place (MindSpore 2.10's CPU `add_` and kin do not);
    the list is returned, as torch's in-place foreach ops return it."""
    for tensor, value in zip(tensors, values):
        ops.assign(tensor, value)
    return list(tensors)


def _add(t, o, alpha):
    return t + o if alpha == 1 else t + o * alpha


def _lerp(t, end, weight):
    # torch's two-sided formula: exact at both ends.
    if isinstance(weight, mindspore.Tensor):
        return ops.where(
            ops.abs(weight) < 0.5,
            t + weight * (end - t),
            end - (end - t) * (1 - weight),
        )
    return (
        t + weight * (end - t) if abs(weight) < 0.5 else end - (end - t) * (1 - weight)
    )


def foreach_add(tensors, other, alpha=1):
    """torch._foreach_add: `t + alpha * o` for each tensor (a list `other` pairs one by one)."""
    return [_add(t, o, alpha) for t, o in zip(tensors, _operands(tensors, other))]


def foreach_add_(tensors, other, alpha=1):
    """torch._foreach_add_: each tensor becomes `t + alpha * o`, in place."""
    return _update(tensors, foreach_add(tensors, other, alpha=alpha))


def foreach_sub(tensors, other, alpha=1):
    """torch._foreach_sub: `t - alpha * o` for each tensor."""
    return [
        t - o if alpha == 1 else t - o * alpha
        for t, o in zip(tensors, _operands(tensors, other))
    ]


def foreach_sub_(tensors, other, alpha=1):
    """torch._foreach_sub_: each tensor becomes `t - alpha * o`, in place."""
    return _update(tensors, foreach_sub(tensors, other, alpha=alpha))


def foreach_mul(tensors, other):
    """torch._foreach_mul: `t * o` for each tensor."""
    return [t * o for t, o in zip(tensors, _operands(tensors, other))]


def foreach_mul_(tensors, other):
    """torch._foreach_mul_: each tensor becomes `t * o`, in place."""
    return _update(tensors, foreach_mul(tensors, other))


def foreach_div(tensors, other):
    """torch._foreach_div: `t / o` for each tensor."""
    return [t / o for t, o in zip(tensors, _operands(tensors, other))]


def foreach_div_(tensors, other):
    """torch._foreach_div_: each tensor becomes `t / o`, in place."""
    return _update(tensors, foreach_div(tensors, other))


def foreach_addcmul(tensors, tensors1, tensors2, value=1):
    """torch._foreach_addcmul: `t + value * t1 * t2` (a list `value` pairs one by one)."""
    values = _operands(tensors, value)
    return [t + v * a * b for t, a, b, v in zip(tensors, tensors1, tensors2, values)]


def foreach_addcmul_(tensors, tensors1, tensors2, value=1):
    """torch._foreach_addcmul_: each tensor becomes `t + value * t1 * t2`, in place."""
    return _update(tensors, foreach_addcmul(tensors, tensors1, tensors2, value=value))


def foreach_addcdiv(tensors, tensors1, tensors2, value=1):
    """torch._foreach_addcdiv: `t + value * t1 / t2` (a list `value` pairs one by one)."""
    values = _operands(tensors, value)
    return [t + v * a / b for t, a, b, v in zip(tensors, tensors1, tensors2, values)]


def foreach_addcdiv_(tensors, tensors1, tensors2, value=1):
    """torch._foreach_addcdiv_: each tensor becomes `t + value * t1 / t2`, in place."""
    return _update(tensors, foreach_addcdiv(tensors, tensors1, tensors2, value=value))


def foreach_lerp(tensors, ends, weight):
    """torch._foreach_lerp: `t + weight * (end - t)` with torch's formula for weights >= 0.5."""
    return [
        _lerp(t, e, w) for t, e, w in zip(tensors, ends, _operands(tensors, weight))
    ]


def foreach_lerp_(tensors, ends, weight):
    """torch._foreach_lerp_: each tensor moves towards its end, in place."""
    return _update(tensors, foreach_lerp(tensors, ends, weight))


def foreach_maximum(tensors, other):
    """torch._foreach_maximum: element-wise maximum with a list, tensor or number."""
    return [ops.maximum(t, o) for t, o in zip(tensors, _operands(tensors, other))]


def foreach_maximum_(tensors, other):
    """torch._foreach_maximum_: each tensor becomes its element-wise maximum with `other`, in place."""
    return _update(tensors, foreach_maximum(tensors, other))


def foreach_minimum(tensors, other):
    """torch._foreach_minimum: element-wise minimum with a list, tensor or number."""
    return [ops.minimum(t, o) for t, o in zip(tensors, _operands(tensors, other))]


def foreach_minimum_(tensors, other):
    """torch._foreach_minimum_: each tensor becomes its element-wise minimum with `other`, in place."""
    return _update(tensors, foreach_minimum(tensors, other))


def foreach_pow(tensors, exponent):
    """torch._foreach_pow: `t ** e` for each tensor."""
    return [ops.pow(t, e) for t, e in zip(tensors, _operands(tensors, exponent))]


def foreach_sqrt(tensors):
    """torch._foreach_sqrt: the square root of each tensor."""
    return [ops.sqrt(t) for t in tensors]


def foreach_sqrt_(tensors):
    """torch._foreach_sqrt_: each tensor becomes its square root, in place."""
    return _update(tensors, foreach_sqrt(tensors))


def foreach_neg(tensors):
    """torch._foreach_neg: the negation of each tensor."""
    return [ops.neg(t) for t in tensors]


def foreach_sign(tensors):
    """torch._foreach_sign: the sign of each tensor."""
    return [ops.sign(t) for t in tensors]


def foreach_copy_(tensors, sources, non_blocking=False):
    """torch._foreach_copy_: each tensor takes its source's values, in place."""
    return _update(tensors, [ops.cast(s, t.dtype) for t, s in zip(tensors, sources)])


def foreach_zero_(tensors):
    """torch._foreach_zero_: each tensor becomes zeros, in place."""
    return _update(tensors, [ops.zeros_like(t) for t in tensors])


def foreach_norm(tensors, ord=2, dtype=None):
    """torch._foreach_norm: the vector norm of each tensor (all its elements), a 0-d tensor each."""
    if dtype is not None:
        raise NotImplementedError("foreach_norm: argument `dtype` is not supported")
    norms = []
    for t in tensors:
        if ord == 2:
            norms.append(ops.sqrt(ops.sum(t * t)))
        elif ord == float("inf"):
            norms.append(ops.abs(t).max())
        elif ord == 1:
            norms.append(ops.sum(ops.abs(t)))
        else:
            norms.append(ops.pow(ops.sum(ops.pow(ops.abs(t), ord)), 1.0 / ord))
    return norms


def _accepting_speed_switches(base):
    """`base` (a mindspore.experimental.optim class, torch's constructor) that also accepts torch's
    implementation switches (`foreach`, `fused`, `capturable`, `differentiable`) and drops them:
    they choose how torch computes the update, not what it is."""

    class TorchArguments(base):
        def __init__(
            self,
            params,
            *args,
            foreach=None,
            fused=None,
            capturable=False,
            differentiable=False,
            **kwargs,
        ):
            super().__init__(params, *args, **kwargs)

    TorchArguments.__name__ = TorchArguments.__qualname__ = base.__name__
    TorchArguments.__doc__ = f"torch.optim.{base.__name__}: mindspore.experimental.optim.{base.__name__} taking torch's switches."
    return TorchArguments


SGD = _accepting_speed_switches(_ms_optim.SGD)
Adam = _accepting_speed_switches(_ms_optim.Adam)
AdamW = _accepting_speed_switches(_ms_optim.AdamW)
Adadelta = _accepting_speed_switches(_ms_optim.Adadelta)
Adagrad = _accepting_speed_switches(_ms_optim.Adagrad)
Adamax = _accepting_speed_switches(_ms_optim.Adamax)
NAdam = _accepting_speed_switches(_ms_optim.NAdam)
RAdam = _accepting_speed_switches(_ms_optim.RAdam)
RMSprop = _accepting_speed_switches(_ms_optim.RMSprop)
