"""Trains a small MC-dropout CNN and a small convolutional VAE on a few thousand Fashion-MNIST images, exports
them to ONNX, and writes the images as class folders: what `deltaclue import` reads (docs/your-model.md).

usage: python3 train_export.py OUT_DIR [--train N] [--test N] [--epochs E] [--vae-epochs E] [--threads T] [--resnet]

Needs torch (Debian: python3-torch, 1.13; current torch works too) and onnx for the export (python3-onnx),
and Fashion-MNIST's IDX files (Debian: dataset-fashion-mnist, or --idx DIR). Writes into OUT_DIR:

  clf.onnx           the classifier, exported in eval mode, so its Dropout is dropped: the import is told where
                     it acted with -dropout /fc2/Gemm=0.3 (dropout on the input of fc2)
  clf_resnet.onnx    with --resnet, a second classifier: a small ResNet (residual blocks with skip connections
                     and BatchNorm, a strided 1×1 shortcut, global average pooling), exported in eval mode: the
                     import places its dropout with -dropout /fc/Gemm=0.3; probes_resnet.json its probabilities
  enc.onnx, dec.onnx the VAE's encoder (image → latent mean) and decoder (latent → image, a final sigmoid)
  train/<class>/*.png, test/<class>/*.png   the images, ImageFolder's layout
  probe.png, probe.json  one test image and PyTorch's eval-mode probabilities for it, which
                     `deltaclue predict -eval` must give within 1e-4 from the float32 import
  probes.json        the same for the first 16 test images, by their PNGs' paths under OUT_DIR
"""
import argparse
import gzip
import json
import os
import struct
import time
import zlib

import torch
from torch import nn

CLASSES = ["T-shirt or top", "Trouser", "Pullover", "Dress", "Coat", "Sandal", "Shirt", "Sneaker", "Bag", "Ankle boot"]


def read_idx(path):
    with gzip.open(path, "rb") as f:
        data = f.read()
    ndim = data[3]
    dims = struct.unpack(">" + "I" * ndim, data[4:4 + 4 * ndim])
    return torch.frombuffer(bytearray(data[4 + 4 * ndim:]), dtype=torch.uint8).reshape(dims)


def write_png(path, pixels):
    """A greyscale 8-bit PNG of a [H, W] uint8 tensor, without an imaging library."""
    h, w = pixels.shape
    raw = b"".join(b"\x00" + bytes(pixels[r].tolist()) for r in range(h))

    def chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)

    png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 0, 0, 0, 0))
    png += chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b"")
    with open(path, "wb") as f:
        f.write(png)


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 16, 3, stride=2, padding=1)
        self.conv2 = nn.Conv2d(16, 32, 3, stride=2, padding=1)
        self.fc1 = nn.Linear(32 * 7 * 7, 64)
        self.drop = nn.Dropout(0.3)
        self.fc2 = nn.Linear(64, 10)

    def forward(self, x):
        x = torch.relu(self.conv2(torch.relu(self.conv1(x))))
        x = torch.relu(self.fc1(x.flatten(1)))
        return self.fc2(self.drop(x))  # logits


class Block(nn.Module):
    """ResNet's basic block: two 3×3 convolutions with BatchNorm, added to the input (through a strided 1×1
    convolution and BatchNorm where the shape changes), then a ReLU."""

    def __init__(self, cin, cout, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride=stride, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.shortcut = nn.Identity()
        if stride != 1 or cin != cout:
            self.shortcut = nn.Sequential(nn.Conv2d(cin, cout, 1, stride=stride, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x):
        h = torch.relu(self.bn1(self.conv1(x)))
        return torch.relu(self.bn2(self.conv2(h)) + self.shortcut(x))


class ResNet(nn.Module):
    """A small residual classifier: a stem, three basic blocks (8, 16 and 32 channels at 28, 14 and 7 pixels),
    global average pooling, dropout and a linear head."""

    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(1, 8, 3, padding=1, bias=False), nn.BatchNorm2d(8), nn.ReLU())
        self.blocks = nn.Sequential(Block(8, 8, 1), Block(8, 16, 2), Block(16, 32, 2))
        self.drop = nn.Dropout(0.3)
        self.fc = nn.Linear(32, 10)

    def forward(self, x):
        h = self.blocks(self.stem(x)).mean((2, 3))
        return self.fc(self.drop(h))  # logits


class Encoder(nn.Module):
    def __init__(self, latent):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 16, 4, stride=2, padding=1)
        self.conv2 = nn.Conv2d(16, 32, 4, stride=2, padding=1)
        self.mean = nn.Linear(32 * 7 * 7, latent)
        self.log_var = nn.Linear(32 * 7 * 7, latent)

    def features(self, x):
        return torch.relu(self.conv2(torch.relu(self.conv1(x)))).flatten(1)

    def forward(self, x):  # what is exported: the latent mean
        return self.mean(self.features(x))


class Decoder(nn.Module):
    def __init__(self, latent):
        super().__init__()
        self.fc = nn.Linear(latent, 32 * 7 * 7)
        self.up1 = nn.ConvTranspose2d(32, 16, 4, stride=2, padding=1)
        self.up2 = nn.ConvTranspose2d(16, 1, 4, stride=2, padding=1)

    def logits(self, z):
        x = torch.relu(self.fc(z)).view(-1, 32, 7, 7)
        return self.up2(torch.relu(self.up1(x)))

    def forward(self, z):
        return torch.sigmoid(self.logits(z))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--idx", default="/usr/share/datasets/fashion-mnist")
    ap.add_argument("--train", type=int, default=3000)
    ap.add_argument("--test", type=int, default=500)
    ap.add_argument("--epochs", type=int, default=30, help="the classifier's epochs (a fixed number, so that a run is repeatable)")
    ap.add_argument("--vae-epochs", type=int, default=40, help="the VAE's epochs")
    ap.add_argument("--threads", type=int, default=2, help="torch's threads")
    ap.add_argument("--latent", type=int, default=8)
    ap.add_argument("--resnet", action="store_true", help="also train and export the residual classifier (clf_resnet.onnx)")
    ap.add_argument("--resnet-epochs", type=int, default=8, help="the residual classifier's epochs")
    a = ap.parse_args()
    torch.manual_seed(31)
    torch.set_num_threads(max(1, min(a.threads, os.cpu_count() or 1)))
    images = read_idx(os.path.join(a.idx, "train-images-idx3-ubyte.gz"))
    labels = read_idx(os.path.join(a.idx, "train-labels-idx1-ubyte.gz"))
    timages = read_idx(os.path.join(a.idx, "t10k-images-idx3-ubyte.gz"))
    tlabels = read_idx(os.path.join(a.idx, "t10k-labels-idx1-ubyte.gz"))
    x = images[: a.train].float().div(255).unsqueeze(1)
    y = labels[: a.train].long()

    def train(model, loss_fn, epochs):
        opt = torch.optim.Adam(model.parameters(), lr=2e-3)
        g = torch.Generator().manual_seed(7)
        start = time.time()
        for _ in range(epochs):
            for idx in torch.randperm(len(x), generator=g).split(64):
                opt.zero_grad()
                loss = loss_fn(idx)
                loss.backward()
                opt.step()
        return time.time() - start, float(loss)

    clf = Classifier()
    clf.train()
    secs, l = train(clf, lambda i: nn.functional.cross_entropy(clf(x[i]), y[i]), a.epochs)
    print(f"classifier: {a.epochs} epochs in {secs:.0f} s, last batch loss {l:.3f}")
    resnet = None
    if a.resnet:
        resnet = ResNet()
        resnet.train()
        secs, l = train(resnet, lambda i: nn.functional.cross_entropy(resnet(x[i]), y[i]), a.resnet_epochs)
        print(f"residual classifier: {a.resnet_epochs} epochs in {secs:.0f} s, last batch loss {l:.3f}")
        resnet.eval()
    enc, dec = Encoder(a.latent), Decoder(a.latent)
    vae = nn.ModuleList([enc, dec])

    def neg_elbo(i):
        h = enc.features(x[i])
        mu, lv = enc.mean(h), enc.log_var(h)
        z = mu + torch.randn_like(mu) * (0.5 * lv).exp()
        rec = nn.functional.binary_cross_entropy_with_logits(dec.logits(z), x[i], reduction="sum")
        kl = -0.5 * (1 + lv - mu.pow(2) - lv.exp()).sum()
        return (rec + kl) / len(i)

    vae.train()
    secs, l = train(vae, neg_elbo, a.vae_epochs)
    print(f"VAE: {a.vae_epochs} epochs in {secs:.0f} s, last batch −ELBO {l:.1f} nats")
    clf.eval(), enc.eval(), dec.eval()

    os.makedirs(a.out, exist_ok=True)
    kw = dict(opset_version=17, input_names=["x"], output_names=["y"], dynamic_axes={"x": {0: "n"}, "y": {0: "n"}})
    torch.onnx.export(clf, torch.zeros(1, 1, 28, 28), os.path.join(a.out, "clf.onnx"), **kw)
    if resnet is not None:
        torch.onnx.export(resnet, torch.zeros(1, 1, 28, 28), os.path.join(a.out, "clf_resnet.onnx"), **kw)
    torch.onnx.export(enc, torch.zeros(1, 1, 28, 28), os.path.join(a.out, "enc.onnx"), **kw)
    torch.onnx.export(dec, torch.zeros(1, a.latent), os.path.join(a.out, "dec.onnx"), **kw)

    for split, imgs, labs in (("train", images[: a.train], labels[: a.train]), ("test", timages[: a.test], tlabels[: a.test])):
        for c in CLASSES:
            os.makedirs(os.path.join(a.out, split, c), exist_ok=True)
        for i in range(len(imgs)):
            write_png(os.path.join(a.out, split, CLASSES[labs[i]], f"{i:05d}.png"), imgs[i])
    with torch.no_grad():
        acc = (clf(timages[: a.test].float().div(255).unsqueeze(1)).argmax(1) == tlabels[: a.test]).float().mean()
        probe = timages[0]
        write_png(os.path.join(a.out, "probe.png"), probe)
        p = torch.softmax(clf(probe.float().div(255).view(1, 1, 28, 28)), 1)[0]
        # PyTorch's own probabilities for the first test images too, each by its PNG's path under OUT_DIR
        probes = []
        for i in range(min(16, a.test)):
            q = torch.softmax(clf(timages[i].float().div(255).view(1, 1, 28, 28)), 1)[0]
            probes.append({"file": os.path.join("test", CLASSES[tlabels[i]], f"{i:05d}.png"), "probs": [float(v) for v in q], "label": int(q.argmax())})
        for name, model in (("probes_resnet.json", resnet),):
            if model is None:
                continue
            rows = []
            for i in range(min(16, a.test)):
                q = torch.softmax(model(timages[i].float().div(255).view(1, 1, 28, 28)), 1)[0]
                rows.append({"file": os.path.join("test", CLASSES[tlabels[i]], f"{i:05d}.png"), "probs": [float(v) for v in q], "label": int(q.argmax())})
            racc = (model(timages[: a.test].float().div(255).unsqueeze(1)).argmax(1) == tlabels[: a.test]).float().mean()
            print(f"residual classifier's test accuracy (eval mode, {a.test} images): {100 * float(racc):.1f} %")
            with open(os.path.join(a.out, name), "w") as f:
                json.dump(rows, f, indent=1)
    with open(os.path.join(a.out, "probe.json"), "w") as f:
        json.dump({"probs": [float(v) for v in p], "label": int(p.argmax())}, f)
    with open(os.path.join(a.out, "probes.json"), "w") as f:
        json.dump(probes, f, indent=1)
    print(f"test accuracy (eval mode, {a.test} images): {100 * float(acc):.1f} %; wrote {a.out}")


if __name__ == "__main__":
    main()
