"""A small normalising head checked in double precision, as gradient checks are."""

import mindspore
from mindspore import nn, ops
import ms_aux

mindspore.set_seed(0)
head = nn.SequentialCell(
    ms_aux.Linear(6, 4, dtype=mindspore.float64),
    ms_aux.BatchNorm1d(4, dtype=mindspore.float64),
)
head.set_train()
norm = ms_aux.module_cast(ms_aux.BatchNorm1d(4, momentum=0.2), "double")
head.set_train()
norm.set_train()
x = ops.arange(30, dtype=mindspore.float64).reshape(5, 6) ** 2 / 7.0 - 2.0
for _ in range(3):
    y = norm(head(x))
print("y", y)
print("running_var", norm.moving_variance.tolist())
