"""torch2ms: migrate PyTorch code to MindSpore 2.x and check each rewrite numerically."""

__version__ = "0.1.0"
