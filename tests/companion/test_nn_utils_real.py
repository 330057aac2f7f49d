"""The companion's nn.utils entries, losses and transposed convolutions against real torch.

Each entry comes from an assembled companion module, as a converted tree gets it, and runs on
MindSpore (PyNative, CPU) beside torch on the same inputs: values, dtypes, and for the losses and
convolutions the gradients with respect to every float input.
"""

from __future__ import annotations

import importlib.util
import sys
import warnings

import numpy as np
import pytest
from torch2ms.rules.companion import assemble
from torch2ms.rules.companion.table_losses import ENTRIES as LOSSES
from torch2ms.rules.companion.table_nn_utils import ENTRIES as NN_UTILS

pytestmark = pytest.mark.real

RTOL, ATOL = 1e-5, 1e-5


@pytest.fixture(scope="module")
def aux(fw, tmp_path_factory):
    path = tmp_path_factory.mktemp("companion") / "ms_aux_nn_utils.py"
    names = sorted(set(NN_UTILS.values()) | set(LOSSES.values()))
    path.write_text(assemble(names), encoding="utf-8")
    spec = importlib.util.spec_from_file_location("ms_aux_nn_utils", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["ms_aux_nn_utils"] = module
    spec.loader.exec_module(module)
    return module


def _same(have, want) -> None:
    """A MindSpore result against torch's: tensors, None, and tuples or lists of them."""
    if want is None:
        assert have is None
        return
    if isinstance(want, (tuple, list)):
        assert len(have) == len(want)
        for h, w in zip(have, want):
            _same(h, w)
        return
    want = want.detach().numpy()
    have = have.asnumpy()
    assert have.dtype == want.dtype and have.shape == want.shape
    np.testing.assert_allclose(have, want, rtol=RTOL, atol=ATOL)


def _pair(fw, array):
    torch, ms = fw
    return torch.tensor(array), ms.Tensor(array)


SEQUENCES = [
    [np.array([1.0, 2.0, 3.0], np.float32), np.array([4.0, 5.0], np.float32)],
    [np.arange(6, dtype=np.int64).reshape(3, 2), np.arange(2, dtype=np.int64).reshape(1, 2)],
]


@pytest.mark.parametrize("arrays", SEQUENCES)
@pytest.mark.parametrize(
    "kwargs",
    [{}, {"batch_first": True}, {"padding_value": -1.0}, {"padding_side": "left"}],
)
def test_pad_and_unpad_sequence(fw, aux, arrays, kwargs) -> None:
    torch, _ = fw
    t_seqs, m_seqs = zip(*(_pair(fw, a) for a in arrays))
    want = torch.nn.utils.rnn.pad_sequence(list(t_seqs), **kwargs)
    have = aux.pad_sequence(list(m_seqs), **kwargs)
    _same(have, want)
    if kwargs.get("padding_side", "right") == "right":
        first = kwargs.get("batch_first", False)
        lengths = [len(a) for a in arrays]
        _same(
            aux.unpad_sequence(have, lengths, batch_first=first),
            torch.nn.utils.rnn.unpad_sequence(want, torch.tensor(lengths), first),
        )


@pytest.mark.parametrize(
    ("lengths", "kwargs"),
    [
        ([4, 2, 1], {}),
        ([2, 4, 3], {"enforce_sorted": False}),
        ([3, 1, 4], {"batch_first": True, "enforce_sorted": False}),
    ],
)
def test_pack_and_pad_packed(fw, aux, lengths, kwargs) -> None:
    torch, _ = fw
    first = kwargs.get("batch_first", False)
    shape = (3, 4, 2) if first else (4, 3, 2)
    t_x, m_x = _pair(fw, np.random.default_rng(0).standard_normal(shape).astype(np.float32))
    want = torch.nn.utils.rnn.pack_padded_sequence(t_x, lengths, **kwargs)
    have = aux.pack_padded_sequence(m_x, lengths, **kwargs)
    _same(tuple(have), tuple(want))
    for total in (None, 6):
        _same(
            aux.pad_packed_sequence(have, first, -2.0, total),
            torch.nn.utils.rnn.pad_packed_sequence(want, first, -2.0, total),
        )


def test_pack_and_unpack_sequence(fw, aux) -> None:
    torch, _ = fw
    arrays = [np.arange(n, dtype=np.float32) for n in (2, 4, 3)]
    t_seqs, m_seqs = zip(*(_pair(fw, a) for a in arrays))
    want = torch.nn.utils.rnn.pack_sequence(list(t_seqs), enforce_sorted=False)
    have = aux.pack_sequence(list(m_seqs), enforce_sorted=False)
    _same(tuple(have), tuple(want))
    _same(aux.unpack_sequence(have), torch.nn.utils.rnn.unpack_sequence(want))
    _same(
        aux.invert_permutation(have.sorted_indices),
        torch.nn.utils.rnn.invert_permutation(want.sorted_indices),
    )
    with pytest.raises(RuntimeError, match="sorted in decreasing order"):
        aux.pack_sequence(list(m_seqs))


def test_packed_sequence_attributes(fw, aux) -> None:
    torch, ms = fw
    data = np.array([1.0, 2.0, 3.0, 4.0], np.float32)
    sizes, order = np.array([2, 2]), np.array([1, 0])
    want = torch.nn.utils.rnn.PackedSequence(
        torch.tensor(data), torch.tensor(sizes), torch.tensor(order)
    )
    have = aux.PackedSequence(ms.Tensor(data), ms.Tensor(sizes), ms.Tensor(order))
    _same(tuple(have), tuple(want))
    _same(tuple(have.double()), tuple(want.double()))
    _same(tuple(have.to(ms.float64)), tuple(want.to(torch.float64)))
    assert have.to("cpu") is have


def test_parameters_as_a_vector(fw, aux) -> None:
    torch, ms = fw
    torch.manual_seed(0)
    t_layer = torch.nn.Linear(3, 2)
    m_layer = ms.nn.Dense(3, 2)
    m_layer.weight.set_data(ms.Tensor(t_layer.weight.detach().numpy()))
    m_layer.bias.set_data(ms.Tensor(t_layer.bias.detach().numpy()))
    vector = torch.nn.utils.parameters_to_vector(t_layer.parameters())
    _same(aux.parameters_to_vector(m_layer.trainable_params()), vector)
    new = np.arange(8, dtype=np.float32)
    torch.nn.utils.vector_to_parameters(torch.tensor(new), t_layer.parameters())
    aux.vector_to_parameters(ms.Tensor(new), m_layer.trainable_params())
    _same(m_layer.weight, t_layer.weight)
    _same(m_layer.bias, t_layer.bias)


def _values_and_grads(fw, torch_fn, ms_fn, arrays):
    """Values and input gradients of sum(out * cotangent) on both frameworks."""
    torch, ms = fw
    leaves = [torch.tensor(a, requires_grad=True) for a in arrays]
    out = torch_fn(*leaves)
    cotangent = np.random.default_rng(9).standard_normal(tuple(out.shape))
    cotangent = cotangent.astype(np.float32)
    (out * torch.tensor(cotangent)).sum().backward()

    def forward(*inputs):
        result = ms_fn(*inputs)
        return (result * ms.Tensor(cotangent)).sum(), result

    positions = tuple(range(len(arrays)))
    (_, have), grads = ms.value_and_grad(forward, positions, None, has_aux=True)(
        *[ms.Tensor(a) for a in arrays]
    )
    _same(have, out)
    grads = grads if isinstance(grads, tuple) else (grads,)
    for grad, leaf in zip(grads, leaves):
        np.testing.assert_allclose(
            grad.asnumpy(), leaf.grad.numpy(), rtol=1e-4, atol=1e-5
        )


TRIPLET = [
    {},
    {"margin": 1.3, "p": 3.2, "eps": 1e-5, "swap": True, "reduction": "none"},
    {"p": 1.0, "reduction": "sum"},
    {"size_average": False, "reduce": True},
    {"size_average": True, "reduce": False, "reduction": "mean"},
]


@pytest.mark.parametrize("kwargs", TRIPLET)
def test_triplet_margin_loss(fw, aux, kwargs) -> None:
    torch, _ = fw
    arrays = [
        np.random.default_rng(seed).standard_normal((4, 5)).astype(np.float32)
        for seed in range(3)
    ]
    _values_and_grads(
        fw,
        lambda *t: torch.nn.TripletMarginLoss(**kwargs)(*t),
        lambda *m: aux.TripletMarginLoss(**kwargs)(*m),
        arrays,
    )


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_soft_margin_loss(fw, aux, reduction) -> None:
    torch, _ = fw
    rng = np.random.default_rng(1)
    x = rng.standard_normal((3, 4)).astype(np.float32)
    target = np.sign(rng.standard_normal((3, 4))).astype(np.float32)
    _values_and_grads(
        fw,
        lambda t: torch.nn.functional.soft_margin_loss(
            t, torch.tensor(target), reduction=reduction
        ),
        lambda m: aux.SoftMarginLoss(reduction=reduction)(m, fw[1].Tensor(target)),
        [x],
    )


CONV_T = [
    ((2, 4, 3, 5), (4, 3, 3, 2), {"stride": 2, "padding": 1, "output_padding": 1, "groups": 2}),
    ((2, 4, 3, 5), (4, 3, 3, 2), {"stride": (2, 3), "output_padding": (1, 2), "groups": 2}),
    ((1, 2, 4, 4), (2, 3, 2, 3), {"dilation": (1, 2), "padding": (1, 2)}),
    ((2, 4, 4), (2, 3, 2, 2), {"stride": 2}),
]


@pytest.mark.parametrize(("x_shape", "w_shape", "kwargs"), CONV_T)
def test_conv_transpose2d(fw, aux, x_shape, w_shape, kwargs) -> None:
    torch, _ = fw
    rng = np.random.default_rng(2)
    arrays = [rng.standard_normal(s).astype(np.float32) for s in (x_shape, w_shape)]
    channels = w_shape[1] * kwargs.get("groups", 1)
    arrays.append(rng.standard_normal((channels,)).astype(np.float32))
    _values_and_grads(
        fw,
        lambda x, w, b: torch.nn.functional.conv_transpose2d(x, w, b, **kwargs),
        lambda x, w, b: aux.conv_transpose2d(x, w, b, **kwargs),
        arrays,
    )


@pytest.mark.parametrize(
    "kwargs",
    [{"stride": 3, "padding": 1, "output_padding": 2}, {"groups": 2, "dilation": 2}],
)
def test_conv_transpose1d(fw, aux, kwargs) -> None:
    torch, _ = fw
    rng = np.random.default_rng(3)
    arrays = [rng.standard_normal(s).astype(np.float32) for s in ((2, 4, 5), (4, 2, 3))]
    _values_and_grads(
        fw,
        lambda x, w: torch.nn.functional.conv_transpose1d(x, w, **kwargs),
        lambda x, w: aux.conv_transpose1d(x, w, **kwargs),
        arrays,
    )


def test_parameter_containers(fw, aux) -> None:
    torch, ms = fw
    arrays = {f"p{i}": np.full((i + 1,), float(i), np.float32) for i in range(3)}
    want = torch.nn.ParameterDict(
        {k: torch.nn.Parameter(torch.tensor(v)) for k, v in arrays.items()}
    )
    have = aux.ParameterDict({k: ms.Parameter(ms.Tensor(v)) for k, v in arrays.items()})
    want.update([("z", torch.nn.Parameter(torch.zeros(2)))])
    have.update([("z", ms.Tensor(np.zeros(2, np.float32)))])
    assert list(have) == list(want) and len(have) == len(want) and "z" in have
    _same(have["p1"], want["p1"])
    names = [n for n, _ in want.named_parameters()]
    assert [p.name for p in have.trainable_params()] == names
    want_list = torch.nn.ParameterList(
        [torch.nn.Parameter(torch.tensor(v)) for v in arrays.values()]
    )
    have_list = aux.ParameterList([ms.Tensor(v) for v in arrays.values()])
    assert len(have_list) == len(want_list)
    _same(have_list[-1], want_list[-1])
    assert [p.name for p in have_list.trainable_params()] == [
        n for n, _ in want_list.named_parameters()
    ]


@pytest.mark.parametrize(
    ("name", "kwargs"),
    [
        ("CosineSimilarity", {"dim": 1, "eps": 1e-6}),
        ("CosineSimilarity", {"dim": 0}),
        ("PairwiseDistance", {"p": 1.0, "keepdim": True}),
        ("PairwiseDistance", {}),
    ],
)
def test_distance_layers(fw, aux, name, kwargs) -> None:
    torch, _ = fw
    rng = np.random.default_rng(4)
    arrays = [rng.standard_normal((3, 4)).astype(np.float32) for _ in range(2)]
    _values_and_grads(
        fw,
        lambda a, b: getattr(torch.nn, name)(**kwargs)(a, b),
        lambda a, b: getattr(aux, name)(**kwargs)(a, b),
        arrays,
    )


@pytest.mark.parametrize(
    "kwargs",
    [
        {"reduction": "batchmean"},
        {"reduction": "sum", "log_target": True},
        {"reduction": "none"},
        {"size_average": False},
    ],
)
def test_kl_div(fw, aux, kwargs) -> None:
    torch, ms = fw
    rng = np.random.default_rng(6)
    logits = rng.standard_normal((3, 4)).astype(np.float32)
    target = rng.random((3, 4)).astype(np.float32)
    target[0, 1] = 0.0
    if kwargs.get("log_target"):
        target = np.log(target + 0.1)

    def torch_fn(t):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # torch's deprecation notice
            return torch.nn.functional.kl_div(
                t.log_softmax(-1), torch.tensor(target), **kwargs
            )

    _values_and_grads(
        fw,
        torch_fn,
        lambda m: aux.kl_div(ms.ops.log_softmax(m, -1), ms.Tensor(target), **kwargs),
        [logits],
    )


@pytest.mark.parametrize("margin", [1.0, 0.3])
def test_hinge_embedding_loss_with_integer_targets(fw, aux, margin) -> None:
    torch, ms = fw
    x = np.random.default_rng(8).standard_normal((2, 5)).astype(np.float32)
    target = np.array([[1, -1, 1, -1, 1], [-1, -1, 1, 1, -1]], np.int64)
    _values_and_grads(
        fw,
        lambda t: torch.nn.HingeEmbeddingLoss(margin, reduction="none")(
            t, torch.tensor(target)
        ),
        lambda m: aux.HingeEmbeddingLoss(margin, reduction="none")(m, ms.Tensor(target)),
        [x],
    )
