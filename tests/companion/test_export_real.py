"""The torch.onnx entries of the companion module (built on `mindspore.onnx.export`) and
`torch.equal`, run on MindSpore and compared with torch.

No ONNX runtime is installed here, so the written files are read with a small protobuf reader:
graph input/output names, their dimensions (fixed sizes and named dynamic axes) and the opset.
"""

from __future__ import annotations

import importlib.util
import inspect
import io
import sys

import numpy as np
import pytest
from torch2ms.rules.companion import assemble
from torch2ms.rules.companion.table_export import ENTRIES

pytestmark = pytest.mark.real


@pytest.fixture(scope="module")
def aux(fw, tmp_path_factory):
    path = tmp_path_factory.mktemp("aux") / "ms_aux_export.py"
    path.write_text(assemble(sorted({*ENTRIES.values(), "equal"})), encoding="utf-8")
    spec = importlib.util.spec_from_file_location("ms_aux_export", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # MindSpore reads a Cell's module to compile it
    spec.loader.exec_module(module)
    return module


def _fields(data: bytes):
    """(field number, value) pairs of one protobuf message: ints for varints, bytes otherwise."""
    position = 0
    while position < len(data):
        key, position = _varint(data, position)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, position = _varint(data, position)
        elif wire == 2:
            size, position = _varint(data, position)
            value, position = data[position : position + size], position + size
        elif wire in (1, 5):
            width = 8 if wire == 1 else 4
            value, position = data[position : position + width], position + width
        else:
            raise ValueError(f"wire type {wire}")
        yield number, value


def _varint(data: bytes, position: int):
    result = shift = 0
    while True:
        byte = data[position]
        position += 1
        result |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return result, position


def _value_info(message: bytes):
    """(name, dims) of an ONNX ValueInfoProto: a dim is its size or its dynamic axis name."""
    fields = dict(_fields(message))
    tensor_type = dict(_fields(fields[2]))[1]
    shape = dict(_fields(tensor_type)).get(2, b"")
    dims = []
    for number, dim in _fields(shape):
        if number == 1:
            found = dict(_fields(dim))
            dims.append(found[2].decode() if 2 in found else found.get(1))
    return fields[1].decode(), dims


def _onnx_summary(data: bytes):
    model = list(_fields(data))
    graph = next(value for number, value in model if number == 7)
    opsets = [dict(_fields(v)).get(2) for n, v in model if n == 8]
    parts = list(_fields(graph))
    inputs = [_value_info(v) for n, v in parts if n == 11]
    outputs = [_value_info(v) for n, v in parts if n == 12]
    return inputs, outputs, opsets


class _Net:
    """Built lazily: MindSpore compiles a Cell from its source file."""

    @staticmethod
    def make(ms):
        class SmallNet(ms.nn.Cell):
            def __init__(self):
                super().__init__()
                self.fc = ms.nn.Dense(4, 3)

            def construct(self, image):
                return ms.ops.relu(self.fc(image))

        return SmallNet()


def test_export_writes_the_named_graph_exactly_at_f(aux, fw, tmp_path) -> None:
    _, ms = fw
    net = _Net.make(ms)
    net.set_train(True)
    x = ms.Tensor(np.ones((2, 4), np.float32))
    target = tmp_path / "model.bin"  # torch writes exactly f, whatever its suffix
    aux.onnx_export(
        net,
        x,
        str(target),
        training=aux.TrainingMode.EVAL,
        export_params=True,
        verbose=False,
        input_names=["input0"],
        output_names=["output0"],
        keep_initializers_as_inputs=None,
        dynamic_axes={"input0": {0: "batch"}, "output0": {0: "batch"}},
        opset_version=None,
        operator_export_type=aux.OperatorExportTypes.ONNX_ATEN_FALLBACK,
        dynamo=False,
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model.bin"]
    inputs, outputs, opsets = _onnx_summary(target.read_bytes())
    assert inputs == [("input0", ["batch", 4])]
    assert [name for name, _ in outputs] == ["output0"]
    assert opsets == [11]
    assert net.training  # exported in eval mode, then put back as it was
    buffer = io.BytesIO()
    aux.onnx_export(net, (x,), buffer, input_names=["input0"])
    assert _onnx_summary(buffer.getvalue())[0] == [("input0", [2, 4])]


def test_dynamic_shapes_name_the_inputs_after_construct(aux, fw, tmp_path) -> None:
    _, ms = fw
    target = tmp_path / "model.onnx"
    x = ms.Tensor(np.ones((2, 4), np.float32))
    aux.onnx_export(
        _Net.make(ms), (x,), target, dynamic_shapes=({0: "batch"},), dynamo=True
    )
    assert _onnx_summary(target.read_bytes())[0] == [("image", ["batch", 4])]


@pytest.mark.parametrize(
    ("arguments", "named"),
    [
        ({"opset_version": 17}, "opset_version"),
        ({"training": 2}, "training"),
        ({"kwargs": {"image": None}}, "kwargs"),
        ({"f": None}, "f=None"),
        ({"operator_export_type": 1}, "operator_export_type"),
        ({"verify": True, "report": True}, "report, verify"),
        ({"custom_opsets": {"x": 1}}, "custom_opsets"),
    ],
)
def test_arguments_without_a_mindspore_form_are_named(
    aux, fw, tmp_path, arguments, named
) -> None:
    _, ms = fw
    arguments = {"f": str(tmp_path / "m.onnx"), **arguments}
    x = ms.Tensor(np.ones((2, 4), np.float32))
    with pytest.raises(NotImplementedError, match=named):
        aux.onnx_export(_Net.make(ms), (x,), **arguments)
    assert not (tmp_path / "m.onnx").exists()


def test_preserve_exports_a_model_in_eval_mode_only(aux, fw, tmp_path) -> None:
    _, ms = fw
    net = _Net.make(ms)
    x = ms.Tensor(np.ones((2, 4), np.float32))
    net.set_train(True)
    with pytest.raises(NotImplementedError, match="training"):
        aux.onnx_export(net, x, str(tmp_path / "a.onnx"), training=1)
    net.set_train(False)
    aux.onnx_export(net, x, str(tmp_path / "a.onnx"), training=1)
    assert (tmp_path / "a.onnx").stat().st_size > 0


def test_torch_export_dims_and_the_dynamo_exporter_raise(aux, fw, tmp_path) -> None:
    _, ms = fw
    x = ms.Tensor(np.ones((2, 4), np.float32))
    with pytest.raises(NotImplementedError, match=r"Dim objects"):
        aux.onnx_export(
            _Net.make(ms),
            x,
            str(tmp_path / "m.onnx"),
            dynamic_shapes=({0: aux.export_dim_auto},),
        )
    with pytest.raises(
        NotImplementedError, match="ExportOptions has no MindSpore form"
    ):
        aux.ExportOptions(dynamic_shapes=True)
    with pytest.raises(
        NotImplementedError, match="dynamo_export has no MindSpore form"
    ):
        aux.dynamo_export(_Net.make(ms), x)


def test_signature_and_enums_are_torchs(aux, fw) -> None:
    torch, _ = fw
    expected = inspect.signature(torch.onnx.export).parameters
    got = inspect.signature(aux.onnx_export).parameters
    assert [(p.name, p.kind) for p in got.values()] == [
        (p.name, p.kind) for p in expected.values()
    ]
    for name in ("TrainingMode", "OperatorExportTypes"):
        members = getattr(torch.onnx, name).__members__
        assert {k: int(v) for k, v in members.items()} == {
            k: int(v) for k, v in getattr(aux, name).__members__.items()
        }
    assert int(got["training"].default) == int(expected["training"].default)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ([1.0, 2.0], [1.0, 2.0]),
        ([1.0, 2.0], [1.0, 3.0]),
        ([1.0, 2.0], [[1.0, 2.0]]),
        ([1, 2], [1.0, 2.0]),
        ([float("nan")], [float("nan")]),
        (np.zeros((0, 3)), np.zeros((0, 3))),
        (np.zeros((0, 3)), np.zeros((3, 0))),
        (1.0, [1.0]),
        ([True, False], [1, 0]),
        (np.arange(12.0).reshape(3, 4), np.arange(12.0).reshape(3, 4)),
    ],
)
def test_equal_is_torchs(aux, fw, a, b) -> None:
    torch, ms = fw
    left, right = np.asarray(a), np.asarray(b)
    left = left.astype(np.float32) if left.dtype == np.float64 else left
    expected = torch.equal(torch.tensor(left), torch.tensor(right))
    got = aux.equal(ms.Tensor(left), ms.Tensor(right))
    assert type(got) is bool and got is expected
