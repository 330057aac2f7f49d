"""Run one script and record what it observably computes (the child side of ``torch2ms verify``).

``python -m torch2ms.migrator.observe --backend shim|real --out OBS.npz SCRIPT`` runs SCRIPT as
``__main__`` (its printed output goes to stdout, which the parent parses) and writes to OBS.npz:
the final parameters of its top-level torch modules and MindSpore cells, its top-level tensors and
arrays, and how the run ended. Parameter names are written in MindSpore's spelling (BatchNorm
``weight`` → ``gamma`` ..., from the nn rules' table in rules/nn/layers.py) so both sides compare
by name.

``--record-init FILE`` saves each torch module's parameters at its first outermost call;
``--inject-init FILE`` copies them into the MindSpore cells at their first outermost call, so a
conversion starts from the original's initial state even where the frameworks draw different
random numbers. Imports stay light: this runs once per side.
"""

from __future__ import annotations

import argparse
import json
import os
import runpy
import sys
import traceback

import numpy as np

from ..rules.nn.layers import NO_COUNTERPART, PARAM_NAMES


def _layer_map(module) -> dict[str, str]:
    """torch attribute → MindSpore parameter name for this layer (BatchNorm ``weight`` → ``gamma`` ...)."""
    for cls in type(module).__mro__:
        mapping = PARAM_NAMES.get(f"torch.nn.{cls.__name__}")
        if mapping is not None:
            return mapping
    return {}


def _method(value, name: str):
    # Looked up on the type: a facade's module-level ``__getattr__`` raises for names it lacks.
    return getattr(value, name) if callable(getattr(type(value), name, None)) else None


def to_numpy(value) -> np.ndarray:
    """A copy: torch's ``numpy()`` shares memory with a parameter that training goes on updating."""
    if isinstance(value, np.ndarray):
        return value.copy()
    asnumpy = _method(value, "asnumpy")
    if asnumpy is not None:
        return np.array(asnumpy())
    detach = _method(value, "detach")
    if detach is not None:
        value = detach()
    numpy = _method(value, "numpy")
    if numpy is not None:
        try:
            return np.array(numpy())
        except (TypeError, RuntimeError):  # bfloat16 and friends
            return np.array(value.float().numpy())
    return np.array(value)


def _frameworks():
    torch = sys.modules.get("torch")
    mindspore = sys.modules.get("mindspore")
    module_cls = getattr(getattr(torch, "nn", None), "Module", None)
    cell_cls = getattr(getattr(mindspore, "nn", None), "Cell", None)
    tensor_classes = tuple(
        c
        for c in (getattr(torch, "Tensor", None), getattr(mindspore, "Tensor", None))
        if isinstance(c, type)
    )
    return module_cls, cell_cls, tensor_classes


def torch_state(module) -> dict[str, np.ndarray]:
    """A torch module's parameters and buffers under MindSpore's names."""
    state: dict[str, np.ndarray] = {}
    for prefix, sub in module.named_modules():
        mapping = _layer_map(sub)
        named = list(sub.named_parameters(recurse=False)) + list(
            sub.named_buffers(recurse=False)
        )
        for name, value in named:
            if value is None or name in NO_COUNTERPART:
                continue
            full = (
                f"{prefix}.{mapping.get(name, name)}"
                if prefix
                else mapping.get(name, name)
            )
            state.setdefault(full, to_numpy(value))
    return state


def cell_state(cell) -> dict[str, np.ndarray]:
    return {name: to_numpy(param) for name, param in cell.parameters_and_names()}


def module_state(obj, module_cls, cell_cls) -> dict[str, np.ndarray] | None:
    if module_cls is not None and isinstance(obj, module_cls):
        return torch_state(obj)
    if cell_cls is not None and isinstance(obj, cell_cls):
        return cell_state(obj)
    return None


# -- initial state transfer ----------------------------------------------------------------------


class InitRecorder:
    """Keeps each torch module's state at its first outermost call, in call order."""

    def __init__(self, module_cls) -> None:
        self.records: list[tuple[str, dict[str, np.ndarray]]] = []
        self.seen: set[int] = set()
        self.depth = 0
        original_call = module_cls.__call__
        recorder = self

        def call(module, *args, **kwargs):
            if recorder.depth == 0 and id(module) not in recorder.seen:
                recorder.seen.add(id(module))
                state = torch_state(module)
                if state:
                    recorder.records.append((type(module).__name__, state))
            recorder.depth += 1
            try:
                return original_call(module, *args, **kwargs)
            finally:
                recorder.depth -= 1

        module_cls.__call__ = call

    def save(self, path: str) -> None:
        arrays = {
            f"{i}/{name}": value
            for i, (_, state) in enumerate(self.records)
            for name, value in state.items()
        }
        kinds = [kind for kind, _ in self.records]
        np.savez(path, __kinds__=np.array(json.dumps(kinds)), **arrays)


def load_init(path: str) -> list[tuple[str, dict[str, np.ndarray]]]:
    with np.load(path, allow_pickle=False) as data:
        kinds = json.loads(str(data["__kinds__"]))
        records: list[tuple[str, dict[str, np.ndarray]]] = [
            (kind, {}) for kind in kinds
        ]
        for key in data.files:
            if key == "__kinds__":
                continue
            index, _, name = key.partition("/")
            records[int(index)][1][name] = data[key]
    return records


class InitInjector:
    """Copies recorded torch states into MindSpore cells at their first outermost call."""

    def __init__(self, cell_cls, mindspore, records) -> None:
        self.records = records
        self.consumed = [False] * len(records)
        self.transferred: list[str] = []
        self.problems: list[str] = []
        self.seen: set[int] = set()
        self.injected: set[int] = set()
        self.depth = 0
        self.mindspore = mindspore
        original_call = cell_cls.__call__
        injector = self

        def call(cell, *args, **kwargs):
            if injector.depth == 0 and id(cell) not in injector.seen:
                injector.seen.add(id(cell))
                injector.inject(cell)
            injector.depth += 1
            try:
                return original_call(cell, *args, **kwargs)
            finally:
                injector.depth -= 1

        cell_cls.__call__ = call

    def _target(self, cell, state):
        """The sub-cell (the cell itself, or a wrapped network) whose parameters hold every name of ``state``."""
        subcells = (
            cell.cells_and_names() if hasattr(cell, "cells_and_names") else [("", cell)]
        )
        for _, sub in subcells:
            params = dict(sub.parameters_and_names())
            if all(
                name in params and tuple(params[name].shape) == value.shape
                for name, value in state.items()
            ):
                return params
        return None

    def inject(self, cell) -> None:
        if any(base.__name__ == "Optimizer" for base in type(cell).__mro__):
            return
        fresh = [
            p
            for _, p in cell.parameters_and_names()
            if id(p) not in self.injected and getattr(p, "requires_grad", True)
        ]
        if not fresh:
            return
        for index, (kind, state) in enumerate(self.records):
            if self.consumed[index]:
                continue
            params = self._target(cell, state)
            if params is None:
                continue
            for name, value in state.items():
                param = params[name]
                param.set_data(self.mindspore.Tensor(value, dtype=param.dtype))
                self.injected.add(id(param))
            self.consumed[index] = True
            self.transferred.append(f"{kind} → {type(cell).__name__}")
            return
        self.problems.append(
            f"MindSpore {type(cell).__name__} matches no recorded torch module by parameter names and shapes"
        )

    def report(self) -> dict:
        problems = list(self.problems)
        for index, (kind, state) in enumerate(self.records):
            if not self.consumed[index]:
                problems.append(
                    f"torch {kind} ({', '.join(list(state)[:4])}...) was never matched by a MindSpore cell"
                )
        return {"transferred": self.transferred, "problems": problems}


# -- running -------------------------------------------------------------------------------------


def _got_no_initial_state(
    value, state: dict, injected: set[int] | None, cell_cls
) -> bool:
    if (
        injected is None
        or cell_cls is None
        or not isinstance(value, cell_cls)
        or not state
    ):
        return False
    return not any(id(param) in injected for _, param in value.parameters_and_names())


def _collect(
    namespace: dict, injected: set[int] | None = None
) -> tuple[dict[str, np.ndarray], dict, list[str], list[str]]:
    """Top-level modules' states and tensors; with ``injected``, also the cells that got no initial state."""
    module_cls, cell_cls, tensor_classes = _frameworks()
    arrays: dict[str, np.ndarray] = {}
    modules: dict[str, list[str]] = {}
    tensors: list[str] = []
    untransferred: list[str] = []
    for name, value in namespace.items():
        if name.startswith("_") or isinstance(value, type):
            continue
        try:
            state = module_state(value, module_cls, cell_cls)
            if state is not None:
                modules[name] = list(state)
                if _got_no_initial_state(value, state, injected, cell_cls):
                    untransferred.append(name)
                for pname, array in state.items():
                    arrays[f"module/{name}/{pname}"] = array
            elif isinstance(value, np.ndarray) or (
                tensor_classes and isinstance(value, tensor_classes)
            ):
                arrays[f"tensor/{name}"] = to_numpy(value)
                tensors.append(name)
        except Exception as error:  # noqa: BLE001 - an object that cannot be read is not observed
            print(f"torch2ms verify: cannot read {name}: {error}", file=sys.stderr)
    return arrays, modules, tensors, untransferred


def observe(
    script: str,
    out: str,
    backend: str,
    record_init: str | None = None,
    inject_init: str | None = None,
    paths: tuple[str, ...] = (),
    install: bool = True,
) -> int:
    """Run ``script`` and write its observation to ``out``; 0 when it ran to the end.

    ``install=False`` when the backend's import hooks are already in place (a forked worker)."""
    if install:
        from ..shims import importer

        importer.install(backend)
    script = os.path.abspath(script)
    sys.argv = [script]
    sys.path[:0] = [os.path.dirname(script), *paths]
    recorder = injector = None
    if record_init:
        import torch

        recorder = InitRecorder(torch.nn.Module)
    if inject_init:
        import mindspore

        injector = InitInjector(mindspore.nn.Cell, mindspore, load_init(inject_init))
    meta: dict = {"status": "ok"}
    namespace: dict = {}
    try:
        namespace = runpy.run_path(script, run_name="__main__")
    except SystemExit as stop:
        if stop.code not in (None, 0):
            meta = {
                "status": "raised",
                "error": f"SystemExit({stop.code!r})",
                "traceback": "",
            }
    except BaseException as error:  # noqa: BLE001 - whatever the script raises is its outcome
        meta = {
            "status": "raised",
            "error": f"{type(error).__name__}: {error}",
            "traceback": "".join(
                traceback.format_exception(type(error), error, error.__traceback__)[-6:]
            ),
        }
    finally:
        sys.stdout.flush()
    arrays, modules, tensors, untransferred = _collect(
        namespace, injector.injected if injector is not None else None
    )
    meta.update(modules=modules, tensors=tensors)
    if recorder is not None:
        recorder.save(record_init)
    if injector is not None:
        meta["init"] = {**injector.report(), "untransferred": untransferred}
    np.savez(out, __meta__=np.array(json.dumps(meta)), **arrays)
    return 0 if meta["status"] == "ok" else 1


def read_observation(path: str) -> tuple[dict, dict[str, np.ndarray]]:
    with np.load(path, allow_pickle=False) as data:
        meta = json.loads(str(data["__meta__"]))
        arrays = {key: data[key] for key in data.files if key != "__meta__"}
    return meta, arrays


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="torch2ms.migrator.observe")
    parser.add_argument("--backend", choices=("shim", "real"), default="shim")
    parser.add_argument("--out", required=True)
    parser.add_argument("--record-init")
    parser.add_argument("--inject-init")
    parser.add_argument(
        "--path", action="append", default=[], help="an extra folder for sys.path"
    )
    parser.add_argument("script")
    args = parser.parse_args(argv)
    return observe(
        args.script,
        args.out,
        args.backend,
        args.record_init,
        args.inject_init,
        tuple(args.path),
    )


if __name__ == "__main__":
    sys.exit(main())
