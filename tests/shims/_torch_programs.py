"""Programs written against the torch API, run on real torch and on the shim facade by the tests."""

from __future__ import annotations

import numpy as np


def mlp_training(torch, optimizer_name: str) -> list[str]:
    """Linear+BatchNorm+ReLU MLP, cross-entropy, 5 steps, then eval under no_grad; weights set from NumPy."""
    nn = torch.nn
    r = np.random.default_rng(0)
    x = torch.tensor(r.standard_normal((16, 8)).astype(np.float32))
    y = torch.tensor(r.integers(0, 3, 16))
    # No bias before BatchNorm: its true gradient is zero, so Adam would amplify rounding noise.
    model = nn.Sequential(
        nn.Linear(8, 12, bias=False), nn.BatchNorm1d(12), nn.ReLU(), nn.Linear(12, 3)
    )
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(
                torch.tensor(r.uniform(-0.5, 0.5, tuple(p.shape)).astype(np.float32))
            )
    if optimizer_name == "sgd":
        opt = torch.optim.SGD(
            model.parameters(), lr=0.1, momentum=0.9, weight_decay=1e-3, nesterov=True
        )
    elif optimizer_name == "adam":
        opt = torch.optim.Adam(model.parameters(), lr=0.01)
    else:
        opt = torch.optim.AdamW(model.parameters(), lr=0.01, weight_decay=0.1)
    loss_fn = nn.CrossEntropyLoss()
    lines = []
    for step in range(5):
        opt.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        lines.append(f"step {step} loss {loss.item():.6f}")
    model.eval()
    with torch.no_grad():
        out = model(x)
        acc = (out.argmax(1) == y).float().mean()
    lines.append(f"eval acc {acc.item():.6f} out0 {out[0].tolist()}")
    lines.append(f"running_mean {model[1].running_mean.tolist()}")
    lines.append(f"running_var {model[1].running_var.tolist()}")
    lines.append(f"w0 {model[0].weight[0].tolist()}")
    return lines


def autograd_semantics(torch) -> list[str]:
    """Printed output of tape semantics: grad_fn, accumulation, retain_grad, higher order, no_grad."""
    out = []
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    w = torch.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], requires_grad=True)
    h = w @ x
    h.retain_grad()
    y = (h.tanh() * h).sum()
    y.backward(retain_graph=True)
    out += [
        repr(h),
        repr(y),
        repr(x.grad),
        repr(w.grad),
        repr(h.grad),
        str(h.is_leaf),
        str(x.is_leaf),
    ]
    y.backward()
    out += [repr(x.grad)]
    z = (x**3).sum()
    (g,) = torch.autograd.grad(z, x, create_graph=True)
    (g2,) = torch.autograd.grad(g.sum(), x)
    out += [repr(g), repr(g2)]
    with torch.no_grad():
        q = x * 2
    out += [repr(q), str(q.requires_grad)]
    x2 = torch.ones(2, 2, requires_grad=True)
    (x2 * 2).backward(torch.tensor([[1.0, 0.5], [0.25, 2.0]]))
    out += [
        repr(x2.grad),
        repr(x2.detach()),
        repr(torch.zeros(3, dtype=torch.float64)),
        repr(torch.arange(5)),
    ]
    out += [
        repr(torch.tensor([True, False])),
        repr(torch.tensor([1e-5, 1.0, 1e3])),
        repr(torch.tensor([[1.5, -2.25]])),
    ]
    out += [
        repr(torch.tensor([123456.0, 1.0])),
        repr(torch.tensor(2.5)),
        repr(torch.tensor([])),
    ]
    return out


def cnn_training(torch) -> list[str]:
    """Conv2d+BatchNorm2d+ReLU+MaxPool2d, then LayerNorm and Linear; 3 SGD-momentum steps, eval."""
    nn = torch.nn
    r = np.random.default_rng(1)
    x = torch.tensor(r.standard_normal((6, 2, 8, 8)).astype(np.float32))
    y = torch.tensor(r.integers(0, 4, 6))
    model = nn.Sequential(
        nn.Conv2d(2, 4, 3, padding=1, bias=False),
        nn.BatchNorm2d(4),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Conv2d(4, 4, 3, stride=2, groups=2),
        nn.Flatten(),
        nn.LayerNorm(4),
        nn.Linear(4, 4),
    )
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(
                torch.tensor(r.uniform(-0.5, 0.5, tuple(p.shape)).astype(np.float32))
            )
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    lines = []
    for step in range(3):
        opt.zero_grad()
        loss = nn.functional.cross_entropy(model(x), y, label_smoothing=0.1)
        loss.backward()
        opt.step()
        lines.append(f"step {step} loss {loss.item():.6f}")
    model.eval()
    with torch.no_grad():
        lines.append(f"out {model(x)[0].tolist()}")
    lines.append(f"running_var {model[1].running_var.tolist()}")
    lines.append(f"conv {model[0].weight[0, 0].flatten().tolist()}")
    return lines
