"""Companion entries in library/runtime.py: torch qualified name -> entry name."""

ENTRIES: dict[str, str] = {
    "torch.get_autocast_dtype": "get_autocast_dtype",
    "torch.get_autocast_cpu_dtype": "get_autocast_cpu_dtype",
    "torch.get_autocast_gpu_dtype": "get_autocast_gpu_dtype",
    "torch.get_default_device": "get_default_device",
    "torch._assert_async": "assert_async",
    "torch.serialization.safe_globals": "safe_globals",
    "torch.nn.init._calculate_fan_in_and_fan_out": "calculate_fan_in_and_fan_out",
    "torch.Tensor": "legacy_tensor",
    "torch.vmap": "vmap",
    "torch.func.vmap": "vmap",
    "torch.Size": "Size",
    "torch.initial_seed": "initial_seed",
    "torch.seed": "seed",
    "torch.utils.data._utils.collate.np_str_obj_array_pattern": "np_str_obj_array_pattern",
    "torch.utils.data._utils.collate.default_collate_err_msg_format": (
        "default_collate_err_msg_format"
    ),
}
# The legacy constructors named by element type; as types (isinstance) they stay findings.
LEGACY_TYPED = (
    "FloatTensor",
    "DoubleTensor",
    "HalfTensor",
    "BFloat16Tensor",
    "LongTensor",
    "IntTensor",
    "ShortTensor",
    "CharTensor",
    "ByteTensor",
    "BoolTensor",
)
ENTRIES.update({f"torch.{name}": name for name in LEGACY_TYPED})

# Entries that serve calls only: `torch.Tensor` named without a call (a type check, an annotation,
# a base class) is `mindspore.Tensor`.
CALL_ONLY = frozenset({"legacy_tensor", "Size", *LEGACY_TYPED})

# Entries that stand for a torch class in type checks only (`isinstance(d, IterableDataset)`); as
# a base class the data rules drop these classes, and elsewhere they stay findings.
TYPE_CHECK_ONLY: dict[str, str] = {
    "torch.utils.data.Dataset": "Dataset",
    "torch.utils.data.dataset.Dataset": "Dataset",
    "torch.utils.data.IterableDataset": "IterableDataset",
    "torch.utils.data.dataset.IterableDataset": "IterableDataset",
}
