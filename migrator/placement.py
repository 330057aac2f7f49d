"""Torch `state_dict` tensors placed on the parameters of a converted model, by the model's names.

The converted model describes itself (``model_side.py`` builds it on MindSpore): every Parameter
with its full name, the other names it is reachable by (tied weights), its shape and dtype, and the
torch names its layer gives it (a BatchNorm's `gamma` is torch's `weight`, its `moving_mean` torch's
`running_mean`). Each parameter then takes the one tensor of the state_dict under one of those
names, reshaped only where the layer's layout is known to differ (a Conv1d weight gains
MindSpore's height axis). What does not fit is a problem, named with its reason; a placement with
problems is never written.

This module needs NumPy only: the MindSpore side imports it by path.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

# torch's state_dict entries with no MindSpore counterpart, by their last name part.
DROPPED = {"num_batches_tracked": "MindSpore's BatchNorm keeps no step counter"}


@dataclass
class Slot:
    """One Parameter of the converted model."""

    name: str
    shape: tuple[int, ...]
    dtype: str
    # torch's names for it, most likely first (the layer's own name map, then the name itself).
    torch_names: list[str] = field(default_factory=list)
    # "conv1d": torch's (out, in, k) is MindSpore's (out, in, 1, k).
    layout: str | None = None
    # Its value when torch's layer holds no tensor for it (a norm layer without affine parameters:
    # MindSpore keeps a constant gamma of ones and beta of zeros).
    constant: float | None = None

    @classmethod
    def from_dict(cls, data: dict) -> Slot:
        return cls(
            data["name"],
            tuple(data["shape"]),
            data["dtype"],
            list(data.get("torch_names", [])),
            data.get("layout"),
            data.get("constant"),
        )


@dataclass
class Placement:
    # (MindSpore name, array, the torch key it came from or "" for a constant)
    entries: list[tuple[str, np.ndarray, str]] = field(default_factory=list)
    problems: list[tuple[str, str]] = field(default_factory=list)
    dropped: list[tuple[str, str]] = field(default_factory=list)
    # torch keys that are the same tensor as a placed one (weights the model ties).
    tied: list[tuple[str, str]] = field(default_factory=list)
    reshaped: list[tuple[str, str]] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    def to_dict(self) -> dict:
        return {
            "placed": len(self.entries),
            "renamed": {t: n for n, _, t in self.entries if t and t != n},
            "constants": [n for n, _, t in self.entries if not t],
            "problems": [list(p) for p in self.problems],
            "dropped": [list(d) for d in self.dropped],
            "tied": [list(t) for t in self.tied],
            "reshaped": [list(r) for r in self.reshaped],
        }


def _fit(slot: Slot, key: str, array: np.ndarray) -> tuple[np.ndarray | None, str]:
    """``array`` in the slot's layout and dtype, or None and the reason it does not fit."""
    shape = tuple(array.shape)
    if shape != slot.shape:
        expanded = shape[:2] + (1,) + shape[2:]
        if slot.layout == "conv1d" and len(shape) == 3 and expanded == slot.shape:
            array = array.reshape(expanded)
        else:
            return None, (
                f"shape {list(shape)} in the state_dict, {list(slot.shape)} in the "
                f"converted model ({slot.name})"
            )
    want = np.dtype(slot.dtype) if slot.dtype != "bfloat16" else np.dtype("float32")
    if array.dtype != want:
        same_kind = (array.dtype.kind == "f") == (want.kind == "f")
        if not same_kind and array.dtype.kind != "b":
            return None, (
                f"dtype {array.dtype} in the state_dict, {slot.dtype} in the converted "
                f"model ({slot.name})"
            )
        array = array.astype(want)
    return array, ""


def place(state: dict[str, np.ndarray], slots: list[Slot]) -> Placement:
    """Each slot takes its tensor from ``state``; every key of ``state`` must be taken."""
    result = Placement()
    taken: dict[str, str] = {}  # torch key -> the slot that took it
    for slot in slots:
        found = [n for n in dict.fromkeys(slot.torch_names) if n in state]
        if not found:
            if slot.constant is not None:
                value = np.full(slot.shape, slot.constant, np.dtype(slot.dtype))
                result.entries.append((slot.name, value, ""))
                continue
            looked = ", ".join(f"`{n}`" for n in dict.fromkeys(slot.torch_names))
            result.problems.append(
                (slot.name, f"no tensor in the state_dict for it (looked for {looked})")
            )
            continue
        key = found[0]
        for other in found[1:]:  # the model ties these names: torch's copies must agree
            taken[other] = slot.name
            if np.array_equal(np.asarray(state[other]), np.asarray(state[key])):
                result.tied.append((other, key))
            else:
                why = (
                    f"the converted model ties it to `{key}` ({slot.name}), but the "
                    "state_dict holds different values for the two"
                )
                result.problems.append((other, why))
        if key in taken and taken[key] != slot.name:
            result.problems.append(
                (key, f"taken by two parameters: {taken[key]} and {slot.name}")
            )
            continue
        taken[key] = slot.name
        array, why = _fit(slot, key, np.asarray(state[key]))
        if array is None:
            result.problems.append((key, why))
            continue
        if array.shape != np.shape(state[key]):
            result.reshaped.append(
                (key, f"{list(np.shape(state[key]))} -> {list(array.shape)}")
            )
        result.entries.append((slot.name, array, key))
    for key in state:
        if key in taken:
            continue
        leaf = key.rpartition(".")[2]
        if leaf in DROPPED:
            result.dropped.append((key, DROPPED[leaf]))
            continue
        result.problems.append(
            (key, "unused: no parameter of the converted model takes this name")
        )
    return result


def problem_lines(placement: Placement, limit: int = 40) -> list[str]:
    """One line per problem, at most ``limit`` (then a count of the rest)."""
    lines = [f"  {key}: {why}" for key, why in placement.problems[:limit]]
    if len(placement.problems) > limit:
        lines.append(f"  ... and {len(placement.problems) - limit} more")
    return lines


__all__ = ["DROPPED", "Placement", "Slot", "place", "problem_lines"]
