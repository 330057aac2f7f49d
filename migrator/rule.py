"""Rules: metadata, registration and the fixed pass order.

A rule is a class with a ``meta`` (its id, title, what/why/use-instead docs and before/after
examples) and LibCST handlers named like ``CSTTransformer`` methods that also receive the module
context: ``leave_Call(self, original_node, updated_node, ctx)``, ``visit_For(self, node, ctx)``.
The engine merges the handlers of every rule in a stage into one traversal, in pass order.
"""

from __future__ import annotations

import importlib
import pkgutil
from dataclasses import dataclass, field
from typing import ClassVar

from .findings import ERROR

# Stages run in this order. GRADIENT rules (TM1xx, TM2xx) see the original torch code and turn
# gradient state into gradient values; API rules (TM3xx, TM4xx) rename what is left.
GRADIENT = "gradient"
API = "api"
# The import rule runs last: it sees what every other rule left of torch.
FINAL = "final"
STAGES = (GRADIENT, API, FINAL)


@dataclass(frozen=True)
class Example:
    before: str
    after: str
    # Substrings the findings' messages must contain, in order; empty when the rewrite is clean.
    findings: tuple[str, ...] = ()
    options: dict = field(default_factory=dict)


@dataclass(frozen=True)
class RuleMeta:
    id: str
    title: str
    what: str
    why: str
    use_instead: str
    examples: tuple[Example, ...] = ()
    severity: str = ERROR
    # Untranslatable findings: fail --strict and the check hook.
    family: str = ""


class Rule:
    """Base class for rules. Subclasses set ``meta``, ``stage``, ``order`` and handlers."""

    meta: ClassVar[RuleMeta]
    stage: ClassVar[str] = API
    # Position within the stage; lower runs first on the same node.
    order: ClassVar[int] = 100
    # The rule runs on a file only when one of these substrings occurs in its text.
    triggers: ClassVar[tuple[str, ...]] = ("torch",)
    # The trigger words whose statements the rule reads as LibCST nodes where the census marks
    # none of them (not entered by the stage walk): ``opaque.NeedsNodes`` keeps those statements
    # parsed. None: every trigger word (``unmarked_words``).
    unmarked_words: ClassVar[tuple[str, ...] | None] = None
    # The names whose lines make a gradient-stage rule read the whole function around them
    # (``opaque.NeedsNodes``), each matched as a whole name: not followed by a letter, a digit or
    # an underscore (`.grad`, not `.grad_checkpointing`). None: every trigger word, anywhere.
    scope_words: ClassVar[tuple[str, ...] | None] = None
    # Method names this rule recognises as torch API uses (``x.backward()``, ``opt.zero_grad()``).
    methods: ClassVar[frozenset[str]] = frozenset()
    # Method names this rule may rewrite without counting them as torch API uses (numpy arrays and
    # builtins have them too, or the program's own classes): a statement calling one is visited.
    watched_methods: ClassVar[frozenset[str]] = frozenset()
    # Attribute names whose reads and assignments the ``ast`` census records for this rule
    # (``ctx.census.attributes``), so that it never walks the module to find them.
    watched_attributes: ClassVar[frozenset[str]] = frozenset()
    # Methods whose presence in the output means the code still depends on torch.
    torch_only_methods: ClassVar[frozenset[str]] = frozenset()
    # Extra rule ids this class may report besides ``meta.id`` (report-only TM9xx), with metadata.
    extra: ClassVar[tuple[RuleMeta, ...]] = ()


def unmarked_words(cls: type[Rule]) -> tuple[str, ...]:
    """The words whose statements ``cls`` reads outside the statements the census marks."""
    words = cls.unmarked_words
    return cls.triggers if words is None else words


def torch_names_only(handler):
    """Marks a handler of ``Name`` or ``Attribute`` nodes that does nothing (a leave handler
    returns the updated node as it is) where ``ctx.qualname`` of the node is None: the engine
    does not call it for a name or chain whose head no torch import binds (one not in
    ``ctx.aliases``), most of those in a module."""
    handler.torch_names_only = True
    return handler


_REGISTRY: dict[str, type[Rule]] = {}
_META: dict[str, RuleMeta] = {}
_LOADED = False


def register(cls: type[Rule]) -> type[Rule]:
    """Class decorator: add a rule to the registry under its id."""
    for meta in (cls.meta, *cls.extra):
        if meta.id in _META and _META[meta.id] is not meta:
            raise ValueError(f"duplicate rule id {meta.id}")
        _META[meta.id] = meta
    _REGISTRY[cls.meta.id] = cls
    return cls


def load_all() -> None:
    """Import every module under the ``rules`` package so their decorators run."""
    global _LOADED
    if _LOADED:
        return
    from .. import rules

    for info in pkgutil.walk_packages(rules.__path__, rules.__name__ + "."):
        # The companion library is MindSpore code that converted trees import, not rules.
        if ".companion.library" in info.name:
            continue
        importlib.import_module(info.name)
    _LOADED = True


def rule_classes() -> list[type[Rule]]:
    load_all()
    return sorted(
        _REGISTRY.values(),
        key=lambda cls: (STAGES.index(cls.stage), cls.order, cls.meta.id),
    )


def all_meta() -> list[RuleMeta]:
    load_all()
    return sorted(_META.values(), key=lambda meta: meta.id)


def meta_for(rule_id: str) -> RuleMeta | None:
    load_all()
    return _META.get(rule_id)


def define(
    rule_id: str, title: str, what: str, why: str, use_instead: str, **kw
) -> RuleMeta:
    """Register report-only metadata that is not tied to a handler class."""
    meta = RuleMeta(rule_id, title, what, why, use_instead, **kw)
    if rule_id in _META and _META[rule_id] != meta:
        raise ValueError(f"duplicate rule id {rule_id}")
    _META[rule_id] = meta
    return meta
