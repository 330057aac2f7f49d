"""A trainer whose `_run_batch(train)` runs one forward under `set_grad_enabled(train)` and a CUDA
autocast (disabled on this CPU machine), then, when training, either scales the loss with a CPU
GradScaler (clipping the still scaled gradients) or steps plainly; evaluation only reads the loss."""

from dataclasses import dataclass

import numpy as np
import mindspore
from mindspore import amp, nn, ops
from mindspore.experimental import optim


@dataclass
class TrainerConfig:
    max_epochs: int = 3
    grad_norm_clip: float = 1.0
    use_amp: bool = False


class Regressor(nn.Cell):
    def __init__(self):
        super().__init__()
        self.hidden = nn.Dense(4, 8)
        self.out = nn.Dense(8, 2)

    def construct(self, x, targets=None):
        prediction = self.out(ops.tanh(self.hidden(x)))
        loss = None
        if targets is not None:
            loss = ops.mse_loss(prediction, targets)
        return prediction, loss


class Trainer:
    def __init__(self, config, model, optimizer, train_batches, test_batches):
        self.config = config
        self.model = model
        self.optimizer = optimizer
        self.train_batches = train_batches
        self.test_batches = test_batches
        if self.config.use_amp:
            self.scaler = amp.DynamicLossScaler(scale_value=8, scale_factor=2, scale_window=2)

    def _run_batch(self, source, targets, train=True):
        def forward_fn():
            # torch2ms: TM925 CUDA autocast is disabled in torch without CUDA; with --target cpu the forward runs in float32
            # torch2ms: TM103 `set_grad_enabled(<expression>)` unwrapped: values in it are not cut from differentiation when it is False
            _, loss = self.model(source, targets)
            return loss
        def forward_fn_scaled():
            loss = forward_fn()
            return self.scaler.scale(loss), loss
        grad_fn_scaled = mindspore.value_and_grad(forward_fn_scaled, None, self.optimizer.parameters, has_aux=True)
        grad_fn = mindspore.value_and_grad(forward_fn, None, self.optimizer.parameters)

        if train:
            if self.config.use_amp:
                (_, loss), grads = grad_fn_scaled()
                # torch2ms: TM201 assumes `self.optimizer` holds exactly the parameters of `self.model`
                grad_norm = ops.norm(ops.stack([ops.norm(g) for g in grads]))
                grads = tuple(g * ops.clamp(self.config.grad_norm_clip / (grad_norm + 1e-6), max=1.0) for g in grads)
                grads = self.scaler.unscale(grads)
                grads_finite = amp.all_finite(grads)
                if grads_finite:
                    self.optimizer(grads)
                self.scaler.adjust(grads_finite)
            else:
                loss, grads = grad_fn()
                # torch2ms: TM201 assumes `self.optimizer` holds exactly the parameters of `self.model`
                grad_norm_1 = ops.norm(ops.stack([ops.norm(g) for g in grads]))
                grads = tuple(g * ops.clamp(self.config.grad_norm_clip / (grad_norm_1 + 1e-6), max=1.0) for g in grads)
                self.optimizer(grads)
        else:
            loss = forward_fn()

        return loss.item()

    def _run_epoch(self, epoch, batches, train=True):
        step_type = "train" if train else "eval"
        for source, targets in batches:
            batch_loss = self._run_batch(source, targets, train)
            print(step_type, "epoch", epoch, "loss", batch_loss)

    def train(self):
        for epoch in range(self.config.max_epochs):
            self._run_epoch(epoch, self.train_batches, train=True)
            self._run_epoch(epoch, self.test_batches, train=False)


rng = np.random.default_rng(11)


def make_batches(count):
    return [
        (
            mindspore.tensor(rng.standard_normal((6, 4)), dtype=mindspore.float32),
            mindspore.tensor(rng.standard_normal((6, 2)) * 2.0, dtype=mindspore.float32),
        )
        for _ in range(count)
    ]


train_batches, test_batches = make_batches(4), make_batches(2)

mindspore.set_seed(0)
model = Regressor()
optimizer = optim.SGD(model.trainable_params(), lr=0.1, momentum=0.9)
trainer = Trainer(TrainerConfig(use_amp=True), model, optimizer, train_batches, test_batches)
trainer.train()
print("scale", float(trainer.scaler.scale_value))

mindspore.set_seed(1)
plain_model = Regressor()
plain_optimizer = optim.SGD(plain_model.trainable_params(), lr=0.1, momentum=0.9)
plain = Trainer(TrainerConfig(use_amp=False, grad_norm_clip=0.5), plain_model, plain_optimizer, train_batches, test_batches)
plain.train()
print("final", [p.sum().item() for p in plain_model.trainable_params()])
