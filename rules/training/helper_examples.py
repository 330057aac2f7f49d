"""TM210: documentation and examples of helpers that run the training step for their callers."""

from __future__ import annotations

from ...migrator.rule import Example

WHAT = (
    "Rewrites a helper, closure, method or object `__call__` that runs `backward()` on a loss it "
    "receives and then clips, steps or zeroes the optimizer it receives (a NativeScaler-style loss "
    "scaler, a `_backward(_loss)` closure with `need_update`, a trainer's `_optimizer_step(loss)`), "
    "together with its calls: the caller differentiates the loss's forward computation "
    "(`forward_fn` + `value_and_grad`, as for a `backward()` of its own), and the helper takes the "
    "gradients in place of the loss. A helper that unscales, clips or zeroes returns the gradients, "
    "so the caller's accumulated gradients stay what torch's `.grad` holds. timm's `NativeScaler` is "
    "written out at its call site from its documented behaviour, and the scaler object becomes a "
    "`mindspore.amp.DynamicLossScaler`."
)
WHY = (
    "MindSpore differentiates functions, so the gradients must be computed where the forward pass "
    "is visible: in the caller. The helper's effect on the gradient state (the update flag, "
    "unscaling, clipping, the `all_finite` check, the optimizer call, the scale update) is kept in "
    "torch's order on the gradient values (seed 003); gradient accumulation across calls keeps the "
    "gradients in an accumulator reset where torch zeroes them (seed 004)."
)
USE = (
    "Differentiate in the caller, `(loss, out), grads = grad_fn(samples, targets)`, and pass the "
    "gradients to the helper: `grads = scaler.unscale(grads)`, clip, `finite = "
    "mindspore.amp.all_finite(grads)`, `if finite: optimizer(grads)`, `scaler.adjust(finite)`."
)
EXAMPLES = (
    Example(
        before=(
            "import torch\n\n\ndef step(loss, optimizer):\n    optimizer.zero_grad()\n"
            "    loss.backward()\n    optimizer.step()\n\n\ndef train(model, loader, optimizer):\n"
            "    for x, y in loader:\n        loss = (model(x) - y).pow(2).mean()\n"
            "        step(loss, optimizer)\n"
        ),
        after=(
            "import mindspore\n\n\ndef step(grads, optimizer):\n    optimizer(grads)\n\n\n"
            "def train(model, loader, optimizer):\n    def forward_fn(x, y):\n"
            "        loss = (model(x) - y).pow(2).mean()\n        return loss\n"
            "    grad_fn = mindspore.value_and_grad(forward_fn, None, optimizer.parameters)\n"
            "    for x, y in loader:\n        loss, grads = grad_fn(x, y)\n"
            "        step(grads, optimizer)\n"
        ),
    ),
)
