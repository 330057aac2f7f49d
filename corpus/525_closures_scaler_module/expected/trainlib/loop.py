"""A training epoch in the style of timm's train.py: local `_forward()` and `_backward(_loss)`
closures, accumulation through `need_update`, and a loss scaler its caller builds."""
import mindspore
from mindspore import ops

from contextlib import suppress


def train_one_epoch(epoch, model, loader, optimizer, loss_fn, accum_steps=2, clip_grad=0.5,
                    amp_autocast=suppress, loss_scaler=None):
    # torch2ms: TM932 `.train()` converted on a receiver taken to be a Module from its name
    model.set_train()
    last_accum_steps = len(loader) % accum_steps
    updates_per_epoch = (len(loader) + accum_steps - 1) // accum_steps
    num_updates = epoch * updates_per_epoch
    last_batch_idx = len(loader) - 1
    last_batch_idx_to_accum = len(loader) - last_accum_steps
    accum_grads = tuple(ops.zeros_like(p) for p in optimizer.parameters)
    def forward_fn():
        loss = _forward()
        return loss_scaler._scaler.scale(loss), loss
    grad_fn = mindspore.value_and_grad(forward_fn, None, optimizer.parameters, has_aux=True)
    for batch_idx, (input, target) in enumerate(loader):
        last_batch = batch_idx == last_batch_idx
        need_update = last_batch or (batch_idx + 1) % accum_steps == 0
        update_idx = batch_idx // accum_steps
        if batch_idx >= last_batch_idx_to_accum:
            accum_steps = last_accum_steps

        def _forward():
            with amp_autocast():
                output = model(input)
                loss = loss_fn(output, target)
            if accum_steps > 1:
                loss /= accum_steps
            return loss

        # torch2ms: TM932 `.parameters()` converted on a receiver taken to be a Module from its name
        def _backward(grads):
            grads = loss_scaler(
                grads,
                optimizer,
                clip_grad=clip_grad,
                parameters=model.trainable_params(),
                need_update=need_update,
            )
            return grads

        (_, loss), grads_1 = grad_fn()
        accum_grads = tuple(map(ops.add, accum_grads, grads_1))
        accum_grads = _backward(accum_grads)

        if not need_update:
            continue

        num_updates += 1
        accum_grads = tuple(ops.zeros_like(p) for p in optimizer.parameters)
        print("epoch", epoch, "update", update_idx, "loss", loss.item() * accum_steps)
    return num_updates
