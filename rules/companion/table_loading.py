"""Companion entries in library/loading.py: torch qualified name -> entry name."""

ENTRIES: dict[str, str] = {
    "torch.utils.data.DataLoader": "DataLoader",
    "torch.utils.data.dataloader.DataLoader": "DataLoader",
    "torch.utils.data.default_collate": "default_collate",
    "torch.utils.data.get_worker_info": "get_worker_info",
    "torch.utils.data.Sampler": "Sampler",
    "torch.utils.data.sampler.Sampler": "Sampler",
    "torch.utils.data.SequentialSampler": "SequentialSampler",
    "torch.utils.data.RandomSampler": "RandomSampler",
    "torch.utils.data.SubsetRandomSampler": "SubsetRandomSampler",
    "torch.utils.data.BatchSampler": "BatchSampler",
    "torch.utils.data.distributed.DistributedSampler": "DistributedSampler",
    "torch.utils.data.DistributedSampler": "DistributedSampler",
    "torch.utils.data.TensorDataset": "TensorDataset",
    "torch.utils.data.Subset": "Subset",
    "torch.utils.data.random_split": "random_split",
    "torch.utils.data.dataloader.default_collate": "default_collate",
}
