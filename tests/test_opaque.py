"""Opaque statements (``migrator.opaque``): statements no rule reads are parsed as placeholders
and written back from the source; the output is the output of a full parse."""

from __future__ import annotations

import libcst as cst
import pytest
from torch2ms.migrator import convert as convert_module
from torch2ms.migrator import opaque
from torch2ms.migrator.convert import convert_source
from torch2ms.migrator.rule import API, Rule

# Irrelevant statements in odd shapes (comments, continuation lines, a decorator, a nested
# block, a string over several lines) between statements the rules rewrite.
SOURCE = '''"""A module."""
import functools

import torch
import torch.nn as nn


@functools.lru_cache(maxsize=None)   # a decorator
def table(n):
    rows = [i  *  2 for i in range(n)]   # odd spacing is kept
    total = sum(rows) + \\
        n
    text = """line one
  line two"""
    return total, text


class Net(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.fc = nn.Linear(width, width)
        if width > 4:
            # a comment in an irrelevant block
            self.scale = width  ;  self.name = "wide"
        else:
            self.scale = 1

    def forward(self, x):
        y = self.fc(x)
        for i in range(self.scale):
            y = y + i
        return torch.relu(y)


def outside(values):
    out = {}
    for key, value in values.items():
        out[key] = value
    return out
'''


def _convert(source: str, min_lines: int):
    saved = opaque.MIN_LINES
    opaque.MIN_LINES = min_lines
    try:
        return convert_source(source, "net.py")
    finally:
        opaque.MIN_LINES = saved


def _hidden(source: str) -> int:
    """How many statements the conversion of ``source`` parses as placeholders."""
    counts = []
    real = convert_module.reduce_source

    def count(*args, **kwargs):
        reduced = real(*args, **kwargs)
        counts.append(len(reduced.statements))
        return reduced

    convert_module.reduce_source = count
    try:
        convert_source(source, "net.py")
    finally:
        convert_module.reduce_source = real
    return sum(counts)


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_opaque_text_comes_back_byte_for_byte(newline: str) -> None:
    source = SOURCE.replace("\n", newline)
    assert _hidden(source) >= 3  # table(), the if block and outside() at least
    full = _convert(source, 10**9)
    partial = _convert(source, 1)
    assert partial.code == full.code
    assert full.code != source  # the rules did rewrite the module
    for kept in (
        "    rows = [i  *  2 for i in range(n)]   # odd spacing is kept",
        '    text = """line one' + newline + '  line two"""',
        '            self.scale = width  ;  self.name = "wide"',
    ):
        assert kept in partial.code


def test_no_final_newline_and_tabs(monkeypatch) -> None:
    monkeypatch.setattr(opaque, "MIN_LINES", 1)
    source = (
        "import torch\n\nif True:\n\tx = torch.zeros(2)\n\tfor i in range(3):\n"
        "\t\tprint(i)\n\ty = [1,\n\t     2]"
    )
    assert _hidden(source) >= 2
    assert _convert(source, 1).code == _convert(source, 10**9).code


def test_findings_keep_their_lines() -> None:
    source = SOURCE + "\n\ndef late(x):\n    return x.cuda()\n"
    full = _convert(source, 10**9)
    partial = _convert(source, 1)
    assert full.findings, "the example must produce findings"
    assert [(f.rule, f.line, f.column, f.message) for f in partial.findings] == [
        (f.rule, f.line, f.column, f.message) for f in full.findings
    ]


def test_converting_twice_changes_nothing() -> None:
    once = _convert(SOURCE, 1).code
    assert _convert(once, 1).code == once


def test_placeholders_stand_only_for_whole_lines() -> None:
    source = (
        "import torch\n"
        "if torch.cuda.is_available(): a = 1\n"  # the body of `if x: stmt`
        "b = 2; c = torch.ones(1)\n"  # a `;` neighbour of a relevant statement
        "d = torch.zeros(1)\n"
        "if d is None:\n    e = 1\nelif d:\n    f = 2\nelse:\n    g = 3\n"
    )
    import ast

    from torch2ms.migrator.aliases import torch_aliases
    from torch2ms.migrator.rule import rule_classes

    tree = ast.parse(source)
    census = convert_module._census(tree, torch_aliases(tree), rule_classes())
    reduced = opaque.reduce_source(source, tree, census, lambda a, b: False, 1)
    hidden = [line.strip() for line in reduced.text.splitlines()]
    assert "if torch.cuda.is_available(): a = 1" in hidden
    assert "b = 2; c = torch.ones(1)" in hidden
    # The irrelevant `if` chain is one statement: the elif is not a statement of its own.
    assert hidden.count(opaque.PLACEHOLDER) == 1
    assert "elif d:" not in hidden


class _RemovesStatements(Rule):
    """Removes the statement lines the census marks irrelevant: a rule that would remove a
    placeholder."""

    stage = API
    order = 999
    triggers = ("torch",)

    def leave_SimpleStatementLine(self, original, updated, ctx):
        info = ctx.statements.get(id(original))
        if info is not None and not info.relevant:
            return cst.RemoveFromParent()
        return updated


def test_a_rule_that_touches_a_placeholder_falls_back_to_a_full_parse(
    monkeypatch,
) -> None:
    monkeypatch.setattr(opaque, "MIN_LINES", 1)
    source = "import torch\n\ny = torch.zeros(1)\nx = 1\n\n\ndef f():\n    return 2\n"
    classes = convert_module.rule_classes()
    monkeypatch.setattr(
        convert_module, "rule_classes", lambda: [*classes, _RemovesStatements]
    )
    runs = []
    real = convert_module._run_stages

    def run(*args, opaque, **kwargs):
        runs.append(opaque)
        return real(*args, opaque=opaque, **kwargs)

    monkeypatch.setattr(convert_module, "_run_stages", run)
    result = convert_source(source, "f.py")
    # The placeholders of `x = 1` and `def f` were removed or written as placeholders: the
    # file was converted again from a full parse, where the rule sees the real statements.
    assert runs == [True, False]
    assert "x = 1" not in result.code
    assert "def f():\n    return 2\n" in result.code
    assert opaque.PLACEHOLDER not in result.code


def test_module_code_refuses_a_replaced_placeholder() -> None:
    from torch2ms.migrator.engine import module_code

    source = "import torch\nx = 1\n"
    parsed = cst.parse_module("import torch\n" + opaque.PLACEHOLDER + "\n")
    placeholder = parsed.body[1]
    lines = {id(parsed.body[0]): (1, 1), id(placeholder): (2, 2)}
    changed = parsed.with_changes(
        body=[parsed.body[0], placeholder.with_changes(body=placeholder.body)]
    )
    with pytest.raises(opaque.OpaqueLeak):
        module_code(changed, parsed, source, lines, frozenset({id(placeholder)}))
    kept = parsed.with_changes(
        body=[cst.parse_statement("import mindspore\n"), placeholder]
    )
    assert (
        module_code(kept, parsed, source, lines, frozenset({id(placeholder)}))
        == "import mindspore\nx = 1\n"
    )


def test_the_parse_skips_field_checks_only_while_it_runs() -> None:
    from torch2ms.migrator.engine import parse_module

    checked = cst.CSTNode.__post_init__
    assert parse_module(SOURCE).code == SOURCE
    with pytest.raises(cst.ParserSyntaxError):
        parse_module("def broken(:\n")
    assert cst.CSTNode.__post_init__ is checked
    # Nodes the rules build are checked as before.
    with pytest.raises(cst.CSTValidationError):
        cst.Name("")


# `torch` only in a string: no rule it activates reads an unmarked statement for it.
STRING_ONLY = (
    "import torch\n\n\ndef describe():\n    return (\n        'built on torch'\n    )\n\n\n"
    "def make(n):\n    return torch.zeros(n)\n"
)


def test_a_word_the_rules_read_no_unmarked_statement_for_is_hidden() -> None:
    assert _hidden(STRING_ONLY) == 1  # describe()
    assert _convert(STRING_ONLY, 3).code == _convert(STRING_ONLY, 10**9).code


class _ReadsItsWord(Rule):
    """A rule that declares no ``unmarked_words``: the lines with its trigger stay parsed."""

    stage = API
    order = 999
    triggers = ("built on",)


def test_a_rule_without_unmarked_words_keeps_its_trigger_lines(monkeypatch) -> None:
    classes = convert_module.rule_classes()
    monkeypatch.setattr(
        convert_module, "rule_classes", lambda: [*classes, _ReadsItsWord]
    )
    assert _hidden(STRING_ONLY) == 0


# A device definition read only in a statement without torch uses, once its moves are gone.
DEVICE_READ = (
    "import torch\n\ndevice = torch.device('cuda')\n\n\ndef run(model, x):\n"
    "    model.to(device)\n    y = helper(\n        x,\n        device,\n    )\n    return y\n"
)
# A placement dict indexed in a statement without torch uses: it is not only spread.
DICT_INDEXED = (
    "import torch\n\n\ndef g(x):\n    dd = {'device': x.device, 'dtype': x.dtype}\n"
    "    y = helper(\n        dd['device'],\n        3,\n    )\n"
    "    return torch.zeros(3, **dd), y\n"
)


@pytest.mark.parametrize(
    "source, kept",
    [(DEVICE_READ, "device = ms_aux.device('cuda')"), (DICT_INDEXED, "**dd")],
)
def test_a_name_the_rules_follow_keeps_its_statements_parsed(
    source: str, kept: str
) -> None:
    partial = _convert(source, 3).code
    assert partial == _convert(source, 10**9).code
    assert kept in partial


# `self.grad_checkpointing` holds the gradient rules' trigger words but names no gradient state:
# the function around it is not kept parsed for them; the one that clears `p.grad` is.
GRAD_NAMES = (
    "import torch\n\n\nclass Net(torch.nn.Module):\n"
    "    def forward(self, x):\n"
    "        if self.grad_checkpointing:\n"
    "            x = checkpoint(\n                self.block,\n                x,\n            )\n"
    "        return torch.relu(x)\n\n"
    "    def clear(self):\n"
    "        for p in self.parameters():\n"
    "            p.grad = None\n"
    "        total = sum(\n            [1, 2],\n        )\n"
    "        return torch.tensor(total)\n"
)


def test_gradient_scope_names_match_whole_names() -> None:
    assert _hidden(GRAD_NAMES) == 1  # the `if self.grad_checkpointing:` block
    assert _convert(GRAD_NAMES, 3).code == _convert(GRAD_NAMES, 10**9).code
    assert opaque._lines_with("a.grad_x\nb.grad\n", [".grad"], whole=True) == [2]
    assert opaque._lines_with("a.grad_x\nb.grad\n", [".grad"]) == [1, 2]
