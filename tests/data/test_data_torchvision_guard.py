"""tests/torchvision_guard.py patches exactly the two unguarded registrations, once."""

from __future__ import annotations

from torchvision_guard import guard

UNGUARDED = """import torch
import torchvision


@register_meta("roi_align")
def meta_roi_align(input, rois):
    return input


@torch.library.register_fake("torchvision::nms")
def meta_nms(dets, scores, iou_threshold):
    return dets


@torch.library.register_fake("torchvision::qnms")
def meta_qnms(dets, scores, iou_threshold):
    return dets
"""


def test_guard_patches_the_two_registrations_once(tmp_path, capsys) -> None:
    path = tmp_path / "_meta_registrations.py"
    path.write_text(UNGUARDED)
    assert guard(str(path)) is True
    text = path.read_text()
    for operator in ("nms", "qnms"):
        assert (
            f'@(torch.library.register_fake("torchvision::{operator}") '
            "if torchvision.extension._has_ops() else (lambda f: f))\n" in text
        )
    assert '@register_meta("roi_align")' in text
    assert "guarded the nms/qnms fake-kernel registrations" in capsys.readouterr().err
    compile(text, str(path), "exec")
    assert guard(str(path)) is False
    assert path.read_text() == text


def test_guard_leaves_other_files_alone(tmp_path) -> None:
    path = tmp_path / "_meta_registrations.py"
    other = UNGUARDED.replace(
        'register_fake("torchvision::qnms")', "register_meta('q')"
    )
    path.write_text(other)
    assert guard(str(path)) is False
    assert path.read_text() == other
