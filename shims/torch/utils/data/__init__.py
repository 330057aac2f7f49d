"""torch.utils.data: Dataset, TensorDataset, Subset, random_split, DataLoader (single process)."""

from __future__ import annotations

import numbers
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import numpy as np

from .... import core as C
from ..._tensor import Tensor, wrap


class Dataset:
    def __getitem__(self, index: int) -> Any:
        raise NotImplementedError("Subclasses of Dataset should implement __getitem__.")

    def __add__(self, other: Dataset) -> ConcatDataset:
        return ConcatDataset([self, other])


class IterableDataset(Dataset):
    def __iter__(self) -> Iterator:
        raise NotImplementedError


class TensorDataset(Dataset):
    def __init__(self, *tensors: Tensor) -> None:
        if any(t.shape[0] != tensors[0].shape[0] for t in tensors):
            raise AssertionError("Size mismatch between tensors")
        self.tensors = tensors

    def __getitem__(self, index: int) -> tuple:
        return tuple(t[index] for t in self.tensors)

    def __len__(self) -> int:
        return self.tensors[0].shape[0]


class Subset(Dataset):
    def __init__(self, dataset: Dataset, indices: Sequence[int]) -> None:
        self.dataset, self.indices = dataset, indices

    def __getitem__(self, idx: int) -> Any:
        if isinstance(idx, list):
            return self.dataset[[self.indices[i] for i in idx]]
        return self.dataset[self.indices[idx]]

    def __len__(self) -> int:
        return len(self.indices)


class ConcatDataset(Dataset):
    def __init__(self, datasets: Sequence[Dataset]) -> None:
        self.datasets = list(datasets)
        self.cumulative_sizes = list(np.cumsum([len(d) for d in self.datasets]))

    def __len__(self) -> int:
        return int(self.cumulative_sizes[-1]) if self.cumulative_sizes else 0

    def __getitem__(self, idx: int) -> Any:
        if idx < 0:
            idx += len(self)
        which = int(np.searchsorted(self.cumulative_sizes, idx, side="right"))
        start = 0 if which == 0 else int(self.cumulative_sizes[which - 1])
        return self.datasets[which][idx - start]


def random_split(dataset: Dataset, lengths: Sequence, generator: Any = None) -> list:
    n = len(dataset)
    if (
        all(0 <= f <= 1 for f in lengths)
        and abs(sum(lengths) - 1) < 1e-9
        and sum(lengths) != n
    ):
        counts = [int(np.floor(n * f)) for f in lengths]
        for i in range(n - sum(counts)):
            counts[i % len(counts)] += 1
        lengths = counts
    if sum(lengths) != n:
        raise ValueError(
            "Sum of input lengths does not equal the length of the input dataset!"
        )
    perm = C.rng_permutation(n, gen=_stream(generator)).tolist()
    out, start = [], 0
    for length in lengths:
        out.append(Subset(dataset, perm[start : start + length]))
        start += length
    return out


def default_collate(batch: list) -> Any:
    elem = batch[0]
    if isinstance(elem, Tensor):
        return wrap(np.stack([b._data for b in batch]))
    if isinstance(elem, np.ndarray):
        return wrap(np.stack(batch))
    if isinstance(elem, (bool, np.bool_)):
        return wrap(np.array(batch, np.bool_))
    if isinstance(elem, float):
        return wrap(np.array(batch, np.float64))
    if isinstance(elem, numbers.Integral):
        return wrap(np.array(batch, np.int64))
    if isinstance(elem, np.generic):
        return wrap(np.array(batch))
    if isinstance(elem, (str, bytes)):
        return batch
    if isinstance(elem, Mapping):
        return {k: default_collate([b[k] for b in batch]) for k in elem}
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):
        return type(elem)(*(default_collate(list(s)) for s in zip(*batch)))
    if isinstance(elem, Sequence):
        return [default_collate(list(s)) for s in zip(*batch)]
    raise TypeError(
        f"default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found {type(elem)}"
    )


class SequentialSampler:
    def __init__(self, data_source: Any) -> None:
        self.data_source = data_source

    def __iter__(self) -> Iterator[int]:
        return iter(range(len(self.data_source)))

    def __len__(self) -> int:
        return len(self.data_source)


def _stream(generator: Any) -> Any:
    return None if generator is None else getattr(generator, "stream", None)


class RandomSampler(SequentialSampler):
    def __init__(
        self,
        data_source: Any,
        replacement: bool = False,
        num_samples: Any = None,
        generator: Any = None,
    ) -> None:
        super().__init__(data_source)
        if replacement or num_samples is not None:
            raise NotImplementedError(
                "shims: RandomSampler(replacement/num_samples) is not implemented"
            )
        self.generator = generator

    def __iter__(self) -> Iterator[int]:
        return iter(
            C.rng_permutation(
                len(self.data_source), gen=_stream(self.generator)
            ).tolist()
        )


class DataLoader:
    def __init__(
        self,
        dataset: Dataset,
        batch_size: int | None = 1,
        shuffle: bool | None = None,
        sampler: Any = None,
        batch_sampler: Any = None,
        num_workers: int = 0,
        collate_fn: Any = None,
        pin_memory: bool = False,
        drop_last: bool = False,
        timeout: float = 0,
        worker_init_fn: Any = None,
        generator: Any = None,
        **kwargs: Any,
    ) -> None:
        if batch_sampler is not None:
            raise NotImplementedError(
                "shims: DataLoader(batch_sampler=...) is not implemented"
            )
        self.dataset = dataset
        self.batch_size = batch_size
        self.drop_last = drop_last
        self.num_workers = num_workers
        self.collate_fn = collate_fn if collate_fn is not None else default_collate
        if sampler is None:
            sampler = (
                RandomSampler(dataset, generator=generator)
                if shuffle
                else SequentialSampler(dataset)
            )
        self.sampler = sampler

    def __iter__(self) -> Iterator:
        if isinstance(self.dataset, IterableDataset):
            yield from self._iter_iterable()
            return
        if self.batch_size is None:
            for i in self.sampler:
                yield self.dataset[i]
            return
        batch: list = []
        for i in self.sampler:
            batch.append(self.dataset[i])
            if len(batch) == self.batch_size:
                yield self.collate_fn(batch)
                batch = []
        if batch and not self.drop_last:
            yield self.collate_fn(batch)

    def _iter_iterable(self) -> Iterator:
        batch: list = []
        for item in self.dataset:
            if self.batch_size is None:
                yield item
                continue
            batch.append(item)
            if len(batch) == self.batch_size:
                yield self.collate_fn(batch)
                batch = []
        if batch and not self.drop_last:
            yield self.collate_fn(batch)

    def __len__(self) -> int:
        n = len(self.sampler)
        if self.batch_size is None:
            return n
        return n // self.batch_size if self.drop_last else -(-n // self.batch_size)


def __getattr__(name: str) -> Any:
    if name.startswith("__"):
        raise AttributeError(name)
    raise NotImplementedError(f"shims: torch.utils.data.{name} is not implemented")
