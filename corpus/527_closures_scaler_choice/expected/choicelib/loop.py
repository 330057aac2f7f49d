"""A training epoch in the style of timm's train.py: the `_backward(_loss)` closure uses the loss
scaler when one is given and a plain backward when not, with the clipping mode, the clipped
parameters and a second-order flag all chosen at run time, and a batch-size loss scale applied
between the forward pass and the backward in some branches."""
import mindspore
from mindspore import ops
from . import ms_aux

from contextlib import suppress

from timm import utils


def train_one_epoch(epoch, model, loader, optimizer, loss_fn, args, accum_steps=2,
                    amp_autocast=suppress, loss_scaler=None, batch_size_reference=None):
    second_order = hasattr(optimizer, "is_second_order") and optimizer.is_second_order
    # torch2ms: TM932 `.train()` converted on a receiver taken to be a Module from its name
    model.set_train()
    last_accum_steps = len(loader) % accum_steps
    last_batch_idx = len(loader) - 1
    last_batch_idx_to_accum = len(loader) - last_accum_steps
    accum_grads = tuple(ops.zeros_like(p) for p in optimizer.parameters)
    def forward_fn_optimizer1(local_scale):
        loss = _forward()
        scaled_loss = local_scale * loss
        return (loss_scaler._scaler.scale(scaled_loss) if loss_scaler is not None else scaled_loss), loss
    grad_fn_optimizer1 = mindspore.value_and_grad(forward_fn_optimizer1, None, optimizer.parameters, has_aux=True)
    def forward_fn_optimizer2():
        loss = _forward()
        return (loss_scaler._scaler.scale(loss) if loss_scaler is not None else loss), loss
    grad_fn_optimizer2 = mindspore.value_and_grad(forward_fn_optimizer2, None, optimizer.parameters, has_aux=True)
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

        # torch2ms: TM210 rewritten for `create_graph=second_order` false: the converted `train_one_epoch._backward` raises NotImplementedError when it is true (a higher-order backward has no gradient-value form)
        # torch2ms: TM932 `.parameters()` converted on a receiver taken to be a Module from its name
        def _backward(grads):
            clip_parameters = None
            if args.clip_grad is not None:
                clip_parameters = [model[0].weight, model[0].bias] if args.clip_mode == "agc" else model.trainable_params()
            if loss_scaler is not None:
                if second_order:
                    raise NotImplementedError('create_graph=True: a higher-order backward through `train_one_epoch._backward` has no gradient-value form in MindSpore')
                grads = loss_scaler(
                    grads,
                    optimizer,
                    clip_grad=args.clip_grad,
                    clip_mode=args.clip_mode,
                    parameters=clip_parameters,
                    create_graph=second_order,
                    need_update=need_update,
                )
            else:
                if second_order:
                    raise NotImplementedError('create_graph=True: a higher-order backward through `train_one_epoch._backward` has no gradient-value form in MindSpore')
                if need_update:
                    if args.clip_grad is not None:
                        grads = ms_aux.clip_grads(grads, optimizer.parameters, clip_parameters, args.clip_grad, args.clip_mode, 2.0)
                    optimizer(grads)
            return grads

        batch_size = input.shape[0]
        if batch_size_reference is not None:
            local_scale = batch_size / batch_size_reference
            if args.scale_mode == "sqrt":
                local_scale = local_scale ** 0.5
            (_, loss), grads_1 = grad_fn_optimizer1(local_scale)
            accum_grads = tuple(map(ops.add, accum_grads, grads_1))
            accum_grads = _backward(accum_grads)
        else:
            (_, loss), grads_1 = grad_fn_optimizer2()
            accum_grads = tuple(map(ops.add, accum_grads, grads_1))
            accum_grads = _backward(accum_grads)

        if not need_update:
            continue
        accum_grads = tuple(ops.zeros_like(p) for p in optimizer.parameters)
        print("epoch", epoch, "update", update_idx, "loss", loss.item() * accum_steps)
