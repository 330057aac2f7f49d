"""TM318: torchvision transforms -> mindspore.dataset.vision / mindspore.dataset.transforms.

Each mapped transform computes torchvision's result on PIL images (MindSpore's vision transforms
take PIL's own path for PIL input): checked numerically in tests/data. What has no one-to-one
MindSpore transform (PILToTensor, the functional forms, the datasets) is a companion entry.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from ...migrator.context import ModuleContext
from ...migrator.rule import (
    API,
    Example,
    Rule,
    RuleMeta,
    define,
    register,
    torch_names_only,
)
from ..nn.common import keyword, string_value, tidy_args

V = "torchvision.transforms."
MV = "mindspore.dataset.vision."
_BORDERS = {
    "constant": "CONSTANT",
    "edge": "EDGE",
    "reflect": "REFLECT",
    "symmetric": "SYMMETRIC",
}


@dataclass(frozen=True)
class Transform:
    """One torchvision transform class and its MindSpore counterpart."""

    mindspore: str
    params: tuple[str, ...] = ()
    rename: dict[str, str] = field(default_factory=dict)
    # Arguments with no effect on PIL images (antialias: PIL always antialiases).
    drop: tuple[str, ...] = ()
    # Arguments that cannot be carried over, with the reason.
    refuse: dict[str, str] = field(default_factory=dict)
    # Keyword arguments to add, as source.
    add: dict[str, str] = field(default_factory=dict)
    # Arguments given as a string literal mode -> `mindspore.dataset.vision.Border.<MODE>`.
    border: tuple[str, ...] = ()
    # True when the class is a drop-in also as a value (a base class, `partial(...)`).
    drop_in: bool = False
    # Arguments MindSpore takes only as a list or tuple of numbers (torchvision takes tensors too):
    # one that is not written as a list or tuple is read into a list of floats.
    numbers: tuple[str, ...] = ()


_INTERPOLATION_ONLY = (
    "an int interpolation (a PIL constant) is refused; pass InterpolationMode"
)
TRANSFORMS: dict[str, Transform] = {
    V + "ToTensor": Transform(MV + "ToTensor", drop_in=True),
    V + "Normalize": Transform(
        MV + "Normalize",
        ("mean", "std", "inplace"),
        drop=("inplace",),
        add={"is_hwc": "False"},
        numbers=("mean", "std"),
    ),
    V + "Resize": Transform(
        MV + "Resize",
        ("size", "interpolation", "max_size", "antialias"),
        drop=("antialias",),
        refuse={"max_size": "MindSpore's Resize has no max_size"},
    ),
    V + "CenterCrop": Transform(MV + "CenterCrop", ("size",), drop_in=True),
    V + "RandomCrop": Transform(
        MV + "RandomCrop",
        ("size", "padding", "pad_if_needed", "fill", "padding_mode"),
        rename={"fill": "fill_value"},
        border=("padding_mode",),
    ),
    V + "RandomResizedCrop": Transform(
        MV + "RandomResizedCrop",
        ("size", "scale", "ratio", "interpolation", "antialias"),
        drop=("antialias",),
    ),
    V + "RandomHorizontalFlip": Transform(
        MV + "RandomHorizontalFlip", ("p",), rename={"p": "prob"}
    ),
    V + "RandomVerticalFlip": Transform(
        MV + "RandomVerticalFlip", ("p",), rename={"p": "prob"}
    ),
    V + "Pad": Transform(
        MV + "Pad",
        ("padding", "fill", "padding_mode"),
        rename={"fill": "fill_value"},
        border=("padding_mode",),
    ),
    V + "Grayscale": Transform(
        MV + "Grayscale", ("num_output_channels",), drop_in=True
    ),
}
LAMBDA = V + "Lambda"
# torchvision datasets whose companion stand-in raises when called, and what to write instead.
RAISING = {
    "torchvision.datasets.LSUN": "export the LMDB images to class folders and read them with "
    "`mindspore.dataset.ImageFolderDataset`",
}
INTERPOLATION_MODES = (V + "InterpolationMode", V + "functional.InterpolationMode")

NOT_MAPPED = define(
    "TM951",
    "torchvision transform whose arguments cannot be carried over",
    "Reports a torchvision transform call with an argument MindSpore's transform cannot take "
    "(`max_size=`, a padding mode that is not a string literal, unpacked arguments).",
    "A transform that silently computed something else would change every training sample.",
    "Write the `mindspore.dataset.vision` transform by hand: "
    "`vision.Pad(4, fill_value=0, padding_mode=vision.Border.REFLECT)`.",
)


@register
class VisionTransformRule(Rule):
    meta = RuleMeta(
        id="TM318",
        title="torchvision transforms become mindspore.dataset.vision transforms",
        what="Rewrites `transforms.ToTensor`, `Normalize`, `Resize`, `CenterCrop`, "
        "`RandomCrop`, `RandomResizedCrop`, `RandomHorizontalFlip`, `RandomVerticalFlip`, "
        "`Pad` and `Grayscale` to their `mindspore.dataset.vision` transforms, and "
        "`transforms.Lambda(f)` to `f`. `Normalize` gets `is_hwc=False` (it follows `ToTensor`, "
        "which gives CHW), `p=` becomes `prob=`, `fill=` becomes `fill_value=`, a padding mode "
        "string becomes `vision.Border.*`, and `antialias=` (always on for PIL images) is dropped.",
        why="MindSpore's vision transforms take PIL images through PIL, as torchvision does, so "
        "each gives torchvision's pixels (`Compose` and `ColorJitter` are companion entries: "
        "MindSpore's Compose returns a tuple when called on one image, and RandomColorAdjust "
        "always shifts the hue, a lossy HSV round trip even by 0); ToTensor scales HWC uint8 to CHW float in [0, 1] in "
        "both. Random transforms draw from MindSpore's generator.",
        use_instead="`vision.Normalize((0.1307,), (0.3081,), is_hwc=False)` after `vision.ToTensor()`.",
        examples=(
            Example(
                before="from torchvision import transforms\n\nt = transforms.Compose([transforms.ToTensor(), "
                "transforms.Normalize((0.1307,), (0.3081,))])\n",
                after="import mindspore.dataset.vision as vision\nimport ms_aux\n\n"
                "t = ms_aux.Compose([vision.ToTensor(), vision.Normalize((0.1307,), (0.3081,), is_hwc=False)])\n",
            ),
            Example(
                before="import torchvision.transforms as T\n\nt = T.RandomCrop(32, padding=4, padding_mode='reflect')\n",
                after="import mindspore.dataset.vision as vision\n\n"
                "t = vision.RandomCrop(32, padding=4, padding_mode=vision.Border.REFLECT)\n",
            ),
        ),
        family="data",
    )
    stage = API
    order = 40
    triggers = ("torchvision",)
    # Rewrites torchvision names, calls and lambdas in marked statements only.
    unmarked_words = ()
    extra = (NOT_MAPPED,)

    def __init__(self) -> None:
        self.calls: set[int] = set()

    def visit_Call(self, node: cst.Call, ctx: ModuleContext) -> None:
        self.calls.add(id(node.func))

    def leave_Call(self, original: cst.Call, updated: cst.Call, ctx: ModuleContext):
        qualified = ctx.qualname(original.func)
        if qualified == LAMBDA:
            return self._lambda(updated, ctx)
        if qualified in RAISING:
            # The call becomes the companion stand-in (tm401), which raises: say so here.
            ctx.report(
                "TM951",
                f"`{qualified}` has no MindSpore reader: the companion stand-in raises "
                "NotImplementedError when it is called",
                RAISING[qualified],
            )
            return updated
        spec = TRANSFORMS.get(qualified or "")
        if spec is None:
            return updated
        args = self._translate(spec, updated, ctx)
        if args is None:
            return updated
        ctx.applied.add("TM318")
        return cst.Call(func=ctx.name(spec.mindspore), args=tidy_args(args))

    @torch_names_only
    def leave_Attribute(self, original: cst.Attribute, updated, ctx: ModuleContext):
        return self._value(original, updated, ctx)

    @torch_names_only
    def leave_Name(self, original: cst.Name, updated, ctx: ModuleContext):
        if original.value not in ctx.aliases:
            return updated
        return self._value(original, updated, ctx)

    def _value(self, original, updated, ctx: ModuleContext):
        """A drop-in transform class named without a call (a base class, a value), and
        InterpolationMode everywhere, annotations included (it has no MindSpore class)."""
        qualified = ctx.qualname(original) or ""
        if qualified in INTERPOLATION_MODES:
            ctx.applied.add("TM318")
            return ctx.companion("InterpolationMode")
        if id(original) in self.calls:
            return updated
        spec = TRANSFORMS.get(qualified)
        if spec is None or not spec.drop_in:
            return updated
        ctx.applied.add("TM318")
        return ctx.name(spec.mindspore)

    def _lambda(self, call: cst.Call, ctx: ModuleContext):
        if len(call.args) != 1 or call.args[0].star:
            return updated_refused(call, ctx, "`Lambda` takes one function")
        arg = call.args[0]
        if arg.keyword is not None and arg.keyword.value != "lambd":
            return updated_refused(call, ctx, "`Lambda` takes one function")
        ctx.applied.add("TM318")
        if _computes_on_tensors(arg.value, ctx):
            # a pipeline holds NumPy arrays where torch's held tensors: the companion's Lambda
            # gives the function a MindSpore tensor and the pipeline its NumPy array back
            return cst.Call(ctx.companion("Lambda"), [arg.with_changes(keyword=None)])
        # MindSpore's pipelines and Compose call plain functions; Lambda(f)(x) is f(x).
        return arg.value

    def _translate(
        self, spec: Transform, call: cst.Call, ctx: ModuleContext
    ) -> list[cst.Arg] | None:
        named: list[tuple[str, cst.Arg]] = []
        for index, arg in enumerate(call.args):
            if arg.star or (arg.keyword is None and index >= len(spec.params)):
                updated_refused(call, ctx, "its arguments are unpacked or too many")
                return None
            name = arg.keyword.value if arg.keyword is not None else spec.params[index]
            named.append((name, arg))
        out: list[cst.Arg] = []
        positional = True
        for name, arg in named:
            if name in spec.drop:
                positional = False
                continue
            if name in spec.refuse:
                updated_refused(call, ctx, f"`{name}=`: {spec.refuse[name]}")
                return None
            if name not in spec.params:
                updated_refused(call, ctx, f"`{name}=` is not a known argument")
                return None
            value = arg.value
            if name in spec.border:
                mode = string_value(value)
                if mode not in _BORDERS:
                    updated_refused(
                        call, ctx, f"`{name}=` is not a padding mode string literal"
                    )
                    return None
                value = ctx.name(MV + "Border." + _BORDERS[mode])
            if name in spec.numbers and not isinstance(value, (cst.List, cst.Tuple)):
                value = cst.parse_expression(
                    f"[float(v) for v in {cst.Module([]).code_for_node(value)}]"
                )
            if name == "interpolation" and isinstance(value, cst.Integer):
                updated_refused(call, ctx, _INTERPOLATION_ONLY)
                return None
            target = spec.rename.get(name, name)
            if positional and arg.keyword is None and target == name:
                out.append(cst.Arg(value))
            else:
                positional = False
                out.append(keyword(target, value))
        for name, source in spec.add.items():
            out.append(keyword(name, cst.parse_expression(source)))
        return out


def updated_refused(call: cst.Call, ctx: ModuleContext, reason: str) -> cst.Call:
    """Report a transform call left on torchvision, and return it unchanged."""
    ctx.report(
        "TM951",
        f"torchvision transform not converted: {reason}",
        NOT_MAPPED.use_instead,
    )
    return call


def _computes_on_tensors(function: cst.BaseExpression, ctx: ModuleContext) -> bool:
    """A lambda whose body calls torch (`torch.flatten(x)`) or a Tensor method on its argument
    (`x.mul(255)`): on MindSpore it needs a tensor where the pipeline holds a NumPy array."""
    from ..api import METHODS

    if not isinstance(function, cst.Lambda):
        return False
    params = {p.name.value for p in function.params.params}
    found: list[bool] = []

    class _Uses(cst.CSTVisitor):
        def visit_Call(self, node: cst.Call) -> None:
            func = node.func
            name = ctx.dotted(func) or ""
            if name.startswith(("torch.", "mindspore.", "ops.")) or (
                ctx.qualname(func) or ""
            ).startswith("torch."):
                found.append(True)
            elif (
                isinstance(func, cst.Attribute)
                and isinstance(func.value, cst.Name)
                and func.value.value in params
                and func.attr.value in METHODS
            ):
                found.append(True)

    function.body.visit(_Uses())
    return bool(found)
