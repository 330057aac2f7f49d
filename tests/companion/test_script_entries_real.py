"""Companion entries that whole training scripts need (`full`, `data_parallel`, `scalar`), run on
MindSpore beside real torch on the same inputs."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest
from torch2ms.rules.companion import assemble

pytestmark = pytest.mark.real


@pytest.fixture(scope="module")
def aux(fw, tmp_path_factory):
    path = tmp_path_factory.mktemp("aux") / "ms_aux_script.py"
    path.write_text(assemble(["full", "data_parallel", "scalar"]), encoding="utf-8")
    spec = importlib.util.spec_from_file_location("ms_aux_script", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _dtype_name(dtype) -> str:
    return str(dtype).rsplit(".", 1)[-1].lower().replace("bool_", "bool")


@pytest.mark.parametrize(
    "fill", [1, 1.5, -2.25, True, False, 2 + 1j, np.float64(0.5), np.int32(3)]
)
def test_full_infers_torchs_dtype_from_the_value(aux, fw, fill) -> None:
    torch, _ = fw
    expected = torch.full((2, 3), fill)
    got = aux.full((2, 3), fill)
    assert _dtype_name(got.dtype) == _dtype_name(expected.dtype)
    np.testing.assert_array_equal(got.asnumpy(), expected.numpy())


@pytest.mark.parametrize("fill", [1.5, 7])
def test_full_takes_a_tensors_number(aux, fw, fill) -> None:
    torch, ms = fw
    expected = torch.full([3], torch.tensor(fill))
    got = aux.full([3], ms.Tensor(fill))
    assert _dtype_name(got.dtype) == _dtype_name(expected.dtype)
    np.testing.assert_array_equal(got.asnumpy(), expected.numpy())


@pytest.mark.parametrize(
    ("torch_dtype", "ms_dtype"),
    [("float16", "float16"), ("int32", "int32"), ("bool", "bool_")],
)
def test_full_with_a_dtype(aux, fw, torch_dtype, ms_dtype) -> None:
    torch, ms = fw
    expected = torch.full((2,), 1, dtype=getattr(torch, torch_dtype), device="cpu")
    got = aux.full((2,), 1, dtype=getattr(ms, ms_dtype), device="cpu")
    assert _dtype_name(got.dtype) == _dtype_name(expected.dtype)
    np.testing.assert_array_equal(got.asnumpy(), expected.numpy())


def test_full_refuses_what_it_cannot_reproduce(aux, fw) -> None:
    with pytest.raises(NotImplementedError, match="requires_grad"):
        aux.full((2,), 1.0, requires_grad=True)
    with pytest.raises(NotImplementedError, match="out"):
        aux.full((2,), 1.0, out=object())


def test_data_parallel_on_one_device_is_the_modules_call(aux, fw) -> None:
    torch, ms = fw
    rng = np.random.default_rng(0)
    w = rng.standard_normal((2, 3)).astype(np.float32)
    x = rng.standard_normal((4, 3)).astype(np.float32)
    layer = torch.nn.Linear(3, 2, bias=False)
    with torch.no_grad():
        layer.weight.copy_(torch.from_numpy(w))
    # On one device torch's result is the module's own call; on a machine without an
    # accelerator torch refuses to run it at all.
    expected = layer(torch.from_numpy(x))
    with pytest.raises(RuntimeError, match="device type"):
        torch.nn.parallel.data_parallel(layer, torch.from_numpy(x), None)
    cell = ms.nn.Dense(3, 2, has_bias=False)
    cell.weight.set_data(ms.Tensor(w))
    got = aux.data_parallel(cell, ms.Tensor(x), range(2))
    np.testing.assert_allclose(got.asnumpy(), expected.detach().numpy(), rtol=1e-6)
    both = aux.data_parallel(
        lambda a, b, scale=1: (a + b) * scale,
        (ms.Tensor(x), ms.Tensor(x)),
        module_kwargs={"scale": 2},
    )
    np.testing.assert_allclose(both.asnumpy(), 4 * x, rtol=1e-6)


@pytest.mark.parametrize("spec", [".2f", "+.3e", ">10.4f", ".0f"])
def test_scalar_formats_as_torch_formats_a_0d_tensor(aux, fw, spec) -> None:
    torch, ms = fw
    value = np.float32(-1.23456)
    expected = format(torch.tensor(value), spec)
    assert format(aux.scalar(ms.Tensor(value)), spec) == expected
    assert format(aux.scalar(ms.Tensor(value)[None][0]), spec) == expected
    assert format(aux.scalar(ms.Parameter(ms.Tensor(value))), spec) == expected


def test_scalar_leaves_other_values(aux, fw) -> None:
    torch, ms = fw
    assert aux.scalar(2.5) == 2.5 and aux.scalar("text") == "text"
    big = ms.Tensor(np.ones((2, 2), np.float32))
    assert aux.scalar(big) is big
    with pytest.raises(TypeError):
        format(torch.ones(2, 2), ".2f")
    with pytest.raises(TypeError):
        format(aux.scalar(big), ".2f")  # what torch refuses stays refused
