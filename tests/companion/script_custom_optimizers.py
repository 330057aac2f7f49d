# ruff: noqa: C408 -- written the way optimizer libraries write their defaults
"""Optimizers written against torch's optimizer API, the way model libraries write them, each
training a small model for a few steps: a Lion with a multi-tensor (foreach) branch, an AdamW with
chained in-place updates and decoupled weight decay, a Lamb whose trust ratio comes from
`_foreach_norm`."""

import math

import numpy as np
import torch
from torch import nn
from torch.optim.optimizer import Optimizer, required


class Lion(Optimizer):
    def __init__(
        self, params, lr=required, betas=(0.9, 0.99), weight_decay=0.0, foreach=None
    ):
        defaults = dict(lr=lr, betas=betas, weight_decay=weight_decay, foreach=foreach)
        super().__init__(params, defaults)

    @torch.no_grad()
    def step(self, closure=None):
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        for group in self.param_groups:
            params, grads, exp_avgs = [], [], []
            for p in group["params"]:
                if p.grad is None:
                    continue
                params.append(p)
                grads.append(p.grad)
                state = self.state[p]
                if len(state) == 0:
                    state["exp_avg"] = torch.zeros_like(p)
                exp_avgs.append(state["exp_avg"])
            beta1, beta2 = group["betas"]
            update = _multi_tensor_lion if group["foreach"] else _single_tensor_lion
            update(
                params,
                grads,
                exp_avgs,
                group["lr"],
                beta1,
                beta2,
                group["weight_decay"],
            )
        return loss


def _single_tensor_lion(params, grads, exp_avgs, lr, beta1, beta2, weight_decay):
    for param, grad, exp_avg in zip(params, grads, exp_avgs):
        param.mul_(1 - lr * weight_decay)
        update = exp_avg.mul(beta1).add_(grad, alpha=1 - beta1).sign_()
        param.add_(update, alpha=-lr)
        exp_avg.lerp_(grad, 1 - beta2)


def _multi_tensor_lion(params, grads, exp_avgs, lr, beta1, beta2, weight_decay):
    torch._foreach_mul_(params, 1 - lr * weight_decay)
    updates = torch._foreach_mul(exp_avgs, beta1)
    torch._foreach_add_(updates, grads, alpha=1 - beta1)
    updates = [u.sign() for u in updates]
    torch._foreach_add_(params, updates, alpha=-lr)
    torch._foreach_lerp_(exp_avgs, grads, 1 - beta2)


class AdamW(Optimizer):
    def __init__(
        self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2
    ):
        super().__init__(
            params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay)
        )

    @torch.no_grad()
    def step(self, closure=None):
        for group in self.param_groups:
            beta1, beta2 = group["betas"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                grad = p.grad
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = 0
                    state["exp_avg"] = torch.zeros_like(p)
                    state["exp_avg_sq"] = torch.zeros_like(p)
                exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
                state["step"] += 1
                p.mul_(1 - group["lr"] * group["weight_decay"])
                exp_avg.mul_(beta1).add_(grad, alpha=1 - beta1)
                exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
                bias_correction1 = 1 - beta1 ** state["step"]
                bias_correction2 = 1 - beta2 ** state["step"]
                denom = (exp_avg_sq.sqrt() / math.sqrt(bias_correction2)).add_(
                    group["eps"]
                )
                p.addcdiv_(exp_avg, denom, value=-group["lr"] / bias_correction1)


class Lamb(Optimizer):
    def __init__(
        self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-6, weight_decay=0.01
    ):
        super().__init__(
            params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay)
        )

    @torch.no_grad()
    def step(self, closure=None):
        for group in self.param_groups:
            params = [p for p in group["params"] if p.grad is not None]
            grads = [p.grad for p in params]
            exp_avgs, exp_avg_sqs = [], []
            for p in params:
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = torch.tensor(0.0)
                    state["exp_avg"] = torch.zeros_like(p)
                    state["exp_avg_sq"] = torch.zeros_like(p)
                state["step"].add_(1)
                exp_avgs.append(state["exp_avg"])
                exp_avg_sqs.append(state["exp_avg_sq"])
            step = self.state[params[0]]["step"].item()
            beta1, beta2 = group["betas"]
            torch._foreach_mul_(exp_avgs, beta1)
            torch._foreach_add_(exp_avgs, grads, alpha=1 - beta1)
            torch._foreach_mul_(exp_avg_sqs, beta2)
            torch._foreach_addcmul_(exp_avg_sqs, grads, grads, value=1 - beta2)
            denom = torch._foreach_sqrt(exp_avg_sqs)
            torch._foreach_div_(denom, math.sqrt(1 - beta2**step))
            torch._foreach_add_(denom, group["eps"])
            updates = torch._foreach_div(exp_avgs, denom)
            torch._foreach_div_(updates, 1 - beta1**step)
            torch._foreach_add_(updates, params, alpha=group["weight_decay"])
            w_norms = torch._foreach_norm(params)
            u_norms = torch._foreach_norm(updates)
            ratios = [
                torch.where((w > 0) & (u > 0), w / u, torch.ones_like(w))
                for w, u in zip(w_norms, u_norms)
            ]
            torch._foreach_mul_(updates, ratios)
            torch._foreach_add_(params, updates, alpha=-group["lr"])


class Regressor(nn.Module):
    def __init__(self):
        super().__init__()
        self.hidden = nn.Linear(4, 6)
        self.out = nn.Linear(6, 3)
        with torch.no_grad():
            self.hidden.weight.copy_(torch.linspace(-0.6, 0.6, 24).reshape(6, 4))
            self.hidden.bias.fill_(0.05)
            self.out.weight.copy_(torch.linspace(0.5, -0.5, 18).reshape(3, 6))
            self.out.bias.fill_(0.1)

    def forward(self, x):
        return self.out(torch.relu(self.hidden(x)))


def train(model, optimizer, batches):
    for data, target in batches:
        optimizer.zero_grad()
        loss = ((model(data) - target) ** 2).mean()
        loss.backward()
        optimizer.step()
        print(f"loss {loss.item():.8e}")


def show(model):
    for p in model.parameters():
        print("values", " ".join(f"{v:.8e}" for v in p.detach().numpy().ravel()))


rng = np.random.default_rng(11)
batches = [
    (
        torch.tensor(rng.standard_normal((5, 4)), dtype=torch.float32),
        torch.tensor(rng.standard_normal((5, 3)), dtype=torch.float32),
    )
    for _ in range(4)
]
for foreach in (False, True):
    model = Regressor()
    train(
        model,
        Lion(model.parameters(), lr=0.01, weight_decay=0.1, foreach=foreach),
        batches,
    )
    show(model)
model = Regressor()
train(model, AdamW(model.parameters(), lr=0.05), batches)
show(model)
model = Regressor()
decayed = [model.hidden.weight, model.out.weight]
plain = [model.hidden.bias, model.out.bias]
lamb = Lamb([{"params": decayed}, {"params": plain, "weight_decay": 0.0}], lr=0.02)
for data, target in batches:
    lamb.zero_grad()
    loss = ((model(data) - target) ** 2).mean()
    loss.backward()
    lamb.step()
    print(f"loss {loss.item():.8e}")
show(model)
print("groups", len(lamb.param_groups), "states", len(lamb.state))
