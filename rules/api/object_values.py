"""TM944: an object of a torch class kept only as a value, whose MindSpore form is another object.

A distribution converts to a companion class that computes what torch's computes (samples,
log-probabilities, moments). When the program only binds the object and reads the name nowhere,
the object itself is all it computes there, and that object is not torch's: its class differs,
and so does its repr (torch prints `torch.Size` shapes). So does a DataLoader the companion
stands for (torch's repr names a memory address); one that becomes a MindSpore dataset is the
data rules' concern.
"""

from __future__ import annotations

import libcst as cst

from ...migrator.context import ModuleContext
from ...migrator.findings import NOTE
from ...migrator.rule import API, Example, Rule, RuleMeta, register
from ..companion import MODULE as COMPANION
from ..companion.table import ENTRIES as COMPANION_ENTRIES

# torch classes whose instances the companion replaces by its own, with what stays the same.
_SAME = {
    "torch.distributions.": "samples, log_prob, entropy and moments",
    "torch.utils.data.DataLoader": "batches",
}
# torch's repr, which no MindSpore object can print.
_REPR = {
    "torch.distributions.": "torch's repr shows `torch.Size` shapes",
    "torch.utils.data.DataLoader": "torch's repr names a memory address",
}
# The base class prints no parameter; the companion's prints the same text.
_SAME_OBJECT = frozenset({"torch.distributions.Distribution"})


def _kind(qualified: str | None) -> str | None:
    """The family of a torch class the companion replaces (a class left on torch is torch's)."""
    if qualified not in COMPANION_ENTRIES or qualified in _SAME_OBJECT:
        return None
    for prefix in _SAME:
        if qualified == prefix or (
            prefix.endswith(".")
            and qualified.startswith(prefix)
            and qualified.rsplit(".", 1)[1][:1].isupper()
        ):
            return prefix
    return None


def prefix_is_family(kind: str) -> bool:
    return kind.endswith(".")


def _companion_call(value: cst.BaseExpression, qualified: str) -> bool:
    """Whether the converted value is the companion's class for ``qualified``."""
    return (
        isinstance(value, cst.Call)
        and isinstance(value.func, cst.Attribute)
        and isinstance(value.func.value, cst.Name)
        and value.func.value.value == COMPANION
        and value.func.attr.value == COMPANION_ENTRIES[qualified]
    )


@register
class ObjectValueRule(Rule):
    meta = RuleMeta(
        id="TM944",
        title="Object of a torch class kept only as a value",
        what="Reports `name = Normal(...)` (any `torch.distributions` class), or "
        "`name = DataLoader(...)` that becomes the companion's loader, when the module reads "
        "`name` nowhere: the object itself is what the statement leaves, and the converted "
        "object is the companion's.",
        why="The companion's class computes what torch's does, but an object has no value to "
        "compare beyond what it computes: its class is not torch's, and its repr cannot be "
        "torch's (`torch.Size` shapes, a memory address).",
        use_instead="Nothing, when the program uses what the object computes; code that checks "
        "the object's class or prints it sees the companion's.",
        examples=(
            Example(
                before="import torch\n"
                "prior = torch.distributions.Normal(torch.zeros(2), torch.ones(2))\n",
                after="from mindspore import ops\nimport ms_aux\n"
                "# torch2ms: TM944 `torch.distributions.Normal` object kept only as a value: "
                "the companion's object gives torch's samples, log_prob, entropy and "
                "moments, but it is not torch's object (torch's repr shows `torch.Size` "
                "shapes)\n"
                "prior = ms_aux.Normal(ops.zeros(2), ops.ones(2))\n",
                findings=("TM944",),
            ),
        ),
        severity=NOTE,
        family="api",
    )
    stage = API
    order = 5
    triggers = ("distributions", "DataLoader")
    # Reads assignments in marked statements only.
    unmarked_words = ()

    def leave_Assign(self, original: cst.Assign, updated, ctx: ModuleContext):
        value = original.value
        if not (
            isinstance(value, cst.Call)
            and len(original.targets) == 1
            and isinstance(original.targets[0].target, cst.Name)
        ):
            return updated
        name = original.targets[0].target.value
        qualified = ctx.qualname(value.func)
        kind = _kind(qualified)
        if kind is None or name in ctx.census.read:
            return updated
        if not prefix_is_family(kind) and not _companion_call(updated.value, qualified):
            return updated
        ctx.report(
            "TM944",
            f"`{qualified}` object kept only as a value: the companion's object gives torch's "
            f"{_SAME[kind]}, but it is not torch's object ({_REPR[kind]})",
            self.meta.use_instead,
            severity=NOTE,
        )
        return updated
