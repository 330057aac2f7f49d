"""Stand-ins for torch-only plumbing whose MindSpore meaning is "nothing to do".

Each one says what it does and why that keeps the program's meaning on MindSpore. Queries about
devices answer from MindSpore's context (the device a MindSpore process runs on); process groups
and collectives are in distributed.py.
"""

import hashlib
import os
import re
import shutil
import urllib.parse
from urllib.request import Request, urlopen

import mindspore
import numpy


def is_scripting():
    """`torch.jit.is_scripting()`: MindSpore never runs TorchScript, so this is always False."""
    return False


def jit_script(obj, optimize=None, _frames_up=0, _rcb=None, example_inputs=None):
    """`torch.jit.script(obj)`: returns `obj` itself.

    A scripted module or function computes what the Python one computes; TorchScript only changes
    how torch runs it. MindSpore compiles with `mindspore.jit` where the code is graph-compatible.
    """
    return obj


def jit_annotate(the_type, the_value):
    """`torch.jit.annotate(the_type, the_value)`: returns `the_value`; the type only informs
    TorchScript."""
    return the_value


def compile(model=None, **options):
    """`torch.compile(model, ...)`: returns `model` itself (or, without one, a decorator that does).

    Compilation changes how torch runs the model, not what it computes; the options (backend, mode,
    fullgraph, dynamic) only steer the compiler. MindSpore compiles with `mindspore.jit`.
    """
    if model is None:
        return lambda fn: fn
    return model


def is_compiling():
    """`torch.compiler.is_compiling()`: False, since no torch compiler traces MindSpore code."""
    return False


def is_exporting():
    """`torch.compiler.is_exporting()`: False, since torch.export never traces MindSpore code."""
    return False


def compiler_disable(fn=None, recursive=True, *, reason=None):
    """`@torch.compiler.disable` (with or without arguments): returns the function itself.

    It only keeps torch's compiler out of a function; no torch compiler traces MindSpore code.
    """
    if fn is None:
        return lambda inner: inner
    return fn


def compiler_hint(fn):
    """`torch.compiler.allow_in_graph(fn)`, `torch._dynamo.assume_constant_result(fn)`: returns
    `fn`; they only steer torch's compiler, which never traces MindSpore code."""
    return fn


def mark_static_address(tensor, guard=True):
    """`torch._dynamo.mark_static_address(t)`: does nothing; it tells torch's compiler that a
    tensor keeps its address (for CUDA graphs), which no MindSpore code needs."""
    return None


class _CustomOp:
    """What `torch.library.custom_op` makes of a function: the function itself, called as it is,
    with the registration methods torch's operator objects have (they do nothing here)."""

    def __init__(self, function):
        self._function = function
        self.__name__ = getattr(function, "__name__", "custom_op")
        self.__doc__ = getattr(function, "__doc__", None)
        self.__wrapped__ = function

    def __call__(self, *args, **kwargs):
        return self._function(*args, **kwargs)

    def register_fake(self, function):
        return function

    def register_autograd(self, backward, *, setup_context=None):
        return None

    def register_kernel(self, device_types, function=None):
        return (lambda inner: inner) if function is None else function


def custom_op(name, fn=None, *, mutates_args=None, device_types=None, schema=None):
    """`torch.library.custom_op(name, fn, ...)` (or as a decorator): the function, callable as
    before. It registers an operator in torch's dispatcher, which only `torch.ops` calls read,
    and those stay on torch."""
    if fn is None:
        return _CustomOp
    return _CustomOp(fn)


def library_register(op, *args, **kwargs):
    """`torch.library.register_fake/register_autograd/register_kernel/impl(...)`: registers a
    kernel in torch's dispatcher; does nothing here. Used as a decorator, it returns the function
    it decorates."""
    function = next((a for a in args if callable(a)), None)
    return (lambda inner: inner) if function is None else function


def fx_wrap(fn_or_name):
    """`torch.fx.wrap(fn_or_name)`: returns its argument, as torch does.

    It only marks a function for torch.fx symbolic tracing, which never traces MindSpore code.
    """
    return fn_or_name


def checkpoint(
    function,
    *args,
    use_reentrant=None,
    context_fn=None,
    determinism_check="default",
    debug=False,
    early_stop=True,
    preserve_rng_state=True,
    **kwargs,
):
    """`torch.utils.checkpoint.checkpoint(function, *args)`: calls `function(*args, **kwargs)`.
    `preserve_rng_state` is torch's own option (it replays the random state in the recomputation),
    never passed on to `function`, as torch takes it.

    Activation checkpointing recomputes the forward pass during the backward pass to save memory;
    the values and gradients are those of the plain call. The memory trade on MindSpore is
    `cell.recompute()` on the sub-cell.
    """
    return function(*args, **kwargs)


def checkpoint_sequential(functions, segments, input, use_reentrant=None, **kwargs):
    """`torch.utils.checkpoint.checkpoint_sequential(functions, segments, input)`: runs the
    functions (or the children of a sequential cell) one after another on `input`.

    Like `checkpoint`, the segments only decide what is recomputed in the backward pass.
    """
    if isinstance(functions, mindspore.nn.SequentialCell):
        functions = list(functions.cells())
    for function in functions:
        input = function(input)
    return input


def load_state_dict_from_url(
    url,
    model_dir=None,
    map_location=None,
    progress=True,
    check_hash=False,
    file_name=None,
    weights_only=False,
):
    """`torch.hub.load_state_dict_from_url(url)`: raises, naming the URL.

    The file at the URL is a torch checkpoint, which MindSpore cannot read. Download it, convert it
    with `torch2ms weights IN.pth OUT.ckpt`, and load the result with `mindspore.load_checkpoint`.
    """
    raise RuntimeError(
        f"{url} is a PyTorch checkpoint: download it, convert it with "
        "`torch2ms weights IN.pth OUT.ckpt` and load it with mindspore.load_checkpoint"
    )


def load_hub_model(repo_or_dir, model, *args, **kwargs):
    """`torch.hub.load(repo_or_dir, model)`: raises, naming the repository.

    torch.hub builds a torch model from the repository's code; convert that code with torch2ms and
    its weights with `torch2ms weights`.
    """
    raise RuntimeError(
        f"torch.hub.load({repo_or_dir!r}, {model!r}) builds a PyTorch model: convert the "
        "repository's code with torch2ms and its weights with `torch2ms weights IN.pth OUT.ckpt`"
    )


def download_url_to_file(url, dst, hash_prefix=None, progress=True):
    """`torch.hub.download_url_to_file(url, dst, hash_prefix)`: downloads `url` to `dst` with the
    standard library, through a partial file moved into place, and raises RuntimeError when the
    file's SHA-256 does not start with `hash_prefix`, as torch does. No progress bar is drawn.
    """
    dst = os.path.expanduser(dst)
    partial = dst + ".partial"
    digest = hashlib.sha256()
    try:
        request = Request(url, headers={"User-Agent": "torch.hub"})
        with urlopen(request) as source, open(partial, "wb") as target:
            for block in iter(lambda: source.read(1 << 16), b""):
                target.write(block)
                digest.update(block)
        found = digest.hexdigest()
        if hash_prefix is not None and found[: len(hash_prefix)] != hash_prefix:
            raise RuntimeError(
                f'invalid hash value (expected "{hash_prefix}", got "{found}")'
            )
        shutil.move(partial, dst)
    finally:
        if os.path.exists(partial):
            os.remove(partial)


def _torch_home():
    """`torch.hub._get_torch_home()`: `$TORCH_HOME`, else `$XDG_CACHE_HOME/torch` (`~/.cache`)."""
    cache = os.getenv("XDG_CACHE_HOME", os.path.join("~", ".cache"))
    return os.path.expanduser(os.getenv("TORCH_HOME", os.path.join(cache, "torch")))


def hub_get_dir():
    """`torch.hub.get_dir()`: the directory torch.hub caches into, computed as torch computes it
    (`$TORCH_HOME/hub`); it is only a path, so it needs no torch."""
    return os.path.join(_torch_home(), "hub")


# `torch.hub.HASH_REGEX`: the hash prefix in a checkpoint file name, `name-<hex>.pth`.
HASH_REGEX = re.compile(r"-([a-f0-9]*)\.")

# `torch.hub.urlparse` is the standard library's `urllib.parse.urlparse`.
hub_urlparse = urllib.parse.urlparse

# `torch.__version__`: the torch release whose behaviour the converted code reproduces (the
# conversion's mappings are checked against it), so a version test takes the branch written for
# that release, whose torch calls the conversion mapped. The local label says no torch runs here.
torch_version = "2.13.0+mindspore"


class device:
    """`torch.device(type, index)`: the name of a device, kept as data.

    MindSpore places work by its context (`mindspore.set_device`), not per tensor, so a device
    object only names a device: it compares, prints and reports `.type`/`.index` as torch's does.
    """

    def __init__(self, type, index=None):
        if isinstance(type, device):
            type, index = type.type, type.index
        elif isinstance(type, int):
            # An index alone names a device of the current accelerator, as in torch.
            accelerator = current_accelerator()
            if accelerator is None:
                raise RuntimeError(
                    "Cannot access accelerator device when none is available."
                )
            type, index = accelerator.type, type
        elif ":" in type:
            type, _, number = type.partition(":")
            index = int(number)
        self.type = type
        self.index = index

    def __eq__(self, other):
        return isinstance(other, device) and (self.type, self.index) == (
            other.type,
            other.index,
        )

    def __hash__(self):
        return hash((self.type, self.index))

    def __str__(self):
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __repr__(self):
        if self.index is None:
            return f"device(type={self.type!r})"
        return f"device(type={self.type!r}, index={self.index})"


# MindSpore's device names (a tensor's `.device`, the context's target) -> torch's device types.
_TORCH_DEVICE_TYPES = {"CPU": "cpu", "GPU": "cuda", "Ascend": "npu"}


def device_type(device):
    """`device.type` of a device read from a tensor (`x.device.type`): torch's device type name.

    A MindSpore tensor names its device with a string ('CPU', 'GPU', 'Ascend', perhaps with an
    ':index'), which has no `.type`: it gives torch's name for that device ('cpu', 'cuda', 'npu').
    Anything else (a companion `device`) gives its own `.type`."""
    if isinstance(device, str):
        name = device.partition(":")[0]
        return _TORCH_DEVICE_TYPES.get(name, name)
    return device.type


def _device_target():
    return mindspore.get_context("device_target")


def cuda_is_available():
    """`torch.cuda.is_available()`: whether MindSpore runs on a GPU (its context's device target)."""
    return _device_target() == "GPU"


def npu_is_available():
    """`torch.npu.is_available()`: whether MindSpore runs on Ascend (its context's device target)."""
    return _device_target() == "Ascend"


def mps_is_available():
    """`torch.backends.mps.is_available()`: False, since MindSpore has no Metal backend."""
    return False


def accelerator_is_available():
    """`torch.accelerator.is_available()`: whether MindSpore's context runs on an accelerator."""
    return _device_target() != "CPU"


def current_accelerator(check_available=False):
    """`torch.accelerator.current_accelerator()`: the accelerator MindSpore's context runs on, as a
    `device` ('cuda' for GPU, 'npu' for Ascend), or None on the CPU, as torch returns."""
    names = {"GPU": "cuda", "Ascend": "npu"}
    target = _device_target()
    return device(names[target]) if target in names else None


class _DeviceModule:
    """`torch.cuda` / `torch.npu` named as a value (`device_mod = torch.cuda`, then
    `device_mod.Stream(...)`): `is_available()` answers from MindSpore's context, as
    `cuda_is_available`/`npu_is_available` do. Anything else (streams, `synchronize`) is reached
    only on a branch that runs where the device is available; it raises NotImplementedError
    naming itself, since device streams are not carried over (MindSpore's are
    `mindspore.runtime.Stream`, `StreamCtx` and `current_stream`)."""

    def __init__(self, name, target):
        self._name = name
        self._target = target

    def is_available(self):
        return _device_target() == self._target

    def __getattr__(self, attribute):
        if attribute.startswith("__"):
            raise AttributeError(attribute)
        raise NotImplementedError(
            f"torch.{self._name}.{attribute} is not carried over: it runs only where "
            f"torch.{self._name}.is_available(), and device streams have no certain MindSpore "
            "form here; write mindspore.runtime.Stream / StreamCtx / current_stream by hand"
        )

    def __repr__(self):
        return f"<stand-in for torch.{self._name}>"


# `torch.cuda` as a value: MindSpore's GPU target.
cuda = _DeviceModule("cuda", "GPU")
# `torch.npu` (torch_npu's Ascend module) as a value: MindSpore's Ascend target.
npu = _DeviceModule("npu", "Ascend")


# The 8-bit floats numpy lacks: bits, eps, max, smallest normal, resolution (torch's values).
_FLOAT8 = {
    mindspore.float8_e4m3fn: ("float8_e4m3fn", 8, 0.125, 448.0, 2.0**-6, 1.0),
    mindspore.float8_e5m2: ("float8_e5m2", 8, 0.25, 57344.0, 2.0**-14, 1.0),
}


class finfo:
    """`torch.finfo(dtype)`: the limits of a MindSpore floating dtype, from numpy's finfo.

    bfloat16, which numpy lacks, is float32 with 7 fraction bits: float32's range and exponent
    limits with an epsilon of 2**-7.
    """

    def __init__(self, type=None):
        type = mindspore.float32 if type is None else type
        numpy_types = {
            mindspore.float16: numpy.float16,
            mindspore.float32: numpy.float32,
            mindspore.float64: numpy.float64,
            mindspore.bfloat16: numpy.float32,
        }
        if type in _FLOAT8:
            (
                self.dtype,
                self.bits,
                self.eps,
                self.max,
                self.tiny,
                self.resolution,
            ) = _FLOAT8[type]
            self.min = -self.max
            self.smallest_normal = self.tiny
            return
        if type not in numpy_types:
            raise TypeError(f"finfo takes a floating dtype, not {type}")
        info = numpy.finfo(numpy_types[type])
        self.dtype = str(type).lower()
        self.bits = info.bits
        self.eps = float(info.eps)
        self.max = float(info.max)
        self.min = float(info.min)
        self.tiny = float(info.tiny)
        self.smallest_normal = self.tiny
        self.resolution = float(10.0 ** -numpy.floor(-numpy.log10(self.eps)))
        if type == mindspore.bfloat16:
            self.bits = 16
            self.eps = 2.0**-7
            self.max = float((2 - 2.0**-7) * 2.0**127)
            self.min = -self.max
            self.resolution = float(10.0 ** -numpy.floor(-numpy.log10(self.eps)))


class iinfo:
    """`torch.iinfo(dtype)`: the limits of a MindSpore integer dtype, from numpy's iinfo:
    `bits`, `min`, `max` and `dtype`."""

    def __init__(self, type):
        numpy_types = {
            mindspore.int8: numpy.int8,
            mindspore.int16: numpy.int16,
            mindspore.int32: numpy.int32,
            mindspore.int64: numpy.int64,
            mindspore.uint8: numpy.uint8,
            mindspore.uint16: numpy.uint16,
            mindspore.uint32: numpy.uint32,
            mindspore.uint64: numpy.uint64,
        }
        if type not in numpy_types:
            raise TypeError(f"iinfo takes an integer dtype, not {type}")
        info = numpy.iinfo(numpy_types[type])
        self.bits = info.bits
        self.min = int(info.min)
        self.max = int(info.max)
        self.dtype = str(type).lower()


def autocast(device_type=None, dtype=None, enabled=True, cache_enabled=None):
    """`torch.autocast(device_type, enabled=False)`: a region where torch runs in full precision.

    MindSpore computes in the dtypes of its inputs unless mixed precision is set on the network, so
    such a region needs nothing. The converter uses this only where torch itself computes in full
    precision: `enabled=False`, or a CUDA autocast on the CPU target, where torch disables it; it
    drops a `device_type` read from a tensor (`x.device.type`), which this ignores.
    """
    return _NoAutocast()


def cuda_autocast(enabled=True, dtype=None, cache_enabled=True):
    """`torch.cuda.amp.autocast(...)`: nothing on the CPU target, where torch disables CUDA
    autocast; the region runs in full precision, as MindSpore runs it."""
    return _NoAutocast()


def cpu_autocast(enabled=True, dtype=None, cache_enabled=True):
    """`torch.cpu.amp.autocast(enabled=False)`: a region torch runs in full precision, as
    MindSpore runs it."""
    return _NoAutocast()


class _NoAutocast:
    """A context manager and decorator that does nothing."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def __call__(self, fn):
        return fn


def is_autocast_enabled(device_type=None):
    """`torch.is_autocast_enabled()`: False, since a converted program never autocasts (autocast
    regions are either full precision or reported)."""
    return False


def add_module(parent, name, module):
    """`module.add_module(name, child)` / `register_module`: registers `child` as a named sub-cell
    through `setattr`. MindSpore names a Parameter by its path when its cell is attached, so a
    child added to a cell that is already attached gets the parent's prefix here (read off the
    parent's Parameters). A SequentialCell runs the cells of its `cell_list`, which is brought up
    to date as torch's Sequential would run them."""
    setattr(parent, name, module)
    prefix = _parameter_prefix(parent, name)
    if prefix:
        module.update_parameters_name(prefix + name + ".")
    if hasattr(parent, "cell_list"):
        parent.cell_list = list(parent._cells.values())
        if hasattr(parent, "_is_dynamic_name"):
            parent._is_dynamic_name.append(False)


def register_parameter(module, name, param):
    """`module.register_parameter(name, param)`: `param` registered under `name` (None leaves
    the name unset, as torch's None parameter)."""
    if "." in name:
        raise KeyError('parameter name can\'t contain "."')
    if param is None:
        object.__setattr__(module, name, None)
        return
    if not isinstance(param, mindspore.Parameter):
        raise TypeError(
            f"cannot assign '{type(param).__name__}' object to parameter '{name}' "
            "(torch.nn.Parameter or None required)"
        )
    module.insert_param_to_cell(name, param)


def _parameter_prefix(cell, skip):
    """The path prefix `cell`'s Parameters carry ("features." for `net.features`)."""
    for local, param in cell.parameters_and_names():
        if local.split(".")[0] != skip and param.name.endswith(local):
            return param.name[: len(param.name) - len(local)]
    return ""


def data_parallel(
    module, inputs, device_ids=None, output_device=None, dim=0, module_kwargs=None
):
    """`torch.nn.parallel.data_parallel(module, inputs, device_ids)`: `module(*inputs)` on the
    one device this process runs on.

    torch splits the batch along `dim` over `device_ids`, runs a replica of the module on each part
    and gathers the outputs: on one device that is the module's own call, which this is (with
    several devices, torch's BatchNorm layers see each part's statistics). A MindSpore process runs
    on the device of its context; data parallelism over devices is `msrun` with
    `mindspore.set_auto_parallel_context(parallel_mode='data_parallel')`."""
    if not isinstance(inputs, tuple):
        inputs = (inputs,) if inputs is not None else ()
    return module(*inputs, **(module_kwargs or {}))


def scalar(value):
    """A value formatted as a number (`'{:.2f}'.format(x)`): a one-element MindSpore tensor's
    number, anything else as it is.

    torch formats a 0-d tensor as its number; MindSpore's Tensor refuses every format spec. The
    converter writes this where the value may be a tensor or a Python number."""
    if isinstance(value, mindspore.Tensor) and value.size == 1:
        return value.item()
    return value
