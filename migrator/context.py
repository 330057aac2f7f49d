"""The per-module context every rule receives."""

from __future__ import annotations

import bisect
from collections.abc import Iterable
from dataclasses import dataclass, field

import libcst as cst

from .aliases import is_torch, self_reference_dropped
from .findings import ERROR, Finding
from .index import Census, StatementInfo
from .tree import FileFacts

_NAME = cst.Name
_ATTRIBUTE = cst.Attribute

# ``ctx.state`` key: ids of the calls a rule converted although their method name is among the
# torch-only ones (`x.squeeze(dim=0)` → `x.squeeze(axis=0)`); the import rule leaves them alone.
CONVERTED_CALLS = "converted_calls"


# ``ctx.state`` key: the LibCST module as parsed (its code is the source), for analyses that
# would otherwise print it to read it again.
PARSED = "parsed_module"


# ``ctx.state`` key: the companion entries a module uses (``ms_aux.BatchNorm2d``).
COMPANION = "companion"


@dataclass(frozen=True)
class CompanionImport:
    """How a converted file imports the companion module: ``from .. import ms_aux`` inside a
    package (``dots`` > 0), ``import ms_aux`` beside a script (``dots`` == 0)."""

    module: str = "ms_aux"
    dots: int = 0


@dataclass(frozen=True)
class Options:
    target: str = "cpu"  # cpu | gpu | ascend
    style: str = "functional"  # functional | cell


@dataclass
class ModuleContext:
    path: str
    source: str
    options: Options
    aliases: dict[str, str]
    statements: dict[int, StatementInfo]
    census: Census
    findings: list[Finding] = field(default_factory=list)
    # Names the module binds for itself (not through torch imports); emitted short names avoid them.
    bound_names: frozenset[str] = frozenset()
    # LibCST statements being visited, innermost last (maintained by the engine).
    stack: list[cst.CSTNode] = field(default_factory=list)
    # Rule ids that changed this module.
    applied: set[str] = field(default_factory=set)
    # Free-form state a rule keeps per module, keyed by rule id.
    state: dict[str, object] = field(default_factory=dict)
    # Nodes registered in ``statements``: kept alive so that their ids are never reused by a
    # later node, which would inherit a stale position.
    keep: list[cst.CSTNode] = field(default_factory=list)
    companion_import: CompanionImport = field(default_factory=CompanionImport)
    # What the tree pass knows of the other files (``migrator.tree``); None for a lone text.
    tree: FileFacts | None = None
    # Names imported from other files of the tree that are Module classes (``tree_classes``).
    module_classes: frozenset[str] = frozenset()
    # ids of the statements the parse produced (those no rule replaced are still these nodes).
    parsed: frozenset[int] = frozenset()

    # -- names -------------------------------------------------------------------------------
    @staticmethod
    def dotted(node: cst.CSTNode) -> str | None:
        """``a.b.c`` for a Name/Attribute chain."""
        cls = node.__class__
        if cls is _NAME:
            return node.value
        parts = []
        while cls is _ATTRIBUTE:
            parts.append(node.attr.value)
            node = node.value
            cls = node.__class__
        if cls is not _NAME:
            return None
        parts.append(node.value)
        parts.reverse()
        return ".".join(parts)

    def qualname(self, node: cst.CSTNode) -> str | None:
        """The qualified torch name a Name/Attribute chain refers to (``F.relu`` → ``torch.nn.functional.relu``)."""
        cls = node.__class__
        if cls is _NAME:
            return self.aliases.get(node.value)
        # The head first: most chains (`self.x.y`) start at a name no torch import binds.
        parts = []
        while cls is _ATTRIBUTE:
            parts.append(node.attr.value)
            node = node.value
            cls = node.__class__
        if cls is not _NAME or not parts:
            return None
        target = self.aliases.get(node.value)
        if target is None:
            return None
        parts.append(target)
        parts.reverse()
        return self_reference_dropped(".".join(parts))

    def imported_name(self, node: cst.CSTNode) -> str | None:
        """The qualified name a Name/Attribute chain refers to through the module's imports of
        other modules (``dispatch_clip_grad`` after ``from .clip_grad import dispatch_clip_grad``
        in ``timm/utils/cuda.py`` -> ``timm.utils.clip_grad.dispatch_clip_grad``)."""
        name = self.dotted(node)
        if name is None or self.tree is None:
            return None
        head, _, rest = name.partition(".")
        target = dict(self.tree.imports).get(head)
        if target is None:
            return None
        return f"{target}.{rest}" if rest else target

    def on_imported(self, node: cst.CSTNode) -> bool:
        """Whether a Name/Attribute chain starts at a name the module imports from elsewhere than
        torch (`init.normal_` after `from . import initialization as init`, `np.dot`)."""
        while isinstance(node, (cst.Attribute, cst.Subscript, cst.Call)):
            node = node.value if not isinstance(node, cst.Call) else node.func
        return (
            isinstance(node, cst.Name)
            and node.value in self.census.imported
            and node.value not in self.aliases
        )

    def is_torch_name(self, node: cst.CSTNode) -> bool:
        name = self.qualname(node)
        return name is not None and is_torch(name)

    @staticmethod
    def name(dotted_name: str) -> cst.BaseExpression:
        """Build ``mindspore.nn.Dense`` as nodes. Rules always emit fully qualified MindSpore names;
        the engine shortens them to ``nn.Dense`` and adds the imports at the end."""
        parts = dotted_name.split(".")
        node: cst.BaseExpression = cst.Name(parts[0])
        for part in parts[1:]:
            node = cst.Attribute(value=node, attr=cst.Name(part))
        return node

    def companion(self, entry: str) -> cst.BaseExpression:
        """``ms_aux.<entry>``: a companion entry, recorded so that the module imports the companion
        and the run writes the entry into it."""
        self.state.setdefault(COMPANION, set()).add(entry)
        return cst.Attribute(
            value=cst.Name(self.companion_import.module), attr=cst.Name(entry)
        )

    # -- module facts from the source text --------------------------------------------------
    def lines_with(self, word: str) -> list[int] | None:
        """The lines (1-based, sorted) whose text holds ``word``; None where lines are not
        numbered as ``ast`` numbers them (lone CR newlines). Computed once per word."""
        key = "lines_with:" + word
        cached = self.state.get(key, False)
        if cached is not False:
            return cached  # type: ignore[return-value]
        found = None
        if "\r" not in self.source.replace("\r\n", ""):
            found = [
                number
                for number, line in enumerate(self.source.split("\n"), 1)
                if word in line
            ]
        self.state[key] = found
        return found

    def untouched(self, keys: Iterable[int], lines: list[int] | None) -> frozenset[int]:
        """Those of the statement ids ``keys`` that are still as the parse made them and whose
        text holds none of ``lines``: a walk looking for what those lines name need not enter
        them."""
        if lines is None:
            return frozenset()
        skip = set()
        for key in keys:
            if key in self.parsed:
                info = self.statements[key]
                i = bisect.bisect_left(lines, info.line)
                if i == len(lines) or lines[i] > info.end_line:
                    skip.add(key)
        return frozenset(skip)

    # -- positions ---------------------------------------------------------------------------
    def position(self, node: cst.CSTNode | None = None) -> tuple[int, int]:
        """Line (1-based) and column (0-based) of a statement, else of the innermost statement
        being visited."""
        if node is not None and id(node) in self.statements:
            info = self.statements[id(node)]
            return info.line, info.column
        for statement in reversed(self.stack):
            info = self.statements.get(id(statement))
            if info is not None:
                return info.line, info.column
        return 1, 0

    def copy_position(self, new: cst.CSTNode, old: cst.CSTNode) -> None:
        """Let a statement a rule built stand at the position of the one it replaces."""
        info = self.statements.get(id(old))
        if info is not None:
            self.statements[id(new)] = StatementInfo(
                info.line, info.column, info.end_line, True
            )
            self.keep.append(new)

    # -- findings ----------------------------------------------------------------------------
    def report(
        self,
        rule: str,
        message: str,
        hint: str,
        node: cst.CSTNode | None = None,
        severity: str = ERROR,
        line: int | None = None,
        column: int | None = None,
    ) -> Finding:
        """Record a finding at ``node`` (a statement) or the statement being visited.

        Whether an API use counts as converted is decided from the output (TM900), not here."""
        at_line, at_column = self.position(node)
        finding = Finding(
            rule,
            self.path,
            line if line is not None else at_line,
            column if column is not None else at_column,
            severity,
            " ".join(message.split()),
            hint,
        )
        if finding not in self.findings:
            self.findings.append(finding)
        return finding
