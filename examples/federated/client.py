#!/usr/bin/env python3
"""One client of one round of federated averaging (federated.json).

It starts from the weights of the round before (the aggregate it runs
after, run.inputs[0].checkpoint) or, in round 1, from the same seeded
initial weights as every other client; trains `steps` SGD steps on its own
shard of Fashion-MNIST; and saves its weights with its step and shard size
for the aggregate. Its steps continue where the round before ended, so a
client's runs of every round draw one curve.
"""
import os

import torch
import torch.nn.functional as F

import fednet
import trainyard

run = trainyard.init(config={"shard": 0, "shards": 2, "steps": 100, "batch_size": 64, "lr": 0.05, "hidden": 64})
cfg = run.config
fednet.threads()

torch.manual_seed(0)  # round 1: every client starts from the same weights
model = fednet.Net(cfg["hidden"])
start, history = 0, []
if run.inputs:
    # The aggregate of the round before: its averaged weights, step and accuracies.
    state = torch.load(run.inputs[0].checkpoint)
    model.load_state_dict(state["model"])
    start, history = state["step"], state["history"]
step, end = start, start + cfg["steps"]
if run.resuming and run.resume_path:  # stopped mid-round, started again
    state = torch.load(run.resume_path)
    model.load_state_dict(state["model"])
    step = state["step"]

images, labels = fednet.shard(*fednet.load("train"), cfg["shard"], cfg["shards"])
generator = torch.Generator().manual_seed((run.seed or 1) * 1000 + cfg["shard"])
optimizer = torch.optim.SGD(model.parameters(), lr=cfg["lr"], momentum=0.9)
model.train()
while step < end and not run.should_stop():
    batch = torch.randint(len(labels), (cfg["batch_size"],), generator=generator)
    optimizer.zero_grad()
    loss = F.cross_entropy(model(images[batch]), labels[batch])
    loss.backward()
    optimizer.step()
    step += 1
    if step % 5 == 0 or step == end:
        run.log(step, loss=loss.item(), total_steps=end)

path = os.path.join(run.checkpoint_dir, "client.pt")
torch.save({"model": model.state_dict(), "step": step, "samples": len(labels), "history": history}, path)
run.checkpoint(step, path)
