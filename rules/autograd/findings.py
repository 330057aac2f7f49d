"""Report-only autograd findings (TM91x): what the gradient rules leave for a hand edit, and how."""

from __future__ import annotations

from ...migrator.findings import ERROR, WARNING
from ...migrator.rule import define

VALUE_AND_GRAD_IDIOM = (
    "Write the forward computation as a function of the tensors to differentiate and call "
    "`mindspore.value_and_grad(fn, grad_position=(0, 1))(x, y)` (or `mindspore.grad`); it returns "
    "the gradients as values instead of filling `.grad` (seed: 梯度求导, torch.autograd.backward)."
)

UNCONVERTED_BACKWARD = define(
    "TM910",
    "Gradient computation left unconverted",
    "Reports a `backward()`, `torch.autograd.backward` or `torch.autograd.grad` whose forward "
    "computation cannot be isolated with certainty: its leaves are defined in another block, it "
    "goes through module parameters or code with side effects, or its `.grad` results are read "
    "where the rule cannot follow them.",
    "MindSpore records nothing during the forward pass; it differentiates a function. The rule only "
    "extracts that function when the straight-line code between the leaves and the output proves "
    "what it is.",
    VALUE_AND_GRAD_IDIOM,
    severity=ERROR,
    family="autograd",
)
RETAIN_GRAD = define(
    "TM911",
    "`retain_grad()` on a non-leaf tensor",
    "Reports `t.retain_grad()`, after which `t.grad` holds the gradient of an intermediate value.",
    "MindSpore keeps no gradient on intermediate tensors; only the function's inputs and weights "
    "receive gradients.",
    "Make the intermediate an input of the differentiated function and take its gradient with "
    "`grad_position`, or read it in a hook: `t.register_hook(lambda g: ...)` inside the function "
    "passed to `mindspore.grad` (PyNative).",
    severity=ERROR,
    family="autograd",
)
GRAD_FLAGS = define(
    "TM912",
    "Read of `grad_fn`, `is_leaf` or `requires_grad`",
    "Reports reads of the tape attributes `grad_fn`, `is_leaf` and `requires_grad` of tensors.",
    "MindSpore tensors carry no tape: a `mindspore.Tensor` has no `grad_fn`, `is_leaf` or "
    "`requires_grad` (only `Parameter.requires_grad`). Whether a value is differentiated is decided "
    "by the `grad_position`/`weights` given to `mindspore.grad`.",
    "Decide the branch statically: inside the differentiated function every input in "
    "`grad_position` is differentiated, values under `ops.stop_gradient` are not.",
    severity=ERROR,
    family="autograd",
)
TENSOR_HOOK = define(
    "TM913",
    "`register_hook` on a tensor",
    "Reports `t.register_hook(fn)` on a tensor the rules cannot place inside the differentiated "
    "function, and notes the ones they moved there.",
    "`mindspore.Tensor.register_hook` fires in PyNative mode only for tensors computed inside the "
    "function being differentiated; a hook on a tensor outside it never runs.",
    "Register the hook inside the function passed to `mindspore.grad`: "
    "`y = x * 3; y.register_hook(hook); return y * y`.",
    severity=ERROR,
    family="autograd",
)
INPLACE_LEAF = define(
    "TM914",
    "In-place update of a leaf inside a differentiated region",
    "Reports in-place updates (`x.add_(...)`, `x += ...`, `x[i] = ...`) of a tensor that is "
    "differentiated, between its creation and the gradient computation.",
    "The extracted function receives the leaf as an argument; an in-place update of it changes the "
    "caller's tensor too, and torch rejects it on a leaf that requires grad.",
    "Compute a new tensor (`x2 = x + 1`) inside the function instead of updating the leaf.",
    severity=ERROR,
    family="autograd",
)
FUNCTION_CTX = define(
    "TM915",
    "`torch.autograd.Function` feature without a MindSpore form",
    "Reports custom `torch.autograd.Function` classes that use `ctx` features a `Cell.bprop` cannot "
    "express: `needs_input_grad`, `mark_dirty`, `mark_non_differentiable`, `set_materialize_grads`, "
    "`once_differentiable`, `save_for_forward`, saved intermediates, or a `jvp`/`vmap`.",
    "A MindSpore custom gradient is a `bprop(self, *inputs, out, dout)` method of an `nn.Cell`: it "
    "sees the inputs, the output and the output's gradient, and nothing else.",
    "Write the class as `nn.Cell` with `construct(self, *inputs)` and "
    "`bprop(self, *inputs, out, dout)` returning one gradient per input (a tuple).",
    severity=ERROR,
    family="autograd",
)
GRAD_ENABLED_STATEMENT = define(
    "TM916",
    "`torch.set_grad_enabled(False)` as a statement",
    "Reports a bare `torch.set_grad_enabled(False)` call, which switches recording off until "
    "another call switches it on again. The call becomes the companion's `set_grad_enabled`, "
    "whose flag answers `is_grad_enabled()` as torch does; it cuts nothing from "
    "differentiation.",
    "Its extent is the rest of the program's dynamic execution; which computations it covers "
    "cannot be proven from the source.",
    "Nothing is recorded during MindSpore's forward computation, so remove the call; inside a "
    "function passed to `mindspore.grad`, wrap the values that must not be differentiated in "
    "`ops.stop_gradient(...)`.",
    severity=ERROR,
    family="autograd",
)

MIXED_SECOND_ORDER = define(
    "TM917",
    "Gradient kept for a further derivative (`create_graph=True`) of a function with closures",
    "Warns where a gradient taken with `create_graph=True` comes from a function that also reads "
    "tensors it does not receive as inputs, so a later derivative may be taken with respect to them "
    "(mixed second derivatives, as in gradient penalties).",
    "Measured on MindSpore 2.10 PyNative CPU: nesting `mindspore.grad` gives torch's values for "
    "second derivatives with respect to the same input (d2u/dt2), but wrong values for some mixed "
    "ones: d/dw of the gradient of (i*w).sum()**3 with respect to i, or of tanh(i @ w), came out "
    "wrong or zero.",
    "Compare the mixed derivative with torch's on a small input before relying on it; where it "
    "differs, derive the inner gradient by hand (it is usually a short formula) and let "
    "`mindspore.grad` take only the outer derivative.",
    severity=WARNING,
    family="autograd",
)

__all__ = [
    "FUNCTION_CTX",
    "GRAD_ENABLED_STATEMENT",
    "GRAD_FLAGS",
    "INPLACE_LEAF",
    "MIXED_SECOND_ORDER",
    "RETAIN_GRAD",
    "TENSOR_HOOK",
    "UNCONVERTED_BACKWARD",
    "VALUE_AND_GRAD_IDIOM",
    "WARNING",
]
