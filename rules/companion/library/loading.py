"""Data loading with torch.utils.data's meaning: collation, samplers and the DataLoader, in Python
over NumPy and MindSpore tensors (a `mindspore.dataset` pipeline is batched by MindSpore)."""

import math

import mindspore
import mindspore.dataset as ds
import numpy as np
from mindspore import ops


def default_collate(batch):
    """`torch.utils.data.default_collate`: stack a list of samples into batched Tensors, column by
    column (tuples and lists give lists, dicts give dicts, Python ints int64, floats float64)."""
    elem = batch[0]
    if isinstance(elem, mindspore.Tensor):
        return ops.stack(list(batch))
    if isinstance(elem, (np.ndarray, np.number, np.bool_)):
        return mindspore.Tensor(np.stack(batch))
    if isinstance(elem, bool):
        return mindspore.Tensor(np.array(batch, dtype=np.bool_))
    if isinstance(elem, int):
        return mindspore.Tensor(np.array(batch, dtype=np.int64))
    if isinstance(elem, float):
        return mindspore.Tensor(np.array(batch, dtype=np.float64))
    if isinstance(elem, (str, bytes)):
        return list(batch)
    if isinstance(elem, dict):
        return {key: default_collate([d[key] for d in batch]) for key in elem}
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):
        return type(elem)(*(default_collate(list(s)) for s in zip(*batch)))
    if isinstance(elem, (tuple, list)):
        return [default_collate(list(s)) for s in zip(*batch)]
    raise TypeError(f"default_collate: cannot batch {type(elem).__name__}")


class _WorkerInfo:
    """What torch's `get_worker_info()` gives inside a worker: `id`, `num_workers`, `seed` and
    `dataset` (read-only, as torch's)."""

    __slots__ = ("dataset", "id", "num_workers", "seed")

    def __init__(self, id, num_workers, seed, dataset):
        values = {
            "id": id,
            "num_workers": num_workers,
            "seed": seed,
            "dataset": dataset,
        }
        for name, value in values.items():
            object.__setattr__(self, name, value)

    def __setattr__(self, name, value):
        raise RuntimeError(f"Cannot assign attributes to {type(self).__name__} objects")

    def __repr__(self):
        return f"WorkerInfo(id={self.id}, num_workers={self.num_workers}, seed={self.seed})"


# The worker loading a batch right now (`get_worker_info`), None in the main program.
_LOADING_WORKER = [None]


def get_worker_info():
    """`torch.utils.data.get_worker_info`: None in the main program, as in torch's main process;
    while a DataLoader with `num_workers > 0` loads (its dataset, sampler and collate_fn run), the
    one worker that loads in this process: id 0 of 1, with its seed and the dataset."""
    return _LOADING_WORKER[0]


class Sampler:
    """`torch.utils.data.Sampler`: the base class of index samplers, a plain Python class as in
    torch (subclasses define `__iter__`, and `__len__` where they know it)."""

    def __init__(self, data_source=None):
        pass

    def __class_getitem__(cls, item):
        return cls

    def __iter__(self):
        raise NotImplementedError


def _stream(generator):
    """The NumPy stream draws come from: a companion ``Generator``'s own (seeded with its
    ``manual_seed``), else NumPy's global one."""
    if generator is None:
        return np.random
    stream = getattr(generator, "_numpy", None)
    if stream is None:
        raise TypeError(f"generator must be a Generator, not {type(generator).__name__}")
    return stream


def _permutation(n, generator):
    return _stream(generator).permutation(n)


def _integers(high, size, generator):
    stream = _stream(generator)
    if stream is np.random:
        return np.random.randint(0, high, size)
    return stream.integers(0, high, size)


class SequentialSampler(Sampler):
    """`torch.utils.data.SequentialSampler`: indices 0 .. len(data_source) - 1 in order."""

    def __init__(self, data_source):
        self.data_source = data_source

    def __iter__(self):
        return iter(range(len(self.data_source)))

    def __len__(self):
        return len(self.data_source)


class RandomSampler(Sampler):
    """`torch.utils.data.RandomSampler`: a permutation of the indices (or draws with
    replacement), from NumPy's generator instead of torch's."""

    def __init__(
        self, data_source, replacement=False, num_samples=None, generator=None
    ):
        self.data_source = data_source
        self.generator = generator
        self.replacement = replacement
        self._num_samples = num_samples

    @property
    def num_samples(self):
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self):
        n = len(self.data_source)
        if self.replacement:
            return iter(_integers(n, self.num_samples, self.generator).tolist())
        count = self.num_samples
        indices = [_permutation(n, self.generator) for _ in range(math.ceil(count / n))]
        return iter(np.concatenate(indices)[:count].tolist())

    def __len__(self):
        return self.num_samples


class SubsetRandomSampler(Sampler):
    """`torch.utils.data.SubsetRandomSampler`: the given indices in a NumPy-drawn order."""

    def __init__(self, indices, generator=None):
        self.indices = indices
        self.generator = generator

    def __iter__(self):
        order = _permutation(len(self.indices), self.generator)
        return iter([self.indices[i] for i in order])

    def __len__(self):
        return len(self.indices)


class BatchSampler(Sampler):
    """`torch.utils.data.BatchSampler`: the sampler's indices grouped into lists of batch_size."""

    def __init__(self, sampler, batch_size, drop_last):
        self.sampler = sampler
        self.batch_size = batch_size
        self.drop_last = drop_last

    def __iter__(self):
        batch = []
        for index in self.sampler:
            batch.append(index)
            if len(batch) == self.batch_size:
                yield batch
                batch = []
        if batch and not self.drop_last:
            yield batch

    def __len__(self):
        if self.drop_last:
            return len(self.sampler) // self.batch_size
        return math.ceil(len(self.sampler) / self.batch_size)


class WeightedRandomSampler(Sampler):
    """`torch.utils.data.WeightedRandomSampler`: `num_samples` indices drawn with probabilities
    proportional to `weights` (with or without replacement), from NumPy's stream."""

    def __init__(self, weights, num_samples, replacement=True, generator=None):
        if not isinstance(num_samples, int) or isinstance(num_samples, bool) or num_samples <= 0:
            raise ValueError(
                f"num_samples should be a positive integer value, but got num_samples={num_samples}"
            )
        weights = weights.asnumpy() if isinstance(weights, mindspore.Tensor) else weights
        self.weights = np.asarray(weights, dtype=np.float64).reshape(-1)
        self.num_samples = num_samples
        self.replacement = replacement
        self.generator = generator

    def __iter__(self):
        p = self.weights / self.weights.sum()
        stream = _stream(self.generator)
        drawn = stream.choice(len(p), self.num_samples, replace=self.replacement, p=p)
        return iter(drawn.tolist())

    def __len__(self):
        return self.num_samples


class ConcatDataset:
    """`torch.utils.data.ConcatDataset`: the datasets one after another, indexed as one."""

    def __init__(self, datasets):
        self.datasets = list(datasets)
        if not self.datasets:
            raise AssertionError("datasets should not be an empty iterable")
        self.cumulative_sizes, total = [], 0
        for dataset in self.datasets:
            total += len(dataset)
            self.cumulative_sizes.append(total)

    def __len__(self):
        return self.cumulative_sizes[-1]

    def __getitem__(self, index):
        if index < 0:
            if -index > len(self):
                raise ValueError("absolute value of index should not exceed dataset length")
            index = len(self) + index
        start = 0
        for dataset, end in zip(self.datasets, self.cumulative_sizes):
            if index < end:
                return dataset[index - start]
            start = end
        raise IndexError("index out of range")


class ChainDataset:
    """`torch.utils.data.ChainDataset`: iterable datasets iterated one after another."""

    def __init__(self, datasets):
        self.datasets = datasets

    def __iter__(self):
        for dataset in self.datasets:
            yield from dataset

    def __len__(self):
        return sum(len(dataset) for dataset in self.datasets)


def default_convert(data):
    """`torch.utils.data.default_convert`: NumPy arrays and scalars become Tensors, inside
    mappings and sequences too; everything else is returned as it is."""
    if isinstance(data, np.ndarray) and data.dtype.kind not in "SaUO":
        return mindspore.Tensor(data)
    if isinstance(data, np.number):
        return mindspore.Tensor(np.asarray(data))
    if isinstance(data, dict):
        return type(data)({key: default_convert(value) for key, value in data.items()})
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return type(data)(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, list):
        return [default_convert(d) for d in data]
    return data


class TensorDataset:
    """`torch.utils.data.TensorDataset`: sample i is the tuple of each tensor's row i."""

    def __init__(self, *tensors):
        if any(t.shape[0] != tensors[0].shape[0] for t in tensors):
            raise ValueError("Size mismatch between tensors")
        self.tensors = tensors

    def __getitem__(self, index):
        return tuple(tensor[index] for tensor in self.tensors)

    def __len__(self):
        return self.tensors[0].shape[0]


class Subset:
    """`torch.utils.data.Subset`: the dataset seen through a list of indices."""

    def __init__(self, dataset, indices):
        self.dataset = dataset
        self.indices = indices

    def __getitem__(self, index):
        if isinstance(index, list):
            return self.dataset[[self.indices[i] for i in index]]
        return self.dataset[self.indices[index]]

    def __len__(self):
        return len(self.indices)


def random_split(dataset, lengths, generator=None):
    """`torch.utils.data.random_split`: Subsets of a NumPy-drawn permutation, with torch's
    lengths (counts, or fractions summing to 1 whose remainder goes round-robin)."""
    total = len(dataset)
    if math.isclose(sum(lengths), 1) and sum(lengths) <= 1:
        counts = [math.floor(total * fraction) for fraction in lengths]
        for i in range(total - sum(counts)):
            counts[i % len(counts)] += 1
        lengths = counts
    if sum(lengths) != total:
        raise ValueError(
            "Sum of input lengths does not equal the length of the input dataset!"
        )
    order = _permutation(total, generator).tolist()
    subsets, start = [], 0
    for length in lengths:
        subsets.append(Subset(dataset, order[start : start + length]))
        start += length
    return subsets


class DataLoader:
    """`torch.utils.data.DataLoader`, with torch's arguments.

    A `mindspore.dataset` pipeline (a converted torchvision dataset) is shuffled and batched by
    MindSpore (`.shuffle(...)`, `.batch(...)`) and iterated with `create_tuple_iterator`; any other
    dataset (`__getitem__`/`__len__`, or `__iter__`) is indexed, shuffled with NumPy, sampled and
    collated in Python as torch does. `len(loader)` is the number of batches and `loader.dataset`
    the dataset. Memory pinning only changes speed and is ignored. With `num_workers > 0` the
    batches load in one worker that runs in this process (torch starts `num_workers` processes):
    `get_worker_info()` gives it while it loads (id 0 of 1, so a dataset that splits its samples
    among workers keeps them all), and `worker_init_fn(0)` runs once before it loads, per
    iteration or once for `persistent_workers`, as torch calls it in each new worker. The worker's
    seed is a base seed drawn from NumPy (torch draws it from its own generator); no generator is
    re-seeded with it, since the worker shares this process's generators. `generator` and a
    custom `collate_fn`/`sampler` on a MindSpore pipeline raise NotImplementedError."""

    def __init__(
        self,
        dataset,
        batch_size=1,
        shuffle=None,
        sampler=None,
        batch_sampler=None,
        num_workers=0,
        collate_fn=None,
        pin_memory=False,
        drop_last=False,
        timeout=0,
        worker_init_fn=None,
        multiprocessing_context=None,
        generator=None,
        *,
        prefetch_factor=None,
        persistent_workers=False,
        pin_memory_device="",
        in_order=True,
    ):
        self.generator = generator
        if (sampler is not None or batch_sampler is not None) and shuffle:
            raise ValueError(
                "DataLoader: sampler option is mutually exclusive with shuffle"
            )
        self.dataset = dataset
        self.batch_size = batch_size
        self.drop_last = drop_last
        self.shuffle = bool(shuffle)
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.collate_fn = collate_fn
        self.num_workers = num_workers
        self.worker_init_fn = worker_init_fn
        self.persistent_workers = persistent_workers
        self._worker = None
        self._pipeline = None
        if isinstance(dataset, ds.Dataset):
            for name, value in (
                ("sampler", sampler),
                ("batch_sampler", batch_sampler),
                ("collate_fn", collate_fn),
            ):
                if value is not None:
                    raise NotImplementedError(
                        f"DataLoader: {name}= over a mindspore.dataset pipeline is not supported"
                    )
            pipeline = dataset
            if self.shuffle:
                pipeline = pipeline.shuffle(
                    buffer_size=max(1, dataset.get_dataset_size())
                )
            if batch_size is not None:
                pipeline = pipeline.batch(batch_size, drop_remainder=drop_last)
            self._pipeline = pipeline

    def _indices(self):
        if self.sampler is not None:
            return iter(self.sampler)
        if self.shuffle:
            return iter(_permutation(len(self.dataset), self.generator).tolist())
        return iter(range(len(self.dataset)))

    def _batches(self):
        if self.batch_sampler is not None:
            yield from self.batch_sampler
            return
        batch = []
        for index in self._indices():
            batch.append(index)
            if len(batch) == self.batch_size:
                yield batch
                batch = []
        if batch and not self.drop_last:
            yield batch

    def _samples(self):
        """Batches of samples of an iterable dataset (one without `__getitem__`)."""
        batch = []
        for sample in self.dataset:
            batch.append(sample)
            if len(batch) == self.batch_size:
                yield batch
                batch = []
        if batch and not self.drop_last:
            yield batch

    def __iter__(self):
        batches = self._load()
        if self.num_workers <= 0:
            yield from batches
            return
        worker = self._start_worker()
        while True:
            outer, _LOADING_WORKER[0] = _LOADING_WORKER[0], worker
            try:
                batch = next(batches)
            except StopIteration:
                return
            finally:
                _LOADING_WORKER[0] = outer
            yield batch

    def _start_worker(self):
        """The worker that loads this iteration's batches, `worker_init_fn(0)` run in its context;
        a persistent worker is started once."""
        if self._worker is not None and self.persistent_workers:
            return self._worker
        seed = int(np.random.randint(0, 2**63 - 1, dtype=np.int64))
        self._worker = _WorkerInfo(0, 1, seed, self.dataset)
        if self.worker_init_fn is not None:
            outer, _LOADING_WORKER[0] = _LOADING_WORKER[0], self._worker
            try:
                self.worker_init_fn(0)
            finally:
                _LOADING_WORKER[0] = outer
        return self._worker

    def _load(self):
        if self._pipeline is not None:
            for row in self._pipeline.create_tuple_iterator(num_epochs=1):
                yield row[0] if len(row) == 1 else list(row)
            return
        collate = self.collate_fn or default_collate
        if not hasattr(self.dataset, "__getitem__"):
            if self.batch_size is None:
                yield from self.dataset  # an iterable dataset's items, as they come
                return
            for samples in self._samples():
                yield collate(samples)
            return
        if self.batch_size is None and self.batch_sampler is None:
            for index in self._indices():
                yield self.dataset[index]
            return
        for indices in self._batches():
            yield collate([self.dataset[i] for i in indices])

    def __len__(self):
        if self._pipeline is not None:
            return self._pipeline.get_dataset_size()
        if self.batch_sampler is not None:
            return len(self.batch_sampler)
        count = len(self.sampler) if self.sampler is not None else len(self.dataset)
        if self.batch_size is None:
            return count
        if self.drop_last:
            return count // self.batch_size
        return math.ceil(count / self.batch_size)


class DistributedSampler(Sampler):
    """`torch.utils.data.distributed.DistributedSampler`: torch's split of the indices among
    `num_replicas` processes (padded by repeating, or cut with `drop_last`; rank `r` takes every
    `num_replicas`-th index from `r`), shuffled per epoch (`set_epoch`) from NumPy's generator
    seeded with `seed + epoch`, so every process draws the same order; torch's order differs.
    Without `num_replicas`/`rank` the converted program is one process: rank 0 of 1."""

    def __init__(
        self,
        dataset,
        num_replicas=None,
        rank=None,
        shuffle=True,
        seed=0,
        drop_last=False,
    ):
        self.dataset = dataset
        self.num_replicas = 1 if num_replicas is None else num_replicas
        self.rank = 0 if rank is None else rank
        if not 0 <= self.rank < self.num_replicas:
            raise ValueError(
                f"Invalid rank {self.rank}, rank should be in the interval [0, {self.num_replicas - 1}]"
            )
        self.shuffle, self.seed, self.drop_last, self.epoch = (
            shuffle,
            seed,
            drop_last,
            0,
        )
        n = len(dataset)
        if drop_last and n % self.num_replicas:
            self.num_samples = math.ceil((n - self.num_replicas) / self.num_replicas)
        else:
            self.num_samples = math.ceil(n / self.num_replicas)
        self.total_size = self.num_samples * self.num_replicas

    def __iter__(self):
        n = len(self.dataset)
        if self.shuffle:
            indices = (
                np.random.default_rng(self.seed + self.epoch).permutation(n).tolist()
            )
        else:
            indices = list(range(n))
        if not self.drop_last:
            padding = self.total_size - len(indices)
            if padding <= len(indices):
                indices += indices[:padding]
            else:
                indices += (indices * math.ceil(padding / len(indices)))[:padding]
        else:
            indices = indices[: self.total_size]
        return iter(indices[self.rank : self.total_size : self.num_replicas])

    def __len__(self):
        return self.num_samples

    def set_epoch(self, epoch):
        self.epoch = epoch
