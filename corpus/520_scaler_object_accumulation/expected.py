"""A loss-scaler object in the style of the vision trainers: its __call__ scales the loss, runs
backward, and when update_grad is set unscales, clips, steps and updates the scale."""

import numpy as np
import mindspore
from mindspore import amp, nn, ops
from mindspore.experimental import optim


class ScaledStep:
    state_dict_key = "amp_scaler"

    def __init__(self):
        self._scaler = amp.DynamicLossScaler(scale_value=256, scale_factor=2, scale_window=3)

    def __call__(self, grads, optimizer, clip_grad=None, parameters=None, update_grad=True):
        grads_unscaled = False
        if update_grad:
            if clip_grad is not None:
                grads = self._scaler.unscale(grads)
                grads_unscaled = True
                grad_norm = ops.norm(ops.stack([ops.norm(g) for g in grads]))
                grads = tuple(g * ops.clamp(clip_grad / (grad_norm + 1e-6), max=1.0) for g in grads)
            if not grads_unscaled:
                grads = self._scaler.unscale(grads)
            grads_finite = amp.all_finite(grads)
            if grads_finite:
                optimizer(grads)
            self._scaler.adjust(grads_finite)
        return grads


def train_one_epoch(model, criterion, batches, optimizer, loss_scaler, epoch, max_norm=1.0, accum_iter=2):
    model.set_train()
    accum_grads = tuple(ops.zeros_like(p) for p in optimizer.parameters)
    def forward_fn(outputs, targets):
        loss = criterion(outputs, targets)
        loss = loss / accum_iter
        return loss_scaler._scaler.scale(loss), loss
    grad_fn = mindspore.value_and_grad(forward_fn, 0, None, has_aux=True)
    for data_iter_step, (samples, targets) in enumerate(batches):
        outputs, outputs_vjp = mindspore.vjp(model, samples, weights=optimizer.parameters)
        loss = criterion(outputs, targets)
        loss_value = loss.item()
        (_, loss), grads_outputs = grad_fn(outputs, targets)
        _, grads = outputs_vjp(grads_outputs)
        accum_grads = tuple(map(ops.add, accum_grads, grads))
        accum_grads = loss_scaler(accum_grads, optimizer, clip_grad=max_norm, parameters=model.trainable_params(),
                    update_grad=(data_iter_step + 1) % accum_iter == 0)
        if (data_iter_step + 1) % accum_iter == 0:
            accum_grads = tuple(ops.zeros_like(p) for p in optimizer.parameters)
        print("epoch", epoch, "step", data_iter_step, "loss", loss_value)


rng = np.random.default_rng(3)
batches = [
    (mindspore.tensor(rng.standard_normal((8, 5)), dtype=mindspore.float32), mindspore.tensor(rng.standard_normal((8, 3)), dtype=mindspore.float32))
    for _ in range(6)
]
mindspore.set_seed(0)
model = nn.SequentialCell(nn.Dense(5, 16), nn.Tanh(), nn.Dense(16, 3))
criterion = nn.SmoothL1Loss(reduction='mean')
optimizer = optim.AdamW(model.trainable_params(), lr=0.01, weight_decay=0.05)
loss_scaler = ScaledStep()
for epoch in range(2):
    train_one_epoch(model, criterion, batches, optimizer, loss_scaler, epoch, max_norm=0.05)
print("scale", float(loss_scaler._scaler.scale_value))
