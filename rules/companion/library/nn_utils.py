"""`torch.nn.utils`: padded and packed sequences, and parameters as one vector.

A PackedSequence holds the time steps of a batch of sequences one after another, longest first,
as torch lays them out: `data` (sum of lengths, *), `batch_sizes` (how many sequences are still
running at each step, int64), and the permutations that sorted the batch by length. The index
bookkeeping runs on the host, as torch's does on the CPU; the values move with `ops.gather`, so
gradients flow through packing and padding.
"""

import collections

import mindspore
import numpy as np
from mindspore import Tensor, ops


def _host(values):
    """A tensor, list or tuple of ints as an int64 NumPy array."""
    if isinstance(values, Tensor):
        values = values.asnumpy()
    return np.asarray(values, dtype=np.int64).reshape(-1)


def _int64(values):
    return Tensor(np.asarray(values, dtype=np.int64))


def pad_sequence(sequences, batch_first=False, padding_value=0.0, padding_side="right"):
    """`torch.nn.utils.rnn.pad_sequence`: the sequences padded to the longest and stacked,
    (T, B, *) or, with `batch_first`, (B, T, *)."""
    if padding_side not in ("right", "left"):
        raise ValueError(f"padding_side must be 'left' or 'right', got {padding_side!r}")
    sequences = list(sequences)
    longest = max(int(s.shape[0]) for s in sequences)
    padded = []
    for sequence in sequences:
        missing = longest - int(sequence.shape[0])
        if missing:
            pad = ops.full(
                (missing, *sequence.shape[1:]), padding_value, dtype=sequence.dtype
            )
            parts = [sequence, pad] if padding_side == "right" else [pad, sequence]
            sequence = ops.cat(parts, 0)
        padded.append(sequence)
    return ops.stack(padded, 0 if batch_first else 1)


def unpad_sequence(padded_sequences, lengths, batch_first=False):
    """`torch.nn.utils.rnn.unpad_sequence`: the list of sequences, each cut to its length."""
    if not batch_first:
        padded_sequences = ops.swapaxes(padded_sequences, 0, 1)
    return [
        padded_sequences[index][: int(length)]
        for index, length in enumerate(_host(lengths))
    ]


def invert_permutation(permutation):
    """`torch.nn.utils.rnn.invert_permutation`: the permutation that undoes `permutation`."""
    if permutation is None:
        return None
    return _int64(np.argsort(_host(permutation), kind="stable"))


class PackedSequence(
    collections.namedtuple(
        "PackedSequence", ["data", "batch_sizes", "sorted_indices", "unsorted_indices"]
    )
):
    """`torch.nn.utils.rnn.PackedSequence`: a named tuple of `data`, `batch_sizes`,
    `sorted_indices` and `unsorted_indices` (the inverse of `sorted_indices` when not given)."""

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        if unsorted_indices is None:
            unsorted_indices = invert_permutation(sorted_indices)
        return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)

    def _with_data(self, data):
        return type(self)(data, self.batch_sizes, self.sorted_indices, self.unsorted_indices)

    def to(self, *args, **kwargs):
        """A dtype among the arguments converts `data`; devices and flags change nothing."""
        dtype = kwargs.get("dtype")
        for arg in args:
            if isinstance(arg, mindspore.dtype.Type):
                dtype = arg
        return self if dtype is None else self._with_data(self.data.astype(dtype))

    def cpu(self):
        return self

    cuda = pin_memory = cpu

    def double(self):
        return self._with_data(self.data.astype(mindspore.float64))

    def float(self):
        return self._with_data(self.data.astype(mindspore.float32))

    def half(self):
        return self._with_data(self.data.astype(mindspore.float16))

    def long(self):
        return self._with_data(self.data.astype(mindspore.int64))

    def int(self):
        return self._with_data(self.data.astype(mindspore.int32))

    @property
    def is_cuda(self):
        return False

    def is_pinned(self):
        return False


def _step_sizes(lengths):
    """How many of the (longest first) sequences are still running at each time step."""
    steps = np.arange(int(lengths.max()))
    return (lengths[None, :] > steps[:, None]).sum(axis=1).astype(np.int64)


def pack_padded_sequence(input, lengths, batch_first=False, enforce_sorted=True):
    """`torch.nn.utils.rnn.pack_padded_sequence`: a padded batch (T, B, *) or (B, T, *) as a
    PackedSequence; with `enforce_sorted=False` the batch is sorted by length first."""
    lengths = _host(lengths)
    if enforce_sorted:
        if np.any(lengths[:-1] < lengths[1:]):
            raise RuntimeError(
                "`lengths` array must be sorted in decreasing order when `enforce_sorted` "
                "is True. You can pass `enforce_sorted=False` to pack_padded_sequence "
                "and/or pack_sequence to sidestep this requirement if you do not need "
                "ONNX exportability."
            )
        order = None
    else:
        order = np.argsort(-lengths, kind="stable")
        lengths = lengths[order]
    batch_axis = 0 if batch_first else 1
    if order is not None:
        input = ops.gather(input, _int64(order), batch_axis)
    if batch_first:
        input = ops.swapaxes(input, 0, 1)
    sizes = _step_sizes(lengths)
    batch = int(input.shape[1])
    flat = input.reshape((int(input.shape[0]) * batch, *input.shape[2:]))
    index = np.concatenate([step * batch + np.arange(n) for step, n in enumerate(sizes)])
    data = ops.gather(flat, _int64(index), 0)
    sorted_indices = None if order is None else _int64(order)
    return PackedSequence(data, _int64(sizes), sorted_indices, None)


def pad_packed_sequence(
    sequence, batch_first=False, padding_value=0.0, total_length=None
):
    """`torch.nn.utils.rnn.pad_packed_sequence`: (padded batch, lengths), the batch in the
    order it had before packing and the lengths as an int64 tensor."""
    sizes = _host(sequence.batch_sizes)
    batch, steps = int(sizes[0]), len(sizes)
    if total_length is not None:
        if total_length < steps:
            raise ValueError(
                "Expected total_length to be at least the length of the longest sequence "
                f"in the input, but got total_length={total_length} and max sequence "
                f"length being {steps}"
            )
        steps = total_length
    data = sequence.data
    filler = ops.full((1, *data.shape[1:]), padding_value, dtype=data.dtype)
    source = ops.cat([data, filler], 0)
    index = np.full((steps, batch), int(data.shape[0]), dtype=np.int64)
    start = 0
    for step, n in enumerate(sizes):
        index[step, :n] = np.arange(start, start + n)
        start += n
    padded = ops.gather(source, _int64(index.reshape(-1)), 0)
    padded = padded.reshape((steps, batch, *data.shape[1:]))
    lengths = (index[: len(sizes)] < int(data.shape[0])).sum(axis=0).astype(np.int64)
    if sequence.unsorted_indices is not None:
        unsorted = _host(sequence.unsorted_indices)
        padded = ops.gather(padded, _int64(unsorted), 1)
        lengths = lengths[unsorted]
    if batch_first:
        padded = ops.swapaxes(padded, 0, 1)
    return padded, _int64(lengths)


def pack_sequence(sequences, enforce_sorted=True):
    """`torch.nn.utils.rnn.pack_sequence`: a list of sequences as a PackedSequence."""
    lengths = [int(s.shape[0]) for s in sequences]
    return pack_padded_sequence(
        pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted
    )


def unpack_sequence(packed_sequences):
    """`torch.nn.utils.rnn.unpack_sequence`: a PackedSequence as the list of its sequences."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)


def parameters_to_vector(parameters):
    """`torch.nn.utils.parameters_to_vector`: the parameters flattened into one vector."""
    return ops.cat([p.reshape(-1) for p in parameters])


def vector_to_parameters(vec, parameters):
    """`torch.nn.utils.vector_to_parameters`: the parameters set from slices of `vec`, in
    order."""
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected Tensor, but got: {type(vec).__name__}")
    start = 0
    for param in parameters:
        size = int(np.prod(param.shape))
        param.set_data(vec[start : start + size].reshape(param.shape).astype(param.dtype))
        start += size
