"""Exports PyTorch classifiers with branches to ONNX for internal/onnximport's graph tests.

usage: python3 graphs.py OUT_DIR [NAME ...]

Writes OUT_DIR/NAME_OPSET.onnx for each model (all when no NAME is given) at opsets 13 and 17 (torch 1.13
writes up to 17) and 18: the opset-17 export with its opset import raised to 18 and each Reduce op's axes moved
from its attribute to its input, opset 18's one change among the ops these models use. Models take 1-channel
images, are in eval mode (PyTorch fuses a BatchNorm into the convolution before it), random, seeded by name:

  resnet        a small ResNet: basic blocks with a skip and BatchNorm, a downsampling 1×1 shortcut
  resnet_raw    the same without PyTorch's constant folding and fusing: every BatchNormalization is in the graph
  mobilenet_raw the MobileNetV2-style block below, likewise (BatchNorm after a depthwise convolution)
  preact        pre-activation blocks (BatchNorm and ReLU before each convolution), whose BatchNorm after an add
                cannot fold into a convolution
  densenet      a DenseNet-style block: BatchNorm, ReLU and a convolution, concatenated with the input
  silu          a CNN with SiLU (Sigmoid·x)
  gelu          an MLP with GELU, exact (Erf) and tanh
  mobilenet     a MobileNetV2-style block: ReLU6 (Clip), a depthwise convolution, an inverted residual
  efficientnet  an EfficientNet-style block: SiLU, a depthwise convolution, squeeze-and-excitation
                (x.mean((2, 3)), a broadcast Mul)
  zoo           the other activations (hard-swish, hard-sigmoid, ELU, Softplus, LeakyReLU), a dilated grouped
                convolution, a grouped transposed convolution and its BatchNorm (which PyTorch does not fuse),
                global max pooling, a scaling by a constant
  resnet18, mobilenet_v2, efficientnet_b0   torchvision's, 4 classes, a 1-channel first convolution, 32×32
  lstm, attention, nonzero   what the import refuses: an LSTM, attention's product of two activations, NonZero
"""
import os
import sys
import zlib

import numpy
import onnx
import torch
from torch import nn
from onnx import numpy_helper

out = sys.argv[1]
only = set(sys.argv[2:])


def randomize(b):
    """Gives a BatchNorm running statistics that are not the identity, so that folding them shows."""
    with torch.no_grad():
        b.running_mean.uniform_(-0.5, 0.5)
        b.running_var.uniform_(0.5, 2.0)
        b.weight.uniform_(0.5, 1.5)
        b.bias.uniform_(-0.2, 0.2)
    return b


def bn(c):
    return randomize(nn.BatchNorm2d(c))


class Basic(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = bn(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = bn(cout)
        self.short = nn.Identity()
        if stride != 1 or cin != cout:
            self.short = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), bn(cout))

    def forward(self, x):
        h = torch.relu(self.bn1(self.conv1(x)))
        return torch.relu(self.bn2(self.conv2(h)) + self.short(x))


class ResNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(1, 8, 3, 1, 1, bias=False), bn(8), nn.ReLU())
        self.blocks = nn.Sequential(Basic(8, 8, 1), Basic(8, 16, 2))
        self.fc = nn.Linear(16, 4)

    def forward(self, x):
        return self.fc(torch.flatten(nn.functional.adaptive_avg_pool2d(self.blocks(self.stem(x)), 1), 1))


class PreAct(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(1, 8, 3, 1, 1)
        self.bn1, self.conv1 = bn(8), nn.Conv2d(8, 8, 3, 1, 1)
        self.bn2, self.conv2 = bn(8), nn.Conv2d(8, 8, 3, 1, 1)
        self.bn3 = bn(8)
        self.fc = nn.Linear(8 * 4 * 4, 4)

    def forward(self, x):
        x = self.stem(x)
        x = x + self.conv1(torch.relu(self.bn1(x)))  # bn1 reads the stem, which the skip reads too
        x = x + self.conv2(torch.relu(self.bn2(x)))  # bn2 reads an add
        x = torch.relu(self.bn3(x))
        return self.fc(torch.flatten(nn.functional.max_pool2d(x, 2), 1))


class Dense(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(1, 6, 3, 1, 1)
        self.layers = nn.ModuleList([nn.Sequential(bn(6 + 4 * i), nn.ReLU(), nn.Conv2d(6 + 4 * i, 4, 3, 1, 1)) for i in range(3)])
        self.bn = bn(18)
        self.fc = nn.Linear(18, 4)

    def forward(self, x):
        x = self.stem(x)
        for layer in self.layers:
            x = torch.cat([x, layer(x)], 1)
        x = torch.relu(self.bn(x))  # a BatchNorm after a concat
        return self.fc(torch.flatten(nn.functional.adaptive_avg_pool2d(x, 1), 1))


class SiLUNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.c1, self.b1 = nn.Conv2d(1, 8, 3, 2, 1), bn(8)
        self.c2 = nn.Conv2d(8, 16, 3, 2, 1)
        self.fc = nn.Linear(16 * 4 * 4, 4)

    def forward(self, x):
        x = nn.functional.silu(self.b1(self.c1(x)))
        x = nn.functional.silu(self.c2(x))
        return self.fc(x.flatten(1))


class GELUNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1, self.fc2, self.fc3 = nn.Linear(64, 32), nn.Linear(32, 32), nn.Linear(32, 4)

    def forward(self, x):
        x = nn.functional.gelu(self.fc1(x.flatten(1)))
        x = nn.functional.gelu(self.fc2(x), approximate="tanh")
        return self.fc3(x)


class InvertedResidual(nn.Module):
    def __init__(self, c, expand):
        super().__init__()
        h = c * expand
        self.body = nn.Sequential(
            nn.Conv2d(c, h, 1, bias=False), bn(h), nn.ReLU6(),
            nn.Conv2d(h, h, 3, 1, 1, groups=h, bias=False), bn(h), nn.ReLU6(),
            nn.Conv2d(h, c, 1, bias=False), bn(c))

    def forward(self, x):
        return x + self.body(x)


class MobileNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(1, 8, 3, 2, 1, bias=False), bn(8), nn.ReLU6())
        self.block = InvertedResidual(8, 4)
        self.fc = nn.Linear(8, 4)

    def forward(self, x):
        return self.fc(torch.flatten(nn.functional.adaptive_avg_pool2d(self.block(self.stem(x)), 1), 1))


class MBConv(nn.Module):
    def __init__(self, c, expand):
        super().__init__()
        h = c * expand
        self.expand = nn.Sequential(nn.Conv2d(c, h, 1, bias=False), bn(h), nn.SiLU())
        self.depthwise = nn.Sequential(nn.Conv2d(h, h, 3, 1, 1, groups=h, bias=False), bn(h), nn.SiLU())
        self.squeeze, self.excite = nn.Conv2d(h, 4, 1), nn.Conv2d(4, h, 1)
        self.project = nn.Sequential(nn.Conv2d(h, c, 1, bias=False), bn(c))

    def forward(self, x):
        h = self.depthwise(self.expand(x))
        s = torch.sigmoid(self.excite(nn.functional.silu(self.squeeze(h.mean((2, 3), keepdim=True)))))
        return x + self.project(h * s)


class EfficientNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(1, 8, 3, 2, 1, bias=False), bn(8), nn.SiLU())
        self.block = MBConv(8, 4)
        self.fc = nn.Linear(8, 4)

    def forward(self, x):
        return self.fc(self.block(self.stem(x)).mean((2, 3)))


class Zoo(nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv2d(1, 8, 3, 1, 2, dilation=2)
        self.c2 = nn.Conv2d(8, 8, 3, 1, 2, dilation=2, groups=4)
        self.up = nn.ConvTranspose2d(8, 8, 2, 2, groups=2)
        self.upbn = bn(8)
        self.c3 = nn.Conv2d(8, 8, 3, 2, 1)
        self.fc = nn.Linear(8, 4)

    def forward(self, x):
        x = nn.functional.hardswish(self.c1(x))
        x = nn.functional.elu(self.c2(x), 0.7) * 0.5
        x = nn.functional.softplus(self.upbn(self.up(x)))
        y = self.c3(x)
        x = nn.functional.hardsigmoid(y) + nn.functional.leaky_relu(y, 0.1)
        return self.fc(torch.flatten(nn.functional.adaptive_max_pool2d(x, 1), 1))


class LSTMNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm, self.fc = nn.LSTM(8, 6), nn.Linear(6, 4)

    def forward(self, x):
        y, _ = self.lstm(x.view(8, -1, 8))
        return self.fc(y[-1])


class Attention(nn.Module):
    def __init__(self):
        super().__init__()
        self.q, self.k, self.fc = nn.Conv2d(1, 1, 1), nn.Conv2d(1, 1, 1), nn.Linear(64, 4)

    def forward(self, x):
        a = torch.softmax(self.q(x) @ self.k(x), -1)
        return self.fc((a @ x).flatten(1))


class NonZero(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(64, 4)

    def forward(self, x):
        return self.fc(x.flatten(1)) * torch.nonzero(x > 0.5).shape[0]


def torchvision_model(name):
    import torchvision.models as tvm
    m = getattr(tvm, name)(num_classes=4)
    if name == "resnet18":
        m.conv1 = nn.Conv2d(1, 64, 7, 2, 3, bias=False)
    else:
        c = m.features[0][0]
        m.features[0][0] = nn.Conv2d(1, c.out_channels, c.kernel_size, c.stride, c.padding, bias=False)
    # torchvision's initialisation (identity BatchNorm statistics, a classifier of N(0, 0.01) and zero biases)
    # gives mobilenet_v2 and efficientnet_b0 uniform probabilities, which would agree with anything.
    for mod in m.modules():
        if isinstance(mod, nn.BatchNorm2d):
            randomize(mod)
        elif isinstance(mod, nn.Linear):
            nn.init.normal_(mod.weight, std=4 / mod.in_features ** 0.5)
            nn.init.uniform_(mod.bias, -0.5, 0.5)
    return m


def opset18(src, dst):
    """The opset-17 file at src as opset 18: each Reduce op's axes attribute becomes its second input."""
    m = onnx.load(src)
    for n in m.graph.node:
        if n.op_type.startswith("Reduce") and n.op_type != "ReduceSum":
            axes = [a for a in n.attribute if a.name == "axes"]
            if axes:
                name = n.name.replace("/", "_") + "_axes"
                m.graph.initializer.append(numpy_helper.from_array(numpy.array(axes[0].ints, dtype="int64"), name))
                n.input.append(name)
                n.attribute.remove(axes[0])
    for o in m.opset_import:
        if o.domain in ("", "ai.onnx"):
            o.version = 18
    onnx.save(m, dst)


MODELS = {
    "resnet": (ResNet, 12), "resnet_raw": (ResNet, 12), "preact": (PreAct, 8), "densenet": (Dense, 8), "mobilenet_raw": (MobileNet, 12),
    "silu": (SiLUNet, 16), "gelu": (GELUNet, 8), "mobilenet": (MobileNet, 12), "efficientnet": (EfficientNet, 12),
    "zoo": (Zoo, 8), "resnet18": (None, 32), "mobilenet_v2": (None, 32), "efficientnet_b0": (None, 32),
    "lstm": (LSTMNet, 8), "attention": (Attention, 8), "nonzero": (NonZero, 8),
}

for name, (make, side) in MODELS.items():
    if only and name not in only:
        continue
    torch.manual_seed(zlib.crc32(name.removesuffix("_raw").encode()))  # resnet_raw is resnet, unfolded
    model = (make() if make else torchvision_model(name)).eval()
    x = torch.rand(1, 1, side, side)
    kw = dict(input_names=["x"], output_names=["y"], dynamic_axes={"x": {0: "n"}, "y": {0: "n"}})
    if name.endswith("_raw"):
        kw.update(do_constant_folding=False, training=torch.onnx.TrainingMode.PRESERVE)
    for opset in (13, 17):
        torch.onnx.export(model, x, os.path.join(out, f"{name}_{opset}.onnx"), opset_version=opset, **kw)
    opset18(os.path.join(out, f"{name}_17.onnx"), os.path.join(out, f"{name}_18.onnx"))
