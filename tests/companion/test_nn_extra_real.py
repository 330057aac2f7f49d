"""The companion's alpha dropout, adaptive max pooling, multi-label margin and triplet losses,
lazy layers, attention backend selection and Module member walks against real torch, and layers
that leave numpy's generator as torch's do."""

from __future__ import annotations

import importlib.util
import sys

import numpy as np
import pytest
from torch2ms.rules.companion import assemble
from torch2ms.rules.companion.table_conv_transpose import ENTRIES as CONV_T
from torch2ms.rules.companion.table_lazy import ENTRIES as LAZY
from torch2ms.rules.companion.table_nn_extra import ENTRIES
from torch2ms.rules.companion.table_resampling import ENTRIES as RESAMPLING
from torch2ms.rules.companion.table_sdpa_backends import ENTRIES as SDPA

pytestmark = pytest.mark.real

MEMBERS = [
    "named_parameters",
    "named_buffers",
    "module_buffers",
    "module_cast",
    "MultiheadAttention",
]


@pytest.fixture(scope="module")
def aux(fw, tmp_path_factory):
    path = tmp_path_factory.mktemp("companion") / "ms_aux_nn_extra.py"
    names = {
        *ENTRIES.values(),
        *LAZY.values(),
        *SDPA.values(),
        *CONV_T.values(),
        *RESAMPLING.values(),
        *MEMBERS,
    }
    path.write_text(assemble(sorted(names)), encoding="utf-8")
    spec = importlib.util.spec_from_file_location("ms_aux_nn_extra", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["ms_aux_nn_extra"] = module
    spec.loader.exec_module(module)
    return module


def _randn(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


@pytest.mark.parametrize(
    ("rank", "shape", "size"),
    [
        (1, (1, 2, 8), 5),
        (1, (2, 3, 7), 3),
        (2, (2, 3, 5, 7), (3, None)),
        (2, (1, 2, 6, 6), 4),
        (3, (2, 3, 4, 5, 3), (2, 3, 2)),
        (3, (1, 1, 2, 2, 2), 1),
    ],
)
def test_adaptive_max_pool_values_and_indices(fw, aux, rank, shape, size) -> None:
    torch, ms = fw
    x = _randn(*shape)
    name = f"adaptive_max_pool{rank}d"
    want, want_indices = getattr(torch.nn.functional, name)(torch.tensor(x), size, True)
    have, indices = getattr(aux, name)(ms.Tensor(x), size, True)
    np.testing.assert_array_equal(have.asnumpy(), want.numpy())
    np.testing.assert_array_equal(indices.asnumpy(), want_indices.numpy())
    assert indices.dtype == ms.int64
    layer = getattr(aux, f"AdaptiveMaxPool{rank}d")(size)
    np.testing.assert_array_equal(layer(ms.Tensor(x)).asnumpy(), want.numpy())


def test_adaptive_max_pool_gradient_reaches_the_maxima(fw, aux) -> None:
    torch, ms = fw
    x = _randn(2, 3, 8)
    leaf = torch.tensor(x, requires_grad=True)
    torch.nn.functional.adaptive_max_pool1d(leaf, 5).sum().backward()
    grad = ms.grad(lambda t: aux.adaptive_max_pool1d(t, 5).sum())(ms.Tensor(x))
    np.testing.assert_array_equal(grad.asnumpy(), leaf.grad.numpy())


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_multilabel_margin_loss(fw, aux, reduction) -> None:
    torch, ms = fw
    x = _randn(4, 5)
    # Targets end at the first -1; a repeated class counts twice, as in torch's kernel.
    y = np.array(
        [[3, 0, -1, 1, 1], [-1, 2, 2, 2, 2], [4, 3, 2, 1, 0], [1, 1, -1, 0, 0]],
        dtype=np.int64,
    )
    want = torch.nn.functional.multilabel_margin_loss(
        torch.tensor(x), torch.tensor(y), reduction=reduction
    )
    have = aux.multilabel_margin_loss(ms.Tensor(x), ms.Tensor(y), reduction=reduction)
    np.testing.assert_allclose(have.asnumpy(), want.numpy(), rtol=1e-6, atol=1e-6)
    legacy = aux.MultiLabelMarginLoss(size_average=False)(ms.Tensor(x), ms.Tensor(y))
    expected = torch.nn.MultiLabelMarginLoss(size_average=False)(
        torch.tensor(x), torch.tensor(y)
    )
    np.testing.assert_allclose(legacy.asnumpy(), expected.numpy(), rtol=1e-6)
    single = aux.multilabel_margin_loss(ms.Tensor(x[2]), ms.Tensor(y[2]))
    assert single.shape == ()
    np.testing.assert_allclose(
        single.asnumpy(),
        torch.nn.functional.multilabel_margin_loss(
            torch.tensor(x[2]), torch.tensor(y[2])
        ).numpy(),
        rtol=1e-6,
    )


def test_alpha_dropout_keeps_mean_and_variance(fw, aux) -> None:
    """In evaluation the identity; in training each unit is either scaled or the shifted
    saturation value, and a standard normal input keeps mean 0 and variance 1 (torch's
    constants: SELU's saturation and the affine correction)."""
    torch, ms = fw
    x = _randn(400, 500)
    np.testing.assert_array_equal(aux.alpha_dropout(ms.Tensor(x)).asnumpy(), x)
    layer = aux.AlphaDropout(0.3)
    np.testing.assert_array_equal(layer(ms.Tensor(x)).asnumpy(), x)
    layer.set_train()
    out = layer(ms.Tensor(x)).asnumpy()
    reference = torch.nn.AlphaDropout(0.3)(torch.tensor(x)).numpy()

    def saturation(values):
        found, counts = np.unique(values, return_counts=True)
        return found[counts.argmax()], counts.max() / values.size

    (want_value, want_share), (value, share) = saturation(reference), saturation(out)
    np.testing.assert_allclose(value, want_value, rtol=1e-6)
    assert abs(share - want_share) < 0.01
    assert abs(out.mean() - reference.mean()) < 0.02
    assert abs(out.std() - reference.std()) < 0.02


def test_feature_alpha_dropout_drops_whole_channels(fw, aux) -> None:
    _, ms = fw
    layer = aux.FeatureAlphaDropout(0.5)
    layer.set_train()
    out = layer(ms.Tensor(_randn(8, 16, 3, 3))).asnumpy()
    flat = out.reshape(8, 16, -1)
    constant = np.all(np.isclose(flat, flat[..., :1]), axis=-1)
    assert constant.any() and not constant.all()
    np.testing.assert_array_equal(
        aux.feature_alpha_dropout(
            ms.Tensor(np.ones((2, 3), np.float32)), 1.0, True
        ).asnumpy(),
        np.zeros((2, 3)),
    )


def _pair(fw):
    torch, ms = fw

    class TorchNet(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.inner = torch.nn.Linear(2, 3)
            self.shared = self.inner
            self.scale = torch.nn.Parameter(torch.ones(3))
            self.register_buffer("mean", torch.zeros(3))

    class MsNet(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.inner = ms.nn.Dense(2, 3)
            self.shared = self.inner
            self.scale = ms.Parameter(ms.ops.ones(3))
            self.mean = ms.Parameter(ms.ops.zeros(3), requires_grad=False)

    return TorchNet(), MsNet()


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"prefix": "net"},
        {"recurse": False},
        {"remove_duplicate": False},
        {"prefix": "p", "recurse": True, "remove_duplicate": False},
    ],
)
def test_member_walks_follow_torchs_arguments(fw, aux, kwargs) -> None:
    torch_net, ms_net = _pair(fw)
    want = [name for name, _ in torch_net.named_parameters(**kwargs)]
    have = [name for name, _ in aux.named_parameters(ms_net, **kwargs)]
    assert have == want
    want = [name for name, _ in torch_net.named_buffers(**kwargs)]
    assert [name for name, _ in aux.named_buffers(ms_net, **kwargs)] == want
    recurse = kwargs.get("recurse", True)
    assert len(list(aux.module_buffers(ms_net, recurse))) == len(
        list(torch_net.buffers(recurse))
    )


def test_multihead_attention_leaves_numpys_generator_alone(fw, aux) -> None:
    """Weights drawn from numpy after building the layer are the ones torch's script draws."""
    torch, _ = fw
    np.random.seed(3)
    torch.nn.MultiheadAttention(8, 2)
    want = np.random.random(4)
    np.random.seed(3)
    first = aux.MultiheadAttention(8, 2)
    np.testing.assert_array_equal(np.random.random(4), want)
    second = aux.MultiheadAttention(8, 2)
    assert not np.array_equal(
        first.in_proj_weight.asnumpy(), second.in_proj_weight.asnumpy()
    )


@pytest.mark.parametrize("swap", [False, True])
def test_triplet_margin_with_distance_loss(fw, aux, swap) -> None:
    torch, ms = fw
    a, p, n = _randn(4, 6, seed=1), _randn(4, 6, seed=2), _randn(4, 6, seed=3)
    want = torch.nn.TripletMarginWithDistanceLoss(swap=swap, margin=2.0)(
        torch.tensor(a), torch.tensor(p), torch.tensor(n)
    )
    have = aux.TripletMarginWithDistanceLoss(swap=swap, margin=2.0)(
        ms.Tensor(a), ms.Tensor(p), ms.Tensor(n)
    )
    np.testing.assert_allclose(have.asnumpy(), want.numpy(), rtol=1e-5)
    want = torch.nn.functional.triplet_margin_with_distance_loss(
        torch.tensor(a),
        torch.tensor(p),
        torch.tensor(n),
        distance_function=lambda x, y: (x - y).abs().sum(-1),
        reduction="none",
    )
    have = aux.triplet_margin_with_distance_loss(
        ms.Tensor(a),
        ms.Tensor(p),
        ms.Tensor(n),
        distance_function=lambda x, y: (x - y).abs().sum(-1),
        reduction="none",
    )
    np.testing.assert_allclose(have.asnumpy(), want.numpy(), rtol=1e-5)


@pytest.mark.parametrize(
    ("name", "shape", "kwargs"),
    [
        ("LazyInstanceNorm1d", (2, 3, 5), {}),
        ("LazyInstanceNorm2d", (2, 3, 4, 4), {"affine": False}),
        ("LazyInstanceNorm3d", (1, 2, 3, 3, 3), {"track_running_stats": False}),
        ("LazyBatchNorm1d", (4, 3), {}),
        ("LazyBatchNorm2d", (2, 3, 4, 4), {"momentum": 0.3}),
        ("LazyLinear", (2, 5), {"out_features": 3}),
    ],
)
def test_lazy_layers_take_their_width_from_the_first_input(
    fw, aux, name, shape, kwargs
) -> None:
    torch, ms = fw
    x = _randn(*shape)
    torch_layer = getattr(torch.nn, name)(**kwargs)
    layer = getattr(aux, name)(**kwargs)
    layer.set_train()
    assert not list(layer.get_parameters())
    have = layer(ms.Tensor(x))
    want = torch_layer(torch.tensor(x))
    assert type(layer).__name__ == type(torch_layer).__name__
    assert layer.training
    assert sorted(p.shape for p in layer.get_parameters()) == sorted(
        tuple(t.shape) for t in torch_layer.state_dict().values() if t.ndim
    )
    if name != "LazyLinear":  # random initial weights
        np.testing.assert_allclose(
            have.asnumpy(), want.detach().numpy(), rtol=1e-4, atol=1e-5
        )
    else:
        assert have.shape == tuple(want.shape)


def test_attention_backends_as_torch_names_and_selects_them(fw, aux) -> None:
    torch, _ = fw
    backends = torch.nn.attention
    for member in backends.SDPBackend.__members__.values():
        mine = getattr(aux.SDPBackend, member.name)
        assert (repr(mine), mine.value, int(mine)) == (
            repr(member),
            member.value,
            int(member),
        )
    assert [b.name for b in aux._cur_sdpa_kernel_backends()] == [
        b.name for b in backends._cur_sdpa_kernel_backends()
    ]
    chosen = [backends.SDPBackend.EFFICIENT_ATTENTION, backends.SDPBackend.MATH]
    with backends.sdpa_kernel(chosen):
        want = [b.name for b in backends._cur_sdpa_kernel_backends()]
    with aux.sdpa_kernel([getattr(aux.SDPBackend, b.name) for b in chosen]):
        assert [b.name for b in aux._cur_sdpa_kernel_backends()] == want
    assert len(aux._cur_sdpa_kernel_backends()) == 5


def test_flex_attention_mask_combinators(fw, aux) -> None:
    torch, ms = fw
    from torch.nn.attention import flex_attention

    def causal(b, h, q, kv):
        return q >= kv

    def first_head(b, h, q, kv):
        return h == 0

    index = [
        np.array([0, 1, 0, 1]),
        np.array([0, 0, 1, 1]),
        np.array([2, 1, 0, 3]),
        np.array([1, 1, 1, 1]),
    ]
    for combine in ("and_masks", "or_masks"):
        want = getattr(flex_attention, combine)(causal, first_head)(
            *map(torch.tensor, index)
        )
        have = getattr(aux, combine)(causal, first_head)(*map(ms.Tensor, index))
        np.testing.assert_array_equal(have.asnumpy(), want.numpy())
    assert bool(aux.noop_mask(0, 0, 0, 0)) is True


@pytest.mark.parametrize(
    ("name", "args", "kwargs", "shape"),
    [
        (
            "ConvTranspose1d",
            (8, 12, 3),
            {"stride": 2, "padding": 1, "output_padding": 1},
            (2, 8, 7),
        ),
        ("ConvTranspose1d", (4, 6, 5, 1, 4, 0, 2, True, 3, "zeros"), {}, (2, 4, 9)),
        (
            "ConvTranspose2d",
            (4, 6, (3, 5)),
            {"stride": (2, 1), "padding": (2, 1)},
            (1, 4, 5, 6),
        ),
        (
            "ConvTranspose2d",
            (4, 4, 3),
            {"groups": 2, "bias": False, "dilation": 2},
            (2, 4, 4, 4),
        ),
    ],
)
def test_transposed_convolution_layers(fw, aux, name, args, kwargs, shape) -> None:
    torch, ms = fw
    torch_layer = getattr(torch.nn, name)(*args, **kwargs)
    layer = getattr(aux, name)(*args, **kwargs)
    assert [(p.name, p.shape) for p in layer.get_parameters()] == [
        (n, tuple(t.shape)) for n, t in torch_layer.named_parameters()
    ]
    bound = 1 / np.sqrt(torch_layer.weight.shape[1] * np.prod(torch_layer.kernel_size))
    assert np.abs(layer.weight.asnumpy()).max() <= bound
    for n, t in torch_layer.named_parameters():
        getattr(layer, n).set_data(ms.Tensor(t.detach().numpy()))
    x = _randn(*shape)
    want = torch_layer(torch.tensor(x)).detach().numpy()
    np.testing.assert_allclose(
        layer(ms.Tensor(x)).asnumpy(), want, rtol=1e-5, atol=1e-5
    )


@pytest.mark.parametrize(
    ("name", "padding", "shape"),
    [
        ("CircularPad1d", (2, 1), (2, 3, 5)),
        ("CircularPad2d", 1, (1, 2, 3, 3)),
        ("CircularPad3d", (1, 0, 2, 1, 0, 1), (1, 2, 3, 4, 3)),
        ("ReflectionPad3d", 1, (1, 1, 2, 2, 2)),
        ("ReflectionPad3d", (2, 0, 1, 1, 0, 2), (2, 1, 3, 3, 4)),
    ],
)
def test_padding_layers(fw, aux, name, padding, shape) -> None:
    torch, ms = fw
    x = _randn(*shape)
    torch_layer, layer = getattr(torch.nn, name)(padding), getattr(aux, name)(padding)
    assert layer.padding == torch_layer.padding
    want = torch_layer(torch.tensor(x)).numpy()
    np.testing.assert_array_equal(layer(ms.Tensor(x)).asnumpy(), want)


def test_upsampling_and_channel_shuffle(fw, aux) -> None:
    torch, ms = fw
    F = torch.nn.functional
    x = _randn(1, 6, 3, 4)
    for args in [((5, 7), None), (None, 2)]:
        np.testing.assert_allclose(
            aux.upsample_nearest(ms.Tensor(x), *args).asnumpy(),
            F.upsample_nearest(torch.tensor(x), *args).numpy(),
        )
        np.testing.assert_allclose(
            aux.UpsamplingBilinear2d(*args)(ms.Tensor(x)).asnumpy(),
            torch.nn.UpsamplingBilinear2d(*args)(torch.tensor(x)).numpy(),
            rtol=1e-5,
            atol=1e-6,
        )
    for groups in (2, 3):
        np.testing.assert_array_equal(
            aux.channel_shuffle(ms.Tensor(x), groups).asnumpy(),
            F.channel_shuffle(torch.tensor(x), groups).numpy(),
        )


@pytest.mark.parametrize(
    ("rank", "shape", "kernel", "kwargs"),
    [
        (2, (2, 3, 9, 7), 2, {"output_size": (4, 3)}),
        (2, (1, 2, 5, 5), (2, 3), {"output_ratio": (0.6, 0.5)}),
        (2, (2, 7, 6), 3, {"output_size": 2}),
        (3, (1, 2, 6, 5, 7), 2, {"output_size": (3, 2, 4)}),
    ],
)
def test_fractional_max_pool_with_torchs_samples(
    fw, aux, rank, shape, kernel, kwargs
) -> None:
    torch, ms = fw
    x = _randn(*shape)
    batch, channels = (1, shape[0]) if len(shape) == rank + 1 else shape[:2]
    samples = (
        np.random.default_rng(5).random((batch, channels, rank)).astype(np.float32)
    )
    name = f"fractional_max_pool{rank}d"
    want, want_indices = getattr(torch.nn.functional, name)(
        torch.tensor(x),
        kernel,
        return_indices=True,
        _random_samples=torch.tensor(samples),
        **kwargs,
    )
    have, indices = getattr(aux, name)(
        ms.Tensor(x),
        kernel,
        return_indices=True,
        _random_samples=ms.Tensor(samples),
        **kwargs,
    )
    np.testing.assert_array_equal(have.asnumpy(), want.numpy())
    np.testing.assert_array_equal(indices.asnumpy(), want_indices.numpy())


@pytest.mark.parametrize(
    ("method", "dtype"), [("double", "float64"), ("half", "float16")]
)
def test_module_cast_casts_parameters_and_buffers(fw, aux, method, dtype) -> None:
    torch_net, ms_net = _pair(fw)
    ms_net.register_buffer("steps", fw[1].Tensor(np.arange(3, dtype=np.int64)))
    assert aux.module_cast(ms_net, method) is ms_net
    getattr(torch_net, method)()
    named = [*torch_net.named_parameters(), *torch_net.named_buffers()]
    want = {n: str(t.dtype).split(".")[-1] for n, t in named}
    have = {n: str(p.dtype).lower() for n, p in aux.named_parameters(ms_net)}
    have.update({n: str(p.dtype).lower() for n, p in aux.named_buffers(ms_net)})
    assert have.pop("steps") == "int64"
    assert have == want
    assert set(have.values()) == {dtype}


@pytest.mark.parametrize(
    ("p", "margin", "weighted", "reduction"),
    [(1, 1.0, False, "mean"), (2, 0.5, True, "sum"), (1, 2.0, True, "none")],
)
def test_multi_margin_loss(fw, aux, p, margin, weighted, reduction) -> None:
    torch, ms = fw
    x, y = _randn(4, 5), np.array([0, 3, 4, 1], dtype=np.int64)
    w = np.abs(_randn(5, seed=4)) if weighted else None
    want = torch.nn.MultiMarginLoss(
        p, margin, None if w is None else torch.tensor(w), reduction=reduction
    )(torch.tensor(x), torch.tensor(y))
    have = aux.MultiMarginLoss(
        p, margin, None if w is None else ms.Tensor(w), reduction=reduction
    )(ms.Tensor(x), ms.Tensor(y))
    np.testing.assert_allclose(have.asnumpy(), want.numpy(), rtol=1e-5, atol=1e-6)
    single = aux.multi_margin_loss(ms.Tensor(x[1]), ms.Tensor(y[1:2]), p, margin)
    expected = torch.nn.functional.multi_margin_loss(
        torch.tensor(x[1]), torch.tensor(y[1:2]), p, margin
    )
    np.testing.assert_allclose(single.asnumpy(), expected.numpy(), rtol=1e-5)
