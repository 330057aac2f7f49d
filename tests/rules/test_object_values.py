"""TM944: a distribution bound to a name the module never reads is reported, since the converted
object is the companion's; objects the program uses are not, nor a DataLoader (torch's repr names
an address)."""

from __future__ import annotations

import pytest
from conftest import convert_checked


@pytest.mark.parametrize(
    ("construction", "kind"),
    [
        ("torch.distributions.Normal(torch.zeros(2), torch.ones(2))", "Normal"),
        ("torch.distributions.Categorical(torch.tensor([0.3, 0.7]))", "Categorical"),
    ],
)
def test_an_object_kept_only_as_a_value_is_reported(construction, kind) -> None:
    result = convert_checked(f"import torch\ndata = [1, 2]\nresult = {construction}\n")
    (finding,) = [f for f in result.findings if f.rule == "TM944"]
    assert f"{kind}` object kept only as a value" in finding.message
    assert finding.severity == "note" and finding.line == 3
    assert (
        "torch" not in result.code.replace("ms_aux", "").split("\n", 2)[2].split("#")[0]
    )


@pytest.mark.parametrize(
    "source",
    [
        "d = torch.distributions.Normal(torch.zeros(2), torch.ones(2))\nprint(d.sample())\n",
        "def f():\n    d = torch.distributions.Categorical(probs=p)\n    return d\n",
        "result = torch.distributions.Distribution()\n",
        "x = torch.zeros(2)\n",
        "loader = torch.utils.data.DataLoader([1, 2])\nprint(len(loader))\n",
    ],
)
def test_objects_the_program_uses_are_not(source) -> None:
    result = convert_checked("import torch\np = None\n" + source)
    assert not [f for f in result.findings if f.rule == "TM944"]


def test_a_class_left_on_torch_is_not_reported_as_the_companions() -> None:
    result = convert_checked(
        "import torch\nregistry = torch.distributions.constraint_registry.ConstraintRegistry()\n"
    )
    assert not [f for f in result.findings if f.rule == "TM944"]


def test_an_unread_loader_the_companion_stands_for_is_reported() -> None:
    """torch's repr of a DataLoader names a memory address: no object prints the same."""
    result = convert_checked(
        "import torch\n\nclass Data(torch.utils.data.Dataset):\n"
        "    def __getitem__(self, i):\n        return i\n\n"
        "    def __len__(self):\n        return 3\n\n"
        "result = torch.utils.data.DataLoader(Data())\n"
    )
    (finding,) = [f for f in result.findings if f.rule == "TM944"]
    assert "repr names a memory address" in finding.message
