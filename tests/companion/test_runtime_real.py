"""The runtime stand-ins (rules/companion/library/runtime.py) against real torch: what each returns
for the calls timm makes, on the same inputs."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest
from torch2ms.migrator.context import Options
from torch2ms.migrator.convert import convert_source
from torch2ms.rules.companion import assemble
from torch2ms.rules.companion.table_runtime import ENTRIES

pytestmark = pytest.mark.real


@pytest.fixture(scope="module")
def aux(fw, tmp_path_factory):
    path = tmp_path_factory.mktemp("companion") / "ms_aux_runtime.py"
    path.write_text(assemble(sorted(set(ENTRIES.values()))), encoding="utf-8")
    spec = importlib.util.spec_from_file_location("ms_aux_runtime", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("shape", [(4, 3), (8, 4, 3, 3), (6, 2, 5)])
def test_fans_are_torchs(fw, aux, shape):
    torch, ms = fw
    expected = torch.nn.init._calculate_fan_in_and_fan_out(torch.empty(shape))
    assert (
        aux.calculate_fan_in_and_fan_out(ms.Tensor(np.zeros(shape, np.float32)))
        == expected
    )
    with pytest.raises(ValueError):
        aux.calculate_fan_in_and_fan_out(ms.Tensor(np.zeros(3, np.float32)))


def test_autocast_dtypes_are_torchs_defaults(fw, aux):
    torch, ms = fw
    names = {torch.bfloat16: ms.bfloat16, torch.float16: ms.float16}
    assert aux.get_autocast_dtype("cpu") == names[torch.get_autocast_dtype("cpu")]
    assert aux.get_autocast_dtype("cuda") == names[torch.get_autocast_dtype("cuda")]
    assert aux.get_autocast_cpu_dtype() == ms.bfloat16
    assert aux.get_autocast_gpu_dtype() == ms.float16


def test_default_device_reads_like_torchs(fw, aux):
    torch, _ = fw
    device = aux.get_default_device()
    assert device.type == torch.get_default_device().type == "cpu"
    assert str(device) == "cpu"


def test_assert_async_raises_on_a_false_value(fw, aux):
    _, ms = fw
    aux.assert_async(ms.Tensor(np.array([True])).all())
    with pytest.raises(RuntimeError):
        aux.assert_async(ms.Tensor(np.array([True, False])).all())
    with aux.safe_globals([dict]):
        pass


@pytest.mark.parametrize(
    "args",
    [([1.0, 2.5],), (np.arange(6).reshape(2, 3),), (2, 3), ()],
    ids=["list", "array", "sizes", "empty"],
)
def test_legacy_constructor(fw, aux, args):
    torch, _ = fw
    expected = torch.Tensor(*args)
    got = aux.legacy_tensor(*args).asnumpy()
    assert got.dtype == np.float32 and got.shape == tuple(expected.shape)
    if args and not isinstance(args[0], int):
        np.testing.assert_array_equal(got, expected.numpy())


def test_vmap_maps_like_torchs(fw, aux):
    # timm's patch-embedding resampling: a 2-D @ 1-D product mapped over two dims of the kernels.
    torch, ms = fw
    rng = np.random.default_rng(0)
    matrix = rng.standard_normal((4, 6)).astype(np.float32)
    kernels = rng.standard_normal((3, 5, 6)).astype(np.float32)

    def resampler(mat):
        return lambda k: (mat @ k.reshape(-1)).reshape(2, 2)

    expected = torch.vmap(torch.vmap(resampler(torch.tensor(matrix)), 0, 0), 1, 1)(
        torch.tensor(kernels)
    )
    got = aux.vmap(aux.vmap(resampler(ms.Tensor(matrix)), 0, 0), 1, 1)(
        ms.Tensor(kernels)
    )
    np.testing.assert_allclose(got.asnumpy(), expected.numpy(), rtol=1e-5, atol=1e-5)
    with pytest.raises(NotImplementedError):
        aux.vmap(len, chunk_size=2)


def test_runtime_calls_convert_to_the_companion() -> None:
    source = (
        "import torch\n"
        "from torch.nn.init import _calculate_fan_in_and_fan_out\n\n"
        "def init(w, device):\n"
        "    fan_in, _ = _calculate_fan_in_and_fan_out(w)\n"
        "    torch._assert_async((w != 0).any())\n"
        "    with torch.serialization.safe_globals([dict]):\n"
        "        pass\n"
        "    return torch.get_autocast_dtype(device), torch.vmap(len), torch.Tensor([1.0])\n"
    )
    result = convert_source(source, "m.py", Options())
    for entry in (
        "calculate_fan_in_and_fan_out",
        "assert_async",
        "safe_globals",
        "get_autocast_dtype",
        "vmap",
        "legacy_tensor",
    ):
        assert f"ms_aux.{entry}(" in result.code
    assert "torch" not in result.code
    assert convert_source(result.code, "m.py", Options()).code == result.code


def test_a_shape_given_to_the_legacy_constructor_stays_sizes() -> None:
    source = (
        "import torch\n\n"
        "def f(t, data):\n"
        "    return torch.Tensor(t.shape), torch.Tensor(data)\n"
    )
    result = convert_source(source, "m.py", Options())
    assert "ms_aux.legacy_tensor(*t.shape)" in result.code
    assert "ms_aux.legacy_tensor(data)" in result.code
    (finding,) = result.findings
    assert finding.severity == "warning" and "torch.Size" in finding.message


@pytest.mark.parametrize(
    "name",
    [
        "Float",
        "Double",
        "Half",
        "BFloat16",
        "Long",
        "Int",
        "Short",
        "Char",
        "Byte",
        "Bool",
    ],
)
def test_typed_legacy_constructors_are_torchs(fw, aux, name) -> None:
    torch, ms = fw
    theirs, ours = getattr(torch, f"{name}Tensor"), getattr(aux, f"{name}Tensor")
    for args in (([[3, 4], [5, 0]],), ((1, 0, 2),), ()):
        expected, got = theirs(*args), ours(*args)
        assert str(got.dtype).lower() == str(expected.dtype).replace("torch.", "")
        assert tuple(got.shape) == tuple(expected.shape)
        np.testing.assert_array_equal(
            got.astype(ms.float32).asnumpy(), expected.float().numpy()
        )
    assert tuple(ours(2, 3).shape) == tuple(theirs(2, 3).shape)


def test_typed_classes_as_types_say_what_to_write() -> None:
    source = (
        "import torch\n\n"
        "def f(x):\n"
        "    return torch.LongTensor([1, 2]), isinstance(x, torch.LongTensor)\n"
    )
    result = convert_source(source, "m.py", Options())
    assert "ms_aux.LongTensor([1, 2])" in result.code
    (finding,) = result.findings
    assert finding.rule == "TM900" and "ms_aux.LongTensor(...)" in finding.message
    assert "x.dtype == mindspore.int64" in finding.hint


def test_the_collate_pattern_is_torchs(fw, aux) -> None:
    from torch.utils.data._utils.collate import np_str_obj_array_pattern

    assert aux.np_str_obj_array_pattern.pattern == np_str_obj_array_pattern.pattern
    for text in ("numpy_str_123", "object_456", "tensor_789", "<U5", "float32"):
        found, expected = (
            p.search(text)
            for p in (aux.np_str_obj_array_pattern, np_str_obj_array_pattern)
        )
        assert (found and found.group()) == (expected and expected.group())


def test_the_collate_error_message_is_torchs(fw, aux) -> None:
    from torch.utils.data._utils.collate import default_collate_err_msg_format

    assert aux.default_collate_err_msg_format == default_collate_err_msg_format


SEED_SOURCE = """\
import torch
torch.manual_seed(100)
after_manual = torch.random.initial_seed()
again = torch.initial_seed()
fresh = torch.seed()
after_seed = torch.initial_seed() == fresh
torch.manual_seed(7)
reseeded = torch.initial_seed()
"""


def test_initial_seed_reports_the_seed_the_program_set(fw, tmp_path, monkeypatch):
    """`torch.manual_seed(s)` is `mindspore.set_seed(s)`, which `mindspore.initial_seed()` does not
    report (it answers 0); the companion's `initial_seed` does, and `seed()` sets what it returns."""
    import sys

    result = convert_source(SEED_SOURCE, "case.py", Options())
    assert "torch" not in result.code.replace("ms_aux", "")
    (tmp_path / "ms_aux.py").write_text(assemble(sorted(result.companion)))
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "ms_aux", raising=False)
    original: dict = {}
    converted: dict = {}
    exec(compile(SEED_SOURCE, "original", "exec"), original)  # noqa: S102 - our snippet
    exec(compile(result.code, "converted", "exec"), converted)  # noqa: S102
    for name in ("after_manual", "again", "after_seed", "reseeded"):
        assert converted[name] == original[name], name
    assert isinstance(converted["fresh"], int)
