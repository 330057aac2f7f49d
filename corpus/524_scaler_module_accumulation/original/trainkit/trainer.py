"""A trainer whose step hands the loss to a helper of another module."""

import torch.nn.functional as F

from .steps import clipped_step


class Trainer:
    def __init__(self, model, optimizer, max_norm=0.3):
        self.model = model
        self.optimizer = optimizer
        self.max_norm = max_norm

    def train_step(self, inputs, targets):
        logits = self.model(inputs)
        loss = F.mse_loss(logits, targets)
        clipped_step(loss, self.optimizer, self.model.parameters(), self.max_norm)
        return loss.item()
