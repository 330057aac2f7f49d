"""Companion entries in library/tensor_methods.py: Tensor method -> entry name and torch's
parameters after the receiver (any of which a call may leave out)."""

from __future__ import annotations

from .table_linalg import ENTRIES as _LINALG

_SIZES = ("size", "dtype", "device", "requires_grad", "layout", "pin_memory")
_METHODS: dict[str, tuple[str, tuple[str, ...]]] = {
    "new_full": ("new_full", ("size", "fill_value", *_SIZES[1:])),
    "new_ones": ("new_ones", _SIZES),
    "new_zeros": ("new_zeros", _SIZES),
    "new_empty": ("new_empty", _SIZES),
    "fill_diagonal_": ("fill_diagonal_", ("fill_value", "wrap")),
    "scatter_reduce": (
        "scatter_reduce",
        ("dim", "index", "src", "reduce", "include_self"),
    ),
    "kthvalue": ("kthvalue", ("k", "dim", "keepdim")),
    "topk": ("topk", ("k", "dim", "largest", "sorted")),
    "polygamma": ("tensor_polygamma", ("n",)),
    "split_with_sizes": ("split_with_sizes", ("split_sizes", "dim")),
    "index_fill": ("index_fill", ("dim", "index", "value")),
    "diag": ("tensor_diag", ("diagonal",)),
    "narrow": ("narrow", ("dim", "start", "length")),
    "diff": ("tensor_diff", ("n", "dim", "prepend", "append")),
    "corrcoef": ("tensor_corrcoef", ()),
    "frexp": ("tensor_frexp", ()),
    "dim_order": ("dim_order", ("ambiguity_check",)),
    "resolve_conj": ("resolved", ()),
    "resolve_neg": ("resolved", ()),
    "norm": ("tensor_norm", ("p", "dim", "keepdim", "dtype")),
    "stft": (
        "stft",
        (
            "n_fft",
            "hop_length",
            "win_length",
            "window",
            "center",
            "pad_mode",
            "normalized",
            "onesided",
            "return_complex",
            "align_to_window",
        ),
    ),
    "istft": (
        "istft",
        (
            "n_fft",
            "hop_length",
            "win_length",
            "window",
            "center",
            "normalized",
            "onesided",
            "length",
            "return_complex",
        ),
    ),
}

# Methods the entry of their `torch.*` function serves, receiver first: torch's parameters.
_FROM_FUNCTIONS: dict[str, tuple[str, ...]] = {
    "svd": ("some", "compute_uv"),
    "lu": ("pivot", "get_infos"),
    "ormqr": ("input2", "input3", "left", "transpose"),
    "geqrf": (),
    "pinverse": ("rcond",),
    "cholesky_solve": ("input2", "upper"),
}
_METHODS.update(
    {
        name: (_LINALG["torch." + name], params)
        for name, params in _FROM_FUNCTIONS.items()
    }
)

ENTRIES: dict[str, str] = {
    "torch.Tensor." + name: entry for name, (entry, _) in _METHODS.items()
}
METHOD_PARAMS: dict[str, tuple[str, ...]] = {
    "torch.Tensor." + name: params for name, (_, params) in _METHODS.items()
}

# Methods whose MindSpore idiom holds except for some arguments: a call giving one of these
# (torch's name, its position after the receiver, the literal values as source; "*" for any
# value, "<not int>" for any but an int literal) takes the entry instead.
_SIZES_ONE_BY_ONE = (
    # `x.new_ones(2, 3)` or `size=`: MindSpore's takes the size as one positional tuple
    ("size", 99, ("*",)),
    ("*size", 1, ("*",)),
)
IDIOM_EXCEPT: dict[str, tuple[tuple[str, int, tuple[str, ...]], ...]] = {
    "new_ones": _SIZES_ONE_BY_ONE,
    "new_zeros": _SIZES_ONE_BY_ONE,
    "new_empty": _SIZES_ONE_BY_ONE,
    # MindSpore's norm: 'fro' over all of a 3-D tensor is None, p=0 and inf over all elements
    # are refused as matrix norms, and LpNorm takes float16 and float32 only.
    "norm": (
        ("p", 0, ("'fro'", '"fro"', "0", "float('inf')", "float('-inf')", "math.inf")),
        ("dtype", 3, ("*",)),
        # several dims are a matrix norm in MindSpore, torch's vector norm over them
        ("dim", 1, ("<not int>",)),
    ),
}
