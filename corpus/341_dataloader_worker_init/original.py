"""A loader seeding each worker process, as reproducible training scripts do."""

import numpy as np
import torch
from torch.utils.data import DataLoader, TensorDataset


def seed_worker(worker_id):
    np.random.seed(torch.initial_seed() % 2**32 + worker_id)


data = TensorDataset(torch.arange(12.0).reshape(6, 2), torch.arange(6))
loader = DataLoader(data, batch_size=4, num_workers=2, worker_init_fn=seed_worker)
for features, targets in loader:
    print("batch", features.sum().item(), targets.sum().item())
