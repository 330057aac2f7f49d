"""Serve ``import torch`` and ``import mindspore`` from the facades in ``shims``.

``install()`` puts a finder at the front of ``sys.meta_path`` so that ``torch``,
``torch.nn.functional``, ``mindspore``, ``mindspore.nn`` ... load ``torch2ms.shims.torch...`` and
``torch2ms.shims.mindspore...``, registered under the real names. ``activate()`` does the same for
a block and then removes the aliases and the finder, so a real framework stays importable in the
same process. ``install("real")`` only adds a last-resort finder that explains how to install a
missing framework.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
from collections.abc import Iterator
from types import ModuleType

FACADE_PACKAGE = __name__.rsplit(".", 1)[0]
FRAMEWORKS = ("torch", "mindspore")
INSTALL_HINTS = {
    "torch": "pip install torch==2.13.0",
    "mindspore": 'pip install mindspore==2.10.0 "numpy<2"',
}


def _framework(fullname: str) -> str | None:
    top = fullname.partition(".")[0]
    return top if top in FRAMEWORKS else None


class _AliasLoader(importlib.abc.Loader):
    """Hands the import system a facade module that is already loaded."""

    def __init__(self, module: ModuleType) -> None:
        self.module = module
        self.own_spec = module.__spec__

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        return self.module

    def exec_module(self, module: ModuleType) -> None:
        # The import system stamps the alias spec on the module; the facade keeps its own so that
        # its relative imports still resolve inside torch2ms.shims.
        module.__spec__ = self.own_spec


class FacadeFinder(importlib.abc.MetaPathFinder):
    """Maps ``torch...`` and ``mindspore...`` onto ``torch2ms.shims.torch...`` and so on."""

    def find_spec(self, fullname, path=None, target=None):
        if _framework(fullname) is None:
            return None
        facade_name = f"{FACADE_PACKAGE}.{fullname}"
        try:
            module = importlib.import_module(facade_name)
        except ModuleNotFoundError as error:
            if error.name != facade_name:
                raise
            raise ModuleNotFoundError(
                f"shims: {fullname} is not implemented", name=fullname
            ) from None
        spec = importlib.machinery.ModuleSpec(
            fullname, _AliasLoader(module), is_package=hasattr(module, "__path__")
        )
        return spec


class MissingFrameworkFinder(importlib.abc.MetaPathFinder):
    """Last on the path: explains how to install a framework that no other finder found."""

    def find_spec(self, fullname, path=None, target=None):
        framework = _framework(fullname)
        if framework is None or fullname != framework:
            return
        raise ModuleNotFoundError(
            f"No module named '{framework}': the real backend needs {framework} installed "
            f"({INSTALL_HINTS[framework]}), or run with --backend shim",
            name=framework,
        )


def _framework_modules() -> dict[str, ModuleType]:
    return {
        name: module
        for name, module in sys.modules.items()
        if _framework(name) is not None
    }


def _drop_framework_modules() -> None:
    for name in list(_framework_modules()):
        del sys.modules[name]


def install(backend: str = "shim") -> None:
    """Make later imports of torch/mindspore load the facades (``shim``) or the real packages (``real``)."""
    uninstall()
    if backend == "shim":
        _drop_framework_modules()
        sys.meta_path.insert(0, FacadeFinder())
    elif backend == "real":
        sys.meta_path.append(MissingFrameworkFinder())
    else:
        raise ValueError(f"backend must be 'shim' or 'real', not {backend!r}")


def uninstall() -> None:
    sys.meta_path[:] = [
        f
        for f in sys.meta_path
        if not isinstance(f, (FacadeFinder, MissingFrameworkFinder))
    ]


@contextlib.contextmanager
def activate(backend: str = "shim") -> Iterator[None]:
    """``install(backend)`` for the duration of a block; framework modules are restored afterwards."""
    saved_modules = _framework_modules()
    saved_path = list(sys.meta_path)
    install(backend)
    try:
        yield
    finally:
        sys.meta_path[:] = saved_path
        # Only the facade aliases go: a real framework, once loaded, stays (its exit hooks re-import it).
        for name, module in list(_framework_modules().items()):
            if getattr(module, "__name__", "").startswith(FACADE_PACKAGE + "."):
                del sys.modules[name]
        sys.modules.update(saved_modules)
