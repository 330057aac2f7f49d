"""TM32x: saving and loading state dicts as MindSpore checkpoints."""
