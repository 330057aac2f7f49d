"""torch.nn containers: Sequential, ModuleList, ModuleDict, ParameterList, ParameterDict."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterator
from typing import Any, Self

from .module import Module, Parameter


class Sequential(Module):
    def __init__(self, *args: Any) -> None:
        super().__init__()
        if len(args) == 1 and isinstance(args[0], OrderedDict):
            for name, m in args[0].items():
                self.add_module(name, m)
        else:
            for i, m in enumerate(args):
                self.add_module(str(i), m)

    def forward(self, input: Any) -> Any:
        for m in self._modules.values():
            # Module.__call__ without its frame when the layer has no hooks.
            if m._forward_pre_hooks or m._forward_hooks:
                input = m(input)
            else:
                input = m.forward(input)
        return input

    def __getitem__(self, idx: Any) -> Any:
        if isinstance(idx, slice):
            return Sequential(OrderedDict(list(self._modules.items())[idx]))
        items = list(self._modules.values())
        return items[idx]

    def __setitem__(self, idx: int, module: Module) -> None:
        key = list(self._modules.keys())[idx]
        self._modules[key] = module

    def __delitem__(self, idx: Any) -> None:
        keys = list(self._modules.keys())[idx]
        for key in keys if isinstance(keys, list) else [keys]:
            del self._modules[key]

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Module]:
        return iter(self._modules.values())

    def append(self, module: Module) -> Sequential:
        self.add_module(str(len(self)), module)
        return self

    def extend(self, modules: Any) -> Sequential:
        for m in modules:
            self.append(m)
        return self

    def insert(self, index: int, module: Module) -> Sequential:
        items = list(self._modules.values())
        items.insert(index, module)
        self._modules.clear()
        for i, m in enumerate(items):
            self._modules[str(i)] = m
        return self


class ModuleList(Module):
    def __init__(self, modules: Any = None) -> None:
        super().__init__()
        if modules is not None:
            self.extend(modules)

    def __getitem__(self, idx: Any) -> Any:
        if isinstance(idx, slice):
            return ModuleList(list(self._modules.values())[idx])
        return list(self._modules.values())[idx]

    def __setitem__(self, idx: int, module: Module) -> None:
        self._modules[str(idx % len(self))] = module

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Module]:
        return iter(self._modules.values())

    def __iadd__(self, modules: Any) -> Self:
        return self.extend(modules)

    def append(self, module: Module) -> ModuleList:
        self.add_module(str(len(self)), module)
        return self

    def extend(self, modules: Any) -> ModuleList:
        for m in modules:
            self.append(m)
        return self

    def insert(self, index: int, module: Module) -> None:
        items = list(self._modules.values())
        items.insert(index, module)
        self._modules.clear()
        for i, m in enumerate(items):
            self._modules[str(i)] = m


class ModuleDict(Module):
    def __init__(self, modules: Any = None) -> None:
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key: str) -> Module:
        return self._modules[key]

    def __setitem__(self, key: str, module: Module) -> None:
        self.add_module(key, module)

    def __delitem__(self, key: str) -> None:
        del self._modules[key]

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[str]:
        return iter(self._modules)

    def __contains__(self, key: str) -> bool:
        return key in self._modules

    def keys(self) -> Any:
        return self._modules.keys()

    def items(self) -> Any:
        return self._modules.items()

    def values(self) -> Any:
        return self._modules.values()

    def update(self, modules: Any) -> None:
        items = modules.items() if hasattr(modules, "items") else modules
        for k, m in items:
            self.add_module(k, m)

    def pop(self, key: str) -> Module:
        return self._modules.pop(key)


class ParameterList(Module):
    def __init__(self, values: Any = None) -> None:
        super().__init__()
        for v in values or []:
            self.append(v)

    def append(self, value: Any) -> ParameterList:
        p = value if isinstance(value, Parameter) else Parameter(value)
        self.register_parameter(str(len(self._parameters)), p)
        return self

    def __getitem__(self, idx: int) -> Parameter:
        return list(self._parameters.values())[idx]

    def __len__(self) -> int:
        return len(self._parameters)

    def __iter__(self) -> Iterator[Parameter]:
        return iter(self._parameters.values())


class ParameterDict(Module):
    def __init__(self, values: Any = None) -> None:
        super().__init__()
        for k, v in (values or {}).items():
            self[k] = v

    def __setitem__(self, key: str, value: Any) -> None:
        self.register_parameter(
            key, value if isinstance(value, Parameter) else Parameter(value)
        )

    def __getitem__(self, key: str) -> Parameter:
        return self._parameters[key]

    def __len__(self) -> int:
        return len(self._parameters)

    def __iter__(self) -> Iterator[str]:
        return iter(self._parameters)

    def keys(self) -> Any:
        return self._parameters.keys()

    def items(self) -> Any:
        return self._parameters.items()

    def values(self) -> Any:
        return self._parameters.values()
