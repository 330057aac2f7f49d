"""Code written for torch that subclasses the companion layer classes, on the real frameworks.

timm's `BatchNormAct2d` derives from `nn.BatchNorm2d` and reads torch's attribute names in its
forward (`self.weight`, `self.running_mean`, `self.momentum`, `self.num_batches_tracked`, ...).
The MindSpore classes below are written the way the converter writes such code, and are compared
with timm's own class and with torch's layers.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys

import numpy as np
import pytest
from torch2ms.rules.api import BY_TORCH_NAME
from torch2ms.rules.companion import assemble
from torch2ms.rules.companion.table_layers import ENTRIES

RTOL, ATOL = 1e-5, 1e-5


@pytest.fixture(scope="module")
def aux(fw, tmp_path_factory):
    path = tmp_path_factory.mktemp("companion") / "ms_aux_subclass.py"
    path.write_text(assemble(sorted(set(ENTRIES.values()))), encoding="utf-8")
    spec = importlib.util.spec_from_file_location("ms_aux_subclass", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["ms_aux_subclass"] = module
    spec.loader.exec_module(module)
    return module


def batch_norm_act(aux, ms):
    """timm's BatchNormAct2d as the converter writes it (forward -> construct, F.batch_norm ->
    ops.batch_norm, `num_batches_tracked.add_(1)` -> ops.assign)."""
    ops = ms.ops

    class BatchNormAct2d(aux.BatchNorm2d):
        def __init__(
            self,
            num_features,
            eps=1e-5,
            momentum=0.1,
            affine=True,
            track_running_stats=True,
            apply_act=True,
            device=None,
            dtype=None,
        ):
            factory_kwargs = {"device": device, "dtype": dtype}
            super().__init__(
                num_features,
                eps=eps,
                momentum=momentum,
                affine=affine,
                track_running_stats=track_running_stats,
                **factory_kwargs,
            )
            self.act = aux.ReLU(inplace=True) if apply_act else aux.Identity()

        def construct(self, x):
            if self.momentum is None:
                exponential_average_factor = 0.0
            else:
                exponential_average_factor = self.momentum
            if self.training and self.track_running_stats:  # noqa: SIM102 (timm's code)
                if self.num_batches_tracked is not None:
                    ops.assign(
                        self.num_batches_tracked, self.num_batches_tracked.add(1)
                    )
                    if self.momentum is None:
                        exponential_average_factor = 1.0 / float(
                            self.num_batches_tracked
                        )
                    else:
                        exponential_average_factor = self.momentum
            if self.training:
                bn_training = True
            else:
                bn_training = (self.running_mean is None) and (self.running_var is None)
            x = ops.batch_norm(
                x,
                self.running_mean
                if not self.training or self.track_running_stats
                else None,
                self.running_var
                if not self.training or self.track_running_stats
                else None,
                self.weight,
                self.bias,
                bn_training,
                exponential_average_factor,
                self.eps,
            )
            return self.act(x)

    return BatchNormAct2d


def _copy(torch_layer, ms_layer, ms) -> None:
    names = {
        "weight": "gamma",
        "bias": "beta",
        "running_mean": "moving_mean",
        "running_var": "moving_variance",
    }
    params = dict(ms_layer.parameters_and_names())
    for key, value in torch_layer.state_dict().items():
        if key != "num_batches_tracked":
            params[names[key]].set_data(ms.Tensor(value.numpy()))


def _steps(torch, ms, torch_layer, ms_layer, rng, steps: int = 2) -> None:
    """Training steps, then evaluation: outputs, gradients and running statistics must agree."""
    params = ms_layer.trainable_params()
    for training in [True] * steps + [False]:
        torch_layer.train(training)
        ms_layer.set_train(training)
        x = rng.standard_normal((3, 4, 5, 5)).astype(np.float32)
        cotangent = rng.standard_normal(x.shape).astype(np.float32)
        xt = torch.tensor(x, requires_grad=True)
        out = torch_layer(xt * 1)
        (out * torch.tensor(cotangent)).sum().backward()

        def forward(inp, cotangent=cotangent):
            y = ms_layer(inp)
            return (y * ms.Tensor(cotangent)).sum(), y

        (_, ms_out), (gx, gp) = ms.value_and_grad(forward, 0, params, has_aux=True)(
            ms.Tensor(x)
        )
        np.testing.assert_allclose(
            ms_out.asnumpy(), out.detach().numpy(), rtol=RTOL, atol=ATOL
        )
        np.testing.assert_allclose(gx.asnumpy(), xt.grad.numpy(), rtol=RTOL, atol=ATOL)
        for param, grad in zip(params, gp):
            torch_param = {"gamma": torch_layer.weight, "beta": torch_layer.bias}[
                param.name.rsplit(".", 1)[-1]
            ]
            np.testing.assert_allclose(
                grad.asnumpy(), torch_param.grad.numpy(), rtol=RTOL, atol=ATOL
            )
            torch_param.grad = None
        np.testing.assert_allclose(
            ms_layer.running_mean.asnumpy(),
            torch_layer.running_mean.numpy(),
            rtol=RTOL,
            atol=ATOL,
        )
        np.testing.assert_allclose(
            ms_layer.running_var.asnumpy(),
            torch_layer.running_var.numpy(),
            rtol=RTOL,
            atol=ATOL,
        )
        assert int(ms_layer.num_batches_tracked) == int(torch_layer.num_batches_tracked)


@pytest.mark.real
@pytest.mark.parametrize("momentum", [0.1, 0.3, None])
def test_batch_norm_act_subclass_matches_timm(momentum, fw, aux) -> None:
    torch, ms = fw
    timm_layers = pytest.importorskip("timm.layers")
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    torch_layer = timm_layers.BatchNormAct2d(4, eps=1e-3, momentum=momentum)
    with torch.no_grad():
        torch_layer.weight.uniform_(0.5, 1.5)
        torch_layer.bias.uniform_(-0.5, 0.5)
    ms_layer = batch_norm_act(aux, ms)(4, eps=1e-3, momentum=momentum)
    assert isinstance(ms_layer, ms.nn.BatchNorm2d)
    _copy(torch_layer, ms_layer, ms)
    _steps(torch, ms, torch_layer, ms_layer, rng)


@pytest.mark.real
def test_subclass_calling_super_construct(fw, aux) -> None:
    """`super().construct(x)` from a subclass runs the companion's computation."""
    torch, ms = fw
    rng = np.random.default_rng(1)

    class TorchNormAct(torch.nn.BatchNorm2d):
        def forward(self, x):
            return torch.relu(super().forward(x)) * self.weight.mean()

    class NormAct(aux.BatchNorm2d):
        def construct(self, x):
            return ms.ops.relu(super().construct(x)) * self.weight.mean()

    torch_layer, ms_layer = TorchNormAct(4, momentum=0.2), NormAct(4, momentum=0.2)
    with torch.no_grad():
        torch_layer.weight.uniform_(0.5, 1.5)
    _copy(torch_layer, ms_layer, ms)
    _steps(torch, ms, torch_layer, ms_layer, rng)


@pytest.mark.real
def test_layer_norm_2d_subclass(fw, aux) -> None:
    """timm's LayerNorm2d shape: a channels-first LayerNorm that permutes around the parent's."""
    torch, ms = fw
    x = np.random.default_rng(2).standard_normal((2, 4, 3, 3)).astype(np.float32)

    class TorchLayerNorm2d(torch.nn.LayerNorm):
        def forward(self, x):
            return super().forward(x.permute(0, 2, 3, 1)).permute(0, 3, 1, 2)

    class LayerNorm2d(aux.LayerNorm):
        def construct(self, x):
            return super().construct(x.permute(0, 2, 3, 1)).permute(0, 3, 1, 2)

    torch_layer, ms_layer = TorchLayerNorm2d(4, eps=1e-6), LayerNorm2d(4, eps=1e-6)
    with torch.no_grad():
        torch_layer.weight.uniform_(0.5, 1.5)
    ms_layer.weight.set_data(ms.Tensor(torch_layer.weight.detach().numpy()))
    np.testing.assert_allclose(
        ms_layer(ms.Tensor(x)).asnumpy(),
        torch_layer(torch.tensor(x)).detach().numpy(),
        rtol=RTOL,
        atol=ATOL,
    )


@pytest.mark.real
def test_torch_names_are_the_mindspore_parameters(fw, aux) -> None:
    _, ms = fw
    bn = aux.BatchNorm2d(3)
    assert bn.weight is bn.gamma and bn.bias is bn.beta
    assert bn.running_mean is bn.moving_mean and bn.running_var is bn.moving_variance
    bn.weight.set_data(
        ms.Tensor(np.full(3, 2.0, np.float32))
    )  # `nn.init.constant_(bn.weight, 2)`
    np.testing.assert_array_equal(bn.gamma.asnumpy(), np.full(3, 2.0, np.float32))
    assert sorted(n for n, _ in bn.parameters_and_names()) == [
        "beta",
        "gamma",
        "moving_mean",
        "moving_variance",
    ]
    assert (
        bn.num_features,
        bn.eps,
        bn.momentum,
        bn.affine,
        bn.track_running_stats,
    ) == (
        3,
        1e-5,
        0.1,
        True,
        True,
    )
    with pytest.raises(AttributeError, match="gamma"):
        bn.weight = ms.Tensor(
            np.ones(3, np.float32)
        )  # torch refuses a plain tensor too
    with pytest.raises(AttributeError, match="embedding_table"):
        aux.Embedding(4, 2).weight = None
    plain = aux.BatchNorm2d(3, affine=False, track_running_stats=False)
    assert plain.weight is None and plain.bias is None and plain.running_mean is None
    assert plain.num_batches_tracked is None
    assert [n for n, _ in plain.parameters_and_names()] == []
    ln = aux.LayerNorm((2, 3), bias=False)
    assert ln.normalized_shape == (2, 3) and ln.bias is None and ln.weight is ln.gamma
    assert [n for n, _ in ln.parameters_and_names()] == ["gamma"]
    conv = aux.Conv2d(4, 8, 3, 2, 1, groups=2, bias=False)
    assert (
        conv.kernel_size,
        conv.stride,
        conv.padding,
        conv.dilation,
        conv.groups,
    ) == (
        (3, 3),
        (2, 2),
        (1, 1),
        (1, 1),
        2,
    )
    assert conv.bias is None and (conv.in_channels, conv.out_channels) == (4, 8)
    fc = aux.Linear(3, 5)
    assert (fc.in_features, fc.out_features) == (3, 5)
    prelu = aux.PReLU(3)
    assert prelu.weight is prelu.w and prelu.weight.shape == (3,)


@pytest.mark.real
def test_assigning_a_parameter_to_torchs_name_ties_the_layers(fw, aux) -> None:
    """`decoder.weight = encoder.weight` (a library tying its embeddings): one parameter serves
    both layers, as in torch, and a checkpoint holds it once."""
    torch, ms = fw

    def pair(nn, cell):
        class Tied(cell):
            def __init__(self):
                super().__init__()
                self.encoder = nn.Embedding(6, 3)
                self.decoder = nn.Embedding(6, 3)
                self.decoder.weight = self.encoder.weight

        return Tied()

    torch.manual_seed(0)
    expected = pair(torch.nn, torch.nn.Module)
    tied = pair(aux, ms.nn.Cell)
    assert tied.decoder.embedding_table is tied.encoder.embedding_table
    assert [n for n, _ in tied.parameters_and_names()] == ["encoder.embedding_table"]
    table = expected.encoder.weight.detach().numpy()
    tied.encoder.weight.set_data(ms.Tensor(table))
    ids = np.array([[0, 5, 2]], np.int64)
    np.testing.assert_array_equal(
        tied.decoder(ms.Tensor(ids)).asnumpy(),
        expected.decoder(torch.tensor(ids)).detach().numpy(),
    )


@pytest.mark.real
@pytest.mark.parametrize(
    ("name", "args", "kwargs", "argument"),
    [
        ("MaxPool2d", (2,), {"return_indices": True}, "return_indices"),
        ("SyncBatchNorm", (4,), {"process_group": object()}, "process_group"),
        ("Embedding", (10, 4), {"max_norm": 1.0}, "max_norm"),
        ("Embedding", (10, 4), {"sparse": True}, "sparse"),
    ],
)
def test_unsupported_arguments_raise(name, args, kwargs, argument, fw, aux) -> None:
    with pytest.raises(NotImplementedError, match=argument):
        getattr(aux, name)(*args, **kwargs)


def _resolve(path: str):
    module, _, name = path.rpartition(".")
    return getattr(importlib.import_module(module), name)


@pytest.mark.real
@pytest.mark.parametrize("torch_name", sorted(ENTRIES))
def test_entry_derives_from_the_idiom_class(torch_name, fw, aux) -> None:
    """`isinstance(m, <the class the API table maps to>)` holds for the companion class."""
    mapping = BY_TORCH_NAME.get(torch_name)
    entry = getattr(aux, ENTRIES[torch_name])
    if mapping is None or not mapping.mindspore:
        _, ms = fw
        assert issubclass(entry, ms.nn.Cell)
        return
    assert issubclass(entry, _resolve(mapping.mindspore))


@pytest.mark.real
def test_num_batches_tracked_counts_training_steps(fw, aux) -> None:
    torch, ms = fw
    x = np.random.default_rng(3).standard_normal((2, 3, 4, 4)).astype(np.float32)
    torch_bn, bn = torch.nn.BatchNorm2d(3), aux.BatchNorm2d(3)
    counter = bn.num_batches_tracked
    for training in (True, True, False, True):
        torch_bn.train(training)
        bn.set_train(training)
        torch_bn(torch.tensor(x))
        bn(ms.Tensor(x))
    assert (
        bn.num_batches_tracked is counter
    )  # one tensor, updated in place, as torch's buffer
    assert int(bn.num_batches_tracked) == int(torch_bn.num_batches_tracked) == 3
    bn.num_batches_tracked = ms.Tensor(7, ms.int64)  # `m.num_batches_tracked = other's`
    bn.set_train(True)
    bn(ms.Tensor(x))
    assert int(bn.num_batches_tracked) == 8


def test_convert_sync_batchnorm_in_one_process(fw, aux) -> None:
    """In one process torch's converted SyncBatchNorm computes BatchNorm's values; the companion
    returns the module, whose values are the same."""
    torch, ms = fw
    x = np.random.default_rng(3).standard_normal((4, 2, 3)).astype(np.float32)
    converted = torch.nn.SyncBatchNorm.convert_sync_batchnorm(torch.nn.BatchNorm1d(2))
    expected = converted(torch.tensor(x)).detach().numpy()
    layer = ms.nn.BatchNorm1d(2)
    layer.set_train()
    same = aux.SyncBatchNorm.convert_sync_batchnorm(module=layer, process_group=None)
    assert same is layer
    np.testing.assert_allclose(
        same(ms.Tensor(x)).asnumpy(), expected, rtol=1e-5, atol=1e-5
    )
    with pytest.raises(NotImplementedError, match="process_group"):
        aux.SyncBatchNorm.convert_sync_batchnorm(layer, object())
