"""REINFORCE as in pytorch/examples: log-probabilities are collected over an episode, then one backward."""

import numpy as np
import mindspore
from mindspore import nn, ops
from mindspore.experimental import optim
import ms_aux


class Policy(nn.Cell):
    def __init__(self):
        super().__init__()
        self.affine1 = nn.Dense(4, 16)
        self.affine2 = nn.Dense(16, 2)
        self.saved_log_probs = []
        self.rewards = []

    def construct(self, x):
        x = ops.relu(self.affine1(x))
        return ops.softmax(self.affine2(x), axis=1)


rng = np.random.default_rng(23)
mindspore.set_seed(0)
policy = Policy()
optimizer = optim.Adam(policy.trainable_params(), lr=1e-2)
gamma = 0.99


def select_action(state, choice):
    state = mindspore.tensor(state, dtype=mindspore.float32).unsqueeze(0)
    probs = policy(state)
    policy.saved_log_probs.append(ops.log(probs[0, choice]))
    return choice


def finish_episode():
    import torch
    R = 0
    returns = []
    for r in policy.rewards[::-1]:
        R = r + gamma * R
        returns.insert(0, R)
    returns = mindspore.tensor(returns)
    returns = (returns - returns.mean()) / (ms_aux.tensor_std(returns) + 1e-6)
    policy_loss = []
    for log_prob, R in zip(policy.saved_log_probs, returns):
        policy_loss.append(-log_prob * R)
    # torch2ms: TM900 `.zero_grad()` is not converted: no certain MindSpore mapping; it still runs on torch
    optimizer.zero_grad()
    policy_loss = ops.stack(policy_loss).sum()
    # torch2ms: TM920 no model is called in the computation of this loss here (its forward pass ran elsewhere: in an earlier call, kept in a list, or in another function); the training step is left unconverted
    policy_loss.backward()
    optimizer.step()
    del policy.rewards[:]
    del policy.saved_log_probs[:]
    return policy_loss.item()


for episode in range(3):
    for t in range(5):
        select_action(rng.standard_normal(4), int(rng.integers(0, 2)))
        policy.rewards.append(float(rng.uniform()))
    print("episode", episode, "policy loss", finish_episode())
