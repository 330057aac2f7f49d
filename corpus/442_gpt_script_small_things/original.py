"""A character-model training script in the style of the small GPT trainers: TF32 and cuDNN flags,
a CUDA GradScaler enabled only for float16 (disabled by torch on a machine without CUDA), blocks
held in a ModuleList inside a ModuleDict, batches drawn with torch.randint(high, size), a formatted
0-d loss, and sampling with multinomial appended to int64 indices."""

import numpy as np
import torch
import torch.nn as nn
from torch.nn import functional as F

torch.backends.cuda.matmul.allow_tf32 = True
torch.backends.cudnn.allow_tf32 = True
dtype = "float32"
torch.manual_seed(1337)

vocab, width, block = 11, 8, 6
rng = np.random.default_rng(4)
data = torch.tensor(rng.integers(0, vocab, size=200), dtype=torch.long)


class TinyGPT(nn.Module):
    def __init__(self):
        super().__init__()
        self.transformer = nn.ModuleDict(
            dict(
                wte=nn.Embedding(vocab, width),
                h=nn.ModuleList([nn.Linear(width, width) for _ in range(2)]),
                ln_f=nn.LayerNorm(width),
            )
        )
        self.lm_head = nn.Linear(width, vocab)

    def forward(self, idx, targets=None):
        x = self.transformer.wte(idx)
        for layer in self.transformer.h:
            x = x + torch.tanh(layer(x))
        logits = self.lm_head(self.transformer.ln_f(x))
        loss = None
        if targets is not None:
            loss = F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1))
        return logits, loss


model = TinyGPT()
optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.1)
scaler = torch.cuda.amp.GradScaler(enabled=(dtype == "float16"))
starts = [[3, 50, 97, 140], [10, 60, 120, 170], [0, 33, 66, 99], [5, 75, 125, 185]]
for it, start in enumerate(starts):
    x = torch.stack([data[i : i + block] for i in start])
    y = torch.stack([data[i + 1 : i + 1 + block] for i in start])
    logits, loss = model(x, y)
    scaler.scale(loss).backward()
    scaler.unscale_(optimizer)
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    scaler.step(optimizer)
    scaler.update()
    optimizer.zero_grad(set_to_none=True)
    print(f"iter {it}: loss {loss:.4f}")



def described(indices):
    return tuple(indices.shape), indices.dtype == torch.int64


def batch_starts(count):
    return described(torch.randint(len(data) - block, (count,)))


@torch.no_grad()
def generate(model, idx, steps):
    for _ in range(steps):
        logits, _ = model(idx[:, -block:])
        probs = F.softmax(logits[:, -1, :], dim=-1)
        idx_next = torch.multinomial(probs, num_samples=1)
        idx = torch.cat((idx, idx_next), dim=1)
    return idx


print("batch starts", *batch_starts(3))
model.eval()
print("sampled", *described(generate(model, data[:block].view(1, -1), 3)))
print("final", [p.sum().item() for p in model.parameters()])
