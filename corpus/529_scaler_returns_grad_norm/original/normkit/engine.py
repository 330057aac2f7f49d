"""An epoch that checks the loss value before its step, accumulates over two batches and logs
the gradient norm the scaler returns."""

import math
import sys


def train_one_epoch(
    model, criterion, batches, optimizer, loss_scaler, epoch, accum_iter=2, clip=None
):
    model.train(True)
    optimizer.zero_grad()
    for it, (samples, targets) in enumerate(batches):
        outputs = model(samples)
        loss = criterion(outputs, targets)
        loss_value = loss.item()
        if not math.isfinite(loss_value):
            print("Loss is {}, stopping training".format(loss_value))
            sys.exit(1)
        loss = loss / accum_iter
        grad_norm = loss_scaler(
            loss,
            optimizer,
            clip_grad=clip,
            parameters=model.parameters(),
            update_grad=(it + 1) % accum_iter == 0,
        )
        if (it + 1) % accum_iter == 0:
            optimizer.zero_grad()
            print("epoch", epoch, "step", it, "grad norm", grad_norm.item())
        print("epoch", epoch, "step", it, "loss", loss_value)
