"""torch's optimizer and scheduler state layout for MindSpore's torch-style optimizers.

`optimizer.state_dict()` in torch is `{"state": {index: {"step": ..., "exp_avg": ...}},
"param_groups": [{"lr": ..., "params": [index, ...]}]}`, parameters numbered in group order.
`mindspore.experimental.optim` keeps the same quantities as Parameters of the optimizer Cell (one
ParameterTuple per kind, in parameter order, and one step counter for all parameters); these
functions write and read torch's layout from them, so a checkpoint bundle resumes training as in
torch, and code that reads a group's `lr` or a parameter's `exp_avg` by key finds it.
What differs from torch: the step counter is shared, so every parameter shows the same `step`;
RMSprop and Adadelta keep no counter, so their entries have no `step`; loading leaves the state
of a parameter the saved dict does not mention as it was (torch drops it).
"""

import mindspore
import numpy as np
from mindspore.experimental import optim as _ms_optim

# class name in mindspore.experimental.optim -> (torch's state key, the optimizer's attribute
# holding it per parameter, the group option that must be set for torch to keep it), and the
# attribute of the step counter (None: the optimizer counts no steps).
_OPTIM_STATE_LAYOUT = {
    "SGD": ((("momentum_buffer", "accum", "momentum"),), None),
    "Adam": (
        (
            ("exp_avg", "exp_avg", None),
            ("exp_avg_sq", "exp_avg_sq", None),
            ("max_exp_avg_sq", "max_exp_avg_sq", "amsgrad"),
        ),
        "state_step",
    ),
    "AdamW": (
        (
            ("exp_avg", "exp_avg", None),
            ("exp_avg_sq", "exp_avg_sq", None),
            ("max_exp_avg_sq", "max_exp_avg_sq", "amsgrad"),
        ),
        "state_step",
    ),
    "Adadelta": (
        (("square_avg", "accum", None), ("acc_delta", "accum_update", None)),
        None,
    ),
    "Adagrad": ((("sum", "accum", None),), "step_t"),
    "Adamax": ((("exp_avg", "exp_avg", None), ("exp_inf", "exp_inf", None)), "step_t"),
    "NAdam": (
        (
            ("mu_product", "mu_product", None),
            ("exp_avg", "exp_avg", None),
            ("exp_avg_sq", "exp_avg_sq", None),
        ),
        "step_t",
    ),
    "RAdam": (
        (("exp_avg", "exp_avg", None), ("exp_avg_sq", "exp_avg_sq", None)),
        "step_t",
    ),
    "RMSprop": (
        (
            ("square_avg", "mean_square", None),
            ("momentum_buffer", "moment", "momentum"),
            ("grad_avg", "mean_grad", "centered"),
        ),
        None,
    ),
    "Rprop": ((("prev", "prev", None), ("step_size", "step_size", None)), "step_t"),
    "ASGD": (
        (("eta", "eta", None), ("mu", "mu", None), ("ax", "ax", None)),
        "step_t",
    ),
}
# torch keeps Adagrad's state from construction on; the others from their first step.
_OPTIM_STATE_EAGER = ("Adagrad",)


def _optim_is_torch_style(obj):
    return isinstance(obj, _ms_optim.Optimizer)


def _optim_layout(optimizer):
    for klass in type(optimizer).__mro__:
        if (
            klass.__module__.startswith("mindspore.experimental.optim")
            and klass.__name__ in _OPTIM_STATE_LAYOUT
        ):
            return klass.__name__, *_OPTIM_STATE_LAYOUT[klass.__name__]
    return "", (), None


def _optim_number(value):
    """A 0-d tensor (a group's lr Parameter, a scheduler's counter) as torch's Python number."""
    if isinstance(value, mindspore.Tensor) and value.ndim == 0:
        number = value.asnumpy()[()]
        # a float32 learning rate reads as the number written (0.05, not 0.0500000007)
        return float(str(number)) if number.dtype == np.float32 else number.item()
    return value


def _optim_plain(value):
    """A group option or scheduler attribute as torch writes it; None for what torch has no
    counterpart of (operators, parameter tuples)."""
    value = _optim_number(value)
    if isinstance(value, (list, tuple)) and type(value) in (list, tuple):
        items = [_optim_plain(v) for v in value]
        return None if any(v is None for v in items) else type(value)(items)
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return None


def _optim_counted(optimizer, counter):
    return int(getattr(optimizer, counter).asnumpy()) if counter else 0


def _optim_started(optimizer, name, counter, position, held):
    """Whether torch would hold state for the parameter at ``position``."""
    if name in _OPTIM_STATE_EAGER:
        return True
    if counter:
        return _optim_counted(optimizer, counter) > 0
    if name == "SGD":
        return not bool(optimizer.stat[position].asnumpy().all())
    return any(bool(np.any(v.asnumpy())) for v in held.values())


def _optim_state_dict(optimizer):
    """`optimizer.state_dict()` in torch's layout for a `mindspore.experimental.optim` optimizer.
    The moments are the optimizer's own Parameters (torch's are its live tensors too)."""
    name, keys, counter = _optim_layout(optimizer)
    steps = _optim_counted(optimizer, counter)
    state, groups, position = {}, [], 0
    for group in optimizer.param_groups:
        packed = {}
        for key, value in group.items():
            plain = _optim_plain(value)
            if key != "params" and plain is not None:
                packed[key] = plain
        packed["params"] = list(range(position, position + len(group["params"])))
        for index in packed["params"]:
            held = {
                key: getattr(optimizer, attribute)[index]
                for key, attribute, option in keys
                if not option or group.get(option)
            }
            if not _optim_started(optimizer, name, counter, index, held):
                continue
            entry = (
                {"step": mindspore.Tensor(float(steps), mindspore.float32)}
                if counter
                else {}
            )
            entry.update(held)
            if entry:
                state[index] = entry
        position += len(group["params"])
        groups.append(packed)
    return {"state": state, "param_groups": groups}


def _optim_load_state_dict(optimizer, state_dict):
    """`optimizer.load_state_dict(state)` from torch's layout (what `_optim_state_dict` writes,
    or a file torch wrote): group options, learning rates and per-parameter state."""
    saved_groups = state_dict["param_groups"]
    if len(saved_groups) != len(optimizer.param_groups):
        raise ValueError("loaded state dict has a different number of parameter groups")
    positions, position = {}, 0
    for group, saved in zip(optimizer.param_groups, saved_groups):
        if len(group["params"]) != len(saved["params"]):
            raise ValueError(
                "loaded state dict contains a parameter group that doesn't match the size "
                "of optimizer's group"
            )
        for index in saved["params"]:
            positions[index] = position
            position += 1
        for key, value in saved.items():
            if key == "params":
                continue
            if isinstance(group.get(key), mindspore.Parameter):
                group[key].set_data(
                    mindspore.Tensor(float(_optim_number(value)), group[key].dtype)
                )
            elif key in group or key == "initial_lr":
                value = _optim_number(value)
                if isinstance(group.get(key), float) and type(value) is int:
                    value = float(
                        value
                    )  # torch writes `dampening=0`; MindSpore needs a float
                group[key] = value
            # torch's kernel switches (foreach, fused, capturable, ...) have no counterpart
    name, keys, counter = _optim_layout(optimizer)
    steps = None
    for index, entry in state_dict["state"].items():
        target = positions.get(index)
        if target is None:
            continue
        for key, attribute, _ in keys:
            if key in entry and entry[key] is not None:
                slot = getattr(optimizer, attribute)[target]
                array = np.asarray(_optim_array(entry[key])).reshape(tuple(slot.shape))
                slot.set_data(mindspore.Tensor(array, slot.dtype))
        if name == "SGD" and entry.get("momentum_buffer") is not None:
            slot = optimizer.stat[target]
            slot.set_data(mindspore.ops.zeros_like(slot))
        if "step" in entry:
            steps = max(steps or 0, int(_optim_number(entry["step"])))
    if counter and steps is not None:
        slot = getattr(optimizer, counter)
        slot.set_data(mindspore.Tensor(steps, slot.dtype))


def _optim_array(value):
    if isinstance(value, mindspore.Tensor):
        return value.asnumpy()
    return value


def _optim_is_scheduler(obj):
    return isinstance(obj, _ms_optim.lr_scheduler.LRScheduler)


def _scheduler_state_dict(scheduler):
    """`scheduler.state_dict()` as torch writes it: its attributes but the optimizer, numbers as
    Python numbers (a lambda, which torch writes as None, too)."""
    result = {}
    for key, value in vars(scheduler).items():
        if key in ("optimizer", "groups_num", "increase_tensor"):
            continue
        if key == "lr_lambdas":
            result[key] = [None for _ in value]
            continue
        plain = _optim_plain(value)
        if plain is not None:
            result[key] = int(plain) if key == "last_epoch" else plain
    return result


def _scheduler_load_state_dict(scheduler, state_dict):
    """`scheduler.load_state_dict(state)`: the epoch counter and the options; the learning rates
    themselves come back with the optimizer's state."""
    own = vars(scheduler)
    for key, value in state_dict.items():
        if key not in own or key in ("_last_lr", "lr_lambdas") or value is None:
            continue
        if isinstance(own[key], mindspore.Parameter):
            own[key].set_data(mindspore.Tensor(float(value), own[key].dtype))
        elif key == "base_lrs":
            own[key] = [mindspore.Tensor(float(v), mindspore.float32) for v in value]
        else:
            own[key] = value
