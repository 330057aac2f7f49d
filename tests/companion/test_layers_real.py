"""The companion layer classes against torch's, on the real frameworks.

Each case builds torch's class and the assembled companion class with the same constructor
arguments (torch's own, including those timm passes: eps, momentum, device/dtype, inplace), copies
torch's state_dict across with `torch2ms weights`' name mapping, and compares outputs in training
and evaluation mode, gradients with respect to the input and every parameter, and BatchNorm's
running statistics after a training step.
"""

from __future__ import annotations

import importlib.util
import sys

import numpy as np
import pytest
from torch2ms.migrator.weights import convert_state
from torch2ms.rules.companion import assemble
from torch2ms.rules.companion.table_layers import ENTRIES

RTOL, ATOL = 1e-5, 1e-5
NONE = {"device": None, "dtype": None}


@pytest.fixture(scope="module")
def aux(fw, tmp_path_factory):
    """The companion module holding every layer entry, written out and imported."""
    path = tmp_path_factory.mktemp("companion") / "ms_aux_layers.py"
    path.write_text(assemble(sorted(set(ENTRIES.values()))), encoding="utf-8")
    spec = importlib.util.spec_from_file_location("ms_aux_layers", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["ms_aux_layers"] = module
    spec.loader.exec_module(module)
    return module


# (torch class, args, kwargs, input shape(s); "i" marks integer ids)
CASES = [
    ("BatchNorm2d", (4,), {}, (3, 4, 5, 5)),
    ("BatchNorm2d", (4,), {"eps": 1e-3, "momentum": 0.3, **NONE}, (3, 4, 5, 5)),
    ("BatchNorm2d", (4, 1e-5, 0.1, False), {}, (3, 4, 5, 5)),
    ("BatchNorm2d", (4,), {"track_running_stats": False}, (3, 4, 5, 5)),
    ("BatchNorm2d", (4,), {"bias": False}, (3, 4, 5, 5)),
    ("BatchNorm2d", (4,), {"momentum": None}, (3, 4, 5, 5)),
    ("BatchNorm1d", (4,), {"momentum": 0.2}, (6, 4)),
    ("BatchNorm1d", (4,), {}, (3, 4, 5)),
    ("LayerNorm", (8,), {}, (2, 3, 8)),
    ("LayerNorm", (8,), {"eps": 1e-6, **NONE}, (2, 3, 8)),
    ("LayerNorm", ((3, 8),), {}, (2, 3, 8)),
    ("LayerNorm", (8,), {"elementwise_affine": False}, (2, 3, 8)),
    ("LayerNorm", (8,), {"bias": False}, (2, 3, 8)),
    ("GroupNorm", (2, 4), {}, (2, 4, 3, 3)),
    ("GroupNorm", (2, 4), {"eps": 1e-3, "affine": False}, (2, 4, 3, 3)),
    ("Linear", (5, 3), {}, (4, 5)),
    ("Linear", (5, 3), {"bias": False, **NONE}, (2, 4, 5)),
    ("Linear", (5, 3), {}, (5,)),
    ("Conv2d", (4, 6, 3), {"padding": 1}, (2, 4, 7, 7)),
    ("Conv2d", (4, 6, 3, 2), {"padding": (1, 2), "groups": 2, **NONE}, (2, 4, 9, 8)),
    ("Conv2d", (4, 6, 3), {"dilation": 2, "bias": False}, (2, 4, 9, 9)),
    ("Conv2d", (4, 6, 4), {"padding": "same"}, (2, 4, 7, 7)),
    ("Conv2d", (4, 6, (3, 2)), {"padding": "valid", "stride": (2, 1)}, (2, 4, 7, 7)),
    ("Conv2d", (4, 6, 3), {"padding": 1, "padding_mode": "reflect"}, (2, 4, 7, 7)),
    ("Conv2d", (4, 6, 3), {"padding": 2, "padding_mode": "replicate"}, (2, 4, 7, 7)),
    ("Conv2d", (4, 6, 3), {"padding": 1, "padding_mode": "circular"}, (2, 4, 7, 7)),
    ("Conv1d", (4, 6, 3), {"padding": 1}, (2, 4, 9)),
    ("Conv1d", (4, 6, 4), {"padding": "same"}, (2, 4, 9)),
    ("Conv1d", (4, 6, 3), {"padding": 1, "padding_mode": "reflect"}, (2, 4, 9)),
    ("AvgPool2d", (3, 2, 1), {}, (2, 3, 7, 7)),
    ("AvgPool2d", (2,), {}, (2, 3, 8, 8)),
    ("AvgPool2d", (3, 2, 1), {"count_include_pad": False}, (2, 3, 7, 7)),
    ("AvgPool2d", (2,), {"ceil_mode": True, "count_include_pad": False}, (2, 3, 7, 7)),
    ("AvgPool2d", (2, 1), {"divisor_override": 3}, (2, 3, 5, 5)),
    ("AvgPool2d", (3, 2, 1), {"ceil_mode": True}, (2, 3, 8, 8)),
    (
        "AvgPool2d",
        (3, 2, 1),
        {"ceil_mode": True, "count_include_pad": False},
        (2, 3, 8, 8),
    ),
    ("MaxPool2d", (3, 2, 1), {}, (2, 3, 8, 8)),
    ("MaxPool2d", (2,), {}, (2, 3, 8, 8)),
    ("MaxPool2d", (3, 2), {"ceil_mode": True}, (2, 3, 8, 8)),
    ("MaxPool2d", (3, 1), {"dilation": 2}, (2, 3, 8, 8)),
    ("MaxPool2d", (3, 2, 1), {"ceil_mode": True}, (2, 3, 8, 8)),
    ("AdaptiveAvgPool2d", (1,), {}, (2, 3, 5, 5)),
    ("AdaptiveAvgPool2d", ((2, 3),), {}, (2, 3, 6, 6)),
    ("Flatten", (), {}, (2, 3, 4)),
    ("Flatten", (0, 1), {}, (2, 3, 4)),
    ("Identity", (3,), {"unused": 1}, (2, 3)),
    ("Dropout", (0.3,), {"inplace": True}, (16, 32)),  # all 512 kept: p < 1e-79
    ("GELU", (), {}, (2, 3, 4)),
    ("GELU", (), {"approximate": "tanh"}, (2, 3, 4)),
    ("ReLU", (), {"inplace": True}, (2, 3, 4)),
    ("ReLU6", (True,), {}, (2, 3, 4)),
    ("SiLU", (), {"inplace": True}, (2, 3, 4)),
    ("Mish", (), {"inplace": True}, (2, 3, 4)),
    ("Hardswish", (), {"inplace": True}, (2, 3, 4)),
    ("Hardsigmoid", (), {"inplace": True}, (2, 3, 4)),
    ("LeakyReLU", (), {}, (2, 3, 4)),
    ("LeakyReLU", (0.2, True), {}, (2, 3, 4)),
    ("ELU", (0.5,), {"inplace": True}, (2, 3, 4)),
    ("ELU", (), {}, (2, 3, 4)),
    ("Sigmoid", (), {}, (2, 3, 4)),
    ("Tanh", (), {}, (2, 3, 4)),
    ("Softmax", (1,), {}, (2, 3, 4)),
    ("Softmax", (), {}, (2, 3, 4)),
    ("Softmax", (), {}, (2, 3, 4, 5)),
    ("PReLU", (), {}, (2, 3, 4)),
    ("PReLU", (3, 0.1), {**NONE}, (2, 3, 4, 4)),
    ("Embedding", (10, 4), {}, "i"),
    ("Embedding", (10, 4), {"padding_idx": 2, **NONE}, "i"),
    ("Embedding", (10, 4), {"padding_idx": -1}, "i"),
    ("Embedding", (10, 4), {"scale_grad_by_freq": True}, "i"),
    ("Embedding", (10, 4), {"padding_idx": 3, "scale_grad_by_freq": True}, "i"),
]


def case_id(case) -> str:
    name, args, kwargs, _ = case
    parts = [repr(a) for a in args] + [
        f"{k}={v!r}" for k, v in kwargs.items() if k not in NONE
    ]
    return f"{name}({', '.join(parts)})"


def _inputs(shape, rng):
    if shape == "i":
        return rng.integers(0, 10, size=(2, 5)).astype(np.int64)
    return rng.standard_normal(shape).astype(np.float32)


def copy_weights(torch_layer, ms_layer, torch_name: str, ms) -> set[str]:
    """Load torch's state_dict into the MindSpore layer as `torch2ms weights` names it; returns the
    names written."""
    state = {k: v.detach().numpy() for k, v in torch_layer.state_dict().items()}
    converted = convert_state(state, lambda prefix: "torch.nn." + torch_name)
    params = dict(ms_layer.parameters_and_names())
    written = set()
    for entry in converted.entries:
        assert entry.name in params, (
            f"{entry.name} (from {entry.source}) is not a parameter"
        )
        params[entry.name].set_data(ms.Tensor(entry.array))
        written.add(entry.name)
    return written


def run_torch(torch, layer, x, rng):
    """Output, input gradient and parameter gradients of `sum(out * cotangent)`, and the random
    cotangent used."""
    xt = torch.tensor(x, requires_grad=x.dtype == np.float32)
    out = layer(
        xt * 1 if xt.requires_grad else xt
    )  # in-place layers need a non-leaf input
    cotangent = rng.standard_normal(tuple(out.shape)).astype(np.float32)
    (out * torch.tensor(cotangent)).sum().backward()
    grads = {
        n: p.grad.numpy().copy()
        for n, p in layer.named_parameters()
        if p.grad is not None
    }
    for p in layer.parameters():
        p.grad = None
    gx = xt.grad.numpy() if xt.grad is not None else None
    return out.detach().numpy(), gx, grads, cotangent


def run_ms(ms, layer, x, cotangent):
    params = [p for p in layer.trainable_params()]
    xm = ms.Tensor(x)
    ct = ms.Tensor(cotangent)

    def forward(inp):
        out = layer(inp * 1)  # as on torch: in-place layers need a non-leaf input
        return (out * ct).sum(), out

    floating = x.dtype == np.float32
    position = 0 if floating else None
    if not params and not floating:
        return layer(xm).asnumpy(), None, {}
    (_, out), grads = ms.value_and_grad(
        forward, position, params or None, has_aux=True
    )(xm)
    if floating and params:
        gx, gp = grads
    elif floating:
        gx, gp = grads, ()
    else:
        gx, gp = None, grads
    names = {id(p): n for n, p in layer.parameters_and_names()}
    return (
        out.asnumpy(),
        None if gx is None else gx.asnumpy(),
        {names[id(p)]: g.asnumpy() for p, g in zip(params, gp)},
    )


def _close(actual, expected, what: str) -> None:
    np.testing.assert_allclose(actual, expected, rtol=RTOL, atol=ATOL, err_msg=what)


@pytest.mark.real
@pytest.mark.parametrize("case", CASES, ids=[case_id(c) for c in CASES])
def test_layer_matches_torch(case, fw, aux) -> None:
    torch, ms = fw
    name, args, kwargs, shape = case
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    torch_layer = getattr(torch.nn, name)(*args, **kwargs)
    ms_layer = getattr(aux, name)(*args, **kwargs)
    assert isinstance(ms_layer, ms.nn.Cell)

    # One checkpoint naming: torch's state_dict, renamed, covers every MindSpore parameter.
    written = copy_weights(torch_layer, ms_layer, name, ms)
    assert written == {n for n, _ in ms_layer.parameters_and_names()}

    x = _inputs(shape, rng)
    for training in (True, False):
        torch_layer.train(training)
        ms_layer.set_train(training)
        expected, gx_t, grads_t, cotangent = run_torch(torch, torch_layer, x, rng)
        ms_out, gx_m, grads_m = run_ms(ms, ms_layer, x, cotangent)
        mode = "train" if training else "eval"
        if name == "Dropout" and training:
            _check_dropout(ms_out, x, args[0])
            continue
        _close(ms_out, expected, f"{mode} output")
        if gx_t is not None:
            _close(gx_m, gx_t, f"{mode} input gradient")
        state = {
            n: ms_name
            for n, ms_name in _renamed(torch_layer, name).items()
            if n in grads_t
        }
        assert set(grads_m) == set(state.values()), f"{mode} parameter gradients"
        for torch_name, ms_name in state.items():
            _close(
                grads_m[ms_name],
                _layout(name, grads_t[torch_name]),
                f"{mode} gradient of {torch_name}",
            )
        _check_statistics(torch_layer, ms_layer, name, mode)


def _renamed(torch_layer, name: str) -> dict[str, str]:
    state = {k: v.detach().numpy() for k, v in torch_layer.named_parameters()}
    converted = convert_state(state, lambda prefix: "torch.nn." + name)
    return {e.source: e.name for e in converted.entries}


def _layout(name: str, array):
    return np.expand_dims(array, 2) if name == "Conv1d" and array.ndim == 3 else array


def _check_statistics(torch_layer, ms_layer, name: str, mode: str) -> None:
    if not name.startswith("BatchNorm"):
        return
    if torch_layer.running_mean is None:
        assert ms_layer.running_mean is None and ms_layer.running_var is None
        return
    _close(
        ms_layer.moving_mean.asnumpy(),
        torch_layer.running_mean.numpy(),
        f"{mode} running_mean",
    )
    _close(
        ms_layer.moving_variance.asnumpy(),
        torch_layer.running_var.numpy(),
        f"{mode} running_var",
    )
    assert int(ms_layer.num_batches_tracked) == int(torch_layer.num_batches_tracked)


def _check_dropout(out, x, p: float) -> None:
    kept = out != 0
    np.testing.assert_allclose(out[kept], x[kept] / (1 - p), rtol=1e-6)
    assert 0 < kept.sum() < kept.size or x.size < 4


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"reduction": "sum"},
        {"ignore_index": 0, "label_smoothing": 0.1},
        {"reduce": False},
    ],
    ids=["default", "sum", "ignore-smoothing", "legacy-reduce"],
)
def test_cross_entropy_loss_matches_torch(fw, aux, kwargs):
    torch, ms = fw
    rng = np.random.default_rng(3)
    logits = rng.standard_normal((4, 5)).astype(np.float32)
    labels = np.array([1, 0, 4, 2], dtype=np.int64)
    weight = rng.uniform(0.5, 2.0, 5).astype(np.float32)
    expected = torch.nn.CrossEntropyLoss(torch.tensor(weight), **kwargs)(
        torch.tensor(logits), torch.tensor(labels)
    )
    got = aux.CrossEntropyLoss(ms.Tensor(weight), **kwargs)(
        ms.Tensor(logits), ms.Tensor(labels)
    )
    np.testing.assert_allclose(got.asnumpy(), expected.numpy(), rtol=1e-5, atol=1e-6)
    probabilities = rng.dirichlet(np.ones(5), 4).astype(np.float32)
    expected = torch.nn.CrossEntropyLoss()(
        torch.tensor(logits), torch.tensor(probabilities)
    )
    got = aux.CrossEntropyLoss()(ms.Tensor(logits), ms.Tensor(probabilities))
    np.testing.assert_allclose(got.asnumpy(), expected.numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"scale_factor": 2, "mode": "nearest"},
        {"scale_factor": (2, 3), "mode": "nearest"},
        {"scale_factor": 2, "mode": "bilinear", "align_corners": False},
        {"size": (5, 7), "mode": "bilinear", "align_corners": True},
    ],
    ids=["int", "tuple", "bilinear", "size"],
)
def test_upsample_matches_torch(fw, aux, kwargs):
    torch, ms = fw
    x = np.random.default_rng(4).standard_normal((1, 2, 3, 4)).astype(np.float32)
    expected = torch.nn.Upsample(**kwargs)(torch.tensor(x)).numpy()
    layer = aux.Upsample(**kwargs)
    assert isinstance(layer, ms.nn.Upsample)
    np.testing.assert_allclose(
        layer(ms.Tensor(x)).asnumpy(), expected, rtol=1e-5, atol=1e-5
    )


def test_module_dict_holds_containers_with_torchs_parameter_names(fw, tmp_path):
    """`nn.ModuleDict(dict(h=nn.ModuleList([...])))`: the companion ModuleDict holds the CellList
    MindSpore's CellDict refuses, and names its parameters as torch's ModuleDict does."""
    torch, ms = fw
    path = tmp_path / "ms_aux_containers.py"
    path.write_text(assemble(["ModuleDict"]), encoding="utf-8")
    spec = importlib.util.spec_from_file_location("ms_aux_containers", path)
    aux = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(aux)
    with pytest.raises(TypeError):
        ms.nn.CellDict(dict(h=ms.nn.CellList([ms.nn.Dense(2, 2)])))
    ours = aux.ModuleDict(
        dict(wte=ms.nn.Dense(3, 2), h=ms.nn.CellList([ms.nn.Dense(2, 2)]))
    )
    theirs = torch.nn.ModuleDict(
        dict(wte=torch.nn.Linear(3, 2), h=torch.nn.ModuleList([torch.nn.Linear(2, 2)]))
    )
    assert [n for n, _ in ours.parameters_and_names()] == [
        n for n, _ in theirs.named_parameters()
    ]
    assert isinstance(ours, ms.nn.CellDict)
    assert list(ours.keys()) == list(theirs.keys())
    assert isinstance(ours.h, ms.nn.CellList) and isinstance(ours["wte"], ms.nn.Dense)
    with pytest.raises(TypeError):
        aux.ModuleDict(dict(x=3))
