"""Plain PyTorch reference of the worker's TransE step (same hyperparameters,
same algorithm: unit-norm entities before each step, Bernoulli corruption,
L1 margin ranking loss, Adam). Prints samples per second over the timed steps.
Run with Debian's /usr/bin/python3 (python3-torch, the LibTorch of libtorch-dev)."""
import os, sys, time, torch

def load(folder):
    ents, rels, rows = {}, {}, []
    for line in open(f"{folder}/train.txt"):
        h, r, t = line.rstrip("\n").split("\t")
        rows.append((ents.setdefault(h, len(ents)), rels.setdefault(r, len(rels)), ents.setdefault(t, len(ents))))
    for split in ("valid", "test"):
        for line in open(f"{folder}/{split}.txt"):
            h, r, t = line.rstrip("\n").split("\t")
            ents.setdefault(h, len(ents)); ents.setdefault(t, len(ents)); rels.setdefault(r, len(rels))
    return torch.tensor(rows), len(ents), len(rels)

def bernoulli(train, r):
    """P(corrupt the head) per relation: tph / (tph + hpt) (Wang et al. 2014)."""
    p_head = torch.full((r,), 0.5)
    for k in range(r):
        m = train[:, 1] == k
        if m.any():
            tph = m.sum().item() / len(set(train[m, 0].tolist())); hpt = m.sum().item() / len(set(train[m, 2].tolist()))
            p_head[k] = tph / (tph + hpt)
    return p_head

def main(folder, steps, warmup, batch, dim, negatives, margin, lr):
    torch.set_num_threads(1)
    torch.manual_seed(1)
    # TRAINYARD_BENCH_DEVICE=cuda:0 runs the same loop on a GPU.
    device = torch.device(os.environ.get("TRAINYARD_BENCH_DEVICE", "cpu"))
    sync = torch.cuda.synchronize if device.type == "cuda" else (lambda: None)
    train, n, r = load(folder)
    bound = 6 / dim ** 0.5
    ent = torch.nn.Embedding(n, dim); rel = torch.nn.Embedding(r, dim)
    with torch.no_grad():
        ent.weight.uniform_(-bound, bound); rel.weight.uniform_(-bound, bound)
        rel.weight.div_(rel.weight.norm(dim=1, keepdim=True))
    p_head = bernoulli(train, r)
    train = train.to(device); ent.to(device); rel.to(device); p_head = p_head.to(device)
    opt = torch.optim.Adam(list(ent.parameters()) + list(rel.parameters()), lr=lr)
    def dist(h, rr, t):
        return (ent(h) + rel(rr) - ent(t)).norm(p=1, dim=-1)
    perm = torch.randperm(len(train), device=device); pos = 0; start = None
    for step in range(warmup + steps):
        if step == warmup:
            sync()
            start = time.perf_counter()
        if pos + batch > len(train):
            perm = torch.randperm(len(train), device=device); pos = 0
        b = train[perm[pos:pos + batch]]; pos += batch
        with torch.no_grad():
            ent.weight.div_(ent.weight.norm(dim=1, keepdim=True).clamp_min(1e-12))
        h, rr, t = b[:, 0], b[:, 1], b[:, 2]
        hn, rn, tn = h.repeat(negatives), rr.repeat(negatives), t.repeat(negatives)
        rnd = torch.randint(n, (len(hn),), device=device)
        corrupt_head = torch.rand(len(hn), device=device) < p_head[rn]
        loss = torch.relu(margin + dist(h, rr, t).repeat(negatives)
                          - dist(torch.where(corrupt_head, rnd, hn), rn, torch.where(corrupt_head, tn, rnd))).mean()
        opt.zero_grad(); loss.backward(); opt.step()
        if (step + 1) % 50 == 0:
            loss.item()
    sync()
    elapsed = time.perf_counter() - start
    print(f"{steps * batch / elapsed:.1f}")

if __name__ == "__main__":
    a = sys.argv
    main(a[1], int(a[2]), int(a[3]), int(a[4]), int(a[5]), int(a[6]), float(a[7]), float(a[8]))
