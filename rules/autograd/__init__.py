"""Autograd rules (TM1xx): PyTorch's recorded gradients become MindSpore's functional gradients."""
