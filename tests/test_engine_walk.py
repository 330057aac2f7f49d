"""What the walks leave out changes nothing a handler sees: name handlers marked
``torch_names_only``, leaves no handler takes, and functions placement dicts need not count in."""

from __future__ import annotations

import libcst as cst
from torch2ms.migrator import convert as convert_module
from torch2ms.migrator.convert import convert_source
from torch2ms.migrator.engine import visit
from torch2ms.migrator.rule import API, Rule, torch_names_only
from torch2ms.rules.api import receivers

SOURCE = """\
import torch
import numpy as np
from torch import nn as tnn


class M(tnn.Module):
    def a(self, device=None, dtype=None):
        dd = {'device': device, 'dtype': dtype}
        self.w = torch.zeros(3, **dd) + np.ones(3).sum()
        self.b = torch.ones(3, **dd)

    def b(self, device=None):
        dd = dict(device=device)
        dd.update(dtype=torch.float32)
        self.w = torch.zeros(3, **dd)

    def c(self, device=None):
        dd = {'device': device}
        self.w = torch.zeros(3, **dd)
        (dd  # the dict again
         )['dtype'] = torch.float32

    def d(self, device=None):
        dd = {'device': device}
        self.w = torch.zeros(3, **dd)
        dd \\
            |= {'dtype': torch.float32}
"""


def _convert(monkeypatch, *extra: type[Rule]):
    classes = convert_module.rule_classes()
    monkeypatch.setattr(convert_module, "rule_classes", lambda: [*classes, *extra])
    return convert_source(SOURCE, "m.py")


# What the handlers below saw, reset by each test.
SEEN: dict = {}


class _Seen(Rule):
    stage = API
    order = 999
    triggers = ("torch",)

    def leave_Name(self, original, updated, ctx):
        SEEN["names"].append(original.value)
        SEEN["aliases"] = dict(ctx.aliases)
        return updated

    def leave_Attribute(self, original, updated, ctx):
        SEEN["chains"].append(ctx.dotted(original) or "")
        return updated


class _SeenTorch(Rule):
    stage = API
    order = 1000
    triggers = ("torch",)

    @torch_names_only
    def leave_Name(self, original, updated, ctx):
        SEEN["torch_names"].append(original.value)
        return updated

    @torch_names_only
    def leave_Attribute(self, original, updated, ctx):
        SEEN["torch_chains"].append(ctx.dotted(original) or "")
        return updated


def test_torch_names_only_handlers_see_the_names_torch_imports_bind(monkeypatch):
    SEEN.clear()
    SEEN.update(names=[], chains=[], torch_names=[], torch_chains=[])
    _convert(monkeypatch, _Seen, _SeenTorch)
    aliases = SEEN["aliases"]
    assert {"torch", "tnn"} <= set(aliases) and "np" not in aliases
    assert SEEN["torch_names"] == [n for n in SEEN["names"] if n in aliases]
    assert "torch" in SEEN["torch_names"] and "np" not in SEEN["torch_names"]
    heads = [c.split(".")[0] for c in SEEN["chains"]]
    assert SEEN["torch_chains"] == [
        c for c, h in zip(SEEN["chains"], heads) if h in aliases
    ]
    assert "np.ones" in SEEN["chains"] and "np.ones" not in SEEN["torch_chains"]


class _Record(cst.CSTVisitor):
    def __init__(self) -> None:
        super().__init__()
        self.seen: list[str] = []

    def visit_Name(self, node: cst.Name) -> None:
        self.seen.append(node.value)

    def visit_Integer(self, node: cst.Integer) -> None:
        self.seen.append(node.value)

    def leave_Arg(self, node: cst.Arg) -> None:
        self.seen.append("arg")


class _RecordCalls(cst.CSTVisitor):
    def __init__(self) -> None:
        super().__init__()
        self.seen: list[str] = []

    def visit_Call(self, node: cst.Call) -> None:
        self.seen.append(cst.Module([]).code_for_node(node.func))


def test_the_visitor_walk_sees_what_libcst_shows_every_time():
    module = cst.parse_module(SOURCE)
    for visitor_class in (_Record, _RecordCalls):
        expected = visitor_class()
        module.visit(expected)
        assert expected.seen
        # The second walk skips the leaves the first found no handler for.
        for _ in range(2):
            walked = visitor_class()
            visit(module, walked)
            assert walked.seen == expected.seen


class _Placement(Rule):
    stage = API
    order = 999
    triggers = ("torch",)

    def visit_FunctionDef(self, node, ctx):
        SEEN[node.name.value] = (
            receivers.placement_dicts(node, ctx),
            receivers.placement_dicts(node),
            receivers._bound_once(node, {"dd"}, ctx),
        )


def test_placement_dicts_read_from_the_text_as_from_the_walk(monkeypatch):
    SEEN.clear()
    _convert(monkeypatch, _Placement)
    found = SEEN
    assert set(found) == {"a", "b", "c", "d"}
    for with_text, walked, _ in found.values():
        assert with_text == walked
    assert found["a"] == (frozenset({"dd"}), frozenset({"dd"}), True)
    for name in ("b", "c", "d"):
        assert found[name][:2] == (frozenset(), frozenset())
        assert found[name][2] is False


PARENTHESIZED = "x = ((a + (b)) * -(c))[(1)]\nf((yield_), *(args), **(kw))\ny = (lambda: (1, 2))()\n"


def test_codegen_writes_parentheses_and_positions_as_libcst_does() -> None:
    import torch2ms.migrator.engine  # noqa: F401 -- installs the codegen paths
    from libcst.metadata import MetadataWrapper, PositionProvider

    module = cst.parse_module(PARENTHESIZED)
    assert module.code == PARENTHESIZED
    # A state that records positions keeps LibCST's own path: `b` inside `(b)` is at 11..12.
    wrapper = MetadataWrapper(module)
    positions = wrapper.resolve(PositionProvider)
    inner = next(
        node for node in positions if isinstance(node, cst.Name) and node.value == "b"
    )
    start, end = positions[inner].start, positions[inner].end
    assert (start.line, start.column, end.column) == (1, 11, 12)
