"""The torch.distributed entries of the companion module against torch's own process groups.

A group of one process: torch runs gloo over tcp with world_size=1, the companion joins its group of
one, and each collective leaves the same values in the caller's tensors. A group of two: the worker
script runs the same collectives and a DistributedDataParallel step on torch (gloo, two processes)
and on MindSpore (two processes launched by msrun), and every rank's results are compared.
"""

from __future__ import annotations

import importlib.util
import os
import socket
import subprocess
import sys

import numpy as np
import pytest
from torch2ms.rules.companion import assemble
from torch2ms.rules.companion.table_distributed import ENTRIES

pytestmark = pytest.mark.real
WORKER = os.path.join(os.path.dirname(__file__), "script_distributed_worker.py")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _companion(folder) -> str:
    path = folder / "ms_aux.py"
    path.write_text(assemble(sorted(set(ENTRIES.values()))), encoding="utf-8")
    return str(path)


@pytest.fixture
def aux(fw, tmp_path):
    """A fresh companion module (its process-group state starts unjoined)."""
    spec = importlib.util.spec_from_file_location(
        "ms_aux_distributed", _companion(tmp_path)
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def groups_of_one(fw, aux):
    """torch's gloo group of one process and the companion's, both joined."""
    torch, _ = fw
    dist = torch.distributed
    assert not dist.is_initialized() and not aux.dist_is_initialized()
    url = f"tcp://127.0.0.1:{_free_port()}"
    dist.init_process_group("gloo", init_method=url, rank=0, world_size=1)
    aux.init_process_group("gloo", init_method=url, rank=0, world_size=1)
    yield dist, aux
    dist.destroy_process_group()


def test_queries_before_and_after_joining(fw, aux) -> None:
    torch, _ = fw
    dist = torch.distributed
    assert aux.dist_is_available() is dist.is_available() is True
    assert aux.dist_is_initialized() is dist.is_initialized() is False
    url = f"tcp://127.0.0.1:{_free_port()}"
    dist.init_process_group("gloo", init_method=url, rank=0, world_size=1)
    try:
        aux.init_process_group("gloo", init_method=url, rank=0, world_size=1)
        assert aux.dist_is_initialized() is dist.is_initialized() is True
        assert (aux.dist_get_rank(), aux.dist_get_world_size()) == (
            dist.get_rank(),
            dist.get_world_size(),
        )
        with pytest.raises(ValueError, match="twice") as expected:
            dist.init_process_group("gloo", init_method=url, rank=0, world_size=1)
        with pytest.raises(ValueError) as got:
            aux.init_process_group("gloo", init_method=url, rank=0, world_size=1)
        assert str(got.value) == str(expected.value)
    finally:
        dist.destroy_process_group()


@pytest.mark.parametrize("op", ["SUM", "MAX", "MIN", "PRODUCT"])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
def test_all_reduce_writes_torchs_result_into_the_tensor(
    fw, groups_of_one, op: str, dtype: str
) -> None:
    torch, ms = fw
    dist, aux = groups_of_one
    values = (np.arange(6).reshape(2, 3) * 1.5 - 2).astype(dtype)
    expected, got = torch.tensor(values), ms.Tensor(values)
    same = got
    assert dist.all_reduce(expected, op=getattr(dist.ReduceOp, op)) is None
    assert aux.all_reduce(got, op=getattr(aux.ReduceOp, op)) is None
    assert got is same
    np.testing.assert_array_equal(got.asnumpy(), expected.numpy())


def test_async_collectives_return_a_finished_handle(fw, groups_of_one) -> None:
    torch, ms = fw
    dist, aux = groups_of_one
    values = np.ones((2, 2), np.float32)
    expected, got = torch.tensor(values), ms.Tensor(values)
    work, handle = (
        dist.all_reduce(expected, async_op=True),
        aux.all_reduce(got, async_op=True),
    )
    assert handle.wait() is work.wait() is True
    assert handle.is_completed() is work.is_completed() is True
    np.testing.assert_array_equal(got.asnumpy(), expected.numpy())


def test_all_gather_fills_the_list_with_a_copy(fw, groups_of_one) -> None:
    torch, ms = fw
    dist, aux = groups_of_one
    values = np.arange(6, dtype=np.int64).reshape(2, 3)
    source, tensor = torch.tensor(values), ms.Tensor(values)
    expected, got = (
        [torch.zeros(2, 3, dtype=torch.int64)],
        [ms.ops.zeros((2, 3), ms.int64)],
    )
    slot = got[0]
    dist.all_gather(expected, source)
    aux.all_gather(got, tensor)
    assert got[0] is slot
    np.testing.assert_array_equal(got[0].asnumpy(), expected[0].numpy())
    # The list holds a copy: changing the source afterwards leaves it as it was.
    source.add_(1)
    tensor.assign_value(tensor + 1)
    np.testing.assert_array_equal(got[0].asnumpy(), expected[0].numpy())
    assert (got[0].asnumpy() == values).all()


def test_all_gather_needs_one_tensor_per_process(fw, groups_of_one) -> None:
    torch, ms = fw
    dist, aux = groups_of_one
    with pytest.raises((RuntimeError, ValueError)):
        dist.all_gather([torch.zeros(3), torch.zeros(3)], torch.ones(3))
    with pytest.raises(ValueError, match="one output tensor per process"):
        aux.all_gather([ms.ops.zeros(3), ms.ops.zeros(3)], ms.ops.ones(3))


def test_broadcast_from_rank_zero_and_no_other(fw, groups_of_one) -> None:
    torch, ms = fw
    dist, aux = groups_of_one
    values = np.linspace(-1, 1, 5).astype(np.float32)
    expected, got = torch.tensor(values), ms.Tensor(values)
    dist.broadcast(expected, 0)
    aux.broadcast(got, 0)
    np.testing.assert_array_equal(got.asnumpy(), expected.numpy())
    with pytest.raises((RuntimeError, ValueError)):
        dist.broadcast(expected, 1)
    with pytest.raises(ValueError, match="not a rank"):
        aux.broadcast(got, 1)


def test_reductions_without_a_mindspore_primitive_raise(fw, aux) -> None:
    _, ms = fw
    for op in ("BAND", "BOR", "BXOR", "PREMUL_SUM"):
        with pytest.raises(NotImplementedError, match=getattr(aux.ReduceOp, op)):
            aux.all_reduce(ms.ops.ones(2, ms.int32), op=getattr(aux.ReduceOp, op))


def test_init_translates_the_backend_and_asks_for_msrun(fw, aux, monkeypatch) -> None:
    monkeypatch.delenv("MS_ROLE", raising=False)
    monkeypatch.delenv("WORLD_SIZE", raising=False)
    assert aux._comm_backend("gloo") == "mccl"
    assert aux._comm_backend(None) is None
    with pytest.raises(
        RuntimeError, match="needs a GPU device, but MindSpore runs on CPU"
    ):
        aux._comm_backend("nccl")
    with pytest.raises(NotImplementedError, match="mpi"):
        aux._comm_backend("mpi")
    with pytest.raises(RuntimeError, match="msrun --worker_num=2"):
        aux.init_process_group("gloo", world_size=2, rank=0)
    assert not aux.dist_is_initialized()
    monkeypatch.setenv("WORLD_SIZE", "1")
    aux.init_process_group("gloo", init_method="env://")
    assert aux.dist_is_initialized() and aux.dist_get_world_size() == 1


def _linear_pair(torch, ms, seed: int):
    rng = np.random.default_rng(seed)
    weight = rng.standard_normal((3, 4)).astype(np.float32)
    bias = rng.standard_normal(3).astype(np.float32)
    linear = torch.nn.Linear(4, 3)
    with torch.no_grad():
        linear.weight.copy_(torch.tensor(weight))
        linear.bias.copy_(torch.tensor(bias))
    dense = ms.nn.Dense(4, 3)
    dense.weight.set_data(ms.Tensor(weight))
    dense.bias.set_data(ms.Tensor(bias))
    return linear, dense


def test_ddp_over_one_process_is_the_module(fw, groups_of_one) -> None:
    torch, ms = fw
    _, aux = groups_of_one
    linear, dense = _linear_pair(torch, ms, 0)
    expected, got = (
        torch.nn.parallel.DistributedDataParallel(linear),
        aux.DistributedDataParallel(dense, device_ids=None, bucket_cap_mb=25),
    )
    assert got.module is dense and expected.module is linear
    names = [p.name for p in dense.get_parameters()]
    assert names == ["weight", "bias"]  # the wrapper leaves the module's names alone
    x = np.random.default_rng(1).standard_normal((5, 4)).astype(np.float32)
    out = expected(torch.tensor(x))
    np.testing.assert_allclose(
        got(ms.Tensor(x)).asnumpy(), out.detach().numpy(), 1e-6, 1e-6
    )
    (out**2).sum().backward()

    def loss(inputs):
        return (got(inputs) ** 2).sum()

    grads = ms.value_and_grad(loss, None, got.trainable_params())(ms.Tensor(x))[1]
    for grad, param in zip(grads, (linear.weight, linear.bias)):
        np.testing.assert_allclose(grad.asnumpy(), param.grad.numpy(), 1e-5, 1e-5)
    with expected.no_sync(), got.no_sync():
        pass


def test_set_device_does_what_torch_does_without_the_device(fw, aux) -> None:
    torch, _ = fw
    torch.cuda.set_device(-1)
    aux.cuda_set_device(-1)
    aux.npu_set_device(-1)
    with pytest.raises(ValueError) as expected:
        torch.cuda.set_device(None)
    with pytest.raises(ValueError) as got:
        aux.cuda_set_device(None)
    assert "with a specified index or an integer" in str(expected.value)
    assert "with a specified index or an integer" in str(got.value)
    with pytest.raises((AttributeError, RuntimeError, AssertionError)):
        torch.cuda.set_device("cuda:0")  # torch without CUDA
    with pytest.raises(RuntimeError, match="MindSpore runs on CPU, not GPU"):
        aux.cuda_set_device("cuda:0")
    with pytest.raises(RuntimeError, match="MindSpore runs on CPU, not Ascend"):
        aux.npu_set_device(0)


@pytest.mark.slow
def test_two_processes_compute_what_torch_gloo_computes(fw, tmp_path) -> None:
    companion = os.path.dirname(_companion(tmp_path))
    results = tmp_path / "results"
    results.mkdir()
    port = str(_free_port())
    runs = [
        subprocess.Popen(
            [sys.executable, WORKER, "torch", str(results)],
            env={
                **os.environ,
                "RANK": str(rank),
                "WORLD_SIZE": "2",
                "MASTER_ADDR": "127.0.0.1",
                "MASTER_PORT": port,
            },
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        for rank in (0, 1)
    ]
    for run in runs:
        _, stderr = run.communicate(timeout=300)
        assert run.returncode == 0, stderr[-2000:]
    msrun = os.path.join(os.path.dirname(sys.executable), "msrun")
    launched = subprocess.run(
        [
            msrun,
            "--worker_num=2",
            "--local_worker_num=2",
            f"--master_port={_free_port()}",
            f"--log_dir={tmp_path / 'logs'}",
            "--join=True",
            WORKER,
            "mindspore",
            str(results),
            companion,
        ],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert launched.returncode == 0, launched.stdout[-3000:]
    for rank in (0, 1):
        expected = np.load(results / f"torch_{rank}.npz")
        got = np.load(results / f"mindspore_{rank}.npz")
        for key in expected.files:
            assert got[key].dtype == expected[key].dtype, key
            np.testing.assert_allclose(got[key], expected[key], 1e-6, 1e-6, err_msg=key)
        # gloo has no AVG: torch's sum over the two processes, halved.
        np.testing.assert_allclose(
            got["all_reduce_AVG"], expected["all_reduce_SUM"] / 2, 1e-6, 1e-6
        )
    # DistributedDataParallel starts every rank from rank 0's parameters.
    np.testing.assert_array_equal(
        np.load(results / "mindspore_1.npz")["ddp_weight"],
        np.load(results / "torch_0.npz")["ddp_weight"],
    )
