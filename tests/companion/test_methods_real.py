"""The run-time dispatching tensor methods (rules/companion/library/methods.py) against real torch.

A receiver the converter cannot prove is a tensor goes through these: on a MindSpore tensor they must
compute what torch's method computes on the same values; on a numpy array they must be numpy's own
method, unchanged.
"""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest
from torch2ms.migrator.context import Options
from torch2ms.migrator.convert import convert_source
from torch2ms.rules.companion import assemble

pytestmark = pytest.mark.real

NAMES = [
    "tensor_repeat",
    "tensor_squeeze",
    "tensor_std",
    "tensor_var",
    "tensor_dot",
    "requires_grad_",
    "detach_",
    "eval_mode",
    "call_forward",
]


@pytest.fixture(scope="module")
def aux(fw, tmp_path_factory):
    path = tmp_path_factory.mktemp("companion") / "ms_aux_methods.py"
    path.write_text(assemble(NAMES), encoding="utf-8")
    spec = importlib.util.spec_from_file_location("ms_aux_methods", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


X = np.random.default_rng(0).standard_normal((2, 1, 3)).astype(np.float32)

CASES = [
    ("tensor_repeat", "repeat", X, (2, 1, 1)),
    ("tensor_repeat", "repeat", X, (3, 2, 1, 2)),
    ("tensor_repeat", "repeat", X, ((1, 2, 1),)),
    ("tensor_squeeze", "squeeze", X, ()),
    ("tensor_squeeze", "squeeze", X, (1,)),
    ("tensor_squeeze", "squeeze", X, (0,)),  # size 2: torch leaves it
    ("tensor_squeeze", "squeeze", X, (-2,)),
    ("tensor_std", "std", X, ()),
    ("tensor_std", "std", X, (2,)),
    ("tensor_std", "std", X, (2, False, True)),
    ("tensor_var", "var", X, (0,)),
    ("tensor_var", "var", X, (False,)),
    ("tensor_dot", "dot", X[0, 0], (X[1, 0],)),
]


@pytest.mark.parametrize(("entry", "method", "array", "args"), CASES)
def test_a_mindspore_tensor_gets_torchs_meaning(fw, aux, entry, method, array, args):
    torch, ms = fw
    t_args = [torch.tensor(a) if isinstance(a, np.ndarray) else a for a in args]
    m_args = [ms.Tensor(a) if isinstance(a, np.ndarray) else a for a in args]
    expected = getattr(torch.tensor(array), method)(*t_args).numpy()
    got = getattr(aux, entry)(ms.Tensor(array), *m_args).asnumpy()
    assert got.shape == expected.shape
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)


def test_keywords_as_torch_writes_them(fw, aux):
    torch, ms = fw
    expected = torch.tensor(X).std(dim=0, keepdim=True, correction=0).numpy()
    got = aux.tensor_std(ms.Tensor(X), dim=0, keepdim=True, correction=0).asnumpy()
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)
    expected = torch.tensor(X).squeeze(dim=1).numpy()
    np.testing.assert_allclose(
        aux.tensor_squeeze(ms.Tensor(X), dim=1).asnumpy(), expected
    )
    a, b = X[0, 0], X[1, 0]
    expected = torch.tensor(a).dot(tensor=torch.tensor(b)).numpy()
    got = aux.tensor_dot(ms.Tensor(a), tensor=ms.Tensor(b)).asnumpy()
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)


def test_other_objects_run_their_own_method(aux):
    np.testing.assert_array_equal(
        aux.tensor_repeat(np.arange(3), 2), np.arange(3).repeat(2)
    )
    np.testing.assert_array_equal(aux.tensor_squeeze(X, 1), X.squeeze(1))
    assert aux.tensor_std(X, 0).shape == X.std(0).shape
    np.testing.assert_allclose(aux.tensor_var(X, 2), X.var(2))
    assert aux.tensor_dot(X[0, 0], X[1, 0]) == pytest.approx(
        float(X[0, 0].dot(X[1, 0]))
    )


def test_an_unproven_receiver_is_converted_to_the_companion() -> None:
    source = "import torch\n\ndef tile(x, n):\n    return x.repeat(n, 1).squeeze(0)\n"
    result = convert_source(source, "m.py", Options())
    assert "ms_aux.tensor_squeeze(ms_aux.tensor_repeat(x, n, 1), 0)" in result.code
    assert "import torch" not in result.code
    assert not [f for f in result.findings if f.severity == "error"]
    assert convert_source(result.code, "m.py", Options()).code == result.code


def test_freezing_a_cell_or_a_parameter_leaves_it_out_of_training(fw, aux):
    torch, ms = fw
    net = ms.nn.SequentialCell(ms.nn.Dense(2, 3), ms.nn.Dense(3, 1))
    assert aux.requires_grad_(net[0], False) is net[0]
    assert [p.name for p in net.trainable_params()] == ["1.weight", "1.bias"]
    aux.requires_grad_(net[0].weight)
    assert [p.name for p in net.trainable_params()] == [
        "0.weight",
        "1.weight",
        "1.bias",
    ]
    # What torch reports for the same calls on its module.
    module = torch.nn.Sequential(torch.nn.Linear(2, 3), torch.nn.Linear(3, 1))
    module[0].requires_grad_(False)
    module[0].weight.requires_grad_()
    assert [n for n, p in module.named_parameters() if p.requires_grad] == [
        "0.weight",
        "1.weight",
        "1.bias",
    ]
    values = ms.Tensor(X)
    assert aux.requires_grad_(values) is values


def test_detaching_a_parameter_stops_its_training(fw, aux):
    _, ms = fw
    net = ms.nn.Dense(2, 3)
    for param in net.get_parameters():
        aux.detach_(param)
    assert net.trainable_params() == []
    with pytest.raises(TypeError, match="stop_gradient"):
        aux.detach_(ms.Tensor(X))
    # A leaf whose flag the code cleared before: a plain tensor is returned as it is.
    leaf = ms.Tensor(X)
    assert aux.detach_(leaf, leaf=True) is leaf
    weight = ms.Parameter(ms.Tensor(X))
    assert aux.detach_(weight, leaf=True) is weight and not weight.requires_grad


def test_module_methods_on_parameters_convert_to_the_companion() -> None:
    source = (
        "import torch\n\n"
        "def reparameterize(model):\n"
        "    for name, para in model.named_parameters():\n"
        "        para.detach_()\n"
        "    model.head.requires_grad_(False)\n\n"
        "def cut(y):\n"
        "    y.detach_()\n"
    )
    result = convert_source(source, "m.py", Options())
    assert "ms_aux.detach_(para)" in result.code
    assert "ms_aux.requires_grad_(model.head, False)" in result.code
    # A computed tensor is not cut in place: reported with the MindSpore form to write.
    (finding,) = [f for f in result.findings if f.severity == "error"]
    assert "not known to be a Parameter" in finding.message
    assert "stop_gradient" in finding.hint
    assert convert_source(result.code, "m.py", Options()).code == result.code


def test_eval_mode_switches_a_cell_to_inference(fw, aux):
    _, ms = fw
    net = ms.nn.SequentialCell(ms.nn.Dense(3, 3), ms.nn.Dropout(p=0.5))
    net.set_train(True)
    assert aux.eval_mode(net) is net
    assert not net.training and not net[1].training
    x = ms.Tensor(X.reshape(2, 3))
    np.testing.assert_array_equal(net(x).asnumpy(), net[0](x).asnumpy())

    class Evaluator:
        def eval(self):
            return "own"

    assert aux.eval_mode(Evaluator()) == "own"
    source = "import torch\n\ndef prepare(self):\n    self.teacher.eval()\n"
    result = convert_source(source, "m.py", Options())
    assert "ms_aux.eval_mode(self.teacher)" in result.code
    assert not result.findings


def test_forward_on_a_receiver_not_known_to_be_a_module(fw, aux):
    _, ms = fw
    dense = ms.nn.Dense(3, 2)
    x = ms.Tensor(X.reshape(2, 3))
    np.testing.assert_array_equal(
        aux.call_forward(dense, x).asnumpy(), dense(x).asnumpy()
    )

    class Runner:
        def forward(self, value):
            return value + 1

    assert aux.call_forward(Runner(), 1) == 2
    source = (
        "import torch\n\n"
        "def fuse(self, blocks, y):\n"
        "    down = blocks[0]\n"
        "    return down.forward(y)\n"
    )
    result = convert_source(source, "m.py", Options())
    assert "return ms_aux.call_forward(down, y)" in result.code
    assert not result.findings
    assert convert_source(result.code, "m.py", Options()).code == result.code


def test_detach_of_a_receiver_proved_a_leaf_converts() -> None:
    source = (
        "import torch\nfrom torch import nn\n\n"
        "def fill(out, table):\n"
        "    out.requires_grad = False\n"
        "    out[:, 0::2] = torch.tensor(table)\n"
        "    out.detach_()\n"
        "    return out\n\n"
        "class Table(nn.Module):\n"
        "    def make(self, weight):\n"
        "        self.weight = nn.Parameter(weight)\n"
        "        self.weight.detach_()\n\n"
        "def rebound(out, y):\n"
        "    out.requires_grad = False\n"
        "    out = out * y\n"
        "    out.detach_()\n"
    )
    result = convert_source(source, "m.py", Options())
    assert "ms_aux.detach_(out, leaf=True)" in result.code
    assert "ms_aux.detach_(self.weight)\n" in result.code
    # Bound again to a computed tensor after the flag was cleared: no proof, reported.
    (finding,) = [f for f in result.findings if f.severity == "error"]
    assert "`out.detach_()` is left as it is" in finding.message
