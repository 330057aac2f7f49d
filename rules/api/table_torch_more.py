"""`torch.*` functions added from MindSpore's own mapping facts, and rows that stand in for an
earlier table's row of the same name (registered after the others in rules/api/__init__.py)."""

from __future__ import annotations

from .entries import fn, report

# `alpha=` scales `other`: MindSpore's Tensor.sub takes it, ops.sub does not.
_ALPHA = [
    fn(
        "torch." + name,
        "mindspore.Tensor.sub",
        params=("input", "other"),
        sample=("f32[2,3]", "f32[2,3]"),
        sample_kwargs={"alpha": 0.5},
    )
    for name in ("sub", "subtract")
]

# Functions MindSpore's mapping table pairs with an `ops` function of the same meaning that runs
# on CPU (checked by tests/api/test_tables_real.py with these samples).
_SAME = [
    fn("torch.positive"),
    fn("torch.argwhere"),
    fn("torch.cov", sample=("f32[3,5]",), sample_kwargs={"correction": 0}),
    fn(
        "torch.bitwise_left_shift",
        params=("input", "other"),
        sample=("i64[2,3]", "i64+[2,3]"),
    ),
    fn(
        "torch.bitwise_right_shift",
        params=("input", "other"),
        sample=("i64[2,3]", "i64+[2,3]"),
    ),
    fn(
        "torch.renorm",
        params=("input", "p", "dim", "maxnorm"),
        sample=("f32[2,3]", 2, 0, 1),
        rename={"dim": "axis"},
        transform={"maxnorm": "as_float"},
        positional=4,
    ),
    fn(
        "torch.select_scatter",
        params=("input", "src", "dim", "index"),
        sample=("f32[2,3]", "f32[3]", 0, 1),
        rename={"dim": "axis"},
        positional=4,
    ),
    fn(
        "torch.clamp_min",
        "mindspore.ops.clamp",
        params=("input", "min"),
        sample=("f32[2,3]", 0.0),
    ),
    fn(
        "torch.clamp_max",
        "mindspore.ops.clamp",
        params=("input", "max"),
        sample=("f32[2,3]", 0.0),
        positional=1,
    ),
]

# MindSpore 2.10's CPU any/all misread integer tensors (`ops.all([[4, 0], [0, 2]], 0)` gives
# [False, False]): the input is compared with zero first, which a bool tensor passes unchanged.
_TRUTH = [
    fn(
        "torch." + name,
        rename={"dim": "axis", "keepdim": "keep_dims"},
        transform={"input": "nonzero"},
        positional=3,
        params=("input", "dim", "keepdim"),
        sample=("i64[2,3]", 1),
    )
    for name in ("any", "all")
]

# MindSpore 2.10's CPU signbit reads -0.0 as positive; the companion entry serves it.
_COMPANION = [
    report(
        "torch.signbit",
        "MindSpore's signbit misses the sign of -0.0: "
        "`ops.signbit(x) | ((x == 0) & (1 / x < 0))`",
    )
]

# No certain rewrite, each for its own reason.
_REPORTS = [
    report(
        "torch.pca_lowrank",
        "it draws random projections (torch's generator), and the signs of its singular vectors "
        "are free: compute `ops.svd(A - A.mean(axis=-2, keep_dims=True))` and keep the first "
        "q columns by hand",
    ),
    report(
        "torch.get_device_module",
        "it returns torch's device module (`torch.cuda`); MindSpore places work by context: "
        "`mindspore.get_context('device_target')` names the device",
    ),
    report(
        "torch.get_rng_state",
        "torch's generator state has no MindSpore counterpart; seed with "
        "`mindspore.set_seed(seed)` where the state was saved and restored",
    ),
    report(
        "torch.get_num_interop_threads",
        "MindSpore sets its threads by context: `mindspore.set_context(runtime_num_threads=n)`",
    ),
    report(
        "torch.is_grad_enabled",
        "MindSpore records no tape, so there is no grad mode to ask: the converted code "
        "differentiates functions with `mindspore.grad`/`value_and_grad` where torch recorded",
    ),
    report(
        "torch.set_default_device",
        "MindSpore places work by context, not per tensor: call "
        "`mindspore.set_device('GPU')` (or 'Ascend', 'CPU') once at start-up",
    ),
]

TABLE = tuple(_ALPHA + _SAME + _TRUTH + _COMPANION + _REPORTS)
