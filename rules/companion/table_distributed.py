"""Companion entries in library/distributed.py: torch qualified name -> entry name.

On the Ascend target the torch-aligned `mindspore.mint.distributed` functions serve calls instead
(rules/api/table_mint.py); these entries serve every other target and values.
"""

ENTRIES: dict[str, str] = {
    "torch.distributed.is_available": "dist_is_available",
    "torch.distributed.is_initialized": "dist_is_initialized",
    "torch.distributed.get_rank": "dist_get_rank",
    "torch.distributed.get_world_size": "dist_get_world_size",
    "torch.distributed.init_process_group": "init_process_group",
    "torch.distributed.ReduceOp": "ReduceOp",
    "torch.distributed.all_reduce": "all_reduce",
    "torch.distributed.all_gather": "all_gather",
    "torch.distributed.broadcast": "broadcast",
    "torch.nn.parallel.DistributedDataParallel": "DistributedDataParallel",
    "torch.nn.parallel.distributed.DistributedDataParallel": "DistributedDataParallel",
    "torch.cuda.set_device": "cuda_set_device",
    "torch.npu.set_device": "npu_set_device",
}
