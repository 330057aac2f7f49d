"""``nn.Cell`` and the containers ``SequentialCell``, ``CellList``, ``CellDict``."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterator
from typing import Any

from ... import core
from .. import _grad
from .._tensor import DEFAULT_PARAMETER_NAME, Parameter
from ._bprop import call_with_bprop, has_bprop


class Cell:
    """A MindSpore network block. Parameters are named by their path (``fc.weight``) when a child
    cell is assigned to a parent with ``auto_prefix`` (the default)."""

    def __init__(self, auto_prefix: bool = True, flags: Any = None) -> None:
        self._init_storage()
        object.__setattr__(self, "_auto_prefix", auto_prefix)
        object.__setattr__(self, "training", False)
        object.__setattr__(self, "requires_grad", False)

    def _init_storage(self) -> None:
        if "_params" not in self.__dict__:
            object.__setattr__(self, "_params", OrderedDict())
            object.__setattr__(self, "_cells", OrderedDict())
            object.__setattr__(self, "_auto_prefix", True)
            object.__setattr__(self, "training", False)

    # --- attributes -------------------------------------------------------------------------------
    def __setattr__(self, name: str, value: Any) -> None:
        self._init_storage()
        params, cells = self.__dict__["_params"], self.__dict__["_cells"]
        if isinstance(value, Parameter):
            if value.name == DEFAULT_PARAMETER_NAME:
                value.name = name
            cells.pop(name, None)
            self.__dict__.pop(name, None)
            params[name] = value
        elif isinstance(value, Cell):
            if self._auto_prefix:
                value.update_parameters_name(name + ".")
            params.pop(name, None)
            self.__dict__.pop(name, None)
            cells[name] = value
        elif value is None and name in params:
            params[name] = None
        elif value is None and name in cells:
            cells[name] = None
        else:
            params.pop(name, None)
            cells.pop(name, None)
            object.__setattr__(self, name, value)

    def __getattr__(self, name: str) -> Any:
        storage = self.__dict__
        if "_params" in storage:
            if name in storage["_params"]:
                return storage["_params"][name]
            if name in storage["_cells"]:
                return storage["_cells"][name]
        raise AttributeError(
            f"'{type(self).__name__}' object has no attribute '{name}'."
        )

    def __delattr__(self, name: str) -> None:
        if name in self._params:
            del self._params[name]
        elif name in self._cells:
            del self._cells[name]
        else:
            object.__delattr__(self, name)

    # --- running --------------------------------------------------------------------------------
    def construct(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(f"{type(self).__name__}.construct is not defined")

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        # MindSpore records nothing in the forward pass: the graph is built only inside grad.
        recording = _grad.differentiating()
        if recording and has_bprop(self):
            return call_with_bprop(self, args, kwargs)
        with core.grad_mode(recording):
            return self.construct(*args, **kwargs)

    def set_train(self, mode: bool = True) -> Cell:
        for _, cell in self.cells_and_names():
            object.__setattr__(cell, "training", bool(mode))
        return self

    def set_grad(self, requires_grad: bool = True) -> Cell:
        object.__setattr__(self, "requires_grad", requires_grad)
        return self

    @property
    def phase(self) -> str:
        return "train" if self.training else "predict"

    @property
    def cls_name(self) -> str:
        return type(self).__name__

    # --- structure ------------------------------------------------------------------------------
    def insert_param_to_cell(
        self, param_name: str, param: Any, check_name_contain_dot: bool = True
    ) -> None:
        if check_name_contain_dot and "." in param_name:
            raise KeyError(
                f"For 'insert_param_to_cell', the argument 'param_name' should not contain '.', but got {param_name}."
            )
        if isinstance(param, Parameter) and param.name == DEFAULT_PARAMETER_NAME:
            param.name = param_name
        self._params[param_name] = param

    def insert_child_to_cell(self, child_name: str, child_cell: Cell) -> None:
        setattr(self, child_name, child_cell)

    def name_cells(self) -> OrderedDict:
        return OrderedDict((k, c) for k, c in self._cells.items() if c is not None)

    def cells(self) -> Any:
        return self.name_cells().values()

    def cells_and_names(
        self, cells: Any = None, name_prefix: str = ""
    ) -> Iterator[tuple[str, Cell]]:
        seen = set() if cells is None else cells
        if id(self) not in seen:
            seen.add(id(self))
            yield name_prefix, self
        for name, cell in self._cells.items():
            if cell is None or id(cell) in seen:
                continue
            prefix = f"{name_prefix}.{name}" if name_prefix else name
            yield from cell.cells_and_names(seen, prefix)

    def parameters_and_names(
        self, name_prefix: str = "", expand: bool = True
    ) -> Iterator[tuple[str, Parameter]]:
        seen: set[int] = set()
        cells = (
            self.cells_and_names(name_prefix=name_prefix)
            if expand
            else [(name_prefix, self)]
        )
        for cell_name, cell in cells:
            for name, param in cell._params.items():
                if param is None or id(param) in seen:
                    continue
                seen.add(id(param))
                yield (f"{cell_name}.{name}" if cell_name else name), param

    def get_parameters(self, expand: bool = True) -> Iterator[Parameter]:
        for _, param in self.parameters_and_names(expand=expand):
            yield param

    def trainable_params(self, recurse: bool = True) -> list[Parameter]:
        return [p for p in self.get_parameters(expand=recurse) if p.requires_grad]

    def untrainable_params(self, recurse: bool = True) -> list[Parameter]:
        return [p for p in self.get_parameters(expand=recurse) if not p.requires_grad]

    def parameters_dict(self, recurse: bool = True) -> OrderedDict:
        return OrderedDict((p.name, p) for p in self.get_parameters(expand=recurse))

    def update_parameters_name(self, prefix: str = "", recurse: bool = True) -> None:
        for name, param in self.parameters_and_names(expand=recurse):
            param.name = prefix + name

    def apply(self, fn: Any) -> Cell:
        for cell in self.cells():
            cell.apply(fn)
        fn(self)
        return self

    def to_float(self, dst_type: Any) -> Cell:
        from .. import _dtype

        if dst_type != _dtype.float32:
            raise NotImplementedError(
                "shims: mindspore.nn.Cell.to_float (mixed precision) is not implemented"
            )
        return self

    # --- text -----------------------------------------------------------------------------------
    def extend_repr(self) -> str:
        return ""

    def __repr__(self) -> str:
        extra = self.extend_repr()
        children = [(k, c) for k, c in self._cells.items() if c is not None]
        if not children:
            return (
                f"{type(self).__name__}({extra})"
                if extra
                else f"{type(self).__name__}()"
            )
        lines = [f"{type(self).__name__}("] + ([f"  {extra}"] if extra else [])
        for key, cell in children:
            body = repr(cell).replace("\n", "\n  ")
            lines.append(f"  ({key}): {body}")
        return "\n".join(lines) + "\n)"


class SequentialCell(Cell):
    def __init__(self, *args: Any) -> None:
        super().__init__()
        if len(args) == 1 and isinstance(args[0], OrderedDict):
            items = list(args[0].items())
        elif len(args) == 1 and isinstance(args[0], (list, tuple)):
            items = [(str(i), c) for i, c in enumerate(args[0])]
        else:
            items = [(str(i), c) for i, c in enumerate(args)]
        for key, cell in items:
            self.insert_child_to_cell(key, cell)

    def __getitem__(self, index: Any) -> Any:
        cells = list(self._cells.values())
        if isinstance(index, slice):
            return SequentialCell(cells[index])
        return cells[index]

    def __len__(self) -> int:
        return len(self._cells)

    def __iter__(self) -> Iterator[Cell]:
        return iter(self._cells.values())

    def append(self, cell: Cell) -> SequentialCell:
        self.insert_child_to_cell(str(len(self)), cell)
        return self

    def construct(self, x: Any) -> Any:
        for cell in self._cells.values():
            x = cell(x)
        return x


class CellList(Cell):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__()
        if args:
            self.extend(args[0])

    def __getitem__(self, index: Any) -> Any:
        cells = list(self._cells.values())
        if isinstance(index, slice):
            return CellList(cells[index])
        return cells[index]

    def __setitem__(self, index: int, cell: Cell) -> None:
        key = list(self._cells)[index]
        setattr(self, key, cell)

    def __len__(self) -> int:
        return len(self._cells)

    def __iter__(self) -> Iterator[Cell]:
        return iter(self._cells.values())

    def append(self, cell: Cell) -> CellList:
        self.insert_child_to_cell(str(len(self)), cell)
        return self

    def extend(self, cells: Any) -> CellList:
        for cell in cells:
            self.append(cell)
        return self

    def insert(self, index: int, cell: Cell) -> None:
        cells = list(self._cells.values())
        cells.insert(index, cell)
        self._cells.clear()
        for i, c in enumerate(cells):
            self.insert_child_to_cell(str(i), c)

    def construct(self, *inputs: Any) -> Any:
        raise NotImplementedError("CellList has no construct")


class CellDict(Cell):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__()
        if args:
            self.update(args[0])

    def __getitem__(self, key: str) -> Cell:
        return self._cells[key]

    def __setitem__(self, key: str, cell: Cell) -> None:
        setattr(self, key, cell)

    def __delitem__(self, key: str) -> None:
        del self._cells[key]

    def __contains__(self, key: str) -> bool:
        return key in self._cells

    def __len__(self) -> int:
        return len(self._cells)

    def __iter__(self) -> Iterator[str]:
        return iter(self._cells)

    def keys(self) -> Any:
        return self._cells.keys()

    def values(self) -> Any:
        return self._cells.values()

    def items(self) -> Any:
        return self._cells.items()

    def update(self, cells: Any) -> None:
        items = cells.items() if hasattr(cells, "items") else cells
        for key, cell in items:
            self[key] = cell
