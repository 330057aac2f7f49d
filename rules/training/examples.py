"""Docs and before/after examples of the training rules (data: the tests and `torch2ms rules` read them)."""

from __future__ import annotations

from ...migrator.rule import Example

ACCUMULATION_WHAT = (
    "Keeps the gradients across iterations when the loop accumulates them (a `backward()` every "
    "micro-batch, `optimizer.step()` and `zero_grad()` every N): `accum_grads` starts at zeros, each "
    "micro-batch adds its `grads` with `tuple(map(ops.add, accum_grads, grads))`, the step uses the "
    "sum and the reset sets it back to zeros. Both variants of seed 004 (`loss / N` with "
    "`reduction='mean'`, plain `reduction='sum'`) come out exact."
)
ACCUMULATION_WHY = (
    "`backward()` adds into `.grad` until `zero_grad()`; a rewrite that assigned the gradients of each "
    "micro-batch would keep only the last one (seed 004, 梯度累加)."
)
ACCUMULATION_USE = (
    "`accum_grads = tuple(ops.zeros_like(p) for p in optimizer.parameters)` before the loop; "
    "`accum_grads = tuple(map(ops.add, accum_grads, grads))` after each `grad_fn` call; "
    "`optimizer(accum_grads)` and the reset every N micro-batches."
)
CLIP_WHAT = (
    "Turns `clip_grad_norm_(model.parameters(), max_norm)` between `backward()` and `step()` into "
    "`grads = ops.clip_by_global_norm(grads, max_norm)` when that matches torch within 1e-4 "
    "(MindSpore divides by the global norm, torch by `norm + 1e-6`: the same for literal "
    "`max_norm >= 0.01`), otherwise into torch's exact formula on the gradient values; "
    "`clip_grad_value_` becomes `ops.clip_by_value(grads, -c, c)`."
)
CLIP_WHY = "Clipping changes `.grad` in place; in MindSpore it is a function of the gradient values (seed: 梯度裁剪)."
CLIP_USE = "`grads = ops.clip_by_global_norm(grads, max_norm)` between `grad_fn(...)` and `optimizer(grads)`."
SCALER_WHAT = (
    "Turns `torch.amp.GradScaler()`/`torch.cuda.amp.GradScaler()` into "
    "`mindspore.amp.DynamicLossScaler(scale_value=2**16, scale_factor=2, scale_window=2000)`; "
    "`scaler.scale(loss).backward()` differentiates `scaler.scale(loss)`, `scaler.unscale_(opt)` "
    "becomes `grads = scaler.unscale(grads)`, `scaler.step(opt)` steps only when "
    "`amp.all_finite(grads)`, and `scaler.update()` becomes `scaler.adjust(grads_finite)`. "
    "Clipping before `unscale_` clips the scaled gradients, as torch does; this is exact while "
    "torch's GradScaler is enabled, so a CUDA GradScaler with `--target cpu` (which torch disables) "
    "keeps such a step reported, and one whose device cannot be told gets a warning. When one "
    "forward feeds the scaled backward and the plain one in exclusive branches (`if use_amp:`), each "
    "branch calls its own grad function of the shared `forward_fn`, and a path without a backward "
    "calls `forward_fn` itself."
)
SCALER_WHY = (
    "MindSpore's loss scalers work on values: scale the loss inside the differentiated function, "
    "unscale the gradients, check them with `all_finite` and update only when they are finite "
    "(seed: loss scale). Note that on a machine without CUDA torch disables a CUDA GradScaler "
    "(scale 1, no skipped steps); the converted code always scales, which gives the same numbers "
    "because scaling by a power of two is exact."
)
SCALER_USE = (
    "`loss_scaler = amp.DynamicLossScaler(2**16, 2, 2000)`; in `forward_fn` return "
    "`loss_scaler.scale(loss)`; then `grads = loss_scaler.unscale(grads)`, "
    "`finite = amp.all_finite(grads)`, `if finite: optimizer(grads)`, `loss_scaler.adjust(finite)`."
)
SEVERAL_WHAT = (
    "Keeps one gradient value per optimizer when a step updates several parameter sets (a GAN's "
    "discriminator and generator): each loss gets its own `forward_fn`/`grad_fn` over its optimizer's "
    "parameters. Values used under `.detach()` are computed once outside; a statement two losses "
    "differentiate through is repeated only when it has no side effects."
)
SEVERAL_WHY = (
    "`backward()` fills `.grad` of every parameter the loss reaches; the next `zero_grad()` of the other "
    "optimizer discards what it does not need. `value_and_grad` computes only the gradients asked for."
)
SEVERAL_USE = (
    "`grad_fn_D = value_and_grad(forward_fn_D, None, optimizerD.parameters)`, "
    "`grad_fn_G = value_and_grad(forward_fn_G, None, optimizerG.parameters)`; `optimizerD(grads_D)`, "
    "`optimizerG(grads_G)`."
)
MANUAL_WHAT = (
    "Turns hand-written updates `for p in model.parameters(): p.data.add_(p.grad, alpha=-lr)` into "
    "`for p, grad in zip(model.trainable_params(), grads): ops.assign(p, p - lr * grad)`."
)
MANUAL_WHY = "MindSpore parameters have no `.grad`; the gradients come in the order of the weights given to `value_and_grad`."
MANUAL_USE = (
    "`for p, g in zip(model.trainable_params(), grads): ops.assign(p, p - lr * g)`."
)

_LOOP = """import torch

def train(model, loader, optimizer, criterion):
    for data, target in loader:
        optimizer.zero_grad()
        output = model(data)
        loss = criterion(output, target)
        loss.backward()
        optimizer.step()
        print("loss", loss.item())
"""
_LOOP_AFTER = """import mindspore

def train(model, loader, optimizer, criterion):
    def forward_fn(data, target):
        output = model(data)
        loss = criterion(output, target)
        return loss
    grad_fn = mindspore.value_and_grad(forward_fn, None, optimizer.parameters)
    for data, target in loader:
        loss, grads = grad_fn(data, target)
        optimizer(grads)
        print("loss", loss.item())
"""
TM201 = (Example(before=_LOOP, after=_LOOP_AFTER),)

_ACCUM = """import torch

for i, (images, target) in enumerate(train_loader):
    outputs = model(images)
    loss = criterion(outputs, target)
    loss = loss / accumulation_steps
    loss.backward()
    if (i + 1) % accumulation_steps == 0:
        optimizer.step()
        optimizer.zero_grad()
"""
_ACCUM_AFTER = """import mindspore
from mindspore import ops

def forward_fn(images, target):
    outputs = model(images)
    loss = criterion(outputs, target)
    loss = loss / accumulation_steps
    return loss
grad_fn = mindspore.value_and_grad(forward_fn, None, optimizer.parameters)
accum_grads = tuple(ops.zeros_like(p) for p in optimizer.parameters)
for i, (images, target) in enumerate(train_loader):
    loss, grads = grad_fn(images, target)
    accum_grads = tuple(map(ops.add, accum_grads, grads))
    if (i + 1) % accumulation_steps == 0:
        optimizer(accum_grads)
        accum_grads = tuple(ops.zeros_like(p) for p in optimizer.parameters)
"""
TM202 = (Example(before=_ACCUM, after=_ACCUM_AFTER),)

_CLIP = """import torch

for data, target in loader:
    optimizer.zero_grad()
    loss = criterion(model(data), target)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 0.5)
    optimizer.step()
"""
_CLIP_AFTER = """import mindspore
from mindspore import ops

def forward_fn(data, target):
    loss = criterion(model(data), target)
    return loss
grad_fn = mindspore.value_and_grad(forward_fn, None, optimizer.parameters)
for data, target in loader:
    loss, grads = grad_fn(data, target)
    # torch2ms: TM201 assumes `optimizer` holds exactly the parameters of `model`
    grads = ops.clip_by_global_norm(grads, 0.5)
    optimizer(grads)
"""
TM203 = (Example(before=_CLIP, after=_CLIP_AFTER),)

_SCALER = """import torch

scaler = torch.cuda.amp.GradScaler()
for data, target in loader:
    optimizer.zero_grad()
    loss = criterion(model(data), target)
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
"""
_SCALER_AFTER = """import mindspore
from mindspore import amp

scaler = amp.DynamicLossScaler(scale_value=2 ** 16, scale_factor=2, scale_window=2000)
def forward_fn(data, target):
    loss = criterion(model(data), target)
    return scaler.scale(loss)
grad_fn = mindspore.value_and_grad(forward_fn, None, optimizer.parameters)
for data, target in loader:
    _, grads = grad_fn(data, target)
    grads = scaler.unscale(grads)
    grads_finite = amp.all_finite(grads)
    if grads_finite:
        optimizer(grads)
    scaler.adjust(grads_finite)
"""
_SHARED = """import torch

scaler = torch.amp.GradScaler("cpu")


def run_batch(x, y, train=True):
    out = model(x)
    loss = criterion(out, y)
    if train:
        optimizer.zero_grad()
        if use_amp:
            scaler.scale(loss).backward()
            scaler.step(optimizer)
            scaler.update()
        else:
            loss.backward()
            optimizer.step()
    return loss.item()
"""
_SHARED_AFTER = """import mindspore
from mindspore import amp

scaler = amp.DynamicLossScaler(scale_value=2 ** 16, scale_factor=2, scale_window=2000)


def run_batch(x, y, train=True):
    def forward_fn():
        out = model(x)
        loss = criterion(out, y)
        return loss
    def forward_fn_scaled():
        loss = forward_fn()
        return scaler.scale(loss), loss
    grad_fn_scaled = mindspore.value_and_grad(forward_fn_scaled, None, optimizer.parameters, has_aux=True)
    grad_fn = mindspore.value_and_grad(forward_fn, None, optimizer.parameters)
    if train:
        if use_amp:
            (_, loss), grads = grad_fn_scaled()
            grads = scaler.unscale(grads)
            grads_finite = amp.all_finite(grads)
            if grads_finite:
                optimizer(grads)
            scaler.adjust(grads_finite)
        else:
            loss, grads = grad_fn()
            optimizer(grads)
    else:
        loss = forward_fn()
    return loss.item()
"""
TM204 = (
    Example(before=_SCALER, after=_SCALER_AFTER),
    Example(before=_SHARED, after=_SHARED_AFTER),
)

_GAN = """import torch
from torch import nn

netG = nn.Sequential(nn.Linear(2, 4), nn.Tanh())
netD = nn.Sequential(nn.Linear(4, 1), nn.Sigmoid())
criterion = nn.BCELoss()
optimizerD = torch.optim.SGD(netD.parameters(), lr=0.1)
optimizerG = torch.optim.SGD(netG.parameters(), lr=0.1)
for real, noise in loader:
    optimizerD.zero_grad()
    fake = netG(noise)
    errD = criterion(netD(real), ones) + criterion(netD(fake.detach()), zeros)
    errD.backward()
    optimizerD.step()
    optimizerG.zero_grad()
    errG = criterion(netD(fake), ones)
    errG.backward()
    optimizerG.step()
"""
_GAN_AFTER = """import mindspore
from mindspore import nn, ops
from mindspore.experimental import optim

netG = nn.SequentialCell(nn.Dense(2, 4), nn.Tanh())
netD = nn.SequentialCell(nn.Dense(4, 1), nn.Sigmoid())
criterion = nn.BCELoss()
optimizerD = optim.SGD(netD.trainable_params(), lr=0.1)
optimizerG = optim.SGD(netG.trainable_params(), lr=0.1)
def forward_fn_D(real, fake):
    errD = criterion(netD(real), ones) + criterion(netD(ops.stop_gradient(fake)), zeros)
    return errD
grad_fn_D = mindspore.value_and_grad(forward_fn_D, None, optimizerD.parameters)
def forward_fn_G(fake):
    errG = criterion(netD(fake), ones)
    return errG
grad_fn_G = mindspore.value_and_grad(forward_fn_G, 0, None)
for real, noise in loader:
    fake, fake_vjp = mindspore.vjp(netG, noise, weights=optimizerG.parameters)
    errD, grads_D = grad_fn_D(real, fake)
    optimizerD(grads_D)
    errG, grads_fake = grad_fn_G(fake)
    _, grads_G = fake_vjp(grads_fake)
    optimizerG(grads_G)
"""
TM205 = (Example(before=_GAN, after=_GAN_AFTER),)

_MANUAL = """import torch

for data, target in loader:
    model.zero_grad()
    loss = criterion(model(data), target)
    loss.backward()
    for p in model.parameters():
        p.data.add_(p.grad, alpha=-lr)
"""
_MANUAL_AFTER = """import mindspore
from mindspore import ops

def forward_fn(data, target):
    loss = criterion(model(data), target)
    return loss
grad_fn = mindspore.value_and_grad(forward_fn, None, model.trainable_params())
for data, target in loader:
    loss, grads = grad_fn(data, target)
    for p, grad in zip(model.trainable_params(), grads):
        ops.assign(p, p - lr * grad)
"""
TM206 = (Example(before=_MANUAL, after=_MANUAL_AFTER),)

CELL_WHAT = (
    "With `--style cell`, turns a training step of the plain shape into "
    "`train_net = nn.TrainOneStepCell(nn.WithLossCell(model, criterion), optimizer)`, built once "
    "before the loop, and `loss = train_net(x, y)` in it. The plain shape: one optimizer, one "
    "`backward()` whose gradients start from zero (`zero_grad()` before it or after the previous "
    "step), the forward `loss = criterion(model(x), y)` or "
    "`out = model(x)`; `loss = criterion(out, y)` on names bound inside the loop or outside it, "
    "and `step()` right after the backward. Clipping by `clip_grad_norm_(params, c)` (literal "
    "`c >= 0.01`) between them becomes a `TrainOneStepCell` subclass that applies "
    "`ops.clip_by_global_norm` to the gradients. The model keeps the training mode the program "
    "gave it (no `set_train()` on the cell). Any other step keeps the functional form, with a "
    "TM207 note saying why."
)
CELL_WHY = (
    "`TrainOneStepCell` wraps the forward pass, the gradients of the optimizer's parameters and the "
    "update into one cell (seed: 训练网络与梯度求导, TrainOneStepCell)."
)
CELL_USE = "`train_net = nn.TrainOneStepCell(nn.WithLossCell(net, loss_fn), optimizer)`; `loss = train_net(data, label)`."
_CELL = """import torch

for data, target in loader:
    optimizer.zero_grad()
    output = model(data)
    loss = criterion(output, target)
    loss.backward()
    optimizer.step()
    print("loss", loss.item())
"""
_CELL_AFTER = """from mindspore import nn

train_net = nn.TrainOneStepCell(nn.WithLossCell(model, criterion), optimizer)
for data, target in loader:
    loss = train_net(data, target)
    print("loss", loss.item())
"""
TM208 = (Example(before=_CELL, after=_CELL_AFTER, options={"style": "cell"}),)
