"""`x.type(...)`: `x.type(y.type())` becomes `x.astype(y.dtype)`; the type name and casts by a value
that is not a dtype written out go through the companion's `tensor_type`, compared with torch."""

from __future__ import annotations

import importlib.util
import sys

import numpy as np
import pytest
from conftest import convert_checked
from torch2ms.rules.companion import assemble

HEAD = "import torch\n\n\ndef f(x, w, dt):\n"


@pytest.mark.parametrize(
    ("before", "after"),
    [
        (
            "y = torch.zeros(3, device=w.device).type(w.type())",
            "y = ops.zeros(3).astype(w.dtype)",
        ),
        ("y = x.type(self.weight.type())", "y = x.astype(self.weight.dtype)"),
        ("y = x.type()", "y = ms_aux.tensor_type(x)"),
        ("y = x.type(dt)", "y = ms_aux.tensor_type(x, dt)"),
        (
            "y = x.type('torch.HalfTensor')",
            "y = ms_aux.tensor_type(x, 'torch.HalfTensor')",
        ),
        ("y = x.type(torch.float16)", "y = x.type(mindspore.float16)"),
        ("y = x.type(dtype=x.dtype)", "y = x.type(dtype=x.dtype)"),
        # `non_blocking` only makes the copy asynchronous: dropped.
        ("y = x.type(torch.int8, True)", "y = x.type(mindspore.int8)"),
        ("y = x.type(dt, non_blocking=True)", "y = ms_aux.tensor_type(x, dt)"),
    ],
)
def test_type_calls_are_converted(before: str, after: str) -> None:
    result = convert_checked(HEAD + f"    {before}\n    return y\n")
    assert f"    {after}\n" in result.code
    assert "import torch" not in result.code
    assert not [f for f in result.findings if f.severity == "error"]
    assert ("import ms_aux" in result.code) == ("ms_aux." in after)


@pytest.fixture(scope="module")
def aux(fw, tmp_path_factory):
    path = tmp_path_factory.mktemp("aux") / "ms_aux_type.py"
    path.write_text(assemble(["tensor_type"]), encoding="utf-8")
    spec = importlib.util.spec_from_file_location("ms_aux_type", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


DTYPES = [
    "float32",
    "float64",
    "float16",
    "bfloat16",
    "uint8",
    "int8",
    "int16",
    "int32",
    "int64",
    "bool",
    "complex64",
]


@pytest.mark.real
@pytest.mark.parametrize("dtype", DTYPES)
def test_type_name_is_torchs(aux, fw, dtype: str) -> None:
    torch, ms = fw
    data = np.arange(6).reshape(2, 3)
    expected = torch.tensor(data).to(getattr(torch, dtype)).type()
    got = aux.tensor_type(ms.Tensor(data).astype(getattr(ms, dtype)))
    assert got == expected


@pytest.mark.real
@pytest.mark.parametrize("dtype", ["float16", "float64", "int32", "bool"])
def test_casts_by_name_and_by_dtype_match_torch(aux, fw, dtype: str) -> None:
    torch, ms = fw
    data = (np.random.RandomState(0).standard_normal((2, 3)) * 3).astype(np.float32)
    name = torch.tensor(data).to(getattr(torch, dtype)).type()
    expected = torch.tensor(data).type(name)
    for given in (name, name.replace("torch.", "torch.cuda."), getattr(ms, dtype)):
        got = aux.tensor_type(ms.Tensor(data), given)
        assert aux.tensor_type(got) == expected.type()
        np.testing.assert_array_equal(
            got.astype(ms.float32).asnumpy(), expected.float().numpy()
        )


@pytest.mark.real
def test_a_cast_to_its_own_type_is_the_tensor_and_bad_names_raise(aux, fw) -> None:
    torch, ms = fw
    x = ms.Tensor(np.ones((2, 2), np.float32))
    t = torch.ones(2, 2)
    assert (aux.tensor_type(x, "torch.FloatTensor") is x) == (
        t.type("torch.FloatTensor") is t
    )
    with pytest.raises(ValueError):
        torch.ones(1).type("torch.NoSuchTensor")
    with pytest.raises(ValueError):
        aux.tensor_type(x, "torch.NoSuchTensor")
