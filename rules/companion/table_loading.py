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
    "torch.utils.data.WeightedRandomSampler": "WeightedRandomSampler",
    "torch.utils.data.ConcatDataset": "ConcatDataset",
    "torch.utils.data.ChainDataset": "ChainDataset",
    "torch.utils.data.default_convert": "default_convert",
    "torch.utils.data._utils.collate.default_convert": "default_convert",
    "torch.utils.data._utils.collate.default_collate": "default_collate",
}

# torch defines these in submodules and exports them from torch.utils.data; both spellings map.
for _name in (
    "Sampler",
    "SequentialSampler",
    "RandomSampler",
    "SubsetRandomSampler",
    "WeightedRandomSampler",
    "BatchSampler",
):
    ENTRIES["torch.utils.data.sampler." + _name] = _name
for _name in ("ConcatDataset", "ChainDataset", "TensorDataset", "Subset", "random_split"):
    ENTRIES["torch.utils.data.dataset." + _name] = _name
