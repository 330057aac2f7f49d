"""The whole path on real timm code: convert timm, convert a checkpoint, run the model on MindSpore
with torch and torchvision unimportable, and compare the logits with torch's.

Two small models of the panel in ``benchmarks/timm_models.py`` run here; the benchmark runs all ten
and measures speed against mindcv.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys

import pytest
from conftest import require_module

pytestmark = [pytest.mark.real, pytest.mark.slow]

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODELS = ("resnet18", "vit_tiny_patch16_224")
IMPORT_TIMM = (
    "import sys; sys.modules['torch'] = None; sys.modules['torchvision'] = None; "
    "sys.path.insert(0, sys.argv[1]); import timm; print(len(timm.list_models()))"
)


def _benchmark():
    path = os.path.join(ROOT, "benchmarks", "timm_models.py")
    spec = importlib.util.spec_from_file_location("timm_models", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["timm_models"] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def converted_timm(tmp_path_factory):
    require_module("torch")
    require_module("mindspore")
    timm = require_module("timm")
    bench = _benchmark()
    assert timm.__version__ == bench.TIMM_VERSION
    source = os.path.dirname(os.path.dirname(timm.__file__))
    work = str(tmp_path_factory.mktemp("timm"))
    converted, summary = bench.convert_timm(source, work)
    return bench, source, converted, summary, work


def test_converted_timm_imports_without_torch(converted_timm) -> None:
    _, _, converted, summary, _ = converted_timm
    done = subprocess.run(
        [sys.executable, "-c", IMPORT_TIMM, converted],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert int(done.stdout.split()[-1]) > 1000  # models registered
    # Files of timm/models and timm/layers import torch only inside functions that still use it.
    for path in summary["files_need_torch_list"]:
        if "/timm/models/" in path or "/timm/layers/" in path:
            relative = path.split("/timm/", 1)[1]
            with open(
                os.path.join(converted, "timm", relative), encoding="utf-8"
            ) as handle:
                assert "\nimport torch\n" not in handle.read(), relative


@pytest.mark.parametrize("name", MODELS)
def test_converted_model_gives_torchs_logits(converted_timm, name: str) -> None:
    bench, source, converted, _, work = converted_timm
    record = bench.compare(name, source, converted, work, repeat=1, mindcv=False)
    assert "error" not in record, record.get("error")
    assert record["unloaded"] == [] and record["unused"] == []
    assert record["match"], f"max diff {record['max_diff']:.3e}"


# Steps timm's optimizers on a timm layer with fixed gradients: torch's timm on one side, the
# converted timm with torch unimportable on the other (`optimizer(grads)`, as converted steps call it).
OPTIMIZERS = ("lion", "adamw", "lamb")
OPTIMIZER_STEPS = """
import sys
import numpy as np
side, tree, folder = sys.argv[1:4]
if side == "mindspore":
    sys.modules["torch"] = None
    sys.modules["torchvision"] = None
sys.path.insert(0, tree)
import timm.optim
from timm.layers import Mlp
if side == "torch":
    import torch
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    data = {"w_" + n: p.detach().numpy() for n, p in Mlp(4, 8, 3).named_parameters()}
    for step in range(3):
        for n, a in list(data.items()):
            if n.startswith("w_"):
                data[f"g{step}_" + n[2:]] = rng.standard_normal(a.shape).astype(np.float32)
    np.savez(folder + "/data.npz", **data)
data = np.load(folder + "/data.npz")
for name in ("lion", "adamw", "lamb"):
    model = Mlp(4, 8, 3)
    if side == "torch":
        params = dict(model.named_parameters())
        with torch.no_grad():
            for n, p in params.items():
                p.copy_(torch.tensor(data["w_" + n]))
    else:
        import mindspore
        params = {p.name: p for p in model.trainable_params()}
        for n, p in params.items():
            mindspore.ops.assign(p, mindspore.Tensor(data["w_" + n]))
    optimizer = timm.optim.create_optimizer_v2(model, name, lr=0.01, weight_decay=0.05)
    for step in range(3):
        if side == "torch":
            for n, p in params.items():
                p.grad = torch.tensor(data[f"g{step}_" + n])
            optimizer.step()
        else:
            by_param = {id(p): n for n, p in params.items()}
            optimizer(tuple(mindspore.Tensor(data[f"g{step}_" + by_param[id(p)]]) for p in optimizer.parameters))
    values = {n: (p.detach().numpy() if side == "torch" else p.asnumpy()) for n, p in params.items()}
    np.savez(f"{folder}/{side}_{name}.npz", **values)
    print(name, type(optimizer).__name__)
"""


def test_timm_optimizers_step_as_on_torch(converted_timm, tmp_path) -> None:
    import numpy as np

    _, source, converted, summary, _ = converted_timm
    optim_files = [p for p in summary["files_need_torch_list"] if "/timm/optim/" in p]
    assert len(optim_files) <= 11, optim_files  # 27 before the companion optimizer API
    printed = {}
    for side, tree in (("torch", source), ("mindspore", converted)):
        done = subprocess.run(
            [sys.executable, "-c", OPTIMIZER_STEPS, side, tree, str(tmp_path)],
            capture_output=True,
            text=True,
            check=False,
            timeout=600,
        )
        assert done.returncode == 0, done.stderr[-3000:]
        printed[side] = done.stdout.split()
    assert (
        printed["torch"]
        == printed["mindspore"]
        == ["lion", "Lion", "adamw", "AdamW", "lamb", "Lamb"]
    )
    start = np.load(tmp_path / "data.npz")
    for name in OPTIMIZERS:
        want = np.load(tmp_path / f"torch_{name}.npz")
        got = np.load(tmp_path / f"mindspore_{name}.npz")
        assert sorted(got.files) == sorted(want.files)
        for key in want.files:
            assert not np.allclose(want[key], start["w_" + key])  # the steps moved it
            np.testing.assert_allclose(
                got[key], want[key], rtol=1e-5, atol=1e-6, err_msg=f"{name} {key}"
            )


# timm's data path on a folder of images: ImageDataset, the eval transform resolved from the model,
# create_loader without the CUDA prefetcher. torch's timm on one side, the converted timm with torch
# and torchvision unimportable on the other.
DATA_PIPELINE = """
import os, sys
import numpy as np
from PIL import Image
side, tree, folder = sys.argv[1:4]
if side == "mindspore":
    sys.modules["torch"] = None
    sys.modules["torchvision"] = None
sys.path.insert(0, tree)
import timm
from timm.data import ImageDataset, create_loader, resolve_data_config
root = os.path.join(folder, "images")
if side == "torch":
    rng = np.random.default_rng(0)
    for label in ("cat", "dog"):
        os.makedirs(os.path.join(root, label))
        for i in range(3):
            pixels = rng.uniform(0, 255, (260 + 10 * i, 300, 3)).astype(np.uint8)
            Image.fromarray(pixels).save(os.path.join(root, label, f"{i}.png"))
model = timm.create_model("resnet18", pretrained=False)
config = resolve_data_config({}, model=model)
loader = create_loader(
    ImageDataset(root), input_size=config["input_size"], batch_size=4, is_training=False,
    use_prefetcher=False, num_workers=0, interpolation=config["interpolation"],
    mean=config["mean"], std=config["std"], crop_pct=config["crop_pct"],
)
images, labels = [], []
for x, y in loader:
    images.append(x.numpy() if side == "torch" else x.asnumpy())
    labels.append(np.asarray(y.numpy() if side == "torch" else y.asnumpy()))
np.savez(os.path.join(folder, side + ".npz"), images=np.concatenate(images), labels=np.concatenate(labels))
print(len(loader), len(loader.dataset))
"""


def test_timm_data_pipeline_gives_torchs_batches(converted_timm, tmp_path) -> None:
    import numpy as np

    _, source, converted, _, _ = converted_timm
    printed = {}
    for side, tree in (("torch", source), ("mindspore", converted)):
        done = subprocess.run(
            [sys.executable, "-c", DATA_PIPELINE, side, tree, str(tmp_path)],
            capture_output=True,
            text=True,
            check=False,
            timeout=600,
        )
        assert done.returncode == 0, done.stderr[-3000:]
        printed[side] = done.stdout.split()
    assert printed["torch"] == printed["mindspore"] == ["2", "6"]
    want = np.load(tmp_path / "torch.npz")
    got = np.load(tmp_path / "mindspore.npz")
    assert got["images"].shape == want["images"].shape == (6, 3, 224, 224)
    np.testing.assert_array_equal(got["labels"], want["labels"])
    np.testing.assert_allclose(got["images"], want["images"], rtol=1e-5, atol=1e-5)


# timm's training loader as `create_loader` builds it by default: two worker processes seeded by
# timm's worker hook, shuffled batches, and the prefetcher that normalises uint8 batches
# (`x.to(dtype).sub_(mean).div_(std)`). The converted side loads in one in-process worker.
TRAIN_PIPELINE = """
import os, sys
import numpy as np
from PIL import Image
side, tree, folder = sys.argv[1:4]
if side == "mindspore":
    sys.modules["torch"] = None
    sys.modules["torchvision"] = None
sys.path.insert(0, tree)
import timm
from timm.data import ImageDataset, create_loader
root = os.path.join(folder, "train")
if side == "torch":
    import torch
    rng = np.random.default_rng(1)
    for label in ("cat", "dog"):
        os.makedirs(os.path.join(root, label))
        for i in range(4):
            pixels = rng.uniform(0, 255, (40 + 4 * i, 48, 3)).astype(np.uint8)
            Image.fromarray(pixels).save(os.path.join(root, label, f"{i}.png"))
    placement = {"device": torch.device("cpu")}
else:
    placement = {}  # the default device ('cuda') names no MindSpore placement
loader = create_loader(
    ImageDataset(root), input_size=(3, 32, 32), batch_size=4, is_training=True, no_aug=True,
    num_workers=2, **placement,
)
images, labels = [], []
for x, y in loader:
    images.append(x.numpy() if side == "torch" else x.asnumpy())
    labels.append(np.asarray(y.numpy() if side == "torch" else y.asnumpy()))
np.savez(os.path.join(folder, side + "_train.npz"), images=np.concatenate(images), labels=np.concatenate(labels))
inner = loader.loader
print(type(loader).__name__, len(loader), len(loader.dataset), inner.num_workers, inner.worker_init_fn is not None)
"""


def test_timm_training_loader_with_workers_gives_torchs_samples(
    converted_timm, tmp_path
) -> None:
    """The shuffled order comes from each framework's generator, so the samples are compared
    as a set (sorted), with the batch shapes, dtypes and counts."""
    import numpy as np

    _, source, converted, _, _ = converted_timm
    printed = {}
    for side, tree in (("torch", source), ("mindspore", converted)):
        done = subprocess.run(
            [sys.executable, "-c", TRAIN_PIPELINE, side, tree, str(tmp_path)],
            capture_output=True,
            text=True,
            check=False,
            timeout=600,
        )
        assert done.returncode == 0, done.stderr[-3000:]
        printed[side] = done.stdout.split()
    assert (
        printed["torch"]
        == printed["mindspore"]
        == ["PrefetchLoader", "2", "8", "2", "True"]
    )
    sorted_samples = {}
    for side in ("torch", "mindspore"):
        data = np.load(tmp_path / f"{side}_train.npz")
        images, labels = data["images"], data["labels"]
        assert images.shape == (8, 3, 32, 32) and images.dtype == np.float32
        order = np.lexsort((images.reshape(8, -1).sum(axis=1), labels))
        sorted_samples[side] = images[order], labels[order]
    np.testing.assert_array_equal(
        sorted_samples["mindspore"][1], sorted_samples["torch"][1]
    )
    np.testing.assert_allclose(
        sorted_samples["mindspore"][0], sorted_samples["torch"][0], rtol=1e-5, atol=1e-5
    )


# NaFlex mixup and patch random erasing, on torch's timm and on the converted timm with torch
# unimportable. Their randomness is fixed where the two can share it: the one Beta draw of mixup is
# fixed on both sides, and Python's `random` (which picks pairs, cut boxes and erased regions) is
# seeded alike; what torch's or MindSpore's generator draws (noise, randperm) is compared by what
# does not depend on it.
NAFLEX = """
import os, random, sys
import numpy as np
side, tree, folder = sys.argv[1:4]
if side == "mindspore":
    sys.modules["torch"] = None
    sys.modules["torchvision"] = None
sys.path.insert(0, tree)
import timm.data.naflex_mixup as naflex_mixup
from timm.data.naflex_random_erasing import PatchRandomErasing
if side == "torch":
    import torch
    tensor, array = torch.tensor, lambda t: t.numpy()

    class FixedBeta:  # the one draw mixup makes, fixed: both sides then compute alike
        def __init__(self, a, b):
            pass

        def sample(self):
            return torch.tensor(0.3)

    naflex_mixup.torch.distributions.Beta = FixedBeta
else:
    import mindspore
    tensor, array = mindspore.Tensor, lambda t: t.asnumpy()

    class FixedBeta:
        def __init__(self, a, b):
            pass

        def sample(self):
            return mindspore.Tensor(np.float32(0.3))

    naflex_mixup.ms_aux.Beta = FixedBeta
rng = np.random.default_rng(0)
shapes = [(3, 8, 10), (3, 10, 8), (3, 12, 12), (3, 6, 14), (3, 9, 9)]
images = [rng.uniform(0, 1, s).astype(np.float32) for s in shapes]
labels = np.array([0, 3, 1, 4, 2])
out = {}
for mode, alphas in (("mixup", (1.0, 0.0)), ("cutmix", (0.0, 1.0))):
    random.seed(0)
    mixed, lams, pairs = naflex_mixup.mix_batch_variable_size(
        [tensor(a) for a in images], mixup_alpha=alphas[0], cutmix_alpha=alphas[1], local_shuffle=4)
    for i, m in enumerate(mixed):
        out[f"{mode}_img{i}"] = array(m)
    out[f"{mode}_lams"] = np.array(lams)
    out[f"{mode}_pairs"] = np.array(sorted(pairs.items()))
    out[f"{mode}_targets"] = array(naflex_mixup.pairwise_mixup_target(
        tensor(labels), pairs, lams, num_classes=5, smoothing=0.1))
patches = rng.standard_normal((2, 12, 4, 3)).astype(np.float32)
coord = np.array([[(y, x) for y in range(3) for x in range(4)]] * 2, np.int64)
valid = np.ones((2, 12), bool)
valid[1, 9:] = False
for spatial in ("region", "patch"):
    for mode, value in (("const", [0.25, 0.5, 0.75]), ("const", 0.0), ("pixel", 0.0)):
        random.seed(1)
        erasing = PatchRandomErasing(erase_prob=1.0, mode=mode, value=value, spatial_mode=spatial,
                                     max_count=2, min_area=0.15, max_area=0.5, device="cpu")
        result = erasing(tensor(patches.copy()), tensor(coord), tensor(valid))
        out[f"erase_{spatial}_{mode}_{np.ndim(value)}"] = array(result)
np.savez(os.path.join(folder, side + "_naflex.npz"), **out)
print(len(out))
"""


def test_timm_naflex_mixup_and_random_erasing_as_on_torch(
    converted_timm, tmp_path
) -> None:
    import numpy as np

    _, source, converted, _, _ = converted_timm
    for side, tree in (("torch", source), ("mindspore", converted)):
        done = subprocess.run(
            [sys.executable, "-c", NAFLEX, side, tree, str(tmp_path)],
            capture_output=True,
            text=True,
            check=False,
            timeout=600,
        )
        assert done.returncode == 0, done.stderr[-3000:]
    want = np.load(tmp_path / "torch_naflex.npz")
    got = np.load(tmp_path / "mindspore_naflex.npz")
    assert sorted(got.files) == sorted(want.files)
    rng = np.random.default_rng(0)
    images = [
        rng.uniform(0, 1, s).astype(np.float32)
        for s in [(3, 8, 10), (3, 10, 8), (3, 12, 12), (3, 6, 14), (3, 9, 9)]
    ]
    patches = rng.standard_normal((2, 12, 4, 3)).astype(np.float32)
    valid = np.ones((2, 12), bool)
    valid[1, 9:] = False
    for key in want.files:
        a, b = got[key], want[key]
        assert a.shape == b.shape and a.dtype == b.dtype, key
        if key.startswith(("mixup", "cutmix", "erase_region_const")):
            np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-6, err_msg=key)
    for mode in ("mixup", "cutmix"):
        assert any((want[f"{mode}_img{i}"] != images[i]).any() for i in range(5))
    for key in [k for k in want.files if k.startswith("erase")]:
        changed = {
            side: (data[key] != patches).any(axis=(2, 3))
            for side, data in (("torch", want), ("ms", got))
        }
        assert changed["torch"].any(axis=1).all(), (
            key
        )  # every sample had patches erased
        assert not (changed["ms"] & ~valid).any(), key  # never an invalid patch
        counts = [changed[side].sum(axis=1).tolist() for side in ("torch", "ms")]
        assert counts[0] == counts[1], key
        if "region" in key:  # the region comes from Python's random alone
            np.testing.assert_array_equal(changed["ms"], changed["torch"], err_msg=key)
        if "const" in key:  # the erased patches hold the value given
            fill = (
                np.array([0.25, 0.5, 0.75], np.float32) if key.endswith("_1") else 0.0
            )
            erased = got[key][changed["ms"]]
            np.testing.assert_array_equal(erased, np.broadcast_to(fill, erased.shape))


def test_compare_model_agrees_on_resnet18(converted_timm) -> None:
    """`torch2ms compare-model` on timm's resnet18: every submodule of the conversion, hooked on
    MindSpore (torch blocked), gives torch's output from torch's weights."""
    import json

    from click.testing import CliRunner
    from torch2ms.cli.main import main

    _, source, converted, _, _ = converted_timm
    result = CliRunner().invoke(
        main,
        ["compare-model", "--original", source, "--converted", converted,
         "--model", "timm:create_model('resnet18')", "--input", "1x3x224x224", "--json"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output[-3000:]
    report = json.loads(result.output)
    assert report["status"] == "agree" and report["first_departure"] is None
    assert report["weights"]["problems"] == []
    statuses = {m["name"]: m["status"] for m in report["modules"]}
    assert len(statuses) > 60 and set(statuses.values()) == {"ok"}
    assert statuses["layer4.1.bn2"] == "ok"
