"""An original model on torch and its conversion on MindSpore, compared submodule by submodule.

Each side runs in its own process (``model_side.py``), the MindSpore side with torch blocked. The
torch side builds the model (seed 0, eval mode), hands over its ``state_dict``, and runs the inputs
with a forward hook on every submodule. The MindSpore side builds the converted model, places that
state_dict by its own names (``placement``; a misfit stops the comparison), and runs the same
inputs with a forward hook on every Cell. Outputs are matched by qualified name and call number and
compared with a tolerance relative to the scale of torch's output:
``max|ms - torch| <= atol + rtol * max|torch|``. Submodules are listed in the order their calls
ended on torch, so the first that departs is the innermost place a difference starts.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass, field

import numpy as np

from .model_run import SideResult, default_python, run_model_side, write_inputs
from .weights_model import side_failure

AGREE, DIFFER, ERROR = "agree", "differ", "error"


@dataclass
class Row:
    name: str  # qualified name; "" is the whole model
    call: int
    torch_class: str = ""
    mindspore_class: str = ""
    error: float | None = None  # max |diff| / scale over the call's tensors
    status: str = "ok"  # ok | departs | shape | count | missing
    detail: str = ""

    @property
    def label(self) -> str:
        name = self.name or "(model)"
        return name if self.call == 1 else f"{name} (call {self.call})"


@dataclass
class ModelComparison:
    status: str = ERROR
    message: str = ""
    outputs: list[dict] = field(default_factory=list)
    rows: list[Row] = field(default_factory=list)
    first: dict | None = None
    mindspore_only: list[str] = field(default_factory=list)
    weights: dict = field(default_factory=dict)

    @property
    def exit_code(self) -> int:
        return {AGREE: 0, DIFFER: 1}.get(self.status, 2)

    def to_dict(self) -> dict:
        return {
            "status": self.status,
            "message": self.message,
            "outputs": self.outputs,
            "first_departure": self.first,
            "modules": [
                {
                    "name": r.name,
                    "call": r.call,
                    "torch_class": r.torch_class,
                    "mindspore_class": r.mindspore_class,
                    "error": r.error,
                    "status": r.status,
                    "detail": r.detail,
                }
                for r in self.rows
            ],
            "mindspore_only": self.mindspore_only,
            "weights": self.weights,
        }


def relative_error(got: np.ndarray, want: np.ndarray) -> tuple[float, float]:
    """(max |got - want|, max |want|), in float64; NaN where one side has NaN and the other not."""
    got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
    if want.size == 0:
        return 0.0, 0.0
    finite = np.isfinite(want)
    if not np.array_equal(finite, np.isfinite(got)) or not np.array_equal(
        want[~finite], got[~finite]
    ):
        return float("inf"), 0.0
    if not finite.any():
        return 0.0, 0.0
    return float(np.max(np.abs(got[finite] - want[finite]))), float(
        np.max(np.abs(want[finite]))
    )


def _compare_tensors(
    got: list[np.ndarray], want: list[np.ndarray], rtol: float, atol: float
) -> tuple[str, float | None, str]:
    if len(got) != len(want):
        return "count", None, f"{len(want)} tensors on torch, {len(got)} on MindSpore"
    worst, status, detail = 0.0, "ok", ""
    for i, (a, b) in enumerate(zip(got, want)):
        if a.shape != b.shape:
            return (
                "shape",
                None,
                f"tensor {i}: {list(b.shape)} on torch, {list(a.shape)} on MindSpore",
            )
        diff, scale = relative_error(a, b)
        error = diff / scale if scale > 0 else diff
        worst = max(worst, error)
        if diff > atol + rtol * scale and status == "ok":
            status, detail = (
                "departs",
                f"tensor {i}: max |diff| {diff:.3g}, scale {scale:.3g}",
            )
    return status, worst, detail


def _grouped(arrays, key: str) -> list[np.ndarray]:
    out, i = [], 0
    while f"{key}:{i}" in arrays.files:
        out.append(arrays[f"{key}:{i}"])
        i += 1
    return out


def _where(modules: dict, name: str) -> dict:
    info = modules.get(name, {})
    return {
        "class": info.get("class", ""),
        "file": info.get("file", "?"),
        "line": info.get("line", 0),
    }


def compare_results(
    torch_side: SideResult,
    ms_side: SideResult,
    torch_out: str,
    ms_out: str,
    rtol: float,
    atol: float,
) -> ModelComparison:
    """Compare what the two sides recorded (both ran)."""
    result = ModelComparison(weights=ms_side.data.get("placement", {}))
    torch_modules = {m["name"]: m for m in torch_side.data.get("modules", [])}
    ms_modules = {m["name"]: m for m in ms_side.data.get("modules", [])}
    with np.load(torch_out) as want, np.load(ms_out) as got:
        for index in range(torch_side.data.get("outputs", 0)):
            key = f"output:{index}"
            if key not in got.files:
                result.outputs.append({"index": index, "status": "missing"})
                continue
            status, error, detail = _compare_tensors(
                [got[key]], [want[key]], rtol, atol
            )
            result.outputs.append(
                {
                    "index": index,
                    "shape": list(want[key].shape),
                    "error": error,
                    "status": status,
                    "detail": detail,
                }
            )
        if ms_side.data.get("outputs", 0) != torch_side.data.get("outputs", 0):
            result.outputs.append(
                {
                    "index": -1,
                    "status": "count",
                    "detail": f"{torch_side.data.get('outputs')} outputs on torch, {ms_side.data.get('outputs')} on MindSpore",
                }
            )
        ms_order = set(ms_side.data.get("order", []))
        for key in torch_side.data.get("order", []):
            name, _, call = key.rpartition("#")
            row = Row(
                name,
                int(call),
                _where(torch_modules, name)["class"],
                _where(ms_modules, name)["class"],
            )
            if key not in ms_order:
                row.status = "missing"
                row.detail = (
                    "no Cell of this name ran"
                    if name not in ms_modules
                    else "called fewer times on MindSpore"
                )
            else:
                row.status, row.error, row.detail = _compare_tensors(
                    _grouped(got, key), _grouped(want, key), rtol, atol
                )
            result.rows.append(row)
    torch_names = {r.name for r in result.rows}
    result.mindspore_only = sorted(
        k.rpartition("#")[0]
        for k in ms_order
        if k.rpartition("#")[0] not in torch_names
    )
    first = next(
        (r for r in result.rows if r.status in ("departs", "shape", "count")), None
    )
    if first is not None:
        result.first = {
            "name": first.name,
            "call": first.call,
            "status": first.status,
            "detail": first.detail,
            "torch": _where(torch_modules, first.name),
            "mindspore": _where(ms_modules, first.name),
        }
    agree = all(o["status"] == "ok" for o in result.outputs) and bool(result.outputs)
    result.status = AGREE if agree else DIFFER
    return result


def compare_model(
    original: list[str],
    converted: list[str],
    model: str,
    inputs: list[str],
    torch_python: str | None = None,
    mindspore_python: str | None = None,
    rtol: float = 1e-4,
    atol: float = 1e-6,
    timeout: float = 1800,
    converted_model: str | None = None,
) -> ModelComparison:
    """Build ``model`` from ``original`` on torch and (``converted_model`` or the same expression)
    from ``converted`` on MindSpore, give both torch's weights, run both on ``inputs`` and compare."""
    with tempfile.TemporaryDirectory(prefix="torch2ms-compare-") as work:
        inputs_file = os.path.join(work, "inputs.npz")
        try:
            write_inputs(inputs, inputs_file)
        except (ValueError, OSError) as error:
            return ModelComparison(ERROR, f"inputs: {error}")
        state_file = os.path.join(work, "state.npz")
        torch_out, ms_out = (
            os.path.join(work, "torch.npz"),
            os.path.join(work, "ms.npz"),
        )
        torch_side = run_model_side(
            torch_python or default_python("torch"),
            {"framework": "torch", "roots": [os.path.abspath(r) for r in original], "model": model,
             "state_out": state_file, "inputs": inputs_file, "outputs": torch_out},
            work, timeout,
        )  # fmt: skip
        if torch_side.status != "ok":
            return ModelComparison(ERROR, side_failure(torch_side, "original model"))
        ms_side = run_model_side(
            mindspore_python or default_python("mindspore"),
            {"framework": "mindspore", "roots": [os.path.abspath(r) for r in converted],
             "model": converted_model or model, "state_in": state_file, "inputs": inputs_file,
             "outputs": ms_out},
            work, timeout,
        )  # fmt: skip
        if not ms_side.built:
            return ModelComparison(ERROR, side_failure(ms_side, "converted model"))
        if ms_side.status == "misfit":
            problems = ms_side.data["placement"]["problems"]
            lines = "\n".join(f"  {k}: {why}" for k, why in problems[:40])
            return ModelComparison(
                ERROR,
                f"torch's state_dict does not fit the converted model ({len(problems)} "
                f"problem(s)):\n{lines}",
                weights=ms_side.data["placement"],
            )
        if ms_side.data.get("unloaded") or ms_side.data.get("unused"):
            return ModelComparison(
                ERROR,
                f"load_param_into_net left unloaded {ms_side.data.get('unloaded')} and "
                f"unused {ms_side.data.get('unused')}",
            )
        if ms_side.status != "ok":
            return ModelComparison(
                DIFFER,
                side_failure(ms_side, "converted model"),
                weights=ms_side.data.get("placement", {}),
            )
        return compare_results(torch_side, ms_side, torch_out, ms_out, rtol, atol)


__all__ = [
    "ModelComparison",
    "Row",
    "compare_model",
    "compare_results",
    "relative_error",
]
