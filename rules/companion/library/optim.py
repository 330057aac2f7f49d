"""Optimizers: torch's optimizer API on MindSpore parameters."""
