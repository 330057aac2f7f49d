"""Stand-ins for torch-only plumbing whose MindSpore meaning is "nothing to do"."""


def is_scripting():
    """`torch.jit.is_scripting()`: MindSpore never runs TorchScript, so this is always False."""
    return False
