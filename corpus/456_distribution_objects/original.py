"""Distributions built from a policy's logits, as policy-gradient scripts build them: their
log-probabilities, entropies and probabilities, a data loader over episodes, and a prior kept
only as an object (reported: the converted object is the companion's, whose class and repr are
not torch's)."""

import torch
from torch.distributions import Categorical, Normal
from torch.utils.data import DataLoader, TensorDataset

logits = torch.tensor([[0.1, 0.5, -0.2], [1.0, 0.0, 0.3]])
actions = torch.tensor([2, 0])
policy = Categorical(logits=logits)
print("log_prob", policy.log_prob(actions))
print("entropy", policy.entropy())
print("probs", policy.probs)
gauss = Normal(torch.tensor([0.0, 1.0]), torch.tensor([1.0, 2.0]))
print("normal log_prob", gauss.log_prob(torch.tensor([0.5, -1.0])))
print("normal entropy", gauss.entropy(), "stddev", gauss.stddev)
prior = Normal(torch.zeros(3), torch.ones(3))
episodes = DataLoader(TensorDataset(logits, actions.float()), batch_size=1)
for step, (row, action) in enumerate(episodes):
    print("episode", step, row.sum().item(), action.item())
