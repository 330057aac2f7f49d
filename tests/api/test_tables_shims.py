"""The verified API mappings, run on the shims: the torch facade against the MindSpore facade.

Entries whose torch or MindSpore side the shims do not implement are skipped (the facades raise
NotImplementedError for what they lack); everything the shims do implement must agree.
"""

from __future__ import annotations

import ast
import importlib
from typing import Any

import numpy as np
from torch2ms.rules.api import ALL_MAPPINGS
from torch2ms.rules.api.samples import build, convert, rng_for
from torch2ms.rules.api.spec import ApiMapping, CallTranslation, translate_call

RTOL, ATOL = 1e-4, 1e-5
CALLS = [
    m
    for m in ALL_MAPPINGS
    if m.translatable
    and "cpu" in m.targets
    and m.kind in ("function", "method")
    and m.form in ("call", "attribute")
]
# Where the MindSpore facade still follows an older MindSpore than 2.10 (the real test passes these).
KNOWN_DEVIATIONS = {
    "torch.Tensor.flatten": "the facade's Tensor.flatten takes `order` first; MindSpore 2.10's takes start_dim",
}
# What a facade lacks (or takes with a narrower signature) shows up as one of these.
SHIM_GAPS = (
    NotImplementedError,
    AttributeError,
    ImportError,
    TypeError,
    ValueError,
    KeyError,
    IndexError,
)


def facade(name: str) -> Any:
    return importlib.import_module(f"torch2ms.shims.{name}")


def resolve(root: Any, dotted: str) -> Any:
    """Walk `torch.nn.functional.relu` from a facade package, importing submodules on the way."""
    obj, path = root, root.__name__
    for part in dotted.split(".")[1:]:
        path = f"{path}.{part}"
        try:
            obj = getattr(obj, part)
        except AttributeError:
            obj = importlib.import_module(path)
    return obj


def leaves(value: Any) -> list:
    if isinstance(value, (tuple, list)):
        return [leaf for item in value for leaf in leaves(item)]
    data = getattr(value, "data", value)
    return [np.asarray(data)]


def literal(value: Any) -> Any:
    if value is None or isinstance(value, (bool, int, float, str)):
        return repr(value)
    if isinstance(value, (tuple, list)) and all(
        isinstance(v, (bool, int, float, str)) for v in value
    ):
        return repr(value)
    return None


def shim_call(mapping: ApiMapping, torch: Any, ms: Any) -> tuple[list, list]:
    rng = rng_for(mapping.torch)
    args, kwargs = (
        build(tuple(mapping.sample), rng),
        build(dict(mapping.sample_kwargs), rng),
    )
    t_args, t_kwargs = (
        convert(v, lambda a: torch.tensor(a), lambda n: getattr(torch, n))
        for v in (args, kwargs)
    )
    m_args, m_kwargs = (
        convert(v, lambda a: ms.Tensor(a), lambda n: getattr(ms, n))
        for v in (args, kwargs)
    )
    leaf = mapping.torch.rsplit(".", 1)[1]
    if mapping.kind == "method":
        expected = getattr(t_args[0], leaf)(*t_args[1:], **t_kwargs)
    else:
        expected = resolve(torch, mapping.torch)(*t_args, **t_kwargs)
    call = translate_call(
        mapping,
        list(m_args),
        m_kwargs,
        literal,
        lambda name, value: 1 - value if name == "one_minus" else value,
        lambda source: (
            resolve(ms, source)
            if source.startswith("mindspore.")
            else ast.literal_eval(source)
        ),
        tuple,
    )
    assert isinstance(call, CallTranslation), call
    ms_leaf = call.mindspore.rsplit(".", 1)[1]
    if mapping.kind == "method" and call.mindspore.startswith("mindspore.Tensor."):
        receiver, rest = call.args[0], call.args[1:]
        if mapping.form == "attribute":
            actual = getattr(receiver, ms_leaf)
            actual = actual[rest[0]] if rest else actual
        else:
            actual = getattr(receiver, ms_leaf)(*rest, **call.kwargs)
    else:
        actual = resolve(ms, call.mindspore)(*call.args, **call.kwargs)
    return leaves(expected), leaves(actual)


def test_shims_agree_where_they_implement_both_sides() -> None:
    torch, ms = facade("torch"), facade("mindspore")
    ran, mismatches, gaps = [], [], []
    for mapping in CALLS:
        try:
            expected, actual = shim_call(mapping, torch, ms)
        except SHIM_GAPS as error:
            gaps.append(
                f"{mapping.torch}: {type(error).__name__}: {str(error).strip()[:120]}"
            )
            continue
        ran.append(mapping.torch)
        try:
            assert len(expected) == len(actual)
            for want, got in zip(expected, actual):
                assert want.shape == got.shape
                if mapping.check == "values":
                    np.testing.assert_allclose(
                        got.astype(np.float64),
                        want.astype(np.float64),
                        rtol=RTOL,
                        atol=ATOL,
                    )
        except AssertionError as error:
            if mapping.torch not in KNOWN_DEVIATIONS:
                mismatches.append(f"{mapping.torch}: {str(error).strip()[:200]}")
            continue
        if mapping.torch in KNOWN_DEVIATIONS:
            mismatches.append(
                f"{mapping.torch} agrees now: remove it from KNOWN_DEVIATIONS"
            )
    print(
        f"shim coverage: {len(ran)} of {len(CALLS)} call mappings run on both facades"
    )
    print("\n".join(gaps))
    assert ran, "the shims implement none of the mapped calls"
    assert not mismatches, "\n".join(mismatches)
