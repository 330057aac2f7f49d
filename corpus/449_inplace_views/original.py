"""In-place updates of views: a reshaped temporary squashed in place, and a grid viewing a
buffer, scaled and shifted in place (the buffer is not read again)."""

import torch

scores = torch.linspace(-1.0, 1.0, 8).reshape(2, 4)
scores.sigmoid_()
print("scores", scores)


def shifted_grid(n):
    buffer = torch.arange(n, dtype=torch.float32)
    grid = buffer.view(2, -1)
    grid.mul_(0.5).add_(1.0)
    return grid


print("grid", shifted_grid(6))
