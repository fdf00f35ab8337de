"""Trains a small MC-dropout CNN and a small convolutional VAE on a few thousand Fashion-MNIST images, exports
them to ONNX, and writes the images as class folders: what `deltaclue import` reads (docs/your-model.md).

usage: python3 train_export.py OUT_DIR [--train N] [--test N] [--epochs E] [--vae-epochs E] [--threads T]

Needs torch (Debian: python3-torch, 1.13; current torch works too) and onnx for the export (python3-onnx),
and Fashion-MNIST's IDX files (Debian: dataset-fashion-mnist, or --idx DIR). Writes into OUT_DIR:

  clf.onnx           the classifier, exported in eval mode, so its Dropout is dropped: the import is told where
                     it acted with -dropout /fc2/Gemm=0.3 (dropout on the input of fc2)
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
    with open(os.path.join(a.out, "probe.json"), "w") as f:
        json.dump({"probs": [float(v) for v in p], "label": int(p.argmax())}, f)
    with open(os.path.join(a.out, "probes.json"), "w") as f:
        json.dump(probes, f, indent=1)
    print(f"test accuracy (eval mode, {a.test} images): {100 * float(acc):.1f} %; wrote {a.out}")


if __name__ == "__main__":
    main()
