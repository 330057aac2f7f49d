"""timm's own functions, converted by torch2ms, run on MindSpore beside timm on torch.

The functions are read from the installed timm 1.0.31 with `inspect.getsource`, converted as a
script (so they import the companion module as `ms_aux`), and called with the same inputs:
position-embedding resampling (bicubic, antialiased `interpolate`), SAM's decomposed relative
position bias (`einsum` and a linear `interpolate`), MaxViT's einsum lookups, and a cyclic shift
as Swin writes it (`roll`).
"""

from __future__ import annotations

import inspect
import sys
import textwrap

import numpy as np
import pytest
from conftest import convert_checked
from torch2ms.rules.companion import assemble

pytestmark = pytest.mark.real

HEAD = (
    "import math\nimport logging\nfrom typing import List, Optional, Tuple\n"
    "import torch\nimport torch.nn.functional as F\n\n"
    "_logger = logging.getLogger(__name__)\n\n"
    "def register_notrace_function(f):\n    return f\n\n"
    "def is_exporting():\n    return False\n\n"
)


@pytest.fixture(scope="module")
def timm_module(fw, tmp_path_factory):
    """timm's module for the torch side; the companion module importable as `ms_aux`."""
    timm = pytest.importorskip("timm")
    folder = tmp_path_factory.mktemp("timm_companion")
    (folder / "ms_aux.py").write_text(assemble(["einsum", "interpolate", "roll"]))
    sys.path.insert(0, str(folder))
    sys.modules.pop("ms_aux", None)
    yield timm
    sys.path.remove(str(folder))
    sys.modules.pop("ms_aux", None)


def converted(*functions) -> dict:
    """The functions' source, converted and executed; returns their namespace."""
    source = HEAD + "\n\n".join(
        textwrap.dedent(inspect.getsource(f)) for f in functions
    )
    result = convert_checked(source)
    assert "import ms_aux" in result.code
    assert "torch" not in result.code.replace("torch2ms", "")
    namespace: dict = {}
    exec(compile(result.code, "converted.py", "exec"), namespace)  # noqa: S102 - the conversion under test
    return namespace


def close(got, expected, rtol=1e-5, atol=1e-5) -> None:
    np.testing.assert_allclose(
        got.asnumpy(), expected.detach().numpy(), rtol=rtol, atol=atol
    )


def test_resample_abs_pos_embed(fw, timm_module) -> None:
    torch, ms = fw
    from timm.layers import pos_embed

    ported = converted(pos_embed.resample_abs_pos_embed)["resample_abs_pos_embed"]
    posemb = np.random.default_rng(0).standard_normal((1, 1 + 14 * 14, 32))
    posemb = posemb.astype(np.float32)
    for size, mode, antialias in (
        ((24, 24), "bicubic", True),
        ((10, 12), "bicubic", True),
        ((20, 16), "bilinear", False),
    ):
        expected = pos_embed.resample_abs_pos_embed(
            torch.tensor(posemb), list(size), interpolation=mode, antialias=antialias
        )
        got = ported(
            ms.Tensor(posemb), list(size), interpolation=mode, antialias=antialias
        )
        close(got, expected, rtol=1e-4)


def test_sam_decomposed_relative_position_bias(fw, timm_module) -> None:
    torch, ms = fw
    from timm.models import vision_transformer_sam as sam

    ported = converted(sam.get_rel_pos, sam.get_decomposed_rel_pos_bias)
    rng = np.random.default_rng(1)
    q = rng.standard_normal((2, 6 * 5, 8)).astype(np.float32)
    rel_h = rng.standard_normal((9, 8)).astype(np.float32)  # resized to 2 * 6 - 1 = 11
    rel_w = rng.standard_normal((9, 8)).astype(np.float32)
    expected = sam.get_decomposed_rel_pos_bias(
        torch.tensor(q), torch.tensor(rel_h), torch.tensor(rel_w), (6, 5), (6, 5)
    )
    got = ported["get_decomposed_rel_pos_bias"](
        ms.Tensor(q), ms.Tensor(rel_h), ms.Tensor(rel_w), (6, 5), (6, 5)
    )
    close(got, expected, rtol=1e-4)


def test_maxvit_einsum_lookup(fw, timm_module) -> None:
    torch, ms = fw
    from timm.layers import pos_embed_rel

    ported = converted(pos_embed_rel.reindex_2d_einsum_lookup)
    rng = np.random.default_rng(2)
    table = rng.standard_normal((3, 7, 9)).astype(np.float32)
    height_lookup = np.eye(7, dtype=np.float32)[rng.integers(0, 7, (4, 4))]
    width_lookup = np.eye(9, dtype=np.float32)[rng.integers(0, 9, (5, 5))]
    expected = pos_embed_rel.reindex_2d_einsum_lookup(
        torch.tensor(table),
        4,
        5,
        torch.tensor(height_lookup),
        torch.tensor(width_lookup),
    )
    got = ported["reindex_2d_einsum_lookup"](
        ms.Tensor(table), 4, 5, ms.Tensor(height_lookup), ms.Tensor(width_lookup)
    )
    close(got, expected)


def test_swin_cyclic_shift(fw, timm_module) -> None:
    """SwinTransformerBlock's shift and its reverse around the window attention."""
    torch, ms = fw

    def shifted_windows(x, shift_size):
        shifted_x = torch.roll(x, shifts=(-shift_size[0], -shift_size[1]), dims=(1, 2))
        return torch.roll(shifted_x * 2.0, shifts=shift_size, dims=(1, 2))

    ported = converted(shifted_windows)["shifted_windows"]
    x = np.random.default_rng(3).standard_normal((2, 8, 8, 4)).astype(np.float32)
    close(ported(ms.Tensor(x), (3, 3)), shifted_windows(torch.tensor(x), (3, 3)))
