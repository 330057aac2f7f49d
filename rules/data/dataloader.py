"""TM310 Dataset subclasses become plain classes; TM311 DataLoader → GeneratorDataset(...).batch(...)."""

from __future__ import annotations

import ast

import libcst as cst

from ...migrator.aliases import dotted
from ...migrator.context import ModuleContext
from ...migrator.findings import NOTE
from ...migrator.rule import (
    API,
    Example,
    Rule,
    RuleMeta,
    define,
    register,
    torch_names_only,
)
from ..common.ast_nodes import tree_nodes
from ..nn.common import keyword, literal_bool, tidy_args
from ..nn.facts import DATASET_BASES, facts

LOADERS = ("torch.utils.data.DataLoader", "torch.utils.data.dataloader.DataLoader")
# DataLoader's positional parameters, in order.
PARAMS = [
    "dataset",
    "batch_size",
    "shuffle",
    "sampler",
    "batch_sampler",
    "num_workers",
    "collate_fn",
    "pin_memory",
    "drop_last",
    "timeout",
    "worker_init_fn",
    "multiprocessing_context",
    "generator",
]
# Arguments that only tune speed or memory placement: the batches are the same without them.
DROPPED = frozenset(
    {
        "pin_memory",
        "pin_memory_device",
        "timeout",
        "prefetch_factor",
        "persistent_workers",
        "in_order",
    }
)
UNMAPPED = {
    "sampler": "pass a MindSpore sampler: `GeneratorDataset(ds, column_names=..., sampler=mindspore.dataset.RandomSampler())`",
    "batch_sampler": "GeneratorDataset takes `batch_sampler=` and `collate_fn=` together; check its batches by hand",
    "collate_fn": "`.batch(batch_size, per_batch_map=fn, input_columns=[...])` receives columns, not samples; "
    "rewrite the collate function for it",
    "worker_init_fn": "GeneratorDataset has no worker hook; seed with `mindspore.dataset.config.set_seed(n)`",
    "generator": "seed the shuffle with `mindspore.dataset.config.set_seed(n)`",
    "multiprocessing_context": "GeneratorDataset takes `python_multiprocessing=True|False`",
}
# DataLoader attributes scripts read (`len(train_loader.dataset)` for logging); a MindSpore
# dataset has none of them, so a loader whose name is read so is the companion DataLoader.
LOADER_ATTRIBUTES = frozenset(
    {"dataset", "batch_size", "sampler", "batch_sampler", "drop_last", "num_workers"}
)
# Classes annotations name that are companion classes here (`sampler: Sampler`).
ANNOTATED = {
    **dict.fromkeys(LOADERS, "DataLoader"),
    "torch.utils.data.Sampler": "Sampler",
    "torch.utils.data.sampler.Sampler": "Sampler",
    # A dataset annotation names what a converted dataset is: any object that `isinstance` with
    # the companion's Dataset kinds accepts (they read the methods the class defines).
    **dict.fromkeys(
        ("torch.utils.data.Dataset", "torch.utils.data.dataset.Dataset"), "Dataset"
    ),
    **dict.fromkeys(
        (
            "torch.utils.data.IterableDataset",
            "torch.utils.data.dataset.IterableDataset",
        ),
        "IterableDataset",
    ),
}
# What the companion DataLoader (torch's arguments, batches collated in Python) cannot do either;
# any other refusal of the GeneratorDataset idiom becomes `ms_aux.DataLoader(...)` silently (a
# worker hook with worker processes with a note: it runs once, for the one in-process worker).
COMPANION_REFUSES = frozenset({"generator"})

WORKER_HOOK = (
    "DataLoader `worker_init_fn=` runs once, for worker 0 of 1: the companion DataLoader loads "
    "in this process as one worker (torch calls it in each of num_workers processes)"
)

SHUFFLE = define(
    "TM935",
    "Shuffled order comes from MindSpore's generator",
    "Notes a DataLoader with `shuffle=True`: its MindSpore form shuffles with MindSpore's random "
    "generator, so the batches come in another order than torch's.",
    "Both shuffle uniformly, but the two generators differ, so runs are not comparable batch by batch.",
    "Seed it with `mindspore.dataset.config.set_seed(n)`; compare with `shuffle=False`.",
    severity=NOTE,
)
NOT_MAPPED = define(
    "TM936",
    "DataLoader or Dataset that cannot be converted with certainty",
    "Reports a DataLoader with a `generator=`: the companion `ms_aux.DataLoader` that stands for "
    "it raises NotImplementedError for it. Notes a `worker_init_fn=` with worker processes: the "
    "companion loads in this process, as one worker (id 0 of 1), and calls the hook once for it "
    "(torch calls it in each of `num_workers` processes; never without workers, nor does the "
    "companion).",
    "MindSpore's datasets have no per-worker hook and draw their order from MindSpore's generator.",
    "`mindspore.dataset.GeneratorDataset(ds, column_names=['data', 'label'], shuffle=True)"
    ".batch(32, drop_remainder=True)`.",
)
DATASET = define(
    "TM310",
    "A Dataset subclass becomes a plain class",
    "Removes `torch.utils.data.Dataset` (and `IterableDataset`) from the bases of a class.",
    "`mindspore.dataset.GeneratorDataset` reads any Python object with `__getitem__` and `__len__` "
    "(or `__iter__`); no base class is needed.",
    "`class Pairs:` with `__getitem__` and `__len__`.",
    examples=(
        Example(
            before="from torch.utils.data import Dataset\n\nclass Pairs(Dataset):\n    def __len__(self):\n        return 4\n\n"
            "    def __getitem__(self, i):\n        return i, i * 2\n",
            after="\nclass Pairs:\n    def __len__(self):\n        return 4\n\n    def __getitem__(self, i):\n        return i, i * 2\n",
        ),
    ),
    family="data",
)


@register
class DataLoaderRule(Rule):
    meta = RuleMeta(
        id="TM311",
        title="DataLoader becomes GeneratorDataset(...).batch(...)",
        what="Rewrites `DataLoader(ds, batch_size=B, shuffle=S, drop_last=D, num_workers=N)` to "
        "`mindspore.dataset.GeneratorDataset(ds, column_names=[...], shuffle=S, num_parallel_workers=N)"
        ".batch(B, drop_remainder=D)`. The column names come from what the dataset class's `__getitem__` "
        "returns (two or more values); `pin_memory`, `timeout`, `persistent_workers` and `prefetch_factor` "
        "are dropped. Any other form (`DataLoader(ds, **kwargs)`, samplers, `collate_fn`, datasets of "
        "unknown columns, converted torchvision datasets) becomes the companion `ms_aux.DataLoader`, "
        "which takes torch's arguments.",
        why="A MindSpore dataset is iterated like a DataLoader: `for x, y in loader:` yields batched "
        "Tensors, and `len(loader)` is the number of batches. `shuffle=False` is passed explicitly "
        "because GeneratorDataset shuffles a random-access source by default.",
        use_instead="`ds.GeneratorDataset(train_set, column_names=['data', 'label'], shuffle=True).batch(32)`.",
        examples=(
            Example(
                before="from torch.utils.data import DataLoader, Dataset\n\nclass Pairs(Dataset):\n    def __len__(self):\n"
                "        return 4\n\n    def __getitem__(self, i):\n        return i, i * 2\n\n"
                "loader = DataLoader(Pairs(), batch_size=2, drop_last=True, pin_memory=True)\n",
                after="import mindspore.dataset as ds\n\nclass Pairs:\n    def __len__(self):\n"
                "        return 4\n\n    def __getitem__(self, i):\n        return i, i * 2\n\n"
                'loader = ds.GeneratorDataset(Pairs(), column_names=["data", "label"], shuffle=False).batch(2, drop_remainder=True)\n',
            ),
            Example(
                before="from torch.utils.data import DataLoader\n\ndef make(data, **kwargs):\n"
                "    return DataLoader(data, **kwargs)\n",
                after="import ms_aux\n\ndef make(data, **kwargs):\n"
                "    return ms_aux.DataLoader(data, **kwargs)\n",
            ),
            Example(
                before="from torch.utils.data import DataLoader\n\nloader = DataLoader(data, batch_size=8, "
                "num_workers=2, worker_init_fn=seed_worker)\nsteps = len(loader)\n",
                after="import ms_aux\n\n"
                f"# torch2ms: TM936 {WORKER_HOOK}\n"
                "loader = ms_aux.DataLoader(data, batch_size=8, num_workers=2, worker_init_fn=seed_worker)\n"
                "steps = len(loader)\n",
                findings=("TM936",),
            ),
            Example(
                before="from torch.utils.data import DataLoader\n\nloader = DataLoader(data, batch_size=8, "
                "generator=g)\nsteps = len(loader)\n",
                after="import ms_aux\n\n"
                "# torch2ms: TM936 DataLoader `generator=` cannot be carried over: the companion DataLoader raises NotImplementedError for it\n"
                "loader = ms_aux.DataLoader(data, batch_size=8, generator=g)\n"
                "steps = len(loader)\n",
                findings=("TM936",),
            ),
        ),
        family="data",
    )
    stage = API
    order = 50
    triggers = ("DataLoader", "Dataset", "Sampler")
    # Reads calls and annotations in marked statements; a class with a torch base is kept.
    unmarked_words = ()
    extra = (SHUFFLE, NOT_MAPPED, DATASET)

    def __init__(self) -> None:
        self.annotation_depth = 0

    # `loader: DataLoader` names the class converted calls build (tm401 converts the other
    # references to the companion; annotations keep an idiom class, and this one has none).
    def visit_Annotation(self, node: cst.Annotation, ctx: ModuleContext) -> None:
        self.annotation_depth += 1

    def leave_Annotation(self, original, updated, ctx: ModuleContext):
        self.annotation_depth -= 1
        return updated

    @torch_names_only
    def leave_Attribute(self, original: cst.Attribute, updated, ctx: ModuleContext):
        return self._annotated(original, updated, ctx)

    @torch_names_only
    def leave_Name(self, original: cst.Name, updated, ctx: ModuleContext):
        return self._annotated(original, updated, ctx)

    def _annotated(self, original, updated, ctx: ModuleContext):
        if not self.annotation_depth:
            return updated
        entry = ANNOTATED.get(ctx.qualname(original) or "")
        return ctx.companion(entry) if entry else updated

    def leave_ClassDef(
        self, original: cst.ClassDef, updated: cst.ClassDef, ctx: ModuleContext
    ):
        bases = [
            b
            for b in updated.bases
            if ctx.qualname(b.value) not in DATASET_BASES or b.keyword is not None
        ]
        if len(bases) == len(updated.bases):
            return updated
        ctx.applied.add("TM310")
        if not bases and not updated.keywords:
            return updated.with_changes(
                bases=[], lpar=cst.MaybeSentinel.DEFAULT, rpar=cst.MaybeSentinel.DEFAULT
            )
        return updated.with_changes(bases=tidy_args(bases))

    def leave_Call(self, original: cst.Call, updated: cst.Call, ctx: ModuleContext):
        if ctx.qualname(original.func) not in LOADERS:
            return updated
        named: dict[str, cst.Arg] = {}
        for index, arg in enumerate(updated.args):
            if arg.star or (arg.keyword is None and index >= len(PARAMS)):
                return self._companion(updated, ctx)
            named[arg.keyword.value if arg.keyword is not None else PARAMS[index]] = arg
        for name, arg in named.items():
            if name in UNMAPPED:
                value = arg.value
                if not (isinstance(value, cst.Name) and value.value == "None"):
                    if name == "worker_init_fn" and not _no_workers(named):
                        ctx.report(
                            "TM936", WORKER_HOOK, NOT_MAPPED.use_instead, severity=NOTE
                        )
                    if name not in COMPANION_REFUSES:
                        return self._companion(updated, ctx)
                    self._refuse(
                        updated,
                        ctx,
                        f"`{name}=` cannot be carried over: the companion DataLoader "
                        "raises NotImplementedError for it",
                        UNMAPPED[name],
                    )
                    return self._companion(updated, ctx)
        if "dataset" not in named or self._attributes_read(original, ctx):
            return self._companion(updated, ctx)
        batch_size = (
            named["batch_size"].value if "batch_size" in named else cst.Integer("1")
        )
        if isinstance(batch_size, cst.Name) and batch_size.value == "None":
            return self._companion(updated, ctx)
        dataset = named["dataset"].value
        if self._pipeline_dataset(dataset, ctx):
            return self._batched_pipeline(updated, dataset, named, batch_size, ctx)
        columns = self._columns(dataset, ctx)
        if columns is None:
            return self._companion(updated, ctx)
        shuffle = named["shuffle"].value if "shuffle" in named else cst.Name("False")
        if isinstance(shuffle, cst.Name) and shuffle.value == "None":
            shuffle = cst.Name("False")
        if literal_bool(shuffle) is not False:
            ctx.report(
                "TM935",
                "the shuffled order comes from MindSpore's generator, not torch's",
                SHUFFLE.use_instead,
                severity=NOTE,
            )
        source_args = [
            cst.Arg(dataset),
            keyword(
                "column_names",
                cst.List([cst.Element(cst.SimpleString(f'"{c}"')) for c in columns]),
            ),
            keyword("shuffle", shuffle),
        ]
        workers = named.get("num_workers")
        if workers is not None and not (
            isinstance(workers.value, cst.Integer) and workers.value.value == "0"
        ):
            source_args.append(keyword("num_parallel_workers", workers.value))
        batch_args = [cst.Arg(batch_size)]
        if "drop_last" in named:
            batch_args.append(keyword("drop_remainder", named["drop_last"].value))
        source = cst.Call(
            func=ctx.name("mindspore.dataset.GeneratorDataset"),
            args=tidy_args(source_args),
        )
        ctx.applied.add("TM311")
        return cst.Call(
            func=cst.Attribute(value=source, attr=cst.Name("batch")),
            args=tidy_args(batch_args),
        )

    def _columns(
        self, dataset: cst.BaseExpression, ctx: ModuleContext
    ) -> list[str] | None:
        known = facts(ctx)
        name = None
        if isinstance(dataset, cst.Call) and isinstance(dataset.func, cst.Name):
            name = dataset.func.value
        elif isinstance(dataset, cst.Name):
            kind = known.names.get(dataset.value)
            if kind is not None and kind.startswith("dataset:"):
                name = kind[8:]
        arity = known.datasets.get(name) if name is not None else None
        if arity is None or arity < 2:
            return None
        return (
            ["data", "label"] if arity == 2 else [f"column_{i}" for i in range(arity)]
        )

    def _pipeline_dataset(
        self, dataset: cst.BaseExpression, ctx: ModuleContext
    ) -> bool:
        """Whether ``dataset`` names a converted torchvision dataset (a mindspore.dataset
        pipeline): a name the module binds once, to one of those calls."""
        if not isinstance(dataset, cst.Name):
            return False
        bindings = ctx.state.get("dataset_bindings")
        if bindings is None:
            bindings = ctx.state["dataset_bindings"] = _bindings(ctx)
        return bindings.get(dataset.value) is True

    def _batched_pipeline(
        self,
        updated: cst.Call,
        dataset: cst.Name,
        named: dict[str, cst.Arg],
        batch_size: cst.BaseExpression,
        ctx: ModuleContext,
    ) -> cst.Call:
        """``dataset.shuffle(len(dataset)).batch(B, drop_remainder=D)``: MindSpore batches the
        pipeline itself; iterating it yields [data, label] lists of Tensors."""
        shuffle = named["shuffle"].value if "shuffle" in named else cst.Name("False")
        flag = literal_bool(shuffle)
        if flag is None and not (
            isinstance(shuffle, cst.Name) and shuffle.value == "None"
        ):
            return self._companion(updated, ctx)
        pipeline: cst.BaseExpression = dataset
        if flag:
            ctx.report(
                "TM935",
                "the shuffled order comes from MindSpore's generator, not torch's",
                SHUFFLE.use_instead,
                severity=NOTE,
            )
            size = cst.Call(func=cst.Name("len"), args=[cst.Arg(dataset)])
            pipeline = cst.Call(
                func=cst.Attribute(value=pipeline, attr=cst.Name("shuffle")),
                args=[cst.Arg(size)],
            )
        batch_args = [cst.Arg(batch_size)]
        if "drop_last" in named:
            batch_args.append(keyword("drop_remainder", named["drop_last"].value))
        ctx.applied.add("TM311")
        return cst.Call(
            func=cst.Attribute(value=pipeline, attr=cst.Name("batch")),
            args=tidy_args(batch_args),
        )

    def _attributes_read(self, call: cst.Call, ctx: ModuleContext) -> bool:
        """Whether the name the loader is assigned to is read as `<name>.dataset` (or another
        DataLoader attribute) anywhere in the module."""
        statement = ctx.stack[-1] if ctx.stack else None
        targets: list[str] = []
        if isinstance(statement, cst.SimpleStatementLine):
            for small in statement.body:
                if isinstance(small, cst.Assign) and small.value is call:
                    targets += [ctx.dotted(t.target) or "" for t in small.targets]
                elif isinstance(small, cst.AnnAssign) and small.value is call:
                    targets.append(ctx.dotted(small.target) or "")
        return any(t and t in self._attribute_bases(ctx) for t in targets)

    @staticmethod
    def _attribute_bases(ctx: ModuleContext) -> frozenset[str]:
        known = ctx.state.get("loader_attribute_bases")
        if known is None:
            found = set()
            tree = ctx.state.get("ast")
            for node in tree_nodes(tree, ast.Attribute) if tree is not None else ():
                if node.attr in LOADER_ATTRIBUTES:
                    base = dotted(node.value)
                    if base is not None:
                        found.add(base)
            known = ctx.state["loader_attribute_bases"] = frozenset(found)
        return known

    def _companion(self, updated: cst.Call, ctx: ModuleContext) -> cst.Call:
        """``ms_aux.DataLoader(<the call's own arguments>)``: torch's DataLoader over MindSpore,
        for the forms the GeneratorDataset idiom cannot take (unpacked keyword dictionaries,
        datasets of unknown columns, samplers, collate functions, converted torchvision
        datasets)."""
        ctx.applied.add("TM311")
        return updated.with_changes(func=ctx.companion("DataLoader"))

    def _refuse(
        self, updated: cst.Call, ctx: ModuleContext, reason: str, hint: str = ""
    ) -> cst.Call:
        ctx.report(
            "TM936",
            f"DataLoader {reason}",
            hint or NOT_MAPPED.use_instead,
        )
        return updated


# torchvision datasets whose conversion is a mindspore.dataset pipeline (companion entries built
# on MnistDataset, Cifar10Dataset, ImageFolderDataset, ...).
PIPELINE_DATASETS = frozenset(
    "torchvision.datasets." + name
    for name in (
        "MNIST",
        "FashionMNIST",
        "KMNIST",
        "CIFAR10",
        "CIFAR100",
        "ImageFolder",
    )
)


# The nodes that bind names (``_bindings``).
_BINDING = (
    ast.Assign,
    ast.AnnAssign,
    ast.AugAssign,
    ast.NamedExpr,
    ast.For,
    ast.With,
    ast.comprehension,
)


def _bindings(ctx: ModuleContext) -> dict[str, bool]:
    """Each name the module assigns: True when its only binding is a torchvision dataset call
    that converts to a mindspore.dataset pipeline."""
    found: dict[str, bool] = {}
    tree = ctx.state.get("ast")
    for node in tree_nodes(tree, *_BINDING) if tree is not None else ():
        targets: list[ast.expr] = []
        value = None
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign, ast.NamedExpr)):
            targets, value = [node.target], getattr(node, "value", None)
        elif isinstance(node, (ast.For, ast.With, ast.comprehension)):
            targets = [getattr(node, "target", None)] if hasattr(node, "target") else []
        for target in targets:
            for name in ast.walk(target) if target is not None else ():
                if isinstance(name, ast.Name):
                    pipeline = (
                        isinstance(value, ast.Call)
                        and isinstance(target, ast.Name)
                        and _qualified(value.func, ctx) in PIPELINE_DATASETS
                    )
                    found[name.id] = pipeline and name.id not in found
    return found


def _qualified(node: ast.AST, ctx: ModuleContext) -> str | None:
    name = dotted(node)
    if name is None:
        return None
    head, _, rest = name.partition(".")
    target = ctx.aliases.get(head)
    if target is None:
        return None
    return f"{target}.{rest}" if rest else target


def _no_workers(named: dict[str, cst.Arg]) -> bool:
    """Whether the loader is written without worker processes (`num_workers` absent or 0): torch
    then never calls `worker_init_fn`."""
    workers = named.get("num_workers")
    return workers is None or (
        isinstance(workers.value, cst.Integer) and workers.value.evaluated_value == 0
    )
