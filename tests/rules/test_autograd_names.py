"""The statement indexes of the gradient rules give what a fresh walk gives."""

from __future__ import annotations

import libcst as cst
import pytest
from torch2ms.rules.autograd.names import attribute_index, call_index, calls

SOURCE = """\
import torch

def train(x, model, opt):
    w = torch.ones(3, requires_grad=True)
    for step in range(3):
        if step:
            y = (w * model(x)).sum()
            y.backward()
        f = lambda v: v.detach().clone()
        with torch.no_grad():
            w.grad.zero_()
    opt.step()
    return f(w).requires_grad


class Net:
    def forward(self, x):
        return self.lin(x).relu()
"""


def _statements(node: cst.CSTNode) -> list[cst.CSTNode]:
    found: list[cst.CSTNode] = []

    class _Collect(cst.CSTVisitor):
        def on_visit(self, child: cst.CSTNode) -> bool:
            if isinstance(child, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
                found.append(child)
            return True

    node.visit(_Collect())
    return found


def _attributes(node: cst.CSTNode) -> list[str]:
    found: list[str] = []

    class _Collect(cst.CSTVisitor):
        def visit_Attribute(self, child: cst.Attribute) -> None:
            found.append(child.attr.value)

    node.visit(_Collect())
    return found


@pytest.mark.parametrize("inner_first", [True, False])
def test_indexes_match_a_fresh_walk_in_any_order(inner_first: bool) -> None:
    module = cst.parse_module(SOURCE)
    nodes = _statements(module) + [module]
    if not inner_first:
        nodes.reverse()
    by_calls, by_attributes = call_index(), attribute_index()
    for node in nodes + nodes:
        expected = calls(node)
        got = by_calls(node)
        assert [id(c) for c in got] == [id(c) for c in expected]
        assert by_attributes(node) == _attributes(node)
    assert any(
        isinstance(c.func, cst.Attribute) and c.func.attr.value == "backward"
        for c in by_calls(module)
    )
    # `calls` does not enter lambdas; attribute names are taken everywhere.
    assert "clone" not in [
        c.func.attr.value for c in by_calls(module) if isinstance(c.func, cst.Attribute)
    ]
    assert "clone" in by_attributes(module)


def test_a_rebuilt_parent_is_walked_again() -> None:
    """A statement rebuilt around unchanged children gives its new calls, the children's
    calls taken from the index."""
    module = cst.parse_module(SOURCE)
    index = call_index()
    function = module.body[1]
    before = index(function)
    loop = function.body.body[1]
    extra = cst.parse_statement("opt.zero_grad()\n")
    rebuilt = function.with_changes(
        body=function.body.with_changes(body=[extra, *function.body.body])
    )
    after = index(rebuilt)
    assert [id(c) for c in after] == [id(c) for c in calls(rebuilt)]
    assert len(after) == len(before) + 1
    assert index(loop) is not None and [id(c) for c in index(loop)] == [
        id(c) for c in calls(loop)
    ]
