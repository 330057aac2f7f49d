"""One side of `torch2ms weights --model` and `torch2ms compare-model`: a model built in its own
process, by the interpreter of its framework.

Run as a file, ``PYTHON model_side.py REQUEST.json``. It imports the standard library, NumPy, its
framework, the model's package and ``placement.py`` beside it (by path), so the MindSpore side runs
where neither torch2ms nor torch is installed; there torch and torchvision are blocked, as on a
machine without them. The request (JSON) says:

- ``framework``: ``torch`` or ``mindspore``; ``roots``: folders put first on ``sys.path``;
- ``model``: ``package.module:expression``, the expression evaluated in that module's namespace
  (``timm:create_model('resnet18')``); a class or function alone is called without arguments;
- ``state_out`` (torch): write the model's ``state_dict`` here (``.npz``);
- ``state_in`` (mindspore): place that state_dict on the model by its own names
  (``placement.place``) and load it; ``checkpoint_out``: write the placed checkpoint there;
- ``inputs`` (``.npz``, ``arg0``, ``arg1``, ...): run the model on them, recording the output of
  every submodule/Cell through forward hooks into ``outputs`` (``.npz``);
- ``result``: where the JSON result goes (status, error, placement, modules in call order).
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import json
import os
import sys
import traceback

import numpy as np

BLOCKED = ("torch", "torchvision")


def _block_torch() -> None:
    class Blocker:
        def find_spec(self, fullname, path=None, target=None):
            if fullname.split(".")[0] in BLOCKED:
                raise ModuleNotFoundError(
                    f"No module named {fullname!r} (torch is absent here)"
                )

    sys.meta_path.insert(0, Blocker())


def _placement():
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "placement.py")
    spec = importlib.util.spec_from_file_location("torch2ms_placement", here)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


class _ModuleNames(dict):
    """A module's namespace for ``eval``: its attributes, including lazily exported ones."""

    def __init__(self, module) -> None:
        super().__init__(vars(module))
        self.module = module

    def __missing__(self, name: str):
        try:
            return getattr(self.module, name)
        except AttributeError:
            raise KeyError(name) from None


def build(spec: str):
    """The object ``package.module:expression`` describes."""
    module_name, _, expression = spec.partition(":")
    module = importlib.import_module(module_name.strip())
    if not expression.strip():
        raise ValueError(f"{spec!r}: write package.module:expression")
    # Names are looked up on the module itself, so lazily exported ones resolve too.
    model = eval(expression, {"__builtins__": __builtins__}, _ModuleNames(module))
    if inspect.isclass(model) or inspect.isfunction(model):
        model = model()
    return model


def _where(function) -> tuple[str, int]:
    try:
        function = inspect.unwrap(function)
        return inspect.getsourcefile(function) or "?", inspect.getsourcelines(function)[
            1
        ]
    except (TypeError, OSError):
        return "?", 0


def _flat(value, to_numpy, out: list) -> list:
    """The tensors of a module's output, in order (tuples, lists, dicts and dataclasses walked)."""
    array = to_numpy(value)
    if array is not None:
        out.append(array)
    elif isinstance(value, dict):
        for item in value.values():
            _flat(item, to_numpy, out)
    elif isinstance(value, (list, tuple)):
        for item in value:
            _flat(item, to_numpy, out)
    elif hasattr(value, "__dataclass_fields__"):
        for key in value.__dataclass_fields__:
            _flat(getattr(value, key, None), to_numpy, out)
    return out


class Recorder:
    """Forward hooks on every submodule: each call's output, keyed ``name#call``."""

    def __init__(self, to_numpy) -> None:
        self.to_numpy = to_numpy
        self.arrays: dict[str, np.ndarray] = {}
        self.order: list[str] = []
        self.calls: dict[str, int] = {}

    def hook(self, name: str):
        def record(module, args, output):
            count = self.calls.get(name, 0) + 1
            self.calls[name] = count
            key = f"{name}#{count}"
            self.order.append(key)
            for i, array in enumerate(_flat(output, self.to_numpy, [])):
                self.arrays[f"{key}:{i}"] = array

        return record


def _modules(named, method: str) -> list[dict]:
    rows = []
    for name, module in named:
        path, line = _where(getattr(type(module), method, None))
        rows.append(
            {
                "name": name,
                "class": type(module).__qualname__,
                "file": path,
                "line": line,
            }
        )
    return rows


# -- torch ------------------------------------------------------------------------------------
def side_torch(request: dict, result: dict) -> None:
    import torch

    torch.manual_seed(request.get("seed", 0))
    model = build(request["model"])
    model.eval()
    result["built"] = True

    def to_numpy(value):
        if isinstance(value, torch.Tensor):
            value = value.detach().cpu()
            # a copy: an in-place op after the hook (ReLU(inplace=True)) must not change it
            return (
                (value.float() if value.dtype == torch.bfloat16 else value)
                .numpy()
                .copy()
            )
        return None

    if request.get("state_out"):
        state = {k: to_numpy(v) for k, v in model.state_dict().items()}
        np.savez(request["state_out"], **state)
    if request.get("inputs"):
        named = list(model.named_modules())
        result["modules"] = _modules(named, "forward")
        recorder = Recorder(to_numpy)
        for name, module in named:
            module.register_forward_hook(recorder.hook(name))
        data = np.load(request["inputs"])
        args = [torch.from_numpy(data[f"arg{i}"]) for i in range(len(data.files))]
        with torch.no_grad():
            output = model(*args)
        _finish_run(request, result, recorder, _flat(output, to_numpy, []))


# -- mindspore --------------------------------------------------------------------------------
def _torch_locals(cell, mindspore) -> dict[str, str]:
    """torch's local parameter names for the cell's MindSpore names, by the cell's layer kind."""
    # A converted tree's companion layers declare torch's names for their parameters.
    declared = getattr(type(cell), "_torch_names", None)
    if isinstance(declared, dict) and declared:
        return {ms: torch for torch, ms in declared.items()}
    nn = mindspore.nn
    norms = nn.layer.normalization
    if isinstance(cell, (norms._BatchNorm, norms._InstanceNorm)):
        return {
            "gamma": "weight",
            "beta": "bias",
            "moving_mean": "running_mean",
            "moving_variance": "running_var",
        }
    if isinstance(cell, (nn.LayerNorm, nn.GroupNorm)):
        return {"gamma": "weight", "beta": "bias"}
    if isinstance(cell, nn.Embedding):
        return {"embedding_table": "weight"}
    if isinstance(cell, nn.PReLU):
        return {"w": "weight"}
    return {}


def _walk(cell, prefix: str = "", stack: tuple = ()):
    """Every (path, cell), shared cells under each of their paths."""
    yield prefix, cell
    for key, child in cell._cells.items():
        if child is None or id(child) in stack:
            continue
        path = f"{prefix}.{key}" if prefix else key
        yield from _walk(child, path, (*stack, id(cell)))


def describe(net, mindspore) -> list[dict]:
    """The model's Parameters as placement slots: names, torch names, shapes, layouts."""
    nn = mindspore.nn
    places: dict[int, list] = {}
    for prefix, cell in _walk(net):
        for local, param in cell._params.items():
            if param is not None:
                places.setdefault(id(param), []).append((prefix, local, cell))
    slots = []
    for _, param in net.parameters_and_names():
        torch_names, layout, constant = [], None, None
        for prefix, local, cell in places.get(id(param), []):
            renamed = _torch_locals(cell, mindspore).get(local, local)
            for leaf in (renamed, local):
                torch_names.append(f"{prefix}.{leaf}" if prefix else leaf)
            if isinstance(cell, (nn.Conv1d, nn.Conv1dTranspose)) and local == "weight":
                layout = "conv1d"
            # MindSpore's norm layers without affine parameters keep frozen ones (1 and 0),
            # for which torch's state_dict holds nothing.
            if (
                local in ("gamma", "beta")
                and renamed != local
                and not param.requires_grad
            ):
                constant = 1.0 if local == "gamma" else 0.0
        slots.append(
            {
                "name": param.name,
                "shape": list(param.shape),
                "dtype": "bfloat16"
                if param.dtype == mindspore.bfloat16
                else np.dtype(mindspore.dtype_to_nptype(param.dtype)).name,
                "torch_names": torch_names,
                "layout": layout,
                "constant": constant,
            }
        )
    return slots


def side_mindspore(request: dict, result: dict) -> None:
    _block_torch()
    import mindspore

    mindspore.set_seed(request.get("seed", 0))
    net = build(request["model"])
    result["built"] = True
    if request.get("state_in"):
        placement_module = _placement()
        slots = [placement_module.Slot.from_dict(s) for s in describe(net, mindspore)]
        with np.load(request["state_in"]) as data:
            state = {key: data[key] for key in data.files}
        placement = placement_module.place(state, slots)
        result["placement"] = placement.to_dict()
        if not placement.ok:
            result["status"] = "misfit"
            return
        entries = [
            {"name": n, "data": mindspore.Tensor(a)} for n, a, _ in placement.entries
        ]
        target = request.get("checkpoint_out")
        if target:
            mindspore.save_checkpoint(entries, target)
            params = mindspore.load_checkpoint(target)
        else:
            params = {
                e["name"]: mindspore.Parameter(e["data"], name=e["name"])
                for e in entries
            }
        unloaded, unused = mindspore.load_param_into_net(net, params)
        result["unloaded"], result["unused"] = list(unloaded), list(unused)
    if request.get("inputs"):
        net.set_train(False)

        def to_numpy(value):
            if isinstance(value, mindspore.Tensor):
                if value.dtype == mindspore.bfloat16:
                    value = value.astype(mindspore.float32)
                return value.asnumpy().copy()
            return None

        named = list(net.cells_and_names())
        result["modules"] = _modules(named, "construct")
        recorder = Recorder(to_numpy)
        for name, cell in named:
            cell.register_forward_hook(recorder.hook(name))
        data = np.load(request["inputs"])
        args = [mindspore.Tensor(data[f"arg{i}"]) for i in range(len(data.files))]
        output = net(*args)
        _finish_run(request, result, recorder, _flat(output, to_numpy, []))


def _finish_run(request: dict, result: dict, recorder: Recorder, outputs: list) -> None:
    arrays = dict(recorder.arrays)
    for i, array in enumerate(outputs):
        arrays[f"output:{i}"] = array
    np.savez(request["outputs"], **arrays)
    result["order"] = recorder.order
    result["outputs"] = len(outputs)


def main(argv: list[str]) -> int:
    with open(argv[0], encoding="utf-8") as handle:
        request = json.load(handle)
    for root in reversed(request.get("roots", [])):
        sys.path.insert(0, root)
    result: dict = {"status": "ok", "built": False}
    try:
        if request["framework"] == "torch":
            side_torch(request, result)
        else:
            side_mindspore(request, result)
    except BaseException as error:  # noqa: BLE001 -- reported to the parent
        result["status"] = "error"
        result["error"] = f"{type(error).__name__}: {error}"
        result["traceback"] = traceback.format_exc()[-4000:]
    with open(request["result"], "w", encoding="utf-8") as handle:
        json.dump(result, handle)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
