"""An epoch with gradient accumulation: the scaler it calls is built by its caller."""


def train_one_epoch(
    model, criterion, batches, optimizer, loss_scaler, epoch, max_norm=1.0, accum_iter=2
):
    model.train()
    optimizer.zero_grad()
    for it, (samples, targets) in enumerate(batches):
        outputs = model(samples)
        loss = criterion(outputs, targets) / accum_iter
        loss_scaler(
            loss,
            optimizer,
            clip_grad=max_norm,
            parameters=model.parameters(),
            update_grad=(it + 1) % accum_iter == 0,
        )
        if (it + 1) % accum_iter == 0:
            optimizer.zero_grad()
        print("epoch", epoch, "step", it, "loss", loss.item())
