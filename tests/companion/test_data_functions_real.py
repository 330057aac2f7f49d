"""`torch.nonzero`, `torch.expand_copy` and `torch.normal` as timm's data and analysis code calls
them (naflex random erasing, signal propagation plots): converted, and run against real torch."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest
from torch2ms.migrator.convert import convert_source
from torch2ms.rules.companion import assemble

SOURCE = """import torch


def erase_values(value, shape):
    return torch.expand_copy(torch.tensor(value), shape)


def valid_rows(patch_valid):
    return torch.nonzero(patch_valid, as_tuple=True)[0], torch.nonzero(patch_valid)


def cells(mask):
    return torch.nonzero(mask, as_tuple=True)


def probe(shape):
    return torch.normal(0., 1., shape)
"""


def _convert(source: str):
    result = convert_source(source, "m.py")
    compile(result.code, "m.py", "exec")
    assert convert_source(result.code, "m.py").code == result.code
    return result


def test_conversion() -> None:
    result = _convert(SOURCE)
    assert "ops.broadcast_to(mindspore.tensor(value), shape=shape)" in result.code
    assert (
        "ms_aux.nonzero(patch_valid, as_tuple=True)[0], ops.nonzero(patch_valid)"
        in result.code
    )
    assert "ms_aux.normal(0., 1., shape)" in result.code
    assert "import ms_aux\n" in result.code
    assert "torch" not in result.code and not result.findings


@pytest.fixture(scope="module")
def pair(fw, tmp_path_factory):
    """The original module on torch and the converted one on MindSpore, its companion beside it."""
    folder = tmp_path_factory.mktemp("converted")
    result = _convert(SOURCE)
    (folder / "ms_aux.py").write_text(
        assemble(sorted(result.companion)), encoding="utf-8"
    )
    (folder / "converted_data_fns.py").write_text(result.code, encoding="utf-8")
    import sys

    sys.path.insert(0, str(folder))
    try:
        sys.modules.pop("ms_aux", None)
        spec = importlib.util.spec_from_file_location(
            "converted_data_fns", folder / "converted_data_fns.py"
        )
        converted = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(converted)
    finally:
        sys.path.remove(str(folder))
    original: dict = {}
    exec(compile(SOURCE, "original.py", "exec"), original)  # noqa: S102 - our snippet
    return original, converted


def _np(value):
    return value.asnumpy() if hasattr(value, "asnumpy") else value.numpy()


@pytest.mark.real
@pytest.mark.parametrize("shape", [(1, 1, 3), (1, 3), (2, 4, 3)])
def test_expand_copy_values(pair, fw, shape) -> None:
    original, converted = pair
    want = original["erase_values"]([0.1, 0.2, 0.3], shape)
    got = converted.erase_values([0.1, 0.2, 0.3], shape)
    np.testing.assert_array_equal(_np(got), _np(want))
    assert _np(got).dtype == _np(want).dtype


@pytest.mark.real
@pytest.mark.parametrize(
    "valid", [[True, False, True, True], [False, False, False], [True]]
)
def test_nonzero_rows_and_columns(pair, fw, valid) -> None:
    torch, ms = fw
    original, converted = pair
    want = original["valid_rows"](torch.tensor(valid))
    got = converted.valid_rows(ms.Tensor(np.array(valid)))
    for a, b in zip(got, want):
        assert _np(a).dtype == _np(b).dtype == np.int64
        np.testing.assert_array_equal(_np(a), _np(b))


@pytest.mark.real
@pytest.mark.parametrize(
    "mask",
    [
        np.array([[0.0, 1.5], [2.0, 0.0], [0.0, 0.0]], np.float32),
        np.zeros((2, 3, 2), np.int64),
        np.array(3.0, np.float32),
        np.array(0.0, np.float32),
    ],
    ids=["2d", "3d-empty", "0d", "0d-zero"],
)
def test_nonzero_as_tuple(pair, fw, mask) -> None:
    torch, ms = fw
    original, converted = pair
    want = original["cells"](torch.tensor(mask))
    got = converted.cells(ms.Tensor(mask))
    assert isinstance(got, tuple) and len(got) == len(want)
    for a, b in zip(got, want):
        assert _np(a).dtype == _np(b).dtype
        np.testing.assert_array_equal(_np(a), _np(b))


@pytest.mark.real
def test_normal_draws_torchs_shape_dtype_and_distribution(pair, fw) -> None:
    """Another generator than torch's: the shape, dtype and distribution are compared."""
    _, ms = fw
    original, converted = pair
    want = original["probe"]([400, 3, 5, 5]).numpy()
    got = converted.probe([400, 3, 5, 5]).asnumpy()
    assert got.shape == want.shape and got.dtype == want.dtype == np.float32
    assert abs(float(got.mean())) < 0.02 and abs(float(got.std()) - 1.0) < 0.02
    assert abs(float(got.mean()) - float(want.mean())) < 0.03
    ms.set_seed(3)
    first = converted.probe([4]).asnumpy()
    ms.set_seed(3)
    np.testing.assert_array_equal(converted.probe([4]).asnumpy(), first)


@pytest.mark.real
def test_normal_with_tensor_mean_and_std(fw, tmp_path) -> None:
    torch, ms = fw
    path = tmp_path / "aux_normal.py"
    path.write_text(assemble(["normal", "Generator"]), encoding="utf-8")
    spec = importlib.util.spec_from_file_location("aux_normal", path)
    aux = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(aux)
    mean = np.arange(6, dtype=np.float32).reshape(2, 3)
    std = np.full((1, 3), 1e-6, np.float32)
    want = torch.normal(torch.tensor(mean), torch.tensor(std))
    got = aux.normal(ms.Tensor(mean), ms.Tensor(std))
    assert got.shape == tuple(want.shape) and got.dtype == ms.float32
    np.testing.assert_allclose(got.asnumpy(), want.numpy(), atol=1e-4)
    spread = aux.normal(ms.Tensor(np.zeros(20000, np.float32)), 2.0).asnumpy()
    assert abs(float(spread.std()) - 2.0) < 0.05
    one, two = aux.Generator().manual_seed(7), aux.Generator().manual_seed(7)
    np.testing.assert_array_equal(
        aux.normal(1.0, 2.0, (5,), generator=one).asnumpy(),
        aux.normal(1.0, 2.0, (5,), generator=two).asnumpy(),
    )
    with pytest.raises(TypeError, match="size"):
        aux.normal(0.0, 1.0)
    with pytest.raises(NotImplementedError, match="out="):
        aux.normal(0.0, 1.0, (2,), out=ms.Tensor(np.zeros(2, np.float32)))


NOISE = """import torch


def noise(shape, dtype):
    return torch.empty(shape, dtype=dtype).normal_(), torch.empty(shape).uniform_(-2, 2)
"""


def test_a_new_tensor_filled_at_random_is_a_draw() -> None:
    """Random erasing draws its noise as `torch.empty(...).normal_()`: MindSpore 2.10 has no CPU
    kernel for `normal_`, and nothing else holds the new tensor, so the fill is the draw."""
    result = _convert(NOISE)
    assert (
        "return ops.randn_like(ops.zeros(shape, dtype=dtype), dtype=dtype), "
        "(ops.rand_like(ops.zeros(shape)) * 4 - 2)" in result.code
    )
    assert "torch" not in result.code and not result.findings


@pytest.mark.real
def test_the_drawn_fill_has_torchs_shape_dtype_and_distribution(fw) -> None:
    torch, ms = fw
    original: dict = {}
    exec(compile(NOISE, "original.py", "exec"), original)  # noqa: S102 - our snippet
    converted: dict = {}
    exec(compile(_convert(NOISE).code, "converted.py", "exec"), converted)  # noqa: S102
    for dtype in ("float32", "float16"):
        want = [
            t.numpy() for t in original["noise"]((60, 50, 4), getattr(torch, dtype))
        ]
        got = [t.asnumpy() for t in converted["noise"]((60, 50, 4), getattr(ms, dtype))]
        for a, b in zip(got, want):
            assert a.shape == b.shape and a.dtype == b.dtype
        normal, uniform = (g.astype(np.float64) for g in got)
        assert abs(normal.mean()) < 0.05 and abs(normal.std() - 1) < 0.05
        assert -2 <= uniform.min() and uniform.max() <= 2
        assert abs(uniform.mean()) < 0.1 and abs(uniform.std() - 4 / 12**0.5) < 0.05
