import mindspore
from mindspore import ops

# Class weights from integer label counts, and a log scale of integer positions.
class_counts = mindspore.tensor([120, 30, 7, 1])
weights = 1.0 / ops.log1p(class_counts.float())
weights = weights / weights.sum()

positions = ops.arange(1, 9)
log_distance = ops.log(positions.float()) / ops.log(mindspore.tensor(8).float())
decay = (positions - 1).float().exp().reciprocal()

logits = mindspore.tensor([0.5, -1.0, 2.0])
probabilities = ops.sigmoid(logits)

print("weights", weights)
print("log_distance", log_distance)
print("decay", decay)
print("probabilities", probabilities)
