"""The parameter-setting entries of the companion module (library/parameters.py) against torch."""

from __future__ import annotations

import importlib.util
import sys

import numpy as np
import pytest
from torch2ms.rules.companion import assemble
from torch2ms.rules.companion.table_parameters import ENTRIES

pytestmark = pytest.mark.real
RTOL, ATOL = 1e-5, 1e-5


@pytest.fixture(scope="module")
def aux(fw, tmp_path_factory):
    names = sorted(
        set(ENTRIES.values())
        | {"reset_parameters", "Conv2d", "BatchNorm2d", "Conv1d", "Linear"}
        | {"LayerNorm", "GroupNorm", "Embedding", "ReLU"}
    )
    path = tmp_path_factory.mktemp("aux") / "ms_aux_parameters.py"
    path.write_text(assemble(names), encoding="utf-8")
    spec = importlib.util.spec_from_file_location("ms_aux_parameters", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _torch_pair(torch, dims: int, bias: bool, groups: int):
    torch.manual_seed(0)
    conv_class = torch.nn.Conv2d if dims == 2 else torch.nn.Conv1d
    norm_class = torch.nn.BatchNorm2d if dims == 2 else torch.nn.BatchNorm1d
    conv = conv_class(4, 6, 3, padding=1, groups=groups, bias=bias)
    bn = norm_class(6, eps=1e-3)
    with torch.no_grad():
        bn.weight.uniform_(0.5, 1.5)
        bn.bias.uniform_(-1, 1)
        bn.running_mean.uniform_(-1, 1)
        bn.running_var.uniform_(0.5, 2)
    return conv.eval(), bn.eval()


def _copy(ms, conv, bn, ms_conv, ms_bn) -> None:
    weight = conv.weight.detach().numpy()
    ms_conv.weight.set_data(ms.Tensor(weight.reshape(ms_conv.weight.shape)))
    if conv.bias is not None:
        ms_conv.bias.set_data(ms.Tensor(conv.bias.detach().numpy()))
    for torch_name, ms_name in (
        ("weight", "gamma"),
        ("bias", "beta"),
        ("running_mean", "moving_mean"),
        ("running_var", "moving_variance"),
    ):
        getattr(ms_bn, ms_name).set_data(
            ms.Tensor(getattr(bn, torch_name).detach().numpy())
        )


@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("groups", [1, 2])
@pytest.mark.parametrize("layers", ["idiom", "companion"])
def test_fuse_conv_bn_eval_matches_torch(aux, fw, bias, groups, layers) -> None:
    torch, ms = fw
    conv, bn = _torch_pair(torch, 2, bias, groups)
    if layers == "idiom":
        ms_conv = ms.nn.Conv2d(
            4, 6, 3, pad_mode="pad", padding=1, group=groups, has_bias=bias
        )
        ms_bn = ms.nn.BatchNorm2d(6, eps=1e-3)
    else:
        ms_conv = aux.Conv2d(4, 6, 3, padding=1, groups=groups, bias=bias)
        ms_bn = aux.BatchNorm2d(6, eps=1e-3)
    _copy(ms, conv, bn, ms_conv, ms_bn)
    ms_conv.set_train(False)
    ms_bn.set_train(False)
    fused = torch.nn.utils.fusion.fuse_conv_bn_eval(conv, bn)
    got = aux.fuse_conv_bn_eval(ms_conv, ms_bn)
    np.testing.assert_allclose(
        got.weight.asnumpy(), fused.weight.detach().numpy(), rtol=RTOL, atol=ATOL
    )
    np.testing.assert_allclose(
        got.bias.asnumpy(), fused.bias.detach().numpy(), rtol=RTOL, atol=ATOL
    )
    data = np.random.RandomState(1).standard_normal((2, 4, 7, 7)).astype(np.float32)
    expected = fused(torch.tensor(data)).detach().numpy()
    np.testing.assert_allclose(
        got(ms.Tensor(data)).asnumpy(), expected, rtol=1e-4, atol=1e-5
    )
    # The original convolution is left as it was, as torch's is.
    np.testing.assert_allclose(
        ms_conv.weight.asnumpy().reshape(conv.weight.shape),
        conv.weight.detach().numpy(),
    )
    assert ms_conv.has_bias == bias
    assert got.weight.requires_grad == fused.weight.requires_grad


def test_fuse_conv_bn_eval_of_a_1d_convolution(aux, fw) -> None:
    torch, ms = fw
    conv, bn = _torch_pair(torch, 1, True, 1)
    ms_conv, ms_bn = aux.Conv1d(4, 6, 3, padding=1), ms.nn.BatchNorm1d(6, eps=1e-3)
    _copy(ms, conv, bn, ms_conv, ms_bn)
    fused = torch.nn.utils.fusion.fuse_conv_bn_eval(conv, bn)
    got = aux.fuse_conv_bn_eval(ms_conv, ms_bn)
    data = np.random.RandomState(2).standard_normal((2, 4, 9)).astype(np.float32)
    np.testing.assert_allclose(
        got(ms.Tensor(data)).asnumpy(),
        fused(torch.tensor(data)).detach().numpy(),
        rtol=1e-4,
        atol=1e-5,
    )


def test_fuse_conv_bn_weights_transposed_matches_torch(aux, fw) -> None:
    torch, ms = fw
    rng = np.random.RandomState(3)
    w = rng.standard_normal((6, 4, 3, 3)).astype(np.float32)  # (in, out, kh, kw)
    stats = [rng.uniform(0.5, 1.5, 4).astype(np.float32) for _ in range(4)]
    expected = torch.nn.utils.fusion.fuse_conv_bn_weights(
        torch.tensor(w), None, *map(torch.tensor, stats[:2]), 1e-5,
        *map(torch.tensor, stats[2:]), transpose=True,
    )  # fmt: skip
    got = aux.fuse_conv_bn_weights(
        ms.Tensor(w), None, *map(ms.Tensor, stats[:2]), 1e-5,
        *map(ms.Tensor, stats[2:]), transpose=True,
    )  # fmt: skip
    for g, e in zip(got, expected):
        np.testing.assert_allclose(
            g.asnumpy(), e.detach().numpy(), rtol=RTOL, atol=ATOL
        )


def test_fusion_needs_evaluation_mode(aux, fw) -> None:
    torch, _ = fw
    conv, bn = _torch_pair(torch, 2, True, 1)
    with pytest.raises(AssertionError):
        torch.nn.utils.fusion.fuse_conv_bn_eval(conv.train(), bn)
    ms_conv, ms_bn = aux.Conv2d(4, 6, 3, padding=1), aux.BatchNorm2d(6)
    ms_conv.set_train(True)
    with pytest.raises(AssertionError):
        aux.fuse_conv_bn_eval(ms_conv, ms_bn)


# -- initializers: fills through views, statistics of torch's draws --------------------------------
EXPERTS, EXPERT_SHAPE = 4, (48, 16, 3, 3)


def _experts(ms, torch):
    size = int(np.prod(EXPERT_SHAPE))
    return (
        torch.zeros(EXPERTS, size),
        ms.Parameter(ms.Tensor(np.zeros((EXPERTS, size), np.float32)), name="w"),
    )


@pytest.mark.parametrize(
    ("name", "args"),
    [("constant_", (0.375,)), ("ones_", ()), ("zeros_", ())],
)
def test_fills_of_a_view_reach_the_parameter_as_in_torch(aux, fw, name, args) -> None:
    torch, ms = fw
    expected = torch.full((3, 8), 2.0)
    weight = ms.Parameter(ms.Tensor(np.full((3, 8), 2.0, np.float32)), name="w")
    getattr(torch.nn.init, name)(expected[1].view(2, 4), *args)
    returned = getattr(aux, "init_" + name)(weight[1].view((2, 4)), *args)
    np.testing.assert_array_equal(weight.asnumpy(), expected.numpy())
    assert tuple(returned.shape) == (2, 4)


def _per_expert(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    return np.abs(values).max(axis=1), values.std(axis=1)


@pytest.mark.parametrize(
    ("name", "kwargs"),
    [
        ("kaiming_uniform_", {"a": 5**0.5}),
        ("kaiming_uniform_", {"mode": "fan_out", "nonlinearity": "relu"}),
        ("kaiming_normal_", {}),
        ("kaiming_normal_", {"a": 0.2, "mode": "fan_out"}),
        ("xavier_uniform_", {"gain": 2.0}),
        ("xavier_normal_", {}),
        ("uniform_", {"a": -0.5, "b": 0.25}),
        ("normal_", {"mean": 0.5, "std": 0.2}),
        ("trunc_normal_", {"std": 0.5, "a": -0.4, "b": 0.6}),
    ],
)
def test_initializers_on_views_follow_torchs_statistics(aux, fw, name, kwargs) -> None:
    """timm's CondConv fills each expert's row through `weight[i].view(expert_shape)`: the fans
    are the view's. Each expert's draw has torch's spread (std within 3%, 18,432 draws each), its
    range, and every expert is filled."""
    torch, ms = fw
    torch.manual_seed(0)
    ms.set_seed(0)
    expected, weight = _experts(ms, torch)
    for i in range(EXPERTS):
        getattr(torch.nn.init, name)(expected[i].view(EXPERT_SHAPE), **kwargs)
        getattr(aux, "init_" + name)(weight[i].view(EXPERT_SHAPE), **kwargs)
    got, want = weight.asnumpy(), expected.numpy()
    (got_max, got_std), (want_max, want_std) = _per_expert(got), _per_expert(want)
    np.testing.assert_allclose(got_std, want_std, rtol=0.03)
    # the two means differ by about std * sqrt(2 / 18432) = 0.0104 std: five times that at most
    np.testing.assert_allclose(
        got.mean(axis=1), want.mean(axis=1), atol=0.055 * want_std.max()
    )
    if "uniform" in name or name == "trunc_normal_":
        # bounded draws: both reach (almost) the same bound, neither passes it
        np.testing.assert_allclose(got_max, want_max, rtol=0.01)
        assert got.min() >= want.min() - 1e-3 * want_max.max()
        assert got.max() <= want.max() + 1e-3 * want_max.max()
    assert (got != 0).mean() > 0.99


def test_fills_of_a_0d_tensor_reach_it(aux, fw) -> None:
    torch, ms = fw
    expected = torch.tensor(1.0)
    torch.nn.init.constant_(expected, 0.5)
    scalar = ms.Parameter(ms.Tensor(1.0), name="s")
    aux.init_constant_(scalar, 0.5)
    assert float(scalar.asnumpy()) == float(expected)


def test_fills_of_a_parameter_return_it(aux, fw) -> None:
    _, ms = fw
    weight = ms.Parameter(ms.Tensor(np.zeros((200, 50), np.float32)), name="w")
    assert aux.init_uniform_(weight, -0.25, 0.75) is weight
    values = weight.asnumpy()
    assert values.min() >= -0.25 and values.max() <= 0.75 and values.std() > 0.25


@pytest.mark.parametrize(
    ("nonlinearity", "param"),
    [
        ("linear", None),
        ("conv2d", None),
        ("sigmoid", None),
        ("tanh", None),
        ("relu", None),
        ("leaky_relu", None),
        ("leaky_relu", 0.2),
        ("leaky_relu", 5**0.5),
        ("selu", None),
    ],
)
def test_calculate_gain_is_torchs(aux, fw, nonlinearity, param) -> None:
    torch, _ = fw
    assert aux.calculate_gain(nonlinearity, param) == pytest.approx(
        torch.nn.init.calculate_gain(nonlinearity, param), rel=1e-12
    )


def test_initializers_refuse_what_they_cannot_reproduce(aux, fw) -> None:
    torch, ms = fw
    weight = ms.Parameter(ms.Tensor(np.zeros((4, 4), np.float32)), name="w")
    with pytest.raises(NotImplementedError, match="generator"):
        aux.init_kaiming_uniform_(weight, generator=object())
    with pytest.raises(ValueError):
        torch.nn.init.kaiming_uniform_(torch.zeros(4, 4), mode="fan_avg")
    with pytest.raises(ValueError):
        aux.init_kaiming_uniform_(weight, mode="fan_avg")
    with pytest.raises(ValueError):
        torch.nn.init.xavier_uniform_(torch.zeros(4))
    with pytest.raises(ValueError):
        aux.init_xavier_uniform_(ms.Tensor(np.zeros(4, np.float32)))


# -- reset_parameters: torch's re-initialisation of its built-in layers ----------------------------
def _disturb(ms, layer) -> None:
    for _, param in layer.parameters_and_names():
        param.set_data(ms.Tensor(np.full(param.shape, 3.0, np.float32)))


NORMS = [
    ("BatchNorm2d", (6,), lambda ms: ms.nn.BatchNorm2d(6)),
    ("BatchNorm2d", (6,), lambda ms: "BatchNorm2d"),
    ("LayerNorm", (6,), lambda ms: ms.nn.LayerNorm((6,))),
    ("LayerNorm", (6,), lambda ms: "LayerNorm"),
    ("GroupNorm", (2, 6), lambda ms: ms.nn.GroupNorm(2, 6)),
    ("GroupNorm", (2, 6), lambda ms: "GroupNorm"),
]
MS_NAMES = {"gamma": "weight", "beta": "bias", "moving_mean": "running_mean"}
MS_NAMES["moving_variance"] = "running_var"


@pytest.mark.parametrize(("name", "args", "build"), NORMS)
def test_norm_layers_reset_like_torch(aux, fw, name, args, build) -> None:
    torch, ms = fw
    expected = getattr(torch.nn, name)(*args)
    layer = build(ms)
    layer = getattr(aux, layer)(*args) if isinstance(layer, str) else layer
    with torch.no_grad():
        for tensor in expected.state_dict().values():
            tensor.fill_(3)
    _disturb(ms, layer)
    expected.reset_parameters()
    aux.reset_parameters(layer)
    state = expected.state_dict()
    for ms_name, param in layer.parameters_and_names():
        torch_name = MS_NAMES[ms_name.rsplit(".", 1)[-1]]
        np.testing.assert_array_equal(param.asnumpy(), state[torch_name].numpy())
    if getattr(layer, "num_batches_tracked", None) is not None:
        assert int(layer.num_batches_tracked) == int(state["num_batches_tracked"])


@pytest.mark.parametrize(
    ("name", "args", "build"),
    [
        ("Linear", (384, 256), lambda ms: ms.nn.Dense(384, 256)),
        ("Linear", (384, 256), lambda ms: "Linear"),
        (
            "Conv2d",
            (24, 256, 4),
            lambda ms: ms.nn.Conv2d(24, 256, 4, pad_mode="pad", has_bias=True),
        ),
        ("Conv2d", (24, 256, 4), lambda ms: "Conv2d"),
        ("Conv1d", (96, 256, 4), lambda ms: "Conv1d"),
    ],
)
def test_weighted_layers_reset_with_torchs_bounds(aux, fw, name, args, build) -> None:
    """The weight from kaiming_uniform_(a=sqrt(5)) and the bias from U(+-1/sqrt(fan_in)): each
    reaches torch's bound (98,304 and 256 draws) without passing it."""
    torch, ms = fw
    torch.manual_seed(0)
    ms.set_seed(0)
    expected = getattr(torch.nn, name)(*args)
    layer = build(ms)
    layer = getattr(aux, layer)(*args) if isinstance(layer, str) else layer
    _disturb(ms, layer)
    expected.reset_parameters()
    aux.reset_parameters(layer)
    for got, want, rtol in (
        (layer.weight.asnumpy(), expected.weight.detach().numpy(), 0.01),
        (layer.bias.asnumpy(), expected.bias.detach().numpy(), 0.03),
    ):
        bound = np.abs(want).max()
        assert np.abs(got).max() <= bound * (1 + rtol)
        assert np.abs(got).max() >= bound * (1 - rtol)
        np.testing.assert_allclose(got.std(), want.std(), rtol=0.1)


def test_embedding_resets_like_torch(aux, fw) -> None:
    torch, ms = fw
    expected = torch.nn.Embedding(4000, 8, padding_idx=3)
    layer = aux.Embedding(4000, 8, padding_idx=3)
    _disturb(ms, layer)
    expected.reset_parameters()
    aux.reset_parameters(layer)
    got, want = layer.weight.asnumpy(), expected.weight.detach().numpy()
    np.testing.assert_array_equal(got[3], want[3])
    np.testing.assert_allclose(got.std(), want.std(), rtol=0.05)


def test_a_layer_subclass_resets_through_its_base(aux, fw) -> None:
    """timm's ScaledStdConv2d calls `super().reset_parameters()` from its own."""
    _, ms = fw

    class Scaled(aux.Conv2d):
        def reset_parameters(self):
            self.touched = True
            super().reset_parameters()

    layer = Scaled(4, 6, 3)
    _disturb(ms, layer)
    aux.reset_parameters(layer)
    assert layer.touched and np.abs(layer.weight.asnumpy()).max() < 3.0


def test_a_layer_without_parameters_has_no_reset(aux, fw) -> None:
    torch, ms = fw
    with pytest.raises(AttributeError):
        torch.nn.ReLU().reset_parameters()
    with pytest.raises(AttributeError, match="reset_parameters"):
        aux.reset_parameters(aux.ReLU())
    with pytest.raises(AttributeError, match="reset_parameters"):
        aux.reset_parameters(ms.nn.ReLU())
