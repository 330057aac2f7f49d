"""Companion entries in library/methods.py: torch qualified name -> entry name.

Tensor methods numpy has too, for a receiver the converter cannot prove is a tensor: the entry
takes the receiver first and decides when the program runs (`torch.Tensor.repeat(x, 2)` reads the
same). The other entries of methods.py are written by the rules that need them, by name.
"""

ENTRIES: dict[str, str] = {
    "torch.Tensor.repeat": "tensor_repeat",
    "torch.Tensor.squeeze": "tensor_squeeze",
    "torch.Tensor.std": "tensor_std",
    "torch.Tensor.var": "tensor_var",
    "torch.Tensor.dot": "tensor_dot",
}
