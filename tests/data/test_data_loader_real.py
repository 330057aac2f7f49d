"""DataLoader in the forms scripts use, converted and run on real MindSpore against real torch.

Each snippet builds a loader the way training scripts do (keyword dictionaries built and updated
before the call, samplers, collate functions, `pin_memory`/`num_workers`); the conversion must
give the same batches in the same order (unshuffled), the same `len(loader)` and
`len(loader.dataset)`.
"""

from __future__ import annotations

import numpy as np
import pytest
from data_support import (
    as_array,
    convert_and_run,
    frameworks,
    load_companion,
    run_original,
    write_mnist,
)

pytestmark = pytest.mark.real

DATASET = """import torch
from torch.utils.data import DataLoader, Dataset


class Pairs(Dataset):
    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return torch.arange(3, dtype=torch.float32) * i, i % 4
"""


@pytest.fixture(scope="module")
def aux(tmp_path_factory):
    frameworks()
    return load_companion(str(tmp_path_factory.mktemp("companion")))


def batches(loader) -> list:
    out = []
    for batch in loader:
        if isinstance(batch, (list, tuple)):
            out.append([as_array(part) for part in batch])
        elif isinstance(batch, dict):
            out.append({key: as_array(value) for key, value in batch.items()})
        else:
            out.append(as_array(batch))
    return out


def assert_same_batches(expected, actual) -> None:
    assert len(expected) == len(actual)
    for want, got in zip(expected, actual):
        if isinstance(want, dict):
            assert want.keys() == got.keys()
            want, got = list(want.values()), list(got.values())
        if not isinstance(want, list):
            want, got = [want], [got]
        for a, b in zip(want, got):
            assert a.shape == b.shape and a.dtype == b.dtype, (a, b)
            np.testing.assert_array_equal(a, b)


LOADERS = [
    pytest.param(
        "train_kwargs = {'batch_size': 4}\n"
        "accel_kwargs = {'num_workers': 1, 'pin_memory': True, 'shuffle': False}\n"
        "train_kwargs.update(accel_kwargs)\n"
        "loader = DataLoader(Pairs(10), **train_kwargs)\n",
        id="keyword-dict-updated",
    ),
    pytest.param(
        "kwargs = dict(batch_size=3, drop_last=True)\nloader = torch.utils.data.DataLoader(Pairs(10), **kwargs)\n",
        id="dict-call-drop-last",
    ),
    pytest.param(
        "loader = DataLoader(Pairs(7), batch_size=3, pin_memory=True, num_workers=0)\n",
        id="visible",
    ),
    pytest.param(
        "loader = DataLoader(Pairs(9), batch_size=2, sampler=[8, 1, 5, 0, 3])\n",
        id="sampler-list",
    ),
    pytest.param(
        "loader = DataLoader(Pairs(9), batch_sampler=[[4, 2], [7], [0, 1, 3]])\n",
        id="batch-sampler",
    ),
    pytest.param(
        "def collate(samples):\n    return [s[1] * 10 for s in samples]\n"
        "loader = DataLoader(Pairs(5), batch_size=2, collate_fn=collate)\n",
        id="collate-fn",
    ),
    pytest.param("loader = DataLoader(Pairs(3), batch_size=None)\n", id="unbatched"),
    pytest.param(
        "from torch.utils.data import SequentialSampler, BatchSampler, Subset\n"
        "data = Subset(Pairs(9), [8, 6, 4, 2, 0])\n"
        "batches = BatchSampler(SequentialSampler(data), batch_size=2, drop_last=False)\n"
        "loader = DataLoader(data, batch_sampler=batches)\n",
        id="subset-batch-sampler",
    ),
    pytest.param(
        "from torch.utils.data import TensorDataset\n"
        "data = TensorDataset(torch.arange(12.0).reshape(6, 2), torch.arange(6))\n"
        "loader = torch.utils.data.DataLoader(data, batch_size=4)\n",
        id="tensor-dataset",
    ),
    pytest.param(
        "from torch.utils.data import Sampler\n\n"
        "class EveryOther(Sampler):\n"
        "    def __init__(self, data):\n        super().__init__()\n        self.n = len(data)\n"
        "    def __iter__(self):\n        return iter(range(0, self.n, 2))\n"
        "    def __len__(self):\n        return (self.n + 1) // 2\n\n"
        "data = Pairs(9)\nloader = DataLoader(data, batch_size=2, sampler=EveryOther(data))\n"
        "assert torch.utils.data.get_worker_info() is None\n",
        id="sampler-subclass",
    ),
    pytest.param(
        "data = Pairs(6)\nsettings = {'batch_size': 4}\nloader = DataLoader(data, shuffle=False, **settings)\n",
        id="mixed",
    ),
]


@pytest.mark.parametrize("snippet", LOADERS)
def test_loader_batches_match_torch(snippet: str, aux) -> None:
    source = DATASET + snippet + "size = len(loader)\ncount = len(loader.dataset)\n"
    original = run_original(source)
    converted, code = convert_and_run(source)
    assert "ms_aux.DataLoader(" in code
    assert (original["size"], original["count"]) == (
        converted["size"],
        converted["count"],
    )
    expected, actual = batches(original["loader"]), batches(converted["loader"])
    if "unbatched" in snippet or "batch_size=None" in snippet:
        expected = [[np.asarray(x), np.asarray(y)] for x, y in expected]
        actual = [[np.asarray(x), np.asarray(y)] for x, y in actual]
    assert_same_batches(expected, actual)
    assert len(expected) == original["size"]


def test_dict_and_tuple_samples_collate_as_torch(aux) -> None:
    torch, _, _ = frameworks()
    samples = [
        {"x": np.full((2,), i, np.float32), "y": i, "w": i / 2, "name": f"s{i}"}
        for i in range(5)
    ]
    expected = list(torch.utils.data.DataLoader(samples, batch_size=2))
    actual = list(aux.DataLoader(samples, batch_size=2))
    assert len(expected) == len(actual) == 3
    for want, got in zip(expected, actual):
        assert want["name"] == got["name"]
        for key in ("x", "y", "w"):
            a, b = want[key].numpy(), got[key].asnumpy()
            assert a.dtype == b.dtype
            np.testing.assert_array_equal(a, b)


def test_shuffled_loader_gives_every_sample_once(aux) -> None:
    loader = aux.DataLoader(list(range(10)), batch_size=4, shuffle=True)
    seen = [int(v) for batch in loader for v in batch.asnumpy()]
    assert sorted(seen) == list(range(10)) and len(loader) == 3


def test_refused_arguments_name_themselves(aux) -> None:
    with pytest.raises(TypeError, match="generator must be a Generator"):
        list(aux.DataLoader([1, 2], shuffle=True, generator=object()))
    with pytest.raises(ValueError, match="mutually exclusive"):
        aux.DataLoader([1, 2], sampler=[0, 1], shuffle=True)


WORKERS = """import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset, get_worker_info


class Seen(Dataset):
    def __len__(self):
        return 6

    def __getitem__(self, i):
        info = get_worker_info()
        return torch.tensor([float(i)]), info is not None and info.dataset is self


def seed_worker(worker_id):
    info = get_worker_info()
    assert info.id == worker_id
    np.random.seed(info.seed % (2 ** 32 - 1))


loader = DataLoader(Seen(), batch_size=2, num_workers=2, worker_init_fn=seed_worker)
outside = get_worker_info()
"""


def test_worker_hook_and_worker_info_as_in_a_torch_worker(aux) -> None:
    """timm's worker hook (`_worker_init`) reads `get_worker_info()` and checks its id: with
    workers, torch runs it and the dataset in each worker process; the companion runs both in
    this process, as worker 0 of 1, and gives the same batches."""
    original = run_original(WORKERS)
    converted, code = convert_and_run(WORKERS)
    assert (
        "ms_aux.DataLoader(Seen(), batch_size=2, num_workers=2, worker_init_fn=seed_worker)"
        in code
    )
    assert original["outside"] is None and converted["outside"] is None
    expected, actual = batches(original["loader"]), batches(converted["loader"])
    assert_same_batches(expected, actual)
    assert all(bool(seen.all()) for _, seen in actual)


ITERABLE = """import torch
from torch.utils.data import DataLoader, IterableDataset, get_worker_info


class Batches(IterableDataset):
    \"\"\"Yields whole batches, split among the workers as timm's NaFlex wrapper splits them.\"\"\"

    def __iter__(self):
        info = get_worker_info()
        workers, worker = (info.num_workers, info.id) if info is not None else (1, 0)
        for i in range(worker, 6, workers):
            yield {"x": torch.ones(2, 3) * i}, torch.tensor([i, i])


loader = DataLoader(Batches(), batch_size=None, num_workers=NUM_WORKERS)
"""


@pytest.mark.parametrize("workers", [0, 1])
def test_iterable_dataset_without_batching_yields_its_items(aux, workers) -> None:
    """`batch_size=None` over an iterable dataset: torch yields each item as it comes (one
    worker, so in the dataset's order); so does the companion, whose one worker keeps them all."""
    source = ITERABLE.replace("NUM_WORKERS", str(workers))
    original = run_original(source)
    converted, code = convert_and_run(source)
    assert "ms_aux.DataLoader(Batches(), batch_size=None" in code
    expected, actual = list(original["loader"]), list(converted["loader"])
    assert len(expected) == len(actual) == 6
    for (want, want_target), (got, got_target) in zip(expected, actual):
        assert list(got) == list(want) == ["x"]
        for a, b in ((got["x"], want["x"]), (got_target, want_target)):
            assert as_array(a).dtype == as_array(b).dtype
            np.testing.assert_array_equal(as_array(a), as_array(b))


def test_worker_hook_runs_once_per_worker_start(aux) -> None:
    calls = []

    def hook(worker_id):
        info = aux.get_worker_info()
        calls.append((worker_id, info.id, info.num_workers))

    loader = aux.DataLoader(
        list(range(4)), batch_size=2, num_workers=3, worker_init_fn=hook
    )
    for _ in range(2):
        assert [as_array(b).tolist() for b in loader] == [[0, 1], [2, 3]]
    assert calls == [(0, 0, 1), (0, 0, 1)]  # a new worker each iteration
    assert aux.get_worker_info() is None
    calls.clear()
    loader = aux.DataLoader(
        list(range(4)),
        batch_size=2,
        num_workers=3,
        worker_init_fn=hook,
        persistent_workers=True,
    )
    seeds = set()
    for _ in range(2):
        for _batch in loader:
            seeds.add(aux.get_worker_info())
    assert calls == [(0, 0, 1)] and seeds == {None}
    # Without worker processes torch never calls it, and neither does the companion.
    calls.clear()
    assert len(list(aux.DataLoader([1, 2], worker_init_fn=hook))) == 2 and calls == []


MNIST_SCRIPT = """import torch
from torchvision import datasets, transforms


def loaders(root, use_accel):
    train_kwargs = {'batch_size': 8}
    test_kwargs = {'batch_size': 6}
    if use_accel:
        accel_kwargs = {'num_workers': 1, 'pin_memory': True, 'shuffle': True}
        train_kwargs.update(accel_kwargs)
        test_kwargs.update(accel_kwargs)
    transform = transforms.Compose([
        transforms.ToTensor(),
        transforms.Normalize((0.1307,), (0.3081,))
    ])
    dataset1 = datasets.MNIST(root, train=True, download=True, transform=transform)
    dataset2 = datasets.MNIST(root, train=False, transform=transform)
    train_loader = torch.utils.data.DataLoader(dataset1, **train_kwargs)
    test_loader = torch.utils.data.DataLoader(dataset2, **test_kwargs)
    return train_loader, test_loader
"""


@pytest.mark.parametrize("use_accel", [False, True])
def test_mnist_example_loaders(use_accel: bool, tmp_path, aux) -> None:
    """pytorch/examples' mnist: the converted dataset is a mindspore.dataset pipeline, batched
    (and shuffled) by MindSpore; the logging lengths and the batches agree with torch's."""
    write_mnist(str(tmp_path), train=21, test=10)
    original = run_original(MNIST_SCRIPT)
    converted, code = convert_and_run(MNIST_SCRIPT)
    assert "ms_aux.DataLoader(dataset1, **train_kwargs)" in code
    torch_loaders = original["loaders"](str(tmp_path), use_accel)
    ms_loaders = converted["loaders"](str(tmp_path), use_accel)
    for want, got in zip(torch_loaders, ms_loaders):
        assert len(want) == len(got)
        assert len(want.dataset) == len(got.dataset)
        expected, actual = batches(want), batches(got)
        if (
            use_accel
        ):  # shuffled by each framework's generator: same samples, another order
            labels = sorted(int(y) for _, ys in expected for y in ys)
            assert labels == sorted(int(y) for _, ys in actual for y in ys)
            assert [b[0].shape for b in expected] == [b[0].shape for b in actual]
        else:
            for (x1, y1), (x2, y2) in zip(expected, actual):
                np.testing.assert_allclose(x2, x1, rtol=0, atol=1e-6)
                np.testing.assert_array_equal(y2, y1)


def test_random_samplers_and_split_draw_every_index(aux) -> None:
    """Random draws come from NumPy, not torch's generator: what they draw is checked, not the
    order."""
    data = list(range(10))
    assert sorted(aux.RandomSampler(data)) == data
    assert len(list(aux.RandomSampler(data, num_samples=25))) == 25
    assert sorted(set(aux.RandomSampler(data, num_samples=25))) == data
    drawn = list(aux.RandomSampler(data, replacement=True, num_samples=7))
    assert len(drawn) == 7 and set(drawn) <= set(data)
    assert sorted(aux.SubsetRandomSampler([3, 5, 9])) == [3, 5, 9]
    first, second = aux.random_split(data, [0.7, 0.3])
    assert (len(first), len(second)) == (7, 3)
    assert sorted([first[i] for i in range(7)] + [second[i] for i in range(3)]) == data
    torch, _, _ = frameworks()
    expected = [
        len(s) for s in torch.utils.data.random_split(range(11), [0.5, 0.3, 0.2])
    ]
    assert [
        len(s) for s in aux.random_split(list(range(11)), [0.5, 0.3, 0.2])
    ] == expected
    with pytest.raises(ValueError, match="Sum of input lengths"):
        aux.random_split(data, [3, 3])
    with pytest.raises(TypeError, match="generator must be a Generator"):
        list(aux.RandomSampler(data, generator=object()))


def test_a_seeded_generator_gives_one_stream_per_seed(aux) -> None:
    """`generator=torch.Generator().manual_seed(s)` converts to the companion Generator: the
    draws are NumPy's, and the same seed gives the same draws."""
    data = list(range(12))

    def draws(seed):
        make = lambda: aux.Generator().manual_seed(seed)  # noqa: E731
        return (
            list(aux.RandomSampler(data, generator=make())),
            list(aux.SubsetRandomSampler([1, 3, 5, 7], generator=make())),
            [list(s.indices) for s in aux.random_split(data, [4, 8], generator=make())],
            [b.asnumpy().tolist() for b in aux.DataLoader(data, 5, True, generator=make())],
            list(aux.WeightedRandomSampler([0.1, 0.5, 0.4], 6, generator=make())),
        )

    first, again, other = draws(3), draws(3), draws(4)
    assert first == again and first != other
    assert sorted(first[0]) == data and sorted(first[1]) == [1, 3, 5, 7]


def test_weighted_sampler_concat_and_chain_datasets_as_torchs(aux) -> None:
    torch, _, _ = frameworks()
    weights = [0.0, 0.3, 0.0, 0.7]
    drawn = list(aux.WeightedRandomSampler(weights, 50))
    assert len(drawn) == 50 and set(drawn) <= {1, 3}
    unique = list(aux.WeightedRandomSampler(weights, 2, replacement=False))
    assert sorted(unique) == [1, 3]
    assert len(aux.WeightedRandomSampler(weights, 5)) == 5
    with pytest.raises(ValueError, match="num_samples"):
        aux.WeightedRandomSampler(weights, 0)
    parts = [[1.0, 2.0, 3.0], [4.0, 5.0]]
    ours, theirs = aux.ConcatDataset(parts), torch.utils.data.ConcatDataset(parts)
    assert len(ours) == len(theirs) and ours.cumulative_sizes == theirs.cumulative_sizes
    assert [ours[i] for i in range(-5, 5)] == [theirs[i] for i in range(-5, 5)]

    class Span(torch.utils.data.IterableDataset):
        def __init__(self, start, end):
            self.start, self.end = start, end

        def __iter__(self):
            return iter(range(self.start, self.end))

    chained = [Span(3, 5), Span(0, 2)]
    theirs_chain = torch.utils.data.ChainDataset(chained)
    assert [x for x in aux.ChainDataset(chained)] == [x for x in theirs_chain] == [3, 4, 0, 1]
    sample = {"a": np.arange(3), "b": (np.float32(2.0), "s"), "c": [1, 2]}
    converted = aux.default_convert(sample)
    expected = torch.utils.data.default_convert(sample)
    assert converted["a"].asnumpy().tolist() == expected["a"].tolist()
    assert float(converted["b"][0].asnumpy()) == float(expected["b"][0])
    assert converted["b"][1] == expected["b"][1] and converted["c"] == expected["c"]
    assert type(converted["b"]) is type(expected["b"])


PIPELINE_SCRIPT = """import torch
from torchvision import datasets, transforms


def loader(root):
    data = datasets.MNIST(root, train=False, transform=transforms.ToTensor())
    batches = torch.utils.data.DataLoader(data, batch_size=3, shuffle=SHUFFLE, num_workers=0,
                                          pin_memory=True, drop_last=True)
    return batches, len(batches)
"""


@pytest.mark.parametrize("shuffle", [False, True])
def test_visible_loader_over_a_pipeline_batches_it(
    shuffle: bool, tmp_path, aux
) -> None:
    """A loader over a converted torchvision dataset, its arguments visible, becomes
    `data.shuffle(len(data)).batch(3, drop_remainder=True)`; the loop unpacks its rows."""
    write_mnist(str(tmp_path), train=4, test=10)
    script = PIPELINE_SCRIPT.replace("SHUFFLE", str(shuffle))
    original = run_original(script)
    converted, code = convert_and_run(script)
    pipeline = "data.shuffle(len(data))" if shuffle else "data"
    assert f"{pipeline}.batch(3, drop_remainder=True)" in code
    want, want_size = original["loader"](str(tmp_path))
    got, got_size = converted["loader"](str(tmp_path))
    assert want_size == got_size == 3
    expected = [(x.numpy(), y.numpy()) for x, y in want]
    actual = [(x.asnumpy(), y.asnumpy()) for x, y in got]
    assert [x.shape for x, _ in expected] == [x.shape for x, _ in actual]
    if shuffle:
        return
    for (x1, y1), (x2, y2) in zip(expected, actual):
        np.testing.assert_allclose(x2, x1, rtol=0, atol=1e-6)
        np.testing.assert_array_equal(y2, y1)


@pytest.mark.parametrize(
    ("n", "replicas", "drop_last"),
    [(10, 3, False), (10, 3, True), (2, 4, False), (8, 2, False)],
)
def test_distributed_sampler_splits_as_torch_does(aux, n, replicas, drop_last) -> None:
    frameworks()
    from torch.utils.data.distributed import DistributedSampler

    data = list(range(n))
    for rank in range(replicas):
        kwargs = {"num_replicas": replicas, "rank": rank, "drop_last": drop_last}
        expected = list(DistributedSampler(data, shuffle=False, **kwargs))
        sampler = aux.DistributedSampler(data, shuffle=False, **kwargs)
        assert list(sampler) == expected
        assert len(sampler) == len(expected)
    # Shuffled: every replica draws the same permutation, so together they cover the data.
    seen = []
    for rank in range(replicas):
        sampler = aux.DistributedSampler(data, num_replicas=replicas, rank=rank, seed=3)
        sampler.set_epoch(1)
        seen += list(sampler)
    assert set(seen) == set(data) and len(seen) == len(sampler) * replicas
    # One process unless told otherwise: all the data, in one order per epoch.
    assert sorted(aux.DistributedSampler(data, shuffle=True)) == data


def test_dataset_kinds_in_type_checks_read_what_the_class_defines(aux) -> None:
    from torch2ms.rules.companion import assemble

    namespace: dict = {}
    exec(assemble(["Dataset", "IterableDataset"]), namespace)  # noqa: S102 - the companion's text

    class Stream:
        def __iter__(self):
            yield 1

    class Items:
        def __getitem__(self, i):
            return i

        def __len__(self):
            return 2

    class Both(Items):
        def __iter__(self):
            yield 1

    Dataset, IterableDataset = namespace["Dataset"], namespace["IterableDataset"]
    assert isinstance(Stream(), IterableDataset) and not isinstance(Stream(), Dataset)
    assert isinstance(Items(), Dataset) and not isinstance(Items(), IterableDataset)
    assert isinstance(Both(), Dataset) and not isinstance(Both(), IterableDataset)
    assert not isinstance(3, Dataset) and not isinstance([1], IterableDataset)


def test_dataset_kinds_in_type_checks_convert_to_the_companion() -> None:
    from torch2ms.migrator.context import Options
    from torch2ms.migrator.convert import convert_source

    source = (
        "import torch\n\n"
        "def kind(dataset):\n"
        "    if isinstance(dataset, torch.utils.data.IterableDataset):\n"
        "        return 'iterable'\n"
        "    return 'map' if isinstance(dataset, torch.utils.data.Dataset) else None\n"
    )
    result = convert_source(source, "m.py", Options())
    assert "isinstance(dataset, ms_aux.IterableDataset)" in result.code
    assert "isinstance(dataset, ms_aux.Dataset)" in result.code
    assert "torch" not in result.code and not result.findings
