"""Training-loop rules (TM2xx): gradient state in ``.grad`` becomes gradient values.

``analysis`` finds the gradient-state events of each parameter set and what each ``backward()``
differentiates; ``rewrite`` turns them into ``forward_fn`` + ``mindspore.value_and_grad`` +
``optimizer(grads)``; ``cell`` writes plain steps as training cells under ``--style cell``, on top
of ``rewrite``; ``loop`` is the rule that drives them.
"""
