"""Layers built inside a package keep torch's attribute names.

A package's layers are read by code whose kind of receiver the conversion cannot see: the
package's other modules through dynamic dispatch (`model.get_input_embeddings().weight`,
`module.shared.weight` in an init hook, `conv.stride[0]` in a length helper) and the programs that
import it. MindSpore's idiom class answers some of torch's attribute names differently or not at
all (Embedding `weight`/`num_embeddings`, LayerNorm `weight`/`eps`, Conv1d `stride`, Linear
`in_features`). A layer class of that kind built in a file of a package is built from the
companion class instead: it derives from the idiom class (type checks hold, its parameters keep
MindSpore's names, so checkpoints are the same) and answers torch's attribute names as well.
Outside a package the idiom stays, and TM306 renames the reads whose receiver the file shows.
"""

from __future__ import annotations

from ...migrator.context import ModuleContext
from ..companion import entry_for as companion_entry
from ..nn.layers import torch_only_attributes


def keeps_torch_attributes(torch_class: str, ctx: ModuleContext) -> bool:
    """Whether a construction of ``torch_class`` here goes to the companion class: the file is a
    module of a package, and the MindSpore class lacks some of torch's attributes."""
    return (
        ctx.companion_import.dots > 0
        and bool(torch_only_attributes(torch_class))
        and companion_entry(torch_class, ctx.options.target, call=True) is not None
    )
