"""One process of a two-process group: the same collectives and DDP step on torch (gloo) or on the
companion module (MindSpore, launched by msrun), each rank saving what it computed.

Usage: python script_distributed_worker.py torch|mindspore OUT_DIR [COMPANION_DIR]
torch reads RANK/WORLD_SIZE/MASTER_ADDR/MASTER_PORT; msrun gives MindSpore processes their ranks.
"""

from __future__ import annotations

import os
import sys

import numpy as np


def inputs(rank: int) -> dict[str, np.ndarray]:
    base = np.arange(6).reshape(2, 3)
    return {
        "f32": (base * (rank + 1) + rank).astype(np.float32),
        "f64": (base / (rank + 2)).astype(np.float64),
        "i64": (base + 10 * rank).astype(np.int64),
        "weight": np.random.default_rng(rank)
        .standard_normal((3, 4))
        .astype(np.float32),
        "bias": np.random.default_rng(10 + rank).standard_normal(3).astype(np.float32),
        "x": np.random.default_rng(20 + rank)
        .standard_normal((5, 4))
        .astype(np.float32),
    }


def run_torch(out: str) -> None:
    import torch
    import torch.distributed as dist

    dist.init_process_group("gloo", init_method="env://")
    rank = dist.get_rank()
    data = inputs(rank)
    found = {"rank": np.array(rank), "size": np.array(dist.get_world_size())}
    for op in ("SUM", "MAX", "MIN", "PRODUCT"):
        t = torch.tensor(data["f32"])
        dist.all_reduce(t, op=getattr(dist.ReduceOp, op))
        found[f"all_reduce_{op}"] = t.numpy()
    for kind in ("f64", "i64"):
        t = torch.tensor(data[kind])
        dist.all_reduce(t)
        found[f"all_reduce_SUM_{kind}"] = t.numpy()
    gathered = [torch.zeros(2, 3, dtype=torch.int64) for _ in range(2)]
    dist.all_gather(gathered, torch.tensor(data["i64"]))
    found["all_gather"] = np.stack([g.numpy() for g in gathered])
    flags = [torch.zeros(2, 3, dtype=torch.uint8) for _ in range(2)]
    dist.all_gather(flags, torch.tensor(data["i64"] % 3 == 0).to(torch.uint8))
    found["all_gather_u8"] = np.stack([g.numpy() for g in flags])
    t = torch.tensor(data["f64"])
    dist.all_reduce(t, op=dist.ReduceOp.MAX)
    found["all_reduce_MAX_f64"] = t.numpy()
    t = torch.tensor(data["f32"])
    dist.broadcast(t, 1)
    found["broadcast"] = t.numpy()
    linear = torch.nn.Linear(4, 3)
    with torch.no_grad():
        linear.weight.copy_(torch.tensor(data["weight"]))
        linear.bias.copy_(torch.tensor(data["bias"]))
    model = torch.nn.parallel.DistributedDataParallel(linear)
    found["ddp_weight"] = linear.weight.detach().numpy().copy()
    (model(torch.tensor(data["x"])) ** 2).sum().backward()
    found["ddp_grad_weight"] = linear.weight.grad.numpy()
    found["ddp_grad_bias"] = linear.bias.grad.numpy()
    np.savez(os.path.join(out, f"torch_{rank}.npz"), **found)
    dist.barrier()  # neither process leaves while the other still talks to it
    dist.destroy_process_group()


def run_mindspore(out: str, companion: str) -> None:
    sys.path.insert(0, companion)
    import mindspore
    import ms_aux

    mindspore.set_device("CPU")
    ms_aux.init_process_group("gloo")
    rank = ms_aux.dist_get_rank()
    data = inputs(rank)
    found = {"rank": np.array(rank), "size": np.array(ms_aux.dist_get_world_size())}
    for op in ("SUM", "MAX", "MIN", "PRODUCT", "AVG"):
        t = mindspore.Tensor(data["f32"])
        ms_aux.all_reduce(t, op=getattr(ms_aux.ReduceOp, op))
        found[f"all_reduce_{op}"] = t.asnumpy()
    for kind in ("f64", "i64"):
        t = mindspore.Tensor(data[kind])
        ms_aux.all_reduce(t)
        found[f"all_reduce_SUM_{kind}"] = t.asnumpy()
    gathered = [mindspore.ops.zeros((2, 3), mindspore.int64) for _ in range(2)]
    ms_aux.all_gather(gathered, mindspore.Tensor(data["i64"]))
    found["all_gather"] = np.stack([g.asnumpy() for g in gathered])
    flags = [mindspore.ops.zeros((2, 3), mindspore.uint8) for _ in range(2)]
    ms_aux.all_gather(
        flags, mindspore.Tensor(data["i64"] % 3 == 0).astype(mindspore.uint8)
    )
    found["all_gather_u8"] = np.stack([g.asnumpy() for g in flags])
    t = mindspore.Tensor(data["f64"])
    ms_aux.all_reduce(t, op=ms_aux.ReduceOp.MAX)
    found["all_reduce_MAX_f64"] = t.asnumpy()
    t = mindspore.Tensor(data["f32"])
    ms_aux.broadcast(t, 1)
    found["broadcast"] = t.asnumpy()
    dense = mindspore.nn.Dense(4, 3)
    dense.weight.set_data(mindspore.Tensor(data["weight"]))
    dense.bias.set_data(mindspore.Tensor(data["bias"]))
    model = ms_aux.DistributedDataParallel(dense)
    found["ddp_weight"] = dense.weight.asnumpy().copy()

    def loss(x):
        return (model(x) ** 2).sum()

    grads = mindspore.value_and_grad(loss, None, model.trainable_params())(
        mindspore.Tensor(data["x"])
    )[1]
    found["ddp_grad_weight"] = grads[0].asnumpy()
    found["ddp_grad_bias"] = grads[1].asnumpy()
    np.savez(os.path.join(out, f"mindspore_{rank}.npz"), **found)


if __name__ == "__main__":
    if sys.argv[1] == "torch":
        run_torch(sys.argv[2])
    else:
        run_mindspore(sys.argv[2], sys.argv[3])
