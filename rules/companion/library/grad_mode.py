"""torch's grad mode as a flag of the converted program: `set_grad_enabled` and `is_grad_enabled`.

MindSpore records no tape: what is differentiated is the function given to `grad` or
`value_and_grad`, so switching recording off changes no value here. The flag answers
`torch.is_grad_enabled()` as torch does after `set_grad_enabled(mode)` (a statement, a `with`
block or a decorator). The conversion answers a call inside a `no_grad()`/`enable_grad()` block it
unwraps with that block's mode.
"""

import functools

# [mode]: one flag for the program, as torch keeps one per thread.
_GRAD_MODE = [True]


def is_grad_enabled():
    """`torch.is_grad_enabled()`: the mode `set_grad_enabled` last set (True at the start)."""
    return _GRAD_MODE[0]


class set_grad_enabled:
    """`torch.set_grad_enabled(mode)`: sets the mode when built, as torch does; a `with` block
    restores the previous mode on exit; used as a decorator, it restores it at once and sets the
    mode around each call of the function."""

    def __init__(self, mode):
        self.prev = _GRAD_MODE[0]
        self.mode = bool(mode)
        _GRAD_MODE[0] = self.mode

    def __enter__(self):
        return None

    def __exit__(self, *exc_info):
        _GRAD_MODE[0] = self.prev
        return False

    def __call__(self, function):
        _GRAD_MODE[0] = self.prev
        mode = self.mode

        @functools.wraps(function)
        def with_mode(*args, **kwargs):
            with set_grad_enabled(mode):
                return function(*args, **kwargs)

        return with_mode

    def clone(self):
        return self.__class__(self.mode)


class no_grad:
    """`torch.no_grad()` used as a value (`ctx = nullcontext() if warm else torch.no_grad()`):
    switches the mode off on entering a `with` block and back on leaving it, as torch does; as a
    decorator it does so around each call. It cuts nothing from differentiation (see above)."""

    mode = False

    def __enter__(self):
        self.prev = _GRAD_MODE[0]
        _GRAD_MODE[0] = self.mode

    def __exit__(self, *exc_info):
        _GRAD_MODE[0] = self.prev
        return False

    def __call__(self, function):
        block = self.__class__

        @functools.wraps(function)
        def with_mode(*args, **kwargs):
            with block():
                return function(*args, **kwargs)

        return with_mode

    def clone(self):
        return self.__class__()


class enable_grad(no_grad):
    """`torch.enable_grad()` used as a value: `no_grad` with the mode switched on."""

    mode = True
