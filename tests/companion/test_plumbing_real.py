"""The plumbing stand-ins of the companion module, run on MindSpore and compared with torch."""

from __future__ import annotations

import importlib.util
import sys

import numpy as np
import pytest
from torch2ms.migrator.convert import convert_source
from torch2ms.rules.companion import assemble
from torch2ms.rules.companion.table_plumbing import CONDITIONAL, ENTRIES, MODULE_VALUES

pytestmark = pytest.mark.real


@pytest.fixture(scope="module")
def aux(fw, tmp_path_factory):
    """The companion module holding every plumbing entry, imported."""
    names = sorted(
        set(ENTRIES.values()) | set(CONDITIONAL.values()) | set(MODULE_VALUES.values())
    )
    path = tmp_path_factory.mktemp("aux") / "ms_aux_plumbing.py"
    path.write_text(assemble(names), encoding="utf-8")
    spec = importlib.util.spec_from_file_location("ms_aux_plumbing", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("name", ["float16", "float32", "float64", "bfloat16"])
def test_finfo_matches_torch(aux, fw, name: str) -> None:
    torch, ms = fw
    expected, got = torch.finfo(getattr(torch, name)), aux.finfo(getattr(ms, name))
    for field in ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution"):
        assert getattr(got, field) == getattr(expected, field), field
    assert got.dtype == expected.dtype


@pytest.mark.parametrize(
    "name", ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]
)
def test_iinfo_matches_torch(aux, fw, name: str) -> None:
    torch, ms = fw
    expected, got = torch.iinfo(getattr(torch, name)), aux.iinfo(getattr(ms, name))
    for field in ("bits", "max", "min"):
        assert getattr(got, field) == getattr(expected, field), field
    assert got.dtype == expected.dtype


def test_iinfo_refuses_what_torch_refuses(aux, fw) -> None:
    torch, ms = fw
    for name in ("bool_", "float32"):
        with pytest.raises(TypeError):
            torch.iinfo(getattr(torch, name.rstrip("_")))
        with pytest.raises(TypeError):
            aux.iinfo(getattr(ms, name))


def test_torch_named_through_itself_is_torch() -> None:
    from torch2ms.migrator.context import Options
    from torch2ms.migrator.convert import convert_source

    source = "import torch\n\nbits = torch.torch.iinfo(torch.torch.int32).bits\n"
    result = convert_source(source, "m.py", Options())
    assert result.code == (
        "import mindspore\nimport ms_aux\n\n"
        "bits = ms_aux.iinfo(mindspore.int32).bits\n"
    )


def test_finfo_without_a_dtype_is_float32s(aux, fw) -> None:
    torch, _ = fw
    assert aux.finfo().eps == torch.finfo().eps


@pytest.mark.parametrize(
    "args", [("cpu",), ("cuda",), ("cuda:1",), ("cuda", 2), ("mps", 0)]
)
def test_device_is_data_like_torchs(aux, fw, args) -> None:
    torch, _ = fw
    expected, got = torch.device(*args), aux.device(*args)
    assert (got.type, got.index) == (expected.type, expected.index)
    assert str(got) == str(expected) and repr(got) == repr(expected)
    assert got == aux.device(str(expected)) and hash(got) == hash(aux.device(got))
    assert (got == aux.device("mps")) == (expected == torch.device("mps"))


def test_a_device_index_alone_needs_an_accelerator(aux, fw) -> None:
    torch, _ = fw
    with pytest.raises(RuntimeError, match="accelerator") as expected:
        torch.device(0)
    with pytest.raises(RuntimeError) as got:
        aux.device(0)
    assert str(got.value) == str(expected.value)


def test_device_queries_answer_as_torch_does_on_a_cpu_machine(aux, fw) -> None:
    torch, ms = fw
    assert ms.get_context("device_target") == "CPU"
    assert aux.cuda_is_available() is torch.cuda.is_available() is False
    assert aux.accelerator_is_available() is torch.accelerator.is_available()
    assert aux.current_accelerator() is torch.accelerator.current_accelerator() is None
    assert aux.mps_is_available() is torch.backends.mps.is_available() is False
    assert aux.npu_is_available() is False


def test_device_modules_as_values_answer_and_refuse_streams(aux, fw) -> None:
    """`device_mod = torch.cuda` (timm's prefetcher): `is_available()` as torch answers on this
    machine; a stream, reached only where the device is available, raises naming itself."""
    torch, _ = fw
    assert aux.cuda.is_available() is torch.cuda.is_available() is False
    assert aux.npu.is_available() is False
    with pytest.raises(NotImplementedError, match=r"torch\.cuda\.Stream"):
        aux.cuda.Stream(device="cuda")
    with pytest.raises(NotImplementedError, match=r"torch\.npu\.current_stream"):
        aux.npu.current_stream()


PREFETCH = """import torch
from contextlib import suppress
from functools import partial


def streams(is_cuda, is_npu, device):
    device_mod = None
    if is_cuda:
        device_mod = torch.cuda
    elif is_npu:
        device_mod = torch.npu
    if device_mod is None:
        return suppress, torch.cuda.is_available()
    return partial(device_mod.stream, stream=device_mod.Stream(device=device)), None
"""


def test_device_modules_as_values_convert_to_the_stand_ins(aux, fw) -> None:
    result = convert_source(PREFETCH, "prefetch.py")
    assert "        device_mod = ms_aux.cuda\n" in result.code
    assert "        device_mod = ms_aux.npu\n" in result.code
    assert "ms_aux.cuda_is_available()" in result.code  # a call keeps its own entry
    assert "torch" not in result.code and not result.findings
    assert convert_source(result.code, "prefetch.py").code == result.code
    namespace = {"ms_aux": aux}
    exec(compile(result.code.replace("import ms_aux\n", ""), "c", "exec"), namespace)  # noqa: S102
    original: dict = {}
    exec(compile(PREFETCH, "o", "exec"), original)  # noqa: S102 - our snippet
    assert namespace["streams"](False, False, "cpu") == original["streams"](
        False, False, "cpu"
    )
    with pytest.raises(NotImplementedError, match="Stream"):
        namespace["streams"](True, False, "cuda")


def test_compile_and_script_return_what_they_are_given(aux, fw) -> None:
    _, ms = fw
    net = ms.nn.Dense(2, 2)
    assert aux.compile(net, mode="max-autotune", fullgraph=True) is net
    assert aux.compile(fullgraph=True)(net) is net
    assert aux.jit_script(net) is net
    assert aux.fx_wrap("helper") == "helper"
    assert not aux.is_scripting() and not aux.is_compiling() and not aux.is_exporting()


def _weights(torch, ms, shape_in, shape_out, seed):
    rng = np.random.default_rng(seed)
    w = rng.standard_normal((shape_out, shape_in)).astype(np.float32)
    b = rng.standard_normal(shape_out).astype(np.float32)
    t = torch.nn.Linear(shape_in, shape_out)
    with torch.no_grad():
        t.weight.copy_(torch.from_numpy(w))
        t.bias.copy_(torch.from_numpy(b))
    m = ms.nn.Dense(shape_in, shape_out)
    m.weight.set_data(ms.Tensor(w))
    m.bias.set_data(ms.Tensor(b))
    return t, m


def test_checkpoint_computes_the_call_and_its_gradients(aux, fw) -> None:
    torch, ms = fw
    torch_layer, ms_layer = _weights(torch, ms, 3, 2, 0)
    x = np.random.default_rng(1).standard_normal((4, 3)).astype(np.float32)
    tx = torch.tensor(x, requires_grad=True)
    out = torch.utils.checkpoint.checkpoint(torch_layer, tx, use_reentrant=False)
    out.square().sum().backward()

    def loss(value):
        return aux.checkpoint(ms_layer, value, use_reentrant=False).square().sum()

    value, (dx, (dw,)) = ms.value_and_grad(loss, 0, [ms_layer.weight])(ms.Tensor(x))
    np.testing.assert_allclose(
        value.asnumpy(), out.square().sum().item(), rtol=1e-5, atol=1e-5
    )
    np.testing.assert_allclose(dx.asnumpy(), tx.grad.numpy(), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(
        dw.asnumpy(), torch_layer.weight.grad.numpy(), rtol=1e-5, atol=1e-5
    )


def test_checkpoint_sequential_runs_the_cells_in_order(aux, fw) -> None:
    torch, ms = fw
    first, ms_first = _weights(torch, ms, 3, 4, 2)
    second, ms_second = _weights(torch, ms, 4, 2, 3)
    x = np.random.default_rng(4).standard_normal((5, 3)).astype(np.float32)
    expected = torch.utils.checkpoint.checkpoint_sequential(
        torch.nn.Sequential(first, torch.nn.ReLU(), second),
        2,
        torch.tensor(x),
        use_reentrant=False,
    )
    got = aux.checkpoint_sequential(
        ms.nn.SequentialCell(ms_first, ms.nn.ReLU(), ms_second), 2, ms.Tensor(x)
    )
    np.testing.assert_allclose(
        got.asnumpy(), expected.detach().numpy(), rtol=1e-5, atol=1e-5
    )


def test_disabled_autocast_computes_in_full_precision(aux, fw) -> None:
    torch, ms = fw
    torch_layer, ms_layer = _weights(torch, ms, 3, 2, 5)
    x = np.random.default_rng(6).standard_normal((2, 3)).astype(np.float32)
    with torch.autocast(device_type="cpu", enabled=False):
        expected = torch_layer(torch.tensor(x))
    with aux.autocast(device_type="cpu", enabled=False):
        got = ms_layer(ms.Tensor(x))
    assert got.dtype == ms.float32 and expected.dtype == torch.float32
    np.testing.assert_allclose(
        got.asnumpy(), expected.detach().numpy(), rtol=1e-6, atol=1e-6
    )
    with aux.cuda_autocast():
        assert aux.is_autocast_enabled() is torch.is_autocast_enabled() is False
    assert aux.autocast("cuda", enabled=False)(len) is len


def test_hub_paths_and_patterns_are_torchs(aux, fw, monkeypatch, tmp_path) -> None:
    torch, _ = fw
    monkeypatch.setenv("TORCH_HOME", str(tmp_path))
    assert aux.hub_get_dir() == torch.hub.get_dir()
    assert aux._torch_home() == torch.hub._get_torch_home()
    monkeypatch.delenv("TORCH_HOME")
    assert aux.hub_get_dir() == torch.hub.get_dir()
    assert aux.HASH_REGEX.pattern == torch.hub.HASH_REGEX.pattern
    name = "resnet18-f37072fd.pth"
    assert aux.HASH_REGEX.search(name).group(1) == torch.hub.HASH_REGEX.search(
        name
    ).group(1)
    url = "https://example.org/weights/resnet18-f37072fd.pth"
    assert aux.hub_urlparse(url) == torch.hub.urlparse(url)


def test_hub_loaders_name_the_url_and_the_weights_command(aux) -> None:
    url = "https://example.org/weights/resnet18-f37072fd.pth"
    with pytest.raises(RuntimeError, match="torch2ms weights") as error:
        aux.load_state_dict_from_url(url, map_location="cpu", check_hash=True)
    assert url in str(error.value)
    with pytest.raises(RuntimeError, match="torch2ms weights"):
        aux.load_hub_model("owner/repo", "model", pretrained=True)


def test_download_url_to_file_copies_and_checks_the_hash(aux, fw, tmp_path) -> None:
    torch, _ = fw
    source = tmp_path / "weights.bin"
    source.write_bytes(bytes(range(256)) * 300)
    url = source.as_uri()
    for module, name in ((torch.hub, "torch.bin"), (aux, "aux.bin")):
        module.download_url_to_file(
            url, str(tmp_path / name), hash_prefix="", progress=False
        )
    assert (tmp_path / "aux.bin").read_bytes() == (tmp_path / "torch.bin").read_bytes()
    with pytest.raises(RuntimeError) as expected:
        torch.hub.download_url_to_file(
            url, str(tmp_path / "t2"), "00ff", progress=False
        )
    with pytest.raises(RuntimeError) as got:
        aux.download_url_to_file(url, str(tmp_path / "a2"), "00ff", progress=False)
    assert str(got.value) == str(expected.value)
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "aux.bin",
        "torch.bin",
        "weights.bin",
    ]


def test_jit_annotate_returns_the_value(aux, fw) -> None:
    torch, _ = fw
    value = [1, 2]
    assert aux.jit_annotate(list[int], value) is torch.jit.annotate(list[int], value)


def test_add_module_names_children_and_extends_a_sequential(tmp_path) -> None:
    ms = pytest.importorskip("mindspore")
    from collections import OrderedDict

    path = tmp_path / "ms_aux_add.py"
    path.write_text(assemble(["add_module"]))
    spec = importlib.util.spec_from_file_location("ms_aux_add", path)
    aux = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(aux)

    class Net(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            stem = OrderedDict(stem=ms.nn.Dense(2, 2))
            self.features = ms.nn.SequentialCell(stem)
            aux.add_module(self.features, "first", ms.nn.Dense(2, 3))
            aux.add_module(self.features, "act", ms.nn.ReLU())

        def construct(self, x):
            return self.features(x)

    net = Net()
    names = [name for name, _ in net.parameters_and_names()]
    assert names[2:] == ["features.first.weight", "features.first.bias"]
    # the names a checkpoint is matched by
    assert [p.name for p in net.trainable_params()] == names
    x = ms.Tensor(np.ones((1, 2), np.float32))
    stem, dense = net.features.stem, net.features.first
    hidden = x.asnumpy() @ stem.weight.asnumpy().T + stem.bias.asnumpy()
    expected = np.maximum(hidden @ dense.weight.asnumpy().T + dense.bias.asnumpy(), 0)
    # float32 sums in another order: the tolerance the other layer tests use
    np.testing.assert_allclose(net(x).asnumpy(), expected, rtol=1e-5, atol=1e-6)


def test_checkpoint_takes_preserve_rng_state_as_torch_does(aux, fw) -> None:
    """torch pops `preserve_rng_state` from the keywords; the rest reach the function."""
    torch, ms = fw

    def f(x, scale=1.0):
        return x * 2 * scale

    x = np.arange(3, dtype=np.float32)
    expected = torch.utils.checkpoint.checkpoint(
        f, torch.tensor(x), use_reentrant=False, preserve_rng_state=False, scale=3.0
    )
    got = aux.checkpoint(
        f, ms.Tensor(x), use_reentrant=False, preserve_rng_state=False, scale=3.0
    )
    np.testing.assert_allclose(got.asnumpy(), expected.numpy())
