"""Multi-head attention with torch's constructor, parameter names and forward.

`MultiheadAttention` registers torch's parameters under torch's names and shapes (`in_proj_weight`
(3E, E) and `in_proj_bias` (3E), or `q_proj_weight`/`k_proj_weight`/`v_proj_weight` when the key
or value width differs; `out_proj.weight`/`out_proj.bias`; `bias_k`/`bias_v`), so a torch
state_dict loads by name. Its forward follows torch's two paths: with `need_weights` it forms the
softmax weights itself (a row with nothing to attend to gives NaN, as torch's does); without, it
calls `scaled_dot_product_attention` (such a row gives zeros, as torch's does). Built from batched
matmuls, softmax and masked_fill, which have CPU kernels.
"""

import functools
import math

import mindspore
import numpy as np
from mindspore import Parameter, nn, ops
from mindspore.common.initializer import XavierNormal, XavierUniform, initializer

from .functional import relu, scaled_dot_product_attention
from .layers import Linear

# One private stream per MindSpore seed, from which layers below seed their initialisation.
_INIT_STREAMS = {}


def keeps_numpy_random_state(init):
    """Decorates a layer's `__init__` so that building the layer leaves numpy's global generator
    as it was, as building a torch layer does. MindSpore's initializers seed themselves with a
    draw from that generator, so without this a script that draws from numpy after building the
    layer (weights from `np.random`) would draw other numbers than under torch. The layer's own
    initialisation draws from a private stream, seeded by `mindspore.set_seed`."""

    @functools.wraps(init)
    def wrapper(*args, **kwargs):
        state = np.random.get_state()
        seed = mindspore.get_seed()
        stream = _INIT_STREAMS.setdefault(seed, np.random.RandomState(seed or 0))
        np.random.seed(int(stream.randint(1 << 31)))
        try:
            return init(*args, **kwargs)
        finally:
            np.random.set_state(state)

    return wrapper


def _get_activation_fn(activation):
    """`torch.nn.modules.transformer._get_activation_fn`: "relu" or "gelu" to the function
    (torch's F.relu and F.gelu, with their signatures); anything else raises as torch does."""
    if activation == "relu":
        return relu
    if activation == "gelu":
        return ops.gelu
    raise RuntimeError(f"activation should be relu/gelu, not {activation}")


def _mha_float_mask(mask, name, dtype):
    """torch's canonical mask: a boolean mask (True: not attended) as -inf and 0 of ``dtype``; a
    float mask is added as it is."""
    if mask is None:
        return None
    if mask.dtype == mindspore.bool_:
        return ops.masked_fill(ops.zeros(mask.shape, dtype), mask, float("-inf"))
    if not ops.is_floating_point(mask):
        raise AssertionError(f"only bool and floating types of {name} are supported")
    return mask


def _mha_append(tensor, tail, axis):
    """``tensor`` with ``tail`` appended along ``axis`` (bias_k/bias_v, add_zero_attn)."""
    return ops.cat([tensor, tail.astype(tensor.dtype)], axis)


def _mha_masked_softmax(scores):
    """Softmax over the last axis where a row may have nothing to attend to (every score -inf):
    such a row gives NaN, as torch's does. (MindSpore 2.10's CPU softmax given such a row also
    zeroes other rows, so the row is softmaxed as zeros and then set to NaN.)"""
    empty = ops.amax(scores, -1, keepdims=True) == float("-inf")
    weights = ops.softmax(ops.masked_fill(scores, empty, 0.0), -1)
    return ops.masked_fill(weights, empty, float("nan"))


_mha_scores = ops.BatchMatMul(transpose_b=True)
_mha_weighted = ops.BatchMatMul()


class MultiheadAttention(nn.Cell):
    """`torch.nn.MultiheadAttention`: torch's parameters (names, shapes, xavier_uniform input
    projections, zero biases) and forward, returning `(output, weights or None)`. `device` and
    `dtype` are accepted and change nothing. Dropout on the attention weights applies after
    `set_train()`."""

    @keeps_numpy_random_state
    def __init__(
        self,
        embed_dim,
        num_heads,
        dropout=0.0,
        bias=True,
        add_bias_kv=False,
        add_zero_attn=False,
        kdim=None,
        vdim=None,
        batch_first=False,
        device=None,
        dtype=None,
    ):
        if embed_dim <= 0 or num_heads <= 0:
            raise ValueError(
                "embed_dim and num_heads must be greater than 0, got "
                f"embed_dim={embed_dim} and num_heads={num_heads} instead"
            )
        super().__init__()
        self.embed_dim = embed_dim
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.num_heads = num_heads
        self.dropout = dropout
        self.batch_first = batch_first
        self.head_dim = embed_dim // num_heads
        if self.head_dim * num_heads != embed_dim:
            raise AssertionError("embed_dim must be divisible by num_heads")
        if self._qkv_same_embed_dim:
            self.in_proj_weight = Parameter(ops.zeros((3 * embed_dim, embed_dim)))
            self.q_proj_weight = self.k_proj_weight = self.v_proj_weight = None
        else:
            self.q_proj_weight = Parameter(ops.zeros((embed_dim, embed_dim)))
            self.k_proj_weight = Parameter(ops.zeros((embed_dim, self.kdim)))
            self.v_proj_weight = Parameter(ops.zeros((embed_dim, self.vdim)))
            self.in_proj_weight = None
        self.in_proj_bias = Parameter(ops.zeros(3 * embed_dim)) if bias else None
        self.out_proj = Linear(embed_dim, embed_dim, bias=bias)
        if add_bias_kv:
            self.bias_k = Parameter(ops.zeros((1, 1, embed_dim)))
            self.bias_v = Parameter(ops.zeros((1, 1, embed_dim)))
        else:
            self.bias_k = self.bias_v = None
        self.add_zero_attn = add_zero_attn
        self._reset_parameters()

    def _reset_parameters(self):
        """torch's initialisation: xavier_uniform input projections, zero input and output
        biases, xavier_normal bias_k/bias_v."""
        projections = (
            [self.in_proj_weight]
            if self._qkv_same_embed_dim
            else [self.q_proj_weight, self.k_proj_weight, self.v_proj_weight]
        )
        for weight in projections:
            weight.set_data(initializer(XavierUniform(), weight.shape, weight.dtype))
        if self.in_proj_bias is not None:
            self.in_proj_bias.set_data(ops.zeros_like(self.in_proj_bias))
            self.out_proj.bias.set_data(ops.zeros_like(self.out_proj.bias))
        for extra in (self.bias_k, self.bias_v):
            if extra is not None:
                extra.set_data(initializer(XavierNormal(), extra.shape, extra.dtype))

    def _project(self, query, key, value):
        """q, k, v: torch's packed projection for self-attention, separate ones otherwise."""
        width = self.embed_dim
        if self._qkv_same_embed_dim and query is key and key is value:
            packed = ops.dense(query, self.in_proj_weight, self.in_proj_bias)
            return ops.split(packed, width, -1)
        if self._qkv_same_embed_dim:
            weights = ops.split(self.in_proj_weight, width, 0)
        else:
            weights = (self.q_proj_weight, self.k_proj_weight, self.v_proj_weight)
        biases = (None, None, None)
        if self.in_proj_bias is not None:
            biases = ops.split(self.in_proj_bias, width, 0)
        return tuple(
            ops.dense(x, w, b) for x, w, b in zip((query, key, value), weights, biases)
        )

    def construct(
        self,
        query,
        key,
        value,
        key_padding_mask=None,
        need_weights=True,
        attn_mask=None,
        average_attn_weights=True,
        is_causal=False,
    ):
        batched = query.ndim == 3
        if (
            query.ndim not in (2, 3)
            or key.ndim != query.ndim
            or value.ndim != query.ndim
        ):
            raise AssertionError(
                "query, key and value must all be 3-D (batched) or all 2-D (unbatched), got "
                f"{query.ndim}-D, {key.ndim}-D and {value.ndim}-D"
            )
        if self.batch_first and batched:
            query, key, value = self._swap_batch(query, key, value)
        if not batched:
            query, key, value = (x.unsqueeze(1) for x in (query, key, value))
            if key_padding_mask is not None:
                key_padding_mask = key_padding_mask.unsqueeze(0)
        length, batch, width = query.shape
        heads, head_dim = self.num_heads, self.head_dim
        if width != self.embed_dim:
            raise AssertionError(
                f"was expecting embedding dimension of {self.embed_dim}, but got {width}"
            )
        key_padding_mask = _mha_float_mask(
            key_padding_mask, "key_padding_mask", query.dtype
        )
        if is_causal and attn_mask is None:
            raise RuntimeError(
                "Need attn_mask if specifying the is_causal hint. You may use the Transformer "
                "module method `generate_square_subsequent_mask` to create this mask."
            )
        if is_causal and key_padding_mask is None and not need_weights:
            attn_mask = None  # torch then applies the causal mask the hint promises
        else:
            attn_mask = self._attention_mask(
                attn_mask, query.dtype, length, key.shape[0], batch
            )
            if key_padding_mask is not None:
                is_causal = False
        q, k, v = self._project(query, key, value)
        if self.bias_k is not None and self.bias_v is not None:
            k = _mha_append(k, ops.tile(self.bias_k, (1, batch, 1)), 0)
            v = _mha_append(v, ops.tile(self.bias_v, (1, batch, 1)), 0)
            attn_mask = None if attn_mask is None else ops.pad(attn_mask, (0, 1))
            if key_padding_mask is not None:
                key_padding_mask = ops.pad(key_padding_mask, (0, 1))
        q = q.reshape(length, batch * heads, head_dim).swapaxes(0, 1)
        k = k.reshape(k.shape[0], batch * heads, head_dim).swapaxes(0, 1)
        v = v.reshape(v.shape[0], batch * heads, head_dim).swapaxes(0, 1)
        if self.add_zero_attn:
            zeros = ops.zeros((batch * heads, 1, head_dim), k.dtype)
            k, v = _mha_append(k, zeros, 1), _mha_append(v, zeros, 1)
            attn_mask = None if attn_mask is None else ops.pad(attn_mask, (0, 1))
            if key_padding_mask is not None:
                key_padding_mask = ops.pad(key_padding_mask, (0, 1))
        source = k.shape[1]
        if key_padding_mask is not None:
            if tuple(key_padding_mask.shape) != (batch, source):
                raise AssertionError(
                    f"expected key_padding_mask of shape {(batch, source)}, got "
                    f"{tuple(key_padding_mask.shape)}"
                )
            padding = ops.broadcast_to(
                key_padding_mask.reshape(batch, 1, 1, source), (batch, heads, 1, source)
            ).reshape(batch * heads, 1, source)
            attn_mask = padding if attn_mask is None else attn_mask + padding
        dropout_p = self.dropout if self.training else 0.0
        if need_weights:
            scores = _mha_scores(q * math.sqrt(1.0 / float(head_dim)), k)
            if attn_mask is None:
                weights = ops.softmax(scores, -1)
            else:
                weights = _mha_masked_softmax(scores + attn_mask)
            if dropout_p > 0.0:
                weights = ops.dropout(weights, p=dropout_p, training=True)
            output = _mha_weighted(weights, v).swapaxes(0, 1)
            weights = weights.reshape(batch, heads, length, source)
            if average_attn_weights:
                weights = weights.mean(1)
        else:
            if attn_mask is not None:
                if attn_mask.shape[0] == 1:
                    attn_mask = attn_mask.unsqueeze(0)
                else:
                    attn_mask = attn_mask.reshape(batch, heads, -1, source)
            shape = (batch, heads, -1, head_dim)
            output = scaled_dot_product_attention(
                q.reshape(shape),
                k.reshape(shape),
                v.reshape(shape),
                attn_mask,
                dropout_p,
                is_causal,
            ).transpose(2, 0, 1, 3)
            weights = None
        output = self.out_proj(output.reshape(length * batch, width))
        output = output.reshape(length, batch, width)
        if not batched:
            output = output.squeeze(1)
            if weights is not None:
                weights = weights.squeeze(0)
        elif self.batch_first:
            output = output.swapaxes(0, 1)
        return output, weights

    @staticmethod
    def _swap_batch(query, key, value):
        """(N, L, E) inputs as (L, N, E), keeping which of them are the same tensor."""
        swapped_query = query.swapaxes(0, 1)
        swapped_key = swapped_query if key is query else key.swapaxes(0, 1)
        swapped_value = (
            swapped_key
            if value is key
            else swapped_query
            if value is query
            else value.swapaxes(0, 1)
        )
        return swapped_query, swapped_key, swapped_value

    def _attention_mask(self, attn_mask, dtype, length, source, batch):
        """The float mask of torch's shape (1 or N*heads, L, S), checked as torch checks it."""
        attn_mask = _mha_float_mask(attn_mask, "attn_mask", dtype)
        if attn_mask is None:
            return None
        if attn_mask.ndim == 2:
            if tuple(attn_mask.shape) != (length, source):
                raise RuntimeError(
                    f"The shape of the 2D attn_mask is {tuple(attn_mask.shape)}, but should be "
                    f"{(length, source)}."
                )
            return attn_mask.unsqueeze(0)
        if attn_mask.ndim == 3:
            expected = (batch * self.num_heads, length, source)
            if tuple(attn_mask.shape) != expected:
                raise RuntimeError(
                    f"The shape of the 3D attn_mask is {tuple(attn_mask.shape)}, but should be "
                    f"{expected}."
                )
            return attn_mask
        raise RuntimeError(f"attn_mask's dimension {attn_mask.ndim} is not supported")
