"""torch's C++ extension builder, profiler and saved-tensor hooks stay on torch with the reason and the MindSpore
idiom (TM940), not the generic "no certain mapping" of an unknown API (TM900)."""

from __future__ import annotations

import pytest
from conftest import convert_checked


@pytest.mark.parametrize(
    ("line", "idiom"),
    [
        (
            "ext = torch.utils.cpp_extension.CppExtension('e', ['e.cpp'])",
            "mindspore.ops.Custom",
        ),
        ("paths = torch.utils.cpp_extension.include_paths()", "mindspore.ops.Custom"),
        (
            "mod = torch.utils.cpp_extension.load_inline('m', cpp_sources=[''])",
            "mindspore.ops.Custom",
        ),
        ("prof = torch.autograd.profiler.profile()", "mindspore.Profiler"),
        ("prof = torch.profiler.profile()", "mindspore.Profiler"),
        ("h = torch.autograd.graph.saved_tensors_hooks(pack, unpack)", "recompute"),
    ],
)
def test_the_finding_names_why_and_the_idiom(line: str, idiom: str) -> None:
    result = convert_checked(f"import torch\n{line}\n")
    (finding,) = [f for f in result.findings if f.line == 2]
    assert finding.rule == "TM940"
    assert idiom in finding.hint
