"""Module hook registrations in a Cell's names and argument forms.

A Cell registers forward hooks with torch's signatures (`hook(cell, inputs, output)`), but
names the function `hook_fn`; torch's full backward hooks are a Cell's backward hooks
(`hook(cell, grad_input, grad_output)`, `pre_hook(cell, grad_output)`), which take no `prepend`.
"""

from __future__ import annotations

import libcst as cst

from ...migrator.findings import ERROR
from ...migrator.rule import define

HOOK_ARGUMENTS = define(
    "TM962",
    "Hook registration with an option the Cell's method lacks",
    "Reports a Module hook registration left as it was because it passes what the Cell's "
    "method does not take: `prepend=True` to a full backward hook (MindSpore's "
    "`register_backward_hook` and `register_backward_pre_hook` take the hook only), an option "
    "known only at run time, or arguments spread with `*`/`**`.",
    "`prepend=True` runs the hook before the hooks registered earlier on the module; a Cell runs "
    "its backward hooks in the order they were registered, so the order must be written by hand.",
    "`cell.register_backward_hook(hook)` (or `register_backward_pre_hook`), registered before the "
    "hooks it must precede; `register_forward_hook(hook, prepend=..., with_kwargs=..., "
    "always_call=...)` takes torch's options.",
    severity=ERROR,
    family="nn",
)

# torch method -> the Cell's, and the keyword arguments both take with the same meaning.
HOOKS: dict[str, tuple[str, frozenset[str]]] = {
    "register_forward_hook": (
        "register_forward_hook",
        frozenset({"prepend", "with_kwargs", "always_call"}),
    ),
    "register_forward_pre_hook": (
        "register_forward_pre_hook",
        frozenset({"prepend", "with_kwargs"}),
    ),
    "register_full_backward_hook": ("register_backward_hook", frozenset()),
    "register_full_backward_pre_hook": ("register_backward_pre_hook", frozenset()),
}
# torch's options whose default (False) a registration may spell out: dropped where the Cell's
# method lacks them, as they change nothing.
_DEFAULT_FALSE = frozenset({"prepend", "with_kwargs", "always_call"})


def hook_call(call: cst.Call, name: str) -> cst.Call | str | None:
    """`m.register_forward_hook(hook=f, prepend=True)` -> `m.register_forward_hook(f,
    prepend=True)`; `m.register_full_backward_hook(f, prepend=False)` ->
    `m.register_backward_hook(f)`. None when the call is already the Cell's; the reason, for a
    finding, when it passes what the Cell's method does not take."""
    target, keywords = HOOKS[name]
    hook = None
    rest = []
    for arg in call.args:
        if arg.star:
            if target == name:
                return None  # the Cell's method takes torch's options by the same names
            return (
                f"`{name}` with arguments spread by `{arg.star}`: MindSpore's "
                f"`Cell.{target}` takes the hook only"
            )
        if arg.keyword is None:
            if hook is not None or rest:
                return f"`{name}` takes its options by keyword only; this call passes more than the hook by position"
            hook = arg
        elif arg.keyword.value == "hook" and hook is None:
            hook = arg.with_changes(keyword=None, equal=cst.MaybeSentinel.DEFAULT)
        elif arg.keyword.value in keywords:
            rest.append(arg)
        elif arg.keyword.value in _DEFAULT_FALSE:
            value = arg.value
            if isinstance(value, cst.Name) and value.value == "False":
                continue
            option = arg.keyword.value
            if isinstance(value, cst.Name) and value.value == "True":
                return (
                    f"`{name}({option}=True)`: MindSpore's `Cell.{target}` takes no `{option}`; "
                    "a Cell runs its backward hooks in the order they are registered"
                )
            return (
                f"`{name}({option}=...)` with a value known only at run time: MindSpore's "
                f"`Cell.{target}` takes no `{option}`, so only `False` has a counterpart"
            )
        else:
            return f"`{name}` with `{arg.keyword.value}=`, which torch's and the Cell's methods do not take"
    if hook is None:
        return None
    args = [hook, *rest]
    if (
        target == name
        and len(args) == len(call.args)
        and all(a is b for a, b in zip(args, call.args))
    ):
        return None
    last = len(args) - 1
    args = [
        a.with_changes(comma=cst.MaybeSentinel.DEFAULT) if i == last else a
        for i, a in enumerate(args)
    ]
    if last > 0 and hook.comma == cst.MaybeSentinel.DEFAULT:
        args[0] = hook.with_changes(
            comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
        )
    func = call.func.with_changes(attr=cst.Name(target))  # type: ignore[attr-defined]
    return call.with_changes(func=func, args=args)
