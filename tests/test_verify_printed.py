"""Parsing labelled numbers out of what torch, MindSpore, NumPy and Python print."""

from __future__ import annotations

import math

import pytest
from torch2ms.migrator.printed import (
    close,
    keyed,
    logical_lines,
    parse_line,
    parse_output,
)


@pytest.mark.parametrize(
    ("text", "label", "values"),
    [
        ("loss 0.25", "loss", [0.25]),
        ("loss tensor(6., grad_fn=<SumBackward0>)", "loss", [6.0]),
        (
            "x.grad: tensor([[3.3333, 6.6667]], grad_fn=<MulBackward0>)",
            "x.grad",
            [3.3333, 6.6667],
        ),
        ("tensor([1.0000e-06, 2.0000e+00])", "", [1e-6, 2.0]),
        ("w tensor(2.5000, dtype=torch.float64, requires_grad=True)", "w", [2.5]),
        ("Tensor(shape=[], dtype=Float32, value= 20)", "", [20.0]),
        (
            "grad Tensor(shape=[1, 3], dtype=Float32, value= [ 1.00000000e+00,  2.00000000e+00,  3.00000000e+00])",
            "grad",
            [1.0, 2.0, 3.0],
        ),
        ("fc1.weight [[1. 2.]]", "fc1.weight", [1.0, 2.0]),
        ("epoch 1 loss 0.5 True", "epoch", [1.0, 0.5, 1.0]),
        ("step1 acc nan -inf", "step1 acc", [math.nan, -math.inf]),
        ("size torch.Size([2, 3])", "size", [2.0, 3.0]),
        ("shape (2, 3)", "shape", [2.0, 3.0]),
        (
            "grads (Tensor(shape=[1], dtype=Float32, value= [ 2.00000000e+00]), 3.0)",
            "grads",
            [2.0, 3.0],
        ),
        ("values [0.5, -1.25e-3]", "values", [0.5, -1.25e-3]),
        ("arr array([1., 2.], dtype=float32)", "arr", [1.0, 2.0]),
        ("mindspore 2.10.0 is not a number", None, None),
        ("no numbers here", None, None),
    ],
)
def test_parse_line(text, label, values):
    record = parse_line(text)
    if label is None:
        assert record is None
        return
    assert record.label == label
    assert len(record.values) == len(values)
    for got, want in zip(record.values, values):
        assert (math.isnan(got) and math.isnan(want)) or got == want


def test_multi_line_tensor_prints_are_one_record():
    torch_print = "w tensor([[1.0000, 2.0000],\n        [3.0000, 4.0000]], grad_fn=<AddBackward0>)\nnext 1"
    mindspore_print = "w [[1. 2.]\n [3. 4.]]\nnext 1"
    for output in (torch_print, mindspore_print):
        records = parse_output(output)
        assert [r.label for r in records] == ["w", "next"]
        assert records[0].values == (1.0, 2.0, 3.0, 4.0)
        assert records[1].line == 3
    assert len(logical_lines(torch_print)) == 2


def test_torch_four_decimal_prints_get_their_rounding_as_slack():
    torch_record = parse_line("loss tensor(0.1235)")
    ms_record = parse_line("loss 0.12345678")
    assert torch_record.resolution == (5e-05,)
    assert ms_record.resolution == (0.0,)
    slack = torch_record.resolution[0] + ms_record.resolution[0]
    assert close(0.1235, 0.12345678, 1e-4, 1e-5, slack)
    assert not close(0.1235, 0.12345678, 1e-4, 1e-5)
    assert not close(0.1235, 0.1245, 1e-4, 1e-5, slack)


def test_keyed_numbers_repeated_labels():
    records = parse_output("loss 1\nacc 2\nloss 3\n")
    assert list(keyed(records)) == ["loss", "acc", "loss #2"]


def test_close_nan_and_inf():
    assert close(math.nan, math.nan, 1e-4, 1e-5)
    assert not close(math.nan, 1.0, 1e-4, 1e-5)
    assert close(math.inf, math.inf, 1e-4, 1e-5)
    assert not close(math.inf, -math.inf, 1e-4, 1e-5)
