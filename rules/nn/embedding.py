"""TM312: a converted `nn.Embedding` keeps torch's N(0, 1) initial table."""

from __future__ import annotations

import libcst as cst

from ...migrator.context import ModuleContext
from ...migrator.rule import API, Example, Rule, RuleMeta, register
from ..api.source_args import call_arguments
from ..api.spec import CallTranslation

_TORCH = "torch.nn.Embedding"
_MINDSPORE = "mindspore.nn.Embedding"
_NORMAL = "mindspore.common.initializer.Normal"
_EQUAL = cst.AssignEqual(
    whitespace_before=cst.SimpleWhitespace(""),
    whitespace_after=cst.SimpleWhitespace(""),
)

META = RuleMeta(
    id="TM312",
    title="nn.Embedding keeps torch's N(0, 1) initial table",
    what="Adds `embedding_table=Normal(1.0)` (from `mindspore.common.initializer`) to an "
    "`nn.Embedding` converted from torch, unless the call gives a table itself.",
    why="torch fills a new Embedding's weight from N(0, 1) (zeroing the `padding_idx` row); MindSpore "
    "2.10's `nn.Embedding` defaults to `embedding_table='normal'`, which is Normal(sigma=0.01): a table "
    "100 times smaller, which changes what a model learns from its first step. `Normal(sigma=0.01, "
    "mean=0.0)` with `sigma=1.0` draws N(0, 1), and MindSpore zeroes the `padding_idx` row too.",
    use_instead="`nn.Embedding(vocab, dim, embedding_table=mindspore.common.initializer.Normal(1.0))`.",
    examples=(
        Example(
            before="import torch.nn as nn\n\nemb = nn.Embedding(100, 16, padding_idx=0)\n",
            after="import mindspore\nfrom mindspore import nn\n\n"
            "emb = nn.Embedding(100, 16, padding_idx=0, "
            "embedding_table=mindspore.common.initializer.Normal(1.0))\n",
        ),
    ),
    severity="warning",
    family="nn",
)


@register
class EmbeddingInitRule(Rule):
    meta = META
    stage = API
    order = 110  # after TM401 has mapped the call
    triggers = ("Embedding",)
    # Rewrites `nn.Embedding` calls, which the census marks.
    unmarked_words = ()

    def leave_Call(self, original: cst.Call, updated: cst.Call, ctx: ModuleContext):
        if (
            ctx.qualname(original.func) != _TORCH
            or ctx.dotted(updated.func) != _MINDSPORE
        ):
            return updated
        if any(a.star for a in updated.args):
            return updated
        if any(
            a.keyword is not None and a.keyword.value == "embedding_table"
            for a in updated.args
        ):
            return updated
        positional = [a for a in updated.args if a.keyword is None]
        keywords = {a.keyword.value: a for a in updated.args if a.keyword is not None}
        init = cst.Call(ctx.name(_NORMAL), [cst.Arg(cst.Float("1.0"))])
        keywords["embedding_table"] = cst.Arg(
            init, keyword=cst.Name("embedding_table"), equal=_EQUAL
        )
        ctx.applied.add(META.id)
        translation = CallTranslation(_MINDSPORE, positional, keywords)
        return updated.with_changes(args=call_arguments(translation, updated))
