"""Data-pipeline helpers with torchvision's meaning, on mindspore.dataset and PIL."""
