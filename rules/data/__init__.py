"""TM31x: torch.utils.data Dataset and DataLoader to mindspore.dataset."""
