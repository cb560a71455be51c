"""What the federated example's client and aggregate share: Fashion-MNIST
from Debian's dataset-fashion-mnist (gzipped IDX) and the small
convolutional net they train (the seed's MNIST net)."""
import gzip
import os
import struct

import torch
import torch.nn as nn
import torch.nn.functional as F

DATA = "/usr/share/datasets/fashion-mnist"  # Debian's dataset-fashion-mnist


def read_idx(path):
    with gzip.open(path, "rb") as f:
        magic, count = struct.unpack(">II", f.read(8))
        dims = [struct.unpack(">I", f.read(4))[0] for _ in range((magic & 0xFF) - 1)]
        data = torch.frombuffer(bytearray(f.read()), dtype=torch.uint8)
    return data.reshape(count, *dims)


def load(split, limit=None):
    """(images as floats in [0, 1], N x 1 x 28 x 28; labels) of "train" or "test"."""
    prefix = "train" if split == "train" else "t10k"
    images = read_idx(os.path.join(DATA, "%s-images-idx3-ubyte.gz" % prefix))[:limit]
    labels = read_idx(os.path.join(DATA, "%s-labels-idx1-ubyte.gz" % prefix))[:limit]
    return images.float().div(255).unsqueeze(1), labels.long()


def shard(images, labels, index, count, seed=0):
    """Client `index`'s own part of the data: one of `count` disjoint parts
    of a fixed shuffle (the same on every client, so the parts never overlap)."""
    order = torch.randperm(len(labels), generator=torch.Generator().manual_seed(seed))
    part = order[index::count]
    return images[part], labels[part]


class Net(nn.Module):
    def __init__(self, hidden=64):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 16, 5)
        self.conv2 = nn.Conv2d(16, 32, 5)
        self.fc1 = nn.Linear(32 * 4 * 4, hidden)
        self.fc2 = nn.Linear(hidden, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        return self.fc2(F.relu(self.fc1(x.flatten(1))))


def threads():
    """The cores Trainyard gives each run of the lane (OMP_NUM_THREADS)."""
    torch.set_num_threads(int(os.environ.get("OMP_NUM_THREADS", "1")))
