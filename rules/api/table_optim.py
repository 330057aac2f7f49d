"""`torch.optim` and its schedulers -> `mindspore.experimental.optim`, which takes torch's arguments.

The optimizers are called with gradients (`optimizer(grads)`) instead of `step()`; the training
rules (TM2xx) rewrite the loop, these entries rewrite the construction.
"""

from __future__ import annotations

from .entries import layer, report

O = "torch.optim."
MO = "mindspore.experimental.optim."
S = "torch.optim.lr_scheduler."
MS = "mindspore.experimental.optim.lr_scheduler."
# Implementation switches: the result is the same without them.
_SPEED = ("foreach", "fused", "differentiable", "capturable")


def optimizer(name: str, params: tuple, **fields):
    fields.setdefault("drop", _SPEED)
    return layer(
        O + name, MO + name, params=("params",) + params, status="exact", **fields
    )


def scheduler(name: str, params: tuple, **fields):
    return layer(
        S + name, MS + name, params=("optimizer",) + params, status="exact", **fields
    )


TABLE = (
    optimizer(
        "SGD",
        ("lr", "momentum", "dampening", "weight_decay", "nesterov"),
        init_kwargs={
            "lr": 0.1,
            "momentum": 0.9,
            "weight_decay": 0.01,
            "nesterov": True,
        },
    ),
    optimizer(
        "Adam",
        ("lr", "betas", "eps", "weight_decay", "amsgrad"),
        init_kwargs={"lr": 0.01, "weight_decay": 0.01},
    ),
    optimizer(
        "AdamW",
        ("lr", "betas", "eps", "weight_decay", "amsgrad"),
        init=(0.01,),
        init_kwargs={"betas": (0.8, 0.99)},
    ),
    optimizer(
        "Adagrad",
        ("lr", "lr_decay", "weight_decay", "initial_accumulator_value", "eps"),
        init_kwargs={"lr": 0.1, "lr_decay": 0.01},
    ),
    optimizer(
        "Adadelta", ("lr", "rho", "eps", "weight_decay"), init_kwargs={"lr": 0.5}
    ),
    optimizer(
        "Adamax", ("lr", "betas", "eps", "weight_decay"), init_kwargs={"lr": 0.02}
    ),
    optimizer(
        "ASGD", ("lr", "lambd", "alpha", "t0", "weight_decay"), init_kwargs={"lr": 0.05}
    ),
    optimizer(
        "RMSprop",
        ("lr", "alpha", "eps", "weight_decay", "momentum", "centered"),
        init_kwargs={"lr": 0.01, "momentum": 0.5, "centered": True},
    ),
    optimizer("Rprop", ("lr", "etas", "step_sizes"), init_kwargs={"lr": 0.01}),
    optimizer(
        "RAdam", ("lr", "betas", "eps", "weight_decay"), init_kwargs={"lr": 0.01}
    ),
    optimizer(
        "NAdam",
        ("lr", "betas", "eps", "weight_decay", "momentum_decay"),
        init_kwargs={"lr": 0.01},
    ),
    scheduler("StepLR", ("step_size", "gamma", "last_epoch"), init=(2, 0.5)),
    scheduler(
        "MultiStepLR",
        ("milestones", "gamma", "last_epoch"),
        init=([2, 5],),
        init_kwargs={"gamma": 0.3},
    ),
    scheduler("ExponentialLR", ("gamma", "last_epoch"), init=(0.9,)),
    scheduler(
        "CosineAnnealingLR",
        ("T_max", "eta_min", "last_epoch"),
        init=(5,),
        init_kwargs={"eta_min": 0.01},
    ),
    scheduler(
        "CosineAnnealingWarmRestarts",
        ("T_0", "T_mult", "eta_min", "last_epoch"),
        init=(3, 2),
    ),
    scheduler(
        "LinearLR",
        ("start_factor", "end_factor", "total_iters", "last_epoch"),
        init=(0.25, 1.0, 4),
    ),
    scheduler("ConstantLR", ("factor", "total_iters", "last_epoch"), init=(0.5, 3)),
    scheduler("PolynomialLR", ("total_iters", "power", "last_epoch"), init=(6, 2.0)),
    scheduler(
        "CyclicLR",
        ("base_lr", "max_lr", "step_size_up", "step_size_down", "mode"),
        init=(0.01, 0.1, 3),
    ),
    scheduler(
        "ReduceLROnPlateau",
        ("mode", "factor", "patience", "threshold"),
        init_kwargs={"patience": 1},
    ),
    report(
        O + "LBFGS",
        "MindSpore has no torch-style LBFGS; `mindspore.nn.LBFGS`-like closures are not "
        "available in 2.10: use another optimizer or `mindspore.scipy.optimize.minimize`",
        kind="class",
    ),
    report(
        O + "SparseAdam",
        "MindSpore has no SparseAdam; use `mindspore.experimental.optim.Adam`",
        kind="class",
    ),
    report(
        S + "LambdaLR",
        "the lambda is carried over as it is: `mindspore.experimental.optim.lr_scheduler."
        "LambdaLR(optimizer, lr_lambda)` once the lambda uses no torch",
        kind="class",
    ),
    report(
        S + "OneCycleLR",
        "MindSpore has no OneCycleLR scheduler; precompute the rates with "
        "`mindspore.nn.cosine_decay_lr` or write a LambdaLR",
        kind="class",
    ),
    report(
        S + "SequentialLR",
        "chain `mindspore.experimental.optim.lr_scheduler.SequentialLR(optimizer, "
        "schedulers, milestones)` after converting each scheduler",
        kind="class",
    ),
)
