"""The engine's cost per file stays bounded: one LibCST parse, no rule walking or printing the
whole module itself (module facts come from the ``ast`` census or the stage walk).

A rule that re-parses, re-prints or walks the module on its own multiplies the cost of every
file; this test makes such a change fail on the day it is written, where a timing could not.
"""

from __future__ import annotations

import os
import shutil

from torch2ms.migrator.context import Options
from torch2ms.migrator.profiling import Profile, instrumented
from torch2ms.migrator.runner import plan, run

CORPUS = os.path.join(os.path.dirname(__file__), "..", "corpus")

# Files without a training step: device moves and device strings, formats, layers, data.
MODELS = (
    "306_transformer_decoder_head",
    "401_cnn_model_file",
    "425_device_agnostic_script",
    "429_shuffled_evaluation",
    "431_dataset_statistics_collate",
    # torchvision names still in use after the rule passes (read by the import rule).
    "340_torchvision_transforms",
)
# Files with training steps (`.is_cuda`, formats and companion entries too), whose analyses
# (gradient stage) still read the scope that holds a step.
TRAINING = (
    "209_cuda_grad_scaler_on_cpu",
    "400_mnist_train_test",
    "405_amp_grad_scaler",
    "415_containers_model",
    "439_accelerator_idiom_init_formats",
    "440_scaled_activation_norm_reset",
    "500_trainer_run_batch_amp",
    "521_forward_backward_closures",
)
# The gradient-stage analyses of loss scalers and step helpers that may walk a module holding a
# training step (each at most once per file); any other caller is a rule walking the module.
TRAINING_WALKS = frozenset(
    {
        "rules/training/summaries.py:_collect_instances",
        "rules/training/step_calls.py:call_sites",
        "rules/training/step_calls.py:_all_lines",
        "rules/training/step_calls.py:convert_library_scalers",
        "rules/training/step_calls.py:_name_uses",
    }
)


def _convert(tmp_path, names: tuple[str, ...]) -> tuple[Profile, int]:
    source = tmp_path / "src"
    source.mkdir()
    for name in names:
        shutil.copy(
            os.path.join(CORPUS, name, "original.py"), source / f"m{name[:3]}.py"
        )
    profile = Profile()
    work = plan([str(source)], str(tmp_path / "out"))
    with instrumented(profile):
        result = run(work, Options(), 1)
    changed = sum(1 for outcome in result.outcomes if outcome.changed)
    assert changed == len(names)  # every file was converted
    return profile, len(names)


def test_model_files_are_parsed_once_and_never_walked_whole(tmp_path):
    profile, files = _convert(tmp_path, MODELS)
    assert profile.parses == files
    assert dict(profile.module_walks) == {}
    # The engine prints each converted module once; no rule prints one.
    assert set(profile.module_prints) <= {"migrator/convert.py:convert_source"}
    assert sum(profile.module_prints.values()) <= files
    assert sum(profile.stage_runs.values()) <= 3 * files


# A module whose text names `Function` without defining a `torch.autograd.Function` class, and
# that keeps a torchvision import in use: which classes convert and which torchvision names are
# read are facts of the module, found without walking it.
_FACTS = """import torch
import torchvision
from torch import nn


class Function(nn.Module):  # a Function of the model, not of autograd
    def forward(self, x):
        return torch.relu(x)


def augment(size):
    return torchvision.transforms.RandomCrop(size)
"""


def test_module_facts_come_without_a_walk(tmp_path):
    source = tmp_path / "src"
    source.mkdir()
    (source / "facts.py").write_text(_FACTS)
    profile = Profile()
    with instrumented(profile):
        result = run(plan([str(source)], str(tmp_path / "out")), Options(), 1)
    assert [outcome.changed for outcome in result.outcomes] == [True]
    assert profile.parses == 1
    assert dict(profile.module_walks) == {}


def test_training_files_walk_only_through_the_step_analyses(tmp_path):
    profile, files = _convert(tmp_path, TRAINING)
    assert profile.parses == files
    assert set(profile.module_walks) <= TRAINING_WALKS, profile.module_walks
    for caller, count in profile.module_walks.items():
        assert count <= files, (caller, count)
    # A step at module level is analysed again on the module the stage rebuilt.
    assert set(profile.module_prints) <= {
        "migrator/convert.py:convert_source",
        "rules/training/scope.py:reads",
    }
    assert profile.module_prints["rules/training/scope.py:reads"] <= files


def test_the_counters_see_a_rule_that_walks_the_module(tmp_path, monkeypatch):
    """The guard itself: a rule handler that walks the module is counted."""
    import libcst as cst
    from torch2ms.rules.api import plumbing

    saved = plumbing.PlumbingRule.leave_Module

    def walking(self, original, updated, ctx):
        updated.visit(cst.CSTVisitor())
        return saved(self, original, updated, ctx)

    monkeypatch.setattr(plumbing.PlumbingRule, "leave_Module", walking)
    profile, files = _convert(tmp_path, MODELS[:2])
    assert sum(profile.module_walks.values()) == files
