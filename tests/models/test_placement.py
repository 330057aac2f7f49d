"""`placement.place`: torch's tensors on a converted model's slots, by names the model gives."""

from __future__ import annotations

import numpy as np
import pytest
from torch2ms.migrator.placement import Slot, place


def _slot(name, shape, torch_names, **extra) -> Slot:
    return Slot(name, tuple(shape), "float32", torch_names, **extra)


def _ones(*shape):
    return np.ones(shape, np.float32)


def test_names_from_the_layer_and_conv1d_layout() -> None:
    slots = [
        _slot("bn.gamma", [3], ["bn.weight", "bn.gamma"]),
        _slot("conv.weight", [4, 2, 1, 3], ["conv.weight"], layout="conv1d"),
    ]
    state = {
        "bn.weight": _ones(3),
        "bn.num_batches_tracked": np.array(2),
        "conv.weight": np.arange(24, dtype=np.float32).reshape(4, 2, 3),
    }
    placed = place(state, slots)
    assert placed.ok
    assert [(n, t) for n, _, t in placed.entries] == [
        ("bn.gamma", "bn.weight"),
        ("conv.weight", "conv.weight"),
    ]
    assert placed.entries[1][1].shape == (4, 2, 1, 3)
    assert [k for k, _ in placed.dropped] == ["bn.num_batches_tracked"]


def test_a_layout_not_known_to_differ_is_a_problem() -> None:
    placed = place(
        {"fc.weight": _ones(3, 2)}, [_slot("fc.weight", [2, 3], ["fc.weight"])]
    )
    assert placed.problems == [
        (
            "fc.weight",
            "shape [3, 2] in the state_dict, [2, 3] in the converted model (fc.weight)",
        )
    ]
    assert placed.entries == []


@pytest.mark.parametrize("agree", [True, False])
def test_tied_weights_written_once(agree) -> None:
    slots = [_slot("emb.embedding_table", [5, 2], ["emb.weight", "head.weight"])]
    state = {
        "emb.weight": _ones(5, 2),
        "head.weight": _ones(5, 2) * (1 if agree else 2),
    }
    placed = place(state, slots)
    assert len(placed.entries) == 1
    if agree:
        assert placed.ok and placed.tied == [("head.weight", "emb.weight")]
    else:
        assert [k for k, _ in placed.problems] == ["head.weight"]


def test_norm_without_affine_takes_mindspores_constants() -> None:
    slots = [
        _slot("bn.gamma", [2], ["bn.weight", "bn.gamma"], constant=1.0),
        _slot("bn.moving_mean", [2], ["bn.running_mean"]),
    ]
    placed = place({"bn.running_mean": _ones(2)}, slots)
    assert placed.ok
    assert placed.entries[0][2] == "" and placed.entries[0][1].tolist() == [1.0, 1.0]


def test_every_key_must_be_taken_and_every_slot_filled() -> None:
    slots = [_slot("a.weight", [2], ["a.weight"]), _slot("b.weight", [2], ["b.weight"])]
    placed = place({"a.weight": _ones(2), "c.weight": _ones(2)}, slots)
    assert [k for k, _ in placed.problems] == ["b.weight", "c.weight"]
