"""Which names bound by torchvision imports a module still uses after the rule passes.

torchvision's names resolve like torch's so that tables can map them, but what nothing mapped must
keep working where it was imported: an import inside `try: ... except ImportError:` has to stay
there, not move to the top of the module. The import rule keeps every torchvision import that
binds a name still in use, and removes the others.
"""

from __future__ import annotations

import libcst as cst

from ...migrator.aliases import RESOLVED_PACKAGES, resolved_root
from ...migrator.context import ModuleContext
from ...migrator.engine import visit


def package_aliases(aliases: dict[str, str]) -> frozenset[str]:
    """The local names bound to a resolved torch-only package (torchvision)."""
    return frozenset(
        name
        for name, qualified in aliases.items()
        if resolved_root(qualified) in RESOLVED_PACKAGES
    )


class _Uses(cst.CSTVisitor):
    def __init__(self, names: frozenset[str]) -> None:
        self.names = names
        self.used: set[str] = set()

    def visit_Import(self, node: cst.Import) -> bool:
        return False

    def visit_ImportFrom(self, node: cst.ImportFrom) -> bool:
        return False

    def visit_Annotation(self, node: cst.Annotation) -> bool:
        # The import rule writes the torch and torchvision names of an annotation as text.
        return False

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        visit(node.value, self)
        return False

    def visit_Arg(self, node: cst.Arg) -> bool:
        visit(node.value, self)
        return False

    def visit_Param(self, node: cst.Param) -> bool:
        for part in (node.annotation, node.default):
            if part is not None:
                visit(part, self)
        return False

    def visit_Name(self, node: cst.Name) -> None:
        if node.value in self.names:
            self.used.add(node.value)


def package_names_in_use(
    module: cst.Module, aliases: dict[str, str], ctx: ModuleContext | None = None
) -> frozenset[str]:
    """The torchvision-bound names that ``module`` still reads outside its import statements.

    With ``ctx``, the module's statements the rules left as the parse made them are not entered
    where no line of theirs holds one of the names."""
    names = package_aliases(aliases)
    if not names:
        return frozenset()
    skip: frozenset[int] = frozenset()
    if ctx is not None:
        lines: set[int] = set()
        for name in names:
            found = ctx.lines_with(name)
            if found is None:
                break
            lines.update(found)
        else:
            skip = ctx.untouched(map(id, module.body), sorted(lines))
    visitor = _Uses(names)
    for statement in module.body:
        if id(statement) not in skip:
            visit(statement, visitor)
    return frozenset(visitor.used)
