"""torch's Transformer encoder and decoder layers and stacks, built on `MultiheadAttention`.

The layers hold torch's children under torch's names (`self_attn`, `multihead_attn`, `linear1`,
`dropout`, `linear2`, `norm1`..`norm3`, `dropout1`..`dropout3`), so a torch state_dict loads by
name (the norms keep MindSpore's `gamma`/`beta`, which `load_state_dict` and `torch2ms weights`
map from torch's `weight`/`bias`). `norm_first`, `batch_first`, `bias` and an activation given as
"relu"/"gelu" or as a function are honoured; `device` and `dtype` are accepted and change nothing.
The stacks deep-copy the given layer `num_layers` times, as torch does. torch's `*_is_causal`
hints are passed on as given: where torch would detect a causal mask itself, applying that mask
computes the same values.
"""

import copy

import mindspore
from mindspore import nn, ops

from .attention import MultiheadAttention, _get_activation_fn, keeps_numpy_random_state
from .layers import Dropout, LayerNorm, Linear
from .parameters import init_xavier_uniform_


class _TransformerLayer(nn.Cell):
    """The parts torch's encoder and decoder layers share: the feed-forward block, the norms and
    dropouts, and the activation."""

    def _build(
        self,
        d_model,
        nhead,
        dim_feedforward,
        dropout,
        activation,
        layer_norm_eps,
        batch_first,
        norm_first,
        bias,
        norms,
    ):
        attention = {"dropout": dropout, "batch_first": batch_first, "bias": bias}
        self.self_attn = MultiheadAttention(d_model, nhead, **attention)
        if norms == 3:  # a decoder layer also attends to the memory
            self.multihead_attn = MultiheadAttention(d_model, nhead, **attention)
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias)
        self.norm_first = norm_first
        for index in range(1, norms + 1):
            setattr(
                self, f"norm{index}", LayerNorm(d_model, eps=layer_norm_eps, bias=bias)
            )
            setattr(self, f"dropout{index}", Dropout(dropout))
        if isinstance(activation, str):
            activation = _get_activation_fn(activation)
        self.activation = activation

    def _sa_block(self, x, attn_mask, key_padding_mask, is_causal=False):
        x = self.self_attn(
            x,
            x,
            x,
            attn_mask=attn_mask,
            key_padding_mask=key_padding_mask,
            is_causal=is_causal,
            need_weights=False,
        )[0]
        return self.dropout1(x)

    def _feed_forward(self, x):
        return self.linear2(self.dropout(self.activation(self.linear1(x))))


class TransformerEncoderLayer(_TransformerLayer):
    """`torch.nn.TransformerEncoderLayer`: self-attention and a feed-forward block, each with a
    residual and a LayerNorm (before them with `norm_first`)."""

    @keeps_numpy_random_state
    def __init__(
        self,
        d_model,
        nhead,
        dim_feedforward=2048,
        dropout=0.1,
        activation="relu",
        layer_norm_eps=1e-5,
        batch_first=False,
        norm_first=False,
        bias=True,
        device=None,
        dtype=None,
    ):
        super().__init__()
        self._build(
            d_model,
            nhead,
            dim_feedforward,
            dropout,
            activation,
            layer_norm_eps,
            batch_first,
            norm_first,
            bias,
            norms=2,
        )
        self.activation_relu_or_gelu = (
            1
            if activation in ("relu", _get_activation_fn("relu"))
            else 2
            if activation in ("gelu", _get_activation_fn("gelu"))
            else 0
        )

    def _ff_block(self, x):
        return self.dropout2(self._feed_forward(x))

    def construct(self, src, src_mask=None, src_key_padding_mask=None, is_causal=False):
        x = src
        if self.norm_first:
            x = x + self._sa_block(
                self.norm1(x), src_mask, src_key_padding_mask, is_causal
            )
            x = x + self._ff_block(self.norm2(x))
        else:
            x = self.norm1(
                x + self._sa_block(x, src_mask, src_key_padding_mask, is_causal)
            )
            x = self.norm2(x + self._ff_block(x))
        return x


class TransformerDecoderLayer(_TransformerLayer):
    """`torch.nn.TransformerDecoderLayer`: self-attention, attention over the memory and a
    feed-forward block, each with a residual and a LayerNorm (before them with `norm_first`)."""

    @keeps_numpy_random_state
    def __init__(
        self,
        d_model,
        nhead,
        dim_feedforward=2048,
        dropout=0.1,
        activation="relu",
        layer_norm_eps=1e-5,
        batch_first=False,
        norm_first=False,
        bias=True,
        device=None,
        dtype=None,
    ):
        super().__init__()
        self._build(
            d_model,
            nhead,
            dim_feedforward,
            dropout,
            activation,
            layer_norm_eps,
            batch_first,
            norm_first,
            bias,
            norms=3,
        )

    def _mha_block(self, x, mem, attn_mask, key_padding_mask, is_causal=False):
        x = self.multihead_attn(
            x,
            mem,
            mem,
            attn_mask=attn_mask,
            key_padding_mask=key_padding_mask,
            is_causal=is_causal,
            need_weights=False,
        )[0]
        return self.dropout2(x)

    def _ff_block(self, x):
        return self.dropout3(self._feed_forward(x))

    def construct(
        self,
        tgt,
        memory,
        tgt_mask=None,
        memory_mask=None,
        tgt_key_padding_mask=None,
        memory_key_padding_mask=None,
        tgt_is_causal=False,
        memory_is_causal=False,
    ):
        x = tgt
        if self.norm_first:
            x = x + self._sa_block(
                self.norm1(x), tgt_mask, tgt_key_padding_mask, tgt_is_causal
            )
            x = x + self._mha_block(
                self.norm2(x),
                memory,
                memory_mask,
                memory_key_padding_mask,
                memory_is_causal,
            )
            x = x + self._ff_block(self.norm3(x))
        else:
            x = self.norm1(
                x + self._sa_block(x, tgt_mask, tgt_key_padding_mask, tgt_is_causal)
            )
            x = self.norm2(
                x
                + self._mha_block(
                    x, memory, memory_mask, memory_key_padding_mask, memory_is_causal
                )
            )
            x = self.norm3(x + self._ff_block(x))
        return x


class TransformerDecoder(nn.Cell):
    """`torch.nn.TransformerDecoder`: `num_layers` deep copies of `decoder_layer` in `layers`,
    run in turn, then `norm` if given. Like torch, it reads `layers[0].self_attn.batch_first`
    and passes every layer torch's keyword arguments (a layer without `self_attn`, or whose
    forward does not take `tgt_is_causal`/`memory_is_causal`, fails here as it does in torch)."""

    def __init__(self, decoder_layer, num_layers, norm=None):
        super().__init__()
        self.layers = nn.CellList(
            [copy.deepcopy(decoder_layer) for _ in range(num_layers)]
        )
        self.num_layers = num_layers
        self.norm = norm

    def construct(
        self,
        tgt,
        memory,
        tgt_mask=None,
        memory_mask=None,
        tgt_key_padding_mask=None,
        memory_key_padding_mask=None,
        tgt_is_causal=None,
        memory_is_causal=False,
    ):
        # torch reads this to detect a causal tgt_mask; the mask itself gives the same values.
        _ = self.layers[0].self_attn.batch_first
        output = tgt
        for layer in self.layers:
            output = layer(
                output,
                memory,
                tgt_mask=tgt_mask,
                memory_mask=memory_mask,
                tgt_key_padding_mask=tgt_key_padding_mask,
                memory_key_padding_mask=memory_key_padding_mask,
                tgt_is_causal=bool(tgt_is_causal),
                memory_is_causal=memory_is_causal,
            )
        if self.norm is not None:
            output = self.norm(output)
        return output


class TransformerEncoder(nn.Cell):
    """`torch.nn.TransformerEncoder`: `num_layers` deep copies of `encoder_layer` in `layers`, run
    in turn, then `norm` if given. torch runs an evaluating stack given a `src_key_padding_mask`
    on nested tensors when its gradients are off, giving zeros at the padded positions, and
    computes them otherwise; MindSpore has no gradient mode to tell the two apart, so that case
    raises unless the stack was built with `enable_nested_tensor=False`."""

    @keeps_numpy_random_state
    def __init__(
        self,
        encoder_layer,
        num_layers,
        norm=None,
        enable_nested_tensor=True,
        mask_check=True,
    ):
        super().__init__()
        self.layers = nn.CellList(
            [copy.deepcopy(encoder_layer) for _ in range(num_layers)]
        )
        self.num_layers = num_layers
        self.norm = norm
        self.enable_nested_tensor = enable_nested_tensor
        self.mask_check = mask_check
        attention = getattr(encoder_layer, "self_attn", None)
        self.use_nested_tensor = bool(
            enable_nested_tensor
            and isinstance(encoder_layer, TransformerEncoderLayer)
            and not encoder_layer.norm_first
            and attention.batch_first
            and attention._qkv_same_embed_dim
            and attention.in_proj_bias is not None
            and encoder_layer.activation_relu_or_gelu
            and encoder_layer.norm1.eps == encoder_layer.norm2.eps
            and attention.num_heads % 2 == 0
        )

    def construct(self, src, mask=None, src_key_padding_mask=None, is_causal=None):
        _ = self.layers[0].self_attn.batch_first
        if (
            self.use_nested_tensor
            and not self.layers[0].training
            and src.ndim == 3
            and src_key_padding_mask is not None
            and mask is None
        ):
            raise NotImplementedError(
                "TransformerEncoder: with enable_nested_tensor=True, torch gives zeros at the "
                "padded positions of an evaluating stack when gradients are off, and computes "
                "them otherwise; build it with enable_nested_tensor=False to compute them"
            )
        output = src
        for layer in self.layers:
            output = layer(
                output,
                src_mask=mask,
                is_causal=bool(is_causal),
                src_key_padding_mask=src_key_padding_mask,
            )
        if self.norm is not None:
            output = self.norm(output)
        return output


class Transformer(nn.Cell):
    """`torch.nn.Transformer`: an encoder stack (`encoder`) and a decoder stack (`decoder`) of
    torch's layers, each closed by a LayerNorm, with torch's arguments and children's names (a
    subclass reaches `self.encoder` as torch's does). Every parameter of more than one dimension
    starts from torch's Xavier-uniform initialisation, drawn from MindSpore's stream."""

    @keeps_numpy_random_state
    def __init__(
        self,
        d_model=512,
        nhead=8,
        num_encoder_layers=6,
        num_decoder_layers=6,
        dim_feedforward=2048,
        dropout=0.1,
        activation="relu",
        custom_encoder=None,
        custom_decoder=None,
        layer_norm_eps=1e-5,
        batch_first=False,
        norm_first=False,
        bias=True,
        device=None,
        dtype=None,
    ):
        super().__init__()
        layer = (d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps)
        layer_flags = {
            "batch_first": batch_first,
            "norm_first": norm_first,
            "bias": bias,
        }
        if custom_encoder is not None:
            self.encoder = custom_encoder
        else:
            self.encoder = TransformerEncoder(
                TransformerEncoderLayer(*layer, **layer_flags),
                num_encoder_layers,
                LayerNorm(d_model, eps=layer_norm_eps, bias=bias),
            )
        if custom_decoder is not None:
            self.decoder = custom_decoder
        else:
            self.decoder = TransformerDecoder(
                TransformerDecoderLayer(*layer, **layer_flags),
                num_decoder_layers,
                LayerNorm(d_model, eps=layer_norm_eps, bias=bias),
            )
        for parameter in self.get_parameters():
            if parameter.ndim > 1:
                init_xavier_uniform_(parameter)
        self.d_model = d_model
        self.nhead = nhead
        self.batch_first = batch_first

    def construct(
        self,
        src,
        tgt,
        src_mask=None,
        tgt_mask=None,
        memory_mask=None,
        src_key_padding_mask=None,
        tgt_key_padding_mask=None,
        memory_key_padding_mask=None,
        src_is_causal=None,
        tgt_is_causal=None,
        memory_is_causal=False,
    ):
        batched = src.ndim == 3
        batch = 0 if self.batch_first else 1
        if batched and src.shape[batch] != tgt.shape[batch]:
            raise RuntimeError("the batch number of src and tgt must be equal")
        if src.shape[-1] != self.d_model or tgt.shape[-1] != self.d_model:
            raise RuntimeError(
                "the feature number of src and tgt must be equal to d_model"
            )
        memory = self.encoder(
            src,
            mask=src_mask,
            src_key_padding_mask=src_key_padding_mask,
            is_causal=src_is_causal,
        )
        return self.decoder(
            tgt,
            memory,
            tgt_mask=tgt_mask,
            memory_mask=memory_mask,
            tgt_key_padding_mask=tgt_key_padding_mask,
            memory_key_padding_mask=memory_key_padding_mask,
            tgt_is_causal=tgt_is_causal,
            memory_is_causal=memory_is_causal,
        )

    @staticmethod
    def generate_square_subsequent_mask(sz, device=None, dtype=None):
        """The causal mask: -inf above the diagonal, 0 elsewhere (float32 by default)."""
        dtype = mindspore.float32 if dtype is None else dtype
        upper = ops.triu(ops.ones((sz, sz), mindspore.float32), diagonal=1).astype(
            mindspore.bool_
        )
        return ops.masked_fill(ops.zeros((sz, sz), dtype), upper, float("-inf"))
