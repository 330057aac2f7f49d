"""torchvision.utils.make_grid / save_image and torchvision.ops.misc.FrozenBatchNorm2d, converted
and run on real MindSpore against real torchvision."""

from __future__ import annotations

import numpy as np
import pytest
from data_support import (
    as_array,
    convert_and_run,
    frameworks,
    load_companion,
    run_original,
)

pytestmark = pytest.mark.real


@pytest.fixture(scope="module")
def aux(tmp_path_factory):
    frameworks()
    return load_companion(str(tmp_path_factory.mktemp("companion")))


GRIDS = [
    "grid = vutils.make_grid(x)",
    "grid = vutils.make_grid(x, nrow=3, padding=1, pad_value=0.5)",
    "grid = vutils.make_grid(x, normalize=True)",
    "grid = vutils.make_grid(x, normalize=True, scale_each=True, nrow=2)",
    "grid = vutils.make_grid(x, normalize=True, value_range=(-1, 1), padding=0)",
    "grid = vutils.make_grid(x[:1])",
    "grid = vutils.make_grid(x[0])",
    "grid = vutils.make_grid(x[0, 0])",
    "grid = vutils.make_grid([x[0], x[1], x[2]], nrow=2)",
]


@pytest.mark.parametrize("statement", GRIDS)
@pytest.mark.parametrize("channels", [1, 3])
def test_make_grid(statement: str, channels: int, aux) -> None:
    torch, _, ms = frameworks()
    values = np.random.default_rng(channels).standard_normal((5, channels, 4, 6))
    values = values.astype(np.float32)
    source = f"import torchvision.utils as vutils\n{statement}\n"
    original = run_original(source, {"x": torch.from_numpy(values.copy())})
    converted, code = convert_and_run(source, {"x": ms.Tensor(values.copy())})
    assert "ms_aux.make_grid(" in code
    expected, actual = as_array(original["grid"]), as_array(converted["grid"])
    assert expected.shape == actual.shape
    np.testing.assert_allclose(actual, expected, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize(
    "arguments", ["", ", normalize=True", ", nrow=2, padding=3, normalize=True"]
)
def test_save_image_writes_torchvisions_pixels(arguments: str, tmp_path, aux) -> None:
    torch, _, ms = frameworks()
    from PIL import Image

    values = np.random.default_rng(3).random((4, 3, 5, 7)).astype(np.float32) * 1.2
    source = (
        f"from torchvision.utils import save_image\nsave_image(x, path{arguments})\n"
    )
    torch_path, ms_path = tmp_path / "torch.png", tmp_path / "ms.png"
    run_original(source, {"x": torch.from_numpy(values), "path": str(torch_path)})
    _, code = convert_and_run(source, {"x": ms.Tensor(values), "path": str(ms_path)})
    assert "ms_aux.save_image(x, path" in code
    expected = np.asarray(Image.open(torch_path))
    actual = np.asarray(Image.open(ms_path))
    np.testing.assert_array_equal(actual, expected)


def test_frozen_batch_norm(aux) -> None:
    """Forward with stored statistics, the input gradient, non-trainable parameters named as
    MindSpore's BatchNorm names them, and a `torch2ms weights` mapping that loads every one."""
    torch, _, ms = frameworks()
    from torch2ms.migrator.weights import convert_state
    from torchvision.ops.misc import FrozenBatchNorm2d

    rng = np.random.default_rng(0)
    frozen = FrozenBatchNorm2d(4, eps=1e-3)
    state = {
        "weight": rng.standard_normal(4),
        "bias": rng.standard_normal(4),
        "running_mean": rng.standard_normal(4),
        "running_var": rng.random(4) + 0.5,
    }
    frozen.load_state_dict(
        {k: torch.tensor(v, dtype=torch.float32) for k, v in state.items()}
    )

    class Holder(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.bn = aux.FrozenBatchNorm2d(4, eps=1e-3)

    holder = Holder()
    layer = holder.bn
    assert not holder.trainable_params()
    names = sorted(holder.parameters_dict())
    assert names == ["bn.beta", "bn.gamma", "bn.moving_mean", "bn.moving_variance"]
    torch_state = {k: v.numpy() for k, v in frozen.state_dict().items()}
    entries = convert_state({f"bn.{k}": v for k, v in torch_state.items()}).entries
    loaded = {e.name: e.array.astype(np.float32) for e in entries}
    assert sorted(loaded) == names
    unloaded = ms.load_param_into_net(
        holder, {k: ms.Parameter(ms.Tensor(v), name=k) for k, v in loaded.items()}
    )
    assert not unloaded[0]
    layer.set_train(True)  # frozen in both modes
    x = rng.standard_normal((2, 4, 3, 5)).astype(np.float32)
    tx = torch.tensor(x, requires_grad=True)
    expected = frozen(tx)
    (expected * expected).sum().backward()
    actual = layer(ms.Tensor(x))
    np.testing.assert_allclose(
        actual.asnumpy(), expected.detach().numpy(), rtol=1e-5, atol=1e-5
    )
    grad = ms.grad(lambda t: (layer(t) * layer(t)).sum())(ms.Tensor(x))
    np.testing.assert_allclose(grad.asnumpy(), tx.grad.numpy(), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(
        layer.moving_mean.asnumpy(), state["running_mean"], rtol=1e-6
    )


def test_frozen_batch_norm_as_a_value_converts(aux) -> None:
    source = (
        "from torchvision.ops.misc import FrozenBatchNorm2d\n\n"
        "def norm(layer=None):\n    return layer or FrozenBatchNorm2d\n"
        "layer = norm()(3)\n"
    )
    converted, code = convert_and_run(source)
    assert "ms_aux.FrozenBatchNorm2d" in code
    assert isinstance(converted["layer"], converted["ms_aux"].FrozenBatchNorm2d)
