"""Other packages' torch bindings, on MindSpore tensors: `safetensors.torch`.

safetensors reads and writes the same files for every framework; its NumPy binding does the work
here and the arrays become MindSpore tensors (bfloat16 files need a binding that NumPy lacks).
"""

import mindspore
import numpy as np


def _arrays(tensors):
    return {
        name: t.asnumpy() if isinstance(t, mindspore.Tensor) else np.asarray(t)
        for name, t in tensors.items()
    }


def safetensors_load(data, device="cpu"):
    """`safetensors.torch.load(bytes)`: the tensors stored in `data`, as MindSpore tensors."""
    from safetensors.numpy import load

    return {name: mindspore.Tensor(a) for name, a in load(data).items()}


def safetensors_load_file(filename, device="cpu"):
    """`safetensors.torch.load_file(path)`: the tensors stored in the file, as MindSpore tensors."""
    from safetensors.numpy import load_file

    return {name: mindspore.Tensor(a) for name, a in load_file(filename).items()}


def safetensors_save(tensors, metadata=None):
    """`safetensors.torch.save(tensors)`: the bytes of a safetensors file holding `tensors`."""
    from safetensors.numpy import save

    return save(_arrays(tensors), metadata=metadata)


def safetensors_save_file(tensors, filename, metadata=None):
    """`safetensors.torch.save_file(tensors, path)`: writes `tensors` to a safetensors file."""
    from safetensors.numpy import save_file

    save_file(_arrays(tensors), filename, metadata=metadata)


def storage_ptr(tensor):
    """`safetensors.torch.storage_ptr(t)`: where the tensor's data lives; tensors that share it
    (tied weights) share this number."""
    if hasattr(tensor, "data_ptr"):
        return int(tensor.data_ptr())
    return id(tensor)


def storage_size(tensor):
    """`safetensors.torch.storage_size(t)`: the size of the tensor's data, in bytes."""
    return int(tensor.nbytes)
