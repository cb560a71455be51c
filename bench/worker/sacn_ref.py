"""Plain PyTorch reference of the worker's SACN and Conv-TransE training step
(same model, same hyperparameters, same 1-N BCE loss with label smoothing,
Adam). Prints the seconds per batch over the timed steps.

The model is the worker's (core/worker/train/models.cpp): entity features
[N, init_dim], relation table [2R, dim] (queries in both directions), each GCN
layer Linear -> sum over edges j -> i of alpha[type] * (W h_j + b) (relations,
their inverses and a self-loop, one learnt alpha per type) -> BatchNorm ->
tanh -> dropout, then the Conv-TransE decoder scored against every entity.

The GCN is written two plain ways, both timed by bench-worker.sh so the ratio is
against the faster: `sparse` as the SACN authors wrote it (a sparse COO
adjacency built from alpha each step, torch.sparse.mm), `gather` as a
message-passing library does it (index_select the messages, index_add them).
Run with Debian's /usr/bin/python3 (python3-torch)."""
import sys, time, torch
import torch.nn.functional as F


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


class Gcn(torch.nn.Module):
    def __init__(self, d_in, d_out, types, dropout, style):
        super().__init__()
        self.linear = torch.nn.Linear(d_in, d_out)
        self.alpha = torch.nn.Embedding(types, 1)
        torch.nn.init.ones_(self.alpha.weight)
        self.bn = torch.nn.BatchNorm1d(d_out)
        self.dropout, self.style = dropout, style

    def forward(self, x, src, dst, etype):
        support = self.linear(x)
        a = self.alpha(etype).squeeze(1)
        if self.style == "sparse":
            adj = torch.sparse_coo_tensor(torch.stack([dst, src]), a, (x.size(0), x.size(0)))
            out = torch.sparse.mm(adj, support)
        else:
            out = torch.zeros_like(support).index_add(0, dst, support.index_select(0, src) * a.unsqueeze(1))
        return F.dropout(torch.tanh(self.bn(out)), self.dropout, self.training)


class Model(torch.nn.Module):
    def __init__(self, n, r, train, sacn, style, dim=200, init_dim=100, kernels=100, k=5, layers=2):
        super().__init__()
        self.sacn = sacn
        self.entity = torch.nn.Embedding(n, init_dim if sacn else dim)
        self.relation = torch.nn.Embedding(2 * r, dim)
        torch.nn.init.xavier_normal_(self.entity.weight); torch.nn.init.xavier_normal_(self.relation.weight)
        if sacn:
            self.gcn = torch.nn.ModuleList(Gcn(init_dim if i == 0 else dim, dim, 2 * r + 1, 0.2, style)
                                           for i in range(layers))
            h, rel, t = train[:, 0], train[:, 1], train[:, 2]
            loop = torch.arange(n)
            self.src, self.dst = torch.cat([h, t, loop]), torch.cat([t, h, loop])
            self.etype = torch.cat([rel, rel + r, torch.full_like(loop, 2 * r)])
        self.bn0, self.bn1, self.bn2 = torch.nn.BatchNorm1d(2), torch.nn.BatchNorm1d(kernels), torch.nn.BatchNorm1d(dim)
        self.conv = torch.nn.Conv1d(2, kernels, k, padding=k // 2)
        self.fc = torch.nn.Linear(kernels * dim, dim)

    def forward(self, e, rel):
        x_all = self.entity.weight
        if self.sacn:
            for layer in self.gcn:
                x_all = layer(x_all, self.src, self.dst, self.etype)
        x = torch.stack([x_all[e], self.relation(rel)], 1)
        x = F.dropout(self.bn0(x), 0.2, self.training)
        x = F.dropout(F.relu(self.bn1(self.conv(x))), 0.2, self.training).flatten(1)
        x = F.relu(self.bn2(F.dropout(self.fc(x), 0.3, self.training)))
        return x @ x_all.t()


def main(folder, model, style, steps, warmup, batch, lr, threads):
    torch.set_num_threads(threads)
    torch.manual_seed(1)
    train, n, r = load(folder)
    # Queries (e, r) -> the entities that complete them, both directions.
    answers = {}
    for h, rel, t in train.tolist():
        answers.setdefault((h, rel), []).append(t)
        answers.setdefault((t, rel + r), []).append(h)
    keys = list(answers)
    key_tensor = torch.tensor(keys)
    net = Model(n, r, train, model == "sacn", style)
    opt = torch.optim.Adam(net.parameters(), lr=lr)
    net.train()
    perm = torch.randperm(len(keys)); pos = 0; start = None
    for step in range(warmup + steps):
        if step == warmup:
            start = time.perf_counter()
        if pos + batch > len(keys):
            perm = torch.randperm(len(keys)); pos = 0
        idx = perm[pos:pos + batch]; pos += batch
        b = key_tensor[idx]
        target = torch.zeros(batch, n)
        for i, k in enumerate(idx.tolist()):
            target[i, answers[keys[k]]] = 1.0
        target = 0.9 * target + 1.0 / n
        loss = F.binary_cross_entropy_with_logits(net(b[:, 0], b[:, 1]), target)
        opt.zero_grad(); loss.backward(); opt.step()
    loss.item()
    print(f"{(time.perf_counter() - start) / steps:.4f} {len(keys)}")


if __name__ == "__main__":
    a = sys.argv
    main(a[1], a[2], a[3], int(a[4]), int(a[5]), int(a[6]), float(a[7]), int(a[8]))
