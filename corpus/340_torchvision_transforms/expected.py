"""An image-classification data section: torchvision transforms, an MNIST dataset and its loader."""

import mindspore.dataset.vision as vision
import ms_aux
# torch2ms: TM901 `torchvision` is built on torch and has no MindSpore form
import torchvision.transforms as T

train_transform = ms_aux.Compose([
    vision.RandomResizedCrop(28, scale=(0.8, 1.0)),
    vision.RandomHorizontalFlip(),
    vision.ToTensor(),
    vision.Normalize((0.1307,), (0.3081,), is_hwc=False),
])
# torch2ms: TM951 torchvision transform not converted: `max_size=`: MindSpore's Resize has no max_size
# torch2ms: TM901 `torchvision.transforms.Resize` is built on torch and has no MindSpore form; it still runs on `torchvision`, whose import stays
eval_transform = ms_aux.Compose([
    T.Resize(32, interpolation=ms_aux.InterpolationMode.BICUBIC, max_size=64),
    vision.CenterCrop(28),
    vision.ToTensor(),
])
train_set = ms_aux.MNIST("../data", train=True, download=True, transform=train_transform)
# torch2ms: TM935 the shuffled order comes from MindSpore's generator, not torch's
train_loader = train_set.shuffle(len(train_set)).batch(64)
for images, labels in train_loader:
    print("batch", images.shape[0])
    break
