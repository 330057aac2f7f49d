import torch

# Class weights from integer label counts, and a log scale of integer positions.
class_counts = torch.tensor([120, 30, 7, 1])
weights = 1.0 / torch.log1p(class_counts)
weights = weights / weights.sum()

positions = torch.arange(1, 9)
log_distance = torch.log(positions) / torch.log(torch.tensor(8))
decay = (positions - 1).exp().reciprocal()

logits = torch.tensor([0.5, -1.0, 2.0])
probabilities = torch.sigmoid(logits)

print("weights", weights)
print("log_distance", log_distance)
print("decay", decay)
print("probabilities", probabilities)
