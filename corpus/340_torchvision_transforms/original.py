"""An image-classification data section: torchvision transforms, an MNIST dataset and its loader."""

import torch
import torchvision.transforms as T
from torchvision import datasets

train_transform = T.Compose([
    T.RandomResizedCrop(28, scale=(0.8, 1.0)),
    T.RandomHorizontalFlip(),
    T.ToTensor(),
    T.Normalize((0.1307,), (0.3081,)),
])
eval_transform = T.Compose([
    T.Resize(32, interpolation=T.InterpolationMode.BICUBIC, max_size=64),
    T.CenterCrop(28),
    T.ToTensor(),
])
train_set = datasets.MNIST("../data", train=True, download=True, transform=train_transform)
train_loader = torch.utils.data.DataLoader(train_set, batch_size=64, shuffle=True, num_workers=2)
for images, labels in train_loader:
    print("batch", images.shape[0])
    break
