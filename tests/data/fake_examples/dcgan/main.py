# ruff: noqa  (written in the style of the script it stands for)
"""Shaped like pytorch/examples' dcgan/main.py: its data branches, its start-up settings, a small
discriminator with its weight initialisation by class name, trained on real images for a few steps."""

import argparse
import os
import random
import torch
import torch.nn as nn
import torch.optim as optim
import torch.utils.data
import torchvision.datasets as dset
import torchvision.transforms as transforms
import torchvision.utils as vutils

parser = argparse.ArgumentParser()
parser.add_argument("--dataset", required=True)
parser.add_argument("--dataroot", required=False)
parser.add_argument("--workers", type=int, default=2)
parser.add_argument("--batchSize", type=int, default=16)
parser.add_argument("--imageSize", type=int, default=16)
parser.add_argument("--niter", type=int, default=25)
parser.add_argument("--dry-run", action="store_true")
parser.add_argument("--outf", default=".")
parser.add_argument("--ngpu", type=int, default=1)
opt = parser.parse_args()
os.makedirs(opt.outf, exist_ok=True)
torch.manual_seed(1)
torch.backends.cudnn.benchmark = True

if opt.dataset in ["imagenet", "folder", "lfw"]:
    dataset = dset.ImageFolder(
        root=opt.dataroot,
        transform=transforms.Compose(
            [
                transforms.Resize(opt.imageSize),
                transforms.CenterCrop(opt.imageSize),
                transforms.ToTensor(),
                transforms.Normalize((0.5, 0.5, 0.5), (0.5, 0.5, 0.5)),
            ]
        ),
    )
    nc = 3
elif opt.dataset == "lsun":
    dataset = dset.LSUN(
        root=opt.dataroot,
        classes=["bedroom_train"],
        transform=transforms.Compose(
            [transforms.Resize(opt.imageSize), transforms.ToTensor()]
        ),
    )
    nc = 3
elif opt.dataset == "mnist":
    dataset = dset.MNIST(
        root=opt.dataroot,
        download=True,
        transform=transforms.Compose(
            [
                transforms.Resize(opt.imageSize),
                transforms.ToTensor(),
                transforms.Normalize((0.5,), (0.5,)),
            ]
        ),
    )
    nc = 1
elif opt.dataset == "fake":
    dataset = dset.FakeData(
        image_size=(3, opt.imageSize, opt.imageSize), transform=transforms.ToTensor()
    )
    nc = 3

dataloader = torch.utils.data.DataLoader(
    dataset, batch_size=opt.batchSize, shuffle=True, num_workers=int(opt.workers)
)


def weights_init(m):
    classname = m.__class__.__name__
    if classname.find("Conv") != -1:
        torch.nn.init.normal_(m.weight, 0.0, 0.02)
    elif classname.find("BatchNorm") != -1:
        torch.nn.init.normal_(m.weight, 1.0, 0.02)
        torch.nn.init.zeros_(m.bias)


class Discriminator(nn.Module):
    def __init__(self, ngpu):
        super(Discriminator, self).__init__()
        self.ngpu = ngpu
        self.main = nn.Sequential(
            nn.Conv2d(nc, 8, 4, 2, 1, bias=False),
            nn.BatchNorm2d(8),
            nn.LeakyReLU(0.2, inplace=True),
            nn.Conv2d(8, 1, opt.imageSize // 2, 1, 0, bias=False),
            nn.Sigmoid(),
        )

    def forward(self, input):
        if input.is_cuda and self.ngpu > 1:
            output = nn.parallel.data_parallel(self.main, input, range(self.ngpu))
        else:
            output = self.main(input)
        return output.view(-1, 1).squeeze(1)


net = Discriminator(opt.ngpu)
net.apply(weights_init)
real_label = 1
criterion = nn.BCELoss()
optimizer = optim.Adam(net.parameters(), lr=0.0002, betas=(0.5, 0.999))
for epoch in range(opt.niter):
    for i, data in enumerate(dataloader, 0):
        net.zero_grad()
        real_cpu = data[0]
        batch_size = real_cpu.size(0)
        label = torch.full((batch_size,), real_label, dtype=real_cpu.dtype)
        output = net(real_cpu).view(-1)
        errD = criterion(output, label)
        errD.backward()
        optimizer.step()
        print(
            "[%d/%d][%d/%d] Loss_D: %.4f"
            % (epoch, opt.niter, i, len(dataloader), errD.item())
        )
        if i % 100 == 0:
            vutils.save_image(
                real_cpu, "%s/real_samples.png" % opt.outf, normalize=True
            )
        if opt.dry_run and i == 4:
            break
