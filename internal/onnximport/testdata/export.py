"""Exports small PyTorch models to ONNX for internal/onnximport's tests, with PyTorch's own outputs.

usage: python3 export.py OUT_DIR [OPSET]

Writes OUT_DIR/{clf,enc,dec}.onnx and clf_raw.onnx (unfolded) (eval mode: PyTorch drops the classifier's Dropout, which the test puts back
with Options.Dropout), x.f32 (8 images 1×12×12), z.f32 (8 latent points of 3), and PyTorch's outputs for them:
clf.f32 (softmax probabilities), enc.f32 (the encoder's means), dec.f32 (the decoder's images), all
little-endian float32. Layers cover what the import reads: Conv with BatchNorm (folded), MaxPool, AvgPool,
Linear, ReLU, LeakyReLU, Tanh, Dropout, view and flatten, nearest Upsample, ConvTranspose, a final Softmax and
Sigmoid.
"""
import sys

import torch
from torch import nn

out = sys.argv[1]
opset = int(sys.argv[2]) if len(sys.argv) > 2 else 17
torch.manual_seed(20261126)


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 8, 3, stride=2, padding=1)
        self.bn1 = nn.BatchNorm2d(8)
        self.pool1 = nn.MaxPool2d(2)
        self.conv2 = nn.Conv2d(8, 16, 3, padding=1)
        self.pool2 = nn.AvgPool2d(3, stride=1, padding=1)
        self.fc1 = nn.Linear(16 * 3 * 3, 32)
        self.drop = nn.Dropout(0.3)
        self.fc2 = nn.Linear(32, 4)

    def forward(self, x):
        x = self.pool1(torch.relu(self.bn1(self.conv1(x))))
        x = self.pool2(torch.relu(self.conv2(x)))
        x = x.view(x.size(0), -1)
        x = self.drop(torch.relu(self.fc1(x)))
        return torch.softmax(self.fc2(x), dim=1)


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 8, 4, stride=2, padding=1)
        self.conv2 = nn.Conv2d(8, 16, 3, padding=1)
        self.mean = nn.Linear(16 * 6 * 6, 3)

    def forward(self, x):
        x = nn.functional.leaky_relu(self.conv1(x), 0.2)
        x = torch.tanh(self.conv2(x))
        return self.mean(torch.flatten(x, 1))


class Decoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 16 * 3 * 3)
        self.up = nn.Upsample(scale_factor=2, mode="nearest")
        self.convt = nn.ConvTranspose2d(16, 8, 4, stride=2, padding=1)
        self.conv = nn.Conv2d(8, 1, 3, padding=1)

    def forward(self, z):
        x = torch.relu(self.fc(z)).view(-1, 16, 3, 3)
        x = torch.relu(self.convt(self.up(x)))
        return torch.sigmoid(self.conv(x))


clf, enc, dec = Classifier(), Encoder(), Decoder()
with torch.no_grad():  # running statistics that are not the identity, so that folding them shows
    clf.bn1.running_mean.uniform_(-0.5, 0.5)
    clf.bn1.running_var.uniform_(0.5, 2.0)
    clf.bn1.weight.uniform_(0.5, 1.5)
    clf.bn1.bias.uniform_(-0.2, 0.2)
for m in (clf, enc, dec):
    m.eval()

x = torch.rand(8, 1, 12, 12)
z = torch.randn(8, 3)
for name, model, arg in (("clf", clf, x), ("enc", enc, x), ("dec", dec, z)):
    torch.onnx.export(model, arg[:1], f"{out}/{name}.onnx", opset_version=opset, input_names=["input"],
                      output_names=["output"], dynamic_axes={"input": {0: "N"}, "output": {0: "N"}})
    with torch.no_grad():
        model(arg).numpy().astype("<f4").tofile(f"{out}/{name}.f32")
# The classifier again without PyTorch's constant folding and fusing: its BatchNormalization and its view's shape
# arithmetic (Shape, Gather, Unsqueeze, Concat) stay in the graph for the import to fold.
torch.onnx.export(clf, x[:1], f"{out}/clf_raw.onnx", opset_version=opset, input_names=["input"], output_names=["output"],
                  dynamic_axes={"input": {0: "N"}, "output": {0: "N"}}, do_constant_folding=False,
                  training=torch.onnx.TrainingMode.PRESERVE)  # EVAL would fuse the batch norm into the conv
x.numpy().astype("<f4").tofile(f"{out}/x.f32")
z.numpy().astype("<f4").tofile(f"{out}/z.f32")
