"""torch.nn.Module, Parameter and the containers."""

from __future__ import annotations

from collections import OrderedDict, namedtuple
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from ... import core as C
from .._tensor import Tensor, to_array, wrap


class Parameter(Tensor):
    """A leaf tensor that a Module registers; ops on it give plain Tensors."""

    _out_cls = Tensor

    def __init__(self, data: Any = None, requires_grad: bool = True) -> None:
        if data is None:
            arr = np.zeros((0,), np.float32)
        elif isinstance(data, C.Tensor):
            arr = data._data
        else:
            arr = to_array(data)
        self._data = arr
        self._ctx = None
        self.requires_grad = False
        if requires_grad:
            self.requires_grad_(True)

    def __repr__(self) -> str:
        return "Parameter containing:\n" + super().__repr__()

    __hash__ = Tensor.__hash__


class Buffer(Tensor):
    def __new__(cls, data: Any = None, *, persistent: bool = True) -> Tensor:
        t = wrap(data._data if isinstance(data, C.Tensor) else to_array(data))
        t._buffer_persistent = persistent
        return t


class _IncompatibleKeys(
    namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])
):
    def __repr__(self) -> str:
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


class Module:
    training: bool
    _version = 1
    dump_patches = False

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        object.__setattr__(self, "training", True)
        object.__setattr__(self, "_parameters", OrderedDict())
        object.__setattr__(self, "_buffers", OrderedDict())
        object.__setattr__(self, "_non_persistent_buffers_set", set())
        object.__setattr__(self, "_modules", OrderedDict())
        object.__setattr__(self, "_forward_hooks", OrderedDict())
        object.__setattr__(self, "_forward_pre_hooks", OrderedDict())

    # -------------------------------------------------------------- attributes
    def __setattr__(self, name: str, value: Any) -> None:
        params = self.__dict__.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError(
                    "cannot assign parameters before Module.__init__() call"
                )
            self._drop(name)
            params[name] = value
        elif params is not None and name in params:
            if value is not None and not isinstance(value, Parameter):
                raise TypeError(
                    f"cannot assign '{type(value).__module__}.{type(value).__name__}' as parameter '{name}' "
                    "(torch.nn.Parameter or None expected)"
                )
            params[name] = value
        elif isinstance(value, Module):
            modules = self.__dict__.get("_modules")
            if modules is None:
                raise AttributeError(
                    "cannot assign module before Module.__init__() call"
                )
            self._drop(name)
            modules[name] = value
        elif self.__dict__.get("_modules") is not None and name in self._modules:
            if value is not None:
                raise TypeError(
                    f"cannot assign '{type(value).__name__}' as child module '{name}'"
                )
            self._modules[name] = value
        elif self.__dict__.get("_buffers") is not None and name in self._buffers:
            if value is not None and not isinstance(value, C.Tensor):
                raise TypeError(
                    f"cannot assign '{type(value).__name__}' as buffer '{name}'"
                )
            self._buffers[name] = value
        else:
            object.__setattr__(self, name, value)

    def _drop(self, name: str) -> None:
        """Forget ``name`` everywhere before it is registered again under another kind."""
        for store in ("_parameters", "_buffers", "_modules"):
            d = self.__dict__.get(store)
            if d is not None and name in d:
                del d[name]
        self.__dict__.pop(name, None)

    def __getattr__(self, name: str) -> Any:
        d = self.__dict__
        for store in ("_parameters", "_buffers", "_modules"):
            s = d.get(store)
            if s is not None and name in s:
                return s[name]
        raise AttributeError(
            f"'{type(self).__name__}' object has no attribute '{name}'"
        )

    def __delattr__(self, name: str) -> None:
        for store in ("_parameters", "_buffers", "_modules"):
            if name in self.__dict__.get(store, {}):
                del self.__dict__[store][name]
                return
        object.__delattr__(self, name)

    def __dir__(self) -> list:
        return sorted(
            set(super().__dir__())
            | set(self._parameters)
            | set(self._buffers)
            | set(self._modules)
        )

    # -------------------------------------------------------------- registration
    def register_parameter(self, name: str, param: Parameter | None) -> None:
        if "_parameters" not in self.__dict__:
            raise AttributeError(
                "cannot assign parameter before Module.__init__() call"
            )
        self._parameters[name] = param

    def register_buffer(
        self, name: str, tensor: Tensor | None, persistent: bool = True
    ) -> None:
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        if "." in name:
            raise KeyError('buffer name can\'t contain "."')
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def add_module(self, name: str, module: Module | None) -> None:
        self._modules[name] = module

    register_module = add_module

    def get_submodule(self, target: str) -> Module:
        mod = self
        for part in target.split(".") if target else []:
            mod = getattr(mod, part)
        return mod

    def get_parameter(self, target: str) -> Parameter:
        path, _, name = target.rpartition(".")
        return getattr(self.get_submodule(path), name)

    # -------------------------------------------------------------- traversal
    def named_modules(
        self, memo: set | None = None, prefix: str = "", remove_duplicate: bool = True
    ) -> Iterator:
        if memo is None:
            memo = set()
        if id(self) in memo and remove_duplicate:
            return
        memo.add(id(self))
        yield prefix, self
        for name, module in self._modules.items():
            if module is None:
                continue
            yield from module.named_modules(
                memo, prefix + ("." if prefix else "") + name, remove_duplicate
            )

    def modules(self) -> Iterator[Module]:
        for _, m in self.named_modules():
            yield m

    def named_children(self) -> Iterator:
        seen = set()
        for name, m in self._modules.items():
            if m is not None and id(m) not in seen:
                seen.add(id(m))
                yield name, m

    def children(self) -> Iterator[Module]:
        for _, m in self.named_children():
            yield m

    def _named_members(
        self, store: str, prefix: str, recurse: bool, remove_duplicate: bool = True
    ) -> Iterator:
        seen = set()
        mods = self.named_modules(prefix=prefix) if recurse else [(prefix, self)]
        for mod_prefix, mod in mods:
            for name, value in mod.__dict__[store].items():
                if value is None or (remove_duplicate and id(value) in seen):
                    continue
                seen.add(id(value))
                yield mod_prefix + ("." if mod_prefix else "") + name, value

    def named_parameters(
        self, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True
    ) -> Iterator:
        return self._named_members("_parameters", prefix, recurse, remove_duplicate)

    def parameters(self, recurse: bool = True) -> Iterator[Parameter]:
        for _, p in self.named_parameters(recurse=recurse):
            yield p

    def named_buffers(
        self, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True
    ) -> Iterator:
        return self._named_members("_buffers", prefix, recurse, remove_duplicate)

    def buffers(self, recurse: bool = True) -> Iterator[Tensor]:
        for _, b in self.named_buffers(recurse=recurse):
            yield b

    # -------------------------------------------------------------- state
    def state_dict(
        self,
        *args: Any,
        destination: Any = None,
        prefix: str = "",
        keep_vars: bool = False,
    ) -> OrderedDict:
        if destination is None:
            destination = OrderedDict()
        for name, p in self._parameters.items():
            if p is not None:
                destination[prefix + name] = p if keep_vars else p.detach()
        for name, b in self._buffers.items():
            if b is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = b if keep_vars else b.detach()
        for name, m in self._modules.items():
            if m is not None:
                m.state_dict(
                    destination=destination,
                    prefix=prefix + name + ".",
                    keep_vars=keep_vars,
                )
        return destination

    def load_state_dict(
        self, state_dict: Any, strict: bool = True, assign: bool = False
    ) -> _IncompatibleKeys:
        own = self.state_dict(keep_vars=True)
        missing = [k for k in own if k not in state_dict]
        unexpected = [k for k in state_dict if k not in own]
        errors = []
        for key, target in own.items():
            if key not in state_dict:
                continue
            value = state_dict[key]
            arr = value._data if isinstance(value, C.Tensor) else np.asarray(value)
            if arr.shape != target._data.shape:
                errors.append(
                    f"\tsize mismatch for {key}: copying a param with shape {tuple(arr.shape)} from checkpoint, "
                    f"the shape in current model is {tuple(target._data.shape)}."
                )
                continue
            target._data[...] = arr
        if strict:
            if unexpected:
                errors.insert(
                    0,
                    "\tUnexpected key(s) in state_dict: "
                    + ", ".join(f'"{k}"' for k in unexpected)
                    + ". ",
                )
            if missing:
                errors.insert(
                    0,
                    "\tMissing key(s) in state_dict: "
                    + ", ".join(f'"{k}"' for k in missing)
                    + ". ",
                )
        if errors:
            raise RuntimeError(
                f"Error(s) in loading state_dict for {type(self).__name__}:\n"
                + "\n".join(errors)
            )
        return _IncompatibleKeys(missing, unexpected)

    # -------------------------------------------------------------- modes and helpers
    def train(self, mode: bool = True) -> Module:
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")  # noqa: TRY004  (as torch)
        for m in self.modules():
            object.__setattr__(m, "training", mode)
        return self

    def eval(self) -> Module:
        return self.train(False)

    def requires_grad_(self, requires_grad: bool = True) -> Module:
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none: bool = True) -> None:
        for p in self.parameters():
            if p.grad is not None:
                if set_to_none:
                    p.grad = None
                else:
                    p.grad._data[...] = 0

    def apply(self, fn: Callable[[Module], None]) -> Module:
        for m in self.children():
            m.apply(fn)
        fn(self)
        return self

    def to(self, *args: Any, **kwargs: Any) -> Module:
        dtype = kwargs.get("dtype")
        for a in args:
            if hasattr(a, "np") and hasattr(a, "is_floating_point"):
                dtype = a
            elif isinstance(a, str) or type(a).__name__ == "device":
                from .._tensor import _check_device

                _check_device(a)
        if kwargs.get("device") is not None:
            from .._tensor import _check_device

            _check_device(kwargs["device"])
        if dtype is not None:
            self._cast(dtype.np)
        return self

    def _cast(self, np_dtype: Any) -> Module:
        for t in list(self.parameters()) + list(self.buffers()):
            if t._data.dtype.kind == "f":
                t._data = t._data.astype(np_dtype)
        return self

    def float(self) -> Module:
        return self._cast(np.float32)

    def double(self) -> Module:
        return self._cast(np.float64)

    def half(self) -> Module:
        return self._cast(np.float16)

    def cpu(self) -> Module:
        return self

    def cuda(self, device: Any = None) -> Module:
        raise AssertionError("Torch not compiled with CUDA enabled")

    def share_memory(self) -> Module:
        return self

    def register_forward_hook(self, hook: Callable) -> Any:
        key = len(self._forward_hooks)
        self._forward_hooks[key] = hook
        return _Handle(self._forward_hooks, key)

    def register_forward_pre_hook(self, hook: Callable) -> Any:
        key = len(self._forward_pre_hooks)
        self._forward_pre_hooks[key] = hook
        return _Handle(self._forward_pre_hooks, key)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if not self._forward_pre_hooks and not self._forward_hooks:
            return self.forward(*args, **kwargs)
        for hook in list(self._forward_pre_hooks.values()):
            result = hook(self, args)
            if result is not None:
                args = result if isinstance(result, tuple) else (result,)
        out = self.forward(*args, **kwargs)
        for hook in list(self._forward_hooks.values()):
            result = hook(self, args, out)
            if result is not None:
                out = result
        return out

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(
            f'Module [{type(self).__name__}] is missing the required "forward" function'
        )

    def _missing(name: str) -> Any:
        def method(self: Module, *args: Any, **kwargs: Any) -> Any:
            raise NotImplementedError(
                f"shims: torch.nn.Module.{name} is not implemented"
            )

        method.__name__ = name
        return method

    register_full_backward_hook = _missing("register_full_backward_hook")
    register_backward_hook = _missing("register_backward_hook")
    register_full_backward_pre_hook = _missing("register_full_backward_pre_hook")
    register_state_dict_pre_hook = _missing("register_state_dict_pre_hook")
    register_load_state_dict_post_hook = _missing("register_load_state_dict_post_hook")
    to_empty = _missing("to_empty")
    bfloat16 = _missing("bfloat16")
    compile = _missing("compile")
    del _missing

    # -------------------------------------------------------------- printing
    def extra_repr(self) -> str:
        return ""

    def _get_name(self) -> str:
        return type(self).__name__

    def __repr__(self) -> str:
        extra = self.extra_repr()
        lines = extra.split("\n") if extra else []
        for name, m in self._modules.items():
            text = repr(m).replace("\n", "\n  ")
            lines.append(f"({name}): {text}")
        main = self._get_name() + "("
        if lines:
            if len(lines) == 1 and not self._modules:
                main += lines[0]
            else:
                main += "\n  " + "\n  ".join(lines) + "\n"
        return main + ")"

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)

    def __getstate__(self) -> dict:
        return self.__dict__.copy()


class _Handle:
    def __init__(self, store: dict, key: Any) -> None:
        self.store, self.key = store, key

    def remove(self) -> None:
        self.store.pop(self.key, None)
