"""Trains a small heteroscedastic MC-dropout MLP regressor on the concrete mixes' rows, exports it to ONNX, and
writes the schema and the rows: what `deltaclue import -schema … -target …` reads (docs/your-model.md, "A
regression").

usage: python3 train_export.py OUT_DIR [--data CSV] [--test CSV] [--schema JSON] [--epochs E] [--batch B]
                               [--threads T] [--sigma softplus|log-variance]

Needs torch (Debian: python3-torch, 1.13) and onnx for the export (python3-onnx). By default it reads the
concrete training split (data/concrete/train.csv: `make data DATASET=concrete`) and the committed test split and
schema (internal/concrete/test.csv, schema.json); --test "" (the committed test split as --data, in CI) splits
--data's rows a fifth to test, with a fixed seed. Writes into OUT_DIR:

  schema.json         the 8 columns (name, kind, unit, range, change) without their mean and std, which the import
                      computes from train.csv's rows as this script does (the population's std)
  train.csv, test.csv the rows the network was trained and is tested on, the strength (MPa) in the column Strength
  reg.onnx            the regressor (8 values → 64 → 64 → 2, ReLU, dropout 0.1 after each hidden layer), exported
                      in eval mode, so its Dropout is dropped: the import is told where it acted with
                      -dropout /fc2/Gemm=0.1,/fc3/Gemm=0.1. Its two outputs are the standardised mean o0 and the
                      σ head o1: σ = std·softplus(o1) (or std·exp(o1/2) with --sigma log-variance), the target
                      standardised by the training strengths' mean and population std
  probe.json          the first test row and PyTorch's eval-mode mean and σ for it, in MPa
"""
import argparse
import csv
import json
import math
import os
import time

import torch
from torch import nn

TARGET = "Strength"


def read_rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def mean_std(vs):
    mean = math.fsum(vs) / len(vs)
    return mean, math.sqrt(math.fsum((v - mean) ** 2 for v in vs) / len(vs))


class Regressor(nn.Module):
    def __init__(self, width, hidden=64, rate=0.1):
        super().__init__()
        self.fc1, self.fc2, self.fc3 = nn.Linear(width, hidden), nn.Linear(hidden, hidden), nn.Linear(hidden, 2)
        self.drop = nn.Dropout(rate)

    def forward(self, x):
        h = self.drop(torch.relu(self.fc1(x)))
        h = self.drop(torch.relu(self.fc2(h)))
        return self.fc3(h)  # [o0, o1]: the standardised mean and the σ head


def sigma_of(o1, form):
    return torch.exp(0.5 * o1) if form == "log-variance" else nn.functional.softplus(o1)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("out")
    p.add_argument("--data", default="data/concrete/train.csv")
    p.add_argument("--test", default="internal/concrete/test.csv", help="the test rows; empty: a fifth of --data")
    p.add_argument("--schema", default="internal/concrete/schema.json")
    p.add_argument("--epochs", type=int, default=400)
    p.add_argument("--batch", type=int, default=32)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--sigma", default="softplus", choices=["softplus", "log-variance"])
    a = p.parse_args()
    torch.manual_seed(42)
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
    os.makedirs(a.out, exist_ok=True)
    names = [c["name"] for c in schema] + [TARGET]
    for name, part in (("train.csv", rows), ("test.csv", test)):
        with open(os.path.join(a.out, name), "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=names, extrasaction="ignore")
            w.writeheader()
            w.writerows(part)
    with open(os.path.join(a.out, "schema.json"), "w") as f:
        json.dump(schema, f, indent=2)
        f.write("\n")

    stats = [mean_std([float(r[c["name"]]) for r in rows]) for c in schema]
    t_mean, t_std = mean_std([float(r[TARGET]) for r in rows])

    def flatten(r):
        return [(float(r[c["name"]]) - m) / s for c, (m, s) in zip(schema, stats)]

    x = torch.tensor([flatten(r) for r in rows])
    y = torch.tensor([(float(r[TARGET]) - t_mean) / t_std for r in rows])
    reg = Regressor(x.shape[1])
    opt = torch.optim.Adam(reg.parameters(), lr=1e-3, weight_decay=1e-5)
    reg.train()
    t0 = time.time()
    for _ in range(a.epochs):
        for i in torch.randperm(len(x)).split(a.batch):
            opt.zero_grad()
            o = reg(x[i])
            sigma = sigma_of(o[:, 1], a.sigma)
            loss = (torch.log(sigma) + 0.5 * ((y[i] - o[:, 0]) / sigma) ** 2).mean()  # the Gaussian NLL
            loss.backward()
            opt.step()
    print(f"regressor: {len(x)} rows, {a.epochs} epochs in {time.time() - t0:.1f} s, last batch NLL {loss.item():.3f} (standardised)")
    reg.eval()

    kw = dict(opset_version=17, input_names=["x"], output_names=["y"], dynamic_axes={"x": {0: "n"}, "y": {0: "n"}})
    torch.onnx.export(reg, torch.zeros(1, x.shape[1]), os.path.join(a.out, "reg.onnx"), **kw)

    with torch.no_grad():
        o = reg(torch.tensor([flatten(r) for r in test]))
    mu = o[:, 0] * t_std + t_mean
    sigma = sigma_of(o[:, 1], a.sigma) * t_std
    probe = test[0]
    with open(os.path.join(a.out, "probe.json"), "w") as f:
        json.dump({"row": ",".join(f"{c['name']}={probe[c['name']]}" for c in schema), "mean": mu[0].item(), "sigma": sigma[0].item()}, f)
        f.write("\n")
    ys = torch.tensor([float(r[TARGET]) for r in test])
    rmse = ((mu - ys) ** 2).mean().sqrt()
    print(f"wrote {a.out}: eval-mode RMSE {rmse:.2f} MPa on {len(test)} test rows, mean σ {sigma.mean():.2f} MPa")


if __name__ == "__main__":
    main()
