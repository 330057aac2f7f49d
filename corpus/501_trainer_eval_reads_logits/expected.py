"""A classifier trainer whose `_run_batch(train)` also counts correct predictions from the logits of
the shared forward, on the training paths (GradScaler with unscale_ and clip_grad_value_, or plain)
and on the evaluation path alike."""

import numpy as np
import mindspore
from mindspore import amp, nn, ops
from mindspore.experimental import optim


class Classifier(nn.Cell):
    def __init__(self, features, classes):
        super().__init__()
        self.body = nn.SequentialCell(nn.Dense(features, 10), nn.ReLU(), nn.Dense(10, classes))

    def construct(self, x):
        return self.body(x)


class Trainer:
    def __init__(self, model, optimizer, use_amp=False, clip_value=0.5):
        self.model = model
        self.optimizer = optimizer
        self.criterion = lambda input, target: ops.cross_entropy(input, target)
        self.use_amp = use_amp
        self.clip_value = clip_value
        self.scaler = amp.DynamicLossScaler(scale_value=4, scale_factor=2, scale_window=1)

    def _run_batch(self, inputs, labels, train=True):
        def forward_fn():
            # torch2ms: TM103 `set_grad_enabled(<expression>)` unwrapped: values in it are not cut from differentiation when it is False
            logits = self.model(inputs)
            loss = self.criterion(logits, labels)
            return loss, logits
        def forward_fn_scaled():
            loss, logits = forward_fn()
            return self.scaler.scale(loss), loss, logits
        grad_fn_scaled = mindspore.value_and_grad(forward_fn_scaled, None, self.optimizer.parameters, has_aux=True)
        grad_fn = mindspore.value_and_grad(forward_fn, None, self.optimizer.parameters, has_aux=True)
        if train:
            if self.use_amp:
                (_, loss, logits), grads = grad_fn_scaled()
                grads = self.scaler.unscale(grads)
                # torch2ms: TM201 assumes `self.optimizer` holds exactly the parameters of `self.model`
                grads = ops.clip_by_value(grads, -self.clip_value, self.clip_value)
                grads_finite = amp.all_finite(grads)
                if grads_finite:
                    self.optimizer(grads)
                self.scaler.adjust(grads_finite)
            else:
                (loss, logits), grads = grad_fn()
                # torch2ms: TM201 assumes `self.optimizer` holds exactly the parameters of `self.model`
                grads = ops.clip_by_value(grads, -self.clip_value, self.clip_value)
                self.optimizer(grads)
        else:
            loss, logits = forward_fn()
        correct = (logits.argmax(dim=1) == labels).sum().item()
        return loss.item(), correct


rng = np.random.default_rng(23)
inputs = mindspore.tensor(rng.standard_normal((24, 5)), dtype=mindspore.float32)
labels = mindspore.tensor(rng.integers(0, 3, size=24), dtype=mindspore.int64)

for use_amp in (True, False):
    mindspore.set_seed(0)
    model = Classifier(5, 3)
    optimizer = optim.SGD(model.trainable_params(), lr=0.2, momentum=0.9)
    trainer = Trainer(model, optimizer, use_amp=use_amp)
    for epoch in range(3):
        for start in range(0, 16, 8):
            loss, correct = trainer._run_batch(inputs[start : start + 8], labels[start : start + 8])
            print("amp" if use_amp else "plain", "train", epoch, "loss", loss, "correct", correct)
        loss, correct = trainer._run_batch(inputs[16:], labels[16:], train=False)
        print("amp" if use_amp else "plain", "eval", epoch, "loss", loss, "correct", correct)
    print("scale", float(trainer.scaler.scale_value))
    print("weights", [p.sum().item() for p in model.trainable_params()])
