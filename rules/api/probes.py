"""TM417: backend probes answer for MindSpore in converted code.

- `importlib.util.find_spec(name)` and `importlib.metadata.version(name)` go through the
  companion's probes, whatever `name` is (a library's helper passes it as an argument): torch's
  spec is MindSpore's, its version the torch release the conversion reproduces, and packages
  built on torch are absent. Every other package is looked up as before.
- A function the module defines that probes for a torch-only feature by name
  (`is_torch_cuda_available`, `is_flex_attn_available`, `is_rocm_platform`: a name
  `is_..._available` or `is_..._platform` with a word such as `cuda`, `flex`, `compile`, `distributed`, `fp8`) returns
  False, so the library takes its plain path.
"""

from __future__ import annotations

import ast

import libcst as cst

from ...migrator.aliases import statements
from ...migrator.context import ModuleContext
from ...migrator.rule import API, Example, Rule, RuleMeta, register

# Standard-library probes -> companion entries.
_PROBES = {
    "importlib.util.find_spec": "find_spec",
    "importlib.metadata.version": "package_version",
    "importlib_metadata.version": "package_version",
}
# Words naming features torch has and converted code does not run.
FEATURE_WORDS = frozenset(
    {
        "cuda",
        "rocm",
        "hip",
        "flex",
        "compile",
        "compiler",
        "dynamo",
        "torchdynamo",
        "fp8",
        "float8",
        "distributed",
        "fsdp",
        "custom",
        "xpu",
        "npu",
        "mps",
        "tpu",
        "hpu",
        "mlu",
        "musa",
        "xla",
        "neuron",
        "neuroncore",
        "grouped",
        "tf32",
        "accelerator",
        "triton",
        "tensorrt",
    }
)

META = RuleMeta(
    id="TM417",
    title="Backend probes answer for MindSpore",
    what="Routes `importlib.util.find_spec(name)` and `importlib.metadata.version(name)` through "
    "the companion's probes, which answer for torch from MindSpore's installation and report "
    "packages built on torch as absent. A function named `is_..._available` whose name says it "
    "probes a torch-only feature (`cuda`, `flex` attention, `compile`, `distributed`, `fp8`, "
    "custom ops, other accelerators) returns False.",
    why="A library converted whole asks whether its backend is installed before it defines its "
    "models; in converted code the backend is MindSpore. Features torch alone has (CUDA kernels, "
    "flex attention, `torch.compile`, collectives, fp8, custom ops) do not run there, and the "
    "library has a plain path for when they are missing.",
    use_instead="`importlib.util.find_spec('mindspore')` for the backend; False for torch-only "
    "features.",
    examples=(
        Example(
            before="import importlib.util\n\nimport torch\n\n\ndef has(name):\n"
            "    return importlib.util.find_spec(name) is not None\n\n\n"
            "def is_torch_cuda_available():\n    return torch.cuda.is_available()\n",
            after="import importlib.util\n\nimport ms_aux\n\n\ndef has(name):\n"
            "    return ms_aux.find_spec(name) is not None\n\n\n"
            "def is_torch_cuda_available():\n    return False\n",
        ),
    ),
    severity="note",
    family="api",
)


def is_feature_probe(name: str) -> bool:
    """`is_torch_flex_attn_available`: a probe, by its name, for a torch-only feature."""
    if not (
        name.startswith("is_") and ("_available" in name or name.endswith("_platform"))
    ):
        return False
    return bool(FEATURE_WORDS & set(name.split("_")))


def _imported_names(tree: ast.AST) -> dict[str, str]:
    """Local name -> the dotted name it is imported as, for importlib's modules."""
    names: dict[str, str] = {}
    for node in statements(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] not in ("importlib", "importlib_metadata"):
                    continue
                if alias.asname:
                    names[alias.asname] = alias.name
                else:
                    root = alias.name.split(".")[0]
                    names[root] = root
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            if node.module.split(".")[0] not in ("importlib", "importlib_metadata"):
                continue
            for alias in node.names:
                names[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    return names


@register
class ProbesRule(Rule):
    meta = META
    stage = API
    order = 40
    triggers = ("find_spec", "importlib", "_available")
    # `importlib.util.find_spec(...)` is no torch API use; its statements are visited all the same.
    watched_methods = frozenset({"find_spec", "version"})

    def __init__(self) -> None:
        self.names: dict[str, str] = {}

    def visit_Module(self, node: cst.Module, ctx: ModuleContext) -> None:
        tree = ctx.state.get("ast")
        if tree is not None and "importlib" in ctx.source:
            self.names = _imported_names(tree)

    def _probe(self, func: cst.BaseExpression, ctx: ModuleContext) -> str | None:
        name = ctx.dotted(func)
        if name is None:
            return None
        head, _, rest = name.partition(".")
        target = self.names.get(head)
        if target is None or head in ctx.aliases:
            return None
        return _PROBES.get(f"{target}.{rest}" if rest else target)

    def leave_Call(self, original: cst.Call, updated: cst.Call, ctx: ModuleContext):
        entry = self._probe(original.func, ctx)
        if entry is None or not updated.args:
            return updated
        ctx.applied.add(META.id)
        return updated.with_changes(func=ctx.companion(entry))

    def leave_FunctionDef(
        self, original: cst.FunctionDef, updated: cst.FunctionDef, ctx: ModuleContext
    ):
        if not is_feature_probe(original.name.value) or not isinstance(
            updated.body, cst.IndentedBlock
        ):
            return updated
        body = list(updated.body.body)
        docstring = body[:1] if updated.get_docstring() is not None else []
        answer = cst.SimpleStatementLine([cst.Return(cst.Name("False"))])
        if body[len(docstring) :] == [answer]:
            return updated
        ctx.applied.add(META.id)
        return updated.with_changes(
            body=updated.body.with_changes(body=docstring + [answer])
        )
