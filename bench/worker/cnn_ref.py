"""Plain PyTorch reference of the worker's mnist-cnn step on Fashion-MNIST
(the pytorch/examples MNIST net, Adam, the same batch size and input
normalisation). Prints samples per second over the timed steps.
TRAINYARD_BENCH_AMP=bf16 runs the forward pass and the loss under
torch.autocast(device_type, dtype=torch.bfloat16), and
TRAINYARD_BENCH_CHANNELS_LAST=1 puts the model and every input batch in
torch.channels_last, as the worker's train.amp / train.channels_last do."""
import contextlib, gzip, os, sys, time, numpy, torch
import torch.nn as nn, torch.nn.functional as F

def idx(path):
    data = gzip.open(path).read() if path.endswith(".gz") else open(path, "rb").read()
    ndim = data[3]
    dims = [int.from_bytes(data[4 + 4 * i:8 + 4 * i], "big") for i in range(ndim)]
    return torch.from_numpy(numpy.frombuffer(data, numpy.uint8, offset=4 + 4 * ndim).reshape(dims).copy())

class Net(nn.Module):
    def __init__(self, classes):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 32, 3); self.conv2 = nn.Conv2d(32, 64, 3)
        self.dropout1 = nn.Dropout(0.25); self.dropout2 = nn.Dropout(0.5)
        self.fc1 = nn.Linear(9216, 128); self.fc2 = nn.Linear(128, classes)
    def forward(self, x):
        x = F.relu(self.conv1(x)); x = F.relu(self.conv2(x))
        x = self.dropout1(F.max_pool2d(x, 2)).flatten(1)
        return self.fc2(self.dropout2(F.relu(self.fc1(x))))

def main(folder, steps, warmup, batch, lr):
    torch.set_num_threads(1)
    torch.manual_seed(1)
    images = idx(f"{folder}/train-images-idx3-ubyte.gz")[:-5000].unsqueeze(1)
    labels = idx(f"{folder}/train-labels-idx1-ubyte.gz")[:-5000].long()
    mean = (images.double() / 255).mean().item(); std = (images.double() / 255).std().item()
    # TRAINYARD_BENCH_DEVICE=cuda:0 runs the same loop on a GPU.
    device = torch.device(os.environ.get("TRAINYARD_BENCH_DEVICE", "cpu"))
    sync = torch.cuda.synchronize if device.type == "cuda" else (lambda: None)
    images = images.to(device); labels = labels.to(device)
    amp = os.environ.get("TRAINYARD_BENCH_AMP", "off") == "bf16"
    channels_last = os.environ.get("TRAINYARD_BENCH_CHANNELS_LAST", "0") == "1"
    memory_format = torch.channels_last if channels_last else torch.contiguous_format
    model = Net(10).to(device)
    if channels_last:
        model = model.to(memory_format=torch.channels_last)
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    autocast = (lambda: torch.autocast(device.type, dtype=torch.bfloat16)) if amp else contextlib.nullcontext
    perm = torch.randperm(len(images), device=device); pos = 0; start = None
    for step in range(warmup + steps):
        if step == warmup:
            sync()
            start = time.perf_counter()
        if pos + batch > len(images):
            perm = torch.randperm(len(images), device=device); pos = 0
        i = perm[pos:pos + batch]; pos += batch
        x = ((images[i].float() / 255 - mean) / std).contiguous(memory_format=memory_format)
        with autocast():
            loss = F.cross_entropy(model(x), labels[i])
        opt.zero_grad(); loss.backward(); opt.step()
        if (step + 1) % 50 == 0:
            loss.item()
    sync()
    print(f"{steps * batch / (time.perf_counter() - start):.1f}")

if __name__ == "__main__":
    a = sys.argv
    main(a[1], int(a[2]), int(a[3]), int(a[4]), float(a[5]))
