"""Import a converted module the way a user runs it: its companion module written beside it."""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Iterable
from types import ModuleType

from torch2ms.rules.companion import assemble


def import_converted(
    code: str, entries: Iterable[str], folder, name: str
) -> ModuleType:
    """Write ``code`` as ``folder/name.py`` with an ``ms_aux.py`` of ``entries`` beside it, and
    import it (a fresh ``ms_aux`` each time)."""
    (folder / "ms_aux.py").write_text(assemble(sorted(entries)), encoding="utf-8")
    (folder / f"{name}.py").write_text(code, encoding="utf-8")
    sys.path.insert(0, str(folder))
    try:
        sys.modules.pop("ms_aux", None)
        spec = importlib.util.spec_from_file_location(name, folder / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(folder))
    return module
