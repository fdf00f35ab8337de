"""Trains torchvision's ResNet-18 (11 M parameters; its first convolution made to read one channel) briefly on four
confusable Fashion-MNIST tops, exports it to ONNX, and writes those classes' images as class folders: a big model
for `deltaclue import` (docs/your-model.md, "A big model"). The VAE is train_export.py's (enc.onnx, dec.onnx).

usage: python3 resnet18.py OUT_DIR [--train N] [--test N] [--epochs E] [--threads T]

Needs torch and torchvision (Debian: python3-torch, python3-torchvision; no pretrained weights are fetched) and
Fashion-MNIST's IDX files (Debian: dataset-fashion-mnist, or --idx DIR). Writes into OUT_DIR:

  clf_resnet18.onnx  the classifier, exported in eval mode: the import places its dropout with -dropout /fc/Gemm=0.2
  train4/<class>/*.png, test4/<class>/*.png   the four classes' images, ImageFolder's layout
"""
import argparse
import os
import time

import torch
import torchvision
from torch import nn

from train_export import read_idx, write_png

TOPS = {0: "T-shirt or top", 2: "Pullover", 4: "Coat", 6: "Shirt"}  # Fashion-MNIST's labels of the four


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--idx", default="/usr/share/datasets/fashion-mnist")
    ap.add_argument("--train", type=int, default=2000)
    ap.add_argument("--test", type=int, default=400)
    ap.add_argument("--epochs", type=int, default=2)
    ap.add_argument("--threads", type=int, default=2)
    a = ap.parse_args()
    torch.manual_seed(31)
    torch.set_num_threads(max(1, min(a.threads, os.cpu_count() or 1)))
    keep = sorted(TOPS)

    def split(images, labels, n):
        mask = sum(labels == k for k in keep).bool()
        x, y = images[mask][:n], labels[mask][:n]
        return x, torch.tensor([keep.index(int(v)) for v in y])

    x, y = split(read_idx(os.path.join(a.idx, "train-images-idx3-ubyte.gz")), read_idx(os.path.join(a.idx, "train-labels-idx1-ubyte.gz")), a.train)
    tx, ty = split(read_idx(os.path.join(a.idx, "t10k-images-idx3-ubyte.gz")), read_idx(os.path.join(a.idx, "t10k-labels-idx1-ubyte.gz")), a.test)
    model = torchvision.models.resnet18(num_classes=len(keep))
    model.conv1 = nn.Conv2d(1, 64, 7, stride=2, padding=3, bias=False)
    model.fc = nn.Sequential(nn.Dropout(0.2), nn.Linear(512, len(keep)))
    xf = x.float().div(255).unsqueeze(1)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    g = torch.Generator().manual_seed(7)
    model.train()
    start = time.time()
    for _ in range(a.epochs):
        for idx in torch.randperm(len(xf), generator=g).split(64):
            opt.zero_grad()
            loss = nn.functional.cross_entropy(model(xf[idx]), y[idx])
            loss.backward()
            opt.step()
    print(f"ResNet-18: {a.epochs} epochs on {len(xf)} images in {time.time() - start:.0f} s, last batch loss {float(loss):.3f}")
    model.eval()
    # The dropout sits in fc's Sequential: name the Linear fc's Gemm for the import's -dropout.
    model.fc = model.fc[1]
    os.makedirs(a.out, exist_ok=True)
    kw = dict(opset_version=17, input_names=["x"], output_names=["y"], dynamic_axes={"x": {0: "n"}, "y": {0: "n"}})
    torch.onnx.export(model, torch.zeros(1, 1, 28, 28), os.path.join(a.out, "clf_resnet18.onnx"), **kw)
    with torch.no_grad():
        acc = (model(tx.float().div(255).unsqueeze(1)).argmax(1) == ty).float().mean()
    for name, imgs, labs in (("train4", x, y), ("test4", tx, ty)):
        for k in keep:
            os.makedirs(os.path.join(a.out, name, TOPS[k]), exist_ok=True)
        for i in range(len(imgs)):
            write_png(os.path.join(a.out, name, TOPS[keep[int(labs[i])]], f"{i:05d}.png"), imgs[i])
    print(f"test accuracy (eval mode, {len(tx)} images): {100 * float(acc):.1f} %; wrote {a.out}")


if __name__ == "__main__":
    main()
