"""Saving and loading as torch does it: `save`, `load`, `state_dict` and `load_state_dict`.

A converted program keeps torch's checkpoint code: dicts that bundle a model's state with an
optimizer's and an epoch counter, keys written with torch's parameter names, files torch wrote.
`state_dict` names a Cell's tensors the way torch names the same layers (a BatchNorm's `gamma` is
`weight`, its `moving_mean` is `running_mean`), so keys the program reads or filters by name still
match; `load_state_dict` accepts those names and MindSpore's. `save` writes any picklable structure,
its MindSpore tensors as arrays; `load` reads that, and also the zip files `torch.save` writes,
without torch (only tensors and plain containers are rebuilt, as torch's `weights_only=True` does).
A whole Cell (`torch.save(model, f)`) is written as its parameter values and kept for the run:
`load` in the same run gives back a copy of it holding the values written.
"""

import collections
import copy
import io
import os
import pickle
import zipfile

import mindspore
import numpy as np

from .optim_state import (
    _optim_is_scheduler,
    _optim_is_torch_style,
    _optim_load_state_dict,
    _optim_state_dict,
    _scheduler_load_state_dict,
    _scheduler_state_dict,
)

# MindSpore's names for the parameters torch names otherwise, by the MindSpore layer they are in.
_CKPT_NORM = {"weight": "gamma", "bias": "beta"}
_CKPT_STATISTICS = {"running_mean": "moving_mean", "running_var": "moving_variance"}
# torch's buffers with no MindSpore counterpart: read and dropped.
_CKPT_UNKEPT = ("num_batches_tracked",)


def _ckpt_renamed(cell):
    """torch's local parameter names -> the cell's MindSpore names, for one (sub)cell."""
    nn = mindspore.nn
    normalization = nn.layer.normalization
    if isinstance(cell, (normalization._BatchNorm, normalization._InstanceNorm)):
        return {**_CKPT_NORM, **_CKPT_STATISTICS}
    if isinstance(cell, (nn.LayerNorm, nn.GroupNorm)):
        return dict(_CKPT_NORM)
    if isinstance(cell, nn.Embedding):
        return {"weight": "embedding_table"}
    if isinstance(cell, nn.PReLU):
        return {"weight": "w"}
    return {}


def _ckpt_own_names(prefix, cell):
    """(torch's name, MindSpore's name, Parameter) for the parameters ``cell`` holds itself, in
    torch's order: the module's parameters, then its buffers (Parameters that take no gradient)."""
    reverse = {ms: torch for torch, ms in _ckpt_renamed(cell).items()}
    own = list(cell.parameters_and_names(expand=False))
    own.sort(key=lambda item: not item[1].requires_grad)
    dotted = f"{prefix}." if prefix else ""
    return [
        (dotted + reverse.get(local, local), dotted + local, param)
        for local, param in own
    ]


def _ckpt_torch_names(cell):
    """torch's name -> (MindSpore's name, Parameter) for every parameter of ``cell``."""
    names = {}
    for prefix, sub in cell.cells_and_names():
        for torch_name, ms_name, param in _ckpt_own_names(prefix, sub):
            names.setdefault(torch_name, (ms_name, param))
    return names


def _ckpt_has_extra_state(cell):
    """Whether the cell's class defines `get_extra_state`, which torch stores in `state_dict()`
    under `<prefix>_extra_state`."""
    own = getattr(type(cell), "get_extra_state", None)
    return own is not None and own is not getattr(
        mindspore.nn.Cell, "get_extra_state", None
    )


def _ckpt_plain_cell(obj, method):
    """A Cell whose ``method`` is the Cell's own (an optimizer, also a Cell, has its own state)."""
    return isinstance(obj, mindspore.nn.Cell) and getattr(type(obj), method) is getattr(
        mindspore.nn.Cell, method
    )


def state_dict(obj, *args, **kwargs):
    """`obj.state_dict()`: for a Cell, an OrderedDict of its parameters and statistics under
    torch's names for the same layers (what the program's code reads by key); anything else (an
    optimizer, a scheduler, a scaler) answers with its own `state_dict()`; MindSpore's torch-style
    optimizers and schedulers answer in torch's layout."""
    if _optim_is_torch_style(obj):
        return _optim_state_dict(obj)
    if _optim_is_scheduler(obj):
        return _scheduler_state_dict(obj)
    if not _ckpt_plain_cell(obj, "state_dict"):
        return obj.state_dict(*args, **kwargs)
    prefix = kwargs.get("prefix", args[1] if len(args) > 1 else "")
    result = collections.OrderedDict()
    for cell_prefix, sub in obj.cells_and_names():
        for name, _, param in _ckpt_own_names(cell_prefix, sub):
            result.setdefault(prefix + name, param)
        if _ckpt_has_extra_state(sub):
            dotted = f"{cell_prefix}." if cell_prefix else ""
            result[f"{prefix}{dotted}_extra_state"] = sub.get_extra_state()
    return result


_CkptIncompatibleKeys = collections.namedtuple(
    "IncompatibleKeys", ["missing_keys", "unexpected_keys"]
)


def load_state_dict(obj, state_dict, strict=True, assign=False):
    """`obj.load_state_dict(state, strict)`: for a Cell, copies each entry into the parameter of that
    name, taking torch's names and MindSpore's, reshaping a Conv1d weight to MindSpore's layout;
    returns torch's (missing_keys, unexpected_keys), and raises as torch does with `strict=True`.
    torch's `num_batches_tracked` counters have no MindSpore counterpart and are skipped.
    MindSpore's torch-style optimizers and schedulers take torch's layout. Anything else runs its
    own `load_state_dict`."""
    if _optim_is_torch_style(obj):
        return _optim_load_state_dict(obj, state_dict)
    if _optim_is_scheduler(obj):
        return _scheduler_load_state_dict(obj, state_dict)
    if not _ckpt_plain_cell(obj, "load_state_dict"):
        return obj.load_state_dict(state_dict)
    by_torch = _ckpt_torch_names(obj)
    by_ms = {ms: param for ms, param in by_torch.values()}
    extra = {
        (f"{name}." if name else "") + "_extra_state": sub
        for name, sub in obj.cells_and_names()
        if _ckpt_has_extra_state(sub)
    }
    loaded, unexpected = set(), []
    for key, value in state_dict.items():
        if key.rpartition(".")[2] in _CKPT_UNKEPT:
            continue
        if key in extra:
            extra[key].set_extra_state(value)
            loaded.add(key)
            continue
        found = by_ms.get(key)
        if found is None and key in by_torch:
            found = by_torch[key][1]
        if found is None:
            unexpected.append(key)
            continue
        array = _checkpoint_array(value)
        if array.shape != tuple(found.shape):
            if array.size != int(np.prod(found.shape)):
                raise RuntimeError(
                    f"size mismatch for {key}: copying a param with shape {array.shape}, "
                    f"the shape in current model is {tuple(found.shape)}"
                )
            array = array.reshape(tuple(found.shape))
        found.set_data(mindspore.Tensor(array, found.dtype))
        loaded.add(id(found))
    missing = [name for name, (_, p) in by_torch.items() if id(p) not in loaded]
    missing += [key for key in extra if key not in loaded]
    if strict and (missing or unexpected):
        raise RuntimeError(
            f"Error(s) in loading state_dict for {type(obj).__name__}: "
            f"missing keys {missing}, unexpected keys {unexpected}"
        )
    return _CkptIncompatibleKeys(missing, unexpected)


def _checkpoint_array(value):
    if isinstance(value, mindspore.Tensor):
        if value.dtype == mindspore.bfloat16:
            value = value.astype(mindspore.float32)
        return value.asnumpy()
    return np.asarray(value)


# -- files --------------------------------------------------------------------------------------
_CKPT_TENSOR_TAG = "__torch2ms_tensor__"


def save(
    obj,
    f,
    pickle_module=None,
    pickle_protocol=2,
    _use_new_zipfile_serialization=True,
    _disable_byteorder_record=False,
):
    """`torch.save(obj, f)`: pickles ``obj`` with each MindSpore tensor stored as a NumPy array
    (and its dtype); `load` turns them back into tensors. `f` is a path or a binary file. torch's
    file-layout flags change nothing `load` reads."""
    data = pickle.dumps(_ckpt_to_plain(obj), protocol=max(int(pickle_protocol), 2))
    if isinstance(f, (str, os.PathLike)):
        with open(f, "wb") as handle:
            handle.write(data)
    else:
        f.write(data)


_CKPT_CELL_TAG = "__torch2ms_cell__"
# Cells saved whole in this run, by key: torch pickles the module object itself; the file holds
# the key and the Cell's parameter values, and `load` copies the Cell and sets those values.
_CKPT_CELLS = {}


def _ckpt_to_plain(obj):
    if isinstance(obj, mindspore.nn.Cell):
        key = f"{type(obj).__qualname__}#{id(obj)}"
        _CKPT_CELLS[key] = obj
        values = {name: _checkpoint_array(p) for name, p in obj.parameters_and_names()}
        return {_CKPT_CELL_TAG: (key, values)}
    if isinstance(obj, mindspore.Tensor):
        is_bf16 = obj.dtype == mindspore.bfloat16
        return {
            _CKPT_TENSOR_TAG: (_checkpoint_array(obj), "bfloat16" if is_bf16 else "")
        }
    if isinstance(obj, collections.OrderedDict):
        return collections.OrderedDict((k, _ckpt_to_plain(v)) for k, v in obj.items())
    if isinstance(obj, dict):
        return {k: _ckpt_to_plain(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)) and type(obj) in (list, tuple):
        return type(obj)(_ckpt_to_plain(v) for v in obj)
    return obj


def _ckpt_cell(key, values):
    saved = _CKPT_CELLS.get(key)
    if saved is None:
        raise RuntimeError(
            f"{key.split('#')[0]} was saved whole by another run: a Cell cannot be rebuilt "
            "from a file; build the model and load its parameters "
            "(mindspore.load_param_into_net)"
        )
    cell = copy.deepcopy(saved)
    for name, parameter in cell.parameters_and_names():
        if name in values:
            parameter.set_data(mindspore.Tensor(values[name]))
    return cell


def _ckpt_from_plain(obj):
    if isinstance(obj, dict) and set(obj) == {_CKPT_CELL_TAG}:
        return _ckpt_cell(*obj[_CKPT_CELL_TAG])
    if isinstance(obj, dict):
        if set(obj) == {_CKPT_TENSOR_TAG}:
            array, dtype = obj[_CKPT_TENSOR_TAG]
            if dtype == "bfloat16":
                return mindspore.Tensor(array, mindspore.bfloat16)
            return mindspore.Tensor(array)
        items = ((k, _ckpt_from_plain(v)) for k, v in obj.items())
        return (
            collections.OrderedDict(items)
            if isinstance(obj, collections.OrderedDict)
            else dict(items)
        )
    if isinstance(obj, (list, tuple)) and type(obj) in (list, tuple):
        return type(obj)(_ckpt_from_plain(v) for v in obj)
    return obj


def load(
    f, map_location=None, pickle_module=None, *, weights_only=None, mmap=None, **kwargs
):
    """`torch.load(f)`: reads what `save` wrote, or a file `torch.save` wrote (its zip format),
    into MindSpore tensors. `map_location` and `mmap` mean nothing here (MindSpore places tensors
    itself). A torch file is read like torch's `weights_only=True`: tensors, numbers, strings and
    containers only; anything else raises, naming the class. A MindSpore checkpoint (a `.ckpt`
    that `mindspore.save_checkpoint` wrote) gives its dict of Parameters; where `f` does not exist
    but `f + ".ckpt"` does (`torch2ms weights net.pth net.pth` writes that name), that is read."""
    if isinstance(f, (str, os.PathLike)):
        path = os.fspath(f)
        if not os.path.exists(path) and os.path.exists(path + ".ckpt"):
            path += ".ckpt"
        with open(path, "rb") as handle:
            data = handle.read()
        if path.endswith(".safetensors") or (
            path.endswith(".ckpt") and data[:1] != b"\x80" and data[:4] != b"PK\x03\x04"
        ):
            return collections.OrderedDict(mindspore.load_checkpoint(path))
    else:
        data = f.read()
    if data[:4] == b"PK\x03\x04":
        return _ckpt_torch_zip(data)
    return _ckpt_from_plain(pickle.loads(data))


# torch's storage classes -> NumPy dtypes ("bfloat16" is widened to float32 on reading).
_CKPT_STORAGES = {
    "FloatStorage": np.float32,
    "DoubleStorage": np.float64,
    "HalfStorage": np.float16,
    "BFloat16Storage": "bfloat16",
    "LongStorage": np.int64,
    "IntStorage": np.int32,
    "ShortStorage": np.int16,
    "CharStorage": np.int8,
    "ByteStorage": np.uint8,
    "BoolStorage": np.bool_,
}
_CKPT_SAFE_GLOBALS = {
    ("collections", "OrderedDict"): collections.OrderedDict,
    ("builtins", "set"): set,
    ("builtins", "frozenset"): frozenset,
    ("builtins", "slice"): slice,
    ("builtins", "complex"): complex,
}


class _CkptStorage:
    def __init__(self, dtype, key):
        self.dtype, self.key = dtype, key


def _ckpt_torch_zip(data):
    archive = zipfile.ZipFile(io.BytesIO(data))
    names = archive.namelist()
    pickle_name = next(n for n in names if n.endswith("data.pkl"))
    root = pickle_name[: -len("data.pkl")]
    arrays = {}

    def storage_array(storage):
        if storage.key not in arrays:
            raw = archive.read(f"{root}data/{storage.key}")
            if storage.dtype == "bfloat16":
                bits = np.frombuffer(raw, np.uint16).astype(np.uint32) << 16
                arrays[storage.key] = bits.view(np.float32)
            else:
                arrays[storage.key] = np.frombuffer(raw, storage.dtype)
        return arrays[storage.key]

    def rebuild_tensor(storage, offset, size, stride, *rest):
        flat = storage_array(storage)
        itemsize = flat.itemsize
        view = np.lib.stride_tricks.as_strided(
            flat[offset:],
            shape=tuple(size),
            strides=tuple(s * itemsize for s in stride),
        )
        array = np.ascontiguousarray(view)
        if storage.dtype == "bfloat16":
            return mindspore.Tensor(array, mindspore.bfloat16)
        return mindspore.Tensor(array)

    def rebuild_parameter(tensor, requires_grad, *rest):
        return tensor

    class _Unpickler(pickle.Unpickler):
        def find_class(self, module, name):
            if module == "torch._utils" and name == "_rebuild_tensor_v2":
                return rebuild_tensor
            if module == "torch._utils" and name == "_rebuild_parameter":
                return rebuild_parameter
            if module == "torch" and name in _CKPT_STORAGES:
                return _CKPT_STORAGES[name]
            if (module, name) in _CKPT_SAFE_GLOBALS:
                return _CKPT_SAFE_GLOBALS[(module, name)]
            raise pickle.UnpicklingError(
                f"{module}.{name} in a torch checkpoint: only tensors and plain containers are "
                "read without torch"
            )

        def persistent_load(self, saved_id):
            kind, storage_type, key, _location, _numel = saved_id[:5]
            if kind != "storage":
                raise pickle.UnpicklingError(f"unknown persistent id {kind!r}")
            return _CkptStorage(storage_type, key)

    return _Unpickler(io.BytesIO(archive.read(pickle_name))).load()
