"""APIs with no certain rewrite: devices, distribution, compilation, data loading, serialization.

Each entry says why it is left as it is and which MindSpore idiom to write by hand.
"""

from __future__ import annotations

from .entries import report
from .spec import ApiMapping

_EAGER = "outside TorchScript this is what torch itself does; MindSpore code is never scripted by torch"

_DEVICE = (
    "MindSpore places work by context, not per tensor: call `mindspore.set_device('GPU')` (or 'Ascend', "
    "'CPU') once at start-up and drop the device handling"
)
_COMM = "mindspore.communication"
_DIST = "run under `msrun`; initialise with `mindspore.communication.init()`"

TABLE = (
    ApiMapping(
        "torch.jit.is_scripting",
        "False",
        form="constant",
        params=(),
        sample=(),
        note=_EAGER,
    ),
    ApiMapping(
        "torch.jit.is_tracing",
        "False",
        form="constant",
        params=(),
        sample=(),
        note=_EAGER,
    ),
    ApiMapping(
        "torch.jit.ignore",
        "",
        form="decorator",
        params=("drop",),
        sample=(),
        note=_EAGER,
    ),
    ApiMapping(
        "torch.jit.unused", "", form="decorator", params=(), sample=(), note=_EAGER
    ),
    ApiMapping(
        "torch.fx.wrap",
        "",
        form="decorator",
        params=("fn_or_name",),
        sample=(),
        note="torch.fx.wrap returns the function unchanged and only marks it for torch.fx symbolic "
        "tracing; MindSpore code is never traced by torch.fx",
    ),
    ApiMapping(
        "torch.jit.Final",
        "",
        kind="name",
        form="annotation",
        sample=(),
        check="exists",
        note="torch.jit.Final is typing.Final; a class attribute's annotation has no effect at run time",
    ),
    # -- plumbing: constants, and torch-only APIs whose calls the companion stands in for -------
    ApiMapping(
        "torch.get_default_dtype",
        "mindspore.float32",
        form="constant",
        params=(),
        sample=(),
        note="torch's default floating dtype is float32 unless `torch.set_default_dtype` changed "
        "it, and the converter leaves that call on torch (a finding); MindSpore creates float32",
    ),
    report(
        "torch.__version__",
        "it names torch's version: code that compares it chooses a torch code path; decide the "
        "branch by hand (`mindspore.__version__` is MindSpore's version, with other numbers)",
        kind="name",
    ),
    report(
        "torch.Generator",
        "MindSpore's random operators on CPU draw from the global seed or a `seed=` argument, not "
        "from a generator object; call `mindspore.set_seed(seed)` (or pass `seed=`) where the "
        "generator was seeded, and drop `generator=`",
        kind="class",
    ),
    report(
        "torch.amp.autocast",
        "torch computes this region in reduced precision; MindSpore sets mixed precision per "
        "network: `mindspore.amp.auto_mixed_precision(network, 'O1')`. Regions with "
        "`enabled=False` (and CUDA autocast on the CPU target) are converted (TM412)",
        kind="class",
    ),
    report("torch.device", _DEVICE, kind="class"),
    report(
        "torch.cuda.is_available",
        "query the context instead: `mindspore.get_context('device_target') == 'GPU'`; "
        + _DEVICE,
    ),
    report("torch.cuda.current_device", "use `mindspore.get_context('device_id')`"),
    report("torch.cuda.set_device", "use `mindspore.set_device('GPU', device_id)`"),
    report(
        "torch.cuda.synchronize",
        "use `mindspore.runtime.synchronize()`; PyNative work is asynchronous",
    ),
    report(
        "torch.cuda.empty_cache",
        "MindSpore manages its memory pool itself; drop the call or use "
        "`mindspore.runtime.empty_cache()`",
    ),
    report(
        "torch.cuda.manual_seed",
        "use `mindspore.set_seed(seed)` (one seed for all devices)",
    ),
    report(
        "torch.cuda.manual_seed_all",
        "use `mindspore.set_seed(seed)` (one seed for all devices)",
    ),
    report(
        "torch.cuda.max_memory_allocated",
        "use `mindspore.runtime.max_memory_allocated()`",
    ),
    report("torch.cuda.memory_allocated", "use `mindspore.runtime.memory_allocated()`"),
    report(
        "torch.cuda.amp.autocast",
        "use `mindspore.amp.auto_mixed_precision(network, 'O1')` on the network",
        kind="class",
    ),
    report(
        "torch.cuda.amp.GradScaler",
        "use `mindspore.amp.DynamicLossScaler(scale_value, 2, 1000)` with "
        "`all_finite` in the train step (see the training rules)",
        kind="class",
    ),
    report(
        "torch.autocast",
        "use `mindspore.amp.auto_mixed_precision(network, 'O1')` on the network",
        kind="class",
    ),
    report(
        "torch.backends.cudnn.benchmark",
        "MindSpore selects kernels itself; drop the setting",
        kind="name",
    ),
    report(
        "torch.backends.cudnn.deterministic",
        "use `mindspore.set_context(deterministic='ON')`",
        kind="name",
    ),
    report(
        "torch.compile",
        "MindSpore compiles with `mindspore.jit` on a function or a Cell's construct; apply it "
        "only where the code is graph-compatible (no data-dependent Python control flow)",
    ),
    report(
        "torch.jit.script",
        "use `mindspore.jit` on the function or construct; TorchScript semantics differ",
    ),
    report(
        "torch.jit.trace",
        "use `mindspore.jit` on the function or construct; there is no tracing API",
    ),
    report(
        "torch.jit.save",
        "export with `mindspore.export(net, *inputs, file_name=..., file_format='MINDIR')`",
    ),
    report(
        "torch.jit.load",
        "load a MindIR with `mindspore.load(path)` and wrap it in `mindspore.nn.GraphCell`",
    ),
    report(
        "torch.save",
        "save a Cell's parameters with `mindspore.save_checkpoint(net, path)`; arbitrary "
        "objects have no MindSpore format (use pickle)",
    ),
    report(
        "torch.load",
        "load parameters with `mindspore.load_checkpoint(path)` and "
        "`mindspore.load_param_into_net(net, params)`; convert .pth files with `torch2ms weights`",
    ),
    report(
        "torch.onnx.export",
        "export with `mindspore.export(net, *inputs, file_name=..., file_format='ONNX')`",
    ),
    report(
        "torch.utils.data.DataLoader",
        "wrap the dataset: `mindspore.dataset.GeneratorDataset(dataset, "
        "column_names=[...], shuffle=...)` then `.batch(batch_size, drop_remainder=...)`; iterate with "
        "`create_tuple_iterator()`",
        kind="class",
    ),
    report(
        "torch.utils.data.Dataset",
        "keep the class as a plain Python class (no base class) with "
        "`__getitem__` and `__len__`, and pass it to `mindspore.dataset.GeneratorDataset`",
        kind="class",
    ),
    report(
        "torch.utils.data.IterableDataset",
        "keep the class as a plain Python iterable and pass it to "
        "`mindspore.dataset.GeneratorDataset`",
        kind="class",
    ),
    report(
        "torch.utils.data.TensorDataset",
        "use `mindspore.dataset.NumpySlicesDataset((x, y), column_names=[...])`",
        kind="class",
    ),
    report(
        "torch.utils.data.random_split",
        "use `dataset.split([n1, n2], randomize=True)` on the mindspore.dataset object",
    ),
    report(
        "torch.utils.data.Subset",
        "use `mindspore.dataset.SubsetSampler(indices)` as the sampler",
        kind="class",
    ),
    report(
        "torch.utils.data.RandomSampler",
        "pass `shuffle=True` or `mindspore.dataset.RandomSampler()` to "
        "GeneratorDataset",
        kind="class",
    ),
    report(
        "torch.utils.data.SequentialSampler",
        "pass `mindspore.dataset.SequentialSampler()` to GeneratorDataset",
        kind="class",
    ),
    report(
        "torch.utils.data.SubsetRandomSampler",
        "pass `mindspore.dataset.SubsetRandomSampler(indices)` to GeneratorDataset",
        kind="class",
    ),
    report(
        "torch.utils.data.distributed.DistributedSampler",
        "pass `num_shards=get_group_size(), shard_id=get_rank()` to GeneratorDataset",
        kind="class",
    ),
    report(
        "torch.utils.checkpoint.checkpoint",
        "mark the sub-cell with `cell.recompute()` instead of wrapping the call",
    ),
    report("torch.distributed.init_process_group", _DIST),
    report("torch.distributed.get_rank", f"use `{_COMM}.get_rank()` after `init()`"),
    report(
        "torch.distributed.get_world_size",
        f"use `{_COMM}.get_group_size()` after `init()`",
    ),
    report(
        "torch.distributed.is_initialized",
        "MindSpore has no query; track whether `init()` ran",
    ),
    report(
        "torch.distributed.is_available",
        "communication is always built in; run under `msrun`",
    ),
    report("torch.distributed.barrier", f"use `{_COMM}.comm_func.barrier()`"),
    report(
        "torch.distributed.all_reduce",
        f"use `{_COMM}.comm_func.all_reduce(tensor, op)`, which returns the "
        "result instead of writing into the tensor",
    ),
    report(
        "torch.distributed.all_gather",
        f"use `{_COMM}.comm_func.all_gather_into_tensor(tensor)`, which "
        "returns one concatenated tensor instead of filling a list",
    ),
    report(
        "torch.distributed.broadcast",
        f"use `{_COMM}.comm_func.broadcast(tensor, src)`, which returns the result",
    ),
    report(
        "torch.distributed.reduce",
        f"use `{_COMM}.comm_func.reduce(tensor, dst, op)`, which returns the result",
    ),
    report(
        "torch.distributed.reduce_scatter",
        f"use `{_COMM}.comm_func.reduce_scatter_tensor(tensor, op)`",
    ),
    report("torch.distributed.destroy_process_group", f"use `{_COMM}.release()`"),
    report(
        "torch.nn.parallel.DistributedDataParallel",
        "set `mindspore.set_auto_parallel_context("
        "parallel_mode='data_parallel', gradients_mean=True)` and drop the wrapper; gradients are reduced in "
        "the train step",
        kind="class",
    ),
    report(
        "torch.nn.DataParallel",
        "MindSpore has no single-process multi-device wrapper; use data parallel "
        "under msrun and drop the wrapper",
        kind="class",
    ),
    report(
        "torch.set_default_dtype",
        "MindSpore creates float32 by default; pass `dtype=` where another is needed",
    ),
    report(
        "torch.set_num_threads", "use `mindspore.set_context(runtime_num_threads=n)`"
    ),
    report(
        "torch.use_deterministic_algorithms",
        "use `mindspore.set_context(deterministic='ON')`",
    ),
    report(
        "torch.equal",
        "torch.equal returns one bool; write `bool((a == b).all())` after checking shapes",
    ),
    report("torch.allclose", "write `bool(ops.isclose(a, b, rtol, atol).all())`"),
    report(
        "torch.bincount",
        "MindSpore's bincount returns float32; cast with `.astype(mindspore.int64)`",
    ),
    report(
        "torch.normal",
        "MindSpore's normal takes a shape: `ops.normal(mean.shape, mean, std)`",
    ),
    report("torch.complex", "build it with `ops.Complex()(real, imag)`"),
    report(
        "torch.polygamma",
        "MindSpore's polygamma takes n as a Tensor: `ops.polygamma(mindspore.tensor(n), x)`",
    ),
    report(
        "torch.index_add",
        "MindSpore's index_add needs int32 indices and a Parameter: "
        "`ops.index_add(x, index.astype(mindspore.int32), source, dim)`",
    ),
    report(
        "torch.blackman_window",
        "MindSpore's blackman_window takes the length as a Tensor",
    ),
    report(
        "torch.bartlett_window",
        "MindSpore's bartlett_window takes the length as a Tensor",
    ),
    report(
        "torch.kthvalue",
        "MindSpore 2.10 has no ops.kthvalue; use `ops.topk(x, k, largest=False)` and take "
        "the last",
    ),
    report(
        "torch.take_along_dim",
        "use `ops.gather_elements(x, dim, indices)` when indices has x's rank",
    ),
    report(
        "torch.vdot",
        "for real tensors write `ops.inner(a, b)`; conjugate the first for complex ones",
    ),
    report(
        "torch.aminmax",
        "MindSpore's aminmax reduces axis 0 by default; pass `axis=` explicitly, or call "
        "`ops.amin`/`ops.amax`",
    ),
    report(
        "torch.fmin",
        "MindSpore 2.10 has no CPU kernel for fmin; write `ops.where(ops.isnan(b), a, "
        "ops.minimum(a, b))`",
    ),
    *(
        report(
            f"torch.utils.cpp_extension.{name}",
            "it builds C++/CUDA code against torch's headers and ABI, which MindSpore cannot "
            "load; write the operator as `mindspore.ops.Custom(func, out_shape, out_dtype, "
            "func_type='aot' or 'pyfunc')` and build it with MindSpore's own toolchain",
            kind=kind,
        )
        for name, kind in (
            ("CppExtension", "function"),
            ("CUDAExtension", "function"),
            ("BuildExtension", "class"),
            ("BuildExtension.with_options", "function"),
            ("load", "function"),
            ("load_inline", "function"),
            ("include_paths", "function"),
            ("library_paths", "function"),
        )
    ),
    *(
        report(
            f"{module}.{name}",
            "torch's profiler records torch's operators and writes torch's trace format; "
            "profile MindSpore with `mindspore.Profiler(output_path=...)` (its `.analyse()` "
            "writes the timeline), started before and stopped after the code to measure",
            kind="class",
        )
        for module in ("torch.autograd.profiler", "torch.profiler")
        for name in ("profile", "record_function")
    ),
    *(
        report(
            name,
            "MindSpore keeps what its backward pass needs itself, with no hook on the tensors "
            "it saves: drop the block where unpacking gives back what was packed, and for "
            "memory use `cell.recompute()` (or `mindspore.recompute`) instead of offloading",
            kind="class",
        )
        for name in (
            "torch.autograd.graph.saved_tensors_hooks",
            "torch.autograd.graph.save_on_cpu",
        )
    ),
)
