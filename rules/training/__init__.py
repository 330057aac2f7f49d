"""Training-loop rules (TM2xx): gradient state in ``.grad`` becomes gradient values.

``analysis`` finds the gradient-state events of each parameter set and what each ``backward()``
differentiates; ``rewrite`` turns them into ``forward_fn`` + ``mindspore.value_and_grad`` +
``optimizer(grads)``; ``loop`` is the rule that drives both.
"""
