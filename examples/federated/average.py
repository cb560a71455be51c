#!/usr/bin/env python3
"""The aggregate of one round of federated averaging (federated.json).

It averages the weights of the round's clients (the runs it runs after,
run.inputs), each weighted by the size of its shard (FedAvg, McMahan et
al. 2017), measures the average's accuracy on the Fashion-MNIST test set
and saves it for the next round's clients. Its eval curve is the accuracy
of every round so far: the earlier rounds' come with the clients'
checkpoints (each aggregate passes them on), this round's is new.
"""
import os

import torch

import fednet
import trainyard

run = trainyard.init(config={"hidden": 64, "test_limit": 10000})
fednet.threads()

states = [torch.load(i.checkpoint) for i in run.inputs]
total = sum(s["samples"] for s in states)
average = {key: sum(s["model"][key].float() * (s["samples"] / total) for s in states) for key in states[0]["model"]}
step = max(s["step"] for s in states)
history = states[0]["history"]

model = fednet.Net(run.config["hidden"])
model.load_state_dict(average)
model.eval()
images, labels = fednet.load("test", run.config["test_limit"])
with torch.no_grad():
    right = sum((model(x).argmax(1) == y).sum().item() for x, y in zip(images.split(1000), labels.split(1000)))
accuracy = right / len(labels)
history = history + [[step, accuracy]]
run.summary["test_accuracy"] = accuracy  # the runs table's summary.test_accuracy
for at, value in history:
    run.eval("test", at, accuracy=value)
print("round %d: test accuracy %.4f (%d clients, %d samples)" % (len(history), accuracy, len(states), total))

path = os.path.join(run.checkpoint_dir, "average.pt")
torch.save({"model": model.state_dict(), "step": step, "history": history}, path)
run.checkpoint(step, path)
