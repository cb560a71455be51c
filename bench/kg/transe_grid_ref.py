"""The plain PyTorch TransE loop a user writes today, over a grid of
configurations, at PyTorch's defaults (its own thread count, dense
optimizers, autograd): unit-norm entities before each step (optional),
Bernoulli corruption, L1 margin ranking loss. Prints one line per point:
dim batch negatives optimizer renorm samples_per_s.
Run with Debian's /usr/bin/python3 (python3-torch)."""
import itertools, os, sys, time, torch

# The same data reader and Bernoulli rule as the single-point reference.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "worker"))
from transe_ref import bernoulli, load  # noqa: E402

def rate(train, n, r, p_head, dim, batch, negatives, optimizer, renorm, seconds):
    torch.manual_seed(1)
    bound = 6 / dim ** 0.5
    ent = torch.nn.Embedding(n, dim); rel = torch.nn.Embedding(r, dim)
    with torch.no_grad():
        ent.weight.uniform_(-bound, bound); rel.weight.uniform_(-bound, bound)
        rel.weight.div_(rel.weight.norm(dim=1, keepdim=True))
        ent.weight.div_(ent.weight.norm(dim=1, keepdim=True))
    params = list(ent.parameters()) + list(rel.parameters())
    opt = torch.optim.Adam(params, lr=0.001) if optimizer == "adam" else torch.optim.SGD(params, lr=0.01)
    perm = torch.randperm(len(train)); pos = 0
    step = 0; warmup = 5; start = None; timed = 0
    while True:
        if step == warmup:
            start = time.perf_counter()
        if start is not None and timed >= 10 and time.perf_counter() - start >= seconds:
            break
        if pos + batch > len(train):
            perm = torch.randperm(len(train)); pos = 0
        b = train[perm[pos:pos + batch]]; pos += batch
        if renorm:
            with torch.no_grad():
                ent.weight.div_(ent.weight.norm(dim=1, keepdim=True).clamp_min(1e-12))
        h, rr, t = b[:, 0], b[:, 1], b[:, 2]
        hn, rn, tn = h.repeat(negatives), rr.repeat(negatives), t.repeat(negatives)
        rnd = torch.randint(n, (len(hn),))
        corrupt_head = torch.rand(len(hn)) < p_head[rn]
        dp = (ent(h) + rel(rr) - ent(t)).norm(p=1, dim=-1)
        dn = (ent(torch.where(corrupt_head, rnd, hn)) + rel(rn) - ent(torch.where(corrupt_head, tn, rnd))).norm(p=1, dim=-1)
        loss = torch.relu(4.0 + dp.repeat(negatives) - dn).mean()
        opt.zero_grad(); loss.backward(); opt.step()
        if step % 10 == 0:
            loss.item()
        step += 1
        if start is not None:
            timed += 1
    return timed * batch / (time.perf_counter() - start)

def main(folder, seconds):
    # TRAINYARD_BENCH_PYTHON_THREADS: the same thread count as the worker,
    # for a second comparison (PyTorch's default here is its own choice).
    if os.environ.get("TRAINYARD_BENCH_PYTHON_THREADS"):
        torch.set_num_threads(int(os.environ["TRAINYARD_BENCH_PYTHON_THREADS"]))
    train, n, r = load(folder)
    p_head = bernoulli(train, r)
    for dim, batch, negatives, optimizer, renorm in itertools.product((100, 200), (256, 1024), (1, 8, 64), ("adam", "sgd"), (1, 0)):
        s = rate(train, n, r, p_head, dim, batch, negatives, optimizer, renorm, seconds)
        print(dim, batch, negatives, optimizer, renorm, f"{s:.1f}", flush=True)

if __name__ == "__main__":
    main(sys.argv[1], float(sys.argv[2]) if len(sys.argv) > 2 else 2.0)
