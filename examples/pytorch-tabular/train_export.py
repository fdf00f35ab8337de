"""Trains a small MC-dropout MLP and a small VAE for mixed data on the credit applicants' rows, exports them to
ONNX, and writes the schema and the rows: what `deltaclue import -schema` reads (docs/your-model.md, "A table").

usage: python3 train_export.py OUT_DIR [--data CSV] [--test CSV] [--schema JSON] [--train N] [--epochs E]
                               [--vae-epochs E] [--batch B] [--threads T]

Needs torch (Debian: python3-torch, 1.13) and onnx for the export (python3-onnx). By default it reads the credit
training split (data/credit/train.csv: `make data DATASET=credit`) and the committed test split and schema
(internal/credit/test.csv, schema.json); --data alone (the committed test split, in CI) splits that file's rows
a fifth to test, with a fixed seed. Writes into OUT_DIR:

  schema.json        the columns (name, kind, levels, unit, range, change) without their mean and std, which
                     the import computes from train.csv's rows as this script does (the population's std)
  train.csv, test.csv  the rows the networks were trained and are tested on, the class in the column Status
  clf.onnx           the classifier (26 values → 64 → 64 → 2, ReLU, dropout 0.25 after each hidden layer),
                     exported in eval mode, so its Dropout is dropped: the import is told where it acted with
                     -dropout /fc2/Gemm=0.25,/fc3/Gemm=0.25 (dropout on the inputs of fc2 and fc3)
  enc.onnx, dec.onnx the VAE's encoder (flattened row → latent mean) and decoder (latent → each number's
                     standardised mean and each category's logits over its levels)
  probe.json         the first test row and PyTorch's eval-mode probabilities for it, which
                     `deltaclue predict -eval` gives within 1e-4 from the float32 import
"""
import argparse
import csv
import json
import math
import os
import time

import torch
from torch import nn

LABEL = "Status"
CLASSES = ["bad", "good"]


def read_rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def flatten(schema, row):
    """The flattened row the networks read: each number standardised, each category one-hot in its levels' order."""
    out = []
    for c in schema:
        v = row[c["name"]]
        if c["kind"] == "category":
            out += [1.0 if v == level else 0.0 for level in c["levels"]]
        else:
            out.append((float(v) - c["mean"]) / c["std"])
    return out


def fit(schema, rows):
    """Each number's mean and population std over the training rows, as `deltaclue import` computes them."""
    for c in schema:
        if c["kind"] != "category":
            vs = [float(r[c["name"]]) for r in rows]
            mean = math.fsum(vs) / len(vs)
            c["mean"], c["std"] = mean, math.sqrt(math.fsum((v - mean) ** 2 for v in vs) / len(vs))


class Classifier(nn.Module):
    def __init__(self, width, hidden=64, rate=0.25):
        super().__init__()
        self.fc1, self.fc2, self.fc3 = nn.Linear(width, hidden), nn.Linear(hidden, hidden), nn.Linear(hidden, len(CLASSES))
        self.drop = nn.Dropout(rate)

    def forward(self, x):
        h = self.drop(torch.relu(self.fc1(x)))
        h = self.drop(torch.relu(self.fc2(h)))
        return self.fc3(h)


class Encoder(nn.Module):
    def __init__(self, width, hidden, latent):
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(width, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU())
        self.mean, self.log_var = nn.Linear(hidden, latent), nn.Linear(hidden, latent)

    def forward(self, x):  # what is exported: the latent mean
        return self.mean(self.trunk(x))


class Decoder(nn.Module):
    def __init__(self, width, hidden, latent):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(latent, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU(), nn.Linear(hidden, width))

    def forward(self, z):
        return self.net(z)


def mixed_nll(schema, x, y):
    """CLUE's likelihood for mixed data, summed over rows: a unit-variance Gaussian about each number's mean, the
    cross-entropy of each category's one-hot block against its logits."""
    total, k = 0.0, 0
    for c in schema:
        if c["kind"] == "category":
            n = len(c["levels"])
            total = total - (x[:, k:k + n] * torch.log_softmax(y[:, k:k + n], dim=1)).sum()
            k += n
        else:
            total = total + 0.5 * ((x[:, k] - y[:, k]) ** 2).sum()
            k += 1
    return total


def main():
    p = argparse.ArgumentParser()
    p.add_argument("out")
    p.add_argument("--data", default="data/credit/train.csv")
    p.add_argument("--test", default="internal/credit/test.csv", help="the test rows; empty: a fifth of --data")
    p.add_argument("--schema", default="internal/credit/schema.json")
    p.add_argument("--train", type=int, default=0, help="at most this many training rows (0: all)")
    p.add_argument("--epochs", type=int, default=20)
    p.add_argument("--vae-epochs", type=int, default=30)
    p.add_argument("--batch", type=int, default=128)
    p.add_argument("--latent", type=int, default=6)
    p.add_argument("--threads", type=int, default=2)
    a = p.parse_args()
    torch.manual_seed(41)
    torch.set_num_threads(a.threads)

    with open(a.schema) as f:
        schema = [{k: v for k, v in c.items() if k not in ("mean", "std")} for c in json.load(f)]
    rows = read_rows(a.data)
    if a.test:
        test = read_rows(a.test)
    else:
        g = torch.Generator().manual_seed(7)
        perm = torch.randperm(len(rows), generator=g).tolist()
        cut = len(rows) // 5
        test, rows = [rows[i] for i in sorted(perm[:cut])], [rows[i] for i in sorted(perm[cut:])]
    if a.train:
        rows = rows[: a.train]
    os.makedirs(a.out, exist_ok=True)
    names = [c["name"] for c in schema] + [LABEL]
    for name, part in (("train.csv", rows), ("test.csv", test)):
        with open(os.path.join(a.out, name), "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=names, extrasaction="ignore")
            w.writeheader()
            w.writerows(part)
    with open(os.path.join(a.out, "schema.json"), "w") as f:
        json.dump(schema, f, indent=2)
        f.write("\n")
    fit(schema, rows)

    x = torch.tensor([flatten(schema, r) for r in rows])
    y = torch.tensor([CLASSES.index(r[LABEL]) for r in rows])
    width = x.shape[1]
    clf = Classifier(width)
    enc, dec = Encoder(width, 64, a.latent), Decoder(width, 64, a.latent)

    def train(params, loss, epochs):
        opt = torch.optim.Adam(params, lr=1e-3)
        t0 = time.time()
        for _ in range(epochs):
            for i in torch.randperm(len(x)).split(a.batch):
                opt.zero_grad()
                l = loss(i)
                l.backward()
                opt.step()
        return time.time() - t0, l.item()

    clf.train()
    secs, l = train(clf.parameters(), lambda i: nn.functional.cross_entropy(clf(x[i]), y[i]), a.epochs)
    print(f"classifier: {len(x)} rows of {width} values, {a.epochs} epochs in {secs:.1f} s, last batch loss {l:.3f}")

    def neg_elbo(i):
        h = enc.trunk(x[i])
        mu, lv = enc.mean(h), enc.log_var(h)
        z = mu + torch.randn_like(mu) * (0.5 * lv).exp()
        kl = -0.5 * (1 + lv - mu.pow(2) - lv.exp()).sum()
        return (mixed_nll(schema, x[i], dec(z)) + 0.5 * kl) / len(i)  # β 0.5, as the import's own VAE

    enc.train(), dec.train()
    secs, l = train(list(enc.parameters()) + list(dec.parameters()), neg_elbo, a.vae_epochs)
    print(f"VAE: {a.vae_epochs} epochs in {secs:.1f} s, last batch objective {l:.2f} nats")
    clf.eval(), enc.eval(), dec.eval()

    kw = dict(opset_version=17, input_names=["x"], output_names=["y"], dynamic_axes={"x": {0: "n"}, "y": {0: "n"}})
    torch.onnx.export(clf, torch.zeros(1, width), os.path.join(a.out, "clf.onnx"), **kw)
    torch.onnx.export(enc, torch.zeros(1, width), os.path.join(a.out, "enc.onnx"), **kw)
    torch.onnx.export(dec, torch.zeros(1, a.latent), os.path.join(a.out, "dec.onnx"), **kw)

    probe = test[0]
    with torch.no_grad():
        probs = torch.softmax(clf(torch.tensor([flatten(schema, probe)])), dim=1)[0].tolist()
    with open(os.path.join(a.out, "probe.json"), "w") as f:
        json.dump({"row": ",".join(f"{c['name']}={probe[c['name']]}" for c in schema), "probs": probs}, f)
        f.write("\n")
    acc = (clf(torch.tensor([flatten(schema, r) for r in test])).argmax(1) == torch.tensor([CLASSES.index(r[LABEL]) for r in test])).float().mean()
    print(f"wrote {a.out}: test accuracy {acc:.4f} on {len(test)} rows")


if __name__ == "__main__":
    main()
