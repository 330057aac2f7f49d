"""Short constructors for table rows, so that each row states only what differs from its kind."""

from __future__ import annotations

from typing import Any

from .spec import ApiMapping

OPS = "mindspore.ops."
NN = "mindspore.nn."
# Fields whose presence means the call is carried over with changed arguments ("args"), not as is.
_ARGUMENT_CHANGES = (
    "rename",
    "defaults",
    "transform",
    "requires",
    "unsafe_args",
    "drop",
    "positional",
)


def _status(fields: dict) -> str:
    changed = any(fields.get(name) not in (None, (), {}) for name in _ARGUMENT_CHANGES)
    return "args" if changed or fields.get("form", "call") != "call" else "exact"


def fn(
    torch: str, mindspore: str = "", params: tuple = ("input",), **fields: Any
) -> ApiMapping:
    """A `torch.*` function; the MindSpore side defaults to `mindspore.ops.<same name>`."""
    fields.setdefault("sample", ("f32[2,3]",))
    fields.setdefault("status", _status(fields))
    leaf = torch.rsplit(".", 1)[1]
    return ApiMapping(
        torch=torch,
        mindspore=mindspore or OPS + leaf,
        kind="function",
        params=params,
        **fields,
    )


def method(
    name: str, mindspore: str = "", params: tuple = ("self",), **fields: Any
) -> ApiMapping:
    """A Tensor method; the MindSpore side is a Tensor method (a bare name) or a function taking self first."""
    fields.setdefault("sample", ("f32[2,3]",))
    fields.setdefault("status", _status(fields))
    # Tensor methods take `x.view(2, 3)` as MindSpore's do; a function target gets them as a tuple.
    fields.setdefault("spread", not mindspore.startswith("mindspore."))
    return ApiMapping(
        torch="torch.Tensor." + name,
        mindspore=mindspore
        if mindspore.startswith("mindspore.")
        else "mindspore.Tensor." + (mindspore or name),
        kind="method",
        params=params,
        **fields,
    )


def layer(
    torch: str, mindspore: str = "", params: tuple = (), **fields: Any
) -> ApiMapping:
    """A `torch.nn` class; the MindSpore side defaults to `mindspore.nn.<same name>`."""
    fields.setdefault("sample", ("f32[2,3]",))
    fields.setdefault("status", _status(fields))
    # torch's `dtype=None` means the default; MindSpore's layers refuse None. A dtype that is not
    # written out is refused (the companion class, where there is one, accepts torch's).
    fields["unsafe_args"] = {"dtype": "None", **fields.get("unsafe_args", {})}
    leaf = torch.rsplit(".", 1)[1]
    return ApiMapping(
        torch=torch,
        mindspore=mindspore or NN + leaf,
        kind="class",
        params=params,
        **fields,
    )


def report(
    torch: str, note: str, mindspore: str = "", kind: str = "function"
) -> ApiMapping:
    """An API with no certain rewrite: the note says why and names the MindSpore idiom."""
    return ApiMapping(
        torch=torch,
        mindspore=mindspore,
        kind=kind,
        status="report",
        note=note,
        targets=(),
    )


def alias(torch: str, mindspore: str, **fields: Any) -> ApiMapping:
    """A name used as a value (a dtype, a class used in isinstance), not called."""
    fields.setdefault("check", "exists")
    return ApiMapping(
        torch=torch,
        mindspore=mindspore,
        kind="name",
        status="exact",
        sample=(),
        **fields,
    )
