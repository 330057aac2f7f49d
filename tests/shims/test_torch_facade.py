"""The torch facade on its own: tape semantics, modules, optimizers, data, missing APIs."""

from __future__ import annotations

import numpy as np
import pytest
from torch2ms.shims import core as C
from torch2ms.shims import torch


@pytest.mark.parametrize(
    "getter,name",
    [
        (lambda: torch.fft_thing, "torch.fft_thing"),
        (lambda: torch.nn.TransformerEncoder, "torch.nn.TransformerEncoder"),
        (lambda: torch.nn.functional.interpolate, "torch.nn.functional.interpolate"),
        (lambda: torch.optim.RMSprop, "torch.optim.RMSprop"),
        (
            lambda: torch.optim.lr_scheduler.OneCycleLR,
            "torch.optim.lr_scheduler.OneCycleLR",
        ),
        (lambda: torch.ones(2).stft, "torch.Tensor.stft"),
        (lambda: torch.autograd.functional, "torch.autograd.functional"),
        (
            lambda: torch.utils.data.WeightedRandomSampler,
            "torch.utils.data.WeightedRandomSampler",
        ),
    ],
)
def test_missing_api_raises_not_implemented(getter, name):
    with pytest.raises(NotImplementedError, match=f"shims: {name} is not implemented"):
        getter()


def test_inplace_on_leaf_requiring_grad_raises_and_no_grad_allows_it():
    w = torch.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
        w.add_(1)
    with torch.no_grad():
        w.add_(1)
        w[0] = 5.0
        w -= 0.5
    assert w.tolist() == [4.5, 1.5, 1.5]
    assert w.requires_grad and w.is_leaf and w.grad_fn is None


def test_inplace_on_non_leaf_is_recorded():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    y.mul_(x)
    y[0] = 0.0
    y.sum().backward()
    assert x.grad.tolist() == [0.0, 8.0]


def test_grad_mode_managers_as_decorators():
    x = torch.ones(2, requires_grad=True)

    @torch.no_grad()
    def with_parens():
        return x * 2

    @torch.no_grad
    def bare():
        return x * 2

    @torch.enable_grad()
    def enabled():
        return x * 2

    assert not with_parens().requires_grad and not bare().requires_grad
    with torch.no_grad():
        assert enabled().requires_grad
    torch.set_grad_enabled(False)
    assert not torch.is_grad_enabled()
    torch.set_grad_enabled(True)
    with torch.set_grad_enabled(False):
        assert not (x * 2).requires_grad
    with torch.inference_mode():
        assert not (x * 2).requires_grad
    assert torch.is_grad_enabled() and C.is_grad_enabled()


def test_data_detach_and_numpy_share_memory():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    x.data.mul_(3)
    x.detach()[1] = 10.0
    assert x.tolist() == [3.0, 10.0]
    x.data = torch.tensor([7.0, 8.0])
    assert x.tolist() == [7.0, 8.0] and x.requires_grad
    with pytest.raises(RuntimeError, match="Use tensor.detach"):
        x.numpy()
    with pytest.raises(RuntimeError, match="only Tensors of floating point"):
        torch.tensor([1, 2], requires_grad=True)
    with pytest.raises(
        RuntimeError, match="grad can be implicitly created only for scalar outputs"
    ):
        (x * 2).backward()


def test_grad_accumulates_and_optimizer_zero_grad():
    w = torch.nn.Parameter(torch.tensor([1.0, -1.0]))
    opt = torch.optim.SGD([w], lr=0.5)
    for _ in range(2):
        (w * w).sum().backward()
    assert w.grad.tolist() == [4.0, -4.0]
    opt.step()
    assert w.tolist() == [-1.0, 1.0]
    opt.zero_grad(set_to_none=False)
    assert w.grad.tolist() == [0.0, 0.0]
    opt.zero_grad()
    assert w.grad is None
    opt.param_groups[0]["lr"] = 0.25
    (w * w).sum().backward()
    opt.step()
    assert w.tolist() == [-0.5, 0.5]


def test_same_seed_same_parameters_and_shared_initialiser():
    torch.manual_seed(7)
    a = torch.nn.Linear(5, 3)
    torch.manual_seed(7)
    b = torch.nn.Linear(5, 3)
    C.manual_seed(7)
    w, bias = C.init_linear(3, 5)
    np.testing.assert_array_equal(a.weight.detach().numpy(), b.weight.detach().numpy())
    np.testing.assert_array_equal(a.weight.detach().numpy(), w)
    np.testing.assert_array_equal(a.bias.detach().numpy(), bias)


def test_state_dict_save_load_round_trip(tmp_path):
    torch.manual_seed(1)
    model = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.BatchNorm1d(3))
    model(torch.randn(5, 4))
    path = tmp_path / "model.pt"
    torch.save(model.state_dict(), path)
    torch.manual_seed(2)
    other = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.BatchNorm1d(3))
    result = other.load_state_dict(torch.load(path))
    assert repr(result) == "<All keys matched successfully>"
    for (k, v), (k2, v2) in zip(model.state_dict().items(), other.state_dict().items()):
        assert k == k2
        np.testing.assert_array_equal(v.numpy(), v2.numpy())
    assert int(other[1].num_batches_tracked) == 1
    with pytest.raises(RuntimeError, match="Missing key"):
        other.load_state_dict({})


def test_dataloader_batches_shuffle_and_drop_last():
    x = torch.arange(10).float().unsqueeze(1)
    y = torch.arange(10)
    ds = torch.utils.data.TensorDataset(x, y)
    batches = list(torch.utils.data.DataLoader(ds, batch_size=4))
    assert [b[1].tolist() for b in batches] == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]
    assert len(torch.utils.data.DataLoader(ds, batch_size=4, drop_last=True)) == 2
    torch.manual_seed(3)
    first = [
        b[1].tolist()
        for b in torch.utils.data.DataLoader(ds, batch_size=5, shuffle=True)
    ]
    torch.manual_seed(3)
    second = [
        b[1].tolist()
        for b in torch.utils.data.DataLoader(ds, batch_size=5, shuffle=True)
    ]
    assert first == second and sorted(x for batch in first for x in batch) == list(
        range(10)
    )


def test_batchnorm_running_statistics_follow_torch_convention():
    bn = torch.nn.BatchNorm1d(2, momentum=0.1)
    x = torch.tensor([[1.0, 2.0], [3.0, 6.0], [5.0, 10.0]])
    bn(x)
    np.testing.assert_allclose(
        bn.running_mean.numpy(), 0.1 * np.array([3.0, 6.0]), rtol=1e-6
    )
    np.testing.assert_allclose(
        bn.running_var.numpy(), 0.9 + 0.1 * np.array([4.0, 16.0]), rtol=1e-6
    )
    bn.eval()
    out = bn(x)
    expected = (x.numpy() - bn.running_mean.numpy()) / np.sqrt(
        bn.running_var.numpy() + 1e-5
    )
    np.testing.assert_allclose(out.detach().numpy(), expected, rtol=1e-6)


def test_retain_grad_and_grad_of_non_leaf():
    x = torch.tensor(2.0, requires_grad=True)
    h = x * 3
    h.retain_grad()
    (h * h).backward()
    assert h.grad.item() == 12.0 and x.grad.item() == 36.0
    assert h.retains_grad and not h.is_leaf


def test_parameter_ops_give_plain_tensors():
    p = torch.nn.Parameter(torch.ones(2))
    assert type(p * 2) is torch.Tensor
    assert repr(p) == "Parameter containing:\ntensor([1., 1.], requires_grad=True)"


def test_cuda_is_absent():
    assert not torch.cuda.is_available()
    with pytest.raises(AssertionError, match="Torch not compiled with CUDA enabled"):
        torch.ones(1).cuda()


def test_missing_tensor_attribute_is_also_an_attribute_error():
    t = torch.ones(2)
    assert not hasattr(t, "stft")
    assert t.is_nested is False
    with pytest.raises(NotImplementedError):
        _ = t.stft


def test_generators_are_private_streams():
    g = torch.Generator().manual_seed(4)
    a = torch.randn(3, generator=g)
    torch.manual_seed(0)
    shared = torch.randn(3)
    g.manual_seed(4)
    np.testing.assert_array_equal(torch.randn(3, generator=g).numpy(), a.numpy())
    torch.manual_seed(0)
    np.testing.assert_array_equal(torch.randn(3).numpy(), shared.numpy())
    ds = torch.utils.data.TensorDataset(torch.arange(6))
    order = [
        b[0].tolist()
        for b in torch.utils.data.DataLoader(
            ds, 3, shuffle=True, generator=g.manual_seed(1)
        )
    ]
    again = [
        b[0].tolist()
        for b in torch.utils.data.DataLoader(
            ds, 3, shuffle=True, generator=g.manual_seed(1)
        )
    ]
    assert order == again
    parts = torch.utils.data.random_split(
        ds, [4, 2], generator=torch.Generator().manual_seed(2)
    )
    assert sorted(parts[0].indices + parts[1].indices) == list(range(6))


def test_backward_releases_activations_but_keeps_pruning():
    import weakref

    x = torch.ones(3, requires_grad=True)
    h = x.exp()
    ref = weakref.ref(h)
    loss = (h * 2).sum()
    del h
    loss.backward()
    assert ref() is None
    with pytest.raises(
        RuntimeError, match="Trying to backward through the graph a second time"
    ):
        loss.backward()
    a = torch.tensor(1.0, requires_grad=True)
    b = torch.tensor(2.0, requires_grad=True)
    z = a**2 + b
    assert torch.autograd.grad(z, a)[0].item() == 2.0
    assert torch.autograd.grad(z, b)[0].item() == 1.0
