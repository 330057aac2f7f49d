"""Report-only training findings (TM92x): what stays as it is, and the MindSpore idiom to write."""

from __future__ import annotations

from ...migrator.findings import ERROR, WARNING
from ...migrator.rule import Example, define

IDIOM = (
    "Write the forward computation as `def forward_fn(data, target): ...; return loss, logits`, build "
    "`grad_fn = mindspore.value_and_grad(forward_fn, None, optimizer.parameters, has_aux=True)` once, "
    "and in the loop call `(loss, logits), grads = grad_fn(data, target)` then `optimizer(grads)` "
    "(seed: 训练网络与梯度求导)."
)

HIDDEN_FORWARD = define(
    "TM920",
    "backward() whose forward computation cannot be seen",
    "Reports a `backward()` that feeds an optimizer step but whose loss was built somewhere the rule "
    "cannot follow: in an earlier call (log-probabilities kept in a list, as in REINFORCE), in another "
    "function, or without calling any model here.",
    "MindSpore differentiates a function; the values that were computed earlier carry no tape, so "
    "differentiating only the code visible here would give zero gradients.",
    "Move the computation of the loss, from the model call on, into one function and differentiate it: "
    "for REINFORCE keep the states and actions of the episode and recompute `log_prob` inside `forward_fn`. "
    + IDIOM,
    severity=ERROR,
    family="training",
    examples=(
        Example(
            before="import torch\n\ndef finish_episode(policy, optimizer, returns):\n    policy_loss = sum(-lp * r for lp, r in zip(policy.saved_log_probs, returns))\n    optimizer.zero_grad()\n    policy_loss.backward()\n    optimizer.step()\n",
            after="\ndef finish_episode(policy, optimizer, returns):\n    import torch\n    policy_loss = sum(-lp * r for lp, r in zip(policy.saved_log_probs, returns))\n    # torch2ms: TM900 `.zero_grad()` is not converted: no certain MindSpore mapping; it still runs on torch\n    optimizer.zero_grad()\n    # torch2ms: TM920 no model is called in the computation of this loss here (its forward pass ran elsewhere: in an earlier call, kept in a list, or in another function); the training step is left unconverted\n    policy_loss.backward()\n    optimizer.step()\n",
            findings=("TM920",),
        ),
    ),
)
CLOSURE_STEP = define(
    "TM921",
    "`optimizer.step(closure)`",
    "Reports `optimizer.step(closure)` (LBFGS and other optimizers that re-evaluate the loss) and the "
    "`backward()` inside the closure.",
    "MindSpore's optimizers are called with gradients; none takes a closure that recomputes the loss.",
    "Use a first-order optimizer from `mindspore.experimental.optim`, or minimise with "
    "`mindspore.scipy.optimize.minimize(fn, x0, method='LBFGS')` on a function of the flattened weights.",
    severity=ERROR,
    family="training",
)
HOOKS = define(
    "TM922",
    "Gradient hooks in a training loop",
    "Reports a training step in a module that registers gradient hooks (`register_hook`, "
    "`register_full_backward_hook`, ...).",
    "A hook changes the gradient that reaches `.grad`; the functional gradients of `value_and_grad` "
    "would not pass through it.",
    "Apply the hook's change to `grads` after `grad_fn(...)` (for example `grads = tuple(hook(g) for g "
    "in grads)`), or use `mindspore.ops.HookBackward`/`Cell.register_backward_hook` inside the forward.",
    severity=ERROR,
    family="training",
)
DUPLICATED_FORWARD = define(
    "TM923",
    "Forward computation shared by two optimizers' gradients",
    "Reports a statement (typically the generator's forward in a GAN) whose value two differentiated "
    "functions need, when running it twice could change the result: BatchNorm in training mode "
    "updates its statistics at every call, dropout draws new masks.",
    "MindSpore computes each optimizer's gradients from a function; sharing one forward pass between "
    "two gradient computations needs `mindspore.vjp`.",
    "Compute the shared value once with `fake, fake_vjp = mindspore.vjp(netG, noise, weights=optimizerG.parameters)`, "
    "differentiate the discriminator's loss with respect to `fake` (`grad_position=0`) and map that "
    "gradient to the generator's weights with `fake_vjp`; or reorder the steps so the generator's "
    "function returns `fake` as an auxiliary output (MindSpore's DCGAN tutorial).",
    severity=ERROR,
    family="training",
)
JOINT = define(
    "TM924",
    "backward() that feeds several optimizers",
    "Reports a loss whose gradients two or more optimizers use before any reset.",
    "One `value_and_grad` call returns gradients for one list of weights; the split between "
    "optimizers must be written out.",
    "Differentiate with respect to `opt_a.parameters + opt_b.parameters` and split the tuple: "
    "`grads_a, grads_b = grads[:len(opt_a.parameters)], grads[len(opt_a.parameters):]`.",
    severity=ERROR,
    family="training",
)
AUTOCAST = define(
    "TM925",
    "autocast region",
    "Reports `torch.autocast`/`torch.cuda.amp.autocast` regions. With `--target cpu`, a CUDA autocast "
    "is disabled in torch on a machine without CUDA and is dropped (warning); other autocast regions are "
    "left as they are.",
    "MindSpore sets mixed precision per network (`mindspore.amp.auto_mixed_precision(net, 'O1')`), not "
    "per region of code.",
    "Cast the network once: `net = mindspore.amp.auto_mixed_precision(net, 'O1')` (or 'O2'), and keep "
    "the loss scaler.",
    severity=WARNING,
    family="training",
)
UNSUPPORTED_SHAPE = define(
    "TM926",
    "Training step whose shape cannot be rewritten with certainty",
    "Reports a training step the gradient-state analysis cannot turn into gradient values: the forward "
    "computation is interleaved with code that reads its intermediate values, it spans several blocks, "
    "or it is not known which optimizer holds the parameters that are reset or clipped.",
    "A rewrite that moved statements past code that reads them, or reset the wrong gradients, would "
    "compute something else without warning.",
    IDIOM,
    severity=ERROR,
    family="training",
)
GRAD_READ = define(
    "TM927",
    "`.grad` read by other code",
    "Reports reads of `.grad` in a training step other than the recognised updates (logging gradient "
    "norms, custom updates).",
    "After the rewrite the gradients are the values `grads` returned by `grad_fn`, in the order of "
    "`optimizer.parameters`; `.grad` no longer holds them.",
    "Read the gradients from `grads`: `for p, g in zip(optimizer.parameters, grads): ...`.",
    severity=ERROR,
    family="training",
)
HELPER_BEFORE = "import torch\n\n\ndef backward_step(loss, optimizer, scaler, create_graph=False):\n    scaler.scale(loss).backward(create_graph=create_graph)\n    scaler.step(optimizer)\n    scaler.update()\n\n\ndef train(model, loader, optimizer, scaler):\n    for x, y in loader:\n        loss = (model(x) - y).pow(2).mean()\n        optimizer.zero_grad()\n        backward_step(loss, optimizer, scaler, create_graph=True)\n"
HELPER_AFTER = "\n\ndef backward_step(loss, optimizer, scaler, create_graph=False):\n    import torch\n    # torch2ms: TM928 `backward_step` runs backward() on the loss it receives and is left as it is: its call at line 14 is left unconverted and still passes it a loss\n    scaler.scale(loss).backward(create_graph=create_graph)\n    scaler.step(optimizer)\n    scaler.update()\n\n\ndef train(model, loader, optimizer, scaler):\n    for x, y in loader:\n        loss = (model(x) - y).pow(2).mean()\n        import torch\n        # torch2ms: TM900 `.zero_grad()` is not converted: no certain MindSpore mapping; it still runs on torch\n        optimizer.zero_grad()\n        # torch2ms: TM928 `backward_step` runs a higher-order backward through its loss scaling (`create_graph=True`), which gradient values do not carry; the training step is left unconverted\n        backward_step(loss, optimizer, scaler, create_graph=True)\n"
HELPER_STEP = define(
    "TM928",
    "Training step inside a helper that cannot be summarised",
    "Reports a helper, closure, method or object `__call__` that runs `backward()` on a loss it "
    "receives (a loss scaler such as timm's `NativeScaler`, a `_backward(loss)` closure), and the "
    "calls of it, when the helper's effect on the gradients cannot be summarised with certainty: "
    "its backward runs only on some paths, it builds a higher-order graph (`create_graph`) through "
    "a loss scaler, a value the summary needs (the clipping mode) is known only at run time, it "
    "reads the loss after its backward, or its callers are in other files.",
    "MindSpore differentiates a function; a helper that receives a loss already computed has no "
    "tape to run backward on. The caller must differentiate the loss's forward computation and "
    "pass the gradients to the helper, which needs to know exactly what the helper does to them.",
    "Differentiate in the caller and give the helper the gradients: `(loss, out), grads = "
    "grad_fn(samples, targets)`, then in the helper `grads = scaler.unscale(grads)`, clip, "
    "`finite = mindspore.amp.all_finite(grads)`, `if finite: optimizer(grads)`, "
    "`scaler.adjust(finite)` (seed 003); accumulate with `accum = tuple(map(ops.add, accum, "
    "grads))` and step when the update flag is set (seed 004).",
    severity=ERROR,
    family="training",
    examples=(
        Example(
            before=HELPER_BEFORE,
            after=HELPER_AFTER,
            findings=("TM928", "TM928"),
        ),
    ),
)
