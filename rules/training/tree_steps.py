"""Step helpers of other files of the tree, summarised for the calls in this one.

The tree pass (``migrator.tree``) hands each file the helpers it imports from other files of the
tree, and the parameters whose callers all pass one loss-scaler class (a helper class of the tree,
or a library step class kept as data). Their summaries are made here from the helper's own text,
with names resolved through the imports of the file that defines it, so a call site in this file
is rewritten from them exactly as a call of a helper of its own.

A helper and its calls change together: the defining file rewrites the helper to take gradients
only while every call in every file is rewritten, and a library scaler's construction becomes
MindSpore's only while every call of it is. Each file records, for each such *coupled* key,
whether it converted its part; the run converts again, with the key kept, the files that did
while another did not.
"""

from __future__ import annotations

import libcst as cst

from ...migrator.context import ModuleContext
from .summaries import StepSummary, Summaries, body_of, summarize_one

COUPLED = "tree.coupled"


class _ForeignContext:
    """Name resolution inside a helper of another file: through that file's imports."""

    def __init__(
        self,
        imports: dict[str, str],
        module: str | None = None,
        grad_readers: frozenset[str] = frozenset(),
    ) -> None:
        self.imports = imports
        self.module = module  # the module that defines the helper
        self.grad_readers = grad_readers

    dotted = staticmethod(ModuleContext.dotted)

    def qualname(self, node: cst.CSTNode) -> str | None:
        name = ModuleContext.dotted(node)
        if name is None:
            return None
        head, dot, rest = name.partition(".")
        target = self.imports.get(head)
        if target is None:
            return None
        return target + dot + rest

    imported_name = qualname


_CACHE: dict[tuple, tuple[StepSummary | None, str | None]] = {}


def foreign_summary(
    helper, grad_readers: frozenset[str] = frozenset()
) -> tuple[StepSummary | None, str | None]:
    """The summary of a helper of another file (or why it has none)."""
    cached = _CACHE.get((helper.key, helper.source, grad_readers))
    if cached is not None:
        return cached
    try:
        parsed = cst.parse_module(helper.source).body[0]
    except cst.ParserSyntaxError:
        return None, None
    found = Summaries()
    module = helper.key.rsplit(".", 1)[0] if "." in helper.key else None
    context = _ForeignContext(dict(helper.imports), module, grad_readers)
    if isinstance(parsed, cst.ClassDef):
        method = next(
            (
                s
                for s in body_of(parsed)
                if isinstance(s, cst.FunctionDef) and s.name.value == "__call__"
            ),
            None,
        )
        qualname = f"{helper.name}.__call__"
        if method is not None:
            summarize_one(qualname, method, helper.name, found, context)
        summary = found.callables.get(helper.name)
    elif isinstance(parsed, cst.FunctionDef):
        qualname = helper.name
        summarize_one(qualname, parsed, None, found, context)
        summary = found.functions.get(helper.name)
    else:
        return None, None
    if summary is not None:
        summary.key = helper.key
        summary.foreign = True
    result = (summary, found.failures.get(qualname))
    _CACHE[(helper.key, helper.source, grad_readers)] = result
    return result


def add_foreign(found: Summaries, ctx: ModuleContext) -> None:
    """Add to ``found`` what the tree pass knows: helpers of other files, scaler parameters."""
    from .library_steps import library_summary

    facts = ctx.tree
    imports = dict(facts.imports)
    found.uncertain.update(dict(facts.uncertain))
    for name, kind in facts.library_params:
        summary = library_summary(kind.split(":", 1)[1], ctx)
        if summary is not None:
            found.library_instances[name] = summary
    for local, helper in facts.helpers:
        summary, failure = foreign_summary(helper, facts.grad_readers)
        imported = local in imports
        if helper.kind == "class":
            qualname = f"{helper.name}.__call__"
            if imported:
                found.foreign_classes.add(local)
                alias = local
            else:
                found.instances[local] = helper.name
                alias = helper.name
            if summary is not None:
                found.callables[alias] = summary
            elif failure is not None:
                found.failures[qualname] = f"{failure} (in {helper.path})"
                if not imported:
                    found.instances[local] = helper.name
        elif imported:
            if summary is not None:
                found.functions[local] = summary
            elif failure is not None:
                found.failures[local] = f"{failure} (in {helper.path})"


def kept_reason(ctx: ModuleContext, key: str | None) -> str | None:
    if key is None or ctx.tree is None:
        return None
    return dict(ctx.tree.kept).get(key)


def record(ctx: ModuleContext, key: str | None, reason: str | None) -> None:
    """Whether this file converted its part of a coupled key (None) or not (why)."""
    if key is None or ctx.tree is None or key not in ctx.tree.coupled:
        return
    status = ctx.state.setdefault(COUPLED, {})
    if key not in status or status[key] is None:
        status[key] = reason
