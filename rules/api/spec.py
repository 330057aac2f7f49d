"""The API mapping record and the argument translation shared by the TM4xx rule and its tests.

A mapping is data: names, a torch parameter order, keyword renames, drops, added defaults and value
transforms. ``translate_call`` applies it to any argument representation (runtime values in the
tests, LibCST nodes in the rule); the caller supplies how to read a literal and how to transform.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Generic, Mapping, Optional, Sequence, TypeVar, Union

KINDS = ("function", "method", "class", "name")
STATUSES = ("exact", "args", "report", "unsupported")
TARGETS = ("cpu", "gpu", "ascend")
CHECKS = ("values", "shape", "train", "exists")
# Value transforms a mapping may name; both the runtime and the source forms implement each one.
TRANSFORMS = ("one_minus", "as_tuple", "negate")

# Keyword arguments that only place or lay out memory; the result is the same without them.
PLACEMENT_DROPS = ("device", "layout", "pin_memory", "memory_format", "non_blocking")
# Keyword arguments that change what the call means in a way MindSpore's call cannot express.
GENERAL_UNSAFE = {
    "out": "*",
    "generator": "*",
    "requires_grad": "True",
}
GENERAL_UNSAFE_REASONS = {
    "out": "out= writes into an existing tensor; assign the result instead (`y = op(...)`)",
    "generator": "MindSpore draws from a global or seeded stream; pass `seed=` or call "
    "`mindspore.set_seed(...)`",
    "requires_grad": "MindSpore tensors have no tape; wrap the value in "
    "`mindspore.Parameter(...)` to differentiate with respect to it",
}


@dataclass(frozen=True)
class ApiMapping:
    """One torch API and its MindSpore counterpart on the given targets."""

    torch: str
    mindspore: str
    kind: str = "function"
    # torch's positional parameter order; a "*name" entry collects the remaining positionals.
    params: Sequence[str] = ()
    rename: Mapping[str, str] = field(default_factory=dict)
    drop: Sequence[str] = ()
    # MindSpore keyword arguments to add, as Python source, because the defaults differ.
    defaults: Mapping[str, str] = field(default_factory=dict)
    transform: Mapping[str, str] = field(default_factory=dict)
    # torch argument -> literal value (source) that cannot be translated, or "*" for any value.
    unsafe_args: Mapping[str, str] = field(default_factory=dict)
    targets: Sequence[str] = ("cpu", "gpu", "ascend")
    note: str = ""
    status: str = "exact"
    # "call": same call shape; "attribute": `x.m()` -> `x.attr`, `x.m(i)` -> `x.attr[i]`.
    form: str = "call"
    # True when MindSpore also takes the "*name" arguments one by one instead of as a tuple.
    spread: bool = False
    # Number of leading positional arguments kept positional; None: up to the first changed one.
    positional: Optional[int] = None
    # Parameter names, torch -> MindSpore, for layers whose state is copied across.
    param_names: Mapping[str, str] = field(default_factory=dict)
    # The Ascend-only torch-compatible alternative, if the official table names one.
    mint: str = ""
    # Test inputs: forward/call arguments as sample specs (see rules.api.samples).
    sample: Sequence[Any] = ()
    sample_kwargs: Mapping[str, Any] = field(default_factory=dict)
    init: Sequence[Any] = ()
    init_kwargs: Mapping[str, Any] = field(default_factory=dict)
    check: str = "values"
    # Why the unsafe_args values cannot be translated and what to write instead.
    unsafe_reason: str = ""

    @property
    def translatable(self) -> bool:
        return self.status in ("exact", "args")

    def valid_on(self, target: str) -> bool:
        return self.translatable and target in self.targets


V = TypeVar("V")


@dataclass(frozen=True)
class CallTranslation(Generic[V]):
    mindspore: str
    args: list
    kwargs: dict


@dataclass(frozen=True)
class Refusal:
    argument: str
    reason: str


def bind_arguments(
    mapping: ApiMapping, args: Sequence[V], kwargs: Mapping[str, V], pack: Callable[[list], V]
) -> Union[tuple[list[tuple[str, V]], int], Refusal]:
    """Name the positional arguments by torch's order; returns (named, number given positionally)."""
    params = list(mapping.params)
    named: list[tuple[str, V]] = []
    for index, value in enumerate(args):
        if index >= len(params):
            return Refusal("", f"{mapping.torch} takes at most {len(params)} positional arguments here")
        name = params[index]
        if name.startswith("*"):
            rest = list(args[index:])
            if mapping.spread:
                named.append((name, rest))
            else:
                named.append((name[1:], rest[0] if len(rest) == 1 else pack(rest)))
            break
        named.append((name, value))
    positional_count = len(named)
    seen = {name for name, _ in named}
    for name, value in kwargs.items():
        if name in seen:
            return Refusal(name, f"{name} given twice")
        named.append((name, value))
    return named, positional_count


def translate_call(
    mapping: ApiMapping,
    args: Sequence[V],
    kwargs: Mapping[str, V],
    literal: Callable[[V], Optional[str]],
    transform: Callable[[str, V], V],
    default: Callable[[str], V],
    pack: Callable[[list], V],
) -> Union[CallTranslation, Refusal]:
    """Apply a mapping to one call.

    literal(value) gives the value's Python source when it is a literal, else None;
    transform(name, value) applies one of TRANSFORMS; default(source) builds an added default;
    pack(values) builds a tuple from several positional values.
    """
    if not mapping.translatable:
        return Refusal("", mapping.note or f"{mapping.torch} has no certain MindSpore mapping")
    bound = bind_arguments(mapping, args, kwargs, pack)
    if isinstance(bound, Refusal):
        return bound
    named, positional_count = bound
    unsafe = {**GENERAL_UNSAFE, **mapping.unsafe_args}
    out_args: list = []
    out_kwargs: dict = {}
    limit = positional_count if mapping.positional is None else min(mapping.positional, positional_count)
    for index, (name, value) in enumerate(named):
        bad = unsafe.get(name)
        if bad is not None:
            source = literal(value)
            if bad == "*" or source is None or _same_literal(source, bad):
                reason = mapping.unsafe_reason if name in mapping.unsafe_args else ""
                return Refusal(name, reason or GENERAL_UNSAFE_REASONS.get(name, f"{name}={bad}"))
        if name.startswith("*"):
            out_args.extend(value)
            continue
        if name in mapping.drop or name in PLACEMENT_DROPS:
            limit = min(limit, index)
            continue
        if name in GENERAL_UNSAFE:
            limit = min(limit, index)
            continue
        if name in mapping.transform:
            value = transform(mapping.transform[name], value)
        target_name = mapping.rename.get(name, name)
        if target_name != name or name in mapping.transform:
            limit = min(limit, index)
        if index < limit:
            out_args.append(value)
        else:
            out_kwargs[target_name] = value
    for name, source in mapping.defaults.items():
        if name not in out_kwargs:
            out_kwargs[name] = default(source)
    return CallTranslation(mapping.mindspore, out_args, out_kwargs)


def _same_literal(source: str, expected: str) -> bool:
    return source.replace(" ", "") == expected.replace(" ", "")
