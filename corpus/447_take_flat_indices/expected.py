"""Scores gathered at flat indices with torch.take (a retrieval step picking ranked items)."""

import mindspore
from mindspore import ops
import torch

scores = ops.arange(12, dtype=mindspore.float32).reshape(3, 4)
ranked = mindspore.tensor([0, 5, 11])
# torch2ms: TM942 `torch.take` maps to `mindspore.ops.take`, which MindSpore 2.10 runs on gpu, ascend only, not on cpu
picked = torch.take(scores, ranked)
print("picked", picked.sum().item())
