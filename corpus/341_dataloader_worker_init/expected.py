"""A loader seeding each worker process, as reproducible training scripts do."""

import numpy as np
from mindspore import ops
import ms_aux


def seed_worker(worker_id):
    np.random.seed(ms_aux.initial_seed() % 2**32 + worker_id)


data = ms_aux.TensorDataset(ops.arange(12.0).reshape(6, 2), ops.arange(6))
# torch2ms: TM936 DataLoader `worker_init_fn=` runs once, for worker 0 of 1: the companion DataLoader loads in this process as one worker (torch calls it in each of num_workers processes)
loader = ms_aux.DataLoader(data, batch_size=4, num_workers=2, worker_init_fn=seed_worker)
for features, targets in loader:
    print("batch", features.sum().item(), targets.sum().item())
