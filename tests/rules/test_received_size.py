"""TM415 in files that import no torch: `x.size()` decides at run time; nothing else in such a file
is taken for a torch leftover (converting a converted tree again changes nothing)."""

from __future__ import annotations

from conftest import convert_checked


def test_only_size_changes_in_a_file_without_torch() -> None:
    source = (
        "import mindspore\n\n"
        "# torch2ms: a comment naming torch does not make this a torch file\n"
        "def f(x, y):\n"
        "    return x.squeeze(0), y.var(axis=0), y.size(0)\n"
    )
    result = convert_checked(source)
    assert (
        "return x.squeeze(0), y.var(axis=0), ms_aux.tensor_size(y, 0)\n" in result.code
    )
    assert "import ms_aux" in result.code
    assert not result.findings
    assert convert_checked(result.code).code == result.code


def test_a_file_without_size_calls_is_left_alone() -> None:
    source = "def f(x):\n    return x.squeeze(0)\n"
    assert convert_checked(source).code == source
