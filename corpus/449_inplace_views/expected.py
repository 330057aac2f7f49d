"""In-place updates of views: a reshaped temporary squashed in place, and a grid viewing a
buffer, scaled and shifted in place (the buffer is not read again)."""

import mindspore
from mindspore import ops
import ms_aux

scores = ops.linspace(-1.0, 1.0, 8).reshape(2, 4)
ms_aux.assign_view(scores, scores.sigmoid())
print("scores", scores)


def shifted_grid(n):
    buffer = ops.arange(n, dtype=mindspore.float32)
    grid = buffer.view(2, -1)
    # torch2ms: TM947 `grid` may be a view of another tensor: MindSpore updates the view, and the tensor it views only for slices and rows
    ms_aux.assign_view(grid, ms_aux.assign_view(grid, grid.mul(0.5)).add(1.0))
    return grid


print("grid", shifted_grid(6))
