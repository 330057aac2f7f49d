"""A checkpoint made for one converted model: the model, built on MindSpore, names every slot.

The state_dict is read here (torch, imported when needed); the converted model is built by the
MindSpore interpreter given (``model_side.py``, torch blocked) and describes its Parameters; each
takes its tensor by the names its layer gives it (``placement.place``). The checkpoint is written
only when every parameter is placed and every tensor used, and is then loaded back into the model
to confirm it: nothing unloaded, nothing unused.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass, field

import numpy as np

from .model_run import SideResult, default_python, run_model_side
from .weights import WeightsError, checkpoint_path, read_pth


@dataclass
class ModelCheckpoint:
    path: str
    placement: dict = field(default_factory=dict)
    unloaded: list[str] = field(default_factory=list)
    unused: list[str] = field(default_factory=list)
    written: bool = False

    @property
    def problems(self) -> list[tuple[str, str]]:
        return [tuple(p) for p in self.placement.get("problems", [])]

    @property
    def ok(self) -> bool:
        return (
            self.written and not self.problems and not self.unloaded and not self.unused
        )

    def to_dict(self) -> dict:
        return {
            "checkpoint": self.path if self.written else None,
            **self.placement,
            "unloaded": self.unloaded,
            "unused": self.unused,
        }


def side_failure(side: SideResult, what: str) -> str:
    """What went wrong on a side: the model could not be built, or (once built) it raised."""
    done = "raised" if side.built else "could not be built"
    message = f"the {what} {done} on {side.framework}: {side.error}"
    trace = side.data.get("traceback", "")
    if trace:
        message += "\n" + "\n".join(trace.strip().splitlines()[-12:])
    return message


def convert_for_model(
    source_path: str,
    target_path: str,
    model: str,
    roots: list[str],
    mindspore_python: str | None = None,
    timeout: float = 1800,
) -> ModelCheckpoint:
    """Convert the state_dict at ``source_path`` for the converted model ``model``
    (``package.module:expression``, importable from ``roots``). Raises WeightsError when the
    model cannot be built; a state_dict that does not fit gives problems and no file."""
    state = read_pth(source_path)
    target = os.path.abspath(checkpoint_path(target_path))
    result = ModelCheckpoint(target)
    with tempfile.TemporaryDirectory(prefix="torch2ms-weights-") as work:
        state_file = os.path.join(work, "state.npz")
        np.savez(state_file, **state)
        os.makedirs(os.path.dirname(target) or ".", exist_ok=True)
        partial = f"{target[: -len('.ckpt')]}.{os.getpid()}.partial.ckpt"
        try:
            side = run_model_side(
                mindspore_python or default_python("mindspore"),
                {
                    "framework": "mindspore",
                    "roots": [os.path.abspath(r) for r in roots],
                    "model": model,
                    "state_in": state_file,
                    "checkpoint_out": partial,
                },
                work,
                timeout,
            )
            if not side.built or side.status not in ("ok", "misfit"):
                raise WeightsError(side_failure(side, f"converted model {model!r}"))
            result.placement = side.data.get("placement", {})
            result.unloaded = side.data.get("unloaded", [])
            result.unused = side.data.get("unused", [])
            if side.status == "ok" and not result.unloaded and not result.unused:
                os.replace(partial, target)
                result.written = True
        finally:
            if os.path.exists(partial):
                os.remove(partial)
    return result


__all__ = ["ModelCheckpoint", "convert_for_model", "side_failure"]
