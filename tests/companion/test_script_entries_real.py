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


@pytest.fixture(scope="module")
def rnd(fw, tmp_path_factory):
    names = ["Generator", "randperm", "randint", "rand", "randn", "multinomial"]
    path = tmp_path_factory.mktemp("aux") / "ms_aux_random.py"
    path.write_text(assemble(names), encoding="utf-8")
    spec = importlib.util.spec_from_file_location("ms_aux_random", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _draws(torch_or_aux, generator, weights):
    """One draw of each kind from ``generator``, in torch's call forms."""
    return [
        torch_or_aux.randperm(10, generator=generator),
        torch_or_aux.randint(0, 5, (3, 4), generator=generator),
        torch_or_aux.randint(7, (5,), generator=generator),
        torch_or_aux.rand(2, 3, generator=generator),
        torch_or_aux.randn((4,), generator=generator),
        torch_or_aux.multinomial(weights, 2, generator=generator),
        torch_or_aux.multinomial(weights[0], 6, replacement=True, generator=generator),
    ]


def test_a_seeded_generator_gives_torchs_kinds_of_draws_reproducibly(rnd, fw) -> None:
    torch, ms = fw
    weights = np.array([[0.1, 0.0, 0.6, 0.3], [0.5, 0.5, 0.0, 0.0]], np.float32)
    expected = _draws(torch, torch.Generator().manual_seed(3), torch.tensor(weights))
    first = _draws(rnd, rnd.Generator().manual_seed(3), ms.Tensor(weights))
    again = _draws(rnd, rnd.Generator().manual_seed(3), ms.Tensor(weights))
    other = _draws(rnd, rnd.Generator().manual_seed(4), ms.Tensor(weights))
    for want, got, repeat in zip(expected, first, again):
        assert tuple(got.shape) == tuple(want.shape)
        assert _dtype_name(got.dtype) == _dtype_name(want.dtype)
        np.testing.assert_array_equal(got.asnumpy(), repeat.asnumpy())
    assert any(
        not np.array_equal(a.asnumpy(), b.asnumpy()) for a, b in zip(first, other)
    )
    perm, ints, ints_high, uniform, _, picked, with_replacement = first
    assert sorted(perm.asnumpy().tolist()) == list(range(10))
    assert ints.asnumpy().min() >= 0 and ints.asnumpy().max() < 5
    assert ints_high.asnumpy().max() < 7
    assert ((uniform.asnumpy() >= 0) & (uniform.asnumpy() < 1)).all()
    rows = picked.asnumpy()
    assert 1 not in rows[0] and len(set(rows[0])) == 2  # a zero weight is never drawn
    assert set(rows[1]) == {0, 1}
    assert set(with_replacement.asnumpy()) <= {0, 2, 3}


def test_a_generators_state_restores_its_stream(rnd, fw) -> None:
    torch, _ = fw
    generator = rnd.Generator()
    assert generator.initial_seed() == torch.Generator().initial_seed()
    state = generator.get_state()
    first = rnd.randn(5, generator=generator).asnumpy()
    generator.set_state(state)
    np.testing.assert_array_equal(rnd.randn(5, generator=generator).asnumpy(), first)
    seed = generator.seed()
    assert generator.initial_seed() == seed


def test_draws_without_a_generator_use_mindspores_seed(rnd, fw) -> None:
    _, ms = fw
    ms.set_seed(5)
    first = rnd.randperm(20).asnumpy()
    ms.set_seed(5)
    np.testing.assert_array_equal(rnd.randperm(20).asnumpy(), first)
    with pytest.raises(NotImplementedError, match="out"):
        rnd.rand(2, out=object())
