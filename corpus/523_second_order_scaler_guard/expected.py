"""A NativeScaler-style loss scaler called with `create_graph=is_second_order`, as DeiT's engine does
for second-order optimizers: the step is rewritten for a first-order optimizer, and the converted
call raises where the flag is true (a higher-order backward through the scaler has no
gradient-value form)."""

import numpy as np
import mindspore
from mindspore import amp, nn, ops
from mindspore.experimental import optim


class LossScaler:
    def __init__(self):
        self._scaler = amp.DynamicLossScaler(scale_value=128, scale_factor=2, scale_window=2000)

    def __call__(self, grads, optimizer, clip_grad=None, parameters=None, create_graph=False):
        grads_unscaled = False
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


def train_one_epoch(model, criterion, batches, optimizer, loss_scaler, max_norm=None):
    model.set_train()
    def forward_fn(samples, targets):
        outputs = model(samples)
        loss = criterion(outputs, targets)
        return loss_scaler._scaler.scale(loss), loss
    grad_fn = mindspore.value_and_grad(forward_fn, None, optimizer.parameters, has_aux=True)
    for samples, targets in batches:
        (_, loss), grads = grad_fn(samples, targets)
        is_second_order = hasattr(optimizer, "is_second_order") and optimizer.is_second_order
        # torch2ms: TM210 rewritten for `create_graph=is_second_order` false: the converted step raises NotImplementedError when it is true (a higher-order backward through `LossScaler.__call__` has no gradient-value form)
        if is_second_order:
            raise NotImplementedError('create_graph=True: a higher-order backward through `LossScaler.__call__` has no gradient-value form in MindSpore')
        grads = loss_scaler(grads, optimizer, clip_grad=max_norm, parameters=model.trainable_params(), create_graph=is_second_order)
        print("loss", loss.item())


rng = np.random.default_rng(6)
batches = [
    (mindspore.tensor(rng.standard_normal((4, 3)), dtype=mindspore.float32), mindspore.tensor(rng.standard_normal((4, 2)), dtype=mindspore.float32))
    for _ in range(3)
]
mindspore.set_seed(0)
model = nn.Dense(3, 2)
optimizer = optim.SGD(model.trainable_params(), lr=0.1)
loss_scaler = LossScaler()
train_one_epoch(model, nn.MSELoss(), batches, optimizer, loss_scaler, max_norm=1.0)
print("final", [p.sum().item() for p in model.trainable_params()])
