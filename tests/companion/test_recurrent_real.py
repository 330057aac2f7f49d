"""The companion recurrent, unfolding and Conv3d entries against torch, on the real frameworks.

Each case builds torch's class and the assembled companion class with the same constructor
arguments, copies torch's parameters across under their own names (MindSpore's recurrent layers
name them as torch does, which is what `torch2ms weights` relies on), and compares the outputs
and the gradients of a weighted sum of every output with respect to the inputs and every
parameter.
"""

from __future__ import annotations

import importlib.util
import sys

import numpy as np
import pytest
from torch2ms.rules.companion import assemble
from torch2ms.rules.companion.table_recurrent import ENTRIES

pytestmark = pytest.mark.real

RTOL, ATOL = 1e-5, 1e-5


@pytest.fixture(scope="module")
def aux(fw, tmp_path_factory):
    """The companion module holding every recurrent entry, written out and imported."""
    path = tmp_path_factory.mktemp("companion") / "ms_aux_recurrent.py"
    path.write_text(assemble(sorted(set(ENTRIES.values()))), encoding="utf-8")
    spec = importlib.util.spec_from_file_location("ms_aux_recurrent", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["ms_aux_recurrent"] = module
    spec.loader.exec_module(module)
    return module


def _leaves(value):
    if isinstance(value, (tuple, list)):
        return [leaf for item in value for leaf in _leaves(item)]
    return [value]


def _nest(flat, shape_like):
    """``flat`` tensors arranged as ``shape_like`` (a tensor, or tuples of them)."""
    if isinstance(shape_like, (tuple, list)):
        out, rest = [], list(flat)
        for item in shape_like:
            count = len(_leaves(item))
            out.append(_nest(rest[:count], item))
            rest = rest[count:]
        return tuple(out)
    return flat[0]


def _compare_layer(fw, torch_module, cell, inputs, rng):
    """Forward values, and gradients w.r.t. the inputs and every parameter, torch vs MindSpore.

    ``inputs`` is a list of NumPy arrays or tuples of them (an LSTM state), passed positionally."""
    torch, ms = fw
    ms_params = dict(cell.parameters_and_names())
    torch_params = dict(torch_module.named_parameters())
    assert sorted(ms_params) == sorted(torch_params)
    for name, parameter in torch_params.items():
        ms_params[name].set_data(ms.Tensor(parameter.detach().numpy()))
    flat = _leaves(inputs)
    torch_flat = [torch.tensor(a, requires_grad=True) for a in flat]
    expected = _leaves(torch_module(*_nest(torch_flat, inputs)))
    weights = [rng.standard_normal(tuple(e.shape)).astype(np.float32) for e in expected]
    sum(
        (e * torch.tensor(w)).sum() for e, w in zip(expected, weights, strict=True)
    ).backward()

    def forward(*arrays):
        outputs = _leaves(cell(*_nest(list(arrays), inputs)))
        return sum(
            (o * ms.Tensor(w)).sum() for o, w in zip(outputs, weights, strict=True)
        )

    got = _leaves(cell(*_nest([ms.Tensor(a) for a in flat], inputs)))
    assert len(got) == len(expected)
    for g, e in zip(got, expected, strict=True):
        np.testing.assert_allclose(
            g.asnumpy(), e.detach().numpy(), rtol=RTOL, atol=ATOL
        )
    names = [n for n, p in cell.parameters_and_names() if p.requires_grad]
    positions = tuple(range(len(flat)))
    grad_fn = ms.value_and_grad(
        forward, positions, [ms_params[n] for n in names] or None
    )
    _, grads = grad_fn(*[ms.Tensor(a) for a in flat])
    input_grads, param_grads = grads if names else (grads, ())
    input_grads = input_grads if isinstance(input_grads, tuple) else (input_grads,)
    for g, t in zip(input_grads, torch_flat, strict=True):
        np.testing.assert_allclose(g.asnumpy(), t.grad.numpy(), rtol=RTOL, atol=ATOL)
    for name, g in zip(names, param_grads, strict=True):
        np.testing.assert_allclose(
            g.asnumpy(),
            torch_params[name].grad.numpy(),
            rtol=RTOL,
            atol=ATOL,
            err_msg=name,
        )


def _state(rng, layers, batch, hidden, lstm):
    shape = (layers, batch, hidden) if batch else (layers, hidden)
    h = rng.standard_normal(shape).astype(np.float32)
    if lstm:
        return (h, rng.standard_normal(shape).astype(np.float32))
    return h


# (class, args, kwargs, input shape, initial state given)
RECURRENT = [
    ("LSTM", (3, 4), {}, (5, 2, 3), False),
    ("LSTM", (3, 4, 2), {"batch_first": True, "bidirectional": True}, (2, 5, 3), True),
    ("LSTM", (3, 4), {"bias": False, "dropout": 0, "device": None}, (5, 2, 3), True),
    ("LSTM", (3, 4, 2), {"bidirectional": True}, (5, 3), True),
    ("LSTM", (3, 4), {"batch_first": True, "dtype": None}, (5, 3), False),
    ("GRU", (3, 4), {}, (5, 2, 3), True),
    ("GRU", (3, 4, 2, True, True, 0.0, True), {}, (2, 5, 3), False),
    ("GRU", (3, 4), {"bias": False}, (5, 3), True),
    ("RNN", (3, 4), {}, (5, 2, 3), False),
    ("RNN", (3, 4, 2, "relu"), {"bidirectional": True}, (5, 2, 3), True),
    ("RNN", (3, 4), {"nonlinearity": "relu", "batch_first": True}, (5, 3), True),
]


@pytest.mark.parametrize("name,args,kwargs,shape,with_state", RECURRENT)
def test_recurrent_layer_matches_torch(
    fw, aux, name, args, kwargs, shape, with_state
) -> None:
    torch, _ = fw
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    module = getattr(torch.nn, name)(*args, **kwargs)
    cell = getattr(aux, name)(*args, **kwargs)
    cell.set_train(False)
    inputs = [rng.standard_normal(shape).astype(np.float32)]
    if with_state:
        directions = 2 if module.bidirectional else 1
        batch = None if len(shape) == 2 else shape[0 if module.batch_first else 1]
        inputs.append(
            _state(
                rng,
                module.num_layers * directions,
                batch,
                module.hidden_size,
                name == "LSTM",
            )
        )
    _compare_layer(fw, module, cell, inputs, rng)


CELLS = [
    ("LSTMCell", (3, 4), {}, (2, 3), True),
    ("LSTMCell", (3, 4), {"bias": False}, (2, 3), False),
    ("LSTMCell", (3, 4), {}, (3,), True),
    ("GRUCell", (3, 4), {}, (2, 3), False),
    ("GRUCell", (3, 4, False), {}, (3,), True),
    ("RNNCell", (3, 4, True, "relu"), {}, (2, 3), True),
    ("RNNCell", (3, 4), {"device": None}, (2, 3), False),
]


@pytest.mark.parametrize("name,args,kwargs,shape,with_state", CELLS)
def test_recurrent_cell_matches_torch(
    fw, aux, name, args, kwargs, shape, with_state
) -> None:
    torch, _ = fw
    torch.manual_seed(0)
    rng = np.random.default_rng(1)
    module = getattr(torch.nn, name)(*args, **kwargs)
    cell = getattr(aux, name)(*args, **kwargs)
    inputs = [rng.standard_normal(shape).astype(np.float32)]
    if with_state:
        state_shape = shape[:-1] + (4,)
        h = rng.standard_normal(state_shape).astype(np.float32)
        c = rng.standard_normal(state_shape).astype(np.float32)
        inputs.append((h, c) if name == "LSTMCell" else h)
    _compare_layer(fw, module, cell, inputs, rng)


def test_recurrent_attributes_follow_torch(fw, aux) -> None:
    torch, _ = fw
    module = torch.nn.LSTM(3, 4, 2, bias=False, bidirectional=True)
    cell = aux.LSTM(3, 4, 2, bias=False, bidirectional=True)
    for attribute in (
        "input_size",
        "hidden_size",
        "num_layers",
        "bias",
        "batch_first",
        "bidirectional",
        "proj_size",
        "mode",
    ):
        assert getattr(cell, attribute) == getattr(module, attribute), attribute
    assert cell.weight_hh_l1_reverse.shape == tuple(module.weight_hh_l1_reverse.shape)
    assert cell.weight_ih_l1 is dict(cell.parameters_and_names())["weight_ih_l1"]
    for layer in (module, cell):
        with pytest.raises(AttributeError):
            layer.bias_ih_l0  # noqa: B018 (the attribute read is the test)
    assert [len(group) for group in cell.all_weights] == [
        len(group) for group in module.all_weights
    ]
    cell.flatten_parameters()
    for layer in (module, cell):
        with pytest.raises(AttributeError):
            layer.weight_ih_l2  # noqa: B018 (the attribute read is the test)
    rnn = aux.RNN(3, 4, nonlinearity="relu")
    assert rnn.nonlinearity == torch.nn.RNN(3, 4, nonlinearity="relu").nonlinearity
    with pytest.raises(NotImplementedError, match="proj_size"):
        aux.LSTM(3, 4, proj_size=2)


UNFOLD = [
    ((3,), {}, (2, 3, 7, 8)),
    ((3, 1, 1, 2), {}, (2, 3, 9, 10)),
    (
        ((2, 3),),
        {"dilation": (1, 2), "padding": (1, 0), "stride": (2, 1)},
        (1, 2, 9, 9),
    ),
    ((2,), {"stride": 2}, (3, 8, 8)),
]


@pytest.mark.parametrize("args,kwargs,shape", UNFOLD)
def test_unfold_and_fold_match_torch(fw, aux, args, kwargs, shape) -> None:
    torch, _ = fw
    rng = np.random.default_rng(2)
    x = rng.standard_normal(shape).astype(np.float32)
    _compare_layer(
        fw, torch.nn.Unfold(*args, **kwargs), aux.Unfold(*args, **kwargs), [x], rng
    )
    columns = torch.nn.functional.unfold(torch.tensor(x), *args, **kwargs).numpy()
    size = shape[-2:]
    _compare_layer(
        fw,
        torch.nn.Fold(size, *args, **kwargs),
        aux.Fold(size, *args, **kwargs),
        [rng.standard_normal(columns.shape).astype(np.float32)],
        rng,
    )


class _TorchTensorUnfold:
    """torch's `Tensor.unfold` as a module, to compare with the companion function."""

    def __init__(self, torch, *args):
        self.args = args
        self.torch = torch

    def named_parameters(self):
        return []

    def __call__(self, x):
        return x.unfold(*self.args)


class _CompanionTensorUnfold:
    def __init__(self, function, *args):
        self.function, self.args = function, args

    def parameters_and_names(self):
        return []

    def __call__(self, x):
        return self.function(x, *self.args)


@pytest.mark.parametrize(
    "shape,args",
    [
        ((2, 3, 9, 8), (2, 3, 2)),
        ((2, 3, 9, 8), (-1, 4, 4)),
        ((2, 3, 9, 8), (3, 3, 1)),
        ((10,), (0, 3, 3)),
        ((6, 5), (0, 6, 1)),
    ],
)
def test_tensor_unfold_matches_torch(fw, aux, shape, args) -> None:
    torch, _ = fw
    rng = np.random.default_rng(3)
    x = rng.standard_normal(shape).astype(np.float32)
    _compare_layer(
        fw,
        _TorchTensorUnfold(torch, *args),
        _CompanionTensorUnfold(aux.tensor_unfold, *args),
        [x],
        rng,
    )


def test_tensor_unfold_chained_as_median_pool_does(fw, aux) -> None:
    torch, ms = fw
    x = np.random.default_rng(4).standard_normal((2, 3, 8, 9)).astype(np.float32)
    expected = torch.tensor(x).unfold(2, 3, 2).unfold(3, 3, 2)
    got = aux.tensor_unfold(aux.tensor_unfold(ms.Tensor(x), 2, 3, 2), 3, 3, 2)
    np.testing.assert_array_equal(got.asnumpy(), expected.numpy())


CONV3D = [
    ((2, 3, 3), {}, (1, 2, 5, 6, 6)),
    ((2, 4, (1, 3, 3)), {"stride": (1, 2, 2), "padding": (0, 1, 1)}, (2, 2, 3, 7, 7)),
    ((2, 4, 3), {"padding": "same", "bias": False, "dilation": 2}, (1, 2, 6, 6, 6)),
    ((4, 4, 3), {"groups": 2, "padding": 1, "device": None}, (1, 4, 4, 5, 5)),
    ((2, 3, 3), {"padding": 1, "padding_mode": "replicate"}, (1, 2, 4, 5, 5)),
]


@pytest.mark.parametrize("args,kwargs,shape", CONV3D)
def test_conv3d_matches_torch(fw, aux, args, kwargs, shape) -> None:
    torch, _ = fw
    torch.manual_seed(0)
    rng = np.random.default_rng(5)
    x = rng.standard_normal(shape).astype(np.float32)
    module = torch.nn.Conv3d(*args, **kwargs)
    cell = aux.Conv3d(*args, **kwargs)
    assert cell.padding == module.padding and cell.kernel_size == module.kernel_size
    _compare_layer(fw, module, cell, [x], rng)


@pytest.mark.parametrize("shape", [(4, 6, 3, 3), (6, 3, 3), (8, 5)])
def test_dropout2d_drops_what_torch_drops(fw, aux, shape) -> None:
    """Random masks differ between the frameworks; the axes a mask spans, the scale of what is
    kept and the evaluation-mode identity must not."""
    torch, ms = fw
    torch.manual_seed(0)
    ones = np.ones(shape, np.float32)
    layer = aux.Dropout2d(0.5)
    layer.set_train(True)
    got = layer(ms.Tensor(ones)).asnumpy()
    expected = torch.nn.Dropout2d(0.5).train()(torch.tensor(ones)).numpy()

    def spans(out: np.ndarray) -> set:
        # The axes along which every mask entry is constant.
        return {axis for axis in range(out.ndim) if (out == out.take([0], axis)).all()}

    assert spans(got) == spans(expected)
    assert set(np.unique(got)) <= {0.0, 2.0} and set(np.unique(expected)) <= {0.0, 2.0}
    layer.set_train(False)
    np.testing.assert_array_equal(layer(ms.Tensor(ones)).asnumpy(), ones)
