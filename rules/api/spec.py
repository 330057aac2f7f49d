"""The API mapping record and the argument translation shared by the TM4xx rule and its tests.

A mapping is data: names, a torch parameter order, keyword renames, drops, added defaults and value
transforms. ``translate_call`` applies it to any argument representation (runtime values in the
tests, LibCST nodes in the rule); the caller supplies how to read a literal and how to transform.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

KINDS = ("function", "method", "class", "name")
FORMS = (
    "call",
    "attribute",
    "initializer",
    "constant",
    "decorator",
    "annotation",
    "assign",
)
STATUSES = ("exact", "args", "report", "unsupported")
TARGETS = ("cpu", "gpu", "ascend")
CHECKS = ("values", "shape", "train", "exists")
# Value transforms a mapping may name; both the runtime and the source forms implement each one.
# one_minus: m -> 1 - m; as_tuple: n -> (n,) (a longer shape is refused); is_tanh: s -> s == "tanh";
# pad_each_side: a per-dimension padding tuple (h, w) -> (h, h, w, w), an int stays;
# bool_to_int: unbiased=True/False -> ddof=1/0; int_to_tuple: an int literal n -> (n,), others stay;
# as_float: an int literal n -> n.0, another value v -> float(v) (MindSpore checks for a float).
# written_dtype: a dtype written out (`torch.float32`, `x.dtype`) stays, anything that may be None
# (torch's "infer it") is refused.
# nonzero: a tensor v -> `v != 0`, a bool tensor (MindSpore 2.10's CPU any/all misread integers).
# none_all_axes: a `None` literal (torch's "every dimension") -> `()`, which MindSpore's reductions
# read so; other values stay. list_to_tuple: a list literal -> the same tuple (MindSpore's pooling
# layers take sizes as int or tuple only); other values stay.
TRANSFORMS = (
    "one_minus",
    "as_tuple",
    "is_tanh",
    "pad_each_side",
    "bool_to_int",
    "int_to_tuple",
    "as_float",
    "written_dtype",
    "nonzero",
    "none_all_axes",
    "list_to_tuple",
)

# Keyword arguments that only place or lay out memory; the result is the same without them.
PLACEMENT_DROPS = ("device", "layout", "pin_memory", "memory_format", "non_blocking")
# Keyword arguments that change what the call means in a way MindSpore's call cannot express.
GENERAL_UNSAFE = {
    "out": "*",
    # `generator=None` is torch's default stream: dropped; any generator is refused.
    "generator": "!None",
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
    # MindSpore keyword arguments to add, as Python source, because the defaults differ;
    # "@name" stands for the value of torch argument `name`.
    defaults: Mapping[str, str] = field(default_factory=dict)
    transform: Mapping[str, str] = field(default_factory=dict)
    # torch argument -> literal value (source) that cannot be translated: "*" any value, "<str>" any
    # string literal, "!None" any value but the literal None; a value that is not a literal is
    # refused too, except for "<str>" and for
    # "=value" (refused only as that literal, because any other value fails loudly in MindSpore).
    unsafe_args: Mapping[str, str] = field(default_factory=dict)
    targets: Sequence[str] = ("cpu", "gpu", "ascend")
    note: str = ""
    status: str = "exact"
    # "call": same call shape; "attribute": `x.m()` -> `x.attr`, `x.m(i)` -> `x.attr[i]`;
    # "initializer": see table_init; "constant": the call is replaced by the literal in `mindspore`;
    # "decorator": a no-op decorator outside TorchScript, removed; "annotation": `Final[T]` -> `T`;
    # "assign": an in-place method, `x.m_(a)` -> `ops.assign(x, <mapped out-of-place call>)`.
    form: str = "call"
    # torch arguments that must be given for the mapping to hold (torch.max without dim is another op).
    requires: Sequence[str] = ()
    # True when MindSpore also takes the "*name" arguments one by one instead of as a tuple.
    spread: bool = False
    # True when torch also takes the "*name" arguments as one list or tuple (`meshgrid(tensors)`),
    # which a spread MindSpore function does not unpack: a lone argument there is refused.
    one_sequence: bool = False
    # Number of leading positional arguments kept positional; None: up to the first changed one.
    positional: int | None = None
    # The dtype torch returns where MindSpore's op returns another (`ops.multinomial` gives int32
    # indices, torch int64): the result is cast to it, as `mindspore.<dtype>`.
    result_dtype: str = ""
    # torch lets the first of `params` be left out (`torch.randint(high, size)`): its value, as
    # source, when a call passes one argument fewer than `params`.
    leading_default: str = ""
    # Parameter names, torch -> MindSpore, for layers whose state is copied across ("" when MindSpore
    # holds the value as a constructor argument, not as a Parameter).
    param_names: Mapping[str, str] = field(default_factory=dict)
    # The Ascend-only torch-compatible alternative, if the official table names one (table_mint).
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


class Untranslatable(Exception):
    """Raised by a transform callback when a value cannot be carried over with certainty."""


@dataclass(frozen=True)
class Refusal:
    argument: str
    reason: str


# Keywords torch's argument parser takes for its own names, as numpy spells them
# (`torch.max(x, axis=1)`, `x.sum(keepdims=True)`), in the functions and methods it parses.
_NUMPY_ALIASES = {"axis": "dim", "keepdims": "keepdim"}


def _numpy_alias(mapping: ApiMapping, name: str, params: list[str]) -> str:
    """torch's name for a keyword given as numpy spells it, where the mapped API has it."""
    alias = _NUMPY_ALIASES.get(name)
    module = mapping.torch.rpartition(".")[0]
    if (
        alias is None
        or module not in ("torch", "torch.Tensor")
        or name in params
        or "*" + name in params
        or not (alias in params or "*" + alias in params)
    ):
        return name
    return alias


def bind_arguments(
    mapping: ApiMapping,
    args: Sequence[V],
    kwargs: Mapping[str, V],
    pack: Callable[[list], V],
) -> tuple[list[tuple[str, V]], int] | Refusal:
    """Name the positional arguments by torch's order; returns (named, number given positionally)."""
    params = list(mapping.params)
    named: list[tuple[str, V]] = []
    for index, value in enumerate(args):
        if index >= len(params):
            return Refusal(
                "",
                f"{mapping.torch} takes at most {len(params)} positional arguments here",
            )
        name = params[index]
        if name.startswith("*"):
            rest = list(args[index:])
            if mapping.one_sequence and len(rest) == 1:
                return Refusal(
                    name[1:],
                    "a lone argument may be a list or tuple of tensors, which "
                    f"`{mapping.mindspore}` does not unpack; pass them one by one (`*tensors`)",
                )
            if mapping.spread:
                named.append((name, rest))
            else:
                named.append((name[1:], rest[0] if len(rest) == 1 else pack(rest)))
            break
        named.append((name, value))
    positional_count = len(named)
    seen = {name for name, _ in named}
    for name, value in kwargs.items():
        name = _numpy_alias(mapping, name, params)
        if name in seen:
            return Refusal(name, f"{name} given twice")
        if "*" + name in params and "*" + name not in seen:
            # `x.view(size=(2, 3))`: the collected positionals given by name, as one sequence.
            named.append(("*" + name, [value]) if mapping.spread else (name, value))
            continue
        named.append((name, value))
    return named, positional_count


def translate_call(
    mapping: ApiMapping,
    args: Sequence[V],
    kwargs: Mapping[str, V],
    literal: Callable[[V], str | None],
    transform: Callable[[str, V], V],
    default: Callable[[str], V],
    pack: Callable[[list], V],
    copy: Callable[[V], V] = lambda value: value,
) -> CallTranslation | Refusal:
    """Apply a mapping to one call.

    literal(value) gives the value's Python source when it is a literal, else None;
    transform(name, value) applies one of TRANSFORMS; default(source) builds an added default;
    pack(values) builds a tuple from several positional values.
    """
    if not mapping.translatable:
        return Refusal(
            "", mapping.note or f"{mapping.torch} has no certain MindSpore mapping"
        )
    bound = bind_arguments(mapping, args, kwargs, pack)
    if isinstance(bound, Refusal):
        return bound
    named, positional_count = bound
    if positional_count == 0 and mapping.kind == "function":
        named, positional_count = _leading_by_position(mapping, named)
    missing = [name for name in mapping.requires if name not in dict(named)]
    if missing:
        return Refusal(
            missing[0],
            mapping.note or f"{mapping.torch} without {missing[0]}= maps differently",
        )
    unsafe = {**GENERAL_UNSAFE, **mapping.unsafe_args}
    out_args: list = []
    out_kwargs: dict = {}
    emitted: set[str] = set()
    transformed: dict = {}
    # With `positional` given, MindSpore's leading positional order is known to match (after renames).
    fixed = mapping.positional is not None
    limit = positional_count if not fixed else min(mapping.positional, positional_count)
    for index, (name, value) in enumerate(named):
        bad = unsafe.get(name)
        if bad is not None:
            source = literal(value)
            if bad.startswith("="):
                refuse = source is not None and _same_literal(source, bad[1:])
            elif bad == "<str>":
                refuse = source is not None and source.lstrip("rbuf")[:1] in ("'", '"')
            elif bad == "!None":
                refuse = source is None or not _same_literal(source, "None")
            else:
                refuse = bad == "*" or source is None or _same_literal(source, bad)
            if refuse:
                reason = mapping.unsafe_reason if name in mapping.unsafe_args else ""
                return Refusal(
                    name, reason or GENERAL_UNSAFE_REASONS.get(name, f"{name}={bad}")
                )
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
            try:
                value = transform(mapping.transform[name], value)
            except Untranslatable as error:
                return Refusal(name, str(error) or mapping.note)
            transformed[name] = value
        target_name = mapping.rename.get(name, name)
        if not fixed and (target_name != name or name in mapping.transform):
            limit = min(limit, index)
        emitted.add(target_name)
        if index < limit:
            out_args.append(value)
        else:
            out_kwargs[target_name] = value
    given = dict(named)
    for name, source in mapping.defaults.items():
        if name in emitted:
            continue
        if source.startswith("@"):
            # torch's default is another argument's value (a pool's stride defaults to kernel_size).
            if source[1:] in given:
                out_kwargs[name] = copy(transformed.get(source[1:], given[source[1:]]))
        else:
            out_kwargs[name] = default(source)
    return CallTranslation(mapping.mindspore, out_args, out_kwargs)


def _leading_by_position(
    mapping: ApiMapping, named: list[tuple[str, V]]
) -> tuple[list[tuple[str, V]], int]:
    """A call that names even its first argument (`torch.acosh(input=x)`): the leading torch
    parameters it gives, in torch's order, are passed by position, because MindSpore's names for
    them differ (`input` is `x` or `input_x` there) while their order is the mapping's."""
    given = dict(named)
    leading: list[str] = []
    for name in mapping.params:
        # A renamed parameter is passed by MindSpore's name, which is known.
        if name.startswith("*") or name not in given or name in mapping.rename:
            break
        leading.append(name)
    if not leading:
        return named, 0
    rest = [(name, value) for name, value in named if name not in leading]
    return [(name, given[name]) for name in leading] + rest, len(leading)


def _same_literal(source: str, expected: str) -> bool:
    return source.replace(" ", "") == expected.replace(" ", "")
