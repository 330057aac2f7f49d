"""Recurrent, unfolding, 3-D convolution and channel dropout layers with torch's arguments.

MindSpore's LSTM, GRU and RNN (and their cells) compute torch's recurrences with the same gate
order and weight layout, and name their parameters as torch does (`weight_ih_l0`, `bias_hh_l1`,
`weight_ih_l0_reverse`; `weight_ih`, `bias_hh` for the cells), so a `torch2ms weights` checkpoint
loads as it is. The classes here add torch's constructor (`bias`, an int `dropout`), its
attributes (`input_size`, `bias`, `proj_size`, `mode`, `weight_ih_l0` ...), `flatten_parameters()`,
unbatched input, and an omitted cell state. `device` is accepted and changes nothing.
"""

import mindspore
import numpy as np
from mindspore import nn, ops

from .functional import fold
from .layers import _conv_padding, _TorchConv


def _dtype_argument(dtype):
    """MindSpore's `dtype=` keyword where torch's is given (None means the default there)."""
    return {} if dtype is None else {"dtype": dtype}


def _map_state(state, function):
    """``function`` on a hidden state: one tensor, or the (h, c) pair of an LSTM."""
    if isinstance(state, (tuple, list)):
        return tuple(function(part) for part in state)
    return function(state)


class _TorchRecurrent:
    """torch's attributes, parameter names and unbatched input over MindSpore's LSTM/GRU/RNN.

    MindSpore registers the parameters under torch's names, so `self.weight_ih_l0` reads them as
    torch's does (and fails alike where `bias=False` leaves one out). An unbatched input
    (L, H_in), with an optional state (layers * directions, H_out), is run as a batch of one."""

    def _torch_attributes(self, mode, input_size, bias, proj_size=0):
        self.mode = mode
        self.input_size = input_size
        self.bias = bool(bias)
        self.proj_size = proj_size

    @property
    def all_weights(self):
        """torch's `all_weights`: per layer and direction, [w_ih, w_hh(, b_ih, b_hh)]."""
        groups = []
        for index in range(len(self.w_ih_list)):
            group = [self.w_ih_list[index], self.w_hh_list[index]]
            if self.has_bias:
                group += [self.b_ih_list[index], self.b_hh_list[index]]
            groups.append(group)
        return groups

    def flatten_parameters(self):
        """torch compacts its cuDNN weights here; MindSpore's layout needs nothing."""

    def construct(self, input, hx=None):
        if hx is not None and isinstance(hx, list):
            hx = tuple(hx)
        if input.ndim != 2:
            return super().construct(input, hx)
        batch_axis = 0 if self.batch_first else 1
        if hx is not None:
            hx = _map_state(hx, lambda state: state.unsqueeze(1))
        output, state = super().construct(input.unsqueeze(batch_axis), hx)
        return output.squeeze(batch_axis), _map_state(
            state, lambda part: part.squeeze(1)
        )


class LSTM(_TorchRecurrent, nn.LSTM):
    """`torch.nn.LSTM`: MindSpore's LSTM with torch's arguments and attributes (see
    `_TorchRecurrent`); returns `(output, (h_n, c_n))` as torch does. `proj_size` (an LSTM with
    projections) has no MindSpore counterpart and raises."""

    def __init__(
        self,
        input_size,
        hidden_size,
        num_layers=1,
        bias=True,
        batch_first=False,
        dropout=0.0,
        bidirectional=False,
        proj_size=0,
        device=None,
        dtype=None,
    ):
        if proj_size:
            raise NotImplementedError(
                "LSTM: proj_size (projected hidden states) is not supported; project h_t "
                "with nn.Dense(hidden_size, proj_size, has_bias=False) by hand"
            )
        super().__init__(
            input_size,
            hidden_size,
            num_layers,
            has_bias=bool(bias),
            batch_first=bool(batch_first),
            dropout=float(dropout),
            bidirectional=bool(bidirectional),
            **_dtype_argument(dtype),
        )
        self._torch_attributes("LSTM", input_size, bias, proj_size)


class GRU(_TorchRecurrent, nn.GRU):
    """`torch.nn.GRU`: MindSpore's GRU with torch's arguments and attributes (see
    `_TorchRecurrent`); returns `(output, h_n)`."""

    def __init__(
        self,
        input_size,
        hidden_size,
        num_layers=1,
        bias=True,
        batch_first=False,
        dropout=0.0,
        bidirectional=False,
        device=None,
        dtype=None,
    ):
        super().__init__(
            input_size,
            hidden_size,
            num_layers,
            has_bias=bool(bias),
            batch_first=bool(batch_first),
            dropout=float(dropout),
            bidirectional=bool(bidirectional),
            **_dtype_argument(dtype),
        )
        self._torch_attributes("GRU", input_size, bias)


class RNN(_TorchRecurrent, nn.RNN):
    """`torch.nn.RNN`: MindSpore's RNN (tanh or relu) with torch's arguments and attributes (see
    `_TorchRecurrent`); returns `(output, h_n)`."""

    def __init__(
        self,
        input_size,
        hidden_size,
        num_layers=1,
        nonlinearity="tanh",
        bias=True,
        batch_first=False,
        dropout=0.0,
        bidirectional=False,
        device=None,
        dtype=None,
    ):
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(
                f"Unknown nonlinearity '{nonlinearity}'. Select from 'tanh' or 'relu'."
            )
        super().__init__(
            input_size,
            hidden_size,
            num_layers,
            nonlinearity=nonlinearity,
            has_bias=bool(bias),
            batch_first=bool(batch_first),
            dropout=float(dropout),
            bidirectional=bool(bidirectional),
            **_dtype_argument(dtype),
        )
        self._torch_attributes("RNN_" + nonlinearity.upper(), input_size, bias)
        self.nonlinearity = nonlinearity


class _TorchRecurrentCell:
    """torch's cell call over MindSpore's cells: the state defaults to zeros, and an unbatched
    input (H_in,) with its state (H_out,) runs as a batch of one."""

    def construct(self, input, hx=None):
        unbatched = input.ndim == 1
        if unbatched:
            input = input.unsqueeze(0)
            if hx is not None:
                hx = _map_state(hx, lambda state: state.unsqueeze(0))
        if hx is None:
            zeros = ops.zeros((input.shape[0], self.hidden_size), input.dtype)
            hx = (zeros, zeros) if isinstance(self, nn.LSTMCell) else zeros
        elif isinstance(hx, list):
            hx = tuple(hx)
        state = super().construct(input, hx)
        if unbatched:
            state = _map_state(state, lambda part: part.squeeze(0))
        return state


class LSTMCell(_TorchRecurrentCell, nn.LSTMCell):
    """`torch.nn.LSTMCell`: MindSpore's LSTMCell with torch's arguments; returns `(h_1, c_1)`,
    the state `(h_0, c_0)` defaulting to zeros (see `_TorchRecurrentCell`)."""

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(
            input_size, hidden_size, has_bias=bool(bias), **_dtype_argument(dtype)
        )
        self.bias = bool(bias)


class GRUCell(_TorchRecurrentCell, nn.GRUCell):
    """`torch.nn.GRUCell`: MindSpore's GRUCell with torch's arguments; the state defaults to zeros
    (see `_TorchRecurrentCell`)."""

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(
            input_size, hidden_size, has_bias=bool(bias), **_dtype_argument(dtype)
        )
        self.bias = bool(bias)


class RNNCell(_TorchRecurrentCell, nn.RNNCell):
    """`torch.nn.RNNCell`: MindSpore's RNNCell (tanh or relu) with torch's arguments; the state
    defaults to zeros (see `_TorchRecurrentCell`)."""

    def __init__(
        self,
        input_size,
        hidden_size,
        bias=True,
        nonlinearity="tanh",
        device=None,
        dtype=None,
    ):
        super().__init__(
            input_size,
            hidden_size,
            has_bias=bool(bias),
            nonlinearity=nonlinearity,
            **_dtype_argument(dtype),
        )
        self.bias = bool(bias)


def _size_values(value):
    """A size given as a tensor, as its Python ints; any other value as it is."""
    return tuple(int(v) for v in value.tolist()) if hasattr(value, "tolist") else value


class Unfold(nn.Cell):
    """`torch.nn.Unfold`: sliding blocks as columns (im2col) with `ops.unfold`, which has a CPU
    kernel and torch's layout (N, C * prod(kernel_size), L); an unbatched (C, H, W) input too."""

    def __init__(self, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__()
        # torch also takes the sizes as tensors (`torch.LongTensor([1, 1])`).
        self.kernel_size = _size_values(kernel_size)
        self.dilation = _size_values(dilation)
        self.padding = _size_values(padding)
        self.stride = _size_values(stride)

    def construct(self, input):
        if input.ndim == 3:
            return self.construct(input.unsqueeze(0)).squeeze(0)
        return ops.unfold(
            input, self.kernel_size, self.dilation, self.padding, self.stride
        )

    def extend_repr(self):
        return (
            f"kernel_size={self.kernel_size}, dilation={self.dilation}, "
            f"padding={self.padding}, stride={self.stride}"
        )


class Fold(nn.Cell):
    """`torch.nn.Fold`: columns summed back into an image (col2im), the inverse layout of
    `Unfold`, with `ops.fold` (see the companion `fold`)."""

    def __init__(self, output_size, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__()
        self.output_size = output_size
        self.kernel_size = kernel_size
        self.dilation = dilation
        self.padding = padding
        self.stride = stride

    def construct(self, input):
        return fold(
            input,
            self.output_size,
            self.kernel_size,
            self.dilation,
            self.padding,
            self.stride,
        )

    def extend_repr(self):
        return (
            f"output_size={self.output_size}, kernel_size={self.kernel_size}, "
            f"dilation={self.dilation}, padding={self.padding}, stride={self.stride}"
        )


def tensor_unfold(input, dimension, size, step):
    """`torch.Tensor.unfold(dimension, size, step)`: every window of `size` elements, `step`
    apart, along `dimension`, as a new last axis (MindSpore's `Tensor.unfold` is im2col). The
    windows are one `ops.gather` along that axis (a reshape when they do not overlap)."""
    dimension = dimension % max(input.ndim, 1)
    length = input.shape[dimension]
    if size > length or size < 0 or step <= 0:
        raise RuntimeError(
            f"unfold: size {size} and step {step} do not fit dimension {dimension} "
            f"of length {length}"
        )
    count = (length - size) // step + 1
    outer, inner = input.shape[:dimension], input.shape[dimension + 1 :]
    if step == size:
        windows = input.narrow(dimension, 0, count * size)
    else:
        starts = np.arange(count)[:, None] * step
        index = (starts + np.arange(size)[None, :]).reshape(-1)
        windows = ops.gather(input, mindspore.Tensor(index, mindspore.int32), dimension)
    windows = windows.reshape(outer + (count, size) + inner)
    return ops.moveaxis(windows, dimension + 1, -1)


def _triple(value):
    return tuple(value) if isinstance(value, (tuple, list)) else (value,) * 3


class Conv3d(_TorchConv, nn.Conv3d):
    """`torch.nn.Conv3d`: MindSpore's Conv3d (a CPU kernel, same weight layout) with explicit
    per-side padding (torch's 'same' puts the odd voxel after), torch's `bias=True` default,
    `padding_mode` and its attributes."""

    def __init__(
        self,
        in_channels,
        out_channels,
        kernel_size,
        stride=1,
        padding=0,
        dilation=1,
        groups=1,
        bias=True,
        padding_mode="zeros",
        device=None,
        dtype=None,
    ):
        kernel_size, stride, dilation = (
            _triple(kernel_size),
            _triple(stride),
            _triple(dilation),
        )
        (front, back), (top, bottom), (left, right) = _conv_padding(
            padding, kernel_size, stride, dilation, 3
        )
        zeros = padding_mode == "zeros"
        super().__init__(
            in_channels,
            out_channels,
            kernel_size,
            stride=stride,
            pad_mode="pad",
            padding=(front, back, top, bottom, left, right) if zeros else 0,
            dilation=dilation,
            group=groups,
            has_bias=bias,
        )
        self._input_pad = None if zeros else (left, right, top, bottom, front, back)
        if not isinstance(padding, str):
            padding = _triple(padding)
        self._torch_attributes(
            kernel_size, stride, padding, dilation, groups, padding_mode
        )
        self.output_padding = (0, 0, 0)

    def construct(self, x):
        return super().construct(self._pad_input(x))


class Dropout2d(nn.Dropout2d):
    """`torch.nn.Dropout2d`: zeroes whole channels with probability `p` in training mode and
    scales the rest by 1 / (1 - p), with one mask of shape (N, C, 1, ...) from `ops.dropout`.
    Like torch's, it takes any rank and reads the first two axes as (N, C): a 3-D input drops
    (N, C) rows of length L, a 2-D input single elements; MindSpore's Dropout2d takes 4-D input
    only. `inplace` changes nothing."""

    def __init__(self, p=0.5, inplace=False):
        super().__init__(p=float(p))
        self.p = p
        self.inplace = inplace

    def construct(self, x):
        if not self.training or self.p == 0:
            return x
        if self.p == 1:
            return x * 0
        shape = x.shape[:2] + (1,) * (x.ndim - 2)
        return x * ops.dropout(ops.ones(shape, x.dtype), p=self.p)

    def extend_repr(self):
        return f"p={self.p}, inplace={self.inplace}"
