"""The nn conventions, checked on the real frameworks: a torch snippet runs on torch, its conversion on
MindSpore, with the torch model's weights carried over by name (`torch2ms weights`' mapping)."""

from __future__ import annotations

import sys

import numpy as np
import pytest
from conftest import require_module
from torch2ms.migrator.convert import convert_source
from torch2ms.migrator.weights import convert_state, kinds_from_source

pytestmark = pytest.mark.real

HEADER = "import numpy as np\nimport torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n\n"


@pytest.fixture(scope="module")
def frameworks():
    return require_module("torch"), require_module("mindspore")


def _numpy(value):
    if isinstance(value, (list, tuple)):
        return [_numpy(v) for v in value]
    if hasattr(value, "asnumpy"):
        return value.asnumpy()
    if hasattr(value, "detach"):
        return value.detach().numpy()
    return np.asarray(value)


def run_both(frameworks, body: str, rtol: float = 1e-4, atol: float = 1e-5):
    """Run ``build()`` and ``run(model)`` of a torch snippet and of its conversion; compare results."""
    _, mindspore = frameworks
    source = HEADER + body
    result = convert_source(source, "snippet.py")
    assert not [f for f in result.findings if f.severity == "error"], result.findings
    torch_scope: dict = {}
    exec(compile(source, "snippet.py", "exec"), torch_scope)  # noqa: S102 (snippets and their conversions are the test data)
    ms_scope: dict = {}
    exec(compile(result.code, "snippet_ms.py", "exec"), ms_scope)  # noqa: S102 (snippets and their conversions are the test data)
    torch_model = torch_scope["build"]()
    ms_model = ms_scope["build"]()
    state = {k: v.detach().numpy() for k, v in torch_model.state_dict().items()}
    entries = convert_state(state, kinds_from_source(source)).entries
    params = {
        e.name: mindspore.Parameter(mindspore.Tensor(e.array), name=e.name)
        for e in entries
    }
    not_loaded, unused = mindspore.load_param_into_net(ms_model, params)
    assert not_loaded == [] and unused == [], (not_loaded, unused)
    expected = torch_scope["run"](torch_model)
    got = ms_scope["run"](ms_model)
    assert expected.keys() == got.keys()
    for key in expected:
        np.testing.assert_allclose(
            np.asarray(_numpy(got[key]), dtype=np.float64),
            np.asarray(_numpy(expected[key]), dtype=np.float64),
            rtol=rtol,
            atol=atol,
            err_msg=key,
        )
    return result


def test_batchnorm_momentum_and_statistics(frameworks) -> None:
    result = run_both(
        frameworks,
        "class Net(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
        "        self.bn2 = nn.BatchNorm2d(3, momentum=0.3)\n        self.bn1 = nn.BatchNorm1d(4)\n\n"
        "    def forward(self, x, y):\n        return self.bn2(x), self.bn1(y)\n\n"
        "def build():\n    model = Net()\n    return model\n\n"
        "def run(model):\n    rng = np.random.default_rng(0)\n    out = {}\n    for step in range(3):\n"
        "        x = torch.tensor(rng.standard_normal((4, 3, 2, 2)), dtype=torch.float32)\n"
        "        y = torch.tensor(rng.standard_normal((5, 4)) * 3 + 1, dtype=torch.float32)\n"
        "        out[f'train{step}'], out[f'train1d{step}'] = model(x, y)\n"
        "    out['mean'] = model.bn2.running_mean.tolist()\n    out['var'] = model.bn2.running_var.tolist()\n"
        "    out['var1d'] = model.bn1.running_var.tolist()\n    model.eval()\n    out['eval'], out['eval1d'] = model(x, y)\n    return out\n",
    )
    assert "momentum=0.7" in result.code and "moving_variance" in result.code


@pytest.mark.parametrize(
    "arguments",
    [
        "3, 4, 3",
        "3, 4, 3, padding=1",
        "3, 4, 3, 2",
        "3, 4, (3, 1), padding=(1, 0)",
        "4, 4, 3, padding=2, dilation=2, groups=2, bias=False",
    ],
)
def test_conv2d_padding_and_bias(frameworks, arguments: str) -> None:
    channels = 4 if "groups" in arguments else 3
    run_both(
        frameworks,
        f"def build():\n    return nn.Conv2d({arguments})\n\n"
        f"def run(model):\n    x = torch.tensor(np.random.default_rng(0).standard_normal((2, {channels}, 7, 7)), dtype=torch.float32)\n"
        "    return {'y': model(x)}\n",
    )


@pytest.mark.parametrize("bias", ["True", "False"])
def test_linear_is_dense_with_the_same_layout(frameworks, bias: str) -> None:
    run_both(
        frameworks,
        f"def build():\n    return nn.Linear(5, 3, bias={bias})\n\n"
        "def run(model):\n    x = torch.tensor(np.random.default_rng(0).standard_normal((2, 4, 5)), dtype=torch.float32)\n"
        "    return {'y': model(x), 'w': model.weight.tolist()}\n",
    )


def test_layer_norm_epsilon_and_embedding(frameworks) -> None:
    run_both(
        frameworks,
        "class Net(nn.Module):\n    def __init__(self):\n        super().__init__()\n        self.emb = nn.Embedding(7, 6)\n"
        "        self.norm = nn.LayerNorm(6)\n\n    def forward(self, ids):\n        return self.norm(self.emb(ids) * 1e-3)\n\n"
        "def build():\n    return Net()\n\n"
        "def run(model):\n    ids = torch.tensor([[0, 3, 6], [2, 2, 1]], dtype=torch.int64)\n"
        "    return {'y': model(ids), 'row': model.emb.weight[3].tolist(), 'gamma': model.norm.weight.tolist()}\n",
    )


@pytest.mark.parametrize(
    "call",
    [
        "F.cross_entropy(logits, labels)",
        "F.cross_entropy(logits, labels, label_smoothing=0.2)",
        "F.cross_entropy(logits, labels, reduction='sum')",
        "F.cross_entropy(logits, labels, weight=torch.tensor([1.0, 2.0, 0.5, 1.0]))",
        "F.cross_entropy(logits, torch.tensor([0, -100, 3, 1, -100], dtype=torch.int64))",
    ],
)
def test_cross_entropy_arguments(frameworks, call: str) -> None:
    run_both(
        frameworks,
        "def build():\n    return nn.Identity()\n\n"
        "def run(model):\n    rng = np.random.default_rng(0)\n"
        "    logits = model(torch.tensor(rng.standard_normal((5, 4)), dtype=torch.float32))\n"
        "    labels = torch.tensor([0, 1, 3, 1, 2], dtype=torch.int64)\n"
        f"    return {{'loss': {call}}}\n",
    )


def test_parameters_buffers_and_modes(frameworks) -> None:
    result = run_both(
        frameworks,
        "class Net(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
        "        self.scale = nn.Parameter(torch.ones(3) * 2)\n        self.shift = nn.Parameter(torch.ones(3), requires_grad=False)\n"
        "        self.register_buffer('offset', torch.ones(3) * 0.5)\n        self.drop = nn.Dropout(0.5)\n"
        "        self.body = nn.Sequential(nn.Linear(3, 3), nn.Tanh())\n\n"
        "    def forward(self, x):\n        return self.drop(self.body(x) * self.scale + self.shift + self.offset)\n\n"
        "def build():\n    model = Net()\n    return model\n\n"
        "def run(model):\n    model.eval()\n"
        "    x = torch.tensor(np.random.default_rng(0).standard_normal((2, 3)), dtype=torch.float32)\n"
        "    trainable = [p for p in model.parameters() if p.requires_grad]\n"
        "    return {'y': model(x), 'trainable': len(trainable), 'training': float(model.training)}\n",
    )
    assert "requires_grad=False" in result.code and "set_train" in result.code
    assert "TM938" in {f.rule for f in result.findings}


def test_new_cell_trains_like_a_new_module(frameworks) -> None:
    run_both(
        frameworks,
        "def build():\n    model = nn.Sequential(nn.Linear(3, 3), nn.BatchNorm1d(3))\n    return model\n\n"
        "def run(model):\n    x = torch.tensor(np.random.default_rng(0).standard_normal((4, 3)), dtype=torch.float32)\n"
        "    return {'y': model(x), 'mean': model[1].running_mean.tolist()}\n",
    )


def test_buffer_survives_checkpoint(frameworks, tmp_path, monkeypatch) -> None:
    source = (
        HEADER
        + "class Net(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
        "        self.register_buffer('count', torch.zeros(2))\n        self.fc = nn.Linear(2, 2)\n\n"
        f"def roundtrip(path={str(tmp_path / 'net.pt')!r}):\n    net = Net()\n    net.count += 3\n"
        "    torch.save(net.state_dict(), path)\n    other = Net()\n    other.load_state_dict(torch.load(path))\n"
        "    return other.count.tolist(), net.fc.weight.tolist(), other.fc.weight.tolist()\n"
    )
    result = convert_source(source, "snippet.py")
    code = result.code
    # A path not named `.ckpt`: the companion writes that file, with torch's keys.
    assert "ms_aux.save(ms_aux.state_dict(net), path)" in code
    from torch2ms.rules.companion import assemble

    (tmp_path / "ms_aux.py").write_text(assemble(sorted(result.companion)))
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "ms_aux", raising=False)
    scope: dict = {}
    exec(compile(code, "snippet_ms.py", "exec"), scope)  # noqa: S102 (snippets and their conversions are the test data)
    count, weight, restored = scope["roundtrip"]()
    assert count == [3.0, 3.0]
    np.testing.assert_array_equal(weight, restored)


def test_dataloader_batches(frameworks) -> None:
    source = (
        "import numpy as np\nfrom torch.utils.data import DataLoader, Dataset\n\nclass Items(Dataset):\n"
        "    def __init__(self):\n        self.x = np.arange(30, dtype=np.float32).reshape(10, 3)\n\n"
        "    def __len__(self):\n        return 10\n\n    def __getitem__(self, i):\n        return self.x[i], i, float(i) / 2\n\n"
        "def batches(drop):\n    loader = DataLoader(Items(), batch_size=4, shuffle=False, drop_last=drop)\n"
        "    return len(loader), [[(np.asarray(v.numpy() if hasattr(v, 'numpy') else v.asnumpy()), str(v.dtype)) for v in b] for b in loader]\n"
    )
    code = convert_source(source, "snippet.py").code
    assert "GeneratorDataset" in code
    torch_scope: dict = {}
    exec(compile(source, "snippet.py", "exec"), torch_scope)  # noqa: S102 (snippets and their conversions are the test data)
    ms_scope: dict = {}
    exec(compile(code, "snippet_ms.py", "exec"), ms_scope)  # noqa: S102 (snippets and their conversions are the test data)
    for drop in (False, True):
        count, expected = torch_scope["batches"](drop)
        ms_count, got = ms_scope["batches"](drop)
        assert count == ms_count == len(expected) == len(got)
        for batch, ms_batch in zip(expected, got):
            for (array, dtype), (ms_array, ms_dtype) in zip(batch, ms_batch):
                np.testing.assert_array_equal(array, ms_array)
                assert dtype.split(".")[-1].lower() == ms_dtype.lower(), (
                    dtype,
                    ms_dtype,
                )


def test_pool_sizes_given_as_lists(frameworks) -> None:
    # torch takes sizes as lists; MindSpore's pools take ints or tuples, and the stride that
    # defaults to the kernel size gets the same tuple.
    result = run_both(
        frameworks,
        "class Net(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
        "        self.pool = nn.MaxPool3d(kernel_size=[2, 1, 2], ceil_mode=True)\n"
        "        self.avg = nn.AvgPool3d([2, 2, 1], [1, 2, 1])\n"
        "        self.fc = nn.Linear(2, 2)\n\n"
        "    def forward(self, x):\n        return self.pool(x), self.avg(x)\n\n"
        "def build():\n    return Net()\n\n"
        "def run(model):\n    rng = np.random.default_rng(0)\n"
        "    x = torch.tensor(rng.standard_normal((1, 2, 5, 4, 3)), dtype=torch.float32)\n"
        "    pooled, averaged = model(x)\n    return {'max': pooled, 'avg': averaged}\n",
    )
    assert "kernel_size=(2, 1, 2)" in result.code
    assert "stride=(2, 1, 2)" in result.code
