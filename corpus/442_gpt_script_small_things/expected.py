"""A character-model training script in the style of the small GPT trainers: TF32 and cuDNN flags,
a CUDA GradScaler enabled only for float16 (disabled by torch on a machine without CUDA), blocks
held in a ModuleList inside a ModuleDict, batches drawn with torch.randint(high, size), a formatted
0-d loss, and sampling with multinomial appended to int64 indices."""

import numpy as np
import mindspore
from mindspore import amp, nn, ops
from mindspore.experimental import optim
# torch2ms: TM412 CUDA kernel setting (cuDNN, TF32 matmuls) removed: it chooses CUDA kernels, and MindSpore chooses its own
import ms_aux
dtype = "float32"
mindspore.set_seed(1337)

vocab, width, block = 11, 8, 6
rng = np.random.default_rng(4)
data = mindspore.tensor(rng.integers(0, vocab, size=200), dtype=mindspore.int64)


class TinyGPT(nn.Cell):
    def __init__(self):
        super().__init__()
        self.transformer = ms_aux.ModuleDict(
            dict(
                wte=nn.Embedding(vocab, width, embedding_table=mindspore.common.initializer.Normal(1.0)),
                h=nn.CellList([nn.Dense(width, width) for _ in range(2)]),
                ln_f=nn.LayerNorm((width,), epsilon=1e-05),
            )
        )
        self.lm_head = nn.Dense(width, vocab)

    def construct(self, idx, targets=None):
        x = self.transformer.wte(idx)
        for layer in self.transformer.h:
            x = x + ops.tanh(layer(x))
        logits = self.lm_head(self.transformer.ln_f(x))
        loss = None
        if targets is not None:
            loss = ops.cross_entropy(logits.view(-1, logits.shape[-1]), targets.view(-1))
        return logits, loss


model = TinyGPT()
optimizer = optim.AdamW(model.trainable_params(), lr=3e-3, weight_decay=0.1)
scaler = amp.DynamicLossScaler(scale_value=2 ** 16, scale_factor=2, scale_window=2000)
starts = [[3, 50, 97, 140], [10, 60, 120, 170], [0, 33, 66, 99], [5, 75, 125, 185]]
def forward_fn(start):
    x = ops.stack([data[i : i + block] for i in start])
    y = ops.stack([data[i + 1 : i + 1 + block] for i in start])
    logits, loss = model(x, y)
    return scaler.scale(loss), x, logits, loss
grad_fn = mindspore.value_and_grad(forward_fn, None, optimizer.parameters, has_aux=True)
for it, start in enumerate(starts):
    (_, x, logits, loss), grads = grad_fn(start)
    grads = scaler.unscale(grads)
    grads = ops.clip_by_global_norm(grads, 1.0)
    grads_finite = amp.all_finite(grads)
    if grads_finite:
        optimizer(grads)
    scaler.adjust(grads_finite)
    print(f"iter {it}: loss {loss.item():.4f}")



def described(indices):
    return tuple(indices.shape), indices.dtype == mindspore.int64


def batch_starts(count):
    return described(ops.randint(0, len(data) - block, (count,)))


def generate(model, idx, steps):
    for _ in range(steps):
        logits, _ = model(idx[:, -block:])
        probs = ops.softmax(logits[:, -1, :], axis=-1)
        idx_next = ops.multinomial(probs, num_samples=1).astype(mindspore.int64)
        idx = ops.cat((idx, idx_next), axis=1)
    return idx


print("batch starts", *batch_starts(3))
model.set_train(False)
print("sampled", *described(generate(model, data[:block].view(1, -1), 3)))
print("final", [p.sum().item() for p in model.trainable_params()])
