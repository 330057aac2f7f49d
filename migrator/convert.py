"""Convert one module's source text: parse, resolve torch aliases, run the rule stages, check."""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field

import libcst as cst

from ..rules.companion import is_companion
from ..rules.nn.facts import facts as nn_facts
from .aliases import TORCH_ONLY_PACKAGES, torch_aliases
from .context import COMPANION, PARSED, CompanionImport, ModuleContext, Options
from .engine import module_code, parse_module, read_as_source, run_stage
from .findings import ERROR, Finding
from .index import Census, Opaque, census, index_statements
from .opaque import PLACEHOLDER, NeedsNodes, OpaqueLeak, reduce_source
from .rule import GRADIENT, STAGES, define, rule_classes, unmarked_words
from .tree import FileFacts

# ``ctx.state`` key the training rules record coupled keys under (``rules.training.tree_steps``).
COUPLED = "tree.coupled"

PARSE_ERROR = define(
    "TM000",
    "Input could not be read or parsed",
    "Reports a file that is not valid Python 3 text (a syntax error, Python 2 code, undecodable bytes).",
    "Nothing can be converted with certainty in a file that does not parse; it is copied unchanged.",
    "Fix the file so that `python -m py_compile` accepts it, then convert it again.",
)
INTERNAL_ERROR = define(
    "TM999",
    "Internal error: a rule produced invalid code",
    "Reports a file whose conversion did not compile; the file is left unconverted.",
    "The output of torch2ms must always be valid Python, so a failed rewrite is never written.",
    "Convert the file by hand, and report the case to the torch2ms maintainers.",
)


@dataclass
class Result:
    path: str
    source: str
    code: str
    findings: list[Finding] = field(default_factory=list)
    lines: int = 0
    api_total: int = 0
    api_converted: int = 0
    rules_applied: tuple[str, ...] = ()
    failed: bool = False  # unreadable or unparsable input
    # Companion entries the converted code uses (``ms_aux.BatchNorm2d``).
    companion: frozenset[str] = frozenset()
    # For each key the tree pass coupled to other files: None when this file converted its part,
    # else why not (``migrator.tree``).
    coupled: dict[str, str | None] = field(default_factory=dict)

    @property
    def changed(self) -> bool:
        return self.code != self.source


def count_lines(text: str) -> int:
    return text.count("\n") + (1 if text and not text.endswith("\n") else 0)


def mentions_torch(source: str) -> bool:
    return "torch" in source


def _active(cls, source: str, torch_free: bool, from_tree) -> bool:
    """Whether a rule runs on a file: on a file that never names torch, only the rules marked
    ``torch_free`` (``"always"``: the imports rule, which writes the companion import)."""
    marked = getattr(cls, "torch_free", False)
    if torch_free:
        return marked == "always" or (
            bool(marked) and any(t in source for t in cls.triggers)
        )
    return bool(from_tree) or any(t in source for t in cls.triggers)


def _torch_free_work(source: str) -> bool:
    """Whether a file that never names torch has something the rules marked ``torch_free`` convert
    (``x.size()`` on a tensor it receives)."""
    return any(
        getattr(cls, "torch_free", False) and any(t in source for t in cls.triggers)
        for cls in rule_classes()
    )


def _methods(classes, kind: str = "methods") -> frozenset[str]:
    names: set[str] = set()
    for cls in classes:
        names |= getattr(cls, kind)
    return frozenset(names)


def convert_source(
    source: str,
    path: str = "<string>",
    options: Options | None = None,
    companion_import: CompanionImport | None = None,
    inherited: dict[str, str] | None = None,
    facts: FileFacts | None = None,
    module_classes: frozenset[str] = frozenset(),
    tree: ast.Module | None = None,
) -> Result:
    """Convert one module. ``inherited`` holds the torch aliases it receives through star imports
    of other modules of the tree (see ``star_imports``); ``facts`` what the tree pass knows of the
    other files (see ``tree``); ``module_classes`` the names it imports from other files of the tree
    that are Module classes (see ``tree_classes``); ``tree`` the ``ast`` of ``source`` where the
    caller parsed it already."""
    options = options or Options()
    result = Result(path, source, source, lines=count_lines(source))
    coupled = facts is not None and facts.steps
    from_tree = bool(inherited or coupled or module_classes)
    if not mentions_torch(source) and not from_tree and not _torch_free_work(source):
        return result
    if is_companion(source):
        return (
            result  # MindSpore code torch2ms wrote: converting it again changes nothing
        )
    try:
        if tree is None:  # the caller's parse of the same source, else ours
            tree = ast.parse(source, filename=path)
    except (SyntaxError, ValueError) as error:
        line = getattr(error, "lineno", None) or 1
        result.failed = True
        result.findings.append(
            Finding(
                "TM000",
                path,
                line,
                0,
                ERROR,
                f"could not parse: {error.__class__.__name__}: {error.msg if hasattr(error, 'msg') else error}",
                PARSE_ERROR.use_instead,
            )
        )
        return result
    aliases = torch_aliases(tree)
    for local, target in (inherited or {}).items():
        aliases.setdefault(local, target)
    # A file that imports no torch: only the rules marked ``torch_free`` have work there.
    torch_free = not aliases and not _imports_torch_only_package(tree) and not from_tree
    if torch_free and not _torch_free_work(source):
        return result
    classes = rule_classes()
    uses = _census(tree, aliases, classes)
    run = (tree, aliases, classes, companion_import, facts, module_classes, inherited)
    try:
        for opaque in (True, False):
            try:
                ctx, (module, parsed, spans, placeholders) = _run_stages(
                    source,
                    path,
                    options,
                    uses,
                    *run,
                    coupled,
                    torch_free,
                    opaque=opaque,
                )
                code = module_code(module, parsed, source, spans, placeholders)
                _no_placeholder_text(code, ctx, source, placeholders)
                break
            except OpaqueLeak:
                # A rule replaced, removed or moved a statement it was not meant to see:
                # convert the file again from a full parse (with a new census: its uses
                # record claims). Without placeholders there is nothing to leak.
                uses = _census(tree, aliases, classes)
    except cst.ParserSyntaxError as error:
        result.failed = True
        result.findings.append(
            Finding(
                "TM000",
                path,
                error.raw_line,
                error.raw_column,
                ERROR,
                f"could not parse: {error.message}",
                PARSE_ERROR.use_instead,
            )
        )
        return result
    result.api_total = len(uses.uses)
    result.api_converted = max(0, result.api_total - int(ctx.state.get("leftovers", 0)))
    result.findings = sorted(ctx.findings, key=lambda f: (f.line, f.column, f.rule))
    result.rules_applied = tuple(sorted(ctx.applied))
    result.companion = frozenset(ctx.state.get(COMPANION, ()))
    result.coupled = dict(ctx.state.get(COUPLED, {}))
    if code != source:
        try:
            compile(code, path, "exec", dont_inherit=True)
        except (SyntaxError, ValueError) as error:
            result.findings = [
                Finding(
                    "TM999",
                    path,
                    getattr(error, "lineno", 1) or 1,
                    0,
                    ERROR,
                    f"the converted code did not compile ({error}); the file was left unconverted",
                    INTERNAL_ERROR.use_instead,
                )
            ]
            result.api_converted = 0
            return result
        result.code = code
    return result


def _census(tree: ast.Module, aliases: dict[str, str], classes) -> Census:
    return census(
        tree,
        aliases,
        _methods(classes),
        _methods(classes, "watched_methods"),
        _methods(classes, "watched_attributes"),
    )


def _run_stages(
    source: str,
    path: str,
    options: Options,
    uses: Census,
    tree: ast.Module,
    aliases: dict[str, str],
    classes,
    companion_import: CompanionImport | None,
    facts: FileFacts | None,
    module_classes: frozenset[str],
    inherited: dict[str, str] | None,
    coupled: bool,
    torch_free: bool,
    opaque: bool,
) -> tuple[ModuleContext, tuple]:
    """Parse ``source`` with LibCST (with its opaque statements as placeholders when ``opaque``)
    and run the rule stages: the context, and what ``module_code`` writes the module from (the
    last stage's module, the parsed one, the statements' lines, the placeholders)."""
    ctx = ModuleContext(
        path,
        source,
        options,
        aliases,
        {},
        uses,
        bound_names=uses.bound,
        companion_import=companion_import or CompanionImport(),
        tree=facts,
        module_classes=module_classes,
    )
    ctx.state["ast"] = (
        tree  # shared with the rules that analyse the original source (read only)
    )
    from_tree = inherited or coupled or module_classes
    stages = [
        [
            c
            for c in classes
            if c.stage == stage and _active(c, source, torch_free, from_tree)
        ]
        for stage in STAGES
    ]
    reduced = None
    # A file coupled to step helpers of other files: the training rules read its statements.
    if opaque and not coupled:
        # What the active rules read in statements the census does not mark.
        words = {
            word for active in stages for cls in active for word in unmarked_words(cls)
        }
        gradient = stages[STAGES.index(GRADIENT)]
        # An in-place call's result is rewritten after the reads of its input that follow it.
        anywhere = {"inplace"}.union(
            *(c.triggers for c in gradient if c.scope_words is None)
        )
        names = set().union(
            *(c.scope_words for c in gradient if c.scope_words is not None)
        )
        known = nn_facts(ctx)
        needs_nodes = NeedsNodes(
            source,
            tree,
            aliases,
            uses,
            words,
            anywhere,
            known.targets,
            known.devices,
            scope_names=names,
        )
        reduced = reduce_source(source, tree, uses, needs_nodes)
    if reduced:
        try:
            module = parse_module(reduced.text)
        except cst.ParserSyntaxError as error:
            raise OpaqueLeak("the reduced text did not parse") from error
        hidden = Opaque(reduced.statements)
    else:
        module = parse_module(source)
        hidden = None
    spans: dict[int, tuple[int, int]] = {}
    ctx.statements = index_statements(module, tree, uses, spans, hidden)
    placeholders = frozenset(hidden.placeholders) if hidden else frozenset()
    if hidden and len(placeholders) != len(hidden.statements):
        raise OpaqueLeak("a placeholder did not line up with its statement")
    ctx.parsed = frozenset(ctx.statements)
    ctx.state[PARSED] = module
    # Every stage's input tree stays alive: the statement index is keyed by id(), and a freed
    # node's id could be reused by a new node that would then inherit a stale entry.
    trees = [module]
    with read_as_source(source, spans, placeholders):
        for active in stages:
            if active:
                ctx.stack.clear()
                module = run_stage(module, ctx, [cls() for cls in active])
                trees.append(module)
    return ctx, (module, trees[0], spans, placeholders)


def _no_placeholder_text(
    code: str, ctx: ModuleContext, source: str, placeholders: frozenset[int]
) -> None:
    """``OpaqueLeak`` where a placeholder's text reached the code or a finding's message."""
    if (
        placeholders
        and (PLACEHOLDER in code or any(PLACEHOLDER in f.message for f in ctx.findings))
        and PLACEHOLDER not in source
    ):
        raise OpaqueLeak("a placeholder's text reached the output")


_TORCH_IMPORT = re.compile(
    r"^[ \t]*(?:import|from)[ \t]+(?:"
    + "|".join(("torch",) + tuple(sorted(TORCH_ONLY_PACKAGES)))
    + r")\b",
    re.MULTILINE,
)


_STAND_IN = "ms_aux.torch_only("  # rules.companion.library.probes


def imports_torch(code: str) -> bool:
    """Whether ``code`` imports torch or a package built on it, or names a torch-only API through
    the companion's stand-in (a file that still needs torch where that API is reached)."""
    if _STAND_IN in code and _stand_in_reached(code):
        return True
    if not _TORCH_IMPORT.search(code):
        return False
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError):
        return True
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            roots = [a.name.split(".")[0] for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            roots = [node.module.split(".")[0]]
        else:
            continue
        if any(r == "torch" or r in TORCH_ONLY_PACKAGES for r in roots):
            return True
    return False


def _stand_in_reached(code: str) -> bool:
    """Whether a torch-only stand-in is used other than as a class a type check tests against
    (`isinstance(mask, ms_aux.torch_only("...BlockMask"))` is False for every value the converted
    program has, which is what torch answers for values that are not of the torch-only class)."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError):
        return True
    checked: set[int] = set()
    stand_ins: list[ast.Call] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if (
            isinstance(func, ast.Name)
            and func.id in ("isinstance", "issubclass")
            and len(node.args) == 2
        ):
            classes = node.args[1]
            checked.add(id(classes))
            if isinstance(classes, (ast.Tuple, ast.List)):
                checked.update(id(e) for e in classes.elts)
        elif (
            isinstance(func, ast.Attribute)
            and func.attr == "torch_only"
            and isinstance(func.value, ast.Name)
            and func.value.id == _STAND_IN.split(".")[0]
        ):
            stand_ins.append(node)
    return any(id(node) not in checked for node in stand_ins)


def _imports_torch_only_package(tree: ast.Module) -> bool:
    for node in ast.walk(tree):
        if isinstance(node, ast.Import) and any(
            a.name.split(".")[0] in TORCH_ONLY_PACKAGES for a in node.names
        ):
            return True
        if (
            isinstance(node, ast.ImportFrom)
            and node.module
            and node.module.split(".")[0] in TORCH_ONLY_PACKAGES
        ):
            return True
    return False
