"""TM323: a torch.nn layer class looked up by name (`getattr(nn, rnn_type)`) becomes the
companion's lookup."""

from __future__ import annotations

import libcst as cst

from ...migrator.context import ModuleContext
from ...migrator.rule import API, Example, Rule, RuleMeta, register

META = RuleMeta(
    id="TM323",
    title="`getattr(nn, name)` becomes `ms_aux.nn_class(name)`",
    what="Rewrites `getattr(torch.nn, name)`, a layer class chosen by a name known only when the "
    "program runs, to `ms_aux.nn_class(name)`: the companion class of that name, which takes "
    "torch's constructor arguments. A name without one raises when the program runs, naming it.",
    why="The MindSpore classes take other arguments than torch's (`nn.LSTM(ninp, nhid, "
    "nlayers, dropout=...)` is `nn.LSTM(input_size, hidden_size, num_layers, ...)` with other "
    "defaults, and `nn.Linear` is `nn.Dense`), so the class cannot be looked up in "
    "`mindspore.nn` by torch's name; the companion classes take torch's arguments.",
    use_instead="Choose the class in code: `nn.LSTM(...) if rnn_type == 'LSTM' else nn.GRU(...)`.",
    examples=(
        Example(
            before="import torch.nn as nn\n\n\ndef make(rnn_type, ninp, nhid):\n"
            "    return getattr(nn, rnn_type)(ninp, nhid, 2, dropout=0.5)\n",
            after="import ms_aux\n\n\ndef make(rnn_type, ninp, nhid):\n"
            "    return ms_aux.nn_class(rnn_type)(ninp, nhid, 2, dropout=0.5)\n",
        ),
    ),
    severity="note",
    family="nn",
)


@register
class ClassLookupRule(Rule):
    meta = META
    stage = API
    order = 60
    triggers = ("getattr",)
    # Rewrites `getattr(nn, ...)` calls, whose `nn` the census marks.
    unmarked_words = ()

    def leave_Call(self, original: cst.Call, updated: cst.Call, ctx: ModuleContext):
        if (
            not isinstance(updated.func, cst.Name)
            or updated.func.value != "getattr"
            or "getattr" in ctx.bound_names
            or len(updated.args) != 2
            or any(a.keyword is not None or a.star for a in updated.args)
            or ctx.qualname(original.args[0].value) != "torch.nn"
        ):
            return updated
        ctx.applied.add(META.id)
        return cst.Call(
            ctx.companion("nn_class"),
            [updated.args[1].with_changes(comma=cst.MaybeSentinel.DEFAULT)],
        )
