"""An epoch with gradient accumulation: the scaler it calls is built by its caller."""
import mindspore
from mindspore import ops


def train_one_epoch(
    model, criterion, batches, optimizer, loss_scaler, epoch, max_norm=1.0, accum_iter=2
):
    # torch2ms: TM932 `.train()` converted on a receiver taken to be a Module from its name
    model.set_train()
    accum_grads = tuple(ops.zeros_like(p) for p in optimizer.parameters)
    def forward_fn(samples, targets):
        outputs = model(samples)
        loss = criterion(outputs, targets) / accum_iter
        return loss_scaler._scaler.scale(loss), loss
    grad_fn = mindspore.value_and_grad(forward_fn, None, optimizer.parameters, has_aux=True)
    for it, (samples, targets) in enumerate(batches):
        # torch2ms: TM932 `.parameters()` converted on a receiver taken to be a Module from its name
        (_, loss), grads = grad_fn(samples, targets)
        accum_grads = tuple(map(ops.add, accum_grads, grads))
        accum_grads = loss_scaler(
            accum_grads,
            optimizer,
            clip_grad=max_norm,
            parameters=model.trainable_params(),
            update_grad=(it + 1) % accum_iter == 0,
        )
        if (it + 1) % accum_iter == 0:
            accum_grads = tuple(ops.zeros_like(p) for p in optimizer.parameters)
        print("epoch", epoch, "step", it, "loss", loss.item())
