"""Device counts asked of torch, answered for the device MindSpore's context runs on.

`torch.cuda.device_count()` sizes multi-GPU placement (`device_map`s, process groups). In converted
code the question is how many GPUs MindSpore runs on: none where its context targets the CPU or
Ascend, so the code takes its single-device path, as torch's does on a machine without CUDA.
"""

import mindspore

from .plumbing import _device_target


def cuda_device_count():
    """`torch.cuda.device_count()`: the GPUs MindSpore sees where its context targets the GPU,
    0 elsewhere."""
    if _device_target() != "GPU":
        return 0
    return mindspore.hal.device_count("GPU")
