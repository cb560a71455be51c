#!/usr/bin/env python3
"""Writes the built-in demo as an experiment for the test cluster: its three
knowledge-graph lanes (TransE x2, TransH x3, SACN x4) become lanes of
"slurm:test/debug" (gres gpu:1; the cluster has two fake GPUs, so one lane's
job waits for Resources), its Fashion-MNIST lane is left out.

    demo-cluster-experiment.py DEMO.json OUT.json RUNS_ROOT WORKER [EPOCH_SCALE]

EPOCH_SCALE (default 1) multiplies every run's epochs and their cap of 100
steps (the demo trains for about a minute; the test need not): the
screenshot wants runs that train long enough to be seen pending and running."""
import json
import sys

demo, out, runs_root, worker = sys.argv[1:5]
scale = int(sys.argv[5]) if len(sys.argv) > 5 else 1
e = json.load(open(demo))
e["name"] = "demo-cluster"
e["runs_root"] = runs_root
e["clusters"] = [{"name": "test", "worker": worker, "poll_seconds": 2}]
kg = {"transe", "transh", "sacn"}
lanes = [l for l in e["lanes"] if all(r["model"]["type"] in kg for r in l["runs"])]
for lane in lanes:
    lane["device"] = "slurm:test/debug"
    lane["gres"] = "gpu:1"
    for run in lane["runs"]:
        run["train"]["epochs"] = run["train"].get("epochs", 1) * scale
        run["train"]["max_steps"] = min(run["train"].get("max_steps", 100), 100) * scale
e["lanes"] = lanes
runs = sum(r.get("repeat", 1) for l in lanes for r in l["runs"])
assert runs == 9, f"the demo's KG lanes hold {runs} runs, not 9"
json.dump(e, open(out, "w"), indent=2)
