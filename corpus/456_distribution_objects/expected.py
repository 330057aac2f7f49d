"""Distributions built from a policy's logits, as policy-gradient scripts build them: their
log-probabilities, entropies and probabilities, a data loader over episodes, and a prior kept
only as an object (reported: the converted object is the companion's, whose class and repr are
not torch's)."""

import mindspore
from mindspore import ops
import ms_aux

logits = mindspore.tensor([[0.1, 0.5, -0.2], [1.0, 0.0, 0.3]])
actions = mindspore.tensor([2, 0])
policy = ms_aux.Categorical(logits=logits)
print("log_prob", policy.log_prob(actions))
print("entropy", policy.entropy())
print("probs", policy.probs)
gauss = ms_aux.Normal(mindspore.tensor([0.0, 1.0]), mindspore.tensor([1.0, 2.0]))
print("normal log_prob", gauss.log_prob(mindspore.tensor([0.5, -1.0])))
print("normal entropy", gauss.entropy(), "stddev", gauss.stddev)
# torch2ms: TM944 `torch.distributions.Normal` object kept only as a value: the companion's object gives torch's samples, log_prob, entropy and moments, but it is not torch's object (torch's repr shows `torch.Size` shapes)
prior = ms_aux.Normal(ops.zeros(3), ops.ones(3))
episodes = ms_aux.DataLoader(ms_aux.TensorDataset(logits, actions.float()), batch_size=1)
for step, (row, action) in enumerate(episodes):
    print("episode", step, row.sum().item(), action.item())
