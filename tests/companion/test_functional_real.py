"""The companion functions (rules/companion/library/functional.py) against real torch.

Each entry is taken from an assembled companion module, as a converted tree gets it, and run on
MindSpore (PyNative, CPU) beside torch on the same inputs, with the shapes and arguments timm
passes: forward values, and gradients with respect to every float input (torch autograd against
`mindspore.grad`, with the same random cotangent).
"""

from __future__ import annotations

import importlib.util
import warnings

import numpy as np
import pytest
from torch2ms.rules.companion import assemble
from torch2ms.rules.companion.table_functional import ENTRIES

pytestmark = pytest.mark.real

RTOL, ATOL = 1e-5, 1e-5


@pytest.fixture(scope="module")
def aux(fw, tmp_path_factory):
    folder = tmp_path_factory.mktemp("companion")
    path = folder / "ms_aux_functional.py"
    path.write_text(assemble(sorted(set(ENTRIES.values()))), encoding="utf-8")
    spec = importlib.util.spec_from_file_location("ms_aux_functional", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _rng(seed: int = 0) -> np.random.Generator:
    return np.random.default_rng(seed)


def check(fw, torch_fn, ms_fn, arrays, grad=True, rtol=RTOL, atol=ATOL, seed=1):
    """Compare forward values, and gradients w.r.t. the float arrays, of the two functions."""
    torch, ms = fw
    floats = [i for i, a in enumerate(arrays) if a.dtype.kind == "f"]
    t_in = [
        torch.tensor(a, requires_grad=grad and i in floats)
        for i, a in enumerate(arrays)
    ]
    expected = torch_fn(*t_in)
    m_in = [ms.Tensor(a) for a in arrays]
    got = ms_fn(*m_in)
    np.testing.assert_allclose(
        got.asnumpy(), expected.detach().numpy(), rtol=rtol, atol=atol
    )
    if not grad:
        return
    cotangent = (
        _rng(seed).standard_normal(tuple(expected.shape)).astype(arrays[0].dtype)
    )
    expected.backward(torch.tensor(cotangent))
    weight = ms.Tensor(cotangent)

    def loss(*inputs):
        return (ms_fn(*inputs) * weight).sum()

    grads = ms.grad(loss, grad_position=tuple(floats))(*m_in)
    grads = grads if isinstance(grads, tuple) else (grads,)
    for index, value in zip(floats, grads):
        np.testing.assert_allclose(
            value.asnumpy(),
            t_in[index].grad.numpy(),
            rtol=rtol,
            atol=atol,
            err_msg=f"gradient of input {index}",
        )


def randn(*shape, seed=0):
    return _rng(seed).standard_normal(shape).astype(np.float32)


# -- einsum -----------------------------------------------------------------------------------
EINSUMS = [
    ("bhwc,hkc->bhwk", (2, 3, 4, 5), (3, 6, 5)),  # vision_transformer_sam
    ("bhwc,wkc->bhwk", (2, 3, 4, 5), (4, 6, 5)),
    ("bnc,nkc->bnk", (2, 3, 4), (3, 5, 4)),
    ("bnd,hkd->bnhk", (2, 5, 4), (3, 6, 4)),  # attention2d (MQA)
    ("bmd,dk->bmk", (2, 5, 4), (4, 6)),
    ("bnhk,bmk->bnhm", (2, 5, 3, 4), (2, 6, 4)),
    ("bnhm,bmv->bnhv", (2, 5, 3, 6), (2, 6, 4)),
    ("bnhv,dhv->bdn", (2, 5, 3, 4), (7, 3, 4)),
    ("blhk,bpk->blhp", (2, 5, 3, 4), (2, 6, 4)),
    ("blhp,bpk->blhk", (2, 5, 3, 6), (2, 6, 4)),
    ("nhw,ixh->nixw", (2, 3, 4), (5, 6, 3)),  # pos_embed_rel
    ("nixw,jyw->nijxy", (2, 5, 6, 4), (7, 8, 4)),
    ("ij,jk", (3, 4), (4, 5)),  # implicit output
    ("i,j->ij", (3,), (4,)),
    ("ij,ij->", (3, 4), (3, 4)),
    ("bij,bjk->bik", (1, 3, 4), (3, 4, 5)),  # a batch axis broadcast
    ("ij,kj->jik", (3, 4), (5, 4)),
    ("ijk,jl->li", (2, 3, 4), (3, 5)),  # k summed before the product
]


@pytest.mark.parametrize(("equation", "a", "b"), EINSUMS, ids=[e[0] for e in EINSUMS])
def test_einsum_two_operands(fw, aux, equation, a, b) -> None:
    torch, _ = fw
    check(
        fw,
        lambda x, y: torch.einsum(equation, x, y),
        lambda x, y: aux.einsum(equation, x, y),
        [randn(*a, seed=1), randn(*b, seed=2)],
    )


def test_einsum_operands_as_a_list(fw, aux) -> None:
    torch, _ = fw  # convit: torch.einsum('nm,hnm->h', (distances, attn_map))
    check(
        fw,
        lambda x, y: torch.einsum("nm,hnm->h", (x, y)),
        lambda x, y: aux.einsum("nm,hnm->h", (x, y)),
        [randn(4, 4), randn(3, 4, 4, seed=3)],
    )


@pytest.mark.parametrize("equation", ["ij->ji", "ijk->i", "ij->", "bchw->bhwc", "ij"])
def test_einsum_one_operand(fw, aux, equation) -> None:
    torch, _ = fw
    shape = (2, 3, 4, 5)[: len(equation.split("->")[0])]
    check(
        fw,
        lambda x: torch.einsum(equation, x),
        lambda x: aux.einsum(equation, x),
        [randn(*shape)],
    )


def test_einsum_three_operands(fw, aux) -> None:
    torch, _ = fw
    check(
        fw,
        lambda x, y, z: torch.einsum("ij,jk,kl->il", x, y, z),
        lambda x, y, z: aux.einsum("ij,jk,kl->il", x, y, z),
        [randn(2, 3), randn(3, 4, seed=1), randn(4, 5, seed=2)],
    )


@pytest.mark.parametrize("equation", ["ii->i", "ii", "bii,bij->bj", "iji->j"])
def test_einsum_takes_the_diagonal_of_a_repeated_index(fw, aux, equation) -> None:
    torch, _ = fw
    count = 1 + equation.count(",")
    check(
        fw,
        lambda *xs: torch.einsum(equation, *xs),
        lambda *xs: aux.einsum(equation, *xs),
        [_einsum_operand(equation, i) for i in range(count)],
    )


def _einsum_operand(equation, index):
    term = equation.split("->")[0].split(",")[index]
    return randn(*([3] * len(term)), seed=index)


@pytest.mark.parametrize("equation", ["...ij,jk->...ik"])
def test_einsum_refuses_what_it_does_not_support(fw, aux, equation) -> None:
    _, ms = fw
    operands = [ms.Tensor(randn(3, 3, 3)[: 1 + equation.count(",")])] * (
        1 + equation.count(",")
    )
    with pytest.raises(NotImplementedError, match=equation.replace(".", r"\.")):
        aux.einsum(equation, *operands)


# -- roll -------------------------------------------------------------------------------------
ROLLS = [
    ((-2, -3), (1, 2)),  # swin: cyclic shift of the windows, and back
    ((2, 3), (1, 2)),
    (3, None),
    (-1, 0),
    (9, -1),
    ((1, 1), (1, 1)),
]


@pytest.mark.parametrize(("shifts", "dims"), ROLLS, ids=[str(r) for r in ROLLS])
def test_roll(fw, aux, shifts, dims) -> None:
    torch, _ = fw
    check(
        fw,
        lambda x: torch.roll(x, shifts, dims),
        lambda x: aux.roll(x, shifts, dims),
        [randn(2, 5, 6, 3)],
    )


# -- normalisation ----------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("shape", "normalized", "affine", "eps"),
    [
        ((2, 5, 8), (8,), True, 1e-5),
        ((2, 5, 8), [5, 8], True, 1e-6),
        ((2, 4, 3, 8), (8,), False, 1e-6),  # LayerNorm2d: channels last after a permute
    ],
)
def test_layer_norm(fw, aux, shape, normalized, affine, eps) -> None:
    torch, _ = fw
    params = tuple(normalized)
    arrays = [randn(*shape)]
    if affine:
        arrays += [randn(*params, seed=1) + 1, randn(*params, seed=2)]
    check(
        fw,
        lambda x, *wb: torch.nn.functional.layer_norm(x, normalized, *wb, eps=eps),
        lambda x, *wb: aux.layer_norm(x, normalized, *wb, eps=eps),
        arrays,
        rtol=1e-4,
    )


@pytest.mark.parametrize("eps", [None, 1e-6])
@pytest.mark.parametrize("affine", [True, False])
def test_rms_norm(fw, aux, eps, affine) -> None:
    torch, _ = fw
    arrays = [randn(2, 5, 8)] + ([randn(8, seed=1)] if affine else [])
    check(
        fw,
        lambda x, *w: torch.nn.functional.rms_norm(x, (8,), *w, eps=eps),
        lambda x, *w: aux.rms_norm(x, (8,), *w, eps=eps),
        arrays,
        rtol=1e-4,
    )


def test_rms_norm_default_eps_is_torchs(fw, aux) -> None:
    torch, ms = fw
    tiny = np.full((2, 4), 1e-5, np.float32)
    for dtype in (np.float32, np.float64):
        expected = torch.nn.functional.rms_norm(torch.tensor(tiny.astype(dtype)), (4,))
        got = aux.rms_norm(ms.Tensor(tiny.astype(dtype)), (4,))
        np.testing.assert_allclose(got.asnumpy(), expected.numpy(), rtol=1e-5)


@pytest.mark.parametrize(
    ("shape", "p", "dim"),
    [((2, 3, 5, 8), 2.0, -1), ((2, 6, 4), 2.0, 1), ((3, 8), 1.0, -1)],
)
def test_normalize(fw, aux, shape, p, dim) -> None:
    torch, _ = fw
    check(
        fw,
        lambda x: torch.nn.functional.normalize(x, p=p, dim=dim),
        lambda x: aux.normalize(x, p=p, dim=dim),
        [randn(*shape)],
        rtol=1e-4,
    )


def test_normalize_of_a_zero_vector_divides_by_eps(fw, aux) -> None:
    torch, _ = fw
    x = randn(3, 4)
    x[1] = 0.0
    check(
        fw,
        lambda x: torch.nn.functional.normalize(x, dim=-1, eps=1e-6),
        lambda x: aux.normalize(x, dim=-1, eps=1e-6),
        [x],
        grad=False,
    )


@pytest.mark.parametrize("affine", [True, False])
def test_group_norm(fw, aux, affine) -> None:
    torch, _ = fw
    arrays = [randn(2, 6, 4, 4)] + (
        [randn(6, seed=1) + 1, randn(6, seed=2)] if affine else []
    )
    check(
        fw,
        lambda x, *wb: torch.nn.functional.group_norm(x, 3, *wb, eps=1e-5),
        lambda x, *wb: aux.group_norm(x, 3, *wb, eps=1e-5),
        arrays,
        rtol=1e-4,
    )


def _stats(seed=3, channels=3):
    mean = randn(channels, seed=seed)
    var = np.abs(randn(channels, seed=seed + 1)) + 0.5
    return mean, var


@pytest.mark.parametrize("shape", [(4, 3, 5, 5), (6, 3), (4, 3, 7)])
def test_batch_norm_eval(fw, aux, shape) -> None:
    torch, ms = fw
    mean, var = _stats()
    check(
        fw,
        lambda x, w, b: torch.nn.functional.batch_norm(
            x, torch.tensor(mean), torch.tensor(var), w, b, False, 0.1, 1e-5
        ),
        lambda x, w, b: aux.batch_norm(
            x, ms.Tensor(mean), ms.Tensor(var), w, b, False, 0.1, 1e-5
        ),
        [randn(*shape), randn(3, seed=1), randn(3, seed=2)],
        rtol=1e-4,
    )


@pytest.mark.parametrize("shape", [(4, 3, 5, 5), (6, 3), (4, 3, 7)])
def test_batch_norm_training_updates_running_stats(fw, aux, shape) -> None:
    torch, ms = fw
    mean, var = _stats()
    x, w, b = randn(*shape), randn(3, seed=1), randn(3, seed=2)
    t_mean, t_var = torch.tensor(mean), torch.tensor(var)
    expected = torch.nn.functional.batch_norm(
        torch.tensor(x), t_mean, t_var, torch.tensor(w), torch.tensor(b), True, 0.3
    )
    m_mean = ms.Parameter(ms.Tensor(mean), name="running_mean")
    m_var = ms.Parameter(ms.Tensor(var), name="running_var")
    got = aux.batch_norm(
        ms.Tensor(x), m_mean, m_var, ms.Tensor(w), ms.Tensor(b), True, 0.3
    )
    np.testing.assert_allclose(got.asnumpy(), expected.numpy(), rtol=1e-4, atol=ATOL)
    np.testing.assert_allclose(m_mean.asnumpy(), t_mean.numpy(), rtol=1e-5, atol=ATOL)
    np.testing.assert_allclose(m_var.asnumpy(), t_var.numpy(), rtol=1e-5, atol=ATOL)
    # Gradients in training mode (statistics of the batch), on copies of the statistics.
    check(
        fw,
        lambda x, w, b: torch.nn.functional.batch_norm(
            x, torch.tensor(mean), torch.tensor(var), w, b, True, 0.3
        ),
        lambda x, w, b: aux.batch_norm(
            x, ms.Tensor(mean), ms.Tensor(var), w, b, True, 0.3
        ),
        [x, w, b],
        rtol=1e-4,
        atol=1e-4,
    )


@pytest.mark.parametrize("gain", [True, False])
def test_batch_norm_weight_standardisation(fw, aux, gain) -> None:
    """timm's StdConv2d / ScaledStdConv2d: no running statistics, momentum 0, training=True."""
    torch, _ = fw
    arrays = [randn(1, 8, 27)] + ([randn(8, seed=1)] if gain else [])
    check(
        fw,
        lambda x, *g: torch.nn.functional.batch_norm(
            x, None, None, *g, training=True, momentum=0.0, eps=1e-6
        ),
        lambda x, *g: aux.batch_norm(
            x, None, None, *g, training=True, momentum=0.0, eps=1e-6
        ),
        arrays,
        rtol=1e-4,
        atol=1e-4,
    )


# -- attention --------------------------------------------------------------------------------
def _attention_inputs(batch=(2, 3), length=5, source=7, dim=8, value_dim=6):
    return [
        randn(*batch, length, dim, seed=1),
        randn(*batch, source, dim, seed=2),
        randn(*batch, source, value_dim, seed=3),
    ]


def _sdpa_pair(fw, aux, mask=None, **kwargs):
    torch, ms = fw
    t_mask = None if mask is None else torch.tensor(mask)
    m_mask = None if mask is None else ms.Tensor(mask)
    return (
        lambda q, k, v: torch.nn.functional.scaled_dot_product_attention(
            q, k, v, attn_mask=t_mask, **kwargs
        ),
        lambda q, k, v: aux.scaled_dot_product_attention(
            q, k, v, attn_mask=m_mask, **kwargs
        ),
    )


@pytest.mark.parametrize(
    "kwargs",
    [{}, {"scale": 0.3}, {"is_causal": True}, {"dropout_p": 0.0}],
    ids=["plain", "scale", "causal", "no-dropout"],
)
def test_sdpa(fw, aux, kwargs) -> None:
    check(fw, *_sdpa_pair(fw, aux, **kwargs), _attention_inputs(), rtol=1e-4)


def test_sdpa_causal_square_and_three_dims(fw, aux) -> None:
    check(
        fw,
        *_sdpa_pair(fw, aux, is_causal=True),
        _attention_inputs(batch=(4,), length=6, source=6),
        rtol=1e-4,
    )


@pytest.mark.parametrize("shape", [(5, 7), (2, 1, 5, 7), (2, 3, 5, 7)])
def test_sdpa_boolean_mask_marks_what_takes_part(fw, aux, shape) -> None:
    mask = _rng(4).random(shape) > 0.3
    mask[..., 0] = True
    check(fw, *_sdpa_pair(fw, aux, mask), _attention_inputs(), rtol=1e-4)


def test_sdpa_fully_masked_rows_give_zeros(fw, aux) -> None:
    mask = _rng(4).random((5, 7)) > 0.3
    mask[2] = False
    check(fw, *_sdpa_pair(fw, aux, mask), _attention_inputs(), rtol=1e-4)


def test_sdpa_float_mask_of_minus_infinity_rows(fw, aux) -> None:
    mask = randn(5, 7, seed=5)
    mask[1] = -np.inf
    mask[3, 2:] = -np.inf
    check(fw, *_sdpa_pair(fw, aux, mask), _attention_inputs(), rtol=1e-4)


def test_sdpa_refuses_a_mask_with_is_causal_as_torch_does(fw, aux) -> None:
    torch, ms = fw
    mask = np.ones((5, 7), np.bool_)
    q, k, v = _attention_inputs()
    with pytest.raises(RuntimeError, match="is_causal"):
        torch.nn.functional.scaled_dot_product_attention(
            *(torch.tensor(a, requires_grad=True) for a in (q, k, v)),
            attn_mask=torch.tensor(mask),
            is_causal=True,
        )
    with pytest.raises(ValueError, match="is_causal"):
        aux.scaled_dot_product_attention(
            *(ms.Tensor(a) for a in (q, k, v)),
            attn_mask=ms.Tensor(mask),
            is_causal=True,
        )


def test_sdpa_additive_float_mask(fw, aux) -> None:
    mask = randn(2, 1, 5, 7, seed=5)
    check(fw, *_sdpa_pair(fw, aux, mask), _attention_inputs(), rtol=1e-4)


def test_sdpa_dropout_applies_whenever_p_is_positive(fw, aux) -> None:
    _, ms = fw
    q, k, _ = _attention_inputs(source=400)
    ones = np.ones((2, 3, 400, 6), np.float32)
    out = aux.scaled_dot_product_attention(
        ms.Tensor(q), ms.Tensor(k), ms.Tensor(ones), dropout_p=0.5
    ).asnumpy()
    # Without dropout every output is exactly 1 (the weights sum to 1); dropout zeroes weights
    # and rescales the rest by 1 / (1 - p), so outputs scatter around 1.
    assert np.isfinite(out).all()
    assert np.abs(out - 1.0).max() > 1e-3
    assert abs(out.mean() - 1.0) < 0.1


def test_sdpa_enable_gqa_is_refused(fw, aux) -> None:
    _, ms = fw
    q, k, v = (ms.Tensor(a) for a in _attention_inputs())
    with pytest.raises(NotImplementedError, match="enable_gqa"):
        aux.scaled_dot_product_attention(q, k, v, enable_gqa=True)


# -- fold -------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("shape", "output_size", "kwargs"),
    [
        ((2, 4 * 9, 9), (6, 6), {"kernel_size": 3, "padding": 1, "stride": 2}),  # volo
        ((2, 3 * 4, 16), 8, {"kernel_size": 2, "stride": 2}),
        ((3 * 4, 9), (4, 4), {"kernel_size": 2, "stride": 1}),
    ],
)
def test_fold(fw, aux, shape, output_size, kwargs) -> None:
    torch, _ = fw
    check(
        fw,
        lambda x: torch.nn.functional.fold(x, output_size, **kwargs),
        lambda x: aux.fold(x, output_size, **kwargs),
        [randn(*shape)],
    )


# -- interpolate ------------------------------------------------------------------------------
RESIZES = [
    ("nearest", None, (5, 6), None),
    ("nearest", None, (10, 13), None),
    ("nearest", None, None, 2),
    ("nearest", None, None, 1.5),
    ("nearest", None, None, (0.5, 2.0)),
    ("nearest-exact", None, (10, 13), None),
    ("bilinear", False, (5, 6), None),
    ("bilinear", True, (10, 13), None),
    ("bilinear", None, None, 2),
    ("bilinear", False, None, 0.6),
    ("bicubic", False, (5, 6), None),
    ("bicubic", False, (14, 18), None),
    ("bicubic", True, (10, 13), None),
    ("bicubic", False, None, 2.5),
    ("area", None, (3, 4), None),
    ("area", None, (10, 13), None),
]


@pytest.mark.parametrize(
    ("mode", "align_corners", "size", "scale"),
    RESIZES,
    ids=[f"{m}-{a}-{s}-{f}" for m, a, s, f in RESIZES],
)
def test_interpolate_2d(fw, aux, mode, align_corners, size, scale) -> None:
    torch, _ = fw
    kwargs = {"size": size, "scale_factor": scale, "mode": mode}
    if align_corners is not None:
        kwargs["align_corners"] = align_corners
    check(
        fw,
        lambda x: torch.nn.functional.interpolate(x, **kwargs),
        lambda x: aux.interpolate(x, **kwargs),
        [randn(2, 3, 7, 9)],
        rtol=1e-4,
    )


@pytest.mark.parametrize("mode", ["bilinear", "bicubic"])
@pytest.mark.parametrize(
    ("size", "align_corners"),
    [
        ((5, 6), False),
        ((3, 4), False),
        ((12, 20), False),
        ((5, 6), True),
        ((7, 9), False),
    ],
)
def test_interpolate_antialias(fw, aux, mode, size, align_corners) -> None:
    torch, _ = fw
    kwargs = {
        "size": size,
        "mode": mode,
        "align_corners": align_corners,
        "antialias": True,
    }
    check(
        fw,
        lambda x: torch.nn.functional.interpolate(x, **kwargs),
        lambda x: aux.interpolate(x, **kwargs),
        [randn(2, 3, 7, 9)],
        rtol=1e-4,
    )


def test_interpolate_position_embedding_resample(fw, aux) -> None:
    """timm's resample_abs_pos_embed: a 14x14 grid of embeddings to 24x24, bicubic, antialiased."""
    torch, _ = fw
    kwargs = {"size": (24, 24), "mode": "bicubic", "antialias": True}
    check(
        fw,
        lambda x: torch.nn.functional.interpolate(x, **kwargs),
        lambda x: aux.interpolate(x, **kwargs),
        [randn(1, 16, 14, 14)],
        rtol=1e-4,
    )


@pytest.mark.parametrize(
    ("mode", "shape", "kwargs"),
    [
        ("linear", (2, 3, 7), {"size": 12, "align_corners": False}),
        ("linear", (2, 3, 7), {"scale_factor": 2, "align_corners": True}),
        ("nearest", (2, 3, 7), {"size": 10}),
        ("trilinear", (1, 2, 3, 4, 5), {"size": (5, 6, 7), "align_corners": False}),
        ("nearest", (1, 2, 3, 4, 5), {"scale_factor": 2}),
        (
            "bilinear",
            (2, 3, 7, 9),
            {"scale_factor": 1.7, "recompute_scale_factor": True},
        ),
    ],
)
def test_interpolate_other_ranks(fw, aux, mode, shape, kwargs) -> None:
    torch, _ = fw
    check(
        fw,
        lambda x: torch.nn.functional.interpolate(x, mode=mode, **kwargs),
        lambda x: aux.interpolate(x, mode=mode, **kwargs),
        [randn(*shape)],
        rtol=1e-4,
    )


def test_interpolate_refuses_what_torch_refuses(fw, aux) -> None:
    _, ms = fw
    x = ms.Tensor(randn(2, 3, 7))
    with pytest.raises(NotImplementedError, match="bilinear"):
        aux.interpolate(x, size=4, mode="bilinear")
    with pytest.raises(ValueError, match="align_corners"):
        aux.interpolate(x, size=4, mode="nearest", align_corners=False)


# -- unique -----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"return_counts": True},
        {"return_inverse": True},
        {"return_inverse": True, "return_counts": True},
    ],
)
@pytest.mark.parametrize(
    "array",
    [
        np.array(
            [[48, 96, 48], [240, 96, 48]], np.int64
        ),  # regnet: the widths of its stages
        np.array([5.0, 1.0, 5.0, 2.0, 1.0, -3.0], np.float32),
    ],
    ids=["int64", "float32"],
)
def test_unique(fw, aux, array, kwargs) -> None:
    torch, ms = fw
    expected = torch.unique(torch.tensor(array), **kwargs)
    got = aux.unique(ms.Tensor(array), **kwargs)
    expected = expected if isinstance(expected, tuple) else (expected,)
    got = got if isinstance(got, tuple) else (got,)
    assert len(got) == len(expected)
    for want, have in zip(expected, got):
        assert have.asnumpy().dtype == want.numpy().dtype
        np.testing.assert_array_equal(have.asnumpy(), want.numpy())


# -- avg_pool2d -------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("shape", "args", "kwargs"),
    [
        (
            (2, 3, 7, 9),
            ((3, 3), (2, 2), (0, 0), True, False),
            {},
        ),  # timm's AvgPool2dSame
        ((2, 3, 7, 9), ((2, 2), (2, 2), (0, 0), True, True), {}),
        ((2, 3, 7, 9), (3,), {"stride": 2, "padding": (1, 0)}),
        ((2, 3, 7, 9), (3, 1, 1), {"count_include_pad": False}),
        ((3, 7, 9), (2,), {}),
    ],
)
def test_avg_pool2d(fw, aux, shape, args, kwargs) -> None:
    torch, _ = fw
    check(
        fw,
        lambda x: torch.nn.functional.avg_pool2d(x, *args, **kwargs),
        lambda x: aux.avg_pool2d(x, *args, **kwargs),
        [randn(*shape)],
    )


ACTIVATION_VALUES = [
    ("relu", {}),
    ("relu6", {}),
    ("leaky_relu", {"negative_slope": 0.2}),
    ("elu", {"alpha": 0.5}),
    ("celu", {"alpha": 0.7}),
    ("selu", {}),
    ("silu", {}),
    ("mish", {}),
    ("hardsigmoid", {}),
    ("hardswish", {}),
]


@pytest.mark.parametrize(("name", "kwargs"), ACTIVATION_VALUES)
def test_activation_kept_as_a_value(fw, aux, name, kwargs) -> None:
    torch, _ = fw
    x = (_rng(3).standard_normal((4, 6)) * 4).astype(np.float32)
    # MindSpore's mish gradient kernel differs from torch's by up to 6e-5 at |x| ~ 8 (float32).
    tolerance = 1e-4 if name == "mish" else ATOL
    check(
        fw,
        lambda t: getattr(torch.nn.functional, name)(t, **kwargs),
        lambda t: getattr(aux, name)(t, **kwargs),
        [x],
        rtol=tolerance,
        atol=tolerance,
    )


IN_PLACE = [
    *ACTIVATION_VALUES,
    ("hardtanh", {"min_val": -0.5, "max_val": 2.0}),
    ("threshold", {"threshold": 0.1, "value": 20.0}),
]


@pytest.mark.parametrize(("name", "kwargs"), IN_PLACE)
def test_activation_inplace_writes_the_input(fw, aux, name, kwargs) -> None:
    """`inplace=True`: the input holds the result afterwards, the result is the input, and the
    gradient through both matches torch's."""
    torch, ms = fw
    x = (_rng(4).standard_normal((3, 5)) * 3).astype(np.float32)
    cotangent = _rng(5).standard_normal((3, 5)).astype(np.float32)
    leaf = torch.tensor(x, requires_grad=True)
    inner = leaf * 2
    out = getattr(torch.nn.functional, name)(inner, **kwargs, inplace=True)
    assert out is inner
    written = inner.detach().numpy().copy()
    (out * torch.tensor(cotangent)).sum().backward()

    def forward(w):
        inner = w * 2
        result = getattr(aux, name)(inner, **kwargs, inplace=True)
        assert result is inner
        return (result * ms.Tensor(cotangent)).sum(), inner

    (_, ms_written), grad = ms.value_and_grad(forward, 0, None, has_aux=True)(
        ms.Tensor(x)
    )
    tolerance = 1e-4 if name == "mish" else ATOL
    np.testing.assert_allclose(ms_written.asnumpy(), written, rtol=RTOL, atol=tolerance)
    np.testing.assert_allclose(
        grad.asnumpy(), leaf.grad.numpy(), rtol=tolerance, atol=tolerance
    )


@pytest.mark.parametrize(
    ("name", "args"),
    [
        ("relu_", ()),
        ("leaky_relu_", (0.2,)),
        ("elu_", (0.5,)),
        ("hardtanh_", (-0.5, 1.0)),
    ],
)
def test_functional_inplace_forms(fw, aux, name, args) -> None:
    torch, ms = fw
    x = (_rng(6).standard_normal((2, 4)) * 3).astype(np.float32)
    expected = torch.tensor(x)
    getattr(torch.nn.functional, name)(expected, *args)
    got = ms.Tensor(x)
    assert getattr(aux, name)(got, *args) is got
    np.testing.assert_allclose(got.asnumpy(), expected.numpy(), rtol=RTOL, atol=ATOL)


@pytest.mark.parametrize("bounds", [(), (0.1, 0.3)])
def test_rrelu_outside_training_uses_the_mean_slope(fw, aux, bounds) -> None:
    torch, ms = fw
    x = (_rng(7).standard_normal((3, 4)) * 2).astype(np.float32)
    check(
        fw,
        lambda t: torch.nn.functional.rrelu(t, *bounds),
        lambda m: aux.rrelu(m, *bounds),
        [x],
    )
    drawn = aux.rrelu(ms.Tensor(x), 0.1, 0.3, training=True).asnumpy()
    negative = x < 0
    slopes = drawn[negative] / x[negative]
    assert np.all((slopes >= 0.1 - 1e-6) & (slopes <= 0.3 + 1e-6))
    np.testing.assert_array_equal(drawn[~negative], x[~negative])


def test_normalize_writes_out(fw, aux) -> None:
    torch, ms = fw
    x = _rng(8).standard_normal((3, 4)).astype(np.float32)
    want = torch.empty(3, 4)
    torch.nn.functional.normalize(torch.tensor(x), dim=0, out=want)
    out = ms.ops.zeros((3, 4))
    assert aux.normalize(ms.Tensor(x), dim=0, out=out) is out
    np.testing.assert_allclose(out.asnumpy(), want.numpy(), rtol=RTOL, atol=ATOL)


@pytest.mark.parametrize(
    ("shape", "kwargs"),
    [((2, 3, 4), {}), ((3, 4), {"dim": 1, "dtype": "float64"}), ((4,), {"dim": 0})],
)
def test_log_softmax_with_torch_arguments(fw, aux, shape, kwargs) -> None:
    torch, ms = fw
    x = (_rng(9).standard_normal(shape) * 5).astype(np.float32)
    t_kwargs = dict(kwargs)
    m_kwargs = dict(kwargs)
    if "dtype" in kwargs:
        t_kwargs["dtype"] = getattr(torch, kwargs["dtype"])
        m_kwargs["dtype"] = getattr(ms, kwargs["dtype"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch's implicit-dim notice
        want = torch.nn.functional.log_softmax(torch.tensor(x), **t_kwargs).numpy()
    have = aux.log_softmax(ms.Tensor(x), **m_kwargs).asnumpy()
    assert have.dtype == want.dtype
    np.testing.assert_allclose(have, want, rtol=1e-5, atol=1e-6)


def test_normalize_resizes_out(fw, aux) -> None:
    torch, ms = fw
    x = _rng(10).standard_normal((2, 3)).astype(np.float32)
    want = torch.empty(1)
    torch.nn.functional.normalize(torch.tensor(x), out=want)
    out = ms.ops.zeros(1)
    aux.normalize(ms.Tensor(x), out=out)
    np.testing.assert_allclose(out.asnumpy(), want.numpy(), rtol=RTOL, atol=ATOL)
