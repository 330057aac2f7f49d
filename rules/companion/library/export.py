"""torch.onnx on MindSpore: `mindspore.onnx.export` takes torch's ONNX arguments (input and output
names, dynamic axes, initializers as inputs); the rest of torch's exporters has no MindSpore form.
"""

import enum
import inspect
import os
import shutil
import tempfile

import mindspore


class TrainingMode(enum.IntEnum):
    """`torch.onnx.TrainingMode`: the mode a model is exported in, with torch's values."""

    EVAL = 0
    PRESERVE = 1
    TRAINING = 2


class OperatorExportTypes(enum.IntEnum):
    """`torch.onnx.OperatorExportTypes`: how torch exports operators, with torch's values."""

    ONNX = 0
    ONNX_ATEN = 1
    ONNX_ATEN_FALLBACK = 2
    ONNX_FALLTHROUGH = 3


def onnx_export(
    model,
    args=(),
    f=None,
    *,
    kwargs=None,
    verbose=None,
    input_names=None,
    output_names=None,
    opset_version=None,
    dynamo=True,
    external_data=True,
    dynamic_shapes=None,
    custom_translation_table=None,
    report=False,
    optimize=True,
    verify=False,
    profile=False,
    dump_exported_program=False,
    artifacts_dir=".",
    export_params=True,
    keep_initializers_as_inputs=False,
    dynamic_axes=None,
    training=TrainingMode.EVAL,
    operator_export_type=OperatorExportTypes.ONNX,
    do_constant_folding=True,
    custom_opsets=None,
    export_modules_as_functions=False,
    autograd_inlining=True,
):
    """`torch.onnx.export(model, args, f, ...)`: writes the Cell's ONNX graph to `f` with
    `mindspore.onnx.export(model, *args, file_name=..., input_names, output_names, export_params,
    keep_initializers_as_inputs, dynamic_axes)`, in eval mode, as torch's default does.

    Translated: `args` (a tensor or a tuple of positional inputs), `f` (a path, written exactly
    there, or a binary file object), the names, `export_params`, `keep_initializers_as_inputs`,
    `dynamic_axes` and `dynamic_shapes` given as one `{axis: name}` dict per input (both make those
    input axes dynamic; MindSpore keeps the outputs' declared shapes those of the example, while
    their values follow the inputs). Accepted because they only choose how torch builds or prints
    the same graph: `dynamo`, `verbose`, `optimize`, `do_constant_folding`, `autograd_inlining`,
    `external_data` (MindSpore moves weights to side files only past the 2GB protobuf limit), and
    `operator_export_type=ONNX_ATEN_FALLBACK` (a graph MindSpore exports has no op to fall back
    for). Raising NotImplementedError, naming the argument: `opset_version` other than 11 (MindSpore
    writes opset 11), `training` other than EVAL (or PRESERVE on a model in eval mode), keyword
    inputs, `f=None` (torch's ONNXProgram), the other operator export types, custom translation
    tables and opsets, functions per module, and torch's report/verify/profile/dump aids.
    Operators MindSpore cannot export raise MindSpore's own error.
    """
    refused = {
        "kwargs": kwargs is not None,
        "f=None (an ONNXProgram)": f is None,
        "opset_version": opset_version not in (None, 11),
        "custom_translation_table": custom_translation_table is not None,
        "custom_opsets": bool(custom_opsets),
        "export_modules_as_functions": export_modules_as_functions is not False,
        "report": report,
        "verify": verify,
        "profile": profile,
        "dump_exported_program": dump_exported_program,
        "training": training == TrainingMode.TRAINING
        or (training == TrainingMode.PRESERVE and model.training),
        "operator_export_type": operator_export_type
        in (OperatorExportTypes.ONNX_ATEN, OperatorExportTypes.ONNX_FALLTHROUGH),
    }
    named = [name for name, found in refused.items() if found]
    if named:
        raise NotImplementedError(
            f"torch.onnx.export({', '.join(named)}) has no mindspore.onnx.export form "
            "(it writes opset 11 in eval mode)"
        )
    if isinstance(args, mindspore.Tensor):
        args = (args,)
    args = tuple(args)
    if args and isinstance(args[-1], dict):
        raise NotImplementedError("torch.onnx.export: keyword inputs in args")
    # Unnamed inputs are named after the parameters of `construct`, as torch's dynamo names them.
    input_names = list(input_names or _parameter_names(model.construct, len(args)))
    axes = _dynamic_axes(dynamic_axes, dynamic_shapes, input_names)
    with tempfile.TemporaryDirectory() as folder:
        # MindSpore appends ".onnx" to a name without it; torch writes exactly `f`.
        written = os.path.join(folder, "model.onnx")
        # A fresh wrapper each time: MindSpore 2.10 fails exporting the same Cell a second time.
        mindspore.onnx.export(
            _ExportedCell(model),
            *args,
            file_name=written,
            input_names=input_names,
            output_names=list(output_names or []),
            export_params=export_params,
            keep_initializers_as_inputs=bool(keep_initializers_as_inputs),
            dynamic_axes=axes,
        )
        if hasattr(f, "write"):
            with open(written, "rb") as handle:
                f.write(handle.read())
            return
        destination = os.fspath(f)
        target = os.path.dirname(os.path.abspath(destination))
        for name in os.listdir(folder):  # the model, and weight files past 2GB
            moved = destination if name == "model.onnx" else os.path.join(target, name)
            shutil.move(os.path.join(folder, name), moved)


class _ExportedCell(mindspore.nn.Cell):
    """The exported Cell, called through a new Cell so that MindSpore compiles it afresh."""

    def __init__(self, net):
        super().__init__(auto_prefix=False)  # the weights keep their names
        self.net = net
        self.training = net.training  # MindSpore puts the wrapper back in this mode

    def construct(self, *inputs):
        return self.net(*inputs)


def _parameter_names(function, count):
    """The names of the first `count` positional parameters of `function`, or [] if it has fewer."""
    kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    names = [
        p.name
        for p in inspect.signature(function).parameters.values()
        if p.kind in kinds
    ]
    return names[:count] if len(names) >= count else []


def _dynamic_axes(dynamic_axes, dynamic_shapes, input_names):
    """torch's `dynamic_axes` / `dynamic_shapes` as MindSpore's `{input name: {axis: name}}`."""
    axes = {}
    for key, spec in (dynamic_axes or {}).items():
        if not isinstance(
            spec, dict
        ):  # torch also takes a list of axes, named automatically
            spec = {axis: f"{key}_dynamic_axes_{axis}" for axis in spec}
        axes[key] = dict(spec)
    if dynamic_shapes is not None:
        if isinstance(dynamic_shapes, dict):
            raise NotImplementedError(
                "torch.onnx.export: dynamic_shapes keyed by argument name"
            )
        for name, spec in zip(input_names, dynamic_shapes):
            if spec is None:
                continue
            if not isinstance(spec, dict) or not all(
                isinstance(v, str) for v in spec.values()
            ):
                raise NotImplementedError(
                    "torch.onnx.export: dynamic_shapes other than {axis: name} dicts "
                    "(torch.export.Dim objects have no MindSpore form)"
                )
            axes.setdefault(name, {}).update(spec)
    return axes


class _NoMindSporeForm:
    """A torch.export / dynamo exporter object with no MindSpore form: using it raises."""

    def __init__(self, name):
        self._name = name

    def __call__(self, *args, **kwargs):
        raise NotImplementedError(
            f"{self._name} has no MindSpore form: export with torch.onnx.export's arguments "
            "(mindspore.onnx.export) instead"
        )

    def __repr__(self):
        return f"<{self._name}: no MindSpore form>"


# `torch.export.Dim.AUTO`: a marker for torch.export's automatic dynamic dimensions; `onnx_export`
# refuses it in `dynamic_shapes` (MindSpore takes dynamic axes by name).
export_dim_auto = _NoMindSporeForm("torch.export.Dim.AUTO")

# `torch.onnx.ExportOptions(...)` and `torch.onnx.dynamo_export(...)`: torch's dynamo exporter
# (removed from torch 2.9 on); calling either raises NotImplementedError.
ExportOptions = _NoMindSporeForm("torch.onnx.ExportOptions")
dynamo_export = _NoMindSporeForm("torch.onnx.dynamo_export")
