"""no_grad / enable_grad / set_grad_enabled / inference_mode: context managers and decorators."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any

from .. import core as C


class _GradModeContext:
    """Sets grad mode on enter, restores on exit; also decorates functions (with or without parentheses)."""

    mode = False

    def __new__(cls, orig_func: Any = None, *args: Any, **kwargs: Any):
        if (
            cls is not set_grad_enabled
            and callable(orig_func)
            and not args
            and not kwargs
        ):
            return cls()(orig_func)
        return super().__new__(cls)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self._previous: list[bool] = []

    def __enter__(self) -> None:
        self._previous.append(C.set_grad_enabled(self.mode))

    def __exit__(self, *exc: object) -> None:
        C.set_grad_enabled(self._previous.pop())

    def clone(self) -> _GradModeContext:
        return type(self)()

    def __call__(self, func: Callable) -> Callable:
        if inspect.isgeneratorfunction(func):

            @functools.wraps(func)
            def generator(*args: Any, **kwargs: Any):
                with self.clone():
                    yield from func(*args, **kwargs)

            return generator

        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with self.clone():
                return func(*args, **kwargs)

        return wrapper


class no_grad(_GradModeContext):
    mode = False


class enable_grad(_GradModeContext):
    mode = True


class inference_mode(_GradModeContext):
    def __init__(self, mode: bool = True) -> None:
        super().__init__()
        self.mode = not mode

    def clone(self) -> inference_mode:
        return inference_mode(not self.mode)


class set_grad_enabled(_GradModeContext):
    """Takes effect at construction (it can be called as a plain function), restored on exit."""

    def __init__(self, mode: bool) -> None:
        super().__init__()
        self.mode = bool(mode)
        self._previous = [C.set_grad_enabled(self.mode)]

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc: object) -> None:
        C.set_grad_enabled(self._previous.pop() if self._previous else True)

    def clone(self) -> set_grad_enabled:
        return set_grad_enabled(self.mode)

    def __call__(self, func: Callable) -> Callable:
        C.set_grad_enabled(self._previous.pop())
        mode = self.mode

        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            previous = C.set_grad_enabled(mode)
            try:
                return func(*args, **kwargs)
            finally:
                C.set_grad_enabled(previous)

        return wrapper


def is_grad_enabled() -> bool:
    return C.is_grad_enabled()


def is_inference_mode_enabled() -> bool:
    return False
