"""The companion Transformer layers and stacks against torch, on the real frameworks: forward
values and gradients with torch's weights loaded by torch's names, torch's state_dict names, and
deep copies in the stacks."""

from __future__ import annotations

import numpy as np
import pytest
from test_attention_real import _compare, assembled

pytestmark = pytest.mark.real


@pytest.fixture(scope="module")
def aux(fw, tmp_path_factory):
    return assembled(tmp_path_factory, "ms_aux_transformer")


D_MODEL, HEADS, FEEDFORWARD = 8, 2, 16


def _decoder_masks(batch, length, source):
    causal = np.triu(np.full((length, length), -np.inf, np.float32), 1)
    memory_padding = np.zeros((batch, source), np.bool_)
    memory_padding[0, -2:] = True
    target_padding = np.zeros((batch, length), np.bool_)
    target_padding[1, -1] = True
    chosen = {
        "tgt_mask": causal,
        "memory_key_padding_mask": memory_padding,
        "tgt_key_padding_mask": target_padding,
    }
    return lambda torch, ms: (
        {k: torch.tensor(v) for k, v in chosen.items()},
        {k: ms.Tensor(v) for k, v in chosen.items()},
    )


def _inputs(batch_first, batch=2, length=3, source=5):
    rng = np.random.default_rng(0)
    shape = (
        (lambda n: (batch, n, D_MODEL))
        if batch_first
        else (lambda n: (n, batch, D_MODEL))
    )
    return [rng.standard_normal(shape(n)).astype(np.float32) for n in (length, source)]


LAYER_KWARGS = [
    {},
    {"norm_first": True},
    {"batch_first": True, "activation": "gelu"},
    {"bias": False, "layer_norm_eps": 1e-3},
]


def _activation(torch, kwargs, ours):
    """A callable activation on each side (torch's F.gelu, the companion's gelu)."""
    if kwargs.get("activation") != "callable":
        return kwargs
    return {
        **kwargs,
        "activation": ours._get_activation_fn("gelu")
        if ours
        else torch.nn.functional.gelu,
    }


@pytest.mark.parametrize("kwargs", LAYER_KWARGS + [{"activation": "callable"}])
@pytest.mark.parametrize("masked", [False, True])
def test_decoder_layer_matches_torch(fw, aux, kwargs, masked) -> None:
    torch, _ = fw
    torch.manual_seed(0)
    module = torch.nn.TransformerDecoderLayer(
        D_MODEL, HEADS, FEEDFORWARD, **_activation(torch, kwargs, None)
    ).eval()
    cell = aux.TransformerDecoderLayer(
        D_MODEL, HEADS, FEEDFORWARD, **_activation(torch, kwargs, aux)
    )
    cell.set_train(False)
    assert list(aux.state_dict(cell)) == list(module.state_dict())
    inputs = _inputs(kwargs.get("batch_first", False))
    masks = _decoder_masks(2, 3, 5) if masked else None
    _compare(
        fw, aux, module, cell, inputs, lambda m, t, mem, **kw: [m(t, mem, **kw)], masks
    )


@pytest.mark.parametrize("with_norm", [False, True])
def test_decoder_stack_matches_torch(fw, aux, with_norm) -> None:
    torch, _ = fw
    torch.manual_seed(0)
    layer = torch.nn.TransformerDecoderLayer(D_MODEL, HEADS, FEEDFORWARD)
    norm = torch.nn.LayerNorm(D_MODEL) if with_norm else None
    module = torch.nn.TransformerDecoder(layer, 2, norm=norm).eval()
    with torch.no_grad():  # the copies start equal, as in torch: make them differ
        for p in module.layers[1].parameters():
            p.add_(0.1 * torch.randn_like(p))
    cell_norm = aux.LayerNorm(D_MODEL) if with_norm else None
    cell = aux.TransformerDecoder(
        aux.TransformerDecoderLayer(D_MODEL, HEADS, FEEDFORWARD), 2, norm=cell_norm
    )
    cell.set_train(False)
    assert list(aux.state_dict(cell)) == list(module.state_dict())
    assert cell.num_layers == 2 and len(cell.layers) == 2
    _compare(
        fw,
        aux,
        module,
        cell,
        _inputs(False),
        lambda m, t, mem, **kw: [m(t, mem, **kw)],
        _decoder_masks(2, 3, 5),
    )


def test_stack_layers_are_copies(fw, aux) -> None:
    _, ms = fw
    layer = aux.TransformerDecoderLayer(D_MODEL, HEADS, FEEDFORWARD)
    stack = aux.TransformerDecoder(layer, 3)
    weights = [m.linear1.weight for m in stack.layers]
    assert len({id(w) for w in weights}) == 3 and all(
        w is not layer.linear1.weight for w in weights
    )
    np.testing.assert_array_equal(weights[0].asnumpy(), layer.linear1.weight.asnumpy())
    weights[0].set_data(ms.ops.zeros_like(weights[0]))
    assert weights[1].asnumpy().any() and layer.linear1.weight.asnumpy().any()
    names = [n for n, _ in stack.parameters_and_names()]
    assert len(names) == len(set(names)) and "layers.2.norm3.beta" in names
    assert len({p.name for _, p in stack.parameters_and_names()}) == len(names)


def test_decoder_stack_needs_torch_layer_attributes(fw, aux) -> None:
    """A layer without `self_attn` fails in torch's TransformerDecoder, and here alike."""
    torch, ms = fw

    class Plain(torch.nn.Module):
        def forward(self, tgt, memory, **kwargs):
            return tgt

    class PlainCell(ms.nn.Cell):
        def construct(self, tgt, memory, **kwargs):
            return tgt

    x = np.zeros((3, 2, D_MODEL), np.float32)
    with pytest.raises(AttributeError, match="self_attn"):
        torch.nn.TransformerDecoder(Plain(), 1)(torch.tensor(x), torch.tensor(x))
    with pytest.raises(AttributeError, match="self_attn"):
        aux.TransformerDecoder(PlainCell(), 1)(ms.Tensor(x), ms.Tensor(x))


@pytest.mark.parametrize("kwargs", LAYER_KWARGS)
def test_encoder_layer_and_stack_match_torch(fw, aux, kwargs) -> None:
    torch, _ = fw
    torch.manual_seed(0)
    layer = torch.nn.TransformerEncoderLayer(D_MODEL, HEADS, FEEDFORWARD, **kwargs)
    module = torch.nn.TransformerEncoder(layer, 2, enable_nested_tensor=False).eval()
    cell = aux.TransformerEncoder(
        aux.TransformerEncoderLayer(D_MODEL, HEADS, FEEDFORWARD, **kwargs),
        2,
        enable_nested_tensor=False,
    )
    cell.set_train(False)
    assert list(aux.state_dict(cell)) == list(module.state_dict())
    assert (
        cell.layers[0].activation_relu_or_gelu
        == module.layers[0].activation_relu_or_gelu
    )
    source = _inputs(kwargs.get("batch_first", False))[0]
    padding = np.zeros((2, 3), np.bool_)
    padding[1, -1] = True
    masks = lambda torch, ms: (
        {"src_key_padding_mask": torch.tensor(padding)},
        {"src_key_padding_mask": ms.Tensor(padding)},
    )
    _compare(fw, aux, module, cell, [source], lambda m, s, **kw: [m(s, **kw)], masks)
    _compare(
        fw,
        aux,
        module.layers[0],
        cell.layers[0],
        [source],
        lambda m, s, **kw: [m(s, **kw)],
        masks,
    )


def test_encoder_refuses_what_depends_on_torch_gradient_mode(fw, aux) -> None:
    """torch's nested-tensor path zeroes padded positions only when gradients are off."""
    torch, ms = fw
    layer = aux.TransformerEncoderLayer(D_MODEL, HEADS, FEEDFORWARD, batch_first=True)
    stack = aux.TransformerEncoder(layer, 1)
    torch_stack = torch.nn.TransformerEncoder(
        torch.nn.TransformerEncoderLayer(D_MODEL, HEADS, FEEDFORWARD, batch_first=True),
        1,
    )
    assert stack.use_nested_tensor == torch_stack.use_nested_tensor is True
    stack.set_train(False)
    x = ms.Tensor(np.ones((2, 3, D_MODEL), np.float32))
    padding = ms.Tensor(np.array([[False, False, True], [False, False, False]]))
    with pytest.raises(NotImplementedError, match="enable_nested_tensor"):
        stack(x, src_key_padding_mask=padding)
    assert stack(x).shape == (2, 3, D_MODEL)
