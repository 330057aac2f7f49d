"""What a module's source says about its Modules, layers, devices and datasets.

One ``ast`` pass over the original source, shared by the nn, data and checkpoint rules. A *kind* says
what an expression holds: ``class:Net`` (a Module class of this file), ``layer:torch.nn.BatchNorm2d``
or ``list:<kind>`` (a ModuleList/Sequential whose elements share one kind). A name or attribute has a
kind only when every assignment to it gives that same kind; function parameters of the same name are
taken to hold what the name holds elsewhere in the file (``def train(model)`` next to
``model = Net()``).
"""

from __future__ import annotations

import ast
import bisect
import re
from dataclasses import dataclass, field

import libcst as cst

from ...migrator.aliases import dotted, resolve
from ...migrator.context import ModuleContext
from ..common.tree import module_tree
from .layers import CONTAINERS, MODE_DEPENDENT, canonical, is_layer

AMBIGUOUS = "?"
# Attributes of torch layers that MindSpore names otherwise, or lacks.
RENAMED_ATTRIBUTES = frozenset(
    {
        "weight",
        "bias",
        "running_mean",
        "running_var",
        "num_batches_tracked",
        "groups",
        "in_features",
        "out_features",
    }
)
# Calls that return their receiver (for a Module): `Net().to(device)` is still a Net.
PASS_THROUGH = frozenset(
    {"to", "cuda", "cpu", "train", "eval", "float", "double", "half", "requires_grad_"}
)


def _passed_through(value: ast.AST | None, name: str) -> bool:
    """`name.<method>(...)` for a method that returns its Module receiver."""
    return (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Attribute)
        and value.func.attr in PASS_THROUGH
        and isinstance(value.func.value, ast.Name)
        and value.func.value.id == name
    )


_DEVICE_STRING = re.compile(r"^(cpu|cuda|mps|xpu|npu)(:\d+)?$")
DATASET_BASES = frozenset(
    {
        "torch.utils.data.Dataset",
        "torch.utils.data.dataset.Dataset",
        "torch.utils.data.IterableDataset",
        "torch.utils.data.dataset.IterableDataset",
    }
)


@dataclass
class ModuleClass:
    name: str
    bases: list[str]
    attrs: dict[str, str] = field(default_factory=dict)
    buffers: set[str] = field(default_factory=set)
    mode_dependent: bool = False
    node: ast.ClassDef | None = None


@dataclass
class Facts:
    classes: dict[str, ModuleClass] = field(default_factory=dict)
    names: dict[str, str] = field(default_factory=dict)
    devices: set[str] = field(default_factory=set)
    # Dataset subclasses -> number of values `__getitem__` returns (None when unknown).
    datasets: dict[str, int | None] = field(default_factory=dict)
    # Element kinds of containers built from listed layers (`nn.Sequential(nn.Linear(..), nn.BatchNorm1d(..))`).
    sequences: list[list[str]] = field(default_factory=list)
    # Lines the nn rules have work on: attributes in RENAMED_ATTRIBUTES, `def forward`, and
    # assignments that build a mode-dependent Module (`constructions`).
    target_lines: list[int] = field(default_factory=list)
    constructions: list[int] = field(default_factory=list)
    # Whether the file freezes parameters (`requires_grad=False`, `.requires_grad_(False)`).
    freezes: bool = False
    # Parameters annotated as Module classes (`experts_class: type[nn.Module]`), by name: their
    # `forward` is the method MindSpore calls `construct`.
    module_class_params: frozenset[str] = frozenset()

    def attr(self, class_name: str, attribute: str) -> str | None:
        seen = set()
        stack = [class_name]
        while stack:
            name = stack.pop(0)
            if name in seen or name not in self.classes:
                continue
            seen.add(name)
            info = self.classes[name]
            if attribute in info.attrs:
                kind = info.attrs[attribute]
                return None if kind == AMBIGUOUS else kind
            stack.extend(info.bases)
        return None

    def targets(self, first: int, last: int) -> bool:
        """Whether lines first..last hold something the nn rules may rewrite."""
        for lines in (self.target_lines, self.constructions):
            i = bisect.bisect_left(lines, first)
            if i < len(lines) and lines[i] <= last:
                return True
        return False

    def attr_anywhere(self, attribute: str) -> str | None:
        """The kind every Module class of the file that has ``attribute`` gives it, if they agree."""
        kinds = {
            self.attr(name, attribute)
            for name, info in self.classes.items()
            if attribute in info.attrs
        }
        return kinds.pop() if len(kinds) == 1 else None

    def is_module_kind(self, kind: str | None) -> bool:
        return kind is not None and kind.startswith(
            ("class:", "layer:", "list:", "seq:")
        )

    def element(self, kind: str, index: int) -> str | None:
        if kind.startswith("list:"):
            return kind[5:]
        if kind.startswith("seq:"):
            elements = self.sequences[int(kind[4:])]
            if -len(elements) <= index < len(elements):
                found = elements[index]
                return None if found == AMBIGUOUS else found
        return None

    def mode_dependent(self, kind: str | None) -> bool:
        if kind is None:
            return False
        if kind.startswith("class:"):
            info = self.classes.get(kind[6:])
            return info is not None and info.mode_dependent
        if kind.startswith("list:"):
            return self.mode_dependent(kind[5:])
        if kind.startswith("seq:"):
            return any(self.mode_dependent(k) for k in self.sequences[int(kind[4:])])
        return kind[6:] in MODE_DEPENDENT

    def has_buffers(self, kind: str | None) -> bool:
        if kind is None or not kind.startswith("class:"):
            return False
        info = self.classes.get(kind[6:])
        return info is not None and (bool(info.buffers) or info.mode_dependent)


def facts(ctx: ModuleContext) -> Facts:
    cached = ctx.state.get("nn.facts")
    if cached is None:
        cached = ctx.state["nn.facts"] = analyse(
            module_tree(ctx), ctx.aliases, ctx.module_classes
        )
    return cached  # type: ignore[return-value]


# -- the ast pass ---------------------------------------------------------------------------
# Nodes the scan has nothing to do with and that hold no node it would look at.
_LEAVES = frozenset({ast.Name, ast.Constant, ast.Load, ast.Store, ast.Del})
# The classes of the nodes the scan reads (the others it only walks through).
_SCANNED = frozenset(
    {
        ast.Assign,
        ast.AnnAssign,
        ast.AugAssign,
        ast.For,
        ast.AsyncFor,
        ast.comprehension,
        ast.withitem,
        ast.NamedExpr,
        ast.FunctionDef,
        ast.AsyncFunctionDef,
        ast.ClassDef,
        ast.Attribute,
        ast.Call,
        ast.arg,
        ast.Import,
        ast.ImportFrom,
    }
)
# Nodes that may freeze parameters (`_freezes`), and the members of a class (with the
# `self.training` reads that make it mode-dependent).
_FREEZING = frozenset({ast.keyword, ast.Assign, ast.Call})
_MEMBERS = frozenset(
    {ast.Assign, ast.AnnAssign, ast.AugAssign, ast.Call, ast.Attribute}
)


def _qualified(node: ast.AST, aliases: dict[str, str]) -> str | None:
    name = dotted(node)
    return resolve(name, aliases) if name else None


class _Analyser:
    def __init__(
        self,
        tree: ast.Module,
        aliases: dict[str, str],
        imported: frozenset[str] = frozenset(),
    ) -> None:
        self.imported = imported
        self.tree = tree
        self.aliases = aliases
        self.facts = Facts()
        self.bindings: dict[str, list[ast.AST | None]] = {}
        self.class_defs: list[ast.ClassDef] = []
        # Per class (innermost): the assignments and calls in its body, and what may make it
        # mode-dependent (calls, `self.training`).
        self.members: dict[str, list[ast.AST]] = {}
        self.mode_nodes: dict[str, list[ast.AST]] = {}

    def run(self) -> Facts:
        self._scan()
        self._find_classes(self.class_defs)
        # Kinds of names and attributes may depend on each other: iterate to a fixed point.
        for _ in range(4):
            names = self._name_kinds()
            for info in self.facts.classes.values():
                info.attrs = self._attr_kinds(info.node)
            if names == self.facts.names:
                break
            self.facts.names = names
        self._mode_dependence()
        self._devices()
        self.facts.constructions = sorted(
            value.lineno
            for name, values in self.bindings.items()
            if self.facts.mode_dependent(self.facts.names.get(name))
            for value in values
            if value is not None
        )
        return self.facts

    def _scan(self) -> None:
        """One pass over the tree: bindings, class members, and whether parameters are frozen."""
        stack: list[tuple[ast.AST, str | None]] = [(self.tree, None)]
        push = stack.append
        bind = self._bind
        targets: list[int] = []
        forward_reads: list[tuple[str, int]] = []
        module_classes: set[str] = set()
        pop = stack.pop
        while stack:
            node, owner = pop()
            kind = type(node)
            if kind not in _SCANNED:
                pass  # nothing below applies to it but the walk into its children
            elif kind is ast.Assign:
                for target in node.targets:
                    bind(target, node.value)
            elif kind is ast.AnnAssign or kind is ast.AugAssign:
                if isinstance(node.target, ast.Name):
                    bind(node.target, node.value if kind is ast.AnnAssign else None)
            elif kind in (ast.For, ast.AsyncFor, ast.comprehension):
                bind(node.target, None)
            elif kind is ast.withitem:
                if node.optional_vars is not None:
                    bind(node.optional_vars, None)
            elif kind is ast.NamedExpr:
                bind(node.target, node.value)
            elif kind in (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef):
                self.bindings.setdefault(node.name, []).append(None)
                if node.name == "forward":
                    targets.append(node.lineno)
            elif kind is ast.Attribute and (
                node.attr in RENAMED_ATTRIBUTES
                or (node.attr == "forward" and isinstance(node.ctx, ast.Store))
                or (node.attr == "forward" and _own_class_reference(node.value))
            ):
                targets.append(node.lineno)
            elif (
                kind is ast.Attribute
                and node.attr == "forward"
                and isinstance(node.value, ast.Name)
            ):
                forward_reads.append((node.value.id, node.lineno))
            elif (
                kind is ast.Call
                and not node.args
                and len(node.keywords) == 1
                and node.keywords[0].arg == "input"
            ):
                targets.append(node.lineno)  # `layer(input=x)` (layer_calls.py)
            elif kind is ast.arg and _module_class_annotation(node, self.aliases):
                module_classes.add(node.arg)
            elif kind is ast.Import or kind is ast.ImportFrom:
                for alias in node.names:
                    self.bindings.setdefault(
                        (alias.asname or alias.name).split(".")[0], []
                    ).append(None)
            if kind in _FREEZING and not self.facts.freezes and _freezes(node):
                self.facts.freezes = True
            if owner is not None and kind in _MEMBERS:
                if kind is not ast.Attribute:
                    self.members[owner].append(node)
                if kind is ast.Call or (
                    kind is ast.Attribute and node.attr == "training"
                ):
                    self.mode_nodes[owner].append(node)
            if kind is ast.ClassDef:
                self.class_defs.append(node)
                owner = node.name
                self.members.setdefault(owner, [])
                self.mode_nodes.setdefault(owner, [])
            for name in node._fields:
                value = getattr(node, name, None)
                if type(value) is list:
                    for v in value:
                        if type(v) not in _LEAVES and isinstance(v, ast.AST):
                            push((v, owner))
                elif (
                    type(value) not in _LEAVES
                    and isinstance(value, ast.AST)
                    and value._fields
                ):
                    push((value, owner))
        self.class_defs.reverse()
        targets.extend(line for name, line in forward_reads if name in module_classes)
        self.facts.module_class_params = frozenset(module_classes)
        self.facts.target_lines = sorted(set(targets))

    def _find_classes(self, class_defs: list[ast.ClassDef]) -> None:
        found = True
        while found:
            found = False
            for node in class_defs:
                if node.name in self.facts.classes:
                    continue
                bases = []
                module = False
                for base in node.bases:
                    qualified = _qualified(base, self.aliases)
                    if qualified is not None and is_layer(qualified):
                        module = True
                    elif isinstance(base, ast.Name) and base.id in self.facts.classes:
                        module = True
                        bases.append(base.id)
                    elif isinstance(base, ast.Name) and base.id in self.imported:
                        module = True  # a Module class of another file of the tree
                    elif qualified in DATASET_BASES:
                        self.facts.datasets[node.name] = _getitem_arity(node)
                if module:
                    self.facts.classes[node.name] = ModuleClass(
                        node.name, bases, node=node
                    )
                    self.facts.datasets.pop(node.name, None)
                    found = True
                elif node.name not in self.facts.datasets and _defines(
                    node, "__getitem__"
                ):
                    # Any class with __getitem__ feeds GeneratorDataset, with or without a base.
                    self.facts.datasets[node.name] = _getitem_arity(node)

    def _bind(self, target: ast.AST, value: ast.AST | None) -> None:
        if isinstance(target, ast.Name):
            self.bindings.setdefault(target.id, []).append(value)
        elif isinstance(target, (ast.Tuple, ast.List)):
            for element in target.elts:
                self._bind(element, None)
        elif isinstance(target, ast.Starred):
            self._bind(target.value, None)

    def _name_kinds(self) -> dict[str, str]:
        kinds = {}
        for name, values in self.bindings.items():
            # `model = model.to(device)`, `h = h.half()`: the value keeps the name's kind.
            values = [v for v in values if not _passed_through(v, name)] or values
            found = {self.kind(v) if v is not None else None for v in values}
            if len(found) == 1 and None not in found:
                kinds[name] = found.pop()
        return kinds

    def _attr_kinds(self, node: ast.ClassDef) -> dict[str, str]:
        kinds: dict[str, str] = {}
        info = self.facts.classes[node.name]
        for sub in self.members.get(node.name, ()):
            targets: list[tuple[str, ast.AST | None]] = []
            if isinstance(sub, ast.Assign):
                for target in sub.targets:
                    targets.extend(_self_attrs(target, sub.value))
            elif isinstance(sub, (ast.AnnAssign, ast.AugAssign)):
                targets.extend(_self_attrs(sub.target, None))
            elif (
                isinstance(sub, ast.Call)
                and isinstance(sub.func, ast.Attribute)
                and sub.args
            ):
                key = sub.args[0]
                literal = (
                    key.value
                    if isinstance(key, ast.Constant) and isinstance(key.value, str)
                    else None
                )
                if sub.func.attr == "register_buffer" and literal:
                    info.buffers.add(literal)
                    targets.append((literal, None))
                elif (
                    sub.func.attr
                    in ("add_module", "register_module", "register_parameter")
                    and literal
                ):
                    targets.append(
                        (literal, sub.args[1] if len(sub.args) > 1 else None)
                    )
            for attribute, value in targets:
                if _self_slice(value, attribute):
                    continue  # `self.blocks = self.blocks[:n]`: a slice of a container is one
                kind = self.kind(value) if value is not None else None
                previous = kinds.get(attribute)
                kinds[attribute] = (
                    kind or AMBIGUOUS if previous in (None, kind) else AMBIGUOUS
                )
        return kinds

    def kind(self, value: ast.AST) -> str | None:
        if isinstance(value, ast.Call):
            func = value.func
            qualified = _qualified(func, self.aliases)
            if qualified is not None and is_layer(qualified):
                qualified = canonical(qualified)
                if qualified in CONTAINERS and qualified != "torch.nn.ModuleDict":
                    elements = (
                        value.args[0]
                        if len(value.args) == 1 and qualified == "torch.nn.ModuleList"
                        else value.args
                    )
                    element = self._uniform(elements)
                    if element:
                        return "list:" + element
                    return self._sequence(elements) or "layer:" + qualified
                return "layer:" + qualified
            if isinstance(func, ast.Name) and func.id in self.facts.classes:
                return "class:" + func.id
            if isinstance(func, ast.Name) and func.id in self.facts.datasets:
                return "dataset:" + func.id
            if isinstance(func, ast.Attribute) and func.attr in PASS_THROUGH:
                inner = self.kind(func.value)
                return inner if self.facts.is_module_kind(inner) else None
            return None
        if isinstance(value, ast.IfExp):
            body, orelse = self.kind(value.body), self.kind(value.orelse)
            if body == orelse:
                return body
            both = self.facts.is_module_kind(body) and self.facts.is_module_kind(orelse)
            return "layer:torch.nn.Module" if both else None
        if isinstance(value, ast.Name):
            return self.facts.names.get(value.id)
        if (
            isinstance(value, ast.Attribute)
            and isinstance(value.value, ast.Name)
            and value.value.id == "self"
        ):
            return None
        return None

    def _sequence(self, elements) -> str | None:
        """`seq:<n>` for a container of literal elements, the n-th entry of Facts.sequences."""
        if isinstance(elements, (ast.List, ast.Tuple)):
            elements = elements.elts
        if (
            not isinstance(elements, list)
            or not elements
            or any(isinstance(e, ast.Starred) for e in elements)
        ):
            return None
        kinds = [self.kind(e) or AMBIGUOUS for e in elements]
        if kinds in self.facts.sequences:
            return f"seq:{self.facts.sequences.index(kinds)}"
        self.facts.sequences.append(kinds)
        return f"seq:{len(self.facts.sequences) - 1}"

    def _uniform(self, elements) -> str | None:
        if isinstance(elements, (ast.ListComp, ast.GeneratorExp)):
            return self.kind(elements.elt)
        if isinstance(elements, (ast.List, ast.Tuple)):
            elements = elements.elts
        if not isinstance(elements, list) or not elements:
            return None
        kinds = {self.kind(e) for e in elements}
        return kinds.pop() if len(kinds) == 1 else None

    def _mode_dependence(self) -> None:
        changed = True
        while changed:
            changed = False
            for info in self.facts.classes.values():
                if info.mode_dependent:
                    continue
                if any(
                    self.facts.classes.get(b, ModuleClass("", [])).mode_dependent
                    for b in info.bases
                ) or any(
                    self._mode_node(n) for n in self.mode_nodes.get(info.name, ())
                ):
                    info.mode_dependent = changed = True

    def _mode_node(self, node: ast.AST) -> bool:
        if (
            isinstance(node, ast.Attribute)
            and node.attr == "training"
            and isinstance(node.value, ast.Name)
        ):
            return node.value.id == "self"
        if isinstance(node, ast.Call):
            qualified = _qualified(node.func, self.aliases)
            if qualified is not None and canonical(qualified) in MODE_DEPENDENT:
                return True
            if isinstance(node.func, ast.Name) and node.func.id in self.facts.classes:
                return self.facts.classes[node.func.id].mode_dependent
        return False

    def _devices(self) -> None:
        for name, values in self.bindings.items():
            if values and all(
                v is not None and self.device_expression(v) for v in values
            ):
                self.facts.devices.add(name)

    def device_expression(self, node: ast.AST) -> bool:
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return bool(_DEVICE_STRING.match(node.value))
        if isinstance(node, ast.Call):
            return _qualified(node.func, self.aliases) in _DEVICE_CALLS
        if isinstance(node, ast.IfExp):
            return self.device_expression(node.body) and self.device_expression(
                node.orelse
            )
        if isinstance(node, ast.Name):
            return node.id in self.facts.devices
        return False


# Calls whose result is a device (the accelerator's, or None where there is none).
_DEVICE_CALLS = frozenset({"torch.device", "torch.accelerator.current_accelerator"})


def _freezes(node: ast.AST) -> bool:
    false = lambda value: isinstance(value, ast.Constant) and value.value is False
    if isinstance(node, ast.keyword):
        return node.arg == "requires_grad" and false(node.value)
    if isinstance(node, ast.Assign):
        return false(node.value) and any(
            isinstance(t, ast.Attribute) and t.attr == "requires_grad"
            for t in node.targets
        )
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "requires_grad_"
    ):
        return bool(node.args) and false(node.args[0])
    return False


def _self_attrs(
    target: ast.AST, value: ast.AST | None
) -> list[tuple[str, ast.AST | None]]:
    if (
        isinstance(target, ast.Attribute)
        and isinstance(target.value, ast.Name)
        and target.value.id == "self"
    ):
        return [(target.attr, value)]
    if isinstance(target, (ast.Tuple, ast.List)):
        return [pair for element in target.elts for pair in _self_attrs(element, None)]
    return []


def _defines(node: ast.ClassDef, method: str) -> bool:
    return any(
        isinstance(item, ast.FunctionDef) and item.name == method for item in node.body
    )


def _getitem_arity(node: ast.ClassDef) -> int | None:
    for item in node.body:
        if isinstance(item, ast.FunctionDef) and item.name == "__getitem__":
            arities = set()
            for sub in ast.walk(item):
                if isinstance(sub, ast.Return):
                    value = sub.value
                    if isinstance(value, ast.Tuple) and not any(
                        isinstance(e, ast.Starred) for e in value.elts
                    ):
                        arities.add(len(value.elts))
                    elif value is None or isinstance(
                        value, (ast.Dict, ast.DictComp, ast.Tuple, ast.List)
                    ):
                        arities.add(None)
                    else:
                        arities.add(
                            1
                            if isinstance(
                                value, (ast.Call, ast.Subscript, ast.Name, ast.BinOp)
                            )
                            else None
                        )
            return arities.pop() if len(arities) == 1 else None
    return None


def analyse(
    tree: ast.Module, aliases: dict[str, str], imported: frozenset[str] = frozenset()
) -> Facts:
    """Facts about a parsed module, given its torch aliases and the Module classes it imports from
    other files of its tree."""
    return _Analyser(tree, aliases, imported).run()


# -- kinds of LibCST expressions ------------------------------------------------------------
def cst_kind(
    node: cst.BaseExpression, known: Facts, current_class: str | None, guess=None
) -> str | None:
    """The kind of a LibCST expression: `self.bn`, `model.encoder.norm`, `self.layers[0]`.

    ``guess(name)`` says whether a name of unknown kind may be taken to hold one of the file's
    Module classes: `model.emb` then has the kind every class with an `emb` attribute gives it."""
    if isinstance(node, cst.Name):
        if node.value == "self" and current_class is not None:
            return "class:" + current_class
        return known.names.get(node.value)
    if isinstance(node, cst.Attribute):
        outer = cst_kind(node.value, known, current_class, guess)
        if outer is not None and outer.startswith("class:"):
            return known.attr(outer[6:], node.attr.value)
        root = node.value
        if (
            outer is None
            and guess is not None
            and isinstance(root, cst.Name)
            and root.value not in known.names
            and guess(root.value)
        ):
            return known.attr_anywhere(node.attr.value)
        return None
    if isinstance(node, cst.Subscript):
        outer = cst_kind(node.value, known, current_class, guess)
        if (
            outer is None
            or len(node.slice) != 1
            or not isinstance(node.slice[0].slice, cst.Index)
        ):
            return None
        index = _literal_int(node.slice[0].slice.value)
        if outer.startswith("list:"):
            return outer[5:]
        return known.element(outer, index) if index is not None else None
    if (
        isinstance(node, cst.Call)
        and isinstance(node.func, cst.Attribute)
        and node.func.attr.value in PASS_THROUGH
    ):
        inner = cst_kind(node.func.value, known, current_class)
        return inner if known.is_module_kind(inner) else None
    if (
        isinstance(node, cst.Call)
        and isinstance(node.func, cst.Name)
        and node.func.value in known.classes
    ):
        return "class:" + node.func.value
    return None


def _literal_int(node: cst.BaseExpression) -> int | None:
    if isinstance(node, cst.Integer):
        return int(node.value)
    if (
        isinstance(node, cst.UnaryOperation)
        and isinstance(node.operator, cst.Minus)
        and isinstance(node.expression, cst.Integer)
    ):
        return -int(node.expression.value)
    return None


def _self_slice(value: ast.AST | None, attribute: str) -> bool:
    """Whether ``value`` is ``self.<attribute>[a:b]``."""
    return (
        isinstance(value, ast.Subscript)
        and isinstance(value.slice, ast.Slice)
        and isinstance(value.value, ast.Attribute)
        and value.value.attr == attribute
        and isinstance(value.value.value, ast.Name)
        and value.value.value.id == "self"
    )


_MODULE_CLASSES = frozenset({"torch.nn.Module", "torch.nn.modules.module.Module"})


def _module_class_annotation(node: ast.arg, aliases: dict[str, str]) -> bool:
    """`name: type[nn.Module]` (or `type[nn.Module] | None`): a parameter holding a Module
    class."""
    annotation = node.annotation
    if isinstance(annotation, ast.BinOp):  # `type[nn.Module] | None`
        annotation = annotation.left
    return (
        isinstance(annotation, ast.Subscript)
        and isinstance(annotation.value, ast.Name)
        and annotation.value.id in ("type", "Type")
        and _qualified(annotation.slice, aliases) in _MODULE_CLASSES
    )


def _own_class_reference(node: ast.AST) -> bool:
    """`cls`, `self` or `type(self)`: the class whose methods a Module class body reads."""
    if isinstance(node, ast.Name):
        return node.id in ("cls", "self")
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "type"
        and len(node.args) == 1
        and isinstance(node.args[0], ast.Name)
        and node.args[0].id == "self"
    )
