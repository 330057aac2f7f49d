"""Normalisation constants computed over a dataset through a DataLoader with a custom collate_fn."""

import numpy as np
import mindspore
from mindspore import ops
import ms_aux


class Recordings:
    def __init__(self, n, seed):
        rng = np.random.default_rng(seed)
        self.signals = [rng.standard_normal(int(rng.integers(3, 7))).astype(np.float32) * 2 + 1 for _ in range(n)]

    def __len__(self):
        return len(self.signals)

    def __getitem__(self, index):
        return self.signals[index]


def pad_collate(batch):
    longest = max(len(signal) for signal in batch)
    padded = ops.zeros((len(batch), longest))
    mask = ops.zeros((len(batch), longest))
    for row, signal in enumerate(batch):
        padded[row, : len(signal)] = mindspore.from_numpy(signal)
        mask[row, : len(signal)] = 1
    return padded, mask


loader = ms_aux.DataLoader(Recordings(10, seed=31), batch_size=4, collate_fn=pad_collate)
total, total_sq, count = 0.0, 0.0, 0.0
for padded, mask in loader:
    total += (padded * mask).sum().item()
    total_sq += (padded**2 * mask).sum().item()
    count += mask.sum().item()
mean = total / count
std = (total_sq / count - mean**2) ** 0.5
print("mean", mean, "std", std, "samples", count)
