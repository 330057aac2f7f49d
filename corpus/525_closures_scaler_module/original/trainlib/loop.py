"""A training epoch in the style of timm's train.py: local `_forward()` and `_backward(_loss)`
closures, accumulation through `need_update`, and a loss scaler its caller builds."""

from contextlib import suppress


def train_one_epoch(epoch, model, loader, optimizer, loss_fn, accum_steps=2, clip_grad=0.5,
                    amp_autocast=suppress, loss_scaler=None):
    model.train()
    last_accum_steps = len(loader) % accum_steps
    updates_per_epoch = (len(loader) + accum_steps - 1) // accum_steps
    num_updates = epoch * updates_per_epoch
    last_batch_idx = len(loader) - 1
    last_batch_idx_to_accum = len(loader) - last_accum_steps

    optimizer.zero_grad()
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

        def _backward(_loss):
            loss_scaler(
                _loss,
                optimizer,
                clip_grad=clip_grad,
                parameters=model.parameters(),
                need_update=need_update,
            )

        loss = _forward()
        _backward(loss)

        if not need_update:
            continue

        num_updates += 1
        optimizer.zero_grad()
        print("epoch", epoch, "update", update_idx, "loss", loss.item() * accum_steps)
    return num_updates
