"""Every translatable API mapping, run on real torch and on real MindSpore with the mapped arguments.

The MindSpore call is built by the same ``translate_call`` the TM4xx rule uses, from the same NumPy
inputs, and the results are compared with rtol 1e-4 / atol 1e-5 (shapes and dtype kinds always).
Each call also runs with only its first argument (so defaults that differ show) and with its other
arguments by name (so keyword renames show); in-place methods must change their receiver as torch's
do; layers copy torch's parameters across by name and compare outputs (and statistics in train mode).
"""

from __future__ import annotations

import ast
import dataclasses
import importlib
import math
from typing import Any

import numpy as np
import pytest
from torch2ms.rules.api import ALL_MAPPINGS
from torch2ms.rules.api.samples import build, convert, rng_for
from torch2ms.rules.api.spec import (
    ApiMapping,
    CallTranslation,
    Untranslatable,
    translate_call,
)

RTOL, ATOL = 1e-4, 1e-5
VERIFIED = [m for m in ALL_MAPPINGS if m.translatable and "cpu" in m.targets]


def resolve(path: str) -> Any:
    parts = path.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for part in parts[cut:]:
            obj = getattr(obj, part)
        return obj
    raise ImportError(path)


def literal(value: Any) -> Any:
    if value is None or isinstance(value, (bool, int, float, str)):
        return repr(value)
    if isinstance(value, (tuple, list)) and all(
        v is None or isinstance(v, (bool, int, float, str)) for v in value
    ):
        return repr(value)
    return None


def transform(name: str, value: Any) -> Any:
    if name == "one_minus":
        return 1 - value
    if name == "int_to_tuple":
        return (value,) if isinstance(value, int) else value
    if name == "list_to_tuple":
        return tuple(value) if isinstance(value, list) else value
    if name == "none_all_axes":
        return () if value is None else value
    if name == "bool_to_int":
        return int(value)
    if name == "as_float":
        return float(value)
    if name == "nonzero":
        return value != 0
    if name == "written_dtype":
        if value is None:
            raise Untranslatable("dtype None")
        return value
    if name == "is_tanh":
        return value == "tanh"
    if name == "as_tuple":
        if isinstance(value, (tuple, list)):
            if len(value) != 1:
                raise Untranslatable("normalized_shape of more than one dim")
            return tuple(value)
        return (value,)
    if name == "pad_each_side":
        if isinstance(value, (tuple, list)):
            return tuple(v for v in value for _ in range(2))
        return value
    raise KeyError(name)


def default(source: str) -> Any:
    if source.startswith("mindspore."):
        return resolve(source)
    return ast.literal_eval(source)


def translate(mapping: ApiMapping, args: Any, kwargs: dict) -> CallTranslation:
    result = translate_call(
        mapping, list(args), kwargs, literal, transform, default, tuple
    )
    assert isinstance(result, CallTranslation), result
    return result


def to_numpy(value: Any, torch: Any, ms: Any) -> list:
    """Flatten an output into a list of arrays."""
    if isinstance(value, torch.Tensor):
        return [value.detach().resolve_conj().resolve_neg().numpy()]
    if isinstance(value, ms.Tensor):
        return [value.asnumpy()]
    if isinstance(value, (tuple, list)):
        return [leaf for item in value for leaf in to_numpy(item, torch, ms)]
    if isinstance(value, torch.Size):
        return [np.asarray(tuple(value))]
    return [np.asarray(value)]


def compare(mapping: ApiMapping, expected: list, actual: list) -> None:
    assert len(expected) == len(actual), f"{len(expected)} outputs vs {len(actual)}"
    for index, (want, got) in enumerate(zip(expected, actual)):
        assert want.shape == got.shape, (
            f"output {index}: shape {want.shape} vs {got.shape}"
        )
        if want.dtype != got.dtype:
            assert want.dtype.kind == got.dtype.kind or {
                want.dtype.kind,
                got.dtype.kind,
            } <= {"i", "u"}, f"output {index}: dtype {want.dtype} vs {got.dtype}"
            assert "dtype" in mapping.note, (
                f"output {index}: dtype {want.dtype} vs {got.dtype} not noted"
            )
        if mapping.check in ("values", "train"):
            np.testing.assert_allclose(
                got.astype(np.float64) if got.dtype.kind != "c" else got,
                want.astype(np.float64) if want.dtype.kind != "c" else want,
                rtol=RTOL,
                atol=ATOL,
                err_msg=f"output {index}",
            )


def frameworks_inputs(
    mapping: ApiMapping, specs: Any, torch: Any, ms: Any, rng: Any
) -> tuple:
    built = build(specs, rng)
    torch_dtype = lambda name: getattr(torch, name)
    ms_dtype = lambda name: getattr(ms, name)
    return (
        convert(built, torch.from_numpy, torch_dtype),
        convert(built, ms.Tensor, ms_dtype),
    )


def run_call(mapping: ApiMapping, torch: Any, ms: Any) -> None:
    rng = rng_for(mapping.torch)
    (t_args, t_kwargs), (m_args, m_kwargs) = _pair(mapping, torch, ms, rng)
    if mapping.form == "initializer":
        run_initializer(mapping, torch, ms, (t_args, t_kwargs), (m_args, m_kwargs))
        return
    call_both(mapping, torch, ms, t_args, t_kwargs, m_args, m_kwargs)
    # The same call with only its first argument: checks the defaults that differ.
    if len(t_args) > 1 or t_kwargs:
        try:
            first, again = (
                call_torch(mapping, trial(t_args[:1]), {}) for _ in range(2)
            )
        except (TypeError, RuntimeError, ValueError):
            pass
        else:
            if translates(mapping, m_args[:1]):
                same = all(
                    np.array_equal(a, b)
                    for a, b in zip(
                        to_numpy(first, torch, ms), to_numpy(again, torch, ms)
                    )
                )
                call_both(
                    mapping, torch, ms, t_args[:1], {}, m_args[:1], {}, values=same
                )
    # The same call with the optional arguments by name: checks the keyword renames.
    keyed = by_keyword(mapping, len(t_args))
    if keyed:
        t_named = {name: t_args[i] for i, name in keyed}
        m_named = {name: m_args[i] for i, name in keyed}
        cut = keyed[0][0]
        try:
            call_torch(mapping, trial(t_args[:cut]), {**t_kwargs, **t_named})
        except TypeError:
            return  # torch takes them only by position
        call_both(
            mapping,
            torch,
            ms,
            t_args[:cut],
            {**t_kwargs, **t_named},
            m_args[:cut],
            {**m_kwargs, **m_named},
        )


def trial(args: Any) -> list:
    """Arguments for a probing call: the receiver copied, so that in-place methods leave it alone."""
    args = list(args)
    if args and hasattr(args[0], "clone"):
        args[0] = args[0].clone()
    return args


def by_keyword(mapping: ApiMapping, count: int) -> list[tuple[int, str]]:
    """(index, torch name) of the positional sample arguments after the first tensor argument."""
    params = list(mapping.params)
    first = 1
    named = []
    for index in range(first, min(count, len(params))):
        if params[index].startswith("*"):
            return []
        named.append((index, params[index]))
    return named


def call_torch(mapping: ApiMapping, args: Any, kwargs: dict) -> Any:
    if mapping.kind == "method":
        return getattr(args[0], mapping.torch.rsplit(".", 1)[1])(*args[1:], **kwargs)
    return resolve(mapping.torch)(*args, **kwargs)


def translates(mapping: ApiMapping, args: Any) -> bool:
    """Whether the rule would rewrite this call (it refuses, for instance, torch.max without dim)."""
    return isinstance(
        translate_call(mapping, list(args), {}, literal, transform, default, tuple),
        CallTranslation,
    )


def call_both(
    mapping: ApiMapping,
    torch: Any,
    ms: Any,
    t_args,
    t_kwargs,
    m_args,
    m_kwargs,
    values=True,
) -> None:
    expected = call_torch(mapping, t_args, t_kwargs)
    call = translate(mapping, m_args, m_kwargs)
    ms_leaf = call.mindspore.rsplit(".", 1)[1]
    if mapping.kind == "method" and call.mindspore.startswith("mindspore.Tensor."):
        receiver, rest = call.args[0], call.args[1:]
        if mapping.form == "assign":
            actual = ms.ops.assign(
                receiver, getattr(receiver, ms_leaf)(*rest, **call.kwargs)
            )
        elif mapping.form == "attribute":
            actual = getattr(receiver, ms_leaf)
            index = rest[0] if rest else next(iter(call.kwargs.values()), None)
            actual = actual if index is None else actual[index]
        else:
            actual = getattr(receiver, ms_leaf)(*rest, **call.kwargs)
    else:
        actual = resolve(call.mindspore)(*call.args, **call.kwargs)
        if mapping.form == "assign":
            actual = ms.ops.assign(call.args[0], actual)
    if mapping.result_dtype:
        # The rule casts the result (`.astype(mindspore.int64)`); so does the check.
        actual = actual.astype(getattr(ms, mapping.result_dtype))
    expected, actual = to_numpy(expected, torch, ms), to_numpy(actual, torch, ms)
    if mapping.torch.endswith("_"):
        # An in-place method must change its receiver as torch's does.
        expected += to_numpy(t_args[0], torch, ms)
        actual += to_numpy(call.args[0], torch, ms)
    if not values:
        mapping = dataclasses.replace(
            mapping, check="shape"
        )  # torch's own result varies (dropout)
    compare(mapping, expected, actual)


def run_initializer(
    mapping: ApiMapping, torch: Any, ms: Any, torch_call: tuple, ms_call: tuple
) -> None:
    (t_args, t_kwargs), (m_args, m_kwargs) = torch_call, ms_call
    filled = t_args[0]
    resolve(mapping.torch)(*t_args, **t_kwargs)
    call = translate(mapping, m_args, m_kwargs)
    initializer = resolve("mindspore.common.initializer.initializer")
    shape = tuple(m_args[0].shape)
    actual = initializer(
        resolve(call.mindspore)(*call.args, **call.kwargs), shape, ms.float32
    ).init_data()
    compare(mapping, to_numpy(filled, torch, ms), to_numpy(actual, torch, ms))


def _pair(mapping: ApiMapping, torch: Any, ms: Any, rng: Any) -> tuple:
    t_args, m_args = frameworks_inputs(mapping, tuple(mapping.sample), torch, ms, rng)
    t_kwargs, m_kwargs = frameworks_inputs(
        mapping, dict(mapping.sample_kwargs), torch, ms, rng
    )
    return (t_args, t_kwargs), (m_args, m_kwargs)


def copy_parameters(mapping: ApiMapping, module: Any, cell: Any, ms: Any) -> None:
    state = {
        name: value.detach().numpy() for name, value in module.state_dict().items()
    }
    targets = dict(cell.parameters_and_names())
    filled = set()
    for name, value in state.items():
        if name.endswith("num_batches_tracked"):
            continue
        prefix, _, last = name.rpartition(".")
        if mapping.param_names.get(last) == "":
            continue
        ms_name = ".".join(filter(None, [prefix, mapping.param_names.get(last, last)]))
        matches = [
            key for key in targets if key == ms_name or key.endswith("." + ms_name)
        ]
        assert len(matches) == 1, (
            f"no single MindSpore parameter for {name}: {sorted(targets)}"
        )
        target = targets[matches[0]]
        if (
            tuple(target.shape) != value.shape
            and "layout" in mapping.note
            and target.size == value.size
        ):
            value = value.reshape(tuple(target.shape))
        assert tuple(target.shape) == value.shape, (
            f"{name}: {tuple(target.shape)} vs {value.shape}"
        )
        target.set_data(ms.Tensor(value.copy()))
        filled.add(matches[0])
    unused = {
        key for key in targets if key.endswith(("moving_mean", "moving_variance"))
    }
    if any(name.endswith("running_mean") for name in state):
        unused = set()
    assert filled | unused == set(targets), (
        f"MindSpore parameters left at their init: {set(targets) - filled}"
    )


def run_layer(mapping: ApiMapping, torch: Any, ms: Any) -> None:
    rng = rng_for(mapping.torch)
    t_init, m_init = frameworks_inputs(mapping, tuple(mapping.init), torch, ms, rng)
    t_init_kw, m_init_kw = frameworks_inputs(
        mapping, dict(mapping.init_kwargs), torch, ms, rng
    )
    forward = _pair(mapping, torch, ms, rng)
    run_layer_with(
        mapping, torch, ms, (t_init, t_init_kw), (m_init, m_init_kw), forward
    )
    # The fewest leading arguments torch accepts: checks the constructor defaults that differ.
    for count in range(len(t_init) + (1 if t_init_kw else 0)):
        if count >= len(t_init) and not t_init_kw:
            break
        try:
            resolve(mapping.torch)(*t_init[:count])(*forward[0][0], **forward[0][1])
        except (TypeError, ValueError, RuntimeError):
            continue
        if translates(mapping, m_init[:count]):
            run_layer_with(
                mapping, torch, ms, (t_init[:count], {}), (m_init[:count], {}), forward
            )
        break
    # The constructor arguments by name: checks the keyword renames.
    keyed = [
        (i, name)
        for i, name in enumerate(mapping.params[: len(t_init)])
        if not name.startswith("*")
    ]
    if keyed and len(keyed) == len(t_init):
        t_named = {**t_init_kw, **{name: t_init[i] for i, name in keyed}}
        m_named = {**m_init_kw, **{name: m_init[i] for i, name in keyed}}
        try:
            resolve(mapping.torch)(**t_named)
        except TypeError:
            return
        run_layer_with(mapping, torch, ms, ((), t_named), ((), m_named), forward)


def run_layer_with(
    mapping: ApiMapping, torch: Any, ms: Any, torch_init: tuple, ms_init: tuple, forward
) -> None:
    (t_args, t_kwargs), (m_args, m_kwargs) = forward
    module = resolve(mapping.torch)(*torch_init[0], **torch_init[1])
    call = translate(mapping, list(ms_init[0]), dict(ms_init[1]))
    cell = resolve(call.mindspore)(*call.args, **call.kwargs)
    copy_parameters(mapping, module, cell, ms)
    training = mapping.check == "train"
    module.train(training)
    cell.set_train(training)
    expected = to_numpy(module(*t_args, **t_kwargs), torch, ms)
    actual = to_numpy(cell(*m_args, **m_kwargs), torch, ms)
    if training:
        names = {v: k for k, v in mapping.param_names.items()}
        for name, value in cell.parameters_and_names():
            torch_name = names.get(name.rpartition(".")[2], name.rpartition(".")[2])
            expected.append(module.state_dict()[torch_name].detach().numpy())
            actual.append(value.asnumpy())
    compare(mapping, expected, actual)


def run_optimizer(mapping: ApiMapping, torch: Any, ms: Any) -> None:
    rng = rng_for(mapping.torch)
    start = rng.standard_normal((3, 4)).astype(np.float32)
    grads = [rng.standard_normal((3, 4)).astype(np.float32) for _ in range(3)]
    t_init, m_init = frameworks_inputs(mapping, tuple(mapping.init), torch, ms, rng)
    t_init_kw, m_init_kw = frameworks_inputs(
        mapping, dict(mapping.init_kwargs), torch, ms, rng
    )
    weight = torch.nn.Parameter(torch.from_numpy(start.copy()))
    optimizer = resolve(mapping.torch)([weight], *t_init, **t_init_kw)
    parameter = ms.Parameter(ms.Tensor(start.copy()), name="w")
    call = translate(mapping, [[parameter], *m_init], m_init_kw)
    ms_optimizer = resolve(call.mindspore)(*call.args, **call.kwargs)
    expected, actual = [], []
    for grad in grads:
        weight.grad = torch.from_numpy(grad.copy())
        optimizer.step()
        ms_optimizer((ms.Tensor(grad.copy()),))
        expected.append(weight.detach().numpy().copy())
        actual.append(parameter.asnumpy().copy())
    compare(mapping, expected, actual)


def run_scheduler(mapping: ApiMapping, torch: Any, ms: Any) -> None:
    rng = rng_for(mapping.torch)
    t_init, m_init = frameworks_inputs(mapping, tuple(mapping.init), torch, ms, rng)
    t_init_kw, m_init_kw = frameworks_inputs(
        mapping, dict(mapping.init_kwargs), torch, ms, rng
    )
    weight = torch.nn.Parameter(torch.zeros(2))
    optimizer = torch.optim.SGD([weight], lr=0.1)
    scheduler = resolve(mapping.torch)(optimizer, *t_init, **t_init_kw)
    ms_optim = resolve("mindspore.experimental.optim")
    parameter = ms.Parameter(ms.Tensor(np.zeros(2, np.float32)), name="w")
    ms_optimizer = ms_optim.SGD([parameter], lr=0.1)
    call = translate(mapping, [ms_optimizer, *m_init], m_init_kw)
    ms_scheduler = resolve(call.mindspore)(*call.args, **call.kwargs)
    metric = [1.0, 1.0, 1.0, 1.0, 0.5, 0.5, 0.5, 0.5]
    expected, actual = [], []
    for step in range(8):
        optimizer.step()
        ms_optimizer((ms.Tensor(np.ones(2, np.float32)),))
        if "ReduceLROnPlateau" in mapping.torch:
            scheduler.step(metric[step])
            ms_scheduler.step(ms.Tensor(metric[step]))
        else:
            scheduler.step()
            ms_scheduler.step()
        expected.append([float(v) for v in scheduler.get_last_lr()])
        actual.append([float(v) for v in ms_scheduler.get_last_lr()])
    compare(
        mapping, [np.asarray(expected, np.float32)], [np.asarray(actual, np.float32)]
    )


def run_name(mapping: ApiMapping, torch: Any, ms: Any) -> None:
    torch_value, ms_value = resolve(mapping.torch), resolve(mapping.mindspore)
    if isinstance(torch_value, float):
        assert torch_value == ms_value or (
            math.isnan(torch_value) and math.isnan(ms_value)
        )
    if isinstance(torch_value, torch.dtype):
        canonical = lambda text: text.lower().replace("torch.", "").replace("_", "")
        assert canonical(str(torch_value)) == canonical(str(ms_value))


def run_eager_form(mapping: ApiMapping, torch: Any) -> None:
    """torch.jit forms that the converter replaces by what they do outside TorchScript."""
    torch_value = resolve(mapping.torch)
    if mapping.form == "constant" and mapping.mindspore.startswith("mindspore."):
        # A MindSpore name (a dtype): the same as what torch returns.
        canonical = lambda text: text.lower().replace("torch.", "")
        assert canonical(str(torch_value())) == canonical(
            str(resolve(mapping.mindspore))
        )
    elif mapping.form == "constant":
        assert torch_value() == ast.literal_eval(mapping.mindspore)
    elif mapping.form == "decorator":
        # At a module's top level, as decorators stand (torch.fx.wrap insists on it).
        scope = {"decorator": torch_value}
        exec(  # noqa: S102 - torch.fx.wrap must be called from module-level code
            "def double(value):\n    return value * 2\n\nplain = double\n"
            "double = decorator(double)\n",
            scope,
        )
        assert scope["double"] is scope["plain"] and scope["double"](21) == 42
    else:
        import typing

        assert (
            typing.get_origin(torch_value[int]) is typing.Final
            or torch_value is typing.Final
        )


def run_mapping(mapping: ApiMapping, torch: Any, ms: Any) -> None:
    if mapping.form in ("constant", "decorator", "annotation"):
        run_eager_form(mapping, torch)
    elif mapping.kind == "name":
        run_name(mapping, torch, ms)
    elif mapping.torch.startswith("torch.optim.lr_scheduler."):
        run_scheduler(mapping, torch, ms)
    elif mapping.torch.startswith("torch.optim."):
        run_optimizer(mapping, torch, ms)
    elif mapping.kind == "class":
        run_layer(mapping, torch, ms)
    else:
        run_call(mapping, torch, ms)


@pytest.mark.real
@pytest.mark.parametrize("mapping", VERIFIED, ids=[m.torch for m in VERIFIED])
def test_mapping_matches_torch(mapping: ApiMapping, fw) -> None:
    torch, ms = fw
    torch.manual_seed(0)
    run_mapping(mapping, torch, ms)


# Whole snippets through the converter: the original on torch, the conversion on MindSpore.
SNIPPETS = [
    "out = torch.sum(x * 2, dim=1, keepdim=True) + x.std(1, keepdim=True)",
    "out = F.softmax(x.view(4, 3).permute(1, 0), dim=-1).sum(dim=0)",
    "out = torch.flatten(x.unsqueeze(0)) + x.numel() + x.size(1) + x.dim()",
    "out = F.max_pool2d(x.reshape(1, 1, 3, 4), 2) + F.avg_pool2d(x.reshape(1, 1, 3, 4), 2)",
    "out = torch.var(x, 1, unbiased=False) + x.float().var(dim=0).sum()",
    "y = x.clone()\ny.mul_(2.0).add_(x, alpha=-0.5)\ny.clamp_(-1.0, 1.0)\nout = y",
    "out = F.leaky_relu(x) + F.gelu(x, approximate='tanh') + torch.where(x > 0, x, torch.zeros_like(x))",
    "layer = nn.Linear(4, 2)\nnn.init.constant_(layer.weight, 0.5)\nnn.init.zeros_(layer.bias)\nout = layer(x)",
    "norm = nn.LayerNorm(4, eps=1e-6)\nout = norm(x)",
    "out = torch.cat([x, x.flip(0)], dim=1).transpose(0, 1).contiguous().mean(dim=1)",
]


@pytest.mark.real
@pytest.mark.parametrize("snippet", SNIPPETS)
def test_converted_snippet_matches_torch(snippet: str, fw) -> None:
    from torch2ms.migrator.convert import convert_source

    torch, ms = fw
    head = "import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n"
    values = rng_for(snippet).standard_normal((3, 4)).astype(np.float32)
    original: dict = {"x": torch.from_numpy(values.copy())}
    exec(compile(head + snippet, "original", "exec"), original)  # noqa: S102 - the snippet is ours
    result = convert_source(head + snippet + "\n", "snippet.py")
    assert "torch" not in result.code, result.code
    converted: dict = {"x": ms.Tensor(values.copy())}
    exec(compile(result.code, "converted", "exec"), converted)  # noqa: S102 - its conversion
    compare(
        ApiMapping("snippet", "snippet"),
        to_numpy(original["out"], torch, ms),
        to_numpy(converted["out"], torch, ms),
    )


def test_enough_verified_mappings() -> None:
    assert len(VERIFIED) >= 500
