"""TM310/TM311: Dataset subclasses and DataLoader → GeneratorDataset(...).batch(...)."""

from __future__ import annotations

import pytest
from torch2ms.migrator.convert import convert_source

PAIRS = (
    "import numpy as np\nfrom torch.utils.data import DataLoader, Dataset\n\nclass Pairs(Dataset):\n"
    "    def __len__(self):\n        return 4\n\n    def __getitem__(self, i):\n        return np.float32(i), i\n\n"
)
PAIRS_OUT = (
    "import numpy as np\nimport mindspore.dataset as ds\n\nclass Pairs:\n"
    "    def __len__(self):\n        return 4\n\n    def __getitem__(self, i):\n        return np.float32(i), i\n\n"
)


def convert(source: str):
    result = convert_source(source, "case.py")
    assert convert_source(result.code, "case.py").code == result.code
    compile(result.code, "case.py", "exec")
    return result


@pytest.mark.parametrize(
    ("loader", "expected"),
    [
        pytest.param(
            "DataLoader(Pairs())",
            'ds.GeneratorDataset(Pairs(), column_names=["data", "label"], shuffle=False).batch(1)',
            id="defaults",
        ),
        pytest.param(
            "DataLoader(train_set, 2, False, drop_last=True, pin_memory=True, timeout=5)",
            'ds.GeneratorDataset(train_set, column_names=["data", "label"], shuffle=False).batch(2, drop_remainder=True)',
            id="positional-and-dropped",
        ),
        pytest.param(
            "DataLoader(train_set, batch_size=2, num_workers=0, persistent_workers=False, prefetch_factor=None)",
            'ds.GeneratorDataset(train_set, column_names=["data", "label"], shuffle=False).batch(2)',
            id="no-workers",
        ),
        pytest.param(
            "DataLoader(train_set, batch_size=2, num_workers=4, sampler=None)",
            'ds.GeneratorDataset(train_set, column_names=["data", "label"], shuffle=False, num_parallel_workers=4).batch(2)',
            id="workers",
        ),
    ],
)
def test_loader(loader: str, expected: str) -> None:
    result = convert(PAIRS + f"train_set = Pairs()\nloader = {loader}\n")
    assert result.code == PAIRS_OUT + f"train_set = Pairs()\nloader = {expected}\n"
    assert not result.findings


def test_shuffle_noted() -> None:
    result = convert(
        PAIRS + "loader = DataLoader(Pairs(), batch_size=2, shuffle=True)\n"
    )
    assert "shuffle=True).batch(2)" in result.code
    assert [f.rule for f in result.findings] == ["TM935"]


def test_three_columns() -> None:
    code = convert(
        "import torch.utils.data as tud\n\nclass T(tud.Dataset):\n    def __len__(self):\n        return 3\n\n"
        "    def __getitem__(self, i):\n        return i, i, i\n\nloader = tud.DataLoader(T(), batch_size=2)\n"
    ).code
    assert 'column_names=["column_0", "column_1", "column_2"]' in code


def test_other_bases_kept() -> None:
    code = convert(
        "from torch.utils.data import Dataset\n\nclass Mixin:\n    pass\n\nclass D(Mixin, Dataset):\n    pass\n"
    ).code
    assert "class D(Mixin):" in code


@pytest.mark.parametrize(
    "loader",
    [
        pytest.param(
            "DataLoader(Pairs(), batch_size=2, sampler=object())", id="sampler"
        ),
        pytest.param(
            "DataLoader(Pairs(), batch_size=2, collate_fn=lambda b: b)", id="collate_fn"
        ),
        pytest.param("DataLoader(Pairs(), batch_size=None)", id="unbatched"),
        pytest.param("DataLoader(other, batch_size=2)", id="unknown-dataset"),
        pytest.param("DataLoader(*args)", id="star-args"),
        pytest.param("DataLoader(train_set, **train_kwargs)", id="keyword-dict"),
    ],
)
def test_companion_where_the_idiom_is_refused(loader: str) -> None:
    """The GeneratorDataset idiom needs visible arguments and known columns; every other form
    becomes the companion DataLoader with the call's own arguments, and no finding."""
    result = convert(PAIRS + f"loader = {loader}\n")
    expected = loader.replace("DataLoader(", "ms_aux.DataLoader(", 1)
    assert f"loader = {expected}\n" in result.code
    assert "import ms_aux\n" in result.code
    assert not [f for f in result.findings if f.rule == "TM936"]
    assert "DataLoader" in result.companion


def test_a_generator_the_companion_refuses_is_reported() -> None:
    result = convert(
        PAIRS + "loader = DataLoader(Pairs(), batch_size=2, generator=g)\n"
    )
    assert "ms_aux.DataLoader(Pairs(), batch_size=2, generator=g)" in result.code
    assert [
        (f.rule, f.severity) for f in result.findings if "`generator=`" in f.message
    ] == [("TM936", "error")]


@pytest.mark.parametrize("workers", ["num_workers=2", "num_workers=n"])
def test_a_worker_hook_with_workers_runs_once_and_is_noted(workers: str) -> None:
    """The companion loads in this process as one worker and calls the hook for it: the call
    converts, with a note that says so (no error: the file no longer needs torch for it)."""
    source = (
        PAIRS
        + f"loader = DataLoader(Pairs(), batch_size=2, {workers}, worker_init_fn=seed)\n"
    )
    result = convert(source)
    assert (
        f"loader = ms_aux.DataLoader(Pairs(), batch_size=2, {workers}, worker_init_fn=seed)\n"
        in result.code
    )
    assert "import torch" not in result.code
    noted = [f for f in result.findings if f.rule == "TM936"]
    assert [f.severity for f in noted] == ["note"]
    assert "worker 0 of 1" in noted[0].message


def test_a_worker_hook_without_workers_is_never_called() -> None:
    result = convert(
        PAIRS + "loader = DataLoader(Pairs(), batch_size=2, worker_init_fn=print)\n"
    )
    assert (
        "ms_aux.DataLoader(Pairs(), batch_size=2, worker_init_fn=print)" in result.code
    )
    assert not [f for f in result.findings if f.rule == "TM936"]


def test_single_value_items_use_the_companion() -> None:
    result = convert(
        "import torch\nfrom torch.utils.data import DataLoader, Dataset\n\nclass One(Dataset):\n    def __len__(self):\n"
        "        return 2\n\n    def __getitem__(self, i):\n        return torch.ones(2) * i\n\nloader = DataLoader(One(), batch_size=2)\n"
    )
    assert "loader = ms_aux.DataLoader(One(), batch_size=2)" in result.code


def test_annotation_names_the_companion() -> None:
    result = convert(
        "import torch\nfrom torch.utils.data import Sampler\n\n"
        "def run(loader: torch.utils.data.DataLoader, sampler: Sampler) -> None:\n    pass\n"
    )
    assert (
        "def run(loader: ms_aux.DataLoader, sampler: ms_aux.Sampler) -> None:"
        in result.code
    )
    assert "import torch" not in result.code


@pytest.mark.parametrize(
    ("arguments", "pipeline"),
    [
        ("batch_size=64", "data.batch(64)"),
        (
            "batch_size=8, shuffle=True, num_workers=2",
            "data.shuffle(len(data)).batch(8)",
        ),
        (
            "batch_size=8, drop_last=True, pin_memory=True",
            "data.batch(8, drop_remainder=True)",
        ),
    ],
)
def test_loader_over_a_converted_torchvision_dataset(
    arguments: str, pipeline: str
) -> None:
    result = convert(
        "import torch\nfrom torchvision import datasets\n\n"
        "data = datasets.CIFAR10('x', train=False)\n"
        f"loader = torch.utils.data.DataLoader(data, {arguments})\n"
    )
    assert f"loader = {pipeline}\n" in result.code
    assert "data = ms_aux.CIFAR10('x', train=False)" in result.code


@pytest.mark.parametrize(
    "module",
    [
        "data = datasets.CIFAR10('x')\ndata = make()\nloader = DataLoader(data, batch_size=8)\n",
        "data = datasets.FakeData()\nloader = DataLoader(data, batch_size=8)\n",
        "data = datasets.MNIST('x')\nloader = DataLoader(data, batch_size=8, shuffle=flag)\n",
    ],
    ids=["rebound", "python-dataset", "shuffle-variable"],
)
def test_loader_over_anything_else_is_the_companion(module: str) -> None:
    result = convert(
        "from torch.utils.data import DataLoader\nfrom torchvision import datasets\n\n"
        + module
    )
    assert "loader = ms_aux.DataLoader(data, batch_size=8" in result.code
