# Seed 000/001, "自动微分对比": PyTorch's backward accumulates into the leaves' .grad.
from mindspore import ops

x = ops.ones((2, 2))
x = x * 2
y = x - 1
print("x", x)
# torch2ms: TM101 backward removed: its gradient goes only to a tensor no name refers to any more
print("y", y)
