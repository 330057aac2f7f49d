"""TM401-TM403, TM940-TM942: apply the API tables to calls, Tensor methods and names."""

from __future__ import annotations

import dataclasses

import libcst as cst
import numpy as np

from ...migrator.context import CONVERTED_CALLS, ModuleContext
from ...migrator.engine import visit
from ...migrator.findings import ERROR, WARNING
from ...migrator.rule import API, Rule, register, rule_classes, torch_names_only
from ..companion import ENTRIES as COMPANION_ENTRIES
from ..companion import entry_for as companion_entry
from ..companion.table_functional import ANNOTATED as ANNOTATED_ENTRIES
from ..companion.table_plumbing import MODULE_VALUES
from ..companion.table_recurrent import METHOD_PARAMS as COMPANION_METHOD_PARAMS
from ..companion.table_runtime import TYPE_CHECK_ONLY
from ..companion.table_tensor_ops import ATTRIBUTES as TENSOR_ATTRIBUTES
from ..companion.table_tensor_ops import IDIOM_EXCEPT
from ..companion.table_tensor_ops import METHOD_PARAMS as TENSOR_OPS_PARAMS
from . import BY_TORCH_NAME, METHODS
from .answered import constant, drop_dead_findings, ends_the_block, taken_branch
from .docs import (
    API_META,
    CALL_RESULT,
    INIT_META,
    METHOD_META,
    NO_KERNEL,
    NO_MAPPING,
    UNSAFE_ARGUMENT,
)
from .float64_layers import (
    FLOAT8,
    FLOAT64_COMPANIONS,
    NO_DTYPE_KERNEL,
    NO_FLOAT64_KERNEL,
    cast_receiver,
    made_float64,
    report_float8,
    report_float64,
)
from .inplace_chain import PRODUCED, item_chain, rebound_chain, writes_grad_state
from .inplace_result import drop_rebound_inplace, writes_into_a_slice
from .known_leaf import LEAF, detach_receiver
from .legacy_reduction import drop_default_generator, fold_legacy_reduction
from .library_layers import keeps_torch_attributes
from .list_values import passes_list
from .max_min import (
    FIELDS,
    METHOD_ENTRIES,
    NONE,
    PAIR_NAMES,
    PAIRWISE,
    TENSOR,
    UNKNOWN,
    decided_at_run_time,
    max_min_method,
    pair_result,
    second_argument,
)
from .method_derived import method_from_function
from .parameter_loops import parameter_loops
from .receivers import (
    assign_root,
    call_result,
    fresh_temporary,
    item_parts,
    out_is_input,
    placement_dicts,
    refusal_is_arity,
    remaining_calls,
    stored_item,
    unchanged,
)
from .shape_rebind import SHAPE_METHODS, rebinding_target, rebound
from .source_args import call_arguments, split_call, translate_args
from .spec import ApiMapping, CallTranslation, Refusal
from .table_mint import MINT, MINT_CLASS_VALUES, MINT_TARGETS
from .tensor_type import tensor_type
from .torch_args import (
    COMPLEX_DEFAULT,
    NAMED_PAIRS,
    complex_default,
    receiver_by_position,
    without_out_none,
)
from .view_writes import VIEW_UPDATE, write_back

_TYPE_CHECKS = ("isinstance", "issubclass")
# A torch module named in an annotation (`fmt: F = "NCHW"`, where F is torch.nn.functional) is no
# type at all; the MindSpore module the converted code uses stands in its place.
_ANNOTATED_MODULES = {
    "torch": "mindspore",
    "torch.nn": "mindspore.nn",
    "torch.nn.functional": "mindspore.ops",
    "torch.optim": "mindspore.experimental.optim",
}
_INITIALIZER = "mindspore.common.initializer.initializer"
# Method names numpy arrays or Python builtins also have: the receiver may not be a tensor.
AMBIGUOUS = frozenset(
    name
    for kind in (np.ndarray, list, dict, str, set, tuple, bytes, int, float, object)
    for name in dir(kind)
    if not name.startswith("_") and callable(getattr(kind, name))
)


def _leading_default(
    mapping: ApiMapping, args: list[cst.Arg], kwargs: dict[str, cst.Arg]
) -> list[cst.Arg]:
    """``torch.randint(high, size)``: the left-out first parameter given its value."""
    if not mapping.leading_default or mapping.params[0] in kwargs:
        return args
    given = len(args) + sum(1 for name in mapping.params if name in kwargs)
    if given != len(mapping.params) - 1:
        return args
    value = cst.parse_expression(mapping.leading_default)
    return [cst.Arg(value), *args]


def _rewritten(mapping: ApiMapping) -> bool:
    """Whether applying a method mapping can change the call (not only check it)."""
    leaf = mapping.torch.rsplit(".", 1)[1]
    return (
        mapping.form != "call"
        or not mapping.mindspore.endswith("Tensor." + leaf)
        or bool(mapping.rename or mapping.defaults or mapping.transform or mapping.drop)
    )


# Ambiguous names are counted as torch uses only where the table would rewrite them; they are then
# reported instead, and count as unconverted while they remain.
_UNSURE = frozenset(
    name
    for name, m in METHODS.items()
    if name in AMBIGUOUS and m.translatable and _rewritten(m)
)
# Base classes mapped for type checks only: a subclass would call a constructor that differs.
_NOT_AS_BASES = frozenset(
    {
        "torch.nn.modules.batchnorm._BatchNorm",
        "torch.nn.modules.instancenorm._InstanceNorm",
    }
)
# Methods of parameters and modules that companion functions carry out (library/methods.py).
_PARAMETER_METHODS = frozenset({"requires_grad_", "detach_"})
# MindSpore functions whose results are not tensors (shapes, sizes, dtypes, flags).
_NOT_TENSOR_RESULTS = frozenset(
    {
        "shape",
        "rank",
        "size",
        "numel",
        "dtype",
        "is_tensor",
        "get_context",
        "tuple_to_array",
    }
)
# Results of these calls are tensors: no numpy array or builtin has such a method.
_TENSOR_ONLY_METHODS = frozenset(
    name
    for name, m in METHODS.items()
    if name not in AMBIGUOUS
    and m.translatable
    and name != "item"
    and not name.startswith(
        (
            "is_",
            "numel",
            "nelement",
            "dim",
            "ndimension",
            "element_size",
            "size",
            "tolist",
        )
    )
)
# Companion entries that stand for torch callables (`ms_aux.max_pool1d`).
_TORCH_CALL_ENTRIES = frozenset(COMPANION_ENTRIES.values())
# Every Tensor method name the tables know: their results may share their receiver's storage.
_TENSOR_METHOD_NAMES = frozenset(METHODS) | AMBIGUOUS
_TORCH_ONLY_KEYWORDS = frozenset({"dim", "keepdim", "unbiased", "correction"})
COUNTED_METHODS = frozenset(
    name for name in METHODS if name not in AMBIGUOUS or name in _UNSURE
)
# Methods numpy has too whose torch form collects positionals (`view(*size)`): a call naming
# them (`x.view(size=s)`) is watched (`_collected_by_name`).
_COLLECTING = frozenset(
    name
    for name, mapping in METHODS.items()
    if name in AMBIGUOUS
    and name not in _UNSURE
    and any(p.startswith("*") for p in mapping.params)
)


class _Restore(cst.CSTTransformer):
    """Puts back the torch names ``_reference`` replaced."""

    def __init__(self, swapped: dict[int, tuple[cst.CSTNode, cst.CSTNode]]) -> None:
        super().__init__()
        self.swapped = swapped

    def leave_Attribute(self, original, updated):
        entry = self.swapped.get(id(original))
        return updated if entry is None else entry[1]

    leave_Name = leave_Attribute


class _NameUses(cst.CSTVisitor):
    """The calls of a local name in a function body, and whether it is used any other way."""

    def __init__(self, name: str) -> None:
        super().__init__()
        self.name = name
        self.calls: list[cst.Call] = []
        self.other = False
        self.skip: set[int] = set()

    def visit_Attribute(self, node: cst.Attribute) -> None:
        self.skip.add(id(node.attr))

    def visit_Arg(self, node: cst.Arg) -> None:
        if node.keyword is not None:
            self.skip.add(id(node.keyword))

    def visit_Call(self, node: cst.Call) -> None:
        if isinstance(node.func, cst.Name):
            if node.func.value == self.name:
                self.calls.append(node)
                self.skip.add(id(node.func))
            elif node.func.value in ("locals", "vars", "eval", "exec"):
                self.other = True

    def visit_Name(self, node: cst.Name) -> None:
        if node.value == self.name and id(node) not in self.skip:
            self.other = True


def _added_defaults(
    mapping: ApiMapping, translation: CallTranslation, args: list, kwargs: dict
) -> dict[str, str] | None:
    """The keyword arguments the MindSpore call adds to the arguments given, as source, when the
    given ones carry over as they are (nothing renamed, dropped or transformed); else None."""
    if len(translation.args) != len(args) or not all(
        a is b for a, b in zip(translation.args, args)
    ):
        return None
    if any(translation.kwargs.get(k) is not kwargs[k] for k in kwargs):
        return None
    added: dict[str, str] = {}
    for name in translation.kwargs:
        if name in kwargs:
            continue
        source = mapping.defaults.get(name, "@")
        if source.startswith("@"):
            return None
        added[name] = source
    return added


def drop_in_defaults(
    function: cst.FunctionDef, ctx: ModuleContext
) -> dict[int, dict[str, str]]:
    """Layer classes given as parameter defaults (`act_layer=nn.ReLU`) that the MindSpore class can
    replace: the function only calls the parameter, and every call carries over unchanged except for
    keyword defaults MindSpore's class needs (`nn.GELU` -> `approximate=False`), the same in every
    call. Maps the default's node to those added defaults."""
    found: dict[int, dict[str, str]] = {}
    params = function.params
    for param in (*params.posonly_params, *params.params, *params.kwonly_params):
        if param.default is None:
            continue
        mapping = BY_TORCH_NAME.get(ctx.qualname(param.default) or "")
        if (
            mapping is None
            or mapping.kind != "class"
            or mapping.form != "call"
            or not mapping.valid_on(ctx.options.target)
        ):
            continue
        uses = _NameUses(param.name.value)
        visit(function.body, uses)
        if uses.other or not uses.calls:
            continue
        common: dict[str, str] | None = None
        for call in uses.calls:
            parts = split_call(call)
            if parts is None:
                break
            args, kwargs = parts
            translation = translate_args(mapping, args, kwargs)
            if isinstance(translation, Refusal):
                break
            added = _added_defaults(mapping, translation, args, kwargs)
            if added is None or (common is not None and added != common):
                break
            common = added
        else:
            found[id(param.default)] = common or {}
    return found


def plain(mapping: ApiMapping) -> bool:
    """A mapping whose callee can be swapped anywhere, even where it is only referenced."""
    return (
        mapping.translatable
        and mapping.form == "call"
        and not (
            mapping.rename
            or mapping.drop
            or mapping.defaults
            or mapping.transform
            # every layer refuses a `dtype=` it cannot read; a class passed on is not called here
            or set(mapping.unsafe_args) - {"dtype"}
        )
        and (mapping.positional is None)
    )


@register
class ApiTableRule(Rule):
    meta = API_META
    extra = (
        METHOD_META,
        INIT_META,
        NO_MAPPING,
        UNSAFE_ARGUMENT,
        NO_KERNEL,
        CALL_RESULT,
        VIEW_UPDATE,
        NO_DTYPE_KERNEL,
    )
    stage = API
    order = 100
    triggers = ("torch",)
    # Reads entered statements; dicts, defaults and scopes it follows have their own keeps.
    unmarked_words = ()
    methods = COUNTED_METHODS
    # `x.max(y)`: torch's max with a tensor (library/methods.py decides when it is unknown);
    # `x.sort(dim=1).values`: torch's named pair.
    watched_methods = frozenset(METHOD_ENTRIES) | PAIR_NAMES | _COLLECTING
    # Left as they are, these would run on torch's semantics only: in-place methods (MindSpore 2.10's
    # CPU ones return the result without changing the tensor) and the ambiguous names above.
    torch_only_methods = _UNSURE | frozenset(
        name
        for name, mapping in METHODS.items()
        if name.endswith("_") and (not mapping.translatable or mapping.form == "assign")
    )

    def __init__(self) -> None:
        self.method_converted = False
        # Torch names replaced by MindSpore's (`torch.float16`): id of the new node -> (the new node,
        # the torch one), to put back in the arguments of a call that stays on torch.
        self.swapped: dict[int, tuple[cst.CSTNode, cst.CSTNode]] = {}
        others: set[str] = set()
        for cls in rule_classes():
            if cls is not type(self):
                others |= cls.methods
        self.foreign_methods = frozenset(others)
        self.skip: set[int] = set()
        # Statements whose rebound in-place chain was reported (once for all its links).
        self.rebound_noted: set[int] = set()
        self.type_checked: set[int] = set()
        # Targets of assignments (`x.real = ...` stays an attribute).
        self.stored: set[int] = set()
        # Names True/False that answer feature checks, and statements ending a taken branch with a
        # return or raise (what follows them in their block never runs).
        self.answers: set[int] = set()
        self.terminal: set[int] = set()
        self.elifs: set[int] = set()
        # Findings wait for their statement to be left: another rule may still convert the call.
        self.pending: dict[int, list[tuple[str, str, str, str, str]]] = {}
        # Names of imported modules and objects: `re.sub(...)`, `math.sqrt(...)` are not Tensor methods.
        self.imported: set[str] = set()
        # The names of those imported from mindspore.
        self.mindspore_names: set[str] = set()
        # Per function: names bound to `{'device': ..., 'dtype': ...}`, and whether that was reported.
        self.placement: list[tuple[int, frozenset[str], list[bool]]] = []
        # Layer classes used as parameter defaults that the MindSpore class replaces as they are used,
        # with the keyword defaults it needs bound by `functools.partial`.
        self.drop_in: dict[int, dict[str, str]] = {}
        # How `functools` is reached: "" when the module does not bind the name, None when it binds it
        # to something else.
        self.functools: str | None = ""
        # Layer classes passed as values: parameter defaults and keyword arguments.
        self.passed: set[int] = set()
        self.located: set[int] = set()
        # Inside a type annotation a class is only named, never called: its MindSpore class stands in.
        self.annotation_depth = 0
        # Names of the classes the module compares classes or instances with.
        self.class_checks: frozenset[str] = frozenset()
        # Base classes of the module's classes: a torch layer subclassed keeps torch's constructor
        # and attributes, which its companion class provides.
        self.bases: set[int] = set()
        # The heads of attribute chains (`torch` in `torch.device`): not names of their own.
        self.inner: set[int] = set()
        # Layer constructions cast to float64 where they stand (`nn.Conv2d(...).double()`).
        self.float64_cast: set[int] = set()

    def visit_Module(self, node: cst.Module, ctx: ModuleContext) -> None:
        self._ctx = ctx
        self.class_checks = ctx.census.class_checks
        if "functools" in ctx.bound_names:
            self.functools = None
        for statement in node.body:
            for small in (
                statement.body if isinstance(statement, cst.SimpleStatementLine) else ()
            ):
                if isinstance(small, cst.Import):
                    if any(
                        a.asname is None and ctx.dotted(a.name) == "functools"
                        for a in small.names
                    ):
                        self.functools = "functools"
                    for a in small.names:
                        module = ctx.dotted(a.name) or ""
                        bound = (
                            a.asname.name.value if a.asname else module.split(".")[0]
                        )
                        self.imported.add(bound)
                        if module.split(".")[0] == "mindspore":
                            self.mindspore_names.add(bound)
                elif isinstance(small, cst.ImportFrom) and not isinstance(
                    small.names, cst.ImportStar
                ):
                    from_mindspore = (
                        small.module is not None
                        and not small.relative
                        and (ctx.dotted(small.module) or "").split(".")[0]
                        == "mindspore"
                    )
                    for a in small.names:
                        bound = a.asname.name.value if a.asname else a.name.value
                        self.imported.add(bound)
                        if from_mindspore:
                            self.mindspore_names.add(bound)

    def visit_FunctionDef(self, node: cst.FunctionDef, ctx: ModuleContext) -> None:
        self.placement.append((id(node), placement_dicts(node, ctx), [False]))
        self.drop_in.update(drop_in_defaults(node, ctx))

    def leave_FunctionDef(self, original, updated, ctx: ModuleContext):
        if self.placement and self.placement[-1][0] == id(original):
            self.placement.pop()
        return self._flush(original, updated, ctx)

    def visit_Decorator(self, node: cst.Decorator, ctx: ModuleContext) -> None:
        target = (
            node.decorator.func
            if isinstance(node.decorator, cst.Call)
            else node.decorator
        )
        self.skip.add(id(target))

    def leave_Decorator(self, original: cst.Decorator, updated, ctx: ModuleContext):
        target = (
            original.decorator.func
            if isinstance(original.decorator, cst.Call)
            else original.decorator
        )
        mapping = BY_TORCH_NAME.get(ctx.qualname(target) or "")
        if mapping is not None and mapping.form == "decorator":
            ctx.applied.add(API_META.id)
            return cst.RemoveFromParent()
        return updated

    def visit_Annotation(self, node: cst.Annotation, ctx: ModuleContext) -> None:
        self.annotation_depth += 1

    def leave_Annotation(self, original: cst.Annotation, updated, ctx: ModuleContext):
        self.annotation_depth -= 1
        return updated

    def leave_Subscript(self, original: cst.Subscript, updated, ctx: ModuleContext):
        mapping = BY_TORCH_NAME.get(ctx.qualname(original.value) or "")
        if mapping is None or mapping.form != "annotation" or len(updated.slice) != 1:
            return updated
        inner = updated.slice[0].slice
        if not isinstance(inner, cst.Index):
            return updated
        ctx.applied.add(API_META.id)
        return inner.value

    # -- where a name stands ------------------------------------------------------------------
    def visit_Call(self, node: cst.Call, ctx: ModuleContext) -> None:
        self.skip.add(id(node.func))
        cast = cast_receiver(node, ctx)
        if cast is not None:
            self.float64_cast.add(id(cast))
        if (
            isinstance(node.func, cst.Name)
            and node.func.value in _TYPE_CHECKS
            and len(node.args) == 2
        ):
            classes = node.args[1].value
            items = (
                [e.value for e in classes.elements]
                if isinstance(classes, (cst.Tuple, cst.List))
                else [classes]
            )
            self.type_checked.update(id(item) for item in items)

    def visit_ClassDef(self, node: cst.ClassDef, ctx: ModuleContext) -> None:
        self.bases.update(id(base.value) for base in node.bases if base.keyword is None)

    def visit_Arg(self, node: cst.Arg, ctx: ModuleContext) -> None:
        if node.keyword is not None:
            self.skip.add(id(node.keyword))
            self.passed.add(id(node.value))

    def visit_Param(self, node: cst.Param, ctx: ModuleContext) -> None:
        if node.default is not None:
            self.passed.add(id(node.default))

    # A name bound here (`ParamsT: TypeAlias = ...` in an import's fallback) is the module's own.
    def visit_AssignTarget(self, node: cst.AssignTarget, ctx: ModuleContext) -> None:
        if isinstance(node.target, cst.Name):
            self.skip.add(id(node.target))
        self.stored.add(id(node.target))

    def visit_AugAssign(self, node: cst.AugAssign, ctx: ModuleContext) -> None:
        self.stored.add(id(node.target))

    def visit_AnnAssign(self, node: cst.AnnAssign, ctx: ModuleContext) -> None:
        if isinstance(node.target, cst.Name):
            self.skip.add(id(node.target))

    def visit_ImportFrom(self, node: cst.ImportFrom, ctx: ModuleContext) -> None:
        if not isinstance(node.names, cst.ImportStar):
            self.skip.update(id(alias.name) for alias in node.names)

    def visit_Attribute(self, node: cst.Attribute, ctx: ModuleContext) -> None:
        self.skip.add(id(node.attr))
        self.inner.add(id(node.value))

    def leave_Attribute(self, original: cst.Attribute, updated, ctx: ModuleContext):
        field = FIELDS.get(original.attr.value)
        if (
            field is not None
            and id(original) not in self.skip
            and pair_result(
                original.value, ctx, _TENSOR_ONLY_METHODS, self._receiver_is_tensor
            )
        ):
            # torch's (values, indices) named pair is a plain tuple in MindSpore.
            ctx.applied.add(METHOD_META.id)
            pair = _unwrapped_pair(updated.value, ctx)
            # The attribute's own parentheses stay: they may hold a chain over several lines.
            item = cst.Subscript(
                pair,
                [cst.SubscriptElement(cst.Index(cst.Integer(str(field))))],
                lpar=updated.lpar,
                rpar=updated.rpar,
            )
            if (
                pair is not updated.value
                and field == 1
                and NAMED_PAIRS.get(ctx.qualname(original.value.func) or "", False)
            ):
                # the pair's int32 indices in torch's int64
                return cst.Call(
                    cst.Attribute(item, cst.Name("astype")),
                    [cst.Arg(ctx.name("mindspore.int64"))],
                )
            return item
        entry = TENSOR_ATTRIBUTES.get(original.attr.value)
        if (
            entry is not None
            # an object's own attribute (`self.H`, a height) is not a tensor's
            and not (
                isinstance(original.value, cst.Name)
                and original.value.value in ("self", "cls")
            )
            and id(original) not in self.stored
            and id(original) not in self.skip
            and ctx.qualname(original) is None
            and not self._on_imported(original)
        ):
            # torch's `x.real` is a tensor; MindSpore's is a method (the companion reads either).
            ctx.applied.add(METHOD_META.id)
            return cst.Call(ctx.companion(entry), [cst.Arg(updated.value)])
        if (
            original.attr.value == "is_sparse"
            and ctx.qualname(original) is None
            and assign_root(original.value, ctx) is not None
        ):
            # Only torch tensors have `is_sparse`, and MindSpore's Tensor is dense (it has no
            # such attribute). The receiver is a name, attribute or dict entry: nothing is lost.
            ctx.applied.add(API_META.id)
            return cst.Name("False")
        return self._reference(original, updated, ctx)

    @torch_names_only
    def leave_Name(self, original: cst.Name, updated, ctx: ModuleContext):
        if original.value not in ctx.aliases:
            return updated
        return self._reference(original, updated, ctx)

    def _reference(self, original, updated, ctx: ModuleContext):
        if id(original) in self.skip:
            return updated
        qualified = ctx.qualname(original)
        if qualified in FLOAT8 and ctx.options.target == "cpu":
            report_float8(qualified, ctx)
        mint = self._mint_class(qualified or "", ctx)
        if mint:
            ctx.applied.add(API_META.id)
            return ctx.name(mint)
        mapping = BY_TORCH_NAME.get(qualified or "")
        if (
            mapping is None
            and self.annotation_depth > 0
            and qualified in _ANNOTATED_MODULES
            and id(original) not in self.inner
        ):
            ctx.applied.add(API_META.id)
            return ctx.name(_ANNOTATED_MODULES[qualified])
        if (
            qualified in MODULE_VALUES
            and id(original) not in self.inner
            and not self.annotation_depth
        ):
            ctx.applied.add(API_META.id)
            return ctx.companion(MODULE_VALUES[qualified])
        if id(original) in self.type_checked and qualified in TYPE_CHECK_ONLY:
            ctx.applied.add(API_META.id)
            return ctx.companion(TYPE_CHECK_ONLY[qualified])
        companion = self._companion_value(original, qualified, ctx)
        if companion is not None and (
            id(original) in self.bases
            or mapping is None
            or not mapping.valid_on(ctx.options.target)
            or not (plain(mapping) or id(original) in self.drop_in)
        ):
            ctx.applied.add(API_META.id)
            return ctx.companion(companion)
        if mapping is None or not mapping.valid_on(ctx.options.target):
            return updated
        if mapping.form not in ("call", "attribute"):
            return updated
        if id(original) in self.bases and mapping.torch in _NOT_AS_BASES:
            return updated
        swappable = (
            mapping.kind == "name"
            or plain(mapping)
            or id(original) in self.drop_in
            or (self.annotation_depth > 0 and mapping.kind == "class")
        )
        if not swappable and not (
            id(original) in self.type_checked and mapping.kind == "class"
        ):
            if mapping.kind == "class" and id(original) in self.passed:
                self._passed_value(mapping, ctx)
            return updated
        added = self.drop_in.get(id(original))
        if added:
            return self._partial(mapping, added, updated, ctx)
        ctx.applied.add(API_META.id)
        new = ctx.name(mapping.mindspore)
        if mapping.kind == "name":
            self.swapped[id(new)] = (new, updated)
        return new

    def _feature_check(
        self, call: cst.Call, updated: cst.Call, ctx: ModuleContext
    ) -> cst.BaseExpression | None:
        """`hasattr(torch.nn.functional, "rms_norm")` asks whether the framework offers a function,
        to choose between it and a fallback. In the converted program the answer is whether the
        conversion maps that API on the target: True sends the code to the converted call, False to
        the fallback, which is converted like any other code."""
        looked_up = self._torch_by_name(call, updated, ctx)
        if looked_up is not None:
            return looked_up
        if not (
            isinstance(call.func, cst.Name)
            and call.func.value in ("hasattr", "getattr")
            and call.func.value not in ctx.bound_names
            and len(call.args) == (2 if call.func.value == "hasattr" else 3)
            and all(a.keyword is None and not a.star for a in call.args)
        ):
            return None
        owner = ctx.qualname(call.args[0].value)
        attribute = call.args[1].value
        if owner is None or not isinstance(attribute, cst.SimpleString):
            return None
        name = f"{owner}.{attribute.evaluated_value}"
        if call.func.value == "hasattr":
            ctx.applied.add(API_META.id)
            return self._answer(self._available(name, ctx))
        # `getattr(torch.compiler, "disable", None)`: the default where the converted program has
        # no such value; a function or class it maps as a value stands in for the attribute.
        entry = companion_entry(name, ctx.options.target)
        mapping = BY_TORCH_NAME.get(name)
        ctx.applied.add(API_META.id)
        if entry is not None:
            return ctx.companion(entry)
        if (
            mapping is not None
            and mapping.valid_on(ctx.options.target)
            and plain(mapping)
        ):
            return ctx.name(mapping.mindspore)
        if mapping is None and not self._available(name, ctx):
            return updated.args[2].value  # the default, as converted
        ctx.applied.discard(API_META.id)
        return None

    def _torch_by_name(
        self, call: cst.Call, updated: cst.Call, ctx: ModuleContext
    ) -> cst.Call | None:
        """`getattr(torch, config.dtype_name)` and `hasattr(torch, name)`: a name known at run time
        only. The companion's stand-in for the namespace answers with MindSpore's dtype of that
        name (library/namespace.py)."""
        if not (
            isinstance(call.func, cst.Name)
            and call.func.value in ("hasattr", "getattr")
            and call.func.value not in ctx.bound_names
            and len(call.args) in (2, 3)
            and all(a.keyword is None and not a.star for a in call.args)
            and ctx.qualname(call.args[0].value) == "torch"
            and not isinstance(call.args[1].value, cst.SimpleString)
        ):
            return None
        ctx.applied.add(API_META.id)
        stand_in = updated.args[0].with_changes(value=ctx.companion("torch_namespace"))
        return updated.with_changes(args=[stand_in, *updated.args[1:]])

    def leave_Comparison(self, original: cst.Comparison, updated, ctx: ModuleContext):
        """`"silu" in dir(torch.nn.functional)`: the same question as `hasattr`."""
        present = self._presence_check(original, ctx)
        if present is not None:
            return present
        if not (
            len(original.comparisons) == 1
            and isinstance(original.comparisons[0].operator, (cst.In, cst.NotIn))
            and isinstance(original.left, cst.SimpleString)
        ):
            return updated
        listing = original.comparisons[0].comparator
        if not (
            isinstance(listing, cst.Call)
            and isinstance(listing.func, cst.Name)
            and listing.func.value == "dir"
            and "dir" not in ctx.bound_names
            and len(listing.args) == 1
        ):
            return updated
        owner = ctx.qualname(listing.args[0].value)
        if owner is None:
            return updated
        found = self._available(f"{owner}.{original.left.evaluated_value}", ctx)
        if isinstance(original.comparisons[0].operator, cst.NotIn):
            found = not found
        ctx.applied.add(API_META.id)
        return self._answer(found)

    def _presence_check(
        self, original: cst.Comparison, ctx: ModuleContext
    ) -> cst.Name | None:
        """`associative_scan is not None`, where the name was imported from torch under a guard
        that binds None where torch lacks it: whether the converted program has that API. A
        torch-only feature is absent, so the library takes its plain path."""
        if not (
            len(original.comparisons) == 1
            and isinstance(original.comparisons[0].operator, (cst.Is, cst.IsNot))
            and isinstance(original.comparisons[0].comparator, cst.Name)
            and original.comparisons[0].comparator.value == "None"
        ):
            return None
        qualified = ctx.qualname(original.left)
        if qualified is None or "." not in qualified:
            return None
        found = self._available(qualified, ctx)
        if isinstance(original.comparisons[0].operator, cst.Is):
            found = not found
        ctx.applied.add(API_META.id)
        return self._answer(found)

    def visit_If(self, node: cst.If, ctx: ModuleContext) -> None:
        if isinstance(node.orelse, cst.If):
            self.elifs.add(id(node.orelse))

    def _answer(self, value: bool) -> cst.Name:
        name = cst.Name("True" if value else "False")
        self.answers.add(id(name))
        return name

    def leave_If(self, original: cst.If, updated, ctx: ModuleContext):
        updated = self._flush(original, updated, ctx)
        if not isinstance(updated, cst.If):
            return updated
        answer = constant(updated.test, self.answers)
        if answer is None:
            return updated
        drop_dead_findings(original, answer, ctx)
        if id(original) in self.elifs:
            # An `elif` stands in its parent's `orelse`: an `else` or the next `elif` replaces it.
            if answer:
                return cst.Else(body=updated.body, leading_lines=updated.leading_lines)
            return updated.orelse or cst.RemoveFromParent()
        result = taken_branch(original, updated, answer, ctx)
        if isinstance(result, cst.FlattenSentinel) and ends_the_block(result.nodes):
            self.terminal.add(id(result.nodes[-1]))
        return result

    def leave_IndentedBlock(
        self, original, updated: cst.IndentedBlock, ctx: ModuleContext
    ):
        if not self.terminal:
            return updated
        for index, statement in enumerate(updated.body):
            if id(statement) in self.terminal and index + 1 < len(updated.body):
                return updated.with_changes(body=updated.body[: index + 1])
        return updated

    @staticmethod
    def _available(name: str, ctx: ModuleContext) -> bool:
        target = ctx.options.target
        mapping = BY_TORCH_NAME.get(name)
        if mapping is not None and mapping.valid_on(target):
            return True
        if companion_entry(name, target) is not None:
            return True
        if name in MINT and target in MINT_TARGETS:
            return True
        prefix = name + "."
        return any(
            key.startswith(prefix) and BY_TORCH_NAME[key].valid_on(target)
            for key in BY_TORCH_NAME
        )

    def _companion_value(self, original, qualified, ctx: ModuleContext) -> str | None:
        """The companion entry for a torch class or function named without a call: passed as a
        value, bound to a name, or subclassed. Annotations keep the idiom class, and so do type
        checks where there is one (every companion layer class derives from it); an annotation the
        table does not know names the companion entry (`optimizer: torch.optim.Optimizer`)."""
        if qualified is None:
            return None
        if self.annotation_depth > 0 and qualified in BY_TORCH_NAME:
            # The table says what the annotation becomes, unless it refuses a class whose
            # companion class is what calls build (`generator: torch.Generator`).
            return ANNOTATED_ENTRIES.get(qualified)
        if id(original) in self.type_checked:
            # The companion class only where no idiom class exists to check against.
            mapping = BY_TORCH_NAME.get(qualified)
            if mapping is not None and mapping.valid_on(ctx.options.target):
                return None
        return companion_entry(qualified, ctx.options.target)

    def _companion_call(self, mapping_name: str, call: cst.Call, ctx: ModuleContext):
        """``ms_aux.<entry>(...)`` with the call's own arguments, or None when no entry stands for it;
        an `out=` tensor takes the entry's result through ``write_out``."""
        entry = companion_entry(mapping_name, ctx.options.target, call=True)
        if entry is None:
            return None
        ctx.applied.add(API_META.id)
        call = receiver_by_position(call)
        out = next(
            (
                a
                for a in call.args
                if a.keyword is not None and a.keyword.value == "out"
            ),
            None,
        )
        if out is not None and written_out(out.value, ctx):
            rest = [a for a in call.args if a is not out]
            if rest:
                rest[-1] = rest[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
            value = call.with_changes(func=ctx.companion(entry), args=rest)
            return cst.Call(
                ctx.companion("write_out"), [cst.Arg(out.value), cst.Arg(value)]
            )
        return call.with_changes(func=ctx.companion(entry))

    def _assign_function(self, mapping: ApiMapping, call: cst.Call, ctx: ModuleContext):
        """``ops.assign(x, <op(x, ...)>)`` for the in-place function `torch.op_(x, ...)`."""
        parts = split_call(call, self._placement_names())
        if parts is None:
            if plain(dataclasses.replace(mapping, form="call")):
                # `torch.op_(*args)`: the first of the arguments takes op's result.
                ctx.applied.add(API_META.id)
                return call.with_changes(
                    func=ctx.companion("write_in_place"),
                    args=[cst.Arg(ctx.name(mapping.mindspore)), *call.args],
                )
            self._refused(
                mapping,
                Refusal("", "arguments spread with * or **; map them by hand"),
                ctx,
            )
            return call
        args, kwargs = parts
        first = args[0] if args else kwargs.get(mapping.params[0])
        root = assign_root(first.value, ctx) if first is not None else None
        translation = translate_args(mapping, args, kwargs)
        value = (
            None
            if isinstance(translation, Refusal)
            else cst.Call(
                ctx.name(translation.mindspore), call_arguments(translation, None)
            )
        )
        if root is None and value is not None and fresh_temporary(first.value, ctx):
            # Nothing else holds a new temporary: updating it in place is computing the value.
            ctx.applied.add(API_META.id)
            return value
        if root is None or isinstance(translation, Refusal):
            self._refused(
                mapping,
                translation
                if isinstance(translation, Refusal)
                else Refusal(
                    mapping.params[0],
                    "the tensor updated in place is not a name; bind it to one first",
                ),
                ctx,
            )
            return call
        ctx.applied.add(API_META.id)
        return write_back(root, value, ctx)

    def _write_out(self, mapping: ApiMapping, args, kwargs, ctx: ModuleContext):
        """``ms_aux.write_out(t, <the call without out=>)`` for `torch.op(..., out=t)` where `t`
        names a tensor (or a tuple of them), else None."""
        out = kwargs["out"].value
        if not written_out(out, ctx):
            return None
        rest = {k: v for k, v in kwargs.items() if k != "out"}
        translation = translate_args(mapping, args, rest)
        if isinstance(translation, Refusal):
            return None
        ctx.applied.add(API_META.id)
        value = cst.Call(
            ctx.name(translation.mindspore), call_arguments(translation, None)
        )
        return cst.Call(ctx.companion("write_out"), [cst.Arg(out), cst.Arg(value)])

    def _mint_class(self, qualified: str, ctx: ModuleContext) -> str:
        """The torch-aligned `mint.nn` class that stands in for a class named without a call.

        With the mint targets, calls of the class use it too (`_function`), so every reference
        agrees. Elsewhere calls use `mindspore.nn`: a module that checks classes against this one
        keeps it on torch."""
        target = ctx.options.target
        if target not in MINT_CLASS_VALUES.get(qualified, ()):
            return ""
        if (
            target not in MINT_TARGETS
            and qualified.rsplit(".", 1)[-1] in self.class_checks
        ):
            return ""
        return MINT[qualified]

    def _partial(self, mapping: ApiMapping, added: dict[str, str], updated, ctx):
        """`functools.partial(<MindSpore class>, <added defaults>)` for a drop-in default."""
        if self.functools is None:
            self._passed_value(mapping, ctx)
            return updated
        if not self.functools:
            ctx.state.setdefault("python_imports", set()).add("functools")
        ctx.applied.add(API_META.id)
        return cst.Call(
            cst.Attribute(cst.Name("functools"), cst.Name("partial")),
            [cst.Arg(ctx.name(mapping.mindspore))]
            + [
                cst.Arg(
                    cst.parse_expression(source),
                    keyword=cst.Name(name),
                    equal=cst.AssignEqual(
                        cst.SimpleWhitespace(""), cst.SimpleWhitespace("")
                    ),
                )
                for name, source in added.items()
            ],
        )

    def _passed_value(self, mapping: ApiMapping, ctx: ModuleContext) -> None:
        """Report a layer class passed as a value where it stands, in place of TM900 there."""
        line = column = None
        info = ctx.statements.get(id(ctx.stack[-1])) if ctx.stack else None
        if info is not None:
            for use in ctx.census.uses:
                if (
                    info.line <= use.line <= info.end_line
                    and use.name == mapping.torch
                    and id(use) not in self.located
                ):
                    self.located.add(id(use))
                    line, column = use.line, use.column
                    break
        ctx.report(
            UNSAFE_ARGUMENT.id,
            f"`{mapping.torch}` is passed as a value; what calls it may pass torch's arguments, "
            f"which `{mapping.mindspore}` does not take as they are",
            f"pass a callable that builds `{mapping.mindspore}` with torch's meaning "
            f"(`functools.partial` or a small factory): {mapping.note}".rstrip(": "),
            line=line,
            column=column,
        )

    def _receiver_is_tensor(self, call: cst.Call) -> bool:
        return self._certainly_tensor(call, self._ctx)

    def _certainly_tensor(self, call: cst.Call, ctx: ModuleContext) -> bool:
        """A receiver that can only be a tensor: the result of a torch call or of a Tensor-only method,
        or of a call passing a keyword only torch's methods take (`dim=`, `keepdim=`, `unbiased=`)."""
        while True:
            if any(
                a.keyword is not None and a.keyword.value in _TORCH_ONLY_KEYWORDS
                for a in call.args
            ):
                return True
            receiver = call.func.value if isinstance(call.func, cst.Attribute) else None
            if not isinstance(receiver, cst.Call):
                return False
            if ctx.qualname(receiver.func) is not None:
                return True
            called = (ctx.dotted(receiver.func) or "").split(".")
            if (
                len(called) == 2
                and called[0] == ctx.companion_import.module
                and called[1] in _TORCH_CALL_ENTRIES
            ):
                # The companion entry a torch call became: as certain as that call was (a
                # converted tree converts again to itself).
                return True
            if (
                called[0] in self.mindspore_names
                and called[0] not in ctx.aliases
                and called[-1] not in _NOT_TENSOR_RESULTS
            ):
                # A MindSpore function or layer (code converted before, or written by hand).
                return True
            inner = receiver.func
            if (
                isinstance(inner, cst.Attribute)
                and inner.attr.value in _TENSOR_ONLY_METHODS
            ):
                return True
            call = receiver

    # -- placement dictionaries (`**dd`) ----------------------------------------------------------
    def _placement_names(self) -> frozenset[str]:
        return self.placement[-1][1] if self.placement else frozenset()

    def _placement_dropped(self, ctx: ModuleContext) -> None:
        reported = self.placement[-1][2]
        if reported[0]:
            return
        reported[0] = True
        ctx.report(
            UNSAFE_ARGUMENT.id,
            "`**` of a {'device': ..., 'dtype': ...} dict dropped from MindSpore calls in this function",
            "MindSpore places work by context (`mindspore.set_device`) and builds float32 parameters; "
            "pass `dtype=` explicitly where another dtype was requested",
            severity=WARNING,
        )

    # -- findings -------------------------------------------------------------------------------
    def _defer(
        self,
        ctx: ModuleContext,
        mapping: ApiMapping,
        rule: str,
        message: str,
        hint: str,
        severity: str = ERROR,
    ) -> None:
        if ctx.stack:
            self.pending.setdefault(id(ctx.stack[-1]), []).append(
                (mapping.torch, rule, message, hint, severity)
            )
        else:
            ctx.report(rule, message, hint, severity=severity)

    def _flush(self, original, updated, ctx: ModuleContext):
        waiting = self.pending.pop(id(original), None)
        if waiting:
            left = remaining_calls(updated, ctx)
            for torch_name, rule, message, hint, severity in waiting:
                if torch_name in left or "." + torch_name.rsplit(".", 1)[1] in left:
                    ctx.report(rule, message, hint, node=original, severity=severity)
        return updated

    leave_SimpleStatementLine = leave_For = leave_While = leave_With = _flush
    leave_Try = leave_TryStar = leave_ClassDef = leave_Match = _flush

    # -- calls ----------------------------------------------------------------------------------
    def leave_Call(self, original: cst.Call, updated: cst.Call, ctx: ModuleContext):
        answered = self._feature_check(original, updated, ctx)
        if answered is not None:
            return answered
        qualified = ctx.qualname(original.func)
        if qualified is not None and ctx.qualname(updated.func) != qualified:
            return updated  # an earlier rule already converted this call
        if qualified is not None:
            mapping = BY_TORCH_NAME.get(qualified)
            if (
                mapping is None
                and qualified in MINT
                and ctx.options.target in MINT_TARGETS
            ):
                ctx.applied.add(API_META.id)
                return updated.with_changes(func=ctx.name(MINT[qualified]))
            if qualified == "torch.Tensor":
                updated = _legacy_sizes(updated, ctx)
            if mapping is None or mapping.kind in ("method", "name"):
                result = (
                    self._companion_call(qualified, without_out_none(updated), ctx)
                    if mapping is None or mapping.kind == "name"
                    else None
                ) or updated
            else:
                result = self._float64_layer(
                    mapping, original, updated, ctx
                ) or self._function(mapping, updated, ctx, original)
            if (
                self.swapped
                and isinstance(result, cst.Call)
                and ctx.qualname(result.func) == qualified
            ):
                # The call stays on torch: its arguments keep torch's names (`dtype=torch.float16`).
                result = visit(result, _Restore(self.swapped))
            return result
        func = updated.func
        if isinstance(func, cst.Attribute):
            name = func.attr.value
            if name in _PARAMETER_METHODS:
                companion = self._parameter_method(original, updated, ctx)
                if companion is not None:
                    return companion
            if name in METHOD_ENTRIES and not self._on_imported(func):
                compared = max_min_method(original, updated, ctx, _TENSOR_ONLY_METHODS)
                if compared is not None:
                    return compared
            if name == "type" and not self._on_imported(func):
                typed = tensor_type(original, updated, ctx)
                if typed is not None:
                    return typed
            mapping = METHODS.get(name)
            if mapping is not None and name not in self.foreign_methods:
                self.method_converted = False
                result = self._method(mapping, original, updated, ctx)
                if self.method_converted and name in _UNSURE:
                    # The name alone would read as a torch-only leftover to the import rule.
                    ctx.state.setdefault(CONVERTED_CALLS, set()).add(id(result))
                    ctx.keep.append(result)
                return result
        return updated

    def _float64_layer(self, mapping, original, updated, ctx: ModuleContext):
        """A layer made in float64 (see float64_layers): the companion class where it computes
        float64, a TM960 finding where no CPU kernel does."""
        if mapping.kind != "class" or not made_float64(
            original, self.float64_cast, ctx
        ):
            return None
        if mapping.torch in NO_FLOAT64_KERNEL and ctx.options.target == "cpu":
            report_float64(mapping.torch, ctx)
        if mapping.torch in FLOAT64_COMPANIONS:
            return self._companion_call(mapping.torch, without_out_none(updated), ctx)
        return None

    def _on_imported(self, func: cst.Attribute) -> bool:
        """Whether ``func`` is reached from an imported module or object (`re.sub`, `np.dot`),
        or from the MindSpore names rules write (`mindspore.ops.norm(g)`, not yet shortened)."""
        root = func.value
        while isinstance(root, cst.Attribute):
            root = root.value
        return isinstance(root, cst.Name) and (
            root.value in self.imported or root.value == "mindspore"
        )

    def _parameter_method(self, original: cst.Call, call: cst.Call, ctx: ModuleContext):
        """``ms_aux.requires_grad_(x, flag)`` for ``x.requires_grad_(flag)``, and
        ``ms_aux.detach_(p)`` for ``p.detach_()`` where ``p`` is a loop variable over a module's
        parameters (library/methods.py says what each does)."""
        func: cst.Attribute = call.func  # type: ignore[assignment]
        if self._on_imported(func) or any(a.star for a in call.args):
            return None
        name = func.attr.value
        if name == "requires_grad_" and _flag_on_any(call, ctx):
            return self._parameter_companion(name, func, call, ctx)
        if name == "detach_":
            receiver = ctx.dotted(func.value)
            if call.args or receiver is None:
                return None
            proof = detach_receiver(ctx.position(original)[0], receiver, ctx)
            if proof == LEAF:
                # Cleared flag: a leaf, which a plain MindSpore tensor returns as it is.
                leaf = cst.Arg(
                    cst.Name("True"),
                    keyword=cst.Name("leaf"),
                    equal=cst.AssignEqual(
                        cst.SimpleWhitespace(""), cst.SimpleWhitespace("")
                    ),
                )
                return self._parameter_companion(
                    name, func, call.with_changes(args=[leaf]), ctx
                )
            if proof is None and not isinstance(func.value, cst.Name):
                return None
            if proof is None and not _in_parameter_loop(original, ctx):
                ctx.report(
                    UNSAFE_ARGUMENT.id,
                    f"`{func.value.value}.detach_()` is left as it is: `{func.value.value}` is not "
                    "known to be a Parameter, and MindSpore cannot cut a computed tensor from its "
                    "graph in place",
                    "write `y = ops.stop_gradient(y)` where y is used; a Parameter stops "
                    "requiring gradients with `p.requires_grad = False`",
                )
                return None
        elif len(call.args) > 1 or not (
            isinstance(func.value, cst.Attribute)
            or _in_parameter_loop(original, ctx)
            or _clears_flag(call)
        ):
            # A plain name is the autograd rules' leaf marking (rules/autograd); clearing the
            # flag marks nothing, and the companion decides what it clears.
            return None
        return self._parameter_companion(name, func, call, ctx)

    def _parameter_companion(
        self, name: str, func: cst.Attribute, call: cst.Call, ctx: ModuleContext
    ) -> cst.Call:
        ctx.applied.add(API_META.id)
        result = cst.Call(ctx.companion(name), [cst.Arg(func.value), *call.args])
        # `ms_aux.requires_grad_` would read as a torch-only leftover to the import rule.
        ctx.state.setdefault(CONVERTED_CALLS, set()).add(id(result))
        ctx.keep.append(result)
        return result

    def _usable(
        self,
        mapping: ApiMapping,
        ctx: ModuleContext,
        severity: str = ERROR,
        quiet: bool = False,
    ) -> bool:
        if quiet:
            return mapping.valid_on(ctx.options.target)
        if not mapping.translatable:
            self._defer(
                ctx,
                mapping,
                NO_MAPPING.id,
                f"`{mapping.torch}` has no certain MindSpore mapping",
                mapping.note,
            )
            return False
        target = ctx.options.target
        if not mapping.valid_on(target):
            self._defer(
                ctx,
                mapping,
                NO_KERNEL.id,
                f"`{mapping.torch}` maps to `{mapping.mindspore}`, which MindSpore 2.10 runs on "
                f"{', '.join(mapping.targets)} only, not on {target}",
                mapping.note,
                severity,
            )
            return False
        return True

    def _refused(
        self, mapping: ApiMapping, refusal: Refusal, ctx: ModuleContext
    ) -> None:
        argument = f" argument `{refusal.argument}`" if refusal.argument else ""
        self._defer(
            ctx,
            mapping,
            UNSAFE_ARGUMENT.id,
            f"`{mapping.torch}`{argument} cannot be carried over with certainty",
            refusal.reason or mapping.note,
        )

    def _function(
        self,
        mapping: ApiMapping,
        call: cst.Call,
        ctx: ModuleContext,
        original: cst.Call | None = None,
    ):
        call = without_out_none(call)
        if mapping.torch in PAIRWISE and original is not None:
            pairwise, entry = PAIRWISE[mapping.torch]
            form = second_argument(original, ctx, _TENSOR_ONLY_METHODS, 1)
            if form == TENSOR:
                mapping = BY_TORCH_NAME[pairwise]
            elif form in (UNKNOWN, NONE):
                return decided_at_run_time(entry, call, ctx)
        target = ctx.options.target
        mint = MINT.get(mapping.torch)
        if (
            mint
            and target in MINT_TARGETS
            and not any(a.keyword and a.keyword.value == "out" for a in call.args)
        ):
            ctx.applied.add(API_META.id)
            return call.with_changes(func=ctx.name(mint))
        if not self._usable(mapping, ctx, quiet=True):
            companion = self._companion_call(mapping.torch, call, ctx)
            if companion is not None:
                return companion
            self._usable(mapping, ctx)
            return call
        if mapping.form == "constant":
            ctx.applied.add(API_META.id)
            return cst.parse_expression(mapping.mindspore)
        if mapping.form in ("decorator", "annotation"):
            return call
        if mapping.form == "assign":
            return self._assign_function(mapping, call, ctx)
        parts = split_call(call, self._placement_names())
        if parts is None:
            packed = _packed_sizes(mapping, call, self._placement_names())
            if packed is not None:
                if len(packed) < len(call.args):
                    self._placement_dropped(ctx)
                ctx.applied.add(API_META.id)
                return call.with_changes(
                    func=ctx.name(mapping.mindspore),
                    args=[cst.Arg(cst.Tuple([*packed]))],
                )
            if plain(mapping):
                ctx.applied.add(API_META.id)
                return call.with_changes(func=ctx.name(mapping.mindspore))
            companion = self._companion_call(mapping.torch, call, ctx)
            if companion is not None:
                return companion
            self._refused(
                mapping,
                Refusal("", "arguments spread with * or **; map them by hand"),
                ctx,
            )
            return call
        args, kwargs = parts
        args = _leading_default(mapping, args, kwargs)
        if (
            mapping.kind == "class"
            and mapping.torch.startswith("torch.nn.")
            and passes_list(call, ctx)
        ):
            # MindSpore's layers raise on a list of sizes; the companion class takes torch's forms.
            companion = self._companion_call(mapping.torch, call, ctx)
            if companion is not None:
                return companion
        if mapping.kind == "class" and keeps_torch_attributes(mapping.torch, ctx):
            # A package's layers are read through torch's attribute names (library_layers.py).
            companion = self._companion_call(mapping.torch, call, ctx)
            if companion is not None:
                return companion
        if len(args) + len(kwargs) < len(call.args):
            self._placement_dropped(ctx)
        kwargs = drop_default_generator(kwargs)
        if mapping.form == "initializer":
            return self._initializer(mapping, call, args, kwargs, ctx)
        into = out_is_input(args, kwargs, call, ctx)
        if into is not None:
            # `torch.round(x, out=x)`: the result written into the input itself.
            kwargs = {k: v for k, v in kwargs.items() if k != "out"}
            translation = translate_args(mapping, args, kwargs)
            if not isinstance(translation, Refusal):
                ctx.applied.add(API_META.id)
                value = cst.Call(
                    ctx.name(translation.mindspore), call_arguments(translation, None)
                )
                return write_back(into, value, ctx)
        if into is None and "out" in kwargs:
            written = self._write_out(mapping, args, kwargs, ctx)
            if written is not None:
                return written
        args, kwargs = drop_rebound_inplace(mapping, args, kwargs, original, ctx)
        args, kwargs = fold_legacy_reduction(mapping, args, kwargs)
        translation = translate_args(mapping, args, kwargs)
        if isinstance(translation, Refusal):
            if writes_into_a_slice(mapping, call, ctx):
                self._refused(mapping, Refusal("inplace", _SLICE_WRITE), ctx)
                return call
            companion = self._companion_call(mapping.torch, call, ctx)
            if companion is not None:
                return companion
            self._refused(mapping, translation, ctx)
            return call
        ctx.applied.add(API_META.id)
        result = call.with_changes(
            func=ctx.name(translation.mindspore), args=call_arguments(translation, call)
        )
        if mapping.torch in COMPLEX_DEFAULT and complex_default(call):
            result = result.with_changes(
                args=[
                    *result.args[:-1],
                    result.args[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT),
                    cst.Arg(
                        ctx.name("mindspore.complex64"),
                        keyword=cst.Name("dtype"),
                        equal=cst.AssignEqual(
                            cst.SimpleWhitespace(""), cst.SimpleWhitespace("")
                        ),
                    ),
                ]
            )
        if mapping.torch in NAMED_PAIRS and (
            NAMED_PAIRS[mapping.torch] or _reads_pair_names(ctx)
        ):
            # torch's (values, indices) named tuple, with int64 indices
            result = cst.Call(ctx.companion("values_indices"), [cst.Arg(result)])
        if mapping.result_dtype:
            # torch's dtype for the result, where MindSpore's op gives another
            result = cst.Call(
                cst.Attribute(result, cst.Name("astype")),
                [cst.Arg(ctx.name("mindspore." + mapping.result_dtype))],
            )
        return result

    def _initializer(self, mapping, call, args, kwargs, ctx: ModuleContext):
        tensor = (
            args[0].value
            if args
            else (kwargs["tensor"].value if "tensor" in kwargs else None)
        )
        item = (
            stored_item(tensor, call, ctx)
            if tensor is not None and ctx.dotted(tensor) is None
            else None
        )
        if item is not None:
            translation = translate_args(mapping, args, kwargs)
            if isinstance(translation, Refusal):
                self._refused(mapping, translation, ctx)
                return call
            # Part of a tensor initialised: the new values are stored back into that part.
            ctx.applied.add(INIT_META.id)
            fill = _initializer_fill(translation, tensor, ctx)
            base, index = item
            # `init_data()`: the values themselves (an initializer is computed lazily otherwise).
            values = cst.Call(cst.Attribute(fill, cst.Name("init_data")), [])
            return cst.Call(
                ctx.companion("assign_item"),
                [cst.Arg(base), cst.Arg(index), cst.Arg(values)],
            )
        # An expression (`w[i].view(shape)`), or a name that may hold one (a function's
        # parameter): the companion fills it in place, through a view into what it views.
        # `set_data`, the idiom, is a Parameter's (`m.weight`). Arguments the idiom refuses
        # (`generator=`) stay reported.
        if not isinstance(tensor, cst.Attribute) and not isinstance(
            translate_args(mapping, args, kwargs), Refusal
        ):
            companion = self._companion_call(mapping.torch, call, ctx)
            if companion is not None:
                return companion
        if tensor is None or ctx.dotted(tensor) is None:
            self._refused(
                mapping,
                Refusal(
                    "tensor", "the tensor is used three times; bind it to a name first"
                ),
                ctx,
            )
            return call
        translation = translate_args(mapping, args, kwargs)
        if isinstance(translation, Refusal):
            self._refused(mapping, translation, ctx)
            return call
        fill = _initializer_fill(translation, tensor, ctx)
        ctx.applied.add(INIT_META.id)
        return cst.Call(
            cst.Attribute(tensor.deep_clone(), cst.Name("set_data")), [cst.Arg(fill)]
        )

    def _method(
        self,
        mapping: ApiMapping,
        original: cst.Call,
        call: cst.Call,
        ctx: ModuleContext,
    ):
        name = call.func.attr.value  # type: ignore[attr-defined]
        if self._on_imported(call.func):  # type: ignore[arg-type]
            return call
        if name.endswith("_") and writes_grad_state(original, ctx):
            self._defer(
                ctx,
                mapping,
                "TM927",
                f"`.{name}()` writes into `.grad` outside an optimizer's `step`: a converted "
                "training step holds its gradients as values (`grads`) and hands them to "
                "`optimizer(grads)`, which sets `.grad` only for its own step, so here `.grad` "
                "is empty or the last step's",
                "change the gradient values the step computes before it applies them: "
                "`grads = tuple(clip(p, g) for p, g in zip(optimizer.parameters, grads))`",
            )
            return call
        if name in AMBIGUOUS and name not in _UNSURE:
            return _collected_by_name(mapping, call, ctx)
        if name in _UNSURE and not self._certainly_tensor(original, ctx):
            keywords = {a.keyword.value for a in call.args if a.keyword is not None}
            if keywords and keywords <= set(mapping.rename.values()) - set(
                mapping.rename
            ):
                # Already in MindSpore's form (`x.squeeze(axis=1)`, as a first conversion writes
                # it): numpy and MindSpore read it alike, torch takes the alias or fails loudly.
                self.method_converted = True
                return call
            # library/methods.py: an entry that decides when the program runs.
            entry = companion_entry(mapping.torch, ctx.options.target, call=True)
            if entry is not None:
                # The companion decides when the program runs: torch's meaning for a MindSpore
                # tensor, the object's own method for anything else.
                self.method_converted = True
                ctx.applied.add(API_META.id)
                return cst.Call(
                    ctx.companion(entry),
                    [cst.Arg(call.func.value), *call.args],  # type: ignore[attr-defined]
                )
            self._defer(
                ctx,
                mapping,
                UNSAFE_ARGUMENT.id,
                f"`.{name}()` is left as it is: numpy arrays and builtins have it too, and for a tensor "
                f"it becomes `{mapping.mindspore}`",
                f"if the receiver is a tensor, write the MindSpore form: {mapping.note or mapping.mindspore}",
            )
            return call
        if _idiom_excepted(name, call):
            companion = self._method_companion(mapping, call, ctx)
            if companion is not None:
                return companion
        if not mapping.valid_on(ctx.options.target):
            rebinding = self._rebinding(name, call, ctx)
            if rebinding is not None:
                return rebinding
            if mapping.form == "assign":
                assigned = self._assigned_companion(mapping, original, call, ctx)
                if assigned is not None:
                    return assigned
            companion = self._method_companion(mapping, call, ctx)
            if companion is not None:
                return companion
        if not self._usable(mapping, ctx, severity=WARNING):
            return call
        parts = split_call(call)
        func: cst.Attribute = call.func  # type: ignore[assignment]
        if parts is None:
            # `x.new_ones(*shape)`: a companion entry collects the sizes as torch does.
            companion = self._method_companion(mapping, call, ctx)
            return call if companion is None else companion
        args, kwargs = parts
        root = None
        fresh = False
        item = None
        if mapping.form == "assign":
            root = assign_root(func.value, ctx)
            fresh = root is None and fresh_temporary(original.func.value, ctx)  # type: ignore[attr-defined]
            if root is None and not fresh:
                fresh = call_result(
                    original.func.value,  # type: ignore[attr-defined]
                    original,
                    ctx,
                    _TENSOR_METHOD_NAMES,
                )
                if fresh:
                    ctx.report(
                        CALL_RESULT.id,
                        f"`.{name}()` on the result of a call becomes `.{name[:-1]}()`: the "
                        "result is taken to be a value the call has just computed",
                        CALL_RESULT.use_instead,
                        severity=WARNING,
                    )
            if root is None and not fresh:
                item = stored_item(func.value, original, ctx)
            if root is None and not fresh and item is None:
                item, fresh = self._chain_link(original, func.value, ctx)
            if root is None and not fresh and item is None:
                self._refused(
                    mapping,
                    Refusal(
                        "",
                        "the tensor is named twice in `ops.assign(x, x.op(...))`; bind it to a name first",
                    ),
                    ctx,
                )
                return call
        receiver = cst.Arg(func.value)
        translation = translate_args(mapping, [receiver, *args], kwargs)
        if isinstance(translation, Refusal):
            if refusal_is_arity(translation):
                return call  # more arguments than the Tensor method takes: not a Tensor
            # The idiom cannot take these arguments (`x.median()` without dim): a companion
            # entry that takes torch's does, where the receiver can only be a tensor (a
            # DataFrame's `median()` is no Tensor method).
            companion = (
                self._method_companion(mapping, call, ctx)
                if self._certainly_tensor(original, ctx)
                else None
            )
            if companion is not None and companion is not call:
                self.method_converted = True
                return companion
            self._refused(mapping, translation, ctx)
            return call
        self.method_converted = True
        leaf = translation.mindspore.rsplit(".", 1)[1]
        if fresh:
            # Nothing else holds a new temporary: updating it in place is computing the new value.
            ctx.applied.add(METHOD_META.id)
            if translation.mindspore.startswith("mindspore.Tensor."):
                rest = CallTranslation(
                    translation.mindspore, translation.args[1:], translation.kwargs
                )
                return call.with_changes(
                    func=func.with_changes(attr=cst.Name(leaf)),
                    args=call_arguments(rest, call),
                )
            return cst.Call(
                ctx.name(translation.mindspore), call_arguments(translation, None)
            )
        if root is not None or item is not None:
            ctx.applied.add(METHOD_META.id)
            if translation.mindspore.startswith("mindspore.Tensor."):
                rest = CallTranslation(
                    translation.mindspore, translation.args[1:], translation.kwargs
                )
                value = call.with_changes(
                    func=func.with_changes(attr=cst.Name(leaf)),
                    args=call_arguments(rest, call),
                )
            else:
                value = cst.Call(
                    ctx.name(translation.mindspore), call_arguments(translation, None)
                )
            if item is not None:
                # `x[i].add_(v)`: the new part is stored back (library/methods.py says how).
                base, index = item
                return cst.Call(
                    ctx.companion("assign_item"),
                    [cst.Arg(base), cst.Arg(index), cst.Arg(value)],
                )
            # `ops.assign`, not `Tensor.assign_value`: MindSpore 2.10 refuses `assign_value` on a
            # tensor that has been an input of `mindspore.grad`.
            return write_back(root, value, ctx)
        if translation.mindspore.startswith("mindspore.Tensor."):
            rest = CallTranslation(
                translation.mindspore, translation.args[1:], translation.kwargs
            )
            if mapping.form == "attribute":
                return self._attribute(func.value, leaf, rest, ctx)
            if leaf == func.attr.value and unchanged(rest, args, kwargs):
                return call
            ctx.applied.add(METHOD_META.id)
            return call.with_changes(
                func=func.with_changes(attr=cst.Name(leaf)),
                args=call_arguments(rest, call),
            )
        ctx.applied.add(METHOD_META.id)
        return call.with_changes(
            func=ctx.name(translation.mindspore), args=call_arguments(translation, call)
        )

    def _rebinding(self, name: str, call: cst.Call, ctx: ModuleContext):
        """`(x := ops.swapaxes(x, 0, 1))` for `x.transpose_(0, 1)`, from the mapping of the
        `torch.*` function of the out-of-place method (rules/api/shape_rebind.py); else None."""
        target = rebinding_target(call, ctx)
        function = BY_TORCH_NAME.get("torch." + SHAPE_METHODS.get(name, ""))
        parts = split_call(call)
        if target is None or function is None or not function.translatable:
            return None
        mapping = method_from_function(function, name, "call")
        if mapping is None or parts is None:
            return None
        args, kwargs = parts
        translation = translate_args(mapping, [cst.Arg(target), *args], kwargs)
        if isinstance(translation, Refusal):
            return None
        ctx.applied.add(METHOD_META.id)
        value = cst.Call(
            ctx.name(translation.mindspore), call_arguments(translation, None)
        )
        return rebound(target, value)

    def _chain_link(self, original: cst.Call, receiver, ctx: ModuleContext):
        """(item, fresh) for an in-place link of a chain rules/api/inplace_chain.py accepts: the
        (base, index) the outermost link of an item chain stores into, or True where the link
        is written out of place; (None, False) otherwise."""
        on_item = item_chain(original, ctx, _assigned_in_place)
        if on_item is not None:
            above, links = on_item
            if above:
                return None, True  # the outermost link stores the chain's value
            for _ in range(links - 1):  # down the converted links to the item
                if not isinstance(receiver, cst.Call) or not isinstance(
                    receiver.func, cst.Attribute
                ):
                    return None, False
                receiver = receiver.func.value
            return item_parts(receiver, ctx), False
        origin = rebound_chain(original, ctx, _assigned_in_place)
        if origin is None:
            return None, False
        statement = ctx.stack[-1]
        if origin == PRODUCED and id(statement) not in self.rebound_noted:
            self.rebound_noted.add(id(statement))
            name = statement.body[0].targets[0].target.value
            ctx.report(
                UNSAFE_ARGUMENT.id,
                f"in-place `{original.func.attr.value}` written out of place: its result "
                f"rebinds `{name}`, which holds the same values either way; torch also changes "
                f"the tensor `{name}` held before when a conversion such as `.to()` returned it "
                "unchanged, which only the loop or call that gave it could still read",
                "if that producer reads the tensor again, update it there: "
                "`ops.assign(t, t.sub(m))` on a name `t` for it",
                severity=WARNING,
            )
        return None, True

    def _assigned_companion(
        self,
        mapping: ApiMapping,
        original: cst.Call,
        call: cst.Call,
        ctx: ModuleContext,
    ):
        """``ops.assign(x, ms_aux.<op>(x, ...))`` for `x.op_(...)` where the companion entry of the
        out-of-place `op` serves it and `x` may be named again; ``ms_aux.<op>(t, ...)`` where the
        receiver is a new temporary nothing else holds (`torch.zeros(n).scatter_add_(...)`);
        else None."""
        func: cst.Attribute = call.func  # type: ignore[assignment]
        root = assign_root(func.value, ctx)
        base = BY_TORCH_NAME.get(mapping.torch[:-1])
        if base is None:
            return None
        fresh = root is None and fresh_temporary(original.func.value, ctx)  # type: ignore[attr-defined]
        if root is None and not fresh:
            return None
        value = self._method_companion(base, call, ctx)
        if value is None or value is call:
            return None
        if fresh:
            return value
        return write_back(root, value, ctx)

    def _method_companion(
        self, mapping: ApiMapping, call: cst.Call, ctx: ModuleContext
    ):
        """``ms_aux.<entry>(receiver, <the call's arguments>)`` for a Tensor method served by a
        companion entry; the call as it is (and no finding) when its arguments are not that
        method's (`self.unfold(x)` calls a layer); None when no entry serves the method."""
        params = COMPANION_METHOD_PARAMS.get(mapping.torch)
        optional = params is None
        if optional:
            params = TENSOR_OPS_PARAMS.get(mapping.torch)
        entry = companion_entry(mapping.torch, ctx.options.target, call=True)
        parts = split_call(call)
        receiver = call.func.value  # type: ignore[attr-defined]
        if parts is None and params and params[0] == "size" and entry is not None:
            # `x.new_ones(*shape)`: the entry collects torch's size positionals as torch does.
            stars = [a for a in call.args if a.star]
            if (
                len(stars) == 1
                and stars[0].star == "*"
                and call.args[0] is stars[0]
                and not (
                    isinstance(receiver, cst.Name) and receiver.value in ("self", "cls")
                )
            ):
                ctx.applied.add(METHOD_META.id)
                return cst.Call(ctx.companion(entry), [cst.Arg(receiver), *call.args])
        if (
            parts is None
            and params
            and params[0] != "size"  # torch collects sizes as varargs: served above
            and not params[0].startswith("*")
            and entry is not None
            and not (
                isinstance(receiver, cst.Name) and receiver.value in ("self", "cls")
            )
        ):
            # `x.split_with_sizes(*args)`: the entry takes torch's parameters in torch's order,
            # so what is spread reaches it as it would reach the method.
            ctx.applied.add(METHOD_META.id)
            return cst.Call(ctx.companion(entry), [cst.Arg(receiver), *call.args])
        if params is None or entry is None or parts is None:
            return None
        args, kwargs = parts
        given = list(params[: len(args)]) + list(kwargs)
        if (
            len(args) > len(params)
            or (sorted(given) != sorted(params) and not optional)
            or not set(given) <= set(params)
            or (isinstance(receiver, cst.Name) and receiver.value in ("self", "cls"))
        ):
            return call
        ctx.applied.add(METHOD_META.id)
        return cst.Call(ctx.companion(entry), [cst.Arg(receiver), *call.args])

    def _attribute(
        self, receiver, leaf: str, rest: CallTranslation, ctx: ModuleContext
    ):
        attribute = cst.Attribute(receiver, cst.Name(leaf))
        index = rest.args[0] if rest.args else next(iter(rest.kwargs.values()), None)
        ctx.applied.add(METHOD_META.id)
        if index is None:
            return attribute
        return cst.Subscript(attribute, [cst.SubscriptElement(cst.Index(index.value))])


def _unwrapped_pair(value: cst.BaseExpression, ctx: ModuleContext):
    """The MindSpore pair inside `ms_aux.values_indices(pair)`, whose one field is read right
    away (`torch.sort(x).values`); any other value as it is."""
    if (
        isinstance(value, cst.Call)
        and isinstance(value.func, cst.Attribute)
        and value.func.attr.value == "values_indices"
        and isinstance(value.func.value, cst.Name)
        and value.func.value.value == ctx.companion_import.module
        and len(value.args) == 1
    ):
        return value.args[0].value
    return value


def _reads_pair_names(ctx: ModuleContext) -> bool:
    """Whether the module reads `.values` or `.indices` anywhere (a fact of its text)."""
    return bool(ctx.lines_with(".values") or ctx.lines_with(".indices"))


def written_out(value: cst.BaseExpression, ctx: ModuleContext) -> bool:
    """Whether an `out=` value names tensors that can be written into: `t`, `self.t`, or a tuple
    or list of such names (an item `x[0]` may be a copy in MindSpore)."""
    if isinstance(value, (cst.Tuple, cst.List)):
        return bool(value.elements) and all(
            written_out(element.value, ctx) for element in value.elements
        )
    return ctx.dotted(value) is not None and ctx.qualname(value) is None


_SLICE_WRITE = (
    "inplace=True on a slice of another tensor also changes that tensor in torch; "
    "MindSpore's indexing copies: write the result back, `h[:, 0] = F.relu(h[:, 0])`"
)


def _assigned_in_place(name: str) -> bool:
    """Whether the Tensor method ``name`` is an in-place one written through `ops.assign`."""
    mapping = METHODS.get(name)
    return mapping is not None and mapping.form == "assign"


def _collected_by_name(mapping: ApiMapping, call: cst.Call, ctx: ModuleContext):
    """`x.view(size=(2, 3))`, `x.reshape(shape=s)`: torch's collected positionals given by name
    become the one positional, which MindSpore's method (and numpy's `reshape`) reads the same;
    numpy's `view` takes no `size=`, so a program passing it had a tensor. Any other call of a
    method numpy or the builtins have too is left as it is."""
    if len(call.args) != 1:
        return call
    arg = call.args[0]
    if arg.star or arg.keyword is None or "*" + arg.keyword.value not in mapping.params:
        return call
    ctx.applied.add(METHOD_META.id)
    return call.with_changes(
        args=[arg.with_changes(keyword=None, equal=cst.MaybeSentinel.DEFAULT)]
    )


def _idiom_excepted(name: str, call: cst.Call) -> bool:
    """Whether the call gives an argument for which the method's idiom does not hold
    (rules/companion/table_tensor_methods.IDIOM_EXCEPT)."""
    exceptions = IDIOM_EXCEPT.get(name)
    if not exceptions:
        return False
    positional = [a for a in call.args if a.keyword is None and not a.star]
    named = {a.keyword.value: a for a in call.args if a.keyword is not None}
    empty = cst.Module([])
    for parameter, position, values in exceptions:
        arg = named.get(parameter)
        if arg is None and position < len(positional):
            arg = positional[position]
        if arg is None:
            continue
        source = empty.code_for_node(arg.value).replace(" ", "")
        if "*" in values or source in values:
            return True
        if "<not int>" in values and not source.lstrip("-").isdigit():
            return True
    return False


def _clears_flag(call: cst.Call) -> bool:
    """`x.requires_grad_(False)` or `x.requires_grad_(requires_grad=False)`."""
    if len(call.args) != 1:
        return False
    arg = call.args[0]
    if arg.keyword is not None and arg.keyword.value != "requires_grad":
        return False
    return isinstance(arg.value, cst.Name) and arg.value.value == "False"


def _flag_on_any(call: cst.Call, ctx: ModuleContext) -> bool:
    """`x.requires_grad_(flag)` with a flag known only at run time, in a module that never runs
    backward: the autograd rules mark no leaf with it (they take a literal True), and no gradient
    of the module depends on it, so the companion's `requires_grad_` serves whatever `x` is (a
    Cell's or Parameter's flags, a plain tensor returned as it is)."""
    if len(call.args) != 1:
        return False
    arg = call.args[0]
    if arg.keyword is not None and arg.keyword.value != "requires_grad":
        return False
    if isinstance(arg.value, cst.Name) and arg.value.value in ("True", "False"):
        return False
    runs_backward = ctx.state.get(_RUNS_BACKWARD)
    if runs_backward is None:
        runs_backward = any(use.name in _BACKWARD_USES for use in ctx.census.uses)
        ctx.state[_RUNS_BACKWARD] = runs_backward
    return not runs_backward


_RUNS_BACKWARD = "tm401.runs_backward"
_BACKWARD_USES = frozenset(
    {".backward", "torch.autograd.grad", "torch.autograd.backward"}
)


def _in_parameter_loop(call: cst.Call, ctx: ModuleContext) -> bool:
    """Whether the receiver of ``call`` is a name a loop over a module's parameters binds."""
    receiver = call.func.value  # type: ignore[attr-defined]
    if not isinstance(receiver, cst.Name):
        return False
    line = ctx.position(call)[0]
    return any(
        receiver.value in names and first <= line <= last
        for names, first, last in parameter_loops(ctx)
    )


def _packed_sizes(mapping: ApiMapping, call: cst.Call, placement: frozenset):
    """`torch.zeros(1, n, *size)`: the sizes as elements of one tuple, for a function MindSpore
    gives the sizes as a tuple (`ops.zeros((1, n, *size))`); a `**dict` of device and dtype only
    is left out. None when the call has other arguments or the sizes are spread in MindSpore too."""
    if mapping.spread or not mapping.params or not mapping.params[0].startswith("*"):
        return None
    elements = []
    for arg in call.args:
        if (
            arg.star == "**"
            and isinstance(arg.value, cst.Name)
            and arg.value.value in placement
        ):
            continue
        if arg.keyword is not None or arg.star == "**":
            return None
        if arg.star == "*":
            elements.append(cst.StarredElement(arg.value))
        else:
            elements.append(cst.Element(arg.value))
    if not any(isinstance(e, cst.StarredElement) for e in elements):
        return None
    return elements


def _initializer_fill(
    translation: CallTranslation, tensor, ctx: ModuleContext
) -> cst.Call:
    """`initializer(<the MindSpore initializer>, tensor.shape, tensor.dtype)`."""
    init = cst.Call(ctx.name(translation.mindspore), call_arguments(translation, None))
    return cst.Call(
        ctx.name(_INITIALIZER),
        [
            cst.Arg(init),
            cst.Arg(cst.Attribute(tensor.deep_clone(), cst.Name("shape"))),
            cst.Arg(cst.Attribute(tensor.deep_clone(), cst.Name("dtype"))),
        ],
    )


def _legacy_sizes(call: cst.Call, ctx: ModuleContext) -> cst.Call:
    """`torch.Tensor(x.shape)` reads a torch.Size as sizes, a tuple as data; converted shapes are
    tuples, so a shape written out is passed as sizes (`*x.shape`). A lone name may hold either:
    it is read as data, and said so."""
    if len(call.args) != 1 or call.args[0].star or call.args[0].keyword is not None:
        return call
    value = call.args[0].value
    is_shape = (isinstance(value, cst.Attribute) and value.attr.value == "shape") or (
        isinstance(value, cst.Call)
        and isinstance(value.func, cst.Attribute)
        and value.func.attr.value == "size"
        and not value.args
    )
    if is_shape:
        return call.with_changes(args=[call.args[0].with_changes(star="*")])
    if isinstance(value, (cst.Name, cst.Attribute, cst.Subscript)):
        ctx.report(
            UNSAFE_ARGUMENT.id,
            "`torch.Tensor(value)` reads a tuple or list as data: if this value holds a shape "
            "(a torch.Size), torch reads it as sizes",
            "write `torch.Tensor(*shape)` (or `torch.empty(shape)`) where it holds a shape",
            severity=WARNING,
        )
    return call
