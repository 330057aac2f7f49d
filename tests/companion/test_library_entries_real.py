"""Companion entries a converted library needs, run on MindSpore and compared with torch:
`cat` of torch's empty placeholder, `get_submodule`/`get_parameter`, the safetensors binding,
the compiler and operator-library stand-ins."""

from __future__ import annotations

import importlib.util
import sys

import numpy as np
import pytest
from torch2ms.rules.companion import assemble

pytestmark = pytest.mark.real


@pytest.fixture(scope="module")
def aux(fw, tmp_path_factory):
    names = [
        "cat_skipping_empty",
        "get_submodule",
        "get_parameter",
        "safetensors_save_file",
        "safetensors_load_file",
        "custom_op",
        "library_register",
        "compiler_disable",
        "finfo",
    ]
    path = tmp_path_factory.mktemp("aux") / "ms_aux_library.py"
    path.write_text(assemble(names), encoding="utf-8")
    spec = importlib.util.spec_from_file_location("ms_aux_library", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_cat_skips_the_empty_placeholder_as_torch(aux, fw) -> None:
    torch, ms = fw
    k = np.random.RandomState(0).standard_normal((2, 2, 3, 4)).astype("float32")
    expected = torch.cat([torch.tensor([]), torch.from_numpy(k)], dim=-2).numpy()
    got = aux.cat_skipping_empty([ms.tensor([]), ms.Tensor(k)], dim=-2).asnumpy()
    np.testing.assert_array_equal(got, expected)
    twice = aux.cat_skipping_empty([ms.Tensor(k), ms.Tensor(k)], dim=-2).asnumpy()
    np.testing.assert_array_equal(twice, np.concatenate([k, k], axis=-2))


def test_get_submodule_and_parameter_walk_like_torch(aux, fw) -> None:
    torch, ms = fw

    def build(nn, embedding, linear, container):
        class Net(nn.Module if hasattr(nn, "Module") else nn.Cell):
            def __init__(self):
                super().__init__()
                self.wte = embedding(5, 3)
                self.blocks = container([linear(3, 3), linear(3, 3)])

        return Net()

    reference = build(torch.nn, torch.nn.Embedding, torch.nn.Linear, torch.nn.ModuleList)
    model = build(ms.nn, ms.nn.Embedding, ms.nn.Dense, ms.nn.CellList)
    assert aux.get_submodule(model, "") is model
    assert aux.get_submodule(model, "blocks.1") is model.blocks[1]
    assert tuple(aux.get_parameter(model, "blocks.0.weight").shape) == tuple(
        reference.get_parameter("blocks.0.weight").shape
    )
    # torch's name for the embedding's table, as a library's tied-weight table writes it
    assert aux.get_parameter(model, "wte.weight") is model.wte.embedding_table
    for torch_side, ms_side in ((reference, model),):
        with pytest.raises(AttributeError):
            torch_side.get_submodule("blocks.7")
        with pytest.raises(AttributeError):
            aux.get_submodule(ms_side, "blocks.7")


def test_safetensors_binding_round_trip(aux, fw, tmp_path) -> None:
    _, ms = fw
    path = str(tmp_path / "w.safetensors")
    tensors = {"a": ms.Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))}
    aux.safetensors_save_file(tensors, path, metadata={"format": "pt"})
    loaded = aux.safetensors_load_file(path)
    np.testing.assert_array_equal(loaded["a"].asnumpy(), tensors["a"].asnumpy())


def test_operator_registration_keeps_the_function(aux) -> None:
    @aux.custom_op("ns::double", mutates_args=())
    def double(x):
        return x * 2

    @double.register_fake
    def _(x):
        return x

    assert double(3) == 6
    assert aux.library_register("ns::double", _) is _
    assert aux.compiler_disable(double) is double
    assert aux.compiler_disable(recursive=False)(double) is double


@pytest.mark.parametrize("name", ["float8_e4m3fn", "float8_e5m2"])
def test_finfo_of_float8_matches_torch(aux, fw, name: str) -> None:
    torch, ms = fw
    expected, got = torch.finfo(getattr(torch, name)), aux.finfo(getattr(ms, name))
    for field in ("bits", "eps", "max", "min", "tiny", "resolution", "dtype"):
        assert getattr(got, field) == getattr(expected, field), field
