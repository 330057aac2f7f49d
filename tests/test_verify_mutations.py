"""verify catches the classic mistakes in the converter's own output: golden files of corpus pairs
with one mistake put back in must fail, while the golden files themselves pass."""

from __future__ import annotations

import os

import pytest
from corpus_support import CORPUS_DIR
from torch2ms.migrator.verify import verify_files

# mistake → (pair, text of its expected.py, the text with the mistake)
MUTATIONS = {
    "learning rate changed": ("400_mnist_train_test", "default=0.05", "default=0.5"),
    "has_aux dropped": ("412_multitask_retain_graph", ", has_aux=True)", ")"),
    "loss / N left out of accumulation": (
        "402_accumulation_clipping",
        "    loss = loss / ACCUMULATION_STEPS\n",
        "",
    ),
    "BatchNorm momentum not inverted": (
        "413_evaluate_batchnorm",
        "momentum=0.8",
        "momentum=0.2",
    ),
}


@pytest.fixture(scope="module")
def reports(tmp_path_factory):
    folder = tmp_path_factory.mktemp("mutations")
    pairs = []
    for index, (name, before, after) in enumerate(MUTATIONS.values()):
        original = os.path.join(CORPUS_DIR, name, "original.py")
        expected = os.path.join(CORPUS_DIR, name, "expected.py")
        with open(expected, encoding="utf-8") as handle:
            golden = handle.read()
        assert before in golden, (
            f"{name}/expected.py no longer contains {before!r}: update MUTATIONS"
        )
        mutated = folder / f"mutated_{index}.py"
        mutated.write_text(golden.replace(before, after, 1), encoding="utf-8")
        pairs += [(original, expected), (original, str(mutated))]
    results = verify_files(pairs, backend="shim")
    return {
        mistake: (results[2 * i], results[2 * i + 1])
        for i, mistake in enumerate(MUTATIONS)
    }


@pytest.mark.parametrize("mistake", list(MUTATIONS))
def test_mutated_golden_fails(reports, mistake):
    golden, mutated = reports[mistake]
    assert golden["status"] == "pass", golden
    assert mutated["status"] == "fail", mutated
    assert mutated["first_difference"] is not None
