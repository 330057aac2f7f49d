"""``mindspore.dataset``: ``GeneratorDataset`` / ``NumpySlicesDataset`` with ``batch`` and iterators.

Shuffling draws from the shared engine generator, so it is reproducible under ``set_seed`` but does
not reproduce MindSpore's own order.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from ... import core
from .. import _dtype
from .._missing import missing, module_getattr
from .._tensor import wrap


def _row(item: Any) -> tuple:
    if isinstance(item, tuple):
        return tuple(np.asarray(core.raw(v)) for v in item)
    if isinstance(item, list):
        return tuple(np.asarray(core.raw(v)) for v in item)
    return (np.asarray(core.raw(item)),)


class Dataset:
    column_names: list

    def rows(self) -> Iterator[tuple]:
        raise NotImplementedError

    def batch(
        self, batch_size: int, drop_remainder: bool = False, **kwargs: Any
    ) -> Dataset:
        if kwargs.get("per_batch_map") is not None:
            raise missing("mindspore.dataset.Dataset.batch(per_batch_map=...)")
        return BatchDataset(self, batch_size, drop_remainder)

    def map(self, *args: Any, **kwargs: Any) -> Dataset:
        raise missing("mindspore.dataset.Dataset.map")

    def shuffle(self, buffer_size: int) -> Dataset:
        return ShuffleDataset(self)

    def get_dataset_size(self) -> int:
        return sum(1 for _ in self.rows())

    def __len__(self) -> int:
        return self.get_dataset_size()

    def get_col_names(self) -> list:
        return list(self.column_names)

    def create_tuple_iterator(
        self,
        columns: Any = None,
        num_epochs: int = -1,
        output_numpy: bool = False,
        do_copy: bool = True,
    ) -> Iterator:
        for row in self.rows():
            yield (
                [np.array(v) for v in row]
                if output_numpy
                else [wrap(np.array(v)) for v in row]
            )

    def create_dict_iterator(
        self, num_epochs: int = -1, output_numpy: bool = False, do_copy: bool = True
    ) -> Iterator:
        for row in self.rows():
            yield {
                k: (np.array(v) if output_numpy else wrap(np.array(v)))
                for k, v in zip(self.column_names, row)
            }

    def __iter__(self) -> Iterator:
        return self.create_tuple_iterator()


class GeneratorDataset(Dataset):
    """``source`` is indexable (``__getitem__``/``__len__``), iterable or a generator function."""

    def __init__(
        self,
        source: Any,
        column_names: Any = None,
        column_types: Any = None,
        schema: Any = None,
        num_samples: Any = None,
        num_parallel_workers: int = 1,
        shuffle: Any = None,
        sampler: Any = None,
        **kwargs: Any,
    ) -> None:
        if sampler is not None:
            raise missing("mindspore.dataset.GeneratorDataset(sampler=...)")
        self.source = source
        self.column_names = (
            [column_names]
            if isinstance(column_names, str)
            else list(column_names or ["column_0"])
        )
        self.random_access = hasattr(source, "__getitem__") and hasattr(
            source, "__len__"
        )
        self.shuffle_rows = self.random_access if shuffle is None else bool(shuffle)
        self.num_samples = num_samples
        self.column_types = (
            None if column_types is None else [_dtype.to_numpy(t) for t in column_types]
        )

    def rows(self) -> Iterator[tuple]:
        if self.random_access:
            order = (
                core.rng_permutation(len(self.source))
                if self.shuffle_rows
                else range(len(self.source))
            )
            items = (self.source[int(i)] for i in order)
        else:
            items = iter(self.source() if callable(self.source) else self.source)
        for n, item in enumerate(items):
            if self.num_samples is not None and n >= self.num_samples:
                return
            row = _row(item)
            if self.column_types is not None:
                row = tuple(v.astype(t) for v, t in zip(row, self.column_types))
            yield row


class NumpySlicesDataset(GeneratorDataset):
    def __init__(
        self,
        data: Any,
        column_names: Any = None,
        num_samples: Any = None,
        num_parallel_workers: int = 1,
        shuffle: Any = None,
        **kwargs: Any,
    ) -> None:
        if isinstance(data, dict):
            column_names = list(data)
            columns = [np.asarray(v) for v in data.values()]
        elif isinstance(data, tuple):
            columns = [np.asarray(v) for v in data]
        else:
            columns = [np.asarray(data)]
        source = _Slices(columns)
        super().__init__(
            source,
            column_names or [f"column_{i}" for i in range(len(columns))],
            num_samples=num_samples,
            shuffle=shuffle,
        )


class _Slices:
    def __init__(self, columns: list) -> None:
        self.columns = columns

    def __len__(self) -> int:
        return len(self.columns[0])

    def __getitem__(self, i: int) -> tuple:
        return tuple(c[i] for c in self.columns)


class BatchDataset(Dataset):
    def __init__(self, parent: Dataset, batch_size: int, drop_remainder: bool) -> None:
        self.parent, self.batch_size, self.drop_remainder = (
            parent,
            batch_size,
            drop_remainder,
        )
        self.column_names = parent.column_names

    def rows(self) -> Iterator[tuple]:
        pending: list = []
        for row in self.parent.rows():
            pending.append(row)
            if len(pending) == self.batch_size:
                yield tuple(np.stack(col) for col in zip(*pending))
                pending = []
        if pending and not self.drop_remainder:
            yield tuple(np.stack(col) for col in zip(*pending))


class ShuffleDataset(Dataset):
    def __init__(self, parent: Dataset) -> None:
        self.parent = parent
        self.column_names = parent.column_names

    def rows(self) -> Iterator[tuple]:
        rows = list(self.parent.rows())
        for i in core.rng_permutation(len(rows)):
            yield rows[int(i)]


__getattr__ = module_getattr(__name__)
