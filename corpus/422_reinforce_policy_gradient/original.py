"""REINFORCE as in pytorch/examples: log-probabilities are collected over an episode, then one backward."""

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class Policy(nn.Module):
    def __init__(self):
        super().__init__()
        self.affine1 = nn.Linear(4, 16)
        self.affine2 = nn.Linear(16, 2)
        self.saved_log_probs = []
        self.rewards = []

    def forward(self, x):
        x = F.relu(self.affine1(x))
        return F.softmax(self.affine2(x), dim=1)


rng = np.random.default_rng(23)
torch.manual_seed(0)
policy = Policy()
optimizer = torch.optim.Adam(policy.parameters(), lr=1e-2)
gamma = 0.99


def select_action(state, choice):
    state = torch.tensor(state, dtype=torch.float32).unsqueeze(0)
    probs = policy(state)
    policy.saved_log_probs.append(torch.log(probs[0, choice]))
    return choice


def finish_episode():
    R = 0
    returns = []
    for r in policy.rewards[::-1]:
        R = r + gamma * R
        returns.insert(0, R)
    returns = torch.tensor(returns)
    returns = (returns - returns.mean()) / (returns.std() + 1e-6)
    policy_loss = []
    for log_prob, R in zip(policy.saved_log_probs, returns):
        policy_loss.append(-log_prob * R)
    optimizer.zero_grad()
    policy_loss = torch.stack(policy_loss).sum()
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
