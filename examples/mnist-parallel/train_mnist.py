#!/usr/bin/env python3
"""Two small convolutional nets on Fashion-MNIST, one per Trainyard run.

This is the seed's "train two MNIST nets in parallel" script. It used to
start both nets itself with multiprocessing and print losses; now Trainyard
starts one process per run (mnist-parallel.json: two runs on two lanes), each
on its lane's device, and draws every loss curve live. The lines marked
"# trainyard" are all that changed; without Trainyard the script still runs
on its own (the module then writes ./trainyard-runs/<name>/metrics.jsonl).

    python3 train_mnist.py --hidden 64 --lr 0.01 --epochs 2
"""
import argparse
import gzip
import os
import struct

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

import trainyard  # trainyard

DATA = "/usr/share/datasets/fashion-mnist"  # Debian's dataset-fashion-mnist


def read_idx(path):
    with gzip.open(path, "rb") as f:
        magic, count = struct.unpack(">II", f.read(8))
        dims = [struct.unpack(">I", f.read(4))[0] for _ in range((magic & 0xFF) - 1)]
        data = torch.frombuffer(bytearray(f.read()), dtype=torch.uint8)
    return data.reshape(count, *dims)


def load(split, limit):
    prefix = "train" if split == "train" else "t10k"
    images = read_idx(os.path.join(DATA, f"{prefix}-images-idx3-ubyte.gz"))[:limit]
    labels = read_idx(os.path.join(DATA, f"{prefix}-labels-idx1-ubyte.gz"))[:limit]
    return TensorDataset(images.float().div(255).unsqueeze(1), labels.long())


class Net(nn.Module):
    def __init__(self, hidden):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 16, 5)
        self.conv2 = nn.Conv2d(16, 32, 5)
        self.fc1 = nn.Linear(32 * 4 * 4, hidden)
        self.fc2 = nn.Linear(hidden, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        return self.fc2(F.relu(self.fc1(x.flatten(1))))


def accuracy(model, loader, device):
    model.eval()
    right = total = 0
    with torch.no_grad():
        for x, y in loader:
            right += (model(x.to(device)).argmax(1) == y.to(device)).sum().item()
            total += len(y)
    model.train()
    return right / total


def train(model, data_loader, test_loader, epochs, lr, device, run):
    optimizer = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
    step = 0
    for epoch in range(1, epochs + 1):
        for x, y in data_loader:
            if run.should_stop():  # trainyard (optional): the Stop button
                return
            optimizer.zero_grad()
            loss = F.cross_entropy(model(x.to(device)), y.to(device))
            loss.backward()
            optimizer.step()
            step += 1
            if step % 10 == 0:
                run.log(step, loss=loss.item(), epoch=epoch, total_steps=epochs * len(data_loader))  # trainyard
        run.eval("test", step, epoch=epoch, accuracy=accuracy(model, test_loader, device))  # trainyard (optional)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hidden", type=int, default=64)
    parser.add_argument("--lr", type=float, default=0.01)
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--limit", type=int, default=20000, help="training images used (of 60000)")
    args = parser.parse_args()

    run = trainyard.init()  # trainyard
    torch.manual_seed(run.seed if run.seed is not None else 1)
    # Trainyard gives each run one GPU as cuda:0 (CUDA_VISIBLE_DEVICES), or the CPU.
    device = torch.device(run.device if torch.cuda.is_available() else "cpu")
    torch.set_num_threads(int(os.environ.get("OMP_NUM_THREADS", "1")))
    train_loader = DataLoader(load("train", args.limit), batch_size=args.batch_size, shuffle=True)
    test_loader = DataLoader(load("test", 2000), batch_size=500)
    model = Net(args.hidden).to(device)
    train(model, train_loader, test_loader, args.epochs, args.lr, device, run)


if __name__ == "__main__":
    main()
