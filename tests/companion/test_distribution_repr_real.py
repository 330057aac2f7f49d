"""The companion's Distribution base prints itself as torch's does: the class name and the
parameters named in `arg_constraints` that the object holds (none for the base)."""

from __future__ import annotations

import importlib.util

import pytest
from torch2ms.rules.companion import assemble

pytestmark = pytest.mark.real


@pytest.fixture(scope="module")
def aux(fw, tmp_path_factory):
    path = tmp_path_factory.mktemp("aux") / "ms_aux_distribution_repr.py"
    path.write_text(assemble(["Distribution"]), encoding="utf-8")
    spec = importlib.util.spec_from_file_location("ms_aux_distribution_repr", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_base_and_a_subclass_without_constraints_print_as_torchs(fw, aux) -> None:
    """torch's base raises NotImplementedError for `arg_constraints`, so its repr does too."""
    torch, _ = fw

    def subclass(base):
        class ConstantDist(base):
            def __init__(self):
                super().__init__(validate_args=False)

        return ConstantDist()

    for made in (
        lambda d: d.Distribution(validate_args=False),
        lambda d: subclass(d.Distribution),
    ):
        with pytest.raises(NotImplementedError):
            repr(made(torch.distributions))
        with pytest.raises(NotImplementedError):
            repr(made(aux))


def test_the_companions_distributions_print_their_name(fw, aux) -> None:
    class Fixed(aux.Distribution):
        pass

    Fixed.__module__ = aux.Distribution.__module__
    assert repr(Fixed()) == "Fixed()"


def test_a_subclass_lists_the_parameters_it_declares(fw, aux) -> None:
    _, ms = fw

    class Shifted(aux.Distribution):
        arg_constraints = dict.fromkeys(("loc", "scale"))

        def __init__(self, loc):
            self.loc = loc
            super().__init__(tuple(loc.shape))

    assert repr(Shifted(ms.ops.zeros((3,)))) == "Shifted(loc: (3,))"
