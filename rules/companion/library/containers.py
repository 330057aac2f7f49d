"""Containers whose MindSpore counterpart runs differently from torch's."""

from mindspore import nn


class Sequential(nn.SequentialCell):
    """`torch.nn.Sequential` as a base class: MindSpore's SequentialCell run the way torch runs it.

    torch's forward pass calls every child module in the order it was registered, including the
    ones a subclass assigns as attributes (`self.conv = nn.Conv2d(...)`) or adds with `add_module`.
    MindSpore's SequentialCell runs only the cells given to its constructor or appended to it, so
    such a subclass would return its input unchanged. This class runs every child cell in order;
    indexing, `len` and parameter names are SequentialCell's own, which agree with torch's."""

    def construct(self, input):
        for cell in self._cells.values():
            input = cell(input)
        return input


class ModuleDict(nn.CellDict):
    """`torch.nn.ModuleDict` holding containers (`dict(h=nn.ModuleList([...]))`): MindSpore's
    CellDict refuses a CellList, SequentialCell or CellDict as a value; torch's ModuleDict takes
    any module. Keys, attribute access and parameter names (`h.0.weight`) are CellDict's own."""

    def _validate_cell_type(self, cell):
        if not isinstance(cell, nn.Cell):
            raise TypeError(
                f"ModuleDict values must be Cells, but got {type(cell).__name__}"
            )
