"""torch.autograd.functional entries (library/autograd_functional.py) against real torch: the
same functions, inputs and vectors give the same values, shapes and nesting."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest
from torch2ms.migrator.context import Options
from torch2ms.migrator.convert import convert_source
from torch2ms.rules.companion import assemble
from torch2ms.rules.companion.table_autograd import ENTRIES

pytestmark = pytest.mark.real

X = np.arange(6, dtype=np.float32).reshape(2, 3) / 4 - 0.5
Y = np.float32([0.5, -1.0, 2.0])


@pytest.fixture(scope="module")
def aux(fw, tmp_path_factory):
    path = tmp_path_factory.mktemp("companion") / "ms_aux_autograd.py"
    path.write_text(assemble(sorted(set(ENTRIES.values()))), encoding="utf-8")
    spec = importlib.util.spec_from_file_location("ms_aux_autograd", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# Each function is written once against a namespace holding `sin`, `exp` and `sum_`.
def scalar(m, x):
    return m.sum_(m.sin(x) * x * x)


def elementwise(m, x):
    return m.exp(x) * 2


def two_in_one_out(m, x, y):
    return m.sin(x) * y


def two_in_two_out(m, x, y):
    return x * y, m.sum_(x * x) + m.sum_(y)


def two_in_scalar(m, x, y):
    return m.sum_(m.exp(x) * y) + m.sum_(y * y * y)


def _namespaces(fw):
    torch, ms = fw
    ops = ms.ops
    ours = type(
        "M",
        (),
        {
            "sin": staticmethod(ops.sin),
            "exp": staticmethod(ops.exp),
            "sum_": staticmethod(lambda t: t.sum()),
        },
    )
    theirs = type(
        "M",
        (),
        {
            "sin": staticmethod(torch.sin),
            "exp": staticmethod(torch.exp),
            "sum_": staticmethod(torch.sum),
        },
    )
    return ours, theirs


def _same(ours, theirs):
    if isinstance(theirs, tuple):
        assert isinstance(ours, tuple) and len(ours) == len(theirs)
        for a, b in zip(ours, theirs):
            _same(a, b)
        return
    assert not isinstance(ours, tuple)
    a = ours.asnumpy()
    b = theirs.detach().numpy()
    assert a.shape == b.shape and a.dtype == b.dtype
    np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


CASES = [
    ("jacobian", elementwise, (X,), None),
    ("jacobian", scalar, (X,), None),
    ("jacobian", two_in_one_out, ((X, Y),), None),
    ("jacobian", two_in_two_out, ((X, Y),), None),
    ("hessian", scalar, (X,), None),
    ("hessian", two_in_scalar, ((X, Y),), None),
    ("vjp", scalar, (X,), None),
    ("vjp", elementwise, (X,), X + 1),
    ("vjp", two_in_two_out, ((X, Y),), (X, np.float32(2.0))),
    ("jvp", scalar, (X,), X + 1),
    ("jvp", two_in_two_out, ((X, Y),), (X, Y)),
    ("hvp", scalar, (X,), X + 1),
    ("vhp", two_in_scalar, ((X, Y),), (X, Y)),
    ("hvp", two_in_scalar, ((X, Y),), (X, Y)),
]


@pytest.mark.parametrize(
    ("api", "func", "args", "v"), CASES, ids=[f"{c[0]}-{c[1].__name__}" for c in CASES]
)
def test_results_are_torchs(fw, aux, api, func, args, v):
    torch, ms = fw
    ours_m, theirs_m = _namespaces(fw)

    def wrap(value, make):
        if isinstance(value, tuple):
            return tuple(wrap(x, make) for x in value)
        return make(np.asarray(value))

    def run(module, namespace, make):
        call = getattr(module, api)
        f = lambda *xs: func(namespace, *xs)  # noqa: E731
        extra = () if v is None else (wrap(v, make),)
        return call(f, *wrap(args, make), *extra)

    theirs = run(torch.autograd.functional, theirs_m, torch.tensor)
    ours = run(aux, ours_m, ms.Tensor)
    _same(ours, theirs)


def test_a_vector_is_required_where_torch_requires_one(fw, aux):
    _, ms = fw
    ours_m, _ = _namespaces(fw)
    with pytest.raises(RuntimeError, match="can only be None"):
        aux.vjp(lambda x: elementwise(ours_m, x), ms.Tensor(X))
    with pytest.raises(RuntimeError, match="single element"):
        aux.hessian(lambda x: elementwise(ours_m, x), ms.Tensor(X))


def test_functional_calls_convert_to_the_companion() -> None:
    source = (
        "import torch\n"
        "from torch.autograd.functional import jacobian\n\n"
        "def f(x):\n"
        "    return torch.sum(x * x)\n\n"
        "x = torch.ones(2, 3)\n"
        "j = jacobian(f, x)\n"
        "out, h = torch.autograd.functional.hvp(f, x, torch.ones(2, 3))\n"
    )
    result = convert_source(source, "m.py", Options())
    assert "ms_aux.jacobian(f, x)" in result.code
    assert "ms_aux.hvp(f, x," in result.code
    assert "torch" not in result.code.replace("ms_aux", "")
    assert convert_source(result.code, "m.py", Options()).code == result.code
