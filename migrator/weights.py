"""A PyTorch `state_dict` as a MindSpore checkpoint: names and layouts mapped per layer.

Each key `prefix.param` belongs to the layer at `prefix`. Its kind comes from the model's source when
given (the same analysis the nn rules use: `self.bn = nn.BatchNorm2d(...)`), else from the tensors
themselves: running statistics mean BatchNorm, a 1-D `weight` with a `bias` means a norm layer.
A 2-D `weight` without bias may be a Linear or an Embedding; without the source it keeps its name
and is listed as assumed. Linear and Conv2d weights have the same layout in both frameworks;
Conv1d weights gain MindSpore's height axis: (out, in, k) → (out, in, 1, k).

The checkpoint is written with `mindspore.save_checkpoint` when MindSpore is installed, else by
the encoder below, which writes the same bytes (a protobuf `Checkpoint` message; tested against
MindSpore 2.10).
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import numpy as np

from ..rules.nn.facts import Facts, analyse
from ..rules.nn.layers import param_names
from .aliases import torch_aliases

BATCH_NORM = "torch.nn.BatchNorm2d"
LAYER_NORM = "torch.nn.LayerNorm"
# Layers whose weight gains an axis at position 2 in MindSpore.
ONE_D_CONVS = frozenset({"torch.nn.Conv1d", "torch.nn.ConvTranspose1d"})
DROPPED = {"num_batches_tracked": "MindSpore's BatchNorm keeps no step counter"}

# numpy dtype -> the type name a MindSpore checkpoint records.
CKPT_TYPES = {
    "float16": "Float16",
    "float32": "Float32",
    "float64": "Float64",
    "int8": "Int8",
    "int16": "Int16",
    "int32": "Int32",
    "int64": "Int64",
    "uint8": "UInt8",
    "uint16": "UInt16",
    "uint32": "UInt32",
    "uint64": "UInt64",
    "bool": "Bool",
}


class WeightsError(Exception):
    """An input that cannot be converted, with a message for the user."""


@dataclass
class Entry:
    name: str
    source: str
    array: np.ndarray
    layer: str | None = None


@dataclass
class Conversion:
    entries: list[Entry] = field(default_factory=list)
    dropped: list[tuple[str, str]] = field(default_factory=list)
    # Keys whose layer kind was assumed from their shapes alone.
    assumed: list[tuple[str, str]] = field(default_factory=list)

    @property
    def renamed(self) -> list[tuple[str, str]]:
        return [(e.source, e.name) for e in self.entries if e.source != e.name]


# -- layer kinds ----------------------------------------------------------------------------
def kinds_from_source(
    source: str, model: str | None = None
) -> Callable[[str], str | None]:
    """A function from a module path (`encoder.norm`) to its torch layer, read from model source."""
    tree = ast.parse(source)
    known = analyse(tree, torch_aliases(tree))
    if model is not None and model not in known.classes:
        raise WeightsError(f"no Module class named {model!r} in the source")
    roots = [model] if model else list(known.classes)

    def kind_of(prefix: str) -> str | None:
        for root in roots:
            layer = _walk(known, root, prefix.split(".") if prefix else [])
            if layer is not None:
                return layer
        return None

    return kind_of


def _walk(known: Facts, root: str, parts: list[str]) -> str | None:
    kind: str | None = "class:" + root
    for part in parts:
        if kind is None:
            return None
        if kind.startswith("class:"):
            kind = known.attr(kind[6:], part)
        elif kind.startswith(("list:", "seq:")):
            kind = known.element(kind, int(part)) if part.isdigit() else None
        else:
            return None
    return kind[6:] if kind is not None and kind.startswith("layer:") else None


def _guess(group: Mapping[str, np.ndarray]) -> tuple[str | None, str]:
    """The layer a group of tensors belongs to, judged from their names and shapes alone."""
    weight = group.get("weight")
    if "running_mean" in group and "running_var" in group:
        return BATCH_NORM, ""
    if weight is None:
        return None, ""
    if weight.ndim == 1 and "bias" in group:
        return LAYER_NORM, ""
    if weight.ndim == 1:
        return (
            None,
            "a 1-D weight without bias (LayerNorm(bias=False) or PReLU): kept as `weight`",
        )
    if weight.ndim == 2 and "bias" not in group:
        return (
            None,
            "a 2-D weight without bias (Linear(bias=False) or Embedding): kept as `weight`",
        )
    if weight.ndim == 3:
        return (
            "torch.nn.Conv1d",
            "a 3-D weight, taken as a Conv1d: reshaped to (out, in, 1, k)",
        )
    return None, ""


def convert_state(
    state: Mapping[str, np.ndarray], kind_of: Callable[[str], str | None] | None = None
) -> Conversion:
    """Map a state_dict's names and layouts to MindSpore's."""
    groups: dict[str, dict[str, np.ndarray]] = {}
    for key, value in state.items():
        prefix, _, leaf = key.rpartition(".")
        groups.setdefault(prefix, {})[leaf] = value
    result = Conversion()
    for key, value in state.items():
        prefix, _, leaf = key.rpartition(".")
        if leaf in DROPPED:
            result.dropped.append((key, DROPPED[leaf]))
            continue
        layer = kind_of(prefix) if kind_of is not None else None
        if layer is None:
            layer, why = _guess(groups[prefix])
            if why and leaf == "weight":
                result.assumed.append((key, why))
        new_leaf = param_names(layer).get(leaf, leaf) if layer else leaf
        array = np.asarray(value)
        if layer in ONE_D_CONVS and leaf == "weight" and array.ndim == 3:
            array = np.expand_dims(array, 2)
        name = f"{prefix}.{new_leaf}" if prefix else new_leaf
        result.entries.append(Entry(name, key, array, layer))
    return result


# -- reading and writing --------------------------------------------------------------------
def read_pth(path: str) -> dict[str, np.ndarray]:
    """A `.pth` state_dict as NumPy arrays; needs torch."""
    try:
        import torch
    except ImportError as error:
        raise WeightsError(
            "reading a .pth file needs PyTorch: pip install torch"
        ) from error
    try:
        loaded = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as error:  # torch raises many types for unreadable files
        raise WeightsError(f"could not read {path} as a state_dict: {error}") from error
    if isinstance(loaded, Mapping) and not all(
        isinstance(v, torch.Tensor) for v in loaded.values()
    ):
        nested = [
            k
            for k in ("state_dict", "model", "model_state_dict")
            if isinstance(loaded.get(k), Mapping)
        ]
        if not nested:
            raise WeightsError(
                f"{path} holds a dict that is not a state_dict (keys: {', '.join(map(str, list(loaded)[:8]))})"
            )
        loaded = loaded[nested[0]]
    if not isinstance(loaded, Mapping):
        raise WeightsError(
            f"{path} does not hold a state_dict but a {type(loaded).__name__}"
        )
    arrays = {}
    for key, tensor in loaded.items():
        tensor = tensor.detach().cpu()
        if tensor.dtype == torch.bfloat16:
            tensor = tensor.float()
        arrays[str(key)] = tensor.numpy()
    return arrays


def encode_checkpoint(entries: list[tuple[str, np.ndarray]]) -> bytes:
    """A MindSpore `.ckpt`: the protobuf message Checkpoint{repeated Value{tag, TensorProto}}."""
    out = bytearray()
    for name, array in entries:
        array = np.ascontiguousarray(array)
        type_name = CKPT_TYPES.get(array.dtype.name)
        if type_name is None:
            raise WeightsError(
                f"{name}: dtype {array.dtype} has no MindSpore checkpoint type"
            )
        tensor = bytearray()
        for dim in array.shape:
            tensor += b"\x08" + _varint(dim)
        tensor += _field(2, type_name.encode())
        tensor += _field(
            3, array.astype(array.dtype.newbyteorder("<"), copy=False).tobytes()
        )
        value = _field(1, name.encode()) + _field(2, bytes(tensor))
        out += _field(1, value)
    return bytes(out)


def _varint(number: int) -> bytes:
    out = bytearray()
    while True:
        byte = number & 0x7F
        number >>= 7
        if number:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def _field(number: int, payload: bytes) -> bytes:
    return _varint(number << 3 | 2) + _varint(len(payload)) + payload


def checkpoint_path(path: str) -> str:
    """The file MindSpore writes for ``path``: `save_checkpoint` appends `.ckpt` to other names."""
    return path if path.endswith(".ckpt") else path + ".ckpt"


def write_ckpt(
    path: str, entries: list[tuple[str, np.ndarray]], use_mindspore: bool | None = None
) -> str:
    """Write a checkpoint at ``checkpoint_path(path)``; returns the writer used ("mindspore" or "encoder")."""
    path = checkpoint_path(path)
    if use_mindspore is None:
        try:
            import mindspore
        except ImportError:
            use_mindspore = False
        else:
            use_mindspore = True
    if use_mindspore:
        import mindspore

        mindspore.save_checkpoint(
            [{"name": n, "data": mindspore.Tensor(a)} for n, a in entries], path
        )
        return "mindspore"
    with open(path, "wb") as handle:
        handle.write(encode_checkpoint(entries))
    return "encoder"


def convert_file(
    source_path: str,
    target_path: str,
    model_source: str | None = None,
    model: str | None = None,
    use_mindspore: bool | None = None,
) -> Conversion:
    state = read_pth(source_path)
    kind_of = (
        kinds_from_source(model_source, model) if model_source is not None else None
    )
    conversion = convert_state(state, kind_of)
    write_ckpt(
        target_path, [(e.name, e.array) for e in conversion.entries], use_mindspore
    )
    return conversion


__all__ = [
    "Conversion",
    "WeightsError",
    "checkpoint_path",
    "convert_file",
    "convert_state",
    "encode_checkpoint",
    "kinds_from_source",
    "read_pth",
    "write_ckpt",
]
