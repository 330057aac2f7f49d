"""torch.distributed on MindSpore: process groups, collectives, DistributedDataParallel, devices.

A MindSpore process group is the one `mindspore.communication.init()` joins in a job launched by
`msrun` (which starts the scheduler and gives each process its rank). Over such a group the
collectives below run MindSpore's communication primitives (`ops.AllReduce`, `ops.AllGather`,
`ops.Broadcast`, which have CPU, GPU and Ascend kernels) and write their results into the caller's
tensors, as torch does. A group of one process needs no communication: `init_process_group` with a
world size of 1 joins it without MindSpore, and every collective over it is what torch computes for
one process, the identity (a copy, for all_gather). A program that never joins a group is treated
as that group of one.
"""

import contextlib
import os

import mindspore
from mindspore import communication, ops

# A process group of one process joined without MindSpore's communication (no launcher needed).
_single_process_group = {"initialized": False}


class ReduceOp:
    """`torch.distributed.ReduceOp`: the reductions, named as MindSpore's `ops.ReduceOp` names them
    (AVG, BAND, BOR, BXOR and PREMUL_SUM have no MindSpore primitive; the collectives compute AVG as
    a sum divided by the world size and refuse the others)."""

    SUM = "sum"
    AVG = "avg"
    PRODUCT = "prod"
    MIN = "min"
    MAX = "max"
    BAND = "band"
    BOR = "bor"
    BXOR = "bxor"
    PREMUL_SUM = "premul_sum"


def dist_is_available():
    """`torch.distributed.is_available()`: True, since MindSpore always has its communication
    package (`mindspore.communication`)."""
    return True


def dist_is_initialized():
    """`torch.distributed.is_initialized()`: whether this process joined a process group, through
    `mindspore.communication.init()` or as a group of one (`init_process_group(world_size=1)`)."""
    return bool(communication.GlobalComm.INITED or _single_process_group["initialized"])


def dist_get_rank(group=None):
    """`torch.distributed.get_rank()`: this process's rank in MindSpore's world group; 0 for a
    group of one and for a program that never joined a group (torch raises there)."""
    _world_group(group)
    return communication.get_rank() if communication.GlobalComm.INITED else 0


def dist_get_world_size(group=None):
    """`torch.distributed.get_world_size()`: the size of MindSpore's world group; 1 for a group of
    one and for a program that never joined a group (torch raises there)."""
    _world_group(group)
    return communication.get_group_size() if communication.GlobalComm.INITED else 1


def _world_group(group):
    """MindSpore's world group; a torch ProcessGroup object (`new_group`) has no counterpart here."""
    if group is not None:
        raise NotImplementedError(
            "a process group other than the default one has no MindSpore stand-in here: create it "
            "with `mindspore.communication.create_group(name, ranks)` and pass the name to the "
            "`ops.AllReduce`/`ops.AllGather`/`ops.Broadcast` primitives"
        )
    return communication.GlobalComm.WORLD_COMM_GROUP


def _comm_backend(backend):
    """MindSpore's collective library for a torch backend name, on the context's device target."""
    target = mindspore.get_context("device_target")
    if backend is None:
        return None  # MindSpore picks the target's library, as torch picks its default
    name = str(backend).lower()
    if (
        "," in name or ":" in name
    ):  # "cpu:gloo,cuda:nccl": the library of the device in use
        return None
    libraries = {"gloo": "mccl", "nccl": "nccl", "hccl": "hccl"}
    needs = {"nccl": "GPU", "hccl": "Ascend"}
    if name not in libraries:
        raise NotImplementedError(
            f"torch backend {backend!r} has no MindSpore collective library (gloo -> mccl, nccl -> "
            "nccl on GPU, hccl -> hccl on Ascend)"
        )
    if name in needs and needs[name] != target:
        raise RuntimeError(
            f"backend {backend!r} needs a {needs[name]} device, but MindSpore runs on {target}"
        )
    return libraries[name]


def init_process_group(
    backend=None,
    init_method=None,
    timeout=None,
    world_size=-1,
    rank=-1,
    store=None,
    group_name="",
    pg_options=None,
    device_id=None,
    _ranks=None,
):
    """`torch.distributed.init_process_group(backend, init_method, world_size, rank)`: joins
    MindSpore's process group with `mindspore.communication.init(library)`.

    The backend becomes MindSpore's collective library on the context's device target: gloo ->
    mccl (host collectives), nccl -> nccl (GPU), hccl -> hccl (Ascend), None -> the target's own.
    MindSpore's processes find each other through `msrun`, which sets each one's rank; in a process
    it launched (`MS_ROLE` set) `init_method` is not needed, and a `world_size`/`rank` given must
    agree with the group MindSpore joined. A world size of 1 (given, or `WORLD_SIZE` in the
    environment) needs no launcher: the process becomes a group of one, over which every
    collective is the identity, as in torch. More processes without msrun raise, saying how to
    launch them. `timeout` and `device_id` are accepted (the device is the context's); a `store`,
    `pg_options` or `group_name` have no MindSpore counterpart and raise.
    """
    for name, value in (
        ("store", store),
        ("pg_options", pg_options),
        ("group_name", group_name or None),
        ("_ranks", _ranks),
    ):
        if value is not None:
            raise NotImplementedError(
                f"init_process_group({name}=...) has no MindSpore counterpart"
            )
    if dist_is_initialized():
        raise ValueError("trying to initialize the default process group twice!")
    library = _comm_backend(backend)
    if os.environ.get("MS_ROLE"):
        communication.init(library)
        joined = (communication.get_group_size(), communication.get_rank())
        for name, value, found in (
            ("world_size", world_size, joined[0]),
            ("rank", rank, joined[1]),
        ):
            if value not in (-1, None) and value != found:
                raise ValueError(
                    f"{name}={value}, but msrun gave this process {name} {found}"
                )
        return
    if world_size in (-1, None):
        world_size = int(os.environ.get("WORLD_SIZE", "-1"))
    if rank in (-1, None):
        rank = int(os.environ.get("RANK", "0"))
    if world_size == 1 and rank == 0:
        _single_process_group["initialized"] = True
        return
    raise RuntimeError(
        f"a MindSpore process group of {world_size} processes is joined by processes that msrun "
        f"launched: `msrun --worker_num={world_size} --local_worker_num={world_size} script.py` "
        "(msrun gives each process its rank; init_method is not used)"
    )


class _CompletedWork:
    """The handle `async_op=True` returns: the collective has already run, so waiting is done."""

    def wait(self, timeout=None):
        return True

    def is_completed(self):
        return True

    def is_success(self):
        return True


def _finished(async_op):
    return _CompletedWork() if async_op else None


def all_reduce(tensor, op=ReduceOp.SUM, group=None, async_op=False):
    """`torch.distributed.all_reduce(tensor, op)`: reduces `tensor` over the group IN PLACE, as
    torch does: the result is written back into `tensor` (`assign_value`). A float16/float32 SUM is
    `ops.AllReduce` over MindSpore's world group; MAX, MIN, PRODUCT and other dtypes reduce the
    ranks' tensors gathered with `ops.AllGather` (MindSpore's CPU AllReduce sums float16/float32
    only); AVG is the sum divided by the world size (floating tensors only). Over one process the
    result is `tensor` itself, unchanged. `async_op=True` returns a handle whose `wait()` returns
    at once: the reduction has already run."""
    size = dist_get_world_size(group)
    if op not in _REDUCTIONS:
        raise NotImplementedError(f"ReduceOp {op} has no MindSpore primitive")
    if op == ReduceOp.AVG and not ops.is_floating_point(tensor):
        raise NotImplementedError("ReduceOp.AVG of an integer tensor")
    if size > 1:
        tensor.assign_value(_reduced(tensor, op, _world_group(group), size))
    return _finished(async_op)


# How each reduction combines the ranks' tensors gathered one per row.
_REDUCTIONS = {
    ReduceOp.SUM: ops.sum,
    ReduceOp.AVG: ops.sum,
    ReduceOp.MAX: ops.amax,
    ReduceOp.MIN: ops.amin,
    ReduceOp.PRODUCT: ops.prod,
}


def _reduced(tensor, op, group_name, size):
    """`tensor` reduced over the group, in its own dtype and shape."""
    if op in (ReduceOp.SUM, ReduceOp.AVG) and tensor.dtype in (
        mindspore.float16,
        mindspore.float32,
    ):
        result = ops.AllReduce(ReduceOp.SUM, group=group_name)(tensor)
    else:
        gathered = _gather_rows(tensor, group_name)
        result = _REDUCTIONS[op](gathered, 0).reshape(tensor.shape)
    if op == ReduceOp.AVG:
        result = result / size
    return result.astype(tensor.dtype)


def _communicable(tensor):
    """`tensor` in a dtype MindSpore's CPU collective kernels take: bool and 8/16-bit integers go
    as int32, which holds their values exactly."""
    small = (mindspore.bool_, mindspore.uint8, mindspore.int8, mindspore.int16)
    return tensor.astype(mindspore.int32) if tensor.dtype in small else tensor


def _gather_rows(tensor, group_name):
    """The ranks' tensors, flattened, one row per rank (`ops.AllGather` concatenates on axis 0)."""
    rows = _communicable(tensor).reshape((1, tensor.size))
    return ops.AllGather(group=group_name)(rows)


def all_gather(tensor_list, tensor, group=None, async_op=False):
    """`torch.distributed.all_gather(tensor_list, tensor)`: fills `tensor_list` IN PLACE, entry `i`
    with rank `i`'s `tensor`, as torch does: `ops.AllGather` over MindSpore's world group
    concatenates the ranks' tensors, which are split and written into the list's tensors
    (`assign_value`). Over one process the only entry gets a copy of `tensor`."""
    size = dist_get_world_size(group)
    if len(tensor_list) != size:
        raise ValueError(
            f"all_gather needs one output tensor per process: {size}, not {len(tensor_list)}"
        )
    for target in tensor_list:
        if tuple(target.shape) != tuple(tensor.shape) or target.dtype != tensor.dtype:
            raise ValueError(
                "all_gather output tensors must have the input's shape and dtype: "
                f"{tuple(tensor.shape)} {tensor.dtype}, not {tuple(target.shape)} {target.dtype}"
            )
    if size == 1:
        tensor_list[0].assign_value(tensor.copy())
        return _finished(async_op)
    gathered = _gather_rows(tensor, _world_group(group))
    for index, target in enumerate(tensor_list):
        target.assign_value(gathered[index].reshape(tensor.shape).astype(tensor.dtype))
    return _finished(async_op)


def broadcast(tensor, src=None, group=None, async_op=False, group_src=None):
    """`torch.distributed.broadcast(tensor, src)`: `tensor` takes rank `src`'s value IN PLACE, as in
    torch: the result of `ops.Broadcast(src)` over MindSpore's world group is written back into
    `tensor` (`assign_value`). Over one process `src` must be 0 and `tensor` stays as it is."""
    size = dist_get_world_size(group)
    if src is None:
        src = group_src
    if src is None:
        raise ValueError("broadcast needs src (or group_src)")
    if not 0 <= src < size:
        raise ValueError(f"broadcast src {src} is not a rank of a group of {size}")
    if size > 1:
        sent = _communicable(tensor)
        result = ops.Broadcast(src, group=_world_group(group))((sent,))[0]
        tensor.assign_value(result.astype(tensor.dtype))
    return _finished(async_op)


class DistributedDataParallel(mindspore.nn.Cell):
    """`torch.nn.parallel.DistributedDataParallel(module, device_ids)`: runs `module` (kept as
    `.module`) and makes the gradients of its parameters the group's average, as torch does.

    Over one process that is the module itself: the forward pass and the gradients are the
    module's. Over more processes (after `init_process_group` under msrun) the parameters and
    buffers start as rank 0's (a broadcast), buffers are broadcast from rank 0 before each forward
    pass (`broadcast_buffers`), and each trainable parameter gets a gradient hook
    (`Parameter.register_hook`, PyNative mode) that averages its gradient over the group, so
    `mindspore.value_and_grad` returns what torch's backward leaves in `.grad`. `no_sync()` is a null
    context: averaging each backward's gradients and summing them equals averaging the sum, which
    is what torch's deferred reduction computes. The bucketing and memory options only steer how
    torch communicates and are accepted; options that change which gradients are reduced raise.
    """

    def __init__(
        self,
        module,
        device_ids=None,
        output_device=None,
        dim=0,
        broadcast_buffers=None,
        init_sync=True,
        process_group=None,
        bucket_cap_mb=None,
        find_unused_parameters=False,
        check_reduction=False,
        gradient_as_bucket_view=False,
        static_graph=False,
        delay_all_reduce_named_params=None,
        param_to_hook_all_reduce=None,
        mixed_precision=None,
        device_mesh=None,
        skip_all_reduce_unused_params=False,
        bucket_cap_mb_list=None,
        batched_grad_copy=False,
        forward_sync_buffers=None,
    ):
        super().__init__(
            auto_prefix=False
        )  # the module's parameters keep their own names
        for name, value in (
            ("process_group", process_group),
            ("delay_all_reduce_named_params", delay_all_reduce_named_params),
            ("param_to_hook_all_reduce", param_to_hook_all_reduce),
            ("mixed_precision", mixed_precision),
            ("device_mesh", device_mesh),
        ):
            if value is not None:
                raise NotImplementedError(
                    f"DistributedDataParallel({name}=...) has no MindSpore stand-in"
                )
        self.module = module
        self.world_size = dist_get_world_size()
        self.broadcast_buffers = broadcast_buffers is not False
        self._gradient_hooks = []
        if self.world_size == 1:
            return
        if find_unused_parameters or skip_all_reduce_unused_params:
            raise NotImplementedError(
                "DistributedDataParallel over several processes reduces the gradient of every "
                "trainable parameter in every backward; parameters unused on some ranks are not "
                "supported"
            )
        if init_sync:
            for param in module.get_parameters():
                broadcast(param, 0)
        for param in module.trainable_params():
            self._gradient_hooks.append(param.register_hook(self._average))

    def _average(self, grad):
        return _reduced(grad, ReduceOp.AVG, _world_group(None), self.world_size)

    def construct(self, *args, **kwargs):
        if self.world_size > 1 and self.broadcast_buffers:
            for param in self.module.get_parameters():
                if not param.requires_grad:
                    broadcast(param, 0)
        return self.module(*args, **kwargs)

    def no_sync(self):
        return contextlib.nullcontext()


def cuda_set_device(device):
    """`torch.cuda.set_device(device)`: `mindspore.set_device("GPU", index)`, which places this
    process's work on that GPU (MindSpore allows it once, before the first kernel runs, and
    accepts the device it already uses). A negative index does nothing, as in torch; on a CPU or
    Ascend context it raises, as torch does without CUDA."""
    _set_device("GPU", device, "cuda")


def npu_set_device(device):
    """`torch.npu.set_device(device)`: `mindspore.set_device("Ascend", index)`, which places this
    process's work on that NPU (MindSpore allows it once, before the first kernel runs, and
    accepts the device it already uses). A negative index does nothing; on a CPU or GPU context
    it raises."""
    _set_device("Ascend", device, "npu")


def _set_device(target, device, kind):
    if device is None:
        raise ValueError(
            f"Expected a {kind} device with a specified index or an integer, but got: None"
        )
    index = getattr(device, "index", device)
    if isinstance(device, str):
        index = int(device.partition(":")[2] or 0)
    if index is None:
        index = 0
    if index < 0:
        return
    found = mindspore.get_context("device_target")
    if found != target:
        raise RuntimeError(
            f"{kind}:{index} is not available: MindSpore runs on {found}, not {target}"
        )
    mindspore.set_device(target, index)
