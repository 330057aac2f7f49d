"""Compare what an original and its conversion observably computed.

Order of comparison, so that the first difference is the earliest one a reader would see: printed
records in the order the original printed them, then the final parameters of same-named top-level
modules (matched by MindSpore name, else in order when names and shapes leave no doubt), then
same-named top-level tensors and arrays.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .printed import Record, close, keyed

_SHOWN = 8  # values shown of an array that differs


@dataclass
class Difference:
    quantity: str
    original: object
    converted: object
    detail: str = ""
    kind: str = "printed"  # printed | module | tensor
    subject: str = ""  # the label, module or tensor name

    def to_dict(self) -> dict:
        return {
            "quantity": self.quantity,
            "original": self.original,
            "converted": self.converted,
            "detail": self.detail,
        }


@dataclass
class Comparison:
    compared: int = 0
    differences: list[Difference] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def first(self) -> Difference | None:
        return self.differences[0] if self.differences else None


def _show(values) -> object:
    array = np.asarray(values, dtype=np.float64).ravel()
    shown = [float(v) for v in array[:_SHOWN]]
    if array.size == 1:
        return shown[0]
    return shown + (["..."] if array.size > _SHOWN else [])


def compare_arrays(
    original: np.ndarray, converted: np.ndarray, rtol: float, atol: float
) -> str | None:
    """None when close, else what differs."""
    a = np.asarray(original)
    b = np.asarray(converted)
    if a.dtype.kind not in "biuf" or b.dtype.kind not in "biuf":
        return None if np.array_equal(a, b) else "values differ"
    if a.shape != b.shape and (
        a.size != b.size or np.squeeze(a).shape != np.squeeze(b).shape
    ):
        return f"shape {a.shape} vs {b.shape}"
    a = a.astype(np.float64).ravel()
    b = b.astype(np.float64).ravel()
    ok = np.isclose(b, a, rtol=rtol, atol=atol, equal_nan=True)
    if ok.all():
        return None
    index = int(np.argmin(ok))
    return f"at flat index {index}: {a[index]!r} vs {b[index]!r} (max abs diff {np.nanmax(np.abs(a - b)):.3g})"


def compare_printed(
    original: list[Record],
    converted: list[Record],
    rtol: float,
    atol: float,
    ignored: frozenset[str],
    result: Comparison,
) -> None:
    theirs = keyed(converted)
    for key, record in keyed(original).items():
        if record.label in ignored:
            continue
        result.compared += 1
        quantity = f"printed {key!r} (output line {record.line})"
        other = theirs.get(key)
        if other is None:
            result.differences.append(
                Difference(
                    quantity,
                    _show(record.values),
                    None,
                    "not printed by the conversion",
                    subject=record.label,
                )
            )
            continue
        if len(other.values) != len(record.values):
            detail = f"{len(record.values)} numbers vs {len(other.values)}"
            result.differences.append(
                Difference(
                    quantity,
                    _show(record.values),
                    _show(other.values),
                    detail,
                    subject=record.label,
                )
            )
            continue
        for index, (a, b) in enumerate(zip(record.values, other.values)):
            if not close(
                a, b, rtol, atol, record.resolution[index] + other.resolution[index]
            ):
                detail = f"number {index + 1}: {a!r} vs {b!r}"
                result.differences.append(
                    Difference(
                        quantity,
                        _show(record.values),
                        _show(other.values),
                        detail,
                        subject=record.label,
                    )
                )
                break


def _match_parameters(
    names_a: list[str], names_b: list[str], arrays_a: dict, arrays_b: dict
) -> tuple[list[tuple[str, str]], list[str]]:
    """Pairs of parameter names (by name, then in order for the rest) and the names left unmatched."""
    common = [name for name in names_a if name in names_b]
    rest_a = [name for name in names_a if name not in names_b]
    rest_b = [name for name in names_b if name not in names_a]
    pairs = [(name, name) for name in common]
    if (
        rest_a
        and len(rest_a) == len(rest_b)
        and all(arrays_a[x].shape == arrays_b[y].shape for x, y in zip(rest_a, rest_b))
    ):
        return pairs + list(zip(rest_a, rest_b)), []
    return pairs, rest_a


def compare_observations(
    original: tuple[dict, dict],
    converted: tuple[dict, dict],
    rtol: float,
    atol: float,
    ignored: frozenset[str] = frozenset(),
) -> Comparison:
    """``original`` and ``converted`` are (meta, arrays) with meta["records"] the printed records."""
    (meta_a, arrays_a), (meta_b, arrays_b) = original, converted
    result = Comparison()
    records_a = [Record.from_dict(r) for r in meta_a.get("records", [])]
    records_b = [Record.from_dict(r) for r in meta_b.get("records", [])]
    compare_printed(records_a, records_b, rtol, atol, ignored, result)

    modules_b = meta_b.get("modules", {})
    untransferred = set(meta_b.get("init", {}).get("untransferred", ()))
    for module, names in meta_a.get("modules", {}).items():
        if module in ignored:
            continue
        if module in untransferred:
            result.notes.append(
                f"module {module!r} was never called, so it did not receive the original's initial state; not compared"
            )
            continue
        if module not in modules_b:
            result.notes.append(
                f"module {module!r} is not a top-level module of the conversion; not compared"
            )
            continue
        params_a = {name: arrays_a[f"module/{module}/{name}"] for name in names}
        params_b = {
            name: arrays_b[f"module/{module}/{name}"] for name in modules_b[module]
        }
        pairs, unmatched = _match_parameters(
            names, modules_b[module], params_a, params_b
        )
        for name_a, name_b in pairs:
            result.compared += 1
            detail = compare_arrays(params_a[name_a], params_b[name_b], rtol, atol)
            if detail is not None:
                label = (
                    f"{module}.{name_a}"
                    if name_a == name_b
                    else f"{module}.{name_a} (converted: {name_b})"
                )
                result.differences.append(
                    Difference(
                        f"parameter {label}",
                        _show(params_a[name_a]),
                        _show(params_b[name_b]),
                        detail,
                        "module",
                        module,
                    )
                )
        for name in unmatched:
            result.compared += 1
            result.differences.append(
                Difference(
                    f"parameter {module}.{name}",
                    _show(params_a[name]),
                    None,
                    "no parameter of that name in the conversion",
                    "module",
                    module,
                )
            )

    tensors_b = set(meta_b.get("tensors", []))
    for name in meta_a.get("tensors", []):
        if name in ignored or name not in tensors_b:
            continue
        result.compared += 1
        a, b = arrays_a[f"tensor/{name}"], arrays_b[f"tensor/{name}"]
        detail = compare_arrays(a, b, rtol, atol)
        if detail is not None:
            result.differences.append(
                Difference(f"tensor {name}", _show(a), _show(b), detail, "tensor", name)
            )
    return result
