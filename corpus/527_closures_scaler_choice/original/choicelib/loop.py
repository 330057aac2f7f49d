"""A training epoch in the style of timm's train.py: the `_backward(_loss)` closure uses the loss
scaler when one is given and a plain backward when not, with the clipping mode, the clipped
parameters and a second-order flag all chosen at run time, and a batch-size loss scale applied
between the forward pass and the backward in some branches."""

from contextlib import suppress

from timm import utils


def train_one_epoch(epoch, model, loader, optimizer, loss_fn, args, accum_steps=2,
                    amp_autocast=suppress, loss_scaler=None, batch_size_reference=None):
    second_order = hasattr(optimizer, "is_second_order") and optimizer.is_second_order
    model.train()
    last_accum_steps = len(loader) % accum_steps
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
                _loss = loss_fn(output, target)
            if accum_steps > 1:
                _loss /= accum_steps
            return _loss

        def _backward(_loss):
            clip_parameters = None
            if args.clip_grad is not None:
                clip_parameters = [model[0].weight, model[0].bias] if args.clip_mode == "agc" else model.parameters()
            if loss_scaler is not None:
                loss_scaler(
                    _loss,
                    optimizer,
                    clip_grad=args.clip_grad,
                    clip_mode=args.clip_mode,
                    parameters=clip_parameters,
                    create_graph=second_order,
                    need_update=need_update,
                )
            else:
                _loss.backward(create_graph=second_order)
                if need_update:
                    if args.clip_grad is not None:
                        utils.dispatch_clip_grad(
                            clip_parameters,
                            value=args.clip_grad,
                            mode=args.clip_mode,
                        )
                    optimizer.step()

        batch_size = input.shape[0]
        if batch_size_reference is not None:
            local_scale = batch_size / batch_size_reference
            if args.scale_mode == "sqrt":
                local_scale = local_scale ** 0.5
            loss = _forward()
            scaled_loss = local_scale * loss
            _backward(scaled_loss)
        else:
            loss = _forward()
            _backward(loss)

        if not need_update:
            continue

        optimizer.zero_grad()
        print("epoch", epoch, "update", update_idx, "loss", loss.item() * accum_steps)
