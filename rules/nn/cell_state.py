"""TM313: a Module's `__setstate__`, written for torch's state (the `__dict__`), takes a Cell's.

torch pickles and deep-copies a Module as its `__dict__`, and a `__setstate__` override patches
that dict (`if 'activation' not in state: state['activation'] = F.relu`) before handing it to
`super().__setstate__(state)`. A MindSpore Cell's state is the pair (its C++ base state, its
`__dict__`): the override unpacks the pair, works on the dict as before, and hands the pair on.
"""

from __future__ import annotations

import libcst as cst

from ...migrator.context import ModuleContext
from ...migrator.findings import WARNING
from ...migrator.rule import Example, define
from ..common.dataflow import fresh_name, usage

CELL_STATE = define(
    "TM313",
    "`__setstate__` works on the dict part of a Cell's state",
    "Rewrites a Module's `__setstate__(self, state)` that hands `state` to "
    "`super().__setstate__(state)` once, at the top of its body: the Cell's state pair is unpacked "
    "into its base state and its dict first, and the pair is handed on.",
    "torch's Module state is its `__dict__`; a MindSpore Cell's is `(base state, __dict__)`, so the "
    "override would index a tuple as a dict when the Cell is copied (`copy.deepcopy`, as "
    "`TransformerDecoder` does with its layer) or unpickled.",
    "`cell_state, state = state` first, and `super().__setstate__((cell_state, state))`.",
    examples=(
        Example(
            before="import torch.nn as nn\n\nclass Net(nn.Module):\n"
            "    def __setstate__(self, state):\n        state.setdefault('scale', 1.0)\n"
            "        super().__setstate__(state)\n",
            after="from mindspore import nn\n\nclass Net(nn.Cell):\n"
            "    def __setstate__(self, state):\n        cell_state, state = state\n"
            "        state.setdefault('scale', 1.0)\n"
            "        super().__setstate__((cell_state, state))\n",
        ),
    ),
    family="nn",
)


def cell_setstate(function: cst.FunctionDef, ctx: ModuleContext) -> cst.FunctionDef:
    """``function`` (a Module class's `__setstate__`) taking a Cell's state, where certain."""
    params = function.params
    if (
        params.posonly_params
        or params.kwonly_params
        or params.star_kwarg is not None
        or isinstance(params.star_arg, cst.Param)
        or len(params.params) != 2
        or not isinstance(function.body, cst.IndentedBlock)
    ):
        return function
    state = params.params[1].name.value
    body = list(function.body.body)
    handing_on = [i for i, s in enumerate(body) if _hands_on(s, state)]
    if len(handing_on) != 1 or any(
        state in usage(s).writes for i, s in enumerate(body) if i != handing_on[0]
    ):
        return function
    taken = set().union(*(usage(s).writes | set(usage(s).read_names) for s in body))
    base = fresh_name("cell_state", taken | {state})
    unpack = cst.SimpleStatementLine(
        [
            cst.Assign(
                [
                    cst.AssignTarget(
                        cst.Tuple(
                            [cst.Element(cst.Name(base)), cst.Element(cst.Name(state))],
                            lpar=[],
                            rpar=[],
                        )
                    )
                ],
                cst.Name(state),
            )
        ]
    )
    index = handing_on[0]
    line = body[index]
    call = line.body[0].value
    pair = cst.Tuple([cst.Element(cst.Name(base)), cst.Element(cst.Name(state))])
    body[index] = line.with_changes(
        body=[line.body[0].with_changes(value=call.with_changes(args=[cst.Arg(pair)]))]
    )
    ctx.applied.add(CELL_STATE.id)
    return function.with_changes(body=function.body.with_changes(body=[unpack, *body]))


def _hands_on(statement: cst.CSTNode, state: str) -> bool:
    """`super().__setstate__(state)` or `super(Cls, self).__setstate__(state)` alone on a line."""
    if not (
        isinstance(statement, cst.SimpleStatementLine)
        and len(statement.body) == 1
        and isinstance(statement.body[0], cst.Expr)
    ):
        return False
    call = statement.body[0].value
    return (
        isinstance(call, cst.Call)
        and isinstance(call.func, cst.Attribute)
        and call.func.attr.value == "__setstate__"
        and isinstance(call.func.value, cst.Call)
        and isinstance(call.func.value.func, cst.Name)
        and call.func.value.func.value == "super"
        and len(call.args) == 1
        and call.args[0].keyword is None
        and not call.args[0].star
        and isinstance(call.args[0].value, cst.Name)
        and call.args[0].value.value == state
    )


EXTRA_STATE = define(
    "TM959",
    "A Module's extra state is not in a Cell's parameters",
    "Reports a Module's own `get_extra_state`/`set_extra_state` method: torch stores what "
    "`get_extra_state()` returns in `state_dict()` under `<prefix>_extra_state` and hands it back "
    "to `set_extra_state()` on loading.",
    "A Cell's `parameters_dict()` and its checkpoints hold its Parameters only; MindSpore never "
    "calls these methods, so the extra state is neither saved nor restored.",
    "Save the value beside the checkpoint (`mindspore.save_checkpoint(net, path, "
    "append_dict={'_extra_state': ...})`) and restore it from the loaded dict by calling "
    "`set_extra_state` yourself.",
    severity=WARNING,
    family="nn",
)


def report_extra_state(original: cst.FunctionDef, ctx: ModuleContext) -> None:
    """TM959 at a Module's own `get_extra_state`/`set_extra_state`."""
    name = original.name.value
    ctx.report(
        EXTRA_STATE.id,
        f"`{name}`: the companion's `state_dict`/`load_state_dict` keep this extra state "
        "under `_extra_state` as torch does, but `parameters_dict()` and MindSpore "
        "checkpoints hold Parameters only",
        EXTRA_STATE.use_instead,
        node=original,
        severity=WARNING,
    )
