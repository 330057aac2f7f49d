"""An epoch that checks the loss value before its step, accumulates over two batches and logs
the gradient norm the scaler returns."""
import mindspore
from mindspore import ops

import math
import sys


def train_one_epoch(
    model, criterion, batches, optimizer, loss_scaler, epoch, accum_iter=2, clip=None
):
    # torch2ms: TM932 `.train()` converted on a receiver taken to be a Module from its name
    model.set_train(True)
    accum_grads = tuple(ops.zeros_like(p) for p in optimizer.parameters)
    def forward_fn(samples, targets):
        outputs = model(samples)
        loss = criterion(outputs, targets)
        loss_read = loss
        loss = loss / accum_iter
        return loss_scaler._scaler.scale(loss), loss, loss_read
    grad_fn = mindspore.value_and_grad(forward_fn, None, optimizer.parameters, has_aux=True)
    for it, (samples, targets) in enumerate(batches):
        (_, loss, loss_read), grads = grad_fn(samples, targets)
        loss_value = loss_read.item()
        if not math.isfinite(loss_value):
            print("Loss is {}, stopping training".format(loss_value))
            sys.exit(1)
        # torch2ms: TM932 `.parameters()` converted on a receiver taken to be a Module from its name
        accum_grads = tuple(map(ops.add, accum_grads, grads))
        accum_grads, grad_norm = loss_scaler(
            accum_grads,
            optimizer,
            clip_grad=clip,
            parameters=model.trainable_params(),
            update_grad=(it + 1) % accum_iter == 0,
        )
        if (it + 1) % accum_iter == 0:
            accum_grads = tuple(ops.zeros_like(p) for p in optimizer.parameters)
            print("epoch", epoch, "step", it, "grad norm", grad_norm.item())
        print("epoch", epoch, "step", it, "loss", loss_value)
