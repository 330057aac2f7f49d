# .grad accumulates over backwards until it is zeroed.
import torch

w = torch.tensor(1.5, requires_grad=True)
loss = w ** 3
loss.backward()
print("after one", w.grad)
loss2 = 4.0 * w
loss2.backward()
print("accumulated", w.grad)
w.grad.zero_()
print("zeroed", w.grad)
loss3 = w * w
loss3.backward()
print("after zero", w.grad)
w.grad = None
print("reset", w.grad)
