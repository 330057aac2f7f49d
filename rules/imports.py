"""TM001: imports. Runs last, over what every other rule left.

- A torch import is removed once nothing uses it any more.
- A torch API that no rule converted stays on torch, spelled out in full (``torch.nn.Foo``) so that
  the name it was imported under can serve MindSpore, and each use is reported. ``import torch``
  stays at the top only when module-level code still uses it; a function whose body still uses it
  imports it itself, so the rest of the module imports and runs without torch.
- Rules emit fully qualified MindSpore names; here they become the short forms MindSpore code uses
  (``nn.Dense``, ``ops.relu``) with the matching imports, unless the module binds that name itself.
- Findings become ``# torch2ms: TMxxx message`` comments above their lines.
"""

from __future__ import annotations

import libcst as cst

from ..migrator.aliases import RESOLVED_PACKAGES, TORCH_ONLY_PACKAGES, resolved_root
from ..migrator.context import COMPANION, CONVERTED_CALLS, ModuleContext
from ..migrator.engine import visit
from ..migrator.findings import ERROR, NOTE, WARNING
from ..migrator.rule import (
    FINAL,
    Example,
    Rule,
    RuleMeta,
    define,
    register,
    rule_classes,
    torch_names_only,
)
from .api import BY_TORCH_NAME
from .companion import MODULE as COMPANION_MODULE
from .companion import entry_for
from .data.packages import package_aliases, package_names_in_use

_IMPORTS = (cst.Import, cst.ImportFrom)

# MindSpore modules and the short names their code is written with (data, not code).
SHORT_MODULES = {
    "mindspore.nn": "nn",
    "mindspore.ops": "ops",
    "mindspore.mint": "mint",
    "mindspore.amp": "amp",
    "mindspore.dataset": "ds",
    "mindspore.dataset.vision": "vision",
    "mindspore.experimental.optim": "optim",
}
# How each is imported: (from-module, name) or (None, dotted module to ``import ... as``).
IMPORT_FORMS = {
    "mindspore.nn": ("mindspore", "nn"),
    "mindspore.ops": ("mindspore", "ops"),
    "mindspore.mint": ("mindspore", "mint"),
    "mindspore.amp": ("mindspore", "amp"),
    "mindspore.experimental.optim": ("mindspore.experimental", "optim"),
    "mindspore.dataset": (None, "mindspore.dataset"),
    "mindspore.dataset.vision": (None, "mindspore.dataset.vision"),
}

UNCONVERTED = define(
    "TM900",
    "Torch API left unconverted",
    "Reports each use of a torch API that no rule converted with certainty. The use stays on torch, "
    "spelled out in full (`torch.cuda.is_available()`), and `import torch` stays with it.",
    "A rewrite that is not certain would compute something else without warning. Each remaining use "
    "counts against the conversion rate.",
    "Look the API up in MindSpore's PyTorch-MindSpore API mapping table and its difference page, "
    "and write the MindSpore call by hand.",
)
TORCH_ONLY = define(
    "TM901",
    "Package that exists only for torch",
    "Reports imports of packages built on torch (torchvision, torchaudio, lightning, ...).",
    "Their classes are torch modules and tensors; nothing in them runs on MindSpore.",
    "Use the MindSpore counterpart: `mindspore.dataset.vision` for torchvision transforms and "
    "datasets, MindSpore's model zoo (`mindcv`, `mindnlp`) for models, a plain training loop for "
    "Lightning.",
    severity=ERROR,
)
OPTIONAL_IMPORT = define(
    "TM905",
    "Optional torch import: the fallback runs",
    "Replaces `try: from torch import X` ... `except ImportError: <fallback>` by the fallback, when "
    "the `try` body only imports torch or packages built on it (and sets constants).",
    "The code already says what to do where torch is missing, and the converted program runs "
    "without torch: removing the import would leave the names it binds undefined (a module that "
    "re-exports them breaks), keeping it would fail on every import.",
    "Nothing to do; check that the fallback is what the MindSpore program should run.",
    severity=NOTE,
)
_IMPORT_ERRORS = frozenset({"ImportError", "ModuleNotFoundError", "Exception"})


@register
class ImportsRule(Rule):
    meta = RuleMeta(
        id="TM001",
        title="torch imports become MindSpore imports",
        what="Replaces `import torch` and its submodule imports (`import torch.nn as nn`, `from torch "
        "import nn, optim`, `import torch.nn.functional as F`) with the MindSpore modules the "
        "converted code uses (`import mindspore`, `from mindspore import nn, ops`). An import stays "
        "while something still uses it.",
        why="MindSpore's modules are organised like torch's: `mindspore.nn` holds the layers (Cell), "
        "`mindspore.ops` the functional operators, `mindspore.experimental.optim` the torch-style "
        "optimizers. Removing an import that is still used would break the module.",
        use_instead="`import mindspore` and `from mindspore import nn, ops`.",
        examples=(
            Example(
                before="import torch\nimport torch.nn as nn\n\nx = torch.cuda.ipc_collect()\n",
                after="import torch\n\n# torch2ms: TM900 `torch.cuda.ipc_collect` is not converted: no certain MindSpore mapping; it still runs on torch\nx = torch.cuda.ipc_collect()\n",
                findings=("TM900",),
            ),
            Example(
                before="import os\nimport torchaudio\n",
                after="import os\n# torch2ms: TM901 `torchaudio` is built on torch and has no MindSpore form\nimport torchaudio\n",
                findings=("TM901",),
            ),
        ),
        severity=WARNING,
        family="imports",
    )
    stage = FINAL
    order = 1000
    triggers = ("torch",)
    # On a file that never names torch it runs too: it writes the companion import there.
    torch_free = "always"
    # Reads imports, a `try` around them and comments above statements: all stay parsed.
    unmarked_words = ()

    def __init__(self) -> None:
        self.replace: dict[int, cst.BaseExpression] = {}
        self.ignore: set[int] = set()
        self.needed: set[str] = set()
        self.existing: dict[str, str] = {}
        self.anchor: cst.CSTNode | None = None
        self.attached: set[int] = set()
        self.leftovers = 0
        # Names bound by torchvision imports that the converted module still reads: their
        # imports stay where they are, and so do the uses.
        self.first_statement: cst.CSTNode | None = None
        self.header_rules: frozenset[str | None] = frozenset()
        self.package_names: frozenset[str] = frozenset()
        self.package_names_used: frozenset[str] = frozenset()
        self._torch_only: frozenset[str] | None = None
        self.has_companion_import = False
        # Inside an annotation a torch name that stays is written as a string: annotations are
        # evaluated where the function is defined, and torch is not there.
        self.annotation_depth = 0
        # Ids of the expressions classes are checked against (`isinstance(x, <here>)`).
        self.type_checked: set[int] = set()
        # Ids of the expressions that are called (`<here>(...)`).
        self.callees: set[int] = set()
        # Functions being visited, innermost last, with whether the walk is inside their body.
        self.functions: list[list] = []
        # The packages (torch, torchvision, ...) that leftovers still use: per function whose body
        # uses them (by id), and in module-level code.
        self.local_needs: dict[int, set[str]] = {}
        self.module_needs: set[str] = set()
        # The imports put into function bodies, by package (dropped again when module-level code
        # needs the package anyway).
        self.local_imports: dict[str, list[cst.CSTNode]] = {}
        # Leftovers inside a branch, loop, ``with`` or ``try`` of a function import their package
        # in that block, right before the statement that uses it, so that a path that never
        # reaches them (a CUDA-only branch) runs without the package. By statement id: the
        # packages, and the block (parent id, block index) the statement sits in.
        self.block_needs: dict[int, set[str]] = {}
        self.block_of: dict[int, tuple[int, int]] = {}
        self.block_done: set[tuple[tuple[int, int], str]] = set()
        # the imports put into blocks, by function id and package
        self.block_imports: dict[int, dict[str, list[cst.CSTNode]]] = {}

    # -- helpers --------------------------------------------------------------------------
    def _torch_only_names(self) -> frozenset[str]:
        if self._torch_only is None:
            names: set[str] = set()
            for cls in rule_classes():
                names |= cls.torch_only_methods
            self._torch_only = frozenset(names)
        return self._torch_only

    def _range(self, ctx: ModuleContext) -> tuple[int, int] | None:
        for statement in reversed(ctx.stack):
            info = ctx.statements.get(id(statement))
            if info is not None:
                return info.line, info.end_line
        return None

    @staticmethod
    def _in_class(ctx: ModuleContext) -> bool:
        return any(isinstance(s, cst.ClassDef) for s in ctx.stack)

    def _stands_in(self, node: cst.CSTNode, qualified: str, ctx: ModuleContext) -> bool:
        """Whether a torch name left unconverted is written as the companion's torch-only
        stand-in: where it is only checked against (`isinstance(x, DTensor)`, which no MindSpore
        value is), and where it is evaluated at import time (module level, class bodies,
        decorators, defaults), so that the module imports without torch. Called, the stand-in
        raises, naming the API."""
        if _package_of(qualified) != "torch":
            return False
        if id(node) in self.type_checked:
            return True
        if id(node) in self.callees:
            return False  # called where it stands: it runs on torch, as before
        return not (self.functions and self.functions[-1][1])

    def _stand_in(self, qualified: str, ctx: ModuleContext) -> cst.Call:
        return cst.Call(
            ctx.companion("torch_only"), [cst.Arg(cst.SimpleString(f'"{qualified}"'))]
        )

    def visit_Decorator(self, node: cst.Decorator, ctx: ModuleContext) -> None:
        self.callees.add(id(node.decorator))

    def visit_Call(self, node: cst.Call, ctx: ModuleContext) -> None:
        func = node.func
        self.callees.add(id(func))
        if (
            isinstance(func, cst.Name)
            and func.value in ("isinstance", "issubclass")
            and len(node.args) == 2
        ):
            checked = node.args[1].value
            self.type_checked.add(id(checked))
            if isinstance(checked, (cst.Tuple, cst.List, cst.Set)):
                self.type_checked.update(id(e.value) for e in checked.elements)

    def _leftover(
        self,
        ctx: ModuleContext,
        name: str,
        display: str,
        stand_in: bool = False,
        on_self: bool = False,
        checked: bool = False,
    ) -> None:
        """``on_self``: a method left unconverted on `self`, a converted Cell
        (`self.named_parameters(...)`), which no import of torch provides."""
        self.leftovers += 1
        ctx.state["leftovers"] = self.leftovers
        # In an annotation the name is written as text, and a stand-in needs no torch: nothing
        # to import.
        annotation = self.annotation_depth > 0 or stand_in
        # A resolved package's (torchvision's) imports stay where they are while its names are
        # used; torch's uses are spelled out and need `import torch` where they run.
        package = _package_of(name)
        if package not in RESOLVED_PACKAGES and not annotation and not on_self:
            if self.functions and self.functions[-1][1]:
                place = _block_place(ctx.stack, self.functions[-1][0])
                if place is None:
                    self.local_needs.setdefault(id(self.functions[-1][0]), set()).add(
                        package
                    )
                else:
                    statement, block = place
                    self.block_needs.setdefault(id(statement), set()).add(package)
                    self.block_of[id(statement)] = block
            else:
                place = _module_block_place(ctx.stack)
                if place is None:
                    self.module_needs.add(package)
                else:
                    # Under a module-level `if`/`try`/`for`/`with`: imported in that block, so a
                    # guard that answers False (a probe for a torch-only feature) skips it.
                    statement, block = place
                    self.block_needs.setdefault(id(statement), set()).add(package)
                    self.block_of[id(statement)] = block
        span = self._range(ctx)
        line = column = None
        if span is not None:
            use = ctx.census.take(span[0], span[1], name)
            if use is not None:
                line, column = use.line, use.column
        at = line if line is not None else ctx.position()[0]
        # Another finding that leaves this line untranslated already explains the leftover.
        if any(
            f.line == at and f.rule not in ("TM900", "TM901") and f.severity == ERROR
            for f in ctx.findings
        ):
            return
        if package in RESOLVED_PACKAGES and not annotation:
            ctx.report(
                "TM901",
                f"`{display}` is built on torch and has no MindSpore form; it still runs on "
                f"`{package}`, whose import stays",
                TORCH_ONLY.use_instead,
                line=line,
                column=column,
            )
            return
        call_form = (
            None
            if self.annotation_depth
            else entry_for(name, ctx.options.target, call=True)
        )
        if call_form is not None and entry_for(name, ctx.options.target) is None:
            ctx.report(
                "TM900",
                f"`{display}` converts where it is called (`{COMPANION_MODULE}.{call_form}"
                "(...)`), but here it is used as a type or a value, and MindSpore has no class "
                "for it: one `mindspore.Tensor` class holds every dtype, and shapes are plain "
                "tuples"
                + (
                    f"; `{COMPANION_MODULE}.torch_only` stands in here, and no value is an "
                    "instance of it"
                    if stand_in
                    else ""
                ),
                "test the value itself: `isinstance(x, mindspore.Tensor) and x.dtype == "
                "mindspore.int64` for a typed tensor class, `isinstance(s, tuple)` for a shape",
                line=line,
                column=column,
            )
            return
        severity = ERROR
        if stand_in and checked:
            # No value of the converted program is an instance of a torch-only class.
            message = (
                f"`{display}` is torch-only; in this type check `ms_aux.torch_only` stands in "
                "for it, and no value of the converted program is an instance of it, so the "
                "check is False"
            )
            severity = WARNING
        elif stand_in:
            message = (
                f"`{display}` is not converted: torch-only; `ms_aux.torch_only` stands in "
                "for it (no value is an instance of it; calling it raises)"
            )
        elif annotation:
            message = (
                f"`{display}` in an annotation has no MindSpore type; it stays as text"
            )
        else:
            message = f"`{display}` is not converted: no certain MindSpore mapping; it still runs on torch"
        ctx.report(
            "TM900",
            message,
            _table_note(name) or UNCONVERTED.use_instead,
            line=line,
            column=column,
            severity=severity,
        )

    def _shorten(self, ctx: ModuleContext, name: str) -> cst.BaseExpression:
        best = None
        for module in SHORT_MODULES:
            if (name == module or name.startswith(module + ".")) and (
                best is None or len(module) > len(best)
            ):
                best = module
        if best is not None:
            short = SHORT_MODULES[best]
            if short not in ctx.bound_names or self.existing.get(short) == best:
                self.needed.add(best)
                return ctx.name(short + name[len(best) :])
        self.needed.add("mindspore")
        return ctx.name(name)

    # -- imports --------------------------------------------------------------------------
    def visit_Module(self, node: cst.Module, ctx: ModuleContext) -> None:
        self.first_statement = node.body[0] if node.body else None
        self.header_rules = frozenset(
            _comment_rule(line.comment.value)
            for line in node.header
            if line.comment is not None
        )
        self.package_names = package_aliases(ctx.aliases)
        if self.package_names:
            self.package_names_used = package_names_in_use(node, ctx.aliases, ctx)
        companion = ctx.companion_import.module
        for statement in node.body:
            if not isinstance(statement, cst.SimpleStatementLine):
                continue
            for small in statement.body:
                if isinstance(small, (cst.Import, cst.ImportFrom)) and any(
                    isinstance(a, cst.ImportAlias)
                    and ctx.dotted(a.name) == companion
                    and a.asname is None
                    for a in (
                        small.names
                        if not isinstance(small.names, cst.ImportStar)
                        else ()
                    )
                ):
                    self.has_companion_import = True
                if isinstance(small, cst.Import):
                    for alias in small.names:
                        name = ctx.dotted(alias.name)
                        if name and name.startswith("mindspore"):
                            local = (
                                alias.asname.name.value
                                if alias.asname
                                else name.split(".")[0]
                            )
                            self.existing[local] = name if alias.asname else "mindspore"
                elif isinstance(small, cst.ImportFrom) and small.module is not None:
                    module = ctx.dotted(small.module)
                    if (
                        module
                        and module.startswith("mindspore")
                        and not isinstance(small.names, cst.ImportStar)
                    ):
                        for alias in small.names:
                            local = (
                                alias.asname.name.value
                                if alias.asname
                                else alias.name.value
                            )
                            self.existing[local] = f"{module}.{alias.name.value}"

    def visit_Import(self, node: cst.Import, ctx: ModuleContext) -> bool:
        return False

    def visit_ImportFrom(self, node: cst.ImportFrom, ctx: ModuleContext) -> bool:
        return False

    def _is_torch_import(
        self, small: cst.BaseSmallStatement, ctx: ModuleContext
    ) -> bool:
        if isinstance(small, cst.Import):
            return all(
                resolved_root(ctx.dotted(a.name) or "") is not None
                and not self._binds_used_package_name(a, ctx)
                for a in small.names
            )
        if (
            isinstance(small, cst.ImportFrom)
            and small.module is not None
            and not small.relative
        ):
            if resolved_root(ctx.dotted(small.module) or "") is None:
                return False
            return isinstance(small.names, cst.ImportStar) or not any(
                self._binds_used_package_name(a, ctx) for a in small.names
            )
        return False

    def _binds_used_package_name(
        self, alias: cst.ImportAlias, ctx: ModuleContext
    ) -> bool:
        if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
            bound = alias.asname.name.value
        else:
            bound = (ctx.dotted(alias.name) or "").split(".")[0]
        return bound in self.package_names_used

    def _torch_only_import(
        self, small: cst.BaseSmallStatement, ctx: ModuleContext
    ) -> str | None:
        if isinstance(small, cst.Import):
            for alias in small.names:
                root = (ctx.dotted(alias.name) or "").split(".")[0]
                if root in TORCH_ONLY_PACKAGES:
                    return root
        if (
            isinstance(small, cst.ImportFrom)
            and small.module is not None
            and not small.relative
        ):
            root = (ctx.dotted(small.module) or "").split(".")[0]
            if root in TORCH_ONLY_PACKAGES:
                return root
        return None

    def _unused_package_names_dropped(self, small, ctx: ModuleContext):
        """``from torchvision.x import A, B`` keeps only the names still in use."""
        if (
            not isinstance(small, cst.ImportFrom)
            or small.module is None
            or small.relative
            or isinstance(small.names, cst.ImportStar)
            or resolved_root(ctx.dotted(small.module) or "") not in RESOLVED_PACKAGES
        ):
            return small
        used = [a for a in small.names if self._binds_used_package_name(a, ctx)]
        if not used or len(used) == len(small.names):
            return small
        used[-1] = used[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        return small.with_changes(names=used)

    def leave_SimpleStatementLine(self, original, updated, ctx: ModuleContext):
        return self._with_block_import(
            original, self._leave_simple(original, updated, ctx)
        )

    def _with_block_import(self, original, result):
        """``result`` preceded by ``import <package>`` for each package its statement uses that
        its block has not imported yet."""
        packages = self.block_needs.get(id(original))
        if not packages or not _is_node(result):
            return result
        block = self.block_of[id(original)]
        function = self.functions[-1][0] if self.functions else None
        imports = []
        for package in sorted(packages):
            if (block, package) in self.block_done:
                continue
            self.block_done.add((block, package))
            statement = _import(package)
            imports.append(statement)
            self.local_imports.setdefault(package, []).append(statement)
            if function is not None:
                self.block_imports.setdefault(id(function), {}).setdefault(
                    package, []
                ).append(statement)
        if not imports:
            return result
        return cst.FlattenSentinel([*imports, result])

    def _leave_simple(self, original, updated, ctx: ModuleContext):
        kept = []
        removed = False
        for small in updated.body:
            if not isinstance(small, _IMPORTS):
                kept.append(small)  # the checks below look at imports only
                continue
            small = self._unused_package_names_dropped(small, ctx)
            if self._is_torch_import(small, ctx):
                removed = True
                continue
            package = self._torch_only_import(small, ctx)
            if package is not None:
                ctx.report(
                    "TM901",
                    f"`{package}` is built on torch and has no MindSpore form",
                    TORCH_ONLY.use_instead,
                )
            kept.append(small)
        if not removed and any(a is not b for a, b in zip(kept, updated.body)):
            updated = updated.with_changes(body=kept)
        if removed:
            ctx.applied.add("TM001")
            top_level = len(ctx.stack) == 1
            if kept:
                last = kept[-1]
                if (
                    isinstance(last, (cst.Import, cst.ImportFrom, cst.Expr))
                    and last.semicolon != cst.MaybeSentinel.DEFAULT
                ):
                    kept[-1] = last.with_changes(semicolon=cst.MaybeSentinel.DEFAULT)
                updated = updated.with_changes(body=kept)
            elif top_level and self.anchor is None:
                updated = updated.with_changes(body=[cst.Pass()])
            else:
                self._attach(original, updated, ctx)
                return cst.RemoveFromParent()
            if top_level and self.anchor is None:
                updated = self._attach(original, updated, ctx)
                self.anchor = updated
                return updated
        return self._attach(original, updated, ctx)

    # -- names ----------------------------------------------------------------------------
    def visit_Attribute(self, node: cst.Attribute, ctx: ModuleContext) -> bool:
        name = ctx.dotted(node)
        if name is None:
            self.ignore.add(id(node.attr))
            return True
        head = name.split(".")[0]
        if head in ctx.aliases:
            qualified = ctx.qualname(node)
            if self.annotation_depth:
                self.replace[id(node)] = _annotation_text(qualified)
            elif self._stands_in(node, qualified, ctx):
                self.replace[id(node)] = self._stand_in(qualified, ctx)
                self._leftover(
                    ctx,
                    qualified,
                    qualified,
                    stand_in=True,
                    checked=id(node) in self.type_checked,
                )
                return False
            elif head not in self.package_names:
                self.replace[id(node)] = ctx.name(qualified)
            self._leftover(ctx, qualified, qualified)
        elif head == "mindspore" and head not in ctx.aliases:
            self.replace[id(node)] = self._shorten(ctx, name)
        return False

    def leave_Attribute(self, original, updated, ctx: ModuleContext):
        return self.replace.get(id(original), updated)

    def visit_Annotation(self, node: cst.Annotation, ctx: ModuleContext) -> None:
        self.annotation_depth += 1

    def leave_Annotation(self, original, updated, ctx: ModuleContext):
        self.annotation_depth -= 1
        if updated is original:
            return updated  # no torch name inside became text
        return _whole_text(updated)

    def visit_Name(self, node: cst.Name, ctx: ModuleContext) -> None:
        if id(node) in self.ignore:
            return
        if node.value in ctx.aliases:
            qualified = ctx.aliases[node.value]
            if qualified in RESOLVED_PACKAGES:
                return  # the module object itself (`torchvision is None`): no API used
            if self.annotation_depth:
                self.replace[id(node)] = _annotation_text(qualified)
            elif qualified != "torch" and self._stands_in(node, qualified, ctx):
                self.replace[id(node)] = self._stand_in(qualified, ctx)
                self._leftover(
                    ctx,
                    qualified,
                    qualified,
                    stand_in=True,
                    checked=id(node) in self.type_checked,
                )
                return
            elif node.value not in self.package_names:
                self.replace[id(node)] = ctx.name(qualified)
            self._leftover(ctx, qualified, qualified)
        elif node.value == "mindspore":
            self.needed.add("mindspore")

    @torch_names_only
    def leave_Name(self, original, updated, ctx: ModuleContext):
        return self.replace.get(id(original), updated)

    def visit_Arg(self, node: cst.Arg, ctx: ModuleContext) -> None:
        if node.keyword is not None:
            self.ignore.add(id(node.keyword))

    def visit_Param(self, node: cst.Param, ctx: ModuleContext) -> None:
        self.ignore.add(id(node.name))

    # A name bound here (an import's fallback: `ParamsT: TypeAlias = ...`) is the module's own.
    def visit_AssignTarget(self, node: cst.AssignTarget, ctx: ModuleContext) -> None:
        if isinstance(node.target, cst.Name):
            self.ignore.add(id(node.target))

    def visit_AnnAssign(self, node: cst.AnnAssign, ctx: ModuleContext) -> None:
        if isinstance(node.target, cst.Name):
            self.ignore.add(id(node.target))

    def visit_FunctionDef(self, node: cst.FunctionDef, ctx: ModuleContext) -> None:
        self.ignore.add(id(node.name))
        self.functions.append([node, False])

    # Decorators, defaults and annotations run where the function is defined; only its body runs
    # when it is called.
    def visit_IndentedBlock(self, node: cst.IndentedBlock, ctx: ModuleContext) -> None:
        if self.functions and self.functions[-1][0].body is node:
            self.functions[-1][1] = True

    def visit_SimpleStatementSuite(
        self, node: cst.SimpleStatementSuite, ctx: ModuleContext
    ) -> None:
        if self.functions and self.functions[-1][0].body is node:
            self.functions[-1][1] = True

    def visit_ClassDef(self, node: cst.ClassDef, ctx: ModuleContext) -> None:
        self.ignore.add(id(node.name))

    def leave_Call(self, original, updated, ctx: ModuleContext):
        func = updated.func
        # In a file that imports no torch, methods are its values' own.
        if not ctx.aliases:
            return updated
        if (
            isinstance(func, cst.Attribute)
            and func.attr.value in self._torch_only_names()
            and id(original) not in ctx.state.get(CONVERTED_CALLS, ())
        ):
            base = ctx.dotted(func.value)
            if base == ctx.companion_import.module:
                return updated  # the companion's function of that name
            if base is None or not base.startswith(("mindspore", "ops", "nn", "mint")):
                self._leftover(
                    ctx,
                    "." + func.attr.value,
                    "." + func.attr.value + "()",
                    on_self=base == "self" and self.functions and self._in_class(ctx),
                )
        return updated

    # -- comments and the import block ----------------------------------------------------
    def _attach(self, original: cst.CSTNode, updated: cst.CSTNode, ctx: ModuleContext):
        if not ctx.findings:
            return updated
        info = ctx.statements.get(id(original))
        if info is None:
            return updated
        return self._with_comments(
            updated,
            [f for f in ctx.findings if info.line <= f.line <= info.end_line],
            ctx,
            self.header_rules if original is self.first_statement else frozenset(),
        )

    def _with_comments(
        self, updated, findings, ctx: ModuleContext, header_rules=frozenset()
    ):
        fresh = [f for f in findings if id(f) not in self.attached]
        if not fresh or not hasattr(updated, "leading_lines"):
            return updated
        # One comment per rule id above a statement: a second conversion may word a finding
        # differently (it sees the first one's output), and must not add a comment for it.
        present = {
            _comment_rule(line.comment.value)
            for line in updated.leading_lines
            if line.comment is not None
        } | set(header_rules)  # comments above the first statement parse as the header
        lines = list(updated.leading_lines)
        for finding in fresh:
            self.attached.add(id(finding))
            if finding.rule not in present:
                present.add(finding.rule)
                lines.append(
                    cst.EmptyLine(indent=True, comment=cst.Comment(finding.comment()))
                )
        return updated.with_changes(leading_lines=lines)

    def _leave_compound(self, original, updated, ctx: ModuleContext):
        return self._with_block_import(original, self._attach(original, updated, ctx))

    def leave_FunctionDef(self, original, updated, ctx: ModuleContext):
        if self.functions and self.functions[-1][0] is original:
            self.functions.pop()
        top = self.local_needs.get(id(original), set())
        # A package imported at the top of the body makes its block imports redundant.
        redundant = [
            node
            for package, nodes in self.block_imports.pop(id(original), {}).items()
            if package in top
            for node in nodes
        ]
        if redundant:
            updated = updated.visit(_DropStatements(redundant))
        for package in sorted(top, reverse=True):
            updated = _import_in_body(
                updated, package, self.local_imports.setdefault(package, [])
            )
        return self._with_block_import(original, self._attach(original, updated, ctx))

    leave_ClassDef = leave_For = leave_While = leave_If = _leave_compound

    def leave_Try(self, original: cst.Try, updated, ctx: ModuleContext):
        fallback = self._fallback(original, ctx)
        if fallback is None:
            return self._with_block_import(
                original, self._attach(original, updated, ctx)
            )
        ctx.applied.add("TM001")
        info = ctx.statements.get(id(original))
        if info is not None:
            # The imports it reported are gone with the `try`. The findings are kept alive: the
            # ids of attached findings must not be reused by new ones.
            gone = [
                f
                for f in ctx.findings
                if f.rule == "TM901" and info.line <= f.line <= info.end_line
            ]
            ctx.keep.extend(gone)
            ctx.findings[:] = [f for f in ctx.findings if f not in gone]
        ctx.report(
            OPTIONAL_IMPORT.id,
            "torch is imported optionally here; the converted program runs the "
            "`except ImportError` fallback",
            OPTIONAL_IMPORT.use_instead,
            node=original,
            severity=NOTE,
        )
        statements = [
            *fallback.body.body,
            *(original.finalbody.body.body if original.finalbody else ()),
        ]
        first = statements[0].with_changes(
            leading_lines=[*original.leading_lines, *statements[0].leading_lines]
        )
        first = self._attach(original, first, ctx)
        return cst.FlattenSentinel([first, *statements[1:]])

    def _imports_torch_anywhere(self, block: cst.BaseSuite, ctx: ModuleContext) -> bool:
        """Whether a fallback imports torch too (then it is no fallback from torch)."""
        return any(
            self._is_torch_import(small, ctx) or self._torch_only_import(small, ctx)
            for statement in getattr(block, "body", ())
            if isinstance(statement, cst.SimpleStatementLine)
            for small in statement.body
        )

    def _fallback(self, node: cst.Try, ctx: ModuleContext) -> cst.ExceptHandler | None:
        """The handler that runs where torch is missing, when the `try` only imports torch."""
        if node.orelse is not None or node.finalbody is not None:
            return None
        imports_torch = False
        for statement in node.body.body:
            if not isinstance(statement, cst.SimpleStatementLine):
                return None
            for small in statement.body:
                if _converted_package_import(small, ctx):
                    # What it imports exists in the converted program: the `try` body runs.
                    return None
                if self._is_torch_import(small, ctx) or self._torch_only_import(
                    small, ctx
                ):
                    imports_torch = True
                elif not (
                    isinstance(small, cst.Assign)
                    and isinstance(
                        small.value, (cst.Name, cst.SimpleString, cst.Integer)
                    )
                ):
                    return None
        if not imports_torch:
            return None
        for handler in node.handlers:
            caught = handler.type
            names = (
                [e.value for e in caught.elements]
                if isinstance(caught, cst.Tuple)
                else [caught]
            )
            if (
                any(
                    isinstance(n, cst.Name) and n.value in _IMPORT_ERRORS for n in names
                )
                and isinstance(handler.body, cst.IndentedBlock)
                and not self._imports_torch_anywhere(handler.body, ctx)
            ):
                return handler
        return None

    leave_TryStar = leave_With = leave_Match = _leave_compound

    def leave_Module(self, original, updated: cst.Module, ctx: ModuleContext):
        body = list(updated.body)
        block = self._import_block(ctx)
        if block:
            if self.anchor is not None and any(s is self.anchor for s in body):
                at = next(i for i, s in enumerate(body) if s is self.anchor)
                anchor = body[at]
                block[0] = block[0].with_changes(leading_lines=anchor.leading_lines)
                rest = [s for s in anchor.body if not isinstance(s, cst.Pass)]
                tail = (
                    [anchor.with_changes(body=rest, leading_lines=())] if rest else []
                )
                body[at : at + 1] = block + tail
            else:
                at = _after_preamble(body)
                body[at:at] = block
        elif self.anchor is not None:
            body = [
                s
                for s in body
                if s is not self.anchor
                or any(not isinstance(x, cst.Pass) for x in s.body)
            ]
        # Findings whose statement is gone go above the next top-level statement.
        rest = [f for f in ctx.findings if id(f) not in self.attached]
        if rest and body:
            for finding in rest:
                target = len(body) - 1
                for i, statement in enumerate(original.body):
                    info = ctx.statements.get(id(statement))
                    if info is not None and info.line >= finding.line:
                        target = min(i, len(body) - 1)
                        break
                body[target] = self._with_comments(body[target], [finding], ctx)
        updated = updated.with_changes(body=body)
        redundant = [
            node
            for package in self.module_needs
            for node in self.local_imports.get(package, ())
        ]
        if redundant:
            updated = updated.visit(_DropStatements(redundant))
        return updated

    def _import_block(self, ctx: ModuleContext) -> list[cst.SimpleStatementLine]:
        statements: list[cst.SimpleStatementLine] = [
            # Standard-library modules a rule's output uses (`functools.partial`).
            _import(module)
            for module in sorted(ctx.state.get("python_imports", ()))
        ]
        needed = {
            m for m in self.needed if self.existing.get(SHORT_MODULES.get(m, m)) != m
        }
        if "mindspore" in needed and "mindspore" not in self.existing:
            statements.append(_import("mindspore"))
        froms: dict[str, list[str]] = {}
        for module in sorted(needed - {"mindspore"}):
            source, name = IMPORT_FORMS[module]
            if source is None:
                statements.append(_import(name, SHORT_MODULES[module]))
            else:
                froms.setdefault(source, []).append(name)
        for source, names in sorted(froms.items()):
            statements.append(
                cst.SimpleStatementLine(
                    [
                        cst.ImportFrom(
                            module=ctx.name(source),
                            names=[cst.ImportAlias(cst.Name(n)) for n in sorted(names)],
                        )
                    ]
                )
            )
        if ctx.state.get(COMPANION) and not self.has_companion_import:
            statements.append(_companion_import(ctx))
        for package in sorted(self.module_needs):
            statements.append(_import(package))
        return statements


def _table_note(name: str) -> str:
    """What the API table says to write by hand for a torch name it leaves as it is."""
    from .api import BY_TORCH_NAME

    mapping = BY_TORCH_NAME.get(name)
    return mapping.note if mapping is not None and not mapping.translatable else ""


def _comment_rule(comment: str) -> str | None:
    """``TM910`` for a ``# torch2ms: TM910 ...`` comment."""
    prefix = "# torch2ms: "
    return (
        comment[len(prefix) :].split(" ", 1)[0] if comment.startswith(prefix) else None
    )


def _import(dotted: str, asname: str | None = None) -> cst.SimpleStatementLine:
    alias = cst.ImportAlias(
        name=ModuleContext.name(dotted),  # type: ignore[arg-type]
        asname=cst.AsName(cst.Name(asname)) if asname else None,
    )
    return cst.SimpleStatementLine([cst.Import(names=[alias])])


class _DropStatements(cst.CSTTransformer):
    def __init__(self, nodes: list[cst.CSTNode]) -> None:
        super().__init__()
        self.ids = {id(n) for n in nodes}

    def leave_SimpleStatementLine(self, original, updated):
        if id(original) in self.ids:
            return cst.RemoveFromParent()
        return updated

    def leave_SimpleStatementSuite(self, original, updated):
        kept = [s for s in updated.body if id(s) not in self.ids]
        return (
            updated.with_changes(body=kept)
            if len(kept) != len(updated.body)
            else updated
        )


def _annotation_text(qualified: str) -> cst.SimpleString:
    """`Optional["torch.Generator"]`: the type named as text, which nothing evaluates."""
    return _AnnotationText(f'"{qualified}"')


class _AnnotationText(cst.SimpleString):
    """A torch name written as text in an annotation (told apart from the user's strings)."""


class _Unquote(cst.CSTTransformer):
    def on_leave(self, original, updated):
        if isinstance(original, _AnnotationText):
            return cst.parse_expression(original.value[1:-1])
        return updated


class _AnnotationParts(cst.CSTVisitor):
    """Whether an annotation joins types with `|`, and whether a torch name in it became text."""

    def __init__(self) -> None:
        super().__init__()
        self.union = False
        self.text = False

    def on_visit(self, node: cst.CSTNode) -> bool:
        if isinstance(node, cst.BinaryOperation) and isinstance(
            node.operator, cst.BitOr
        ):
            self.union = True
        elif isinstance(node, _AnnotationText):
            self.text = True
        return True


def _whole_text(annotation: cst.Annotation) -> cst.Annotation:
    """`"torch.Generator | None"`: an annotation whose torch names became text is written as
    text whole when it joins types with `|`, since `"torch.Generator" | None` fails where the
    function is defined."""
    expr = annotation.annotation
    if isinstance(expr, cst.SimpleString):
        return annotation
    parts = _AnnotationParts()
    visit(expr, parts)
    if not parts.union or not parts.text:
        return annotation
    code = cst.Module([]).code_for_node(expr.visit(_Unquote()))
    quote = next((q for q in ('"', "'") if q not in code), None)
    if quote is None or "\n" in code:
        return annotation
    return annotation.with_changes(annotation=cst.SimpleString(quote + code + quote))


def _package_of(name: str) -> str:
    """The package a leftover API lives in: ``torch``, or a package built on it."""
    root = name.split(".")[0]
    return root if root in TORCH_ONLY_PACKAGES else "torch"


def _is_node(result) -> bool:
    return isinstance(result, cst.CSTNode)


def _block_place(
    stack: list, function: cst.FunctionDef
) -> tuple[cst.CSTNode, tuple[int, int]] | None:
    """Where a leftover under ``function`` imports its package: the statement that holds it,
    climbing out of ``elif`` headers, and the block that statement sits in; None when that is
    the function's own body (or the walk cannot tell), which imports at the top of the body."""
    from .training.gradstate import child_blocks

    try:
        at = max(i for i, node in enumerate(stack) if node is function)
    except ValueError:
        return None
    index = len(stack) - 1
    while index > at + 1:
        statement, parent = stack[index], stack[index - 1]
        for number, block in enumerate(child_blocks(parent)):
            if any(s is statement for s in block) and not (
                isinstance(parent, cst.If) and parent.orelse is statement
            ):
                return statement, (id(parent), number)
        index -= 1
    return None


_GUARDS = (cst.If, cst.Try, cst.TryStar, cst.For, cst.While, cst.With)


def _module_block_place(stack: list) -> tuple[cst.CSTNode, tuple[int, int]] | None:
    """Where a leftover in module-level code (outside function bodies) imports its package: the
    statement that holds it and the block of a module-level `if`/`try`/`for`/`with` that
    statement sits in, climbing out of ``elif`` headers and class bodies; None at the top level."""
    from .training.gradstate import child_blocks

    for index in range(len(stack) - 1, 0, -1):
        statement, parent = stack[index], stack[index - 1]
        if not isinstance(parent, _GUARDS):
            continue
        for number, block in enumerate(child_blocks(parent)):
            if any(s is statement for s in block) and not (
                isinstance(parent, cst.If) and parent.orelse is statement
            ):
                return statement, (id(parent), number)
    return None


def _import_in_body(
    function: cst.FunctionDef, package: str, added: list
) -> cst.FunctionDef:
    """``function`` with ``import <package>`` as the first statement of its body (after a
    docstring); the statement is appended to ``added``."""
    statement = _import(package)
    body = function.body
    if isinstance(body, cst.SimpleStatementSuite):
        if any(_imports_plainly(small, package) for small in body.body):
            return function
        # `def f(x): import torch; return torch.op(x)`: the body stays on its line.
        small = statement.body[0].with_changes(
            semicolon=cst.Semicolon(whitespace_after=cst.SimpleWhitespace(" "))
        )
        added.append(small)
        return function.with_changes(body=body.with_changes(body=[small, *body.body]))
    statements = list(body.body)
    at = 0
    if statements and _is_docstring(statements[0]):
        at = 1
    statements.insert(at, statement)
    added.append(statement)
    return function.with_changes(body=body.with_changes(body=statements))


def _imports_plainly(small: cst.BaseSmallStatement, package: str) -> bool:
    return (
        isinstance(small, cst.Import)
        and len(small.names) == 1
        and ModuleContext.dotted(small.names[0].name) == package
        and small.names[0].asname is None
    )


def _is_docstring(statement: cst.CSTNode) -> bool:
    return (
        isinstance(statement, cst.SimpleStatementLine)
        and len(statement.body) == 1
        and isinstance(statement.body[0], cst.Expr)
        and isinstance(
            statement.body[0].value, (cst.SimpleString, cst.ConcatenatedString)
        )
    )


def _companion_import(ctx: ModuleContext) -> cst.SimpleStatementLine:
    """``from .. import ms_aux`` in a package, ``import ms_aux`` beside a script."""
    spec = ctx.companion_import
    if spec.dots == 0:
        return _import(spec.module)
    return cst.SimpleStatementLine(
        [
            cst.ImportFrom(
                module=None,
                relative=[cst.Dot()] * spec.dots,
                names=[cst.ImportAlias(cst.Name(spec.module))],
            )
        ]
    )


def _after_preamble(body: list) -> int:
    """Index after the module docstring and ``from __future__`` imports."""
    at = 0
    for i, statement in enumerate(body):
        if not isinstance(statement, cst.SimpleStatementLine):
            break
        small = statement.body[0] if statement.body else None
        if (
            i == 0
            and isinstance(small, cst.Expr)
            and isinstance(small.value, (cst.SimpleString, cst.ConcatenatedString))
        ):
            at = i + 1
            continue
        if (
            isinstance(small, cst.ImportFrom)
            and small.module is not None
            and ModuleContext.dotted(small.module) == "__future__"
        ):
            at = i + 1
            continue
        break
    return at


def _converted_package_import(
    small: cst.BaseSmallStatement, ctx: ModuleContext
) -> bool:
    """``from torchvision.x import A`` where the conversion maps every name imported (the name
    stands for its MindSpore form or companion entry wherever it is used)."""
    if not (
        isinstance(small, cst.ImportFrom)
        and small.module is not None
        and not small.relative
        and not isinstance(small.names, cst.ImportStar)
    ):
        return False
    module = ctx.dotted(small.module) or ""
    if module.split(".")[0] not in RESOLVED_PACKAGES:
        return False
    return all(
        f"{module}.{alias.name.value}" in BY_TORCH_NAME
        or entry_for(f"{module}.{alias.name.value}", ctx.options.target) is not None
        for alias in small.names
        if isinstance(alias.name, cst.Name)
    )
