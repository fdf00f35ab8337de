"""The δ-CLUE search in PyTorch, for cmd/benchpeers: the same search on the same weights as the engine.

    python3 peer.py WORKLOAD check           # the first step's costs and gradients, and the whole search's results
    python3 peer.py WORKLOAD time [--warm W] # one process: start-up, the first (cold) search, then W warm ones

WORKLOAD is cmd/benchpeers' workload file (workload.go): the decoder's and the classifier's layers with float32
tensors, the classifier's fixed MC-dropout masks, x0, z0 and every restart's start. The networks are built from
the layer list, a graph when its layers say what they read (else a chain), in NCHW as PyTorch lays images out,
which is the description's own layout (a flattened image is channel-major), each layer with PyTorch's own op:
dense (addmm), conv2d and conv-transpose2d (groups, dilation, output padding), batch-norm (x·scale + shift per
channel), max-pool, avg-pool (padding counted), global average and max pooling, upsample (nearest), flatten,
reshape, add, mul (of one shape, or an image by one value per channel), concat (channels), relu, leaky-relu,
sigmoid, tanh, silu, gelu (erf or tanh), clip, hard-sigmoid, hard-swish, elu, softplus, identity, a closing
softmax or log-softmax (the identity: the objective takes its input as the logits), and dropout as fixed masks:
x ⊙ mask_k on the dropout's input for each sample k, sample-major, a per-point value meeting a per-sample one
copied per sample. The objective is the engine's: H_total of the MC-dropout predictive (its K fixed masks; the
predictive head in float64, as the engine computes it) + λx · the summed L1 distance of the decoded image
(Bernoulli: the sigmoid of the decoder's logits) to x0. Each step is one batch of all n restarts: the cost,
∂cost/∂z by autograd, one Adam step (in float64, as the engine's) and the projection onto the L2 ball of radius δ
around z0. torch.set_num_threads sets the threads (2 by default). It prints one JSON object.
"""

import argparse
import json
import struct
import sys
import time

T0 = time.perf_counter()

import numpy as np  # noqa: E402
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402


def load(path):
    raw = open(path, "rb").read()
    if raw[:8] != b"DCPEERS1":
        raise SystemExit(f"{path} is not a workload file")
    (n,) = struct.unpack("<I", raw[8:12])
    head = json.loads(raw[12 : 12 + n])
    off = 12 + n
    off += (-off) % 4
    data = np.frombuffer(raw, dtype="<f4", offset=off)

    def tensor(ref):
        size = int(np.prod(ref["shape"]))
        return torch.from_numpy(data[ref["offset"] : ref["offset"] + size].astype(np.float32).reshape(ref["shape"]))

    return head, tensor


class Network:
    """A network of the workload: its layers as functions of a batch, each reading the layers its "inputs" name
    (by index, -1 the network's input; absent, the layer before it: a chain)."""

    def __init__(self, spec, tensor, samples, per_sample):
        self.layers = []
        self.samples = samples
        self.per_sample = per_sample  # MC dropout: the output is per sample even where no mask made it so
        for i, l in enumerate(spec["layers"]):
            l = dict(l)
            for key in ("w", "b", "mask"):
                if key in l:
                    l[key] = tensor(l[key]).contiguous()
            l.setdefault("inputs", [i - 1])
            if l["op"] == "batch-norm":
                l["w"] = l["w"].reshape(1, -1, 1, 1)
                l["b"] = l["b"].reshape(1, -1, 1, 1)
            self.layers.append(l)

    def _expand(self, x, batch):
        """A per-point value [batch, ...] copied per sample: [K·batch, ...], sample-major."""
        return x.unsqueeze(0).expand(self.samples, *x.shape).reshape(self.samples * batch, *x.shape[1:])

    def __call__(self, x):
        """x: [batch, ...]; a value after a dropout layer is per MC sample, [K·batch, ...] (sample-major: row
        k·batch + i is sample k of point i), and a merge of a per-sample value with a per-point one copies the
        latter per sample, as the engine does."""
        batch = x.shape[0]
        values = []  # (tensor, per sample)
        for l in self.layers:
            ins = [(x, False) if j < 0 else values[j] for j in l["inputs"]]
            expanded = any(e for _, e in ins)
            if expanded:
                ins = [(t if e else self._expand(t, batch), True) for t, e in ins]
            xs = [t for t, _ in ins]
            values.append((self._layer(l, xs, batch, expanded), expanded or l["op"] == "dropout"))
        y, expanded = values[-1]
        if self.per_sample and not expanded:
            y = self._expand(y, batch)
        return y.reshape(y.shape[0], -1)

    def _layer(self, l, xs, batch, expanded):
        op = l["op"]
        shape = l["in"]
        x = xs[0]
        pad = tuple(l.get("padding", (0, 0)))  # the workload leaves zeros out
        rows = x.shape[0]
        image = lambda t, s: t.reshape(t.shape[0], *s) if len(s) == 3 else t.reshape(t.shape[0], s[0], 1, 1)
        if op == "dense":
            return torch.addmm(l["b"], x.reshape(rows, -1), l["w"])
        if op in ("conv2d", "conv-transpose2d"):
            x = x.reshape(rows, *shape)
            groups = l.get("groups", 1) or 1
            dilation = tuple(l.get("dilation") or (1, 1))
            if op == "conv2d":
                return F.conv2d(x, l["w"], l["b"], stride=tuple(l["stride"]), padding=pad,
                                dilation=dilation, groups=groups)
            return F.conv_transpose2d(x, l["w"], l["b"], stride=tuple(l["stride"]), padding=pad,
                                      output_padding=tuple(l.get("output_padding", [0, 0])), groups=groups,
                                      dilation=dilation)
        if op == "batch-norm":
            return image(x, shape) * l["w"] + l["b"]
        if op == "max-pool":
            return F.max_pool2d(x.reshape(rows, *shape), tuple(l["kernel"]), tuple(l["stride"]), pad)
        if op == "avg-pool":
            return F.avg_pool2d(x.reshape(rows, *shape), tuple(l["kernel"]), tuple(l["stride"]), pad,
                                count_include_pad=True)
        if op == "global-avg-pool":
            return F.adaptive_avg_pool2d(x.reshape(rows, *shape), 1)
        if op == "global-max-pool":
            return F.adaptive_max_pool2d(x.reshape(rows, *shape), 1)
        if op == "upsample":
            return F.interpolate(x.reshape(rows, *shape), scale_factor=tuple(float(v) for v in l["scale"]), mode="nearest")
        if op == "flatten":
            return x.reshape(rows, -1)
        if op == "reshape":
            return x.reshape(rows, *l["shape"])
        if op in ("identity", "softmax", "log-softmax"):  # a closing softmax: the objective takes its input as the logits
            return x
        if op == "add":
            out = x
            for t in xs[1:]:
                out = out + t.reshape(x.shape)
            return out
        if op == "mul":
            a, b = xs
            sa, sb = l["in_shapes"]
            if int(np.prod(sa)) == int(np.prod(sb)):
                return a * b.reshape(a.shape)
            if int(np.prod(sb)) == sb[0]:  # b: one value per channel of the image a
                return image(a, sa) * b.reshape(rows, -1, 1, 1)
            return a.reshape(rows, -1, 1, 1) * image(b, sb)
        if op == "concat":
            out = torch.cat([image(t, s) for t, s in zip(xs, l["in_shapes"])], 1)
            return out.reshape(rows, -1) if all(len(s) == 1 for s in l["in_shapes"]) else out
        if op == "relu":
            return F.relu(x)
        if op == "leaky-relu":
            return F.leaky_relu(x, l["slope"])
        if op == "sigmoid":
            return torch.sigmoid(x)
        if op == "tanh":
            return torch.tanh(x)
        if op == "silu":
            return F.silu(x)
        if op == "gelu":
            return F.gelu(x, approximate="tanh" if l.get("approximate") == "tanh" else "none")
        if op == "clip":
            return torch.clamp(x, l.get("min"), l.get("max"))
        if op == "hard-sigmoid":
            alpha, beta = l["alpha"], l.get("beta", 0.0)
            if alpha == 1 / 6 and beta == 0.5:
                return F.hardsigmoid(x)
            return torch.clamp(alpha * x + beta, 0, 1)
        if op == "hard-swish":
            return F.hardswish(x)
        if op == "elu":
            return F.elu(x, l["alpha"])
        if op == "softplus":
            return F.softplus(x)
        if op == "dropout":
            k = self.samples
            mask = l["mask"]  # [K, units or channels]
            x = x.reshape(rows, *shape)
            rest = tuple(x.shape[1:])
            m = mask.reshape(k, 1, mask.shape[1], *([1] * (len(rest) - 1)))
            if expanded:
                x = x.reshape(k, batch, *rest) * m
            else:
                x = x.unsqueeze(0) * m
            return x.reshape(k * batch, *rest)
        raise SystemExit(f"layer {op!r} is not implemented here")


class Search:
    def __init__(self, head, tensor):
        self.head = head
        s = head["search"]
        self.n, self.steps = s["n"], s["steps"]
        self.lr, self.b1, self.b2, self.eps = s["learning_rate"], s["beta1"], s["beta2"], s["eps"]
        self.delta, self.w_total, self.lambda_x = s["delta"], s["w_total"], s["lambda_x"]
        c = head["classifier"]
        self.k = c["samples"]
        self.ensemble = c["uncertainty"] == "ensemble"
        self.decoder = Network(head["decoder"], tensor, 1, False)
        self.classifier = [Network(n, tensor, self.k, not self.ensemble) for n in c["networks"]]
        self.x0 = tensor(head["x0"]).reshape(1, -1)
        self.z0 = tensor(head["z0"]).double().reshape(1, -1)
        self.starts = tensor(head["starts"]).double()
        self.checks = head["checks"]
        self.bernoulli = head["bernoulli"]

    def objective(self, z):
        """The cost of each latent point z [batch, latent] (float32), its H_total and its predictive p̄."""
        out = self.decoder(z)
        image = torch.sigmoid(out) if self.bernoulli else out
        if self.ensemble:
            logits = torch.cat([net(image) for net in self.classifier], 0)
        else:
            logits = self.classifier[0](image)
        b = z.shape[0]
        lp = F.log_softmax(logits.double().reshape(self.k, b, -1), -1)
        pbar = lp.exp().mean(0)
        h = -(pbar * torch.log(pbar.clamp_min(1e-300))).sum(-1)
        distance = (image - self.x0).abs().sum(-1)
        cost = self.w_total * h.float() + self.lambda_x * distance
        return cost, h, pbar

    def first_step(self):
        z = self.starts[: self.checks].float().requires_grad_()
        cost, _, _ = self.objective(z)
        (g,) = torch.autograd.grad(cost.sum(), z)
        return cost.detach().double().tolist(), g.double().tolist()

    def run(self):
        """The search: Steps Adam updates of every restart from its start, each projected onto the ball."""
        z = self.starts.clone()
        m = torch.zeros_like(z)
        v = torch.zeros_like(z)
        b1t = b2t = 1.0
        for _ in range(self.steps):
            zf = z.float().requires_grad_()
            cost, _, _ = self.objective(zf)
            (g,) = torch.autograd.grad(cost.sum(), zf)
            g = g.double()
            b1t *= self.b1
            b2t *= self.b2
            m = self.b1 * m + (1 - self.b1) * g
            v = self.b2 * v + (1 - self.b2) * g * g
            z = z - self.lr * (m / (1 - b1t)) / (torch.sqrt(v / (1 - b2t)) + self.eps)
            off = z - self.z0
            rho = torch.sqrt((off * off).sum(-1, keepdim=True))
            z = torch.where(rho > self.delta, self.z0 + self.delta * off / rho, z)
        with torch.no_grad():
            zf = z.float()
            cost, h, pbar = self.objective(zf)
        return zf, cost, h, pbar


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("workload")
    ap.add_argument("mode", choices=["check", "time"])
    ap.add_argument("--warm", type=int, default=3, help="warm searches after the cold one (time)")
    ap.add_argument("--threads", type=int, default=2)
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    head, tensor = load(a.workload)
    s = Search(head, tensor)
    ready = time.perf_counter()
    info = {"torch": torch.__version__, "threads": torch.get_num_threads(), "python": sys.version.split()[0]}
    if a.mode == "check":
        cost, grad = s.first_step()
        z, c, h, pbar = s.run()
        out = {"first_cost": cost, "first_grad": grad, "final_z": z.double().tolist(), "final_cost": c.double().tolist(),
               "final_h": h.tolist(), "labels": pbar.argmax(-1).tolist()}
        out.update(info)
        json.dump(out, sys.stdout)
        return
    runs = []
    for i in range(1 + a.warm):
        t = time.perf_counter()
        _, c, _, _ = s.run()
        runs.append({"ms": (time.perf_counter() - t) * 1e3, "mean_cost": float(c.double().mean())})
    out = {"ready_ms": (ready - T0) * 1e3, "cold": runs[0], "warm": runs[1:]}
    out.update(info)
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
