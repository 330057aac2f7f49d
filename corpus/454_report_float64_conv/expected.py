"""A convolution checked in double precision, and weights stored in float8."""

import mindspore
from mindspore import ops
import ms_aux

# torch2ms: TM960 Conv1d in float64: MindSpore 2.10's CPU convolution kernels take float16/float32 only, and the converted layer fails on its first call
conv = ms_aux.Conv1d(3, 4, 3, padding=1, dtype=mindspore.float64)
x = ops.randn((2, 3, 8), dtype=mindspore.float64)
y = conv(x)
# torch2ms: TM960 float8_e4m3fn: MindSpore 2.10 has no CPU Cast kernel for it, so no tensor can be made in it on the CPU
packed = ops.stop_gradient(conv.weight).to(mindspore.float8_e4m3fn)
print("y", y.sum().item(), packed.float().sum().item())
