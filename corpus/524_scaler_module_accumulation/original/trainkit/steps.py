"""A step helper that zeroes, runs backward, clips and steps the optimizer it receives."""

import torch


def clipped_step(loss, optimizer, parameters, max_norm):
    optimizer.zero_grad()
    loss.backward()
    torch.nn.utils.clip_grad_norm_(parameters, max_norm)
    optimizer.step()
