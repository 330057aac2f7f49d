"""TM418: other packages' torch bindings (`safetensors.torch`) become the companion's MindSpore
ones.

`from safetensors.torch import load_file as lf` becomes `lf = ms_aux.safetensors_load_file`, and
`safetensors.torch.save_file(...)` becomes `ms_aux.safetensors_save_file(...)`, when every name
the import binds has an entry; otherwise the import stays (the imports rule reports it).
"""

from __future__ import annotations

import libcst as cst

from ...migrator.context import ModuleContext
from ...migrator.rule import API, Example, Rule, RuleMeta, register

# binding module -> {its function: the companion entry}
BINDINGS: dict[str, dict[str, str]] = {
    "safetensors.torch": {
        "load": "safetensors_load",
        "load_file": "safetensors_load_file",
        "save": "safetensors_save",
        "save_file": "safetensors_save_file",
        "storage_ptr": "storage_ptr",
        "storage_size": "storage_size",
    },
}

META = RuleMeta(
    id="TM418",
    title="Other packages' torch bindings become MindSpore ones",
    what="Rewrites `from safetensors.torch import load_file, save_file` (and calls through "
    "`safetensors.torch.`) to the companion's entries, which read and write the same files "
    "through safetensors' NumPy binding and hold MindSpore tensors.",
    why="`safetensors.torch` imports torch; the file format is the same for every framework, so "
    "the MindSpore program reads and writes the files the torch one did.",
    use_instead="`safetensors.numpy.load_file(path)` and `mindspore.Tensor(array)`.",
    examples=(
        Example(
            before="import torch\nfrom safetensors.torch import load_file as read\n\n"
            "state = read('model.safetensors')\n",
            after="import ms_aux\nread = ms_aux.safetensors_load_file\n\n"
            "state = read('model.safetensors')\n",
        ),
    ),
    severity="note",
    family="api",
)


@register
class BindingsRule(Rule):
    meta = META
    stage = API
    order = 40
    triggers = tuple(BINDINGS)
    torch_free = True
    # `safetensors.torch.load_file(...)` is no torch API use; its statements are visited.
    watched_methods = frozenset(name for e in BINDINGS.values() for name in e)

    def leave_SimpleStatementLine(
        self, original: cst.SimpleStatementLine, updated, ctx: ModuleContext
    ):
        if len(updated.body) != 1 or not isinstance(updated.body[0], cst.ImportFrom):
            return updated
        node = updated.body[0]
        if node.relative or node.module is None or isinstance(node.names, cst.ImportStar):
            return updated
        entries = BINDINGS.get(ctx.dotted(node.module) or "")
        if entries is None or not all(a.name.value in entries for a in node.names):
            return updated
        ctx.applied.add(META.id)
        lines = []
        for index, alias in enumerate(node.names):
            bound = alias.asname.name.value if alias.asname else alias.name.value
            line = cst.SimpleStatementLine(
                [
                    cst.Assign(
                        [cst.AssignTarget(cst.Name(bound))],
                        ctx.companion(entries[alias.name.value]),
                    )
                ]
            )
            if index == 0:
                line = line.with_changes(leading_lines=updated.leading_lines)
            lines.append(line)
        return cst.FlattenSentinel(lines)

    def leave_Call(self, original: cst.Call, updated: cst.Call, ctx: ModuleContext):
        name = ctx.dotted(original.func)
        if name is None:
            return updated
        module, _, function = name.rpartition(".")
        entry = BINDINGS.get(module, {}).get(function)
        if entry is None:
            return updated
        ctx.applied.add(META.id)
        return updated.with_changes(func=ctx.companion(entry))
