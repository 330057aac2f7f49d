"""Companion entries for forms torch accepts and MindSpore's idiom does not, against real torch:
a Sequential subclass that assigns its layers, `meshgrid` given one list, a tensor's device type,
a norm layer whose scale or shift is removed by assigning None, pools given sizes as lists, and a
converted model that uses them all."""

from __future__ import annotations

import importlib.util
import sys

import numpy as np
import pytest
from conftest import convert_checked
from torch2ms.rules.companion import assemble

pytestmark = pytest.mark.real

RTOL, ATOL = 1e-5, 1e-5
ENTRIES = [
    "bincount",
    "stack_value",
    "cat_value",
    "softmax_value",
    "Sequential",
    "meshgrid",
    "device_type",
    "device",
    "LayerNorm",
    "GroupNorm",
    "BatchNorm2d",
    "MaxPool2d",
    "AvgPool2d",
    "Conv2d",
    "load_state_dict",
]


@pytest.fixture(scope="module")
def aux(fw, tmp_path_factory):
    path = tmp_path_factory.mktemp("companion") / "ms_aux_forms.py"
    path.write_text(assemble(ENTRIES), encoding="utf-8")
    spec = importlib.util.spec_from_file_location("ms_aux_forms", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["ms_aux_forms"] = module
    spec.loader.exec_module(module)
    return module


def _copy_state(torch_module, ms_cell, aux) -> None:
    """torch's state into the cell through the companion's `load_state_dict` (torch's names),
    which must find a place for every entry and leave no parameter unloaded."""
    state = {k: v.detach().numpy() for k, v in torch_module.state_dict().items()}
    aux.load_state_dict(ms_cell, state, strict=True)


def _check_grads(torch_module, ms_cell, x, aux, ms, torch) -> None:
    """Forward values and gradients (input and parameters) of the two, on the same input."""
    xt = torch.tensor(x, requires_grad=True)
    out = torch_module(xt)
    out.sum().backward()
    trainable = ms_cell.trainable_params()
    (_, ms_out), (gx, grads) = ms.value_and_grad(
        lambda inp: _sum_and_out(ms_cell, inp), 0, trainable, has_aux=True
    )(ms.Tensor(x))
    np.testing.assert_allclose(ms_out.asnumpy(), out.detach().numpy(), RTOL, ATOL)
    np.testing.assert_allclose(gx.asnumpy(), xt.grad.numpy(), 1e-4, ATOL)
    # Each MindSpore parameter under torch's name, as `load_state_dict` pairs them.
    torch_name = {
        id(p): name for name, (_, p) in aux._ckpt_torch_names(ms_cell).items()
    }
    torch_grads = {n: p.grad.numpy() for n, p in torch_module.named_parameters()}
    assert {torch_name[id(p)] for p in trainable} == set(torch_grads)
    for param, grad in zip(trainable, grads):
        name = torch_name[id(param)]
        np.testing.assert_allclose(
            grad.asnumpy(), torch_grads[name], 1e-4, ATOL, err_msg=name
        )


def _sum_and_out(cell, inp):
    out = cell(inp)
    return out.sum(), out


def test_sequential_subclass_runs_the_layers_it_assigns(fw, aux) -> None:
    torch, ms = fw

    class TorchStem(torch.nn.Sequential):
        def __init__(self):
            super().__init__()
            self.conv = torch.nn.Conv2d(3, 4, 3, padding=1)
            self.act = torch.nn.Tanh()
            self.add_module("proj", torch.nn.Conv2d(4, 2, 1))

    class MsStem(aux.Sequential):
        def __init__(self):
            super().__init__()
            self.conv = aux.Conv2d(3, 4, 3, padding=1)
            self.act = ms.nn.Tanh()
            self.insert_child_to_cell("proj", aux.Conv2d(4, 2, 1))

    torch.manual_seed(0)
    stem, ms_stem = TorchStem(), MsStem()
    assert len(ms_stem) == len(stem) == 3
    _copy_state(stem, ms_stem, aux)
    x = np.random.default_rng(0).standard_normal((2, 3, 5, 5)).astype(np.float32)
    _check_grads(stem, ms_stem, x, aux, ms, torch)
    # Given its layers, it runs like MindSpore's SequentialCell and torch's Sequential.
    given = aux.Sequential(ms.nn.Tanh(), ms.nn.ReLU())
    np.testing.assert_allclose(
        given(ms.Tensor(x)).asnumpy(),
        torch.nn.Sequential(torch.nn.Tanh(), torch.nn.ReLU())(torch.tensor(x)).numpy(),
        RTOL,
        ATOL,
    )


@pytest.mark.parametrize("indexing", [None, "ij", "xy"])
def test_meshgrid_takes_tensors_one_by_one_or_as_one_sequence(
    fw, aux, indexing
) -> None:
    torch, ms = fw
    rng = np.random.default_rng(1)
    a, b = (
        rng.standard_normal(3).astype(np.float32),
        rng.standard_normal(4).astype(np.float32),
    )
    kwargs = {} if indexing is None else {"indexing": indexing}
    expected = (
        torch.meshgrid(torch.tensor(a), torch.tensor(b), indexing=indexing or "ij")
        if indexing is None
        else torch.meshgrid(torch.tensor(a), torch.tensor(b), **kwargs)
    )
    ta, tb = ms.Tensor(a), ms.Tensor(b)
    for got in (
        aux.meshgrid(ta, tb, **kwargs),
        aux.meshgrid([ta, tb], **kwargs),
        aux.meshgrid((ta, tb), **kwargs),
    ):
        assert len(got) == len(expected)
        for mine, theirs in zip(got, expected):
            np.testing.assert_array_equal(mine.asnumpy(), theirs.numpy())


def test_device_type_gives_torchs_name(fw, aux) -> None:
    torch, ms = fw
    x = ms.Tensor(np.ones(2, np.float32))
    assert isinstance(x.device, str)  # what makes `x.device.type` fail on MindSpore
    assert aux.device_type(x.device) == torch.ones(2).device.type == "cpu"
    assert aux.device_type("GPU:1") == torch.device("cuda:1").type
    assert aux.device_type(aux.device("meta")) == torch.device("meta").type
    # A torch tensor's device (code left on torch) gives its own type.
    assert aux.device_type(torch.ones(2).device) == "cpu"


def _norms(torch, aux):
    return [
        (torch.nn.LayerNorm(4, eps=1e-6), aux.LayerNorm(4, eps=1e-6), (2, 3, 4)),
        (torch.nn.GroupNorm(2, 4), aux.GroupNorm(2, 4), (2, 4, 3, 3)),
        (torch.nn.BatchNorm2d(4), aux.BatchNorm2d(4), (2, 4, 3, 3)),
    ]


@pytest.mark.parametrize("removed", ["bias", "weight"])
def test_assigning_none_removes_a_norms_scale_or_shift(fw, aux, removed) -> None:
    torch, ms = fw
    rng = np.random.default_rng(2)
    for layer, ms_layer, shape in _norms(torch, aux):
        with torch.no_grad():
            layer.weight.uniform_(0.5, 1.5)
            layer.bias.uniform_(-0.5, 0.5)
        _copy_state(layer, ms_layer, aux)
        setattr(layer, removed, None)
        setattr(ms_layer, removed, None)
        assert getattr(ms_layer, removed) is None
        kept = "weight" if removed == "bias" else "bias"
        assert getattr(ms_layer, kept) is not None
        # Neither trained nor saved: the state loads with nothing missing or left over.
        _copy_state(layer, ms_layer, aux)
        layer.train(True)
        ms_layer.set_train(True)
        x = rng.standard_normal(shape).astype(np.float32)
        if isinstance(layer, torch.nn.GroupNorm) and removed == "weight":
            # torch's own group_norm backward fails without a weight: values only.
            with torch.no_grad():
                expected = layer(torch.tensor(x)).numpy()
            np.testing.assert_allclose(
                ms_layer(ms.Tensor(x)).asnumpy(), expected, RTOL, ATOL
            )
            continue
        _check_grads(layer, ms_layer, x, aux, ms, torch)


def test_a_parameter_that_cannot_be_removed_still_refuses_assignment(aux) -> None:
    norm = aux.BatchNorm2d(4)
    with pytest.raises(AttributeError, match="moving_mean"):
        norm.running_mean = None
    with pytest.raises(AttributeError, match="gamma"):
        norm.weight = norm.gamma * 2.0


@pytest.mark.parametrize(
    ("torch_pool", "ms_pool", "args", "kwargs"),
    [
        ("MaxPool2d", "MaxPool2d", ([3, 3], [2, 2]), {"padding": [1, 1]}),
        ("MaxPool2d", "MaxPool2d", ([2, 3],), {}),
        ("AvgPool2d", "AvgPool2d", ([3, 3], [2, 1]), {"padding": [1, 0]}),
        ("AvgPool2d", "AvgPool2d", ([2, 2],), {}),
    ],
)
def test_pools_take_sizes_as_lists(fw, aux, torch_pool, ms_pool, args, kwargs) -> None:
    torch, ms = fw
    x = np.random.default_rng(3).standard_normal((2, 3, 7, 8)).astype(np.float32)
    expected = getattr(torch.nn, torch_pool)(*args, **kwargs)(torch.tensor(x)).numpy()
    got = getattr(aux, ms_pool)(*args, **kwargs)(ms.Tensor(x)).asnumpy()
    np.testing.assert_allclose(got, expected, RTOL, ATOL)


# -- a converted model that uses every form -------------------------------------------------

MODEL = """\
import torch
import torch.nn as nn


class ConvNorm(nn.Sequential):
    def __init__(self, cin, cout, kernel=(3, 1)):
        super().__init__()
        padding = tuple(k // 2 for k in kernel)
        self.conv = nn.Conv2d(cin, cout, kernel, padding=padding)
        self.bn = nn.BatchNorm2d(cout)


class LayerNorm2dNoBias(nn.LayerNorm):
    def __init__(self, channels, **kwargs):
        super().__init__(channels, **kwargs)
        self.bias = None

    def forward(self, x):
        return super().forward(x.permute(0, 2, 3, 1)).permute(0, 3, 1, 2)


class Partial(nn.Module):
    def __init__(self, dim, mode):
        super().__init__()
        self.conv = nn.Conv2d(dim // 2, dim // 2, 3, padding=1)
        self.forward = self.forward_slicing if mode == "slicing" else self.forward_cat

    def forward_slicing(self, x):
        half = x.shape[1] // 2
        return torch.cat([self.conv(x[:, :half]), x[:, half:]], dim=1)

    def forward_cat(self, x):
        a, b = torch.split(x, [x.shape[1] // 2, x.shape[1] - x.shape[1] // 2], dim=1)
        return torch.cat((self.conv(a), b), 1)


class Net(nn.Module):
    def __init__(self, mode):
        super().__init__()
        self.stem = ConvNorm(3, 4)
        self.partial = Partial(4, mode)
        self.norm = LayerNorm2dNoBias(4, eps=1e-6)
        stride = [2, 2]
        kernel = [s + 1 for s in stride]
        self.pool = nn.MaxPool2d(kernel, stride, padding=[1, 1])

    def forward(self, x):
        x = self.pool(self.norm(self.partial(self.stem(x))))
        ys, xs = torch.meshgrid([torch.arange(x.shape[2]), torch.arange(x.shape[3])], indexing="ij")
        grid = (ys + xs).to(x.dtype)
        if x.device.type != "meta":
            x = x + grid
        return x
"""


@pytest.mark.parametrize("mode", ["slicing", "cat"])
def test_converted_model_matches_torch(fw, aux, tmp_path, monkeypatch, mode) -> None:
    torch, ms = fw
    result = convert_checked(MODEL)
    assert "torch" not in result.code, result.code
    assert result.companion >= {"Sequential", "meshgrid", "device_type", "Conv2d"}
    (tmp_path / "ms_aux.py").write_text(
        assemble(sorted(result.companion)), encoding="utf-8"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "ms_aux", raising=False)
    original: dict = {}
    converted: dict = {}
    exec(compile(MODEL, "original", "exec"), original)  # noqa: S102 - our snippet
    exec(compile(result.code, "converted", "exec"), converted)  # noqa: S102 - its conversion
    torch.manual_seed(0)
    net, ms_net = original["Net"](mode), converted["Net"](mode)
    with torch.no_grad():
        net.norm.weight.uniform_(0.5, 1.5)
    _copy_state(net, ms_net, aux)
    net.eval()
    ms_net.set_train(False)
    x = np.random.default_rng(4).standard_normal((2, 3, 8, 8)).astype(np.float32)
    _check_grads(net, ms_net, x, aux, ms, torch)


def test_bincount_counts_and_sums_in_torchs_dtypes(fw, aux) -> None:
    torch, ms = fw
    rows = np.array([0, 1, 1, 3, 1], np.int64)
    cases = [
        {},
        {"minlength": 6},
        {"weights": np.array([0.5, 0.25, 1.0, 2.0, 4.0], np.float32)},
        {"weights": np.array([0.5, 0.25, 1.0, 2.0, 4.0], np.float64), "minlength": 2},
        {"weights": np.array([1, 2, 3, 4, 5], np.int32)},
    ]
    for kwargs in cases:
        want = torch.bincount(
            torch.tensor(rows),
            **{k: torch.tensor(v) if k == "weights" else v for k, v in kwargs.items()},
        )
        have = aux.bincount(
            ms.Tensor(rows),
            **{k: ms.Tensor(v) if k == "weights" else v for k, v in kwargs.items()},
        )
        assert str(have.dtype).lower() == str(want.dtype).split(".")[1]
        np.testing.assert_allclose(have.asnumpy(), want.numpy())


def test_functions_passed_as_values_take_torchs_keywords(fw, aux) -> None:
    torch, ms = fw
    rng = np.random.default_rng(0)
    a = rng.standard_normal((2, 3)).astype(np.float32)
    b = rng.standard_normal((2, 3)).astype(np.float32)
    pairs = [
        (torch.stack, aux.stack_value, True, {"dim": 1}),
        (torch.cat, aux.cat_value, True, {"dim": -1}),
        (torch.softmax, aux.softmax_value, False, {"dim": 0}),
    ]
    for theirs, ours, listed, kwargs in pairs:
        if listed:
            want = theirs([torch.tensor(a), torch.tensor(b)], **kwargs).numpy()
            have = ours([ms.Tensor(a), ms.Tensor(b)], **kwargs).asnumpy()
        else:
            want = theirs(torch.tensor(a), **kwargs).numpy()
            have = ours(ms.Tensor(a), **kwargs).asnumpy()
        np.testing.assert_allclose(have, want, rtol=1e-6, atol=1e-7)
    result = convert_checked(
        "import torch\n\n\ndef f(xs, act=torch.softmax):\n"
        "    return act(apply(torch.stack, xs), dim=1)\n"
    )
    assert "act=ms_aux.softmax_value" in result.code
    assert "apply(ms_aux.stack_value, xs)" in result.code
