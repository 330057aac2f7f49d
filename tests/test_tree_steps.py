"""Training steps spread across files: the tree pass gives each file the summaries of the helpers
other files define (or the library scaler their callers build), and the files change together.

The package of corpus pair 524 is our own code in the shape of the vision trainers: a loss
scaler in one module called with accumulation from an engine in another (the scaler built by the
script), and a trainer method handing the loss to a step function of a third module."""

from __future__ import annotations

import os
import shutil

import pytest
from torch2ms.migrator.context import Options
from torch2ms.migrator.runner import plan, run
from torch2ms.migrator.tree_pass import tree_facts
from torch2ms.migrator.verify import verify_files

PACKAGE = os.path.join(
    os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
    "corpus",
    "524_scaler_module_accumulation",
    "original",
)

ENGINE = """
def train_one_epoch(model, criterion, batches, optimizer, loss_scaler, max_norm=1.0):
    for samples, targets in batches:
        loss = criterion(model(samples), targets)
        optimizer.zero_grad()
        loss_scaler(loss, optimizer, clip_grad=max_norm, parameters=model.parameters())
"""
MAIN = """
import torch
from timm.utils import NativeScaler
from engine import train_one_epoch

model = torch.nn.Linear(3, 2)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
loss_scaler = NativeScaler()
train_one_epoch(model, torch.nn.MSELoss(), [], optimizer, loss_scaler)
"""


def _convert(source: str, output: str):
    return run(plan([source], output), Options(), jobs=1)


def _read(*parts: str) -> str:
    with open(os.path.join(*parts), encoding="utf-8") as handle:
        return handle.read()


def _write(folder, files: dict[str, str]) -> str:
    for name, text in files.items():
        path = os.path.join(folder, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(text)
    return str(folder)


def test_facts_follow_the_scaler_from_the_caller_to_the_parameter(tmp_path):
    root = _write(tmp_path / "src", {"engine.py": ENGINE, "main.py": MAIN})
    files = [(os.path.join(root, n), n) for n in ("engine.py", "main.py")]
    facts = tree_facts(files, root)
    engine = facts[os.path.join(root, "engine.py")]
    assert dict(engine.library_params) == {"loss_scaler": "library:NativeScaler"}
    assert facts[os.path.join(root, "main.py")].coupled == {"library:NativeScaler"}


def test_a_call_with_more_arguments_than_named_parameters(tmp_path):
    # `train_one_epoch(*args)`-style helpers and calls that pass more than a function names.
    engine = ENGINE.replace("max_norm=1.0):", "max_norm=1.0, *rest):")
    main = MAIN.replace("optimizer, loss_scaler)", "optimizer, loss_scaler, 1.0, 2, 3)")
    root = _write(tmp_path / "src", {"engine.py": engine, "main.py": main})
    files = [(os.path.join(root, n), n) for n in ("engine.py", "main.py")]
    facts = tree_facts(files, root)
    assert dict(facts[os.path.join(root, "engine.py")].library_params) == {
        "loss_scaler": "library:NativeScaler"
    }


def test_library_scaler_built_in_one_file_and_called_in_another(tmp_path):
    root = _write(tmp_path / "src", {"engine.py": ENGINE, "main.py": MAIN})
    result = _convert(root, str(tmp_path / "out"))
    engine = _read(tmp_path, "out", "engine.py")
    main = _read(tmp_path, "out", "main.py")
    assert "loss_scaler(loss" not in engine and "value_and_grad" in engine
    assert "loss_scaler.unscale(grads)" in engine
    assert "DynamicLossScaler" in main and "NativeScaler" not in main
    assert not [f for f in result.findings() if f.rule == "TM928"]


def test_a_call_left_in_one_file_keeps_the_scaler_of_the_other(tmp_path):
    # `create_graph=True` through the scaler has no gradient-value form: the call is reported, and
    # the scaler its caller builds stays timm's (both files stay torch code together).
    engine = ENGINE.replace("parameters=model.parameters())", "create_graph=True)")
    root = _write(tmp_path / "src", {"engine.py": engine, "main.py": MAIN})
    result = _convert(root, str(tmp_path / "out"))
    assert "NativeScaler()" in _read(tmp_path, "out", "main.py")
    rules = {(os.path.basename(f.path), f.rule) for f in result.findings()}
    assert ("engine.py", "TM928") in rules and ("main.py", "TM204") in rules


def test_uncertain_parameter_is_reported_with_its_reason(tmp_path):
    main = (
        MAIN
        + "train_one_epoch(model, torch.nn.MSELoss(), [], optimizer, make_scaler())\n"
    )
    root = _write(tmp_path / "src", {"engine.py": ENGINE, "main.py": main})
    result = _convert(root, str(tmp_path / "out"))
    messages = [f.message for f in result.findings() if f.rule == "TM928"]
    assert any("`loss_scaler` of `train_one_epoch`" in m for m in messages), messages


def test_package_helpers_are_rewritten_in_their_own_files(tmp_path):
    _convert(PACKAGE, str(tmp_path / "out"))
    scaling = _read(tmp_path, "out", "trainkit", "scaling.py")
    steps = _read(tmp_path, "out", "trainkit", "steps.py")
    engine = _read(tmp_path, "out", "trainkit", "engine.py")
    trainer = _read(tmp_path, "out", "trainkit", "trainer.py")
    flat = {
        name: "".join(text.split())
        for name, text in [
            ("scaling", scaling),
            ("steps", steps),
            ("engine", engine),
            ("trainer", trainer),
        ]
    }
    assert "def__call__(self,grads,optimizer" in flat["scaling"]
    assert "defclipped_step(grads,optimizer" in flat["steps"]
    assert "loss_scaler._scaler.scale(loss)" in flat["engine"]
    assert "accum_grads=loss_scaler(accum_grads,optimizer" in flat["engine"]
    assert "clipped_step(grads,self.optimizer" in flat["trainer"]
    for text in (scaling, steps, engine, trainer):
        assert "import torch" not in text


@pytest.mark.parametrize(
    "package",
    [
        PACKAGE,
        PACKAGE.replace("524_scaler_module_accumulation", "525_closures_scaler_module"),
    ],
    ids=["524", "525"],
)
def test_package_conversion_is_idempotent(tmp_path, package):
    _convert(package, str(tmp_path / "once"))
    shutil.rmtree(tmp_path / "once" / "__pycache__", ignore_errors=True)
    _convert(str(tmp_path / "once"), str(tmp_path / "twice"))
    for folder, _, files in os.walk(tmp_path / "once"):
        for name in files:
            if name.endswith(".py"):
                relative = os.path.relpath(
                    os.path.join(folder, name), tmp_path / "once"
                )
                assert _read(tmp_path, "once", relative) == _read(
                    tmp_path, "twice", relative
                ), relative


@pytest.mark.real
@pytest.mark.slow
def test_package_trains_the_same_on_the_real_frameworks(tmp_path):
    pytest.importorskip("torch")
    pytest.importorskip("mindspore")
    _convert(PACKAGE, str(tmp_path / "out"))
    (report,) = verify_files(
        [(os.path.join(PACKAGE, "main.py"), str(tmp_path / "out" / "main.py"))],
        backend="real",
    )
    assert report["status"] == "pass", report
    # every step's loss, both scales and both models' parameters
    assert report["compared"] >= 20


NORMS = """
import torch


def grad_norm_of(parameters):
    parameters = [p for p in parameters if p.grad is not None]
    return torch.norm(torch.stack([torch.norm(p.grad.detach()) for p in parameters]))


def grads_zeroed(parameters):
    for p in parameters:
        p.grad.zero_()
    return 0.0
"""
SCALER = """
import torch
from {package}.norms import {reader}


class NormScaler:
    def __init__(self):
        self._scaler = torch.amp.GradScaler("cpu")

    def __call__(self, loss, optimizer, parameters=None):
        self._scaler.scale(loss).backward()
        self._scaler.unscale_(optimizer)
        norm = {reader}(parameters)
        self._scaler.step(optimizer)
        self._scaler.update()
        return norm
"""
STEP = """
import torch
from {package}.scaling import NormScaler

model = torch.nn.Linear(3, 2)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
loss_scaler = NormScaler()
for x, y in [(torch.ones(4, 3), torch.zeros(4, 2))]:
    optimizer.zero_grad()
    loss = torch.nn.functional.mse_loss(model(x), y)
    norm = loss_scaler(loss, optimizer, parameters=model.parameters())
    print("norm", norm.item())
"""


@pytest.mark.parametrize("reader", ["grad_norm_of", "grads_zeroed"])
def test_a_function_of_another_file_that_reads_only_grads_keeps_the_scaler_convertible(
    tmp_path, reader
):
    """The scaler calls a function of a third file on the parameters after its backward: one that
    only reads their `.grad` is a function of the gradients (the scaler converts, handing it the
    gradient values, and returns the gradients with the norm); one that changes `.grad` is not."""
    package = "normpkg"
    tree = _write(
        tmp_path / "src",
        {
            f"{package}/__init__.py": "",
            f"{package}/norms.py": NORMS,
            f"{package}/scaling.py": SCALER.format(package=package, reader=reader),
            f"{package}/step.py": STEP.format(package=package),
        },
    )
    _convert(tree, str(tmp_path / "out"))
    scaling = _read(str(tmp_path), "out", package, "scaling.py")
    step = _read(str(tmp_path), "out", package, "step.py")
    if reader == "grad_norm_of":
        assert f"norm = {reader}(ms_aux.grad_holders(grads))" in scaling
        assert "return grads, norm" in scaling
        assert "grads, norm = loss_scaler(grads, optimizer" in step
        assert ".backward(" not in scaling + step
    else:
        assert "TM928" in scaling and "backward()" in scaling
        assert "loss_scaler(loss, optimizer" in step
