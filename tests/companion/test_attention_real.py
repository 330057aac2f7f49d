"""The companion attention and Transformer entries against torch, on the real frameworks.

Each case builds torch's class and the assembled companion class with the same constructor
arguments, loads torch's state_dict into the companion by torch's names (`load_state_dict`,
strict), and compares the outputs and the gradients of a weighted sum of the outputs with respect
to the inputs and every parameter. Dropout is off (evaluation) except where a test says so.
"""

from __future__ import annotations

import importlib.util
import sys

import numpy as np
import pytest
from torch2ms.rules.companion import assemble
from torch2ms.rules.companion.table_attention import ENTRIES

pytestmark = pytest.mark.real

RTOL, ATOL = 1e-5, 1e-5


def assembled(tmp_path_factory, module_name: str):
    """The companion module holding every attention entry and torch-style state dicts, written
    out and imported."""
    path = tmp_path_factory.mktemp("companion") / f"{module_name}.py"
    names = sorted(set(ENTRIES.values())) + [
        "load_state_dict",
        "state_dict",
        "LayerNorm",
    ]
    path.write_text(assemble(names), encoding="utf-8")
    spec = importlib.util.spec_from_file_location(module_name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def aux(fw, tmp_path_factory):
    return assembled(tmp_path_factory, "ms_aux_attention")


def _load(aux, torch_module, cell) -> None:
    state = {k: v.detach().numpy() for k, v in torch_module.state_dict().items()}
    missing, unexpected = aux.load_state_dict(cell, state)
    assert not missing and not unexpected


def _compare(fw, aux, torch_module, cell, inputs, call, tensors=None):
    """``call(module, *inputs)`` on both sides: every output, then the gradients of a weighted
    sum of the tensor outputs w.r.t. the float inputs and every parameter. ``tensors`` makes the
    non-differentiated arguments (masks) on each side."""
    torch, ms = fw
    _load(aux, torch_module, cell)
    torch_module.zero_grad(set_to_none=True)
    rng = np.random.default_rng(1)
    torch_in = [torch.tensor(a, requires_grad=True) for a in inputs]
    extra_t, extra_m = tensors(torch, ms) if tensors else ({}, {})
    expected = [o for o in call(torch_module, *torch_in, **extra_t) if o is not None]
    weights = [rng.standard_normal(tuple(e.shape)).astype(np.float32) for e in expected]
    sum((e * torch.tensor(w)).sum() for e, w in zip(expected, weights)).backward()

    def forward(*arrays):
        outputs = [o for o in call(cell, *arrays, **extra_m) if o is not None]
        return sum((o * ms.Tensor(w)).sum() for o, w in zip(outputs, weights))

    got = [
        o
        for o in call(cell, *[ms.Tensor(a) for a in inputs], **extra_m)
        if o is not None
    ]
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        np.testing.assert_allclose(
            g.asnumpy(), e.detach().numpy(), rtol=RTOL, atol=ATOL
        )
    params = dict(cell.parameters_and_names())
    grad_fn = ms.value_and_grad(
        forward, tuple(range(len(inputs))), list(params.values())
    )
    _, (input_grads, param_grads) = grad_fn(*[ms.Tensor(a) for a in inputs])
    input_grads = input_grads if isinstance(input_grads, tuple) else (input_grads,)
    for g, t in zip(input_grads, torch_in, strict=True):
        np.testing.assert_allclose(g.asnumpy(), t.grad.numpy(), rtol=RTOL, atol=1e-4)
    torch_grads = _torch_grads_by_ms_name(aux, torch_module, cell)
    for name, g in zip(params, param_grads, strict=True):
        np.testing.assert_allclose(
            g.asnumpy(), torch_grads[name], rtol=RTOL, atol=1e-4, err_msg=name
        )


def _torch_grads_by_ms_name(aux, torch_module, cell) -> dict:
    """torch's parameter gradients under the companion's parameter names (a norm's `gamma` is
    torch's `weight`): `state_dict` gives both names for the same Parameter."""
    by_id = {id(p): torch_name for torch_name, p in aux.state_dict(cell).items()}
    torch_params = dict(torch_module.named_parameters())
    return {
        name: torch_params[by_id[id(p)]].grad.numpy()
        for name, p in cell.parameters_and_names()
    }


def _mha_call(self_attention, **kwargs):
    if self_attention:
        return lambda m, x, **kw: m(x, x, x, **kw, **kwargs)
    return lambda m, q, k, v, **kw: m(q, k, v, **kw, **kwargs)


# (constructor kwargs, self-attention)
MHA_CONFIGS = [
    ({}, True),
    ({}, False),
    ({"batch_first": True}, True),
    ({"batch_first": True}, False),
    ({"kdim": 6, "vdim": 5}, False),
    ({"add_bias_kv": True, "add_zero_attn": True}, False),
    ({"bias": False, "batch_first": True}, True),
]
MASKS = ["none", "padding", "float", "bool", "both"]


def _masks(kind, batch, length, source):
    rng = np.random.default_rng(2)
    padding = np.zeros((batch, source), np.bool_)
    padding[1, 1::2] = True
    float_mask = rng.standard_normal((length, source)).astype(np.float32)
    bool_mask = np.triu(np.ones((length, source), np.bool_), 1)
    chosen = {
        "none": {},
        "padding": {"key_padding_mask": padding},
        "float": {"attn_mask": float_mask},
        "bool": {"attn_mask": bool_mask},
        "both": {"attn_mask": bool_mask, "key_padding_mask": padding},
    }[kind]
    return lambda torch, ms: (
        {k: torch.tensor(v) for k, v in chosen.items()},
        {k: ms.Tensor(v) for k, v in chosen.items()},
    )


@pytest.mark.parametrize("need_weights", [True, False])
@pytest.mark.parametrize("masks", MASKS)
@pytest.mark.parametrize(("kwargs", "self_attention"), MHA_CONFIGS)
def test_multihead_attention_matches_torch(
    fw, aux, kwargs, self_attention, masks, need_weights
) -> None:
    torch, _ = fw
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    batch, length, source = 2, 3, 3 if self_attention else 4
    first = kwargs.get("batch_first", False)

    def shaped(sequence, width):
        shape = (batch, sequence, width) if first else (sequence, batch, width)
        return rng.standard_normal(shape).astype(np.float32)

    if self_attention:
        inputs = [shaped(length, 8)]
    else:
        inputs = [
            shaped(length, 8),
            shaped(source, kwargs.get("kdim", 8)),
            shaped(source, kwargs.get("vdim", 8)),
        ]
    module = torch.nn.MultiheadAttention(8, 2, **kwargs).eval()
    cell = aux.MultiheadAttention(8, 2, **kwargs)
    cell.set_train(False)
    call = _mha_call(self_attention, need_weights=need_weights)
    _compare(fw, aux, module, cell, inputs, call, _masks(masks, batch, length, source))


@pytest.mark.parametrize("average", [True, False])
def test_attention_weights_per_head_and_unbatched_input(fw, aux, average) -> None:
    torch, ms = fw
    rng = np.random.default_rng(3)
    module = torch.nn.MultiheadAttention(8, 2).eval()
    cell = aux.MultiheadAttention(8, 2)
    _load(aux, module, cell)
    q, k = (rng.standard_normal((n, 8)).astype(np.float32) for n in (3, 5))
    padding = np.array([False, True, False, False, True])
    out, weights = module(
        torch.tensor(q),
        torch.tensor(k),
        torch.tensor(k),
        key_padding_mask=torch.tensor(padding),
        average_attn_weights=average,
    )
    got, got_weights = cell(
        ms.Tensor(q),
        ms.Tensor(k),
        ms.Tensor(k),
        key_padding_mask=ms.Tensor(padding),
        average_attn_weights=average,
    )
    np.testing.assert_allclose(
        got.asnumpy(), out.detach().numpy(), rtol=RTOL, atol=ATOL
    )
    np.testing.assert_allclose(
        got_weights.asnumpy(), weights.detach().numpy(), rtol=RTOL, atol=ATOL
    )


@pytest.mark.parametrize("need_weights", [True, False])
def test_causal_hint_and_rows_with_nothing_to_attend(fw, aux, need_weights) -> None:
    """`is_causal=True` with the causal mask, and a key_padding_mask that hides every key of a
    batch entry: torch's two paths give NaN (with weights) or the output bias (without)."""
    torch, ms = fw
    rng = np.random.default_rng(4)
    module = torch.nn.MultiheadAttention(8, 2).eval()
    with torch.no_grad():
        module.out_proj.bias.copy_(torch.randn(8))
    cell = aux.MultiheadAttention(8, 2)
    _load(aux, module, cell)
    x = rng.standard_normal((4, 2, 8)).astype(np.float32)
    causal = np.triu(np.ones((4, 4), np.bool_), 1)
    out, _ = module(
        *[torch.tensor(x)] * 3,
        attn_mask=torch.tensor(causal),
        is_causal=True,
        need_weights=need_weights,
    )
    got, _ = cell(
        *[ms.Tensor(x)] * 3,
        attn_mask=ms.Tensor(causal),
        is_causal=True,
        need_weights=need_weights,
    )
    np.testing.assert_allclose(
        got.asnumpy(), out.detach().numpy(), rtol=RTOL, atol=ATOL
    )
    hidden = np.zeros((2, 4), np.bool_)
    hidden[0] = True
    out, _ = module(
        *[torch.tensor(x)] * 3,
        key_padding_mask=torch.tensor(hidden),
        need_weights=need_weights,
    )
    got, _ = cell(
        *[ms.Tensor(x)] * 3,
        key_padding_mask=ms.Tensor(hidden),
        need_weights=need_weights,
    )
    np.testing.assert_allclose(
        got.asnumpy(), out.detach().numpy(), rtol=RTOL, atol=ATOL, equal_nan=True
    )
    assert np.isnan(got.asnumpy()).any() == need_weights


def test_parameter_names_shapes_and_initialisation_follow_torch(fw, aux) -> None:
    torch, _ = fw
    for kwargs in ({}, {"kdim": 6, "vdim": 5}, {"add_bias_kv": True}, {"bias": False}):
        module = torch.nn.MultiheadAttention(16, 4, **kwargs)
        cell = aux.MultiheadAttention(16, 4, **kwargs)
        names = {n: tuple(p.shape) for n, p in cell.parameters_and_names()}
        assert names == {n: tuple(p.shape) for n, p in module.state_dict().items()}
        for name, p in cell.parameters_and_names():
            value, reference = p.asnumpy(), module.state_dict()[name].numpy()
            if name.endswith("proj_weight"):
                fan_in, fan_out = reference.shape[1], reference.shape[0]
                bound = np.sqrt(
                    6.0 / (fan_in + fan_out)
                )  # torch's xavier_uniform bound
                assert np.abs(value).max() <= bound and np.abs(reference).max() <= bound
                assert np.abs(value).max() > 0.8 * bound
            if name in ("in_proj_bias", "out_proj.bias"):
                assert not value.any() and not reference.any()
        for attribute in (
            "embed_dim",
            "kdim",
            "vdim",
            "num_heads",
            "head_dim",
            "batch_first",
            "_qkv_same_embed_dim",
            "add_zero_attn",
            "dropout",
        ):
            assert getattr(cell, attribute) == getattr(module, attribute), attribute
        for absent in ("in_proj_weight", "q_proj_weight", "bias_k", "in_proj_bias"):
            assert (getattr(cell, absent) is None) == (getattr(module, absent) is None)


def test_errors_follow_torch(fw, aux) -> None:
    torch, ms = fw
    with pytest.raises(AssertionError):
        torch.nn.MultiheadAttention(10, 3)
    with pytest.raises(AssertionError, match="divisible"):
        aux.MultiheadAttention(10, 3)
    x = np.ones((3, 2, 8), np.float32)
    module, cell = torch.nn.MultiheadAttention(8, 2), aux.MultiheadAttention(8, 2)
    with pytest.raises(RuntimeError, match="Need attn_mask"):
        module(*[torch.tensor(x)] * 3, is_causal=True)
    with pytest.raises(RuntimeError, match="Need attn_mask"):
        cell(*[ms.Tensor(x)] * 3, is_causal=True)
    integer_mask = np.zeros((3, 3), np.int32)
    with pytest.raises(AssertionError, match="only bool and floating"):
        module(*[torch.tensor(x)] * 3, attn_mask=torch.tensor(integer_mask))
    with pytest.raises(AssertionError, match="only bool and floating"):
        cell(*[ms.Tensor(x)] * 3, attn_mask=ms.Tensor(integer_mask))
    with pytest.raises(RuntimeError, match="2D attn_mask"):
        cell(*[ms.Tensor(x)] * 3, attn_mask=ms.Tensor(np.zeros((3, 4), np.float32)))


def test_attention_dropout_acts_only_in_training(fw, aux) -> None:
    _, ms = fw
    cell = aux.MultiheadAttention(8, 2, dropout=0.5)
    x = ms.Tensor(
        np.random.default_rng(5).standard_normal((6, 2, 8)).astype(np.float32)
    )
    cell.set_train(False)
    _, kept = cell(x, x, x)
    np.testing.assert_allclose(kept.asnumpy().sum(-1), 1.0, rtol=1e-5)
    cell.set_train(True)
    _, dropped = cell(x, x, x, average_attn_weights=False)
    values = dropped.asnumpy()
    assert (values == 0).mean() > 0.2  # about half the weights are zeroed


def test_activation_functions_follow_torch(fw, aux) -> None:
    torch, ms = fw
    x = np.linspace(-3, 3, 13).astype(np.float32)
    for name in ("relu", "gelu"):
        ours = aux._get_activation_fn(name)(ms.Tensor(x)).asnumpy()
        theirs = torch.nn.modules.transformer._get_activation_fn(name)(torch.tensor(x))
        np.testing.assert_allclose(ours, theirs.numpy(), rtol=RTOL, atol=ATOL)
    with pytest.raises(RuntimeError, match="relu/gelu"):
        aux._get_activation_fn("tanh")
