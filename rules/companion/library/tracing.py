"""Decorators that choose how torch compiles a function, for a program that is not traced.

`torch.jit.script_if_tracing(fn)` scripts `fn` only while torch traces a model; called otherwise,
the function runs as written. Converted code runs in PyNative, so the function is returned as is.
"""


def script_if_tracing(fn):
    """`torch.jit.script_if_tracing`: `fn` itself (it runs as written outside tracing)."""
    return fn
