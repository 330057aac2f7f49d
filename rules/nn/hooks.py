"""Module hook registrations in a Cell's names and argument forms.

A Cell registers forward hooks with torch's signatures (`hook(cell, inputs, output)`), but
names the function `hook_fn`; torch's full backward hooks are a Cell's backward hooks
(`hook(cell, grad_input, grad_output)`, `pre_hook(cell, grad_output)`), which take no `prepend`.
"""

from __future__ import annotations

import libcst as cst

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


def hook_call(call: cst.Call, name: str) -> cst.Call | None:
    """`m.register_forward_hook(hook=f, prepend=True)` -> `m.register_forward_hook(f,
    prepend=True)`; `m.register_full_backward_hook(f)` -> `m.register_backward_hook(f)`. None
    when the call is already the Cell's or passes what the Cell's method does not take."""
    target, keywords = HOOKS[name]
    hook = None
    rest = []
    for arg in call.args:
        if arg.star:
            return None
        if arg.keyword is None:
            if hook is not None or rest:
                return None
            hook = arg
        elif arg.keyword.value == "hook" and hook is None:
            hook = arg.with_changes(keyword=None, equal=cst.MaybeSentinel.DEFAULT)
        elif arg.keyword.value in keywords:
            rest.append(arg)
        else:
            return None
    if hook is None:
        return None
    args = [hook, *rest]
    if target == name and all(a is b for a, b in zip(args, call.args)):
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
